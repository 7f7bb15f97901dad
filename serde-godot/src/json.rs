//! A lossless, tagged JSON form of [`Variant`], for tools that show Variants as text and read
//! them back (the `gamefmt` command line uses it).
//!
//! Plain [`Variant`] serialization is the natural data-model value, which loses the difference
//! between `String` and `StringName`, `Array` and `PackedInt32Array`, `int` and `float`. This
//! form keeps every distinction, so Variant → JSON → Variant gives the same Variant and the same
//! bytes again. It is expressed in serde's data model ([`Tagged`] serializes, [`TaggedVariant`]
//! deserializes), so it needs no JSON library here; with `serde_json`:
//!
//! ```
//! use serde_godot::json::{Tagged, TaggedVariant};
//! use serde_godot::{StringName, Variant, Vector2};
//!
//! let v = Variant::from([("name", Variant::StringName(StringName::from("hero"))), ("at", Variant::from(Vector2::new(1.5, -2.0)))]);
//! let text = serde_json::to_string(&Tagged(&v))?;
//! assert_eq!(text, r#"{"name":{"$StringName":"hero"},"at":{"$Vector2":[1.5,-2.0]}}"#);
//! let back: TaggedVariant = serde_json::from_str(&text)?;
//! assert_eq!(back.0, v);
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! The form:
//!
//! | Variant | JSON |
//! |---|---|
//! | `null`, `bool`, `String` | `null`, `true`/`false`, a string |
//! | `int` | an integer (`3`) |
//! | `float` | a number with a fraction or an exponent (`3.0`, `1e300`); NaN and the infinities as `{"$float": "nan" \| "inf" \| "-inf"}` |
//! | untyped `Array` | an array |
//! | untyped `Dictionary` whose keys are all `String`s and whose first key does not start with `$` | an object, entries in order |
//! | anything else | an object whose **first** key is `$` + the Godot type name (`type_string()`), holding the payload |
//!
//! Payloads of the tagged objects:
//!
//! * `Vector2`, `Vector2i`, `Rect2`, `Rect2i`, `Vector3`, `Vector3i`, `Transform2D`, `Vector4`,
//!   `Vector4i`, `Plane`, `Quaternion`, `AABB`, `Basis`, `Transform3D`, `Projection`, `Color`: the
//!   components as a flat array in wire order (`Rect2`: x, y, width, height; `Transform2D`: x, y
//!   and origin columns; `Basis`: rows; `Transform3D`: basis rows then origin; `Projection`:
//!   columns). Floats are `f32`, printed in their shortest form; NaN and the infinities as the
//!   strings `"nan"`, `"inf"`, `"-inf"` (a NaN's payload bits are not kept: it reads back as the
//!   canonical quiet NaN).
//! * `StringName`: the string. `NodePath`: `{"names": […], "subnames": […], "absolute": bool}`.
//!   `RID`: the id. `Callable`: `null`. `Signal`: `{"name": …, "object": id}`.
//! * `Object`: `null` (the null object), an instance id, or `{"class": …, "properties": [[name,
//!   value], …]}` for a full object.
//! * `Array`: the elements, followed by `"$element_type": T` if the array is typed.
//!   `Dictionary`: an array of `[key, value]` pairs (entries as stored, repeated keys included),
//!   followed by `"$key_type"` and `"$value_type"` if typed. A container type `T` is a builtin
//!   type's name (`"int"`, `"Vector2"`), `"class:Node"` or `"script:res://unit.gd"`; `""` is untyped.
//! * `PackedByteArray`: lowercase hex. The other packed arrays: arrays of their elements
//!   (vectors and colors as component arrays).
//!
//! Reading accepts exactly this form: the tag must be the first key of its object, the modifiers
//! (`$element_type`, `$key_type`, `$value_type`) follow it; anything else is an error naming what
//! was expected. Reading is recursive, so the depth of the text is limited by the JSON reader
//! (`serde_json` stops at 128 levels).

use std::fmt;

use serde_core::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::types::ContainerType;
use crate::variant::{FullObject, Object};
use crate::{
    Aabb, Array, Basis, Color, Dictionary, NodePath, ObjectId, PackedByteArray, PackedColorArray, PackedFloat32Array,
    PackedFloat64Array, PackedInt32Array, PackedInt64Array, PackedStringArray, PackedVector2Array, PackedVector3Array,
    PackedVector4Array, Plane, Projection, Quaternion, Rect2, Rect2i, Rid, Signal, StringName, Transform2D,
    Transform3D, Variant, VariantType, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i,
};

/// Serializes a [`Variant`] in the tagged form (see the [module documentation](self)).
#[derive(Clone, Copy, Debug)]
pub struct Tagged<'a>(pub &'a Variant);

