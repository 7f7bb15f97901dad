//! serde-kiprop's decoder against katsuba's (issue 14 item 4: "measure against katsuba's Rust
//! decoder"). katsuba's Rust crates are not on crates.io, so its decoder is measured where users get
//! it: the katsuba wheel (0.4.0, its Rust decoder behind one Python call per blob; `.ci/run` installs
//! it). One run times, on the same blobs, serde-kiprop into the rig's Rust structs, serde-kiprop into
//! its dynamic [`Value`] (what katsuba builds: a tree of objects with named properties), and katsuba.
//!
//! ```text
//! cargo bench --bench katsuba
//! ```
//!
//! The blobs are the rig's `mk48` dataset, shallow and deep, with the rig's type list written as a
//! katsuba v2 type-list JSON, which both decoders load. Type lists cannot describe a fixed-size array
//! (only serde-kiprop's typed path reads those, see the crate README), so the one such field of mk48,
//! a terrain chunk's `chunk_id: (i8, i8)`, is declared as the leaf `class Point<unsigned char>` (the
//! same two bytes) here; `minecraft_savedata` has several (`pos: (f64, f64, f64)`, …) and is left out. katsuba's time
//! includes one Python call and the root `LazyObject` (nothing is converted to Python objects); it is
//! timed by `benches/katsuba_decode.py` (1 s warm-up, 3 s of single calls, mean). Without python3 and
//! the wheel, the bench says so and prints serde-kiprop's times only.

#[path = "rig/mod.rs"]
mod rig;

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use criterion::{SamplingMode, Throughput};
use serde::{Deserialize, Serialize};
use serde_gamefmt::kiprop::{Options, PointUChar, TypeList, Value, flags, hash};

use rig::Datasets;
use rig::datasets::mk48;
use rig::kiprop::{ROWS, types};

