//! serde-kiprop's decoder on arbitrary input. The first byte picks the options (shallow/deep,
//! the reader's flags, manual compression, skipping unknown types, BINd file); the rest is the
//! blob, decoded into a dynamic `Value` with the fixtures' type lists. Decoding must never panic,
//! and what decodes must re-encode and decode to the same value.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_kiprop::{Options, TypeList, Value, serializer_flags::*};

static TYPES: LazyLock<TypeList> = LazyLock::new(|| {
    TypeList::from_json_many([
        include_str!("../../serde-kiprop/tests/data/katsuba/types.json"),
        include_str!("../../serde-kiprop/tests/data/generated/types.json"),
    ])
    .expect("fixture type lists load")
});

fuzz_target!(|data: &[u8]| {
    let Some((&sel, blob)) = data.split_first() else { return };
    let reader_flags = match sel & 3 {
        0 => STATEFUL_FLAGS,
        1 => 0,
        2 => COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS,
        _ => WITH_COMPRESSION | COMPACT_LENGTH_PREFIXES,
    };
    let mut opts = Options::new()
        .shallow(sel & 4 != 0)
        .flags(reader_flags)
        .manual_compression(sel & 8 != 0)
        .skip_unknown(sel & 16 != 0)
        .property_mask(if sel & 32 != 0 { 7 } else { 0x18 })
        .max_decompressed_size(1 << 20);
    if sel & 64 != 0 {
        opts = opts.bind_file(true);
    }
    let Ok(value) = opts.from_slice::<Value>(blob, &TYPES) else { return };
    // Re-encode without compression (not part of the value); deep mode keeps DEPRECATED
    // properties a blob may carry.
    let plain = Options::new()
        .shallow(sel & 4 != 0)
        .flags(reader_flags & (COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS))
        .property_mask(if sel & 32 != 0 { 7 } else { 0x18 })
        .skip_deprecated(sel & 4 != 0);
    if let Ok(bytes) = plain.to_vec(&value, &TYPES) {
        let back: Value = plain.from_slice(&bytes, &TYPES).expect("our own output decodes");
        assert_eq!(back, value, "re-encoded value differs");
    }
});
