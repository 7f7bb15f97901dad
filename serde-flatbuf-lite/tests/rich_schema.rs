//! Issue 13, deliverable 1: lite against the official `flatbuffers` crate (25.12.19) on the rich schema
//! (`testkit/flatbuf-oracle/schemas/rich.fbs`): every field kind, absent and default fields, empty vectors,
//! every union member, keyed vectors, fixed arrays, enums of every width, optional scalars, a deprecated
//! field, and schema evolution both ways. Official-builder buffers (the generated `XArgs` + `create`) decode
//! equal in lite; lite's buffers pass the official verifier and read equal through the generated accessors;
//! and lite's emitted `.fbs` for the mirror types is accepted by flatc, which also reads lite's buffers with
//! the official schema (flatc's C++ verifier and reader).

mod common {
    #![allow(dead_code)]
    pub mod flatc;
    pub mod rich;
}

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::flatc::{flatc, run};
use common::rich::*;
use flatbuf_oracle::flatbuffers::{self, FlatBufferBuilder};
use flatbuf_oracle::rich::rich::game as fb;
use serde_flatbuf_lite::{Deprecated, Schema, UnionType};

// ------------------------------------------------------------------------------------------------
// values

fn vec3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3 { x, y, z }
}

fn item(id: u32, name: &str) -> Item {
    Item { id, name: Some(name.into()), count: 3, rarity: Rarity::Junk }
}

/// Every field present, none at its default.
fn full_hero() -> Hero {
    Hero {
        name: Some("Ayla ☃".into()),
        pos: Some(vec3(1.0, -2.5, 3.0)),
        bounds: Some(Bounds { min: vec3(-1.0, -2.0, -3.0), max: vec3(4.0, 5.0, 6.0), layer: Layer::Under }),
        slots: Some(Slots {
            tag: -5,
            ids: [1, 65535, 300],
            weights: [0.5, -1e300],
            corners: [Vec2 { x: 1.5, y: 2.5 }, Vec2 { x: -3.5, y: f32::MAX }],
            colors: [Color::Green, Color::Blue],
        }),
        stats: Some(Stats { hp: 250, mana: 0, speed: 2.0, alive: false, armor: 12, luck: 0.75 }),
        level: 42,
        xp: u64::MAX,
        color: Color::Red,
        rarity: Rarity::Junk,
        layer: Layer::Under,
        epoch: Epoch::After,
        hp_opt: Some(-1),
        shield_opt: Some(true),
        ratio_opt: Some(0.125),
        color_opt: Some(Color::Green),
        old_score: Deprecated,
        inventory: Some(vec![0, 1, 2, 255]),
        tags: Some(vec!["tank".into(), String::new(), "ünïcode".into()]),
        path: Some(vec![vec3(1.0, 2.0, 3.0), vec3(4.0, 5.0, 6.0)]),
        bounds_list: vec![Bounds { min: vec3(0.0, 0.0, 0.0), max: vec3(1.0, 1.0, 1.0), layer: Layer::Ground }],
        flags: Some(vec![true, false, true]),
        deltas: Some(vec![-32768, 0, 32767]),
        scores: Some(vec![1.5, -0.0, f64::INFINITY]),
        big_ids: Some(vec![i64::MIN, -1, i64::MAX]),
        layers: Some(vec![Layer::Air, Layer::Under, Layer::Ground]),
        colors: Some(vec![Color::Blue, Color::Red]),
        weapons: Some(vec![sword(), Weapon { name: Some("Bow".into()), damage: -4, range: 30.0 }]),
        items: Some(vec![item(1, "apple"), item(7, "pear"), item(4_000_000_000, "gem")]),
        stat_map: Some([("agility".to_owned(), 7), ("strength".to_owned(), -2), (String::new(), 0)].into()),
        slot_map: [(2, item(9, "helm")), (0, item(0, "")), (65535, item(5, "boots"))].into(),
        equipped_type: UnionType,
        equipped: Some(members()[1].clone()),
        offhand_type: UnionType,
        offhand: Some(members()[3].clone()),
        companion: Some(Box::new(Hero {
            name: Some("Pip".into()),
            equipped: Some(Equipment::Potion(Potion { heal: 25, uses: 2 })),
            ..Hero::default()
        })),
        temperature: -40.0,
    }
}

