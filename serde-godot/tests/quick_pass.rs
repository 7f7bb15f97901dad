//! The entry points' quick pass (`from_slice`, `take_from_slice` and what calls them) must give
//! exactly what the `Deserializer` gives for the same bytes: the same value and the same bytes
//! after it, or an error (the Deserializer's own: the quick pass never decides one). Checked on
//! random messages of every shape the quick pass reads and many it gives up on, in every struct
//! form and version, whole and mutated; and on visitors that swallow errors.

use std::cell::Cell;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_godot::{
    Color, Deserializer, Options, StructForm, UnitVariants, Variant, Vector2, Vector2i, Vector3, Version,
};
use testkit::rng::Pcg32;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
struct Inner {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Mode {
    Idle,
    Run,
    Fly,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Dot,
    Circle(f32),
    Box { w: f32, h: f32 },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Wrap(u16);

/// Every kind of field the quick pass reads, and (in `odd`, sometimes) some it gives up on.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Msg {
    id: i64,
    small: u8,
    big: u64,
    f: f32,
    d: f64,
    flag: bool,
    name: String,
    note: Option<String>,
    tags: Vec<String>,
    pos: Vector2,
    vel: Vector3,
    tint: Color,
    /// Godot 4 only (Godot 3 has no Vector2i).
    cell: Option<Vector2i>,
    inner: Inner,
    more: Vec<Inner>,
    maybe: Option<Inner>,
    mode: Mode,
    pair: (i32, f32),
    wrap: Wrap,
    nothing: (),
    odd: Option<Odd>,
}

/// Fields the quick pass gives up on: a data enum, a map, a char.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Odd {
    shape: Shape,
    map: BTreeMap<String, i32>,
    ch: char,
}

fn random_msg(rng: &mut Pcg32, godot4: bool) -> Msg {
    let inner = |rng: &mut Pcg32| Inner { x: rng.f32_in(-9.0, 9.0), y: rng.f32_in(-9.0, 9.0) };
    let rare = |rng: &mut Pcg32| rng.chance(1, 4);
    Msg {
        id: if rare(rng) { rng.next_u64() as i64 } else { rng.range_i64(-1000, 1000) },
        small: rng.below(256) as u8,
        big: if rare(rng) { rng.next_u64() >> 1 } else { rng.below(1 << 31) },
        f: rng.f32_in(-1e6, 1e6),
        d: if rare(rng) { rng.unit_f64() } else { f64::from(rng.f32_in(-5.0, 5.0)) },
        flag: rng.chance(1, 2),
        name: if rare(rng) { "é".repeat(rng.usize_in(0, 30)) } else { rng.ident(0, 20) },
        note: rng.chance(1, 2).then(|| rng.ident(0, 70)),
        tags: (0..rng.below(4)).map(|_| rng.ident(0, 5)).collect(),
        pos: Vector2::new(rng.f32_in(-1.0, 1.0), rng.f32_in(-1.0, 1.0)),
        vel: Vector3::new(rng.f32_in(-1.0, 1.0), 0.5, rng.f32_in(-1.0, 1.0)),
        tint: Color::new(0.1, rng.unit_f32(), 0.3, 1.0),
        cell: godot4.then(|| Vector2i::new(rng.range_i64(-50, 50) as i32, 7)),
        inner: inner(rng),
        more: (0..rng.below(3)).map(|_| inner(rng)).collect(),
        maybe: rng.chance(1, 2).then(|| inner(rng)),
        mode: rng.pick(&[Mode::Idle, Mode::Run, Mode::Fly]).clone(),
        pair: (rng.range_i64(-9, 9) as i32, 0.25),
        wrap: Wrap(rng.below(65536) as u16),
        nothing: (),
        odd: rare(rng).then(|| Odd {
            shape: rng.pick(&[Shape::Dot, Shape::Circle(2.0), Shape::Box { w: 1.0, h: 3.0 }]).clone(),
            map: (0..rng.below(3)).map(|i| (format!("k{i}"), i as i32)).collect(),
            ch: *rng.pick(&['a', 'ß', '€']),
        }),
    }
}

/// The value (as `Debug` text: a NaN equals itself there) and where it ended, or where an error
/// was and what it was (its text may carry a version hint that only the entry points look for).
type Outcome = Result<(String, usize), (String, Option<usize>, Option<String>)>;

fn outcome<T: std::fmt::Debug>(result: serde_godot::Result<(T, usize)>) -> Outcome {
    result
        .map(|(value, end)| (format!("{value:?}"), end))
        .map_err(|e| (format!("{:?}", e.kind()), e.offset(), e.path().map(str::to_owned)))
}

/// The Deserializer's answer: the value and where it ended, or its error (trailing bytes too
/// where `whole`).
fn deserializer<'de, T: Deserialize<'de> + std::fmt::Debug>(opts: Options, bytes: &'de [u8], whole: bool) -> Outcome {
    outcome((|| {
        let mut de = Deserializer::with_options(bytes, opts);
        let value = T::deserialize(&mut de)?;
        if whole {
            de.end()?;
        }
        Ok((value, de.position()))
    })())
}

