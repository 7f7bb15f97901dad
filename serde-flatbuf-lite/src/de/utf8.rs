//! UTF-8 checks of a table's strings in one pass.
//!
//! Builders write a table's strings next to each other, right after the table (back to front: the strings
//! first, then the table in front of them), so the bytes from the table's end to the end of the string read
//! first are usually the table's strings, their length prefixes, NUL terminators and padding. For short
//! ASCII strings all of those bytes are ASCII, so that whole stretch is valid UTF-8 and one check of it (in
//! the standard library's word-at-a-time loop) covers every string in it. A later string inside the
//! stretch is then a slice of the checked `&str`; the slice is taken only when both its ends are character
//! boundaries of the stretch, which is exactly when its bytes are valid UTF-8 on their own (a slice of
//! valid UTF-8 cut at character boundaries is valid; one cut inside a character starts with a continuation
//! byte or ends inside a character, and is not). So every string decodes as before, and anything else
//! (a stretch that is not UTF-8, a string outside it, an invalid string) takes the per-string check, which
//! also gives the exact error.
//!
//! The work stays bounded: a stretch is at most [`SPAN_LIMIT`] bytes and checked only when a string falls
//! outside the last one, and after [`MAX_FAILED_SPANS`] stretches that were not UTF-8 a decode stops trying.

use super::{Deserializer, invalid_utf8};
use crate::error::Result;

/// Longest stretch checked at once: the strings of a table of a few short fields, not a whole buffer.
const SPAN_LIMIT: usize = 256;

/// Stretches that may fail the check in one decode before strings are only checked one by one (data whose
/// strings are long or not ASCII would otherwise pay for a failed stretch per table).
const MAX_FAILED_SPANS: u8 = 8;

/// The stretch of the buffer last found to be valid UTF-8.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Checked<'de> {
    /// The stretch.
    text: &'de str,
    /// Where it starts in the buffer.
    at: usize,
    /// Stretches that failed the check so far.
    failed: u8,
}

impl<'de> Checked<'de> {
    /// The `len` bytes at `start` as a `&str`, when they lie inside the stretch and start and end at its
    /// character boundaries (then they are valid UTF-8 on their own).
    #[inline(always)]
    pub(super) fn get(&self, start: usize, len: usize) -> Option<&'de str> {
        let from = start.checked_sub(self.at)?;
        self.text.get(from..from + len)
    }
}

impl<'de> Deserializer<'de> {
    /// The string `bytes` at `start`, a field of the table at `table`, when it is not inside the stretch
    /// checked last: checks the stretch from the table's end to the string's end when it is short, and the
    /// string alone otherwise (or when that stretch is not UTF-8).
    #[inline(never)]
    pub(super) fn field_str_unchecked(&mut self, table: usize, start: usize, bytes: &'de [u8]) -> Result<&'de str> {
        if let Some(s) = self.check_span(table, start, bytes.len()) {
            return Ok(s);
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => Err(invalid_utf8(start + e.valid_up_to())),
        }
    }

    /// Checks the stretch from the end of the table at `table` to the end of the `len` bytes at `start`,
    /// keeps it when it is UTF-8 and returns those bytes from it.
    fn check_span(&mut self, table: usize, start: usize, len: usize) -> Option<&'de str> {
        if self.checked.failed >= MAX_FAILED_SPANS {
            return None;
        }
        let buf = self.buf;
        let lo = table_end(buf, table)?;
        if lo > start || start + len - lo > SPAN_LIMIT {
            return None;
        }
        match std::str::from_utf8(buf.get(lo..start + len)?) {
            Ok(text) => {
                self.checked = Checked { text, at: lo, failed: self.checked.failed };
                // The string is the stretch's end: only its start needs to be a character boundary.
                text.get(start - lo..)
            }
            Err(_) => {
                self.checked.failed += 1;
                None
            }
        }
    }
}

/// Where the inline part of the (already verified) table at `pos` ends, by its vtable's table-size entry.
/// Only a guess of where its strings start: a wrong size gives a stretch that fails the check or does not
/// contain the string, and the string is checked on its own.
fn table_end(buf: &[u8], pos: usize) -> Option<usize> {
    let soffset = i32::from_le_bytes(*buf.get(pos..)?.first_chunk::<4>()?);
    let vtable = usize::try_from(pos as i64 - i64::from(soffset)).ok()?;
    let size = u16::from_le_bytes(*buf.get(vtable.checked_add(2)?..)?.first_chunk::<2>()?);
    Some(pos + usize::from(size))
}
