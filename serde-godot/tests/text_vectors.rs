//! The text form against recorded engine output: Godot 3.2.3's `var2str` / `str2var` /
//! ConfigFile observations (`godot3_text_vectors.json`, made by the real engine), and Godot 4's
//! writer rules and unit-test strings (`godot4_text_vectors.json`: Grisu2 float digits, layouts,
//! transcribed tests; see tests/data/PROVENANCE.md).

mod common;

use common::{hex, json, same_modulo_nodepath_padding, to_hex};
use serde_godot::text::{variant_from_str, variant_to_string};
use serde_godot::{Options, Variant, Version};

fn g3() -> Options {
    Options::new().version(Version::Godot3).full_objects(true)
}

fn g4() -> Options {
    Options::new().full_objects(true)
}

/// Every engine-printed case: decoding the engine's bytes and printing gives the engine's text.
#[test]
fn godot3_var2str_cases() {
    let fixture = json("godot3_text_vectors.json");
    let mut checked = 0;
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let Some(text) = case["text"].as_str() else { continue };
        // The engine prints a saved Resource by its path, which the binary form does not carry.
        // The engine prints a script by its path and adds the script's variables; the binary form
        // carries the script's source instead.
        if name == "object_resource_with_path" || name == "object_script_instance" {
            continue;
        }
        let bytes = hex(case["bytes_hex"].as_str().unwrap());
        let v = Variant::from_bytes(&bytes, &g3()).unwrap();
        let ours = variant_to_string(&v, Version::Godot3).unwrap();
        assert_eq!(ours, text, "{name}");
        checked += 1;
    }
    assert!(checked >= 200, "{checked}");
}

/// The engine's text read back: we give the engine's value wherever the engine reads its own
/// text back (and every exactly-round-tripping case must round-trip with us too).
#[test]
fn godot3_str2var_cases() {
    let fixture = json("godot3_text_vectors.json");
    let (mut same, mut float_rounding, mut refused) = (0, 0, 0);
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let Some(text) = case["text"].as_str() else { continue };
        let roundtrip = case["roundtrip"].as_str().unwrap();
        if roundtrip == "parse_failed" || name == "object_resource_with_path" || name == "object_script_instance" {
            continue;
        }
        let v = match variant_from_str(text, &g3()) {
            Ok(v) => v,
            // `-inf.0` / `-nan.0`: Godot 3 reads them as the int 0 (tokens `-`, then ignored text).
            Err(e) if roundtrip == "lossy" && (text.starts_with("-inf") || text.starts_with("-nan")) => {
                eprintln!("{name}: {text:?} refused: {e}");
                refused += 1;
                continue;
            }
            Err(e) => panic!("{name}: {text:?}: {e}"),
        };
        let ours = v.to_bytes(&g3()).unwrap();
        let engine = case["parsed_bytes_hex"].as_str().unwrap();
        if same_modulo_nodepath_padding(&ours, &hex(engine), &g3()) {
            same += 1;
            continue;
        }
        // Only lossy float texts may differ, by our correct rounding: check that the engine's
        // value is not the correctly rounded one and ours is.
        assert_eq!(roundtrip, "lossy", "{name}: {text:?} ours {} engine {engine}", to_hex(&ours));
        let engine_v = Variant::from_bytes(&hex(engine), &g3()).unwrap();
        assert_eq!(
            variant_to_string(&engine_v, Version::Godot3).unwrap(),
            variant_to_string(&v, Version::Godot3).unwrap()
        );
        float_rounding += 1;
    }
    eprintln!("str2var cases: {same} equal, {float_rounding} differ by float rounding only, {refused} refused");
    assert!(same > 150);
}

/// 821 float texts: ours equal the engine's wherever the engine rounds correctly, and are the
/// correctly rounded value everywhere.
#[test]
fn godot3_float_parse() {
    let fixture = json("godot3_text_vectors.json");
    let (mut same, mut differ) = (0, 0);
    for case in fixture["float_parse"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let v = variant_from_str(text, &g3()).unwrap();
        let ours = to_hex(&v.to_bytes(&g3()).unwrap());
        if text.contains(['.', 'e']) {
            let correct: f64 = text.parse().unwrap();
            assert_eq!(v.as_float().map(f64::to_bits), Some(correct.to_bits()), "{text}");
        }
        if ours == case["bytes_hex"].as_str().unwrap() {
            same += 1;
        } else {
            assert!(!case["correctly_rounded"].as_bool().unwrap(), "{text}");
            differ += 1;
        }
    }
    eprintln!("float_parse: {same} equal to the engine, {differ} where the engine is not correctly rounded");
    assert_eq!(same + differ, 821);
}

