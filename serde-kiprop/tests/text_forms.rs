//! The text forms: katsuba-shaped JSON and the XML debug form (snapshots and round trips), plus
//! readable hex dumps of encoded blobs.

mod common;

use common::*;
use serde::{Deserialize, Serialize};
use serde_kiprop::{Options, Value, xml};

#[test]
fn xml_round_trips_every_fixture_value() {
    let cases =
        [(katsuba_types(), "katsuba", KATSUBA_OK.to_vec()), (generated_types(), "generated", GENERATED.to_vec())];
    for (types, dir, names) in cases {
        for name in names {
            let bytes = read(&format!("{dir}/{name}.bin"));
            let mut opts = config(&format!("{dir}/{name}.config.json"));
            if name == "deprecated-shallow" {
                opts = opts.skip_deprecated(false);
            }
            let value: Value = opts.from_slice(&bytes, &types).unwrap();
            let text = xml::to_string(&value, &types).unwrap();
            let back = xml::from_str(&text, &types).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(back, value, "{name}\n{text}");
        }
    }
}

#[test]
fn xml_snapshot_of_the_generated_root() {
    let types = generated_types();
    let mut value: Value = config("generated/shallow-flags01.config.json")
        .from_slice(&read("generated/shallow-flags01.bin"), &types)
        .unwrap();
    // Keep the snapshot short: three ids instead of 300.
    if let Value::Object(o) = &mut value {
        for (k, v) in &mut o.properties {
            if k == "m_ids" {
                *v = Value::List(vec![Value::Int(0), Value::Int(1), Value::Int(299)]);
            }
        }
    }
    insta::assert_snapshot!(xml::to_string(&value, &types).unwrap());
}

#[test]
fn xml_reader_tolerates_declarations_comments_and_keys() {
    let types = katsuba_types();
    let text = r#"<?xml version="1.0"?>
<!-- a KI-style asset -->
<Objects>
<Class Name="class NestedLists">
  <m_elements key="0"><Class Name="class ListElement"><m_id>7</m_id><m_name>a &amp; b</m_name></Class></m_elements>
  <m_elements key="1">0</m_elements>
  <m_depth>2</m_depth>
</Class>
</Objects>"#;
    let v = xml::from_str(text, &types).unwrap();
    assert_eq!(
        to_json(&v),
        serde_json::json!({"$__type": "class NestedLists", "m_elements": [
            {"$__type": "class ListElement", "m_id": 7, "m_name": "a & b"}, null], "m_depth": 2})
    );
    for bad in
        ["<Objects>", "<Objects><Class Name=\"class Nope\"/></Objects>", "<A></B>", "<Objects><Class/></Objects>"]
    {
        assert!(xml::from_str(bad, &types).is_err(), "{bad}");
    }
    let deep = "<a>".repeat(100_000);
    assert!(xml::from_str(&deep, &types).is_err());
}

#[test]
fn json_is_shaped_like_katsubas() {
    let types = katsuba_types();
    let v: Value =
        config("katsuba/nested-object.config.json").from_slice(&read("katsuba/nested-object.bin"), &types).unwrap();
    insta::assert_snapshot!(v.to_json_pretty());
    // And reads back (JSON → Value → blob gives the same bytes).
    let back = Value::from_json(&v.to_json_pretty()).unwrap();
    assert_eq!(back, v);
    let bytes = read("katsuba/nested-object.bin");
    assert_eq!(Options::new().property_mask(7).flags(1).to_vec(&back, &types).unwrap(), bytes);
    // Binary strings use katsuba's {"$bytes_hex": …}.
    let v: Value =
        config("katsuba/binary-string.config.json").from_slice(&read("katsuba/binary-string.bin"), &types).unwrap();
    assert_eq!(to_json(&v)["m_data"], serde_json::json!({"$bytes_hex": "000102fffefd8081"}));
    assert_eq!(Value::from_json(&v.to_json_pretty()).unwrap(), v);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class Outer")]
struct Outer {
    m_inner: Option<Inner>,
    m_count: u32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class Inner")]
struct Inner {
    m_value: u32,
    m_name: String,
}

#[test]
fn hex_dumps_of_shallow_and_deep_blobs() {
    let types = katsuba_types();
    let v = Outer { m_inner: Some(Inner { m_value: 42, m_name: "nested".into() }), m_count: 1 };
    let shallow = Options::new().property_mask(7).to_vec(&v, &types).unwrap();
    let deep = Options::new().deep(true).to_vec(&v, &types).unwrap();
    insta::assert_snapshot!(format!(
        "shallow:\n{}\ndeep:\n{}",
        testkit::hex::dump(&shallow),
        testkit::hex::dump(&deep)
    ));
    assert_eq!(Options::new().property_mask(7).from_slice::<Outer>(&shallow, &types).unwrap(), v);
    assert_eq!(Options::new().deep(true).from_slice::<Outer>(&deep, &types).unwrap(), v);
}
