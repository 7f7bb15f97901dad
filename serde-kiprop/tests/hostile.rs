//! Hostile input: every truncation, byte change and random mutation of every fixture decodes to
//! `Ok` or `Err` without panicking and within an allocation bound; depth bombs, zip bombs, huge
//! lengths and trailing data are errors.

mod common;

use common::json as json_file;
use common::*;
use serde::Deserialize;
use serde_kiprop::codec::BitWriter;
use serde_kiprop::{ClassSchema, ErrorKind, Options, PropertySchema, TypeList, Value, serializer_flags::*};
use testkit::hostile::ByteValues;

testkit::install_counting_allocator!();

#[test]
fn katsuba_fixtures_survive_mutation() {
    let types = katsuba_types();
    for name in KATSUBA_OK {
        if name == "with-compression" {
            continue; // compressed: see compressed_fixtures_survive_mutation
        }
        let opts = config(&format!("katsuba/{name}.config.json"));
        let bytes = read(&format!("katsuba/{name}.bin"));
        let outcome = testkit::DecoderCheck::new()
            .fixture(name, &bytes)
            .random_mutations(500)
            .max_alloc(testkit::alloc::default_bound)
            .run(|b| opts.from_slice::<Value>(b, &types));
        assert!(outcome.err > 0, "{name}: {outcome}");
    }
}

#[test]
fn generated_fixtures_survive_mutation() {
    let types = generated_types();
    for name in ["deep-flags01", "deep-flags03", "shallow-flags01", "shallow-flags03", "shallow-flags05"] {
        let opts = config(&format!("generated/{name}.config.json"));
        let bytes = read(&format!("generated/{name}.bin"));
        let outcome = testkit::DecoderCheck::new()
            .fixture(name, &bytes)
            .byte_values(ByteValues::Interesting)
            .max_alloc(testkit::alloc::default_bound)
            .run(|b| opts.from_slice::<Value>(b, &types));
        assert!(outcome.err > 0, "{name}: {outcome}");
    }
}

#[test]
fn compressed_fixtures_survive_mutation() {
    const LIMIT: usize = 1 << 20;
    let types = generated_types();
    let mut fixtures = vec![];
    for name in ["shallow-flags09", "shallow-flags15", "deep-flags15", "shallow-delta-absent-manual-zlib"] {
        fixtures.push((
            name.to_owned(),
            read(&format!("generated/{name}.bin")),
            config(&format!("generated/{name}.config.json")),
        ));
    }
    for (name, bytes, opts) in fixtures {
        let opts = opts.max_decompressed_size(LIMIT);
        let outcome = testkit::DecoderCheck::new()
            .fixture(&name, &bytes)
            .byte_values(ByteValues::Interesting)
            .max_alloc(|_| 48 * LIMIT)
            .run(|b| opts.from_slice::<Value>(b, &types));
        assert!(outcome.err > 0, "{name}: {outcome}");
    }
}

#[test]
fn typed_decoder_survives_mutation() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    #[serde(rename = "class NestedLists")]
    struct NestedLists<'a> {
        #[serde(borrow)]
        m_elements: Vec<Option<ListElement<'a>>>,
        m_depth: u32,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct ListElement<'a> {
        m_id: u32,
        m_name: &'a str,
    }
    let types = katsuba_types();
    let opts = config("katsuba/nested-lists.config.json");
    testkit::DecoderCheck::new()
        .fixture("nested-lists", read("katsuba/nested-lists.bin"))
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| opts.from_slice::<NestedLists<'_>>(b, &types).map(|v| v.m_depth));
}

fn node_types() -> TypeList {
    static NODE: ClassSchema = ClassSchema::new(
        "class Node",
        &[
            PropertySchema::new("m_child").ty("class SharedPointer<class Node>"),
            PropertySchema::new("m_list").ty("class Node*").dynamic(),
        ],
    );
    TypeList::from_schemas(&[&NODE])
}

