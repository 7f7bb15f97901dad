//! The dynamic [`Value`]: what a blob holds when all you have is a type list — class tag and
//! name, properties in stream order — shaped like katsuba's output when serialized to JSON:
//! `{"$__type": "class Foo", "$__hash": 123, "m_x": ...}`.

use std::fmt;

use serde_core::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{self, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};

use crate::codec::{Leaf, LeafValue, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::hash::string_id;
use crate::types::{MARKER, marker_kind};

/// Bytes of one [`Value`] node (a list element or the value of a property).
pub(crate) const VALUE_BYTES: usize = std::mem::size_of::<Value>();
/// Bytes of one property slot of an [`Object`]: the name and the value.
pub(crate) const PROPERTY_BYTES: usize = std::mem::size_of::<(String, Value)>();
/// Bytes of the boxed [`Object`] behind a [`Value::Object`] (its name and properties aside).
pub(crate) const OBJECT_BYTES: usize = std::mem::size_of::<Object>();
/// Bytes of the boxed [`LeafValue`] behind a [`Value::Leaf`].
pub(crate) const LEAF_BYTES: usize = std::mem::size_of::<LeafValue>();
/// The most list elements the value visitor reserves from a size hint before it has seen them
/// (1 MiB of nodes, as serde's own visitors); longer lists grow by doubling.
pub(crate) const MAX_PREALLOC: usize = (1 << 20) / VALUE_BYTES;
/// The most property slots the value visitor reserves for an object from a size hint.
pub(crate) const MAX_PREALLOC_PROPS: usize = 4096;

/// The bytes of a list of `n` [`Value`]s as the value visitor builds it: reserved from the
/// (exact) size hint up to [`MAX_PREALLOC`] elements, then doubled until it holds them all.
pub(crate) fn list_bytes(n: usize) -> usize {
    let mut cap = n.min(MAX_PREALLOC);
    while cap < n {
        cap *= 2;
    }
    cap.saturating_mul(VALUE_BYTES)
}

/// Any value a KI blob can hold.
#[derive(Debug, Clone)]
pub enum Value {
    /// A null object pointer.
    Null,
    /// `bool`.
    Bool(bool),
    /// A signed integer (also enum values); non-negative values that fit are stored here too.
    Int(i64),
    /// An unsigned integer above `i64::MAX`.
    UInt(u64),
    /// `float` (widened) or `double`.
    Float(f64),
    /// `std::string` holding UTF-8, or `std::wstring`.
    String(String),
    /// `std::string` holding bytes that are not UTF-8.
    Bytes(Vec<u8>),
    /// A leaf struct (`class Color`, `class Vector3D`, …).
    Leaf(Box<LeafValue>),
    /// A container.
    List(Vec<Value>),
    /// An object.
    Object(Box<Object>),
}

/// An object: its type tag, its class name when known, and its properties in stream order.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// The type tag.
    pub type_hash: u32,
    /// The class name (`class Foo`), when the type list or the source knows it.
    pub name: Option<String>,
    /// Properties in stream order.
    pub properties: Vec<(String, Value)>,
}

impl Object {
    /// A property by name.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.properties.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Value {
    /// An integer, normalized (values up to `i64::MAX` are [`Value::Int`]).
    pub fn from_u64(v: u64) -> Value {
        i64::try_from(v).map_or(Value::UInt(v), Value::Int)
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// A property of an object (None for non-objects).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.as_object().and_then(|o| o.get(name))
    }

    /// The value as an `i128`, for integers.
    pub fn as_i128(&self) -> Option<i128> {
        match self {
            Value::Int(v) => Some((*v).into()),
            Value::UInt(v) => Some((*v).into()),
            _ => None,
        }
    }

    /// katsuba-shaped JSON (pretty-printed).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads katsuba-shaped JSON.
    pub fn from_json(json: &str) -> Result<Value> {
        serde_json::from_str(json).map_err(|e| Error::new(ErrorKind::Message(e.to_string())))
    }
}

