//! The serde `Serializer`: writes derived structs (and [`Value`]s) as KI objects,
//! driven by the class schemas of a [`TypeList`].

use serde_core::ser::{self, Impossible, Serialize};

use crate::codec::{BitWriter, Leaf, Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::hash::string_id;
use crate::options::{Inclusion, Options, frame, serializer_flags};
use crate::schema::{ClassDef, EnumDef, Kind, PropertyDef, TypeList, flags};
use crate::types::{MARKER, auto_type_code, auto_type_name, marker_kind};
use crate::value::Value;

/// Writes KI objects into a bit stream. Create one with [`Serializer::new`], serialize a value
/// into `&mut serializer`, then take the framed bytes with [`Serializer::into_bytes`].
///
/// ```
/// # use serde_kiprop::{Serializer, TypeList, Options};
/// # use serde::Serialize;
/// # static A: serde_kiprop::ClassSchema =
/// #     serde_kiprop::ClassSchema::new("class A", &[serde_kiprop::PropertySchema::new("x")]);
/// # let types = TypeList::from_schemas(&[&A]);
/// #[derive(Serialize)]
/// #[serde(rename = "class A")]
/// struct A { x: u32 }
/// let mut ser = Serializer::new(&types, Options::new());
/// A { x: 7 }.serialize(&mut ser)?;
/// let bytes = ser.into_bytes();
/// # Ok::<(), serde_kiprop::Error>(())
/// ```
pub struct Serializer<'t> {
    w: BitWriter,
    types: &'t TypeList,
    opts: Options,
    shallow: bool,
    compact: bool,
    string_enums: bool,
    forbid_delta: bool,
    /// The flags that leave a property out in deep mode (DEPRECATED when skipped, else none).
    deep_skip: u32,
    incl: Inclusion,
    /// Set by a deep-mode `None` whose property header the field already wrote (it rewinds).
    omitted: bool,
    /// Shallow fields that arrived before their turn (out of id order), as (property index,
    /// value), for every object being written: each object's are the last ones while it is
    /// written (its nested objects take theirs out before they end).
    /// The value is `None` for a field that was `None` itself (absent, for a DELTA_ENCODE
    /// property), so `Some(None)` (present, null) stays apart from it.
    buffered: Vec<(usize, Option<Value>)>,
    depth: u32,
    utf16: Vec<u16>,
}

impl<'t> Serializer<'t> {
    /// A serializer for `types` with `opts`.
    pub fn new(types: &'t TypeList, opts: Options) -> Self {
        Serializer::with_buffer(types, opts, Vec::new())
    }

    /// Like [`new`](Self::new), reusing `buf`'s allocation (it is cleared).
    pub fn with_buffer(types: &'t TypeList, opts: Options, mut buf: Vec<u8>) -> Self {
        buf.clear();
        Serializer {
            w: BitWriter::from_vec(buf),
            types,
            shallow: opts.shallow,
            compact: opts.compact(),
            string_enums: opts.string_enums(),
            forbid_delta: opts.flags & serializer_flags::FORBID_DELTA_ENCODE != 0,
            deep_skip: if opts.skip_deprecated { flags::DEPRECATED } else { 0 },
            incl: opts.inclusion(),
            omitted: false,
            buffered: Vec::new(),
            depth: opts.recursion_limit,
            opts,
            utf16: Vec::new(),
        }
    }

    /// The framed output: `BINd` magic, flags, compression as the options say.
    pub fn into_bytes(self) -> Vec<u8> {
        let flags = self.opts.flags;
        let opts = self.opts;
        frame(self.w.finish(), flags, &opts)
    }

    /// The bare object stream (no framing).
    pub fn into_object_bytes(self) -> Vec<u8> {
        self.w.finish()
    }
}

/// Where a value goes: which property, how it is encoded, and what must precede it.
#[derive(Clone, Copy)]
struct Slot<'t> {
    prop: Option<&'t PropertyDef>,
    kind: Kind,
    /// The exact type string (as a code, see `types::auto_type_name`) when a marker type decided
    /// an `Auto` property.
    auto_type: u8,
    /// [`sf`] bits.
    f: u8,
}

/// The bits of [`Slot::f`].
mod sf {
    /// The root object.
    pub(super) const ROOT: u8 = 1;
    /// Shallow DELTA_ENCODE: a presence bit is still to be written.
    pub(super) const PRESENCE: u8 = crate::schema::SLOT_PRESENCE;
    /// Deep mode: the property header (size + hash) is still to be written.
    pub(super) const HEADER: u8 = 4;
    /// Inside a container or fixed array.
    pub(super) const ELEMENT: u8 = 8;
    /// A container property at property level (a single value is a mismatch).
    pub(super) const CONTAINER: u8 = crate::schema::SLOT_CONTAINER;
    /// Deep mode, property level, header already written: `None` leaves the property out (the
    /// field rewinds the header).
    pub(super) const OMITTABLE: u8 = 32;
}

impl<'t> Slot<'t> {
    fn root() -> Self {
        Slot { prop: None, kind: Kind::Object(None), auto_type: 0, f: sf::ROOT }
    }

    #[inline(always)]
    fn is(&self, bits: u8) -> bool {
        self.f & bits != 0
    }

    fn name(&self) -> &'t str {
        self.prop.map_or("root", |p| p.name.as_str())
    }

    fn enum_def(&self) -> Option<&'t EnumDef> {
        self.prop.and_then(|p| p.enum_def.as_deref())
    }

    fn element_of(self) -> Self {
        Slot { f: sf::ELEMENT, ..self }
    }
}

struct Patch {
    start: u64,
    size_pos: u64,
}

fn mismatch(slot: &Slot<'_>, expected: &str) -> Error {
    let what = match slot.kind {
        Kind::Auto => "a value of a type without a KI mapping".to_owned(),
        Kind::Prim(p) => format!("a value for {}", p.type_name()),
        Kind::Leaf(l) => format!("a {} (struct, map or tuple of its components)", l.type_name()),
        Kind::Enum => "an enum (unit variant, integer or option name)".to_owned(),
        Kind::Object(_) => "an object (struct, map with $__type, or enum of classes)".to_owned(),
    };
    Error::mismatch(slot.name(), format!("{what}, got {expected}"))
}

#[inline(always)]
fn fits(prim: Prim, v: Scalar) -> bool {
    match (prim, v) {
        (Prim::Bool, Scalar::Bool(_)) => true,
        (Prim::F32 | Prim::F64, Scalar::Int(_) | Scalar::UInt(_) | Scalar::F32(_) | Scalar::F64(_)) => true,
        (_, Scalar::Int(i)) => prim.int_range().is_some_and(|(lo, hi)| i >= lo && (i < 0 || i as u64 <= hi)),
        (_, Scalar::UInt(u)) => prim.int_range().is_some_and(|(_, hi)| u <= hi),
        _ => false,
    }
}

