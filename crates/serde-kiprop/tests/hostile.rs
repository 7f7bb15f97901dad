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
