//! Tokens of `.fbs` text: identifiers (dotted names are joined by the parser), numbers, strings and
//! punctuation, with their line and column. Comments (`//`, `///`, `/* */`) are skipped. One pass over the
//! bytes, no backtracking: linear in the text.

use crate::error::{Error, ErrorKind, Result};

/// A token kind.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// A number literal, as written (sign included when it was attached: `-5`, `+inf` is an identifier).
    Num(String),
    /// A string literal, unescaped.
    Str(String),
    /// One punctuation character.
    Punct(char),
    /// The end of the text.
    End,
}

/// A token and where it starts.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: u32,
    pub(super) col: u32,
}

/// Splits `text` into tokens. `file` names the text in errors.
pub(super) fn tokenize(file: &str, text: &str) -> Result<Vec<Token>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1u32, 0usize);
    let err = |line: u32, col: usize, msg: &str| -> Error {
        Error::new(ErrorKind::InvalidSchema, format!("{file}:{line}:{col}: {msg}"))
    };
    while i < b.len() {
        let c = b[i];
        // Columns count bytes from 1 (constant work per token, even on one long line).
        let col = (i - line_start + 1) as u32;
        match c {
            b'\n' => {
                i += 1;
                line += 1;
                line_start = i;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                loop {
                    match b.get(i) {
                        None => return Err(err(line, col as usize, "unterminated /* comment")),
                        Some(b'*') if b.get(i + 1) == Some(&b'/') => {
                            i += 2;
                            break;
                        }
                        Some(b'\n') => {
                            i += 1;
                            line += 1;
                            line_start = i;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'"' | b'\'' => {
                let quote = c;
                i += 1;
                let mut s = String::new();
                loop {
                    let Some(&d) = b.get(i) else {
                        return Err(err(line, col as usize, "unterminated string"));
                    };
                    match d {
                        b'\n' => return Err(err(line, col as usize, "unterminated string")),
                        b'\\' => {
                            let e = b.get(i + 1).copied().unwrap_or(0);
                            i += 2;
                            match simple_escape(e) {
                                Some(c) => s.push(c),
                                None => return Err(err(line, col as usize, "unknown escape in string")),
                            }
                        }
                        _ if d == quote => {
                            i += 1;
                            break;
                        }
                        _ => {
                            // Copy one whole UTF-8 character.
                            let start = i;
                            i += 1;
                            while i < b.len() && (b[i] & 0xC0) == 0x80 {
                                i += 1;
                            }
                            s.push_str(&text[start..i]);
                        }
                    }
                }
                out.push(Token { tok: Tok::Str(s), line, col });
            }
            b'0'..=b'9' | b'-' | b'+' | b'.'
                if c.is_ascii_digit()
                    || (c != b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit() || *d == b'.'))
                    || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                let start = i;
                i += 1;
                while i < b.len() {
                    let d = b[i];
                    let exp_sign = (d == b'-' || d == b'+') && matches!(b[i - 1], b'e' | b'E') && !is_hex(&b[start..i]);
                    if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || exp_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                out.push(Token { tok: Tok::Num(text[start..i].to_owned()), line, col });
            }
            b'-' | b'+' if b.get(i + 1).is_some_and(|d| d.is_ascii_alphabetic()) => {
                // `-inf`, `+infinity`: an identifier with its sign.
                let start = i;
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Token { tok: Tok::Ident(text[start..i].to_owned()), line, col });
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Token { tok: Tok::Ident(text[start..i].to_owned()), line, col });
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b':' | b';' | b',' | b'=' | b'.' => {
                i += 1;
                out.push(Token { tok: Tok::Punct(c as char), line, col });
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(err(line, col as usize, &format!("unexpected character {ch:?}")));
            }
        }
    }
    let col = (b.len() - line_start + 1) as u32;
    out.push(Token { tok: Tok::End, line, col });
    Ok(out)
}

/// The character of a one-letter escape (`\n`, `\"`, …), shared with the JSON reader.
pub(super) fn simple_escape(e: u8) -> Option<char> {
    Some(match e {
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'"' | b'\'' | b'\\' | b'/' => e as char,
        _ => return None,
    })
}

fn is_hex(lit: &[u8]) -> bool {
    let lit = lit.strip_prefix(b"-").or_else(|| lit.strip_prefix(b"+")).unwrap_or(lit);
    lit.starts_with(b"0x") || lit.starts_with(b"0X")
}
