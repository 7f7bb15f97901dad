//! A small driver for instruction counts of the serde-brson world rows (no criterion run):
//!
//! ```text
//! CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 \
//!     cargo build --profile bench --example brson_prof
//! BRSON_PROFILE=brson_world/serialize/bson:2 valgrind --tool=callgrind --dump-instr=no \
//!     --toggle-collect='*profile_loop*' target/release/examples/brson_prof
//! ```
//!
//! `BRSON_PROFILE=brson_world/<serialize|deserialize>/<row>:<n>`, row `bson` (the world to or
//! from BSON bytes with the `bson` crate's serde), `serde-brson` (the same with serde-brson's
//! own BSON layer, no compression), `brson-lz4` or `parts-lz4` (the bench rows).
#![allow(dead_code, unreachable_pub)]

use std::hint::black_box;

use serde_gamefmt::brson::{self as brson, Compression, model::DataTree};

/// Uncompressed output: the BSON layer alone, behind the 9-byte header.
const UNCOMPRESSED: brson::Options = brson::Options::new().allow_uncompressed(true);

#[path = "../benches/rig/mod.rs"]
mod rig;

/// The measured part (callgrind: `--toggle-collect='*profile_loop*'`).
#[inline(never)]
fn profile_loop(world: &DataTree, bson: &[u8], file: &[u8], op: &str, row: &str, n: u32) {
    for _ in 0..n {
        match (op, row) {
            ("serialize", "bson") => drop(black_box(brson::bson::serialize_to_vec(black_box(world)).unwrap())),
            ("serialize", "serde-brson") => {
                drop(black_box(UNCOMPRESSED.to_vec(black_box(world), Compression::None).unwrap()))
            }
            ("serialize", "brson-lz4") => drop(black_box(brson::to_vec(black_box(world), Compression::Lz4).unwrap())),
            ("serialize", "parts-lz4") => {
                let bytes = brson::bson::serialize_to_vec(black_box(world)).unwrap();
                drop(black_box(lz4_flex::block::compress(&bytes)));
            }
            ("deserialize", "bson") => {
                drop(black_box(brson::bson::deserialize_from_slice::<DataTree>(black_box(bson)).unwrap()))
            }
            ("deserialize", "brson-lz4") => drop(black_box(brson::from_slice::<DataTree>(black_box(file)).unwrap())),
            _ => panic!("BRSON_PROFILE: unknown op/row {op}/{row}"),
        }
    }
}

fn main() {
    let world = rig::brson::world();
    let bson = brson::bson::serialize_to_vec(&world).unwrap();
    let file = brson::to_vec(&world, Compression::Lz4).unwrap();
    let Some((_, op, row, n)) = rig::profile_request("BRSON_PROFILE") else {
        eprintln!("set BRSON_PROFILE=brson_world/<serialize|deserialize>/<row>:<n>");
        return;
    };
    profile_loop(&world, &bson, &file, &op, &row, n);
}
