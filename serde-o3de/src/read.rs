//! The input side, independent of serde: a pull reader over JSON text ([`SliceRead`]) and over a
//! `serde_json::Value` tree ([`ValueRead`]) behind one trait, so the O3DE rules in `de.rs` are
//! written once.
//!
//! The text reader is strict RFC 8259 JSON (plus `//` and `/* */` comments and trailing commas in
//! settings-registry mode): strings must be valid UTF-8 without raw control characters, escapes and
//! surrogate pairs must be well formed, numbers that overflow a double are errors. Skipping is
//! iterative, so unknown members nest as deep as the depth limit allows without using the stack.
//!
//! Look-aheads (`$type`, the members of a map entry, duplicate members) skip values that are read
//! again later, and the objects inside them look ahead in turn. So that nesting does not multiply
//! the work, a look-ahead skip turns on a record of every container it walks (its end and height,
//! by where it starts, kept over passes): any later skip jumps over a recorded container instead of
//! walking it again, so every byte is walked by skips a bounded number of times however deep the
//! look-aheads nest.

use std::collections::HashMap;

use serde_json::Value;

use crate::coerce::Num;
use crate::error::{Code, Error, Result};

/// The kind of the next value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peek {
    Null,
    True,
    False,
    Num,
    Str,
    Arr,
    Obj,
}

/// A string from the input: borrowed for the whole input lifetime, or copied (unescaped) into the
/// reader's scratch buffer.
pub(crate) enum Ref<'de, 's> {
    Borrowed(&'de str),
    Copied(&'s str),
}

impl Ref<'_, '_> {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Ref::Borrowed(s) => s,
            Ref::Copied(s) => s,
        }
    }
}

/// A pull reader. The driver calls [`peek`](Read::peek) before every value and then exactly one
/// consuming method for it.
pub(crate) trait Read<'de> {
    /// A saved position: [`seek`](Read::seek) back to it to read the same value again.
    type Loc: Copy;
    /// Whether the deserializer must keep the path itself (it cannot be found again in the input).
    const TRACK: bool;

    /// Whether `$type` lookahead and map entries can be re-read cheaply (always true here).
    fn loc(&self) -> Self::Loc;
    fn seek(&mut self, loc: Self::Loc);
    /// A number identifying the next value (stable across passes over the same input).
    fn ident(&self) -> usize;

    fn peek(&mut self) -> Result<Peek>;
    /// After `peek` returned `Obj`: whether the object is `{}`.
    fn is_empty_object(&mut self) -> Result<bool>;
    fn null(&mut self) -> Result<()>;
    fn boolean(&mut self) -> Result<bool>;
    fn number(&mut self) -> Result<Num>;
    fn string<'s>(&'s mut self) -> Result<Ref<'de, 's>>;
    fn begin_array(&mut self) -> Result<()>;
    /// Before each element: whether there is one (`false` consumes the `]`).
    fn next_element(&mut self, first: bool) -> Result<bool>;
    fn begin_object(&mut self) -> Result<()>;
    /// Before each member: its key (consuming the `:`), or `None` (consuming the `}`).
    fn next_key<'s>(&'s mut self, first: bool) -> Result<Option<Ref<'de, 's>>>;
    /// After `peek` returned `Arr`: reads an array of at most 16 plain numbers into `out` and
    /// returns how many; `None` (nothing consumed) when the array holds anything else.
    fn number_array(&mut self, out: &mut [Num; 16]) -> Result<Option<usize>>;
    /// Skips the next value; containers may nest at most `depth` levels.
    fn skip(&mut self, depth: usize) -> Result<()>;
    /// [`skip`](Read::skip) for a look-ahead (the value is read again later): from now on every
    /// container a skip walks is recorded, and skips jump over recorded containers.
    fn skip_ahead(&mut self, depth: usize) -> Result<()>;
    /// What skips recorded, handed from one pass over the input to the next.
    type Memo: Default;
    fn take_memo(&mut self) -> Self::Memo;
    fn set_memo(&mut self, memo: Self::Memo);
    /// Appends the next value as compact JSON text to `out`.
    fn raw(&mut self, depth: usize, out: &mut String) -> Result<()>;
    /// Requires the end of the input.
    fn end(&mut self) -> Result<()>;
    /// Attaches the current position to an error.
    fn position(&self, e: Error) -> Error;
    /// Attaches the position of the value `ident` (from [`ident`](Read::ident)) to an error.
    fn position_at(&self, e: Error, ident: usize) -> Error;
    /// The JSON Pointer of the value at `offset` (default: the current position), found by
    /// walking the input from the start (only for errors of loads that do not keep the path).
    fn path_at(&self, offset: Option<usize>) -> String;
}

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

