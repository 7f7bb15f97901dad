//! A borrowing serde deserializer straight over BSON bytes, which checks the structure as it reads.
//!
//! Each document knows where it ends; an element's type, key and value length are checked when its
//! key is read ([`payload::value_len`], the same checks as [`payload::validate`]); strings and keys
//! are checked for UTF-8 when they are visited; nesting is counted against the depth limit before
//! a document or array is entered. What a visitor leaves unread (the rest of a map it stopped
//! reading, a value it did not ask for) is validated with [`payload::validate`] when the document
//! is left, so a successful decode has checked every byte once, and the work stays linear.
//!
//! The common types (double, string, document, array, generic binary, bool, null, int32, int64) are
//! read here, borrowing strings and bytes. The rare ones (ObjectId, dates, regexes, timestamps,
//! Decimal128, code, symbols, other binary subtypes, min/max keys, undefined) and the `bson`
//! crate's private newtype requests (UUID, human-readable, UTF-8-lossy) go to `bson`'s own
//! [`bson::Deserializer`] for that one value, so they read as `bson` reads them. `bson`'s raw types
//! (`RawDocumentBuf`, `RawBson`, …) ask through a newtype name for a document's bytes; they get
//! them borrowed, as from `bson`'s raw deserializer.

use std::cell::Cell;

use serde_core::de::value::BorrowedBytesDeserializer;
use serde_core::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::budget;
use crate::error::{Error, ErrorKind, Result};
use crate::payload::{self, depth_error, malformed, read_i32};

/// `bson`'s newtype names for its raw types (a protocol between its raw types and deserializers).
const RAW_DOCUMENT: &str = "$__private__bson_RawDocument";
const RAW_ARRAY: &str = "$__private__bson_RawArray";
const RAW_BSON: &str = "$__private__bson_RawBson";
/// The prefix of `bson`'s other private newtype names.
const BSON_PRIVATE: &str = "$__bson_private";

/// The nesting depth at which an unvalidated payload is validated whole before serde recurses
/// further: a tree too deep is then refused with at most this many levels on the stack (a decode
/// on a small thread stack, of a tree one level over the limit, must not overflow it).
const DEEP: usize = 48;

/// Validates the whole payload, once per decode, when a tree first nests [`DEEP`] levels.
#[cold]
#[inline(never)]
fn deep_check(buf: &[u8], max_depth: usize) -> Result<()> {
    if DEEP_CHECKED.with(|done| done.replace(true)) {
        return Ok(());
    }
    payload::validate(buf, max_depth)
}

/// One BSON value to deserialize: an element's value, or the root document.
#[derive(Clone, Copy)]
pub(crate) struct Value<'de> {
    buf: &'de [u8],
    kind: u8,
    /// Where the value starts.
    pos: usize,
    /// Its length (already checked to fit).
    len: usize,
    /// The nesting depth of the document holding it (the root is held at depth 0).
    depth: usize,
    max_depth: usize,
}

impl<'de> Value<'de> {
    /// The root document of `buf`, which must be exactly one document (its length prefix equal to
    /// the buffer's length, its last byte NUL); its contents are checked as they are read.
    pub(crate) fn root(buf: &'de [u8], max_depth: usize) -> Result<Self> {
        if buf.len() < 5 || read_i32(buf, 0) as usize != buf.len() || read_i32(buf, 0) < 5 || buf[buf.len() - 1] != 0 {
            // The exact reason (and position) comes from the full validation.
            payload::validate(buf, max_depth)?;
            return Err(malformed(0, "not one BSON document"));
        }
        Ok(Value { buf, kind: 0x03, pos: 0, len: buf.len(), depth: 0, max_depth })
    }

