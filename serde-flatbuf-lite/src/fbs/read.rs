//! Buffer → JSON, driven by a [`Schema`]. Every object is verified through the crate's verifier (the
//! [`Deserializer`]'s checks: header, table and vtable rules, string bounds/UTF-8/NUL, vector bounds, and
//! the depth, table-count and apparent-size limits of [`Options`]) before anything is printed; the schema
//! adds what only it knows (required fields, union consistency, struct alignment).

use super::json::{Out, write_str};
use super::{BaseType, BufferStats, Enum, Field, Schema, Type};
use crate::de::Deserializer;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{Table, follow, misaligned, read_array};
use crate::options::Options;

pub(super) fn to_json(
    schema: &Schema,
    root: usize,
    buf: &[u8],
    opts: &Options,
    indent: Option<usize>,
) -> Result<String> {
    let mut r = Reader { s: schema, opts, out: Out::new(indent), stats: BufferStats::default(), nesting: 0 };
    r.buffer(root, buf)?;
    Ok(r.out.s)
}

pub(super) fn stats(schema: &Schema, root: usize, buf: &[u8], opts: &Options) -> Result<BufferStats> {
    let mut r = Reader { s: schema, opts, out: Out::new(None), stats: BufferStats::default(), nesting: 0 };
    r.buffer(root, buf)?;
    let base = if opts.size_prefixed { 4 } else { 0 };
    r.stats.root_type = schema.objects[root].name.clone();
    r.stats.file_identifier = buf
        .get(base + 4..base + 8)
        .filter(|id| id.iter().all(|c| c.is_ascii_graphic()))
        .map(|id| String::from_utf8_lossy(id).into_owned());
    Ok(r.stats)
}

struct Reader<'s, 'o> {
    s: &'s Schema,
    opts: &'o Options,
    out: Out,
    stats: BufferStats,
    /// Nested flatbuffers entered (each has its own verifier; their depth shares one limit).
    nesting: u32,
}

/// The verifier of one buffer (a nested flatbuffer gets its own).
type Ver<'de> = Deserializer<'de>;

impl Reader<'_, '_> {
    fn buffer(&mut self, root: usize, buf: &[u8]) -> Result<()> {
        let mut d = Deserializer::with_options(buf, self.opts);
        let pos = d.root()?;
        self.table(&mut d, root, pos)
    }

    fn table(&mut self, d: &mut Ver<'_>, obj: usize, pos: usize) -> Result<()> {
        let t = d.enter_table(pos)?;
        self.stats.tables += 1;
        let buf = d.buffer();
        let s = self.s;
        let o = &s.objects[obj];
        self.out.open('{');
        for f in &o.fields {
            let at = t.field(buf, usize::from(f.slot));
            match (&f.ty, at) {
                (Type::Union(u), _) => {
                    if let Some((ty, p)) = union_at(buf, &t, f, &o.name)? {
                        let member = self.member(*u, i128::from(ty), p)?;
                        self.out.key(&f.name);
                        self.member_value(d, member, p)?;
                    }
                }
                (Type::Vector(inner), Some(p)) if matches!(**inner, Type::Union(_)) => {
                    let Type::Union(u) = **inner else { unreachable!() };
                    self.out.key(&f.name);
                    self.union_vector(d, &t, f, u, p)?;
                }
                (_, None) => {
                    if f.required {
                        return Err(Error::at(
                            ErrorKind::MissingRequiredField,
                            t.pos,
                            format!("{}.{} is required", o.name, f.name),
                        ));
                    }
                    if f.key {
                        // flatc prints key fields even when absent (their default).
                        if let (Some(base), Some(def)) = (super::resolve::scalar_of(&f.ty, &s.enums), f.default) {
                            self.out.key(&f.name);
                            self.print_default(base, def, enum_of(s, &f.ty));
                        }
                    }
                }
                (ty, Some(p)) => {
                    if let (Some(root), Type::Vector(_)) = (f.nested_root, ty) {
                        self.out.key(&f.name);
                        self.nested(d, root, p)?;
                        continue;
                    }
                    if matches!(ty, Type::Vector(i) if matches!(**i, Type::UnionType(_))) {
                        // A union vector's types: printed as names. Types without their values
                        // are refused, as the official verifier does (`!values && !types`).
                        if t.field(buf, usize::from(f.slot) + 1).is_none() {
                            return Err(Error::at(
                                ErrorKind::InconsistentUnion,
                                p,
                                format!("{}.{}: union types without their values", o.name, f.name),
                            ));
                        }
                        self.out.key(&f.name);
                        self.value(d, ty, p)?;
                        continue;
                    }
                    if let Type::UnionType(_) = ty {
                        // Printed like the enum it is, even when NONE.
                    }
                    self.out.key(&f.name);
                    self.value(d, ty, p)?;
                }
            }
        }
        self.out.close('}');
        d.leave_table();
        Ok(())
    }

