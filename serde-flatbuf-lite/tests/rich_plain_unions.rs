//! Issue 13 item 6: unions without a `UnionType` placeholder. `HeroP`/`PlayerV2P` (`tests/common/rich_plain.rs`)
//! are the rich schema's `Hero`/`PlayerV2` with `equipped: Option<Equipment>` and no `equipped_type` field:
//! lite learns from the traced type that the union takes a type slot and a value slot. Against the official
//! `flatbuffers` crate (25.12.19, flatc-generated code in `testkit/flatbuf-oracle`): every union member, absent
//! unions, unions between other fields (`PlayerV2.pet`) and next to each other (`Hero.equipped`/`offhand`),
//! schema evolution both ways; and lite's bytes equal those of the placeholder form.

mod common {
    #![allow(dead_code)]
    pub mod rich;
    pub mod rich_plain;
}

use common::rich::*;
use common::rich_plain::*;
use flatbuf_oracle::flatbuffers::FlatBufferBuilder;
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{ErrorKind, Options, Schema, UnionType};

/// Every member in each union, NONE in each, fields before and after, a companion.
fn cases() -> Vec<(String, Hero)> {
    let mut all: Vec<Option<Equipment>> = vec![None];
    all.extend(members().into_iter().map(Some));
    let mut cases = Vec::new();
    for (i, equipped) in all.iter().enumerate() {
        for (j, offhand) in all.iter().enumerate() {
            let hero = Hero { equipped: equipped.clone(), offhand: offhand.clone(), ..Hero::default() };
            cases.push((format!("equipped #{i}, offhand #{j}"), hero));
        }
        let full = Hero {
            name: Some("Ayla".into()),
            level: 7,
            tags: Some(vec!["a".into(), "b".into()]),
            stat_map: Some([("str".to_owned(), 3)].into()),
            equipped: equipped.clone(),
            companion: Some(Box::new(Hero { offhand: equipped.clone(), temperature: 1.0, ..Hero::default() })),
            temperature: -4.0,
            ..Hero::default()
        };
        cases.push((format!("fields around, equipped #{i}"), full));
    }
    cases
}

#[test]
fn lite_writes_the_placeholder_forms_bytes_and_official_code_reads_them() {
    learn_plain();
    for (name, hero) in cases() {
        let plain = HeroP::from(&hero);
        for (label, opts) in lite_options() {
            let with_placeholder = opts.to_vec(&hero).unwrap();
            let bytes = opts.to_vec(&plain).unwrap_or_else(|e| panic!("lite encode ({name}, {label}): {e}"));
            assert_eq!(bytes, with_placeholder, "same bytes as the UnionType form ({name}, {label})");
            let official = official_hero(&bytes, label.contains("size_prefixed=true"));
            assert_same(&HeroP::from(&official), &plain, &format!("official read, {name}, {label}"));
            let back: HeroP = opts.from_slice(&bytes).unwrap_or_else(|e| panic!("lite decode ({name}, {label}): {e}"));
            assert_same(&back, &plain, &format!("lite round trip, {name}, {label}"));
        }
    }
}

#[test]
fn official_builder_buffers_decode_equal_without_placeholders() {
    for (name, hero) in cases() {
        for build in official_builds() {
            let bytes = build.hero_buffer(&hero);
            let lite: HeroP = build
                .reader()
                .from_slice(&bytes)
                .unwrap_or_else(|e| panic!("lite rejects the official buffer ({name}, {build:?}): {e}"));
            assert_same(&lite, &HeroP::from(&hero), &format!("lite decode of official buffer, {name}, {build:?}"));
        }
    }
}

fn v2p_buffer(build: &Build, p: &PlayerV2P) -> Vec<u8> {
    build.player_v2_buffer(&PlayerV2::from(p))
}

