//! [`Variant`]: a dynamic value for every Godot 4 and Godot 3 type, like `serde_json::Value`.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hash, Hasher, RandomState};
use std::ops::Deref;

use serde_core::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
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
/// Godot 4's text form exactly as `var_to_str` does (`Vector2(1, 2)`, `{\n"hp": 10\n}`; see
/// [`crate::text`]); `From` impls build Variants from Rust values.
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
/// assert_eq!(back.to_string(), "{\n\"cmd\": \"move\",\n\"to\": Vector2(3, 4)\n}");
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

/// Up to 16 float components, without allocating (Dictionary keys are compared and hashed by
/// them).
pub(crate) struct Reals {
    values: [f32; 16],
    len: usize,
}

impl Reals {
    fn new(values: &[f32]) -> Reals {
        let mut out = Reals { values: [0.0; 16], len: values.len() };
        out.values[..values.len()].copy_from_slice(values);
        out
    }
}

impl Deref for Reals {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.values[..self.len]
    }
}

impl Variant {
    /// The float components of a math Variant in wire order (`None` for other types): what it is
    /// printed, compared and hashed by as a Dictionary key.
    pub(crate) fn components(&self) -> Option<Reals> {
        Some(match self {
            Variant::Vector2(v) => Reals::new(&[v.x, v.y]),
            Variant::Vector3(v) => Reals::new(&[v.x, v.y, v.z]),
            Variant::Vector4(v) => Reals::new(&[v.x, v.y, v.z, v.w]),
            Variant::Rect2(r) => Reals::new(&[r.position.x, r.position.y, r.size.x, r.size.y]),
            Variant::Transform2D(t) => Reals::new(&[t.x.x, t.x.y, t.y.x, t.y.y, t.origin.x, t.origin.y]),
            Variant::Plane(p) => Reals::new(&[p.normal.x, p.normal.y, p.normal.z, p.d]),
            Variant::Quaternion(q) => Reals::new(&[q.x, q.y, q.z, q.w]),
            Variant::Aabb(b) => {
                let (p, s) = (&b.position, &b.size);
                Reals::new(&[p.x, p.y, p.z, s.x, s.y, s.z])
            }
            Variant::Basis(b) => {
                let [x, y, z] = &b.rows;
                Reals::new(&[x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z])
            }
            Variant::Transform3D(t) => {
                let ([x, y, z], o) = (&t.basis.rows, &t.origin);
                Reals::new(&[x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z, o.x, o.y, o.z])
            }
            Variant::Projection(p) => {
                let [x, y, z, w] = &p.columns;
                Reals::new(&[x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w, z.x, z.y, z.z, z.w, w.x, w.y, w.z, w.w])
            }
            Variant::Color(c) => Reals::new(&[c.r, c.g, c.b, c.a]),
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Dictionary key semantics (Godot's `hash_compare`): floats compare equal when `==` or both NaN
// (so -0.0 and 0.0 are one key, and so are all NaNs), containers part by part in order.
//
// Decoding a Dictionary stays linear whatever its keys are (the hostile-input rule: O(n log n)
// work at most for n bytes), by one mechanism:
//
// * every key is hashed over *all* of its contents ([`key_hash`]), floats canonicalised exactly
//   the way [`key_eq`] compares them, so equal keys hash equal and different keys (barring a
//   64-bit collision of a SipHash keyed per thread, which an input cannot arrange) hash apart;
// * the hash of a container (Array, Dictionary, full Object) is made of its parts' hashes, and
//   the decoders compute it bottom-up while they build a key (`decode::decode_hashed`, the
//   hashing visitors below), so each byte of a key is hashed once, however deeply keys nest in
//   keys;
// * [`DictBuilder`] compares hashes first and calls [`key_eq`] only when they match, that is for
//   a real duplicate, which it then drops: each comparison is paid for by the duplicate's bytes.

thread_local! {
    /// The SipHash keys of this thread's Dictionary-key hashes (random, like a `HashMap`'s).
    static KEY_STATE: RandomState = RandomState::new();
}

/// Builds one key hash: the Variant type, then the contents or the parts' hashes.
pub(crate) struct KeyHasher(DefaultHasher);

impl KeyHasher {
    pub(crate) fn new(ty: VariantType) -> Self {
        let mut h = KEY_STATE.with(RandomState::build_hasher);
        h.write_u8(ty as u8);
        KeyHasher(h)
    }

    /// A float component, canonicalised like [`key_eq`] compares: +0.0 and -0.0 are one key, and
    /// so are all NaNs.
    fn real(&mut self, f: f64) {
        let bits = if f == 0.0 {
            0
        } else if f.is_nan() {
            f64::NAN.to_bits()
        } else {
            f.to_bits()
        };
        self.0.write_u64(bits);
    }

    fn reals(&mut self, fs: &[f32]) {
        for f in fs {
            self.real(f64::from(*f));
        }
    }

    /// The hash of a part: an element, an entry's key or value, a property's value.
    pub(crate) fn part(&mut self, hash: u64) {
        self.0.write_u64(hash);
    }

    /// Ends the hash of a container of `len` parts.
    pub(crate) fn finish(mut self, len: usize) -> u64 {
        self.0.write_usize(len);
        self.0.finish()
    }
}

/// The key hash of a Variant, consistent with [`key_eq`] (walks the whole value; the decoders
/// build the same hash bottom-up instead).
pub(crate) fn key_hash(v: &Variant) -> u64 {
    match v {
        Variant::Array(a) => {
            let mut h = KeyHasher::new(VariantType::Array);
            for e in a.iter() {
                h.part(key_hash(e));
            }
            h.finish(a.len())
        }
        Variant::Dictionary(d) => dictionary_hash(d.iter().map(|(k, v)| (key_hash(k), key_hash(v)))),
        Variant::Object(Object::Full(obj)) => {
            let mut h = object_hasher(&obj.class);
            for (name, value) in &obj.properties {
                property_hash(&mut h, name, key_hash(value));
            }
            h.finish(obj.properties.len())
        }
        _ => leaf_hash(v),
    }
}

/// The key hash of a Dictionary from its final entries' key and value hashes, in order.
pub(crate) fn dictionary_hash(entries: impl ExactSizeIterator<Item = (u64, u64)>) -> u64 {
    let mut h = KeyHasher::new(VariantType::Dictionary);
    let len = entries.len();
    for (k, v) in entries {
        h.part(k);
        h.part(v);
    }
    h.finish(len)
}

/// The start of a full object's key hash; its properties follow ([`property_hash`]).
pub(crate) fn object_hasher(class: &str) -> KeyHasher {
    let mut h = KeyHasher::new(VariantType::Object);
    h.0.write_u8(2);
    class.hash(&mut h.0);
    h
}

/// One property of a full object's key hash.
pub(crate) fn property_hash(h: &mut KeyHasher, name: &str, value_hash: u64) {
    name.hash(&mut h.0);
    h.part(value_hash);
}

/// The key hash of a Variant that has no parts (anything but an Array, a Dictionary or a full
/// Object): every component of it.
pub(crate) fn leaf_hash(v: &Variant) -> u64 {
    let mut h = KeyHasher::new(v.variant_type());
    if let Some(reals) = v.components() {
        h.reals(&reals);
        return h.finish(reals.len());
    }
    let s = &mut h.0;
    match v {
        Variant::Nil | Variant::Callable => {}
        Variant::Bool(b) => b.hash(s),
        Variant::Int(i) => i.hash(s),
        Variant::String(x) => x.hash(s),
        Variant::StringName(x) => x.hash(s),
        Variant::NodePath(x) => x.hash(s),
        Variant::Vector2i(x) => x.hash(s),
        Variant::Vector3i(x) => x.hash(s),
        Variant::Vector4i(x) => x.hash(s),
        Variant::Rect2i(x) => x.hash(s),
        Variant::Rid(x) => x.hash(s),
        Variant::Signal(x) => x.hash(s),
        Variant::Object(Object::Null) => s.write_u8(0),
        Variant::Object(Object::Id(id)) => {
            s.write_u8(1);
            id.hash(s);
        }
        Variant::PackedByteArray(a) => a.hash(s),
        Variant::PackedInt32Array(a) => a.hash(s),
        Variant::PackedInt64Array(a) => a.hash(s),
        Variant::PackedStringArray(a) => a.hash(s),
        Variant::Float(f) => h.real(*f),
        Variant::PackedFloat32Array(a) => {
            h.reals(a);
            return h.finish(a.len());
        }
        Variant::PackedFloat64Array(a) => {
            for f in a.iter() {
                h.real(*f);
            }
            return h.finish(a.len());
        }
        Variant::PackedVector2Array(a) => {
            for v in a.iter() {
                h.reals(&[v.x, v.y]);
            }
            return h.finish(a.len());
        }
        Variant::PackedVector3Array(a) => {
            for v in a.iter() {
                h.reals(&[v.x, v.y, v.z]);
            }
            return h.finish(a.len());
        }
        Variant::PackedVector4Array(a) => {
            for v in a.iter() {
                h.reals(&[v.x, v.y, v.z, v.w]);
            }
            return h.finish(a.len());
        }
        Variant::PackedColorArray(a) => {
            for c in a.iter() {
                h.reals(&[c.r, c.g, c.b, c.a]);
            }
            return h.finish(a.len());
        }
        // Containers are hashed from their parts (`key_hash`); math types from their components
        // above.
        Variant::Array(_) | Variant::Dictionary(_) | Variant::Object(Object::Full(_)) => return key_hash(v),
        Variant::Vector2(_)
        | Variant::Rect2(_)
        | Variant::Vector3(_)
        | Variant::Transform2D(_)
        | Variant::Vector4(_)
        | Variant::Plane(_)
        | Variant::Quaternion(_)
        | Variant::Aabb(_)
        | Variant::Basis(_)
        | Variant::Transform3D(_)
        | Variant::Projection(_)
        | Variant::Color(_) => unreachable!("math types have components"),
    }
    h.finish(0)
}

/// Whether two Variants are the same Dictionary key: like `==`, except that floats (alone, as
/// components, in packed arrays, anywhere inside containers) are equal when `==` or both NaN.
pub(crate) fn key_eq(a: &Variant, b: &Variant) -> bool {
    fn real(x: f64, y: f64) -> bool {
        x == y || (x.is_nan() && y.is_nan())
    }
    fn reals(x: &[f32], y: &[f32]) -> bool {
        x.len() == y.len() && x.iter().zip(y).all(|(x, y)| real(f64::from(*x), f64::from(*y)))
    }
    fn each<T>(x: &[T], y: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
        x.len() == y.len() && x.iter().zip(y).all(|(x, y)| eq(x, y))
    }
    if a.variant_type() != b.variant_type() {
        return false;
    }
    match (a, b) {
        (Variant::Float(x), Variant::Float(y)) => real(*x, *y),
        (Variant::Array(x), Variant::Array(y)) => each(x, y, key_eq),
        (Variant::Dictionary(x), Variant::Dictionary(y)) => {
            each(x.entries(), y.entries(), |(xk, xv), (yk, yv)| key_eq(xk, yk) && key_eq(xv, yv))
        }
        (Variant::Object(Object::Full(x)), Variant::Object(Object::Full(y))) => {
            x.class == y.class && each(&x.properties, &y.properties, |(xn, xv), (yn, yv)| xn == yn && key_eq(xv, yv))
        }
        (Variant::PackedFloat32Array(x), Variant::PackedFloat32Array(y)) => reals(x, y),
        (Variant::PackedFloat64Array(x), Variant::PackedFloat64Array(y)) => each(x, y, |x, y| real(*x, *y)),
        (Variant::PackedVector2Array(x), Variant::PackedVector2Array(y)) => {
            each(x, y, |x, y| reals(&[x.x, x.y], &[y.x, y.y]))
        }
        (Variant::PackedVector3Array(x), Variant::PackedVector3Array(y)) => {
            each(x, y, |x, y| reals(&[x.x, x.y, x.z], &[y.x, y.y, y.z]))
        }
        (Variant::PackedVector4Array(x), Variant::PackedVector4Array(y)) => {
            each(x, y, |x, y| reals(&[x.x, x.y, x.z, x.w], &[y.x, y.y, y.z, y.w]))
        }
        (Variant::PackedColorArray(x), Variant::PackedColorArray(y)) => {
            each(x, y, |x, y| reals(&[x.r, x.g, x.b, x.a], &[y.r, y.g, y.b, y.a]))
        }
        _ => match (a.components(), b.components()) {
            (Some(x), Some(y)) => reals(&x, &y),
            // No floats left: nil, bool, int, strings, names, paths, integer vectors, RID, object
            // ids, Callable, Signal, byte / int / string packed arrays.
            _ => a == b,
        },
    }
}

/// Builds a Dictionary the way the engine fills one (`dict[key] = value`): a repeated key keeps
/// its first position and takes the last value. Keys come with their [`key_hash`]; small
/// dictionaries scan the hashes, large ones index them, so any input stays linear.
pub(crate) struct DictBuilder {
    dict: Dictionary,
    /// Each entry's key hash and value hash (the value hash only when `hashed`): the first
    /// [`SCAN_LIMIT`](Self::SCAN_LIMIT) in place (no allocation for small Dictionaries), all of
    /// them in `spilled` beyond.
    inline: [(u64, u64); DictBuilder::SCAN_LIMIT],
    spilled: Vec<(u64, u64)>,
    /// Room to reserve in `spilled` when it is needed.
    capacity: usize,
    index: Option<HashMap<u64, usize, BuildHasherDefault<HashIsKey>>>,
    /// Whether the Dictionary's own key hash is wanted (it is, or is inside, a key).
    hashed: bool,
}

impl DictBuilder {
    const SCAN_LIMIT: usize = 16;

    /// A builder filling `dict` (with room reserved for `capacity` entries); `hashed` if the
    /// Dictionary's own key hash is wanted from [`finish`](Self::finish).
    pub(crate) fn new(mut dict: Dictionary, capacity: usize, hashed: bool) -> Self {
        dict.entries_mut().reserve(capacity);
        DictBuilder { dict, inline: [(0, 0); Self::SCAN_LIMIT], spilled: Vec::new(), capacity, index: None, hashed }
    }

    fn hashes(&self) -> &[(u64, u64)] {
        let len = self.dict.len();
        if len <= Self::SCAN_LIMIT { &self.inline[..len] } else { &self.spilled }
    }

    fn hashes_mut(&mut self) -> &mut [(u64, u64)] {
        let len = self.dict.len();
        if len <= Self::SCAN_LIMIT { &mut self.inline[..len] } else { &mut self.spilled }
    }

    /// Inserts `key` (whose [`key_hash`] is `key_hash`) with `value` (whose key hash is
    /// `value_hash` if the builder is `hashed`, anything otherwise).
    pub(crate) fn insert(&mut self, key: Variant, key_hash: u64, value: Variant, value_hash: u64) {
        let hashes = self.hashes();
        let entries = self.dict.entries();
        let scan = || (0..entries.len()).find(|&i| hashes[i].0 == key_hash && key_eq(&entries[i].0, &key));
        let found = match &self.index {
            None => scan(),
            Some(index) => match index.get(&key_hash) {
                None => None,
                Some(&i) if key_eq(&entries[i].0, &key) => Some(i),
                // Two different keys with one 64-bit keyed SipHash: not something an input can
                // arrange, so a scan is fine.
                Some(_) => scan(),
            },
        };
        if let Some(i) = found {
            self.dict.entries_mut()[i].1 = value;
            self.hashes_mut()[i].1 = value_hash;
            return;
        }
        let i = self.dict.len();
        self.dict.entries_mut().push((key, value));
        if i < Self::SCAN_LIMIT {
            self.inline[i] = (key_hash, value_hash);
            return;
        }
        if i == Self::SCAN_LIMIT {
            // Past the scan: keep every hash in `spilled` and index them.
            self.spilled.reserve(self.capacity.max(2 * Self::SCAN_LIMIT));
            self.spilled.extend_from_slice(&self.inline);
            let mut index = HashMap::with_capacity_and_hasher(4 * Self::SCAN_LIMIT, Default::default());
            for (i, (h, _)) in self.inline.iter().enumerate() {
                index.entry(*h).or_insert(i);
            }
            self.index = Some(index);
        }
        self.spilled.push((key_hash, value_hash));
        if let Some(index) = &mut self.index {
            index.entry(key_hash).or_insert(i);
        }
    }

    /// The Dictionary, and its key hash if the builder is `hashed` (0 otherwise).
    pub(crate) fn finish(self) -> (Dictionary, u64) {
        let hash = if self.hashed { dictionary_hash(self.hashes().iter().copied()) } else { 0 };
        (self.dict, hash)
    }
}

/// The index's keys are already keyed SipHash values: they are their own hash.
#[derive(Default)]
pub(crate) struct HashIsKey(u64);

impl Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
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
        HashedSeed { hashed: false }.deserialize(deserializer).map(|(v, _)| v)
    }
}

/// A Variant and, if `hashed`, its [`key_hash`] built bottom-up (0 otherwise): Dictionary keys
/// and everything inside them are read with `hashed`, so that no part of a key is hashed twice.
#[derive(Clone, Copy)]
struct HashedSeed {
    hashed: bool,
}

type Hashed = (Variant, u64);

impl<'de> DeserializeSeed<'de> for HashedSeed {
    type Value = Hashed;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> std::result::Result<Hashed, D::Error> {
        deserializer.deserialize_newtype_struct(magic::VARIANT, HandoffVisitor { hashed: self.hashed })
    }
}

/// The visitor serde-godot's Deserializer recognises: its one-entry map hands over a decoded
/// Variant; everything else is the generic data-model path.
struct HandoffVisitor {
    hashed: bool,
}

impl HandoffVisitor {
    fn generic(&self) -> VariantVisitor {
        VariantVisitor { hashed: self.hashed }
    }
}

impl<'de> Visitor<'de> for HandoffVisitor {
    type Value = Hashed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any Godot value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Hashed, D::Error> {
        d.deserialize_any(self.generic())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Hashed, A::Error> {
        // Read without its hash first: with serde-godot's Deserializer this is the handoff key.
        let Some((first, _)) = map.next_key_seed(HashedSeed { hashed: false })? else {
            return self.generic().leaf(Variant::Dictionary(Box::default()));
        };
        if first == *magic::VARIANT_HANDOFF_KEY {
            map.next_value::<de::IgnoredAny>()?;
            let value = HANDOFF
                .take()
                .ok_or_else(|| de::Error::custom("serde-godot: no Variant to hand over (internal error)"))?;
            // Only a Variant read as a whole is handed over, so this walk hashes each byte once.
            let hash = if self.hashed { key_hash(&value) } else { 0 };
            return Ok((value, hash));
        }
        // A real first key: hashed in one walk (its own Dictionaries, if any, hashed their keys
        // bottom-up, so each of its bytes is hashed at most twice).
        let first_hash = key_hash(&first);
        self.generic().dictionary(Some((first, first_hash)), map)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Hashed, E> {
        self.generic().visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Hashed, E> {
        self.generic().visit_i64(v)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> std::result::Result<Hashed, E> {
        self.generic().visit_i128(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Hashed, E> {
        self.generic().visit_u64(v)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Hashed, E> {
        self.generic().visit_u128(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Hashed, E> {
        self.generic().visit_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Hashed, E> {
        self.generic().visit_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Hashed, E> {
        self.generic().visit_string(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Hashed, E> {
        self.generic().visit_bytes(v)
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> std::result::Result<Hashed, E> {
        self.generic().visit_byte_buf(v)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Hashed, E> {
        self.generic().visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Hashed, D::Error> {
        self.generic().visit_some(d)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Hashed, E> {
        self.generic().visit_unit()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Hashed, A::Error> {
        self.generic().visit_seq(seq)
    }
}

/// Builds a Variant (and, if `hashed`, its key hash) from the serde data model.
struct VariantVisitor {
    hashed: bool,
}

impl VariantVisitor {
    fn leaf<E>(self, value: Variant) -> std::result::Result<Hashed, E> {
        let hash = if self.hashed { leaf_hash(&value) } else { 0 };
        Ok((value, hash))
    }

    fn dictionary<'de, A: MapAccess<'de>>(
        self,
        first: Option<Hashed>,
        mut map: A,
    ) -> std::result::Result<Hashed, A::Error> {
        let values = HashedSeed { hashed: self.hashed };
        let mut dict = DictBuilder::new(Dictionary::new(), 0, self.hashed);
        if let Some((key, key_hash)) = first {
            let (value, value_hash) = map.next_value_seed(values)?;
            dict.insert(key, key_hash, value, value_hash);
        }
        while let Some((key, key_hash)) = map.next_key_seed(HashedSeed { hashed: true })? {
            let (value, value_hash) = map.next_value_seed(values)?;
            dict.insert(key, key_hash, value, value_hash);
        }
        let (dict, hash) = dict.finish();
        Ok((Variant::Dictionary(Box::new(dict)), hash))
    }
}

impl<'de> Visitor<'de> for VariantVisitor {
    type Value = Hashed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any Godot value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::Int(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> std::result::Result<Hashed, E> {
        let v = i64::try_from(v).map_err(|_| E::custom("integer does not fit Godot's 64-bit int"))?;
        self.leaf(Variant::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Hashed, E> {
        let v = i64::try_from(v).map_err(|_| E::custom("integer does not fit Godot's 64-bit int"))?;
        self.leaf(Variant::Int(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Hashed, E> {
        let v = i64::try_from(v).map_err(|_| E::custom("integer does not fit Godot's 64-bit int"))?;
        self.leaf(Variant::Int(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::String(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::PackedByteArray(PackedByteArray(v.to_vec())))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::PackedByteArray(PackedByteArray(v)))
    }

    fn visit_none<E: de::Error>(self) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::Nil)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Hashed, D::Error> {
        HashedSeed { hashed: self.hashed }.deserialize(d)
    }

    fn visit_unit<E: de::Error>(self) -> std::result::Result<Hashed, E> {
        self.leaf(Variant::Nil)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Hashed, D::Error> {
        HashedSeed { hashed: self.hashed }.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Hashed, A::Error> {
        let elements = HashedSeed { hashed: self.hashed };
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        let mut hash = self.hashed.then(|| KeyHasher::new(VariantType::Array));
        while let Some((item, item_hash)) = seq.next_element_seed(elements)? {
            if let Some(hash) = &mut hash {
                hash.part(item_hash);
            }
            items.push(item);
        }
        let hash = hash.map_or(0, |hash| hash.finish(items.len()));
        Ok((Variant::from(items), hash))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Hashed, A::Error> {
        self.dictionary(None, map)
    }
}
