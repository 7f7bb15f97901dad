//! Structs: a Dictionary or Array of fields, or one of Godot's own struct-like types (math
//! types, NodePath, Signal, full objects) written in its exact layout.

use serde_core::ser::{self, Impossible, Serialize};

use super::keyed::{Header, Key, Keyed, NoLead, put_keyed};
use super::macros::{compound_struct, reject, unexpected};
use super::payload::{Accept, BoolCapture, Raw, StrList};
use super::word::{NotWord, Word32};
use super::writer::{Open, Output, Serializer};
use crate::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::magic::{Layout, Magic};
use crate::options::StructForm;
use crate::wire::NODE_PATH_NEW_FORMAT;

impl<'a, O: Output> Serializer<'a, O> {
    #[inline]
    pub(super) fn begin_struct(&mut self, len: usize, levels: u8) -> Result<Struct<'_, 'a, O>> {
        let kind = match self.opts.struct_form {
            StructForm::Dictionary => StructKind::Dict,
            StructForm::Array => StructKind::Array,
        };
        // Worked out with the options (one load), not chosen here by version and form.
        let header = self.opts.struct_header as u32;
        if len > i32::MAX as usize {
            return Err(Error::new(ErrorKind::TooLong(len)));
        }
        // The header is left pending, to go out with the first field (in the Dictionary form,
        // in one write with its key; see `Struct::words`). The same for both forms, so that
        // opening a struct stays small where it is inlined.
        self.descend();
        let mut open = Open::known(len as u32);
        let words = header as u128 | (len as u128) << 32;
        open.levels += levels;
        // The announced fields all sit one level down: their depth is checked once, here (a
        // field beyond the announced count is checked on its own).
        if len > 0 {
            self.check_depth()?;
        }
        Ok(Struct { ser: self, open, kind, at: 0, words, key: None })
    }

    /// A math type (Vector2…Projection, Color): its header, then components written in place
    /// (the hot Godot types: kept out of the cold path of the other special structs).
    ///
    /// The header is not written yet: it is the first pending 4-byte word (see
    /// [`Struct::component`]), so that it goes out with the components in one write.
    #[inline(always)]
    pub(super) fn math(&mut self, ty: VariantType) -> Result<Struct<'_, 'a, O>> {
        let id = self.id(ty)?;
        let layout = Layout::of(ty).expect("math type");
        let end = self.out.len() + 4 + layout.size(4);
        let open = Open { count: 1, ..Open::NONE };
        Ok(Struct { ser: self, open, kind: StructKind::Raw(ty), at: end, words: id as u128, key: None })
    }

    /// [`math`](Self::math) as a Dictionary-form struct field's value: `key` (the field's name)
    /// goes out with the first pending words.
    #[inline(always)]
    pub(super) fn math_after(&mut self, key: Key, ty: VariantType) -> Result<Struct<'_, 'a, O>> {
        let mut st = self.math(ty)?;
        st.at += key.size();
        st.key = Some(key);
        Ok(st)
    }

    #[cold]
    pub(super) fn magic_struct<'s>(&'s mut self, magic: Magic, len: usize) -> Result<Struct<'s, 'a, O>> {
        match magic {
            Magic::Math(ty) => self.math(ty),
            Magic::NodePath => {
                self.header(VariantType::NodePath, 0)?;
                let head = self.out.len();
                self.out.put(&[0; 12]);
                Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::NodePath, at: head, words: 0, key: None })
            }
            Magic::Signal => {
                self.header(VariantType::Signal, 0)?;
                Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::Signal, at: 0, words: 0, key: None })
            }
            Magic::FullObject => {
                if !self.opts.full_objects {
                    return Err(Error::new(ErrorKind::FullObjectsDisabled));
                }
                self.header(VariantType::Object, 0)?;
                Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::FullObject, at: 0, words: 0, key: None })
            }
            _ => self.begin_struct(len, 0),
        }
    }
}

/// What a [`Struct`] is writing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StructKind {
    /// A Dictionary of field name → value.
    Dict,
    /// An Array of values.
    Array,
    /// A math type's components, which must end at `Struct::at`.
    Raw(VariantType),
    /// A NodePath whose three header words are at `Struct::at` (counted in `Struct::words`
    /// while the fields are written: names, subnames, absolute flag, 32 bits each).
    NodePath,
    Signal,
    FullObject,
}

