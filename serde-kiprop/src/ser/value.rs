//! The value serializers: the root (`&mut Serializer`) and one value written into a slot.

use super::compound::{MapInner, MapSer, SeqInner, SeqSer, StructInner, StructSer};
use super::leaf::LeafSer;
use super::{PLAIN_STRING_MAX, Serializer, Slot, mismatch, sf};
use crate::codec::{Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::Kind;
use crate::types::{MARKER, auto_type_code, marker_kind};
use serde_core::ser::{self, Impossible, Serialize};

/// Serializes one value into a slot.
pub(super) struct ValueSer<'a, 't> {
    pub(super) s: &'a mut Serializer<'t>,
    pub(super) slot: Slot<'t>,
    /// Class name from an enum variant (polymorphism), for structs whose name is not a class.
    pub(super) variant: Option<&'static str>,
}

impl<'a, 't> ser::Serializer for &'a mut Serializer<'t> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, 't>;
    type SerializeTuple = SeqSer<'a, 't>;
    type SerializeTupleStruct = SeqSer<'a, 't>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = MapSer<'a, 't>;
    type SerializeStruct = StructSer<'a, 't>;
    type SerializeStructVariant = StructSer<'a, 't>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i64(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u64(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_f32(v)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_f64(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_char(v)
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_none()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_some(v)
    }
    fn serialize_unit(self) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(self, name: &'static str, i: u32, variant: &'static str) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_unit_variant(name, i, variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, v: &T) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_newtype_struct(name, v)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<()> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_newtype_variant(name, i, variant, v)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 't>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_seq(len)
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a, 't>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_tuple(len)
    }
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<SeqSer<'a, 't>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_tuple_struct(name, len)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_tuple_variant(name, i, variant, len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 't>> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_map(len)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructSer<'a, 't>> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_struct(name, len)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, 't>> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_struct_variant(name, i, variant, len)
    }
}

impl<'a, 't> ser::Serializer for ValueSer<'a, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, 't>;
    type SerializeTuple = SeqSer<'a, 't>;
    type SerializeTupleStruct = SeqSer<'a, 't>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = MapSer<'a, 't>;
    type SerializeStruct = StructSer<'a, 't>;
    type SerializeStructVariant = StructSer<'a, 't>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline(always)]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Bool(v), Prim::Bool)
    }
    #[inline(always)]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v.into()), Prim::I8)
    }
    #[inline(always)]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v.into()), Prim::I16)
    }
    #[inline(always)]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v.into()), Prim::I32)
    }
    #[inline(always)]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v), Prim::I64)
    }
    #[inline(always)]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v.into()), Prim::U8)
    }
    #[inline(always)]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v.into()), Prim::U16)
    }
    #[inline(always)]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v.into()), Prim::U32)
    }
    #[inline(always)]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v), Prim::U64)
    }
    #[inline(always)]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.s.scalar(self.slot, Scalar::F32(v), Prim::F32)
    }
    #[inline(always)]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.s.scalar(self.slot, Scalar::F64(v), Prim::F64)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.s.string(&self.slot, v.encode_utf8(&mut buf))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        // Fast path: a `std::string` with nothing to write before it.
        if matches!(self.slot.kind, Kind::Prim(Prim::Str)) && self.slot.f & !sf::ELEMENT == 0 {
            if !self.s.compact && v.len() <= PLAIN_STRING_MAX {
                self.s.w.write_plain_string(v.as_bytes());
                return Ok(());
            }
            self.s.check_len(v.len(), true)?;
            self.s.w.write_string(v.as_bytes(), self.s.compact);
            return Ok(());
        }
        self.s.string(&self.slot, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.s.bytes(self.slot, v)
    }
    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.s.null(self.slot)
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        let mut slot = self.slot;
        if slot.is(sf::PRESENCE) {
            if slot.prop.is_some_and(|p| p.dynamic) || !matches!(slot.kind, Kind::Object(_) | Kind::Auto) {
                // The presence bit is written with the value.
                return v.serialize(ValueSer { s: self.s, slot, variant: None });
            }
            // A pointer: the presence layer is this Option; an inner Option means null.
            self.s.w.write_bool(true);
            slot.f &= !sf::PRESENCE;
        }
        v.serialize(ValueSer { s: self.s, slot, variant: None })
    }
    fn serialize_unit(self) -> Result<()> {
        self.s.null(self.slot)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.s.null(self.slot)
    }
    #[inline]
    fn serialize_unit_variant(self, _name: &'static str, i: u32, variant: &'static str) -> Result<()> {
        match self.slot.kind {
            Kind::Enum if !self.s.string_enums => match self.slot.prop.and_then(|p| p.variant_value(i, variant)) {
                // `enum_int` for a known option: the value as an unaligned u32.
                Some(v) => {
                    let patch = self.s.open(&self.slot, None)?;
                    self.s.w.write_bits(v, 32);
                    self.s.close(patch);
                    Ok(())
                }
                None => self.s.string(&self.slot, variant),
            },
            Kind::Enum | Kind::Prim(Prim::Str | Prim::WStr) => self.s.string(&self.slot, variant),
            _ => Err(mismatch(&self.slot, "a unit variant")),
        }
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, v: &T) -> Result<()> {
        let mut slot = self.slot;
        if slot.kind == Kind::Auto && name.starts_with(MARKER) {
            if let Some((kind, type_name)) = marker_kind(name) {
                slot.kind = kind;
                slot.auto_type = auto_type_code(type_name);
            }
        }
        v.serialize(ValueSer { s: self.s, slot, variant: None })
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<()> {
        match self.slot.kind {
            Kind::Object(_) | Kind::Auto => {
                v.serialize(ValueSer { s: self.s, slot: self.slot, variant: Some(variant) })
            }
            _ => Err(mismatch(&self.slot, "a newtype variant")),
        }
    }
    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 't>> {
        let len = len.ok_or_else(|| Error::new(ErrorKind::Unsupported("sequences of unknown length")))?;
        self.seq(len, true)
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a, 't>> {
        self.seq(len, false)
    }
    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqSer<'a, 't>> {
        self.seq(len, false)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(Error::new(ErrorKind::Unsupported("tuple variants")))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 't>> {
        match self.slot.kind {
            // A map in a container of two-property objects: one (key, value) object per entry.
            Kind::Object(Some(c)) if self.slot.is(sf::CONTAINER) && self.s.types.get(c).props.len() == 2 => {
                let len = len.ok_or_else(|| Error::new(ErrorKind::Unsupported("maps of unknown length")))?;
                self.s.check_len(len, false)?;
                let slot = self.slot;
                let patch = self.s.open(&slot, None)?;
                self.s.enter()?;
                self.s.w.write_len(len as u32, self.s.compact, false);
                let class = self.s.types.get(c);
                Ok(MapSer(MapInner::Pairs { s: self.s, slot: slot.element_of(), class, patch, state: None }))
            }
            Kind::Leaf(leaf) => Ok(MapSer(MapInner::Leaf(LeafSer::new(self.s, self.slot, leaf)?, None))),
            Kind::Object(_) | Kind::Auto => {
                Ok(MapSer(MapInner::Object { s: self.s, slot: self.slot, state: None, key: None }))
            }
            _ => Err(mismatch(&self.slot, "a map")),
        }
    }
    #[inline(always)]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<StructSer<'a, 't>> {
        // (The slot is read in place, field by field, not copied: the caller has just written it
        // field by field, and a whole-struct load of those stores stalls store forwarding.)
        let slot = &self.slot;
        match slot.kind {
            Kind::Object(_) => {
                let class = self.s.resolve_static(name, slot, self.variant)?;
                let state = self.s.begin_object(slot, class)?;
                Ok(StructSer(StructInner::Object(self.s, state)))
            }
            Kind::Leaf(leaf) => Ok(StructSer(StructInner::Leaf(LeafSer::new(self.s, *slot, leaf)?))),
            _ => self.struct_other(name),
        }
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, 't>> {
        ValueSer { s: self.s, slot: self.slot, variant: Some(variant) }.serialize_struct(variant, len)
    }
}

