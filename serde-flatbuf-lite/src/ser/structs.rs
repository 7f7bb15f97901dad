//! Inline FlatBuffers structs on the writing side: members appended to the serializer's scratch bytes,
//! aligned relative to the struct's start, nested structs moved to their alignment when they close, and the
//! struct rounded up to its alignment. Independent of the table writer: these serializers see only the
//! scratch bytes.

use serde_core::ser::{self, Serialize};

use crate::error::{Error, Result};

/// An open inline struct. Members are aligned relative to the struct's own start; a nested struct is
/// moved up to its alignment (relative to its parent's start) when it closes, since only then is its
/// alignment known. Kept in the serde `SerializeStruct` value (a local of the derived code), not in the
/// `Serializer`, so that a whole struct compiles to a few stores.
#[derive(Debug, Clone, Copy)]
pub(super) struct StructState {
    /// Index of the struct's first byte in `scratch`.
    pub(super) start: usize,
    pub(super) max_align: u8,
}

/// Appends a member of the open inline struct `st`, aligned to `align` relative to the struct's start.
#[inline(always)]
pub(super) fn push_member(buf: &mut Vec<u8>, st: &mut StructState, bytes: &[u8], align: u8) {
    if align > st.max_align {
        st.max_align = align;
    }
    let rel = buf.len() - st.start;
    let a = align as usize;
    if rel & (a - 1) != 0 {
        pad_to(buf, st.start + ((rel + a - 1) & !(a - 1)));
    }
    buf.extend_from_slice(bytes);
}

/// Pads `buf` with zeros to `len` bytes (usually fewer than 8 more: member and struct padding). Kept out of
/// line so that the member writes around it stay small enough to inline into the derived code.
#[cold]
#[inline(never)]
fn pad_to(buf: &mut Vec<u8>, len: usize) {
    let n = len - buf.len();
    if n < 8 {
        buf.extend_from_slice(&[0u8; 8][..n]);
    } else {
        buf.resize(len, 0);
    }
}

/// Rounds the struct `st` (the bytes from its start to the end of `buf`) up to its alignment and returns
/// its size.
#[inline(always)]
pub(super) fn round_struct(buf: &mut Vec<u8>, st: StructState) -> Result<usize> {
    let size = buf.len() - st.start;
    if size == 0 {
        return Err(empty_struct());
    }
    let a = st.max_align as usize;
    let padded = (size + a - 1) & !(a - 1);
    if padded != size {
        pad_to(buf, st.start + padded);
    }
    Ok(padded)
}

#[cold]
fn empty_struct() -> Error {
    Error::unsupported("an empty FlatBuffers struct")
}

/// Moves the nested struct `st` (the bytes from its start to the end of `buf`) up to its alignment relative
/// to its parent's start: only needed when its first member is less aligned than a later one.
#[cold]
#[inline(never)]
fn shift_nested(buf: &mut Vec<u8>, st: &mut StructState, pad: usize) {
    buf.splice(st.start..st.start, std::iter::repeat_n(0u8, pad));
    st.start += pad;
}

/// A FlatBuffers struct nested in another one.
pub(super) struct NestedSer<'a> {
    buf: &'a mut Vec<u8>,
    parent: &'a mut StructState,
    st: StructState,
}

impl NestedSer<'_> {
    #[inline(always)]
    fn member<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(MemberSer { buf: self.buf, st: &mut self.st })
    }

    #[inline(always)]
    fn finish(self) -> Result<()> {
        let buf = self.buf;
        let mut st = self.st;
        if buf.len() == st.start {
            return Err(empty_struct());
        }
        let a = st.max_align as usize;
        let origin = st.start - self.parent.start;
        let pad = ((origin + a - 1) & !(a - 1)) - origin;
        if pad > 0 {
            shift_nested(buf, &mut st, pad);
        }
        round_struct(buf, st)?;
        if st.max_align > self.parent.max_align {
            self.parent.max_align = st.max_align;
        }
        Ok(())
    }
}

/// The tuple, tuple-struct and struct impls of an inline-struct serializer with `member` and `finish` methods.
macro_rules! struct_impls {
    ([$($gen:tt)*] $ty:ty => $ok:ty, $err:ty) => {
        impl<$($gen)*> ser::SerializeTuple for $ty {
            type Ok = $ok;
            type Error = $err;

            #[inline(always)]
            fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> std::result::Result<(), $err> {
                self.member(value)
            }

            #[inline(always)]
            fn end(self) -> std::result::Result<$ok, $err> {
                self.finish()
            }
        }

        impl<$($gen)*> ser::SerializeTupleStruct for $ty {
            type Ok = $ok;
            type Error = $err;

            #[inline(always)]
            fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> std::result::Result<(), $err> {
                self.member(value)
            }

            #[inline(always)]
            fn end(self) -> std::result::Result<$ok, $err> {
                self.finish()
            }
        }

        impl<$($gen)*> ser::SerializeStruct for $ty {
            type Ok = $ok;
            type Error = $err;

            #[inline(always)]
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                _key: &'static str,
                value: &T,
            ) -> std::result::Result<(), $err> {
                self.member(value)
            }

            fn skip_field(&mut self, key: &'static str) -> std::result::Result<(), $err> {
                Err($crate::ser::structs::skip_in_struct(key).into())
            }

            #[inline(always)]
            fn end(self) -> std::result::Result<$ok, $err> {
                self.finish()
            }
        }
    };
    ($ty:ty => $ok:ty, $err:ty) => {
        struct_impls!([] $ty => $ok, $err);
    };
}