/// Every vector and map present but empty.
fn empty_vectors_hero() -> Hero {
    Hero {
        inventory: Some(vec![]),
        tags: Some(vec![]),
        path: Some(vec![]),
        flags: Some(vec![]),
        deltas: Some(vec![]),
        scores: Some(vec![]),
        big_ids: Some(vec![]),
        layers: Some(vec![]),
        colors: Some(vec![]),
        weapons: Some(vec![]),
        items: Some(vec![]),
        stat_map: Some(BTreeMap::new()),
        equipped: Some(Equipment::Spell(Spell {
            name: None,
            mana_cost: 0,
            school: Rarity::Common,
            targets: Some(vec![]),
        })),
        ..Hero::default()
    }
}

/// Every scalar at its schema default (the official builder leaves them all out) or zero where the default
/// is not zero (the official builder writes them).
fn defaults_and_zeros_hero() -> Hero {
    Hero {
        stats: Some(Stats::default()),
        level: 0,
        xp: 0,
        color: Color::Red,
        rarity: Rarity::Common,
        layer: Layer::Ground,
        epoch: Epoch::Now,
        hp_opt: Some(0),
        shield_opt: Some(false),
        ratio_opt: Some(0.0),
        color_opt: Some(Color::Red),
        weapons: Some(vec![
            Weapon { name: None, damage: 0, range: 0.0 },
            Weapon { name: None, damage: 10, range: 0.0 },
        ]),
        items: Some(vec![
            Item { id: 0, name: None, count: 0, rarity: Rarity::Common },
            Item { id: 1, name: None, count: 1, rarity: Rarity::Common },
        ]),
        stat_map: Some([(String::new(), 0)].into()),
        slot_map: [(0, Item { id: 0, name: None, count: 1, rarity: Rarity::Common })].into(),
        equipped: Some(Equipment::Potion(Potion { heal: 25, uses: 1 })),
        offhand: Some(Equipment::Potion(Potion { heal: 0, uses: 0 })),
        companion: Some(Box::new(Hero {
            stats: Some(Stats { hp: 0, mana: 0, speed: 0.0, alive: false, armor: 0, luck: 0.0 }),
            ..Hero::default()
        })),
        temperature: 0.0,
        ..Hero::default()
    }
}

fn cases() -> Vec<(&'static str, Hero)> {
    let mut cases = vec![
        ("full", full_hero()),
        ("absent", Hero::default()),
        ("empty vectors", empty_vectors_hero()),
        ("defaults and zeros", defaults_and_zeros_hero()),
    ];
    for (i, m) in members().into_iter().enumerate() {
        let name = ["union Weapon", "union Spell", "union Potion", "union Offhand (aliased Weapon)"][i];
        let next = members()[(i + 1) % 4].clone();
        cases.push((name, Hero { equipped: Some(m.clone()), offhand: Some(next), ..Hero::default() }));
        cases.push((name, Hero { equipped: None, offhand: Some(m), ..full_hero() }));
    }
    cases
}

// ------------------------------------------------------------------------------------------------
// options on both sides

// ------------------------------------------------------------------------------------------------
// both directions

