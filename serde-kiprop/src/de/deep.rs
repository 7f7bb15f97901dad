//! Deep mode's plain objects: an object of its slot's declared class whose properties are the
//! class's, each once, in id order, each with its declared type's tag (what deep writers put for
//! a class without DELTA_ENCODE properties), read into a serde struct whose fields are those
//! properties by one out-of-line call with the struct's visitor inlined into it: the deep
//! counterpart of shallow mode's [`plain_object`](Deserializer::plain_object).

use super::container::Inline;
use super::object::{ObjectAccess, property_value};
use super::value::DSlot;
use super::{Deserializer, Input};
use crate::codec::chunk_at;
use crate::error::{ErrorKind, Result};
use crate::schema::{ClassDef, PropertyDef};
use serde_core::de::{self, DeserializeSeed, Visitor};

/// Whether the property headers from bit `pos` on are exactly `class`'s properties, each once,
/// in id order, each with the tag of its declared type and a size within the object that ends
/// at bit `end`, the last ending there: then reading them in order finds property 0, 1, 2, …
/// with no lookup, skip or error. (The class must be `typed`: a property without a type has no
/// one tag.) The headers are only looked at.
#[inline(always)]
pub(super) fn props_in_order(class: &ClassDef, data: &[u8], mut pos: u64, end: u64) -> bool {
    for prop in &class.props {
        // A property header is aligned: its size (counted from `pos`) is the first 32 bits, its
        // tag the next 32.
        let at = (pos + 7) >> 3;
        let Some(header) = chunk_at::<8>(data, at as usize) else { return false };
        let word = u64::from_le_bytes(*header);
        let prop_end = pos + (word & 0xFFFF_FFFF);
        // Each property ends after its header, so the ends only grow: the last one's being `end`
        // (tested after the loop) puts every one within the object. (A header looked at past
        // `end` is only looked at.)
        if prop.hash != (word >> 32) as u32 || prop_end < (at << 3) + 64 {
            return false;
        }
        pos = prop_end;
    }
    pos == end
}

