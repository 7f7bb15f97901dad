//! The token scanner of [`SliceRead`]: whitespace and comments, literals, numbers and strings
//! (with their escapes), and the tables behind the fast paths.

use super::SliceRead;
use crate::coerce::Num;
use crate::error::{Code, Error, Result};

const fn escape_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
}

/// Bytes that end the fast scan of a string: `"`, `\` and control characters.
static STOP: [bool; 256] = escape_table();

/// Whether any byte of `x` is `"`, `\` or below 0x20 (SWAR: a byte is "zero" after the XOR, or
/// "below 0x20" after the subtraction, when its high bit ends up set while it was clear).
#[inline]
fn has_stop_byte(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let quote = zero(x ^ (ONES * u64::from(b'"')));
    let backslash = zero(x ^ (ONES * u64::from(b'\\')));
    let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
    (quote | backslash | control) != 0
}

/// Exact powers of ten for the fast float path.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

impl<'de> SliceRead<'de> {
    pub(super) fn err(&self, message: &'static str) -> Error {
        Error::syntax(message).at(self.bytes, self.pos)
    }

    pub(super) fn eof(&self) -> Error {
        Error::new(Code::Eof).at(self.bytes, self.pos)
    }

    #[inline]
    pub(super) fn skip_ws(&mut self) -> Result<()> {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' | b'\n' | b'\t' | b'\r' => self.pos += 1,
                b'/' if self.relaxed => self.skip_comment()?,
                _ => break,
            }
        }
        Ok(())
    }

    fn skip_comment(&mut self) -> Result<()> {
        match self.bytes.get(self.pos + 1) {
            Some(b'/') => {
                self.pos += 2;
                while let Some(&b) = self.bytes.get(self.pos) {
                    self.pos += 1;
                    if b == b'\n' {
                        break;
                    }
                }
                Ok(())
            }
            Some(b'*') => {
                let start = self.pos;
                self.pos += 2;
                loop {
                    match self.bytes.get(self.pos) {
                        Some(b'*') if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                            self.pos += 2;
                            return Ok(());
                        }
                        Some(_) => self.pos += 1,
                        None => {
                            self.pos = start;
                            return Err(self.err("unterminated comment"));
                        }
                    }
                }
            }
            _ => Err(self.err("expected a value")),
        }
    }

    pub(super) fn literal(&mut self, word: &'static [u8]) -> Result<()> {
        match self.bytes.get(self.pos..self.pos + word.len()) {
            Some(s) if s == word => {
                self.pos += word.len();
                Ok(())
            }
            Some(_) => Err(self.err("invalid literal")),
            None => {
                if word.starts_with(&self.bytes[self.pos..]) {
                    self.pos = self.bytes.len();
                    Err(self.eof())
                } else {
                    Err(self.err("invalid literal"))
                }
            }
        }
    }

    /// Scans a number; returns its value when `convert`.
    pub(super) fn scan_number(&mut self, convert: bool) -> Result<Num> {
        let b = self.bytes;
        let start = self.pos;
        let mut i = start;
        let negative = b.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let mut mantissa: u64 = 0;
        let mut overflow = false;
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(c @ b'1'..=b'9') => {
                mantissa = u64::from(c - b'0');
                i += 1;
                // Up to 19 digits cannot overflow a u64: no checks needed for them.
                let fast_end = (i + 18).min(b.len());
                while i < fast_end && b[i].is_ascii_digit() {
                    mantissa = mantissa * 10 + u64::from(b[i] - b'0');
                    i += 1;
                }
                while let Some(&c) = b.get(i) {
                    if !c.is_ascii_digit() {
                        break;
                    }
                    match mantissa.checked_mul(10).and_then(|m| m.checked_add(u64::from(c - b'0'))) {
                        Some(m) => mantissa = m,
                        None => overflow = true,
                    }
                    i += 1;
                }
            }
            Some(_) => {
                self.pos = i;
                return Err(self.err("invalid number"));
            }
            None => {
                self.pos = i;
                return Err(self.eof());
            }
        }
        let mut frac_digits: i32 = 0;
        let mut is_float = false;
        if b.get(i) == Some(&b'.') {
            is_float = true;
            i += 1;
            let digits_start = i;
            while let Some(&c) = b.get(i) {
                if !c.is_ascii_digit() {
                    break;
                }
                if !overflow {
                    match mantissa.checked_mul(10).and_then(|m| m.checked_add(u64::from(c - b'0'))) {
                        Some(m) => {
                            mantissa = m;
                            frac_digits = frac_digits.saturating_add(1);
                        }
                        None => overflow = true,
                    }
                }
                i += 1;
            }
            if i == digits_start {
                self.pos = i;
                return Err(if i == b.len() {
                    self.eof()
                } else {
                    self.err("expected a digit after the decimal point")
                });
            }
        }
        let mut exp: i32 = 0;
        if matches!(b.get(i), Some(b'e' | b'E')) {
            is_float = true;
            i += 1;
            let exp_negative = crate::coerce::sign(b, &mut i);
            let digits_start = i;
            while let Some(&c) = b.get(i) {
                if !c.is_ascii_digit() {
                    break;
                }
                exp = exp.saturating_mul(10).saturating_add(i32::from(c - b'0'));
                i += 1;
            }
            if i == digits_start {
                self.pos = i;
                return Err(if i == b.len() { self.eof() } else { self.err("expected a digit in the exponent") });
            }
            if exp_negative {
                exp = -exp;
            }
        }
        self.pos = i;
        if !convert {
            return Ok(Num::U(0));
        }
        if !is_float && !overflow {
            if !negative {
                return Ok(Num::U(mantissa));
            }
            if mantissa <= 1 << 63 {
                return Ok(Num::I((mantissa as i64).wrapping_neg()));
            }
        }
        let e10 = exp.saturating_sub(frac_digits);
        let value = if !overflow && mantissa < 1 << 53 && (-22..=22).contains(&e10) {
            // Clinger's fast path: both operands are exact, so one rounding gives the right answer.
            let m = mantissa as f64;
            let v = if e10 < 0 { m / POW10[(-e10) as usize] } else { m * POW10[e10 as usize] };
            if negative { -v } else { v }
        } else {
            let text = std::str::from_utf8(&b[start..i]).map_err(|_| self.err("invalid number"))?;
            text.parse::<f64>().map_err(|_| self.err("invalid number"))?
        };
        if value.is_infinite() {
            self.pos = start;
            return Err(self.err("number out of range"));
        }
        Ok(Num::F(value))
    }

    /// The input span `[start, end)` as a string, validating UTF-8 unless the input was a `&str`.
    #[inline]
    pub(super) fn span(&self, start: usize, end: usize) -> Result<&'de str> {
        match self.text {
            Some(text) => text.get(start..end).ok_or_else(|| Error::syntax("invalid UTF-8").at(self.bytes, start)),
            None => std::str::from_utf8(&self.bytes[start..end])
                .map_err(|e| Error::syntax("invalid UTF-8 in a string").at(self.bytes, start + e.valid_up_to())),
        }
    }

    /// Reads a string whose opening quote is at `pos`. With `keep` false the string is only
    /// validated.
    pub(super) fn scan_string(&mut self, keep: bool) -> Result<Option<&'de str>> {
        let b = self.bytes;
        self.pos += 1;
        let mut start = self.pos;
        let mut copied = false;
        loop {
            let mut i = self.pos;
            // Eight bytes at a time while none of them is `"`, `\` or a control character.
            while let Some(chunk) = b.get(i..i + 8) {
                let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                if has_stop_byte(x) {
                    break;
                }
                i += 8;
            }
            while let Some(&c) = b.get(i) {
                if STOP[c as usize] {
                    break;
                }
                i += 1;
            }
            self.pos = i;
            match b.get(i) {
                Some(b'"') => {
                    let segment = self.span(start, i)?;
                    self.pos = i + 1;
                    if copied {
                        if keep {
                            self.scratch.push_str(segment);
                        }
                        return Ok(None);
                    }
                    return Ok(Some(segment));
                }
                Some(b'\\') => {
                    let segment = self.span(start, i)?;
                    if !copied {
                        self.scratch.clear();
                        copied = true;
                    }
                    if keep {
                        self.scratch.push_str(segment);
                    }
                    self.pos = i + 1;
                    let c = self.escape()?;
                    if keep {
                        self.scratch.push(c);
                    }
                    start = self.pos;
                }
                Some(_) => return Err(self.err("control character in a string")),
                None => return Err(self.eof()),
            }
        }
    }

    /// Decodes the escape after a backslash.
    fn escape(&mut self) -> Result<char> {
        let Some(&c) = self.bytes.get(self.pos) else {
            return Err(self.eof());
        };
        self.pos += 1;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                match hi {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(self.err("unpaired surrogate in a \\u escape"));
                        }
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return Err(self.err("invalid low surrogate in a \\u escape"));
                        }
                        let code = 0x10000 + ((hi - 0xD800) << 10 | (lo - 0xDC00));
                        char::from_u32(code).ok_or_else(|| self.err("invalid \\u escape"))?
                    }
                    0xDC00..=0xDFFF => return Err(self.err("unpaired surrogate in a \\u escape")),
                    _ => char::from_u32(hi).ok_or_else(|| self.err("invalid \\u escape"))?,
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.err("invalid escape"));
            }
        })
    }

    fn hex4(&mut self) -> Result<u32> {
        let Some(digits) = self.bytes.get(self.pos..self.pos + 4) else {
            self.pos = self.bytes.len();
            return Err(self.eof());
        };
        let mut v = 0;
        for &d in digits {
            let Some(x) = (d as char).to_digit(16) else {
                return Err(self.err("invalid \\u escape"));
            };
            v = v << 4 | x;
        }
        self.pos += 4;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_byte_scan_matches_the_table() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for v in [x, x & 0x7F7F_7F7F_7F7F_7F7F, x | 0x2020_2020_2020_2020, x.rotate_left(9) ^ 0x2222_2222_2222_2222]
            {
                let expected = v.to_le_bytes().iter().any(|&b| STOP[b as usize]);
                assert_eq!(has_stop_byte(v), expected, "{v:#018x}");
            }
        }
    }
}
