//! Godot 4.x typed containers (`Array[int]`, `Dictionary[String, Node]`): the typed headers, and
//! the check that every element has the declared type.

use serde_core::ser::{self, Impossible, Serialize};

use super::compound::{Map, Seq};
use super::macros::{reject, unexpected};
use super::payload::StrCapture;
use super::writer::{NO_CHECK, Output, Serializer};
use crate::error::{Error, Result};
use crate::magic::{self, Magic};
use crate::wire::{self, KIND_BUILTIN, KIND_CLASS_NAME, KIND_SCRIPT};
use crate::{ContainerType, VariantType};

impl<'a, O: Output> Serializer<'a, O> {
    fn typed<'x>(&self, spec: Option<TypeSpec<'x>>) -> Option<TypeSpec<'x>> {
        if self.opts.typed_containers && self.godot4() { spec } else { None }
    }

    fn put_type_spec(&mut self, spec: &TypeSpec<'_>) -> Result<()> {
        match spec {
            TypeSpec::Builtin(ty) => {
                let id = self.id(*ty)?;
                self.out.put(&id.to_le_bytes());
                Ok(())
            }
            TypeSpec::ClassName(name) | TypeSpec::Script(name) => wire::put_str_body(&mut self.out, name.as_bytes()),
        }
    }

    /// Starts an ARRAY with a typed-container header (when enabled).
    #[cold]
    fn begin_typed_array(&mut self, len: Option<usize>, spec: TypeSpec<'_>) -> Result<Seq<'_, 'a, O>> {
        let Some(spec) = self.typed(Some(spec)) else { return self.begin_array(len) };
        let header = self.array() | spec.kind() << 16;
        wire::put_header(&mut self.out, header);
        self.put_type_spec(&spec)?;
        let mut open = self.open_count(len)?;
        open.check[0] = spec.variant_type() as u8;
        Ok(Seq { ser: self, open })
    }

    /// Starts a DICTIONARY with typed-container headers (when enabled).
    #[cold]
    fn begin_typed_dict(
        &mut self,
        len: Option<usize>,
        key: Option<TypeSpec<'_>>,
        value: Option<TypeSpec<'_>>,
    ) -> Result<Map<'_, 'a, O>> {
        let key = self.typed(key);
        let value = self.typed(value);
        if key.is_none() && value.is_none() {
            return self.begin_dict(len);
        }
        let kinds = key.as_ref().map_or(0, TypeSpec::kind) << 16 | value.as_ref().map_or(0, TypeSpec::kind) << 18;
        let header = self.dict() | kinds;
        wire::put_header(&mut self.out, header);
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
}

/// A typed-container element type while encoding.
#[derive(Clone, Debug)]
pub(super) enum TypeSpec<'x> {
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

/// How a typed container is being written.
enum TypedMode<'x> {
    Array(TypeSpec<'x>),
    Dict { key: Option<TypeSpec<'x>>, value: Option<TypeSpec<'x>> },
}

/// Writes the Array or Dictionary inside a typed-container wrapper with its typed header.
pub(super) struct TypedBody<'s, 'a, 'x, O: Output> {
    ser: &'s mut Serializer<'a, O>,
    mode: TypedMode<'x>,
}

impl<'s, 'a, 'x, O: Output> TypedBody<'s, 'a, 'x, O> {
    pub(super) fn array(ser: &'s mut Serializer<'a, O>, spec: TypeSpec<'x>) -> Self {
        TypedBody { ser, mode: TypedMode::Array(spec) }
    }

    pub(super) fn dict(ser: &'s mut Serializer<'a, O>, key: Option<TypeSpec<'x>>, value: Option<TypeSpec<'x>>) -> Self {
        TypedBody { ser, mode: TypedMode::Dict { key, value } }
    }
}

impl<'s, 'a, O: Output> ser::Serializer for TypedBody<'s, 'a, '_, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'s, 'a, O>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Map<'s, 'a, O>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'s, 'a, O>> {
        match self.mode {
            TypedMode::Array(spec) => self.ser.begin_typed_array(len, spec),
            TypedMode::Dict { .. } => Err(unexpected("a typed Dictionary")),
        }
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Map<'s, 'a, O>> {
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
pub(super) struct TypedCapture<'s, 'a, O: Output> {
    pub(super) ser: &'s mut Serializer<'a, O>,
    pub(super) dict: bool,
}

impl<'s, 'a, O: Output> ser::Serializer for TypedCapture<'s, 'a, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = TypedTuple<'s, 'a, O>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_tuple(self, _: usize) -> Result<TypedTuple<'s, 'a, O>> {
        Ok(TypedTuple { ser: self.ser, dict: self.dict, descriptors: Vec::new() })
    }

    reject!("a typed container"; bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit
        unit_struct unit_variant newtype_struct newtype_variant seq tuple_struct tuple_variant map struct
        struct_variant);
}

pub(super) struct TypedTuple<'s, 'a, O: Output> {
    ser: &'s mut Serializer<'a, O>,
    dict: bool,
    descriptors: Vec<ContainerType>,
}

impl<O: Output> ser::SerializeTuple for TypedTuple<'_, '_, O> {
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
