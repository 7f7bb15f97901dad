//! Writers of a Godot type's payload without its header, and serializers that capture one
//! scalar for the caller.

use serde_core::ser::{self, Impossible, Serialize};

use super::macros::{capture_only, compound, compound_struct, reject, unexpected};
use super::writer::Output;
use crate::error::{Error, ErrorKind, Result};
use crate::wire;

/// What a [`Raw`] payload writer accepts.
#[derive(Clone, Copy)]
pub(super) struct Accept(u8);

impl Accept {
    /// A string body (StringName, signal and class names).
    pub(super) const STR: Accept = Accept(1);
    /// A raw u64 (RID, object id).
    pub(super) const U64: Accept = Accept(2);
    /// f32 / i32 components, nested structs and arrays flattened (math types).
    pub(super) const MATH: Accept = Accept(4);

    fn has(self, other: Accept) -> bool {
        self.0 & other.0 != 0
    }
}

/// Writes the payload of a Godot type without headers.
pub(super) struct Raw<'o, O: Output> {
    out: &'o mut O,
    accept: Accept,
}

impl<'o, O: Output> Raw<'o, O> {
    pub(super) fn new(out: &'o mut O, accept: Accept) -> Self {
        Raw { out, accept }
    }

    #[inline]
    fn bytes(self, accept: Accept, bytes: &[u8]) -> Result<()> {
        if !self.accept.has(accept) {
            return Err(unexpected("a Godot type's payload"));
        }
        self.out.put(bytes);
        Ok(())
    }

    #[inline]
    fn reborrow(&mut self) -> Raw<'_, O> {
        Raw { out: self.out, accept: self.accept }
    }
}

impl<O: Output> ser::Serializer for Raw<'_, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.bytes(Accept::MATH, &v.to_le_bytes())
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.bytes(Accept::MATH, &v.to_le_bytes())
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.bytes(Accept::U64, &v.to_le_bytes())
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        if !self.accept.has(Accept::STR) {
            return Err(unexpected("a Godot type's payload"));
        }
        wire::put_str_body(self.out, v.as_bytes())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self> {
        if self.accept.has(Accept::MATH) { Ok(self) } else { Err(unexpected("a Godot type's payload")) }
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self> {
        if self.accept.has(Accept::MATH) { Ok(self) } else { Err(unexpected("a Godot type's payload")) }
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self> {
        if self.accept.has(Accept::MATH) { Ok(self) } else { Err(unexpected("a Godot type's payload")) }
    }

    reject!("a Godot type's payload"; bool i8 i16 i64 u8 u16 u32 f64 char bytes none some unit unit_struct
        unit_variant newtype_variant seq tuple_variant map struct_variant);
}

impl<O: Output> Raw<'_, O> {
    #[inline]
    fn part<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(self.reborrow())
    }

    #[inline]
    fn named_part<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        self.part(value)
    }

    fn done(self) -> Result<()> {
        Ok(())
    }
}

compound!(Raw<'_, O>, part, done: SerializeTuple serialize_element, SerializeTupleStruct serialize_field,);
compound_struct!(Raw<'_, O>, named_part, done: SerializeStruct);

/// Captures a bool (NodePath's `absolute`).
pub(super) struct BoolCapture;

impl ser::Serializer for BoolCapture {
    capture_only!(bool);

    fn serialize_bool(self, v: bool) -> Result<bool> {
        Ok(v)
    }

    reject!("a NodePath"; i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct
        unit_variant newtype_struct newtype_variant seq tuple tuple_struct tuple_variant map struct struct_variant);
}

/// Captures a string (a typed-container descriptor).
pub(super) struct StrCapture;

impl ser::Serializer for StrCapture {
    capture_only!(String);

    fn serialize_str(self, v: &str) -> Result<String> {
        Ok(v.to_owned())
    }

    reject!("a container type"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char bytes none some unit unit_struct
        unit_variant newtype_struct newtype_variant seq tuple tuple_struct tuple_variant map struct struct_variant);
}

/// Captures one f32 component of a packed vector or color.
pub(super) struct F32Capture;

impl ser::Serializer for F32Capture {
    capture_only!(f32);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<f32> {
        Ok(v)
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<f32> {
        Ok(v as f32)
    }

    reject!("a packed vector component"; bool i8 i16 i32 i64 u8 u16 u32 u64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant seq tuple tuple_struct tuple_variant map struct
        struct_variant);
}

/// Writes a list of string bodies and returns how many (NodePath names and subnames).
pub(super) struct StrList<'o, O: Output> {
    pub(super) out: &'o mut O,
    pub(super) max: usize,
}

impl<'o, O: Output> ser::Serializer for StrList<'o, O> {
    type Ok = u32;
    type Error = Error;
    type SerializeSeq = StrListSeq<'o, O>;
    type SerializeTuple = Impossible<u32, Error>;
    type SerializeTupleStruct = Impossible<u32, Error>;
    type SerializeTupleVariant = Impossible<u32, Error>;
    type SerializeMap = Impossible<u32, Error>;
    type SerializeStruct = Impossible<u32, Error>;
    type SerializeStructVariant = Impossible<u32, Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<StrListSeq<'o, O>> {
        Ok(StrListSeq { out: self.out, count: 0, max: self.max })
    }

    reject!("a NodePath"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct
        unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct struct_variant);
}

pub(super) struct StrListSeq<'o, O: Output> {
    out: &'o mut O,
    count: u32,
    max: usize,
}

impl<O: Output> ser::SerializeSeq for StrListSeq<'_, O> {
    type Ok = u32;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(Raw::new(self.out, Accept::STR))?;
        self.count += 1;
        if self.count as usize > self.max.min(i32::MAX as usize) {
            return Err(Error::new(ErrorKind::TooLong(self.count as usize)));
        }
        Ok(())
    }

    fn end(self) -> Result<u32> {
        Ok(self.count)
    }
}
