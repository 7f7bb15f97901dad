//! Regression tests against the official FlatBuffers library (flatbuffers 25.12.19) for what the
//! official builders leave out and what the official verifier rejects: default map keys and values,
//! optional scalars holding zero, unions with a type but no value, and empty vectors whose element
//! alignment is wrong.

mod common;

use std::collections::BTreeMap;

use common::*;
use flatbuf_oracle::flatbuffers::{self, FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{ErrorKind, Options, UnionType};

use flatbuf_oracle::lite_ext::lite::test as fb_ext;

/// Vtable offset of field slot `slot` (what the official builder's `push_slot` takes).
fn vt(slot: u16) -> u16 {
    4 + 2 * slot
}

/// `table Entry { key:int (key); value:int; }`, `table Holder { entries:[Entry]; }` through the official
/// builder, which leaves out every scalar equal to its default (0), keys included.
fn official_int_map(entries: &[(i32, i32)]) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let mut offsets: Vec<WIPOffset<flatbuffers::TableFinishedWIPOffset>> = Vec::new();
    for &(key, value) in entries {
        let start = b.start_table();
        b.push_slot::<i32>(vt(0), key, 0);
        b.push_slot::<i32>(vt(1), value, 0);
        offsets.push(b.end_table(start));
    }
    let vector = b.create_vector(&offsets);
    let start = b.start_table();
    b.push_slot_always(vt(0), vector);
    let root = b.end_table(start);
    b.finish_minimal(root);
    b.finished_data().to_vec()
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct IntMap {
    entries: BTreeMap<i32, i32>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct StrMap {
    entries: BTreeMap<String, String>,
}

#[test]
fn map_entries_with_default_keys_and_values_read_as_defaults() {
    let pairs = [(0, 5), (1, 0), (0, 0), (-3, 7)];
    let bytes = official_int_map(&pairs);
    let decoded: IntMap = serde_flatbuf_lite::from_slice(&bytes).expect("official map with default key/value");
    // Like a map built from the pairs in order: the later (0, 0) replaces (0, 5).
    let expected: BTreeMap<i32, i32> = pairs.into_iter().collect();
    assert_eq!(decoded.entries, expected);
}

#[test]
fn map_entries_with_omit_zero_scalars_round_trip() {
    let value = IntMap { entries: [(0, 0), (1, 0), (0x7fff, 9), (-1, 0)].into_iter().collect() };
    let opts = Options::new().omit_zero_scalars(true);
    let bytes = opts.to_vec(&value).unwrap();
    assert_eq!(opts.from_slice::<IntMap>(&bytes).unwrap(), value);
    // Empty strings are offsets: written, and read back as such.
    let strings =
        StrMap { entries: [(String::new(), String::new()), ("k".into(), String::new())].into_iter().collect() };
    let bytes = opts.to_vec(&strings).unwrap();
    assert_eq!(opts.from_slice::<StrMap>(&bytes).unwrap(), strings);
}

/// The first five fields of `lite_ext.fbs`'s `Root` (the fifth is `opt_i32:int = null`).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct RootPrefix {
    u8v: u8,
    i64v: i64,
    f64v: f64,
    flag: bool,
    opt_i32: Option<i32>,
}

#[test]
fn some_zero_is_an_optional_scalar_present_even_with_omit_zero_scalars() {
    for opt in [Some(0), Some(7), None] {
        let value = RootPrefix { u8v: 7, i64v: -5, f64v: 2.5, flag: true, opt_i32: opt };
        let opts = Options::new().omit_zero_scalars(true);
        let bytes = opts.to_vec(&value).unwrap();
        let official = flatbuffers::root::<fb_ext::Root<'_>>(&bytes).expect("official verifier");
        assert_eq!(official.opt_i32(), opt, "official reader, {opt:?}");
        assert_eq!(opts.from_slice::<RootPrefix>(&bytes).unwrap(), value);
    }
    // `Some(false)` and `Some(0.0)` likewise.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Opts {
        b: Option<bool>,
        f: Option<f64>,
        u: Option<u8>,
    }
    let value = Opts { b: Some(false), f: Some(0.0), u: Some(0) };
    let opts = Options::new().omit_zero_scalars(true);
    let bytes = opts.to_vec(&value).unwrap();
    assert_eq!(opts.from_slice::<Opts>(&bytes).unwrap(), value);
}

