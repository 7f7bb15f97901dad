//! godot: serde-godot's `Variant` in its tagged JSON form (`serde_godot::json`), framed as the
//! engine frames it.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_godot::framing::Framing;
use serde_godot::json::{Tagged, TaggedVariant};
use serde_godot::{Options, Variant, Version};

use super::{Context, Failure, Outcome, size};
use crate::cli::{Format, FramingArg};

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(Format::Godot, e)
}

fn framing_name(f: FramingArg) -> &'static str {
    match f {
        FramingArg::Stream => "stream",
        FramingArg::StreamBe => "stream-be",
        FramingArg::Packet => "packet",
        FramingArg::None => "none",
    }
}

fn options(version: u8) -> Options {
    // A tool shows whatever the file holds: full objects are decoded (serde-godot never
    // instantiates anything), and typed containers are written back with their headers.
    Options::new()
        .version(if version == 3 { Version::Godot3 } else { Version::Godot4 })
        .full_objects(true)
        .typed_containers(true)
}

/// A decoded file: the Godot generation, the framing, and each Variant with the offset where it
/// starts (after its length prefix).
type Decoded = (u8, FramingArg, Vec<(usize, Variant)>);

/// The Variants of a file.
fn decode_values(ctx: &Context, bytes: &[u8]) -> Outcome<Decoded> {
    let version = ctx.args.godot.unwrap_or(4);
    let framing = ctx.args.framing.unwrap_or(FramingArg::None);
    let opts = options(version);
    if framing == FramingArg::None {
        let v = Variant::from_bytes(bytes, &opts).map_err(fail)?;
        return Ok((version, framing, vec![(0, v)]));
    }
    let mut values = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(prefix) = bytes.get(at..at + 4) else {
            return Err(fail(format_args!(
                "at byte {at}: expected a 4-byte length prefix, found {} bytes",
                bytes.len() - at
            )));
        };
        let prefix: [u8; 4] = prefix.try_into().unwrap_or_default();
        let len = if framing == FramingArg::StreamBe { u32::from_be_bytes(prefix) } else { u32::from_le_bytes(prefix) };
        let start = at + 4;
        let end = start.checked_add(len as usize).filter(|&e| e <= bytes.len()).ok_or_else(|| {
            fail(format_args!(
                "at byte {at}: frame {} announces {len} bytes but {} remain",
                values.len(),
                bytes.len() - start
            ))
        })?;
        let v = Variant::from_bytes(&bytes[start..end], &opts)
            .map_err(|e| fail(format_args!("frame {} (starting at byte {start}): {e}", values.len())))?;
        values.push((start, v));
        at = end;
    }
    Ok((version, framing, values))
}

struct Doc<'a> {
    version: u8,
    framing: FramingArg,
    values: &'a [(usize, Variant)],
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("$__format", "godot")?;
        m.serialize_entry("$__godot", &self.version)?;
        m.serialize_entry("$__framing", framing_name(self.framing))?;
        if self.framing == FramingArg::None {
            m.serialize_entry("value", &Tagged(&self.values[0].1))?;
        } else {
            let items: Vec<Tagged<'_>> = self.values.iter().map(|(_, v)| Tagged(v)).collect();
            m.serialize_entry("values", &items)?;
        }
        m.end()
    }
}

pub(super) fn decode(ctx: &Context, bytes: &[u8]) -> Outcome<Vec<u8>> {
    let (version, framing, values) = decode_values(ctx, bytes)?;
    let mut out = if ctx.text {
        values.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>().join("\n").into_bytes()
    } else {
        let doc = Doc { version, framing, values: &values };
        if ctx.compact { serde_json::to_vec(&doc) } else { serde_json::to_vec_pretty(&doc) }.map_err(fail)?
    };
    out.push(b'\n');
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocIn {
    #[serde(rename = "$__format")]
    _format: Option<String>,
    #[serde(rename = "$__godot")]
    godot: Option<u8>,
    #[serde(rename = "$__framing")]
    framing: Option<String>,
    #[serde(default, deserialize_with = "present")]
    value: Option<TaggedVariant>,
    values: Option<Vec<TaggedVariant>>,
}

/// `"value": null` is the Nil Variant, not an absent value.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<TaggedVariant>, D::Error> {
    TaggedVariant::deserialize(d).map(Some)
}

