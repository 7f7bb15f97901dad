//! The serde access objects over containers being read: sequence elements, maps read from objects
//! (with their member names as keys) or from arrays of `{"Key", "Value"}` entries, enum variants
//! written `{"Variant": payload}`, and the payload of a `$type` object.

use serde_core::de::value::{BorrowedStrDeserializer, U32Deserializer};
use serde_core::de::{self, DeserializeSeed, Visitor};

use super::core::{Core, default_refused, describe};
use super::fixed::{Placeholder, UnitVariant};
use super::state::{Action, SUCCESS, Seg, Slot};
use super::structs::match_name;
use crate::coerce::{self, Coerced, Tok};
use crate::error::{Error, Result};
use crate::markers::NATIVE;
use crate::read::{Peek, Read, Ref};
use crate::report::{Outcome, ResultCode, Task};

pub(super) struct Seq<'a, 'de, 'cb, R> {
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) index: usize,
    pub(super) result: ResultCode,
    pub(super) done: bool,
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for Seq<'_, 'de, '_, R> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        loop {
            match self.de.read.next_element(self.index == 0) {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            }
            self.de.st.push(Seg::Index(self.index));
            if let Err(e) = self.de.peek() {
                self.de.st.pop();
                return Err(e);
            }
            let ident = self.de.read.ident();
            self.index += 1;
            if !self.de.st.plan.is_empty() {
                if let Some(Action::Skip(issue)) = self.de.st.plan.get(&ident) {
                    let issue = issue.clone();
                    let code = self.de.st.replay(issue.as_ref());
                    self.result.combine_with(code);
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            let r = match self.de.nested(Slot::Element, seed) {
                Ok(v) => {
                    self.result.combine_with(self.de.st.acc);
                    Ok(Some(v))
                }
                Err(e) => Err(self.de.value_error(e, ident, Slot::Element)),
            };
            self.de.st.pop();
            return r;
        }
    }

    fn size_hint(&self) -> Option<usize> {
        None
    }
}

/// A map read from a JSON object: member names are loaded as JSON strings into the key type.
pub(super) struct ObjectMap<'a, 'de, 'cb, R> {
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) first: bool,
    pub(super) ident: usize,
    pub(super) result: ResultCode,
    pub(super) done: bool,
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for ObjectMap<'_, 'de, '_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            let Core { read, st } = &mut *self.de;
            let key = match read.next_key(self.first) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            };
            self.first = false;
            st.push_key(&key);
            // The entry is identified by its value; peek past the whitespace before it.
            let key_text: Option<String> = match key {
                Ref::Borrowed(_) => None,
                Ref::Copied(k) => Some(k.to_owned()),
            };
            let borrowed = match key {
                Ref::Borrowed(k) => Some(k),
                Ref::Copied(_) => None,
            };
            self.de.peek()?;
            let ident = self.de.read.ident();
            if !self.de.st.plan.is_empty() {
                if let Some(Action::Skip(issue)) = self.de.st.plan.get(&ident) {
                    let issue = issue.clone();
                    let code = self.de.st.replay(issue.as_ref());
                    self.result.combine_with(code);
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            self.ident = ident;
            let key = match (borrowed, key_text.as_deref()) {
                (Some(k), _) => KeyStr::Borrowed(k),
                (None, Some(k)) => KeyStr::Owned(k),
                (None, None) => KeyStr::Owned(""),
            };
            self.de.st.slot = Slot::Entry;
            let r = seed.deserialize(KeyDeserializer { key, de: &mut *self.de, ident });
            return match r {
                Ok(k) => {
                    self.result.combine_with(self.de.st.acc);
                    Ok(Some(k))
                }
                Err(e) => {
                    let e = self.de.value_error(e, ident, Slot::Entry);
                    self.de.st.pop();
                    Err(e)
                }
            };
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let r = match self.de.nested(Slot::Entry, seed) {
            Ok(v) => {
                self.result.combine_with(self.de.st.acc);
                Ok(v)
            }
            Err(e) => Err(self.de.value_error(e, self.ident, Slot::Entry)),
        };
        self.de.st.pop();
        r
    }
}

/// Where an entry's `Key` and `Value` members are.
pub(super) type EntryMembers<L> = (Option<L>, Option<L>);

/// A map read from an array of `{"Key": k, "Value": v}` objects.
pub(super) struct ArrayMap<'a, 'de, 'cb, R: Read<'de>> {
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) index: usize,
    pub(super) result: ResultCode,
    /// The value's location and the position after the entry.
    pub(super) pending: Option<(Option<R::Loc>, R::Loc, usize)>,
    pub(super) done: bool,
}

