//! Annotated dumps of ObjectProperty blobs, for snapshot tests and for looking at what is in a
//! file.
//!
//! [`dump`] reads the bytes as [`Options::from_slice`] does (into a [`Value`](crate::Value)) and writes one line
//! per span: the offset as `byte.bit` (the object stream is bit-packed), the bytes the span touches
//! in hex, and what it means. First the framing — the `BINd` magic, the stored serializer flags
//! with their names, the compression byte, the uncompressed size and the zlib stream (each zlib
//! layer is annotated as compressed bytes, then its inflated content follows under a heading
//! saying that the offsets from there on are into the inflated data) — then the object stream:
//! each object's type hash with its class name from the type list, its size (deep mode), every
//! property (deep: its size and hash) by name with its value — numbers, strings, enum values,
//! list lengths and elements, nested objects indented. Long spans wrap; very long ones are elided
//! with a count.
//!
//! The text is stable (a change to it is a change to the crate), so it suits
//! `insta::assert_snapshot!` (see the crate README). Bytes that do not decode still give a dump:
//! every line up to the error, then a line naming the error (also returned by [`Dump::error`]).
//! The walk is the decoder itself (linear, with its limits) and never panics; the text is at
//! most 16 KiB plus 32 characters per input byte and 8 per inflated byte.

use std::fmt::{self, Display};

use crate::codec::Scalar;
use crate::de::Deserializer;
use crate::de::trace::{Event, Traced};
#[doc(hidden)]
pub use crate::de::trace::{Mark, Read, Trace};
use crate::error::{Error, ErrorKind};
use crate::options::{Options, inflate, serializer_flags as sf};
use crate::{BIND_MAGIC, TypeList};
use gamefmt_dump::{Out, quoted};
use serde_core::de::{Deserialize, MapAccess, SeqAccess, Visitor};

/// An annotated dump: its text (`Display`) and the decoding error it stopped at, if any.
#[derive(Debug)]
pub struct Dump {
    text: String,
    error: Option<Error>,
}

impl Dump {
    /// The dump's text (the same as `to_string()`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The error that stopped the walk (the text ends with a line naming it), or `None` when all
    /// the bytes decoded.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The text if all the bytes decoded, else the error.
    pub fn into_result(self) -> Result<String, Error> {
        match self.error {
            None => Ok(self.text),
            Some(e) => Err(e),
        }
    }
}

impl Display for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The annotated dump of `bytes` read with `opts` (framing, flags, mode, mask, limits) and the
/// classes of `types`, as [`Options::from_slice`] reads them into a [`Value`](crate::Value).
pub fn dump(bytes: &[u8], opts: &Options, types: &TypeList) -> Dump {
    let mut out = Out::new(bytes.len());
    out.heading("framing (offsets into the input, as byte.bit)");
    let mut base = 0;
    let error = framing(&mut out, bytes, opts, types, &mut base).err();
    if let Some(e) = &error {
        out.note_bits(base + e.bit_offset().unwrap_or(0), 0, format_args!("error: {e}"));
    }
    Dump { text: out.finish(), error }
}