/// The entry points against the Deserializer; returns how many decoded.
fn same_answer<'de, T: Deserialize<'de> + PartialEq + std::fmt::Debug>(opts: Options, bytes: &'de [u8]) -> bool {
    let expected = deserializer::<T>(opts, bytes, true);
    let got = outcome(opts.from_slice::<T>(bytes).map(|v| (v, bytes.len())));
    assert_eq!(got, expected, "from_slice, {opts:?}, bytes {bytes:02x?}");
    let expected_taken = deserializer::<T>(opts, bytes, false);
    let taken = outcome(opts.take_from_slice::<T>(bytes).map(|(v, rest)| (v, bytes.len() - rest.len())));
    assert_eq!(taken, expected_taken, "take_from_slice, {opts:?}, bytes {bytes:02x?}");
    got.is_ok()
}

/// Changes `bytes` a little: a byte, a header word, the end.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Pcg32) {
    if bytes.len() < 4 {
        bytes.push(rng.below(256) as u8);
        return;
    }
    match rng.below(5) {
        0 => {
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] = rng.below(256) as u8;
        }
        1 => {
            // Another header where one was (a type id, maybe with the 64-bit flag).
            let at = rng.below(bytes.len() as u64 / 4) as usize * 4;
            let header = rng.below(40) as u32 | if rng.chance(1, 4) { 1 << 16 } else { 0 };
            if let Some(word) = bytes.get_mut(at..at + 4) {
                word.copy_from_slice(&header.to_le_bytes());
            }
        }
        2 => bytes.truncate(rng.below(bytes.len() as u64) as usize),
        3 => {
            let n = rng.usize_in(1, 8);
            bytes.extend(rng.bytes(n));
        }
        _ => {
            // A count or length made larger or smaller.
            let at = rng.below(bytes.len() as u64 / 4) as usize * 4;
            if let Some(word) = bytes.get_mut(at..at + 4) {
                let v = u32::from_le_bytes(word.try_into().unwrap());
                word.copy_from_slice(&v.wrapping_add(rng.range_i64(-2, 3) as u32).to_le_bytes());
            }
        }
    }
}

/// Options for decoding, and the same without limits for encoding.
fn random_options(rng: &mut Pcg32) -> (Options, Options, bool) {
    let version = *rng.pick(&[Version::Godot4, Version::Godot3]);
    let encode = Options::new()
        .version(version)
        .struct_form(*rng.pick(&[StructForm::Array, StructForm::Dictionary]))
        .unit_variants(*rng.pick(&[UnitVariants::Name, UnitVariants::Index]));
    let mut opts = encode;
    if rng.chance(1, 8) {
        opts = opts.max_depth(rng.usize_in(0, 3));
    }
    if rng.chance(1, 8) {
        opts = opts.max_len(rng.usize_in(0, 6));
    }
    (opts, encode, version == Version::Godot4)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
        std::env::var("GODOT_QUICK_PASS_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3_000)
    ))]

    /// Random messages, encoded in a random form and version and then mutated a few times:
    /// the entry points give the Deserializer's answer, as the whole message, its parts and a
    /// vector of them.
    #[test]
    fn the_quick_pass_gives_the_deserializers_answer(seed in proptest::prelude::any::<u64>()) {
        let mut rng = Pcg32::new(seed, 18);
        let (opts, encode, godot4) = random_options(&mut rng);
        let msgs: Vec<Msg> = (0..rng.usize_in(1, 3)).map(|_| random_msg(&mut rng, godot4)).collect();
        let one = encode.to_vec(&msgs[0]).unwrap();
        let all = encode.to_vec(&msgs).unwrap();
        let inner = encode.to_vec(&msgs[0].inner).unwrap();
        let tags = encode.to_vec(&msgs[0].tags).unwrap();
        for round in 0..6 {
            let (mut one, mut all, mut inner, mut tags) = (one.clone(), all.clone(), inner.clone(), tags.clone());
            for _ in 0..round {
                mutate(&mut one, &mut rng);
                mutate(&mut all, &mut rng);
                mutate(&mut inner, &mut rng);
                mutate(&mut tags, &mut rng);
            }
            same_answer::<Msg>(opts, &one);
            same_answer::<Vec<Msg>>(opts, &all);
            same_answer::<Option<Inner>>(opts, &inner);
            same_answer::<(f32, f32)>(opts, &inner);
            same_answer::<Vec<String>>(opts, &tags);
            same_answer::<Vec<&str>>(opts, &tags);
            same_answer::<Variant>(opts, &one);
        }
    }
}

