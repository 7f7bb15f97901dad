//! Schema emission: the `.fbs` schema equivalent to a Rust type, so other languages can read lite's buffers
//! with flatc-generated code.
//!
//! [`Schema::trace`] walks the type's `Deserialize` implementation with a tracing deserializer (no value
//! needed): every table, struct, enum and union reachable from the root, every variant of every enum
//! (one pass per variant), recursion cut off at the second visit of a table through an `Option`, vector
//! or map. The schema has the slots lite uses, so `flatc` code reads lite buffers field for field.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_flatbuf_lite::{Options, Schema};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Vec3 { x: f32, y: f32, z: f32 }
//! #[derive(Serialize, Deserialize)]
//! #[repr(u8)]
//! enum Color { Red, Green, Blue }
//! #[derive(Serialize, Deserialize)]
//! struct Monster { pos: Option<Vec3>, hp: i16, name: String, inventory: Vec<u8>, color: Color }
//!
//! let schema = Schema::trace::<Monster>(&Options::new().inline_struct("Vec3"))?.namespace("MyGame");
//! let fbs = schema.to_fbs();
//! assert!(fbs.contains("struct Vec3 {\n  x:float;\n  y:float;\n  z:float;\n}"));
//! assert!(fbs.contains("enum Color : ubyte { Red = 0, Green = 1, Blue = 2 }"));
//! assert!(fbs.contains("table Monster {\n  pos:Vec3;\n  hp:short;\n  name:string;\n  inventory:[ubyte];\n  color:Color;\n}"));
//! assert!(fbs.ends_with("root_type Monster;\n"));
//! # Ok::<(), serde_flatbuf_lite::Error>(())
//! ```
//!
//! What the schema cannot know: serde defaults (`#[serde(default = "…")]`) are Rust code, so scalar
//! defaults are 0 in the schema — harmless, since lite writes every present value. Types whose
//! `Deserialize` rejects the tracer's zero values (e.g. `NonZeroU32`) cannot be traced.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_core::Deserialize;
use serde_core::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::de::Layouts;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::MAX_SLOT;
use crate::markers::{DEPRECATED, UNION_TYPE};
use crate::names::{explicit_id, field_name, has_explicit_ids, split_default};
use crate::options::Options;
use crate::plan::{self, Plan};

/// A field or element type in lite's model.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    I128,
    U128,
    String,
    Bytes,
    Vector(Box<Ty>),
    Table(String),
    Struct {
        name: String,
        size: usize,
        align: usize,
    },
    Enum(String),
    Union(String),
    Map(Box<Ty>, Box<Ty>),
    Unit(String),
    Deprecated,
    UnionTypeMarker,
    /// Not explored (recursion cut-off).
    Unknown,
}

impl Ty {
    fn scalar_name(&self) -> Option<&'static str> {
        Some(match self {
            Ty::Bool => "bool",
            Ty::I8 => "byte",
            Ty::U8 => "ubyte",
            Ty::I16 => "short",
            Ty::U16 => "ushort",
            Ty::I32 => "int",
            Ty::U32 => "uint",
            Ty::I64 => "long",
            Ty::U64 => "ulong",
            Ty::F32 => "float",
            Ty::F64 => "double",
            _ => return None,
        })
    }

    /// (size, alignment) of an inline value.
    fn inline_layout(&self) -> Option<(usize, usize)> {
        Some(match self {
            Ty::Bool | Ty::I8 | Ty::U8 | Ty::Enum(_) => (1, 1),
            Ty::I16 | Ty::U16 => (2, 2),
            Ty::I32 | Ty::U32 | Ty::F32 => (4, 4),
            Ty::I64 | Ty::U64 | Ty::F64 => (8, 8),
            Ty::I128 | Ty::U128 => (16, 8),
            Ty::Struct { size, align, .. } => (*size, *align),
            _ => return None,
        })
    }

    fn fbs(&self) -> String {
        if let Some(s) = self.scalar_name() {
            return s.to_owned();
        }
        match self {
            Ty::I128 => "Int128".into(),
            Ty::U128 => "UInt128".into(),
            Ty::String => "string".into(),
            Ty::Bytes => "[ubyte]".into(),
            Ty::Vector(e) => format!("[{}]", e.fbs()),
            Ty::Table(n) | Ty::Enum(n) | Ty::Union(n) | Ty::Unit(n) | Ty::Struct { name: n, .. } => n.clone(),
            Ty::Map(..) | Ty::Deprecated | Ty::UnionTypeMarker | Ty::Unknown => "?".into(),
            _ => unreachable!("scalars handled above"),
        }
    }

    /// A short name for synthesized struct names.
    fn short(&self) -> String {
        match self {
            Ty::Struct { name, .. } | Ty::Enum(name) => name.clone(),
            other => other.fbs(),
        }
    }
}

