//! The tokenizer of Godot's text form (`VariantParser::get_token`), with the Godot 3 / Godot 4
//! differences: `E` exponents, `-inf`-style identifiers, `&"StringName"`, `\U` escapes.

use crate::error::{Error, ErrorKind, Result};
use crate::{Color, Version};

/// One token. Strings are unescaped; numbers keep their text.
#[derive(Debug, PartialEq)]
pub(crate) enum Tok<'a> {
    CurlyOpen,
    CurlyClose,
    BracketOpen,
    BracketClose,
    ParenOpen,
    ParenClose,
    Colon,
    Comma,
    Period,
    Equal,
    Str(String),
    StringName(String),
    Color(Color),
    /// The number's text and whether it is a float (has `.` or an exponent).
    Number(&'a str, bool),
    Ident(&'a str),
    Eof,
}

impl Tok<'_> {
    /// What the token is, for error messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Tok::CurlyOpen => "'{'",
            Tok::CurlyClose => "'}'",
            Tok::BracketOpen => "'['",
            Tok::BracketClose => "']'",
            Tok::ParenOpen => "'('",
            Tok::ParenClose => "')'",
            Tok::Colon => "':'",
            Tok::Comma => "','",
            Tok::Period => "'.'",
            Tok::Equal => "'='",
            Tok::Str(_) => "a string",
            Tok::StringName(_) => "a StringName",
            Tok::Color(_) => "a color",
            Tok::Number(..) => "a number",
            Tok::Ident(_) => "an identifier",
            Tok::Eof => "the end of the text",
        }
    }
}

/// A syntax error at byte `at`.
#[cold]
pub(crate) fn syntax(msg: impl Into<String>, at: usize) -> Error {
    Error::at(ErrorKind::Syntax(msg.into()), at)
}

