//! [`Variant`]: a dynamic value for every Godot 4 and Godot 3 type, like `serde_json::Value`.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};

use serde_core::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{Serialize, SerializeStruct, Serializer};

use crate::types::FieldSeed;
use crate::{
    Aabb, Array, Basis, Callable, Color, Dictionary, NodePath, ObjectId, Options, PackedByteArray, PackedColorArray,
    PackedFloat32Array, PackedFloat64Array, PackedInt32Array, PackedInt64Array, PackedStringArray, PackedVector2Array,
    PackedVector3Array, PackedVector4Array, Plane, Projection, Quaternion, Rect2, Rect2i, Result, Rid, Signal,
    StringName, Transform2D, Transform3D, VariantType, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i, magic,
};

/// Any Godot value.
///
/// Lossless for everything the engine sends: decoding with [`Variant::from_bytes`] (or as a
/// `Variant` field through serde-godot's Deserializer) keeps the exact type — String vs
/// StringName, PackedInt32Array vs Array, typed Array and Dictionary element types, object ids —
/// and encoding writes it back the way the engine does (canonical integer and float widths,
/// zeroed padding). Godot's own normalisations apply: a null object is sent as `null`, and a
/// repeated Dictionary key keeps its first position and last value.
///
/// Large payloads are boxed so that a `Variant` is 32 bytes. [`Display`](fmt::Display) prints
/// Godot's text form (`Vector2(1, 2)`, `{"hp": 10}`); `From` impls build Variants from Rust
/// values.
///
/// With other serde formats a Variant is the natural data-model value (numbers, strings,
/// sequences, maps; math types as their structs), which is lossy in the way any conversion to
/// JSON is.
///
/// ```
/// use serde_godot::{Variant, Vector2};
///
/// let msg = Variant::from([("cmd", Variant::from("move")), ("to", Variant::from(Vector2::new(3.0, 4.0)))]);
/// let bytes = msg.to_bytes(&Default::default())?;
/// let back = Variant::from_bytes(&bytes, &Default::default())?;
/// assert_eq!(back, msg);
/// assert_eq!(back.to_string(), r#"{"cmd": "move", "to": Vector2(3, 4)}"#);
/// # Ok::<(), serde_godot::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Variant {
    /// `null`.
    #[default]
    Nil,
    /// `bool`.
    Bool(bool),
    /// `int`.
    Int(i64),
    /// `float` (decoded 32-bit floats are widened exactly).
    Float(f64),
    /// `String`.
    String(String),
    /// `Vector2`.
    Vector2(Vector2),
    /// `Vector2i`.
    Vector2i(Vector2i),
    /// `Rect2`.
    Rect2(Rect2),
    /// `Rect2i`.
    Rect2i(Rect2i),
    /// `Vector3`.
    Vector3(Vector3),
    /// `Vector3i`.
    Vector3i(Vector3i),
    /// `Transform2D`.
    Transform2D(Box<Transform2D>),
    /// `Vector4`.
    Vector4(Vector4),
    /// `Vector4i`.
    Vector4i(Vector4i),
    /// `Plane`.
    Plane(Plane),
    /// `Quaternion`.
    Quaternion(Quaternion),
    /// `AABB`.
    Aabb(Box<Aabb>),
    /// `Basis`.
    Basis(Box<Basis>),
    /// `Transform3D`.
    Transform3D(Box<Transform3D>),
    /// `Projection`.
    Projection(Box<Projection>),
    /// `Color`.
    Color(Color),
    /// `StringName`.
    StringName(StringName),
    /// `NodePath`.
    NodePath(Box<NodePath>),
    /// `RID`.
    Rid(Rid),
    /// `Object`: null, an instance id, or a full object.
    Object(Object),
    /// `Callable` (never has a payload on the wire).
    Callable,
    /// `Signal`.
    Signal(Box<Signal>),
    /// `Dictionary`.
    Dictionary(Box<Dictionary>),
    /// `Array`.
    Array(Box<Array>),
    /// `PackedByteArray`.
    PackedByteArray(PackedByteArray),
    /// `PackedInt32Array`.
    PackedInt32Array(PackedInt32Array),
    /// `PackedInt64Array`.
    PackedInt64Array(PackedInt64Array),
    /// `PackedFloat32Array`.
    PackedFloat32Array(PackedFloat32Array),
    /// `PackedFloat64Array`.
    PackedFloat64Array(PackedFloat64Array),
    /// `PackedStringArray`.
    PackedStringArray(PackedStringArray),
    /// `PackedVector2Array`.
    PackedVector2Array(PackedVector2Array),
    /// `PackedVector3Array`.
    PackedVector3Array(PackedVector3Array),
    /// `PackedColorArray`.
    PackedColorArray(PackedColorArray),
    /// `PackedVector4Array`.
    PackedVector4Array(PackedVector4Array),
}