/// A [`Variant`] read from the tagged form (see the [module documentation](self)).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaggedVariant(pub Variant);

/// An `f32` component: a number, or `"nan"`, `"inf"`, `"-inf"`.
struct F32(f32);

impl Serialize for F32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_finite() { s.serialize_f32(v) } else { s.serialize_str(non_finite_name(f64::from(v))) }
    }
}

fn non_finite_name(v: f64) -> &'static str {
    if v.is_nan() {
        "nan"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

fn non_finite_value(name: &str) -> Option<f64> {
    match name {
        "nan" => Some(f64::NAN),
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

impl<'de> Deserialize<'de> for F32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = F32;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a float component (a number, \"nan\", \"inf\" or \"-inf\")")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<F32, E> {
                Ok(F32(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<F32, E> {
                Ok(F32(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<F32, E> {
                Ok(F32(v as f32))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<F32, E> {
                non_finite_value(v)
                    .map(|x| F32(x as f32))
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

/// An `f64` element of a PackedFloat64Array: a number, or `"nan"`, `"inf"`, `"-inf"`.
struct F64(f64);

impl Serialize for F64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() { s.serialize_f64(self.0) } else { s.serialize_str(non_finite_name(self.0)) }
    }
}

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = F64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a float (a number, \"nan\", \"inf\" or \"-inf\")")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<F64, E> {
                Ok(F64(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<F64, E> {
                Ok(F64(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<F64, E> {
                Ok(F64(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<F64, E> {
                non_finite_value(v).map(F64).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

fn v2(v: Vector2) -> [f32; 2] {
    [v.x, v.y]
}
fn v3(v: Vector3) -> [f32; 3] {
    [v.x, v.y, v.z]
}
fn v4(v: Vector4) -> [f32; 4] {
    [v.x, v.y, v.z, v.w]
}

/// The float components of a real-based math Variant, in wire order.
fn float_components(v: &Variant) -> Option<Vec<f32>> {
    Some(match v {
        Variant::Vector2(a) => v2(*a).to_vec(),
        Variant::Rect2(r) => [v2(r.position), v2(r.size)].concat(),
        Variant::Vector3(a) => v3(*a).to_vec(),
        Variant::Transform2D(t) => [v2(t.x), v2(t.y), v2(t.origin)].concat(),
        Variant::Vector4(a) => v4(*a).to_vec(),
        Variant::Plane(p) => [&v3(p.normal)[..], &[p.d]].concat(),
        Variant::Quaternion(q) => vec![q.x, q.y, q.z, q.w],
        Variant::Aabb(b) => [v3(b.position), v3(b.size)].concat(),
        Variant::Basis(b) => b.rows.iter().flat_map(|r| v3(*r)).collect(),
        Variant::Transform3D(t) => t.basis.rows.iter().flat_map(|r| v3(*r)).chain(v3(t.origin)).collect(),
        Variant::Projection(p) => p.columns.iter().flat_map(|c| v4(*c)).collect(),
        Variant::Color(c) => vec![c.r, c.g, c.b, c.a],
        _ => return None,
    })
}

/// The integer components of an integer math Variant, in wire order.
fn int_components(v: &Variant) -> Option<Vec<i32>> {
    Some(match v {
        Variant::Vector2i(a) => vec![a.x, a.y],
        Variant::Rect2i(r) => vec![r.position.x, r.position.y, r.size.x, r.size.y],
        Variant::Vector3i(a) => vec![a.x, a.y, a.z],
        Variant::Vector4i(a) => vec![a.x, a.y, a.z, a.w],
        _ => return None,
    })
}

fn floats_to_variant(ty: VariantType, c: &[f32]) -> Option<Variant> {
    let vec2 = |i: usize| Vector2::new(c[i], c[i + 1]);
    let vec3 = |i: usize| Vector3::new(c[i], c[i + 1], c[i + 2]);
    let vec4 = |i: usize| Vector4::new(c[i], c[i + 1], c[i + 2], c[i + 3]);
    let want = match ty {
        VariantType::Vector2 => 2,
        VariantType::Vector3 => 3,
        VariantType::Rect2 | VariantType::Vector4 | VariantType::Plane | VariantType::Quaternion => 4,
        VariantType::Color => 4,
        VariantType::Transform2D | VariantType::Aabb => 6,
        VariantType::Basis => 9,
        VariantType::Transform3D => 12,
        VariantType::Projection => 16,
        _ => return None,
    };
    if c.len() != want {
        return None;
    }
    let basis = || Basis { rows: [vec3(0), vec3(3), vec3(6)] };
    Some(match ty {
        VariantType::Vector2 => Variant::Vector2(vec2(0)),
        VariantType::Vector3 => Variant::Vector3(vec3(0)),
        VariantType::Vector4 => Variant::Vector4(vec4(0)),
        VariantType::Rect2 => Variant::Rect2(Rect2 { position: vec2(0), size: vec2(2) }),
        VariantType::Plane => Variant::Plane(Plane { normal: vec3(0), d: c[3] }),
        VariantType::Quaternion => Variant::Quaternion(Quaternion::new(c[0], c[1], c[2], c[3])),
        VariantType::Color => Variant::Color(Color::new(c[0], c[1], c[2], c[3])),
        VariantType::Transform2D => Variant::Transform2D(Box::new(Transform2D::new(vec2(0), vec2(2), vec2(4)))),
        VariantType::Aabb => Variant::Aabb(Box::new(Aabb::new(vec3(0), vec3(3)))),
        VariantType::Basis => Variant::Basis(Box::new(basis())),
        VariantType::Transform3D => Variant::Transform3D(Box::new(Transform3D::new(basis(), vec3(9)))),
        VariantType::Projection => {
            Variant::Projection(Box::new(Projection::from_columns(vec4(0), vec4(4), vec4(8), vec4(12))))
        }
        _ => return None,
    })
}

fn ints_to_variant(ty: VariantType, c: &[i32]) -> Option<Variant> {
    Some(match (ty, c) {
        (VariantType::Vector2i, &[x, y]) => Variant::Vector2i(Vector2i::new(x, y)),
        (VariantType::Vector3i, &[x, y, z]) => Variant::Vector3i(Vector3i::new(x, y, z)),
        (VariantType::Vector4i, &[x, y, z, w]) => Variant::Vector4i(Vector4i::new(x, y, z, w)),
        (VariantType::Rect2i, &[x, y, w, h]) => Variant::Rect2i(Rect2i::new(x, y, w, h)),
        _ => return None,
    })
}

struct Floats<'a>(&'a [f32]);

impl Serialize for Floats<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|&v| F32(v)))
    }
}

/// A container type as its descriptor text.
fn descriptor(t: &ContainerType) -> String {
    t.descriptor()
}

struct Pairs<'a>(&'a [(Variant, Variant)]);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(k, v)| (Tagged(k), Tagged(v))))
    }
}

struct Items<'a>(&'a [Variant]);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Tagged))
    }
}

struct Props<'a>(&'a [(String, Variant)]);

impl Serialize for Props<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(k, v)| (k, Tagged(v))))
    }
}

