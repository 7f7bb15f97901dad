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
#[inline(always)]
pub(crate) fn lookup(name: &str) -> Option<Magic> {
    if !name.starts_with('$') {
        return None;
    }
    lookup_reserved(name)
}

/// A name as one number: its first and last 8 bytes (overlapping when shorter; under 8 bytes its
/// first and last 4, under 4 its bytes). Names of the same length up to 16 bytes are equal when
/// their keys are; longer names must be compared after the key matches.
const fn key(s: &[u8]) -> u128 {
    const fn word<const N: usize>(s: &[u8], at: usize) -> u64 {
        let mut w = 0u64;
        let mut i = 0;
        while i < N {
            w |= (s[at + i] as u64) << (8 * i);
            i += 1;
        }
        w
    }
    let n = s.len();
    let (first, last) = if n >= 8 {
        (word::<8>(s, 0), word::<8>(s, n - 8))
    } else if n >= 4 {
        (word::<4>(s, 0), word::<4>(s, n - 4))
    } else {
        let mut w = 0u64;
        let mut i = 0;
        while i < n {
            w |= (s[i] as u64) << (8 * i);
            i += 1;
        }
        (w, 0)
    };
    (first as u128) | ((last as u128) << 64)
}

/// The same key at run time: a few loads instead of a comparison per reserved name.
#[inline(always)]
fn key_of(s: &[u8]) -> u128 {
    let n = s.len();
    let word8 = |at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let word4 = |at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes")) as u64;
    let (first, last) = if n >= 8 {
        (word8(0), word8(n - 8))
    } else if n >= 4 {
        (word4(0), word4(n - 4))
    } else {
        (s.iter().rev().fold(0u64, |w, &b| (w << 8) | b as u64), 0)
    };
    (first as u128) | ((last as u128) << 64)
}

/// Every reserved name (without the prefix) that is not a typed-container name.
const RESERVED: [(&str, Magic); 35] = {
    use VariantType as T;
    [
        ("Vector2", Magic::Math(T::Vector2)),
        ("Vector2i", Magic::Math(T::Vector2i)),
        ("Rect2", Magic::Math(T::Rect2)),
        ("Rect2i", Magic::Math(T::Rect2i)),
        ("Vector3", Magic::Math(T::Vector3)),
        ("Vector3i", Magic::Math(T::Vector3i)),
        ("Transform2D", Magic::Math(T::Transform2D)),
        ("Vector4", Magic::Math(T::Vector4)),
        ("Vector4i", Magic::Math(T::Vector4i)),
        ("Plane", Magic::Math(T::Plane)),
        ("Quaternion", Magic::Math(T::Quaternion)),
        ("AABB", Magic::Math(T::Aabb)),
        ("Basis", Magic::Math(T::Basis)),
        ("Transform3D", Magic::Math(T::Transform3D)),
        ("Projection", Magic::Math(T::Projection)),
        ("Color", Magic::Math(T::Color)),
        ("StringName", Magic::StringName),
        ("NodePath", Magic::NodePath),
        ("RID", Magic::Rid),
        ("ObjectId", Magic::ObjectId),
        ("Callable", Magic::Callable),
        ("Signal", Magic::Signal),
        ("FullObject", Magic::FullObject),
        ("PackedInt32Array", Magic::Packed(T::PackedInt32Array)),
        ("PackedInt64Array", Magic::Packed(T::PackedInt64Array)),
        ("PackedFloat32Array", Magic::Packed(T::PackedFloat32Array)),
        ("PackedFloat64Array", Magic::Packed(T::PackedFloat64Array)),
        ("PackedStringArray", Magic::Packed(T::PackedStringArray)),
        ("PackedVector2Array", Magic::Packed(T::PackedVector2Array)),
        ("PackedVector3Array", Magic::Packed(T::PackedVector3Array)),
        ("PackedColorArray", Magic::Packed(T::PackedColorArray)),
        ("PackedVector4Array", Magic::Packed(T::PackedVector4Array)),
        ("Variant", Magic::Variant),
        ("TypedArray", Magic::TypedArray),
        ("TypedDictionary", Magic::TypedDictionary),
    ]
};

