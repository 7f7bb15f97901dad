//! Golden checks against the fixtures: real legacy NeosVR files and spec-conformant generated
//! files in every kind (tests/data/PROVENANCE.md).

mod common;

use bson::Document;
use common::{CONTAINERS, fixture, options_for, payload};
use serde_brson::{Compression, ErrorKind, Extension, Header, Options};

/// (file, header as written or `None` for a legacy file, compression, BSON length, top-level keys)
type Golden = (&'static str, Option<&'static str>, Compression, usize, &'static [&'static str]);

const GOLDEN: &[Golden] = &[
    ("redx-5ce7cdf5.7zbson", None, Compression::Lzma, 111_579, &["Object", "Assets", "TypeVersions"]),
    ("rassi0429-Box.7zbson", None, Compression::Lzma, 8774, &["Object", "Assets", "TypeVersions"]),
    (
        "rewrapped-rassi0429-Box.brson",
        Some("4672445400000000 03"),
        Compression::Brotli,
        8774,
        &["Object", "Assets", "TypeVersions"],
    ),
    (
        "rewrapped-rassi0429-Box.lz4bson",
        Some("4672445400000000 01"),
        Compression::Lz4,
        8774,
        &["Object", "Assets", "TypeVersions"],
    ),
    (
        "rewrapped-rassi0429-Box.7zbson",
        Some("4672445400000000 02"),
        Compression::Lzma,
        8774,
        &["Object", "Assets", "TypeVersions"],
    ),
    ("synthetic-modern.brson", Some("4672445400000000 03"), Compression::Brotli, 5580, MODERN_KEYS),
    ("synthetic-modern.lz4bson", Some("4672445400000000 01"), Compression::Lz4, 5580, MODERN_KEYS),
    ("synthetic-modern.7zbson", Some("4672445400000000 02"), Compression::Lzma, 5580, MODERN_KEYS),
    ("synthetic-modern-smallchunks.lz4bson", Some("4672445400000000 01"), Compression::Lz4, 5580, MODERN_KEYS),
];

const MODERN_KEYS: &[&str] = &["VersionNumber", "FeatureFlags", "Types", "TypeVersions", "Object", "Assets"];

#[test]
fn golden_table() {
    assert_eq!(GOLDEN.len(), CONTAINERS.len());
    for &(name, header, compression, len, keys) in GOLDEN {
        let bytes = fixture(name);
        let payload = payload(name);
        assert_eq!(payload.compression(), compression, "{name}");
        assert_eq!(payload.as_bytes().len(), len, "{name}");
        match header {
            Some(hex) => {
                let expected = testkit::hex::decode(hex);
                assert_eq!(&bytes[..9], &expected[..], "{name}");
                assert_eq!(payload.header(), Some(Header { version: 0, kind: compression.code(), len: 9 }));
            }
            None => assert_eq!(payload.header(), None, "{name}"),
        }
        let got: Vec<&str> = payload.raw().iter().map(|e| e.unwrap().0.as_str()).collect();
        assert_eq!(got, keys, "{name}");
    }
}

#[test]
fn real_legacy_files_decode() {
    let redx = payload("redx-5ce7cdf5.7zbson").to_document().unwrap();
    let object = redx.get_document("Object").unwrap();
    assert_eq!(object.get_str("ID").unwrap(), "79101779-a5cd-486a-8b61-836bfbaa723b");
    assert_eq!(object.get_document("Name").unwrap().get_str("Data").unwrap(), "Holder");
    assert_eq!(redx.get_array("Assets").unwrap().len(), 27);

    let bx = payload("rassi0429-Box.7zbson").to_document().unwrap();
    assert_eq!(bx.get_document("Object").unwrap().get_document("Name").unwrap().get_str("Data").unwrap(), "Box");
    // The legacy LZMA body: 5D 00 00 20 00 (lc3 lp0 pb2, 2 MiB), then the two i64 sizes.
    let raw = fixture("rassi0429-Box.7zbson");
    assert_eq!(raw[..5], [0x5D, 0x00, 0x00, 0x20, 0x00]);
    assert_eq!(i64::from_le_bytes(raw[5..13].try_into().unwrap()), 8774);
    assert_eq!(i64::from_le_bytes(raw[13..21].try_into().unwrap()) as usize, raw.len() - 21);
}

#[test]
fn rewrapped_payload_is_identical_across_kinds() {
    let original = payload("rassi0429-Box.7zbson");
    for name in ["rewrapped-rassi0429-Box.brson", "rewrapped-rassi0429-Box.lz4bson", "rewrapped-rassi0429-Box.7zbson"] {
        assert_eq!(payload(name).as_bytes(), original.as_bytes(), "{name}");
    }
    let raw = fixture("synthetic-modern.bson");
    for name in [
        "synthetic-modern.brson",
        "synthetic-modern.lz4bson",
        "synthetic-modern.7zbson",
        "synthetic-modern-smallchunks.lz4bson",
    ] {
        assert_eq!(payload(name).as_bytes(), &raw[..], "{name}");
    }
}