/// The containers skips have walked: for the one starting at each offset, where it ends and how
/// deep it nests (1 for `[]`).
#[derive(Default)]
pub(crate) enum Ends {
    /// Not recorded (no look-ahead skipped a container yet).
    #[default]
    Off,
    /// `[end, height]` by start offset (`end` 0: not recorded): inputs under 4 GiB.
    Dense(Vec<[u32; 2]>),
    /// Larger inputs.
    Sparse(HashMap<usize, (usize, usize)>),
}

impl Ends {
    fn enable(&mut self, len: usize) {
        if matches!(self, Ends::Off) {
            // Zeroed memory: the pages are mapped where containers are recorded.
            *self = if u32::try_from(len).is_ok_and(|l| l < u32::MAX) {
                Ends::Dense(vec![[0; 2]; len])
            } else {
                Ends::Sparse(HashMap::new())
            };
        }
    }

    #[inline]
    fn get(&self, start: usize) -> Option<(usize, usize)> {
        match self {
            Ends::Off => None,
            Ends::Dense(v) => match v.get(start) {
                Some(&[end, height]) if end != 0 => Some((end as usize, height as usize)),
                _ => None,
            },
            Ends::Sparse(m) => m.get(&start).copied(),
        }
    }

    #[inline]
    fn put(&mut self, start: usize, end: usize, height: usize) {
        match self {
            Ends::Off => {}
            Ends::Dense(v) => {
                if let (Some(slot), Ok(end), Ok(height)) = (v.get_mut(start), u32::try_from(end), u32::try_from(height))
                {
                    *slot = [end, height];
                }
            }
            Ends::Sparse(m) => {
                m.insert(start, (end, height));
            }
        }
    }
}

/// A container a skip is inside.
struct Open {
    object: bool,
    start: usize,
    /// The greatest height of its children so far.
    height: usize,
}

/// The reader over JSON text.
pub(crate) struct SliceRead<'de> {
    bytes: &'de [u8],
    /// The same input as `&str` when it came from `from_str` (then strings need no UTF-8 check).
    text: Option<&'de str>,
    pos: usize,
    scratch: String,
    /// Settings-registry syntax: comments and trailing commas.
    relaxed: bool,
    stack: Vec<Open>,
    ends: Ends,
}

impl<'de> SliceRead<'de> {
    pub(crate) fn from_str(text: &'de str, relaxed: bool) -> Self {
        SliceRead {
            bytes: text.as_bytes(),
            text: Some(text),
            pos: 0,
            scratch: String::new(),
            relaxed,
            stack: Vec::new(),
            ends: Ends::Off,
        }
    }

    pub(crate) fn from_slice(bytes: &'de [u8], relaxed: bool) -> Self {
        // One validation of the whole input (fast, vectorized) lets every string be sliced without
        // another check; invalid input keeps the per-string checks, which locate the bad byte.
        let text = std::str::from_utf8(bytes).ok();
        SliceRead { bytes, text, pos: 0, scratch: String::new(), relaxed, stack: Vec::new(), ends: Ends::Off }
    }

