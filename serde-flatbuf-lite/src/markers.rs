//! Placeholder field types that keep FlatBuffers slot numbers: [`Deprecated`] and [`UnionType`].

use std::fmt;

use serde_core::de::{self, Deserializer, Visitor};
use serde_core::{Deserialize, Serialize, Serializer};

/// The serde name lite recognizes for [`Deprecated`].
pub(crate) const DEPRECATED: &str = "$serde_flatbuf_lite::Deprecated";
/// The serde name lite recognizes for [`UnionType`].
pub(crate) const UNION_TYPE: &str = "$serde_flatbuf_lite::UnionType";

/// A field that keeps its slot number but is never written, like `(deprecated)` in a schema.
///
/// Remove a field from a table by changing its type to `Deprecated` instead of deleting it, so every later
/// field keeps its slot. Readers ignore whatever an old writer stored there. It needs no
/// `#[serde(default)]`: an absent `Deprecated` field decodes fine.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_flatbuf_lite::Deprecated;
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Monster {
///     name: String,        // slot 0
///     friendly: Deprecated, // slot 1, never written
///     hp: i16,             // slot 2
/// }
/// let m = Monster { name: "Orc".into(), friendly: Deprecated, hp: 300 };
/// let bytes = serde_flatbuf_lite::to_vec(&m)?;
/// assert_eq!(serde_flatbuf_lite::from_slice::<Monster>(&bytes)?, m);
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
///
/// Other serde formats see a unit struct (`null` in JSON); add
/// `#[serde(skip_serializing_if = "Deprecated::is_deprecated")]` to leave it out of them (lite counts the
/// slot either way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Deprecated;

impl Deprecated {
    /// Always `true`: for `#[serde(skip_serializing_if = "Deprecated::is_deprecated")]`.
    pub fn is_deprecated(&self) -> bool {
        true
    }
}

impl Serialize for Deprecated {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit_struct(DEPRECATED)
    }
}

impl<'de> Deserialize<'de> for Deprecated {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through `deserialize_option`, so that serde's derive treats an absent field like an absent
        // `Option` (no `#[serde(default)]` needed).
        deserializer.deserialize_option(Anything(Deprecated))
    }
}

/// The type slot of a union, made visible: an optional `UnionType` field right before a field whose type is
/// an enum of tables.
///
/// FlatBuffers stores a union in two consecutive slots: the variant number (`u8`, variant index + 1, 0 =
/// NONE) and the offset of the variant's table — flatc shows them as `x_type` and `x`. Lite finds unions by
/// tracing the type ([`learn`](crate::learn)), so the placeholder is not needed; with it, the two slots are
/// visible in the Rust type, slot numbers stay positional and encoding needs no learning. Both forms write
/// the same bytes. The enum's value is written by the union field; the placeholder holds nothing.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_flatbuf_lite::UnionType;
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Sword { damage: i16 }
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Shield { armor: i16 }
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// enum Equipment { Sword(Sword), Shield(Shield) } // union Equipment { Sword, Shield }
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Hero {
///     name: String,                  // slot 0
///     equipped_type: UnionType,      // slot 1: the variant number
///     equipped: Option<Equipment>,   // slot 2: the table (None = NONE)
///     level: u8,                     // slot 3
/// }
/// let hero = Hero {
///     name: "Ayla".into(),
///     equipped_type: UnionType,
///     equipped: Some(Equipment::Shield(Shield { armor: 7 })),
///     level: 3,
/// };
/// let bytes = serde_flatbuf_lite::to_vec(&hero)?;
/// assert_eq!(serde_flatbuf_lite::from_slice::<Hero>(&bytes)?, hero);
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnionType;

impl Serialize for UnionType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit_struct(UNION_TYPE)
    }
}

impl<'de> Deserialize<'de> for UnionType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_option(Anything(UnionType))
    }
}

/// Accepts any value (or none) and returns the marker.
struct Anything<T>(T);

impl<'de, T: Marker> Visitor<'de> for Anything<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a placeholder field")
    }

    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        Ok(self.0)
    }

    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok(self.0)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        // lite recognizes the name (a `UnionType` reads its type slot here); other formats see a newtype
        // and skip whatever it holds.
        deserializer.deserialize_newtype_struct(T::NAME, self)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        de::IgnoredAny::deserialize(deserializer)?;
        Ok(self.0)
    }
}

trait Marker {
    const NAME: &'static str;
}

impl Marker for Deprecated {
    const NAME: &'static str = DEPRECATED;
}

impl Marker for UnionType {
    const NAME: &'static str = UNION_TYPE;
}
