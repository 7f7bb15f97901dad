//! Internal macros.

/// Implements the listed `serde::Serializer` methods as errors ("unexpected value"), for helper
/// serializers that accept only a few shapes.
macro_rules! reject {
    ($err:expr; $($method:ident)*) => { $(reject_method!($err; $method);)* };
}

macro_rules! reject_method {
    ($err:expr; bool) => {
        fn serialize_bool(self, _: bool) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; i8) => {
        fn serialize_i8(self, _: i8) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; i16) => {
        fn serialize_i16(self, _: i16) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; i32) => {
        fn serialize_i32(self, _: i32) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; i64) => {
        fn serialize_i64(self, _: i64) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; u8) => {
        fn serialize_u8(self, _: u8) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; u16) => {
        fn serialize_u16(self, _: u16) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; u32) => {
        fn serialize_u32(self, _: u32) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; u64) => {
        fn serialize_u64(self, _: u64) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; f32) => {
        fn serialize_f32(self, _: f32) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; f64) => {
        fn serialize_f64(self, _: f64) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; char) => {
        fn serialize_char(self, _: char) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; str) => {
        fn serialize_str(self, _: &str) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; bytes) => {
        fn serialize_bytes(self, _: &[u8]) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; none) => {
        fn serialize_none(self) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; some) => {
        fn serialize_some<T: ?Sized + serde_core::Serialize>(
            self,
            _: &T,
        ) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; unit) => {
        fn serialize_unit(self) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; unit_struct) => {
        fn serialize_unit_struct(self, _: &'static str) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; unit_variant) => {
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; newtype_struct) => {
        fn serialize_newtype_struct<T: ?Sized + serde_core::Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; newtype_variant) => {
        fn serialize_newtype_variant<T: ?Sized + serde_core::Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> ::core::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; seq) => {
        fn serialize_seq(self, _: Option<usize>) -> ::core::result::Result<Self::SerializeSeq, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; tuple) => {
        fn serialize_tuple(self, _: usize) -> ::core::result::Result<Self::SerializeTuple, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; tuple_struct) => {
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> ::core::result::Result<Self::SerializeTupleStruct, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; tuple_variant) => {
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> ::core::result::Result<Self::SerializeTupleVariant, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; map) => {
        fn serialize_map(self, _: Option<usize>) -> ::core::result::Result<Self::SerializeMap, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; struct) => {
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> ::core::result::Result<Self::SerializeStruct, Self::Error> {
            Err($err)
        }
    };
    ($err:expr; struct_variant) => {
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> ::core::result::Result<Self::SerializeStructVariant, Self::Error> {
            Err($err)
        }
    };
}
