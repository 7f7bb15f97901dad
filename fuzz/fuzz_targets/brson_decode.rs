//! serde-brson's full decode: container, codecs, BSON validation, then serde into the typed
//! model, a `bson::Document` and a `serde_json::Value`, the JSON conversion and the URL walk.
//! Nothing may panic or overflow the stack; what decodes must survive encode → decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_brson::model::DataTree;
use serde_brson::{Compression, Extension, Options};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let mut options = Options::new().max_decompressed(8 << 20).allow_uncompressed(true);
    options = match selector & 3 {
        1 => options.extension(Extension::Lz4Bson),
        2 => options.extension(Extension::SevenZBson),
        3 => options.extension(Extension::Brson),
        _ => options,
    };
    let Ok(payload) = options.decompress(body) else { return };
    let _ = payload.version_number();
    let _ = payload.types();
    let _ = serde_brson::url::urls(payload.raw());
    let document = payload.to_document();
    let _: Result<serde_json::Value, _> = payload.deserialize();
    if let Ok(text) = serde_brson::json::to_string(payload.raw()) {
        // Our JSON parses, unless the BSON held a duplicate key (refused in JSON, documented).
        let back = match serde_brson::json::from_str(&text) {
            Ok(back) => back,
            Err(e) if e.message().contains("duplicate key") => return,
            Err(e) => panic!("our JSON does not parse: {e}"),
        };
        // Keys starting with `$` are read as Extended JSON (documented), so only plain trees
        // must give the same text again.
        if !text.contains("\"$") {
            let bytes = bson::serialize_to_vec(&back).unwrap();
            let again = serde_brson::json::to_string(bson::RawDocument::from_bytes(&bytes).unwrap()).unwrap();
            assert_eq!(again, text);
        }
    }
    if let Ok(tree) = payload.deserialize::<DataTree>() {
        // Compare encodings, not values: NaN floats are not equal to themselves.
        let raw = Options::new().allow_uncompressed(true);
        let file = raw.to_vec(&tree, Compression::None).expect("encode a decoded tree");
        let again: DataTree = raw.from_slice(&file).expect("decode our own tree");
        assert_eq!(raw.to_vec(&again, Compression::None).unwrap(), file);
    }
    if let Ok(document) = document {
        // Document renumbers array keys (BSON ignores them; the engine too), so the first
        // encoding may differ from hostile input, but it must be a fixed point.
        let once = bson::serialize_to_vec(&document).unwrap();
        // (Through `RawDocument`, not serde: bson's serde impl of `Document` reads `$`-keys as
        // Extended JSON, which hostile trees can hold.)
        let back = bson::Document::try_from(bson::RawDocument::from_bytes(&once).unwrap()).unwrap();
        assert_eq!(bson::serialize_to_vec(&back).unwrap(), once);
    }
});
