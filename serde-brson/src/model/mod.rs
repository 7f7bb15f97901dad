//! The typed data-tree model: [`DataTree`] → [`Slot`] → [`ComponentEntry`], with [`Field`]
//! wrappers and the value types of [`values`].
//!
//! The model is opt-in and lossless: every struct keeps the keys it does not know in an `extra`
//! document, component bodies stay the BSON bytes they were stored as ([`bson::RawDocumentBuf`]:
//! there are thousands of component types; read members lazily with `data.get_str(…)` and
//! friends, or decode one with [`ComponentEntry::data_as`]; a component costs its BSON size in
//! memory, not the ~10× of a [`bson::Document`]), and numbers are read leniently (int32, int64 and
//! double are interchangeable, as in the engine). Writing follows the engine's key order — the
//! modern one, or the legacy NeosVR one for trees read from legacy files ([`Layout`]) — and its
//! number widths (`int` → int32, `long` → int64, floats → double; `TypeVersions` and `FeatureFlags`
//! as the file stored them, [`StoredInt`]), so decode → encode gives a
//! tree the engine reads identically, and for engine-written files the same bytes.
//!
//! ```
//! use serde_brson::model::DataTree;
//!
//! let bytes = std::fs::read("tests/data/synthetic-modern.brson")?;
//! let tree: DataTree = serde_brson::from_slice(&bytes)?;
//! assert_eq!(tree.object.name(), Some("Sample <b>root</b>"));
//! let first = &tree.object.components().unwrap()[0];
//! assert_eq!(tree.type_name(&first.type_ref), Some("[FrooxEngine]FrooxEngine.QuadMesh"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod values;

use std::fmt;
use std::marker::PhantomData;

use bson::{Bson, Document, RawBson, RawDocumentBuf};
use indexmap::IndexMap;
use serde_core::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_core::ser::{SerializeMap, Serializer};
use serde_core::{Deserialize, Serialize};

pub use self::values::{
    Color, ColorProfile, ColorX, Double3, DoubleQ, DtString, EnumName, Float2, Float3, Float4, Float4x4, FloatQ, Guid,
    Int3, Num, StoredInt, Url, Width,
};
use crate::budget;
use crate::lenient::Lenient;

/// The key order a tree is written in.
///
/// Decoding recognises the legacy order from where keys sit (a slot's `Components` before its
/// `ParentReference` or `Persistent-ID` after `Active`; root keys after `Object`); where the two
/// orders give the same bytes (members missing), it reports `Modern`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Resonite: root `VersionNumber, FeatureFlags, Types, TypeVersions, Object, Assets`; slot
    /// `ID, Persistent-ID, Name, Tag, Active, Position, Rotation, Scale, OrderOffset,
    /// ParentReference, Components, Children`.
    #[default]
    Modern,
    /// NeosVR (2020–22): root `Object, Assets, TypeVersions`; slot `ID, Components, Name, Tag,
    /// Active, Persistent-ID, Position, Rotation, Scale, OrderOffset, ParentReference, Children`.
    Legacy,
}

/// A synced member: `{"ID": guid, "Data": value}` (plus any other keys, kept in `extra`).
///
/// References are `Field<Option<Guid>>` ([`RefField`]); lists are `Field<Vec<Field<T>>>`
/// ([`ListField`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Field<T> {
    /// The member's ID.
    pub id: Guid,
    /// The value.
    pub data: T,
    /// Other keys, in order.
    pub extra: Document,
}

/// A reference member: the target's GUID or null.
pub type RefField = Field<Option<Guid>>;

/// A list member: each element is its own `{ID, Data}` wrapper.
pub type ListField<T> = Field<Vec<Field<T>>>;

impl<T> Field<T> {
    /// A field with no extra keys.
    pub fn new(id: impl Into<Guid>, data: T) -> Self {
        Field { id: id.into(), data, extra: Document::new() }
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2 + self.extra.len()))?;
        map.serialize_entry("ID", &self.id)?;
        map.serialize_entry("Data", &self.data)?;
        serialize_extra(&mut map, &self.extra)?;
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        FieldSeed(PhantomWrap::<T>(PhantomData)).deserialize(d)
    }
}

