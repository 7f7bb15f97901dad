//! Typed `Array<T>` and `Dictionary<K, V>`, and the element-type machinery behind Godot 4.x
//! typed-container headers.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use serde_core::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_core::ser::{Serialize, SerializeMap, Serializer};

use crate::{Variant, VariantType, magic};

use super::*;

/// A Rust type that stands for one Godot Variant type, so that [`Array<T>`] and
/// [`Dictionary<K, V>`] know which typed-container header to write (`Array[int]`,
/// `Dictionary[String, Vector2]`).
///
/// Implemented for the primitives, strings and every type of this crate; [`Variant`] has no
/// element type (untyped). For your own structs, say what they become:
///
/// ```
/// use serde_godot::{ElementType, VariantType};
///
/// #[derive(serde::Serialize)]
/// struct Unit { hp: i32 }
///
/// impl ElementType for Unit {
///     // a Dictionary with the default struct form; VariantType::Array with StructForm::Array
///     const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Dictionary);
/// }
/// ```
///
/// When typed headers are written, every element is checked against the declared type (a Godot
/// peer would reject a mismatch), so a wrong declaration is an encoding error, not bad bytes.
pub trait ElementType {
    /// The Variant type of every value of `Self`, or `None` for values of any type.
    const VARIANT_TYPE: Option<VariantType>;
}

macro_rules! element_types {
    ($($ty:ty => $vt:ident),* $(,)?) => {$(
        impl ElementType for $ty {
            const VARIANT_TYPE: Option<VariantType> = Some(VariantType::$vt);
        }
    )*};
}

element_types! {
    bool => Bool,
    i8 => Int, i16 => Int, i32 => Int, i64 => Int, u8 => Int, u16 => Int, u32 => Int, u64 => Int,
    i128 => Int, u128 => Int,
    f32 => Float, f64 => Float,
    String => String, str => String, char => String,
    Vector2 => Vector2, Vector2i => Vector2i, Rect2 => Rect2, Rect2i => Rect2i, Vector3 => Vector3,
    Vector3i => Vector3i, Transform2D => Transform2D, Vector4 => Vector4, Vector4i => Vector4i, Plane => Plane,
    Quaternion => Quaternion, Aabb => Aabb, Basis => Basis, Transform3D => Transform3D,
    Projection => Projection, Color => Color, StringName => StringName, NodePath => NodePath, Rid => Rid,
    ObjectId => Object, Callable => Callable, Signal => Signal,
    PackedByteArray => PackedByteArray, PackedInt32Array => PackedInt32Array,
    PackedInt64Array => PackedInt64Array, PackedFloat32Array => PackedFloat32Array,
    PackedFloat64Array => PackedFloat64Array, PackedStringArray => PackedStringArray,
    PackedVector2Array => PackedVector2Array, PackedVector3Array => PackedVector3Array,
    PackedColorArray => PackedColorArray, PackedVector4Array => PackedVector4Array,
}

impl<T: ElementType + ?Sized> ElementType for &T {
    const VARIANT_TYPE: Option<VariantType> = T::VARIANT_TYPE;
}

impl<T> ElementType for Vec<T> {
    const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Array);
}

impl<T> ElementType for [T] {
    const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Array);
}

impl<T> ElementType for Array<T> {
    const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Array);
}

impl<K, V> ElementType for Dictionary<K, V> {
    const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Dictionary);
}

impl<K, V, S> ElementType for HashMap<K, V, S> {
    const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Dictionary);
}

impl<K, V> ElementType for BTreeMap<K, V> {
    const VARIANT_TYPE: Option<VariantType> = Some(VariantType::Dictionary);
}

impl ElementType for Variant {
    const VARIANT_TYPE: Option<VariantType> = None;
}