struct PathForm<'a>(&'a NodePath);

impl Serialize for PathForm<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("names", &self.0.names)?;
        m.serialize_entry("subnames", &self.0.subnames)?;
        m.serialize_entry("absolute", &self.0.absolute)?;
        m.end()
    }
}

/// Whether a Dictionary can be written as a plain JSON object.
fn plain_dictionary(d: &Dictionary) -> bool {
    d.key_type().is_untyped()
        && d.value_type().is_untyped()
        && d.keys().all(|k| matches!(k, Variant::String(_)))
        && !matches!(d.keys().next(), Some(Variant::String(k)) if k.starts_with('$'))
}

fn tag(ty: VariantType) -> String {
    format!("${}", ty.name())
}

impl Serialize for Tagged<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        match v {
            Variant::Nil => return s.serialize_unit(),
            Variant::Bool(b) => return s.serialize_bool(*b),
            Variant::Int(i) => return s.serialize_i64(*i),
            Variant::Float(f) if f.is_finite() => return s.serialize_f64(*f),
            Variant::String(t) => return s.serialize_str(t),
            Variant::Array(a) if a.element_type().is_untyped() => return Items(a).serialize(s),
            Variant::Dictionary(d) if plain_dictionary(d) => {
                let mut m = s.serialize_map(Some(d.len()))?;
                for (k, v) in d.iter() {
                    if let Variant::String(k) = k {
                        m.serialize_entry(k, &Tagged(v))?;
                    }
                }
                return m.end();
            }
            _ => {}
        }
        let mut m = s.serialize_map(None)?;
        let key = tag(v.variant_type());
        if let Some(c) = float_components(v) {
            m.serialize_entry(&key, &Floats(&c))?;
            return m.end();
        }
        if let Some(c) = int_components(v) {
            m.serialize_entry(&key, &c)?;
            return m.end();
        }
        match v {
            Variant::Float(f) => m.serialize_entry(&key, non_finite_name(*f))?,
            Variant::StringName(n) => m.serialize_entry(&key, n.as_str())?,
            Variant::NodePath(p) => m.serialize_entry(&key, &PathForm(p))?,
            Variant::Rid(r) => m.serialize_entry(&key, &r.0)?,
            Variant::Callable => m.serialize_entry(&key, &())?,
            Variant::Signal(sig) => m.serialize_entry(&key, &SignalForm(sig))?,
            Variant::Object(Object::Null) => m.serialize_entry(&key, &())?,
            Variant::Object(Object::Id(id)) => m.serialize_entry(&key, &id.0)?,
            Variant::Object(Object::Full(o)) => m.serialize_entry(&key, &FullForm(o))?,
            Variant::Array(a) => {
                m.serialize_entry(&key, &Items(a))?;
                m.serialize_entry("$element_type", &descriptor(a.element_type()))?;
            }
            Variant::Dictionary(d) => {
                m.serialize_entry(&key, &Pairs(d.entries()))?;
                if !(d.key_type().is_untyped() && d.value_type().is_untyped()) {
                    m.serialize_entry("$key_type", &descriptor(d.key_type()))?;
                    m.serialize_entry("$value_type", &descriptor(d.value_type()))?;
                }
            }
            Variant::PackedByteArray(b) => {
                let mut hex = String::with_capacity(b.len() * 2);
                for byte in b.iter() {
                    hex.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
                    hex.push(char::from_digit(u32::from(byte & 15), 16).unwrap_or('0'));
                }
                m.serialize_entry(&key, &hex)?;
            }
            Variant::PackedInt32Array(a) => m.serialize_entry(&key, &a.0)?,
            Variant::PackedInt64Array(a) => m.serialize_entry(&key, &a.0)?,
            Variant::PackedFloat32Array(a) => m.serialize_entry(&key, &Floats(a))?,
            Variant::PackedFloat64Array(a) => m.serialize_entry(&key, &F64s(a))?,
            Variant::PackedStringArray(a) => m.serialize_entry(&key, &a.0)?,
            Variant::PackedVector2Array(a) => m.serialize_entry(&key, &Rows(a.iter().map(|v| v2(*v).to_vec())))?,
            Variant::PackedVector3Array(a) => m.serialize_entry(&key, &Rows(a.iter().map(|v| v3(*v).to_vec())))?,
            Variant::PackedVector4Array(a) => m.serialize_entry(&key, &Rows(a.iter().map(|v| v4(*v).to_vec())))?,
            Variant::PackedColorArray(a) => {
                m.serialize_entry(&key, &Rows(a.iter().map(|c| vec![c.r, c.g, c.b, c.a])))?
            }
            _ => unreachable!("every other Variant is handled above"),
        }
        m.end()
    }
}

