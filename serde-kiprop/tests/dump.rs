//! insta snapshots of `serde_kiprop::dump` over the fixtures in tests/data: every katsuba fixture
//! and every generated one (shallow and deep, all flag combinations, zlib layers, the BINd game
//! file), each checked to decode exactly as `Options::from_slice` decodes it.

mod common;

use std::fmt::Write as _;

use common::*;
use serde_kiprop::dump::dump;
use serde_kiprop::{Options, TypeList, Value};

/// The dump of one fixture; it stops with an error exactly when the decoder does.
fn one(text: &mut String, name: &str, bytes: &[u8], opts: &Options, types: &TypeList) {
    let d = dump(bytes, opts, types);
    let decoded = opts.from_slice::<Value>(bytes, types);
    assert_eq!(d.error().is_some(), decoded.is_err(), "{name}: {d}");
    let _ = writeln!(text, "### {name}\n{d}");
}

#[test]
fn katsuba_fixtures() {
    let types = katsuba_types();
    let mut text = String::new();
    for name in KATSUBA_OK {
        let bytes = read(&format!("katsuba/{name}.bin"));
        one(&mut text, name, &bytes, &config(&format!("katsuba/{name}.config.json")), &types);
    }
    insta::assert_snapshot!(text);
}

#[test]
fn generated_fixtures() {
    let types = generated_types();
    let mut text = String::new();
    for name in GENERATED.iter().chain(&["shallow-delta-absent-manual-zlib"]) {
        let bytes = read(&format!("generated/{name}.bin"));
        one(&mut text, name, &bytes, &config(&format!("generated/{name}.config.json")), &types);
    }
    insta::assert_snapshot!(text);
}

#[test]
fn bind_game_file() {
    let types = generated_types();
    let bytes = read("generated/bind-deep.xml.bin");
    let mut text = String::new();
    one(&mut text, "bind-deep.xml.bin", &bytes, &Options::game_file(), &types);
    insta::assert_snapshot!(text);
}

#[test]
fn damaged_blob_dumps_up_to_the_error() {
    let types = generated_types();
    let bytes = read("generated/shallow-flags01.bin");
    let opts = config("generated/shallow-flags01.config.json");
    let mut text = String::new();
    one(&mut text, "shallow-flags01.bin cut in half", &bytes[..bytes.len() / 2], &opts, &types);
    insta::assert_snapshot!(text);
}
