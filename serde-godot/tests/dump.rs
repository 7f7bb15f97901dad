//! insta snapshots of `serde_godot::dump` over the real engine bytes in tests/data: every Godot 3
//! encoding made by the engine (with the engine's own `var2str` next to ours), the engine's decode
//! probes, its framings, and the Godot 4 vectors from the engine's test suite. The text form in
//! each dump of an engine encoding must be the engine's own `var2str` text (84 of the 89 cases;
//! the 5 objects carry a description instead).

use serde_godot::dump::{dump, dump_frames};
use serde_godot::framing::Framing;
use serde_godot::{Options, Version};
use serde_json::Value;
use std::fmt::Write as _;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// The text form in a dump of one Variant (its `text:` line and the continuation lines under it).
fn text_form(dump: &str) -> String {
    let column = " ".repeat(35);
    let mut lines = dump.lines().skip_while(|l| !l.starts_with(&format!("{column}text: ")));
    let first = lines.next().unwrap_or_default().trim_start().trim_start_matches("text: ").to_owned();
    let rest = lines.map_while(|l| l.strip_prefix(&format!("{column}      ")));
    std::iter::once(first).chain(rest.map(str::to_owned)).collect::<Vec<_>>().join("\n")
}

#[test]
fn godot3_engine_encodings() {
    let data = load("godot3_engine_vectors.json");
    let mut text = String::new();
    for case in data["cases"].as_array().unwrap() {
        let bytes = testkit::hex::decode(str_of(case, "hex"));
        let full = case["full_objects"].as_bool().unwrap();
        let opts = Options::new().version(Version::Godot3).full_objects(full);
        let d = dump(&bytes, &opts);
        let name = str_of(case, "name");
        assert!(d.error().is_none(), "{name}: {d}");
        // The text form is the engine's own var2str (the fixture's objects carry a description
        // instead: "Object Reference").
        if !name.starts_with("object_") {
            assert_eq!(text_form(d.as_str()), str_of(case, "value_var2str"), "{name}");
        }
        let _ = writeln!(text, "== {name} (engine var2str: {})\n{d}", str_of(case, "value_var2str"));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn godot3_engine_decode_probes() {
    let data = load("godot3_engine_vectors.json");
    let mut text = String::new();
    for probe in data["decode_probes"].as_array().unwrap() {
        let bytes = testkit::hex::decode(str_of(probe, "input_hex"));
        let opts = Options::new().version(Version::Godot3).full_objects(probe["allow_objects"].as_bool().unwrap());
        let d = dump(&bytes, &opts);
        // The dump stops exactly where our decoder does.
        let decoded = serde_godot::Variant::from_bytes(&bytes, &opts);
        assert_eq!(d.error().map(|e| e.to_string()), decoded.err().map(|e| e.to_string()), "{d}");
        let engine_ok = probe["engine_decoded_ok"].as_bool().unwrap();
        let verdict = if engine_ok { format!("ok, {}", str_of(probe, "engine_var2str")) } else { "error".into() };
        let _ = writeln!(text, "== {} (engine: {verdict})\n{d}", str_of(probe, "name"));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn godot3_engine_framings() {
    let data = load("godot3_engine_vectors.json");
    let framing = &data["framing"];
    let opts = Options::new().version(Version::Godot3);
    let mut text = String::new();
    for (key, f) in [
        ("var2bytes", Framing::Datagram),
        ("StreamPeer.put_var", Framing::StreamPeer),
        ("StreamPeer.put_var_big_endian_true", Framing::StreamPeerBigEndian),
        ("PacketPeerStream.put_var_over_StreamPeerBuffer", Framing::PacketPeerStream),
    ] {
        let one = testkit::hex::decode(str_of(framing, key));
        // A stream holds several frames; a datagram is one Variant.
        let bytes = if f == Framing::Datagram { one } else { [one.clone(), one].concat() };
        let d = dump_frames(&bytes, &opts, f);
        assert!(d.error().is_none(), "{key}: {d}");
        let _ = writeln!(text, "== {key} ({f:?})\n{d}");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn godot4_test_marshalls() {
    let data = load("godot4_test_marshalls.json");
    let mut text = String::new();
    for v in data["vectors"].as_array().unwrap() {
        let kind = str_of(v, "kind");
        if !kind.starts_with("variant_") {
            continue;
        }
        let bytes = testkit::hex::decode(str_of(v, "hex"));
        let d = dump(&bytes, &Options::new());
        assert_eq!(d.error().is_some(), kind == "variant_decode_error", "{}: {d}", str_of(v, "name"));
        let _ = writeln!(text, "== {} ({})\n{d}", str_of(v, "name"), str_of(v, "description of value"));
    }
    insta::assert_snapshot!(text);
}
