//! This crate's own types on store (math types, colors, uuids, enums, transforms, `any`, raw JSON):
//! their zero values, how they compare with their defaults, and [`Collect`], which reads their
//! canonical content (floats or text).

use std::sync::OnceLock;

use serde_core::ser::{self, Serialize};

use super::store::{Ctx, Def, Serializer, rejected, write_number};
use super::tree::{DNode, NativeVal};
use crate::channel;
use crate::error::{Error, Result};
use crate::fmt::write_str;
use crate::markers::NATIVE;

impl<'t> Serializer<'t> {
    pub(super) fn native<T: ?Sized + Serialize>(&mut self, name: &'static str, value: &T) -> Result<()> {
        let kind = &name[NATIVE.len()..];
        let ctx = self.ctx;
        let def = self.def;
        let start = self.out.len();
        match kind {
            "Transform" | "Any" => {
                let natural_tree = natural_node(kind);
                let tree = match def {
                    Def::Fresh => Def::Tree(natural_tree),
                    // A member left out loads back from the type's own default, so without `exact`
                    // members are only left out against a default equal to it.
                    Def::Tree(DNode::Native(_, NativeVal::Node(node)))
                        if self.settings.exact || **node == *natural_tree =>
                    {
                        Def::Tree(node)
                    }
                    Def::Tree(_) | Def::Full => Def::Full,
                };
                let (is_def, _) = self.nested(value, Ctx::Member, tree)?;
                let is_def = !matches!(def, Def::Full) && is_def;
                let natural = matches!(tree, Def::Tree(n) if *n == *natural_tree) && is_def;
                self.finish_compound(start, ctx, is_def, natural);
            }
            "Enum" | "EnumZero" => {
                // The form (name, names array or integer) is written as is and compared as text.
                let (_, _) = self.nested(value, Ctx::Member, Def::Full)?;
                let natural = kind == "EnumZero";
                let is_def = match def {
                    Def::Full => false,
                    Def::Fresh => natural,
                    Def::Tree(DNode::Native(_, NativeVal::Text(text))) => self.out[start..] == *text.as_bytes(),
                    Def::Tree(_) => false,
                };
                self.finish_compound(start, ctx, is_def, natural);
            }
            "Uuid" => {
                let text = match value.serialize(Collect)? {
                    NativeVal::Text(t) => t,
                    _ => return Err(Error::store("a uuid must serialize as a string")),
                };
                let natural = text == crate::types::uuid::NIL_TEXT;
                let is_def =
                    self.is_default(natural, |n| matches!(n, DNode::Native(_, NativeVal::Text(t)) if *t == text));
                if !self.leaf(is_def, natural) {
                    write_str(&mut self.out, &text);
                } else {
                    self.out.extend_from_slice(b"{}");
                }
            }
            _ => {
                let floats = match value.serialize(Collect)? {
                    NativeVal::Floats(f) => f,
                    _ => return Err(Error::store("a math type must serialize as floats")),
                };
                let zero = match natural_node(kind) {
                    DNode::Native(_, NativeVal::Floats(z)) => z.as_slice(),
                    _ => &[],
                };
                // O3DE compares math types with `==`: exactly.
                let same = |a: &[f32], b: &[f32]| a == b;
                let natural = same(&floats, zero);
                let default: Option<&[f32]> = match def {
                    Def::Full => None,
                    Def::Fresh => Some(zero),
                    Def::Tree(DNode::Native(_, NativeVal::Floats(d))) => Some(d),
                    Def::Tree(_) => None,
                };
                let is_def = default.is_some_and(|d| same(&floats, d));
                if self.leaf(is_def, natural) {
                    self.out.extend_from_slice(b"{}");
                } else {
                    // A color leaves out an alpha equal to the default's (PartialDefaults).
                    let mut n = floats.len();
                    if kind == "Color" && n == 4 {
                        if let Some(d) = default.filter(|d| d.len() == 4) {
                            // The load keeps the alpha of the color it loads over: the type's
                            // default (zero) here, the default object's in O3DE.
                            if floats[3] == d[3] && (self.settings.exact || d[3] == zero[3]) {
                                n = 3;
                                self.omitted = true;
                            }
                        }
                    }
                    self.out.push(b'[');
                    for (i, f) in floats[..n].iter().enumerate() {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        write_number(&mut self.out, f64::from(*f));
                    }
                    self.out.push(b']');
                }
                self.is_def = is_def;
                self.natural = natural;
            }
        }
        Ok(())
    }

