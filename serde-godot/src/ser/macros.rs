//! The boilerplate shared by the serializers of this module: serde's compound traits forwarded to
//! inherent methods, the methods a narrow serializer refuses, and the error they refuse with.

use crate::error::{Error, ErrorKind};

/// `serialize_<int>` methods that widen to i64 (or check, for wider types) and call `$int`.
macro_rules! int_methods {
    ($int:ident; $($method:ident: $ty:ty),*; checked $($checked:ident: $cty:ty),*) => {
        $(
            #[inline]
            fn $method(self, v: $ty) -> Result<()> {
                self.$int(v as i64)
            }
        )*
        $(
            fn $checked(self, v: $cty) -> Result<()> {
                self.$int(i64::try_from(v).map_err(|_| Error::new(ErrorKind::IntegerOutOfRange))?)
            }
        )*
    };
}

/// Implements serde's compound traits for a type (generic over the [`Output`](super::Output) `O`)
/// by forwarding to its inherent methods.
macro_rules! compound {
    ($ty:ty, $element:ident, $end:ident: $($trait:ident $method:ident,)*) => {$(
        impl<O: Output> ser::$trait for $ty {
            type Ok = ();
            type Error = Error;

            #[inline(always)]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.$element(value)
            }

            #[inline(always)]
            fn end(self) -> Result<()> {
                self.$end()
            }
        }
    )*};
}

/// Like `compound!` for the struct traits, whose fields come with their names.
macro_rules! compound_struct {
    ($ty:ty, $field:ident, $end:ident: $($trait:ident),*) => {$(
        impl<O: Output> ser::$trait for $ty {
            type Ok = ();
            type Error = Error;

            #[inline(always)]
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.$field(key, value)
            }

            #[inline(always)]
            fn end(self) -> Result<()> {
                self.$end()
            }
        }
    )*};
}

#[cold]
pub(super) fn unexpected(what: &str) -> Error {
    Error::new(ErrorKind::Message(format!("unexpected value in {what}")))
}

/// Implements every `serde::Serializer` method not listed by the caller as an error.
macro_rules! reject {
    ($what:expr; $($method:ident)*) => {$(reject!(@ $what; $method);)*};
    (@ $what:expr; bool) => { fn serialize_bool(self, _: bool) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i8) => { fn serialize_i8(self, _: i8) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i16) => { fn serialize_i16(self, _: i16) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i32) => { fn serialize_i32(self, _: i32) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i64) => { fn serialize_i64(self, _: i64) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u8) => { fn serialize_u8(self, _: u8) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u16) => { fn serialize_u16(self, _: u16) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u32) => { fn serialize_u32(self, _: u32) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u64) => { fn serialize_u64(self, _: u64) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; f32) => { fn serialize_f32(self, _: f32) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; f64) => { fn serialize_f64(self, _: f64) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; char) => { fn serialize_char(self, _: char) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; str) => { fn serialize_str(self, _: &str) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; bytes) => { fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; none) => { fn serialize_none(self) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; some) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> { Err(unexpected($what)) }
    };
    (@ $what:expr; unit) => { fn serialize_unit(self) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; unit_struct) => {
        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok> { Err(unexpected($what)) }
    };
    (@ $what:expr; unit_variant) => {
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<Self::Ok> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; newtype_struct) => {
        fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<Self::Ok> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; newtype_variant) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self, _: &'static str, _: u32, _: &'static str, _: &T,
        ) -> Result<Self::Ok> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; seq) => {
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> { Err(unexpected($what)) }
    };
    (@ $what:expr; tuple) => {
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> { Err(unexpected($what)) }
    };
    (@ $what:expr; tuple_struct) => {
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; tuple_variant) => {
        fn serialize_tuple_variant(
            self, _: &'static str, _: u32, _: &'static str, _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; map) => {
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> { Err(unexpected($what)) }
    };
    (@ $what:expr; struct) => {
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; struct_variant) => {
        fn serialize_struct_variant(
            self, _: &'static str, _: u32, _: &'static str, _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(unexpected($what))
        }
    };
}

/// The associated types of a serializer that captures one scalar (every compound impossible).
macro_rules! capture_only {
    ($ok:ty) => {
        type Ok = $ok;
        type Error = Error;
        type SerializeSeq = Impossible<$ok, Error>;
        type SerializeTuple = Impossible<$ok, Error>;
        type SerializeTupleStruct = Impossible<$ok, Error>;
        type SerializeTupleVariant = Impossible<$ok, Error>;
        type SerializeMap = Impossible<$ok, Error>;
        type SerializeStruct = Impossible<$ok, Error>;
        type SerializeStructVariant = Impossible<$ok, Error>;

        fn is_human_readable(&self) -> bool {
            false
        }
    };
}

pub(super) use {capture_only, compound, compound_struct, int_methods, reject};
