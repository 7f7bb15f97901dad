//! The object reader: class tags, object bodies (shallow and deep), the root, properties as a
//! map, and polymorphic values.

use super::container::Inline;
use super::value::{DSlot, ValueDe, prim_bits};
use super::{Deserializer, Input};
use crate::codec::{Leaf, Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ClassDef, Kind, PropertyDef, flags};
use serde_core::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde_core::forward_to_deserialize_any;

impl<'de, 't, I: Input<'de>> Deserializer<'de, 't, I> {
    /// Reads an enum value: 32 bits, or with HUMAN_READABLE_ENUMS its name (out of line).
    #[inline(always)]
    pub(super) fn read_enum(&mut self, slot: &DSlot<'t>) -> Result<u32> {
        if !self.string_enums {
            self.mark(|| super::trace::Mark::Next("enum value"));
            return self.bits(32);
        }
        self.read_enum_name(slot)
    }

    /// [`read_enum`](Self::read_enum) with HUMAN_READABLE_ENUMS: the value's name.
    #[inline(never)]
    fn read_enum_name(&mut self, slot: &DSlot<'t>) -> Result<u32> {
        let n = self.len(true)? as usize;
        let text = if n == 0 {
            ""
        } else {
            let start = self.take(n)?;
            std::str::from_utf8(&self.input.data()[start..start + n]).map_err(|_| self.err(ErrorKind::InvalidText))?
        };
        let parsed = slot.enum_def().and_then(|d| d.parse(text));
        match parsed {
            Some(v) => Ok(v),
            None => {
                let kind = ErrorKind::UnknownEnumValue { property: slot.name().to_owned(), value: text.to_owned() };
                Err(self.err(kind))
            }
        }
    }

    pub(super) fn enum_name(&self, slot: &DSlot<'t>, value: u32) -> Result<std::borrow::Cow<'t, str>> {
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
    pub(super) fn read_tag(&mut self, slot: &DSlot<'t>) -> Result<Option<&'t ClassDef>> {
        self.mark(|| super::trace::Mark::Next("type hash"));
        let tag = self.u32()?;
        // The declared class is the usual one: no map lookup.
        if let Kind::Object(Some(expected)) = slot.kind {
            let c = self.types.get(expected);
            if c.hash == tag && tag != 0 {
                self.mark(|| super::trace::Mark::Class(c.name.clone()));
                return Ok(Some(c));
            }
        }
        let class = self.read_tag_slow(slot, tag)?;
        self.mark(|| super::trace::Mark::Class(class.map_or_else(|| "null".to_owned(), |c| c.name.clone())));
        Ok(class)
    }

    #[inline(never)]
    pub(super) fn read_tag_slow(&mut self, slot: &DSlot<'t>, tag: u32) -> Result<Option<&'t ClassDef>> {
        if tag == 0 {
            return if slot.root { Err(self.err(ErrorKind::NullRoot)) } else { Ok(None) };
        }
        match self.types.index_of_hash(tag) {
            Some(i) => Ok(Some(self.types.get(i))),
            None if self.skip_unknown && !slot.root => {
                self.mark(|| super::trace::Mark::Next("size of an unknown object (skipped)"));
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
    pub(super) fn object_body(
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
            self.mark(|| super::trace::Mark::Next("object size in bits"));
            let size = u64::from(self.u32()?);
            let end = size_pos + size;
            if size < 32 || end > self.input.data().len() as u64 * 8 {
                return Err(self.object_size_error(class, size));
            }
            end
        };
        let header = if header { 0 } else { 4 };
        let by_index = class.fields_are_props(fields);
        let all_in = self.shallow && class.all_included(&self.incl);
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
    pub(super) fn object_size_error(&self, class: &ClassDef, size: u64) -> Error {
        self.err(ErrorKind::ObjectSizeMismatch {
            class: class.name.clone(),
            expected: size,
            actual: self.cur.remaining_bits(self.input.data()) + 32,
        })
    }

    /// Reads an object (tag + body) and lets the visitor see its properties.
    #[inline(always)]
    pub(super) fn object<V: Visitor<'de>>(
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
    ///
    /// Shallow objects of serde structs are read here, inline; deep and dynamic objects by
    /// [`visit_object_other`](Self::visit_object_other), out of line (a deep object's reads are
    /// many and each property's size is checked, so one call more costs it little, and the code
    /// a derived struct's `deserialize` becomes is smaller for both modes).
    #[inline(always)]
    pub(super) fn visit_object<V: Visitor<'de>>(
        &mut self,
        class: &'t ClassDef,
        v: V,
        header: bool,
        fields: &'static [&'static str],
        charge: bool,
    ) -> Result<V::Value> {
        if !self.shallow || header || charge {
            return self.visit_object_other(class, v, header, fields, charge);
        }
        // Shallow data whose every property is written, in the serde struct's field order: the
        // properties as a sequence (no keys), as formats without names hand derived structs.
        // This test is the only one that sends an object there: `object_body`'s objects are the
        // others.
        // (The tests `object_body` would make, in the order that tries the cheapest first; they
        // have no effect but the classes' caches.)
        if !class.has_delta && class.fields_are_props(fields) && class.all_included(&self.incl) {
            return self.plain_object(class, v);
        }
        let mut access = self.object_body(class, header, fields, charge)?;
        // Classes with DELTA_ENCODE properties as a sequence only when the decode can be redone
        // (see `decode_root`).
        let value = if access.by_index && access.d.seq_retry && access.all_in {
            v.visit_seq(PropertySeq(&mut access))?
        } else if access.by_index {
            // The common map: a serde struct of the class's properties (see `FieldMap`). When
            // the visitor read up to the end of the map, `FieldMap` has left the object and
            // there is nothing more to do: the visitor's result is the answer as it is.
            let value = v.visit_map(FieldMap::<_, true>(&mut access));
            if access.done {
                return value;
            }
            let value = value?;
            access.finish()?;
            return Ok(value);
        } else {
            v.visit_map(Inline(&mut access))?
        };
        access.finish()?;
        Ok(value)
    }

    /// [`visit_object`](Self::visit_object) for deep objects and dynamic ones (`header`,
    /// `charge`), out of line. Shallow objects of serde structs never come here, so nothing
    /// here calls the visitor of `visit_object`'s own paths (the plain sequence, [`FieldMap`]):
    /// with one call site each, the optimiser inlines the map's visitor into the struct's
    /// `deserialize` (where a second call site here kept it out of line).
    #[inline(never)]
    fn visit_object_other<V: Visitor<'de>>(
        &mut self,
        class: &'t ClassDef,
        v: V,
        header: bool,
        fields: &'static [&'static str],
        charge: bool,
    ) -> Result<V::Value> {
        let mut access = self.object_body(class, header, fields, charge)?;
        // Classes with DELTA_ENCODE properties, and deep objects (properties in id order, as
        // writers put them), as a sequence only when the decode can be redone (see
        // `decode_root`).
        let seq = access.by_index && access.header == 4 && access.d.seq_retry && (access.all_in || !access.d.shallow);
        let value = if seq {
            v.visit_seq(PropertySeq(&mut access))?
        } else if access.header == 4 && access.by_index && !access.charge && !access.d.shallow {
            // The common map: a serde struct of the class's properties (see `FieldMap`).
            // (Shallow, this is `visit_object`'s case; `Inline` below gives the same map.)
            if !class.has_delta && access.deep_in_order() {
                // Every property once, in id order, with its declared type: what the map would
                // hand out key by key, as a sequence (see `DeepSeq`). Not tried for classes with
                // DELTA_ENCODE properties, which deep writers leave out when absent (mk48's
                // `Contact` half of the time): the failed checks cost more than the sequence saves.
                v.visit_seq(DeepSeq(&mut access))?
            } else {
                v.visit_map(FieldMap::<_, false>(&mut access))?
            }
        } else {
            v.visit_map(Inline(&mut access))?
        };
        if seq && !access.d.shallow && access.d.pos() != access.end {
            // Deep properties the sequence did not take (repeated, unknown, or fields the
            // visitor left): what to do with them is the map path's decision.
            return Err(AbsentDe { d: access.d }.retry());
        }
        access.finish()?;
        Ok(value)
    }

    /// Shallow mode: whether the next object is one of class `expected` (the slot's declared
    /// class) that [`visit_object`](Self::visit_object) would read with
    /// [`visit_plain`](Self::visit_plain) (no DELTA_ENCODE property, every property passes the
    /// mask, `fields` the properties in id order). If so its tag is read and the class returned;
    /// if not, nothing is read (the general path reads the tag, and reports what it finds). Not
    /// with a dump, whose marks the general path records.
    #[inline(always)]
    pub(super) fn plain_object_ahead(
        &mut self,
        expected: u32,
        fields: &'static [&'static str],
    ) -> Option<&'t ClassDef> {
        if self.input.trace().is_some() {
            return None;
        }
        let class = self.types.get(expected);
        if class.has_delta || class.hash == 0 {
            return None;
        }
        let saved = self.cur.clone();
        match self.cur.read_u32(self.input.data()) {
            Ok(tag) if tag == class.hash && class.fields_are_props(fields) && class.all_included(&self.incl) => {
                Some(class)
            }
            _ => {
                self.cur = saved;
                None
            }
        }
    }

    /// [`visit_plain`](Self::visit_plain), out of line: the one place that calls a struct
    /// visitor's `visit_seq` with a [`PlainSeq`], which the optimiser then inlines here.
    #[inline(never)]
    pub(super) fn plain_object<V: Visitor<'de>>(&mut self, class: &'t ClassDef, v: V) -> Result<V::Value> {
        self.visit_plain(class, v)
    }

    /// [`visit_object`](Self::visit_object) for a shallow object of a class without DELTA_ENCODE
    /// properties, every one of which passes the mask, whose serde fields are the properties in
    /// id order: the properties as a [`PlainSeq`], whose elements are read as [`PropertySeq`]'s
    /// (see [`shallow_element`]) with no per-property test of the mode or of DELTA_ENCODE, and
    /// no [`ObjectAccess`] unless the visitor leaves properties unread.
    #[inline(always)]
    fn visit_plain<V: Visitor<'de>>(&mut self, class: &'t ClassDef, v: V) -> Result<V::Value> {
        self.enter()?;
        let mut seq = PlainSeq { d: &mut *self, props: class.props.iter() };
        let value = v.visit_seq(super::container::Inline(&mut seq))?;
        let left = seq.props.len();
        if left != 0 {
            self.skip_plain(class, class.props.len() - left)?;
        }
        self.leave();
        Ok(value)
    }

    /// Skips the properties from `idx` on that a visitor of [`visit_plain`](Self::visit_plain)
    /// left unread, as [`ObjectAccess::finish`] does.
    #[cold]
    #[inline(never)]
    fn skip_plain(&mut self, class: &'t ClassDef, idx: usize) -> Result<()> {
        ObjectAccess::resume(self, class, 0, idx).skip_rest()
    }

    /// Peeks whether the next object slot is a null pointer (consuming it, or a skipped unknown
    /// object, if so).
    pub(super) fn null_ahead(&mut self, slot: &DSlot<'t>) -> Result<bool> {
        let saved = self.cur.clone();
        let traced = self.input.trace().map(super::trace::Trace::len);
        self.mark(|| super::trace::Mark::Next("type hash"));
        let tag = self.u32()?;
        if tag == 0 {
            self.mark(|| super::trace::Mark::Class("null".to_owned()));
            return Ok(true);
        }
        // Not null: the tag is read again where the object is.
        if let (Some(t), Some(n)) = (self.input.trace(), traced) {
            t.truncate(n);
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
    pub(super) fn min_bits(&self, slot: &DSlot<'t>) -> u64 {
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

    pub(super) fn read_leaf(&mut self, leaf: Leaf) -> Result<[Scalar; 9]> {
        let mut out = [Scalar::UInt(0); 9];
        let prim = leaf.component();
        for slot in out.iter_mut().take(leaf.len()) {
            *slot = self.scalar(prim)?;
        }
        Ok(out)
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
pub(super) struct ObjectAccess<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) class: &'t ClassDef,
    /// Deep: the bit position where the object ends.
    pub(super) end: u64,
    /// Shallow: the next property index; deep: the expected next index.
    pub(super) idx: usize,
    /// 0/1: the `$__type` key/value next, 2/3: `$__hash`, 4: properties.
    pub(super) header: u8,
    /// Keys are property indices (the serde struct's fields are the properties).
    pub(super) by_index: bool,
    /// Shallow mode: every property of the class passes the options' mask (no test per property).
    pub(super) all_in: bool,
    /// The property whose value comes next. (Kept as separate plain fields, not an
    /// `Option<(DSlot, u64)>`: a value written field by field and read back whole stalls the CPU's
    /// store forwarding on every property.)
    pub(super) pending: Option<&'t PropertyDef>,
    /// Shallow: the presence bit of the pending property was read (its `Option` layer is it).
    pub(super) presence: bool,
    /// Deep: the pending property's encoding (from its tag) and where it ends.
    pub(super) pending_kind: Kind,
    pub(super) prop_end: u64,
    pub(super) done: bool,
    /// A dynamic object: its properties count against the model budget.
    pub(super) charge: bool,
    /// Property slots charged so far (the value visitor's capacity).
    pub(super) slots: usize,
    /// Properties handed out so far.
    pub(super) count: usize,
}

impl<'a, 'de, 't, I: Input<'de>> ObjectAccess<'a, 'de, 't, I> {
    /// The properties of an object whose body was opened (and entered) elsewhere, from the one at
    /// `idx` on (deep: the object ends at bit `end`), as a map of names.
    pub(super) fn resume(d: &'a mut Deserializer<'de, 't, I>, class: &'t ClassDef, end: u64, idx: usize) -> Self {
        ObjectAccess {
            d,
            class,
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
        }
    }
}

impl<'de, 't, I: Input<'de>> ObjectAccess<'_, 'de, 't, I> {
    /// Finds the next property; `None` at the end of the object.
    #[inline(always)]
    pub(super) fn next_property(&mut self) -> Result<Option<&'t str>> {
        if self.d.shallow { self.next_shallow() } else { self.next_deep() }
    }

    /// [`next_property`](Self::next_property) in shallow mode: the next included property in id order.
    #[inline(always)]
    pub(super) fn next_shallow(&mut self) -> Result<Option<&'t str>> {
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
                d.mark(|| super::trace::Mark::Property(prop.name.clone()));
                d.mark(|| super::trace::Mark::Next("presence bit (DELTA_ENCODE)"));
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
            if !presence {
                d.mark(|| super::trace::Mark::Property(prop.name.clone()));
            }
            return Ok(Some(prop.name.as_str()));
        }
        Ok(None)
    }

    /// [`next_property`](Self::next_property) in deep mode: the next property header, skipping
    /// unknown properties when asked to.
    ///
    /// The common case is handled inline: the object's end, or a header (size and tag read as
    /// one aligned 8-byte word) whose size is in bounds and whose tag is the expected next
    /// property. Anything else puts the cursor back and takes [`next_deep_slow`](Self::next_deep_slow),
    /// which reads the header again and gives every answer and error as before.
    #[inline(always)]
    pub(super) fn next_deep(&mut self) -> Result<Option<&'t str>> {
        if self.d.input.trace().is_none() {
            let d = &mut *self.d;
            let start = d.pos();
            if start == self.end {
                return Ok(None);
            }
            if start < self.end {
                let saved = d.cur.clone();
                if let Ok(word) = d.cur.read_u64(d.input.data()) {
                    // The size is the first 32 bits, the tag the next 32 (both little-endian).
                    let size = word & 0xFFFF_FFFF;
                    let tag = (word >> 32) as u32;
                    let prop_end = start + size;
                    if prop_end <= self.end && prop_end >= d.pos() {
                        // `slot_for_tag`'s answers: the expected property, or (one property left
                        // out, such as an absent DELTA_ENCODE one) the next, when its tag's lookup
                        // finds it.
                        if let Some(prop) = self.class.props.get(self.idx) {
                            if prop.hash == tag && prop.kind != Kind::Auto {
                                return Ok(Some(self.found(prop, self.idx + 1, prop_end)));
                            }
                        }
                        if let Some(prop) = self.class.props.get(self.idx + 1) {
                            if prop.hash == tag && prop.owns_tag {
                                return Ok(Some(self.found(prop, self.idx + 2, prop_end)));
                            }
                        }
                    }
                }
                d.cur = saved;
            }
        }
        self.next_deep_slow()
    }

    /// Deep mode, before any property is read: whether the object's properties are exactly the
    /// class's, each once, in id order, each with the tag of its declared type and a size within
    /// the object (see [`props_in_order`](super::deep::props_in_order)), so that
    /// [`next_deep`](Self::next_deep) would find property 0, 1, 2, … with no lookup, skip or
    /// error, and the object ends after the last. The headers are only looked at (the cursor
    /// does not move). Not with a dump (whose marks the map path records).
    #[inline]
    pub(super) fn deep_in_order(&self) -> bool {
        let d = &*self.d;
        if d.input.trace().is_some() || !self.class.typed {
            return false;
        }
        super::deep::props_in_order(self.class, d.input.data(), d.cur.bit_pos(), self.end)
    }

    /// [`next_deep`](Self::next_deep)'s answer: `prop` is pending, `next` the index after it.
    #[inline(always)]
    fn found(&mut self, prop: &'t PropertyDef, next: usize, prop_end: u64) -> &'t str {
        self.idx = next;
        self.pending = Some(prop);
        self.pending_kind = prop.kind;
        self.prop_end = prop_end;
        prop.name.as_str()
    }

    /// [`next_deep`](Self::next_deep) for everything but its inline case.
    #[inline(never)]
    pub(super) fn next_deep_slow(&mut self) -> Result<Option<&'t str>> {
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
            d.mark(|| super::trace::Mark::Property(String::new()));
            d.mark(|| super::trace::Mark::Next("property size in bits"));
            let size = u64::from(d.u32()?);
            d.mark(|| super::trace::Mark::Next("property hash"));
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
                    d.mark(|| super::trace::Mark::Named(prop.name.clone()));
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
    pub(super) fn charge_property(&mut self, name: &str) -> Result<()> {
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
    pub(super) fn finish(&mut self) -> Result<()> {
        if !self.done {
            self.skip_rest()?;
        }
        self.d.leave();
        Ok(())
    }

    #[inline(never)]
    pub(super) fn skip_rest(&mut self) -> Result<()> {
        while self.next_property()?.is_some() {
            self.value(std::marker::PhantomData::<de::IgnoredAny>)?;
        }
        self.done = true;
        Ok(())
    }

    /// Reads the pending property's value; an error names the property in its path.
    #[inline(always)]
    pub(super) fn value<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        self.value_at::<true, S>(seed)
    }

    /// Reads the pending property's value; with `NAMED` an error gets the property's name
    /// prepended to its path (the key/value properties of a map entry are not named: the entry's
    /// key is).
    #[inline(always)]
    pub(super) fn value_at<const NAMED: bool, S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let shallow = self.d.shallow;
        self.value_in::<NAMED, S>(seed, shallow)
    }

    /// [`value_at`](Self::value_at) with the deserializer's mode given (a constant for [`FieldMap`]).
    #[inline(always)]
    fn value_in<const NAMED: bool, S: DeserializeSeed<'de>>(&mut self, seed: S, shallow: bool) -> Result<S::Value> {
        let prop = self.pending.take().ok_or_else(|| Error::new(ErrorKind::Message("value before key".into())))?;
        let (kind, presence) = if shallow { (prop.kind, self.presence) } else { (self.pending_kind, false) };
        let slot = DSlot { prop: Some(prop), kind, root: false, element: false, presence };
        let v = match seed.deserialize(ValueDe { d: &mut *self.d, slot }) {
            Ok(v) => v,
            Err(e) if NAMED => return Err(e.in_field(&prop.name)),
            Err(e) => return Err(e),
        };
        if !shallow && (self.d.pos() != self.prop_end || self.d.ignored) {
            match self.d.end_deep_property(self.class, &slot, self.prop_end) {
                Ok(()) => {}
                Err(e) if NAMED => return Err(e.in_field(&prop.name)),
                Err(e) => return Err(e),
            }
        }
        Ok(v)
    }

    /// A sequence's next property, in id order (`None` after the last), and the index moves past
    /// it; after the last there is nothing left for [`finish`](Self::finish) to skip.
    #[inline(always)]
    fn next_in_order(&mut self) -> Option<&'t PropertyDef> {
        let Some(prop) = self.class.props.get(self.idx) else {
            self.done = true;
            return None;
        };
        self.idx += 1;
        self.done = self.idx == self.class.props.len();
        Some(prop)
    }

    /// Reads deep property `prop`'s value as `kind`, then checks that it ended at `prop_end` (see
    /// [`Deserializer::end_deep_property`]); an error names the property in its path.
    #[inline(always)]
    fn deep_value<S: DeserializeSeed<'de>>(
        &mut self,
        prop: &'t PropertyDef,
        kind: Kind,
        prop_end: u64,
        seed: S,
    ) -> Result<S::Value> {
        self.d.deep_value(self.class, prop, kind, prop_end, seed)
    }
}