fn scalar_eq(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::Bool(x), Scalar::Bool(y)) => x == y,
        // A `float` compares at `f32` precision (text forms print the shortest f32 digits).
        // NaN equals NaN, as for `Value::Float`, so decoded values compare equal to themselves.
        (Scalar::F32(_), _) | (_, Scalar::F32(_)) => {
            let (x, y) = (a.as_f32(), b.as_f32());
            x == y || (x.is_nan() && y.is_nan())
        }
        (Scalar::F64(_), _) | (_, Scalar::F64(_)) => {
            let (x, y) = (a.as_f64(), b.as_f64());
            x == y || (x.is_nan() && y.is_nan())
        }
        (Scalar::Int(x), Scalar::Int(y)) => x == y,
        (Scalar::UInt(x), Scalar::UInt(y)) => x == y,
        (Scalar::Int(x), Scalar::UInt(y)) | (Scalar::UInt(y), Scalar::Int(x)) => x >= 0 && x as u64 == y,
        _ => false,
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(_) | Value::UInt(_), Value::Int(_) | Value::UInt(_)) => self.as_i128() == other.as_i128(),
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::String(a), Value::Bytes(b)) | (Value::Bytes(b), Value::String(a)) => a.as_bytes() == b.as_slice(),
            (Value::Leaf(a), Value::Leaf(b)) => {
                let (a, b) = (&**a, &**b);
                a.leaf.fields() == b.leaf.fields()
                    && a.wire[..a.leaf.len()].iter().zip(&b.wire[..b.leaf.len()]).all(|(x, y)| scalar_eq(*x, *y))
            }
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

/// Serializes one scalar as its natural serde type.
struct ScalarSer(Scalar);

impl Serialize for ScalarSer {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            Scalar::Bool(b) => s.serialize_bool(b),
            Scalar::Int(i) => s.serialize_i64(i),
            Scalar::UInt(u) => s.serialize_u64(u),
            Scalar::F32(f) => s.serialize_f32(f),
            Scalar::F64(f) => s.serialize_f64(f),
        }
    }
}

struct Row<'a>(&'a [Scalar]);

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for v in self.0 {
            seq.serialize_element(&ScalarSer(*v))?;
        }
        seq.end()
    }
}

/// The marker struct name of a leaf (`$kiprop::Color`), as `&'static str`.
fn leaf_marker(leaf: Leaf) -> &'static str {
    match leaf {
        Leaf::Color => "$kiprop::Color",
        Leaf::Vector3D => "$kiprop::Vector3D",
        Leaf::Quaternion => "$kiprop::Quaternion",
        Leaf::Euler => "$kiprop::Euler",
        Leaf::Matrix3x3 => "$kiprop::Matrix3x3",
        Leaf::PointInt => "$kiprop::Point<int>",
        Leaf::PointUInt => "$kiprop::Point<unsigned int>",
        Leaf::PointUChar => "$kiprop::Point<unsigned char>",
        Leaf::PointFloat => "$kiprop::Point<float>",
        Leaf::SizeInt => "$kiprop::Size<int>",
        Leaf::RectInt => "$kiprop::Rect<int>",
        Leaf::RectFloat => "$kiprop::Rect<float>",
    }
}

impl Serialize for LeafValue {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let leaf = self.leaf;
        let mut st = s.serialize_struct(leaf_marker(leaf), leaf.fields().len())?;
        for name in leaf.display_fields() {
            let start = leaf.field_start(name).unwrap_or(0);
            if leaf.group() == 1 {
                st.serialize_field(name, &ScalarSer(self.wire[start]))?;
            } else {
                st.serialize_field(name, &Row(&self.wire[start..start + leaf.group()]))?;
            }
        }
        st.end()
    }
}

impl LeafValue {
    /// A component by field name (the first of a matrix row).
    pub fn get(&self, field: &str) -> Option<Scalar> {
        self.leaf.field_start(field).map(|i| self.wire[i])
    }
}

