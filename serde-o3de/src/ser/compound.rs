//! The compound states of [`Serializer`]: sequences, tuples, structs (leaving out fields equal to
//! their default), enum variants with content, maps (objects, or arrays of `{"Key", "Value"}`
//! entries) and containers with an element default ([`crate::elements`]).

use std::cmp::Ordering;

use serde_core::ser::{self, Serialize};

use super::build::{TreeSer, without_requests};
use super::sort::{compare_keys, sort_array_map, sort_object_map, split_object};
use super::store::{Ctx, Def, Serializer, rejected};
use super::tree::DNode;
use crate::error::{Error, Result};
use crate::fmt::write_str;

/// A sequence.
pub struct Seq<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
    pub(super) start: usize,
    pub(super) ctx: Ctx,
    pub(super) def: Def<'t>,
    /// The default of every element: its type's zero value, or the default from [`crate::elements`].
    pub(super) elements: Def<'t>,
    pub(super) count: usize,
}

impl ser::SerializeSeq for Seq<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if self.count > 0 {
            self.ser.out.push(b',');
        }
        self.count += 1;
        self.ser.nested(value, Ctx::Nested, self.elements).map(drop)
    }

    fn end(self) -> Result<()> {
        self.ser.out.push(b']');
        let empty = self.count == 0;
        let is_def = empty && matches!(self.def, Def::Fresh | Def::Tree(DNode::Container(true)));
        self.ser.finish_compound(self.start, self.ctx, is_def, empty);
        Ok(())
    }
}

/// A tuple, tuple struct or fixed-size array.
pub struct Tuple<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
    pub(super) start: usize,
    pub(super) ctx: Ctx,
    pub(super) def: Def<'t>,
    pub(super) index: usize,
    pub(super) all_def: bool,
    pub(super) all_natural: bool,
}

impl ser::SerializeTuple for Tuple<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if self.index > 0 {
            self.ser.out.push(b',');
        }
        let def = match self.def {
            Def::Tree(DNode::Tuple(items)) => items.get(self.index).map_or(Def::Full, Def::Tree),
            Def::Tree(_) | Def::Full => Def::Full,
            Def::Fresh => Def::Fresh,
        };
        self.index += 1;
        let (is_def, natural) = self.ser.nested(value, Ctx::Nested, def)?;
        self.all_def &= is_def;
        self.all_natural &= natural;
        Ok(())
    }

    fn end(self) -> Result<()> {
        self.ser.out.push(b']');
        let is_def = self.all_def && !matches!(self.def, Def::Full);
        // Never collapsed to `{}`: a tuple needs its elements to load, so zero elements are `{}`
        // one by one.
        self.ser.finish_compound(self.start, self.ctx, is_def, false);
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Tuple<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeTuple::serialize_element(self, value)
    }

    fn end(self) -> Result<()> {
        ser::SerializeTuple::end(self)
    }
}

/// A struct: fields equal to their default are left out.
pub struct Struct<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
    pub(super) ctx: Ctx,
    pub(super) def: Def<'t>,
    pub(super) fields: Option<&'t [(&'static str, DNode)]>,
    pub(super) cursor: usize,
    pub(super) first: bool,
    pub(super) all_def: bool,
}

impl<'t> Struct<'_, 't> {
    #[inline]
    pub(super) fn field_default(&mut self, key: &'static str) -> Def<'t> {
        let Some(fields) = self.fields else {
            return Def::Full;
        };
        if let Some((name, node)) = fields.get(self.cursor) {
            if *name == key {
                self.cursor += 1;
                return Def::Tree(node);
            }
        }
        match fields.iter().position(|(name, _)| *name == key) {
            Some(i) => {
                self.cursor = i + 1;
                Def::Tree(&fields[i].1)
            }
            None => Def::Full,
        }
    }
}