/// One slot of [`TABLE`].
struct Slot {
    key: u128,
    name: &'static str,
    magic: Option<Magic>,
}

/// The table's size, as a power of two.
const TABLE_BITS: u32 = 7;

/// The slot of a key (a multiplicative hash of both words; the multiplier is one found to put
/// every reserved name in a slot of its own).
#[inline(always)]
const fn slot_of(key: u128) -> usize {
    let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    (x.wrapping_mul(0xF47E_B25C_048D_1FC9) >> (64 - TABLE_BITS)) as usize
}

/// The reserved names by the slot of their key, built at compile time (which fails if two
/// names share a slot): one load and compare per lookup.
///
/// A `const`, not a `static`: the crate that encodes or decodes a type sees a static's contents
/// only at link time, so until then the lookup of a serde name (a constant) stays a load and the
/// special-type paths it guards stay in the code the compiler optimizes first; a const folds to
/// the answer in the caller's crate.
const TABLE: [Slot; 1 << TABLE_BITS] = {
    const EMPTY: Slot = Slot { key: 0, name: "", magic: None };
    let mut table = [EMPTY; 1 << TABLE_BITS];
    let mut i = 0;
    while i < RESERVED.len() {
        let (name, magic) = RESERVED[i];
        let key = key(name.as_bytes());
        let slot = slot_of(key);
        assert!(table[slot].magic.is_none(), "two reserved names share a slot: change the hash");
        table[slot] = Slot { key, name, magic: Some(magic) };
        i += 1;
    }
    table
};

/// A reserved name (without the prefix) that is not a typed-container name.
#[inline(always)]
fn by_key(rest: &str) -> Option<Magic> {
    let key = key_of(rest.as_bytes());
    let slot = &TABLE[slot_of(key)];
    let same = slot.key == key && slot.name.len() == rest.len() && (rest.len() <= 16 || slot.name == rest);
    if same { slot.magic } else { None }
}

/// A name starting with `$`: the prefix, then the name's key (the math types are looked up on
/// every value), then the typed-container families. Inlined: serde names are constants, so
/// the compiler folds the whole lookup of a reserved name to its answer.
#[inline(always)]
fn lookup_reserved(name: &str) -> Option<Magic> {
    let rest = name.strip_prefix(PREFIX)?;
    by_key(rest).or_else(|| family(rest))
}

/// `ArrayOf::T`, `DictKey::T`, `DictValue::T`.
#[cold]
#[inline(never)]
fn family(rest: &str) -> Option<Magic> {
    let (family, type_name) = rest.split_once("::")?;
    let ty = VariantType::ALL.iter().copied().find(|ty| ty.name() == type_name)?;
    match family {
        "ArrayOf" => Some(Magic::ArrayOf(ty)),
        "DictKey" => Some(Magic::DictKey(ty)),
        "DictValue" => Some(Magic::DictValue(ty)),
        _ => None,
    }
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
    /// A struct or array of parts, with how many `real_t`s and 4-byte words it holds in all (its
    /// size without walking the parts: this is asked for on every math value).
    Seq(&'static [Layout], Counts),
}

/// The `real_t` and fixed 4-byte components of a [`Layout::Seq`], nested parts included.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counts {
    reals: u8,
    words: u8,
}

const R: Layout = Layout::Real;
const I: Layout = Layout::Int;
const F: Layout = Layout::F32;
const V2: Layout = Layout::seq(&[R, R]);
const V2I: Layout = Layout::seq(&[I, I]);
const V3: Layout = Layout::seq(&[R, R, R]);
const V3I: Layout = Layout::seq(&[I, I, I]);
const V4: Layout = Layout::seq(&[R, R, R, R]);
const V4I: Layout = Layout::seq(&[I, I, I, I]);
const BASIS_ROWS: Layout = Layout::seq(&[V3, V3, V3]);
const BASIS_LAYOUT: Layout = Layout::seq(&[BASIS_ROWS]);
const PROJECTION_COLUMNS: Layout = Layout::seq(&[V4, V4, V4, V4]);