/// The tokenizer: a position in the text.
pub(crate) struct Lexer<'a> {
    pub(crate) src: &'a str,
    pub(crate) pos: usize,
    pub(crate) version: Version,
    /// Where the last token started.
    pub(crate) start: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str, version: Version) -> Self {
        Lexer { src, pos: 0, version, start: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn g4(&self) -> bool {
        self.version == Version::Godot4
    }

    /// Skips whitespace (every code point up to 32 except NUL) and `;` comments.
    pub(crate) fn skip_blank(&mut self) {
        let b = self.src.as_bytes();
        while self.pos < b.len() {
            match b[self.pos] {
                1..=32 => self.pos += 1,
                b';' => {
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// The next token.
    pub(crate) fn next(&mut self) -> Result<Tok<'a>> {
        self.skip_blank();
        self.start = self.pos;
        let Some(c) = self.peek() else { return Ok(Tok::Eof) };
        let single = match c {
            b'{' => Some(Tok::CurlyOpen),
            b'}' => Some(Tok::CurlyClose),
            b'[' => Some(Tok::BracketOpen),
            b']' => Some(Tok::BracketClose),
            b'(' => Some(Tok::ParenOpen),
            b')' => Some(Tok::ParenClose),
            b':' => Some(Tok::Colon),
            b',' => Some(Tok::Comma),
            b'.' => Some(Tok::Period),
            b'=' => Some(Tok::Equal),
            _ => None,
        };
        if let Some(tok) = single {
            self.pos += 1;
            return Ok(tok);
        }
        match c {
            b'"' => {
                self.pos += 1;
                Ok(Tok::Str(self.string()?))
            }
            b'&' | b'@' if self.g4() => {
                self.pos += 1;
                if self.peek() != Some(b'"') {
                    return Err(syntax("expected '\"' after '&'", self.pos));
                }
                self.pos += 1;
                Ok(Tok::StringName(self.string()?))
            }
            b'#' => {
                self.pos += 1;
                let from = self.pos;
                while self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                    self.pos += 1;
                }
                html_color(&self.src[from..self.pos], self.version)
                    .map(Tok::Color)
                    .ok_or_else(|| syntax("invalid color code (3, 4, 6 or 8 hex digits)", self.start))
            }
            b'-' => {
                let next = self.src.as_bytes().get(self.pos + 1).copied();
                match next {
                    Some(d) if d.is_ascii_digit() => Ok(self.number()),
                    // `-.5` is -0.5 for the engine's scanner.
                    Some(b'.') if self.src.as_bytes().get(self.pos + 2).is_some_and(u8::is_ascii_digit) => {
                        Ok(self.number())
                    }
                    Some(l) if self.g4() && (l.is_ascii_alphabetic() || l == b'_') => {
                        self.pos += 1;
                        Ok(self.ident())
                    }
                    _ => Err(syntax("expected a digit after '-'", self.start)),
                }
            }
            b'0'..=b'9' => Ok(self.number()),
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => Ok(self.ident()),
            _ => {
                let ch = self.src[self.pos..].chars().next().unwrap_or('\0');
                Err(syntax(format!("unexpected character {ch:?}"), self.start))
            }
        }
    }

    fn ident(&mut self) -> Tok<'a> {
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        Tok::Ident(&self.src[self.start..self.pos])
    }

    /// `-? DIGIT+ ( . DIGIT* )? ( e [+-]? DIGIT* )?` (`E` too in Godot 4).
    fn number(&mut self) -> Tok<'a> {
        let b = self.src.as_bytes();
        let digits = |pos: &mut usize| {
            while *pos < b.len() && b[*pos].is_ascii_digit() {
                *pos += 1;
            }
        };
        let mut pos = self.pos;
        if b[pos] == b'-' {
            pos += 1;
        }
        digits(&mut pos);
        let mut float = false;
        if pos < b.len() && b[pos] == b'.' {
            float = true;
            pos += 1;
            digits(&mut pos);
        }
        if pos < b.len() && (b[pos] == b'e' || (b[pos] == b'E' && self.g4())) {
            float = true;
            pos += 1;
            if pos < b.len() && (b[pos] == b'+' || b[pos] == b'-') {
                pos += 1;
            }
            digits(&mut pos);
        }
        self.pos = pos;
        Tok::Number(&self.src[self.start..pos], float)
    }

    /// The rest of a string after its opening quote, unescaped.
    fn string(&mut self) -> Result<String> {
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote or backslash at once.
            let rest = &self.src[self.pos..];
            let Some(i) = rest.find(['"', '\\']) else {
                return Err(syntax("unterminated string", self.start));
            };
            out.push_str(&rest[..i]);
            self.pos += i + 1;
            if rest.as_bytes()[i] == b'"' {
                return Ok(out);
            }
            let Some(c) = self.src[self.pos..].chars().next() else {
                return Err(syntax("unterminated string", self.start));
            };
            self.pos += c.len_utf8();
            match c {
                'b' => out.push('\u{8}'),
                't' => out.push('\t'),
                'n' => out.push('\n'),
                'f' => out.push('\u{c}'),
                'r' => out.push('\r'),
                'u' => {
                    let unit = self.hex(4)?;
                    let c = if (0xD800..0xDC00).contains(&unit) {
                        // A surrogate pair as two escapes.
                        let at = self.pos;
                        if self.src[self.pos..].starts_with("\\u") {
                            self.pos += 2;
                            let low = self.hex(4)?;
                            if !(0xDC00..0xE000).contains(&low) {
                                return Err(syntax("invalid UTF-16 surrogate pair in \\u escapes", at));
                            }
                            char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        } else {
                            None
                        }
                    } else {
                        char::from_u32(unit)
                    };
                    out.push(c.ok_or_else(|| syntax("lone UTF-16 surrogate in a \\u escape", self.pos))?);
                }
                'U' if self.g4() => {
                    let cp = self.hex(6)?;
                    out.push(char::from_u32(cp).ok_or_else(|| syntax("invalid code point in \\U escape", self.pos))?);
                }
                other => out.push(other),
            }
        }
    }

    /// Exactly `n` hex digits.
    fn hex(&mut self, n: usize) -> Result<u32> {
        let text = self.src.get(self.pos..self.pos + n).filter(|t| t.bytes().all(|b| b.is_ascii_hexdigit()));
        let Some(text) = text else { return Err(syntax("malformed hex constant in string", self.pos)) };
        self.pos += n;
        Ok(u32::from_str_radix(text, 16).unwrap_or(0))
    }
}

/// `Color.html()` of the digits after `#`: 3, 4, 6 or 8 hex digits; 4 and 8 carry alpha first in
/// Godot 3 (ARGB) and last in Godot 4 (RGBA).
pub(crate) fn html_color(digits: &str, version: Version) -> Option<Color> {
    let expanded: String;
    let digits = if digits.len() == 3 || digits.len() == 4 {
        expanded = digits.chars().flat_map(|c| [c, c]).collect();
        &expanded
    } else {
        digits
    };
    let byte = |i: usize| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).ok();
    let (r, g, b, a) = match (digits.len(), version) {
        (6, _) => (byte(0)?, byte(1)?, byte(2)?, 255),
        (8, Version::Godot3) => (byte(1)?, byte(2)?, byte(3)?, byte(0)?),
        (8, Version::Godot4) => (byte(0)?, byte(1)?, byte(2)?, byte(3)?),
        _ => return None,
    };
    let f = |v: u8| match version {
        Version::Godot3 => (f64::from(v) / 255.0) as f32,
        Version::Godot4 => f32::from(v) / 255.0,
    };
    Some(Color { r: f(r), g: f(g), b: f(b), a: f(a) })
}
