//! serde → BSON bytes: serde-brson's own writer, the counterpart of [`reader`](crate::reader).
//!
//! It writes exactly the bytes the `bson` crate's raw serializer (`bson::serialize_to_buffer`)
//! writes for the same value — the same element types (u32 and in-range u64 as int64, f32 as
//! double, unit and `None` as null, unit variants as strings, other variants as one-key
//! documents, tuples and sequences as arrays keyed "0", "1", …) and the same document layout —
//! without `bson`'s per-element work that the layout does not need: array keys are written with
//! a small decimal writer instead of `fmt` (and, for tuples, a `String` each), and an element's
//! type byte, key and value go out in one or two appends.
//!
//! It takes the common shapes only. For anything else — a value `bson` refuses (u64 over
//! `i64::MAX`, a key with a NUL, a map key that is not a string, a top level that is not a
//! document, i128), `bson`'s special values (`ObjectId`, dates, `Uuid`, and the other structs
//! named `$…`), its private newtypes other than a raw document, a length over `i32::MAX` — it
//! stops with [`Fallback`], and the caller throws the partial output away and lets `bson` write
//! the whole value, so both the bytes and the errors are `bson`'s. A raw document
//! (`RawDocumentBuf`, how the model keeps component bodies) is copied as it is, as `bson` does.

use std::fmt;

use serde_core::ser::{self, Impossible, Serialize};

/// `bson`'s newtype name for a raw document's bytes (a protocol between its raw types and
/// serializers; see `reader::RAW_DOCUMENT`).
const RAW_DOCUMENT: &str = "$__private__bson_RawDocument";

/// The element types this writer produces.
const DOUBLE: u8 = 0x01;
const STRING: u8 = 0x02;
const DOCUMENT: u8 = 0x03;
const ARRAY: u8 = 0x04;
const BINARY: u8 = 0x05;
const BOOLEAN: u8 = 0x08;
const NULL: u8 = 0x0A;
const INT32: u8 = 0x10;
const INT64: u8 = 0x12;

/// Where the value being written is the top level (no type byte to set; it must be a document).
const TOP: usize = usize::MAX;

/// The writer met something it leaves to `bson` (see the module documentation); not an error
/// of the value.
#[derive(Debug)]
pub(crate) struct Fallback;

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to the bson crate's serializer")
    }
}

impl std::error::Error for Fallback {}

impl ser::Error for Fallback {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Fallback
    }
}

type Done = Result<(), Fallback>;

/// Appends `value` to `out` as one BSON document. On [`Fallback`], `out` holds a partial write
/// after its old end, for the caller to truncate.
pub(crate) fn write<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Done {
    value.serialize(ValueWriter { out, at: TOP })
}

/// A BSON length field for `len` bytes, or [`Fallback`] past what an int32 holds.
#[inline]
fn len_i32(len: usize) -> Result<[u8; 4], Fallback> {
    i32::try_from(len).map(i32::to_le_bytes).map_err(|_| Fallback)
}

/// Writes one value: `at` is the index of its element's type byte, already reserved by the
/// document or array around it ([`TOP`] for the top level).
struct ValueWriter<'a> {
    out: &'a mut Vec<u8>,
    at: usize,
}

impl<'a> ValueWriter<'a> {
    /// Sets the element type; only a document may stand at the top level.
    #[inline]
    fn tag(&mut self, ty: u8) -> Done {
        if self.at == TOP {
            return if ty == DOCUMENT { Ok(()) } else { Err(Fallback) };
        }
        self.out[self.at] = ty;
        Ok(())
    }

    #[inline]
    fn fixed<const N: usize>(mut self, ty: u8, bytes: [u8; N]) -> Done {
        self.tag(ty)?;
        self.out.extend_from_slice(&bytes);
        Ok(())
    }

    /// A length-prefixed value: `head` (the length, a subtype), then `body`, then `tail`.
    #[inline]
    fn prefixed(mut self, ty: u8, head: &[u8], body: &[u8], tail: &[u8]) -> Done {
        self.tag(ty)?;
        self.out.reserve(head.len() + body.len() + tail.len());
        self.out.extend_from_slice(head);
        self.out.extend_from_slice(body);
        self.out.extend_from_slice(tail);
        Ok(())
    }