impl Layout {
    /// A sequence of `parts`, its counts computed at compile time.
    const fn seq(parts: &'static [Layout]) -> Layout {
        let (mut reals, mut words) = (0, 0);
        let mut i = 0;
        while i < parts.len() {
            match parts[i] {
                Layout::Real => reals += 1,
                Layout::Int | Layout::F32 => words += 1,
                Layout::Seq(_, counts) => {
                    reals += counts.reals;
                    words += counts.words;
                }
            }
            i += 1;
        }
        Layout::Seq(parts, Counts { reals, words })
    }

    /// The layout of a math type (`None` for other types).
    #[inline]
    pub(crate) fn of(ty: VariantType) -> Option<Layout> {
        use VariantType as T;
        Some(match ty {
            T::Vector2 => V2,
            T::Vector2i => V2I,
            T::Rect2 => const { Layout::seq(&[V2, V2]) },
            T::Rect2i => const { Layout::seq(&[V2I, V2I]) },
            T::Vector3 => V3,
            T::Vector3i => V3I,
            T::Transform2D => const { Layout::seq(&[V2, V2, V2]) },
            T::Vector4 => V4,
            T::Vector4i => V4I,
            T::Plane => const { Layout::seq(&[V3, R]) },
            T::Quaternion => V4,
            T::Aabb => const { Layout::seq(&[V3, V3]) },
            T::Basis => BASIS_LAYOUT,
            T::Transform3D => const { Layout::seq(&[BASIS_LAYOUT, V3]) },
            T::Projection => const { Layout::seq(&[PROJECTION_COLUMNS]) },
            T::Color => const { Layout::seq(&[F, F, F, F]) },
            _ => return None,
        })
    }

    /// Payload bytes with `real` bytes per real (4 or 8).
    #[inline]
    pub(crate) const fn size(self, real: usize) -> usize {
        match self {
            Layout::Real => real,
            Layout::Int | Layout::F32 => 4,
            Layout::Seq(_, counts) => counts.reals as usize * real + counts.words as usize * 4,
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
    fn only_exact_names_are_reserved() {
        let all = [
            VECTOR2,
            VECTOR2I,
            RECT2,
            RECT2I,
            VECTOR3,
            VECTOR3I,
            TRANSFORM2D,
            VECTOR4,
            VECTOR4I,
            PLANE,
            QUATERNION,
            AABB,
            BASIS,
            TRANSFORM3D,
            PROJECTION,
            COLOR,
            STRING_NAME,
            NODE_PATH,
            RID,
            OBJECT_ID,
            CALLABLE,
            SIGNAL,
            FULL_OBJECT,
            PACKED_INT32_ARRAY,
            PACKED_INT64_ARRAY,
            PACKED_FLOAT32_ARRAY,
            PACKED_FLOAT64_ARRAY,
            PACKED_STRING_ARRAY,
            PACKED_VECTOR2_ARRAY,
            PACKED_VECTOR3_ARRAY,
            PACKED_COLOR_ARRAY,
            PACKED_VECTOR4_ARRAY,
            VARIANT,
            TYPED_ARRAY,
            TYPED_DICTIONARY,
        ];
        let mut found = std::collections::HashSet::new();
        for name in all {
            let magic = lookup(name).unwrap_or_else(|| panic!("{name} not found"));
            assert!(found.insert(format!("{magic:?}")), "{name} looked up as another name's {magic:?}");
            // Every one-byte change, cut or extension of a reserved name is an ordinary name.
            let rest = &name[PREFIX.len()..];
            for i in 0..rest.len() {
                let mut changed = rest.as_bytes().to_vec();
                changed[i] ^= 0x20;
                let changed = format!("{PREFIX}{}", String::from_utf8(changed).unwrap());
                assert_eq!(lookup(&changed), None, "{changed}");
            }
            let cut = &name[..name.len() - 1];
            assert!(lookup(cut).is_none() || all.contains(&cut), "{cut}");
            assert_eq!(lookup(&format!("{name}x")), None, "{name}x");
            assert_eq!(lookup(&format!("{name}\0")), None, "{name} NUL");
        }
        assert_eq!(lookup("$__godot::"), None);
        assert_eq!(lookup("$__godot::R"), None);
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
