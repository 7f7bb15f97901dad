//! Store: a serde `Serializer` that writes O3DE JSON.
//!
//! * Defaults are stripped like O3DE's store with `keepDefaults` off: a struct field equal to the
//!   matching part of the default object (`T::default()`, serialized once into a small tree) is
//!   omitted, a struct whose fields are all default is `{}`, an empty container is omitted. Inside
//!   containers, where O3DE compares with a fresh default element, values equal to their type's zero
//!   (0, `false`, `""`, an empty container, a zero vector, the identity quaternion, a nil uuid, an enum
//!   at 0) are written as `{}`; structs there are written in full because their default is unknown.
//! * `f32` is widened to `f64` and written with rapidjson's number layout; strings are escaped like
//!   rapidjson.
//! * Maps are objects when every key comes out as a string (or `{}`), otherwise arrays of
//!   `{"Key": k, "Value": v}`; with [`Options::sort_maps`](crate::Options::sort_maps) (the default)
//!   entries are sorted like O3DE sorts `unordered_map`, so `HashMap` output is deterministic.
//!
//! Output is written compactly into a buffer (maps may be rewritten once they are complete);
//! pretty output re-indents it like rapidjson's `PrettyWriter`.

use std::cmp::Ordering;
use std::sync::OnceLock;

use serde_core::ser::{self, Serialize};

use crate::channel::{self, Want};
use crate::error::{Error, Result};
use crate::fmt::{base64_encode, write_f64, write_str};
use crate::markers::{ELEMENTS, NATIVE, POLY, POLY_DEFAULT_KEY, RAW, UNORDERED};
use crate::order::compare;
use crate::report::{Outcome, ResultCode, Task};

/// O3DE's tolerance for default comparisons of floats (`IsClose(a, b, FLT_EPSILON)`).
const EPSILON: f64 = f32::EPSILON as f64;
/// ... and of doubles (`DBL_EPSILON`).
const EPSILON_F64: f64 = f64::EPSILON;

/// The default of a value, as far as the store needs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DNode {
    Unit,
    None,
    Some(Box<DNode>),
    Bool(bool),
    Int(i128),
    U128(u128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(Box<str>),
    Bytes(Box<[u8]>),
    /// A sequence or map: only whether it is empty matters.
    Container(bool),
    Tuple(Vec<DNode>),
    Struct(Vec<(&'static str, DNode)>),
    Variant(u32, Box<DNode>),
    /// One of this crate's types: its floats or its text form.
    Native(&'static str, NativeVal),
    /// A `$type` object: its type string and fields.
    Poly(Option<Box<str>>, Vec<(Box<str>, DNode)>),
    Raw(Box<str>),
    /// Something the store cannot compare (never equal).
    Other,
}

/// The canonical content of one of this crate's types.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NativeVal {
    Floats(Vec<f32>),
    Text(String),
    Node(Box<DNode>),
}

/// Which part of its parent a value is: decides omission and `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    Member,
    /// A container element, map key or value, tuple element or `Some` content: `{}` loads as the
    /// type's zero value there.
    Nested,
}

/// What the value's default is.
#[derive(Debug, Clone, Copy)]
enum Def<'t> {
    /// Unknown: write everything.
    Full,
    /// The type's zero value.
    Fresh,
    /// A known default.
    Tree(&'t DNode),
}

/// Store settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoreSettings {
    pub(crate) keep_defaults: bool,
    pub(crate) sort_maps: bool,
    /// Leave out what O3DE leaves out even where this crate's load cannot restore it (floats
    /// within epsilon of their defaults, partial colors and transforms against defaults that are
    /// not the type's own).
    pub(crate) exact: bool,
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings { keep_defaults: false, sort_maps: true, exact: false }
    }
}

/// A serde `Serializer` that writes compact O3DE JSON into a buffer.
///
/// The free functions ([`to_string`](crate::to_string), …) and [`Options`](crate::Options) drive
/// it with the default object of the value's type; built with [`Serializer::new`] it has no default
/// object, so struct fields are all written and only zero values inside containers become `{}`.
///
/// ```
/// use serde::Serialize;
/// let mut ser = serde_o3de::Serializer::new();
/// vec![0.5f32, 0.0].serialize(&mut ser)?;
/// assert_eq!(ser.into_string(), "[0.5,{}]");
/// # Ok::<(), serde_o3de::Error>(())
/// ```
pub struct Serializer<'t> {
    out: Vec<u8>,
    settings: StoreSettings,
    def: Def<'t>,
    ctx: Ctx,
    /// Whether the last value equals its default / its type's zero value.
    is_def: bool,
    natural: bool,
    omitted: bool,
    /// The default of the elements of the next container ([`crate::elements`]).
    elements: Option<&'t DNode>,
}

