//! Serialization: serde → BSON (serde-brson's own [`writer`], which leaves the rare shapes to the
//! `bson` crate's raw serializer) → codec → container.

use std::io::Write;

use serde_core::Serialize;

use crate::codec::{self, BrotliWriter, LzmaWriter};
use crate::container::{Compression, Header};
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::payload;
use crate::writer;

/// Serializes `value` (a struct or map: the root of a data tree is a BSON document) to BSON.
pub(crate) fn to_bson<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    if writer::write(value, out).is_err() {
        // Something the writer leaves to `bson`: it writes the whole value, with its bytes and
        // its errors.
        out.truncate(start);
        bson::serialize_to_buffer(&value, out).map_err(Error::from)?;
    }
    if out.len() - start < 5 {
        out.truncate(start);
        return Err(Error::new(ErrorKind::Unsupported, "the root of a data tree must be a struct or a map"));
    }
    Ok(())
}

fn check_kind(compression: Compression, options: &Options) -> Result<()> {
    if compression == Compression::None && !options.allow_uncompressed {
        return Err(Error::new(
            ErrorKind::UncompressedNotAllowed,
            "the engine never writes compression kind 0; opt in with Options::allow_uncompressed",
        ));
    }
    Ok(())
}

/// Writes a whole file into `out`: the header, then `bson` compressed.
pub(crate) fn encode_bson(bson: &[u8], compression: Compression, options: &Options, out: &mut Vec<u8>) -> Result<()> {
    check_kind(compression, options)?;
    Header::new(compression).write_to(&mut *out)?;
    codec::compress(compression, bson, out, options.lz4_chunk_size, options.threads)?;
    Ok(())
}

pub(crate) fn to_vec_with<T: Serialize + ?Sized>(
    value: &T,
    compression: Compression,
    options: &Options,
) -> Result<Vec<u8>> {
    check_kind(compression, options)?;
    let mut bson = Vec::new();
    to_bson(value, &mut bson)?;
    let mut out = Vec::with_capacity(bson.len() / 2 + 64);
    encode_bson(&bson, compression, options, &mut out)?;
    Ok(out)
}

pub(crate) fn to_writer_with<W: Write, T: Serialize + ?Sized>(
    mut writer: W,
    value: &T,
    compression: Compression,
    options: &Options,
) -> Result<()> {
    check_kind(compression, options)?;
    let mut bson = Vec::new();
    to_bson(value, &mut bson)?;
    Header::new(compression).write_to(&mut writer)?;
    match compression {
        Compression::None => writer.write_all(&bson)?,
        Compression::Lz4 => {
            codec::lz4net::encode_to_writer(&bson, &mut writer, options.lz4_chunk_size, options.threads)?
        }
        Compression::Lzma => {
            let mut w = LzmaWriter::new(writer);
            w.write_all(&bson)?;
            w.finish()?;
        }
        Compression::Brotli => {
            let mut w = BrotliWriter::new(writer);
            w.write_all(&bson)?;
            w.finish()?;
        }
    }
    Ok(())
}

// The encoding entry points of `Options`: here, with the work, so that the settings do not
// depend on the encoder.
impl Options {
    /// Encodes `value` as a file (header + compressed BSON).
    pub fn to_vec<T: Serialize + ?Sized>(&self, value: &T, compression: Compression) -> Result<Vec<u8>> {
        to_vec_with(value, compression, self)
    }

    /// Encodes `value` as a file into `writer`.
    pub fn to_writer<W: Write, T: Serialize + ?Sized>(
        &self,
        writer: W,
        value: &T,
        compression: Compression,
    ) -> Result<()> {
        to_writer_with(writer, value, compression, self)
    }

    /// Wraps BSON bytes that are already encoded (e.g.
    /// [`Payload::as_bytes`](crate::Payload::as_bytes)) in a file.
    pub fn compress(&self, bson: &[u8], compression: Compression) -> Result<Vec<u8>> {
        payload::validate(bson, self.max_depth)?;
        let mut out = Vec::with_capacity(bson.len() / 2 + 64);
        encode_bson(bson, compression, self, &mut out)?;
        Ok(out)
    }
}

/// Encodes `value` as a data-tree file: the `FrDT` header (version 0) and the BSON document
/// compressed with `compression`, using the engine's codec settings.
///
/// `value` must serialize as a struct or map (the root of a tree is a BSON document).
pub fn to_vec<T: Serialize + ?Sized>(value: &T, compression: Compression) -> Result<Vec<u8>> {
    to_vec_with(value, compression, &Options::new())
}

/// Encodes `value` as a data-tree file into `writer` (see [`to_vec`]). The codecs stream into the
/// writer; the LZMA body is written at the end, because its header needs the compressed size.
pub fn to_writer<W: Write, T: Serialize + ?Sized>(writer: W, value: &T, compression: Compression) -> Result<()> {
    to_writer_with(writer, value, compression, &Options::new())
}
