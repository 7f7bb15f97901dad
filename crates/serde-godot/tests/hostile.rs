//! Hostile input: every decoder of the crate on every fixture under testkit's mutation checks
//! (no panics, bounded allocation), depth bombs, huge declared counts, full objects, frame sizes.

mod common;

use common::{hex, json};
use serde::Deserialize;
use serde_godot::framing::{self, Framing};
use serde_godot::{ErrorKind, Options, Variant, Version};
use testkit::depth;

testkit::install_counting_allocator!();

/// A typed game message, so that the typed serde paths (structs, enums, options, Godot types,
/// borrowed strings) face the mutations too.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Message<'a> {
    kind: &'a str,
    id: u64,
    pos: serde_godot::Vector2,
    path: Option<serde_godot::NodePath>,
    tags: Vec<String>,
    points: serde_godot::PackedVector3Array,
    extra: Variant,
    command: Command,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Command {
    Stop,
    Move(f32, f32),
    Say { text: String },
}

fn fixtures(version: Version) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    match version {
        Version::Godot3 => {
            let fixture = json("godot3_engine_vectors.json");
            for case in fixture["cases"].as_array().unwrap() {
                out.push((case["name"].as_str().unwrap().to_owned(), hex(case["hex"].as_str().unwrap())));
            }
        }
        Version::Godot4 => {
            let fixture = json("godot4_test_marshalls.json");
            for v in fixture["vectors"].as_array().unwrap() {
                if v["kind"].as_str().unwrap().starts_with("variant") {
                    out.push((v["name"].as_str().unwrap().to_owned(), hex(v["hex"].as_str().unwrap())));
                }
            }
            // Plus a message that exercises the typed path in Godot 4 mode.
            out.push(("message".to_owned(), message_bytes(Options::new())));
        }
    }
    out
}

fn message_bytes(opts: Options) -> Vec<u8> {
    let value = Variant::from([
        ("kind", Variant::from("spawn")),
        ("id", Variant::Int(1 << 40)),
        ("pos", Variant::Vector2(serde_godot::Vector2::new(1.0, 2.0))),
        ("path", Variant::from(serde_godot::NodePath::from("/root/Main:position"))),
        ("tags", Variant::from(vec![Variant::from("a"), Variant::from("bc")])),
        (
            "points",
            Variant::PackedVector3Array(serde_godot::PackedVector3Array(vec![serde_godot::Vector3::new(
                1.0, 2.0, 3.0,
            )])),
        ),
        ("extra", Variant::from([(Variant::Int(1), Variant::PackedByteArray(vec![1, 2, 3].into()))])),
        ("command", Variant::from([("Say", Variant::from([("text", "hi")]))])),
    ]);
    opts.to_vec(&value).unwrap()
}

#[test]
fn every_decoder_survives_mutations_of_every_fixture() {
    for version in [Version::Godot4, Version::Godot3] {
        for full_objects in [false, true] {
            let opts = Options::new().version(version).full_objects(full_objects);
            let check =
                testkit::DecoderCheck::new().fixtures(fixtures(version)).max_alloc(testkit::alloc::default_bound);
            let outcome = check.run(|b| Variant::from_bytes(b, &opts));
            assert!(outcome.ok > 0 && outcome.err > 0, "{outcome:?}");
            check.run(|b| opts.from_slice::<Variant>(b));
            check.run(|b| opts.from_slice::<Message<'_>>(b).map(drop));
            check.run(|b| opts.from_slice::<serde::de::IgnoredAny>(b));
        }
    }
}

#[test]
fn framing_decoders_survive_mutations() {
    let opts = Options::new();
    let frames: Vec<(String, Vec<u8>)> = [Framing::StreamPeer, Framing::StreamPeerBigEndian]
        .into_iter()
        .map(|f| (format!("{f:?}"), framing::to_frame(&Variant::from([("a", 1)]), &opts, f).unwrap()))
        .collect();
    testkit::DecoderCheck::new()
        .fixtures(frames)
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| framing::decode_frame::<Variant>(b, &opts, Framing::StreamPeer));
    let stream = framing::to_frame(&Variant::from([("a", 1)]), &opts, Framing::StreamPeer).unwrap();
    testkit::DecoderCheck::new()
        .fixture("stream", stream)
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| framing::read_frame::<_, Variant>(b, &opts, Framing::StreamPeer));
}

