#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod bincode;
pub mod cfg;
pub mod de;
mod decode;
pub mod dump;
mod error;
pub mod framing;
pub mod json;
mod magic;
mod options;
pub mod ser;
pub mod text;
mod types;
mod variant;
mod wire;

pub use de::Deserializer;
pub use error::{Error, ErrorKind, Result};
pub use options::{Options, StructForm, UnitVariants, Version};
pub use ser::Serializer;
pub use types::{
    Aabb, Array, Basis, Callable, Color, ContainerType, Dictionary, ElementType, NodePath, ObjectId, PackedByteArray,
    PackedColorArray, PackedFloat32Array, PackedFloat64Array, PackedInt32Array, PackedInt64Array, PackedStringArray,
    PackedVector2Array, PackedVector3Array, PackedVector4Array, Plane, Projection, Quaternion, Rect2, Rect2i, Rid,
    Signal, StringName, Transform2D, Transform3D, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i,
};
pub use variant::{FullObject, Object, Variant};
pub use wire::VariantType;

use std::io;

use serde_core::{Deserialize, Serialize, de::DeserializeOwned};

/// Encodes `value` with the default [`Options`] (Godot 4): what GDScript's `bytes_to_var()`
/// reads.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    Options::new().to_vec(value)
}

/// Encodes `value` with the default [`Options`] at the start of `buf`, without allocating;
/// returns the number of bytes written (see [`Options::to_slice`]).
pub fn to_slice<T: Serialize + ?Sized>(value: &T, buf: &mut [u8]) -> Result<usize> {
    Options::new().to_slice(value, buf)
}

/// The encoded size of `value` with the default [`Options`], computed without allocating.
pub fn serialized_size<T: Serialize + ?Sized>(value: &T) -> Result<usize> {
    Options::new().serialized_size(value)
}

/// Encodes `value` with the default [`Options`] into `writer` (one `write_all`).
pub fn to_writer<W: io::Write, T: Serialize + ?Sized>(writer: W, value: &T) -> Result<()> {
    Options::new().to_writer(writer, value)
}

/// Decodes a `T` from exactly `bytes` (what `var_to_bytes()` produced) with the default
/// [`Options`], borrowing `&str` and `&[u8]` from the input. Trailing bytes are an error. (See
/// [`Options::from_slice`]: `T`'s `Deserialize` may run more than once.)
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Options::new().from_slice(bytes)
}

/// Reads `reader` to its end (at most 8 MiB, see [`Options::max_size`]) and decodes a `T` with
/// the default [`Options`].
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Options::new().from_reader(reader)
}
