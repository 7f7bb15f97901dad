//! serde-godot under the workspace rule for hostile input: for `n` input bytes, every decoding entry
//! point does O(n log n) work and holds at most about `64 · n` + a few MiB of heap (checked at `n`
//! and `4n` by `testkit::scaling`), or fails with a typed error naming the limit.
//!
//! Entry points: `Variant::from_bytes` / `take_from_bytes` (the direct decoder), `from_slice` into
//! `Variant`, `IgnoredAny`, `serde_json::Value` and typed Rust values (the serde Deserializer),
//! `from_reader`, the annotated dump (`dump::dump`), the text form of a decoded Variant (`Display`), the text reader and the ConfigFile reader (`text::variant_from_str`, `from_text`, `cfg::from_str`), the
//! framing helpers (`decode_frame` in every framing, chunk by chunk as a server sees a stream,
//! `read_frame`, huge length prefixes), `Variant` built by another format's Deserializer, and the
//! tagged JSON form read back (`serde_godot::json::TaggedVariant` through serde_json: nesting bombs
//! of every container are errors, the widest shapes of every payload linear). Both
//! Godot 4 and Godot 3. Attacks: Dictionary key floods of every key type (every math type, packed
//! arrays, Dictionaries, Arrays, objects, strings), keys that differ only in their last component,
//! -0.0 / 0.0 and NaN payloads (equal keys), duplicate keys large and small, keys nested in keys,
//! nesting bombs of every container kind (Arrays, Dictionary values and keys, full objects, typed
//! containers), huge declared counts and lengths (alone and nested, so that every level could
//! reserve for the same bytes), many strings and NodePath names, objects with many properties.

use std::hint::black_box;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_godot::framing::{self, Framing};
use serde_godot::{ErrorKind, FullObject, NodePath, ObjectId, Options, Variant, Version};
use testkit::scaling::Case;

testkit::install_counting_allocator!();

/// The small size of most cases (the large one is four times as much).
const N: usize = 32 * 1024;

type Outcome = Result<(), serde_godot::Error>;
type Decode = fn(&[u8], &Options) -> Outcome;

/// The two entry points that decode a whole Variant (the direct decoder, and the serde
/// Deserializer handing over to it), for every case.
fn variant_entries() -> Vec<(&'static str, Decode)> {
    vec![
        ("Variant::from_bytes", |b, o| Variant::from_bytes(b, o).map(drop)),
        ("from_slice::<Variant>", |b, o| o.from_slice::<Variant>(b).map(drop)),
    ]
}

/// The other entry points, for representative cases.
fn other_entries() -> Vec<(&'static str, Decode)> {
    vec![
        ("from_slice::<IgnoredAny>", |b, o| o.from_slice::<IgnoredAny>(b).map(drop)),
        ("from_slice::<serde_json::Value>", |b, o| o.from_slice::<serde_json::Value>(b).map(drop)),
        ("from_slice::<Vec<Variant>>", |b, o| o.from_slice::<Vec<Variant>>(b).map(drop)),
        ("Variant::take_from_bytes", |b, o| Variant::take_from_bytes(b, o).map(drop)),
        ("from_reader::<Variant>", |b, o| o.from_reader::<_, Variant>(b).map(drop)),
        ("text form", |b, o| Variant::from_bytes(b, o).map(|v| drop(black_box(v.to_string())))),
        ("decode_frame (Datagram)", |b, o| framing::decode_frame::<Variant>(b, o, Framing::Datagram).map(drop)),
        ("annotated dump", |b, o| serde_godot::dump::dump(b, o).into_result().map(|t| drop(black_box(t)))),
    ]
}

fn all_entries() -> Vec<(&'static str, Decode)> {
    let mut all = variant_entries();
    all.extend(other_entries());
    all
}

/// Every entry point for a representative case in Godot 4, the two Variant ones otherwise (Godot
/// 3 shares every decoder but the type table).
fn entries(opts: &Options, representative: bool) -> Vec<(&'static str, Decode)> {
    if representative && opts_version(opts) == Version::Godot4 { all_entries() } else { variant_entries() }
}

/// What a case's decodes must return.
#[derive(Clone, Copy)]
enum Expect {
    /// Anything (a typed entry point may refuse what a Variant accepts).
    Any,
    /// `Ok` from the Variant entry points.
    Ok,
    /// A `DepthLimit` error from every entry point.
    Depth,
    /// An error from every entry point.
    Err,
}

