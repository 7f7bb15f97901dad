//! serde-kiprop's typed decoder (derived Rust structs, not `Value`) on arbitrary input. The first
//! byte picks the options (shallow/deep, the reader's flags, manual compression, BINd file) and
//! the target type: the generated fixtures' root class, or the katsuba fixtures' nested lists and
//! scalar classes. Decoding must never panic; containers are checked against the input before
//! anything is reserved, and what decodes must re-encode.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use serde_kiprop::{Color, Options, Quaternion, TypeList, Vec3, serializer_flags::*};

static TYPES: LazyLock<TypeList> = LazyLock::new(|| {
    TypeList::from_json_many([
        include_str!("../../serde-kiprop/tests/data/katsuba/types.json"),
        include_str!("../../serde-kiprop/tests/data/generated/types.json"),
    ])
    .expect("fixture type lists load")
});

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class KiPropTestItem")]
#[allow(non_snake_case)]
struct Item {
    m_itemID: u64,
    m_name: String,
    m_count: u8,
    m_equipped: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class KiPropTestRoot")]
struct Root {
    m_flag: bool,
    m_level: i32,
    m_small: i8,
    m_big: u32,
    m_name: String,
    m_title: String,
    m_speed: f32,
    m_precise: f64,
    m_school: u32,
    m_mask: u32,
    m_color: Color,
    m_pos: Vec3,
    m_rot: Quaternion,
    m_ids: Vec<u32>,
    m_items: Vec<Option<Item>>,
    m_best: Option<Item>,
    m_none: Option<Item>,
    #[serde(default)]
    m_delta: Option<u32>,
    m_tail: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class ListElement")]
struct ListElement {
    m_id: u32,
    m_name: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "class NestedLists")]
struct NestedLists {
    m_elements: Vec<Option<ListElement>>,
    m_depth: u32,
}

#[derive(Deserialize, Debug)]
#[serde(rename = "class WithList")]
#[allow(dead_code)]
struct WithList<'a> {
    #[serde(borrow)]
    m_values: std::borrow::Cow<'a, [u8]>,
    m_count: u32,
}

/// Re-encodes a decoded value, decodes that and encodes again: the bytes must agree (compared as
/// bytes, so NaN floats compare equal to themselves).
fn roundtrip<T: Serialize + for<'de> Deserialize<'de>>(value: &T, plain: Options) {
    if let Ok(bytes) = plain.to_vec(value, &TYPES) {
        let back: T = plain.from_slice(&bytes, &TYPES).expect("our own output decodes");
        let again = plain.to_vec(&back, &TYPES).expect("a decoded value encodes");
        assert_eq!(again, bytes, "re-encoded value differs");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, blob)) = data.split_first() else { return };
    let reader_flags = match sel & 3 {
        0 => STATEFUL_FLAGS,
        1 => 0,
        2 => COMPACT_LENGTH_PREFIXES,
        _ => WITH_COMPRESSION | COMPACT_LENGTH_PREFIXES,
    };
    let shallow = sel & 4 != 0;
    let mut opts = Options::new()
        .shallow(shallow)
        .flags(reader_flags)
        .manual_compression(sel & 8 != 0)
        .property_mask(0x18)
        .skip_deprecated(false)
        .max_decompressed_size(1 << 20);
    if sel & 16 != 0 {
        opts = opts.bind_file(true);
    }
    let plain = Options::new().shallow(shallow).flags(reader_flags & COMPACT_LENGTH_PREFIXES).skip_deprecated(false);
    match sel >> 5 {
        0 | 1 | 2 => {
            let maps = opts.from_slice::<Root>(blob, &TYPES);
            // The sequence form (`absent_option_is_none`) accepts the same inputs and reads the
            // same values (`Root` has no `Option` defaulting to `Some`; Debug, for NaN floats).
            let seq = opts.absent_option_is_none(true).from_slice::<Root>(blob, &TYPES);
            assert_eq!(format!("{:?}", maps.as_ref().ok()), format!("{:?}", seq.as_ref().ok()));
            if let Ok(v) = maps {
                roundtrip(&v, plain);
            }
        }
        3 | 4 | 5 => {
            if let Ok(v) = opts.property_mask(7).from_slice::<NestedLists>(blob, &TYPES) {
                roundtrip(&v, plain.property_mask(7));
            }
        }
        _ => {
            let _ = opts.property_mask(7).from_slice::<WithList<'_>>(blob, &TYPES);
        }
    }
});
