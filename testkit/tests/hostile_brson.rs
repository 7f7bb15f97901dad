//! Workspace hostile-input suite, serde-brson: every decoding entry point (`from_slice`,
//! `from_reader`, `decompress`, the container header, the lz4net / LZMA / Brotli codecs, BSON
//! validation, the annotated dump, the typed model, `Payload::to_document`, `json::from_str`, `url::urls`, the
//! `lenient` helpers) on the worst inputs an attacker can build, at `n` and `4n` bytes: work grows
//! at most ~6× and peak heap stays within `64 · n + 4 MiB` (SECURITY.md), or, for compressed
//! input, within the documented multiple of the decompression cap (serde-brson/README.md,
//! "Hostile input").

use std::sync::OnceLock;

use serde::Deserialize;
use serde_brson::model::DataTree;
use serde_brson::{Compression, ErrorKind, Options};
use testkit::scaling::Case;

testkit::install_counting_allocator!();

/// The decompression cap of the bomb cases.
const CAP: usize = 1 << 20;

/// The default model budget ratio (`Options::DEFAULT_MODEL_BUDGET_RATIO`).
const RATIO: usize = Options::DEFAULT_MODEL_BUDGET_RATIO;

/// Heap allowed for decompressing a bomb against `CAP`: the payload and a growing vector's slack
/// (3 × the cap) plus the codec's fixed state: a 16 MiB Brotli ring buffer for a 24-bit window,
/// 6 MiB of LZMA probability tables for lc + lp = 12 (README, "What is guaranteed").
fn bomb_bound(_: usize) -> usize {
    3 * CAP + (16 << 20) + (4 << 20)
}

fn options() -> Options {
    Options::new().max_decompressed(CAP).allow_uncompressed(true)
}

// ---------------------------------------------------------------------------------------------
// Builders.

/// A BSON document around `body`.
fn doc(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 5);
    out.extend_from_slice(&((body.len() + 5) as i32).to_le_bytes());
    out.extend_from_slice(body);
    out.push(0);
    out
}

/// One BSON element.
fn elem(kind: u8, key: &str, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + value.len() + 2);
    out.push(kind);
    out.extend_from_slice(key.as_bytes());
    out.push(0);
    out.extend_from_slice(value);
    out
}

fn string(s: &str) -> Vec<u8> {
    let mut out = ((s.len() + 1) as i32).to_le_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    out
}

/// A kind-0 file (header + raw BSON): what reaches validation and serde with no codec between.
fn kind0(bson: &[u8]) -> Vec<u8> {
    let mut out = b"FrDT\0\0\0\0\0".to_vec();
    out.extend_from_slice(bson);
    out
}

/// `{"z": <binary of len zero bytes>}`.
fn zeros_document(len: usize) -> Vec<u8> {
    let mut value = (len as i32).to_le_bytes().to_vec();
    value.push(0);
    value.resize(value.len() + len, 0);
    doc(&elem(0x05, "z", &value))
}

/// An array of `count` copies of `item` (keys left empty: readers ignore array keys).
fn array_of(count: usize, kind: u8, item: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(count * (item.len() + 2));
    for _ in 0..count {
        body.push(kind);
        body.push(0);
        body.extend_from_slice(item);
    }
    doc(&body)
}

/// A data tree whose root slot has `extra` elements after its ID.
fn tree_with_object(object_body: &[u8]) -> Vec<u8> {
    let mut body = elem(0x02, "ID", &string("r"));
    body.extend_from_slice(object_body);
    doc(&elem(0x03, "Object", &doc(&body)))
}

/// `count` child slots `{"ID": ""}` under the root: 16 bytes each.
fn slot_flood(count: usize) -> Vec<u8> {
    let child = doc(&elem(0x02, "ID", &string("")));
    tree_with_object(&elem(0x04, "Children", &array_of(count, 0x03, &child)))
}

/// `{"a": [null × count]}`.
fn null_flood(count: usize) -> Vec<u8> {
    doc(&elem(0x04, "a", &array_of(count, 0x0A, &[])))
}

/// `count` distinct keys `k0`, `k1`, … each with an int32, as a document.
fn key_flood(count: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(count * 12);
    for i in 0..count {
        body.extend_from_slice(&elem(0x10, &format!("k{i}"), &1i32.to_le_bytes()));
    }
    doc(&body)
}

