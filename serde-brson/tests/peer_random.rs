//! Random differential against the peers: pymongo (the BSON encoder and decoder) and the Python
//! reference BRSON decoder (`tests/peer/decode_brson.py`).
//!
//! Random documents (every BSON type the engine writes, plus ObjectId, nested to depth 4) go to
//! Python as canonical extended JSON in one batch. There:
//! - pymongo encodes each document; we decode those bytes, wrapped in a file of every kind, with
//!   the one-pass reader ([`Options::from_slice`]) and with [`Payload::deserialize`], and both must
//!   give back the document pymongo was given (compared as bytes, so no type is lost: int32 stays
//!   int32, int64 stays int64);
//! - the reference decoder unwraps the files our writer made of each document, and its BSON must
//!   be pymongo's bytes.
//!
//! `BRSON_PEER_CASES` sets the number of documents (default 300). Needs `python3` with `lz4`,
//! `brotli` and `pymongo`; without them the test prints a loud SKIPPED line and passes.

use std::process::Command;

use bson::{Bson, Document};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_brson::{Compression, Options};

mod common;

use common::{peer_available, peer_dir};

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z][A-Za-z0-9_]{0,10}",
        1 => "[^\u{0}]{0,6}",
    ]
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        // Every finite double, and the infinities (NaN payloads are not kept by every peer).
        prop_oneof![any::<f64>().prop_filter("not NaN", |f| !f.is_nan()), Just(f64::INFINITY), Just(-0.0)]
            .prop_map(Bson::Double),
        "[^\u{0}]{0,12}".prop_map(Bson::String),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        proptest::collection::vec(any::<u8>(), 0..24)
            .prop_map(|bytes| { Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes }) }),
        any::<[u8; 16]>().prop_map(|bytes| {
            Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: bytes.to_vec() })
        }),
        // 1970 to 2100, in milliseconds (Python's datetime covers the range).
        (0i64..4_102_444_800_000).prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        any::<[u8; 12]>().prop_map(|bytes| Bson::ObjectId(bson::oid::ObjectId::from_bytes(bytes))),
    ]
}

fn document() -> impl Strategy<Value = Document> {
    let value = scalar().prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Bson::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|fields| Bson::Document(fields.into_iter().collect())),
        ]
    });
    proptest::collection::vec((key(), value), 0..8).prop_map(|fields| fields.into_iter().collect())
}

const KINDS: [(Compression, &str); 3] =
    [(Compression::Lz4, "lz4bson"), (Compression::Lzma, "7zbson"), (Compression::Brotli, "brson")];

/// For each case: pymongo's encoding of the document, then the reference decoder's BSON of each
/// of our files (in `KINDS` order), as hex lines.
const SCRIPT: &str = r#"
import sys, json
sys.path.insert(0, sys.argv[1])
import decode_brson as d
import bson
from bson import json_util
opts = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL, tz_aware=True, uuid_representation=4)
work = sys.argv[2]
for i, line in enumerate(open(work + '/docs.jsonl')):
    doc = json_util.loads(line, json_options=opts)
    print(bson.encode(doc, codec_options=opts).hex())
    for ext in ('lz4bson', '7zbson', 'brson'):
        p = '%s/%d.%s' % (work, i, ext)
        raw, info = d.unwrap(open(p, 'rb').read(), ext)
        print(raw.hex())
"#;

#[test]
fn random_documents_agree_with_pymongo_and_the_reference_decoder() {
    if !peer_available("random_documents_agree_with_pymongo_and_the_reference_decoder") {
        return;
    }
    let cases: usize = std::env::var("BRSON_PEER_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let work = std::env::temp_dir().join(format!("serde-brson-peer-random-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();

    let seed = [0x5e; 32];
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let strategy = document();
    let docs: Vec<Document> = (0..cases).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect();

    let mut jsonl = String::new();
    for (i, doc) in docs.iter().enumerate() {
        extjson(&Bson::Document(doc.clone()), &mut jsonl);
        jsonl.push('\n');
        for (compression, ext) in KINDS {
            let file = serde_brson::to_vec(doc, compression).unwrap();
            std::fs::write(work.join(format!("{i}.{ext}")), file).unwrap();
        }
    }
    std::fs::write(work.join("docs.jsonl"), jsonl).unwrap();

    let out = Command::new("python3").arg("-c").arg(SCRIPT).arg(peer_dir()).arg(&work).output().expect("run python3");
    assert!(out.status.success(), "the Python peers failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<u8>> = stdout.lines().map(hex).collect();
    assert_eq!(lines.len(), cases * 4, "one line per document and per file");

    let mut checked = 0usize;
    for (i, (doc, group)) in docs.iter().zip(lines.chunks(4)).enumerate() {
        let pymongo = &group[0];
        // The bson crate and pymongo agree on the document's bytes.
        assert_eq!(&bson::serialize_to_vec(doc).unwrap(), pymongo, "case {i}: {doc:?}");
        // Our writer's files unwrap, in the reference decoder, to pymongo's bytes.
        for ((_, ext), unwrapped) in KINDS.iter().zip(&group[1..]) {
            assert_eq!(unwrapped, pymongo, "case {i} as .{ext}: the reference decoder's BSON differs: {doc:?}");
        }
        // pymongo's bytes, in a file of every kind, decode to the same document both ways.
        for (compression, ext) in KINDS {
            let options = Options::new().extension_of(format!("x.{ext}"));
            let file = options.compress(pymongo, compression).unwrap();
            let one_pass: Document =
                options.from_slice(&file).unwrap_or_else(|e| panic!("case {i} as .{ext}: {e}: {doc:?}"));
            assert_eq!(&bson::serialize_to_vec(&one_pass).unwrap(), pymongo, "case {i} as .{ext}, one pass");
            let careful: Document = options.decompress(&file).unwrap().deserialize().unwrap();
            assert_eq!(&bson::serialize_to_vec(&careful).unwrap(), pymongo, "case {i} as .{ext}, payload");
            checked += 1;
        }
    }
    assert_eq!(checked, cases * 3);
    eprintln!("peer_random: {cases} documents, {checked} files decoded, {} files unwrapped by the peer", cases * 3);
    let _ = std::fs::remove_dir_all(work);
}

/// Canonical extended JSON that keeps the key order (serde_json's map here sorts its keys).
fn extjson(value: &Bson, out: &mut String) {
    match value {
        Bson::Document(doc) => {
            out.push('{');
            for (i, (k, v)) in doc.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                extjson(v, out);
            }
            out.push('}');
        }
        Bson::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                extjson(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&serde_json::to_string(&scalar.clone().into_canonical_extjson()).unwrap()),
    }
}

fn hex(line: &str) -> Vec<u8> {
    (0..line.len()).step_by(2).map(|i| u8::from_str_radix(&line[i..i + 2], 16).unwrap()).collect()
}
