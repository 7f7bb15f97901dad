//! `minecraft_savedata`: player save files. Deep, heterogeneous structs with enums, options, tuples,
//! fixed arrays and vectors.
//!
//! With the `wincode` feature the types also derive wincode's traits; not bitcode's: its derive cannot express
//! the recursive `Entity::passengers: Vec<Entity>` (a layout cycle).

use serde::{Deserialize, Serialize};

use crate::rng::Pcg32;

/// A player's game mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub enum GameType {
    /// Survival mode.
    Survival,
    /// Creative mode.
    Creative,
    /// Adventure mode.
    Adventure,
    /// Spectator mode.
    Spectator,
}

/// An inventory slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Item {
    /// Stack size.
    pub count: i8,
    /// Slot index.
    pub slot: u8,
    /// Namespaced item id, e.g. `minecraft:stone`.
    pub id: String,
}

/// Player abilities.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Abilities {
    /// Walking speed.
    pub walk_speed: f32,
    /// Flying speed.
    pub fly_speed: f32,
    /// May fly.
    pub may_fly: bool,
    /// Is flying.
    pub flying: bool,
    /// Takes no damage.
    pub invulnerable: bool,
    /// May place blocks.
    pub may_build: bool,
    /// Breaks blocks instantly.
    pub instabuild: bool,
}

/// The common entity part of a save (players and their passengers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Entity {
    /// Entity type id.
    pub id: String,
    /// Position.
    pub pos: (f64, f64, f64),
    /// Velocity.
    pub motion: (f64, f64, f64),
    /// Yaw and pitch.
    pub rotation: (f32, f32),
    /// Distance fallen.
    pub fall_distance: f32,
    /// Ticks of fire left.
    pub fire: u16,
    /// Air left.
    pub air: u16,
    /// Standing on the ground.
    pub on_ground: bool,
    /// Unaffected by gravity.
    pub no_gravity: bool,
    /// Takes no damage.
    pub invulnerable: bool,
    /// Portal cooldown in ticks.
    pub portal_cooldown: i32,
    /// UUID as four 32-bit words.
    pub uuid: [u32; 4],
    /// Name tag, if any.
    pub custom_name: Option<String>,
    /// Whether the name tag renders.
    pub custom_name_visible: bool,
    /// Makes no sounds.
    pub silent: bool,
    /// Has the glowing outline.
    pub glowing: bool,
    /// Scoreboard tags.
    pub tags: Vec<String>,
    /// Riding entities.
    pub passengers: Vec<Entity>,
}

/// Recipe book state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct RecipeBook {
    /// Unlocked recipes.
    pub recipes: Vec<String>,
    /// Recipes still flagged as new.
    pub to_be_displayed: Vec<String>,
    /// Crafting filter on.
    pub is_filtering_craftable: bool,
    /// Crafting book open.
    pub is_gui_open: bool,
    /// Furnace filter on.
    pub is_furnace_filtering_craftable: bool,
    /// Furnace book open.
    pub is_furnace_gui_open: bool,
    /// Blast furnace filter on.
    pub is_blasting_furnace_filtering_craftable: bool,
    /// Blast furnace book open.
    pub is_blasting_furnace_gui_open: bool,
    /// Smoker filter on.
    pub is_smoker_filtering_craftable: bool,
    /// Smoker book open.
    pub is_smoker_gui_open: bool,
}

/// A vehicle the player rides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Vehicle {
    /// UUID of the vehicle.
    pub uuid: [u32; 4],
    /// The vehicle entity.
    pub entity: Entity,
}

