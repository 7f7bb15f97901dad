//! A small driver for instruction counts of the serde-kiprop bench rows (no criterion, builds
//! only the two kiprop datasets and this file):
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

#[path = "../benches/rig/kiprop.rs"]
mod kiprop;

use serde::{Deserialize, Serialize};
pub use testkit::datasets;

/// The rig's codec trait, as far as the kiprop rows use it.
pub trait Codec {
    /// Appends the encoding of `value` to `buf`.
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>);
    /// Decodes a value.
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T;
}

/// The postcard anchor, as in `benches/rig/anchors.rs`.
pub mod anchors {
    use serde::{Deserialize, Serialize};

    /// postcard 1.x.
    pub struct Postcard;

    impl super::Codec for Postcard {
        fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
            *buf = postcard::to_extend(value, std::mem::take(buf)).expect("postcard encode");
        }
        fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
            postcard::from_bytes(bytes).expect("postcard decode")
        }
    }
}

/// The two datasets the kiprop rows use, at full size.
pub struct Datasets {
    /// `minecraft_savedata`.
    pub minecraft: datasets::Players,
    /// `mk48`.
    pub mk48: datasets::Updates,
}

/// The rig's size record (nothing to record here).
pub fn record_size(_dataset: &str, _format: &str, _bytes: usize) {}

fn main() {
    let data = Datasets {
        minecraft: datasets::minecraft::generate(datasets::MINECRAFT_FULL),
        mk48: datasets::mk48::generate(datasets::MK48_FULL),
    };
    if !kiprop::profile(&data) {
        kiprop::check(&data);
        eprintln!("set KIPROP_PROFILE=<dataset>/<op>/<row>:<n> (both rows round-trip both datasets)");
    }
}
