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
