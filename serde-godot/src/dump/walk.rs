//! The walk over a Variant's bytes behind [`dump`](super::dump): the engine's decoding steps (the
//! same checks as [`Variant::from_bytes`](crate::Variant::from_bytes)), each span written out as
//! it is read.

use std::fmt::Display;

use crate::decode::{decode_payload, header};
use crate::options::{Options, Version};
use crate::wire::{
    self, COUNT_MASK, FLAG_64, FLAG_OBJECT_AS_ID, KIND_BUILTIN, KIND_CLASS_NAME, KIND_NONE, NODE_PATH_NEW_FORMAT,
    Reader,
};
use crate::{Error, ErrorKind, VariantType};
use gamefmt_dump::{Out, preview, quoted};

/// Walks the one Variant filling `bytes` (at `base` in the whole input), writing its lines at
/// `depth`. Errors carry offsets in the whole input.
pub(super) fn variant(out: &mut Out, bytes: &[u8], base: usize, depth: usize, opts: &Options) -> Result {
    let mut walk = Walk { r: Reader::new(bytes), bytes, base, out, opts };
    let result = walk.value(depth, 0, "").and_then(|()| match walk.r.remaining() {
        0 => Ok(()),
        n => {
            let at = walk.r.pos();
            walk.out.span(base + at, &bytes[at..], depth, format_args!("{n} trailing bytes"));
            Err(Error::at(ErrorKind::TrailingBytes(n), at))
        }
    });
    result.map_err(|e| e.shift_offset(base))
}

struct Walk<'a, 'o> {
    r: Reader<'a>,
    bytes: &'a [u8],
    base: usize,
    out: &'o mut Out,
    opts: &'o Options,
}

type Result<T = ()> = std::result::Result<T, Error>;

impl Walk<'_, '_> {
    /// Writes the span from `from` to the reader's position.
    fn since(&mut self, from: usize, depth: usize, meaning: impl Display) {
        let to = self.r.pos();
        self.out.span(self.base + from, &self.bytes[from..to], depth, meaning);
    }

    fn u32(&mut self, depth: usize, meaning: impl Fn(u32) -> String) -> Result<u32> {
        let at = self.r.pos();
        let v = self.r.u32()?;
        self.since(at, depth, meaning(v));
        Ok(v)
    }

    /// A length-prefixed, padded string (two lines: its length, its bytes).
    fn string(&mut self, depth: usize, label: &str) -> Result {
        let at = self.r.pos();
        let len = self.r.len(self.opts.max_len)?;
        self.since(at, depth, format_args!("{label}length {len}"));
        let start = self.r.pos();
        let padded = self.r.take(len + wire::pad4(len)).map_err(|_| Error::at(ErrorKind::Eof, at))?;
        let text = wire::godot_str(&padded[..len]).ok_or_else(|| Error::at(ErrorKind::InvalidUtf8, start))?;
        let pad = match wire::pad4(len) {
            0 => String::new(),
            n => format!(" (+{n} padding)"),
        };
        self.since(start, depth, format_args!("{}{pad}", quoted(text)));
        Ok(())
    }

    /// One Variant: its header, then its payload (containers: their parts, one level deeper).
    fn value(&mut self, depth: usize, level: usize, label: &str) -> Result {
        let start = self.r.pos();
        if level > self.opts.max_depth {
            return Err(Error::at(ErrorKind::DepthLimit(self.opts.max_depth), start));
        }
        let (ty, head) = header(&mut self.r, self.opts.version)?;
        let id = head & 0xFF;
        let flags = head >> 16;
        let meaning = flag_meaning(ty, head, self.opts.version);
        let flag_text = match (flags, meaning) {
            (0, _) => String::new(),
            (f, "") => format!(", flags {f:#x}"),
            (f, m) => format!(", flags {f:#x}: {m}"),
        };
        self.since(start, depth, format_args!("{label}{} (type {id}{flag_text})", ty.name_in(self.opts.version)));
        let inner = depth + 1;
        let result = match ty {
            VariantType::String | VariantType::StringName => self.string(inner, ""),
            VariantType::NodePath => self.node_path(inner),
            VariantType::Signal => {
                self.string(inner, "name: ")?;
                let at = self.r.pos();
                let id = self.r.u64()?;
                self.since(at, inner, format_args!("object id {id}"));
                Ok(())
            }
            VariantType::Object => self.object(inner, level, head),
            VariantType::Array => self.array(inner, level, head),
            VariantType::Dictionary => self.dictionary(inner, level, head),
            VariantType::PackedStringArray => self.packed_strings(inner),
            VariantType::PackedByteArray => self.packed_bytes(inner),
            _ if wire::packed_elem_size(ty, false).is_some() => self.packed(inner, ty, head),
            _ => {
                let at = self.r.pos();
                let v = decode_payload(&mut self.r, self.opts, ty, head)?;
                if self.r.pos() > at {
                    self.since(at, inner, preview(&v));
                }
                Ok(())
            }
        };
        result.map_err(|e| e.or_at(start))
    }