impl Default for Serializer<'_> {
    fn default() -> Self {
        Serializer::new()
    }
}

impl Serializer<'_> {
    /// A serializer without a default object.
    pub fn new() -> Self {
        Serializer::with(None, StoreSettings::default(), Vec::new())
    }

    /// A serializer without a default object that appends to `out` (reuse a buffer across values;
    /// get it back with [`into_inner`](Self::into_inner)).
    pub fn with_buffer(out: Vec<u8>) -> Self {
        Serializer::with(None, StoreSettings::default(), out)
    }

    /// Writes every value, even where it equals its default (`keepDefaults`).
    pub fn keep_defaults(&mut self, keep: bool) -> &mut Self {
        self.settings.keep_defaults = keep;
        self
    }

    /// Sorts map entries in O3DE's JSON order (on by default).
    pub fn sort_maps(&mut self, sort: bool) -> &mut Self {
        self.settings.sort_maps = sort;
        self
    }

    /// The output so far.
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }

    /// The output so far, as a string.
    pub fn into_string(self) -> String {
        String::from_utf8(self.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

impl<'t> Serializer<'t> {
    pub(crate) fn with(tree: Option<&'t DNode>, settings: StoreSettings, out: Vec<u8>) -> Self {
        Serializer {
            out,
            settings,
            def: tree.map_or(Def::Full, Def::Tree),
            ctx: Ctx::Root,
            is_def: false,
            natural: false,
            omitted: false,
            elements: None,
        }
    }

    /// The store result: DefaultsUsed when the value equals its default, PartialDefaults when
    /// something was left out, Success otherwise.
    pub(crate) fn result(&self) -> ResultCode {
        let outcome = if self.is_def {
            Outcome::DefaultsUsed
        } else if self.omitted {
            Outcome::PartialDefaults
        } else {
            Outcome::Success
        };
        ResultCode::new(Task::WriteValue, outcome)
    }

    /// Records the flags of a leaf; returns whether `{}` replaces it.
    #[inline]
    fn leaf(&mut self, is_def: bool, natural: bool) -> bool {
        self.is_def = is_def;
        self.natural = natural;
        !self.settings.keep_defaults
            && match self.ctx {
                Ctx::Member => false,
                Ctx::Root => is_def,
                Ctx::Nested => natural,
            }
    }

    #[inline]
    fn is_default(&self, natural: bool, eq: impl FnOnce(&DNode) -> bool) -> bool {
        match self.def {
            Def::Full => false,
            Def::Fresh => natural,
            Def::Tree(node) => eq(node),
        }
    }

    fn int(&mut self, v: i128) -> Result<()> {
        let natural = v == 0;
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Int(d) if *d == v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else if let Ok(i) = i64::try_from(v) {
            self.out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
        } else if let Ok(u) = u64::try_from(v) {
            self.out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes());
        } else {
            // Beyond 64 bits JSON numbers lose precision in O3DE (rapidjson); write the exact text.
            write_str(&mut self.out, itoa::Buffer::new().format(v));
        }
        Ok(())
    }

    fn float(&mut self, v: f64, epsilon: f64, node_eq: impl FnOnce(&DNode) -> bool) -> Result<()> {
        let natural = same_float(v, 0.0, epsilon);
        let is_def = self.is_default(natural, node_eq);
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_number(&mut self.out, v);
        }
        Ok(())
    }

    /// Serializes `value` with the given context and default; returns (is_def, natural).
    #[inline]
    fn nested<T: ?Sized + Serialize>(&mut self, value: &T, ctx: Ctx, def: Def<'t>) -> Result<(bool, bool)> {
        self.ctx = ctx;
        self.def = def;
        value.serialize(&mut *self)?;
        Ok((self.is_def, self.natural))
    }

    /// Finishes a compound value whose zero-ness is known: replaces it with `{}` where that is
    /// how O3DE writes it.
    fn finish_compound(&mut self, start: usize, ctx: Ctx, is_def: bool, natural: bool) {
        self.ctx = ctx;
        if self.leaf(is_def, natural) && self.out[start..] != *b"{}" {
            self.out.truncate(start);
            self.out.extend_from_slice(b"{}");
        }
        self.is_def = is_def;
        self.natural = natural;
    }

    fn native<T: ?Sized + Serialize>(&mut self, name: &'static str, value: &T) -> Result<()> {
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

    fn raw<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
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

/// Whether a float equals its default: within `epsilon` (O3DE's `IsClose`), or with a zero epsilon
/// exactly, including the sign of zero (so that what is left out loads back bit for bit).
fn same_float(a: f64, b: f64, epsilon: f64) -> bool {
    if epsilon > 0.0 { (a - b).abs() <= epsilon } else { a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) }
}

/// Runs `f` (building a default tree) without asking for element or class defaults.
fn without_requests<R>(f: impl FnOnce() -> R) -> R {
    channel::with(Want::ElementDefaults, false, || channel::with(Want::PolyDefaults, false, f))
}

/// The error of a helper serializer given a shape it does not take.
pub(crate) fn rejected() -> Error {
    Error::store("this crate's types serialize only as their documented forms")
}

/// Writes a number: rapidjson's layout for finite values, `"NaN"`, `"Infinity"`, `"-Infinity"`
/// otherwise (JSON has no such numbers; O3DE's `strtod` reads these strings back).
fn write_number(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        write_f64(out, v);
    } else if v.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if v > 0.0 {
        out.extend_from_slice(b"\"Infinity\"");
    } else {
        out.extend_from_slice(b"\"-Infinity\"");
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

impl<'a, 't> ser::Serializer for &'a mut Serializer<'t> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a, 't>;
    type SerializeTuple = Tuple<'a, 't>;
    type SerializeTupleStruct = Tuple<'a, 't>;
    type SerializeTupleVariant = Variant<'t, Tuple<'a, 't>>;
    type SerializeMap = Map<'a, 't>;
    type SerializeStruct = Struct<'a, 't>;
    type SerializeStructVariant = Variant<'t, Struct<'a, 't>>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        let is_def = self.is_default(!v, |n| matches!(n, DNode::Bool(d) if *d == v));
        if self.leaf(is_def, !v) {
            self.out.extend_from_slice(b"{}");
        } else {
            self.out.extend_from_slice(if v { b"true" } else { b"false" });
        }
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i32(self, v: i32) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.int(v)
    }

    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.int(i128::from(v))
    }

    fn serialize_u128(self, v: u128) -> Result<()> {
        match i128::try_from(v) {
            Ok(i) => self.int(i),
            Err(_) => {
                let is_def = self.is_default(false, |n| matches!(n, DNode::U128(d) if *d == v));
                self.leaf(is_def, false);
                write_str(&mut self.out, itoa::Buffer::new().format(v));
                Ok(())
            }
        }
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        let wide = f64::from(v);
        let eps = if self.settings.exact { EPSILON } else { 0.0 };
        self.float(wide, eps, |n| match n {
            DNode::F32(d) => same_float(wide, f64::from(*d), eps),
            DNode::F64(d) => same_float(wide, *d, eps),
            _ => false,
        })
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        let eps = if self.settings.exact { EPSILON_F64 } else { 0.0 };
        self.float(v, eps, |n| match n {
            DNode::F64(d) => same_float(v, *d, eps),
            DNode::F32(d) => same_float(v, f64::from(*d), eps),
            _ => false,
        })
    }

    fn serialize_char(self, v: char) -> Result<()> {
        let natural = v == '\0';
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Char(d) if *d == v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_str(&mut self.out, v.encode_utf8(&mut [0; 4]));
        }
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        let natural = v.is_empty();
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Str(d) if **d == *v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_str(&mut self.out, v);
        }
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let natural = v.is_empty();
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Bytes(d) if **d == *v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_str(&mut self.out, &base64_encode(v));
        }
        Ok(())
    }

    fn serialize_none(self) -> Result<()> {
        let is_def = self.is_default(true, |n| matches!(n, DNode::None));
        self.leaf(is_def, true);
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        let (ctx, def) = (self.ctx, self.def);
        let inner = match def {
            Def::Tree(DNode::Some(d)) => Def::Tree(d),
            Def::Tree(_) | Def::Fresh => Def::Fresh,
            Def::Full => Def::Full,
        };
        let (is_def, _) = self.nested(value, Ctx::Nested, inner)?;
        self.ctx = ctx;
        self.is_def = is_def && matches!(def, Def::Tree(DNode::Some(_)));
        self.natural = false;
        Ok(())
    }

    fn serialize_unit(self) -> Result<()> {
        let is_def = self.is_default(true, |n| matches!(n, DNode::Unit));
        self.leaf(is_def, true);
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _name: &'static str, index: u32, variant: &'static str) -> Result<()> {
        let is_def = self.is_default(false, |n| matches!(n, DNode::Variant(i, _) if *i == index));
        self.leaf(is_def, false);
        write_str(&mut self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> Result<()> {
        if name.starts_with(NATIVE) {
            return self.native(name, value);
        }
        if name == RAW {
            return self.raw(value);
        }
        if name == POLY {
            return self.poly(value);
        }
        if name == ELEMENTS {
            return channel::with(Want::ElementDefaults, true, || {
                value.serialize(ElementsSplitter { ser: self, default: None })
            });
        }
        if name == UNORDERED {
            let start = self.out.len();
            value.serialize(&mut *self)?;
            if self.out.get(start) == Some(&b'[') {
                sort_array(&mut self.out, start)?;
            }
            return Ok(());
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let (ctx, def) = (self.ctx, self.def);
        let inner = match def {
            Def::Tree(DNode::Variant(i, d)) if *i == index => Def::Tree(d),
            _ => Def::Full,
        };
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
        let (is_def, _) = self.nested(value, Ctx::Nested, inner)?;
        self.out.push(b'}');
        self.ctx = ctx;
        self.is_def = is_def && matches!(inner, Def::Tree(_));
        self.natural = false;
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        let elements = self.elements.take().map_or(Def::Fresh, Def::Tree);
        let start = self.out.len();
        self.out.push(b'[');
        Ok(Seq { ser: self, start, ctx, def, elements, count: 0 })
    }

    fn serialize_tuple(self, _len: usize) -> Result<Tuple<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        let start = self.out.len();
        self.out.push(b'[');
        Ok(Tuple { ser: self, start, ctx, def, index: 0, all_def: true, all_natural: true })
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Tuple<'a, 't>> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'t, Tuple<'a, 't>>> {
        let (ctx, def) = self.open_variant(index, variant);
        let inner = self.serialize_tuple(len)?;
        Ok(Variant { inner, ctx, def, index })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        let values = self.elements.take().map_or(Def::Fresh, Def::Tree);
        let start = self.out.len();
        self.out.push(b'{');
        Ok(Map {
            ser: self,
            start,
            ctx,
            def,
            count: 0,
            array: false,
            sorted: true,
            previous_key: (0, 0),
            default_keys: Vec::new(),
            entry_start: 0,
            values,
        })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Struct<'a, 't>> {
        let (ctx, def) = (self.ctx, self.def);
        self.out.push(b'{');
        let fields = match def {
            Def::Tree(DNode::Struct(fields)) => Some(fields.as_slice()),
            _ => None,
        };
        Ok(Struct { ser: self, ctx, def, fields, cursor: 0, first: true, all_def: true })
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'t, Struct<'a, 't>>> {
        let (ctx, def) = self.open_variant(index, variant);
        let inner = self.serialize_struct(variant, len)?;
        Ok(Variant { inner, ctx, def, index })
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

impl<'t> Serializer<'t> {
    /// Writes `{"Variant":` and sets the payload's default; returns the outer context and default.
    fn open_variant(&mut self, index: u32, variant: &'static str) -> (Ctx, Def<'t>) {
        let (ctx, def) = (self.ctx, self.def);
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
        self.ctx = Ctx::Nested;
        self.def = match def {
            Def::Tree(DNode::Variant(i, d)) if *i == index => Def::Tree(d),
            _ => Def::Full,
        };
        (ctx, def)
    }

    /// A `$type` object: `$type` first, then the fields of the type, compared with the default's
    /// fields when the default has the same type.
    fn poly<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let (ctx, def) = (self.ctx, self.def);
        let start = self.out.len();
        self.ctx = Ctx::Member;
        self.def = def;
        channel::with(Want::PolyDefaults, true, || value.serialize(PolyWriter { ser: &mut *self }))?;
        let is_def = self.is_def;
        self.finish_compound(start, ctx, is_def && !matches!(def, Def::Full), false);
        Ok(())
    }
}

/// A sequence.
pub struct Seq<'a, 't> {
    ser: &'a mut Serializer<'t>,
    start: usize,
    ctx: Ctx,
    def: Def<'t>,
    /// The default of every element: its type's zero value, or the default from [`crate::elements`].
    elements: Def<'t>,
    count: usize,
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
    ser: &'a mut Serializer<'t>,
    start: usize,
    ctx: Ctx,
    def: Def<'t>,
    index: usize,
    all_def: bool,
    all_natural: bool,
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
    ser: &'a mut Serializer<'t>,
    ctx: Ctx,
    def: Def<'t>,
    fields: Option<&'t [(&'static str, DNode)]>,
    cursor: usize,
    first: bool,
    all_def: bool,
}

impl<'t> Struct<'_, 't> {
    #[inline]
    fn field_default(&mut self, key: &'static str) -> Def<'t> {
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
    inner: C,
    ctx: Ctx,
    def: Def<'t>,
    index: u32,
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

fn finish_tuple_variant<'a, 't>(t: Tuple<'a, 't>) -> Result<&'a mut Serializer<'t>> {
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
    ser: &'a mut Serializer<'t>,
    start: usize,
    ctx: Ctx,
    def: Def<'t>,
    count: usize,
    array: bool,
    sorted: bool,
    previous_key: (usize, usize),
    /// Indices of entries whose key was written as `{}` (the member name `"{}"`).
    default_keys: Vec<usize>,
    entry_start: usize,
    /// The default of every value.
    values: Def<'t>,
}

impl Map<'_, '_> {
    /// Rewrites the object written so far as an array of `{"Key": k, "Value": v}`.
    fn convert_to_array(&mut self) -> Result<()> {
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

/// Compares two written object keys (JSON string tokens) by their unescaped bytes.
fn compare_keys(a: &[u8], b: &[u8]) -> Ordering {
    if !a.contains(&b'\\') && !b.contains(&b'\\') {
        return a.cmp(b);
    }
    let unescape = |t: &[u8]| serde_json::from_slice::<String>(t).unwrap_or_default();
    unescape(a).cmp(&unescape(b))
}

/// Splits the members of a compact object `{"k":v,...}` (or of its prefix without the closing
/// brace) into key and value spans.
fn split_object(text: &[u8]) -> Result<Vec<(&[u8], &[u8])>> {
    let mut entries = Vec::new();
    let mut i = 1;
    while i < text.len() && text[i] != b'}' {
        if text[i] == b',' {
            i += 1;
        }
        let key_start = i;
        i = skip_json(text, i)?;
        let key = &text[key_start..i];
        i += 1; // ':'
        let value_start = i;
        i = skip_json(text, i)?;
        entries.push((key, &text[value_start..i]));
    }
    Ok(entries)
}

/// Splits the elements of a compact array.
fn split_array(text: &[u8]) -> Result<Vec<&[u8]>> {
    let mut items = Vec::new();
    let mut i = 1;
    while i < text.len() && text[i] != b']' {
        if text[i] == b',' {
            i += 1;
        }
        let start = i;
        i = skip_json(text, i)?;
        items.push(&text[start..i]);
    }
    Ok(items)
}

/// The end of the compact JSON value starting at `i`.
fn skip_json(text: &[u8], mut i: usize) -> Result<usize> {
    let mut depth = 0usize;
    loop {
        let Some(&b) = text.get(i) else {
            return Err(Error::store("internal: truncated JSON while sorting a map"));
        };
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = text.get(i) {
                    match c {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
                continue;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' | b':' if depth > 0 => {
                i += 1;
                continue;
            }
            _ => {
                while text.get(i).is_some_and(|c| !matches!(c, b',' | b':' | b'}' | b']')) {
                    i += 1;
                }
            }
        }
        if depth == 0 {
            return Ok(i);
        }
    }
}

/// Sorts the members of the object written from `start` by key.
fn sort_object_map(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let region = out.split_off(start);
    let mut entries = split_object(&region)?;
    entries.sort_by(|a, b| compare_keys(a.0, b.0).then_with(|| compare_text(a.1, b.1)));
    out.push(b'{');
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(k);
        out.push(b':');
        out.extend_from_slice(v);
    }
    out.push(b'}');
    Ok(())
}

/// Sorts the Key/Value entries of the array written from `start` by key, then value.
fn sort_array_map(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let region = out.split_off(start);
    let items = split_array(&region)?;
    let mut parsed = Vec::with_capacity(items.len());
    for item in items {
        let entry = split_object(item)?;
        let get = |name: &[u8]| entry.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).unwrap_or(b"{}");
        let key = serde_json::from_slice(get(b"\"Key\"")).unwrap_or(serde_json::Value::Null);
        let value = serde_json::from_slice(get(b"\"Value\"")).unwrap_or(serde_json::Value::Null);
        parsed.push((key, value, item));
    }
    parsed.sort_by(|a, b| compare(&a.0, &b.0).then_with(|| compare(&a.1, &b.1)));
    out.push(b'[');
    for (i, (_, _, item)) in parsed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    Ok(())
}

/// Sorts the elements of the array written from `start` in O3DE's JSON order.
fn sort_array(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let region = out.split_off(start);
    let items = split_array(&region)?;
    let mut parsed: Vec<(serde_json::Value, &[u8])> =
        items.into_iter().map(|item| (serde_json::from_slice(item).unwrap_or(serde_json::Value::Null), item)).collect();
    parsed.sort_by(|a, b| compare(&a.0, &b.0));
    out.push(b'[');
    for (i, (_, item)) in parsed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    Ok(())
}

fn compare_text(a: &[u8], b: &[u8]) -> Ordering {
    let parse = |t: &[u8]| serde_json::from_slice(t).unwrap_or(serde_json::Value::Null);
    compare(&parse(a), &parse(b))
}

/// Receives `(default element, container)` from [`crate::elements`]: builds the element default's
/// tree, then writes the container with it.
struct ElementsSplitter<'a, 't> {
    ser: &'a mut Serializer<'t>,
    default: Option<DNode>,
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

static EMPTY: DNode = DNode::Container(true);
static NOT_EMPTY: DNode = DNode::Container(false);

/// Receives the map a `$type` value serializes as and writes it with struct semantics.
struct PolyWriter<'a, 't> {
    ser: &'a mut Serializer<'t>,
}

/// The default of a `$type` value's class: its type string and members.
type PolyDefault = (Option<Box<str>>, Vec<(Box<str>, DNode)>);

/// The map state of a `$type` value.
pub struct PolyMap<'a, 't> {
    ser: &'a mut Serializer<'t>,
    fields: Option<&'t [(Box<str>, DNode)]>,
    /// The default of the value's own class, when the default object has another class.
    own: Option<PolyDefault>,
    use_own: bool,
    first: bool,
    all_def: bool,
    key: Option<String>,
    tree: Def<'t>,
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

/// Collects the canonical content of this crate's types: floats, or a string.
struct Collect;

/// The floats of a tuple being collected.
struct CollectSeq(Vec<f32>);

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
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match value.serialize(Collect)? {
            NativeVal::Floats(f) => {
                self.0.extend(f);
                Ok(())
            }
            _ => Err(Error::store("expected a float")),
        }
    }
}

/// Implements the element-wise compound traits by forwarding every element to `push`.
macro_rules! element_wise {
    ($t:ty, $ok:ty, $finish:expr; $($tr:ident :: $method:ident),*) => {$(
        impl ser::$tr for $t {
            type Ok = $ok;
            type Error = Error;

            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }

            fn end(self) -> Result<$ok> {
                #[allow(clippy::redundant_closure_call)]
                Ok(($finish)(self))
            }
        }
    )*};
}

element_wise!(CollectSeq, NativeVal, |s: CollectSeq| NativeVal::Floats(s.0);
    SerializeSeq::serialize_element, SerializeTuple::serialize_element, SerializeTupleStruct::serialize_field);

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
    items: Vec<DNode>,
    fields: Vec<(&'static str, DNode)>,
    poly: Vec<(Box<str>, DNode)>,
    poly_type: Option<Box<str>>,
    key: Option<String>,
    variant: Option<u32>,
    count: usize,
    mode: TreeMode,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TreeMode {
    Container,
    Tuple,
    Struct,
    Poly,
}

impl TreeCompound {
    fn new(mode: TreeMode, variant: Option<u32>) -> Self {
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

    fn finish(self) -> DNode {
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
struct TreePoly;

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
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
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
    fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
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

/// Serializes `value` compactly against `default` (or none); returns the text and result code.
pub(crate) fn store<T: ?Sized + Serialize>(
    value: &T,
    default: Option<&DNode>,
    settings: StoreSettings,
    out: Vec<u8>,
) -> Result<(Vec<u8>, ResultCode)> {
    let mut ser = Serializer::with(default, settings, out);
    value.serialize(&mut ser)?;
    let result = ser.result();
    Ok((ser.out, result))
}

/// The default tree of a value.
pub(crate) fn default_tree<T: ?Sized + Serialize>(default: &T) -> Result<DNode> {
    default.serialize(TreeSer)
}