impl<'t> Serializer<'t> {
    /// Writes what precedes a value: the presence bit and the deep property header.
    #[inline(always)]
    fn open(&mut self, slot: &Slot<'t>, type_name: Option<&str>) -> Result<Option<Patch>> {
        if slot.is(sf::PRESENCE) {
            self.w.write_bool(true);
        }
        if !slot.is(sf::HEADER) {
            return Ok(None);
        }
        self.open_header(slot, type_name)
    }

    /// [`open`](Self::open)'s deep property header (size placeholder + hash).
    #[inline(never)]
    fn open_header(&mut self, slot: &Slot<'t>, type_name: Option<&str>) -> Result<Option<Patch>> {
        let prop = match slot.prop {
            Some(p) => p,
            None => return Ok(None),
        };
        let hash = match (auto_type_name(slot.auto_type), slot.kind) {
            (Some(t), _) => string_id(t.as_bytes()).wrapping_add(prop.name_hash),
            (None, Kind::Auto) => match type_name {
                Some(t) => string_id(t.as_bytes()).wrapping_add(prop.name_hash),
                None => return Err(self.missing_type(prop)),
            },
            _ if prop.kind == Kind::Auto => match type_name {
                Some(t) => string_id(t.as_bytes()).wrapping_add(prop.name_hash),
                None => return Err(self.missing_type(prop)),
            },
            _ => prop.hash,
        };
        Ok(Some(self.header(hash)))
    }

    /// Writes a deep property header (size placeholder + hash) from the unaligned position.
    #[inline(always)]
    fn header(&mut self, hash: u32) -> Patch {
        let start = self.w.bit_pos();
        self.w.align();
        let size_pos = self.w.bit_pos();
        self.w.write_u32(0);
        self.w.write_bits(hash, 32);
        Patch { start, size_pos }
    }

    #[inline]
    fn close(&mut self, patch: Option<Patch>) {
        if let Some(p) = patch {
            let size = self.w.bit_pos() - p.start;
            self.w.patch_u32_at((p.size_pos / 8) as usize, size as u32);
        }
    }

    fn missing_type(&self, prop: &PropertyDef) -> Error {
        let class = self
            .types
            .classes()
            .iter()
            .find(|c| c.props.iter().any(|p| std::ptr::eq(p, prop)))
            .map_or_else(String::new, |c| c.name.clone());
        Error::new(ErrorKind::MissingType { class, field: prop.name.clone() })
    }

    /// A number or bool: the common case (the property's type is the Rust type's, nothing to
    /// write before the value) inline and specialised, the rest out of line.
    #[inline(always)]
    fn scalar(&mut self, slot: Slot<'t>, v: Scalar, auto: Prim) -> Result<()> {
        if matches!(slot.kind, Kind::Prim(p) if p == auto) && slot.f & !(sf::ELEMENT | sf::OMITTABLE) == 0 {
            self.w.write_scalar(auto, v);
            return Ok(());
        }
        self.scalar_slow(slot, v, auto)
    }

    #[inline(never)]
    fn scalar_slow(&mut self, slot: Slot<'t>, v: Scalar, auto: Prim) -> Result<()> {
        if matches!(slot.kind, Kind::Prim(p) if p == auto) && slot.f & !(sf::ELEMENT | sf::OMITTABLE) == sf::PRESENCE {
            // A present shallow DELTA_ENCODE value: the presence bit, then the value.
            self.w.write_bool(true);
            self.w.write_scalar(auto, v);
            return Ok(());
        }
        let (prim, type_name) = match slot.kind {
            Kind::Prim(p) => (p, None),
            Kind::Auto => (auto, Some(auto.type_name())),
            Kind::Enum => return self.enum_int(slot, v),
            _ => return Err(mismatch(&slot, auto.type_name())),
        };
        if slot.is(sf::CONTAINER) {
            return Err(mismatch(&slot, "a single value for a container property"));
        }
        if !fits(prim, v) {
            return Err(Error::mismatch(slot.name(), format!("a value that fits {}, got {v:?}", prim.type_name())));
        }
        let patch = self.open(&slot, type_name)?;
        self.w.write_scalar(prim, v);
        self.close(patch);
        Ok(())
    }

    fn enum_int(&mut self, slot: Slot<'t>, v: Scalar) -> Result<()> {
        let value = match v {
            Scalar::UInt(u) if u <= u64::from(u32::MAX) => u as u32,
            Scalar::Int(i) if i >= i64::from(i32::MIN) && i <= i64::from(u32::MAX) => i as u32,
            _ => return Err(Error::mismatch(slot.name(), format!("an enum value, got {v:?}"))),
        };
        if self.string_enums {
            let text = slot.enum_def().and_then(|d| d.format(value)).ok_or_else(|| {
                Error::new(ErrorKind::UnknownEnumValue { property: slot.name().to_owned(), value: value.to_string() })
            })?;
            let patch = self.open(&slot, None)?;
            self.w.write_string(text.as_bytes(), self.compact);
            self.close(patch);
        } else {
            let patch = self.open(&slot, None)?;
            self.w.write_bits(value, 32);
            self.close(patch);
        }
        Ok(())
    }

    fn enum_name(&mut self, slot: Slot<'t>, name: &str) -> Result<()> {
        let def = slot.enum_def();
        let value = def.and_then(|d| d.parse(name)).ok_or_else(|| {
            Error::new(ErrorKind::UnknownEnumValue { property: slot.name().to_owned(), value: name.to_owned() })
        })?;
        if self.string_enums {
            let canonical = match def {
                Some(d) if d.bits => d.format(value).unwrap_or_else(|| name.trim().to_owned()),
                _ => name.trim().to_owned(),
            };
            let patch = self.open(&slot, None)?;
            self.write_str_checked(canonical.as_bytes())?;
            self.close(patch);
            Ok(())
        } else {
            self.enum_int(slot, Scalar::UInt(u64::from(value)))
        }
    }

    #[inline]
    fn check_len(&self, n: usize, string: bool) -> Result<()> {
        let max = if self.compact {
            0x7FFF_FFFF
        } else if string {
            0xFFFF
        } else {
            u32::MAX as usize
        };
        if n > max { Err(Error::new(ErrorKind::LengthOverflow(n))) } else { Ok(()) }
    }

    fn write_str_checked(&mut self, bytes: &[u8]) -> Result<()> {
        self.check_len(bytes.len(), true)?;
        self.w.write_string(bytes, self.compact);
        Ok(())
    }