const NODE: u32 = serde_kiprop::hash::string_id(b"class Node");

/// Shallow: `Node { m_child: Node { m_child: … } }`, a million levels.
fn shallow_bomb() -> Vec<u8> {
    let mut w = BitWriter::new();
    for _ in 0..testkit::depth::MILLION {
        w.write_u32(NODE);
    }
    w.write_u32(0);
    w.finish()
}

/// Deep: the same with object and property sizes that cover the rest of the input.
fn deep_bomb() -> Vec<u8> {
    let levels = testkit::depth::MILLION as u64;
    let tag = serde_kiprop::hash::property_tag("class SharedPointer<class Node>", "m_child");
    let mut w = BitWriter::new();
    for i in 0..levels {
        let left = (levels - i) * 128 + 32;
        w.write_u32(NODE);
        w.write_u32((left - 32) as u32);
        w.write_u32((left - 64) as u32);
        w.write_u32(tag);
    }
    w.write_u32(0);
    w.finish()
}

/// A list of one list-holding node, nested a million times.
fn list_bomb() -> Vec<u8> {
    let mut w = BitWriter::new();
    for _ in 0..testkit::depth::MILLION {
        w.write_u32(NODE);
        w.write_u32(0); // m_child null
        w.write_u32(1); // m_list: one element
    }
    w.finish()
}

#[test]
fn depth_bombs_are_errors() {
    let child = testkit::isolate::in_child("depth_bombs_are_errors", || {
        let types = node_types();
        for (bomb, opts) in
            [(shallow_bomb(), Options::new()), (deep_bomb(), Options::new().deep(true)), (list_bomb(), Options::new())]
        {
            let err = testkit::depth::assert_rejects(&bomb, |b| opts.from_slice::<Value>(b, &types));
            assert!(matches!(err.kind(), ErrorKind::RecursionLimit), "{err}");
            #[derive(Deserialize, Debug)]
            #[allow(dead_code)]
            #[serde(rename = "class Node")]
            struct Node {
                m_child: Option<Box<Node>>,
                #[serde(default)]
                m_list: Vec<Option<Node>>,
            }
            let err = testkit::depth::assert_rejects(&bomb, |b| opts.from_slice::<Node>(b, &types));
            assert!(matches!(err.kind(), ErrorKind::RecursionLimit), "{err}");
        }
    });
    child.assert_passed();
}

#[test]
fn recursion_limit_is_configurable() {
    let types = node_types();
    let mut w = BitWriter::new();
    for _ in 0..10 {
        w.write_u32(NODE);
    }
    w.write_u32(0);
    w.write_u32(0);
    let bytes = w.finish();
    // 10 nested nodes (the last has a null child and an empty list).
    let mut w = BitWriter::new();
    for _ in 0..10 {
        w.write_u32(NODE);
    }
    w.write_u32(0);
    for _ in 0..10 {
        w.write_u32(0);
    }
    let ten = w.finish();
    // Ten objects and the innermost (empty) list: eleven levels.
    assert!(Options::new().recursion_limit(11).from_slice::<Value>(&ten, &types).is_ok());
    let err = Options::new().recursion_limit(10).from_slice::<Value>(&ten, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::RecursionLimit), "{err}");
    assert!(Options::new().from_slice::<Value>(&bytes, &types).is_err());
}

#[test]
fn zlib_bomb_is_refused_before_inflating() {
    let types = generated_types();
    // 100 MiB of zeros announced truthfully: above the 64 MiB default.
    let big = vec![0u8; 100 << 20];
    let z = {
        use std::io::Write;
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&big).unwrap();
        e.finish().unwrap()
    };
    drop(big);
    let mut blob = WITH_COMPRESSION.to_le_bytes().to_vec();
    blob.push(1);
    blob.extend_from_slice(&(100u32 << 20).to_le_bytes());
    blob.extend_from_slice(&z);
    let opts = Options::new().flags(STATEFUL_FLAGS);
    let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&blob, &types));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::DecompressionLimit { limit } if *limit == 64 << 20));
    assert!(stats.peak < 1 << 20, "peak {}", stats.peak);
    // Announcing a small size does not help: inflation stops one byte past it.
    blob[5..9].copy_from_slice(&1000u32.to_le_bytes());
    let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&blob, &types));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::DecompressedSizeMismatch { .. }));
    assert!(stats.peak < 1 << 20, "peak {}", stats.peak);
    // A configured limit below the size is honoured.
    blob[5..9].copy_from_slice(&(2u32 << 20).to_le_bytes());
    let err = opts.max_decompressed_size(1 << 20).from_slice::<Value>(&blob, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::DecompressionLimit { .. }));
}