    pub(super) fn raw<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let text = match channel::with_raw_text(|| value.serialize(Collect))? {
            NativeVal::Text(t) => t,
            _ => return Err(Error::store("raw JSON must serialize as text")),
        };
        let is_def = self.is_default(false, |n| matches!(n, DNode::Raw(d) if **d == *text));
        self.is_def = is_def;
        self.natural = false;
        self.out.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

/// The zero value of each of this crate's types (what `{}` loads as).
pub(crate) fn natural_node(kind: &str) -> &'static DNode {
    static NODES: OnceLock<Vec<(&'static str, DNode)>> = OnceLock::new();
    let nodes = NODES.get_or_init(|| {
        let floats =
            |name: &'static str, v: Vec<f32>| (&name[NATIVE.len()..], DNode::Native(name, NativeVal::Floats(v)));
        let identity = |rows: usize, cols: usize| {
            (0..rows * cols).map(|i| if i / cols == i % cols { 1.0 } else { 0.0 }).collect::<Vec<f32>>()
        };
        vec![
            floats("$serde_o3de::Native::Vector2", vec![0.0; 2]),
            floats("$serde_o3de::Native::Vector3", vec![0.0; 3]),
            floats("$serde_o3de::Native::Vector4", vec![0.0; 4]),
            floats("$serde_o3de::Native::Color", vec![0.0; 4]),
            floats("$serde_o3de::Native::Quaternion", vec![0.0, 0.0, 0.0, 1.0]),
            floats("$serde_o3de::Native::Matrix3x3", identity(3, 3)),
            floats("$serde_o3de::Native::Matrix3x4", identity(3, 4)),
            floats("$serde_o3de::Native::Matrix4x4", identity(4, 4)),
            (
                "Transform",
                DNode::Struct(vec![
                    ("Translation", DNode::Native("$serde_o3de::Native::Vector3", NativeVal::Floats(vec![0.0; 3]))),
                    (
                        "Rotation",
                        DNode::Native("$serde_o3de::Native::Quaternion", NativeVal::Floats(vec![0.0, 0.0, 0.0, 1.0])),
                    ),
                    ("Scale", DNode::F32(1.0)),
                ]),
            ),
            ("Any", DNode::Struct(Vec::new())),
        ]
    });
    nodes.iter().find(|(k, _)| *k == kind).map_or(&DNode::Other, |(_, n)| n)
}

/// Collects the canonical content of this crate's types: floats, or a string.
pub(super) struct Collect;

/// The floats of a tuple being collected.
pub(super) struct CollectSeq(Vec<f32>);

impl ser::Serializer for Collect {
    type Ok = NativeVal;
    type Error = Error;
    type SerializeSeq = CollectSeq;
    type SerializeTuple = CollectSeq;
    type SerializeTupleStruct = CollectSeq;
    type SerializeTupleVariant = ser::Impossible<NativeVal, Error>;
    type SerializeMap = ser::Impossible<NativeVal, Error>;
    type SerializeStruct = ser::Impossible<NativeVal, Error>;
    type SerializeStructVariant = ser::Impossible<NativeVal, Error>;

    fn serialize_f32(self, v: f32) -> Result<NativeVal> {
        Ok(NativeVal::Floats(vec![v]))
    }

    fn serialize_f64(self, v: f64) -> Result<NativeVal> {
        Ok(NativeVal::Floats(vec![v as f32]))
    }

    fn serialize_str(self, v: &str) -> Result<NativeVal> {
        Ok(NativeVal::Text(v.to_owned()))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<NativeVal> {
        value.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<CollectSeq> {
        Ok(CollectSeq(Vec::with_capacity(len.unwrap_or(0).min(16))))
    }

    fn serialize_tuple(self, len: usize) -> Result<CollectSeq> {
        Ok(CollectSeq(Vec::with_capacity(len.min(16))))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<CollectSeq> {
        Ok(CollectSeq(Vec::with_capacity(len.min(16))))
    }

    reject! { rejected();
        bool i8 i16 i32 i64 u8 u16 u32 u64 char bytes none some unit unit_struct unit_variant
        newtype_variant tuple_variant map struct struct_variant
    }
}

impl CollectSeq {
    pub(super) fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match value.serialize(Collect)? {
            NativeVal::Floats(f) => {
                self.0.extend(f);
                Ok(())
            }
            _ => Err(Error::store("expected a float")),
        }
    }
}

element_wise!(CollectSeq, NativeVal, |s: CollectSeq| NativeVal::Floats(s.0);
    SerializeSeq::serialize_element, SerializeTuple::serialize_element, SerializeTupleStruct::serialize_field);