    fn node_path(&mut self, depth: usize) -> Result {
        let at = self.r.pos();
        let first = self.r.u32()?;
        if first & NODE_PATH_NEW_FORMAT == 0 {
            self.since(at, depth, format_args!("name count word {first:#x} (old format)"));
            return Err(Error::at(ErrorKind::InvalidData("NodePath in the pre-3.0 format"), at));
        }
        let names = first & !NODE_PATH_NEW_FORMAT;
        self.since(at, depth, format_args!("name count {names} (bit 31: new format)"));
        let subnames = self.u32(depth, |n| format!("subname count {n}"))?;
        let flags = self.u32(depth, |f| {
            let absolute = if f & 1 != 0 { "absolute" } else { "relative" };
            let property = if f & 2 != 0 { ", old property subname (+1)" } else { "" };
            format!("flags {f:#x} ({absolute}{property})")
        })?;
        let subnames = if flags & 2 != 0 { subnames.wrapping_add(1) } else { subnames };
        let total = names.wrapping_add(subnames);
        if total as usize > self.opts.max_len {
            return Err(Error::at(ErrorKind::LengthLimit { len: u64::from(total), limit: self.opts.max_len }, at));
        }
        for i in 0..total {
            let label = if i < names { format!("name {i}: ") } else { format!("subname {}: ", i - names) };
            self.string(depth, &label)?;
        }
        Ok(())
    }

    fn object(&mut self, depth: usize, level: usize, head: u32) -> Result {
        if head & FLAG_OBJECT_AS_ID != 0 {
            let at = self.r.pos();
            let id = self.r.u64()?;
            let what = if id == 0 { " (null)".to_owned() } else { String::new() };
            self.since(at, depth, format_args!("instance id {id}{what}"));
            return Ok(());
        }
        if !self.opts.full_objects {
            return Err(self.r.err(ErrorKind::FullObjectsDisabled));
        }
        let class_len = self.r.clone().len(self.opts.max_len)?;
        self.string(depth, "class name: ")?;
        if class_len == 0 {
            return Ok(());
        }
        let count = self.u32(depth, |n| format!("property count {}", (n as i32).max(0)))?;
        for i in 0..(count as i32).max(0) {
            let name = self.r.clone().str(self.opts.max_len)?;
            let label = format!("property {i} {}: ", quoted(name));
            self.string(depth, &format!("property {i} name: "))?;
            self.value(depth, level + 1, &label)?;
        }
        Ok(())
    }

    /// A typed-container field of a Godot 4 Array / Dictionary header (`what`: element, key, value).
    fn container_type(&mut self, depth: usize, head: u32, shift: u32, what: &str) -> Result {
        if self.opts.version == Version::Godot3 {
            return Ok(());
        }
        match (head >> shift) & 3 {
            KIND_NONE => Ok(()),
            KIND_BUILTIN => {
                let at = self.r.pos();
                let id = self.r.u32()?;
                let Some(ty) = VariantType::from_id(id, Version::Godot4) else {
                    self.since(at, depth, format_args!("{what} type id {id}"));
                    return Err(Error::at(ErrorKind::InvalidData("container element type out of range"), at));
                };
                self.since(at, depth, format_args!("{what} type: {} ({id})", ty.name()));
                Ok(())
            }
            KIND_CLASS_NAME => self.string(depth, &format!("{what} class name: ")),
            _ => self.string(depth, &format!("{what} script: ")),
        }
    }