/// An `Object` Variant.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Object {
    /// The null object (also what a freed object becomes). Encoded as `null`, like the engine.
    #[default]
    Null,
    /// An object sent as its instance id (`EncodedObjectAsID`), the default for objects.
    Id(ObjectId),
    /// A full object: class name and stored properties (needs
    /// [`Options::full_objects`](crate::Options::full_objects)).
    Full(Box<FullObject>),
}

/// A full object: what `var_to_bytes(obj, true)` sends.
///
/// Decoding one is refused unless [`Options::full_objects`](crate::Options::full_objects) is on;
/// serde-godot never instantiates anything, it only hands you the class name and properties.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FullObject {
    /// The class name (e.g. `Resource`).
    pub class: String,
    /// The properties with storage usage, in the engine's order (`script` is a `res://` path).
    pub properties: Vec<(String, Variant)>,
}

impl Variant {
    /// Encodes the Variant with `opts` (equivalent to `opts.to_vec(self)`).
    pub fn to_bytes(&self, opts: &Options) -> Result<Vec<u8>> {
        opts.to_vec(self)
    }

    /// Decodes one Variant from exactly `bytes` (trailing bytes are an error).
    pub fn from_bytes(bytes: &[u8], opts: &Options) -> Result<Variant> {
        let mut reader = crate::wire::Reader::new(bytes);
        let value = crate::decode::decode(&mut reader, opts, 0)?;
        match reader.remaining() {
            0 => Ok(value),
            n => Err(crate::Error::at(crate::ErrorKind::TrailingBytes(n), reader.pos())),
        }
    }

