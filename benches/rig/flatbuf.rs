//! serde-flatbuf-lite's rows: the lite codec (generic, through serde) and the official `flatbuffers`
//! builder with flatc-generated code for the four datasets (`testkit/flatbuf-oracle/schemas/*.fbs`), the
//! anchor issue 4 states its encode target against.
//!
//! Both rows build the same layout: the datasets' small fixed-size structs (`Address`, `Vector3`,
//! `Triangle`, `Abilities`, `Vector2f`, `Guidance`, `Transform`, tuples and arrays) are FlatBuffers structs,
//! everything else tables. Both encode into a reused builder and copy the finished bytes into the rig's
//! buffer. The official row's `deserialize` is `flatbuffers::root` (the verifier) plus reading every field
//! into the same owned Rust values serde produces — the like-for-like counterpart of a serde decode.

use std::cell::RefCell;
use std::sync::LazyLock;

use criterion::{Criterion, SamplingMode, Throughput};
use flatbuf_oracle::flatbuffers::{self, FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{Options, Serializer};

use super::datasets::{log, mesh, minecraft, mk48};
use super::{Codec, Datasets};

/// The structs of the four datasets.
pub static OPTIONS: LazyLock<Options> = LazyLock::new(|| {
    ["Address", "Vector3", "Triangle", "Abilities", "Vector2f", "Guidance", "Transform"]
        .into_iter()
        .fold(Options::new(), Options::inline_struct)
});

thread_local! {
    static LITE: RefCell<Serializer> = RefCell::new(Serializer::with_options(OPTIONS.clone()));
    static OFFICIAL: RefCell<FlatBufferBuilder<'static>> = RefCell::new(FlatBufferBuilder::with_capacity(1 << 20));
}

/// serde-flatbuf-lite through serde, with a reused `Serializer`.
pub struct FlatbufLite;

impl Codec for FlatbufLite {
    const NAME: &'static str = "serde-flatbuf-lite";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        LITE.with_borrow_mut(|ser| buf.extend_from_slice(ser.serialize(value).expect("serde-flatbuf-lite encode")));
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        OPTIONS.from_slice(bytes).expect("serde-flatbuf-lite decode")
    }
}

/// The official row's name.
pub const OFFICIAL_ROW: &str = "flatbuffers";

/// Encodes a dataset with the official builder into `buf`.
pub fn official_encode<T>(value: &T, buf: &mut Vec<u8>, build: fn(&mut FlatBufferBuilder<'static>, &T)) {
    OFFICIAL.with_borrow_mut(|b| {
        b.reset();
        build(b, value);
        buf.extend_from_slice(b.finished_data());
    });
}

// ------------------------------------------------------------------------------------------------
// log

use flatbuf_oracle::log::bench::log as fl;

/// Builds the `log` dataset with the official builder and flatc-generated code.
pub fn build_logs(b: &mut FlatBufferBuilder<'static>, logs: &log::Logs) {
    let offsets: Vec<_> = logs
        .logs
        .iter()
        .map(|l| {
            let identity = b.create_string(&l.identity);
            let userid = b.create_string(&l.userid);
            let date = b.create_string(&l.date);
            let request = b.create_string(&l.request);
            let a = &l.address;
            fl::Log::create(
                b,
                &fl::LogArgs {
                    address: Some(&fl::Address::new(a.x0, a.x1, a.x2, a.x3)),
                    identity: Some(identity),
                    userid: Some(userid),
                    date: Some(date),
                    request: Some(request),
                    code: l.code,
                    size: l.size,
                },
            )
        })
        .collect();
    let logs = b.create_vector(&offsets);
    let root = fl::Logs::create(b, &fl::LogsArgs { logs: Some(logs) });
    b.finish(root, None);
}

fn address(a: &fl::Address) -> log::Address {
    log::Address { x0: a.x0(), x1: a.x1(), x2: a.x2(), x3: a.x3() }
}

fn read_logs(bytes: &[u8]) -> log::Logs {
    let root = flatbuffers::root::<fl::Logs<'_>>(bytes).expect("official verifier");
    let logs = root
        .logs()
        .unwrap()
        .iter()
        .map(|l| log::Log {
            address: address(l.address().unwrap()),
            identity: l.identity().unwrap().to_owned(),
            userid: l.userid().unwrap().to_owned(),
            date: l.date().unwrap().to_owned(),
            request: l.request().unwrap().to_owned(),
            code: l.code(),
            size: l.size(),
        })
        .collect();
    log::Logs { logs }
}

fn read_logs_borrowed(bytes: &[u8]) -> log::BorrowedLogs<'_> {
    let root = flatbuffers::root::<fl::Logs<'_>>(bytes).expect("official verifier");
    let logs = root
        .logs()
        .unwrap()
        .iter()
        .map(|l| log::BorrowedLog {
            address: address(l.address().unwrap()),
            identity: l.identity().unwrap(),
            userid: l.userid().unwrap(),
            date: l.date().unwrap(),
            request: l.request().unwrap(),
            code: l.code(),
            size: l.size(),
        })
        .collect();
    log::BorrowedLogs { logs }
}