fn flag_names(flags: u32) -> String {
    let names: Vec<&str> = [
        (sf::STATEFUL_FLAGS, "STATEFUL_FLAGS"),
        (sf::COMPACT_LENGTH_PREFIXES, "COMPACT_LENGTH_PREFIXES"),
        (sf::HUMAN_READABLE_ENUMS, "HUMAN_READABLE_ENUMS"),
        (sf::WITH_COMPRESSION, "WITH_COMPRESSION"),
        (sf::FORBID_DELTA_ENCODE, "FORBID_DELTA_ENCODE"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
    .collect();
    if names.is_empty() { "none".to_owned() } else { names.join(" | ") }
}

fn u32_at(data: &[u8], at: usize) -> Result<u32, Error> {
    data.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| Error::at(ErrorKind::Eof, at as u64 * 8))
}

/// The framing as `options::unframe` reads it, annotated, then the object stream.
fn framing(out: &mut Out, input: &[u8], opts: &Options, types: &TypeList, base: &mut u64) -> Result<(), Error> {
    opts.check()?;
    let mut data = input;
    let mut at = 0usize;
    if opts.bind_file {
        if !data.starts_with(&BIND_MAGIC) {
            return Err(Error::new(ErrorKind::BadMagic));
        }
        out.span_bits(0, &data[..4], 0, "magic \"BINd\" (a game file: deep mode, stored flags)");
        at = 4;
    }
    let cap = opts.max_decompressed_size;
    let mut inflated_len = 0;
    let outer;
    if opts.manual_compression {
        let size = u32_at(data, at)?;
        out.span_bits(
            at as u64 * 8,
            &data[at..at + 4],
            0,
            format_args!("uncompressed size {size} (u32 LE, manual compression)"),
        );
        let z = &data[at + 4..];
        out.span_bits((at as u64 + 4) * 8, z, 0, format_args!("zlib stream, {} bytes", z.len()));
        outer = inflate(z, size, cap, cap)?;
        inflated_len = outer.len();
        out.grow(inflated_len, 8);
        out.heading(format_args!("inflated ({} bytes; offsets from here on are into the inflated data)", outer.len()));
        data = &outer;
        at = 0;
    }
    let mut flags = opts.flags;
    if flags & sf::STATEFUL_FLAGS != 0 {
        flags = u32_at(data, at)?;
        out.span_bits(
            at as u64 * 8,
            &data[at..at + 4],
            0,
            format_args!("serializer flags {flags:#x}: {} (u32 LE)", flag_names(flags)),
        );
        at += 4;
    }
    let stream_opts = Options { flags, ..*opts };
    if flags & sf::WITH_COMPRESSION != 0 {
        let compressed = *data.get(at).ok_or_else(|| Error::at(ErrorKind::Eof, at as u64 * 8))?;
        out.span_bits(at as u64 * 8, &data[at..at + 1], 0, format_args!("compressed: {}", compressed != 0));
        at += 1;
        if compressed != 0 {
            let size = u32_at(data, at)?;
            out.span_bits(at as u64 * 8, &data[at..at + 4], 0, format_args!("uncompressed size {size} (u32 LE)"));
            let z = &data[at + 4..];
            out.span_bits((at as u64 + 4) * 8, z, 0, format_args!("zlib stream, {} bytes", z.len()));
            let body = inflate(z, size, cap.saturating_sub(inflated_len), cap)?;
            out.grow(body.len(), 8);
            out.heading(format_args!(
                "inflated object stream ({} bytes; offsets from here on are into it, as byte.bit)",
                body.len()
            ));
            return objects(out, &body, 0, &stream_opts, types);
        }
    }
    out.heading("object stream (offsets as byte.bit)");
    // Errors in the stream count their bits from its start.
    *base = at as u64 * 8;
    objects(out, &data[at..], at as u64 * 8, &stream_opts, types)
}

/// Decodes the object stream into a [`Value`] while recording, then writes what was recorded
/// (`base`: the stream's bit offset in what the offsets count from).
fn objects(out: &mut Out, data: &[u8], base: u64, opts: &Options, types: &TypeList) -> Result<(), Error> {
    let max = 512 + data.len() / 4;
    let trace = Trace::new(max);
    let (result, end) = {
        let mut d = Deserializer::new(Traced { data, trace: &trace }, types, *opts);
        // Read as into a `Value` (the same reads, checks and model budget), keeping nothing.
        let result = Drain::deserialize(&mut d).map_err(|e| e.with_pos(d.bit_pos())).and_then(|_| d.end());
        (result, d.bit_pos())
    };
    let events = trace.into_events();
    if events.len() >= max {
        render(out, data, base, &events);
        out.note_bits(base + end, 0, "… (the rest of the stream is not shown: more reads than the dump keeps)");
    } else {
        render(out, data, base, &events);
    }
    result?;
    out.note_bits(base + end, 0, "end");
    Ok(())
}

/// What a dump decodes into: every value visited as a [`Value`] would be, nothing kept.
struct Drain;

impl<'de> Deserialize<'de> for Drain {
    fn deserialize<D: serde_core::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Drain)
    }
}

impl<'de> Visitor<'de> for Drain {
    type Value = Drain;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_str<E>(self, _: &str) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_unit<E>(self) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_none<E>(self) -> Result<Drain, E> {
        Ok(Drain)
    }
    fn visit_some<D: serde_core::Deserializer<'de>>(self, d: D) -> Result<Drain, D::Error> {
        Drain::deserialize(d)
    }
    fn visit_newtype_struct<D: serde_core::Deserializer<'de>>(self, d: D) -> Result<Drain, D::Error> {
        Drain::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Drain, A::Error> {
        while seq.next_element::<Drain>()?.is_some() {}
        Ok(Drain)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Drain, A::Error> {
        while map.next_entry::<Drain, Drain>()?.is_some() {}
        Ok(Drain)
    }
}

