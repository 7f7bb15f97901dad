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
//! * So that Extended JSON stays unambiguous, a *document* whose keys all start with `$` (which
//!   would read back as Extended JSON, e.g. `{"$numberLong": "5"}`) is written escaped, as
//!   `{"$literal": {"$numberLong": "5"}}` (the name of MongoDB's operator for "take this as
//!   is"). Reading, an object whose only key is `$literal` and whose value is an object is that
//!   object with its keys taken literally (its values are read as usual); `$literal` in any
//!   other position is an ordinary key. So BSON → JSON → BSON keeps such documents, and the
//!   typed model, which reads them from the raw bytes, keeps them too.
//! * Reading is linear in the text (each object is looked at once for Extended JSON, only in
//!   the shapes Extended JSON uses) and its memory is budgeted: at most
//!   [`DEFAULT_JSON_BUDGET_RATIO`] (64, the workspace rule) × the text's length + 2 MiB, or the
//!   ratio given to [`from_slice_with_budget`], else [`ErrorKind::LimitExceeded`].
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

use crate::budget::{self, Budget};
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

/// Parses JSON bytes into a tree: the root must be an object, nesting is limited to `max_depth`,
/// and the tree's memory to the default budget ([`DEFAULT_JSON_BUDGET_RATIO`] × the text's length
/// + 2 MiB).
pub fn from_slice_with(bytes: &[u8], width: IntWidth, max_depth: usize) -> Result<Document> {
    from_slice_with_budget(bytes, width, max_depth, DEFAULT_JSON_BUDGET_RATIO)
}

/// The default memory budget of a JSON tree, in bytes per byte of text: the workspace rule's 64.
/// The densest JSON, an array of one-digit numbers, needs 56 (two bytes of text for each 112-byte
/// [`Bson`]), so every document a BSON writer could have produced fits.
pub const DEFAULT_JSON_BUDGET_RATIO: usize = 64;

/// [`from_slice_with`] with the tree's memory limited to `budget_ratio` × the text's length +
/// 2 MiB, counted as it is built (document buckets and tables, array buffers, strings); running
/// out is [`ErrorKind::LimitExceeded`]. The costliest JSON is an array of one-digit numbers: two
/// bytes of text for each 112-byte [`Bson`].
pub fn from_slice_with_budget(
    bytes: &[u8],
    width: IntWidth,
    max_depth: usize,
    budget_ratio: usize,
) -> Result<Document> {
    let budget = Budget::for_input(bytes.len(), budget_ratio);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Our seed counts the depth itself and stops before serde_json's recursion gets deep.
    de.disable_recursion_limit();
    let seed = BsonSeed { width, depth: max_depth, defer: false, budget: &budget };
    let over = |e: serde_json::Error| {
        if budget.exceeded() { budget::limit_error("the JSON tree", budget.limit()) } else { json_error(e) }
    };
    let value = seed.deserialize(&mut de).map_err(over)?;
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
                if looks_extended(doc).map_err(S::Error::custom)? {
                    // Escaped, so that it reads back as this document (see the module docs).
                    let mut map = s.serialize_map(Some(1))?;
                    map.serialize_entry(LITERAL, &Entries(doc))?;
                    map.end()
                } else {
                    Entries(doc).serialize(s)
                }
            }
            RawBsonRef::JavaScriptCodeWithScope(code) => {
                // Written here rather than by `bson` (which would convert the whole scope to an
                // owned tree first), with the scope's documents escaped like any other.
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("$code", code.code)?;
                map.serialize_entry("$scope", &JsonValue(RawBsonRef::Document(code.scope)))?;
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

/// The key that escapes a document whose keys all start with `$`: `{"$literal": {…}}`.
pub const LITERAL: &str = "$literal";

/// Whether a document would read back as something else: it is not empty and all its keys
/// start with `$` (the Extended JSON shape, and `$literal` itself).
fn looks_extended(doc: &RawDocument) -> std::result::Result<bool, bson::error::Error> {
    let mut any = false;
    for element in doc.iter_elements() {
        if !element?.key().as_str().starts_with('$') {
            return Ok(false);
        }
        any = true;
    }
    Ok(any)
}

/// A document's entries as a JSON object, without the escape check.
struct Entries<'a>(&'a RawDocument);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for item in self.0 {
            let (k, v) = item.map_err(S::Error::custom)?;
            map.serialize_entry(k.as_str(), &JsonValue(v))?;
        }
        map.end()
    }
}

/// Builds a [`Bson`] from any self-describing input, counting the depth and the memory.
#[derive(Clone, Copy)]
struct BsonSeed<'b> {
    width: IntWidth,
    depth: usize,
    /// This value is the first value of an object, under the key `$literal`: if it is an object,
    /// leave it unfinished (see [`finish`]); the enclosing object decides.
    defer: bool,
    budget: &'b Budget,
}

