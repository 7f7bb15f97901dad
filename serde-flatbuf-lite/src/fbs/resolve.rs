//! From raw declarations to a [`Schema`]: names looked up as flatc does (the current namespace, then each
//! parent, then the root), enum values and bit flags, union members, struct layouts (alignment, padding,
//! `force_align`, fixed arrays; nesting depth limited), table slots (`id` or declaration order, unions
//! taking two), defaults (numbers, `true`/`false`, `nan`/`inf`, enum names, `null`), attributes checked
//! against flatc's built-ins and the declared `attribute`s.

use std::collections::HashMap;

use super::parser::{Attrs, MAX_NAME_PARTS, Pos, Raw, RawEnum, RawType};
use super::{BaseType, Enum, EnumValue, Field, Object, Scalar, Schema, Type};
use crate::error::{Error, ErrorKind, Result};

/// Deepest nesting of structs in structs.
const MAX_STRUCT_DEPTH: usize = 64;

/// Attributes flatc knows without an `attribute` declaration.
const BUILTIN_ATTRIBUTES: &[&str] = &[
    "id",
    "deprecated",
    "required",
    "key",
    "hash",
    "force_align",
    "bit_flags",
    "nested_flatbuffer",
    "flexbuffer",
    "original_order",
    "shared",
    "private",
    "native_inline",
    "native_default",
    "native_custom_alloc",
    "native_type",
    "native_type_pack_name",
    "cpp_type",
    "cpp_ptr_type",
    "cpp_ptr_type_get",
    "cpp_str_type",
    "cpp_str_flex_ctor",
    "csharp_partial",
    "streaming",
    "idempotent",
    "offset64",
    "vector64",
];

#[derive(Debug, Clone, Copy)]
enum Def {
    Object(usize),
    Enum(usize),
}

fn base_type(name: &str) -> Option<BaseType> {
    Some(match name {
        "bool" => BaseType::Bool,
        "byte" | "int8" => BaseType::Byte,
        "ubyte" | "uint8" => BaseType::UByte,
        "short" | "int16" => BaseType::Short,
        "ushort" | "uint16" => BaseType::UShort,
        "int" | "int32" => BaseType::Int,
        "uint" | "uint32" => BaseType::UInt,
        "long" | "int64" => BaseType::Long,
        "ulong" | "uint64" => BaseType::ULong,
        "float" | "float32" => BaseType::Float,
        "double" | "float64" => BaseType::Double,
        _ => return None,
    })
}

/// Parses an integer literal: decimal or `0x` hex, with an optional sign.
pub(super) fn parse_int(text: &str) -> Option<i128> {
    let (neg, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let v = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.len() <= 32 => i128::from_str_radix(hex, 16).ok()?,
        Some(_) => return None,
        None if !rest.is_empty() && rest.len() <= 38 && rest.bytes().all(|b| b.is_ascii_digit()) => {
            rest.parse().ok()?
        }
        None => return None,
    };
    Some(if neg { -v } else { v })
}

/// Parses a float literal, `nan`, `inf`, `infinity` (with signs) or an integer.
pub(super) fn parse_float(text: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    let (neg, word) = match lower.as_bytes().first() {
        Some(b'-') => (true, &lower[1..]),
        Some(b'+') => (false, &lower[1..]),
        _ => (false, lower.as_str()),
    };
    let v = match word {
        "nan" => f64::NAN,
        "inf" | "infinity" => f64::INFINITY,
        _ => {
            if let Some(i) = parse_int(text) {
                return Some(i as f64);
            }
            if !word.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'-' | b'+')) || word.is_empty() {
                return None;
            }
            return text.parse::<f64>().ok();
        }
    };
    Some(if neg { -v } else { v })
}

struct Names {
    defs: HashMap<String, Def>,
}

