//! Store behaviour: default stripping, containers, maps, numbers, this crate's types, the seed
//! document's enum and color examples, and insta snapshots of stored output.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_o3de::{Any, Color, Enum, Matrix3x4, O3deEnum, Options, Outcome, Quaternion, Transform, Uuid, Vector3};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Light {
    name: String,
    intensity: f32,
    range: f64,
    color: Color,
    position: Vector3,
    shadows: bool,
    layers: Vec<u8>,
    weights: BTreeMap<String, f32>,
    target: Option<Vector3>,
}

impl Default for Light {
    fn default() -> Self {
        Light {
            name: String::new(),
            intensity: 1.0,
            range: 10.0,
            color: Color::new(1.0, 1.0, 1.0, 1.0),
            position: Vector3::default(),
            shadows: true,
            layers: Vec::new(),
            weights: BTreeMap::new(),
            target: None,
        }
    }
}

#[test]
fn members_equal_to_the_default_are_left_out() {
    assert_eq!(serde_o3de::to_string(&Light::default()).unwrap(), "{}");
    let light = Light { intensity: 2.5, shadows: false, color: Color::new(1.0, 0.5, 0.0, 1.0), ..Light::default() };
    // The alpha equals the default's, but this crate's load would restore a zero alpha: kept.
    assert_eq!(
        serde_o3de::to_string(&light).unwrap(),
        r#"{"intensity":2.5,"color":[1.0,0.5,0.0,1.0],"shadows":false}"#
    );
    // O3DE (which loads over the default object) leaves it out.
    assert_eq!(
        Options::new().exact_o3de_output(true).to_string(&light).unwrap(),
        r#"{"intensity":2.5,"color":[1.0,0.5,0.0],"shadows":false}"#
    );
    let back: Light = serde_o3de::from_str(&serde_o3de::to_string(&light).unwrap()).unwrap();
    assert_eq!(back, light);
    // keep-defaults writes everything.
    let all = Options::new().keep_defaults(true).to_string(&Light::default()).unwrap();
    assert_eq!(
        all,
        r#"{"name":"","intensity":1.0,"range":10.0,"color":[1.0,1.0,1.0,1.0],"position":[0.0,0.0,0.0],"shadows":true,"layers":[],"weights":[],"target":null}"#
    );
}

#[test]
fn store_results() {
    let o = Options::new();
    assert_eq!(o.store(&Light::default(), Some(&Light::default())).unwrap().result().outcome(), Outcome::DefaultsUsed);
    let changed = Light { range: 3.0, ..Light::default() };
    assert_eq!(o.store(&changed, Some(&Light::default())).unwrap().result().outcome(), Outcome::PartialDefaults);
    assert_eq!(
        o.keep_defaults(true).store(&changed, Some(&Light::default())).unwrap().result().outcome(),
        Outcome::Success
    );
}

