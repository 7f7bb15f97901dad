//! The serializer a property's value (or a container's element) is handed: two words (the
//! serializer and the property or slot), so it travels in registers and a plain number inlines to
//! its write. Anything but a number of the target's own type goes on as a [`ValueSer`] with the
//! target's slot.

use super::compound::{MapSer, SeqInner, SeqSer, StructInner, StructSer};
use super::value::ValueSer;
use super::{PLAIN_STRING_MAX, Serializer, Slot, from_raw, raw, sf};
use crate::codec::{Prim, Scalar};
use crate::error::{Error, Result};
use crate::schema::{Kind, PropertyDef};
use serde_core::ser::{self, Impossible, Serialize};

/// Where a value goes, as [`PropSer`] holds it: a property (at property level) or a slot kept
/// by the caller (a container's elements).
pub(super) trait Target<'t>: Copy {
    /// Whether a `prim` value is written as it is, with nothing before it.
    fn direct(self, prim: Prim) -> bool;
    /// The slot the value goes to (for everything but the direct write).
    fn slot(self, s: &Serializer<'t>) -> Slot<'t>;
    /// The class index when a struct here is an object of a known class with nothing written
    /// before it (no presence bit, no header, not a container, not the root).
    fn plain_object(self, s: &Serializer<'t>) -> Option<u32>;
    /// Deep mode, a property whose header the value writes: the property's hash, so that a
    /// direct value is written with its header in one go.
    #[inline(always)]
    fn deep_hash(self) -> Option<u32> {
        None
    }
    /// The element slot when a sequence here is a shallow container with nothing written
    /// before its length prefix (what `ValueSer::seq`'s fast case checks of the slot).
    #[inline(always)]
    fn plain_container(self, _s: &Serializer<'t>) -> Option<Slot<'t>> {
        None
    }
    /// Deep mode, a property whose header the value writes, holding one object of a known
    /// class (not a container): the class index, so that a struct of that class is written
    /// with the header in one go.
    #[inline(always)]
    fn deep_object(self) -> Option<u32> {
        None
    }
}

/// A shallow-mode property (deep mode's is [`DeepProp`]).
impl<'t> Target<'t> for &'t PropertyDef {
    #[inline(always)]
    fn direct(self, prim: Prim) -> bool {
        self.direct == Some(prim)
    }
    /// As the schema says: a presence bit, a container.
    #[inline(always)]
    fn slot(self, _: &Serializer<'t>) -> Slot<'t> {
        Slot { prop: Some(self), kind: self.kind, auto_type: 0, f: self.slot_bits }
    }
    #[inline(always)]
    fn plain_object(self, _: &Serializer<'t>) -> Option<u32> {
        // No presence bit, no container.
        self.plain_class[0]
    }
    #[inline(always)]
    fn plain_container(self, _: &Serializer<'t>) -> Option<Slot<'t>> {
        // (The slot's bits are `slot_bits`: a container, no presence bit.)
        (self.slot_bits == sf::CONTAINER).then_some(Slot {
            prop: Some(self),
            kind: self.kind,
            auto_type: 0,
            f: sf::ELEMENT,
        })
    }
}

impl<'t> Target<'t> for &Slot<'t> {
    #[inline(always)]
    fn direct(self, prim: Prim) -> bool {
        // `Serializer::scalar`'s fast case without the presence bit.
        matches!(self.kind, Kind::Prim(p) if p == prim) && self.f & !sf::ELEMENT == 0
    }
    #[inline(always)]
    fn slot(self, _: &Serializer<'t>) -> Slot<'t> {
        *self
    }
    #[inline(always)]
    fn plain_object(self, _: &Serializer<'t>) -> Option<u32> {
        match self.kind {
            Kind::Object(Some(c)) if self.f & (sf::CONTAINER | sf::HEADER | sf::PRESENCE | sf::ROOT) == 0 => Some(c),
            _ => None,
        }
    }
}

/// A deep-mode property, whose header is not written yet: the value writes it. A value of the
/// property's own type goes out with its header in one append (the size is known up front), an
/// object of the property's class with the header, its tag and its size placeholder in one
/// append (both sizes are filled in at the object's end), a container with header and length
/// together; anything else goes on with a slot whose header the value writes ([`sf::HEADER`]),
/// as for untyped properties (`None` then writes nothing, which leaves the property out).
#[derive(Clone, Copy)]
pub(super) struct DeepProp<'t>(pub(super) &'t PropertyDef);

impl<'t> Target<'t> for DeepProp<'t> {
    /// (Deep mode writes no presence bit, so a DELTA_ENCODE scalar is as plain as any.)
    #[inline(always)]
    fn direct(self, prim: Prim) -> bool {
        self.0.deep_direct == Some(prim)
    }
    #[inline(always)]
    fn slot(self, _: &Serializer<'t>) -> Slot<'t> {
        Slot { prop: Some(self.0), kind: self.0.kind, auto_type: 0, f: sf::HEADER | (self.0.slot_bits & sf::CONTAINER) }
    }
    #[inline(always)]
    fn plain_object(self, _: &Serializer<'t>) -> Option<u32> {
        None
    }
    #[inline(always)]
    fn deep_hash(self) -> Option<u32> {
        Some(self.0.hash)
    }
    #[inline(always)]
    fn deep_object(self) -> Option<u32> {
        self.0.plain_class[1]
    }
}

/// Serializes a value into a [`Target`]: a property of the object being written (in shallow mode
/// the presence bit of DELTA_ENCODE is written with the value, as the slot says; in deep mode the
/// value writes the header, see [`DeepProp`]), or a container's element.
pub(super) struct PropSer<'a, 't, K> {
    pub(super) s: &'a mut Serializer<'t>,
    pub(super) to: K,
}

impl<'a, 't, K: Target<'t>> PropSer<'a, 't, K> {
    #[inline(always)]
    fn value(self) -> ValueSer<'a, 't> {
        let slot = self.to.slot(self.s);
        ValueSer { s: self.s, slot, variant: None }
    }

    /// A number or bool of the target's own type is written as it is; the rest goes through
    /// the slot ([`ValueSer`]), which decides exactly as before.
    #[inline(always)]
    fn scalar(self, prim: Prim, v: Scalar) -> Result<()> {
        if self.to.direct(prim) {
            match self.to.deep_hash() {
                Some(hash) => self.s.w.write_deep_scalar(hash, prim, v),
                None => self.s.w.write_scalar(prim, v),
            }
            return Ok(());
        }
        let (tag, bits) = raw(v);
        self.scalar_slow(prim, tag, bits)
    }

    /// (The value comes as two integers, not as a `Scalar`, which would be passed through
    /// memory: the inline part stays a few register moves, small enough for serde's number
    /// impls to inline it.)
    #[inline(never)]
    fn scalar_slow(self, prim: Prim, tag: u8, bits: u64) -> Result<()> {
        let vs = self.value();
        vs.s.scalar(vs.slot, from_raw(tag, bits), prim)
    }

    /// [`serialize_str`](ser::Serializer::serialize_str) past its inline cases: a plain string
    /// in compact mode or over the length limit, and everything that goes through the slot.
    #[inline(never)]
    fn str_slow(self, v: &str) -> Result<()> {
        if self.to.direct(Prim::Str) && self.to.deep_hash().is_none() {
            self.s.check_len(v.len(), true)?;
            self.s.w.write_string(v.as_bytes(), self.s.compact);
            return Ok(());
        }
        ser::Serializer::serialize_str(self.value(), v)
    }
}

/// Number methods: the direct write when the property is that number type.
macro_rules! prop_num {
    ($($f:ident($t:ty) => $prim:expr, $e:expr;)*) => {
        $(#[inline(always)]
        fn $f(self, v: $t) -> Result<()> {
            #[allow(clippy::redundant_closure_call)]
            self.scalar($prim, ($e)(v))
        })*
    };
}

impl<'a, 't, K: Target<'t>> ser::Serializer for PropSer<'a, 't, K> {
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

    prop_num! {
        serialize_bool(bool) => Prim::Bool, Scalar::Bool;
        serialize_i8(i8) => Prim::I8, |v: i8| Scalar::Int(v.into());
        serialize_i16(i16) => Prim::I16, |v: i16| Scalar::Int(v.into());
        serialize_i32(i32) => Prim::I32, |v: i32| Scalar::Int(v.into());
        serialize_i64(i64) => Prim::I64, Scalar::Int;
        serialize_u8(u8) => Prim::U8, |v: u8| Scalar::UInt(v.into());
        serialize_u16(u16) => Prim::U16, |v: u16| Scalar::UInt(v.into());
        serialize_u32(u32) => Prim::U32, |v: u32| Scalar::UInt(v.into());
        serialize_u64(u64) => Prim::U64, Scalar::UInt;
        serialize_f32(f32) => Prim::F32, Scalar::F32;
        serialize_f64(f64) => Prim::F64, Scalar::F64;
    }
    fn serialize_char(self, v: char) -> Result<()> {
        ser::Serializer::serialize_char(self.value(), v)
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        // `ValueSer::serialize_str`'s fast case: a `std::string` with nothing before it.
        if self.to.direct(Prim::Str) {
            if let Some(hash) = self.to.deep_hash() {
                self.s.check_len(v.len(), true)?;
                if !self.s.compact {
                    // Aligned u16 length and the bytes: the size is known up front.
                    self.s.w.write_deep_string(hash, v.as_bytes());
                    return Ok(());
                }
                let patch = self.s.header(hash);
                self.s.w.write_string(v.as_bytes(), true);
                self.s.close(Some(patch));
                return Ok(());
            }
            // (`check_len`'s answer for plain prefixes; compact ones and overlong strings go
            // out of line.)
            if !self.s.compact && v.len() <= PLAIN_STRING_MAX {
                self.s.w.write_plain_string(v.as_bytes());
                return Ok(());
            }
        }
        self.str_slow(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        ser::Serializer::serialize_bytes(self.value(), v)
    }
    #[inline]
    fn serialize_none(self) -> Result<()> {
        ser::Serializer::serialize_none(self.value())
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        if self.to.deep_hash().is_some() {
            // A deep slot has no presence bit: `ValueSer::serialize_some` would hand `v` the
            // same slot, and this target falls back to it for all but its direct writes.
            return v.serialize(self);
        }
        ser::Serializer::serialize_some(self.value(), v)
    }
    fn serialize_unit(self) -> Result<()> {
        ser::Serializer::serialize_unit(self.value())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        ser::Serializer::serialize_unit_struct(self.value(), name)
    }
    #[inline]
    fn serialize_unit_variant(self, name: &'static str, i: u32, variant: &'static str) -> Result<()> {
        if let Some(hash) = self.to.deep_hash() {
            // `ValueSer::serialize_unit_variant`'s known option, with its header: the value is
            // an unaligned u32 right after the aligned header, so an aligned one.
            let slot = self.to.slot(self.s);
            if slot.kind == Kind::Enum && !self.s.string_enums {
                if let Some(v) = slot.prop.and_then(|p| p.variant_value(i, variant)) {
                    self.s.w.write_deep_scalar(hash, Prim::U32, Scalar::UInt(u64::from(v)));
                    return Ok(());
                }
            }
        }
        ser::Serializer::serialize_unit_variant(self.value(), name, i, variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, v: &T) -> Result<()> {
        ser::Serializer::serialize_newtype_struct(self.value(), name, v)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<()> {
        ser::Serializer::serialize_newtype_variant(self.value(), name, i, variant, v)
    }
    #[inline(always)]
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 't>> {
        if let Some(n) = len {
            // `ValueSer::seq`'s fast case for a shallow container property, without building
            // the slot `ValueSer` would take: length prefix, then the elements.
            let s = &mut *self.s;
            if let Some(slot) = self.to.plain_container(s) {
                if !s.compact && n <= u32::MAX as usize && s.depth != 0 {
                    s.depth -= 1;
                    s.w.write_u32(n as u32);
                    return Ok(SeqSer(SeqInner::Container { s: self.s, slot, patch: None }));
                }
            }
        }
        let hash = self.to.deep_hash();
        let vs = self.value();
        if let (Some(hash), Some(n)) = (hash, len) {
            // `ValueSer::seq`'s fast case (a container, plain length prefixes) for a deep
            // property: header and length, the size patched at the end.
            let s = vs.s;
            if vs.slot.f == sf::HEADER | sf::CONTAINER && !s.compact && n <= u32::MAX as usize && s.depth != 0 {
                s.depth -= 1;
                let patch = s.w.write_deep_container_header(hash, n as u32);
                let slot = Slot { f: sf::ELEMENT, ..vs.slot };
                return Ok(SeqSer(SeqInner::Container { s, slot, patch: Some(patch) }));
            }
            return ser::Serializer::serialize_seq(ValueSer { s, slot: vs.slot, variant: None }, len);
        }
        ser::Serializer::serialize_seq(vs, len)
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a, 't>> {
        ser::Serializer::serialize_tuple(self.value(), len)
    }
    #[inline]
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<SeqSer<'a, 't>> {
        ser::Serializer::serialize_tuple_struct(self.value(), name, len)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>> {
        ser::Serializer::serialize_tuple_variant(self.value(), name, i, variant, len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 't>> {
        ser::Serializer::serialize_map(self.value(), len)
    }
    #[inline(always)]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructSer<'a, 't>> {
        // An object of the target's class, remembered by name, with nothing before it: what
        // `ValueSer::serialize_struct` does for it (`resolve_static`'s first test, then
        // `begin_object` for a slot without prefix), without the slot.
        if let Some(c) = self.to.plain_object(self.s) {
            let class = self.s.types.get(c);
            if class.rust_name.matches(name) {
                self.s.enter()?;
                let state = self.s.begin_plain(class);
                return Ok(StructSer(StructInner::Object(self.s, state)));
            }
        }
        if let (Some(c), Some(hash)) = (self.to.deep_object(), self.to.deep_hash()) {
            // The same for a deep property holding an object, with the property's header:
            // `ValueSer::serialize_struct` would write the header (`object_prefix`), then the
            // object, and patch the header's size at the object's end.
            let class = self.s.types.get(c);
            if class.rust_name.matches(name) {
                self.s.enter()?;
                let state = self.s.begin_deep_property(hash, class);
                return Ok(StructSer(StructInner::Object(self.s, state)));
            }
        }
        ser::Serializer::serialize_struct(self.value(), name, len)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, 't>> {
        ser::Serializer::serialize_struct_variant(self.value(), name, i, variant, len)
    }
}
