//! insta snapshots of `serde_flatbuf_lite::dump::dump_with_schema` over the buffers in tests/data (the
//! sample monster, flatc's upstream `monsterdata_test.mon`, flatc's annotated_binary), a cut-off buffer,
//! and the check that the dump stops exactly where the schema reader (`Schema::buffer_to_json_with`)
//! does, over every truncation and many single-byte corruptions of those buffers.

mod common;

use std::path::PathBuf;

use serde_flatbuf_lite::Options;
use serde_flatbuf_lite::dump::{dump, dump_with_schema};
use serde_flatbuf_lite::fbs::Schema;

fn path(p: &str) -> PathBuf {
    PathBuf::from(format!("{}/tests/data/{p}", env!("CARGO_MANIFEST_DIR")))
}

fn data(p: &str) -> Vec<u8> {
    std::fs::read(path(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn schema(p: &str, includes: &[&str]) -> Schema {
    let dirs: Vec<PathBuf> = includes.iter().map(|i| path(i)).collect();
    Schema::parse_file(path(p), &dirs).unwrap()
}

/// (name, schema, buffer) of every buffer the snapshots cover.
fn cases() -> Vec<(&'static str, Schema, Vec<u8>)> {
    let monster = || schema("monster_seed/monster.fbs", &[]);
    let upstream = || schema("upstream/monster_test.fbs", &["upstream/include_test"]);
    vec![
        ("monster_seed/full.bin", monster(), data("monster_seed/full.bin")),
        ("monster_seed/minimal.bin", monster(), data("monster_seed/minimal.bin")),
        ("monster_seed/empty_vectors.bin", monster(), data("monster_seed/empty_vectors.bin")),
        ("upstream/monsterdata_test.mon", upstream(), data("upstream/monsterdata_test.mon")),
        (
            "upstream/corrupted/annotated_binary.bin",
            schema("upstream/corrupted/annotated_binary.fbs", &[]),
            data("upstream/corrupted/annotated_binary.bin"),
        ),
    ]
}

fn full(schema: &Schema, bytes: &[u8]) -> String {
    let d = dump_with_schema(bytes, schema, None, &Options::new());
    assert!(d.error().is_none(), "{d}");
    assert!(d.as_str().ends_with(&format!("{:08x}                           end\n", bytes.len())));
    d.to_string()
}

#[test]
fn monster_seed_full() {
    let (_, s, b) = cases().swap_remove(0);
    insta::assert_snapshot!(full(&s, &b));
}

#[test]
fn monster_seed_minimal_and_empty_vectors() {
    let c = cases();
    let text =
        format!("### minimal.bin\n{}\n### empty_vectors.bin\n{}", full(&c[1].1, &c[1].2), full(&c[2].1, &c[2].2));
    insta::assert_snapshot!(text);
}

#[test]
fn upstream_monsterdata_test() {
    let (_, s, b) = cases().swap_remove(3);
    insta::assert_snapshot!(full(&s, &b));
}

#[test]
fn upstream_annotated_binary() {
    let (_, s, b) = cases().swap_remove(4);
    insta::assert_snapshot!(full(&s, &b));
}

#[test]
fn cut_buffer_dumps_up_to_the_error() {
    let (_, s, b) = cases().swap_remove(0);
    let d = dump_with_schema(&b[..b.len() - 24], &s, None, &Options::new());
    assert!(d.error().is_some());
    insta::assert_snapshot!(d.to_string());
}

/// The dump's own walk stops at the error the schema reader returns: the same kind and offset, for
/// every truncation and every single-byte corruption (three values per byte) of every buffer.
#[test]
fn the_dump_errors_exactly_where_the_schema_reader_does() {
    let opts = Options::new();
    let mut checked = 0;
    let mut errors = 0;
    for (name, s, b) in cases() {
        let mut variants: Vec<Vec<u8>> = (0..b.len()).map(|n| b[..n].to_vec()).collect();
        for i in 0..b.len() {
            for v in [0x00, 0xff, b[i] ^ 0x04] {
                let mut c = b.clone();
                c[i] = v;
                variants.push(c);
            }
        }
        for v in &variants {
            let d = dump_with_schema(v, &s, None, &opts);
            let reader = s.buffer_to_json_with(v, None, &opts, None);
            match (d.error(), &reader) {
                (None, Ok(_)) => {}
                (Some(a), Err(b)) => {
                    assert_eq!((a.kind(), a.offset(), a.message()), (b.kind(), b.offset(), b.message()), "{name}");
                    errors += 1;
                    let last = d.as_str().lines().last().unwrap();
                    assert!(last.contains(&format!("error: {b}")), "{name}: {last}");
                }
                (a, b) => panic!("{name}: dump {a:?}, reader {:?}", b.as_ref().err()),
            }
            // Bounded: 16 KiB plus 32 characters per input byte, plus the final line.
            assert!(d.as_str().len() <= 16 * 1024 + 32 * v.len() + 400, "{name}: {}", d.as_str().len());
            checked += 1;
        }
    }
    eprintln!("{checked} buffers, {errors} with errors: the dump and the reader agree on every one");
    assert!(errors > 1000, "{errors}");
}

/// `dump::<T>` (no `.fbs`: the schema traced from the Rust type) annotates the seed monster buffers
/// line for line as the hand-written seed schema does, apart from what only the file says (the
/// namespace in type names, the enum's underlying type).
#[test]
fn typed_dump_reads_like_the_seed_schema() {
    let opts = common::monster_opts();
    let s = schema("monster_seed/monster.fbs", &[]);
    for file in ["full.bin", "minimal.bin", "empty_vectors.bin"] {
        let b = data(&format!("monster_seed/{file}"));
        let typed = dump::<common::Monster>(&b, &opts);
        assert!(typed.error().is_none(), "{file}: {typed}");
        let from_file = dump_with_schema(&b, &s, None, &opts).to_string().replace("MyGame.Sample.", "");
        assert_eq!(typed.to_string(), from_file, "{file}");
    }
    let b = data("monster_seed/full.bin");
    let cut = dump::<common::Monster>(&b[..b.len() - 24], &opts);
    assert!(cut.error().is_some(), "{cut}");
}

/// A type that cannot be traced gives a one-line dump that names the error.
#[test]
fn typed_dump_of_an_untraceable_type_names_the_error() {
    let d = dump::<u32>(&[0; 8], &Options::new());
    assert!(d.error().is_some());
    assert!(d.as_str().starts_with("error: ") && d.as_str().lines().count() == 1, "{d}");
}
