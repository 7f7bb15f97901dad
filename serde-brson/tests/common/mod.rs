//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The fixtures in `tests/data` (see its PROVENANCE.md), by file name.
pub(crate) const CONTAINERS: &[&str] = &[
    "redx-5ce7cdf5.7zbson",
    "rassi0429-Box.7zbson",
    "rewrapped-rassi0429-Box.brson",
    "rewrapped-rassi0429-Box.lz4bson",
    "rewrapped-rassi0429-Box.7zbson",
    "synthetic-modern.brson",
    "synthetic-modern.lz4bson",
    "synthetic-modern.7zbson",
    "synthetic-modern-smallchunks.lz4bson",
];

pub(crate) fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

pub(crate) fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(path(name)).unwrap_or_else(|e| panic!("read fixture {name}: {e}"))
}

/// Options with the extension hint of the fixture's file name.
pub(crate) fn options_for(name: &str) -> serde_brson::Options {
    serde_brson::Options::new().extension_of(name)
}

/// The decompressed BSON of a fixture.
pub(crate) fn payload(name: &str) -> serde_brson::Payload {
    options_for(name).decompress(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The Python reference decoder's folder (`tests/peer`, see its PROVENANCE.md).
pub(crate) fn peer_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peer")
}

/// Whether python3 and the reference decoder's modules (lz4, brotli, pymongo's bson) are
/// importable; prints a loud SKIPPED line naming `test` if not.
pub(crate) fn peer_available(test: &str) -> bool {
    match std::process::Command::new("python3").args(["-c", "import lz4.block, brotli, bson"]).output() {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            eprintln!(
                "SKIPPED: {test}: Python reference decoder deps not installed (python3 -m pip install lz4 brotli pymongo): {}",
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
            );
            false
        }
        Err(e) => {
            eprintln!("SKIPPED: {test}: python3 not installed ({e})");
            false
        }
    }
}
