//! The serde `Serializer`: Rust values → Godot Variant bytes.
//!
//! The output always goes to a `Vec<u8>`: Godot puts element counts before the elements, and
//! serde does not always know them up front (`serialize_seq(None)`), so counts are patched in
//! place. [`Options::to_writer`](crate::Options::to_writer) encodes into memory and writes once.

use serde_core::ser::{self, Impossible, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::magic::{self, Layout, Magic};
use crate::options::{Options, StructForm, UnitVariants, Version};
use crate::wire::{self, FLAG_64, FLAG_OBJECT_AS_ID, KIND_BUILTIN, KIND_CLASS_NAME, KIND_SCRIPT, NODE_PATH_NEW_FORMAT};
use crate::{ContainerType, VariantType};

/// `serialize_<int>` methods that widen to i64 (or check, for wider types) and call `$int`.
macro_rules! int_methods {
    ($int:ident; $($method:ident: $ty:ty),*; checked $($checked:ident: $cty:ty),*) => {
        $(
            #[inline]
            fn $method(self, v: $ty) -> Result<()> {
                self.$int(v as i64)
            }
        )*
        $(
            fn $checked(self, v: $cty) -> Result<()> {
                self.$int(i64::try_from(v).map_err(|_| Error::new(ErrorKind::IntegerOutOfRange))?)
            }
        )*
    };
}

// Headers of the types whose id is the same in Godot 3 and 4.
const NIL: u32 = 0;
const BOOL: u32 = 1;
const INT: u32 = 2;
const FLOAT: u32 = 3;
const STRING: u32 = 4;

/// A serde Serializer that appends Godot Variant bytes to a `Vec<u8>`.
///
/// The serializer works on the vector's buffer directly and hands it back (with the new bytes
/// after the old ones, and its capacity) when it is dropped.
///
/// ```
/// use serde_godot::Serializer;
/// use serde::Serialize;
///
/// let mut out = Vec::new();
/// 42u8.serialize(&mut Serializer::new(&mut out))?;
/// assert_eq!(out, [2, 0, 0, 0, 42, 0, 0, 0]); // INT, 42
/// # Ok::<(), serde_godot::Error>(())
/// ```
pub struct Serializer<'a> {
    /// The output, taken out of the caller's vector for the serializer's lifetime (one
    /// indirection less on every write) and put back on drop.
    out: Vec<u8>,
    target: &'a mut Vec<u8>,
    opts: Options,
    ids: &'static [u8; 39],
    /// Headers of ARRAY and DICTIONARY in this version (the hot containers).
    array: u32,
    dict: u32,
    depth: usize,
    /// A NodePath's name count, subname count and absolute flag while its fields are written.
    node_path: [u32; 3],
}

