#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod de;
pub mod dump;
mod error;
pub mod fbs;
mod layout;
mod limits;
mod markers;
mod names;
mod options;
mod plan;
pub mod schema;
pub mod ser;

use std::io::{Read, Write};

use serde_core::{Deserialize, Serialize, de::DeserializeOwned};

use crate::limits::MAX_BUFFER;

pub use crate::de::Deserializer;
pub use crate::error::{Error, ErrorKind, Result};
pub use crate::markers::{Deprecated, UnionType};
pub use crate::options::Options;
pub use crate::schema::Schema;
pub use crate::ser::Serializer;

/// Encodes `value` (a struct with named fields: the root table) into a new FlatBuffer with the default
/// [`Options`].
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Weapon { name: String, damage: i16 }
///
/// let bytes = serde_flatbuf_lite::to_vec(&Weapon { name: "Axe".into(), damage: 5 })?;
/// assert_eq!(bytes.len(), 32);
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    Options::default().to_vec(value)
}

/// Encodes `value` into `out` with the default [`Options`] and returns the length written. No heap
/// allocation after a warm-up call on this thread ([`Options::to_slice`]).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Ping { seq: u32 }
///
/// let mut out = [0u8; 64];
/// let n = serde_flatbuf_lite::to_slice(&Ping { seq: 7 }, &mut out)?;
/// assert_eq!(n, serde_flatbuf_lite::serialized_size(&Ping { seq: 7 })?);
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
pub fn to_slice<T: ?Sized + Serialize>(value: &T, out: &mut [u8]) -> Result<usize> {
    Options::default().to_slice(value, out)
}

/// The length of [`to_vec`]'s output with the default [`Options`] ([`Options::serialized_size`]).
pub fn serialized_size<T: ?Sized + Serialize>(value: &T) -> Result<usize> {
    Options::default().serialized_size(value)
}

/// Encodes `value` into a FlatBuffer and writes it to `writer`.
pub fn to_writer<W: Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    Options::default().to_writer(writer, value)
}

/// Decodes a `T` from a FlatBuffer, borrowing `&str` and `&[u8]` fields from `bytes` (zero-copy).
///
/// A field whose slot is absent is serde's missing field: buffers from flatc's builders leave out
/// scalars equal to their schema default, so give such fields `#[serde(default)]` (or `Option<T>`,
/// or a declared `name=N` default); without one, decoding fails with ``missing field `name` ``.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Weapon<'a> { name: &'a str, damage: i16 }
///
/// let bytes = serde_flatbuf_lite::to_vec(&Weapon { name: "Axe", damage: 5 })?;
/// let weapon: Weapon<'_> = serde_flatbuf_lite::from_slice(&bytes)?;
/// assert_eq!(weapon, Weapon { name: "Axe", damage: 5 });
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Options::default().from_slice(bytes)
}

/// Reads a whole FlatBuffer from `reader` (to its end, at most 2 GiB) and decodes it.
pub fn from_reader<R: Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Options::default().from_reader(reader)
}

/// Learns the layout of `T` for encoding: which fields of its tables are unions without a
/// [`UnionType`] placeholder (enums carrying data), by tracing `T`'s `Deserialize` implementation once
/// (like [`Schema::trace`]). Decoding a `T` learns it too.
///
/// A union takes two slots, its type and its value, so every later field moves by one. serde hands a
/// serializer nothing for an absent (`None`) field, so the slots of a type with such a union cannot be
/// known from a value: encoding (which needs only `T: Serialize`) uses what was learned for `T`, and
/// fails when it meets a union field of a type it has not learned. Types whose unions all have a
/// `UnionType` placeholder need nothing.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Sword { damage: i16 }
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// enum Equipment { Sword(Sword) }                      // union Equipment { Sword }
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Hero { name: String, equipped: Option<Equipment>, level: u8 }  // slots 0, 1 + 2, 3
///
/// serde_flatbuf_lite::learn::<Hero>()?;
/// let hero = Hero { name: "Ayla".into(), equipped: None, level: 3 };
/// let bytes = serde_flatbuf_lite::to_vec(&hero)?;
/// assert_eq!(serde_flatbuf_lite::from_slice::<Hero>(&bytes)?, hero);
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
pub fn learn<'de, T: Deserialize<'de>>() -> Result<()> {
    Options::default().learn::<T>()
}

/// The decoding entry points (here, above both the deserializer and the schema tracer they may use).
impl Options {
    /// [`learn`]s `T`'s layout with these options (their inline structs).
    pub fn learn<'de, T: Deserialize<'de>>(&self) -> Result<()> {
        schema::learn_plan::<T>(self)
    }

