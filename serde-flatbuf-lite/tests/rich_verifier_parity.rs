//! Issue 13 item 4 on the rich schema: lite's verifier must accept exactly what the official Rust verifier
//! (`flatbuffers::root` with default `VerifierOptions`, flatbuffers 25.12.19) accepts. Each case is a small
//! edit of a valid buffer with the two verdicts compared. Two differences are deliberate (lite sides with
//! flatc's C++ verifier there) and are tested as such: a union type stored as NONE without a value
//! (accepted) and a misaligned struct field (rejected). A byte-mutation sweep over two valid buffers checks
//! that no other class of disagreement is left (run it with `--nocapture` to see the counts).

mod common {
    #![allow(dead_code)]
    pub mod rich;
}

use common::rich::*;
use flatbuf_oracle::flatbuffers::FlatBufferBuilder;
use flatbuf_oracle::rich::rich::game as fb;

fn u32_at(b: &[u8], pos: usize) -> usize {
    u32::from_le_bytes(b[pos..pos + 4].try_into().unwrap()) as usize
}

/// (root table position, its vtable position).
fn root_and_vtable(b: &[u8]) -> (usize, usize) {
    let table = u32_at(b, 0);
    let soffset = i32::from_le_bytes(b[table..table + 4].try_into().unwrap());
    (table, (table as i64 - i64::from(soffset)) as usize)
}

fn verdicts(bytes: &[u8]) -> (Result<(), String>, Result<(), String>) {
    let official = official_root(bytes, false).map(drop).map_err(|e| format!("{e}"));
    let lite = rich_opts().from_slice::<Hero>(bytes).map(drop).map_err(|e| format!("{e}"));
    (official, lite)
}

#[track_caller]
fn assert_parity(bytes: &[u8], case: &str) {
    let (official, lite) = verdicts(bytes);
    assert_eq!(official.is_ok(), lite.is_ok(), "{case}: official {official:?}, lite {lite:?}, buffer {bytes:?}");
}

fn hero_with_name() -> Vec<u8> {
    Build::default().hero_buffer(&Hero { name: Some("abc".into()), ..Hero::default() })
}

#[test]
fn valid_buffers_agree() {
    assert_parity(&hero_with_name(), "valid");
}

/// A vtable of length 0 (shorter than its 4-byte header): every field is absent.
#[test]
fn vtable_length_zero() {
    let mut b = hero_with_name();
    let (_, vtable) = root_and_vtable(&b);
    b[vtable..vtable + 2].copy_from_slice(&0u16.to_le_bytes());
    assert_parity(&b, "vtable length 0");
}

/// The official verifier never reads the vtable's table-size entry; lite does not either (every field read
/// is checked against the buffer on its own).
#[test]
fn table_size_entry_not_checked_by_the_official_verifier() {
    for size in [0u16, 255, 32528] {
        let mut b = hero_with_name();
        let (_, vtable) = root_and_vtable(&b);
        b[vtable + 2..vtable + 4].copy_from_slice(&size.to_le_bytes());
        assert_parity(&b, &format!("table size {size}"));
    }
}

/// An all-zero buffer: root uoffset 0 (legal: the table starts at the offset itself), soffset 0, vtable
/// length 0: an empty table.
#[test]
fn all_zero_buffer() {
    assert_parity(&[0u8; 8], "8 zero bytes");
    let hero: Hero = rich_opts().from_slice(&[0u8; 8]).unwrap();
    assert_same(&hero, &Hero::default(), "all fields absent");
}

/// A union whose type is stored as NONE (0) next to a present value: the official verifier accepts it and
/// never looks at the value; lite ignores the value (reads `None`).
#[test]
fn union_type_none_with_a_value() {
    let mut b = FlatBufferBuilder::new();
    let w = fb::Weapon::create(&mut b, &fb::WeaponArgs::default());
    let start = b.start_table();
    b.push_slot_always::<u8>(fb::Hero::VT_EQUIPPED_TYPE, 0);
    b.push_slot_always(fb::Hero::VT_EQUIPPED, w);
    let root = b.end_table(start);
    b.finish_minimal(root);
    assert_parity(b.finished_data(), "equipped_type NONE stored, equipped present");
    let hero: Hero = rich_opts().from_slice(b.finished_data()).unwrap();
    assert!(hero.equipped.is_none(), "the value next to NONE is ignored");
}

