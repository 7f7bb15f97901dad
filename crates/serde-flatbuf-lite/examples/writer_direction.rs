//! The measurement behind the writer direction (README, "Writer: back to front").
//!
//! serde visits a parent before its children; FlatBuffers needs children at higher addresses than the
//! tables that point to them. A front-to-back writer must therefore know each table's inline layout before
//! serde has shown it the table's fields: either a layout pre-pass over the whole value (a second serde
//! traversal) or buffering every child and moving it behind its parent. This example times lite's whole
//! back-to-front encode against the *lower bound* of the pre-pass alone: a serde traversal that does
//! nothing but record one byte per value (no output bytes, no layout computed). Run with `cargo run --release --example
//! writer_direction`.

use std::hint::black_box;
use std::time::Instant;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Visits every value and records one byte per value (what a layout pre-pass must at least do: note each
/// field's kind and size for the second pass).
struct Count<'a>(&'a mut Vec<u8>);

type R = Result<(), std::fmt::Error>;

macro_rules! leaf {
    ($($m:ident($t:ty);)*) => {$(
        #[inline]
        fn $m(self, _v: $t) -> R {
            self.0.push(std::mem::size_of::<$t>() as u8);
            Ok(())
        }
    )*};
}

impl<'a> ser::Serializer for Count<'a> {
    type Ok = ();
    type Error = std::fmt::Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Impossible<(), std::fmt::Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), std::fmt::Error>;
    leaf! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64); serialize_f32(f32);
        serialize_f64(f64); serialize_char(char); serialize_str(&str); serialize_bytes(&[u8]);
    }
    fn serialize_none(self) -> R {
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> R {
        self.0.push(1);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, std::fmt::Error> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, std::fmt::Error> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, std::fmt::Error> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, std::fmt::Error> {
        Err(std::fmt::Error)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, std::fmt::Error> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, std::fmt::Error> {
        self.0.push(0);
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, std::fmt::Error> {
        Err(std::fmt::Error)
    }
}

macro_rules! compound {
    ($($tr:ident :: $m:ident $(($key:ty))?;)*) => {$(
        impl ser::$tr for Count<'_> {
            type Ok = ();
            type Error = std::fmt::Error;
            fn $m<T: ?Sized + Serialize>(&mut self, $(_k: $key,)? v: &T) -> R {
                v.serialize(Count(self.0))
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    )*};
}

compound! {
    SerializeSeq::serialize_element;
    SerializeTuple::serialize_element;
    SerializeTupleStruct::serialize_field;
    SerializeStruct::serialize_field(&'static str);
}

impl ser::SerializeMap for Count<'_> {
    type Ok = ();
    type Error = std::fmt::Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> R {
        k.serialize(Count(self.0))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        v.serialize(Count(self.0))
    }
    fn end(self) -> R {
        Ok(())
    }
}

fn measure<T: Serialize>(name: &str, value: &T, opts: &serde_flatbuf_lite::Options) {
    let runs = 30;
    let mut ser = serde_flatbuf_lite::Serializer::with_options(opts.clone());
    ser.serialize(value).unwrap();
    let t = Instant::now();
    for _ in 0..runs {
        black_box(ser.serialize(black_box(value)).unwrap().len());
    }
    let encode = t.elapsed() / runs;
    let mut record = Vec::new();
    let t = Instant::now();
    for _ in 0..runs {
        record.clear();
        black_box(value).serialize(Count(&mut record)).unwrap();
        black_box(&record);
    }
    let pass = t.elapsed() / runs;
    println!(
        "{name:>20}: lite encode {encode:>10.2?}; a minimal layout pre-pass {pass:>10.2?} = {:.0}% of it",
        100.0 * pass.as_secs_f64() / encode.as_secs_f64()
    );
}

fn main() {
    let opts = ["Address", "Vector3", "Triangle", "Abilities", "Vector2f", "Guidance", "Transform"]
        .into_iter()
        .fold(serde_flatbuf_lite::Options::new(), serde_flatbuf_lite::Options::inline_struct);
    use testkit::datasets::*;
    measure("log", &log::generate(LOG_FULL), &opts);
    measure("mesh", &mesh::generate(MESH_FULL), &opts);
    measure("minecraft_savedata", &minecraft::generate(MINECRAFT_FULL), &opts);
    measure("mk48", &mk48::generate(MK48_FULL), &opts);
}
