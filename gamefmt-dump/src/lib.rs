//! The annotated hex dump writer shared by the serde-gamefmt format crates.
//!
//! Each line is an offset (hex; `byte.bit` for a bit-packed stream), up to 8 bytes of hex, then the
//! meaning, indented by nesting depth. Long spans wrap, very long ones are elided with a count, and
//! the whole text stays under a budget proportional to the input, so dumping a hostile file costs
//! no more than reading it.
//!
//! ```
//! let mut out = gamefmt_dump::Out::new(3);
//! out.span(0, &[1, 2, 3], 1, "three bytes");
//! assert_eq!(out.finish(), "00000000  01 02 03                   three bytes\n");
//! ```

use std::fmt::{self, Display, Write as _};

/// Bytes per hex row.
const ROW: usize = 8;
/// Rows shown of one span; a longer span shows `MAX_ROWS - 1` rows and a count of the rest.
const MAX_ROWS: usize = 4;
/// Nesting levels shown as indentation; deeper lines say their depth instead.
const MAX_INDENT: usize = 24;
/// Characters of a value preview (strings, packed arrays) before it is cut with `…`.
pub const PREVIEW: usize = 64;

/// Where a span starts: a byte, or a bit of a bit-packed stream.
#[derive(Clone, Copy)]
enum Start {
    Byte(usize),
    Bit(u64),
}

impl Start {
    /// The byte of the span's first row.
    fn byte(self) -> u64 {
        match self {
            Start::Byte(b) => b as u64,
            Start::Bit(bit) => bit / 8,
        }
    }

    /// The suffix a byte offset takes in this addressing (`.0` for a bit stream's whole byte).
    fn whole_byte_suffix(self) -> &'static str {
        match self {
            Start::Byte(_) => "",
            Start::Bit(_) => ".0",
        }
    }
}

/// A dump being written.
pub struct Out {
    text: String,
    budget: usize,
    truncated: bool,
}