/// Deliberate difference: a union whose type is stored as NONE (0) with no value. The official Rust verifier
/// rejects it (InconsistentUnion), but flatc's C++ verifier accepts it (its union check returns true for
/// NONE) and the official Rust builder with `force_defaults(true)` writes exactly this (see
/// `rich_schema.rs`), so lite accepts it and reads `None`.
#[test]
fn union_type_none_stored_without_a_value_is_a_deliberate_difference() {
    let mut b = FlatBufferBuilder::new();
    let start = b.start_table();
    b.push_slot_always::<u8>(fb::Hero::VT_EQUIPPED_TYPE, 0);
    let root = b.end_table(start);
    b.finish_minimal(root);
    let (official, lite) = verdicts(b.finished_data());
    assert!(official.unwrap_err().contains("union"), "the official Rust verifier rejects it");
    assert_eq!(lite, Ok(()), "lite accepts it, like flatc (C++)");
    let hero: Hero = rich_opts().from_slice(b.finished_data()).unwrap();
    assert!(hero.equipped.is_none());
}

/// A map entry whose string key is absent: flatc makes `(key)` string fields required, and both verifiers
/// reject it (lite with `MissingRequiredField`). Absent scalar keys still read as 0 (see `official_defaults.rs`).
#[test]
fn map_entry_without_its_string_key() {
    let mut b = FlatBufferBuilder::new();
    let start = b.start_table();
    b.push_slot::<i32>(fb::Stat::VT_VALUE, 5, 0);
    let entry = b.end_table(start);
    let vector = b.create_vector(&[entry]);
    let start = b.start_table();
    b.push_slot_always(fb::Hero::VT_STAT_MAP, vector);
    let root = b.end_table(start);
    b.finish_minimal(root);
    assert_parity(b.finished_data(), "Stat without key");
    let err = rich_opts().from_slice::<Hero>(b.finished_data()).unwrap_err();
    assert_eq!(err.kind(), serde_flatbuf_lite::ErrorKind::MissingRequiredField, "{err}");
}

/// Deliberate difference: a struct field (Bounds, 4-aligned) at an odd table offset. The official Rust
/// verifier checks struct fields with alignment 1 (generated Rust structs are byte arrays) and accepts it;
/// flatc's C++ verifier (`check_alignment`, on by default) rejects it, and so does lite (`Misaligned`): its
/// struct members are read at their own alignment, like every scalar.
#[test]
fn misaligned_struct_field_is_a_deliberate_difference() {
    let bounds = Bounds { min: Vec3::default(), max: Vec3::default(), layer: Layer::Air };
    let mut bytes = Build::default().hero_buffer(&Hero { bounds: Some(bounds), level: 9, ..Hero::default() });
    let (_, vtable) = root_and_vtable(&bytes);
    let slot2 = vtable + 4 + 2 * 2;
    let at = u16::from_le_bytes([bytes[slot2], bytes[slot2 + 1]]);
    assert!(at != 0 && at % 4 == 0);
    // One byte further: still inside the table's bytes and the buffer, now odd.
    bytes[slot2..slot2 + 2].copy_from_slice(&(at + 1).to_le_bytes());
    let (official, lite) = verdicts(&bytes);
    assert_eq!(official, Ok(()), "the official Rust verifier accepts it");
    let err = rich_opts().from_slice::<Hero>(&bytes).unwrap_err();
    assert_eq!(err.kind(), serde_flatbuf_lite::ErrorKind::Misaligned, "{lite:?}");
}

/// Whether a struct field of the root `Hero` (or of its companions) sits where its own alignment does not
/// allow, as the official reader sees it: the deliberate difference of
/// `misaligned_struct_field_is_a_deliberate_difference`.
fn misaligned_struct_field(bytes: &[u8]) -> bool {
    let Ok(mut hero) = official_root(bytes, false) else { return false };
    let base = bytes.as_ptr() as usize;
    loop {
        let fields = [
            hero.pos().map(|s| (std::ptr::from_ref(s) as usize, 4)),
            hero.bounds().map(|s| (std::ptr::from_ref(s) as usize, 4)),
            hero.slots().map(|s| (std::ptr::from_ref(s) as usize, 8)),
        ];
        if fields.into_iter().flatten().any(|(at, align)| (at - base) % align != 0) {
            return true;
        }
        match hero.companion() {
            Some(c) => hero = c,
            None => return false,
        }
    }
}

