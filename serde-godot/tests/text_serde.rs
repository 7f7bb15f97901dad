//! Serde types through the text form: the same mapping as the binary form (struct forms, enums,
//! options, typed containers), both versions, and errors.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_godot::text::{from_str, to_string};
use serde_godot::{Array, Color, ErrorKind, NodePath, Options, StringName, StructForm, UnitVariants, Vector2, Version};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum Kind {
    Ship,
    Torpedo { fuse: f32 },
    Mine(i32, i32),
}

/// A unit; `A` is the animation name's type (a StringName in Godot 4, a String in Godot 3) and
/// `S` the speed's.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Unit<A = StringName, S = f64> {
    id: u32,
    name: String,
    kind: Kind,
    pos: Vector2,
    hp: Option<u16>,
    tags: Vec<String>,
    tint: Color,
    path: NodePath,
    anim: A,
    speed: S,
}

fn unit() -> Unit {
    Unit {
        id: 7,
        name: "orc \"grunt\"\n".into(),
        kind: Kind::Torpedo { fuse: 0.1 },
        pos: Vector2::new(1.5, -2.0),
        hp: None,
        tags: vec!["a".into(), "b c".into()],
        tint: Color::new(1.0, 0.5, 0.0, 1.0),
        path: NodePath::from("/root/Main:position:x"),
        anim: StringName::from("run"),
        speed: 1.0 / 3.0,
    }
}

#[test]
fn struct_as_dictionary_godot4() {
    let text = to_string(&unit()).unwrap();
    assert_eq!(
        text,
        "{\n\"anim\": &\"run\",\n\"hp\": null,\n\"id\": 7,\n\"kind\": {\n\"Torpedo\": {\n\"fuse\": 0.1\n}\n},\n\
         \"name\": \"orc \\\"grunt\\\"\n\",\n\"path\": NodePath(\"/root/Main:position:x\"),\n\"pos\": Vector2(1.5, -2),\n\
         \"speed\": 0.3333333333333333,\n\"tags\": [\"a\", \"b c\"],\n\"tint\": Color(1, 0.5, 0, 1)\n}"
    );
    assert_eq!(from_str::<Unit>(&text).unwrap(), unit());
}

type Unit3 = Unit<String, f32>;

#[test]
fn struct_as_array_godot3() {
    let opts =
        Options::new().version(Version::Godot3).struct_form(StructForm::Array).unit_variants(UnitVariants::Index);
    let u = Unit3 {
        id: 7,
        name: "orc \"grunt\"\n".into(),
        kind: Kind::Torpedo { fuse: 0.1 },
        pos: Vector2::new(1.5, -2.0),
        hp: Some(3),
        tags: vec!["a".into(), "b c".into()],
        tint: Color::new(1.0, 0.5, 0.0, 1.0),
        path: NodePath::from("/root/Main:position:x"),
        anim: "run".into(),
        speed: 0.25,
    };
    let text = opts.to_text(&u).unwrap();
    assert_eq!(
        text,
        "[ 7, \"orc \\\"grunt\\\"\n\", {\n\"Torpedo\": [ 0.1 ]\n}, Vector2( 1.5, -2 ), 3, [ \"a\", \"b c\" ], \
         Color( 1, 0.5, 0, 1 ), NodePath(\"/root/Main:position:x\"), \"run\", 0.25 ]"
    );
    assert_eq!(opts.from_text::<Unit3>(&text).unwrap(), u);
    assert_eq!(opts.to_text(&Kind::Ship).unwrap(), "0");
    assert_eq!(opts.from_text::<Kind>("0").unwrap(), Kind::Ship);
    assert_eq!(opts.from_text::<Kind>("{ \"Mine\": [ 1, -2 ] }").unwrap(), Kind::Mine(1, -2));
}

#[test]
fn maps_typed_containers_and_comments() {
    let mut m = BTreeMap::new();
    m.insert(3u8, "three".to_owned());
    m.insert(1, "one".to_owned());
    assert_eq!(to_string(&m).unwrap(), "{\n1: \"one\",\n3: \"three\"\n}");
    let typed = Options::new().typed_containers(true);
    let a: Array<i32> = vec![1, 2].into();
    assert_eq!(typed.to_text(&a).unwrap(), "Array[int]([1, 2])");
    assert_eq!(to_string(&a).unwrap(), "[1, 2]");
    let back: Array<i32> = from_str("Array[int]([1, 2,]) ; typed").unwrap();
    assert_eq!(back.into_vec(), [1, 2]);
    let v: Vec<f32> = from_str("PackedFloat32Array(0.1, 1e-05, inf, inf_neg)").unwrap();
    assert_eq!(v, [0.1, 1e-5, f32::INFINITY, f32::NEG_INFINITY]);
}

#[test]
fn errors_are_positioned() {
    let e = from_str::<u8>("300").unwrap_err();
    assert!(e.to_string().contains("300"), "{e}");
    let e = from_str::<Vec<i32>>("[1, 2] 3").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Syntax(_)), "{e}");
    assert_eq!(e.offset(), Some(7));
    let e = from_str::<Vec<i32>>("[1,, 2]").unwrap_err();
    assert_eq!(e.offset(), Some(3), "{e}");
    let e = from_str::<serde_godot::Variant>("Object(Node, \"name\": \"x\")").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::FullObjectsDisabled), "{e}");
    let e = from_str::<serde_godot::Variant>("Resource(\"res://evil.tres\")").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Syntax(_)), "{e}");
    let e = Options::new().max_depth(3).from_text::<serde_godot::Variant>("[[[[1]]]]").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit(3)), "{e}");
    assert!(from_str::<String>("").is_err());
    assert!(from_str::<String>("\"unterminated").is_err());
}

#[test]
fn godot3_only_and_godot4_only_types() {
    let g3 = Options::new().version(Version::Godot3);
    assert!(matches!(g3.to_text(&StringName::from("x")).unwrap_err().kind(), ErrorKind::UnsupportedInVersion(_)));
    assert!(g3.from_text::<serde_godot::Variant>("&\"x\"").is_err());
    assert!(g3.from_text::<serde_godot::Variant>("Vector2i(1, 2)").is_err());
    assert_eq!(g3.from_text::<Vector2>("Vector2( 1, 2 )").unwrap(), Vector2::new(1.0, 2.0));
}