    fn string(&mut self, slot: &Slot<'t>, s: &str) -> Result<()> {
        let (prim, type_name) = match slot.kind {
            Kind::Prim(p @ (Prim::Str | Prim::WStr)) => (p, None),
            Kind::Auto => (Prim::Str, Some("std::string")),
            Kind::Enum => return self.enum_name(*slot, s),
            _ => return Err(mismatch(slot, "a string")),
        };
        if slot.is(sf::CONTAINER) {
            return Err(mismatch(slot, "a single string for a container property"));
        }
        if prim == Prim::WStr {
            let mut units = std::mem::take(&mut self.utf16);
            units.clear();
            units.extend(s.encode_utf16());
            let r = self.check_len(units.len(), true).and_then(|()| self.open(slot, type_name));
            let r = r.map(|patch| {
                self.w.write_wstring(&units, self.compact);
                self.close(patch);
            });
            self.utf16 = units;
            return r;
        }
        self.check_len(s.len(), true)?;
        let patch = self.open(slot, type_name)?;
        self.w.write_string(s.as_bytes(), self.compact);
        self.close(patch);
        Ok(())
    }

    fn bytes(&mut self, slot: Slot<'t>, b: &[u8]) -> Result<()> {
        match slot.kind {
            Kind::Prim(Prim::Str) | Kind::Auto if !slot.is(sf::CONTAINER) => {
                self.check_len(b.len(), true)?;
                let patch = self.open(&slot, Some("std::string"))?;
                self.w.write_string(b, self.compact);
                self.close(patch);
                Ok(())
            }
            Kind::Prim(Prim::WStr) if !slot.is(sf::CONTAINER) => {
                // UTF-16LE code units as they are (a wstring that is not valid UTF-16 decodes to
                // these bytes).
                if b.len() % 2 != 0 {
                    return Err(mismatch(&slot, "an odd number of bytes (a wstring as bytes is UTF-16LE)"));
                }
                self.check_len(b.len() / 2, true)?;
                let patch = self.open(&slot, None)?;
                self.w.write_wstring_le_bytes(b, self.compact);
                self.close(patch);
                Ok(())
            }
            Kind::Prim(p @ (Prim::U8 | Prim::I8)) if slot.is(sf::CONTAINER) => {
                // A container of bytes: length prefix, then the bytes (each aligned, so contiguous).
                self.check_len(b.len(), false)?;
                let patch = self.open(&slot, Some(p.type_name()))?;
                self.w.write_len(b.len() as u32, self.compact, false);
                if !b.is_empty() {
                    self.w.write_bytes(b);
                }
                self.close(patch);
                Ok(())
            }
            _ => Err(mismatch(&slot, "bytes")),
        }
    }

    fn null(&mut self, slot: Slot<'t>) -> Result<()> {
        if slot.is(sf::ROOT) {
            return Err(Error::new(ErrorKind::NullRoot));
        }
        if slot.is(sf::PRESENCE) {
            if self.forbid_delta {
                return Err(Error::new(ErrorKind::MissingDelta(slot.name().to_owned())));
            }
            self.w.write_bool(false);
            return Ok(());
        }
        if slot.is(sf::CONTAINER) {
            // A container (of objects too: `None` is not a null element) is left out in deep
            // mode; in shallow mode only a DELTA_ENCODE property can be absent (handled above).
            if slot.is(sf::OMITTABLE) {
                self.omitted = true;
                return Ok(());
            }
            if slot.is(sf::HEADER) {
                return Ok(());
            }
            return Err(mismatch(
                &slot,
                "None for a container property in shallow mode (not DELTA_ENCODE, so it cannot be absent; \
                 write an empty sequence)",
            ));
        }
        match slot.kind {
            Kind::Object(_) => {
                let patch = self.open(&slot, None)?;
                self.w.write_u32(0);
                self.close(patch);
                Ok(())
            }
            // Deep mode: `None` leaves the property out.
            _ if slot.is(sf::HEADER) && !slot.is(sf::ELEMENT) => Ok(()),
            _ if slot.is(sf::OMITTABLE) => {
                self.omitted = true;
                Ok(())
            }
            // Shallow, no type: a null pointer.
            Kind::Auto if !slot.is(sf::ELEMENT) => {
                self.w.write_u32(0);
                Ok(())
            }
            _ => Err(mismatch(
                &slot,
                "None (only DELTA_ENCODE properties in shallow mode, pointers, and deep-mode properties can be absent)",
            )),
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Err(Error::new(ErrorKind::RecursionLimit));
        }
        self.depth -= 1;
        Ok(())
    }

