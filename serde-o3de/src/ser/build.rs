//! The default object as a tree ([`DNode`]): built once per store by serializing the default value
//! with [`TreeSer`], so that the store compares each value with the matching part.

use serde_core::ser::{self, Serialize};

use super::native::Collect;
use super::store::{Serializer, StoreSettings, rejected};
use super::tree::{DNode, NativeVal};
use crate::channel::{self, Want};
use crate::error::{Error, Result};
use crate::markers::{ELEMENTS, NATIVE, POLY, RAW, UNORDERED};

/// Runs `f` (building a default tree) without asking for element or class defaults.
pub(super) fn without_requests<R>(f: impl FnOnce() -> R) -> R {
    channel::with(Want::ElementDefaults, false, || channel::with(Want::PolyDefaults, false, f))
}

/// `serialize_*` methods of [`TreeSer`] for integers.
macro_rules! tree_ints {
    ($($method:ident $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<DNode> {
            Ok(DNode::Int(v.into()))
        }
    )*};
}

/// Builds the [`DNode`] tree of a default object.
pub(crate) struct TreeSer;

/// Elements of a tuple, fields of a struct, or entries of a `$type` map being built.
pub(crate) struct TreeCompound {
    pub(super) items: Vec<DNode>,
    pub(super) fields: Vec<(&'static str, DNode)>,
    pub(super) poly: Vec<(Box<str>, DNode)>,
    pub(super) poly_type: Option<Box<str>>,
    pub(super) key: Option<String>,
    pub(super) variant: Option<u32>,
    pub(super) count: usize,
    pub(super) mode: TreeMode,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TreeMode {
    Container,
    Tuple,
    Struct,
    Poly,
}

impl TreeCompound {
    pub(super) fn new(mode: TreeMode, variant: Option<u32>) -> Self {
        TreeCompound {
            items: Vec::new(),
            fields: Vec::new(),
            poly: Vec::new(),
            poly_type: None,
            key: None,
            variant,
            count: 0,
            mode,
        }
    }

    pub(super) fn finish(self) -> DNode {
        let node = match self.mode {
            TreeMode::Container => DNode::Container(self.count == 0),
            TreeMode::Tuple => DNode::Tuple(self.items),
            TreeMode::Struct => DNode::Struct(self.fields),
            TreeMode::Poly => DNode::Poly(self.poly_type, self.poly),
        };
        match self.variant {
            Some(i) => DNode::Variant(i, Box::new(node)),
            None => node,
        }
    }
}

impl ser::Serializer for TreeSer {
    type Ok = DNode;
    type Error = Error;
    type SerializeSeq = TreeCompound;
    type SerializeTuple = TreeCompound;
    type SerializeTupleStruct = TreeCompound;
    type SerializeTupleVariant = TreeCompound;
    type SerializeMap = TreeCompound;
    type SerializeStruct = TreeCompound;
    type SerializeStructVariant = TreeCompound;

    fn serialize_bool(self, v: bool) -> Result<DNode> {
        Ok(DNode::Bool(v))
    }
    tree_ints!(serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64, serialize_i128 i128,
        serialize_u8 u8, serialize_u16 u16, serialize_u32 u32, serialize_u64 u64);
    fn serialize_u128(self, v: u128) -> Result<DNode> {
        Ok(i128::try_from(v).map_or(DNode::U128(v), DNode::Int))
    }
    fn serialize_f32(self, v: f32) -> Result<DNode> {
        Ok(DNode::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<DNode> {
        Ok(DNode::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<DNode> {
        Ok(DNode::Char(v))
    }
    fn serialize_str(self, v: &str) -> Result<DNode> {
        Ok(DNode::Str(v.into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<DNode> {
        Ok(DNode::Bytes(v.into()))
    }
    fn serialize_none(self) -> Result<DNode> {
        Ok(DNode::None)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<DNode> {
        Ok(DNode::Some(Box::new(value.serialize(TreeSer)?)))
    }
    fn serialize_unit(self) -> Result<DNode> {
        Ok(DNode::Unit)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<DNode> {
        Ok(DNode::Unit)
    }
    fn serialize_unit_variant(self, _name: &'static str, index: u32, _variant: &'static str) -> Result<DNode> {
        Ok(DNode::Variant(index, Box::new(DNode::Unit)))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> Result<DNode> {
        if let Some(kind) = name.strip_prefix(NATIVE) {
            return Ok(match kind {
                "Transform" | "Any" => DNode::Native(name, NativeVal::Node(Box::new(value.serialize(TreeSer)?))),
                "Enum" | "EnumZero" => {
                    let mut ser = Serializer::with(
                        None,
                        StoreSettings { keep_defaults: true, sort_maps: false, exact: false },
                        Vec::new(),
                    );
                    value.serialize(&mut ser)?;
                    DNode::Native(name, NativeVal::Text(ser.into_string()))
                }
                _ => DNode::Native(name, value.serialize(Collect)?),
            });
        }
        if name == RAW {
            return match channel::with_raw_text(|| value.serialize(Collect))? {
                NativeVal::Text(t) => Ok(DNode::Raw(t.into())),
                _ => Ok(DNode::Other),
            };
        }
        if name == POLY {
            return without_requests(|| value.serialize(TreePoly));
        }
        if name == ELEMENTS || name == UNORDERED {
            return without_requests(|| value.serialize(TreeSer));
        }
        value.serialize(TreeSer)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Result<DNode> {
        Ok(DNode::Variant(index, Box::new(value.serialize(TreeSer)?)))
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Container, None))
    }
    fn serialize_tuple(self, _len: usize) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Tuple, None))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Tuple, None))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Tuple, Some(index)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Container, None))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Struct, None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Struct, Some(index)))
    }
}

/// Receives the map of a default `$type` value.
pub(super) struct TreePoly;

impl ser::Serializer for TreePoly {
    type Ok = DNode;
    type Error = Error;
    type SerializeSeq = ser::Impossible<DNode, Error>;
    type SerializeTuple = ser::Impossible<DNode, Error>;
    type SerializeTupleStruct = ser::Impossible<DNode, Error>;
    type SerializeTupleVariant = ser::Impossible<DNode, Error>;
    type SerializeMap = TreeCompound;
    type SerializeStruct = ser::Impossible<DNode, Error>;
    type SerializeStructVariant = ser::Impossible<DNode, Error>;

    fn serialize_map(self, _len: Option<usize>) -> Result<TreeCompound> {
        Ok(TreeCompound::new(TreeMode::Poly, None))
    }

    reject! { rejected();
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str bytes none some unit unit_struct unit_variant
        newtype_struct newtype_variant seq tuple tuple_struct tuple_variant struct struct_variant
    }
}

impl TreeCompound {
    /// An element: a sequence only counts it, a tuple keeps its default.
    pub(super) fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        if self.mode == TreeMode::Tuple {
            self.items.push(value.serialize(TreeSer)?);
        }
        Ok(())
    }
}

element_wise!(TreeCompound, DNode, TreeCompound::finish;
    SerializeSeq::serialize_element, SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);

impl ser::SerializeMap for TreeCompound {
    type Ok = DNode;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        if self.mode == TreeMode::Poly {
            if let NativeVal::Text(k) = key.serialize(Collect)? {
                self.key = Some(k);
            }
        }
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        if self.mode == TreeMode::Poly {
            let key = self.key.take().unwrap_or_default();
            if key == "$type" {
                if let NativeVal::Text(t) = value.serialize(Collect)? {
                    self.poly_type = Some(t.into());
                }
            } else {
                self.poly.push((key.into(), value.serialize(TreeSer)?));
            }
        }
        Ok(())
    }
    fn end(self) -> Result<DNode> {
        Ok(self.finish())
    }
}

impl TreeCompound {
    pub(super) fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.fields.push((key, value.serialize(TreeSer)?));
        Ok(())
    }
}

impl ser::SerializeStruct for TreeCompound {
    type Ok = DNode;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<DNode> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for TreeCompound {
    type Ok = DNode;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<DNode> {
        Ok(self.finish())
    }
}

/// The default tree of a value.
pub(crate) fn default_tree<T: ?Sized + Serialize>(default: &T) -> Result<DNode> {
    default.serialize(TreeSer)
}
