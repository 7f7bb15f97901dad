//! The cross-format benchmark: every codec of the rig on the four datasets, side by side with the
//! anchors, reported as a markdown table of times and ratios to postcard.
//!
//! ```text
//! cargo bench --bench formats                       # full run (~5 min on 2 cores), prints the table
//! cargo bench --bench formats -- --quick            # a quick look
//! cargo bench --bench formats -- '^mesh/'           # one dataset (criterion filter)
//! ```
//!
//! Criterion (not divan): it is the harness rust_serialization_benchmark uses, so our cells are
//! measured the same way as the published anchor numbers, and it leaves machine-readable estimates
//! that the report turns into the table. Every cell is checked for an exact round-trip before it
//! is timed. Sampling is flat (same iteration count per sample) so that the slow text formats on
//! the big datasets finish in seconds, not minutes.

#[path = "rig/mod.rs"]
mod rig;

use std::hint::black_box;
use std::time::SystemTime;

use criterion::{Criterion, SamplingMode, Throughput};
use serde::{Deserialize, Serialize};

use rig::{Codec, Datasets};

fn bench_dataset<C: Codec, T>(c: &mut Criterion, dataset: &str, value: &T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = rig::assert_round_trip::<C, T>(dataset, value);
    rig::record_size(dataset, C::NAME, bytes.len());

    let mut group = c.benchmark_group(format!("{dataset}/serialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    let mut buf = Vec::with_capacity(bytes.len());
    group.bench_function(C::NAME, |b| {
        b.iter(|| {
            buf.clear();
            C::encode(black_box(value), &mut buf);
            black_box(buf.len());
        })
    });
    group.finish();

    let mut group = c.benchmark_group(format!("{dataset}/deserialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(C::NAME, |b| b.iter(|| black_box(C::decode::<T>(black_box(&bytes)))));
    group.finish();
}

fn bench_borrowed<C: Codec>(c: &mut Criterion, logs: &rig::datasets::Logs) {
    if !C::BORROWS {
        return;
    }
    rig::assert_borrowed_round_trip::<C>(logs);
    let bytes = C::to_vec(logs);
    let mut group = c.benchmark_group("log/borrowed");
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(C::NAME, |b| {
        b.iter(|| black_box(C::decode::<rig::datasets::BorrowedLogs<'_>>(black_box(&bytes))))
    });
    group.finish();
}

fn main() {
    if std::env::var_os("KIPROP_PROFILE").is_some() {
        // An instruction-count run of one kiprop row (see `rig::kiprop::profile`): no criterion.
        rig::kiprop::profile(&Datasets::generate(1.0));
        return;
    }
    let started = SystemTime::now();
    let mut c = rig::criterion();
    let data = Datasets::generate(1.0);
    let mut rows = Vec::new();

    macro_rules! bench_codec {
        ($codec:ty) => {
            rows.push(<$codec as Codec>::NAME);
            bench_dataset::<$codec, _>(&mut c, "log", &data.log);
            bench_borrowed::<$codec>(&mut c, &data.log);
            bench_dataset::<$codec, _>(&mut c, "mesh", &data.mesh);
            bench_dataset::<$codec, _>(&mut c, "minecraft_savedata", &data.minecraft);
            bench_dataset::<$codec, _>(&mut c, "mk48", &data.mk48);
        };
    }
    for_each_codec!(bench_codec);
    rig::leaders::bench(&mut c, &data, &mut rows);
    rig::kiprop::bench(&mut c, &data, &mut rows);
    rows.extend(rig::flatbuf::bench(&mut c, &data));
    rig::brson::bench(&mut c, &data);
    rig::liblzma::bench(&mut c);
    rig::godot::bench(&mut c, &data);
    rig::o3de::bench(&mut c);

    c.final_summary();
    rig::report::print(started, &rows);
}
