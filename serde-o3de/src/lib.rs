#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[macro_use]
mod macros;

mod channel;
mod coerce;
pub mod de;
pub mod error;
mod fmt;
mod markers;
mod order;
pub mod prefab;
mod read;
pub mod report;
pub mod ser;
pub mod setreg;
pub mod types;
pub mod value;

use std::io;

use serde_core::{Deserialize, Serialize};

pub use de::Deserializer;
pub use error::{Category, Error, Result};
pub use report::{Issue, IssuePath, Outcome, Processing, Report, ResultCode, Task};
pub use ser::Serializer;
pub use serde_json::{Map, Number, Value};
pub use types::Loaded;
pub use types::color::Color;
pub use types::elements;
pub use types::enums::{self, Enum, O3deEnum, Repr};
pub use types::math::{Matrix3x3, Matrix3x4, Matrix4x4, Quaternion, Transform, Vector2, Vector3, Vector4};
pub use types::multimap::MultiMap;
pub use types::poly::{self, Any, Polymorphic, ResolveError, TypeIndex, TypeRegistry, UnknownType};
pub use types::unordered;
pub use types::uuid::{ParseUuidError, Uuid};
pub use value::{RawJson, compare};

/// The default nesting limit of a load (arrays and objects inside each other).
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// The default number of issues a [`Report`] keeps ([`Options::max_issues`]); the rest are counted
/// in [`Report::omitted`].
pub const DEFAULT_MAX_ISSUES: usize = 10_000;

/// Everything configurable about loading and storing, with `from_*`/`load_*`/`to_*` methods.
///
/// ```
/// use serde_o3de::{Options, Outcome};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Default, Debug, PartialEq)]
/// #[serde(default)]
/// struct Settings { fading: bool, duration_seconds: f32 }
///
/// let text = r#"{ "Fading": "true", "duration_seconds": "10.5 s", "Colour": [1, 0, 0] }"#;
/// let (settings, report) = Options::new().load_str::<Settings>(text)?;
/// assert_eq!(settings, Settings { fading: true, duration_seconds: 10.5 });
/// assert_eq!(report.outcome(), Outcome::PartialSkip);
/// assert_eq!(report.issues[0].path, "/Colour");
/// # Ok::<(), serde_o3de::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    max_depth: usize,
    max_issues: usize,
    keep_defaults: bool,
    sort_maps: bool,
    strict_doubles: bool,
    settings_registry: bool,
    exact_output: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

/// A stored value: compact JSON text and O3DE's result of the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    json: String,
    result: ResultCode,
}

impl Stored {
    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.json
    }

    /// The compact JSON text.
    pub fn into_string(self) -> String {
        self.json
    }

    /// The JSON re-indented like rapidjson's `PrettyWriter` (four spaces), as O3DE writes files.
    pub fn pretty(&self) -> String {
        pretty_string(self.json.as_bytes())
    }

    /// The store's result: DefaultsUsed when the value equals its default (the text is then `{}`),
    /// PartialDefaults when members were left out, Success otherwise.
    pub fn result(&self) -> ResultCode {
        self.result
    }
}

