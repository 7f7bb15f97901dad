//! Zero-allocation encode (issue 16 item 2): after a warm-up call, `append` into a reused `Vec`, `to_slice`
//! and `serialized_size` (on `Options`, on a reused `Serializer`, and the crate-level functions) perform no
//! heap allocation for derive types, checked with the counting allocator. Their bytes are `to_vec`'s, which
//! the official-crate and flatc tests check.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_flatbuf_lite::{ErrorKind, Options, Serializer, UnionType};

testkit::install_counting_allocator!();

#[derive(Serialize, Clone, Copy)]
#[serde(rename = "Vec3")]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize, Clone, Copy)]
enum Team {
    Red,
    Blue,
}

#[derive(Serialize)]
struct Weapon {
    name: String,
    damage: i16,
}

#[derive(Serialize)]
enum Equipped {
    Weapon(Weapon),
}

#[derive(Serialize)]
struct Inventory {
    slots: Vec<u16>,
    counts: BTreeMap<String, u32>,
}

#[derive(Serialize)]
struct Packet {
    seq: u32,
    hp: f32,
    alive: bool,
    name: String,
    nick: Option<String>,
    pos: Vec3,
    path: Vec<Vec3>,
    team: Team,
    ids: Vec<i64>,
    inventory: Inventory,
    friends: Vec<Weapon>,
    equipped_type: UnionType,
    equipped: Option<Equipped>,
}

fn packet(seq: u32) -> Packet {
    let pos = Vec3 { x: seq as f32, y: 2.0, z: -1.5 };
    let weapon = |i: u32| Weapon { name: format!("w{i}"), damage: i as i16 };
    Packet {
        seq,
        hp: 0.5,
        alive: seq % 2 == 0,
        name: format!("player {seq}"),
        nick: (seq % 3 != 0).then(|| "nick".to_owned()),
        pos,
        path: vec![pos; (seq % 4) as usize],
        team: if seq % 2 == 0 { Team::Red } else { Team::Blue },
        ids: (0..i64::from(seq % 5)).collect(),
        inventory: Inventory { slots: vec![1, 2, 3], counts: (0..seq % 3).map(|i| (format!("item{i}"), i)).collect() },
        friends: (0..seq % 3).map(weapon).collect(),
        equipped_type: UnionType,
        equipped: (seq % 2 == 1).then(|| Equipped::Weapon(weapon(seq))),
    }
}

fn option_sets() -> [Options; 3] {
    [
        Options::new().inline_struct("Vec3"),
        Options::new().inline_struct("Vec3").file_identifier(*b"PKT1").size_prefixed(true),
        Options::new().omit_zero_scalars(true),
    ]
}

#[test]
fn options_append_into_a_reused_vec_does_not_allocate() {
    let messages: Vec<Packet> = (0..12).map(packet).collect();
    for opts in option_sets() {
        let mut buf = Vec::new();
        for m in &messages {
            buf.clear();
            opts.append(m, &mut buf).unwrap();
        }
        for m in &messages {
            let (n, stats) = testkit::alloc::measure(|| {
                buf.clear();
                opts.append(m, &mut buf).unwrap()
            });
            assert_eq!(stats.count, 0, "{opts:?}: {stats:?}");
            assert_eq!(n, buf.len());
            assert_eq!(buf, opts.to_vec(m).unwrap());
        }
    }
}

#[test]
fn options_to_slice_and_serialized_size_do_not_allocate() {
    let messages: Vec<Packet> = (0..12).map(packet).collect();
    let mut out = [0u8; 4096];
    for opts in option_sets() {
        for m in &messages {
            opts.to_slice(m, &mut out).unwrap();
        }
        for m in &messages {
            let ((n, size), stats) =
                testkit::alloc::measure(|| (opts.to_slice(m, &mut out).unwrap(), opts.serialized_size(m).unwrap()));
            assert_eq!(stats.count, 0, "{opts:?}: {stats:?}");
            let expected = opts.to_vec(m).unwrap();
            assert_eq!((n, size), (expected.len(), expected.len()));
            assert_eq!(&out[..n], expected);
        }
    }
}

#[test]
fn reused_serializer_does_not_allocate() {
    let messages: Vec<Packet> = (0..12).map(packet).collect();
    let opts = Options::new().inline_struct("Vec3");
    let mut ser = Serializer::with_options(opts.clone());
    let mut buf = Vec::new();
    let mut out = [0u8; 4096];
    for m in &messages {
        buf.clear();
        ser.append(m, &mut buf).unwrap();
        ser.to_slice(m, &mut out).unwrap();
    }
    for m in &messages {
        let (_, stats) = testkit::alloc::measure(|| {
            buf.clear();
            let a = ser.append(m, &mut buf).unwrap();
            let b = ser.to_slice(m, &mut out).unwrap();
            let c = ser.serialized_size(m).unwrap();
            assert_eq!((a, b), (c, c));
        });
        assert_eq!(stats.count, 0, "{stats:?}");
        assert_eq!(buf, opts.to_vec(m).unwrap());
    }
}

#[test]
fn crate_level_functions_do_not_allocate_after_warm_up() {
    let m = packet(5);
    let mut out = [0u8; 4096];
    serde_flatbuf_lite::to_slice(&m, &mut out).unwrap();
    let ((n, size), stats) = testkit::alloc::measure(|| {
        (serde_flatbuf_lite::to_slice(&m, &mut out).unwrap(), serde_flatbuf_lite::serialized_size(&m).unwrap())
    });
    assert_eq!(stats.count, 0, "{stats:?}");
    assert_eq!(&out[..n], serde_flatbuf_lite::to_vec(&m).unwrap());
    assert_eq!(size, n);
}

#[test]
fn append_keeps_what_the_vec_held() {
    let mut buf = b"frame".to_vec();
    let n = Options::new().append(&packet(4), &mut buf).unwrap();
    assert_eq!(&buf[..5], b"frame");
    assert_eq!(&buf[5..], serde_flatbuf_lite::to_vec(&packet(4)).unwrap());
    assert_eq!(n, buf.len() - 5);
}

#[test]
fn to_slice_reports_a_slice_too_small() {
    let m = packet(9);
    let needed = serde_flatbuf_lite::serialized_size(&m).unwrap();
    let mut out = vec![0u8; needed - 1];
    let err = serde_flatbuf_lite::to_slice(&m, &mut out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BufferTooSmall, "{err}");
}

/// A table whose union has no placeholder, so learning it keeps a plan.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Learned {
    a: Option<u8>,
    kit: Option<LearnedKit>,
    b: Option<u8>,
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
enum LearnedKit {
    Weapon(LearnedWeapon),
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct LearnedWeapon {
    damage: i16,
}

/// Regression for the process-wide plan registry (plans are kept for the process, as `&'static`): learning
/// the same type again and again keeps no more memory than learning it once, so a caller that calls
/// `learn` per message does not leak.
#[test]
fn learning_a_type_again_keeps_no_more_memory() {
    serde_flatbuf_lite::learn::<Learned>().unwrap();
    let ((), once) = testkit::alloc::measure(|| serde_flatbuf_lite::learn::<Learned>().unwrap());
    let ((), many) = testkit::alloc::measure(|| {
        for _ in 0..200 {
            serde_flatbuf_lite::learn::<Learned>().unwrap();
        }
    });
    assert!(once.count > 0, "learning traces the type: {once:?}");
    assert_eq!(many.peak, once.peak, "200 learns kept memory: {many:?} against one: {once:?}");
}
