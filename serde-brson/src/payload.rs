//! The decompressed BSON payload: structural validation (lengths, terminators, element types,
//! depth) in one iterative pass, and lazy access through [`bson::RawDocument`].

use bson::{Document, RawDocument};

use crate::budget::{self, Budget};
use crate::container::{Compression, Header};
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;

/// A decompressed, validated data-tree payload: one BSON document.
///
/// Get one from [`decompress`](crate::decompress) or [`Options::decompress`](crate::Options::decompress).
/// It is checked once — every length prefix, terminator and element type, and the nesting
/// depth — so [`raw`](Payload::raw) gives lazy, allocation-free access (read `VersionNumber` or
/// `Types` without decoding the tree) and [`deserialize`](Payload::deserialize) can borrow
/// `&str` from it.
#[derive(Clone, PartialEq)]
pub struct Payload {
    bytes: Vec<u8>,
    compression: Compression,
    header: Option<Header>,
    /// [`Options::model_budget_ratio`](crate::Options::model_budget_ratio).
    budget_ratio: usize,
}

impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Payload")
            .field("len", &self.bytes.len())
            .field("compression", &self.compression)
            .field("header", &self.header)
            .finish()
    }
}

impl Payload {
    /// Validates `bytes` as one BSON document nested no deeper than `options.max_depth`.
    pub(crate) fn new(
        bytes: Vec<u8>,
        compression: Compression,
        header: Option<Header>,
        options: &Options,
    ) -> Result<Self> {
        validate(&bytes, options.max_depth)?;
        Ok(Payload::from_validated(bytes, compression, header, options))
    }

    /// A payload of `bytes` already [`validate`]d.
    pub(crate) fn from_validated(
        bytes: Vec<u8>,
        compression: Compression,
        header: Option<Header>,
        options: &Options,
    ) -> Self {
        Payload { bytes, compression, header, budget_ratio: options.model_budget_ratio }
    }

    /// Validates raw BSON bytes (e.g. a `.bson` export) as a payload (with the default
    /// [`Options::model_budget_ratio`](crate::Options::model_budget_ratio)).
    pub fn from_bson(bytes: Vec<u8>, max_depth: usize) -> Result<Self> {
        Payload::new(bytes, Compression::None, None, &Options::new().max_depth(max_depth))
    }

    /// The BSON bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The BSON bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The model budget ratio of the options it was read with.
    pub(crate) fn budget_ratio(&self) -> usize {
        self.budget_ratio
    }

    /// The compression the file used.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The file's `FrDT` header; `None` for a legacy headerless file.
    pub fn header(&self) -> Option<Header> {
        self.header
    }

    /// The root document, for lazy access (`get_str`, `get_array`, iteration) without decoding
    /// the tree.
    pub fn raw(&self) -> &RawDocument {
        RawDocument::from_bytes(&self.bytes).expect("the payload was validated")
    }

    /// The whole tree as a [`bson::Document`] (keeps key order and every value's BSON type, so
    /// encoding it again gives the same bytes, unless a document holds a duplicate key, which a
    /// `Document` cannot).
    ///
    /// Linear, iterative, and within the model budget
    /// ([`Options::model_budget_ratio`](crate::Options::model_budget_ratio) × the payload size +
    /// 2 MiB; a `null` array element is 2 bytes of BSON and a 112-byte [`bson::Bson`]), else
    /// [`ErrorKind::LimitExceeded`].
    pub fn to_document(&self) -> Result<Document> {
        let budget = Budget::for_input(self.bytes.len(), self.budget_ratio);
        budget::document_within(self.raw(), &budget, "the document")
    }

    /// The root's `VersionNumber` string (modern Resonite files; absent in legacy Neos files),
    /// read without decoding the rest of the tree.
    pub fn version_number(&self) -> Result<Option<&str>> {
        match self.raw().get("VersionNumber").map_err(raw_error)? {
            None => Ok(None),
            Some(value) => value.as_str().map(Some).ok_or_else(|| wrong_type("VersionNumber", "a string")),
        }
    }

    /// The root's `Types` table (modern files; component `Type` values index into it), read
    /// without decoding the rest of the tree.
    pub fn types(&self) -> Result<Option<Vec<&str>>> {
        let Some(value) = self.raw().get("Types").map_err(raw_error)? else { return Ok(None) };
        let array = value.as_array().ok_or_else(|| wrong_type("Types", "an array"))?;
        let mut types = Vec::new();
        for item in array {
            types.push(item.map_err(raw_error)?.as_str().ok_or_else(|| wrong_type("Types", "an array of strings"))?);
        }
        Ok(Some(types))
    }
}