fn pretty_string(compact: &[u8]) -> String {
    let mut out = Vec::with_capacity(compact.len() * 2);
    fmt::pretty(compact, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

impl Options {
    /// The defaults: depth limit 128, defaults stripped, maps sorted, strict color doubles,
    /// strict JSON.
    pub const fn new() -> Self {
        Options {
            max_depth: DEFAULT_MAX_DEPTH,
            max_issues: DEFAULT_MAX_ISSUES,
            keep_defaults: false,
            sort_maps: true,
            strict_doubles: true,
            settings_registry: false,
            exact_output: false,
        }
    }

    /// Nesting limit of a load; deeper input is an error (never a stack overflow).
    pub const fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Load: how many issues a [`Report`] keeps ([`DEFAULT_MAX_ISSUES`] by default). Issues beyond
    /// it still count in the report's result and are passed to a callback, but are only counted
    /// ([`Report::omitted`]), so a document full of unloadable values cannot make a report much
    /// larger than the document.
    pub const fn max_issues(mut self, max: usize) -> Self {
        self.max_issues = max;
        self
    }

    /// Store: write members equal to their defaults too (O3DE's `keepDefaults`).
    pub const fn keep_defaults(mut self, keep: bool) -> Self {
        self.keep_defaults = keep;
        self
    }

    /// Store: sort map entries in O3DE's JSON order, as O3DE does for `unordered_map` (on by
    /// default: `HashMap` output is deterministic). Off keeps the map's iteration order.
    pub const fn sort_maps(mut self, sort: bool) -> Self {
        self.sort_maps = sort;
        self
    }

    /// Store: leave out exactly what O3DE leaves out, for output only O3DE reads.
    ///
    /// O3DE loads over its default objects, so it also leaves out a float within `FLT_EPSILON`
    /// (`DBL_EPSILON` for doubles) of its default, a color's alpha equal to the default object's, and
    /// transform members equal to the default object's. This crate loads partial colors and
    /// transforms over their types' own defaults and cannot restore a float it never saw, so by
    /// default it leaves those out only where its load restores them exactly (lossless
    /// round-trips). Turn this on to write byte for byte what O3DE writes.
    pub const fn exact_o3de_output(mut self, exact: bool) -> Self {
        self.exact_output = exact;
        self
    }

    /// Load: color arrays must hold JSON doubles (`1.0`, not `1`), as in O3DE (on by default).
    /// Off accepts integer literals too.
    pub const fn strict_color_doubles(mut self, strict: bool) -> Self {
        self.strict_doubles = strict;
        self
    }

    /// Load: accept the settings-registry syntax of `.setreg` files: `//` and `/* */` comments
    /// and trailing commas.
    pub const fn settings_registry(mut self, on: bool) -> Self {
        self.settings_registry = on;
        self
    }

    fn load_settings(&self) -> de::LoadSettings {
        de::LoadSettings {
            max_depth: self.max_depth,
            max_issues: self.max_issues,
            strict_doubles: self.strict_doubles,
            relaxed: self.settings_registry,
        }
    }

    fn run<'cb>(&self, report: bool, callback: Option<de::Callback<'cb>>) -> de::LoadRun<'cb> {
        de::LoadRun { settings: self.load_settings(), report, callback }
    }

    fn store_settings(&self) -> ser::StoreSettings {
        ser::StoreSettings { keep_defaults: self.keep_defaults, sort_maps: self.sort_maps, exact: self.exact_output }
    }

    /// Loads `T` from JSON text with O3DE's rules (see the crate docs).
    pub fn from_str<'de, T: Deserialize<'de>>(&self, text: &'de str) -> Result<T> {
        de::from_str_run(text, self.run(false, None)).map(|(v, _)| v)
    }

    /// Loads `T` from JSON bytes (which must be UTF-8).
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        de::from_slice_run(bytes, self.run(false, None)).map(|(v, _)| v)
    }

    /// Loads `T` from a reader (read to the end first).
    pub fn from_reader<R: io::Read, T: serde_core::de::DeserializeOwned>(&self, mut reader: R) -> Result<T> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        self.from_slice(&bytes)
    }

    /// Loads `T` from a `serde_json::Value`.
    pub fn from_value<'de, T: Deserialize<'de>>(&self, value: &'de Value) -> Result<T> {
        de::from_value_run(value, self.run(false, None)).map(|(v, _)| v)
    }

    /// Loads `T` and reports: the combined [`ResultCode`] and every [`Issue`] with its JSON Pointer.
    pub fn load_str<'de, T: Deserialize<'de>>(&self, text: &'de str) -> Result<(T, Report)> {
        de::from_str_run(text, self.run(true, None))
    }

    /// [`load_str`](Self::load_str) for bytes.
    pub fn load_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<(T, Report)> {
        de::from_slice_run(bytes, self.run(true, None))
    }

    /// [`load_str`](Self::load_str) for a `serde_json::Value`.
    pub fn load_value<'de, T: Deserialize<'de>>(&self, value: &'de Value) -> Result<(T, Report)> {
        de::from_value_run(value, self.run(true, None))
    }

    /// Loads and reports, calling `callback` for every issue (O3DE's `JsonIssueCallback`). The
    /// code it returns replaces the issue's; a code whose processing is Halted (e.g.
    /// Catastrophic) stops the load with an error.
    pub fn load_str_with<'de, T: Deserialize<'de>>(
        &self,
        text: &'de str,
        mut callback: impl FnMut(&Issue) -> ResultCode,
    ) -> Result<(T, Report)> {
        de::from_str_run(text, self.run(true, Some(&mut callback)))
    }

    /// Loads JSON text over an existing value, like O3DE's `Load(object, json)`: this crate's
    /// types (colors, vectors, …) keep the channels and members the JSON does not give, and a root
    /// value that cannot be converted is left unchanged (the report says Unsupported). Other types
    /// are replaced by the loaded value.
    pub fn load_into<'de, T: Deserialize<'de> + Clone>(&self, place: &mut T, text: &'de str) -> Result<Report> {
        let original = place.clone();
        let relaxed = self.settings_registry;
        let (value, report) = de::load(
            || read::SliceRead::from_str(text, relaxed),
            self.run(true, None),
            |core| {
                let mut value = original.clone();
                T::deserialize_in_place(&mut *core, &mut value)?;
                // A root that cannot be converted keeps its value, as in O3DE.
                Ok(if core.root_failed() { original.clone() } else { value })
            },
        )?;
        *place = value;
        Ok(report)
    }

    /// Stores `value`, stripping what equals `default` (no default: struct members are all
    /// written, only zero values inside containers become `{}`).
    pub fn store<T: ?Sized + Serialize>(&self, value: &T, default: Option<&T>) -> Result<Stored> {
        let tree = match default {
            Some(d) if !self.keep_defaults => Some(ser::default_tree(d)?),
            _ => None,
        };
        let (bytes, result) = ser::store(value, tree.as_ref(), self.store_settings(), Vec::new())?;
        let json = String::from_utf8(bytes).map_err(|e| Error::store(e.to_string()))?;
        Ok(Stored { json, result })
    }

    /// Appends the compact JSON of `value` to `out` (defaults stripped against `T::default()`).
    pub fn to_vec_into<T: Serialize + Default>(&self, value: &T, out: Vec<u8>) -> Result<Vec<u8>> {
        let tree = if self.keep_defaults { None } else { Some(ser::default_tree(&T::default())?) };
        ser::store(value, tree.as_ref(), self.store_settings(), out).map(|(bytes, _)| bytes)
    }

    /// The compact JSON of `value` (defaults stripped against `T::default()`).
    pub fn to_vec<T: Serialize + Default>(&self, value: &T) -> Result<Vec<u8>> {
        self.to_vec_into(value, Vec::new())
    }

    /// The compact JSON of `value`.
    pub fn to_string<T: Serialize + Default>(&self, value: &T) -> Result<String> {
        let bytes = self.to_vec(value)?;
        String::from_utf8(bytes).map_err(|e| Error::store(e.to_string()))
    }

    /// The JSON of `value` indented like O3DE's files (rapidjson `PrettyWriter`, four spaces).
    pub fn to_string_pretty<T: Serialize + Default>(&self, value: &T) -> Result<String> {
        Ok(pretty_string(&self.to_vec(value)?))
    }

    /// Writes the compact JSON of `value`.
    pub fn to_writer<W: io::Write, T: Serialize + Default>(&self, mut writer: W, value: &T) -> Result<()> {
        writer.write_all(&self.to_vec(value)?)?;
        Ok(())
    }

    /// Writes the pretty JSON of `value`.
    pub fn to_writer_pretty<W: io::Write, T: Serialize + Default>(&self, mut writer: W, value: &T) -> Result<()> {
        writer.write_all(self.to_string_pretty(value)?.as_bytes())?;
        Ok(())
    }

    /// The stored JSON of `value` as a `serde_json::Value`.
    pub fn to_value<T: Serialize + Default>(&self, value: &T) -> Result<Value> {
        let bytes = self.to_vec(value)?;
        serde_json::from_slice(&bytes).map_err(|e| Error::store(e.to_string()))
    }
}

