//! Hex helpers: parse hex from fixture files, print compact hex, and render `xxd`-style dumps that
//! read well in insta snapshots and review diffs.

use std::fmt::Write as _;

/// Lowercase hex without separators.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Parses hex, ignoring ASCII whitespace, `_` and `:` separators and an optional `0x` prefix per token.
///
/// # Panics
/// On an odd number of digits or a non-hex character: fixtures are trusted test inputs, and a typo
/// should fail the test that loads it.
pub fn decode(text: &str) -> Vec<u8> {
    let mut digits = Vec::with_capacity(text.len());
    for token in text.split(|c: char| c.is_ascii_whitespace() || c == '_' || c == ':') {
        let token = token.strip_prefix("0x").unwrap_or(token);
        for c in token.chars() {
            let v = c.to_digit(16).unwrap_or_else(|| panic!("not a hex digit: {c:?} in {text:?}"));
            digits.push(v as u8);
        }
    }
    assert!(digits.len() % 2 == 0, "odd number of hex digits in {text:?}");
    digits.chunks(2).map(|pair| (pair[0] << 4) | pair[1]).collect()
}

/// An `xxd`-style dump: offset, 16 bytes in groups of four, and the printable ASCII column.
///
/// ```text
/// 00000000  1c 00 00 00 01 00 00 00  02 00 00 00 03 00 00 00  |................|
/// ```
pub fn dump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (row, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x} ", row * 16);
        for i in 0..16 {
            if i % 8 == 0 {
                out.push(' ');
            }
            match chunk.get(i) {
                Some(b) => {
                    let _ = write!(out, "{b:02x} ");
                }
                None => out.push_str("   "),
            }
        }
        out.push_str(" |");
        out.extend(chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { char::from(b) } else { '.' }));
        out.push_str("|\n");
    }
    let _ = writeln!(out, "{:08x}", bytes.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&bytes)), bytes);
        assert_eq!(decode("0x1c 00_00:00\n ff"), [0x1c, 0, 0, 0, 0xff]);
    }

    #[test]
    #[should_panic(expected = "odd number")]
    fn odd_digits_fail() {
        decode("abc");
    }

    #[test]
    fn dump_layout() {
        let text = dump(b"Godot\x00\x01\x02 and more bytes!");
        assert_eq!(
            text,
            "00000000  47 6f 64 6f 74 00 01 02  20 61 6e 64 20 6d 6f 72  |Godot... and mor|\n\
             00000010  65 20 62 79 74 65 73 21                           |e bytes!|\n\
             00000018\n"
        );
    }
}