impl<'de, I: Input<'de>> de::MapAccess<'de> for ObjectAccess<'_, 'de, '_, I> {
    type Error = Error;

    #[inline(always)]
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

    #[inline(always)]
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

/// An object's properties as a map for a serde struct whose fields are the class's properties
/// (keys are property indices), when there is nothing else to hand out: no `$__type` and
/// `$__hash` entries, nothing charged against the model budget. It is [`ObjectAccess`]'s map
/// with those choices made once per object rather than at every field, and the mode
/// (`SHALLOW`) a constant.
pub(super) struct FieldMap<'b, 'a, 'de, 't, I: Input<'de>, const SHALLOW: bool>(&'b mut ObjectAccess<'a, 'de, 't, I>);

impl<'de, I: Input<'de>, const SHALLOW: bool> de::MapAccess<'de> for FieldMap<'_, '_, 'de, '_, I, SHALLOW> {
    type Error = Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let acc = &mut *self.0;
        let next = if SHALLOW { acc.next_shallow()? } else { acc.next_deep()? };
        match next {
            // (`next_shallow` and `next_deep` leave `idx` just past the property they found.)
            Some(_) => seed.deserialize(de::value::U64Deserializer::<Error>::new(acc.idx as u64 - 1)).map(Some),
            None => {
                // Shallow, the end of the object is left here (what `ObjectAccess::finish` would
                // do after the visitor), so that the visitor's result needs no more work (see
                // `visit_object`); once (a visitor may ask again).
                if SHALLOW && !acc.done {
                    acc.d.leave();
                }
                acc.done = true;
                Ok(None)
            }
        }
    }

    #[inline(always)]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        self.0.value_in::<true, S>(seed, SHALLOW)
    }

    #[inline(always)]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>> {
        self.next_key_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V> {
        self.next_value_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        de::MapAccess::size_hint(&*self.0)
    }
}

