//! The serde `Deserializer` of [`Core`]: what each `deserialize_*` call reads, with O3DE's rules
//! for scalars, `{}`, byte strings, options, newtypes (this crate's own types), sequences, maps,
//! structs and enums.

use serde_core::de::{self, Visitor};

use super::access::{ArrayMap, ObjectMap, PolyAccess, Seq, VariantObject};
use super::core::{Core, default_refused, describe, kept_message};
use super::fixed::{EmptyMap, EmptySeq, Nums, Placeholder, PolyPlaceholder, UnitVariant};
use super::state::{Action, CONTAINER, SUCCESS, Seg, Slot};
use super::structs::{Seen, StructAccess, match_name, winners};
use crate::coerce::{self, Coerced, Num, Tok};
use crate::error::{Code, Error, Result};
use crate::markers::{DECLARED_TYPE, POLY, RAW, UNKNOWN_TYPE};
use crate::read::{Peek, Read, Ref};
use crate::report::{Outcome, ResultCode, Task};

impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Core<'de, '_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            return self.place(ident, visitor.visit_map(EmptyMap), &kept_message);
        }
        self.st.acc = SUCCESS;
        match self.peek()? {
            Peek::Null => {
                self.read.null().map_err(|e| self.err(e))?;
                visitor.visit_unit()
            }
            Peek::True | Peek::False => {
                let b = self.read.boolean().map_err(|e| self.err(e))?;
                visitor.visit_bool(b)
            }
            Peek::Num => match self.read.number().map_err(|e| self.err(e))? {
                Num::U(u) => visitor.visit_u64(u),
                Num::I(i) => visitor.visit_i64(i),
                Num::F(f) => visitor.visit_f64(f),
            },
            Peek::Str => match self.read.string() {
                Ok(Ref::Borrowed(s)) => visitor.visit_borrowed_str(s),
                Ok(Ref::Copied(s)) => visitor.visit_str(s),
                Err(e) => Err(self.err(e)),
            },
            Peek::Arr => self.array(visitor),
            Peek::Obj => self.object_map(visitor),
        }
    }

    leaf_methods!();

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let one_char = |t: &Tok<'_>| match *t {
            Tok::Str(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Coerced::Ok(c),
                    _ => Coerced::Fail(Outcome::Unsupported, format!("{} is not a single character", t.describe())),
                }
            }
            Tok::EmptyObject => Coerced::Default,
            _ => Coerced::Fail(Outcome::Unsupported, format!("{} cannot be read as a character", t.describe())),
        };
        self.leaf(one_char, '\0', |v| visitor.visit_char(v))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str_like(visitor, false)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str_like(visitor, false)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            return self.place(ident, visitor.visit_borrowed_bytes(&[]), &default_refused);
        }
        match kind {
            // O3DE's byte streams (`AZStd::vector<AZ::u8>`) are base64 strings.
            Peek::Str => {
                let decoded = match self.read.string() {
                    Ok(s) => crate::fmt::base64_decode(s.as_str()),
                    Err(e) => return Err(self.err(e)),
                };
                match decoded {
                    Some(bytes) => {
                        self.st.acc = SUCCESS;
                        visitor.visit_byte_buf(bytes)
                    }
                    None => self.compound_failed(
                        ident,
                        "the string is not valid base64".to_owned(),
                        |v: V| v.visit_borrowed_bytes(&[]),
                        visitor,
                    ),
                }
            }
            Peek::Arr => self.array(visitor),
            _ => {
                self.skip()?;
                self.compound_failed(
                    ident,
                    "bytes are read from a base64 string or an array of numbers".to_owned(),
                    |v: V| v.visit_borrowed_bytes(&[]),
                    visitor,
                )
            }
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            return self.place(ident, visitor.visit_none(), &kept_message);
        }
        if self.peek()? == Peek::Null {
            self.read.null().map_err(|e| self.err(e))?;
            self.st.acc = SUCCESS;
            return visitor.visit_none();
        }
        self.st.slot = Slot::Pointee;
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let unit = |t: &Tok<'_>| match t {
            Tok::Null => Coerced::Ok(()),
            Tok::EmptyObject => Coerced::Default,
            _ => Coerced::Fail(Outcome::Unsupported, format!("{} cannot be read as a unit (null)", t.describe())),
        };
        self.leaf(unit, (), |()| visitor.visit_unit())
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if !name.starts_with("$serde_o3de::") {
            return visitor.visit_newtype_struct(self);
        }
        if name == RAW {
            if let Some(ident) = self.kept()? {
                return self.place(ident, visitor.visit_string("{}".to_owned()), &kept_message);
            }
            let mut raw = String::new();
            let depth = self.st.depth;
            self.peek()?;
            if let Err(e) = self.read.raw(depth, &mut raw) {
                return Err(self.err(e));
            }
            self.st.acc = SUCCESS;
            return visitor.visit_string(raw);
        }
        if let Some(ident) = self.kept()? {
            let r = self.native_quiet(|| visitor.visit_newtype_struct(Placeholder));
            return self.place(ident, r, &kept_message);
        }
        let kind = self.peek()?;
        let ident = self.read.ident();
        if self.st.slot == Slot::Member && kind == Peek::Obj && self.read.is_empty_object().map_err(|e| self.err(e))? {
            // An existing field keeps its value on `{}`; the type itself is not asked.
            self.skip()?;
            self.st.defaulted(ident)?;
            let r = self.native_quiet(|| visitor.visit_newtype_struct(Placeholder));
            return self.place(ident, r, &default_refused);
        }
        if kind == Peek::Arr {
            // The array form of math types, read without the general machinery.
            let mut nums = [Num::U(0); 16];
            match self.read.number_array(&mut nums) {
                Ok(Some(n)) => return self.native(ident, |_| visitor.visit_newtype_struct(Nums(&nums[..n]))),
                Ok(None) => {}
                Err(e) => return Err(self.err(e)),
            }
        }
        self.native(ident, |de| visitor.visit_newtype_struct(de))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            return self.place(ident, visitor.visit_seq(EmptySeq), &default_refused);
        }
        if kind == Peek::Arr {
            return self.array(visitor);
        }
        self.skip()?;
        let message = format!("{} cannot be read as an array", describe(kind));
        self.compound_failed(ident, message, |v: V| v.visit_seq(EmptySeq), visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            return self.place(ident, visitor.visit_map(EmptyMap), &default_refused);
        }
        match kind {
            Peek::Obj => self.object_map(visitor),
            Peek::Arr => {
                self.enter()?;
                if let Err(e) = self.read.begin_array() {
                    return Err(self.err(e));
                }
                let mut access = ArrayMap { de: self, index: 0, result: CONTAINER, pending: None, done: false };
                let r = visitor.visit_map(&mut access);
                let (done, index, mut result) = (access.done, access.index, access.result);
                let r = r.and_then(|v| {
                    if done {
                        Ok(v)
                    } else {
                        let r = self.drain_array(index).map(|()| v);
                        result.combine_with(self.st.acc);
                        r
                    }
                });
                self.leave();
                self.st.acc = result;
                r
            }
            _ => {
                self.skip()?;
                let message = format!(
                    "{} cannot be read as a map (an object, or an array of {{\"Key\", \"Value\"}} objects)",
                    describe(kind)
                );
                self.compound_failed(ident, message, |v: V| v.visit_map(EmptyMap), visitor)
            }
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if name == POLY {
            return self.poly(fields, visitor);
        }
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            let r = visitor.visit_map(EmptyMap);
            return self.place(ident, r, &|| format!("`{name}` has required fields; give it #[serde(default)]"));
        }
        if kind != Peek::Obj {
            self.skip()?;
            let message = format!("{} cannot be read as an object of type `{name}`", describe(kind));
            return self.compound_failed(ident, message, |v: V| v.visit_map(EmptyMap), visitor);
        }
        self.enter()?;
        let start = self.read.loc();
        if let Err(e) = self.read.begin_object() {
            return Err(self.err(e));
        }
        let mut last = if self.st.last_plan.is_empty() { None } else { self.st.last_plan.get(&ident).cloned() };
        if last.is_none() && !self.st.candidates.is_empty() {
            if let Some(names) = self.st.candidates.get(&ident) {
                let occurrences: Vec<(usize, usize)> = names
                    .iter()
                    .filter_map(|(name, at)| match_name(fields, name, 0).map(|field| (field, *at)))
                    .collect();
                last = winners(fields.len(), &occurrences);
            }
        }
        let mut access = StructAccess {
            de: self,
            fields,
            start,
            first: true,
            hint: 0,
            seen: Seen::new(fields.len()),
            loaded: 0,
            ident: 0,
            result: ResultCode::UNSET,
            skipped: Vec::new(),
            duplicates_scanned: false,
            last,
            object: ident,
            done: false,
        };
        let r = visitor.visit_map(&mut access);
        let StructAccess { done, loaded, mut result, skipped, .. } = access;
        let r = match r {
            Ok(v) if done => Ok(v),
            Ok(v) => self.drain_object().map(|()| v),
            Err(e) => Err(self.struct_error(e, &skipped)),
        };
        self.leave();
        if loaded < fields.len() {
            result.combine_with(ResultCode::new(Task::ReadField, Outcome::DefaultsUsed));
        }
        self.st.acc = result;
        r
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let first = variants.first().copied().unwrap_or("");
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            let r = visitor.visit_enum(UnitVariant(first));
            return self.place(ident, r, &|| format!("enum `{name}` has no unit variant to use as its default"));
        }
        match kind {
            Peek::Str => {
                let found = match self.read.string() {
                    Ok(s) => {
                        match_name(variants, s.as_str(), 0).map(|i| variants[i]).ok_or_else(|| s.as_str().to_owned())
                    }
                    Err(e) => return Err(self.err(e)),
                };
                match found {
                    Ok(variant) => {
                        self.st.acc = SUCCESS;
                        visitor.visit_enum(UnitVariant(variant))
                    }
                    Err(text) => {
                        let message = format!(
                            "\"{}\" is not a variant of `{name}`: expected one of {variants:?}",
                            coerce::clip(&text)
                        );
                        self.compound_failed(ident, message, |v: V| v.visit_enum(UnitVariant(first)), visitor)
                    }
                }
            }
            Peek::Obj => {
                self.enter()?;
                if let Err(e) = self.read.begin_object() {
                    return Err(self.err(e));
                }
                let variant = match self.read.next_key(true) {
                    Ok(Some(k)) => {
                        match_name(variants, k.as_str(), 0).map(|i| variants[i]).ok_or_else(|| k.as_str().to_owned())
                    }
                    Ok(None) => Err(String::new()),
                    Err(e) => return Err(self.err(e)),
                };
                let variant = match variant {
                    Ok(v) => v,
                    Err(text) => {
                        self.skip()?;
                        self.drain_object()?;
                        self.leave();
                        let message = format!(
                            "\"{}\" is not a variant of `{name}`: expected one of {variants:?}",
                            coerce::clip(&text)
                        );
                        return self.compound_failed(ident, message, |v: V| v.visit_enum(UnitVariant(first)), visitor);
                    }
                };
                self.st.push(Seg::Key(variant));
                let r = visitor.visit_enum(VariantObject { de: &mut *self, variant });
                self.st.pop();
                let r = r.and_then(|v| self.drain_object().map(|()| v));
                self.leave();
                r
            }
            _ => {
                self.skip()?;
                let message = format!("{} cannot be read as enum `{name}`", describe(kind));
                self.compound_failed(ident, message, |v: V| v.visit_enum(UnitVariant(first)), visitor)
            }
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str_like(visitor, false)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.peek()?;
        self.skip()?;
        self.st.acc = SUCCESS;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// The containers and `$type` values that the methods above hand to access objects.
impl<'de, 'cb, R: Read<'de>> Core<'de, 'cb, R> {
    fn object_map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        if let Err(e) = self.read.begin_object() {
            return Err(self.err(e));
        }
        let mut access = ObjectMap { de: self, first: true, ident: 0, result: CONTAINER, done: false };
        let r = visitor.visit_map(&mut access);
        let (done, result) = (access.done, access.result);
        let r = r.and_then(|v| if done { Ok(v) } else { self.drain_object().map(|()| v) });
        self.leave();
        self.st.acc = result;
        r
    }

    fn array<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        if let Err(e) = self.read.begin_array() {
            return Err(self.err(e));
        }
        let mut access = Seq { de: self, index: 0, result: CONTAINER, done: false };
        let r = visitor.visit_seq(&mut access);
        let (done, index, mut result) = (access.done, access.index, access.result);
        let r = r.and_then(|v| {
            if done {
                Ok(v)
            } else {
                let r = self.drain_array(index).map(|()| v);
                result.combine_with(self.st.acc);
                r
            }
        });
        self.leave();
        self.st.acc = result;
        r
    }

    /// After a struct visitor failed: a missing field that an earlier pass skipped is kept (as a
    /// placeholder) next time; any other missing field makes the struct itself a soft failure.
    fn struct_error(&mut self, e: Error, skipped: &[(&'static str, usize)]) -> Error {
        if let Code::MissingField(field) = e.code() {
            if let Some(&(_, ident)) = skipped.iter().find(|(f, _)| f == field) {
                let issue = match self.st.plan.get(&ident) {
                    Some(Action::Skip(issue)) => issue.clone(),
                    _ => None,
                };
                self.st.found.insert(ident, Action::Keep(issue));
                return Error::restart();
            }
            return Error::new(Code::Visitor(e.message()));
        }
        e
    }

    /// `$type` polymorphism: resolves the type and hands the visitor its index.
    fn poly<V: Visitor<'de>>(&mut self, types: &'static [&'static str], visitor: V) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            let r = self.native_quiet(|| visitor.visit_enum(PolyPlaceholder));
            return self.place(ident, r, &kept_message);
        }
        let kind = self.peek()?;
        let ident = self.read.ident();
        if kind == Peek::Obj && self.read.is_empty_object().map_err(|e| self.err(e))? && self.st.slot == Slot::Member {
            self.skip()?;
            self.st.defaulted(ident)?;
            let r = self.native_quiet(|| visitor.visit_enum(PolyPlaceholder));
            return self.place(ident, r, &default_refused);
        }
        let index = if kind == Peek::Obj {
            match self.find_type()? {
                None => DECLARED_TYPE,
                Some(text) => match crate::types::poly::resolve(types, &text) {
                    Ok(i) => i as u32,
                    Err(_) => UNKNOWN_TYPE,
                },
            }
        } else {
            DECLARED_TYPE
        };
        self.native_with(ident, false, |de| {
            de.st.slot = Slot::Pointee;
            visitor.visit_enum(PolyAccess { de, index })
        })
    }
}