/// One player's save.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Player {
    /// Current game mode.
    pub game_type: GameType,
    /// Game mode before the last switch.
    pub previous_game_type: GameType,
    /// Score.
    pub score: u64,
    /// Dimension id.
    pub dimension: String,
    /// Selected hot-bar slot.
    pub selected_item_slot: u32,
    /// The item in the selected slot.
    pub selected_item: Item,
    /// Spawn dimension, if set.
    pub spawn_dimension: Option<String>,
    /// Spawn point, if set.
    pub spawn_x: i64,
    /// Spawn point Y.
    pub spawn_y: i64,
    /// Spawn point Z.
    pub spawn_z: i64,
    /// Spawn forced.
    pub spawn_forced: Option<bool>,
    /// Sleep timer.
    pub sleep_timer: u16,
    /// Food exhaustion.
    pub food_exhaustion_level: f32,
    /// Food saturation.
    pub food_saturation_level: f32,
    /// Food tick timer.
    pub food_tick_timer: u32,
    /// Experience level.
    pub xp_level: u32,
    /// Progress to the next level.
    pub xp_p: f32,
    /// Total experience.
    pub xp_total: i32,
    /// Enchantment seed.
    pub xp_seed: i32,
    /// Main inventory.
    pub inventory: Vec<Item>,
    /// Ender chest.
    pub ender_items: Vec<Item>,
    /// Abilities.
    pub abilities: Abilities,
    /// Where the player entered the End, if they did.
    pub entered_nether_position: Option<(f64, f64, f64)>,
    /// What the player is riding, if anything.
    pub root_vehicle: Option<Vehicle>,
    /// Left shoulder parrot.
    pub shoulder_entity_left: Option<Entity>,
    /// Right shoulder parrot.
    pub shoulder_entity_right: Option<Entity>,
    /// Seen the end credits.
    pub seen_credits: bool,
    /// Recipe book.
    pub recipe_book: RecipeBook,
}

/// The whole `minecraft_savedata` dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Players {
    /// The saves.
    pub players: Vec<Player>,
}

const ITEMS: [&str; 12] = [
    "minecraft:stone",
    "minecraft:dirt",
    "minecraft:oak_planks",
    "minecraft:torch",
    "minecraft:iron_pickaxe",
    "minecraft:diamond_sword",
    "minecraft:bread",
    "minecraft:cobblestone",
    "minecraft:redstone",
    "minecraft:bow",
    "minecraft:arrow",
    "minecraft:ender_pearl",
];
const ENTITIES: [&str; 6] = [
    "minecraft:player",
    "minecraft:pig",
    "minecraft:horse",
    "minecraft:parrot",
    "minecraft:boat",
    "minecraft:minecart",
];
const DIMENSIONS: [&str; 3] = ["minecraft:overworld", "minecraft:the_nether", "minecraft:the_end"];
const GAME_TYPES: [GameType; 4] = [GameType::Survival, GameType::Creative, GameType::Adventure, GameType::Spectator];

fn item(rng: &mut Pcg32) -> Item {
    Item { count: rng.range(1, 65) as i8, slot: rng.below(36) as u8, id: (*rng.pick(&ITEMS)).to_owned() }
}

fn items(rng: &mut Pcg32, max: usize) -> Vec<Item> {
    let n = rng.usize_in(0, max);
    (0..n).map(|_| item(rng)).collect()
}

fn triple(rng: &mut Pcg32, span: f64) -> (f64, f64, f64) {
    (rng.f64_in(-span, span), rng.f64_in(-span, span), rng.f64_in(-span, span))
}

fn uuid(rng: &mut Pcg32) -> [u32; 4] {
    [rng.next_u32(), rng.next_u32(), rng.next_u32(), rng.next_u32()]
}

fn entity(rng: &mut Pcg32, depth: u32) -> Entity {
    let passengers = if depth < 2 && rng.chance(1, 8) { vec![entity(rng, depth + 1)] } else { Vec::new() };
    Entity {
        id: (*rng.pick(&ENTITIES)).to_owned(),
        pos: triple(rng, 10_000.0),
        motion: triple(rng, 1.0),
        rotation: (rng.f32_in(0.0, 360.0), rng.f32_in(-90.0, 90.0)),
        fall_distance: rng.f32_in(0.0, 20.0),
        fire: rng.below(20) as u16,
        air: rng.below(300) as u16,
        on_ground: rng.chance(1, 2),
        no_gravity: rng.chance(1, 10),
        invulnerable: rng.chance(1, 10),
        portal_cooldown: rng.below(100) as i32,
        uuid: uuid(rng),
        custom_name: if rng.chance(1, 4) { Some(rng.ident(4, 16)) } else { None },
        custom_name_visible: rng.chance(1, 2),
        silent: rng.chance(1, 10),
        glowing: rng.chance(1, 10),
        tags: (0..rng.usize_in(0, 4)).map(|_| rng.ident(3, 10)).collect(),
        passengers,
    }
}

