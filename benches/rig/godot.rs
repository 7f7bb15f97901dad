//! serde-godot rows: the Dictionary and Array struct forms on the four datasets (through
//! `for_each_codec!`), the mesh through a PackedVector3Array, and a `packets` dataset — 1,000
//! game messages encoded one by one, as a server sends them — where the crates.io
//! `godot-binary-serialization` crate (which has no Array type, so cannot express the four
//! datasets) runs side by side with the anchors; and `packets_reused`, the same messages each
//! encoded into one reused, cleared buffer and decoded alone: the per-call cost of a server.

use std::hint::black_box;

use criterion::{Criterion, SamplingMode, Throughput};
use serde::{Deserialize, Serialize};
use serde_godot::{Options, PackedVector3Array, StructForm, UnitVariants, Vector2, Vector3};

use super::{Codec, datasets};

/// Structs as Dictionaries keyed by field name (GDScript reads `msg["hp"]`), unit variants by
/// name: serde-godot's defaults.
pub const DICT: Options = Options::new();

/// Structs as Arrays of their fields, unit variants by index: the compact form.
pub const ARRAY: Options = Options::new().struct_form(StructForm::Array).unit_variants(UnitVariants::Index);

/// serde-godot, Dictionary struct form (the default options).
pub struct GodotDict;

impl Codec for GodotDict {
    const NAME: &'static str = "serde-godot-dict";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        DICT.append(value, buf).expect("serde-godot encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        DICT.from_slice(bytes).expect("serde-godot decode")
    }
}

/// serde-godot, Array struct form and unit variants as indices.
pub struct GodotArray;

impl Codec for GodotArray {
    const NAME: &'static str = "serde-godot-array";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        ARRAY.append(value, buf).expect("serde-godot encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        ARRAY.from_slice(bytes).expect("serde-godot decode")
    }
}

/// The mesh as a Godot game would send it: one PackedVector3Array of the 4 vectors of every
/// triangle (v0, v1, v2, normal) — the same 6,000,000 bytes of f32 payload.
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
pub struct PackedMesh {
    /// v0, v1, v2 and the normal of each triangle.
    pub triangles: PackedVector3Array,
}

impl PackedMesh {
    /// Flattens the rig's mesh.
    pub fn from_mesh(mesh: &datasets::Mesh) -> Self {
        let v = |v: datasets::Vector3| Vector3::new(v.x, v.y, v.z);
        let triangles = mesh.triangles.iter().flat_map(|t| [v(t.v0), v(t.v1), v(t.v2), v(t.normal)]).collect();
        PackedMesh { triangles }
    }
}

/// The PackedVector3Array mesh row (Dictionary form around one packed array).
pub struct GodotPacked;

impl Codec for GodotPacked {
    const NAME: &'static str = "serde-godot-packed";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        GodotDict::encode(value, buf)
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        GodotDict::decode(bytes)
    }
}

/// One game message of the `packets` dataset.
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
pub struct Packet {
    /// Entity id.
    pub id: i64,
    /// Display name.
    pub name: String,
    /// Position.
    pub pos: Vector2,
    /// Velocity.
    pub vel: Vector3,
    /// Health.
    pub hp: f32,
    /// Alive flag.
    pub alive: bool,
}

/// Messages in the `packets` dataset.
pub const PACKETS: usize = 1000;

/// The `packets` dataset: `n` messages from the dataset seed.
pub fn packets(n: usize) -> Vec<Packet> {
    let mut rng = testkit::rng::Pcg32::for_datasets();
    (0..n)
        .map(|i| Packet {
            id: i as i64 * 7919,
            name: rng.ident(3, 12),
            pos: Vector2::new(rng.f32_in(-1000.0, 1000.0), rng.f32_in(-1000.0, 1000.0)),
            vel: Vector3::new(rng.f32_in(-5.0, 5.0), rng.f32_in(-5.0, 5.0), rng.f32_in(-5.0, 5.0)),
            hp: rng.f32_in(0.0, 100.0),
            alive: rng.chance(9, 10),
        })
        .collect()
}

/// Encodes every message after the previous one; returns the bytes and each message's end.
pub fn encode_packets<C: Codec>(msgs: &[Packet], buf: &mut Vec<u8>, ends: &mut Vec<usize>) {
    buf.clear();
    ends.clear();
    for m in msgs {
        C::encode(m, buf);
        ends.push(buf.len());
    }
}

/// Decodes every message.
pub fn decode_packets<C: Codec>(bytes: &[u8], ends: &[usize]) -> Vec<Packet> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let m = C::decode(&bytes[start..end]);
            start = end;
            m
        })
        .collect()
}

