//! Compound serializers: sequences (containers, fixed arrays), structs and maps.

use super::field::PropSer;
use super::keys::{KeySer, U32Ser};
use super::leaf::{LeafElemSer, LeafSer};
use super::object::{Key, ObjectState};
use super::{Serializer, Slot};
use crate::codec::Patch;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::ClassDef;
use serde_core::ser::{self, Serialize};

/// Sequences: containers (length prefix), fixed arrays, or a leaf's components.
#[doc(hidden)]
pub struct SeqSer<'a, 't>(pub(super) SeqInner<'a, 't>);

pub(super) enum SeqInner<'a, 't> {
    Container { s: &'a mut Serializer<'t>, slot: Slot<'t>, patch: Option<Patch> },
    Fixed { s: &'a mut Serializer<'t>, slot: Slot<'t>, patch: Option<Patch> },
    Leaf(LeafSer<'a, 't>),
}

impl SeqSer<'_, '_> {
    #[inline(always)]
    pub(super) fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        match &mut self.0 {
            SeqInner::Container { s, slot, .. } | SeqInner::Fixed { s, slot, .. } => {
                v.serialize(PropSer { s, to: &*slot })
            }
            SeqInner::Leaf(l) => v.serialize(LeafElemSer { l }),
        }
    }

    #[inline]
    pub(super) fn finish(self) -> Result<()> {
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
            SeqInner::Leaf(mut l) => l.finish(),
        }
    }
}

impl ser::SerializeSeq for SeqSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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
pub struct StructSer<'a, 't>(pub(super) StructInner<'a, 't>);

pub(super) enum StructInner<'a, 't> {
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
    fn end(mut self) -> Result<()> {
        match &mut self.0 {
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
pub struct MapSer<'a, 't>(pub(super) MapInner<'a, 't>);

pub(super) enum MapInner<'a, 't> {
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
                s.end_object(&mut st)
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
                        // The class is known: a later `$__type`/`$__hash` adds nothing; any other
                        // key is a property, `$__`-prefixed names included (a class may have one).
                        if k == "$__type" || k == "$__hash" {
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
            MapInner::Leaf(mut l, _) => l.finish(),
            MapInner::Object { s, slot, state, .. } => match state {
                Some(mut st) => s.end_object(&mut st),
                None => Err(Error::mismatch(slot.name(), "an object map with $__type")),
            },
        }
    }
}
