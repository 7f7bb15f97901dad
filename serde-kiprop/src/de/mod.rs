//! The serde `Deserializer`: reads KI objects into derived structs or [`Value`](crate::Value)s,
//! driven by the class schemas of a [`TypeList`].

use std::marker::PhantomData;

use serde_core::de::Visitor;

use crate::codec::{BitCursor, Eof, Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::options::{Inclusion, Options, serializer_flags};
use crate::schema::TypeList;

mod container;
mod deep;
mod leaf;
mod object;
#[doc(hidden)]
pub mod trace;
mod value;

mod private {
    pub trait Sealed {}
    impl Sealed for &[u8] {}
    impl Sealed for Vec<u8> {}
    impl Sealed for super::trace::Traced<'_> {}
}

/// The bytes a [`Deserializer`] reads: a borrowed slice (strings and bytes borrow from it) or an
/// owned buffer (inflated data; strings are copied).
pub trait Input<'de>: private::Sealed {
    /// The whole object stream.
    fn data(&self) -> &[u8];
    /// The same bytes with the `'de` lifetime, when they have it.
    fn borrowed(&self) -> Option<&'de [u8]>;
    /// Where [`dump`](crate::dump) records what is read; `None` (and no cost) for the other inputs.
    #[doc(hidden)]
    #[inline(always)]
    fn trace(&self) -> Option<&trace::Trace> {
        None
    }
}

impl<'de> Input<'de> for &'de [u8] {
    #[inline(always)]
    fn data(&self) -> &[u8] {
        self
    }
    #[inline(always)]
    fn borrowed(&self) -> Option<&'de [u8]> {
        Some(self)
    }
}

impl<'de> Input<'de> for Vec<u8> {
    #[inline(always)]
    fn data(&self) -> &[u8] {
        self
    }
    #[inline(always)]
    fn borrowed(&self) -> Option<&'de [u8]> {
        None
    }
}

/// Reads KI objects from an object stream (the bytes after framing; [`from_slice`](crate::from_slice)
/// and [`Options::from_slice`] handle framing and compression).
pub struct Deserializer<'de, 't, I: Input<'de> = &'de [u8]> {
    input: I,
    cur: BitCursor,
    types: &'t TypeList,
    shallow: bool,
    compact: bool,
    string_enums: bool,
    forbid_delta: bool,
    skip_unknown: bool,
    incl: Inclusion,
    depth: u32,
    /// Set when a deep property's value was ignored (so its size is not checked but skipped).
    ignored: bool,
    /// Bits that the elements still to come of the enclosing containers need at least: a
    /// container's declared length must fit in what is left after them.
    reserved: u64,
    /// What is left of the model budget (bytes of dynamic values such as [`Value`](crate::Value)
    /// that may still be built).
    budget: u64,
    /// The whole model budget, for the error.
    budget_limit: u64,
    /// Shallow: a DEPRECATED property was skipped (for the trailing-data hint).
    skipped_deprecated: bool,
    /// The flags came from the stream (STATEFUL_FLAGS), not from the caller (for the hint).
    flags_stored: bool,
    /// Shallow classes with DELTA_ENCODE properties and deep objects may be read as a sequence
    /// (see [`decode_root`](Self::decode_root)); off for a deserializer the caller drives.
    seq_retry: bool,
    /// A property read as a sequence element was absent and its Rust field asked for something
    /// other than an `Option`, or a deep property was not the one expected: the decode is redone
    /// reading those objects as maps.
    seq_retry_wanted: bool,
    _de: PhantomData<&'de ()>,
}

impl<'de, 't> Deserializer<'de, 't, &'de [u8]> {
    /// A deserializer over an unframed object stream, read with `opts` whose flags are the
    /// stream's effective SerializerFlags.
    pub fn from_slice(bytes: &'de [u8], types: &'t TypeList, opts: Options) -> Self {
        Deserializer::new(bytes, types, opts)
    }
}