#[test]
fn official_builder_buffers_decode_equal_in_lite() {
    for (name, hero) in cases() {
        for build in official_builds() {
            let bytes = build.hero_buffer(&hero);
            if build.force_defaults && has_none_union(&hero) {
                // The official Rust builder writes `x_type = NONE` without a value under force_defaults, and
                // the official Rust verifier rejects that buffer (see the test below).
                assert!(official_root(&bytes, build.size_prefixed).is_err(), "{name}, {build:?}");
            } else {
                // The oracle itself: the official reader gives the value back.
                let official = official_hero(&bytes, build.size_prefixed);
                assert_same(&official, &hero, &format!("official round trip, {name}"));
            }
            let lite: Hero = build
                .reader()
                .from_slice(&bytes)
                .unwrap_or_else(|e| panic!("lite rejects the official buffer ({name}, {build:?}): {e}"));
            assert_same(&lite, &hero, &format!("lite decode of official buffer, {name}, {build:?}"));
            // A reader that does not ask for the identifier reads an identified buffer too.
            if build.identifier {
                let plain: Hero = rich_opts().size_prefixed(build.size_prefixed).from_slice(&bytes).unwrap();
                assert_same(&plain, &hero, name);
            }
        }
    }
}

#[test]
fn lite_buffers_pass_the_official_verifier_and_read_equal() {
    for (name, hero) in cases() {
        for (label, opts) in lite_options() {
            let bytes = opts.to_vec(&hero).unwrap_or_else(|e| panic!("lite encode ({name}, {label}): {e}"));
            let prefixed = label.contains("size_prefixed=true");
            assert_same(
                &official_hero(&bytes, prefixed),
                &hero,
                &format!("official read of lite buffer, {name}, {label}"),
            );
            if label.contains("identifier=true") {
                let has = if prefixed {
                    fb::hero_size_prefixed_buffer_has_identifier(&bytes)
                } else {
                    fb::hero_buffer_has_identifier(&bytes)
                };
                assert!(has, "{name}, {label}");
            }
            let back: Hero = opts.from_slice(&bytes).unwrap_or_else(|e| panic!("lite decode ({name}, {label}): {e}"));
            assert_same(&back, &hero, &format!("lite round trip, {name}, {label}"));
        }
    }
}

