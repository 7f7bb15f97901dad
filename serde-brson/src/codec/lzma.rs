//! Kind 2: Resonite LZMA, the 7-Zip SDK's raw LZMA1 stream behind a 5+8+8 header.
//!
//! ```text
//! 5 bytes   properties: (pb * 5 + lp) * 9 + lc, then the dictionary size (u32 LE)
//! 8 bytes   i64 LE uncompressed size
//! 8 bytes   i64 LE compressed size
//! N bytes   raw LZMA1 data; the engine writes no end marker
//! ```
//!
//! This is *not* the `.lzma` ("LZMA-alone") format, whose header is 13 bytes. Decoding stops at
//! exactly the declared uncompressed size: a raw decoder run past it produces junk bytes, and a
//! stream that does carry an end marker decodes the same. The engine encodes with lc 3, lp 0,
//! pb 2, a 2 MiB dictionary, the `bt4` match finder and 32 fast bytes, no end marker; so does
//! [`LzmaWriter`].
//!
//! The codec is `lzma-rust2` (pure Rust, a port of XZ for Java): it decodes raw LZMA1 with a
//! known size and no end marker, grows its dictionary with the output instead of allocating
//! the declared dictionary up front, and encodes without an end marker.

use std::io::{self, Read, Take, Write};

use lzma_rust2::{EncodeMode, LzmaOptions, MfType};

use crate::error::{Error, ErrorKind, Result};

/// The length of the 5+8+8 header.
pub const HEADER_LEN: usize = 21;

/// The engine's dictionary size, 2 MiB.
pub const DICT_SIZE: u32 = 1 << 21;

/// The engine's properties byte: lc 3, lp 0, pb 2.
pub const PROPS: u8 = (2 * 5) * 9 + 3;

/// The parsed 5+8+8 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LzmaHeader {
    /// The properties byte, `(pb * 5 + lp) * 9 + lc`.
    pub props: u8,
    /// The dictionary size.
    pub dict_size: u32,
    /// The declared uncompressed size.
    pub uncompressed_size: u64,
    /// The declared compressed size (the LZMA data after the header).
    pub compressed_size: u64,
}

impl LzmaHeader {
    /// Parses and checks a header: properties in range (`lc <= 8`, `lp <= 4`, `pb <= 4`), sizes
    /// not negative, the uncompressed size within `limit`. `offset` is the header's position in
    /// the file (for errors).
    pub fn parse(bytes: &[u8; HEADER_LEN], limit: usize, offset: u64) -> Result<Self> {
        let props = bytes[0];
        if props >= 9 * 5 * 5 {
            return Err(Error::file(ErrorKind::Lzma, offset, format!("invalid LZMA properties byte {props:#04x}")));
        }
        let dict_size = u32::from_le_bytes(bytes[1..5].try_into().expect("4 bytes"));
        let uncompressed = i64::from_le_bytes(bytes[5..13].try_into().expect("8 bytes"));
        let compressed = i64::from_le_bytes(bytes[13..21].try_into().expect("8 bytes"));
        if uncompressed < 0 || compressed < 0 {
            return Err(Error::file(
                ErrorKind::Lzma,
                offset + 5,
                format!("negative LZMA size (uncompressed {uncompressed}, compressed {compressed})"),
            ));
        }
        if uncompressed as u64 > limit as u64 {
            return Err(Error::file(
                ErrorKind::LimitExceeded,
                offset + 5,
                format!("the LZMA body declares {uncompressed} decompressed bytes, over the limit of {limit}"),
            ));
        }
        Ok(LzmaHeader { props, dict_size, uncompressed_size: uncompressed as u64, compressed_size: compressed as u64 })
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0] = self.props;
        out[1..5].copy_from_slice(&self.dict_size.to_le_bytes());
        out[5..13].copy_from_slice(&(self.uncompressed_size as i64).to_le_bytes());
        out[13..21].copy_from_slice(&(self.compressed_size as i64).to_le_bytes());
        out
    }
}

/// Decodes a Resonite LZMA body from a reader: reads the 21-byte header, then yields exactly the
/// declared number of bytes, reading at most the declared compressed size from `inner`.
///
/// The declared uncompressed size is checked against the limit before anything is allocated,
/// and the decoder's dictionary grows with the output (never more than the declared size).
pub struct LzmaReader<R: Read> {
    decoder: lzma_rust2::LzmaReader<Take<R>>,
    header: LzmaHeader,
    produced: u64,
    offset: u64,
}

