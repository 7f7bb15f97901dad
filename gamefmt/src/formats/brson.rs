//! brson: serde-brson's container, its JSON form and its URL helpers.

use std::path::Path;

use serde_brson::bson::{Bson, Document, RawBsonRef, RawDocument};
use serde_brson::json::IntWidth;
use serde_brson::{Compression, Options};
use serde_json::json;

use super::{Context, Failure, Outcome, size};
use crate::cli::{CompressionArg, Format};

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(Format::Brson, e)
}

fn compression_name(c: Compression) -> &'static str {
    match c {
        Compression::None => "none",
        Compression::Lz4 => "lz4",
        Compression::Lzma => "lzma",
        Compression::Brotli => "brotli",
    }
}

fn parse_compression(name: &str) -> Option<Compression> {
    [Compression::None, Compression::Lz4, Compression::Lzma, Compression::Brotli]
        .into_iter()
        .find(|c| compression_name(*c) == name)
}

/// Whether every integer of the tree is an int64 (legacy Neos files): then JSON → BSON uses
/// int64 too, so the file comes back with the same widths.
fn all_int64(doc: &RawDocument) -> Outcome<bool> {
    let mut int64 = 0usize;
    let mut stack = vec![doc.iter()];
    while let Some(iter) = stack.last_mut() {
        let Some(item) = iter.next() else {
            stack.pop();
            continue;
        };
        let (_, value) = item.map_err(fail)?;
        match value {
            // One int32 settles it (modern trees have them early).
            RawBsonRef::Int32(_) => return Ok(false),
            RawBsonRef::Int64(_) => int64 += 1,
            RawBsonRef::Document(d) => stack.push(d.iter()),
            RawBsonRef::Array(a) => stack.push(RawDocument::from_bytes(a.as_bytes()).map_err(fail)?.iter()),
            _ => {}
        }
    }
    Ok(int64 > 0)
}