/// Deserializes a [`Field`] whose `Data` is read with the seed `S`.
struct FieldSeed<S>(S);

impl<'de, S: DeserializeSeed<'de> + Clone> DeserializeSeed<'de> for FieldSeed<S> {
    type Value = Field<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, S: DeserializeSeed<'de> + Clone> Visitor<'de> for FieldSeed<S> {
    type Value = Field<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field {ID, Data}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        const KEYS: &[&str] = &["ID", "Data"];
        let (mut id, mut data, mut extra) = (None, None, Document::new());
        while let Some(key) = map.next_key_seed(KeySeed(KEYS))? {
            match key {
                Key::Known(0) => id = Some(map.next_value()?),
                Key::Known(_) => data = Some(map.next_value_seed(self.0.clone())?),
                Key::Other(k) => insert_extra(&mut extra, k, &mut map)?,
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("ID"))?;
        let data = match data {
            Some(data) => data,
            // A missing Data is null for nullable types (Option), an error otherwise.
            None => self
                .0
                .deserialize(de::value::UnitDeserializer::<A::Error>::new())
                .map_err(|_: A::Error| de::Error::missing_field("Data"))?,
        };
        Ok(Field { id, data, extra })
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for PhantomWrap<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

/// `PhantomData` as a seed that is `Clone` for every `T` (`derive(Clone)` would require `T: Clone`).
struct PhantomWrap<T>(PhantomData<T>);

impl<T> Clone for PhantomWrap<T> {
    fn clone(&self) -> Self {
        PhantomWrap(PhantomData)
    }
}

/// A component's type: an index into the root's `Types` (modern files) or a .NET type name
/// (legacy files).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeRef {
    /// An index into [`DataTree::types`].
    Index(i32),
    /// A legacy type name, e.g. `"FrooxEngine.BoxMesh"`.
    Name(String),
}

impl TypeRef {
    /// The type name: the legacy name, or the `Types` entry the index points at.
    pub fn resolve<'a>(&'a self, types: Option<&'a [String]>) -> Option<&'a str> {
        match self {
            TypeRef::Name(name) => Some(name),
            TypeRef::Index(i) => types?.get(usize::try_from(*i).ok()?).map(String::as_str),
        }
    }
}

impl Serialize for TypeRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TypeRef::Index(i) => s.serialize_i32(*i),
            TypeRef::Name(n) => s.serialize_str(n),
        }
    }
}

