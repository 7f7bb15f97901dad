//! JSON → buffer, driven by a [`Schema`], with the crate's builder (`layout.rs`: back-to-front, aligned,
//! vtables shared). It follows flatc's JSON parser: members in any order (`x_type` before or after `x`),
//! enum values by name (bit flags as `"A B"`) or number, numbers also as strings, `null` for an absent
//! field, scalars equal to their default left out (optional scalars always written), vectors of tables or
//! structs with a key sorted by it, strings of `hash` fields hashed, nested flatbuffers given as objects.

use super::json::{self, Json};
use super::resolve::{enum_value, parse_float, parse_int, scalar_of};
use super::{BaseType, Object, Scalar, Schema, Type};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{Builder, Field as LField, FieldValue, TableScratch, Vtables, write_table};

pub(super) fn from_json(schema: &Schema, root: usize, text: &str, size_prefixed: bool) -> Result<Vec<u8>> {
    let doc = json::parse(text)?;
    let mut w = Writer { s: schema, b: Builder::default(), vt: Vtables::default(), scratch: TableScratch::default() };
    w.b.reset();
    let at = w.table(root, &doc, "")?;
    Ok(w.b.finish(at, schema.file_identifier, size_prefixed)?.to_vec())
}

fn bad(path: &str, msg: impl std::fmt::Display) -> Error {
    let path = if path.is_empty() { "/" } else { path };
    Error::new(ErrorKind::InvalidSchema, format!("at {path}: {msg}"))
}

struct Writer<'s> {
    s: &'s Schema,
    b: Builder,
    vt: Vtables,
    scratch: TableScratch,
}

