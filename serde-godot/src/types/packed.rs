//! The packed arrays: contiguous arrays of one element type, written without per-element headers.
//!
//! With serde-godot they are written and read in bulk: a `PackedVector3Array` of a million vectors
//! is one header, one count and a block of little-endian floats. With other formats they are
//! plain sequences. Their `Deserialize` also accepts a byte string holding the packed
//! little-endian elements (the Godot payload layout), which is how serde-godot hands them over.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use serde_core::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde_core::ser::{Serialize, Serializer};

use crate::magic;

use super::{Color, Vector2, Vector3, Vector4};

/// `PackedByteArray` (Godot 3 `PoolByteArray`). Serialized with `serialize_bytes`, so with other
/// formats it is whatever they use for bytes. (Plain `Vec<u8>` is an Array of ints in Godot; use
/// this type or `serde_bytes` to get a PackedByteArray.)
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PackedByteArray(pub Vec<u8>);

impl Serialize for PackedByteArray {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for PackedByteArray {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PackedByteArray;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a PackedByteArray")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<PackedByteArray, E> {
                Ok(PackedByteArray(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<PackedByteArray, E> {
                Ok(PackedByteArray(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PackedByteArray, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(PackedByteArray(out))
            }
        }
        deserializer.deserialize_byte_buf(V)
    }
}

/// An element type of a packed array with a fixed little-endian layout.
pub(crate) trait PackedElement: Sized {
    /// Bytes per element.
    const SIZE: usize;
    /// Decodes one element from exactly `SIZE` bytes.
    fn from_le(bytes: &[u8]) -> Self;
}

#[inline(always)]
fn f32_at(b: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

macro_rules! packed_element {
    ($($ty:ty, $size:literal, |$b:ident| $decode:expr;)*) => {$(
        impl PackedElement for $ty {
            const SIZE: usize = $size;
            #[inline(always)]
            fn from_le($b: &[u8]) -> Self {
                $decode
            }
        }
    )*};
}

packed_element! {
    i32, 4, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    i64, 8, |b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    f32, 4, |b| f32_at(b, 0);
    f64, 8, |b| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    Vector2, 8, |b| Vector2::new(f32_at(b, 0), f32_at(b, 4));
    Vector3, 12, |b| Vector3::new(f32_at(b, 0), f32_at(b, 4), f32_at(b, 8));
    Vector4, 16, |b| Vector4::new(f32_at(b, 0), f32_at(b, 4), f32_at(b, 8), f32_at(b, 12));
    Color, 16, |b| Color::new(f32_at(b, 0), f32_at(b, 4), f32_at(b, 8), f32_at(b, 12));
}

/// Decodes a block of packed little-endian elements (the caller checked the length).
#[inline]
pub(crate) fn packed_vec<T: PackedElement>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::from_le).collect()
}

/// Decodes a block of packed little-endian elements, checking the length.
fn decode_packed<T: PackedElement, E: de::Error>(bytes: &[u8]) -> Result<Vec<T>, E> {
    if bytes.len() % T::SIZE != 0 {
        return Err(E::invalid_length(bytes.len(), &"a whole number of packed elements"));
    }
    Ok(packed_vec(bytes))
}

/// Narrows a block of little-endian f64s (a 64-bit packed vector array from a double-precision
/// build) to little-endian f32s, as a standard-precision engine reads it.
pub(crate) fn narrow_reals(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() / 2);
    for chunk in bytes.chunks_exact(8) {
        let v = f64::from_le_bytes(chunk.try_into().expect("8 bytes")) as f32;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Visitor for a packed array of `T`: a newtype around a sequence, a sequence, or a byte string
/// of packed elements.
struct PackedVisitor<T>(&'static str, PhantomData<T>);

impl<'de, T: Deserialize<'de> + PackedElement> Visitor<'de> for PackedVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {}", self.0)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let cap = seq.size_hint().unwrap_or(0).min((1 << 20) / T::SIZE);
        let mut out = Vec::with_capacity(cap);
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(out)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<T>, E> {
        decode_packed(v)
    }
}

macro_rules! packed_array {
    ($($(#[$meta:meta])* $name:ident($elem:ty), $magic:path, derive($($derive:ident),*);)*) => {$(
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, $($derive),*)]
        pub struct $name(pub Vec<$elem>);

        impl Deref for $name {
            type Target = Vec<$elem>;
            fn deref(&self) -> &Vec<$elem> {
                &self.0
            }
        }

        impl DerefMut for $name {
            fn deref_mut(&mut self) -> &mut Vec<$elem> {
                &mut self.0
            }
        }

        impl From<Vec<$elem>> for $name {
            fn from(v: Vec<$elem>) -> Self {
                $name(v)
            }
        }

        impl From<$name> for Vec<$elem> {
            fn from(v: $name) -> Self {
                v.0
            }
        }

        impl FromIterator<$elem> for $name {
            fn from_iter<I: IntoIterator<Item = $elem>>(iter: I) -> Self {
                $name(iter.into_iter().collect())
            }
        }

        impl IntoIterator for $name {
            type Item = $elem;
            type IntoIter = std::vec::IntoIter<$elem>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.into_iter()
            }
        }

        impl<'a> IntoIterator for &'a $name {
            type Item = &'a $elem;
            type IntoIter = std::slice::Iter<'a, $elem>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_newtype_struct($magic, &self.0)
            }
        }
    )*};
}

