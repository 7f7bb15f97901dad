//! Vectors of padding-free inline elements (scalars, or structs whose members follow each other without
//! padding) read in bulk.
//!
//! The first element is read by the general inline-struct reader ([`super::structs`]), which also tells
//! whether it had any padding. If it had none, the whole vector's bounds were checked once (every element
//! fits) and its start is aligned, every later element of the same Rust type is read by [`Packed`] from a
//! slice of exactly the element's size: each member at the next offset, with no cursor inference, no
//! per-member bounds or absolute-alignment checks beyond what the optimizer folds for a fixed layout. The
//! reader still checks that the element is laid out as the general reader would read it (every member at
//! its natural alignment, nested structs aligned and a multiple of their alignment, the same size and
//! alignment as the first element) and returns an error otherwise, so a type that changes shape between
//! elements is never misread.

use serde_core::de::{self, DeserializeSeed, Visitor};

use super::structs::UnitEnumAccess;
use crate::error::{Error, ErrorKind, Result};

/// What the first element of an inline vector showed, for reading the others in bulk.
#[derive(Debug, Clone, Copy)]
pub(super) struct PackedVector {
    /// The element's alignment.
    pub(super) align: usize,
    /// The first element's struct name, if it was a named struct.
    pub(super) name: Option<&'static str>,
    /// The seed type that read the first element.
    pub(super) seed: &'static str,
}

impl PackedVector {
    /// Whether `T` is the seed type that read the first element.
    #[inline(always)]
    pub(super) fn same_seed<T>(&self) -> bool {
        let t = std::any::type_name::<T>();
        (t.as_ptr() == self.seed.as_ptr() && t.len() == self.seed.len()) || t == self.seed
    }
}

/// Reads one element from `elem` (exactly one element's bytes, at `at` in the buffer).
#[inline(always)]
pub(super) fn element<'de, T: DeserializeSeed<'de>>(
    seed: T,
    elem: &'de [u8],
    at: usize,
    v: &PackedVector,
) -> Result<T::Value> {
    let mut p = Packed { buf: elem, cur: 0, name: v.name };
    let mut max = 1;
    let value = seed.deserialize(Member { p: &mut p, parent_max: &mut max, top: true })?;
    if p.cur != elem.len() || max != v.align {
        return Err(reshaped(at));
    }
    Ok(value)
}

struct Packed<'de> {
    buf: &'de [u8],
    cur: usize,
    name: Option<&'static str>,
}

impl Packed<'_> {
    #[inline(always)]
    fn read<const N: usize>(&mut self, parent_max: &mut usize) -> Result<[u8; N]> {
        let a = if N > 8 { 8 } else { N };
        if self.cur & (a - 1) != 0 {
            return Err(reshaped(self.cur));
        }
        let bytes = match self.buf.get(self.cur..self.cur + N) {
            Some(b) => b,
            None => return Err(reshaped(self.cur)),
        };
        self.cur += N;
        if a > *parent_max {
            *parent_max = a;
        }
        Ok(bytes.try_into().expect("N bytes"))
    }
}

/// An element laid out differently from the first one of its vector.
#[cold]
#[inline(never)]
fn reshaped(at: usize) -> Error {
    Error::at(
        ErrorKind::Unsupported,
        at,
        "a vector element whose layout differs from the first element's (the type changes shape between elements)",
    )
}

/// Reads one member (or, with `top`, the element itself).
struct Member<'p, 'de> {
    p: &'p mut Packed<'de>,
    parent_max: &'p mut usize,
    top: bool,
}

impl<'de> Member<'_, 'de> {
    /// A nested struct: read in order, then checked to be aligned at its start and a multiple of its
    /// alignment (where the general reader would have added no padding).
    #[inline(always)]
    fn nested<V: Visitor<'de>>(self, fields: &'static [&'static str], len: usize, visitor: V) -> Result<V::Value> {
        let start = self.p.cur;
        let mut max = 1;
        let value = visitor.visit_seq(Fields { p: &mut *self.p, max: &mut max, fields, len, remaining: len })?;
        if (start | (self.p.cur - start)) & (max - 1) != 0 || self.p.cur == start {
            return Err(reshaped(start));
        }
        if max > *self.parent_max {
            *self.parent_max = max;
        }
        Ok(value)
    }
}

macro_rules! packed_scalars {
    ($($method:ident: $ty:ty => $visit:ident;)*) => {$(
        #[inline(always)]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.$visit(<$ty>::from_le_bytes(self.p.read(self.parent_max)?))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Member<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported("FlatBuffers is not self-describing (`deserialize_any` in a struct)"))
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let [b] = self.p.read::<1>(self.parent_max)?;
        visitor.visit_bool(b != 0)
    }

    packed_scalars! {
        deserialize_i8: i8 => visit_i8;
        deserialize_i16: i16 => visit_i16;
        deserialize_i32: i32 => visit_i32;
        deserialize_i64: i64 => visit_i64;
        deserialize_i128: i128 => visit_i128;
        deserialize_u8: u8 => visit_u8;
        deserialize_u16: u16 => visit_u16;
        deserialize_u32: u32 => visit_u32;
        deserialize_u64: u64 => visit_u64;
        deserialize_u128: u128 => visit_u128;
        deserialize_f32: f32 => visit_f32;
        deserialize_f64: f64 => visit_f64;
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let v = u32::from_le_bytes(self.p.read(self.parent_max)?);
        match char::from_u32(v) {
            Some(c) => visitor.visit_char(c),
            None => Err(Error::at(ErrorKind::InvalidValue, self.p.cur - 4, format!("{v:#x} is not a char"))),
        }
    }

    #[inline(always)]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    #[inline(always)]
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    #[inline(always)]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.nested(&[], len, visitor)
    }

    #[inline(always)]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.nested(&[], len, visitor)
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // A named element struct is inline only if configured so: the first element's name was.
        if self.top {
            match self.p.name {
                Some(n) if n.as_ptr() == name.as_ptr() && n.len() == name.len() => {}
                _ => return Err(reshaped(0)),
            }
        }
        self.nested(fields, fields.len(), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let [index] = self.p.read::<1>(self.parent_max)?;
        visitor.visit_enum(UnitEnumAccess { index, name })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.top {
            return Err(reshaped(0));
        }
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde_core::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq map identifier
    }
}

/// A struct's members, in order.
struct Fields<'p, 'de> {
    p: &'p mut Packed<'de>,
    max: &'p mut usize,
    /// The struct's field names (empty for a tuple), for the path of an error.
    fields: &'static [&'static str],
    len: usize,
    remaining: usize,
}

impl<'de> de::SeqAccess<'de> for Fields<'_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        match seed.deserialize(Member { p: &mut *self.p, parent_max: &mut *self.max, top: false }) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(super::structs::in_member(e, self.fields, self.len - self.remaining - 1)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining)
    }
}