impl<'a> Serializer<'a> {
    /// A serializer with the default [`Options`] (Godot 4) appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self::with_options(out, Options::new())
    }

    /// A serializer with `opts` appending to `out`.
    pub fn with_options(out: &'a mut Vec<u8>, opts: Options) -> Self {
        let ids = wire::ids_table(opts.version);
        let (array, dict) = (ids[VariantType::Array as usize] as u32, ids[VariantType::Dictionary as usize] as u32);
        Serializer { out: std::mem::take(out), target: out, opts, ids, array, dict, depth: 0, node_path: [0; 3] }
    }

    /// The header id of `ty` in this version, or an error for Godot 4-only types in Godot 3 mode.
    #[inline]
    fn id(&self, ty: VariantType) -> Result<u32> {
        match self.ids[ty as usize] {
            0xFF => Err(Error::new(ErrorKind::UnsupportedInVersion(ty))),
            id => Ok(id as u32),
        }
    }

    #[inline]
    fn header(&mut self, ty: VariantType, flags: u32) -> Result<()> {
        let id = self.id(ty)?;
        wire::put_header(&mut self.out, id | flags);
        Ok(())
    }

    #[inline]
    fn godot4(&self) -> bool {
        self.opts.version == Version::Godot4
    }

    /// INT: 32-bit payload when the value fits, else the 64-bit flag and payload (the engine's rule).
    #[inline]
    fn int(&mut self, v: i64) {
        if v as i32 as i64 == v {
            let word = INT as u64 | ((v as i32 as u32 as u64) << 32);
            self.out.extend_from_slice(&word.to_le_bytes());
        } else {
            let mut buf = [0u8; 12];
            buf[..4].copy_from_slice(&(INT | FLAG_64).to_le_bytes());
            buf[4..].copy_from_slice(&v.to_le_bytes());
            self.out.extend_from_slice(&buf);
        }
    }

    #[inline]
    fn int_value(&mut self, v: i64) -> Result<()> {
        self.int(v);
        Ok(())
    }

    /// FLOAT: 32-bit payload when `(f64)(f32)v == v`, else 64-bit — so NaN always gets 64 bits.
    #[inline]
    fn float(&mut self, v: f64) {
        let narrow = v as f32;
        if narrow as f64 == v {
            let word = FLOAT as u64 | ((narrow.to_bits() as u64) << 32);
            self.out.extend_from_slice(&word.to_le_bytes());
        } else {
            let mut buf = [0u8; 12];
            buf[..4].copy_from_slice(&(FLOAT | FLAG_64).to_le_bytes());
            buf[4..].copy_from_slice(&v.to_le_bytes());
            self.out.extend_from_slice(&buf);
        }
    }

    #[inline]
    fn string(&mut self, s: &str) -> Result<()> {
        wire::put_str_value(&mut self.out, STRING, s.as_bytes())
    }

    /// Steps into a container's elements.
    #[inline]
    fn descend(&mut self) {
        self.depth += 1;
    }

    /// Checks that an element at the current depth is allowed.
    #[inline]
    fn check_depth(&self) -> Result<()> {
        if self.depth > self.opts.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit(self.opts.max_depth)));
        }
        Ok(())
    }

    /// Writes a container header and its count (or a placeholder to patch), steps one level
    /// down, and returns the bookkeeping.
    #[inline]
    fn open(&mut self, header: u32, len: Option<usize>) -> Result<Open> {
        match len {
            Some(len) if len <= i32::MAX as usize => {
                self.out.extend_from_slice(&(header as u64 | (len as u64) << 32).to_le_bytes());
                self.depth += 1;
                Ok(Open { len: len as u32, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 1 })
            }
            _ => {
                wire::put_header(&mut self.out, header);
                self.open_count(len)
            }
        }
    }

    /// Writes a container's count (or a placeholder to patch) and steps one level down.
    fn open_count(&mut self, len: Option<usize>) -> Result<Open> {
        let open = match len {
            Some(len) => {
                self.out.extend_from_slice(&wire::len_u32(len)?.to_le_bytes());
                Open { len: len as u32, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 1 }
            }
            None => {
                let patch = self.out.len();
                self.out.extend_from_slice(&[0; 4]);
                Open { len: UNKNOWN, count: 0, patch, check: [NO_CHECK; 2], levels: 1 }
            }
        };
        self.depth += 1;
        Ok(open)
    }

    /// Leaves a container: back up the levels it went down, patch or check its count.
    #[inline(always)]
    fn close(&mut self, open: Open) -> Result<()> {
        self.depth -= open.levels as usize;
        if open.len != open.count {
            return self.close_mismatch(open);
        }
        Ok(())
    }

    /// Patches the count of an unknown-length container, or reports a Serialize implementation
    /// that produced another number of elements than it announced.
    #[cold]
    fn close_mismatch(&mut self, open: Open) -> Result<()> {
        if open.len == UNKNOWN {
            self.out[open.patch..open.patch + 4].copy_from_slice(&open.count.to_le_bytes());
            return Ok(());
        }
        Err(Error::new(ErrorKind::Message(format!(
            "a Serialize implementation announced {} elements but produced {}",
            open.len, open.count
        ))))
    }

    fn typed<'x>(&self, spec: Option<TypeSpec<'x>>) -> Option<TypeSpec<'x>> {
        if self.opts.typed_containers && self.godot4() { spec } else { None }
    }

    fn put_type_spec(&mut self, spec: &TypeSpec<'_>) -> Result<()> {
        match spec {
            TypeSpec::Builtin(ty) => {
                let id = self.id(*ty)?;
                self.out.extend_from_slice(&id.to_le_bytes());
                Ok(())
            }
            TypeSpec::ClassName(name) | TypeSpec::Script(name) => wire::put_str_body(&mut self.out, name.as_bytes()),
        }
    }

    /// Starts an untyped ARRAY.
    #[inline]
    fn begin_array(&mut self, len: Option<usize>) -> Result<Seq<'_, 'a>> {
        let open = self.open(self.array, len)?;
        Ok(Seq { ser: self, open })
    }

    /// Starts an ARRAY with a typed-container header (when enabled).
    #[cold]
    fn begin_typed_array(&mut self, len: Option<usize>, spec: TypeSpec<'_>) -> Result<Seq<'_, 'a>> {
        let Some(spec) = self.typed(Some(spec)) else { return self.begin_array(len) };
        wire::put_header(&mut self.out, self.array | spec.kind() << 16);
        self.put_type_spec(&spec)?;
        let mut open = self.open_count(len)?;
        open.check[0] = spec.variant_type() as u8;
        Ok(Seq { ser: self, open })
    }

    /// Starts an untyped DICTIONARY.
    #[inline]
    fn begin_dict(&mut self, len: Option<usize>) -> Result<Map<'_, 'a>> {
        let open = self.open(self.dict, len)?;
        Ok(Map { ser: self, open })
    }

    /// Starts a DICTIONARY with typed-container headers (when enabled).
    #[cold]
    fn begin_typed_dict(
        &mut self,
        len: Option<usize>,
        key: Option<TypeSpec<'_>>,
        value: Option<TypeSpec<'_>>,
    ) -> Result<Map<'_, 'a>> {
        let key = self.typed(key);
        let value = self.typed(value);
        if key.is_none() && value.is_none() {
            return self.begin_dict(len);
        }
        let kinds = key.as_ref().map_or(0, TypeSpec::kind) << 16 | value.as_ref().map_or(0, TypeSpec::kind) << 18;
        wire::put_header(&mut self.out, self.dict | kinds);
        if let Some(spec) = &key {
            self.put_type_spec(spec)?;
        }
        if let Some(spec) = &value {
            self.put_type_spec(spec)?;
        }
        let mut open = self.open_count(len)?;
        open.check = [
            key.as_ref().map_or(NO_CHECK, |k| k.variant_type() as u8),
            value.as_ref().map_or(NO_CHECK, |v| v.variant_type() as u8),
        ];
        Ok(Map { ser: self, open })
    }

    /// Writes `{ "Variant": ` of an externally tagged enum and steps into the value.
    fn begin_variant(&mut self, variant: &'static str) -> Result<()> {
        self.out.extend_from_slice(&(self.dict as u64 | 1 << 32).to_le_bytes());
        self.string(variant)?;
        self.descend();
        self.check_depth()
    }

    #[inline]
    fn begin_struct(&mut self, len: usize, levels: u8) -> Result<Struct<'_, 'a>> {
        let (kind, header) = match self.opts.struct_form {
            StructForm::Dictionary => (StructKind::Dict, self.dict),
            StructForm::Array => (StructKind::Array, self.array),
        };
        let mut open = self.open(header, Some(len))?;
        open.levels += levels;
        Ok(Struct { ser: self, open, kind, at: 0 })
    }

    /// Serializes an element of a typed container and verifies that it has the declared type.
    #[cold]
    fn checked<T: Serialize + ?Sized>(&mut self, value: &T, expected: u8) -> Result<()> {
        let start = self.out.len();
        value.serialize(&mut *self)?;
        let expected = VariantType::ALL[expected as usize];
        self.verify_element(start, expected)
    }

    /// Verifies that the value written at `start` has the type a typed container declares.
    fn verify_element(&self, start: usize, expected: VariantType) -> Result<()> {
        let found = VariantType::from_id(self.out[start] as u32, self.opts.version).unwrap_or(VariantType::Nil);
        let ok = found == expected || (expected == VariantType::Object && found == VariantType::Nil);
        if ok { Ok(()) } else { Err(Error::new(ErrorKind::WrongType { expected, found })) }
    }

    fn math(&mut self, ty: VariantType) -> Result<Struct<'_, 'a>> {
        self.header(ty, 0)?;
        let layout = Layout::of(ty).expect("math type");
        let end = self.out.len() + layout.size(4);
        Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::Raw(ty), at: end })
    }
}

