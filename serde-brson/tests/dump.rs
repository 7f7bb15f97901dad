//! insta snapshots of `serde_brson::dump` over the files in tests/data: the real NeosVR file in
//! full, the containers (header, compression wrapper, start of the payload) of every fixture, and
//! a cut-off file (the dump up to the error, then the error).

use std::fmt::Write as _;

mod common;

use common::{CONTAINERS, fixture, options_for as opts};
use serde_brson::Options;
use serde_brson::dump::dump;

/// The whole dump of a fixture that decodes.
fn full(name: &str) -> String {
    let d = dump(&fixture(name), &opts(name));
    assert!(d.error().is_none(), "{d}");
    d.to_string()
}

#[test]
fn real_box_file_in_full() {
    insta::assert_snapshot!(full("rassi0429-Box.7zbson"));
}

#[test]
fn synthetic_modern_file_in_full() {
    insta::assert_snapshot!(full("synthetic-modern.7zbson"));
}

#[test]
fn every_container() {
    let mut text = String::new();
    for &name in CONTAINERS {
        let bytes = fixture(name);
        let d = dump(&bytes, &opts(name));
        assert!(d.error().is_none(), "{name}: {}", d.error().unwrap());
        // Every payload byte is accounted for: the walk ends at the payload's end.
        let payload = opts(name).decompress(&bytes).unwrap();
        assert!(d.as_str().ends_with(&format!("{:08x}                           end\n", payload.as_bytes().len())));
        let lines: Vec<&str> = d.as_str().lines().collect();
        let heading = lines.iter().rposition(|l| l.starts_with("== ")).unwrap();
        let _ = writeln!(text, "### {name}\n{}\n…\n", lines[..(heading + 8).min(lines.len())].join("\n"));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn damaged_files_dump_up_to_the_error() {
    let mut text = String::new();
    let bson = fixture("synthetic-modern.bson");
    let file = Options::new().allow_uncompressed(true).compress(&bson, serde_brson::Compression::None).unwrap();
    let cut = &file[..200];
    let d = dump(cut, &Options::new().allow_uncompressed(true));
    assert!(d.error().is_some());
    let _ = writeln!(text, "### uncompressed file cut at 200 bytes\n{d}");
    let lzma = fixture("synthetic-modern.7zbson");
    let d = dump(&lzma[..lzma.len() - 100], &Options::new());
    assert!(d.error().is_some());
    let _ = writeln!(text, "### LZMA file missing its last 100 bytes\n{d}");
    let d = dump(b"FrDT\x01\0\0\0\x02", &Options::new());
    let _ = writeln!(text, "### a header from the future\n{d}");
    insta::assert_snapshot!(text);
}
