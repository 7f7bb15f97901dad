//! Reserved serde names through which the Godot types of this crate tell serde-godot's
//! Serializer and Deserializer what they are (the toml-datetime pattern). Other serializers
//! ignore struct and newtype names, so the same types serialize to JSON as plain structs,
//! sequences and strings.

use crate::VariantType;

/// Every reserved name starts with this; a user type whose name starts with `$` is looked up, all
/// others are not.
pub(crate) const PREFIX: &str = "$__godot::";

macro_rules! names {
    ($($konst:ident = $text:literal;)*) => {
        $(pub(crate) const $konst: &str = concat!("$__godot::", $text);)*
    };
}

names! {
    VECTOR2 = "Vector2";
    VECTOR2I = "Vector2i";
    RECT2 = "Rect2";
    RECT2I = "Rect2i";
    VECTOR3 = "Vector3";
    VECTOR3I = "Vector3i";
    TRANSFORM2D = "Transform2D";
    VECTOR4 = "Vector4";
    VECTOR4I = "Vector4i";
    PLANE = "Plane";
    QUATERNION = "Quaternion";
    AABB = "AABB";
    BASIS = "Basis";
    TRANSFORM3D = "Transform3D";
    PROJECTION = "Projection";
    COLOR = "Color";
    STRING_NAME = "StringName";
    NODE_PATH = "NodePath";
    RID = "RID";
    OBJECT_ID = "ObjectId";
    CALLABLE = "Callable";
    SIGNAL = "Signal";
    FULL_OBJECT = "FullObject";
    PACKED_INT32_ARRAY = "PackedInt32Array";
    PACKED_INT64_ARRAY = "PackedInt64Array";
    PACKED_FLOAT32_ARRAY = "PackedFloat32Array";
    PACKED_FLOAT64_ARRAY = "PackedFloat64Array";
    PACKED_STRING_ARRAY = "PackedStringArray";
    PACKED_VECTOR2_ARRAY = "PackedVector2Array";
    PACKED_VECTOR3_ARRAY = "PackedVector3Array";
    PACKED_COLOR_ARRAY = "PackedColorArray";
    PACKED_VECTOR4_ARRAY = "PackedVector4Array";
    VARIANT = "Variant";
    TYPED_ARRAY = "TypedArray";
    TYPED_DICTIONARY = "TypedDictionary";
}

/// The key of the one-entry map through which the Deserializer hands a decoded [`Variant`] to
/// `Variant`'s own visitor (see `de.rs`).
///
/// [`Variant`]: crate::Variant
pub(crate) const VARIANT_HANDOFF_KEY: &str = "$__godot::variant-handoff";

/// The reserved newtype name that carries the builtin element type of a typed Array.
pub(crate) fn array_of(ty: VariantType) -> &'static str {
    ty.typed_names()[0]
}

/// The reserved newtype name that carries the builtin key type of a typed Dictionary.
pub(crate) fn dict_key(ty: VariantType) -> &'static str {
    ty.typed_names()[1]
}

/// The reserved newtype name that carries the builtin value type of a typed Dictionary.
pub(crate) fn dict_value(ty: VariantType) -> &'static str {
    ty.typed_names()[2]
}

/// What a reserved name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Magic {
    /// A fixed-size math type (Vector2 … Projection, Color).
    Math(VariantType),
    StringName,
    NodePath,
    Rid,
    ObjectId,
    Callable,
    Signal,
    FullObject,
    /// A packed array other than PackedByteArray (which uses `serialize_bytes`).
    Packed(VariantType),
    Variant,
    ArrayOf(VariantType),
    DictKey(VariantType),
    DictValue(VariantType),
    TypedArray,
    TypedDictionary,
}

/// Looks up a serde name; `None` for every name that isn't reserved.
#[inline]
pub(crate) fn lookup(name: &str) -> Option<Magic> {
    if !name.starts_with('$') {
        return None;
    }
    lookup_slow(name)
}