#[test]
fn huge_lengths_do_not_allocate() {
    let types = katsuba_types();
    // class WithList, shallow: m_values length 0xFFFF_FFFF with four bytes behind it.
    let mut w = BitWriter::new();
    w.write_u32(serde_kiprop::hash::string_id(b"class WithList"));
    w.write_u32(u32::MAX);
    w.write_u32(7);
    let bytes = w.finish();
    let opts = Options::new().property_mask(7);
    let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&bytes, &types));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::Eof));
    assert!(stats.peak < 4096, "peak {}", stats.peak);
    // A string claiming 65,535 bytes.
    let mut w = BitWriter::new();
    w.write_u32(serde_kiprop::hash::string_id(b"class StringTypes"));
    w.write_bits(0xFFFF, 16);
    let err = opts.from_slice::<Value>(&w.finish(), &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Eof), "{err}");
}

#[test]
fn trailing_data_is_an_error() {
    let types = katsuba_types();
    let mut bytes = read("katsuba/list-simple.bin");
    let opts = config("katsuba/list-simple.config.json");
    assert!(opts.from_slice::<Value>(&bytes, &types).is_ok());
    bytes.push(0);
    let err = opts.from_slice::<Value>(&bytes, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TrailingData { bits: 8 }), "{err}");
}

#[test]
fn size_mismatches_are_errors() {
    let types = katsuba_types();
    let bytes = read("katsuba/deep-size-boundary.bin");
    let opts = config("katsuba/deep-size-boundary.config.json");
    // Layout: flags(4) tag(4) object size(4) then properties (size, hash, u32).
    for (at, delta) in [(8usize, 1i32), (8, -1), (12, 1), (12, -8)] {
        let mut b = bytes.clone();
        let v = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()).wrapping_add_signed(delta);
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        let err = opts.from_slice::<Value>(&b, &types).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ObjectSizeMismatch { .. } | ErrorKind::PropertySizeMismatch { .. }),
            "byte {at} {delta:+}: {err}"
        );
    }
}

#[test]
fn unknown_types_and_properties_are_skipped_in_deep_mode_by_default() {
    // The generated deep blob read with a type list that lacks KiPropTestItem and m_title.
    let mut json = json("generated/types.json");
    json["classes"].as_object_mut().unwrap().remove("847596527");
    json["classes"]["1711387677"]["properties"].as_object_mut().unwrap().remove("m_title");
    let types = TypeList::from_json(&json.to_string()).unwrap();
    let bytes = read("generated/deep-flags01.bin");
    let value: Value = Options::new().deep(true).flags(STATEFUL_FLAGS).from_slice(&bytes, &types).unwrap();
    assert_eq!(value.get("m_best"), Some(&Value::Null));
    assert_eq!(value.get("m_title"), None);
    assert_eq!(value.get("m_items"), Some(&Value::List(vec![Value::Null; 3])));
    assert_eq!(value.get("m_tail"), Some(&Value::Int(5)));
    // Strict mode: katsuba's errors.
    let strict = Options::new().deep(true).flags(STATEFUL_FLAGS).skip_unknown(false);
    let err = strict.from_slice::<Value>(&bytes, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownProperty { .. }), "{err}");
    // Shallow data cannot be skipped (and a missing property misreads everything after it).
    let mut json = json_file("generated/types.json");
    json["classes"].as_object_mut().unwrap().remove("847596527");
    let types = TypeList::from_json(&json.to_string()).unwrap();
    let shallow = read("generated/shallow-flags01.bin");
    let err = Options::new().flags(STATEFUL_FLAGS).from_slice::<Value>(&shallow, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownType(_)), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Issue 12, hostile input round 2: the known failures, one regression test each, and the audit.