/// `count` copies of the key `k` with a null.
fn duplicate_keys(count: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(count * 3);
    for _ in 0..count {
        body.extend_from_slice(&[0x0A, b'k', 0]);
    }
    doc(&body)
}

/// `{"a": [[[…]]]}`, `depth` arrays deep, built in one pass.
fn nested_arrays(depth: usize) -> Vec<u8> {
    let depth = depth.max(1);
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

/// `{"Object": {"ID": "", "Children": [{"ID": "", "Children": [ … {"ID": ""} ]}]}}`, `levels`
/// slots deep, built in one pass (each level adds 31 bytes around the one inside).
fn nested_slots(levels: usize) -> Vec<u8> {
    let leaf = doc(&elem(0x02, "ID", &string("")));
    let size = |k: usize| leaf.len() + 31 * k;
    let mut out = Vec::with_capacity(size(levels) + 16);
    out.extend_from_slice(&((4 + 8 + size(levels) + 1) as i32).to_le_bytes());
    out.extend_from_slice(b"\x03Object\0");
    for k in (1..=levels).rev() {
        out.extend_from_slice(&(size(k) as i32).to_le_bytes());
        out.extend_from_slice(b"\x02ID\0\x01\0\0\0\0\x04Children\0");
        out.extend_from_slice(&((size(k - 1) + 7) as i32).to_le_bytes());
        out.extend_from_slice(&[0x03, 0]);
    }
    out.extend_from_slice(&leaf);
    out.resize(out.len() + 2 * levels, 0);
    out.push(0);
    out
}

/// The compressed body (after the 9-byte header) of a file.
fn body(file: &[u8]) -> &[u8] {
    &file[9..]
}

/// One file per codec holding a zeros document of 4 × `CAP` (`over`) or just under `CAP`, made once.
fn bombs() -> &'static [(Compression, bool, Vec<u8>)] {
    static BOMBS: OnceLock<Vec<(Compression, bool, Vec<u8>)>> = OnceLock::new();
    BOMBS.get_or_init(|| {
        let mut out = Vec::new();
        for (over, payload) in [(true, zeros_document(4 * CAP)), (false, zeros_document(CAP - 64))] {
            for kind in [Compression::Lz4, Compression::Lzma, Compression::Brotli] {
                out.push((kind, over, Options::new().compress(&payload, kind).unwrap()));
            }
        }
        out
    })
}

fn bomb(kind: Compression, over: bool) -> &'static [u8] {
    &bombs().iter().find(|(k, o, _)| *k == kind && *o == over).unwrap().2
}

/// A bomb grown to about `n` bytes with junk after the compressed data (an attacker's `n` bytes
/// can decode to no more than the cap either way).
fn padded(file: &[u8], n: usize) -> Vec<u8> {
    let mut out = file.to_vec();
    out.resize(file.len().max(n), 0x55);
    out
}

/// The Brotli bomb re-headed to declare the largest standard window, 16 MiB (lgwin 24): the
/// stream's first bit (0: lgwin 16) becomes `1` + `111` (17 + 7), shifting the rest by 3 bits.
fn brotli_large_window() -> Vec<u8> {
    let file = bomb(Compression::Brotli, true);
    let stream = body(file);
    assert_eq!(stream[0] & 1, 0, "our encoder writes lgwin 16");
    let mut bits: Vec<bool> = stream.iter().flat_map(|b| (0..8).map(move |i| b >> i & 1 == 1)).collect();
    bits.splice(0..1, [true, true, true, true]);
    let mut out = file[..9].to_vec();
    out.extend(bits.chunks(8).map(|c| c.iter().enumerate().fold(0u8, |b, (i, &bit)| b | (u8::from(bit) << i))));
    out
}

/// Decodes with both paths (slice and stream) and into the typed model.
fn decode_file(options: &Options, input: &[u8]) -> (bool, bool, bool) {
    let slice = options.decompress(input).is_ok();
    let stream = options.decompress_reader(input).is_ok();
    let model = options.from_slice::<DataTree>(input).is_ok();
    (slice, stream, model)
}

// ---------------------------------------------------------------------------------------------
// Codecs and the container.

