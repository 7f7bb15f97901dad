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

/// `{"Object": {"ID": "", "Children": [{"ID": ""} × slots]}}`: 16 bytes of BSON per child slot,
/// which the typed model holds as a 1.3 KB `Slot`.
fn slot_flood(slots: usize) -> Vec<u8> {
    let child = [0x03, 0, 14, 0, 0, 0, 0x02, b'I', b'D', 0, 1, 0, 0, 0, 0, 0];
    let children = 4 + child.len() * slots + 1;
    let object = 4 + 9 + 10 + children + 1;
    let mut out = Vec::with_capacity(object + 16);
    out.extend_from_slice(&((4 + 8 + object + 1) as i32).to_le_bytes());
    out.extend_from_slice(b"\x03Object\0");
    out.extend_from_slice(&(object as i32).to_le_bytes());
    out.extend_from_slice(b"\x02ID\0\x01\0\0\0\0\x04Children\0");
    out.extend_from_slice(&(children as i32).to_le_bytes());
    for _ in 0..slots {
        out.extend_from_slice(&child);
    }
    out.extend_from_slice(&[0, 0, 0]);
    out
}

/// Issue 12, failure 8: `max_decompressed` did not bound the typed model. A 17 KB lz4net file
/// (4.3 MB of BSON: 270,000 child slots of 16 bytes) built a 322 MiB `DataTree` (640 MiB at the
/// peak). The model is now counted as it is built against `model_budget_ratio` × the payload
/// + 2 MiB, and running out is `LimitExceeded`.
#[test]
fn max_decompressed_bounds_the_typed_model() {
    let bson = slot_flood(270_000);
    assert!(serde_brson::Payload::from_bson(bson.clone(), 8).is_ok());
    let file = Options::new().compress(&bson, Compression::Lz4).unwrap();
    assert!(file.len() < 20_000, "{}", file.len());
    let budget = 32 * bson.len() + (2 << 20);
    let (result, stats) = testkit::alloc::measure(|| serde_brson::from_slice::<DataTree>(&file));
    let err = result.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
    assert!(err.message().contains("typed model") && err.message().contains(&budget.to_string()), "{err}");
    assert!(stats.peak < budget + 2 * bson.len() + (4 << 20), "peak {} bytes, budget {budget}", stats.peak);
    assert!(stats.peak < 100 << 20, "peak {} bytes", stats.peak);

    // The budget is the model's: a smaller ratio stops it sooner, a smaller cap before decoding,
    // and a large enough ratio lets the tree through.
    let (result, stats) =
        testkit::alloc::measure(|| Options::new().model_budget_ratio(4).from_slice::<DataTree>(&file));
    assert_eq!(result.unwrap_err().kind(), ErrorKind::LimitExceeded);
    assert!(stats.peak < 4 * bson.len() + 2 * bson.len() + (4 << 20), "peak {} bytes", stats.peak);
    let err = Options::new().max_decompressed(1 << 20).from_slice::<DataTree>(&file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    let small = Options::new().compress(&slot_flood(1000), Compression::Lz4).unwrap();
    assert_eq!(serde_brson::from_slice::<DataTree>(&small).unwrap().object.children.len(), 1000);
    let file = Options::new().compress(&slot_flood(20_000), Compression::Lz4).unwrap();
    assert_eq!(serde_brson::from_slice::<DataTree>(&file).unwrap_err().kind(), ErrorKind::LimitExceeded);
    let tree = Options::new().model_budget_ratio(300).from_slice::<DataTree>(&file).unwrap();
    assert_eq!(tree.object.children.len(), 20_000);

    // The same for a `Document` of the payload: a 2-byte `null` array element is a 112-byte `Bson`.
    let mut nulls = vec![0u8; 4];
    nulls.extend_from_slice(b"\x04a\0\0\0\0\0");
    nulls.extend(std::iter::repeat_n([0x0A, 0], 1 << 20).flatten());
    nulls.extend_from_slice(&[0, 0]);
    let array_len = (nulls.len() - 4 - 3 - 1) as i32;
    nulls[7..11].copy_from_slice(&array_len.to_le_bytes());
    let total = nulls.len() as i32;
    nulls[..4].copy_from_slice(&total.to_le_bytes());
    let payload = serde_brson::Payload::from_bson(nulls, 8).unwrap();
    let (result, stats) = testkit::alloc::measure(|| payload.to_document());
    assert_eq!(result.unwrap_err().kind(), ErrorKind::LimitExceeded);
    assert!(stats.peak < 33 * payload.as_bytes().len() + (4 << 20), "peak {} bytes", stats.peak);
}

/// Issue 12, failure 9: `json::from_str` re-converted every `$`-keyed object's whole subtree to
/// read it as Extended JSON, at every level: work and allocation grew as depth × size. Now each
/// object is looked at once, in the shapes Extended JSON uses.
#[test]
fn json_from_str_is_linear_in_dollar_key_nesting() {
    let leaf = format!("\"{}\"", "x".repeat(1 << 20));
    let text = testkit::depth::nested(b"{\"$a\":", 500, leaf.as_bytes(), b"}");
    let (result, stats) = testkit::alloc::measure(|| serde_brson::json::from_slice(&text));
    let document = result.unwrap();
    assert_eq!(document.keys().next().map(String::as_str), Some("$a"));
    // Before: about 500 copies of the 1 MiB leaf (over 500 MB allocated in all); now a few.
    assert!(
        stats.total < 8 * text.len() as u64,
        "allocated {} bytes in all for {} bytes of JSON",
        stats.total,
        text.len()
    );

    // The same with shapes that are tried as Extended JSON (`$oid`), or escaped (`$literal`).
    for open in [&b"{\"$oid\":"[..], b"{\"$literal\":", b"{\"$code\":\"\",\"$scope\":"] {
        let text = [&b"{\"r\":"[..], &testkit::depth::nested(open, 500, leaf.as_bytes(), b"}"), b"}"].concat();
        let (result, stats) = testkit::alloc::measure(|| serde_brson::json::from_slice(&text));
        assert!(result.is_ok(), "{}", String::from_utf8_lossy(open));
        assert!(
            stats.total < 16 * text.len() as u64,
            "{}: allocated {} bytes",
            String::from_utf8_lossy(open),
            stats.total
        );
    }
}

/// Every codec stops at the decompression cap exactly: a payload of the cap's size decodes, one
/// byte less of cap is `LimitExceeded`, from a slice and from a stream.
#[test]
fn every_codec_stops_exactly_at_the_cap() {
    let bson = zeros_document(300_000);
    for compression in [Compression::None, Compression::Lz4, Compression::Lzma, Compression::Brotli] {
        let writer = Options::new().allow_uncompressed(true).lz4_chunk_size(64 << 10);
        let file = writer.compress(&bson, compression).unwrap();
        let exact = Options::new().allow_uncompressed(true).max_decompressed(bson.len());
        assert_eq!(exact.decompress(&file).unwrap().as_bytes(), &bson[..], "{compression:?}");
        assert_eq!(exact.decompress_reader(&file[..]).unwrap().as_bytes(), &bson[..], "{compression:?} (stream)");
        let under = exact.clone().max_decompressed(bson.len() - 1);
        for result in [under.decompress(&file), under.decompress_reader(&file[..])] {
            let err = result.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{compression:?}: {err}");
        }
    }
}

/// A slot tree as deep as the default depth limit allows decodes into the typed model on an
/// application-sized stack; one level more is refused before serde recurses.
#[test]
fn a_slot_tree_at_the_default_depth_limit_decodes_into_the_model() {
    let child = testkit::isolate::in_child("a_slot_tree_at_the_default_depth_limit_decodes_into_the_model", || {
        // Each slot level is two BSON levels (the slot and its Children array); the root
        // document and "Object" take one each.
        let levels = (Options::DEFAULT_MAX_DEPTH - 1) / 2;
        let mut slot = bson::doc! { "ID": "leaf", "Children": [] };
        for _ in 1..levels {
            slot = bson::doc! { "ID": "s", "Children": [slot] };
        }
        let tree = bson::doc! { "Object": slot };
        let file = serde_brson::to_vec(&tree, Compression::Lz4).unwrap();
        testkit::depth::on_stack(testkit::depth::APP_STACK, || {
            let tree: DataTree = serde_brson::from_slice(&file).unwrap();
            assert_eq!(tree.object.descendants().count(), levels);
        });
        let deeper = bson::doc! { "Object": { "ID": "x", "Children": [tree.get_document("Object").unwrap().clone()] } };
        let file = serde_brson::to_vec(&deeper, Compression::Lz4).unwrap();
        let err = serde_brson::from_slice::<DataTree>(&file).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
    });
    child.assert_passed();
}
