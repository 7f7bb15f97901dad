//! How Rust types map onto KI objects: the three meanings of `Option`, polymorphism, static
//! schemas without a type list, enums, field order, masks, borrowing; plus proptest round trips.

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_kiprop::{
    Bi, Bui, ClassSchema, Color, ErrorKind, Gid, KiClass, MaskPredicate, Options, PropertySchema as P, TypeList, U24,
    Value, Vec3, WString, flags, serializer_flags::*,
};

const DELTA: u32 = flags::DEFAULT | flags::DELTA_ENCODE;

static PLAYER: ClassSchema = ClassSchema::new(
    "class Player",
    &[
        P::new("m_id").ty("unsigned int"),
        P::new("m_nick").ty("std::string").flags(DELTA),
        P::new("m_pet").ty("class Pet*"),
        P::new("m_note").ty("std::string"),
    ],
);
static PET: ClassSchema = ClassSchema::new("class Pet", &[P::new("m_level").ty("unsigned char")]);

fn player_types() -> TypeList {
    TypeList::from_schemas(&[&PLAYER, &PET])
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "class Pet")]
struct Pet {
    m_level: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "class Player")]
struct Player {
    m_id: u32,
    /// DELTA_ENCODE: shallow `None` = presence bit 0; deep `None` = property omitted.
    m_nick: Option<String>,
    /// A pointer: `None` = null tag 0, in both modes.
    m_pet: Option<Pet>,
    /// Neither: `None` is omitted in deep mode and an error in shallow mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    m_note: Option<String>,
}

#[test]
fn option_means_presence_bit_for_delta_encode_in_shallow_mode() {
    let types = player_types();
    let opts = Options::new().property_mask(0);
    let p = Player { m_id: 1, m_nick: None, m_pet: None, m_note: Some("n".into()) };
    let bytes = opts.to_vec(&p, &types).unwrap();
    // tag, id, presence bit 0, (aligned) null pet tag, note.
    let tag = serde_kiprop::hash::string_id(b"class Player").to_le_bytes();
    let mut expected = tag.to_vec();
    expected.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, b'n']);
    assert_eq!(bytes, expected);
    assert_eq!(opts.from_slice::<Player>(&bytes, &types).unwrap(), p);
    let p2 = Player { m_nick: Some("ab".into()), ..p.clone() };
    let bytes = opts.to_vec(&p2, &types).unwrap();
    // Presence bit 1, then the u16 length (aligned) and the bytes.
    assert_eq!(&bytes[8..13], &[1, 2, 0, b'a', b'b']);
    assert_eq!(opts.from_slice::<Player>(&bytes, &types).unwrap(), p2);
    // FORBID_DELTA_ENCODE: absent values are refused on both sides.
    let forbid = opts.flags(FORBID_DELTA_ENCODE);
    assert!(matches!(forbid.to_vec(&p, &types).unwrap_err().kind(), ErrorKind::MissingDelta(_)));
    let err = forbid.from_slice::<Player>(&opts.to_vec(&p, &types).unwrap(), &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::MissingDelta(_)), "{err}");
}

#[test]
fn option_means_null_pointer_for_objects() {
    let types = player_types();
    for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
        let with =
            Player { m_id: 2, m_nick: Some("x".into()), m_pet: Some(Pet { m_level: 9 }), m_note: Some("y".into()) };
        let without = Player { m_pet: None, ..with.clone() };
        let a = opts.to_vec(&with, &types).unwrap();
        let b = opts.to_vec(&without, &types).unwrap();
        assert!(b.len() < a.len());
        assert_eq!(opts.from_slice::<Player>(&a, &types).unwrap(), with);
        assert_eq!(opts.from_slice::<Player>(&b, &types).unwrap(), without);
        let v: Value = opts.from_slice(&b, &types).unwrap();
        assert_eq!(v.get("m_pet"), Some(&Value::Null));
    }
}

#[test]
fn option_means_omitted_property_in_deep_mode() {
    let types = player_types();
    let opts = Options::new().deep(true);
    let p = Player { m_id: 3, m_nick: None, m_pet: None, m_note: None };
    let bytes = opts.to_vec(&p, &types).unwrap();
    let v: Value = opts.from_slice(&bytes, &types).unwrap();
    let names: Vec<&str> = v.as_object().unwrap().properties.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["m_id", "m_pet"]);
    assert_eq!(opts.from_slice::<Player>(&bytes, &types).unwrap(), p);
    // In shallow mode a plain property cannot be absent.
    #[derive(Serialize)]
    #[serde(rename = "class Player")]
    struct Bad {
        m_id: u32,
        m_nick: Option<String>,
        m_pet: Option<Pet>,
        m_note: Option<String>,
    }
    let err = Options::new().property_mask(0).to_vec(&Bad { m_id: 1, m_nick: None, m_pet: None, m_note: None }, &types);
    assert!(matches!(err.unwrap_err().kind(), ErrorKind::Mismatch { .. }));
    let err = Options::new().property_mask(0).to_vec(&Player { m_note: None, ..p }, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::MissingField { .. }), "{err}");
}

