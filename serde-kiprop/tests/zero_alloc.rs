//! Zero-allocation encode (issue 16 item 2): after a warm-up call, `Options::append` into a reused `Vec`,
//! `Options::to_slice` and `Options::serialized_size` perform no heap allocation for derive types, checked
//! with the counting allocator; their bytes are `to_vec`'s (whose bytes the katsuba tests check).

use serde::Serialize;
use serde_kiprop::{ClassSchema, ErrorKind, Options, PropertySchema as P, TypeList, flags, serializer_flags::*};

testkit::install_counting_allocator!();

const DELTA: u32 = flags::DEFAULT | flags::DELTA_ENCODE;

static PACKET: ClassSchema = ClassSchema::new(
    "class Packet",
    &[
        P::new("m_seq").ty("unsigned int"),
        P::new("m_hp").ty("float"),
        P::new("m_alive").ty("bool"),
        P::new("m_name").ty("std::string"),
        P::new("m_nick").ty("std::string").flags(DELTA),
        P::new("m_pos").ty("class Pos"),
        P::new("m_pet").ty("class Pos*"),
        P::new("m_path").ty("class Pos").dynamic(),
        P::new("m_ids").ty("int").dynamic(),
        P::new("m_school").ty("enum School").options(&[("Fire", 2), ("Ice", 4), ("Storm", 8)]),
    ],
);
static POS: ClassSchema =
    ClassSchema::new("class Pos", &[P::new("m_x").ty("float"), P::new("m_y").ty("float"), P::new("m_z").ty("float")]);

#[derive(Serialize, Clone, Copy)]
#[serde(rename = "class Pos")]
struct Pos {
    m_x: f32,
    m_y: f32,
    m_z: f32,
}

#[derive(Serialize)]
enum School {
    Fire,
    Ice,
    #[allow(dead_code)] // part of the enum, not of the messages
    Storm,
}

#[derive(Serialize)]
#[serde(rename = "class Packet")]
struct Packet {
    m_seq: u32,
    m_hp: f32,
    m_alive: bool,
    m_name: String,
    m_nick: Option<String>,
    m_pos: Pos,
    m_pet: Option<Pos>,
    m_path: Vec<Pos>,
    m_ids: Vec<i32>,
    m_school: School,
}

fn types() -> TypeList {
    TypeList::from_schemas(&[&PACKET, &POS])
}

fn packet(seq: u32) -> Packet {
    let pos = Pos { m_x: seq as f32, m_y: 2.0, m_z: -1.5 };
    Packet {
        m_seq: seq,
        m_hp: 0.5,
        m_alive: seq % 2 == 0,
        m_name: format!("player {seq}"),
        m_nick: (seq % 3 != 0).then(|| "nick".to_owned()),
        m_pos: pos,
        m_pet: (seq % 2 == 1).then_some(pos),
        m_path: vec![pos; (seq % 4) as usize],
        m_ids: (0..seq as i32 % 5).collect(),
        m_school: if seq % 2 == 0 { School::Fire } else { School::Ice },
    }
}

/// Every option set that encodes without compression: shallow, deep, stored flags, a `BINd` game file.
fn uncompressed() -> [Options; 4] {
    [
        Options::new().property_mask(0),
        Options::new().deep(true),
        Options::new().property_mask(0).flags(STATEFUL_FLAGS | COMPACT_LENGTH_PREFIXES),
        Options::game_file(),
    ]
}

#[test]
fn append_into_a_reused_vec_does_not_allocate() {
    let types = types();
    let messages: Vec<Packet> = (0..12).map(packet).collect();
    for opts in uncompressed() {
        let mut buf = Vec::new();
        // Warm-up: the largest message grows the buffer and this thread's scratch.
        for m in &messages {
            buf.clear();
            opts.append(m, &types, &mut buf).unwrap();
        }
        for m in &messages {
            let (written, stats) = testkit::alloc::measure(|| {
                buf.clear();
                opts.append(m, &types, &mut buf).unwrap()
            });
            assert_eq!(stats.count, 0, "{opts:?}: {stats:?}");
            assert_eq!(written, buf.len());
            assert_eq!(buf, opts.to_vec(m, &types).unwrap());
        }
    }
}

#[test]
fn to_slice_and_serialized_size_do_not_allocate() {
    let types = types();
    let messages: Vec<Packet> = (0..12).map(packet).collect();
    let mut out = [0u8; 4096];
    for opts in uncompressed() {
        for m in &messages {
            opts.to_slice(m, &types, &mut out).unwrap();
            opts.serialized_size(m, &types).unwrap();
        }
        for m in &messages {
            let ((n, size), stats) = testkit::alloc::measure(|| {
                (opts.to_slice(m, &types, &mut out).unwrap(), opts.serialized_size(m, &types).unwrap())
            });
            assert_eq!(stats.count, 0, "{opts:?}: {stats:?}");
            let expected = opts.to_vec(m, &types).unwrap();
            assert_eq!((n, size), (expected.len(), expected.len()));
            assert_eq!(&out[..n], expected);
        }
    }
    // The default options, through the crate-level functions.
    let m = packet(7);
    let (n, size) = (serde_kiprop::to_slice(&m, &types, &mut out).unwrap(), serde_kiprop::serialized_size(&m, &types));
    assert_eq!(&out[..n], serde_kiprop::to_vec(&m, &types).unwrap());
    assert_eq!(size.unwrap(), n);
}

#[test]
fn append_keeps_what_the_vec_held() {
    let types = types();
    let opts = Options::game_file();
    let mut buf = b"header".to_vec();
    let n = opts.append(&packet(5), &types, &mut buf).unwrap();
    assert_eq!(&buf[..6], b"header");
    assert_eq!(&buf[6..], opts.to_vec(&packet(5), &types).unwrap());
    assert_eq!(n, buf.len() - 6);
    // A failing encode leaves the Vec as it was: shallow mode needs DELTA-less properties present.
    let len = buf.len();
    let forbid = Options::new().property_mask(0).flags(FORBID_DELTA_ENCODE);
    let mut no_nick = packet(3);
    no_nick.m_nick = None;
    assert!(forbid.append(&no_nick, &types, &mut buf).is_err());
    assert_eq!(buf.len(), len);
}

#[test]
fn to_slice_reports_a_slice_too_small() {
    let types = types();
    let m = packet(9);
    let needed = Options::new().serialized_size(&m, &types).unwrap();
    let mut out = vec![0u8; needed - 1];
    let err = Options::new().to_slice(&m, &types, &mut out).unwrap_err();
    match err.kind() {
        ErrorKind::BufferTooSmall { needed: n, available } => assert_eq!((*n, *available), (needed, needed - 1)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn compressed_output_matches_to_vec_but_allocates() {
    // zlib allocates its state and the deflated copy: documented as the exception.
    let types = types();
    let opts = Options::new().property_mask(0).flags(STATEFUL_FLAGS | WITH_COMPRESSION);
    let m = packet(11);
    let mut buf = Vec::new();
    opts.append(&m, &types, &mut buf).unwrap();
    buf.clear();
    let (_, stats) = testkit::alloc::measure(|| opts.append(&m, &types, &mut buf).unwrap());
    assert!(stats.count > 0);
    assert_eq!(buf, opts.to_vec(&m, &types).unwrap());
}
