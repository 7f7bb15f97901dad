//! serde-kiprop's XML debug form reader (`xml::from_str`) on arbitrary text, with the fixtures'
//! type lists. Reading must never panic, the model budget bounds what it builds, and what reads
//! must write back (`xml::to_string`) and read again to the same value.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_kiprop::{TypeList, xml};

static TYPES: LazyLock<TypeList> = LazyLock::new(|| {
    TypeList::from_json_many([
        include_str!("../../serde-kiprop/tests/data/katsuba/types.json"),
        include_str!("../../serde-kiprop/tests/data/generated/types.json"),
    ])
    .expect("fixture type lists load")
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = xml::from_str(text, &TYPES) else { return };
    if let Ok(written) = xml::to_string(&value, &TYPES) {
        let back = xml::from_str(&written, &TYPES).expect("our own XML reads");
        assert_eq!(back, value, "XML round trip differs");
    }
});