    /// Decodes a `T` from a whole buffer, borrowing `&str`/`&[u8]` from it. Every object is verified
    /// before serde sees it; see the crate docs.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        let plan = schema::plan_of::<T>(self);
        let mut de = Deserializer::with_options(bytes, self);
        de.plan = plan;
        de.in_order = plan::in_order::<T>();
        let mut result = T::deserialize(&mut de);
        if de.in_order_failed {
            // A table read in field order met what only the map path decodes as before (see
            // `de/in_order.rs`): decode again without in-order reads, once.
            de = Deserializer::with_options(bytes, self);
            de.plan = plan;
            result = T::deserialize(&mut de);
            if result.is_ok() {
                plan::map_only::<T>();
            }
        }
        match result {
            Ok(value) => {
                de.end()?;
                Ok(value)
            }
            Err(e) if e.kind() == ErrorKind::AmbiguousStructLayout => {
                // A nested struct whose alignment could not be known up front: learn every struct layout of
                // `T` by tracing it once, then decode again with them.
                let layouts = schema::trace_layouts::<T>(self)?;
                let mut de = Deserializer::with_options(bytes, self);
                de.plan = plan;
                de.set_layouts(layouts);
                let value = T::deserialize(&mut de).map_err(|e| root_hint::<T>(e, bytes, self))?;
                de.end()?;
                Ok(value)
            }
            Err(e) => Err(root_hint::<T>(e, bytes, self)),
        }
    }

    /// Reads one buffer from `reader` and decodes it. With [`size_prefixed`](Self::size_prefixed) exactly one
    /// size-prefixed buffer is read (so a stream of them can be read one by one); otherwise the reader is
    /// read to its end. At most 2 GiB are read.
    pub fn from_reader<R: Read, T: DeserializeOwned>(&self, mut reader: R) -> Result<T> {
        let mut bytes = Vec::new();
        if self.size_prefixed {
            let mut prefix = [0u8; 4];
            reader.read_exact(&mut prefix)?;
            let len = u32::from_le_bytes(prefix) as usize;
            if len > MAX_BUFFER - 4 {
                return Err(Error::at(ErrorKind::BufferTooLarge, 0, format!("size prefix {len}")));
            }
            bytes.extend_from_slice(&prefix);
            let read = reader.by_ref().take(len as u64).read_to_end(&mut bytes)?;
            if read != len {
                return Err(Error::at(
                    ErrorKind::SizePrefixMismatch,
                    0,
                    format!("size prefix says {len} bytes, the reader had {read}"),
                ));
            }
        } else {
            reader.by_ref().take(MAX_BUFFER as u64 + 1).read_to_end(&mut bytes)?;
            if bytes.len() > MAX_BUFFER {
                return Err(Error::new(ErrorKind::BufferTooLarge, "reader holds more than 2 GiB"));
            }
        }
        self.from_slice(&bytes)
    }
}

/// Adds a hint to a decoding error where the buffer shows its likely cause: a file identifier other than the
/// expected one, or one that names a schema while none was expected (a buffer of another root type), or a
/// size prefix read as the root offset.
#[cold]
#[inline(never)]
fn root_hint<T>(e: Error, bytes: &[u8], opts: &Options) -> Error {
    let root = std::any::type_name::<T>();
    let base = if opts.size_prefixed { 4 } else { 0 };
    let ident = bytes.get(base + 4..base + 8).filter(|b| b.iter().all(u8::is_ascii_alphanumeric));
    let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let hint = if e.kind() == ErrorKind::IdentifierMismatch {
        format!("the buffer's root type is probably not `{root}` (its schema's file_identifier differs)")
    } else if e.kind() == ErrorKind::Io || e.kind() == ErrorKind::Unsupported {
        return e;
    } else if !opts.size_prefixed
        && bytes.len() >= 8
        && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize == bytes.len() - 4
    {
        "the buffer looks size-prefixed (its first 4 bytes are the length of the rest): read it with \
         Options::size_prefixed(true)"
            .to_owned()
    } else if let (None, Some(ident)) = (opts.file_identifier, ident) {
        format!(
            "the buffer carries the file identifier {:?}: if that is not the schema of `{root}`, it holds another \
             root type (set Options::file_identifier to check it before decoding)",
            shown(ident)
        )
    } else {
        return e;
    };
    e.with_hint(hint)
}
