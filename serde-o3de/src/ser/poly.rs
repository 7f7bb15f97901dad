//! `$type` values on store: `$type` first, then the members of the value's class, compared with the
//! default's members when the default has the same class, or with the class default the value
//! hands over.

use serde_core::ser::{self, Serialize};

use super::build::{TreePoly, without_requests};
use super::native::Collect;
use super::store::{Ctx, Def, Serializer, rejected};
use super::tree::{DNode, NativeVal};
use crate::error::{Error, Result};
use crate::fmt::write_str;
use crate::markers::POLY_DEFAULT_KEY;

/// Receives the map a `$type` value serializes as and writes it with struct semantics.
pub(super) struct PolyWriter<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
}

/// The default of a `$type` value's class: its type string and members.
pub(super) type PolyDefault = (Option<Box<str>>, Vec<(Box<str>, DNode)>);

/// The map state of a `$type` value.
pub struct PolyMap<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
    pub(super) fields: Option<&'t [(Box<str>, DNode)]>,
    /// The default of the value's own class, when the default object has another class.
    pub(super) own: Option<PolyDefault>,
    pub(super) use_own: bool,
    pub(super) first: bool,
    pub(super) all_def: bool,
    pub(super) key: Option<String>,
    pub(super) tree: Def<'t>,
}

impl<'a, 't> ser::Serializer for PolyWriter<'a, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = PolyMap<'a, 't>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_map(self, _len: Option<usize>) -> Result<PolyMap<'a, 't>> {
        let tree = self.ser.def;
        self.ser.out.push(b'{');
        Ok(PolyMap {
            ser: self.ser,
            fields: None,
            own: None,
            use_own: false,
            first: true,
            all_def: true,
            key: None,
            tree,
        })
    }

    reject! { rejected();
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct unit_variant
        newtype_struct newtype_variant seq tuple tuple_struct tuple_variant struct struct_variant
    }
}

impl ser::SerializeMap for PolyMap<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        match key.serialize(Collect)? {
            NativeVal::Text(k) => self.key = Some(k),
            _ => return Err(Error::store("a $type object needs string keys")),
        }
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key = self.key.take().unwrap_or_default();
        if key == POLY_DEFAULT_KEY {
            if let DNode::Poly(type_name, fields) = without_requests(|| value.serialize(TreePoly))? {
                self.own = Some((type_name, fields));
            }
            return Ok(());
        }
        let ser = &mut *self.ser;
        if key == "$type" {
            let type_name = match value.serialize(Collect)? {
                NativeVal::Text(t) => t,
                _ => return Err(Error::store("$type must be a string")),
            };
            if let Def::Tree(DNode::Poly(Some(default_type), fields)) = self.tree {
                if **default_type == *type_name {
                    self.fields = Some(fields);
                }
            }
            if self.fields.is_none() {
                self.all_def = false;
                self.use_own = self.own.as_ref().is_some_and(|(t, _)| t.as_deref() == Some(type_name.as_str()));
            }
            if !self.first {
                ser.out.push(b',');
            }
            write_str(&mut ser.out, "$type");
            ser.out.push(b':');
            write_str(&mut ser.out, &type_name);
            self.first = false;
            return Ok(());
        }
        if self.first && self.fields.is_none() {
            // No `$type`: the value has the declared type, like the default if it has none either.
            if let Def::Tree(DNode::Poly(None, fields)) = self.tree {
                self.fields = Some(fields);
            } else {
                self.use_own = self.own.as_ref().is_some_and(|(t, _)| t.is_none());
            }
        }
        if self.use_own {
            // Members compared with a new instance of the value's class, by a serializer that
            // borrows that default for the member.
            let node =
                self.own.as_ref().and_then(|(_, fields)| fields.iter().find(|(k, _)| **k == *key)).map(|(_, n)| n);
            let mark = ser.out.len();
            if !self.first {
                ser.out.push(b',');
            }
            write_str(&mut ser.out, &key);
            ser.out.push(b':');
            let mut inner = Serializer::with(node, ser.settings, std::mem::take(&mut ser.out));
            inner.ctx = Ctx::Member;
            if node.is_none() {
                inner.def = Def::Full;
            }
            let r = value.serialize(&mut inner);
            ser.out = std::mem::take(&mut inner.out);
            ser.omitted |= inner.omitted;
            r?;
            if inner.is_def && !ser.settings.keep_defaults {
                ser.out.truncate(mark);
                ser.omitted = true;
            } else {
                self.first = false;
            }
            return Ok(());
        }
        let def = match self.fields {
            Some(fields) => fields.iter().find(|(k, _)| **k == *key).map_or(Def::Full, |(_, n)| Def::Tree(n)),
            None => Def::Full,
        };
        let mark = ser.out.len();
        if !self.first {
            ser.out.push(b',');
        }
        write_str(&mut ser.out, &key);
        ser.out.push(b':');
        let (is_def, _) = ser.nested(value, Ctx::Member, def)?;
        if is_def && !ser.settings.keep_defaults {
            ser.out.truncate(mark);
            ser.omitted = true;
        } else {
            self.first = false;
        }
        self.all_def &= is_def;
        Ok(())
    }

    fn end(self) -> Result<()> {
        self.ser.out.push(b'}');
        self.ser.is_def = self.all_def && matches!(self.tree, Def::Tree(DNode::Poly(..)));
        Ok(())
    }
}