#[derive(Debug, Clone)]
struct FieldDef {
    name: String,
    slot: u16,
    ty: Ty,
    optional: bool,
    /// A declared schema default (`#[serde(rename = "hp=100")]`).
    default: Option<String>,
    /// The field's index in serde's field list (what the deserializer and serializer count).
    index: usize,
}

#[derive(Debug, Clone)]
enum Def {
    Table { fields: Vec<FieldDef>, key_field: bool, explicit: bool },
    Struct { members: Vec<(String, Ty)>, array: Option<(Ty, usize)> },
    Enum { variants: Vec<&'static str> },
    Union { members: Vec<(usize, String, String)> },
}

/// The FlatBuffers schema of a Rust type, as lite lays it out. Print it with [`to_fbs`](Self::to_fbs) or
/// `Display`.
#[derive(Debug, Clone)]
pub struct Schema {
    defs: Vec<(String, Def)>,
    root: String,
    namespace: Option<String>,
    file_identifier: Option<[u8; 4]>,
}

impl Schema {
    /// Traces `T`'s `Deserialize` implementation (no value needed) with the inline-struct names and file
    /// identifier of `opts`.
    pub fn trace<'de, T: Deserialize<'de>>(opts: &Options) -> Result<Schema> {
        let mut t = Tracer::new(opts);
        t.run::<T>()?;
        let root = match &t.root {
            Some(Ty::Table(name)) | Some(Ty::Unit(name)) => name.clone(),
            _ => {
                return Err(Error::unsupported(
                    "the root of a FlatBuffer must be a table (a struct with named fields)",
                ));
            }
        };
        let mut defs = Vec::new();
        for name in &t.order {
            defs.push((name.clone(), t.defs[name].clone()));
        }
        Ok(Schema { defs, root, namespace: None, file_identifier: opts.file_identifier })
    }

    /// Puts the schema in a namespace (`namespace MyGame.Sample;`).
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// The name of the root table.
    pub fn root_type(&self) -> &str {
        &self.root
    }

    /// The schema as `.fbs` text.
    pub fn to_fbs(&self) -> String {
        let mut out = String::from("// Generated by serde-flatbuf-lite from Rust types.\n");
        if let Some(ns) = &self.namespace {
            let _ = writeln!(out, "\nnamespace {ns};");
        }
        for (name, def) in &self.defs {
            out.push('\n');
            match def {
                Def::Enum { variants } => {
                    let list: Vec<String> = variants.iter().enumerate().map(|(i, v)| format!("{v} = {i}")).collect();
                    let _ = writeln!(out, "enum {name} : ubyte {{ {} }}", list.join(", "));
                }
                Def::Union { members } => {
                    let list: Vec<String> = members
                        .iter()
                        .map(
                            |(_, variant, table)| {
                                if variant == table { table.clone() } else { format!("{variant}: {table}") }
                            },
                        )
                        .collect();
                    let _ = writeln!(out, "union {name} {{ {} }}", list.join(", "));
                }
                Def::Struct { members, array } => {
                    let _ = writeln!(out, "struct {name} {{");
                    match array {
                        Some((ty, n)) => {
                            let _ = writeln!(out, "  v:[{}:{n}];", ty.fbs());
                        }
                        None => {
                            for (m, ty) in members {
                                let _ = writeln!(out, "  {m}:{};", ty.fbs());
                            }
                        }
                    }
                    out.push_str("}\n");
                }
                Def::Table { fields, key_field, .. } => {
                    let _ = writeln!(out, "table {name} {{");
                    write_table_fields(&mut out, fields, *key_field);
                    out.push_str("}\n");
                }
            }
        }
        let _ = writeln!(out, "\nroot_type {};", self.root);
        if let Some(ident) = self.file_identifier {
            let _ = writeln!(out, "file_identifier \"{}\";", ident.escape_ascii());
        }
        out
    }
}

impl std::fmt::Display for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_fbs())
    }
}

