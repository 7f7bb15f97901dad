//! Issue 13's rich schema (`testkit/flatbuf-oracle/schemas/rich.fbs`, namespace `Rich.Game`) on both sides:
//! the Rust mirror a lite user would write (declared defaults as `"name=value"`, `#[serde(default)]` for zero
//! defaults, `Option` for optional scalars and absent offsets, `UnionType` before each union, `Deprecated` for
//! deprecated slots, maps for the `{ key (key); value }` tables), the official builder fed from mirror values
//! (`XArgs` + `create`) and the official verifier + generated accessors read back into mirror values.
//!
//! Shared by `rich_schema.rs` (fixed cases) and `rich_differential.rs` (proptest).
#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::fmt;

use flatbuf_oracle::flatbuffers::{self, FlatBufferBuilder, WIPOffset};
use flatbuf_oracle::rich::rich::game as fb;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_flatbuf_lite::{Deprecated, Options, UnionType};

// ------------------------------------------------------------------------------------------------
// enums

/// `enum Color : ubyte { Red, Green, Blue }`: values = variant indices, a plain derived unit enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Color {
    #[default]
    Red,
    Green,
    Blue,
}

/// An enum with explicit values of a given width, serialized as that integer (what serde_repr does).
macro_rules! value_enum {
    ($name:ident : $repr:ty, $ser:ident, $de:ident { $($variant:ident = $value:expr),+ $(,)? }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub fn value(self) -> $repr {
                match self { $($name::$variant => $value),+ }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.$ser(self.value())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " value"))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        $name::ALL
                            .iter()
                            .copied()
                            .find(|k| k.value() as i64 == v)
                            .ok_or_else(|| E::custom(format!(concat!(stringify!($name), " {}"), v)))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        let v = i64::try_from(v).map_err(|_| E::custom(format!(concat!(stringify!($name), " {}"), v)))?;
                        self.visit_i64(v)
                    }
                }
                d.$de(V)
            }
        }
    };
}

value_enum!(Rarity: i8, serialize_i8, deserialize_i8 { Junk = -1, Common = 0, Rare = 2, Epic = 7 });
value_enum!(Layer: i16, serialize_i16, deserialize_i16 { Under = -300, Ground = 0, Air = 1000 });
value_enum!(Epoch: i64, serialize_i64, deserialize_i64 { Before = -9_000_000_000, Now = 0, After = 9_000_000_000 });

// The macro's enums do not derive `Default`.
#[allow(clippy::derivable_impls)]
impl Default for Rarity {
    fn default() -> Self {
        Rarity::Common
    }
}

#[allow(clippy::derivable_impls)]
impl Default for Epoch {
    fn default() -> Self {
        Epoch::Now
    }
}

// ------------------------------------------------------------------------------------------------
// structs (Options::inline_struct for the named ones)

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// `struct Bounds { min:Vec3; max:Vec3; layer:Layer; }`: struct in struct, a `short` enum member.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub min: Vec3,
    pub max: Vec3,
    pub layer: Layer,
}

/// `struct Slots { tag:byte; ids:[ushort:3]; weights:[double:2]; corners:[Vec2:2]; colors:[Color:2]; }`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Slots {
    pub tag: i8,
    pub ids: [u16; 3],
    pub weights: [f64; 2],
    pub corners: [Vec2; 2],
    pub colors: [Color; 2],
}

/// The options the rich schema needs: its named structs are structs.
pub fn rich_opts() -> Options {
    Options::new().inline_struct("Vec2").inline_struct("Vec3").inline_struct("Bounds").inline_struct("Slots")
}

// ------------------------------------------------------------------------------------------------
// tables

/// `table Weapon { name:string; damage:short = 10; range:float; }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Weapon {
    pub name: Option<String>,
    #[serde(rename = "damage=10")]
    pub damage: i16,
    #[serde(default)]
    pub range: f32,
}

/// `table Spell { name:string; mana_cost:ushort; school:Rarity = Common; targets:[Vec2]; }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spell {
    pub name: Option<String>,
    #[serde(default)]
    pub mana_cost: u16,
    #[serde(default)]
    pub school: Rarity,
    pub targets: Option<Vec<Vec2>>,
}

/// `table Potion { heal:int = 25; uses:ubyte = 1; }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Potion {
    #[serde(rename = "heal=25")]
    pub heal: i32,
    #[serde(rename = "uses=1")]
    pub uses: u8,
}