#[test]
fn codec_bombs_stop_at_the_cap() {
    for kind in [Compression::Lz4, Compression::Lzma, Compression::Brotli] {
        let file = bomb(kind, true);
        let err = options().decompress(file).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{kind:?}: {err}");
        Case::new(format!("brson: {kind:?} bomb (4 MiB of zeros) against a 1 MiB cap"), |n| padded(file, n))
            .size(file.len().max(16 << 10))
            .heap_bound(bomb_bound)
            .run(|input| decode_file(&options(), input));
        // Just under the cap: decoded in full, then the typed model refuses a root without an
        // Object (after reading the 1 MiB unknown key).
        let file = bomb(kind, false);
        assert_eq!(options().decompress(file).unwrap().as_bytes().len(), CAP - 64 + 13);
        Case::new(format!("brson: {kind:?} bomb (just under the 1 MiB cap)"), |n| padded(file, n))
            .size(file.len().max(16 << 10))
            .heap_bound(|_| bomb_bound(0) + 2 * CAP)
            .run(|input| decode_file(&options(), input));
    }
    let large_window = brotli_large_window();
    assert_eq!(options().decompress(&large_window).unwrap_err().kind(), ErrorKind::LimitExceeded);
    Case::new("brson: Brotli bomb declaring a 16 MiB window", |n| padded(&large_window, n))
        .size(large_window.len().max(16 << 10))
        .heap_bound(bomb_bound)
        .run(|input| decode_file(&options(), input));
    // LZMA properties at their maximum (lc 8, lp 4: 6 MiB of probability tables) over data that
    // declares just under the cap.
    let mut lzma = bomb(Compression::Lzma, false).to_vec();
    lzma[9] = (4 * 5 + 4) * 9 + 8;
    Case::new("brson: LZMA with lc 8, lp 4", |n| padded(&lzma, n))
        .size(lzma.len().max(16 << 10))
        .heap_bound(bomb_bound)
        .run(|input| decode_file(&options(), input));
}

#[test]
fn lz4net_chunk_floods_are_linear() {
    // Empty stored chunks (2 bytes each) and 1-byte compressed chunks (4 bytes each).
    let empty = |n: usize| [&b"FrDT\0\0\0\0\x01"[..], &vec![0u8; n]].concat();
    Case::new("brson: lz4net flood of empty chunks", empty).size(64 << 10).run(|input| decode_file(&options(), input));
    let tiny = |n: usize| {
        let mut out = b"FrDT\0\0\0\0\x01".to_vec();
        for _ in 0..n / 4 {
            out.extend_from_slice(&[0x01, 0x01, 0x01, 0x10]);
        }
        out
    };
    Case::new("brson: lz4net flood of 1-byte chunks", tiny).size(64 << 10).run(|input| decode_file(&options(), input));
    let stored = |n: usize| {
        let mut out = b"FrDT\0\0\0\0\x01".to_vec();
        for _ in 0..n / 3 {
            out.extend_from_slice(&[0x00, 0x01, 0x00]);
        }
        out
    };
    Case::new("brson: lz4net flood of 1-byte stored chunks", stored)
        .size(64 << 10)
        .run(|input| decode_file(&options(), input));
}

