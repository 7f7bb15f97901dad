//! Detection and the per-format wiring: decode to JSON, encode from JSON, inspect.

mod brson;
mod flatbuf;
mod godot;
mod kiprop;
mod o3de;

use std::fmt::Display;
use std::path::Path;
use std::sync::Arc;

use crate::cli::{CompressionArg, Format, FormatArgs};

pub(crate) use brson::urls;

/// Why one file failed.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The format, when known.
    pub(crate) format: Option<Format>,
    /// A usage error (exit status 2) rather than bad input (1).
    pub(crate) usage: bool,
    /// What went wrong, where and what was expected.
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn input(format: Format, message: impl Display) -> Self {
        Failure { format: Some(format), usage: false, message: message.to_string() }
    }

    pub(crate) fn usage(format: Option<Format>, message: impl Display) -> Self {
        Failure { format, usage: true, message: message.to_string() }
    }

    /// The error line for `path`.
    pub(crate) fn line(&self, path: &str) -> String {
        match self.format {
            Some(f) => format!("gamefmt: {path}: {}: {}", f.name(), self.message),
            None => format!("gamefmt: {path}: {}", self.message),
        }
    }
}

pub(crate) type Outcome<T> = Result<T, Failure>;

/// What every file of one run shares: the options and the kiprop type list (read once).
pub(crate) struct Context {
    pub(crate) args: FormatArgs,
    pub(crate) compact: bool,
    pub(crate) text: bool,
    pub(crate) compression: Option<CompressionArg>,
    types: std::sync::OnceLock<Result<Arc<serde_kiprop::TypeList>, String>>,
    schema: std::sync::OnceLock<Result<Arc<serde_flatbuf_lite::fbs::Schema>, String>>,
}

impl Context {
    pub(crate) fn new(args: FormatArgs) -> Self {
        Context {
            args,
            compact: false,
            text: false,
            compression: None,
            types: std::sync::OnceLock::new(),
            schema: std::sync::OnceLock::new(),
        }
    }

    /// The kiprop type list, loaded on first use (a usage error when --types is missing).
    fn types(&self) -> Outcome<Arc<serde_kiprop::TypeList>> {
        if self.args.types.is_empty() {
            return Err(Failure::usage(
                Some(Format::Kiprop),
                "kiprop needs a type list: give --types FILE (a katsuba/wizwalker JSON type dump)",
            ));
        }
        self.types
            .get_or_init(|| {
                serde_kiprop::TypeList::from_paths(&self.args.types).map(Arc::new).map_err(|e| {
                    let names: Vec<_> = self.args.types.iter().map(|p| p.display().to_string()).collect();
                    format!("type list {}: {e}", names.join(", "))
                })
            })
            .clone()
            .map_err(|e| Failure::usage(Some(Format::Kiprop), e))
    }
}

impl Context {
    /// The flatbuf schema, parsed on first use (a usage error when --schema is missing or bad).
    fn schema(&self) -> Outcome<Arc<serde_flatbuf_lite::fbs::Schema>> {
        let Some(path) = self.args.schema.as_deref() else {
            return Err(Failure::usage(Some(Format::Flatbuf), "flatbuf needs a schema: give --schema FILE.fbs"));
        };
        self.schema
            .get_or_init(|| {
                serde_flatbuf_lite::fbs::Schema::parse_file(path, &self.args.include_dirs)
                    .map(Arc::new)
                    .map_err(|e| format!("schema {}: {e}", path.display()))
            })
            .clone()
            .map_err(|e| Failure::usage(Some(Format::Flatbuf), e))
    }
}