fn flood_types() -> TypeList {
    static BOOLS: ClassSchema = ClassSchema::new("class BoolList", &[PropertySchema::new("m_v").ty("bool").dynamic()]);
    static BYTES: ClassSchema =
        ClassSchema::new("class ByteList", &[PropertySchema::new("m_v").ty("unsigned char").dynamic()]);
    static STRS: ClassSchema =
        ClassSchema::new("class StrList", &[PropertySchema::new("m_v").ty("std::string").dynamic()]);
    static LEAVES: ClassSchema =
        ClassSchema::new("class LeafList", &[PropertySchema::new("m_v").ty("class Point<unsigned char>").dynamic()]);
    static PAIR: ClassSchema =
        ClassSchema::new("class Pair", &[PropertySchema::new("m_a").ty("bool"), PropertySchema::new("m_b").ty("bool")]);
    static PAIRS: ClassSchema = ClassSchema::new(
        "class PairList",
        &[PropertySchema::new("m_v").ty("class SharedPointer<class Pair>").dynamic()],
    );
    TypeList::from_schemas(&[&BOOLS, &BYTES, &STRS, &LEAVES, &PAIR, &PAIRS])
}

fn list_blob(class: &str, count: usize, mut elem: impl FnMut(&mut BitWriter)) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.write_u32(serde_kiprop::hash::string_id(class.as_bytes()));
    w.write_u32(count as u32);
    for _ in 0..count {
        elem(&mut w);
    }
    w.finish()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// WITH_COMPRESSION framing (STATEFUL_FLAGS) around `object`, announcing `size`.
fn compressed(object: &[u8], size: usize) -> Vec<u8> {
    let mut blob = WITH_COMPRESSION.to_le_bytes().to_vec();
    blob.push(1);
    blob.extend_from_slice(&(size as u32).to_le_bytes());
    blob.extend_from_slice(&zlib(object));
    blob
}

fn model_limit(r: &serde_kiprop::Result<Value>) -> Option<u64> {
    match r.as_ref().map_err(|e| e.kind()) {
        Err(ErrorKind::ModelLimit { limit }) => Some(*limit),
        _ => None,
    }
}

/// Known failure 5: a list of 1-bit bools cost 32 bytes per element as `Value`s, so a 2 KiB zlib
/// blob under a 2 MiB decompression cap built a 514 MiB model. The model budget (32 bytes per
/// stream byte + 1 MiB by default) now refuses it before anything is built.
#[test]
fn known_5_value_bool_list_model_is_bounded() {
    const CAP: usize = 2 << 20;
    let types = flood_types();
    let object = list_blob("class BoolList", (CAP - 16) * 8, |w| w.write_bool(true));
    let blob = compressed(&object, object.len());
    assert!(blob.len() < 4096, "a small blob: {}", blob.len());
    let opts = Options::new().flags(STATEFUL_FLAGS).max_decompressed_size(CAP);
    let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&blob, &types));
    let budget = 32 * object.len() as u64 + (1 << 20);
    assert_eq!(model_limit(&r), Some(budget), "{r:?}");
    assert!(r.unwrap_err().to_string().contains("model budget"));
    assert!(stats.peak < CAP + (256 << 10), "peak {} (was 514 MiB)", stats.peak);
    // Typed decoding holds a byte per bool: it is not budgeted and still decodes.
    #[derive(Deserialize)]
    #[serde(rename = "class BoolList")]
    struct BoolList {
        m_v: Vec<bool>,
    }
    assert_eq!(opts.from_slice::<BoolList>(&blob, &types).unwrap().m_v.len(), (CAP - 16) * 8);
    // The budget is an option: a bool list within it decodes, a larger ratio admits more.
    let small = list_blob("class BoolList", 10_000, |w| w.write_bool(true));
    assert!(Options::new().from_slice::<Value>(&small, &types).is_ok());
    let big = list_blob("class BoolList", 1 << 20, |w| w.write_bool(false));
    assert!(model_limit(&Options::new().from_slice::<Value>(&big, &types)).is_some());
    let v = Options::new().model_budget(300).from_slice::<Value>(&big, &types).unwrap();
    assert_eq!(v.get("m_v").and_then(|l| if let Value::List(l) = l { Some(l.len()) } else { None }), Some(1 << 20));
}

