//! O3DE's own types: [`Uuid`], [`Color`], the math types, enums and bit flags, `$type`
//! polymorphism and `AZStd::any`.
//!
//! Each type loads exactly like its O3DE serializer, through any serde deserializer. Under this
//! crate's deserializer its outcomes (PartialDefaults for a color without alpha, DefaultsUsed for a
//! nil uuid, Unsupported with the value left as it was) go into the load's [`Report`](crate::Report);
//! under other deserializers a value that O3DE would skip is an error instead.

pub mod color;
pub mod elements;
pub mod enums;
pub mod math;
pub mod multimap;
pub mod poly;
pub mod unordered;
pub mod uuid;

use std::fmt;

use serde_core::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::channel;
use crate::coerce::{self, Coerced, Num, Tok};
use crate::report::{Outcome, Processing, ResultCode, Task};

/// A JSON value captured for one of this crate's types: members keep their document order
/// (colors and Euler-angle quaternions depend on it), numbers keep rapidjson's integer/double
/// distinction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// The value as a scalar token (containers by kind).
    pub(crate) fn tok(&self) -> Tok<'_> {
        match self {
            Json::Null => Tok::Null,
            Json::Bool(b) => Tok::Bool(*b),
            Json::Num(n) => Tok::Num(*n),
            Json::Str(s) => Tok::Str(s),
            Json::Arr(_) => Tok::Array,
            Json::Obj(m) if m.is_empty() => Tok::EmptyObject,
            Json::Obj(_) => Tok::Object,
        }
    }

    /// The first member named exactly `name`.
    pub(crate) fn member(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Obj(members) => members.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Num(_) => "a number",
            Json::Str(_) => "a string",
            Json::Arr(_) => "an array",
            Json::Obj(_) => "an object",
        }
    }
}

/// What a capture holds: up to 16 numbers inline (the common array form of math types, without
/// allocating), or a general value.
// The inline variant is large on purpose: a capture lives briefly on the stack, and the array
// form of vectors, colors and matrices is read without a heap allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Captured {
    Nums(usize, [Num; 16]),
    Json(Json),
}

