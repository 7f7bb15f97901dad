//! Structs in Dictionary form whose keys are their field names in order are read as a sequence
//! of values (no field visitor); everything else (another order, aliases, unknown or missing
//! keys, visitors without `visit_seq`, errors) must give exactly the map path's answer: values,
//! error text, offset and field path. The map path is what `Deserializer` itself does (only the
//! `from_slice`-style entry points, which can decode again, take the sequence path).

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_godot::{Deserializer, Options, bincode};

/// The map path's answer: the `Deserializer` used directly.
fn map_path<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> serde_godot::Result<T> {
    let mut de = Deserializer::from_slice(bytes);
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Decodes `bytes` through every slice entry point and checks each against the map path.
fn same_as_map_path<T: for<'de> Deserialize<'de> + PartialEq + fmt::Debug>(bytes: &[u8]) -> Result<T, String> {
    let expected = map_path::<T>(bytes).map_err(|e| (e.to_string(), e.path().map(str::to_owned)));
    let got = serde_godot::from_slice::<T>(bytes).map_err(|e| (e.to_string(), e.path().map(str::to_owned)));
    assert_eq!(got, expected);
    let taken = Options::new().take_from_slice::<T>(bytes).map(|(value, rest)| {
        assert!(rest.is_empty());
        value
    });
    assert_eq!(taken.map_err(|e| (e.to_string(), e.path().map(str::to_owned))), expected);
    let via_bincode = bincode::deserialize::<T>(bytes).map_err(|e| e.to_string());
    assert_eq!(via_bincode.as_ref().ok(), expected.as_ref().ok());
    let from_reader = bincode::deserialize_from::<_, T>(bytes);
    assert_eq!(from_reader.as_ref().ok(), expected.as_ref().ok());
    expected.map_err(|(text, _)| text)
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Serialize)]
struct PosYx {
    y: f32,
    x: f32,
}

#[test]
fn fields_in_order_decode() {
    let bytes = serde_godot::to_vec(&Pos { x: 1.0, y: 2.0 }).unwrap();
    assert_eq!(same_as_map_path::<Pos>(&bytes), Ok(Pos { x: 1.0, y: 2.0 }));
}

#[test]
fn fields_in_another_order_decode_as_a_map() {
    let bytes = serde_godot::to_vec(&PosYx { y: 2.0, x: 1.0 }).unwrap();
    assert_eq!(same_as_map_path::<Pos>(&bytes), Ok(Pos { x: 1.0, y: 2.0 }));
    // The same key twice is the map path's duplicate field error.
    #[derive(Serialize)]
    struct XX {
        x: f32,
        #[serde(rename = "x")]
        x2: f32,
    }
    let err = same_as_map_path::<Pos>(&serde_godot::to_vec(&XX { x: 1.0, x2: 2.0 }).unwrap()).unwrap_err();
    assert!(err.contains("duplicate field `x`"), "{err}");
}

#[test]
fn aliases_unknown_and_missing_keys() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Aliased {
        #[serde(alias = "px")]
        x: f32,
        y: f32,
    }
    #[derive(Serialize)]
    struct Px {
        px: f32,
        y: f32,
    }
    let bytes = serde_godot::to_vec(&Px { px: 1.0, y: 2.0 }).unwrap();
    assert_eq!(same_as_map_path::<Aliased>(&bytes), Ok(Aliased { x: 1.0, y: 2.0 }));
    let bytes = serde_godot::to_vec(&Pos { x: 1.0, y: 2.0 }).unwrap();
    assert_eq!(same_as_map_path::<Aliased>(&bytes), Ok(Aliased { x: 1.0, y: 2.0 }));

    #[derive(Deserialize, Debug, PartialEq)]
    struct Defaulted {
        x: f32,
        #[serde(default)]
        y: f32,
    }
    // As many entries as fields, one of them unknown: ignored, `y` defaulted.
    #[derive(Serialize)]
    struct XZ {
        x: f32,
        z: f32,
    }
    let bytes = serde_godot::to_vec(&XZ { x: 1.0, z: 9.0 }).unwrap();
    assert_eq!(same_as_map_path::<Defaulted>(&bytes), Ok(Defaulted { x: 1.0, y: 0.0 }));
    // A missing key with a default.
    #[derive(Serialize)]
    struct X {
        x: f32,
    }
    let bytes = serde_godot::to_vec(&X { x: 1.0 }).unwrap();
    assert_eq!(same_as_map_path::<Defaulted>(&bytes), Ok(Defaulted { x: 1.0, y: 0.0 }));
    // Unknown keys refused.
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        x: f32,
        y: f32,
    }
    let err = same_as_map_path::<Strict>(&serde_godot::to_vec(&XZ { x: 1.0, z: 9.0 }).unwrap()).unwrap_err();
    assert!(err.contains("unknown field `z`"), "{err}");
    // A missing key without a default.
    let err = same_as_map_path::<Pos>(&serde_godot::to_vec(&X { x: 1.0 }).unwrap()).unwrap_err();
    assert!(err.contains("missing field `y`"), "{err}");
}

