//! Shared helpers of the integration tests: fixture loading and katsuba-shaped JSON comparison.
#![allow(dead_code, unreachable_pub)]

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_kiprop::serializer_flags::WITH_COMPRESSION;
use serde_kiprop::{Color, Options, Quaternion, TypeList, Vec3};

pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(path)
}

pub fn read(path: &str) -> Vec<u8> {
    std::fs::read(data(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn json(path: &str) -> serde_json::Value {
    serde_json::from_slice(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn katsuba_types() -> TypeList {
    TypeList::from_json(std::str::from_utf8(&read("katsuba/types.json")).unwrap()).unwrap()
}

pub fn generated_types() -> TypeList {
    TypeList::from_json(std::str::from_utf8(&read("generated/types.json")).unwrap()).unwrap()
}

/// The reader options of a fixture's `.config.json`.
pub fn config(path: &str) -> Options {
    let c = json(path);
    Options::new()
        .shallow(c["shallow"].as_bool().unwrap())
        .manual_compression(c["compress"].as_bool().unwrap())
        .flags(c["flags"].as_u64().unwrap() as u32)
        .property_mask(c["property_mask"].as_u64().unwrap() as u32)
}

/// Drops `$__hash` keys (katsuba's expected files have them only for some fixtures).
pub fn strip_hash(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("$__hash");
            m.values_mut().for_each(strip_hash);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_hash),
        _ => {}
    }
}

pub fn to_json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    let mut j = serde_json::to_value(v).unwrap();
    strip_hash(&mut j);
    j
}

/// The katsuba fixtures that decode: (name, shallow?).
pub const KATSUBA_OK: [&str; 28] = [
    "all-scalars-deep",
    "all-scalars-shallow",
    "binary-string",
    "bit-integers-deep",
    "bit-integers-shallow",
    "bitflags-combined",
    "bitflags-empty-string",
    "bitflags-int",
    "bitflags-string",
    "deep-size-boundary",
    "delta-encode-absent",
    "delta-encode-present",
    "deprecated-deep",
    "deprecated-shallow",
    "empty-string-no-realign",
    "ends-with-bits-deep",
    "ends-with-bits-shallow",
    "list-compact",
    "list-simple",
    "nested-lists",
    "nested-object",
    "property-mask",
    "scoped-enum-int",
    "scoped-enum-string",
    "strings-compact",
    "strings-deep",
    "strings-shallow",
    "with-compression",
];

/// The generated fixtures (all read with flags 1, mask 24).
pub const GENERATED: [&str; 8] = [
    "deep-flags01",
    "deep-flags03",
    "deep-flags15",
    "shallow-flags01",
    "shallow-flags03",
    "shallow-flags05",
    "shallow-flags09",
    "shallow-flags15",
];

/// The classes of `generated/types.json` as Rust types.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub enum School {
    Fire,
    Ice,
    Storm,
}

#[allow(non_snake_case)]
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "class KiPropTestItem")]
pub struct Item {
    pub m_itemID: u64,
    pub m_name: String,
    pub m_count: u8,
    pub m_equipped: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "class KiPropTestRoot")]
pub struct Root {
    pub m_flag: bool,
    pub m_level: i32,
    pub m_small: i8,
    pub m_big: u32,
    pub m_name: String,
    pub m_title: String,
    pub m_speed: f32,
    pub m_precise: f64,
    pub m_school: School,
    pub m_mask: u32,
    pub m_color: Color,
    pub m_pos: Vec3,
    pub m_rot: Quaternion,
    pub m_ids: Vec<u32>,
    pub m_items: Vec<Option<Item>>,
    pub m_best: Option<Item>,
    pub m_none: Option<Item>,
    /// DEPRECATED: never written.
    #[serde(default)]
    pub m_old: u32,
    /// DELTA_ENCODE: `None` is a presence bit of 0 in shallow mode, an omitted property in deep mode.
    #[serde(default)]
    pub m_delta: Option<u32>,
    pub m_tail: u8,
}

/// The Python with the katsuba wheel; `None` (skip) only when `SERDE_KIPROP_SKIP_KATSUBA=1`,
/// otherwise a missing oracle fails the test.
pub fn python_with_katsuba(test: &str) -> Option<&'static str> {
    for py in ["python3", "python"] {
        let ok = Command::new(py).args(["-c", "import katsuba.op"]).output().is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    if std::env::var("SERDE_KIPROP_SKIP_KATSUBA").is_ok_and(|v| v == "1") {
        eprintln!(
            "SKIPPED: {test}: katsuba not installed and SERDE_KIPROP_SKIP_KATSUBA=1; the differential test did not run"
        );
        return None;
    }
    panic!(
        "{test}: the oracle is missing: python3 with the katsuba wheel (python3 -m pip install katsuba==0.4.0). \
         Set SERDE_KIPROP_SKIP_KATSUBA=1 to skip the differential tests instead."
    );
}

/// Runs the oracle on a manifest; returns its summary line, or panics with its report.
pub fn run_oracle(python: &str, manifest: &std::path::Path) -> String {
    let out = Command::new(python).arg(data("../katsuba_oracle.py")).arg(manifest).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "katsuba disagrees:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// Splits framing by hand: (stored flags, inflated object stream).
pub fn unframe(bytes: &[u8], manual: bool) -> (u32, Vec<u8>) {
    let mut data = bytes.to_vec();
    if manual {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&data[4..]).read_to_end(&mut out).unwrap();
        data = out;
    }
    let flags = u32::from_le_bytes(data[..4].try_into().unwrap());
    let mut rest = data[4..].to_vec();
    if flags & WITH_COMPRESSION != 0 {
        if rest[0] != 0 {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(&rest[5..]).read_to_end(&mut out).unwrap();
            rest = out;
        } else {
            rest.remove(0);
        }
    }
    (flags, rest)
}

/// Exact bytes, or (without the C zlib) the same flags and object stream under the compression.
pub fn assert_same_blob(name: &str, ours: &[u8], theirs: &[u8], manual: bool, compressed: bool) {
    if cfg!(feature = "c-zlib") || !(manual || compressed) {
        assert_eq!(testkit::hex::encode(ours), testkit::hex::encode(theirs), "{name}: bytes differ");
    } else {
        eprintln!("{name}: comparing inflated payloads (build with --features c-zlib for byte-exact zlib)");
        assert_eq!(unframe(ours, manual), unframe(theirs, manual), "{name}");
    }
}
