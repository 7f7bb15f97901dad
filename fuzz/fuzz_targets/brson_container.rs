//! serde-brson's container and codecs: the FrDT header rules, the lz4net chunk stream, the
//! Resonite 5+8+8 LZMA body and Brotli, through the slice decoder, the streaming decoder and the
//! codec adapters directly. Nothing may panic, the limits must hold (libFuzzer's malloc limit
//! catches any allocation from an untrusted size), and the slice and stream paths must agree.
#![no_main]

use std::io::{BufReader, Read};

use libfuzzer_sys::fuzz_target;
use serde_brson::codec::{BrotliReader, Lz4NetReader, LzmaReader};
use serde_brson::{Extension, Options};

const LIMIT: usize = 8 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let mut options =
        Options::new().max_decompressed(LIMIT).max_chunk(2 << 20).allow_uncompressed(selector & 0x80 != 0);
    options = match selector & 3 {
        1 => options.extension(Extension::Lz4Bson),
        2 => options.extension(Extension::SevenZBson),
        3 => options.extension(Extension::Brson),
        _ => options,
    };
    let from_slice = options.decompress(body);
    let from_reader = options.decompress_reader(BufReader::with_capacity(97, body));
    match (&from_slice, &from_reader) {
        (Ok(a), Ok(b)) => assert_eq!(a.as_bytes(), b.as_bytes(), "slice and stream decoders disagree"),
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "slice: {a}, stream: {b}"),
        (a, b) => panic!("slice and stream decoders disagree: {:?} vs {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    if let Ok(payload) = from_slice {
        assert!(payload.as_bytes().len() <= LIMIT);
        // Whatever decodes re-encodes to a file that decodes to the same payload (lz4net and
        // Brotli are cheap enough to run on every input).
        for kind in [serde_brson::Compression::Lz4, serde_brson::Compression::Brotli] {
            let file = options.compress(payload.as_bytes(), kind).expect("re-encode");
            let back = Options::new().decompress(&file).expect("decode our own file");
            assert_eq!(back.as_bytes(), payload.as_bytes());
        }
    }

    // The adapters on their own.
    let mut out = Vec::new();
    let _ = Lz4NetReader::with_max_chunk(body, 1 << 20).with_limit(LIMIT).read_to_end(&mut out);
    out.clear();
    if let Ok(mut reader) = LzmaReader::new(body, LIMIT, 0) {
        let _ = reader.read_to_end(&mut out);
    }
    out.clear();
    let _ = BrotliReader::new(body).take(LIMIT as u64).read_to_end(&mut out);
});
