//! Every Godot 4 test-suite vector (Godot 4 mode) and every real Godot 3.2.3 engine vector
//! (Godot 3 mode), both directions: decode to the right value, encode to identical bytes; and the
//! engine's decode probes accepted or rejected like the engine.

mod common;

use common::{hex, json, to_hex, var2str3};
use serde_godot::{Options, Variant, Version};

fn g3() -> Options {
    Options::new().version(Version::Godot3)
}

#[test]
fn godot3_engine_encodings_decode_to_the_engine_value_and_reencode_identically() {
    let fixture = json("godot3_engine_vectors.json");
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 89);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let opts = g3().full_objects(case["full_objects"].as_bool().unwrap());
        let bytes = hex(case["hex"].as_str().unwrap());
        let value = Variant::from_bytes(&bytes, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The engine zero-pads nothing in NodePath strings (godotengine/godot#44999); we write zeros.
        let expected = case.get("hex_padding_zeroed").and_then(|h| h.as_str()).unwrap_or(case["hex"].as_str().unwrap());
        let reencoded = value.to_bytes(&opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(to_hex(&reencoded), expected, "{name}: re-encoding");
        let text = case["value_var2str"].as_str().unwrap();
        match text {
            "Object Reference (instance id)" => assert!(matches!(value, Variant::Object(serde_godot::Object::Id(_)))),
            // A freed object is sent as plain null.
            "Object null" => assert_eq!(value, Variant::Nil, "{name}"),
            _ => assert_eq!(var2str3(&value), text, "{name}: decoded value"),
        }
    }
}

/// Probes whose verdict serde-godot deliberately does not share with the engine, with the reason.
const DIFFERENT_VERDICT: &[(&str, &str)] = &[
    // The engine checks that the class exists (ClassDB); serde-godot instantiates nothing and has
    // no class database, so it hands over the class name for the caller to judge.
    ("object_full_unknown_class", "accepted: no ClassDB to look the class up in"),
];

/// Probes decoded to the same value whose re-encoding deliberately differs, with the reason.
const DIFFERENT_REENCODING: &[(&str, &str)] = &[
    // The engine re-encodes the EncodedObjectAsID *wrapper object* it created, i.e. a fresh
    // instance id; serde-godot keeps the id that was sent.
    ("object_id_nonzero", "re-encodes the id that was sent, not a new wrapper's id"),
    // The engine instantiated a Reference and re-encodes all its default properties ("script");
    // serde-godot re-encodes the properties that were sent (none).
    ("object_full_allowed_Reference", "re-encodes the properties that were sent"),
];

#[test]
fn godot3_decode_probes_are_accepted_or_rejected_like_the_engine() {
    let fixture = json("godot3_engine_vectors.json");
    let probes = fixture["decode_probes"].as_array().unwrap();
    assert_eq!(probes.len(), 29);
    for probe in probes {
        let name = probe["name"].as_str().unwrap();
        let opts = g3().full_objects(probe["allow_objects"].as_bool().unwrap());
        let input = hex(probe["input_hex"].as_str().unwrap());
        // The harness decodes through StreamPeerBuffer.get_var, which ignores trailing bytes.
        let ours = Variant::take_from_bytes(&input, &opts);
        if let Some((_, why)) = DIFFERENT_VERDICT.iter().find(|(n, _)| *n == name) {
            eprintln!("{name}: known difference ({why})");
            continue;
        }
        let engine_ok = probe["engine_decoded_ok"].as_bool().unwrap();
        assert_eq!(ours.is_ok(), engine_ok, "{name}: ours {ours:?}");
        if let Ok((value, _)) = ours {
            assert_eq!(var2str3(&value), probe["engine_var2str"].as_str().unwrap(), "{name}: value");
            if let Some((_, why)) = DIFFERENT_REENCODING.iter().find(|(n, _)| *n == name) {
                eprintln!("{name}: known difference ({why})");
                continue;
            }
            let reencoded = value.to_bytes(&opts).unwrap();
            let engine = hex(probe["engine_reencoded_hex"].as_str().unwrap());
            assert!(common::same_modulo_nodepath_padding(&reencoded, &engine, &opts), "{name}: re-encoding");
        }
    }
}

#[test]
fn godot3_framing_examples() {
    use serde_godot::framing::{self, Framing};
    let fixture = json("godot3_engine_vectors.json");
    let framing_case = &fixture["framing"];
    let value = Variant::from([("a", 1)]);
    let hex_of = |key: &str| framing_case[key].as_str().unwrap().to_owned();
    assert_eq!(to_hex(&value.to_bytes(&g3()).unwrap()), hex_of("var2bytes"));
    for (framing, key) in [
        (Framing::StreamPeer, "StreamPeer.put_var"),
        (Framing::StreamPeerBigEndian, "StreamPeer.put_var_big_endian_true"),
        (Framing::StreamPeer, "File.store_var"),
        (Framing::PacketPeerStream, "PacketPeerStream.put_var_over_StreamPeerBuffer"),
    ] {
        let frame = framing::to_frame(&value, &g3(), framing).unwrap();
        assert_eq!(to_hex(&frame), hex_of(key), "{key}");
        let (back, used): (Variant, usize) = framing::decode_frame(&frame, &g3(), framing).unwrap().unwrap();
        assert_eq!((back, used), (value.clone(), frame.len()), "{key}");
    }
}

#[test]
fn godot4_test_suite_vectors() {
    let fixture = json("godot4_test_marshalls.json");
    let mut checked = 0;
    for v in fixture["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let bytes = hex(v["hex"].as_str().unwrap());
        let typed = name.starts_with("typed_");
        let opts = Options::new().typed_containers(typed);
        match v["kind"].as_str().unwrap() {
            "variant_encode" | "variant_decode" => {
                let (value, rest) = Variant::take_from_bytes(&bytes, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(bytes.len() - rest.len(), v["r_len"].as_u64().unwrap() as usize, "{name}: r_len");
                assert_eq!(value.to_bytes(&opts).unwrap(), bytes, "{name}: encoding");
                assert_eq!(value.to_string(), expected_godot4_value(name), "{name}: value");
                checked += 1;
            }
            "variant_decode_error" => {
                let err = Variant::from_bytes(&bytes, &opts).unwrap_err();
                assert_eq!(err.offset(), Some(0), "{name}: {err}");
                checked += 1;
            }
            // Helpers of the engine's test file (encode_uint16, encode_half, …), not Variants.
            _ => {}
        }
    }
    assert_eq!(checked, 16);
}

fn expected_godot4_value(name: &str) -> &'static str {
    let base = name.trim_end_matches("_encoding").trim_end_matches("_decoding");
    match base {
        "nil_variant" => "null",
        "int32_variant" => "305419896",
        "int64_variant" => "-1070935975390360081",
        "float_single_variant" => "0.15625",
        "float_double_variant" => "0.3333333333333333",
        "typed_array" => "Array[int]([-1070935975390360081])",
        "typed_dictionary" => "Dictionary[int, int]({\n-1070935975390360081: -1070935975390360081\n})",
        other => panic!("no expected value for {other}"),
    }
}

/// Regression (fuzz finding, `godot_roundtrip`): the null Object is sent as NIL, as Godot 4 and the
/// Godot 3 engine (`object_freed_*` above) send it, so as a Dictionary key it lands on the same
/// wire key as `null`, and decoding merges the two entries the way the engine's Dictionary does
/// (first position, last value). Godot 3 release builds' encodings of a null object (an OBJECT
/// with id 0, or an empty class name) decode to the same null Object.
#[test]
fn null_object_and_nil_keys_merge_like_the_engine() {
    use serde_godot::{Dictionary, Object};
    // Dictionary is type 27 in Godot 4, 18 in Godot 3.
    for (opts, dict_header) in [(Options::new(), "1b000000"), (g3(), "12000000"), (g3().full_objects(true), "12000000")]
    {
        let mut dict = Dictionary::new();
        dict.insert(Variant::Object(Object::Null), Variant::Int(1));
        dict.insert(Variant::Nil, Variant::Int(2));
        let value = Variant::Dictionary(Box::new(dict));
        let bytes = value.to_bytes(&opts).unwrap();
        assert_eq!(
            to_hex(&bytes),
            format!("{dict_header}02000000 00000000 02000000 01000000 00000000 02000000 02000000").replace(' ', "")
        );
        let back = Variant::from_bytes(&bytes, &opts).unwrap();
        assert_eq!(back.to_string(), "{\nnull: 2\n}");
        // From here on the encoding is a fixed point.
        let again = back.to_bytes(&opts).unwrap();
        assert_eq!(Variant::from_bytes(&again, &opts).unwrap().to_bytes(&opts).unwrap(), again);
    }
    for release_build_null in ["1100010000000000 00000000", "11000000 00000000"] {
        let opts = g3().full_objects(true);
        let value = Variant::from_bytes(&hex(&release_build_null.replace(' ', "")), &opts).unwrap();
        assert_eq!(value, Variant::Object(Object::Null), "{release_build_null}");
        assert_eq!(to_hex(&value.to_bytes(&opts).unwrap()), "00000000");
    }
}