#[derive(Debug, PartialEq, Deserialize)]
#[allow(dead_code)]
struct WithIdsLite {
    #[serde(rename = "b#1", default)]
    b: i32,
    #[serde(rename = "a#0", default)]
    a: i32,
    #[serde(rename = "u_type#2")]
    u_type: UnionType,
    #[serde(rename = "u#3")]
    u: Option<Payload>,
    #[serde(rename = "s#4")]
    s: Option<String>,
}

#[test]
fn union_type_without_a_value_is_rejected_like_the_official_verifier() {
    let mut b = FlatBufferBuilder::new();
    let start = b.start_table();
    b.push_slot::<u8>(vt(2), 1, 0); // u_type = Item, and no u
    b.push_slot::<i32>(vt(0), 4, 0);
    let root = b.end_table(start);
    b.finish_minimal(root);
    let bytes = b.finished_data();
    assert!(flatbuffers::root::<fb_ext::WithIds<'_>>(bytes).is_err(), "the official verifier rejects it");
    let err = ext_opts().from_slice::<WithIdsLite>(bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InconsistentUnion, "{err}");
}

/// A `lite_ext` `Root` whose only field is `longs` (slot 11): an empty `[long]` whose data starts at
/// `data_mod8` modulo 8.
fn root_with_empty_longs(misaligned: bool) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&32u32.to_le_bytes()); // root table at 32
    let mut vtable = vec![0u8; 28];
    vtable[0..2].copy_from_slice(&28u16.to_le_bytes()); // vtable length: 12 slots
    vtable[2..4].copy_from_slice(&8u16.to_le_bytes()); // table inline size
    vtable[4 + 2 * 11..4 + 2 * 11 + 2].copy_from_slice(&4u16.to_le_bytes()); // longs at +4
    b.extend_from_slice(&vtable); // 4..32
    b.extend_from_slice(&28i32.to_le_bytes()); // table at 32: vtable at 4
    let vector_at: u32 = if misaligned { 40 } else { 44 };
    b.extend_from_slice(&(vector_at - 36).to_le_bytes()); // longs uoffset at 36
    b.resize(vector_at as usize, 0);
    b.extend_from_slice(&0u32.to_le_bytes()); // length 0
    b.resize(56, 0);
    b
}

#[derive(Debug, PartialEq, Deserialize)]
struct LongsOnly {
    #[serde(rename = "longs#11")]
    longs: Vec<i64>,
}

#[test]
fn empty_vector_of_longs_at_a_misaligned_offset_is_rejected_like_the_official_verifier() {
    let bad = root_with_empty_longs(true);
    assert!(flatbuffers::root::<fb_ext::Root<'_>>(&bad).is_err(), "the official verifier rejects it");
    let err = serde_flatbuf_lite::from_slice::<LongsOnly>(&bad).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned, "{err}");

    let good = root_with_empty_longs(false);
    let official = flatbuffers::root::<fb_ext::Root<'_>>(&good).expect("aligned: the official verifier accepts");
    assert_eq!(official.longs().map(|v| v.len()), Some(0));
    assert_eq!(serde_flatbuf_lite::from_slice::<LongsOnly>(&good).unwrap(), LongsOnly { longs: vec![] });
}

/// `lite_ext.fbs`'s `Root` up to `kind`, with the schema's defaults declared on the Rust side.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct RootDefaults {
    #[serde(rename = "u8v=7")]
    u8v: u8,
    #[serde(rename = "i64v=-5")]
    i64v: i64,
    #[serde(rename = "f64v=2.5")]
    f64v: f64,
    #[serde(rename = "flag=true")]
    flag: bool,
    opt_i32: Option<i32>,
    #[serde(rename = "kind=1")]
    kind: Kind,
}