pub(super) use struct_impls;

struct_impls!(NestedSer<'_> => (), Error);

#[cold]
pub(super) fn skip_in_struct(key: &str) -> Error {
    Error::unsupported(format!("skipping field `{key}` of a FlatBuffers struct (structs have no optional fields)"))
}

/// Serializes a member of the open inline struct: the hot path of struct-heavy data (meshes), kept free
/// of the place dispatch of [`ValueSer`] so that a whole struct inlines into a few stores.
pub(super) struct MemberSer<'a> {
    pub(super) buf: &'a mut Vec<u8>,
    pub(super) st: &'a mut StructState,
}

macro_rules! member_scalars {
    ($($method:ident: $ty:ty => |$v:ident| $bytes:expr, $align:expr;)*) => {$(
        #[inline(always)]
        fn $method(self, $v: $ty) -> Result<()> {
            push_member(self.buf, self.st, &$bytes, $align);
            Ok(())
        }
    )*};
}

#[cold]
fn not_in_struct(what: &str) -> Error {
    Error::unsupported(format!("a FlatBuffers struct holds only scalars, unit enums and structs, not {what}"))
}

impl<'a> ser::Serializer for MemberSer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = NestedSer<'a>;
    type SerializeTupleStruct = NestedSer<'a>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = NestedSer<'a>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    member_scalars! {
        serialize_bool: bool => |v| [u8::from(v)], 1;
        serialize_i8: i8 => |v| v.to_le_bytes(), 1;
        serialize_i16: i16 => |v| v.to_le_bytes(), 2;
        serialize_i32: i32 => |v| v.to_le_bytes(), 4;
        serialize_i64: i64 => |v| v.to_le_bytes(), 8;
        serialize_i128: i128 => |v| v.to_le_bytes(), 8;
        serialize_u8: u8 => |v| [v], 1;
        serialize_u16: u16 => |v| v.to_le_bytes(), 2;
        serialize_u32: u32 => |v| v.to_le_bytes(), 4;
        serialize_u64: u64 => |v| v.to_le_bytes(), 8;
        serialize_u128: u128 => |v| v.to_le_bytes(), 8;
        serialize_f32: f32 => |v| v.to_le_bytes(), 4;
        serialize_f64: f64 => |v| v.to_le_bytes(), 8;
        serialize_char: char => |v| u32::from(v).to_le_bytes(), 4;
    }

    fn serialize_str(self, _v: &str) -> Result<()> {
        Err(not_in_struct("a string"))
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(not_in_struct("a byte vector"))
    }

    fn serialize_none(self) -> Result<()> {
        Err(not_in_struct("`None` (structs have no optional fields)"))
    }

    #[inline(always)]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        Err(not_in_struct("`()`"))
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Err(not_in_struct("a unit struct"))
    }

    #[inline]
    fn serialize_unit_variant(self, name: &'static str, variant_index: u32, _variant: &'static str) -> Result<()> {
        let Ok(index) = u8::try_from(variant_index) else {
            return Err(too_many_variants(name));
        };
        push_member(self.buf, self.st, &[index], 1);
        Ok(())
    }

    #[inline(always)]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<()> {
        Err(not_in_struct(&format!("a union (`{name}`)")))
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(not_in_struct("a vector"))
    }

    #[inline(always)]
    fn serialize_tuple(self, _len: usize) -> Result<NestedSer<'a>> {
        Ok(self.nested())
    }

    #[inline(always)]
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<NestedSer<'a>> {
        Ok(self.nested())
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(not_in_struct(&format!("a union (`{name}`)")))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(not_in_struct("a map"))
    }

    #[inline(always)]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<NestedSer<'a>> {
        Ok(self.nested())
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(not_in_struct(&format!("a union (`{name}`)")))
    }
}

impl<'a> MemberSer<'a> {
    #[inline(always)]
    fn nested(self) -> NestedSer<'a> {
        let st = StructState { start: self.buf.len(), max_align: 1 };
        NestedSer { buf: self.buf, parent: self.st, st }
    }
}

#[cold]
pub(super) fn too_many_variants(name: &str) -> Error {
    Error::unsupported(format!("enum `{name}` has more than 256 variants; use serde_repr for a wider integer"))
}
