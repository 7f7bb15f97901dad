//! Today's leaders of rust_serialization_benchmark, next to postcard and bincode 1.3.3 (issue 17 §1):
//!
//! * `bincode2-serde`: bincode 2.0.1 through its serde API, `config::standard()` (varint lengths and
//!   integers, little-endian: bincode 2's default), encoding into the rig's reused buffer.
//! * `bitcode-serde`: bitcode 0.6 through its serde API (`bitcode::serialize`/`deserialize`).
//! * `bitcode`: bitcode 0.6 through its own `#[derive(Encode, Decode)]` and a reused
//!   `bitcode::Buffer`, the way its authors benchmark it. Not on `minecraft_savedata`: the derive
//!   cannot express recursive types (`Entity::passengers: Vec<Entity>` is a layout cycle).
//! * `wincode`: wincode 0.6 through its own `#[derive(SchemaWrite, SchemaRead)]` (bincode 1's byte
//!   format). wincode has no serde path. Its default preallocation cap (4 MiB) refuses the 6 MB
//!   mesh, so the rows use the same configuration with the cap at 64 MiB.
//!
//! The serde rows go through [`Codec`] and `for_each_codec!`; the derive rows are registered here
//! as `<dataset>/{serialize,deserialize,borrowed}/<row>`.

use std::cell::RefCell;
use std::hint::black_box;

use criterion::{Criterion, SamplingMode, Throughput};
use serde::{Deserialize, Serialize};

use super::{Codec, Datasets, datasets};

/// bincode 2 serde API with `config::standard()`.
pub struct Bincode2Serde;

/// bincode 2's writer over the rig's reused vector.
struct VecWriter<'a>(&'a mut Vec<u8>);

impl bincode2::enc::write::Writer for VecWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), bincode2::error::EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

impl Codec for Bincode2Serde {
    const NAME: &'static str = "bincode2-serde";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        bincode2::serde::encode_into_writer(value, VecWriter(buf), bincode2::config::standard())
            .expect("bincode2 encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bincode2::serde::borrow_decode_from_slice(bytes, bincode2::config::standard()).expect("bincode2 decode").0
    }
}

/// bitcode's serde API.
pub struct BitcodeSerde;

impl Codec for BitcodeSerde {
    const NAME: &'static str = "bitcode-serde";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        let bytes = bitcode::serialize(value).expect("bitcode encode");
        if buf.is_empty() {
            *buf = bytes;
        } else {
            buf.extend_from_slice(&bytes);
        }
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bitcode::deserialize(bytes).expect("bitcode decode")
    }
}

/// Row name of bitcode's derive.
pub const BITCODE: &str = "bitcode";
/// Row name of wincode's derive.
pub const WINCODE: &str = "wincode";

/// wincode's default configuration with the preallocation cap raised to 64 MiB (the mesh is 6 MB).
pub const WINCODE_CONFIG: WincodeConfig = WincodeConfig::new();

thread_local! {
    static BITCODE_BUFFER: RefCell<bitcode::Buffer> = RefCell::new(bitcode::Buffer::new());
}

/// bitcode derive: encodes `value` with the thread's reused buffer into a fresh vector.
pub fn bitcode_to_vec<T: bitcode::Encode>(value: &T) -> Vec<u8> {
    BITCODE_BUFFER.with_borrow_mut(|b| b.encode(value).to_vec())
}

/// bitcode derive: decodes with the thread's reused buffer.
pub fn bitcode_from_slice<'a, T: bitcode::Decode<'a>>(bytes: &'a [u8]) -> T {
    BITCODE_BUFFER.with_borrow_mut(|b| b.decode(bytes)).expect("bitcode derive decode")
}

/// wincode derive: encodes into a fresh vector.
pub fn wincode_to_vec<T: wincode::SchemaWrite<WincodeConfig, Src = T>>(value: &T) -> Vec<u8> {
    let mut buf = Vec::new();
    wincode::config::serialize_into(&mut buf, value, WINCODE_CONFIG).expect("wincode encode");
    buf
}

/// wincode derive: decodes.
pub fn wincode_from_slice<'de, T: wincode::SchemaRead<'de, WincodeConfig, Dst = T>>(bytes: &'de [u8]) -> T {
    wincode::config::deserialize(bytes, WINCODE_CONFIG).expect("wincode decode")
}

/// The type of [`WINCODE_CONFIG`].
pub type WincodeConfig = wincode::config::Configuration<true, { 64 << 20 }>;