/// A parsed scalar: its bits (little-endian in the low bytes) and its value for default comparisons.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Writer<'_> {
    fn table(&mut self, obj: usize, v: &Json, path: &str) -> Result<u32> {
        let s = self.s;
        let o = &s.objects[obj];
        let Json::Obj(members) = v else {
            return Err(bad(path, format_args!("expected an object for table {}, found {}", o.name, v.kind())));
        };
        let mut given: Vec<Option<&Json>> = vec![None; o.fields.len()];
        for (k, val) in members {
            let Some(i) = o.field(k) else {
                return Err(bad(path, format_args!("unknown field {k:?} in table {}", o.name)));
            };
            if given[i].is_some() {
                return Err(bad(path, format_args!("field {k:?} given twice")));
            }
            if *val != Json::Null {
                given[i] = Some(val);
            }
        }
        let mut fields: Vec<LField> = Vec::with_capacity(members.len());
        let mut bytes: Vec<u8> = Vec::new();
        for (i, f) in o.fields.iter().enumerate() {
            let fpath = format!("{path}/{}", f.name);
            let Some(val) = given[i] else {
                if f.required {
                    return Err(Error::new(
                        ErrorKind::MissingRequiredField,
                        format!("at {fpath}: {}.{} is required", o.name, f.name),
                    ));
                }
                if let Type::UnionType(_) = f.ty {
                    if o.fields.get(i + 1).is_some_and(|n| given[i + 1].is_some() && matches!(n.ty, Type::Union(_))) {
                        return Err(bad(&fpath, "a union value needs its type member"));
                    }
                }
                continue;
            };
            let slot = f.slot;
            // A union type (or vector of types) without its value: the official verifier refuses
            // such a buffer, so it is not written (flatc's JSON parser writes it). A NONE type is
            // the default and is left out.
            let value_absent = || {
                o.fields
                    .get(i + 1)
                    .is_some_and(|n| given[i + 1].is_none() && matches!(n.ty, Type::Union(_) | Type::Vector(_)))
            };
            if matches!(&f.ty, Type::Vector(t) if matches!(**t, Type::UnionType(_))) && value_absent() {
                return Err(bad(&fpath, "a vector of union types needs its vector of values"));
            }
            match &f.ty {
                ty @ (Type::Scalar(_) | Type::Enum(_) | Type::UnionType(_)) => {
                    let base = scalar_of(ty, &s.enums).unwrap_or(BaseType::UByte);
                    let num = self.scalar(ty, base, f.hash.as_deref(), val, &fpath)?;
                    if matches!(ty, Type::UnionType(_)) && !matches!(num, Num::Int(0)) && value_absent() {
                        return Err(bad(&fpath, "a union type needs its value member"));
                    }
                    if !f.optional && is_default(num, f.default) {
                        continue;
                    }
                    let size = base.size() as u32;
                    fields.push(LField::new(slot, size, size as u8, FieldValue::Scalar(bits(num, base))));
                }
                Type::Struct(i) => {
                    let so = &s.objects[*i];
                    if so.align > 8 {
                        return Err(bad(&fpath, "structs aligned to more than 8 bytes in tables are not supported"));
                    }
                    let start = bytes.len();
                    bytes.resize(start + so.size, 0);
                    self.structure(*i, val, &mut bytes[start..], &fpath)?;
                    fields.push(LField::new(slot, so.size as u32, so.align as u8, FieldValue::Bytes(start as u32)));
                }
                Type::Union(u) => {
                    let tval = given.get(i.wrapping_sub(1)).copied().flatten();
                    let tf = &o.fields[i - 1];
                    let Some(tval) = tval else {
                        return Err(bad(&fpath, format_args!("a union value needs {}", tf.name)));
                    };
                    let ty = self.scalar(&tf.ty, BaseType::UByte, None, tval, &format!("{path}/{}", tf.name))?;
                    let Num::Int(ty) = ty else { unreachable!("union types are integers") };
                    let e = &s.enums[*u];
                    let Some(member) = e.by_value(ty).and_then(|m| m.table) else {
                        return Err(bad(&fpath, format_args!("union {} has no member {ty} with a value", e.name)));
                    };
                    let at = self.member(member, val, &fpath)?;
                    fields.push(LField::new(slot, 4, 4, FieldValue::Offset(at)));
                }
                Type::Vector(inner) => {
                    let at = match (&**inner, f.nested_root) {
                        (_, Some(root)) if matches!(val, Json::Obj(_)) => {
                            let nested = {
                                let mut w = Writer {
                                    s,
                                    b: Builder::default(),
                                    vt: Vtables::default(),
                                    scratch: TableScratch::default(),
                                };
                                w.b.reset();
                                let at = w.table(root, val, &fpath)?;
                                w.b.finish(at, None, false)?.to_vec()
                            };
                            self.b.inline_vector(&nested, nested.len(), 8)?
                        }
                        (Type::Union(u), _) => {
                            let tf = &o.fields[i - 1];
                            let tval = given.get(i.wrapping_sub(1)).copied().flatten();
                            self.union_vector(*u, tval, val, &tf.name, &fpath)?
                        }
                        _ => self.vector(inner, f.hash.as_deref(), val, &fpath)?,
                    };
                    fields.push(LField::new(slot, 4, 4, FieldValue::Offset(at)));
                }
                Type::String => {
                    let Json::Str(text) = val else {
                        return Err(bad(&fpath, format_args!("expected a string, found {}", val.kind())));
                    };
                    let at = self.b.string(text.as_bytes())?;
                    fields.push(LField::new(slot, 4, 4, FieldValue::Offset(at)));
                }
                Type::Table(t) => {
                    let at = self.table(*t, val, &fpath)?;
                    fields.push(LField::new(slot, 4, 4, FieldValue::Offset(at)));
                }
                Type::Array(..) => return Err(bad(&fpath, "fixed arrays belong in structs")),
            }
        }
        write_table(&mut self.b, &mut self.vt, &mut self.scratch, &fields, &bytes)
            .map_err(|e| if e.kind() == ErrorKind::Unsupported { bad(path, e.message()) } else { e })
    }

    /// A union member: a table, or a struct written out of line.
    fn member(&mut self, member: usize, val: &Json, path: &str) -> Result<u32> {
        let o = &self.s.objects[member];
        if !o.is_struct {
            return self.table(member, val, path);
        }
        let mut bytes = vec![0u8; o.size];
        self.structure(member, val, &mut bytes, path)?;
        self.b.prealign(o.size, o.align.min(8))?;
        self.b.push(&bytes)?;
        Ok(self.b.used() as u32)
    }

    fn union_vector(&mut self, u: usize, types: Option<&Json>, val: &Json, tname: &str, path: &str) -> Result<u32> {
        let Json::Arr(items) = val else {
            return Err(bad(path, format_args!("expected an array, found {}", val.kind())));
        };
        let Some(Json::Arr(tys)) = types else {
            return Err(bad(path, format_args!("a union vector needs {tname} (an array of member names)")));
        };
        if tys.len() != items.len() {
            return Err(bad(path, format_args!("{} values but {} types in {tname}", items.len(), tys.len())));
        }
        let e = &self.s.enums[u];
        let mut offsets = Vec::with_capacity(items.len());
        let mut nones = Vec::new();
        for (k, (t, item)) in tys.iter().zip(items).enumerate() {
            let p = format!("{path}/{k}");
            let Num::Int(ty) = self.scalar(&Type::UnionType(u), BaseType::UByte, None, t, &p)? else {
                unreachable!("union types are integers")
            };
            // An element of type NONE: the official verifier accepts it and never follows its
            // offset, and the reader prints it as `null` (flatc's JSON parser refuses it, but
            // builders write it). Its offset is written as 0.
            if ty == 0 && matches!(item, Json::Null) {
                offsets.push(0);
                nones.push(k);
                continue;
            }
            let Some(member) = e.by_value(ty).and_then(|m| m.table) else {
                return Err(bad(&p, format_args!("union {} has no member {ty} with a value", e.name)));
            };
            offsets.push(self.member(member, item, &p)?);
        }
        // The types themselves are the `x_type` vector field, written on its own.
        let at = self.b.offset_vector(&offsets)?;
        for k in nones {
            // Element k sits at distance `at - 4 - 4k` (after the length).
            self.b.patch_u32(at as usize - 4 - 4 * k, 0);
        }
        Ok(at)
    }

    fn vector(&mut self, inner: &Type, hash: Option<&str>, val: &Json, path: &str) -> Result<u32> {
        let s = self.s;
        let Json::Arr(items) = val else {
            return Err(bad(path, format_args!("expected an array, found {}", val.kind())));
        };
        match inner {
            Type::String => {
                let mut offs = Vec::with_capacity(items.len());
                for (k, it) in items.iter().enumerate() {
                    let Json::Str(text) = it else {
                        return Err(bad(
                            &format!("{path}/{k}"),
                            format_args!("expected a string, found {}", it.kind()),
                        ));
                    };
                    offs.push(self.b.string(text.as_bytes())?);
                }
                self.b.offset_vector(&offs)
            }
            Type::Table(t) => {
                let mut offs = Vec::with_capacity(items.len());
                let key = s.objects[*t].fields.iter().position(|f| f.key);
                let mut keys: Vec<KeyVal> = Vec::new();
                for (k, it) in items.iter().enumerate() {
                    offs.push(self.table(*t, it, &format!("{path}/{k}"))?);
                    if let Some(kf) = key {
                        keys.push(self.key_of(&s.objects[*t], kf, it, &format!("{path}/{k}"))?);
                    }
                }
                if key.is_some() {
                    let mut order: Vec<usize> = (0..offs.len()).collect();
                    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
                    offs = order.into_iter().map(|i| offs[i]).collect();
                }
                self.b.offset_vector(&offs)
            }
            Type::Struct(i) => {
                let so = &s.objects[*i];
                let mut elems = vec![0u8; so.size * items.len()];
                let key = so.fields.iter().position(|f| f.key);
                let mut keys = Vec::new();
                for (k, it) in items.iter().enumerate() {
                    let p = format!("{path}/{k}");
                    self.structure(*i, it, &mut elems[k * so.size..(k + 1) * so.size], &p)?;
                    if let Some(kf) = key {
                        keys.push(self.key_of(so, kf, it, &p)?);
                    }
                }
                if key.is_some() {
                    let mut order: Vec<usize> = (0..items.len()).collect();
                    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
                    let mut sorted = Vec::with_capacity(elems.len());
                    for k in order {
                        sorted.extend_from_slice(&elems[k * so.size..(k + 1) * so.size]);
                    }
                    elems = sorted;
                }
                self.b.inline_vector(&elems, items.len(), so.align.min(8))
            }
            ty => {
                let Some(base) = scalar_of(ty, &s.enums) else {
                    return Err(bad(path, "vectors of unions need their type vector"));
                };
                let size = base.size();
                let mut elems = Vec::with_capacity(size * items.len());
                for (k, it) in items.iter().enumerate() {
                    let num = self.scalar(ty, base, hash, it, &format!("{path}/{k}"))?;
                    elems.extend_from_slice(&bits(num, base).to_le_bytes()[..size]);
                }
                self.b.inline_vector(&elems, items.len(), size)
            }
        }
    }

    /// The key of a table or struct element, for sorting (absent: the key's default).
    fn key_of(&self, o: &Object, kf: usize, it: &Json, path: &str) -> Result<KeyVal> {
        let f = &o.fields[kf];
        let v = match it {
            Json::Obj(m) => m.iter().find(|(k, _)| *k == f.name).map(|(_, v)| v),
            _ => None,
        };
        Ok(match (&f.ty, v) {
            (Type::String, Some(Json::Str(s))) => KeyVal::Str(s.as_bytes().to_vec()),
            (Type::String, _) => KeyVal::Str(Vec::new()),
            (ty, v) => {
                let base = scalar_of(ty, &self.s.enums).unwrap_or(BaseType::UByte);
                let num = match v {
                    Some(v) if *v != Json::Null => self.scalar(ty, base, f.hash.as_deref(), v, path)?,
                    _ => match f.default {
                        Some(Scalar::Float(x)) => Num::Float(x),
                        Some(Scalar::Int(x)) => Num::Int(x),
                        None => Num::Int(0),
                    },
                };
                match num {
                    Num::Int(i) => KeyVal::Int(i),
                    Num::Float(x) => KeyVal::Float(x),
                }
            }
        })
    }

    /// Fills `out` (exactly the struct's size) from a JSON object with every field of struct `i`.
    fn structure(&self, i: usize, val: &Json, out: &mut [u8], path: &str) -> Result<()> {
        let s = self.s;
        let o = &s.objects[i];
        let Json::Obj(members) = val else {
            return Err(bad(path, format_args!("expected an object for struct {}, found {}", o.name, val.kind())));
        };
        let mut given: Vec<Option<&Json>> = vec![None; o.fields.len()];
        for (k, v) in members {
            let Some(i) = o.field(k) else {
                return Err(bad(path, format_args!("unknown field {k:?} in struct {}", o.name)));
            };
            if given[i].replace(v).is_some() {
                return Err(bad(path, format_args!("field {k:?} given twice")));
            }
        }
        for (f, v) in o.fields.iter().zip(given) {
            let p = format!("{path}/{}", f.name);
            let Some(v) = v else {
                return Err(bad(&p, format_args!("struct {} needs every field", o.name)));
            };
            self.inline(&f.ty, v, &mut out[f.offset..], &p)?;
        }
        Ok(())
    }

    fn inline(&self, ty: &Type, v: &Json, out: &mut [u8], path: &str) -> Result<()> {
        let s = self.s;
        match ty {
            Type::Struct(i) => self.structure(*i, v, &mut out[..s.objects[*i].size], path),
            Type::Array(inner, n) => {
                let Json::Arr(items) = v else {
                    return Err(bad(path, format_args!("expected an array, found {}", v.kind())));
                };
                if items.len() != usize::from(*n) {
                    return Err(bad(path, format_args!("the array holds {n} elements, not {}", items.len())));
                }
                let size = match &**inner {
                    Type::Struct(i) => s.objects[*i].size,
                    other => scalar_of(other, &s.enums).map_or(1, BaseType::size),
                };
                for (k, it) in items.iter().enumerate() {
                    self.inline(inner, it, &mut out[k * size..], &format!("{path}/{k}"))?;
                }
                Ok(())
            }
            _ => {
                let base = scalar_of(ty, &s.enums).unwrap_or(BaseType::UByte);
                let num = self.scalar(ty, base, None, v, path)?;
                out[..base.size()].copy_from_slice(&bits(num, base).to_le_bytes()[..base.size()]);
                Ok(())
            }
        }
    }

    /// A scalar (enum, union type) from JSON, checked against its type's range.
    fn scalar(&self, ty: &Type, base: BaseType, hash: Option<&str>, v: &Json, path: &str) -> Result<Num> {
        let e = match ty {
            Type::Enum(e) | Type::UnionType(e) => Some(&self.s.enums[*e]),
            _ => None,
        };
        let text = match v {
            Json::Bool(b) => return Ok(Num::Int(i128::from(*b))),
            Json::Num(t) | Json::Str(t) | Json::Ident(t) => t.as_str(),
            other => return Err(bad(path, format_args!("expected a {}, found {}", base.name(), other.kind()))),
        };
        if base.is_float() {
            let x = if base == BaseType::Float {
                text.parse::<f32>().ok().map(f64::from).or_else(|| parse_float(text).map(|x| f64::from(x as f32)))
            } else {
                text.parse::<f64>().ok().or_else(|| parse_float(text))
            };
            return x.map(Num::Float).ok_or_else(|| bad(path, format_args!("{text:?} is not a {}", base.name())));
        }
        let n = if let (Some(h), Json::Str(s)) = (hash, v) {
            // The hash's bits, read as the field's (maybe signed) type.
            let n = fnv(h, s.as_bytes());
            Some(match base {
                BaseType::Int => i128::from(n as u32 as i32),
                BaseType::Long => i128::from(n as u64 as i64),
                _ => n,
            })
        } else if let Some(n) = parse_int(text) {
            Some(n)
        } else if let Some(e) = e.filter(|_| !matches!(v, Json::Num(_))) {
            enum_value(e, text)
        } else if base == BaseType::Bool && (text == "true" || text == "false") {
            Some(i128::from(text == "true"))
        } else {
            None
        };
        let Some(n) = n else {
            let what = e.map_or(base.name().to_owned(), |e| format!("{} value", e.name));
            return Err(bad(path, format_args!("{text:?} is not a {what}")));
        };
        let (lo, hi) = base.range();
        if n < lo || n > hi {
            return Err(bad(path, format_args!("{n} does not fit {}", base.name())));
        }
        Ok(Num::Int(n))
    }
}