#[test]
fn declared_defaults_read_like_the_official_reader() {
    // The official builder leaves out every field equal to its schema default.
    let mut b = FlatBufferBuilder::new();
    let root = fb_ext::Root::create(&mut b, &fb_ext::RootArgs::default());
    b.finish_minimal(root);
    let bytes = b.finished_data();
    let official = flatbuffers::root::<fb_ext::Root<'_>>(bytes).unwrap();
    assert_eq!((official.u8v(), official.i64v(), official.f64v(), official.flag()), (7, -5, 2.5, true));
    let lite: RootDefaults = ext_opts().from_slice(bytes).unwrap();
    assert_eq!(lite, RootDefaults { u8v: 7, i64v: -5, f64v: 2.5, flag: true, opt_i32: None, kind: Kind::B });
}

#[test]
fn declared_defaults_keep_zeros_with_omit_zero_scalars() {
    let zeros = RootDefaults { u8v: 0, i64v: 0, f64v: 0.0, flag: false, opt_i32: None, kind: Kind::A };
    let opts = ext_opts().omit_zero_scalars(true);
    let bytes = opts.to_vec(&zeros).unwrap();
    let official = flatbuffers::root::<fb_ext::Root<'_>>(&bytes).unwrap();
    assert_eq!((official.u8v(), official.i64v(), official.f64v(), official.flag()), (0, 0, 0.0, false));
    assert_eq!(official.kind(), fb_ext::Kind::A);
    assert_eq!(opts.from_slice::<RootDefaults>(&bytes).unwrap(), zeros);
}

#[test]
fn declared_defaults_are_in_the_emitted_schema() {
    let fbs = serde_flatbuf_lite::Schema::trace::<RootDefaults>(&ext_opts()).unwrap().to_fbs();
    for line in ["u8v:ubyte = 7;", "i64v:long = -5;", "f64v:double = 2.5;", "flag:bool = true;", "opt_i32:int = null;"]
    {
        assert!(fbs.contains(line), "{line} missing from\n{fbs}");
    }
}

#[test]
fn a_declared_default_that_does_not_parse_is_an_error() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Bad {
        #[serde(rename = "hp=lots")]
        hp: i16,
    }
    let mut b = FlatBufferBuilder::new();
    let start = b.start_table();
    let root = b.end_table(start);
    b.finish_minimal(root);
    let err = serde_flatbuf_lite::from_slice::<Bad>(b.finished_data()).unwrap_err();
    assert!(err.to_string().contains("declared default `lots`"), "{err}");
}

/// Regression (issue 16, docs): the official builder leaves out every scalar equal to its default,
/// so a Rust field for it needs `#[serde(default)]` (or `Option`, or a declared `name=N` default);
/// without one the absent slot is serde's missing field, an error, never a silent zero.
#[test]
fn absent_fields_need_serde_default() {
    // table T { a:int; b:int; } with a = 0 (left out by the builder) and b = 5.
    let mut b = FlatBufferBuilder::new();
    let start = b.start_table();
    b.push_slot::<i32>(vt(0), 0, 0);
    b.push_slot::<i32>(vt(1), 5, 0);
    let root = b.end_table(start);
    b.finish_minimal(root);
    let bytes = b.finished_data().to_vec();

    #[derive(Debug, PartialEq, Deserialize)]
    struct Strict {
        a: i32,
        b: i32,
    }
    let e = serde_flatbuf_lite::from_slice::<Strict>(&bytes).unwrap_err();
    assert!(e.to_string().contains("missing field `a`"), "{e}");

    #[derive(Debug, PartialEq, Deserialize)]
    struct Defaulted {
        #[serde(default)]
        a: i32,
        b: i32,
    }
    assert_eq!(serde_flatbuf_lite::from_slice::<Defaulted>(&bytes).unwrap(), Defaulted { a: 0, b: 5 });
    #[derive(Debug, PartialEq, Deserialize)]
    struct Optional {
        a: Option<i32>,
        b: i32,
    }
    assert_eq!(serde_flatbuf_lite::from_slice::<Optional>(&bytes).unwrap(), Optional { a: None, b: 5 });
}