/// The budget covers every kind of `Value` node, not only bools: uncompressed floods of each
/// decode within `32 · n + 1 MiB` of model or stop with `ModelLimit`.
#[test]
fn model_budget_covers_every_value_kind() {
    let types = flood_types();
    let n = 1 << 20;
    let pair = serde_kiprop::hash::string_id(b"class Pair");
    let floods: [(&str, Vec<u8>, Options, bool); 5] = [
        ("u8 list", list_blob("class ByteList", n, |w| w.write_bits(7, 8)), Options::new(), false),
        ("one-byte strings", list_blob("class StrList", n / 3, |w| w.write_string(b"x", false)), Options::new(), false),
        ("empty strings", list_blob("class StrList", n / 2, |w| w.write_len(0, false, true)), Options::new(), false),
        ("leaf structs", list_blob("class LeafList", n / 2, |w| w.write_bits(0x0102, 16)), Options::new(), true),
        (
            "objects of two 1-bit properties",
            list_blob("class PairList", n / 5, |w| {
                w.write_u32(pair);
                w.write_bits(3, 2);
            }),
            Options::new(),
            true,
        ),
    ];
    for (name, blob, opts, over) in floods {
        let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&blob, &types));
        let budget = 32 * blob.len() + (1 << 20);
        assert!(r.is_ok() || model_limit(&r).is_some(), "{name}: {r:?}");
        assert_eq!(model_limit(&r).is_some(), over, "{name}: {r:?}");
        assert!(stats.peak <= budget + (64 << 10), "{name}: peak {} > budget {budget}", stats.peak);
    }
}

/// Known failure 6: the zlib cap overshot by 2–3× (the output buffer doubled past the announced
/// size, and two zlib layers each had the whole cap). Now no more than cap + 1 inflated bytes are
/// ever held, all layers together.
#[test]
fn known_6_zlib_cap_is_exact() {
    const CAP: usize = 2 << 20;
    let types = flood_types();
    let opts = Options::new().flags(STATEFUL_FLAGS).max_decompressed_size(CAP);
    let zeros = vec![0u8; 8 * CAP];
    // Announcing the cap, inflating to 8× the cap.
    let blob = compressed(&zeros, CAP);
    let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&blob, &types));
    assert!(
        matches!(r.unwrap_err().kind(), ErrorKind::DecompressedSizeMismatch { expected, .. } if *expected == CAP as u64)
    );
    assert!(stats.peak <= CAP + (128 << 10), "peak {} for cap {CAP} (was 2.04 × cap)", stats.peak);
    // Announcing one byte more than the cap.
    let blob = compressed(&zeros[..CAP + 1], CAP + 1);
    let (r, stats) = testkit::alloc::measure(|| opts.from_slice::<Value>(&blob, &types));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::DecompressionLimit { limit } if *limit == CAP));
    assert!(stats.peak < 1 << 16, "peak {}", stats.peak);
    // Exactly the cap inflates (and decodes: a u8 list filling it).
    let object = list_blob("class ByteList", CAP - 8, |w| w.write_bits(1, 8));
    assert_eq!(object.len(), CAP);
    let blob = compressed(&object, CAP);
    assert!(opts.from_slice::<Value>(&blob, &types).is_ok());
    // Two layers (manual compression around WITH_COMPRESSION) share the cap.
    let inner = compressed(&zeros[..CAP - 1000], CAP - 1000);
    let mut two = (inner.len() as u32).to_le_bytes().to_vec();
    two.extend_from_slice(&zlib(&inner));
    let manual = opts.manual_compression(true);
    let (r, stats) = testkit::alloc::measure(|| manual.from_slice::<Value>(&two, &types));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::DecompressionLimit { limit } if *limit == CAP));
    assert!(stats.peak <= CAP + (128 << 10), "peak {}", stats.peak);
    let inner = compressed(&object[..CAP / 2], CAP / 2);
    let mut two = (inner.len() as u32).to_le_bytes().to_vec();
    two.extend_from_slice(&zlib(&inner));
    let r = manual.from_slice::<Value>(&two, &types);
    assert!(!matches!(r.as_ref().map_err(|e| e.kind()), Err(ErrorKind::DecompressionLimit { .. })), "{r:?}");
}

