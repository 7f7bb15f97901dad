//! This crate's O3DE types beyond the transcribed cases: `$type` polymorphism, enums, math types,
//! uuids as keys, and the one-pass `Deserializer`.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_o3de::{
    Color, Matrix3x3, O3deEnum, Options, Outcome, Polymorphic, Quaternion, Transform, TypeIndex, UnknownType, Uuid,
    Vector3,
};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct Shape {
    name: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct Circle {
    name: String,
    radius: f32,
}

#[derive(Debug, Clone, PartialEq)]
enum AnyShape {
    Base(Shape),
    Circle(Circle),
    Unknown(UnknownType),
}

impl Default for AnyShape {
    fn default() -> Self {
        AnyShape::Base(Shape::default())
    }
}

impl Polymorphic for AnyShape {
    const TYPES: &'static [&'static str] = &["Shape", "{F2C33B7C-2E66-4A24-9C4E-6C3A2E7D1A11} Circle"];
    fn deserialize_type<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
        Ok(if index == 0 { AnyShape::Base(Shape::deserialize(d)?) } else { AnyShape::Circle(Circle::deserialize(d)?) })
    }
    fn unknown(value: UnknownType) -> Option<Self> {
        Some(AnyShape::Unknown(value))
    }
    fn default_of(index: usize) -> Option<Self> {
        Some(if index == 0 { AnyShape::Base(Shape::default()) } else { AnyShape::Circle(Circle::default()) })
    }
    fn type_index(&self) -> TypeIndex<'_> {
        match self {
            AnyShape::Base(_) => TypeIndex::Known(0),
            AnyShape::Circle(_) => TypeIndex::Known(1),
            AnyShape::Unknown(u) => TypeIndex::Unknown(u),
        }
    }
    fn serialize_type<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AnyShape::Base(b) => b.serialize(s),
            AnyShape::Circle(c) => c.serialize(s),
            AnyShape::Unknown(_) => Err(serde::ser::Error::custom("written by serde_o3de::poly")),
        }
    }
}
serde_o3de::impl_polymorphic_serde!(AnyShape);

#[test]
fn type_resolves_anywhere_in_the_object() {
    let shapes: Vec<AnyShape> = serde_o3de::from_str(
        r#"[{"radius": 2, "$type": "circle", "name": "c"},
            {"$type": "{f2c33b7c-2e66-4a24-9c4e-6c3a2e7d1a11}"},
            {"name": "plain"},
            {"$type": "Triangle", "sides": 3, "name": "t"}]"#,
    )
    .unwrap();
    assert_eq!(shapes[0], AnyShape::Circle(Circle { name: "c".into(), radius: 2.0 }));
    assert_eq!(shapes[1], AnyShape::Circle(Circle::default()));
    assert_eq!(shapes[2], AnyShape::Base(Shape { name: "plain".into() }));
    let AnyShape::Unknown(unknown) = &shapes[3] else { panic!("{:?}", shapes[3]) };
    assert_eq!(unknown.type_name, "Triangle");
    // Unknown classes are written back as they were read; known ones get their registered name.
    assert_eq!(
        serde_o3de::to_string(&shapes).unwrap(),
        concat!(
            r#"[{"$type":"{F2C33B7C-2E66-4A24-9C4E-6C3A2E7D1A11} Circle","name":"c","radius":2.0},"#,
            r#"{"$type":"{F2C33B7C-2E66-4A24-9C4E-6C3A2E7D1A11} Circle"},{"name":"plain"},"#,
            r#"{"$type":"Triangle","sides":3,"name":"t"}]"#
        )
    );
    // The same JSON through serde_json.
    let via_json: Vec<AnyShape> = serde_json::from_str(&serde_o3de::to_string(&shapes).unwrap()).unwrap();
    assert_eq!(via_json, shapes);
}