static HOLDER: ClassSchema =
    ClassSchema::new("class Holder", &[P::new("m_shapes").ty("class SharedPointer<class Shape>").dynamic()]);
static CIRCLE: ClassSchema = ClassSchema::new("class Circle", &[P::new("m_radius").ty("float")]);
static SQUARE: ClassSchema =
    ClassSchema::new("class Square", &[P::new("m_side").ty("float"), P::new("m_color").ty("class Color")]);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class Circle")]
struct Circle {
    m_radius: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Square {
    m_side: f32,
    m_color: Color,
}

/// A `SharedPointer<Shape>` that holds derived classes: variants named after the classes.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Shape {
    #[serde(rename = "class Circle")]
    Circle(Circle),
    #[serde(rename = "class Square")]
    Square(Square),
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class Holder")]
struct Holder {
    m_shapes: Vec<Option<Shape>>,
}

#[test]
fn polymorphic_pointers_through_rust_enums_and_values() {
    let types = TypeList::from_schemas(&[&HOLDER, &CIRCLE, &SQUARE]);
    let h = Holder {
        m_shapes: vec![
            Some(Shape::Circle(Circle { m_radius: 2.5 })),
            None,
            Some(Shape::Square(Square { m_side: 1.0, m_color: Color { r: 1, g: 2, b: 3, a: 4 } })),
        ],
    };
    for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
        let bytes = opts.to_vec(&h, &types).unwrap();
        assert_eq!(opts.from_slice::<Holder>(&bytes, &types).unwrap(), h);
        let v: Value = opts.from_slice(&bytes, &types).unwrap();
        let shapes = match v.get("m_shapes") {
            Some(Value::List(items)) => items,
            other => panic!("{other:?}"),
        };
        assert_eq!(shapes[0].as_object().unwrap().name.as_deref(), Some("class Circle"));
        assert_eq!(shapes[1], Value::Null);
        assert_eq!(shapes[2].as_object().unwrap().name.as_deref(), Some("class Square"));
        // The dynamic value writes the same bytes.
        assert_eq!(opts.to_vec(&v, &types).unwrap(), bytes);
    }
}

/// No type list: a `KiClass` with types taken from the Rust types.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "class Loot")]
struct Loot {
    m_id: Gid,
    m_title: WString,
    m_rarity: Bui<3>,
    m_tilt: Bi<5>,
    m_big: U24,
    m_count: u16,
    m_weight: f64,
    m_where: Vec3,
    m_tags: Vec<String>,
}

impl KiClass for Loot {
    const SCHEMA: ClassSchema = ClassSchema::new(
        "class Loot",
        &[
            P::new("m_id"),
            P::new("m_title"),
            P::new("m_rarity"),
            P::new("m_tilt"),
            P::new("m_big"),
            P::new("m_count"),
            P::new("m_weight"),
            P::new("m_where"),
            // Containers need their element type in deep mode (the hash includes it).
            P::new("m_tags").ty("std::string").dynamic(),
        ],
    );
}

fn loot() -> Loot {
    Loot {
        m_id: Gid(0x1122_3344_5566_7788),
        m_title: WString("Gobbler’s Hat".into()),
        m_rarity: Bui(5),
        m_tilt: Bi(-7),
        m_big: U24(0xAB_CDEF),
        m_count: 7,
        m_weight: 0.25,
        m_where: Vec3 { x: 1.0, y: 2.0, z: 3.0 },
        m_tags: vec!["hat".into(), "rare".into()],
    }
}

#[test]
fn static_schema_without_type_list_hashes_exact_types() {
    let types = TypeList::of::<Loot>();
    let l = loot();
    for opts in [Options::new(), Options::new().deep(true), Options::new().flags(COMPACT_LENGTH_PREFIXES)] {
        let bytes = opts.to_vec(&l, &types).unwrap();
        assert_eq!(opts.from_slice::<Loot>(&bytes, &types).unwrap(), l);
    }
    // Deep mode writes the hash of the exact KI type each newtype stands for.
    let bytes = Options::new().deep(true).to_vec(&l, &types).unwrap();
    for (ty, name) in [
        ("gid", "m_id"),
        ("std::wstring", "m_title"),
        ("bui3", "m_rarity"),
        ("bi5", "m_tilt"),
        ("u24", "m_big"),
        ("unsigned short", "m_count"),
        ("double", "m_weight"),
        ("class Vector3D", "m_where"),
    ] {
        let tag = serde_kiprop::hash::property_tag(ty, name).to_le_bytes();
        assert!(bytes.windows(4).any(|w| w == tag), "{name}: {ty}");
    }
}