    /// The class of a serde struct name, remembering the match by the name's address.
    #[inline(always)]
    fn resolve_static(&self, name: &'static str, slot: &Slot<'t>, variant: Option<&str>) -> Result<&'t ClassDef> {
        if let Kind::Object(Some(expected)) = slot.kind {
            let c = self.types.get(expected);
            if c.rust_name.matches(name) {
                return Ok(c);
            }
        }
        self.resolve_static_slow(name, slot, variant)
    }

    #[inline(never)]
    fn resolve_static_slow(&self, name: &'static str, slot: &Slot<'t>, variant: Option<&str>) -> Result<&'t ClassDef> {
        let c = self.resolve_class(name, slot, variant)?;
        if c.name == name || c.name.strip_prefix("class ") == Some(name) {
            c.rust_name.remember(name);
        }
        Ok(c)
    }

    fn resolve_class(&self, name: &str, slot: &Slot<'t>, variant: Option<&str>) -> Result<&'t ClassDef> {
        let types = self.types;
        if let Kind::Object(Some(expected)) = slot.kind {
            let c = types.get(expected);
            if c.name == name || c.name.strip_prefix("class ") == Some(name) {
                return Ok(c);
            }
        }
        if let Some(i) = types.index_of(name) {
            return Ok(types.get(i));
        }
        if let Some(i) = variant.and_then(|v| types.index_of(v)) {
            return Ok(types.get(i));
        }
        if let Kind::Object(Some(expected)) = slot.kind {
            return Ok(types.get(expected));
        }
        Err(Error::new(ErrorKind::UnknownClass(name.to_owned())))
    }

    /// Starts an object: type tag, and in deep mode a size placeholder.
    #[inline(always)]
    fn begin_object(&mut self, slot: &Slot<'t>, class: &'t ClassDef) -> Result<ObjectState<'t>> {
        let patch = if slot.f & (sf::CONTAINER | sf::HEADER | sf::PRESENCE) != 0 {
            self.object_prefix(slot)?
        } else {
            self.enter()?;
            None
        };
        let size_pos = if self.shallow {
            self.w.write_u32(class.hash);
            0
        } else {
            // The tag, then the size placeholder (patched by `end_object`).
            self.w.write_u64(u64::from(class.hash));
            self.w.bit_pos() - 32
        };
        let all_in = self.shallow && class.all_included(self.incl);
        Ok(ObjectState { class, cursor: 0, buffered: 0, all_in, patch, size_pos, root: slot.is(sf::ROOT) })
    }

    /// [`begin_object`](Self::begin_object) for a slot with something before the object: the
    /// checks, then the presence bit or the deep property header.
    #[inline(never)]
    fn object_prefix(&mut self, slot: &Slot<'t>) -> Result<Option<Patch>> {
        if slot.is(sf::CONTAINER) {
            return Err(mismatch(slot, "a single object for a container property"));
        }
        if slot.kind == Kind::Auto && slot.is(sf::HEADER) {
            let prop = slot.prop.map(|p| self.missing_type(p));
            return Err(prop.unwrap_or_else(|| Error::new(ErrorKind::NullRoot)));
        }
        self.enter()?;
        self.open(slot, None)
    }

    /// Writes the value of a shallow-mode property (its presence bit first, for DELTA_ENCODE).
    #[inline(always)]
    fn shallow_value<T: ?Sized + Serialize>(&mut self, prop: &'t PropertyDef, value: &T) -> Result<()> {
        let slot = Slot { prop: Some(prop), kind: prop.kind, auto_type: 0, f: prop.slot_bits };
        value.serialize(ValueSer { s: self, slot, variant: None })
    }

    /// Handles one field of an object being written. Fast path: the field is the property at
    /// the cursor (serde's field order is the id order) and its name was matched before.
    #[inline(always)]
    fn field<T: ?Sized + Serialize>(&mut self, st: &mut ObjectState<'t>, key: &'static str, value: &T) -> Result<()> {
        if let Some(prop) = st.class.props.get(st.cursor as usize) {
            // (The remembered key packs the length too, and is only stored after the names
            // compared equal: no string comparison here.)
            if prop.key.matches(key) && st.buffered == 0 {
                st.cursor += 1;
                if !self.shallow {
                    return self.deep_property(prop, value);
                }
                if !st.all_in && !self.incl.test(prop.flags) {
                    return Ok(());
                }
                return self.shallow_value(prop, value);
            }
        }
        self.field_slow(st, Key::Static(key), value)
    }

    /// Writes a deep-mode property: header (size placeholder + hash), value, size.
    #[inline(always)]
    fn deep_property<T: ?Sized + Serialize>(&mut self, prop: &'t PropertyDef, value: &T) -> Result<()> {
        if prop.flags & self.deep_skip != 0 {
            return Ok(());
        }
        let container = prop.slot_bits & sf::CONTAINER;
        if prop.kind == Kind::Auto {
            // The Rust type decides the type string, and so the hash: the value writes the header.
            let slot = Slot { prop: Some(prop), kind: Kind::Auto, auto_type: 0, f: sf::HEADER | container };
            return value.serialize(ValueSer { s: self, slot, variant: None });
        }
        // The header (size placeholder + hash) starts at the byte index `mark.0`: a partly filled
        // last byte is already in the buffer.
        let mark = self.w.mark();
        let start = BitWriter::mark_bit_pos(mark);
        self.w.write_u64(u64::from(prop.hash) << 32);
        let slot = Slot { prop: Some(prop), kind: prop.kind, auto_type: 0, f: sf::OMITTABLE | container };
        value.serialize(ValueSer { s: self, slot, variant: None })?;
        if self.omitted {
            // `None`: the property is left out.
            self.omitted = false;
            self.w.rewind(mark);
        } else {
            let size = self.w.bit_pos() - start;
            self.w.patch_u32_at(mark.0, size as u32);
        }
        Ok(())
    }

    /// [`field`](Self::field) for everything else: first sight of a field name, map keys, fields
    /// out of id order (buffered until their turn), properties the mask excludes.
    #[inline(never)]
    fn field_slow<T: ?Sized + Serialize>(&mut self, st: &mut ObjectState<'t>, key: Key<'_>, value: &T) -> Result<()> {
        let class = st.class;
        let found = match key {
            Key::Static(k) => class.find_static(k, st.cursor as usize),
            Key::Dynamic(k) => class.find(k, st.cursor as usize),
        };
        let key = key.as_str();
        let idx = found
            .ok_or_else(|| Error::new(ErrorKind::UnknownField { class: class.name.clone(), field: key.to_owned() }))?;
        let prop = &class.props[idx];
        if !self.shallow {
            st.cursor = idx as u32 + 1;
            return self.deep_property(prop, value);
        }
        if !self.incl.test(prop.flags) {
            return Ok(());
        }
        if idx < st.cursor as usize || self.buffered_at(st, idx).is_some() {
            return Err(Error::custom_msg(format!("{}::{} serialized twice", class.name, key)));
        }
        let pending = class.props[st.cursor as usize..idx].iter().any(|p| self.incl.test(p.flags));
        if pending {
            // Out of id order: keep it until the properties before it are written.
            self.buffered.push((idx, crate::value::to_layered_value(value)?));
            st.buffered += 1;
            return Ok(());
        }
        self.shallow_value(prop, value)?;
        st.cursor = idx as u32 + 1;
        self.flush_buffered(st)
    }

    /// Where the value buffered for property `idx` of the object `st` is in
    /// [`buffered`](Serializer::buffered) (the object's values are the last `st.buffered` ones).
    fn buffered_at(&self, st: &ObjectState<'t>, idx: usize) -> Option<usize> {
        let first = self.buffered.len() - st.buffered as usize;
        self.buffered[first..].iter().position(|(i, _)| *i == idx).map(|p| first + p)
    }

    /// Takes the buffered value at `at` (from [`buffered_at`](Self::buffered_at)) out.
    fn take_buffered(&mut self, st: &mut ObjectState<'t>, at: usize) -> Option<Value> {
        st.buffered -= 1;
        self.buffered.swap_remove(at).1
    }

    fn flush_buffered(&mut self, st: &mut ObjectState<'t>) -> Result<()> {
        while st.buffered != 0 {
            let class = st.class;
            let cursor = st.cursor as usize;
            let next = class.props[cursor..].iter().position(|p| self.incl.test(p.flags));
            let Some(off) = next else { break };
            let idx = cursor + off;
            let Some(at) = self.buffered_at(st, idx) else { break };
            let v = self.take_buffered(st, at);
            self.shallow_value(&class.props[idx], &v)?;
            st.cursor = idx as u32 + 1;
        }
        Ok(())
    }

    #[inline(always)]
    fn end_object(&mut self, mut st: ObjectState<'t>) -> Result<()> {
        if self.shallow {
            if (st.cursor as usize) < st.class.props.len() || st.buffered != 0 {
                self.end_shallow_slow(&mut st)?;
            }
        } else {
            let size = self.w.bit_pos() - st.size_pos;
            self.w.patch_u32_at((st.size_pos / 8) as usize, size as u32);
        }
        self.close(st.patch.take());
        if st.root {
            self.w.align();
        }
        self.depth += 1;
        Ok(())
    }

    /// The end of a shallow object with properties left: buffered fields, absent DELTA_ENCODE
    /// properties, missing fields.
    #[inline(never)]
    fn end_shallow_slow(&mut self, st: &mut ObjectState<'t>) -> Result<()> {
        if st.buffered != 0 {
            self.flush_buffered(st)?;
        }
        let class = st.class;
        for (i, prop) in class.props.iter().enumerate().skip(st.cursor as usize) {
            if !self.incl.test(prop.flags) {
                continue;
            }
            if let Some(at) = self.buffered_at(st, i) {
                let v = self.take_buffered(st, at);
                self.shallow_value(prop, &v)?;
            } else if prop.has(flags::DELTA_ENCODE) {
                if self.forbid_delta {
                    return Err(Error::new(ErrorKind::MissingDelta(prop.name.clone())));
                }
                self.w.write_bool(false);
            } else {
                return Err(Error::new(ErrorKind::MissingField {
                    class: class.name.clone(),
                    field: prop.name.clone(),
                }));
            }
        }
        Ok(())
    }
}