impl<'de, R: Read<'de>> ArrayMap<'_, 'de, '_, R> {
    /// Scans an entry object for its `Key` and `Value` members (exact names, as O3DE looks them up).
    pub(super) fn entry_members(&mut self) -> Result<EntryMembers<R::Loc>> {
        let depth = self.de.st.depth;
        let read = &mut self.de.read;
        read.begin_object()?;
        let (mut key, mut value) = (None, None);
        let mut first = true;
        while let Some(name) = read.next_key(first)? {
            first = false;
            let which = match name.as_str() {
                "Key" => Some(true),
                "Value" => Some(false),
                _ => None,
            };
            read.peek()?;
            match which {
                Some(true) => key = Some(read.loc()),
                Some(false) => value = Some(read.loc()),
                None => {}
            }
            read.skip_ahead(depth)?;
        }
        Ok((key, value))
    }

    pub(super) fn ident_at(&mut self, loc: Option<R::Loc>) -> Result<Option<usize>> {
        let Some(loc) = loc else {
            return Ok(None);
        };
        let back = self.de.read.loc();
        self.de.read.seek(loc);
        let r = self.de.read.peek().map(|_| self.de.read.ident());
        self.de.read.seek(back);
        r.map(Some).map_err(|e| self.de.err(e))
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for ArrayMap<'_, 'de, '_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            match self.de.read.next_element(self.index == 0) {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            }
            self.de.st.push(Seg::Index(self.index));
            let kind = match self.de.peek() {
                Ok(kind) => kind,
                Err(e) => {
                    self.de.st.pop();
                    return Err(e);
                }
            };
            let entry = self.de.read.ident();
            self.index += 1;
            if kind != Peek::Obj {
                // Nothing was handed out yet, so the entry can be dropped right away.
                self.de.skip()?;
                self.de.st.slot = Slot::Entry;
                // O3DE's map serializer says Unsupported here (Unavailable is for an entry whose key
                // or value failed).
                let r = self.de.st.event(entry, ResultCode::new(Task::ReadField, Outcome::Unsupported), &|| {
                    format!("a map entry must be an object with \"Key\" and \"Value\", not {}", describe(kind))
                });
                self.de.st.pop();
                self.result.combine_with(r?.0);
                continue;
            }
            self.de.enter()?;
            let r = self.entry_members();
            self.de.leave();
            let (key, value) = r.map_err(|e| self.de.err(e))?;
            let after = self.de.read.loc();
            let (key_ident, value_ident) = (self.ident_at(key)?, self.ident_at(value)?);
            if !self.de.st.plan.is_empty() {
                let skip =
                    [(key_ident, "Key"), (value_ident, "Value")].into_iter().find_map(|(i, member)| {
                        match self.de.st.plan.get(&i?) {
                            Some(Action::Skip(issue)) => Some((member, issue.clone())),
                            _ => None,
                        }
                    });
                if let Some((member, issue)) = skip {
                    // Reported where the earlier pass met it: at the entry's Key or Value.
                    self.de.st.push(Seg::Key(member));
                    let code = self.de.st.replay(issue.as_ref());
                    self.de.st.pop();
                    self.result.combine_with(code);
                    self.de.st.pop();
                    continue;
                }
            }
            self.de.st.push(Seg::Key("Key"));
            let r = match (key, key_ident) {
                (Some(loc), Some(ident)) => {
                    self.de.read.seek(loc);
                    self.de.nested(Slot::Entry, seed).map_err(|e| self.de.value_error(e, ident, Slot::Entry))
                }
                _ => {
                    // A missing Key is taken as `{}`: a new default key.
                    self.de.st.slot = Slot::Entry;
                    let r =
                        self.de.st.event(entry, ResultCode::new(Task::CreateDefault, Outcome::DefaultsUsed), &|| {
                            "no \"Key\": the default key is used".to_owned()
                        });
                    match r {
                        Ok((code, _)) => {
                            self.de.st.acc = code;
                            let r = seed.deserialize(Placeholder);
                            self.de.place(entry, r, &default_refused)
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            self.de.st.pop();
            match r {
                Ok(k) => {
                    self.result.combine_with(self.de.st.acc);
                    self.pending = Some((value, after, value_ident.unwrap_or(entry)));
                    return Ok(Some(k));
                }
                Err(e) => {
                    self.de.st.pop();
                    return Err(e);
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let Some((value, after, ident)) = self.pending.take() else {
            return Err(Error::syntax("map value requested before its key"));
        };
        self.de.st.push(Seg::Key("Value"));
        let r = match value {
            Some(loc) => {
                self.de.read.seek(loc);
                self.de.nested(Slot::Entry, seed).map_err(|e| self.de.value_error(e, ident, Slot::Entry))
            }
            None => {
                self.de.st.slot = Slot::Entry;
                match self.de.st.event(ident, ResultCode::new(Task::CreateDefault, Outcome::DefaultsUsed), &|| {
                    "no \"Value\": the default value is used".to_owned()
                }) {
                    Ok((code, _)) => {
                        self.de.st.acc = code;
                        let r = seed.deserialize(Placeholder);
                        self.de.place(ident, r, &default_refused)
                    }
                    Err(e) => Err(e),
                }
            }
        };
        self.de.st.pop();
        self.de.st.pop();
        self.de.read.seek(after);
        if r.is_ok() {
            self.result.combine_with(self.de.st.acc);
        }
        r
    }
}

pub(super) enum KeyStr<'de, 'k> {
    Borrowed(&'de str),
    Owned(&'k str),
}

/// A map key read from an object member name: loaded as the JSON string with O3DE's coercions;
/// the member name `{}` is the default key.
pub(super) struct KeyDeserializer<'a, 'k, 'de, 'cb, R> {
    pub(super) key: KeyStr<'de, 'k>,
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) ident: usize,
}

impl<'de, R: Read<'de>> KeyDeserializer<'_, '_, 'de, '_, R> {
    pub(super) fn text(&self) -> &str {
        match self.key {
            KeyStr::Borrowed(k) => k,
            KeyStr::Owned(k) => k,
        }
    }

    pub(super) fn leaf<T: Copy, V>(
        self,
        coerce: impl FnOnce(&Tok<'_>) -> Coerced<T>,
        zero: T,
        visit: impl FnOnce(T) -> Result<V>,
    ) -> Result<V> {
        let tok = if self.text() == "{}" { Tok::EmptyObject } else { Tok::Str(self.text()) };
        let c = match coerce(&tok) {
            Coerced::Fail(outcome, message) => Coerced::Fail(outcome, format!("key: {message}")),
            c => c,
        };
        self.de.settle(self.ident, c, zero, visit)
    }
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for KeyDeserializer<'_, '_, 'de, '_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.st.acc = SUCCESS;
        match self.key {
            KeyStr::Borrowed(k) => visitor.visit_borrowed_str(k),
            KeyStr::Owned(k) => visitor.visit_str(k),
        }
    }

    leaf_methods!();

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.st.acc = SUCCESS;
        match self.key {
            KeyStr::Borrowed("{}") | KeyStr::Owned("{}") => {
                self.de.st.defaulted(self.ident)?;
                self.de.place(self.ident, visitor.visit_borrowed_str(""), &default_refused)
            }
            KeyStr::Borrowed(k) => visitor.visit_borrowed_str(k),
            KeyStr::Owned(k) => visitor.visit_str(k),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if name.starts_with(NATIVE) {
            let ident = self.ident;
            let key = self.key;
            return self.de.native(ident, |de| visitor.visit_newtype_struct(KeyDeserializer { key, de, ident }));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match match_name(variants, self.text(), 0) {
            Some(i) => {
                self.de.st.acc = SUCCESS;
                visitor.visit_enum(UnitVariant(variants[i]))
            }
            None => {
                let message = format!("key \"{}\" is not a variant of `{name}`", coerce::clip(self.text()));
                let m = || message.clone();
                self.de.st.failed(self.ident, Outcome::Unsupported, &m)?;
                let r = visitor.visit_enum(UnitVariant(variants.first().copied().unwrap_or("")));
                self.de.place(self.ident, r, &m)
            }
        }
    }

    serde_core::forward_to_deserialize_any! {
        char bytes byte_buf unit unit_struct seq tuple tuple_struct map struct ignored_any
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// `{"Variant": payload}`.
pub(super) struct VariantObject<'a, 'de, 'cb, R> {
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) variant: &'static str,
}

impl<'de, R: Read<'de>> de::EnumAccess<'de> for VariantObject<'_, 'de, '_, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for VariantObject<'_, 'de, '_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.de.nested(Slot::Pointee, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.de.st.slot = Slot::Pointee;
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        self.de.st.slot = Slot::Pointee;
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

/// Hands a `$type` visitor the resolved type index; the payload is the object itself.
pub(super) struct PolyAccess<'a, 'de, 'cb, R> {
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) index: u32,
}

impl<'de, R: Read<'de>> de::EnumAccess<'de> for PolyAccess<'_, 'de, '_, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(U32Deserializer::<Error>::new(self.index))?;
        Ok((v, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for PolyAccess<'_, 'de, '_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        self.de.skip()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.de.nested(Slot::Pointee, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}
