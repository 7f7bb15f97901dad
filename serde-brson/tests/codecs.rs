//! The codec adapters on their own: chunking, stored chunks, streaming in small pieces, and
//! agreement between the streaming writers and the whole-buffer encoders.

use std::io::{BufReader, Read, Write};

use proptest::prelude::*;
use serde_brson::codec::{BrotliReader, BrotliWriter, Lz4NetReader, Lz4NetWriter, LzmaReader, LzmaWriter, lz4net};
use testkit::rng::Pcg32;

fn noise(len: usize) -> Vec<u8> {
    Pcg32::new(7, 11).bytes(len)
}

fn text(len: usize) -> Vec<u8> {
    b"Resonite data tree, slot Name Data ID ".iter().copied().cycle().take(len).collect()
}

/// Splits an lz4net stream into (flags, original, stored) per chunk.
fn chunks(mut stream: &[u8]) -> Vec<(u64, u64, u64)> {
    let varint = |s: &mut &[u8]| {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = s[0];
            *s = &s[1..];
            v |= u64::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return v;
            }
        }
    };
    let mut out = Vec::new();
    while !stream.is_empty() {
        let flags = varint(&mut stream);
        let original = varint(&mut stream);
        let stored = if flags & 1 == 1 { varint(&mut stream) } else { original };
        stream = &stream[stored as usize..];
        out.push((flags, original, stored));
    }
    out
}

#[test]
fn lz4net_writes_engine_sized_chunks_and_stores_incompressible_ones() {
    let mut data = text(lz4net::CHUNK_SIZE + 1000);
    data.extend_from_slice(&noise(5000));
    let mut w = Lz4NetWriter::new(Vec::new());
    w.write_all(&data).unwrap();
    let stream = w.finish().unwrap();
    let c = chunks(&stream);
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].0, c[0].1), (1, lz4net::CHUNK_SIZE as u64));
    assert!(c[0].2 < c[0].1 / 10);
    assert_eq!(c[1].1, 6000);
    // Pure noise is stored.
    let mut w = Lz4NetWriter::new(Vec::new());
    w.write_all(&noise(3000)).unwrap();
    assert_eq!(chunks(&w.finish().unwrap()), [(0, 3000, 3000)]);
    // Nothing in, nothing out.
    assert!(Lz4NetWriter::new(Vec::new()).finish().unwrap().is_empty());
}

#[test]
fn lz4net_reader_through_a_tiny_buffer_and_byte_reads() {
    let data = [text(70_000), noise(9_000), text(33)].concat();
    let mut w = Lz4NetWriter::with_chunk_size(Vec::new(), 4096);
    for piece in data.chunks(777) {
        w.write_all(piece).unwrap();
    }
    let stream = w.finish().unwrap();
    let mut out = Vec::new();
    Lz4NetReader::new(BufReader::with_capacity(5, &stream[..])).read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    let mut reader = Lz4NetReader::new(&stream[..]);
    let mut small = Vec::new();
    let mut buf = [0u8; 13];
    loop {
        let n = reader.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        small.extend_from_slice(&buf[..n]);
    }
    assert_eq!(small, data);
}

#[test]
fn lzma_writer_and_reader() {
    let data = [text(300_000), noise(2000)].concat();
    let mut w = LzmaWriter::new(Vec::new());
    for piece in data.chunks(10_000) {
        w.write_all(piece).unwrap();
    }
    let body = w.finish().unwrap();
    assert_eq!(body[..5], [0x5D, 0, 0, 0x20, 0]);
    let mut reader = LzmaReader::new(&body[..], 1 << 20, 0).unwrap();
    assert_eq!(reader.header().uncompressed_size, data.len() as u64);
    assert_eq!(reader.header().compressed_size, (body.len() - 21) as u64);
    let mut out = Vec::new();
    reader.read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    assert!(reader.into_inner().unwrap().is_empty());
    // The size limit is checked from the header.
    let err = LzmaReader::new(&body[..], 1000, 0).err().unwrap();
    assert_eq!(err.kind(), serde_brson::ErrorKind::LimitExceeded);
}