fn write_table_fields(out: &mut String, fields: &[FieldDef], key_field: bool) {
    // Would flatc's implicit numbering (a union takes two ids) give the same slots?
    let real: Vec<&FieldDef> = fields.iter().filter(|f| f.ty != Ty::UnionTypeMarker).collect();
    let mut next = 0u32;
    let mut implicit = true;
    for f in &real {
        let id = if matches!(f.ty, Ty::Union(_)) { next + 1 } else { next };
        if u32::from(f.slot) != id {
            implicit = false;
        }
        next = id + 1;
    }
    let mut used: Vec<u16> = Vec::new();
    let mut lines: Vec<(u16, String)> = Vec::new();
    for f in &real {
        let ty = match &f.ty {
            Ty::Deprecated => "bool".to_owned(),
            other => other.fbs(),
        };
        let mut attrs: Vec<String> = Vec::new();
        if !implicit {
            attrs.push(format!("id: {}", f.slot));
        }
        if f.ty == Ty::Deprecated {
            attrs.push("deprecated".into());
        }
        if key_field && f.slot == 0 {
            attrs.push("key".into());
        }
        let scalar = f.ty.scalar_name().is_some() || matches!(f.ty, Ty::Enum(_));
        let default = match &f.default {
            Some(text) if scalar && !f.optional => format!(" = {}", text.trim()),
            _ if f.optional && scalar => " = null".to_owned(),
            _ => String::new(),
        };
        let attrs = if attrs.is_empty() { String::new() } else { format!(" ({})", attrs.join(", ")) };
        lines.push((f.slot, format!("  {}:{ty}{default}{attrs};", f.name)));
        used.push(f.slot);
        if matches!(f.ty, Ty::Union(_)) {
            used.push(f.slot.saturating_sub(1));
        }
    }
    if !implicit {
        // flatc wants ids 0..n without gaps: fill them with deprecated placeholders.
        let max = used.iter().copied().max().unwrap_or(0);
        for id in 0..=max {
            if !used.contains(&id) {
                lines.push((id, format!("  unused_{id}:bool (id: {id}, deprecated);")));
            }
        }
        lines.sort_by_key(|(id, _)| *id);
    }
    for (_, line) in lines {
        out.push_str(&line);
        out.push('\n');
    }
}

/// Learns the alignment of every inline struct type reachable from `T`, keyed by visitor type name.
pub(crate) fn trace_layouts<'de, T: Deserialize<'de>>(opts: &Options) -> Result<Layouts> {
    let mut t = Tracer::new(opts);
    t.run::<T>()?;
    Ok(t.layouts)
}

/// Which table fields of `T` are unions without a `UnionType` placeholder (see `plan.rs`).
fn trace_plan<'de, T: Deserialize<'de>>(opts: &Options) -> Result<Plan> {
    let mut t = Tracer::new(opts);
    t.run::<T>()?;
    Ok(t.plan)
}

/// The plan of `T`, tracing `T` on its first use (decoding). A type that cannot be traced gets none: its
/// placeholder-free unions then fail to decode, everything else is unaffected.
#[inline]
pub(crate) fn plan_of<'de, T: Deserialize<'de>>(opts: &Options) -> Option<&'static Plan> {
    let name = std::any::type_name::<T>();
    if let Some(plan) = plan::lookup(name) {
        return plan;
    }
    let plan = trace_plan::<T>(opts).ok().filter(|p| !p.is_empty());
    plan::register(name, plan)
}

/// Learns `T`'s layout for encoding: which of its tables' fields are unions without a `UnionType`
/// placeholder (see [`crate::learn`]).
pub(crate) fn learn_plan<'de, T: Deserialize<'de>>(opts: &Options) -> Result<()> {
    let name = std::any::type_name::<T>();
    let plan = trace_plan::<T>(opts)?;
    plan::register(name, (!plan.is_empty()).then_some(plan));
    Ok(())
}

#[derive(Debug, Default)]
struct EnumState {
    count: usize,
    choice: usize,
    explored: Vec<bool>,
}

struct Tracer<'o> {
    opts: &'o Options,
    defs: HashMap<String, Def>,
    order: Vec<String>,
    /// Tables being traced (outermost first).
    stack: Vec<String>,
    enums: HashMap<&'static str, EnumState>,
    layouts: Layouts,
    plan: Plan,
    root: Option<Ty>,
    /// Type of the value traced last, and whether it was an `Option`.
    last: Ty,
    optional: bool,
    /// Names of the table and field being traced (for map entry table names).
    field_path: Vec<(String, String)>,
    /// Tables made of struct variants (`Enum_Variant`).
    variant_tables: Vec<String>,
}

const MAX_PASSES: usize = 1024;
const MAX_TRACE_DEPTH: usize = 256;

impl<'o> Tracer<'o> {
    fn new(opts: &'o Options) -> Self {
        Tracer {
            opts,
            defs: HashMap::new(),
            order: Vec::new(),
            stack: Vec::new(),
            enums: HashMap::new(),
            layouts: Layouts::new(),
            plan: Plan::default(),
            root: None,
            last: Ty::Unknown,
            optional: false,
            field_path: Vec::new(),
            variant_tables: Vec::new(),
        }
    }

