//! [`SliceRead`], the reader over JSON text: its structure (arrays, objects, skipping and copying
//! values without recursion, the path of an offset) over the tokens that `lex.rs` scans.

use super::{Ends, Peek, Read, Ref};
use crate::coerce::Num;
use crate::error::{Code, Error, Result};

/// A container a skip is inside.
struct Open {
    object: bool,
    start: usize,
    /// The greatest height of its children so far.
    height: usize,
}

/// The reader over JSON text.
pub(crate) struct SliceRead<'de> {
    pub(super) bytes: &'de [u8],
    /// The same input as `&str` when it came from `from_str` (then strings need no UTF-8 check).
    pub(super) text: Option<&'de str>,
    pub(super) pos: usize,
    pub(super) scratch: String,
    /// Settings-registry syntax: comments and trailing commas.
    pub(super) relaxed: bool,
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
    fn comments_in_relaxed_mode() {
        let mut r = SliceRead::from_str("{ // c\n \"a\": /* x */ 1, }", true);
        let mut out = String::new();
        r.raw(128, &mut out).unwrap();
        assert_eq!(out, r#"{"a":1}"#);
    }
}