impl<'a, 't> ValueSer<'a, 't> {
    /// [`serialize_struct`](ser::Serializer::serialize_struct) for leaf and untyped slots.
    pub(super) fn struct_other(self, name: &'static str) -> Result<StructSer<'a, 't>> {
        let mut slot = self.slot;
        if name.starts_with(MARKER) && slot.kind == Kind::Auto {
            if let Some((Kind::Leaf(leaf), type_name)) = marker_kind(name) {
                slot.kind = Kind::Leaf(leaf);
                slot.auto_type = auto_type_code(type_name);
            }
        }
        match slot.kind {
            Kind::Leaf(leaf) => Ok(StructSer(StructInner::Leaf(LeafSer::new(self.s, slot, leaf)?))),
            Kind::Object(_) | Kind::Auto => {
                let class = self.s.resolve_static(name, &slot, self.variant)?;
                let state = self.s.begin_object(&slot, class)?;
                Ok(StructSer(StructInner::Object(self.s, state)))
            }
            _ => Err(mismatch(&slot, "a struct")),
        }
    }

    /// A sequence: the common case (a container property with nothing to write before it, plain
    /// length prefixes) inline, the rest out of line.
    #[inline(always)]
    pub(super) fn seq(self, len: usize, is_seq: bool) -> Result<SeqSer<'a, 't>> {
        let slot = self.slot;
        if is_seq && slot.f == sf::CONTAINER && !self.s.compact && len <= u32::MAX as usize && self.s.depth != 0 {
            // Length prefix, then the elements (`check_len` and `enter` with their answers known).
            self.s.depth -= 1;
            self.s.w.write_u32(len as u32);
            return Ok(SeqSer(SeqInner::Container { s: self.s, slot: slot.element_of(), patch: None }));
        }
        self.seq_slow(len, is_seq)
    }

