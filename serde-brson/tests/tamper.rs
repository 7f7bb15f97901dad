//! The tamper cases of spec §5 and the container rules: each gives a typed error with a position.

mod common;

use common::{fixture, payload};
use serde_brson::codec::{Lz4NetReader, LzmaReader};
use serde_brson::{Compression, ErrorKind, Extension, Options, Position};

fn decode_err(bytes: &[u8]) -> serde_brson::Error {
    let err = Options::new().decompress(bytes).expect_err("tampered input must not decode");
    // The streaming path must agree on the kind.
    let streamed = Options::new().decompress_reader(bytes).expect_err("tampered input must not decode (stream)");
    assert_eq!(err.kind(), streamed.kind(), "slice: {err}; stream: {streamed}");
    err
}

fn with_header(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut out = b"FrDT\0\0\0\0".to_vec();
    out.push(kind);
    out.extend_from_slice(body);
    out
}

#[test]
fn version_above_zero_is_rejected() {
    let mut bytes = fixture("synthetic-modern.brson");
    bytes[4] = 1;
    let err = decode_err(&bytes);
    assert_eq!(err.kind(), ErrorKind::UnsupportedVersion);
    assert_eq!(err.position(), Some(Position::File(4)));
    // Negative versions pass the engine's `version > VERSION` check.
    bytes[4..8].copy_from_slice(&(-1i32).to_le_bytes());
    assert!(Options::new().decompress(&bytes).is_ok());
}

#[test]
fn kind_zero_only_when_opted_in() {
    let bson = fixture("synthetic-modern.bson");
    let bytes = with_header(0, &bson);
    assert_eq!(decode_err(&bytes).kind(), ErrorKind::UncompressedNotAllowed);
    let payload = Options::new().allow_uncompressed(true).decompress(&bytes).unwrap();
    assert_eq!(payload.as_bytes(), &bson[..]);
    assert_eq!(payload.compression(), Compression::None);
    // Writing kind 0 needs the same opt-in.
    let doc = payload.to_document().unwrap();
    assert_eq!(serde_brson::to_vec(&doc, Compression::None).unwrap_err().kind(), ErrorKind::UncompressedNotAllowed);
    assert_eq!(Options::new().allow_uncompressed(true).to_vec(&doc, Compression::None).unwrap(), bytes);
}

#[test]
fn unknown_kind_is_rejected() {
    let err = decode_err(&with_header(9, b"whatever"));
    assert_eq!(err.kind(), ErrorKind::UnknownCompression);
    assert_eq!(err.position(), Some(Position::File(8)));
    // A multi-byte LEB128 kind (Elements' Write7BitEncoded) is read whole: 0x81 0x01 = 129.
    let mut bytes = b"FrDT\0\0\0\0\x81\x01".to_vec();
    bytes.extend_from_slice(b"body");
    assert!(decode_err(&bytes).message().contains("129"));
    // An overlong varint.
    let bytes = [&b"FrDT\0\0\0\0"[..], &[0xFF; 11]].concat();
    assert_eq!(decode_err(&bytes).kind(), ErrorKind::InvalidVarint);
}

#[test]
fn truncated_headers_and_chunks_are_eof() {
    assert!(decode_err(b"FrDT\0\0").is_eof());
    assert!(decode_err(b"FrDT\0\0\0\0").is_eof());
    let file = fixture("synthetic-modern.lz4bson");
    for cut in [10, 11, 12, 40, file.len() - 1] {
        let err = decode_err(&file[..cut]);
        assert!(err.is_eof(), "cut at {cut}: {err}");
    }
}

