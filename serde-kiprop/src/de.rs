//! The serde `Deserializer`: reads KI objects into derived structs or [`Value`](crate::Value)s,
//! driven by the class schemas of a [`TypeList`].

use std::marker::PhantomData;

use serde_core::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde_core::forward_to_deserialize_any;

use crate::codec::{BitCursor, Eof, Leaf, Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::options::{Inclusion, Options, serializer_flags};
use crate::schema::{ClassDef, EnumDef, Kind, PropertyDef, TypeList, flags};
use crate::types::{MARKER, marker_kind};

mod private {
    pub trait Sealed {}
    impl Sealed for &[u8] {}
    impl Sealed for Vec<u8> {}
}

/// The bytes a [`Deserializer`] reads: a borrowed slice (strings and bytes borrow from it) or an
/// owned buffer (inflated data; strings are copied).
pub trait Input<'de>: private::Sealed {
    /// The whole object stream.
    fn data(&self) -> &[u8];
    /// The same bytes with the `'de` lifetime, when they have it.
    fn borrowed(&self) -> Option<&'de [u8]>;
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
            _de: PhantomData,
        }
    }

    /// Whether the flags this deserializer was given were read from the stream (for hints).
    pub(crate) fn flags_stored(mut self, stored: bool) -> Self {
        self.flags_stored = stored;
        self
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

    #[inline(always)]
    fn bits(&mut self, n: u32) -> Result<u32> {
        let r = self.cur.read_bits(self.input.data(), n);
        r.map_err(|Eof| self.eof())
    }

    #[inline(always)]
    fn bool(&mut self) -> Result<bool> {
        let r = self.cur.read_bool(self.input.data());
        r.map_err(|Eof| self.eof())
    }

    #[inline(always)]
    fn u32(&mut self) -> Result<u32> {
        let r = self.cur.read_u32(self.input.data());
        r.map_err(|Eof| self.eof())
    }

    #[inline(always)]
    fn scalar(&mut self, prim: Prim) -> Result<Scalar> {
        let r = self.cur.read_scalar(self.input.data(), prim);
        r.map_err(|Eof| self.eof())
    }

    #[inline(always)]
    fn len(&mut self, string: bool) -> Result<u32> {
        let r = self.cur.read_len(self.input.data(), self.compact, string);
        r.map_err(|Eof| self.eof())
    }

    /// Claims `n` aligned bytes; returns their start offset.
    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<usize> {
        let r = self.cur.take_bytes(self.input.data(), n);
        r.map_err(|Eof| self.eof())
    }

    fn seek(&mut self, target: u64) -> Result<()> {
        let r = self.cur.seek(self.input.data(), target);
        r.map_err(|Eof| self.eof())
    }

    fn enter(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Err(self.err(ErrorKind::RecursionLimit));
        }
        self.depth -= 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth += 1;
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
        let avail = self.cur.remaining_bits(self.input.data()).saturating_sub(self.reserved);
        let need = u64::from(n) * min_bits;
        if need > avail {
            return Err(self.eof());
        }
        self.reserved += need;
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

    fn read_enum(&mut self, slot: &DSlot<'t>) -> Result<u32> {
        if self.string_enums {
            let n = self.len(true)? as usize;
            let text = if n == 0 {
                ""
            } else {
                let start = self.take(n)?;
                std::str::from_utf8(&self.input.data()[start..start + n])
                    .map_err(|_| self.err(ErrorKind::InvalidText))?
            };
            let parsed = slot.enum_def().and_then(|d| d.parse(text));
            match parsed {
                Some(v) => Ok(v),
                None => {
                    let kind = ErrorKind::UnknownEnumValue { property: slot.name().to_owned(), value: text.to_owned() };
                    Err(self.err(kind))
                }
            }
        } else {
            self.bits(32)
        }
    }

    fn enum_name(&self, slot: &DSlot<'t>, value: u32) -> Result<std::borrow::Cow<'t, str>> {
        let def = slot.enum_def();
        let name = match def {
            Some(d) if !d.bits => d.name_of(value).map(std::borrow::Cow::Borrowed),
            Some(d) => d.format(value).map(std::borrow::Cow::Owned),
            None => None,
        };
        name.ok_or_else(|| {
            self.err(ErrorKind::UnknownEnumValue { property: slot.name().to_owned(), value: value.to_string() })
        })
    }

    /// Reads a type tag. `Ok(None)` is a null pointer or (deep, skipping) a skipped unknown object.
    #[inline(always)]
    fn read_tag(&mut self, slot: &DSlot<'t>) -> Result<Option<&'t ClassDef>> {
        let tag = self.u32()?;
        // The declared class is the usual one: no map lookup.
        if let Kind::Object(Some(expected)) = slot.kind {
            let c = self.types.get(expected);
            if c.hash == tag && tag != 0 {
                return Ok(Some(c));
            }
        }
        self.read_tag_slow(slot, tag)
    }

    #[inline(never)]
    fn read_tag_slow(&mut self, slot: &DSlot<'t>, tag: u32) -> Result<Option<&'t ClassDef>> {
        if tag == 0 {
            return if slot.root { Err(self.err(ErrorKind::NullRoot)) } else { Ok(None) };
        }
        match self.types.index_of_hash(tag) {
            Some(i) => Ok(Some(self.types.get(i))),
            None if self.skip_unknown && !slot.root => {
                let size_pos = self.pos();
                let size = u64::from(self.u32()?);
                if size < 32 {
                    return Err(self.err(ErrorKind::ObjectSizeMismatch {
                        class: format!("tag {tag}"),
                        expected: size,
                        actual: 32,
                    }));
                }
                self.seek(size_pos + size)?;
                Ok(None)
            }
            None => Err(self.err(ErrorKind::UnknownType(tag))),
        }
    }

    /// Starts reading the properties of an object whose tag was read.
    #[inline(always)]
    fn object_body(
        &mut self,
        class: &'t ClassDef,
        header: bool,
        fields: &'static [&'static str],
        charge: bool,
    ) -> Result<ObjectAccess<'_, 'de, 't, I>> {
        self.enter()?;
        // A dynamic object: the boxed object, its class name and its property slots (the
        // capacity the value visitor reserves from the size hint).
        let slots = if charge { class.props.len().min(crate::value::MAX_PREALLOC_PROPS) } else { 0 };
        if charge {
            self.charge(crate::value::OBJECT_BYTES + class.name.len() + slots * crate::value::PROPERTY_BYTES)?;
        }
        let end = if self.shallow {
            0
        } else {
            let size_pos = self.pos();
            let size = u64::from(self.u32()?);
            let end = size_pos + size;
            if size < 32 || end > self.input.data().len() as u64 * 8 {
                return Err(self.object_size_error(class, size));
            }
            end
        };
        let header = if header { 0 } else { 4 };
        let by_index = class.fields_are_props(fields);
        let all_in = self.shallow && class.all_included(self.incl);
        Ok(ObjectAccess {
            d: self,
            class,
            end,
            idx: 0,
            header,
            by_index,
            all_in,
            pending: None,
            presence: false,
            pending_kind: Kind::Auto,
            prop_end: 0,
            done: false,
            charge,
            slots,
            count: 0,
        })
    }

    #[cold]
    fn object_size_error(&self, class: &ClassDef, size: u64) -> Error {
        self.err(ErrorKind::ObjectSizeMismatch {
            class: class.name.clone(),
            expected: size,
            actual: self.cur.remaining_bits(self.input.data()) + 32,
        })
    }

    /// Reads an object (tag + body) and lets the visitor see its properties.
    #[inline(always)]
    fn object<V: Visitor<'de>>(
        &mut self,
        slot: DSlot<'t>,
        v: V,
        header: bool,
        fields: &'static [&'static str],
        charge: bool,
    ) -> Result<V::Value> {
        match self.read_tag(&slot)? {
            Some(class) => self.visit_object(class, v, header, fields, charge),
            None if header => v.visit_unit(),
            None => Err(self.err(ErrorKind::Mismatch {
                field: slot.name().to_owned(),
                expected: "an object, got a null pointer (use Option)".to_owned(),
            })),
        }
    }

    /// Lets the visitor see an object's properties. `fields` are the serde struct's (keys go by
    /// index when they are the class's properties), or empty.
    #[inline(always)]
    fn visit_object<V: Visitor<'de>>(
        &mut self,
        class: &'t ClassDef,
        v: V,
        header: bool,
        fields: &'static [&'static str],
        charge: bool,
    ) -> Result<V::Value> {
        let mut access = self.object_body(class, header, fields, charge)?;
        let value = v.visit_map(&mut access)?;
        access.finish()?;
        Ok(value)
    }

    /// Peeks whether the next object slot is a null pointer (consuming it, or a skipped unknown
    /// object, if so).
    fn null_ahead(&mut self, slot: &DSlot<'t>) -> Result<bool> {
        let saved = self.cur.clone();
        let tag = self.u32()?;
        if tag == 0 {
            return Ok(true);
        }
        if self.types.index_of_hash(tag).is_none() && self.skip_unknown {
            self.cur = saved;
            return Ok(self.read_tag(slot)?.is_none());
        }
        self.cur = saved;
        Ok(false)
    }

    /// The fewest bits one value of `slot` takes on the wire (a lower bound used to check a
    /// container's declared length against the input before anything is allocated).
    fn min_bits(&self, slot: &DSlot<'t>) -> u64 {
        let string_prefix = if self.compact { 8 } else { 16 };
        match slot.kind {
            Kind::Auto => 1,
            Kind::Prim(Prim::Str | Prim::WStr) => string_prefix,
            Kind::Prim(p) => prim_bits(p),
            Kind::Leaf(l) => l.len() as u64 * prim_bits(l.component()),
            Kind::Enum if self.string_enums => string_prefix,
            Kind::Enum | Kind::Object(_) => 32,
        }
    }

    fn read_leaf(&mut self, leaf: Leaf) -> Result<[Scalar; 9]> {
        let mut out = [Scalar::UInt(0); 9];
        let prim = leaf.component();
        for slot in out.iter_mut().take(leaf.len()) {
            *slot = self.scalar(prim)?;
        }
        Ok(out)
    }
}

