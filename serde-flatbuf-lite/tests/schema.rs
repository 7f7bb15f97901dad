//! Schema emission (issue deliverable 5): the `.fbs` schemas lite prints for Rust types, as snapshots; and,
//! when flatc is installed, flatc compiles them and reads lite's buffers with them (`flatc --json`), which
//! proves the layout other languages' generated code will see. Without flatc those checks print a loud
//! SKIPPED line (`.ci/run` installs flatc, so CI runs them).

mod common;

use common::flatc::{flatc, run};

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{Options, Schema, UnionType};

/// A type exercising the layout corners: nested tuples whose alignment exceeds their first member's,
/// arrays, 128-bit integers, chars, maps, a union with a struct variant, bytes, optional scalars.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Tricky {
    a: u8,
    nested: (u8, (u16, u64), [i8; 3]),
    wide: i128,
    letter: char,
    stats: std::collections::BTreeMap<String, i64>,
    kind_type: UnionType,
    kind: Option<Shape>,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    maybe: Option<u16>,
    pairs: Vec<(u8, f64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Shape {
    Circle { radius: f32 },
    Named(Named),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Named {
    label: String,
}

fn tricky() -> Tricky {
    Tricky {
        a: 7,
        nested: (1, (2, 3), [-1, -2, -3]),
        wide: -170141183460469231731687303715884105728,
        letter: 'λ',
        stats: [("gold".to_owned(), 1250), ("kills".to_owned(), -3)].into(),
        kind_type: UnionType,
        kind: Some(Shape::Circle { radius: 2.5 }),
        blob: vec![9, 8, 7],
        maybe: Some(0),
        pairs: vec![(1, 0.5), (2, -1.25)],
    }
}

#[test]
fn monster_schema() {
    let schema = Schema::trace::<Monster>(&monster_opts()).unwrap().namespace("MyGame.Sample");
    insta::assert_snapshot!("monster_fbs", schema.to_fbs());
}

#[test]
fn ext_schema() {
    let schema = Schema::trace::<Root>(&ext_opts()).unwrap().namespace("Lite.Test");
    insta::assert_snapshot!("ext_root_fbs", schema.to_fbs());
    let ids = Schema::trace::<WithIds>(&ext_opts()).unwrap().namespace("Lite.Test");
    insta::assert_snapshot!("ext_withids_fbs", ids.to_fbs());
}

#[test]
fn tricky_schema() {
    let schema = Schema::trace::<Tricky>(&Options::new().file_identifier(*b"TRKY")).unwrap();
    insta::assert_snapshot!("tricky_fbs", schema.to_fbs());
}

#[test]
fn tricky_round_trips_including_the_ambiguous_nested_struct() {
    // `(u16, u64)` is 8-aligned but starts with a 2-byte member: the decoder cannot know its offset
    // before reading it, detects that, traces the type once and decodes again.
    let bytes = serde_flatbuf_lite::to_vec(&tricky()).unwrap();
    assert_eq!(serde_flatbuf_lite::from_slice::<Tricky>(&bytes).unwrap(), tricky());
    // The low-level Deserializer cannot retry: it reports the ambiguity.
    let mut de = serde_flatbuf_lite::Deserializer::from_slice(&bytes);
    let err = Tricky::deserialize(&mut de).unwrap_err();
    assert_eq!(err.kind(), serde_flatbuf_lite::ErrorKind::AmbiguousStructLayout);
}

#[test]
fn schemas_of_unsupported_types_are_errors() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    enum Data {
        A(u32),
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct NoPlaceholder {
        d: Data,
    }
    assert!(Schema::trace::<NoPlaceholder>(&Options::new()).is_err());
    assert!(Schema::trace::<(u8, u8)>(&Options::new()).is_err(), "the root must be a table");
}

// ------------------------------------------------------------------------------------------------
// flatc

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("serde-flatbuf-lite-schema-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// flatc compiles the schema to Rust, C++ and Python, and prints `buffer` as JSON with it.
fn flatc_reads(flatc: &Path, name: &str, schema: &Schema, buffer: &[u8]) -> serde_json::Value {
    let dir = scratch(name);
    let fbs = dir.join(format!("{name}.fbs"));
    std::fs::write(&fbs, schema.to_fbs()).unwrap();
    for lang in ["--rust", "--cpp", "--python"] {
        run(Command::new(flatc).arg(lang).arg("-o").arg(dir.join("gen")).arg(&fbs));
    }
    let bin = dir.join(format!("{name}.bin"));
    std::fs::write(&bin, buffer).unwrap();
    run(Command::new(flatc)
        .args(["--json", "--strict-json", "--defaults-json", "--raw-binary", "-o"])
        .arg(&dir)
        .arg(&fbs)
        .arg("--")
        .arg(&bin));
    let json = std::fs::read(dir.join(format!("{name}.json"))).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_slice(&json).unwrap()
}

#[test]
fn flatc_compiles_emitted_schemas_and_reads_lite_buffers() {
    let Some(flatc) = flatc("schema checks") else { return };

    let monster = Schema::trace::<Monster>(&monster_opts()).unwrap().namespace("MyGame.Sample");
    let json = flatc_reads(&flatc, "monster", &monster, &monster_opts().to_vec(&seed_monster()).unwrap());
    assert_eq!(json["name"], "Orc");
    assert_eq!(json["mana"], 150);
    assert_eq!(json["hp"], 300);
    assert_eq!(json["pos"], serde_json::json!({"x": 1.0, "y": 2.0, "z": 3.0}));
    assert_eq!(json["equipped_type"], "Weapon");
    assert_eq!(json["equipped"], serde_json::json!({"name": "Axe", "damage": 5}));
    assert_eq!(json["weapons"][0]["name"], "Sword");
    assert_eq!(json["path"][0], serde_json::json!({"x": 4.0, "y": 5.0, "z": 6.0}));

    let root = Schema::trace::<Root>(&ext_opts()).unwrap();
    let value: Root = ext_opts().from_slice(&data("monster_seed/ext/root_full.bin")).unwrap();
    let json = flatc_reads(&flatc, "root", &root, &ext_opts().to_vec(&value).unwrap());
    assert_eq!(json["outer"]["p"], serde_json::json!({"a": 1, "b": 2, "c": 3, "d": 4.0}));
    assert_eq!(json["outers"][1]["p"]["d"], 12.0);
    assert_eq!(json["payload_type"], "Note");
    assert_eq!(json["child"]["child"]["name"], "grandkid");
    assert_eq!(json["longs"][3], i64::MAX);

    let ids = Schema::trace::<WithIds>(&ext_opts()).unwrap();
    let v: WithIds = ext_opts().from_slice(&data("monster_seed/ext/withids.bin")).unwrap();
    let json = flatc_reads(&flatc, "withids", &ids, &ext_opts().to_vec(&v).unwrap());
    assert_eq!((json["a"].as_i64(), json["b"].as_i64(), json["s"].as_str()), (Some(1), Some(2), Some("ids")));
    assert_eq!(json["u"]["label"], "x");

    let tricky_opts = Options::new().file_identifier(*b"TRKY");
    let schema = Schema::trace::<Tricky>(&tricky_opts).unwrap();
    let json = flatc_reads(&flatc, "tricky", &schema, &tricky_opts.to_vec(&tricky()).unwrap());
    assert_eq!(json["a"], 7);
    assert_eq!(json["nested"]["f0"], 1);
    assert_eq!(json["nested"]["f1"], serde_json::json!({"f0": 2, "f1": 3}));
    assert_eq!(json["nested"]["f2"]["v"], serde_json::json!([-1, -2, -3]));
    assert_eq!(json["wide"], serde_json::json!({"lo": 0, "hi": i64::MIN}));
    assert_eq!(json["letter"], u32::from('λ'));
    assert_eq!(json["stats"], serde_json::json!([{"key": "gold", "value": 1250}, {"key": "kills", "value": -3}]));
    assert_eq!(json["kind_type"], "Circle");
    assert_eq!(json["kind"], serde_json::json!({"radius": 2.5}));
    assert_eq!(json["blob"], serde_json::json!([9, 8, 7]));
    assert_eq!(json["maybe"], 0);
    assert_eq!(json["pairs"], serde_json::json!([{"f0": 1, "f1": 0.5}, {"f0": 2, "f1": -1.25}]));
}
