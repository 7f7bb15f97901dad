//! serde-kiprop rows: the `minecraft_savedata` and `mk48` datasets expressed as KI classes
//! (static schemas, no type list file), encoded shallow and deep, beside postcard on the same
//! Rust structs.
//!
//! The mapping is what a KI game would declare: `Option` fields are DELTA_ENCODE properties
//! (a presence bit in shallow mode, an omitted property in deep mode) or pointers (`class X*`,
//! a null tag); tuples and arrays are fixed-size properties; `Vec`s are containers; Rust enums
//! are KI enums; mk48's `Vector2f` is the KI leaf `class Point<float>`.

use std::hint::black_box;
use std::sync::OnceLock;

use criterion::{Criterion, SamplingMode, Throughput};
use serde_kiprop::{ClassSchema, Options, PropertySchema as P, Serializer, TypeList, flags};

use super::Datasets;
use super::datasets::{Players, Updates};

const DELTA: u32 = flags::DEFAULT | flags::DELTA_ENCODE;

const GAME_TYPES: &[(&str, u32)] = &[("Survival", 0), ("Creative", 1), ("Adventure", 2), ("Spectator", 3)];

static PLAYERS: ClassSchema = ClassSchema::new("class Players", &[P::new("players").ty("class Player").dynamic()]);

static PLAYER: ClassSchema = ClassSchema::new(
    "class Player",
    &[
        P::new("game_type").ty("enum GameType").options(GAME_TYPES),
        P::new("previous_game_type").ty("enum GameType").options(GAME_TYPES),
        P::new("score").ty("unsigned __int64"),
        P::new("dimension").ty("std::string"),
        P::new("selected_item_slot").ty("unsigned int"),
        P::new("selected_item").ty("class Item"),
        P::new("spawn_dimension").ty("std::string").flags(DELTA),
        P::new("spawn_x").ty("__int64"),
        P::new("spawn_y").ty("__int64"),
        P::new("spawn_z").ty("__int64"),
        P::new("spawn_forced").ty("bool").flags(DELTA),
        P::new("sleep_timer").ty("unsigned short"),
        P::new("food_exhaustion_level").ty("float"),
        P::new("food_saturation_level").ty("float"),
        P::new("food_tick_timer").ty("unsigned int"),
        P::new("xp_level").ty("unsigned int"),
        P::new("xp_p").ty("float"),
        P::new("xp_total").ty("int"),
        P::new("xp_seed").ty("int"),
        P::new("inventory").ty("class Item").dynamic(),
        P::new("ender_items").ty("class Item").dynamic(),
        P::new("abilities").ty("class Abilities"),
        P::new("entered_nether_position").ty("double").flags(DELTA),
        P::new("root_vehicle").ty("class Vehicle*"),
        P::new("shoulder_entity_left").ty("class Entity*"),
        P::new("shoulder_entity_right").ty("class Entity*"),
        P::new("seen_credits").ty("bool"),
        P::new("recipe_book").ty("class RecipeBook"),
    ],
);

static ITEM: ClassSchema = ClassSchema::new(
    "class Item",
    &[P::new("count").ty("char"), P::new("slot").ty("unsigned char"), P::new("id").ty("std::string")],
);

static ABILITIES: ClassSchema = ClassSchema::new(
    "class Abilities",
    &[
        P::new("walk_speed").ty("float"),
        P::new("fly_speed").ty("float"),
        P::new("may_fly").ty("bool"),
        P::new("flying").ty("bool"),
        P::new("invulnerable").ty("bool"),
        P::new("may_build").ty("bool"),
        P::new("instabuild").ty("bool"),
    ],
);

static ENTITY: ClassSchema = ClassSchema::new(
    "class Entity",
    &[
        P::new("id").ty("std::string"),
        P::new("pos").ty("double"),
        P::new("motion").ty("double"),
        P::new("rotation").ty("float"),
        P::new("fall_distance").ty("float"),
        P::new("fire").ty("unsigned short"),
        P::new("air").ty("unsigned short"),
        P::new("on_ground").ty("bool"),
        P::new("no_gravity").ty("bool"),
        P::new("invulnerable").ty("bool"),
        P::new("portal_cooldown").ty("int"),
        P::new("uuid").ty("unsigned int"),
        P::new("custom_name").ty("std::string").flags(DELTA),
        P::new("custom_name_visible").ty("bool"),
        P::new("silent").ty("bool"),
        P::new("glowing").ty("bool"),
        P::new("tags").ty("std::string").dynamic(),
        P::new("passengers").ty("class Entity").dynamic(),
    ],
);

static RECIPE_BOOK: ClassSchema = ClassSchema::new(
    "class RecipeBook",
    &[
        P::new("recipes").ty("std::string").dynamic(),
        P::new("to_be_displayed").ty("std::string").dynamic(),
        P::new("is_filtering_craftable").ty("bool"),
        P::new("is_gui_open").ty("bool"),
        P::new("is_furnace_filtering_craftable").ty("bool"),
        P::new("is_furnace_gui_open").ty("bool"),
        P::new("is_blasting_furnace_filtering_craftable").ty("bool"),
        P::new("is_blasting_furnace_gui_open").ty("bool"),
        P::new("is_smoker_filtering_craftable").ty("bool"),
        P::new("is_smoker_gui_open").ty("bool"),
    ],
);