    fn bytes(&self) -> &'de [u8] {
        &self.buf[self.pos..self.pos + self.len]
    }

    fn i32_at(&self, at: usize) -> i32 {
        read_i32(self.buf, self.pos + at)
    }

    fn str(&self) -> Result<&'de str> {
        // A string: i32 length (with the NUL), the bytes, the NUL (checked by `value_len`).
        let bytes = &self.buf[self.pos + 4..self.pos + self.len - 1];
        std::str::from_utf8(bytes)
            .map_err(|e| malformed(self.pos + 4 + e.valid_up_to(), format!("a string is not valid UTF-8: {e}")))
    }

    fn is_common(&self) -> bool {
        match self.kind {
            0x01 | 0x02 | 0x03 | 0x04 | 0x08 | 0x0A | 0x10 | 0x12 => true,
            0x05 => self.buf[self.pos + 4] == 0x00,
            _ => false,
        }
    }

    /// A document's (or array's) elements, after checking the depth limit.
    fn enter(&self) -> Result<Elements<'de>> {
        if self.depth + 1 > self.max_depth {
            return Err(depth_error(self.pos, self.max_depth));
        }
        if self.depth + 1 == DEEP && self.max_depth != usize::MAX {
            deep_check(self.buf, self.max_depth)?;
        }
        Ok(Elements {
            buf: self.buf,
            pos: self.pos + 4,
            end: self.pos + self.len - 1,
            depth: self.depth + 1,
            max_depth: self.max_depth,
            pending: None,
            done: false,
        })
    }

    /// Checks the value's structure without visiting it (the nested documents of a document).
    fn check(&self) -> Result<()> {
        match self.kind {
            0x03 | 0x04 => {
                if self.depth + 1 > self.max_depth {
                    return Err(depth_error(self.pos, self.max_depth));
                }
                payload::validate(self.bytes(), self.max_depth - self.depth).map_err(|e| shift(e, self.pos))
            }
            0x0F => {
                // The scope document (its length and terminator are checked by `value_len`).
                if self.depth + 1 > self.max_depth {
                    return Err(depth_error(self.pos, self.max_depth));
                }
                let scope = self.pos + 8 + self.i32_at(4) as usize;
                let scope_bytes = &self.buf[scope..self.pos + self.len];
                payload::validate(scope_bytes, self.max_depth - self.depth).map_err(|e| shift(e, scope))
            }
            _ => Ok(()),
        }
    }

    /// Visits a document or array as `bson`'s raw types ask: a map of one entry, the type's newtype
    /// name → the bytes.
    fn visit_raw<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.check()?;
        let name = if self.kind == 0x04 { RAW_ARRAY } else { RAW_DOCUMENT };
        visitor.visit_map(RawEntry { name: Some(name), bytes: self.bytes() })
    }

    /// Reads the value with `bson`'s own deserializer (out of line: it keeps the frames of the
    /// common path small, and nesting recurses through them).
    #[cold]
    #[inline(never)]
    fn delegate_with<R>(self, read: impl FnOnce(bson::Deserializer) -> bson::error::Result<R>) -> Result<R> {
        read(self.delegate()?).map_err(Error::from)
    }

    /// Any value, as its type says. Always inlined: serde recursion passes through here once per
    /// nesting level, and a tree at the depth limit must fit an application's stack.
    #[inline(always)]
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.kind {
            0x01 => visitor.visit_f64(f64::from_le_bytes(self.bytes().try_into().expect("8 bytes"))),
            0x02 => visitor.visit_borrowed_str(self.str()?),
            // (What the visitor leaves unread is checked when `Elements` drops.)
            0x03 => visitor.visit_map(&mut self.enter()?),
            0x04 => visitor.visit_seq(&mut self.enter()?),
            0x05 if self.buf[self.pos + 4] == 0x00 => visitor.visit_borrowed_bytes(&self.bytes()[5..]),
            0x08 => visitor.visit_bool(self.buf[self.pos] == 1),
            0x0A => visitor.visit_unit(),
            0x10 => visitor.visit_i32(self.i32_at(0)),
            0x12 => visitor.visit_i64(i64::from_le_bytes(self.bytes().try_into().expect("8 bytes"))),
            _ => self.delegate_with(|d| de::Deserializer::deserialize_any(d, visitor)),
        }
    }

    /// Hands the value to `bson`'s own deserializer (an owned [`bson::Bson`] of it).
    fn delegate(&self) -> Result<bson::Deserializer> {
        self.check()?;
        // One element in a document of its own: `bson` parses it, and converts it (linearly).
        let key_and_type = 3;
        let total = 4 + key_and_type + self.len + 1;
        let mut doc = Vec::with_capacity(total);
        doc.extend_from_slice(&(total as i32).to_le_bytes());
        doc.extend_from_slice(&[self.kind, b'0', 0]);
        doc.extend_from_slice(self.bytes());
        doc.push(0);
        let raw = bson::RawDocument::from_bytes(&doc)?;
        let element = raw.get("0")?.ok_or_else(|| malformed(self.pos, "a value bson cannot read"))?;
        let value = budget::bson_from_raw(element, &mut |_| true).map_err(|e| match e {
            budget::ConvertError::Raw(e) => Error::from(e).with_position(crate::Position::Payload(self.pos as u64)),
            budget::ConvertError::Budget => malformed(self.pos, "unreachable: no budget"),
        })?;
        Ok(bson::Deserializer::new(value))
    }
}

