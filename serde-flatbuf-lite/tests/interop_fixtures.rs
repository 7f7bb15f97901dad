//! Interop with buffers written by other FlatBuffers implementations (issue deliverables 4a, 4b, 4e):
//! the seed document's C# buffer, every flatc-made fixture against its JSON twin, and the upstream
//! hand-corrupted buffers.

mod common;

use common::*;
use serde::Deserialize;
use serde_flatbuf_lite::{ErrorKind, Options, UnionType};

/// 4a: the C# builder's buffer (shared vtable with a negative soffset, a table shared by a vector and a
/// union, default `mana` absent) decodes to exactly the seed values.
#[test]
fn seed_csharp_buffer_decodes_to_the_seed_values() {
    let bytes = data("monster_seed/seed_csharp.bin");
    assert_eq!(bytes.len(), 196);
    let m: Monster = monster_opts().from_slice(&bytes).unwrap();
    assert_eq!(m.pos, Some(Vec3 { x: 1.0, y: 2.0, z: 3.0 }));
    assert_eq!(m.mana, 150, "absent: the schema default");
    assert_eq!(m.hp, 300);
    assert_eq!(m.name.as_deref(), Some("Orc"));
    assert_eq!(m.inventory, Some((0..10).collect::<Vec<u8>>()));
    assert_eq!(m.color, Color::Red);
    assert_eq!(
        m.weapons,
        Some(vec![Weapon { name: Some("Sword".into()), damage: 3 }, Weapon { name: Some("Axe".into()), damage: 5 }])
    );
    assert_eq!(m.equipped, Equipment::Weapon(Weapon { name: Some("Axe".into()), damage: 5 }));
    assert_eq!(m.path, Some(vec![Vec3 { x: 4.0, y: 5.0, z: 6.0 }, Vec3 { x: 1.0, y: 2.0, z: 3.0 }]));
    assert_eq!(m, seed_monster());
}

/// 4a, zero-copy: the same buffer into borrowing types.
#[test]
fn seed_csharp_buffer_decodes_zero_copy() {
    #[derive(Deserialize)]
    struct WeaponRef<'a> {
        name: &'a str,
        damage: i16,
    }
    #[derive(Deserialize)]
    enum EquipmentRef<'a> {
        #[serde(borrow)]
        Weapon(WeaponRef<'a>),
    }
    #[derive(Deserialize)]
    struct MonsterRef<'a> {
        _pos: serde::de::IgnoredAny,
        #[serde(default)]
        _mana: i16,
        _hp: i16,
        name: &'a str,
        _friendly: serde_flatbuf_lite::Deprecated,
        #[serde(with = "serde_bytes")]
        inventory: &'a [u8],
        _color: u8,
        #[serde(borrow)]
        weapons: Vec<WeaponRef<'a>>,
        _equipped_type: UnionType,
        #[serde(borrow)]
        equipped: EquipmentRef<'a>,
    }
    let bytes = data("monster_seed/seed_csharp.bin");
    let m: MonsterRef<'_> = serde_flatbuf_lite::from_slice(&bytes).unwrap();
    let inside = |s: &[u8]| bytes.as_ptr_range().contains(&s.as_ptr());
    assert!(inside(m.name.as_bytes()) && inside(m.inventory));
    assert_eq!(m.name, "Orc");
    assert_eq!(m.inventory, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(m.weapons[1].name, "Axe");
    assert!(inside(m.weapons[0].name.as_bytes()));
    let EquipmentRef::Weapon(w) = m.equipped;
    assert_eq!((w.name, w.damage, m.weapons[0].damage), ("Axe", 5, 3));
}

/// Decodes `bin` with lite and its JSON twin with serde_json (flatc's union form untagged), both into `T`.
fn check_twin<T>(opts: &Options, bin: &str, json_path: &str)
where
    T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = data(bin);
    let ours: T = opts.from_slice(&bytes).unwrap_or_else(|e| panic!("{bin}: {e}"));
    let mut twin = json(json_path);
    untag_unions(&mut twin);
    let expected: T = serde_json::from_value(twin).unwrap_or_else(|e| panic!("{json_path}: {e}"));
    assert_eq!(ours, expected, "{bin} differs from {json_path}");
}

