//! Leaf structs (`Vector3D`, `Color`, `Rect`, …): components collected by name or position.

use super::{Serializer, Slot, fits, mismatch, sf};
use crate::codec::{Leaf, Prim, Scalar, same_short};
use crate::error::{Error, Result};
use crate::schema::Kind;
use serde_core::ser::{self, Impossible, Serialize};

/// A leaf struct being collected (components can arrive by name in any order). The components
/// collected so far are in the serializer's [`LeafScratch`] (leaf structs do not nest), so this
/// stays small to move around.
#[doc(hidden)]
pub struct LeafSer<'a, 't> {
    pub(super) s: &'a mut Serializer<'t>,
    pub(super) slot: Slot<'t>,
    pub(super) leaf: Leaf,
}

/// The state of the leaf struct being written: its components so far.
#[derive(Clone, Copy, Default)]
pub(super) struct LeafScratch {
    /// Components as their 32-bit patterns (every leaf component is 8 or 32 bits wide).
    vals: [u32; 9],
    /// The field expected next (fields usually arrive in wire order).
    next_field: u8,
    /// The next component.
    next: u8,
    /// The components written, one bit each.
    filled: u16,
}

impl<'a, 't> LeafSer<'a, 't> {
    #[inline(always)]
    pub(super) fn new(s: &'a mut Serializer<'t>, slot: Slot<'t>, leaf: Leaf) -> Result<Self> {
        if slot.is(sf::CONTAINER) {
            return Err(mismatch(&slot, "a single leaf struct for a container property"));
        }
        s.leaf.next_field = 0;
        s.leaf.next = 0;
        s.leaf.filled = 0;
        Ok(LeafSer { s, slot, leaf })
    }

    /// One named field. Fast path: the field after the previous one (fields usually arrive in
    /// wire order).
    #[inline(always)]
    pub(super) fn field<T: ?Sized + Serialize>(&mut self, key: &str, v: &T) -> Result<()> {
        let i = usize::from(self.s.leaf.next_field);
        match self.leaf.fields().get(i) {
            Some(f) if same_short(f, key) => {
                self.s.leaf.next = (i * self.leaf.group()) as u8;
                self.s.leaf.next_field += 1;
                v.serialize(LeafElemSer { l: self })
            }
            _ => self.field_slow(key, v),
        }
    }

    /// [`field`](Self::field) for a field out of wire order, or a `$`-prefixed map key.
    #[inline(never)]
    fn field_slow<T: ?Sized + Serialize>(&mut self, key: &str, v: &T) -> Result<()> {
        if key.starts_with('$') {
            return Ok(());
        }
        let i = self.leaf.fields().iter().position(|f| *f == key).ok_or_else(|| {
            Error::mismatch(self.slot.name(), format!("a field of {}, got {key:?}", self.leaf.type_name()))
        })?;
        self.s.leaf.next_field = (i + 1) as u8;
        self.s.leaf.next = (i * self.leaf.group()) as u8;
        v.serialize(LeafElemSer { l: self })
    }

    /// Stores the next component as its 32-bit pattern when it is the component type itself
    /// (`bits`), else converts and checks it ([`push`](Self::push)).
    #[inline(always)]
    fn push_exact(&mut self, prim: Prim, bits: u32, v: Scalar) -> Result<()> {
        let next = usize::from(self.s.leaf.next);
        if self.leaf.component() == prim && next < self.leaf.len() {
            let st = &mut self.s.leaf;
            st.vals[next] = bits;
            st.filled |= 1 << next;
            st.next += 1;
            return Ok(());
        }
        self.push(v)
    }

    #[inline(never)]
    pub(super) fn push(&mut self, v: Scalar) -> Result<()> {
        let next = usize::from(self.s.leaf.next);
        if next >= self.leaf.len() {
            return Err(Error::mismatch(self.slot.name(), format!("{} components", self.leaf.len())));
        }
        let prim = self.leaf.component();
        if !fits(prim, v) {
            return Err(Error::mismatch(self.slot.name(), format!("a {} component, got {v:?}", prim.type_name())));
        }
        let st = &mut self.s.leaf;
        st.vals[next] = if prim == Prim::F32 { v.as_f32().to_bits() } else { v.as_bits() as u32 };
        st.filled |= 1 << next;
        st.next += 1;
        Ok(())
    }

