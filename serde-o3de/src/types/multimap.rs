//! `AZStd::multimap` / `unordered_multimap`: every key holds an array of values.

use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;

use indexmap::IndexMap;
use serde_core::de::{MapAccess, Visitor};
use serde_core::{Deserialize, Deserializer, Serialize, Serializer};

/// A multimap as O3DE stores one: `{"key": [value, …]}` (or `[{"Key": k, "Value": [..]}]` when
/// keys are not strings). Loading merges repeated keys, so `{"Hello": ["Other"], "Hello":
/// ["World"]}` holds both values. Keys keep their first-insertion order; the store sorts them like
/// O3DE sorts `unordered_multimap` (see [`Options::sort_maps`](crate::Options::sort_maps)).
///
/// ```
/// let m: serde_o3de::MultiMap<String, String> =
///     serde_o3de::from_str(r#"{"Hello": ["Other"], "Hello": ["World"]}"#)?;
/// assert_eq!(m.get("Hello"), ["Other", "World"]);
/// # Ok::<(), serde_o3de::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct MultiMap<K: Hash + Eq, V> {
    entries: IndexMap<K, Vec<V>>,
}

impl<K: Hash + Eq, V> Default for MultiMap<K, V> {
    fn default() -> Self {
        MultiMap { entries: IndexMap::new() }
    }
}

impl<K: Hash + Eq + fmt::Debug, V: fmt::Debug> fmt::Debug for MultiMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter()).finish()
    }
}

impl<K: Hash + Eq, V> MultiMap<K, V> {
    /// An empty multimap.
    pub fn new() -> Self {
        MultiMap::default()
    }

    /// Adds a value under `key`.
    pub fn insert(&mut self, key: K, value: V) {
        self.entries.entry(key).or_default().push(value);
    }

    /// The values under `key` (empty if none).
    pub fn get<Q>(&self, key: &Q) -> &[V]
    where
        K: std::borrow::Borrow<Q>,
        Q: ?Sized + Hash + Eq,
    {
        self.entries.get(key).map_or(&[], Vec::as_slice)
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.entries.values().map(Vec::len).sum()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.entries.values().all(Vec::is_empty)
    }

    /// Every key with its values.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &[V])> {
        self.entries.iter().map(|(k, v)| (k, v.as_slice()))
    }
}

impl<K: Hash + Eq, V> FromIterator<(K, V)> for MultiMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = MultiMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<K: Hash + Eq + Serialize, V: Serialize> Serialize for MultiMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.entries.iter().filter(|(_, v)| !v.is_empty()))
    }
}

impl<'de, K: Hash + Eq + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for MultiMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V2<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Hash + Eq + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for V2<K, V> {
            type Value = MultiMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a multimap")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = MultiMap::new();
                while let Some((k, values)) = map.next_entry::<K, Vec<V>>()? {
                    out.entries.entry(k).or_default().extend(values);
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(V2(PhantomData))
    }
}
