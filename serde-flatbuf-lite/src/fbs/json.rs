//! JSON as flatc's parser reads it (strict JSON plus what flatc also accepts: unquoted keys and enum names,
//! single-quoted strings, trailing commas, `//` and `/* */` comments, hex numbers, `nan`/`inf`), numbers
//! kept as text so each is parsed once at its field's exact type; and the writer side's string escaping and
//! pretty-printing. Iterative where it matters (nesting depth limited), linear in the text.

use crate::error::{Error, ErrorKind, Result};

/// Deepest nesting of JSON arrays and objects accepted.
pub(super) const MAX_JSON_DEPTH: usize = 128;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    /// A number, as written.
    Num(String),
    /// A quoted string.
    Str(String),
    /// An unquoted identifier (flatc accepts enum names and `nan`/`inf` without quotes).
    Ident(String),
    Arr(Vec<Json>),
    /// Members in document order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Num(_) => "a number",
            Json::Str(_) => "a string",
            Json::Ident(_) => "a name",
            Json::Arr(_) => "an array",
            Json::Obj(_) => "an object",
        }
    }
}

pub(super) fn parse(text: &str) -> Result<Json> {
    let mut p = P { b: text.as_bytes(), text, i: 0, depth: 0 };
    let v = p.value()?;
    p.ws()?;
    if p.i != p.b.len() {
        return Err(p.err("trailing characters after the JSON value"));
    }
    Ok(v)
}

struct P<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn err(&self, msg: &str) -> Error {
        let before = &self.b[..self.i.min(self.b.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let col = self.i - before.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1) + 1;
        Error::new(ErrorKind::InvalidSchema, format!("JSON {line}:{col}: {msg}"))
    }