impl<'de, 't, I: Input<'de>> Deserializer<'de, 't, I> {
    /// A deserializer over any [`Input`].
    pub fn new(input: I, types: &'t TypeList, opts: Options) -> Self {
        let budget = opts.model_budget_for(input.data().len());
        Deserializer {
            input,
            cur: BitCursor::default(),
            types,
            shallow: opts.shallow,
            compact: opts.compact(),
            string_enums: opts.string_enums(),
            forbid_delta: opts.flags & serializer_flags::FORBID_DELTA_ENCODE != 0,
            skip_unknown: opts.skip_unknown && !opts.shallow,
            incl: opts.inclusion(),
            depth: opts.recursion_limit,
            ignored: false,
            reserved: 0,
            budget,
            budget_limit: budget,
            skipped_deprecated: false,
            flags_stored: false,
            seq_retry: false,
            seq_retry_wanted: false,
            _de: PhantomData,
        }
    }

    /// Whether the flags this deserializer was given were read from the stream (for hints).
    pub(crate) fn flags_stored(mut self, stored: bool) -> Self {
        self.flags_stored = stored;
        self
    }

    /// Decodes the root `T` and checks the end. With [`Options::absent_option_is_none`], objects
    /// that may leave properties out (shallow classes with DELTA_ENCODE properties, deep
    /// objects) are first read as sequences when the
    /// Rust fields are the properties in id order (no key step); an absent property there
    /// answers an `Option` with `None` (what the map gives for a missing `Option` field whose
    /// serde default is `None`: the one difference, see the option).
    /// Anything else asked of an absent property (a `#[serde(default)]` value, the "missing
    /// field" error), and deep properties out of id order or unknown, only the map path knows,
    /// so the whole decode runs once more reading maps: today's semantics, at most twice the
    /// work, still linear.
    pub(crate) fn decode_root<T: serde_core::Deserialize<'de>>(
        input: I,
        types: &'t TypeList,
        opts: Options,
        stored: bool,
    ) -> Result<T> {
        let mut d = Deserializer::new(input, types, opts).flags_stored(stored);
        d.seq_retry = opts.absent_option_is_none;
        let first = T::deserialize(&mut d);
        if !d.seq_retry_wanted {
            return d.end_root(first);
        }
        drop(first);
        // The map path only: a fresh deserializer over the same input.
        let mut d = Deserializer::new(d.input, types, opts).flags_stored(stored);
        let value = T::deserialize(&mut d);
        d.end_root(value)
    }

    /// The root's result with its position, then the end check.
    fn end_root<T>(&mut self, value: Result<T>) -> Result<T> {
        let value = value.map_err(|e| e.with_pos(self.bit_pos()))?;
        self.end()?;
        Ok(value)
    }

    /// Checks that nothing but the final byte's padding follows what was read.
    pub fn end(&mut self) -> Result<()> {
        let left = self.cur.remaining_bits(self.input.data());
        if left >= 8 {
            return Err(Error::at(ErrorKind::TrailingData { bits: left }, self.pos()).with_hint(self.trailing_hint()));
        }
        Ok(())
    }

    /// Why data may be left after the root object: the reader's options differ from the writer's.
    #[cold]
    fn trailing_hint(&self) -> String {
        let mut hints = Vec::new();
        if self.shallow && self.skipped_deprecated {
            hints.push(
                "a DEPRECATED property was skipped (as katsuba does); if the writer included it, read \
                 with Options::skip_deprecated(false)",
            );
        }
        if self.shallow {
            hints.push(
                "the property mask (Options::property_mask, mask_predicate) or the type list may differ \
                 from the writer's",
            );
        } else {
            hints.push(
                "in deep mode the root object's size field says where it ends, so the rest is a second \
                 object or other framing (manual compression, the BINd magic)",
            );
        }
        if !self.flags_stored {
            hints.push(
                "the flags (Options::flags: COMPACT_LENGTH_PREFIXES, HUMAN_READABLE_ENUMS, …) may not be \
                 the writer's; if the blob stores them, read with STATEFUL_FLAGS (Options::stored_flags shows them)",
            );
        }
        format!("the blob was probably written with other options: {}", hints.join("; "))
    }

    /// The current position in bits.
    pub fn bit_pos(&self) -> u64 {
        self.cur.bit_pos()
    }

    #[inline(always)]
    fn pos(&self) -> u64 {
        self.cur.bit_pos()
    }

    #[cold]
    fn eof(&self) -> Error {
        Error::at(ErrorKind::Eof, self.pos())
    }

    #[cold]
    fn err(&self, kind: ErrorKind) -> Error {
        Error::at(kind, self.pos())
    }

    /// The position before a read, when a dump records reads (`None` otherwise, at no cost).
    #[inline(always)]
    fn trace_start(&self) -> Option<u64> {
        self.input.trace().map(|_| self.pos())
    }

    /// Records a read from `start` to here for a dump.
    #[inline(always)]
    fn traced(&self, start: Option<u64>, read: impl FnOnce() -> trace::Read) {
        if let (Some(t), Some(start)) = (self.input.trace(), start) {
            t.read(start, self.pos(), read());
        }
    }

    /// Records a mark (what comes next, where a property or object starts) for a dump.
    #[inline(always)]
    fn mark(&self, mark: impl FnOnce() -> trace::Mark) {
        if let Some(t) = self.input.trace() {
            t.mark(mark());
        }
    }

    #[inline(always)]
    fn bits(&mut self, n: u32) -> Result<u32> {
        let start = self.trace_start();
        let r = self.cur.read_bits(self.input.data(), n);
        let v = r.map_err(|Eof| self.eof())?;
        self.traced(start, || trace::Read::Bits(v));
        Ok(v)
    }

    #[inline(always)]
    fn bool(&mut self) -> Result<bool> {
        let start = self.trace_start();
        let r = self.cur.read_bool(self.input.data());
        let v = r.map_err(|Eof| self.eof())?;
        self.traced(start, || trace::Read::Scalar(Scalar::Bool(v)));
        Ok(v)
    }

    #[inline(always)]
    fn u32(&mut self) -> Result<u32> {
        let start = self.trace_start();
        let r = self.cur.read_u32(self.input.data());
        let v = r.map_err(|Eof| self.eof())?;
        self.traced(start, || trace::Read::Bits(v));
        Ok(v)
    }

    #[inline(always)]
    fn scalar(&mut self, prim: Prim) -> Result<Scalar> {
        let start = self.trace_start();
        let r = self.cur.read_scalar(self.input.data(), prim);
        let v = r.map_err(|Eof| self.eof())?;
        self.traced(start, || trace::Read::Scalar(v));
        Ok(v)
    }

    #[inline(always)]
    fn len(&mut self, string: bool) -> Result<u32> {
        let start = self.trace_start();
        let r = self.cur.read_len(self.input.data(), self.compact, string);
        let v = r.map_err(|Eof| self.eof())?;
        self.traced(start, || trace::Read::Len(v));
        Ok(v)
    }

    /// Claims `n` aligned bytes; returns their start offset.
    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<usize> {
        let start = self.trace_start();
        let r = self.cur.take_bytes(self.input.data(), n);
        let v = r.map_err(|Eof| self.eof())?;
        self.traced(start, || trace::Read::Bytes(v, n));
        Ok(v)
    }

    fn seek(&mut self, target: u64) -> Result<()> {
        let r = self.cur.seek(self.input.data(), target);
        r.map_err(|Eof| self.eof())
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Err(self.err(ErrorKind::RecursionLimit));
        }
        self.depth -= 1;
        self.mark(|| trace::Mark::Enter);
        Ok(())
    }

    #[inline(always)]
    fn leave(&mut self) {
        self.depth += 1;
        self.mark(|| trace::Mark::Leave);
    }

    /// Counts `bytes` of dynamic model (a [`Value`](crate::Value) node or its payload) against the
    /// model budget, before they are built.
    #[inline(always)]
    fn charge(&mut self, bytes: usize) -> Result<()> {
        match self.budget.checked_sub(bytes as u64) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.over_budget()),
        }
    }

    #[cold]
    fn over_budget(&self) -> Error {
        self.err(ErrorKind::ModelLimit { limit: self.budget_limit })
    }

    /// Checks that `n` elements of at least `min_bits` each fit in the input left after what the
    /// enclosing containers' remaining elements need, and reserves their bits.
    #[inline]
    fn reserve(&mut self, n: u32, min_bits: u64) -> Result<()> {
        self.room(n, min_bits)?;
        self.reserved += u64::from(n) * min_bits;
        Ok(())
    }

    /// [`reserve`](Self::reserve)'s check alone: nothing is reserved.
    #[inline(always)]
    fn room(&self, n: u32, min_bits: u64) -> Result<()> {
        let avail = self.cur.remaining_bits(self.input.data()).saturating_sub(self.reserved);
        if u64::from(n) * min_bits > avail {
            return Err(self.eof());
        }
        Ok(())
    }

    /// Reads a `std::string` and hands it to the visitor (borrowed when possible).
    fn visit_string_bytes<V: Visitor<'de>>(&mut self, v: V, as_str: bool) -> Result<V::Value> {
        let n = self.len(true)? as usize;
        if n == 0 {
            return if as_str { v.visit_borrowed_str("") } else { v.visit_borrowed_bytes(&[]) };
        }
        let start = self.take(n)?;
        let bit = self.pos();
        match self.input.borrowed() {
            Some(b) => {
                let bytes = &b[start..start + n];
                if as_str {
                    match std::str::from_utf8(bytes) {
                        Ok(s) => v.visit_borrowed_str(s),
                        Err(_) => Err(Error::at(ErrorKind::InvalidText, bit)),
                    }
                } else {
                    v.visit_borrowed_bytes(bytes)
                }
            }
            None => {
                let bytes = &self.input.data()[start..start + n];
                if as_str {
                    match std::str::from_utf8(bytes) {
                        Ok(s) => v.visit_str(s),
                        Err(_) => Err(Error::at(ErrorKind::InvalidText, bit)),
                    }
                } else {
                    v.visit_bytes(bytes)
                }
            }
        }
    }

    /// Reads a `std::string` for `deserialize_any`: text when UTF-8, else bytes.
    fn visit_string_any<V: Visitor<'de>>(&mut self, v: V, charge: bool) -> Result<V::Value> {
        let n = self.len(true)? as usize;
        if n == 0 {
            return v.visit_borrowed_str("");
        }
        let start = self.take(n)?;
        if charge {
            self.charge(n)?;
        }
        match self.input.borrowed() {
            Some(b) => {
                let bytes = &b[start..start + n];
                match std::str::from_utf8(bytes) {
                    Ok(s) => v.visit_borrowed_str(s),
                    Err(_) => v.visit_borrowed_bytes(bytes),
                }
            }
            None => {
                let bytes = &self.input.data()[start..start + n];
                match std::str::from_utf8(bytes) {
                    Ok(s) => v.visit_str(s),
                    Err(_) => v.visit_bytes(bytes),
                }
            }
        }
    }

    /// Reads a `std::wstring` as text; one that is not valid UTF-16 (a lone surrogate, which the
    /// game writes) is an error here, see [`read_wstring_lossless`](Self::read_wstring_lossless).
    fn read_wstring(&mut self) -> Result<String> {
        self.read_wstring_lossless()?.map_err(|_| {
            self.err(ErrorKind::InvalidText).with_hint(
                "a std::wstring that is not valid UTF-16 (a lone surrogate): read it into a Value or \
                 into bytes (serde_bytes::ByteBuf), which hold its UTF-16LE code units and write them back as they are",
            )
        })
    }

    /// Reads a `std::wstring`: its text, or when it is not valid UTF-16 (a lone surrogate) its
    /// UTF-16LE bytes as they are (katsuba returns these too), so nothing is lost.
    fn read_wstring_lossless(&mut self) -> Result<std::result::Result<String, Vec<u8>>> {
        let n = self.len(true)? as usize;
        if n == 0 {
            return Ok(Ok(String::new()));
        }
        let bytes = n.checked_mul(2).ok_or_else(|| self.eof())?;
        let start = self.take(bytes)?;
        let data = &self.input.data()[start..start + bytes];
        let units = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
        Ok(char::decode_utf16(units).collect::<std::result::Result<String, _>>().map_err(|_| data.to_vec()))
    }
}