static VEHICLE: ClassSchema =
    ClassSchema::new("class Vehicle", &[P::new("uuid").ty("unsigned int"), P::new("entity").ty("class Entity")]);

const ENTITY_TYPES: &[(&str, u32)] = &[
    ("Barrel", 0),
    ("Coin", 1),
    ("Crate", 2),
    ("Scrap", 3),
    ("Acklay", 4),
    ("Battleship", 5),
    ("Bismarck", 6),
    ("Buoy", 7),
    ("Carrier", 8),
    ("Cruiser", 9),
    ("Destroyer", 10),
    ("Dredger", 11),
    ("Dreadnought", 12),
    ("Fairmile", 13),
    ("Freighter", 14),
    ("Frigate", 15),
    ("Hovercraft", 16),
    ("Iowa", 17),
    ("Kolkata", 18),
    ("Lcs", 19),
    ("Minelayer", 20),
    ("Mtb", 21),
    ("Oil", 22),
    ("Submarine", 23),
    ("Tanker", 24),
    ("Yasen", 25),
    ("Zubr", 26),
    ("Depositor", 27),
    ("Harbor", 28),
    ("Hq", 29),
    ("Rig", 30),
    ("Mark18", 31),
    ("Mark48", 32),
    ("Set65", 33),
    ("Type93", 34),
    ("Mine", 35),
    ("Depth", 36),
    ("Shell50", 37),
    ("Shell100", 38),
    ("Shell200", 39),
    ("Sam", 40),
    ("Harpoon", 41),
    ("Tomahawk", 42),
    ("Klub", 43),
    ("Mig21", 44),
    ("SeaHawk", 45),
    ("SuperEtendard", 46),
];

static UPDATES: ClassSchema = ClassSchema::new("class Updates", &[P::new("updates").ty("class Update").dynamic()]);

static UPDATE: ClassSchema = ClassSchema::new(
    "class Update",
    &[
        P::new("contacts").ty("class Contact").dynamic(),
        P::new("score").ty("unsigned int"),
        P::new("world_radius").ty("float"),
        P::new("terrain_updates").ty("class TerrainUpdate").dynamic(),
    ],
);

static CONTACT: ClassSchema = ClassSchema::new(
    "class Contact",
    &[
        P::new("damage").ty("float"),
        P::new("entity_id").ty("unsigned int"),
        P::new("entity_type").ty("enum EntityType").options(ENTITY_TYPES).flags(DELTA),
        P::new("guidance").ty("class Guidance"),
        P::new("player_id").ty("unsigned short").flags(DELTA),
        P::new("reloads").ty("bool").dynamic(),
        P::new("transform").ty("class Transform"),
        P::new("turret_angles").ty("unsigned short").dynamic(),
    ],
);

static GUIDANCE: ClassSchema = ClassSchema::new(
    "class Guidance",
    &[
        P::new("direction_target").ty("unsigned short"),
        P::new("altitude_target").ty("char"),
        P::new("active").ty("bool"),
        P::new("velocity_target").ty("short"),
    ],
);

static TRANSFORM: ClassSchema = ClassSchema::new(
    "class Transform",
    &[
        P::new("altitude").ty("char"),
        P::new("angle").ty("unsigned short"),
        P::new("position").ty("class Point<float>"),
        P::new("velocity").ty("short"),
    ],
);

static TERRAIN_UPDATE: ClassSchema = ClassSchema::new(
    "class TerrainUpdate",
    &[P::new("chunk_id").ty("char"), P::new("data").ty("unsigned char").dynamic()],
);

/// Every class of both datasets.
pub fn types() -> &'static TypeList {
    static TYPES: OnceLock<TypeList> = OnceLock::new();
    TYPES.get_or_init(|| {
        TypeList::from_schemas(&[
            &PLAYERS,
            &PLAYER,
            &ITEM,
            &ABILITIES,
            &ENTITY,
            &RECIPE_BOOK,
            &VEHICLE,
            &UPDATES,
            &UPDATE,
            &CONTACT,
            &GUIDANCE,
            &TRANSFORM,
            &TERRAIN_UPDATE,
        ])
    })
}

/// The two rows: (row name, options).
pub const ROWS: [(&str, Options); 2] =
    [("kiprop-shallow", Options::new().property_mask(0)), ("kiprop-deep", Options::new().deep(true))];

/// Encodes into `buf` (reusing its allocation).
pub fn encode<T: serde::Serialize>(opts: Options, value: &T, buf: &mut Vec<u8>) {
    let mut ser = Serializer::with_buffer(types(), opts, std::mem::take(buf));
    value.serialize(&mut ser).expect("kiprop encode");
    *buf = ser.into_bytes();
}

