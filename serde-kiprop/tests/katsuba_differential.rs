//! Differential tests against the oracle, the katsuba 0.4.0 wheel (through `katsuba_oracle.py`):
//!
//! - `katsuba_decodes_what_we_write`: random `Root` structs (typed) in all 16 flag/mode
//!   combinations and with manual compression.
//! - `katsuba_reads_random_objects_in_every_flag_combination`: random type lists and random
//!   objects of them (`common/random_types.rs`: every simple type, leaf struct, enum kind,
//!   nested and polymorphic objects, pointers, containers of everything, DELTA_ENCODE, masks,
//!   DEPRECATED) written in every flag combination (`Combo::all`), checked by our reader,
//!   re-encoded through `Value` to the same bytes, and read by katsuba in one batch.
//! - `katsuba_reads_random_typed_objects_in_every_flag_combination`: random derived `Root`s
//!   (proptest strategies over every field) in every flag combination (`Combo::all`), read back
//!   typed and as `Value` (re-encoded to the same bytes) by us, and by katsuba in one batch.
//! - `random_objects_reencode_byte_identically` (no katsuba needed, shrinks): the same
//!   generator through our reader and writer only.
//!
//! katsuba is required: without it (`python3 -m pip install katsuba==0.4.0`; `.ci/run` installs
//! it) these tests fail, unless `SERDE_KIPROP_SKIP_KATSUBA=1` says to skip them (loudly).
//! `KIPROP_DIFF_CASES` (type lists, default 1000: about 2,000 objects) and `KIPROP_DIFF_SEED` change the random run.

mod common;
#[path = "common/random_types.rs"]
mod random_types;

use std::sync::Arc;

use common::*;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use random_types::{Combo, Schema, case_strategy, expected};
use serde_kiprop::{Color, ErrorKind, Options, Quaternion, TypeList, Value, Vec3, serializer_flags::*};
use testkit::rng::Pcg32;

fn text(rng: &mut Pcg32, max: usize) -> String {
    const WIDE: [char; 6] = ['é', 'ß', 'Ж', '魔', '😀', ' '];
    let n = rng.usize_in(0, max + 1);
    (0..n).map(|_| if rng.chance(1, 8) { *rng.pick(&WIDE) } else { (b'a' + rng.below(26) as u8) as char }).collect()
}

fn item(rng: &mut Pcg32) -> Item {
    Item {
        m_itemID: rng.next_u64(),
        m_name: text(rng, 20).replace(['é', 'ß', 'Ж', '魔', '😀'], "x"),
        m_count: rng.below(16) as u8,
        m_equipped: rng.chance(1, 2),
    }
}

fn random_root(rng: &mut Pcg32) -> Root {
    let f = |rng: &mut Pcg32| rng.f32_in(-1e6, 1e6);
    Root {
        m_flag: rng.chance(1, 2),
        m_level: rng.next_u32() as i32,
        m_small: rng.range_i64(-16, 16) as i8,
        m_big: rng.below(1 << 24) as u32,
        m_name: text(rng, 40).replace(['é', 'ß', 'Ж', '魔', '😀'], "y"),
        m_title: text(rng, 40),
        m_speed: f(rng),
        m_precise: rng.f64_in(-1e12, 1e12),
        m_school: [School::Fire, School::Ice, School::Storm][rng.below(3) as usize].clone(),
        m_mask: rng.below(8) as u32,
        m_color: Color {
            r: rng.next_u32() as u8,
            g: rng.next_u32() as u8,
            b: rng.next_u32() as u8,
            a: rng.next_u32() as u8,
        },
        m_pos: Vec3 { x: f(rng), y: f(rng), z: f(rng) },
        m_rot: Quaternion { w: f(rng), x: f(rng), y: f(rng), z: f(rng) },
        m_ids: (0..[0, 3, 127, 128, 300][rng.below(5) as usize]).map(|_| rng.next_u32()).collect(),
        m_items: (0..rng.usize_in(0, 5)).map(|_| if rng.chance(1, 4) { None } else { Some(item(rng)) }).collect(),
        m_best: rng.chance(1, 2).then(|| item(rng)),
        m_none: rng.chance(1, 3).then(|| item(rng)),
        m_old: 0,
        m_delta: rng.chance(1, 2).then(|| rng.next_u32()),
        m_tail: rng.below(8) as u8,
    }
}