    pub(crate) fn input(&self) -> &'de [u8] {
        self.bytes
    }

    fn err(&self, message: &'static str) -> Error {
        Error::syntax(message).at(self.bytes, self.pos)
    }

    fn eof(&self) -> Error {
        Error::new(Code::Eof).at(self.bytes, self.pos)
    }

    #[inline]
    fn skip_ws(&mut self) -> Result<()> {
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

    fn literal(&mut self, word: &'static [u8]) -> Result<()> {
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
    fn scan_number(&mut self, convert: bool) -> Result<Num> {
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
    fn span(&self, start: usize, end: usize) -> Result<&'de str> {
        match self.text {
            Some(text) => text.get(start..end).ok_or_else(|| Error::syntax("invalid UTF-8").at(self.bytes, start)),
            None => std::str::from_utf8(&self.bytes[start..end])
                .map_err(|e| Error::syntax("invalid UTF-8 in a string").at(self.bytes, start + e.valid_up_to())),
        }
    }

    /// Reads a string whose opening quote is at `pos`. With `keep` false the string is only
    /// validated.
    fn scan_string(&mut self, keep: bool) -> Result<Option<&'de str>> {
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

    /// A container of the walk closed (the position is after it): records it when recording.
    #[inline]
    fn closed(&mut self, record: bool) {
        let Some(open) = self.stack.pop() else {
            return;
        };
        let height = open.height + 1;
        if record {
            self.ends.put(open.start, self.pos, height);
        }
        if let Some(top) = self.stack.last_mut() {
            top.height = top.height.max(height);
        }
    }

    /// Skips (or copies, with `out`) one value without recursion. A skip jumps over the containers
    /// recorded in `ends` and, once recording is on, records the ones it walks.
    fn walk(&mut self, depth: usize, mut out: Option<&mut String>) -> Result<()> {
        self.stack.clear();
        let record = out.is_none() && !matches!(self.ends, Ends::Off);
        loop {
            // A value.
            self.skip_ws()?;
            let start = self.pos;
            match self.bytes.get(self.pos) {
                None => return Err(self.eof()),
                Some(b'{' | b'[') => {
                    // A container walked before: jump, unless it nests too deep here (then the
                    // walk finds where, for the error).
                    let known = if record {
                        self.ends.get(start).filter(|&(_, height)| self.stack.len() + height <= depth)
                    } else {
                        None
                    };
                    if let Some((end, height)) = known {
                        self.pos = end;
                        if let Some(top) = self.stack.last_mut() {
                            top.height = top.height.max(height);
                        }
                        // Fall through to what follows a value.
                    } else {
                        let object = self.bytes[self.pos] == b'{';
                        if self.stack.len() >= depth {
                            return Err(Error::new(Code::Depth(depth)).at(self.bytes, self.pos));
                        }
                        self.pos += 1;
                        if let Some(o) = out.as_deref_mut() {
                            o.push(if object { '{' } else { '[' });
                        }
                        self.stack.push(Open { object, start, height: 0 });
                        self.skip_ws()?;
                        let close = if object { b'}' } else { b']' };
                        if self.bytes.get(self.pos) == Some(&close) {
                            self.pos += 1;
                            self.closed(record);
                            if let Some(o) = out.as_deref_mut() {
                                o.push(close as char);
                            }
                        } else if object {
                            self.walk_key(out.as_deref_mut())?;
                            continue;
                        } else {
                            continue;
                        }
                    }
                }
                Some(b'"') => {
                    self.scan_string(false)?;
                    if let Some(o) = out.as_deref_mut() {
                        o.push_str(self.span(start, self.pos)?);
                    }
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.scan_number(false)?;
                    if let Some(o) = out.as_deref_mut() {
                        o.push_str(self.span(start, self.pos)?);
                    }
                }
                Some(b'n') => self.word(b"null", out.as_deref_mut())?,
                Some(b't') => self.word(b"true", out.as_deref_mut())?,
                Some(b'f') => self.word(b"false", out.as_deref_mut())?,
                Some(_) => return Err(self.err("expected a value")),
            }
            // After a value: close containers or move to the next member.
            loop {
                let Some(object) = self.stack.last().map(|open| open.object) else {
                    return Ok(());
                };
                self.skip_ws()?;
                let close = if object { b'}' } else { b']' };
                match self.bytes.get(self.pos) {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws()?;
                        if self.relaxed && self.bytes.get(self.pos) == Some(&close) {
                            continue;
                        }
                        if let Some(o) = out.as_deref_mut() {
                            o.push(',');
                        }
                        if object {
                            self.walk_key(out.as_deref_mut())?;
                        }
                        break;
                    }
                    Some(&c) if c == close => {
                        self.pos += 1;
                        self.closed(record);
                        if let Some(o) = out.as_deref_mut() {
                            o.push(c as char);
                        }
                    }
                    Some(_) => {
                        return Err(self.err(if object { "expected `,` or `}`" } else { "expected `,` or `]`" }));
                    }
                    None => return Err(self.eof()),
                }
            }
        }
    }

    fn word(&mut self, word: &'static [u8], out: Option<&mut String>) -> Result<()> {
        self.literal(word)?;
        if let Some(o) = out {
            o.push_str(std::str::from_utf8(word).unwrap_or_default());
        }
        Ok(())
    }

    fn walk_key(&mut self, out: Option<&mut String>) -> Result<()> {
        self.skip_ws()?;
        let start = self.pos;
        match self.bytes.get(self.pos) {
            Some(b'"') => {
                self.scan_string(false)?;
            }
            Some(_) => return Err(self.err("expected a string key")),
            None => return Err(self.eof()),
        }
        let key_end = self.pos;
        self.colon()?;
        if let Some(o) = out {
            o.push_str(self.span(start, key_end)?);
            o.push(':');
        }
        Ok(())
    }

    fn colon(&mut self) -> Result<()> {
        self.skip_ws()?;
        match self.bytes.get(self.pos) {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.err("expected `:`")),
            None => Err(self.eof()),
        }
    }

    /// Before the next element/member: `,` (unless first) or the closing byte.
    #[inline]
    fn separator(&mut self, first: bool, close: u8) -> Result<bool> {
        self.skip_ws()?;
        match self.bytes.get(self.pos) {
            Some(&c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.pos += 1;
                self.skip_ws()?;
                if self.relaxed && self.bytes.get(self.pos) == Some(&close) {
                    self.pos += 1;
                    return Ok(false);
                }
                Ok(true)
            }
            Some(_) if first => Ok(true),
            Some(_) => Err(self.err(if close == b'}' { "expected `,` or `}`" } else { "expected `,` or `]`" })),
            None => Err(self.eof()),
        }
    }
}