    fn run<'de, T: Deserialize<'de>>(&mut self) -> Result<()> {
        for _ in 0..MAX_PASSES {
            self.stack.clear();
            self.field_path.clear();
            T::deserialize(TraceDe { t: self, place: TPlace::Root }).map(drop)?;
            if self.root.is_none() {
                self.root = Some(self.last.clone());
            }
            // Next pass: the next unexplored variant of every enum that has one.
            let mut more = false;
            for e in self.enums.values_mut() {
                if let Some(next) = e.explored.iter().position(|x| !x) {
                    e.choice = next;
                    more = true;
                }
            }
            if !more {
                return self.number_unions();
            }
        }
        Err(Error::unsupported("the type has too many enum variants to trace"))
    }

    /// After the last pass: every field of an enum type that turned out to be a union (an enum carrying
    /// data) is a union, and a union without a `UnionType` placeholder right before it takes two slots, its
    /// type and then its value, moving every later implicit slot by one (flatc's numbering). Fills the plan.
    fn number_unions(&mut self) -> Result<()> {
        let unions: Vec<String> =
            self.defs.iter().filter(|(_, d)| matches!(d, Def::Union { .. })).map(|(n, _)| n.clone()).collect();
        for name in &self.order {
            let Some(Def::Table { fields, explicit, .. }) = self.defs.get_mut(name) else { continue };
            let mut next = 0usize;
            let mut bits = 0u64;
            let mut after_marker = false;
            for f in fields.iter_mut() {
                if let Ty::Enum(e) = &f.ty {
                    if unions.contains(e) {
                        f.ty = Ty::Union(e.clone());
                    }
                }
                let own = matches!(f.ty, Ty::Union(_)) && !after_marker;
                after_marker = f.ty == Ty::UnionTypeMarker;
                if own {
                    if f.index >= 64 {
                        return Err(Error::unsupported(format!(
                            "union field `{}` of `{name}` is field {} (fields after the 64th need a `UnionType` \
                             placeholder)",
                            f.name, f.index
                        )));
                    }
                    if self.variant_tables.contains(name) {
                        return Err(Error::unsupported(format!(
                            "union field `{}` in the struct variant `{name}`: give it a `UnionType` placeholder",
                            f.name
                        )));
                    }
                    if *explicit && f.slot == 0 {
                        return Err(Error::unsupported(format!(
                            "union field `{}` of `{name}` has id 0: its type takes the id before",
                            f.name
                        )));
                    }
                    bits |= 1 << f.index;
                }
                if !*explicit {
                    let width = if own { 2 } else { 1 };
                    f.slot = u16::try_from(next + width - 1)
                        .ok()
                        .filter(|&s| s <= MAX_SLOT)
                        .ok_or_else(|| Error::unsupported(format!("`{name}` needs more than {MAX_SLOT} slots")))?;
                    next += width;
                }
            }
            self.plan.insert(name, bits);
        }
        Ok(())
    }

    /// Inside a recursive type (a table already twice on the stack): cut `Option`s, vectors and maps.
    fn cut(&self) -> bool {
        self.stack.iter().enumerate().any(|(i, a)| self.stack[..i].contains(a))
    }