    /// Decodes one Variant from the start of `bytes` and returns it with the rest of the input,
    /// like the engine's `bytes_to_var` (which ignores trailing bytes).
    pub fn take_from_bytes<'b>(bytes: &'b [u8], opts: &Options) -> Result<(Variant, &'b [u8])> {
        let mut reader = crate::wire::Reader::new(bytes);
        let value = crate::decode::decode(&mut reader, opts, 0)?;
        Ok((value, reader.rest()))
    }

    /// The Variant's type.
    pub fn variant_type(&self) -> VariantType {
        use VariantType as T;
        match self {
            Variant::Nil => T::Nil,
            Variant::Bool(_) => T::Bool,
            Variant::Int(_) => T::Int,
            Variant::Float(_) => T::Float,
            Variant::String(_) => T::String,
            Variant::Vector2(_) => T::Vector2,
            Variant::Vector2i(_) => T::Vector2i,
            Variant::Rect2(_) => T::Rect2,
            Variant::Rect2i(_) => T::Rect2i,
            Variant::Vector3(_) => T::Vector3,
            Variant::Vector3i(_) => T::Vector3i,
            Variant::Transform2D(_) => T::Transform2D,
            Variant::Vector4(_) => T::Vector4,
            Variant::Vector4i(_) => T::Vector4i,
            Variant::Plane(_) => T::Plane,
            Variant::Quaternion(_) => T::Quaternion,
            Variant::Aabb(_) => T::Aabb,
            Variant::Basis(_) => T::Basis,
            Variant::Transform3D(_) => T::Transform3D,
            Variant::Projection(_) => T::Projection,
            Variant::Color(_) => T::Color,
            Variant::StringName(_) => T::StringName,
            Variant::NodePath(_) => T::NodePath,
            Variant::Rid(_) => T::Rid,
            Variant::Object(_) => T::Object,
            Variant::Callable => T::Callable,
            Variant::Signal(_) => T::Signal,
            Variant::Dictionary(_) => T::Dictionary,
            Variant::Array(_) => T::Array,
            Variant::PackedByteArray(_) => T::PackedByteArray,
            Variant::PackedInt32Array(_) => T::PackedInt32Array,
            Variant::PackedInt64Array(_) => T::PackedInt64Array,
            Variant::PackedFloat32Array(_) => T::PackedFloat32Array,
            Variant::PackedFloat64Array(_) => T::PackedFloat64Array,
            Variant::PackedStringArray(_) => T::PackedStringArray,
            Variant::PackedVector2Array(_) => T::PackedVector2Array,
            Variant::PackedVector3Array(_) => T::PackedVector3Array,
            Variant::PackedColorArray(_) => T::PackedColorArray,
            Variant::PackedVector4Array(_) => T::PackedVector4Array,
        }
    }

    /// Whether this is `null`.
    pub fn is_nil(&self) -> bool {
        matches!(self, Variant::Nil)
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Variant::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The int, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Variant::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The number as `f64`, if this is a float or an int.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Variant::Float(f) => Some(*f),
            Variant::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// The text, if this is a String or a StringName.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Variant::String(s) => Some(s),
            Variant::StringName(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The array, if this is an Array.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Variant::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The dictionary, if this is a Dictionary.
    pub fn as_dictionary(&self) -> Option<&Dictionary> {
        match self {
            Variant::Dictionary(d) => Some(d),
            _ => None,
        }
    }

    /// Looks up `key` in a Dictionary (`None` if this is not a Dictionary or has no such key).
    ///
    /// ```
    /// # use serde_godot::Variant;
    /// let v = Variant::from([("hp", 10)]);
    /// assert_eq!(v.get("hp"), Some(&Variant::Int(10)));
    /// ```
    pub fn get<Q: ?Sized>(&self, key: &Q) -> Option<&Variant>
    where
        Variant: PartialEq<Q>,
    {
        self.as_dictionary()?.get(key)
    }
}

impl PartialEq<str> for Variant {
    /// A String or StringName with this text.
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Variant {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<i64> for Variant {
    /// An int with this value.
    fn eq(&self, other: &i64) -> bool {
        self.as_int() == Some(*other)
    }
}

macro_rules! from_impls {
    ($($ty:ty => |$v:ident| $e:expr;)*) => {$(
        impl From<$ty> for Variant {
            fn from($v: $ty) -> Self {
                $e
            }
        }
    )*};
}

from_impls! {
    () => |_v| Variant::Nil;
    bool => |v| Variant::Bool(v);
    i8 => |v| Variant::Int(v.into());
    i16 => |v| Variant::Int(v.into());
    i32 => |v| Variant::Int(v.into());
    i64 => |v| Variant::Int(v);
    u8 => |v| Variant::Int(v.into());
    u16 => |v| Variant::Int(v.into());
    u32 => |v| Variant::Int(v.into());
    f32 => |v| Variant::Float(v.into());
    f64 => |v| Variant::Float(v);
    &str => |v| Variant::String(v.to_owned());
    String => |v| Variant::String(v);
    Vector2 => |v| Variant::Vector2(v);
    Vector2i => |v| Variant::Vector2i(v);
    Rect2 => |v| Variant::Rect2(v);
    Rect2i => |v| Variant::Rect2i(v);
    Vector3 => |v| Variant::Vector3(v);
    Vector3i => |v| Variant::Vector3i(v);
    Transform2D => |v| Variant::Transform2D(Box::new(v));
    Vector4 => |v| Variant::Vector4(v);
    Vector4i => |v| Variant::Vector4i(v);
    Plane => |v| Variant::Plane(v);
    Quaternion => |v| Variant::Quaternion(v);
    Aabb => |v| Variant::Aabb(Box::new(v));
    Basis => |v| Variant::Basis(Box::new(v));
    Transform3D => |v| Variant::Transform3D(Box::new(v));
    Projection => |v| Variant::Projection(Box::new(v));
    Color => |v| Variant::Color(v);
    StringName => |v| Variant::StringName(v);
    NodePath => |v| Variant::NodePath(Box::new(v));
    Rid => |v| Variant::Rid(v);
    ObjectId => |v| Variant::Object(if v.0 == 0 { Object::Null } else { Object::Id(v) });
    Object => |v| Variant::Object(v);
    FullObject => |v| Variant::Object(Object::Full(Box::new(v)));
    Callable => |_v| Variant::Callable;
    Signal => |v| Variant::Signal(Box::new(v));
    Dictionary => |v| Variant::Dictionary(Box::new(v));
    Array => |v| Variant::Array(Box::new(v));
    Vec<Variant> => |v| Variant::Array(Box::new(Array::from(v)));
    PackedByteArray => |v| Variant::PackedByteArray(v);
    PackedInt32Array => |v| Variant::PackedInt32Array(v);
    PackedInt64Array => |v| Variant::PackedInt64Array(v);
    PackedFloat32Array => |v| Variant::PackedFloat32Array(v);
    PackedFloat64Array => |v| Variant::PackedFloat64Array(v);
    PackedStringArray => |v| Variant::PackedStringArray(v);
    PackedVector2Array => |v| Variant::PackedVector2Array(v);
    PackedVector3Array => |v| Variant::PackedVector3Array(v);
    PackedColorArray => |v| Variant::PackedColorArray(v);
    PackedVector4Array => |v| Variant::PackedVector4Array(v);
}

impl<T: Into<Variant>> From<Option<T>> for Variant {
    /// `None` is `null`.
    fn from(v: Option<T>) -> Self {
        v.map_or(Variant::Nil, Into::into)
    }
}

impl<K: Into<Variant>, V: Into<Variant>, const N: usize> From<[(K, V); N]> for Variant {
    /// An untyped Dictionary of the pairs, in order.
    fn from(pairs: [(K, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<Variant>, V: Into<Variant>> FromIterator<(K, V)> for Variant {
    /// An untyped Dictionary of the pairs, in order (a repeated key keeps its first position and
    /// last value).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut dict = Dictionary::new();
        for (k, v) in iter {
            dict.insert(k.into(), v.into());
        }
        Variant::Dictionary(Box::new(dict))
    }
}

impl FromIterator<Variant> for Variant {
    /// An untyped Array.
    fn from_iter<I: IntoIterator<Item = Variant>>(iter: I) -> Self {
        Variant::Array(Box::new(iter.into_iter().collect()))
    }
}

// ---------------------------------------------------------------------------------------------
// Dictionary key semantics (Godot's `hash_compare`): floats compare equal when `==` or both NaN.

/// Hashes a Variant consistently with [`key_eq`].
pub(crate) fn key_hash<H: Hasher>(v: &Variant, h: &mut H) {
    fn real<H: Hasher>(f: f64, h: &mut H) {
        // +0.0 and -0.0 are equal keys, and so are all NaNs.
        let bits = if f == 0.0 {
            0
        } else if f.is_nan() {
            1
        } else {
            f.to_bits()
        };
        h.write_u64(bits);
    }
    fn reals<H: Hasher>(fs: &[f32], h: &mut H) {
        for f in fs {
            real(*f as f64, h);
        }
    }
    (v.variant_type() as u8).hash(h);
    match v {
        Variant::Nil | Variant::Callable => {}
        Variant::Bool(b) => b.hash(h),
        Variant::Int(i) => i.hash(h),
        Variant::Float(f) => real(*f, h),
        Variant::String(s) => s.hash(h),
        Variant::StringName(s) => s.hash(h),
        Variant::Vector2(a) => reals(&[a.x, a.y], h),
        Variant::Vector3(a) => reals(&[a.x, a.y, a.z], h),
        Variant::Vector4(a) => reals(&[a.x, a.y, a.z, a.w], h),
        Variant::Quaternion(a) => reals(&[a.x, a.y, a.z, a.w], h),
        Variant::Color(a) => reals(&[a.r, a.g, a.b, a.a], h),
        Variant::Vector2i(a) => a.hash(h),
        Variant::Vector3i(a) => a.hash(h),
        Variant::Vector4i(a) => a.hash(h),
        Variant::Rect2i(a) => a.hash(h),
        Variant::NodePath(p) => p.hash(h),
        Variant::Rid(r) => r.hash(h),
        Variant::Signal(s) => s.hash(h),
        Variant::Object(Object::Id(id)) => id.hash(h),
        Variant::Array(a) => {
            a.len().hash(h);
            for e in a.iter() {
                key_hash(e, h);
            }
        }
        Variant::Dictionary(d) => d.len().hash(h),
        Variant::PackedByteArray(a) => a.hash(h),
        Variant::PackedInt32Array(a) => a.hash(h),
        Variant::PackedInt64Array(a) => a.hash(h),
        Variant::PackedStringArray(a) => a.hash(h),
        // The remaining types only feed their length; key_eq decides.
        Variant::PackedFloat32Array(a) => a.len().hash(h),
        Variant::PackedFloat64Array(a) => a.len().hash(h),
        Variant::PackedVector2Array(a) => a.len().hash(h),
        Variant::PackedVector3Array(a) => a.len().hash(h),
        Variant::PackedColorArray(a) => a.len().hash(h),
        Variant::PackedVector4Array(a) => a.len().hash(h),
        Variant::Rect2(_)
        | Variant::Transform2D(_)
        | Variant::Plane(_)
        | Variant::Aabb(_)
        | Variant::Basis(_)
        | Variant::Transform3D(_)
        | Variant::Projection(_)
        | Variant::Object(_) => {}
    }
}

/// Whether two Variants are the same Dictionary key.
pub(crate) fn key_eq(a: &Variant, b: &Variant) -> bool {
    fn f(x: f64, y: f64) -> bool {
        x == y || (x.is_nan() && y.is_nan())
    }
    fn fs(x: &[f32], y: &[f32]) -> bool {
        x.len() == y.len() && x.iter().zip(y).all(|(x, y)| f(*x as f64, *y as f64))
    }
    use crate::text::Components;
    match (a, b) {
        (Variant::Float(x), Variant::Float(y)) => f(*x, *y),
        (Variant::Array(x), Variant::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| key_eq(x, y))
        }
        (Variant::Dictionary(x), Variant::Dictionary(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|((xk, xv), (yk, yv))| key_eq(xk, yk) && key_eq(xv, yv))
        }
        _ if a.variant_type() != b.variant_type() => false,
        _ => match (a.components(), b.components()) {
            (Some(x), Some(y)) => fs(&x, &y),
            _ => a == b,
        },
    }
}

/// Builds a Dictionary the way the engine fills one (`dict[key] = value`): a repeated key keeps
/// its first position and takes the last value. Small dictionaries scan; large ones use a hash
/// index, so a hostile input with many entries stays linear.
pub(crate) struct DictBuilder {
    dict: Dictionary,
    index: Option<(RandomState, HashMap<u64, usize>)>,
}

impl DictBuilder {
    const SCAN_LIMIT: usize = 16;

    pub(crate) fn new(dict: Dictionary) -> Self {
        DictBuilder { dict, index: None }
    }

    pub(crate) fn insert(&mut self, key: Variant, value: Variant) {
        let entries = self.dict.entries_mut();
        if self.index.is_none() {
            if let Some(slot) = entries.iter_mut().find(|(k, _)| key_eq(k, &key)) {
                slot.1 = value;
                return;
            }
            if entries.len() < Self::SCAN_LIMIT {
                entries.push((key, value));
                return;
            }
            let state = RandomState::new();
            let mut index = HashMap::with_capacity(entries.len() * 2);
            for (i, (k, _)) in entries.iter().enumerate() {
                index.entry(hash_with(&state, k)).or_insert(i);
            }
            self.index = Some((state, index));
        }
        let (state, index) = self.index.as_mut().expect("index built above");
        let hash = hash_with(state, &key);
        match index.get(&hash) {
            None => {
                index.insert(hash, entries.len());
                entries.push((key, value));
            }
            Some(&i) if key_eq(&entries[i].0, &key) => entries[i].1 = value,
            Some(_) => match entries.iter_mut().find(|(k, _)| key_eq(k, &key)) {
                // A genuine 64-bit hash collision (keyed SipHash, so not attacker-made): scan.
                Some(slot) => slot.1 = value,
                None => entries.push((key, value)),
            },
        }
    }

    pub(crate) fn finish(self) -> Dictionary {
        self.dict
    }
}

fn hash_with(state: &RandomState, key: &Variant) -> u64 {
    let mut hasher = state.build_hasher();
    key_hash(key, &mut hasher);
    hasher.finish()
}

// ---------------------------------------------------------------------------------------------
// serde

impl Serialize for Variant {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Variant::Nil => serializer.serialize_unit(),
            Variant::Bool(b) => serializer.serialize_bool(*b),
            Variant::Int(i) => serializer.serialize_i64(*i),
            Variant::Float(f) => serializer.serialize_f64(*f),
            Variant::String(s) => serializer.serialize_str(s),
            Variant::Vector2(v) => v.serialize(serializer),
            Variant::Vector2i(v) => v.serialize(serializer),
            Variant::Rect2(v) => v.serialize(serializer),
            Variant::Rect2i(v) => v.serialize(serializer),
            Variant::Vector3(v) => v.serialize(serializer),
            Variant::Vector3i(v) => v.serialize(serializer),
            Variant::Transform2D(v) => v.serialize(serializer),
            Variant::Vector4(v) => v.serialize(serializer),
            Variant::Vector4i(v) => v.serialize(serializer),
            Variant::Plane(v) => v.serialize(serializer),
            Variant::Quaternion(v) => v.serialize(serializer),
            Variant::Aabb(v) => v.serialize(serializer),
            Variant::Basis(v) => v.serialize(serializer),
            Variant::Transform3D(v) => v.serialize(serializer),
            Variant::Projection(v) => v.serialize(serializer),
            Variant::Color(v) => v.serialize(serializer),
            Variant::StringName(v) => v.serialize(serializer),
            Variant::NodePath(v) => v.serialize(serializer),
            Variant::Rid(v) => v.serialize(serializer),
            Variant::Object(Object::Null) => serializer.serialize_unit(),
            Variant::Object(Object::Id(id)) => id.serialize(serializer),
            Variant::Object(Object::Full(obj)) => obj.serialize(serializer),
            Variant::Callable => Callable.serialize(serializer),
            Variant::Signal(v) => v.serialize(serializer),
            Variant::Dictionary(v) => v.serialize(serializer),
            Variant::Array(v) => v.serialize(serializer),
            Variant::PackedByteArray(v) => v.serialize(serializer),
            Variant::PackedInt32Array(v) => v.serialize(serializer),
            Variant::PackedInt64Array(v) => v.serialize(serializer),
            Variant::PackedFloat32Array(v) => v.serialize(serializer),
            Variant::PackedFloat64Array(v) => v.serialize(serializer),
            Variant::PackedStringArray(v) => v.serialize(serializer),
            Variant::PackedVector2Array(v) => v.serialize(serializer),
            Variant::PackedVector3Array(v) => v.serialize(serializer),
            Variant::PackedColorArray(v) => v.serialize(serializer),
            Variant::PackedVector4Array(v) => v.serialize(serializer),
        }
    }
}

const FULL_OBJECT_FIELDS: &[&str] = &["class", "properties"];

impl Serialize for FullObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct(magic::FULL_OBJECT, 2)?;
        state.serialize_field("class", &self.class)?;
        state.serialize_field("properties", &self.properties)?;
        state.end()
    }
}

impl<'de> Deserialize<'de> for FullObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FullObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a full object")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<FullObject, A::Error> {
                let class = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let properties = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                Ok(FullObject { class, properties })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<FullObject, A::Error> {
                let mut obj = FullObject::default();
                while let Some(key) = map.next_key_seed(FieldSeed(FULL_OBJECT_FIELDS))? {
                    match key {
                        Some("class") => obj.class = map.next_value()?,
                        Some("properties") => obj.properties = map.next_value()?,
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(obj)
            }
        }
        deserializer.deserialize_struct(magic::FULL_OBJECT, FULL_OBJECT_FIELDS, V)
    }
}