/// Bits of a simple numeric type on the wire (strings: see [`Deserializer::min_bits`]).
fn prim_bits(p: Prim) -> u64 {
    match p {
        Prim::Bool => 1,
        Prim::I8 | Prim::U8 => 8,
        Prim::I16 | Prim::U16 => 16,
        Prim::I32 | Prim::U32 | Prim::F32 => 32,
        Prim::I64 | Prim::U64 | Prim::F64 => 64,
        Prim::SBits(n) | Prim::UBits(n) => u64::from(n),
        Prim::Str | Prim::WStr => 8,
    }
}

/// What is being read.
#[derive(Clone, Copy)]
struct DSlot<'t> {
    prop: Option<&'t PropertyDef>,
    kind: Kind,
    root: bool,
    element: bool,
    /// Shallow DELTA_ENCODE: the presence bit was 1 (the next `Option` layer is it).
    presence: bool,
}

impl<'t> DSlot<'t> {
    fn root() -> Self {
        DSlot { prop: None, kind: Kind::Object(None), root: true, element: false, presence: false }
    }

    fn name(&self) -> &'t str {
        self.prop.map_or("root", |p| p.name.as_str())
    }

    fn enum_def(&self) -> Option<&'t EnumDef> {
        self.prop.and_then(|p| p.enum_def.as_deref())
    }

    fn container(&self) -> bool {
        !self.element && self.prop.is_some_and(|p| p.dynamic)
    }

    fn element_of(self) -> Self {
        DSlot { element: true, presence: false, root: false, ..self }
    }
}

