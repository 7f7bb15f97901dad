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

// ---------------------------------------------------------------------------------------------
// Dictionary keys (issue 12): every key type is hashed over all of its contents, consistently
// with the equality that merges duplicates, and a Dictionary decodes in linear time whatever its
// keys are.

/// Godot 4 type ids used to build raw inputs.
const NIL_ID: u32 = 0;
const INT_ID: u32 = 2;
const FLOAT_ID: u32 = 3;
const DICT_ID: u32 = 27;
const ARRAY_ID: u32 = 28;
/// The 64-bit flag of INT, FLOAT and (Godot 4) math headers.
const WIDE: u32 = 1 << 16;

fn word(out: &mut Vec<u8>, w: u32) {
    out.extend_from_slice(&w.to_le_bytes());
}

/// A raw untyped Dictionary of already encoded keys and values (no merging on the way).
fn raw_dict(entries: impl ExactSizeIterator<Item = (Vec<u8>, Vec<u8>)>) -> Vec<u8> {
    let mut out = Vec::new();
    word(&mut out, DICT_ID);
    word(&mut out, entries.len() as u32);
    for (k, v) in entries {
        out.extend_from_slice(&k);
        out.extend_from_slice(&v);
    }
    out
}

fn int(i: i64) -> Vec<u8> {
    Variant::Int(i).to_bytes(&Options::new()).unwrap()
}

fn enc(v: &Variant, opts: &Options) -> Vec<u8> {
    v.to_bytes(opts).unwrap()
}

/// A math key: `ty` with `comps` real components, all 1.5 but the last, which is `i` (so keys
/// differ only in their last component); 64-bit reals if `wide`.
fn math_key(ty: u32, comps: usize, i: u32, wide: bool) -> Vec<u8> {
    let mut out = Vec::new();
    word(&mut out, ty | if wide { WIDE } else { 0 });
    for c in 0..comps {
        let v = if c + 1 == comps { i as f64 } else { 1.5 };
        if wide {
            out.extend_from_slice(&v.to_le_bytes());
        } else {
            out.extend_from_slice(&(v as f32).to_le_bytes());
        }
    }
    out
}

/// Every Godot 4 math type: name, type id, real components.
const MATH_TYPES: [(&str, u32, usize); 12] = [
    ("Vector2", 5, 2),
    ("Rect2", 7, 4),
    ("Vector3", 9, 3),
    ("Transform2D", 11, 6),
    ("Vector4", 12, 4),
    ("Plane", 14, 4),
    ("Quaternion", 15, 4),
    ("AABB", 16, 6),
    ("Basis", 17, 9),
    ("Transform3D", 18, 12),
    ("Projection", 19, 16),
    ("Color", 20, 4),
];

/// About `n` bytes of a Dictionary whose keys, `key(i)`, are all different, with NIL values.
fn key_flood(n: usize, key: impl Fn(u32) -> Vec<u8>) -> Vec<u8> {
    let per = key(0).len() + 4;
    let count = (n / per).max(1) as u32;
    raw_dict((0..count).map(|i| (key(i), NIL.to_vec())).collect::<Vec<_>>().into_iter())
}

fn entries(v: &Variant) -> usize {
    match v {
        Variant::Dictionary(d) => d.len(),
        other => panic!("not a Dictionary: {other:?}"),
    }
}

fn decodes_all_keys(input: &[u8], opts: &Options) -> bool {
    let count = u32::from_le_bytes(input[4..8].try_into().unwrap()) as usize;
    let direct = Variant::from_bytes(input, opts).unwrap();
    let serde = opts.from_slice::<Variant>(input).unwrap();
    entries(&direct) == count && entries(&serde) == count
}

#[test]
fn dictionary_keys_of_every_math_type_hash_their_contents() {
    // Before the fix, Rect2, Transform2D, Plane, AABB, Basis, Transform3D and Projection keys all
    // hashed alike: 16k of them took ~5 s (release build) to decode; now a few milliseconds.
    for (name, ty, comps) in MATH_TYPES {
        // Color is always 32-bit.
        for wide in [false, true].into_iter().filter(|&wide| !wide || name != "Color") {
            let opts = Options::new();
            testkit::scaling::Case::new(format!("{name} keys (64-bit: {wide})"), |n| {
                key_flood(n, |i| math_key(ty, comps, i, wide))
            })
            .size(16 * 1024)
            .run(|input| assert!(decodes_all_keys(input, &opts)));
        }
    }
}