thread_local! {
    /// Where serde-godot's Deserializer leaves a Variant it decoded directly, for `Variant`'s own
    /// visitor to pick up (see `de.rs`). Set and taken within one `visit_map` call.
    pub(crate) static HANDOFF: Cell<Option<Variant>> = const { Cell::new(None) };
}

impl<'de> Deserialize<'de> for Variant {
    /// With serde-godot's Deserializer the Variant is decoded directly and losslessly; with any
    /// other Deserializer it is built from the data model (numbers, strings, sequences as Arrays,
    /// maps as Dictionaries, bytes as PackedByteArray).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(magic::VARIANT, HandoffVisitor)
    }
}

/// The visitor serde-godot's Deserializer recognises: its one-entry map hands over a decoded
/// Variant; everything else is the generic data-model path.
struct HandoffVisitor;

impl<'de> Visitor<'de> for HandoffVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any Godot value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Variant, D::Error> {
        d.deserialize_any(VariantVisitor)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Variant, A::Error> {
        let Some(first) = map.next_key::<Variant>()? else {
            return Ok(Variant::Dictionary(Box::default()));
        };
        if first == *magic::VARIANT_HANDOFF_KEY {
            map.next_value::<de::IgnoredAny>()?;
            return HANDOFF
                .take()
                .ok_or_else(|| de::Error::custom("serde-godot: no Variant to hand over (internal error)"));
        }
        VariantVisitor.dictionary(Some(first), map)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_i64(v)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_i128(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_u64(v)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_u128(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_string(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_bytes(v)
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_byte_buf(v)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Variant, D::Error> {
        VariantVisitor.visit_some(d)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Variant, E> {
        VariantVisitor.visit_unit()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Variant, A::Error> {
        VariantVisitor.visit_seq(seq)
    }
}

/// Builds a Variant from the serde data model.
struct VariantVisitor;

impl VariantVisitor {
    fn dictionary<'de, A: MapAccess<'de>>(
        self,
        first: Option<Variant>,
        mut map: A,
    ) -> std::result::Result<Variant, A::Error> {
        let mut dict = DictBuilder::new(Dictionary::new());
        if let Some(key) = first {
            dict.insert(key, map.next_value()?);
        }
        while let Some((k, v)) = map.next_entry::<Variant, Variant>()? {
            dict.insert(k, v);
        }
        Ok(Variant::Dictionary(Box::new(dict.finish())))
    }
}

impl<'de> Visitor<'de> for VariantVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any Godot value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Variant, E> {
        Ok(Variant::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Variant, E> {
        Ok(Variant::Int(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> std::result::Result<Variant, E> {
        i64::try_from(v).map(Variant::Int).map_err(|_| E::custom("integer does not fit Godot's 64-bit int"))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Variant, E> {
        i64::try_from(v).map(Variant::Int).map_err(|_| E::custom("integer does not fit Godot's 64-bit int"))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Variant, E> {
        i64::try_from(v).map(Variant::Int).map_err(|_| E::custom("integer does not fit Godot's 64-bit int"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Variant, E> {
        Ok(Variant::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Variant, E> {
        Ok(Variant::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Variant, E> {
        Ok(Variant::String(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Variant, E> {
        Ok(Variant::PackedByteArray(PackedByteArray(v.to_vec())))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> std::result::Result<Variant, E> {
        Ok(Variant::PackedByteArray(PackedByteArray(v)))
    }

    fn visit_none<E: de::Error>(self) -> std::result::Result<Variant, E> {
        Ok(Variant::Nil)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Variant, D::Error> {
        Variant::deserialize(d)
    }

    fn visit_unit<E: de::Error>(self) -> std::result::Result<Variant, E> {
        Ok(Variant::Nil)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Variant, D::Error> {
        Variant::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Variant, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Variant::from(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Variant, A::Error> {
        self.dictionary(None, map)
    }
}