/// A typed-container element type while encoding.
#[derive(Clone, Debug)]
enum TypeSpec<'x> {
    Builtin(VariantType),
    ClassName(&'x str),
    Script(&'x str),
}

impl TypeSpec<'_> {
    fn kind(&self) -> u32 {
        match self {
            TypeSpec::Builtin(_) => KIND_BUILTIN,
            TypeSpec::ClassName(_) => KIND_CLASS_NAME,
            TypeSpec::Script(_) => KIND_SCRIPT,
        }
    }

    fn variant_type(&self) -> VariantType {
        match self {
            TypeSpec::Builtin(ty) => *ty,
            _ => VariantType::Object,
        }
    }

    fn from_container(ct: &ContainerType) -> Option<TypeSpec<'_>> {
        match ct {
            ContainerType::Untyped => None,
            ContainerType::Builtin(ty) => Some(TypeSpec::Builtin(*ty)),
            ContainerType::ClassName(name) => Some(TypeSpec::ClassName(name)),
            ContainerType::Script(path) => Some(TypeSpec::Script(path)),
        }
    }
}

impl<'s, 'a> ser::Serializer for &'s mut Serializer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'s, 'a>;
    type SerializeTuple = Seq<'s, 'a>;
    type SerializeTupleStruct = Seq<'s, 'a>;
    type SerializeTupleVariant = Seq<'s, 'a>;
    type SerializeMap = Map<'s, 'a>;
    type SerializeStruct = Struct<'s, 'a>;
    type SerializeStructVariant = Struct<'s, 'a>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        let word = BOOL as u64 | ((v as u64) << 32);
        self.out.extend_from_slice(&word.to_le_bytes());
        Ok(())
    }

    int_methods!(int_value; serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32;
        checked serialize_i128: i128, serialize_u64: u64, serialize_u128: u128);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        let word = FLOAT as u64 | ((v.to_bits() as u64) << 32);
        self.out.extend_from_slice(&word.to_le_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.string(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let id = self.id(VariantType::PackedByteArray)?;
        wire::put_str_value(&mut self.out, id, v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        wire::put_header(&mut self.out, NIL);
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        wire::put_header(&mut self.out, NIL);
        Ok(())
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        match magic::lookup(name) {
            Some(Magic::Callable) => self.header(VariantType::Callable, 0),
            _ => self.serialize_unit(),
        }
    }

    fn serialize_unit_variant(self, _name: &'static str, index: u32, variant: &'static str) -> Result<()> {
        match self.opts.unit_variants {
            UnitVariants::Name => self.string(variant),
            UnitVariants::Index => {
                self.int(index as i64);
                Ok(())
            }
        }
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<()> {
        let Some(magic) = magic::lookup(name) else {
            return value.serialize(self);
        };
        match magic {
            Magic::StringName => {
                self.header(VariantType::StringName, 0)?;
                value.serialize(Raw::new(&mut self.out, Accept::STR))
            }
            Magic::Rid => {
                self.header(VariantType::Rid, 0)?;
                if self.godot4() { value.serialize(Raw::new(&mut self.out, Accept::U64)) } else { Ok(()) }
            }
            Magic::ObjectId => {
                self.header(VariantType::Object, FLAG_OBJECT_AS_ID)?;
                value.serialize(Raw::new(&mut self.out, Accept::U64))
            }
            Magic::Packed(ty) => {
                let id = self.id(ty)?;
                value.serialize(Packed { ser: self, id, ty })
            }
            Magic::ArrayOf(ty) => value.serialize(TypedBody::array(self, TypeSpec::Builtin(ty))),
            Magic::DictKey(ty) => value.serialize(TypedBody::dict(self, Some(TypeSpec::Builtin(ty)), None)),
            Magic::DictValue(ty) => value.serialize(TypedBody::dict(self, None, Some(TypeSpec::Builtin(ty)))),
            Magic::TypedArray | Magic::TypedDictionary => {
                value.serialize(TypedCapture { ser: self, dict: magic == Magic::TypedDictionary })
            }
            _ => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.begin_variant(variant)?;
        value.serialize(&mut *self)?;
        self.depth -= 1;
        Ok(())
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'s, 'a>> {
        self.begin_array(len)
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Seq<'s, 'a>> {
        self.begin_array(Some(len))
    }

    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'s, 'a>> {
        self.begin_array(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'s, 'a>> {
        self.begin_variant(variant)?;
        let mut seq = self.begin_array(Some(len))?;
        seq.open.levels = 2;
        Ok(seq)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a>> {
        self.begin_dict(len)
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Struct<'s, 'a>> {
        match magic::lookup(name) {
            None => self.begin_struct(len, 0),
            Some(magic) => self.magic_struct(magic, len),
        }
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Struct<'s, 'a>> {
        self.begin_variant(variant)?;
        self.begin_struct(len, 1)
    }
}

impl<'a> Serializer<'a> {
    #[cold]
    fn magic_struct<'s>(&'s mut self, magic: Magic, len: usize) -> Result<Struct<'s, 'a>> {
        match magic {
            Magic::Math(ty) => self.math(ty),
            Magic::NodePath => {
                self.header(VariantType::NodePath, 0)?;
                let head = self.out.len();
                self.out.extend_from_slice(&[0; 12]);
                Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::NodePath, at: head })
            }
            Magic::Signal => {
                self.header(VariantType::Signal, 0)?;
                Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::Signal, at: 0 })
            }
            Magic::FullObject => {
                if !self.opts.full_objects {
                    return Err(Error::new(ErrorKind::FullObjectsDisabled));
                }
                self.header(VariantType::Object, 0)?;
                Ok(Struct { ser: self, open: Open::NONE, kind: StructKind::FullObject, at: 0 })
            }
            _ => self.begin_struct(len, 0),
        }
    }
}

/// Marks an announced length as unknown (the count is patched at the end).
const UNKNOWN: u32 = u32::MAX;
/// No typed-container check.
const NO_CHECK: u8 = 0xFF;

/// Bookkeeping of an open Array or Dictionary.
#[derive(Clone, Copy)]
struct Open {
    /// The announced number of elements (checked at the end), or [`UNKNOWN`].
    len: u32,
    /// Elements (entries) written so far.
    count: u32,
    /// Where the count goes when `len` is unknown.
    patch: usize,
    /// Godot 4 type ids that elements (keys) and values must have in a typed container.
    check: [u8; 2],
    /// Depth levels to climb back at the end (2 for the body of an enum variant).
    levels: u8,
}

impl Open {
    /// For Godot's own struct-like types, which are not containers.
    const NONE: Open = Open { len: 0, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 0 };
}

/// The compound for sequences, tuples and (in Array form) structs.
pub struct Seq<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    open: Open,
}

impl Seq<'_, '_> {
    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.open.count += 1;
        if self.open.check[0] == NO_CHECK {
            value.serialize(&mut *self.ser)
        } else {
            self.ser.checked(value, self.open.check[0])
        }
    }

    #[inline]
    fn end_seq(self) -> Result<()> {
        self.ser.close(self.open)
    }
}

/// Implements serde's compound traits for a type by forwarding to its inherent methods.
macro_rules! compound {
    ($ty:ty, $element:ident, $end:ident: $($trait:ident $method:ident,)*) => {$(
        impl ser::$trait for $ty {
            type Ok = ();
            type Error = Error;

            #[inline(always)]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.$element(value)
            }

            #[inline(always)]
            fn end(self) -> Result<()> {
                self.$end()
            }
        }
    )*};
}

/// Like `compound!` for the struct traits, whose fields come with their names.
macro_rules! compound_struct {
    ($ty:ty, $field:ident, $end:ident: $($trait:ident),*) => {$(
        impl ser::$trait for $ty {
            type Ok = ();
            type Error = Error;

            #[inline(always)]
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.$field(key, value)
            }

            #[inline(always)]
            fn end(self) -> Result<()> {
                self.$end()
            }
        }
    )*};
}

compound!(Seq<'_, '_>, element, end_seq:
    SerializeSeq serialize_element,
    SerializeTuple serialize_element,
    SerializeTupleStruct serialize_field,
    SerializeTupleVariant serialize_field,
);

/// The compound for maps and (in Dictionary form) structs.
pub struct Map<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    open: Open,
}

