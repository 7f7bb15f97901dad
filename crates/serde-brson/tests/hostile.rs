//! Hostile input: testkit's mutation checks on every fixture with an allocation bound,
//! decompression bombs in every kind, and depth bombs.

mod common;

use common::{CONTAINERS, fixture};
use serde_brson::model::DataTree;
use serde_brson::{Compression, ErrorKind, Extension, Options};
use testkit::hostile::ByteValues;

testkit::install_counting_allocator!();

/// The decompression limit the checks run with.
const LIMIT: usize = 4 << 20;

/// Peak allocation allowed for one decode: the output (plus a doubling `Vec`'s old buffer), the
/// codecs' fixed-size state (a Brotli ring buffer of up to 16 MiB for a 24-bit window, LZMA
/// probability tables of up to 6 MiB for lc + lp = 12) and the decoded tree.
const BOUND: usize = 3 * LIMIT + (32 << 20);

fn options(hint: Option<Extension>) -> Options {
    let options = Options::new().max_decompressed(LIMIT).max_chunk(LIMIT).allow_uncompressed(true);
    match hint {
        Some(ext) => options.extension(ext),
        None => options,
    }
}

/// The full decode: container, codec, validation, then the typed model and a Document.
fn decode_all(bytes: &[u8], hint: Option<Extension>) -> serde_brson::Result<usize> {
    let payload = options(hint).decompress(bytes)?;
    let tree = payload.deserialize::<DataTree>();
    let document = payload.to_document()?;
    let _ = serde_brson::url::urls(payload.raw())?;
    Ok(document.len() + usize::from(tree.is_ok()))
}

#[test]
fn every_fixture_survives_mutation_within_the_allocation_bound() {
    let mut total = testkit::Outcome::default();
    for name in CONTAINERS {
        let hint = Extension::from_path(name);
        let bytes = fixture(name);
        // Every byte value on one file per codec path; the interesting ones elsewhere (time).
        let exhaustive = ["synthetic-modern.lz4bson", "synthetic-modern.brson"];
        let values = if exhaustive.contains(name) { ByteValues::All } else { ByteValues::Interesting };
        let outcome = testkit::DecoderCheck::new()
            .fixture(*name, &bytes)
            .byte_values(values)
            .random_mutations(500)
            .max_alloc(|_| BOUND)
            .run(|input| decode_all(input, hint));
        assert!(outcome.ok >= 1 && outcome.err > 0, "{name}: {outcome}");
        total.runs += outcome.runs;
        total.max_peak_alloc = total.max_peak_alloc.max(outcome.max_peak_alloc);
    }
    println!("{} decodes, largest peak allocation {} bytes", total.runs, total.max_peak_alloc);
}

#[test]
fn raw_bson_payloads_survive_every_byte_change() {
    // Kind 0 reaches the BSON validator and serde directly.
    let mut bytes = b"FrDT\0\0\0\0\0".to_vec();
    bytes.extend_from_slice(&fixture("synthetic-modern.bson"));
    let outcome = testkit::DecoderCheck::new()
        .fixture("kind0", &bytes)
        .max_alloc(testkit::alloc::default_bound)
        .run(|input| decode_all(input, None));
    assert!(outcome.err > 0, "{outcome}");
}

fn zeros_document(len: usize) -> Vec<u8> {
    // { "z": <binary of len zero bytes> }
    let mut doc = Vec::with_capacity(len + 16);
    doc.extend_from_slice(&((len + 13) as i32).to_le_bytes());
    doc.extend_from_slice(&[0x05, b'z', 0]);
    doc.extend_from_slice(&(len as i32).to_le_bytes());
    doc.push(0);
    doc.resize(doc.len() + len, 0);
    doc.push(0);
    doc
}

