//! A small driver for instruction counts of the serde-godot bench rows (no criterion run):
//!
//! ```text
//! cargo build --profile bench --example godot_prof
//! valgrind --tool=callgrind --dump-instr=no --toggle-collect='*profile_loop*' \
//!     target/release/examples/godot_prof packets/deserialize/array 1000
//! ```
//!
//! `<dataset>/<op>/<row> <n>`: dataset `packets` (the rig's 1,000 game messages, each encoded
//! into a cleared buffer and decoded alone, as the `packets_reused` rows do), `log`,
//! `minecraft_savedata` or `mk48` (the whole dataset); op `serialize` or `deserialize`; row
//! `array`, `dict`, `bincode1` or `postcard` (or `floor`, the reference decoder of the packets); `n` passes over the dataset. Instructions per
//! message: the difference of two counts divided by the extra messages. It drives the rig's own
//! codecs (`benches/rig/godot.rs`, `benches/rig/anchors.rs`), with the rig included whole.
#![allow(dead_code, unreachable_pub)]

use std::hint::black_box;

use serde::{Deserialize, Serialize};

#[path = "../benches/rig/mod.rs"]
mod rig;

use rig::anchors::{Bincode1, Postcard};
use rig::godot::{self, GodotArray, GodotDict, Packet};
use rig::{Codec, datasets};

/// The measured part for the packets (callgrind: `--toggle-collect='*profile_loop*'`), as the
/// `packets_reused` rows run it.
#[inline(never)]
fn profile_loop_packets<C: Codec>(op: &str, msgs: &[Packet], all: &[u8], ends: &[usize], n: u32) {
    let mut buf = Vec::with_capacity(4096);
    for _ in 0..n {
        if op == "serialize" {
            godot::encode_each::<C>(black_box(msgs), &mut buf);
        } else {
            godot::decode_each::<C>(all, ends);
        }
    }
}

/// The measured part for a whole dataset.
#[inline(never)]
fn profile_loop_dataset<C: Codec, T>(op: &str, value: &T, bytes: &[u8], n: u32)
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let mut out = Vec::with_capacity(bytes.len());
    for _ in 0..n {
        if op == "serialize" {
            out.clear();
            C::encode(black_box(value), &mut out);
            black_box(out.len());
        } else {
            black_box(C::decode::<T>(black_box(bytes)));
        }
    }
}

fn dataset<C: Codec, T>(op: &str, value: &T, n: u32)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = rig::assert_round_trip::<C, T>("dataset", value);
    profile_loop_dataset::<C, T>(op, value, &bytes, n);
}

fn run<C: Codec>(set: &str, op: &str, n: u32) {
    match set {
        "packets" => {
            let msgs = godot::packets(godot::PACKETS);
            let (mut all, mut ends) = (Vec::new(), Vec::new());
            godot::encode_packets::<C>(&msgs, &mut all, &mut ends);
            assert!(godot::decode_packets::<C>(&all, &ends) == msgs, "round trip");
            profile_loop_packets::<C>(op, &msgs, &all, &ends, n);
        }
        "log" => dataset::<C, _>(op, &datasets::log::generate(datasets::LOG_FULL), n),
        "minecraft_savedata" => dataset::<C, _>(op, &datasets::minecraft::generate(datasets::MINECRAFT_FULL), n),
        "mk48" => dataset::<C, _>(op, &datasets::mk48::generate(datasets::MK48_FULL), n),
        other => panic!("unknown dataset {other}"),
    }
}

/// The measured part for the reference decoder ([`godot::floor`]), as the `packets_reused` rows
/// run it.
#[inline(never)]
fn profile_loop_floor(all: &[u8], ends: &[usize], n: u32) {
    for _ in 0..n {
        godot::decode_each_with(all, ends, godot::floor::decode);
    }
}

/// `packets/deserialize/floor`: the reference decoder on the Array form's bytes.
fn floor(set: &str, op: &str, n: u32) {
    assert!(set == "packets" && op == "deserialize", "the reference decoder only decodes the packets");
    let msgs = godot::packets(godot::PACKETS);
    let (mut all, mut ends) = (Vec::new(), Vec::new());
    godot::encode_packets::<GodotArray>(&msgs, &mut all, &mut ends);
    profile_loop_floor(&all, &ends, n);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(what), Some(n)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: godot_prof <dataset>/<op>/<row> <n>");
        return;
    };
    let n: u32 = n.parse().expect("count");
    let parts: Vec<&str> = what.split('/').collect();
    let [set, op, row] = parts[..] else { panic!("<dataset>/<op>/<row>") };
    match row {
        "floor" => floor(set, op, n),
        "array" => run::<GodotArray>(set, op, n),
        "dict" => run::<GodotDict>(set, op, n),
        "bincode1" => run::<Bincode1>(set, op, n),
        "postcard" => run::<Postcard>(set, op, n),
        other => panic!("unknown row {other}"),
    }
}