    /// The table of union `u`'s member `ty`.
    fn member(&self, u: usize, ty: i128, at: usize) -> Result<usize> {
        let e = &self.s.enums[u];
        e.by_value(ty).and_then(|v| v.table).ok_or_else(|| {
            Error::at(ErrorKind::InvalidValue, at, format!("union {}: unknown member type {ty}", e.name))
        })
    }

    /// A union member (table, or struct stored out of line) through the uoffset at `p`.
    fn member_value(&mut self, d: &mut Ver<'_>, member: usize, p: usize) -> Result<()> {
        let target = follow(d.buffer(), p)?;
        if self.s.objects[member].is_struct {
            self.value(d, &Type::Struct(member), target)
        } else {
            self.table(d, member, target)
        }
    }

    fn union_vector(&mut self, d: &mut Ver<'_>, t: &Table, f: &Field, u: usize, p: usize) -> Result<()> {
        let buf = d.buffer();
        let Some(tp) = t.field(buf, usize::from(f.slot) - 1) else {
            return Err(Error::at(
                ErrorKind::InconsistentUnion,
                p,
                format!("union vector {} without its types", f.name),
            ));
        };
        let (types, n_types) = d.vector(tp)?;
        let (area, count) = d.vector(p)?;
        if n_types != count {
            return Err(Error::at(
                ErrorKind::InconsistentUnion,
                p,
                format!("union vector {}: {count} values but {n_types} types", f.name),
            ));
        }
        check_fits(d, area, count, 4)?;
        d.count(count, types)?;
        self.stats.vectors += 2;
        self.out.open('[');
        for i in 0..count {
            let ty = read_array::<1>(buf, types + i)?[0];
            self.out.elem();
            if ty == 0 {
                self.out.s.push_str("null");
                continue;
            }
            let member = self.member(u, i128::from(ty), area + 4 * i)?;
            self.member_value(d, member, area + 4 * i)?;
        }
        self.out.close(']');
        Ok(())
    }

    fn nested(&mut self, d: &mut Ver<'_>, root: usize, p: usize) -> Result<()> {
        let (start, len) = d.byte_vector(p)?;
        self.stats.vectors += 1;
        self.nesting += 1;
        if self.nesting > self.opts.max_depth {
            return Err(Error::at(ErrorKind::DepthLimitExceeded, start, "nested flatbuffers nested too deep"));
        }
        let inner = &d.buffer()[start..start + len];
        let opts = self.opts.clone().size_prefixed(false);
        let mut nd = Deserializer::with_options(inner, &opts);
        let pos = nd.root().map_err(|e| shift(e, start))?;
        let r = self.table(&mut nd, root, pos).map_err(|e| shift(e, start));
        self.nesting -= 1;
        r
    }

