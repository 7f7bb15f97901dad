//! StringName, NodePath, RID, object ids, Callable and Signal.

use std::fmt::{self, Display, Write as _};
use std::str::FromStr;

use serde_core::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{Serialize, SerializeStruct, Serializer};

use crate::magic;

use super::{FieldSeed, godot_struct};

/// `StringName` (Godot 4): an interned string. On the wire it is a STRING_NAME, with the same
/// body as a String; with other formats it is a plain string.
///
/// Godot 3 has no StringName: encoding one in Godot 3 mode is an error. Decoding a `StringName`
/// field also accepts a plain String, and a `String` field also accepts a StringName.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StringName(pub String);

impl StringName {
    /// The name as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for StringName {
    fn from(s: &str) -> Self {
        StringName(s.to_owned())
    }
}

impl From<String> for StringName {
    fn from(s: String) -> Self {
        StringName(s)
    }
}

impl Display for StringName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for StringName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(magic::STRING_NAME, self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for StringName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StringName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a StringName")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<StringName, D::Error> {
                String::deserialize(d).map(StringName)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StringName, E> {
                Ok(StringName(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<StringName, E> {
                Ok(StringName(v))
            }
        }
        deserializer.deserialize_newtype_struct(magic::STRING_NAME, V)
    }
}

/// `NodePath`: node names, then subnames (properties), and whether the path is absolute.
///
/// Its text form is GDScript's: `/root/Main` (absolute; names `root`, `Main`),
/// `Player/Sprite:position:x` (names `Player`, `Sprite`; subnames `position`, `x`), `:position`.
/// Human-readable formats (JSON) write that text; serde-godot writes the NODE_PATH layout
/// (with zeroed string padding — the engine leaves garbage there, godotengine/godot#44999,
/// which the decoder ignores).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodePath {
    /// The node names (`..` and `.` included as written).
    pub names: Vec<String>,
    /// The subnames (property path) after the first `:`.
    pub subnames: Vec<String>,
    /// Whether the path starts at the root (`/`).
    pub absolute: bool,
}

impl NodePath {
    /// Whether the path is empty (`NodePath("")`).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.subnames.is_empty()
    }
}

impl Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.absolute {
            f.write_char('/')?;
        }
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                f.write_char('/')?;
            }
            f.write_str(name)?;
        }
        for sub in &self.subnames {
            f.write_char(':')?;
            f.write_str(sub)?;
        }
        Ok(())
    }
}

impl FromStr for NodePath {
    type Err = std::convert::Infallible;

    /// Parses GDScript's text form. Empty segments (`a//b`, a trailing `/`) are skipped, as the
    /// engine does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(NodePath::from(s))
    }
}

impl From<&str> for NodePath {
    fn from(s: &str) -> Self {
        let absolute = s.starts_with('/');
        let (path, subpath) = match s.split_once(':') {
            Some((path, subpath)) => (path, Some(subpath)),
            None => (s, None),
        };
        let names = path.split('/').filter(|n| !n.is_empty()).map(str::to_owned).collect();
        let subnames = subpath
            .map(|sub| sub.split(':').filter(|n| !n.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default();
        NodePath { names, subnames, absolute }
    }
}

const NODE_PATH_FIELDS: &[&str] = &["absolute", "names", "subnames"];

impl Serialize for NodePath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return serializer.collect_str(self);
        }
        let mut state = serializer.serialize_struct(magic::NODE_PATH, 3)?;
        state.serialize_field("absolute", &self.absolute)?;
        state.serialize_field("names", &self.names)?;
        state.serialize_field("subnames", &self.subnames)?;
        state.end()
    }
}

impl<'de> Deserialize<'de> for NodePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NodePath;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a NodePath")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NodePath, E> {
                Ok(NodePath::from(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodePath, A::Error> {
                let absolute = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let names = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                let subnames = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(2, &self))?;
                Ok(NodePath { names, subnames, absolute })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodePath, A::Error> {
                let mut path = NodePath::default();
                while let Some(key) = map.next_key_seed(FieldSeed(NODE_PATH_FIELDS))? {
                    match key {
                        Some("absolute") => path.absolute = map.next_value()?,
                        Some("names") => path.names = map.next_value()?,
                        Some("subnames") => path.subnames = map.next_value()?,
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(path)
            }
        }
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(V)
        } else {
            deserializer.deserialize_struct(magic::NODE_PATH, NODE_PATH_FIELDS, V)
        }
    }
}

macro_rules! id_newtype {
    ($(#[$meta:meta])* $name:ident, $magic:path, $what:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u64);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_newtype_struct($magic, &self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<$name, D::Error> {
                        u64::deserialize(d).map($name)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        Ok($name(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Ok($name(v as u64))
                    }
                }
                deserializer.deserialize_newtype_struct($magic, V)
            }
        }
    };
}

id_newtype! {
    /// `RID`: a server resource id. Godot 4 sends the 64-bit id; Godot 3 sends no payload at all
    /// (an RID always arrives as the empty `RID()`, id 0), so in Godot 3 mode the id is dropped.
    Rid, magic::RID, "an RID"
}

id_newtype! {
    /// An object instance id: Godot's `EncodedObjectAsID`, what `var_to_bytes` sends for an
    /// object when full objects are off (the default). Id 0 is the null object.
    ///
    /// Godot's 64-bit ids use all bits (they are `uint64_t`), so the id is a `u64` and keeps
    /// its bits on the wire.
    ObjectId, magic::OBJECT_ID, "an object id"
}

/// `Callable` (Godot 4). The engine never sends the callable itself: the wire has only the
/// header, and every Callable decodes as an empty one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Callable;

impl Serialize for Callable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit_struct(magic::CALLABLE)
    }
}

impl<'de> Deserialize<'de> for Callable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Callable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Callable")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Callable, E> {
                Ok(Callable)
            }
        }
        deserializer.deserialize_unit_struct(magic::CALLABLE, V)
    }
}

godot_struct! {
    /// `Signal` (Godot 4): a signal name and the id of the object that owns it.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Signal as magic::SIGNAL {
        /// The signal's name.
        pub name: StringName,
        /// The emitting object.
        pub object: ObjectId,
    }
}
