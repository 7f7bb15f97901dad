//! Containers: elements as a sequence, or (key, value) objects as a map.

use super::object::ObjectAccess;
use super::value::{DSlot, ValueDe};
use super::{Deserializer, Input};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::ClassDef;
use serde_core::de::{self, Deserialize, DeserializeSeed};
use std::marker::PhantomData;

/// A `&mut` access handed to a visitor by value, every method of which is inlined into the
/// visitor. (serde's own impl for `&mut A` is one more function, which the optimiser often keeps
/// out of line: a call, and a result returned through memory, per field or element.)
pub(super) struct Inline<'b, A>(pub(super) &'b mut A);

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Inline<'_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(seed)
    }

    #[inline(always)]
    fn next_element<T: Deserialize<'de>>(&mut self) -> std::result::Result<Option<T>, A::Error> {
        self.0.next_element_seed(PhantomData)
    }

    #[inline(always)]
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Inline<'_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> std::result::Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> std::result::Result<V::Value, A::Error> {
        self.0.next_value_seed(seed)
    }

    #[inline(always)]
    fn next_key<K: Deserialize<'de>>(&mut self) -> std::result::Result<Option<K>, A::Error> {
        self.0.next_key_seed(PhantomData)
    }

    #[inline(always)]
    fn next_value<V: Deserialize<'de>>(&mut self) -> std::result::Result<V, A::Error> {
        self.0.next_value_seed(PhantomData)
    }

    #[inline(always)]
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A container of (key, value) objects as a map.
pub(super) struct PairsAccess<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) class: &'t ClassDef,
    pub(super) slot: DSlot<'t>,
    /// Entries in all (for the path of an error: the entry's number).
    pub(super) len: u32,
    pub(super) left: u32,
    /// The entry object being read: (end, next property index).
    pub(super) saved: Option<(u64, usize)>,
    /// Where the entry being read starts (its tag), so that an error in its value can read its
    /// key again for the path.
    pub(super) entry_at: u64,
}

impl<'de, I: Input<'de>> PairsAccess<'_, 'de, '_, I> {
    /// The path segment of the entry being read: its key read again from the input (`"name"`
    /// quoted, a number bare), or `#n`, the entry's number, when the key cannot be shown.
    #[cold]
    #[inline(never)]
    fn entry_segment(&mut self) -> String {
        let number = format!("#{}", self.len - self.left - 1);
        if self.d.seek(self.entry_at).is_err() {
            return number;
        }
        let key = match self.d.read_tag(&self.slot) {
            Ok(Some(class)) if std::ptr::eq(class, self.class) => match self.d.object_body(class, false, &[], false) {
                Ok(mut acc) => match acc.next_property() {
                    Ok(Some(_)) if acc.idx == 1 => acc.value_at::<false, _>(KeyText).ok(),
                    _ => None,
                },
                Err(_) => None,
            },
            _ => None,
        };
        key.unwrap_or(number)
    }
}

/// Renders a map key for a path: strings quoted (`"name"`), numbers and booleans bare.
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = String;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for KeyText {
    type Value = String;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string or number key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<String, E> {
        Ok(format!("{v:?}"))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<String, E> {
        Ok(v.to_string())
    }
}

impl<'de, I: Input<'de>> de::MapAccess<'de> for PairsAccess<'_, 'de, '_, I> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.d.reserved = self.d.reserved.saturating_sub(32);
        self.entry_at = self.d.bit_pos();
        match self.entry_key(seed) {
            Ok(key) => Ok(Some(key)),
            Err(e) => Err(e.in_entry(&format!("#{}", self.len - self.left - 1))),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        match self.entry_value(seed) {
            Ok(v) => Ok(v),
            Err(e) => {
                let segment = self.entry_segment();
                Err(e.in_entry(&segment))
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

impl<'de, I: Input<'de>> PairsAccess<'_, 'de, '_, I> {
    #[inline]
    fn entry_key<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<K::Value> {
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
            Some(_) if acc.idx == 1 => acc.value_at::<false, _>(seed)?,
            _ => return Err(Error::mismatch(&class.name, "the key property first")),
        };
        self.saved = Some((acc.end, acc.idx));
        Ok(key)
    }

    #[inline]
    fn entry_value<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let (end, idx) = self.saved.take().ok_or_else(|| Error::new(ErrorKind::Message("value before key".into())))?;
        let mut acc = ObjectAccess::resume(&mut *self.d, self.class, end, idx);
        let value = match acc.next_property()? {
            Some(_) if acc.idx == 2 => acc.value_at::<false, _>(seed)?,
            _ => return Err(Error::mismatch(&self.class.name, "the value property second")),
        };
        acc.finish()?;
        Ok(value)
    }
}

/// A container's elements.
pub(super) struct ListAccess<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) slot: DSlot<'t>,
    /// Elements in all (for the path of an error: the element's index).
    pub(super) len: u32,
    pub(super) left: u32,
    /// Bits reserved per element still to come (0 for fixed arrays, whose length is the type's).
    pub(super) min_bits: u64,
    /// The elements' bits were not reserved (elements that cannot hold a container: see
    /// [`ValueDe::list`]), so there is nothing to release per element.
    pub(super) deferred: bool,
}

impl<'de, I: Input<'de>> de::SeqAccess<'de> for ListAccess<'_, 'de, '_, I> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        if !self.deferred {
            self.d.reserved = self.d.reserved.saturating_sub(self.min_bits);
        }
        match seed.deserialize(ValueDe { d: &mut *self.d, slot: self.slot }) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e.in_element((self.len - self.left - 1) as usize)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        // Exact: a declared length is checked against the input (with every element's least
        // size) before the list is handed out.
        Some(self.left as usize)
    }
}