#[test]
fn dictionary_keys_of_every_other_type_hash_their_contents() {
    let g4 = Options::new();
    let objects = Options::new().full_objects(true);
    type KeyFn = Box<dyn Fn(u32) -> Variant>;
    let keys: Vec<(&str, Options, KeyFn)> = vec![
        ("String", g4, Box::new(|i| Variant::from(format!("key{i}")))),
        ("StringName", g4, Box::new(|i| Variant::StringName(format!("key{i}").into()))),
        ("NodePath", g4, Box::new(|i| Variant::from(serde_godot::NodePath::from(format!("a/b:c{i}").as_str())))),
        ("Vector3i", g4, Box::new(|i| Variant::Vector3i(serde_godot::Vector3i::new(1, 2, i as i32)))),
        ("Rect2i", g4, Box::new(|i| Variant::Rect2i(serde_godot::Rect2i::new(1, 2, 3, i as i32)))),
        ("Object id", g4, Box::new(|i| Variant::from(serde_godot::ObjectId(u64::from(i) + 1)))),
        ("Dictionary", g4, Box::new(|i| Variant::from([(Variant::Int(0), Variant::Int(i64::from(i)))]))),
        ("Array", g4, Box::new(|i| Variant::from(vec![Variant::Int(0), Variant::Float(f64::from(i))]))),
        ("PackedByteArray", g4, Box::new(|i| Variant::PackedByteArray(i.to_le_bytes().to_vec().into()))),
        ("PackedInt32Array", g4, Box::new(|i| Variant::PackedInt32Array(vec![0, i as i32].into()))),
        ("PackedInt64Array", g4, Box::new(|i| Variant::PackedInt64Array(vec![0, i64::from(i)].into()))),
        ("PackedFloat32Array", g4, Box::new(|i| Variant::PackedFloat32Array(vec![1.5, i as f32].into()))),
        ("PackedFloat64Array", g4, Box::new(|i| Variant::PackedFloat64Array(vec![1.5, f64::from(i)].into()))),
        ("PackedStringArray", g4, Box::new(|i| Variant::PackedStringArray(vec!["a".into(), i.to_string()].into()))),
        (
            "PackedVector2Array",
            g4,
            Box::new(|i| Variant::PackedVector2Array(vec![serde_godot::Vector2::new(1.5, i as f32)].into())),
        ),
        (
            "PackedVector3Array",
            g4,
            Box::new(|i| Variant::PackedVector3Array(vec![serde_godot::Vector3::new(1.5, 1.5, i as f32)].into())),
        ),
        (
            "PackedVector4Array",
            g4,
            Box::new(|i| Variant::PackedVector4Array(vec![serde_godot::Vector4::new(1.5, 1.5, 1.5, i as f32)].into())),
        ),
        (
            "PackedColorArray",
            g4,
            Box::new(|i| Variant::PackedColorArray(vec![serde_godot::Color::new(1.5, 1.5, 1.5, i as f32)].into())),
        ),
        (
            "full Object",
            objects,
            Box::new(|i| {
                Variant::from(serde_godot::FullObject {
                    class: "Node".into(),
                    properties: vec![("a".into(), Variant::Nil), ("b".into(), Variant::Float(f64::from(i)))],
                })
            }),
        ),
    ];
    for (name, opts, key) in &keys {
        testkit::scaling::Case::new(format!("{name} keys"), |n| key_flood(n, |i| enc(&key(i), opts)))
            .size(16 * 1024)
            .run(|input| assert!(decodes_all_keys(input, opts), "{name}"));
    }
}

/// Pairs of different encodings of one key under Godot's `hash_compare` (-0.0 and 0.0, two NaNs,
/// 32- and 64-bit floats), and pairs that look alike but are different keys.
type Pairs = Vec<(Variant, Variant)>;

