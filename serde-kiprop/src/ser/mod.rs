//! The serde `Serializer`: writes derived structs (and [`Value`]s) as KI objects,
//! driven by the class schemas of a [`TypeList`].

use crate::codec::{BitWriter, Patch, Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::hash::string_id;
use crate::options::{Inclusion, Options, frame, serializer_flags};
use crate::schema::{EnumDef, Kind, PropertyDef, TypeList, flags};
use crate::types::auto_type_name;
use crate::value::Value;

/// The longest `std::string` a plain (not compact) length prefix holds: a u16 count of bytes.
/// `check_len` and the inline string paths that stand in for it use this one bound.
const PLAIN_STRING_MAX: usize = 0xFFFF;

mod compound;
mod field;
mod into;
mod keys;
mod leaf;
mod object;
mod value;

pub use compound::{MapSer, SeqSer, StructSer};
pub use leaf::LeafSer;

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
    /// Shallow fields that arrived before their turn (out of id order), as (property index,
    /// value), for every object being written: each object's are the last ones while it is
    /// written (its nested objects take theirs out before they end).
    /// The value is `None` for a field that was `None` itself (absent, for a DELTA_ENCODE
    /// property), so `Some(None)` (present, null) stays apart from it.
    buffered: Vec<(usize, Option<Value>)>,
    depth: u32,
    /// The deep property headers before the objects being written that wait for their sizes
    /// (see [`object::ObjectState::patched`]).
    patches: Vec<Patch>,
    utf16: Vec<u16>,
    /// The components of the leaf struct being written.
    leaf: leaf::LeafScratch,
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
            buffered: Vec::new(),
            depth: opts.recursion_limit,
            patches: Vec::new(),
            opts,
            utf16: Vec::new(),
            leaf: leaf::LeafScratch::default(),
        }
    }

    /// A serializer that appends to `buf` (after what it holds) and uses `scratch`'s buffers.
    fn with_scratch(types: &'t TypeList, opts: Options, buf: Vec<u8>, scratch: &mut into::Scratch) -> Self {
        let mut ser = Serializer::with_buffer(types, opts, Vec::new());
        ser.w = BitWriter::from_vec(buf);
        ser.utf16 = std::mem::take(&mut scratch.utf16);
        ser.buffered = std::mem::take(&mut scratch.buffered);
        ser
    }

    /// The written bytes (with what the buffer held before); the scratch buffers go back to `scratch`.
    fn into_scratch(mut self, scratch: &mut into::Scratch) -> Vec<u8> {
        scratch.utf16 = std::mem::take(&mut self.utf16);
        self.buffered.clear();
        scratch.buffered = std::mem::take(&mut self.buffered);
        self.w.finish()
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

/// A [`Scalar`] as its variant's index and its bits ([`from_raw`] undoes it).
#[inline(always)]
fn raw(v: Scalar) -> (u8, u64) {
    match v {
        Scalar::Bool(b) => (0, u64::from(b)),
        Scalar::Int(i) => (1, i as u64),
        Scalar::UInt(u) => (2, u),
        Scalar::F32(f) => (3, u64::from(f.to_bits())),
        Scalar::F64(f) => (4, f.to_bits()),
    }
}

fn from_raw(tag: u8, bits: u64) -> Scalar {
    match tag {
        0 => Scalar::Bool(bits != 0),
        1 => Scalar::Int(bits as i64),
        2 => Scalar::UInt(bits),
        3 => Scalar::F32(f32::from_bits(bits as u32)),
        _ => Scalar::F64(f64::from_bits(bits)),
    }
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
        self.w.write_deep_header(hash)
    }

    #[inline(always)]
    fn close(&mut self, patch: Option<Patch>) {
        if let Some(p) = patch {
            self.w.end_deep(p);
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
        if matches!(slot.kind, Kind::Prim(p) if p == auto) && slot.f & !(sf::ELEMENT | sf::PRESENCE) == 0 {
            // (A present shallow DELTA_ENCODE value: the presence bit, then the value.)
            if slot.is(sf::PRESENCE) {
                self.w.write_bool(true);
            }
            self.w.write_scalar(auto, v);
            return Ok(());
        }
        let (tag, bits) = raw(v);
        self.scalar_slow(slot, tag, bits, auto)
    }

    /// (The value as [`raw`]'s two integers: see `PropSer::scalar_slow`.)
    #[inline(never)]
    fn scalar_slow(&mut self, slot: Slot<'t>, tag: u8, bits: u64, auto: Prim) -> Result<()> {
        let v = from_raw(tag, bits);
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
            PLAIN_STRING_MAX
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
}