/// Moves the payload position of an error found in a sub-slice starting at `base`.
fn shift(e: Error, base: usize) -> Error {
    match e.position() {
        Some(crate::Position::Payload(at)) => e.with_position(crate::Position::Payload(base as u64 + at)),
        _ => e,
    }
}

macro_rules! delegated {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? visitor: V) -> Result<V::Value> {
                if self.is_common() {
                    self.any(visitor)
                } else {
                    self.delegate_with(|d| serde_core::Deserializer::$method(d, $($($arg,)*)? visitor))
                }
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Value<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.kind {
            0x0A => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.kind {
            0x02 => visitor.visit_enum(self.str()?.into_deserializer()),
            0x03 => visitor.visit_enum(&mut self.enter()?),
            _ if self.is_common() => {
                Err(de::Error::custom(format!("expected enum, instead got a BSON value of type {:#04x}", self.kind)))
            }
            _ => self.delegate_with(|d| de::Deserializer::deserialize_enum(d, name, variants, visitor)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        match name {
            RAW_BSON if matches!(self.kind, 0x03 | 0x04) => self.visit_raw(visitor),
            RAW_BSON if self.is_common() => self.deserialize_any(visitor),
            RAW_DOCUMENT | RAW_ARRAY => {
                let wanted = if name == RAW_ARRAY { 0x04 } else { 0x03 };
                if self.kind != wanted {
                    return Err(Error::payload(
                        ErrorKind::Data,
                        self.pos,
                        format!(
                            "expected a raw {}, found a BSON value of type {:#04x}",
                            if wanted == 0x04 { "array" } else { "document" },
                            self.kind
                        ),
                    ));
                }
                self.visit_raw(visitor)
            }
            _ if name == RAW_BSON || name.starts_with(BSON_PRIVATE) => {
                self.delegate_with(|d| de::Deserializer::deserialize_newtype_struct(d, name, visitor))
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    delegated! {
        deserialize_bool; deserialize_i8; deserialize_i16; deserialize_i32; deserialize_i64;
        deserialize_i128; deserialize_u8; deserialize_u16; deserialize_u32; deserialize_u64; deserialize_u128;
        deserialize_f32; deserialize_f64; deserialize_char; deserialize_str; deserialize_string;
        deserialize_bytes; deserialize_byte_buf; deserialize_unit;
        deserialize_unit_struct(name: &'static str);
        deserialize_seq;
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map;
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_identifier;
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The elements of a document or array being read.
pub(crate) struct Elements<'de> {
    buf: &'de [u8],
    /// The next element.
    pos: usize,
    /// The terminator.
    end: usize,
    /// The depth of this document (its elements are held at it).
    depth: usize,
    max_depth: usize,
    /// The value of the key just read, not yet asked for.
    pending: Option<Value<'de>>,
    /// The terminator was reached.
    done: bool,
}

impl<'de> Elements<'de> {
    /// Reads the next element's type and key and checks its value's extent; `None` at the end.
    #[inline]
    fn next(&mut self) -> Result<Option<(&'de [u8], Value<'de>)>> {
        if self.pos == self.end {
            self.done = true;
            return Ok(None);
        }
        let element = self.pos;
        let kind = self.buf[element];
        let key_start = element + 1;
        let key_len = self.buf[key_start..self.end]
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| malformed(element, "an unterminated key"))?;
        let pos = key_start + key_len + 1;
        let len = payload::value_len(self.buf, kind, pos, self.end, element)?;
        self.pos = pos + len;
        let value = Value { buf: self.buf, kind, pos, len, depth: self.depth, max_depth: self.max_depth };
        Ok(Some((&self.buf[key_start..key_start + key_len], value)))
    }

    fn key(&self, key: &'de [u8]) -> Result<&'de str> {
        let start = key.as_ptr() as usize - self.buf.as_ptr() as usize;
        std::str::from_utf8(key).map_err(|e| malformed(start, format!("a key is not valid UTF-8: {e}")))
    }

    /// Checks what the visitor left unread.
    fn check_rest(&mut self) -> Result<()> {
        if let Some(value) = self.pending.take() {
            value.check()?;
        }
        while !self.done {
            if let Some((key, value)) = self.next()? {
                self.key(key)?;
                value.check()?;
            }
        }
        Ok(())
    }
}

impl Drop for Elements<'_> {
    /// A visitor that stopped before the end of a document leaves its rest unread: it is checked
    /// here, and a fault found marks the decode as failed ([`UnreadScope`]).
    fn drop(&mut self) {
        if !self.done && self.check_rest().is_err() {
            UNREAD_FAULT.with(|fault| fault.set(true));
        }
    }
}

thread_local! {
    /// Set when a part of the document that no visitor read turned out malformed.
    static UNREAD_FAULT: Cell<bool> = const { Cell::new(false) };
    /// Set once a deep tree's payload was validated whole ([`deep_check`]).
    static DEEP_CHECKED: Cell<bool> = const { Cell::new(false) };
}

/// One outermost decode's watch on [`UNREAD_FAULT`] (a guard, like the model budget's scope).
pub(crate) struct UnreadScope {
    outer: bool,
    outer_deep: bool,
}

impl UnreadScope {
    /// Starts watching (a nested decode keeps the outer one's state).
    pub(crate) fn enter() -> Self {
        UnreadScope {
            outer: UNREAD_FAULT.with(|fault| fault.replace(false)),
            outer_deep: DEEP_CHECKED.with(|done| done.replace(false)),
        }
    }

    /// Ends the watch: a decode that succeeded over a malformed unread part fails.
    pub(crate) fn finish<T>(self, result: Result<T>) -> Result<T> {
        let fault = UNREAD_FAULT.with(|fault| fault.replace(self.outer));
        DEEP_CHECKED.with(|done| done.set(self.outer_deep));
        match result {
            Ok(_) if fault => Err(malformed(0, "a part of the document the type did not read is malformed")),
            result => result,
        }
    }
}

impl<'de> de::MapAccess<'de> for &mut Elements<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if let Some(value) = self.pending.take() {
            value.check()?;
        }
        match self.next()? {
            None => Ok(None),
            Some((key, value)) => {
                let key = self.key(key)?;
                self.pending = Some(value);
                seed.deserialize(Key(key)).map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.pending.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("a map value was asked for before its key")),
        }
    }
}

impl<'de> de::SeqAccess<'de> for &mut Elements<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.next()? {
            None => Ok(None),
            Some((key, value)) => {
                if !key.is_ascii() {
                    self.key(key)?;
                }
                seed.deserialize(value).map(Some)
            }
        }
    }
}

impl<'de> de::EnumAccess<'de> for &mut Elements<'de> {
    type Error = Error;
    type Variant = Value<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Value<'de>)> {
        match self.next()? {
            None => Err(de::Error::custom("expected an enum variant, found an empty document")),
            Some((key, value)) => {
                let key = self.key(key)?;
                let variant = seed.deserialize(Key(key))?;
                Ok((variant, value))
            }
        }
    }
}

impl<'de> de::VariantAccess<'de> for Value<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Err(de::Error::custom("expected a string enum, got a document instead"))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}

/// The one-entry map `bson`'s raw types read a document's bytes from.
struct RawEntry<'de> {
    name: Option<&'static str>,
    bytes: &'de [u8],
}

impl<'de> de::MapAccess<'de> for RawEntry<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.name.take() {
            None => Ok(None),
            Some(name) => seed.deserialize(Key(name)).map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(BorrowedBytesDeserializer::<Error>::new(self.bytes))
    }
}

/// A key (or a raw type's newtype name), borrowed; a newtype around a string (`bson`'s `CowStr`)
/// reads it too.
struct Key<'de>(&'de str);

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}