#[test]
fn brotli_writer_and_reader() {
    let data = [text(200_000), noise(3000)].concat();
    let mut w = BrotliWriter::new(Vec::new());
    for piece in data.chunks(4099) {
        w.write_all(piece).unwrap();
    }
    let stream = w.finish().unwrap();
    let mut out = Vec::new();
    BrotliReader::new(BufReader::with_capacity(3, &stream[..])).read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    let mut trailing = stream.clone();
    trailing.push(1);
    let err = BrotliReader::new(&trailing[..]).read_to_end(&mut Vec::new()).unwrap_err();
    assert_eq!(serde_brson::Error::from(err).kind(), serde_brson::ErrorKind::TrailingBytes);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn lz4net_round_trips(data in proptest::collection::vec(prop_oneof![Just(b'a'), any::<u8>()], 0..20_000), chunk in 1usize..9000, piece in 1usize..5000) {
        let mut w = Lz4NetWriter::with_chunk_size(Vec::new(), chunk);
        for p in data.chunks(piece) {
            w.write_all(p).unwrap();
        }
        let stream = w.finish().unwrap();
        prop_assert!(chunks(&stream).iter().all(|c| c.1 as usize <= chunk && c.2 <= c.1));
        let mut out = Vec::new();
        Lz4NetReader::new(BufReader::with_capacity(64, &stream[..])).read_to_end(&mut out).unwrap();
        prop_assert_eq!(out, data);
    }
}

/// A BSON document of `len` bytes of binary data, half text and half noise in 256 KiB stretches
/// (so that some 1 MiB chunks compress and a noise-only tail is stored).
fn big_bson(len: usize) -> Vec<u8> {
    let mut data = Vec::with_capacity(len);
    let (text, noise) = (text(len), noise(len));
    for (i, at) in (0..len).step_by(256 << 10).enumerate() {
        let end = (at + (256 << 10)).min(len);
        data.extend_from_slice(if i % 2 == 0 { &text[at..end] } else { &noise[at..end] });
    }
    data.extend_from_slice(&noise[..(1 << 20) + 17]);
    let doc = serde_brson::bson::doc! { "d": serde_brson::bson::Binary {
    subtype: serde_brson::bson::spec::BinarySubtype::Generic, bytes: data } };
    serde_brson::bson::serialize_to_vec(&doc).unwrap()
}

#[test]
fn lz4net_on_several_threads_writes_the_bytes_of_one_thread() {
    let bson = big_bson(5 << 20);
    let one = serde_brson::Options::new().threads(1).compress(&bson, serde_brson::Compression::Lz4).unwrap();
    // The streaming writer never spawns: a second, independent single-thread encoding.
    let mut w = Lz4NetWriter::new(Vec::new());
    w.write_all(&bson).unwrap();
    let streamed = w.finish().unwrap();
    assert_eq!(one[one.len() - streamed.len()..], streamed[..]);
    let flags: Vec<u64> = chunks(&streamed).iter().map(|c| c.0).collect();
    assert!(flags.contains(&0) && flags.contains(&1), "both stored and compressed chunks: {flags:?}");
    for threads in [0, 2, 3, 4, 8, 64] {
        let opts = serde_brson::Options::new().threads(threads);
        assert!(opts.compress(&bson, serde_brson::Compression::Lz4).unwrap() == one, "{threads} threads");
        assert!(opts.decompress(&one).unwrap().as_bytes() == &bson[..], "{threads} threads");
    }
    assert!(lz4net::encode_to_vec(&bson, lz4net::CHUNK_SIZE) == streamed);
    assert!(lz4net::decode_to_vec(&streamed, lz4net::DEFAULT_MAX_CHUNK, usize::MAX).unwrap() == bson);
    assert_eq!(lz4net::threads(bson.len(), 6, 1), 1);
    assert_eq!(lz4net::threads(bson.len(), 6, 4), 4);
    assert_eq!(lz4net::threads(bson.len(), 1, 4), 1);
    assert_eq!(lz4net::threads(1 << 20, 6, 4), 1);
}

#[test]
fn lz4net_on_several_threads_reports_the_first_bad_block_as_one_thread_does() {
    let bson = big_bson(6 << 20);
    let file = serde_brson::Options::new().threads(1).compress(&bson, serde_brson::Compression::Lz4).unwrap();
    let body = 9; // FrDT, version, kind: the header of a version 0 file
    // Where each chunk's data starts: after its two or three LEB128 varints.
    let varint_len = |v: u64| (64 - v.max(1).leading_zeros()).div_ceil(7) as usize;
    let mut starts = Vec::new();
    let mut at = body;
    for (flags, original, stored) in chunks(&file[body..]) {
        let compressed = flags & 1 == 1;
        let start = at + varint_len(flags) + varint_len(original) + if compressed { varint_len(stored) } else { 0 };
        starts.push(start);
        at = start + if compressed { stored } else { original } as usize;
    }
    assert_eq!(at, file.len());
    assert!(starts.len() >= 6);
    // Bad blocks in the second and the fifth chunk, and a cut-off last chunk: every thread count
    // reports the second chunk's block, as the sequential decoder does.
    let mut bad = file.clone();
    for &i in &[1, 4] {
        bad[starts[i]] = 0xFF;
        bad[starts[i] + 1] = 0xFF;
    }
    bad.truncate(bad.len() - 3);
    let one = serde_brson::Options::new().threads(1).decompress(&bad).unwrap_err().to_string();
    assert!(one.starts_with("invalid LZ4 block") && one.ends_with(&format!("at file offset {}", starts[1])), "{one}");
    for threads in [0, 2, 3, 5, 8] {
        let many = serde_brson::Options::new().threads(threads).decompress(&bad).unwrap_err().to_string();
        assert_eq!(many, one, "{threads} threads");
    }
}