/// The crates.io `godot-binary-serialization` 0.2.0 crate: a dynamic tree of boxed variants,
/// built from (and read back into) the typed message.
pub mod gbs {
    use godot_binary_serialization::decoder::Decoder;
    use godot_binary_serialization::encoder::Encoder;
    use godot_binary_serialization::types::primitive::{GodotBool, GodotFloat, GodotInteger, GodotString};
    use godot_binary_serialization::types::structures::{GodotDictionary, GodotVector2, GodotVector3};
    use godot_binary_serialization::types::variant::AsVariant;

    use super::Packet;

    /// Row name.
    pub const NAME: &str = "godot-binary-serialization";

    /// Appends one message.
    pub fn encode(p: &Packet, buf: &mut Vec<u8>) {
        let mut d = GodotDictionary::new();
        d.insert(GodotString::new("id"), GodotInteger::new_from_i64(p.id));
        d.insert(GodotString::new("name"), GodotString::new(&p.name));
        d.insert(GodotString::new("pos"), GodotVector2::new(p.pos.x, p.pos.y));
        d.insert(GodotString::new("vel"), GodotVector3::new(p.vel.x, p.vel.y, p.vel.z));
        d.insert(GodotString::new("hp"), GodotFloat::new_from_f32(p.hp));
        d.insert(GodotString::new("alive"), GodotBool::new(p.alive));
        buf.extend_from_slice(&Encoder::encode_dictionary(&d).expect("godot-binary-serialization encode"));
    }

    /// Decodes one message.
    pub fn decode(bytes: &[u8]) -> Packet {
        let v = Decoder::decode_variant(bytes).expect("godot-binary-serialization decode");
        let d = v.as_var::<GodotDictionary>().expect("a dictionary");
        let int = |k: &str| d.get::<GodotInteger>(GodotString::new(k)).expect(k).value;
        let float = |k: &str| d.get::<GodotFloat>(GodotString::new(k)).expect(k).value;
        let pos = d.get::<GodotVector2>(GodotString::new("pos")).expect("pos");
        let vel = d.get::<GodotVector3>(GodotString::new("vel")).expect("vel");
        Packet {
            id: int("id"),
            name: d.get::<GodotString>(GodotString::new("name")).expect("name").value.clone(),
            pos: serde_godot::Vector2::new(pos.x, pos.y),
            vel: serde_godot::Vector3::new(vel.x, vel.y, vel.z),
            hp: float("hp") as f32,
            alive: d.get::<GodotBool>(GodotString::new("alive")).expect("alive").value,
        }
    }

    /// Encodes every message after the previous one; returns each message's end.
    pub fn encode_all(msgs: &[Packet], buf: &mut Vec<u8>, ends: &mut Vec<usize>) {
        buf.clear();
        ends.clear();
        for m in msgs {
            encode(m, buf);
            ends.push(buf.len());
        }
    }

    /// Decodes every message.
    pub fn decode_all(bytes: &[u8], ends: &[usize]) -> Vec<Packet> {
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let m = decode(&bytes[start..end]);
                start = end;
                m
            })
            .collect()
    }
}

fn group<'a>(
    c: &'a mut Criterion,
    dataset: &str,
    op: &str,
    bytes: usize,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(format!("{dataset}/{op}"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes as u64));
    group
}

/// The PackedVector3Array mesh row.
fn bench_packed_mesh(c: &mut Criterion, mesh: &datasets::Mesh) {
    let packed = PackedMesh::from_mesh(mesh);
    let bytes = super::assert_round_trip::<GodotPacked, _>("mesh", &packed);
    super::record_size("mesh", GodotPacked::NAME, bytes.len());
    let mut buf = Vec::with_capacity(bytes.len());
    let mut g = group(c, "mesh", "serialize", bytes.len());
    g.bench_function(GodotPacked::NAME, |b| {
        b.iter(|| {
            buf.clear();
            GodotPacked::encode(black_box(&packed), &mut buf);
            black_box(buf.len());
        })
    });
    g.finish();
    let mut g = group(c, "mesh", "deserialize", bytes.len());
    g.bench_function(GodotPacked::NAME, |b| b.iter(|| black_box(GodotPacked::decode::<PackedMesh>(black_box(&bytes)))));
    g.finish();
}

/// One row of the `packets` dataset.
fn bench_packets_row<C: Codec>(c: &mut Criterion, msgs: &[Packet]) {
    let (mut buf, mut ends) = (Vec::new(), Vec::new());
    encode_packets::<C>(msgs, &mut buf, &mut ends);
    assert!(decode_packets::<C>(&buf, &ends) == msgs, "{} does not round-trip the packets", C::NAME);
    super::record_size("packets", C::NAME, buf.len());
    let len = buf.len();
    let mut g = group(c, "packets", "serialize", len);
    g.bench_function(C::NAME, |b| b.iter(|| encode_packets::<C>(black_box(msgs), &mut buf, &mut ends)));
    g.finish();
    let mut g = group(c, "packets", "deserialize", len);
    g.bench_function(C::NAME, |b| b.iter(|| black_box(decode_packets::<C>(black_box(&buf), &ends))));
    g.finish();
}

