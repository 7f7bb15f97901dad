#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod codec;
pub mod de;
pub mod dump;
mod error;
pub mod hash;
mod options;
mod schema;
mod schema_out;
pub mod ser;
mod types;
mod value;
pub mod xml;

use std::io::{Read, Write};

use serde_core::de::{Deserialize, DeserializeOwned};
use serde_core::ser::Serialize;

pub use de::Deserializer;
pub use error::{Error, ErrorKind, Result};
pub use options::{BIND_MAGIC, DEFAULT_MODEL_BUDGET, MODEL_BUDGET_BASE, MaskPredicate, Options, serializer_flags};
pub use schema::{ClassDef, ClassSchema, EnumDef, KiClass, PropertyDef, PropertySchema, TypeList, flags};
pub use ser::Serializer;
pub use types::{
    Bi, Bui, Color, Euler, Gid, Matrix3x3, PointFloat, PointInt, PointUChar, PointUInt, Quaternion, RectFloat, RectInt,
    S24, SizeInt, U24, Vec3, WString,
};
pub use value::{Object, Value, to_value};

use options::{Body, unframe};

impl Options {
    /// Encodes `value` (a struct named after its class, a [`Value`], or an enum of classes).
    pub fn to_vec<T: ?Sized + Serialize>(&self, value: &T, types: &TypeList) -> Result<Vec<u8>> {
        self.check()?;
        let mut ser = Serializer::new(types, *self);
        value.serialize(&mut ser)?;
        Ok(ser.into_bytes())
    }

    /// Encodes `value` into `writer`.
    pub fn to_writer<W: Write, T: ?Sized + Serialize>(&self, mut writer: W, value: &T, types: &TypeList) -> Result<()> {
        let bytes = self.to_vec(value, types)?;
        writer.write_all(&bytes)?;
        Ok(())
    }

    /// Decodes a `T`, borrowing strings and bytes from `bytes` where `T` asks for them (and the
    /// data is not compressed). Everything must be read: trailing data is an error.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8], types: &TypeList) -> Result<T> {
        self.check()?;
        let (body, flags) = unframe(bytes, self)?;
        let opts = Options { flags, ..*self };
        let stored = self.flags & serializer_flags::STATEFUL_FLAGS != 0;
        match body {
            Body::Borrowed(b) => Deserializer::decode_root(b, types, opts, stored),
            Body::Owned(v) => Deserializer::decode_root(v, types, opts, stored),
        }
    }

    /// Decodes a `T` from a reader (read to the end first).
    pub fn from_reader<R: Read, T: DeserializeOwned>(&self, mut reader: R, types: &TypeList) -> Result<T> {
        let mut buf = Vec::new();
        reader.read_to_end(&mut buf)?;
        self.from_slice(&buf, types)
    }
}

/// Encodes `value` with the default [`Options`] (shallow, flags 0, mask `0x18`).
pub fn to_vec<T: ?Sized + Serialize>(value: &T, types: &TypeList) -> Result<Vec<u8>> {
    Options::new().to_vec(value, types)
}

/// Encodes `value` into `out` with the default [`Options`]; returns the length written. No heap
/// allocation after the first call on a thread ([`Options::to_slice`]).
pub fn to_slice<T: ?Sized + Serialize>(value: &T, types: &TypeList, out: &mut [u8]) -> Result<usize> {
    Options::new().to_slice(value, types, out)
}

/// The length of [`to_vec`]'s output with the default [`Options`] ([`Options::serialized_size`]).
pub fn serialized_size<T: ?Sized + Serialize>(value: &T, types: &TypeList) -> Result<usize> {
    Options::new().serialized_size(value, types)
}

/// Encodes `value` into `writer` with the default [`Options`].
pub fn to_writer<W: Write, T: ?Sized + Serialize>(writer: W, value: &T, types: &TypeList) -> Result<()> {
    Options::new().to_writer(writer, value, types)
}

/// Decodes a `T` with the default [`Options`], borrowing from `bytes`.
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8], types: &TypeList) -> Result<T> {
    Options::new().from_slice(bytes, types)
}

/// Decodes a `T` from a reader with the default [`Options`].
pub fn from_reader<R: Read, T: DeserializeOwned>(reader: R, types: &TypeList) -> Result<T> {
    Options::new().from_reader(reader, types)
}

/// Decodes a game file (`BINd` magic, deep mode, stored flags): [`Options::game_file`].
pub fn from_bind_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8], types: &TypeList) -> Result<T> {
    Options::game_file().from_slice(bytes, types)
}

/// Encodes a game file (`BINd` magic, deep mode, flags stored): [`Options::game_file`].
pub fn to_bind_vec<T: ?Sized + Serialize>(value: &T, types: &TypeList) -> Result<Vec<u8>> {
    Options::game_file().to_vec(value, types)
}
