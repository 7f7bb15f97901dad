//! JSON conversion of data trees, both ways, for reading, grepping, diffing and editing.
//!
//! * Key order is kept (the JSON is written straight from the BSON, not through a map type).
//! * Numbers are plain JSON numbers: int32 and int64 as integers, doubles with a fraction or an
//!   exponent (`1.0`, `1.2000000476837158`), so a double stays a double on the way back.
//!   Non-finite doubles are written as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` (as the
//!   engine's Newtonsoft JSON does) and come back as strings.
//! * Strings are written as stored: URLs keep their `@` and escaped strings their `@@`, so the
//!   JSON→BSON direction needs no knowledge of the schema.
//! * BSON types the engine never writes (binary, dates, ObjectIds, …) use relaxed Extended JSON
//!   (`{"$oid": …}`) and are read back from it.
//!
//! Going back, a JSON object with a duplicate key is an error (BSON can hold one, JSON readers
//! disagree on which value wins; the tree would be ambiguous). Integers become int32 when they fit and int64 otherwise ([`IntWidth::Narrowest`],
//! the default), or always int64 ([`IntWidth::Int64`], like legacy Neos files). The engine reads
//! both widths alike, so BSON → JSON → BSON gives a tree the engine loads identically; JSON →
//! BSON → JSON gives the same text.
//!
//! ```
//! let bytes = std::fs::read("tests/data/synthetic-modern.lz4bson")?;
//! let payload = serde_brson::decompress(&bytes)?;
//! let text = serde_brson::json::to_string_pretty(payload.raw())?;
//! assert!(text.contains("\"VersionNumber\": \"2025.1.1.1\""));
//!
//! let edited = text.replace("Sample <b>root</b>", "Renamed");
//! let tree = serde_brson::json::from_str(&edited)?;
//! let file = serde_brson::to_vec(&tree, serde_brson::Compression::Brotli)?;
//! let back: serde_brson::model::DataTree = serde_brson::from_slice(&file)?;
//! assert_eq!(back.object.name(), Some("Renamed"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::io::Write;

use bson::{Bson, Document, RawBsonRef, RawDocument};
use serde_core::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{Error as _, SerializeMap, SerializeSeq};
use serde_core::{Serialize, Serializer};

use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;

/// Writes a tree as compact JSON.
pub fn to_string(document: &RawDocument) -> Result<String> {
    let mut out = Vec::new();
    to_writer(&mut out, document, false)?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// Writes a tree as indented JSON (two spaces).
pub fn to_string_pretty(document: &RawDocument) -> Result<String> {
    let mut out = Vec::new();
    to_writer(&mut out, document, true)?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// Writes a tree as JSON into `writer`.
pub fn to_writer<W: Write>(writer: W, document: &RawDocument, pretty: bool) -> Result<()> {
    let value = JsonValue(RawBsonRef::Document(document));
    let result =
        if pretty { serde_json::to_writer_pretty(writer, &value) } else { serde_json::to_writer(writer, &value) };
    result.map_err(|e| {
        let kind = if e.is_io() { ErrorKind::Io } else { ErrorKind::Bson };
        Error::new(kind, e.to_string()).with_source(e)
    })
}

/// How JSON integers become BSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IntWidth {
    /// int32 when the value fits, else int64 (what Resonite writes for `int` members).
    #[default]
    Narrowest,
    /// Always int64 (what legacy Neos files hold).
    Int64,
}

/// Parses JSON text into a tree, with the default nesting limit and [`IntWidth::Narrowest`].
pub fn from_str(text: &str) -> Result<Document> {
    from_slice(text.as_bytes())
}

/// Parses JSON bytes into a tree, with the default nesting limit and [`IntWidth::Narrowest`].
pub fn from_slice(bytes: &[u8]) -> Result<Document> {
    from_slice_with(bytes, IntWidth::Narrowest, Options::DEFAULT_MAX_DEPTH)
}

/// Parses JSON bytes into a tree: the root must be an object, nesting is limited to `max_depth`.
pub fn from_slice_with(bytes: &[u8], width: IntWidth, max_depth: usize) -> Result<Document> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Our seed counts the depth itself and stops before serde_json's recursion gets deep.
    de.disable_recursion_limit();
    let seed = BsonSeed { width, depth: max_depth };
    let value = seed.deserialize(&mut de).map_err(json_error)?;
    de.end().map_err(json_error)?;
    match value {
        Bson::Document(doc) => Ok(doc),
        other => Err(Error::new(
            ErrorKind::Json,
            format!("the root of a data tree must be an object, not {:?}", other.element_type()),
        )),
    }
}