    #[inline]
    fn document(mut self, ty: u8) -> Result<DocWriter<'a>, Fallback> {
        self.tag(ty)?;
        Ok(DocWriter::open(self.out))
    }

    /// `{variant: …}` around a tuple (`ARRAY`) or struct (`DOCUMENT`) variant's fields.
    fn variant(self, variant: &str, inner: u8) -> Result<VariantWriter<'a>, Fallback> {
        let mut outer = self.document(DOCUMENT)?;
        let at = outer.key(variant)?;
        outer.out[at] = inner;
        let inner = DocWriter::open(outer.out);
        Ok(VariantWriter { outer: outer.start, inner })
    }
}

/// An open document or array: its length is written when it ends.
struct DocWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Index of the length field.
    start: usize,
    /// Elements written (an array's next key).
    count: u32,
    /// A map's pending value: the type byte its key reserved.
    at: usize,
}

impl<'a> DocWriter<'a> {
    #[inline]
    fn open(out: &'a mut Vec<u8>) -> Self {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        DocWriter { out, start, count: 0, at: TOP }
    }

    /// Reserves the type byte and writes `key`; returns the type byte's index.
    #[inline]
    fn key(&mut self, key: &str) -> Result<usize, Fallback> {
        if key.as_bytes().contains(&0) {
            return Err(Fallback);
        }
        let at = self.out.len();
        self.out.reserve(key.len() + 2);
        self.out.push(0);
        self.out.extend_from_slice(key.as_bytes());
        self.out.push(0);
        Ok(at)
    }

    /// An array element: the next index as the key.
    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        let mut n = self.count;
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let at = self.out.len();
        self.out.reserve(digits.len() - i + 2);
        self.out.push(0);
        self.out.extend_from_slice(&digits[i..]);
        self.out.push(0);
        self.count += 1;
        value.serialize(ValueWriter { out: &mut *self.out, at })
    }

    #[inline]
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Done {
        let at = self.key(key)?;
        value.serialize(ValueWriter { out: &mut *self.out, at })
    }

    #[inline]
    fn close(self) -> Done {
        close(self.out, self.start)
    }
}

/// Ends the document whose length field is at `start`.
#[inline]
fn close(out: &mut Vec<u8>, start: usize) -> Done {
    out.push(0);
    let len = len_i32(out.len() - start)?;
    out[start..start + 4].copy_from_slice(&len);
    Ok(())
}

/// A tuple or struct variant: the inner array or document inside the one-key outer document.
struct VariantWriter<'a> {
    outer: usize,
    inner: DocWriter<'a>,
}

impl VariantWriter<'_> {
    fn close(self) -> Done {
        let outer = self.outer;
        let out = self.inner.out;
        close(out, self.inner.start)?;
        close(out, outer)
    }
}