packed_array! {
    /// `PackedInt32Array` (Godot 3 `PoolIntArray`).
    PackedInt32Array(i32), magic::PACKED_INT32_ARRAY, derive(Eq, Hash);
    /// `PackedInt64Array` (Godot 4).
    PackedInt64Array(i64), magic::PACKED_INT64_ARRAY, derive(Eq, Hash);
    /// `PackedFloat32Array` (Godot 3 `PoolRealArray`).
    PackedFloat32Array(f32), magic::PACKED_FLOAT32_ARRAY, derive();
    /// `PackedFloat64Array` (Godot 4).
    PackedFloat64Array(f64), magic::PACKED_FLOAT64_ARRAY, derive();
    /// `PackedStringArray` (Godot 3 `PoolStringArray`). Each element is written with a trailing
    /// NUL counted in its length, like the engine; decoding accepts elements with or without it.
    PackedStringArray(String), magic::PACKED_STRING_ARRAY, derive(Eq, Hash);
    /// `PackedVector2Array` (Godot 3 `PoolVector2Array`).
    PackedVector2Array(Vector2), magic::PACKED_VECTOR2_ARRAY, derive();
    /// `PackedVector3Array` (Godot 3 `PoolVector3Array`) — the bulk path for meshes and point
    /// clouds.
    PackedVector3Array(Vector3), magic::PACKED_VECTOR3_ARRAY, derive();
    /// `PackedColorArray` (Godot 3 `PoolColorArray`). Always f32.
    PackedColorArray(Color), magic::PACKED_COLOR_ARRAY, derive();
    /// `PackedVector4Array` (Godot 4.3+).
    PackedVector4Array(Vector4), magic::PACKED_VECTOR4_ARRAY, derive();
}

macro_rules! packed_deserialize {
    ($($name:ident, $magic:path, $what:literal;)*) => {$(
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_newtype_struct($magic, PackedVisitor($what, PhantomData)).map($name)
            }
        }
    )*};
}

packed_deserialize! {
    PackedInt32Array, magic::PACKED_INT32_ARRAY, "PackedInt32Array";
    PackedInt64Array, magic::PACKED_INT64_ARRAY, "PackedInt64Array";
    PackedFloat32Array, magic::PACKED_FLOAT32_ARRAY, "PackedFloat32Array";
    PackedFloat64Array, magic::PACKED_FLOAT64_ARRAY, "PackedFloat64Array";
    PackedVector2Array, magic::PACKED_VECTOR2_ARRAY, "PackedVector2Array";
    PackedVector3Array, magic::PACKED_VECTOR3_ARRAY, "PackedVector3Array";
    PackedColorArray, magic::PACKED_COLOR_ARRAY, "PackedColorArray";
    PackedVector4Array, magic::PACKED_VECTOR4_ARRAY, "PackedVector4Array";
}

impl<'de> Deserialize<'de> for PackedStringArray {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PackedStringArray;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a PackedStringArray")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<PackedStringArray, D::Error> {
                Vec::deserialize(d).map(PackedStringArray)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PackedStringArray, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(s) = seq.next_element()? {
                    out.push(s);
                }
                Ok(PackedStringArray(out))
            }
        }
        deserializer.deserialize_newtype_struct(magic::PACKED_STRING_ARRAY, V)
    }
}

impl Deref for PackedByteArray {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl DerefMut for PackedByteArray {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl From<Vec<u8>> for PackedByteArray {
    fn from(v: Vec<u8>) -> Self {
        PackedByteArray(v)
    }
}

impl From<PackedByteArray> for Vec<u8> {
    fn from(v: PackedByteArray) -> Self {
        v.0
    }
}
