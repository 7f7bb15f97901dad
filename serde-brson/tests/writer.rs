//! serde-brson's own BSON writer against the `bson` crate's serializer, the peer it stands in for:
//! for every value, the file's payload is byte-for-byte what `bson::serialize_to_vec` writes, and a
//! value `bson` refuses is refused. Values cover every serde data-model call, with the shapes the
//! writer leaves to `bson` (its special types, a NUL in a key, u64 over i64::MAX, non-string map
//! keys, a top level that is not a document) mixed in at every depth.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::ser::{
    SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple, SerializeTupleStruct,
    SerializeTupleVariant,
};
use serde::{Serialize, Serializer};
use serde_brson::bson::{self, Bson, oid::ObjectId, spec::BinarySubtype};
use serde_brson::model::DataTree;
use serde_brson::{Compression, Options};

/// Field names and variant names: `&'static str` as serde wants them, one with a NUL.
const NAMES: [&str; 6] = ["a", "Name", "Components", "", "x\0y", "$oid"];

/// A value that makes one serde call of each kind (and holds `bson`'s own types).
#[derive(Debug, Clone)]
enum V {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    Char(char),
    Str(String),
    Bytes(Vec<u8>),
    None,
    Some(Box<V>),
    Unit,
    UnitStruct,
    UnitVariant(usize),
    Newtype(Box<V>),
    NewtypeVariant(usize, Box<V>),
    Seq(Vec<V>),
    Tuple(Vec<V>),
    TupleStruct(Vec<V>),
    TupleVariant(usize, Vec<V>),
    Map(Vec<(K, V)>),
    Struct(usize, Vec<(usize, V)>),
    StructVariant(usize, Vec<(usize, V)>),
    /// `bson`'s own values: an ObjectId (a `$oid` struct), a raw document, a UUID binary.
    Bson(Bson),
    Raw(bson::RawDocumentBuf),
}

/// A map key: strings (with and without NUL) and the keys `bson` refuses.
#[derive(Debug, Clone)]
enum K {
    Str(String),
    UnitVariant(usize),
    I32(i32),
    Newtype(String),
}

impl Serialize for K {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            K::Str(v) => s.serialize_str(v),
            K::UnitVariant(i) => s.serialize_unit_variant("K", 0, NAMES[*i]),
            K::I32(v) => s.serialize_i32(*v),
            K::Newtype(v) => s.serialize_newtype_struct("Key", v),
        }
    }
}

impl Serialize for V {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            V::Bool(v) => s.serialize_bool(*v),
            V::I8(v) => s.serialize_i8(*v),
            V::I16(v) => s.serialize_i16(*v),
            V::I32(v) => s.serialize_i32(*v),
            V::I64(v) => s.serialize_i64(*v),
            V::U8(v) => s.serialize_u8(*v),
            V::U16(v) => s.serialize_u16(*v),
            V::U32(v) => s.serialize_u32(*v),
            V::U64(v) => s.serialize_u64(*v),
            V::F32(v) => s.serialize_f32(*v),
            V::F64(v) => s.serialize_f64(*v),
            V::Char(v) => s.serialize_char(*v),
            V::Str(v) => s.serialize_str(v),
            V::Bytes(v) => s.serialize_bytes(v),
            V::None => s.serialize_none(),
            V::Some(v) => s.serialize_some(v),
            V::Unit => s.serialize_unit(),
            V::UnitStruct => s.serialize_unit_struct("U"),
            V::UnitVariant(i) => s.serialize_unit_variant("E", 1, NAMES[*i]),
            V::Newtype(v) => s.serialize_newtype_struct("N", v),
            V::NewtypeVariant(i, v) => s.serialize_newtype_variant("E", 2, NAMES[*i], v),
            V::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                items.iter().try_for_each(|v| seq.serialize_element(v))?;
                seq.end()
            }
            V::Tuple(items) => {
                let mut t = s.serialize_tuple(items.len())?;
                items.iter().try_for_each(|v| t.serialize_element(v))?;
                t.end()
            }
            V::TupleStruct(items) => {
                let mut t = s.serialize_tuple_struct("T", items.len())?;
                items.iter().try_for_each(|v| t.serialize_field(v))?;
                t.end()
            }
            V::TupleVariant(i, items) => {
                let mut t = s.serialize_tuple_variant("E", 3, NAMES[*i], items.len())?;
                items.iter().try_for_each(|v| t.serialize_field(v))?;
                t.end()
            }
            V::Map(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
            V::Struct(name, fields) => {
                let name = if *name == 5 { "$oid" } else { "S" };
                let mut st = s.serialize_struct(name, fields.len())?;
                for (k, v) in fields {
                    st.serialize_field(NAMES[*k], v)?;
                }
                st.end()
            }
            V::StructVariant(i, fields) => {
                let mut st = s.serialize_struct_variant("E", 4, NAMES[*i], fields.len())?;
                for (k, v) in fields {
                    st.serialize_field(NAMES[*k], v)?;
                }
                st.end()
            }
            V::Bson(v) => v.serialize(s),
            V::Raw(v) => v.serialize(s),
        }
    }
}