/// Official-side inconsistency, recorded: `FlatBufferBuilder::force_defaults(true)` makes the generated
/// `create` write a union's type slot even when it is `NONE` (0) and has no value, and the official Rust
/// verifier rejects exactly that (`InconsistentUnion`: "exactly one of union discriminant and value are
/// present"). The C++ verifier (flatc) accepts it: its union check returns true for `NONE`. Lite reads it as
/// `None`, like the C++ side and like the generated accessors would.
#[test]
fn force_defaults_none_union_official_rust_rejects_its_own_buffer_lite_reads_none() {
    let build = Build { force_defaults: true, ..Build::default() };
    let bytes = build.hero_buffer(&Hero::default());
    let err = flatbuffers::root::<fb::Hero<'_>>(&bytes).unwrap_err();
    assert!(matches!(err, flatbuffers::InvalidFlatbuffer::InconsistentUnion { .. }), "{err:?}");
    let lite: Hero = rich_opts().from_slice(&bytes).unwrap();
    assert_same(&lite, &Hero::default(), "lite reads NONE");
    if let Some(flatc) = flatc("flatc checks") {
        let dir = std::env::temp_dir().join(format!("serde-flatbuf-lite-rich-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let json = flatc_json(&flatc, &dir, &official_schema(), &bytes, "none");
        assert_eq!(json["equipped_type"], "NONE", "flatc (C++ verifier) reads it");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn official_root_as_hero_with_the_identifier_check() {
    let opts = rich_opts().file_identifier(*b"RICH");
    let bytes = opts.to_vec(&full_hero()).unwrap();
    let h = fb::root_as_hero(&bytes).unwrap();
    assert!(fb::hero_buffer_has_identifier(&bytes));
    assert_same(&hero(h), &full_hero(), "root_as_hero");
}

#[test]
fn keyed_vectors_written_by_lite_are_sorted_for_lookup_by_key() {
    let opts = rich_opts();
    let h = full_hero();
    let bytes = opts.to_vec(&h).unwrap();
    let official = flatbuffers::root::<fb::Hero<'_>>(&bytes).unwrap();
    let stats = official.stat_map().unwrap();
    let keys: Vec<&str> = stats.iter().map(|s| s.key()).collect();
    assert_eq!(keys, ["", "agility", "strength"]);
    assert_eq!(stats.lookup_by_key("strength", |s, k| s.key_compare_with_value(k)).map(|s| s.value()), Some(-2));
    assert!(stats.lookup_by_key("missing", |s, k| s.key_compare_with_value(k)).is_none());
    let slots = official.slot_map().unwrap();
    let found = slots.lookup_by_key(65535u16, |s, k| s.key_compare_with_value(*k)).unwrap();
    assert_eq!(found.value().unwrap().name(), Some("boots"));
    let items = official.items().unwrap();
    assert_eq!(items.lookup_by_key(7u32, |i, k| i.key_compare_with_value(*k)).unwrap().name(), Some("pear"));
}

#[test]
fn the_deprecated_slot_is_never_written_and_ignored_when_present() {
    // Lite leaves slot 15 (old_score) empty ...
    let bytes = rich_opts().to_vec(&full_hero()).unwrap();
    let table = flatbuffers::root::<fb::Hero<'_>>(&bytes).unwrap()._tab;
    // SAFETY-free check: the vtable entry of slot 15 is 0 (absent). `vtable().get` is a safe accessor.
    assert_eq!(table.vtable().get(4 + 2 * 15), 0);
    // ... and reads past a value an old writer put there (an int in slot 15).
    let mut b = FlatBufferBuilder::new();
    let name = b.create_string("old");
    let start = b.start_table();
    b.push_slot_always(4, name);
    b.push_slot::<i32>(4 + 2 * 15, 12345, 0);
    b.push_slot::<u8>(4 + 2 * 5, 9, 1);
    let root = b.end_table(start);
    b.finish_minimal(root);
    let lite: Hero = rich_opts().from_slice(b.finished_data()).unwrap();
    assert_same(&lite, &Hero { name: Some("old".into()), level: 9, ..Hero::default() }, "deprecated slot set");
}

/// `-0.0` in a table field whose default is 0: the official builder compares with `==` and leaves it out,
/// so every reader sees `+0.0`; lite writes it unless `omit_zero_scalars`, which matches the builder.
#[test]
fn negative_zero_in_a_zero_default_float_field() {
    let w = Weapon { name: None, damage: 10, range: -0.0 };
    let h = Hero { weapons: Some(vec![w.clone()]), ..Hero::default() };
    let official = Build::default().hero_buffer(&h);
    let read = official_hero(&official, false);
    assert_eq!(read.weapons.as_ref().unwrap()[0].range.to_bits(), 0.0f32.to_bits(), "builder drops -0.0");
    let lite: Hero = rich_opts().from_slice(&official).unwrap();
    assert_same(&lite, &read, "lite reads the official buffer like the official reader");
    let ours = rich_opts().to_vec(&h).unwrap();
    assert_same(&official_hero(&ours, false), &h, "lite keeps -0.0 (like force_defaults)");
    let omitted = rich_opts().omit_zero_scalars(true).to_vec(&h).unwrap();
    let a = official_hero(&omitted, false);
    let b: Hero = rich_opts().from_slice(&omitted).unwrap();
    assert_same(&b, &a, "omit_zero_scalars: both readers agree");
}

// ------------------------------------------------------------------------------------------------
// schema evolution

fn v1() -> PlayerV1 {
    PlayerV1 { id: 7, name: Some("old timer".into()), hp: 80, legacy: -99 }
}

fn v2() -> PlayerV2 {
    PlayerV2 {
        id: 8,
        name: Some("newcomer".into()),
        hp: 100,
        legacy: Deprecated,
        title: Some("Sir".into()),
        mana: 0,
        rank: Rarity::Junk,
        pos: Some(vec3(1.0, 2.0, 3.0)),
        guilds: Some(vec!["a".into(), "b".into()]),
        pet_type: UnionType,
        pet: Some(Equipment::Potion(Potion { heal: 1, uses: 2 })),
        stats: Some(Stats { hp: 1, ..Stats::default() }),
        opt_gold: Some(0),
    }
}

fn v2_sparse() -> PlayerV2 {
    PlayerV2 { title: None, guilds: None, pet: None, pos: None, stats: None, opt_gold: None, ..v2() }
}

#[test]
fn old_reader_new_writer() {
    for p in [v2(), v2_sparse()] {
        // lite V2 and official V2 → official V1 reader and lite V1 reader.
        check_evolution(&p, &PlayerV1::from_v2(&p), Build::player_v2_buffer, official_player_v1);
    }
}

#[test]
fn new_reader_old_writer() {
    for p in [v1(), PlayerV1 { id: 0, name: None, hp: 100, legacy: 0 }] {
        // lite V1 and official V1 (with `legacy` set: the V2 reader skips the deprecated slot) → both V2 readers.
        check_evolution(&p, &PlayerV2::from_v1(&p), Build::player_v1_buffer, official_player_v2);
    }
}

#[test]
fn same_version_both_ways() {
    for p in [v2(), v2_sparse()] {
        let bytes = rich_opts().to_vec(&p).unwrap();
        assert_same(&official_player_v2(&bytes), &p, "official V2 reads lite V2");
        let official = Build::default().player_v2_buffer(&p);
        assert_same(&rich_opts().from_slice::<PlayerV2>(&official).unwrap(), &p, "lite V2 reads official V2");
    }
    let bytes = rich_opts().to_vec(&v1()).unwrap();
    assert_same(&official_player_v1(&bytes), &v1(), "official V1 reads lite V1");
    let official = Build::default().player_v1_buffer(&v1());
    assert_same(&rich_opts().from_slice::<PlayerV1>(&official).unwrap(), &v1(), "lite V1 reads official V1");
}

// ------------------------------------------------------------------------------------------------
// flatc: lite's emitted schema, and flatc's own (C++) reader on lite's buffers

/// flatc's JSON of `buffer` read with `schema` (a file).
fn flatc_json(flatc: &Path, dir: &Path, schema: &Path, buffer: &[u8], name: &str) -> serde_json::Value {
    let bin = dir.join(format!("{name}.bin"));
    std::fs::write(&bin, buffer).unwrap();
    run(Command::new(flatc)
        .args(["--json", "--strict-json", "--defaults-json", "--raw-binary", "-o"])
        .arg(dir)
        .arg(schema)
        .arg("--")
        .arg(&bin));
    serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.json"))).unwrap()).unwrap()
}

fn official_schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/flatbuf-oracle/schemas/rich.fbs")
}

#[test]
fn flatc_accepts_the_emitted_schema_and_reads_lite_buffers() {
    let Some(flatc) = flatc("flatc checks") else { return };
    let dir = std::env::temp_dir().join(format!("serde-flatbuf-lite-rich-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = rich_opts();
    for (name, fbs) in [
        ("hero", Schema::trace::<Hero>(&opts).unwrap().namespace("Rich.Game").to_fbs()),
        ("player_v1", Schema::trace::<PlayerV1>(&opts).unwrap().namespace("Rich.Game").to_fbs()),
        ("player_v2", Schema::trace::<PlayerV2>(&opts).unwrap().namespace("Rich.Game").to_fbs()),
    ] {
        let path = dir.join(format!("{name}.fbs"));
        std::fs::write(&path, &fbs).unwrap();
        for lang in ["--rust", "--cpp", "--python"] {
            run(Command::new(&flatc).arg(lang).arg("-o").arg(dir.join("gen")).arg(&path));
        }
        for line in ["hp:short = 100;", "= null;", "(deprecated)"] {
            if name != "player_v1" {
                assert!(fbs.contains(line), "{line} missing from {name}'s schema:\n{fbs}");
            }
        }
    }
    // The same lite buffer through flatc with lite's schema and with the official one: same JSON where the
    // schemas agree on names (lite's schema names enums by the integer type when the Rust side serializes an
    // integer, so compare the official schema's reading against the value instead).
    // flatc prints non-finite floats as `inf`/`nan`, which is not JSON.
    let hero = Hero { scores: Some(vec![1.5, -0.0, 1e300]), ..full_hero() };
    let bytes = opts.to_vec(&hero).unwrap();
    let with_lite = flatc_json(&flatc, &dir, &dir.join("hero.fbs"), &bytes, "lite_schema");
    let with_official = flatc_json(&flatc, &dir, &official_schema(), &bytes, "official_schema");
    for key in ["name", "pos", "level", "xp", "hp_opt", "shield_opt", "ratio_opt", "inventory", "tags", "path", "flags"]
    {
        assert_eq!(with_lite[key], with_official[key], "{key}");
    }
    assert_eq!(with_official["rarity"], "Junk");
    assert_eq!(with_official["layer"], "Under");
    assert_eq!(with_official["epoch"], "After");
    assert_eq!(with_official["slots"]["ids"], serde_json::json!([1, 65535, 300]));
    assert_eq!(with_official["slots"]["colors"], serde_json::json!(["Green", "Blue"]));
    assert_eq!(with_official["bounds"]["layer"], "Under");
    assert_eq!(with_official["equipped_type"], "Spell");
    assert_eq!(with_official["equipped"]["targets"][1], serde_json::json!({"x": 0.5, "y": 0.25}));
    assert_eq!(with_official["offhand_type"], "Offhand");
    assert_eq!(with_official["stat_map"][1], serde_json::json!({"key": "agility", "value": 7}));
    assert_eq!(with_official["slot_map"][2]["value"]["name"], "boots");
    assert_eq!(with_official["companion"]["equipped_type"], "Potion");
    assert_eq!(with_official["temperature"], -40.0);
    assert!(with_official.get("old_score").is_none(), "deprecated field in JSON");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One table object referenced from four places (a vector twice, both unions under different members) and
/// one string from three: FlatBuffers allows sharing, the official builder makes it easy, and lite reads
/// every reference as its own copy.
#[test]
fn official_buffers_sharing_tables_and_strings_decode_in_lite() {
    let mut b = FlatBufferBuilder::new();
    let shared = b.create_string("shared");
    let w = fb::Weapon::create(&mut b, &fb::WeaponArgs { name: Some(shared), damage: 4, range: 2.0 });
    let weapons = b.create_vector(&[w, w]);
    let tags = b.create_vector(&[shared, shared]);
    let root = fb::Hero::create(
        &mut b,
        &fb::HeroArgs {
            name: Some(shared),
            tags: Some(tags),
            weapons: Some(weapons),
            equipped_type: fb::Equipment::Weapon,
            equipped: Some(w.as_union_value()),
            offhand_type: fb::Equipment::Offhand,
            offhand: Some(w.as_union_value()),
            ..fb::HeroArgs::default()
        },
    );
    b.finish(root, None);
    let bytes = b.finished_data();
    let weapon = Weapon { name: Some("shared".into()), damage: 4, range: 2.0 };
    let expected = Hero {
        name: Some("shared".into()),
        tags: Some(vec!["shared".into(), "shared".into()]),
        weapons: Some(vec![weapon.clone(), weapon.clone()]),
        equipped: Some(Equipment::Weapon(weapon.clone())),
        offhand: Some(Equipment::Offhand(weapon)),
        ..Hero::default()
    };
    assert_same(&official_hero(bytes, false), &expected, "official reader");
    assert_same(&rich_opts().from_slice::<Hero>(bytes).unwrap(), &expected, "lite");
}
