//! The object and property writer: class resolution, shallow slots and deep headers, fields in
//! or out of id order, and the end of an object.

use super::field::{DeepProp, PropSer};
use super::{Serializer, Slot, mismatch, sf};
use crate::codec::Patch;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ClassDef, Kind, PropertyDef, flags};
use crate::value::Value;
use serde_core::ser::Serialize;

impl<'t> Serializer<'t> {
    #[inline(always)]
    pub(super) fn enter(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Err(Error::new(ErrorKind::RecursionLimit));
        }
        self.depth -= 1;
        Ok(())
    }

    /// The class of a serde struct name, remembering the match by the name's address.
    #[inline(always)]
    pub(super) fn resolve_static(
        &self,
        name: &'static str,
        slot: &Slot<'t>,
        variant: Option<&str>,
    ) -> Result<&'t ClassDef> {
        if let Kind::Object(Some(expected)) = slot.kind {
            let c = self.types.get(expected);
            if c.rust_name.matches(name) {
                return Ok(c);
            }
        }
        self.resolve_static_slow(name, slot, variant)
    }

    #[inline(never)]
    pub(super) fn resolve_static_slow(
        &self,
        name: &'static str,
        slot: &Slot<'t>,
        variant: Option<&str>,
    ) -> Result<&'t ClassDef> {
        let c = self.resolve_class(name, slot, variant)?;
        if c.name == name || c.name.strip_prefix("class ") == Some(name) {
            c.rust_name.remember(name);
        }
        Ok(c)
    }

    pub(super) fn resolve_class(&self, name: &str, slot: &Slot<'t>, variant: Option<&str>) -> Result<&'t ClassDef> {
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
    pub(super) fn begin_object(&mut self, slot: &Slot<'t>, class: &'t ClassDef) -> Result<ObjectState<'t>> {
        let patched = if slot.f & (sf::CONTAINER | sf::HEADER | sf::PRESENCE) != 0 {
            match self.object_prefix(slot)? {
                Some(patch) => {
                    self.patches.push(patch);
                    true
                }
                None => false,
            }
        } else {
            self.enter()?;
            false
        };
        let mut st = self.begin_plain(class);
        st.patched = patched;
        st.root = slot.is(sf::ROOT);
        Ok(st)
    }

    /// [`begin_object`](Self::begin_object) after what precedes the object (and the depth
    /// check): the tag, in deep mode the size placeholder.
    #[inline(always)]
    pub(super) fn begin_plain(&mut self, class: &'t ClassDef) -> ObjectState<'t> {
        let (fast, size_pos, rest) = if self.shallow {
            // (Worked out before the write: after it the options would be loaded again, as far
            // as the compiler knows the write could have changed them.)
            let fast = class.all_included(&self.incl);
            self.w.write_u32(class.hash);
            (fast, 0, class.props.iter())
        } else {
            let rest = self.deep_rest(class);
            // The tag, then the size placeholder (patched by `end_object`), aligned: after the
            // bytes already in the buffer (a partly filled last byte stays as it is).
            let at = self.w.mark().0 as u64;
            self.w.write_u64(u64::from(class.hash));
            (false, (at + 4) * 8, rest)
        };
        ObjectState { class, rest, buffered: 0, fast, head: 0, patched: false, size_pos, root: false }
    }

    /// Deep mode: a property (header hash `hash`) holding an object of `class`, after the depth
    /// check: the property header, the object's tag and its size placeholder in one append;
    /// `end_object` fills in both sizes (the property's is the object's plus what precedes the
    /// object's size field), so the property needs no patch of its own.
    #[inline(always)]
    pub(super) fn begin_deep_property(&mut self, hash: u32, class: &'t ClassDef) -> ObjectState<'t> {
        let rest = self.deep_rest(class);
        let (size_at, head) = self.w.write_deep_object_header(hash, class.hash);
        ObjectState {
            class,
            rest,
            buffered: 0,
            fast: false,
            head,
            patched: false,
            size_pos: size_at as u64 * 8,
            root: false,
        }
    }

    /// Deep mode: the properties a new object of `class` starts its field fast path with. When
    /// deep mode leaves some of them out (DEPRECATED ones, see [`Serializer::deep_skip`]), none:
    /// every field then goes through [`field_slow`](Self::field_slow), which tests for that
    /// (and keeps `rest` empty), so the fast path has no such test per field.
    #[inline(always)]
    fn deep_rest(&self, class: &'t ClassDef) -> std::slice::Iter<'t, PropertyDef> {
        if self.deep_skips(class) { [].iter() } else { class.props.iter() }
    }

    /// Whether deep mode leaves some properties of `class` out (`deep_skip` is DEPRECATED or
    /// nothing).
    #[inline(always)]
    fn deep_skips(&self, class: &ClassDef) -> bool {
        class.has_deprecated && self.deep_skip != 0
    }

    /// [`begin_object`](Self::begin_object) for a slot with something before the object: the
    /// checks, then the presence bit or the deep property header.
    #[inline(never)]
    pub(super) fn object_prefix(&mut self, slot: &Slot<'t>) -> Result<Option<Patch>> {
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
    pub(super) fn shallow_value<T: ?Sized + Serialize>(&mut self, prop: &'t PropertyDef, value: &T) -> Result<()> {
        value.serialize(PropSer { s: self, to: prop })
    }

    /// Handles one field of an object being written. Fast path: the field is the property at
    /// the cursor (serde's field order is the id order) and its name was matched before.
    #[inline(always)]
    pub(super) fn field<T: ?Sized + Serialize>(
        &mut self,
        st: &mut ObjectState<'t>,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        if let Some(prop) = st.rest.as_slice().first() {
            // (The remembered key packs the length too, and is only stored after the names
            // compared equal: no string comparison here. `fast` and `deep` are two tests of
            // different fields, not one three-way mode, which the compiler turns into a jump
            // table.)
            if st.fast {
                if prop.key.matches(key) {
                    st.rest.next();
                    return self.shallow_value(prop, value);
                }
            } else if st.deep() {
                // (Deep mode buffers nothing and tests no mask.)
                if prop.key.matches(key) {
                    st.rest.next();
                    // (`rest` is empty for a class with properties deep mode leaves out.)
                    return self.deep_value(prop, value);
                }
            } else if st.buffered == 0 && prop.key.matches(key) {
                st.rest.next();
                if !self.incl.test(prop.flags) {
                    return Ok(());
                }
                return self.shallow_value(prop, value);
            }
        }
        self.field_slow(st, Key::Static(key), value)
    }

    /// Writes a deep-mode property, unless deep mode leaves it out (see
    /// [`deep_value`](Self::deep_value)).
    #[inline(always)]
    pub(super) fn deep_property<T: ?Sized + Serialize>(&mut self, prop: &'t PropertyDef, value: &T) -> Result<()> {
        if prop.flags & self.deep_skip != 0 {
            return Ok(());
        }
        self.deep_value(prop, value)
    }

    /// Writes a deep-mode property deep mode does not leave out: the value writes the header
    /// (size + hash) itself, with the value in one append when its size is known up front, or
    /// with the object it holds.
    #[inline(always)]
    pub(super) fn deep_value<T: ?Sized + Serialize>(&mut self, prop: &'t PropertyDef, value: &T) -> Result<()> {
        // (For a value the target has no shortcut for, the slot has the header still to write,
        // so `None` writes nothing and leaves the property out.)
        value.serialize(PropSer { s: self, to: DeepProp(prop) })
    }

    /// [`field`](Self::field) for everything else: first sight of a field name, map keys, fields
    /// out of id order (buffered until their turn), properties the mask excludes.
    #[inline(never)]
    pub(super) fn field_slow<T: ?Sized + Serialize>(
        &mut self,
        st: &mut ObjectState<'t>,
        key: Key<'_>,
        value: &T,
    ) -> Result<()> {
        let class = st.class;
        let found = match key {
            Key::Static(k) => class.find_static(k, st.cursor()),
            Key::Dynamic(k) => class.find(k, st.cursor()),
        };
        let key = key.as_str();
        let idx = found
            .ok_or_else(|| Error::new(ErrorKind::UnknownField { class: class.name.clone(), field: key.to_owned() }))?;
        let prop = &class.props[idx];
        if !self.shallow {
            // (A class with properties deep mode leaves out keeps `rest` empty: see `deep_rest`.)
            if !self.deep_skips(class) {
                st.set_cursor(idx + 1);
            }
            return self.deep_property(prop, value);
        }
        if !self.incl.test(prop.flags) {
            return Ok(());
        }
        if idx < st.cursor() || self.buffered_at(st, idx).is_some() {
            return Err(Error::custom_msg(format!("{}::{} serialized twice", class.name, key)));
        }
        let pending = class.props[st.cursor()..idx].iter().any(|p| self.incl.test(p.flags));
        if pending {
            // Out of id order: keep it until the properties before it are written.
            self.buffered.push((idx, crate::value::to_layered_value(value)?));
            st.buffered += 1;
            st.fast = false;
            return Ok(());
        }
        self.shallow_value(prop, value)?;
        st.set_cursor(idx + 1);
        self.flush_buffered(st)
    }

    /// Where the value buffered for property `idx` of the object `st` is in
    /// [`buffered`](Serializer::buffered) (the object's values are the last `st.buffered` ones).
    pub(super) fn buffered_at(&self, st: &ObjectState<'t>, idx: usize) -> Option<usize> {
        let first = self.buffered.len() - st.buffered as usize;
        self.buffered[first..].iter().position(|(i, _)| *i == idx).map(|p| first + p)
    }

    /// Takes the buffered value at `at` (from [`buffered_at`](Self::buffered_at)) out.
    pub(super) fn take_buffered(&mut self, st: &mut ObjectState<'t>, at: usize) -> Option<Value> {
        st.buffered -= 1;
        self.buffered.swap_remove(at).1
    }

    pub(super) fn flush_buffered(&mut self, st: &mut ObjectState<'t>) -> Result<()> {
        while st.buffered != 0 {
            let class = st.class;
            let cursor = st.cursor();
            let next = class.props[cursor..].iter().position(|p| self.incl.test(p.flags));
            let Some(off) = next else { break };
            let idx = cursor + off;
            let Some(at) = self.buffered_at(st, idx) else { break };
            let v = self.take_buffered(st, at);
            self.shallow_value(&class.props[idx], &v)?;
            st.set_cursor(idx + 1);
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn end_object(&mut self, st: &mut ObjectState<'t>) -> Result<()> {
        // (By reference: the state is read where the fields left it, not copied out first.)
        if st.deep() {
            let size = (self.w.bit_pos() - st.size_pos) as u32;
            let at = (st.size_pos / 8) as usize;
            if st.head == 0 {
                self.w.patch_u32_at(at, size);
            } else {
                self.w.patch_deep_object(at, size, st.head);
            }
        } else if !st.rest.as_slice().is_empty() || st.buffered != 0 {
            self.end_shallow_slow(st)?;
        }
        if st.patched {
            let patch = self.patches.pop();
            self.close(patch);
        }
        if st.root {
            self.w.align();
        }
        self.depth += 1;
        Ok(())
    }

    /// The end of a shallow object with properties left: buffered fields, absent DELTA_ENCODE
    /// properties, missing fields.
    #[inline(never)]
    pub(super) fn end_shallow_slow(&mut self, st: &mut ObjectState<'t>) -> Result<()> {
        if st.buffered != 0 {
            self.flush_buffered(st)?;
        }
        let class = st.class;
        for (i, prop) in class.props.iter().enumerate().skip(st.cursor()) {
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
    pub(super) fn custom_msg(msg: String) -> Self {
        Error::new(ErrorKind::Message(msg))
    }
}

/// A field name: serde's `&'static str` (cacheable by address) or a map key.
#[derive(Clone, Copy)]
pub(super) enum Key<'k> {
    Static(&'static str),
    Dynamic(&'k str),
}

impl<'k> Key<'k> {
    pub(super) fn as_str(self) -> &'k str {
        match self {
            Key::Static(k) => k,
            Key::Dynamic(k) => k,
        }
    }
}

pub(super) struct ObjectState<'t> {
    pub(super) class: &'t ClassDef,
    /// The properties from the next one in id order on (an iterator, so the field fast path
    /// steps a pointer; [`cursor`](Self::cursor) is the next one's index).
    pub(super) rest: std::slice::Iter<'t, PropertyDef>,
    /// How many values of this object wait (out of id order) at the end of
    /// [`Serializer::buffered`].
    pub(super) buffered: u32,
    /// Shallow mode, every property of the class passes the options' mask (no test per field),
    /// and no field of this object has been buffered yet (then fields go the general way).
    pub(super) fast: bool,
    /// Deep mode, an object opened by [`Serializer::begin_deep_property`]: what precedes the
    /// object's size field in its property (padding, header and tag, in bits), so the
    /// property's size is the object's plus this; 0 for any other object.
    pub(super) head: u8,
    /// A deep property header before the object waits for its size, last on
    /// [`Serializer::patches`] (kept there, not here, so this state stays small to move).
    pub(super) patched: bool,
    /// Deep mode: the bit position of the object's size field (never 0: the tag precedes it),
    /// which [`deep`](Self::deep) tests; 0 in shallow mode.
    pub(super) size_pos: u64,
    pub(super) root: bool,
}

impl ObjectState<'_> {
    /// Whether the object is written in deep mode (the state at hand, where the serializer's
    /// mode would be a load through it; and no field more to move).
    #[inline(always)]
    pub(super) fn deep(&self) -> bool {
        self.size_pos != 0
    }

    /// The index of the next property in id order.
    pub(super) fn cursor(&self) -> usize {
        self.class.props.len() - self.rest.len()
    }

    /// Moves the cursor to property `i` (at most the number of properties).
    pub(super) fn set_cursor(&mut self, i: usize) {
        self.rest = self.class.props[i..].iter();
    }
}
