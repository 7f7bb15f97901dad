//! The serde access types of the Deserializer: the elements of an Array, the entries of a
//! Dictionary, packed arrays, math payloads, Signals, NodePaths, full objects and enums — and the
//! field path that their errors get on the way out.

use serde_core::de::value::{BoolDeserializer, BorrowedStrDeserializer, SeqDeserializer, U64Deserializer};
use serde_core::de::{
    self, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_core::forward_to_deserialize_any;

use super::Deserializer;
use crate::VariantType;
use crate::error::{Error, Result};
use crate::magic::{self, Layout};

/// A container of `found` elements whose visitor stopped after `wanted` (a `[T; 2]` given 3):
/// "invalid length 3, expected 2 elements".
#[cold]
#[inline(never)]
pub(super) fn short<T>(found: usize, wanted: usize, what: &'static str) -> Result<T> {
    Err(de::Error::invalid_length(found, &format!("{wanted} {what}").as_str()))
}

/// Prepends element `index` to an error's path: the field name when the Array is a struct.
#[cold]
#[inline(never)]
fn element_error(e: Error, index: usize, names: &'static [&'static str]) -> Error {
    match names.get(index) {
        Some(name) => e.in_field(name),
        None => e.in_index(index),
    }
}

/// The elements of an Array.
pub(super) struct Elements<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) remaining: usize,
    pub(super) count: usize,
    /// The field names when the Array is a struct (Array form): its errors name the field.
    pub(super) names: &'static [&'static str],
    /// How many elements a visitor may reserve room for (`Reader::prealloc`); `None` for a
    /// struct in Array form (no size hint).
    pub(super) hint: Option<usize>,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        match seed.deserialize(&mut *self.de) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(element_error(e, self.count - self.remaining - 1, self.names)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        // Never more than the input can hold, nested containers included.
        self.hint.map(|hint| self.remaining.min(hint))
    }
}

/// The entries of a Dictionary.
pub(super) struct Entries<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) remaining: usize,
    /// How many entries a visitor may reserve room for (`Reader::prealloc`).
    pub(super) hint: usize,
    /// Where the current entry's key starts (read again for the path of a value's error).
    pub(super) key_at: usize,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        self.key_at = self.de.r.pos();
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match seed.deserialize(&mut *self.de) {
            Ok(value) => Ok(value),
            Err(e) => Err(self.de.in_key(e, self.key_at)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining.min(self.hint))
    }
}

/// The values of a struct in Dictionary form whose keys are its field names in order (see
/// `Deserializer::keyed`): each element checks its key, then reads the value. Errors get no
/// path: the pass that meets one is done again with the map path.
pub(super) struct KeyedFields<'a, 'b, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) fields: &'static [&'static str],
    /// The index of the next field (how many entries were read).
    pub(super) next: &'b mut usize,
}

impl<'de> SeqAccess<'de> for KeyedFields<'_, '_, 'de> {
    type Error = Error;

    // Always inlined into the (out-of-line) `Deserializer::keyed`: a call per field costs more
    // than its key check.
    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(&field) = self.fields.get(*self.next) else { return Ok(None) };
        let Some(skip) = self.de.key_size(field) else { return Err(self.de.give_up()) };
        *self.next += 1;
        seed.deserialize(KeyedValue { de: &mut *self.de, skip }).map(Some)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - *self.next)
    }
}

/// The value of a [`KeyedFields`] entry, whose key (`skip` bytes, checked) is still unread: a
/// bool, number or flat math value is read with its key in one bounds test and one update of
/// the position; anything else consumes the key and continues as the Deserializer itself.
pub(super) struct KeyedValue<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) skip: usize,
}

impl KeyedValue<'_, '_> {
    /// Consumes the key, for the requests read as the Deserializer reads them.
    #[inline(always)]
    fn past_key(&mut self) {
        self.de.r.skip(self.skip);
    }
}

/// `KeyedValue` methods that consume the key and hand the request to the Deserializer.
macro_rules! after_key {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(mut self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
                self.past_key();
                de::Deserializer::$method(self.de, $($arg,)* visitor)
            }
        )*
    };
}

/// `KeyedValue` methods read with the key (the Deserializer's fast path of the same name).
macro_rules! with_key {
    ($($method:ident => $fast:ident;)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                self.de.$fast(self.skip, visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for KeyedValue<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    with_key! {
        deserialize_bool => bool;
        deserialize_i8 => int;
        deserialize_i16 => int;
        deserialize_i32 => int;
        deserialize_i64 => int;
        deserialize_u8 => int;
        deserialize_u16 => int;
        deserialize_u32 => int;
        deserialize_u64 => int;
        deserialize_f32 => f32;
        deserialize_f64 => f64;
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if let Some(magic::Magic::Math(ty)) = magic::lookup(name) {
            return self.de.math(self.skip, ty, visitor);
        }
        self.past_key();
        de::Deserializer::deserialize_struct(self.de, name, fields, visitor)
    }

    after_key! {
        deserialize_any();
        deserialize_i128();
        deserialize_u128();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }
}

/// The strings of a PackedStringArray, read as they are visited.
pub(super) struct PackedStrings<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) remaining: usize,
    pub(super) count: usize,
    /// How many strings a visitor may reserve room for (`Reader::prealloc`).
    pub(super) hint: usize,
}