    fn define(&mut self, name: &str, def: Def) -> Result<()> {
        if let Some(old) = self.defs.get_mut(name) {
            match (old, def) {
                (Def::Enum { variants: old }, Def::Enum { variants }) => {
                    if *old != variants {
                        return Err(Error::unsupported(format!("two different enums are named `{name}`")));
                    }
                }
                (Def::Struct { members: old, array: old_array }, Def::Struct { members, array }) => {
                    let same = old.len() == members.len()
                        && old.iter().zip(&members).all(|(a, b)| a.0 == b.0 && compatible(&a.1, &b.1))
                        && *old_array == array;
                    if !same {
                        return Err(Error::unsupported(format!("two different structs are named `{name}`")));
                    }
                }
                (Def::Union { .. }, Def::Enum { .. }) => {}
                // An enum traced through a unit variant first, then through one carrying data: a union.
                (old @ Def::Enum { .. }, new @ Def::Union { .. }) => *old = new,
                (Def::Union { members: old }, Def::Union { members }) => {
                    for m in members {
                        if !old.iter().any(|o| o.0 == m.0) {
                            old.push(m);
                            old.sort();
                        }
                    }
                }
                (Def::Table { fields: old, .. }, Def::Table { fields, .. }) => {
                    // Same field names, and types that can be the same type seen twice (one visit cut off at
                    // a recursion, or an enum seen through a unit variant before one carrying data). Anything
                    // else is a second Rust type with this name: one schema cannot describe both, and the
                    // union plan (keyed by table name) would give one of them the other's slots.
                    let differ = |a: &FieldDef, b: &FieldDef| {
                        a.name != b.name || a.default != b.default || !compatible(&a.ty, &b.ty)
                    };
                    if old.len() != fields.len() || old.iter().zip(&fields).any(|(a, b)| differ(a, b)) {
                        return Err(Error::unsupported(format!("two different types are named `{name}`")));
                    }
                    // Complete types learned at a deeper, cut-off visit.
                    for (a, b) in old.iter_mut().zip(fields) {
                        let upgrade = matches!((&a.ty, &b.ty), (Ty::Enum(x), Ty::Union(y)) if x == y);
                        if upgrade || (contains_unknown(&a.ty) && !contains_unknown(&b.ty)) {
                            a.ty = b.ty;
                        }
                    }
                }
                _ => return Err(Error::unsupported(format!("two different kinds of types are named `{name}`"))),
            }
            return Ok(());
        }
        self.defs.insert(name.to_owned(), def);
        self.order.push(name.to_owned());
        Ok(())
    }
}

/// Whether `a` and `b` can be one type traced twice: equal, or equal but for a part cut off at a recursion
/// ([`Ty::Unknown`]) or an enum that one visit saw as a union.
fn compatible(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Unknown, _) | (_, Ty::Unknown) => true,
        (Ty::Vector(x), Ty::Vector(y)) => compatible(x, y),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => compatible(k1, k2) && compatible(v1, v2),
        (Ty::Enum(x) | Ty::Union(x), Ty::Enum(y) | Ty::Union(y)) => x == y,
        _ => a == b,
    }
}

fn contains_unknown(ty: &Ty) -> bool {
    match ty {
        Ty::Unknown => true,
        Ty::Vector(e) => contains_unknown(e),
        Ty::Map(k, v) => contains_unknown(k) || contains_unknown(v),
        _ => false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TPlace {
    Root,
    Field { union: bool },
    Elem,
    Member,
    UnionValue,
    MapKey,
}

struct TraceDe<'a, 'o> {
    t: &'a mut Tracer<'o>,
    place: TPlace,
}

macro_rules! trace_scalars {
    ($($method:ident: $ty:expr => $visit:ident($zero:expr);)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.scalar($ty)?;
            visitor.$visit($zero)
        }
    )*};
}

impl TraceDe<'_, '_> {
    fn scalar(self, ty: Ty) -> Result<()> {
        match self.place {
            TPlace::Root => Err(Error::unsupported("the root of a FlatBuffer must be a table")),
            TPlace::UnionValue => Err(Error::unsupported("union members must be tables")),
            _ => {
                // 128-bit integers are structs of two 64-bit halves.
                let halves = match ty {
                    Ty::I128 => Some(("Int128", Ty::I64)),
                    Ty::U128 => Some(("UInt128", Ty::U64)),
                    _ => None,
                };
                if let Some((name, hi)) = halves {
                    let members = vec![("lo".to_owned(), Ty::U64), ("hi".to_owned(), hi)];
                    self.t.define(name, Def::Struct { members, array: None })?;
                }
                self.t.last = ty;
                Ok(())
            }
        }
    }