    /// [`seq`](Self::seq) for everything else.
    #[inline(never)]
    fn seq_slow(self, len: usize, is_seq: bool) -> Result<SeqSer<'a, 't>> {
        let slot = self.slot;
        if is_seq && slot.f == sf::CONTAINER {
            // A container property with nothing to write before it: length prefix, elements.
            self.s.check_len(len, false)?;
            self.s.enter()?;
            if self.s.compact {
                self.s.w.write_len(len as u32, true, false);
            } else {
                self.s.w.write_u32(len as u32);
            }
            return Ok(SeqSer(SeqInner::Container { s: self.s, slot: slot.element_of(), patch: None }));
        }
        if let Kind::Leaf(leaf) = slot.kind {
            // A leaf struct as a tuple of its components; for a container property the sequence
            // is the container (of leaf structs), below.
            if !slot.is(sf::CONTAINER) {
                return Ok(SeqSer(SeqInner::Leaf(LeafSer::new(self.s, slot, leaf)?)));
            }
        }
        if slot.is(sf::ELEMENT) || slot.is(sf::ROOT) {
            return Err(mismatch(&slot, "a nested sequence"));
        }
        let dynamic = slot.prop.is_some_and(|p| p.dynamic || p.type_name.is_none());
        if is_seq || slot.prop.is_some_and(|p| p.dynamic) {
            if !dynamic {
                return Err(mismatch(&slot, "a sequence for a non-container property"));
            }
            self.s.check_len(len, false)?;
            // An `Auto` container's element type is unknown here: deep mode needs a type.
            let patch = self.s.open(&slot, None)?;
            self.s.enter()?;
            self.s.w.write_len(len as u32, self.s.compact, false);
            Ok(SeqSer(SeqInner::Container { s: self.s, slot: slot.element_of(), patch }))
        } else {
            // A fixed-size array or tuple: the elements back to back, no prefix.
            let patch = self.s.open(&slot, None)?;
            Ok(SeqSer(SeqInner::Fixed { s: self.s, slot: slot.element_of(), patch }))
        }
    }
}
