//! The serde `Deserializer`: Godot Variant bytes → Rust values, borrowing strings and byte arrays
//! from the input.
//!
//! The format is self-describing: `deserialize_any` maps every Godot type onto the serde data
//! model (math types as nested sequences of their components, NodePath as its text, packed arrays
//! as sequences, PackedByteArray as bytes). Typed requests are lenient where Godot users expect
//! it: a struct reads a Dictionary or an Array, a `String` reads a StringName, a `Vec<T>` reads
//! any packed array of `T`, integers and floats read any width.

use std::io::{self, Read as _};

use serde_core::de::value::SeqDeserializer;
use serde_core::de::{self, Deserializer as _, IntoDeserializer, Visitor};
use serde_core::forward_to_deserialize_any;

use crate::VariantType;
use crate::decode;
use crate::error::{Error, ErrorKind, Result};
use crate::magic::{self, Layout, Magic};
use crate::options::{Options, Version};
use crate::variant::HANDOFF;
use crate::wire::{self, FLAG_64, FLAG_OBJECT_AS_ID, Reader};

mod access;
mod path;
mod quick;

use access::{
    Components, Elements, Entries, FullObjectParts, Handoff, KeyedFields, MathDe, NodePathParts, PackedElems,
    PackedStrings, SignalParts, Tagged, short,
};

/// A serde Deserializer over a byte slice of Godot Variant bytes.
///
/// ```
/// use serde_godot::Deserializer;
/// use serde::Deserialize;
///
/// let bytes = [4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0]; // String "hi"
/// let mut de = Deserializer::from_slice(&bytes);
/// let s = <&str>::deserialize(&mut de)?; // borrowed from `bytes`
/// de.end()?;
/// assert_eq!(s, "hi");
/// # Ok::<(), serde_godot::Error>(())
/// ```
pub struct Deserializer<'de> {
    /// The input and the position in it (errors read Dictionary keys again from its input for
    /// their field path).
    r: Reader<'de>,
    opts: Options,
    /// Depth of the value being read (the top-level value is depth 0).
    depth: usize,
    /// The field names of the struct being read and where the next one probably is: a
    /// Dictionary key that equals one of them is handed over as that `&'static str`, without
    /// validating its UTF-8 again.
    fields: &'static [&'static str],
    next_field: usize,
    /// Whether an object id or RID may be visited as an integer inside [`crate::ObjectId`] /
    /// [`crate::Rid`] ([`Options::ids_as_integers`] allows it everywhere). Not set from the
    /// options: reading a byte of `opts` here split the copy of `opts` into overlapping
    /// 16-byte stores, and the count check's load of `max_len` right after them could not be
    /// forwarded from either (a stall on every decode).
    ids_ok: bool,
    /// Whether a struct in Dictionary form whose keys are exactly its field names in order may
    /// be visited as a sequence of its values (see [`Self::keyed`]). Only the entry points that
    /// can decode again from the start turn it on.
    keyed_seq: bool,
    /// Set when a struct visited as a sequence gave up (a key out of order, a visitor without
    /// `visit_seq`, any error): the result of this pass is not used and the entry point decodes
    /// again with `keyed_seq` off (today's map path, its values, errors and field paths).
    retry: bool,
}

// Headers whose type id is the same in Godot 3 and 4 (the fast paths compare whole headers;
// anything else — flags, unused bits — takes the general path).
const NIL: u32 = 0;
const BOOL: u32 = 1;
const INT: u32 = 2;
const FLOAT: u32 = 3;
const STRING: u32 = 4;

impl<'de> Deserializer<'de> {
    /// A deserializer with the default [`Options`] (Godot 4).
    pub fn from_slice(input: &'de [u8]) -> Self {
        Self::with_options(input, Options::new())
    }

    /// A deserializer with `opts`.
    pub fn with_options(input: &'de [u8], opts: Options) -> Self {
        Deserializer {
            r: Reader::new(input),
            opts,
            depth: 0,
            fields: &[],
            next_field: 0,
            ids_ok: false,
            keyed_seq: false,
            retry: false,
        }
    }

    /// Checks that the whole input was consumed (the engine ignores trailing bytes; serde-godot
    /// treats them as an error unless you use [`Options::take_from_slice`]).
    pub fn end(&self) -> Result<()> {
        match self.r.remaining() {
            0 => Ok(()),
            n => Err(Error::at(ErrorKind::TrailingBytes(n), self.r.pos())),
        }
    }

    /// The byte offset of the next value.
    pub fn position(&self) -> usize {
        self.r.pos()
    }