/// Deserializes one value of a slot.
struct ValueDe<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    slot: DSlot<'t>,
}

impl<'a, 'de, 't, I: Input<'de>> ValueDe<'a, 'de, 't, I> {
    #[cold]
    fn mismatch(&self, expected: &str) -> Error {
        let what = match self.slot.kind {
            Kind::Auto => "a property without a type (shallow mode reads what the Rust type asks for)".to_owned(),
            Kind::Prim(p) => p.type_name().to_owned(),
            Kind::Leaf(l) => l.type_name().to_owned(),
            Kind::Enum => "an enum".to_owned(),
            Kind::Object(_) => "an object".to_owned(),
        };
        let container = if self.slot.container() { " container" } else { "" };
        self.d.err(ErrorKind::Mismatch {
            field: self.slot.name().to_owned(),
            expected: format!("the Rust type to fit{container} {what}, but it asks for {expected}"),
        })
    }

    /// A numeric read: the property's type, or the Rust type's when there is none. When the
    /// property's type is the Rust type's (the common case), the read is specialised inline.
    #[inline(always)]
    fn number<V: Visitor<'de>>(self, hint: Prim, v: V) -> Result<V::Value> {
        if self.slot.kind == Kind::Prim(hint) && !self.slot.container() {
            let s = self.d.scalar(hint)?;
            return visit_scalar(s, v);
        }
        self.number_slow(hint, v)
    }

    #[inline(never)]
    fn number_slow<V: Visitor<'de>>(self, hint: Prim, v: V) -> Result<V::Value> {
        if self.slot.container() {
            return Err(self.mismatch(hint.type_name()));
        }
        let s = match self.slot.kind {
            Kind::Prim(p @ (Prim::Str | Prim::WStr)) => return Err(self.mismatch_prim(p, hint)),
            Kind::Prim(p) => self.d.scalar(p)?,
            Kind::Auto => self.d.scalar(hint)?,
            Kind::Enum => Scalar::UInt(self.d.read_enum(&self.slot)?.into()),
            _ => return Err(self.mismatch(hint.type_name())),
        };
        visit_scalar(s, v)
    }

    #[cold]
    fn mismatch_prim(&self, _p: Prim, hint: Prim) -> Error {
        self.mismatch(hint.type_name())
    }

    /// A self-describing read. With `charge`, what the visitor builds is a dynamic model
    /// ([`Value`](crate::Value) or alike) and counts against the model budget; without, the
    /// value is being skipped.
    fn any<V: Visitor<'de>>(self, v: V, charge: bool) -> Result<V::Value> {
        let slot = self.slot;
        if slot.container() {
            return self.list(v, charge);
        }
        match slot.kind {
            Kind::Prim(Prim::Str) => self.d.visit_string_any(v, charge),
            Kind::Prim(Prim::WStr) => match self.d.read_wstring_lossless()? {
                Ok(s) => {
                    if charge {
                        self.d.charge(s.capacity())?;
                    }
                    v.visit_string(s)
                }
                Err(units) => {
                    if charge {
                        self.d.charge(units.capacity())?;
                    }
                    v.visit_byte_buf(units)
                }
            },
            Kind::Prim(p) => visit_scalar(self.d.scalar(p)?, v),
            Kind::Leaf(leaf) => {
                let wire = self.d.read_leaf(leaf)?;
                if charge {
                    self.d.charge(crate::value::LEAF_BYTES)?;
                }
                v.visit_map(LeafAccess { leaf, wire, fields: leaf.display_fields(), i: 0 })
            }
            Kind::Enum => v.visit_u64(self.d.read_enum(&slot)?.into()),
            Kind::Object(_) => self.d.object(slot, v, true, &[], charge),
            Kind::Auto => Err(self.mismatch("any value (a self-describing read needs the property's type)")),
        }
    }

    /// A container. With `charge`, its element slots count against the model budget (at the
    /// capacity the value visitor's list reaches).
    fn list<V: Visitor<'de>>(self, v: V, charge: bool) -> Result<V::Value> {
        let n = self.d.len(false)?;
        let elem = self.slot.element_of();
        let min_bits = self.d.min_bits(&elem);
        self.d.reserve(n, min_bits)?;
        if charge {
            self.d.charge(crate::value::list_bytes(n as usize))?;
        }
        self.d.enter()?;
        let mut access = ListAccess { d: &mut *self.d, slot: elem, left: n, min_bits };
        let value = v.visit_seq(&mut access)?;
        if access.left != 0 {
            return Err(self.d.err(ErrorKind::Mismatch {
                field: self.slot.name().to_owned(),
                expected: format!("a sequence that reads all {n} elements"),
            }));
        }
        self.d.leave();
        Ok(value)
    }

    fn string<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if self.slot.container() {
            return Err(self.mismatch("a string"));
        }
        match self.slot.kind {
            Kind::Prim(Prim::Str) | Kind::Auto => self.d.visit_string_bytes(v, true),
            Kind::Prim(Prim::WStr) => v.visit_string(self.d.read_wstring()?),
            Kind::Enum => {
                let value = self.d.read_enum(&self.slot)?;
                match self.d.enum_name(&self.slot, value)? {
                    std::borrow::Cow::Borrowed(n) => v.visit_str(n),
                    std::borrow::Cow::Owned(n) => v.visit_string(n),
                }
            }
            _ => Err(self.mismatch("a string")),
        }
    }
}

