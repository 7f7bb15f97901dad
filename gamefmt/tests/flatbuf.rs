//! `gamefmt --format flatbuf` over the FlatBuffers fixtures: decode/encode round trips (flatc reads our
//! buffers the same), decoded JSON equal to `flatc --json --strict-json --raw-binary` (flatc 25.12.19;
//! without it a loud SKIPPED line), inspect, diff, and the error paths (missing --schema: exit 2; a bad
//! buffer: one line with the path and the byte offset, exit 1, no output file).

#[path = "../../serde-flatbuf-lite/tests/common/fbs_json.rs"]
mod fbs_json;
#[path = "../../serde-flatbuf-lite/tests/common/flatc.rs"]
#[allow(dead_code)]
mod flatc;

use std::fs;
use std::path::PathBuf;

use tempfile::TempDir;

mod common;
use common::{data, ok, run, s};

const SEED: &str = "flatbuf/monster_seed/monster.fbs";
const UPSTREAM: &str = "flatbuf/upstream/monster_test.fbs";
const INCLUDES: &str = "flatbuf/upstream/include_test";

/// (schema, extra args, buffers) of every fixture.
fn cases() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    vec![
        (
            SEED,
            vec![],
            vec![
                "flatbuf/monster_seed/full.bin",
                "flatbuf/monster_seed/minimal.bin",
                "flatbuf/monster_seed/seed_csharp.bin",
            ],
        ),
        (
            UPSTREAM,
            vec!["-I", INCLUDES],
            vec!["flatbuf/upstream/monsterdata_test.mon", "flatbuf/upstream/unicode_test.mon"],
        ),
    ]
}

#[test]
fn decode_matches_flatc_and_encode_round_trips() {
    let Some(flatc) = flatc::flatc("gamefmt's flatbuf JSON against flatc") else { return };
    let dir = TempDir::new().unwrap();
    let mut checked = 0;
    for (schema, extra, bufs) in cases() {
        let includes: Vec<PathBuf> = extra.iter().skip(1).map(|d| data().join(d)).collect();
        let originals: Vec<Vec<u8>> = bufs.iter().map(|b| fs::read(data().join(b)).unwrap()).collect();
        let theirs = fbs_json::flatc_json(
            &flatc,
            &data().join(schema),
            &includes,
            None,
            &originals,
            &dir.path().join(format!("t{checked}")),
        );
        for (k, buf) in bufs.iter().enumerate() {
            let mut args = vec!["decode", "--schema", schema];
            args.extend(&extra);
            args.push(buf);
            let ours: serde_json::Value = serde_json::from_slice(&ok(&args)).unwrap();
            if let Err(d) = fbs_json::same(&ours, &theirs[k], "") {
                panic!("{buf}: {d}");
            }
            // Encode our JSON back; flatc reads the new buffer as it read the original.
            let json = dir.path().join(format!("{checked}-{k}.json"));
            let out = dir.path().join(format!("{checked}-{k}.bin"));
            let mut dec = args.clone();
            dec.extend(["--compact", "-o", s(&json)]);
            ok(&dec);
            let mut enc = vec!["encode", "--schema", schema];
            enc.extend(&extra);
            enc.extend([s(&json), "-o", s(&out)]);
            ok(&enc);
            let rebuilt = fs::read(&out).unwrap();
            let again = fbs_json::flatc_json(
                &flatc,
                &data().join(schema),
                &includes,
                None,
                &[rebuilt],
                &dir.path().join(format!("a{checked}-{k}")),
            );
            // flatc leaves scalars equal to their default out of what it prints for either buffer.
            if let Err(d) = fbs_json::same(&again[0], &theirs[k], "") {
                panic!("{buf} re-encoded: {d}");
            }
            // Our own output decodes to the same JSON.
            let mut redec = vec!["decode", "--schema", schema];
            redec.extend(&extra);
            redec.extend(["--compact", s(&out)]);
            assert_eq!(ok(&redec), fs::read(&json).unwrap(), "{buf}: decode of our encode");
        }
        checked += bufs.len();
    }
    eprintln!("gamefmt flatbuf: {checked} fixtures equal to flatc's JSON and round-tripped");
}

#[test]
fn detection_inspect_and_diff() {
    // The schema's file_identifier ("MONS") tells the format without --format.
    let text = String::from_utf8(ok(&[
        "inspect",
        "--schema",
        UPSTREAM,
        "-I",
        INCLUDES,
        "flatbuf/upstream/monsterdata_test.mon",
    ]))
    .unwrap();
    assert!(text.starts_with("format: flatbuf\nsize: 600 bytes\nroot type: MyGame.Example.Monster\n"), "{text}");
    assert!(text.contains("file identifier: \"MONS\" (the schema's)"), "{text}");
    assert!(text.contains("tables: ") && text.contains("vectors: "), "{text}");
    // --hex: the library's schema-driven dump, after the report.
    let hex = String::from_utf8(ok(&["inspect", "--hex", "--schema", SEED, "flatbuf/monster_seed/full.bin"])).unwrap();
    let schema = serde_flatbuf_lite::fbs::Schema::parse_file(data().join(SEED), &[]).unwrap();
    let bytes = fs::read(data().join("flatbuf/monster_seed/full.bin")).unwrap();
    let expected =
        serde_flatbuf_lite::dump::dump_with_schema(&bytes, &schema, None, &serde_flatbuf_lite::Options::new());
    assert!(expected.error().is_none(), "{expected}");
    let after = hex.split_once("annotated hex dump (offset, bytes, meaning):\n").unwrap().1;
    assert_eq!(after, expected.to_string());
    insta::assert_snapshot!("inspect_flatbuf_hex", hex);
    let same = run(&["diff", "--schema", SEED, "flatbuf/monster_seed/full.bin", "flatbuf/monster_seed/full.bin"]);
    assert_eq!(same.status, 0, "{}", same.stderr);
    let differ = run(&["diff", "--schema", SEED, "flatbuf/monster_seed/full.bin", "flatbuf/monster_seed/minimal.bin"]);
    assert_eq!(differ.status, 1, "{}", differ.stderr);
    assert!(String::from_utf8_lossy(&differ.stdout).contains("/name"), "{}", String::from_utf8_lossy(&differ.stdout));
    // --root-type picks another table.
    let weapon = run(&["decode", "--schema", SEED, "--root-type", "Weapon", "flatbuf/monster_seed/full.bin"]);
    assert_eq!(weapon.status, 1, "a Monster read as a Weapon does not verify: {}", weapon.stderr);
}