impl<'de> Deserialize<'de> for TypeRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TypeRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a type index or a type name")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<TypeRef, E> {
                crate::lenient::LenientVisitor::<i32>::new().visit_i64(v).map(TypeRef::Index)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<TypeRef, E> {
                crate::lenient::LenientVisitor::<i32>::new().visit_u64(v).map(TypeRef::Index)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<TypeRef, E> {
                crate::lenient::LenientVisitor::<i32>::new().visit_f64(v).map(TypeRef::Index)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TypeRef, E> {
                Ok(TypeRef::Name(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A component (or an asset in the root's `Assets`): `{"Type": …, "Data": {…}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentEntry {
    /// The component's type.
    pub type_ref: TypeRef,
    /// The component's members, untyped and as stored: `ID`, `persistent-ID`, `UpdateOrder`,
    /// `Enabled` and the type's own members (`RawDocumentBuf::try_from(&doc)` or
    /// `bson::rawdoc!` builds one; `Document::try_from(&data)` gives a [`Document`]).
    pub data: RawDocumentBuf,
    /// Other keys, in order.
    pub extra: Document,
}

impl ComponentEntry {
    /// The component's ID (`Data.ID`).
    pub fn id(&self) -> Option<&str> {
        self.data.get_str("ID").ok()
    }

    /// Decodes the component's members into your own type.
    pub fn data_as<T: serde_core::de::DeserializeOwned>(&self) -> crate::Result<T> {
        bson::deserialize_from_slice(self.data.as_bytes()).map_err(crate::Error::from)
    }
}

impl Serialize for ComponentEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2 + self.extra.len()))?;
        map.serialize_entry("Type", &self.type_ref)?;
        map.serialize_entry("Data", &self.data)?;
        serialize_extra(&mut map, &self.extra)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for ComponentEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ComponentEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a component {Type, Data}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ComponentEntry, A::Error> {
                const KEYS: &[&str] = &["Type", "Data"];
                let (mut type_ref, mut data, mut extra) = (None, None, Document::new());
                while let Some(key) = map.next_key_seed(KeySeed(KEYS))? {
                    match key {
                        Key::Known(0) => type_ref = Some(map.next_value()?),
                        Key::Known(_) => data = Some(map.next_value::<ModelRawDocument>()?.0),
                        Key::Other(k) => insert_extra(&mut extra, k, &mut map)?,
                    }
                }
                Ok(ComponentEntry {
                    type_ref: type_ref.ok_or_else(|| de::Error::missing_field("Type"))?,
                    data: data.ok_or_else(|| de::Error::missing_field("Data"))?,
                    extra,
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// A slot: the node of the scene tree.
///
/// Members other than `ID` are optional because the engine loads slots that lack them (with
/// defaults); engine-written files have them all. The accessors ([`name`](Slot::name),
/// [`components`](Slot::components), …) read through the wrappers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slot {
    /// `ID`.
    pub id: Guid,
    /// `Persistent-ID`.
    pub persistent_id: Option<Guid>,
    /// `Name`.
    pub name: Option<Field<Option<DtString>>>,
    /// `Tag`.
    pub tag: Option<Field<Option<DtString>>>,
    /// `Active`.
    pub active: Option<Field<bool>>,
    /// `Position` (a `float3`, kept as the doubles stored: the engine widens its floats, and
    /// other tools write doubles that an `f32` would round).
    pub position: Option<Field<Double3>>,
    /// `Rotation` (a `floatQ`, kept as stored doubles).
    pub rotation: Option<Field<DoubleQ>>,
    /// `Scale` (a `float3`, kept as stored doubles).
    pub scale: Option<Field<Double3>>,
    /// `OrderOffset` (`long`, written as int64).
    pub order_offset: Option<Field<i64>>,
    /// `ParentReference`: the parent's ID (a bare GUID, not a field), or null.
    pub parent_reference: Option<Guid>,
    /// `Components`.
    pub components: Option<Field<Vec<ComponentEntry>>>,
    /// `Children` (a bare array, not a field).
    pub children: Vec<Slot>,
    /// Other keys, in order.
    pub extra: Document,
    /// The key order to write.
    pub layout: Layout,
}

impl Slot {
    /// The name, if set.
    pub fn name(&self) -> Option<&str> {
        self.name.as_ref()?.data.as_ref().map(DtString::as_str)
    }

    /// The tag, if set.
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_ref()?.data.as_ref().map(DtString::as_str)
    }

    /// The components (empty if the member is missing).
    pub fn components(&self) -> Option<&[ComponentEntry]> {
        self.components.as_ref().map(|f| f.data.as_slice())
    }

    /// This slot and all its descendants, depth first (iterative).
    pub fn descendants(&self) -> impl Iterator<Item = &Slot> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let slot = stack.pop()?;
            stack.extend(slot.children.iter().rev());
            Some(slot)
        })
    }
}

const SLOT_KEYS: &[&str] = &[
    "ID",
    "Persistent-ID",
    "Name",
    "Tag",
    "Active",
    "Position",
    "Rotation",
    "Scale",
    "OrderOffset",
    "ParentReference",
    "Components",
    "Children",
];

impl Serialize for Slot {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("ID", &self.id)?;
        let legacy = self.layout == Layout::Legacy;
        if legacy {
            opt_entry(&mut map, "Components", &self.components)?;
        } else {
            opt_entry(&mut map, "Persistent-ID", &self.persistent_id)?;
        }
        opt_entry(&mut map, "Name", &self.name)?;
        opt_entry(&mut map, "Tag", &self.tag)?;
        opt_entry(&mut map, "Active", &self.active)?;
        if legacy {
            opt_entry(&mut map, "Persistent-ID", &self.persistent_id)?;
        }
        opt_entry(&mut map, "Position", &self.position)?;
        opt_entry(&mut map, "Rotation", &self.rotation)?;
        opt_entry(&mut map, "Scale", &self.scale)?;
        opt_entry(&mut map, "OrderOffset", &self.order_offset)?;
        map.serialize_entry("ParentReference", &self.parent_reference)?;
        if !legacy {
            opt_entry(&mut map, "Components", &self.components)?;
        }
        map.serialize_entry("Children", &self.children)?;
        serialize_extra(&mut map, &self.extra)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Slot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Slot;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a slot")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot, A::Error> {
                let mut slot = Slot::default();
                let mut id = None;
                let mut parent_seen = false;
                while let Some(key) = map.next_key_seed(KeySeed(SLOT_KEYS))? {
                    match key {
                        Key::Known(0) => id = Some(map.next_value()?),
                        Key::Known(1) => {
                            if slot.active.is_some() {
                                slot.layout = Layout::Legacy;
                            }
                            slot.persistent_id = map.next_value()?;
                        }
                        Key::Known(2) => slot.name = Some(map.next_value()?),
                        Key::Known(3) => slot.tag = Some(map.next_value()?),
                        Key::Known(4) => slot.active = Some(map.next_value()?),
                        Key::Known(5) => slot.position = Some(map.next_value()?),
                        Key::Known(6) => slot.rotation = Some(map.next_value()?),
                        Key::Known(7) => slot.scale = Some(map.next_value()?),
                        Key::Known(8) => {
                            slot.order_offset = Some(map.next_value_seed(FieldSeed(Lenient::<i64>(PhantomData)))?)
                        }
                        Key::Known(9) => {
                            parent_seen = true;
                            slot.parent_reference = map.next_value()?;
                        }
                        Key::Known(10) => {
                            if !parent_seen {
                                slot.layout = Layout::Legacy;
                            }
                            slot.components =
                                Some(map.next_value_seed(FieldSeed(CountedVec(PhantomWrap::<ComponentEntry>(
                                    PhantomData,
                                ))))?);
                        }
                        Key::Known(_) => {
                            slot.children = map.next_value_seed(CountedVec(PhantomWrap::<Slot>(PhantomData)))?
                        }
                        Key::Other(k) => insert_extra(&mut slot.extra, k, &mut map)?,
                    }
                }
                slot.id = id.ok_or_else(|| de::Error::missing_field("ID"))?;
                Ok(slot)
            }
        }
        d.deserialize_map(V)
    }
}

