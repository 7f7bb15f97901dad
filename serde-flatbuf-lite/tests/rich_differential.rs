//! Issue 13, deliverable 2: a randomized differential against the official `flatbuffers` crate (25.12.19) on
//! the rich schema (`testkit/flatbuf-oracle/schemas/rich.fbs`), both directions:
//!
//! - lite encodes a random `Hero` with each of lite's 8 byte-changing option combinations (omit_zero_scalars,
//!   size prefix, file identifier), through `to_vec` and through a reused `Serializer`; the official verifier
//!   (default `VerifierOptions`) accepts the buffer and the generated accessors read the value back field by
//!   field; lite reads it back too (`from_slice` and `from_reader`).
//! - the official builder (generated `XArgs` + `create`) writes the value with one of 32 builder
//!   combinations (force_defaults, empty vectors left out, shared strings, identifier, size prefix); lite
//!   decodes it equal.
//! - schema evolution: random `PlayerV1`/`PlayerV2` written by both sides, read by the other version on both
//!   sides.
//! - unions without `UnionType` placeholders (`HeroP`, `PlayerV2P` in `common/rich_plain.rs`): lite writes the
//!   same bytes as for the placeholder form and reads both sides' buffers equal; the evolution properties run
//!   with them too.
//!
//! Values include absent fields, schema defaults, zeros where the default is not zero, empty vectors and
//! maps, every union member (and `NONE`), companions two deep, and floats that are NaN, ±0, ±∞ and
//! subnormal. Values are compared through their `Debug` form (`-0.0` ≠ `0.0`, NaN = NaN).
//!
//! `RICH_DIFF_CASES` sets the case count of each property (default 512: 4 × 512 generated values, 512 × 8
//! lite encodings, ~3 s with the workspace's test profile on the shared 2-core machine; 5,000 each ran
//! clean in ~29 s).

mod common {
    #![allow(dead_code)]
    pub mod rich;
    pub mod rich_plain;
}

use std::collections::BTreeMap;
use std::fmt;

use common::rich::*;
use common::rich_plain::*;
use flatbuf_oracle::rich::rich::game as fb;
use proptest::collection::{btree_map, vec};
use proptest::option::of;
use proptest::prelude::*;
use serde_flatbuf_lite::{Deprecated, Serializer, UnionType};

// ------------------------------------------------------------------------------------------------
// strategies

/// Any `f32` bit pattern class: normal, subnormal, ±0, ±∞, NaN.
fn f32s() -> BoxedStrategy<f32> {
    prop_oneof![
        4 => any::<f32>(),
        1 => prop_oneof![Just(0.0), Just(-0.0), Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)],
        1 => Just(f32::from_bits(1)),
    ]
    .boxed()
}

fn f64s() -> BoxedStrategy<f64> {
    prop_oneof![
        4 => any::<f64>(),
        1 => prop_oneof![Just(0.0), Just(-0.0), Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
        1 => Just(f64::from_bits(1)),
    ]
    .boxed()
}

/// A float table field whose schema default is 0: the official builder compares with `==` and leaves `-0.0`
/// out (every reader then sees `+0.0`; `rich_schema.rs` pins that case), so `-0.0` is not generated there.
fn f32_zero_default() -> BoxedStrategy<f32> {
    f32s().prop_map(|f| if f == 0.0 { 0.0 } else { f }).boxed()
}

/// A value or the given schema default, half and half: defaults are what the official builder leaves out.
fn or_default<T: Clone + fmt::Debug + 'static>(s: impl Strategy<Value = T> + 'static, default: T) -> BoxedStrategy<T> {
    prop_oneof![s, Just(default)].boxed()
}

fn strings() -> BoxedStrategy<String> {
    prop_oneof![Just(String::new()), "\\PC{0,12}"].boxed()
}

fn color() -> BoxedStrategy<Color> {
    prop_oneof![Just(Color::Red), Just(Color::Green), Just(Color::Blue)].boxed()
}