// ------------------------------------------------------------------------------------------------
// mesh

use flatbuf_oracle::mesh::bench::mesh as fm;

fn v3(v: &mesh::Vector3) -> fm::Vector3 {
    fm::Vector3::new(v.x, v.y, v.z)
}

/// Builds the `mesh` dataset with the official builder and flatc-generated code.
pub fn build_mesh(b: &mut FlatBufferBuilder<'static>, m: &mesh::Mesh) {
    b.start_vector::<fm::Triangle>(m.triangles.len());
    for t in m.triangles.iter().rev() {
        b.push(fm::Triangle::new(&v3(&t.v0), &v3(&t.v1), &v3(&t.v2), &v3(&t.normal)));
    }
    let triangles = b.end_vector(m.triangles.len());
    let root = fm::Mesh::create(b, &fm::MeshArgs { triangles: Some(triangles) });
    b.finish(root, None);
}

fn read_mesh(bytes: &[u8]) -> mesh::Mesh {
    let v = |v: &fm::Vector3| mesh::Vector3 { x: v.x(), y: v.y(), z: v.z() };
    let root = flatbuffers::root::<fm::Mesh<'_>>(bytes).expect("official verifier");
    let triangles = root
        .triangles()
        .unwrap()
        .iter()
        .map(|t| mesh::Triangle { v0: v(t.v0()), v1: v(t.v1()), v2: v(t.v2()), normal: v(t.normal()) })
        .collect();
    mesh::Mesh { triangles }
}

// ------------------------------------------------------------------------------------------------
// minecraft_savedata

use flatbuf_oracle::minecraft::bench::minecraft as fc;

fn game_type(g: minecraft::GameType) -> fc::GameType {
    match g {
        minecraft::GameType::Survival => fc::GameType::Survival,
        minecraft::GameType::Creative => fc::GameType::Creative,
        minecraft::GameType::Adventure => fc::GameType::Adventure,
        minecraft::GameType::Spectator => fc::GameType::Spectator,
    }
}

fn vec3d(v: &(f64, f64, f64)) -> fc::Vec3d {
    fc::Vec3d::new(v.0, v.1, v.2)
}

fn strings<'a>(
    b: &mut FlatBufferBuilder<'a>,
    items: &[String],
) -> WIPOffset<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<&'a str>>> {
    let offsets: Vec<_> = items.iter().map(|s| b.create_string(s)).collect();
    b.create_vector(&offsets)
}

fn build_item<'a>(b: &mut FlatBufferBuilder<'a>, item: &minecraft::Item) -> WIPOffset<fc::Item<'a>> {
    let id = b.create_string(&item.id);
    fc::Item::create(b, &fc::ItemArgs { count: item.count, slot: item.slot, id: Some(id) })
}

fn build_items<'a>(
    b: &mut FlatBufferBuilder<'a>,
    items: &[minecraft::Item],
) -> WIPOffset<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fc::Item<'a>>>> {
    let offsets: Vec<_> = items.iter().map(|i| build_item(b, i)).collect();
    b.create_vector(&offsets)
}