impl Names {
    /// Looks `name` up from namespace `ns`: `ns.name`, then each parent namespace, then `name`.
    fn lookup(&self, ns: &str, name: &str) -> Option<Def> {
        let parts: Vec<&str> = if ns.is_empty() { Vec::new() } else { ns.split('.').collect() };
        for k in (0..=parts.len().min(MAX_NAME_PARTS)).rev() {
            let full = if k == 0 { name.to_owned() } else { format!("{}.{name}", parts[..k].join(".")) };
            if let Some(&d) = self.defs.get(&full) {
                return Some(d);
            }
        }
        None
    }
}

fn attr<'a>(attrs: &'a Attrs, name: &str) -> Option<&'a (String, Option<String>, Pos)> {
    attrs.iter().find(|a| a.0 == name)
}

fn plain(attrs: &Attrs) -> Vec<(String, Option<String>)> {
    attrs.iter().map(|(n, v, _)| (n.clone(), v.clone())).collect()
}

pub(super) fn resolve(raw: Raw) -> Result<Schema> {
    let mut defs = HashMap::new();
    for (i, o) in raw.objects.iter().enumerate() {
        if defs.insert(o.name.clone(), Def::Object(i)).is_some() {
            return Err(o.pos.error(format!("{} is declared twice", o.name)));
        }
    }
    for (i, e) in raw.enums.iter().enumerate() {
        if defs.insert(e.name.clone(), Def::Enum(i)).is_some() {
            return Err(e.pos.error(format!("{} is declared twice", e.name)));
        }
    }
    let names = Names { defs };
    let declared: std::collections::HashSet<&str> = raw.attributes.iter().map(String::as_str).collect();
    let check_attrs = |attrs: &Attrs| -> Result<()> {
        for (n, _, pos) in attrs {
            if !BUILTIN_ATTRIBUTES.contains(&n.as_str()) && !declared.contains(n.as_str()) {
                return Err(
                    pos.error(format!("user-defined attribute {n:?} must be declared before use (attribute \"{n}\";)"))
                );
            }
        }
        Ok(())
    };

    let mut enums = Vec::with_capacity(raw.enums.len());
    for e in &raw.enums {
        check_attrs(&e.attrs)?;
        enums.push(resolve_enum(e, &names)?);
    }

    // Objects: first the shells (so struct layouts can refer to each other), then layouts and fields.
    let mut objects: Vec<Object> = raw
        .objects
        .iter()
        .map(|o| Object {
            name: o.name.clone(),
            is_struct: o.is_struct,
            fields: Vec::new(),
            size: 0,
            align: 1,
            attributes: plain(&o.attrs),
            ..Default::default()
        })
        .collect();
    let mut types: Vec<Vec<Type>> = Vec::with_capacity(raw.objects.len());
    for o in &raw.objects {
        check_attrs(&o.attrs)?;
        let mut tys = Vec::with_capacity(o.fields.len());
        for f in &o.fields {
            check_attrs(&f.attrs)?;
            tys.push(resolve_type(&f.ty, &o.ns, &names, &raw, o.is_struct, &f.pos)?);
        }
        types.push(tys);
    }
    let mut layout: Vec<Option<(usize, usize)>> = vec![None; objects.len()];
    for i in 0..objects.len() {
        if raw.objects[i].is_struct {
            struct_layout(i, &raw, &types, &enums, &mut layout, 0)?;
        }
    }

    for (i, o) in raw.objects.iter().enumerate() {
        let mut fields = Vec::new();
        let explicit = o.fields.iter().filter(|f| attr(&f.attrs, "id").is_some()).count();
        if explicit != 0 && explicit != o.fields.len() {
            return Err(o.pos.error("either every field of a table has an id or none has"));
        }
        if o.is_struct && explicit != 0 {
            return Err(o.pos.error("struct fields have no ids"));
        }
        let mut next_slot: u32 = 0;
        let mut offset = 0usize;
        for (k, f) in o.fields.iter().enumerate() {
            let ty = types[i][k].clone();
            let id = match attr(&f.attrs, "id") {
                Some((_, Some(v), pos)) => match parse_int(v) {
                    Some(n) if (0..i128::from(crate::limits::MAX_SLOT)).contains(&n) => Some(n as u32),
                    _ => return Err(pos.error(format!("id {v} is not a field id (0..{})", crate::limits::MAX_SLOT))),
                },
                Some((_, None, pos)) => return Err(pos.error("id needs a value: (id: N)")),
                None => None,
            };
            let is_union = matches!(ty, Type::Union(_));
            let is_union_vec = matches!(&ty, Type::Vector(t) if matches!(**t, Type::Union(_)));
            let slot = match id {
                Some(n) => n,
                None => {
                    let s = next_slot + u32::from(is_union || is_union_vec);
                    next_slot = s + 1;
                    s
                }
            };
            if slot > u32::from(crate::limits::MAX_SLOT) {
                return Err(f.pos.error("more fields than a vtable can hold"));
            }
            let deprecated = attr(&f.attrs, "deprecated").is_some();
            let required = attr(&f.attrs, "required").is_some();
            let key = attr(&f.attrs, "key").is_some();
            let scalarish = scalar_of(&ty, &enums);
            if required && (scalarish.is_some() || o.is_struct) {
                return Err(f.pos.error("only non-scalar table fields can be required"));
            }
            let (default, optional) = field_default(f.default.as_deref(), &ty, &enums, o.is_struct, &f.pos)?;
            let nested_root = match attr(&f.attrs, "nested_flatbuffer") {
                Some((_, Some(name), pos)) => {
                    if ty != Type::Vector(Box::new(Type::Scalar(BaseType::UByte))) {
                        return Err(pos.error("nested_flatbuffer is for [ubyte] fields"));
                    }
                    match names.lookup(&o.ns, name) {
                        Some(Def::Object(t)) if !raw.objects[t].is_struct => Some(t),
                        _ => return Err(pos.error(format!("nested_flatbuffer: no table {name:?}"))),
                    }
                }
                Some((_, None, pos)) => return Err(pos.error("nested_flatbuffer needs a table name")),
                None => None,
            };
            let hash = match attr(&f.attrs, "hash") {
                Some((_, Some(h), pos)) => {
                    let bits = match h.as_str() {
                        "fnv1_32" | "fnv1a_32" => 32,
                        "fnv1_64" | "fnv1a_64" => 64,
                        _ => return Err(pos.error(format!("unknown hash {h:?}"))),
                    };
                    let int = matches!(scalarish, Some(b) if !b.is_float() && b != BaseType::Bool && b.size() * 8 == bits)
                        || matches!(&ty, Type::Vector(t) if matches!(**t, Type::Scalar(b) if b.size() * 8 == bits && !b.is_float()));
                    if !int {
                        return Err(pos.error(format!("hash {h} needs a {bits}-bit integer field")));
                    }
                    Some(h.clone())
                }
                _ => None,
            };
            let field_offset = if o.is_struct {
                let (size, align) = size_align(&ty, &enums, &layout);
                offset = offset.div_ceil(align) * align;
                let at = offset;
                offset += size;
                at
            } else {
                0
            };
            if is_union || is_union_vec {
                let u = match &ty {
                    Type::Union(u) => *u,
                    Type::Vector(t) => match **t {
                        Type::Union(u) => u,
                        _ => 0,
                    },
                    _ => 0,
                };
                if slot == 0 {
                    return Err(f.pos.error("a union field's id must be at least 1 (its type takes id - 1)"));
                }
                let type_ty =
                    if is_union_vec { Type::Vector(Box::new(Type::UnionType(u))) } else { Type::UnionType(u) };
                fields.push(Field {
                    name: format!("{}_type", f.name),
                    ty: type_ty,
                    slot: (slot - 1) as u16,
                    offset: 0,
                    default: if is_union { Some(Scalar::Int(0)) } else { None },
                    optional: false,
                    deprecated,
                    required: false,
                    key: false,
                    nested_root: None,
                    hash: None,
                    attributes: Vec::new(),
                });
            }
            fields.push(Field {
                name: f.name.clone(),
                ty,
                slot: if o.is_struct { k as u16 } else { slot as u16 },
                offset: field_offset,
                default,
                optional,
                deprecated,
                required,
                key,
                nested_root,
                hash,
                attributes: plain(&f.attrs),
            });
        }
        if !o.is_struct {
            fields.sort_by_key(|f| f.slot);
            for w in fields.windows(2) {
                if w[0].slot == w[1].slot {
                    return Err(o.pos.error(format!("fields {} and {} share id {}", w[0].name, w[1].name, w[0].slot)));
                }
            }
            if explicit != 0 {
                for (n, f) in fields.iter().enumerate() {
                    if usize::from(f.slot) != n {
                        return Err(o.pos.error(format!("field ids must be consecutive from 0: {} is missing", n)));
                    }
                }
            }
        } else if let Some((size, align)) = layout[i] {
            objects[i].size = size;
            objects[i].align = align;
        }
        if fields.iter().filter(|f| f.key).count() > 1 {
            return Err(o.pos.error("only one field may be the key"));
        }
        objects[i].set_fields(fields);
    }

    let root = match raw.roots.iter().rev().find(|r| r.3).or_else(|| raw.roots.last()) {
        Some((name, ns, pos, _)) => match names.lookup(ns, name) {
            Some(Def::Object(i)) if !objects[i].is_struct => Some(i),
            _ => return Err(pos.error(format!("root_type {name}: no such table"))),
        },
        None => None,
    };
    let file_identifier = raw.file_identifier.as_ref().map(|(id, _, _)| {
        let mut out = [0u8; 4];
        out.copy_from_slice(&id.as_bytes()[..4]);
        out
    });
    Ok(Schema {
        objects,
        enums,
        root,
        file_identifier,
        file_extension: raw.file_extension.map(|(e, _)| e),
        user_attributes: raw.attributes,
        files: raw.files,
    })
}