/// The root of a data tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataTree {
    /// `VersionNumber`, e.g. `"2024.10.29.1229"` (modern files).
    pub version_number: Option<String>,
    /// `FeatureFlags`: name → version (modern files; the meanings are not public), each with the
    /// width it was stored in.
    pub feature_flags: Option<IndexMap<String, StoredInt>>,
    /// `Types`: the type table component `Type` indices point into (modern files).
    pub types: Option<Vec<String>>,
    /// `TypeVersions`: type name → version, for types with a version above 0, each with the width
    /// it was stored in (int32 in Resonite files, int64 in legacy NeosVR files).
    pub type_versions: Option<IndexMap<String, StoredInt>>,
    /// `Object`: the root slot.
    pub object: Slot,
    /// `Assets`: asset providers the object references but that live outside it.
    pub assets: Option<Vec<ComponentEntry>>,
    /// Other keys, in order.
    pub extra: Document,
    /// The key order to write.
    pub layout: Layout,
}

impl DataTree {
    /// The type name of a component's type reference, resolved against [`types`](DataTree::types).
    pub fn type_name<'a>(&'a self, type_ref: &'a TypeRef) -> Option<&'a str> {
        type_ref.resolve(self.types.as_deref())
    }
}

const ROOT_KEYS: &[&str] = &["VersionNumber", "FeatureFlags", "Types", "TypeVersions", "Object", "Assets"];

