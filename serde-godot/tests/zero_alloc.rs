//! Encoding allocates nothing: into a reused `Vec` (`Options::append`), into a slice
//! (`to_slice`), or to count (`serialized_size`), for derive types — scalars, strings, vectors,
//! options, nested structs, enums — in both struct forms. Counted by testkit's allocator.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_godot::{Options, StructForm, UnitVariants, Vector2, Vector3, bincode};

testkit::install_counting_allocator!();

#[derive(Serialize)]
enum Team {
    Red,
    Blue,
}

#[derive(Serialize)]
enum Action {
    Idle,
    Move(Vector2),
    Attack { target: u32, power: f32 },
    Say(String, u8),
}

#[derive(Serialize)]
struct Stats {
    hp: i32,
    mana: Option<u16>,
    speed: f64,
}

#[derive(Serialize)]
struct Player {
    id: u64,
    name: String,
    alive: bool,
    team: Team,
    pos: Vector2,
    vel: Vector3,
    stats: Stats,
    inventory: Vec<u16>,
    tags: Vec<&'static str>,
    guild: Option<String>,
    actions: Vec<Action>,
    scores: BTreeMap<String, i64>,
    pair: (i8, char),
    big: i64,
}

fn player(i: u64) -> Player {
    Player {
        id: i,
        name: format!("player number {i} with a long name"),
        alive: i % 2 == 0,
        team: if i % 2 == 0 { Team::Red } else { Team::Blue },
        pos: Vector2::new(1.5, -2.0),
        vel: Vector3::new(0.1, 0.2, 0.3),
        stats: Stats { hp: 100, mana: (i % 3 != 0).then_some(7), speed: 0.1 },
        inventory: vec![1, 2, 3, 400],
        tags: vec!["a", "bb", "a tag longer than sixteen bytes"],
        guild: None,
        actions: vec![
            Action::Idle,
            Action::Move(Vector2::new(3.0, 4.0)),
            Action::Attack { target: 9, power: 2.5 },
            Action::Say("hi".to_owned(), 3),
        ],
        scores: [("kills".to_owned(), 3), ("deaths".to_owned(), -1)].into_iter().collect(),
        pair: (-1, 'é'),
        big: 1 << 40,
    }
}

fn all_forms() -> [Options; 3] {
    [
        Options::new(),
        Options::new().struct_form(StructForm::Array),
        Options::new().struct_form(StructForm::Array).unit_variants(UnitVariants::Index),
    ]
}

#[test]
fn append_into_a_reused_vec_allocates_nothing() {
    let players: Vec<Player> = (0..8).map(player).collect();
    for opts in all_forms() {
        let mut buf = Vec::with_capacity(64 * 1024);
        opts.append(&players, &mut buf).unwrap();
        let expected = buf.clone();
        let ((), stats) = testkit::alloc::measure(|| {
            for _ in 0..10 {
                buf.clear();
                opts.append(&players, &mut buf).unwrap();
                for p in &players {
                    opts.append(p, &mut buf).unwrap();
                }
            }
        });
        assert_eq!(stats.count, 0, "{opts:?}: {stats:?}");
        assert_eq!(&buf[..expected.len()], &expected[..]);
    }
}

#[test]
fn to_slice_and_serialized_size_allocate_nothing_and_agree_with_to_vec() {
    let players: Vec<Player> = (0..8).map(player).collect();
    let mut slice = vec![0u8; 64 * 1024];
    for opts in all_forms() {
        let expected = opts.to_vec(&players).unwrap();
        let ((n, size), stats) = testkit::alloc::measure(|| {
            (opts.to_slice(&players, &mut slice).unwrap(), opts.serialized_size(&players).unwrap())
        });
        assert_eq!(stats.count, 0, "{opts:?}: {stats:?}");
        assert_eq!((n, size), (expected.len(), expected.len()));
        assert_eq!(&slice[..n], &expected[..]);
    }
    // The crate-level shortcuts and the bincode module, too.
    let one = player(3);
    let expected = serde_godot::to_vec(&one).unwrap();
    let ((n, size, b1, b2), stats) = testkit::alloc::measure(|| {
        (
            serde_godot::to_slice(&one, &mut slice).unwrap(),
            serde_godot::serialized_size(&one).unwrap(),
            bincode::serialized_size(&one).unwrap(),
            bincode::serde::encode_into_slice(&one, &mut slice, bincode::config::standard()).unwrap(),
        )
    });
    assert_eq!(stats.count, 0, "{stats:?}");
    assert_eq!((n, size, b1 as usize, b2), (expected.len(), expected.len(), expected.len(), expected.len()));
}

#[test]
fn to_slice_too_small_reports_the_size_needed() {
    let one = player(1);
    let needed = serde_godot::serialized_size(&one).unwrap();
    let mut small = vec![0u8; needed - 1];
    let err = serde_godot::to_slice(&one, &mut small).unwrap_err();
    match err.kind() {
        serde_godot::ErrorKind::SizeLimit { size, limit } => assert_eq!((*size, *limit), (needed as u64, needed - 1)),
        other => panic!("{other:?}"),
    }
    let mut exact = vec![0u8; needed];
    assert_eq!(serde_godot::to_slice(&one, &mut exact).unwrap(), needed);
    assert_eq!(exact, serde_godot::to_vec(&one).unwrap());
}