/// Texts typed by hand into str2var: where the engine succeeded we give its value, apart from
/// the documented differences (trailing text refused, floats rounded correctly, forms we refuse).
#[test]
fn godot3_parse_probes() {
    let fixture = json("godot3_text_vectors.json");
    let (mut same, mut refused, mut rounding, mut other) = (0, 0, 0, Vec::new());
    for probe in fixture["parse_probes"].as_array().unwrap() {
        let Some(text) = probe["text"].as_str() else { continue };
        let engine_failed = probe["str2var_returned_input"].as_bool().unwrap();
        match variant_from_str(text, &g3()) {
            // A color literal at the very end of the text: the engine's reader fails on it (its
            // end-of-input check runs before the token is built); we read it.
            Ok(Variant::Color(_)) if engine_failed && text.starts_with('#') => same += 1,
            // Any class name is taken (we instantiate nothing, so cannot know the engine's classes).
            Ok(Variant::Object(_)) if engine_failed && text.starts_with("Object(") => same += 1,
            Ok(v) => {
                assert!(!engine_failed, "we accept what the engine refuses: {text:?} → {v:?}");
                let ours = to_hex(&v.to_bytes(&g3()).unwrap());
                if ours == probe["result_bytes_hex"].as_str().unwrap() {
                    same += 1;
                } else if text.parse::<f64>().ok().map(Variant::Float) == Some(v.clone()) {
                    rounding += 1; // the engine's float reading is not correctly rounded
                } else if text == "\"\\uD83D\\uDE00\"" || text.starts_with("Object(") {
                    // A surrogate pair in two escapes: Godot 3 keeps two lone surrogates, we
                    // combine them. An object: the engine's instance adds its class's properties.
                    refused += 1;
                } else {
                    other.push(format!("{text:?}: ours {v} engine {}", probe["result_text"]));
                }
            }
            Err(_) if engine_failed => same += 1,
            Err(e) => {
                // Only the documented refusals: text after the value, a `-` without a digit (Godot
                // 3 reads 0), a lone surrogate, a color code Color.html() rejects.
                let msg = e.to_string();
                let documented = [
                    "after the value",
                    "expected a digit after '-'",
                    "lone UTF-16",
                    "invalid color code",
                    "never loads",
                    "'InputEvent'",
                ];
                assert!(documented.iter().any(|d| msg.contains(d)), "{text:?}: {msg}");
                refused += 1;
            }
        }
    }
    eprintln!("parse probes: {same} same verdict and value, {rounding} float rounding, {refused} refused by us");
    assert!(other.is_empty(), "values differ:\n{}", other.join("\n"));
}

/// Godot 4.5+ FLOAT text (Grisu2 digits, f32 shortcut, `inf_neg`).
#[test]
fn godot4_float_writer() {
    let fixture = json("godot4_text_vectors.json");
    let mut n = 0;
    for case in fixture["float_writer"].as_array().unwrap() {
        let bits = u64::from_str_radix(case["f64_bits"].as_str().unwrap(), 16).unwrap();
        let want = case["var_to_str_4_5_plus"].as_str().unwrap();
        let v = Variant::Float(f64::from_bits(bits));
        assert_eq!(variant_to_string(&v, Version::Godot4).unwrap(), want, "{bits:016x}");
        assert_eq!(v.to_string(), want);
        n += 1;
    }
    assert_eq!(n, 121);
}

/// Godot 4.5+ real components (f32) inside a Vector2.
#[test]
fn godot4_component_writer() {
    let fixture = json("godot4_text_vectors.json");
    for case in fixture["component_writer"].as_array().unwrap() {
        let bits = u32::from_str_radix(case["f32_bits"].as_str().unwrap(), 16).unwrap();
        let want = case["component_4_5_plus"].as_str().unwrap();
        let v = Variant::PackedFloat32Array(vec![f32::from_bits(bits)].into());
        assert_eq!(
            variant_to_string(&v, Version::Godot4).unwrap(),
            format!("PackedFloat32Array({want})"),
            "{bits:08x}"
        );
    }
}

/// The digits of a printed float (no sign, point, exponent, leading or trailing zeros).
fn digits(text: &str) -> String {
    let mantissa = text.trim_start_matches('-').split('e').next().unwrap().replace('.', "");
    mantissa.trim_start_matches('0').trim_end_matches('0').to_owned()
}