/// `union Equipment { Weapon, Spell, Potion, Offhand: Weapon }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Equipment {
    Weapon(Weapon),
    Spell(Spell),
    Potion(Potion),
    Offhand(Weapon),
}

/// `table Item { id:uint (key); name:string; count:ushort = 1; rarity:Rarity; }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    #[serde(default)]
    pub id: u32,
    pub name: Option<String>,
    #[serde(rename = "count=1")]
    pub count: u16,
    #[serde(default)]
    pub rarity: Rarity,
}

/// `table Stats { hp:short = 100; mana:short = 150; speed:float = 1.5; alive:bool = true; armor:ushort;
/// luck:double = -0.25; }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    #[serde(rename = "hp=100")]
    pub hp: i16,
    #[serde(rename = "mana=150")]
    pub mana: i16,
    #[serde(rename = "speed=1.5")]
    pub speed: f32,
    #[serde(rename = "alive=true")]
    pub alive: bool,
    #[serde(default)]
    pub armor: u16,
    #[serde(rename = "luck=-0.25")]
    pub luck: f64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats { hp: 100, mana: 150, speed: 1.5, alive: true, armor: 0, luck: -0.25 }
    }
}

/// `table Hero` (the root type, file identifier `RICH`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hero {
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
    /// A plain `Vec`: absent reads as empty.
    #[serde(default)]
    pub bounds_list: Vec<Bounds>,
    pub flags: Option<Vec<bool>>,
    pub deltas: Option<Vec<i16>>,
    pub scores: Option<Vec<f64>>,
    pub big_ids: Option<Vec<i64>>,
    pub layers: Option<Vec<Layer>>,
    pub colors: Option<Vec<Color>>,
    pub weapons: Option<Vec<Weapon>>,
    /// Keyed by `id`: kept sorted by the writer (lite writes vectors in the order given).
    pub items: Option<Vec<Item>>,
    pub stat_map: Option<BTreeMap<String, i32>>,
    /// A plain map: absent reads as empty.
    #[serde(default)]
    pub slot_map: BTreeMap<u16, Item>,
    pub equipped_type: UnionType,
    pub equipped: Option<Equipment>,
    pub offhand_type: UnionType,
    pub offhand: Option<Equipment>,
    pub companion: Option<Box<Hero>>,
    #[serde(rename = "temperature=36.5")]
    pub temperature: f32,
}

impl Default for Hero {
    /// Every field absent: what the official reader sees in an empty table.
    fn default() -> Self {
        Hero {
            name: None,
            pos: None,
            bounds: None,
            slots: None,
            stats: None,
            level: 1,
            xp: 0,
            color: Color::Blue,
            rarity: Rarity::Rare,
            layer: Layer::Air,
            epoch: Epoch::Now,
            hp_opt: None,
            shield_opt: None,
            ratio_opt: None,
            color_opt: None,
            old_score: Deprecated,
            inventory: None,
            tags: None,
            path: None,
            bounds_list: Vec::new(),
            flags: None,
            deltas: None,
            scores: None,
            big_ids: None,
            layers: None,
            colors: None,
            weapons: None,
            items: None,
            stat_map: None,
            slot_map: BTreeMap::new(),
            equipped_type: UnionType,
            equipped: None,
            offhand_type: UnionType,
            offhand: None,
            companion: None,
            temperature: 36.5,
        }
    }
}

/// `table PlayerV1 { id:uint; name:string; hp:short = 100; legacy:int; }`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerV1 {
    #[serde(default)]
    pub id: u32,
    pub name: Option<String>,
    #[serde(rename = "hp=100")]
    pub hp: i16,
    #[serde(default)]
    pub legacy: i32,
}

/// `PlayerV1` evolved: `legacy` deprecated, eight fields appended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerV2 {
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
    pub pet_type: UnionType,
    pub pet: Option<Equipment>,
    pub stats: Option<Stats>,
    pub opt_gold: Option<u32>,
}

impl PlayerV2 {
    /// What a V2 reader sees in a V1 buffer: V1's fields, the appended ones at their defaults.
    pub fn from_v1(v1: &PlayerV1) -> Self {
        PlayerV2 {
            id: v1.id,
            name: v1.name.clone(),
            hp: v1.hp,
            legacy: Deprecated,
            title: None,
            mana: 50,
            rank: Rarity::Epic,
            pos: None,
            guilds: None,
            pet_type: UnionType,
            pet: None,
            stats: None,
            opt_gold: None,
        }
    }
}

