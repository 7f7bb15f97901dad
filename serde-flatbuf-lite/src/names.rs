//! Field names as lite reads them: `name#N` pins slot *N* (flatc's `(id: N)`), `name=DEFAULT` declares a
//! schema default (`hp:short = 100;`), both at once as `name#N=DEFAULT`.

use crate::limits::MAX_SLOT;

/// The explicit slot id in a field name `name#N`, if any.
#[inline]
pub(crate) fn explicit_id(key: &str) -> Option<u16> {
    let key = split_default(key).0;
    let b = key.as_bytes();
    if !b.last()?.is_ascii_digit() {
        return None;
    }
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits > 5 || b.len() <= digits || b[b.len() - digits - 1] != b'#' {
        return None;
    }
    key[b.len() - digits..].parse::<u32>().ok().filter(|&n| n <= MAX_SLOT as u32).map(|n| n as u16)
}

/// The field name without its `#N` and `=DEFAULT` suffixes.
pub(crate) fn field_name(key: &str) -> &str {
    let key = split_default(key).0;
    match explicit_id(key) {
        Some(_) => &key[..key.rfind('#').unwrap_or(key.len())],
        None => key,
    }
}

/// A field key's declared schema default: `hp=100` (or `hp#2=100` with an explicit id) is the field
/// `hp` whose absent value reads as 100, like `hp:short = 100;` in a schema. Returns the key without
/// the suffix and the default's text.
#[inline]
pub(crate) fn split_default(key: &str) -> (&str, Option<&str>) {
    match key.find('=') {
        Some(at) => (&key[..at], Some(&key[at + 1..])),
        None => (key, None),
    }
}

/// Whether a struct's fields use explicit slot ids (`name#N`).
#[inline]
pub(crate) fn has_explicit_ids(fields: &[&str]) -> bool {
    fields.iter().any(|f| explicit_id(f).is_some())
}
