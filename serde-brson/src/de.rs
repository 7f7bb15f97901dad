//! Deserialization: container → codec → validated BSON → serde.

use std::io::{BufReader, Read};

use serde_core::de::{Deserialize, DeserializeOwned, Visitor};

use crate::budget;
use crate::codec::{self, BrotliReader, Lz4NetReader, LzmaReader};
use crate::container::{self, Compression};
use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use crate::path::{Track, Trail};
use crate::payload::{self, Payload};
use crate::reader::{UnreadScope, Value};

/// A serde deserializer over one validated BSON document (a decompressed data-tree payload).
///
/// It reads the BSON bytes directly (this crate's own reader; the rare BSON types go through the
/// `bson` crate), borrowing `&str`/`&[u8]` where the target type asks for them. Construction validates the bytes
/// first (lengths, terminators, element types, nesting depth, no trailing bytes), so a hostile
/// document is rejected before serde recurses into it; there is nothing left to check at the end,
/// so this type needs no `end()`.
///
/// The typed [`model`](crate::model) counts the memory it builds against a budget of
/// [`Options::model_budget_ratio`] × the document's size + 2 MiB (the default ratio for
/// [`from_bson`](Deserializer::from_bson)); running out is [`ErrorKind::LimitExceeded`].
pub struct Deserializer<'de> {
    bytes: &'de [u8],
    /// The model budget, in bytes.
    budget: usize,
    /// The nesting limit the reader checks (`usize::MAX` for a payload validated already).
    max_depth: usize,
}

impl<'de> Deserializer<'de> {
    /// Validates `bson` (one document, at most `max_depth` deep) and returns a deserializer over it.
    pub fn from_bson(bson: &'de [u8], max_depth: usize) -> Result<Self> {
        payload::validate(bson, max_depth)?;
        Ok(Deserializer::from_validated(bson, Options::DEFAULT_MODEL_BUDGET_RATIO))
    }

    pub(crate) fn from_validated(bytes: &'de [u8], budget_ratio: usize) -> Self {
        Deserializer { bytes, budget: budget::limit_for(bytes.len(), budget_ratio), max_depth: usize::MAX }
    }

    /// A deserializer over bytes not validated yet: the reader checks them as it goes.
    fn checking(bytes: &'de [u8], options: &Options) -> Self {
        Deserializer {
            bytes,
            budget: budget::limit_for(bytes.len(), options.model_budget_ratio),
            max_depth: options.max_depth,
        }
    }

    fn raw(&self) -> Result<Value<'de>> {
        Value::root(self.bytes, self.max_depth)
    }
}

macro_rules! forward {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? visitor: V) -> Result<V::Value> {
                let scope = budget::ModelScope::enter(self.budget);
                let unread = UnreadScope::enter();
                let result = self.raw().and_then(|raw| serde_core::Deserializer::$method(raw, $($($arg,)*)? visitor));
                scope.finish(unread.finish(result))
            }
        )*
    };
}