/// A polymorphic value: a Rust enum whose variants are classes.
pub(super) struct ClassEnum<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) class: &'t ClassDef,
    pub(super) variant: &'static str,
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
pub(super) struct ObjectBodyDe<'a, 'de, 't, I: Input<'de>> {
    pub(super) d: &'a mut Deserializer<'de, 't, I>,
    pub(super) class: &'t ClassDef,
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

/// The properties of an object as a sequence, in id order, when the decode can be redone (see
/// [`Deserializer::visit_object`]): shallow, every property passes the mask and the serde
/// struct's fields are the properties; an absent DELTA_ENCODE property (or deep, a property the
/// object leaves out) is an [`AbsentDe`].
pub(super) struct PropertySeq<'b, 'a, 'de, 't, I: Input<'de>>(&'b mut ObjectAccess<'a, 'de, 't, I>);

impl<'de, I: Input<'de>> de::SeqAccess<'de> for PropertySeq<'_, '_, 'de, '_, I> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        if !self.0.d.shallow {
            return self.next_deep(seed);
        }
        let acc = &mut *self.0;
        let Some(prop) = acc.next_in_order() else {
            return Ok(None);
        };
        shallow_element::<_, _, true>(acc.d, prop, seed).map(Some)
    }

    /// Inlined into the derived visitor (serde's default is a call per field).
    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.class.props.len() - self.0.idx)
    }
}

