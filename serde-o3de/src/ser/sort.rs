//! Sorting what was written: the members of maps and the elements of unordered containers, in
//! O3DE's JSON order, by splitting the compact text already in the buffer.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::order::compare;

/// Compares two written object keys (JSON string tokens) by their unescaped bytes.
pub(super) fn compare_keys(a: &[u8], b: &[u8]) -> Ordering {
    if !a.contains(&b'\\') && !b.contains(&b'\\') {
        return a.cmp(b);
    }
    let unescape = |t: &[u8]| serde_json::from_slice::<String>(t).unwrap_or_default();
    unescape(a).cmp(&unescape(b))
}

/// Splits the members of a compact object `{"k":v,...}` (or of its prefix without the closing
/// brace) into key and value spans.
pub(super) fn split_object(text: &[u8]) -> Result<Vec<(&[u8], &[u8])>> {
    let mut entries = Vec::new();
    let mut i = 1;
    while i < text.len() && text[i] != b'}' {
        if text[i] == b',' {
            i += 1;
        }
        let key_start = i;
        i = skip_json(text, i)?;
        let key = &text[key_start..i];
        i += 1; // ':'
        let value_start = i;
        i = skip_json(text, i)?;
        entries.push((key, &text[value_start..i]));
    }
    Ok(entries)
}

/// Splits the elements of a compact array.
pub(super) fn split_array(text: &[u8]) -> Result<Vec<&[u8]>> {
    let mut items = Vec::new();
    let mut i = 1;
    while i < text.len() && text[i] != b']' {
        if text[i] == b',' {
            i += 1;
        }
        let start = i;
        i = skip_json(text, i)?;
        items.push(&text[start..i]);
    }
    Ok(items)
}

/// The end of the compact JSON value starting at `i`.
pub(super) fn skip_json(text: &[u8], mut i: usize) -> Result<usize> {
    let mut depth = 0usize;
    loop {
        let Some(&b) = text.get(i) else {
            return Err(Error::store("internal: truncated JSON while sorting a map"));
        };
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = text.get(i) {
                    match c {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
                continue;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' | b':' if depth > 0 => {
                i += 1;
                continue;
            }
            _ => {
                while text.get(i).is_some_and(|c| !matches!(c, b',' | b':' | b'}' | b']')) {
                    i += 1;
                }
            }
        }
        if depth == 0 {
            return Ok(i);
        }
    }
}

/// Sorts the members of the object written from `start` by key.
pub(super) fn sort_object_map(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let region = out.split_off(start);
    let mut entries = split_object(&region)?;
    entries.sort_by(|a, b| compare_keys(a.0, b.0).then_with(|| compare_text(a.1, b.1)));
    out.push(b'{');
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(k);
        out.push(b':');
        out.extend_from_slice(v);
    }
    out.push(b'}');
    Ok(())
}

/// Sorts the Key/Value entries of the array written from `start` by key, then value.
pub(super) fn sort_array_map(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let region = out.split_off(start);
    let items = split_array(&region)?;
    let mut parsed = Vec::with_capacity(items.len());
    for item in items {
        let entry = split_object(item)?;
        let get = |name: &[u8]| entry.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).unwrap_or(b"{}");
        let key = serde_json::from_slice(get(b"\"Key\"")).unwrap_or(serde_json::Value::Null);
        let value = serde_json::from_slice(get(b"\"Value\"")).unwrap_or(serde_json::Value::Null);
        parsed.push((key, value, item));
    }
    parsed.sort_by(|a, b| compare(&a.0, &b.0).then_with(|| compare(&a.1, &b.1)));
    out.push(b'[');
    for (i, (_, _, item)) in parsed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    Ok(())
}

/// Sorts the elements of the array written from `start` in O3DE's JSON order.
pub(super) fn sort_array(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let region = out.split_off(start);
    let items = split_array(&region)?;
    let mut parsed: Vec<(serde_json::Value, &[u8])> =
        items.into_iter().map(|item| (serde_json::from_slice(item).unwrap_or(serde_json::Value::Null), item)).collect();
    parsed.sort_by(|a, b| compare(&a.0, &b.0));
    out.push(b'[');
    for (i, (_, item)) in parsed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    Ok(())
}

pub(super) fn compare_text(a: &[u8], b: &[u8]) -> Ordering {
    let parse = |t: &[u8]| serde_json::from_slice(t).unwrap_or(serde_json::Value::Null);
    compare(&parse(a), &parse(b))
}