    fn remaining_input(&self) -> &'de [u8] {
        self.r.rest()
    }

    /// Header type ids to types in this version (looked up where needed rather than kept: one
    /// field less to set up per decode).
    #[inline(always)]
    fn types(&self) -> &'static [Option<VariantType>; 256] {
        wire::types_table(self.opts.version)
    }

    #[inline]
    fn header(&mut self) -> Result<(VariantType, u32)> {
        let at = self.r.pos();
        let header = self.r.u32()?;
        match self.types()[(header & 0xFF) as usize] {
            Some(ty) => Ok((ty, header)),
            None => Err(Error::at(ErrorKind::UnknownType(header & 0xFF), at)),
        }
    }

    /// The general path for a header a fast path did not take.
    #[inline(never)]
    fn slow<V: Visitor<'de>>(&mut self, start: usize, header: u32, visitor: V) -> Result<V::Value> {
        match self.types()[(header & 0xFF) as usize] {
            Some(ty) => self.value(start, ty, header, visitor),
            None => Err(Error::at(ErrorKind::UnknownType(header & 0xFF), start)),
        }
    }

    /// The general path for an integer or float request: an object id or RID is refused unless
    /// allowed (they are not numbers the sender meant for a number field).
    #[inline(never)]
    fn slow_number<V: Visitor<'de>>(&mut self, start: usize, header: u32, visitor: V) -> Result<V::Value> {
        let ty = self.types()[(header & 0xFF) as usize];
        let is_id =
            ty == Some(VariantType::Rid) || (ty == Some(VariantType::Object) && header & FLAG_OBJECT_AS_ID != 0);
        if is_id && !(self.ids_ok || self.opts.ids_as_integers) {
            let found = ty.expect("checked");
            let kind = ErrorKind::WrongType { expected: VariantType::Int, found };
            return Err(Error::at(kind, start).with_hint(
                "an object id or RID where a number was expected: decode it as serde_godot::ObjectId / Rid, or allow it with Options::ids_as_integers(true)",
            ));
        }
        self.slow(start, header, visitor)
    }

    /// An int (any width) for the integer fast paths, after the next `skip` bytes (a Dictionary
    /// key already checked, see [`access::KeyedValue`]; 0 elsewhere): the value's read also
    /// consumes them, and every other path consumes them first.
    #[inline(always)]
    fn int<V: Visitor<'de>>(&mut self, skip: usize, visitor: V) -> Result<V::Value> {
        // The common case, a 32-bit INT, is one 8-byte read.
        if let Some(word) = self.r.word_at_if(skip, |w| w as u32 == INT) {
            return visitor.visit_i64((word >> 32) as u32 as i32 as i64).map_err(|e: Error| e.or_at(self.r.pos() - 8));
        }
        self.r.skip(skip);
        self.int_slow(visitor)
    }

    /// A bool (see [`Self::int`] for `skip`).
    #[inline(always)]
    fn bool<V: Visitor<'de>>(&mut self, skip: usize, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_at_if(skip, |w| w as u32 == BOOL) {
            return visitor.visit_bool(word >> 32 != 0).map_err(|e: Error| e.or_at(self.r.pos() - 8));
        }
        self.r.skip(skip);
        self.bool_slow(visitor)
    }

    /// An f32 (see [`Self::int`] for `skip`).
    #[inline(always)]
    fn f32<V: Visitor<'de>>(&mut self, skip: usize, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_at_if(skip, |w| w as u32 == FLOAT) {
            let v = f32::from_bits((word >> 32) as u32);
            return visitor.visit_f32(v).map_err(|e: Error| e.or_at(self.r.pos() - 8));
        }
        self.r.skip(skip);
        self.f32_slow(visitor)
    }

    /// An f64 (see [`Self::int`] for `skip`).
    #[inline(always)]
    fn f64<V: Visitor<'de>>(&mut self, skip: usize, visitor: V) -> Result<V::Value> {
        if let Some(word) = self.r.word_at_if(skip, |w| w as u32 == FLOAT) {
            let v = f32::from_bits((word >> 32) as u32) as f64;
            return visitor.visit_f64(v).map_err(|e: Error| e.or_at(self.r.pos() - 8));
        }
        self.r.skip(skip);
        self.f64_slow(visitor)
    }

    /// The one shape of the scalar slow paths below: read a header; `read` takes the value for
    /// the headers it knows (`None` for any other, nothing more read); visit it with the value's
    /// offset on a visitor error. Any other header takes the general path, which refuses object
    /// ids and RIDs when `number`. Inlined into each out-of-line caller, so the fast paths that
    /// call those stay as small as they were.
    #[inline(always)]
    fn scalar_slow<V: Visitor<'de>, T>(
        &mut self,
        visitor: V,
        number: bool,
        read: impl FnOnce(&mut Reader<'de>, u32) -> Option<Result<T>>,
        visit: impl FnOnce(V, T) -> Result<V::Value>,
    ) -> Result<V::Value> {
        let start = self.r.pos();
        let header = self.r.u32()?;
        match read(&mut self.r, header) {
            Some(value) => visit(visitor, value?).map_err(|e: Error| e.or_at(start)),
            None if number => self.slow_number(start, header, visitor),
            None => self.slow(start, header, visitor),
        }
    }

    /// What [`Self::int`]'s fast path does not take, out of line so that the fast path inlines
    /// into its callers.
    #[inline(never)]
    fn int_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let read = |r: &mut Reader<'de>, header| match header {
            INT => Some(r.u32().map(|v| v as i32 as i64)),
            h if h == INT | FLAG_64 => Some(r.u64().map(|v| v as i64)),
            _ => None,
        };
        self.scalar_slow(visitor, true, read, V::visit_i64)
    }

    /// What `deserialize_bool`'s fast path does not take (out of line, see [`Self::int_slow`]).
    #[inline(never)]
    fn bool_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let read = |r: &mut Reader<'de>, header| (header == BOOL).then(|| r.u32().map(|v| v != 0));
        self.scalar_slow(visitor, false, read, V::visit_bool)
    }

    /// What `deserialize_f32`'s fast path does not take (out of line, see [`Self::int_slow`]).
    #[inline(never)]
    fn f32_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let read = |r: &mut Reader<'de>, header| (header == FLOAT).then(|| r.f32());
        self.scalar_slow(visitor, true, read, V::visit_f32)
    }

    /// What `deserialize_f64`'s fast path does not take (out of line, see [`Self::int_slow`]).
    #[inline(never)]
    fn f64_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let read = |r: &mut Reader<'de>, header| match header {
            FLOAT => Some(r.f32().map(f64::from)),
            h if h == FLOAT | FLAG_64 => Some(r.f64()),
            _ => None,
        };
        self.scalar_slow(visitor, true, read, V::visit_f64)
    }

    /// What `deserialize_str`'s fast path ([`Reader::plain_string`]) does not take: any other
    /// string (the engine's rules, exact errors) or value (out of line, see [`Self::int_slow`]).
    #[inline(never)]
    fn str_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let max_len = self.opts.max_len;
        let read = |r: &mut Reader<'de>, header| (header == STRING).then(|| r.str(max_len));
        self.scalar_slow(visitor, false, read, V::visit_borrowed_str)
    }

    /// The untyped ARRAY and DICTIONARY headers in this version (the hot containers): derived
    /// where needed rather than kept, two fields less to set up per decode.
    #[inline(always)]
    fn containers(&self) -> (u32, u32) {
        containers(self.opts.version)
    }

    /// An untyped ARRAY or DICTIONARY header and its raw count, read as one 8-byte word; `None`
    /// (nothing consumed) for any other header or fewer than 8 bytes.
    #[inline(always)]
    fn open_container(&mut self) -> Option<(u32, u32)> {
        let (array, dict) = self.containers();
        let word = self.r.word_if(|w| w as u32 == array || w as u32 == dict)?;
        Some((word as u32, (word >> 32) as u32))
    }

    /// What [`Self::open_container`] did not take: an ARRAY or DICTIONARY header without room
    /// for its count (an error at the count), or any other value.
    #[inline(never)]
    fn not_container<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let header = self.r.u32()?;
        let (array, dict) = self.containers();
        if header == array || header == dict {
            return Err(self.r.eof());
        }
        self.slow(start, header, visitor)
    }

    /// What `deserialize_seq`'s fast path (an untyped ARRAY) does not take: a PackedByteArray,
    /// a Dictionary, or any other value. Out of line, so that the fast path is small enough
    /// to inline where a `Vec` field is read (inlined, this path gave every `deserialize_seq`
    /// a large frame to set up and tear down).
    #[inline(never)]
    fn seq_other<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let (ty, header) = self.header()?;
        if ty == VariantType::PackedByteArray {
            // `Vec<u8>` without serde_bytes asks for a sequence of u8.
            let bytes = decode::packed_bytes(&mut self.r, self.opts.max_len)?;
            let mut access = SeqDeserializer::<_, Error>::new(bytes.iter().copied());
            let value = visitor.visit_seq(&mut access).map_err(|e| e.or_at(start))?;
            access.end()?;
            return Ok(value);
        }
        self.value(start, ty, header, visitor)
    }

    /// What `deserialize_enum`'s fast path does not take: a variant by name, a 64-bit or
    /// negative index, a `{variant: value}` Dictionary, or any other value. Out of line, so
    /// that the fast path inlines where an enum (or an `Option` of one) is read.
    #[inline(never)]
    fn enum_other<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let (ty, header) = self.header()?;
        let result = match ty {
            VariantType::String | VariantType::StringName => {
                let name = self.r.str(self.opts.max_len)?;
                visitor.visit_enum(name.into_deserializer())
            }
            VariantType::Int => {
                let v = if header & FLAG_64 != 0 { self.r.u64()? as i64 } else { self.r.u32()? as i32 as i64 };
                let index = u32::try_from(v)
                    .map_err(|_| <Error as de::Error>::invalid_value(de::Unexpected::Signed(v), &"a variant index"))?;
                visitor.visit_enum(index.into_deserializer())
            }
            VariantType::Dictionary => {
                decode::container_type(&mut self.r, &self.opts, header, 16)?;
                decode::container_type(&mut self.r, &self.opts, header, 18)?;
                let count = self.r.count(self.opts.max_len)?;
                if count != 1 {
                    return Err(Error::at(
                        ErrorKind::InvalidData("an enum must be a one-entry Dictionary {variant: value}"),
                        start,
                    ));
                }
                self.depth += 1;
                self.check_depth()?;
                let value = visitor.visit_enum(Tagged { de: &mut *self, key_at: 0 });
                self.depth -= 1;
                value
            }
            _ => return self.value(start, ty, header, visitor),
        };
        result.map_err(|e| e.or_at(start))
    }

    /// A container for the seq / struct fast paths.
    #[inline]
    fn container<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let Some((header, raw)) = self.open_container() else { return self.not_container(visitor) };
        self.opened(start, header, raw, visitor)
    }

    /// Visits the Array or Dictionary whose header and raw count [`Self::open_container`] read
    /// at `start`.
    #[inline(always)]
    fn opened<V: Visitor<'de>>(&mut self, start: usize, header: u32, raw: u32, visitor: V) -> Result<V::Value> {
        let count = wire::count_of(raw, self.opts.max_len, start + 4)?;
        let result =
            if header == self.containers().0 { self.seq(count, &[], visitor) } else { self.map(count, visitor) };
        result.map_err(|e| e.or_at(start))
    }

    /// A struct: an Array of its fields, or a Dictionary whose keys are looked up among `fields`
    /// first (see [`Self::known_field`]).
    #[inline]
    fn structure<V: Visitor<'de>>(&mut self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let Some((header, raw)) = self.open_container() else { return self.not_container(visitor) };
        let count = wire::count_of(raw, self.opts.max_len, start + 4)?;
        let result = if header == self.containers().0 {
            self.elements(count, fields, None, visitor)
        } else if self.keyed_seq && count == fields.len() && !self.retry {
            self.keyed(fields, visitor)
        } else {
            self.struct_map(count, fields, visitor)
        };
        result.map_err(|e| e.or_at(start))
    }

    /// A struct in Dictionary form read with the map path. Out of line, like
    /// [`Self::keyed`]: the derived `visit_map` is big, and inlined here it kept every derived
    /// `deserialize` from being inlined into the entry points.
    #[inline(never)]
    fn struct_map<V: Visitor<'de>>(
        &mut self,
        count: usize,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let saved = (std::mem::replace(&mut self.fields, fields), std::mem::take(&mut self.next_field));
        let result = self.map(count, visitor);
        (self.fields, self.next_field) = saved;
        result
    }

    #[inline]
    fn peek_type(&self) -> Option<VariantType> {
        self.r.peek_u32().and_then(|h| self.types()[(h & 0xFF) as usize])
    }

    /// Visits the value whose header was just read.
    #[inline]
    fn value<V: Visitor<'de>>(&mut self, start: usize, ty: VariantType, header: u32, visitor: V) -> Result<V::Value> {
        self.value_inner(ty, header, visitor).map_err(|e| e.or_at(start))
    }

    fn value_inner<V: Visitor<'de>>(&mut self, ty: VariantType, header: u32, visitor: V) -> Result<V::Value> {
        use VariantType as T;
        match ty {
            T::Nil => visitor.visit_unit(),
            T::Bool => visitor.visit_bool(self.r.u32()? != 0),
            T::Int => {
                if header & FLAG_64 != 0 {
                    visitor.visit_i64(self.r.u64()? as i64)
                } else {
                    visitor.visit_i64(self.r.u32()? as i32 as i64)
                }
            }
            T::Float => {
                if header & FLAG_64 != 0 {
                    visitor.visit_f64(self.r.f64()?)
                } else {
                    visitor.visit_f32(self.r.f32()?)
                }
            }
            T::String | T::StringName => visitor.visit_borrowed_str(self.r.str(self.opts.max_len)?),
            T::Dictionary => {
                decode::container_type(&mut self.r, &self.opts, header, 16)?;
                decode::container_type(&mut self.r, &self.opts, header, 18)?;
                let count = self.r.count(self.opts.max_len)?;
                self.map(count, visitor)
            }
            T::Array => {
                decode::container_type(&mut self.r, &self.opts, header, 16)?;
                let count = self.r.count(self.opts.max_len)?;
                self.seq(count, &[], visitor)
            }
            T::PackedByteArray => visitor.visit_borrowed_bytes(decode::packed_bytes(&mut self.r, self.opts.max_len)?),
            T::PackedStringArray => {
                let count = decode::packed_string_count(&mut self.r, self.opts.max_len)?;
                let hint = self.r.prealloc(count, 4);
                let mut access = PackedStrings { de: self, remaining: count, count, hint };
                let value = visitor.visit_seq(&mut access)?;
                match access.remaining {
                    0 => Ok(value),
                    n => short(count, count - n, "elements"),
                }
            }
            T::PackedInt32Array
            | T::PackedInt64Array
            | T::PackedFloat32Array
            | T::PackedFloat64Array
            | T::PackedVector2Array
            | T::PackedVector3Array
            | T::PackedColorArray
            | T::PackedVector4Array => {
                let (bytes, wide) = decode::packed_raw(&mut self.r, &self.opts, ty, header)?;
                let size = wire::packed_elem_size(ty, wide).expect("fixed-size packed array");
                let mut access = PackedElems { chunks: bytes.chunks_exact(size), count: bytes.len() / size, ty, wide };
                let value = visitor.visit_seq(&mut access)?;
                match access.chunks.len() {
                    0 => Ok(value),
                    n => short(bytes.len() / size, bytes.len() / size - n, "elements"),
                }
            }
            T::NodePath => {
                let path = decode::node_path(&mut self.r, self.opts.max_len)?;
                visitor.visit_string(path.to_string())
            }
            T::Rid => visitor.visit_u64(if self.opts.version == Version::Godot4 { self.r.u64()? } else { 0 }),
            T::Object => {
                if header & FLAG_OBJECT_AS_ID != 0 {
                    visitor.visit_u64(self.r.u64()?)
                } else {
                    self.full_object(visitor, false)
                }
            }
            T::Callable => visitor.visit_unit(),
            T::Signal => {
                let name = self.r.str(self.opts.max_len)?;
                let id = self.r.u64()?;
                visitor.visit_seq(SignalParts { name: Some(name), id: Some(id) })
            }
            _ => {
                let layout = Layout::of(ty).expect("every other type is a math type");
                let wide = wire::real_is_64(header, self.opts.version);
                let at = self.r.pos();
                let bytes = self.r.take(layout.size(if wide { 8 } else { 4 })).map_err(|e| e.or_at(at))?;
                MathDe { layout, bytes, wide }.deserialize_any(visitor)
            }
        }
    }

    /// Visits the elements of an Array.
    ///
    /// `names` are the struct's field names when the Array is a struct (for error paths).
    #[inline]
    fn seq<V: Visitor<'de>>(&mut self, count: usize, names: &'static [&'static str], visitor: V) -> Result<V::Value> {
        // Every element takes at least 4 bytes.
        let hint = self.r.prealloc(count, 4);
        self.elements(count, names, Some(hint), visitor)
    }

    /// Visits the elements of an Array; `hint` is what the visitor may reserve for (`None` for
    /// a struct in Array form: serde's derived visitors never ask, so nothing is reserved for
    /// them).
    #[inline]
    fn elements<V: Visitor<'de>>(
        &mut self,
        count: usize,
        names: &'static [&'static str],
        hint: Option<usize>,
        visitor: V,
    ) -> Result<V::Value> {
        self.depth += 1;
        if count > 0 {
            // Every element sits one level down: check once for all of them.
            self.check_depth()?;
        }
        let mut access = Elements { de: self, remaining: count, count, names, hint };
        let value = visitor.visit_seq(&mut access);
        let remaining = access.remaining;
        self.depth -= 1;
        read_whole(value, count, remaining, "elements")
    }

    /// Visits the entries of a Dictionary.
    #[inline]
    fn map<V: Visitor<'de>>(&mut self, count: usize, visitor: V) -> Result<V::Value> {
        self.depth += 1;
        if count > 0 {
            self.check_depth()?;
        }
        // Every entry takes at least 8 bytes.
        let hint = self.r.prealloc(count, 8);
        let mut access = Entries { de: self, remaining: count, hint, key_at: 0 };
        let value = visitor.visit_map(&mut access);
        let remaining = access.remaining;
        self.depth -= 1;
        read_whole(value, count, remaining, "entries")
    }

    /// A struct in Dictionary form with as many entries as `fields`, visited as the sequence of
    /// its values: each entry's key must be the STRING `fields[i]` (its wire bytes compared),
    /// which spares the field visitor. Anything else gives up ([`Self::give_up`]): the entry
    /// point decodes again with the map path.
    // Not inlined: the Dictionary form's sequence path inlined into `deserialize_struct` made
    // every derived `deserialize` too big to inline into the entry points (Array-form decode
    // per message went from 683 to 804 instructions).
    #[expect(
        clippy::redundant_pattern_matching,
        reason = "`matches!` reads the value without borrowing it (see `keyed`)"
    )]
    #[inline(never)]
    fn keyed<V: Visitor<'de>>(&mut self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        self.depth += 1;
        if !fields.is_empty() && self.depth > self.opts.max_depth {
            self.depth -= 1;
            return Err(self.give_up());
        }
        let mut next = 0;
        // By value, so that the derived visitor calls `KeyedFields::next_element` itself.
        let value = visitor.visit_seq(KeyedFields { de: self, fields, next: &mut next });
        self.depth -= 1;
        // `value` is returned as the visitor built it, never borrowed (`matches!`, not
        // `is_err`), so that it is built in the return slot: a `match` that re-wraps it, or a
        // borrow, made it a stack temporary copied out field by field.
        if next != fields.len() || matches!(value, Err(_)) {
            drop(value);
            return Err(self.give_up());
        }
        value
    }

    /// Marks this pass as given up (the `retry` field) and returns the error that stops it; that
    /// error is never shown: the entry point decodes again.
    #[cold]
    #[inline(never)]
    fn give_up(&mut self) -> Error {
        self.retry = true;
        Error::at(ErrorKind::InvalidData("a struct key out of field order (decoded again as a map)"), self.r.pos())
    }

    /// The size of the next entry's key if it is the STRING `field` exactly as the map path
    /// would read it as that field (no NUL, no BOM, padding present); nothing is consumed: the
    /// value's read consumes the key with it ([`access::KeyedValue`]).
    #[inline(always)]
    fn key_size(&self, field: &'static str) -> Option<usize> {
        key_size(&self.r, field)
    }

    /// A full object (header already read): refused unless enabled. As a map (`class`,
    /// `properties`) or, for the FullObject type, a sequence of the same two parts.
    fn full_object<V: Visitor<'de>>(&mut self, visitor: V, as_seq: bool) -> Result<V::Value> {
        if !self.opts.full_objects {
            return Err(self.r.err(ErrorKind::FullObjectsDisabled));
        }
        let class = self.r.str(self.opts.max_len)?;
        if class.is_empty() {
            return visitor.visit_unit();
        }
        let count = (self.r.u32()? as i32).max(0) as usize;
        self.depth += 1;
        // A property is a name (at least 4 bytes) and a value (at least 4).
        let hint = self.r.prealloc(count, 8);
        let mut access = FullObjectParts { de: self, class: Some(class), hint, remaining: count, step: 0 };
        let value = if as_seq { visitor.visit_seq(&mut access) } else { visitor.visit_map(&mut access) };
        let done = access.remaining == 0 && access.step == 2;
        self.depth -= 1;
        let value = value?;
        if !done {
            return Err(de::Error::custom("a full object was not read to its end"));
        }
        Ok(value)
    }

    /// A STRING key that is exactly one of the current struct's field names (tried first at the
    /// position after the previous key's), consumed; `None` leaves the input as it was.
    #[inline(always)]
    fn known_field(&mut self) -> Option<&'static str> {
        let rest = self.r.rest();
        let word = u64::from_le_bytes(*rest.first_chunk::<8>()?);
        if word as u32 != STRING {
            return None;
        }
        let len = (word >> 32) as usize;
        let bytes = rest.get(8..8 + len)?;
        // The engine's string rules (cut at NUL, drop a BOM) would read another name: names
        // with a NUL never match, a BOM is checked after.
        let same = |f: &&str| wire::short_eq_no_nul(f.as_bytes(), bytes).unwrap_or(false);
        let at = match self.fields.get(self.next_field) {
            Some(f) if same(f) => self.next_field,
            _ => self.fields.iter().position(same)?,
        };
        let field = self.fields[at];
        // `bytes` equals `field`: one byte tells whether the (rare) BOM check is needed.
        if bytes.first() == Some(&0xEF) && field.starts_with('\u{FEFF}') {
            return None;
        }
        // Padding is required (`Reader::str`).
        self.r.take(8 + len + wire::pad4(len)).ok()?;
        self.next_field = at + 1;
        Some(field)
    }

    #[inline]
    fn check_depth(&self) -> Result<()> {
        if self.depth > self.opts.max_depth {
            return Err(self.r.err(ErrorKind::DepthLimit(self.opts.max_depth)));
        }
        Ok(())
    }

    /// A math type asked for by its own Deserialize: the flat ones (vectors, Quaternion, Color)
    /// with 32-bit components, the common case, are visited straight from their bytes; anything
    /// else (nested layouts, 64-bit reals, another type on the wire) goes through
    /// `deserialize_any`.
    ///
    /// `skip`: see [`Self::int`].
    #[inline]
    fn math<V: Visitor<'de>>(&mut self, skip: usize, ty: VariantType, visitor: V) -> Result<V::Value> {
        let Some((components, int)) = flat_math(ty) else { return self.math_slow(skip, visitor) };
        // `ty` is a constant here (the name is), so its id in either version is one too.
        let Some(id) = ty.id(self.opts.version) else { return self.math_slow(skip, visitor) };
        let start = self.r.pos() + skip;
        let header = id.to_le_bytes();
        let Some(bytes) = self.r.take_at_if(skip, 4 + 4 * components, |b| b.first_chunk::<4>() == Some(&header)) else {
            return self.math_slow(skip, visitor);
        };
        visitor.visit_seq(Components { words: &bytes[4..], int }).map_err(|e| e.or_at(start))
    }

    /// What [`Self::math`] does not take (nested layouts, 64-bit reals, another type on the
    /// wire, too few bytes), out of line so that the fast path inlines into its caller.
    #[inline(never)]
    fn math_slow<V: Visitor<'de>>(&mut self, skip: usize, visitor: V) -> Result<V::Value> {
        self.r.skip(skip);
        de::Deserializer::deserialize_any(self, visitor)
    }

    /// `deserialize_struct` for a reserved name.
    #[cold]
    fn magic_struct<V: Visitor<'de>>(&mut self, magic: Magic, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let (ty, header) = self.header()?;
        let result = match (magic, ty) {
            (Magic::NodePath, VariantType::NodePath) => {
                let path = decode::node_path(&mut self.r, self.opts.max_len)?;
                visitor.visit_seq(NodePathParts { path: Some(path), step: 0 })
            }
            (Magic::FullObject, VariantType::Object) if header & FLAG_OBJECT_AS_ID == 0 => {
                self.full_object(visitor, true)
            }
            _ => return self.value(start, ty, header, visitor),
        };
        result.map_err(|e| e.or_at(start))
    }
}