#[test]
fn floats_compare_with_epsilon_and_widen() {
    let light = Light { intensity: 1.0 + f32::EPSILON / 2.0, range: 0.1, ..Light::default() };
    assert_eq!(Options::new().exact_o3de_output(true).to_string(&light).unwrap(), r#"{"range":0.1}"#);
    let light = Light { intensity: 1.0 + f32::EPSILON, range: 0.1, ..Light::default() };
    assert_eq!(serde_o3de::to_string(&light).unwrap(), r#"{"intensity":1.0000001192092896,"range":0.1}"#);
    let narrow = vec![0.1f32, 84.2, 1e-7, 1e22, f32::MAX];
    assert_eq!(
        serde_o3de::to_string(&narrow).unwrap(),
        "[0.10000000149011612,84.19999694824219,1.0000000116860974e-7,9.999999778196308e21,3.4028234663852886e38]"
    );
    // O3DE compares with FLT_EPSILON and writes 1e-7 as a default; so does exact output.
    assert_eq!(
        Options::new().exact_o3de_output(true).to_string(&narrow).unwrap(),
        "[0.10000000149011612,84.19999694824219,{},9.999999778196308e21,3.4028234663852886e38]"
    );
    let special = vec![f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0];
    assert_eq!(serde_o3de::to_string(&special).unwrap(), r#"["NaN","Infinity","-Infinity",-0.0]"#);
    let back: Vec<f64> = serde_o3de::from_str(&serde_o3de::to_string(&special).unwrap()).unwrap();
    assert!(back[0].is_nan() && back[1] == f64::INFINITY && back[2] == -f64::INFINITY);
    assert_eq!(back[3].to_bits(), (-0.0f64).to_bits());
}

#[test]
fn zero_elements_are_explicit_defaults() {
    assert_eq!(serde_o3de::to_string(&vec![0, 5, 0]).unwrap(), "[{},5,{}]");
    assert_eq!(serde_o3de::to_string(&vec![String::new(), "a".into()]).unwrap(), r#"[{},"a"]"#);
    assert_eq!(serde_o3de::to_string(&vec![vec![], vec![1u8]]).unwrap(), "[{},[1]]");
    assert_eq!(serde_o3de::to_string(&vec![(0u8, 1u8)]).unwrap(), "[[{},1]]");
    assert_eq!(serde_o3de::to_string(&vec![None, Some(0)]).unwrap(), "[null,{}]");
    assert_eq!(
        serde_o3de::to_string(&vec![Vector3::default(), Vector3::new(1.0, 0.0, 0.0)]).unwrap(),
        "[{},[1.0,0.0,0.0]]"
    );
    let back: Vec<Option<i32>> = serde_o3de::from_str("[null,{}]").unwrap();
    assert_eq!(back, [None, Some(0)]);
}

#[test]
fn an_empty_map_is_written_as_an_empty_array_where_it_is_not_the_default() {
    // `{}` would mean "the default" to O3DE, which is not the same as "empty".
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(default)]
    struct Holder {
        map: BTreeMap<String, i32>,
    }
    impl Default for Holder {
        fn default() -> Self {
            Holder { map: BTreeMap::from([("a".to_owned(), 1)]) }
        }
    }
    let empty = Holder { map: BTreeMap::new() };
    assert_eq!(serde_o3de::to_string(&empty).unwrap(), r#"{"map":[]}"#);
    assert_eq!(serde_o3de::from_str::<Holder>(r#"{"map":[]}"#).unwrap(), empty);
    assert_eq!(serde_o3de::from_str::<Holder>(r#"{"map":{}}"#).unwrap(), Holder::default());
}

#[test]
fn elements_are_stored_against_their_default() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    #[serde(default)]
    struct Item {
        count: u8,
        name: String,
    }
    impl Default for Item {
        fn default() -> Self {
            Item { count: 1, name: "item".to_owned() }
        }
    }
    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Bag {
        #[serde(with = "serde_o3de::elements")]
        items: Vec<Item>,
        #[serde(with = "serde_o3de::elements")]
        named: HashMap<u8, Item>,
        #[serde(with = "serde_o3de::elements")]
        nested: Vec<Vec<Item>>,
    }
    let bag = Bag {
        items: vec![Item::default(), Item { count: 5, ..Item::default() }],
        named: HashMap::from([(3, Item { name: "gem".to_owned(), ..Item::default() })]),
        nested: vec![vec![Item::default()]],
    };
    let text = serde_o3de::to_string(&bag).unwrap();
    assert_eq!(
        text,
        r#"{"items":[{},{"count":5}],"named":[{"Key":3,"Value":{"name":"gem"}}],"nested":[[{"count":1,"name":"item"}]]}"#
    );
    assert_eq!(serde_o3de::from_str::<Bag>(&text).unwrap(), bag);
    // Other formats see the plain container.
    assert_eq!(
        serde_json::to_string(&bag.items).unwrap(),
        serde_json::to_string(&vec![Item::default(), Item { count: 5, ..Item::default() }]).unwrap()
    );
    let json = serde_json::to_value(&bag).unwrap();
    assert_eq!(json["items"][0], serde_json::json!({"count": 1, "name": "item"}));
}

#[test]
fn maps_are_objects_or_key_value_arrays() {
    let by_name = BTreeMap::from([("b".to_owned(), 2), ("a".to_owned(), 0)]);
    assert_eq!(serde_o3de::to_string(&by_name).unwrap(), r#"{"a":{},"b":2}"#);
    let by_int = BTreeMap::from([(142, 142.0), (242, 242.0)]);
    assert_eq!(serde_o3de::to_string(&by_int).unwrap(), r#"[{"Key":142,"Value":142.0},{"Key":242,"Value":242.0}]"#);
    let zero_first = BTreeMap::from([(0, 1.0), (5, 0.0)]);
    assert_eq!(serde_o3de::to_string(&zero_first).unwrap(), r#"[{"Key":{},"Value":1.0},{"Key":5,"Value":{}}]"#);
    // The member name "{}" means the default key, so a key that is the string "{}" needs the array form.
    let braces = BTreeMap::from([(String::new(), 1), ("{}".to_owned(), 2)]);
    assert_eq!(serde_o3de::to_string(&braces).unwrap(), r#"[{"Key":{},"Value":1},{"Key":"{}","Value":2}]"#);
    assert_eq!(
        serde_o3de::from_str::<BTreeMap<String, i32>>(&serde_o3de::to_string(&braces).unwrap()).unwrap(),
        braces
    );
    let by_uuid = BTreeMap::from([(Uuid::from_bytes([0xAB; 16]), 1)]);
    assert_eq!(serde_o3de::to_string(&by_uuid).unwrap(), r#"{"{ABABABAB-ABAB-ABAB-ABAB-ABABABABABAB}":1}"#);
}

#[test]
fn unordered_containers_are_sorted_deterministically() {
    let mut map = HashMap::new();
    for i in 0..50 {
        map.insert(format!("key{i:02}"), i);
    }
    let text = serde_o3de::to_string(&map).unwrap();
    assert!(text.starts_with(r#"{"key00":{},"key01":1,"key02":2"#), "{text}");
    let ints: HashMap<i32, bool> = (-5..5).map(|i| (i * 7, i % 2 == 0)).collect();
    let text = serde_o3de::to_string(&ints).unwrap();
    assert!(text.starts_with(r#"[{"Key":{},"Value":true},{"Key":-35"#), "{text}");
    // Iteration order is kept when sorting is off (here: a set in its own order).
    let set: HashSet<u8> = (1..4).collect();
    let text = Options::new().sort_maps(false).to_string(&set).unwrap();
    assert_eq!(text.len(), 7);
}

#[test]
fn math_types_and_uuids() {
    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Node {
        id: Uuid,
        rotation: Quaternion,
        matrix: Matrix3x4,
        transform: Transform,
    }
    assert_eq!(serde_o3de::to_string(&Node::default()).unwrap(), "{}");
    let node = Node {
        id: "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}".parse().unwrap(),
        rotation: Quaternion::from_euler_degrees([0.0, 0.0, 90.0]),
        matrix: Matrix3x4::from_row_major([1.0, 0.0, 0.0, 5.0, 0.0, 1.0, 0.0, 6.0, 0.0, 0.0, 1.0, 7.0]),
        transform: Transform { scale: 2.0, ..Transform::default() },
    };
    let text = serde_o3de::to_string(&node).unwrap();
    assert_eq!(
        text,
        concat!(
            r#"{"id":"{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}","rotation":[0.0,0.0,0.7071067690849304,0.7071067690849304],"#,
            r#""matrix":[1.0,0.0,0.0,5.0,0.0,1.0,0.0,6.0,0.0,0.0,1.0,7.0],"transform":{"Scale":2.0}}"#
        )
    );
    assert_eq!(serde_o3de::from_str::<Node>(&text).unwrap(), node);
    // The object form of a matrix: rotation in degrees, uniform scale, translation.
    let m: Matrix3x4 = serde_o3de::from_str(r#"{"yaw": 90, "scale": 2, "x": 5}"#).unwrap();
    let r = m.to_row_major();
    assert!((r[0]).abs() < 1e-6 && (r[1] + 2.0).abs() < 1e-6 && (r[4] - 2.0).abs() < 1e-6 && r[3] == 5.0, "{r:?}");
}

/// The seed document's `ExampleEnum` (an 8-bit enum with an aggregate option).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct ExampleEnum(u8);

impl O3deEnum for ExampleEnum {
    type Repr = u8;
    const OPTIONS: &'static [(&'static str, u8)] = &[("Flag1", 1), ("Flag2", 2), ("Flag4", 8), ("Flag2Flag3Combo", 6)];
    fn to_repr(self) -> u8 {
        self.0
    }
    fn from_repr(repr: u8) -> Option<Self> {
        Some(ExampleEnum(repr))
    }
}

#[test]
fn seed_document_enum_examples() {
    // (value, the seed's output, this crate's output). Where they differ the spec (O3DE's
    // serializer and TestCases_Enum.cpp) wins: names are listed by descending value, every option
    // whose bits are all set is listed (aggregates are not de-duplicated), and the bits no option
    // covers follow as one integer.
    let cases: [(u8, &str, &str); 10] = [
        (0, "0", "0"),
        (1, r#""Flag1""#, r#""Flag1""#),
        (255, "255", r#"["Flag4","Flag2Flag3Combo","Flag2","Flag1",240]"#),
        (10, r#"["Flag2","Flag4"]"#, r#"["Flag4","Flag2"]"#),
        (4, "4", "4"),
        (6, r#""Flag2Flag3Combo""#, r#""Flag2Flag3Combo""#),
        (1 | 8, r#"["Flag1","Flag4"]"#, r#"["Flag4","Flag1"]"#),
        (1 | 4, r#"["Flag1",4]"#, r#"["Flag1",4]"#),
        (7, r#"["Flag1","Flag2Flag3Combo"]"#, r#"["Flag2Flag3Combo","Flag2","Flag1"]"#),
        (8 | 16, r#"["Flag4",16]"#, r#"["Flag4",16]"#),
    ];
    for (value, seed, ours) in cases {
        let stored = Options::new().keep_defaults(true).store(&Enum(ExampleEnum(value)), None).unwrap();
        assert_eq!(stored.as_str(), ours, "value {value}");
        // Both spellings load back to the value.
        for text in [seed, ours] {
            let Enum(back): Enum<ExampleEnum> = serde_o3de::from_str(text).unwrap();
            assert_eq!(back.0, value, "{text}");
        }
    }
    // Names are matched case-insensitively; numeric strings are integers first.
    let Enum(v): Enum<ExampleEnum> = serde_o3de::from_str(r#"["flag1", "FLAG4", "16"]"#).unwrap();
    assert_eq!(v.0, 25);
}

#[test]
fn seed_document_color_examples() {
    let expected = [1.0, 0.3, 0.2, 0.8];
    for text in [
        "[1.0, 0.3, 0.2, 0.8]",
        r#"{"RGBA": [1.0, 0.3, 0.2, 0.8]}"#,
        r#"{"RGBA8": [255, 77, 51, 204]}"#,
        r#"{"HEXA": "FF4D33CC"}"#,
    ] {
        let c: Color = serde_o3de::from_str(text).unwrap();
        assert!(c.to_array().iter().zip(expected).all(|(a, b)| (a - b).abs() < 0.002), "{text}: {c:?}");
    }
    for text in ["[1.0, 0.3, 0.2]", r#"{"RGB": [1.0, 0.3, 0.2]}"#, r#"{"RGB8": [255, 77, 51]}"#, r#"{"HEX": "FF4D33"}"#]
    {
        let mut c = Color::new(0.0, 0.0, 0.0, 0.8);
        Options::new().load_into(&mut c, text).unwrap();
        assert!(c.to_array().iter().zip(expected).all(|(a, b)| (a - b).abs() < 0.002), "{text}: {c:?}");
    }
}

#[test]
fn any_values() {
    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Holder {
        any: Any,
    }
    assert_eq!(serde_o3de::to_string(&Holder::default()).unwrap(), "{}");
    let h = Holder { any: Any::new("AZ::Vector3", &Vector3::new(1.0, 2.0, 3.0)).unwrap() };
    let text = serde_o3de::to_string(&h).unwrap();
    assert_eq!(text, r#"{"any":{"$type":"AZ::Vector3","Value":[1.0,2.0,3.0]}}"#);
    let back: Holder = serde_o3de::from_str(r#"{"any": {"value": [1.0, 2.0, 3.0], "$type": "AZ::Vector3"}}"#).unwrap();
    assert_eq!(back.any.get::<Vector3>().unwrap(), Some(Vector3::new(1.0, 2.0, 3.0)));
}

#[test]
fn rust_enums_use_variant_names() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Default, Clone)]
    enum Shape {
        #[default]
        Point,
        Circle(f32),
        Rect {
            w: f32,
            h: f32,
        },
    }
    let shapes = vec![Shape::Point, Shape::Circle(2.0), Shape::Rect { w: 1.0, h: 0.0 }];
    let text = serde_o3de::to_string(&shapes).unwrap();
    assert_eq!(text, r#"["Point",{"Circle":2.0},{"Rect":{"w":1.0,"h":0.0}}]"#);
    assert_eq!(serde_o3de::from_str::<Vec<Shape>>(&text).unwrap(), shapes);
    assert_eq!(
        serde_o3de::from_str::<Vec<Shape>>(r#"["point", {"circle": "2"}]"#).unwrap(),
        [Shape::Point, Shape::Circle(2.0)]
    );
}

#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
#[serde(default)]
struct Scene {
    name: String,
    lights: Vec<Light>,
    spawn_points: BTreeMap<String, Vector3>,
    rotations: Vec<Quaternion>,
    tags: BTreeMap<u32, String>,
}

fn scene() -> Scene {
    Scene {
        name: "Harbor".to_owned(),
        lights: vec![
            Light {
                name: "Sun".to_owned(),
                intensity: 3.5,
                color: Color::new(1.0, 0.95, 0.8, 1.0),
                ..Light::default()
            },
            Light::default(),
        ],
        spawn_points: BTreeMap::from([
            ("dock".to_owned(), Vector3::new(12.5, 0.0, -3.25)),
            ("origin".to_owned(), Vector3::default()),
        ]),
        rotations: vec![Quaternion::IDENTITY, Quaternion::new(0.0, 0.0, 0.0, 0.0)],
        tags: BTreeMap::from([(0, "zero".to_owned()), (7, String::new())]),
    }
}

#[test]
fn snapshot_compact() {
    insta::assert_snapshot!("scene_compact", serde_o3de::to_string(&scene()).unwrap());
}

#[test]
fn snapshot_pretty() {
    let text = serde_o3de::to_string_pretty(&scene()).unwrap();
    assert_eq!(serde_o3de::from_str::<Scene>(&text).unwrap(), scene());
    insta::assert_snapshot!("scene_pretty", text);
}

#[test]
fn snapshot_keep_defaults() {
    insta::assert_snapshot!(
        "scene_keep_defaults",
        Options::new().keep_defaults(true).to_string_pretty(&scene()).unwrap()
    );
}

#[test]
fn to_value_and_writers() {
    let value = serde_o3de::to_value(&scene()).unwrap();
    assert_eq!(
        value["lights"][1],
        serde_json::json!({"name": "", "intensity": 1.0, "range": 10.0, "color": [1.0, 1.0, 1.0, 1.0], "position": [0.0, 0.0, 0.0], "shadows": true, "layers": [], "weights": [], "target": null})
    );
    let mut out = Vec::new();
    serde_o3de::to_writer(&mut out, &scene()).unwrap();
    assert_eq!(out, serde_o3de::to_vec(&scene()).unwrap());
}
