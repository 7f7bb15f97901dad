//! The serde `Serializer` of [`Serializer`]: what each `serialize_*` call writes, with O3DE's
//! layout of numbers, strings and bytes, and the starts of containers, structs and variants.

use serde_core::ser::{self, Serialize};

use super::compound::{ElementsSplitter, Map, Seq, Struct, Tuple, Variant};
use super::poly::PolyWriter;
use super::sort::sort_array;
use super::store::{Ctx, Def, Serializer, same_float};
use super::tree::DNode;
use crate::channel::{self, Want};
use crate::error::{Error, Result};
use crate::fmt::{base64_encode, write_str};
use crate::markers::{ELEMENTS, NATIVE, POLY, RAW, UNORDERED};

/// O3DE's tolerance for default comparisons of floats (`IsClose(a, b, FLT_EPSILON)`).
pub(super) const EPSILON: f64 = f32::EPSILON as f64;
/// ... and of doubles (`DBL_EPSILON`).
pub(super) const EPSILON_F64: f64 = f64::EPSILON;

impl<'a, 't> ser::Serializer for &'a mut Serializer<'t> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a, 't>;
    type SerializeTuple = Tuple<'a, 't>;
    type SerializeTupleStruct = Tuple<'a, 't>;
    type SerializeTupleVariant = Variant<'t, Tuple<'a, 't>>;
    type SerializeMap = Map<'a, 't>;
    type SerializeStruct = Struct<'a, 't>;
    type SerializeStructVariant = Variant<'t, Struct<'a, 't>>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        let is_def = self.is_default(!v, |n| matches!(n, DNode::Bool(d) if *d == v));
        if self.leaf(is_def, !v) {
            self.out.extend_from_slice(b"{}");
        } else {
            self.out.extend_from_slice(if v { b"true" } else { b"false" });
        }
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i32(self, v: i32) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.int(v)
    }

    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u128(self, v: u128) -> Result<()> {
        match i128::try_from(v) {
            Ok(i) => self.int(i),
            Err(_) => {
                let is_def = self.is_default(false, |n| matches!(n, DNode::U128(d) if *d == v));
                self.leaf(is_def, false);
                write_str(&mut self.out, itoa::Buffer::new().format(v));
                Ok(())
            }
        }
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        let wide = f64::from(v);
        let eps = if self.settings.exact { EPSILON } else { 0.0 };
        self.float(wide, eps, |n| match n {
            DNode::F32(d) => same_float(wide, f64::from(*d), eps),
            DNode::F64(d) => same_float(wide, *d, eps),
            _ => false,
        })
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        let eps = if self.settings.exact { EPSILON_F64 } else { 0.0 };
        self.float(v, eps, |n| match n {
            DNode::F64(d) => same_float(v, *d, eps),
            DNode::F32(d) => same_float(v, f64::from(*d), eps),
            _ => false,
        })
    }

    fn serialize_char(self, v: char) -> Result<()> {
        let natural = v == '\0';
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Char(d) if *d == v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_str(&mut self.out, v.encode_utf8(&mut [0; 4]));
        }
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        let natural = v.is_empty();
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Str(d) if **d == *v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_str(&mut self.out, v);
        }
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let natural = v.is_empty();
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Bytes(d) if **d == *v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_str(&mut self.out, &base64_encode(v));
        }
        Ok(())
    }

    fn serialize_none(self) -> Result<()> {
        let is_def = self.is_default(true, |n| matches!(n, DNode::None));
        self.leaf(is_def, true);
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        let (ctx, def) = (self.ctx, self.def);
        let inner = match def {
            Def::Tree(DNode::Some(d)) => Def::Tree(d),
            Def::Tree(_) | Def::Fresh => Def::Fresh,
            Def::Full => Def::Full,
        };
        let (is_def, _) = self.nested(value, Ctx::Nested, inner)?;
        self.ctx = ctx;
        self.is_def = is_def && matches!(def, Def::Tree(DNode::Some(_)));
        self.natural = false;
        Ok(())
    }

    fn serialize_unit(self) -> Result<()> {
        let is_def = self.is_default(true, |n| matches!(n, DNode::Unit));
        self.leaf(is_def, true);
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _name: &'static str, index: u32, variant: &'static str) -> Result<()> {
        let is_def = self.is_default(false, |n| matches!(n, DNode::Variant(i, _) if *i == index));
        self.leaf(is_def, false);
        write_str(&mut self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> Result<()> {
        if name.starts_with(NATIVE) {
            return self.native(name, value);
        }
        if name == RAW {
            return self.raw(value);
        }
        if name == POLY {
            return self.poly(value);
        }
        if name == ELEMENTS {
            return channel::with(Want::ElementDefaults, true, || {
                value.serialize(ElementsSplitter { ser: self, default: None })
            });
        }
        if name == UNORDERED {
            let start = self.out.len();
            value.serialize(&mut *self)?;
            if self.out.get(start) == Some(&b'[') {
                sort_array(&mut self.out, start)?;
            }
            return Ok(());
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let (ctx, def) = (self.ctx, self.def);
        let inner = match def {
            Def::Tree(DNode::Variant(i, d)) if *i == index => Def::Tree(d),
            _ => Def::Full,
        };
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
        let (is_def, _) = self.nested(value, Ctx::Nested, inner)?;
        self.out.push(b'}');
        self.ctx = ctx;
        self.is_def = is_def && matches!(inner, Def::Tree(_));
        self.natural = false;
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        let elements = self.elements.take().map_or(Def::Fresh, Def::Tree);
        let start = self.out.len();
        self.out.push(b'[');
        Ok(Seq { ser: self, start, ctx, def, elements, count: 0 })
    }

    fn serialize_tuple(self, _len: usize) -> Result<Tuple<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        let start = self.out.len();
        self.out.push(b'[');
        Ok(Tuple { ser: self, start, ctx, def, index: 0, all_def: true, all_natural: true })
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Tuple<'a, 't>> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'t, Tuple<'a, 't>>> {
        let (ctx, def) = self.open_variant(index, variant);
        let inner = self.serialize_tuple(len)?;
        Ok(Variant { inner, ctx, def, index })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        let values = self.elements.take().map_or(Def::Fresh, Def::Tree);
        let start = self.out.len();
        self.out.push(b'{');
        Ok(Map {
            ser: self,
            start,
            ctx,
            def,
            count: 0,
            array: false,
            sorted: true,
            previous_key: (0, 0),
            default_keys: Vec::new(),
            entry_start: 0,
            values,
        })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Struct<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        self.out.push(b'{');
        let fields = match def {
            Def::Tree(DNode::Struct(fields)) => Some(fields.as_slice()),
            _ => None,
        };
        Ok(Struct { ser: self, ctx, def, fields, cursor: 0, first: true, all_def: true })
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'t, Struct<'a, 't>>> {
        let (ctx, def) = self.open_variant(index, variant);
        let inner = self.serialize_struct(variant, len)?;
        Ok(Variant { inner, ctx, def, index })
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

impl<'t> Serializer<'t> {
    /// Writes `{"Variant":` and sets the payload's default; returns the outer context and default.
    pub(super) fn open_variant(&mut self, index: u32, variant: &'static str) -> (Ctx, Def<'t>) {
        let (ctx, def) = (self.ctx, self.def);
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
        self.ctx = Ctx::Nested;
        self.def = match def {
            Def::Tree(DNode::Variant(i, d)) if *i == index => Def::Tree(d),
            _ => Def::Full,
        };
        (ctx, def)
    }

    /// A `$type` object: `$type` first, then the fields of the type, compared with the default's
    /// fields when the default has the same type.
    pub(super) fn poly<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let (ctx, def) = (self.ctx, self.def);
        let start = self.out.len();
        self.ctx = Ctx::Member;
        self.def = def;
        channel::with(Want::PolyDefaults, true, || value.serialize(PolyWriter { ser: &mut *self }))?;
        let is_def = self.is_def;
        self.finish_compound(start, ctx, is_def && !matches!(def, Def::Full), false);
        Ok(())
    }
}
