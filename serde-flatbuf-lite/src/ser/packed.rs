//! Vectors of padding-free inline elements (scalars, or structs whose members follow each other without
//! padding: `Vector3 { x, y, z }`, a `Triangle` of four of them) written in bulk.
//!
//! The first element goes through the general inline-struct writer ([`super::structs`]); if writing it
//! again with [`Packed`] gives the same bytes, every later element is written by [`Packed`] straight into
//! its place in the builder, which was claimed once for the whole vector: each member is one store at
//! the next offset, with no scratch list, no padding logic and no per-element copy. `Packed` accepts an
//! element only if the general writer would have laid it out byte for byte the same (every member at its
//! natural alignment, every nested struct aligned and a multiple of its alignment, the same size and
//! alignment as the first element); anything else is refused and the caller falls back to the general
//! writer for that element.

use serde_core::ser::{self, Serialize};

use std::fmt;

use super::structs::struct_impls;
use crate::error::Error;

/// Why [`Packed`] gave up on an element (never seen by users: the general writer takes over). A unit type, so
/// the members' `Result`s are a flag with nothing to drop (an [`Error`] would be dropped, out of line, after
/// every nested struct).
#[derive(Debug)]
pub(super) struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a packed element")
    }
}

impl std::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Refused
    }
}

impl From<Error> for Refused {
    fn from(_: Error) -> Self {
        Refused
    }
}

type Result<T> = std::result::Result<T, Refused>;

/// The bulk writer of one element: its bytes (exactly the element size), the next offset, and the struct
/// name the element must have (learned from the first element).
///
/// `LEARN` tells the first element's writer (which learns the struct name) from the later elements' one
/// (which checks it): two instantiations, so the later elements' one has a single call site, in the element
/// loop, where LLVM inlines the element's whole `Serialize` impl and folds the offsets and checks of each
/// member into constants (the state starts at zero for every element).
pub(super) struct Packed<'a, const LEARN: bool> {
    out: &'a mut [u8],
    cur: usize,
    /// The alignments of the open struct's members so far, or-ed together (powers of two: the highest bit is
    /// the struct's alignment).
    mask: usize,
    /// The members' offsets relative to their alignment, or-ed together: non-zero if any was misaligned.
    bad: usize,
    name: Option<&'static str>,
}

impl<'a> Packed<'a, true> {
    /// A writer that learns the element's struct name (for the first element).
    pub(super) fn learn(out: &'a mut [u8]) -> Self {
        Packed { out, cur: 0, mask: 0, bad: 0, name: None }
    }
}

impl<'a> Packed<'a, false> {
    /// A writer that requires the struct name `name` (the first element's, if it was a named struct).
    #[inline(always)]
    pub(super) fn check(out: &'a mut [u8], name: Option<&'static str>) -> Self {
        Packed { out, cur: 0, mask: 0, bad: 0, name }
    }
}

impl<'a, const LEARN: bool> Packed<'a, LEARN> {
    /// The struct name learned from the first element.
    pub(super) fn name(&self) -> Option<&'static str> {
        self.name
    }

    /// Writes `value` as one element of `size` bytes (the whole of `out`) and alignment `align`; `false` if
    /// the general writer would lay it out differently (nothing is promised about `out` then).
    #[inline(always)]
    pub(super) fn element<T: ?Sized + Serialize>(&mut self, value: &T, align: usize) -> bool {
        let ok = value.serialize(Member::<true, LEARN> { p: self }).is_ok();
        ok && self.bad == 0 && self.cur == self.out.len() && top_bit(self.mask) == align
    }

    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) -> Result<()> {
        let a = if N > 8 { 8 } else { N };
        let cur = self.cur;
        match self.out.get_mut(cur..cur + N) {
            Some(dst) => dst.copy_from_slice(&bytes),
            None => return Err(refused()),
        }
        self.cur = cur + N;
        self.bad |= cur & (a - 1);
        self.mask |= a;
        Ok(())
    }

    #[inline(always)]
    fn same_name(&mut self, name: &'static str) -> Result<()> {
        if LEARN {
            self.name = Some(name);
            return Ok(());
        }
        match self.name {
            Some(n) if n.as_ptr() == name.as_ptr() && n.len() == name.len() => Ok(()),
            _ => Err(refused()),
        }
    }
}

/// The highest power of two in `mask` (1 for 0).
#[inline(always)]
fn top_bit(mask: usize) -> usize {
    1 << (usize::BITS - 1 - (mask | 1).leading_zeros())
}

/// [`Refused`], on the cold path.
#[cold]
#[inline(never)]
fn refused() -> Refused {
    Refused
}