    /// A present table field or vector element of type `ty` whose data (or uoffset) is at `p`.
    fn value(&mut self, d: &mut Ver<'_>, ty: &Type, p: usize) -> Result<()> {
        let s = self.s;
        let buf = d.buffer();
        match ty {
            Type::Scalar(_) | Type::Enum(_) | Type::UnionType(_) => {
                let base = super::resolve::scalar_of(ty, &s.enums).unwrap_or(BaseType::UByte);
                self.scalar(buf, base, p, enum_of(s, ty))
            }
            Type::String => {
                let text = d.string(p)?;
                self.stats.strings += 1;
                write_str(&mut self.out.s, text);
                Ok(())
            }
            Type::Struct(i) => {
                let o = &s.objects[*i];
                if p % o.align.min(8) != 0 {
                    return Err(misaligned(p, o.align.min(8)));
                }
                if buf.len() < o.size || p > buf.len() - o.size {
                    return Err(crate::layout::out_of_bounds(p, o.size));
                }
                self.structure(buf, *i, p)
            }
            Type::Table(i) => {
                let target = follow(buf, p)?;
                self.table(d, *i, target)
            }
            Type::Vector(inner) => {
                self.stats.vectors += 1;
                let (area, count) = d.vector(p)?;
                let (size, align) = match &**inner {
                    Type::Struct(i) => (s.objects[*i].size, s.objects[*i].align.min(8)),
                    Type::String | Type::Table(_) => (4, 4),
                    other => {
                        let b = super::resolve::scalar_of(other, &s.enums).unwrap_or(BaseType::UByte);
                        (b.size(), b.size())
                    }
                };
                // An empty vector's alignment is not checked: flatc 25.12.19 itself writes empty vectors of
                // 8-byte elements at 4-aligned positions (found by tests/fbs_differential.rs), and no
                // element is read. (The typed reader checks it for scalars, as the Rust verifier does.)
                if area % align != 0 && count != 0 {
                    return Err(misaligned(area, align));
                }
                check_fits(d, area, count, size)?;
                self.out.open('[');
                for i in 0..count {
                    self.out.elem();
                    self.value(d, inner, area + i * size)?;
                }
                self.out.close(']');
                Ok(())
            }
            Type::Union(_) | Type::Array(..) => {
                Err(Error::new(ErrorKind::InvalidSchema, "a union or array outside its place in the schema"))
            }
        }
    }

    /// The struct `i` whose bytes start at `p` (bounds checked by the caller).
    fn structure(&mut self, buf: &[u8], i: usize, p: usize) -> Result<()> {
        let s = self.s;
        self.out.open('{');
        for f in &s.objects[i].fields {
            self.out.key(&f.name);
            self.inline(buf, &f.ty, p + f.offset)?;
        }
        self.out.close('}');
        Ok(())
    }

    fn inline(&mut self, buf: &[u8], ty: &Type, p: usize) -> Result<()> {
        let s = self.s;
        match ty {
            Type::Struct(i) => self.structure(buf, *i, p),
            Type::Array(inner, n) => {
                let size = match &**inner {
                    Type::Struct(i) => s.objects[*i].size,
                    other => super::resolve::scalar_of(other, &s.enums).map_or(1, BaseType::size),
                };
                self.out.open('[');
                for k in 0..usize::from(*n) {
                    self.out.elem();
                    self.inline(buf, inner, p + k * size)?;
                }
                self.out.close(']');
                Ok(())
            }
            _ => {
                let base = super::resolve::scalar_of(ty, &s.enums).unwrap_or(BaseType::UByte);
                self.scalar(buf, base, p, enum_of(s, ty))
            }
        }
    }

    fn scalar(&mut self, buf: &[u8], base: BaseType, p: usize, e: Option<&Enum>) -> Result<()> {
        let v: i128 = match base {
            BaseType::Bool | BaseType::UByte => read_array::<1>(buf, p)?[0].into(),
            BaseType::Byte => i8::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::Short => i16::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::UShort => u16::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::Int => i32::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::UInt => u32::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::Long => i64::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::ULong => u64::from_le_bytes(read_array(buf, p)?).into(),
            BaseType::Float => {
                write_float(&mut self.out.s, f64::from(f32::from_le_bytes(read_array(buf, p)?)), true);
                return Ok(());
            }
            BaseType::Double => {
                write_float(&mut self.out.s, f64::from_le_bytes(read_array(buf, p)?), false);
                return Ok(());
            }
        };
        self.int(base, v, e);
        Ok(())
    }