impl ser::SerializeMap for Map<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.open.count += 1;
        match self.open.check[0] {
            NO_CHECK => key.serialize(&mut *self.ser),
            ty => self.ser.checked(key, ty),
        }
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self.open.check[1] {
            NO_CHECK => value.serialize(&mut *self.ser),
            ty => self.ser.checked(value, ty),
        }
    }

    #[inline]
    fn end(self) -> Result<()> {
        self.ser.close(self.open)
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
    /// A NodePath whose three header words are at `Struct::at` (counted in
    /// `Serializer::node_path` while the fields are written).
    NodePath,
    Signal,
    FullObject,
}

/// The compound for structs: a Dictionary or Array of fields, or one of Godot's own struct-like
/// types written in its exact layout.
pub struct Struct<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    open: Open,
    kind: StructKind,
    at: usize,
}

impl Struct<'_, '_> {
    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        if self.kind == StructKind::Array {
            self.ser.check_depth()?;
            self.open.count += 1;
            value.serialize(&mut *self.ser)
        } else if self.kind == StructKind::Dict {
            self.ser.check_depth()?;
            self.open.count += 1;
            self.ser.string(key)?;
            value.serialize(&mut *self.ser)
        } else {
            // Through the serializer, not `self`: keeping the compound's address private lets
            // it live in registers on the hot path.
            self.ser.special_field(self.kind, key, value)
        }
    }

    #[inline(always)]
    fn end_struct(self) -> Result<()> {
        if matches!(self.kind, StructKind::Dict | StructKind::Array) {
            self.ser.close(self.open)
        } else {
            self.ser.special_end(self.kind, self.at, self.open)
        }
    }
}

