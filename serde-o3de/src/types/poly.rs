//! `$type` polymorphism, type-name resolution and `AZStd::any`.
//!
//! O3DE writes `"$type"` first in an object when a pointer's actual class differs from its
//! declared class. The value is the class name, `"{UUID} Name"` when the name is shared by several
//! classes, or just the uuid; on load a uuid anywhere in the string wins, otherwise the trimmed
//! name is matched case-insensitively.
//!
//! A polymorphic Rust type is usually an enum with one variant per class and a fallback that keeps
//! objects of unknown classes so they round-trip:
//!
//! ```
//! use serde::{Deserialize, Deserializer, Serialize, Serializer};
//! use serde_o3de::{Polymorphic, TypeIndex, UnknownType};
//!
//! #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
//! #[serde(default)]
//! struct Light { intensity: f32 }
//! #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
//! #[serde(default)]
//! struct Camera { fov: f32 }
//!
//! #[derive(Debug, PartialEq)]
//! enum Component { Light(Light), Camera(Camera), Other(UnknownType) }
//!
//! impl Polymorphic for Component {
//!     const TYPES: &'static [&'static str] = &["LightComponent", "{E2DC7EB8-02D1-4E6D-BFE4-CE652FCB7C7F} CameraComponent"];
//!     const DECLARED: Option<usize> = None; // the base class is abstract: `$type` is required
//!     fn deserialize_type<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
//!         Ok(if index == 0 { Component::Light(Light::deserialize(d)?) } else { Component::Camera(Camera::deserialize(d)?) })
//!     }
//!     fn unknown(value: UnknownType) -> Option<Self> { Some(Component::Other(value)) }
//!     fn type_index(&self) -> TypeIndex<'_> {
//!         match self { Component::Light(_) => TypeIndex::Known(0), Component::Camera(_) => TypeIndex::Known(1), Component::Other(u) => TypeIndex::Unknown(u) }
//!     }
//!     fn serialize_type<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
//!         match self { Component::Light(l) => l.serialize(s), Component::Camera(c) => c.serialize(s), Component::Other(_) => unreachable!() }
//!     }
//! }
//! serde_o3de::impl_polymorphic_serde!(Component);
//!
//! let list: Vec<Component> = serde_o3de::from_str(r#"[
//!     {"$type": " lightcomponent ", "intensity": 2.5},
//!     {"$type": "{e2dc7eb8-02d1-4e6d-bfe4-ce652fcb7c7f}", "fov": 60.0},
//!     {"$type": "FogComponent", "density": 0.25}
//! ]"#)?;
//! assert_eq!(list[0], Component::Light(Light { intensity: 2.5 }));
//! assert_eq!(list[1], Component::Camera(Camera { fov: 60.0 }));
//! assert_eq!(serde_o3de::to_string(&list)?, concat!(
//!     r#"[{"$type":"LightComponent","intensity":2.5},"#,
//!     r#"{"$type":"{E2DC7EB8-02D1-4E6D-BFE4-CE652FCB7C7F} CameraComponent","fov":60.0},"#,
//!     r#"{"$type":"FogComponent","density":0.25}]"#));
//! # Ok::<(), serde_o3de::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use indexmap::IndexMap;
use serde_core::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, VariantAccess, Visitor};
use serde_core::ser::{self, SerializeMap, Serializer};
use serde_core::{Deserialize, Serialize};

use super::{Input, Json, Loaded, Native};
use crate::channel;
use crate::markers::{DECLARED_TYPE, POLY, POLY_DEFAULT_KEY, UNKNOWN_TYPE};
use crate::report::{Outcome, ResultCode, Task};
use crate::types::uuid::Uuid;
use crate::value::RawJson;

/// Splits a registry entry `"{UUID} Name"` / `"Name"` into its uuid and trimmed name.
fn entry(text: &str) -> (Option<Uuid>, &str) {
    match Uuid::find(text) {
        Some(uuid) => {
            let name = text.rfind('}').map_or(text, |end| &text[end + 1..]);
            (Some(uuid), name.trim())
        }
        None => (None, text.trim()),
    }
}

/// Why a `$type` did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveError {
    /// Unknown (no such type, or an ambiguous name).
    pub outcome: Outcome,
    /// Why.
    pub message: String,
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.outcome, self.message)
    }
}

impl std::error::Error for ResolveError {}