impl ser::SerializeStruct for Struct<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        let def = self.field_default(key);
        let ser = &mut *self.ser;
        let mark = ser.out.len();
        if !self.first {
            ser.out.push(b',');
        }
        write_str(&mut ser.out, key);
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

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        self.field_default(key);
        Ok(())
    }

    fn end(self) -> Result<()> {
        self.ser.out.push(b'}');
        let is_def = self.all_def && !matches!(self.def, Def::Full);
        self.ser.ctx = self.ctx;
        self.ser.is_def = is_def;
        self.ser.natural = false;
        Ok(())
    }
}

/// An enum variant with content: `{"Variant": content}`.
pub struct Variant<'t, C> {
    pub(super) inner: C,
    pub(super) ctx: Ctx,
    pub(super) def: Def<'t>,
    pub(super) index: u32,
}

impl<'a, 't> ser::SerializeTupleVariant for Variant<'t, Tuple<'a, 't>> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeTuple::serialize_element(&mut self.inner, value)
    }

    fn end(self) -> Result<()> {
        let Variant { inner, ctx, def, index } = self;
        let same = matches!(def, Def::Tree(DNode::Variant(i, _)) if *i == index);
        let out = finish_tuple_variant(inner)?;
        out.out.push(b'}');
        out.ctx = ctx;
        out.is_def &= same;
        out.natural = false;
        Ok(())
    }
}

pub(super) fn finish_tuple_variant<'a, 't>(t: Tuple<'a, 't>) -> Result<&'a mut Serializer<'t>> {
    t.ser.out.push(b']');
    let is_def = t.all_def && !matches!(t.def, Def::Full);
    t.ser.is_def = is_def;
    Ok(t.ser)
}

impl<'a, 't> ser::SerializeStructVariant for Variant<'t, Struct<'a, 't>> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        ser::SerializeStruct::serialize_field(&mut self.inner, key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        ser::SerializeStruct::skip_field(&mut self.inner, key)
    }

    fn end(self) -> Result<()> {
        let Variant { inner, ctx, def, index } = self;
        let same = matches!(def, Def::Tree(DNode::Variant(i, _)) if *i == index);
        let is_def = inner.all_def && !matches!(inner.def, Def::Full);
        let ser = inner.ser;
        ser.out.extend_from_slice(b"}}");
        ser.ctx = ctx;
        ser.is_def = is_def && same;
        ser.natural = false;
        Ok(())
    }
}

/// A map: an object while every key is a string (or `{}`), else an array of Key/Value objects.
pub struct Map<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
    pub(super) start: usize,
    pub(super) ctx: Ctx,
    pub(super) def: Def<'t>,
    pub(super) count: usize,
    pub(super) array: bool,
    pub(super) sorted: bool,
    pub(super) previous_key: (usize, usize),
    /// Indices of entries whose key was written as `{}` (the member name `"{}"`).
    pub(super) default_keys: Vec<usize>,
    pub(super) entry_start: usize,
    /// The default of every value.
    pub(super) values: Def<'t>,
}

impl Map<'_, '_> {
    /// Rewrites the object written so far as an array of `{"Key": k, "Value": v}`.
    pub(super) fn convert_to_array(&mut self) -> Result<()> {
        let region = self.ser.out.split_off(self.start);
        let entries = split_object(&region[..self.entry_start - self.start])?;
        let out = &mut self.ser.out;
        out.push(b'[');
        for (i, (key, value)) in entries.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"Key\":");
            if self.default_keys.contains(&i) {
                out.extend_from_slice(b"{}");
            } else {
                out.extend_from_slice(key);
            }
            out.extend_from_slice(b",\"Value\":");
            out.extend_from_slice(value);
            out.push(b'}');
        }
        self.array = true;
        self.entry_start = out.len();
        Ok(())
    }
}

