#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod de;
mod error;
pub mod fbs;
mod layout;
mod limits;
mod markers;
mod names;
mod options;
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

/// The decoding entry points (here, above both the deserializer and the schema tracer they may use).
impl Options {
    /// Decodes a `T` from a whole buffer, borrowing `&str`/`&[u8]` from it. Every object is verified
    /// before serde sees it; see the crate docs.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        let mut de = Deserializer::with_options(bytes, self);
        match T::deserialize(&mut de) {
            Ok(value) => {
                de.end()?;
                Ok(value)
            }
            Err(e) if e.kind() == ErrorKind::AmbiguousStructLayout => {
                // A nested struct whose alignment could not be known up front: learn every struct layout of
                // `T` by tracing it once, then decode again with them.
                let layouts = schema::trace_layouts::<T>(self)?;
                let mut de = Deserializer::with_options(bytes, self);
                de.set_layouts(layouts);
                let value = T::deserialize(&mut de)?;
                de.end()?;
                Ok(value)
            }
            Err(e) => Err(e),
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
