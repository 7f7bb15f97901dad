//! The C liblzma (xz-utils through the `liblzma` crate) as the anchor of serde-brson's LZMA rows
//! (issue 17 §3): `brson_world/{encode,decode}/liblzma` on the world's BSON at the engine's
//! settings (LZMA1, lc 3, lp 0, pb 2, 2 MiB dictionary, `bt4`, 32 fast bytes, normal mode), in the
//! `.lzma` ("alone") format (a 13-byte header; the engine's `.7zbson` puts a 21-byte one before the
//! same raw stream). Compare with `parts-lzma` (lzma-rust2's
//! raw stream at the same settings) and `brson-lzma`.
//!
//! liblzma is also a peer here: it decodes the raw stream lzma-rust2 writes at the engine's
//! settings, and lzma-rust2 decodes liblzma's (which ends with an end marker).

use std::hint::black_box;
use std::io::{Read, Write};

use criterion::Criterion;
use liblzma::stream::{LzmaOptions, MatchFinder, Mode, Stream};

/// The engine's LZMA settings in liblzma's terms.
pub fn engine_options() -> LzmaOptions {
    let mut o = LzmaOptions::new_preset(6).expect("preset 6");
    o.dict_size(1 << 21)
        .literal_context_bits(3)
        .literal_position_bits(0)
        .position_bits(2)
        .mode(Mode::Normal)
        .nice_len(32)
        .match_finder(MatchFinder::BinaryTree4)
        .depth(0);
    o
}

/// Compresses `bson` into a `.lzma` stream with liblzma.
pub fn compress(bson: &[u8]) -> Vec<u8> {
    let stream = Stream::new_lzma_encoder(&engine_options()).expect("liblzma encoder");
    let mut w = liblzma::write::XzEncoder::new_stream(Vec::with_capacity(bson.len() / 3), stream);
    w.write_all(bson).expect("liblzma encode");
    w.finish().expect("liblzma finish")
}

/// Decompresses a `.lzma` stream with liblzma.
pub fn decompress(data: &[u8], len: usize) -> Vec<u8> {
    let stream = Stream::new_lzma_decoder(u64::MAX).expect("liblzma decoder");
    let mut out = Vec::with_capacity(len);
    liblzma::read::XzDecoder::new_stream(data, stream).read_to_end(&mut out).expect("liblzma decode");
    out
}

/// The `.lzma` header the engine writes before lzma-rust2's raw stream: properties, dictionary
/// size, uncompressed size.
pub fn engine_stream(raw: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0x5D];
    out.extend_from_slice(&(1u32 << 21).to_le_bytes());
    out.extend_from_slice(&(len as u64).to_le_bytes());
    out.extend_from_slice(raw);
    out
}

/// Both directions against each other: liblzma reads the engine's raw stream (as lzma-rust2 writes
/// it, behind a `.lzma` header), and lzma-rust2 (the rig's `parts` decoder) reads liblzma's raw data
/// (which ends with an end marker).
pub fn check(bson: &[u8]) -> Vec<u8> {
    use serde_gamefmt::brson::Compression::Lzma;
    let ours = super::brson::raw::compress(Lzma, bson);
    assert!(decompress(&engine_stream(&ours, bson.len()), bson.len()) == bson, "liblzma cannot read our LZMA");
    let theirs = compress(bson);
    assert!(
        super::brson::raw::decompress(Lzma, &theirs[13..], bson.len()) == bson,
        "lzma-rust2 cannot read liblzma's LZMA"
    );
    theirs
}

/// Registers `brson_world/{encode,decode}/liblzma`.
pub fn bench(c: &mut Criterion) {
    let world = super::brson::world();
    let bson = serde_gamefmt::brson::bson::serialize_to_vec(&world).unwrap();
    let theirs = check(&bson);
    super::record_size(super::brson::WORLD, "liblzma", theirs.len());
    let mut g = super::brson::group(c, &format!("{}/encode", super::brson::WORLD), bson.len());
    g.bench_function("liblzma", |b| b.iter(|| black_box(compress(black_box(&bson)))));
    g.finish();
    let mut g = super::brson::group(c, &format!("{}/decode", super::brson::WORLD), bson.len());
    g.bench_function("liblzma", |b| b.iter(|| black_box(decompress(black_box(&theirs), bson.len()))));
    g.finish();
}