impl<'de, I: Input<'de>> PropertySeq<'_, '_, 'de, '_, I> {
    /// A deep object's next property as a sequence element: the property header at the cursor
    /// must be the next property in id order. A property the data leaves out (a later one comes
    /// first, or the object ends) is an [`AbsentDe`]; anything else (an unknown or repeated
    /// property, a size out of bounds) redoes the decode reading maps, which knows the answer.
    /// (Out of line: it keeps the shallow element, the common sequence case, small enough to inline.)
    #[inline(never)]
    fn next_deep<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let acc = &mut *self.0;
        let Some(prop) = acc.class.props.get(acc.idx) else {
            return Ok(None);
        };
        let d = &mut *acc.d;
        let start = d.pos();
        if start >= acc.end {
            if start > acc.end {
                return Err(AbsentDe { d }.retry());
            }
            acc.idx += 1;
            return seed.deserialize(AbsentDe { d }).map(Some);
        }
        let saved = d.cur.clone();
        let size = u64::from(d.u32()?);
        let tag = d.bits(32)?;
        let prop_end = start + size;
        if prop_end > acc.end || prop_end < d.pos() {
            return Err(AbsentDe { d }.retry());
        }
        let kind = match acc.class.slot_for_tag(tag, acc.idx) {
            Some(ts) if ts.prop as usize == acc.idx => ts.kind,
            Some(ts) if ts.prop as usize > acc.idx => {
                // This property is left out: the header is read again for a later one.
                d.cur = saved;
                acc.idx += 1;
                return seed.deserialize(AbsentDe { d }).map(Some);
            }
            _ => return Err(AbsentDe { d }.retry()),
        };
        acc.idx += 1;
        acc.deep_value(prop, kind, prop_end, seed).map(Some)
    }
}