/// The element type of a typed Array, or the key or value type of a typed Dictionary, as Godot
/// 4.x writes it in a typed-container header.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ContainerType {
    /// Untyped: elements of any type (what Godot 3 and older Godot 4 always use).
    #[default]
    Untyped,
    /// A builtin type (`Array[int]`).
    Builtin(VariantType),
    /// Objects of a native class (`Array[Node]`). With full objects off, Godot writes the class
    /// `EncodedObjectAsID` here.
    ClassName(String),
    /// Objects of a script class, by `res://` path (written only with full objects on).
    Script(String),
}

impl ContainerType {
    /// The container type for elements of `T`.
    pub const fn of<T: ElementType + ?Sized>() -> ContainerType {
        match T::VARIANT_TYPE {
            Some(ty) => ContainerType::Builtin(ty),
            None => ContainerType::Untyped,
        }
    }

    /// Whether this is [`ContainerType::Untyped`].
    pub fn is_untyped(&self) -> bool {
        matches!(self, ContainerType::Untyped)
    }

    /// The text through which the serde representation carries the type: `""`, a builtin type's
    /// Godot name (`"int"`), `"class:Node"` or `"script:res://unit.gd"`.
    pub(crate) fn descriptor(&self) -> String {
        match self {
            ContainerType::Untyped => String::new(),
            ContainerType::Builtin(ty) => ty.name().to_owned(),
            ContainerType::ClassName(name) => format!("class:{name}"),
            ContainerType::Script(path) => format!("script:{path}"),
        }
    }

    /// Parses [`descriptor`](Self::descriptor)'s text.
    pub(crate) fn from_descriptor(text: &str) -> Option<ContainerType> {
        if text.is_empty() {
            Some(ContainerType::Untyped)
        } else if let Some(name) = text.strip_prefix("class:") {
            Some(ContainerType::ClassName(name.to_owned()))
        } else if let Some(path) = text.strip_prefix("script:") {
            Some(ContainerType::Script(path.to_owned()))
        } else {
            VariantType::ALL.iter().copied().find(|ty| ty.name() == text).map(ContainerType::Builtin)
        }
    }

    fn builtin(&self) -> Option<VariantType> {
        match self {
            ContainerType::Builtin(ty) => Some(*ty),
            _ => None,
        }
    }
}

/// A Godot `Array`: a `Vec<T>` plus its element type.
///
/// `Array<T>` for a `T` with an [`ElementType`] is a typed array (`Array[int]` for
/// `Array<i64>`); with [`Options::typed_containers`](crate::Options::typed_containers) on, it is
/// written with a Godot 4.x typed-container header, otherwise as a plain untyped Array (as are
/// `Vec<T>` and slices, always). `Array<Variant>` (the default parameter) is untyped unless built
/// with [`Array::with_element_type`] or decoded from a typed array inside a [`Variant`].
///
/// Derefs to `Vec<T>`. With other serde formats it is a plain sequence.
#[derive(Clone, PartialEq)]
pub struct Array<T = Variant> {
    items: Vec<T>,
    element_type: ContainerType,
}

impl<T: ElementType> Array<T> {
    /// An empty array.
    pub const fn new() -> Self {
        Array { items: Vec::new(), element_type: ContainerType::of::<T>() }
    }
}

impl<T> Array<T> {
    /// The element type written in typed-container headers.
    pub fn element_type(&self) -> &ContainerType {
        &self.element_type
    }

    /// The elements.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl Array<Variant> {
    /// An array of Variants typed with `element_type` (`Array[Node]`, `Array[int]`…). Every
    /// element must then have that type when typed headers are written.
    pub fn with_element_type(element_type: ContainerType, items: Vec<Variant>) -> Self {
        Array { items, element_type }
    }

    /// Changes the element type.
    pub fn set_element_type(&mut self, element_type: ContainerType) {
        self.element_type = element_type;
    }
}

impl<T: ElementType> Default for Array<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.element_type.is_untyped() {
            write!(f, "{:?} ", self.element_type)?;
        }
        f.debug_list().entries(&self.items).finish()
    }
}

impl<T> Deref for Array<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.items
    }
}

impl<T> DerefMut for Array<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

