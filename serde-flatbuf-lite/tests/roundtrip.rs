//! Writer layout (golden bytes and snapshots), round trips of every supported shape (proptest), the errors
//! for shapes FlatBuffers cannot express, and regression tests named after what they guard.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::*;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{ErrorKind, Options, Serializer, UnionType, from_slice, to_vec};

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// (table position, vtable position) of the root table.
fn root_table(b: &[u8]) -> (usize, usize) {
    let t = u32_at(b, 0) as usize;
    let soffset = i32::from_le_bytes(b[t..t + 4].try_into().unwrap());
    (t, (t as i64 - i64::from(soffset)) as usize)
}

#[test]
fn empty_table_is_the_12_byte_minimum_flatc_writes() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Empty {}
    let bytes = to_vec(&Empty {}).unwrap();
    assert_eq!(bytes, data("monster_seed/ext/root_empty.bin"));
    assert_eq!(testkit::hex::encode(&bytes), "080000000400040004000000");
    assert_eq!(to_vec(&()).unwrap(), bytes);
    assert_eq!(from_slice::<Empty>(&bytes).unwrap(), Empty {});
}

#[test]
fn seed_monster_layout_snapshot() {
    let bytes = monster_opts().to_vec(&seed_monster()).unwrap();
    insta::assert_snapshot!("seed_monster_hex", testkit::hex::dump(&bytes));
}

#[test]
fn trailing_absent_slots_are_trimmed_and_inline_size_is_exact() {
    #[derive(Serialize)]
    struct T {
        a: Option<u8>,
        b: Option<u64>,
        c: Option<u32>,
    }
    let bytes = to_vec(&T { a: Some(1), b: None, c: None }).unwrap();
    let (t, vt) = root_table(&bytes);
    assert_eq!(u16_at(&bytes, vt), 6, "one slot");
    assert_eq!(u16_at(&bytes, vt + 2), 5 + 3, "soffset + padding + a");
    let bytes = to_vec(&T { a: Some(1), b: Some(2), c: Some(3) }).unwrap();
    let (t2, vt) = root_table(&bytes);
    assert_eq!(u16_at(&bytes, vt), 10);
    // soffset(4) + a(1) + pad(3) + c(4) + b(8), largest alignment group furthest from the soffset
    assert_eq!(u16_at(&bytes, vt + 2), 20);
    assert_eq!(t2 % 4, 0);
    assert_eq!((t2 + u16_at(&bytes, vt + 6) as usize) % 8, 0, "b is 8-aligned");
    let _ = t;
}

#[test]
fn identical_vtables_are_written_once() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct W {
        name: String,
        damage: i16,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Holder {
        items: Vec<W>,
    }
    let v = Holder { items: (0..50).map(|i| W { name: format!("w{i}"), damage: i }).collect() };
    let bytes = to_vec(&v).unwrap();
    // W's vtable: [8, 0] [12, 0] … appears once for 50 tables.
    let vtable = [8u8, 0, 12, 0];
    let count = bytes.windows(4).filter(|w| *w == vtable).count();
    assert_eq!(count, 1, "{}", testkit::hex::dump(&bytes));
    assert_eq!(from_slice::<Holder>(&bytes).unwrap(), v);
}

/// Regression for the writer's two vtable buffers (short ones on the stack, long ones on the heap): a
/// 90-byte vtable (slot 42) is written whole, shared by identical tables, and read back.
#[test]
fn long_vtables_are_written_whole_and_shared() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Far {
        #[serde(rename = "a#0")]
        a: u8,
        #[serde(rename = "z#42")]
        z: u32,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Holder {
        items: Vec<Far>,
    }
    let v = Holder { items: (0..3).map(|i| Far { a: i as u8, z: 1000 + i }).collect() };
    let bytes = to_vec(&v).unwrap();
    // The vtable header: its length (4 + 2 * 43 slots) and the table's inline size (soffset, u32, u8, pad).
    let header = [90u8, 0, 12, 0];
    let count = bytes.windows(4).filter(|w| *w == header).count();
    assert_eq!(count, 1, "{}", testkit::hex::dump(&bytes));
    assert_eq!(from_slice::<Holder>(&bytes).unwrap(), v);
}

