//! Hostile input (issue deliverables 3 and 6): every truncation, every single-byte change and seeded random
//! mutations of the fixtures decode to `Ok` or `Err` without panicking and within an allocation bound; depth
//! bombs, table bombs and sharing bombs hit their limits; header checks.

mod common;

use common::*;
use serde::Deserialize;
use serde_flatbuf_lite::{ErrorKind, Options, from_slice};
use testkit::DecoderCheck;

testkit::install_counting_allocator!();

#[test]
fn mutated_monster_fixtures_never_panic() {
    let opts = monster_opts();
    let outcome = DecoderCheck::new()
        .fixture("seed_csharp", data("monster_seed/seed_csharp.bin"))
        .fixture("full", data("monster_seed/full.bin"))
        .fixture("minimal", data("monster_seed/minimal.bin"))
        .fixture("empty_vectors", data("monster_seed/empty_vectors.bin"))
        .fixture("lite_seed", opts.to_vec(&seed_monster()).unwrap())
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| opts.from_slice::<Monster>(b));
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome}");
    eprintln!("monster: {outcome}");
}

#[test]
fn mutated_ext_fixtures_never_panic() {
    let opts = ext_opts();
    let outcome = DecoderCheck::new()
        .fixture("root_full", data("monster_seed/ext/root_full.bin"))
        .fixture("root_empty_vectors", data("monster_seed/ext/root_empty_vectors.bin"))
        .fixture("root_defaults_and_null", data("monster_seed/ext/root_defaults_and_null.bin"))
        .fixture("root_empty", data("monster_seed/ext/root_empty.bin"))
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| opts.from_slice::<Root>(b));
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome}");
    let ids = DecoderCheck::new()
        .fixture("withids", data("monster_seed/ext/withids.bin"))
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| opts.from_slice::<WithIds>(b));
    eprintln!("ext: {outcome}; withids: {ids}");
}

#[test]
fn mutated_size_prefixed_buffers_never_panic() {
    let opts = monster_opts().size_prefixed(true).file_identifier(*b"MONS");
    let outcome = DecoderCheck::new()
        .fixture("framed_seed", opts.to_vec(&seed_monster()).unwrap())
        .max_alloc(testkit::alloc::default_bound)
        .run(|b| opts.from_slice::<Monster>(b));
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome}");
}

/// A recursive table type for the bombs.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Node {
    child: Option<Box<Node>>,
}

/// `n` tables, each pointing to the next: root offset, one shared vtable `{6, 8, 4}`, then 8-byte tables.
fn chain(n: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(12 + 8 * n);
    b.extend_from_slice(&12u32.to_le_bytes());
    b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]);
    for i in 0..n {
        let pos = 12 + 8 * i;
        b.extend_from_slice(&((pos - 4) as i32).to_le_bytes()); // soffset to the vtable at 4
        b.extend_from_slice(&4u32.to_le_bytes()); // child: the next table
    }
    b
}

#[test]
fn a_million_nested_tables_hit_the_depth_limit() {
    let bomb = chain(testkit::depth::MILLION);
    testkit::depth::assert_rejects(&bomb, |b| from_slice::<Node>(b));
    let err = from_slice::<Node>(&bomb).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded, "{err}");
}

#[test]
fn depth_limit_is_configurable() {
    let bomb = chain(100);
    assert_eq!(from_slice::<Node>(&bomb).unwrap_err().kind(), ErrorKind::DepthLimitExceeded);
    // With room for all 100 tables the chain ends at the last (dangling) child offset instead.
    let err = Options::new().max_depth(200).from_slice::<Node>(&bomb).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfBounds, "{err}");
    let ok = chain(63);
    assert!(from_slice::<Node>(&ok).is_err(), "dangling last child");
}

