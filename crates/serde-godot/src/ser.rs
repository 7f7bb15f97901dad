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
    out: &'a mut Vec<u8>,
    opts: Options,
    ids: &'static [u8; 39],
    depth: usize,
}

impl<'a> Serializer<'a> {
    /// A serializer with the default [`Options`] (Godot 4) appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self::with_options(out, Options::new())
    }

    /// A serializer with `opts` appending to `out`.
    pub fn with_options(out: &'a mut Vec<u8>, opts: Options) -> Self {
        Serializer { out, opts, ids: wire::ids_table(opts.version), depth: 0 }
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
        wire::put_header(self.out, id | flags);
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
        wire::put_str_value(self.out, STRING, s.as_bytes())
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

    /// Writes a count that is known, or a placeholder to patch.
    #[inline]
    fn count(&mut self, len: Option<usize>) -> Result<Option<usize>> {
        match len {
            Some(len) => {
                let len = wire::len_u32(len)?;
                self.out.extend_from_slice(&len.to_le_bytes());
                Ok(None)
            }
            None => {
                let pos = self.out.len();
                self.out.extend_from_slice(&[0; 4]);
                Ok(Some(pos))
            }
        }
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
            TypeSpec::ClassName(name) | TypeSpec::Script(name) => wire::put_str_body(self.out, name.as_bytes()),
        }
    }

    /// Starts an ARRAY: header (with a typed-container kind when enabled), count, one level down.
    fn begin_array(&mut self, len: Option<usize>, spec: Option<TypeSpec<'_>>) -> Result<Seq<'_, 'a>> {
        let id = self.id(VariantType::Array)?;
        let typed = self.typed(spec);
        let check = typed.as_ref().map(TypeSpec::variant_type);
        match &typed {
            None => wire::put_header(self.out, id),
            Some(spec) => {
                wire::put_header(self.out, id | spec.kind() << 16);
                self.put_type_spec(spec)?;
            }
        }
        let count_pos = self.count(len)?;
        self.descend();
        Ok(Seq { ser: self, len, count_pos, count: 0, check, levels: 1 })
    }

    /// Starts a DICTIONARY: header (with typed-container kinds when enabled), count, one level
    /// down.
    fn begin_dict(
        &mut self,
        len: Option<usize>,
        key: Option<TypeSpec<'_>>,
        value: Option<TypeSpec<'_>>,
    ) -> Result<Map<'_, 'a>> {
        let id = self.id(VariantType::Dictionary)?;
        let key = self.typed(key);
        let value = self.typed(value);
        let kinds = key.as_ref().map_or(0, TypeSpec::kind) << 16 | value.as_ref().map_or(0, TypeSpec::kind) << 18;
        wire::put_header(self.out, id | kinds);
        if let Some(spec) = &key {
            self.put_type_spec(spec)?;
        }
        if let Some(spec) = &value {
            self.put_type_spec(spec)?;
        }
        let key_check = key.as_ref().map(TypeSpec::variant_type);
        let value_check = value.as_ref().map(TypeSpec::variant_type);
        let count_pos = self.count(len)?;
        self.descend();
        Ok(Map { ser: self, len, count_pos, count: 0, key_check, value_check, levels: 1 })
    }

    /// Writes `{ "Variant": ` of an externally tagged enum and steps into the value.
    fn begin_variant(&mut self, variant: &'static str) -> Result<()> {
        let id = self.id(VariantType::Dictionary)?;
        wire::put_header(self.out, id);
        self.out.extend_from_slice(&1u32.to_le_bytes());
        self.string(variant)?;
        self.descend();
        self.check_depth()
    }

    fn begin_struct(&mut self, len: usize, levels: u8) -> Result<Struct<'_, 'a>> {
        Ok(match self.opts.struct_form {
            StructForm::Dictionary => {
                let mut map = self.begin_dict(Some(len), None, None)?;
                map.levels += levels;
                Struct(StructState::Dict(map))
            }
            StructForm::Array => {
                let mut seq = self.begin_array(Some(len), None)?;
                seq.levels += levels;
                Struct(StructState::Array(seq))
            }
        })
    }

    fn finish(&mut self, count_pos: Option<usize>, len: Option<usize>, count: usize, levels: u8) -> Result<()> {
        self.depth -= levels as usize;
        match (count_pos, len) {
            (Some(pos), _) => {
                let count = wire::len_u32(count)?;
                self.out[pos..pos + 4].copy_from_slice(&count.to_le_bytes());
                Ok(())
            }
            (None, Some(len)) if len != count => Err(Error::new(ErrorKind::Message(format!(
                "a Serialize implementation announced {len} elements but produced {count}"
            )))),
            _ => Ok(()),
        }
    }

    /// Verifies that the value written at `start` has the type a typed container declares.
    #[cold]
    fn verify_element(&self, start: usize, expected: VariantType) -> Result<()> {
        let found = VariantType::from_id(self.out[start] as u32, self.opts.version).unwrap_or(VariantType::Nil);
        let ok = found == expected || (expected == VariantType::Object && found == VariantType::Nil);
        if ok { Ok(()) } else { Err(Error::new(ErrorKind::WrongType { expected, found })) }
    }

    fn math(&mut self, ty: VariantType) -> Result<Struct<'_, 'a>> {
        self.header(ty, 0)?;
        let layout = Layout::of(ty).expect("math type");
        let end = self.out.len() + layout.size(4);
        Ok(Struct(StructState::Raw { ser: self, end, ty }))
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
        wire::put_str_value(self.out, id, v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        wire::put_header(self.out, NIL);
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        wire::put_header(self.out, NIL);
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
                value.serialize(Raw::new(self.out, Accept::STR))
            }
            Magic::Rid => {
                self.header(VariantType::Rid, 0)?;
                if self.godot4() { value.serialize(Raw::new(self.out, Accept::U64)) } else { Ok(()) }
            }
            Magic::ObjectId => {
                self.header(VariantType::Object, FLAG_OBJECT_AS_ID)?;
                value.serialize(Raw::new(self.out, Accept::U64))
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
        self.begin_array(len, None)
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Seq<'s, 'a>> {
        self.begin_array(Some(len), None)
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'s, 'a>> {
        self.begin_array(Some(len), None)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'s, 'a>> {
        self.begin_variant(variant)?;
        let mut seq = self.begin_array(Some(len), None)?;
        seq.levels = 2;
        Ok(seq)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a>> {
        self.begin_dict(len, None, None)
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
                Ok(Struct(StructState::NodePath { ser: self, head, absolute: false, names: 0, subnames: 0 }))
            }
            Magic::Signal => {
                self.header(VariantType::Signal, 0)?;
                Ok(Struct(StructState::Signal { ser: self }))
            }
            Magic::FullObject => {
                if !self.opts.full_objects {
                    return Err(Error::new(ErrorKind::FullObjectsDisabled));
                }
                self.header(VariantType::Object, 0)?;
                Ok(Struct(StructState::FullObject { ser: self }))
            }
            _ => self.begin_struct(len, 0),
        }
    }
}

/// The compound for sequences, tuples and (in Array form) structs.
pub struct Seq<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    len: Option<usize>,
    count_pos: Option<usize>,
    count: usize,
    check: Option<VariantType>,
    levels: u8,
}

impl Seq<'_, '_> {
    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.count += 1;
        match self.check {
            None => value.serialize(&mut *self.ser),
            Some(expected) => {
                let start = self.ser.out.len();
                value.serialize(&mut *self.ser)?;
                self.ser.verify_element(start, expected)
            }
        }
    }

    #[inline]
    fn end_seq(self) -> Result<()> {
        self.ser.finish(self.count_pos, self.len, self.count, self.levels)
    }
}

