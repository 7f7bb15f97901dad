//! The container: the optional `FrDT` header, the compression kinds, file extensions and the
//! engine's rules for choosing a codec.
//!
//! ```text
//! offset 0  "FrDT"                (46 72 44 54)
//! offset 4  i32 LE version        (0; the engine rejects anything greater)
//! offset 8  LEB128 kind           (1 LZ4 / 2 LZMA / 3 Brotli; 0 None is never written)
//! offset 9  compressed body       (lz4net chunk stream / 5+8+8 LZMA / raw Brotli)
//! ```
//!
//! Legacy NeosVR files have no header: the codec is the one the file extension implies.

use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;
use std::str::FromStr;

use crate::error::{Error, ErrorKind, Result};

/// The four magic bytes of a data-tree header.
pub const MAGIC: [u8; 4] = *b"FrDT";

/// The only header version the engine writes and reads (`DataTreeConverter.VERSION`).
pub const VERSION: i32 = 0;

/// The compression kind of a data tree, as numbered in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// 0: raw BSON. The engine never writes it and refuses to load it; readers accept it only
    /// with [`Options::allow_uncompressed`](crate::Options::allow_uncompressed).
    None,
    /// 1: the lz4net chunk stream (`.lz4bson`), *not* the LZ4 frame format.
    Lz4,
    /// 2: Resonite LZMA: 5 property bytes, i64 uncompressed size, i64 compressed size, raw LZMA1
    /// (`.7zbson`).
    Lzma,
    /// 3: a raw Brotli stream, quality 9, window 16 (`.brson`).
    Brotli,
}

impl Compression {
    /// The kind number written in the header.
    pub const fn code(self) -> u64 {
        match self {
            Compression::None => 0,
            Compression::Lz4 => 1,
            Compression::Lzma => 2,
            Compression::Brotli => 3,
        }
    }

    /// The kind with this header number.
    pub const fn from_code(code: u64) -> Option<Self> {
        match code {
            0 => Some(Compression::None),
            1 => Some(Compression::Lz4),
            2 => Some(Compression::Lzma),
            3 => Some(Compression::Brotli),
            _ => None,
        }
    }

    /// The file extension the engine uses for this kind (`None` has none).
    pub const fn extension(self) -> Option<Extension> {
        match self {
            Compression::None => None,
            Compression::Lz4 => Some(Extension::Lz4Bson),
            Compression::Lzma => Some(Extension::SevenZBson),
            Compression::Brotli => Some(Extension::Brson),
        }
    }
}

/// A data-tree file extension, which is how the engine picks the codec of a legacy (headerless)
/// file and checks a header.
///
/// Parsing is case-insensitive and accepts an optional leading dot. `.frdt` is deliberately not an
/// extension: the engine's `IsSupportedFormat` does not accept it either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extension {
    /// `.brson`: Brotli.
    Brson,
    /// `.7zbson`: LZMA.
    SevenZBson,
    /// `.lz4bson`: lz4net.
    Lz4Bson,
}

impl Extension {
    /// The compression this extension implies.
    pub const fn compression(self) -> Compression {
        match self {
            Extension::Brson => Compression::Brotli,
            Extension::SevenZBson => Compression::Lzma,
            Extension::Lz4Bson => Compression::Lz4,
        }
    }

    /// The extension without its dot.
    pub const fn as_str(self) -> &'static str {
        match self {
            Extension::Brson => "brson",
            Extension::SevenZBson => "7zbson",
            Extension::Lz4Bson => "lz4bson",
        }
    }

    /// The extension of a path, if it is a data-tree extension.
    pub fn from_path(path: impl AsRef<Path>) -> Option<Self> {
        path.as_ref().extension()?.to_str()?.parse().ok()
    }
}

impl fmt::Display for Extension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.as_str())
    }
}

impl FromStr for Extension {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let s = s.strip_prefix('.').unwrap_or(s);
        [Extension::Brson, Extension::SevenZBson, Extension::Lz4Bson]
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::new(ErrorKind::Unsupported, format!("{s:?} is not a data-tree extension")))
    }
}

