//! A tour of serde-gamefmt: one realistic game-state value shown through every format in the
//! workspace (and the general-purpose formats users compare them with): encoded size, an excerpt
//! of the bytes, and a round-trip check.
//!
//! ```text
//! cargo run --release --example tour
//! ```
//!
//! Each format crate adds one entry to `formats()`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use serde::{Deserialize, Serialize};

/// A position in the world.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

/// Player state flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum PlayerFlag {
    Admin,
    Muted,
    Premium,
    Afk,
}

/// One stack in the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Item {
    id: u32,
    name: String,
    count: u16,
}

/// The guild a player belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Guild {
    name: String,
    rank: u8,
}

/// One connected player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Player {
    id: u32,
    name: String,
    position: Vec3,
    hp: i32,
    inventory: Vec<Item>,
    flags: Vec<PlayerFlag>,
    guild: Option<Guild>,
    stats: BTreeMap<String, i64>,
}

/// What a game server snapshots every tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct GameState {
    tick: u64,
    map: String,
    players: Vec<Player>,
}

fn game_state() -> GameState {
    let stats = |kills: i64, deaths: i64, gold: i64| {
        BTreeMap::from([("deaths".to_owned(), deaths), ("gold".to_owned(), gold), ("kills".to_owned(), kills)])
    };
    GameState {
        tick: 184_467,
        map: "harbor_night".to_owned(),
        players: vec![
            Player {
                id: 1,
                name: "Ayla".to_owned(),
                position: Vec3 { x: 12.5, y: 0.0, z: -3.25 },
                hp: 87,
                inventory: vec![
                    Item { id: 1001, name: "Bronze Sword".to_owned(), count: 1 },
                    Item { id: 2040, name: "Healing Potion".to_owned(), count: 5 },
                ],
                flags: vec![PlayerFlag::Premium],
                guild: Some(Guild { name: "Tidewardens".to_owned(), rank: 2 }),
                stats: stats(14, 3, 1250),
            },
            Player {
                id: 2,
                name: "Borin".to_owned(),
                position: Vec3 { x: -40.0, y: 2.5, z: 18.75 },
                hp: 120,
                inventory: vec![Item { id: 3100, name: "Iron Shield".to_owned(), count: 1 }],
                flags: vec![PlayerFlag::Admin, PlayerFlag::Afk],
                guild: None,
                stats: stats(2, 9, 40),
            },
            Player {
                id: 3,
                name: "Cyd".to_owned(),
                position: Vec3 { x: 0.0, y: 0.0, z: 0.0 },
                hp: 0,
                inventory: Vec::new(),
                flags: vec![PlayerFlag::Muted],
                guild: Some(Guild { name: "Tidewardens".to_owned(), rank: 5 }),
                stats: stats(0, 1, 0),
            },
        ],
    }
}

/// How an excerpt of the encoded bytes is shown.
enum Excerpt {
    /// A hex dump of the first bytes.
    Hex,
    /// The first characters of a text encoding.
    Text,
}

type Encode = fn(&GameState) -> Result<Vec<u8>, String>;
type Decode = fn(&[u8]) -> Result<GameState, String>;

/// One format in the tour.
struct Format {
    name: &'static str,
    what: &'static str,
    excerpt: Excerpt,
    encode: Encode,
    decode: Decode,
}

/// The tour's types as KingsIsle classes (static schemas: no type list file needed). The stats map
/// is a container of (key, value) objects, the way KI classes hold maps.
mod kiprop_classes {
    use serde_gamefmt::kiprop::{ClassSchema, Options, PropertySchema as P, TypeList, serializer_flags};
    use std::sync::OnceLock;

    static GAME_STATE: ClassSchema = ClassSchema::new(
        "class GameState",
        &[
            P::new("tick").ty("unsigned __int64"),
            P::new("map").ty("std::string"),
            P::new("players").ty("class Player").dynamic(),
        ],
    );
    static PLAYER: ClassSchema = ClassSchema::new(
        "class Player",
        &[
            P::new("id").ty("unsigned int"),
            P::new("name").ty("std::string"),
            P::new("position").ty("class Vector3D"),
            P::new("hp").ty("int"),
            P::new("inventory").ty("class Item").dynamic(),
            P::new("flags")
                .ty("enum PlayerFlag")
                .options(&[("Admin", 0), ("Muted", 1), ("Premium", 2), ("Afk", 3)])
                .dynamic(),
            P::new("guild").ty("class Guild*"),
            P::new("stats").ty("class Stat").dynamic(),
        ],
    );
    static ITEM: ClassSchema = ClassSchema::new(
        "class Item",
        &[P::new("id").ty("unsigned int"), P::new("name").ty("std::string"), P::new("count").ty("unsigned short")],
    );
    static GUILD: ClassSchema =
        ClassSchema::new("class Guild", &[P::new("name").ty("std::string"), P::new("rank").ty("unsigned char")]);
    static STAT: ClassSchema =
        ClassSchema::new("class Stat", &[P::new("key").ty("std::string"), P::new("value").ty("__int64")]);

    pub(crate) fn types() -> &'static TypeList {
        static TYPES: OnceLock<TypeList> = OnceLock::new();
        TYPES.get_or_init(|| TypeList::from_schemas(&[&GAME_STATE, &PLAYER, &ITEM, &GUILD, &STAT]))
    }

    /// Network state: shallow, every property, compact length prefixes, flags stored.
    pub(crate) fn options() -> Options {
        Options::new()
            .property_mask(0)
            .flags(serializer_flags::STATEFUL_FLAGS | serializer_flags::COMPACT_LENGTH_PREFIXES)
    }
}