impl PlayerV1 {
    /// What a V1 reader sees in a V2 buffer: `legacy` is never written by V2, so it reads 0.
    pub fn from_v2(v2: &PlayerV2) -> Self {
        PlayerV1 { id: v2.id, name: v2.name.clone(), hp: v2.hp, legacy: 0 }
    }
}

// ------------------------------------------------------------------------------------------------
// sample values

/// A weapon with every field set.
pub fn sword() -> Weapon {
    Weapon { name: Some("Sword".into()), damage: 3, range: 1.25 }
}

/// One value of each union member (the aliased `Offhand` too).
pub fn members() -> Vec<Equipment> {
    vec![
        Equipment::Weapon(sword()),
        Equipment::Spell(Spell {
            name: Some("Blink".into()),
            mana_cost: 40,
            school: Rarity::Epic,
            targets: Some(vec![Vec2 { x: 1.0, y: -1.0 }, Vec2 { x: 0.5, y: 0.25 }]),
        }),
        Equipment::Potion(Potion { heal: -7, uses: 0 }),
        Equipment::Offhand(Weapon { name: None, damage: 10, range: 0.0 }),
    ]
}

// ------------------------------------------------------------------------------------------------
// comparison

/// Equality of the `Debug` forms: like `PartialEq` but `-0.0` ≠ `0.0` and NaN = NaN (payload bits not compared).
#[track_caller]
pub fn assert_same<T: fmt::Debug>(actual: &T, expected: &T, what: &str) {
    let (a, e) = (format!("{actual:#?}"), format!("{expected:#?}"));
    if a != e {
        let line = a.lines().zip(e.lines()).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "{what}: values differ (first at Debug line {line}: actual `{}` vs expected `{}`)\nactual: {actual:?}\nexpected: {expected:?}",
            a.lines().nth(line).unwrap_or("").trim(),
            e.lines().nth(line).unwrap_or("").trim()
        );
    }
}

/// [`assert_same`] as a `Result` for proptest.
pub fn same<T: fmt::Debug>(actual: &T, expected: &T) -> bool {
    format!("{actual:?}") == format!("{expected:?}")
}

// ------------------------------------------------------------------------------------------------
// options on both sides

/// Every lite option that changes the bytes: zero omission, size prefix, file identifier.
pub fn lite_options() -> Vec<(String, Options)> {
    let mut all = Vec::new();
    for omit in [false, true] {
        for prefix in [false, true] {
            for ident in [false, true] {
                let mut o = rich_opts().omit_zero_scalars(omit).size_prefixed(prefix);
                if ident {
                    o = o.file_identifier(*b"RICH");
                }
                all.push((format!("omit_zero_scalars={omit} size_prefixed={prefix} identifier={ident}"), o));
            }
        }
    }
    all
}

pub fn official_builds() -> Vec<Build> {
    (0..32).map(Build::from_bits).collect()
}

/// Schema evolution: `written` (one version) goes through lite with every unprefixed option and through the
/// official builder with every plain build; each buffer must read as `expected` (the other version's view of
/// it) both with lite and with the official verifier + accessors (`official_read`).
#[track_caller]
pub fn check_evolution<W, R>(
    written: &W,
    expected: &R,
    official_build: fn(&Build, &W) -> Vec<u8>,
    official_read: fn(&[u8]) -> R,
) where
    W: Serialize + fmt::Debug,
    R: serde::de::DeserializeOwned + fmt::Debug,
{
    for (label, opts) in lite_options().into_iter().filter(|(l, _)| l.contains("size_prefixed=false")) {
        let bytes = opts.to_vec(written).unwrap();
        assert_same(&official_read(&bytes), expected, &format!("official reader, lite writer, {label}: {written:?}"));
        let lite: R = opts.from_slice(&bytes).unwrap();
        assert_same(&lite, expected, &format!("lite reader, lite writer, {label}: {written:?}"));
    }
    for build in official_builds().into_iter().filter(|b| !b.size_prefixed && !b.identifier) {
        let bytes = official_build(&build, written);
        assert_same(&official_read(&bytes), expected, &format!("official reader, official writer, {build:?}"));
        let lite: R = rich_opts().from_slice(&bytes).unwrap();
        assert_same(&lite, expected, &format!("lite reader, official writer, {build:?}: {written:?}"));
    }
}

// ------------------------------------------------------------------------------------------------
// mirror → official builder