/// Known failure 7: `xml::from_str` was quadratic (each container element searched the
/// properties read so far, which repeated scalar elements made long: 1 MiB took 1.16 s).
#[test]
fn known_7_xml_from_str_is_linear() {
    static TEXT: ClassSchema = ClassSchema::new(
        "class Text",
        &[PropertySchema::new("m_ids").ty("unsigned int").dynamic(), PropertySchema::new("m_n").ty("int")],
    );
    let types = TypeList::from_schemas(&[&TEXT]);
    testkit::scaling::Case::new("kiprop xml: repeated scalars, then container elements", |n| {
        let mut s = String::from("<Objects><Class Name=\"class Text\">");
        while s.len() < n / 2 {
            s.push_str("<m_n>1</m_n>");
        }
        while s.len() < n {
            s.push_str("<m_ids>1</m_ids>");
        }
        s.push_str("</Class></Objects>");
        s.into_bytes()
    })
    .size(128 << 10)
    .run(|b| serde_kiprop::xml::from_str(std::str::from_utf8(b).unwrap(), &types).map(|v| v.get("m_ids").is_some()));
    // What it reads is unchanged: the container collects its elements, scalars repeat.
    let v = serde_kiprop::xml::from_str(
        "<Objects><Class Name=\"class Text\"><m_n>1</m_n><m_ids>1</m_ids><m_n>2</m_n><m_ids>2</m_ids></Class></Objects>",
        &types,
    )
    .unwrap();
    let o = v.as_object().unwrap();
    assert_eq!(o.properties.len(), 3);
    assert_eq!(o.get("m_ids"), Some(&Value::List(vec![Value::Int(1), Value::Int(2)])));
    assert_eq!(o.get("m_n"), Some(&Value::Int(1)));
}

/// Audit: containers nested inside containers each declaring every remaining bit used to reserve
/// serde's 1 MiB per level before failing; a declared length must now fit in what the enclosing
/// containers' remaining elements leave, with every element's least size, before anything is
/// allocated.
#[test]
fn nested_declared_lengths_fail_before_allocating() {
    let types = node_types();
    let mut w = BitWriter::new();
    for i in 0..60u32 {
        w.write_u32(NODE);
        w.write_u32(0);
        w.write_u32((1 << 19) - 96 * i);
    }
    for _ in 0..(1 << 14) {
        w.write_u32(0);
    }
    let bytes = w.finish();
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    #[serde(rename = "class Node")]
    struct Node {
        m_child: Option<Box<Node>>,
        m_list: Vec<Option<Node>>,
    }
    let (r, stats) = testkit::alloc::measure(|| Options::new().from_slice::<Node>(&bytes, &types).map(|_| ()));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::Eof));
    assert!(stats.peak < 4096, "peak {}", stats.peak);
    let (r, stats) = testkit::alloc::measure(|| Options::new().from_slice::<Value>(&bytes, &types).map(|_| ()));
    assert!(matches!(r.unwrap_err().kind(), ErrorKind::Eof));
    assert!(stats.peak < 4096, "peak {}", stats.peak);
    // A list that does fit still decodes.
    let mut w = BitWriter::new();
    w.write_u32(NODE);
    w.write_u32(0);
    w.write_u32(3);
    for _ in 0..3 {
        w.write_u32(0);
    }
    assert!(Options::new().from_slice::<Value>(&w.finish(), &types).is_ok());
}

