//! serde-brson's JSON reader (`json::from_slice`) on arbitrary text under a small memory budget,
//! then the round trip: what parses must write back to JSON that parses and gives the same text
//! again (`$`-keyed documents are escaped as `{"$literal": …}`, so this holds for every tree). Nothing may panic or overflow the stack; running out of budget must be
//! `LimitExceeded`, too deep `DepthLimitExceeded`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_brson::ErrorKind;
use serde_brson::json::{self, IntWidth};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else { return };
    let width = if selector & 1 == 0 { IntWidth::Narrowest } else { IntWidth::Int64 };
    let ratio = usize::from(selector >> 1) + 1;
    let tree = match json::from_slice_with_budget(text, width, 128, ratio) {
        Ok(tree) => tree,
        Err(e) => {
            assert!(
                matches!(e.kind(), ErrorKind::Json | ErrorKind::LimitExceeded | ErrorKind::DepthLimitExceeded),
                "{e:?}"
            );
            return;
        }
    };
    let Ok(bytes) = bson::serialize_to_vec(&tree) else { return };
    let raw = bson::RawDocument::from_bytes(&bytes).unwrap();
    let Ok(written) = json::to_string(raw) else { return };
    let back = json::from_slice_with_budget(written.as_bytes(), width, 256, 1 << 12).expect("our JSON parses");
    // JSON → BSON → JSON gives the same text (BSON → JSON → BSON is exact up to integer width
    // and non-finite doubles, both documented): a `$`-keyed document read back as anything else
    // would print differently.
    let again = bson::serialize_to_vec(&back).unwrap();
    assert_eq!(json::to_string(bson::RawDocument::from_bytes(&again).unwrap()).unwrap(), written);
});