impl Serialize for DataTree {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        if self.layout == Layout::Legacy {
            map.serialize_entry("Object", &self.object)?;
            opt_entry(&mut map, "Assets", &self.assets)?;
            opt_entry(&mut map, "TypeVersions", &self.type_versions)?;
            opt_entry(&mut map, "VersionNumber", &self.version_number)?;
            opt_entry(&mut map, "FeatureFlags", &self.feature_flags)?;
            opt_entry(&mut map, "Types", &self.types)?;
        } else {
            opt_entry(&mut map, "VersionNumber", &self.version_number)?;
            opt_entry(&mut map, "FeatureFlags", &self.feature_flags)?;
            opt_entry(&mut map, "Types", &self.types)?;
            opt_entry(&mut map, "TypeVersions", &self.type_versions)?;
            map.serialize_entry("Object", &self.object)?;
            opt_entry(&mut map, "Assets", &self.assets)?;
        }
        serialize_extra(&mut map, &self.extra)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for DataTree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DataTree;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a data tree root")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DataTree, A::Error> {
                let mut tree = DataTree::default();
                let mut object = None;
                while let Some(key) = map.next_key_seed(KeySeed(ROOT_KEYS))? {
                    if object.is_some() && matches!(key, Key::Known(0..=3)) {
                        tree.layout = Layout::Legacy;
                    }
                    match key {
                        Key::Known(0) => tree.version_number = map.next_value()?,
                        Key::Known(1) => tree.feature_flags = Some(map.next_value::<LenientMap>()?.0),
                        Key::Known(2) => {
                            tree.types = map
                                .next_value_seed(OptionSeed(CountedVec(PhantomWrap::<ModelString>(PhantomData))))?
                                .map(|types| types.into_iter().map(|s| s.0).collect())
                        }
                        Key::Known(3) => tree.type_versions = Some(map.next_value::<LenientMap>()?.0),
                        Key::Known(4) => object = Some(map.next_value()?),
                        Key::Known(_) => {
                            tree.assets =
                                map.next_value_seed(OptionSeed(CountedVec(PhantomWrap::<ComponentEntry>(PhantomData))))?
                        }
                        Key::Other(k) => insert_extra(&mut tree.extra, k, &mut map)?,
                    }
                }
                tree.object = object.ok_or_else(|| de::Error::missing_field("Object"))?;
                Ok(tree)
            }
        }
        d.deserialize_map(V)
    }
}

/// A name → int map read with lenient numbers, keeping each number's width.
struct LenientMap(IndexMap<String, StoredInt>);