/// Resolves a `$type` string against entries `"Name"` / `"{UUID} Name"`: a uuid in the string
/// decides; otherwise the trimmed name, case-insensitively, which must match exactly one entry.
pub(crate) fn resolve(types: &[&str], text: &str) -> Result<usize, ResolveError> {
    let unknown = |message: String| ResolveError { outcome: Outcome::Unknown, message };
    if let Some(uuid) = Uuid::find(text) {
        return types
            .iter()
            .position(|t| entry(t).0 == Some(uuid))
            .ok_or_else(|| unknown(format!("no registered type has the uuid {uuid}")));
    }
    let name = text.trim();
    let mut found = types.iter().enumerate().filter(|(_, t)| entry(t).1.eq_ignore_ascii_case(name));
    match (found.next(), found.next()) {
        (Some((i, _)), None) => Ok(i),
        (None, _) => Err(unknown(format!("\"{}\" is not a registered type", crate::coerce::clip(name)))),
        (Some(_), Some(_)) => Err(unknown(format!(
            "\"{}\" names more than one registered type; give its uuid as \"{{UUID}} Name\"",
            crate::coerce::clip(name)
        ))),
    }
}

/// A registry of type names and uuids, for resolving and writing O3DE type ids.
///
/// ```
/// use serde_o3de::{TypeRegistry, Uuid};
/// let vector3: Uuid = "{8379EB7D-01FA-4538-B64B-A6543B4BE73D}".parse()?;
/// let mut registry = TypeRegistry::new();
/// registry.register(vector3, "Vector3");
/// assert_eq!(registry.resolve("  vector3 ").unwrap(), vector3);
/// assert_eq!(registry.type_name(vector3).unwrap(), "Vector3");
/// # Ok::<(), serde_o3de::ParseUuidError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct TypeRegistry {
    entries: Vec<(Uuid, String)>,
}

impl TypeRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        TypeRegistry::default()
    }

    /// Registers a type.
    pub fn register(&mut self, uuid: Uuid, name: impl Into<String>) -> &mut Self {
        self.entries.push((uuid, name.into()));
        self
    }

    /// Resolves a type id string as O3DE's `LoadTypeId` does: a uuid anywhere in it, or the trimmed
    /// name (case-insensitive, unambiguous). Fails with Unknown.
    pub fn resolve(&self, text: &str) -> Result<Uuid, ResolveError> {
        let unknown = |message: String| ResolveError { outcome: Outcome::Unknown, message };
        if let Some(uuid) = Uuid::find(text) {
            return self
                .entries
                .iter()
                .find(|(u, _)| *u == uuid)
                .map(|(u, _)| *u)
                .ok_or_else(|| unknown(format!("no registered type has the uuid {uuid}")));
        }
        let name = text.trim();
        let mut found = self.entries.iter().filter(|(_, n)| n.eq_ignore_ascii_case(name));
        match (found.next(), found.next()) {
            (Some((u, _)), None) => Ok(*u),
            (None, _) => Err(unknown(format!("\"{}\" is not a registered type", crate::coerce::clip(name)))),
            (Some(_), Some(_)) => {
                Err(unknown(format!("\"{}\" names more than one registered type", crate::coerce::clip(name))))
            }
        }
    }

    /// The string O3DE stores for a type id: the name, or `"{UUID} Name"` when another registered
    /// type has the same name. `None` for an unregistered uuid.
    pub fn type_name(&self, uuid: Uuid) -> Option<String> {
        let (_, name) = self.entries.iter().find(|(u, _)| *u == uuid)?;
        let shared = self.entries.iter().filter(|(_, n)| n == name).count() > 1;
        Some(if shared { format!("{uuid} {name}") } else { name.clone() })
    }
}

/// Which registered type a polymorphic value has.
#[derive(Debug, Clone, Copy)]
pub enum TypeIndex<'a> {
    /// The type at this index of [`Polymorphic::TYPES`].
    Known(usize),
    /// An object of a type the registry does not know, kept as it was read.
    Unknown(&'a UnknownType),
}

