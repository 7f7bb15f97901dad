//! The output side, independent of serde: numbers laid out like rapidjson's `Writer`, strings
//! escaped like rapidjson, rapidjson `PrettyWriter` indentation, and base64 for byte streams.

/// Writes a finite double the way rapidjson does: the shortest digits that round-trip, laid out by
/// rapidjson's `Prettify` (decimal notation for exponents from -6 to 21, `1.0` for whole numbers,
/// `1e22`/`1.5e-7` otherwise, no `+` in exponents).
pub(crate) fn write_f64(out: &mut Vec<u8>, v: f64) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(v);
    if !text.as_bytes().contains(&b'e') {
        // Decimal notation: zmij and rapidjson agree wherever zmij chooses it.
        out.extend_from_slice(text.as_bytes());
        return;
    }
    relayout(out, text);
}

/// Re-lays out `d.ddde±x` the way rapidjson's `Prettify` does.
fn relayout(out: &mut Vec<u8>, text: &str) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.trim_start_matches('+').parse().unwrap_or(0);
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let length = digits.len() as i32;
    // value = digits × 10^k, and 10^(kk-1) <= value < 10^kk.
    let k = exponent - (length - 1);
    let kk = length + k;
    if negative {
        out.push(b'-');
    }
    if 0 <= k && kk <= 21 {
        out.extend_from_slice(&digits);
        out.resize(out.len() + k as usize, b'0');
        out.extend_from_slice(b".0");
    } else if 0 < kk && kk <= 21 {
        out.extend_from_slice(&digits[..kk as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[kk as usize..]);
    } else if -6 < kk && kk <= 0 {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-kk) as usize, b'0');
        out.extend_from_slice(&digits);
    } else {
        out.push(digits[0]);
        if length > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.extend_from_slice(itoa::Buffer::new().format(kk - 1).as_bytes());
    }
}

const fn escape_table() -> [u8; 256] {
    // 0: copy; b'u': \u00XX; otherwise the letter after the backslash.
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0A] = b'n';
    t[0x0C] = b'f';
    t[0x0D] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
}

static ESCAPE: [u8; 256] = escape_table();

/// Writes `s` as a JSON string, escaping like rapidjson's `Writer` (`\"`, `\\`, `\b\f\n\r\t`,
/// other control characters as `\u00XX` with upper-case hex; everything else verbatim).
#[inline]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let e = ESCAPE[b as usize];
        if e == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        if e == b'u' {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        } else {
            out.extend_from_slice(&[b'\\', e]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Re-indents compact JSON (as this crate writes it) like rapidjson's `PrettyWriter`: four
/// spaces, `"key": value`, one element per line, `{}` and `[]` for empty containers.
pub(crate) fn pretty(compact: &[u8], out: &mut Vec<u8>) {
    out.reserve(compact.len() + compact.len() / 2);
    let mut indent = 0usize;
    let newline = |out: &mut Vec<u8>, indent: usize| {
        out.push(b'\n');
        out.resize(out.len() + 4 * indent, b' ');
    };
    let mut i = 0;
    while i < compact.len() {
        let b = compact[i];
        match b {
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if compact.get(i + 1) == Some(&close) {
                    out.extend_from_slice(&[b, close]);
                    i += 2;
                    continue;
                }
                out.push(b);
                indent += 1;
                newline(out, indent);
            }
            b'}' | b']' => {
                indent = indent.saturating_sub(1);
                newline(out, indent);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                newline(out, indent);
            }
            b':' => out.extend_from_slice(b": "),
            b'"' => {
                let start = i;
                i += 1;
                while i < compact.len() {
                    match compact[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                let end = (i + 1).min(compact.len());
                out.extend_from_slice(&compact[start..end]);
            }
            _ => out.push(b),
        }
        i += 1;
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (O3DE's byte-stream form).
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = u32::from(chunk[0]) << 16
            | u32::from(chunk.get(1).copied().unwrap_or(0)) << 8
            | u32::from(chunk.get(2).copied().unwrap_or(0));
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                out.push(BASE64[(n >> shift & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (padding optional); `None` for anything else.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let body = text.trim_end_matches('=');
    if text.len() - body.len() > 2 || body.len() % 4 == 1 || (text.len() != body.len() && text.len() % 4 != 0) {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in body.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64) -> String {
        let mut out = Vec::new();
        write_f64(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rapidjson_number_layout() {
        assert_eq!(f(1.0), "1.0");
        assert_eq!(f(-0.0), "-0.0");
        assert_eq!(f(f64::from(0.1f32)), "0.10000000149011612");
        assert_eq!(f(1e16), "10000000000000000.0");
        assert_eq!(f(1e20), "100000000000000000000.0");
        assert_eq!(f(1e21), "1e21");
        assert_eq!(f(1.5e22), "1.5e22");
        assert_eq!(f(123456789012345678.0), "123456789012345680.0");
        assert_eq!(f(1e-5), "0.00001");
        assert_eq!(f(1.234e-6), "0.000001234");
        assert_eq!(f(1e-7), "1e-7");
        assert_eq!(f(-2.5e-300), "-2.5e-300");
        assert_eq!(f(5e-324), "5e-324");
        assert_eq!(f(1.7976931348623157e308), "1.7976931348623157e308");
    }

    #[test]
    fn strings_escape_like_rapidjson() {
        let mut out = Vec::new();
        write_str(&mut out, "a\"b\\c\n\u{1}é/");
        assert_eq!(String::from_utf8(out).unwrap(), "\"a\\\"b\\\\c\\n\\u0001é/\"");
    }

    #[test]
    fn pretty_layout() {
        let mut out = Vec::new();
        pretty(br#"{"a":[1,2],"b":{},"c":[],"d":{"e":"x,:{}"}}"#, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n    \"a\": [\n        1,\n        2\n    ],\n    \"b\": {},\n    \"c\": [],\n    \"d\": {\n        \"e\": \"x,:{}\"\n    }\n}"
        );
    }

    #[test]
    fn base64_round_trip() {
        for n in 0..10 {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 5) as u8).collect();
            let text = base64_encode(&bytes);
            assert_eq!(base64_decode(&text).unwrap(), bytes);
            assert_eq!(base64_decode(text.trim_end_matches('=')).unwrap(), bytes);
        }
        assert_eq!(base64_encode(b"Man"), "TWFu");
        assert_eq!(base64_encode(b"Ma"), "TWE=");
        assert!(base64_decode("TWF").is_some());
        assert!(base64_decode("T").is_none());
        assert!(base64_decode("TW=u").is_none());
        assert!(base64_decode("TW!u").is_none());
    }
}
