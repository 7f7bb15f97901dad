//! Deserializers over values known without reading the input: the placeholder (a type's zero
//! value) that stands in for a value that is absent or cannot be loaded, empty containers, unit
//! variants, and the numbers of an array already read.

use serde_core::de::value::{BorrowedStrDeserializer, U32Deserializer};
use serde_core::de::{self, DeserializeSeed, Visitor};

use crate::coerce::Num;
use crate::error::{Error, Result};
use crate::markers::{DECLARED_TYPE, POLY, RAW};

/// An array of numbers already read.
pub(super) struct Nums<'a>(pub(super) &'a [Num]);

impl<'de> de::Deserializer<'de> for Nums<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(NumsSeq(self.0.iter()))
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

pub(super) struct NumsSeq<'a>(pub(super) std::slice::Iter<'a, Num>);

impl<'de> de::SeqAccess<'de> for NumsSeq<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.0.next() {
            Some(&n) => seed.deserialize(OneNum(n)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

pub(super) struct OneNum(pub(super) Num);

impl<'de> de::Deserializer<'de> for OneNum {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Num::U(u) => visitor.visit_u64(u),
            Num::I(i) => visitor.visit_i64(i),
            Num::F(f) => visitor.visit_f64(f),
        }
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The natural default of any type: zero, false, "", empty, None, the first unit variant, and
/// `{}` for self-describing targets (this crate's types read it as their default).
pub(super) struct Placeholder;

macro_rules! placeholder_zero {
    ($($method:ident => $visit:ident($zero:expr);)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.$visit($zero)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Placeholder {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(EmptyMap)
    }

    placeholder_zero! {
        deserialize_bool => visit_bool(false);
        deserialize_i8 => visit_i8(0);
        deserialize_i16 => visit_i16(0);
        deserialize_i32 => visit_i32(0);
        deserialize_i64 => visit_i64(0);
        deserialize_i128 => visit_i128(0);
        deserialize_u8 => visit_u8(0);
        deserialize_u16 => visit_u16(0);
        deserialize_u32 => visit_u32(0);
        deserialize_u64 => visit_u64(0);
        deserialize_u128 => visit_u128(0);
        deserialize_f32 => visit_f32(0.0);
        deserialize_f64 => visit_f64(0.0);
        deserialize_char => visit_char('\0');
        deserialize_str => visit_borrowed_str("");
        deserialize_string => visit_borrowed_str("");
        deserialize_identifier => visit_borrowed_str("");
        deserialize_bytes => visit_borrowed_bytes(&[]);
        deserialize_byte_buf => visit_borrowed_bytes(&[]);
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_none()
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if name == RAW {
            return visitor.visit_string("{}".to_owned());
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(EmptyMap)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if name == POLY {
            return visitor.visit_enum(PolyPlaceholder);
        }
        visitor.visit_map(EmptyMap)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(UnitVariant(variants.first().copied().unwrap_or("")))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

pub(super) struct EmptyMap;

impl<'de> de::MapAccess<'de> for EmptyMap {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, _seed: K) -> Result<Option<K::Value>> {
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, _seed: S) -> Result<S::Value> {
        Err(Error::syntax("no value in an empty map"))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

pub(super) struct EmptySeq;

impl<'de> de::SeqAccess<'de> for EmptySeq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, _seed: T) -> Result<Option<T::Value>> {
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

/// A unit variant by name.
pub(super) struct UnitVariant(pub(super) &'static str);

impl<'de> de::EnumAccess<'de> for UnitVariant {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.0))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitVariant {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(Placeholder)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        visitor.visit_map(EmptyMap)
    }
}

/// The placeholder of a `$type` value: the declared type's default.
pub(super) struct PolyPlaceholder;

impl<'de> de::EnumAccess<'de> for PolyPlaceholder {
    type Error = Error;
    type Variant = UnitVariant;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, UnitVariant)> {
        let v = seed.deserialize(U32Deserializer::<Error>::new(DECLARED_TYPE))?;
        Ok((v, UnitVariant("")))
    }
}
