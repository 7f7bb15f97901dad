//! Godot's builtin types as Rust types.
//!
//! With serde-godot each one is written in its exact wire form (a `Vector2` is a VECTOR2, not a
//! Dictionary); with any other serde format it is a plain struct, sequence or string, so the same
//! message type also serializes to JSON, RON or postcard.

mod containers;
mod math;
mod misc;
mod packed;

pub use containers::{Array, ContainerType, Dictionary, ElementType};
pub use math::{
    Aabb, Basis, Color, Plane, Projection, Quaternion, Rect2, Rect2i, Transform2D, Transform3D, Vector2, Vector2i,
    Vector3, Vector3i, Vector4, Vector4i,
};
pub use misc::{Callable, NodePath, ObjectId, Rid, Signal, StringName};
pub use packed::{
    PackedByteArray, PackedColorArray, PackedFloat32Array, PackedFloat64Array, PackedInt32Array, PackedInt64Array,
    PackedStringArray, PackedVector2Array, PackedVector3Array, PackedVector4Array,
};

pub(crate) use packed::{PackedElement, narrow_reals, packed_vec};

use std::fmt;

use serde_core::de::{self, DeserializeSeed, Deserializer, Visitor};

/// Deserializes a struct field name into the matching `&'static str` of `fields` (`None` for an
/// unknown field, whose value the caller skips).
pub(crate) struct FieldSeed(pub(crate) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Option<&'static str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().copied().find(|field| *field == v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(self.0.iter().copied().find(|field| field.as_bytes() == v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(usize::try_from(v).ok().and_then(|i| self.0.get(i).copied()))
    }
}

/// A struct whose serde form is a struct named with a reserved name (so serde-godot writes the
/// Godot type) and whose Deserialize accepts a sequence (serde-godot, bincode…) or a map (JSON…).
macro_rules! godot_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $magic:path { $($(#[$fmeta:meta])* pub $field:ident : $fty:ty),+ $(,)? }
    ) => {
        $(#[$meta])*
        pub struct $name { $($(#[$fmeta])* pub $field: $fty,)+ }

        impl serde_core::Serialize for $name {
            fn serialize<S: serde_core::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde_core::ser::SerializeStruct;
                let mut state = serializer.serialize_struct($magic, [$(stringify!($field)),+].len())?;
                $(state.serialize_field(stringify!($field), &self.$field)?;)+
                state.end()
            }
        }

        impl<'de> serde_core::Deserialize<'de> for $name {
            fn deserialize<D: serde_core::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$(stringify!($field)),+];
                struct StructVisitor;
                impl<'de> serde_core::de::Visitor<'de> for StructVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name)))
                    }

                    fn visit_seq<A: serde_core::de::SeqAccess<'de>>(self, mut seq: A) -> Result<$name, A::Error> {
                        let mut index = 0usize;
                        $(
                            let $field: $fty = match seq.next_element()? {
                                Some(value) => value,
                                None => return Err(serde_core::de::Error::invalid_length(index, &self)),
                            };
                            index += 1;
                        )+
                        let _ = index;
                        Ok($name { $($field),+ })
                    }

                    fn visit_map<A: serde_core::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        $(let mut $field: Option<$fty> = None;)+
                        while let Some(key) = map.next_key_seed($crate::types::FieldSeed(FIELDS))? {
                            match key {
                                $(Some(stringify!($field)) => {
                                    if $field.is_some() {
                                        return Err(serde_core::de::Error::duplicate_field(stringify!($field)));
                                    }
                                    $field = Some(map.next_value()?);
                                })+
                                _ => {
                                    map.next_value::<serde_core::de::IgnoredAny>()?;
                                }
                            }
                        }
                        $(let $field = $field.ok_or_else(|| serde_core::de::Error::missing_field(stringify!($field)))?;)+
                        Ok($name { $($field),+ })
                    }
                }
                deserializer.deserialize_struct($magic, FIELDS, StructVisitor)
            }
        }
    };
}
pub(crate) use godot_struct;