impl Error {
    fn custom_msg(msg: String) -> Self {
        Error::new(ErrorKind::Message(msg))
    }
}

/// A field name: serde's `&'static str` (cacheable by address) or a map key.
#[derive(Clone, Copy)]
enum Key<'k> {
    Static(&'static str),
    Dynamic(&'k str),
}

impl<'k> Key<'k> {
    fn as_str(self) -> &'k str {
        match self {
            Key::Static(k) => k,
            Key::Dynamic(k) => k,
        }
    }
}

struct ObjectState<'t> {
    class: &'t ClassDef,
    /// The next property in id order.
    cursor: u32,
    /// How many values of this object wait (out of id order) at the end of
    /// [`Serializer::buffered`].
    buffered: u32,
    /// Shallow mode: every property of the class passes the options' mask (no test per field).
    all_in: bool,
    patch: Option<Patch>,
    size_pos: u64,
    root: bool,
}

/// Serializes one value into a slot.
struct ValueSer<'a, 't> {
    s: &'a mut Serializer<'t>,
    slot: Slot<'t>,
    /// Class name from an enum variant (polymorphism), for structs whose name is not a class.
    variant: Option<&'static str>,
}

impl<'a, 't> ser::Serializer for &'a mut Serializer<'t> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, 't>;
    type SerializeTuple = SeqSer<'a, 't>;
    type SerializeTupleStruct = SeqSer<'a, 't>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = MapSer<'a, 't>;
    type SerializeStruct = StructSer<'a, 't>;
    type SerializeStructVariant = StructSer<'a, 't>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_i64(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_u64(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_f32(v)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_f64(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_char(v)
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_none()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_some(v)
    }
    fn serialize_unit(self) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(self, name: &'static str, i: u32, variant: &'static str) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_unit_variant(name, i, variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, v: &T) -> Result<()> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_newtype_struct(name, v)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<()> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_newtype_variant(name, i, variant, v)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 't>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_seq(len)
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a, 't>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_tuple(len)
    }
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<SeqSer<'a, 't>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_tuple_struct(name, len)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>> {
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_tuple_variant(name, i, variant, len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 't>> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_map(len)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructSer<'a, 't>> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_struct(name, len)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, 't>> {
        self.opts.check()?;
        ValueSer { s: self, slot: Slot::root(), variant: None }.serialize_struct_variant(name, i, variant, len)
    }
}

impl<'a, 't> ser::Serializer for ValueSer<'a, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, 't>;
    type SerializeTuple = SeqSer<'a, 't>;
    type SerializeTupleStruct = SeqSer<'a, 't>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = MapSer<'a, 't>;
    type SerializeStruct = StructSer<'a, 't>;
    type SerializeStructVariant = StructSer<'a, 't>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline(always)]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Bool(v), Prim::Bool)
    }
    #[inline(always)]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v.into()), Prim::I8)
    }
    #[inline(always)]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v.into()), Prim::I16)
    }
    #[inline(always)]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v.into()), Prim::I32)
    }
    #[inline(always)]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.s.scalar(self.slot, Scalar::Int(v), Prim::I64)
    }
    #[inline(always)]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v.into()), Prim::U8)
    }
    #[inline(always)]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v.into()), Prim::U16)
    }
    #[inline(always)]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v.into()), Prim::U32)
    }
    #[inline(always)]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.s.scalar(self.slot, Scalar::UInt(v), Prim::U64)
    }
    #[inline(always)]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.s.scalar(self.slot, Scalar::F32(v), Prim::F32)
    }
    #[inline(always)]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.s.scalar(self.slot, Scalar::F64(v), Prim::F64)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.s.string(&self.slot, v.encode_utf8(&mut buf))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        // Fast path: a `std::string` with nothing to write before it.
        if matches!(self.slot.kind, Kind::Prim(Prim::Str)) && self.slot.f & !(sf::ELEMENT | sf::OMITTABLE) == 0 {
            self.s.check_len(v.len(), true)?;
            self.s.w.write_string(v.as_bytes(), self.s.compact);
            return Ok(());
        }
        self.s.string(&self.slot, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.s.bytes(self.slot, v)
    }
    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.s.null(self.slot)
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        let mut slot = self.slot;
        if slot.is(sf::PRESENCE) {
            if slot.prop.is_some_and(|p| p.dynamic) || !matches!(slot.kind, Kind::Object(_) | Kind::Auto) {
                // The presence bit is written with the value.
                return v.serialize(ValueSer { s: self.s, slot, variant: None });
            }
            // A pointer: the presence layer is this Option; an inner Option means null.
            self.s.w.write_bool(true);
            slot.f &= !sf::PRESENCE;
        }
        v.serialize(ValueSer { s: self.s, slot, variant: None })
    }
    fn serialize_unit(self) -> Result<()> {
        self.s.null(self.slot)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.s.null(self.slot)
    }
    #[inline]
    fn serialize_unit_variant(self, _name: &'static str, i: u32, variant: &'static str) -> Result<()> {
        match self.slot.kind {
            Kind::Enum if !self.s.string_enums => match self.slot.prop.and_then(|p| p.variant_value(i, variant)) {
                // `enum_int` for a known option: the value as an unaligned u32.
                Some(v) => {
                    let patch = self.s.open(&self.slot, None)?;
                    self.s.w.write_bits(v, 32);
                    self.s.close(patch);
                    Ok(())
                }
                None => self.s.string(&self.slot, variant),
            },
            Kind::Enum | Kind::Prim(Prim::Str | Prim::WStr) => self.s.string(&self.slot, variant),
            _ => Err(mismatch(&self.slot, "a unit variant")),
        }
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, v: &T) -> Result<()> {
        let mut slot = self.slot;
        if slot.kind == Kind::Auto && name.starts_with(MARKER) {
            if let Some((kind, type_name)) = marker_kind(name) {
                slot.kind = kind;
                slot.auto_type = auto_type_code(type_name);
            }
        }
        v.serialize(ValueSer { s: self.s, slot, variant: None })
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<()> {
        match self.slot.kind {
            Kind::Object(_) | Kind::Auto => {
                v.serialize(ValueSer { s: self.s, slot: self.slot, variant: Some(variant) })
            }
            _ => Err(mismatch(&self.slot, "a newtype variant")),
        }
    }
    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 't>> {
        let len = len.ok_or_else(|| Error::new(ErrorKind::Unsupported("sequences of unknown length")))?;
        self.seq(len, true)
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a, 't>> {
        self.seq(len, false)
    }
    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqSer<'a, 't>> {
        self.seq(len, false)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(Error::new(ErrorKind::Unsupported("tuple variants")))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 't>> {
        match self.slot.kind {
            // A map in a container of two-property objects: one (key, value) object per entry.
            Kind::Object(Some(c)) if self.slot.is(sf::CONTAINER) && self.s.types.get(c).props.len() == 2 => {
                let len = len.ok_or_else(|| Error::new(ErrorKind::Unsupported("maps of unknown length")))?;
                self.s.check_len(len, false)?;
                let slot = self.slot;
                let patch = self.s.open(&slot, None)?;
                self.s.enter()?;
                self.s.w.write_len(len as u32, self.s.compact, false);
                let class = self.s.types.get(c);
                Ok(MapSer(MapInner::Pairs { s: self.s, slot: slot.element_of(), class, patch, state: None }))
            }
            Kind::Leaf(leaf) => Ok(MapSer(MapInner::Leaf(LeafSer::new(self.s, self.slot, leaf)?, None))),
            Kind::Object(_) | Kind::Auto => {
                Ok(MapSer(MapInner::Object { s: self.s, slot: self.slot, state: None, key: None }))
            }
            _ => Err(mismatch(&self.slot, "a map")),
        }
    }
    #[inline(always)]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<StructSer<'a, 't>> {
        // (The slot is read in place, field by field, not copied: the caller has just written it
        // field by field, and a whole-struct load of those stores stalls store forwarding.)
        let slot = &self.slot;
        match slot.kind {
            Kind::Object(_) => {
                let class = self.s.resolve_static(name, slot, self.variant)?;
                let state = self.s.begin_object(slot, class)?;
                Ok(StructSer(StructInner::Object(self.s, state)))
            }
            _ => self.struct_other(name),
        }
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, 't>> {
        ValueSer { s: self.s, slot: self.slot, variant: Some(variant) }.serialize_struct(variant, len)
    }
}

