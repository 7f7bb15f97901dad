//! Differential test against the oracle: random objects written by serde-kiprop in all 16
//! flag/mode combinations are decoded by the katsuba 0.4.0 wheel, which must see the values we
//! meant. Skipped (loudly) when Python or the wheel is missing; `.ci/run` installs it.

mod common;

use std::process::Command;

use common::*;
use serde_kiprop::{Color, Options, Quaternion, Value, Vec3, serializer_flags::*};
use testkit::rng::Pcg32;

fn python_with_katsuba() -> Option<&'static str> {
    for py in ["python3", "python"] {
        let ok = Command::new(py).args(["-c", "import katsuba.op"]).output().is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    None
}

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
    let Some(python) = python_with_katsuba() else {
        eprintln!(
            "SKIPPED: katsuba not installed (python3 -m pip install katsuba==0.4.0); the differential test did not run"
        );
        return;
    };
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
    let out = Command::new(python).arg(data("../katsuba_oracle.py")).arg(&manifest).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "katsuba disagrees:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("{} passed, 0 failed", 24 * 17)), "{stdout}");
    eprintln!("katsuba oracle: {}", stdout.trim());
}