/// Audit: type lists from many dumps resolve their object properties once, and tags that agree
/// in their low bits do not share hash buckets (the tag hasher's multiplier is random per map).
#[test]
fn type_lists_load_in_linear_time() {
    testkit::scaling::Case::new("kiprop TypeList::from_json_many: many small dumps", |n| {
        let mut out = String::new();
        let mut i = 0;
        while out.len() < n {
            let _ = std::fmt::Write::write_fmt(
                &mut out,
                format_args!(
                    "{{\"class D{i}\": {{\"properties\": {{\"m_p\": {{\"type\": \"class D{}*\"}}}}}}}}\n",
                    i + 1
                ),
            );
            i += 1;
        }
        out.into_bytes()
    })
    .size(16 << 10)
    .run(|b| TypeList::from_json_many(std::str::from_utf8(b).unwrap().lines()).map(|t| t.len()).unwrap_or(0));
    testkit::scaling::Case::new("kiprop TypeList::from_json: class tags sharing their low 16 bits", |n| {
        let mut s = String::from("{\"version\": 2, \"classes\": {");
        let mut i = 1u32;
        while s.len() < n {
            let _ = std::fmt::Write::write_fmt(
                &mut s,
                format_args!("\"{h}\": {{\"name\": \"class C{i}\", \"hash\": {h}}},", h = i << 16),
            );
            i += 1;
        }
        s.pop();
        s.push_str("}}");
        s.into_bytes()
    })
    .size(32 << 10)
    .run(|b| TypeList::from_json(std::str::from_utf8(b).unwrap()).map(|t| t.len()).unwrap_or(0));
}

// ---------------------------------------------------------------------------------------------
// The deep in-order pre-scan: a deep object whose serde struct's fields are its class's
// properties is first checked header by header (every property once, in id order, sizes within
// the object) and then read as a sequence; anything else goes to the map. The scan reads only
// headers inside the object, so bad sizes must end it (an error from the map path, no panic) and
// its work must stay linear in the object's properties.

/// Properties of `class Wide`: more than the largest scaling input below holds.
const WIDE: usize = 1 << 15;
/// Properties of `class Narrow` (small enough for every mutation of a whole object).
const NARROW: usize = 24;

/// The names `m_0`, `m_1`, … of a class of `n` properties (the struct's serde fields).
fn wide_fields(n: usize) -> &'static [&'static str] {
    static WIDE_FIELDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    static NARROW_FIELDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let cell = if n == WIDE { &WIDE_FIELDS } else { &NARROW_FIELDS };
    cell.get_or_init(|| (0..n).map(|i| &*format!("m_{i}").leak()).collect())
}

/// `class Wide` and `class Narrow`: `unsigned int` properties `m_0`, `m_1`, … in id order.
fn wide_types() -> &'static TypeList {
    static TYPES: std::sync::OnceLock<TypeList> = std::sync::OnceLock::new();
    TYPES.get_or_init(|| {
        let class = |name: &str, n: usize| {
            let props: Vec<String> = (0..n)
                .map(|i| format!("\"m_{i}\": {{\"type\": \"unsigned int\", \"id\": {i}, \"flags\": 7}}"))
                .collect();
            format!("\"class {name}\": {{\"properties\": {{{}}}}}", props.join(","))
        };
        TypeList::from_json(&format!("{{{}, {}}}", class("Wide", WIDE), class("Narrow", NARROW))).unwrap()
    })
}