/// The end of a container's visit: `value` as the visitor built it, or "invalid length" when
/// the visitor stopped with `remaining` of `count` elements (`what`) unread. `value` is taken
/// and returned by value and never borrowed (`matches!`, not `is_ok`), so that it stays where
/// the visitor built it, the caller's return slot (see `Deserializer::keyed`).
#[expect(clippy::redundant_pattern_matching, reason = "`matches!` reads the value without borrowing it (see `keyed`)")]
#[inline(always)]
fn read_whole<T>(value: Result<T>, count: usize, remaining: usize, what: &'static str) -> Result<T> {
    if remaining != 0 && matches!(value, Ok(_)) {
        drop(value);
        return short(count, count - remaining, what);
    }
    value
}

/// The untyped ARRAY and DICTIONARY headers in `version`.
#[inline(always)]
fn containers(version: Version) -> (u32, u32) {
    match version {
        Version::Godot4 => (VariantType::Array as u32, VariantType::Dictionary as u32),
        Version::Godot3 => (19, 18),
    }
}

/// The number of components of a flat math type, and whether they are i32 (else f32); `None`
/// for the nested ones (Rect2, transforms...).
#[inline(always)]
fn flat_math(ty: VariantType) -> Option<(usize, bool)> {
    use VariantType as T;
    match ty {
        T::Vector2 => Some((2, false)),
        T::Vector3 => Some((3, false)),
        T::Vector4 | T::Quaternion | T::Color => Some((4, false)),
        T::Vector2i => Some((2, true)),
        T::Vector3i => Some((3, true)),
        T::Vector4i => Some((4, true)),
        _ => None,
    }
}

