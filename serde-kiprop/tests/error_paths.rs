//! Errors that point (issue 16 item 3): a decode error names the field path where it happened
//! (`m_players[3].m_pos.m_y`, map entries by key), in `Error::path()` and in `Display`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_kiprop::{ClassSchema, ErrorKind, Options, PropertySchema as P, TypeList};

static GAME: ClassSchema = ClassSchema::new(
    "class Game",
    &[
        P::new("m_players").ty("class Player").dynamic(),
        P::new("m_stats").ty("class Stat").dynamic(),
        P::new("m_ranks").ty("class Rank").dynamic(),
    ],
);
static PLAYER: ClassSchema =
    ClassSchema::new("class Player", &[P::new("m_id").ty("unsigned int"), P::new("m_pos").ty("class Pos")]);
static POS: ClassSchema =
    ClassSchema::new("class Pos", &[P::new("m_x").ty("unsigned int"), P::new("m_y").ty("unsigned int")]);
static STAT: ClassSchema =
    ClassSchema::new("class Stat", &[P::new("m_key").ty("std::string"), P::new("m_value").ty("class Pos")]);
static RANK: ClassSchema =
    ClassSchema::new("class Rank", &[P::new("m_key").ty("unsigned int"), P::new("m_value").ty("unsigned int")]);

fn types() -> TypeList {
    TypeList::from_schemas(&[&GAME, &PLAYER, &POS, &STAT, &RANK])
}

/// The written form: every number a u32.
mod wide {
    use super::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
    #[serde(rename = "class Pos")]
    pub(crate) struct Pos {
        pub(crate) m_x: u32,
        pub(crate) m_y: u32,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
    #[serde(rename = "class Player")]
    pub(crate) struct Player {
        pub(crate) m_id: u32,
        pub(crate) m_pos: Pos,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
    #[serde(rename = "class Game")]
    pub(crate) struct Game {
        pub(crate) m_players: Vec<Player>,
        pub(crate) m_stats: BTreeMap<String, Pos>,
        pub(crate) m_ranks: BTreeMap<u32, u32>,
    }
}

/// The read form: `m_y` and the ranks are u8, so 300 does not fit.
mod narrow {
    use super::*;

    #[derive(Deserialize, Debug)]
    #[serde(rename = "class Pos")]
    pub(crate) struct Pos {
        pub(crate) m_x: u32,
        pub(crate) m_y: u8,
    }

    #[derive(Deserialize, Debug)]
    #[serde(rename = "class Player")]
    pub(crate) struct Player {
        pub(crate) m_id: u32,
        pub(crate) m_pos: Pos,
    }

    #[derive(Deserialize, Debug)]
    #[serde(rename = "class Game")]
    pub(crate) struct Game {
        pub(crate) m_players: Vec<Player>,
        pub(crate) m_stats: BTreeMap<String, Pos>,
        pub(crate) m_ranks: BTreeMap<u32, u8>,
    }
}

fn game() -> wide::Game {
    let players = (0..5).map(|i| wide::Player { m_id: i, m_pos: wide::Pos { m_x: i, m_y: i } }).collect();
    let stats = BTreeMap::from([("gold".to_owned(), wide::Pos::default()), ("xp".to_owned(), wide::Pos::default())]);
    wide::Game { m_players: players, m_stats: stats, m_ranks: BTreeMap::from([(1, 1), (7, 2)]) }
}

fn both_modes() -> [Options; 2] {
    [Options::new().property_mask(0), Options::new().deep(true)]
}

fn decode_error(opts: Options, game: &wide::Game) -> serde_kiprop::Error {
    let types = types();
    let bytes = opts.to_vec(game, &types).unwrap();
    opts.from_slice::<narrow::Game>(&bytes, &types).unwrap_err()
}

#[test]
fn path_names_nested_struct_fields_and_sequence_index() {
    let mut g = game();
    g.m_players[3].m_pos.m_y = 300;
    for opts in both_modes() {
        let err = decode_error(opts, &g);
        assert_eq!(err.path(), Some("m_players[3].m_pos.m_y"), "{err}");
        assert!(err.to_string().contains(", in m_players[3].m_pos.m_y"), "{err}");
        assert!(err.to_string().contains("300"), "{err}");
        assert!(err.offset().is_some(), "{err}");
    }
}

#[test]
fn path_names_string_map_keys_quoted() {
    let mut g = game();
    g.m_stats.get_mut("xp").unwrap().m_y = 1000;
    for opts in both_modes() {
        let err = decode_error(opts, &g);
        assert_eq!(err.path(), Some(r#"m_stats["xp"].m_y"#), "{err}");
        assert!(err.to_string().contains(r#"in m_stats["xp"].m_y"#), "{err}");
    }
}

#[test]
fn path_names_number_map_keys_bare() {
    let mut g = game();
    g.m_ranks.insert(7, 256);
    for opts in both_modes() {
        let err = decode_error(opts, &g);
        assert_eq!(err.path(), Some("m_ranks[7]"), "{err}");
    }
}

#[test]
fn truncated_input_reports_the_field_being_read() {
    let types = types();
    let opts = Options::new().property_mask(0);
    let bytes = opts.to_vec(&game(), &types).unwrap();
    // Cut inside the last player's position: the error is an EOF with a path into the players.
    let wide_ok: wide::Game = opts.from_slice(&bytes, &types).unwrap();
    assert_eq!(wide_ok, game());
    let cut = &bytes[..bytes.len() - 40];
    let err = opts.from_slice::<wide::Game>(cut, &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Eof), "{err}");
    let path = err.path().expect("an EOF inside a field has a path");
    assert!(path.starts_with("m_"), "{err}");
}

#[test]
fn errors_outside_any_field_have_no_path() {
    let types = types();
    let err = Options::new().from_slice::<wide::Game>(&[0, 0, 0, 0], &types).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::NullRoot), "{err}");
    assert_eq!(err.path(), None);
    assert!(!err.to_string().contains(", in "), "{err}");
}

#[test]
fn values_that_fit_decode_into_the_narrow_types() {
    let types = types();
    for opts in both_modes() {
        let bytes = opts.to_vec(&game(), &types).unwrap();
        let g: narrow::Game = opts.from_slice(&bytes, &types).unwrap();
        let p = &g.m_players[4];
        assert_eq!((g.m_players.len(), p.m_id, p.m_pos.m_x, p.m_pos.m_y), (5, 4, 4, 4));
        assert_eq!(g.m_stats["xp"].m_y, 0);
        assert_eq!(g.m_ranks[&7], 2);
    }
}