fn build_entity<'a>(b: &mut FlatBufferBuilder<'a>, e: &minecraft::Entity) -> WIPOffset<fc::Entity<'a>> {
    let id = b.create_string(&e.id);
    let custom_name = e.custom_name.as_deref().map(|n| b.create_string(n));
    let tags = strings(b, &e.tags);
    let passengers: Vec<_> = e.passengers.iter().map(|p| build_entity(b, p)).collect();
    let passengers = b.create_vector(&passengers);
    fc::Entity::create(
        b,
        &fc::EntityArgs {
            id: Some(id),
            pos: Some(&vec3d(&e.pos)),
            motion: Some(&vec3d(&e.motion)),
            rotation: Some(&fc::Vec2f::new(e.rotation.0, e.rotation.1)),
            fall_distance: e.fall_distance,
            fire: e.fire,
            air: e.air,
            on_ground: e.on_ground,
            no_gravity: e.no_gravity,
            invulnerable: e.invulnerable,
            portal_cooldown: e.portal_cooldown,
            uuid: Some(&fc::Uuid::new(&e.uuid)),
            custom_name,
            custom_name_visible: e.custom_name_visible,
            silent: e.silent,
            glowing: e.glowing,
            tags: Some(tags),
            passengers: Some(passengers),
        },
    )
}

fn build_players(b: &mut FlatBufferBuilder<'static>, players: &minecraft::Players) {
    let offsets: Vec<_> = players
        .players
        .iter()
        .map(|p| {
            let dimension = b.create_string(&p.dimension);
            let selected_item = build_item(b, &p.selected_item);
            let spawn_dimension = p.spawn_dimension.as_deref().map(|s| b.create_string(s));
            let inventory = build_items(b, &p.inventory);
            let ender_items = build_items(b, &p.ender_items);
            let root_vehicle = p.root_vehicle.as_ref().map(|v| {
                let entity = build_entity(b, &v.entity);
                fc::Vehicle::create(b, &fc::VehicleArgs { uuid: Some(&fc::Uuid::new(&v.uuid)), entity: Some(entity) })
            });
            let shoulder_entity_left = p.shoulder_entity_left.as_ref().map(|e| build_entity(b, e));
            let shoulder_entity_right = p.shoulder_entity_right.as_ref().map(|e| build_entity(b, e));
            let r = &p.recipe_book;
            let recipes = strings(b, &r.recipes);
            let to_be_displayed = strings(b, &r.to_be_displayed);
            let recipe_book = fc::RecipeBook::create(
                b,
                &fc::RecipeBookArgs {
                    recipes: Some(recipes),
                    to_be_displayed: Some(to_be_displayed),
                    is_filtering_craftable: r.is_filtering_craftable,
                    is_gui_open: r.is_gui_open,
                    is_furnace_filtering_craftable: r.is_furnace_filtering_craftable,
                    is_furnace_gui_open: r.is_furnace_gui_open,
                    is_blasting_furnace_filtering_craftable: r.is_blasting_furnace_filtering_craftable,
                    is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open,
                    is_smoker_filtering_craftable: r.is_smoker_filtering_craftable,
                    is_smoker_gui_open: r.is_smoker_gui_open,
                },
            );
            let a = &p.abilities;
            let abilities = fc::Abilities::new(
                a.walk_speed,
                a.fly_speed,
                a.may_fly,
                a.flying,
                a.invulnerable,
                a.may_build,
                a.instabuild,
            );
            let nether = p.entered_nether_position.as_ref().map(vec3d);
            fc::Player::create(
                b,
                &fc::PlayerArgs {
                    game_type: game_type(p.game_type),
                    previous_game_type: game_type(p.previous_game_type),
                    score: p.score,
                    dimension: Some(dimension),
                    selected_item_slot: p.selected_item_slot,
                    selected_item: Some(selected_item),
                    spawn_dimension,
                    spawn_x: p.spawn_x,
                    spawn_y: p.spawn_y,
                    spawn_z: p.spawn_z,
                    spawn_forced: p.spawn_forced,
                    sleep_timer: p.sleep_timer,
                    food_exhaustion_level: p.food_exhaustion_level,
                    food_saturation_level: p.food_saturation_level,
                    food_tick_timer: p.food_tick_timer,
                    xp_level: p.xp_level,
                    xp_p: p.xp_p,
                    xp_total: p.xp_total,
                    xp_seed: p.xp_seed,
                    inventory: Some(inventory),
                    ender_items: Some(ender_items),
                    abilities: Some(&abilities),
                    entered_nether_position: nether.as_ref(),
                    root_vehicle,
                    shoulder_entity_left,
                    shoulder_entity_right,
                    seen_credits: p.seen_credits,
                    recipe_book: Some(recipe_book),
                },
            )
        })
        .collect();
    let players = b.create_vector(&offsets);
    let root = fc::Players::create(b, &fc::PlayersArgs { players: Some(players) });
    b.finish(root, None);
}