#[test]
fn schema_evolution_both_ways_without_placeholders() {
    learn_plain();
    let mut pets: Vec<Option<Equipment>> = vec![None];
    pets.extend(members().into_iter().map(Some));
    for pet in pets {
        let v2 = PlayerV2P {
            id: 8,
            name: Some("newcomer".into()),
            hp: 100,
            legacy: serde_flatbuf_lite::Deprecated,
            title: Some("Sir".into()),
            mana: 0,
            rank: Rarity::Junk,
            pos: Some(Vec3 { x: 1.0, y: 2.0, z: 3.0 }),
            guilds: Some(vec!["a".into()]),
            pet,
            stats: Some(Stats { hp: 1, ..Stats::default() }),
            opt_gold: Some(0),
        };
        // New writer (lite without placeholder, official) → old readers (lite, official).
        check_evolution(&v2, &PlayerV1::from_v2(&PlayerV2::from(&v2)), v2p_buffer, official_player_v1);
        // Same version: the fields after the union (`stats`, `opt_gold`) keep their slots.
        let bytes = rich_opts().to_vec(&v2).unwrap();
        assert_eq!(bytes, rich_opts().to_vec(&PlayerV2::from(&v2)).unwrap(), "same bytes as the UnionType form");
        assert_same(&official_player_v2_plain(&bytes), &v2, "official V2 reads lite V2");
        let official = Build::default().player_v2_buffer(&PlayerV2::from(&v2));
        assert_same(&rich_opts().from_slice::<PlayerV2P>(&official).unwrap(), &v2, "lite V2 reads official V2");
    }
    // Old writer → new reader without placeholder.
    for v1 in [
        PlayerV1 { id: 7, name: Some("old".into()), hp: 80, legacy: -99 },
        PlayerV1 { id: 0, name: None, hp: 100, legacy: 0 },
    ] {
        let expected = PlayerV2P::from(&PlayerV2::from_v1(&v1));
        check_evolution(&v1, &expected, Build::player_v1_buffer, official_player_v2_plain);
    }
}

#[test]
fn the_emitted_schema_shows_the_union_field_and_equals_the_placeholder_forms() {
    let opts = rich_opts();
    let plain = Schema::trace::<HeroP>(&opts).unwrap().namespace("Rich.Game").to_fbs();
    let with_placeholder = Schema::trace::<Hero>(&opts).unwrap().namespace("Rich.Game").to_fbs();
    assert_eq!(plain, with_placeholder);
    assert!(plain.contains("  equipped:Equipment;\n  offhand:Equipment;\n"), "{plain}");
    assert!(plain.contains("union Equipment { Weapon, Spell, Potion, Offhand: Weapon }"), "{plain}");
    let v2 = Schema::trace::<PlayerV2P>(&opts).unwrap().to_fbs();
    assert_eq!(v2, Schema::trace::<PlayerV2>(&opts).unwrap().to_fbs());
}

// ------------------------------------------------------------------------------------------------
// lite-only edge cases, each against the placeholder form (whose bytes the official crate reads above)

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sword {
    damage: i16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Kit {
    Sword(Sword),
    Empty(()),
}

/// The union first: type slot 0, value slot 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "First")]
struct First {
    kit: Option<Kit>,
    #[serde(default)]
    after: i32,
    second: Option<Kit>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "First")]
struct FirstPh {
    kit_type: UnionType,
    kit: Option<Kit>,
    #[serde(default)]
    after: i32,
    second_type: UnionType,
    second: Option<Kit>,
}

