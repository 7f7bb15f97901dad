//! serde-o3de under the workspace rule for hostile input: for `n` input bytes, every decoding entry
//! point does O(n log n) work and holds at most about `64 · n` + a few MiB of heap (checked at `n`
//! and `4n` by `testkit::scaling`), or fails with a typed error naming the limit.
//!
//! Entry points: `from_slice`/`from_str`/`from_reader`/`from_value` into dynamic values, typed
//! structs (narrow and wide), maps and the prefab model; the lenient load with its report; the
//! settings-registry syntax and merge; and JSON Patch application. Attacks: duplicate-member
//! floods, many distinct members, keys that share a hash bucket or fold to the same field name,
//! nesting bombs, long strings and escapes, huge numbers and coercions that expand, an issue per
//! member (under a long path), `$type` objects, multimaps, patch amplification by copies and
//! inserts at the front of a long array; objects that are looked ahead in (`$type` after the
//! members, `{"Key", "Value"}` map entries, duplicate members) nested as deep as the input allows.

use std::collections::{BTreeMap, HashMap};
use std::io::Cursor;

use serde::{Deserialize, Deserializer, Serializer};
use serde_json::Value;
use serde_o3de::prefab::{Instance, PatchLimits, Prefab};
use serde_o3de::setreg::SettingsRegistry;
use serde_o3de::{Category, Color, MultiMap, Options, Polymorphic, TypeIndex, UnknownType, Vector3};
use testkit::scaling::Case;

testkit::install_counting_allocator!();

/// The small size of most cases (the large one is four times as much).
const N: usize = 64 * 1024;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)] // read only by the loader
struct Typed {
    flag: bool,
    int: i32,
    a: i32,
    name: String,
    list: Vec<i32>,
    names: Vec<String>,
    map: BTreeMap<String, Vec<i32>>,
    position: Vector3,
    tint: Color,
    child: Option<Box<Typed>>,
}

/// More fields than the crate searches directly (its field index takes over).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)]
struct Wide {
    field_00: i32,
    field_01: i32,
    field_02: i32,
    field_03: i32,
    field_04: i32,
    field_05: i32,
    field_06: i32,
    field_07: i32,
    field_08: i32,
    field_09: i32,
    field_10: i32,
    field_11: i32,
    field_12: i32,
    field_13: i32,
    field_14: i32,
    field_15: i32,
    field_16: i32,
    field_17: i32,
    field_18: i32,
    field_19: i32,
    field_20: i32,
    field_21: i32,
    field_22: i32,
    field_23: i32,
    field_24: i32,
    field_25: i32,
    field_26: i32,
    field_27: i32,
    field_28: i32,
    field_29: i32,
    field_30: i32,
    field_31: i32,
    field_32: i32,
    field_33: i32,
    field_34: i32,
    field_35: i32,
    field_36: i32,
    field_37: i32,
    field_38: i32,
    field_39: i32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)]
struct Light {
    intensity: f32,
    color: Color,
}

#[derive(Debug)]
#[allow(dead_code)]
enum Shape {
    Light(Light),
    Other(UnknownType),
}

impl Polymorphic for Shape {
    const TYPES: &'static [&'static str] = &["{11111111-2222-3333-4444-555555555555} Light", "Light2"];
    fn deserialize_type<'de, D: Deserializer<'de>>(_index: usize, d: D) -> Result<Self, D::Error> {
        Light::deserialize(d).map(Shape::Light)
    }
    fn unknown(value: UnknownType) -> Option<Self> {
        Some(Shape::Other(value))
    }
    fn type_index(&self) -> TypeIndex<'_> {
        match self {
            Shape::Light(_) => TypeIndex::Known(0),
            Shape::Other(u) => TypeIndex::Unknown(u),
        }
    }
    fn serialize_type<S: Serializer>(&self, _s: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("not stored here"))
    }
}
serde_o3de::impl_polymorphic_serde!(Shape);

/// A class that holds another one of itself behind `$type`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)]
struct Node {
    child: Option<NodePtr>,
    list: Vec<i32>,
}

