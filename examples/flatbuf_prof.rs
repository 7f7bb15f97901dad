//! A small driver for instruction counts of the serde-flatbuf-lite bench rows (no criterion):
//!
//! ```text
//! CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 \
//!     cargo build --profile bench --example flatbuf_prof
//! FLATBUF_PROFILE=log/borrowed/serde-flatbuf-lite:20 valgrind --tool=callgrind --dump-instr=no \
//!     --toggle-collect='*profile_loop*' target/release/examples/flatbuf_prof
//! ```
//!
//! It drives `benches/rig/flatbuf.rs` (the rows `cargo bench --bench formats` times) with
//! `FLATBUF_PROFILE=<log|mesh>/<serialize|deserialize|borrowed>/<row>:<n>`.
#![allow(dead_code, unreachable_pub)]

#[path = "../benches/rig/mod.rs"]
mod rig;

use rig::{Datasets, flatbuf};

fn main() {
    let data = Datasets::generate(1.0);
    if !flatbuf::profile(&data) {
        flatbuf::assert_official_rows(&data);
        eprintln!("set FLATBUF_PROFILE=<log|mesh>/<serialize|deserialize|borrowed>/<row>:<n>");
    }
}
