//! Rust types for what serde's data model cannot say by itself: the KI leaf structs (`Color`,
//! `Vec3`, …) and the sized integers and strings (`Gid`, `WString`, `Bui<N>`, `U24`, …).
//!
//! With a type list they are optional (the property's type decides the encoding, so a plain `u64`
//! works for a `gid`), but they make static schemas work without types: a `Gid` field is a `gid`
//! and hashes as one. Other serde formats see them as plain structs and numbers (`Color` is
//! `{"r", "g", "b", "a"}` in JSON, like katsuba's output).

use std::fmt;
use std::marker::PhantomData;

use serde_core::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{Serialize, SerializeStruct, Serializer};

use crate::codec::Leaf;
#[cfg(test)]
use crate::codec::Prim;
use crate::schema::Kind;

/// Prefix of the names this crate's types give serde, so the serializer can recognise them.
pub(crate) const MARKER: &str = "$kiprop::";

/// The kind and exact C++ type string behind a marker name.
pub(crate) fn marker_kind(name: &str) -> Option<(Kind, &'static str)> {
    let rest = name.strip_prefix(MARKER)?;
    if let Some(leaf) = Leaf::ALL.iter().find(|l| &l.type_name()[6..] == rest) {
        return Some((Kind::Leaf(*leaf), leaf.type_name()));
    }
    crate::schema::AUTO_TYPES.iter().find(|(t, _)| *t == rest).map(|(t, p)| (Kind::Prim(*p), *t))
}

/// A small code for the exact type string of a marker (0 = none): `AUTO_TYPES` index + 1, or
/// 64 + the leaf's index.
pub(crate) fn auto_type_code(name: &'static str) -> u8 {
    if let Some(i) = crate::schema::AUTO_TYPES.iter().position(|(t, _)| *t == name) {
        return i as u8 + 1;
    }
    Leaf::ALL.iter().position(|l| l.type_name() == name).map_or(0, |i| 64 + i as u8)
}

/// The type string behind [`auto_type_code`].
#[inline]
pub(crate) fn auto_type_name(code: u8) -> Option<&'static str> {
    match code {
        0 => None,
        64.. => Leaf::ALL.get(usize::from(code - 64)).map(|l| l.type_name()),
        _ => crate::schema::AUTO_TYPES.get(usize::from(code - 1)).map(|(t, _)| *t),
    }
}

fn ser_fields<S: Serializer, T: Serialize>(
    s: S,
    name: &'static str,
    fields: &[&'static str],
    values: &[&T],
) -> Result<S::Ok, S::Error> {
    let mut st = s.serialize_struct(name, fields.len())?;
    for (f, v) in fields.iter().zip(values) {
        st.serialize_field(f, v)?;
    }
    st.end()
}

struct FieldsVisitor<T, const N: usize> {
    name: &'static str,
    fields: [&'static str; N],
    _t: PhantomData<T>,
}

impl<'de, T: Deserialize<'de> + Copy + Default, const N: usize> Visitor<'de> for FieldsVisitor<T, N> {
    type Value = [T; N];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} with fields {:?}", &self.name[MARKER.len()..], self.fields)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
        let mut out = [T::default(); N];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        Ok(out)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<[T; N], A::Error> {
        let mut out = [T::default(); N];
        let mut seen = [false; N];
        while let Some(key) = map.next_key::<KeyName>()? {
            match self.fields.iter().position(|f| *f == key.0) {
                Some(i) => {
                    out[i] = map.next_value()?;
                    seen[i] = true;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(de::Error::missing_field(self.fields[i]));
        }
        Ok(out)
    }
}

/// A map key as an owned string (keys may come borrowed or not).
struct KeyName(String);

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyName, E> {
                Ok(KeyName(v.to_owned()))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<KeyName, E> {
                Ok(KeyName(String::from_utf8_lossy(v).into_owned()))
            }
        }
        d.deserialize_identifier(V)
    }
}

fn de_fields<'de, D: Deserializer<'de>, T: Deserialize<'de> + Copy + Default, const N: usize>(
    d: D,
    name: &'static str,
    fields: [&'static str; N],
    static_fields: &'static [&'static str],
) -> Result<[T; N], D::Error> {
    d.deserialize_struct(name, static_fields, FieldsVisitor::<T, N> { name, fields, _t: PhantomData })
}

macro_rules! leaf_struct {
    ($(#[$doc:meta])* $ty:ident, $elem:ty, $marker:literal, [$($f:ident),+], $n:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Default)]
        pub struct $ty {
            $(#[doc = concat!("`", stringify!($f), "`.")] pub $f: $elem,)+
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ser_fields(s, $marker, &[$(stringify!($f)),+], &[$(&self.$f),+])
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$(stringify!($f)),+];
                let [$($f),+] = de_fields::<D, $elem, $n>(d, $marker, [$(stringify!($f)),+], FIELDS)?;
                Ok($ty { $($f),+ })
            }
        }
    };
}