#[test]
fn reused_serializer_gives_identical_buffers() {
    let mut ser = Serializer::with_options(monster_opts());
    let first = ser.serialize(&seed_monster()).unwrap().to_vec();
    let second = ser.serialize(&seed_monster()).unwrap().to_vec();
    assert_eq!(first, second);
    let mut out = Vec::new();
    monster_opts().to_writer(&mut out, &seed_monster()).unwrap();
    assert_eq!(out, first);
    assert_eq!(monster_opts().from_reader::<_, Monster>(&out[..]).unwrap(), seed_monster());
}

/// Regression for the table writer's head store: the soffset and its padding are zeroed with one 8-byte
/// store when the table is that long and byte by byte when it is shorter (4 to 7 bytes). A reused serializer
/// whose buffer holds 0xff bytes from an earlier message must still write exactly what a fresh one writes.
#[test]
fn short_tables_zero_their_padding_in_a_dirty_buffer() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Dirt {
        junk: Vec<u8>,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Empty {}
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct OneByte {
        a: u8,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct ThreeBytes {
        a: u8,
        b: u16,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Mixed {
        a: u8,
        // A 1-slot vtable (6 bytes) leaves the next table starting 2 bytes off a 4-byte boundary: 2 bytes of
        // soffset padding in a 6-byte table (`q`), 1 byte in a 6-byte one (`t`).
        p: OneByte,
        q: Empty,
        r: ThreeBytes,
        t: OneByte,
        b: Empty,
        c: OneByte,
        d: ThreeBytes,
        e: u64,
        f: Option<u8>,
    }
    let mut ser = Serializer::new();
    // Zeros (absent or zero scalars: tables as short as they get) and non-zeros.
    let values: Vec<Mixed> = (0..2u8)
        .map(|k| Mixed {
            a: k,
            p: OneByte { a: 7 * k },
            q: Empty {},
            r: ThreeBytes { a: 8 * k, b: 9 * u16::from(k) },
            t: OneByte { a: 10 * k },
            b: Empty {},
            c: OneByte { a: 2 * k },
            d: ThreeBytes { a: 3 * k, b: 4 * u16::from(k) },
            e: 5 * u64::from(k),
            f: (k > 0).then_some(6),
        })
        .collect();
    for value in &values {
        for junk_len in [0usize, 1, 2, 3, 5, 64] {
            ser.serialize(&Dirt { junk: vec![0xff; 4096 + junk_len] }).unwrap();
            let reused = ser.serialize(value).unwrap().to_vec();
            let fresh = to_vec(value).unwrap();
            assert_eq!(reused, fresh, "{}", testkit::hex::dump(&reused));
            assert_eq!(&from_slice::<Mixed>(&reused).unwrap(), value);
        }
    }
}

/// Regression (found by the official verifier): an empty vector's element type is unknown, yet the
/// verifier checks its (empty) element area against the element alignment, e.g. 8 for `[long]`.
#[test]
fn empty_vector_element_area_is_8_aligned() {
    #[derive(Serialize)]
    struct T {
        flag: u8,
        longs: Vec<i64>,
    }
    let bytes = to_vec(&T { flag: 1, longs: vec![] }).unwrap();
    let (t, vt) = root_table(&bytes);
    let field = t + u16_at(&bytes, vt + 6) as usize;
    let vector = field + u32_at(&bytes, field) as usize;
    assert_eq!((vector + 4) % 8, 0);
}

/// Regression (found by fuzzing): a nested struct whose alignment is larger than its first member's must
/// be moved to its alignment as a whole, keeping its members' offsets relative to its own start.
#[test]
fn nested_struct_is_moved_to_its_alignment_as_a_whole() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct T {
        v: (u8, (u16, u64), u8),
    }
    let value = T { v: (1, (0x0202, 0x0303_0303_0303_0303), 4) };
    let bytes = to_vec(&value).unwrap();
    let (t, vt) = root_table(&bytes);
    let s = t + u16_at(&bytes, vt + 4) as usize;
    // flatc layout: u8 @0, pad to 8, u16 @8, pad to 16, u64 @16, u8 @24, size 32
    assert_eq!(bytes[s], 1);
    assert_eq!(&bytes[s + 8..s + 10], &[2, 2]);
    assert_eq!(&bytes[s + 16..s + 24], &[3; 8]);
    assert_eq!(bytes[s + 24], 4);
    assert_eq!(from_slice::<T>(&bytes).unwrap(), value);
}

#[test]
fn maps_are_sorted_by_key() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct M {
        by_name: HashMap<String, u32>,
        by_id: HashMap<i32, String>,
        ordered: BTreeMap<String, Vec<u16>>,
    }
    let value = M {
        by_name: (0..40).map(|i| (format!("key{i}"), i)).collect(),
        by_id: (-20..20).map(|i| (i * 7, i.to_string())).collect(),
        ordered: [("b".to_owned(), vec![1]), ("a".to_owned(), vec![2, 3])].into(),
    };
    let bytes = to_vec(&value).unwrap();
    assert_eq!(from_slice::<M>(&bytes).unwrap(), value);
    // Read the entries back in buffer order through a Vec of pairs: sorted.
    #[derive(Deserialize)]
    struct Entry {
        key: String,
    }
    #[derive(Deserialize)]
    struct AsVec {
        by_name: Vec<Entry>,
    }
    let keys: Vec<String> = from_slice::<AsVec>(&bytes).unwrap().by_name.into_iter().map(|e| e.key).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn unsupported_shapes_are_errors() {
    fn unsupported<T: Serialize>(v: T) {
        let err = to_vec(&v).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    }
    #[derive(Serialize)]
    struct VecOfVec {
        v: Vec<Vec<u8>>,
    }
    unsupported(VecOfVec { v: vec![vec![1]] });
    #[derive(Serialize)]
    struct NoneInVec {
        v: Vec<Option<u8>>,
    }
    unsupported(NoneInVec { v: vec![None] });
    #[derive(Serialize)]
    struct StringInStruct {
        v: (u8, String),
    }
    unsupported(StringInStruct { v: (1, "x".into()) });
    unsupported((1u8, 2u8)); // the root must be a table
    unsupported(vec![1u8]);
    #[derive(Serialize)]
    enum Data {
        A(u32),
    }
    #[derive(Serialize)]
    struct NoPlaceholder {
        d: Data,
    }
    unsupported(NoPlaceholder { d: Data::A(1) });
    #[derive(Serialize)]
    struct Inner {
        x: u8,
    }
    #[derive(Serialize)]
    struct Flat {
        #[serde(flatten)]
        inner: Inner,
    }
    unsupported(Flat { inner: Inner { x: 1 } });
    #[derive(Serialize)]
    struct Mixed {
        #[serde(rename = "a#1")]
        a: u8,
        b: u8,
    }
    unsupported(Mixed { a: 1, b: 2 });
    #[derive(Serialize)]
    struct Twice {
        #[serde(rename = "a#1")]
        a: u8,
        #[serde(rename = "b#1")]
        b: u8,
    }
    unsupported(Twice { a: 1, b: 2 });
}

#[test]
fn deserialize_any_is_an_error_not_a_guess() {
    let bytes = monster_opts().to_vec(&seed_monster()).unwrap();
    let err = from_slice::<serde_json::Value>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
}

#[test]
fn unknown_union_types_error_or_fall_back_to_serde_other() {
    // Written with a two-member union, read with a one-member one.
    let v = WithIds { b: 0, a: 0, u_type: UnionType, u: Some(Payload::Note(Note { text: None })), s: None };
    let bytes = to_vec(&v).unwrap();
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Old {
        Item(Item),
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Tolerant {
        Item(Item),
        #[serde(other)]
        Unknown,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Reader<U> {
        #[serde(rename = "u_type#2")]
        u_type: UnionType,
        #[serde(rename = "u#3")]
        u: Option<U>,
    }
    assert!(from_slice::<Reader<Old>>(&bytes).is_err());
    let r: Reader<Tolerant> = from_slice(&bytes).unwrap();
    assert!(matches!(r.u, Some(Tolerant::Unknown)));
}

/// Every supported shape at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Kitchen {
    b: bool,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    i128: i128,
    u128: u128,
    f32: f32,
    f64: f64,
    c: char,
    s: String,
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    opt: Option<u16>,
    opt_s: Option<String>,
    v16: Vec<u16>,
    vs: Vec<String>,
    vt: Vec<Item>,
    tuple: (u8, f64, (i16, i8)),
    arr: [u32; 3],
    pairs: Vec<(u8, u32)>,
    map: BTreeMap<u32, String>,
    color: Color,
    colors: Vec<Color>,
    payload_type: UnionType,
    payload: Option<Payload>,
    nested: Option<Box<Kitchen>>,
    unit: (),
}

fn arb_kitchen_flat() -> impl Strategy<Value = Kitchen> {
    (
        (any::<bool>(), any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>(), any::<u8>(), any::<u16>()),
        (any::<u32>(), any::<u64>(), any::<i128>(), any::<u128>(), -1e30f32..1e30, -1e300f64..1e300, any::<char>()),
        (".*", proptest::collection::vec(any::<u8>(), 0..20), any::<Option<u16>>(), proptest::option::of(".{0,5}")),
        (
            proptest::collection::vec(any::<u16>(), 0..10),
            proptest::collection::vec(".{0,5}", 0..4),
            proptest::collection::vec((any::<u32>(), proptest::option::of(".{0,4}")), 0..4),
        ),
        (
            any::<(u8, (i16, i8))>(),
            -1e10f64..1e10,
            any::<[u32; 3]>(),
            proptest::collection::vec(any::<(u8, u32)>(), 0..5),
        ),
        (
            proptest::collection::btree_map(any::<u32>(), ".{0,4}", 0..5),
            0..3u8,
            proptest::collection::vec(0..3u8, 0..5),
            proptest::option::of(prop_oneof![
                (any::<u32>(), proptest::option::of(".{0,4}"))
                    .prop_map(|(id, label)| Payload::Item(Item { id, label })),
                proptest::option::of(".{0,4}").prop_map(|text| Payload::Note(Note { text })),
            ]),
        ),
    )
        .prop_map(|(a, b, c, d, e, f)| {
            let color = |i: u8| [Color::Red, Color::Green, Color::Blue][i as usize];
            Kitchen {
                b: a.0,
                i8: a.1,
                i16: a.2,
                i32: a.3,
                i64: a.4,
                u8: a.5,
                u16: a.6,
                u32: b.0,
                u64: b.1,
                i128: b.2,
                u128: b.3,
                f32: b.4,
                f64: b.5,
                c: b.6,
                s: c.0,
                bytes: c.1,
                opt: c.2,
                opt_s: c.3,
                v16: d.0,
                vs: d.1,
                vt: d.2.into_iter().map(|(id, label)| Item { id, label }).collect(),
                tuple: ((e.0).0, e.1, (e.0).1),
                arr: e.2,
                pairs: e.3,
                map: f.0,
                color: color(f.1),
                colors: f.2.into_iter().map(color).collect(),
                payload_type: UnionType,
                payload: f.3,
                nested: None,
                unit: (),
            }
        })
}

fn arb_kitchen() -> impl Strategy<Value = Kitchen> {
    arb_kitchen_flat().prop_recursive(2, 4, 1, |inner| {
        (arb_kitchen_flat(), inner).prop_map(|(mut k, n)| {
            k.nested = Some(Box::new(n));
            k
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_shape_round_trips(k in arb_kitchen()) {
        let bytes = to_vec(&k).unwrap();
        prop_assert_eq!(from_slice::<Kitchen>(&bytes).unwrap(), k.clone());
        let framed = Options::new().size_prefixed(true).file_identifier(*b"KTCN");
        prop_assert_eq!(framed.from_slice::<Kitchen>(&framed.to_vec(&k).unwrap()).unwrap(), k.clone());
    }

    #[test]
    fn omitted_zero_scalars_come_back_through_serde_defaults(a in 0..3u32, b in -2..2i64, c in any::<bool>()) {
        #[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
        struct Lean { #[serde(default)] a: u32, #[serde(default)] b: i64, #[serde(default)] c: bool, name: String }
        let v = Lean { a, b, c, name: "x".into() };
        let lean = Options::new().omit_zero_scalars(true);
        let bytes = lean.to_vec(&v).unwrap();
        prop_assert_eq!(lean.from_slice::<Lean>(&bytes).unwrap(), v.clone());
        if a == 0 && b == 0 && !c {
            prop_assert!(bytes.len() < to_vec(&v).unwrap().len());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = from_slice::<Kitchen>(&bytes);
        let _ = monster_opts().from_slice::<Monster>(&bytes);
    }
}
