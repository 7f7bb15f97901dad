//! Leaf structs read as maps of components or sequences, and their scalars.

use super::container::Inline;
use super::value::visit_scalar;
use super::{Deserializer, Input};
use crate::codec::{Leaf, Prim, Scalar};
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

impl<'de, I: Input<'de>> Deserializer<'de, '_, I> {
    /// Hands a leaf struct's components to `v` as a sequence (wire order; matrix rows as
    /// sequences). A leaf of single scalars is read as the visitor asks for its components,
    /// with no copy of the whole leaf; the result is [`read_leaf`](Self::read_leaf) then
    /// [`LeafSeq`]'s: a component that cannot be read is the error whatever the visitor made of
    /// the ones before it, and what the visitor leaves is read after it.
    #[inline(always)]
    pub(super) fn visit_leaf_seq<V: Visitor<'de>>(&mut self, leaf: Leaf, v: V) -> Result<V::Value> {
        if leaf.group() != 1 {
            let wire = self.read_leaf(leaf)?;
            return v.visit_seq(LeafSeq { leaf, wire, i: 0 });
        }
        let prim = leaf.component();
        let mut seq = LeafReader { d: &mut *self, prim, left: leaf.len(), failed: false };
        let value = v.visit_seq(Inline(&mut seq));
        let (left, failed) = (seq.left, seq.failed);
        if failed {
            // The cursor has not moved since the failed read: the same error again.
            return Err(self.eof());
        }
        for _ in 0..left {
            self.scalar(prim)?;
        }
        value
    }
}

/// A leaf struct's scalar components, read from the input as the visitor asks for them (see
/// [`Deserializer::visit_leaf_seq`]).
struct LeafReader<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    prim: Prim,
    /// Components not read yet.
    left: usize,
    /// A component could not be read (nothing more is read; the caller returns that error).
    failed: bool,
}

impl<'de, I: Input<'de>> de::SeqAccess<'de> for LeafReader<'_, 'de, '_, I> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        match self.d.scalar(self.prim) {
            Ok(s) => seed.deserialize(ScalarDe(s)).map(Some),
            Err(e) => {
                self.left = 0;
                self.failed = true;
                Err(e)
            }
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
