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

#[path = "../benches/rig/flatbuf.rs"]
mod flatbuf;

use serde::{Deserialize, Serialize};
pub use testkit::datasets;

/// The rig's codec trait, as far as the flatbuf rows use it.
pub trait Codec {
    /// Row label.
    const NAME: &'static str;
    /// Appends the encoding of `value` to `buf`.
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>);
    /// Decodes a value.
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T;
}

/// The four datasets at full size (the rig's `Datasets`).
pub struct Datasets {
    /// `log`.
    pub log: datasets::Logs,
    /// `mesh`.
    pub mesh: datasets::Mesh,
    /// `minecraft_savedata`.
    pub minecraft: datasets::Players,
    /// `mk48`.
    pub mk48: datasets::Updates,
}

/// The rig's size record (nothing to record here).
pub fn record_size(_dataset: &str, _format: &str, _bytes: usize) {}

fn main() {
    let data = Datasets {
        log: datasets::log::generate(datasets::LOG_FULL),
        mesh: datasets::mesh::generate(datasets::MESH_FULL),
        minecraft: datasets::minecraft::generate(datasets::MINECRAFT_FULL),
        mk48: datasets::mk48::generate(datasets::MK48_FULL),
    };
    if !flatbuf::profile(&data) {
        flatbuf::assert_official_rows(&data);
        eprintln!("set FLATBUF_PROFILE=<log|mesh>/<serialize|deserialize|borrowed>/<row>:<n>");
    }
}