/// How the official side builds a buffer: its own knobs, varied by the tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct Build {
    /// `FlatBufferBuilder::force_defaults`: write scalars equal to their schema default too.
    pub force_defaults: bool,
    /// Leave the plain `Vec`/map fields (`bounds_list`, `slot_map`) out when empty instead of writing an
    /// empty vector (both read as empty).
    pub empty_as_absent: bool,
    /// `create_shared_string` for every string (deduplicated).
    pub shared_strings: bool,
    /// `finish` with the schema's file identifier `RICH`.
    pub identifier: bool,
    /// `finish_size_prefixed`.
    pub size_prefixed: bool,
}

fn fb_color(c: Color) -> fb::Color {
    match c {
        Color::Red => fb::Color::Red,
        Color::Green => fb::Color::Green,
        Color::Blue => fb::Color::Blue,
    }
}

fn fb_vec2(v: &Vec2) -> fb::Vec2 {
    fb::Vec2::new(v.x, v.y)
}

fn fb_vec3(v: &Vec3) -> fb::Vec3 {
    fb::Vec3::new(v.x, v.y, v.z)
}

fn fb_bounds(b: &Bounds) -> fb::Bounds {
    fb::Bounds::new(&fb_vec3(&b.min), &fb_vec3(&b.max), fb::Layer(b.layer.value()))
}

fn fb_slots(s: &Slots) -> fb::Slots {
    fb::Slots::new(s.tag, &s.ids, &s.weights, &s.corners.map(|c| fb_vec2(&c)), &s.colors.map(fb_color))
}

impl Build {
    /// One of the 32 combinations: bit 0 force_defaults, 1 empty_as_absent, 2 shared_strings, 3 identifier,
    /// 4 size_prefixed.
    pub fn from_bits(bits: u8) -> Build {
        Build {
            force_defaults: bits & 1 != 0,
            empty_as_absent: bits & 2 != 0,
            shared_strings: bits & 4 != 0,
            identifier: bits & 8 != 0,
            size_prefixed: bits & 16 != 0,
        }
    }

    /// The lite options that read what this build wrote.
    pub fn reader(&self) -> Options {
        let o = rich_opts().size_prefixed(self.size_prefixed);
        if self.identifier { o.file_identifier(*b"RICH") } else { o }
    }

