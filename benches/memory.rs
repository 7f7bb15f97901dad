//! Peak heap of decoding the rig's 26 MB Resonite world (issue 17 §4): into `bson::Document` and
//! into serde-brson's typed model, measured by testkit's counting allocator (this binary's global
//! allocator, so it is its own bench target: the timing rig runs on the system allocator).
//!
//! ```text
//! cargo bench --bench memory
//! ```
//!
//! Every row starts from bytes already in memory and reports the high-water mark of live heap bytes
//! allocated while it ran (what it returns is still live at the end, so it is included), next to the
//! size of the BSON. Goal: the typed model ≤ 2× the BSON.

#[path = "rig/mod.rs"]
mod rig;

use std::hint::black_box;

use serde_gamefmt::brson::bson::{self, Document, RawDocument};
use serde_gamefmt::brson::model::DataTree;
use serde_gamefmt::brson::{self as brson, Compression};
use testkit::alloc::{AllocStats, measure};

testkit::install_counting_allocator!();

fn row(name: &str, what: &str, stats: AllocStats, bson_len: usize) {
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    println!(
        "| {name} | {what} | {:.1} MiB | {:.2}× | {} | {:.1} MiB |",
        mib(stats.peak),
        stats.peak as f64 / bson_len as f64,
        stats.count,
        stats.total as f64 / f64::from(1 << 20),
    );
}

fn main() {
    let world = rig::brson::world();
    let bson = bson::serialize_to_vec(&world).unwrap();
    let lz4 = brson::to_vec(&world, Compression::Lz4).unwrap();
    let payload = brson::decompress(&lz4).unwrap();
    assert_eq!(payload.as_bytes(), &bson[..]);
    let len = bson.len();

    println!("\n### brson_world memory: {:.1} MiB of BSON ({len} bytes)\n", len as f64 / f64::from(1 << 20));
    println!("| row | from → into | peak heap | × BSON | allocations | allocated in all |");
    println!("|---|---|--:|--:|--:|--:|");

    let (doc, stats) = measure(|| Document::try_from(RawDocument::from_bytes(&bson).unwrap()).unwrap());
    row("bson-document", "BSON bytes → `bson::Document` (bson's `TryFrom<&RawDocument>`)", stats, len);
    black_box(doc);
    let (doc, stats) = measure(|| bson::deserialize_from_slice::<Document>(&bson).unwrap());
    row("bson-document-serde", "BSON bytes → `bson::Document` (bson's serde)", stats, len);
    black_box(doc);
    let (doc, stats) = measure(|| payload.to_document().unwrap());
    row("brson-document", "payload → `bson::Document` (serde-brson, budgeted)", stats, len);
    black_box(doc);

    let (tree, stats) = measure(|| bson::deserialize_from_slice::<DataTree>(&bson).unwrap());
    row("parts-model", "BSON bytes → `DataTree` (bson's serde)", stats, len);
    assert!(tree == world);
    drop(tree);
    let (tree, stats) = measure(|| payload.deserialize::<DataTree>().unwrap());
    row("brson-model", "payload → `DataTree` (serde-brson)", stats, len);
    assert!(tree == world);
    drop(tree);
    let (tree, stats) = measure(|| brson::from_slice::<DataTree>(&lz4).unwrap());
    row("brson-lz4-model", "lz4bson file → `DataTree` (decompression included)", stats, len);
    assert!(tree == world);
}