fn recipe_book(rng: &mut Pcg32) -> RecipeBook {
    let mut recipes =
        || (0..rng.usize_in(0, 40)).map(|_| format!("minecraft:{}", rng.ident(4, 18))).collect::<Vec<_>>();
    let recipes_unlocked = recipes();
    let to_be_displayed = recipes();
    RecipeBook {
        recipes: recipes_unlocked,
        to_be_displayed,
        is_filtering_craftable: rng.chance(1, 2),
        is_gui_open: rng.chance(1, 2),
        is_furnace_filtering_craftable: rng.chance(1, 2),
        is_furnace_gui_open: rng.chance(1, 2),
        is_blasting_furnace_filtering_craftable: rng.chance(1, 2),
        is_blasting_furnace_gui_open: rng.chance(1, 2),
        is_smoker_filtering_craftable: rng.chance(1, 2),
        is_smoker_gui_open: rng.chance(1, 2),
    }
}

fn player(rng: &mut Pcg32) -> Player {
    Player {
        game_type: *rng.pick(&GAME_TYPES),
        previous_game_type: *rng.pick(&GAME_TYPES),
        score: rng.below(1_000_000),
        dimension: (*rng.pick(&DIMENSIONS)).to_owned(),
        selected_item_slot: rng.below(9) as u32,
        selected_item: item(rng),
        spawn_dimension: if rng.chance(1, 2) { Some((*rng.pick(&DIMENSIONS)).to_owned()) } else { None },
        spawn_x: rng.range_i64(-100_000, 100_000),
        spawn_y: rng.range_i64(0, 256),
        spawn_z: rng.range_i64(-100_000, 100_000),
        spawn_forced: if rng.chance(1, 2) { Some(rng.chance(1, 2)) } else { None },
        sleep_timer: rng.below(100) as u16,
        food_exhaustion_level: rng.f32_in(0.0, 4.0),
        food_saturation_level: rng.f32_in(0.0, 20.0),
        food_tick_timer: rng.below(80) as u32,
        xp_level: rng.below(100) as u32,
        xp_p: rng.unit_f32(),
        xp_total: rng.below(10_000) as i32,
        xp_seed: rng.next_u32() as i32,
        inventory: items(rng, 36),
        ender_items: items(rng, 27),
        abilities: Abilities {
            walk_speed: 0.1,
            fly_speed: 0.05,
            may_fly: rng.chance(1, 2),
            flying: rng.chance(1, 2),
            invulnerable: rng.chance(1, 2),
            may_build: rng.chance(1, 2),
            instabuild: rng.chance(1, 2),
        },
        entered_nether_position: if rng.chance(1, 2) { Some(triple(rng, 10_000.0)) } else { None },
        root_vehicle: if rng.chance(1, 4) { Some(Vehicle { uuid: uuid(rng), entity: entity(rng, 0) }) } else { None },
        shoulder_entity_left: if rng.chance(1, 8) { Some(entity(rng, 0)) } else { None },
        shoulder_entity_right: if rng.chance(1, 8) { Some(entity(rng, 0)) } else { None },
        seen_credits: rng.chance(1, 2),
        recipe_book: recipe_book(rng),
    }
}

/// Generates `count` player saves from the dataset seed.
pub fn generate(count: usize) -> Players {
    let mut rng = Pcg32::for_datasets();
    Players { players: (0..count).map(|_| player(&mut rng)).collect() }
}