impl ser::SerializeMap for Map<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.entry_start = self.ser.out.len();
        if self.count > 0 {
            self.ser.out.push(b',');
        }
        let key_start = self.ser.out.len();
        if self.array {
            self.ser.out.extend_from_slice(b"{\"Key\":");
            self.ser.nested(key, Ctx::Nested, Def::Fresh)?;
            self.ser.out.extend_from_slice(b",\"Value\":");
            return Ok(());
        }
        self.ser.nested(key, Ctx::Nested, Def::Fresh)?;
        let written = &self.ser.out[key_start..];
        if written == b"{}" {
            self.ser.out.truncate(key_start);
            self.ser.out.extend_from_slice(b"\"{}\"");
            self.default_keys.push(self.count);
        } else if written.first() != Some(&b'"') || written == b"\"{}\"" {
            // A key that is not a string (or the string "{}", which as a member name would mean
            // the default key): the whole map becomes an array of Key/Value objects.
            let key_text = self.ser.out.split_off(key_start);
            self.ser.out.truncate(self.entry_start);
            self.convert_to_array()?;
            if self.count > 0 {
                self.ser.out.push(b',');
            }
            self.ser.out.extend_from_slice(b"{\"Key\":");
            self.ser.out.extend_from_slice(&key_text);
            self.ser.out.extend_from_slice(b",\"Value\":");
            return Ok(());
        }
        let key_end = self.ser.out.len();
        if self.sorted && self.count > 0 {
            let (ps, pe) = self.previous_key;
            let out = &self.ser.out;
            self.sorted = compare_keys(&out[ps..pe], &out[key_start..key_end]) != Ordering::Greater;
        }
        self.previous_key = (key_start, key_end);
        self.ser.out.push(b':');
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.ser.nested(value, Ctx::Nested, self.values)?;
        if self.array {
            self.ser.out.push(b'}');
        }
        self.count += 1;
        Ok(())
    }

    fn end(self) -> Result<()> {
        let sort = self.ser.settings.sort_maps;
        if self.array {
            self.ser.out.push(b']');
            if sort {
                sort_array_map(&mut self.ser.out, self.start)?;
            }
        } else {
            self.ser.out.push(b'}');
            if sort && !self.sorted {
                sort_object_map(&mut self.ser.out, self.start)?;
            }
        }
        let empty = self.count == 0;
        let is_def = empty && matches!(self.def, Def::Fresh | Def::Tree(DNode::Container(true)));
        self.ser.ctx = self.ctx;
        if empty && !self.ser.leaf(is_def, empty) {
            // `{}` means "the default" in O3DE; an empty map written where that is not meant is the
            // empty array form.
            self.ser.out.truncate(self.start);
            self.ser.out.extend_from_slice(b"[]");
        } else {
            self.ser.finish_compound(self.start, self.ctx, is_def, empty);
        }
        Ok(())
    }
}

/// Receives `(default element, container)` from [`crate::elements`]: builds the element default's
/// tree, then writes the container with it.
pub(super) struct ElementsSplitter<'a, 't> {
    pub(super) ser: &'a mut Serializer<'t>,
    pub(super) default: Option<DNode>,
}

impl<'a, 't> ser::Serializer for ElementsSplitter<'a, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        Ok(self)
    }

    reject! { rejected();
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct unit_variant
        newtype_struct newtype_variant seq tuple_struct tuple_variant map struct struct_variant
    }
}

impl ser::SerializeTuple for ElementsSplitter<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let Some(default) = &self.default else {
            self.default = Some(without_requests(|| value.serialize(TreeSer))?);
            return Ok(());
        };
        // The container, written by a serializer that borrows the element default for its run.
        let outer = &mut *self.ser;
        let mut inner = Serializer::with(None, outer.settings, std::mem::take(&mut outer.out));
        inner.ctx = outer.ctx;
        inner.def = match outer.def {
            Def::Tree(DNode::Container(empty)) => Def::Tree(if *empty { &EMPTY } else { &NOT_EMPTY }),
            Def::Tree(_) | Def::Full => Def::Full,
            Def::Fresh => Def::Fresh,
        };
        inner.elements = Some(default);
        let r = value.serialize(&mut inner);
        outer.out = std::mem::take(&mut inner.out);
        outer.is_def = inner.is_def;
        outer.natural = inner.natural;
        outer.omitted |= inner.omitted;
        r
    }

    fn end(self) -> Result<()> {
        Ok(())
    }
}

pub(super) static EMPTY: DNode = DNode::Container(true);
pub(super) static NOT_EMPTY: DNode = DNode::Container(false);