/// Whether the root `Hero` stores a union type NONE without a value: the deliberate difference of
/// `union_type_none_stored_without_a_value_is_a_deliberate_difference`.
fn none_union_type_without_value(bytes: &[u8]) -> bool {
    let u16_at = |pos: usize| bytes.get(pos..pos + 2).map_or(0, |b| u16::from_le_bytes([b[0], b[1]])) as usize;
    let (table, vtable) = root_and_vtable(bytes);
    let vt_len = u16_at(vtable);
    let entry = |voffset: u16| if (voffset as usize) + 2 <= vt_len { u16_at(vtable + voffset as usize) } else { 0 };
    [(fb::Hero::VT_EQUIPPED_TYPE, fb::Hero::VT_EQUIPPED), (fb::Hero::VT_OFFHAND_TYPE, fb::Hero::VT_OFFHAND)]
        .into_iter()
        .any(|(ty, value)| entry(ty) != 0 && bytes.get(table + entry(ty)) == Some(&0) && entry(value) == 0)
}

/// Every single-byte edit (8 values per byte) of two valid buffers; prints each class of disagreement with
/// one example, and the counts of the two deliberate differences (which are not disagreements to fix). Lite
/// errors that come from the mirror types (enum values or union types the Rust enums do not have: the
/// official verifier does not check enum values) are not disagreements and are left out.
/// Run it with `--nocapture` to see the counts.
#[test]
fn byte_mutation_sweep() {
    let mut h = Hero {
        name: Some("abc".into()),
        weapons: Some(vec![Weapon { name: Some("w".into()), damage: 3, range: 1.0 }]),
        stat_map: Some([("k".to_owned(), 5)].into()),
        scores: Some(vec![1.0]),
        bounds: Some(Bounds { min: Vec3::default(), max: Vec3::default(), layer: Layer::Air }),
        hp_opt: Some(3),
        ..Hero::default()
    };
    h.equipped = Some(Equipment::Spell(Spell {
        name: Some("s".into()),
        mana_cost: 1,
        school: Rarity::Rare,
        targets: Some(vec![Vec2 { x: 1.0, y: 2.0 }]),
    }));
    let mut classes = std::collections::BTreeMap::<String, (usize, String)>::new();
    let (mut mutations, mut deliberate_none, mut deliberate_misaligned) = (0, 0, 0);
    for (source, base) in [("lite", rich_opts().to_vec(&h).unwrap()), ("official", Build::default().hero_buffer(&h))] {
        for i in 0..base.len() {
            for v in [0u8, 1, 2, 0x7f, 0x80, 0xff, base[i] ^ 1, base[i].wrapping_add(4)] {
                if base[i] == v {
                    continue;
                }
                let mut m = base.clone();
                m[i] = v;
                mutations += 1;
                let (official, lite) = verdicts(&m);
                if official.is_ok() == lite.is_ok() {
                    continue;
                }
                if lite.is_ok() && none_union_type_without_value(&m) {
                    deliberate_none += 1;
                    continue;
                }
                if official.is_ok()
                    && lite.as_ref().is_err_and(|e| e.starts_with("misaligned"))
                    && misaligned_struct_field(&m)
                {
                    deliberate_misaligned += 1;
                    continue;
                }
                let lite_err = lite.clone().err().unwrap_or_default();
                let mirror_noise = ["Rarity ", "Layer ", "Epoch ", "expected variant index"];
                if official.is_ok() && mirror_noise.iter().any(|n| lite_err.contains(n)) {
                    continue;
                }
                let class = match (&official, &lite) {
                    (Ok(()), Err(e)) => format!("official accepts, lite: {}", e.split(" at byte").next().unwrap()),
                    (Err(e), _) => format!("official: {}, lite accepts", e.lines().next().unwrap_or("")),
                    _ => unreachable!(),
                };
                let class: String = class.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
                let entry = classes.entry(class).or_default();
                entry.0 += 1;
                if entry.1.is_empty() {
                    entry.1 = format!("{source} buffer ({} bytes), byte {i}: {:#04x} -> {v:#04x}", base.len(), base[i]);
                }
            }
        }
    }
    println!(
        "{mutations} mutations; deliberate differences: {deliberate_none} × union type NONE stored without a \
         value (lite accepts, like flatc), {deliberate_misaligned} × misaligned struct field (lite rejects, like \
         flatc)"
    );
    for (class, (count, example)) in &classes {
        println!("{count:4} × {class}   e.g. {example}");
    }
    assert!(classes.is_empty(), "{} classes of disagreement", classes.len());
}