fn raw_error(e: bson::error::Error) -> Error {
    Error::from(e)
}

fn wrong_type(key: &str, expected: &str) -> Error {
    Error::new(ErrorKind::Data, format!("the root's {key} is not {expected}"))
}

#[inline]
pub(crate) fn read_i32(buf: &[u8], pos: usize) -> i32 {
    i32::from_le_bytes(buf[pos..pos + 4].try_into().expect("4 bytes"))
}

pub(crate) fn malformed(pos: usize, what: impl Into<String>) -> Error {
    Error::payload(ErrorKind::Bson, pos, what)
}

/// Checks that `buf` is exactly one well-formed BSON document nested at most `max_depth` deep:
/// every length prefix fits its container, every document ends with its terminator, every
/// element type is known, strings are NUL-terminated, booleans are 0 or 1. Iterative (an
/// explicit stack bounded by `max_depth`), so hostile nesting cannot overflow the call stack.
///
/// String contents are not checked for UTF-8 here; the deserializer reports that.
pub(crate) fn validate(buf: &[u8], max_depth: usize) -> Result<()> {
    if buf.len() < 5 {
        return Err(malformed(0, format!("a BSON document needs at least 5 bytes, the payload has {}", buf.len())));
    }
    let declared = read_i32(buf, 0);
    if declared < 5 || declared as usize > buf.len() {
        return Err(malformed(
            0,
            format!("the document's length prefix {declared} disagrees with the payload's {} bytes", buf.len()),
        ));
    }
    let declared = declared as usize;
    if declared < buf.len() {
        return Err(Error::payload(
            ErrorKind::TrailingBytes,
            declared,
            format!("{} bytes after the BSON document", buf.len() - declared),
        ));
    }
    if max_depth == 0 {
        return Err(depth_error(0, max_depth));
    }
    // `end` is the offset of the current document's terminator; `stack` holds the enclosing ones.
    let mut end = declared - 1;
    if buf[end] != 0 {
        return Err(malformed(end, "the document does not end with a NUL byte"));
    }
    let mut stack: Vec<usize> = Vec::new();
    let mut pos = 4;
    loop {
        if pos == end {
            pos += 1;
            match stack.pop() {
                Some(parent) => {
                    end = parent;
                    continue;
                }
                None => return Ok(()),
            }
        }
        let element = pos;
        let kind = buf[pos];
        pos += 1;
        let key_len =
            buf[pos..end].iter().position(|&b| b == 0).ok_or_else(|| malformed(element, "an unterminated key"))?;
        pos += key_len + 1;
        let len = value_len(buf, kind, pos, end, element)?;
        match kind {
            0x03 | 0x04 => {
                if stack.len() + 2 > max_depth {
                    return Err(depth_error(pos, max_depth));
                }
                stack.push(end);
                end = pos + len - 1;
                pos += 4;
            }
            0x0F => {
                let scope = pos + 4 + 4 + read_i32(buf, pos + 4) as usize;
                if stack.len() + 2 > max_depth {
                    return Err(depth_error(scope, max_depth));
                }
                stack.push(end);
                end = pos + len - 1;
                pos = scope + 4;
            }
            _ => pos += len,
        }
    }
}

