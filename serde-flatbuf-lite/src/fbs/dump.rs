//! The schema-driven walk of [`crate::dump::dump_with_schema`]: the same verifier calls, in the same
//! order, as the JSON reader (read.rs), writing dump lines instead of JSON.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::read::{check_fits, enum_of, shift, union_at, write_float};
use super::resolve::scalar_of;
use super::{BaseType, Enum, Field, Schema, Type};
use crate::de::Deserializer;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{Table, follow, misaligned, out_of_bounds, read_array};
use crate::options::Options;
use gamefmt_dump::{Out, quoted};

/// Walks the buffer `buf` whose root is table `root`, writing to `out`; stops at the first error.
pub(crate) fn walk(out: &mut Out, schema: &Schema, root: usize, buf: &[u8], opts: &Options) -> Result<()> {
    let mut w = Walker { s: schema, opts, out, vtables: HashSet::new(), base: 0, nesting: 0 };
    w.buffer(root, buf, 0)
}

struct Walker<'s, 'o, 'w> {
    s: &'s Schema,
    opts: &'o Options,
    out: &'w mut Out,
    /// Vtables already annotated (absolute offsets).
    vtables: HashSet<usize>,
    /// Where the buffer being walked starts in the outer buffer (nested flatbuffers).
    base: usize,
    nesting: u32,
}

type Ver<'de> = Deserializer<'de>;

fn le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |acc, &b| acc << 8 | u64::from(b))
}