    fn ws(&mut self) -> Result<()> {
        loop {
            match self.b.get(self.i) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.i += 1,
                Some(b'/') if self.b.get(self.i + 1) == Some(&b'/') => {
                    while self.i < self.b.len() && self.b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                Some(b'/') if self.b.get(self.i + 1) == Some(&b'*') => {
                    self.i += 2;
                    while !(self.b.get(self.i) == Some(&b'*') && self.b.get(self.i + 1) == Some(&b'/')) {
                        if self.i >= self.b.len() {
                            return Err(self.err("unterminated comment"));
                        }
                        self.i += 1;
                    }
                    self.i += 2;
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Json> {
        self.ws()?;
        match self.b.get(self.i) {
            None => Err(self.err("expected a value, found the end")),
            Some(b'{') => {
                self.enter()?;
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws()?;
                    if self.b.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        break;
                    }
                    let key = match self.b.get(self.i) {
                        Some(b'"' | b'\'') => self.string()?,
                        Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$' => self.word(),
                        _ => return Err(self.err("expected a member name")),
                    };
                    self.ws()?;
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(self.err("expected `:`"));
                    }
                    self.i += 1;
                    let v = self.value()?;
                    members.push((key, v));
                    self.ws()?;
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            break;
                        }
                        _ => return Err(self.err("expected `,` or `}`")),
                    }
                }
                self.depth -= 1;
                Ok(Json::Obj(members))
            }
            Some(b'[') => {
                self.enter()?;
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws()?;
                    if self.b.get(self.i) == Some(&b']') {
                        self.i += 1;
                        break;
                    }
                    items.push(self.value()?);
                    self.ws()?;
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        _ => return Err(self.err("expected `,` or `]`")),
                    }
                }
                self.depth -= 1;
                Ok(Json::Arr(items))
            }
            Some(b'"' | b'\'') => Ok(Json::Str(self.string()?)),
            Some(c) if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.') => {
                let start = self.i;
                self.i += 1;
                while let Some(&c) = self.b.get(self.i) {
                    if c.is_ascii_alphanumeric()
                        || matches!(c, b'.' | b'_')
                        || (matches!(c, b'-' | b'+') && matches!(self.b[self.i - 1], b'e' | b'E'))
                    {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                let text = &self.text[start..self.i];
                Ok(if text[1..].starts_with(|c: char| c.is_ascii_alphabetic()) {
                    Json::Ident(text.to_owned())
                } else {
                    Json::Num(text.to_owned())
                })
            }
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                let w = self.word();
                Ok(match w.as_str() {
                    "null" => Json::Null,
                    "true" => Json::Bool(true),
                    "false" => Json::Bool(false),
                    _ => Json::Ident(w),
                })
            }
            Some(_) => Err(self.err("expected a value")),
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_JSON_DEPTH {
            return Err(self.err(&format!("nested more than {MAX_JSON_DEPTH} deep")));
        }
        Ok(())
    }

    fn word(&mut self) -> String {
        let start = self.i;
        while let Some(&c) = self.b.get(self.i) {
            if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$') {
                self.i += 1;
            } else {
                break;
            }
        }
        self.text[start..self.i].to_owned()
    }

    fn hex4(&mut self) -> Result<u32> {
        let h = self.b.get(self.i..self.i + 4).ok_or_else(|| self.err("short \\u escape"))?;
        let s = std::str::from_utf8(h).map_err(|_| self.err("bad \\u escape"))?;
        let v = u32::from_str_radix(s, 16).map_err(|_| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String> {
        let quote = self.b[self.i];
        self.i += 1;
        let mut s = String::new();
        loop {
            let start = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == quote || c == b'\\' {
                    break;
                }
                self.i += 1;
            }
            s.push_str(&self.text[start..self.i]);
            match self.b.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(&c) if c == quote => {
                    self.i += 1;
                    return Ok(s);
                }
                Some(_) => {
                    let e = self.b.get(self.i + 1).copied().unwrap_or(0);
                    self.i += 2;
                    if let Some(c) = super::lexer::simple_escape(e) {
                        s.push(c);
                        continue;
                    }
                    match e {
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) && self.b.get(self.i..self.i + 2) == Some(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("unpaired surrogate in \\u escape"));
                                }
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            }
                            s.push(char::from_u32(cp).ok_or_else(|| self.err("unpaired surrogate in \\u escape"))?);
                        }
                        b'x' => {
                            // flatc's `\xNN` byte escape: only ASCII keeps the string UTF-8.
                            let h = self.b.get(self.i..self.i + 2).ok_or_else(|| self.err("short \\x escape"))?;
                            let v = std::str::from_utf8(h)
                                .ok()
                                .and_then(|h| u8::from_str_radix(h, 16).ok())
                                .filter(u8::is_ascii)
                                .ok_or_else(|| self.err("\\x escape of a non-ASCII byte"))?;
                            self.i += 2;
                            s.push(v as char);
                        }
                        _ => return Err(self.err("unknown escape")),
                    }
                }
            }
        }
    }
}

/// Appends `s` as a JSON string.
pub(super) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            c if (c as u32) < 0x20 || c == '\u{7f}' => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push_str(esc);
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A JSON text being written: compact, or indented by `indent` spaces per level.
pub(super) struct Out {
    pub(super) s: String,
    indent: Option<usize>,
    level: usize,
    /// Whether the current container has a member yet.
    first: bool,
}

impl Out {
    pub(super) fn new(indent: Option<usize>) -> Self {
        Out { s: String::new(), indent, level: 0, first: true }
    }

    fn newline(&mut self) {
        if let Some(n) = self.indent {
            self.s.push('\n');
            for _ in 0..n * self.level {
                self.s.push(' ');
            }
        }
    }

    pub(super) fn open(&mut self, c: char) {
        self.s.push(c);
        self.level += 1;
        self.first = true;
    }

    pub(super) fn close(&mut self, c: char) {
        self.level -= 1;
        if !self.first {
            self.newline();
        }
        self.s.push(c);
        self.first = false;
    }

    /// Starts an array element.
    pub(super) fn elem(&mut self) {
        if !self.first {
            self.s.push(',');
        }
        self.first = false;
        self.newline();
    }

    /// Starts an object member.
    pub(super) fn key(&mut self, k: &str) {
        self.elem();
        write_str(&mut self.s, k);
        self.s.push(':');
        if self.indent.is_some() {
            self.s.push(' ');
        }
    }
}
