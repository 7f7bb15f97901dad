//! Serializers for map keys, `$__type` names and `$__hash` values.

use crate::error::{Error, ErrorKind, Result};
use serde_core::ser::{self, Impossible, Serialize};

/// Serializes a map key (or `$__type` value) to a string.
pub(super) struct KeySer;

impl ser::Serializer for KeySer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String> {
        Ok(v.to_owned())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<String> {
        String::from_utf8(v.to_vec()).map_err(|_| Error::new(ErrorKind::InvalidText))
    }
    fn serialize_char(self, v: char) -> Result<String> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, v: &'static str) -> Result<String> {
        Ok(v.to_owned())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<String> {
        v.serialize(self)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<String> {
        v.serialize(self)
    }
    fn serialize_bool(self, _v: bool) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i8(self, _v: i8) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i16(self, _v: i16) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i32(self, _v: i32) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i64(self, _v: i64) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u8(self, _v: u8) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u16(self, _v: u16) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u32(self, _v: u32) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u64(self, _v: u64) -> Result<String> {
        Err(key_err())
    }
    fn serialize_f32(self, _v: f32) -> Result<String> {
        Err(key_err())
    }
    fn serialize_f64(self, _v: f64) -> Result<String> {
        Err(key_err())
    }
    fn serialize_none(self) -> Result<String> {
        Err(key_err())
    }
    fn serialize_unit(self) -> Result<String> {
        Err(key_err())
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<String> {
        Err(key_err())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _t: &T,
    ) -> Result<String> {
        Err(key_err())
    }
    fn serialize_seq(self, _l: Option<usize>) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_tuple(self, _l: usize) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_tuple_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_map(self, _l: Option<usize>) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
}

pub(super) fn key_err() -> Error {
    Error::new(ErrorKind::Unsupported("map keys other than strings"))
}

/// Serializes a `$__hash` value to a u32.
pub(super) struct U32Ser;

impl ser::Serializer for U32Ser {
    type Ok = u32;
    type Error = Error;
    type SerializeSeq = Impossible<u32, Error>;
    type SerializeTuple = Impossible<u32, Error>;
    type SerializeTupleStruct = Impossible<u32, Error>;
    type SerializeTupleVariant = Impossible<u32, Error>;
    type SerializeMap = Impossible<u32, Error>;
    type SerializeStruct = Impossible<u32, Error>;
    type SerializeStructVariant = Impossible<u32, Error>;

    fn serialize_u64(self, v: u64) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_i64(self, v: i64) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_u32(self, v: u32) -> Result<u32> {
        Ok(v)
    }
    fn serialize_i32(self, v: i32) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_u8(self, v: u8) -> Result<u32> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<u32> {
        Ok(v.into())
    }
    fn serialize_i8(self, v: i8) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_i16(self, v: i16) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_bool(self, _v: bool) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_f32(self, _v: f32) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_f64(self, _v: f64) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_char(self, _v: char) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_str(self, v: &str) -> Result<u32> {
        v.parse().map_err(|_| hash_err())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_none(self) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<u32> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<u32> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _t: &T,
    ) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_seq(self, _l: Option<usize>) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_tuple(self, _l: usize) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_tuple_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_map(self, _l: Option<usize>) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
}

pub(super) fn hash_err() -> Error {
    Error::new(ErrorKind::Unsupported("$__hash must be a u32"))
}
