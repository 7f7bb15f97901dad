//! The BSON walk of [`dump`](super::dump): every document's length, each element's type, key and
//! value, terminators; nested documents and arrays one level deeper. Offsets are into the payload.

use crate::error::{Error, ErrorKind};
use gamefmt_dump::{Out, quoted};

type Result<T = ()> = std::result::Result<T, Error>;

fn bad(at: usize, message: impl Into<String>) -> Error {
    Error::payload(ErrorKind::Bson, at, message)
}

/// Walks the one document that must fill `data`.
pub(super) fn payload(out: &mut Out, data: &[u8], max_depth: usize) -> Result {
    let end = Walk { out, data, max_depth }.document(0, data.len(), 0, "document")?;
    if end < data.len() {
        out.span(end, &data[end..], 0, format_args!("{} bytes after the document", data.len() - end));
        return Err(Error::payload(
            ErrorKind::TrailingBytes,
            end,
            format!("{} bytes after the BSON document", data.len() - end),
        ));
    }
    Ok(())
}

struct Walk<'a, 'o> {
    out: &'o mut Out,
    data: &'a [u8],
    max_depth: usize,
}

fn type_name(t: u8) -> &'static str {
    match t {
        0x01 => "double",
        0x02 => "string",
        0x03 => "document",
        0x04 => "array",
        0x05 => "binary",
        0x06 => "undefined (deprecated)",
        0x07 => "ObjectId",
        0x08 => "bool",
        0x09 => "UTC datetime",
        0x0A => "null",
        0x0B => "regex",
        0x0C => "DBPointer (deprecated)",
        0x0D => "JavaScript code",
        0x0E => "symbol (deprecated)",
        0x0F => "JavaScript code with scope",
        0x10 => "int32",
        0x11 => "timestamp",
        0x12 => "int64",
        0x13 => "decimal128",
        0xFF => "min key",
        0x7F => "max key",
        _ => "unknown type",
    }
}