impl<'de> Read<'de> for SliceRead<'de> {
    type Loc = usize;
    const TRACK: bool = false;

    #[inline]
    fn loc(&self) -> usize {
        self.pos
    }

    #[inline]
    fn seek(&mut self, loc: usize) {
        self.pos = loc;
    }

    #[inline]
    fn ident(&self) -> usize {
        self.pos
    }

    #[inline]
    fn peek(&mut self) -> Result<Peek> {
        self.skip_ws()?;
        match self.bytes.get(self.pos) {
            Some(b'"') => Ok(Peek::Str),
            Some(b'-' | b'0'..=b'9') => Ok(Peek::Num),
            Some(b'{') => Ok(Peek::Obj),
            Some(b'[') => Ok(Peek::Arr),
            Some(b't') => Ok(Peek::True),
            Some(b'f') => Ok(Peek::False),
            Some(b'n') => Ok(Peek::Null),
            Some(_) => Err(self.err("expected a value")),
            None => Err(self.eof()),
        }
    }

    fn is_empty_object(&mut self) -> Result<bool> {
        let mut i = self.pos + 1;
        let save = self.pos;
        self.pos = i;
        self.skip_ws()?;
        i = self.pos;
        self.pos = save;
        Ok(self.bytes.get(i) == Some(&b'}'))
    }

    fn null(&mut self) -> Result<()> {
        self.literal(b"null")
    }

    fn boolean(&mut self) -> Result<bool> {
        if self.bytes.get(self.pos) == Some(&b't') {
            self.literal(b"true").map(|()| true)
        } else {
            self.literal(b"false").map(|()| false)
        }
    }

    #[inline]
    fn number(&mut self) -> Result<Num> {
        self.scan_number(true)
    }

    #[inline]
    fn string<'s>(&'s mut self) -> Result<Ref<'de, 's>> {
        match self.scan_string(true)? {
            Some(s) => Ok(Ref::Borrowed(s)),
            None => Ok(Ref::Copied(&self.scratch)),
        }
    }

    fn begin_array(&mut self) -> Result<()> {
        self.pos += 1;
        Ok(())
    }

    #[inline]
    fn next_element(&mut self, first: bool) -> Result<bool> {
        self.separator(first, b']')
    }

    fn begin_object(&mut self) -> Result<()> {
        self.pos += 1;
        Ok(())
    }

    #[inline]
    fn next_key<'s>(&'s mut self, first: bool) -> Result<Option<Ref<'de, 's>>> {
        if !self.separator(first, b'}')? {
            return Ok(None);
        }
        match self.bytes.get(self.pos) {
            Some(b'"') => {}
            Some(_) => return Err(self.err("expected a string key")),
            None => return Err(self.eof()),
        }
        let borrowed = self.scan_string(true)?;
        self.colon()?;
        Ok(Some(match borrowed {
            Some(s) => Ref::Borrowed(s),
            None => Ref::Copied(&self.scratch),
        }))
    }

    fn number_array(&mut self, out: &mut [Num; 16]) -> Result<Option<usize>> {
        let start = self.pos;
        self.pos += 1;
        let mut n = 0;
        loop {
            self.skip_ws()?;
            match self.bytes.get(self.pos) {
                Some(b']') if n == 0 => {
                    self.pos += 1;
                    return Ok(Some(0));
                }
                Some(b'-' | b'0'..=b'9') if n < out.len() => {
                    out[n] = self.scan_number(true)?;
                    n += 1;
                }
                _ => break,
            }
            self.skip_ws()?;
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Some(n));
                }
                _ => break,
            }
        }
        self.pos = start;
        Ok(None)
    }

    fn skip(&mut self, depth: usize) -> Result<()> {
        self.walk(depth, None)
    }

    fn skip_ahead(&mut self, depth: usize) -> Result<()> {
        self.skip_ws()?;
        if matches!(self.bytes.get(self.pos), Some(b'{' | b'[')) {
            self.ends.enable(self.bytes.len());
        }
        self.walk(depth, None)
    }

    type Memo = Ends;

    fn take_memo(&mut self) -> Ends {
        std::mem::take(&mut self.ends)
    }

    fn set_memo(&mut self, memo: Ends) {
        self.ends = memo;
    }

    fn raw(&mut self, depth: usize, out: &mut String) -> Result<()> {
        self.walk(depth, Some(out))
    }

    fn end(&mut self) -> Result<()> {
        self.skip_ws()?;
        if self.pos < self.bytes.len() { Err(self.err("trailing characters after the value")) } else { Ok(()) }
    }

    fn position(&self, e: Error) -> Error {
        if e.has_position() { e } else { e.at(self.bytes, self.pos) }
    }

    fn position_at(&self, e: Error, ident: usize) -> Error {
        if e.has_position() { e } else { e.at(self.bytes, ident) }
    }

    fn path_at(&self, offset: Option<usize>) -> String {
        // Walk the tokens up to the position, keeping the open containers and, for each,
        // the current member name or element index.
        enum Frame {
            /// The current member's name, and whether a name comes next.
            Obj(Option<String>, bool),
            /// The current index, and whether an element is being (or about to be) read.
            Arr(usize, bool),
        }
        // A value ended: its member or element is no longer part of the path.
        fn ended(frames: &mut [Frame]) {
            match frames.last_mut() {
                Some(Frame::Obj(current, _)) => *current = None,
                Some(Frame::Arr(_, inside)) => *inside = false,
                None => {}
            }
        }
        let target = offset.unwrap_or(self.pos);
        let mut r = SliceRead {
            bytes: self.bytes,
            text: self.text,
            pos: 0,
            scratch: String::new(),
            relaxed: self.relaxed,
            stack: Vec::new(),
            ends: Ends::Off,
        };
        let mut frames: Vec<Frame> = Vec::new();
        loop {
            if r.skip_ws().is_err() || r.pos >= target {
                break;
            }
            match r.bytes[r.pos] {
                b'{' => {
                    frames.push(Frame::Obj(None, true));
                    r.pos += 1;
                }
                b'[' => {
                    frames.push(Frame::Arr(0, true));
                    r.pos += 1;
                }
                b'}' | b']' => {
                    frames.pop();
                    ended(&mut frames);
                    r.pos += 1;
                }
                b',' => {
                    match frames.last_mut() {
                        Some(Frame::Arr(i, inside)) => {
                            *i += 1;
                            *inside = true;
                        }
                        Some(Frame::Obj(current, expecting_key)) => {
                            *current = None;
                            *expecting_key = true;
                        }
                        None => {}
                    }
                    r.pos += 1;
                }
                b':' => r.pos += 1,
                b'"' => {
                    let key = match r.scan_string(true) {
                        Ok(Some(s)) => s.to_owned(),
                        Ok(None) => r.scratch.clone(),
                        Err(_) => break,
                    };
                    if let Some(Frame::Obj(current, expecting_key @ true)) = frames.last_mut() {
                        *current = Some(key);
                        *expecting_key = false;
                    } else {
                        ended(&mut frames);
                    }
                }
                b'-' | b'0'..=b'9' => {
                    if r.scan_number(false).is_err() {
                        break;
                    }
                    ended(&mut frames);
                }
                b't' | b'n' => {
                    if r.literal(if r.bytes[r.pos] == b't' { b"true" } else { b"null" }).is_err() {
                        break;
                    }
                    ended(&mut frames);
                }
                b'f' => {
                    if r.literal(b"false").is_err() {
                        break;
                    }
                    ended(&mut frames);
                }
                _ => break,
            }
        }
        let mut out = String::new();
        for frame in &frames {
            match frame {
                Frame::Obj(Some(key), _) => crate::report::push_pointer_token(&mut out, key),
                Frame::Obj(None, _) | Frame::Arr(_, false) => {}
                Frame::Arr(i, true) => {
                    out.push('/');
                    out.push_str(itoa::Buffer::new().format(*i));
                }
            }
        }
        out
    }
}

