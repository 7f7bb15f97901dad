//! Property tests: typed values survive store → load (compact and pretty), dynamic values parse
//! like serde_json parses them, and O3DE's C parsers never panic on any text.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_o3de::{Color, Enum, O3deEnum, Options, Quaternion, Uuid, Vector3};

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Mask(u32);

impl O3deEnum for Mask {
    type Repr = u32;
    const OPTIONS: &'static [(&'static str, u32)] = &[("None", 0), ("A", 1), ("B", 2), ("AB", 3), ("C", 8)];
    fn to_repr(self) -> u32 {
        self.0
    }
    fn from_repr(repr: u32) -> Option<Self> {
        Some(Mask(repr))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Part {
    name: String,
    weight: f32,
    count: u16,
}

impl Default for Part {
    fn default() -> Self {
        Part { name: "part".to_owned(), weight: 1.0, count: 1 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Thing {
    flag: bool,
    small: i8,
    int: i64,
    big: u64,
    float: f32,
    double: f64,
    text: String,
    letter: char,
    list: Vec<i32>,
    nested: Vec<Vec<u8>>,
    by_name: BTreeMap<String, f64>,
    by_int: HashMap<i16, String>,
    maybe: Option<u32>,
    pair: (u8, String),
    position: Vector3,
    rotation: Quaternion,
    tint: Color,
    id: Uuid,
    mask: Enum<Mask>,
    #[serde(with = "serde_o3de::elements")]
    parts: Vec<Part>,
    loose: Vec<Part>,
}

impl Default for Thing {
    fn default() -> Self {
        Thing {
            flag: true,
            small: -1,
            int: 42,
            big: 7,
            float: 0.5,
            double: 10.0,
            text: "default".to_owned(),
            letter: 'x',
            list: vec![1, 2],
            nested: Vec::new(),
            by_name: BTreeMap::new(),
            by_int: HashMap::new(),
            maybe: Some(3),
            pair: (1, "one".to_owned()),
            position: Vector3::new(1.0, 2.0, 3.0),
            rotation: Quaternion::IDENTITY,
            tint: Color::new(1.0, 1.0, 1.0, 1.0),
            id: Uuid::NIL,
            mask: Enum(Mask(1)),
            parts: Vec::new(),
            loose: Vec::new(),
        }
    }
}

/// Any finite f32. (NaN is not equal to itself; and an infinite f32 has no O3DE JSON form: it is
/// written `"Infinity"`, which O3DE's float rules refuse as beyond `FLT_MAX`.)
fn float() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
        Just(0.0f32),
        Just(-0.0),
        Just(1e-8),
        Just(f32::MAX)
    ]
}

fn double() -> impl Strategy<Value = f64> {
    prop_oneof![any::<f64>().prop_filter("not NaN", |f| !f.is_nan()), Just(0.0f64), Just(1e-300), Just(-f64::INFINITY)]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), Just("{}".to_owned()), ".{0,12}", "[a-z]{0,6}"]
}

prop_compose! {
    fn part()(name in text(), weight in float(), count in any::<u16>()) -> Part {
        Part { name, weight, count }
    }
}

prop_compose! {
    fn thing()(
        (flag, small, int, big) in (any::<bool>(), any::<i8>(), any::<i64>(), any::<u64>()),
        (float, double, text, letter) in (float(), double(), text(), any::<char>()),
        list in proptest::collection::vec(any::<i32>(), 0..5),
        nested in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..3), 0..3),
        by_name in proptest::collection::btree_map(text(), double(), 0..4),
        by_int in proptest::collection::hash_map(any::<i16>(), text(), 0..4),
        maybe in proptest::option::of(any::<u32>()),
        pair in (any::<u8>(), text()),
        (position, rotation, tint) in ([float(), float(), float()], [float(), float(), float(), float()], [float(), float(), float(), float()]),
        id in any::<[u8; 16]>(),
        mask in any::<u32>(),
        parts in proptest::collection::vec(part(), 0..3),
        loose in proptest::collection::vec(part(), 0..3),
    ) -> Thing {
        Thing {
            flag, small, int, big, float, double, text, letter, list, nested, by_name, by_int, maybe, pair,
            position: position.into(), rotation: rotation.into(), tint: tint.into(), id: Uuid::from_bytes(id),
            mask: Enum(Mask(mask)), parts, loose,
        }
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(".{0,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn typed_values_round_trip(t in thing()) {
        let text = serde_o3de::to_string(&t).unwrap();
        let back: Thing = serde_o3de::from_str(&text).unwrap();
        prop_assert_eq!(&back, &t, "{}", text);
        let pretty = serde_o3de::to_string_pretty(&t).unwrap();
        let back: Thing = serde_o3de::from_slice(pretty.as_bytes()).unwrap();
        prop_assert_eq!(&back, &t);
        let kept = Options::new().keep_defaults(true).to_string(&t).unwrap();
        let back: Thing = serde_o3de::from_str(&kept).unwrap();
        prop_assert_eq!(&back, &t);
        // The same through a `serde_json::Value`.
        let value = serde_o3de::to_value(&t).unwrap();
        let back: Thing = serde_o3de::from_value(&value).unwrap();
        prop_assert_eq!(&back, &t);
    }

    #[test]
    fn json_text_parses_like_serde_json(v in json_value()) {
        for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            let ours: Value = serde_o3de::from_str(&text).unwrap();
            prop_assert_eq!(&ours, &v);
        }
        // Kept verbatim as `RawJson` (a `Value` is stored as O3DE JSON, where `{}` means "the
        // default" and an empty map is `[]`).
        let raw = serde_o3de::RawJson::from_value(&v);
        let stored = Options::new().keep_defaults(true).store(&raw, None).unwrap();
        prop_assert_eq!(stored.as_str(), raw.get());
        let back: serde_o3de::RawJson = serde_o3de::from_str(stored.as_str()).unwrap();
        prop_assert_eq!(back.to_value().unwrap(), v);
    }

    #[test]
    fn o3de_parsers_never_panic(s in ".{0,40}", prefix in prop_oneof![Just(""), Just("0x"), Just("-"), Just(" +0"), Just("1e"), Just("inf")]) {
        let text = serde_json::to_string(&format!("{prefix}{s}")).unwrap();
        let _ = serde_o3de::from_str::<i64>(&text);
        let _ = serde_o3de::from_str::<u8>(&text);
        let _ = serde_o3de::from_str::<f32>(&text);
        let _ = serde_o3de::from_str::<bool>(&text);
        let _ = serde_o3de::from_str::<Uuid>(&text);
        let _ = serde_o3de::from_str::<Color>(&format!("{{\"HEX\": {text}}}"));
        let _ = serde_o3de::from_str::<Enum<Mask>>(&text);
    }
}