/// Round-trips every derive row on every dataset it can express (also run by `tests/bench_rows.rs`).
pub fn check(data: &Datasets) {
    fn same<T: PartialEq>(row: &str, dataset: &str, back: T, value: &T) {
        assert!(back == *value, "{row} does not round-trip the {dataset} dataset");
    }
    same(BITCODE, "log", bitcode_from_slice(&bitcode_to_vec(&data.log)), &data.log);
    same(BITCODE, "mesh", bitcode_from_slice(&bitcode_to_vec(&data.mesh)), &data.mesh);
    same(BITCODE, "mk48", bitcode_from_slice(&bitcode_to_vec(&data.mk48)), &data.mk48);
    let bytes = bitcode_to_vec(&data.log);
    assert!(data.log.eq_borrowed(&bitcode_from_slice(&bytes)), "bitcode borrowed decode differs");

    same(WINCODE, "log", wincode_from_slice(&wincode_to_vec(&data.log)), &data.log);
    same(WINCODE, "mesh", wincode_from_slice(&wincode_to_vec(&data.mesh)), &data.mesh);
    same(WINCODE, "minecraft_savedata", wincode_from_slice(&wincode_to_vec(&data.minecraft)), &data.minecraft);
    same(WINCODE, "mk48", wincode_from_slice(&wincode_to_vec(&data.mk48)), &data.mk48);
    let bytes = wincode_to_vec(&data.log);
    assert!(data.log.eq_borrowed(&wincode_from_slice(&bytes)), "wincode borrowed decode differs");
    // wincode writes bincode 1's bytes: the legacy crate is its peer.
    assert!(bytes == bincode1::serialize(&data.log).unwrap(), "wincode and bincode 1.3.3 differ on log");
}

fn timed<'a>(
    c: &'a mut Criterion,
    group: String,
    bytes: usize,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(group);
    g.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes as u64));
    g
}

fn bench_bitcode<T>(c: &mut Criterion, dataset: &str, value: &T)
where
    T: bitcode::Encode + for<'a> bitcode::Decode<'a> + PartialEq,
{
    let bytes = bitcode_to_vec(value);
    assert!(bitcode_from_slice::<T>(&bytes) == *value, "bitcode does not round-trip {dataset}");
    super::record_size(dataset, BITCODE, bytes.len());
    let mut buffer = bitcode::Buffer::new();
    let mut g = timed(c, format!("{dataset}/serialize"), bytes.len());
    g.bench_function(BITCODE, |b| b.iter(|| black_box(buffer.encode(black_box(value)).len())));
    g.finish();
    let mut g = timed(c, format!("{dataset}/deserialize"), bytes.len());
    g.bench_function(BITCODE, |b| b.iter(|| black_box(buffer.decode::<T>(black_box(&bytes)).unwrap())));
    g.finish();
}

fn bench_wincode<T>(c: &mut Criterion, dataset: &str, value: &T)
where
    T: wincode::SchemaWrite<WincodeConfig, Src = T>
        + for<'de> wincode::SchemaRead<'de, WincodeConfig, Dst = T>
        + PartialEq,
{
    let bytes = wincode_to_vec(value);
    assert!(wincode_from_slice::<T>(&bytes) == *value, "wincode does not round-trip {dataset}");
    super::record_size(dataset, WINCODE, bytes.len());
    let mut buf = Vec::with_capacity(bytes.len());
    let mut g = timed(c, format!("{dataset}/serialize"), bytes.len());
    g.bench_function(WINCODE, |b| {
        b.iter(|| {
            buf.clear();
            wincode::config::serialize_into(&mut buf, black_box(value), WINCODE_CONFIG).unwrap();
            black_box(buf.len());
        })
    });
    g.finish();
    let mut g = timed(c, format!("{dataset}/deserialize"), bytes.len());
    g.bench_function(WINCODE, |b| b.iter(|| black_box(wincode_from_slice::<T>(black_box(&bytes)))));
    g.finish();
}

/// Registers the derive rows (the serde rows run through `for_each_codec!`).
pub fn bench(c: &mut Criterion, data: &Datasets, rows: &mut Vec<&'static str>) {
    rows.extend([BITCODE, WINCODE]);
    bench_bitcode(c, "log", &data.log);
    let bytes = bitcode_to_vec(&data.log);
    let mut buffer = bitcode::Buffer::new();
    let mut g = timed(c, "log/borrowed".into(), bytes.len());
    g.bench_function(BITCODE, |b| {
        b.iter(|| black_box(buffer.decode::<datasets::BorrowedLogs<'_>>(black_box(&bytes)).unwrap()))
    });
    g.finish();
    bench_bitcode(c, "mesh", &data.mesh);
    bench_bitcode(c, "mk48", &data.mk48);

    bench_wincode(c, "log", &data.log);
    let bytes = wincode_to_vec(&data.log);
    let mut g = timed(c, "log/borrowed".into(), bytes.len());
    g.bench_function(WINCODE, |b| {
        b.iter(|| black_box(wincode_from_slice::<datasets::BorrowedLogs<'_>>(black_box(&bytes))))
    });
    g.finish();
    bench_wincode(c, "mesh", &data.mesh);
    bench_wincode(c, "minecraft_savedata", &data.minecraft);
    bench_wincode(c, "mk48", &data.mk48);
}