    fn inline_struct<'de, V: Visitor<'de>>(
        self,
        name: Option<&str>,
        names: &[&str],
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        if matches!(self.place, TPlace::Root | TPlace::UnionValue | TPlace::MapKey) {
            return Err(Error::unsupported("a FlatBuffers struct is only allowed inline in a table, vector or struct"));
        }
        let mut members = Vec::new();
        let value = visitor.visit_seq(TraceStruct { t: self.t, remaining: len, members: &mut members })?;
        if members.is_empty() {
            return Err(Error::unsupported("an empty FlatBuffers struct"));
        }
        let (mut cur, mut align) = (0usize, 1usize);
        for ty in &members {
            let (s, a) = ty
                .inline_layout()
                .ok_or_else(|| Error::unsupported("a FlatBuffers struct holds only scalars and structs"))?;
            cur = (cur + a - 1) & !(a - 1);
            cur += s;
            align = align.max(a);
        }
        let size = (cur + align - 1) & !(align - 1);
        let homogeneous = members.iter().all(|m| *m == members[0]);
        let (name, def) = match name {
            Some(n) => {
                let named: Vec<(String, Ty)> = members
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| {
                        (names.get(i).map(|s| field_name(s).to_owned()).unwrap_or_else(|| format!("f{i}")), ty.clone())
                    })
                    .collect();
                (n.to_owned(), Def::Struct { members: named, array: None })
            }
            None if homogeneous => {
                let name = format!("Array_{}_{}", members[0].short(), members.len());
                (name, Def::Struct { members: Vec::new(), array: Some((members[0].clone(), members.len())) })
            }
            None => {
                let parts: Vec<String> = members.iter().map(Ty::short).collect();
                let named = members.iter().enumerate().map(|(i, ty)| (format!("f{i}"), ty.clone())).collect();
                (format!("Tuple_{}", parts.join("_")), Def::Struct { members: named, array: None })
            }
        };
        self.t.define(&name, def)?;
        self.t.layouts.insert(std::any::type_name::<V>(), align);
        self.t.last = Ty::Struct { name, size, align };
        Ok(value)
    }

    fn table<'de, V: Visitor<'de>>(self, name: &str, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        if matches!(self.place, TPlace::Member | TPlace::MapKey) {
            return Err(Error::unsupported(format!("table `{name}` inside a FlatBuffers struct or as a map key")));
        }
        if self.t.stack.len() > MAX_TRACE_DEPTH {
            return Err(Error::unsupported(format!(
                "`{name}` is recursive without an Option, vector or map in between"
            )));
        }
        self.t.stack.push(name.to_owned());
        let mut defs = Vec::new();
        let value = visitor.visit_map(TraceTable {
            t: self.t,
            table: name,
            fields,
            i: 0,
            union_next: false,
            defs: &mut defs,
            pending: None,
            pending_default: None,
        })?;
        self.t.stack.pop();
        let explicit = has_explicit_ids(fields);
        self.t.define(name, Def::Table { fields: defs, key_field: false, explicit })?;
        self.t.last = Ty::Table(name.to_owned());
        Ok(value)
    }
}

