//! Rust mirrors of the fixture schemas (`monster_seed/monster.fbs` + `weapon.fbs`, `ext/lite_ext.fbs`),
//! written the way a lite user would: serde defaults for the schema defaults, `Option` for fields a writer
//! may leave out, `UnionType` placeholders before unions, `Deprecated` for deprecated slots.
#![allow(dead_code, unreachable_pub)]

pub mod fbs_json;
pub mod flatc;

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_flatbuf_lite::{Deprecated, Options, UnionType};

pub fn data(path: &str) -> Vec<u8> {
    let full = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

pub fn json(path: &str) -> serde_json::Value {
    serde_json::from_slice(&data(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// flatc's JSON form of unions (`"x_type": "Variant", "x": {…}`) into serde's externally tagged form
/// (`"x": {"Variant": {…}}`), recursively; `"NONE"` unions disappear.
pub fn untag_unions(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            let types: Vec<(String, String)> = map
                .iter()
                .filter_map(|(k, t)| Some((k.strip_suffix("_type")?.to_owned(), t.as_str()?.to_owned())))
                .collect();
            for (field, ty) in types {
                if ty == "NONE" {
                    map.remove(&field);
                } else if let Some(value) = map.remove(&field) {
                    map.insert(field, serde_json::json!({ ty: value }));
                }
            }
            map.values_mut().for_each(untag_unions);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(untag_unions),
        _ => {}
    }
}

// ------------------------------------------------------------------------------------------------
// monster.fbs / weapon.fbs (namespace MyGame.Sample)

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Weapon {
    pub name: Option<String>,
    #[serde(default)]
    pub damage: i16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Equipment {
    Weapon(Weapon),
}

fn mana_default() -> i16 {
    150
}
fn hp_default() -> i16 {
    100
}
fn color_default() -> Color {
    Color::Blue
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Monster {
    pub pos: Option<Vec3>,
    #[serde(default = "mana_default")]
    pub mana: i16,
    #[serde(default = "hp_default")]
    pub hp: i16,
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Deprecated::is_deprecated")]
    pub friendly: Deprecated,
    pub inventory: Option<Vec<u8>>,
    #[serde(default = "color_default")]
    pub color: Color,
    pub weapons: Option<Vec<Weapon>>,
    pub equipped_type: UnionType,
    pub equipped: Equipment,
    pub path: Option<Vec<Vec3>>,
}

/// The options the monster schema needs: `Vec3` is a struct.
pub fn monster_opts() -> Options {
    Options::new().inline_struct("Vec3")
}

/// The seed document's monster.
pub fn seed_monster() -> Monster {
    let axe = Weapon { name: Some("Axe".into()), damage: 5 };
    Monster {
        pos: Some(Vec3 { x: 1.0, y: 2.0, z: 3.0 }),
        mana: 150,
        hp: 300,
        name: Some("Orc".into()),
        friendly: Deprecated,
        inventory: Some((0..10).collect()),
        color: Color::Red,
        weapons: Some(vec![Weapon { name: Some("Sword".into()), damage: 3 }, axe.clone()]),
        equipped_type: UnionType,
        equipped: Equipment::Weapon(axe),
        path: Some(vec![Vec3 { x: 4.0, y: 5.0, z: 6.0 }, Vec3 { x: 1.0, y: 2.0, z: 3.0 }]),
    }
}

// ------------------------------------------------------------------------------------------------
// lite_ext.fbs (namespace Lite.Test)

/// `enum Kind : ubyte { A = 0, B = 1, C = 5 }`: explicit values, so stored as the value (what serde_repr does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    A,
    B,
    C,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::A, Kind::B, Kind::C];
    fn value(self) -> u8 {
        match self {
            Kind::A => 0,
            Kind::B => 1,
            Kind::C => 5,
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.value())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Kind;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Kind value or name")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Kind, E> {
                Kind::ALL.into_iter().find(|k| u64::from(k.value()) == v).ok_or_else(|| E::custom(format!("Kind {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Kind, E> {
                match v {
                    "A" => Ok(Kind::A),
                    "B" => Ok(Kind::B),
                    "C" => Ok(Kind::C),
                    _ => Err(E::custom(format!("Kind {v}"))),
                }
            }
        }
        if d.is_human_readable() { d.deserialize_any(V) } else { d.deserialize_u8(V) }
    }
}

/// `enum Big : long { Neg = -1, Zero = 0, Huge = 9000000000 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Big {
    Neg,
    Zero,
    Huge,
}

impl Big {
    pub const ALL: [Big; 3] = [Big::Neg, Big::Zero, Big::Huge];
    fn value(self) -> i64 {
        match self {
            Big::Neg => -1,
            Big::Zero => 0,
            Big::Huge => 9_000_000_000,
        }
    }
}

impl Serialize for Big {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.value())
    }
}

impl<'de> Deserialize<'de> for Big {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Big;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Big value or name")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Big, E> {
                Big::ALL.into_iter().find(|k| k.value() == v).ok_or_else(|| E::custom(format!("Big {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Big, E> {
                self.visit_i64(v as i64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Big, E> {
                match v {
                    "Neg" => Ok(Big::Neg),
                    "Zero" => Ok(Big::Zero),
                    "Huge" => Ok(Big::Huge),
                    _ => Err(E::custom(format!("Big {v}"))),
                }
            }
        }
        if d.is_human_readable() { d.deserialize_any(V) } else { d.deserialize_i64(V) }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Padded {
    pub a: i8,
    pub b: i32,
    pub c: i16,
    pub d: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Outer {
    pub p: Padded,
    pub k: Kind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    #[serde(default)]
    pub id: u32,
    pub label: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Payload {
    Item(Item),
    Note(Note),
}

fn d7() -> u8 {
    7
}
fn dm5() -> i64 {
    -5
}
fn d2_5() -> f64 {
    2.5
}
fn dtrue() -> bool {
    true
}
fn dkind() -> Kind {
    Kind::B
}
fn dbig() -> Big {
    Big::Zero
}
fn d3() -> i16 {
    3
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    #[serde(default = "d7")]
    pub u8v: u8,
    #[serde(default = "dm5")]
    pub i64v: i64,
    #[serde(default = "d2_5")]
    pub f64v: f64,
    #[serde(default = "dtrue")]
    pub flag: bool,
    pub opt_i32: Option<i32>,
    #[serde(default = "dkind")]
    pub kind: Kind,
    #[serde(default = "dbig")]
    pub big: Big,
    pub name: Option<String>,
    pub tags: Option<Vec<String>>,
    pub items: Option<Vec<Item>>,
    #[serde(with = "serde_bytes", default)]
    pub bytes: Option<Vec<u8>>,
    pub longs: Option<Vec<i64>>,
    pub padded: Option<Padded>,
    pub outer: Option<Outer>,
    pub outers: Option<Vec<Outer>>,
    pub payload_type: UnionType,
    pub payload: Option<Payload>,
    pub child: Option<Box<Root>>,
    #[serde(skip_serializing_if = "Deprecated::is_deprecated")]
    pub old: Deprecated,
    #[serde(default = "d3")]
    pub after_deprecated: i16,
    pub kinds: Option<Vec<Kind>>,
}

impl Default for Root {
    fn default() -> Self {
        Root {
            u8v: 7,
            i64v: -5,
            f64v: 2.5,
            flag: true,
            opt_i32: None,
            kind: Kind::B,
            big: Big::Zero,
            name: None,
            tags: None,
            items: None,
            bytes: None,
            longs: None,
            padded: None,
            outer: None,
            outers: None,
            payload_type: UnionType,
            payload: None,
            child: None,
            old: Deprecated,
            after_deprecated: 3,
            kinds: None,
        }
    }
}

/// `table WithIds { b:int (id: 1); a:int (id: 0); u:Payload (id: 3); s:string (id: 4); }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WithIds {
    #[serde(rename = "b#1", alias = "b", default)]
    pub b: i32,
    #[serde(rename = "a#0", alias = "a", default)]
    pub a: i32,
    #[serde(rename = "u_type#2", alias = "u_type")]
    pub u_type: UnionType,
    #[serde(rename = "u#3", alias = "u")]
    pub u: Option<Payload>,
    #[serde(rename = "s#4", alias = "s")]
    pub s: Option<String>,
}

/// The options the ext schema needs: `Padded` and `Outer` are structs.
pub fn ext_opts() -> Options {
    Options::new().inline_struct("Padded").inline_struct("Outer")
}