impl<'a, 't> ValueSer<'a, 't> {
    /// [`serialize_struct`](ser::Serializer::serialize_struct) for leaf and untyped slots.
    fn struct_other(self, name: &'static str) -> Result<StructSer<'a, 't>> {
        let mut slot = self.slot;
        if name.starts_with(MARKER) && slot.kind == Kind::Auto {
            if let Some((Kind::Leaf(leaf), type_name)) = marker_kind(name) {
                slot.kind = Kind::Leaf(leaf);
                slot.auto_type = auto_type_code(type_name);
            }
        }
        match slot.kind {
            Kind::Leaf(leaf) => Ok(StructSer(StructInner::Leaf(LeafSer::new(self.s, slot, leaf)?))),
            Kind::Object(_) | Kind::Auto => {
                let class = self.s.resolve_static(name, &slot, self.variant)?;
                let state = self.s.begin_object(&slot, class)?;
                Ok(StructSer(StructInner::Object(self.s, state)))
            }
            _ => Err(mismatch(&slot, "a struct")),
        }
    }

    fn seq(self, len: usize, is_seq: bool) -> Result<SeqSer<'a, 't>> {
        let slot = self.slot;
        if is_seq && slot.f & !sf::OMITTABLE == sf::CONTAINER {
            // A container property with nothing to write before it: length prefix, elements.
            self.s.check_len(len, false)?;
            self.s.enter()?;
            if self.s.compact {
                self.s.w.write_len(len as u32, true, false);
            } else {
                self.s.w.write_u32(len as u32);
            }
            return Ok(SeqSer(SeqInner::Container { s: self.s, slot: slot.element_of(), patch: None }));
        }
        if let Kind::Leaf(leaf) = slot.kind {
            // A leaf struct as a tuple of its components; for a container property the sequence
            // is the container (of leaf structs), below.
            if !slot.is(sf::CONTAINER) {
                return Ok(SeqSer(SeqInner::Leaf(LeafSer::new(self.s, slot, leaf)?)));
            }
        }
        if slot.is(sf::ELEMENT) || slot.is(sf::ROOT) {
            return Err(mismatch(&slot, "a nested sequence"));
        }
        let dynamic = slot.prop.is_some_and(|p| p.dynamic || p.type_name.is_none());
        if is_seq || slot.prop.is_some_and(|p| p.dynamic) {
            if !dynamic {
                return Err(mismatch(&slot, "a sequence for a non-container property"));
            }
            self.s.check_len(len, false)?;
            // An `Auto` container's element type is unknown here: deep mode needs a type.
            let patch = self.s.open(&slot, None)?;
            self.s.enter()?;
            self.s.w.write_len(len as u32, self.s.compact, false);
            Ok(SeqSer(SeqInner::Container { s: self.s, slot: slot.element_of(), patch }))
        } else {
            // A fixed-size array or tuple: the elements back to back, no prefix.
            let patch = self.s.open(&slot, None)?;
            Ok(SeqSer(SeqInner::Fixed { s: self.s, slot: slot.element_of(), patch }))
        }
    }
}

/// Sequences: containers (length prefix), fixed arrays, or a leaf's components.
#[doc(hidden)]
pub struct SeqSer<'a, 't>(SeqInner<'a, 't>);