/// Runs the case `name` (inputs from `generate`) through each of `entries`.
fn check(
    name: &str,
    opts: Options,
    entries: &[(&'static str, Decode)],
    expect: Expect,
    generate: impl Fn(usize) -> Vec<u8>,
) {
    for &(entry, decode) in entries {
        // Typed entry points may refuse a value for its type before any limit applies.
        let typed = !variant_entries().iter().chain(&other_entries()).any(|(e, _)| *e == entry)
            || entry.starts_with("from_slice::<serde_json")
            || entry.starts_with("from_slice::<Vec");
        Case::new(format!("godot {:?}: {name}, {entry}", opts_version(&opts)), &generate).size(N).run(|input| {
            let outcome = decode(input, &opts);
            match (expect, &outcome) {
                (Expect::Ok, Err(e)) if !typed => panic!("{name}, {entry}: {e}"),
                (Expect::Depth, Err(e)) if !typed && !matches!(e.kind(), ErrorKind::DepthLimit(_)) => {
                    panic!("{name}, {entry}: not a depth error: {e}")
                }
                (Expect::Depth | Expect::Err, Ok(())) => panic!("{name}, {entry}: accepted"),
                _ => {}
            }
        });
    }
}

fn opts_version(opts: &Options) -> Version {
    // Options has no getter; Godot 3 numbers Arrays 19.
    if opts.to_vec(&Vec::<i32>::new()).unwrap()[0] == 19 { Version::Godot3 } else { Version::Godot4 }
}

/// Runs `f` on a thread with an application-sized stack (decoding 1024 levels at opt-level 1 needs
/// more than a test thread's 2 MiB).
fn app_stack(f: impl FnOnce() + Send) {
    testkit::depth::on_stack(testkit::depth::APP_STACK, f);
}

fn versions() -> [Options; 2] {
    [Options::new(), Options::new().version(Version::Godot3)]
}

fn word(out: &mut Vec<u8>, w: u32) {
    out.extend_from_slice(&w.to_le_bytes());
}

fn enc(v: &Variant, opts: &Options) -> Vec<u8> {
    v.to_bytes(opts).unwrap()
}

/// The header word of `ty` (as a Godot 4 `VariantType`) in `opts`' version.
fn header(ty: serde_godot::VariantType, opts: &Options) -> u32 {
    let sample = match ty {
        serde_godot::VariantType::Dictionary => Variant::Dictionary(Box::default()),
        serde_godot::VariantType::Array => Variant::from(Vec::<Variant>::new()),
        serde_godot::VariantType::Object => Variant::from(FullObject { class: "N".into(), properties: vec![] }),
        serde_godot::VariantType::String => Variant::from(""),
        serde_godot::VariantType::PackedStringArray => Variant::PackedStringArray(Vec::new().into()),
        serde_godot::VariantType::NodePath => Variant::from(NodePath::default()),
        other => panic!("no sample for {other:?}"),
    };
    let bytes = sample.to_bytes(&opts.full_objects(true)).unwrap();
    u32::from_le_bytes(bytes[..4].try_into().unwrap())
}

/// A raw Dictionary of `count` entries `entry(i)` (already encoded, never merged on the way).
fn raw_dict(opts: &Options, count: usize, entry: impl Fn(u32) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    word(&mut out, header(serde_godot::VariantType::Dictionary, opts));
    word(&mut out, count as u32);
    for i in 0..count {
        out.extend_from_slice(&entry(i as u32));
    }
    out
}

/// About `n` bytes of a Dictionary of the keys `key(i)` with NIL values.
fn key_flood(n: usize, opts: &Options, key: &dyn Fn(u32) -> Variant) -> Vec<u8> {
    let per = enc(&key(0), opts).len() + 4;
    raw_dict(opts, (n / per).max(1), |i| {
        let mut entry = enc(&key(i), opts);
        entry.extend_from_slice(&[0; 4]);
        entry
    })
}

/// A Godot 4 math value: `ty` with `comps` reals, all 1.5 but the last, which is `last`.
fn math(ty: u32, comps: usize, last: f32) -> Variant {
    let mut raw = Vec::new();
    word(&mut raw, ty);
    for c in 0..comps {
        raw.extend_from_slice(&(if c + 1 == comps { last } else { 1.5f32 }).to_le_bytes());
    }
    Variant::from_bytes(&raw, &Options::new()).unwrap()
}

/// Every math type: name, Godot 4 type id, components.
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

type KeyFn = Box<dyn Fn(u32) -> Variant + Sync>;

/// Every other key type, keys differing only in their last part.
fn other_key_types() -> Vec<(&'static str, KeyFn)> {
    use serde_godot::{Color, Rect2i, Vector2, Vector3, Vector3i, Vector4};
    vec![
        ("String", Box::new(|i| Variant::from(format!("key{i}")))),
        ("StringName", Box::new(|i| Variant::StringName(format!("key{i}").into()))),
        ("NodePath", Box::new(|i| Variant::from(NodePath::from(format!("a/b:c{i}").as_str())))),
        ("Vector3i", Box::new(|i| Variant::Vector3i(Vector3i::new(1, 2, i as i32)))),
        ("Rect2i", Box::new(|i| Variant::Rect2i(Rect2i::new(1, 2, 3, i as i32)))),
        ("Object id", Box::new(|i| Variant::from(ObjectId(u64::from(i) + 1)))),
        ("Dictionary", Box::new(|i| Variant::from([(Variant::Int(0), Variant::Int(i64::from(i)))]))),
        ("Array", Box::new(|i| Variant::from(vec![Variant::Int(0), Variant::Float(f64::from(i) + 0.5)]))),
        ("PackedByteArray", Box::new(|i| Variant::PackedByteArray(i.to_le_bytes().to_vec().into()))),
        ("PackedInt32Array", Box::new(|i| Variant::PackedInt32Array(vec![0, i as i32].into()))),
        ("PackedInt64Array", Box::new(|i| Variant::PackedInt64Array(vec![0, i64::from(i)].into()))),
        ("PackedFloat32Array", Box::new(|i| Variant::PackedFloat32Array(vec![1.5, i as f32].into()))),
        ("PackedFloat64Array", Box::new(|i| Variant::PackedFloat64Array(vec![1.5, f64::from(i)].into()))),
        ("PackedStringArray", Box::new(|i| Variant::PackedStringArray(vec!["a".into(), i.to_string()].into()))),
        ("PackedVector2Array", Box::new(|i| Variant::PackedVector2Array(vec![Vector2::new(1.5, i as f32)].into()))),
        (
            "PackedVector3Array",
            Box::new(|i| Variant::PackedVector3Array(vec![Vector3::new(1.5, 1.5, i as f32)].into())),
        ),
        (
            "PackedVector4Array",
            Box::new(|i| Variant::PackedVector4Array(vec![Vector4::new(1.5, 1.5, 1.5, i as f32)].into())),
        ),
        ("PackedColorArray", Box::new(|i| Variant::PackedColorArray(vec![Color::new(1.5, 1.5, 1.5, i as f32)].into()))),
        (
            "full Object",
            Box::new(|i| {
                Variant::from(FullObject {
                    class: "Node".into(),
                    properties: vec![("a".into(), Variant::Nil), ("b".into(), Variant::Int(i64::from(i)))],
                })
            }),
        ),
    ]
}

/// Whether `v` can be written in `opts`' version (Godot 3 lacks some types).
fn encodable(v: &Variant, opts: &Options) -> bool {
    v.to_bytes(opts).is_ok()
}

// ---------------------------------------------------------------------------------------------
// Dictionary keys

#[test]
fn key_floods_of_every_math_type() {
    app_stack(|| {
        for opts in versions() {
            for (name, ty, comps) in MATH_TYPES {
                let key = move |i: u32| math(ty, comps, i as f32);
                if !encodable(&key(0), &opts) {
                    continue;
                }
                check(&format!("{name} key flood"), opts, &entries(&opts, name == "Rect2"), Expect::Ok, |n| {
                    key_flood(n, &opts, &key)
                });
            }
        }
    });
}

#[test]
fn key_floods_of_every_other_type() {
    app_stack(|| {
        for opts in versions() {
            let opts = opts.full_objects(true);
            for (name, key) in other_key_types() {
                if !encodable(&key(0), &opts) {
                    continue;
                }
                let representative = matches!(name, "Dictionary" | "String");
                check(&format!("{name} key flood"), opts, &entries(&opts, representative), Expect::Ok, |n| {
                    key_flood(n, &opts, &key)
                });
            }
        }
    });
}

#[test]
fn equal_keys_with_negative_zero_and_nan_payloads() {
    // Thousands of encodings of one key: every one is a duplicate, found through the hash index.
    app_stack(|| {
        for opts in versions() {
            let vector = |i: u32| {
                let nan = f32::from_bits(0x7fc0_0000 | (i & 0x3f_ffff));
                let zero = if i % 2 == 0 { 0.0 } else { -0.0 };
                math(7, 4, if i % 3 == 0 { zero } else { nan })
            };
            check("Rect2 keys, ±0.0 and NaN payloads", opts, &variant_entries(), Expect::Ok, |n| {
                key_flood(n, &opts, &vector)
            });
            let packed = |i: u32| {
                let nan = f32::from_bits(0xffc0_0000 | (i & 0x3f_ffff));
                let zero = if i % 2 == 0 { 0.0 } else { -0.0 };
                Variant::PackedFloat32Array(vec![zero, nan, zero, nan].into())
            };
            check("PackedFloat32Array keys, ±0.0 and NaN payloads", opts, &variant_entries(), Expect::Ok, |n| {
                key_flood(n, &opts, &packed)
            });
            let float = |i: u32| Variant::Float(f64::from_bits(0x7ff8_0000_0000_0000 | u64::from(i)));
            check("Float keys, NaN payloads", opts, &entries(&opts, true), Expect::Ok, |n| key_flood(n, &opts, &float));
        }
    });
}

#[test]
fn duplicate_keys_large_and_small() {
    app_stack(|| {
        for opts in versions() {
            let small = |_| Variant::from("a");
            check("one String key repeated", opts, &entries(&opts, true), Expect::Ok, |n| key_flood(n, &opts, &small));
            // A 1 KiB key, compared in full against each of its duplicates.
            let bytes = |_| Variant::PackedByteArray(vec![7; 1024].into());
            check("one 1 KiB PackedByteArray key repeated", opts, &variant_entries(), Expect::Ok, |n| {
                key_flood(n, &opts, &bytes)
            });
            // A Dictionary key of 40 entries (it builds its own index), repeated.
            let dict = |_| (0..40).map(|k| (Variant::Int(k), Variant::Float(-0.0))).collect::<Variant>();
            check("one 40-entry Dictionary key repeated", opts, &variant_entries(), Expect::Ok, |n| {
                key_flood(n, &opts, &dict)
            });
            // Distinct big keys that differ only at their very end.
            let late = |i: u32| {
                let mut items = vec![Variant::Int(0); 60];
                items.push(Variant::Int(i64::from(i)));
                Variant::from(items)
            };
            check("Array keys differing in their last element", opts, &variant_entries(), Expect::Ok, |n| {
                key_flood(n, &opts, &late)
            });
        }
    });
}

/// A Dictionary of 17 entries (so that it builds its hash index) whose first key is the next such
/// Dictionary (inside a one-element Array if `in_array`), `levels` deep.
fn nested_dict_keys(opts: &Options, levels: usize, in_array: bool) -> Vec<u8> {
    let dict = header(serde_godot::VariantType::Dictionary, opts);
    let array = header(serde_godot::VariantType::Array, opts);
    let mut out = Vec::new();
    for _ in 0..levels {
        word(&mut out, dict);
        word(&mut out, 17);
        if in_array {
            word(&mut out, array);
            word(&mut out, 1);
        }
    }
    word(&mut out, 0);
    for _ in 0..levels {
        word(&mut out, 0);
        for i in 1..17 {
            out.extend_from_slice(&enc(&Variant::Int(i), opts));
            word(&mut out, 0);
        }
    }
    out
}

#[test]
fn keys_nested_in_keys() {
    // Every level's key holds all the levels below it: hashing each key from scratch would be
    // depth × size. (Each level is ~212 bytes, so 4n stays under the depth limit.)
    app_stack(|| {
        for opts in versions() {
            check("Dictionary keys nested in keys", opts, &entries(&opts, true), Expect::Any, |n| {
                nested_dict_keys(&opts, (n / 212).min(1000), false)
            });
            check("Dictionary keys nested in Array keys", opts, &variant_entries(), Expect::Ok, |n| {
                nested_dict_keys(&opts, (n / 440).min(500), true)
            });
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Nesting

/// The repeated unit of each nesting bomb (one level), in `opts`' version.
fn nesting_units(opts: &Options) -> Vec<(&'static str, Vec<u8>)> {
    let dict = header(serde_godot::VariantType::Dictionary, opts);
    let array = header(serde_godot::VariantType::Array, opts);
    let object = header(serde_godot::VariantType::Object, opts);
    let key_a = enc(&Variant::from("a"), opts);
    let mut units = Vec::new();
    let mut unit = Vec::new();
    word(&mut unit, array);
    word(&mut unit, 1);
    units.push(("Array", unit));
    let mut unit = Vec::new();
    word(&mut unit, dict);
    word(&mut unit, 1);
    unit.extend_from_slice(&key_a);
    units.push(("Dictionary values", unit));
    let mut unit = Vec::new();
    word(&mut unit, dict);
    word(&mut unit, 1);
    units.push(("Dictionary keys", unit));
    // A full object whose one property's value is the next level.
    let mut unit = Vec::new();
    word(&mut unit, object);
    unit.extend_from_slice(&[1, 0, 0, 0, b'N', 0, 0, 0]);
    word(&mut unit, 1);
    unit.extend_from_slice(&[1, 0, 0, 0, b'p', 0, 0, 0]);
    units.push(("full objects", unit));
    // Array, Dictionary and object in turn.
    let mixed = [units[0].1.clone(), units[1].1.clone(), units[3].1.clone()].concat();
    units.push(("Array, Dictionary, object", mixed));
    if opts_version(opts) == Version::Godot4 {
        // Typed Array[Array] and Dictionary[Dictionary, Dictionary] headers.
        let mut unit = Vec::new();
        word(&mut unit, array | 1 << 16);
        word(&mut unit, array);
        word(&mut unit, 1);
        units.push(("typed Arrays", unit));
        let mut unit = Vec::new();
        word(&mut unit, dict | 1 << 16 | 1 << 18);
        word(&mut unit, dict);
        word(&mut unit, dict);
        word(&mut unit, 1);
        units.push(("typed Dictionary keys", unit));
    }
    units
}

#[test]
fn nesting_bombs_of_every_container_are_depth_errors() {
    // `n` bytes of nesting (and always more than 1024 levels): the decoders stop at depth 1024
    // (`DepthLimit`), so the work stays flat however long the bomb.
    app_stack(|| {
        for opts in versions() {
            let opts = opts.full_objects(true);
            for (name, unit) in nesting_units(&opts) {
                let representative = matches!(name, "Array" | "Dictionary keys" | "full objects");
                check(&format!("nesting bomb of {name}"), opts, &entries(&opts, representative), Expect::Depth, |n| {
                    testkit::depth::prefixed(&unit, 1100 + n / unit.len(), &[0; 4])
                });
            }
        }
    });
}

#[test]
fn content_under_deep_nesting() {
    // 1000 levels (just under the limit), then a key flood: depth must not multiply anything.
    app_stack(|| {
        for opts in versions() {
            let opts = opts.full_objects(true);
            for (name, unit) in nesting_units(&opts) {
                let levels = 1000 / (unit.len() / 8).max(1);
                let key = |i: u32| math(9, 3, i as f32);
                check(
                    &format!("Vector3 key flood under ~1000 levels of {name}"),
                    opts,
                    &variant_entries(),
                    Expect::Any,
                    |n| {
                        let mut out = testkit::depth::prefixed(&unit, levels, &[]);
                        out.extend_from_slice(&key_flood(n, &opts, &key));
                        out
                    },
                );
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Declared lengths

/// `levels` nested containers with header `open` declaring `count` elements each, then `n` bytes
/// of NILs: every level could reserve for the same bytes.
fn nested_counts(open: &[u8], levels: usize, n: usize) -> Vec<u8> {
    let mut out = testkit::depth::prefixed(open, levels, &[]);
    out.extend(std::iter::repeat_n(0u8, n / 4 * 4));
    out
}

#[test]
fn huge_declared_counts_alone_and_nested() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Nest(Vec<Nest>);
    let typed: Vec<(&'static str, Decode)> = vec![
        ("from_slice::<Nest>", |b, o| o.from_slice::<Nest>(b).map(drop)),
        ("from_slice::<Vec<String>>", |b, o| o.from_slice::<Vec<String>>(b).map(drop)),
        ("from_slice::<HashMap<String, Variant>>", |b, o| {
            o.from_slice::<std::collections::HashMap<String, Variant>>(b).map(drop)
        }),
        ("from_slice::<Dictionary>", |b, o| o.from_slice::<serde_godot::Dictionary>(b).map(drop)),
        ("from_slice::<PackedStringArray>", |b, o| o.from_slice::<serde_godot::PackedStringArray>(b).map(drop)),
    ];
    let mut every = all_entries();
    every.extend(typed);
    app_stack(|| {
        for opts in versions() {
            let opts = opts.full_objects(true);
            let huge = 0x7fff_ffffu32.to_le_bytes();
            let dict = header(serde_godot::VariantType::Dictionary, &opts).to_le_bytes();
            let array = header(serde_godot::VariantType::Array, &opts).to_le_bytes();
            let object = header(serde_godot::VariantType::Object, &opts).to_le_bytes();
            let strings = header(serde_godot::VariantType::PackedStringArray, &opts).to_le_bytes();
            let string = header(serde_godot::VariantType::String, &opts).to_le_bytes();
            let path = header(serde_godot::VariantType::NodePath, &opts).to_le_bytes();
            let object_unit = [&object[..], &[1, 0, 0, 0, b'N', 0, 0, 0], &huge, &[1, 0, 0, 0, b'p', 0, 0, 0]].concat();
            let cases: Vec<(&str, Vec<u8>, usize)> = vec![
                ("an Array of 2^31-1 NILs", [array, huge].concat(), 1),
                ("a Dictionary of 2^31-1 NIL entries", [dict, huge].concat(), 1),
                ("a PackedStringArray of 2^31-1 empty strings", [strings, huge].concat(), 1),
                ("a String of 2^31-1 bytes", [string, huge].concat(), 1),
                ("a NodePath of 2^31-1 empty names", [&path[..], &[0xff, 0xff, 0xff, 0xff], &[0; 8]].concat(), 1),
                (
                    "an object of 2^31-1 NIL properties named ''",
                    [&object[..], &[1, 0, 0, 0, b'N', 0, 0, 0], &huge].concat(),
                    1,
                ),
                ("1000 nested Arrays of 2^31-1 elements", [array, huge].concat(), 1000),
                ("1000 nested Arrays of 4096 elements", [array, 4096u32.to_le_bytes()].concat(), 1000),
                ("1000 nested Dictionaries of 2^31-1 entries", [dict, huge].concat(), 1000),
                ("1000 nested objects of 2^31-1 properties", object_unit, 1000),
            ];
            for (name, open, levels) in cases {
                let representative = opts_version(&opts) == Version::Godot4 && name.contains("2^31-1 e");
                let entries = if representative { every.clone() } else { entries(&opts, levels == 1) };
                check(name, opts, &entries, Expect::Err, |n| nested_counts(&open, levels, n));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Strings, objects, packed arrays

fn array_of(opts: &Options, n: usize, item: &Variant) -> Vec<u8> {
    let item = enc(item, opts);
    let count = (n / item.len()).max(1);
    let mut out = Vec::new();
    word(&mut out, header(serde_godot::VariantType::Array, opts));
    word(&mut out, count as u32);
    for _ in 0..count {
        out.extend_from_slice(&item);
    }
    out
}

#[test]
fn strings_objects_and_packed_arrays() {
    app_stack(|| {
        for opts in versions() {
            let opts = opts.full_objects(true);
            check("Array of empty Strings", opts, &entries(&opts, true), Expect::Ok, |n| {
                array_of(&opts, n, &Variant::from(""))
            });
            check("Array of escaped Strings", opts, &entries(&opts, false), Expect::Ok, |n| {
                array_of(&opts, n, &Variant::from("\"\\\n\u{feff}é"))
            });
            check("one long String with a NUL at its end", opts, &entries(&opts, true), Expect::Ok, |n| {
                let mut s = "\u{feff}".repeat(n / 3);
                s.push('\0');
                enc(&Variant::from(s), &opts)
            });
            check("one long String, invalid UTF-8 at its end", opts, &entries(&opts, false), Expect::Err, |n| {
                let mut bytes = enc(&Variant::from("é".repeat(n / 2)), &opts);
                let end = bytes.len() - 1;
                bytes[end - 1] = 0xff;
                bytes
            });
            check("PackedStringArray of empty strings", opts, &entries(&opts, true), Expect::Ok, |n| {
                enc(&Variant::PackedStringArray(vec![String::new(); n / 4].into()), &opts)
            });
            check("NodePath of empty names", opts, &entries(&opts, true), Expect::Ok, |n| {
                let mut out = Vec::new();
                word(&mut out, header(serde_godot::VariantType::NodePath, &opts));
                word(&mut out, (n / 4) as u32 | 0x8000_0000);
                word(&mut out, 0);
                word(&mut out, 0);
                out.extend(std::iter::repeat_n(0u8, n / 4 * 4));
                out
            });
            check("an object of many properties", opts, &entries(&opts, true), Expect::Ok, |n| {
                let properties = (0..n / 16).map(|i| (format!("p{}", i % 10), Variant::Nil)).collect();
                enc(&Variant::from(FullObject { class: "Node".into(), properties }), &opts)
            });
            check("an Array of objects", opts, &variant_entries(), Expect::Ok, |n| {
                let object = FullObject { class: "N".into(), properties: vec![("p".into(), Variant::Int(1))] };
                array_of(&opts, n, &Variant::from(object))
            });
            check("PackedFloat32Array of subnormals (longest text)", opts, &entries(&opts, true), Expect::Ok, |n| {
                enc(&Variant::PackedFloat32Array(vec![-f32::from_bits(0x0080_0001); n / 4].into()), &opts)
            });
            check("PackedVector3Array", opts, &entries(&opts, false), Expect::Ok, |n| {
                let v = serde_godot::Vector3::new(-1e-40, 3.4e38, f32::NAN);
                enc(&Variant::PackedVector3Array(vec![v; n / 12].into()), &opts)
            });
            check("Array of NILs", opts, &entries(&opts, false), Expect::Ok, |n| array_of(&opts, n, &Variant::Nil));
            check("Array of empty Arrays", opts, &entries(&opts, false), Expect::Ok, |n| {
                array_of(&opts, n, &Variant::from(Vec::<Variant>::new()))
            });
            check("Array of empty Dictionaries", opts, &entries(&opts, true), Expect::Ok, |n| {
                array_of(&opts, n, &Variant::Dictionary(Box::default()))
            });
        }
        // Godot 4 only: a typed Array[Object] of the class `EncodedObjectAsID`.
        let opts = Options::new();
        let typed = serde_godot::Array::with_element_type(
            serde_godot::ContainerType::ClassName("EncodedObjectAsID".into()),
            vec![Variant::from(ObjectId(7))],
        );
        check("Array of typed Arrays with class names", opts.typed_containers(true), &all_entries(), Expect::Ok, |n| {
            array_of(&opts.typed_containers(true), n, &Variant::from(typed.clone()))
        });
    });
}

// ---------------------------------------------------------------------------------------------
// Framing

/// `frames` StreamPeer frames of `body` in a row.
fn frames(body: &[u8], framing: Framing, count: usize) -> Vec<u8> {
    let mut one = Vec::new();
    if framing.prefix_len() == 4 {
        let len = body.len() as u32;
        one.extend_from_slice(&if framing == Framing::StreamPeerBigEndian {
            len.to_be_bytes()
        } else {
            len.to_le_bytes()
        });
    }
    one.extend_from_slice(body);
    one.repeat(count)
}

#[test]
fn framing() {
    app_stack(|| {
        for opts in versions() {
            let key = |i: u32| math(7, 4, i as f32);
            for framing in
                [Framing::StreamPeer, Framing::StreamPeerBigEndian, Framing::PacketPeerStream, Framing::Datagram]
            {
                Case::new(format!("godot: decode_frame ({framing:?}) of a Rect2 key flood"), |n| {
                    frames(&key_flood(n, &opts, &key), framing, 1)
                })
                .size(N)
                .run(|input| assert!(framing::decode_frame::<Variant>(input, &opts, framing).unwrap().is_some()));
                Case::new(format!("godot: read_frame ({framing:?}) of a Rect2 key flood"), |n| {
                    frames(&key_flood(n, &opts, &key), framing, 1)
                })
                .size(N)
                .run(|input| framing::read_frame::<_, Variant>(input, &opts, framing).unwrap());
            }
            // The annotated dump of many small frames (one line per span, the text form of each).
            let message = enc(&Variant::from([("cmd", Variant::from("move")), ("x", Variant::Int(3))]), &opts);
            for framing in [Framing::StreamPeer, Framing::StreamPeerBigEndian] {
                Case::new(format!("godot: dump_frames ({framing:?}) over many frames"), |n| {
                    frames(&message, framing, n / (message.len() + 4))
                })
                .size(N)
                .run(|input| {
                    black_box(serde_godot::dump::dump_frames(input, &opts, framing).into_result().unwrap());
                });
            }
            // A server loop over a buffer of many small frames.
            let message = enc(&Variant::from([("cmd", Variant::from("move")), ("x", Variant::Int(3))]), &opts);
            Case::new("godot: decode_frame in a loop over many frames", |n| {
                frames(&message, Framing::StreamPeer, n / (message.len() + 4))
            })
            .size(N)
            .run(|mut input| {
                while let Some((v, used)) = framing::decode_frame::<Variant>(input, &opts, Framing::StreamPeer).unwrap()
                {
                    black_box(v);
                    input = &input[used..];
                }
                assert!(input.is_empty());
            });
            // A frame arriving 64 bytes at a time, decode_frame tried after each chunk (what a
            // codec does): each early call must cost O(1), not O(buffered bytes).
            Case::new("godot: decode_frame after every 64-byte chunk", |n| {
                frames(&key_flood(n, &opts, &key), Framing::StreamPeer, 1)
            })
            .size(N)
            .run(|input| {
                for end in (0..input.len()).step_by(64) {
                    assert!(
                        framing::decode_frame::<Variant>(&input[..end], &opts, Framing::StreamPeer).unwrap().is_none()
                    );
                }
                assert!(framing::decode_frame::<Variant>(input, &opts, Framing::StreamPeer).unwrap().is_some());
            });
            // Length prefixes above max_size: refused from the prefix alone.
            let small = opts.max_size(1024);
            Case::new("godot: huge length prefix, then n bytes", |n| {
                let mut out = u32::MAX.to_le_bytes().to_vec();
                out.resize(4 + n, 0);
                out
            })
            .size(N)
            .run(|input| {
                for f in [Framing::StreamPeer, Framing::StreamPeerBigEndian, Framing::PacketPeerStream] {
                    let err = framing::decode_frame::<Variant>(input, &small, f).unwrap_err();
                    assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
                    let err = framing::read_frame::<_, Variant>(input, &small, f).unwrap_err();
                    assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
                }
                let err = framing::decode_frame::<Variant>(input, &small, Framing::Datagram).unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
                let err = small.from_reader::<_, Variant>(input).unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::SizeLimit { .. }), "{err}");
            });
            // A prefix within max_size whose body never comes: read_frame reads what arrives.
            Case::new("godot: read_frame of a truncated body", |n| {
                let mut out = (8u32 << 20).to_le_bytes().to_vec();
                out.resize(4 + n, 0);
                out
            })
            // Heap only: the work is std's `read_to_end` copying what arrived, and its time is
            // the allocator's (fresh pages, `mremap`), which changes regime between sizes.
            .size(N)
            .heap_only()
            .run(|input| {
                let err = framing::read_frame::<_, Variant>(input, &opts, Framing::StreamPeer).unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err}");
            });
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Variant from another format's Deserializer

#[test]
fn variant_from_json() {
    // Variant's generic (data-model) visitor: key floods and duplicates from serde_json.
    Case::new("godot: Variant from JSON, distinct keys", |n| {
        let mut out = String::from("{");
        for i in 0..n / 12 {
            out.push_str(&format!("\"k{i:06}\":1,"));
        }
        out.push_str("\"end\":[1,{\"a\":2.5}]}");
        out.into_bytes()
    })
    .size(N)
    .run(|input| serde_json::from_slice::<Variant>(input).unwrap());
    Case::new("godot: Variant from JSON, one key repeated", |n| {
        let mut out = String::from("{");
        for _ in 0..n / 8 {
            out.push_str("\"k\":[1],");
        }
        out.push_str("\"end\":0}");
        out.into_bytes()
    })
    .size(N)
    .run(|input| serde_json::from_slice::<Variant>(input).unwrap());
}

// ---------------------------------------------------------------------------------------------
// The tagged JSON form (`serde_godot::json`: JSON → Variant through serde_json)

/// Reads the tagged form with serde_json, as gamefmt does.
fn tagged(input: &[u8]) -> Result<Variant, serde_json::Error> {
    serde_json::from_slice::<serde_godot::json::TaggedVariant>(input).map(|t| t.0)
}

/// `levels` copies of `open`, a `0` and the matching `close`s: nesting of any depth.
fn json_nesting(open: &str, close: &str, levels: usize) -> Vec<u8> {
    let mut out = open.repeat(levels);
    out.push('0');
    out.push_str(&close.repeat(levels));
    out.into_bytes()
}

#[test]
fn tagged_json_nesting_bombs_are_errors() {
    // Every container of the form nested far beyond any limit: the reader recurses once per level,
    // so serde_json's recursion limit (128) must end it with an error — on a test thread's 2 MiB
    // stack, not only an application's — and the work stays flat however long the bomb.
    let units = [
        ("plain arrays", "[", "]"),
        ("plain dictionaries", "{\"a\":", "}"),
        ("$Array", "{\"$Array\":[", "]}"),
        ("$Dictionary values", "{\"$Dictionary\":[[1,", "]]}"),
        ("$Dictionary keys", "{\"$Dictionary\":[[", ",1]]}"),
        ("$Object properties", "{\"$Object\":{\"class\":\"Node\",\"properties\":[[\"p\",", "]]}}"),
    ];
    for (name, open, close) in units {
        for levels in [200, 100_000] {
            let bomb = json_nesting(open, close, levels);
            let err = tagged(&bomb).expect_err(name);
            assert!(err.to_string().contains("recursion limit"), "{name}, {levels} levels: {err}");
        }
        Case::new(format!("godot json: nesting bomb of {name}"), |n| json_nesting(open, close, 200 + n / open.len()))
            .size(N)
            .run(|input| assert!(tagged(input).is_err()));
    }
    // Just under the limit, every kind reads (the limit is serde_json's, not a smaller one of ours).
    for (name, open, close) in units {
        let levels = 120 / open.matches(['[', '{']).count();
        tagged(&json_nesting(open, close, levels)).unwrap_or_else(|e| panic!("{name}, {levels} levels: {e}"));
    }
}

#[test]
fn tagged_json_wide_input_is_linear() {
    // n bytes of the widest shapes of every payload: linear work, heap within the workspace bound.
    type Unit = (&'static str, &'static str, fn(usize) -> String, &'static str);
    let units: [Unit; 14] = [
        ("array of ints", "[", |_| "1,".into(), "0]"),
        ("array of floats", "[", |_| "1.5,".into(), "0]"),
        ("distinct plain keys", "{", |i| format!("\"k{i:07}\":1,"), "\"end\":0}"),
        ("one plain key repeated", "{", |_| "\"k\":1,".into(), "\"end\":0}"),
        ("$Dictionary of Vector2 keys", "{\"$Dictionary\":[", |i| format!("[{{\"$Vector2\":[{i},1]}},1],"), "[0,0]]}"),
        ("$Dictionary of one key repeated", "{\"$Dictionary\":[", |_| "[1,1],".into(), "[0,0]]}"),
        ("typed $Array", "{\"$Array\":[", |_| "1,".into(), "0],\"$element_type\":\"int\"}"),
        ("tagged values", "[", |_| "{\"$Vector3\":[1,2,3]},".into(), "0]"),
        ("non-finite floats", "[", |_| "{\"$float\":\"nan\"},".into(), "0]"),
        ("$PackedByteArray hex", "{\"$PackedByteArray\":\"", |_| "ab".into(), "\"}"),
        ("$PackedVector3Array", "{\"$PackedVector3Array\":[", |_| "[1,2,3],".into(), "[0,0,0]]}"),
        ("$PackedStringArray", "{\"$PackedStringArray\":[", |_| "\"s\",".into(), "\"\"]}"),
        (
            "$NodePath names",
            "{\"$NodePath\":{\"names\":[",
            |_| "\"n\",".into(),
            "\"\"],\"subnames\":[],\"absolute\":true}}",
        ),
        (
            "$Object properties",
            "{\"$Object\":{\"class\":\"Node\",\"properties\":[",
            |_| "[\"p\",1],".into(),
            "[\"q\",0]]}}",
        ),
    ];
    for (name, open, item, close) in units {
        Case::new(format!("godot json: {name}"), |n| {
            let mut out = String::from(open);
            let mut i = 0;
            while out.len() < n {
                out.push_str(&item(i));
                i += 1;
            }
            out.push_str(close);
            out.into_bytes()
        })
        .size(N)
        .run(|input| tagged(input).unwrap_or_else(|e| panic!("{name}: {e}")));
    }
    // Wrong shapes fail as fast: a math tag with a huge component list, an unknown tag after a
    // long payload, a trailing unexpected key.
    Case::new("godot json: $Vector2 with n components", |n| {
        format!("{{\"$Vector2\":[{}0]}}", "1,".repeat(n / 2)).into_bytes()
    })
    .size(N)
    .run(|input| assert!(tagged(input).is_err()));
    Case::new("godot json: $PackedInt32Array then an unexpected key", |n| {
        format!("{{\"$PackedInt32Array\":[{}0],\"x\":[{}0]}}", "1,".repeat(n / 4), "1,".repeat(n / 4)).into_bytes()
    })
    .size(N)
    .run(|input| assert!(tagged(input).is_err()));
}

// ---------------------------------------------------------------------------------------------
// The text form reader (`text::variant_from_str`, `from_text`) and the ConfigFile reader
// (`cfg::from_str`): linear in the text whatever it holds, depth-limited, and the printer on what
// they read.

type TextDecode = fn(&str, &Options) -> Outcome;

/// `from_text` and `from_cfg` read the text into a Variant, then decode `T` from the Variant's
/// binary form (so the mapping is the binary form's by construction). That binary form is at
/// most 4 bytes per byte of text (`#fff,` → a 20-byte Color), so their peak is the binary
/// decoder's `64 · 4n` bound on it (the reader alone stays within `64 · n`).
fn bridge_heap_bound(n: usize) -> usize {
    n.saturating_mul(256).saturating_add(4 << 20)
}

fn text_entries() -> Vec<(&'static str, TextDecode)> {
    vec![
        ("text::variant_from_str", |t, o| serde_godot::text::variant_from_str(t, o).map(drop)),
        ("from_text::<IgnoredAny>", |t, o| o.from_text::<IgnoredAny>(t).map(drop)),
        ("text read then printed", |t, o| {
            let v = serde_godot::text::variant_from_str(t, o)?;
            serde_godot::text::variant_to_string(&v, opts_version(o)).map(|s| drop(black_box(s)))
        }),
    ]
}

/// `prefix`, then `unit` repeated to about `n` bytes, then `suffix`.
fn repeated(prefix: &str, unit: &str, n: usize, suffix: &str) -> Vec<u8> {
    let mut out = prefix.to_owned();
    for _ in 0..n / unit.len().max(1) {
        out.push_str(unit);
    }
    out.push_str(suffix);
    out.into_bytes()
}

/// A generator of inputs of about `n` bytes.
type Gen = Box<dyn Fn(usize) -> Vec<u8>>;

/// `open`, then `item(0)`, `item(1)`… to about `n` bytes, then `close`.
fn numbered(n: usize, open: &str, item: impl Fn(usize) -> String, close: &str) -> Vec<u8> {
    let mut s = String::from(open);
    let mut i = 0;
    while s.len() < n {
        s.push_str(&item(i));
        i += 1;
    }
    s.push_str(close);
    s.into_bytes()
}

fn text_cases(g4: bool) -> Vec<(&'static str, Expect, Gen)> {
    let mut cases: Vec<(&'static str, Expect, Gen)> = vec![
        ("nesting bomb of Arrays", Expect::Depth, Box::new(|n| repeated("", "[", n.max(2000), ""))),
        ("nesting bomb of Dictionary values", Expect::Depth, Box::new(|n| repeated("", "{1:", n.max(8000), ""))),
        ("nesting bomb of Dictionary keys", Expect::Depth, Box::new(|n| repeated("", "{", n.max(2000), ""))),
        ("flat Array", Expect::Ok, Box::new(|n| repeated("[", "1, ", n, "]"))),
        ("distinct String keys", Expect::Ok, Box::new(|n| numbered(n, "{", |i| format!("\"k{i}\": {i},\n"), "}"))),
        ("distinct Vector2 keys", Expect::Ok, Box::new(|n| numbered(n, "{", |i| format!("Vector2(1, {i}): 1,"), "}"))),
        ("one key repeated", Expect::Ok, Box::new(|n| repeated("{", "\"a\": [1, 2],", n, "}"))),
        ("NaN and -0.0 keys repeated", Expect::Ok, Box::new(|n| repeated("{", "nan: 1, -0.0: 2, 0.0: 3,", n, "}"))),
        (
            "Array keys nested in keys",
            Expect::Ok,
            Box::new(|n| {
                let levels = 500;
                let mut s = "{".repeat(levels);
                s.push_str("[1]: 1}");
                for _ in 1..levels {
                    s.push_str(": 1}");
                }
                let mut out = String::from("[");
                while out.len() < n {
                    out.push_str(&s);
                    out.push(',');
                }
                out.push(']');
                out.into_bytes()
            }),
        ),
        ("string of escapes", Expect::Ok, Box::new(|n| repeated("\"", "\\n\\u00e9\\\"", n, "\""))),
        ("unterminated string", Expect::Err, Box::new(|n| repeated("\"", "ab\\\"", n, ""))),
        ("comments", Expect::Ok, Box::new(|n| repeated("", "; comment ;;\n", n, "1"))),
        ("long integer", Expect::Ok, Box::new(|n| repeated("", "9", n, ""))),
        ("long float", Expect::Ok, Box::new(|n| repeated("0.", "1", n, "e-5"))),
        ("long exponent", Expect::Ok, Box::new(|n| repeated("1e", "9", n, ""))),
        ("packed array of many numbers", Expect::Ok, Box::new(|n| repeated("PoolRealArray(", "0.1, ", n, "0)"))),
        ("constructor with too many numbers", Expect::Err, Box::new(|n| repeated("Vector2(", "1, ", n, "1)"))),
        ("string array", Expect::Ok, Box::new(|n| repeated("PoolStringArray(", "\"a\\tb\", ", n, ")"))),
        ("trailing text", Expect::Err, Box::new(|n| repeated("1 ", "2 ", n, ""))),
    ];
    if g4 {
        cases.push(("typed Array", Expect::Ok, Box::new(|n| repeated("Array[float]([", "1, ", n, "])"))));
        cases.push((
            "typed Dictionary",
            Expect::Ok,
            Box::new(|n| numbered(n, "Dictionary[int, StringName]({", |i| format!("{i}: &\"x\","), "})")),
        ));
        cases.push(("objects", Expect::Ok, Box::new(|n| repeated("[", "Object(Node,\"a\":1,\"b\":[],),", n, "]"))));
    }
    cases
}

#[test]
fn text_reader_is_linear_and_depth_limited() {
    app_stack(|| {
        for opts in versions() {
            let opts = opts.full_objects(true);
            let g4 = opts_version(&opts) == Version::Godot4;
            for (name, expect, generate) in text_cases(g4) {
                for (entry, decode) in text_entries() {
                    Case::new(format!("godot {:?} text: {name}, {entry}", opts_version(&opts)), &generate)
                        .size(N)
                        .heap_bound(move |n| {
                            if entry.starts_with("from_text") {
                                bridge_heap_bound(n)
                            } else {
                                testkit::scaling::default_heap_bound(n)
                            }
                        })
                        .run(|input| {
                            let text = std::str::from_utf8(input).unwrap();
                            let outcome = decode(text, &opts);
                            match (expect, &outcome) {
                                (Expect::Ok, Err(e)) if !entry.starts_with("from_text") => {
                                    panic!("{name}, {entry}: {e}")
                                }
                                (Expect::Depth, Err(e)) if !matches!(e.kind(), ErrorKind::DepthLimit(_)) => {
                                    panic!("{name}, {entry}: not a depth error: {e}")
                                }
                                (Expect::Depth | Expect::Err, Ok(())) => panic!("{name}, {entry}: accepted"),
                                _ => {}
                            }
                        });
                }
            }
        }
    });
}

#[test]
fn cfg_reader_is_linear() {
    type Map = std::collections::BTreeMap<String, Variant>;
    let cases: Vec<(&str, Gen)> = vec![
        ("many keys", Box::new(|n| numbered(n, "[s]\n", |i| format!("key{i}=\"v\"\n"), ""))),
        ("many sections", Box::new(|n| numbered(n, "", |i| format!("[s{i}]\nk=1\n"), ""))),
        ("set and erase", Box::new(|n| numbered(n, "[s]\n", |i| format!("k{i}=1\nk{i}=null\n"), ""))),
        ("one key repeated", Box::new(|n| repeated("[s]\n", "k=[1]\n", n, ""))),
        ("one section repeated", Box::new(|n| repeated("", "[s]\nk=1\n", n, ""))),
        ("a key glued over blanks", Box::new(|n| repeated("[s]\n", "a b ", n, "=1\n"))),
        ("[] headers", Box::new(|n| repeated("[s]\n", "[]\n", n, "k=1\n"))),
        ("comments", Box::new(|n| repeated("", ";;;; x\n", n, "[s]\nk=1\n"))),
    ];
    for opts in versions() {
        for (name, generate) in &cases {
            Case::new(format!("godot {:?} cfg: {name}", opts_version(&opts)), generate)
                .size(N)
                .heap_bound(bridge_heap_bound)
                .run(|input| {
                    let text = std::str::from_utf8(input).unwrap();
                    opts.from_cfg::<std::collections::BTreeMap<String, Map>>(text).map(drop)
                });
        }
    }
}