/// `packets_reused/serialize`, one pass: every message encoded alone into `buf`, cleared first.
pub fn encode_each<C: Codec>(msgs: &[Packet], buf: &mut Vec<u8>) {
    for m in msgs {
        buf.clear();
        C::encode(m, buf);
        black_box(&*buf);
    }
}

/// `packets_reused/deserialize`, one pass: every message of `all` (ending at `ends`) decoded alone,
/// not collected.
pub fn decode_each<C: Codec>(all: &[u8], ends: &[usize]) {
    decode_each_with(all, ends, C::decode::<Packet>);
}

/// [`decode_each`] with any decoder of one message (the reference decoder, [`floor::decode`], too).
#[inline(always)]
pub fn decode_each_with<'a, T>(all: &'a [u8], ends: &[usize], decode: impl Fn(&'a [u8]) -> T) {
    let mut start = 0;
    for &end in ends {
        black_box(decode(black_box(&all[start..end])));
        start = end;
    }
}

/// One row of the `packets_reused` dataset: the same 1,000 messages, each encoded alone into one
/// reused buffer (cleared before each message, as a server that encodes, sends and reuses does)
/// and each decoded alone without collecting: the per-call cost, setup included.
fn bench_packets_reused_row<C: Codec>(c: &mut Criterion, msgs: &[Packet]) {
    let (mut all, mut ends) = (Vec::new(), Vec::new());
    encode_packets::<C>(msgs, &mut all, &mut ends);
    super::record_size("packets_reused", C::NAME, all.len());
    let len = all.len();
    let mut buf = Vec::with_capacity(4096);
    let mut g = group(c, "packets_reused", "serialize", len);
    g.bench_function(C::NAME, |b| b.iter(|| encode_each::<C>(black_box(msgs), &mut buf)));
    g.finish();
    let mut g = group(c, "packets_reused", "deserialize", len);
    g.bench_function(C::NAME, |b| b.iter(|| decode_each::<C>(black_box(&all), &ends)));
    g.finish();
}

/// The godot-binary-serialization row of the `packets` dataset.
fn bench_packets_gbs(c: &mut Criterion, msgs: &[Packet]) {
    let (mut buf, mut ends) = (Vec::new(), Vec::new());
    gbs::encode_all(msgs, &mut buf, &mut ends);
    assert!(gbs::decode_all(&buf, &ends) == msgs, "godot-binary-serialization does not round-trip the packets");
    super::record_size("packets", gbs::NAME, buf.len());
    let len = buf.len();
    let mut g = group(c, "packets", "serialize", len);
    g.bench_function(gbs::NAME, |b| b.iter(|| gbs::encode_all(black_box(msgs), &mut buf, &mut ends)));
    g.finish();
    let mut g = group(c, "packets", "deserialize", len);
    g.bench_function(gbs::NAME, |b| b.iter(|| black_box(gbs::decode_all(black_box(&buf), &ends))));
    g.finish();
}

/// serde-godot's custom rows (called from `main` in `benches/formats.rs`).
pub fn bench(c: &mut Criterion, data: &super::Datasets) {
    bench_packed_mesh(c, &data.mesh);
    let msgs = packets(PACKETS);
    bench_packets_row::<super::anchors::Postcard>(c, &msgs);
    bench_packets_row::<super::anchors::Bincode1>(c, &msgs);
    bench_packets_row::<super::anchors::SerdeJson>(c, &msgs);
    bench_packets_row::<super::anchors::RmpSerdeNamed>(c, &msgs);
    bench_packets_row::<GodotDict>(c, &msgs);
    bench_packets_row::<GodotArray>(c, &msgs);
    bench_packets_gbs(c, &msgs);
    bench_packets_reused_row::<super::anchors::Postcard>(c, &msgs);
    bench_packets_reused_row::<super::anchors::Bincode1>(c, &msgs);
    bench_packets_reused_row::<GodotDict>(c, &msgs);
    bench_packets_reused_row::<GodotArray>(c, &msgs);
}

/// A reference point for issue 16.2, not a product path: one Array-form [`Packet`] decoded by
/// hand, with no serde layer, the input kept in a local slice and the message's layout known in
/// advance. It makes the checks serde-godot's fast paths make: each value's exact 4-byte header,
/// the count, the string's length limit, padding, no NUL and no leading BOM (the engine's string
/// rules), UTF-8, and nothing after the message. Whatever else a message holds gives `None`.
/// `goals.rs` times it against bincode 1.3.3 through serde, to show how close to the goal Godot's
/// bytes let any safe decoder come.
pub mod floor {
    use super::Packet;
    use ascii::AsAsciiStr;
    use serde_godot::{Vector2, Vector3};