impl BsonSeed<'_> {
    fn nested<E: de::Error>(self) -> std::result::Result<Self, E> {
        match self.depth.checked_sub(1) {
            Some(depth) => Ok(BsonSeed { depth, defer: false, ..self }),
            None => Err(E::custom("JSON objects and arrays nest deeper than the limit")),
        }
    }

    fn charge<E: de::Error>(&self, bytes: usize) -> std::result::Result<(), E> {
        if self.budget.charge(bytes) {
            Ok(())
        } else {
            Err(E::custom(format_args!(
                "the JSON tree needs more memory than its budget of {} bytes",
                self.budget.limit()
            )))
        }
    }
}

impl<'de> DeserializeSeed<'de> for BsonSeed<'_> {
    type Value = Bson;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Bson, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BsonSeed<'_> {
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
        self.charge(v.len())?;
        Ok(Bson::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Bson, E> {
        self.charge(v.capacity())?;
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
        let mut out: Vec<Bson> = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            if out.len() == out.capacity() {
                let old = out.capacity();
                let new = (old * 2).max(4);
                self.charge(new.saturating_mul(budget::BSON))?;
                out.reserve_exact(new - old);
                self.budget.refund(old * budget::BSON);
            }
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
            self.charge(budget::doc_entry(doc.len(), key.len()))?;
            let defer = doc.is_empty() && key == LITERAL;
            let value = map.next_value_seed(BsonSeed { defer, ..inner })?;
            doc.insert(key, value);
        }
        Ok(if self.defer { Bson::Document(doc) } else { finish(doc, false) })
    }
}

/// Finishes a JSON object read into `doc`, each value finished already except a first value
/// under `$literal` that was an object (left unfinished, because what it is depends on whether
/// this object has other keys):
///
/// * `{"$literal": {…}}` alone (and not itself `literal`): the inner object, its keys taken
///   literally;
/// * otherwise the `$literal` value is an ordinary value, and a `literal` object is a document;
/// * an object that is not `literal` is read as Extended JSON ([`extended`]).
///
/// Each object is finished once, by itself or by its parent, so the whole read is linear.
fn finish(mut doc: Document, literal: bool) -> Bson {
    let deferred = matches!(doc.iter().next(), Some((key, Bson::Document(_))) if key == LITERAL);
    if deferred {
        if !literal && doc.len() == 1 {
            if let Some((_, Bson::Document(inner))) = doc.into_iter().next() {
                return finish(inner, true);
            }
            unreachable!("checked above");
        }
        if let Some(slot) = doc.get_mut(LITERAL) {
            if let Bson::Document(inner) = std::mem::replace(slot, Bson::Null) {
                *slot = finish(inner, false);
            }
        }
    }
    if literal { Bson::Document(doc) } else { extended(doc) }
}

/// Relaxed Extended JSON for the types plain JSON cannot hold (`{"$oid": …}`, `{"$date": …}`,
/// `{"$binary": {"base64": …, "subType": …}}`, `{"$code": …, "$scope": {…}}`, …), read from an
/// object whose values are finished already. Only the shapes Extended JSON uses are tried (one
/// or two `$` keys, values that are scalars or small documents of scalars), so this costs
/// the size of the object's own scalars, never its subtree's again.
fn extended(doc: Document) -> Bson {
    if doc.is_empty() || doc.len() > 2 || !doc.keys().all(|k| k.starts_with('$')) {
        return Bson::Document(doc);
    }
    if doc.len() == 2
        && matches!(doc.get("$code"), Some(Bson::String(_)))
        && matches!(doc.get("$scope"), Some(Bson::Document(_)))
    {
        let mut code = String::new();
        let mut scope = Document::new();
        for (key, value) in doc {
            match value {
                Bson::String(s) if key == "$code" => code = s,
                Bson::Document(d) => scope = d,
                _ => unreachable!("checked above"),
            }
        }
        return Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope { code, scope });
    }
    fn small(value: &Bson, top: bool) -> bool {
        match value {
            Bson::Document(d) => top && d.len() <= 2 && d.values().all(|v| small(v, false)),
            Bson::Array(_) | Bson::JavaScriptCodeWithScope(_) => false,
            _ => true,
        }
    }
    if !doc.values().all(|v| small(v, true)) {
        return Bson::Document(doc);
    }
    match Bson::try_from(Bson::Document(doc.clone()).into_relaxed_extjson()) {
        Ok(value) if !matches!(value, Bson::Document(_)) => value,
        _ => Bson::Document(doc),
    }
}