impl Serializer<'_> {
    /// A field of one of Godot's struct-like types.
    #[cold]
    fn special_field<T: Serialize + ?Sized>(&mut self, kind: StructKind, key: &'static str, value: &T) -> Result<()> {
        let out = &mut self.out;
        match (kind, key) {
            (StructKind::Raw(_), _) => value.serialize(Raw::new(out, Accept::MATH)),
            (StructKind::NodePath, "absolute") => {
                self.node_path[2] = value.serialize(BoolCapture)? as u32;
                Ok(())
            }
            (StructKind::NodePath, "names") => {
                self.node_path[0] = value.serialize(StrList { out, max: self.opts.max_len })?;
                Ok(())
            }
            (StructKind::NodePath, "subnames") => {
                self.node_path[1] = value.serialize(StrList { out, max: self.opts.max_len })?;
                Ok(())
            }
            (StructKind::Signal, "name") | (StructKind::FullObject, "class") => {
                value.serialize(Raw::new(out, Accept::STR))
            }
            (StructKind::Signal, "object") => value.serialize(Raw::new(out, Accept::U64)),
            (StructKind::FullObject, "properties") => value.serialize(Props { ser: self }),
            _ => Err(unexpected("a Godot type's fields")),
        }
    }

    /// The end of one of Godot's struct-like types.
    #[cold]
    fn special_end(&mut self, kind: StructKind, at: usize, open: Open) -> Result<()> {
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
                let [names, subnames, absolute] = std::mem::take(&mut self.node_path);
                let mut words = [0u8; 12];
                words[..4].copy_from_slice(&(names | NODE_PATH_NEW_FORMAT).to_le_bytes());
                words[4..8].copy_from_slice(&subnames.to_le_bytes());
                words[8..].copy_from_slice(&absolute.to_le_bytes());
                self.out[at..at + 12].copy_from_slice(&words);
                Ok(())
            }
            StructKind::Signal | StructKind::FullObject => Ok(()),
        }
    }
}

compound_struct!(Struct<'_, '_>, field, end_struct: SerializeStruct, SerializeStructVariant);

#[cold]
fn unexpected(what: &str) -> Error {
    Error::new(ErrorKind::Message(format!("unexpected value in {what}")))
}

/// Implements every `serde::Serializer` method not listed by the caller as an error.
macro_rules! reject {
    ($what:expr; $($method:ident)*) => {$(reject!(@ $what; $method);)*};
    (@ $what:expr; bool) => { fn serialize_bool(self, _: bool) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i8) => { fn serialize_i8(self, _: i8) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i16) => { fn serialize_i16(self, _: i16) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i32) => { fn serialize_i32(self, _: i32) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; i64) => { fn serialize_i64(self, _: i64) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u8) => { fn serialize_u8(self, _: u8) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u16) => { fn serialize_u16(self, _: u16) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u32) => { fn serialize_u32(self, _: u32) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; u64) => { fn serialize_u64(self, _: u64) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; f32) => { fn serialize_f32(self, _: f32) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; f64) => { fn serialize_f64(self, _: f64) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; char) => { fn serialize_char(self, _: char) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; str) => { fn serialize_str(self, _: &str) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; bytes) => { fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; none) => { fn serialize_none(self) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; some) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> { Err(unexpected($what)) }
    };
    (@ $what:expr; unit) => { fn serialize_unit(self) -> Result<Self::Ok> { Err(unexpected($what)) } };
    (@ $what:expr; unit_struct) => {
        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok> { Err(unexpected($what)) }
    };
    (@ $what:expr; unit_variant) => {
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<Self::Ok> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; newtype_struct) => {
        fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<Self::Ok> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; newtype_variant) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self, _: &'static str, _: u32, _: &'static str, _: &T,
        ) -> Result<Self::Ok> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; seq) => {
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> { Err(unexpected($what)) }
    };
    (@ $what:expr; tuple) => {
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> { Err(unexpected($what)) }
    };
    (@ $what:expr; tuple_struct) => {
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; tuple_variant) => {
        fn serialize_tuple_variant(
            self, _: &'static str, _: u32, _: &'static str, _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; map) => {
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> { Err(unexpected($what)) }
    };
    (@ $what:expr; struct) => {
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err(unexpected($what))
        }
    };
    (@ $what:expr; struct_variant) => {
        fn serialize_struct_variant(
            self, _: &'static str, _: u32, _: &'static str, _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(unexpected($what))
        }
    };
}

