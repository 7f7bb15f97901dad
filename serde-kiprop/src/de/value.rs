//! One value of a property slot: scalars, strings, enums, options, containers, leaf structs.

use super::container::{Inline, ListAccess, PairsAccess};
use super::leaf::LeafAccess;
use super::object::ClassEnum;
use super::{Deserializer, Input};
use crate::codec::{Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{EnumDef, Kind, PropertyDef};
use crate::types::{MARKER, marker_kind};
use serde_core::de::{self, IntoDeserializer, Visitor};

/// Bits of a simple numeric type on the wire (strings: see [`Deserializer::min_bits`]).
pub(super) fn prim_bits(p: Prim) -> u64 {
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
pub(super) struct DSlot<'t> {
    pub(super) prop: Option<&'t PropertyDef>,
    pub(super) kind: Kind,
    pub(super) root: bool,
    pub(super) element: bool,
    /// Shallow DELTA_ENCODE: the presence bit was 1 (the next `Option` layer is it).
    pub(super) presence: bool,
}

impl<'t> DSlot<'t> {
    pub(super) fn root() -> Self {
        DSlot { prop: None, kind: Kind::Object(None), root: true, element: false, presence: false }
    }

    pub(super) fn name(&self) -> &'t str {
        self.prop.map_or("root", |p| p.name.as_str())
    }

    pub(super) fn enum_def(&self) -> Option<&'t EnumDef> {
        self.prop.and_then(|p| p.enum_def.as_deref())
    }

    pub(super) fn container(&self) -> bool {
        !self.element && self.prop.is_some_and(|p| p.dynamic)
    }

    pub(super) fn element_of(self) -> Self {
        DSlot { element: true, presence: false, root: false, ..self }
    }
}

/// Deserializes one value of a slot.
pub(super) struct ValueDe<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) slot: DSlot<'t>,
}