fn resolve_enum(e: &RawEnum, lookup: &Names) -> Result<Enum> {
    let underlying = match &e.underlying {
        None => BaseType::UByte,
        Some(t) => match base_type(t) {
            Some(b) if !b.is_float() && b != BaseType::Bool => b,
            _ => return Err(e.pos.error(format!("enum {}: underlying type {t} is not an integer type", e.name))),
        },
    };
    let bit_flags = attr(&e.attrs, "bit_flags").is_some();
    let (lo, hi) = underlying.range();
    let mut values = Vec::with_capacity(e.values.len() + 1);
    if e.is_union {
        values.push(EnumValue { name: "NONE".to_owned(), value: 0, table: None });
    }
    let mut next: i128 = if e.is_union { 1 } else { 0 };
    let mut names: std::collections::HashSet<&str> = std::collections::HashSet::new();
    if e.is_union {
        names.insert("NONE");
    }
    for v in &e.values {
        let mut n = match &v.value {
            Some(text) => parse_int(text).ok_or_else(|| v.pos.error(format!("{text:?} is not an integer")))?,
            None => next,
        };
        if !names.insert(v.name.as_str()) {
            return Err(v.pos.error(format!("{} is declared twice in {}", v.name, e.name)));
        }
        next = n + 1;
        if bit_flags {
            let bits = (underlying.size() * 8) as i128;
            if !(0..bits).contains(&n) {
                return Err(v.pos.error(format!("bit flag position {n} does not fit {}", underlying.name())));
            }
            n = 1i128 << n;
            if n > hi {
                // A flag in the sign bit of a signed type.
                n -= 1i128 << bits;
            }
        } else if n < lo || n > hi {
            return Err(v.pos.error(format!("{} = {n} does not fit {}", v.name, underlying.name())));
        }
        let table = if e.is_union {
            let ty = v.ty.as_deref().unwrap_or(&v.name);
            match lookup.lookup(&e.ns, ty) {
                Some(Def::Object(t)) => Some(t),
                _ => return Err(v.pos.error(format!("union {}: member {ty} is not a table or struct", e.name))),
            }
        } else {
            None
        };
        values.push(EnumValue { name: v.name.clone(), value: n, table });
    }
    if !e.is_union && values.is_empty() {
        return Err(e.pos.error(format!("enum {} has no values", e.name)));
    }
    Ok(Enum::new(e.name.clone(), e.is_union, underlying, bit_flags, values, plain(&e.attrs)))
}