impl Walker<'_, '_, '_> {
    fn span(&mut self, buf: &[u8], at: usize, len: usize, depth: usize, meaning: impl std::fmt::Display) {
        let end = at.saturating_add(len).min(buf.len());
        let bytes = buf.get(at.min(end)..end).unwrap_or(&[]);
        self.out.span(self.base + at, bytes, depth, meaning);
    }

    fn buffer(&mut self, root: usize, buf: &[u8], depth: usize) -> Result<()> {
        let mut d = Deserializer::with_options(buf, self.opts);
        let base = usize::from(self.opts.size_prefixed && self.nesting == 0) * 4;
        if base == 4 && buf.len() >= 4 {
            self.span(buf, 0, 4, depth, format_args!("size prefix {}", le(&buf[..4])));
        }
        if let Some(b) = buf.get(base..base + 4) {
            let off = le(b) as usize;
            self.span(buf, base, 4, depth, format_args!("root table uoffset {off} (to {:#x})", self.base + base + off));
        }
        if let Some(id) = buf.get(base + 4..base + 8) {
            let declared = self.nesting == 0 && self.s.file_identifier.is_some_and(|d| d[..] == *id);
            if declared || id.iter().all(|c| c.is_ascii_graphic()) {
                let text = quoted(&String::from_utf8_lossy(id));
                let whose = if declared { " (the schema's)" } else { "" };
                self.span(buf, base + 4, 4, depth, format_args!("file identifier {text}{whose}"));
            }
        }
        let pos = d.root()?;
        self.table(&mut d, root, pos, depth, "root table")
    }

    fn table(&mut self, d: &mut Ver<'_>, obj: usize, pos: usize, depth: usize, label: &str) -> Result<()> {
        let buf = d.buffer();
        let s = self.s;
        let o = &s.objects[obj];
        if let Some(b) = buf.get(pos..pos + 4) {
            let so = le(b) as u32 as i32;
            let vt = pos as i64 - i64::from(so);
            self.span(
                buf,
                pos,
                4,
                depth,
                format_args!("{label} {}: soffset {so} (vtable at {:#x})", o.name, self.base as i64 + vt),
            );
        }
        let t = d.enter_table(pos)?;
        self.vtable(buf, &t, o, depth + 1);
        for f in &o.fields {
            let at = t.field(buf, usize::from(f.slot));
            match (&f.ty, at) {
                (Type::Union(u), _) => {
                    if let Some((ty, p)) = union_at(buf, &t, f, &o.name)? {
                        let member = self.member(*u, i128::from(ty), p)?;
                        self.member_value(d, member, p, depth + 1, &f.name)?;
                    }
                }
                (Type::Vector(inner), Some(p)) if matches!(**inner, Type::Union(_)) => {
                    let Type::Union(u) = **inner else { unreachable!() };
                    self.union_vector(d, &t, f, u, p, depth + 1)?;
                }
                (_, None) => {
                    if f.required {
                        return Err(Error::at(
                            ErrorKind::MissingRequiredField,
                            t.pos,
                            format!("{}.{} is required", o.name, f.name),
                        ));
                    }
                }
                (ty, Some(p)) => {
                    if let (Some(root), Type::Vector(_)) = (f.nested_root, ty) {
                        self.nested(d, root, p, depth + 1, &f.name)?;
                        continue;
                    }
                    self.value(d, ty, p, depth + 1, &f.name)?;
                }
            }
        }
        d.leave_table();
        Ok(())
    }

    /// The vtable of `t`, the first time it is met.
    fn vtable(&mut self, buf: &[u8], t: &Table, o: &super::Object, depth: usize) {
        let vt = t.vtable;
        if !self.vtables.insert(self.base + vt) {
            self.out.note(
                self.base + t.pos,
                depth,
                format_args!("vtable at {:#x} (shared, annotated above)", self.base + vt),
            );
            return;
        }
        self.span(buf, vt, 2, depth, format_args!("vtable: {} bytes", t.vt_len));
        if t.vt_len >= 4 {
            self.span(buf, vt + 2, 2, depth + 1, format_args!("table size {}", le(&buf[vt + 2..vt + 4])));
        }
        for slot in 0..t.vt_len.saturating_sub(4) / 2 {
            let e = vt + 4 + 2 * slot;
            let off = buf.get(e..e + 2).map_or(0, le);
            let name = o.fields.iter().find(|f| usize::from(f.slot) == slot).map_or("(unknown)", |f| f.name.as_str());
            let what = if off == 0 { "absent".to_owned() } else { format!("at table+{off}") };
            self.span(buf, e, 2, depth + 1, format_args!("slot {slot} {name}: {what}"));
        }
    }

    /// The table of union `u`'s member `ty`.
    fn member(&self, u: usize, ty: i128, at: usize) -> Result<usize> {
        let e = &self.s.enums[u];
        e.by_value(ty).and_then(|v| v.table).ok_or_else(|| {
            Error::at(ErrorKind::InvalidValue, at, format!("union {}: unknown member type {ty}", e.name))
        })
    }

    fn member_value(&mut self, d: &mut Ver<'_>, member: usize, p: usize, depth: usize, name: &str) -> Result<()> {
        let buf = d.buffer();
        let mname = &self.s.objects[member].name;
        self.span(buf, p, 4, depth, format_args!("{name}: union member {mname}, uoffset"));
        let target = follow(buf, p)?;
        if self.s.objects[member].is_struct {
            self.value(d, &Type::Struct(member), target, depth + 1, mname)
        } else {
            self.table(d, member, target, depth + 1, "table")
        }
    }

    fn union_vector(&mut self, d: &mut Ver<'_>, t: &Table, f: &Field, u: usize, p: usize, depth: usize) -> Result<()> {
        let buf = d.buffer();
        let Some(tp) = t.field(buf, usize::from(f.slot) - 1) else {
            return Err(Error::at(
                ErrorKind::InconsistentUnion,
                p,
                format!("union vector {} without its types", f.name),
            ));
        };
        let (types, n_types) = d.vector(tp)?;
        self.span(buf, p, 4, depth, format_args!("{}: vector of unions, uoffset", f.name));
        let (area, count) = d.vector(p)?;
        self.span(buf, area - 4, 4, depth + 1, format_args!("length {count}"));
        if n_types != count {
            return Err(Error::at(
                ErrorKind::InconsistentUnion,
                p,
                format!("union vector {}: {count} values but {n_types} types", f.name),
            ));
        }
        check_fits(d, area, count, 4)?;
        d.count(count, types)?;
        for i in 0..count {
            let ty = read_array::<1>(buf, types + i)?[0];
            if ty == 0 {
                self.span(buf, area + 4 * i, 4, depth + 1, format_args!("[{i}]: NONE"));
                continue;
            }
            let member = self.member(u, i128::from(ty), area + 4 * i)?;
            self.member_value(d, member, area + 4 * i, depth + 1, &format!("[{i}]"))?;
        }
        Ok(())
    }

    fn nested(&mut self, d: &mut Ver<'_>, root: usize, p: usize, depth: usize, name: &str) -> Result<()> {
        let buf = d.buffer();
        self.span(buf, p, 4, depth, format_args!("{name}: nested flatbuffer, uoffset"));
        let (start, len) = d.byte_vector(p)?;
        self.span(buf, start - 4, 4, depth + 1, format_args!("length {len}"));
        self.nesting += 1;
        if self.nesting > self.opts.max_depth {
            return Err(Error::at(ErrorKind::DepthLimitExceeded, start, "nested flatbuffers nested too deep"));
        }
        let inner = &buf[start..start + len];
        let opts = self.opts.clone().size_prefixed(false);
        let mut w = Walker {
            s: self.s,
            opts: &opts,
            out: &mut *self.out,
            vtables: std::mem::take(&mut self.vtables),
            base: self.base + start,
            nesting: self.nesting,
        };
        let r = w.buffer(root, inner, depth + 1);
        self.vtables = std::mem::take(&mut w.vtables);
        self.nesting -= 1;
        r.map_err(|e| shift(e, start))
    }

    /// A present field or element `name` of type `ty` whose data (or uoffset) is at `p`.
    fn value(&mut self, d: &mut Ver<'_>, ty: &Type, p: usize, depth: usize, name: &str) -> Result<()> {
        let s = self.s;
        let buf = d.buffer();
        match ty {
            Type::Scalar(_) | Type::Enum(_) | Type::UnionType(_) => {
                let base = scalar_of(ty, &s.enums).unwrap_or(BaseType::UByte);
                let text = scalar(buf, base, p, enum_of(s, ty))?;
                self.span(buf, p, base.size(), depth, format_args!("{name}: {} {text}", type_name(s, ty)));
                Ok(())
            }
            Type::String => {
                self.span(buf, p, 4, depth, format_args!("{name}: string, uoffset"));
                let text = d.string(p)?;
                let v = follow(buf, p)?;
                self.span(buf, v, 4, depth + 1, format_args!("length {}", text.len()));
                if !text.is_empty() {
                    self.span(buf, v + 4, text.len(), depth + 1, quoted(text));
                }
                if buf.get(v + 4 + text.len()) == Some(&0) {
                    self.span(buf, v + 4 + text.len(), 1, depth + 1, "terminator");
                }
                Ok(())
            }
            Type::Struct(i) => {
                let o = &s.objects[*i];
                if p % o.align.min(8) != 0 {
                    return Err(misaligned(p, o.align.min(8)));
                }
                if buf.len() < o.size || p > buf.len() - o.size {
                    return Err(out_of_bounds(p, o.size));
                }
                self.out.note(self.base + p, depth, format_args!("{name}: struct {}, {} bytes", o.name, o.size));
                self.structure(buf, *i, p, depth + 1)
            }
            Type::Table(i) => {
                self.span(buf, p, 4, depth, format_args!("{name}: table, uoffset"));
                let target = follow(buf, p)?;
                self.table(d, *i, target, depth + 1, "table")
            }
            Type::Vector(inner) => {
                self.span(buf, p, 4, depth, format_args!("{name}: vector of {}, uoffset", type_name(s, inner)));
                let (area, count) = d.vector(p)?;
                self.span(buf, area - 4, 4, depth + 1, format_args!("length {count}"));
                let (size, align) = match &**inner {
                    Type::Struct(i) => (s.objects[*i].size, s.objects[*i].align.min(8)),
                    Type::String | Type::Table(_) => (4, 4),
                    other => {
                        let b = scalar_of(other, &s.enums).unwrap_or(BaseType::UByte);
                        (b.size(), b.size())
                    }
                };
                if area % align != 0 && count != 0 {
                    return Err(misaligned(area, align));
                }
                check_fits(d, area, count, size)?;
                if size == 1 && enum_of(s, inner).is_none() && count > 0 {
                    // Bytes: one span (wrapped, elided when long), not a line per byte.
                    self.span(buf, area, count, depth + 1, format_args!("{count} bytes"));
                    return Ok(());
                }
                for i in 0..count {
                    self.value(d, inner, area + i * size, depth + 1, &format!("[{i}]"))?;
                }
                Ok(())
            }
            Type::Union(_) | Type::Array(..) => {
                Err(Error::new(ErrorKind::InvalidSchema, "a union or array outside its place in the schema"))
            }
        }
    }

    /// The struct `i` whose bytes start at `p` (bounds checked by the caller).
    fn structure(&mut self, buf: &[u8], i: usize, p: usize, depth: usize) -> Result<()> {
        let s = self.s;
        for f in &s.objects[i].fields {
            self.inline(buf, &f.ty, p + f.offset, depth, &f.name)?;
        }
        Ok(())
    }

    fn inline(&mut self, buf: &[u8], ty: &Type, p: usize, depth: usize, name: &str) -> Result<()> {
        let s = self.s;
        match ty {
            Type::Struct(i) => {
                self.out.note(self.base + p, depth, format_args!("{name}: struct {}", s.objects[*i].name));
                self.structure(buf, *i, p, depth + 1)
            }
            Type::Array(inner, n) => {
                let size = match &**inner {
                    Type::Struct(i) => s.objects[*i].size,
                    other => scalar_of(other, &s.enums).map_or(1, BaseType::size),
                };
                self.out.note(self.base + p, depth, format_args!("{name}: array of {n} {}", type_name(s, inner)));
                for k in 0..usize::from(*n) {
                    self.inline(buf, inner, p + k * size, depth + 1, &format!("[{k}]"))?;
                }
                Ok(())
            }
            _ => {
                let base = scalar_of(ty, &s.enums).unwrap_or(BaseType::UByte);
                let text = scalar(buf, base, p, enum_of(s, ty))?;
                self.span(buf, p, base.size(), depth, format_args!("{name}: {} {text}", type_name(s, ty)));
                Ok(())
            }
        }
    }
}