    fn string<'a>(&self, b: &mut FlatBufferBuilder<'a>, s: &str) -> WIPOffset<&'a str> {
        if self.shared_strings { b.create_shared_string(s) } else { b.create_string(s) }
    }

    fn opt_string<'a>(&self, b: &mut FlatBufferBuilder<'a>, s: &Option<String>) -> Option<WIPOffset<&'a str>> {
        s.as_deref().map(|s| self.string(b, s))
    }

    fn strings<'a>(
        &self,
        b: &mut FlatBufferBuilder<'a>,
        v: &[String],
    ) -> WIPOffset<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<&'a str>>> {
        let offs: Vec<_> = v.iter().map(|s| self.string(b, s)).collect();
        b.create_vector(&offs)
    }

    pub fn weapon<'a>(&self, b: &mut FlatBufferBuilder<'a>, w: &Weapon) -> WIPOffset<fb::Weapon<'a>> {
        let name = self.opt_string(b, &w.name);
        fb::Weapon::create(b, &fb::WeaponArgs { name, damage: w.damage, range: w.range })
    }

    fn spell<'a>(&self, b: &mut FlatBufferBuilder<'a>, s: &Spell) -> WIPOffset<fb::Spell<'a>> {
        let name = self.opt_string(b, &s.name);
        let targets = s.targets.as_ref().map(|t| b.create_vector(&t.iter().map(fb_vec2).collect::<Vec<_>>()));
        fb::Spell::create(
            b,
            &fb::SpellArgs { name, mana_cost: s.mana_cost, school: fb::Rarity(s.school.value()), targets },
        )
    }

    /// The union's type and value.
    pub fn equipment<'a>(
        &self,
        b: &mut FlatBufferBuilder<'a>,
        e: &Option<Equipment>,
    ) -> (fb::Equipment, Option<WIPOffset<flatbuffers::UnionWIPOffset>>) {
        match e {
            None => (fb::Equipment::NONE, None),
            Some(Equipment::Weapon(w)) => (fb::Equipment::Weapon, Some(self.weapon(b, w).as_union_value())),
            Some(Equipment::Offhand(w)) => (fb::Equipment::Offhand, Some(self.weapon(b, w).as_union_value())),
            Some(Equipment::Spell(s)) => (fb::Equipment::Spell, Some(self.spell(b, s).as_union_value())),
            Some(Equipment::Potion(p)) => (
                fb::Equipment::Potion,
                Some(fb::Potion::create(b, &fb::PotionArgs { heal: p.heal, uses: p.uses }).as_union_value()),
            ),
        }
    }

    fn item<'a>(&self, b: &mut FlatBufferBuilder<'a>, i: &Item) -> WIPOffset<fb::Item<'a>> {
        let name = self.opt_string(b, &i.name);
        fb::Item::create(b, &fb::ItemArgs { id: i.id, name, count: i.count, rarity: fb::Rarity(i.rarity.value()) })
    }

    pub fn stats<'a>(&self, b: &mut FlatBufferBuilder<'a>, s: &Stats) -> WIPOffset<fb::Stats<'a>> {
        fb::Stats::create(
            b,
            &fb::StatsArgs { hp: s.hp, mana: s.mana, speed: s.speed, alive: s.alive, armor: s.armor, luck: s.luck },
        )
    }

    /// Builds `h` (and its companions) with the generated `HeroArgs` + `Hero::create`.
    pub fn hero<'a>(&self, b: &mut FlatBufferBuilder<'a>, h: &Hero) -> WIPOffset<fb::Hero<'a>> {
        let companion = h.companion.as_ref().map(|c| self.hero(b, c));
        let name = self.opt_string(b, &h.name);
        let stats = h.stats.as_ref().map(|s| self.stats(b, s));
        let inventory = h.inventory.as_ref().map(|v| b.create_vector(v));
        let tags = h.tags.as_ref().map(|v| self.strings(b, v));
        let path = h.path.as_ref().map(|v| b.create_vector(&v.iter().map(fb_vec3).collect::<Vec<_>>()));
        let bounds_list = (!(self.empty_as_absent && h.bounds_list.is_empty()))
            .then(|| b.create_vector(&h.bounds_list.iter().map(fb_bounds).collect::<Vec<_>>()));
        let flags = h.flags.as_ref().map(|v| b.create_vector(v));
        let deltas = h.deltas.as_ref().map(|v| b.create_vector(v));
        let scores = h.scores.as_ref().map(|v| b.create_vector(v));
        let big_ids = h.big_ids.as_ref().map(|v| b.create_vector(v));
        let layers =
            h.layers.as_ref().map(|v| b.create_vector(&v.iter().map(|l| fb::Layer(l.value())).collect::<Vec<_>>()));
        let colors = h.colors.as_ref().map(|v| b.create_vector(&v.iter().copied().map(fb_color).collect::<Vec<_>>()));
        let weapons = h.weapons.as_ref().map(|v| {
            let offs: Vec<_> = v.iter().map(|w| self.weapon(b, w)).collect();
            b.create_vector(&offs)
        });
        // Keyed vectors: the Rust builder has no sorting helper; the entries go in key order (the order
        // `lookup_by_key` needs), which `items` already is and BTreeMap iteration gives.
        let items = h.items.as_ref().map(|v| {
            let offs: Vec<_> = v.iter().map(|i| self.item(b, i)).collect();
            b.create_vector(&offs)
        });
        let stat_map = h.stat_map.as_ref().map(|m| {
            let offs: Vec<_> = m
                .iter()
                .map(|(k, v)| {
                    let key = Some(self.string(b, k));
                    fb::Stat::create(b, &fb::StatArgs { key, value: *v })
                })
                .collect();
            b.create_vector(&offs)
        });
        let slot_map = (!(self.empty_as_absent && h.slot_map.is_empty())).then(|| {
            let offs: Vec<_> = h
                .slot_map
                .iter()
                .map(|(k, v)| {
                    let value = Some(self.item(b, v));
                    fb::SlotEntry::create(b, &fb::SlotEntryArgs { key: *k, value })
                })
                .collect();
            b.create_vector(&offs)
        });
        let (equipped_type, equipped) = self.equipment(b, &h.equipped);
        let (offhand_type, offhand) = self.equipment(b, &h.offhand);
        let pos = h.pos.as_ref().map(fb_vec3);
        let bounds = h.bounds.as_ref().map(fb_bounds);
        let slots = h.slots.as_ref().map(fb_slots);
        fb::Hero::create(
            b,
            &fb::HeroArgs {
                name,
                pos: pos.as_ref(),
                bounds: bounds.as_ref(),
                slots: slots.as_ref(),
                stats,
                level: h.level,
                xp: h.xp,
                color: fb_color(h.color),
                rarity: fb::Rarity(h.rarity.value()),
                layer: fb::Layer(h.layer.value()),
                epoch: fb::Epoch(h.epoch.value()),
                hp_opt: h.hp_opt,
                shield_opt: h.shield_opt,
                ratio_opt: h.ratio_opt,
                color_opt: h.color_opt.map(fb_color),
                inventory,
                tags,
                path,
                bounds_list,
                flags,
                deltas,
                scores,
                big_ids,
                layers,
                colors,
                weapons,
                items,
                stat_map,
                slot_map,
                equipped_type,
                equipped,
                offhand_type,
                offhand,
                companion,
                temperature: h.temperature,
            },
        )
    }

    fn finish<T>(&self, b: &mut FlatBufferBuilder<'_>, root: WIPOffset<T>) -> Vec<u8> {
        let ident = self.identifier.then_some(fb::HERO_IDENTIFIER);
        if self.size_prefixed {
            b.finish_size_prefixed(root, ident)
        } else {
            b.finish(root, ident)
        }
        b.finished_data().to_vec()
    }

    fn builder(&self) -> FlatBufferBuilder<'static> {
        let mut b = FlatBufferBuilder::new();
        b.force_defaults(self.force_defaults);
        b
    }

    /// A whole buffer holding `h` as its root.
    pub fn hero_buffer(&self, h: &Hero) -> Vec<u8> {
        let mut b = self.builder();
        let root = self.hero(&mut b, h);
        self.finish(&mut b, root)
    }

    pub fn player_v1_buffer(&self, p: &PlayerV1) -> Vec<u8> {
        let mut b = self.builder();
        let name = self.opt_string(&mut b, &p.name);
        let root = fb::PlayerV1::create(&mut b, &fb::PlayerV1Args { id: p.id, name, hp: p.hp, legacy: p.legacy });
        self.finish(&mut b, root)
    }

    pub fn player_v2_buffer(&self, p: &PlayerV2) -> Vec<u8> {
        let mut b = self.builder();
        let name = self.opt_string(&mut b, &p.name);
        let title = self.opt_string(&mut b, &p.title);
        let guilds = p.guilds.as_ref().map(|g| self.strings(&mut b, g));
        let (pet_type, pet) = self.equipment(&mut b, &p.pet);
        let stats = p.stats.as_ref().map(|s| self.stats(&mut b, s));
        let pos = p.pos.as_ref().map(fb_vec3);
        let root = fb::PlayerV2::create(
            &mut b,
            &fb::PlayerV2Args {
                id: p.id,
                name,
                hp: p.hp,
                title,
                mana: p.mana,
                rank: fb::Rarity(p.rank.value()),
                pos: pos.as_ref(),
                guilds,
                pet_type,
                pet,
                stats,
                opt_gold: p.opt_gold,
            },
        );
        self.finish(&mut b, root)
    }
}