/// A parsed `FrDT` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// The format version (0 today).
    pub version: i32,
    /// The compression kind number as written (see [`Compression::from_code`]).
    pub kind: u64,
    /// The header's length in bytes (9 for every kind the engine knows).
    pub len: usize,
}

impl Header {
    /// The header the engine writes for `compression`.
    pub const fn new(compression: Compression) -> Self {
        Header { version: VERSION, kind: compression.code(), len: 9 }
    }

    /// The compression kind, if the engine knows the number.
    pub const fn compression(&self) -> Option<Compression> {
        Compression::from_code(self.kind)
    }

    /// Writes the header: the magic, the version and the kind.
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        let mut buf = [0u8; 18];
        buf[..4].copy_from_slice(&MAGIC);
        buf[4..8].copy_from_slice(&self.version.to_le_bytes());
        let n = write_varint(self.kind, &mut buf[8..]);
        out.write_all(&buf[..8 + n])
    }
}

/// Reads the header at the start of `bytes`: `Ok(None)` if the file does not start with `FrDT`
/// (a legacy file), an error if it does but the header is cut short or its varint is malformed.
/// Only the header's syntax is checked here; [`Options`](crate::Options) applies the engine's rules.
pub fn sniff(bytes: &[u8]) -> Result<Option<Header>> {
    if bytes.len() < 4 || bytes[..4] != MAGIC {
        return Ok(None);
    }
    let version = bytes.get(4..8).ok_or_else(|| Error::eof("the FrDT header's version", bytes.len() as u64))?;
    let version = i32::from_le_bytes(version.try_into().expect("4 bytes"));
    let (kind, n) = read_varint_slice(&bytes[8..], 8)?;
    Ok(Some(Header { version, kind, len: 8 + n }))
}

/// The same as [`sniff`] on a stream. Returns the header (if any) and the bytes read that are not
/// part of a header (the start of a legacy body), which the caller must put back in front.
pub(crate) fn sniff_reader(reader: &mut impl Read) -> Result<(Option<Header>, Vec<u8>)> {
    let mut prefix = Vec::with_capacity(8);
    reader.take(4).read_to_end(&mut prefix)?;
    if prefix[..] != MAGIC {
        return Ok((None, prefix));
    }
    let mut version = [0u8; 4];
    read_exact_or_eof(reader, &mut version, "the FrDT header's version", 4)?;
    let mut kind = 0u64;
    let mut n = 0;
    loop {
        let mut byte = [0u8];
        read_exact_or_eof(reader, &mut byte, "the FrDT header's kind", 8 + n as u64)?;
        match varint_step(&mut kind, n, byte[0]) {
            Some(true) => n += 1,
            Some(false) => break,
            None => return Err(bad_varint(8)),
        }
    }
    Ok((Some(Header { version: i32::from_le_bytes(version), kind, len: 9 + n }), Vec::new()))
}

fn read_exact_or_eof(reader: &mut impl Read, buf: &mut [u8], what: &str, offset: u64) -> Result<()> {
    reader
        .read_exact(buf)
        .map_err(|e| if e.kind() == io::ErrorKind::UnexpectedEof { Error::eof(what, offset) } else { Error::from(e) })
}

/// The engine's rules: which codec decodes a file, given its header (if any) and the options.
/// Returns the compression and whether the file had a header.
pub(crate) fn resolve(
    header: Option<Header>,
    hint: Option<Extension>,
    allow_uncompressed: bool,
) -> Result<Compression> {
    let Some(header) = header else {
        return hint.map(Extension::compression).ok_or_else(|| {
            Error::file(
                ErrorKind::MissingHeader,
                0,
                "no FrDT header, and no file extension hint to choose the codec of a legacy file",
            )
        });
    };
    if header.version > VERSION {
        return Err(Error::file(
            ErrorKind::UnsupportedVersion,
            4,
            format!("data-tree version {} is too new (this reader knows version {VERSION})", header.version),
        ));
    }
    let compression = header.compression().ok_or_else(|| {
        Error::file(ErrorKind::UnknownCompression, 8, format!("unknown compression kind {}", header.kind))
    })?;
    if compression == Compression::None && !allow_uncompressed {
        return Err(Error::file(
            ErrorKind::UncompressedNotAllowed,
            8,
            "compression kind 0 (uncompressed BSON) is not written by the engine; opt in with Options::allow_uncompressed",
        ));
    }
    if let Some(ext) = hint {
        if ext.compression() != compression {
            return Err(Error::file(
                ErrorKind::ExtensionMismatch,
                8,
                format!(
                    "the header says {compression:?} but the extension .{} implies {:?}",
                    ext.as_str(),
                    ext.compression()
                ),
            ));
        }
    }
    Ok(compression)
}