leaf_struct!(
    /// `class Color` (written b, g, r, a on the wire).
    Color, u8, "$kiprop::Color", [r, g, b, a], 4
);
leaf_struct!(
    /// `class Vector3D`.
    Vec3, f32, "$kiprop::Vector3D", [x, y, z], 3
);
leaf_struct!(
    /// `class Quaternion` (w, x, y, z on the wire: katsuba's current order; disputed).
    Quaternion, f32, "$kiprop::Quaternion", [w, x, y, z], 4
);
leaf_struct!(
    /// `class Euler` (pitch, yaw, roll on the wire: katsuba's current order; disputed).
    Euler, f32, "$kiprop::Euler", [pitch, yaw, roll], 3
);
leaf_struct!(
    /// `class Matrix3x3`: three rows.
    Matrix3x3, [f32; 3], "$kiprop::Matrix3x3", [i, j, k], 3
);
leaf_struct!(
    /// `class Point<int>`.
    PointInt, i32, "$kiprop::Point<int>", [x, y], 2
);
leaf_struct!(
    /// `class Point<unsigned int>`.
    PointUInt, u32, "$kiprop::Point<unsigned int>", [x, y], 2
);
leaf_struct!(
    /// `class Point<unsigned char>` (Pirate101).
    PointUChar, u8, "$kiprop::Point<unsigned char>", [x, y], 2
);
leaf_struct!(
    /// `class Point<float>`.
    PointFloat, f32, "$kiprop::Point<float>", [x, y], 2
);
leaf_struct!(
    /// `class Size<int>`.
    SizeInt, i32, "$kiprop::Size<int>", [width, height], 2
);
leaf_struct!(
    /// `class Rect<int>`.
    RectInt, i32, "$kiprop::Rect<int>", [left, top, right, bottom], 4
);
leaf_struct!(
    /// `class Rect<float>`.
    RectFloat, f32, "$kiprop::Rect<float>", [left, top, right, bottom], 4
);

macro_rules! newtype {
    ($(#[$doc:meta])* $ty:ident($inner:ty), $marker:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $ty(pub $inner);

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_newtype_struct($marker, &self.0)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", stringify!($ty)))
                    }
                    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<$ty, D::Error> {
                        <$inner>::deserialize(d).map($ty)
                    }
                }
                d.deserialize_newtype_struct($marker, V)
            }
        }

        impl From<$inner> for $ty {
            fn from(v: $inner) -> Self {
                $ty(v)
            }
        }
    };
}

newtype!(
    /// A `gid` (global id, u64).
    Gid(u64), "$kiprop::gid"
);
newtype!(
    /// A `std::wstring` (UTF-16 on the wire).
    WString(String), "$kiprop::std::wstring"
);
newtype!(
    /// A `u24` (24 bits, unaligned).
    U24(u32), "$kiprop::u24"
);
newtype!(
    /// An `s24` (24 bits, signed, unaligned).
    S24(i32), "$kiprop::s24"
);

const BUI: [&str; 8] =
    ["", "", "$kiprop::bui2", "$kiprop::bui3", "$kiprop::bui4", "$kiprop::bui5", "$kiprop::bui6", "$kiprop::bui7"];
const BI: [&str; 8] =
    ["", "", "$kiprop::bi2", "$kiprop::bi3", "$kiprop::bi4", "$kiprop::bi5", "$kiprop::bi6", "$kiprop::bi7"];

/// `bui2`..`bui7`: an `N`-bit unsigned integer, unaligned (`N` in 2..=7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bui<const N: u8>(pub u8);

/// `bi2`..`bi7`: an `N`-bit signed integer, unaligned and sign-extended (`N` in 2..=7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bi<const N: u8>(pub i8);

macro_rules! bit_newtype {
    ($ty:ident, $inner:ty, $names:ident) => {
        impl<const N: u8> Serialize for $ty<N> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let name = $names.get(N as usize).copied().filter(|n| !n.is_empty());
                match name {
                    Some(name) => s.serialize_newtype_struct(name, &self.0),
                    None => Err(serde_core::ser::Error::custom("bit integers have 2 to 7 bits")),
                }
            }
        }

        impl<'de, const N: u8> Deserialize<'de> for $ty<N> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<const N: u8>;
                impl<'de, const N: u8> Visitor<'de> for V<N> {
                    type Value = $ty<N>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a {}-bit integer", N)
                    }
                    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<$ty<N>, D::Error> {
                        <$inner>::deserialize(d).map($ty)
                    }
                }
                let name = $names.get(N as usize).copied().filter(|n| !n.is_empty());
                let name = name.ok_or_else(|| de::Error::custom("bit integers have 2 to 7 bits"))?;
                d.deserialize_newtype_struct(name, V::<N>)
            }
        }
    };
}

bit_newtype!(Bui, u8, BUI);
bit_newtype!(Bi, i8, BI);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_resolve() {
        assert_eq!(marker_kind("$kiprop::Color"), Some((Kind::Leaf(Leaf::Color), "class Color")));
        assert_eq!(
            marker_kind("$kiprop::Point<unsigned char>"),
            Some((Kind::Leaf(Leaf::PointUChar), "class Point<unsigned char>"))
        );
        assert_eq!(marker_kind("$kiprop::gid"), Some((Kind::Prim(Prim::U64), "gid")));
        assert_eq!(marker_kind("$kiprop::bui3"), Some((Kind::Prim(Prim::UBits(3)), "bui3")));
        assert_eq!(marker_kind("$kiprop::std::wstring"), Some((Kind::Prim(Prim::WStr), "std::wstring")));
        assert_eq!(marker_kind("Color"), None);
    }
}
