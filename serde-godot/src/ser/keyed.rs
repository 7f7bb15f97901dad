//! [`Keyed`]: the serializer of a Dictionary-form struct field's value, which carries the field's
//! name so that the key goes out in the same write as a scalar or
//! short string value: one capacity check and one length update per field instead of two.
//!
//! Everything else (containers, structs, Godot's own types) writes the key alone and continues
//! with the plain [`Serializer`], so the bytes, errors and depth checks are those of the plain
//! path.
//!
//! The first field of a Dictionary-form struct also carries the struct's Dictionary header
//! ([`Lead`]), which then goes out in that same write.

use serde_core::ser::{self, Serialize};

use super::compound::{Map, Seq};
use super::macros::int_methods;
use super::structs::Struct;
use super::writer::{BOOL, FLOAT, INT, NIL, Output, STRING, Serializer};
use crate::error::{Error, ErrorKind, Result};
use crate::magic::{self, Magic};
use crate::wire::{self, FLAG_64};

/// A struct field's name of at most 8 bytes and no NUL, as a little-endian number (its length is
/// the number of bytes up to the highest non-zero one). One register: a [`Keyed`] serializer is
/// two, passed in registers to a serde impl that is not inlined, and the inliner sees the name
/// as the constant it is.
#[derive(Clone, Copy)]
pub(super) struct Key(u64);

impl Key {
    /// The key of `name`, or `None` when it is longer than 8 bytes or holds a NUL (those take
    /// the general path). Folds to a constant for a literal.
    #[inline(always)]
    pub(super) fn of(name: &str) -> Option<Key> {
        let s = name.as_bytes();
        if s.len() > 8 || s.contains(&0) {
            return None;
        }
        let mut bytes = [0u8; 8];
        bytes[..s.len()].copy_from_slice(s);
        Some(Key(u64::from_le_bytes(bytes)))
    }

    /// The name's length.
    #[inline(always)]
    fn len(self) -> usize {
        (64 - self.0.leading_zeros() as usize).div_ceil(8)
    }

    /// The encoded key's size.
    #[inline(always)]
    pub(super) fn size(self) -> usize {
        self.encoded().1
    }

    /// The encoded key (STRING header, length, name, zero padding) and its size: 8, 12 or 16.
    #[inline(always)]
    fn encoded(self) -> (u128, usize) {
        let n = self.len();
        (STRING as u128 | (n as u128) << 32 | (self.0 as u128) << 64, 8 + n + wire::pad4(n))
    }
}

/// Appends `key`, then the `L` low bytes of `value` (at most 16), as one write.
#[inline(always)]
pub(super) fn put_keyed<O: Output, const L: usize>(out: &mut O, key: Key, value: u128) {
    let (words, size) = key.encoded();
    put_encoded::<O, L>(out, words, size, value);
}

/// [`put_keyed`] with the key encoded (`size` bytes of `words`).
#[inline(always)]
fn put_encoded<O: Output, const L: usize>(out: &mut O, words: u128, size: usize, value: u128) {
    // The key and the value as two 16-byte numbers (shifts by constants once the key is one),
    // not bytes copied at an offset into a buffer: that buffer would be written in pieces and
    // read back whole, which stalls on store forwarding.
    let shift = 8 * size as u32;
    let lo = words | value.checked_shl(shift).unwrap_or(0);
    let hi = value.checked_shr(128 - shift).unwrap_or(0);
    let mut buf = [0u8; 32];
    buf[..16].copy_from_slice(&lo.to_le_bytes());
    buf[16..].copy_from_slice(&hi.to_le_bytes());
    // One arm per possible key size, each a fixed-size write: a single arm once the key is a
    // constant, and no variable-length copy (a `memcpy` call) when it is not.
    match size {
        8 => out.put(&buf[..8 + L]),
        12 => out.put(&buf[..12 + L]),
        _ => out.put(&buf[..16 + L]),
    }
}