impl<'de> Deserialize<'de> for LenientMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a document of numbers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientMap, A::Error> {
                let mut out = IndexMap::new();
                while let Some(k) = map.next_key::<String>()? {
                    let bucket = std::mem::size_of::<(usize, String, StoredInt)>();
                    let grow = budget::map_bytes(out.len() + 1, bucket) - budget::map_bytes(out.len(), bucket);
                    budget::model_charge(grow + k.len())?;
                    out.insert(k, map.next_value::<StoredInt>()?);
                }
                Ok(LenientMap(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn opt_entry<M: SerializeMap, T: Serialize>(map: &mut M, key: &str, value: &Option<T>) -> Result<(), M::Error> {
    match value {
        Some(v) => map.serialize_entry(key, v),
        None => Ok(()),
    }
}

fn serialize_extra<M: SerializeMap>(map: &mut M, extra: &Document) -> Result<(), M::Error> {
    for (k, v) in extra {
        map.serialize_entry(k, v)?;
    }
    Ok(())
}

/// A map key: the index of a known key, or an unknown key's text.
enum Key {
    Known(usize),
    Other(String),
}

/// Matches keys against a list without allocating for known ones.
#[derive(Clone, Copy)]
struct KeySeed(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(match self.0.iter().position(|k| *k == v) {
            Some(i) => Key::Known(i),
            None => Key::Other(v.to_owned()),
        })
    }
}

/// Reads the value of an unknown key and inserts it into `extra`, charging the model budget.
fn insert_extra<'de, A: MapAccess<'de>>(extra: &mut Document, key: String, map: &mut A) -> Result<(), A::Error> {
    budget::model_charge(budget::doc_entry(extra.len(), key.len()))?;
    let value = map.next_value::<ExactBson>()?.0;
    extra.insert(key, value);
    Ok(())
}

/// A BSON value read exactly as stored: through the raw bytes when the deserializer is this
/// crate's (or `bson`'s raw one), so a document whose keys look like Extended JSON
/// (`{"$numberLong": "5"}`) stays a document with those keys, where `Bson`'s own `Deserialize`
/// would read it as an int64 and the tree would not re-encode to the same bytes. Converted
/// iteratively and charged to the model budget.
struct ExactBson(Bson);

impl<'de> Deserialize<'de> for ExactBson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawBson::deserialize(d)?;
        budget::model_bson(raw.as_raw_bson_ref()).map(ExactBson)
    }
}

/// A document kept as its BSON bytes (a copy of the input's), charged to the model budget.
struct ModelRawDocument(RawDocumentBuf);

impl<'de> Deserialize<'de> for ModelRawDocument {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match RawBson::deserialize(d)? {
            RawBson::Document(doc) => {
                budget::model_charge(doc.as_bytes().len())?;
                Ok(ModelRawDocument(doc))
            }
            other => Err(de::Error::invalid_type(unexpected(&other), &"a document")),
        }
    }
}

fn unexpected(value: &RawBson) -> de::Unexpected<'_> {
    match value {
        RawBson::String(s) => de::Unexpected::Str(s),
        RawBson::Boolean(b) => de::Unexpected::Bool(*b),
        RawBson::Int32(i) => de::Unexpected::Signed(i64::from(*i)),
        RawBson::Int64(i) => de::Unexpected::Signed(*i),
        RawBson::Double(f) => de::Unexpected::Float(*f),
        RawBson::Null => de::Unexpected::Unit,
        RawBson::Array(_) => de::Unexpected::Seq,
        _ => de::Unexpected::Other("a BSON value"),
    }
}

/// A string charged to the model budget.
struct ModelString(String);

impl<'de> Deserialize<'de> for ModelString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        budget::model_charge(s.capacity())?;
        Ok(ModelString(s))
    }
}

/// A sequence read into a vector whose buffer is charged to the model budget before it grows
/// (serde's `Vec` impl grows without telling: a flood of 16-byte child slots would build
/// 1.3 KB [`Slot`]s unchecked).
#[derive(Clone)]
struct CountedVec<S>(S);

impl<'de, S: DeserializeSeed<'de> + Clone> DeserializeSeed<'de> for CountedVec<S> {
    type Value = Vec<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, S: DeserializeSeed<'de> + Clone> Visitor<'de> for CountedVec<S> {
    type Value = Vec<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let size = std::mem::size_of::<S::Value>();
        let mut out = Vec::new();
        while let Some(value) = seq.next_element_seed(self.0.clone())? {
            if out.len() == out.capacity() {
                let old = out.capacity();
                let new = (old * 2).max(4);
                budget::model_charge(new.saturating_mul(size))?;
                out.reserve_exact(new - old);
                budget::model_refund(old * size);
            }
            out.push(value);
        }
        Ok(out)
    }
}

/// `Option<T>` through a seed: null is `None`.
struct OptionSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for OptionSeed<S> {
    type Value = Option<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for OptionSeed<S> {
    type Value = Option<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or a value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(d).map(Some)
    }
}