/// The compound for structs: a Dictionary or Array of fields, or one of Godot's own struct-like
/// types written in its exact layout.
pub struct Struct<'s, 'a, O: Output = Vec<u8>> {
    ser: &'s mut Serializer<'a, O>,
    open: Open,
    kind: StructKind,
    at: usize,
    /// A math type's 4-byte words not yet written (the header, then components), the first in
    /// the low bits; `Open::count` says how many (at most 3). A NodePath's counts. A
    /// Dictionary's or Array's header (type id and count, never 0) while it waits for the first
    /// field.
    words: u128,
    /// The name of the Dictionary-form field whose value this math type is, written with the
    /// first pending words.
    key: Option<Key>,
}

impl<O: Output> Struct<'_, '_, O> {
    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        // `match`, not `==`: comparing the kind with the derived `PartialEq` compares the
        // `Raw` payload too, on every field.
        match self.kind {
            StructKind::Array => {
                self.extra_field_depth()?;
                self.open.count += 1;
                let head = std::mem::take(&mut self.words) as u64;
                if head != 0 {
                    self.ser.out.put(&head.to_le_bytes());
                }
                value.serialize(&mut *self.ser)
            }
            StructKind::Dict => {
                self.extra_field_depth()?;
                self.open.count += 1;
                // A literal name's key is a constant that goes out with the value's first write,
                // and so does the header, for the first field (a test that folds away where the
                // struct's fields are inlined, as derived code is).
                let head = std::mem::take(&mut self.words) as u64;
                match Key::of(key) {
                    Some(key) if head != 0 => {
                        self.ser.head = head;
                        value.serialize(Keyed { ser: &mut *self.ser, key, lead: Header })
                    }
                    Some(key) => value.serialize(Keyed { ser: &mut *self.ser, key, lead: NoLead }),
                    None => {
                        if head != 0 {
                            self.ser.out.put(&head.to_le_bytes());
                        }
                        self.ser.name(key)?;
                        value.serialize(&mut *self.ser)
                    }
                }
            }
            StructKind::Raw(_) => self.component(value),
            // Through the serializer, not `self`: keeping the compound's address private lets
            // it live in registers on the hot path.
            // The NodePath counts go in and out by value, for the same reason.
            kind => {
                self.words = self.ser.special_field(kind, key, value, self.words)?;
                Ok(())
            }
        }
    }

    /// The depth check of a field beyond the announced count (the others were checked when the
    /// struct was opened).
    #[inline(always)]
    fn extra_field_depth(&self) -> Result<()> {
        if self.open.count >= self.open.len { self.ser.check_depth() } else { Ok(()) }
    }

    /// A math type's component. A plain `f32` / `i32` (the common case) joins the pending
    /// 4-byte words (the header first), which go out 16 bytes at a time and the rest at the end
    /// (a Vector2 or Vector3 is one write); anything else (a nested vector) flushes the pending
    /// words and is written by the general payload writer.
    #[inline(always)]
    fn component<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match value.serialize(Word32) {
            Ok(bits) => {
                let n = self.open.count;
                self.words |= (bits as u128) << (32 * n);
                if n == 3 {
                    self.put_words::<16>();
                    (self.words, self.open.count) = (0, 0);
                } else {
                    self.open.count = n + 1;
                }
                Ok(())
            }
            Err(NotWord) => {
                self.flush_component();
                // Through the serializer, not `self` (see `field`).
                self.ser.nested_component(value)
            }
        }
    }

    /// Writes the pending 4-byte words of a math type, if any (a constant number of them when
    /// the components are known, so one fixed-size write).
    #[inline(always)]
    fn flush_component(&mut self) {
        match self.open.count {
            0 => return,
            1 => self.put_words::<4>(),
            2 => self.put_words::<8>(),
            _ => self.put_words::<12>(),
        }
        (self.words, self.open.count) = (0, 0);
    }

    /// Writes the first `N` bytes of the pending words, after the field's name if it is pending.
    #[inline(always)]
    fn put_words<const N: usize>(&mut self) {
        match self.key.take() {
            Some(key) => put_keyed::<O, N>(&mut self.ser.out, key, self.words),
            None => self.ser.out.put(&self.words.to_le_bytes()[..N]),
        }
    }

    #[inline(always)]
    fn end_struct(mut self) -> Result<()> {
        match self.kind {
            StructKind::Dict | StructKind::Array => {
                // The header of a struct with no fields is still pending.
                if self.words != 0 {
                    self.ser.out.put(&(self.words as u64).to_le_bytes());
                }
                self.ser.close(self.open)
            }
            StructKind::Raw(_) => {
                self.flush_component();
                if self.ser.out.len() == self.at {
                    Ok(())
                } else {
                    self.ser.special_end(self.kind, self.at, self.open, 0)
                }
            }
            kind => self.ser.special_end(kind, self.at, self.open, self.words),
        }
    }
}