/// The associated types of a serializer that captures one scalar (every compound impossible).
macro_rules! capture_only {
    ($ok:ty) => {
        type Ok = $ok;
        type Error = Error;
        type SerializeSeq = Impossible<$ok, Error>;
        type SerializeTuple = Impossible<$ok, Error>;
        type SerializeTupleStruct = Impossible<$ok, Error>;
        type SerializeTupleVariant = Impossible<$ok, Error>;
        type SerializeMap = Impossible<$ok, Error>;
        type SerializeStruct = Impossible<$ok, Error>;
        type SerializeStructVariant = Impossible<$ok, Error>;

        fn is_human_readable(&self) -> bool {
            false
        }
    };
}

/// What a [`Raw`] payload writer accepts.
#[derive(Clone, Copy)]
struct Accept(u8);

impl Accept {
    /// A string body (StringName, signal and class names).
    const STR: Accept = Accept(1);
    /// A raw u64 (RID, object id).
    const U64: Accept = Accept(2);
    /// f32 / i32 components, nested structs and arrays flattened (math types).
    const MATH: Accept = Accept(4);

    fn has(self, other: Accept) -> bool {
        self.0 & other.0 != 0
    }
}

/// Writes the payload of a Godot type without headers.
struct Raw<'o> {
    out: &'o mut Vec<u8>,
    accept: Accept,
}

impl<'o> Raw<'o> {
    fn new(out: &'o mut Vec<u8>, accept: Accept) -> Self {
        Raw { out, accept }
    }

    #[inline]
    fn bytes(self, accept: Accept, bytes: &[u8]) -> Result<()> {
        if !self.accept.has(accept) {
            return Err(unexpected("a Godot type's payload"));
        }
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn reborrow(&mut self) -> Raw<'_> {
        Raw { out: self.out, accept: self.accept }
    }
}

impl ser::Serializer for Raw<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.bytes(Accept::MATH, &v.to_le_bytes())
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.bytes(Accept::MATH, &v.to_le_bytes())
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.bytes(Accept::U64, &v.to_le_bytes())
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        if !self.accept.has(Accept::STR) {
            return Err(unexpected("a Godot type's payload"));
        }
        wire::put_str_body(self.out, v.as_bytes())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self> {
        if self.accept.has(Accept::MATH) { Ok(self) } else { Err(unexpected("a Godot type's payload")) }
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self> {
        if self.accept.has(Accept::MATH) { Ok(self) } else { Err(unexpected("a Godot type's payload")) }
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self> {
        if self.accept.has(Accept::MATH) { Ok(self) } else { Err(unexpected("a Godot type's payload")) }
    }

    reject!("a Godot type's payload"; bool i8 i16 i64 u8 u16 u32 f64 char bytes none some unit unit_struct
        unit_variant newtype_variant seq tuple_variant map struct_variant);
}

impl Raw<'_> {
    #[inline]
    fn part<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(self.reborrow())
    }

    #[inline]
    fn named_part<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        self.part(value)
    }

    fn done(self) -> Result<()> {
        Ok(())
    }
}