fn rarity() -> BoxedStrategy<Rarity> {
    proptest::sample::select(Rarity::ALL).boxed()
}

fn layer() -> BoxedStrategy<Layer> {
    proptest::sample::select(Layer::ALL).boxed()
}

fn epoch() -> BoxedStrategy<Epoch> {
    proptest::sample::select(Epoch::ALL).boxed()
}

fn vec2() -> BoxedStrategy<Vec2> {
    (f32s(), f32s()).prop_map(|(x, y)| Vec2 { x, y }).boxed()
}

fn vec3() -> BoxedStrategy<Vec3> {
    (f32s(), f32s(), f32s()).prop_map(|(x, y, z)| Vec3 { x, y, z }).boxed()
}

fn bounds() -> BoxedStrategy<Bounds> {
    (vec3(), vec3(), layer()).prop_map(|(min, max, layer)| Bounds { min, max, layer }).boxed()
}

fn slots() -> BoxedStrategy<Slots> {
    (any::<i8>(), any::<[u16; 3]>(), [f64s(), f64s()], [vec2(), vec2()], [color(), color()])
        .prop_map(|(tag, ids, weights, corners, colors)| Slots { tag, ids, weights, corners, colors })
        .boxed()
}

fn weapon() -> BoxedStrategy<Weapon> {
    (of(strings()), or_default(any::<i16>(), 10), or_default(f32_zero_default(), 0.0))
        .prop_map(|(name, damage, range)| Weapon { name, damage, range })
        .boxed()
}

fn spell() -> BoxedStrategy<Spell> {
    (of(strings()), any::<u16>(), rarity(), of(vec(vec2(), 0..4)))
        .prop_map(|(name, mana_cost, school, targets)| Spell { name, mana_cost, school, targets })
        .boxed()
}

fn potion() -> BoxedStrategy<Potion> {
    (or_default(any::<i32>(), 25), or_default(any::<u8>(), 1)).prop_map(|(heal, uses)| Potion { heal, uses }).boxed()
}

fn equipment() -> BoxedStrategy<Option<Equipment>> {
    of(prop_oneof![
        weapon().prop_map(Equipment::Weapon),
        spell().prop_map(Equipment::Spell),
        potion().prop_map(Equipment::Potion),
        weapon().prop_map(Equipment::Offhand),
    ])
    .boxed()
}

/// An item without its id (the key comes from the map generating it).
fn item_body() -> BoxedStrategy<(Option<String>, u16, Rarity)> {
    (of(strings()), or_default(any::<u16>(), 1), rarity()).boxed()
}

fn item(id: u32, (name, count, rarity): (Option<String>, u16, Rarity)) -> Item {
    Item { id, name, count, rarity }
}

fn stats() -> BoxedStrategy<Stats> {
    (
        or_default(any::<i16>(), 100),
        or_default(any::<i16>(), 150),
        or_default(f32s(), 1.5),
        or_default(any::<bool>(), true),
        any::<u16>(),
        or_default(f64s(), -0.25),
    )
        .prop_map(|(hp, mana, speed, alive, armor, luck)| Stats { hp, mana, speed, alive, armor, luck })
        .boxed()
}

