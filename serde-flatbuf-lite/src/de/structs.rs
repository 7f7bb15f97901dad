//! Inline FlatBuffers structs on the reading side: members read at their alignment relative to the struct's
//! start (a nested struct's start inferred from its first member, or known from a traced layout), and
//! unit enums stored as their variant index.

use std::collections::HashMap;

use serde_core::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::layout::read_array;

/// Alignments of inline struct types, by the name of their serde visitor type (learned by tracing).
pub(crate) type Layouts = HashMap<&'static str, usize>;

/// Decodes an inline struct starting at `start` (a vector element). Returns the value and the struct's size.
#[inline]
pub(super) fn inline_struct<'de, V: Visitor<'de>>(
    buf: &'de [u8],
    layouts: Option<&Layouts>,
    start: usize,
    fields: &'static [&'static str],
    len: usize,
    visitor: V,
) -> Result<(V::Value, Shape)> {
    let mut c = Cursor { cur: start, start, started: true, anchor: start, align: 1, guess: false, bytes: 0 };
    let value = visitor.visit_seq(StructAccess { buf, layouts, c: &mut c, fields, len, remaining: len })?;
    if c.cur == c.start {
        return Err(empty_struct());
    }
    let a = c.align;
    let size = ((c.cur - c.start) + a - 1) & !(a - 1);
    Ok((value, Shape { size, align: a, packed: c.bytes == size, name: None }))
}

/// Decodes an inline struct in a table field, starting at `start`: read as [`inline_struct`] reads it (the same
/// member positions, checks and errors), but its size and shape are not needed, so its members are placed
/// by a cursor that lives in the visitor's own sequence (registers) instead of one it reaches through a pointer.
#[inline]
pub(super) fn field_struct<'de, V: Visitor<'de>>(
    buf: &'de [u8],
    layouts: Option<&Layouts>,
    start: usize,
    fields: &'static [&'static str],
    len: usize,
    visitor: V,
) -> Result<V::Value> {
    let mut end = start;
    let c = FieldCursor { start, cur: start, end: &mut end };
    let value = visitor.visit_seq(StructAccess { buf, layouts, c, fields, len, remaining: len })?;
    if end == start {
        return Err(empty_struct());
    }
    Ok(value)
}

/// The shape of an inline value read as a vector element: what the vector's other elements must share.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Shape {
    /// Size in bytes (the vector's stride).
    pub(super) size: usize,
    /// Alignment.
    pub(super) align: usize,
    /// Whether its members follow each other without padding (scalars always do).
    pub(super) packed: bool,
    /// The struct name, for a named struct.
    pub(super) name: Option<&'static str>,
}

/// Decodes a struct nested in the open struct `parent`, at its cursor.
#[inline(never)]
fn nested_struct<'de, V: Visitor<'de>>(
    buf: &'de [u8],
    layouts: Option<&Layouts>,
    parent: &mut Cursor,
    fields: &'static [&'static str],
    len: usize,
    visitor: V,
) -> Result<V::Value> {
    let origin = parent.cur;
    let anchor = if parent.started { parent.start } else { parent.anchor };
    let mut c = Cursor { cur: origin, start: 0, started: false, anchor, align: 1, guess: parent.guess, bytes: 0 };
    let mut check = false;
    let known = match layouts {
        Some(l) => known_align(l, std::any::type_name::<V>()),
        None => None,
    };
    match known {
        Some(a) => {
            c.start = align_up(anchor, origin, a);
            c.cur = c.start;
            c.started = true;
        }
        None => {
            // Its start is inferred from its first member's alignment; unless it is its parent's first
            // member (then the parent's own check covers it), check that against its alignment.
            check = parent.started;
            c.guess |= check;
        }
    }
    let value = visitor.visit_seq(StructAccess { buf, layouts, c: &mut c, fields, len, remaining: len })?;
    if !c.started || c.cur == c.start {
        return Err(empty_struct());
    }
    let a = c.align;
    if check && align_up(anchor, origin, a) != c.start {
        return Err(ambiguous(origin));
    }
    parent.cur = c.start + (((c.cur - c.start) + a - 1) & !(a - 1));
    parent.bytes += c.bytes;
    if a > parent.align {
        parent.align = a;
    }
    if !parent.started {
        parent.started = true;
        parent.start = c.start;
    }
    Ok(value)
}