/// A vector of `n` uoffsets that all point to the same table (or string).
fn shared(n: usize, string: Option<usize>) -> Vec<u8> {
    // root -> table { items: [target; n] } ; target = empty table or a string of `len` bytes
    let mut b = Vec::new();
    b.extend_from_slice(&12u32.to_le_bytes()); // root table at 12
    b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]); // vtable: 1 slot at +4
    b.extend_from_slice(&8i32.to_le_bytes()); // root table at 12: soffset 8 -> vtable at 4
    b.extend_from_slice(&4u32.to_le_bytes()); // items -> vector at 20
    b.extend_from_slice(&(n as u32).to_le_bytes()); // vector length at 20
    let area = 24;
    let target = area + 4 * n;
    for i in 0..n {
        b.extend_from_slice(&((target - (area + 4 * i)) as u32).to_le_bytes());
    }
    match string {
        Some(len) => {
            b.extend_from_slice(&(len as u32).to_le_bytes());
            b.extend(std::iter::repeat_n(b'x', len));
            b.push(0);
        }
        None => {
            // an empty table whose vtable {4, 4} follows it
            b.extend_from_slice(&(-4i32).to_le_bytes());
            b.extend_from_slice(&[4, 0, 4, 0]);
        }
    }
    b
}

#[test]
fn shared_tables_count_toward_the_table_limit() {
    #[derive(Debug, Deserialize)]
    struct Empty {}
    #[derive(Debug, Deserialize)]
    struct Holder {
        #[allow(dead_code)]
        items: Vec<Empty>,
    }
    let bytes = shared(2_000, None);
    assert!(from_slice::<Holder>(&bytes).is_ok());
    let err = Options::new().max_tables(1_000).from_slice::<Holder>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TableLimitExceeded, "{err}");
}

#[test]
fn shared_strings_count_toward_the_apparent_size() {
    #[derive(Deserialize)]
    struct Holder {
        items: Vec<String>,
    }
    // 100,000 references to one 4 KiB string: a 400 KB buffer that would materialize 400 MB.
    let bytes = shared(100_000, Some(4096));
    let (result, stats) = testkit::alloc::measure(|| from_slice::<Holder>(&bytes));
    let err = result.err().expect("the default apparent-size limit stops it");
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimitExceeded, "{err}");
    assert!(stats.peak <= testkit::alloc::default_bound(bytes.len()), "{stats:?}");
    // Explicitly allowed, it decodes (here with a small count).
    let small = shared(100, Some(4096));
    let holder: Holder = Options::new().max_apparent_size(1 << 31).from_slice(&small).unwrap();
    assert_eq!(holder.items.len(), 100);
}

#[test]
fn header_checks() {
    let opts = monster_opts();
    let plain = opts.to_vec(&seed_monster()).unwrap();
    // identifier required but absent
    let err = opts.clone().file_identifier(*b"MONS").from_slice::<Monster>(&plain).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::IdentifierMismatch, "{err}");
    // size prefix that disagrees with the length (trailing bytes)
    let framed_opts = opts.clone().size_prefixed(true);
    let mut framed = framed_opts.to_vec(&seed_monster()).unwrap();
    assert!(framed_opts.from_slice::<Monster>(&framed).is_ok());
    framed.push(0);
    let err = framed_opts.from_slice::<Monster>(&framed).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SizePrefixMismatch, "{err}");
    // too short for a root offset
    for n in 0..12 {
        assert!(opts.from_slice::<Monster>(&plain[..n]).is_err());
    }
    // a stream of size-prefixed buffers through from_reader
    let one = framed_opts.to_vec(&seed_monster()).unwrap();
    let stream = [one.clone(), one].concat();
    let mut reader = &stream[..];
    for _ in 0..2 {
        let m: Monster = framed_opts.from_reader(&mut reader).unwrap();
        assert_eq!(m, seed_monster());
    }
    assert!(reader.is_empty());
}