    #[inline]
    pub(super) fn finish(&mut self) -> Result<()> {
        let len = self.leaf.len();
        if self.s.leaf.filled != (1u16 << len) - 1 {
            return Err(self.incomplete());
        }
        let patch = match self.slot.prop {
            _ if self.slot.f & (sf::PRESENCE | sf::HEADER) == 0 => None,
            // A deep property with a declared type (this leaf: `Auto` is the only kind a leaf
            // slot's property can have besides its own): its header's hash is the property's
            // and the size is known up front (every component is aligned), so no patch.
            Some(p) if self.slot.f == sf::HEADER && self.slot.auto_type == 0 && p.kind != Kind::Auto => {
                let vals = &self.s.leaf.vals;
                let u8s = self.leaf.component() == Prim::U8;
                if !u8s && len == 2 {
                    // Two 32-bit components (`Point<float>`, `Vector2D`, `Size<int>`, …): the
                    // header and the components in one append.
                    self.s.w.write_deep_u64(p.hash, u64::from(vals[0]) | u64::from(vals[1]) << 32);
                    return Ok(());
                }
                let width = if u8s { 8 } else { 32 };
                self.s.w.write_deep_header_sized(p.hash, width * len as u32);
                None
            }
            _ => self.s.open(&self.slot, Some(self.leaf.type_name()))?,
        };
        let vals = &self.s.leaf.vals;
        let w = &mut self.s.w;
        // (The component type is looked at here, not once before the header: that costs the
        // case without a header five instructions.)
        match (self.leaf.component() == Prim::U8, len) {
            // The usual shapes in one write each.
            (false, 2) => w.write_u64(u64::from(vals[0]) | u64::from(vals[1]) << 32),
            (false, 4) => {
                w.write_u64(u64::from(vals[0]) | u64::from(vals[1]) << 32);
                w.write_u64(u64::from(vals[2]) | u64::from(vals[3]) << 32);
            }
            (true, 4) => {
                w.write_u32(vals[0] & 0xFF | (vals[1] & 0xFF) << 8 | (vals[2] & 0xFF) << 16 | (vals[3] & 0xFF) << 24)
            }
            (true, _) => {
                for v in &vals[..len] {
                    w.write_u8(*v as u8);
                }
            }
            (false, _) => {
                for v in &vals[..len] {
                    w.write_u32(*v);
                }
            }
        }
        self.s.close(patch);
        Ok(())
    }

    #[cold]
    fn incomplete(&self) -> Error {
        Error::mismatch(self.slot.name(), format!("all components of {}", self.leaf.type_name()))
    }
}

/// One component (or a row of components) of a leaf struct.
pub(super) struct LeafElemSer<'b, 'a, 't> {
    pub(super) l: &'b mut LeafSer<'a, 't>,
}

macro_rules! leaf_num {
    ($($f:ident($t:ty) => $e:expr;)*) => {
        $(fn $f(self, v: $t) -> Result<()> { #[allow(clippy::redundant_closure_call)] self.l.push(($e)(v)) })*
    };
}

/// The component types of leaf structs (32-bit and 8-bit): stored as they are, without a range check.
macro_rules! leaf_exact {
    ($($f:ident($t:ty) => $prim:expr, $bits:expr, $e:expr;)*) => {
        $(#[inline(always)]
        fn $f(self, v: $t) -> Result<()> {
            #[allow(clippy::redundant_closure_call)]
            self.l.push_exact($prim, ($bits)(v), ($e)(v))
        })*
    };
}

impl<'b, 'a, 't> ser::Serializer for LeafElemSer<'b, 'a, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    leaf_num! {
        serialize_i8(i8) => |v: i8| Scalar::Int(v.into());
        serialize_i16(i16) => |v: i16| Scalar::Int(v.into());
        serialize_i64(i64) => Scalar::Int;
        serialize_u16(u16) => |v: u16| Scalar::UInt(v.into());
        serialize_u64(u64) => Scalar::UInt;
        serialize_f64(f64) => Scalar::F64;
    }
    leaf_exact! {
        serialize_i32(i32) => Prim::I32, |v: i32| v as u32, |v: i32| Scalar::Int(v.into());
        serialize_u8(u8) => Prim::U8, u32::from, |v: u8| Scalar::UInt(v.into());
        serialize_u32(u32) => Prim::U32, |v: u32| v, |v: u32| Scalar::UInt(v.into());
        serialize_f32(f32) => Prim::F32, f32::to_bits, Scalar::F32;
    }
    fn serialize_bool(self, _v: bool) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_char(self, _v: char) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_str(self, _v: &str) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_none(self) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _variant: &'static str,
        _v: &T,
    ) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _n: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_struct(self, _n: &'static str, _len: usize) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
}

impl ser::SerializeSeq for LeafElemSer<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(LeafElemSer { l: &mut *self.l })
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTuple for LeafElemSer<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(LeafElemSer { l: &mut *self.l })
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for LeafElemSer<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(LeafElemSer { l: &mut *self.l })
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}