/// The format of a file: `--format`, else the bytes, else the extension.
pub(crate) fn detect(ctx: &Context, path: &Path, bytes: &[u8]) -> Outcome<Format> {
    if let Some(f) = ctx.args.format {
        return Ok(f);
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if bytes.starts_with(&serde_brson::container::MAGIC) || serde_brson::Extension::from_path(path).is_some() {
        return Ok(Format::Brson);
    }
    if bytes.starts_with(&serde_kiprop::BIND_MAGIC) {
        return Ok(Format::Kiprop);
    }
    if ctx.args.schema.is_some() {
        // With a schema: a buffer with its file_identifier or file_extension, else anything not JSON.
        let schema = ctx.schema()?;
        if flatbuf::matches(&schema, path, bytes) || !bytes.trim_ascii_start().starts_with(b"{") {
            return Ok(Format::Flatbuf);
        }
    }
    let start = bytes.trim_ascii_start();
    if ext.as_deref().is_some_and(o3de::is_o3de_extension)
        || start.starts_with(b"{")
        || start.starts_with(b"//")
        || start.starts_with(b"/*")
    {
        return Ok(Format::O3de);
    }
    if matches!(ext.as_deref(), Some("fb")) {
        return Err(Failure::usage(Some(Format::Flatbuf), "flatbuf needs a schema: give --schema FILE.fbs"));
    }
    Err(Failure::usage(
        None,
        "cannot tell the format (no FrDT or BINd header, no .brson/.7zbson/.lz4bson/.prefab/.setreg extension, \
         not JSON): give --format brson|kiprop|godot|o3de (or --schema FILE.fbs for flatbuf)",
    ))
}

/// A converted file and the warnings of its conversion (o3de's load report).
pub(crate) struct Converted {
    pub(crate) format: Format,
    pub(crate) bytes: Vec<u8>,
    pub(crate) warnings: Vec<String>,
    /// The extension an encoded file gets when known from the JSON (o3de's `$__kind`).
    pub(crate) extension: Option<&'static str>,
}

/// Decodes `bytes` to JSON (or Godot text with `--text`).
pub(crate) fn decode(ctx: &Context, path: &Path, bytes: &[u8]) -> Outcome<Converted> {
    let format = detect(ctx, path, bytes)?;
    let (bytes, warnings) = match format {
        Format::Brson => (brson::decode(ctx, path, bytes)?, Vec::new()),
        Format::Kiprop => (kiprop::decode(ctx, bytes)?, Vec::new()),
        Format::Godot => (godot::decode(ctx, bytes)?, Vec::new()),
        Format::O3de => o3de::decode(ctx.compact, path, bytes)?,
        Format::Flatbuf => (flatbuf::decode(ctx, bytes)?, Vec::new()),
    };
    Ok(Converted { format, bytes, warnings, extension: None })
}

/// The format a JSON document was decoded from (`$__format`), else `--format`.
fn json_format(ctx: &Context, json: &[u8]) -> Outcome<Format> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "$__format")]
        format: Option<String>,
    }
    if let Some(f) = ctx.args.format {
        return Ok(f);
    }
    if ctx.args.schema.is_some() {
        // flatbuf JSON carries no `$__` keys: a schema says it is flatbuf.
        return Ok(Format::Flatbuf);
    }
    let probe: Probe = serde_json::from_slice(json).map_err(|e| Failure {
        format: None,
        usage: false,
        message: format!("not JSON as `gamefmt decode` writes it: {e}"),
    })?;
    match probe.format.as_deref() {
        Some("brson") => Ok(Format::Brson),
        Some("kiprop") => Ok(Format::Kiprop),
        Some("godot") => Ok(Format::Godot),
        Some("o3de") => Ok(Format::O3de),
        Some("flatbuf") => Ok(Format::Flatbuf),
        Some(other) => Err(Failure::usage(None, format_args!("unknown $__format {other:?}: give --format"))),
        None => Err(Failure::usage(
            None,
            "the JSON has no $__format key: give --format brson|kiprop|godot|o3de, or --schema FILE.fbs for flatbuf",
        )),
    }
}

/// Encodes decoded JSON back to the format's bytes.
pub(crate) fn encode(ctx: &Context, json: &[u8]) -> Outcome<Converted> {
    let format = json_format(ctx, json)?;
    let (bytes, warnings, extension) = match format {
        Format::Brson => (brson::encode(ctx, json)?, Vec::new(), None),
        Format::Kiprop => (kiprop::encode(ctx, json)?, Vec::new(), None),
        Format::Godot => (godot::encode(ctx, json)?, Vec::new(), None),
        Format::O3de => {
            let (bytes, warnings, kind) = o3de::encode(json)?;
            (bytes, warnings, Some(kind.extension()))
        }
        Format::Flatbuf => (flatbuf::encode(ctx, json)?, Vec::new(), None),
    };
    Ok(Converted { format, bytes, warnings, extension })
}