impl<T: ElementType> From<Vec<T>> for Array<T> {
    fn from(items: Vec<T>) -> Self {
        Array { items, element_type: ContainerType::of::<T>() }
    }
}

impl<T: ElementType> FromIterator<T> for Array<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> IntoIterator for Array<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Array<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<T: Serialize> Serialize for Array<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.element_type {
            ContainerType::Untyped => self.items.serialize(serializer),
            ContainerType::Builtin(ty) => serializer.serialize_newtype_struct(magic::array_of(*ty), &self.items),
            other => serializer.serialize_newtype_struct(magic::TYPED_ARRAY, &(other.descriptor(), &self.items)),
        }
    }
}

impl<'de, T: Deserialize<'de> + ElementType> Deserialize<'de> for Array<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(Array::from)
    }
}

/// A Godot `Dictionary`: key / value pairs in insertion order (Godot dictionaries are ordered),
/// plus the key and value types of a typed Dictionary.
///
/// `Dictionary<K, V>` with [`ElementType`]s is a typed dictionary (`Dictionary[String, int]`);
/// it is written with a typed-container header when
/// [`Options::typed_containers`](crate::Options::typed_containers) is on. The default
/// parameters, `Dictionary<Variant, Variant>`, are an untyped dictionary with keys of any type.
///
/// Lookups compare keys with `==` and scan the entries (like a small `Vec` map), which is what
/// game messages need; use a `HashMap` or `BTreeMap` field for large tables (they serialize to
/// Dictionaries too). [`insert`](Self::insert) replaces the value of an existing key in place.
/// Entries decoded with serde are kept as sent; if a (malformed) input repeats a key, lookups see
/// the last value, as in Godot.
#[derive(Clone, PartialEq)]
pub struct Dictionary<K = Variant, V = Variant> {
    entries: Vec<(K, V)>,
    key_type: ContainerType,
    value_type: ContainerType,
}

impl<K: ElementType, V: ElementType> Dictionary<K, V> {
    /// An empty dictionary.
    pub const fn new() -> Self {
        Dictionary { entries: Vec::new(), key_type: ContainerType::of::<K>(), value_type: ContainerType::of::<V>() }
    }

    /// An empty dictionary with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        Dictionary {
            entries: Vec::with_capacity(capacity),
            key_type: ContainerType::of::<K>(),
            value_type: ContainerType::of::<V>(),
        }
    }
}

impl Dictionary<Variant, Variant> {
    /// A Variant dictionary typed with `key_type` and `value_type`.
    pub fn with_types(key_type: ContainerType, value_type: ContainerType) -> Self {
        Dictionary { entries: Vec::new(), key_type, value_type }
    }

    /// Changes the key and value types.
    pub fn set_types(&mut self, key_type: ContainerType, value_type: ContainerType) {
        self.key_type = key_type;
        self.value_type = value_type;
    }

    pub(crate) fn entries_mut(&mut self) -> &mut Vec<(Variant, Variant)> {
        &mut self.entries
    }
}