impl<'de> SeqAccess<'de> for PackedStrings<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let index = self.count - self.remaining - 1;
        let s = self.de.r.str(self.de.opts.max_len).map_err(|e| element_error(e, index, &[]))?;
        seed.deserialize(BorrowedStrDeserializer::new(s)).map(Some).map_err(|e| element_error(e, index, &[]))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining.min(self.hint))
    }
}

/// The elements of a fixed-size packed array.
pub(super) struct PackedElems<'de> {
    pub(super) chunks: std::slice::ChunksExact<'de, u8>,
    pub(super) count: usize,
    pub(super) ty: VariantType,
    pub(super) wide: bool,
}

impl<'de> SeqAccess<'de> for PackedElems<'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.chunks.next() {
            None => Ok(None),
            Some(bytes) => match seed.deserialize(PackedElem { bytes, ty: self.ty, wide: self.wide }) {
                Ok(value) => Ok(Some(value)),
                Err(e) => Err(element_error(e, self.count - self.chunks.len() - 1, &[])),
            },
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.chunks.len())
    }
}

/// One element of a fixed-size packed array.
pub(super) struct PackedElem<'de> {
    pub(super) bytes: &'de [u8],
    pub(super) ty: VariantType,
    pub(super) wide: bool,
}

impl<'de> de::Deserializer<'de> for PackedElem<'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = self.bytes;
        let word = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
        match self.ty {
            VariantType::PackedInt32Array => visitor.visit_i32(i32::from_le_bytes(word(0))),
            VariantType::PackedInt64Array => visitor.visit_i64(i64::from_le_bytes(b.try_into().expect("8 bytes"))),
            VariantType::PackedFloat32Array => visitor.visit_f32(f32::from_le_bytes(word(0))),
            VariantType::PackedFloat64Array => visitor.visit_f64(f64::from_le_bytes(b.try_into().expect("8 bytes"))),
            ty => {
                let math = match ty {
                    VariantType::PackedVector2Array => VariantType::Vector2,
                    VariantType::PackedVector3Array => VariantType::Vector3,
                    VariantType::PackedVector4Array => VariantType::Vector4,
                    _ => VariantType::Color,
                };
                let layout = Layout::of(math).expect("math type");
                MathDe { layout, bytes: self.bytes, wide: self.wide }.deserialize_any(visitor)
            }
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The payload of a math type, visited as (nested) sequences of components that mirror the Rust
/// struct (Rect2 → [position, size] → [[x, y], [w, h]]).
pub(super) struct MathDe<'de> {
    pub(super) layout: Layout,
    pub(super) bytes: &'de [u8],
    pub(super) wide: bool,
}

impl<'de> de::Deserializer<'de> for MathDe<'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = self.bytes;
        match self.layout {
            Layout::Real if self.wide => visitor.visit_f64(f64::from_le_bytes(b.try_into().expect("8 bytes"))),
            Layout::Real | Layout::F32 => visitor.visit_f32(f32::from_le_bytes(b.try_into().expect("4 bytes"))),
            Layout::Int => visitor.visit_i32(i32::from_le_bytes(b.try_into().expect("4 bytes"))),
            Layout::Seq(parts, _) => visitor.visit_seq(MathParts { parts, bytes: b, wide: self.wide }),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The 32-bit components of a flat math payload (a vector, Quaternion, Color), visited one by one
/// without the layout walk of [`MathDe`].
pub(super) struct Components<'de> {
    pub(super) words: &'de [u8],
    /// i32 components (Vector2i…) rather than f32.
    pub(super) int: bool,
}

impl<'de> SeqAccess<'de> for Components<'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some((word, rest)) = self.words.split_first_chunk::<4>() else { return Ok(None) };
        self.words = rest;
        seed.deserialize(Component { word: *word, int: self.int }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.words.len() / 4)
    }
}

/// One component of [`Components`].
struct Component {
    word: [u8; 4],
    int: bool,
}

impl<'de> de::Deserializer<'de> for Component {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.int {
            visitor.visit_i32(i32::from_le_bytes(self.word))
        } else {
            visitor.visit_f32(f32::from_le_bytes(self.word))
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct MathParts<'de> {
    pub(super) parts: &'static [Layout],
    pub(super) bytes: &'de [u8],
    pub(super) wide: bool,
}

impl<'de> SeqAccess<'de> for MathParts<'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some((&layout, rest)) = self.parts.split_first() else { return Ok(None) };
        self.parts = rest;
        let (bytes, tail) = self.bytes.split_at(layout.size(if self.wide { 8 } else { 4 }));
        self.bytes = tail;
        seed.deserialize(MathDe { layout, bytes, wide: self.wide }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.parts.len())
    }
}