/// A Rust type standing for an O3DE pointer to a polymorphic class: the classes it may hold,
/// selected by `$type`.
///
/// Implement it and serialize with `#[serde(with = "serde_o3de::poly")]`, or implement serde's
/// traits with [`impl_polymorphic_serde!`](crate::impl_polymorphic_serde). See the [module
/// docs](self) for an example.
pub trait Polymorphic: Sized {
    /// The registered classes: `"Name"` or `"{UUID} Name"`. On store `$type` is written as the
    /// entry reads, so give the uuid where O3DE writes it (e.g. `"{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}
    /// TransformComponent"`).
    const TYPES: &'static [&'static str];

    /// The index of the declared class, used for objects without `$type` and for non-object
    /// values, and written without `$type`. `None` when the declared class is abstract (O3DE:
    /// Catastrophic without `$type`).
    const DECLARED: Option<usize> = Some(0);

    /// Deserializes the class at `index` from `deserializer` (the object, `$type` included, which
    /// plain structs skip).
    fn deserialize_type<'de, D: Deserializer<'de>>(index: usize, deserializer: D) -> Result<Self, D::Error>;

    /// Keeps an object whose `$type` names no registered class. `None` (the default) makes it an
    /// error with O3DE's outcome Unknown.
    fn unknown(value: UnknownType) -> Option<Self> {
        let _ = value;
        None
    }

    /// A new instance of the class at `index` (its `Default`). When given, the store leaves out
    /// the members of a value that equal it wherever the default object has another class (or
    /// none: inside containers), as O3DE compares with a new instance of the actual class. `None`
    /// (the default) writes such values in full.
    fn default_of(index: usize) -> Option<Self> {
        let _ = index;
        None
    }

    /// The class of `self`.
    fn type_index(&self) -> TypeIndex<'_>;

    /// Serializes the members of `self`'s class (a struct or a map; `$type` is added in front).
    /// Not called for [`TypeIndex::Unknown`].
    fn serialize_type<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// Implements `Serialize` and `Deserialize` for a [`Polymorphic`] type through [`poly`](crate::poly).
#[macro_export]
macro_rules! impl_polymorphic_serde {
    ($t:ty) => {
        impl ::serde::Serialize for $t {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::poly::serialize(self, serializer)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $t {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                $crate::poly::deserialize(deserializer)
            }
        }
    };
}

/// An object whose `$type` names no registered class: its `$type` string and members, kept in
/// order so that it is written back as it was read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UnknownType {
    /// The `$type` string as written.
    pub type_name: String,
    /// The other members.
    pub fields: IndexMap<String, RawJson>,
}

impl<'de> Deserialize<'de> for UnknownType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = UnknownType;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with \"$type\"")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UnknownType, A::Error> {
                let mut out = UnknownType::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "$type" {
                        out.type_name = map.next_value::<RawJson>()?.parse::<String>().map_err(de::Error::custom)?;
                    } else {
                        let value = map.next_value::<RawJson>()?;
                        out.fields.insert(key, value);
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(V)
    }
}

impl Serialize for UnknownType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len() + 1))?;
        map.serialize_entry("$type", &self.type_name)?;
        for (k, v) in &self.fields {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Serializes a [`Polymorphic`] value: `$type` first (unless it is the declared class), then the
/// members of its class.
pub fn serialize<P: Polymorphic, S: Serializer>(value: &P, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_newtype_struct(POLY, &PolyOut(value))
}

/// Deserializes a [`Polymorphic`] value from an object with an optional `$type`.
pub fn deserialize<'de, P: Polymorphic, D: Deserializer<'de>>(deserializer: D) -> Result<P, D::Error> {
    deserializer.deserialize_struct(POLY, P::TYPES, PolyVisitor(PhantomData))
}

struct PolyOut<'a, P>(&'a P);

impl<P: Polymorphic> Serialize for PolyOut<'_, P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0.type_index() {
            TypeIndex::Known(i) => {
                if channel::wanted(channel::Want::PolyDefaults) {
                    if let Some(default) = P::default_of(i) {
                        map.serialize_entry(POLY_DEFAULT_KEY, &PolyOut(&default))?;
                    }
                }
                if P::DECLARED != Some(i) {
                    let name = P::TYPES
                        .get(i)
                        .ok_or_else(|| ser::Error::custom(format_args!("type index {i} is not registered")))?;
                    map.serialize_entry("$type", name)?;
                }
                self.0.serialize_type(FlattenInto(&mut map))?;
            }
            TypeIndex::Unknown(u) => {
                map.serialize_entry("$type", &u.type_name)?;
                for (k, v) in &u.fields {
                    map.serialize_entry(k, v)?;
                }
            }
        }
        map.end()
    }
}

/// Writes the members of a struct or map into an enclosing map.
struct FlattenInto<'m, M>(&'m mut M);

struct FlattenStruct<'m, M>(&'m mut M);

