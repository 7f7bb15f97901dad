//! The quick pass of the entry points: the shapes that derived types ask for and senders write
//! most (exact scalar headers, numbers as GDScript sends them, short strings, flat math values,
//! untyped Arrays, `Option`, unit variants by index or name, structs in Array form or in Dictionary
//! form with their keys in order), read with a reader that the compiler can keep in registers,
//! and nothing else.
//!
//! Anything else, and every error, gives up: the entry point decodes again from the start with
//! the [`Deserializer`](super::Deserializer), which reads everything, names the field of an
//! error and is the one that decides what an error says. So the quick pass only ever returns a
//! value that the Deserializer would have returned for the same bytes, and its own errors are
//! never shown. A pass that gives up costs at most the work it did before (one more linear
//! pass), and it holds nothing by then: what it built is dropped first.
//!
//! Why a pass of its own: the Deserializer's slow paths take `&mut self` out of line, so its
//! position lives in memory and every value stores it and loads it again. Here nothing out of
//! line takes the pass (the string and rare-number readers take the input), so the derived
//! `visit_seq` of a message becomes one function with the position in a register. Per message
//! (the rig's `packets`) that took the decode from 558 to 448 instructions in the Array form
//! and from 587 to 490 in the Dictionary form.

use serde_core::de::{self, DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};

use super::access::Components;
use super::{BOOL, FLOAT, INT, NIL, STRING, containers, flat_math, key_size};
use crate::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::magic::{self, Magic};
use crate::options::Options;
use crate::wire::{self, FLAG_64, Reader};

/// A number that [`Quick::other_number`] read.
enum Number {
    Int(i64),
    Float(f64),
}

/// The number at the start of `rest` (an INT of either width or a 64-bit FLOAT) and its size.
#[inline(never)]
fn other_number(rest: &[u8]) -> Option<(Number, usize)> {
    let (word, tail) = rest.split_first_chunk::<8>()?;
    let word = u64::from_le_bytes(*word);
    let wide = || tail.first_chunk::<4>().map(|high| u64::from(u32::from_le_bytes(*high)) << 32 | word >> 32);
    match word as u32 {
        INT => Some((Number::Int((word >> 32) as u32 as i32 as i64), 8)),
        h if h == INT | FLAG_64 => Some((Number::Int(wide()? as i64), 12)),
        h if h == FLOAT | FLAG_64 => Some((Number::Float(f64::from_bits(wide()?)), 12)),
        _ => None,
    }
}

/// A STRING at the start of `input` as the Deserializer's fast path reads it, visited; and the
/// number of bytes after it (all of them if it gave up).
#[inline(never)]
fn visit_str<'de, V: Visitor<'de>>(input: &'de [u8], max_len: usize, visitor: V) -> (Result<V::Value>, usize) {
    let mut r = Reader::new(input);
    match r.plain_string(STRING, max_len) {
        Some(s) => (visitor.visit_borrowed_str(s), r.remaining()),
        None => (Err(give_up()), input.len()),
    }
}

/// A unit variant named by a STRING at the start of `input` (read as [`visit_str`] reads it),
/// visited as the Deserializer visits it; and the number of bytes after it (all of them if it
/// gave up).
#[inline(never)]
fn visit_variant_name<'de, V: Visitor<'de>>(input: &'de [u8], max_len: usize, visitor: V) -> (Result<V::Value>, usize) {
    let mut r = Reader::new(input);
    match r.plain_string(STRING, max_len) {
        Some(name) => (visitor.visit_enum(name.into_deserializer()), r.remaining()),
        None => (Err(give_up()), input.len()),
    }
}

/// The state of one quick pass over an input.
pub(super) struct Quick<'a, 'de> {
    pub(super) r: Reader<'de>,
    opts: &'a Options,
    /// Depth of the value being read, as the Deserializer counts it.
    depth: usize,
    /// Set when a struct in Dictionary form had its field count but not its keys in order: the
    /// Deserializer's keyed pass would give up at the same key, so the entry point goes
    /// straight to the map path.
    pub(super) keys_out_of_order: bool,
    /// Set by every error that passed through this pass's deserializer, given up or a visitor's
    /// own: a visitor may swallow an error (a default on error, a lenient sequence), and its
    /// answer may depend on where the pass stopped, which is not where the Deserializer would
    /// stop. So the entry point keeps a value only from a pass without any.
    pub(super) failed: bool,
}