/// The rig's type list as a katsuba v2 type-list dump ([`TypeList::to_json`]), with `chunk_id`
/// declared as [`CHUNK_ID`] (and its tag to match).
fn type_list_json(types: &TypeList) -> String {
    let dump = types.to_json().expect("the rig's schemas name every property type");
    let mut dump: serde_json::Value = serde_json::from_str(&dump).unwrap();
    let terrain = dump["classes"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .find(|c| c["name"] == "class TerrainUpdate")
        .expect("mk48 has terrain updates");
    let chunk_id = &mut terrain["properties"]["chunk_id"];
    chunk_id["type"] = CHUNK_ID.into();
    chunk_id["hash"] = hash::property_tag(CHUNK_ID, "chunk_id").into();
    // (katsuba recognises a v2 dump only when `version` comes first.)
    format!("{{\"version\": 2, \"classes\": {}}}", dump["classes"])
}

/// What `chunk_id` is declared as (see the module docs).
const CHUNK_ID: &str = "class Point<unsigned char>";

/// mk48's root, update and terrain chunk with `chunk_id` as a [`PointUChar`]; contacts as in the rig.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Updates {
    updates: Vec<Update>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Update {
    contacts: Vec<mk48::Contact>,
    score: u32,
    world_radius: f32,
    terrain_updates: Vec<TerrainUpdate>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct TerrainUpdate {
    chunk_id: PointUChar,
    data: Vec<u8>,
}

impl From<&mk48::Updates> for Updates {
    fn from(u: &mk48::Updates) -> Self {
        let updates = u
            .updates
            .iter()
            .map(|u| Update {
                contacts: u.contacts.clone(),
                score: u.score,
                world_radius: u.world_radius,
                terrain_updates: u
                    .terrain_updates
                    .iter()
                    .map(|t| TerrainUpdate {
                        chunk_id: PointUChar { x: t.chunk_id.0 as u8, y: t.chunk_id.1 as u8 },
                        data: t.data.clone(),
                    })
                    .collect(),
            })
            .collect();
        Updates { updates }
    }
}

struct Case {
    name: String,
    row: &'static str,
    bytes: Vec<u8>,
    /// The root's list property and how many elements it holds.
    list: &'static str,
    len: usize,
}

fn main() {
    let started = SystemTime::now();
    let mut c = rig::criterion();
    let data = Datasets::generate(1.0);
    let dir = rig::report::criterion_dir().join("../katsuba-bench");
    std::fs::create_dir_all(&dir).expect("bench output dir");

    let json = type_list_json(types());
    std::fs::write(dir.join("types.json"), &json).expect("write types.json");
    let types = TypeList::from_json(&json).expect("the dumped type list loads");
    let types = &types;
    let updates = Updates::from(&data.mk48);
    let cases: Vec<Case> = ROWS
        .iter()
        .map(|&(row, opts)| {
            let bytes = opts.to_vec(&updates, types).expect("encode");
            assert!(opts.from_slice::<Updates>(&bytes, types).expect("decode") == updates, "{row} round trip");
            Case { name: format!("mk48/{row}"), row, bytes, list: "updates", len: updates.updates.len() }
        })
        .collect();

    for case in &cases {
        let opts = opts_of(case.row);
        let mut group = c.benchmark_group(format!("mk48/katsuba-{}", case.row));
        group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(case.bytes.len() as u64));
        group.bench_function("serde-kiprop", |b| {
            b.iter(|| black_box(opts.from_slice::<Updates>(black_box(&case.bytes), types).expect("decode")))
        });
        group.bench_function("serde-kiprop-value", |b| {
            b.iter(|| black_box(opts.from_slice::<Value>(black_box(&case.bytes), types).expect("Value decode")))
        });
        group.finish();
    }
    c.final_summary();

    let katsuba = run_katsuba(&dir, &cases);
    let timings = rig::report::collect(&rig::report::criterion_dir(), started);
    println!("\n| dataset | row | size | serde-kiprop (typed) | serde-kiprop (`Value`) | katsuba 0.4.0 (wheel) |");
    println!("|---|---|--:|--:|--:|--:|");
    for case in &cases {
        let op = format!("katsuba-{}", case.row);
        let ours = |format: &str| {
            timings.iter().find(|t| t.dataset == "mk48" && t.op == op && t.format == format).map(|t| t.mean_ns)
        };
        let (typed, value) = (ours("serde-kiprop"), ours("serde-kiprop-value"));
        let theirs = katsuba.iter().find(|(n, _)| *n == case.name).map(|(_, ns)| *ns);
        let cell = |ns: Option<f64>| match (ns, theirs) {
            (Some(ns), Some(k)) => format!("{} ({:.2}× katsuba)", rig::report::human_time(ns), ns / k),
            (Some(ns), None) => rig::report::human_time(ns),
            (None, _) => "–".to_owned(),
        };
        println!(
            "| mk48 | {} | {} | {} | {} | {} |",
            case.row,
            rig::report::thousands(case.bytes.len()),
            cell(typed),
            cell(value),
            theirs.map_or("not run".to_owned(), rig::report::human_time),
        );
    }
}

/// The rig's options of a row.
fn opts_of(row: &str) -> Options {
    ROWS.iter().find(|(r, _)| *r == row).expect("row").1
}

/// Writes the blobs and the manifest, runs the katsuba timer; (case name, mean ns) per case it read.
fn run_katsuba(dir: &Path, cases: &[Case]) -> Vec<(String, f64)> {
    let mut manifest = Vec::new();
    for case in cases {
        let file = dir.join(format!("{}.bin", case.name.replace('/', "-")));
        std::fs::write(&file, &case.bytes).expect("write blob");
        let opts = opts_of(case.row);
        // The rig's shallow row writes every property (mask 0); the deep row uses the default mask.
        let mask = if opts.is_shallow() { 0 } else { flags::TRANSMIT | flags::PRIVILEGED_TRANSMIT };
        manifest.push(serde_json::json!({
            "name": case.name, "file": file, "shallow": opts.is_shallow(), "flags": opts.get_flags(),
            "mask": mask, "list": case.list,
        }));
    }
    std::fs::write(dir.join("manifest.json"), serde_json::json!({ "cases": manifest }).to_string())
        .expect("write manifest");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/katsuba_decode.py");
    let out = match Command::new("python3").arg(&script).arg(dir).output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("\n*** katsuba NOT MEASURED: python3 could not run ({e}) ***\n");
            return Vec::new();
        }
    };
    if !out.status.success() {
        eprintln!(
            "\n*** katsuba NOT MEASURED (is the katsuba 0.4.0 wheel installed? `.ci/run` installs it) ***\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut results = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(j) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let name = j["name"].as_str().unwrap_or_default().to_owned();
        let case = cases.iter().find(|c| c.name == name).expect("a case we wrote");
        let len = j["len"].as_u64().unwrap_or(u64::MAX) as usize;
        assert_eq!(len, case.len, "katsuba read {len} elements of `{}` in {name}, we wrote {}", case.list, case.len);
        results.push((name, j["mean_ns"].as_f64().expect("mean_ns")));
    }
    results
}
