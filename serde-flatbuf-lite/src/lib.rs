#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod de;
mod error;
mod layout;
mod markers;
mod options;
pub mod schema;
pub mod ser;

use std::io::{Read, Write};

use serde_core::{Deserialize, Serialize, de::DeserializeOwned};

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
