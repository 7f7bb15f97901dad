//! The serde `Serializer`: Rust values → Godot Variant bytes.
//!
//! The output always goes to a `Vec<u8>`: Godot puts element counts before the elements, and
//! serde does not always know them up front (`serialize_seq(None)`), so counts are patched in
//! place. [`Options::to_writer`](crate::Options::to_writer) encodes into memory and writes once.

mod compound;
mod keyed;
mod macros;
mod packed;
mod payload;
mod structs;
mod typed;
mod word;
mod writer;

use serde_core::ser::{self, Serialize};

pub use compound::{Map, Seq};
pub use structs::Struct;
pub use writer::{Output, Serializer, SizeCounter, SliceOutput};

use crate::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::magic::{self, Magic};
use crate::options::{Options, UnitVariants};
use crate::wire::{self, FLAG_OBJECT_AS_ID};
use macros::int_methods;
use packed::Packed;
use payload::{Accept, Raw};
use typed::{TypeSpec, TypedBody, TypedCapture};
use writer::{BOOL, FLOAT, NIL};

// The encoding entry points of `Options`: they live here, with the work, so that the settings
// do not depend on the encoder.
impl Options {
    /// Encodes `value` into a new vector.
    pub fn to_vec<T: Serialize + ?Sized>(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(128);
        self.append(value, &mut out)?;
        Ok(out)
    }

    /// Appends the encoding of `value` to `out` (which may be reused between calls).
    pub fn append<T: Serialize + ?Sized>(&self, value: &T, out: &mut Vec<u8>) -> Result<()> {
        value.serialize(&mut Serializer::with_options(out, *self))
    }

    /// Encodes `value` at the start of `buf` and returns the number of bytes written, without
    /// allocating. A `buf` too small is [`ErrorKind::SizeLimit`] with the size needed (`size`)
    /// and `buf`'s length (`limit`); what was written to `buf` is then unspecified.
    pub fn to_slice<T: Serialize + ?Sized>(&self, value: &T, buf: &mut [u8]) -> Result<usize> {
        let mut out = SliceOutput::new(buf);
        value.serialize(&mut Serializer::with_output(&mut out, *self))?;
        if out.fits() {
            Ok(out.len())
        } else {
            Err(Error::new(ErrorKind::SizeLimit { size: out.len() as u64, limit: out.capacity() }))
        }
    }

    /// The number of bytes [`to_vec`](Options::to_vec) would produce, computed without writing
    /// or allocating. (Typed-container element types are checked by the encoding itself, not
    /// here.)
    pub fn serialized_size<T: Serialize + ?Sized>(&self, value: &T) -> Result<usize> {
        let mut out = SizeCounter::default();
        value.serialize(&mut Serializer::with_output(&mut out, *self))?;
        Ok(out.len())
    }

    /// Encodes `value` into `writer`. The value is encoded in memory first (Godot's container
    /// counts come before their elements), then written with one `write_all`.
    pub fn to_writer<W: std::io::Write, T: Serialize + ?Sized>(&self, mut writer: W, value: &T) -> Result<()> {
        let bytes = self.to_vec(value)?;
        writer.write_all(&bytes)?;
        Ok(())
    }
}

impl<'s, 'a, O: Output> ser::Serializer for &'s mut Serializer<'a, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'s, 'a, O>;
    type SerializeTuple = Seq<'s, 'a, O>;
    type SerializeTupleStruct = Seq<'s, 'a, O>;
    type SerializeTupleVariant = Seq<'s, 'a, O>;
    type SerializeMap = Map<'s, 'a, O>;
    type SerializeStruct = Struct<'s, 'a, O>;
    type SerializeStructVariant = Struct<'s, 'a, O>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        let word = BOOL as u64 | ((v as u64) << 32);
        self.out.put(&word.to_le_bytes());
        Ok(())
    }

    int_methods!(int_value; serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32;
        checked serialize_i128: i128, serialize_u64: u64, serialize_u128: u128);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        let word = FLOAT as u64 | ((v.to_bits() as u64) << 32);
        self.out.put(&word.to_le_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.string(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let id = self.id(VariantType::PackedByteArray)?;
        wire::put_str_value(&mut self.out, id, v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        wire::put_header(&mut self.out, NIL);
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        wire::put_header(&mut self.out, NIL);
        Ok(())
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        match magic::lookup(name) {
            Some(Magic::Callable) => self.header(VariantType::Callable, 0),
            _ => self.serialize_unit(),
        }
    }

    fn serialize_unit_variant(self, _name: &'static str, index: u32, variant: &'static str) -> Result<()> {
        match self.opts.unit_variants {
            UnitVariants::Name => self.string(variant),
            UnitVariants::Index => {
                self.int(index as i64);
                Ok(())
            }
        }
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<()> {
        let Some(magic) = magic::lookup(name) else {
            return value.serialize(self);
        };
        match magic {
            Magic::StringName => {
                self.header(VariantType::StringName, 0)?;
                value.serialize(Raw::new(&mut self.out, Accept::STR))
            }
            Magic::Rid => {
                self.header(VariantType::Rid, 0)?;
                if self.godot4() { value.serialize(Raw::new(&mut self.out, Accept::U64)) } else { Ok(()) }
            }
            Magic::ObjectId => {
                self.header(VariantType::Object, FLAG_OBJECT_AS_ID)?;
                value.serialize(Raw::new(&mut self.out, Accept::U64))
            }
            Magic::Packed(ty) => {
                let id = self.id(ty)?;
                value.serialize(Packed { ser: self, id, ty })
            }
            Magic::ArrayOf(ty) => value.serialize(TypedBody::array(self, TypeSpec::Builtin(ty))),
            Magic::DictKey(ty) => value.serialize(TypedBody::dict(self, Some(TypeSpec::Builtin(ty)), None)),
            Magic::DictValue(ty) => value.serialize(TypedBody::dict(self, None, Some(TypeSpec::Builtin(ty)))),
            Magic::TypedArray | Magic::TypedDictionary => {
                value.serialize(TypedCapture { ser: self, dict: magic == Magic::TypedDictionary })
            }
            _ => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.begin_variant(variant)?;
        value.serialize(&mut *self)?;
        self.depth -= 1;
        Ok(())
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'s, 'a, O>> {
        self.begin_array(len)
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Seq<'s, 'a, O>> {
        self.begin_array(Some(len))
    }

    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'s, 'a, O>> {
        self.begin_array(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'s, 'a, O>> {
        self.begin_variant(variant)?;
        let mut seq = self.begin_array(Some(len))?;
        seq.open.levels = 2;
        Ok(seq)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a, O>> {
        self.begin_dict(len)
    }

    #[inline(always)]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Struct<'s, 'a, O>> {
        match magic::lookup(name) {
            None => self.begin_struct(len, 0),
            Some(Magic::Math(ty)) => self.math(ty),
            Some(magic) => self.magic_struct(magic, len),
        }
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Struct<'s, 'a, O>> {
        self.begin_variant(variant)?;
        self.begin_struct(len, 1)
    }
}
