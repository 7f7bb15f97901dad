//! serde-godot's decoders on arbitrary bytes, in both versions, with and without full objects:
//! the direct Variant decoder, the serde Deserializer into a Variant, into a typed game message,
//! and skipping. They must return `Ok` or `Err` — never panic, overflow the stack or allocate
//! beyond what the input backs (libFuzzer's malloc limit catches that).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde_godot::{Options, Variant, Version};

#[derive(Deserialize)]
#[allow(dead_code)]
struct Message<'a> {
    kind: &'a str,
    id: u64,
    pos: serde_godot::Vector2,
    path: Option<serde_godot::NodePath>,
    tags: Vec<String>,
    points: serde_godot::PackedVector3Array,
    extra: Variant,
    command: Command,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Command {
    Stop,
    Move(f32, f32),
    Say { text: String },
}

fuzz_target!(|data: &[u8]| {
    for version in [Version::Godot4, Version::Godot3] {
        for full_objects in [false, true] {
            let opts = Options::new().version(version).full_objects(full_objects);
            let _ = Variant::from_bytes(data, &opts);
            let _ = opts.from_slice::<Variant>(data);
            let _ = opts.from_slice::<Message<'_>>(data);
            let _ = opts.from_slice::<serde::de::IgnoredAny>(data);
        }
    }
    let small = Options::new().max_len(16).max_depth(8);
    let _ = small.from_slice::<Variant>(data);
});