    fn count(&mut self, depth: usize, what: &str) -> Result<usize> {
        let at = self.r.pos();
        let raw = self.r.u32()?;
        let count = (raw & COUNT_MASK) as usize;
        let shared = if raw & !COUNT_MASK != 0 { " (bit 31, the old shared flag, ignored)" } else { "" };
        self.since(at, depth, format_args!("{what} {count}{shared}"));
        if count > self.opts.max_len {
            return Err(Error::at(ErrorKind::LengthLimit { len: count as u64, limit: self.opts.max_len }, at));
        }
        Ok(count)
    }

    fn array(&mut self, depth: usize, level: usize, head: u32) -> Result {
        self.container_type(depth, head, 16, "element")?;
        let count = self.count(depth, "count")?;
        for i in 0..count {
            self.value(depth, level + 1, &format!("[{i}] "))?;
        }
        Ok(())
    }

    fn dictionary(&mut self, depth: usize, level: usize, head: u32) -> Result {
        self.container_type(depth, head, 16, "key")?;
        self.container_type(depth, head, 18, "value")?;
        let count = self.count(depth, "entries")?;
        for i in 0..count {
            self.value(depth, level + 1, &format!("[{i}] key: "))?;
            self.value(depth, level + 1, &format!("[{i}] value: "))?;
        }
        Ok(())
    }

    fn packed_strings(&mut self, depth: usize) -> Result {
        let at = self.r.pos();
        let raw = self.r.u32()?;
        if raw > i32::MAX as u32 {
            self.since(at, depth, format_args!("count {} (negative: empty)", raw as i32));
            return Ok(());
        }
        self.since(at, depth, format_args!("count {raw}"));
        if raw as usize > self.opts.max_len {
            return Err(Error::at(ErrorKind::LengthLimit { len: u64::from(raw), limit: self.opts.max_len }, at));
        }
        for i in 0..raw {
            self.string(depth, &format!("[{i}] "))?;
        }
        Ok(())
    }

    fn packed_bytes(&mut self, depth: usize) -> Result {
        let at = self.r.pos();
        let count = self.r.len(self.opts.max_len)?;
        self.since(at, depth, format_args!("count {count}"));
        let start = self.r.pos();
        self.r.take(count)?;
        if count > 0 {
            self.since(start, depth, format_args!("{count} bytes"));
        }
        let pad = self.r.pos();
        self.r.skip_lenient(wire::pad4(count));
        if self.r.pos() > pad {
            self.since(pad, depth, "padding");
        }
        Ok(())
    }

    fn packed(&mut self, depth: usize, ty: VariantType, head: u32) -> Result {
        let at = self.r.pos();
        let mut ahead = self.r.clone();
        let decoded = decode_payload(&mut ahead, self.opts, ty, head);
        self.u32(depth, |n| format!("count {n}"))?;
        let value = decoded?;
        let elements = self.r.pos();
        self.r = ahead;
        if self.r.pos() > elements {
            self.since(elements, depth, preview(&value));
        }
        debug_assert!(self.r.pos() >= at + 4);
        Ok(())
    }
}

/// What a header's flag bits mean for `ty` (empty when they mean nothing).
fn flag_meaning(ty: VariantType, head: u32, version: Version) -> &'static str {
    use VariantType as T;
    match ty {
        T::Int | T::Float if head & FLAG_64 != 0 => "64-bit",
        T::Object if head & FLAG_OBJECT_AS_ID != 0 => "as instance id",
        T::Array if version == Version::Godot4 => match (head >> 16) & 3 {
            KIND_NONE => "",
            KIND_BUILTIN => "typed (built-in element type)",
            KIND_CLASS_NAME => "typed (class name element type)",
            _ => "typed (script element type)",
        },
        T::Dictionary if version == Version::Godot4 => match ((head >> 16) & 3, (head >> 18) & 3) {
            (KIND_NONE, KIND_NONE) => "",
            _ => "typed keys/values",
        },
        _ if wire::real_is_64(head, version)
            && (crate::magic::Layout::of(ty).is_some() || wire::packed_has_reals(ty)) =>
        {
            "64-bit reals"
        }
        _ => "",
    }
}