fn key_pairs() -> (Pairs, Pairs) {
    use serde_godot::{FullObject, Rect2, Transform3D, Vector2, Vector3};
    let nan_a = f32::from_bits(0x7fc0_0000);
    let nan_b = f32::from_bits(0xffc0_1234);
    let nan64_b = f64::from_bits(0xfff8_0000_0000_0042);
    let object =
        |p: f64| Variant::from(FullObject { class: "Node".into(), properties: vec![("p".into(), Variant::Float(p))] });
    let same = vec![
        (Variant::Float(0.0), Variant::Float(-0.0)),
        (Variant::Float(f64::NAN), Variant::Float(nan64_b)),
        (Variant::Vector2(Vector2::new(-0.0, nan_a)), Variant::Vector2(Vector2::new(0.0, nan_b))),
        (Variant::Rect2(Rect2::new(0.0, nan_a, 1.0, 2.0)), Variant::Rect2(Rect2::new(-0.0, nan_b, 1.0, 2.0))),
        (
            Variant::from(Transform3D { origin: Vector3::new(0.0, 0.0, -0.0), ..Transform3D::default() }),
            Variant::from(Transform3D { origin: Vector3::new(-0.0, 0.0, 0.0), ..Transform3D::default() }),
        ),
        (Variant::PackedFloat32Array(vec![-0.0, nan_a].into()), Variant::PackedFloat32Array(vec![0.0, nan_b].into())),
        (
            Variant::PackedFloat64Array(vec![-0.0, f64::NAN].into()),
            Variant::PackedFloat64Array(vec![0.0, nan64_b].into()),
        ),
        (
            Variant::PackedVector3Array(vec![Vector3::new(-0.0, nan_a, 1.0)].into()),
            Variant::PackedVector3Array(vec![Vector3::new(0.0, nan_b, 1.0)].into()),
        ),
        (
            Variant::from(vec![Variant::Float(-0.0), Variant::Float(f64::NAN)]),
            Variant::from(vec![Variant::Float(0.0), Variant::Float(nan64_b)]),
        ),
        (
            Variant::from([(Variant::Float(-0.0), Variant::Float(f64::NAN))]),
            Variant::from([(Variant::Float(0.0), Variant::Float(nan64_b))]),
        ),
        (object(-0.0), object(0.0)),
        (object(f64::NAN), object(nan64_b)),
    ];
    let different = vec![
        (Variant::Int(7), Variant::Float(7.0)),
        (Variant::Float(1.0), Variant::Float(1.0 + f64::EPSILON)),
        (Variant::Vector2(Vector2::new(1.0, 2.0)), Variant::Vector2(Vector2::new(1.0, 2.5))),
        (Variant::from(vec![Variant::Int(1)]), Variant::PackedInt32Array(vec![1].into())),
        (Variant::from([(Variant::Int(1), Variant::Int(2))]), Variant::from([(Variant::Int(1), Variant::Int(3))])),
        (object(1.0), object(2.0)),
        (Variant::from("a"), Variant::StringName("a".into())),
    ];
    (same, different)
}

#[test]
fn equal_keys_merge_like_duplicates_whatever_the_dictionary_size() {
    let opts = Options::new().full_objects(true);
    let (same, different) = key_pairs();
    // 0 fillers: the small Dictionary scan; 40: the hash index.
    for fillers in [0, 40] {
        let mut raw = Vec::new();
        for i in 0..fillers {
            raw.push((int(1000 + i), int(-1)));
        }
        for (n, (a, b)) in same.iter().chain(&different).enumerate() {
            let n = n as i64;
            raw.push((enc(a, &opts), int(2 * n)));
            raw.push((enc(b, &opts), int(2 * n + 1)));
        }
        // A Float written with 32 and with 64 bits is one key too.
        let mut wide_one = Vec::new();
        word(&mut wide_one, FLOAT_ID | WIDE);
        wide_one.extend_from_slice(&1.5f64.to_le_bytes());
        raw.push((wide_one, int(-2)));
        let mut narrow_one = Vec::new();
        word(&mut narrow_one, FLOAT_ID);
        narrow_one.extend_from_slice(&1.5f32.to_le_bytes());
        raw.push((narrow_one, int(-3)));
        let input = raw_dict(raw.into_iter());

        for value in [Variant::from_bytes(&input, &opts).unwrap(), opts.from_slice::<Variant>(&input).unwrap()] {
            let Variant::Dictionary(d) = &value else { panic!("{value:?}") };
            let d = d.entries();
            let fillers = fillers as usize;
            assert_eq!(d.len(), fillers + same.len() + 2 * different.len() + 1, "{fillers} fillers");
            let mut at = fillers;
            for (n, (a, _)) in same.iter().enumerate() {
                // First position, last value; the key as first sent.
                assert_eq!(d[at].1, Variant::Int(2 * n as i64 + 1), "{a:?}");
                assert_eq!(format!("{:?}", d[at].0), format!("{a:?}"));
                at += 1;
            }
            for (n, (a, b)) in different.iter().enumerate() {
                let n = n + same.len();
                assert_eq!(d[at], (a.clone(), Variant::Int(2 * n as i64)), "{a:?} vs {b:?}");
                assert_eq!(d[at + 1], (b.clone(), Variant::Int(2 * n as i64 + 1)), "{a:?} vs {b:?}");
                at += 2;
            }
            assert_eq!(d[at], (Variant::Float(1.5), Variant::Int(-3)));
        }
    }
}