fn formats() -> Vec<Format> {
    vec![
        Format {
            name: "postcard",
            what: "compact varint binary, the size and speed anchor (not a game-engine format)",
            excerpt: Excerpt::Hex,
            encode: |v| postcard::to_allocvec(v).map_err(|e| e.to_string()),
            decode: |b| postcard::from_bytes(b).map_err(|e| e.to_string()),
        },
        Format {
            name: "serde-flatbuf-lite",
            what: "FlatBuffers tables (Vec3 as a struct), readable by flatc-generated code in any language",
            excerpt: Excerpt::Hex,
            encode: |v| flatbuf_options().to_vec(v).map_err(|e| e.to_string()),
            decode: |b| flatbuf_options().from_slice(b).map_err(|e| e.to_string()),
        },
        Format {
            name: "serde-brson",
            what: "Resonite/NeosVR data tree (.brson): FrDT header, Brotli q9, BSON payload",
            excerpt: Excerpt::Hex,
            encode: |v| {
                serde_gamefmt::brson::to_vec(v, serde_gamefmt::brson::Compression::Brotli).map_err(|e| e.to_string())
            },
            decode: |b| serde_gamefmt::brson::from_slice(b).map_err(|e| e.to_string()),
        },
        Format {
            name: "serde-godot",
            what: "Godot 4 binary Variant (var_to_bytes, put_var): structs as the Dictionaries GDScript reads",
            excerpt: Excerpt::Hex,
            encode: |v| serde_godot::to_vec(v).map_err(|e| e.to_string()),
            decode: |b| serde_godot::from_slice(b).map_err(|e| e.to_string()),
        },
        Format {
            name: "serde_json",
            what: "JSON, the human-readable anchor (not a game-engine format)",
            excerpt: Excerpt::Text,
            encode: |v| serde_json::to_vec(v).map_err(|e| e.to_string()),
            decode: |b| serde_json::from_slice(b).map_err(|e| e.to_string()),
        },
        Format {
            name: "serde-kiprop",
            what: "KingsIsle ObjectProperty (Wizard101): bit-packed shallow network state, compact lengths, static KI classes",
            excerpt: Excerpt::Hex,
            encode: |v| kiprop_classes::options().to_vec(v, kiprop_classes::types()).map_err(|e| e.to_string()),
            decode: |b| kiprop_classes::options().from_slice(b, kiprop_classes::types()).map_err(|e| e.to_string()),
        },
        Format {
            name: "serde-o3de",
            what: "O3DE JSON serialization (lenient load with O3DE's coercions, default-stripping store)",
            excerpt: Excerpt::Text,
            // `GameState` has no `Default`, so it is stored without a default object: every member is
            // written and only zero values inside containers become `{}`.
            encode: |v| {
                let stored = serde_gamefmt::o3de::Options::new().store(v, None).map_err(|e| e.to_string())?;
                Ok(stored.into_string().into_bytes())
            },
            decode: |b| serde_gamefmt::o3de::from_slice(b).map_err(|e| e.to_string()),
        },
    ]
}

/// serde-flatbuf-lite lays out `Vec3` as an inline FlatBuffers struct; every other struct is a table.
fn flatbuf_options() -> serde_gamefmt::flatbuf::Options {
    serde_gamefmt::flatbuf::Options::new().inline_struct("Vec3")
}

fn show(bytes: &[u8], excerpt: &Excerpt) -> String {
    const SHOWN: usize = 64;
    match excerpt {
        Excerpt::Hex => {
            let dump = testkit::hex::dump(&bytes[..bytes.len().min(SHOWN)]);
            let mut lines: Vec<&str> = dump.lines().collect();
            lines.pop(); // the trailing length line of the dump
            let mut text = lines.join("\n");
            if bytes.len() > SHOWN {
                text.push_str(&format!("\n          … {} more bytes", bytes.len() - SHOWN));
            }
            text
        }
        Excerpt::Text => {
            let text = String::from_utf8_lossy(bytes);
            let cut: String = text.chars().take(160).collect();
            if cut.len() < text.len() { format!("{cut}…") } else { cut }
        }
    }
}

fn main() -> ExitCode {
    let state = game_state();
    println!(
        "serde-gamefmt tour: one game state ({} players, tick {}) through every format\n",
        state.players.len(),
        state.tick
    );
    let mut summary = Vec::new();
    let mut failures = 0;
    for format in formats() {
        println!("== {} — {}", format.name, format.what);
        let result = (format.encode)(&state).and_then(|bytes| {
            let back = (format.decode)(&bytes)?;
            Ok((bytes, back == state))
        });
        match result {
            Ok((bytes, same)) => {
                println!("{}", show(&bytes, &format.excerpt));
                println!("size: {} bytes, round-trip: {}\n", bytes.len(), if same { "ok" } else { "MISMATCH" });
                if !same {
                    failures += 1;
                }
                summary.push((format.name, bytes.len(), same));
            }
            Err(e) => {
                println!("error: {e}\n");
                failures += 1;
                summary.push((format.name, 0, false));
            }
        }
    }
    println!("| format | bytes | round-trip |\n|---|--:|---|");
    for (name, size, ok) in &summary {
        println!("| {name} | {size} | {} |", if *ok { "ok" } else { "FAILED" });
    }
    if failures == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
