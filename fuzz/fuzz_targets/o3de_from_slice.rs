//! serde-o3de's loaders on arbitrary bytes: dynamic values, a typed struct touching every O3DE
//! rule (coercions, `{}`, math types, uuid, color, enums, `$type`, maps in both forms), the prefab
//! model and settings-registry syntax. None may panic; what loads must store and load again (a
//! dynamic value and a prefab unchanged).
#![no_main]

use std::collections::{BTreeMap, HashMap};

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_o3de::prefab::Prefab;
use serde_o3de::{
    Any, Color, Enum, Matrix3x4, O3deEnum, Options, Polymorphic, Quaternion, RawJson, Transform, TypeIndex,
    UnknownType, Uuid, Vector3,
};

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Flags(u16);

impl O3deEnum for Flags {
    type Repr = u16;
    const OPTIONS: &'static [(&'static str, u16)] = &[("None", 0), ("A", 1), ("B", 2), ("AB", 3), ("High", 0x8000)];
    fn to_repr(self) -> u16 {
        self.0
    }
    fn from_repr(repr: u16) -> Option<Self> {
        Some(Flags(repr))
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
enum Mode {
    #[default]
    Off,
    On(i32),
    Pair(u8, String),
    Named {
        x: f32,
    },
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct Light {
    intensity: f32,
    color: Color,
}

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Light(Light),
    Other(UnknownType),
}

impl Polymorphic for Shape {
    const TYPES: &'static [&'static str] = &["{11111111-2222-3333-4444-555555555555} Light", "Light2"];
    fn deserialize_type<'de, D: Deserializer<'de>>(_index: usize, d: D) -> Result<Self, D::Error> {
        Light::deserialize(d).map(Shape::Light)
    }
    fn unknown(value: UnknownType) -> Option<Self> {
        Some(Shape::Other(value))
    }
    fn type_index(&self) -> TypeIndex<'_> {
        match self {
            Shape::Light(_) => TypeIndex::Known(0),
            Shape::Other(u) => TypeIndex::Unknown(u),
        }
    }
    fn serialize_type<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Shape::Light(l) => l.serialize(s),
            Shape::Other(_) => Err(serde::ser::Error::custom("unknown types are written by the helper")),
        }
    }
}
serde_o3de::impl_polymorphic_serde!(Shape);

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct Sample {
    flag: bool,
    small: i8,
    int: i32,
    big: u64,
    wide: i128,
    float: f32,
    double: f64,
    letter: char,
    name: String,
    list: Vec<i16>,
    nested: Vec<Vec<String>>,
    by_int: BTreeMap<i32, String>,
    by_name: HashMap<String, f32>,
    pair: (u8, String),
    fixed: [f32; 3],
    maybe: Option<Box<Sample>>,
    position: Vector3,
    rotation: Quaternion,
    matrix: Matrix3x4,
    transform: Transform,
    tint: Color,
    id: Uuid,
    flags: Enum<Flags>,
    mode: Mode,
    shapes: Vec<Shape>,
    any: Any,
    raw: RawJson,
}

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = serde_o3de::from_slice::<Value>(data) {
        // Stored as O3DE JSON, a dynamic value loads again (not necessarily equal: `{}` is a default).
        let text = serde_o3de::to_string(&value).expect("a loaded value stores");
        let _: Value = serde_o3de::from_str(&text).expect("stored JSON loads");
        // Kept as raw JSON it is written back verbatim.
        let raw = serde_o3de::from_slice::<RawJson>(data).expect("valid JSON is raw JSON");
        let stored = Options::new().store(&raw, None).expect("raw JSON stores");
        assert_eq!(stored.as_str(), raw.get(), "raw JSON is verbatim");
        assert_eq!(serde_o3de::from_str::<Value>(raw.get()).expect("compact JSON loads"), value);
    }
    if let Ok((sample, _report)) = Options::new().load_slice::<Sample>(data) {
        let text = serde_o3de::to_string(&sample).expect("a loaded value stores");
        let _: Sample = serde_o3de::from_str(&text).expect("stored JSON loads");
        let pretty = serde_o3de::to_string_pretty(&sample).expect("pretty store");
        let _: Sample = serde_o3de::from_str(&pretty).expect("pretty JSON loads");
    }
    if let Ok(prefab) = serde_o3de::from_slice::<Prefab>(data) {
        let text = serde_o3de::to_string(&prefab).expect("a loaded prefab stores");
        let again: Prefab = serde_o3de::from_str(&text).expect("stored prefab loads");
        assert_eq!(again, prefab, "prefabs round-trip");
    }
    let _ = Options::new().settings_registry(true).from_slice::<Value>(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = serde_o3de::setreg::to_json(text);
        let mut color = Color::new(0.1, 0.2, 0.3, 0.4);
        let _ = Options::new().load_into(&mut color, text);
    }
});
