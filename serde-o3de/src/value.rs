//! Dynamic JSON: O3DE's ordering of JSON values, and [`RawJson`], a value kept as its text.
//!
//! The dynamic value of this crate is `serde_json::Value` ([`to_value`](crate::to_value),
//! [`from_value`](crate::from_value)).

use std::fmt;

use serde_core::de::{self, Deserializer, Visitor};
use serde_core::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::channel;
use crate::error::{Error, Result};
use crate::markers::RAW;
pub use crate::order::compare;
use crate::read::{Read, SliceRead};

/// A JSON value kept as its compact text: member order and number spelling survive a load and
/// store unchanged (`84.13999938964844` stays as written, `64.0` stays `64.0`).
///
/// The typed prefab model keeps component fields it does not model this way, so that files
/// round-trip exactly. Parse it with [`RawJson::parse`] (O3DE's rules) or [`RawJson::to_value`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// Validates JSON text and keeps it compact (insignificant whitespace removed).
    pub fn from_text(text: &str) -> Result<RawJson> {
        let mut read = SliceRead::from_str(text, false);
        let mut out = String::with_capacity(text.len());
        read.raw(crate::DEFAULT_MAX_DEPTH, &mut out)?;
        read.end()?;
        Ok(RawJson(out.into()))
    }

    /// The value's JSON text.
    pub fn from_value(value: &Value) -> RawJson {
        RawJson(value.to_string().into())
    }

    /// Stores `value` (defaults kept) and keeps the text.
    pub fn from_serialize<T: ?Sized + Serialize>(value: &T) -> Result<RawJson> {
        let settings = crate::ser::StoreSettings { keep_defaults: true, sort_maps: true, exact: false };
        let (bytes, _) = crate::ser::store(value, None, settings, Vec::new())?;
        String::from_utf8(bytes).map(|s| RawJson(s.into())).map_err(|e| Error::store(e.to_string()))
    }

    /// The compact JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// The value as a `serde_json::Value`.
    pub fn to_value(&self) -> Result<Value> {
        crate::from_str(&self.0)
    }

    /// Loads a typed value from the text with O3DE's rules.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T> {
        crate::from_str(&self.0)
    }

    /// Whether the value is `{}`.
    pub fn is_empty_object(&self) -> bool {
        &*self.0 == "{}"
    }
}

impl Default for RawJson {
    /// `{}`, O3DE's explicit default.
    fn default() -> Self {
        RawJson("{}".into())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.0)
    }
}

impl std::str::FromStr for RawJson {
    type Err = Error;

    fn from_str(s: &str) -> Result<RawJson> {
        RawJson::from_text(s)
    }
}

/// The text of a [`RawJson`]: this crate's serializer takes it verbatim; any other serializer gets
/// the parsed value.
struct RawText<'a>(&'a str);

impl Serialize for RawText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        if channel::raw_text_wanted() {
            return serializer.serialize_str(self.0);
        }
        let value: Value = serde_json::from_str(self.0).map_err(serde_core::ser::Error::custom)?;
        value.serialize(serializer)
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(RAW, &RawText(&self.0))
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    /// This crate's deserializer hands over the compact text.
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<RawJson, E> {
        Ok(RawJson(v.into()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<RawJson, E> {
        Ok(RawJson(v.into_boxed_str()))
    }

    /// Other deserializers: read any value and keep its text.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<RawJson, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(RawJson::from_value(&value))
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW, RawVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_keeps_text() {
        let raw = RawJson::from_text(" { \"b\" : 64.0 , \"a\" : [ 1 ] } ").unwrap();
        assert_eq!(raw.get(), r#"{"b":64.0,"a":[1]}"#);
        assert!(RawJson::from_text("{").is_err());
    }
}