/// A struct type's alignment, when tracing learned it (the rare second decoding pass).
#[cold]
#[inline(never)]
fn known_align(layouts: &Layouts, name: &str) -> Option<usize> {
    layouts.get(name).copied()
}

/// The cursor of an open inline struct.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    /// Next byte.
    cur: usize,
    /// Where the struct starts, once `started`.
    start: usize,
    /// Whether the start is known (a nested struct's is inferred from its first member).
    started: bool,
    /// The start of the nearest enclosing struct whose start is known: members align relative to it.
    anchor: usize,
    /// The largest member alignment so far.
    align: usize,
    /// Inside a nested struct whose start was inferred from its first member.
    guess: bool,
    /// Bytes of the members read so far (a struct without padding has `size` of them).
    bytes: usize,
}

/// `pos` rounded up to a multiple of `align` relative to `base`.
#[inline(always)]
fn align_up(base: usize, pos: usize, align: usize) -> usize {
    base + ((pos - base + align - 1) & !(align - 1))
}

impl Cursor {
    /// The position of the next `N`-byte member, aligned relative to the struct's start.
    #[inline(always)]
    fn member<const N: usize>(&mut self) -> Result<usize> {
        let a = N.min(8);
        if !self.started {
            self.started = true;
            self.start = align_up(self.anchor, self.cur, a);
            self.cur = self.start;
        }
        let pos = align_up(self.start, self.cur, a);
        if self.guess && pos % a != 0 {
            return Err(ambiguous(self.start));
        }
        self.cur = pos + N;
        self.bytes += N;
        if a > self.align {
            self.align = a;
        }
        Ok(pos)
    }
}

/// Where the members of an open inline struct go: the general [`Cursor`], or a table field's
/// [`FieldCursor`].
trait Members {
    /// The position of the next `N`-byte member, aligned relative to the struct's start.
    fn member<const N: usize>(&mut self) -> Result<usize>;

    /// Decodes a struct nested at the cursor.
    fn nested<'de, V: Visitor<'de>>(
        &mut self,
        buf: &'de [u8],
        layouts: Option<&Layouts>,
        fields: &'static [&'static str],
        len: usize,
        visitor: V,
    ) -> Result<V::Value>;

    /// Where the last member read ends.
    fn end(&self) -> usize;
}

impl Members for &mut Cursor {
    #[inline(always)]
    fn member<const N: usize>(&mut self) -> Result<usize> {
        Cursor::member::<N>(self)
    }

    #[inline]
    fn nested<'de, V: Visitor<'de>>(
        &mut self,
        buf: &'de [u8],
        layouts: Option<&Layouts>,
        fields: &'static [&'static str],
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        nested_struct(buf, layouts, self, fields, len, visitor)
    }

    fn end(&self) -> usize {
        self.cur
    }
}

/// The cursor of an inline struct in a table field: a [`Cursor`] whose start is known (not inferred, no
/// enclosing struct), which is all that places its members; its alignment and member bytes, which only
/// give a vector element's shape, are not kept. `end` follows `cur` for the caller's empty-struct test.
struct FieldCursor<'a> {
    start: usize,
    cur: usize,
    end: &'a mut usize,
}

impl Members for FieldCursor<'_> {
    #[inline(always)]
    fn member<const N: usize>(&mut self) -> Result<usize> {
        let pos = align_up(self.start, self.cur, N.min(8));
        self.cur = pos + N;
        *self.end = self.cur;
        Ok(pos)
    }

    #[inline]
    fn nested<'de, V: Visitor<'de>>(
        &mut self,
        buf: &'de [u8],
        layouts: Option<&Layouts>,
        fields: &'static [&'static str],
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        let start = self.start;
        let mut c = Cursor { cur: self.cur, start, started: true, anchor: start, align: 1, guess: false, bytes: 0 };
        let value = nested_struct(buf, layouts, &mut c, fields, len, visitor)?;
        self.cur = c.cur;
        *self.end = c.cur;
        Ok(value)
    }

    fn end(&self) -> usize {
        self.cur
    }
}

#[cold]
fn empty_struct() -> Error {
    Error::unsupported("an empty FlatBuffers struct")
}

#[cold]
fn ambiguous(at: usize) -> Error {
    Error::at(
        ErrorKind::AmbiguousStructLayout,
        at,
        "a nested struct is aligned more strictly than its first member; its offset needs the type's layout",
    )
}