impl<'de, 't, I: Input<'de>> Deserializer<'de, 't, I> {
    /// Deep mode: whether the next object is a plain one of class `expected` (the slot's
    /// declared class; no DELTA_ENCODE property, every property typed: `ClassDef::deep_plain`)
    /// whose properties are the class's in id order (see [`props_in_order`]), read into a serde
    /// struct whose `fields` are those properties, where the general path
    /// ([`visit_object_other`](Self::visit_object_other)) would hand the same struct the same
    /// properties as a `DeepSeq`. If so its tag and size are read and the class and the object's
    /// end returned; if not, nothing is read, and the general path reads the object and reports
    /// what it finds (so not with a recursion limit reached, a size out of bounds or a dump,
    /// whose errors and marks are the general path's; nor when a decode may be redone, whose
    /// deep objects the general path reads as a `PropertySeq`).
    #[inline(always)]
    pub(super) fn deep_plain_ahead(
        &mut self,
        expected: u32,
        fields: &'static [&'static str],
    ) -> Option<(&'t ClassDef, u64)> {
        let class = self.types.get(expected);
        if !class.deep_plain {
            return None;
        }
        self.deep_plain_check(class, fields)
    }

    /// [`deep_plain_ahead`](Self::deep_plain_ahead) for a class that may be read so, out of line:
    /// one copy for every struct, where its loop would be in each.
    #[inline(never)]
    fn deep_plain_check(
        &mut self,
        class: &'t ClassDef,
        fields: &'static [&'static str],
    ) -> Option<(&'t ClassDef, u64)> {
        if self.input.trace().is_some() || self.seq_retry || self.depth == 0 {
            return None;
        }
        let data = self.input.data();
        // The tag and the object's size: one aligned 8-byte word (`read_tag` and `object_body`
        // read them as two aligned 32-bit values, the second where the first ends).
        let at = (self.cur.bit_pos() + 7) >> 3;
        let word = u64::from_le_bytes(*chunk_at::<8>(data, at as usize)?);
        if word as u32 != class.hash {
            return None;
        }
        let size_pos = (at << 3) + 32;
        let size = word >> 32;
        let end = size_pos + size;
        if size < 32 || end > data.len() as u64 * 8 || !class.fields_are_props(fields) {
            return None;
        }
        if !props_in_order(class, data, size_pos + 32, end) {
            return None;
        }
        // (In bounds: `end` is, and the body starts before it.)
        self.seek(size_pos + 32).ok()?;
        Some((class, end))
    }

    /// Reads a plain deep object (see [`deep_plain_ahead`](Self::deep_plain_ahead)) whose tag and
    /// size were read, ending at bit `end`: the properties as a [`DeepPlainSeq`], read as
    /// `DeepSeq` reads them. The one place that calls a struct visitor's `visit_seq` with a
    /// `DeepPlainSeq`, which the optimiser then inlines here.
    #[inline(never)]
    pub(super) fn deep_plain_object<V: Visitor<'de>>(
        &mut self,
        class: &'t ClassDef,
        end: u64,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        self.enter()?;
        // The properties are the fields (`deep_plain_ahead` checked): counted by the fields, a
        // constant the optimiser may know, the sequence's end tests fold away.
        let props = &class.props[..fields.len()];
        let mut seq = DeepPlainSeq { d: &mut *self, class, props: props.iter() };
        let value = v.visit_seq(Inline(&mut seq))?;
        let left = seq.props.len();
        if left != 0 {
            self.skip_deep_plain(class, end, props.len() - left)?;
        }
        self.leave();
        Ok(value)
    }

    /// Skips the properties from `idx` on that a visitor of
    /// [`deep_plain_object`](Self::deep_plain_object) left unread, as `ObjectAccess::finish` does.
    #[cold]
    #[inline(never)]
    fn skip_deep_plain(&mut self, class: &'t ClassDef, end: u64, idx: usize) -> Result<()> {
        ObjectAccess::resume(self, class, end, idx).skip_rest()
    }

    /// After deep property `slot`'s value (of an object of `class`): skips what an ignored value
    /// left, or reports that the value did not end at `prop_end`, where its size says.
    #[inline(never)]
    pub(super) fn end_deep_property(&mut self, class: &ClassDef, slot: &DSlot<'t>, prop_end: u64) -> Result<()> {
        let at = self.pos();
        if at != prop_end {
            if self.ignored {
                self.seek(prop_end)?;
            } else {
                return Err(self.err(ErrorKind::PropertySizeMismatch {
                    property: format!("{}::{}", class.name, slot.name()),
                    expected: prop_end,
                    actual: at,
                }));
            }
        }
        self.ignored = false;
        Ok(())
    }

    /// Reads deep property `prop` (of an object of `class`)'s value as its declared type, then
    /// checks that it ended at `prop_end` (see [`end_deep_property`](Self::end_deep_property));
    /// an error names the property in its path.
    #[inline(always)]
    pub(super) fn deep_value<S: DeserializeSeed<'de>>(
        &mut self,
        class: &'t ClassDef,
        prop: &'t PropertyDef,
        kind: crate::schema::Kind,
        prop_end: u64,
        seed: S,
    ) -> Result<S::Value> {
        let v = property_value(self, prop, kind, false, seed)?;
        if self.pos() != prop_end || self.ignored {
            let slot = DSlot { prop: Some(prop), kind, root: false, element: false, presence: false };
            if let Err(e) = self.end_deep_property(class, &slot, prop_end) {
                return Err(e.in_field(&prop.name));
            }
        }
        Ok(v)
    }
}

/// The properties of a plain deep object as a sequence (see
/// [`Deserializer::deep_plain_object`]): each header was checked, so only its size is read again.
pub(super) struct DeepPlainSeq<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    class: &'t ClassDef,
    /// The properties not read yet.
    props: std::slice::Iter<'t, PropertyDef>,
}

impl<'de, I: Input<'de>> de::SeqAccess<'de> for DeepPlainSeq<'_, 'de, '_, I> {
    type Error = crate::error::Error;

    #[inline(always)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let Some(prop) = self.props.next() else {
            return Ok(None);
        };
        let d = &mut *self.d;
        let start = d.pos();
        let word = d.cur.read_u64(d.input.data()).map_err(|_| d.eof())?;
        let prop_end = start + (word & 0xFFFF_FFFF);
        d.deep_value(self.class, prop, prop.kind, prop_end, seed).map(Some)
    }

    /// Inlined into the derived visitor (serde's default is a call per field).
    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.props.len())
    }
}
