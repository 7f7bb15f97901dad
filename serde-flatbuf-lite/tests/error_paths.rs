//! Errors that point (issue 16 item 3): a decode error names the field path where it happened
//! (`players[3].pos.kind`, map entries by key), in `Error::path()` and in `Display`; and a hint when the
//! buffer shows another root type or a size prefix.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{ErrorKind, Options};

/// The written form: every enum-like value a plain `u8`.
mod wide {
    use super::*;

    #[derive(Serialize, Debug, Clone, Default)]
    #[serde(rename = "Vec3")]
    pub(crate) struct Vec3 {
        pub(crate) x: f32,
        pub(crate) y: f32,
        pub(crate) kind: u8,
    }

    #[derive(Serialize, Debug, Clone, Default)]
    #[serde(rename = "Cell")]
    pub(crate) struct Cell {
        pub(crate) a: u8,
        pub(crate) b: u8,
    }

    #[derive(Serialize, Debug, Clone, Default)]
    pub(crate) struct Player {
        pub(crate) name: String,
        pub(crate) pos: Vec3,
        pub(crate) team: u8,
    }

    #[derive(Serialize, Debug, Clone, Default)]
    pub(crate) struct World {
        pub(crate) players: Vec<Player>,
        pub(crate) roster: BTreeMap<String, Player>,
        pub(crate) ranks: BTreeMap<u32, u8>,
        pub(crate) cells: Vec<Cell>,
    }
}

/// The read form: enums with two variants, so 7 is not a valid value.
mod narrow {
    use super::*;

    #[derive(Deserialize, Debug, PartialEq)]
    pub(crate) enum Kind {
        Ground,
        Air,
    }

    #[derive(Deserialize, Debug)]
    #[serde(rename = "Vec3")]
    pub(crate) struct Vec3 {
        pub(crate) x: f32,
        pub(crate) y: f32,
        pub(crate) kind: Kind,
    }

    #[derive(Deserialize, Debug)]
    #[serde(rename = "Cell")]
    pub(crate) struct Cell {
        pub(crate) a: u8,
        pub(crate) b: Kind,
    }

    #[derive(Deserialize, Debug)]
    pub(crate) struct Player {
        pub(crate) name: String,
        pub(crate) pos: Vec3,
        pub(crate) team: Kind,
    }

    #[derive(Deserialize, Debug)]
    pub(crate) struct World {
        pub(crate) players: Vec<Player>,
        pub(crate) roster: BTreeMap<String, Player>,
        pub(crate) ranks: BTreeMap<u32, Kind>,
        pub(crate) cells: Vec<Cell>,
    }
}

fn opts() -> Options {
    Options::new().inline_struct("Vec3").inline_struct("Cell")
}

fn world() -> wide::World {
    let player = |i: u8| wide::Player { name: format!("p{i}"), pos: wide::Vec3 { x: 1.0, y: 2.0, kind: 1 }, team: 0 };
    wide::World {
        players: (0..5).map(player).collect(),
        roster: BTreeMap::from([("ann".to_owned(), player(8)), ("bob".to_owned(), player(9))]),
        ranks: BTreeMap::from([(1, 0), (7, 1)]),
        cells: (0..4).map(|i| wide::Cell { a: i, b: 1 }).collect(),
    }
}

fn decode_error(w: &wide::World) -> serde_flatbuf_lite::Error {
    let bytes = opts().to_vec(w).unwrap();
    opts().from_slice::<narrow::World>(&bytes).unwrap_err()
}

#[test]
fn values_that_fit_decode_into_the_narrow_types() {
    let bytes = opts().to_vec(&world()).unwrap();
    let w: narrow::World = opts().from_slice(&bytes).unwrap();
    let p = &w.players[4];
    assert_eq!(
        (p.name.as_str(), p.pos.x, p.pos.y, &p.pos.kind, &p.team),
        ("p4", 1.0, 2.0, &narrow::Kind::Air, &narrow::Kind::Ground)
    );
    assert_eq!(w.roster["bob"].name, "p9");
    assert_eq!(w.ranks[&7], narrow::Kind::Air);
    assert_eq!((w.cells[3].a, &w.cells[3].b), (3, &narrow::Kind::Air));
}