impl<'de> de::Deserializer<'de> for TraceDe<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported("types that need `deserialize_any` cannot be expressed in FlatBuffers"))
    }

    trace_scalars! {
        deserialize_bool: Ty::Bool => visit_bool(false);
        deserialize_i8: Ty::I8 => visit_i8(0);
        deserialize_i16: Ty::I16 => visit_i16(0);
        deserialize_i32: Ty::I32 => visit_i32(0);
        deserialize_i64: Ty::I64 => visit_i64(0);
        deserialize_i128: Ty::I128 => visit_i128(0);
        deserialize_u8: Ty::U8 => visit_u8(0);
        deserialize_u16: Ty::U16 => visit_u16(0);
        deserialize_u32: Ty::U32 => visit_u32(0);
        deserialize_u64: Ty::U64 => visit_u64(0);
        deserialize_u128: Ty::U128 => visit_u128(0);
        deserialize_f32: Ty::F32 => visit_f32(0.0);
        deserialize_f64: Ty::F64 => visit_f64(0.0);
        deserialize_char: Ty::U32 => visit_char('\0');
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if matches!(self.place, TPlace::Member | TPlace::Root | TPlace::UnionValue) {
            return Err(Error::unsupported("a string outside a table field, vector or map"));
        }
        self.t.last = Ty::String;
        visitor.visit_borrowed_str("")
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.place != (TPlace::Field { union: false }) && self.place != (TPlace::Field { union: true }) {
            return Err(Error::unsupported("byte vectors are only allowed as table fields"));
        }
        self.t.last = Ty::Bytes;
        visitor.visit_borrowed_bytes(&[])
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.t.cut() {
            self.t.last = Ty::Unknown;
            self.t.optional = true;
            return visitor.visit_none();
        }
        let t = self.t;
        let value = visitor.visit_some(TraceDe { t: &mut *t, place: self.place })?;
        t.optional = true;
        Ok(value)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_unit_struct("Unit", visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if matches!(self.place, TPlace::Member | TPlace::MapKey) {
            return Err(Error::unsupported("`()` inside a FlatBuffers struct"));
        }
        self.t.define(name, Def::Table { fields: Vec::new(), key_field: false, explicit: false })?;
        self.t.last = Ty::Unit(name.to_owned());
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        match name {
            DEPRECATED => {
                self.t.last = Ty::Deprecated;
                visitor.visit_unit()
            }
            UNION_TYPE => {
                self.t.last = Ty::UnionTypeMarker;
                visitor.visit_unit()
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if !matches!(self.place, TPlace::Field { .. }) {
            return Err(Error::unsupported("vectors are only allowed as table fields"));
        }
        let n = usize::from(!self.t.cut());
        let t = self.t;
        let mut elem = Ty::Unknown;
        let value = visitor.visit_seq(TraceSeq { t: &mut *t, remaining: n, elem: &mut elem })?;
        t.last = Ty::Vector(Box::new(elem));
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.inline_struct(None, &[], len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, name: &'static str, len: usize, visitor: V) -> Result<V::Value> {
        self.inline_struct(Some(name), &[], len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if !matches!(self.place, TPlace::Field { .. }) {
            return Err(Error::unsupported("maps are only allowed as table fields"));
        }
        let n = usize::from(!self.t.cut());
        let t = self.t;
        let (mut k, mut v) = (Ty::Unknown, Ty::Unknown);
        let value = visitor.visit_map(TraceMap { t: &mut *t, remaining: n, key: &mut k, value: &mut v })?;
        t.last = Ty::Map(Box::new(k), Box::new(v));
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let inline = match self.place {
            TPlace::Member => true,
            TPlace::Root | TPlace::UnionValue => false,
            _ => self.t.opts.is_inline_struct(name),
        };
        if inline {
            self.inline_struct(Some(name), fields, fields.len(), visitor)
        } else {
            self.table(name, fields, visitor)
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if variants.is_empty() {
            return Err(Error::unsupported(format!("enum `{name}` has no variants")));
        }
        let union = self.place == (TPlace::Field { union: true });
        // A table field without a `UnionType` placeholder: a union if the enum carries data.
        let field = self.place == (TPlace::Field { union: false });
        let state = self.t.enums.entry(name).or_default();
        if state.explored.is_empty() {
            state.count = variants.len();
            state.explored = vec![false; variants.len()];
        }
        let choice = state.choice.min(state.count - 1);
        state.explored[choice] = true;
        if matches!(self.place, TPlace::Root | TPlace::UnionValue) {
            return Err(Error::unsupported(format!("enum `{name}` where a table is expected")));
        }
        let t = self.t;
        let mut kind = VariantKind::Unit;
        let value = visitor.visit_enum(TraceEnum {
            t: &mut *t,
            choice,
            name,
            variant: variants[choice],
            union: union || field,
            kind: &mut kind,
        })?;
        if union || (field && matches!(kind, VariantKind::Table(_))) {
            if let VariantKind::Table(table) = kind {
                t.define(name, Def::Union { members: vec![(choice, variants[choice].to_owned(), table)] })?;
            }
            t.last = Ty::Union(name.to_owned());
        } else {
            t.define(name, Def::Enum { variants: variants.to_vec() })?;
            t.last = Ty::Enum(name.to_owned());
        }
        Ok(value)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported("identifiers"))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

struct TraceTable<'a, 'o> {
    t: &'a mut Tracer<'o>,
    table: &'a str,
    fields: &'static [&'static str],
    i: usize,
    union_next: bool,
    defs: &'a mut Vec<FieldDef>,
    pending: Option<(String, u16, usize)>,
    /// The declared default of the pending field.
    pending_default: Option<String>,
}

impl<'de> de::MapAccess<'de> for TraceTable<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let explicit = has_explicit_ids(self.fields);
        let (index, key, slot) = loop {
            let Some(&key) = self.fields.get(self.i) else { return Ok(None) };
            let index = self.i;
            self.i += 1;
            match (explicit, explicit_id(key)) {
                (false, _) => break (index, key, index),
                (true, Some(id)) => break (index, key, usize::from(id)),
                (true, None) => {} // a serde alias
            }
        };
        self.pending_default = split_default(key).1.map(str::to_owned);
        if explicit {
            let name: de::value::BorrowedStrDeserializer<'_, Error> = de::value::BorrowedStrDeserializer::new(key);
            self.pending = Some((field_name(key).to_owned(), slot as u16, index));
            return seed.deserialize(name).map(Some);
        }
        self.pending = Some((field_name(key).to_owned(), slot as u16, index));
        let index: de::value::U64Deserializer<Error> = (index as u64).into_deserializer();
        seed.deserialize(index).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let (name, slot, index) =
            self.pending.take().ok_or_else(|| Error::new(ErrorKind::Message, "value before key"))?;
        self.t.optional = false;
        self.t.last = Ty::Unknown;
        self.t.field_path.push((self.table.to_owned(), name.clone()));
        let union = std::mem::take(&mut self.union_next);
        let value = seed.deserialize(TraceDe { t: self.t, place: TPlace::Field { union } })?;
        self.t.field_path.pop();
        let mut ty = std::mem::replace(&mut self.t.last, Ty::Unknown);
        if ty == Ty::UnionTypeMarker {
            self.union_next = true;
        }
        if let Ty::Map(k, v) = &ty {
            // A map is a vector of `{ key, value }` tables.
            let entry = format!("{}{}Entry", self.table, pascal(&name));
            let fields = vec![
                FieldDef { name: "key".into(), slot: 0, ty: (**k).clone(), optional: false, default: None, index: 0 },
                FieldDef { name: "value".into(), slot: 1, ty: (**v).clone(), optional: false, default: None, index: 1 },
            ];
            self.t.define(&entry, Def::Table { fields, key_field: true, explicit: false })?;
            ty = Ty::Vector(Box::new(Ty::Table(entry)));
        }
        let default = self.pending_default.take();
        self.defs.push(FieldDef { name, slot, ty, optional: self.t.optional, default, index });
        self.t.optional = false;
        Ok(value)
    }
}

fn pascal(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

struct TraceStruct<'a, 'o> {
    t: &'a mut Tracer<'o>,
    remaining: usize,
    members: &'a mut Vec<Ty>,
}

impl<'de> de::SeqAccess<'de> for TraceStruct<'_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let value = seed.deserialize(TraceDe { t: self.t, place: TPlace::Member })?;
        self.members.push(std::mem::replace(&mut self.t.last, Ty::Unknown));
        Ok(Some(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining)
    }
}

struct TraceSeq<'a, 'o> {
    t: &'a mut Tracer<'o>,
    remaining: usize,
    elem: &'a mut Ty,
}

impl<'de> de::SeqAccess<'de> for TraceSeq<'_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let value = seed.deserialize(TraceDe { t: self.t, place: TPlace::Elem })?;
        *self.elem = std::mem::replace(&mut self.t.last, Ty::Unknown);
        if self.t.optional {
            return Err(Error::unsupported("`Option` vector elements"));
        }
        Ok(Some(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.remaining)
    }
}

struct TraceMap<'a, 'o> {
    t: &'a mut Tracer<'o>,
    remaining: usize,
    key: &'a mut Ty,
    value: &'a mut Ty,
}

impl<'de> de::MapAccess<'de> for TraceMap<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let key = seed.deserialize(TraceDe { t: self.t, place: TPlace::MapKey })?;
        *self.key = std::mem::replace(&mut self.t.last, Ty::Unknown);
        Ok(Some(key))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let value = seed.deserialize(TraceDe { t: self.t, place: TPlace::Field { union: false } })?;
        *self.value = std::mem::replace(&mut self.t.last, Ty::Unknown);
        if let Ty::Union(name) = &*self.value {
            return Err(Error::unsupported(format!("union `{name}` as a map value")));
        }
        Ok(value)
    }
}