impl<R: Read> LzmaReader<R> {
    /// Reads the header from `inner`; `limit` caps the declared uncompressed size and `offset` is
    /// the body's position in the file (for errors).
    pub fn new(mut inner: R, limit: usize, offset: u64) -> Result<Self> {
        let mut bytes = [0u8; HEADER_LEN];
        let mut got = 0;
        while got < HEADER_LEN {
            match inner.read(&mut bytes[got..]) {
                Ok(0) => return Err(Error::eof("the LZMA header", offset + got as u64)),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let header = LzmaHeader::parse(&bytes, limit, offset)?;
        let data = offset + HEADER_LEN as u64;
        let decoder = lzma_rust2::LzmaReader::new_with_props(
            inner.take(header.compressed_size),
            header.uncompressed_size,
            header.props,
            header.dict_size.min(lzma_rust2::DICT_SIZE_MAX),
            None,
        )
        .map_err(|e| lzma_error(e, data))?;
        Ok(LzmaReader { decoder, header, produced: 0, offset: data })
    }

    /// The parsed header.
    pub fn header(&self) -> &LzmaHeader {
        &self.header
    }

    /// The inner reader, positioned after the compressed data if the stream was read to its end.
    /// Compressed bytes inside the declared size that the decoder did not need (e.g. an end
    /// marker) are skipped, as the engine does; input that ends before the declared compressed
    /// size is [`ErrorKind::UnexpectedEof`].
    pub fn into_inner(self) -> Result<R> {
        let offset = self.offset + self.header.compressed_size;
        let mut rest = self.decoder.into_inner();
        io::copy(&mut rest, &mut io::sink())?;
        if rest.limit() > 0 {
            return Err(Error::eof("the LZMA data (shorter than its declared compressed size)", offset - rest.limit()));
        }
        Ok(rest.into_inner())
    }
}

fn lzma_error(e: io::Error, offset: u64) -> Error {
    match Error::from(e) {
        ours if ours.kind() != ErrorKind::Io && ours.kind() != ErrorKind::UnexpectedEof => ours,
        other if other.is_eof() => Error::eof("the LZMA data", offset),
        other => Error::file(ErrorKind::Lzma, offset, format!("invalid LZMA data: {}", other.message())),
    }
}

impl<R: Read> Read for LzmaReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.produced == self.header.uncompressed_size || buf.is_empty() {
            return Ok(0);
        }
        match self.decoder.read(buf) {
            Ok(0) => Err(Error::eof("the LZMA data", self.offset).into_io()),
            Ok(n) => {
                self.produced += n as u64;
                Ok(n)
            }
            Err(e) => Err(lzma_error(e, self.offset).into_io()),
        }
    }
}

/// Decodes a whole body from a slice into `out`. Bytes after the declared compressed size are
/// [`ErrorKind::TrailingBytes`].
pub(crate) fn decode_slice(input: &[u8], out: &mut Vec<u8>, limit: usize, offset: u64) -> Result<()> {
    let mut reader = LzmaReader::new(input, limit, offset)?;
    // Reserve what the input can plausibly back; the vector grows past it if the data does.
    let size = reader.header.uncompressed_size as usize;
    out.reserve(size.min(input.len().saturating_mul(16).saturating_add(1 << 16)));
    // Decode first and check the declared compressed size after, as the streaming reader must.
    reader.read_to_end(out)?;
    let declared = reader.header.compressed_size;
    let available = (input.len() - HEADER_LEN) as u64;
    if declared > available {
        return Err(Error::eof(
            "the LZMA data (shorter than its declared compressed size)",
            offset + input.len() as u64,
        ));
    }
    if available > declared {
        return Err(Error::file(
            ErrorKind::TrailingBytes,
            offset + HEADER_LEN as u64 + declared,
            format!("{} bytes after the LZMA data", available - declared),
        ));
    }
    Ok(())
}

/// Encodes a Resonite LZMA body with the engine's settings.
///
/// The header needs both sizes before the data, and a stream cannot seek back, so the writer
/// compresses into memory as data arrives and writes header and data on
/// [`finish`](LzmaWriter::finish). It holds the compressed bytes, never the uncompressed input.
pub struct LzmaWriter<W: Write> {
    encoder: lzma_rust2::LzmaWriter<Vec<u8>>,
    inner: W,
    written: u64,
}

/// The engine's encoder settings (7-Zip SDK: algorithm 2, `bt4`, 32 fast bytes, lc 3 lp 0 pb 2,
/// 2 MiB dictionary).
fn engine_options() -> LzmaOptions {
    LzmaOptions::new(DICT_SIZE, 3, 0, 2, EncodeMode::Normal, 32, MfType::Bt4, 0)
}

impl<W: Write> LzmaWriter<W> {
    /// A writer with the engine's settings.
    pub fn new(inner: W) -> Self {
        let encoder = lzma_rust2::LzmaWriter::new_no_header(Vec::new(), &engine_options(), false)
            .expect("the engine's LZMA options are valid");
        LzmaWriter { encoder, inner, written: 0 }
    }

    /// Finishes the stream (no end marker), writes the header and the data, and returns the inner
    /// writer.
    pub fn finish(mut self) -> io::Result<W> {
        let data = self.encoder.finish()?;
        let header = LzmaHeader {
            props: PROPS,
            dict_size: DICT_SIZE,
            uncompressed_size: self.written,
            compressed_size: data.len() as u64,
        };
        self.inner.write_all(&header.to_bytes())?;
        self.inner.write_all(&data)?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for LzmaWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.encoder.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    /// Nothing reaches the inner writer before [`finish`](LzmaWriter::finish).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Encodes `data` as a whole body appended to `out`.
pub(crate) fn encode_slice(data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0u8; HEADER_LEN]);
    let mut encoder = lzma_rust2::LzmaWriter::new_no_header(std::mem::take(out), &engine_options(), false)?;
    encoder.write_all(data)?;
    *out = encoder.finish()?;
    let header = LzmaHeader {
        props: PROPS,
        dict_size: DICT_SIZE,
        uncompressed_size: data.len() as u64,
        compressed_size: (out.len() - start - HEADER_LEN) as u64,
    };
    out[start..start + HEADER_LEN].copy_from_slice(&header.to_bytes());
    Ok(())
}
