//! serde-brson's typed model: raw BSON (with a header of kind 0, so every byte reaches BSON
//! validation and the model) or a compressed file, decoded into `DataTree` under a small model
//! budget. Nothing may panic or overflow the stack, running out of budget must be
//! `LimitExceeded`, and what decodes must re-encode to a tree that decodes to the same bytes
//! (the model keeps unknown keys and `$`-keyed documents exactly).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_brson::model::DataTree;
use serde_brson::{Compression, ErrorKind, Options};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let ratio = usize::from(selector >> 2) + 1;
    let options = Options::new().max_decompressed(4 << 20).allow_uncompressed(true).model_budget_ratio(ratio);
    let file = if selector & 1 == 0 { [&b"FrDT\0\0\0\0\0"[..], body].concat() } else { body.to_vec() };
    // The one-pass decode (checks the BSON while it builds the model) must accept exactly what
    // the validated payload path accepts, and build the same tree. `from_slice` falls back to the
    // careful path when the one pass refuses, so a false refusal shows only as a debug assertion
    // inside it: run this target with FUZZ_DEBUG_ASSERTIONS=1 (fuzz/run.sh) to check that side.
    let one_pass = options.from_slice::<DataTree>(&file);
    let Ok(payload) = options.decompress(&file) else {
        assert!(one_pass.is_err(), "the one-pass decode accepted a file decompress refuses");
        return;
    };
    let tree = match payload.deserialize::<DataTree>() {
        Ok(tree) => tree,
        Err(e) => {
            assert!(one_pass.is_err(), "the one-pass decode accepted a tree the payload path refuses: {e}");
            assert_ne!(e.kind(), ErrorKind::Io, "{e}");
            if e.message().contains("budget") {
                assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
            }
            return;
        }
    };
    // Compare encodings, not values: NaN floats are not equal to themselves.
    let raw = Options::new().allow_uncompressed(true).model_budget_ratio(1 << 12);
    let file = raw.to_vec(&tree, Compression::None).expect("encode a decoded tree");
    let again: DataTree = raw.from_slice(&file).expect("decode our own tree");
    let one_pass = one_pass.expect("the one-pass decode refused a tree the payload path decodes");
    assert_eq!(raw.to_vec(&one_pass, Compression::None).unwrap(), file);
    assert_eq!(raw.to_vec(&again, Compression::None).unwrap(), file);
    // Unknown keys and component data are kept exactly, including `$`-keyed documents.
    for (component, again) in tree
        .object
        .descendants()
        .zip(again.object.descendants())
        .flat_map(|(a, b)| a.components().unwrap_or_default().iter().zip(b.components().unwrap_or_default()))
    {
        assert_eq!(bson::serialize_to_vec(&component.data).unwrap(), bson::serialize_to_vec(&again.data).unwrap());
    }
});
