//! Interop with the Python reference decoder (`tests/peer/decode_brson.py`, see
//! tests/peer/PROVENANCE.md): every file our writer produces, in every kind, decodes there to
//! exactly our BSON, and pymongo's BSON decoder reads it.
//!
//! Needs `python3` with `lz4`, `brotli` and `pymongo` (`python3 -m pip install lz4 brotli pymongo`;
//! `.ci/run` installs them). Without them the tests print a loud SKIPPED line and pass.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{CONTAINERS, payload, peer_available, peer_dir};
use serde_brson::model::{ComponentEntry, DataTree, DtString, Field, Guid, Slot, TypeRef};
use serde_brson::{Compression, Options};

fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("serde-brson-peer-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the reference decoder's `unwrap` on `file` (with the extension of the file name) and
/// returns the BSON bytes it produced and its container info line.
fn reference_unwrap(file: &Path) -> (Vec<u8>, String) {
    let out_path = file.with_extension("peer-bson");
    let script = format!(
        "import sys, json; sys.path.insert(0, {dir:?}); import decode_brson as d\n\
         p = {file:?}; raw, info = d.unwrap(open(p, 'rb').read(), p.rsplit('.', 1)[-1])\n\
         open({out:?}, 'wb').write(raw); print(json.dumps(info, sort_keys=True))",
        dir = peer_dir().display().to_string(),
        file = file.display().to_string(),
        out = out_path.display().to_string(),
    );
    let out = Command::new("python3").args(["-c", &script]).output().expect("run python3");
    assert!(
        out.status.success(),
        "reference decoder failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (std::fs::read(&out_path).unwrap(), String::from_utf8(out.stdout).unwrap())
}

/// Runs the reference decoder's command line (which also decodes the BSON with pymongo).
fn reference_cli(file: &Path) -> String {
    let out = Command::new("python3")
        .arg(peer_dir().join("decode_brson.py"))
        .arg(file)
        .arg("--quiet")
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "decode_brson.py failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const KINDS: [(Compression, &str, &str); 3] = [
    (Compression::Lz4, "lz4bson", "\"lz4\""),
    (Compression::Lzma, "7zbson", "\"lzma\""),
    (Compression::Brotli, "brson", "\"brotli\""),
];

#[test]
fn reference_decoder_reads_our_files_of_every_fixture() {
    if !peer_available("reference_decoder_reads_our_files_of_every_fixture") {
        return;
    }
    let dir = scratch_dir("fixtures");
    let mut checked = 0;
    for name in ["redx-5ce7cdf5.7zbson", "rassi0429-Box.7zbson", "synthetic-modern.brson"] {
        let bson = payload(name);
        for (compression, ext, kind) in KINDS {
            let file = dir.join(format!("{}.{ext}", name.split('.').next().unwrap()));
            std::fs::write(&file, Options::new().compress(bson.as_bytes(), compression).unwrap()).unwrap();
            let (raw, info) = reference_unwrap(&file);
            assert_eq!(raw, bson.as_bytes(), "{name} as {ext}: the reference decoder's BSON differs from ours");
            assert!(info.contains("\"header\": true") && info.contains(kind), "{info}");
            assert!(!info.contains("warning"), "{info}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(CONTAINERS.len(), 9);
}

#[test]
fn reference_decoder_reads_a_tree_built_with_the_model() {
    if !peer_available("reference_decoder_reads_a_tree_built_with_the_model") {
        return;
    }
    let dir = scratch_dir("model");
    let mut root = Slot {
        id: Guid::from_u128(1),
        name: Some(Field::new(Guid::from_u128(2), Some(DtString::from("@home")))),
        active: Some(Field::new(Guid::from_u128(3), true)),
        position: Some(Field::new(Guid::from_u128(4), [1.0, 2.5, -3.0])),
        ..Slot::default()
    };
    let mut data = bson::Document::new();
    data.insert("ID", Guid::from_u128(6).0);
    data.insert("URL", bson::doc! { "ID": Guid::from_u128(7).0, "Data": "@resdb:///0123abcd.webp" });
    root.components = Some(Field::new(
        Guid::from_u128(5),
        vec![ComponentEntry {
            type_ref: TypeRef::Index(0),
            data: bson::RawDocumentBuf::try_from(&data).unwrap(),
            extra: bson::Document::new(),
        }],
    ));
    // Enough children for more than one 1 MiB lz4net chunk.
    for i in 0..12_000u128 {
        root.children.push(Slot {
            id: Guid::from_u128(1000 + i),
            name: Some(Field::new(Guid::from_u128(100_000 + i), Some(DtString::from(format!("child {i}"))))),
            order_offset: Some(Field::new(Guid::from_u128(200_000 + i), i as i64)),
            ..Slot::default()
        });
    }
    let tree = DataTree {
        version_number: Some("2025.1.1.1".into()),
        types: Some(vec!["[FrooxEngine]FrooxEngine.StaticTexture2D".into()]),
        object: root,
        ..DataTree::default()
    };
    for (compression, ext, kind) in KINDS {
        let bytes = serde_brson::to_vec(&tree, compression).unwrap();
        let file = dir.join(format!("model.{ext}"));
        std::fs::write(&file, &bytes).unwrap();
        let (raw, info) = reference_unwrap(&file);
        let ours = serde_brson::decompress(&bytes).unwrap();
        assert!(raw.len() > 1 << 20, "the tree spans several chunks");
        assert_eq!(raw, ours.as_bytes(), "{ext}");
        assert!(info.contains(kind), "{info}");
        let cli = reference_cli(&file);
        assert!(cli.contains("top-level keys: ['VersionNumber', 'Types', 'Object']"), "{cli}");
        assert!(cli.contains("\"int64\": 12000"), "OrderOffset is written as int64: {cli}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