/// One step of LEB128 decoding (Elements' `Read7BitEncoded`): adds `byte` as group `index`.
/// `Some(true)` = more bytes follow, `Some(false)` = done, `None` = more than 64 bits.
#[inline]
pub(crate) fn varint_step(value: &mut u64, index: usize, byte: u8) -> Option<bool> {
    let shift = 7 * index as u32;
    let group = u64::from(byte & 0x7F);
    if shift >= 64 || (shift > 57 && group >> (64 - shift) != 0) {
        return None;
    }
    *value |= group << shift;
    Some(byte & 0x80 != 0)
}

fn bad_varint(offset: u64) -> Error {
    Error::file(ErrorKind::InvalidVarint, offset, "a LEB128 varint longer than 64 bits")
}

/// Reads a LEB128 varint from the start of `bytes`; `offset` is their position in the file (for
/// errors). Returns the value and its length.
#[inline]
pub(crate) fn read_varint_slice(bytes: &[u8], offset: u64) -> Result<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate() {
        match varint_step(&mut value, i, byte) {
            Some(true) => {}
            Some(false) => return Ok((value, i + 1)),
            None => return Err(bad_varint(offset)),
        }
    }
    Err(Error::eof("a varint", offset + bytes.len() as u64))
}

/// Writes `value` as LEB128 into `out` (at least 10 bytes) and returns the length.
#[inline]
pub(crate) fn write_varint(mut value: u64, out: &mut [u8]) -> usize {
    let mut n = 0;
    loop {
        let byte = (value & 0x7F) as u8;
        value >>= 7;
        if value == 0 {
            out[n] = byte;
            return n + 1;
        }
        out[n] = byte | 0x80;
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_overflow() {
        for value in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut buf = [0u8; 10];
            let n = write_varint(value, &mut buf);
            assert_eq!(read_varint_slice(&buf[..n], 0).unwrap(), (value, n));
        }
        // 10 bytes whose last group carries more than the 64th bit.
        let too_big = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02];
        assert_eq!(read_varint_slice(&too_big, 0).unwrap_err().kind(), ErrorKind::InvalidVarint);
        let eleven = [0x80; 11];
        assert_eq!(read_varint_slice(&eleven, 0).unwrap_err().kind(), ErrorKind::InvalidVarint);
        assert!(read_varint_slice(&[0x80], 0).unwrap_err().is_eof());
    }

    #[test]
    fn header_bytes() {
        let mut out = Vec::new();
        Header::new(Compression::Brotli).write_to(&mut out).unwrap();
        assert_eq!(out, b"FrDT\0\0\0\0\x03");
        assert_eq!(sniff(&out).unwrap(), Some(Header { version: 0, kind: 3, len: 9 }));
        assert_eq!(sniff(b"\x5d\0\0\x20\0").unwrap(), None);
        assert!(sniff(b"FrDT\0\0").unwrap_err().is_eof());
    }

    #[test]
    fn extensions_parse_case_insensitively() {
        assert_eq!("7ZBSON".parse::<Extension>().unwrap(), Extension::SevenZBson);
        assert_eq!(".brson".parse::<Extension>().unwrap(), Extension::Brson);
        assert_eq!(Extension::from_path("a/b.LZ4BSON"), Some(Extension::Lz4Bson));
        assert_eq!(Extension::from_path("x.frdt"), None);
    }
}
