//! Unordered sets (`AZStd::unordered_set`, `unordered_multiset`): written sorted in O3DE's JSON order.
//!
//! A `HashSet` iterates in a random order and reaches a serializer as a plain sequence, so mark it
//! with `#[serde(with = "serde_o3de::unordered")]` to get O3DE's deterministic order (maps are
//! sorted anyway, see [`Options::sort_maps`](crate::Options::sort_maps)).
//!
//! ```
//! use std::collections::HashSet;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Default)]
//! #[serde(default)]
//! struct Tags {
//!     #[serde(with = "serde_o3de::unordered")]
//!     tags: HashSet<String>,
//! }
//!
//! let tags = Tags { tags: ["water", "Rock", "grass"].map(String::from).into() };
//! assert_eq!(serde_o3de::to_string(&tags)?, r#"{"tags":["Rock","grass","water"]}"#);
//! # Ok::<(), serde_o3de::Error>(())
//! ```

use serde_core::{Deserialize, Deserializer, Serialize, Serializer};

use crate::markers::UNORDERED;

/// Serializes a set (or any sequence) with its elements sorted in O3DE's JSON order (this crate's
/// serializer; others get the sequence as it iterates).
pub fn serialize<C: Serialize, S: Serializer>(value: &C, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_newtype_struct(UNORDERED, value)
}

/// Deserializes the container as usual (the counterpart of [`serialize`] for `#[serde(with)]`).
pub fn deserialize<'de, C: Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<C, D::Error> {
    C::deserialize(deserializer)
}