fn type_name(s: &Schema, ty: &Type) -> String {
    match ty {
        Type::Scalar(b) => b.name().to_owned(),
        Type::Enum(e) | Type::UnionType(e) | Type::Union(e) => s.enums[*e].name.clone(),
        Type::String => "string".to_owned(),
        Type::Struct(i) | Type::Table(i) => s.objects[*i].name.clone(),
        Type::Vector(inner) => format!("[{}]", type_name(s, inner)),
        Type::Array(inner, n) => format!("[{}:{n}]", type_name(s, inner)),
    }
}

/// A scalar's value as text: bools as `true`/`false`, enum values with their name.
fn scalar(buf: &[u8], base: BaseType, p: usize, e: Option<&Enum>) -> Result<String> {
    let v: i128 = match base {
        BaseType::Bool | BaseType::UByte => read_array::<1>(buf, p)?[0].into(),
        BaseType::Byte => i8::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::Short => i16::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::UShort => u16::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::Int => i32::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::UInt => u32::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::Long => i64::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::ULong => u64::from_le_bytes(read_array(buf, p)?).into(),
        BaseType::Float | BaseType::Double => {
            let mut t = String::new();
            if base == BaseType::Float {
                write_float(&mut t, f64::from(f32::from_le_bytes(read_array(buf, p)?)), true);
            } else {
                write_float(&mut t, f64::from_le_bytes(read_array(buf, p)?), false);
            }
            return Ok(t);
        }
    };
    let mut t = String::new();
    if base == BaseType::Bool {
        t.push_str(if v != 0 { "true" } else { "false" });
    } else {
        let _ = write!(t, "{v}");
        if let Some(name) = e.and_then(|e| e.by_value(v)) {
            let _ = write!(t, " ({})", name.name);
        }
    }
    Ok(t)
}