impl<'de> serde_core::Deserializer<'de> for Deserializer<'de> {
    type Error = Error;

    crate::path::with_deserialize_methods!(forward);
    forward! { deserialize_struct(name: &'static str, fields: &'static [&'static str]); }

    fn is_human_readable(&self) -> bool {
        false
    }
}

// The decoding entry points of `Options` and `Payload`: here, with the work, so that the
// settings and the payload do not depend on the decoder.
impl Options {
    /// Decompresses and validates a file held in memory.
    pub fn decompress(&self, bytes: &[u8]) -> Result<Payload> {
        decompress_slice(bytes, self)
    }

    /// Decompresses and validates a file from a stream (which must end where the file ends).
    pub fn decompress_reader<R: Read>(&self, reader: R) -> Result<Payload> {
        decompress_reader(reader, self)
    }

    /// Decodes a file held in memory into `T`.
    ///
    /// One pass over the decompressed payload checks and decodes it together; when that fails, the
    /// payload is checked again the careful way ([`Payload`] validation, then
    /// [`Payload::deserialize`]) for an error that says where and why. The payload is decompressed
    /// once either way.
    pub fn from_slice<T: DeserializeOwned>(&self, bytes: &[u8]) -> Result<T> {
        match self.decode_in_one_pass(bytes) {
            Ok(value) => Ok(value),
            Err(refused) => self.explain_refusal(bytes, refused),
        }
    }

    /// [`from_slice`](Options::from_slice) in one pass. On any error, what the careful pass can
    /// take over: the container once it is resolved, and the decompressed payload if there is one,
    /// so that neither the header nor the body is read twice.
    fn decode_in_one_pass<T: DeserializeOwned>(&self, bytes: &[u8]) -> std::result::Result<T, Refused> {
        let Ok(container) = Container::resolve(bytes, self) else { return Err(Refused::Container) };
        let body = &bytes[container.body_offset..];
        let refused = |decompressed| Refused::Body { container, decompressed };
        if container.compression == Compression::None {
            if body.len() > self.max_decompressed {
                return Err(refused(None));
            }
            // Checked in place; the careful pass validates it in place too.
            return T::deserialize(Deserializer::checking(body, self)).map_err(|_| refused(None));
        }
        let data = container.decompress(body, self).map_err(|_| refused(None))?;
        match T::deserialize(Deserializer::checking(&data, self)) {
            Ok(value) => Ok(value),
            Err(_) => Err(refused(Some(data))),
        }
    }

    /// The careful pass after the one-pass decode refused `bytes`: the error, with where and why.
    ///
    /// Both passes accept exactly the same files (the fuzz target `brson_model` and the random
    /// differential `peer_random` hold them to it); a debug build asserts it here, so that a file
    /// the one-pass reader refuses by mistake cannot pass unnoticed as a slow success.
    #[cold]
    #[inline(never)]
    fn explain_refusal<T: DeserializeOwned>(&self, bytes: &[u8], refused: Refused) -> Result<T> {
        let payload = match refused {
            Refused::Container => decompress_slice(bytes, self),
            Refused::Body { container, decompressed } => container.payload(bytes, self, decompressed),
        };
        let result = payload.and_then(|payload| payload.deserialize());
        debug_assert!(
            result.is_err(),
            "serde-brson's one-pass decode refused a file that validation and Payload::deserialize accept"
        );
        result
    }

    /// Decodes a file from a stream into `T`.
    pub fn from_reader<R: Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        self.decompress_reader(reader)?.deserialize()
    }
}

impl Payload {
    /// A serde [`Deserializer`] over the payload.
    pub fn deserializer(&self) -> Deserializer<'_> {
        Deserializer::from_validated(self.as_bytes(), self.budget_ratio())
    }

    /// Deserializes the tree (or any part of it a type asks for); `&str` and `&[u8]` fields
    /// borrow from the payload.
    ///
    /// An error names the field path where it happened ([`Error::path`]): the decode runs a second
    /// time, tracking the path, only when it failed (a successful decode pays nothing for it).
    pub fn deserialize<'a, T: Deserialize<'a>>(&'a self) -> Result<T> {
        match T::deserialize(self.deserializer()) {
            Ok(value) => Ok(value),
            Err(e) => Err(self.locate::<T>(e)),
        }
    }

    /// Adds the field path to `e`, an error of decoding a `T`, by decoding again with the path tracked.
    #[cold]
    #[inline(never)]
    fn locate<'a, T: Deserialize<'a>>(&'a self, e: Error) -> Error {
        if !matches!(e.kind(), ErrorKind::Data | ErrorKind::Unsupported | ErrorKind::Bson | ErrorKind::LimitExceeded) {
            return e;
        }
        let trail = Trail::default();
        // It fails again at the same place (the payload is validated and the decode deterministic).
        let _ = T::deserialize(Track { de: self.deserializer(), trail: &trail });
        e.with_path(trail.render())
    }
}

/// Reads the container and decompresses a whole file held in memory.
pub(crate) fn decompress_slice(bytes: &[u8], options: &Options) -> Result<Payload> {
    Container::resolve(bytes, options)?.payload(bytes, options, None)
}

/// What the one-pass decode hands to the careful pass when it refuses a file.
enum Refused {
    /// The header could not be read or resolved (the careful pass reads it again for the error).
    Container,
    /// The body was refused; `decompressed` is the payload if it was decompressed.
    Body {
        /// The resolved container.
        container: Container,
        /// The decompressed payload, if decompression got that far.
        decompressed: Option<Vec<u8>>,
    },
}

/// A file's container, read and resolved against the options: its header (if any), the codec of
/// its body and where the body starts.
#[derive(Clone, Copy)]
struct Container {
    header: Option<container::Header>,
    compression: Compression,
    body_offset: usize,
}

impl Container {
    /// Reads the header of `bytes` (if any) and resolves the codec with the extension and options.
    fn resolve(bytes: &[u8], options: &Options) -> Result<Container> {
        let header = container::sniff(bytes)?;
        let compression = container::resolve(header, options.extension, options.allow_uncompressed)?;
        Ok(Container { header, compression, body_offset: header.map_or(0, |h| h.len) })
    }

    /// Decompresses `body` (the bytes after the header) within the options' limits.
    fn decompress(&self, body: &[u8], options: &Options) -> Result<Vec<u8>> {
        codec::decompress(
            self.compression,
            body,
            self.body_offset as u64,
            options.max_decompressed,
            options.max_chunk,
            options.threads,
        )
    }

    /// The validated payload of `bytes`, given the body decompressed already, if it was.
    fn payload(self, bytes: &[u8], options: &Options, decompressed: Option<Vec<u8>>) -> Result<Payload> {
        let Container { header, compression, body_offset } = self;
        let body = &bytes[body_offset..];
        if compression == Compression::None && body.len() <= options.max_decompressed {
            // Validated in place, so that a malformed (or lying) document costs no copy.
            payload::validate(body, options.max_depth)?;
            return Ok(Payload::from_validated(body.to_vec(), compression, header, options));
        }
        let data = match decompressed {
            Some(data) => Ok(data),
            None => self.decompress(body, options),
        };
        let payload = data.and_then(|data| Payload::new(data, compression, header, options));
        match payload {
            Err(e) if header.is_none() => Err(legacy_codec_hint(e, body, options)),
            result => result,
        }
    }
}

