//! Issue deliverable 4c: upstream's `monsterdata_test.mon` (and its siblings written by Python and C#)
//! decodes into serde structs mirroring `monster_test.fbs` as far as lite's model reaches.
//!
//! What lite cannot express the way the schema does, and how the mirror handles it:
//! - `bit_flags` enums (`Color`, `LongEnum`) and enums with explicit or negative values (`Race`): serde's derive
//!   numbers variants 0, 1, 2, …, so these are read as their raw integers (serde_repr-style types work too).
//! - `nested_flatbuffer` fields are `[ubyte]` to lite: decode them with a second `from_slice`.
//! - `flexbuffer` fields are `[ubyte]` (decode them with the flexbuffers crate).
//! - `(key)`, `(hash)`, `native_inline`, `cpp_*` attributes only affect generated code: plain values here.
//! - `force_align` beyond a struct's natural alignment (Vec3's 8 is natural) cannot be expressed.
//! - Vectors of unions and unions of structs (not used by Monster) cannot be expressed.
//! - Field ids: the schema gives every field an `(id: N)`, so the mirror renames every field to `name#N`.

#![allow(clippy::approx_constant)] // 3.14159 is the schema's default, not an approximation of π

mod common;

use common::data;
use serde::Deserialize;
use serde_flatbuf_lite::{Deprecated, Options, UnionType};

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
struct Test(i16, i8);

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
    test1: f64,
    test2: u8,
    test3: Test,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
struct Ability(u32, u32);