#[test]
fn decompression_bombs_stop_at_the_limit() {
    let bomb = zeros_document(64 << 20);
    let small = Options::new().max_decompressed(1 << 20);
    for compression in [Compression::Lz4, Compression::Brotli, Compression::Lzma] {
        let file = Options::new().compress(&bomb, compression).unwrap();
        assert!(file.len() < 1 << 20, "{compression:?}: {} bytes", file.len());
        let (result, stats) = testkit::alloc::measure(|| small.decompress(&file));
        let err = result.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{compression:?}: {err}");
        assert!(stats.peak < 4 << 20, "{compression:?}: peak allocation {} bytes", stats.peak);
        let (result, stats) = testkit::alloc::measure(|| small.decompress_reader(&file[..]));
        assert_eq!(result.unwrap_err().kind(), ErrorKind::LimitExceeded, "{compression:?} (stream)");
        assert!(stats.peak < 4 << 20, "{compression:?} (stream): peak allocation {} bytes", stats.peak);
        // The default limit lets it through.
        assert_eq!(Options::new().decompress(&file).unwrap().as_bytes().len(), bomb.len());
    }
    // Kind 0 is limited too.
    let mut raw = b"FrDT\0\0\0\0\0".to_vec();
    raw.extend_from_slice(&zeros_document(2 << 20));
    let err = small.allow_uncompressed(true).decompress(&raw).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn the_lz4net_chunk_cap_holds_before_decoding() {
    let file = Options::new().lz4_chunk_size(8 << 20).compress(&zeros_document(6 << 20), Compression::Lz4).unwrap();
    let err = Options::new().max_chunk(4 << 20).decompress(&file).unwrap_err();
    assert_eq!((err.kind(), err.position()), (ErrorKind::LimitExceeded, Some(serde_brson::Position::File(9))));
    assert!(Options::new().decompress(&file).is_ok());
}

/// `depth` nested arrays under one key: `{"a": [[[…]]]}`, built in one pass.
fn nested_arrays(depth: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 * depth + 16);
    out.extend_from_slice(&((5 + 3 + 8 * (depth - 1) + 5) as i32).to_le_bytes());
    out.extend_from_slice(&[0x04, b'a', 0]);
    for level in 1..depth {
        out.extend_from_slice(&((5 + 8 * (depth - level)) as i32).to_le_bytes());
        out.extend_from_slice(&[0x04, b'0', 0]);
    }
    out.extend_from_slice(&[5, 0, 0, 0, 0]);
    out.resize(out.len() + depth, 0);
    out
}

#[test]
fn a_million_deep_tree_is_an_error_in_every_kind() {
    let child = testkit::isolate::in_child("a_million_deep_tree_is_an_error_in_every_kind", || {
        let bomb = nested_arrays(testkit::depth::MILLION);
        assert!(serde_brson::Payload::from_bson(bomb.clone(), usize::MAX).is_ok(), "the bomb is well-formed BSON");
        for compression in [Compression::None, Compression::Lz4, Compression::Brotli] {
            let file = Options::new().allow_uncompressed(true).max_depth(usize::MAX).compress(&bomb, compression);
            let file = file.unwrap_or_else(|_| panic!("{compression:?}"));
            let err = testkit::depth::assert_rejects(&file, |b| {
                Options::new().allow_uncompressed(true).from_slice::<serde_json::Value>(b)
            });
            assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
        }
        let err = testkit::depth::assert_rejects(&testkit::depth::json_arrays(testkit::depth::MILLION), |b| {
            serde_brson::json::from_slice(&[b"{\"a\":", b, b"}"].concat())
        });
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
    });
    child.assert_passed();
}

#[test]
fn a_tree_at_the_default_depth_limit_decodes_on_an_application_stack() {
    let child = testkit::isolate::in_child("a_tree_at_the_default_depth_limit_decodes_on_an_application_stack", || {
        let limit = Options::DEFAULT_MAX_DEPTH;
        let at_limit = nested_arrays(limit - 1); // the root document is level 1
        let file = Options::new().compress(&at_limit, Compression::Lz4).unwrap();
        testkit::depth::on_stack(testkit::depth::APP_STACK, || {
            let document: bson::Document = serde_brson::from_slice(&file).unwrap();
            let value: serde_json::Value = serde_brson::from_slice(&file).unwrap();
            assert_eq!(document.len(), value.as_object().unwrap().len());
            let payload = serde_brson::decompress(&file).unwrap();
            let text = serde_brson::json::to_string(payload.raw()).unwrap();
            assert_eq!(serde_brson::json::from_str(&text).unwrap(), document);
        });
        let over = Options::new().compress(&nested_arrays(limit), Compression::Lz4);
        assert_eq!(over.unwrap_err().kind(), ErrorKind::DepthLimitExceeded);
    });
    child.assert_passed();
}