// ------------------------------------------------------------------------------------------------
// official verifier + generated accessors → mirror

fn color(c: fb::Color) -> Color {
    match c {
        fb::Color::Red => Color::Red,
        fb::Color::Green => Color::Green,
        fb::Color::Blue => Color::Blue,
        other => panic!("unknown Color {other:?}"),
    }
}

fn rarity(r: fb::Rarity) -> Rarity {
    *Rarity::ALL.iter().find(|k| k.value() == r.0).unwrap_or_else(|| panic!("unknown Rarity {r:?}"))
}

fn layer(l: fb::Layer) -> Layer {
    *Layer::ALL.iter().find(|k| k.value() == l.0).unwrap_or_else(|| panic!("unknown Layer {l:?}"))
}

fn epoch(e: fb::Epoch) -> Epoch {
    *Epoch::ALL.iter().find(|k| k.value() == e.0).unwrap_or_else(|| panic!("unknown Epoch {e:?}"))
}

fn vec2(v: &fb::Vec2) -> Vec2 {
    Vec2 { x: v.x(), y: v.y() }
}

fn vec3(v: &fb::Vec3) -> Vec3 {
    Vec3 { x: v.x(), y: v.y(), z: v.z() }
}

fn bounds(b: &fb::Bounds) -> Bounds {
    Bounds { min: vec3(b.min()), max: vec3(b.max()), layer: layer(b.layer()) }
}

