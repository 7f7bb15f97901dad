//! The line writer of the dumps: offset, up to 8 bytes of hex, then the meaning, indented by
//! nesting depth; long spans wrap, very long ones are elided with a count, and the whole text stays
//! under a budget proportional to the input.

use std::fmt::{Display, Write as _};

/// Bytes per hex row.
const ROW: usize = 8;
/// Rows shown of one span; a longer span shows `MAX_ROWS - 1` rows and a count of the rest.
const MAX_ROWS: usize = 4;
/// Nesting levels shown as indentation; deeper lines say their depth instead.
const MAX_INDENT: usize = 24;
/// Characters of a value preview (strings, packed arrays) before it is cut with `…`.
pub(crate) const PREVIEW: usize = 64;

/// A dump being written.
pub(crate) struct Out {
    text: String,
    budget: usize,
    truncated: bool,
}

impl Out {
    /// A writer for the dump of `input_len` bytes: at most 16 KiB plus 32 characters per input
    /// byte (then one line saying the dump was cut).
    pub(crate) fn new(input_len: usize) -> Self {
        Out { text: String::new(), budget: 16 * 1024 + input_len.saturating_mul(32), truncated: false }
    }

    fn room(&mut self) -> bool {
        if self.truncated {
            return false;
        }
        if self.text.len() > self.budget {
            self.truncated = true;
            let _ = writeln!(self.text, "… dump cut here: output limit of {} bytes reached", self.budget);
            return false;
        }
        true
    }

    fn indent(&mut self, depth: usize) {
        if depth <= MAX_INDENT {
            self.text.extend(std::iter::repeat_n("  ", depth));
        } else {
            self.text.extend(std::iter::repeat_n("  ", MAX_INDENT));
            let _ = write!(self.text, "[depth {depth}] ");
        }
    }

    fn hex_row(&mut self, offset: usize, row: &[u8]) {
        let _ = write!(self.text, "{offset:08x}  ");
        for (i, b) in row.iter().enumerate() {
            let _ = write!(self.text, "{}{b:02x}", if i == 0 { "" } else { " " });
        }
        let width = (ROW * 3 - 1).saturating_sub(row.len() * 3 - usize::from(!row.is_empty()));
        self.text.extend(std::iter::repeat_n(' ', width));
    }

    /// A span of `bytes` starting at `offset`, meaning `meaning`, at nesting `depth`.
    pub(crate) fn span(&mut self, offset: usize, bytes: &[u8], depth: usize, meaning: impl Display) {
        if !self.room() {
            return;
        }
        let mut rows = bytes.chunks(ROW);
        self.hex_row(offset, rows.next().unwrap_or(&[]));
        self.text.push_str("  ");
        self.indent(depth);
        let _ = writeln!(self.text, "{meaning}");
        let total = bytes.len().div_ceil(ROW);
        let shown = if total > MAX_ROWS { MAX_ROWS - 1 } else { total };
        for (i, row) in rows.take(shown.saturating_sub(1)).enumerate() {
            self.hex_row(offset + (i + 1) * ROW, row);
            self.text.truncate(self.text.trim_end().len());
            self.text.push('\n');
        }
        if total > MAX_ROWS {
            let rest = bytes.len() - shown * ROW;
            let _ = writeln!(self.text, "{:08x}  … {rest} more bytes", offset + shown * ROW);
        }
    }

    /// A line without bytes (a heading, a summary) at `offset`.
    pub(crate) fn note(&mut self, offset: usize, depth: usize, meaning: impl Display) {
        self.span(offset, &[], depth, meaning);
    }

    /// The finished text.
    pub(crate) fn finish(self) -> String {
        self.text
    }
}

/// A string as a quoted preview (escaped like Rust's `Debug`, cut after [`PREVIEW`] characters).
pub(crate) fn quoted(s: &str) -> String {
    let cut = s.char_indices().nth(PREVIEW).map(|(i, _)| i);
    match cut {
        Some(i) => format!("{:?}…", &s[..i]),
        None => format!("{s:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_wrap_and_elide() {
        let mut out = Out::new(100);
        out.span(0, &[1, 2, 3], 1, "short");
        out.span(3, &[0xAB; 20], 0, "wrapped");
        out.span(23, &[0; 100], 0, "elided");
        out.note(123, 0, "end");
        let text = out.finish();
        let expected = "\
00000000  01 02 03                   short
00000003  ab ab ab ab ab ab ab ab  wrapped
0000000b  ab ab ab ab ab ab ab ab
00000013  ab ab ab ab
00000017  00 00 00 00 00 00 00 00  elided
0000001f  00 00 00 00 00 00 00 00
00000027  00 00 00 00 00 00 00 00
0000002f  … 76 more bytes
0000007b                           end
";
        assert_eq!(text, expected);
    }

    #[test]
    fn previews_are_capped() {
        let long = "x".repeat(1000);
        assert_eq!(quoted(&long).chars().count(), PREVIEW + 3);
        assert_eq!(quoted("a\"b"), "\"a\\\"b\"");
    }

    #[test]
    fn output_is_bounded() {
        let mut out = Out::new(0);
        for i in 0..100_000 {
            out.note(i, 100, "x");
        }
        let text = out.finish();
        assert!(text.len() < 16 * 1024 + 400, "{}", text.len());
        assert!(text.ends_with("output limit of 16384 bytes reached\n"));
    }
}