impl<O: Output> Serializer<'_, O> {
    /// A math type's component that is not a plain `f32` / `i32` (a nested vector, or a wrong
    /// type that the payload writer reports), after the pending words of the math type.
    #[cold]
    #[inline(never)]
    fn nested_component<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(Raw::new(&mut self.out, Accept::MATH))
    }

    /// A field of one of Godot's struct-like types; `words` are a NodePath's counts so far,
    /// returned updated.
    #[cold]
    fn special_field<T: Serialize + ?Sized>(
        &mut self,
        kind: StructKind,
        key: &'static str,
        value: &T,
        words: u128,
    ) -> Result<u128> {
        let out = &mut self.out;
        // A NodePath's count in lane `lane` of `words`.
        let set = |lane: u32, n: u32| words & !((u32::MAX as u128) << (32 * lane)) | (n as u128) << (32 * lane);
        match (kind, key) {
            (StructKind::Raw(_), _) => value.serialize(Raw::new(out, Accept::MATH)).map(|()| words),
            (StructKind::NodePath, "absolute") => Ok(set(2, value.serialize(BoolCapture)? as u32)),
            (StructKind::NodePath, "names") => Ok(set(0, value.serialize(StrList { out, max: self.opts.max_len })?)),
            (StructKind::NodePath, "subnames") => Ok(set(1, value.serialize(StrList { out, max: self.opts.max_len })?)),
            (StructKind::Signal, "name") | (StructKind::FullObject, "class") => {
                value.serialize(Raw::new(out, Accept::STR)).map(|()| words)
            }
            (StructKind::Signal, "object") => value.serialize(Raw::new(out, Accept::U64)).map(|()| words),
            (StructKind::FullObject, "properties") => value.serialize(Props { ser: self }).map(|()| words),
            _ => Err(unexpected("a Godot type's fields")),
        }
    }

    /// The end of one of Godot's struct-like types (`words`: a NodePath's counts).
    #[cold]
    fn special_end(&mut self, kind: StructKind, at: usize, open: Open, words: u128) -> Result<()> {
        match kind {
            StructKind::Dict | StructKind::Array => self.close(open),
            StructKind::Raw(ty) => {
                if self.out.len() == at {
                    Ok(())
                } else {
                    Err(Error::new(ErrorKind::Message(format!("malformed {} components", ty.name()))))
                }
            }
            StructKind::NodePath => {
                let names = words as u32;
                let mut head = [0u8; 12];
                head[..4].copy_from_slice(&(names | NODE_PATH_NEW_FORMAT).to_le_bytes());
                head[4..].copy_from_slice(&(words >> 32).to_le_bytes()[..8]);
                self.out.patch(at, &head);
                Ok(())
            }
            StructKind::Signal | StructKind::FullObject => Ok(()),
        }
    }
}

compound_struct!(Struct<'_, '_, O>, field, end_struct: SerializeStruct, SerializeStructVariant);

/// Writes a full object's property list: a count, then name / value pairs.
struct Props<'s, 'a, O: Output> {
    ser: &'s mut Serializer<'a, O>,
}

impl<'s, 'a, O: Output> ser::Serializer for Props<'s, 'a, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = PropsSeq<'s, 'a, O>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<PropsSeq<'s, 'a, O>> {
        let open = self.ser.open_count(len)?;
        Ok(PropsSeq { ser: self.ser, open })
    }

    reject!("an object's properties"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct
        struct_variant);
}

struct PropsSeq<'s, 'a, O: Output> {
    ser: &'s mut Serializer<'a, O>,
    open: Open,
}

impl<O: Output> ser::SerializeSeq for PropsSeq<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.open.count += 1;
        value.serialize(Prop { ser: self.ser, done: 0 })
    }

    fn end(self) -> Result<()> {
        self.ser.close(self.open)
    }
}

/// One `(name, value)` property.
struct Prop<'s, 'a, O: Output> {
    ser: &'s mut Serializer<'a, O>,
    done: u8,
}

impl<O: Output> ser::Serializer for Prop<'_, '_, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_tuple(self, _: usize) -> Result<Self> {
        Ok(self)
    }

    reject!("an object property"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant seq tuple_struct tuple_variant map struct
        struct_variant);
}

impl<O: Output> ser::SerializeTuple for Prop<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.done += 1;
        match self.done {
            1 => value.serialize(Raw::new(&mut self.ser.out, Accept::STR)),
            2 => value.serialize(&mut *self.ser),
            _ => Err(unexpected("an object property")),
        }
    }

    fn end(self) -> Result<()> {
        if self.done == 2 { Ok(()) } else { Err(unexpected("an object property")) }
    }
}