fn slots(s: &fb::Slots) -> Slots {
    let (ids, weights, corners, colors) = (s.ids(), s.weights(), s.corners(), s.colors());
    Slots {
        tag: s.tag(),
        ids: std::array::from_fn(|i| ids.get(i)),
        weights: std::array::from_fn(|i| weights.get(i)),
        corners: std::array::from_fn(|i| vec2(corners.get(i))),
        colors: std::array::from_fn(|i| color(colors.get(i))),
    }
}

fn weapon(w: fb::Weapon<'_>) -> Weapon {
    Weapon { name: w.name().map(str::to_owned), damage: w.damage(), range: w.range() }
}

fn spell(s: fb::Spell<'_>) -> Spell {
    Spell {
        name: s.name().map(str::to_owned),
        mana_cost: s.mana_cost(),
        school: rarity(s.school()),
        targets: s.targets().map(|t| t.iter().map(vec2).collect()),
    }
}

fn item(i: fb::Item<'_>) -> Item {
    Item { id: i.id(), name: i.name().map(str::to_owned), count: i.count(), rarity: rarity(i.rarity()) }
}

fn stats(s: fb::Stats<'_>) -> Stats {
    Stats { hp: s.hp(), mana: s.mana(), speed: s.speed(), alive: s.alive(), armor: s.armor(), luck: s.luck() }
}

/// A union through the generated `x_type()` / `x_as_member()` accessors; `as_member` returns the value only
/// for its own type, which is checked for each member.
macro_rules! read_union {
    ($t:expr, $ty:ident, $weapon:ident, $spell:ident, $potion:ident, $offhand:ident, $raw:ident) => {{
        let t = $t;
        let ty = t.$ty();
        let members = [t.$weapon().is_some(), t.$spell().is_some(), t.$potion().is_some(), t.$offhand().is_some()];
        assert_eq!(members.iter().filter(|m| **m).count(), usize::from(ty != fb::Equipment::NONE), "{ty:?}");
        match ty {
            fb::Equipment::NONE => {
                assert!(t.$raw().is_none(), "union NONE with a value");
                None
            }
            fb::Equipment::Weapon => Some(Equipment::Weapon(weapon(t.$weapon().unwrap()))),
            fb::Equipment::Spell => Some(Equipment::Spell(spell(t.$spell().unwrap()))),
            fb::Equipment::Potion => {
                let p = t.$potion().unwrap();
                Some(Equipment::Potion(Potion { heal: p.heal(), uses: p.uses() }))
            }
            fb::Equipment::Offhand => Some(Equipment::Offhand(weapon(t.$offhand().unwrap()))),
            other => panic!("unknown Equipment {other:?}"),
        }
    }};
}