#[derive(Debug, PartialEq, Deserialize)]
struct Stat {
    id: Option<String>,
    #[serde(default)]
    val: i64,
    #[serde(default)]
    count: u16,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Referrable {
    #[serde(default)]
    id: u64,
}

#[derive(Debug, PartialEq, Deserialize)]
struct InParentNamespace {}

#[derive(Debug, PartialEq, Deserialize)]
struct TestSimpleTableWithEnum {
    #[serde(default = "green")]
    color: u8,
}

fn green() -> u8 {
    2
}

/// `MyGame.Example2.Monster`: an empty table.
#[derive(Debug, PartialEq, Deserialize)]
struct Example2Monster {}

#[derive(Debug, PartialEq, Deserialize)]
enum Any {
    Monster(Box<Monster>),
    TestSimpleTableWithEnum(TestSimpleTableWithEnum),
    MyGameExample2Monster(Example2Monster),
}

#[derive(Debug, PartialEq, Deserialize)]
enum AnyUniqueAliases {
    M(Box<Monster>),
    Ts(TestSimpleTableWithEnum),
    M2(Example2Monster),
}

#[derive(Debug, PartialEq, Deserialize)]
enum AnyAmbiguousAliases {
    M1(Box<Monster>),
    M2(Box<Monster>),
    M3(Box<Monster>),
}

macro_rules! defaults {
    ($($name:ident: $ty:ty = $value:expr;)*) => {$(fn $name() -> $ty { $value })*};
}

defaults! {
    d150: i16 = 150;
    d100: i16 = 100;
    blue: u8 = 8;
    pi: f32 = 3.14159;
    three: f32 = 3.0;
    race_none: i8 = -1;
    long_one: u64 = 2;
    nan: f32 = f32::NAN;
    inf: f32 = f32::INFINITY;
    neg_inf: f32 = f32::NEG_INFINITY;
    dinf: f64 = f64::INFINITY;
}

#[derive(Debug, PartialEq, Deserialize)]
struct Monster {
    #[serde(rename = "pos#0")]
    pos: Option<Vec3>,
    #[serde(rename = "mana#1", default = "d150")]
    mana: i16,
    #[serde(rename = "hp#2", default = "d100")]
    hp: i16,
    #[serde(rename = "name#3")]
    name: String,
    #[serde(rename = "friendly#4")]
    friendly: Deprecated,
    #[serde(rename = "inventory#5", with = "serde_bytes", default)]
    inventory: Option<Vec<u8>>,
    #[serde(rename = "color#6", default = "blue")]
    color: u8,
    #[serde(rename = "test_type#7")]
    test_type: UnionType,
    #[serde(rename = "test#8")]
    test: Option<Any>,
    #[serde(rename = "test4#9")]
    test4: Option<Vec<Test>>,
    #[serde(rename = "testarrayofstring#10")]
    testarrayofstring: Option<Vec<String>>,
    #[serde(rename = "testarrayoftables#11")]
    testarrayoftables: Option<Vec<Monster>>,
    #[serde(rename = "enemy#12")]
    enemy: Option<Box<Monster>>,
    #[serde(rename = "testnestedflatbuffer#13", with = "serde_bytes", default)]
    testnestedflatbuffer: Option<Vec<u8>>,
    #[serde(rename = "testempty#14")]
    testempty: Option<Stat>,
    #[serde(rename = "testbool#15", default)]
    testbool: bool,
    #[serde(rename = "testhashs32_fnv1#16", default)]
    testhashs32_fnv1: i32,
    #[serde(rename = "testhashu32_fnv1#17", default)]
    testhashu32_fnv1: u32,
    #[serde(rename = "testhashs64_fnv1#18", default)]
    testhashs64_fnv1: i64,
    #[serde(rename = "testhashu64_fnv1#19", default)]
    testhashu64_fnv1: u64,
    #[serde(rename = "testhashs32_fnv1a#20", default)]
    testhashs32_fnv1a: i32,
    #[serde(rename = "testhashu32_fnv1a#21", default)]
    testhashu32_fnv1a: u32,
    #[serde(rename = "testhashs64_fnv1a#22", default)]
    testhashs64_fnv1a: i64,
    #[serde(rename = "testhashu64_fnv1a#23", default)]
    testhashu64_fnv1a: u64,
    #[serde(rename = "testarrayofbools#24")]
    testarrayofbools: Option<Vec<bool>>,
    #[serde(rename = "testf#25", default = "pi")]
    testf: f32,
    #[serde(rename = "testf2#26", default = "three")]
    testf2: f32,
    #[serde(rename = "testf3#27", default)]
    testf3: f32,
    #[serde(rename = "testarrayofstring2#28")]
    testarrayofstring2: Option<Vec<String>>,
    #[serde(rename = "testarrayofsortedstruct#29")]
    testarrayofsortedstruct: Option<Vec<Ability>>,
    #[serde(rename = "flex#30", with = "serde_bytes", default)]
    flex: Option<Vec<u8>>,
    #[serde(rename = "test5#31")]
    test5: Option<Vec<Test>>,
    #[serde(rename = "vector_of_longs#32")]
    vector_of_longs: Option<Vec<i64>>,
    #[serde(rename = "vector_of_doubles#33")]
    vector_of_doubles: Option<Vec<f64>>,
    #[serde(rename = "parent_namespace_test#34")]
    parent_namespace_test: Option<InParentNamespace>,
    #[serde(rename = "vector_of_referrables#35")]
    vector_of_referrables: Option<Vec<Referrable>>,
    #[serde(rename = "single_weak_reference#36", default)]
    single_weak_reference: u64,
    #[serde(rename = "vector_of_weak_references#37")]
    vector_of_weak_references: Option<Vec<u64>>,
    #[serde(rename = "vector_of_strong_referrables#38")]
    vector_of_strong_referrables: Option<Vec<Referrable>>,
    #[serde(rename = "co_owning_reference#39", default)]
    co_owning_reference: u64,
    #[serde(rename = "vector_of_co_owning_references#40")]
    vector_of_co_owning_references: Option<Vec<u64>>,
    #[serde(rename = "non_owning_reference#41", default)]
    non_owning_reference: u64,
    #[serde(rename = "vector_of_non_owning_references#42")]
    vector_of_non_owning_references: Option<Vec<u64>>,
    #[serde(rename = "any_unique_type#43")]
    any_unique_type: UnionType,
    #[serde(rename = "any_unique#44")]
    any_unique: Option<AnyUniqueAliases>,
    #[serde(rename = "any_ambiguous_type#45")]
    any_ambiguous_type: UnionType,
    #[serde(rename = "any_ambiguous#46")]
    any_ambiguous: Option<AnyAmbiguousAliases>,
    #[serde(rename = "vector_of_enums#47")]
    vector_of_enums: Option<Vec<u8>>,
    #[serde(rename = "signed_enum#48", default = "race_none")]
    signed_enum: i8,
    #[serde(rename = "testrequirednestedflatbuffer#49", with = "serde_bytes", default)]
    testrequirednestedflatbuffer: Option<Vec<u8>>,
    #[serde(rename = "scalar_key_sorted_tables#50")]
    scalar_key_sorted_tables: Option<Vec<Stat>>,
    #[serde(rename = "native_inline#51")]
    native_inline: Option<Test>,
    #[serde(rename = "long_enum_non_enum_default#52", default)]
    long_enum_non_enum_default: u64,
    #[serde(rename = "long_enum_normal_default#53", default = "long_one")]
    long_enum_normal_default: u64,
    #[serde(rename = "nan_default#54", default = "nan")]
    nan_default: f32,
    #[serde(rename = "inf_default#55", default = "inf")]
    inf_default: f32,
    #[serde(rename = "positive_inf_default#56", default = "inf")]
    positive_inf_default: f32,
    #[serde(rename = "infinity_default#57", default = "inf")]
    infinity_default: f32,
    #[serde(rename = "positive_infinity_default#58", default = "inf")]
    positive_infinity_default: f32,
    #[serde(rename = "negative_inf_default#59", default = "neg_inf")]
    negative_inf_default: f32,
    #[serde(rename = "negative_infinity_default#60", default = "neg_inf")]
    negative_infinity_default: f32,
    #[serde(rename = "double_inf_default#61", default = "dinf")]
    double_inf_default: f64,
}

fn opts() -> Options {
    Options::new().inline_struct("Vec3").file_identifier(*b"MONS")
}

#[test]
fn monsterdata_test_decodes_as_far_as_lite_reaches() {
    let m: Monster = opts().from_slice(&data("upstream/monsterdata_test.mon")).unwrap();
    assert_eq!(m.pos, Some(Vec3 { x: 1.0, y: 2.0, z: 3.0, test1: 3.0, test2: 2, test3: Test(5, 6) }));
    assert_eq!((m.hp, m.mana, m.name.as_str(), m.color), (80, 150, "MyMonster", 8));
    assert_eq!(m.inventory.as_deref(), Some(&[0, 1, 2, 3, 4][..]));
    let Some(Any::Monster(fred)) = &m.test else { panic!("test: {:?}", m.test) };
    assert_eq!(fred.name, "Fred");
    assert_eq!(m.test4, Some(vec![Test(10, 20), Test(30, 40)]));
    assert_eq!(m.test5, m.test4);
    assert_eq!(m.testarrayofstring, Some(vec!["test1".to_owned(), "test2".to_owned()]));
    assert_eq!(m.enemy.as_ref().map(|e| e.name.as_str()), Some("Fred"));
    assert!(m.testbool);
    assert_eq!((m.testhashs32_fnv1, m.testhashu32_fnv1), (-579221183, 3715746113));
    assert_eq!((m.testhashs64_fnv1, m.testhashu64_fnv1), (7930699090847568257, 7930699090847568257));
    assert_eq!((m.testhashs32_fnv1a, m.testhashu32_fnv1a), (-1904106383, 2390860913));
    assert_eq!((m.testhashs64_fnv1a, m.testhashu64_fnv1a), (4898026182817603057, 4898026182817603057));
    assert_eq!(m.testarrayofbools, Some(vec![true, false, true]));
    assert_eq!(m.testarrayofsortedstruct, Some(vec![Ability(0, 45), Ability(1, 21), Ability(5, 12)]));
    assert_eq!(m.vector_of_longs, Some(vec![1, 100, 10000, 1000000, 100000000]));
    assert_eq!(m.vector_of_doubles, Some(vec![-f64::MAX, 0.0, f64::MAX]));
    assert_eq!(
        m.scalar_key_sorted_tables,
        Some(vec![
            Stat { id: Some("miss".into()), val: 0, count: 0 },
            Stat { id: Some("hit".into()), val: 10, count: 1 }
        ])
    );
    assert_eq!(m.native_inline, Some(Test(1, 2)));
    // Absent fields: the schema defaults through serde.
    assert_eq!((m.testf, m.testf2, m.testf3, m.signed_enum, m.long_enum_normal_default), (3.14159, 3.0, 0.0, -1, 2));
    assert!(m.nan_default.is_nan() && m.double_inf_default == f64::INFINITY);
}

#[test]
fn monsters_from_python_and_csharp_decode_too() {
    for (file, prefixed) in [
        ("upstream/monsterdata_python_wire.mon", false),
        ("upstream/monsterdata_cstest.mon", false),
        ("upstream/monsterdata_cstest_sp.mon", true),
    ] {
        let m: Monster =
            opts().size_prefixed(prefixed).from_slice(&data(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(m.name, "MyMonster", "{file}");
        assert_eq!(m.hp, 80, "{file}");
        assert_eq!(m.inventory.as_deref(), Some(&[0, 1, 2, 3, 4][..]), "{file}");
    }
}

#[test]
fn unicode_monster_decodes() {
    let m: Monster = opts().from_slice(&data("upstream/unicode_test.mon")).unwrap();
    let expected = common::json("upstream/unicode_test.json");
    assert_eq!(m.name, expected["name"].as_str().unwrap());
    let names: Vec<&str> = m.testarrayoftables.as_ref().unwrap().iter().map(|t| t.name.as_str()).collect();
    let want: Vec<&str> =
        expected["testarrayoftables"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, want);
    assert_eq!(m.testarrayofstring.as_ref().unwrap().len(), expected["testarrayofstring"].as_array().unwrap().len());
}
