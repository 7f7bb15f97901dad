//! serde-kiprop's type-list loading (`TypeList::from_json`, `from_json_many`) on arbitrary text,
//! then the loaded list at work: a fixed blob of every fixture class decoded with it as a dynamic
//! `Value`, shallow and deep. Loading and decoding must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_kiprop::{Options, TypeList, Value, serializer_flags::*};

const BLOBS: [&[u8]; 3] = [
    include_bytes!("../../serde-kiprop/tests/data/generated/shallow-flags01.bin"),
    include_bytes!("../../serde-kiprop/tests/data/generated/deep-flags01.bin"),
    include_bytes!("../../serde-kiprop/tests/data/katsuba/nested-lists.bin"),
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // One dump, or several separated by NUL bytes (merged, later classes win).
    let types =
        if text.contains('\0') { TypeList::from_json_many(text.split('\0')) } else { TypeList::from_json(text) };
    let Ok(types) = types else { return };
    for class in types.classes() {
        let _ = types.class_by_hash(class.hash());
        let _ = types.class_by_name(class.name());
    }
    for blob in BLOBS {
        for opts in [
            Options::new().flags(STATEFUL_FLAGS),
            Options::new().deep(true).flags(STATEFUL_FLAGS),
            Options::new().property_mask(7),
        ] {
            let _ = opts.max_decompressed_size(1 << 20).from_slice::<Value>(blob, &types);
        }
    }
});