/// A sort key of a keyed vector element.
#[derive(Debug, PartialEq, PartialOrd)]
enum KeyVal {
    Int(i128),
    Float(f64),
    Str(Vec<u8>),
}

impl KeyVal {
    fn cmp(&self, other: &KeyVal) -> std::cmp::Ordering {
        self.partial_cmp(other).unwrap_or(std::cmp::Ordering::Equal)
    }
}

fn is_default(v: Num, def: Option<Scalar>) -> bool {
    match (v, def) {
        (Num::Int(a), Some(Scalar::Int(b))) => a == b,
        #[allow(clippy::float_cmp)]
        (Num::Float(a), Some(Scalar::Float(b))) => a == b,
        _ => false,
    }
}

/// The bits of a scalar, little-endian in the low bytes.
fn bits(v: Num, base: BaseType) -> u64 {
    match v {
        Num::Int(i) => i as u64,
        Num::Float(x) if base == BaseType::Float => u64::from((x as f32).to_bits()),
        Num::Float(x) => x.to_bits(),
    }
}

/// flatc's `hash` attribute functions.
fn fnv(kind: &str, data: &[u8]) -> i128 {
    match kind {
        "fnv1_32" | "fnv1a_32" => {
            let mut h: u32 = 0x811c_9dc5;
            for &c in data {
                if kind == "fnv1_32" {
                    h = h.wrapping_mul(0x0100_0193) ^ u32::from(c);
                } else {
                    h = (h ^ u32::from(c)).wrapping_mul(0x0100_0193);
                }
            }
            i128::from(h)
        }
        _ => {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for &c in data {
                if kind == "fnv1_64" {
                    h = h.wrapping_mul(0x0000_0100_0000_01b3) ^ u64::from(c);
                } else {
                    h = (h ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
            i128::from(h)
        }
    }
}