#[test]
fn deep_mode_refuses_to_guess_object_types() {
    static OUTER: ClassSchema = ClassSchema::new("class Outer", &[P::new("m_pet")]);
    #[derive(Serialize)]
    #[serde(rename = "class Outer")]
    struct Outer {
        m_pet: Pet,
    }
    let types = TypeList::from_schemas(&[&OUTER, &PET]);
    let v = Outer { m_pet: Pet { m_level: 1 } };
    // Shallow mode needs no hash: fine.
    assert!(Options::new().to_vec(&v, &types).is_ok());
    let err = Options::new().deep(true).to_vec(&v, &types).unwrap_err();
    match err.kind() {
        ErrorKind::MissingType { class, field } => {
            assert_eq!((class.as_str(), field.as_str()), ("class Outer", "m_pet"));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("class Outer::m_pet"), "{err}");
}

static ENUMS: ClassSchema = ClassSchema::new(
    "class Enums",
    &[
        P::new("m_school").ty("enum School").options(&[("Fire", 2), ("Ice", 4), ("Storm", 8)]),
        P::new("m_mask").ty("enum Mask").flags(flags::DEFAULT | flags::BITS).options(&[("A", 1), ("B", 2), ("C", 4)]),
    ],
);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum School {
    Fire,
    Ice,
    Storm,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class Enums")]
struct Enums {
    m_school: School,
    m_mask: u32,
}

#[test]
fn enums_integral_and_human_readable() {
    let types = TypeList::from_schemas(&[&ENUMS]);
    let e = Enums { m_school: School::Storm, m_mask: 5 };
    let int = Options::new().property_mask(0).to_vec(&e, &types).unwrap();
    // u32 values, unaligned (after the tag they happen to be aligned).
    assert_eq!(&int[4..], &[8, 0, 0, 0, 5, 0, 0, 0]);
    let text = Options::new().property_mask(0).flags(HUMAN_READABLE_ENUMS).to_vec(&e, &types).unwrap();
    assert_eq!(&text[4..], b"\x05\x00Storm\x03\x00A|C");
    for (bytes, f) in [(&int, 0), (&text, HUMAN_READABLE_ENUMS)] {
        let opts = Options::new().property_mask(0).flags(f);
        assert_eq!(opts.from_slice::<Enums>(bytes, &types).unwrap(), e);
        // As strings: option names either way.
        #[derive(Deserialize, Debug, PartialEq)]
        #[serde(rename = "class Enums")]
        struct Names {
            m_school: String,
            m_mask: String,
        }
        let n: Names = opts.from_slice(bytes, &types).unwrap();
        assert_eq!(n, Names { m_school: "Storm".into(), m_mask: "A|C".into() });
        // And the dynamic value holds integers, like katsuba.
        let v: Value = opts.from_slice(bytes, &types).unwrap();
        assert_eq!(v.get("m_school"), Some(&Value::Int(8)));
    }
    // Values without a name cannot be written as strings.
    let bad = Enums { m_school: School::Fire, m_mask: 8 };
    let err = Options::new().property_mask(0).flags(HUMAN_READABLE_ENUMS).to_vec(&bad, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownEnumValue { .. }), "{err}");
}

#[test]
fn shallow_mode_writes_id_order_whatever_the_field_order() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "class Player")]
    struct Reordered {
        m_note: String,
        m_pet: Option<Pet>,
        m_id: u32,
        m_nick: Option<String>,
    }
    let types = player_types();
    let opts = Options::new().property_mask(0);
    let a = Player { m_id: 5, m_nick: Some("n".into()), m_pet: Some(Pet { m_level: 3 }), m_note: Some("z".into()) };
    let b = Reordered { m_note: "z".into(), m_pet: Some(Pet { m_level: 3 }), m_id: 5, m_nick: Some("n".into()) };
    let bytes = opts.to_vec(&a, &types).unwrap();
    assert_eq!(opts.to_vec(&b, &types).unwrap(), bytes);
    assert_eq!(opts.from_slice::<Reordered>(&bytes, &types).unwrap(), b);
}