impl<'a> ser::Serializer for ValueWriter<'a> {
    type Ok = ();
    type Error = Fallback;
    type SerializeSeq = DocWriter<'a>;
    type SerializeTuple = DocWriter<'a>;
    type SerializeTupleStruct = DocWriter<'a>;
    type SerializeTupleVariant = VariantWriter<'a>;
    type SerializeMap = DocWriter<'a>;
    type SerializeStruct = DocWriter<'a>;
    type SerializeStructVariant = VariantWriter<'a>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Done {
        self.fixed(BOOLEAN, [u8::from(v)])
    }
    #[inline]
    fn serialize_i8(self, v: i8) -> Done {
        self.serialize_i32(v.into())
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Done {
        self.serialize_i32(v.into())
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Done {
        self.fixed(INT32, v.to_le_bytes())
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Done {
        self.fixed(INT64, v.to_le_bytes())
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> Done {
        self.serialize_i32(v.into())
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Done {
        self.serialize_i32(v.into())
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Done {
        self.serialize_i64(v.into())
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Done {
        // bson refuses what int64 cannot hold; it says so with its own error.
        self.serialize_i64(i64::try_from(v).map_err(|_| Fallback)?)
    }
    #[inline]
    fn serialize_f32(self, v: f32) -> Done {
        self.serialize_f64(v.into())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Done {
        self.fixed(DOUBLE, v.to_le_bytes())
    }
    fn serialize_char(self, v: char) -> Done {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Done {
        // The length counts the terminating NUL.
        let len = len_i32(v.len() + 1)?;
        self.prefixed(STRING, &len, v.as_bytes(), &[0])
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Done {
        // Generic binary: length, subtype 0, bytes.
        let len = len_i32(v.len())?;
        self.prefixed(BINARY, &[len[0], len[1], len[2], len[3], 0], v, &[])
    }
    #[inline]
    fn serialize_none(self) -> Done {
        self.serialize_unit()
    }
    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    #[inline]
    fn serialize_unit(mut self) -> Done {
        self.tag(NULL)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Done {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Done {
        self.serialize_str(variant)
    }
    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Done {
        if name == RAW_DOCUMENT {
            value.serialize(RawDocumentWriter(self))
        } else if name.starts_with("$__") {
            // bson's other private newtypes (UUID, human-readable, …) change how it writes.
            Err(Fallback)
        } else {
            value.serialize(self)
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        let mut doc = self.document(DOCUMENT)?;
        doc.field(variant, value)?;
        doc.close()
    }
    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<DocWriter<'a>, Fallback> {
        self.document(ARRAY)
    }
    fn serialize_tuple(self, _len: usize) -> Result<DocWriter<'a>, Fallback> {
        self.document(ARRAY)
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<DocWriter<'a>, Fallback> {
        self.document(ARRAY)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<VariantWriter<'a>, Fallback> {
        self.variant(variant, ARRAY)
    }
    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<DocWriter<'a>, Fallback> {
        self.document(DOCUMENT)
    }
    #[inline]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<DocWriter<'a>, Fallback> {
        if name.starts_with('$') {
            // bson's ObjectId, DateTime, Timestamp, … are structs named `$oid`, `$date`, ….
            return Err(Fallback);
        }
        self.document(DOCUMENT)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<VariantWriter<'a>, Fallback> {
        self.variant(variant, DOCUMENT)
    }
}

/// Sequences, tuples and tuple structs are arrays: each element keyed by its index.
macro_rules! array_writer {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for DocWriter<'_> {
            type Ok = ();
            type Error = Fallback;
            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                self.element(value)
            }
            #[inline]
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}

array_writer!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl ser::SerializeStruct for DocWriter<'_> {
    type Ok = ();
    type Error = Fallback;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        self.field(key, value)
    }
    #[inline]
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeMap for DocWriter<'_> {
    type Ok = ();
    type Error = Fallback;
    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        self.at = key.serialize(KeyWriter(self))?;
        Ok(())
    }
    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(ValueWriter { out: &mut *self.out, at: self.at })
    }
    #[inline]
    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(&mut self, key: &K, value: &V) -> Done {
        let at = key.serialize(KeyWriter(self))?;
        value.serialize(ValueWriter { out: &mut *self.out, at })
    }
    #[inline]
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeTupleVariant for VariantWriter<'_> {
    type Ok = ();
    type Error = Fallback;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.inner.element(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeStructVariant for VariantWriter<'_> {
    type Ok = ();
    type Error = Fallback;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        self.inner.field(key, value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

/// The `serialize_*` methods a writer leaves to `bson` (they return [`Fallback`]).
macro_rules! fall_back {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, Fallback> { Err(Fallback) })*
    };
}

/// A map key: a string (or what serializes as one: a unit variant, a newtype around a string),
/// as `bson` takes them; it returns the reserved type byte's index.
struct KeyWriter<'w, 'a>(&'w mut DocWriter<'a>);

impl ser::Serializer for KeyWriter<'_, '_> {
    type Ok = usize;
    type Error = Fallback;
    type SerializeSeq = Impossible<usize, Fallback>;
    type SerializeTuple = Impossible<usize, Fallback>;
    type SerializeTupleStruct = Impossible<usize, Fallback>;
    type SerializeTupleVariant = Impossible<usize, Fallback>;
    type SerializeMap = Impossible<usize, Fallback>;
    type SerializeStruct = Impossible<usize, Fallback>;
    type SerializeStructVariant = Impossible<usize, Fallback>;

    fn is_human_readable(&self) -> bool {
        false
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<usize, Fallback> {
        self.0.key(v)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<usize, Fallback> {
        self.0.key(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<usize, Fallback> {
        value.serialize(self)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<usize, Fallback> {
        value.serialize(self)
    }
    fall_back! {
        serialize_bool(bool) -> usize;
        serialize_i8(i8) -> usize;
        serialize_i16(i16) -> usize;
        serialize_i32(i32) -> usize;
        serialize_i64(i64) -> usize;
        serialize_u8(u8) -> usize;
        serialize_u16(u16) -> usize;
        serialize_u32(u32) -> usize;
        serialize_u64(u64) -> usize;
        serialize_f32(f32) -> usize;
        serialize_f64(f64) -> usize;
        serialize_char(char) -> usize;
        serialize_bytes(&[u8]) -> usize;
        serialize_none() -> usize;
        serialize_unit() -> usize;
        serialize_unit_struct(&'static str) -> usize;
        serialize_seq(Option<usize>) -> Impossible<usize, Fallback>;
        serialize_tuple(usize) -> Impossible<usize, Fallback>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<usize, Fallback>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<usize, Fallback>;
        serialize_map(Option<usize>) -> Impossible<usize, Fallback>;
        serialize_struct(&'static str, usize) -> Impossible<usize, Fallback>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<usize, Fallback>;
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<usize, Fallback> {
        Err(Fallback)
    }
}

/// Inside `bson`'s raw-document newtype: the document's bytes, copied as they are (`bson` does
/// not check them either; the model's raw bodies were checked when they were read or built).
struct RawDocumentWriter<'a>(ValueWriter<'a>);

impl ser::Serializer for RawDocumentWriter<'_> {
    type Ok = ();
    type Error = Fallback;
    type SerializeSeq = Impossible<(), Fallback>;
    type SerializeTuple = Impossible<(), Fallback>;
    type SerializeTupleStruct = Impossible<(), Fallback>;
    type SerializeTupleVariant = Impossible<(), Fallback>;
    type SerializeMap = Impossible<(), Fallback>;
    type SerializeStruct = Impossible<(), Fallback>;
    type SerializeStructVariant = Impossible<(), Fallback>;

    fn is_human_readable(&self) -> bool {
        false
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.0.prefixed(DOCUMENT, &[], v, &[])
    }
    fall_back! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Fallback>;
        serialize_tuple(usize) -> Impossible<(), Fallback>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Fallback>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Fallback>;
        serialize_map(Option<usize>) -> Impossible<(), Fallback>;
        serialize_struct(&'static str, usize) -> Impossible<(), Fallback>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Fallback>;
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Done {
        Err(Fallback)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, _value: &T) -> Done {
        Err(Fallback)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Done {
        Err(Fallback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer itself (no fallback) writes the common shapes, byte for byte as `bson` does;
    /// `tests/writer.rs` compares the two on random values through the public API.
    #[test]
    fn writes_common_shapes_itself() {
        let raw = bson::rawdoc! { "k": 1, "s": "t" };
        let mut map = std::collections::BTreeMap::new();
        map.insert("a\u{e9}", (Some(1u32), None::<i8>, [0.5f32; 2], 'x', vec![raw.clone(); 12]));
        map.insert("", (None, Some(-1), [f32::NAN; 2], '\0', Vec::new()));
        let mut ours = Vec::new();
        write(&map, &mut ours).expect("written without bson");
        assert_eq!(ours, bson::serialize_to_vec(&map).unwrap());
        let over_int64 = std::collections::BTreeMap::from([("n", u64::MAX)]);
        assert!(write(&over_int64, &mut Vec::new()).is_err());
        assert!(write(&1i32, &mut Vec::new()).is_err(), "a top level that is not a document");
        assert!(write(&std::collections::BTreeMap::from([("a\0", 1)]), &mut Vec::new()).is_err());
    }
}