/// A `Hero` read through the generated accessors; keyed vectors are also checked with `lookup_by_key`.
pub fn hero(h: fb::Hero<'_>) -> Hero {
    let items = h.items().map(|v| {
        let items: Vec<Item> = v.iter().map(item).collect();
        for i in &items {
            let found = v.lookup_by_key(i.id, |t, k| t.key_compare_with_value(*k)).expect("lookup_by_key(id)");
            assert_eq!(found.id(), i.id);
        }
        items
    });
    let stat_map = h.stat_map().map(|v| {
        let mut map = BTreeMap::new();
        for (i, s) in v.iter().enumerate() {
            let found = v.lookup_by_key(s.key(), |t, k| t.key_compare_with_value(k)).expect("lookup_by_key(key)");
            assert_eq!(found.value(), s.value());
            if i > 0 {
                assert!(v.get(i - 1).key_compare_less_than(&s), "stat_map not sorted at {i}");
            }
            map.insert(s.key().to_owned(), s.value());
        }
        map
    });
    let slot_map = h
        .slot_map()
        .map(|v| {
            let mut map = BTreeMap::new();
            for (i, s) in v.iter().enumerate() {
                assert!(v.lookup_by_key(s.key(), |t, k| t.key_compare_with_value(*k)).is_some());
                if i > 0 {
                    assert!(v.get(i - 1).key_compare_less_than(&s), "slot_map not sorted at {i}");
                }
                map.insert(s.key(), item(s.value().expect("slot_map entry without a value")));
            }
            map
        })
        .unwrap_or_default();
    Hero {
        name: h.name().map(str::to_owned),
        pos: h.pos().map(vec3),
        bounds: h.bounds().map(bounds),
        slots: h.slots().map(slots),
        stats: h.stats().map(stats),
        level: h.level(),
        xp: h.xp(),
        color: color(h.color()),
        rarity: rarity(h.rarity()),
        layer: layer(h.layer()),
        epoch: epoch(h.epoch()),
        hp_opt: h.hp_opt(),
        shield_opt: h.shield_opt(),
        ratio_opt: h.ratio_opt(),
        color_opt: h.color_opt().map(color),
        old_score: Deprecated,
        inventory: h.inventory().map(|v| v.bytes().to_vec()),
        tags: h.tags().map(|v| v.iter().map(str::to_owned).collect()),
        path: h.path().map(|v| v.iter().map(vec3).collect()),
        bounds_list: h.bounds_list().map(|v| v.iter().map(bounds).collect()).unwrap_or_default(),
        flags: h.flags().map(|v| v.iter().collect()),
        deltas: h.deltas().map(|v| v.iter().collect()),
        scores: h.scores().map(|v| v.iter().collect()),
        big_ids: h.big_ids().map(|v| v.iter().collect()),
        layers: h.layers().map(|v| v.iter().map(layer).collect()),
        colors: h.colors().map(|v| v.iter().map(color).collect()),
        weapons: h.weapons().map(|v| v.iter().map(weapon).collect()),
        items,
        stat_map,
        slot_map,
        equipped_type: UnionType,
        equipped: read_union!(
            &h,
            equipped_type,
            equipped_as_weapon,
            equipped_as_spell,
            equipped_as_potion,
            equipped_as_offhand,
            equipped
        ),
        offhand_type: UnionType,
        offhand: read_union!(
            &h,
            offhand_type,
            offhand_as_weapon,
            offhand_as_spell,
            offhand_as_potion,
            offhand_as_offhand,
            offhand
        ),
        companion: h.companion().map(|c| Box::new(hero(c))),
        temperature: h.temperature(),
    }
}

/// The official verifier (default `VerifierOptions`) on a (size-prefixed) `Hero` buffer.
pub fn official_root(bytes: &[u8], size_prefixed: bool) -> Result<fb::Hero<'_>, flatbuffers::InvalidFlatbuffer> {
    if size_prefixed {
        flatbuffers::size_prefixed_root::<fb::Hero<'_>>(bytes)
    } else {
        flatbuffers::root::<fb::Hero<'_>>(bytes)
    }
}

/// Verifies `bytes` with the official verifier and reads the root `Hero` through the generated accessors.
#[track_caller]
pub fn official_hero(bytes: &[u8], size_prefixed: bool) -> Hero {
    hero(official_root(bytes, size_prefixed).unwrap_or_else(|e| panic!("official verifier rejects the buffer: {e}")))
}

/// Whether a union of `h` (or of its companions) is `NONE`: the official builder with `force_defaults` then
/// writes a buffer the official Rust verifier rejects (see `rich_schema.rs`).
pub fn has_none_union(h: &Hero) -> bool {
    h.equipped.is_none() || h.offhand.is_none() || h.companion.as_deref().is_some_and(has_none_union)
}

#[track_caller]
pub fn official_player_v1(bytes: &[u8]) -> PlayerV1 {
    let p = flatbuffers::root::<fb::PlayerV1<'_>>(bytes).unwrap_or_else(|e| panic!("official verifier: {e}"));
    PlayerV1 { id: p.id(), name: p.name().map(str::to_owned), hp: p.hp(), legacy: p.legacy() }
}

#[track_caller]
pub fn official_player_v2(bytes: &[u8]) -> PlayerV2 {
    let p = flatbuffers::root::<fb::PlayerV2<'_>>(bytes).unwrap_or_else(|e| panic!("official verifier: {e}"));
    PlayerV2 {
        id: p.id(),
        name: p.name().map(str::to_owned),
        hp: p.hp(),
        legacy: Deprecated,
        title: p.title().map(str::to_owned),
        mana: p.mana(),
        rank: rarity(p.rank()),
        pos: p.pos().map(vec3),
        guilds: p.guilds().map(|v| v.iter().map(str::to_owned).collect()),
        pet_type: UnionType,
        pet: read_union!(&p, pet_type, pet_as_weapon, pet_as_spell, pet_as_potion, pet_as_offhand, pet),
        stats: p.stats().map(stats),
        opt_gold: p.opt_gold(),
    }
}
