//! Containers: elements as a sequence, or (key, value) objects as a map.

use super::object::ObjectAccess;
use super::value::{DSlot, ValueDe};
use super::{Deserializer, Input};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ClassDef, Kind};
use serde_core::de::{self, DeserializeSeed};

/// A container of (key, value) objects as a map.
pub(super) struct PairsAccess<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) class: &'t ClassDef,
    pub(super) slot: DSlot<'t>,
    pub(super) left: u32,
    /// The entry object being read: (end, next property index).
    pub(super) saved: Option<(u64, usize)>,
}

impl<'de, I: Input<'de>> de::MapAccess<'de> for PairsAccess<'_, 'de, '_, I> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.d.reserved = self.d.reserved.saturating_sub(32);
        let class = match self.d.read_tag(&self.slot)? {
            Some(c) if std::ptr::eq(c, self.class) => c,
            _ => {
                return Err(self.d.err(ErrorKind::Mismatch {
                    field: self.slot.name().to_owned(),
                    expected: format!("a {} entry", self.class.name),
                }));
            }
        };
        let mut acc = self.d.object_body(class, false, &[], false)?;
        let key = match acc.next_property()? {
            Some(_) if acc.idx == 1 => acc.value(seed)?,
            _ => return Err(Error::mismatch(&class.name, "the key property first")),
        };
        self.saved = Some((acc.end, acc.idx));
        Ok(Some(key))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let (end, idx) = self.saved.take().ok_or_else(|| Error::new(ErrorKind::Message("value before key".into())))?;
        let mut acc = ObjectAccess {
            d: &mut *self.d,
            class: self.class,
            end,
            idx,
            header: 4,
            by_index: false,
            all_in: false,
            pending: None,
            presence: false,
            pending_kind: Kind::Auto,
            prop_end: 0,
            done: false,
            charge: false,
            slots: 0,
            count: 0,
        };
        let value = match acc.next_property()? {
            Some(_) if acc.idx == 2 => acc.value(seed)?,
            _ => return Err(Error::mismatch(&self.class.name, "the value property second")),
        };
        acc.finish()?;
        Ok(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

/// A container's elements.
pub(super) struct ListAccess<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) slot: DSlot<'t>,
    pub(super) left: u32,
    /// Bits reserved per element still to come (0 for fixed arrays, whose length is the type's).
    pub(super) min_bits: u64,
}

impl<'de, I: Input<'de>> de::SeqAccess<'de> for ListAccess<'_, 'de, '_, I> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.d.reserved = self.d.reserved.saturating_sub(self.min_bits);
        seed.deserialize(ValueDe { d: &mut *self.d, slot: self.slot }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        // Exact: a declared length is checked against the input (with every element's least
        // size) before the list is handed out.
        Some(self.left as usize)
    }
}