/// `wild`: also the shapes the writer leaves to `bson`; otherwise only what it writes itself.
fn name(wild: bool) -> BoxedStrategy<usize> {
    // Mostly plain names; now and then the empty one, the one with a NUL, or `$oid`.
    if wild { prop_oneof![6 => 0usize..3, 1 => 3usize..6].boxed() } else { (0usize..4).boxed() }
}

fn key(wild: bool) -> BoxedStrategy<K> {
    let keys = prop_oneof![
        8 => "[a-zA-Z0-9_]{0,6}".prop_map(K::Str),
        1 => name(wild).prop_map(K::UnitVariant),
        1 => "[a-z]{1,4}".prop_map(K::Newtype),
    ];
    if wild {
        prop_oneof![8 => keys, 1 => "a\0?b".prop_map(K::Str), 1 => any::<i32>().prop_map(K::I32)].boxed()
    } else {
        keys.boxed()
    }
}

/// `bson`'s own types: with `wild`, also those the writer leaves to `bson`.
fn bson_value(wild: bool) -> BoxedStrategy<V> {
    let written = prop_oneof![
        any::<i32>().prop_map(|n| V::Raw(bson::rawdoc! { "k": n, "s": "t" })),
        ("[a-z]{0,5}", any::<f64>())
            .prop_map(|(k, x)| V::Bson(Bson::Document(bson::doc! { k: x, "arr": [1, "two", 3.0] }))),
    ];
    if !wild {
        return written.boxed();
    }
    prop_oneof![
        written,
        any::<[u8; 12]>().prop_map(|b| V::Bson(Bson::ObjectId(ObjectId::from_bytes(b)))),
        any::<i64>().prop_map(|ms| V::Bson(Bson::DateTime(bson::DateTime::from_millis(ms)))),
        any::<[u8; 16]>()
            .prop_map(|b| V::Bson(Bson::Binary(bson::Binary { subtype: BinarySubtype::Uuid, bytes: b.to_vec() }))),
    ]
    .boxed()
}

fn leaf(wild: bool) -> impl Strategy<Value = V> {
    let big = if wild { 1 } else { 0 };
    prop_oneof![
        any::<bool>().prop_map(V::Bool),
        any::<i8>().prop_map(V::I8),
        any::<i16>().prop_map(V::I16),
        any::<i32>().prop_map(V::I32),
        any::<i64>().prop_map(V::I64),
        any::<u8>().prop_map(V::U8),
        any::<u16>().prop_map(V::U16),
        any::<u32>().prop_map(V::U32),
        // Mostly in range for int64; sometimes over i64::MAX, which bson refuses.
        prop_oneof![4 => 0u64..=i64::MAX as u64, big => any::<u64>()].prop_map(V::U64),
        any::<f32>().prop_map(V::F32),
        any::<f64>().prop_map(V::F64),
        any::<char>().prop_map(V::Char),
        ".{0,12}".prop_map(V::Str),
        proptest::collection::vec(any::<u8>(), 0..12).prop_map(V::Bytes),
        Just(V::None),
        Just(V::Unit),
        Just(V::UnitStruct),
        name(wild).prop_map(V::UnitVariant),
        bson_value(wild),
    ]
}

fn value(wild: bool) -> impl Strategy<Value = V> {
    let dollar = if wild { 1 } else { 0 };
    leaf(wild).prop_recursive(5, 64, 12, move |inner| {
        let items = proptest::collection::vec(inner.clone(), 0..12);
        let fields = proptest::collection::vec((name(wild), inner.clone()), 0..6);
        prop_oneof![
            inner.clone().prop_map(|v| V::Some(Box::new(v))),
            inner.clone().prop_map(|v| V::Newtype(Box::new(v))),
            (name(wild), inner.clone()).prop_map(|(i, v)| V::NewtypeVariant(i, Box::new(v))),
            items.clone().prop_map(V::Seq),
            items.clone().prop_map(V::Tuple),
            items.clone().prop_map(V::TupleStruct),
            (name(wild), items).prop_map(|(i, v)| V::TupleVariant(i, v)),
            proptest::collection::vec((key(wild), inner), 0..6).prop_map(V::Map),
            (prop_oneof![9 => Just(0usize), dollar => Just(5usize)], fields.clone()).prop_map(|(n, f)| V::Struct(n, f)),
            (name(wild), fields).prop_map(|(i, f)| V::StructVariant(i, f)),
        ]
    })
}