fn widen_ints(doc: &mut Document) {
    let mut stack: Vec<&mut Bson> = doc.iter_mut().map(|(_, v)| v).collect();
    while let Some(value) = stack.pop() {
        match value {
            Bson::Int32(i) => *value = Bson::Int64(i64::from(*i)),
            Bson::Document(d) => stack.extend(d.iter_mut().map(|(_, v)| v)),
            Bson::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

pub(super) fn decode(ctx: &Context, path: &Path, bytes: &[u8]) -> Outcome<Vec<u8>> {
    let header = serde_brson::container::sniff(bytes).map_err(fail)?;
    let payload = Options::new().extension_of(path).decompress(bytes).map_err(fail)?;
    let raw = payload.raw();
    if let Some(key) = raw.iter().filter_map(Result::ok).map(|(k, _)| k.as_str()).find(|k| k.starts_with("$__")) {
        return Err(fail(format_args!(
            "the tree has a root member {key:?}; gamefmt reserves `$__` root keys for its own settings"
        )));
    }
    let mut meta = vec![
        ("$__format", json!("brson")),
        ("$__compression", json!(compression_name(payload.compression()))),
        ("$__header", json!(header.is_some())),
    ];
    if all_int64(raw)? {
        meta.push(("$__ints", json!("int64")));
    }
    let pretty = !ctx.compact;
    let mut out = Vec::with_capacity(payload.as_bytes().len() * 2 + 256);
    if raw.iter().next().is_none() {
        out = super::splice_meta(b"{}", &meta, pretty, "  ");
    } else {
        // The meta keys, then the document's members straight after them: the document's own
        // opening brace is skipped as it is written (no copy of the whole text).
        out.extend_from_slice(&super::splice_meta(b"{X", &meta, pretty, "  "));
        out.truncate(out.len() - 1);
        serde_brson::json::to_writer(SkipFirst { inner: &mut out, skipped: false }, raw, pretty).map_err(fail)?;
    }
    out.push(b'\n');
    Ok(out)
}

/// A writer that drops the first byte written to it (the document's `{`).
struct SkipFirst<W> {
    inner: W,
    skipped: bool,
}

impl<W: std::io::Write> std::io::Write for SkipFirst<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.skipped && !buf.is_empty() {
            self.skipped = true;
            return self.inner.write(&buf[1..]).map(|n| n + 1);
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn meta_str<'a>(doc: &'a Document, key: &str) -> Outcome<Option<&'a str>> {
    match doc.get(key) {
        None => Ok(None),
        Some(Bson::String(s)) => Ok(Some(s)),
        Some(other) => Err(fail(format_args!("at /{key}: expected a string, found {other}"))),
    }
}

pub(super) fn encode(ctx: &Context, json: &[u8]) -> Outcome<Vec<u8>> {
    let mut doc =
        serde_brson::json::from_slice_with(json, IntWidth::Narrowest, Options::DEFAULT_MAX_DEPTH).map_err(fail)?;
    let recorded = match meta_str(&doc, "$__compression")? {
        None => None,
        Some(name) => Some(parse_compression(name).ok_or_else(|| {
            fail(format_args!("at /$__compression: expected lz4, lzma, brotli or none, found {name:?}"))
        })?),
    };
    let compression = match ctx.compression {
        Some(CompressionArg::Lz4) => Compression::Lz4,
        Some(CompressionArg::Lzma) => Compression::Lzma,
        Some(CompressionArg::Brotli) => Compression::Brotli,
        None => recorded.unwrap_or(Compression::Brotli),
    };
    let header = match doc.get("$__header") {
        None => true,
        Some(Bson::Boolean(b)) => *b,
        Some(other) => return Err(fail(format_args!("at /$__header: expected true or false, found {other}"))),
    };
    let int64 = match meta_str(&doc, "$__ints")? {
        None => false,
        Some("int64") => true,
        Some(other) => return Err(fail(format_args!("at /$__ints: expected \"int64\", found {other:?}"))),
    };
    let unknown: Vec<String> = doc
        .keys()
        .filter(|k| {
            k.starts_with("$__") && !["$__format", "$__compression", "$__header", "$__ints"].contains(&k.as_str())
        })
        .cloned()
        .collect();
    if let Some(key) = unknown.first() {
        return Err(fail(format_args!(
            "at /{key}: unknown gamefmt key (expected $__format, $__compression, $__header or $__ints)"
        )));
    }
    for key in ["$__format", "$__compression", "$__header", "$__ints"] {
        doc.remove(key);
    }
    if int64 {
        widen_ints(&mut doc);
    }
    let mut bson = Vec::new();
    doc.to_writer(&mut bson).map_err(fail)?;
    let options = Options::new().allow_uncompressed(compression == Compression::None);
    let mut file = options.compress(&bson, compression).map_err(fail)?;
    if !header {
        // A legacy (headerless) file: the same body without the FrDT header.
        let len = serde_brson::Header::new(compression).len;
        file.drain(..len);
    }
    Ok(file)
}

pub(super) fn inspect(_ctx: &Context, path: &Path, bytes: &[u8]) -> Outcome<String> {
    let header = serde_brson::container::sniff(bytes).map_err(fail)?;
    let payload = Options::new().extension_of(path).decompress(bytes).map_err(fail)?;
    let raw = payload.raw();
    let mut out = String::new();
    out.push_str("format: brson (Resonite data tree)\n");
    match header {
        Some(h) => out.push_str(&format!("container: FrDT header, version {}, kind {}\n", h.version, h.kind)),
        None => out.push_str("container: legacy (no header; codec from the extension)\n"),
    }
    out.push_str(&format!("compression: {}\n", compression_name(payload.compression())));
    out.push_str(&format!("file size: {}\n", size(bytes.len())));
    out.push_str(&format!("BSON payload: {}\n", size(payload.as_bytes().len())));
    if let Ok(Some(v)) = payload.version_number() {
        out.push_str(&format!("VersionNumber: {v}\n"));
    }
    if let Ok(Some(types)) = payload.types() {
        out.push_str(&format!("types: {}\n", types.len()));
    }
    let (slots, components) = count_slots(raw).map_err(fail)?;
    out.push_str(&format!("slots: {slots}\ncomponents: {components}\n"));
    let urls = serde_brson::url::urls(raw).map_err(fail)?;
    out.push_str(&format!("asset URLs: {}\n", urls.len()));
    out.push_str("top level:\n");
    for item in raw.iter() {
        let (key, value) = item.map_err(fail)?;
        out.push_str(&format!("  {key}: {}\n", describe(value)));
    }
    Ok(out)
}

/// The annotated dump of the file (serde-brson's).
pub(super) fn dump(path: &Path, bytes: &[u8]) -> String {
    serde_brson::dump::dump(bytes, &Options::new().extension_of(path)).to_string()
}

fn describe(value: RawBsonRef<'_>) -> String {
    match value {
        RawBsonRef::Document(d) => format!("document ({} members)", d.iter().count()),
        RawBsonRef::Array(a) => format!("array ({} items)", a.into_iter().count()),
        RawBsonRef::String(s) if s.chars().count() <= 60 => format!("string {s:?}"),
        RawBsonRef::String(s) => format!("string ({} bytes)", s.len()),
        RawBsonRef::Int32(i) => format!("int32 {i}"),
        RawBsonRef::Int64(i) => format!("int64 {i}"),
        RawBsonRef::Double(d) => format!("double {d}"),
        RawBsonRef::Boolean(b) => format!("bool {b}"),
        RawBsonRef::Null => "null".to_owned(),
        other => format!("{:?}", other.element_type()),
    }
}

/// Slots (documents with a `Components` member) and components in the tree.
fn count_slots(doc: &RawDocument) -> serde_brson::Result<(usize, usize)> {
    let (mut slots, mut components) = (0, 0);
    let mut stack = vec![doc];
    while let Some(d) = stack.pop() {
        for item in d.iter() {
            let (key, value) = item?;
            match value {
                RawBsonRef::Document(inner) => {
                    if key == "Components" {
                        slots += 1;
                        if let Ok(list) = inner.get_array("Data") {
                            components += list.into_iter().count();
                        }
                    }
                    stack.push(inner);
                }
                RawBsonRef::Array(a) => stack.push(RawDocument::from_bytes(a.as_bytes())?),
                _ => {}
            }
        }
    }
    Ok((slots, components))
}

/// `brson urls`: the URLs of a tree, or the tree with rewritten URLs (its own compression).
pub(crate) fn urls(path: &Path, bytes: &[u8], rewrite: &[(String, String)]) -> Outcome<(Vec<String>, Option<Vec<u8>>)> {
    let header = serde_brson::container::sniff(bytes).map_err(fail)?;
    let payload = Options::new().extension_of(path).decompress(bytes).map_err(fail)?;
    if rewrite.is_empty() {
        let urls = serde_brson::url::urls(payload.raw()).map_err(fail)?;
        return Ok((urls.into_iter().map(str::to_owned).collect(), None));
    }
    let mut doc = payload.to_document().map_err(fail)?;
    let mut changed = Vec::new();
    serde_brson::url::rewrite_urls(&mut doc, |url| {
        let (from, to) = rewrite.iter().find(|(from, _)| url.starts_with(from.as_str()))?;
        let new = format!("{to}{}", &url[from.len()..]);
        changed.push(format!("{url} -> {new}"));
        Some(new)
    });
    let mut bson = Vec::new();
    doc.to_writer(&mut bson).map_err(fail)?;
    let compression = payload.compression();
    let mut file = Options::new()
        .allow_uncompressed(compression == Compression::None)
        .compress(&bson, compression)
        .map_err(fail)?;
    if header.is_none() {
        file.drain(..serde_brson::Header::new(compression).len);
    }
    Ok((changed, Some(file)))
}