fn resolve_type(t: &RawType, ns: &str, names: &Names, raw: &Raw, in_struct: bool, pos: &Pos) -> Result<Type> {
    let named = |name: &str| -> Result<Type> {
        if let Some(b) = base_type(name) {
            return Ok(Type::Scalar(b));
        }
        if name == "string" {
            return Ok(Type::String);
        }
        match names.lookup(ns, name) {
            Some(Def::Object(i)) if raw.objects[i].is_struct => Ok(Type::Struct(i)),
            Some(Def::Object(i)) => Ok(Type::Table(i)),
            Some(Def::Enum(i)) if raw.enums[i].is_union => Ok(Type::Union(i)),
            Some(Def::Enum(i)) => Ok(Type::Enum(i)),
            None => Err(pos.error(format!("unknown type {name}"))),
        }
    };
    let ty = match t {
        RawType::Named(n) => named(n)?,
        RawType::Vector(inner) => {
            let RawType::Named(n) = &**inner else { return Err(pos.error("vectors of vectors are not allowed")) };
            Type::Vector(Box::new(named(n)?))
        }
        RawType::Array(inner, len) => {
            let RawType::Named(n) = &**inner else { return Err(pos.error("arrays of arrays are not allowed")) };
            let len = match parse_int(len) {
                Some(l) if (1..=i128::from(u16::MAX)).contains(&l) => l as u16,
                _ => return Err(pos.error(format!("array length {len} is not in 1..=65535"))),
            };
            let inner = named(n)?;
            if !matches!(inner, Type::Scalar(_) | Type::Enum(_) | Type::Struct(_)) {
                return Err(pos.error("fixed arrays hold scalars, enums or structs"));
            }
            if !in_struct {
                return Err(pos.error("fixed arrays are only allowed in structs"));
            }
            Type::Array(Box::new(inner), len)
        }
    };
    if in_struct && !matches!(ty, Type::Scalar(_) | Type::Enum(_) | Type::Struct(_) | Type::Array(..)) {
        return Err(pos.error("structs hold only scalars, enums, structs and fixed arrays"));
    }
    Ok(ty)
}