impl Out {
    /// A writer for the dump of `input_len` bytes: at most 16 KiB plus 32 characters per input
    /// byte (then one line saying the dump was cut).
    pub fn new(input_len: usize) -> Self {
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

    fn hex_row(&mut self, start: Start, row: &[u8]) {
        let _ = match start {
            Start::Byte(offset) => write!(self.text, "{offset:08x}  "),
            Start::Bit(bit) => write!(self.text, "{:08x}.{}  ", bit / 8, bit % 8),
        };
        for (i, b) in row.iter().enumerate() {
            let _ = write!(self.text, "{}{b:02x}", if i == 0 { "" } else { " " });
        }
        let width = (ROW * 3 - 1).saturating_sub(row.len() * 3 - usize::from(!row.is_empty()));
        self.text.extend(std::iter::repeat_n(' ', width));
    }

    fn line(&mut self, start: Start, bytes: &[u8], depth: usize, meaning: impl Display) {
        if !self.room() {
            return;
        }
        let mut rows = bytes.chunks(ROW);
        self.hex_row(start, rows.next().unwrap_or(&[]));
        self.text.push_str("  ");
        self.indent(depth);
        let _ = writeln!(self.text, "{meaning}");
        let total = bytes.len().div_ceil(ROW);
        let shown = if total > MAX_ROWS { MAX_ROWS - 1 } else { total };
        let first = start.byte();
        for (i, row) in rows.take(shown.saturating_sub(1)).enumerate() {
            let byte = first + ((i + 1) * ROW) as u64;
            let next = match start {
                Start::Byte(_) => Start::Byte(byte as usize),
                Start::Bit(_) => Start::Bit(byte * 8),
            };
            self.hex_row(next, row);
            self.text.truncate(self.text.trim_end().len());
            self.text.push('\n');
        }
        if total > MAX_ROWS {
            let rest = bytes.len() - shown * ROW;
            let byte = first + (shown * ROW) as u64;
            let _ = writeln!(self.text, "{byte:08x}{}  … {rest} more bytes", start.whole_byte_suffix());
        }
    }

    /// A span of `bytes` starting at byte `offset`, meaning `meaning`, at nesting `depth`.
    pub fn span(&mut self, offset: usize, bytes: &[u8], depth: usize, meaning: impl Display) {
        self.line(Start::Byte(offset), bytes, depth, meaning);
    }

    /// A span of a bit-packed stream starting at bit `bit` over `bytes` (the bytes its bits touch),
    /// meaning `meaning`, at nesting `depth`; its offset reads `byte.bit`.
    pub fn span_bits(&mut self, bit: u64, bytes: &[u8], depth: usize, meaning: impl Display) {
        self.line(Start::Bit(bit), bytes, depth, meaning);
    }

    /// A line without bytes (a heading, a summary) at byte `offset`.
    pub fn note(&mut self, offset: usize, depth: usize, meaning: impl Display) {
        self.span(offset, &[], depth, meaning);
    }

    /// A line without bytes at bit `bit` of a bit-packed stream.
    pub fn note_bits(&mut self, bit: u64, depth: usize, meaning: impl Display) {
        self.span_bits(bit, &[], depth, meaning);
    }

    /// A line without offset or bytes (e.g. a text form), in the meaning column of byte-addressed
    /// lines, at `depth`.
    pub fn plain(&mut self, depth: usize, line: impl Display) {
        if self.room() {
            self.text.extend(std::iter::repeat_n(' ', 10 + ROW * 3 - 1 + 2));
            self.indent(depth);
            let _ = writeln!(self.text, "{line}");
        }
    }

    /// A section heading: `== what`.
    pub fn heading(&mut self, what: impl Display) {
        if self.room() {
            let _ = writeln!(self.text, "== {what}");
        }
    }

    /// Raises the output limit by `chars_per_byte` characters per byte of `extra` input (a
    /// decompressed body: pass fewer characters per byte where the body may be a bomb many times
    /// its file's size).
    pub fn grow(&mut self, extra: usize, chars_per_byte: usize) {
        self.budget = self.budget.saturating_add(extra.saturating_mul(chars_per_byte));
    }

    /// The characters left before the output limit (a rough count: bytes of text).
    pub fn remaining(&self) -> usize {
        if self.truncated { 0 } else { self.budget.saturating_sub(self.text.len()) }
    }

    /// The finished text.
    pub fn finish(self) -> String {
        self.text
    }
}

/// `value`'s `Display`, cut after [`PREVIEW`] characters with `…` (formatting stops there, so a
/// huge value costs no more than its preview).
pub fn preview(value: &dyn Display) -> String {
    capped(value, PREVIEW)
}

/// `value`'s `Display`, cut after `limit` characters with `…`.
pub fn capped(value: &dyn Display, limit: usize) -> String {
    struct Capped {
        text: String,
        chars: usize,
        limit: usize,
        cut: bool,
    }
    impl fmt::Write for Capped {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for c in s.chars() {
                if self.chars == self.limit {
                    self.cut = true;
                    return Err(fmt::Error);
                }
                self.text.push(c);
                self.chars += 1;
            }
            Ok(())
        }
    }
    let mut capped = Capped { text: String::new(), chars: 0, limit, cut: false };
    let _ = write!(capped, "{value}");
    if capped.cut {
        capped.text.push('…');
    }
    capped.text
}

/// A string as a quoted preview (escaped like Rust's `Debug`, cut after [`PREVIEW`] characters).
pub fn quoted(s: &str) -> String {
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
        out.plain(1, "text");
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
                                     text
";
        assert_eq!(text, expected);
    }

    #[test]
    fn bit_offsets_read_byte_dot_bit() {
        let mut out = Out::new(100);
        out.span_bits(3, &[1], 1, "a bit");
        out.span_bits(24, &[0xAB; 20], 0, "wrapped");
        out.span_bits(192, &[0; 100], 0, "elided");
        out.heading("next");
        let text = out.finish();
        let expected = "\
00000000.3  01                         a bit
00000003.0  ab ab ab ab ab ab ab ab  wrapped
0000000b.0  ab ab ab ab ab ab ab ab
00000013.0  ab ab ab ab
00000018.0  00 00 00 00 00 00 00 00  elided
00000020.0  00 00 00 00 00 00 00 00
00000028.0  00 00 00 00 00 00 00 00
00000030.0  … 76 more bytes
== next
";
        assert_eq!(text, expected);
    }

    #[test]
    fn previews_are_capped() {
        let long = "x".repeat(1000);
        assert_eq!(preview(&long).chars().count(), PREVIEW + 1);
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
        assert_eq!(Out::new(0).remaining(), 16 * 1024);
    }

    #[test]
    fn growing_raises_the_limit() {
        let mut out = Out::new(0);
        out.grow(10, 8);
        assert_eq!(out.remaining(), 16 * 1024 + 80);
    }
}
