//! The three codecs as streaming [`Read`]/[`Write`](std::io::Write) adapters, separate from the
//! container and the serde layer.
//!
//! | kind | reader | writer |
//! |---|---|---|
//! | 1 LZ4 (lz4net chunk stream) | [`Lz4NetReader`] | [`Lz4NetWriter`] |
//! | 2 LZMA (Resonite 5+8+8) | [`LzmaReader`] | [`LzmaWriter`] |
//! | 3 Brotli (q9, lgwin 16) | [`BrotliReader`] | [`BrotliWriter`] |
//!
//! The adapters carry this crate's [`Error`] inside the [`io::Error`]s they
//! return; `serde_brson::Error::from(io_error)` recovers its kind and file offset.

pub mod brotli;
pub mod lz4net;
pub mod lzma;

use std::io::{self, Read};

pub use self::brotli::{BrotliReader, BrotliWriter};
pub use self::lz4net::{Lz4NetReader, Lz4NetWriter};
pub use self::lzma::{LzmaHeader, LzmaReader, LzmaWriter};

use crate::container::Compression;
use crate::error::{Error, Result};

/// Reads `reader` to its end into `out`, failing with [`ErrorKind::LimitExceeded`](crate::ErrorKind)
/// as soon as more than `limit` bytes come out (the excess is never buffered).
pub(crate) fn read_limited(reader: &mut impl Read, out: &mut Vec<u8>, limit: usize, offset: u64) -> Result<()> {
    let start = out.len();
    let mut limited = reader.take(limit as u64);
    limited.read_to_end(out)?;
    if out.len() - start == limit {
        let mut probe = [0u8; 1];
        if limited.into_inner().read(&mut probe)? != 0 {
            out.truncate(start);
            return Err(Error::limit("the decompressed data", limit, offset));
        }
    }
    Ok(())
}

/// Decompresses a whole body (everything after the header) into a new vector (lz4net on up to
/// `threads` threads).
pub(crate) fn decompress(
    compression: Compression,
    body: &[u8],
    offset: u64,
    max_decompressed: usize,
    max_chunk: usize,
    threads: usize,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    match compression {
        Compression::None => {
            if body.len() > max_decompressed {
                return Err(Error::limit("the uncompressed body", max_decompressed, offset));
            }
            out.extend_from_slice(body);
        }
        Compression::Lz4 => lz4net::decode_slice(body, &mut out, max_chunk, max_decompressed, offset, threads)?,
        Compression::Lzma => lzma::decode_slice(body, &mut out, max_decompressed, offset)?,
        Compression::Brotli => brotli::decode_slice(body, &mut out, max_decompressed, offset)?,
    }
    Ok(out)
}

/// Compresses `data` into a body appended to `out` (lz4net on up to `threads` threads).
pub(crate) fn compress(
    compression: Compression,
    data: &[u8],
    out: &mut Vec<u8>,
    lz4_chunk: usize,
    threads: usize,
) -> io::Result<()> {
    match compression {
        Compression::None => out.extend_from_slice(data),
        Compression::Lz4 => lz4net::encode_slice(data, out, lz4_chunk, threads),
        Compression::Lzma => lzma::encode_slice(data, out)?,
        Compression::Brotli => brotli::encode_slice(data, out)?,
    }
    Ok(())
}