impl<K, V> Dictionary<K, V> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The key type written in typed-container headers.
    pub fn key_type(&self) -> &ContainerType {
        &self.key_type
    }

    /// The value type written in typed-container headers.
    pub fn value_type(&self) -> &ContainerType {
        &self.value_type
    }

    /// The entries in order.
    pub fn entries(&self) -> &[(K, V)] {
        &self.entries
    }

    /// The entries in order.
    pub fn into_entries(self) -> Vec<(K, V)> {
        self.entries
    }

    /// Iterates over the entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&K, &V)> + DoubleEndedIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Iterates over the keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &K> + DoubleEndedIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Iterates over the values in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &V> + DoubleEndedIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The value for `key` (the last one if the key was repeated on the wire).
    pub fn get<Q: ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: PartialEq<Q>,
    {
        self.entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value for `key`, mutably.
    pub fn get_mut<Q: ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: PartialEq<Q>,
    {
        self.entries.iter_mut().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key<Q: ?Sized>(&self, key: &Q) -> bool
    where
        K: PartialEq<Q>,
    {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// Sets the value for `key`: replaces the value in place if the key is present (returning the
    /// old value), else appends the entry.
    pub fn insert(&mut self, key: K, value: V) -> Option<V>
    where
        K: PartialEq,
    {
        match self.entries.iter_mut().rev().find(|(k, _)| *k == key) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key` and returns its value (keeping the order of the other entries).
    pub fn remove<Q: ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: PartialEq<Q>,
    {
        let mut found = None;
        while let Some(i) = self.entries.iter().rposition(|(k, _)| k == key) {
            let (_, v) = self.entries.remove(i);
            found.get_or_insert(v);
        }
        found
    }

    /// Removes all entries.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K: ElementType, V: ElementType> Default for Dictionary<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for Dictionary<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.key_type.is_untyped() || !self.value_type.is_untyped() {
            write!(f, "[{:?}, {:?}] ", self.key_type, self.value_type)?;
        }
        f.debug_map().entries(self.entries.iter().map(|(k, v)| (k, v))).finish()
    }
}

impl<K: ElementType + PartialEq, V: ElementType> FromIterator<(K, V)> for Dictionary<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut dict = Dictionary::new();
        for (k, v) in iter {
            dict.insert(k, v);
        }
        dict
    }
}

impl<K: ElementType + PartialEq, V: ElementType, const N: usize> From<[(K, V); N]> for Dictionary<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K, V> IntoIterator for Dictionary<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// The entries as a serde map.
struct Entries<'a, K, V>(&'a [(K, V)]);

impl<K: Serialize, V: Serialize> Serialize for Entries<'_, K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `Entries` behind a reserved newtype name that carries the value type.
struct ValueTyped<'a, K, V>(VariantType, Entries<'a, K, V>);

impl<K: Serialize, V: Serialize> Serialize for ValueTyped<'_, K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(magic::dict_value(self.0), &self.1)
    }
}

impl<K: Serialize, V: Serialize> Serialize for Dictionary<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entries = Entries(&self.entries);
        let builtin_or_untyped = |ct: &ContainerType| ct.is_untyped() || ct.builtin().is_some();
        if !builtin_or_untyped(&self.key_type) || !builtin_or_untyped(&self.value_type) {
            let repr = (self.key_type.descriptor(), self.value_type.descriptor(), entries);
            return serializer.serialize_newtype_struct(magic::TYPED_DICTIONARY, &repr);
        }
        match (self.key_type.builtin(), self.value_type.builtin()) {
            (None, None) => entries.serialize(serializer),
            (Some(k), None) => serializer.serialize_newtype_struct(magic::dict_key(k), &entries),
            (None, Some(v)) => serializer.serialize_newtype_struct(magic::dict_value(v), &entries),
            (Some(k), Some(v)) => serializer.serialize_newtype_struct(magic::dict_key(k), &ValueTyped(v, entries)),
        }
    }
}

impl<'de, K, V> Deserialize<'de> for Dictionary<K, V>
where
    K: Deserialize<'de> + ElementType,
    V: Deserialize<'de> + ElementType,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DictVisitor<K, V>(PhantomData<(K, V)>);

        impl<'de, K, V> Visitor<'de> for DictVisitor<K, V>
        where
            K: Deserialize<'de> + ElementType,
            V: Deserialize<'de> + ElementType,
        {
            type Value = Dictionary<K, V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Dictionary")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let cap = map.size_hint().unwrap_or(0).min(4096);
                let mut dict = Dictionary::with_capacity(cap);
                while let Some((k, v)) = map.next_entry()? {
                    dict.entries.push((k, v));
                }
                Ok(dict)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // A sequence of pairs, as some formats write maps with non-string keys.
                let mut dict = Dictionary::new();
                while let Some((k, v)) = seq.next_element()? {
                    dict.entries.push((k, v));
                }
                Ok(dict)
            }
        }

        deserializer.deserialize_map(DictVisitor(PhantomData))
    }
}
