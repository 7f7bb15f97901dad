//! Leaf structs read as maps of components or sequences, and their scalars.

use super::value::visit_scalar;
use crate::codec::{Leaf, Scalar};
use crate::error::{Error, Result};
use serde_core::de::{self, DeserializeSeed, Visitor};
use serde_core::forward_to_deserialize_any;

/// A leaf struct's components as a map.
pub(super) struct LeafAccess {
    pub(super) leaf: Leaf,
    pub(super) wire: [Scalar; 9],
    pub(super) fields: &'static [&'static str],
    pub(super) i: usize,
}

impl<'de> de::MapAccess<'de> for LeafAccess {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.fields.get(self.i) {
            Some(f) => seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(f)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let field = self.fields.get(self.i).copied().unwrap_or_default();
        self.i += 1;
        let start = self.leaf.field_start(field).unwrap_or(0);
        if self.leaf.group() == 1 {
            seed.deserialize(ScalarDe(self.wire[start]))
        } else {
            seed.deserialize(RowDe(&self.wire[start..start + self.leaf.group()]))
        }
    }
}

/// A leaf struct's components as a sequence (wire order; matrix rows as sequences).
pub(super) struct LeafSeq {
    pub(super) leaf: Leaf,
    pub(super) wire: [Scalar; 9],
    pub(super) i: usize,
}

impl<'de> de::SeqAccess<'de> for LeafSeq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let g = self.leaf.group();
        if self.i >= self.leaf.len() {
            return Ok(None);
        }
        let start = self.i;
        self.i += g;
        if g == 1 {
            seed.deserialize(ScalarDe(self.wire[start])).map(Some)
        } else {
            seed.deserialize(RowDe(&self.wire[start..start + g])).map(Some)
        }
    }
}

pub(super) struct ScalarDe(Scalar);

impl<'de> de::Deserializer<'de> for ScalarDe {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        visit_scalar(self.0, v)
    }
    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct RowDe<'a>(&'a [Scalar]);

impl<'de> de::Deserializer<'de> for RowDe<'_> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_seq(RowSeq(self.0.iter()))
    }
    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct RowSeq<'a>(std::slice::Iter<'a, Scalar>);

impl<'de> de::SeqAccess<'de> for RowSeq<'_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.0.next() {
            Some(s) => seed.deserialize(ScalarDe(*s)).map(Some),
            None => Ok(None),
        }
    }
}
