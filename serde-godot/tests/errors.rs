//! Decoding errors that point: what was found against what was expected, where (offset and
//! field path), and a hint where one can be given.

use serde_godot::Options;

#[test]
fn longer_array_into_fixed_array_says_found_and_expected_counts() {
    let bytes = serde_godot::to_vec(&[1.0f32, 2.0, 3.0]).unwrap();
    let err = serde_godot::from_slice::<[f32; 2]>(&bytes).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
    let err = serde_godot::from_slice::<(f32, f32)>(&bytes).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
    let packed = serde_godot::to_vec(&serde_godot::PackedFloat32Array(vec![1.0, 2.0, 3.0])).unwrap();
    let err = serde_godot::from_slice::<[f32; 2]>(&packed).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
    let strings =
        serde_godot::to_vec(&serde_godot::PackedStringArray(vec!["a".into(), "b".into(), "c".into()])).unwrap();
    let err = Options::new().from_slice::<(String, String)>(&strings).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
}

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_godot::{ObjectId, Rid, StructForm, Version, bincode};

testkit::install_counting_allocator!();

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Player<'a> {
    name: &'a str,
    pos: Pos,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Game<'a> {
    tick: u32,
    #[serde(borrow)]
    players: Vec<Player<'a>>,
}

/// The same shape with a String where a float should be.
#[derive(Serialize)]
struct BadPos {
    x: &'static str,
    y: f32,
}

#[derive(Serialize)]
struct BadPlayer {
    name: &'static str,
    pos: BadPos,
}