/// Loads `T` from O3DE JSON text: coercions, `{}` defaults, case-insensitive fields; values that
/// cannot be converted keep their defaults (see [`Options::load_str`] for the report).
pub fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T> {
    Options::new().from_str(text)
}

/// Loads `T` from O3DE JSON bytes (UTF-8).
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Options::new().from_slice(bytes)
}

/// Loads `T` from a reader.
pub fn from_reader<R: io::Read, T: serde_core::de::DeserializeOwned>(reader: R) -> Result<T> {
    Options::new().from_reader(reader)
}

/// Loads `T` from a `serde_json::Value` with O3DE's rules (borrowing strings from it).
pub fn from_value<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T> {
    Options::new().from_value(value)
}

/// Stores `value` as compact O3DE JSON, leaving out what equals `T::default()`.
pub fn to_string<T: Serialize + Default>(value: &T) -> Result<String> {
    Options::new().to_string(value)
}

/// Stores `value` as O3DE JSON indented like O3DE's files.
pub fn to_string_pretty<T: Serialize + Default>(value: &T) -> Result<String> {
    Options::new().to_string_pretty(value)
}

/// Stores `value` as compact O3DE JSON bytes.
pub fn to_vec<T: Serialize + Default>(value: &T) -> Result<Vec<u8>> {
    Options::new().to_vec(value)
}

/// Writes `value` as compact O3DE JSON.
pub fn to_writer<W: io::Write, T: Serialize + Default>(writer: W, value: &T) -> Result<()> {
    Options::new().to_writer(writer, value)
}

/// Stores `value` as a `serde_json::Value`.
pub fn to_value<T: Serialize + Default>(value: &T) -> Result<Value> {
    Options::new().to_value(value)
}
