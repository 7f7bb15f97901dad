//! The field path of a decoding error, built while the error propagates: each container adds
//! its segment on the way out (`access.rs`), so decoding that succeeds builds nothing. Dictionary
//! keys are not kept while decoding; an error reads its entry's key again from the input.

use super::Deserializer;
use crate::error::Error;
use crate::variant::Variant;
use crate::wire::Reader;

/// Longer rendered keys are cut (a hostile key could be megabytes).
const MAX_SEGMENT: usize = 64;

impl Deserializer<'_> {
    /// Prepends the segment of the Dictionary key (or enum variant name) that starts at `key_at`:
    /// `.name` for a String key that is an identifier, `["some key"]` for other Strings, `[7]` for
    /// ints, `[Vector2(1, 2)]` for other keys (Godot's text form).
    #[cold]
    #[inline(never)]
    pub(super) fn in_key(&self, e: Error, key_at: usize) -> Error {
        let Some(input) = self.r.input().get(key_at..) else { return e };
        let Ok(key) = crate::decode::decode(&mut Reader::new(input), &self.opts, 0) else { return e };
        match key {
            Variant::String(s) | Variant::StringName(crate::StringName(s)) if is_identifier(&s) => e.in_field(&s),
            Variant::String(s) | Variant::StringName(crate::StringName(s)) => e.in_index(cut(format!("{s:?}"))),
            Variant::Int(i) => e.in_index(i),
            other => e.in_index(cut(other.to_string())),
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && s.len() <= MAX_SEGMENT
}

fn cut(mut s: String) -> String {
    if s.len() > MAX_SEGMENT {
        let mut end = MAX_SEGMENT;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}