/// Implements serde's compound traits for a type by forwarding to its inherent methods.
macro_rules! compound {
    ($ty:ty, $element:ident, $end:ident: $($trait:ident $method:ident,)*) => {$(
        impl ser::$trait for $ty {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.$element(value)
            }

            #[inline]
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

            #[inline]
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.$field(key, value)
            }

            #[inline]
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
    len: Option<usize>,
    count_pos: Option<usize>,
    count: usize,
    key_check: Option<VariantType>,
    value_check: Option<VariantType>,
    levels: u8,
}

impl Map<'_, '_> {
    #[inline]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.count += 1;
        self.ser.string(key)?;
        value.serialize(&mut *self.ser)
    }

    #[inline]
    fn end_map(self) -> Result<()> {
        self.ser.finish(self.count_pos, self.len, self.count, self.levels)
    }
}

impl ser::SerializeMap for Map<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.count += 1;
        let start = self.ser.out.len();
        key.serialize(&mut *self.ser)?;
        if let Some(expected) = self.key_check {
            self.ser.verify_element(start, expected)?;
        }
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let start = self.ser.out.len();
        value.serialize(&mut *self.ser)?;
        if let Some(expected) = self.value_check {
            self.ser.verify_element(start, expected)?;
        }
        Ok(())
    }

    fn end(self) -> Result<()> {
        self.end_map()
    }
}

/// The compound for structs: a Dictionary or Array of fields, or one of Godot's own struct-like
/// types written in its exact layout.
pub struct Struct<'s, 'a>(StructState<'s, 'a>);

enum StructState<'s, 'a> {
    Dict(Map<'s, 'a>),
    Array(Seq<'s, 'a>),
    /// A math type: its components written raw; `end` is where its payload must end.
    Raw {
        ser: &'s mut Serializer<'a>,
        end: usize,
        ty: VariantType,
    },
    NodePath {
        ser: &'s mut Serializer<'a>,
        head: usize,
        absolute: bool,
        names: u32,
        subnames: u32,
    },
    Signal {
        ser: &'s mut Serializer<'a>,
    },
    FullObject {
        ser: &'s mut Serializer<'a>,
    },
}

