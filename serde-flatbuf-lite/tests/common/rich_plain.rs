//! The rich schema's tables that hold unions, mirrored the placeholder-free way: `equipped: Option<Equipment>`
//! with no `equipped_type: UnionType` field before it. Lite numbers the slots from the type it traces (the
//! union takes its type slot and its value slot), so these types have the same layout as `Hero` and
//! `PlayerV2` in `rich.rs` — same bytes, same `.fbs`.
#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{Deprecated, UnionType};

use super::rich::*;

/// `table Hero` without `UnionType` placeholders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Hero")]
pub struct HeroP {
    pub name: Option<String>,
    pub pos: Option<Vec3>,
    pub bounds: Option<Bounds>,
    pub slots: Option<Slots>,
    pub stats: Option<Stats>,
    #[serde(rename = "level=1")]
    pub level: u8,
    #[serde(default)]
    pub xp: u64,
    #[serde(rename = "color=2")]
    pub color: Color,
    #[serde(rename = "rarity=2")]
    pub rarity: Rarity,
    #[serde(rename = "layer=1000")]
    pub layer: Layer,
    #[serde(default)]
    pub epoch: Epoch,
    pub hp_opt: Option<i16>,
    pub shield_opt: Option<bool>,
    pub ratio_opt: Option<f64>,
    pub color_opt: Option<Color>,
    #[serde(skip_serializing_if = "Deprecated::is_deprecated")]
    pub old_score: Deprecated,
    #[serde(with = "serde_bytes", default)]
    pub inventory: Option<Vec<u8>>,
    pub tags: Option<Vec<String>>,
    pub path: Option<Vec<Vec3>>,
    #[serde(default)]
    pub bounds_list: Vec<Bounds>,
    pub flags: Option<Vec<bool>>,
    pub deltas: Option<Vec<i16>>,
    pub scores: Option<Vec<f64>>,
    pub big_ids: Option<Vec<i64>>,
    pub layers: Option<Vec<Layer>>,
    pub colors: Option<Vec<Color>>,
    pub weapons: Option<Vec<Weapon>>,
    pub items: Option<Vec<Item>>,
    pub stat_map: Option<BTreeMap<String, i32>>,
    #[serde(default)]
    pub slot_map: BTreeMap<u16, Item>,
    /// A union: type in slot 30, value in slot 31, no placeholder.
    pub equipped: Option<Equipment>,
    /// The next union: slots 32 and 33.
    pub offhand: Option<Equipment>,
    pub companion: Option<Box<HeroP>>,
    #[serde(rename = "temperature=36.5")]
    pub temperature: f32,
}

/// `From` both ways between a placeholder-free mirror and its placeholder form: the shared fields moved, the
/// `UnionType` fields added, and the `extra` fields computed from `$x` (the source) for each direction.
macro_rules! mirror {
    ($plain:ident <=> $placeholder:ident, $x:ident, [$($f:ident),* $(,)?], placeholders [$($ph:ident),*],
     extra [$($e:ident: $to_plain:expr, $to_placeholder:expr);* $(;)?]) => {
        impl From<&$placeholder> for $plain {
            fn from($x: &$placeholder) -> Self {
                let $x = $x.clone();
                $plain { $($e: $to_plain,)* $($f: $x.$f,)* }
            }
        }
        impl From<&$plain> for $placeholder {
            fn from($x: &$plain) -> Self {
                let $x = $x.clone();
                $placeholder { $($e: $to_placeholder,)* $($ph: UnionType,)* $($f: $x.$f,)* }
            }
        }
    };
}

mirror!(HeroP <=> Hero, h, [
    name, pos, bounds, slots, stats, level, xp, color, rarity, layer, epoch, hp_opt, shield_opt, ratio_opt,
    color_opt, old_score, inventory, tags, path, bounds_list, flags, deltas, scores, big_ids, layers, colors,
    weapons, items, stat_map, slot_map, equipped, offhand, temperature,
], placeholders [equipped_type, offhand_type], extra [
    companion: h.companion.as_deref().map(|c| Box::new(HeroP::from(c))),
        h.companion.as_deref().map(|c| Box::new(Hero::from(c)));
]);

/// `table PlayerV2` without the placeholder: `pet` (type slot 9, value slot 10) sits between fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "PlayerV2")]
pub struct PlayerV2P {
    #[serde(default)]
    pub id: u32,
    pub name: Option<String>,
    #[serde(rename = "hp=100")]
    pub hp: i16,
    #[serde(skip_serializing_if = "Deprecated::is_deprecated")]
    pub legacy: Deprecated,
    pub title: Option<String>,
    #[serde(rename = "mana=50")]
    pub mana: i16,
    #[serde(rename = "rank=7")]
    pub rank: Rarity,
    pub pos: Option<Vec3>,
    pub guilds: Option<Vec<String>>,
    pub pet: Option<Equipment>,
    pub stats: Option<Stats>,
    pub opt_gold: Option<u32>,
}

mirror!(PlayerV2P <=> PlayerV2, p, [
    id, name, hp, legacy, title, mana, rank, pos, guilds, pet, stats, opt_gold,
], placeholders [pet_type], extra []);

/// Learns both placeholder-free types (encoding needs their layout; see `serde_flatbuf_lite::learn`).
pub fn learn_plain() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        rich_opts().learn::<HeroP>().expect("HeroP traces");
        rich_opts().learn::<PlayerV2P>().expect("PlayerV2P traces");
    });
}

/// The official reader's view of a `PlayerV2` buffer, placeholder-free.
#[track_caller]
pub fn official_player_v2_plain(bytes: &[u8]) -> PlayerV2P {
    PlayerV2P::from(&official_player_v2(bytes))
}