#[test]
fn katsuba_decodes_what_we_write() {
    let Some(python) = python_with_katsuba("katsuba_decodes_what_we_write") else { return };
    let types = generated_types();
    let dir = std::env::temp_dir().join(format!("kiprop-katsuba-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Pcg32::new(0x6B69_7072, 7);
    let mut cases = Vec::new();
    for i in 0..24 {
        let root = random_root(&mut rng);
        for combo in 0..16u32 {
            let shallow = combo & 1 != 0;
            let flags = STATEFUL_FLAGS
                | if combo & 2 != 0 { COMPACT_LENGTH_PREFIXES } else { 0 }
                | if combo & 4 != 0 { HUMAN_READABLE_ENUMS } else { 0 }
                | if combo & 8 != 0 { WITH_COMPRESSION } else { 0 };
            let bytes = Options::new().shallow(shallow).flags(flags).to_vec(&root, &types).unwrap();
            // Our own reader sees the source value …
            let reader = Options::new().shallow(shallow).flags(STATEFUL_FLAGS);
            assert_eq!(reader.from_slice::<Root>(&bytes, &types).unwrap(), root, "object {i} combo {combo}");
            // … and katsuba must see the same properties.
            let value: Value = reader.from_slice(&bytes, &types).unwrap();
            let file = dir.join(format!("obj{i:02}-combo{combo:02}.bin"));
            std::fs::write(&file, &bytes).unwrap();
            cases.push(serde_json::json!({
                "file": file, "shallow": shallow, "flags": STATEFUL_FLAGS, "mask": 0x18, "expected": to_json(&value),
            }));
        }
        // Manual compression (u32 size + zlib around the whole blob), as some network state uses.
        let shallow = i % 2 == 0;
        let opts = Options::new().shallow(shallow).flags(STATEFUL_FLAGS).manual_compression(true);
        let bytes = opts.to_vec(&root, &types).unwrap();
        assert_eq!(opts.from_slice::<Root>(&bytes, &types).unwrap(), root);
        let value: Value = opts.from_slice(&bytes, &types).unwrap();
        let file = dir.join(format!("obj{i:02}-manual.bin"));
        std::fs::write(&file, &bytes).unwrap();
        cases.push(serde_json::json!({
            "file": file, "shallow": shallow, "flags": STATEFUL_FLAGS, "mask": 0x18, "manual": true,
            "expected": to_json(&value),
        }));
    }
    let manifest = dir.join("manifest.json");
    let types_path = data("generated/types.json");
    std::fs::write(&manifest, serde_json::json!({"types": [types_path], "cases": cases}).to_string()).unwrap();
    let stdout = run_oracle(python, &manifest);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout.contains(&format!("{} passed, 0 failed", 24 * 17)), "{stdout}");
    eprintln!("katsuba oracle: {}", stdout.trim());
}

/// Writes `object` with `combo`, and checks everything but katsuba: our reader sees what was
/// meant, `stored_flags` gives the flags back, and the decoded `Value` encodes to the same bytes.
/// Returns the bytes and what katsuba must see (`None` when the writer must refuse the object).
fn write_and_check(
    schema: &Schema,
    types: &TypeList,
    object: &Value,
    combo: &Combo,
) -> Result<Option<(Vec<u8>, Value)>, String> {
    let ctx = |what: &str| format!("{combo:?}: {what}\nobject: {}\ntypes: {}", to_json(object), schema.to_json());
    let want = expected(schema, object, combo);
    let written = combo.writer().to_vec(object, types);
    let want = match (want, written) {
        (Err(_), Err(e)) if matches!(e.kind(), ErrorKind::MissingDelta(_)) => return Ok(None),
        (Err(absent), other) => return Err(ctx(&format!("{absent} under FORBID_DELTA_ENCODE, but wrote {other:?}"))),
        (Ok(_), Err(e)) => return Err(ctx(&format!("cannot write: {e}"))),
        (Ok(want), Ok(bytes)) => (want, bytes),
    };
    let (want, bytes) = want;
    let reader = combo.reader();
    let got: Value = reader.from_slice(&bytes, types).map_err(|e| ctx(&format!("cannot read back: {e}")))?;
    if got != want {
        return Err(ctx(&format!("read back {}\nexpected {}", to_json(&got), to_json(&want))));
    }
    let stored = reader.stored_flags(&bytes).map_err(|e| ctx(&format!("stored_flags: {e}")))?;
    if stored != combo.flags {
        return Err(ctx(&format!("stored_flags {stored:#x}, written with {:#x}", combo.flags)));
    }
    let again = reader
        .written_with(&bytes)
        .and_then(|o| o.to_vec(&got, types))
        .map_err(|e| ctx(&format!("cannot re-encode the decoded Value: {e}")))?;
    if again != bytes {
        return Err(ctx(&format!("Value re-encode differs:\n  {bytes:02x?}\n  {again:02x?}")));
    }
    Ok(Some((bytes, want)))
}

fn case_runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (seed >> ((i % 8) * 8)) as u8 ^ i as u8;
    }
    TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn katsuba_reads_random_objects_in_every_flag_combination() {
    let Some(python) = python_with_katsuba("katsuba_reads_random_objects_in_every_flag_combination") else { return };
    let cases = env_u64("KIPROP_DIFF_CASES", 1000);
    let seed = env_u64("KIPROP_DIFF_SEED", 0x6b69_7072_6f70_0014);
    let dir = std::env::temp_dir().join(format!("kiprop-katsuba-random-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runner = case_runner(seed);
    let strategy = case_strategy();
    let combos = Combo::all();
    let (mut oracle_cases, mut objects, mut refused) = (Vec::new(), 0usize, 0usize);
    let mut failures = Vec::new();
    for case in 0..cases {
        let (schema, values) = strategy.new_tree(&mut runner).unwrap().current();
        let json = schema.to_json();
        let types = TypeList::from_json(&json).unwrap();
        let types_path = dir.join(format!("types{case:04}.json"));
        std::fs::write(&types_path, &json).unwrap();
        for (i, object) in values.iter().enumerate() {
            objects += 1;
            for (c, combo) in combos.iter().enumerate() {
                match write_and_check(&schema, &types, object, combo) {
                    Ok(Some((bytes, want))) => oracle_cases.push(serde_json::json!({
                        "name": format!("case {case} object {i} combo {c} {combo:?}"),
                        "hex": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(),
                        "shallow": combo.shallow,
                        "flags": if combo.flags & STATEFUL_FLAGS != 0 { STATEFUL_FLAGS } else { combo.flags },
                        "mask": 0x18, "manual": combo.manual, "bind": combo.bind,
                        "types": [types_path], "expected": to_json(&want),
                    })),
                    Ok(None) => refused += 1,
                    Err(e) => failures.push(format!("case {case} object {i}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures (seed {seed:#x}), first:\n{}", failures.len(), failures[0]);
    let n = oracle_cases.len();
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, serde_json::json!({"cases": oracle_cases}).to_string()).unwrap();
    let stdout = run_oracle(python, &manifest);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout.contains(&format!("{n} passed, 0 failed")), "{stdout}");
    eprintln!(
        "katsuba oracle: {} ({cases} type lists, {objects} objects × {} flag combinations; \
         {refused} refused under FORBID_DELTA_ENCODE as expected)",
        stdout.trim(),
        combos.len()
    );
}

fn item_strategy() -> impl Strategy<Value = Item> {
    (any::<u64>(), "[a-zA-Z0-9 ]{0,20}", 0u8..16, any::<bool>()).prop_map(|(id, m_name, m_count, m_equipped)| Item {
        m_itemID: id,
        m_name,
        m_count,
        m_equipped,
    })
}

fn finite_f32() -> BoxedStrategy<f32> {
    prop_oneof![-1e6f32..1e6, proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO]
        .boxed()
}

/// Random `Root`s (derived `Serialize`/`Deserialize`, `generated/types.json`): every field
/// randomized, bit-width integers over their whole range, wide strings with non-ASCII text,
/// containers empty to past the compact length prefix's one-byte form, null and present
/// pointers, DELTA_ENCODE absent or present.
fn root_strategy() -> impl Strategy<Value = Root> {
    let f = finite_f32;
    let scalars = (
        any::<bool>(),
        any::<i32>(),
        -16i8..16,
        0u32..(1 << 24),
        "[a-zA-Z0-9 _]{0,40}",
        "[a-zé ßЖ魔😀]{0,40}",
        f(),
        prop_oneof![-1e12f64..1e12, proptest::num::f64::NORMAL | proptest::num::f64::ZERO],
        prop_oneof![Just(School::Fire), Just(School::Ice), Just(School::Storm)],
        0u32..8,
    );
    let leaves = (
        any::<[u8; 4]>().prop_map(|[r, g, b, a]| Color { r, g, b, a }),
        (f(), f(), f()).prop_map(|(x, y, z)| Vec3 { x, y, z }),
        (f(), f(), f(), f()).prop_map(|(w, x, y, z)| Quaternion { w, x, y, z }),
    );
    let objects = (
        prop_oneof![
            proptest::collection::vec(any::<u32>(), 0..4),
            proptest::collection::vec(any::<u32>(), 126..130),
            proptest::collection::vec(any::<u32>(), 250..300),
        ],
        proptest::collection::vec(proptest::option::weighted(0.75, item_strategy()), 0..6),
        proptest::option::of(item_strategy()),
        proptest::option::of(item_strategy()),
        proptest::option::of(any::<u32>()),
        0u8..8,
    );
    (scalars, leaves, objects).prop_map(|(s, l, o)| Root {
        m_flag: s.0,
        m_level: s.1,
        m_small: s.2,
        m_big: s.3,
        m_name: s.4,
        m_title: s.5,
        m_speed: s.6,
        m_precise: s.7,
        m_school: s.8,
        m_mask: s.9,
        m_color: l.0,
        m_pos: l.1,
        m_rot: l.2,
        m_ids: o.0,
        m_items: o.1,
        m_best: o.2,
        m_none: o.3,
        m_old: 0,
        m_delta: o.4,
        m_tail: o.5,
    })
}

/// Random typed objects (derived `Serialize`, not `Value`) written in every flag combination
/// (`Combo::all`: shallow and deep, compact, string enums, zlib, `BINd`, manual compression,
/// FORBID_DELTA_ENCODE shallow and deep): our reader gives back the same `Root`, the decoded
/// `Value` re-encodes to the same bytes, an absent DELTA_ENCODE field under
/// FORBID_DELTA_ENCODE in shallow mode is refused, and katsuba reads every blob as meant.
#[test]
fn katsuba_reads_random_typed_objects_in_every_flag_combination() {
    let test = "katsuba_reads_random_typed_objects_in_every_flag_combination";
    let Some(python) = python_with_katsuba(test) else { return };
    let objects = env_u64("KIPROP_DIFF_TYPED", 200);
    let seed = env_u64("KIPROP_DIFF_SEED", 0x6b69_7072_6f70_0014) ^ 0x7479_7065;
    let types = generated_types();
    let types_path = data("generated/types.json");
    let mut runner = case_runner(seed);
    let strategy = root_strategy();
    let combos = Combo::all();
    let (mut cases, mut refused, mut failures) = (Vec::new(), 0usize, Vec::new());
    for i in 0..objects {
        let root = strategy.new_tree(&mut runner).unwrap().current();
        for (c, combo) in combos.iter().enumerate() {
            let ctx = |what: String| format!("object {i} combo {c} {combo:?}: {what}\n{root:?}");
            let written = combo.writer().to_vec(&root, &types);
            let forbidden = combo.shallow && combo.flags & FORBID_DELTA_ENCODE != 0 && root.m_delta.is_none();
            let bytes = match (written, forbidden) {
                (Err(e), true) if matches!(e.kind(), ErrorKind::MissingDelta(_)) => {
                    refused += 1;
                    continue;
                }
                (Ok(bytes), false) => bytes,
                (other, _) => {
                    failures.push(ctx(format!("forbidden absent DELTA: {forbidden}, wrote {other:?}")));
                    continue;
                }
            };
            let reader = combo.reader();
            match reader.from_slice::<Root>(&bytes, &types) {
                Ok(back) if back == root => {}
                other => failures.push(ctx(format!("typed read back {other:?}"))),
            }
            // The sequence form reads the same (`Root` has no `Option` defaulting to `Some`).
            match reader.absent_option_is_none(true).from_slice::<Root>(&bytes, &types) {
                Ok(back) if back == root => {}
                other => failures.push(ctx(format!("typed read back with absent_option_is_none {other:?}"))),
            }
            let value: Value = match reader.from_slice(&bytes, &types) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(ctx(format!("Value read: {e}")));
                    continue;
                }
            };
            match reader.written_with(&bytes).and_then(|o| o.to_vec(&value, &types)) {
                Ok(again) if again == bytes => {}
                other => failures.push(ctx(format!("Value re-encode differs: {other:02x?}"))),
            }
            cases.push(serde_json::json!({
                "name": format!("typed object {i} combo {c} {combo:?}"),
                "hex": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(),
                "shallow": combo.shallow,
                "flags": if combo.flags & STATEFUL_FLAGS != 0 { STATEFUL_FLAGS } else { combo.flags },
                "mask": 0x18, "manual": combo.manual, "bind": combo.bind,
                "types": [&types_path], "expected": to_json(&value),
            }));
        }
    }
    assert!(failures.is_empty(), "{} failures (seed {seed:#x}), first:\n{}", failures.len(), failures[0]);
    assert!(refused > 0, "no absent DELTA_ENCODE field met FORBID_DELTA_ENCODE");
    let dir = std::env::temp_dir().join(format!("kiprop-katsuba-typed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = cases.len();
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, serde_json::json!({"cases": cases}).to_string()).unwrap();
    let stdout = run_oracle(python, &manifest);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout.contains(&format!("{n} passed, 0 failed")), "{stdout}");
    eprintln!(
        "katsuba oracle: {} ({objects} typed objects × {} flag combinations; {refused} refused under \
         FORBID_DELTA_ENCODE as expected)",
        stdout.trim(),
        combos.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Our own reader and writer on random type lists and objects, every flag combination:
    /// the reader sees what was meant and the decoded `Value` encodes to the same bytes.
    #[test]
    fn random_objects_reencode_byte_identically(case in case_strategy()) {
        let (schema, values): (Arc<Schema>, Vec<Value>) = case;
        let types = TypeList::from_json(&schema.to_json()).unwrap();
        for object in &values {
            for combo in Combo::all() {
                if let Err(e) = write_and_check(&schema, &types, object, &combo) {
                    prop_assert!(false, "{}", e);
                }
            }
        }
    }
}
