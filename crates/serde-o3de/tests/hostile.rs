//! Hostile input: every truncation, byte change and seeded mutation of the fixtures loads or fails
//! without panicking and within an allocation bound; nesting bombs fail without overflowing the
//! stack; huge numbers, invalid UTF-8 and documents full of unloadable values stay bounded.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use serde_o3de::prefab::Prefab;
use serde_o3de::{Color, Options, Quaternion, Uuid, Vector3};
use testkit::depth::{self, MILLION};
use testkit::hostile::ByteValues;

testkit::install_counting_allocator!();

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)] // read only by the loader
struct Typed {
    flag: bool,
    int: i32,
    big: u64,
    float: f32,
    name: String,
    list: Vec<i16>,
    map: BTreeMap<i32, String>,
    position: Vector3,
    rotation: Quaternion,
    tint: Color,
    id: Uuid,
    child: Option<Box<Typed>>,
}

fn prefabs() -> Vec<(&'static str, &'static [u8])> {
    vec![
        ("Empty.prefab", include_bytes!("data/prefabs/Empty.prefab").as_slice()),
        ("ThirdPersonCamera.prefab", include_bytes!("data/prefabs/ThirdPersonCamera.prefab")),
    ]
}

fn small_documents() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "typed",
            br#"{"flag": "tRuE", "int": "0x10", "big": 18446744073709551615, "float": "1.5f", "name": 3.25,
            "list": [1, "2", {}, null], "map": [{"Key": 1, "Value": "a"}, {"Key": "2"}], "position": {"X": 1, "y": "2"},
            "rotation": {"yaw": 90, "pitch": 0, "roll": 0}, "tint": {"HEXA": "FF8000FF"},
            "id": "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}", "child": {"int": 1, "child": {}}}"#
                .to_vec(),
        ),
        ("escapes", br#"["a\"b\\c\u00e9\ud83d\ude00", "\n\t", {"k\u0000": 1e300, "x": -0.0}]"#.to_vec()),
        ("setreg", include_bytes!("data/other_json/splash_screen.setreg").to_vec()),
    ]
}

#[test]
fn mutated_prefabs_never_panic_and_allocate_within_bounds() {
    let outcome = testkit::DecoderCheck::new()
        .fixtures(prefabs())
        .byte_values(ByteValues::Interesting)
        .max_alloc(testkit::alloc::default_bound)
        .run(|bytes| serde_o3de::from_slice::<Prefab>(bytes));
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome}");
}

#[test]
fn mutated_documents_never_panic_and_allocate_within_bounds() {
    let docs = small_documents();
    let check = || {
        testkit::DecoderCheck::new()
            .fixtures(docs.iter().map(|(n, b)| (*n, b.as_slice())))
            .max_alloc(testkit::alloc::default_bound)
    };
    let outcome = check().run(|bytes| serde_o3de::from_slice::<Value>(bytes));
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome}");
    let outcome = check().run(|bytes| Options::new().load_slice::<Typed>(bytes));
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome}");
    let outcome = check().run(|bytes| Options::new().settings_registry(true).from_slice::<Value>(bytes));
    assert!(outcome.ok > 0, "{outcome}");
}