/// 4b: every flatc-made fixture of the seed schema decodes to its JSON twin (defaults applied by serde).
#[test]
fn flatc_monster_fixtures_decode_to_their_json_twins() {
    let opts = monster_opts();
    for name in ["seed_csharp", "full", "minimal", "defaults_explicit", "empty_vectors"] {
        check_twin::<Monster>(&opts, &format!("monster_seed/{name}.bin"), &format!("monster_seed/{name}.json"));
    }
    // --force-defaults writes the default values instead of leaving them out: same value.
    check_twin::<Monster>(
        &opts,
        "monster_seed/defaults_explicit.force_defaults.bin",
        "monster_seed/defaults_explicit.json",
    );
    let minimal: Monster = opts.from_slice(&data("monster_seed/minimal.bin")).unwrap();
    assert_eq!((minimal.mana, minimal.hp, minimal.color), (150, 100, Color::Blue));
    assert_eq!(minimal.equipped, Equipment::Weapon(Weapon { name: None, damage: 0 }));
}

/// 4b: every flatc-made fixture of the extension schema (enum widths, padded and nested structs, vectors of
/// strings/tables/structs/enums, union NONE, optional scalar set to 0, deprecated slot, recursive table,
/// explicit ids) decodes to its JSON twin.
#[test]
fn flatc_ext_fixtures_decode_to_their_json_twins() {
    let opts = ext_opts();
    for name in ["root_empty", "root_union_none", "root_defaults_and_null", "root_full", "root_empty_vectors"] {
        check_twin::<Root>(&opts, &format!("monster_seed/ext/{name}.bin"), &format!("monster_seed/ext/{name}.json"));
    }
    check_twin::<WithIds>(&opts, "monster_seed/ext/withids.bin", "monster_seed/ext/withids.json");

    let full: Root = opts.from_slice(&data("monster_seed/ext/root_full.bin")).unwrap();
    assert_eq!(full.outer.unwrap().p.d, 4.0);
    assert_eq!(full.child.as_ref().unwrap().child.as_ref().unwrap().name.as_deref(), Some("grandkid"));
    let zero: Root = opts.from_slice(&data("monster_seed/ext/root_defaults_and_null.bin")).unwrap();
    assert_eq!(zero.opt_i32, Some(0), "an optional scalar set to 0 is present");
    let empty: Root = opts.from_slice(&data("monster_seed/ext/root_empty.bin")).unwrap();
    assert_eq!(empty, Root::default());
}

/// The negative seed case: flatc refuses a Monster without its required union; lite's mirror makes the
/// union a plain (required) field, so an empty table is a serde "missing field" error.
#[test]
fn missing_required_union_is_an_error() {
    let empty = data("monster_seed/ext/root_empty.bin");
    let err = monster_opts().from_slice::<Monster>(&empty).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Message);
    assert!(err.to_string().contains("equipped"), "{err}");
}

/// 4e: the hand-corrupted upstream buffers (each breaks one offset or length of `annotated_binary.bin`)
/// are rejected with an error, never a panic, when decoded as the schema's `Foo` as far as lite can mirror
/// it; the uncorrupted original decodes. The two that only change the vtable's table-size entry are the
/// exception: `flatc --annotate` flags them, but neither official verifier (Rust, C++) reads that entry,
/// so they are valid buffers and lite accepts them too (issue 13 item 4; `rich_verifier_parity.rs`).
#[test]
fn corrupted_upstream_buffers_are_rejected() {
    let dir = format!("{}/tests/data/upstream/corrupted", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("invalid_") && n.ends_with(".bin"))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "{names:?}");
    let opts = annotated::opts();
    let good = std::fs::read(format!("{dir}/annotated_binary.bin")).unwrap();
    let foo: annotated::Foo = opts.from_slice(&good).expect("the uncorrupted original decodes");
    assert_eq!(foo.name.as_deref(), Some("This is a long string to show how it breaks up."));
    const TABLE_SIZE_ONLY: [&str; 2] = ["invalid_vtable_ref_table_size.bin", "invalid_vtable_ref_table_size_short.bin"];
    for name in &names {
        let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
        let result = std::panic::catch_unwind(|| opts.from_slice::<annotated::Foo>(&bytes));
        match result {
            Ok(Err(e)) if TABLE_SIZE_ONLY.contains(&name.as_str()) => panic!("{name}: {e}"),
            Ok(Err(e)) => eprintln!("{name}: {e}"),
            Ok(Ok(_)) if TABLE_SIZE_ONLY.contains(&name.as_str()) => {}
            Ok(Ok(_)) => panic!("{name} was accepted"),
            Err(_) => panic!("{name} panicked"),
        }
    }
}