#[test]
fn huge_declared_lengths_allocate_nothing_ahead() {
    // LZMA declaring 2^62 bytes.
    let lzma = |n: usize| {
        let mut out = b"FrDT\0\0\0\0\x02\x5d\0\0\x20\0".to_vec();
        out.extend_from_slice(&(1i64 << 62).to_le_bytes());
        out.extend_from_slice(&((n as i64).max(1)).to_le_bytes());
        out.resize(n.max(out.len() + 1), 0);
        out
    };
    Case::new("brson: LZMA body declaring 2^62 bytes", lzma).size(32 << 10).run(|input| decode_file(&options(), input));
    // An lz4net chunk declaring 2^60 bytes, then one declaring 1 MiB from 1 byte.
    for (name, header) in
        [("2^60", &b"\x01\x80\x80\x80\x80\x80\x80\x80\x80\x10\x01"[..]), ("1 MiB from 1 byte", b"\x01\x80\x80\x40\x01")]
    {
        let file = |n: usize| padded(&[&b"FrDT\0\0\0\0\x01"[..], header].concat(), n);
        Case::new(format!("brson: lz4net chunk declaring {name}"), file)
            .size(32 << 10)
            .run(|input| decode_file(&Options::new(), input));
    }
    // A raw BSON document declaring i32::MAX bytes, and one whose string declares i32::MAX.
    let document = |n: usize| padded(&kind0(&i32::MAX.to_le_bytes()), n);
    Case::new("brson: BSON document declaring 2 GiB", document)
        .size(32 << 10)
        .run(|input| (options().decompress(input).is_ok(), options().from_slice::<DataTree>(input).is_ok()));
    // From a stream the bytes must be read before the document can be checked (as for any
    // stream); that copy is linear, but at these sizes its page faults dominate the timing.
    Case::new("brson: BSON document declaring 2 GiB, from a stream", document)
        .size(32 << 10)
        .heap_only()
        .run(|input| options().decompress_reader(input).is_ok());
    let long_string = |n: usize| {
        let mut bson = elem(0x02, "s", &i32::MAX.to_le_bytes());
        bson.resize(n, b'x');
        kind0(&doc(&bson))
    };
    Case::new("brson: BSON string declaring 2 GiB", long_string)
        .size(32 << 10)
        .run(|input| decode_file(&Options::new().allow_uncompressed(true), input));
    // The container header: a 10-byte varint kind.
    let header = |n: usize| padded(b"FrDT\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\x7f", n);
    let err = Options::new().decompress(&header(100)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownCompression, "{err}");
    Case::new("brson: FrDT header with a 63-bit kind", header)
        .size(32 << 10)
        .run(|input| Options::new().decompress(input).is_err() && Options::new().decompress_reader(input).is_err());
}

// ---------------------------------------------------------------------------------------------
// BSON validation and owned documents.