/// The extension an encoded file gets when its JSON name does not carry one.
pub(crate) fn default_extension(converted: &Converted) -> &'static str {
    if let Some(ext) = converted.extension {
        return ext;
    }
    let bytes = &converted.bytes;
    match converted.format {
        Format::Brson => match serde_brson::container::sniff(bytes).ok().flatten().and_then(|h| h.compression()) {
            Some(serde_brson::Compression::Lz4) => "lz4bson",
            Some(serde_brson::Compression::Lzma) => "7zbson",
            _ => "brson",
        },
        Format::Kiprop | Format::Godot => "bin",
        Format::O3de => "prefab",
        Format::Flatbuf => "bin",
    }
}

/// The `inspect` report of a file, and with `hex` the format crate's annotated dump.
pub(crate) fn inspect(ctx: &Context, path: &Path, bytes: &[u8], hex: bool) -> Outcome<String> {
    let format = detect(ctx, path, bytes)?;
    let mut text = match format {
        Format::Brson => brson::inspect(ctx, path, bytes)?,
        Format::Kiprop => kiprop::inspect(ctx, bytes)?,
        Format::Godot => godot::inspect(ctx, bytes)?,
        Format::O3de => o3de::inspect(path, bytes)?,
        Format::Flatbuf => flatbuf::inspect(ctx, bytes)?,
    };
    if hex {
        text.push('\n');
        let dump = match format {
            Format::Brson => brson::dump(path, bytes),
            Format::Godot => godot::dump(ctx, bytes),
            Format::Kiprop => kiprop::dump(ctx, bytes)?,
            Format::O3de => {
                text.push_str("no annotated hex dump for o3de (a text format)\n");
                return Ok(text);
            }
            Format::Flatbuf => flatbuf::dump(ctx, bytes)?,
        };
        text.push_str("annotated hex dump (offset, bytes, meaning):\n");
        text.push_str(&dump);
    }
    Ok(text)
}

/// Decodes to a JSON value for `diff`.
pub(crate) fn to_json_value(ctx: &Context, path: &Path, bytes: &[u8]) -> Outcome<(Format, serde_json::Value)> {
    let format = detect(ctx, path, bytes)?;
    let mut compact = Context::new(ctx.args.clone());
    compact.compact = true;
    compact.types = ctx.types.clone();
    compact.schema = ctx.schema.clone();
    let json = decode(&compact, path, bytes)?.bytes;
    let value = serde_json::from_slice(&json).map_err(|e| Failure::input(format, e))?;
    Ok((format, value))
}

/// A size with its unit.
pub(crate) fn size(n: usize) -> String {
    if n < 10 * 1024 {
        format!("{n} bytes")
    } else if n < 10 << 20 {
        format!("{n} bytes ({:.1} KiB)", n as f64 / 1024.0)
    } else {
        format!("{n} bytes ({:.1} MiB)", n as f64 / (1 << 20) as f64)
    }
}

/// Splices `$__` keys in front of the members of a JSON object written as `pretty` or compact
/// text (`{` then the members): the meta keys come first, then the document's own.
pub(crate) fn splice_meta(doc: &[u8], meta: &[(&str, serde_json::Value)], pretty: bool, indent: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc.len() + 128);
    out.push(b'{');
    let rest = doc.strip_prefix(b"{").unwrap_or(doc);
    let empty = rest.trim_ascii_start() == b"}";
    for (i, (key, value)) in meta.iter().enumerate() {
        if pretty {
            out.push(b'\n');
            out.extend_from_slice(indent.as_bytes());
        }
        let _ = serde_json::to_writer(&mut out, key);
        out.push(b':');
        if pretty {
            out.push(b' ');
        }
        let _ = serde_json::to_writer(&mut out, value);
        if i + 1 < meta.len() || !empty {
            out.push(b',');
        }
    }
    if empty {
        if pretty {
            out.push(b'\n');
        }
        out.push(b'}');
    } else {
        out.extend_from_slice(rest);
    }
    out
}