#[test]
fn lz4net_chunk_rules() {
    // compressedLen > originalLen
    let err = decode_err(&with_header(1, &[0x01, 0x04, 0x05, 1, 2, 3, 4, 5]));
    assert_eq!(err.kind(), ErrorKind::Lz4);
    assert_eq!(err.position(), Some(Position::File(9)));
    // "passes" bits set on a compressed chunk
    assert!(decode_err(&with_header(1, &[0x05, 0x04, 0x02, 0x30, 0x61])).message().contains("passes"));
    // A block that decodes to fewer bytes than declared.
    let block = lz4_flex::block::compress(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    let mut body = vec![0x01, 51, block.len() as u8];
    body.extend_from_slice(&block);
    assert_eq!(decode_err(&with_header(1, &body)).kind(), ErrorKind::Lz4);
    // A chunk over the per-chunk cap is refused before anything is allocated for it.
    let big = [0x00, 0x80, 0x80, 0x80, 0x10]; // stored, 32 MiB
    let err = decode_err(&with_header(1, &big));
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    // A compressed chunk claiming a ratio no LZ4 block can reach.
    let err = decode_err(&with_header(1, &[0x01, 0x80, 0x80, 0x40, 0x02, 0x00, 0x00]));
    assert_eq!(err.kind(), ErrorKind::Lz4);
    // Empty chunks are skipped, and a stream may be empty (then the BSON check fails).
    let bson = fixture("synthetic-modern.bson");
    let mut body = vec![0x00, 0x00];
    body.extend_from_slice(&[0x00]);
    body.extend_from_slice(&encode_varint(bson.len()));
    body.extend_from_slice(&bson);
    assert_eq!(Options::new().decompress(&with_header(1, &body)).unwrap().as_bytes(), &bson[..]);
    assert_eq!(decode_err(&with_header(1, &[])).kind(), ErrorKind::Bson);
}

fn encode_varint(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (n & 0x7F) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

#[test]
fn lzma_declared_sizes_are_checked_before_allocating() {
    let file = fixture("synthetic-modern.7zbson");
    // An uncompressed size of 2^62 is refused from the header alone.
    let mut huge = file.clone();
    huge[9 + 5..9 + 13].copy_from_slice(&(1i64 << 62).to_le_bytes());
    let err = decode_err(&huge);
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(err.position(), Some(Position::File(14)));
    // Negative sizes.
    let mut negative = file.clone();
    negative[9 + 13..9 + 21].copy_from_slice(&(-5i64).to_le_bytes());
    assert_eq!(decode_err(&negative).kind(), ErrorKind::Lzma);
    // A compressed size past the end of the file.
    let mut long = file.clone();
    long[9 + 13..9 + 21].copy_from_slice(&(file.len() as i64).to_le_bytes());
    assert!(decode_err(&long).is_eof());
    // A bad properties byte.
    let mut props = file.clone();
    props[9] = 225;
    assert_eq!(decode_err(&props).kind(), ErrorKind::Lzma);
    // Bytes after the declared compressed size.
    let mut trailing = file.clone();
    trailing.push(0);
    assert_eq!(decode_err(&trailing).kind(), ErrorKind::TrailingBytes);
    // Declaring a larger uncompressed size than the data holds: the data runs out.
    let mut short = file.clone();
    short[9 + 5..9 + 13].copy_from_slice(&6000i64.to_le_bytes());
    let err = decode_err(&short);
    assert!(matches!(err.kind(), ErrorKind::Lzma | ErrorKind::UnexpectedEof), "{err}");
}

#[test]
fn lzma_decoding_stops_exactly_at_the_declared_size() {
    // Declare one byte less than the real payload: decoding stops there, and the BSON length
    // check then sees a payload one byte shorter than its length prefix.
    let mut file = fixture("rassi0429-Box.7zbson");
    file[5..13].copy_from_slice(&8773i64.to_le_bytes());
    let err = Options::new().extension(Extension::SevenZBson).decompress(&file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Bson);
    assert_eq!(err.position(), Some(Position::Payload(0)));
    let mut reader = LzmaReader::new(&file[..], 1 << 20, 0).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut out).unwrap();
    assert_eq!(out.len(), 8773);
    assert_eq!(out[..], payload("rassi0429-Box.7zbson").as_bytes()[..8773]);
}

#[test]
fn brotli_corruption_and_trailing_bytes() {
    let file = fixture("synthetic-modern.brson");
    let mut trailing = file.clone();
    trailing.extend_from_slice(b"junk");
    let err = decode_err(&trailing);
    assert_eq!(err.kind(), ErrorKind::TrailingBytes);
    let mut corrupt = file.clone();
    corrupt[9] ^= 0xFF;
    corrupt[10] ^= 0xFF;
    let err = decode_err(&corrupt);
    assert!(matches!(err.kind(), ErrorKind::Brotli | ErrorKind::UnexpectedEof | ErrorKind::Bson), "{err}");
    assert!(decode_err(&file[..file.len() - 3]).is_eof());
}

#[test]
fn bson_length_checks() {
    let bson = fixture("synthetic-modern.bson");
    let options = Options::new().allow_uncompressed(true);
    // Length prefix larger than the payload.
    let mut bigger = bson.clone();
    bigger[0..4].copy_from_slice(&((bson.len() + 1) as i32).to_le_bytes());
    let err = options.decompress(&with_header(0, &bigger)).unwrap_err();
    assert_eq!((err.kind(), err.position()), (ErrorKind::Bson, Some(Position::Payload(0))));
    // Trailing bytes after the document.
    let mut trailing = bson.clone();
    trailing.push(0);
    let err = options.decompress(&with_header(0, &trailing)).unwrap_err();
    assert_eq!((err.kind(), err.position()), (ErrorKind::TrailingBytes, Some(Position::Payload(bson.len() as u64))));
    // An embedded document whose length overruns its parent.
    let mut overrun = bson.clone();
    let object = 4 + 1 + b"VersionNumber\0".len() + 4 + b"2025.1.1.1\0".len() + 1 + b"FeatureFlags\0".len();
    overrun[object..object + 4].copy_from_slice(&(i32::MAX).to_le_bytes());
    let err = options.decompress(&with_header(0, &overrun)).unwrap_err();
    assert_eq!((err.kind(), err.position()), (ErrorKind::Bson, Some(Position::Payload(object as u64))));
}

#[test]
fn the_adapters_report_crate_errors_through_io() {
    let mut reader = Lz4NetReader::new(&[0x01u8, 0x84][..]);
    let io = std::io::Read::read(&mut reader, &mut [0u8; 8]).unwrap_err();
    let err = serde_brson::Error::from(io);
    assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
    let io = std::io::Read::read(&mut Lz4NetReader::new(&[0x01u8, 0x04, 0x05, 0, 0, 0, 0, 0][..]), &mut [0u8; 8])
        .unwrap_err();
    assert_eq!(serde_brson::Error::from(io).kind(), ErrorKind::Lz4);
}

/// Fuzz finding (brson_container): a legacy LZMA body declaring more compressed bytes than the file
/// holds, whose data is corrupt, gave `UnexpectedEof` from the slice decoder (which checked the
/// declared size first) but `Lzma` from the stream decoder. Both now decode first.
#[test]
fn regression_lzma_declared_size_checked_after_decoding_on_both_paths() {
    let input = fixture("fuzz-lzma-short-compressed-size.bin");
    let options = Options::new().extension(Extension::SevenZBson);
    let a = options.decompress(&input[1..]).unwrap_err();
    let b = options.decompress_reader(&input[1..]).unwrap_err();
    assert_eq!(a.kind(), b.kind(), "{a} / {b}");
}
