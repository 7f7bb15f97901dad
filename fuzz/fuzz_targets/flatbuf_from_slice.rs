//! serde-flatbuf-lite's decoder on arbitrary bytes: it must return `Ok` or `Err`, never panic, overflow the
//! stack or allocate beyond its limits — through owned, borrowed, recursive, union (with and without
//! `UnionType` placeholders), struct, map and explicit-id types. Whatever decodes must survive a re-encode:
//! encoding the decoded value and decoding that again gives the same bytes.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{Deprecated, Options, UnionType};

#[derive(Serialize, Deserialize)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize, Deserialize)]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Serialize, Deserialize)]
struct Weapon {
    name: Option<String>,
    #[serde(default)]
    damage: i16,
}

#[derive(Serialize, Deserialize)]
enum Equipment {
    Weapon(Weapon),
    Shield { armor: u32, name: Option<String> },
}

#[derive(Serialize, Deserialize)]
struct Monster {
    pos: Option<Vec3>,
    #[serde(default)]
    mana: i16,
    #[serde(default)]
    hp: i16,
    name: Option<String>,
    friendly: Deprecated,
    inventory: Option<Vec<u8>>,
    #[serde(default = "red")]
    color: Color,
    weapons: Option<Vec<Weapon>>,
    equipped_type: UnionType,
    equipped: Option<Equipment>,
    path: Option<Vec<Vec3>>,
}

fn red() -> Color {
    Color::Red
}

#[derive(Serialize, Deserialize)]
struct Padded(i8, i32, i16, f64);

#[derive(Serialize, Deserialize)]
struct Node<'a> {
    #[serde(borrow)]
    label: Option<&'a str>,
    #[serde(with = "serde_bytes", default)]
    blob: Option<&'a [u8]>,
    padded: Option<Padded>,
    nested: Option<(u8, (u16, u64), [i8; 3])>,
    wide: Option<i128>,
    tags: Option<Vec<&'a str>>,
    stats: Option<BTreeMap<String, i64>>,
    ids: Option<BTreeMap<u32, Vec<u16>>>,
    chars: Option<Vec<char>>,
    #[serde(borrow)]
    children: Option<Vec<Node<'a>>>,
    child: Option<Box<Node<'a>>>,
}

#[derive(Serialize, Deserialize)]
struct WithIds {
    #[serde(rename = "b#1", default)]
    b: i32,
    #[serde(rename = "a#0", default)]
    a: i32,
    #[serde(rename = "u_type#2")]
    u_type: UnionType,
    #[serde(rename = "u#3")]
    u: Option<Equipment>,
    #[serde(rename = "s#6")]
    s: Option<String>,
}

/// Unions without `UnionType` placeholders: slots from the type the decoder traces (two per union).
#[derive(Serialize, Deserialize)]
struct MonsterP {
    pos: Option<Vec3>,
    #[serde(default)]
    hp: i16,
    equipped: Option<Equipment>,
    name: Option<String>,
    second: Option<Equipment>,
    #[serde(default)]
    level: u8,
}

/// An explicit id on a union without placeholder: its value in slot 3, its type in slot 2.
#[derive(Serialize, Deserialize)]
struct WithIdsP {
    #[serde(rename = "a#0", default)]
    a: i32,
    #[serde(rename = "u#3")]
    u: Option<Equipment>,
    #[serde(rename = "s#1")]
    s: Option<String>,
}

/// Decodes `data` as `$ty`; if that works, re-encodes and checks that the second round trip is stable.
macro_rules! check {
    ($ty:ty, $opts:expr, $data:expr) => {{
        let opts: &Options = $opts;
        if let Ok(value) = opts.from_slice::<$ty>($data) {
            if let Ok(bytes) = opts.to_vec(&value) {
                let again = opts.from_slice::<$ty>(&bytes).expect("lite reads what it wrote");
                assert_eq!(opts.to_vec(&again).expect("re-encode"), bytes, "unstable round trip");
            }
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    let plain = Options::new().inline_struct("Vec3");
    check!(Monster, &plain, data);
    check!(Node<'_>, &plain, data);
    check!(WithIds, &plain, data);
    check!(MonsterP, &plain, data);
    check!(WithIdsP, &plain, data);
    let framed = Options::new().inline_struct("Vec3").size_prefixed(true).file_identifier(*b"MONS");
    check!(Monster, &framed, data);
});