#[test]
fn deep_nesting_fails_fast() {
    let file = kind0(&nested_arrays(100_000));
    let err = Options::new().allow_uncompressed(true).from_slice::<DataTree>(&file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
    Case::new("brson: nested arrays, raw BSON", |n| kind0(&nested_arrays(n / 8)))
        .size(64 << 10)
        .run(|input| decode_file(&Options::new().allow_uncompressed(true), input));
    Case::new("brson: nested JSON arrays", |n| [&b"{\"a\":"[..], &testkit::depth::json_arrays(n / 2), b"}"].concat())
        .size(64 << 10)
        .run(|input| serde_brson::json::from_slice(input).unwrap_err().kind() == ErrorKind::DepthLimitExceeded);
}

#[test]
fn documents_of_floods_and_duplicate_keys_are_bounded() {
    let raw = Options::new().allow_uncompressed(true);
    let to_document = |input: &[u8]| raw.decompress(input).and_then(|p| p.to_document()).map(|d| d.len());
    Case::new("brson: Payload::to_document of a null array flood", |n| kind0(&null_flood(n / 2)))
        .size(64 << 10)
        .run(to_document);
    let err = raw.decompress(&kind0(&null_flood(1 << 20))).unwrap().to_document().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
    Case::new("brson: Payload::to_document of distinct keys", |n| kind0(&key_flood(n / 10)))
        .size(64 << 10)
        .run(to_document);
    Case::new("brson: Payload::to_document of one duplicated key", |n| kind0(&duplicate_keys(n / 3)))
        .size(64 << 10)
        .run(to_document);
    Case::new("brson: Payload::to_document of nested arrays at the depth limit", |n| {
        // Many 500-deep nests side by side.
        let nest = nested_arrays(500);
        let mut body = Vec::new();
        while body.len() < n {
            body.extend_from_slice(&elem(0x03, "", &nest));
        }
        kind0(&doc(&body))
    })
    .size(64 << 10)
    .run(to_document);
}

/// The annotated dump of `input`, checked against its output bound (16 KiB + 32 characters per
/// byte of file and of payload).
fn dump(options: &Options, input: &[u8]) -> bool {
    let d = serde_brson::dump::dump(input, options);
    let payload = options.decompress(input).map_or(0, |p| p.as_bytes().len());
    let bound = (16 << 10) + 32 * (input.len() + payload) + 200;
    assert!(d.as_str().len() <= bound, "{} > {bound}", d.as_str().len());
    d.error().is_none()
}

#[test]
fn annotated_dumps_are_linear_and_bounded() {
    let raw = Options::new().allow_uncompressed(true);
    Case::new("brson: dump of a null array flood", |n| kind0(&null_flood(n / 2)))
        .size(64 << 10)
        .run(|input| assert!(dump(&raw, input)));
    Case::new("brson: dump of distinct keys", |n| kind0(&key_flood(n / 10)))
        .size(64 << 10)
        .run(|input| dump(&raw, input));
    Case::new("brson: dump of nested arrays (depth error)", |n| kind0(&nested_arrays(n / 8))).size(64 << 10).run(
        |input| {
            let d = serde_brson::dump::dump(input, &raw);
            assert_eq!(d.error().unwrap().kind(), ErrorKind::DepthLimitExceeded);
        },
    );
    Case::new("brson: dump of an lz4net flood of 1-byte chunks", |n| {
        let mut out = b"FrDT\0\0\0\0\x01".to_vec();
        for _ in 0..n / 4 {
            out.extend_from_slice(&[0x01, 0x01, 0x01, 0x10]);
        }
        out
    })
    .size(64 << 10)
    .run(|input| dump(&options(), input));
    for kind in [Compression::Lz4, Compression::Lzma, Compression::Brotli] {
        let file = bomb(kind, false);
        Case::new(format!("brson: dump of a {kind:?} bomb (just under the 1 MiB cap)"), |n| padded(file, n))
            .size(file.len().max(16 << 10))
            .heap_bound(|_| bomb_bound(0) + 2 * CAP)
            .run(|input| dump(&options(), input));
    }
}

// ---------------------------------------------------------------------------------------------
// The typed model.

fn model(input: &[u8]) -> serde_brson::Result<usize> {
    Options::new().allow_uncompressed(true).from_slice::<DataTree>(input).map(|t| t.object.descendants().count())
}

#[test]
fn model_slot_floods_stop_at_the_budget() {
    let err = model(&kind0(&slot_flood(100_000))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err}");
    Case::new("brson: typed model, 16-byte child slots, raw BSON", |n| kind0(&slot_flood(n / 16)))
        .size(64 << 10)
        .run(model);
    // Compressed: 255:1 lz4net, the model bounded by the budget × the payload (at most the cap).
    let cap = 4 << 20;
    let lz4 = Options::new().max_decompressed(cap);
    Case::new("brson: typed model, 16-byte child slots, lz4net", |n| {
        Options::new().compress(&slot_flood(n * 4), Compression::Lz4).unwrap()
    })
    .size(8 << 10)
    .heap_bound(move |_| (RATIO + 3) * cap + (4 << 20))
    // The work is the raw case's (above) on a payload up to 255 times the input: it steps with
    // the model's vector doublings that fit the budget, and the next size up hits the cap.
    .heap_only()
    .run(|input| lz4.from_slice::<DataTree>(input).map(|t| t.object.children.len()));
}

#[test]
fn model_component_key_and_type_floods_are_linear() {
    let component = doc(&[elem(0x10, "Type", &0i32.to_le_bytes()), elem(0x03, "Data", &doc(b""))].concat());
    let components = |n: usize| {
        let list = array_of(n / 30, 0x03, &component);
        let field = doc(&[elem(0x02, "ID", &string("c")), elem(0x04, "Data", &list)].concat());
        kind0(&tree_with_object(&elem(0x03, "Components", &field)))
    };
    Case::new("brson: typed model, empty components", components).size(64 << 10).run(model);
    Case::new("brson: typed model, distinct unknown keys in a slot", |n| {
        let keys = key_flood(n / 10);
        kind0(&tree_with_object(&keys[4..keys.len() - 1]))
    })
    .size(64 << 10)
    .run(model);
    Case::new("brson: typed model, one unknown key repeated in a slot", |n| {
        let dups = duplicate_keys(n / 3);
        kind0(&tree_with_object(&dups[4..dups.len() - 1]))
    })
    .size(64 << 10)
    .run(model);
    Case::new("brson: typed model, Children repeated in a slot", |n| {
        let child = array_of(1, 0x03, &doc(&elem(0x02, "ID", &string(""))));
        let mut body = Vec::new();
        while body.len() < n {
            body.extend_from_slice(&elem(0x04, "Children", &child));
        }
        kind0(&tree_with_object(&body))
    })
    .size(64 << 10)
    .run(model);
    Case::new("brson: typed model, FeatureFlags of distinct keys", |n| {
        let mut body = elem(0x03, "FeatureFlags", &key_flood(n / 10));
        body.extend_from_slice(&elem(0x03, "Object", &doc(&elem(0x02, "ID", &string("r")))));
        kind0(&doc(&body))
    })
    .size(64 << 10)
    .run(model);
    Case::new("brson: typed model, a Types table of empty strings", |n| {
        let mut body = elem(0x04, "Types", &array_of(n / 7, 0x02, &string("")));
        body.extend_from_slice(&elem(0x03, "Object", &doc(&elem(0x02, "ID", &string("r")))));
        kind0(&doc(&body))
    })
    .size(64 << 10)
    .run(model);
    Case::new("brson: typed model, component Data of nested `$` documents", |n| {
        // 500-deep `{"$numberLong": {"$numberLong": …}}` nests side by side: read exactly, once.
        let mut nest = doc(&elem(0x02, "$numberLong", &string("5")));
        for _ in 0..500 {
            nest = doc(&elem(0x03, "$numberLong", &nest));
        }
        let mut data = Vec::new();
        while data.len() < n {
            data.extend_from_slice(&elem(0x03, &format!("m{}", data.len()), &nest));
        }
        let component = doc(&[elem(0x10, "Type", &0i32.to_le_bytes()), elem(0x03, "Data", &doc(&data))].concat());
        let field = doc(&[elem(0x02, "ID", &string("c")), elem(0x04, "Data", &array_of(1, 0x03, &component))].concat());
        kind0(&tree_with_object(&elem(0x03, "Components", &field)))
    })
    .size(64 << 10)
    .run(model);
    Case::new("brson: typed model, a null array flood in an unknown key", |n| {
        kind0(&tree_with_object(&elem(0x04, "Nulls", &array_of(n / 2, 0x0A, &[]))))
    })
    .size(64 << 10)
    .run(model);
}

#[test]
fn model_deep_slot_nesting_fails_fast() {
    let nested_slots = |n: usize| kind0(&nested_slots(n / 31));
    assert_eq!(model(&nested_slots(64 << 10)).unwrap_err().kind(), ErrorKind::DepthLimitExceeded);
    Case::new("brson: typed model, nested slots", nested_slots).size(64 << 10).run(model);
}

// ---------------------------------------------------------------------------------------------
// JSON, URLs, lenient helpers, payload accessors.

/// `{"r": <open × depth> "leaf" <close × depth>}`, read with no depth limit on a large stack.
fn json_nest_case(name: &str, open: &'static [u8]) {
    let name = name.to_owned();
    testkit::depth::on_stack(1 << 30, move || {
        Case::new(name, |n| {
            let depth = n / open.len();
            [&b"{\"r\":"[..], &testkit::depth::nested(open, depth, b"\"leaf\"", b"}"), b"}"].concat()
        })
        .size(8 << 10)
        .run(|input| {
            serde_brson::json::from_slice_with(input, serde_brson::json::IntWidth::Narrowest, usize::MAX).is_ok()
        });
    });
}

#[test]
fn json_dollar_key_nesting_is_linear() {
    json_nest_case("brson: json, `{\"$a\":` nesting, depth ∝ n", b"{\"$a\":");
    json_nest_case("brson: json, `{\"$literal\":` nesting, depth ∝ n", b"{\"$literal\":");
    json_nest_case("brson: json, `{\"$oid\":` nesting, depth ∝ n", b"{\"$oid\":");
    json_nest_case("brson: json, `{\"$code\":\"\",\"$scope\":` nesting, depth ∝ n", b"{\"$code\":\"\",\"$scope\":");
    // With the default depth limit: many 500-deep nests side by side.
    Case::new("brson: json, `$` nests at the default depth limit side by side", |n| {
        let nest = testkit::depth::nested(b"{\"$a\":", 500, b"[1]", b"}");
        let mut out = b"{".to_vec();
        let mut i = 0;
        while out.len() < n {
            out.extend_from_slice(format!("\"k{i}\":").as_bytes());
            out.extend_from_slice(&nest);
            out.push(b',');
            i += 1;
        }
        out.pop();
        out.push(b'}');
        out
    })
    .size(64 << 10)
    .run(|input| serde_brson::json::from_slice(input).is_ok());
}

#[test]
fn json_floods_are_bounded() {
    Case::new("brson: json, distinct keys", |n| {
        let mut out = b"{".to_vec();
        for i in 0..n / 10 {
            out.extend_from_slice(format!("\"k{i}\":1,").as_bytes());
        }
        out.pop();
        out.push(b'}');
        out
    })
    .size(64 << 10)
    .run(|input| serde_brson::json::from_slice(input).is_ok());
    Case::new("brson: json, one key repeated", |n| {
        let mut out = b"{".to_vec();
        out.extend(std::iter::repeat_n(&b"\"k\":1,"[..], n / 6).flatten());
        out.extend_from_slice(b"\"z\":1}");
        out
    })
    .size(64 << 10)
    .run(|input| serde_brson::json::from_slice(input).unwrap_err().message().contains("duplicate key"));
    Case::new("brson: json, an array of one-digit numbers", |n| {
        let mut out = b"{\"a\":[".to_vec();
        out.extend_from_slice(&b"0,".repeat(n / 2));
        out.extend_from_slice(b"0]}");
        out
    })
    .size(64 << 10)
    .run(|input| serde_brson::json::from_slice(input).map(|d| d.len()));
    let big = [&b"{\"a\":["[..], &b"0,".repeat(1 << 20), b"0]}"].concat();
    assert_eq!(serde_brson::json::from_slice(&big).unwrap_err().kind(), ErrorKind::LimitExceeded);
    Case::new("brson: json, an array of empty objects", |n| {
        let mut out = b"{\"a\":[".to_vec();
        out.extend_from_slice(&b"{},".repeat(n / 3));
        out.extend_from_slice(b"{}]}");
        out
    })
    .size(64 << 10)
    .run(|input| serde_brson::json::from_slice(input).map(|d| d.len()));
}

#[test]
fn json_writing_urls_lenient_and_accessors_are_linear() {
    let raw = Options::new().allow_uncompressed(true);
    Case::new("brson: json::to_string of a null flood", |n| kind0(&null_flood(n / 2)))
        .size(64 << 10)
        .heap_bound(|n| 8 * n + (4 << 20))
        .run(|input| raw.decompress(input).and_then(|p| serde_brson::json::to_string(p.raw())).map(|t| t.len()));
    Case::new("brson: json::to_string of `$`-keyed documents", |n| {
        let item = doc(&elem(0x02, "$numberLong", &string("5")));
        kind0(&doc(&elem(0x04, "a", &array_of(n / 24, 0x03, &item))))
    })
    .size(64 << 10)
    .heap_bound(|n| 8 * n + (4 << 20))
    .run(|input| raw.decompress(input).and_then(|p| serde_brson::json::to_string(p.raw())).map(|t| t.len()));
    Case::new("brson: url::urls of a URL flood", |n| {
        kind0(&doc(&elem(0x04, "u", &array_of(n / 9, 0x02, &string("@x")))))
    })
    .size(64 << 10)
    .run(|input| raw.decompress(input).and_then(|p| serde_brson::url::urls(p.raw()).map(|u| u.len())));
    Case::new("brson: url::rewrite_urls of a URL flood", |n| {
        kind0(&doc(&elem(0x04, "u", &array_of(n / 9, 0x02, &string("@x")))))
    })
    .size(64 << 10)
    .run(|input| {
        let mut document = raw.decompress(input)?.to_document()?;
        Ok::<_, serde_brson::Error>(serde_brson::url::rewrite_urls(&mut document, |u| Some(u.to_owned())))
    });
    Case::new("brson: Payload::types of a Types flood", |n| {
        kind0(&doc(&elem(0x04, "Types", &array_of(n / 7, 0x02, &string("")))))
    })
    .size(64 << 10)
    .run(|input| raw.decompress(input).and_then(|p| p.types().map(|t| t.map_or(0, |t| t.len()))));

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Lenient {
        #[serde(deserialize_with = "serde_brson::lenient::i64")]
        a: i64,
        #[serde(deserialize_with = "serde_brson::lenient::option")]
        b: Option<f32>,
    }
    Case::new("brson: lenient helpers given a huge document", |n| {
        kind0(&doc(&[elem(0x03, "a", &key_flood(n / 10)), elem(0x10, "b", &1i32.to_le_bytes())].concat()))
    })
    .size(64 << 10)
    .run(|input| raw.from_slice::<Lenient>(input).is_err());
}