#[test]
fn masks_select_properties_in_shallow_mode() {
    static MASKED: ClassSchema = ClassSchema::new(
        "class Masked",
        &[
            P::new("m_all").ty("int").flags(flags::TRANSMIT | flags::PRIVILEGED_TRANSMIT),
            P::new("m_priv").ty("int").flags(flags::PRIVILEGED_TRANSMIT),
            P::new("m_save").ty("int").flags(flags::SAVE),
        ],
    );
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "class Masked")]
    struct Masked {
        m_all: i32,
        #[serde(default)]
        m_priv: i32,
        #[serde(default)]
        m_save: i32,
    }
    let types = TypeList::from_schemas(&[&MASKED]);
    let m = Masked { m_all: 1, m_priv: 2, m_save: 3 };
    let all = Options::new().to_vec(&m, &types).unwrap();
    assert_eq!(all.len(), 8, "default mask 0x18 (all bits): only m_all");
    let any = Options::new().mask_predicate(MaskPredicate::Any).to_vec(&m, &types).unwrap();
    assert_eq!(any.len(), 12, "any bit: m_all and m_priv");
    assert_eq!(
        Options::new().mask_predicate(MaskPredicate::Any).from_slice::<Masked>(&any, &types).unwrap(),
        Masked { m_save: 0, ..m }
    );
    // Deep mode ignores the mask.
    let deep = Options::new().deep(true);
    assert_eq!(deep.from_slice::<Masked>(&deep.to_vec(&m, &types).unwrap(), &types).unwrap(), m);
}

#[test]
fn unknown_fields_and_classes_are_errors() {
    #[derive(Serialize)]
    #[serde(rename = "class Pet")]
    struct Extra {
        m_level: u8,
        m_wings: u8,
    }
    #[derive(Serialize)]
    struct Nope {
        m_x: u8,
    }
    let types = player_types();
    let err = Options::new().to_vec(&Extra { m_level: 1, m_wings: 2 }, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownField { .. }), "{err}");
    let err = Options::new().to_vec(&Nope { m_x: 1 }, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownClass(_)), "{err}");
    let err = Options::new().to_vec(&7u32, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Mismatch { .. }), "{err}");
}

#[test]
fn strings_borrow_from_uncompressed_input_and_copy_from_inflated() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename = "class Player")]
    struct Borrowed<'a> {
        m_id: u32,
        #[serde(borrow)]
        m_nick: Option<&'a str>,
        m_pet: Option<Pet>,
        #[serde(borrow)]
        m_note: std::borrow::Cow<'a, str>,
    }
    let types = player_types();
    let p = Player { m_id: 1, m_nick: Some("nick".into()), m_pet: None, m_note: Some("note".repeat(50)) };
    let opts = Options::new().property_mask(0);
    let bytes = opts.to_vec(&p, &types).unwrap();
    let b: Borrowed<'_> = opts.from_slice(&bytes, &types).unwrap();
    assert_eq!(b.m_nick, Some("nick"));
    assert!(matches!(b.m_note, std::borrow::Cow::Borrowed(_)));
    let z = opts.flags(STATEFUL_FLAGS | WITH_COMPRESSION);
    let bytes = z.to_vec(&p, &types).unwrap();
    assert_eq!(bytes[4], 1, "compressed");
    #[derive(Deserialize, Debug)]
    #[serde(rename = "class Player")]
    #[allow(dead_code)]
    struct Owned<'a> {
        m_id: u32,
        m_nick: Option<String>,
        m_pet: Option<Pet>,
        #[serde(borrow)]
        m_note: std::borrow::Cow<'a, str>,
    }
    let o: Owned<'_> = opts.flags(STATEFUL_FLAGS).from_slice(&bytes, &types).unwrap();
    assert!(matches!(o.m_note, std::borrow::Cow::Owned(_)));
    assert_eq!(o.m_note, "note".repeat(50));
}

#[test]
fn readers_and_writers() {
    let types = player_types();
    let p = Player { m_id: 9, m_nick: None, m_pet: Some(Pet { m_level: 2 }), m_note: Some(String::new()) };
    let mut out = Vec::new();
    serde_kiprop::to_writer(&mut out, &p, &types).unwrap();
    assert_eq!(out, serde_kiprop::to_vec(&p, &types).unwrap());
    let back: Player = serde_kiprop::from_reader(&out[..], &types).unwrap();
    assert_eq!(back, p);
    let err = serde_kiprop::from_slice::<Player>(&out[..out.len() - 1], &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Eof));
    assert!(err.offset().is_some());
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "class Everything")]
struct Everything {
    a: bool,
    b: i8,
    c: u8,
    d: i16,
    e: u16,
    f: i32,
    g: u32,
    h: i64,
    i: u64,
    j: f32,
    k: f64,
    l: String,
    m: Vec<u32>,
    n: Option<String>,
    o: Bui<5>,
    p: U24,
    q: Color,
    r: (i8, i8),
    s: Vec<bool>,
    t: WString,
    u: Vec<Option<Pet>>,
    #[serde(with = "serde_bytes")]
    v: Vec<u8>,
}