#[inline(always)]
fn visit_scalar<'de, V: Visitor<'de>>(s: Scalar, v: V) -> Result<V::Value> {
    match s {
        Scalar::Bool(b) => v.visit_bool(b),
        Scalar::Int(i) => v.visit_i64(i),
        Scalar::UInt(u) => v.visit_u64(u),
        Scalar::F32(f) => v.visit_f32(f),
        Scalar::F64(f) => v.visit_f64(f),
    }
}

macro_rules! numbers {
    ($($m:ident => $p:expr;)*) => {
        $(#[inline] fn $m<V: Visitor<'de>>(self, v: V) -> Result<V::Value> { self.number($p, v) })*
    };
}

impl<'de, I: Input<'de>> de::Deserializer<'de> for ValueDe<'_, 'de, '_, I> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.any(v, true)
    }

    numbers! {
        deserialize_bool => Prim::Bool;
        deserialize_i8 => Prim::I8;
        deserialize_i16 => Prim::I16;
        deserialize_i32 => Prim::I32;
        deserialize_i64 => Prim::I64;
        deserialize_u8 => Prim::U8;
        deserialize_u16 => Prim::U16;
        deserialize_u32 => Prim::U32;
        deserialize_u64 => Prim::U64;
        deserialize_f32 => Prim::F32;
        deserialize_f64 => Prim::F64;
    }

    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.string(v)
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.string(v)
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.string(v)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.slot.kind {
            Kind::Prim(Prim::Str) | Kind::Auto if !self.slot.container() => self.d.visit_string_bytes(v, false),
            // A wstring as bytes: its UTF-16LE code units, whatever they hold.
            Kind::Prim(Prim::WStr) if !self.slot.container() => {
                let n = self.d.len(true)? as usize;
                let bytes = n.checked_mul(2).ok_or_else(|| self.d.eof())?;
                if bytes == 0 {
                    return v.visit_borrowed_bytes(&[]);
                }
                let start = self.d.take(bytes)?;
                match self.d.input.borrowed() {
                    Some(b) => v.visit_borrowed_bytes(&b[start..start + bytes]),
                    None => v.visit_bytes(&self.d.input.data()[start..start + bytes]),
                }
            }
            Kind::Prim(Prim::U8 | Prim::I8) if self.slot.container() => {
                let n = self.d.len(false)? as usize;
                if n == 0 {
                    return v.visit_borrowed_bytes(&[]);
                }
                let start = self.d.take(n)?;
                match self.d.input.borrowed() {
                    Some(b) => v.visit_borrowed_bytes(&b[start..start + n]),
                    None => v.visit_bytes(&self.d.input.data()[start..start + n]),
                }
            }
            _ => self.deserialize_seq(v),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.deserialize_bytes(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        let mut slot = self.slot;
        if slot.presence {
            slot.presence = false;
            return v.visit_some(ValueDe { d: self.d, slot });
        }
        let pointer = match slot.kind {
            Kind::Object(_) => !slot.container(),
            Kind::Auto => self.d.shallow && !slot.element && !slot.container(),
            _ => false,
        };
        if pointer && !slot.root && self.d.null_ahead(&slot)? {
            return v.visit_none();
        }
        v.visit_some(ValueDe { d: self.d, slot })
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.slot.kind {
            Kind::Object(_) | Kind::Auto if !self.slot.root && self.d.null_ahead(&self.slot)? => v.visit_unit(),
            _ => Err(self.mismatch("a unit (a null pointer)")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value> {
        self.deserialize_unit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value> {
        let mut slot = self.slot;
        if slot.kind == Kind::Auto && name.starts_with(MARKER) {
            if let Some((kind, _)) = marker_kind(name) {
                slot.kind = kind;
            }
        }
        v.visit_newtype_struct(ValueDe { d: self.d, slot })
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        let slot = self.slot;
        if let Kind::Leaf(leaf) = slot.kind {
            if !slot.container() {
                let wire = self.d.read_leaf(leaf)?;
                return v.visit_seq(LeafSeq { leaf, wire, i: 0 });
            }
        }
        let dynamic = slot.container() || (slot.prop.is_some_and(|p| p.type_name.is_none()) && !slot.element);
        if !dynamic || slot.root {
            return Err(self.mismatch("a sequence"));
        }
        let slot = DSlot { prop: slot.prop.map(|p| p as &PropertyDef), ..slot };
        ValueDe { d: self.d, slot: DSlot { element: false, ..slot } }.list_forced(v)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value> {
        let slot = self.slot;
        if let Kind::Leaf(leaf) = slot.kind {
            if !slot.container() {
                let wire = self.d.read_leaf(leaf)?;
                return v.visit_seq(LeafSeq { leaf, wire, i: 0 });
            }
        }
        if slot.container() {
            return self.deserialize_seq(v);
        }
        if slot.element || slot.root {
            return Err(self.mismatch("a tuple"));
        }
        // A fixed array: its length comes from the Rust type, not the data (nothing reserved).
        let mut access = ListAccess { d: &mut *self.d, slot: slot.element_of(), left: len as u32, min_bits: 0 };
        let value = v.visit_seq(&mut access)?;
        if access.left != 0 {
            return Err(self.mismatch("a tuple that reads all its elements"));
        }
        Ok(value)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _name: &'static str, len: usize, v: V) -> Result<V::Value> {
        self.deserialize_tuple(len, v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.slot.kind {
            Kind::Object(Some(c)) if self.slot.container() && self.d.types.get(c).props.len() == 2 => {
                let n = self.d.len(false)?;
                // Every entry is an object: at least a 32-bit tag.
                self.d.reserve(n, 32)?;
                self.d.enter()?;
                let class = self.d.types.get(c);
                let slot = self.slot.element_of();
                let mut access = PairsAccess { d: &mut *self.d, class, slot, left: n, saved: None };
                let value = v.visit_map(&mut access)?;
                if access.left != 0 {
                    return Err(self.mismatch("a map that reads all its entries"));
                }
                self.d.leave();
                Ok(value)
            }
            Kind::Leaf(_) | Kind::Object(_) if !self.slot.container() => self.any(v, true),
            _ => Err(self.mismatch("a map")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        let mut slot = self.slot;
        if slot.kind == Kind::Auto && name.starts_with(MARKER) {
            if let Some((kind @ Kind::Leaf(_), _)) = marker_kind(name) {
                slot.kind = kind;
            }
        }
        if slot.container() {
            return Err(self.mismatch("a struct"));
        }
        match slot.kind {
            Kind::Leaf(leaf) => {
                let wire = self.d.read_leaf(leaf)?;
                v.visit_map(LeafAccess { leaf, wire, fields: leaf.fields(), i: 0 })
            }
            Kind::Object(_) | Kind::Auto => self.d.object(slot, v, false, fields, false),
            _ => Err(self.mismatch("a struct")),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        let slot = self.slot;
        if slot.container() {
            return Err(self.mismatch("an enum"));
        }
        match slot.kind {
            Kind::Enum => {
                let value = self.d.read_enum(&slot)?;
                if (value as usize) < variants.len() && slot.prop.is_some_and(|p| p.variants_are_options(variants)) {
                    // Option value `i` is variant `i`: serde takes the index.
                    return v.visit_enum(de::value::U32Deserializer::<Error>::new(value));
                }
                match self.d.enum_name(&slot, value)? {
                    std::borrow::Cow::Borrowed(n) => v.visit_enum(de::value::StrDeserializer::<Error>::new(n)),
                    std::borrow::Cow::Owned(n) => v.visit_enum(n.into_deserializer()),
                }
            }
            Kind::Prim(Prim::Str) | Kind::Auto if variants.is_empty() => Err(self.mismatch("an enum")),
            Kind::Object(_) | Kind::Auto => {
                let class = match self.d.read_tag(&slot)? {
                    Some(c) => c,
                    None => {
                        return Err(self.d.err(ErrorKind::Mismatch {
                            field: slot.name().to_owned(),
                            expected: "an object, got a null pointer (use Option)".to_owned(),
                        }));
                    }
                };
                let short = class.name.strip_prefix("class ").unwrap_or(&class.name);
                let variant = variants.iter().copied().find(|v| *v == class.name || *v == short);
                match variant {
                    Some(variant) => v.visit_enum(ClassEnum { d: self.d, class, variant }),
                    None => Err(self.d.err(ErrorKind::Mismatch {
                        field: slot.name().to_owned(),
                        expected: format!("one of the classes {variants:?}, got {}", class.name),
                    })),
                }
            }
            Kind::Prim(Prim::Str | Prim::WStr) => {
                let text = match slot.kind {
                    Kind::Prim(Prim::WStr) => self.d.read_wstring()?,
                    _ => self.d.visit_string_bytes(StringVisitor, true)?,
                };
                v.visit_enum(text.into_deserializer())
            }
            _ => Err(self.mismatch("an enum")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.string(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if !self.d.shallow && !self.slot.element && self.slot.prop.is_some() {
            // Deep: the property's size says where it ends.
            self.d.ignored = true;
            return v.visit_unit();
        }
        self.any(v, false)
    }
}

impl<'a, 'de, 't, I: Input<'de>> ValueDe<'a, 'de, 't, I> {
    fn list_forced<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.list(v, false)
    }
}

struct StringVisitor;

impl Visitor<'_> for StringVisitor {
    type Value = String;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<String, E> {
        Ok(v.to_owned())
    }
}

/// The root: an object.
impl<'de, I: Input<'de>> de::Deserializer<'de> for &mut Deserializer<'de, '_, I> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        ValueDe { d: self, slot: DSlot::root() }.deserialize_any(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        ValueDe { d: self, slot: DSlot::root() }.deserialize_struct(name, fields, v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        ValueDe { d: self, slot: DSlot::root() }.deserialize_enum(name, variants, v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        ValueDe { d: self, slot: DSlot::root() }.deserialize_map(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value> {
        v.visit_newtype_struct(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct identifier ignored_any
    }
}

/// An object's properties as a map (keys are property names).
struct ObjectAccess<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    class: &'t ClassDef,
    /// Deep: the bit position where the object ends.
    end: u64,
    /// Shallow: the next property index; deep: the expected next index.
    idx: usize,
    /// 0/1: the `$__type` key/value next, 2/3: `$__hash`, 4: properties.
    header: u8,
    /// Keys are property indices (the serde struct's fields are the properties).
    by_index: bool,
    /// Shallow mode: every property of the class passes the options' mask (no test per property).
    all_in: bool,
    /// The property whose value comes next. (Kept as separate plain fields, not an
    /// `Option<(DSlot, u64)>`: a value written field by field and read back whole stalls the CPU's
    /// store forwarding on every property.)
    pending: Option<&'t PropertyDef>,
    /// Shallow: the presence bit of the pending property was read (its `Option` layer is it).
    presence: bool,
    /// Deep: the pending property's encoding (from its tag) and where it ends.
    pending_kind: Kind,
    prop_end: u64,
    done: bool,
    /// A dynamic object: its properties count against the model budget.
    charge: bool,
    /// Property slots charged so far (the value visitor's capacity).
    slots: usize,
    /// Properties handed out so far.
    count: usize,
}

impl<'de, 't, I: Input<'de>> ObjectAccess<'_, 'de, 't, I> {
    /// Finds the next property; `None` at the end of the object.
    #[inline(always)]
    fn next_property(&mut self) -> Result<Option<&'t str>> {
        if self.d.shallow { self.next_shallow() } else { self.next_deep() }
    }

    /// [`next_property`](Self::next_property) in shallow mode: the next included property in id order.
    #[inline(always)]
    fn next_shallow(&mut self) -> Result<Option<&'t str>> {
        let d = &mut *self.d;
        let props = &self.class.props;
        while let Some(prop) = props.get(self.idx) {
            self.idx += 1;
            if !self.all_in && !d.incl.test(prop.flags) {
                d.skipped_deprecated |= prop.has(flags::DEPRECATED);
                continue;
            }
            let mut presence = false;
            if prop.has(flags::DELTA_ENCODE) {
                if !d.bool()? {
                    if d.forbid_delta {
                        return Err(d.err(ErrorKind::MissingDelta(prop.name.clone())));
                    }
                    continue;
                }
                presence = true;
            }
            self.pending = Some(prop);
            self.presence = presence;
            return Ok(Some(prop.name.as_str()));
        }
        Ok(None)
    }

    /// [`next_property`](Self::next_property) in deep mode: the next property header, skipping
    /// unknown properties when asked to.
    #[inline]
    fn next_deep(&mut self) -> Result<Option<&'t str>> {
        let d = &mut *self.d;
        loop {
            let start = d.pos();
            if start >= self.end {
                if start > self.end {
                    return Err(d.err(ErrorKind::ObjectSizeMismatch {
                        class: self.class.name.clone(),
                        expected: self.end,
                        actual: start,
                    }));
                }
                return Ok(None);
            }
            let size = u64::from(d.u32()?);
            let tag = d.bits(32)?;
            let prop_end = start + size;
            if prop_end > self.end || prop_end < d.pos() {
                return Err(d.err(ErrorKind::PropertySizeMismatch {
                    property: format!("{} tag {tag}", self.class.name),
                    expected: size,
                    actual: (self.end - start).min(d.pos() - start),
                }));
            }
            match self.class.slot_for_tag(tag, self.idx) {
                Some(ts) => {
                    let prop = &self.class.props[ts.prop as usize];
                    self.idx = ts.prop as usize + 1;
                    self.pending = Some(prop);
                    self.pending_kind = ts.kind;
                    self.prop_end = prop_end;
                    return Ok(Some(prop.name.as_str()));
                }
                None if d.skip_unknown => d.seek(prop_end)?,
                None => {
                    return Err(d.err(ErrorKind::UnknownProperty { class: self.class.name.clone(), hash: tag }));
                }
            }
        }
    }

    /// Counts a property of a dynamic object against the model budget: its name, and its slot
    /// when the list of properties outgrows its capacity (which then doubles).
    #[inline(never)]
    fn charge_property(&mut self, name: &str) -> Result<()> {
        self.count += 1;
        let mut bytes = name.len();
        if self.count > self.slots {
            let grown = (self.slots * 2).max(4);
            bytes += (grown - self.slots) * crate::value::PROPERTY_BYTES;
            self.slots = grown;
        }
        self.d.charge(bytes)
    }

    /// Consumes what the visitor did not read.
    #[inline(always)]
    fn finish(&mut self) -> Result<()> {
        if !self.done {
            self.skip_rest()?;
        }
        self.d.leave();
        Ok(())
    }

    #[inline(never)]
    fn skip_rest(&mut self) -> Result<()> {
        while self.next_property()?.is_some() {
            self.value(std::marker::PhantomData::<de::IgnoredAny>)?;
        }
        self.done = true;
        Ok(())
    }

    #[inline(always)]
    fn value<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let prop = self.pending.take().ok_or_else(|| Error::new(ErrorKind::Message("value before key".into())))?;
        let shallow = self.d.shallow;
        let (kind, presence) = if shallow { (prop.kind, self.presence) } else { (self.pending_kind, false) };
        let slot = DSlot { prop: Some(prop), kind, root: false, element: false, presence };
        let v = seed.deserialize(ValueDe { d: &mut *self.d, slot })?;
        if !shallow && (self.d.pos() != self.prop_end || self.d.ignored) {
            self.end_deep_property(&slot, self.prop_end)?;
        }
        Ok(v)
    }

    /// After a deep property's value: skips what an ignored value left, or reports a size mismatch.
    #[inline(never)]
    fn end_deep_property(&mut self, slot: &DSlot<'t>, prop_end: u64) -> Result<()> {
        let at = self.d.pos();
        if at != prop_end {
            if self.d.ignored {
                self.d.seek(prop_end)?;
            } else {
                return Err(self.d.err(ErrorKind::PropertySizeMismatch {
                    property: format!("{}::{}", self.class.name, slot.name()),
                    expected: prop_end,
                    actual: at,
                }));
            }
        }
        self.d.ignored = false;
        Ok(())
    }
}

impl<'de, I: Input<'de>> de::MapAccess<'de> for ObjectAccess<'_, 'de, '_, I> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.header {
            0 => {
                self.header = 1;
                return seed.deserialize("$__type".into_deserializer()).map(Some);
            }
            2 => {
                self.header = 3;
                return seed.deserialize("$__hash".into_deserializer()).map(Some);
            }
            _ => {}
        }
        let next = self.next_property()?;
        if self.charge {
            if let Some(name) = next {
                self.charge_property(name)?;
            }
        }
        match next {
            // (`next_property` leaves `idx` just past the property it found.)
            Some(_) if self.by_index => {
                seed.deserialize(de::value::U64Deserializer::<Error>::new(self.idx as u64 - 1)).map(Some)
            }
            Some(name) => seed.deserialize(de::value::StrDeserializer::<Error>::new(name)).map(Some),
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        match self.header {
            1 => {
                self.header = 2;
                seed.deserialize(self.class.name.as_str().into_deserializer())
            }
            3 => {
                self.header = 4;
                seed.deserialize(self.class.hash.into_deserializer())
            }
            _ => self.value(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        // At most the class's properties (deep data may repeat one; this is only a hint).
        Some(self.class.props.len().saturating_sub(self.idx))
    }
}

/// A container of (key, value) objects as a map.
struct PairsAccess<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    class: &'t ClassDef,
    slot: DSlot<'t>,
    left: u32,
    /// The entry object being read: (end, next property index).
    saved: Option<(u64, usize)>,
}

impl<'de, I: Input<'de>> de::MapAccess<'de> for PairsAccess<'_, 'de, '_, I> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.d.reserved = self.d.reserved.saturating_sub(32);
        let class = match self.d.read_tag(&self.slot)? {
            Some(c) if std::ptr::eq(c, self.class) => c,
            _ => {
                return Err(self.d.err(ErrorKind::Mismatch {
                    field: self.slot.name().to_owned(),
                    expected: format!("a {} entry", self.class.name),
                }));
            }
        };
        let mut acc = self.d.object_body(class, false, &[], false)?;
        let key = match acc.next_property()? {
            Some(_) if acc.idx == 1 => acc.value(seed)?,
            _ => return Err(Error::mismatch(&class.name, "the key property first")),
        };
        self.saved = Some((acc.end, acc.idx));
        Ok(Some(key))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let (end, idx) = self.saved.take().ok_or_else(|| Error::new(ErrorKind::Message("value before key".into())))?;
        let mut acc = ObjectAccess {
            d: &mut *self.d,
            class: self.class,
            end,
            idx,
            header: 4,
            by_index: false,
            all_in: false,
            pending: None,
            presence: false,
            pending_kind: Kind::Auto,
            prop_end: 0,
            done: false,
            charge: false,
            slots: 0,
            count: 0,
        };
        let value = match acc.next_property()? {
            Some(_) if acc.idx == 2 => acc.value(seed)?,
            _ => return Err(Error::mismatch(&self.class.name, "the value property second")),
        };
        acc.finish()?;
        Ok(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

/// A container's elements.
struct ListAccess<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    slot: DSlot<'t>,
    left: u32,
    /// Bits reserved per element still to come (0 for fixed arrays, whose length is the type's).
    min_bits: u64,
}

impl<'de, I: Input<'de>> de::SeqAccess<'de> for ListAccess<'_, 'de, '_, I> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.d.reserved = self.d.reserved.saturating_sub(self.min_bits);
        seed.deserialize(ValueDe { d: &mut *self.d, slot: self.slot }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        // Exact: a declared length is checked against the input (with every element's least
        // size) before the list is handed out.
        Some(self.left as usize)
    }
}

/// A leaf struct's components as a map.
struct LeafAccess {
    leaf: Leaf,
    wire: [Scalar; 9],
    fields: &'static [&'static str],
    i: usize,
}

impl<'de> de::MapAccess<'de> for LeafAccess {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.fields.get(self.i) {
            Some(f) => seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(f)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let field = self.fields.get(self.i).copied().unwrap_or_default();
        self.i += 1;
        let start = self.leaf.field_start(field).unwrap_or(0);
        if self.leaf.group() == 1 {
            seed.deserialize(ScalarDe(self.wire[start]))
        } else {
            seed.deserialize(RowDe(&self.wire[start..start + self.leaf.group()]))
        }
    }
}

/// A leaf struct's components as a sequence (wire order; matrix rows as sequences).
struct LeafSeq {
    leaf: Leaf,
    wire: [Scalar; 9],
    i: usize,
}

impl<'de> de::SeqAccess<'de> for LeafSeq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let g = self.leaf.group();
        if self.i >= self.leaf.len() {
            return Ok(None);
        }
        let start = self.i;
        self.i += g;
        if g == 1 {
            seed.deserialize(ScalarDe(self.wire[start])).map(Some)
        } else {
            seed.deserialize(RowDe(&self.wire[start..start + g])).map(Some)
        }
    }
}

