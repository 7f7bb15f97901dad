//! serde-brson rows (issue 6 §8).
//!
//! * `brson_world/{decode,encode}/…`: a seeded synthetic Resonite world (≥ 20 MB of BSON, 12,000
//!   slots with components, a type table and assets) through the typed model, per kind, next to
//!   "the sum of its parts": the raw codec on the same BSON plus `bson`'s serde on the same model
//!   (`parts-<kind>`). Target: overhead ≤ 10 %.
//! * `brson_world/{decode,encode}/lz4net` vs `lz4_flex-block`: the lz4net chunk stream against one
//!   raw lz4_flex block of the same bytes. Target: ≥ 90 % of the raw block throughput.
//! * `<dataset>/{serialize,deserialize}/brson-lz4` on the four standard datasets: BSON in the
//!   lz4net container, next to the `bson` anchor row. (Not a generic [`Codec`](super::Codec) row:
//!   the payload is decompressed into a buffer, so `decode` cannot hand out values borrowing from
//!   the caller's bytes as the trait requires.)
//!
//! All `brson_world` rows report throughput in bytes of BSON, so criterion prints MB/s; `summary`
//! prints the MB/s table and the ratios after the run.

use std::hint::black_box;
use std::io::{Read, Write};
use std::time::{Duration, SystemTime};

use criterion::{Criterion, SamplingMode, Throughput};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_gamefmt::brson::bson::doc;
use serde_gamefmt::brson::codec::lz4net;
use serde_gamefmt::brson::model::{ComponentEntry, DataTree, DtString, Field, Guid, Slot, TypeRef};
use serde_gamefmt::brson::{self as brson, Compression};
use testkit::rng::Pcg32;

/// The dataset name of the world rows.
pub const WORLD: &str = "brson_world";

/// Slots in the world.
pub const WORLD_SLOTS: usize = 12_000;

const KINDS: [(Compression, &str); 3] =
    [(Compression::Lz4, "lz4"), (Compression::Lzma, "lzma"), (Compression::Brotli, "brotli")];