/// The scalar type a value of `ty` is stored as, if it is a scalar (enums and union types included).
pub(super) fn scalar_of(ty: &Type, enums: &[Enum]) -> Option<BaseType> {
    match ty {
        Type::Scalar(b) => Some(*b),
        Type::Enum(e) => Some(enums[*e].underlying),
        Type::UnionType(_) => Some(BaseType::UByte),
        _ => None,
    }
}

/// Size and alignment of an inline value (structs must be laid out already).
fn size_align(ty: &Type, enums: &[Enum], layout: &[Option<(usize, usize)>]) -> (usize, usize) {
    match ty {
        Type::Struct(i) => layout[*i].unwrap_or((0, 1)),
        Type::Array(inner, n) => {
            let (s, a) = size_align(inner, enums, layout);
            (s * usize::from(*n), a)
        }
        _ => match scalar_of(ty, enums) {
            Some(b) => (b.size(), b.size()),
            None => (4, 4),
        },
    }
}

/// Lays out struct `i` (and the structs it holds first), memoized: linear overall, depth-limited.
fn struct_layout(
    i: usize,
    raw: &Raw,
    types: &[Vec<Type>],
    enums: &[Enum],
    layout: &mut Vec<Option<(usize, usize)>>,
    depth: usize,
) -> Result<(usize, usize)> {
    if let Some(l) = layout[i] {
        return Ok(l);
    }
    let o = &raw.objects[i];
    if depth > MAX_STRUCT_DEPTH {
        return Err(o
            .pos
            .error(format!("structs nested more than {MAX_STRUCT_DEPTH} deep (or a struct holds itself)")));
    }
    let mut size = 0usize;
    let mut align = 1usize;
    for ty in &types[i] {
        let inner = match ty {
            Type::Struct(s) => Some(*s),
            Type::Array(t, _) => match **t {
                Type::Struct(s) => Some(s),
                _ => None,
            },
            _ => None,
        };
        if let Some(s) = inner {
            struct_layout(s, raw, types, enums, layout, depth + 1)?;
        }
        let (s, a) = size_align(ty, enums, layout);
        size = size.div_ceil(a) * a + s;
        align = align.max(a);
        if size > u16::MAX as usize * 16 {
            return Err(o.pos.error("struct too large"));
        }
    }
    if size == 0 {
        return Err(o.pos.error(format!("struct {} has no fields", o.name)));
    }
    if let Some((_, v, pos)) = attr(&o.attrs, "force_align") {
        let n = v.as_deref().and_then(parse_int).unwrap_or(0);
        if !(n >= align as i128 && n <= 256 && (n as u64).is_power_of_two()) {
            return Err(pos.error(format!("force_align must be a power of two from {align} to 256")));
        }
        align = n as usize;
    }
    let size = size.div_ceil(align) * align;
    layout[i] = Some((size, align));
    Ok((size, align))
}