/// Writes one member (or, with `TOP`, the element itself).
struct Member<'p, 'a, const TOP: bool, const LEARN: bool> {
    p: &'p mut Packed<'a, LEARN>,
}

macro_rules! packed_scalars {
    ($($method:ident: $ty:ty => |$v:ident| $bytes:expr;)*) => {$(
        #[inline(always)]
        fn $method(self, $v: $ty) -> Result<()> {
            self.p.put($bytes)
        }
    )*};
}

impl<'p, 'a, const TOP: bool, const LEARN: bool> ser::Serializer for Member<'p, 'a, TOP, LEARN> {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = ser::Impossible<(), Refused>;
    type SerializeTuple = Nested<'p, 'a, LEARN>;
    type SerializeTupleStruct = Nested<'p, 'a, LEARN>;
    type SerializeTupleVariant = ser::Impossible<(), Refused>;
    type SerializeMap = ser::Impossible<(), Refused>;
    type SerializeStruct = Nested<'p, 'a, LEARN>;
    type SerializeStructVariant = ser::Impossible<(), Refused>;

    fn is_human_readable(&self) -> bool {
        false
    }

    packed_scalars! {
        serialize_bool: bool => |v| [u8::from(v)];
        serialize_i8: i8 => |v| v.to_le_bytes();
        serialize_i16: i16 => |v| v.to_le_bytes();
        serialize_i32: i32 => |v| v.to_le_bytes();
        serialize_i64: i64 => |v| v.to_le_bytes();
        serialize_i128: i128 => |v| v.to_le_bytes();
        serialize_u8: u8 => |v| [v];
        serialize_u16: u16 => |v| v.to_le_bytes();
        serialize_u32: u32 => |v| v.to_le_bytes();
        serialize_u64: u64 => |v| v.to_le_bytes();
        serialize_u128: u128 => |v| v.to_le_bytes();
        serialize_f32: f32 => |v| v.to_le_bytes();
        serialize_f64: f64 => |v| v.to_le_bytes();
        serialize_char: char => |v| u32::from(v).to_le_bytes();
    }

    fn serialize_str(self, _v: &str) -> Result<()> {
        Err(refused())
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(refused())
    }

    fn serialize_none(self) -> Result<()> {
        Err(refused())
    }

    #[inline(always)]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        // A vector element `Some` is left to the general writer; inside a struct it is its value.
        if TOP {
            return Err(refused());
        }
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        Err(refused())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Err(refused())
    }

    #[inline(always)]
    fn serialize_unit_variant(self, _name: &'static str, variant_index: u32, _variant: &'static str) -> Result<()> {
        match u8::try_from(variant_index) {
            Ok(index) => self.p.put([index]),
            Err(_) => Err(refused()),
        }
    }

    #[inline(always)]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<()> {
        Err(refused())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(refused())
    }

    #[inline(always)]
    fn serialize_tuple(self, _len: usize) -> Result<Nested<'p, 'a, LEARN>> {
        Ok(self.nested())
    }

    #[inline(always)]
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Nested<'p, 'a, LEARN>> {
        Ok(self.nested())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(refused())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(refused())
    }

    #[inline(always)]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Nested<'p, 'a, LEARN>> {
        // A named element struct is inline only if configured so: the first element's name was.
        if TOP {
            self.p.same_name(name)?;
        }
        Ok(self.nested())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(refused())
    }
}

impl<'p, 'a, const TOP: bool, const LEARN: bool> Member<'p, 'a, TOP, LEARN> {
    #[inline(always)]
    fn nested(self) -> Nested<'p, 'a, LEARN> {
        let start = self.p.cur;
        let outer = std::mem::take(&mut self.p.mask);
        Nested { p: self.p, start, outer }
    }
}

/// An open struct: its start and the enclosing struct's alignments, checked and merged when it closes.
pub(super) struct Nested<'p, 'a, const LEARN: bool> {
    p: &'p mut Packed<'a, LEARN>,
    start: usize,
    outer: usize,
}

impl<const LEARN: bool> Nested<'_, '_, LEARN> {
    #[inline(always)]
    fn member<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(Member::<false, LEARN> { p: &mut *self.p })
    }

    #[inline(always)]
    fn finish(self) -> Result<()> {
        let p = self.p;
        let a = top_bit(p.mask);
        // Aligned at its start and a multiple of its alignment (the general writer adds no padding).
        p.bad |= (self.start | (p.cur - self.start)) & (a - 1);
        if p.cur == self.start {
            return Err(refused());
        }
        p.mask |= self.outer;
        Ok(())
    }
}

struct_impls!([const LEARN: bool] Nested<'_, '_, LEARN> => (), Refused);
