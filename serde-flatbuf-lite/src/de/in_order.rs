//! Tables read in field order through serde's `visit_seq`.
//!
//! serde's derived struct visitors read a sequence positionally: field `i` is element `i`, with no key to
//! deserialize, match and check for duplicates, which the `visit_map` path pays for every field. For a table
//! whose fields map one to one onto slots `0..n` (no explicit ids, no placeholder-free unions) and whose
//! vtable has every one of those slots present, both paths read the same slots in the same order, so a
//! derived visitor builds the same value either way.
//!
//! They are not equivalent for every visitor, so the in-order path is only a first attempt, made by
//! [`Options::from_slice`](crate::Options::from_slice) (which can decode again): anything it cannot vouch for
//! marks the decode ([`Deserializer::in_order_failed`]) and `from_slice` decodes the buffer again with the
//! map path only, at most once (bounded at twice the work, never more). That covers a hand-written visitor
//! that has only `visit_map` (serde's default `visit_seq` rejects the sequence), a visitor that takes fewer
//! elements than the field list names (serde aliases in the list), a union value next to a `UnionType`
//! placeholder stored as NONE (the map path leaves it out so serde's missing-field rules apply), and any
//! error (so errors always come from the map path, exactly as before). A root type that needed the second
//! decode is remembered (`plan::map_only`) and later decodes of it go straight to the map path.

use serde_core::de::{self, DeserializeSeed, Visitor};

use super::{Deserializer, Place, ValueDe};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::Table;
use crate::names::field_name;

impl<'de> Deserializer<'de> {
    /// Decodes `table` through `visitor.visit_seq` when its fields can be read in order; gives the visitor
    /// back when they cannot (before it is used).
    #[inline(always)]
    pub(super) fn read_in_order<V: Visitor<'de>>(
        &mut self,
        table: Table,
        fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<Result<V::Value>, V> {
        let Some(entries) = all_present(self.buf, &table, fields.len()) else {
            return Err(visitor);
        };
        let mut taken = 0;
        let value = visitor.visit_seq(InOrder { d: self, table, entries, fields, i: &mut taken });
        Ok(match value {
            Ok(value) => {
                if taken != fields.len() {
                    self.in_order_failed = true;
                }
                self.depth -= 1;
                Ok(value)
            }
            Err(e) => {
                self.in_order_failed = true;
                Err(e)
            }
        })
    }
}

/// The vtable entries of slots `0..n` of `table` when they are all present.
#[inline(always)]
fn all_present<'de>(buf: &'de [u8], table: &Table, n: usize) -> Option<&'de [u8]> {
    if 4 + 2 * n > table.vt_len {
        return None;
    }
    let entries = buf.get(table.vtable + 4..table.vtable + 4 + 2 * n)?;
    entries.chunks_exact(2).all(|e| e != [0, 0]).then_some(entries)
}

/// The fields of a table with slots `0..n` all present, as a sequence.
struct InOrder<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    table: Table,
    /// The vtable entries of the fields' slots (all present): a field's offset is one load from here
    /// instead of a vtable lookup checked against the vtable length and the buffer again.
    entries: &'de [u8],
    fields: &'static [&'static str],
    /// Elements handed out so far (read back once the visitor is done).
    i: &'a mut usize,
}

impl<'de> de::SeqAccess<'de> for InOrder<'_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let slot = *self.i;
        let Some(&name) = self.fields.get(slot) else {
            return Ok(None);
        };
        *self.i += 1;
        if let Some((table, type_slot, ty)) = self.d.pending_union {
            if ty == 0 && table == self.table.pos && type_slot + 1 == slot {
                // A union value next to a NONE type: the map path leaves it out (serde's missing-field rules).
                self.d.in_order_failed = true;
                return Err(not_in_order());
            }
        }
        let pos = match self.entries.get(2 * slot..2 * slot + 2) {
            Some(&[lo, hi]) if [lo, hi] != [0, 0] => self.table.pos + usize::from(u16::from_le_bytes([lo, hi])),
            _ => {
                self.d.in_order_failed = true;
                return Err(not_in_order());
            }
        };
        match seed.deserialize(ValueDe { d: self.d, place: Place::Field { pos, slot, table: self.table.pos } }) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(e.in_field(field_name(name))),
        }
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - *self.i)
    }
}

/// The in-order attempt gave up; `from_slice` decodes again through the map path.
#[cold]
fn not_in_order() -> Error {
    Error::new(ErrorKind::Message, "table not decodable in field order")
}
