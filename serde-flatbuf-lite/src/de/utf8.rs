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
//! Every byte a stretch checks is charged to an allowance as large as the decode's apparent-size limit
//! ([`Options::max_apparent_size`](crate::Options::max_apparent_size)): in a DAG whose tables are read
//! again and again (shared through many uoffsets), each read may check a new stretch, up to 256 bytes for
//! a string that counts only 5 + its length in the apparent size. Once the allowance is spent, strings are
//! checked one by one, each counted in the apparent size as always, so all the UTF-8 checking of a decode
//! is at most twice its apparent-size limit. The allowance only chooses between two checks that accept
//! the same strings: results, errors and limits do not depend on it.

use super::{Deserializer, invalid_utf8};
use crate::error::Result;

/// Longest stretch checked at once: the strings of a table of a few short fields, not a whole buffer.
const SPAN_LIMIT: usize = 256;

/// Stretches that may fail the check in one decode before strings are only checked one by one (data whose
/// strings are long or not ASCII would otherwise pay for a failed stretch per table).
const MAX_FAILED_SPANS: u8 = 8;

/// The stretch of the buffer last found to be valid UTF-8.
#[derive(Debug, Clone, Copy)]
pub(super) struct Checked<'de> {
    /// The stretch.
    text: &'de str,
    /// Where it starts in the buffer.
    at: usize,
    /// Stretches that failed the check so far.
    failed: u8,
    /// Bytes that stretches may still check in this decode (see the module docs).
    allowance: usize,
}

impl<'de> Checked<'de> {
    /// Nothing checked yet; stretches may check `allowance` bytes in all (the apparent-size limit).
    pub(super) fn new(allowance: usize) -> Self {
        Checked { text: "", at: 0, failed: 0, allowance }
    }

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
        if lo > start || start + len - lo > SPAN_LIMIT.min(self.checked.allowance) {
            return None;
        }
        let span = buf.get(lo..start + len)?;
        self.checked.allowance -= span.len();
        match std::str::from_utf8(span) {
            Ok(text) => {
                self.checked = Checked { text, at: lo, ..self.checked };
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

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::SPAN_LIMIT;
    use crate::{Deserializer, Options};

    #[derive(Deserialize)]
    struct Item<'a> {
        s: &'a str,
    }

    #[derive(Deserialize)]
    struct Root<'a> {
        #[serde(borrow)]
        items: Vec<Item<'a>>,
    }

    /// Padding between a table's end and its string, and the string's length: each stretch is
    /// `PAD + 4 + LEN` bytes, close to [`SPAN_LIMIT`].
    const PAD: usize = 200;
    const LEN: usize = 40;

    /// Root `{ items: [A, B, A, B, …] }` (`count` uoffsets to two tables), where table A is followed by
    /// `PAD` zero bytes and its string, then table B the same way: no string lies in the stretch checked for
    /// the other table, so every element read checks a new stretch unless something stops it.
    fn alternating(count: usize) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&12u32.to_le_bytes()); // root table at 12
        b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]); // vtable at 4: one field at offset 4
        b.extend_from_slice(&8i32.to_le_bytes()); // root table at 12
        b.extend_from_slice(&4u32.to_le_bytes()); // items -> vector at 20
        b.extend_from_slice(&(count as u32).to_le_bytes());
        let area = 24;
        let vtable = area + 4 * count;
        let table_a = vtable + 8;
        let table_b = table_a + 8 + PAD + (4 + LEN + 4);
        for i in 0..count {
            let target = if i % 2 == 0 { table_a } else { table_b };
            b.extend_from_slice(&((target - (area + 4 * i)) as u32).to_le_bytes());
        }
        b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]);
        for (table, letter) in [(table_a, b'a'), (table_b, b'b')] {
            assert_eq!(b.len(), table);
            b.extend_from_slice(&((table - vtable) as i32).to_le_bytes());
            b.extend_from_slice(&((4 + PAD) as u32).to_le_bytes()); // s -> the string after the padding
            b.extend(std::iter::repeat_n(0, PAD));
            b.extend_from_slice(&(LEN as u32).to_le_bytes());
            b.extend(std::iter::repeat_n(letter, LEN));
            b.extend_from_slice(&[0; 4]); // NUL and padding
        }
        b
    }

    /// Hostile DAG: many references to tables whose strings each need a stretch of their own. The bytes
    /// stretches check stop at the apparent-size limit (without the allowance they would be about 4×
    /// it here), and the strings after that are checked one by one with the same results.
    #[test]
    fn stretch_checks_stop_at_the_apparent_size_limit() {
        const SPAN: usize = PAD + 4 + LEN;
        const _: () = assert!(SPAN <= SPAN_LIMIT);
        let count = 64 * 1024;
        let bytes = alternating(count);
        let limit = 4 << 20;
        let opts = Options::new().max_apparent_size(limit);
        let mut de = Deserializer::with_options(&bytes, &opts);
        let root = Root::deserialize(&mut de).expect("decodes within the apparent-size limit");
        assert!(de.apparent <= limit);
        assert_eq!(root.items.len(), count);
        for (i, item) in root.items.iter().enumerate() {
            let letter = if i % 2 == 0 { "a" } else { "b" };
            assert_eq!(item.s, letter.repeat(LEN), "item {i}");
        }
        // Every stretch checked was a whole one until the allowance ran out.
        let checked = limit - de.checked.allowance;
        assert_eq!(checked, limit / SPAN * SPAN);
        assert!(count * SPAN > 3 * limit, "the stretches the allowance cut off");
        // The default limit (16 × buffer length + 1 MiB) bounds them the same way.
        let mut de = Deserializer::from_slice(&bytes);
        let default_limit = 16 * bytes.len() + (1 << 20);
        Root::deserialize(&mut de).expect("decodes");
        assert!(default_limit - de.checked.allowance > default_limit - SPAN);
    }
}