struct HexBytes<'a>(&'a [u8]);

impl Serialize for HexBytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut hex = String::with_capacity(self.0.len() * 2);
        for b in self.0 {
            hex.push_str(&format!("{b:02x}"));
        }
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("$bytes_hex", &hex)?;
        m.end()
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::UInt(u) => s.serialize_u64(*u),
            Value::Float(f) => s.serialize_f64(*f),
            Value::String(t) => s.serialize_str(t),
            Value::Bytes(b) => {
                if s.is_human_readable() {
                    HexBytes(b).serialize(s)
                } else {
                    s.serialize_bytes(b)
                }
            }
            Value::Leaf(l) => l.serialize(s),
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Object(o) => o.serialize(s),
        }
    }
}

impl Serialize for Object {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.properties.len() + 2))?;
        if let Some(name) = &self.name {
            m.serialize_entry("$__type", name)?;
        }
        m.serialize_entry("$__hash", &self.type_hash)?;
        // Each property value goes out as `Some`: a property in the list is present. For a shallow
        // DELTA_ENCODE pointer this `Some` is the presence bit, so a present null pointer
        // (`Value::Null`) stays present (an absent property is one left out of the list). Other
        // formats see the value itself (`Some` is transparent to JSON and to `to_value`).
        for (k, v) in &self.properties {
            m.serialize_entry(k, &Some(v))?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a KI value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from_u64(v))
    }
    fn visit_f32<E>(self, v: f32) -> std::result::Result<Value, E> {
        Ok(Value::Float(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> std::result::Result<Value, E> {
        Ok(match std::str::from_utf8(v) {
            Ok(s) => Value::String(s.to_owned()),
            Err(_) => Value::Bytes(v.to_vec()),
        })
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> std::result::Result<Value, E> {
        // Bytes handed over as a buffer stay bytes, even when they happen to be UTF-8 (a
        // `std::wstring` that is not valid UTF-16 decodes to its UTF-16LE bytes).
        Ok(Value::Bytes(v))
    }
    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_PREALLOC));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let mut name = None;
        let mut hash = None;
        let mut props: Vec<(String, Value)> = Vec::with_capacity(map.size_hint().unwrap_or(0).min(MAX_PREALLOC_PROPS));
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "$__type" => name = Some(map.next_value::<String>()?),
                "$__hash" => hash = Some(map.next_value::<u32>()?),
                "$bytes_hex" => {
                    let hex = map.next_value::<String>()?;
                    return decode_hex(&hex).map(Value::Bytes).ok_or_else(|| de::Error::custom("bad $bytes_hex"));
                }
                _ => {
                    let v = map.next_value()?;
                    props.push((key, v));
                }
            }
        }
        if name.is_some() || hash.is_some() {
            let type_hash = hash.unwrap_or_else(|| name.as_deref().map_or(0, |n| string_id(n.as_bytes())));
            return Ok(Value::Object(Box::new(Object { type_hash, name, properties: props })));
        }
        leaf_from_fields(&props).map(|l| Value::Leaf(Box::new(l))).ok_or_else(|| {
            de::Error::custom("a map that is neither an object ($__type) nor a leaf struct (r/g/b/a, x/y/z, …)")
        })
    }
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}

fn value_scalar(v: &Value) -> Option<Scalar> {
    match v {
        Value::Int(i) => Some(Scalar::Int(*i)),
        Value::UInt(u) => Some(Scalar::UInt(*u)),
        Value::Float(f) => Some(Scalar::F64(*f)),
        _ => None,
    }
}