/// The error that ends a quick pass (never shown: the entry point decodes again).
#[cold]
#[inline(never)]
fn give_up() -> Error {
    Error::new(ErrorKind::InvalidData("not read by the quick pass (decoded again)"))
}

impl<'a, 'de> Quick<'a, 'de> {
    #[inline(always)]
    pub(super) fn new(input: &'de [u8], opts: &'a Options) -> Self {
        Quick { r: Reader::new(input), opts, depth: 0, keys_out_of_order: false, failed: false }
    }

    /// The untyped ARRAY and DICTIONARY headers in this version.
    #[inline(always)]
    fn containers(&self) -> (u32, u32) {
        containers(self.opts.version)
    }

    /// The next 8 bytes, consumed if their low half is exactly `header`; their high half.
    #[inline(always)]
    fn word(&mut self, header: u32) -> Result<u32> {
        match self.r.word_if(|w| w as u32 == header) {
            Some(word) => Ok((word >> 32) as u32),
            None => Err(give_up()),
        }
    }

    /// The 8-byte payload after a 4-byte `header`, consumed with it if that is the header.
    #[inline(always)]
    fn wide(&mut self, header: u32) -> Option<u64> {
        let bytes = self.r.take_at_if(0, 12, |b| b.first_chunk::<4>() == Some(&header.to_le_bytes()))?;
        Some(u64::from_le_bytes(*bytes[4..].first_chunk::<8>()?))
    }

    /// A container's count (the Deserializer's limit, else give up) one level down.
    #[inline(always)]
    fn enter(&mut self, raw: u32) -> Result<usize> {
        let count = (raw & wire::COUNT_MASK) as usize;
        if count > self.opts.max_len || (count > 0 && self.depth >= self.opts.max_depth) {
            return Err(give_up());
        }
        self.depth += 1;
        Ok(count)
    }