/// The size of the next entry's key in `r` if it is the STRING `field` exactly as the map path
/// would read it as that field (see `Deserializer::key_size`); nothing is consumed.
#[inline(always)]
fn key_size(r: &Reader<'_>, field: &'static str) -> Option<usize> {
    let len = field.len();
    let word = (STRING as u64 | (len as u64) << 32).to_le_bytes();
    // The whole entry key (header, length, name, padding) in one bounds test: `len` is a
    // constant, so is its size.
    let padded = len + wire::pad4(len);
    let size = 8 + padded;
    let key = r.rest().get(..size)?;
    if key.first_chunk::<8>() != Some(&word) {
        return None;
    }
    let bytes = &key[8..];
    // Byte patterns rather than `str` methods: they fold where the name is a constant.
    let plain = field.bytes().all(|b| b != 0) && !matches!(field.as_bytes(), [0xEF, 0xBB, 0xBF, ..]);
    let same = if len <= 16 && plain {
        // A short name is compared with its padding, a 4-byte word at a time, against the
        // zeros every encoder writes there (constant words where the name is a constant).
        // The engine does not check the padding: a key with other bytes there gives up, and
        // the map path reads it by the engine's rules.
        // A plain loop, not an iterator chain: unrolled where it is inlined, where an adapter's
        // `try_fold` was left out of line (a call per key, and no folding).
        let name = field.as_bytes();
        let byte = |k: usize| u32::from(name.get(k).copied().unwrap_or(0)) << (8 * (k % 4));
        let mut i = 0;
        let mut same = true;
        while i < padded {
            let expected = byte(i) | byte(i + 1) | byte(i + 2) | byte(i + 3);
            let found = bytes.get(i..i + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
            same &= found == Some(expected);
            i += 4;
        }
        same
    } else {
        wire::eq_no_nul(field.as_bytes(), &bytes[..len]) && plain
    };
    same.then_some(size)
}

// The decoding entry points of `Options`: they live here, with the work, so that the settings
// do not depend on the decoder.
impl Options {
    /// Decodes a `T` from exactly `bytes`, borrowing strings and byte arrays from it where `T`
    /// asks for that. Trailing bytes are an error.
    ///
    /// A quick pass reads the common shapes first (exact headers, short strings, flat math
    /// values, Arrays, structs in Array form or with their keys in order) and gives up on
    /// anything else; then the [`Deserializer`] decodes `bytes` again from the start. The value
    /// and every error are the Deserializer's; `T`'s `Deserialize` may run more than once.
    #[inline]
    pub fn from_slice<'de, T: de::Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        self.decode(bytes, Pass::FIRST, &mut &[][..])
    }

    /// Decodes a `T` from the start of `bytes` and returns it with the bytes after it — what the
    /// engine does (`bytes_to_var` ignores trailing bytes).
    #[inline]
    pub fn take_from_slice<'de, T: de::Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<(T, &'de [u8])> {
        let mut rest = &bytes[bytes.len()..];
        let value = self.decode(bytes, Pass { whole: false, ..Pass::FIRST }, &mut rest)?;
        Ok((value, rest))
    }

    /// The decoding entry points' one mechanism: the quick pass (see [`quick`]) where the pass
    /// allows it, then, if it gave up, the Deserializer ([`Self::full`]). The bytes after the
    /// value are stored in `rest`.
    #[expect(
        clippy::redundant_pattern_matching,
        reason = "`matches!` reads the value without borrowing it (see `keyed`)"
    )]
    #[inline(never)]
    fn decode<'de, T: de::Deserialize<'de>>(&self, bytes: &'de [u8], pass: Pass, rest: &mut &'de [u8]) -> Result<T> {
        let mut q = quick::Quick::new(bytes, self);
        let value = T::deserialize(&mut q);
        // Returned where `T::deserialize` built it (never borrowed, see `Deserializer::keyed`).
        if !q.failed && matches!(value, Ok(_)) && (!pass.whole || q.r.remaining() == 0) {
            *rest = q.r.rest();
            return value;
        }
        drop(value);
        let keyed = pass.keyed && !q.keys_out_of_order;
        self.full(bytes, Pass { keyed, ..pass }, rest)
    }

    /// One pass of the Deserializer over `bytes` (see [`Pass`]), the bytes after the value
    /// stored in `rest`. A pass that gave up and errors are handed to [`Self::again`], which
    /// decodes again through this same function.
    #[expect(
        clippy::redundant_pattern_matching,
        reason = "`matches!` reads the value without borrowing it (see `keyed`)"
    )]
    #[inline(never)]
    fn full<'de, T: de::Deserialize<'de>>(&self, bytes: &'de [u8], pass: Pass, rest: &mut &'de [u8]) -> Result<T> {
        let mut de = Deserializer::with_options(bytes, *self);
        de.keyed_seq = pass.keyed;
        let value = T::deserialize(&mut de);
        *rest = de.remaining_input();
        // The common end returns `value` where `T::deserialize` built it (never borrowed, see
        // `Deserializer::keyed`); the rare ends need only its error.
        if de.retry || (pass.whole && !rest.is_empty()) || matches!(value, Err(_)) {
            return self.again(value.err(), de.retry, bytes, pass, rest);
        }
        value
    }

    /// The rare ends of [`Self::decode`], given the first pass's error if it had one: a first
    /// pass that gave up is decoded again from the start with the map path (a pass without
    /// `keyed`, which never gives up); a value with bytes after it is an error where the pass
    /// wants the whole input; an error gets its version hint if the pass asks for one.
    #[cold]
    #[inline(never)]
    fn again<'de, T: de::Deserialize<'de>>(
        &self,
        error: Option<Error>,
        retry: bool,
        bytes: &'de [u8],
        pass: Pass,
        rest: &mut &'de [u8],
    ) -> Result<T> {
        let result = match error {
            _ if retry => self.full(bytes, Pass { keyed: false, hint: false, ..pass }, rest),
            Some(e) => Err(e),
            // Only bytes after the value (where the pass wants the whole input) get here.
            None => Err(Error::at(ErrorKind::TrailingBytes(rest.len()), bytes.len() - rest.len())),
        };
        match result {
            Err(e) if pass.hint => Err(self.version_hint::<T>(e, bytes, pass)),
            result => result,
        }
    }

    /// Adds a hint to a decoding error when the same bytes decode as a `T` in the other Godot
    /// version (Godot 3 bytes read as Godot 4, or back): the same [`decode`](Self::decode)
    /// (both passes), without a hint of its own. Only on the error path.
    #[cold]
    #[inline(never)]
    fn version_hint<'de, T: de::Deserialize<'de>>(&self, e: Error, bytes: &'de [u8], pass: Pass) -> Error {
        if matches!(e.kind(), ErrorKind::Io(_) | ErrorKind::SizeLimit { .. }) {
            return e;
        }
        let (other, hint) = self.version.other_with_hint();
        let fits = self.version(other).decode::<T>(bytes, Pass { hint: false, ..pass }, &mut &[][..]).is_ok();
        if fits { e.with_hint(hint) } else { e }
    }

    /// Reads `reader` to its end (at most [`max_size`](Options::max_size) bytes) and decodes one
    /// `T` from exactly those bytes.
    pub fn from_reader<R: io::Read, T: de::DeserializeOwned>(&self, reader: R) -> Result<T> {
        let bytes = read_limited(reader, self.max_size)?;
        self.from_slice(&bytes)
    }
}