/// What goes out before a field's key: nothing ([`NoLead`]), or the Dictionary header of the
/// struct whose first field it is ([`Header`]). A type, not a flag, so that the common case
/// tests nothing, and without data, so that [`Keyed`] stays two registers.
pub(super) trait Lead: Copy {
    /// Appends the lead, `key`, then the `L` low bytes of `value` (at most 16), as one write.
    fn put_keyed<O: Output, const L: usize>(self, ser: &mut Serializer<'_, O>, key: Key, value: u128);

    /// Appends the lead alone.
    fn put<O: Output>(self, ser: &mut Serializer<'_, O>);
}

/// Nothing before the key: every field but a struct's first.
#[derive(Clone, Copy)]
pub(super) struct NoLead;

impl Lead for NoLead {
    #[inline(always)]
    fn put_keyed<O: Output, const L: usize>(self, ser: &mut Serializer<'_, O>, key: Key, value: u128) {
        put_keyed::<O, L>(&mut ser.out, key, value);
    }

    #[inline(always)]
    fn put<O: Output>(self, _: &mut Serializer<'_, O>) {}
}

/// The Dictionary header (type id and entry count, 8 bytes) of the struct whose first field
/// this is, not yet written and kept in [`Serializer::head`]: it goes out with the field's key,
/// one capacity check less per struct.
#[derive(Clone, Copy)]
pub(super) struct Header;

impl Lead for Header {
    #[inline(always)]
    fn put_keyed<O: Output, const L: usize>(self, ser: &mut Serializer<'_, O>, key: Key, value: u128) {
        // As `put_encoded`, 8 bytes further on (the key and value as two 16-byte numbers, one
        // fixed-size write per key size).
        let (words, size) = key.encoded();
        let shift = 8 * size as u32;
        let lo = words | value.checked_shl(shift).unwrap_or(0);
        let hi = value.checked_shr(128 - shift).unwrap_or(0);
        let mut buf = [0u8; 40];
        buf[..8].copy_from_slice(&ser.head.to_le_bytes());
        buf[8..24].copy_from_slice(&lo.to_le_bytes());
        buf[24..].copy_from_slice(&hi.to_le_bytes());
        match size {
            8 => ser.out.put(&buf[..16 + L]),
            12 => ser.out.put(&buf[..20 + L]),
            _ => ser.out.put(&buf[..24 + L]),
        }
    }

    #[inline(always)]
    fn put<O: Output>(self, ser: &mut Serializer<'_, O>) {
        ser.out.put(&ser.head.to_le_bytes());
    }
}

/// The serializer of a Dictionary-form struct field's value: see the module documentation.
pub(super) struct Keyed<'s, 'a, O: Output, L: Lead = NoLead> {
    pub(super) ser: &'s mut Serializer<'a, O>,
    pub(super) key: Key,
    pub(super) lead: L,
}

impl<'s, 'a, O: Output, L: Lead> Keyed<'s, 'a, O, L> {
    /// The key and one 8-byte value.
    #[inline(always)]
    fn word(self, word: u64) -> Result<()> {
        self.lead.put_keyed::<O, 8>(self.ser, self.key, word as u128);
        Ok(())
    }

    /// The key and a header with a 64-bit payload.
    #[inline(always)]
    fn wide(self, header: u32, payload: u64) -> Result<()> {
        self.lead.put_keyed::<O, 12>(self.ser, self.key, header as u128 | (payload as u128) << 32);
        Ok(())
    }

    /// Writes the key alone, for a value the plain serializer writes.
    #[inline(always)]
    fn key_then(self) -> &'s mut Serializer<'a, O> {
        self.lead.put_keyed::<O, 0>(self.ser, self.key, 0);
        self.ser
    }

    /// INT (the rule of [`Serializer::int`]).
    #[inline(always)]
    fn int_value(self, v: i64) -> Result<()> {
        if v as i32 as i64 == v {
            self.word(INT as u64 | ((v as i32 as u32 as u64) << 32))
        } else {
            self.wide(INT | FLAG_64, v as u64)
        }
    }
}

impl<'s, 'a, O: Output, L: Lead> ser::Serializer for Keyed<'s, 'a, O, L> {
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
        self.word(BOOL as u64 | ((v as u64) << 32))
    }

    int_methods!(int_value; serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32;
        checked serialize_i128: i128, serialize_u64: u64, serialize_u128: u128);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.word(FLOAT as u64 | ((v.to_bits() as u64) << 32))
    }

    /// The rule of [`Serializer::float`].
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        let narrow = v as f32;
        if narrow as f64 == v {
            self.word(FLOAT as u64 | ((narrow.to_bits() as u64) << 32))
        } else {
            self.wide(FLOAT | FLAG_64, v.to_bits())
        }
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    /// The key is encoded here, where it is usually a constant (serde's `String` impl, which
    /// calls this, is small enough to inline then); a short string is written inline, the
    /// rest out of line.
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<()> {
        // The key and the string already fill the fixed-size write: a lead goes before it.
        self.lead.put(self.ser);
        let (key, size) = self.key.encoded();
        let out = &mut self.ser.out;
        let v = v.as_bytes();
        match size {
            8 => wire::put_str_value_after::<O, 8>(out, key, STRING, v),
            12 => wire::put_str_value_after::<O, 12>(out, key, STRING, v),
            _ => wire::put_str_value_after::<O, 16>(out, key, STRING, v),
        }
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        ser::Serializer::serialize_bytes(self.key_then(), v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.lead.put_keyed::<O, 4>(self.ser, self.key, NIL as u128);
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        ser::Serializer::serialize_unit_struct(self.key_then(), name)
    }

    fn serialize_unit_variant(self, name: &'static str, index: u32, variant: &'static str) -> Result<()> {
        ser::Serializer::serialize_unit_variant(self.key_then(), name, index, variant)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<()> {
        match magic::lookup(name) {
            None => value.serialize(self),
            Some(_) => ser::Serializer::serialize_newtype_struct(self.key_then(), name, value),
        }
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::Serializer::serialize_newtype_variant(self.key_then(), name, index, variant, value)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'s, 'a, O>> {
        self.key_then().begin_array(len)
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Seq<'s, 'a, O>> {
        self.key_then().begin_array(Some(len))
    }

    #[inline]
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Seq<'s, 'a, O>> {
        ser::Serializer::serialize_tuple_struct(self.key_then(), name, len)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'s, 'a, O>> {
        ser::Serializer::serialize_tuple_variant(self.key_then(), name, index, variant, len)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a, O>> {
        self.key_then().begin_dict(len)
    }

    #[inline(always)]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Struct<'s, 'a, O>> {
        match magic::lookup(name) {
            // A math type's first write takes the key along (a lead goes before it).
            Some(Magic::Math(ty)) => {
                self.lead.put(self.ser);
                self.ser.math_after(self.key, ty)
            }
            _ => ser::Serializer::serialize_struct(self.key_then(), name, len),
        }
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Struct<'s, 'a, O>> {
        ser::Serializer::serialize_struct_variant(self.key_then(), name, index, variant, len)
    }
}