fn hero_flat() -> BoxedStrategy<Hero> {
    let structs = (of(strings()), of(vec3()), of(bounds()), of(slots()), of(stats())).boxed();
    let scalars = (
        or_default(any::<u8>(), 1),
        any::<u64>(),
        or_default(color(), Color::Blue),
        or_default(rarity(), Rarity::Rare),
        or_default(layer(), Layer::Air),
        epoch(),
        or_default(f32s(), 36.5),
    )
        .boxed();
    let optionals = (of(any::<i16>()), of(any::<bool>()), of(f64s()), of(color())).boxed();
    let vectors = (
        of(vec(any::<u8>(), 0..12)),
        of(vec(strings(), 0..4)),
        of(vec(vec3(), 0..4)),
        vec(bounds(), 0..3),
        of(vec(any::<bool>(), 0..6)),
        of(vec(any::<i16>(), 0..6)),
        of(vec(f64s(), 0..4)),
        of(vec(any::<i64>(), 0..4)),
        of(vec(layer(), 0..4)),
        of(vec(color(), 0..4)),
    )
        .boxed();
    let tables = (
        of(vec(weapon(), 0..3)),
        of(btree_map(any::<u32>(), item_body(), 0..4)),
        of(btree_map(strings(), any::<i32>(), 0..4)),
        btree_map(any::<u16>(), (any::<u32>(), item_body()), 0..3),
        equipment(),
        equipment(),
    )
        .boxed();
    (structs, scalars, optionals, vectors, tables)
        .prop_map(|(structs, scalars, optionals, vectors, tables)| {
            let (name, pos, bounds, slots, stats) = structs;
            let (level, xp, color, rarity, layer, epoch, temperature) = scalars;
            let (hp_opt, shield_opt, ratio_opt, color_opt) = optionals;
            let (inventory, tags, path, bounds_list, flags, deltas, scores, big_ids, layers, colors) = vectors;
            let (weapons, items, stat_map, slot_map, equipped, offhand) = tables;
            Hero {
                name,
                pos,
                bounds,
                slots,
                stats,
                level,
                xp,
                color,
                rarity,
                layer,
                epoch,
                hp_opt,
                shield_opt,
                ratio_opt,
                color_opt,
                old_score: Deprecated,
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
                // Sorted by id with unique ids: a keyed vector.
                items: items.map(|m: BTreeMap<u32, _>| m.into_iter().map(|(id, body)| item(id, body)).collect()),
                stat_map,
                slot_map: slot_map.into_iter().map(|(k, (id, body))| (k, item(id, body))).collect(),
                equipped_type: UnionType,
                equipped,
                offhand_type: UnionType,
                offhand,
                companion: None,
                temperature,
            }
        })
        .boxed()
}

fn hero() -> BoxedStrategy<Hero> {
    hero_flat()
        .prop_recursive(2, 3, 1, |inner| {
            (hero_flat(), inner).prop_map(|(mut h, c)| {
                h.companion = Some(Box::new(c));
                h
            })
        })
        .boxed()
}

fn player_v1() -> BoxedStrategy<PlayerV1> {
    (any::<u32>(), of(strings()), or_default(any::<i16>(), 100), any::<i32>())
        .prop_map(|(id, name, hp, legacy)| PlayerV1 { id, name, hp, legacy })
        .boxed()
}

fn player_v2() -> BoxedStrategy<PlayerV2> {
    (
        (any::<u32>(), of(strings()), or_default(any::<i16>(), 100), of(strings())),
        (or_default(any::<i16>(), 50), or_default(rarity(), Rarity::Epic), of(vec3()), of(vec(strings(), 0..3))),
        (equipment(), of(stats()), of(any::<u32>())),
    )
        .prop_map(|((id, name, hp, title), (mana, rank, pos, guilds), (pet, stats, opt_gold))| PlayerV2 {
            id,
            name,
            hp,
            legacy: Deprecated,
            title,
            mana,
            rank,
            pos,
            guilds,
            pet_type: UnionType,
            pet,
            stats,
            opt_gold,
        })
        .boxed()
}