impl Captured {
    pub(crate) fn json(self) -> Json {
        match self {
            Captured::Nums(n, nums) => Json::Arr(nums[..n].iter().map(|&x| Json::Num(x)).collect()),
            Captured::Json(j) => j,
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Num(Num::U(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Num(if v < 0 { Num::I(v) } else { Num::U(v as u64) }))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Num(Num::F(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            members.push((k, v));
        }
        Ok(Json::Obj(members))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct CaptureVisitor;

impl<'de> Visitor<'de> for CaptureVisitor {
    type Value = Captured;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Captured, E> {
        Ok(Captured::Json(Json::Null))
    }

    fn visit_none<E>(self) -> Result<Captured, E> {
        Ok(Captured::Json(Json::Null))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Captured, E> {
        Ok(Captured::Json(Json::Bool(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Captured, E> {
        JsonVisitor.visit_u64(v).map(Captured::Json)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Captured, E> {
        JsonVisitor.visit_i64(v).map(Captured::Json)
    }

    fn visit_f64<E>(self, v: f64) -> Result<Captured, E> {
        Ok(Captured::Json(Json::Num(Num::F(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<Captured, E> {
        Ok(Captured::Json(Json::Str(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Captured, E> {
        Ok(Captured::Json(Json::Str(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Captured, A::Error> {
        let mut nums = [Num::U(0); 16];
        let mut n = 0;
        while let Some(item) = seq.next_element::<Json>()? {
            match item {
                Json::Num(x) if n < 16 => {
                    nums[n] = x;
                    n += 1;
                }
                other => {
                    let mut items: Vec<Json> = nums[..n].iter().map(|&x| Json::Num(x)).collect();
                    items.push(other);
                    while let Some(item) = seq.next_element::<Json>()? {
                        items.push(item);
                    }
                    return Ok(Captured::Json(Json::Arr(items)));
                }
            }
        }
        Ok(Captured::Nums(n, nums))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Captured, A::Error> {
        JsonVisitor.visit_map(map).map(Captured::Json)
    }
}

/// The elements of an array value, as tokens.
pub(crate) enum Items<'a> {
    Nums(&'a [Num]),
    Json(&'a [Json]),
}

impl<'a> Items<'a> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Items::Nums(n) => n.len(),
            Items::Json(j) => j.len(),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Tok<'a> {
        match self {
            Items::Nums(n) => Tok::Num(n[i]),
            Items::Json(j) => j[i].tok(),
        }
    }
}

/// A JSON value a type loads from: the capture's array form, or the general value.
pub(crate) enum Input<'a> {
    Array(Items<'a>),
    Other(&'a Json),
}

impl Captured {
    pub(crate) fn input(&self) -> Input<'_> {
        match self {
            Captured::Nums(n, nums) => Input::Array(Items::Nums(&nums[..*n])),
            Captured::Json(Json::Arr(items)) => Input::Array(Items::Json(items)),
            Captured::Json(j) => Input::Other(j),
        }
    }
}

/// What a load of one of this crate's types produced (the target was updated in place).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The result code.
    pub result: ResultCode,
    /// The message O3DE's serializer would report.
    pub message: String,
}

impl Loaded {
    pub(crate) fn new(outcome: Outcome, message: impl Into<String>) -> Loaded {
        Loaded { result: ResultCode::new(Task::ReadField, outcome), message: message.into() }
    }

    pub(crate) fn with(result: ResultCode, message: impl Into<String>) -> Loaded {
        Loaded { result, message: message.into() }
    }

    /// Whether the value was left untouched because the JSON could not be used (processing
    /// Altered or Halted).
    pub fn failed(&self) -> bool {
        self.result.processing() != Processing::Completed
    }
}

/// A float element through O3DE's float serializer: `Err` carries the failure.
pub(crate) fn float_element(tok: &Tok<'_>, current: f32) -> Result<(f32, Outcome), Loaded> {
    match coerce::to_f32(tok) {
        Coerced::Ok(v) => Ok((v, Outcome::Success)),
        Coerced::Default => Ok((current, Outcome::DefaultsUsed)),
        Coerced::Fail(outcome, message) => Err(Loaded::new(outcome, message)),
    }
}

/// One of this crate's O3DE types: loads by overlaying JSON on its current value.
pub(crate) trait Native: Sized {
    /// The newtype name this crate's (de)serializer recognizes.
    const NAME: &'static str;
    /// What the value type is called in messages.
    const WHAT: &'static str;

    /// Loads `input` over `self`, as O3DE's serializer does; on failure `self` is unchanged.
    fn load(&mut self, input: &Input<'_>) -> Loaded;
}

/// Loads a native type through any deserializer, overlaying `place`.
pub(crate) fn deserialize_native<'de, D: Deserializer<'de>, T: Native>(d: D, place: &mut T) -> Result<(), D::Error> {
    d.deserialize_newtype_struct(T::NAME, NativeVisitor { place })
}

struct NativeVisitor<'p, T> {
    place: &'p mut T,
}

impl<T: Native> NativeVisitor<'_, T> {
    fn finish<E: de::Error>(self, captured: Captured) -> Result<(), E> {
        let loaded = self.place.load(&captured.input());
        if loaded.result.outcome() == Outcome::Success {
            return Ok(());
        }
        let failed = loaded.failed();
        let message = loaded.message.clone();
        if !channel::report(loaded.result, loaded.message) && failed {
            return Err(E::custom(format_args!("{}: {message}", T::WHAT)));
        }
        if failed && loaded.result.is_halted() {
            return Err(E::custom(message));
        }
        Ok(())
    }
}

impl<'de, T: Native> Visitor<'de> for NativeVisitor<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in one of O3DE's JSON forms", T::WHAT)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let captured = d.deserialize_any(CaptureVisitor)?;
        self.finish(captured)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let captured = CaptureVisitor.visit_seq(seq)?;
        self.finish(captured)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let captured = CaptureVisitor.visit_map(map)?;
        self.finish(captured)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.finish(Captured::Json(Json::Str(v.to_owned())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.finish(Captured::Json(Json::Num(Num::F(v))))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.finish(Captured::Json(Json::Num(Num::U(v))))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.finish(Captured::Json(Json::Num(Num::I(v))))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.finish(Captured::Json(Json::Bool(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.finish(Captured::Json(Json::Null))
    }
}

/// Implements `Deserialize` (with `deserialize_in_place` overlaying the current value) and the
/// public `load_json` of a native type.
macro_rules! native_deserialize {
    ($t:ty) => {
        impl<'de> serde_core::Deserialize<'de> for $t {
            fn deserialize<D: serde_core::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut value = <$t>::default();
                $crate::types::deserialize_native(d, &mut value)?;
                Ok(value)
            }

            fn deserialize_in_place<D: serde_core::Deserializer<'de>>(d: D, place: &mut Self) -> Result<(), D::Error> {
                $crate::types::deserialize_native(d, place)
            }
        }

        impl $t {
            /// Loads `json` over this value exactly as O3DE's serializer does (members or
            /// channels the JSON does not give keep their current values) and returns O3DE's
            /// result; when the result is not Completed the value is unchanged.
            pub fn load_json(&mut self, json: &serde_json::Value) -> $crate::types::Loaded {
                let captured = $crate::types::Captured::Json($crate::types::json_from_value(json));
                $crate::types::Native::load(self, &captured.input())
            }
        }
    };
}
pub(crate) use native_deserialize;

/// A `serde_json::Value` as a captured value (member order as the map iterates).
pub(crate) fn json_from_value(v: &serde_json::Value) -> Json {
    match v {
        serde_json::Value::Null => Json::Null,
        serde_json::Value::Bool(b) => Json::Bool(*b),
        serde_json::Value::Number(n) => Json::Num(Num::from_json(n)),
        serde_json::Value::String(s) => Json::Str(s.clone()),
        serde_json::Value::Array(a) => Json::Arr(a.iter().map(json_from_value).collect()),
        serde_json::Value::Object(m) => Json::Obj(m.iter().map(|(k, v)| (k.clone(), json_from_value(v))).collect()),
    }
}

pub use color::Color;
pub use enums::{O3deEnum, Repr};
pub use math::{Matrix3x3, Matrix3x4, Matrix4x4, Quaternion, Transform, Vector2, Vector3, Vector4};
pub use multimap::MultiMap;
pub use poly::{Any, Polymorphic, TypeRegistry, UnknownType};
pub use uuid::Uuid;