/// Explicit ids: `kit#3` is the union's value id (flatc's `(id: 3)`), its type is id 2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Ids")]
struct Ids {
    #[serde(rename = "after#0", default)]
    after: i32,
    #[serde(rename = "kit#3")]
    kit: Option<Kit>,
    #[serde(rename = "name#1")]
    name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Ids")]
struct IdsPh {
    #[serde(rename = "after#0", default)]
    after: i32,
    #[serde(rename = "kit_type#2")]
    kit_type: UnionType,
    #[serde(rename = "kit#3")]
    kit: Option<Kit>,
    #[serde(rename = "name#1")]
    name: Option<String>,
}

fn kits() -> Vec<Option<Kit>> {
    vec![None, Some(Kit::Sword(Sword { damage: -2 })), Some(Kit::Empty(()))]
}

#[test]
fn union_first_and_explicit_ids_write_the_placeholder_forms_bytes() {
    serde_flatbuf_lite::learn::<First>().unwrap();
    serde_flatbuf_lite::learn::<Ids>().unwrap();
    for kit in kits() {
        for second in kits() {
            let v = First { kit: kit.clone(), after: 5, second: second.clone() };
            let ph = FirstPh { kit_type: UnionType, kit: kit.clone(), after: 5, second_type: UnionType, second };
            let bytes = serde_flatbuf_lite::to_vec(&v).unwrap();
            assert_eq!(bytes, serde_flatbuf_lite::to_vec(&ph).unwrap(), "{v:?}");
            assert_eq!(serde_flatbuf_lite::from_slice::<First>(&bytes).unwrap(), v);
        }
        let v = Ids { after: 1, kit: kit.clone(), name: Some("n".into()) };
        let ph = IdsPh { after: 1, kit_type: UnionType, kit, name: Some("n".into()) };
        let bytes = serde_flatbuf_lite::to_vec(&v).unwrap();
        assert_eq!(bytes, serde_flatbuf_lite::to_vec(&ph).unwrap(), "{v:?}");
        assert_eq!(serde_flatbuf_lite::from_slice::<Ids>(&bytes).unwrap(), v);
    }
    let fbs = Schema::trace::<First>(&Options::new()).unwrap().to_fbs();
    assert!(fbs.contains("table First {\n  kit:Kit;\n  after:int;\n  second:Kit;\n}"), "{fbs}");
    let fbs = Schema::trace::<Ids>(&Options::new()).unwrap().to_fbs();
    assert!(fbs.contains("  after:int (id: 0);\n  name:string (id: 1);\n  kit:Kit (id: 3);\n"), "{fbs}");
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct NeverLearned {
    #[serde(default)]
    a: i32,
    kit: Option<Kit>,
}

#[test]
fn encoding_a_union_of_a_type_never_learned_fails_instead_of_guessing_slots() {
    let v = NeverLearned { a: 1, kit: Some(Kit::Sword(Sword { damage: 1 })) };
    let e = serde_flatbuf_lite::to_vec(&v).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.message().contains("learn::<Root>()"), "{e}");
    // Decoding learns it (decoding traces the type once); then encoding works.
    let ph = FirstPh { kit_type: UnionType, kit: None, after: 0, second_type: UnionType, second: None };
    let _ = serde_flatbuf_lite::from_slice::<NeverLearned>(&serde_flatbuf_lite::to_vec(&ph).unwrap());
    let bytes = serde_flatbuf_lite::to_vec(&v).unwrap();
    assert_eq!(serde_flatbuf_lite::from_slice::<NeverLearned>(&bytes).unwrap(), v);
}

/// A raw table with the given `(slot, byte)` scalars and a `Sword` table in the given slot, by the official
/// builder (the rules checked below are those of the official verifier's `visit_union`).
fn raw(bytes: &[(u16, u8)], sword_at: Option<u16>) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let sword = sword_at.map(|slot| {
        let start = b.start_table();
        b.push_slot::<i16>(4, 9, 0);
        (slot, b.end_table(start))
    });
    let start = b.start_table();
    for &(slot, v) in bytes {
        b.push_slot_always::<u8>(4 + 2 * slot, v);
    }
    if let Some((slot, t)) = sword {
        b.push_slot_always(4 + 2 * slot, t);
    }
    let root = b.end_table(start);
    b.finish_minimal(root);
    b.finished_data().to_vec()
}