/// The payload serde-brson writes for `value` (through the public API: an uncompressed file).
fn ours<T: Serialize>(value: &T) -> Result<Vec<u8>, serde_brson::Error> {
    // Not read back through `decompress`: where `bson` writes a document that is not valid BSON
    // (a `$oid` struct without its field), so must the fallback, and the check would refuse it.
    let file = Options::new().allow_uncompressed(true).to_vec(value, Compression::None)?;
    assert_eq!(&file[..9], b"FrDT\0\0\0\0\0", "the header of an uncompressed file");
    Ok(file[9..].to_vec())
}

/// `bson`'s bytes for `value`, or `None` where it refuses it (or writes no document).
fn peer<T: Serialize>(value: &T) -> Option<Vec<u8>> {
    bson::serialize_to_vec(value).ok().filter(|b| b.len() >= 5)
}

fn check<T: Serialize + std::fmt::Debug>(value: &T) {
    match (ours(value), peer(value)) {
        (Ok(a), Some(b)) => assert!(a == b, "bytes differ for {value:?}:\n ours {a:02x?}\n bson {b:02x?}"),
        (Err(_), None) => {}
        (a, b) => panic!("ours {:?} / bson {:?} for {value:?}", a.map(|_| "ok"), b.map(|_| "ok")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Random values the writer writes itself, under a document: never a fallback, so these
    /// bytes are all the writer's.
    #[test]
    fn writer_matches_bson_on_what_it_writes(fields in proptest::collection::vec((name(false), value(false)), 0..6)) {
        let value = V::Struct(0, fields);
        prop_assert!(ours(&value).is_ok() && peer(&value).is_some(), "{value:?} is refused");
        check(&value);
    }

    /// Random values with every fallback at some depth, under a document.
    #[test]
    fn writer_matches_bson_under_a_document(fields in proptest::collection::vec((name(true), value(true)), 0..6)) {
        check(&V::Struct(0, fields));
    }

    /// Random values at the top level: only documents may stand there.
    #[test]
    fn writer_matches_bson_at_the_top_level(v in value(true)) {
        check(&v);
    }
}

#[test]
fn writer_array_keys_past_one_digit() {
    // Keys "0" … "1099": the decimal writer's carries, against bson's formatting.
    let long: Vec<V> = (0..1100).map(V::I32).collect();
    check(&V::Struct(0, vec![(0, V::Seq(long.clone())), (1, V::Tuple(long))]));
}

#[test]
fn writer_matches_bson_for_maps_and_derives() {
    #[derive(Serialize, Debug)]
    struct Player {
        name: String,
        pos: [f32; 3],
        tags: Vec<String>,
        hp: Option<u16>,
        stats: BTreeMap<String, i64>,
        kind: Kind,
        id: u64,
    }
    #[derive(Serialize, Debug)]
    enum Kind {
        Npc,
        Player(u32),
        Boss { phase: u8 },
        Pair(i8, i8),
    }
    for kind in [Kind::Npc, Kind::Player(7), Kind::Boss { phase: 2 }, Kind::Pair(-1, 1)] {
        let p = Player {
            name: "Ünïcode \u{1F600}".into(),
            pos: [1.0, -0.5, f32::NAN],
            tags: vec!["a".into(), String::new()],
            hp: None,
            stats: [("str".into(), 5), ("dex".into(), i64::MIN)].into_iter().collect(),
            kind,
            id: u64::MAX,
        };
        check(&p); // u64::MAX: both refuse
        check(&Player { id: 1 << 40, ..p });
    }
}

#[test]
fn writer_matches_bson_on_the_engine_trees() {
    for name in ["redx-5ce7cdf5.7zbson", "rassi0429-Box.7zbson", "synthetic-modern.brson"] {
        let bytes = std::fs::read(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let options = Options::new().extension_of(name);
        let tree: DataTree = options.from_slice(&bytes).unwrap();
        check(&tree);
        let document: bson::Document = options.decompress(&bytes).unwrap().to_document().unwrap();
        check(&document);
    }
}