/// A shallow object's property `prop` as a sequence element, for [`PropertySeq`] and (with no
/// DELTA_ENCODE property to look for, `DELTA` false) [`PlainSeq`]: with `DELTA`, a DELTA_ENCODE
/// property's presence bit first, and an absent property is an [`AbsentDe`].
#[inline(always)]
fn shallow_element<'de, 't, I: Input<'de>, S: DeserializeSeed<'de>, const DELTA: bool>(
    d: &mut Deserializer<'de, 't, I>,
    prop: &'t PropertyDef,
    seed: S,
) -> Result<S::Value> {
    let mut presence = false;
    if DELTA && prop.has(flags::DELTA_ENCODE) {
        d.mark(|| super::trace::Mark::Property(prop.name.clone()));
        d.mark(|| super::trace::Mark::Next("presence bit (DELTA_ENCODE)"));
        if !d.bool()? {
            if d.forbid_delta {
                return Err(d.err(ErrorKind::MissingDelta(prop.name.clone())));
            }
            return seed.deserialize(AbsentDe { d });
        }
        presence = true;
    }
    property_value(d, prop, prop.kind, presence, seed)
}

/// Reads `prop`'s value as `kind` (`presence`: its DELTA_ENCODE bit was read); an error names
/// the property in its path.
#[inline(always)]
pub(super) fn property_value<'de, 't, I: Input<'de>, S: DeserializeSeed<'de>>(
    d: &mut Deserializer<'de, 't, I>,
    prop: &'t PropertyDef,
    kind: Kind,
    presence: bool,
    seed: S,
) -> Result<S::Value> {
    let slot = DSlot { prop: Some(prop), kind, root: false, element: false, presence };
    match seed.deserialize(ValueDe { d, slot }) {
        Ok(v) => Ok(v),
        Err(e) => Err(e.in_field(&prop.name)),
    }
}