fn read_game_type(g: fc::GameType) -> minecraft::GameType {
    match g {
        fc::GameType::Survival => minecraft::GameType::Survival,
        fc::GameType::Creative => minecraft::GameType::Creative,
        fc::GameType::Adventure => minecraft::GameType::Adventure,
        _ => minecraft::GameType::Spectator,
    }
}

fn read_vec3d(v: &fc::Vec3d) -> (f64, f64, f64) {
    (v.x(), v.y(), v.z())
}

fn read_strings(v: Option<flatbuffers::Vector<'_, flatbuffers::ForwardsUOffset<&str>>>) -> Vec<String> {
    v.unwrap().iter().map(str::to_owned).collect()
}

fn read_item(i: fc::Item<'_>) -> minecraft::Item {
    minecraft::Item { count: i.count(), slot: i.slot(), id: i.id().unwrap().to_owned() }
}

fn read_items(v: Option<flatbuffers::Vector<'_, flatbuffers::ForwardsUOffset<fc::Item<'_>>>>) -> Vec<minecraft::Item> {
    v.unwrap().iter().map(read_item).collect()
}

fn read_uuid(u: &fc::Uuid) -> [u32; 4] {
    let v = u.v();
    [v.get(0), v.get(1), v.get(2), v.get(3)]
}

fn read_entity(e: fc::Entity<'_>) -> minecraft::Entity {
    let rotation = e.rotation().unwrap();
    minecraft::Entity {
        id: e.id().unwrap().to_owned(),
        pos: read_vec3d(e.pos().unwrap()),
        motion: read_vec3d(e.motion().unwrap()),
        rotation: (rotation.x(), rotation.y()),
        fall_distance: e.fall_distance(),
        fire: e.fire(),
        air: e.air(),
        on_ground: e.on_ground(),
        no_gravity: e.no_gravity(),
        invulnerable: e.invulnerable(),
        portal_cooldown: e.portal_cooldown(),
        uuid: read_uuid(e.uuid().unwrap()),
        custom_name: e.custom_name().map(str::to_owned),
        custom_name_visible: e.custom_name_visible(),
        silent: e.silent(),
        glowing: e.glowing(),
        tags: read_strings(e.tags()),
        passengers: e.passengers().unwrap().iter().map(read_entity).collect(),
    }
}

fn read_players(bytes: &[u8]) -> minecraft::Players {
    let root = flatbuffers::root::<fc::Players<'_>>(bytes).expect("official verifier");
    let players = root
        .players()
        .unwrap()
        .iter()
        .map(|p| {
            let a = p.abilities().unwrap();
            let r = p.recipe_book().unwrap();
            minecraft::Player {
                game_type: read_game_type(p.game_type()),
                previous_game_type: read_game_type(p.previous_game_type()),
                score: p.score(),
                dimension: p.dimension().unwrap().to_owned(),
                selected_item_slot: p.selected_item_slot(),
                selected_item: read_item(p.selected_item().unwrap()),
                spawn_dimension: p.spawn_dimension().map(str::to_owned),
                spawn_x: p.spawn_x(),
                spawn_y: p.spawn_y(),
                spawn_z: p.spawn_z(),
                spawn_forced: p.spawn_forced(),
                sleep_timer: p.sleep_timer(),
                food_exhaustion_level: p.food_exhaustion_level(),
                food_saturation_level: p.food_saturation_level(),
                food_tick_timer: p.food_tick_timer(),
                xp_level: p.xp_level(),
                xp_p: p.xp_p(),
                xp_total: p.xp_total(),
                xp_seed: p.xp_seed(),
                inventory: read_items(p.inventory()),
                ender_items: read_items(p.ender_items()),
                abilities: minecraft::Abilities {
                    walk_speed: a.walk_speed(),
                    fly_speed: a.fly_speed(),
                    may_fly: a.may_fly(),
                    flying: a.flying(),
                    invulnerable: a.invulnerable(),
                    may_build: a.may_build(),
                    instabuild: a.instabuild(),
                },
                entered_nether_position: p.entered_nether_position().map(read_vec3d),
                root_vehicle: p.root_vehicle().map(|v| minecraft::Vehicle {
                    uuid: read_uuid(v.uuid().unwrap()),
                    entity: read_entity(v.entity().unwrap()),
                }),
                shoulder_entity_left: p.shoulder_entity_left().map(read_entity),
                shoulder_entity_right: p.shoulder_entity_right().map(read_entity),
                seen_credits: p.seen_credits(),
                recipe_book: minecraft::RecipeBook {
                    recipes: read_strings(r.recipes()),
                    to_be_displayed: read_strings(r.to_be_displayed()),
                    is_filtering_craftable: r.is_filtering_craftable(),
                    is_gui_open: r.is_gui_open(),
                    is_furnace_filtering_craftable: r.is_furnace_filtering_craftable(),
                    is_furnace_gui_open: r.is_furnace_gui_open(),
                    is_blasting_furnace_filtering_craftable: r.is_blasting_furnace_filtering_craftable(),
                    is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open(),
                    is_smoker_filtering_craftable: r.is_smoker_filtering_craftable(),
                    is_smoker_gui_open: r.is_smoker_gui_open(),
                },
            }
        })
        .collect();
    minecraft::Players { players }
}