impl<'a, 'de, 't, I: Input<'de>> ValueDe<'a, 'de, 't, I> {
    #[cold]
    pub(super) fn mismatch(&self, expected: &str) -> Error {
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
    pub(super) fn number<V: Visitor<'de>>(self, hint: Prim, v: V) -> Result<V::Value> {
        // A property's own value (not a container's element): its `deep_direct`, worked out
        // once, is `Some(hint)` exactly when this slot's kind is `Prim(hint)` and the property is
        // not a container (a slot's kind is its property's, but for a property without a type,
        // whose `deep_direct` is `None`): one byte compare for the test below.
        let direct = match self.slot.prop {
            Some(p) if !self.slot.element => p.deep_direct == Some(hint),
            _ => false,
        };
        debug_assert!(!direct || (self.slot.kind == Kind::Prim(hint) && !self.slot.container()));
        if direct || (self.slot.kind == Kind::Prim(hint) && !self.slot.container()) {
            let s = self.d.scalar(hint)?;
            return visit_scalar(s, v);
        }
        self.number_slow(hint, v)
    }

    #[inline(never)]
    pub(super) fn number_slow<V: Visitor<'de>>(self, hint: Prim, v: V) -> Result<V::Value> {
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
    pub(super) fn mismatch_prim(&self, _p: Prim, hint: Prim) -> Error {
        self.mismatch(hint.type_name())
    }

    /// A self-describing read. With `charge`, what the visitor builds is a dynamic model
    /// ([`Value`](crate::Value) or alike) and counts against the model budget; without, the
    /// value is being skipped.
    pub(super) fn any<V: Visitor<'de>>(self, v: V, charge: bool) -> Result<V::Value> {
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
    pub(super) fn list<V: Visitor<'de>>(self, v: V, charge: bool) -> Result<V::Value> {
        self.d.mark(|| super::trace::Mark::Next("list length"));
        let n = self.d.len(false)?;
        let elem = self.slot.element_of();
        let min_bits = self.d.min_bits(&elem);
        // Elements that hold no container never look at the reserved bits, so theirs are only
        // checked here; what would still be reserved once the visitor is done (the bits of the
        // elements it did not start to read, or all of them when the list is not handed out) is
        // added then, which leaves the count where reserving them all and releasing one per
        // element read would have left it.
        let deferred = matches!(elem.kind, Kind::Prim(_) | Kind::Enum | Kind::Leaf(_));
        if deferred {
            self.d.room(n, min_bits)?;
        } else {
            self.d.reserve(n, min_bits)?;
        }
        let opened = if charge { self.d.charge(crate::value::list_bytes(n as usize)) } else { Ok(()) };
        if let Err(e) = opened.and_then(|()| self.d.enter()) {
            if deferred {
                self.d.reserved += u64::from(n) * min_bits;
            }
            return Err(e);
        }
        let mut access = ListAccess { d: &mut *self.d, slot: elem, len: n, left: n, min_bits, deferred };
        let value = v.visit_seq(Inline(&mut access));
        let left = access.left;
        if deferred && left != 0 {
            self.d.reserved += u64::from(left) * min_bits;
        }
        let value = value?;
        if left != 0 {
            return Err(self.d.err(ErrorKind::Mismatch {
                field: self.slot.name().to_owned(),
                expected: format!("a sequence that reads all {n} elements"),
            }));
        }
        self.d.leave();
        Ok(value)
    }

    pub(super) fn string<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
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
pub(super) fn visit_scalar<'de, V: Visitor<'de>>(s: Scalar, v: V) -> Result<V::Value> {
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
            // A present DELTA_ENCODE property: this `Option` layer is its presence bit.
            slot.presence = false;
        } else {
            let pointer = match slot.kind {
                Kind::Object(_) => !slot.container(),
                Kind::Auto => self.d.shallow && !slot.element && !slot.container(),
                _ => false,
            };
            if pointer && !slot.root && self.d.null_ahead(&slot)? {
                return v.visit_none();
            }
        }
        // One call of the visitor (which the optimiser may then inline).
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
                return self.d.visit_leaf_seq(leaf, v);
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
                return self.d.visit_leaf_seq(leaf, v);
            }
        }
        if slot.container() {
            return self.deserialize_seq(v);
        }
        if slot.element || slot.root {
            return Err(self.mismatch("a tuple"));
        }
        // A fixed array: its length comes from the Rust type, not the data (nothing reserved).
        let mut access = ListAccess {
            d: &mut *self.d,
            slot: slot.element_of(),
            len: len as u32,
            left: len as u32,
            min_bits: 0,
            deferred: false,
        };
        let value = v.visit_seq(Inline(&mut access))?;
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
                let mut access =
                    PairsAccess { d: &mut *self.d, class, slot, len: n, left: n, saved: None, entry_at: 0 };
                let value = v.visit_map(Inline(&mut access))?;
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
        // Shallow, an object of the declared class whose serde fields are its properties, all
        // written (see `plain_object_ahead`): its visitor in one call, `plain_object`, which the
        // optimiser can make this function's tail call. (Through `object`, below, it was the
        // same call after more tests, or a call of this function's visitor.)
        // Deep, the same for a plain deep object (see `deep_plain_ahead`).
        if let Kind::Object(Some(expected)) = self.slot.kind {
            if !self.slot.container() {
                if self.d.shallow {
                    if let Some(class) = self.d.plain_object_ahead(expected, fields) {
                        return self.d.plain_object(class, v);
                    }
                } else if let Some((class, end)) = self.d.deep_plain_ahead(expected, fields) {
                    return self.d.deep_plain_object(class, end, fields, v);
                }
            }
        }
        let mut slot = self.slot;
        if slot.kind == Kind::Auto && name.starts_with(MARKER) {
            if let Some((kind @ Kind::Leaf(_), _)) = marker_kind(name) {
                slot.kind = kind;
            }
        }
        if slot.container() {
            return Err(self.mismatch("a struct"));
        }
        // Objects first: one compare of the kind's tag, where the `match` below works out which
        // of its arms the kind is in several steps.
        if let Kind::Object(_) | Kind::Auto = slot.kind {
            return self.d.object(slot, v, false, fields, false);
        }
        match slot.kind {
            Kind::Leaf(leaf) => {
                if leaf.fields_in_wire_order(fields) {
                    // The struct's fields are the components in wire order: a sequence, which
                    // the derived visitor reads with no key step (as for shallow objects).
                    return self.d.visit_leaf_seq(leaf, v);
                }
                let wire = self.d.read_leaf(leaf)?;
                v.visit_map(LeafAccess { leaf, wire, fields: leaf.fields(), i: 0 })
            }
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
        if slot.kind == Kind::Enum && !slot.container() {
            // The common case inline, the rest out of line (so that this stays small enough for
            // the optimiser to inline it where an `Option` layer wraps it).
            let value = self.d.read_enum(&slot)?;
            if (value as usize) < variants.len() && slot.prop.is_some_and(|p| p.variants_are_options(variants)) {
                // Option value `i` is variant `i`: serde takes the index.
                return v.visit_enum(de::value::U32Deserializer::<Error>::new(value));
            }
            return self.enum_by_name(value, v);
        }
        self.enum_other(variants, v)
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
    /// [`deserialize_enum`](de::Deserializer::deserialize_enum) of an enum property's `value`
    /// that is not the variant of the same index: by its option name.
    #[inline(never)]
    fn enum_by_name<V: Visitor<'de>>(self, value: u32, v: V) -> Result<V::Value> {
        match self.d.enum_name(&self.slot, value)? {
            std::borrow::Cow::Borrowed(n) => v.visit_enum(de::value::StrDeserializer::<Error>::new(n)),
            std::borrow::Cow::Owned(n) => v.visit_enum(n.into_deserializer()),
        }
    }

    /// [`deserialize_enum`](de::Deserializer::deserialize_enum) of anything but a (non-container)
    /// enum property: classes as variants, enums as strings, or a mismatch.
    #[inline(never)]
    fn enum_other<V: Visitor<'de>>(self, variants: &'static [&'static str], v: V) -> Result<V::Value> {
        let slot = self.slot;
        if slot.container() {
            return Err(self.mismatch("an enum"));
        }
        match slot.kind {
            // (`Kind::Enum` is `deserialize_enum`'s own case.)
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

    pub(super) fn list_forced<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.list(v, false)
    }
}

pub(super) struct StringVisitor;

impl Visitor<'_> for StringVisitor {
    type Value = String;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<String, E> {
        Ok(v.to_owned())
    }
}