#[test]
fn path_names_table_fields_and_vector_index() {
    let mut w = world();
    w.players[3].team = 7;
    let err = decode_error(&w);
    assert_eq!(err.path(), Some("players[3].team"), "{err}");
    assert!(err.to_string().contains(", in players[3].team"), "{err}");
}

#[test]
fn path_names_inline_struct_members() {
    let mut w = world();
    w.players[2].pos.kind = 7;
    let err = decode_error(&w);
    assert_eq!(err.path(), Some("players[2].pos.kind"), "{err}");
}

#[test]
fn path_names_members_of_vectors_read_in_bulk() {
    // The first element takes the general reader, the later ones the packed bulk reader.
    for i in [0, 2] {
        let mut w = world();
        w.cells[i].b = 7;
        let err = decode_error(&w);
        assert_eq!(err.path(), Some(format!("cells[{i}].b").as_str()), "{err}");
    }
}

#[test]
fn path_names_string_map_keys_quoted() {
    let mut w = world();
    w.roster.get_mut("bob").unwrap().pos.kind = 7;
    let err = decode_error(&w);
    assert_eq!(err.path(), Some(r#"roster["bob"].pos.kind"#), "{err}");
    assert!(err.to_string().contains(r#", in roster["bob"].pos.kind"#), "{err}");
}

#[test]
fn path_names_number_map_keys_bare() {
    let mut w = world();
    w.ranks.insert(7, 9);
    let err = decode_error(&w);
    assert_eq!(err.path(), Some("ranks[7]"), "{err}");
}

#[test]
fn structural_errors_carry_the_path_too() {
    // A string whose bytes are not UTF-8: the verifier's error names the field.
    #[derive(Serialize)]
    struct Raw {
        players: Vec<RawPlayer>,
    }
    #[derive(Serialize)]
    struct RawPlayer {
        #[serde(with = "serde_bytes")]
        name: Vec<u8>,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)] // only decoded to fail
    struct Named {
        players: Vec<NamedPlayer>,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)] // only decoded to fail
    struct NamedPlayer {
        name: String,
    }
    let raw = Raw { players: vec![RawPlayer { name: b"ok\0".to_vec() }, RawPlayer { name: vec![0xff, 0xfe, 0] }] };
    let bytes = serde_flatbuf_lite::to_vec(&raw).unwrap();
    let err = serde_flatbuf_lite::from_slice::<Named>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidUtf8, "{err}");
    assert_eq!(err.path(), Some("players[1].name"), "{err}");
    assert!(err.offset().is_some());
}

#[test]
fn header_errors_have_no_path() {
    let err = serde_flatbuf_lite::from_slice::<narrow::World>(&[1, 2]).unwrap_err();
    assert_eq!(err.path(), None, "{err}");
    assert!(!err.to_string().contains(", in "), "{err}");
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Ping {
    seq: u32,
}

#[test]
fn identifier_mismatch_hints_at_another_root_type() {
    let bytes = Options::new().file_identifier(*b"MONS").to_vec(&Ping { seq: 1 }).unwrap();
    let err = Options::new().file_identifier(*b"PING").from_slice::<Ping>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::IdentifierMismatch);
    let hint = err.hint().expect("a hint");
    assert!(hint.contains("root type") && hint.contains("Ping"), "{err}");
    assert!(err.to_string().contains(hint), "{err}");
}

#[test]
fn failing_buffer_with_an_identifier_hints_at_it() {
    // A monster buffer (identifier MONS) read as a World without checking identifiers.
    let bytes = Options::new().file_identifier(*b"MONS").to_vec(&Ping { seq: 5 }).unwrap();
    let err = opts().from_slice::<narrow::World>(&bytes).unwrap_err();
    let hint = err.hint().expect("a hint");
    assert!(hint.contains("\"MONS\"") && hint.contains("file_identifier"), "{err}");
}

#[test]
fn size_prefixed_buffer_read_without_the_option_hints_at_it() {
    let bytes = Options::new().size_prefixed(true).to_vec(&world()).unwrap();
    let err = opts().from_slice::<narrow::World>(&bytes).unwrap_err();
    let hint = err.hint().expect("a hint");
    assert!(hint.contains("size_prefixed(true)"), "{err}");
}