/// A document `{"d": <binary>}` whose BSON is exactly `len` bytes: `chunk`-sized stretches of text
/// and noise in turn, so that with `chunk`-byte lz4net chunks some are compressed and some stored.
fn doc_of_len(len: usize, chunk: usize) -> serde_brson::bson::Document {
    let bytes = len - 13; // length, type, "d\0", binary length, subtype, terminator
    let (text, noise) = (text(bytes), noise(bytes));
    let mut data = Vec::with_capacity(bytes);
    for (i, at) in (0..bytes).step_by(chunk).enumerate() {
        let end = (at + chunk).min(bytes);
        data.extend_from_slice(if i % 3 == 1 { &noise[at..end] } else { &text[at..end] });
    }
    serde_brson::bson::doc! { "d": serde_brson::bson::Binary {
    subtype: serde_brson::bson::spec::BinarySubtype::Generic, bytes: data } }
}

#[test]
fn lz4net_to_writer_and_to_vec_on_1_to_4_threads_write_the_bytes_of_the_streaming_writer() {
    let kib = 1 << 10;
    // Around whole numbers of chunks, below and above the 2 MiB where threads start.
    let cases = [(256 * kib, 8), (256 * kib, 9), (256 * kib, 11), (128 * kib, 16), (128 * kib, 23), (1024 * kib, 3)];
    for (chunk, count) in cases {
        for len in [chunk * count - 1, chunk * count, chunk * count + 1, chunk * count + chunk / 2] {
            let doc = doc_of_len(len, chunk);
            let bson = serde_brson::bson::serialize_to_vec(&doc).unwrap();
            assert_eq!(bson.len(), len);
            let mut w = Lz4NetWriter::with_chunk_size(Vec::new(), chunk);
            w.write_all(&bson).unwrap();
            let streamed = w.finish().unwrap();
            let flags: Vec<u64> = chunks(&streamed).iter().map(|c| c.0).collect();
            assert_eq!(flags.len(), len.div_ceil(chunk));
            assert!(flags.contains(&0) && flags.contains(&1), "stored and compressed chunks: {flags:?}");
            for threads in 0..=4 {
                let opts = serde_brson::Options::new().threads(threads).lz4_chunk_size(chunk);
                let file = opts.to_vec(&doc, serde_brson::Compression::Lz4).unwrap();
                assert!(file[9..] == streamed[..], "to_vec, {len} bytes, {chunk}-byte chunks, {threads} threads");
                let mut written = Vec::new();
                opts.to_writer(&mut written, &doc, serde_brson::Compression::Lz4).unwrap();
                assert!(written == file, "to_writer, {len} bytes, {chunk}-byte chunks, {threads} threads");
                assert!(opts.decompress(&file).unwrap().as_bytes() == &bson[..], "{len}, {chunk}, {threads}");
            }
        }
    }
}

/// A writer that fails once it has taken `left` bytes.
struct FailAfter {
    left: usize,
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::other("disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn lz4net_to_writer_on_several_threads_reports_the_writer_error_as_one_thread_does() {
    let doc = doc_of_len(5 << 20, 1 << 20);
    let opts = serde_brson::Options::new().threads(1);
    let one = opts.to_writer(FailAfter { left: 3 << 19 }, &doc, serde_brson::Compression::Lz4).unwrap_err();
    for threads in 2..=4 {
        let opts = serde_brson::Options::new().threads(threads);
        let many = opts.to_writer(FailAfter { left: 3 << 19 }, &doc, serde_brson::Compression::Lz4).unwrap_err();
        assert_eq!((many.kind(), many.to_string()), (one.kind(), one.to_string()), "{threads} threads");
    }
}