/// Decodes a `T`.
pub fn decode<T: for<'de> serde::Deserialize<'de>>(opts: Options, bytes: &[u8]) -> T {
    opts.from_slice(bytes, types()).expect("kiprop decode")
}

/// Encodes, decodes and checks equality; returns the bytes.
pub fn assert_round_trip<T>(opts: Options, row: &str, dataset: &str, value: &T) -> Vec<u8>
where
    T: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq,
{
    let mut buf = Vec::new();
    encode(opts, value, &mut buf);
    let back: T = decode(opts, &buf);
    assert!(back == *value, "{row} does not round-trip the {dataset} dataset");
    buf
}

/// Checks both rows on both datasets (used by `tests/bench_rows.rs`).
pub fn check(data: &Datasets) {
    for (row, opts) in ROWS {
        assert_round_trip(opts, row, "minecraft_savedata", &data.minecraft);
        assert_round_trip(opts, row, "mk48", &data.mk48);
    }
}

fn bench_one<T>(c: &mut Criterion, dataset: &str, row: &str, opts: Options, value: &T)
where
    T: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq,
{
    let bytes = assert_round_trip(opts, row, dataset, value);
    super::record_size(dataset, row, bytes.len());
    let mut group = c.benchmark_group(format!("{dataset}/serialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    let mut buf = Vec::with_capacity(bytes.len());
    group.bench_function(row, |b| {
        b.iter(|| {
            buf.clear();
            encode(opts, black_box(value), &mut buf);
            black_box(buf.len());
        })
    });
    group.finish();
    let mut group = c.benchmark_group(format!("{dataset}/deserialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(row, |b| b.iter(|| black_box(decode::<T>(opts, black_box(&bytes)))));
    group.finish();
}

/// `KIPROP_PROFILE=<dataset>/<op>/<row>:<n>` (dataset `minecraft_savedata` or `mk48`, op
/// `serialize` or `deserialize`, row `kiprop-shallow`, `kiprop-deep` or `postcard`): runs that
/// operation `n` times on the whole dataset, outside criterion, for an instruction counter
/// (`valgrind --tool=callgrind`; two runs with different `n` give the count of one operation).
/// Returns whether it ran. `benches/formats.rs` calls it first thing in `main`, so a profiling
/// run builds only the two kiprop datasets and starts no criterion row.
pub fn profile(data: &Datasets) -> bool {
    let Some((dataset, op, row, n)) = super::profile_request("KIPROP_PROFILE") else { return false };
    let (dataset, op, row) = (dataset.as_str(), op.as_str(), row.as_str());
    match dataset {
        "minecraft_savedata" => profile_one(&data.minecraft, op, row, n),
        "mk48" => profile_one(&data.mk48, op, row, n),
        other => panic!("KIPROP_PROFILE: unknown dataset {other}"),
    }
    true
}

fn profile_one<T>(value: &T, op: &str, row: &str, n: u32)
where
    T: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq,
{
    use super::Codec;
    let opts = ROWS.iter().find(|(name, _)| *name == row).map(|(_, o)| *o);
    let mut buf = Vec::new();
    match opts {
        Some(opts) => encode(opts, value, &mut buf),
        None if row == "postcard" => super::anchors::Postcard::encode(value, &mut buf),
        None => panic!("KIPROP_PROFILE: unknown row {row}"),
    }
    profile_loop(value, &buf, op, opts, n);
}

/// The measured part of [`profile`] (callgrind: `--toggle-collect='*profile_loop*'`).
#[inline(never)]
fn profile_loop<T>(value: &T, buf: &[u8], op: &str, opts: Option<Options>, n: u32)
where
    T: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq,
{
    use super::Codec;
    // Like the criterion rows: one output buffer, cleared and reused.
    let mut out = Vec::with_capacity(buf.len());
    for _ in 0..n {
        out.clear();
        match (op, opts) {
            ("serialize", Some(opts)) => {
                encode(opts, black_box(value), &mut out);
                black_box(out.len());
            }
            ("serialize", None) => {
                super::anchors::Postcard::encode(black_box(value), &mut out);
                black_box(out.len());
            }
            ("deserialize", Some(opts)) => drop(black_box(decode::<T>(opts, black_box(buf)))),
            ("deserialize", None) => drop(black_box(super::anchors::Postcard::decode::<T>(black_box(buf)))),
            _ => panic!("KIPROP_PROFILE: unknown op {op}"),
        }
    }
}

/// Registers the kiprop rows (and adds their names to the report's rows).
pub fn bench(c: &mut Criterion, data: &Datasets, rows: &mut Vec<&'static str>) {
    for (row, opts) in ROWS {
        rows.push(row);
        bench_one::<Players>(c, "minecraft_savedata", row, opts, &data.minecraft);
        bench_one::<Updates>(c, "mk48", row, opts, &data.mk48);
    }
}