struct F64s<'a>(&'a [f64]);

impl Serialize for F64s<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|&v| F64(v)))
    }
}

struct Rows<I>(I);

impl<I: Iterator<Item = Vec<f32>> + Clone> Serialize for Rows<I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for row in self.0.clone() {
            seq.serialize_element(&Floats(&row))?;
        }
        seq.end()
    }
}

struct SignalForm<'a>(&'a Signal);

impl Serialize for SignalForm<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("name", self.0.name.as_str())?;
        m.serialize_entry("object", &self.0.object.0)?;
        m.end()
    }
}

struct FullForm<'a>(&'a FullObject);

impl Serialize for FullForm<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("class", &self.0.class)?;
        m.serialize_entry("properties", &Props(&self.0.properties))?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for TaggedVariant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(VariantVisitor).map(TaggedVariant)
    }
}

struct VariantVisitor;

impl<'de> Visitor<'de> for VariantVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Variant in the tagged JSON form")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }
    fn visit_none<E: de::Error>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Variant, E> {
        Ok(Variant::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Variant, E> {
        Ok(Variant::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Variant, E> {
        i64::try_from(v).map(Variant::Int).map_err(|_| E::custom(format_args!("int {v} is beyond Godot's 64-bit int")))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Variant, E> {
        Ok(Variant::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Variant, E> {
        Ok(Variant::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Variant, E> {
        Ok(Variant::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Variant, A::Error> {
        Ok(Variant::Array(Box::new(Array::with_element_type(ContainerType::Untyped, read_items(seq)?))))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Variant, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Variant::Dictionary(Box::default()));
        };
        let Some(name) = first.strip_prefix('$') else {
            let mut dict = Dictionary::new();
            let value = map.next_value::<TaggedVariant>()?.0;
            dict.entries_mut().push((Variant::String(first), value));
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value::<TaggedVariant>()?.0;
                dict.entries_mut().push((Variant::String(key), value));
            }
            return Ok(Variant::Dictionary(Box::new(dict)));
        };
        if name == "float" {
            let text = map.next_value::<String>()?;
            let v = non_finite_value(&text).ok_or_else(|| {
                de::Error::custom(format_args!("$float holds \"nan\", \"inf\" or \"-inf\", not {text:?}"))
            })?;
            no_more_keys(&mut map, "$float")?;
            return Ok(Variant::Float(v));
        }
        let ty = VariantType::ALL.iter().copied().find(|t| t.name() == name).ok_or_else(|| {
            de::Error::custom(format_args!(
                "unknown Variant tag {first:?} (expected $ and a Godot type name, e.g. $Vector2)"
            ))
        })?;
        let value = read_payload(ty, &mut map)?;
        Ok(value)
    }
}

fn read_items<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<Variant>, A::Error> {
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
    while let Some(TaggedVariant(v)) = seq.next_element()? {
        items.push(v);
    }
    Ok(items)
}

fn no_more_keys<'de, A: MapAccess<'de>>(map: &mut A, tag: &str) -> Result<(), A::Error> {
    if let Some(key) = map.next_key::<String>()? {
        map.next_value::<IgnoredAny>()?;
        return Err(de::Error::custom(format_args!("unexpected key {key:?} after {tag}")));
    }
    Ok(())
}

fn container_type<E: de::Error>(text: &str) -> Result<ContainerType, E> {
    ContainerType::from_descriptor(text).ok_or_else(|| {
        E::custom(format_args!(
            "unknown container type {text:?} (expected a builtin type name, class:NAME or script:PATH)"
        ))
    })
}

/// Reads the modifiers after `$Array` / `$Dictionary`.
fn modifiers<'de, A: MapAccess<'de>>(
    map: &mut A,
    tag: &str,
    allowed: &[&str],
) -> Result<Vec<(String, ContainerType)>, A::Error> {
    let mut out = Vec::new();
    while let Some(key) = map.next_key::<String>()? {
        if !allowed.contains(&key.as_str()) {
            map.next_value::<IgnoredAny>()?;
            return Err(de::Error::custom(format_args!(
                "unexpected key {key:?} after {tag} (expected {})",
                allowed.join(", ")
            )));
        }
        let text = map.next_value::<String>()?;
        out.push((key, container_type(&text)?));
    }
    Ok(out)
}

fn read_payload<'de, A: MapAccess<'de>>(ty: VariantType, map: &mut A) -> Result<Variant, A::Error> {
    let tag = tag(ty);
    let wrong = |what: &str| de::Error::custom(format_args!("{tag} holds {what}"));
    let value = match ty {
        VariantType::Vector2
        | VariantType::Rect2
        | VariantType::Vector3
        | VariantType::Transform2D
        | VariantType::Vector4
        | VariantType::Plane
        | VariantType::Quaternion
        | VariantType::Aabb
        | VariantType::Basis
        | VariantType::Transform3D
        | VariantType::Projection
        | VariantType::Color => {
            let c: Vec<F32> = map.next_value()?;
            let c: Vec<f32> = c.into_iter().map(|x| x.0).collect();
            floats_to_variant(ty, &c).ok_or_else(|| wrong("the wrong number of components"))?
        }
        VariantType::Vector2i | VariantType::Rect2i | VariantType::Vector3i | VariantType::Vector4i => {
            let c: Vec<i32> = map.next_value()?;
            ints_to_variant(ty, &c).ok_or_else(|| wrong("the wrong number of components"))?
        }
        VariantType::StringName => Variant::StringName(StringName(map.next_value()?)),
        VariantType::NodePath => {
            let p: PathIn = map.next_value()?;
            Variant::NodePath(Box::new(NodePath { names: p.names, subnames: p.subnames, absolute: p.absolute }))
        }
        VariantType::Rid => Variant::Rid(Rid(map.next_value()?)),
        VariantType::Callable => {
            map.next_value::<()>()?;
            Variant::Callable
        }
        VariantType::Signal => {
            let s: SignalIn = map.next_value()?;
            Variant::Signal(Box::new(Signal { name: StringName(s.name), object: ObjectId(s.object) }))
        }
        VariantType::Object => Variant::Object(map.next_value::<ObjectIn>()?.0),
        VariantType::Array => {
            let TaggedItems(items) = map.next_value()?;
            let mut element_type = ContainerType::Untyped;
            for (_, t) in modifiers(map, &tag, &["$element_type"])? {
                element_type = t;
            }
            return Ok(Variant::Array(Box::new(Array::with_element_type(element_type, items))));
        }
        VariantType::Dictionary => {
            let pairs: Vec<(TaggedVariant, TaggedVariant)> = map.next_value()?;
            let (mut key_type, mut value_type) = (ContainerType::Untyped, ContainerType::Untyped);
            for (k, t) in modifiers(map, &tag, &["$key_type", "$value_type"])? {
                if k == "$key_type" {
                    key_type = t;
                } else {
                    value_type = t;
                }
            }
            let mut dict = Dictionary::with_types(key_type, value_type);
            dict.entries_mut().extend(pairs.into_iter().map(|(k, v)| (k.0, v.0)));
            return Ok(Variant::Dictionary(Box::new(dict)));
        }
        VariantType::PackedByteArray => {
            let hex: String = map.next_value()?;
            Variant::PackedByteArray(PackedByteArray(decode_hex(&hex).ok_or_else(|| wrong("lowercase hex digits"))?))
        }
        VariantType::PackedInt32Array => Variant::PackedInt32Array(PackedInt32Array(map.next_value()?)),
        VariantType::PackedInt64Array => Variant::PackedInt64Array(PackedInt64Array(map.next_value()?)),
        VariantType::PackedFloat32Array => {
            let v: Vec<F32> = map.next_value()?;
            Variant::PackedFloat32Array(PackedFloat32Array(v.into_iter().map(|x| x.0).collect()))
        }
        VariantType::PackedFloat64Array => {
            let v: Vec<F64> = map.next_value()?;
            Variant::PackedFloat64Array(PackedFloat64Array(v.into_iter().map(|x| x.0).collect()))
        }
        VariantType::PackedStringArray => Variant::PackedStringArray(PackedStringArray(map.next_value()?)),
        VariantType::PackedVector2Array => {
            let rows: Vec<[F32; 2]> = map.next_value()?;
            Variant::PackedVector2Array(PackedVector2Array(
                rows.into_iter().map(|[x, y]| Vector2::new(x.0, y.0)).collect(),
            ))
        }
        VariantType::PackedVector3Array => {
            let rows: Vec<[F32; 3]> = map.next_value()?;
            Variant::PackedVector3Array(PackedVector3Array(
                rows.into_iter().map(|[x, y, z]| Vector3::new(x.0, y.0, z.0)).collect(),
            ))
        }
        VariantType::PackedVector4Array => {
            let rows: Vec<[F32; 4]> = map.next_value()?;
            Variant::PackedVector4Array(PackedVector4Array(
                rows.into_iter().map(|[x, y, z, w]| Vector4::new(x.0, y.0, z.0, w.0)).collect(),
            ))
        }
        VariantType::PackedColorArray => {
            let rows: Vec<[F32; 4]> = map.next_value()?;
            Variant::PackedColorArray(PackedColorArray(
                rows.into_iter().map(|[r, g, b, a]| Color::new(r.0, g.0, b.0, a.0)).collect(),
            ))
        }
        VariantType::Nil | VariantType::Bool | VariantType::Int | VariantType::Float | VariantType::String => {
            return Err(de::Error::custom(format_args!(
                "{tag} is not a tag: write {} values as plain JSON",
                ty.name()
            )));
        }
    };
    no_more_keys(map, &tag)?;
    Ok(value)
}

struct TaggedItems(Vec<Variant>);

impl<'de> Deserialize<'de> for TaggedItems {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TaggedItems;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of Variants")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TaggedItems, A::Error> {
                read_items(seq).map(TaggedItems)
            }
        }
        d.deserialize_seq(V)
    }
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    hex.as_bytes()
        .chunks(2)
        .map(|p| Some((char::from(p[0]).to_digit(16)? * 16 + char::from(p[1]).to_digit(16)?) as u8))
        .collect()
}

/// `{"names": […], "subnames": […], "absolute": bool}`.
struct PathIn {
    names: Vec<String>,
    subnames: Vec<String>,
    absolute: bool,
}

impl<'de> Deserialize<'de> for PathIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PathIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a NodePath: {\"names\": [...], \"subnames\": [...], \"absolute\": bool}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PathIn, A::Error> {
                let mut p = PathIn { names: Vec::new(), subnames: Vec::new(), absolute: false };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "names" => p.names = map.next_value()?,
                        "subnames" => p.subnames = map.next_value()?,
                        "absolute" => p.absolute = map.next_value()?,
                        _ => return Err(de::Error::unknown_field(&key, &["names", "subnames", "absolute"])),
                    }
                }
                Ok(p)
            }
        }
        d.deserialize_map(V)
    }
}

