//! The cross-format benchmark rig: datasets, codecs, measurement and the markdown report.
//!
//! Shared by `benches/formats.rs` (timing) and `tests/bench_rows.rs` (every row round-trips), so a
//! row that would time a broken codec fails the test suite first.
//!
//! Adding a format: implement [`Codec`] for a unit struct (see `anchors.rs`) and add it to
//! [`for_each_codec!`]. Rows that need their own types (a packed mesh, a generated FlatBuffers
//! schema) register criterion benchmarks named `<dataset>/<op>/<format>` and call
//! [`record_size`]; the report picks up everything that ran.
#![allow(dead_code, unreachable_pub)]

pub mod anchors;
pub mod brson;
pub mod flatbuf;
pub mod godot;
pub mod kiprop;
pub mod leaders;
pub mod liblzma;
pub mod o3de;
pub mod report;

use serde::{Deserialize, Serialize};

pub use testkit::datasets;

/// A serde format as the rig drives it.
pub trait Codec {
    /// Row label in the table (no `/`).
    const NAME: &'static str;
    /// Whether `decode` can borrow `&str` from the input (the `borrowed` column).
    const BORROWS: bool = true;
    /// Appends the encoding of `value` to `buf` (the rig clears and reuses `buf`).
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>);
    /// Decodes a value, borrowing from `bytes` where `T` asks for it.
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T;

    /// Encodes into a fresh vector.
    fn to_vec<T: Serialize>(value: &T) -> Vec<u8> {
        let mut buf = Vec::new();
        Self::encode(value, &mut buf);
        buf
    }
}

/// Calls `$callback!(CodecType)` for every codec in the rig, anchors first.
#[macro_export]
macro_rules! for_each_codec {
    ($callback:ident) => {
        $callback!($crate::rig::anchors::Postcard);
        $callback!($crate::rig::anchors::Bincode1);
        $callback!($crate::rig::leaders::Bincode2Serde);
        $callback!($crate::rig::leaders::BitcodeSerde);
        $callback!($crate::rig::anchors::SerdeJson);
        $callback!($crate::rig::anchors::RmpSerdeNamed);
        $callback!($crate::rig::anchors::Flexbuffers);
        $callback!($crate::rig::anchors::Bson);
        $callback!($crate::rig::flatbuf::FlatbufLite);
        $callback!($crate::rig::godot::GodotDict);
        $callback!($crate::rig::godot::GodotArray);
        $callback!($crate::rig::o3de::SerdeO3de);
    };
}

/// The datasets at a given scale (1.0 = the full sizes of the reference benchmark).
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

/// The rig's criterion settings (1 s warm-up, 3 s of 20 samples, no plots), then the command line's.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(20)
        .without_plots()
        .configure_from_args()
}

impl Datasets {
    /// Generates all four datasets, each scaled by `scale` (at least one item each).
    pub fn generate(scale: f64) -> Self {
        let n = |full: usize| ((full as f64 * scale) as usize).max(1);
        Datasets {
            log: datasets::log::generate(n(datasets::LOG_FULL)),
            mesh: datasets::mesh::generate(n(datasets::MESH_FULL)),
            minecraft: datasets::minecraft::generate(n(datasets::MINECRAFT_FULL)),
            mk48: datasets::mk48::generate(n(datasets::MK48_FULL)),
        }
    }
}

/// Encodes and decodes `value` with `C` and panics unless the result equals the input.
pub fn assert_round_trip<C: Codec, T>(dataset: &str, value: &T) -> Vec<u8>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = C::to_vec(value);
    let back: T = C::decode(&bytes);
    assert!(back == *value, "{} does not round-trip the {dataset} dataset", C::NAME);
    bytes
}

/// Checks the borrowed decode of the `log` dataset against the owned value.
pub fn assert_borrowed_round_trip<C: Codec>(logs: &datasets::Logs) {
    if C::BORROWS {
        let bytes = C::to_vec(logs);
        let borrowed: datasets::BorrowedLogs<'_> = C::decode(&bytes);
        assert!(logs.eq_borrowed(&borrowed), "{} borrowed decode differs", C::NAME);
    }
}

/// Remembers the encoded size of a (dataset, format) cell for the report.
pub fn record_size(dataset: &str, format: &str, bytes: usize) {
    report::record_size(dataset, format, bytes);
}

/// One profiling request from the environment variable `var`, `<dataset>/<op>/<row>:<n>` (the
/// `*_prof` examples and `benches/formats.rs`): the three names and the pass count, or `None`
/// when the variable is not set. Panics on a malformed value (a profiling run, not a bench).
pub fn profile_request(var: &str) -> Option<(String, String, String, u32)> {
    let spec = std::env::var(var).ok()?;
    let usage = || panic!("{var}=<dataset>/<op>/<row>:<n>, got {spec:?}");
    let Some((what, n)) = spec.rsplit_once(':') else { usage() };
    let Ok(n) = n.parse() else { usage() };
    let parts: Vec<&str> = what.split('/').collect();
    let [dataset, op, row] = parts[..] else { usage() };
    Some((dataset.to_owned(), op.to_owned(), row.to_owned(), n))
}