fn cases() -> u32 {
    std::env::var("RICH_DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
}

// ------------------------------------------------------------------------------------------------
// properties

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 2048, ..ProptestConfig::default() })]

    /// lite → official verifier + accessors, with every byte-changing lite option.
    #[test]
    fn lite_writes_official_reads(h in hero()) {
        for (label, opts) in lite_options() {
            let bytes = opts.to_vec(&h).map_err(|e| TestCaseError::fail(format!("lite encode ({label}): {e}")))?;
            let prefixed = label.contains("size_prefixed=true");
            let official = hero_of(official_root(&bytes, prefixed).map_err(|e| TestCaseError::fail(format!("official verifier ({label}): {e}")))?);
            prop_assert!(same(&official, &h), "official read differs ({label}):\n{official:?}\nvs\n{h:?}");
            // A reused Serializer writes the same bytes.
            let mut ser = Serializer::with_options(opts.clone());
            ser.serialize(&Hero::default()).unwrap();
            prop_assert_eq!(ser.serialize(&h).unwrap(), &bytes[..], "reused Serializer ({})", label);
            let back: Hero = opts.from_slice(&bytes).map_err(|e| TestCaseError::fail(format!("lite decode ({label}): {e}")))?;
            prop_assert!(same(&back, &h), "lite round trip differs ({label})");
            let read: Hero = opts.from_reader(&bytes[..]).unwrap();
            prop_assert!(same(&read, &h), "from_reader differs ({label})");
            // Without `UnionType` placeholders: the same bytes, read back equal.
            learn_plain();
            let plain = HeroP::from(&h);
            let plain_bytes = opts.to_vec(&plain).map_err(|e| TestCaseError::fail(format!("lite encode, no placeholders ({label}): {e}")))?;
            prop_assert_eq!(&plain_bytes, &bytes, "placeholder-free bytes ({})", label);
            let back: HeroP = opts.from_slice(&bytes).map_err(|e| TestCaseError::fail(format!("lite decode, no placeholders ({label}): {e}")))?;
            prop_assert!(same(&back, &plain), "placeholder-free round trip differs ({label})");
        }
    }

    /// official builder → lite, with one of the 32 builder combinations.
    #[test]
    fn official_writes_lite_reads(h in hero(), bits in 0u8..32) {
        let build = Build::from_bits(bits);
        let bytes = build.hero_buffer(&h);
        match official_root(&bytes, build.size_prefixed) {
            Ok(root) => prop_assert!(same(&hero_of(root), &h), "oracle round trip ({build:?})"),
            // The official Rust verifier rejects its own force_defaults buffers with a NONE union type
            // and no value (rich_schema.rs); lite reads them (as the C++ verifier does).
            Err(e) => prop_assert!(build.force_defaults && has_none_union(&h), "official verifier ({build:?}): {e}"),
        }
        let lite: Hero = build.reader().from_slice(&bytes).map_err(|e| TestCaseError::fail(format!("lite rejects ({build:?}): {e}")))?;
        prop_assert!(same(&lite, &h), "lite decode differs ({build:?}):\n{lite:?}\nvs\n{h:?}");
        let plain: HeroP = build.reader().from_slice(&bytes).map_err(|e| TestCaseError::fail(format!("lite rejects, no placeholders ({build:?}): {e}")))?;
        prop_assert!(same(&plain, &HeroP::from(&h)), "placeholder-free decode differs ({build:?})");
    }

    /// Old reader, new writer: V2 from both sides read as V1 by both sides.
    #[test]
    fn evolution_old_reader_new_writer(p in player_v2()) {
        check_evolution(&p, &PlayerV1::from_v2(&p), Build::player_v2_buffer, official_player_v1);
        learn_plain();
        check_evolution(&PlayerV2P::from(&p), &PlayerV1::from_v2(&p), v2p_buffer, official_player_v1);
    }

    /// New reader, old writer: V1 from both sides read as V2 by both sides.
    #[test]
    fn evolution_new_reader_old_writer(p in player_v1()) {
        check_evolution(&p, &PlayerV2::from_v1(&p), Build::player_v1_buffer, official_player_v2);
        check_evolution(&p, &PlayerV2P::from(&PlayerV2::from_v1(&p)), Build::player_v1_buffer, official_player_v2_plain);
    }
}

fn v2p_buffer(build: &Build, p: &PlayerV2P) -> Vec<u8> {
    build.player_v2_buffer(&PlayerV2::from(p))
}

fn hero_of(h: fb::Hero<'_>) -> Hero {
    common::rich::hero(h)
}
