//! `mk48`: game-server updates of a naval battle game. Small integers, bools and enums; the dataset
//! where varints and bit packing pay off, and the closest to game-server traffic.

use serde::{Deserialize, Serialize};

use crate::rng::Pcg32;

/// Kinds of ships, weapons, aircraft, obstacles and collectibles.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub enum EntityType {
    Barrel,
    Coin,
    Crate,
    Scrap,
    Acklay,
    Battleship,
    Bismarck,
    Buoy,
    Carrier,
    Cruiser,
    Destroyer,
    Dredger,
    Dreadnought,
    Fairmile,
    Freighter,
    Frigate,
    Hovercraft,
    Iowa,
    Kolkata,
    Lcs,
    Minelayer,
    Mtb,
    Oil,
    Submarine,
    Tanker,
    Yasen,
    Zubr,
    Depositor,
    Harbor,
    Hq,
    Rig,
    Mark18,
    Mark48,
    Set65,
    Type93,
    Mine,
    Depth,
    Shell50,
    Shell100,
    Shell200,
    Sam,
    Harpoon,
    Tomahawk,
    Klub,
    Mig21,
    SeaHawk,
    SuperEtendard,
}

const ENTITY_TYPES: [EntityType; 47] = {
    use EntityType::*;
    [
        Barrel,
        Coin,
        Crate,
        Scrap,
        Acklay,
        Battleship,
        Bismarck,
        Buoy,
        Carrier,
        Cruiser,
        Destroyer,
        Dredger,
        Dreadnought,
        Fairmile,
        Freighter,
        Frigate,
        Hovercraft,
        Iowa,
        Kolkata,
        Lcs,
        Minelayer,
        Mtb,
        Oil,
        Submarine,
        Tanker,
        Yasen,
        Zubr,
        Depositor,
        Harbor,
        Hq,
        Rig,
        Mark18,
        Mark48,
        Set65,
        Type93,
        Mine,
        Depth,
        Shell50,
        Shell100,
        Shell200,
        Sam,
        Harpoon,
        Tomahawk,
        Klub,
        Mig21,
        SeaHawk,
        SuperEtendard,
    ]
};

/// A 2D vector.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Vector2f {
    /// X.
    pub x: f32,
    /// Y.
    pub y: f32,
}

/// Where an entity is heading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Guidance {
    /// Target heading (angle units).
    pub direction_target: u16,
    /// Target altitude (-128..127).
    pub altitude_target: i8,
    /// Active sensors on.
    pub active: bool,
    /// Target velocity.
    pub velocity_target: i16,
}

/// Pose of an entity.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Transform {
    /// Altitude, negative underwater.
    pub altitude: i8,
    /// Heading.
    pub angle: u16,
    /// Position in the world.
    pub position: Vector2f,
    /// Speed.
    pub velocity: i16,
}

/// One visible entity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Contact {
    /// Damage taken (0..1 of max).
    pub damage: f32,
    /// Entity id.
    pub entity_id: u32,
    /// Type, if identified.
    pub entity_type: Option<EntityType>,
    /// Guidance, for own or allied entities.
    pub guidance: Guidance,
    /// Owning player, if any.
    pub player_id: Option<u16>,
    /// Which weapons are reloaded.
    pub reloads: Vec<bool>,
    /// Pose.
    pub transform: Transform,
    /// Turret headings.
    pub turret_angles: Vec<u16>,
}

/// A changed terrain chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct TerrainUpdate {
    /// Chunk coordinates.
    pub chunk_id: (i8, i8),
    /// Compressed height data.
    pub data: Vec<u8>,
}

/// One server tick sent to a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Update {
    /// Visible entities.
    pub contacts: Vec<Contact>,
    /// The player's score.
    pub score: u32,
    /// World radius.
    pub world_radius: f32,
    /// Terrain changes.
    pub terrain_updates: Vec<TerrainUpdate>,
}

/// The whole `mk48` dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Updates {
    /// The updates.
    pub updates: Vec<Update>,
}

fn contact(rng: &mut Pcg32) -> Contact {
    let weapons = rng.usize_in(0, 12);
    Contact {
        damage: if rng.chance(1, 3) { rng.unit_f32() } else { 0.0 },
        entity_id: rng.next_u32(),
        entity_type: if rng.chance(9, 10) { Some(*rng.pick(&ENTITY_TYPES)) } else { None },
        guidance: Guidance {
            direction_target: rng.next_u32() as u16,
            altitude_target: rng.range_i64(-128, 128) as i8,
            active: rng.chance(1, 2),
            velocity_target: rng.range_i64(-500, 500) as i16,
        },
        player_id: if rng.chance(1, 2) { Some(rng.below(1000) as u16) } else { None },
        reloads: (0..weapons).map(|_| rng.chance(3, 4)).collect(),
        transform: Transform {
            altitude: rng.range_i64(-128, 128) as i8,
            angle: rng.next_u32() as u16,
            position: Vector2f { x: rng.f32_in(-5000.0, 5000.0), y: rng.f32_in(-5000.0, 5000.0) },
            velocity: rng.range_i64(-500, 500) as i16,
        },
        turret_angles: (0..rng.usize_in(0, 6)).map(|_| rng.next_u32() as u16).collect(),
    }
}

fn terrain_update(rng: &mut Pcg32) -> TerrainUpdate {
    let len = rng.usize_in(8, 256);
    TerrainUpdate { chunk_id: (rng.range_i64(-64, 64) as i8, rng.range_i64(-64, 64) as i8), data: rng.bytes(len) }
}

/// Generates `count` game updates from the dataset seed.
pub fn generate(count: usize) -> Updates {
    let mut rng = Pcg32::for_datasets();
    let updates = (0..count)
        .map(|_| Update {
            contacts: (0..rng.usize_in(1, 60)).map(|_| contact(&mut rng)).collect(),
            score: rng.below(100_000) as u32,
            world_radius: rng.f32_in(500.0, 10_000.0),
            terrain_updates: (0..rng.usize_in(0, 3)).map(|_| terrain_update(&mut rng)).collect(),
        })
        .collect();
    Updates { updates }
}
