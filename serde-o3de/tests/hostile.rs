//! Hostile input: every truncation, byte change and seeded mutation of the fixtures loads or fails
//! without panicking and within an allocation bound; nesting bombs fail without overflowing the
//! stack; huge numbers, invalid UTF-8 and documents full of unloadable values stay bounded.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use serde_o3de::Report;
use serde_o3de::prefab::{Instance, PatchLimits, Prefab};
use serde_o3de::{Category, Color, Options, Outcome, Quaternion, Uuid, Vector3};
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
    // The report keeps the first issues and counts the rest.
    assert_eq!(report.total_issues(), 50_000);
    assert_eq!(report.issues.len(), serde_o3de::DEFAULT_MAX_ISSUES);
    assert_eq!(report.omitted, 50_000 - serde_o3de::DEFAULT_MAX_ISSUES);
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    // A higher cap keeps them all.
    let (_, report) = Options::new().max_issues(usize::MAX).load_str::<Vec<i32>>(&format!("[{elements}, 7]")).unwrap();
    assert_eq!(report.issues.len(), 50_000);
    assert_eq!(report.omitted, 0);
    assert_eq!(report.issues[49_999].path, "/49999");
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

// ---- issue 12: hostile input, round 2 -------------------------------------------------------------

/// `{"int":123,"int":123,...}`: 8000 duplicates of one member in 80 KB (each duplicate rescanned
/// the object, ~4 s).
fn duplicate_flood(count: usize) -> String {
    let mut text = String::from("{");
    for i in 0..count {
        if i > 0 {
            text.push(',');
        }
        text.push_str(if i + 1 == count { r#""int":456"# } else { r#""int":123"# });
    }
    text.push('}');
    text
}

#[test]
fn duplicate_member_names_are_linear() {
    let text = duplicate_flood(8000);
    assert!(text.len() >= 79_000);
    let started = Instant::now();
    // The last duplicate wins (O3DE loads every occurrence over the previous one).
    let typed: Typed = serde_o3de::from_str(&text).unwrap();
    assert_eq!(typed.int, 456);
    let (typed, report) = Options::new().load_str::<Typed>(&text).unwrap();
    assert_eq!(typed.int, 456);
    assert!(report.issues.is_empty(), "{report}");
    let value: Value = serde_o3de::from_str(&text).unwrap();
    assert_eq!(value["int"], 456);
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    // Work grows linearly with the number of duplicates.
    testkit::scaling::Case::new("o3de: duplicate member names", |n| duplicate_flood(n / 10).into_bytes())
        .size(64 * 1024)
        .run(|input| serde_o3de::from_slice::<Typed>(input).map(|t| t.int));
    // Duplicates of several fields, in several objects, at several depths: the last of each wins.
    let text = r#"{"int": 1, "Name": "a", "int": 2, "child": {"int": 5, "INT": 6}, "name": "b", "child": {"int": 7, "Int": 8, "int": 9}}"#;
    let typed: Typed = serde_o3de::from_str(text).unwrap();
    assert_eq!((typed.int, typed.name.as_str(), typed.child.map(|c| c.int)), (2, "b", Some(9)));
}

#[test]
fn field_lookups_in_wide_structs_are_linear() {
    // More fields than are searched one by one: the names go through an index, case-insensitively,
    // the first matching field winning as before.
    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default)]
    struct Wide {
        f00: i32,
        f01: i32,
        f02: i32,
        f03: i32,
        f04: i32,
        f05: i32,
        f06: i32,
        f07: i32,
        f08: i32,
        f09: i32,
        f10: i32,
        f11: i32,
        f12: i32,
        f13: i32,
        f14: i32,
        f15: i32,
        f16: i32,
        f17: i32,
        f18: i32,
        f19: i32,
        f20: i32,
        f21: i32,
        f22: i32,
        f23: i32,
        f24: i32,
        f25: i32,
        f26: i32,
        f27: i32,
        f28: i32,
        f29: i32,
        #[serde(rename = "Mixed")]
        mixed_upper: i32,
        #[serde(rename = "mixed")]
        mixed_lower: i32,
    }
    let (wide, report) =
        Options::new().load_str::<Wide>(r#"{"F29": 1, "f00": 2, "mixed": 3, "MIXED": 4, "f30": 5}"#).unwrap();
    assert_eq!((wide.f29, wide.f00, wide.mixed_lower, wide.mixed_upper), (1, 2, 3, 4));
    assert_eq!(report.issues.len(), 1, "{report}");
    assert_eq!(report.issues[0].path, "/f30");
    // Many unknown members (each a lookup) and many duplicates of the last field.
    testkit::scaling::Case::new("o3de: wide struct, unknown members", |n| {
        let mut text = String::from("{");
        let mut i = 0;
        while text.len() < n {
            text.push_str(&format!("\"unknown_{i}\":1,\"F29\":{i},"));
            i += 1;
        }
        text.push_str("\"f29\":0}");
        text.into_bytes()
    })
    .size(64 * 1024)
    .run(|input| serde_o3de::from_slice::<Wide>(input).map(|w| w.f29));
}

/// `{"<61 KB key>": [[], [], ...]}`: an issue per element, each under the long key (every issue
/// stored its own rendered path: 352 MiB of report for 122 KB).
fn long_path_report_document() -> String {
    let key = "k".repeat(61_000);
    let elements = vec!["[]"; 20_000].join(",");
    format!("{{\"{key}\": [{elements}]}}")
}

#[test]
fn load_report_paths_are_shared_and_the_issue_count_capped() {
    let text = long_path_report_document();
    assert!(text.len() >= 121_000);
    let bound = testkit::scaling::default_heap_bound(text.len());
    let ((map, report), stats) =
        testkit::alloc::measure(|| Options::new().load_str::<BTreeMap<String, Vec<i32>>>(&text).unwrap());
    assert!(stats.peak <= bound, "peak heap {} for {} bytes (bound {bound})", stats.peak, text.len());
    assert_eq!(map.values().next().map(Vec::len), Some(0));
    assert_eq!(report.outcome(), Outcome::Unsupported);
    // The first issues are kept, the rest counted, and Display says so.
    assert_eq!(report.issues.len(), serde_o3de::DEFAULT_MAX_ISSUES);
    assert_eq!(report.omitted, 20_000 - serde_o3de::DEFAULT_MAX_ISSUES);
    assert_eq!(report.total_issues(), 20_000);
    let key = "k".repeat(61_000);
    assert_eq!(report.issues[0].path, format!("/{key}/0"));
    assert_eq!(report.issues[9_999].path.as_str(), format!("/{key}/9999"));
    let shown = format!("{}", Report { issues: report.issues[..2].to_vec(), ..report.clone() });
    assert!(
        shown.ends_with("... and 10000 more issues (the report keeps the first 2)"),
        "{}",
        &shown[shown.len() - 80..]
    );
    // The cap is configurable, down to none.
    let (_, report) = Options::new().max_issues(3).load_str::<BTreeMap<String, Vec<i32>>>(&text).unwrap();
    assert_eq!((report.issues.len(), report.omitted), (3, 19_997));
    let (_, report) = Options::new().max_issues(0).load_str::<BTreeMap<String, Vec<i32>>>(&text).unwrap();
    assert_eq!((report.issues.len(), report.omitted, report.outcome()), (0, 20_000, Outcome::Unsupported));
    // A callback still sees every issue.
    let mut seen = 0;
    let (_, report) = Options::new()
        .max_issues(10)
        .load_str_with::<BTreeMap<String, Vec<i32>>>(&text, |issue| {
            seen += 1;
            issue.result
        })
        .unwrap();
    assert_eq!((seen, report.issues.len(), report.omitted), (20_000, 10, 19_990));
    // The one-pass deserializer caps too.
    let mut de = serde_o3de::Deserializer::from_str(&text);
    de.max_issues(5);
    let _ = BTreeMap::<String, Vec<i32>>::deserialize(&mut de).unwrap();
    assert_eq!((de.report().issues.len(), de.report().omitted), (5, 19_995));
}

/// Patches that each copy the array `/a` into itself (about a kilobyte for 23 of them, which
/// asked for 892 MiB).
fn doubling_patch_set(count: usize) -> String {
    let op = r#"{"op":"copy","from":"/a","path":"/a/-"}"#;
    format!(r#"{{"Source":"Prefabs/Doubling.prefab","Patches":[{}]}}"#, vec![op; count].join(","))
}

#[test]
fn patch_application_has_a_size_and_work_budget() {
    let text = doubling_patch_set(23);
    assert!(text.len() <= 1000, "{}", text.len());
    let instance: Instance = serde_o3de::from_str(&text).unwrap();
    let (r, stats) = testkit::alloc::measure(|| {
        let mut doc = serde_json::json!({"a": [0]});
        instance.apply_patches(&mut doc)
    });
    let err = r.unwrap_err();
    assert_eq!(err.category(), Category::Limit);
    assert!(err.is_limit());
    assert!(err.to_string().contains("PatchLimits::max_size"), "{err}");
    assert!(stats.peak <= 8 << 20, "peak heap {}", stats.peak);
    // Below the budget the patches apply; a smaller budget refuses them.
    let few: Instance = serde_o3de::from_str(&doubling_patch_set(3)).unwrap();
    let mut doc = serde_json::json!({"a": [0]});
    few.apply_patches(&mut doc).unwrap();
    assert_eq!(doc.to_string(), "{\"a\":[0,[0],[0,[0]],[0,[0],[0,[0]]]]}");
    let mut doc = serde_json::json!({"a": [0]});
    let err = few.apply_patches_with(&mut doc, PatchLimits::new().max_size(200)).unwrap_err();
    assert!(err.to_string().starts_with("patch "), "{err}");
    assert!(err.to_string().contains("max_size"), "{err}");

    // Inserts at the front of a long array: the work is counted, not only the size.
    let op = r#"{"op": "add", "path": "/a/0", "value": 1}"#;
    let inserts: Instance = serde_o3de::from_str(&format!(r#"{{"Patches": [{}]}}"#, vec![op; 2000].join(","))).unwrap();
    let mut doc = serde_json::json!({"a": vec![0; 100_000]});
    let err = inserts.apply_patches(&mut doc).unwrap_err();
    assert!(err.to_string().contains("PatchLimits::max_work"), "{err}");
    let mut doc = serde_json::json!({"a": vec![0; 100_000]});
    inserts.apply_patches_with(&mut doc, PatchLimits::new().max_work(usize::MAX)).unwrap();
    assert_eq!(doc["a"].as_array().map(Vec::len), Some(102_000));

    // Depth: a copy of a deep value into its own innermost array would nest 129 levels deep.
    let deep = format!("{}{}", "[".repeat(64), "]".repeat(64));
    let inner = "/0".repeat(63);
    let deepening: Instance = serde_o3de::from_str(&format!(
        r#"{{"Patches": [{{"op": "add", "path": "/d", "value": {deep}}}, {{"op": "copy", "from": "/d", "path": "/d{inner}/0"}}]}}"#
    ))
    .unwrap();
    let mut doc = serde_json::json!({});
    let err = deepening.apply_patches(&mut doc).unwrap_err();
    assert!(err.to_string().starts_with("patch 1:"), "{err}");
    assert!(err.to_string().contains("PatchLimits::max_depth"), "{err}");
    let mut doc = serde_json::json!({});
    let err = deepening.apply_patches_with(&mut doc, PatchLimits::new().max_depth(8)).unwrap_err();
    assert!(err.to_string().starts_with("patch 0:"), "{err}");
    let mut doc = serde_json::json!({});
    deepening.apply_patches_with(&mut doc, PatchLimits::new().max_depth(129)).unwrap();
}

#[test]
fn patches_follow_rfc_6902() {
    let patches = r#"{"Source": "a.prefab", "Patches": [
        {"op": "add", "path": "/list/1", "value": "b"},
        {"op": "add", "path": "/list/-", "value": "d"},
        {"op": "replace", "path": "/name", "value": "new"},
        {"op": "remove", "path": "/gone"},
        {"op": "move", "from": "/list/0", "path": "/first"},
        {"op": "copy", "from": "/obj", "path": "/obj2"},
        {"op": "add", "path": "/obj/a~1b", "value": 1},
        {"op": "test", "path": "/obj2/x", "value": [1, 2]}
    ]}"#;
    let instance: Instance = serde_o3de::from_str(patches).unwrap();
    let mut doc = serde_json::json!({"list": ["a", "c"], "name": "old", "gone": 1, "obj": {"x": [1, 2]}});
    instance.apply_patches(&mut doc).unwrap();
    assert_eq!(
        doc,
        serde_json::json!({"list": ["b", "c", "d"], "name": "new", "first": "a", "obj": {"x": [1, 2], "a/b": 1}, "obj2": {"x": [1, 2]}})
    );
    for (bad, why) in [
        (r#"{"op": "remove", "path": "/nope"}"#, "no member"),
        (r#"{"op": "add", "path": "/list/9", "value": 1}"#, "out of bounds"),
        (r#"{"op": "add", "path": "/list/01", "value": 1}"#, "not an array index"),
        (r#"{"op": "test", "path": "/name", "value": "other"}"#, "test failed"),
        (r#"{"op": "frobnicate", "path": ""}"#, "unknown patch operation"),
        (r#"{"op": "replace", "path": "/missing", "value": 1}"#, "to replace"),
    ] {
        let instance: Instance = serde_o3de::from_str(&format!(r#"{{"Patches": [{bad}]}}"#)).unwrap();
        let err = instance.apply_patches(&mut doc.clone()).unwrap_err();
        assert_eq!(err.outcome(), Some(Outcome::Invalid), "{bad}");
        assert!(err.to_string().contains(why), "{bad}: {err}");
    }
}

// ---- issue 12: look-ahead of nested objects ---------------------------------------------------------
//
// A `$type` object whose `$type` comes last, a `{"Key", "Value"}` map entry and a struct object with
// duplicate members are each scanned ahead before (or while) they are read. Each such scan used to
// walk everything below the object again, so `d` nested levels of them walked the innermost bytes
// `d` times (up to 128x at the default depth limit). The generators below grow the depth with the
// input (one level per 256 bytes, the limit raised to allow it), so that kind of work is quadratic
// and fails the scaling check; a scan that walks each byte a bounded number of times is linear.

/// A class that holds another one of itself behind `$type`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Node {
    child: Option<NodePtr>,
    list: Vec<i32>,
}

#[derive(Debug)]
enum NodePtr {
    Node(Box<Node>),
}

impl serde_o3de::Polymorphic for NodePtr {
    const TYPES: &'static [&'static str] = &["Node"];
    fn deserialize_type<'de, D: serde::Deserializer<'de>>(_index: usize, d: D) -> Result<Self, D::Error> {
        Node::deserialize(d).map(|n| NodePtr::Node(Box::new(n)))
    }
    fn type_index(&self) -> serde_o3de::TypeIndex<'_> {
        serde_o3de::TypeIndex::Known(0)
    }
    fn serialize_type<S: serde::Serializer>(&self, _s: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("not stored here"))
    }
}
serde_o3de::impl_polymorphic_serde!(NodePtr);

/// A map whose values are maps of the same kind (read from arrays of `{"Key", "Value"}` entries).
#[derive(Debug, Default, Deserialize)]
struct Nest(BTreeMap<i32, Nest>);

/// A struct nested in itself.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Dup {
    child: Option<Box<Dup>>,
    list: Vec<i32>,
}

/// Bytes per nesting level of the generators.
const BYTES_PER_LEVEL: usize = 256;

/// `depth` levels of `open` … `close` around `inner(bytes left)`, for about `n` bytes in all.
fn nested_levels(n: usize, depth: usize, open: &str, close: &str, inner: impl Fn(usize) -> String) -> Vec<u8> {
    let mut out = open.repeat(depth);
    let left = n.saturating_sub(out.len() + close.len() * depth);
    out.push_str(&inner(left));
    out.push_str(&close.repeat(depth));
    out.into_bytes()
}

/// `1,1,…`: about `left` bytes.
fn ones(left: usize) -> String {
    vec!["1"; left / 2].join(",")
}

/// `{"child":{"child":…{"list":[1,1,…],"$type":"Node"}…,"$type":"Node"},"$type":"Node"}`.
fn nested_type_objects(n: usize, depth: usize) -> Vec<u8> {
    nested_levels(n, depth, r#"{"child":"#, r#","$type":"Node"}"#, |left| {
        format!(r#"{{"list":[{}],"$type":"Node"}}"#, ones(left))
    })
}

/// `[{"Value":[{"Value":…[{"Key":1,"Pad":[1,1,…],"Value":[]}]…,"Key":1}],"Key":1}]`.
fn nested_map_entries(n: usize, depth: usize) -> Vec<u8> {
    nested_levels(n, depth, r#"[{"Value":"#, r#","Key":1}]"#, |left| {
        format!(r#"[{{"Key":1,"Pad":[{}],"Value":[]}}]"#, ones(left))
    })
}

/// `{"child":{"child":…{"list":[1,1,…],"list":[2]}…,"child":{}},"child":{}}`: every object gives
/// a member twice.
fn nested_duplicates(n: usize, depth: usize) -> Vec<u8> {
    nested_levels(n, depth, r#"{"child":"#, r#","child":{}}"#, |left| {
        format!(r#"{{"list":[{}],"list":[2]}}"#, ones(left))
    })
}

/// Checks that loading `generate(n, n / BYTES_PER_LEVEL)` grows linearly with `n`, on a thread with
/// room for the nesting.
fn depth_scaling<R>(name: &str, generate: fn(usize, usize) -> Vec<u8>, decode: impl Fn(&[u8]) -> R + Send + Sync) {
    depth::on_stack(1 << 30, || {
        testkit::scaling::Case::new(name, |n| generate(n, n / BYTES_PER_LEVEL)).size(64 * 1024).run(&decode);
    });
}

fn deep_options() -> Options {
    Options::new().max_depth(1 << 20)
}

#[test]
fn nested_type_objects_are_scanned_once() {
    // The semantics: `$type` found after the child, at every level.
    let text = nested_type_objects(4096, 8);
    let node: Node = serde_o3de::from_slice(&text).unwrap();
    let mut levels = 0;
    let mut at = &node;
    while let Some(NodePtr::Node(child)) = &at.child {
        at = child;
        levels += 1;
    }
    assert_eq!(levels, 8);
    assert!(at.list.len() > 1500, "{}", at.list.len());
    depth_scaling("o3de: nested $type objects", nested_type_objects, |input| {
        deep_options().from_slice::<Node>(input).map(|n| n.list.len())
    });
    depth_scaling("o3de: nested $type objects, report", nested_type_objects, |input| {
        deep_options().load_slice::<Node>(input).map(|(n, r)| (n.list.len(), r.total_issues()))
    });
}

#[test]
fn nested_map_entries_are_scanned_once() {
    let text = nested_map_entries(4096, 8);
    let nest: Nest = serde_o3de::from_slice(&text).unwrap();
    let mut levels = 0;
    let mut at = &nest;
    while let Some(inner) = at.0.get(&1) {
        at = inner;
        levels += 1;
    }
    assert_eq!(levels, 9);
    depth_scaling("o3de: nested map entries", nested_map_entries, |input| {
        deep_options().from_slice::<Nest>(input).map(|n| n.0.len())
    });
    depth_scaling("o3de: nested map entries, report", nested_map_entries, |input| {
        deep_options().load_slice::<Nest>(input).map(|(n, r)| (n.0.len(), r.total_issues()))
    });
}

/// `{"list":[1,1,…],"child":{"list":[1],"LIST":[2],"child":{},"child":{…"child":{}}}}`: the
/// occurrence that wins holds the next level. The pass that finds a level's duplicates skips its
/// winner, so finding them one level per pass took a pass over the whole input per level (and
/// stopped at 32, the winners below keeping their first occurrence).
fn winning_duplicates(n: usize, depth: usize) -> String {
    let mut text = String::from(r#"{"list":["#);
    let level = r#"{"list":[1],"LIST":[2],"child":{},"child":"#;
    text.push_str(&ones(n.saturating_sub((level.len() + 1) * depth + 32)));
    text.push_str(r#"],"child":"#);
    text.push_str(&level.repeat(depth));
    text.push_str("{}");
    text.push_str(&"}".repeat(depth + 1));
    text
}

#[test]
fn nested_duplicates_are_scanned_once() {
    // Winners nested in winners, deeper than the passes a load may take: the last wins everywhere,
    // and the work does not depend on the depth.
    let text = winning_duplicates(64 * 1024, 100);
    let (dup, report) = Options::new().load_str::<Dup>(&text).unwrap();
    let mut levels = 0;
    let mut at = dup.child.as_deref().unwrap();
    while let Some(child) = &at.child {
        assert_eq!(at.list, [2], "level {levels}");
        at = child;
        levels += 1;
    }
    assert_eq!(levels, 100);
    assert_eq!(report.total_issues(), 1, "{report}"); // the innermost `{}`
    let least = |text: &str| {
        (0..5)
            .map(|_| {
                let started = Instant::now();
                let dup: Dup = serde_o3de::from_str(text).unwrap();
                assert!(dup.list.len() > 1000);
                started.elapsed()
            })
            .min()
            .unwrap()
    };
    let (shallow, deep) = (least(&winning_duplicates(256 * 1024, 2)), least(&winning_duplicates(256 * 1024, 100)));
    eprintln!("winning duplicates, 256 KiB: depth 2 in {shallow:?}, depth 100 in {deep:?}");
    assert!(deep < shallow * 3, "depth 2: {shallow:?}, depth 100: {deep:?}");

    // The last of each duplicate wins, at every level.
    let text = nested_duplicates(4096, 8);
    let dup: Dup = serde_o3de::from_slice(&text).unwrap();
    assert!(dup.child.as_ref().is_some_and(|c| c.child.is_none() && c.list.is_empty()), "{dup:?}");
    let inner = br#"{"child":{"child":{"list":[1,1],"list":[2]},"list":[3]},"list":[4],"list":[5]}"#;
    let dup: Dup = serde_o3de::from_slice(inner).unwrap();
    let child = dup.child.as_ref().unwrap();
    assert_eq!((dup.list.as_slice(), child.list.as_slice()), ([5].as_slice(), [3].as_slice()));
    assert_eq!(child.child.as_ref().unwrap().list, [2]);
    depth_scaling("o3de: nested duplicate members", nested_duplicates, |input| {
        deep_options().from_slice::<Dup>(input).map(|d| d.list.len())
    });
    depth_scaling("o3de: nested duplicate members, report", nested_duplicates, |input| {
        deep_options().load_slice::<Dup>(input).map(|(d, r)| (d.list.len(), r.total_issues()))
    });
}