enum Frame<'de> {
    Arr(std::slice::Iter<'de, Value>),
    Obj(serde_json::map::Iter<'de>),
}

/// The reader over a `serde_json::Value`.
pub(crate) struct ValueRead<'de> {
    next: Option<&'de Value>,
    stack: Vec<Frame<'de>>,
    /// The heights of the containers skips walked (by address), once a look-ahead skipped one.
    heights: Option<HashMap<usize, usize>>,
}

impl<'de> ValueRead<'de> {
    pub(crate) fn new(value: &'de Value) -> Self {
        ValueRead { next: Some(value), stack: Vec::new(), heights: None }
    }

    fn take(&mut self) -> Result<&'de Value> {
        self.next.take().ok_or_else(|| Error::new(Code::Eof))
    }
}

impl<'de> Read<'de> for ValueRead<'de> {
    type Loc = Option<&'de Value>;
    const TRACK: bool = true;

    fn loc(&self) -> Self::Loc {
        self.next
    }

    fn seek(&mut self, loc: Self::Loc) {
        self.next = loc;
    }

    fn ident(&self) -> usize {
        self.next.map_or(0, |v| std::ptr::from_ref(v) as usize)
    }

    fn peek(&mut self) -> Result<Peek> {
        Ok(match self.next.ok_or_else(|| Error::new(Code::Eof))? {
            Value::Null => Peek::Null,
            Value::Bool(true) => Peek::True,
            Value::Bool(false) => Peek::False,
            Value::Number(_) => Peek::Num,
            Value::String(_) => Peek::Str,
            Value::Array(_) => Peek::Arr,
            Value::Object(_) => Peek::Obj,
        })
    }

    fn is_empty_object(&mut self) -> Result<bool> {
        Ok(matches!(self.next, Some(Value::Object(m)) if m.is_empty()))
    }

    fn null(&mut self) -> Result<()> {
        self.take().map(drop)
    }

    fn boolean(&mut self) -> Result<bool> {
        Ok(matches!(self.take()?, Value::Bool(true)))
    }

    fn number(&mut self) -> Result<Num> {
        match self.take()? {
            Value::Number(n) => Ok(Num::from_json(n)),
            _ => Err(Error::syntax("expected a number")),
        }
    }

    fn string<'s>(&'s mut self) -> Result<Ref<'de, 's>> {
        match self.take()? {
            Value::String(s) => Ok(Ref::Borrowed(s)),
            _ => Err(Error::syntax("expected a string")),
        }
    }

    fn begin_array(&mut self) -> Result<()> {
        match self.take()? {
            Value::Array(a) => {
                self.stack.push(Frame::Arr(a.iter()));
                Ok(())
            }
            _ => Err(Error::syntax("expected an array")),
        }
    }

    fn next_element(&mut self, _first: bool) -> Result<bool> {
        match self.stack.last_mut() {
            Some(Frame::Arr(it)) => match it.next() {
                Some(v) => {
                    self.next = Some(v);
                    Ok(true)
                }
                None => {
                    self.stack.pop();
                    Ok(false)
                }
            },
            _ => Err(Error::syntax("not in an array")),
        }
    }

    fn begin_object(&mut self) -> Result<()> {
        match self.take()? {
            Value::Object(m) => {
                self.stack.push(Frame::Obj(m.iter()));
                Ok(())
            }
            _ => Err(Error::syntax("expected an object")),
        }
    }

    fn next_key<'s>(&'s mut self, _first: bool) -> Result<Option<Ref<'de, 's>>> {
        match self.stack.last_mut() {
            Some(Frame::Obj(it)) => match it.next() {
                Some((k, v)) => {
                    self.next = Some(v);
                    Ok(Some(Ref::Borrowed(k)))
                }
                None => {
                    self.stack.pop();
                    Ok(None)
                }
            },
            _ => Err(Error::syntax("not in an object")),
        }
    }

    fn number_array(&mut self, out: &mut [Num; 16]) -> Result<Option<usize>> {
        match self.next {
            Some(Value::Array(items)) if items.len() <= out.len() && items.iter().all(Value::is_number) => {
                for (slot, item) in out.iter_mut().zip(items) {
                    if let Value::Number(n) = item {
                        *slot = Num::from_json(n);
                    }
                }
                self.next = None;
                Ok(Some(items.len()))
            }
            _ => Ok(None),
        }
    }

    fn skip(&mut self, depth: usize) -> Result<()> {
        let v = self.take()?;
        match &mut self.heights {
            None => check_depth(v, depth),
            Some(heights) => {
                if height(v, heights) > depth {
                    Err(Error::new(Code::Depth(depth)))
                } else {
                    Ok(())
                }
            }
        }
    }

    fn skip_ahead(&mut self, depth: usize) -> Result<()> {
        if matches!(self.next, Some(Value::Array(_) | Value::Object(_))) && self.heights.is_none() {
            self.heights = Some(HashMap::new());
        }
        self.skip(depth)
    }

    type Memo = Option<HashMap<usize, usize>>;

    fn take_memo(&mut self) -> Self::Memo {
        self.heights.take()
    }

    fn set_memo(&mut self, memo: Self::Memo) {
        self.heights = memo;
    }

    fn raw(&mut self, depth: usize, out: &mut String) -> Result<()> {
        let v = self.take()?;
        check_depth(v, depth)?;
        out.push_str(&serde_json::to_string(v).map_err(|e| Error::store(e.to_string()))?);
        Ok(())
    }

    fn end(&mut self) -> Result<()> {
        Ok(())
    }

    fn position(&self, e: Error) -> Error {
        e
    }

    fn position_at(&self, e: Error, _ident: usize) -> Error {
        e
    }

    fn path_at(&self, _offset: Option<usize>) -> String {
        String::new()
    }
}