fn json_error(e: serde_json::Error) -> Error {
    let kind = if e.to_string().contains("nest deeper") { ErrorKind::DepthLimitExceeded } else { ErrorKind::Json };
    Error::new(kind, e.to_string()).with_source(e)
}

/// Serializes a raw BSON value as plain JSON.
struct JsonValue<'a>(RawBsonRef<'a>);

impl Serialize for JsonValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            RawBsonRef::Double(v) if v.is_finite() => s.serialize_f64(v),
            RawBsonRef::Double(v) => s.serialize_str(if v.is_nan() {
                "NaN"
            } else if v > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            }),
            RawBsonRef::String(v) => s.serialize_str(v),
            RawBsonRef::Boolean(v) => s.serialize_bool(v),
            RawBsonRef::Null => s.serialize_unit(),
            RawBsonRef::Int32(v) => s.serialize_i32(v),
            RawBsonRef::Int64(v) => s.serialize_i64(v),
            RawBsonRef::Document(doc) => {
                let mut map = s.serialize_map(None)?;
                for item in doc {
                    let (k, v) = item.map_err(S::Error::custom)?;
                    map.serialize_entry(k.as_str(), &JsonValue(v))?;
                }
                map.end()
            }
            RawBsonRef::Array(array) => {
                let mut seq = s.serialize_seq(None)?;
                for item in array {
                    seq.serialize_element(&JsonValue(item.map_err(S::Error::custom)?))?;
                }
                seq.end()
            }
            other => {
                let owned = Bson::try_from(other).map_err(S::Error::custom)?;
                Bson::into_relaxed_extjson(owned).serialize(s)
            }
        }
    }
}

/// Builds a [`Bson`] from any self-describing input, counting the depth.
#[derive(Clone, Copy)]
struct BsonSeed {
    width: IntWidth,
    depth: usize,
}

impl BsonSeed {
    fn nested<E: de::Error>(self) -> std::result::Result<Self, E> {
        match self.depth.checked_sub(1) {
            Some(depth) => Ok(BsonSeed { depth, ..self }),
            None => Err(E::custom("JSON objects and arrays nest deeper than the limit")),
        }
    }
}

impl<'de> DeserializeSeed<'de> for BsonSeed {
    type Value = Bson;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Bson, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BsonSeed {
    type Value = Bson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Bson, E> {
        Ok(Bson::Boolean(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Bson, E> {
        Ok(match (self.width, i32::try_from(v)) {
            (IntWidth::Narrowest, Ok(small)) => Bson::Int32(small),
            _ => Bson::Int64(v),
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Bson, E> {
        match i64::try_from(v) {
            Ok(v) => self.visit_i64(v),
            Err(_) => Err(E::custom(format!("the integer {v} does not fit BSON's int64"))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Bson, E> {
        Ok(Bson::Double(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Bson, E> {
        Ok(Bson::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Bson, E> {
        Ok(Bson::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> std::result::Result<Bson, E> {
        Ok(Bson::Null)
    }

    fn visit_none<E: de::Error>(self) -> std::result::Result<Bson, E> {
        Ok(Bson::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Bson, A::Error> {
        let inner = self.nested()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            out.push(v);
        }
        Ok(Bson::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Bson, A::Error> {
        let inner = self.nested()?;
        let mut doc = Document::new();
        while let Some(key) = map.next_key::<String>()? {
            if doc.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key {key:?} in a JSON object")));
            }
            let value = map.next_value_seed(inner)?;
            doc.insert(key, value);
        }
        // Relaxed Extended JSON for the types plain JSON cannot hold (`{"$oid": …}`).
        if !doc.is_empty() && doc.keys().all(|k| k.starts_with('$')) {
            if let Ok(value) = Bson::try_from(Bson::Document(doc.clone()).into_relaxed_extjson()) {
                if !matches!(value, Bson::Document(_)) {
                    return Ok(value);
                }
            }
        }
        Ok(Bson::Document(doc))
    }
}