    fn print_default(&mut self, base: BaseType, def: super::Scalar, e: Option<&Enum>) {
        match def {
            super::Scalar::Float(f) => write_float(&mut self.out.s, f, base == BaseType::Float),
            super::Scalar::Int(v) => self.int(base, v, e),
        }
    }

    /// An integer as flatc prints it: bools as `true`/`false`, enum values by name, bit flags as
    /// `"A B"` when every set bit has a name, else the number.
    fn int(&mut self, base: BaseType, v: i128, e: Option<&Enum>) {
        use std::fmt::Write as _;
        if base == BaseType::Bool {
            self.out.s.push_str(if v != 0 { "true" } else { "false" });
            return;
        }
        if let Some(e) = e {
            if let Some(ev) = e.by_value(v) {
                write_str(&mut self.out.s, &ev.name);
                return;
            }
            if e.bit_flags && v != 0 {
                let bits = (base.size() * 8) as u32;
                let mask_of = |x: i128| (x as u128) & (u128::MAX >> (128 - bits));
                let want = mask_of(v);
                let mut got = 0u128;
                let mut names = Vec::new();
                for ev in &e.values {
                    if mask_of(ev.value) & want != 0 {
                        got |= mask_of(ev.value);
                        names.push(ev.name.as_str());
                    }
                }
                if got == want {
                    write_str(&mut self.out.s, &names.join(" "));
                    return;
                }
            }
        }
        let _ = write!(self.out.s, "{v}");
    }
}

pub(super) fn enum_of<'s>(s: &'s Schema, ty: &Type) -> Option<&'s Enum> {
    match ty {
        Type::Enum(e) | Type::UnionType(e) => Some(&s.enums[*e]),
        Type::Vector(inner) | Type::Array(inner, _) => enum_of(s, inner),
        _ => None,
    }
}

/// A float in its shortest round-trip form (as an `f32` when `single`); NaN and the infinities, which JSON
/// cannot hold, as the strings `"nan"`, `"inf"`, `"-inf"` (flatc prints them bare).
pub(super) fn write_float(out: &mut String, v: f64, single: bool) {
    use std::fmt::Write as _;
    if v.is_nan() {
        out.push_str("\"nan\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"inf\"" } else { "\"-inf\"" });
    } else if single {
        let _ = write!(out, "{:?}", v as f32);
    } else {
        let _ = write!(out, "{v:?}");
    }
}

/// An error inside a nested flatbuffer, its offset made relative to the outer buffer.
pub(super) fn shift(e: Error, start: usize) -> Error {
    match e.offset() {
        Some(o) => Error::at(e.kind(), start + o, e.message().to_owned()),
        None => e,
    }
}

/// Checks that `count` elements of `size` bytes fit after `area`, and counts them against the apparent size.
pub(super) fn check_fits(d: &mut Deserializer<'_>, area: usize, count: usize, size: usize) -> Result<()> {
    let bytes = count as u64 * size as u64;
    if bytes > (d.buffer().len() - area) as u64 {
        return Err(Error::at(
            ErrorKind::OutOfBounds,
            area,
            format!("{count} elements of {size} bytes run past the end"),
        ));
    }
    d.count(bytes as usize, area)
}

/// Union field `f` of `t` (in table `owner`): its type and value position, `None` for type 0 (NONE);
/// a value without a type or a type without a value is `InconsistentUnion`.
pub(super) fn union_at(buf: &[u8], t: &Table, f: &Field, owner: &str) -> Result<Option<(u8, usize)>> {
    let value = t.field(buf, usize::from(f.slot));
    let ty = match t.field(buf, usize::from(f.slot) - 1) {
        Some(p) => read_array::<1>(buf, p)?[0],
        None if value.is_some() => {
            return Err(Error::at(
                ErrorKind::InconsistentUnion,
                t.pos,
                format!("union {} has a value but no type", f.name),
            ));
        }
        None => 0,
    };
    match (ty, value) {
        (0, _) => Ok(None),
        (_, None) => Err(Error::at(
            ErrorKind::InconsistentUnion,
            t.pos,
            format!("{owner}.{}: union type {ty} without a value", f.name),
        )),
        (ty, Some(p)) => Ok(Some((ty, p))),
    }
}
