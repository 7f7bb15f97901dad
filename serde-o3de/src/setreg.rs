//! Settings registry files (`.setreg`, `.setregpatch`): JSON with `//` and `/* */` comments and
//! trailing commas, merged into one tree.
//!
//! ```
//! use serde_o3de::setreg::SettingsRegistry;
//!
//! let mut registry = SettingsRegistry::new();
//! registry.merge_str(r#"{
//!     "O3DE": { "Atom": { "Feature": {
//!         "SplashScreenEnable": false,
//!         // Sample context only.
//!         "SplashScreen": { "$type": "AZ::Render::SplashScreenSettings", "DurationSeconds": 10.0, },
//!     } } }
//! }"#)?;
//! registry.merge_str(r#"{ "O3DE": { "Atom": { "Feature": { "SplashScreenEnable": "true" } } } }"#)?;
//! let enabled: bool = registry.get("/O3DE/Atom/Feature/SplashScreenEnable")?.unwrap();
//! assert!(enabled);
//! let seconds: f32 = registry.get("/O3DE/Atom/Feature/SplashScreen/DurationSeconds")?.unwrap();
//! assert_eq!(seconds, 10.0);
//! # Ok::<(), serde_o3de::Error>(())
//! ```

use serde_core::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::read::{Read, SliceRead};
use crate::{DEFAULT_MAX_DEPTH, Options};

/// Loads `T` from settings-registry text with O3DE's rules.
pub fn from_str<'de, T: serde_core::Deserialize<'de>>(text: &'de str) -> Result<T> {
    Options::new().settings_registry(true).from_str(text)
}

/// Settings-registry text as plain compact JSON (comments and trailing commas removed), for tools
/// that only read strict JSON.
pub fn to_json(text: &str) -> Result<String> {
    let mut read = SliceRead::from_str(text, true);
    let mut out = String::with_capacity(text.len());
    read.raw(DEFAULT_MAX_DEPTH, &mut out)?;
    read.end()?;
    Ok(out)
}

/// A settings registry: a JSON tree that settings files are merged into, read by JSON Pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsRegistry {
    root: Value,
}

impl Default for SettingsRegistry {
    fn default() -> Self {
        SettingsRegistry { root: Value::Object(Map::new()) }
    }
}

impl SettingsRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        SettingsRegistry::default()
    }

    /// Merges a settings file, as a JSON Merge Patch (RFC 7386, O3DE's default merge): objects
    /// merge member by member, `null` removes a member, any other value replaces.
    pub fn merge_str(&mut self, text: &str) -> Result<()> {
        let patch: Value = from_str(text)?;
        merge_patch(&mut self.root, patch);
        Ok(())
    }

    /// The value at a JSON Pointer (`""` is the root).
    pub fn value(&self, pointer: &str) -> Option<&Value> {
        self.root.pointer(pointer)
    }

    /// The value at a JSON Pointer loaded as `T` with O3DE's rules; `None` when absent.
    pub fn get<T: DeserializeOwned>(&self, pointer: &str) -> Result<Option<T>> {
        self.root.pointer(pointer).map(crate::from_value).transpose()
    }

    /// The whole tree.
    pub fn root(&self) -> &Value {
        &self.root
    }
}

/// RFC 7386 JSON Merge Patch.
fn merge_patch(target: &mut Value, patch: Value) {
    match patch {
        Value::Object(members) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            if let Value::Object(t) = target {
                for (k, v) in members {
                    if v.is_null() {
                        t.remove(&k);
                    } else {
                        merge_patch(t.entry(k).or_insert(Value::Null), v);
                    }
                }
            }
        }
        other => *target = other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas() {
        assert_eq!(to_json("/* a */ [1, // b\n 2,]").unwrap(), "[1,2]");
        assert!(to_json("[1, /* open").is_err());
    }

    #[test]
    fn merge_patch_rules() {
        let mut r = SettingsRegistry::new();
        r.merge_str(r#"{"a": {"b": 1, "c": 2}, "d": [1]}"#).unwrap();
        r.merge_str(r#"{"a": {"b": null, "e": 3}, "d": [2]}"#).unwrap();
        assert_eq!(r.root(), &serde_json::json!({"a": {"c": 2, "e": 3}, "d": [2]}));
    }
}
