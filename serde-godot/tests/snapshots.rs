//! insta snapshots of representative game messages: the exact bytes (hex dump) and the value as
//! Godot prints it (decoded back as a Variant), in the configurations a game server uses.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_godot::{
    Array, Color, Dictionary, NodePath, Options, PackedVector2Array, StringName, StructForm, Transform3D, UnitVariants,
    Variant, Vector2, Vector3, Version,
};

fn show<T: Serialize>(value: &T, opts: Options) -> String {
    let bytes = opts.to_vec(value).unwrap();
    let variant = Variant::from_bytes(&bytes, &opts).unwrap();
    format!("{variant}\n\n{}", testkit::hex::dump(&bytes))
}

#[derive(Serialize)]
struct Move {
    player: u32,
    target: Vector2,
    run: bool,
}

#[derive(Serialize)]
enum Emote {
    Wave,
    Dance { style: u8 },
}

#[derive(Serialize)]
struct Chat<'a> {
    from: &'a str,
    text: &'a str,
    emote: Option<Emote>,
}

#[derive(Serialize)]
enum Kind {
    Ship,
    Torpedo,
}

#[derive(Serialize)]
struct Entity {
    id: u32,
    kind: Kind,
    pos: Vector2,
    heading: f32,
    hp: Option<u16>,
}

#[derive(Serialize)]
struct Tick {
    tick: u64,
    entities: Vec<Entity>,
    removed: Vec<u32>,
}

fn tick() -> Tick {
    Tick {
        tick: 184_467,
        entities: vec![
            Entity { id: 1, kind: Kind::Ship, pos: Vector2::new(12.5, -3.0), heading: 0.25, hp: Some(80) },
            Entity { id: 9, kind: Kind::Torpedo, pos: Vector2::new(0.0, 40.0), heading: 3.5, hp: None },
        ],
        removed: vec![4],
    }
}

#[test]
fn move_command() {
    let msg = Move { player: 7, target: Vector2::new(12.5, -3.0), run: true };
    insta::assert_snapshot!("move_godot4", show(&msg, Options::new()));
    insta::assert_snapshot!("move_godot3", show(&msg, Options::new().version(Version::Godot3)));
}

#[test]
fn chat_message() {
    let msgs = [
        Chat { from: "Ayla", text: "gg — 良い試合", emote: Some(Emote::Dance { style: 2 }) },
        Chat { from: "Borin", text: "o/", emote: Some(Emote::Wave) },
        Chat { from: "Cyd", text: "", emote: None },
    ];
    insta::assert_snapshot!("chat", show(&msgs, Options::new()));
}

#[test]
fn world_tick_in_both_struct_forms() {
    insta::assert_snapshot!("tick_dictionary", show(&tick(), Options::new()));
    let compact = Options::new().struct_form(StructForm::Array).unit_variants(UnitVariants::Index);
    insta::assert_snapshot!("tick_array", show(&tick(), compact));
}

#[test]
fn inventory_with_typed_containers() {
    #[derive(Serialize)]
    struct Inventory {
        slots: Array<i64>,
        counts: Dictionary<StringName, i64>,
        by_name: BTreeMap<String, u8>,
    }
    let inv = Inventory {
        slots: Array::from(vec![1001, 2040, -1]),
        counts: Dictionary::from([(StringName::from("potion"), 5), (StringName::from("arrow"), 40)]),
        by_name: BTreeMap::from([("sword".to_owned(), 1)]),
    };
    insta::assert_snapshot!("inventory_typed", show(&inv, Options::new().typed_containers(true)));
}

#[test]
fn scene_update() {
    #[derive(Serialize)]
    struct SceneUpdate {
        node: NodePath,
        animation: StringName,
        transform: Transform3D,
        tint: Color,
        outline: PackedVector2Array,
    }
    let update = SceneUpdate {
        node: NodePath::from("/root/Main/Player:position"),
        animation: StringName::from("run"),
        transform: Transform3D { origin: Vector3::new(1.0, 2.0, 3.0), ..Transform3D::IDENTITY },
        tint: Color::rgb(1.0, 0.5, 0.0),
        outline: PackedVector2Array(vec![Vector2::new(0.0, 0.0), Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0)]),
    };
    insta::assert_snapshot!("scene_update", show(&update, Options::new()));
}