/// The properties of a shallow object as a sequence (see [`Deserializer::visit_plain`]).
pub(super) struct PlainSeq<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
    /// The properties not read yet (an iterator: one pointer step per property, where an index
    /// is scaled to an address each time).
    props: std::slice::Iter<'t, PropertyDef>,
}

impl<'de, I: Input<'de>> de::SeqAccess<'de> for PlainSeq<'_, 'de, '_, I> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let Some(prop) = self.props.next() else {
            return Ok(None);
        };
        shallow_element::<_, _, false>(self.d, prop, seed).map(Some)
    }

    /// Inlined into the derived visitor (serde's default is a call per field).
    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.props.len())
    }
}

/// The properties of a deep object that [`ObjectAccess::deep_in_order`] found to be the class's
/// in id order, as a sequence: the map's keys would be 0, 1, 2, … and its values these, read the
/// same way (the property's declared type, its size checked after the value, errors named by the
/// property), so a derived visitor builds the same struct with no key step. What a visitor leaves
/// unread is skipped by [`ObjectAccess::finish`], as for the map.
pub(super) struct DeepSeq<'b, 'a, 'de, 't, I: Input<'de>>(&'b mut ObjectAccess<'a, 'de, 't, I>);

impl<'de, I: Input<'de>> de::SeqAccess<'de> for DeepSeq<'_, '_, 'de, '_, I> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let acc = &mut *self.0;
        let Some(prop) = acc.next_in_order() else {
            return Ok(None);
        };
        let d = &mut *acc.d;
        let start = d.pos();
        // The header `deep_in_order` checked: only its size is needed again.
        let word = d.cur.read_u64(d.input.data()).map_err(|_| d.eof())?;
        let prop_end = start + (word & 0xFFFF_FFFF);
        acc.deep_value(prop, prop.kind, prop_end, seed).map(Some)
    }

    /// Inlined into the derived visitor (serde's default is a call per field).
    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.class.props.len() - self.0.idx)
    }
}

/// An absent DELTA_ENCODE property read as a sequence element: an `Option` is `None`, as the map
/// path gives a missing `Option` field. Whatever else the field asks for (its default, or the
/// "missing field" error) is the derived visitor's business on the map path: this asks
/// [`Deserializer::decode_root`] to redo the decode that way.
struct AbsentDe<'a, 'de, 't, I: Input<'de>> {
    d: &'a mut Deserializer<'de, 't, I>,
}

impl<'de, I: Input<'de>> AbsentDe<'_, 'de, '_, I> {
    #[cold]
    fn retry(self) -> Error {
        self.d.seq_retry_wanted = true;
        Error::new(ErrorKind::Message("read the class as a map".into()))
    }
}

impl<'de, I: Input<'de>> de::Deserializer<'de> for AbsentDe<'_, 'de, '_, I> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_none()
    }

    fn deserialize_any<V: Visitor<'de>>(self, _v: V) -> Result<V::Value> {
        Err(self.retry())
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