/// The length of the value of an element of type `kind` whose value starts at `pos`, in a document
/// whose terminator is at `end` (`element`: where the element starts, for errors). Checks what
/// [`validate`] checks of the value itself: lengths, terminators, booleans, and for a document,
/// array or code-with-scope its length prefix and final NUL (not its elements).
pub(crate) fn value_len(buf: &[u8], kind: u8, pos: usize, end: usize, element: usize) -> Result<usize> {
    let room = end - pos;
    let need = |n: usize| {
        if n <= room {
            Ok(n)
        } else {
            Err(malformed(element, format!("element of type {kind:#04x} overruns its document")))
        }
    };
    match kind {
        0x01 | 0x09 | 0x11 | 0x12 => need(8),
        0x02 | 0x0D | 0x0E => string_len(buf, pos, room, element),
        0x03 | 0x04 => {
            need(5)?;
            let len = read_i32(buf, pos);
            if len < 5 || len as usize > room {
                return Err(malformed(pos, format!("an embedded document's length {len} does not fit")));
            }
            let child_end = pos + len as usize - 1;
            if buf[child_end] != 0 {
                return Err(malformed(child_end, "an embedded document does not end with a NUL byte"));
            }
            Ok(len as usize)
        }
        0x05 => {
            need(5)?;
            let len = read_i32(buf, pos);
            if len < 0 || len as usize > room - 5 {
                return Err(malformed(pos, format!("a binary's length {len} does not fit")));
            }
            if buf[pos + 4] == 0x02 && (len < 4 || read_i32(buf, pos + 5) != len - 4) {
                return Err(malformed(pos, "an old-style binary (subtype 2) with an inconsistent inner length"));
            }
            Ok(5 + len as usize)
        }
        0x06 | 0x0A | 0x7F | 0xFF => Ok(0),
        0x07 => need(12),
        0x08 => {
            need(1)?;
            if buf[pos] > 1 {
                return Err(malformed(pos, format!("a boolean with the value {:#04x}", buf[pos])));
            }
            Ok(1)
        }
        0x0B => {
            let mut at = pos;
            for _ in 0..2 {
                let n = buf[at..end]
                    .iter()
                    .position(|&b| b == 0)
                    .ok_or_else(|| malformed(element, "an unterminated regular expression"))?;
                at += n + 1;
            }
            Ok(at - pos)
        }
        0x0C => {
            let len = string_len(buf, pos, room, element)?;
            if room - len < 12 {
                return Err(malformed(element, "a DBPointer overruns its document"));
            }
            Ok(len + 12)
        }
        0x0F => {
            need(4 + 5 + 5)?;
            let total = read_i32(buf, pos);
            if total < 14 || total as usize > room {
                return Err(malformed(pos, format!("a code-with-scope length {total} does not fit")));
            }
            let scope_end = pos + total as usize;
            let code = string_len(buf, pos + 4, total as usize - 4, element)?;
            let scope = pos + 4 + code;
            let len = if scope + 4 <= scope_end { read_i32(buf, scope) } else { 0 };
            if len < 5 || scope + len as usize != scope_end || buf[scope_end - 1] != 0 {
                return Err(malformed(scope, "a code-with-scope's scope document does not fill it"));
            }
            Ok(total as usize)
        }
        0x10 => need(4),
        0x13 => need(16),
        other => Err(malformed(element, format!("unknown BSON element type {other:#04x}"))),
    }
}

/// The size of a BSON string (i32 length including the NUL, the bytes, the NUL) at `pos`, with
/// `room` bytes available.
fn string_len(buf: &[u8], pos: usize, room: usize, element: usize) -> Result<usize> {
    if room < 5 {
        return Err(malformed(element, "a string overruns its document"));
    }
    let len = read_i32(buf, pos);
    if len < 1 || len as usize > room - 4 {
        return Err(malformed(pos, format!("a string's length {len} does not fit")));
    }
    if buf[pos + 3 + len as usize] != 0 {
        return Err(malformed(pos, "a string is not NUL-terminated"));
    }
    Ok(4 + len as usize)
}

pub(crate) fn depth_error(pos: usize, max_depth: usize) -> Error {
    Error::payload(
        ErrorKind::DepthLimitExceeded,
        pos,
        format!("documents and arrays nest deeper than the limit of {max_depth}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(body: &[u8]) -> Vec<u8> {
        let mut out = ((body.len() + 5) as i32).to_le_bytes().to_vec();
        out.extend_from_slice(body);
        out.push(0);
        out
    }

    #[test]
    fn accepts_well_formed_and_rejects_broken() {
        assert!(validate(&doc(b""), 1).is_ok());
        let nested = doc(&[&[0x03u8, b'a', 0][..], &doc(b"\x10x\0\x01\0\0\0")].concat());
        assert!(validate(&nested, 2).is_ok());
        assert_eq!(validate(&nested, 1).unwrap_err().kind(), ErrorKind::DepthLimitExceeded);
        let mut trailing = doc(b"");
        trailing.push(0);
        assert_eq!(validate(&trailing, 8).unwrap_err().kind(), ErrorKind::TrailingBytes);
        assert_eq!(validate(&doc(b"\x08b\0\x02"), 8).unwrap_err().kind(), ErrorKind::Bson);
        assert_eq!(validate(&doc(b"\x20b\0"), 8).unwrap_err().position(), Some(crate::Position::Payload(4)));
        assert_eq!(validate(&doc(b"\x02s\0\x05\0\0\0ab\0"), 8).unwrap_err().kind(), ErrorKind::Bson);
        assert!(validate(&doc(b"\x02s\0\x03\0\0\0ab\0"), 8).is_ok());
    }
}
