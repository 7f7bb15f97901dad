//! Packed arrays (`PackedInt32Array`, `PackedVector3Array`, …): a count, then the elements'
//! bare payloads.

use serde_core::ser::{self, Impossible, Serialize};

use super::macros::{compound, compound_struct, int_methods, reject, unexpected};
use super::payload::F32Capture;
use super::writer::{Open, Output, Serializer};
use crate::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::wire;

/// Writes a packed array from a sequence of its elements.
pub(super) struct Packed<'s, 'a, O: Output> {
    pub(super) ser: &'s mut Serializer<'a, O>,
    pub(super) id: u32,
    pub(super) ty: VariantType,
}

impl<'s, 'a, O: Output> ser::Serializer for Packed<'s, 'a, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = PackedSeq<'s, 'a, O>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<PackedSeq<'s, 'a, O>> {
        let open = self.ser.open(self.id, len)?;
        if let (Some(len), Some(size)) = (len, wire::packed_elem_size(self.ty, false)) {
            self.ser.out.reserve(len.saturating_mul(size));
        }
        let dims = match self.ty {
            VariantType::PackedVector2Array => 2,
            VariantType::PackedVector3Array => 3,
            _ => 4,
        };
        Ok(PackedSeq { ser: self.ser, ty: self.ty, open, dims })
    }

    reject!("a packed array"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct
        struct_variant);
}

pub(super) struct PackedSeq<'s, 'a, O: Output> {
    ser: &'s mut Serializer<'a, O>,
    ty: VariantType,
    open: Open,
    dims: usize,
}

impl<O: Output> ser::SerializeSeq for PackedSeq<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.open.count += 1;
        value.serialize(PackedElem { out: &mut self.ser.out, ty: self.ty, dims: self.dims })
    }

    fn end(self) -> Result<()> {
        self.ser.close(self.open)
    }
}

/// Writes one packed element.
struct PackedElem<'o, O: Output> {
    out: &'o mut O,
    ty: VariantType,
    dims: usize,
}

impl<O: Output> PackedElem<'_, O> {
    #[inline]
    fn int(self, v: i64) -> Result<()> {
        match self.ty {
            VariantType::PackedInt32Array => {
                let v = i32::try_from(v).map_err(|_| Error::new(ErrorKind::IntegerOutOfRange))?;
                self.out.put(&v.to_le_bytes());
                Ok(())
            }
            VariantType::PackedInt64Array => {
                self.out.put(&v.to_le_bytes());
                Ok(())
            }
            _ => Err(unexpected(self.ty.name())),
        }
    }

    #[inline]
    fn float(self, v: f64) -> Result<()> {
        match self.ty {
            VariantType::PackedFloat32Array => self.out.put(&(v as f32).to_le_bytes()),
            VariantType::PackedFloat64Array => self.out.put(&v.to_le_bytes()),
            _ => return Err(unexpected(self.ty.name())),
        }
        Ok(())
    }
}

impl<'o, O: Output> ser::Serializer for PackedElem<'o, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = PackedVector<'o, O>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = PackedVector<'o, O>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    int_methods!(int; serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32;
        checked serialize_i128: i128, serialize_u64: u64, serialize_u128: u128);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.float(v as f64)
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v)
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        if self.ty != VariantType::PackedStringArray {
            return Err(unexpected(self.ty.name()));
        }
        wire::put_packed_str(self.out, v.as_bytes())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<PackedVector<'o, O>> {
        self.vector()
    }

    #[inline]
    fn serialize_tuple(self, _: usize) -> Result<PackedVector<'o, O>> {
        self.vector()
    }

    reject!("a packed array element"; bool char bytes none some unit unit_struct unit_variant newtype_variant
        seq tuple_struct tuple_variant map struct_variant);
}

impl<'o, O: Output> PackedElem<'o, O> {
    #[inline]
    fn vector(self) -> Result<PackedVector<'o, O>> {
        match self.ty {
            VariantType::PackedVector2Array
            | VariantType::PackedVector3Array
            | VariantType::PackedVector4Array
            | VariantType::PackedColorArray => {
                Ok(PackedVector { out: self.out, vals: [0.0; 4], n: 0, dims: self.dims })
            }
            _ => Err(unexpected(self.ty.name())),
        }
    }
}

/// Collects the components of one packed vector or color, then writes them in one go.
struct PackedVector<'o, O: Output> {
    out: &'o mut O,
    vals: [f32; 4],
    n: usize,
    dims: usize,
}

impl<O: Output> PackedVector<'_, O> {
    #[inline]
    fn component<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let v = value.serialize(F32Capture)?;
        if self.n < 4 {
            self.vals[self.n] = v;
        }
        self.n += 1;
        Ok(())
    }

    #[inline]
    fn finish(self) -> Result<()> {
        if self.n != self.dims {
            return Err(unexpected("a packed vector"));
        }
        let mut buf = [0u8; 16];
        for (chunk, v) in buf.chunks_exact_mut(4).zip(self.vals) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        self.out.put(&buf[..self.dims * 4]);
        Ok(())
    }
}

impl<O: Output> PackedVector<'_, O> {
    #[inline]
    fn named_component<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        self.component(value)
    }
}

compound!(PackedVector<'_, O>, component, finish: SerializeTuple serialize_element,);
compound_struct!(PackedVector<'_, O>, named_component, finish: SerializeStruct);