enum SeqInner<'a, 't> {
    Container { s: &'a mut Serializer<'t>, slot: Slot<'t>, patch: Option<Patch> },
    Fixed { s: &'a mut Serializer<'t>, slot: Slot<'t>, patch: Option<Patch> },
    Leaf(LeafSer<'a, 't>),
}

impl SeqSer<'_, '_> {
    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        match &mut self.0 {
            SeqInner::Container { s, slot, .. } | SeqInner::Fixed { s, slot, .. } => {
                v.serialize(ValueSer { s, slot: *slot, variant: None })
            }
            SeqInner::Leaf(l) => v.serialize(LeafElemSer { l }),
        }
    }

    #[inline]
    fn finish(self) -> Result<()> {
        match self.0 {
            SeqInner::Container { s, patch, .. } => {
                s.depth += 1;
                s.close(patch);
                Ok(())
            }
            SeqInner::Fixed { s, patch, .. } => {
                s.close(patch);
                Ok(())
            }
            SeqInner::Leaf(l) => l.finish(),
        }
    }
}

impl ser::SerializeSeq for SeqSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        self.element(v)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTuple for SeqSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        self.element(v)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for SeqSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        self.element(v)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// Structs: objects or leaf structs.
#[doc(hidden)]
pub struct StructSer<'a, 't>(StructInner<'a, 't>);

enum StructInner<'a, 't> {
    Object(&'a mut Serializer<'t>, ObjectState<'t>),
    Leaf(LeafSer<'a, 't>),
}

impl ser::SerializeStruct for StructSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<()> {
        match &mut self.0 {
            StructInner::Object(s, st) => s.field(st, key, v),
            StructInner::Leaf(l) => l.field(key, v),
        }
    }
    #[inline(always)]
    fn end(self) -> Result<()> {
        match self.0 {
            StructInner::Object(s, st) => s.end_object(st),
            StructInner::Leaf(l) => l.finish(),
        }
    }
}

impl ser::SerializeStructVariant for StructSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> Result<()> {
        ser::SerializeStruct::end(self)
    }
}

/// Maps: objects in katsuba's JSON shape (`$__type` first) or leaf structs by component name.
#[doc(hidden)]
pub struct MapSer<'a, 't>(MapInner<'a, 't>);

enum MapInner<'a, 't> {
    Pairs {
        s: &'a mut Serializer<'t>,
        slot: Slot<'t>,
        class: &'t ClassDef,
        patch: Option<Patch>,
        state: Option<ObjectState<'t>>,
    },
    Object {
        s: &'a mut Serializer<'t>,
        slot: Slot<'t>,
        state: Option<ObjectState<'t>>,
        key: Option<String>,
    },
    Leaf(LeafSer<'a, 't>, Option<String>),
}

impl ser::SerializeMap for MapSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        if let MapInner::Pairs { s, slot, class, state, .. } = &mut self.0 {
            let mut st = s.begin_object(slot, class)?;
            s.field_slow(&mut st, Key::Dynamic(&class.props[0].name), key)?;
            *state = Some(st);
            return Ok(());
        }
        let k = key.serialize(KeySer)?;
        match &mut self.0 {
            MapInner::Object { key, .. } | MapInner::Leaf(_, key) => *key = Some(k),
            MapInner::Pairs { .. } => {}
        }
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        match &mut self.0 {
            MapInner::Pairs { s, class, state, .. } => {
                let mut st = state.take().ok_or_else(|| Error::custom_msg("map value before its key".into()))?;
                s.field_slow(&mut st, Key::Dynamic(&class.props[1].name), v)?;
                s.end_object(st)
            }
            MapInner::Leaf(l, key) => {
                let k = key.take().unwrap_or_default();
                if k.starts_with('$') { Ok(()) } else { l.field(&k, v) }
            }
            MapInner::Object { s, slot, state, key } => {
                let k = key.take().unwrap_or_default();
                match state {
                    None => {
                        let class = match k.as_str() {
                            "$__type" => {
                                let name = v.serialize(KeySer)?;
                                s.resolve_class(&name, slot, None)?
                            }
                            "$__hash" => {
                                let hash = v.serialize(U32Ser)?;
                                let idx = s
                                    .types
                                    .index_of_hash(hash)
                                    .ok_or_else(|| Error::new(ErrorKind::UnknownType(hash)))?;
                                s.types.get(idx)
                            }
                            _ => {
                                return Err(Error::mismatch(
                                    slot.name(),
                                    "an object map starting with $__type or $__hash",
                                ));
                            }
                        };
                        *state = Some(s.begin_object(slot, class)?);
                        Ok(())
                    }
                    Some(st) => {
                        if k.starts_with("$__") {
                            return Ok(());
                        }
                        s.field_slow(st, Key::Dynamic(&k), v)
                    }
                }
            }
        }
    }
    fn end(self) -> Result<()> {
        match self.0 {
            MapInner::Pairs { s, patch, .. } => {
                s.depth += 1;
                s.close(patch);
                Ok(())
            }
            MapInner::Leaf(l, _) => l.finish(),
            MapInner::Object { s, slot, state, .. } => match state {
                Some(st) => s.end_object(st),
                None => Err(Error::mismatch(slot.name(), "an object map with $__type")),
            },
        }
    }
}

/// A leaf struct being collected (components can arrive by name in any order).
#[doc(hidden)]
pub struct LeafSer<'a, 't> {
    s: &'a mut Serializer<'t>,
    slot: Slot<'t>,
    leaf: Leaf,
    /// `leaf.fields()` and `leaf.group()`, looked up once.
    fields: &'static [&'static str],
    group: usize,
    /// The field expected next (fields usually arrive in wire order).
    next_field: usize,
    /// Components as their 32-bit patterns (every leaf component is 8 or 32 bits wide).
    vals: [u32; 9],
    next: usize,
    filled: u16,
}

impl<'a, 't> LeafSer<'a, 't> {
    fn new(s: &'a mut Serializer<'t>, slot: Slot<'t>, leaf: Leaf) -> Result<Self> {
        if slot.is(sf::CONTAINER) {
            return Err(mismatch(&slot, "a single leaf struct for a container property"));
        }
        Ok(LeafSer {
            s,
            slot,
            leaf,
            fields: leaf.fields(),
            group: leaf.group(),
            next_field: 0,
            vals: [0; 9],
            next: 0,
            filled: 0,
        })
    }

    #[inline]
    fn field<T: ?Sized + Serialize>(&mut self, key: &str, v: &T) -> Result<()> {
        // Fast path: the field after the previous one.
        let i = match self.fields.get(self.next_field) {
            Some(f) if same_short(f, key) => self.next_field,
            _ => {
                if key.starts_with('$') {
                    return Ok(());
                }
                self.fields.iter().position(|f| *f == key).ok_or_else(|| {
                    Error::mismatch(self.slot.name(), format!("a field of {}, got {key:?}", self.leaf.type_name()))
                })?
            }
        };
        self.next_field = i + 1;
        self.next = i * self.group;
        v.serialize(LeafElemSer { l: self })
    }