/// Rejects a value nesting deeper than `depth` (iteratively).
/// How deep `v` nests (0 for a scalar, 1 for `[]`), without recursion; walks only the containers
/// not in `heights` and records them there.
fn height(v: &Value, heights: &mut HashMap<usize, usize>) -> usize {
    enum Children<'a> {
        Arr(std::slice::Iter<'a, Value>),
        Obj(serde_json::map::Values<'a>),
    }
    fn children(v: &Value) -> Option<Children<'_>> {
        match v {
            Value::Array(a) => Some(Children::Arr(a.iter())),
            Value::Object(m) => Some(Children::Obj(m.values())),
            _ => None,
        }
    }
    let key = |v: &Value| std::ptr::from_ref(v) as usize;
    let Some(first) = children(v) else {
        return 0;
    };
    if let Some(&h) = heights.get(&key(v)) {
        return h;
    }
    // (container, its remaining children, the greatest height of its children so far)
    let mut stack = vec![(v, first, 0)];
    while let Some((_, rest, most)) = stack.last_mut() {
        let next = match rest {
            Children::Arr(it) => it.next(),
            Children::Obj(it) => it.next(),
        };
        match next {
            Some(child) => {
                if let Some(grand) = children(child) {
                    match heights.get(&key(child)) {
                        Some(&h) => *most = (*most).max(h),
                        None => stack.push((child, grand, 0)),
                    }
                }
            }
            None => {
                let Some((done, _, most)) = stack.pop() else {
                    break;
                };
                let h = most + 1;
                heights.insert(key(done), h);
                match stack.last_mut() {
                    Some((_, _, parent)) => *parent = (*parent).max(h),
                    None => return h,
                }
            }
        }
    }
    0
}