impl Struct<'_, '_> {
    #[inline]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        match &mut self.0 {
            StructState::Dict(map) => map.field(key, value),
            StructState::Array(seq) => seq.element(value),
            StructState::Raw { ser, .. } => value.serialize(Raw::new(ser.out, Accept::MATH)),
            StructState::NodePath { ser, absolute, names, subnames, .. } => match key {
                "absolute" => {
                    *absolute = value.serialize(BoolCapture)?;
                    Ok(())
                }
                "names" => {
                    *names = value.serialize(StrList { out: ser.out, max: ser.opts.max_len })?;
                    Ok(())
                }
                "subnames" => {
                    *subnames = value.serialize(StrList { out: ser.out, max: ser.opts.max_len })?;
                    Ok(())
                }
                _ => Err(unexpected("a NodePath field")),
            },
            StructState::Signal { ser } => match key {
                "name" => value.serialize(Raw::new(ser.out, Accept::STR)),
                "object" => value.serialize(Raw::new(ser.out, Accept::U64)),
                _ => Err(unexpected("a Signal field")),
            },
            StructState::FullObject { ser } => match key {
                "class" => value.serialize(Raw::new(ser.out, Accept::STR)),
                "properties" => value.serialize(Props { ser }),
                _ => Err(unexpected("a full object field")),
            },
        }
    }

    fn end_struct(self) -> Result<()> {
        match self.0 {
            StructState::Dict(map) => map.end_map(),
            StructState::Array(seq) => seq.end_seq(),
            StructState::Raw { ser, end, ty } => {
                if ser.out.len() == end {
                    Ok(())
                } else {
                    Err(Error::new(ErrorKind::Message(format!("malformed {} components", ty.name()))))
                }
            }
            StructState::NodePath { ser, head, absolute, names, subnames } => {
                let mut words = [0u8; 12];
                words[..4].copy_from_slice(&(names | NODE_PATH_NEW_FORMAT).to_le_bytes());
                words[4..8].copy_from_slice(&subnames.to_le_bytes());
                words[8..].copy_from_slice(&(absolute as u32).to_le_bytes());
                ser.out[head..head + 12].copy_from_slice(&words);
                Ok(())
            }
            StructState::Signal { .. } | StructState::FullObject { .. } => Ok(()),
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
        wire::put_header(self.ser.out, self.id);
        let count_pos = self.ser.count(len)?;
        if let (Some(len), Some(size)) = (len, wire::packed_elem_size(self.ty, false)) {
            self.ser.out.reserve(len.saturating_mul(size));
        }
        let dims = match self.ty {
            VariantType::PackedVector2Array => 2,
            VariantType::PackedVector3Array => 3,
            _ => 4,
        };
        Ok(PackedSeq { ser: self.ser, ty: self.ty, len, count_pos, count: 0, dims })
    }

    reject!("a packed array"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct
        struct_variant);
}

struct PackedSeq<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    ty: VariantType,
    len: Option<usize>,
    count_pos: Option<usize>,
    count: usize,
    dims: usize,
}

impl ser::SerializeSeq for PackedSeq<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        value.serialize(PackedElem { out: self.ser.out, ty: self.ty, dims: self.dims })
    }

    fn end(self) -> Result<()> {
        self.ser.finish(self.count_pos, self.len, self.count, 0)
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
            TypedMode::Array(spec) => self.ser.begin_array(len, Some(spec)),
            TypedMode::Dict { .. } => Err(unexpected("a typed Dictionary")),
        }
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a>> {
        match self.mode {
            TypedMode::Dict { key, value } => self.ser.begin_dict(len, key, value),
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
        let count_pos = self.ser.count(len)?;
        self.ser.descend();
        Ok(PropsSeq { ser: self.ser, len, count_pos, count: 0 })
    }

    reject!("an object's properties"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant tuple tuple_struct tuple_variant map struct
        struct_variant);
}

struct PropsSeq<'s, 'a> {
    ser: &'s mut Serializer<'a>,
    len: Option<usize>,
    count_pos: Option<usize>,
    count: usize,
}

impl ser::SerializeSeq for PropsSeq<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.check_depth()?;
        self.count += 1;
        value.serialize(Prop { ser: self.ser, done: 0 })
    }

    fn end(self) -> Result<()> {
        self.ser.finish(self.count_pos, self.len, self.count, 1)
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
            1 => value.serialize(Raw::new(self.ser.out, Accept::STR)),
            2 => value.serialize(&mut *self.ser),
            _ => Err(unexpected("an object property")),
        }
    }

    fn end(self) -> Result<()> {
        if self.done == 2 { Ok(()) } else { Err(unexpected("an object property")) }
    }
}