impl<'m, M: SerializeMap> Serializer for FlattenInto<'m, M> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = ser::Impossible<(), M::Error>;
    type SerializeTuple = ser::Impossible<(), M::Error>;
    type SerializeTupleStruct = ser::Impossible<(), M::Error>;
    type SerializeTupleVariant = ser::Impossible<(), M::Error>;
    type SerializeMap = FlattenStruct<'m, M>;
    type SerializeStruct = FlattenStruct<'m, M>;
    type SerializeStructVariant = ser::Impossible<(), M::Error>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, M::Error> {
        Ok(FlattenStruct(self.0))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, M::Error> {
        Ok(FlattenStruct(self.0))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), M::Error> {
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), M::Error> {
        Ok(())
    }

    reject! { not_a_struct();
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit_variant newtype_variant
        seq tuple tuple_struct tuple_variant struct_variant
    }
}

fn not_a_struct<E: ser::Error>() -> E {
    E::custom("a $type value must serialize as a struct or a map")
}

impl<M: SerializeMap> ser::SerializeStruct for FlattenStruct<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), M::Error> {
        self.0.serialize_entry(key, value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

impl<M: SerializeMap> SerializeMap for FlattenStruct<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), M::Error> {
        self.0.serialize_key(key)
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), M::Error> {
        self.0.serialize_value(value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

struct PolyVisitor<P>(PhantomData<P>);

/// Deserializes the class at an index.
struct TypeSeed<P>(usize, PhantomData<P>);

impl<'de, P: Polymorphic> DeserializeSeed<'de> for TypeSeed<P> {
    type Value = P;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<P, D::Error> {
        P::deserialize_type(self.0, deserializer)
    }
}

fn halt<E: de::Error>(outcome: Outcome, message: String) -> E {
    channel::report(ResultCode::new(Task::RetrieveInfo, outcome), message.clone());
    E::custom(message)
}

impl<'de, P: Polymorphic> Visitor<'de> for PolyVisitor<P> {
    type Value = P;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with an optional \"$type\"")
    }

    /// This crate's deserializer resolved `$type` already.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<P, A::Error> {
        let (index, variant) = data.variant::<u32>()?;
        match index {
            DECLARED_TYPE => match P::DECLARED {
                Some(i) => variant.newtype_variant_seed(TypeSeed::<P>(i, PhantomData)),
                None => Err(halt(
                    Outcome::Catastrophic,
                    "the declared type is abstract and the object has no \"$type\"".to_owned(),
                )),
            },
            UNKNOWN_TYPE => {
                let unknown: UnknownType = variant.newtype_variant()?;
                let message =
                    format!("\"$type\" \"{}\" is not a registered type", crate::coerce::clip(&unknown.type_name));
                P::unknown(unknown).ok_or_else(|| halt(Outcome::Unknown, message))
            }
            i => variant.newtype_variant_seed(TypeSeed::<P>(i as usize, PhantomData)),
        }
    }

    /// Other deserializers: buffer the object, resolve `$type`, deserialize from the buffer.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<P, A::Error> {
        let mut members = serde_json::Map::new();
        let mut type_name: Option<String> = None;
        let mut unknown = UnknownType::default();
        while let Some(key) = map.next_key::<String>()? {
            let value: serde_json::Value = map.next_value()?;
            if key == "$type" {
                if let serde_json::Value::String(s) = &value {
                    type_name = Some(s.clone());
                }
            }
            unknown.fields.insert(key.clone(), RawJson::from_value(&value));
            members.insert(key, value);
        }
        let index = match &type_name {
            None => P::DECLARED
                .ok_or_else(|| de::Error::custom("the declared type is abstract and the object has no \"$type\""))?,
            Some(t) => match resolve(P::TYPES, t) {
                Ok(i) => i,
                Err(e) => {
                    unknown.fields.shift_remove("$type");
                    unknown.type_name = t.clone();
                    return P::unknown(unknown).ok_or_else(|| de::Error::custom(e.message));
                }
            },
        };
        P::deserialize_type(index, serde_json::Value::Object(members)).map_err(de::Error::custom)
    }
}

/// `AZStd::any`: `{"$type": name, "Value": value}`, kept as the type string and the value's
/// JSON. An any without `$type` is empty.
///
/// ```
/// let any = serde_o3de::Any::new("float", &2.5f32)?;
/// assert_eq!(serde_o3de::to_string(&any)?, r#"{"$type":"float","Value":2.5}"#);
/// assert_eq!(any.get::<f32>()?, Some(2.5));
/// # Ok::<(), serde_o3de::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Any {
    /// The `$type` string, `None` for an empty any.
    pub type_name: Option<String>,
    /// The value's JSON.
    pub value: Option<RawJson>,
}

