//! A small driver for instruction counts of the serde-kiprop bench rows (no criterion run; it
//! generates only the two kiprop datasets at full size):
//!
//! ```text
//! CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 \
//!     cargo build --profile bench --example kiprop_prof
//! KIPROP_PROFILE=mk48/serialize/kiprop-shallow:20 valgrind --tool=callgrind --dump-instr=no \
//!     --toggle-collect='*profile_loop*' target/release/examples/kiprop_prof
//! ```
//!
//! It drives `benches/rig/kiprop.rs` (the rows `cargo bench --bench formats` times) with the
//! same `KIPROP_PROFILE=<dataset>/<op>/<row>:<n>` syntax.
#![allow(dead_code, unreachable_pub)]

#[path = "../benches/rig/mod.rs"]
mod rig;

use rig::{Datasets, datasets, kiprop};

fn main() {
    // Only the two datasets the kiprop rows use are generated at full size.
    let data = Datasets {
        log: datasets::log::generate(1),
        mesh: datasets::mesh::generate(1),
        minecraft: datasets::minecraft::generate(datasets::MINECRAFT_FULL),
        mk48: datasets::mk48::generate(datasets::MK48_FULL),
    };
    if !kiprop::profile(&data) {
        kiprop::check(&data);
        eprintln!("set KIPROP_PROFILE=<dataset>/<op>/<row>:<n> (both rows round-trip both datasets)");
    }
}