impl<'a> Walk<'a, '_> {
    /// `n` bytes at `at`, within `limit`.
    fn bytes(&self, at: usize, n: usize, limit: usize, what: &str) -> Result<&'a [u8]> {
        at.checked_add(n)
            .filter(|&end| end <= limit)
            .map(|end| {
                let data: &'a [u8] = self.data;
                &data[at..end]
            })
            .ok_or_else(|| bad(at, format!("{what} runs past the end of its document")))
    }

    fn i32_at(&self, at: usize, limit: usize, what: &str) -> Result<i32> {
        let b = self.bytes(at, 4, limit, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A NUL-terminated key (or regex part): its length with the NUL, and its text.
    fn cstring(&self, at: usize, limit: usize) -> Result<(usize, &'a str)> {
        let data: &'a [u8] = self.data;
        let rest = data.get(at..limit).unwrap_or_default();
        let nul = rest.iter().position(|&b| b == 0).ok_or_else(|| bad(at, "a key without its NUL terminator"))?;
        let text = std::str::from_utf8(&rest[..nul]).map_err(|_| bad(at, "a key is not valid UTF-8"))?;
        Ok((nul + 1, text))
    }

    /// A document (or array) at `at` that must end by `limit`; returns its end.
    fn document(&mut self, at: usize, limit: usize, depth: usize, what: &str) -> Result<usize> {
        if depth >= self.max_depth {
            return Err(Error::payload(
                ErrorKind::DepthLimitExceeded,
                at,
                format!("documents nested deeper than the limit of {}", self.max_depth),
            ));
        }
        let len = self.i32_at(at, limit, "a document's length")?;
        self.out.span(at, &self.data[at..at + 4], depth, format_args!("{what}, {len} bytes"));
        let end = usize::try_from(len)
            .ok()
            .filter(|&n| n >= 5)
            .and_then(|n| at.checked_add(n))
            .filter(|&end| end <= limit)
            .ok_or_else(|| bad(at, format!("a document's length {len} does not fit the {} bytes left", limit - at)))?;
        let last = end - 1;
        let mut pos = at + 4;
        while pos < last {
            pos = self.element(pos, last, depth + 1)?;
        }
        if pos != last || self.data[last] != 0 {
            return Err(bad(last, "the document does not end with a NUL byte where its length says"));
        }
        self.out.span(last, &self.data[last..end], depth, "end of document");
        Ok(end)
    }

    /// One element: its type byte and key on one line, its value below (one level deeper).
    fn element(&mut self, at: usize, limit: usize, depth: usize) -> Result<usize> {
        let t = self.data[at];
        let (key_len, key) = self.cstring(at + 1, limit)?;
        let value = at + 1 + key_len;
        let name = type_name(t);
        self.out.span(at, &self.data[at..value], depth, format_args!("{name} {}", quoted(key)));
        let inner = depth + 1;
        let fixed = |n: usize, walk: &mut Self, meaning: &dyn Fn(&[u8]) -> String| -> Result<usize> {
            let b = walk.bytes(value, n, limit, "a value")?;
            let text = meaning(b);
            walk.out.span(value, b, inner, text);
            Ok(value + n)
        };
        match t {
            0x01 => fixed(8, self, &|b| format!("{:?}", f64::from_le_bytes(b.try_into().unwrap_or_default()))),
            0x02 | 0x0D | 0x0E => self.string(value, limit, inner),
            0x03 => self.document(value, limit, inner, "document"),
            0x04 => self.document(value, limit, inner, "array"),
            0x05 => {
                let len = self.i32_at(value, limit, "a binary's length")?;
                let n = usize::try_from(len).map_err(|_| bad(value, format!("negative binary length {len}")))?;
                let head = self.bytes(value, 5, limit, "a binary's header")?;
                self.out.span(value, head, inner, format_args!("length {len}, subtype {:#04x}", head[4]));
                let body = self.bytes(value + 5, n, limit, "a binary's bytes")?;
                self.out.span(value + 5, body, inner, format_args!("{n} bytes"));
                Ok(value + 5 + n)
            }
            0x06 | 0x0A | 0xFF | 0x7F => Ok(value),
            0x07 => fixed(12, self, &|b| b.iter().map(|x| format!("{x:02x}")).collect()),
            0x08 => {
                let b = self.bytes(value, 1, limit, "a bool")?;
                if b[0] > 1 {
                    return Err(bad(value, format!("a bool holds {:#04x}", b[0])));
                }
                self.out.span(value, b, inner, b[0] == 1);
                Ok(value + 1)
            }
            0x09 => {
                fixed(8, self, &|b| format!("{} ms since 1970", i64::from_le_bytes(b.try_into().unwrap_or_default())))
            }
            0x0B => {
                let (n1, pattern) = self.cstring(value, limit)?;
                let (n2, flags) = self.cstring(value + n1, limit)?;
                let meaning = format!("/{}/{}", quoted(pattern), quoted(flags));
                self.out.span(value, &self.data[value..value + n1 + n2], inner, meaning);
                Ok(value + n1 + n2)
            }
            0x0C => {
                let after = self.string(value, limit, inner)?;
                let id = self.bytes(after, 12, limit, "a DBPointer's id")?;
                self.out.span(after, id, inner, "ObjectId");
                Ok(after + 12)
            }
            0x0F => {
                let total = self.i32_at(value, limit, "a code-with-scope length")?;
                self.out.span(value, &self.data[value..value + 4], inner, format_args!("total length {total}"));
                let after = self.string(value + 4, limit, inner)?;
                let end = self.document(after, limit, inner, "scope document")?;
                if usize::try_from(total).ok() != Some(end - value) {
                    return Err(bad(value, "a code-with-scope length disagrees with its parts"));
                }
                Ok(end)
            }
            0x10 => fixed(4, self, &|b| i32::from_le_bytes(b.try_into().unwrap_or_default()).to_string()),
            0x11 => fixed(8, self, &|b| {
                let v = u64::from_le_bytes(b.try_into().unwrap_or_default());
                format!("time {}, increment {}", v >> 32, v & 0xFFFF_FFFF)
            }),
            0x12 => fixed(8, self, &|b| i64::from_le_bytes(b.try_into().unwrap_or_default()).to_string()),
            0x13 => fixed(16, self, &|_| "decimal128".to_owned()),
            _ => Err(bad(at, format!("unknown element type {t:#04x}"))),
        }
    }

    /// A BSON string (length with the NUL, bytes, NUL); returns its end.
    fn string(&mut self, at: usize, limit: usize, depth: usize) -> Result<usize> {
        let len = self.i32_at(at, limit, "a string's length")?;
        self.out.span(at, &self.data[at..at + 4], depth, format_args!("length {len}"));
        let n = usize::try_from(len).ok().filter(|&n| n >= 1).ok_or_else(|| bad(at, format!("string length {len}")))?;
        let body = self.bytes(at + 4, n, limit, "a string")?;
        if body[n - 1] != 0 {
            return Err(bad(at + 4 + n - 1, "a string does not end with a NUL byte"));
        }
        let text = std::str::from_utf8(&body[..n - 1]).map_err(|_| bad(at + 4, "a string is not valid UTF-8"))?;
        self.out.span(at + 4, body, depth, quoted(text));
        Ok(at + 4 + n)
    }
}