impl Any {
    /// An any holding `value` with the given `$type`.
    pub fn new<T: ?Sized + Serialize>(type_name: impl Into<String>, value: &T) -> crate::Result<Any> {
        Ok(Any { type_name: Some(type_name.into()), value: Some(RawJson::from_serialize(value)?) })
    }

    /// Whether the any is empty.
    pub fn is_empty(&self) -> bool {
        self.type_name.is_none()
    }

    /// Loads the held value with O3DE's rules (`None` for an empty any).
    pub fn get<T: serde_core::de::DeserializeOwned>(&self) -> crate::Result<Option<T>> {
        match &self.value {
            Some(raw) if self.type_name.is_some() => crate::from_str(raw.get()).map(Some),
            _ => Ok(None),
        }
    }
}

impl Native for Any {
    const NAME: &'static str = "$serde_o3de::Native::Any";
    const WHAT: &'static str = "an any";

    fn load(&mut self, input: &Input<'_>) -> Loaded {
        let Input::Other(Json::Obj(members)) = input else {
            return Loaded::new(Outcome::Unsupported, "an any can only be read from an object");
        };
        let Some(Json::Str(type_name)) = members.iter().find(|(k, _)| k == "$type").map(|(_, v)| v) else {
            *self = Any::default();
            return Loaded::new(Outcome::DefaultsUsed, "No \"$type\": the any is empty");
        };
        let value = members.iter().find(|(k, _)| k == "Value" || k == "value").map(|(_, v)| v);
        let raw = value.map(|v| {
            let mut text = String::new();
            write_json(v, &mut text);
            RawJson::from_text(&text).unwrap_or_default()
        });
        *self = Any { type_name: Some(type_name.clone()), value: raw };
        Loaded::new(Outcome::Success, "Any loaded")
    }
}

/// Writes a captured value as compact JSON.
fn write_json(json: &Json, out: &mut String) {
    let mut bytes = Vec::new();
    write_json_bytes(json, &mut bytes);
    out.push_str(&String::from_utf8_lossy(&bytes));
}

fn write_json_bytes(json: &Json, out: &mut Vec<u8>) {
    match json {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Json::Num(crate::coerce::Num::U(u)) => out.extend_from_slice(itoa::Buffer::new().format(*u).as_bytes()),
        Json::Num(crate::coerce::Num::I(i)) => out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes()),
        Json::Num(crate::coerce::Num::F(f)) => crate::fmt::write_f64(out, *f),
        Json::Str(s) => crate::fmt::write_str(out, s),
        Json::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_bytes(item, out);
            }
            out.push(b']');
        }
        Json::Obj(members) => {
            out.push(b'{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                crate::fmt::write_str(out, k);
                out.push(b':');
                write_json_bytes(v, out);
            }
            out.push(b'}');
        }
    }
}

super::native_deserialize!(Any);

impl Serialize for Any {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Members<'a>(&'a Any);
        impl Serialize for Members<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let any = self.0;
                let n = usize::from(any.type_name.is_some()) * 2;
                let mut s = ser::Serializer::serialize_struct(serializer, "Any", n)?;
                if let Some(t) = &any.type_name {
                    ser::SerializeStruct::serialize_field(&mut s, "$type", t)?;
                    match &any.value {
                        Some(v) => ser::SerializeStruct::serialize_field(&mut s, "Value", v)?,
                        None => ser::SerializeStruct::serialize_field(&mut s, "Value", &RawJson::default())?,
                    }
                }
                ser::SerializeStruct::end(s)
            }
        }
        serializer.serialize_newtype_struct(<Any as Native>::NAME, &Members(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution() {
        let types = [
            "BaseClass",
            "SimpleInheritence",
            "{E7829F37-C577-4F2B-A85B-6F331548354C} Inherited",
            "{11111111-C577-4F2B-A85B-6F331548354C} Inherited",
        ];
        assert_eq!(resolve(&types, "    SimpleInheritence    "), Ok(1));
        assert_eq!(resolve(&types, "baseclass"), Ok(0));
        assert_eq!(resolve(&types, "x {e7829f37-c577-4f2b-a85b-6f331548354c} y"), Ok(2));
        assert_eq!(resolve(&types, "Inherited").unwrap_err().outcome, Outcome::Unknown);
        assert_eq!(resolve(&types, "Invalid").unwrap_err().outcome, Outcome::Unknown);
    }
}