/// Bit patterns where Godot's Grisu2 is not the shortest: we print Grisu2's digits.
#[test]
fn godot4_grisu2_not_shortest() {
    let fixture = json("godot4_text_vectors.json");
    let g = &fixture["grisu2_not_shortest"];
    let mut n = 0;
    for row in g["f64"].as_array().unwrap() {
        let bits = u64::from_str_radix(row[0].as_str().unwrap(), 16).unwrap();
        let x = f64::from_bits(bits);
        if f64::from(x as f32) == x {
            continue;
        }
        let text = variant_to_string(&Variant::Float(x), Version::Godot4).unwrap();
        assert_eq!(digits(&text), row[1].as_str().unwrap().trim_end_matches('0'), "{bits:016x} {text}");
        n += 1;
    }
    for row in g["f32"].as_array().unwrap() {
        let bits = u32::from_str_radix(row[0].as_str().unwrap(), 16).unwrap();
        let text = variant_to_string(&Variant::Float(f32::from_bits(bits).into()), Version::Godot4).unwrap();
        assert_eq!(digits(&text), row[1].as_str().unwrap().trim_end_matches('0'), "{bits:08x} {text}");
        n += 1;
    }
    assert_eq!(n, 80);
}

/// Every per-type layout Godot 4's writer produces reads back and prints identically.
#[test]
fn godot4_layout_examples() {
    let fixture = json("godot4_text_vectors.json");
    for case in fixture["layout_examples"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let what = case["value"].as_str().unwrap();
        if what.contains("compat=false") {
            // The base64 form is read (Godot 4.3+) but var_to_str writes the compat form.
            let v = variant_from_str(text, &g4()).unwrap();
            assert_eq!(v.to_string(), "PackedByteArray(1, 2, 3)");
            continue;
        }
        let v = variant_from_str(text, &g4()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let printed = variant_to_string(&v, Version::Godot4).unwrap();
        // Signal() / RID() read back empty; -0.0 prints as 0.
        assert_eq!(printed, text, "{what}");
    }
}

/// Values built here, printed as Godot 4's writer does (from variant_parser.cpp rules).
#[test]
fn godot4_layout_built() {
    use serde_godot::{Array, ContainerType, Dictionary, StringName, VariantType, Vector2};
    let cases: Vec<(Variant, &str)> = vec![
        (Variant::Float(-0.0), "0.0"),
        (Variant::Float(f64::NEG_INFINITY), "inf_neg"),
        (Variant::Float(f64::from(0.1f32)), "0.1"),
        (Variant::from(Vector2::new(0.1, -0.0)), "Vector2(0.1, 0)"),
        (Variant::String("a\"b\\c\nd\te".into()), "\"a\\\"b\\\\c\nd\te\""),
        (Variant::StringName(StringName::from("na'me")), "&\"na\\'me\""),
        (
            Variant::Array(Box::new(Array::with_element_type(ContainerType::Builtin(VariantType::Int), vec![]))),
            "Array[int]([])",
        ),
        (
            Variant::Array(Box::new(Array::with_element_type(ContainerType::ClassName("Node".into()), vec![]))),
            "Array[Node]([])",
        ),
        (
            Variant::Dictionary(Box::new(Dictionary::with_types(
                ContainerType::Untyped,
                ContainerType::Builtin(VariantType::Int),
            ))),
            "Dictionary[Variant, int]({})",
        ),
        (Variant::from([("b", 1), ("a", 2)]), "{\n\"a\": 2,\n\"b\": 1\n}"),
        (Variant::Float(1.797_693_134_862_315_7e308), "1.7976931348623157e+308"),
    ];
    for (v, want) in cases {
        assert_eq!(variant_to_string(&v, Version::Godot4).unwrap(), want);
    }
}

/// Godot 4's own unit-test strings (tests/core/variant/test_variant.h).
#[test]
fn godot4_transcribed_parser_tests() {
    let v = |t: &str| variant_from_str(t, &g4()).unwrap();
    assert_eq!(v("9223372036854775807"), Variant::Int(i64::MAX));
    assert_eq!(variant_to_string(&Variant::Int(i64::MAX), Version::Godot4).unwrap(), "9223372036854775807");
    assert_eq!(variant_to_string(&Variant::Int(2147483648), Version::Godot4).unwrap(), "2147483648");
    // Godot 4's test asserts the clamp.
    assert_eq!(v("9223372036854775808"), Variant::Int(i64::MAX));
    assert_eq!(v("1.7976931348623157e+308"), Variant::Float(1.797_693_134_862_315_7e308));
    assert_eq!(v("1.0e+100"), Variant::Float(1.0e100));
    assert_eq!(v("1.79769e+308"), Variant::Float(1.79769e308));
}