    /// The elements of an Array of `count` (already entered); the visitor must read them all.
    #[expect(clippy::redundant_pattern_matching, reason = "`matches!` reads the value without borrowing it")]
    #[inline(always)]
    fn elements<V: Visitor<'de>>(&mut self, count: usize, hint: Option<usize>, visitor: V) -> Result<V::Value> {
        let mut remaining = count;
        // By value, so that the derived visitor calls `Elements::next_element` itself.
        let value = visitor.visit_seq(Elements { q: &mut *self, remaining: &mut remaining, hint });
        self.depth -= 1;
        if remaining != 0 && matches!(value, Ok(_)) {
            drop(value);
            return Err(give_up());
        }
        value
    }

    /// A flat math value with 32-bit components (what `Deserializer::math` reads straight from
    /// its bytes).
    #[inline(always)]
    fn math<V: Visitor<'de>>(&mut self, ty: VariantType, visitor: V) -> Result<V::Value> {
        let Some((components, int)) = flat_math(ty) else { return Err(give_up()) };
        let Some(id) = ty.id(self.opts.version) else { return Err(give_up()) };
        let header = id.to_le_bytes();
        let Some(bytes) = self.r.take_at_if(0, 4 + 4 * components, |b| b.first_chunk::<4>() == Some(&header)) else {
            return Err(give_up());
        };
        visitor.visit_seq(Components { words: &bytes[4..], int })
    }

    /// Notes an error on its way back to a visitor (see [`Self::failed`]).
    #[expect(clippy::redundant_pattern_matching, reason = "`matches!` reads the value without borrowing it")]
    #[inline(always)]
    fn seen<T>(&mut self, result: Result<T>) -> Result<T> {
        if matches!(result, Err(_)) {
            self.failed = true;
        }
        result
    }

    /// An integer: a 32-bit or 64-bit INT, visited as `i64` (as the Deserializer does).
    #[inline(always)]
    fn int<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_if(|w| w as u32 == INT) {
            return visitor.visit_i64((word >> 32) as u32 as i32 as i64);
        }
        match self.wide(INT | FLAG_64) {
            Some(v) => visitor.visit_i64(v as i64),
            None => Err(give_up()),
        }
    }

    /// An f32: a 32-bit FLOAT, or (out of line) what [`Self::other_number`] reads.
    #[inline(always)]
    fn f32<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_if(|w| w as u32 == FLOAT) {
            return visitor.visit_f32(f32::from_bits((word >> 32) as u32));
        }
        self.other_number(visitor)
    }

    /// An f64: a 32-bit FLOAT widened (as the Deserializer does), or what
    /// [`Self::other_number`] reads.
    #[inline(always)]
    fn f64<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_if(|w| w as u32 == FLOAT) {
            return visitor.visit_f64(f64::from(f32::from_bits((word >> 32) as u32)));
        }
        self.other_number(visitor)
    }

    /// The other numbers a float field reads, as the Deserializer visits them: an INT of
    /// either width (`visit_i64`) and a 64-bit FLOAT (`visit_f64`). GDScript's floats are
    /// doubles, sent 64-bit unless an f32 holds them exactly, and its whole numbers are ints.
    #[inline(always)]
    fn other_number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        // The reader stays out of the out-of-line part (passing `self` would keep the position
        // in memory for the whole pass).
        match other_number(self.r.rest()) {
            Some((Number::Int(v), size)) => {
                self.r.skip(size);
                visitor.visit_i64(v)
            }
            Some((Number::Float(v), size)) => {
                self.r.skip(size);
                visitor.visit_f64(v)
            }
            None => Err(give_up()),
        }
    }

    #[inline(always)]
    fn str<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        // Out of line with the input rather than `self` (see `other_number`).
        let (result, rest) = visit_str(self.r.rest(), self.opts.max_len, visitor);
        self.r.skip(self.r.remaining() - rest);
        result
    }

    #[inline(always)]
    fn option<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.r.peek_u32() {
            Some(header) if header & 0xFF == NIL => {
                self.r.skip(4);
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    #[inline(always)]
    fn unit<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.r.peek_u32() {
            Some(NIL) => {
                self.r.skip(4);
                visitor.visit_unit()
            }
            _ => Err(give_up()),
        }
    }

    #[inline(always)]
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let array = self.containers().0;
        let Some(word) = self.r.word_if(|w| w as u32 == array) else { return Err(give_up()) };
        let count = self.enter((word >> 32) as u32)?;
        // Every element takes at least 4 bytes (as the Deserializer reserves).
        let hint = self.r.prealloc(count, 4);
        self.elements(count, Some(hint), visitor)
    }

    #[inline(always)]
    fn struct_named<V: Visitor<'de>>(
        &mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match magic::lookup(name) {
            None => self.structure(fields, visitor),
            Some(Magic::Math(ty)) => self.math(ty, visitor),
            Some(_) => Err(give_up()),
        }
    }

    #[inline(always)]
    fn newtype<V: Visitor<'de>>(&mut self, name: &'static str, visitor: V) -> Result<V::Value> {
        match magic::lookup(name) {
            None => visitor.visit_newtype_struct(self),
            Some(_) => Err(give_up()),
        }
    }

    /// A unit variant by its index (a non-negative 32-bit INT) or by its name (a STRING).
    #[inline(always)]
    fn enumeration<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_if(|w| w as u32 == INT && w >> 63 == 0) {
            return visitor.visit_enum(((word >> 32) as u32).into_deserializer());
        }
        // Out of line with the input rather than `self` (see `other_number`).
        let (result, rest) = visit_variant_name(self.r.rest(), self.opts.max_len, visitor);
        self.r.skip(self.r.remaining() - rest);
        result
    }

    /// A struct whose name is not reserved: an Array of its fields, or a Dictionary of exactly
    /// its fields with their names as keys, in order.
    #[expect(clippy::redundant_pattern_matching, reason = "`matches!` reads the value without borrowing it")]
    #[inline(always)]
    fn structure<V: Visitor<'de>>(&mut self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        let (array, dict) = self.containers();
        let Some(word) = self.r.word_if(|w| w as u32 == array || w as u32 == dict) else { return Err(give_up()) };
        let count = self.enter((word >> 32) as u32)?;
        if word as u32 == array {
            return self.elements(count, None, visitor);
        }
        if count != fields.len() {
            self.depth -= 1;
            return Err(give_up());
        }
        let mut next = 0;
        let value = visitor.visit_seq(Keyed { q: &mut *self, fields, next: &mut next });
        let read_all = next == fields.len();
        self.depth -= 1;
        if !read_all && matches!(value, Ok(_)) {
            drop(value);
            self.keys_out_of_order = true;
            return Err(give_up());
        }
        value
    }
}