#[derive(Debug)]
#[allow(dead_code)]
enum NodePtr {
    Node(Box<Node>),
}

impl Polymorphic for NodePtr {
    const TYPES: &'static [&'static str] = &["Node"];
    fn deserialize_type<'de, D: Deserializer<'de>>(_index: usize, d: D) -> Result<Self, D::Error> {
        Node::deserialize(d).map(|n| NodePtr::Node(Box::new(n)))
    }
    fn type_index(&self) -> TypeIndex<'_> {
        TypeIndex::Known(0)
    }
    fn serialize_type<S: Serializer>(&self, _s: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("not stored here"))
    }
}
serde_o3de::impl_polymorphic_serde!(NodePtr);

/// A map whose values are maps of the same kind (arrays of `{"Key", "Value"}` entries).
#[derive(Debug, Default, Deserialize)]
#[allow(dead_code)]
struct Nest(BTreeMap<i32, Nest>);

/// A struct nested in itself.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)]
struct Dup {
    child: Option<Box<Dup>>,
    list: Vec<i32>,
}

// ---- generators -------------------------------------------------------------------------------

/// `open` + `item` repeated (comma-separated) until about `n` bytes + `close`.
fn repeated(open: &str, item: impl Fn(usize) -> String, close: &str, n: usize) -> Vec<u8> {
    let mut out = String::with_capacity(n + 64);
    out.push_str(open);
    let mut i = 0;
    while out.len() < n {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item(i));
        i += 1;
    }
    out.push_str(close);
    out.into_bytes()
}

/// `{"a":1,"a":1,...}`: one member name given again and again.
fn duplicate_members(name: &str, value: &str, n: usize) -> Vec<u8> {
    repeated("{", |_| format!("\"{name}\":{value}"), "}", n)
}

/// `{"k0":0,"k1":1,...}`.
fn distinct_members(n: usize) -> Vec<u8> {
    repeated("{", |i| format!("\"k{i}\":{i}"), "}", n)
}

/// Keys that all fold to the same field name, or share a long prefix: every case variant of
/// `field_17` and long keys that differ only in their last bytes.
fn colliding_members(n: usize) -> Vec<u8> {
    repeated(
        "{",
        |i| {
            if i % 2 == 0 {
                let mut key: Vec<u8> = b"field_17".to_vec();
                for (bit, b) in key.iter_mut().enumerate().take(5) {
                    if (i / 2) >> bit & 1 == 1 {
                        *b = b.to_ascii_uppercase();
                    }
                }
                format!("\"{}\":{}", String::from_utf8(key).unwrap(), i % 100)
            } else {
                format!("\"{}{i}\":1", "x".repeat(64))
            }
        },
        "}",
        n,
    )
}

fn nested_arrays(n: usize) -> Vec<u8> {
    testkit::depth::json_arrays(n / 2)
}

fn nested_objects(n: usize) -> Vec<u8> {
    testkit::depth::json_objects(n / 6)
}

/// One long string full of escapes.
fn escaped_string(n: usize) -> Vec<u8> {
    let unit = r#"ab\"\\\n\u00e9\ud83d\ude00"#;
    format!("\"{}\"", unit.repeat(n / unit.len() + 1)).into_bytes()
}

/// An array of the largest doubles: each becomes a 316-character string through O3DE's `%f`.
fn huge_doubles(n: usize) -> Vec<u8> {
    repeated("[", |_| "1e308".to_owned(), "]", n)
}

/// One number with `n` digits.
fn long_number(n: usize) -> Vec<u8> {
    let mut s = "9".repeat(300);
    s.push('.');
    s.push_str(&"9".repeat(n.saturating_sub(301)));
    s.into_bytes()
}

/// A string of hex digits coerced by O3DE's C `strtod`.
fn long_hex_string(n: usize) -> Vec<u8> {
    format!("\"0x{}p-99999\"", "f".repeat(n)).into_bytes()
}