struct ScalarDe(Scalar);

impl<'de> de::Deserializer<'de> for ScalarDe {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        visit_scalar(self.0, v)
    }
    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct RowDe<'a>(&'a [Scalar]);

impl<'de> de::Deserializer<'de> for RowDe<'_> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_seq(RowSeq(self.0.iter()))
    }
    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct RowSeq<'a>(std::slice::Iter<'a, Scalar>);

impl<'de> de::SeqAccess<'de> for RowSeq<'_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.0.next() {
            Some(s) => seed.deserialize(ScalarDe(*s)).map(Some),
            None => Ok(None),
        }
    }
}

/// A polymorphic value: a Rust enum whose variants are classes.
struct ClassEnum<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    class: &'t ClassDef,
    variant: &'static str,
}

impl<'a, 'de, 't, I: Input<'de>> de::EnumAccess<'de> for ClassEnum<'a, 'de, 't, I> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self))
    }
}

impl<'de, I: Input<'de>> de::VariantAccess<'de> for ClassEnum<'_, 'de, '_, I> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Err(Error::new(ErrorKind::Unsupported("unit variants for classes")))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(ObjectBodyDe { d: self.d, class: self.class })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _v: V) -> Result<V::Value> {
        Err(Error::new(ErrorKind::Unsupported("tuple variants")))
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], v: V) -> Result<V::Value> {
        self.d.visit_object(self.class, v, false, fields, false)
    }
}

/// The body of an object whose tag was already read.
struct ObjectBodyDe<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    class: &'t ClassDef,
}

impl<'de, I: Input<'de>> de::Deserializer<'de> for ObjectBodyDe<'_, 'de, '_, I> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.d.visit_object(self.class, v, true, &[], true)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        self.d.visit_object(self.class, v, false, fields, false)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_some(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}