#[test]
fn many_equal_keys_with_nan_and_negative_zero_stay_linear() {
    // Thousands of encodings of one key (NaN payloads, signed zeros) and of keys that differ only
    // in their last component after -0.0 / NaN components: hash-equal keys must be equal keys, or
    // the index degenerates into a scan.
    let opts = Options::new();
    testkit::scaling::Case::new("NaN / -0.0 duplicate keys", |n| {
        key_flood(n, |i| {
            let nan = f32::from_bits(0x7fc0_0000 | (i & 0x3f_ffff));
            let zero = if i % 2 == 0 { 0.0f32 } else { -0.0 };
            enc(&Variant::PackedFloat32Array(vec![zero, nan, zero, nan].into()), &opts)
        })
    })
    .size(16 * 1024)
    .run(|input| {
        let v = Variant::from_bytes(input, &opts).unwrap();
        assert_eq!(entries(&v), 1);
    });
    testkit::scaling::Case::new("keys differing after NaN / -0.0 components", |n| {
        key_flood(n, |i| {
            let zero = if i % 2 == 0 { 0.0f32 } else { -0.0 };
            enc(&Variant::PackedFloat32Array(vec![zero, f32::NAN, zero, i as f32].into()), &opts)
        })
    })
    .size(16 * 1024)
    .run(|input| assert!(decodes_all_keys(input, &opts)));
}

/// A Dictionary key that is a Dictionary of 17 entries (so that it builds its hash index) whose
/// first key is the next such Dictionary, `levels` deep.
fn nested_dict_keys(levels: usize, wrap_in_array: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..levels {
        word(&mut out, DICT_ID);
        word(&mut out, 17);
        if wrap_in_array {
            word(&mut out, ARRAY_ID);
            word(&mut out, 1);
        }
    }
    word(&mut out, NIL_ID);
    for _ in 0..levels {
        out.extend_from_slice(&NIL); // the value of the nested key
        for i in 1..17 {
            word(&mut out, INT_ID);
            word(&mut out, i);
            out.extend_from_slice(&NIL);
        }
    }
    out
}

#[test]
fn keys_nested_in_keys_are_hashed_once() {
    // Hashing a key must not hash again what the keys inside it already hashed: with 17-entry
    // Dictionaries nested as keys, hashing each level's key from scratch is depth × size.
    for wrap in [false, true] {
        let opts = Options::new();
        testkit::scaling::Case::new(format!("Dictionary keys nested in keys (in Arrays: {wrap})"), |n| {
            // Each level is 212 bytes (220 in Arrays) and one (two) deep: 600 levels at most.
            nested_dict_keys(if wrap { n / 440 } else { n / 212 }, wrap)
        })
        .size(32 * 1024)
        .run(|input| {
            assert!(Variant::from_bytes(input, &opts).is_ok());
            assert!(opts.from_slice::<Variant>(input).is_ok());
        });
    }
}

#[test]
fn keys_nested_in_keys_through_serde_buffering_are_hashed_once() {
    // An internally tagged enum makes serde buffer the input and replay it through Variant's
    // generic (data-model) visitor, which hashes keys bottom-up too.
    #[derive(Deserialize)]
    #[serde(tag = "t")]
    #[allow(dead_code)]
    enum Msg {
        A { v: Variant },
    }
    let opts = Options::new();
    testkit::scaling::Case::new("nested keys, serde's buffered path", |n| {
        let inner = nested_dict_keys(n / 210, false);
        let mut out = Vec::new();
        word(&mut out, DICT_ID);
        word(&mut out, 2);
        out.extend_from_slice(&enc(&Variant::from("t"), &opts));
        out.extend_from_slice(&enc(&Variant::from("A"), &opts));
        out.extend_from_slice(&enc(&Variant::from("v"), &opts));
        out.extend_from_slice(&inner);
        out
    })
    .size(32 * 1024)
    .run(|input| assert!(opts.from_slice::<Msg>(input).is_ok()));
}

