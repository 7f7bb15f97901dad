//! Regression tests, each named after what it guards.

mod common;

use common::*;
use serde_kiprop::{Options, TypeList, Value, serializer_flags::*};

/// Found by `kiprop_decode` (fuzz): a Vector3D holding NaN did not compare equal to itself after
/// a round trip, because leaf components compared NaN != NaN while `Value::Float` treats NaN as
/// equal. The input's first byte is the fuzz target's option selector.
#[test]
fn leaf_nan_values_compare_equal_after_round_trip() {
    let types = TypeList::from_json_many([
        std::str::from_utf8(&read("katsuba/types.json")).unwrap(),
        std::str::from_utf8(&read("generated/types.json")).unwrap(),
    ])
    .unwrap();
    let input = read("regressions/fuzz-leaf-nan.bin");
    let (&sel, blob) = input.split_first().unwrap();
    let (reader, plain) = fuzz_options(sel);
    let value: Value = reader.from_slice(blob, &types).unwrap();
    let back: Value = plain.from_slice(&plain.to_vec(&value, &types).unwrap(), &types).unwrap();
    assert_eq!(back, value);
    assert_eq!(value, value.clone());
}

/// The option mapping of `fuzz/fuzz_targets/kiprop_decode.rs`: (reader, re-encoding) options.
fn fuzz_options(sel: u8) -> (Options, Options) {
    let reader_flags = match sel & 3 {
        0 => STATEFUL_FLAGS,
        1 => 0,
        2 => COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS,
        _ => WITH_COMPRESSION | COMPACT_LENGTH_PREFIXES,
    };
    let mask = if sel & 32 != 0 { 7 } else { 0x18 };
    let mut reader = Options::new()
        .shallow(sel & 4 != 0)
        .flags(reader_flags)
        .manual_compression(sel & 8 != 0)
        .skip_unknown(sel & 16 != 0)
        .property_mask(mask)
        .max_decompressed_size(1 << 20);
    if sel & 64 != 0 {
        reader = reader.bind_file(true);
    }
    let plain = Options::new()
        .shallow(sel & 4 != 0)
        .flags(reader_flags & (COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS))
        .property_mask(mask)
        .skip_deprecated(sel & 4 != 0);
    (reader, plain)
}

mod index_keys {
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, Options, PropertySchema as P, TypeList};

    const OPTS: &[(&str, u32)] = &[("X", 0), ("Y", 1), ("Z", 2)];
    static CLASS: ClassSchema = ClassSchema::new(
        "class P",
        &[P::new("a").ty("unsigned int"), P::new("b").ty("unsigned int"), P::new("e").ty("enum E").options(OPTS)],
    );

    /// Fields and variants exactly the properties and options: the deserializer passes indices.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class P")]
    struct Same {
        a: u32,
        b: u32,
        e: E,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum E {
        X,
        Y,
        Z,
    }

    /// Fields in another order, variants in another order: names must decide.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class P")]
    struct Reordered {
        b: u32,
        a: u32,
        e: Backwards,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    enum Backwards {
        Z,
        Y,
        X,
    }

    /// A subset of the properties.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class P")]
    struct Subset {
        b: u32,
    }

    /// The index fast paths of the deserializer (field and variant indices when the serde names
    /// are exactly the class's properties / the enum's options) must agree with matching by name
    /// for every other shape of struct and enum.
    #[test]
    fn index_keys_are_used_only_when_names_line_up() {
        let types = TypeList::from_schemas(&[&CLASS]);
        for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
            let same = Same { a: 1, b: 2, e: E::Z };
            let bytes = opts.to_vec(&same, &types).unwrap();
            // Twice: the second decode takes the cached (address-checked) path.
            for _ in 0..2 {
                assert_eq!(opts.from_slice::<Same>(&bytes, &types).unwrap(), same);
                let r: Reordered = opts.from_slice(&bytes, &types).unwrap();
                assert_eq!(r, Reordered { b: 2, a: 1, e: Backwards::Z });
                assert_eq!(opts.from_slice::<Subset>(&bytes, &types).unwrap(), Subset { b: 2 });
            }
        }
    }
}