    /// Godot 4 header type ids of the message's values.
    const ARRAY: u32 = 28;
    const INT: u32 = 2;
    const STRING: u32 = 4;
    const FLOAT: u32 = 3;
    const BOOL: u32 = 1;
    const VECTOR2: u32 = 5;
    const VECTOR3: u32 = 9;

    /// serde-godot's default length limit (Godot's lengths are 31-bit).
    const MAX_LEN: usize = i32::MAX as usize;

    /// The next 8 bytes as a header word and the value after it (or a 32-bit payload).
    #[inline(always)]
    fn word(r: &mut &[u8]) -> Option<u64> {
        let (w, rest) = r.split_first_chunk::<8>()?;
        *r = rest;
        Some(u64::from_le_bytes(*w))
    }

    /// The next `N` bytes if they start with `header`.
    #[inline(always)]
    fn fixed<'a, const N: usize>(r: &mut &'a [u8], header: u32) -> Option<&'a [u8; N]> {
        let (v, rest) = r.split_first_chunk::<N>()?;
        *r = rest;
        (v[..4] == header.to_le_bytes()).then_some(v)
    }

    /// Filler of words shorter than 8 bytes: neither zero nor above ASCII.
    const FILL: u64 = 0x0101_0101_0101_0101;

    /// Whether a word holds a zero byte.
    #[inline(always)]
    fn zero_byte(x: u64) -> bool {
        x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080 != 0
    }

    /// A STRING value of up to 16 bytes by the engine's rules, owned.
    #[inline(always)]
    fn string(r: &mut &[u8]) -> Option<String> {
        let value = *r;
        let w = word(r)?;
        let len = (w >> 32) as usize;
        if w as u32 != STRING || len > MAX_LEN || len > 16 {
            return None;
        }
        let (padded, rest) = r.split_at_checked(len + ((4 - (len & 3)) & 3))?;
        *r = rest;
        let bytes = &padded[..len];
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u64::from(u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")));
        let (head, last) = match len {
            0 => return Some(String::new()),
            8..=16 => (u64_at(0), u64_at(len - 8)),
            4..=7 => (u32_at(0) | FILL << 32, u32_at(len - 4) | FILL << 32),
            _ => {
                let w = u64::from(u32::from_le_bytes(*padded.first_chunk::<4>()?)) | FILL << (8 * len);
                (w, w)
            }
        };
        if zero_byte(head) || zero_byte(last) || head as u32 & 0x00FF_FFFF == 0x00BF_BBEF {
            return None;
        }
        if (head | last) & 0x8080_8080_8080_8080 != 0 {
            return Some(std::str::from_utf8(bytes).ok()?.to_owned());
        }
        // ASCII: serde-godot's shortcut, the 8 or 16 value bytes that end with the string
        // (header and length are ASCII too) checked as ASCII, no UTF-8 validation.
        let end = 8 + len;
        let window = if len >= 8 { 16 } else { 8 };
        Some(value[end - window..end].as_ascii_str().ok()?[window - len..].as_str().to_owned())
    }

    /// One Array-form message (Godot 4), or `None` for anything else.
    #[inline(never)]
    pub fn decode(bytes: &[u8]) -> Option<Packet> {
        let mut r = bytes;
        let h = word(&mut r)?;
        if h as u32 != ARRAY || (h >> 32) as u32 & 0x7FFF_FFFF != 6 {
            return None;
        }
        let w = word(&mut r)?;
        if w as u32 != INT {
            return None;
        }
        let id = i64::from((w >> 32) as u32 as i32);
        let name = string(&mut r)?;
        let f = |v: &[u8], i: usize| f32::from_le_bytes(v[i..i + 4].try_into().expect("4 bytes"));
        let v = fixed::<12>(&mut r, VECTOR2)?;
        let pos = Vector2::new(f(v, 4), f(v, 8));
        let v = fixed::<16>(&mut r, VECTOR3)?;
        let vel = Vector3::new(f(v, 4), f(v, 8), f(v, 12));
        let w = word(&mut r)?;
        if w as u32 != FLOAT {
            return None;
        }
        let hp = f32::from_bits((w >> 32) as u32);
        let w = word(&mut r)?;
        if w as u32 != BOOL {
            return None;
        }
        let alive = w >> 32 != 0;
        r.is_empty().then_some(Packet { id, name, pos, vel, hp, alive })
    }
}