const ARRAY_OF_ONE: [u8; 8] = [0x1c, 0, 0, 0, 1, 0, 0, 0];
const DICT_OF_ONE_STRING_KEY: [u8; 20] = [0x1b, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0];
const NIL: [u8; 4] = [0; 4];

#[test]
fn million_deep_array_is_a_depth_error() {
    let child = testkit::isolate::in_child("million_deep_array_is_a_depth_error", || {
        let bomb = depth::prefixed(&ARRAY_OF_ONE, depth::MILLION, &NIL);
        let is_depth = |e: serde_godot::Error| assert!(matches!(e.kind(), ErrorKind::DepthLimit(1024)), "{e}");
        is_depth(depth::assert_rejects(&bomb, |b| Variant::from_bytes(b, &Options::new())));
        is_depth(depth::assert_rejects(&bomb, |b| serde_godot::from_slice::<Variant>(b).map(drop)));
        is_depth(depth::assert_rejects(&bomb, |b| serde_godot::from_slice::<serde_json::Value>(b).map(drop)));
        is_depth(depth::assert_rejects(&bomb, |b| serde_godot::from_slice::<serde::de::IgnoredAny>(b).map(drop)));
        // A typed message fails on the first mismatch, long before any depth.
        depth::assert_rejects(&bomb, |b| serde_godot::from_slice::<Message<'_>>(b).map(drop));
        // Nested Vec<Vec<...>> through serde: a recursive type.
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Nest(Vec<Nest>);
        is_depth(depth::assert_rejects(&bomb, |b| serde_godot::from_slice::<Nest>(b).map(drop)));
        // Dictionary values nest too.
        let dicts = depth::prefixed(&DICT_OF_ONE_STRING_KEY, depth::MILLION, &NIL);
        is_depth(depth::assert_rejects(&dicts, |b| serde_godot::from_slice::<Variant>(b).map(drop)));
        is_depth(depth::assert_rejects(&dicts, |b| serde_godot::from_slice::<serde_json::Value>(b).map(drop)));
        // So do externally tagged enums, and Godot 3's numbering.
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        enum Tree {
            Node(Box<Tree>),
            Leaf,
        }
        let mut tree = Vec::new();
        for _ in 0..depth::MILLION / 10 {
            tree.extend_from_slice(&[0x1b, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, b'N', b'o', b'd', b'e']);
        }
        tree.extend_from_slice(&[4, 0, 0, 0, 4, 0, 0, 0, b'L', b'e', b'a', b'f']);
        is_depth(depth::assert_rejects(&tree, |b| serde_godot::from_slice::<Tree>(b).map(drop)));
        let g3 = Options::new().version(Version::Godot3);
        let bomb3 = depth::prefixed(&[0x13, 0, 0, 0, 1, 0, 0, 0], depth::MILLION, &NIL);
        is_depth(depth::assert_rejects(&bomb3, |b| g3.from_slice::<Variant>(b)));
    });
    child.assert_passed();
}

#[test]
fn huge_declared_counts_never_preallocate() {
    let bound = |n: usize| testkit::alloc::default_bound(n);
    let inputs = [
        "1c000000ffffff7f00000000",           // Array of 2^31-1 elements, one NIL present
        "1b000000ffffff7f0000000000000000",   // Dictionary of 2^31-1 entries
        "22000000ffffff7f00000000",           // PackedStringArray of 2^31-1 strings
        "1e000000ffffff7f00000000",           // PackedInt32Array of 2^31-1 ints
        "24000000ffffff7f00000000",           // PackedVector3Array
        "1d000000ffffff7f00000000",           // PackedByteArray
        "04000000ffffff7f00000000",           // String of 2^31-1 bytes
        "16000000ffffffff0000000000000000",   // NodePath with 2^31-1 names
        "18000000010000004100000000ffffff7f", // full object with 2^31-1 properties
    ];
    let opts = Options::new().full_objects(true);
    for input in inputs {
        let bytes = hex(input);
        let (result, stats) = testkit::alloc::measure(|| Variant::from_bytes(&bytes, &opts));
        assert!(result.is_err(), "{input}");
        assert!(stats.peak <= bound(bytes.len()), "{input}: {stats:?}");
        let (result, stats) = testkit::alloc::measure(|| opts.from_slice::<Vec<Variant>>(&bytes));
        assert!(result.is_err(), "{input}");
        assert!(stats.peak <= bound(bytes.len()), "{input}: {stats:?}");
        let (result, stats) = testkit::alloc::measure(|| opts.from_slice::<Vec<String>>(&bytes));
        assert!(result.is_err(), "{input}");
        assert!(stats.peak <= bound(bytes.len()), "{input}: {stats:?}");
    }
}

#[test]
fn max_len_is_enforced() {
    let opts = Options::new().max_len(3);
    let long = serde_godot::to_vec(&vec![1, 2, 3, 4]).unwrap();
    let err = opts.from_slice::<Vec<i32>>(&long).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LengthLimit { len: 4, limit: 3 }), "{err}");
    assert_eq!(err.offset(), Some(4));
    assert!(opts.from_slice::<String>(&serde_godot::to_vec("abcd").unwrap()).is_err());
    assert!(opts.from_slice::<Vec<i32>>(&serde_godot::to_vec(&vec![1, 2, 3]).unwrap()).is_ok());
}