static EVERYTHING: ClassSchema = ClassSchema::new(
    "class Everything",
    &[
        P::new("a"),
        P::new("b"),
        P::new("c"),
        P::new("d"),
        P::new("e"),
        P::new("f"),
        P::new("g"),
        P::new("h"),
        P::new("i"),
        P::new("j"),
        P::new("k"),
        P::new("l"),
        P::new("m").ty("unsigned int").dynamic(),
        P::new("n").flags(DELTA),
        P::new("o"),
        P::new("p"),
        P::new("q"),
        P::new("r").ty("char"),
        P::new("s").ty("bool").dynamic(),
        P::new("t"),
        P::new("u").ty("class Pet*").dynamic(),
        P::new("v").ty("std::string"),
    ],
);

prop_compose! {
    fn everything()(
        a: bool, b: i8, c: u8, d: i16, e: u16, f: i32, g: u32, h: i64, i: u64,
        j in any::<f32>().prop_filter("not NaN", |x| !x.is_nan()),
        k in any::<f64>().prop_filter("not NaN", |x| !x.is_nan()),
        l in ".{0,40}", m in proptest::collection::vec(any::<u32>(), 0..200),
        n in proptest::option::of(".{0,10}"), o in 0u8..32, p in 0u32..(1 << 24),
        q in any::<[u8; 4]>(), r: (i8, i8), s in proptest::collection::vec(any::<bool>(), 0..20),
        t in "\\PC{0,20}", u in proptest::collection::vec(proptest::option::of(any::<u8>()), 0..4),
        v in proptest::collection::vec(any::<u8>(), 0..64),
    ) -> Everything {
        Everything {
            a, b, c, d, e, f, g, h, i, j, k, l, m, n, o: Bui(o), p: U24(p),
            q: Color { r: q[0], g: q[1], b: q[2], a: q[3] }, r, s, t: WString(t),
            u: u.into_iter().map(|x| x.map(|m_level| Pet { m_level })).collect(), v,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn round_trips_in_every_mode(v in everything(), shallow: bool, compact: bool, zlib: bool) {
        let types = TypeList::from_schemas(&[&EVERYTHING, &PET]);
        let mut flags = STATEFUL_FLAGS;
        if compact { flags |= COMPACT_LENGTH_PREFIXES; }
        if zlib { flags |= WITH_COMPRESSION; }
        let writer = Options::new().shallow(shallow).flags(flags).property_mask(0);
        let bytes = writer.to_vec(&v, &types).unwrap();
        let reader = Options::new().shallow(shallow).flags(STATEFUL_FLAGS).property_mask(0);
        prop_assert_eq!(reader.from_slice::<Everything>(&bytes, &types).unwrap(), v);
    }
}

#[test]
fn maps_are_containers_of_key_value_objects() {
    use std::collections::BTreeMap;
    static BAG: ClassSchema = ClassSchema::new("class Bag", &[P::new("m_stats").ty("class Stat").dynamic()]);
    static STAT: ClassSchema =
        ClassSchema::new("class Stat", &[P::new("m_key").ty("std::string"), P::new("m_value").ty("int")]);
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "class Bag")]
    struct Bag {
        m_stats: BTreeMap<String, i32>,
    }
    let types = TypeList::from_schemas(&[&BAG, &STAT]);
    let bag = Bag { m_stats: BTreeMap::from([("gold".to_owned(), 10), ("xp".to_owned(), -3)]) };
    for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
        let bytes = opts.to_vec(&bag, &types).unwrap();
        assert_eq!(opts.from_slice::<Bag>(&bytes, &types).unwrap(), bag);
        // The dynamic view: a list of Stat objects.
        let v: Value = opts.from_slice(&bytes, &types).unwrap();
        let Some(Value::List(items)) = v.get("m_stats") else { panic!("{v:?}") };
        assert_eq!(items[1].get("m_key"), Some(&Value::String("xp".into())));
        assert_eq!(opts.to_vec(&v, &types).unwrap(), bytes);
    }
}