/// One decoding pass of [`Options::decode`].
#[derive(Clone, Copy)]
struct Pass {
    /// Trailing bytes are an error ([`Options::from_slice`]) or returned
    /// ([`Options::take_from_slice`]).
    whole: bool,
    /// Structs in Dictionary form are read as sequences where their keys allow it
    /// (`Deserializer::keyed`), giving up (and decoding again with the map path) where not.
    keyed: bool,
    /// An error gets the version hint (not while looking for one).
    hint: bool,
}

impl Pass {
    /// The first pass of an entry point.
    const FIRST: Pass = Pass { whole: true, keyed: true, hint: true };
}

/// Reads all of `reader`, refusing more than `max` bytes.
fn read_limited<R: io::Read>(reader: R, max: usize) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(max as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > max {
        return Err(Error::new(ErrorKind::SizeLimit { size: bytes.len() as u64, limit: max }));
    }
    Ok(bytes)
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let (ty, header) = self.header()?;
        self.value(start, ty, header, visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.r.peek_u32() {
            Some(header) if header & 0xFF == NIL => {
                self.r.u32()?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // An untyped ARRAY and its count, one 8-byte read. A Dictionary (visited as a map, an
        // error for most sequence visitors) goes the general way with everything else, which
        // reads it exactly as `opened` would: this path stays small enough to inline.
        let array = self.containers().0;
        let start = self.r.pos();
        if let Some(word) = self.r.word_if(|w| w as u32 == array) {
            let count = wire::count_of((word >> 32) as u32, self.opts.max_len, start + 4)?;
            return self.seq(count, &[], visitor).map_err(|e| e.or_at(start));
        }
        self.seq_other(visitor)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match magic::lookup(name) {
            None => self.structure(fields, visitor),
            Some(Magic::Math(ty)) => self.math(0, ty, visitor),
            Some(magic @ (Magic::NodePath | Magic::FullObject)) => self.magic_struct(magic, visitor),
            // Math types and Signal: `deserialize_any` already hands their parts over as sequences.
            Some(_) => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        match magic::lookup(name) {
            Some(Magic::Variant) => {
                let variant = decode::decode(&mut self.r, &self.opts, self.depth)?;
                HANDOFF.set(Some(variant));
                let result = visitor.visit_map(Handoff { done: false });
                // Never leave a Variant behind if the visitor was not Variant's own.
                HANDOFF.take();
                result
            }
            Some(Magic::Packed(ty)) if wire::packed_elem_size(ty, false).is_some() => {
                let Some(found) = self.peek_type() else { return visitor.visit_newtype_struct(self) };
                if found != ty {
                    return visitor.visit_newtype_struct(self);
                }
                let start = self.r.pos();
                let (_, header) = self.header()?;
                let (bytes, wide) = decode::packed_raw(&mut self.r, &self.opts, ty, header)?;
                if wide {
                    visitor.visit_byte_buf(crate::types::narrow_reals(bytes))
                } else {
                    visitor.visit_borrowed_bytes(bytes)
                }
                .map_err(|e: Error| e.or_at(start))
            }
            Some(Magic::Rid | Magic::ObjectId) => {
                let saved = std::mem::replace(&mut self.ids_ok, true);
                let result = visitor.visit_newtype_struct(&mut *self);
                self.ids_ok = saved;
                result
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(field) = self.known_field() {
            return visitor.visit_borrowed_str(field).map_err(|e: Error| e.or_at(self.r.pos()));
        }
        if self.r.peek_u32() == Some(STRING) {
            return self.deserialize_str(visitor);
        }
        let start = self.r.pos();
        let (ty, header) = self.header()?;
        match ty {
            VariantType::String | VariantType::StringName => {
                visitor.visit_borrowed_str(self.r.str(self.opts.max_len)?).map_err(|e: Error| e.or_at(start))
            }
            VariantType::Int => {
                let v = if header & FLAG_64 != 0 { self.r.u64()? as i64 } else { self.r.u32()? as i32 as i64 };
                match u64::try_from(v) {
                    Ok(v) => visitor.visit_u64(v),
                    Err(_) => visitor.visit_i64(v),
                }
                .map_err(|e: Error| e.or_at(start))
            }
            _ => self.value(start, ty, header, visitor),
        }
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let start = self.r.pos();
        // The common index (unit variants by index): a non-negative 32-bit INT, one 8-byte read.
        if let Some(word) = self.r.word_if(|w| w as u32 == INT && w >> 63 == 0) {
            return visitor.visit_enum(((word >> 32) as u32).into_deserializer()).map_err(|e: Error| e.or_at(start));
        }
        self.enum_other(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        decode::decode(&mut self.r, &self.opts, self.depth)?;
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.bool(0, visitor)
    }

    #[inline]
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.int(0, visitor)
    }

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.f32(0, visitor)
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.f64(0, visitor)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        if let Some(s) = self.r.plain_string(STRING, self.opts.max_len) {
            return visitor.visit_borrowed_str(s).map_err(|e: Error| e.or_at(start));
        }
        self.str_slow(visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.container(visitor)
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let start = self.r.pos();
        let header = self.r.u32()?;
        if header != NIL {
            return self.slow(start, header, visitor);
        }
        visitor.visit_unit().map_err(|e: Error| e.or_at(start))
    }

    forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf
    }
}