#[test]
fn depth_bombs_are_rejected_without_overflowing_the_stack() {
    let child = testkit::isolate::in_child("depth_bombs_are_rejected_without_overflowing_the_stack", || {
        for bomb in [depth::json_arrays(MILLION), depth::json_objects(MILLION)] {
            depth::assert_rejects(&bomb, |b| serde_o3de::from_slice::<Value>(b));
            depth::assert_rejects(&bomb, |b| serde_o3de::from_slice::<Typed>(b));
            depth::assert_rejects(&bomb, |b| serde_o3de::from_slice::<Prefab>(b));
            depth::assert_rejects(&bomb, |b| Options::new().settings_registry(true).from_slice::<Value>(b));
        }
        // Deep `Option<Box<_>>` chains of a typed struct, and a bomb inside an unknown member.
        let mut chain = String::new();
        for _ in 0..10_000 {
            chain.push_str(r#"{"child":"#);
        }
        chain.push_str("{}");
        chain.push_str(&"}".repeat(10_000));
        depth::assert_rejects(chain.as_bytes(), |b| serde_o3de::from_slice::<Typed>(b));
        let mut unknown = br#"{"unknown": "#.to_vec();
        unknown.extend(depth::json_arrays(MILLION));
        unknown.push(b'}');
        depth::assert_rejects(&unknown, |b| serde_o3de::from_slice::<Typed>(b));
    });
    child.assert_passed();
}

#[test]
fn the_depth_limit_is_exact_and_configurable() {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(serde_o3de::from_str::<Value>(&nested(128)).is_ok());
    let err = serde_o3de::from_str::<Value>(&nested(129)).unwrap_err();
    assert_eq!(err.category(), serde_o3de::Category::Depth);
    assert!(Options::new().max_depth(8).from_str::<Value>(&nested(9)).is_err());
    assert!(Options::new().max_depth(512).from_str::<Value>(&nested(400)).is_ok());
}

#[test]
fn huge_numbers() {
    assert!(serde_o3de::from_str::<Value>("1e400").is_err());
    assert!(serde_o3de::from_str::<Value>(&"9".repeat(400)).is_err());
    let big: f64 = serde_o3de::from_str(&"9".repeat(300)).unwrap();
    assert!(big > 9.9e299);
    let digits = format!("0.{}1", "0".repeat(100_000));
    let small: f64 = serde_o3de::from_str(&digits).unwrap();
    assert!(small == 0.0 || small.is_subnormal());
    // Regression (fuzz finding): an exponent that saturates i32, less the fraction's digits, overflowed.
    let tiny: f64 = serde_o3de::from_str("142.797693134867e-5330999998").unwrap();
    assert_eq!(tiny, 0.0);
    let tiny: f64 = serde_o3de::from_str("-0.5e-99999999999999999999").unwrap();
    assert_eq!(tiny, 0.0);
    assert!(serde_o3de::from_str::<Value>("1.5e99999999999999999999").is_err());
    let doc = b"{\"a\":142.797693134867e-5330999998\":14234e278999";
    assert!(serde_o3de::from_slice::<Value>(doc).is_err());
    // Strings through the C parsers: out of range is Unsupported, never a panic.
    let (v, report) = Options::new().load_str::<i64>(&format!("\"{}\"", "9".repeat(100_000))).unwrap();
    assert_eq!((v, report.outcome()), (0, serde_o3de::Outcome::Unsupported));
    let (v, _) = Options::new().load_str::<f32>(&format!("\"0x{}p99999999999\"", "f".repeat(10_000))).unwrap();
    assert_eq!(v, 0.0);
}

#[test]
fn invalid_utf8_is_an_error_everywhere() {
    for bad in
        [&b"\"\xFF\""[..], b"{\"\xC0\xAF\": 1}", b"{\"unknown\": \"\xED\xA0\x80\"}", b"[\"ok\", \"\xF4\x90\x80\x80\"]"]
    {
        assert!(serde_o3de::from_slice::<Value>(bad).unwrap_err().is_syntax(), "{bad:?}");
        assert!(serde_o3de::from_slice::<Typed>(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn documents_full_of_unloadable_values_stay_bounded() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Strict {
        id: u32,
    }
    // Every element lacks a required field: each costs a pass, and the pass limit bounds the work.
    let elements = vec![r#"{"x": 1}"#; 20_000].join(",");
    let text = format!("[{elements}]");
    let started = Instant::now();
    let r = serde_o3de::from_str::<Vec<Strict>>(&text);
    assert!(r.is_err());
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    // Values that have defaults cost one extra pass, however many there are.
    let elements = vec![r#""x""#; 50_000].join(",");
    let started = Instant::now();
    let (v, report) = Options::new().load_str::<Vec<i32>>(&format!("[{elements}, 7]")).unwrap();
    assert_eq!(v, [7]);
    assert_eq!(report.issues.len(), 50_000);
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}

#[test]
fn trailing_bytes_are_rejected() {
    assert!(serde_o3de::from_str::<Value>("{} {}").is_err());
    assert!(serde_o3de::from_str::<Value>("[1]x").is_err());
    assert!(serde_o3de::from_str::<Value>("[1]  \n").is_ok());
    let mut de = serde_o3de::Deserializer::from_str("1 2");
    let _: i32 = Deserialize::deserialize(&mut de).unwrap();
    assert!(de.end().is_err());
}