/// Recognises a leaf struct by its field names.
fn leaf_from_fields(props: &[(String, Value)]) -> Option<LeafValue> {
    let floats = props.iter().any(|(_, v)| matches!(v, Value::Float(_)));
    let mut names: Vec<&str> = props.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    let leaf = match names.as_slice() {
        ["a", "b", "g", "r"] => Leaf::Color,
        ["x", "y", "z"] => Leaf::Vector3D,
        ["w", "x", "y", "z"] => Leaf::Quaternion,
        ["pitch", "roll", "yaw"] => Leaf::Euler,
        ["i", "j", "k"] => Leaf::Matrix3x3,
        ["x", "y"] if floats => Leaf::PointFloat,
        ["x", "y"] => Leaf::PointInt,
        ["height", "width"] => Leaf::SizeInt,
        ["bottom", "left", "right", "top"] if floats => Leaf::RectFloat,
        ["bottom", "left", "right", "top"] => Leaf::RectInt,
        _ => return None,
    };
    let mut wire = [Scalar::UInt(0); 9];
    for (name, v) in props {
        let start = leaf.field_start(name)?;
        if leaf.group() == 1 {
            wire[start] = value_scalar(v)?;
        } else {
            let Value::List(row) = v else { return None };
            if row.len() != leaf.group() {
                return None;
            }
            for (i, x) in row.iter().enumerate() {
                wire[start + i] = value_scalar(x)?;
            }
        }
    }
    Some(LeafValue { leaf, wire })
}

/// Converts any `Serialize` value into a [`Value`] without a schema (structs become objects
/// named after the struct, sequences lists, and so on).
pub fn to_value<T: ?Sized + Serialize>(value: &T) -> Result<Value> {
    value.serialize(ValueSerializer)
}

/// [`to_value`] keeping the outermost `Option` layer: `None` for a value that serializes as
/// `None` (through newtypes), else `Some` of the value. `Some(None)` is `Some(Value::Null)`.
pub(crate) fn to_layered_value<T: ?Sized + Serialize>(value: &T) -> Result<Option<Value>> {
    // (`IsNone` fails on compound values: those are not `None` either.)
    if value.serialize(IsNone).unwrap_or(false) { Ok(None) } else { to_value(value).map(Some) }
}

/// [`IsNone`]'s answer for sequences, maps and structs (which are not `None`): an error, since
/// their serializers cannot be made without serializing the contents.
fn compound() -> Error {
    Error::new(ErrorKind::Unsupported("not an Option"))
}

/// Whether a value serializes as `None` (looking through newtypes only). Everything else answers
/// `false` without serializing its contents.
struct IsNone;

macro_rules! not_none {
    ($($f:ident($($a:ident: $t:ty),*);)*) => {
        $(fn $f(self, $(_: $t),*) -> Result<bool> { Ok(false) })*
    };
}

impl Serializer for IsNone {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = Impossible<bool, Error>;
    type SerializeTuple = Impossible<bool, Error>;
    type SerializeTupleStruct = Impossible<bool, Error>;
    type SerializeTupleVariant = Impossible<bool, Error>;
    type SerializeMap = Impossible<bool, Error>;
    type SerializeStruct = Impossible<bool, Error>;
    type SerializeStructVariant = Impossible<bool, Error>;

    fn serialize_none(self) -> Result<bool> {
        Ok(true)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _v: &T) -> Result<bool> {
        Ok(false)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<bool> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _t: &T,
    ) -> Result<bool> {
        Ok(false)
    }
    not_none! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_unit();
        serialize_unit_struct(n: &'static str);
        serialize_unit_variant(n: &'static str, i: u32, v: &'static str);
    }
    fn serialize_seq(self, _l: Option<usize>) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
    fn serialize_tuple(self, _l: usize) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
    fn serialize_tuple_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
    fn serialize_map(self, _l: Option<usize>) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
    fn serialize_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<bool, Error>> {
        Err(compound())
    }
}

/// The schema-free serializer behind [`to_value`].
struct ValueSerializer;

