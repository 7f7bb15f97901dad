//! The compounds of untyped containers: [`Seq`] for sequences and tuples, [`Map`] for maps, and
//! the `{ "Variant": … }` wrapper of externally tagged enum variants.

use serde_core::ser::{self, Serialize};

use super::macros::compound;
use super::writer::{NO_CHECK, Open, Output, Serializer};
use crate::error::{Error, Result};

impl<'a, O: Output> Serializer<'a, O> {
    /// Starts an untyped ARRAY.
    #[inline]
    pub(super) fn begin_array(&mut self, len: Option<usize>) -> Result<Seq<'_, 'a, O>> {
        let open = self.open(self.array(), len)?;
        Ok(Seq { ser: self, open })
    }

    /// Starts an untyped DICTIONARY.
    #[inline]
    pub(super) fn begin_dict(&mut self, len: Option<usize>) -> Result<Map<'_, 'a, O>> {
        let open = self.open(self.dict(), len)?;
        Ok(Map { ser: self, open })
    }

    /// Writes `{ "Variant": ` of an externally tagged enum and steps into the value.
    pub(super) fn begin_variant(&mut self, variant: &'static str) -> Result<()> {
        self.out.put(&(self.dict() as u64 | 1 << 32).to_le_bytes());
        self.string(variant)?;
        self.descend();
        self.check_depth()
    }
}

/// The compound for sequences, tuples and (in Array form) structs.
pub struct Seq<'s, 'a, O: Output = Vec<u8>> {
    pub(super) ser: &'s mut Serializer<'a, O>,
    pub(super) open: Open,
}

impl<O: Output> Seq<'_, '_, O> {
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.open.count += 1;
        if self.open.check[0] == NO_CHECK {
            value.serialize(&mut *self.ser)
        } else {
            self.ser.checked(value, self.open.check[0])
        }
    }

    #[inline]
    fn end_seq(self) -> Result<()> {
        self.ser.close(self.open)
    }
}

compound!(Seq<'_, '_, O>, element, end_seq:
    SerializeSeq serialize_element,
    SerializeTuple serialize_element,
    SerializeTupleStruct serialize_field,
    SerializeTupleVariant serialize_field,
);

/// The compound for maps and (in Dictionary form) structs.
pub struct Map<'s, 'a, O: Output = Vec<u8>> {
    pub(super) ser: &'s mut Serializer<'a, O>,
    pub(super) open: Open,
}

impl<O: Output> ser::SerializeMap for Map<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.open.count += 1;
        match self.open.check[0] {
            NO_CHECK => key.serialize(&mut *self.ser),
            ty => self.ser.checked(key, ty),
        }
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self.open.check[1] {
            NO_CHECK => value.serialize(&mut *self.ser),
            ty => self.ser.checked(value, ty),
        }
    }

    #[inline]
    fn end(self) -> Result<()> {
        self.ser.close(self.open)
    }
}