fn scalar(s: &Scalar) -> String {
    match s {
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::UInt(u) => u.to_string(),
        Scalar::F32(f) => format!("{f:?}"),
        Scalar::F64(f) => format!("{f:?}"),
    }
}

/// Writes the recorded reads, one line each, labelled by the marks before them and named by the
/// marks after them (the class a hash names, the property a deep property hash names).
fn render(out: &mut Out, data: &[u8], base: u64, events: &[Event]) {
    // Per nesting level: whether a property is open (its reads go one step deeper).
    let mut levels: Vec<bool> = vec![false];
    let mut label: Option<&'static str> = None;
    let mut last_len: Option<u32> = None;
    for (i, event) in events.iter().enumerate() {
        let depth = 2 * (levels.len() - 1) + usize::from(*levels.last().unwrap_or(&false));
        match event {
            Event::Mark(Mark::Next(what)) => label = Some(what),
            Event::Mark(Mark::Enter) => levels.push(false),
            Event::Mark(Mark::Leave) => {
                if levels.len() > 1 {
                    levels.pop();
                }
            }
            Event::Mark(Mark::Property(name)) => {
                if let Some(open) = levels.last_mut() {
                    *open = true;
                }
                let depth = 2 * (levels.len() - 1);
                let start = match events.get(i + 1..).and_then(|rest| {
                    rest.iter().find_map(|e| match e {
                        Event::Read { start, .. } => Some(*start),
                        _ => None,
                    })
                }) {
                    Some(s) => s,
                    None => continue,
                };
                if name.is_empty() {
                    // Deep: the name comes from the hash, read next.
                    let named = events.get(i + 1..).and_then(|rest| {
                        rest.iter().take(6).find_map(|e| match e {
                            Event::Mark(Mark::Named(n)) => Some(n.as_str()),
                            _ => None,
                        })
                    });
                    match named {
                        Some(n) => out.note_bits(base + start, depth, format_args!("property {n}")),
                        None => out.note_bits(base + start, depth, "property"),
                    }
                } else {
                    out.note_bits(base + start, depth, format_args!("property {name}"));
                }
            }
            Event::Mark(Mark::Class(_) | Mark::Named(_)) => {}
            Event::Read { start, end, read } => {
                let next_name = || {
                    events.get(i + 1..).and_then(|rest| {
                        rest.iter().take(2).find_map(|e| match e {
                            Event::Mark(Mark::Class(n) | Mark::Named(n)) => Some(n.as_str()),
                            _ => None,
                        })
                    })
                };
                let meaning = match (read, label.take()) {
                    (Read::Bits(v), Some(what @ ("type hash" | "property hash"))) => match next_name() {
                        Some(name) => format!("{what} {v:#010x} → {name}"),
                        None => format!("{what} {v:#010x}"),
                    },
                    (Read::Bits(v), Some(what)) => format!("{what} {v}"),
                    (Read::Bits(v), None) => format!("{v}"),
                    (Read::Scalar(s), Some(what)) => format!("{what}: {}", scalar(s)),
                    (Read::Scalar(s), None) => scalar(s),
                    (Read::Len(n), Some(what)) => format!("{what} {n}"),
                    (Read::Len(n), None) => format!("length {n}"),
                    (Read::Bytes(at, n), _) => {
                        let bytes = data.get(*at..at + n).unwrap_or_default();
                        match std::str::from_utf8(bytes) {
                            // A wstring: its length counts UTF-16 code units.
                            _ if last_len.is_some_and(|len| len as usize * 2 == *n) => {
                                let units = bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
                                let text: String = char::decode_utf16(units)
                                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                                    .collect();
                                format!("{} (UTF-16LE)", quoted(&text))
                            }
                            Ok(text) => quoted(text),
                            Err(_) => format!("{n} bytes"),
                        }
                    }
                };
                last_len = match read {
                    Read::Len(n) => Some(*n),
                    _ => None,
                };
                let first = (start / 8) as usize;
                let last = (end.div_ceil(8) as usize).min(data.len());
                let touched = data.get(first..last).unwrap_or_default();
                out.span_bits(base + start, touched, depth, meaning);
            }
        }
    }
}