    #[inline]
    fn push(&mut self, v: Scalar) -> Result<()> {
        if self.next >= self.leaf.len() {
            return Err(Error::mismatch(self.slot.name(), format!("{} components", self.leaf.len())));
        }
        let prim = self.leaf.component();
        if !fits(prim, v) {
            return Err(Error::mismatch(self.slot.name(), format!("a {} component, got {v:?}", prim.type_name())));
        }
        self.vals[self.next] = if prim == Prim::F32 { v.as_f32().to_bits() } else { v.as_bits() as u32 };
        self.filled |= 1 << self.next;
        self.next += 1;
        Ok(())
    }

    fn finish(self) -> Result<()> {
        if self.filled != (1u16 << self.leaf.len()) - 1 {
            return Err(Error::mismatch(self.slot.name(), format!("all components of {}", self.leaf.type_name())));
        }
        let patch = self.s.open(&self.slot, Some(self.leaf.type_name()))?;
        let prim = self.leaf.component();
        for v in &self.vals[..self.leaf.len()] {
            if prim == Prim::U8 {
                self.s.w.align();
                self.s.w.write_bits(*v, 8);
            } else {
                self.s.w.write_u32(*v);
            }
        }
        self.s.close(patch);
        Ok(())
    }
}

/// `a == b` for short names, without a call to `memcmp`.
#[inline(always)]
fn same_short(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// One component (or a row of components) of a leaf struct.
struct LeafElemSer<'b, 'a, 't> {
    l: &'b mut LeafSer<'a, 't>,
}

macro_rules! leaf_num {
    ($($f:ident($t:ty) => $e:expr;)*) => {
        $(fn $f(self, v: $t) -> Result<()> { #[allow(clippy::redundant_closure_call)] self.l.push(($e)(v)) })*
    };
}

impl<'b, 'a, 't> ser::Serializer for LeafElemSer<'b, 'a, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    leaf_num! {
        serialize_i8(i8) => |v: i8| Scalar::Int(v.into());
        serialize_i16(i16) => |v: i16| Scalar::Int(v.into());
        serialize_i32(i32) => |v: i32| Scalar::Int(v.into());
        serialize_i64(i64) => Scalar::Int;
        serialize_u8(u8) => |v: u8| Scalar::UInt(v.into());
        serialize_u16(u16) => |v: u16| Scalar::UInt(v.into());
        serialize_u32(u32) => |v: u32| Scalar::UInt(v.into());
        serialize_u64(u64) => Scalar::UInt;
        serialize_f32(f32) => Scalar::F32;
        serialize_f64(f64) => Scalar::F64;
    }
    fn serialize_bool(self, _v: bool) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_char(self, _v: char) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_str(self, _v: &str) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_none(self) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _variant: &'static str,
        _v: &T,
    ) -> Result<()> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _n: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_struct(self, _n: &'static str, _len: usize) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(Error::mismatch(self.l.slot.name(), "a number"))
    }
}

impl ser::SerializeSeq for LeafElemSer<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(LeafElemSer { l: &mut *self.l })
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTuple for LeafElemSer<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(LeafElemSer { l: &mut *self.l })
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for LeafElemSer<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(LeafElemSer { l: &mut *self.l })
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

/// Serializes a map key (or `$__type` value) to a string.
struct KeySer;

impl ser::Serializer for KeySer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String> {
        Ok(v.to_owned())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<String> {
        String::from_utf8(v.to_vec()).map_err(|_| Error::new(ErrorKind::InvalidText))
    }
    fn serialize_char(self, v: char) -> Result<String> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, v: &'static str) -> Result<String> {
        Ok(v.to_owned())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<String> {
        v.serialize(self)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<String> {
        v.serialize(self)
    }
    fn serialize_bool(self, _v: bool) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i8(self, _v: i8) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i16(self, _v: i16) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i32(self, _v: i32) -> Result<String> {
        Err(key_err())
    }
    fn serialize_i64(self, _v: i64) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u8(self, _v: u8) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u16(self, _v: u16) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u32(self, _v: u32) -> Result<String> {
        Err(key_err())
    }
    fn serialize_u64(self, _v: u64) -> Result<String> {
        Err(key_err())
    }
    fn serialize_f32(self, _v: f32) -> Result<String> {
        Err(key_err())
    }
    fn serialize_f64(self, _v: f64) -> Result<String> {
        Err(key_err())
    }
    fn serialize_none(self) -> Result<String> {
        Err(key_err())
    }
    fn serialize_unit(self) -> Result<String> {
        Err(key_err())
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<String> {
        Err(key_err())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _t: &T,
    ) -> Result<String> {
        Err(key_err())
    }
    fn serialize_seq(self, _l: Option<usize>) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_tuple(self, _l: usize) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_tuple_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_map(self, _l: Option<usize>) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<String, Error>> {
        Err(key_err())
    }
}

fn key_err() -> Error {
    Error::new(ErrorKind::Unsupported("map keys other than strings"))
}

/// Serializes a `$__hash` value to a u32.
struct U32Ser;

impl ser::Serializer for U32Ser {
    type Ok = u32;
    type Error = Error;
    type SerializeSeq = Impossible<u32, Error>;
    type SerializeTuple = Impossible<u32, Error>;
    type SerializeTupleStruct = Impossible<u32, Error>;
    type SerializeTupleVariant = Impossible<u32, Error>;
    type SerializeMap = Impossible<u32, Error>;
    type SerializeStruct = Impossible<u32, Error>;
    type SerializeStructVariant = Impossible<u32, Error>;

    fn serialize_u64(self, v: u64) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_i64(self, v: i64) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_u32(self, v: u32) -> Result<u32> {
        Ok(v)
    }
    fn serialize_i32(self, v: i32) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_u8(self, v: u8) -> Result<u32> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<u32> {
        Ok(v.into())
    }
    fn serialize_i8(self, v: i8) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_i16(self, v: i16) -> Result<u32> {
        u32::try_from(v).map_err(|_| hash_err())
    }
    fn serialize_bool(self, _v: bool) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_f32(self, _v: f32) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_f64(self, _v: f64) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_char(self, _v: char) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_str(self, v: &str) -> Result<u32> {
        v.parse().map_err(|_| hash_err())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_none(self) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<u32> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _n: &'static str, v: &T) -> Result<u32> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _t: &T,
    ) -> Result<u32> {
        Err(hash_err())
    }
    fn serialize_seq(self, _l: Option<usize>) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_tuple(self, _l: usize) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_tuple_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_map(self, _l: Option<usize>) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _l: usize,
    ) -> Result<Impossible<u32, Error>> {
        Err(hash_err())
    }
}

fn hash_err() -> Error {
    Error::new(ErrorKind::Unsupported("$__hash must be a u32"))
}