// ------------------------------------------------------------------------------------------------
// mk48

use flatbuf_oracle::mk48::bench::mk_48 as fk;

fn build_updates(b: &mut FlatBufferBuilder<'static>, updates: &mk48::Updates) {
    let offsets: Vec<_> = updates
        .updates
        .iter()
        .map(|u| {
            let contacts: Vec<_> = u
                .contacts
                .iter()
                .map(|c| {
                    let reloads = b.create_vector(&c.reloads);
                    let turret_angles = b.create_vector(&c.turret_angles);
                    let g = &c.guidance;
                    let t = &c.transform;
                    fk::Contact::create(
                        b,
                        &fk::ContactArgs {
                            damage: c.damage,
                            entity_id: c.entity_id,
                            entity_type: c.entity_type.map(|e| fk::EntityType(e as u8)),
                            guidance: Some(&fk::Guidance::new(
                                g.direction_target,
                                g.altitude_target,
                                g.active,
                                g.velocity_target,
                            )),
                            player_id: c.player_id,
                            reloads: Some(reloads),
                            transform: Some(&fk::Transform::new(
                                t.altitude,
                                t.angle,
                                &fk::Vector2f::new(t.position.x, t.position.y),
                                t.velocity,
                            )),
                            turret_angles: Some(turret_angles),
                        },
                    )
                })
                .collect();
            let contacts = b.create_vector(&contacts);
            let terrain: Vec<_> = u
                .terrain_updates
                .iter()
                .map(|t| {
                    let data = b.create_vector(&t.data);
                    fk::TerrainUpdate::create(
                        b,
                        &fk::TerrainUpdateArgs {
                            chunk_id: Some(&fk::ChunkId::new(t.chunk_id.0, t.chunk_id.1)),
                            data: Some(data),
                        },
                    )
                })
                .collect();
            let terrain_updates = b.create_vector(&terrain);
            fk::Update::create(
                b,
                &fk::UpdateArgs {
                    contacts: Some(contacts),
                    score: u.score,
                    world_radius: u.world_radius,
                    terrain_updates: Some(terrain_updates),
                },
            )
        })
        .collect();
    let updates = b.create_vector(&offsets);
    let root = fk::Updates::create(b, &fk::UpdatesArgs { updates: Some(updates) });
    b.finish(root, None);
}

fn entity_type(e: fk::EntityType) -> mk48::EntityType {
    // The generated enum and the Rust enum list the variants in the same order.
    mk48::EntityType::deserialize(serde::de::value::U32Deserializer::<serde::de::value::Error>::new(u32::from(e.0)))
        .expect("a known entity type")
}

