//! `TypeList::to_json`: a dump we write loads back to the same list, and katsuba (the 0.4.0
//! wheel, through `katsuba_oracle.py`) decodes every fixture with our dump exactly as it does with
//! the original one.

mod common;

use common::*;
use serde_kiprop::{ClassSchema, ErrorKind, PropertySchema, TypeList};

/// Everything a list says about its classes, in a comparable form.
fn describe(types: &TypeList) -> Vec<String> {
    let mut out: Vec<String> = types
        .classes()
        .iter()
        .flat_map(|c| {
            let head = format!("{} #{} bases {:?}", c.name(), c.hash(), c.bases());
            std::iter::once(head).chain(c.properties().iter().map(move |p| {
                format!(
                    "{}::{} id {} flags {:#x} type {:?} hash {} dynamic {} enum {:?}",
                    c.name(),
                    p.name(),
                    p.id(),
                    p.flags(),
                    p.type_name(),
                    p.hash(),
                    p.is_dynamic(),
                    p.enum_def()
                )
            }))
        })
        .collect();
    out.sort();
    out
}

const LISTS: [&str; 4] = [
    "katsuba/types.json",
    "generated/types.json",
    "typelists/katsuba-types_v1.json",
    "typelists/katsuba-types_v2.json",
];

#[test]
fn a_written_dump_loads_back_to_the_same_list() {
    for name in LISTS {
        let types = TypeList::from_path(data(name)).unwrap();
        let written = types.to_json().unwrap();
        assert!(written.starts_with("{\"version\": 2,"), "{name}: katsuba needs `version` first");
        let again = TypeList::from_json(&written).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(describe(&again), describe(&types), "{name}");
        assert_eq!(again.to_json().unwrap(), written, "{name}: writing is stable");
    }
}

#[test]
fn a_static_schema_without_type_strings_is_refused_by_name() {
    static ITEM: ClassSchema =
        ClassSchema::new("class Item", &[PropertySchema::new("m_id").ty("gid"), PropertySchema::new("m_name")]);
    let err = TypeList::from_schemas(&[&ITEM]).to_json().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TypeList(_)), "{err}");
    assert!(err.to_string().contains("class Item::m_name"), "{err}");
    static TYPED: ClassSchema = ClassSchema::new(
        "class Item",
        &[PropertySchema::new("m_id").ty("gid"), PropertySchema::new("m_name").ty("std::string")],
    );
    let types = TypeList::from_schemas(&[&TYPED]);
    let again = TypeList::from_json(&types.to_json().unwrap()).unwrap();
    assert_eq!(describe(&again), describe(&types));
}

#[test]
fn katsuba_decodes_every_fixture_with_our_dump() {
    let Some(python) = python_with_katsuba("katsuba_decodes_every_fixture_with_our_dump") else { return };
    let dir = std::env::temp_dir().join(format!("kiprop-typelist-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write_dump = |name: &str, types: TypeList| {
        let path = dir.join(name);
        std::fs::write(&path, types.to_json().unwrap()).unwrap();
        path
    };
    let katsuba_dump = write_dump("katsuba.json", katsuba_types());
    let generated_dump = write_dump("generated.json", generated_types());

    let mut cases = Vec::new();
    let mut case = |folder: &str, name: &str, expected: &str, dump: &std::path::Path| {
        let config = json(&format!("{folder}/{name}.config.json"));
        let mut expected = json(&format!("{folder}/{expected}"))["value"].clone();
        strip_hash(&mut expected);
        cases.push(serde_json::json!({
            "name": name, "file": data(&format!("{folder}/{name}.bin")), "types": [dump],
            "shallow": config["shallow"], "flags": config["flags"], "mask": config["property_mask"],
            "manual": config["compress"], "expected": expected,
        }));
    };
    for name in KATSUBA_OK.iter().filter(|n| **n != "deprecated-shallow") {
        case("katsuba", name, &format!("expected/{name}.json"), &katsuba_dump);
    }
    for name in GENERATED.iter().chain(&["shallow-delta-absent-manual-zlib"]) {
        case("generated", name, &format!("{name}.expected.json"), &generated_dump);
    }
    let count = cases.len();
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, serde_json::json!({"types": [katsuba_dump], "cases": cases}).to_string()).unwrap();
    let stdout = run_oracle(python, &manifest);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout.contains(&format!("{count} passed, 0 failed")), "{stdout}");
    eprintln!("katsuba with our dumps: {}", stdout.trim());
}