fn field_default(
    text: Option<&str>,
    ty: &Type,
    enums: &[Enum],
    in_struct: bool,
    pos: &Pos,
) -> Result<(Option<Scalar>, bool)> {
    let Some(base) = scalar_of(ty, enums) else {
        // Non-scalar defaults (`= []`, strings) are accepted and change nothing in the binary.
        return Ok((None, false));
    };
    let Some(text) = text else {
        return Ok((Some(if base.is_float() { Scalar::Float(0.0) } else { Scalar::Int(0) }), false));
    };
    if text == "null" {
        if in_struct {
            return Err(pos.error("struct fields cannot be optional"));
        }
        return Ok((None, true));
    }
    let bad = || pos.error(format!("default {text:?} is not a {}", base.name()));
    if base.is_float() {
        return parse_float(text).map(|v| (Some(Scalar::Float(v)), false)).ok_or_else(bad);
    }
    let v = if base == BaseType::Bool && (text == "true" || text == "false") {
        i128::from(text == "true")
    } else if let Some(v) = parse_int(text) {
        v
    } else if let Type::Enum(e) = ty {
        enum_value(&enums[*e], text).ok_or_else(bad)?
    } else {
        return Err(bad());
    };
    let (lo, hi) = base.range();
    if v < lo || v > hi {
        return Err(pos.error(format!("default {text} does not fit {}", base.name())));
    }
    Ok((Some(Scalar::Int(v)), false))
}

/// An enum value given by name: `Blue`, `Color.Blue`, or space-separated flags `"A B"`.
pub(super) fn enum_value(e: &Enum, text: &str) -> Option<i128> {
    let mut total: i128 = 0;
    let mut any = false;
    for word in text.split_ascii_whitespace() {
        let word = word.strip_prefix(e.name.as_str()).and_then(|w| w.strip_prefix('.')).unwrap_or(word);
        let word = match word.rsplit_once('.') {
            Some((_, last)) if e.by_name(word).is_none() => last,
            _ => word,
        };
        let v = e.by_name(word)?.value;
        if any && !e.bit_flags {
            return None;
        }
        total |= v;
        any = true;
    }
    any.then_some(total)
}

pub(super) fn root_table(schema: &Schema, name: Option<&str>) -> Result<usize> {
    match name {
        Some(n) => match schema.object(n) {
            Some(i) if !schema.objects[i].is_struct => Ok(i),
            _ => Err(Error::new(ErrorKind::InvalidSchema, format!("root type {n}: no such table in the schema"))),
        },
        None => schema.root.ok_or_else(|| {
            Error::new(ErrorKind::InvalidSchema, "the schema declares no root_type: give the root type")
        }),
    }
}