/// An inline struct's members, in order.
struct StructAccess<'a, 'de, C> {
    buf: &'de [u8],
    layouts: Option<&'a Layouts>,
    c: C,
    /// The struct's field names (empty for a tuple), for the path of an error.
    fields: &'static [&'static str],
    len: usize,
    remaining: usize,
}

/// Prepends member `index` of an inline struct to an error's path: its field name, or `.N` for a tuple.
#[cold]
#[inline(never)]
pub(super) fn in_member(e: Error, fields: &[&str], index: usize) -> Error {
    match fields.get(index) {
        Some(name) => e.in_field(crate::names::field_name(name)),
        None => e.in_field(&index.to_string()),
    }
}

impl<'de, C: Members> de::SeqAccess<'de> for StructAccess<'_, 'de, C> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        match seed.deserialize(MemberDe { buf: self.buf, layouts: self.layouts, c: &mut self.c }) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(in_member(e, self.fields, self.len - self.remaining - 1)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining)
    }
}

/// Decodes a member of the open inline struct: the hot path of struct-heavy data, without the place
/// dispatch of [`ValueDe`].
struct MemberDe<'a, 'de, C> {
    buf: &'de [u8],
    layouts: Option<&'a Layouts>,
    c: &'a mut C,
}

impl<C: Members> MemberDe<'_, '_, C> {
    /// Reads the next `N`-byte member (bounds- and alignment-checked).
    #[inline(always)]
    fn read<const N: usize>(&mut self) -> Result<[u8; N]> {
        let pos = self.c.member::<N>()?;
        read_array::<N>(self.buf, pos)
    }
}

macro_rules! member_scalars {
    ($($method:ident: $ty:ty => $visit:ident;)*) => {$(
        #[inline(always)]
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            visitor.$visit(<$ty>::from_le_bytes(self.read()?))
        }
    )*};
}

impl<'de, C: Members> de::Deserializer<'de> for MemberDe<'_, 'de, C> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported("FlatBuffers is not self-describing (`deserialize_any` in a struct)"))
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let [b] = self.read::<1>()?;
        visitor.visit_bool(b != 0)
    }

    member_scalars! {
        deserialize_i8: i8 => visit_i8;
        deserialize_i16: i16 => visit_i16;
        deserialize_i32: i32 => visit_i32;
        deserialize_i64: i64 => visit_i64;
        deserialize_i128: i128 => visit_i128;
        deserialize_u8: u8 => visit_u8;
        deserialize_u16: u16 => visit_u16;
        deserialize_u32: u32 => visit_u32;
        deserialize_u64: u64 => visit_u64;
        deserialize_u128: u128 => visit_u128;
        deserialize_f32: f32 => visit_f32;
        deserialize_f64: f64 => visit_f64;
    }

    fn deserialize_char<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let v = u32::from_le_bytes(self.read()?);
        match char::from_u32(v) {
            Some(c) => visitor.visit_char(c),
            None => Err(Error::at(ErrorKind::InvalidValue, self.c.end() - 4, format!("{v:#x} is not a char"))),
        }
    }

    #[inline(always)]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    #[inline(always)]
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.c.nested(self.buf, self.layouts, &[], len, visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.c.nested(self.buf, self.layouts, &[], len, visitor)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.c.nested(self.buf, self.layouts, fields, fields.len(), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let [index] = self.read::<1>()?;
        visitor.visit_enum(UnitEnumAccess { index, name })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde_core::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq map identifier
    }
}

/// A unit-only enum stored as its variant index.
pub(super) struct UnitEnumAccess {
    pub(super) index: u8,
    pub(super) name: &'static str,
}

impl<'de> de::EnumAccess<'de> for UnitEnumAccess {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index: de::value::U64Deserializer<Error> = u64::from(self.index).into_deserializer();
        Ok((seed.deserialize(index)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitEnumAccess {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value> {
        Err(not_a_union(self.name))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(not_a_union(self.name))
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], _visitor: V) -> Result<V::Value> {
        Err(not_a_union(self.name))
    }
}

#[cold]
fn not_a_union(name: &str) -> Error {
    Error::unsupported(format!(
        "enum `{name}` carries data, so it is a union: declare a `UnionType` field right before its field"
    ))
}