#[test]
fn declared_and_abstract_types() {
    #[derive(Debug, PartialEq)]
    struct Abstract(Circle);
    impl Polymorphic for Abstract {
        const TYPES: &'static [&'static str] = &["Circle"];
        const DECLARED: Option<usize> = None;
        fn deserialize_type<'de, D: Deserializer<'de>>(_: usize, d: D) -> Result<Self, D::Error> {
            Circle::deserialize(d).map(Abstract)
        }
        fn type_index(&self) -> TypeIndex<'_> {
            TypeIndex::Known(0)
        }
        fn serialize_type<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.serialize(s)
        }
    }
    serde_o3de::impl_polymorphic_serde!(Abstract);
    let err = serde_o3de::from_str::<Abstract>(r#"{"radius": 1}"#).unwrap_err();
    assert_eq!(err.outcome(), Some(Outcome::Catastrophic));
    let err = serde_o3de::from_str::<Vec<Abstract>>(r#"[{"$type": "Square"}]"#).unwrap_err();
    assert_eq!(err.outcome(), Some(Outcome::Unknown));
    assert_eq!(err.path(), Some("/0"));
    let ok: Abstract = serde_o3de::from_str(r#"{"$type": "Circle", "radius": 1}"#).unwrap();
    assert_eq!(ok.0.radius, 1.0);
    // A `$type` object of the declared type in a struct keeps `$type` out; others write it.
    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Holder {
        shape: AnyShape,
    }
    assert_eq!(serde_o3de::to_string(&Holder::default()).unwrap(), "{}");
    let h = Holder { shape: AnyShape::Circle(Circle::default()) };
    assert_eq!(
        serde_o3de::to_string(&h).unwrap(),
        r#"{"shape":{"$type":"{F2C33B7C-2E66-4A24-9C4E-6C3A2E7D1A11} Circle"}}"#
    );
    assert_eq!(serde_o3de::from_str::<Holder>(&serde_o3de::to_string(&h).unwrap()).unwrap(), h);
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
enum Quality {
    #[default]
    Low = 1,
    High = 4,
}

impl O3deEnum for Quality {
    type Repr = i32;
    const OPTIONS: &'static [(&'static str, i32)] = &[("Low", 1), ("High", 4)];
    fn to_repr(self) -> i32 {
        self as i32
    }
    fn from_repr(repr: i32) -> Option<Self> {
        match repr {
            1 => Some(Quality::Low),
            4 => Some(Quality::High),
            _ => None,
        }
    }
}

#[test]
fn rust_enums_as_o3de_enums() {
    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Settings {
        #[serde(with = "serde_o3de::enums")]
        quality: Quality,
    }
    let s: Settings = serde_o3de::from_str(r#"{"quality": "HIGH"}"#).unwrap();
    assert_eq!(s.quality, Quality::High);
    assert_eq!(serde_o3de::to_string(&s).unwrap(), r#"{"quality":"High"}"#);
    // A value the Rust enum cannot hold is Unsupported and keeps the default.
    let (s, report) = Options::new().load_str::<Settings>(r#"{"quality": 5}"#).unwrap();
    assert_eq!(s.quality, Quality::Low);
    assert_eq!(report.issues[0].outcome(), Outcome::Unsupported);
    let (_, report) = Options::new().load_str::<Settings>(r#"{"quality": "Ultra"}"#).unwrap();
    assert!(report.issues[0].message.contains(r#""Low" (1), "High" (4)"#), "{report}");
    // Under other formats the same JSON forms work, and a bad value is an error.
    assert_eq!(serde_json::from_str::<Settings>(r#"{"quality": ["low"]}"#).unwrap().quality, Quality::Low);
    assert!(serde_json::from_str::<Settings>(r#"{"quality": "Ultra"}"#).is_err());
}

/// Regression (issue 16): an empty string set the enum to 0; O3DE's enum loader reports
/// DefaultsUsed and leaves the target untouched, and so does `[]` (and `{}`).
#[test]
fn an_empty_enum_string_keeps_the_current_value() {
    #[derive(Deserialize, Debug, PartialEq, Clone)]
    #[serde(default)]
    struct Settings {
        #[serde(with = "serde_o3de::enums")]
        quality: Quality,
        level: u8,
    }
    impl Default for Settings {
        fn default() -> Self {
            Settings { quality: Quality::High, level: 3 }
        }
    }
    for json in [r#"{"quality": "", "level": 7}"#, r#"{"quality": [], "level": 7}"#, r#"{"quality": {}, "level": 7}"#] {
        let (s, report) = Options::new().load_str::<Settings>(json).unwrap();
        assert_eq!(s, Settings { quality: Quality::High, level: 7 }, "{json}");
        assert_eq!(report.issues.len(), 1, "{json}: {report}");
        assert_eq!((report.issues[0].path.as_str(), report.issues[0].outcome()), ("/quality", Outcome::DefaultsUsed));
        assert_eq!(report.outcome(), Outcome::PartialDefaults, "{json}");
    }
    let (_, report) = Options::new().load_str::<Settings>(r#"{"quality": ""}"#).unwrap();
    assert!(report.issues[0].message.contains("empty"), "{report}");

    // Over an existing value at the root (derived structs fill absent members from their
    // `Default` under `load_into`, so the member case is the one above).
    let mut root = serde_o3de::Enum(Quality::High);
    let report = Options::new().load_into(&mut root, r#""""#).unwrap();
    assert_eq!((root.0, report.outcome()), (Quality::High, Outcome::DefaultsUsed));

    // Quality has no option 0: a new element is default-constructed (Low), not "0 is not a value".
    let (list, report) = Options::new().load_str::<Vec<serde_o3de::Enum<Quality>>>(r#"["", "high", []]"#).unwrap();
    assert_eq!(list.iter().map(|e| e.0).collect::<Vec<_>>(), [Quality::Low, Quality::High, Quality::Low]);
    let issues: Vec<_> = report.issues.iter().map(|i| (i.path.as_str(), i.outcome())).collect();
    assert_eq!(issues, [("/0", Outcome::DefaultsUsed), ("/2", Outcome::DefaultsUsed)]);
    assert_eq!(serde_o3de::enums::parse::<Quality>("").unwrap(), (Quality::Low, Outcome::DefaultsUsed));
    // Other deserializers: a new value, the default.
    assert_eq!(serde_json::from_str::<Settings>(r#"{"quality": ""}"#).unwrap().quality, Quality::Low);
}

#[test]
fn math_object_forms() {
    let m: Matrix3x3 = serde_o3de::from_str(r#"{"roll": 90, "Scale": 2}"#).unwrap();
    let r = m.to_row_major();
    let expected = [2.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 2.0, 0.0];
    assert!(r.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-6), "{r:?}");
    let (m, report) = Options::new().load_str::<Matrix3x3>(r#"{"scale": 0}"#).unwrap();
    assert_eq!((m, report.outcome()), (Matrix3x3::IDENTITY, Outcome::Unsupported));
    let (_, report) = Options::new().load_str::<Matrix3x3>(r#"{"yaw": 0}"#).unwrap();
    assert_eq!(report.outcome(), Outcome::DefaultsUsed);

    let q: Quaternion = serde_o3de::from_str(r#"{"a": 0, "b": 0, "c": 90, "ignored": 45}"#).unwrap();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!((q.z - h).abs() < 1e-6 && (q.w - h).abs() < 1e-6, "{q:?}");

    let mut t = Transform { scale: 3.0, ..Transform::default() };
    let report = Options::new().load_into(&mut t, r#"{"Translation": [1.0, 2.0, 3.0], "scale": 9}"#).unwrap();
    assert_eq!((t.translation, t.scale), (Vector3::new(1.0, 2.0, 3.0), 3.0));
    assert_eq!(report.outcome(), Outcome::PartialDefaults);

    let strict = serde_o3de::from_str::<Color>("[1, 0, 0]").unwrap();
    assert_eq!(strict, Color::default(), "O3DE rejects integer literals in color arrays");
    let lenient: Color = Options::new().strict_color_doubles(false).from_str("[1, 0, 0, 1]").unwrap();
    assert_eq!(lenient, Color::new(1.0, 0.0, 0.0, 1.0));
}

#[test]
fn uuids_as_map_keys_and_values() {
    let id: Uuid = "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}".parse().unwrap();
    let m: BTreeMap<Uuid, String> =
        serde_o3de::from_str(r#"{"{27f1e1a1-8d9d-4c3b-bd3a-afb9762449c0} Transform": "t", "oops": "x"}"#).unwrap();
    assert_eq!(m, BTreeMap::from([(id, "t".to_owned())]));
    assert_eq!(serde_o3de::to_string(&m).unwrap(), r#"{"{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}":"t"}"#);
    assert_eq!(serde_json::from_str::<Uuid>(r#""{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}""#).unwrap(), id);
    assert!(serde_json::from_str::<Uuid>(r#""27F1E1A1""#).is_err());
}

#[test]
fn the_one_pass_deserializer_keeps_zero_values() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(default)]
    struct Unit {
        hp: i32,
        tags: Vec<u8>,
    }
    impl Default for Unit {
        fn default() -> Self {
            Unit { hp: 100, tags: vec![1] }
        }
    }
    let mut de = serde_o3de::Deserializer::from_str(r#"{"hp": "lots", "tags": [1, "x", 2]}"#);
    let unit = Unit::deserialize(&mut de).unwrap();
    de.end().unwrap();
    // One pass: the failed member and element take their zero values in place…
    assert_eq!(unit, Unit { hp: 0, tags: vec![1, 0, 2] });
    assert_eq!(de.report().issues.len(), 2);
    // …while the full load keeps the default and drops the element.
    assert_eq!(
        serde_o3de::from_str::<Unit>(r#"{"hp": "lots", "tags": [1, "x", 2]}"#).unwrap(),
        Unit { hp: 100, tags: vec![1, 2] }
    );
}