compound!(Raw<'_>, part, done: SerializeTuple serialize_element, SerializeTupleStruct serialize_field,);
compound_struct!(Raw<'_>, named_part, done: SerializeStruct);

/// Captures a bool (NodePath's `absolute`).
struct BoolCapture;

impl ser::Serializer for BoolCapture {
    capture_only!(bool);

    fn serialize_bool(self, v: bool) -> Result<bool> {
        Ok(v)
    }

    reject!("a NodePath"; i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct
        unit_variant newtype_struct newtype_variant seq tuple tuple_struct tuple_variant map struct struct_variant);
}

/// Captures a string (a typed-container descriptor).
struct StrCapture;

impl ser::Serializer for StrCapture {
    capture_only!(String);

    fn serialize_str(self, v: &str) -> Result<String> {
        Ok(v.to_owned())
    }

    reject!("a container type"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char bytes none some unit unit_struct
        unit_variant newtype_struct newtype_variant seq tuple tuple_struct tuple_variant map struct struct_variant);
}

/// Captures one f32 component of a packed vector or color.
struct F32Capture;

impl ser::Serializer for F32Capture {
    capture_only!(f32);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<f32> {
        Ok(v)
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<f32> {
        Ok(v as f32)
    }

    reject!("a packed vector component"; bool i8 i16 i32 i64 u8 u16 u32 u64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant seq tuple tuple_struct tuple_variant map struct
        struct_variant);
}

/// Writes a list of string bodies and returns how many (NodePath names and subnames).
struct StrList<'o> {
    out: &'o mut Vec<u8>,
    max: usize,
}

impl<'o> ser::Serializer for StrList<'o> {
    type Ok = u32;
    type Error = Error;
    type SerializeSeq = StrListSeq<'o>;
    type SerializeTuple = Impossible<u32, Error>;
    type SerializeTupleStruct = Impossible<u32, Error>;
    type SerializeTupleVariant = Impossible<u32, Error>;
    type SerializeMap = Impossible<u32, Error>;
    type SerializeStruct = Impossible<u32, Error>;
    type SerializeStructVariant = Impossible<u32, Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<StrListSeq<'o>> {
        Ok(StrListSeq { out: self.out, count: 0, max: self.max })
    }

    reject!("a NodePath"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct
        unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct struct_variant);
}

struct StrListSeq<'o> {
    out: &'o mut Vec<u8>,
    count: u32,
    max: usize,
}

impl ser::SerializeSeq for StrListSeq<'_> {
    type Ok = u32;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(Raw::new(self.out, Accept::STR))?;
        self.count += 1;
        if self.count as usize > self.max.min(i32::MAX as usize) {
            return Err(Error::new(ErrorKind::TooLong(self.count as usize)));
        }
        Ok(())
    }

    fn end(self) -> Result<u32> {
        Ok(self.count)
    }
}

/// Writes a packed array from a sequence of its elements.
struct Packed<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    id: u32,
    ty: VariantType,
}

impl<'s, 'a> ser::Serializer for Packed<'s, 'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = PackedSeq<'s, 'a>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<PackedSeq<'s, 'a>> {
        let open = self.ser.open(self.id, len)?;
        if let (Some(len), Some(size)) = (len, wire::packed_elem_size(self.ty, false)) {
            self.ser.out.reserve(len.saturating_mul(size));
        }
        let dims = match self.ty {
            VariantType::PackedVector2Array => 2,
            VariantType::PackedVector3Array => 3,
            _ => 4,
        };
        Ok(PackedSeq { ser: self.ser, ty: self.ty, open, dims })
    }

    reject!("a packed array"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct
        struct_variant);
}

struct PackedSeq<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    ty: VariantType,
    open: Open,
    dims: usize,
}

impl ser::SerializeSeq for PackedSeq<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.open.count += 1;
        value.serialize(PackedElem { out: &mut self.ser.out, ty: self.ty, dims: self.dims })
    }

    fn end(self) -> Result<()> {
        self.ser.close(self.open)
    }
}

/// Writes one packed element.
struct PackedElem<'o> {
    out: &'o mut Vec<u8>,
    ty: VariantType,
    dims: usize,
}

impl PackedElem<'_> {
    #[inline]
    fn int(self, v: i64) -> Result<()> {
        match self.ty {
            VariantType::PackedInt32Array => {
                let v = i32::try_from(v).map_err(|_| Error::new(ErrorKind::IntegerOutOfRange))?;
                self.out.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            VariantType::PackedInt64Array => {
                self.out.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            _ => Err(unexpected(self.ty.name())),
        }
    }

    #[inline]
    fn float(self, v: f64) -> Result<()> {
        match self.ty {
            VariantType::PackedFloat32Array => self.out.extend_from_slice(&(v as f32).to_le_bytes()),
            VariantType::PackedFloat64Array => self.out.extend_from_slice(&v.to_le_bytes()),
            _ => return Err(unexpected(self.ty.name())),
        }
        Ok(())
    }
}

impl<'o> ser::Serializer for PackedElem<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = PackedVector<'o>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = PackedVector<'o>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    int_methods!(int; serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32;
        checked serialize_i128: i128, serialize_u64: u64, serialize_u128: u128);

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.float(v as f64)
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v)
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        if self.ty != VariantType::PackedStringArray {
            return Err(unexpected(self.ty.name()));
        }
        wire::put_packed_str(self.out, v.as_bytes())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<PackedVector<'o>> {
        self.vector()
    }

    #[inline]
    fn serialize_tuple(self, _: usize) -> Result<PackedVector<'o>> {
        self.vector()
    }

    reject!("a packed array element"; bool char bytes none some unit unit_struct unit_variant newtype_variant
        seq tuple_struct tuple_variant map struct_variant);
}

impl<'o> PackedElem<'o> {
    #[inline]
    fn vector(self) -> Result<PackedVector<'o>> {
        match self.ty {
            VariantType::PackedVector2Array
            | VariantType::PackedVector3Array
            | VariantType::PackedVector4Array
            | VariantType::PackedColorArray => {
                Ok(PackedVector { out: self.out, vals: [0.0; 4], n: 0, dims: self.dims })
            }
            _ => Err(unexpected(self.ty.name())),
        }
    }
}

/// Collects the components of one packed vector or color, then writes them in one go.
struct PackedVector<'o> {
    out: &'o mut Vec<u8>,
    vals: [f32; 4],
    n: usize,
    dims: usize,
}