/// A serde struct whose fields are `class Wide`'s (`N == WIDE`) or `class Narrow`'s properties:
/// how many it read, and whether they came as a sequence (the pre-scan passed) or a map.
#[derive(Debug)]
struct Wide<const N: usize> {
    read: usize,
    seq: bool,
}

impl<'de, const N: usize> Deserialize<'de> for Wide<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const N: usize>;
        impl<'de, const N: usize> serde::de::Visitor<'de> for V<N> {
            type Value = Wide<N>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a wide object")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Wide<N>, A::Error> {
                let mut read = 0;
                while a.next_element::<u32>()?.is_some() {
                    read += 1;
                }
                Ok(Wide { read, seq: true })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Wide<N>, A::Error> {
                let mut read = 0;
                while a.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    a.next_value::<u32>()?;
                    read += 1;
                }
                Ok(Wide { read, seq: false })
            }
        }
        let name = if N == WIDE { "class Wide" } else { "class Narrow" };
        d.deserialize_struct(name, wide_fields(N), V::<N>)
    }
}

/// A deep `class Wide` (or `Narrow`) object of `props` properties in id order, each 96 bits (its
/// header and an `unsigned int`); `size(i)` is the size field of property `i` (96 when valid).
fn wide_blob(class: &str, props: usize, size: impl Fn(usize) -> u32) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.write_u32(serde_kiprop::hash::string_id(class.as_bytes()));
    w.write_u32(32 + 96 * props as u32);
    for i in 0..props {
        w.write_u32(size(i));
        w.write_u32(serde_kiprop::hash::property_tag("unsigned int", &format!("m_{i}")));
        w.write_u32(i as u32);
    }
    w.finish()
}

#[test]
fn deep_in_order_prescan_survives_bad_sizes() {
    let types = wide_types();
    let deep = Options::new().deep(true);
    let decode = |b: &[u8]| deep.from_slice::<Wide<WIDE>>(b, types);
    // Thousands of properties in order: one sequence.
    let ok = decode(&wide_blob("class Wide", WIDE, |_| 96)).unwrap();
    assert!(ok.seq && ok.read == WIDE, "{ok:?}");
    // The last property's size points past the end of the input: the scan walks every header,
    // fails, and the map path reports the property.
    let last = wide_blob("class Wide", WIDE, |i| if i == WIDE - 1 { u32::MAX - 64 } else { 96 });
    let err = decode(&last).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::PropertySizeMismatch { .. }), "{err}");
    // Every property's size points past the end, or is shorter than its header.
    for bad in [u32::MAX, 1 << 31, 96 * 4096, 63, 0] {
        let err = decode(&wide_blob("class Wide", 4096, |_| bad)).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::PropertySizeMismatch { .. }), "size {bad}: {err}");
    }
    // Fewer properties than the class has (the object ends early): a map, read to its end.
    let short = decode(&wide_blob("class Wide", 4096, |_| 96)).unwrap();
    assert!(!short.seq && short.read == 4096, "{short:?}");
    // The object's own size points past the end of the input.
    let mut bytes = wide_blob("class Wide", 4096, |_| 96);
    bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = decode(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::ObjectSizeMismatch { .. }), "{err}");
    // Every truncation, byte change and random mutation of a whole (small) object.
    let narrow = wide_blob("class Narrow", NARROW, |_| 96);
    assert!(deep.from_slice::<Wide<NARROW>>(&narrow, types).unwrap().seq);
    testkit::DecoderCheck::new()
        .fixture("deep-narrow", &narrow)
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| deep.from_slice::<Wide<NARROW>>(b, types).map(|w| w.read));
    // Linear work: thousands of in-order properties, the last one's size past the end.
    testkit::scaling::Case::new("kiprop deep: in-order properties, the last one's size past the end", |n| {
        let props = n / 12;
        wide_blob("class Wide", props, |i| if i + 1 == props { u32::MAX - 64 } else { 96 })
    })
    .size(8 << 10)
    .run(|b| decode(b).is_err());
}