#[test]
fn union_consistency_follows_the_official_verifier() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Only {
        kit: Option<Kit>,
    }
    let read = |bytes: &[u8]| serde_flatbuf_lite::from_slice::<Only>(bytes);
    assert_eq!(read(&raw(&[(0, 1)], Some(1))).unwrap(), Only { kit: Some(Kit::Sword(Sword { damage: 9 })) });
    assert_eq!(read(&raw(&[], None)).unwrap(), Only { kit: None });
    // A type stored as NONE without a value (official builder with force_defaults): None, as in flatc's C++.
    assert_eq!(read(&raw(&[(0, 0)], None)).unwrap(), Only { kit: None });
    // A value next to NONE is ignored, as by the official verifier and readers.
    assert_eq!(read(&raw(&[(0, 0)], Some(1))).unwrap(), Only { kit: None });
    assert_eq!(read(&raw(&[(0, 1)], None)).unwrap_err().kind(), ErrorKind::InconsistentUnion);
    assert_eq!(read(&raw(&[], Some(1))).unwrap_err().kind(), ErrorKind::InconsistentUnion);
    // A type the enum does not have.
    assert!(read(&raw(&[(0, 9)], Some(1))).is_err());
}

/// Two Rust types with one serde name, the same field names and a union in one of them only.
mod twin_a {
    use super::*;
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub(crate) struct Item {
        pub(crate) kit: Option<Kit>,
        pub(crate) weight: Option<u32>,
    }
}

mod twin_b {
    use super::*;
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub(crate) struct Item {
        pub(crate) kit: Option<u32>,
        pub(crate) weight: Option<u32>,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Twins {
    a: Option<twin_a::Item>,
    b: Option<twin_b::Item>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inline(u8, u16);

mod inline_b {
    use super::*;
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "Inline")]
    pub(crate) struct Inline(pub(crate) u8, pub(crate) u32);
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct InlineTwins {
    a: Inline,
    b: inline_b::Inline,
}

/// Regression: two types named alike used to merge into one table definition when their field *names*
/// matched, so `twin_b::Item` took `twin_a::Item`'s union slots (its `weight` written one slot off) and the
/// emitted schema described only one of them. Now the trace refuses them, so no union plan is guessed:
/// the type without unions still round-trips, and the union of the other fails loudly instead of taking
/// wrong slots.
#[test]
fn same_named_types_with_different_fields_are_refused_not_merged() {
    let e = Schema::trace::<Twins>(&Options::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.message().contains("two different types are named `Item`"), "{e}");
    assert!(serde_flatbuf_lite::learn::<Twins>().is_err());
    let e = Schema::trace::<InlineTwins>(&Options::new()).unwrap_err();
    assert!(e.message().contains("two different structs are named `Inline`"), "{e}");

    let plain = Twins { a: None, b: Some(twin_b::Item { kit: Some(3), weight: Some(9) }) };
    let bytes = serde_flatbuf_lite::to_vec(&plain).unwrap();
    assert_eq!(serde_flatbuf_lite::from_slice::<Twins>(&bytes).unwrap(), plain);
    // `b`'s table has `kit` in slot 0 and `weight` in slot 1 (no union shift), as a root where
    // `twin_b::Item` is the only `Item` reads it.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Empty {}
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "Twins")]
    struct OnlyB {
        #[allow(dead_code)]
        a: Option<Empty>,
        b: Option<twin_b::Item>,
    }
    assert_eq!(
        serde_flatbuf_lite::from_slice::<OnlyB>(&bytes).unwrap().b,
        Some(twin_b::Item { kit: Some(3), weight: Some(9) })
    );
    let with_union =
        Twins { a: Some(twin_a::Item { kit: Some(Kit::Sword(Sword { damage: 1 })), weight: Some(2) }), b: None };
    assert!(serde_flatbuf_lite::to_vec(&with_union).is_err());
}
