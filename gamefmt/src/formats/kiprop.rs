//! kiprop: serde-kiprop's dynamic `Value` (katsuba-shaped JSON), with the framing settings the
//! blob was written with kept in `$__` root members. A root property whose own name starts with
//! `$__` is written with one more `$__` in front (`$__x` → `$__$__x`) and read back without it, so
//! it never collides with those settings (gamefmt's keys never start with `$__$`).

use serde_kiprop::serializer_flags::STATEFUL_FLAGS;
use serde_kiprop::{BIND_MAGIC, Object, Options, Value};

use super::{Context, Failure, Outcome, size};
use crate::cli::Format;

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(Format::Kiprop, e)
}

/// The settings of a blob that are not in the katsuba JSON.
#[derive(Debug, Clone, Copy)]
struct Framing {
    bind: bool,
    flags: u32,
    deep: bool,
    mask: u32,
    manual_compression: bool,
    /// The zlib level announced by the stream's zlib header, when there is one.
    zlib_level: Option<u32>,
}

const DEFAULT_MASK: u32 = 0x18;

impl Framing {
    fn options(&self) -> Options {
        let mut o = if self.bind {
            Options::game_file().flags(self.flags)
        } else {
            Options::new()
                .deep(self.deep)
                .flags(self.flags)
                .property_mask(self.mask)
                .manual_compression(self.manual_compression)
        };
        if let Some(level) = self.zlib_level {
            o = o.compression_level(level);
        }
        o
    }

    fn meta(&self) -> Vec<(String, Value)> {
        let mut m = vec![
            ("$__format".to_owned(), Value::String("kiprop".into())),
            ("$__bind".to_owned(), Value::Bool(self.bind)),
            ("$__flags".to_owned(), Value::Int(self.flags.into())),
            ("$__deep".to_owned(), Value::Bool(self.deep)),
        ];
        if !self.deep {
            m.push(("$__mask".to_owned(), Value::Int(self.mask.into())));
        }
        if self.manual_compression {
            m.push(("$__manual_compression".to_owned(), Value::Bool(true)));
        }
        if let Some(level) = self.zlib_level {
            m.push(("$__zlib_level".to_owned(), Value::Int(level.into())));
        }
        m
    }
}

/// The options the command line gives for data without a BINd header.
fn given(ctx: &Context, bytes: &[u8]) -> Framing {
    let a = &ctx.args;
    let bind = bytes.starts_with(&BIND_MAGIC);
    Framing {
        bind,
        flags: a.flags.unwrap_or(if bind { STATEFUL_FLAGS } else { 0 }),
        deep: bind || a.deep,
        mask: a.mask.unwrap_or(DEFAULT_MASK),
        manual_compression: a.manual_compression,
        zlib_level: None,
    }
}

/// The framing `bytes` was written with: the stored flags, and the zlib level of compressed data.
fn detect(ctx: &Context, bytes: &[u8]) -> Outcome<Framing> {
    let mut f = given(ctx, bytes);
    let opts = f.options();
    f.flags = opts.stored_flags(bytes).map_err(fail)? | (f.flags & STATEFUL_FLAGS);
    f.zlib_level = opts.stored_compression_level(bytes).map_err(fail)?;
    Ok(f)
}

fn decode_value(ctx: &Context, bytes: &[u8]) -> Outcome<(Framing, Value)> {
    let types = ctx.types()?;
    let framing = detect(ctx, bytes)?;
    let value: Value = framing.options().from_slice(bytes, &types).map_err(fail)?;
    Ok((framing, value))
}

pub(super) fn decode(ctx: &Context, bytes: &[u8]) -> Outcome<Vec<u8>> {
    let (framing, mut value) = decode_value(ctx, bytes)?;
    let Value::Object(root) = &mut value else {
        return Err(fail("the root is not an object"));
    };
    for (name, _) in &mut root.properties {
        if name.starts_with("$__") {
            *name = escape(name);
        }
    }
    root.properties.splice(0..0, framing.meta());
    let mut out =
        if ctx.compact { serde_json::to_vec(&value) } else { serde_json::to_vec_pretty(&value) }.map_err(fail)?;
    out.push(b'\n');
    Ok(out)
}

/// The root key of a property whose name starts with `$__` (gamefmt's own keys): one more `$__`
/// in front (`$__x` → `$__$__x`). gamefmt's keys never start with `$__$`, so a root key that does
/// is always an escaped property, and [`unescape`] takes the `$__` off again.
fn escape(name: &str) -> String {
    format!("$__{name}")
}

/// The property name of an escaped root key (`$__$__x` → `$__x`), `None` for gamefmt's own keys.
fn unescape(key: &str) -> Option<&str> {
    key.starts_with("$__$").then(|| &key[3..])
}

/// Takes gamefmt's `$__` keys out of the root and unescapes the properties that start with `$__`.
fn take_meta(root: &mut Object) -> Vec<(String, Value)> {
    let mut meta = Vec::new();
    let mut props = Vec::with_capacity(root.properties.len());
    for (key, value) in std::mem::take(&mut root.properties) {
        if !key.starts_with("$__") {
            props.push((key, value));
        } else if let Some(name) = unescape(&key) {
            props.push((name.to_owned(), value));
        } else {
            meta.push((key, value));
        }
    }
    root.properties = props;
    meta
}