fn check_depth(v: &Value, depth: usize) -> Result<()> {
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => continue,
        };
        if d >= depth {
            return Err(Error::new(Code::Depth(depth)));
        }
        stack.extend(children.map(|c| (c, d + 1)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(text: &str) -> Result<String> {
        let mut r = SliceRead::from_str(text, false);
        let mut out = String::new();
        r.raw(128, &mut out)?;
        r.end()?;
        Ok(out)
    }

    #[test]
    fn raw_is_compact() {
        assert_eq!(
            walk(" { \"a\" : [1, 2.5e3 , \"x\\\"y\"], \"b\": {} , \"c\":[]} ").unwrap(),
            r#"{"a":[1,2.5e3,"x\"y"],"b":{},"c":[]}"#
        );
    }

    #[test]
    fn syntax_errors() {
        for bad in [
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "-",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\u{1}\"",
            "[1 2]",
            "nul",
            "{\"a\":1,}",
        ] {
            assert!(walk(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers() {
        let num = |t: &str| SliceRead::from_str(t, false).number().unwrap();
        assert_eq!(num("0"), Num::U(0));
        assert_eq!(num("-9223372036854775808"), Num::I(i64::MIN));
        assert_eq!(num("-9223372036854775809"), Num::F(-9223372036854775809.0));
        assert_eq!(num("18446744073709551615"), Num::U(u64::MAX));
        assert_eq!(num("18446744073709551616"), Num::F(18446744073709551616.0));
        assert_eq!(num("1.0"), Num::F(1.0));
        assert_eq!(num("84.19999694824219"), Num::F(84.19999694824219));
        assert!(SliceRead::from_str("1e400", false).number().is_err());
    }

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

    #[test]
    fn comments_in_relaxed_mode() {
        let mut r = SliceRead::from_str("{ // c\n \"a\": /* x */ 1, }", true);
        let mut out = String::new();
        r.raw(128, &mut out).unwrap();
        assert_eq!(out, r#"{"a":1}"#);
    }
}