pub(super) fn encode(ctx: &Context, json: &[u8]) -> Outcome<Vec<u8>> {
    let doc: DocIn = serde_json::from_slice(json).map_err(fail)?;
    let version = ctx.args.godot.or(doc.godot).unwrap_or(4);
    if version != 3 && version != 4 {
        return Err(fail(format_args!("at /$__godot: expected 3 or 4, found {version}")));
    }
    let framing = match (ctx.args.framing, doc.framing.as_deref()) {
        (Some(f), _) => f,
        (None, None) => FramingArg::None,
        (None, Some(name)) => [FramingArg::Stream, FramingArg::StreamBe, FramingArg::Packet, FramingArg::None]
            .into_iter()
            .find(|f| framing_name(*f) == name)
            .ok_or_else(|| {
                fail(format_args!("at /$__framing: expected stream, stream-be, packet or none, found {name:?}"))
            })?,
    };
    let values: Vec<Variant> = match (doc.value, doc.values) {
        (Some(v), None) => vec![v.0],
        (None, Some(vs)) => vs.into_iter().map(|v| v.0).collect(),
        _ => return Err(fail("at /: expected exactly one of \"value\" (one Variant) or \"values\" (framed Variants)")),
    };
    if framing == FramingArg::None && values.len() != 1 {
        return Err(fail(format_args!("framing none holds exactly one Variant, found {}", values.len())));
    }
    let opts = options(version);
    let mut out = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let bytes = opts.to_vec(v).map_err(|e| fail(format_args!("at /values/{i}: {e}")))?;
        if framing != FramingArg::None {
            let len = u32::try_from(bytes.len()).map_err(|_| fail(format_args!("at /values/{i}: over 4 GiB")))?;
            out.extend_from_slice(&if framing == FramingArg::StreamBe { len.to_be_bytes() } else { len.to_le_bytes() });
        }
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

pub(super) fn inspect(ctx: &Context, bytes: &[u8]) -> Outcome<String> {
    let (version, framing, values) = decode_values(ctx, bytes)?;
    let mut out = String::new();
    out.push_str("format: godot (Variant)\n");
    out.push_str(&format!("version: Godot {version}\n"));
    out.push_str(&format!("framing: {}\n", framing_name(framing)));
    out.push_str(&format!("size: {}\n", size(bytes.len())));
    out.push_str(&format!("variants: {}\n", values.len()));
    for (i, (_, v)) in values.iter().enumerate() {
        out.push_str(&format!("  {i}: {}\n", describe(v)));
    }
    Ok(out)
}

/// The annotated dump of the file (serde-godot's), in its framing.
pub(super) fn dump(ctx: &Context, bytes: &[u8]) -> String {
    let opts = options(ctx.args.godot.unwrap_or(4));
    let framing = match ctx.args.framing.unwrap_or(FramingArg::None) {
        FramingArg::Stream => Framing::StreamPeer,
        FramingArg::StreamBe => Framing::StreamPeerBigEndian,
        FramingArg::Packet => Framing::PacketPeerStream,
        FramingArg::None => Framing::Datagram,
    };
    serde_godot::dump::dump_frames(bytes, &opts, framing).to_string()
}

fn describe(v: &Variant) -> String {
    let ty = v.variant_type().name();
    match v {
        Variant::Array(a) => format!("{ty} ({} items)", a.len()),
        Variant::Dictionary(d) => {
            let keys: Vec<String> = d.keys().take(8).map(|k| k.to_string()).collect();
            let more = if d.len() > 8 { ", …" } else { "" };
            format!("{ty} ({} entries: {}{more})", d.len(), keys.join(", "))
        }
        _ => {
            let text = v.to_string();
            if text.chars().count() <= 60 { format!("{ty} {text}") } else { ty.to_owned() }
        }
    }
}
