//! serde-godot's entry points (`from_slice`, `take_from_slice`), which try a quick pass before
//! the Deserializer, against the Deserializer alone on arbitrary bytes: the same value (or the
//! same error kind, offset and field path) and the same end, in both versions and both struct
//! forms' worth of shapes, with default and tight limits.
#![no_main]

use std::fmt::Debug;

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde_godot::{Deserializer, Options, Vector2, Vector3, Version};

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Inner {
    x: f32,
    y: f64,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Mode {
    Idle,
    Run,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Message<'a> {
    id: i64,
    small: u8,
    name: String,
    tag: &'a str,
    pos: Vector2,
    vel: Vector3,
    hp: f32,
    alive: bool,
    note: Option<String>,
    inner: Inner,
    more: Vec<Inner>,
    mode: Mode,
    pair: (i32, f32),
    nothing: (),
}

/// The value's `Debug` text and end, or the error's kind, offset and path.
type Outcome = Result<(String, usize), (String, Option<usize>, Option<String>)>;

fn outcome<T: Debug>(result: serde_godot::Result<(T, usize)>) -> Outcome {
    result
        .map(|(value, end)| (format!("{value:?}"), end))
        .map_err(|e| (format!("{:?}", e.kind()), e.offset(), e.path().map(str::to_owned)))
}

fn check<'de, T: Deserialize<'de> + Debug>(opts: Options, data: &'de [u8]) {
    let alone = |whole: bool| {
        outcome((|| {
            let mut de = Deserializer::with_options(data, opts);
            let value = T::deserialize(&mut de)?;
            if whole {
                de.end()?;
            }
            Ok((value, de.position()))
        })())
    };
    assert_eq!(outcome(opts.from_slice::<T>(data).map(|v| (v, data.len()))), alone(true));
    let taken = opts.take_from_slice::<T>(data).map(|(v, rest)| (v, data.len() - rest.len()));
    assert_eq!(outcome(taken), alone(false));
}

fuzz_target!(|data: &[u8]| {
    for version in [Version::Godot4, Version::Godot3] {
        for opts in [Options::new(), Options::new().max_len(4).max_depth(2)] {
            let opts = opts.version(version);
            check::<Message<'_>>(opts, data);
            check::<Vec<Message<'_>>>(opts, data);
            check::<Option<Inner>>(opts, data);
            check::<Vec<Vec<f32>>>(opts, data);
            check::<(Mode, String)>(opts, data);
        }
    }
});