#[test]
fn whole_messages_decode_in_every_form_and_version() {
    let mut rng = Pcg32::new(7, 18);
    for _ in 0..200 {
        for version in [Version::Godot4, Version::Godot3] {
            let msg = random_msg(&mut rng, version == Version::Godot4);
            for (form, names) in
                [(StructForm::Array, UnitVariants::Index), (StructForm::Dictionary, UnitVariants::Name)]
            {
                let opts = Options::new().version(version).struct_form(form).unit_variants(names);
                let bytes = opts.to_vec(&msg).unwrap();
                assert!(same_answer::<Msg>(opts, &bytes));
                assert_eq!(opts.from_slice::<Msg>(&bytes).unwrap(), msg);
            }
        }
    }
}

/// A field that takes a default when its value does not decode (as `serde_with`'s
/// `DefaultOnError` does): it swallows the quick pass's errors.
#[derive(Debug, PartialEq, Default)]
struct Lax(String);

impl<'de> Deserialize<'de> for Lax {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Lax(String::deserialize(deserializer).unwrap_or_default()))
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct WithLax {
    hp: i32,
    name: Lax,
}

#[test]
fn an_error_swallowed_by_a_visitor_does_not_keep_the_quick_answer() {
    // A StringName, which only the Deserializer reads as a String: the quick pass gives up on
    // it without reading it, `Lax` swallows that, and the struct ends there. Its answer (an
    // empty name, the StringName left unread) must not be kept.
    for form in [StructForm::Array, StructForm::Dictionary] {
        let opts = Options::new().struct_form(form);
        let value = match form {
            StructForm::Array => Variant::from(vec![Variant::Int(3), Variant::StringName("hi".into())]),
            _ => Variant::from([("hp", Variant::Int(3)), ("name", Variant::StringName("hi".into()))]),
        };
        let bytes = value.to_bytes(&opts).unwrap();
        let expected = WithLax { hp: 3, name: Lax("hi".into()) };
        assert_eq!(opts.from_slice::<WithLax>(&bytes).unwrap(), expected);
        let (value, rest) = opts.take_from_slice::<WithLax>(&bytes).unwrap();
        assert_eq!((value, rest.len()), (expected, 0));
    }
}

thread_local! {
    static RUNS: Cell<u32> = const { Cell::new(0) };
}

/// `Inner`, counting how many times it is decoded.
#[derive(Debug, PartialEq)]
struct Counted(Inner);

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RUNS.set(RUNS.get() + 1);
        Inner::deserialize(deserializer).map(Counted)
    }
}

#[derive(Deserialize, Debug)]
struct Named {
    #[expect(dead_code, reason = "only decoded, to count the passes")]
    inner: Counted,
    name: String,
}

/// How many passes `from_slice::<Counted>` took over `value`'s bytes.
fn passes(opts: Options, value: &Variant) -> u32 {
    RUNS.set(0);
    let bytes = value.to_bytes(&opts).unwrap();
    assert_eq!(opts.from_slice::<Counted>(&bytes).unwrap(), Counted(Inner { x: 1.0, y: 2.0 }));
    RUNS.get()
}

#[test]
fn derived_messages_take_one_pass_and_others_at_most_two() {
    let opts = Options::new();
    let (x, y) = (Variant::Float(1.0), Variant::Float(2.0));
    // What the quick pass reads: one pass.
    assert_eq!(passes(opts, &Variant::from(vec![x.clone(), y.clone()])), 1);
    assert_eq!(passes(opts, &Variant::from([("x", x.clone()), ("y", y.clone())])), 1);
    // Numbers as GDScript sends them: a whole number as an int, a double that no f32 holds
    // exactly as a 64-bit float.
    let wide = Variant::Float(f64::from_bits(2.0f64.to_bits() + 1));
    assert_eq!(passes(opts, &Variant::from(vec![Variant::Int(1), wide.clone()])), 1);
    assert_eq!(passes(opts, &Variant::from([("x", Variant::Int(1)), ("y", wide)])), 1);
    // A value the quick pass does not read (a String for an f32, an error): the Deserializer
    // decides; then both decode the bytes as Godot 3 bytes, looking for a version hint.
    let bytes = Variant::from(vec![x.clone(), Variant::from("2")]).to_bytes(&opts).unwrap();
    RUNS.set(0);
    assert!(opts.from_slice::<Counted>(&bytes).is_err());
    assert_eq!(RUNS.get(), 4);
    // Keys out of order: the quick pass gives up and the map path follows (not the keyed pass,
    // which would give up at the same key).
    assert_eq!(passes(opts, &Variant::from([("y", y.clone()), ("x", x.clone())])), 2);
    // Keys in order with a value the quick pass does not read (a StringName for a String, in
    // `Named`): the keyed pass reads it.
    RUNS.set(0);
    let named =
        Variant::from([("inner", Variant::from([("x", x), ("y", y)])), ("name", Variant::StringName("n".into()))]);
    let bytes = named.to_bytes(&opts).unwrap();
    assert_eq!(opts.from_slice::<Named>(&bytes).unwrap().name, "n");
    assert_eq!(RUNS.get(), 2);
}