/// A headerless (legacy) file failed with the codec its extension chose: says so, and which codec its
/// bytes do decode with, if any (a file renamed to another extension).
#[cold]
#[inline(never)]
fn legacy_codec_hint(e: Error, body: &[u8], options: &Options) -> Error {
    let Some(ext) = options.extension else { return e };
    if !matches!(
        e.kind(),
        ErrorKind::Lz4 | ErrorKind::Lzma | ErrorKind::Brotli | ErrorKind::Bson | ErrorKind::UnexpectedEof
    ) {
        return e;
    }
    let decodes = |c: Compression| match c {
        Compression::None => payload::validate(body, options.max_depth).is_ok(),
        _ => codec::decompress(c, body, 0, options.max_decompressed, options.max_chunk, options.threads)
            .is_ok_and(|d| payload::validate(&d, options.max_depth).is_ok()),
    };
    let chosen = ext.compression();
    let found = [Compression::Brotli, Compression::Lzma, Compression::Lz4, Compression::None]
        .into_iter()
        .find(|&c| c != chosen && decodes(c));
    let hint = match found {
        Some(Compression::None) => format!(
            "the file has no FrDT header, so its extension .{} chose {chosen:?}, but it is uncompressed BSON",
            ext.as_str()
        ),
        Some(c) => format!(
            "the file has no FrDT header, so its extension .{} chose {chosen:?}, but its bytes decode as {c:?}: \
             a .{} file renamed? read it with that extension",
            ext.as_str(),
            extension_of(c)
        ),
        None => format!(
            "the file has no FrDT header, so its extension .{} chose {chosen:?}; if it is not a .{} file, give \
             its real extension",
            ext.as_str(),
            ext.as_str()
        ),
    };
    e.with_hint(hint)
}

/// The extension of a codec's legacy files.
fn extension_of(c: Compression) -> &'static str {
    match c {
        Compression::Brotli => "brson",
        Compression::Lzma => "7zbson",
        Compression::Lz4 => "lz4bson",
        Compression::None => "bson",
    }
}

/// Reads the container and decompresses a file from a stream, holding only the decompressed
/// payload in memory. The reader must end where the file ends.
pub(crate) fn decompress_reader<R: Read>(mut reader: R, options: &Options) -> Result<Payload> {
    let (header, prefix) = container::sniff_reader(&mut reader)?;
    let compression = container::resolve(header, options.extension, options.allow_uncompressed)?;
    let offset = header.map_or(0, |h| h.len) as u64;
    let body = std::io::Cursor::new(prefix).chain(reader);
    let limit = options.max_decompressed;
    let mut data = Vec::new();
    match compression {
        Compression::None => {
            codec::read_limited(&mut { body }, &mut data, limit, offset)?;
        }
        Compression::Lz4 => {
            let mut reader = Lz4NetReader::with_max_chunk(BufReader::new(body), options.max_chunk)
                .with_limit(limit)
                .with_base_offset(offset);
            reader.read_to_end(&mut data)?;
        }
        Compression::Lzma => {
            let mut reader = LzmaReader::new(body, limit, offset)?;
            let compressed = reader.header().compressed_size;
            reader.read_to_end(&mut data)?;
            let mut rest = reader.into_inner()?;
            let mut probe = [0u8; 1];
            if rest.read(&mut probe)? != 0 {
                return Err(Error::file(
                    ErrorKind::TrailingBytes,
                    offset + codec::lzma::HEADER_LEN as u64 + compressed,
                    "bytes after the LZMA data",
                ));
            }
        }
        Compression::Brotli => {
            let mut reader = BrotliReader::new(BufReader::new(body)).with_base_offset(offset);
            codec::read_limited(&mut reader, &mut data, limit, offset)?;
        }
    }
    Payload::new(data, compression, header, options)
}

/// Decodes a data-tree file (any kind, with or without a header if the options give an extension
/// hint) into `T`, with the default [`Options`].
///
/// The payload is decompressed into a buffer first (BSON needs its total length), so `T` cannot
/// borrow from `bytes`; to borrow `&str` from the payload, use [`decompress`](crate::decompress)
/// and [`Payload::deserialize`].
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    Options::new().from_slice(bytes)
}

/// Decodes a data-tree file from a stream into `T`, with the default [`Options`]. Only the
/// decompressed payload is held in memory; the stream must end where the file ends.
pub fn from_reader<R: Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Options::new().from_reader(reader)
}

/// Decompresses and validates a data-tree file held in memory, with the default [`Options`].
pub fn decompress(bytes: &[u8]) -> Result<Payload> {
    Options::new().decompress(bytes)
}