#[test]
fn strings_are_verified() {
    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct S {
        s: String,
    }
    let good = serde_flatbuf_lite::to_vec(&S { s: "héllo".into() }).unwrap();
    let at = good.windows(5).position(|w| w == "héllo".as_bytes().get(..5).unwrap()).unwrap();
    // invalid UTF-8
    let mut bad = good.clone();
    bad[at + 1] = 0xFF;
    assert_eq!(from_slice::<S>(&bad).unwrap_err().kind(), ErrorKind::InvalidUtf8);
    // missing NUL terminator (accepted with the official verifier's opt-out)
    let mut no_nul = good.clone();
    no_nul[at + "héllo".len()] = b'!';
    assert_eq!(from_slice::<S>(&no_nul).unwrap_err().kind(), ErrorKind::MissingNulTerminator);
    assert!(Options::new().ignore_missing_nul_terminator(true).from_slice::<S>(&no_nul).is_ok());
}

/// A table's strings are checked as one stretch when they can be (`de/utf8.rs`): every byte of every string,
/// spoilt in turn, still gives `InvalidUtf8` where the string alone stops being UTF-8, with that field's path, in tables read in field
/// order and through the map path, and long or non-ASCII strings (stretches that fail or are too long)
/// decode as before.
#[test]
fn strings_checked_together_stay_exact() {
    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct Row {
        id: u32,
        a: String,
        b: String,
        c: String,
    }
    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct Rows {
        rows: Vec<Row>,
    }
    let row = |i: u32, a: &str| Row { id: i, a: a.into(), b: format!("wörld {i}"), c: "-".into() };
    let good = serde_flatbuf_lite::to_vec(&Rows { rows: vec![row(1, "héllo"), row(2, "x")] }).unwrap();
    assert_eq!(from_slice::<Rows>(&good).unwrap(), Rows { rows: vec![row(1, "héllo"), row(2, "x")] });
    for (field, text) in [("a", "héllo"), ("b", "wörld 1"), ("c", "-"), ("a", "x"), ("b", "wörld 2")] {
        let row = if text.ends_with('2') || text == "x" { 1 } else { 0 };
        let mut at = None;
        for (i, w) in good.windows(text.len() + 5).enumerate() {
            if w[..4] == (text.len() as u32).to_le_bytes() && &w[4..4 + text.len()] == text.as_bytes() {
                at = Some(i + 4);
            }
        }
        let at = at.unwrap();
        for k in 0..text.len() {
            let mut bad = good.clone();
            bad[at + k] = 0xFF;
            let err = from_slice::<Rows>(&bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidUtf8, "{field} byte {k}: {err}");
            // Where the string alone stops being UTF-8 (the character before a spoilt continuation byte).
            let valid = std::str::from_utf8(&bad[at..at + text.len()]).unwrap_err().valid_up_to();
            assert_eq!(err.offset(), Some(at + valid), "{field} byte {k}: {err}");
            assert_eq!(err.path(), Some(format!("rows[{row}].{field}").as_str()), "{field} byte {k}: {err}");
        }
    }
    // Strings whose length prefixes are not ASCII (stretches that fail the check, more than the decode's
    // allowance of them), strings longer than a stretch, multi-byte characters.
    let long = |n: usize| "é".repeat(n);
    let rows = Rows { rows: (0..40).map(|i| row(i, &long(64 + i as usize * 5))).collect() };
    let bytes = serde_flatbuf_lite::to_vec(&rows).unwrap();
    assert_eq!(from_slice::<Rows>(&bytes).unwrap(), rows);
}

#[test]
fn misaligned_scalars_are_rejected() {
    #[derive(Debug, serde::Serialize, Deserialize)]
    #[allow(dead_code)]
    struct T {
        a: u8,
        b: u32,
    }
    let mut bytes = serde_flatbuf_lite::to_vec(&T { a: 1, b: 2 }).unwrap();
    // vtable at 4: [len, size, a, b]; point `b` one byte off.
    let b_entry = 4 + 6;
    let off = u16::from_le_bytes([bytes[b_entry], bytes[b_entry + 1]]);
    bytes[b_entry..b_entry + 2].copy_from_slice(&(off + 1).to_le_bytes());
    assert_eq!(from_slice::<T>(&bytes).unwrap_err().kind(), ErrorKind::Misaligned);
}
