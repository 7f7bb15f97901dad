//! JSON conversion both ways, URL rewriting, and byte snapshots of our writer's output.

mod common;

use bson::{Bson, doc};
use common::{CONTAINERS, payload};
use serde_brson::json::{self, IntWidth};
use serde_brson::url;
use serde_brson::{Compression, Options};

/// Equal up to number widths: int32/int64/double of the same value are the same to the engine.
fn same_numbers(a: &Bson, b: &Bson) -> bool {
    let num = |v: &Bson| match v {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Int64(i) => Some(*i as f64),
        _ => None,
    };
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, v), (l, w))| k == l && same_numbers(v, w))
        }
        (Bson::Array(x), Bson::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_numbers(v, w)),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

#[test]
fn every_fixture_round_trips_through_json() {
    for name in CONTAINERS {
        let payload = payload(name);
        let text = json::to_string_pretty(payload.raw()).unwrap();
        let back = json::from_str(&text).unwrap();
        // BSON → JSON → BSON: the same tree, key order included, up to integer widths; doubles
        // stay doubles.
        assert!(same_numbers(&Bson::Document(payload.to_document().unwrap()), &Bson::Document(back.clone())), "{name}");
        // JSON → BSON → JSON: the same text.
        let bytes = bson::serialize_to_vec(&back).unwrap();
        let again = json::to_string_pretty(bson::RawDocument::from_bytes(&bytes).unwrap()).unwrap();
        assert_eq!(again, text, "{name}");
        // Compact and pretty parse to the same tree.
        assert_eq!(json::from_str(&json::to_string(payload.raw()).unwrap()).unwrap(), back, "{name}");
    }
}

#[test]
fn legacy_int64_files_round_trip_exactly_with_int64_width() {
    let payload = payload("redx-5ce7cdf5.7zbson");
    let text = json::to_string(payload.raw()).unwrap();
    let back = json::from_slice_with(text.as_bytes(), IntWidth::Int64, 512).unwrap();
    assert_eq!(bson::serialize_to_vec(&back).unwrap(), payload.as_bytes());
}

#[test]
fn plain_numbers_non_finite_floats_and_extended_types() {
    let date = bson::DateTime::from_millis(1_700_000_000_000);
    let document = doc! {
        "i": 5, "l": 5i64, "d": 1.0, "f": 1.2f32, "nan": f64::NAN, "inf": f64::NEG_INFINITY,
        "when": date, "bytes": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1, 2, 3] },
        "s": "@@at", "u": "@resdb:///abc",
    };
    let bytes = bson::serialize_to_vec(&document).unwrap();
    let text = json::to_string(bson::RawDocument::from_bytes(&bytes).unwrap()).unwrap();
    assert!(
        text.starts_with(
            r#"{"i":5,"l":5,"d":1.0,"f":1.2000000476837158,"nan":"NaN","inf":"-Infinity","when":{"$date""#
        ),
        "{text}"
    );
    assert!(text.ends_with(r#""s":"@@at","u":"@resdb:///abc"}"#), "{text}");
    let back = json::from_str(&text).unwrap();
    assert_eq!(back.get("i"), Some(&Bson::Int32(5)));
    assert_eq!(back.get("l"), Some(&Bson::Int32(5)));
    assert_eq!(back.get("d"), Some(&Bson::Double(1.0)));
    assert_eq!(back.get("nan"), Some(&Bson::String("NaN".into())));
    assert_eq!(back.get("when"), Some(&Bson::DateTime(date)));
    assert_eq!(back.get_binary_generic("bytes").unwrap(), &vec![1, 2, 3]);
    // Errors: a non-object root, trailing text, a u64 beyond i64.
    assert!(json::from_str("[1]").is_err());
    assert!(json::from_str("{} x").is_err());
    assert!(json::from_str(r#"{"a": 18446744073709551615}"#).is_err());
}

#[test]
fn json_is_readable_and_stable() {
    let text = json::to_string_pretty(payload("synthetic-modern.brson").raw()).unwrap();
    insta::assert_snapshot!("synthetic_modern_json", text);
}

#[test]
fn asset_urls_are_found_and_rewritten() {
    let payload = payload("redx-5ce7cdf5.7zbson");
    let urls = url::urls(payload.raw()).unwrap();
    assert!(urls.len() > 10, "{}", urls.len());
    assert!(urls.iter().all(|u| !u.starts_with('@')));
    let assets: Vec<_> = urls.iter().filter_map(|u| url::AssetUrl::parse(u)).collect();
    assert!(assets.iter().all(|a| a.scheme == "neosdb"), "{assets:?}");
    assert!(assets.iter().all(|a| a.signature.len() == 64), "{assets:?}");

    let mut document = payload.to_document().unwrap();
    let n = url::rewrite_urls(&mut document, |u| {
        let asset = url::AssetUrl::parse(u)?;
        Some(format!("https://assets.example/{}", asset.signature))
    });
    assert_eq!(n, assets.len());
    let file = serde_brson::to_vec(&document, Compression::Brotli).unwrap();
    let rewritten = serde_brson::decompress(&file).unwrap();
    let new_urls = url::urls(rewritten.raw()).unwrap();
    assert_eq!(new_urls.len(), urls.len());
    assert_eq!(new_urls.iter().filter(|u| u.starts_with("https://assets.example/")).count(), n);
}

#[test]
fn our_bytes_in_every_kind() {
    let tree = doc! {
        "VersionNumber": "2025.1.1.1",
        "Object": { "ID": "00000001-0000-4000-8000-000000000001", "Name": { "ID": "n", "Data": "@@hi" }, "Children": [] },
    };
    let mut out = String::new();
    for compression in [Compression::Lz4, Compression::Lzma, Compression::Brotli] {
        let bytes = serde_brson::to_vec(&tree, compression).unwrap();
        out.push_str(&format!("{compression:?}\n{}\n", testkit::hex::dump(&bytes)));
    }
    let raw = Options::new().allow_uncompressed(true).to_vec(&tree, Compression::None).unwrap();
    out.push_str(&format!("None\n{}", testkit::hex::dump(&raw)));
    insta::assert_snapshot!("small_tree_every_kind", out);
}

/// Fuzz finding (brson_decode): a BSON document with a duplicate key converts to JSON with the
/// duplicate, which no map can hold; parsing such JSON is now an error instead of silently
/// dropping one value.
#[test]
fn regression_duplicate_keys_are_refused_in_json() {
    let err = json::from_str(r#"{"Object": {"Rotation": 1, "Rotation": 2}}"#).unwrap_err();
    assert_eq!(err.kind(), serde_brson::ErrorKind::Json);
    assert!(err.message().contains("duplicate key \"Rotation\""), "{err}");
}