fn read_updates(bytes: &[u8]) -> mk48::Updates {
    let root = flatbuffers::root::<fk::Updates<'_>>(bytes).expect("official verifier");
    let updates = root
        .updates()
        .unwrap()
        .iter()
        .map(|u| mk48::Update {
            contacts: u
                .contacts()
                .unwrap()
                .iter()
                .map(|c| {
                    let g = c.guidance().unwrap();
                    let t = c.transform().unwrap();
                    mk48::Contact {
                        damage: c.damage(),
                        entity_id: c.entity_id(),
                        entity_type: c.entity_type().map(entity_type),
                        guidance: mk48::Guidance {
                            direction_target: g.direction_target(),
                            altitude_target: g.altitude_target(),
                            active: g.active(),
                            velocity_target: g.velocity_target(),
                        },
                        player_id: c.player_id(),
                        reloads: c.reloads().unwrap().iter().collect(),
                        transform: mk48::Transform {
                            altitude: t.altitude(),
                            angle: t.angle(),
                            position: mk48::Vector2f { x: t.position().x(), y: t.position().y() },
                            velocity: t.velocity(),
                        },
                        turret_angles: c.turret_angles().unwrap().iter().collect(),
                    }
                })
                .collect(),
            score: u.score(),
            world_radius: u.world_radius(),
            terrain_updates: u
                .terrain_updates()
                .unwrap()
                .iter()
                .map(|t| {
                    let id = t.chunk_id().unwrap();
                    mk48::TerrainUpdate { chunk_id: (id.x(), id.y()), data: t.data().unwrap().bytes().to_vec() }
                })
                .collect(),
        })
        .collect();
    mk48::Updates { updates }
}

// ------------------------------------------------------------------------------------------------
// rows