/// A hand-written struct visitor that only knows maps.
#[derive(Debug, PartialEq)]
struct MapOnly {
    x: f32,
    y: f32,
}

impl<'de> Deserialize<'de> for MapOnly {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MapOnly;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a MapOnly map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MapOnly, A::Error> {
                let (mut x, mut y) = (0.0, 0.0);
                while let Some(key) = map.next_key::<&str>()? {
                    match key {
                        "x" => x = map.next_value()?,
                        _ => y = map.next_value()?,
                    }
                }
                Ok(MapOnly { x, y })
            }
        }
        deserializer.deserialize_struct("MapOnly", &["x", "y"], V)
    }
}

#[test]
fn a_visitor_without_visit_seq_still_gets_the_map() {
    let bytes = serde_godot::to_vec(&Pos { x: 1.0, y: 2.0 }).unwrap();
    assert_eq!(same_as_map_path::<MapOnly>(&bytes), Ok(MapOnly { x: 1.0, y: 2.0 }));
    // Its own error text, inside a struct read as a sequence.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Outer {
        a: i32,
        inner: MapOnly,
    }
    #[derive(Serialize)]
    struct BadOuter {
        a: i32,
        inner: i32,
    }
    let err = same_as_map_path::<Outer>(&serde_godot::to_vec(&BadOuter { a: 1, inner: 5 }).unwrap()).unwrap_err();
    assert!(err.contains("expected a MapOnly map"), "{err}");
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Default)]
struct Body {
    id: i64,
    pos: Pos,
    tags: Vec<String>,
}

#[derive(Serialize)]
struct BodyYx {
    id: i64,
    pos: PosYx,
    tags: Vec<String>,
}

#[test]
fn nested_structs_out_of_order_decode_as_maps() {
    let expected = Body { id: 3, pos: Pos { x: 1.0, y: 2.0 }, tags: vec!["a".into()] };
    let bytes = serde_godot::to_vec(&expected).unwrap();
    assert_eq!(same_as_map_path::<Body>(&bytes), Ok(Body { ..expected }));
    let bytes = serde_godot::to_vec(&BodyYx { id: 3, pos: PosYx { y: 2.0, x: 1.0 }, tags: vec!["a".into()] }).unwrap();
    let back = same_as_map_path::<Body>(&bytes).unwrap();
    assert_eq!(back.pos, Pos { x: 1.0, y: 2.0 });
    let bodies = vec![Body::default(), back];
    assert_eq!(same_as_map_path::<Vec<Body>>(&serde_godot::to_vec(&bodies).unwrap()).unwrap(), bodies);
}

/// A value whose own visitor swallows the error of a nested struct: the sequence pass must not
/// keep its answer.
#[derive(Debug, PartialEq)]
struct Lenient(Pos);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a one-element array")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Lenient, A::Error> {
                let pos = seq.next_element::<Pos>().ok().flatten().unwrap_or_default();
                Ok(Lenient(pos))
            }
        }
        deserializer.deserialize_seq(V)
    }
}

#[test]
fn an_error_swallowed_by_a_visitor_does_not_keep_the_sequence_answer() {
    let bytes = serde_godot::to_vec(&[PosYx { y: 2.0, x: 1.0 }]).unwrap();
    assert_eq!(same_as_map_path::<Lenient>(&bytes), Ok(Lenient(Pos { x: 1.0, y: 2.0 })));
}

