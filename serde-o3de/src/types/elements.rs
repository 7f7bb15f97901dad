//! Containers whose elements are stored against their type's `Default`, as O3DE stores elements
//! against a new instance.
//!
//! serde tells a serializer nothing about an element's type, so by default struct elements are
//! written in full. Mark a container field with `#[serde(with = "serde_o3de::elements")]` (its
//! elements, or map values, must be `Serialize + Default`) and every element leaves out the members
//! equal to `Element::default()`; an element that is all default is `{}`. The load is unchanged: an
//! element reads missing members from its `#[serde(default)]`, which is exactly what was left out.
//!
//! ```
//! use std::collections::BTreeMap;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(default)]
//! struct Spawn { weight: f32, count: u32 }
//! impl Default for Spawn {
//!     fn default() -> Self { Spawn { weight: 1.0, count: 1 } }
//! }
//!
//! #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
//! #[serde(default)]
//! struct Table {
//!     #[serde(with = "serde_o3de::elements")]
//!     spawns: BTreeMap<String, Spawn>,
//!     plain: Vec<Spawn>,
//! }
//!
//! let table = Table {
//!     spawns: BTreeMap::from([("crate".into(), Spawn { weight: 2.0, count: 1 }), ("rock".into(), Spawn::default())]),
//!     plain: vec![Spawn::default()],
//! };
//! let text = serde_o3de::to_string(&table)?;
//! assert_eq!(text, r#"{"spawns":{"crate":{"weight":2.0},"rock":{}},"plain":[{"weight":1.0,"count":1}]}"#);
//! assert_eq!(serde_o3de::from_str::<Table>(&text)?, table);
//! # Ok::<(), serde_o3de::Error>(())
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;

use indexmap::IndexMap;
use serde_core::ser::SerializeTuple;
use serde_core::{Deserialize, Deserializer, Serialize, Serializer};

use crate::channel;
use crate::markers::ELEMENTS;
use crate::types::multimap::MultiMap;

/// A container whose elements (or map values) have a `Default` to be stored against.
pub trait Elements {
    /// The element (or map value) type.
    type Element: Serialize + Default;
}

impl<E: Serialize + Default> Elements for Vec<E> {
    type Element = E;
}
impl<E: Serialize + Default> Elements for VecDeque<E> {
    type Element = E;
}
impl<E: Serialize + Default> Elements for Box<[E]> {
    type Element = E;
}
impl<E: Serialize + Default, const N: usize> Elements for [E; N] {
    type Element = E;
}
impl<E: Serialize + Default> Elements for BTreeSet<E> {
    type Element = E;
}
impl<E: Serialize + Default, S> Elements for HashSet<E, S> {
    type Element = E;
}
impl<K, V: Serialize + Default> Elements for BTreeMap<K, V> {
    type Element = V;
}
impl<K, V: Serialize + Default, S> Elements for HashMap<K, V, S> {
    type Element = V;
}
impl<K, V: Serialize + Default, S> Elements for IndexMap<K, V, S> {
    type Element = V;
}
impl<K: Hash + Eq, V: Serialize + Default> Elements for MultiMap<K, V> {
    type Element = V;
}
impl<C: Elements> Elements for Option<C> {
    type Element = C::Element;
}

/// The element default and the container, for this crate's serializer; the container alone for
/// any other.
struct WithDefault<'a, C>(&'a C);

impl<C: Elements + Serialize> Serialize for WithDefault<'_, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !channel::wanted(channel::Want::ElementDefaults) {
            return self.0.serialize(serializer);
        }
        let mut t = serializer.serialize_tuple(2)?;
        t.serialize_element(&C::Element::default())?;
        t.serialize_element(self.0)?;
        t.end()
    }
}

/// Serializes a container, storing its elements against `Element::default()`.
pub fn serialize<C: Elements + Serialize, S: Serializer>(value: &C, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_newtype_struct(ELEMENTS, &WithDefault(value))
}

/// Deserializes the container as usual (the counterpart of [`serialize`] for `#[serde(with)]`).
pub fn deserialize<'de, C: Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<C, D::Error> {
    C::deserialize(deserializer)
}