/// Encodes with the official builder and reads back; panics unless the value round-trips.
fn official_round_trip<T: PartialEq + std::fmt::Debug>(
    dataset: &str,
    value: &T,
    build: fn(&mut FlatBufferBuilder<'static>, &T),
    read: fn(&[u8]) -> T,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    official_encode(value, &mut bytes, build);
    assert!(read(&bytes) == *value, "the official builder row does not round-trip the {dataset} dataset");
    bytes
}

/// Checks every official-builder cell round-trips (also run by `tests/bench_rows.rs`).
pub fn assert_official_rows(data: &Datasets) {
    official_round_trip("log", &data.log, build_logs, read_logs);
    let bytes = official_round_trip("log", &data.log, build_logs, read_logs);
    assert!(data.log.eq_borrowed(&read_logs_borrowed(&bytes)), "official borrowed log read differs");
    official_round_trip("mesh", &data.mesh, build_mesh, read_mesh);
    official_round_trip("minecraft_savedata", &data.minecraft, build_players, read_players);
    official_round_trip("mk48", &data.mk48, build_updates, read_updates);
}

fn bench_official<T: PartialEq + std::fmt::Debug>(
    c: &mut Criterion,
    dataset: &str,
    value: &T,
    build: fn(&mut FlatBufferBuilder<'static>, &T),
    read: fn(&[u8]) -> T,
) -> Vec<u8> {
    let bytes = official_round_trip(dataset, value, build, read);
    super::record_size(dataset, OFFICIAL_ROW, bytes.len());
    let mut group = c.benchmark_group(format!("{dataset}/serialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    let mut buf = Vec::with_capacity(bytes.len());
    group.bench_function(OFFICIAL_ROW, |b| {
        b.iter(|| {
            buf.clear();
            official_encode(std::hint::black_box(value), &mut buf, build);
            std::hint::black_box(buf.len());
        })
    });
    group.finish();
    let mut group = c.benchmark_group(format!("{dataset}/deserialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(OFFICIAL_ROW, |b| b.iter(|| std::hint::black_box(read(std::hint::black_box(&bytes)))));
    group.finish();
    bytes
}

/// The official builder rows; returns the row names it added.
pub fn bench(c: &mut Criterion, data: &Datasets) -> Vec<&'static str> {
    let bytes = bench_official(c, "log", &data.log, build_logs, read_logs);
    let mut group = c.benchmark_group("log/borrowed");
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(OFFICIAL_ROW, |b| {
        b.iter(|| std::hint::black_box(read_logs_borrowed(std::hint::black_box(&bytes))))
    });
    group.finish();
    bench_official(c, "mesh", &data.mesh, build_mesh, read_mesh);
    bench_official(c, "minecraft_savedata", &data.minecraft, build_players, read_players);
    bench_official(c, "mk48", &data.mk48, build_updates, read_updates);
    vec![OFFICIAL_ROW]
}

/// Runs one log or mesh cell `n` times for instruction counts (`examples/flatbuf_prof.rs`):
/// `FLATBUF_PROFILE=<log|mesh>/<serialize|deserialize|borrowed>/<serde-flatbuf-lite|flatbuffers|postcard>:<n>`.
/// Returns false when the variable is not set.
pub fn profile(data: &Datasets) -> bool {
    let Some((dataset, op, row, n)) = super::profile_request("FLATBUF_PROFILE") else { return false };
    let (dataset, op, row) = (dataset.as_str(), op.as_str(), row.as_str());
    let mut bytes = Vec::new();
    match (dataset, row) {
        ("log", OFFICIAL_ROW) => official_encode(&data.log, &mut bytes, build_logs),
        ("mesh", OFFICIAL_ROW) => official_encode(&data.mesh, &mut bytes, build_mesh),
        ("log", "postcard") => bytes = postcard::to_allocvec(&data.log).expect("postcard"),
        ("mesh", "postcard") => bytes = postcard::to_allocvec(&data.mesh).expect("postcard"),
        ("log", _) => FlatbufLite::encode(&data.log, &mut bytes),
        ("mesh", _) => FlatbufLite::encode(&data.mesh, &mut bytes),
        _ => panic!("FLATBUF_PROFILE: unknown dataset {dataset}"),
    }
    profile_loop(data, &bytes, dataset, op, row, n);
    true
}

/// The measured part of [`profile`] (callgrind: `--toggle-collect='*profile_loop*'`).
#[inline(never)]
fn profile_loop(data: &Datasets, bytes: &[u8], dataset: &str, op: &str, row: &str, n: u32) {
    use std::hint::black_box;
    let mut out = Vec::with_capacity(bytes.len());
    for _ in 0..n {
        out.clear();
        match (dataset, op, row) {
            ("log", "serialize", OFFICIAL_ROW) => official_encode(black_box(&data.log), &mut out, build_logs),
            ("mesh", "serialize", OFFICIAL_ROW) => official_encode(black_box(&data.mesh), &mut out, build_mesh),
            ("log", "serialize", "postcard") => out = postcard::to_extend(black_box(&data.log), out).unwrap(),
            ("mesh", "serialize", "postcard") => out = postcard::to_extend(black_box(&data.mesh), out).unwrap(),
            ("log", "serialize", _) => FlatbufLite::encode(black_box(&data.log), &mut out),
            ("mesh", "serialize", _) => FlatbufLite::encode(black_box(&data.mesh), &mut out),
            ("log", "deserialize", OFFICIAL_ROW) => drop(black_box(read_logs(black_box(bytes)))),
            ("log", "borrowed", OFFICIAL_ROW) => drop(black_box(read_logs_borrowed(black_box(bytes)))),
            ("mesh", "deserialize", OFFICIAL_ROW) => drop(black_box(read_mesh(black_box(bytes)))),
            ("log", "deserialize", "postcard") => {
                drop(black_box(postcard::from_bytes::<log::Logs>(black_box(bytes)).unwrap()))
            }
            ("log", "borrowed", "postcard") => {
                drop(black_box(postcard::from_bytes::<log::BorrowedLogs<'_>>(black_box(bytes)).unwrap()))
            }
            ("mesh", "deserialize", "postcard") => {
                drop(black_box(postcard::from_bytes::<mesh::Mesh>(black_box(bytes)).unwrap()))
            }
            ("log", "deserialize", _) => drop(black_box(FlatbufLite::decode::<log::Logs>(black_box(bytes)))),
            ("log", "borrowed", _) => drop(black_box(FlatbufLite::decode::<log::BorrowedLogs<'_>>(black_box(bytes)))),
            ("mesh", "deserialize", _) => drop(black_box(FlatbufLite::decode::<mesh::Mesh>(black_box(bytes)))),
            _ => panic!("FLATBUF_PROFILE: unknown cell {dataset}/{op}/{row}"),
        }
        black_box(out.len());
    }
}