/// `{"<long key>": [[], [], ...]}`: an element that cannot be loaded per three bytes, all under
/// one long member name.
fn failures_under_a_long_key(n: usize) -> Vec<u8> {
    let key = "k".repeat(n / 2);
    let mut out = format!("{{\"{key}\":").into_bytes();
    out.extend(repeated("[", |_| "[]".to_owned(), "]", n / 2));
    out.push(b'}');
    out
}

/// `{"u0":1,"u1":1,...}` into a struct: an unknown (Skipped) member per member.
fn unknown_members(n: usize) -> Vec<u8> {
    repeated("{", |i| format!("\"u{i}\":1"), "}", n)
}

/// `$type` objects whose `$type` comes after a large member.
fn poly_objects(n: usize) -> Vec<u8> {
    let pad = format!("[{}]", vec!["1"; 100].join(","));
    repeated("[", |_| format!(r#"{{"intensity":2,"pad":{pad},"$type":"light2"}}"#), "]", n)
}

/// A multimap with every key given many times.
fn multimap_members(n: usize) -> Vec<u8> {
    repeated("{", |i| format!("\"k{}\":[{i}]", i % 7), "}", n)
}

/// A prefab instance whose patches each copy the array `/a` into itself (doubling it).
fn doubling_patches(n: usize) -> Vec<u8> {
    let op = r#"{"op":"copy","from":"/a","path":"/a/-"}"#;
    let mut out = br#"{"Source":"x.prefab","Patches":"#.to_vec();
    out.extend(repeated("[", |_| op.to_owned(), "]", n));
    out.push(b'}');
    out
}

/// A prefab instance whose patches each add an element at the front of `/a`.
fn front_inserts(n: usize) -> Vec<u8> {
    let op = r#"{"op":"add","path":"/a/0","value":0}"#;
    let mut out = br#"{"Source":"x.prefab","Patches":"#.to_vec();
    out.extend(repeated("[", |_| op.to_owned(), "]", n));
    out.push(b'}');
    out
}

/// Patches that each add the same object again (`add` of a value as large as the patch).
fn adding_patches(n: usize) -> Vec<u8> {
    let op = r#"{"op":"add","path":"/b","value":[[[[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]]]]}"#;
    let mut out = br#"{"Source":"x.prefab","Patches":"#.to_vec();
    out.extend(repeated("[", |_| op.to_owned(), "]", n));
    out.push(b'}');
    out
}

/// Patches that move a large array back and forth.
fn moving_patches(n: usize) -> Vec<u8> {
    let mut out = br#"{"Source":"x.prefab","Patches":"#.to_vec();
    out.extend(repeated(
        "[",
        |i| {
            if i % 2 == 0 {
                r#"{"op":"move","from":"/a","path":"/b"}"#.to_owned()
            } else {
                r#"{"op":"move","from":"/b","path":"/a"}"#.to_owned()
            }
        },
        "]",
        n,
    ));
    out.push(b'}');
    out
}

/// Bytes per nesting level of the deep generators: the depth grows with the input.
const BYTES_PER_LEVEL: usize = 256;

/// `n / BYTES_PER_LEVEL` levels of `open` … `close` around `inner(bytes left)`, about `n` bytes.
fn nested_levels(n: usize, open: &str, close: &str, inner: impl Fn(usize) -> String) -> Vec<u8> {
    let depth = n / BYTES_PER_LEVEL;
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

/// `$type` objects whose `$type` comes after the child, nested.
fn nested_type_objects(n: usize) -> Vec<u8> {
    nested_levels(n, r#"{"child":"#, r#","$type":"Node"}"#, |left| {
        format!(r#"{{"list":[{}],"$type":"Node"}}"#, ones(left))
    })
}

/// Map entries whose `Value` (given before the `Key`) is a map, nested.
fn nested_map_entries(n: usize) -> Vec<u8> {
    nested_levels(n, r#"[{"Value":"#, r#","Key":1}]"#, |left| {
        format!(r#"[{{"Key":1,"Pad":[{}],"Value":[]}}]"#, ones(left))
    })
}

/// Objects that give a member twice, nested in the first occurrence.
fn nested_duplicates(n: usize) -> Vec<u8> {
    nested_levels(n, r#"{"child":"#, r#","child":{}}"#, |left| format!(r#"{{"list":[{}],"list":[2]}}"#, ones(left)))
}

/// Objects that give a member twice, nested in the last (winning) occurrence, under a large member.
fn winning_duplicates(n: usize) -> Vec<u8> {
    let depth = n / BYTES_PER_LEVEL;
    let level = r#"{"list":[1],"LIST":[2],"child":{},"child":"#;
    let mut text = String::from(r#"{"list":["#);
    text.push_str(&ones(n.saturating_sub((level.len() + 1) * depth + 32)));
    text.push_str(r#"],"child":"#);
    text.push_str(&level.repeat(depth));
    text.push_str("{}");
    text.push_str(&"}".repeat(depth + 1));
    text.into_bytes()
}

// ---- decoders -----------------------------------------------------------------------------------

fn value(input: &[u8]) -> bool {
    serde_o3de::from_slice::<Value>(input).is_ok()
}

fn typed(input: &[u8]) -> bool {
    serde_o3de::from_slice::<Typed>(input).is_ok()
}

fn typed_report(input: &[u8]) -> usize {
    Options::new().load_slice::<Typed>(input).map_or(0, |(_, report)| report.total_issues())
}

fn wide(input: &[u8]) -> bool {
    Options::new().load_slice::<Wide>(input).is_ok()
}

fn prefab(input: &[u8]) -> bool {
    serde_o3de::from_slice::<Prefab>(input).is_ok()
}

fn setreg(input: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(input) else {
        return false;
    };
    let mut registry = SettingsRegistry::new();
    registry.merge_str(text).is_ok()
}

fn from_value_typed(input: &[u8]) -> bool {
    // The dynamic value is part of what is measured: it is what the caller holds.
    match serde_json::from_slice::<Value>(input) {
        Ok(v) => Options::new().load_value::<Typed>(&v).is_ok(),
        Err(_) => false,
    }
}

/// Options with room for the deep generators (which run on a large stack).
fn deep() -> Options {
    Options::new().max_depth(1 << 20)
}

/// Loads `T` through `from_value` with [`deep`] options (the value is read by the crate too).
fn deep_from_value<T: serde::de::DeserializeOwned>(input: &[u8]) -> bool {
    match deep().from_slice::<Value>(input) {
        Ok(v) => deep().load_value::<T>(&v).is_ok(),
        Err(_) => false,
    }
}

fn patched(target: Value) -> impl Fn(&[u8]) -> Result<(), serde_o3de::Error> {
    move |input| {
        let instance: Instance = serde_o3de::from_slice(input)?;
        let mut doc = target.clone();
        instance.apply_patches(&mut doc)
    }
}

fn depth_error<T>(r: serde_o3de::Result<T>) {
    assert_eq!(r.err().map(|e| e.category()), Some(Category::Depth));
}

// ---- cases ------------------------------------------------------------------------------------

#[test]
fn duplicate_member_floods() {
    Case::new("o3de: duplicate members into a struct", |n| duplicate_members("a", "1", n))
        .size(N)
        .run(|input| assert!(typed(input)));
    Case::new("o3de: duplicate members, report", |n| duplicate_members("int", "\"x\"", n)).size(N).run(typed_report);
    Case::new("o3de: duplicate members into a wide struct", |n| duplicate_members("FIELD_33", "2", n))
        .size(N)
        .run(|input| assert!(wide(input)));
    Case::new("o3de: duplicate members into a value", |n| duplicate_members("a", "[1]", n))
        .size(N)
        .run(|input| assert!(value(input)));
    Case::new("o3de: duplicate members into a prefab", |n| duplicate_members("ContainerEntity", "{\"Id\":\"x\"}", n))
        .size(N)
        .run(|input| assert!(prefab(input)));
    Case::new("o3de: duplicate members, setreg merge", |n| duplicate_members("a", "{\"b\":1}", n))
        .size(N)
        .run(|input| assert!(setreg(input)));
    Case::new("o3de: duplicate members, from_value", |n| duplicate_members("a", "1", n))
        .size(N)
        .run(|input| assert!(from_value_typed(input)));
}

#[test]
fn distinct_and_colliding_member_floods() {
    Case::new("o3de: distinct members into a value", distinct_members).size(N).run(|input| assert!(value(input)));
    Case::new("o3de: distinct members into a hash map", distinct_members)
        .size(N)
        .run(|input| assert!(serde_o3de::from_slice::<HashMap<String, i64>>(input).is_ok()));
    Case::new("o3de: distinct members into a wide struct, report", distinct_members)
        .size(N)
        .run(|input| assert!(wide(input)));
    Case::new("o3de: folded and long colliding keys, wide struct", colliding_members)
        .size(N)
        .run(|input| assert!(wide(input)));
    Case::new("o3de: folded and long colliding keys into a hash map", colliding_members)
        .size(N)
        .run(|input| assert!(serde_o3de::from_slice::<HashMap<String, i64>>(input).is_ok()));
    Case::new("o3de: distinct members, from_reader", distinct_members)
        .size(N)
        .run(|input| assert!(serde_o3de::from_reader::<_, Value>(Cursor::new(input)).is_ok()));
}

#[test]
fn nesting_bombs_fail_fast() {
    Case::new("o3de: nested arrays into a value", nested_arrays)
        .size(N)
        .run(|input| depth_error(serde_o3de::from_slice::<Value>(input)));
    Case::new("o3de: nested objects into a struct", nested_objects)
        .size(N)
        .run(|input| depth_error(serde_o3de::from_slice::<Typed>(input)));
    Case::new("o3de: nested arrays, report", nested_arrays)
        .size(N)
        .run(|input| depth_error(Options::new().load_slice::<Typed>(input)));
    Case::new("o3de: nested objects, setreg", nested_objects)
        .size(N)
        .run(|input| depth_error(Options::new().settings_registry(true).from_slice::<Value>(input)));
    Case::new("o3de: nested arrays into a prefab", nested_arrays)
        .size(N)
        .run(|input| depth_error(serde_o3de::from_slice::<Prefab>(input)));
    let mut under_unknown = br#"{"unknown":"#.to_vec();
    under_unknown.extend(nested_arrays(N));
    under_unknown.push(b'}');
    depth_error(serde_o3de::from_slice::<Typed>(&under_unknown));
}

#[test]
fn long_strings_and_numbers() {
    Case::new("o3de: one long escaped string", escaped_string)
        .size(N)
        .run(|input| serde_o3de::from_slice::<String>(input).is_ok());
    Case::new("o3de: one long escaped string, report", escaped_string)
        .size(N)
        .run(|input| Options::new().load_slice::<Value>(input).is_ok());
    Case::new("o3de: %f expansion of 1e308 into strings", huge_doubles)
        .size(N)
        .run(|input| serde_o3de::from_slice::<Vec<String>>(input).is_ok());
    Case::new("o3de: a number with many digits", long_number)
        .size(N)
        .run(|input| serde_o3de::from_slice::<f64>(input).is_ok());
    Case::new("o3de: a hex float string with many digits", long_hex_string)
        .size(N)
        .run(|input| Options::new().load_slice::<f32>(input).is_ok());
}

#[test]
fn reports_stay_proportional() {
    Case::new("o3de: an issue per element under a long key", failures_under_a_long_key)
        .size(N)
        .run(|input| Options::new().load_slice::<BTreeMap<String, Vec<i32>>>(input).map(|(_, r)| r.total_issues()));
    Case::new("o3de: an issue per element, callback", failures_under_a_long_key).size(N).run(|input| {
        let text = std::str::from_utf8(input).unwrap();
        let mut seen = 0usize;
        let r = Options::new().load_str_with::<BTreeMap<String, Vec<i32>>>(text, |issue| {
            seen += 1;
            issue.result
        });
        (r.is_ok(), seen)
    });
    Case::new("o3de: an unknown member per member, report", unknown_members).size(N).run(typed_report);
    Case::new("o3de: an issue per element, setreg report", failures_under_a_long_key).size(N).run(|input| {
        Options::new().settings_registry(true).load_slice::<HashMap<String, Vec<u8>>>(input).map(|(_, r)| r.omitted)
    });
}

#[test]
fn polymorphic_and_multimap_inputs() {
    Case::new("o3de: $type objects after a large member", poly_objects)
        .size(N)
        .run(|input| Options::new().load_slice::<Vec<Shape>>(input).is_ok());
    Case::new("o3de: multimap with repeated keys", multimap_members)
        .size(N)
        .run(|input| serde_o3de::from_slice::<MultiMap<String, i32>>(input).is_ok());
}

#[test]
fn nested_look_aheads_are_linear() {
    // Deep inputs: the nesting grows with `n` (4096 levels at 16n), so the checks run on a large
    // stack; a look-ahead that rescans what is below it is quadratic here.
    testkit::depth::on_stack(1 << 30, || {
        Case::new("o3de: nested $type objects", nested_type_objects)
            .size(N)
            .run(|input| assert!(deep().from_slice::<Node>(input).is_ok()));
        Case::new("o3de: nested $type objects, report", nested_type_objects)
            .size(N)
            .run(|input| assert!(deep().load_slice::<Node>(input).is_ok()));
        Case::new("o3de: nested $type objects, from_value", nested_type_objects)
            .size(N)
            .run(|input| assert!(deep_from_value::<Node>(input)));
        Case::new("o3de: nested map entries", nested_map_entries)
            .size(N)
            .run(|input| assert!(deep().from_slice::<Nest>(input).is_ok()));
        Case::new("o3de: nested map entries, from_value", nested_map_entries)
            .size(N)
            .run(|input| assert!(deep_from_value::<Nest>(input)));
        Case::new("o3de: nested duplicate members", nested_duplicates)
            .size(N)
            .run(|input| assert!(deep().from_slice::<Dup>(input).is_ok()));
        Case::new("o3de: nested duplicate members, report", nested_duplicates)
            .size(N)
            .run(|input| assert!(deep().load_slice::<Dup>(input).is_ok()));
        Case::new("o3de: nested duplicate members, from_value", nested_duplicates)
            .size(N)
            .run(|input| assert!(deep_from_value::<Dup>(input)));
        Case::new("o3de: duplicates winning at every level", winning_duplicates)
            .size(N)
            .run(|input| assert!(deep().from_slice::<Dup>(input).is_ok()));
        Case::new("o3de: duplicates winning at every level, from_value", winning_duplicates)
            .size(N)
            .run(|input| assert!(deep_from_value::<Dup>(input)));
    });
}

#[test]
fn patch_amplification_is_bounded() {
    Case::new("o3de: patches doubling by copy", doubling_patches).size(N / 4).run(|input| {
        let r = patched(serde_json::json!({"a": [0]}))(input);
        assert_eq!(r.err().map(|e| e.category()), Some(Category::Limit));
    });
    Case::new("o3de: patches inserting at index 0", front_inserts).size(N).run(patched(serde_json::json!({"a": []})));
    Case::new("o3de: patches adding large values", adding_patches).size(N).run(patched(serde_json::json!({})));
    Case::new("o3de: patches moving a large array", moving_patches)
        .size(N)
        .run(patched(serde_json::json!({"a": vec![0; 50_000]})));
    // The limits are the caller's to set.
    let input = front_inserts(N);
    let err = patched_with(&input, serde_json::json!({"a": []}), PatchLimits::new().max_work(1 << 20)).unwrap_err();
    assert_eq!(err.category(), Category::Limit);
    assert!(err.to_string().contains("max_work"), "{err}");
}

fn patched_with(input: &[u8], mut doc: Value, limits: PatchLimits) -> Result<(), serde_o3de::Error> {
    let instance: Instance = serde_o3de::from_slice(input)?;
    instance.apply_patches_with(&mut doc, limits)
}