/// A mirror of `annotated_binary.fbs`'s root `Foo` up to the fields lite can express (the vector of unions
/// `foobars` and the struct-member union `measurement`/`anything` are left out; their slots are simply not
/// read).
#[allow(dead_code)]
mod annotated {
    use serde::Deserialize;
    use serde_flatbuf_lite::{Options, UnionType};

    pub(crate) fn opts() -> Options {
        Options::new()
            .inline_struct("Building")
            .inline_struct("Dimension")
            .inline_struct("Location")
            .inline_struct("Tolerance")
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Baz {
        pub(crate) meal: Option<i8>,
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Bar {
        pub(crate) a: Option<f64>,
        pub(crate) b: Option<f32>,
        pub(crate) c: Option<Baz>,
    }

    #[derive(Debug, Deserialize)]
    pub(crate) enum BarBaz {
        Bar(Bar),
        Baz(Baz),
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Tolerance {
        pub(crate) width: u8,
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Dimension {
        pub(crate) values: [i32; 3],
        pub(crate) tolerances: [Tolerance; 3],
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Building {
        pub(crate) floors: i32,
        pub(crate) doors: i32,
        pub(crate) windows: i32,
        pub(crate) dimensions: Dimension,
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Location {
        pub(crate) latitude: f64,
        pub(crate) longitude: f64,
    }

    #[derive(Debug, Deserialize)]
    pub(crate) struct Foo {
        pub(crate) counter: Option<i32>,
        pub(crate) healthy: Option<bool>,
        pub(crate) level: Option<i64>,
        pub(crate) meal: Option<i8>,
        pub(crate) bar: Option<Bar>,
        pub(crate) home: Option<Building>,
        pub(crate) name: Option<String>,
        pub(crate) bars: Option<Vec<Bar>>,
        pub(crate) bar_baz_type: UnionType,
        pub(crate) bar_baz: Option<BarBaz>,
        pub(crate) accounts: Option<Vec<u16>>,
        pub(crate) bob: Option<String>,
        pub(crate) alice: Option<String>,
        pub(crate) maybe_i32: Option<i32>,
        pub(crate) default_i32: Option<i32>,
        pub(crate) just_i32: Option<i32>,
        pub(crate) names: Option<Vec<String>>,
        pub(crate) points_of_interest: Option<Vec<Location>>,
        // A vector of unions is two parallel vectors; lite reads the type vector and verifies every table.
        pub(crate) foobars_type: Option<Vec<Tag<2>>>,
        pub(crate) foobars: Option<Vec<AnyTable>>,
        // Unions of structs are not lite's (nor Rust's) model: check the type, leave the value.
        pub(crate) measurement_type: Option<Tag<2>>,
        pub(crate) measurement: Option<serde::de::IgnoredAny>,
        pub(crate) anything_type: Option<Tag<2>>,
        pub(crate) anything: Option<serde::de::IgnoredAny>,
        pub(crate) temperature: Option<f32>,
        pub(crate) teetotaler: Option<Bar>,
        pub(crate) charlie: Option<String>,
    }

    /// Any table, verified but not read.
    #[derive(Debug, Deserialize)]
    pub(crate) struct AnyTable {}

    /// A union type byte with `N` members (0 = NONE).
    #[derive(Debug, Deserialize)]
    #[serde(try_from = "u8")]
    pub(crate) struct Tag<const N: u8>(u8);

    impl<const N: u8> TryFrom<u8> for Tag<N> {
        type Error = String;
        fn try_from(v: u8) -> Result<Self, String> {
            if v <= N { Ok(Tag(v)) } else { Err(format!("union type {v} is not one of the {N} members")) }
        }
    }
}