fn guid(rng: &mut Pcg32) -> Guid {
    Guid::from_u128((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
}

fn field<T>(rng: &mut Pcg32, data: T) -> Field<T> {
    Field::new(guid(rng), data)
}

fn component(rng: &mut Pcg32, kind: u32, assets: &[Guid]) -> ComponentEntry {
    let g = |rng: &mut Pcg32| guid(rng).0;
    let data = match kind {
        0 => doc! {
            "ID": g(rng), "persistent-ID": g(rng),
            "UpdateOrder": { "ID": g(rng), "Data": 0 }, "Enabled": { "ID": g(rng), "Data": true },
            "Mesh": { "ID": g(rng), "Data": rng.pick(assets).0.clone() },
            "Materials": { "ID": g(rng), "Data": [ { "ID": g(rng), "Data": rng.pick(assets).0.clone() } ] },
            "MaterialPropertyBlocks": { "ID": g(rng), "Data": [] },
            "ShadowCastMode": { "ID": g(rng), "Data": "On" },
            "MotionVectorMode": { "ID": g(rng), "Data": "Object" },
            "SortingOrder": { "ID": g(rng), "Data": rng.below(8) as i32 },
        },
        1 => doc! {
            "ID": g(rng), "persistent-ID": g(rng),
            "UpdateOrder": { "ID": g(rng), "Data": 0 }, "Enabled": { "ID": g(rng), "Data": true },
            "Offset": { "ID": g(rng), "Data": [f64::from(rng.f32_in(-1.0, 1.0)), 0.0, f64::from(rng.f32_in(-1.0, 1.0))] },
            "Type": { "ID": g(rng), "Data": "Static" },
            "Mass": { "ID": g(rng), "Data": 1.0 },
            "CharacterCollider": { "ID": g(rng), "Data": false },
            "Size": { "ID": g(rng), "Data": [1.0, f64::from(rng.f32_in(0.1, 4.0)), 1.0] },
        },
        _ => doc! {
            "ID": g(rng), "persistent-ID": g(rng),
            "UpdateOrder": { "ID": g(rng), "Data": 0 }, "Enabled": { "ID": g(rng), "Data": true },
            "Value": { "ID": g(rng), "Data": [f64::from(rng.unit_f32()), f64::from(rng.unit_f32()), f64::from(rng.unit_f32()), 1.0, "sRGBAlpha"] },
        },
    };
    ComponentEntry { type_ref: TypeRef::Index(kind as i32), data: raw_doc(&data), extra: Default::default() }
}

/// A component body as the model keeps it: its BSON bytes.
fn raw_doc(doc: &serde_gamefmt::brson::bson::Document) -> serde_gamefmt::brson::bson::RawDocumentBuf {
    doc.try_into().expect("a component body encodes")
}

fn slot(rng: &mut Pcg32, name: String, parent: &Guid, assets: &[Guid]) -> Slot {
    let count = 1 + rng.below(3) as u32;
    let first = rng.below(3) as u32;
    let components = (0..count).map(|k| component(rng, (k + first) % 3, assets)).collect();
    let position =
        [f64::from(rng.f32_in(-50.0, 50.0)), f64::from(rng.f32_in(0.0, 5.0)), f64::from(rng.f32_in(-50.0, 50.0))];
    let rotation = [0.0, f64::from(rng.unit_f32()), 0.0, 1.0];
    Slot {
        id: guid(rng),
        persistent_id: Some(guid(rng)),
        name: Some(field(rng, Some(DtString::Text(name)))),
        tag: Some(field(rng, None)),
        active: Some(field(rng, true)),
        position: Some(field(rng, position)),
        rotation: Some(field(rng, rotation)),
        scale: Some(field(rng, [1.0, 1.0, 1.0])),
        order_offset: Some(field(rng, 0)),
        parent_reference: Some(parent.clone()),
        components: Some(field(rng, components)),
        children: Vec::new(),
        ..Slot::default()
    }
}

/// The seeded synthetic world: 60 groups of 200 slots (12,000) under one root, 1–3 components
/// each, a `Types` table, 400 asset providers with `@resdb` URLs.
pub fn world() -> DataTree {
    world_with(WORLD_SLOTS)
}

/// The same world with about `slots` slots (60 groups).
pub fn world_with(slots: usize) -> DataTree {
    let mut rng = Pcg32::new(6, 2026);
    let asset_ids: Vec<Guid> = (0..400).map(|_| guid(&mut rng)).collect();
    let assets = asset_ids
        .iter()
        .map(|id| {
            let hash: String = (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect();
            let data = doc! {
                "ID": id.0.clone(), "persistent-ID": guid(&mut rng).0,
                "UpdateOrder": { "ID": guid(&mut rng).0, "Data": 0 }, "Enabled": { "ID": guid(&mut rng).0, "Data": true },
                "URL": { "ID": guid(&mut rng).0, "Data": format!("@resdb:///{hash}.webp") },
                "FilterMode": { "ID": guid(&mut rng).0, "Data": "Anisotropic" },
            };
            ComponentEntry { type_ref: TypeRef::Index(3), data: raw_doc(&data), extra: Default::default() }
        })
        .collect();
    let mut root = slot(&mut rng, "World root".into(), &Guid::from_u128(0), &asset_ids);
    let per_group = (slots / 60).max(1);
    for g in 0..60 {
        let mut group = slot(&mut rng, format!("Group {g}"), &root.id, &asset_ids);
        for i in 0..per_group - 1 {
            let item = slot(&mut rng, format!("Item {g}.{i}"), &group.id, &asset_ids);
            group.children.push(item);
        }
        root.children.push(group);
    }
    DataTree {
        version_number: Some("2025.11.21.1200".into()),
        feature_flags: Some(
            [("ColorManagement", 0), ("ProtoFlux", 0)].into_iter().map(|(k, v)| (k.to_owned(), v.into())).collect(),
        ),
        types: Some(
            [
                "[FrooxEngine]FrooxEngine.MeshRenderer",
                "[FrooxEngine]FrooxEngine.BoxCollider",
                "[FrooxEngine]FrooxEngine.ValueField<colorX>",
                "[FrooxEngine]FrooxEngine.StaticTexture2D",
            ]
            .map(String::from)
            .to_vec(),
        ),
        type_versions: Some([("[FrooxEngine]FrooxEngine.BoxCollider".to_owned(), 1.into())].into_iter().collect()),
        object: root,
        assets: Some(assets),
        ..DataTree::default()
    }
}

/// The raw codecs on their own ("the parts").
pub mod raw {
    use super::*;

    /// Compresses `bson` with the raw codec of `kind` (one LZ4 block; LZMA1 with the engine's
    /// settings and no header; Brotli q9 lgwin16).
    pub fn compress(kind: Compression, bson: &[u8]) -> Vec<u8> {
        match kind {
            Compression::Lz4 => lz4_flex::block::compress(bson),
            Compression::Lzma => {
                let options = lzma_rust2::LzmaOptions::new(
                    1 << 21,
                    3,
                    0,
                    2,
                    lzma_rust2::EncodeMode::Normal,
                    32,
                    lzma_rust2::MfType::Bt4,
                    0,
                );
                let mut w = lzma_rust2::LzmaWriter::new_no_header(Vec::new(), &options, false).unwrap();
                w.write_all(bson).unwrap();
                w.finish().unwrap()
            }
            Compression::Brotli => {
                let params = brotli::enc::BrotliEncoderParams { quality: 9, lgwin: 16, ..Default::default() };
                let mut out = Vec::new();
                brotli::BrotliCompress(&mut &bson[..], &mut out, &params).unwrap();
                out
            }
            Compression::None => bson.to_vec(),
        }
    }

    /// Decompresses what [`compress`] produced (`len` = the BSON length).
    pub fn decompress(kind: Compression, data: &[u8], len: usize) -> Vec<u8> {
        match kind {
            Compression::Lz4 => lz4_flex::block::decompress(data, len).unwrap(),
            Compression::Lzma => {
                let mut r = lzma_rust2::LzmaReader::new_with_props(data, len as u64, 0x5D, 1 << 21, None).unwrap();
                let mut out = Vec::with_capacity(len);
                r.read_to_end(&mut out).unwrap();
                out
            }
            Compression::Brotli => {
                let mut out = Vec::with_capacity(len);
                brotli::BrotliDecompress(&mut &data[..], &mut out).unwrap();
                out
            }
            Compression::None => data.to_vec(),
        }
    }
}

/// Checks every row's round trip (also run by `tests/bench_rows.rs`) and returns the world's
/// BSON.
pub fn check_world(world: &DataTree) -> Vec<u8> {
    let bson = brson::bson::serialize_to_vec(world).unwrap();
    for (kind, _) in KINDS {
        let file = brson::to_vec(world, kind).unwrap();
        let back: DataTree = brson::from_slice(&file).unwrap();
        assert!(back == *world, "{kind:?}: the world does not round-trip");
        let parts = raw::decompress(kind, &raw::compress(kind, &bson), bson.len());
        assert!(parts == bson, "{kind:?}: the raw codec does not round-trip");
    }
    bson
}

/// `<dataset>/…/brson-lz4` on a standard dataset: BSON in the lz4net container.
pub fn check_dataset<T: Serialize + DeserializeOwned + PartialEq>(value: &T) -> Vec<u8> {
    let file = brson::to_vec(value, Compression::Lz4).unwrap();
    let back: T = brson::from_slice(&file).unwrap();
    assert!(back == *value, "brson-lz4 does not round-trip");
    file
}

/// A `brson_world` group: flat sampling, 10 samples, throughput in bytes of BSON.
pub fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
    bytes: usize,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Bytes(bytes as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    g
}

/// Registers every brson row.
pub fn bench(c: &mut Criterion, data: &super::Datasets) {
    let started = SystemTime::now();
    let world = world();
    let bson = check_world(&world);
    assert!(bson.len() >= 20_000_000, "the world is {} bytes of BSON", bson.len());
    super::record_size(WORLD, "bson", bson.len());

    for (kind, label) in KINDS {
        let file = brson::to_vec(&world, kind).unwrap();
        let raw = raw::compress(kind, &bson);
        super::record_size(WORLD, &format!("brson-{label}"), file.len());
        super::record_size(WORLD, &format!("parts-{label}"), raw.len());

        let mut g = group(c, &format!("{WORLD}/decode"), bson.len());
        g.bench_function(format!("brson-{label}"), |b| {
            b.iter(|| black_box(brson::from_slice::<DataTree>(black_box(&file)).unwrap()))
        });
        g.bench_function(format!("parts-{label}"), |b| {
            b.iter(|| {
                let bytes = raw::decompress(kind, black_box(&raw), bson.len());
                black_box(brson::bson::deserialize_from_slice::<DataTree>(&bytes).unwrap())
            })
        });
        g.finish();

        let mut g = group(c, &format!("{WORLD}/encode"), bson.len());
        g.bench_function(format!("brson-{label}"), |b| {
            b.iter(|| black_box(brson::to_vec(black_box(&world), kind).unwrap()))
        });
        g.bench_function(format!("parts-{label}"), |b| {
            b.iter(|| {
                let bytes = brson::bson::serialize_to_vec(black_box(&world)).unwrap();
                black_box(raw::compress(kind, &bytes))
            })
        });
        g.finish();
    }

    // The lz4net chunk stream against one raw lz4_flex block, codec only.
    let stream = lz4net::encode_to_vec(&bson, lz4net::CHUNK_SIZE);
    assert!(lz4net::decode_to_vec(&stream, lz4net::DEFAULT_MAX_CHUNK, usize::MAX).unwrap() == bson);
    let block = lz4_flex::block::compress(&bson);
    let mut g = group(c, &format!("{WORLD}/decode"), bson.len());
    g.bench_function("lz4net", |b| {
        b.iter(|| black_box(lz4net::decode_to_vec(black_box(&stream), lz4net::DEFAULT_MAX_CHUNK, usize::MAX).unwrap()))
    });
    g.bench_function("lz4_flex-block", |b| {
        b.iter(|| black_box(lz4_flex::block::decompress(black_box(&block), bson.len()).unwrap()))
    });
    g.finish();
    let mut g = group(c, &format!("{WORLD}/encode"), bson.len());
    g.bench_function("lz4net", |b| b.iter(|| black_box(lz4net::encode_to_vec(black_box(&bson), lz4net::CHUNK_SIZE))));
    g.bench_function("lz4_flex-block", |b| b.iter(|| black_box(lz4_flex::block::compress(black_box(&bson)))));
    g.finish();

    dataset_rows(c, "log", &data.log);
    dataset_rows(c, "mesh", &data.mesh);
    dataset_rows(c, "minecraft_savedata", &data.minecraft);
    dataset_rows(c, "mk48", &data.mk48);

    summary(started, bson.len());
}

fn dataset_rows<T: Serialize + DeserializeOwned + PartialEq>(c: &mut Criterion, dataset: &str, value: &T) {
    let file = check_dataset(value);
    super::record_size(dataset, "brson-lz4", file.len());
    let mut g = c.benchmark_group(format!("{dataset}/serialize"));
    g.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(file.len() as u64));
    g.bench_function("brson-lz4", |b| b.iter(|| black_box(brson::to_vec(black_box(value), Compression::Lz4).unwrap())));
    g.finish();
    let mut g = c.benchmark_group(format!("{dataset}/deserialize"));
    g.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(file.len() as u64));
    g.bench_function("brson-lz4", |b| b.iter(|| black_box(brson::from_slice::<T>(black_box(&file)).unwrap())));
    g.finish();
}

/// Prints MB/s (of BSON) for every world row that ran, and the ratios.
fn summary(started: SystemTime, bson_len: usize) {
    let timings = super::report::collect(&super::report::criterion_dir(), started);
    let time = |op: &str, row: &str| {
        timings.iter().find(|t| t.dataset == WORLD && t.op == op && t.format == row).map(|t| t.mean_ns)
    };
    let mbps = |ns: f64| bson_len as f64 / ns * 1e3;
    println!("\n### {WORLD}: {:.1} MB of BSON, {WORLD_SLOTS} slots\n", bson_len as f64 / 1e6);
    println!("| op | row | MB/s | vs parts / raw block |\n|---|---|--:|--:|");
    for op in ["decode", "encode"] {
        for (_, label) in KINDS {
            let ours = time(op, &format!("brson-{label}"));
            let parts = time(op, &format!("parts-{label}"));
            if let (Some(ours), Some(parts)) = (ours, parts) {
                println!(
                    "| {op} | brson-{label} | {:.1} | overhead {:+.1} % (target ≤ 10 %) |",
                    mbps(ours),
                    (ours / parts - 1.0) * 100.0
                );
                println!("| {op} | parts-{label} | {:.1} | |", mbps(parts));
            }
        }
        if let (Some(net), Some(block)) = (time(op, "lz4net"), time(op, "lz4_flex-block")) {
            println!(
                "| {op} | lz4net | {:.0} | {:.0} % of the raw block (target ≥ 90 %) |",
                mbps(net),
                block / net * 100.0
            );
            println!("| {op} | lz4_flex-block | {:.0} | |", mbps(block));
        }
    }
}