/// Serializes as its content (untagged), so a list can mix good and bad players.
#[derive(Serialize)]
#[serde(untagged)]
enum Slot {
    Good(Player<'static>),
    Bad(BadPlayer),
}

#[derive(Serialize)]
struct BadGame {
    tick: u32,
    players: Vec<Slot>,
}

/// A game whose `players[3].pos.x` is a String.
fn bad_game(opts: &Options) -> Vec<u8> {
    let good = |i: u8| Slot::Good(Player { name: "p", pos: Pos { x: f32::from(i), y: 0.0 } });
    let bad = Slot::Bad(BadPlayer { name: "p", pos: BadPos { x: "oops", y: 0.0 } });
    opts.to_vec(&BadGame { tick: 1, players: vec![good(0), good(1), good(2), bad, good(4)] }).unwrap()
}

#[test]
fn decode_error_names_the_field_path_in_the_dictionary_form() {
    let opts = Options::new();
    let err = opts.from_slice::<Game<'_>>(&bad_game(&opts)).unwrap_err();
    assert_eq!(err.path(), Some("players[3].pos.x"), "{err}");
    // The text shown in the README.
    assert_eq!(err.to_string(), r#"invalid type: string "oops", expected f32 at byte 392, in players[3].pos.x"#);
}

#[test]
fn decode_error_names_the_field_path_in_the_array_form() {
    let opts = Options::new().struct_form(StructForm::Array);
    let err = opts.from_slice::<Game<'_>>(&bad_game(&opts)).unwrap_err();
    assert_eq!(err.path(), Some("players[3].pos.x"), "{err}");
}

#[test]
fn decode_error_path_comes_through_the_bincode_module() {
    let bytes = bad_game(&Options::new());
    let err = bincode::deserialize::<Game<'_>>(&bytes).unwrap_err();
    assert_eq!(err.path(), Some("players[3].pos.x"), "{err}");
    assert!(err.to_string().contains("players[3].pos.x"), "{err}");
    let err =
        bincode::deserialize_from::<_, Pos>(&serde_godot::to_vec(&BadPos { x: "a", y: 0.0 }).unwrap()[..]).unwrap_err();
    assert_eq!(err.path(), Some("x"), "{err}");
    let err = bincode::serde::decode_from_slice::<Vec<Pos>, _>(
        &serde_godot::to_vec(&[BadPos { x: "a", y: 0.0 }]).unwrap(),
        bincode::config::standard(),
    )
    .unwrap_err();
    assert_eq!(err.path(), Some("[0].x"), "{err}");
}

#[test]
fn decode_error_path_names_dictionary_keys_and_enum_variants() {
    let mut map = BTreeMap::new();
    map.insert("spawn point", BadPos { x: "a", y: 0.0 });
    let err = serde_godot::from_slice::<BTreeMap<String, Pos>>(&serde_godot::to_vec(&map).unwrap()).unwrap_err();
    assert_eq!(err.path(), Some(r#"["spawn point"].x"#), "{err}");
    let mut by_id = BTreeMap::new();
    by_id.insert(7, BadPos { x: "a", y: 0.0 });
    let err = serde_godot::from_slice::<BTreeMap<i32, Pos>>(&serde_godot::to_vec(&by_id).unwrap()).unwrap_err();
    assert_eq!(err.path(), Some("[7].x"), "{err}");

    #[derive(Serialize)]
    enum BadMsg {
        Move(BadPos),
    }
    #[derive(Deserialize, Debug)]
    enum Msg {
        #[allow(dead_code)]
        Move(Pos),
    }
    for form in [StructForm::Dictionary, StructForm::Array] {
        let opts = Options::new().struct_form(form);
        let err = opts.from_slice::<Msg>(&opts.to_vec(&BadMsg::Move(BadPos { x: "a", y: 0.0 })).unwrap()).unwrap_err();
        assert_eq!(err.path(), Some("Move.x"), "{form:?}: {err}");
    }
}

#[test]
fn top_level_errors_have_no_path() {
    let err = serde_godot::from_slice::<u32>(&serde_godot::to_vec("text").unwrap()).unwrap_err();
    assert_eq!(err.path(), None, "{err}");
}

#[test]
fn successful_decoding_builds_no_path_and_allocates_nothing() {
    let players = (0..5).map(|i| Player { name: "p", pos: Pos { x: i as f32, y: 0.0 } }).collect();
    let game = Game { tick: 1, players };
    for form in [StructForm::Dictionary, StructForm::Array] {
        let opts = Options::new().struct_form(form);
        let bytes = opts.to_vec(&game).unwrap();
        // Only the Vec of players allocates: one allocation, whatever the depth of the paths.
        let (back, stats) = testkit::alloc::measure(|| opts.from_slice::<Game<'_>>(&bytes).unwrap());
        assert_eq!(back, game);
        assert_eq!(stats.count, 1, "{form:?}: {stats:?}");
    }
}

#[test]
fn godot3_bytes_read_as_godot4_get_a_hint_and_back() {
    // A Godot 3 Dictionary (type 18) is a Transform3D header in Godot 4.
    let g3 = Options::new().version(Version::Godot3);
    let pos = Pos { x: 1.0, y: 2.0 };
    let bytes = g3.to_vec(&pos).unwrap();
    let err = Options::new().from_slice::<Pos>(&bytes).unwrap_err();
    assert!(err.hint().unwrap().contains("Godot 3"), "{err}");
    assert!(err.to_string().contains("Version::Godot3"), "{err}");
    let g4 = Options::new().to_vec(&pos).unwrap();
    let err = g3.from_slice::<Pos>(&g4).unwrap_err();
    assert!(err.hint().unwrap().contains("Godot 4"), "{err}");
    let err = serde_godot::Variant::from_bytes(&Options::new().to_vec(&serde_godot::Vector2i::new(1, 2)).unwrap(), &g3)
        .unwrap_err();
    assert!(err.hint().is_some_and(|h| h.contains("Godot 4")), "{err}");
    // Bytes that are wrong in both versions get no hint.
    let err = Options::new().from_slice::<Pos>(&[0xEE, 0, 0, 0]).unwrap_err();
    assert_eq!(err.hint(), None, "{err}");
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Owner {
    owner: u64,
}

#[derive(Serialize)]
struct SentOwner<T> {
    owner: T,
}

#[test]
fn object_ids_and_rids_are_refused_as_integers_unless_allowed() {
    for bytes in [
        serde_godot::to_vec(&SentOwner { owner: ObjectId(1234) }).unwrap(),
        serde_godot::to_vec(&SentOwner { owner: Rid(1234) }).unwrap(),
    ] {
        let err = serde_godot::from_slice::<Owner>(&bytes).unwrap_err();
        assert_eq!(err.path(), Some("owner"), "{err}");
        assert!(err.to_string().contains("ids_as_integers"), "{err}");
        let lenient = Options::new().ids_as_integers(true);
        assert_eq!(lenient.from_slice::<Owner>(&bytes).unwrap(), Owner { owner: 1234 });
        assert!(serde_godot::from_slice::<SentOwnerBack>(&bytes).is_ok());
        assert!(serde_godot::from_slice::<f64>(&bytes[bytes.len() - 12..]).is_err());
    }
    let id = serde_godot::to_vec(&ObjectId(9)).unwrap();
    assert_eq!(serde_godot::from_slice::<ObjectId>(&id).unwrap(), ObjectId(9));
    let rid = serde_godot::to_vec(&Rid(9)).unwrap();
    assert_eq!(serde_godot::from_slice::<Rid>(&rid).unwrap(), Rid(9));
    assert_eq!(serde_godot::from_slice::<serde_json::Value>(&id).unwrap(), serde_json::json!(9));
}

/// What the typed side should declare: the id types.
#[derive(Deserialize)]
#[serde(untagged)]
enum SentOwnerBack {
    #[allow(dead_code)]
    Object { owner: ObjectId },
    #[allow(dead_code)]
    Resource { owner: Rid },
}