/// `{"name": …, "object": id}`.
struct SignalIn {
    name: String,
    object: u64,
}

impl<'de> Deserialize<'de> for SignalIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SignalIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Signal: {\"name\": ..., \"object\": id}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SignalIn, A::Error> {
                let mut s = SignalIn { name: String::new(), object: 0 };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "name" => s.name = map.next_value()?,
                        "object" => s.object = map.next_value()?,
                        _ => return Err(de::Error::unknown_field(&key, &["name", "object"])),
                    }
                }
                Ok(s)
            }
        }
        d.deserialize_map(V)
    }
}

/// `null`, an instance id, or `{"class": …, "properties": [[name, value], …]}`.
struct ObjectIn(Object);

impl<'de> Deserialize<'de> for ObjectIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ObjectIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an Object: null, an instance id or {\"class\": ..., \"properties\": [[name, value], ...]}")
            }
            fn visit_unit<E: de::Error>(self) -> Result<ObjectIn, E> {
                Ok(ObjectIn(Object::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<ObjectIn, E> {
                Ok(ObjectIn(Object::Null))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ObjectIn, E> {
                Ok(ObjectIn(Object::Id(ObjectId(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectIn, A::Error> {
                let mut o = FullObject::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "class" => o.class = map.next_value()?,
                        "properties" => {
                            let props: Vec<(String, TaggedVariant)> = map.next_value()?;
                            o.properties = props.into_iter().map(|(k, v)| (k, v.0)).collect();
                        }
                        _ => return Err(de::Error::unknown_field(&key, &["class", "properties"])),
                    }
                }
                Ok(ObjectIn(Object::Full(Box::new(o))))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn round_trip(v: &Variant) -> String {
        let text = serde_json::to_string(&Tagged(v)).unwrap();
        let back: TaggedVariant = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        // Debug, not ==, so that NaN compares equal to NaN.
        assert_eq!(format!("{:?}", back.0), format!("{v:?}"), "{text}");
        let opts = Options::new().full_objects(true).typed_containers(true);
        assert_eq!(back.0.to_bytes(&opts).unwrap(), v.to_bytes(&opts).unwrap(), "{text}");
        text
    }

    fn every_type() -> Vec<Variant> {
        let mut typed =
            Dictionary::with_types(ContainerType::Builtin(VariantType::Int), ContainerType::ClassName("Node".into()));
        typed.insert(Variant::Int(1), Variant::Object(Object::Id(ObjectId(77))));
        let mut repeated = Dictionary::new();
        repeated.entries_mut().push((Variant::from("a"), Variant::Int(1)));
        repeated.entries_mut().push((Variant::Int(5), Variant::Nil));
        let mut dollar = Dictionary::new();
        dollar.insert(Variant::from("$Vector2"), Variant::Int(1));
        vec![
            Variant::Nil,
            Variant::Bool(true),
            Variant::Int(-7),
            Variant::Int(i64::MIN),
            Variant::Float(1.0),
            Variant::Float(0.1),
            Variant::Float(f64::NAN),
            Variant::Float(f64::NEG_INFINITY),
            Variant::from("text"),
            Variant::Vector2(Vector2::new(0.1, f32::INFINITY)),
            Variant::Vector2i(Vector2i::new(1, -2)),
            Variant::Rect2(Rect2::new(1.0, 2.0, 3.0, 4.5)),
            Variant::Rect2i(Rect2i::new(1, 2, 3, 4)),
            Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
            Variant::Vector3i(Vector3i::new(1, 2, 3)),
            Variant::Transform2D(Box::new(Transform2D::new(
                Vector2::new(1.0, 0.0),
                Vector2::new(0.0, 1.0),
                Vector2::new(5.0, 6.0),
            ))),
            Variant::Vector4(Vector4::new(1.0, 2.0, 3.0, 4.0)),
            Variant::Vector4i(Vector4i::new(1, 2, 3, 4)),
            Variant::Plane(Plane::new(0.0, 1.0, 0.0, 2.5)),
            Variant::Quaternion(Quaternion::new(0.0, 0.0, 0.0, 1.0)),
            Variant::Aabb(Box::new(Aabb::new(Vector3::new(1.0, 2.0, 3.0), Vector3::new(4.0, 5.0, 6.0)))),
            Variant::Basis(Box::new(Basis::from_columns(
                Vector3::new(1.0, 2.0, 3.0),
                Vector3::new(4.0, 5.0, 6.0),
                Vector3::new(7.0, 8.0, 9.0),
            ))),
            Variant::Transform3D(Box::new(Transform3D::new(
                Basis::from_columns(
                    Vector3::new(1.0, 0.0, 0.0),
                    Vector3::new(0.0, 1.0, 0.0),
                    Vector3::new(0.0, 0.0, 1.0),
                ),
                Vector3::new(1.0, 2.0, 3.0),
            ))),
            Variant::Projection(Box::new(Projection::IDENTITY)),
            Variant::Color(Color::new(1.0, 0.5, 0.25, 1.0)),
            Variant::StringName(StringName::from("name")),
            Variant::NodePath(Box::new(NodePath {
                names: vec!["root".into(), "Main".into()],
                subnames: vec!["position".into()],
                absolute: true,
            })),
            Variant::Rid(Rid(12)),
            Variant::Object(Object::Null),
            Variant::Object(Object::Id(ObjectId(u64::MAX))),
            Variant::Object(Object::Full(Box::new(FullObject {
                class: "Resource".into(),
                properties: vec![("script".into(), Variant::Nil), ("hp".into(), Variant::Int(3))],
            }))),
            Variant::Callable,
            Variant::Signal(Box::new(Signal { name: StringName::from("hit"), object: ObjectId(9) })),
            Variant::Dictionary(Box::new(typed)),
            Variant::Dictionary(Box::new(repeated)),
            Variant::Dictionary(Box::new(dollar)),
            Variant::Dictionary(Box::default()),
            Variant::Array(Box::new(Array::with_element_type(
                ContainerType::Builtin(VariantType::Int),
                vec![Variant::Int(1)],
            ))),
            Variant::Array(Box::new(Array::with_element_type(ContainerType::Script("res://u.gd".into()), vec![]))),
            Variant::Array(Box::new(Array::with_element_type(
                ContainerType::Untyped,
                vec![Variant::Nil, Variant::from("x")],
            ))),
            Variant::PackedByteArray(PackedByteArray(vec![0, 1, 0xfe, 0xff])),
            Variant::PackedInt32Array(PackedInt32Array(vec![1, -2])),
            Variant::PackedInt64Array(PackedInt64Array(vec![i64::MAX])),
            Variant::PackedFloat32Array(PackedFloat32Array(vec![0.1, f32::NAN])),
            Variant::PackedFloat64Array(PackedFloat64Array(vec![0.1, f64::INFINITY])),
            Variant::PackedStringArray(PackedStringArray(vec!["a".into(), "".into()])),
            Variant::PackedVector2Array(PackedVector2Array(vec![Vector2::new(1.0, 2.0)])),
            Variant::PackedVector3Array(PackedVector3Array(vec![Vector3::new(1.0, 2.0, 3.0)])),
            Variant::PackedColorArray(PackedColorArray(vec![Color::new(1.0, 0.0, 0.0, 1.0)])),
            Variant::PackedVector4Array(PackedVector4Array(vec![Vector4::new(1.0, 2.0, 3.0, 4.0)])),
        ]
    }

    #[test]
    fn every_type_round_trips_to_the_same_variant_and_bytes() {
        let all = every_type();
        assert_eq!(
            all.iter().map(Variant::variant_type).collect::<std::collections::BTreeSet<_>>().len(),
            VariantType::ALL.len(),
            "every Variant type is covered"
        );
        for v in &all {
            round_trip(v);
        }
        // And all of them nested in one array and one dictionary.
        round_trip(&Variant::Array(Box::new(Array::with_element_type(ContainerType::Untyped, all.clone()))));
        let mut d = Dictionary::new();
        for (i, v) in all.into_iter().enumerate() {
            d.insert(Variant::from(format!("k{i}")), v);
        }
        round_trip(&Variant::Dictionary(Box::new(d)));
    }

    #[test]
    fn the_form_reads_as_documented() {
        assert_eq!(round_trip(&Variant::Float(3.0)), "3.0");
        assert_eq!(round_trip(&Variant::Int(3)), "3");
        assert_eq!(round_trip(&Variant::Float(f64::NAN)), r#"{"$float":"nan"}"#);
        assert_eq!(round_trip(&Variant::Vector2(Vector2::new(0.1, 2.0))), r#"{"$Vector2":[0.1,2.0]}"#);
        assert_eq!(
            round_trip(&Variant::PackedByteArray(PackedByteArray(vec![0, 255]))),
            r#"{"$PackedByteArray":"00ff"}"#
        );
        let typed = Variant::Array(Box::new(Array::with_element_type(
            ContainerType::Builtin(VariantType::Int),
            vec![Variant::Int(1)],
        )));
        assert_eq!(round_trip(&typed), r#"{"$Array":[1],"$element_type":"int"}"#);
        let mut dollar = Dictionary::new();
        dollar.insert(Variant::from("$x"), Variant::Int(1));
        assert_eq!(round_trip(&Variant::Dictionary(Box::new(dollar))), r#"{"$Dictionary":[["$x",1]]}"#);
    }

    #[test]
    fn malformed_input_names_what_was_expected() {
        for (text, expected) in [
            (r#"{"$Vector9":[1]}"#, "unknown Variant tag"),
            (r#"{"$Vector2":[1]}"#, "wrong number of components"),
            (r#"{"$Vector2":[1,2],"x":1}"#, "unexpected key \"x\""),
            (r#"{"$float":"NaN"}"#, "$float holds"),
            (r#"{"$int":1}"#, "not a tag"),
            (r#"{"$Array":[],"$element_type":"Nope"}"#, "unknown container type"),
            (r#"{"$PackedByteArray":"0g"}"#, "hex"),
            ("18446744073709551615", "beyond Godot's 64-bit int"),
        ] {
            let err = serde_json::from_str::<TaggedVariant>(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
