//! flatbuf: FlatBuffers through a `.fbs` schema (serde-flatbuf-lite's `fbs` module): JSON with the
//! meaning of `flatc --json --strict-json --raw-binary`, and buffers flatc reads the same. No `$__` keys
//! are added, so the JSON stays what flatc's own JSON parser accepts.

use std::path::Path;

use serde_flatbuf_lite::Options;
use serde_flatbuf_lite::fbs::Schema;

use super::{Context, Failure, Outcome, size};
use crate::cli::Format;

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(Format::Flatbuf, e)
}

/// The reading options: only the size prefix comes from the command line.
fn opts(ctx: &Context) -> Options {
    Options::new().size_prefixed(ctx.args.size_prefixed)
}

/// Whether the bytes carry the schema's file_identifier or the path its file_extension (for detection).
pub(super) fn matches(schema: &Schema, path: &Path, bytes: &[u8]) -> bool {
    let ident =
        schema.file_identifier.is_some_and(|id| bytes.get(4..8) == Some(&id[..]) || bytes.get(8..12) == Some(&id[..]));
    let ext = path.extension().and_then(|e| e.to_str());
    ident || (ext.is_some() && ext == schema.file_extension.as_deref())
}

pub(super) fn decode(ctx: &Context, bytes: &[u8]) -> Outcome<Vec<u8>> {
    let schema = ctx.schema()?;
    let indent = if ctx.compact { None } else { Some(2) };
    let json = schema.buffer_to_json_with(bytes, ctx.args.root_type.as_deref(), &opts(ctx), indent).map_err(fail)?;
    let mut out = json.into_bytes();
    out.push(b'\n');
    Ok(out)
}

pub(super) fn encode(ctx: &Context, json: &[u8]) -> Outcome<Vec<u8>> {
    let schema = ctx.schema()?;
    let text = std::str::from_utf8(json).map_err(|e| fail(format_args!("the JSON is not UTF-8: {e}")))?;
    schema.json_to_buffer_with(text, ctx.args.root_type.as_deref(), ctx.args.size_prefixed).map_err(fail)
}

/// The annotated hex dump through the schema (`serde_flatbuf_lite::dump::dump_with_schema`).
pub(super) fn dump(ctx: &Context, bytes: &[u8]) -> Outcome<String> {
    let schema = ctx.schema()?;
    let d = serde_flatbuf_lite::dump::dump_with_schema(bytes, &schema, ctx.args.root_type.as_deref(), &opts(ctx));
    Ok(d.to_string())
}

pub(super) fn inspect(ctx: &Context, bytes: &[u8]) -> Outcome<String> {
    let schema = ctx.schema()?;
    let stats = schema.inspect(bytes, ctx.args.root_type.as_deref(), &opts(ctx)).map_err(fail)?;
    let mut out = String::new();
    out.push_str("format: flatbuf\n");
    out.push_str(&format!("size: {}\n", size(bytes.len())));
    out.push_str(&format!("root type: {}\n", stats.root_type));
    match &stats.file_identifier {
        Some(id) => {
            let declared = schema.file_identifier.map(|d| String::from_utf8_lossy(&d).into_owned());
            let note = match declared {
                Some(d) if d == *id => " (the schema's)".to_owned(),
                Some(d) => format!(" (the schema declares {d:?})"),
                None => String::new(),
            };
            out.push_str(&format!("file identifier: {id:?}{note}\n"));
        }
        None => out.push_str("file identifier: none\n"),
    }
    out.push_str(&format!("tables: {}\nvectors: {}\nstrings: {}\n", stats.tables, stats.vectors, stats.strings));
    Ok(out)
}