pub(super) fn encode(ctx: &Context, json: &[u8]) -> Outcome<Vec<u8>> {
    let types = ctx.types()?;
    let text = std::str::from_utf8(json).map_err(fail)?;
    let mut value = Value::from_json(text).map_err(fail)?;
    let Value::Object(root) = &mut value else {
        return Err(fail("at /: expected an object with $__type (the root class)"));
    };
    let a = &ctx.args;
    let mut f =
        Framing { bind: false, flags: 0, deep: false, mask: DEFAULT_MASK, manual_compression: false, zlib_level: None };
    for (key, v) in take_meta(root) {
        let int = |v: &Value| {
            v.as_i128()
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| fail(format_args!("at /{key}: expected an unsigned 32-bit integer")))
        };
        let boolean = |v: &Value| match v {
            Value::Bool(b) => Ok(*b),
            _ => Err(fail(format_args!("at /{key}: expected true or false"))),
        };
        match key.as_str() {
            "$__format" => {}
            "$__bind" => f.bind = boolean(&v)?,
            "$__flags" => f.flags = int(&v)?,
            "$__deep" => f.deep = boolean(&v)?,
            "$__mask" => f.mask = int(&v)?,
            "$__manual_compression" => f.manual_compression = boolean(&v)?,
            "$__zlib_level" => f.zlib_level = Some(int(&v)?),
            _ => {
                return Err(fail(format_args!(
                    "at /{key}: unknown gamefmt key (expected $__format, $__bind, $__flags, $__deep, $__mask, \
                     $__manual_compression or $__zlib_level)"
                )));
            }
        }
    }
    if let Some(flags) = a.flags {
        f.flags = flags;
    }
    if a.deep {
        f.deep = true;
    }
    if let Some(mask) = a.mask {
        f.mask = mask;
    }
    if a.manual_compression {
        f.manual_compression = true;
    }
    f.options().to_vec(&value, &types).map_err(fail)
}

pub(super) fn inspect(ctx: &Context, bytes: &[u8]) -> Outcome<String> {
    let (framing, value) = decode_value(ctx, bytes)?;
    let mut out = String::new();
    out.push_str("format: kiprop (KingsIsle ObjectProperty)\n");
    out.push_str(&format!(
        "container: {}\n",
        if framing.bind {
            "BINd game file"
        } else if framing.manual_compression {
            "manual zlib"
        } else {
            "raw blob"
        }
    ));
    out.push_str(&format!("mode: {}\n", if framing.deep { "deep" } else { "shallow" }));
    out.push_str(&format!("flags: {:#x}{}\n", framing.flags, flag_names(framing.flags)));
    if !framing.deep {
        out.push_str(&format!("property mask: {:#x}\n", framing.mask));
    }
    if let Some(level) = framing.zlib_level {
        out.push_str(&format!("zlib level: {level}\n"));
    }
    out.push_str(&format!("size: {}\n", size(bytes.len())));
    let (objects, properties) = count(&value);
    out.push_str(&format!("objects: {objects}\nproperties: {properties}\n"));
    if let Value::Object(root) = &value {
        out.push_str(&format!(
            "root: {} (type hash {})\n",
            root.name.as_deref().unwrap_or("(unknown class)"),
            root.type_hash
        ));
        for (name, v) in &root.properties {
            out.push_str(&format!("  {name}: {}\n", describe(v)));
        }
    }
    Ok(out)
}

/// The annotated dump of the blob (serde-kiprop's), read with the framing `decode` finds.
pub(super) fn dump(ctx: &Context, bytes: &[u8]) -> Outcome<String> {
    let (framing, _) = decode_value(ctx, bytes)?;
    let types = ctx.types()?;
    Ok(serde_kiprop::dump::dump(bytes, &framing.options(), &types).to_string())
}

fn flag_names(flags: u32) -> String {
    let names: Vec<&str> = [
        (1, "STATEFUL_FLAGS"),
        (2, "COMPACT_LENGTH_PREFIXES"),
        (4, "HUMAN_READABLE_ENUMS"),
        (8, "WITH_COMPRESSION"),
        (16, "FORBID_DELTA_ENCODE"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, n)| n)
    .collect();
    if names.is_empty() { String::new() } else { format!(" ({})", names.join(" | ")) }
}

fn count(value: &Value) -> (usize, usize) {
    let (mut objects, mut properties) = (0, 0);
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                objects += 1;
                properties += o.properties.len();
                stack.extend(o.properties.iter().map(|(_, v)| v));
            }
            Value::List(items) => stack.extend(items),
            _ => {}
        }
    }
    (objects, properties)
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("bool {b}"),
        Value::Int(i) => format!("int {i}"),
        Value::UInt(u) => format!("int {u}"),
        Value::Float(f) => format!("float {f}"),
        Value::String(s) if s.chars().count() <= 60 => format!("string {s:?}"),
        Value::String(s) => format!("string ({} bytes)", s.len()),
        Value::Bytes(b) => format!("bytes ({})", b.len()),
        Value::Leaf(_) => format!("leaf {}", serde_json::to_string(v).unwrap_or_default()),
        Value::List(items) => format!("list ({} items)", items.len()),
        Value::Object(o) => format!("object {}", o.name.as_deref().unwrap_or("?")),
    }
}