#[test]
fn full_objects_are_refused_unless_enabled() {
    let fixture = json("godot3_engine_vectors.json");
    let case = fixture["cases"].as_array().unwrap().iter().find(|c| c["name"] == "object_resource_full").unwrap();
    let bytes = hex(case["hex"].as_str().unwrap());
    let g3 = Options::new().version(Version::Godot3);
    for err in [Variant::from_bytes(&bytes, &g3).unwrap_err(), g3.from_slice::<Variant>(&bytes).unwrap_err()] {
        assert!(matches!(err.kind(), ErrorKind::FullObjectsDisabled), "{err}");
        assert_eq!(err.offset(), Some(4));
    }
    let value = Variant::from_bytes(&bytes, &g3.full_objects(true)).unwrap();
    let Variant::Object(serde_godot::Object::Full(obj)) = &value else { panic!("{value:?}") };
    assert_eq!(obj.class, "Resource");
    // Encoding a full object needs the option too.
    assert!(matches!(g3.to_vec(&value).unwrap_err().kind(), ErrorKind::FullObjectsDisabled));
    // Object ids are always fine.
    assert!(Variant::from_bytes(&hex("110001000805000000000000"), &g3).is_ok());
}

#[test]
fn frames_above_max_size_are_refused_before_reading() {
    let opts = Options::new();
    // A prefix announcing 1 GiB, and nothing after it.
    let prefix = (1u32 << 30).to_le_bytes();
    let err = framing::decode_frame::<Variant>(&prefix, &opts, Framing::StreamPeer).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
    let (result, stats) =
        testkit::alloc::measure(|| framing::read_frame::<_, Variant>(&prefix[..], &opts, Framing::StreamPeer));
    assert!(matches!(result.unwrap_err().kind(), ErrorKind::SizeLimit { .. }));
    assert!(stats.peak < 1024, "{stats:?}");
    // A prefix within the limit but with the body missing is an I/O error, not an allocation.
    let small = 1000u32.to_le_bytes();
    let (result, stats) =
        testkit::alloc::measure(|| framing::read_frame::<_, Variant>(&small[..], &opts, Framing::StreamPeer));
    assert!(matches!(result.unwrap_err().kind(), ErrorKind::Io(_)));
    assert!(stats.peak < 4096, "{stats:?}");
    // Encoding refuses too.
    let big = serde_godot::PackedByteArray(vec![0; 64]);
    let err = framing::to_frame(&big, &Options::new().max_size(32), Framing::StreamPeer).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SizeLimit { size: 72, limit: 32 }), "{err}");
    // from_reader stops reading at the limit.
    let err = Options::new().max_size(16).from_reader::<_, Variant>(&[0u8; 64][..]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
}