#[test]
fn a_wrong_value_type_has_the_map_path_error_text_and_field_path() {
    #[derive(Serialize)]
    struct BadBody {
        id: i64,
        pos: BadPos,
        tags: Vec<String>,
    }
    #[derive(Serialize)]
    struct BadPos {
        x: f32,
        y: &'static str,
    }
    let bytes = serde_godot::to_vec(&[BadBody { id: 1, pos: BadPos { x: 1.0, y: "no" }, tags: vec![] }]).unwrap();
    let err = serde_godot::from_slice::<Vec<Body>>(&bytes).unwrap_err();
    assert_eq!(err.path(), Some("[0].pos.y"), "{err}");
    assert_eq!(err.to_string(), r#"invalid type: string "no", expected f32 at byte 88, in [0].pos.y"#);
    same_as_map_path::<Vec<Body>>(&bytes).unwrap_err();
    // Cut short: the same end-of-input error at every length.
    for len in 0..bytes.len() {
        let err = same_as_map_path::<Vec<Body>>(&bytes[..len]).unwrap_err();
        assert!(!err.contains("field order"), "{err}");
    }
}

#[test]
fn a_reader_gives_one_message_and_keeps_the_next() {
    let mut stream = serde_godot::to_vec(&PosYx { y: 2.0, x: 1.0 }).unwrap();
    stream.extend(serde_godot::to_vec(&Pos { x: 3.0, y: 4.0 }).unwrap());
    let mut reader = &stream[..];
    assert_eq!(bincode::deserialize_from::<_, Pos>(&mut reader).unwrap(), Pos { x: 1.0, y: 2.0 });
    assert_eq!(bincode::deserialize_from::<_, Pos>(&mut reader).unwrap(), Pos { x: 3.0, y: 4.0 });
    assert!(reader.is_empty());
}

/// The struct of the random test: scalars, a string, nested structs (plain and optional), a
/// defaulted field, a vector and an enum, so that every kind of value sits behind a key.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Unit {
    id: u32,
    name: String,
    pos: Pos,
    hp: Option<u16>,
    tags: Vec<String>,
    kind: Kind,
    #[serde(default)]
    score: i64,
    inner: Option<Pos>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Kind {
    Ship,
    Mine(i32),
    Torpedo { fuse: f32 },
}

const UNIT_FIELDS: [&str; 8] = ["id", "name", "pos", "hp", "tags", "kind", "score", "inner"];

/// A Dictionary's encoding from raw key/value encodings, in the given order (duplicates allowed,
/// as in a hostile packet).
fn dictionary(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let empty = serde_godot::Variant::Dictionary(Default::default()).to_bytes(&Options::new()).unwrap();
    let mut out = empty[..4].to_vec();
    out.extend((entries.len() as u32).to_le_bytes());
    for (key, value) in entries {
        out.extend(key);
        out.extend(value);
    }
    out
}

/// A key: the field's name as a String (mostly), a StringName, or an int.
fn key(name: &str, rng: &mut testkit::rng::Pcg32) -> Vec<u8> {
    use serde_godot::Variant;
    let variant = match rng.below(50) {
        0 | 1 => Variant::StringName(name.into()),
        2 => Variant::Int(name.len() as i64),
        _ => Variant::from(name),
    };
    variant.to_bytes(&Options::new()).unwrap()
}

/// A value that fits no field of `Unit` well, or fits some by accident.
fn stray_value(rng: &mut testkit::rng::Pcg32) -> Vec<u8> {
    use serde_godot::Variant;
    let variant = match rng.below(7) {
        0 => Variant::Nil,
        1 => Variant::Int(rng.range_i64(-3, 70_000)),
        2 => Variant::Float(f64::from(rng.f32_in(-2.0, 2.0))),
        3 => Variant::from(rng.ident(0, 6).as_str()),
        4 => Variant::Bool(rng.chance(1, 2)),
        5 => Variant::from(vec![Variant::Int(1), Variant::from("a")]),
        _ => Variant::from([("x", Variant::Float(1.0))]),
    };
    variant.to_bytes(&Options::new()).unwrap()
}

/// A struct in Dictionary form: the fields' keys in order (the sequence path) or shuffled, some
/// dropped, duplicated or joined by unknown keys, values of the right type (nested structs again
/// at random) or stray ones.
fn random_struct(
    fields: &[&str],
    value: &mut dyn FnMut(&str, &mut testkit::rng::Pcg32) -> Vec<u8>,
    rng: &mut testkit::rng::Pcg32,
) -> Vec<u8> {
    let mut names: Vec<String> = fields.iter().map(|f| (*f).to_owned()).collect();
    if rng.chance(1, 2) {
        for i in (1..names.len()).rev() {
            names.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    if rng.chance(1, 10) {
        names.remove(rng.below(names.len() as u64) as usize);
    }
    if rng.chance(1, 8) {
        let at = rng.below(names.len() as u64 + 1) as usize;
        names.insert(at, rng.pick(&["extra", "ID", "x", "Pos"]).to_string());
    }
    if rng.chance(1, 20) && !names.is_empty() {
        let again = names[rng.below(names.len() as u64) as usize].clone();
        names.push(again);
    }
    let entries: Vec<(Vec<u8>, Vec<u8>)> = names
        .iter()
        .map(|name| {
            let v = if rng.chance(1, 40) { stray_value(rng) } else { value(name, rng) };
            (key(name, rng), v)
        })
        .collect();
    dictionary(&entries)
}

fn random_pos(rng: &mut testkit::rng::Pcg32) -> Vec<u8> {
    random_struct(&["x", "y"], &mut |_, rng| serde_godot::to_vec(&rng.f32_in(-9.0, 9.0)).unwrap(), rng)
}

fn random_unit(rng: &mut testkit::rng::Pcg32) -> Vec<u8> {
    let mut value = |name: &str, rng: &mut testkit::rng::Pcg32| -> Vec<u8> {
        match name {
            "id" => serde_godot::to_vec(&(rng.below(1 << 20) as u32)).unwrap(),
            "name" => serde_godot::to_vec(&rng.ident(0, 8)).unwrap(),
            "pos" => random_pos(rng),
            "hp" if rng.chance(1, 3) => serde_godot::to_vec(&None::<u16>).unwrap(),
            "hp" => serde_godot::to_vec(&Some(rng.below(200) as u16)).unwrap(),
            "tags" => serde_godot::to_vec(&(0..rng.below(3)).map(|_| rng.ident(1, 4)).collect::<Vec<_>>()).unwrap(),
            "kind" => {
                let kind = [Kind::Ship, Kind::Mine(-4), Kind::Torpedo { fuse: 0.5 }][rng.below(3) as usize].clone();
                serde_godot::to_vec(&kind).unwrap()
            }
            "score" => serde_godot::to_vec(&rng.range_i64(-1000, 1000)).unwrap(),
            "inner" if rng.chance(1, 3) => serde_godot::to_vec(&None::<Pos>).unwrap(),
            "inner" => random_pos(rng),
            _ => stray_value(rng),
        }
    };
    random_struct(&UNIT_FIELDS, &mut value, rng)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
        std::env::var("GODOT_STRUCT_KEYS_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(5_000)
    ))]

    /// Random Dictionaries shaped like a struct, alone and three in an Array: every slice entry
    /// point gives the map path's answer (value, or error text and field path).
    #[test]
    fn random_struct_dictionaries_give_the_map_path_answer(seed in proptest::prelude::any::<u64>()) {
        let mut rng = testkit::rng::Pcg32::new(seed, 16);
        let one = random_unit(&mut rng);
        let _ = same_as_map_path::<Unit>(&one);
        let array = serde_godot::Variant::from(Vec::<serde_godot::Variant>::new()).to_bytes(&Options::new()).unwrap();
        let mut three = array[..4].to_vec();
        three.extend(3u32.to_le_bytes());
        three.extend(&one);
        three.extend(random_unit(&mut rng));
        three.extend(random_unit(&mut rng));
        let _ = same_as_map_path::<Vec<Unit>>(&three);
        // Cut short anywhere: the same error as the map path.
        let cut = rng.below(three.len() as u64) as usize;
        let _ = same_as_map_path::<Vec<Unit>>(&three[..cut]);
    }
}

#[test]
fn the_random_structs_reach_both_paths() {
    // A guard on the generator: errors are not all it makes (at least a third of the
    // random Dictionaries decode).
    let mut rng = testkit::rng::Pcg32::new(7, 16);
    let (mut ok, mut total) = (0, 0);
    for _ in 0..500 {
        total += 1;
        if map_path::<Unit>(&random_unit(&mut rng)).is_ok() {
            ok += 1;
        }
    }
    assert!(ok * 3 > total, "only {ok} of {total} random structs decode");
}