/// A Signal: its name, then its object id.
pub(super) struct SignalParts<'de> {
    pub(super) name: Option<&'de str>,
    pub(super) id: Option<u64>,
}

impl<'de> SeqAccess<'de> for SignalParts<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if let Some(name) = self.name.take() {
            return seed.deserialize(BorrowedStrDeserializer::new(name)).map(Some);
        }
        match self.id.take() {
            Some(id) => seed.deserialize(U64Deserializer::new(id)).map(Some),
            None => Ok(None),
        }
    }
}

/// A NodePath for the NodePath type: absolute flag, names, subnames.
pub(super) struct NodePathParts {
    pub(super) path: Option<crate::NodePath>,
    pub(super) step: u8,
}

impl<'de> SeqAccess<'de> for NodePathParts {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(path) = self.path.as_mut() else { return Ok(None) };
        self.step += 1;
        match self.step {
            1 => seed.deserialize(BoolDeserializer::new(path.absolute)).map(Some),
            2 => seed.deserialize(SeqDeserializer::new(std::mem::take(&mut path.names).into_iter())).map(Some),
            _ => {
                let subnames = std::mem::take(&mut path.subnames);
                self.path = None;
                seed.deserialize(SeqDeserializer::new(subnames.into_iter())).map(Some)
            }
        }
    }
}

/// A full object: `class` then `properties` (a sequence of `[name, value]` pairs), as map entries
/// or sequence elements.
pub(super) struct FullObjectParts<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) class: Option<&'de str>,
    /// How many properties a visitor may reserve room for (`Reader::prealloc`).
    pub(super) hint: usize,
    pub(super) remaining: usize,
    pub(super) step: u8,
}

impl<'de> FullObjectParts<'_, 'de> {
    fn part<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        self.step += 1;
        match self.class.take() {
            Some(class) => seed.deserialize(BorrowedStrDeserializer::new(class)),
            None => {
                let props = Properties { de: &mut *self.de, remaining: &mut self.remaining, hint: self.hint };
                seed.deserialize(props)
            }
        }
    }
}

impl<'de> SeqAccess<'de> for FullObjectParts<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.step >= 2 {
            return Ok(None);
        }
        self.part(seed).map(Some)
    }
}

impl<'de> MapAccess<'de> for FullObjectParts<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let key = match self.step {
            0 => "class",
            1 => "properties",
            _ => return Ok(None),
        };
        seed.deserialize(BorrowedStrDeserializer::new(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.part(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(2 - self.step as usize)
    }
}

/// A full object's properties: a sequence of `[name, value]` pairs.
pub(super) struct Properties<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) remaining: &'a mut usize,
    pub(super) hint: usize,
}

impl<'de> de::Deserializer<'de> for Properties<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for Properties<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if *self.remaining == 0 {
            return Ok(None);
        }
        self.de.check_depth()?;
        *self.remaining -= 1;
        seed.deserialize(Property { de: &mut *self.de }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some((*self.remaining).min(self.hint))
    }
}

/// One `[name, value]` property.
pub(super) struct Property<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
}

impl<'de> de::Deserializer<'de> for Property<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let name = self.de.r.str(self.de.opts.max_len)?;
        visitor.visit_seq(PropertyParts { de: self.de, name: Some(name), value_done: false })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct PropertyParts<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    pub(super) name: Option<&'de str>,
    pub(super) value_done: bool,
}

impl<'de> SeqAccess<'de> for PropertyParts<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if let Some(name) = self.name.take() {
            return seed.deserialize(BorrowedStrDeserializer::new(name)).map(Some);
        }
        if self.value_done {
            return Ok(None);
        }
        self.value_done = true;
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// The one-entry map through which a directly decoded Variant reaches `Variant`'s visitor.
pub(super) struct Handoff {
    pub(super) done: bool,
}

impl<'de> MapAccess<'de> for Handoff {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        seed.deserialize(BorrowedStrDeserializer::new(magic::VARIANT_HANDOFF_KEY)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(().into_deserializer())
    }
}

/// `{ "Variant": value }` of an externally tagged enum.
pub(super) struct Tagged<'a, 'de> {
    pub(super) de: &'a mut Deserializer<'de>,
    /// Where the variant name starts (read again for the path of the body's error).
    pub(super) key_at: usize,
}

impl<'de> EnumAccess<'de> for Tagged<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(mut self, seed: V) -> Result<(V::Value, Self)> {
        self.key_at = self.de.r.pos();
        let variant = seed.deserialize(&mut *self.de)?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Tagged<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de).map_err(|e| self.de.in_key(e, self.key_at))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(&mut *self.de).map_err(|e| self.de.in_key(e, self.key_at))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor).map_err(|e| self.de.in_key(e, self.key_at))
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        let result = de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor);
        result.map_err(|e| self.de.in_key(e, self.key_at))
    }
}