#[cold]
fn lookup_slow(name: &str) -> Option<Magic> {
    use VariantType as T;
    let rest = name.strip_prefix(PREFIX)?;
    Some(match rest {
        "Vector2" => Magic::Math(T::Vector2),
        "Vector2i" => Magic::Math(T::Vector2i),
        "Rect2" => Magic::Math(T::Rect2),
        "Rect2i" => Magic::Math(T::Rect2i),
        "Vector3" => Magic::Math(T::Vector3),
        "Vector3i" => Magic::Math(T::Vector3i),
        "Transform2D" => Magic::Math(T::Transform2D),
        "Vector4" => Magic::Math(T::Vector4),
        "Vector4i" => Magic::Math(T::Vector4i),
        "Plane" => Magic::Math(T::Plane),
        "Quaternion" => Magic::Math(T::Quaternion),
        "AABB" => Magic::Math(T::Aabb),
        "Basis" => Magic::Math(T::Basis),
        "Transform3D" => Magic::Math(T::Transform3D),
        "Projection" => Magic::Math(T::Projection),
        "Color" => Magic::Math(T::Color),
        "StringName" => Magic::StringName,
        "NodePath" => Magic::NodePath,
        "RID" => Magic::Rid,
        "ObjectId" => Magic::ObjectId,
        "Callable" => Magic::Callable,
        "Signal" => Magic::Signal,
        "FullObject" => Magic::FullObject,
        "PackedInt32Array" => Magic::Packed(T::PackedInt32Array),
        "PackedInt64Array" => Magic::Packed(T::PackedInt64Array),
        "PackedFloat32Array" => Magic::Packed(T::PackedFloat32Array),
        "PackedFloat64Array" => Magic::Packed(T::PackedFloat64Array),
        "PackedStringArray" => Magic::Packed(T::PackedStringArray),
        "PackedVector2Array" => Magic::Packed(T::PackedVector2Array),
        "PackedVector3Array" => Magic::Packed(T::PackedVector3Array),
        "PackedColorArray" => Magic::Packed(T::PackedColorArray),
        "PackedVector4Array" => Magic::Packed(T::PackedVector4Array),
        "Variant" => Magic::Variant,
        "TypedArray" => Magic::TypedArray,
        "TypedDictionary" => Magic::TypedDictionary,
        _ => {
            let (family, type_name) = rest.split_once("::")?;
            let ty = VariantType::ALL.iter().copied().find(|ty| ty.name() == type_name)?;
            match family {
                "ArrayOf" => Magic::ArrayOf(ty),
                "DictKey" => Magic::DictKey(ty),
                "DictValue" => Magic::DictValue(ty),
                _ => return None,
            }
        }
    })
}

/// The shape of a math type's payload, mirroring its Rust struct (so that a sequence visitor sees
/// the same nesting as with any other serde format).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Layout {
    /// A `real_t`: f32, or f64 in 64-bit payloads.
    Real,
    /// An i32.
    Int,
    /// An f32 even in 64-bit payloads (Color).
    F32,
    /// A struct or array of parts.
    Seq(&'static [Layout]),
}

const R: Layout = Layout::Real;
const I: Layout = Layout::Int;
const F: Layout = Layout::F32;
const V2: Layout = Layout::Seq(&[R, R]);
const V2I: Layout = Layout::Seq(&[I, I]);
const V3: Layout = Layout::Seq(&[R, R, R]);
const V3I: Layout = Layout::Seq(&[I, I, I]);
const V4: Layout = Layout::Seq(&[R, R, R, R]);
const V4I: Layout = Layout::Seq(&[I, I, I, I]);
const BASIS_LAYOUT: Layout = Layout::Seq(&[Layout::Seq(&[V3, V3, V3])]);

impl Layout {
    /// The layout of a math type (`None` for other types).
    pub(crate) fn of(ty: VariantType) -> Option<Layout> {
        use VariantType as T;
        Some(match ty {
            T::Vector2 => V2,
            T::Vector2i => V2I,
            T::Rect2 => Layout::Seq(&[V2, V2]),
            T::Rect2i => Layout::Seq(&[V2I, V2I]),
            T::Vector3 => V3,
            T::Vector3i => V3I,
            T::Transform2D => Layout::Seq(&[V2, V2, V2]),
            T::Vector4 => V4,
            T::Vector4i => V4I,
            T::Plane => Layout::Seq(&[V3, R]),
            T::Quaternion => V4,
            T::Aabb => Layout::Seq(&[V3, V3]),
            T::Basis => BASIS_LAYOUT,
            T::Transform3D => Layout::Seq(&[BASIS_LAYOUT, V3]),
            T::Projection => Layout::Seq(&[Layout::Seq(&[V4, V4, V4, V4])]),
            T::Color => Layout::Seq(&[F, F, F, F]),
            _ => return None,
        })
    }

    /// Payload bytes with `real` bytes per real (4 or 8).
    pub(crate) const fn size(self, real: usize) -> usize {
        match self {
            Layout::Real => real,
            Layout::Int | Layout::F32 => 4,
            Layout::Seq(parts) => {
                let mut total = 0;
                let mut i = 0;
                while i < parts.len() {
                    total += parts[i].size(real);
                    i += 1;
                }
                total
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reserved_name_round_trips() {
        for ty in VariantType::ALL {
            assert_eq!(lookup(array_of(ty)), Some(Magic::ArrayOf(ty)));
            assert_eq!(lookup(dict_key(ty)), Some(Magic::DictKey(ty)));
            assert_eq!(lookup(dict_value(ty)), Some(Magic::DictValue(ty)));
        }
        assert_eq!(lookup(VECTOR2), Some(Magic::Math(VariantType::Vector2)));
        assert_eq!(lookup("Vector2"), None);
        assert_eq!(lookup("$other"), None);
    }

    #[test]
    fn payload_sizes() {
        let size = |ty| Layout::of(ty).unwrap().size(4);
        assert_eq!(size(VariantType::Vector2), 8);
        assert_eq!(size(VariantType::Transform2D), 24);
        assert_eq!(size(VariantType::Basis), 36);
        assert_eq!(size(VariantType::Transform3D), 48);
        assert_eq!(size(VariantType::Projection), 64);
        assert_eq!(Layout::of(VariantType::Transform3D).unwrap().size(8), 96);
        assert_eq!(Layout::of(VariantType::Color).unwrap().size(8), 16);
    }
}