enum VariantKind {
    Unit,
    Table(String),
}

struct TraceEnum<'a, 'o> {
    t: &'a mut Tracer<'o>,
    choice: usize,
    name: &'static str,
    variant: &'static str,
    union: bool,
    kind: &'a mut VariantKind,
}

impl<'de> de::EnumAccess<'de> for TraceEnum<'_, '_> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index: de::value::U64Deserializer<Error> = (self.choice as u64).into_deserializer();
        Ok((seed.deserialize(index)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for TraceEnum<'_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        if !self.union {
            return Err(Error::unsupported(format!(
                "enum `{}` carries data, so it is a union: unions are only allowed as table fields",
                self.name
            )));
        }
        let value = seed.deserialize(TraceDe { t: &mut *self.t, place: TPlace::UnionValue })?;
        match std::mem::replace(&mut self.t.last, Ty::Unknown) {
            Ty::Table(n) | Ty::Unit(n) => *self.kind = VariantKind::Table(n),
            _ => return Err(Error::unsupported(format!("members of union `{}` must be tables", self.name))),
        }
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported(format!("tuple variants of `{}`", self.name)))
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        if !self.union {
            return Err(Error::unsupported(format!(
                "enum `{}` carries data, so it is a union: unions are only allowed as table fields",
                self.name
            )));
        }
        // Struct variants become tables named `Enum_Variant`.
        let table = format!("{}_{}", self.name, self.variant);
        if !self.t.variant_tables.contains(&table) {
            self.t.variant_tables.push(table.clone());
        }
        let value = TraceDe { t: &mut *self.t, place: TPlace::UnionValue }.table(&table, fields, visitor)?;
        *self.kind = VariantKind::Table(table);
        Ok(value)
    }
}