impl PackedVector<'_> {
    #[inline]
    fn component<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let v = value.serialize(F32Capture)?;
        if self.n < 4 {
            self.vals[self.n] = v;
        }
        self.n += 1;
        Ok(())
    }

    #[inline]
    fn finish(self) -> Result<()> {
        if self.n != self.dims {
            return Err(unexpected("a packed vector"));
        }
        let mut buf = [0u8; 16];
        for (chunk, v) in buf.chunks_exact_mut(4).zip(self.vals) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        self.out.extend_from_slice(&buf[..self.dims * 4]);
        Ok(())
    }
}

impl PackedVector<'_> {
    #[inline]
    fn named_component<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        self.component(value)
    }
}

compound!(PackedVector<'_>, component, finish: SerializeTuple serialize_element,);
compound_struct!(PackedVector<'_>, named_component, finish: SerializeStruct);

/// How a typed container is being written.
enum TypedMode<'x> {
    Array(TypeSpec<'x>),
    Dict { key: Option<TypeSpec<'x>>, value: Option<TypeSpec<'x>> },
}

/// Writes the Array or Dictionary inside a typed-container wrapper with its typed header.
struct TypedBody<'s, 'a, 'x> {
    ser: &'s mut Serializer<'a>,
    mode: TypedMode<'x>,
}

impl<'s, 'a, 'x> TypedBody<'s, 'a, 'x> {
    fn array(ser: &'s mut Serializer<'a>, spec: TypeSpec<'x>) -> Self {
        TypedBody { ser, mode: TypedMode::Array(spec) }
    }

    fn dict(ser: &'s mut Serializer<'a>, key: Option<TypeSpec<'x>>, value: Option<TypeSpec<'x>>) -> Self {
        TypedBody { ser, mode: TypedMode::Dict { key, value } }
    }
}

impl<'s, 'a> ser::Serializer for TypedBody<'s, 'a, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'s, 'a>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Map<'s, 'a>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'s, 'a>> {
        match self.mode {
            TypedMode::Array(spec) => self.ser.begin_typed_array(len, spec),
            TypedMode::Dict { .. } => Err(unexpected("a typed Dictionary")),
        }
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a>> {
        match self.mode {
            TypedMode::Dict { key, value } => self.ser.begin_typed_dict(len, key, value),
            TypedMode::Array(_) => Err(unexpected("a typed Array")),
        }
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<()> {
        match (self.mode, magic::lookup(name)) {
            (TypedMode::Dict { key, value: None }, Some(Magic::DictValue(ty))) => {
                value.serialize(TypedBody::dict(self.ser, key, Some(TypeSpec::Builtin(ty))))
            }
            (mode, _) => value.serialize(TypedBody { ser: self.ser, mode }),
        }
    }

    reject!("a typed container"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_variant tuple tuple_struct tuple_variant struct struct_variant);
}

/// Reads the descriptors of a class- or script-typed container, then writes its body.
struct TypedCapture<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    dict: bool,
}

impl<'s, 'a> ser::Serializer for TypedCapture<'s, 'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = TypedTuple<'s, 'a>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_tuple(self, _: usize) -> Result<TypedTuple<'s, 'a>> {
        Ok(TypedTuple { ser: self.ser, dict: self.dict, descriptors: Vec::new() })
    }

    reject!("a typed container"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant seq tuple_struct tuple_variant map struct
        struct_variant);
}

struct TypedTuple<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    dict: bool,
    descriptors: Vec<ContainerType>,
}

impl ser::SerializeTuple for TypedTuple<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let wanted = if self.dict { 2 } else { 1 };
        if self.descriptors.len() < wanted {
            let text = value.serialize(StrCapture)?;
            let ct = ContainerType::from_descriptor(&text).ok_or_else(|| unexpected("a container type"))?;
            self.descriptors.push(ct);
            return Ok(());
        }
        let spec = |i: usize| TypeSpec::from_container(&self.descriptors[i]);
        if self.dict {
            value.serialize(TypedBody::dict(self.ser, spec(0), spec(1)))
        } else {
            match spec(0) {
                Some(spec) => value.serialize(TypedBody::array(self.ser, spec)),
                None => value.serialize(&mut *self.ser),
            }
        }
    }

    fn end(self) -> Result<()> {
        Ok(())
    }
}

/// Writes a full object's property list: a count, then name / value pairs.
struct Props<'s, 'a> {
    ser: &'s mut Serializer<'a>,
}

impl<'s, 'a> ser::Serializer for Props<'s, 'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = PropsSeq<'s, 'a>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<PropsSeq<'s, 'a>> {
        let open = self.ser.open_count(len)?;
        Ok(PropsSeq { ser: self.ser, open })
    }

    reject!("an object's properties"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct
        struct_variant);
}

struct PropsSeq<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    open: Open,
}

impl ser::SerializeSeq for PropsSeq<'_, '_> {
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
struct Prop<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    done: u8,
}

impl ser::Serializer for Prop<'_, '_> {
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

impl ser::SerializeTuple for Prop<'_, '_> {
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

impl Drop for Serializer<'_> {
    fn drop(&mut self) {
        *self.target = std::mem::take(&mut self.out);
    }
}