/// `levels` nested containers (`open` then a count), each declaring `count` elements, around a
/// `tail` of NILs: every level could reserve for the same tail.
fn nested_declared_counts(open: u32, levels: usize, count: u32, tail: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..levels {
        word(&mut out, open);
        word(&mut out, count);
    }
    out.extend(std::iter::repeat_n(0u8, tail));
    out
}

#[test]
fn nested_declared_counts_cannot_all_reserve_the_same_bytes() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Nest(Vec<Nest>);
    let opts = Options::new().full_objects(true);
    let mut inputs = Vec::new();
    for count in [0x7fff_ffff, 16 * 1024] {
        inputs.push(("Arrays", nested_declared_counts(ARRAY_ID, 1000, count, 64 * 1024)));
        inputs.push(("Dictionaries", nested_declared_counts(DICT_ID, 1000, count, 64 * 1024)));
    }
    // Full objects whose first property's value is the next object.
    let mut objects = Vec::new();
    for _ in 0..1000 {
        word(&mut objects, 24);
        objects.extend_from_slice(&[1, 0, 0, 0, b'N', 0, 0, 0]);
        word(&mut objects, 0x7fff_ffff);
        objects.extend_from_slice(&[1, 0, 0, 0, b'p', 0, 0, 0]);
    }
    objects.extend(std::iter::repeat_n(0u8, 64 * 1024));
    inputs.push(("objects", objects));
    for (name, input) in &inputs {
        let bound = testkit::scaling::default_heap_bound(input.len());
        let check = |what: &str, stats: testkit::alloc::AllocStats| {
            assert!(stats.peak <= bound, "{name}, {what}: {stats:?}, bound {bound}");
        };
        check("Variant::from_bytes", testkit::alloc::measure(|| Variant::from_bytes(input, &opts)).1);
        check("from_slice::<Variant>", testkit::alloc::measure(|| opts.from_slice::<Variant>(input)).1);
        check("from_slice::<Nest>", testkit::alloc::measure(|| opts.from_slice::<Nest>(input)).1);
        check(
            "from_slice::<serde_json::Value>",
            testkit::alloc::measure(|| opts.from_slice::<serde_json::Value>(input)).1,
        );
        check(
            "from_slice::<Vec<Vec<Variant>>>",
            testkit::alloc::measure(|| opts.from_slice::<Vec<Vec<Variant>>>(input)).1,
        );
        check(
            "from_slice::<IgnoredAny>",
            testkit::alloc::measure(|| opts.from_slice::<serde::de::IgnoredAny>(input)).1,
        );
    }
}

#[test]
fn node_path_name_counts_are_checked_against_max_len() {
    // A NodePath declaring 1000 names and 1000 subnames, with max_len 100.
    let input = hex("16000000e8030080e803000000000000");
    let err = Variant::from_bytes(&input, &Options::new().max_len(100)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LengthLimit { len: 2000, limit: 100 }), "{err}");
}

#[cfg(feature = "tokio")]
#[test]
fn codec_decodes_a_stream_chunk_by_chunk_in_linear_time() {
    use bytes::BytesMut;
    use tokio_util::codec::Decoder;
    let opts = Options::new();
    let frame = |n: usize| {
        let body = key_flood(n, |i| math_key(7, 4, i, false));
        let mut out = (body.len() as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&body);
        out
    };
    // A server's codec sees the frame 64 bytes at a time and is asked to decode after each chunk:
    // every early call must cost O(1), not O(bytes buffered so far).
    testkit::scaling::Case::new("GodotCodec: a Rect2 key flood arriving 64 bytes at a time", frame)
        .size(16 * 1024)
        .run(|input| {
            let mut codec = framing::GodotCodec::<Variant>::new(opts, Framing::StreamPeer);
            let mut buf = BytesMut::new();
            let mut frames = 0;
            for chunk in input.chunks(64) {
                buf.extend_from_slice(chunk);
                while let Some(v) = codec.decode(&mut buf).unwrap() {
                    assert_eq!(entries(&v) as u32, u32::from_le_bytes(input[8..12].try_into().unwrap()));
                    frames += 1;
                }
            }
            assert_eq!(frames, 1);
        });
    // A prefix above max_size is refused as soon as it arrives, whatever follows.
    let mut codec = framing::GodotCodec::<Variant>::new(opts.max_size(1024), Framing::StreamPeer);
    let mut buf = BytesMut::from(&u32::MAX.to_le_bytes()[..]);
    let err = codec.decode(&mut buf).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
}