#[test]
fn the_small_chunk_file_has_many_lz4net_chunks() {
    // 5580 bytes in 512-byte chunks: 11 chunks, flags 0x03 (compressed + HC) or 0x02 (stored).
    let bytes = fixture("synthetic-modern-smallchunks.lz4bson");
    let mut pos = 9;
    let mut chunks = 0;
    let varint = |pos: &mut usize| {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = bytes[*pos];
            *pos += 1;
            v |= u64::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return v;
            }
        }
    };
    while pos < bytes.len() {
        let flags = varint(&mut pos);
        assert!(flags == 3 || flags == 2, "flags {flags}");
        let original = varint(&mut pos);
        let stored = if flags & 1 == 1 { varint(&mut pos) } else { original };
        assert!(original <= 512);
        pos += stored as usize;
        chunks += 1;
    }
    assert_eq!(chunks, 11);
}

#[test]
fn every_fixture_decodes_as_document_and_json_value() {
    for name in CONTAINERS {
        let bytes = fixture(name);
        let options = options_for(name);
        let doc: Document = options.from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json: serde_json::Value = options.from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.len(), json.as_object().unwrap().len(), "{name}");
        // Document keeps every type and the key order: encoding it gives the same bytes.
        assert_eq!(bson::serialize_to_vec(&doc).unwrap(), payload(name).as_bytes(), "{name}");
        // The streaming path gives the same payload.
        let streamed = options.decompress_reader(&bytes[..]).unwrap();
        assert_eq!(streamed.as_bytes(), payload(name).as_bytes(), "{name}");
        let doc2: Document = options.from_reader(std::io::BufReader::with_capacity(7, &bytes[..])).unwrap();
        assert_eq!(doc2, doc, "{name}");
    }
}

#[test]
fn lazy_access_reads_version_and_types_without_decoding_the_tree() {
    let modern = payload("synthetic-modern.brson");
    assert_eq!(modern.version_number().unwrap(), Some("2025.1.1.1"));
    let types = modern.types().unwrap().unwrap();
    assert_eq!(types.len(), 6);
    assert_eq!(types[2], "[FrooxEngine]FrooxEngine.QuadMesh");
    let legacy = payload("redx-5ce7cdf5.7zbson");
    assert_eq!(legacy.version_number().unwrap(), None);
    assert_eq!(legacy.types().unwrap(), None);
    // Borrowing deserialization from the payload.
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "VersionNumber", borrow)]
        version: &'a str,
    }
    let head: Head<'_> = modern.deserialize().unwrap();
    assert_eq!(head.version, "2025.1.1.1");
}

#[test]
fn engine_rules_for_headers_and_extensions() {
    let legacy = fixture("rassi0429-Box.7zbson");
    // A legacy file needs the extension hint.
    assert_eq!(Options::new().decompress(&legacy).unwrap_err().kind(), ErrorKind::MissingHeader);
    // With the wrong hint, the wrong codec runs and fails.
    assert_eq!(Options::new().extension(Extension::Brson).decompress(&legacy).unwrap_err().kind(), ErrorKind::Brotli);
    // A header whose kind disagrees with the extension is the engine's InvalidDataException.
    let headed = fixture("synthetic-modern.brson");
    let err = Options::new().extension(Extension::Lz4Bson).decompress(&headed).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ExtensionMismatch);
    assert_eq!(err.position(), Some(serde_brson::Position::File(8)));
    // The right extension, or none, is fine for a headed file.
    assert!(Options::new().extension(Extension::Brson).decompress(&headed).is_ok());
    assert!(Options::new().decompress(&headed).is_ok());
}

#[test]
fn our_writer_emits_the_engine_header_and_lzma_body() {
    let doc = payload("synthetic-modern.lz4bson").to_document().unwrap();
    for compression in [Compression::Brotli, Compression::Lz4, Compression::Lzma] {
        let bytes = serde_brson::to_vec(&doc, compression).unwrap();
        assert_eq!(&bytes[..8], b"FrDT\0\0\0\0");
        assert_eq!(u64::from(bytes[8]), compression.code());
        let mut streamed = Vec::new();
        serde_brson::to_writer(&mut streamed, &doc, compression).unwrap();
        assert_eq!(streamed, bytes, "{compression:?}: to_writer and to_vec agree");
        let back: Document = serde_brson::from_slice(&bytes).unwrap();
        assert_eq!(back, doc);
    }
    let lzma = serde_brson::to_vec(&doc, Compression::Lzma).unwrap();
    // props 5D, dictionary 2 MiB, the uncompressed size, the compressed size = the rest.
    assert_eq!(lzma[9..14], [0x5D, 0x00, 0x00, 0x20, 0x00]);
    assert_eq!(i64::from_le_bytes(lzma[14..22].try_into().unwrap()), 5580);
    assert_eq!(i64::from_le_bytes(lzma[22..30].try_into().unwrap()) as usize, lzma.len() - 30);
}