impl Serializer for ValueSerializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = ListBuilder;
    type SerializeTuple = ListBuilder;
    type SerializeTupleStruct = ListBuilder;
    type SerializeTupleVariant = Impossible<Value, Error>;
    type SerializeMap = ObjectBuilder;
    type SerializeStruct = ObjectBuilder;
    type SerializeStructVariant = ObjectBuilder;

    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_bool(self, v: bool) -> Result<Value> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Value> {
        Ok(Value::Int(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Value> {
        Ok(Value::from_u64(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value> {
        Ok(Value::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Value> {
        Ok(Value::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Value> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value> {
        Ok(Value::String(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn serialize_none(self) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Value> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, variant: &'static str) -> Result<Value> {
        Ok(Value::String(variant.to_owned()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<Value> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value> {
        let mut inner = v.serialize(self)?;
        if let Value::Object(o) = &mut inner {
            if o.name.is_none() {
                o.name = Some(variant.to_owned());
                o.type_hash = string_id(variant.as_bytes());
            }
        }
        Ok(inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<ListBuilder> {
        Ok(ListBuilder(Vec::with_capacity(len.unwrap_or(0).min(4096))))
    }
    fn serialize_tuple(self, len: usize) -> Result<ListBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _n: &'static str, len: usize) -> Result<ListBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<Value, Error>> {
        Err(Error::new(ErrorKind::Unsupported("tuple variants")))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<ObjectBuilder> {
        Ok(ObjectBuilder { name: None, leaf: None, props: Vec::new(), key: None })
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<ObjectBuilder> {
        let leaf = match marker_kind(name) {
            Some((crate::schema::Kind::Leaf(l), _)) => Some(l),
            _ => None,
        };
        let name = (!name.starts_with(MARKER)).then(|| name.to_owned());
        Ok(ObjectBuilder { name, leaf, props: Vec::new(), key: None })
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<ObjectBuilder> {
        Ok(ObjectBuilder { name: Some(variant.to_owned()), leaf: None, props: Vec::new(), key: None })
    }
}

struct ListBuilder(Vec<Value>);

impl SerializeSeq for ListBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        self.0.push(to_value(v)?);
        Ok(())
    }
    fn end(self) -> Result<Value> {
        Ok(Value::List(self.0))
    }
}

impl ser::SerializeTuple for ListBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value> {
        SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for ListBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value> {
        SerializeSeq::end(self)
    }
}

struct ObjectBuilder {
    name: Option<String>,
    leaf: Option<Leaf>,
    props: Vec<(String, Value)>,
    key: Option<String>,
}

impl ObjectBuilder {
    fn finish(self) -> Result<Value> {
        if let Some(leaf) = self.leaf {
            let mut props = self.props;
            props.retain(|(k, _)| !k.starts_with('$'));
            return leaf_from_fields(&props)
                .map(|mut l| {
                    l.leaf = leaf;
                    Value::Leaf(Box::new(l))
                })
                .ok_or_else(|| Error::mismatch(leaf.type_name(), "its components"));
        }
        let mut name = self.name;
        let mut hash = None;
        let mut props = Vec::with_capacity(self.props.len());
        for (k, v) in self.props {
            match (k.as_str(), &v) {
                ("$__type", Value::String(n)) => name = Some(n.clone()),
                ("$__hash", v) => hash = v.as_i128().and_then(|h| u32::try_from(h).ok()),
                _ => props.push((k, v)),
            }
        }
        if name.is_none() && hash.is_none() {
            if let Some(l) = leaf_from_fields(&props) {
                return Ok(Value::Leaf(Box::new(l)));
            }
        }
        let type_hash = hash.unwrap_or_else(|| name.as_deref().map_or(0, |n| string_id(n.as_bytes())));
        Ok(Value::Object(Box::new(Object { type_hash, name, properties: props })))
    }
}

impl SerializeMap for ObjectBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        match to_value(key)? {
            Value::String(s) => self.key = Some(s),
            _ => return Err(Error::new(ErrorKind::Unsupported("map keys other than strings"))),
        }
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        let k = self.key.take().unwrap_or_default();
        self.props.push((k, to_value(v)?));
        Ok(())
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

impl SerializeStruct for ObjectBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<()> {
        self.props.push((key.to_owned(), to_value(v)?));
        Ok(())
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for ObjectBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<()> {
        SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}