/// The elements of an Array in the quick pass.
struct Elements<'q, 'a, 'de> {
    q: &'q mut Quick<'a, 'de>,
    remaining: &'q mut usize,
    /// What the visitor may reserve (`Reader::prealloc`); `None` for a struct.
    hint: Option<usize>,
}

impl<'de> SeqAccess<'de> for Elements<'_, '_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if *self.remaining == 0 {
            return Ok(None);
        }
        *self.remaining -= 1;
        seed.deserialize(&mut *self.q).map(Some)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        self.hint.map(|hint| (*self.remaining).min(hint))
    }
}

/// The values of a struct in Dictionary form whose keys are its field names in order.
struct Keyed<'q, 'a, 'de> {
    q: &'q mut Quick<'a, 'de>,
    fields: &'static [&'static str],
    next: &'q mut usize,
}

impl<'de> SeqAccess<'de> for Keyed<'_, '_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(&field) = self.fields.get(*self.next) else { return Ok(None) };
        let Some(size) = key_size(&self.q.r, field) else {
            self.q.keys_out_of_order = true;
            self.q.failed = true;
            return Err(give_up());
        };
        self.q.r.skip(size);
        *self.next += 1;
        seed.deserialize(&mut *self.q).map(Some)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - *self.next)
    }
}

/// Requests the quick pass does not read.
macro_rules! gives_up {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* _visitor: V) -> Result<V::Value> {
                self.failed = true;
                Err(give_up())
            }
        )*
    };
}

/// Requests read by a method of [`Quick`], each result seen by [`Quick::seen`].
macro_rules! read_by {
    ($($method:ident($($arg:ident: $ty:ty),*) => $read:ident;)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
                let result = self.$read($($arg,)* visitor);
                self.seen(result)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for &mut Quick<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    read_by! {
        deserialize_i8() => int;
        deserialize_i16() => int;
        deserialize_i32() => int;
        deserialize_i64() => int;
        deserialize_u8() => int;
        deserialize_u16() => int;
        deserialize_u32() => int;
        deserialize_u64() => int;
        deserialize_f32() => f32;
        deserialize_f64() => f64;
        deserialize_str() => str;
        deserialize_string() => str;
        deserialize_option() => option;
        deserialize_unit() => unit;
        deserialize_seq() => seq;
        deserialize_struct(name: &'static str, fields: &'static [&'static str]) => struct_named;
        deserialize_newtype_struct(name: &'static str) => newtype;
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let result = match self.word(BOOL) {
            Ok(word) => visitor.visit_bool(word != 0),
            Err(e) => Err(e),
        };
        self.seen(result)
    }

    #[inline(always)]
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline(always)]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline(always)]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let result = self.enumeration(visitor);
        self.seen(result)
    }

    gives_up! {
        deserialize_any();
        deserialize_ignored_any();
        deserialize_identifier();
        deserialize_map();
        deserialize_unit_struct(_name: &'static str);
        deserialize_i128();
        deserialize_u128();
        deserialize_char();
        deserialize_bytes();
        deserialize_byte_buf();
    }
}