#[test]
fn errors() {
    let dir = TempDir::new().unwrap();
    // No schema: a usage error.
    let r = run(&["decode", "--format", "flatbuf", "flatbuf/monster_seed/full.bin"]);
    assert_eq!(r.status, 2);
    assert_eq!(
        r.stderr,
        "gamefmt: flatbuf/monster_seed/full.bin: flatbuf: flatbuf needs a schema: give --schema FILE.fbs\n"
    );
    let r = run(&["encode", "--format", "flatbuf", "flatbuf/monster_seed/full.bin"]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    // A bad schema: a usage error with file:line:column.
    let bad_fbs = dir.path().join("bad.fbs");
    fs::write(&bad_fbs, "table T { a:int }\n").unwrap();
    let r = run(&["decode", "--schema", s(&bad_fbs), "flatbuf/monster_seed/full.bin"]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("bad.fbs:1:17: expected `;`, found `}`"), "{}", r.stderr);
    // A truncated buffer: one line with the path and the byte offset, exit 1, no output file.
    let full = fs::read(data().join("flatbuf/monster_seed/full.bin")).unwrap();
    let cut = dir.path().join("cut.bin");
    fs::write(&cut, &full[..40]).unwrap();
    let out = dir.path().join("cut.json");
    let r = run(&["decode", "--schema", SEED, s(&cut), "-o", s(&out)]);
    assert_eq!(r.status, 1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with(&format!("gamefmt: {}: flatbuf: ", cut.display())), "{}", r.stderr);
    assert!(r.stderr.contains("at byte "), "{}", r.stderr);
    assert!(!out.exists());
    // JSON that does not fit the schema: its path in the message, exit 1.
    let json = dir.path().join("m.json");
    fs::write(&json, r#"{"name": "Orc", "hp": "lots", "equipped_type": "Weapon", "equipped": {}}"#).unwrap();
    let r = run(&["encode", "--schema", SEED, s(&json), "-o", s(&dir.path().join("m.bin"))]);
    assert_eq!(r.status, 1);
    assert!(r.stderr.contains("at /hp: \"lots\" is not a short"), "{}", r.stderr);
}

/// `--size-prefixed` reads and writes buffers with flatc's 4-byte length prefix; flatc
/// `--size-prefixed` reads the buffer we write as it reads the original.
#[test]
fn size_prefixed_buffers_read_and_write_with_the_flag() {
    let dir = TempDir::new().unwrap();
    let plain = fs::read(data().join("flatbuf/monster_seed/full.bin")).unwrap();
    let mut prefixed = u32::try_from(plain.len()).unwrap().to_le_bytes().to_vec();
    prefixed.extend(&plain);
    let input = dir.path().join("full.sp.bin");
    fs::write(&input, &prefixed).unwrap();
    let want = ok(&["decode", "--schema", SEED, "flatbuf/monster_seed/full.bin"]);
    assert_eq!(ok(&["decode", "--schema", SEED, "--size-prefixed", s(&input)]), want);
    // Without the flag the prefixed buffer does not verify as a plain one.
    assert_eq!(run(&["decode", "--schema", SEED, s(&input)]).status, 1);
    let json = dir.path().join("full.json");
    ok(&["decode", "--schema", SEED, "--size-prefixed", s(&input), "-o", s(&json)]);
    let out = dir.path().join("again.bin");
    ok(&["encode", "--schema", SEED, "--size-prefixed", s(&json), "-o", s(&out)]);
    let written = fs::read(&out).unwrap();
    let len = u32::from_le_bytes(written[..4].try_into().unwrap()) as usize;
    assert_eq!(len, written.len() - 4, "the prefix is the length of the rest");
    assert_eq!(ok(&["decode", "--schema", SEED, "--size-prefixed", s(&out)]), want);
    assert!(
        String::from_utf8(ok(&["inspect", "--hex", "--schema", SEED, "--size-prefixed", s(&out)]))
            .unwrap()
            .contains("size prefix")
    );
    let Some(flatc) = flatc::flatc("gamefmt's size-prefixed flatbuf against flatc") else { return };
    let theirs = |buf: &std::path::Path, tag: &str| {
        let o = dir.path().join(tag);
        flatc::run(
            std::process::Command::new(&flatc)
                .args(["--json", "--strict-json", "--raw-binary", "--size-prefixed", "-o"])
                .arg(&o)
                .arg(data().join(SEED))
                .arg("--")
                .arg(buf),
        );
        let name = buf.file_stem().unwrap().to_str().unwrap().to_owned() + ".json";
        fbs_json::parse_flatc_json(&fs::read_to_string(o.join(name)).unwrap())
    };
    if let Err(d) = fbs_json::same(&theirs(&out, "b"), &theirs(&input, "a"), "") {
        panic!("flatc reads our size-prefixed buffer differently: {d}");
    }
}
