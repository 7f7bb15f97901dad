//! Errors that point (issue 16 item 3): every decode error of the typed deserializer carries the JSON
//! Pointer path of the value it happened at (O3DE's own form, `/players/3/pos/x`), in `Error::path()` and
//! in `Display` — syntax errors, the end of input, the depth limit, type mismatches, missing and duplicate
//! fields, unknown enum names, invalid lengths and custom visitor errors; through structs, sequences and
//! maps, with and without a report.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_o3de::{Options, Outcome, ResultCode, Task};

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // decoded to fail
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // decoded to fail
enum Team {
    Red,
    Blue,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // decoded to fail
struct Player {
    pos: Pos,
    team: Team,
    pair: [u8; 2],
    #[serde(deserialize_with = "even")]
    score: u32,
}

fn even<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let n = u32::deserialize(d)?;
    if n % 2 == 0 { Ok(n) } else { Err(serde::de::Error::custom(format!("{n} is odd"))) }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // decoded to fail
struct World {
    players: Vec<Player>,
    teams: BTreeMap<String, Pos>,
}

fn player(body: &str) -> String {
    format!(r#"{{"pos": {{"x": 1, "y": 2}}, "team": "Red", "pair": [1, 2], "score": 2{body}}}"#)
}

/// A world whose fourth player is `bad`.
fn world(bad: &str) -> String {
    let good = player("");
    format!(r#"{{"players": [{good}, {good}, {good}, {bad}], "teams": {{"blue": {{"x": 0, "y": 0}}}}}}"#)
}

/// Decodes `text` plainly and with a report; both must fail with the same path, shown in `Display`.
fn error_path(text: &str) -> String {
    let plain = serde_o3de::from_str::<World>(text).unwrap_err();
    let reported = Options::new().load_str::<World>(text).unwrap_err();
    let path = plain.path().unwrap_or_else(|| panic!("no path: {plain}")).to_owned();
    assert_eq!(reported.path(), Some(path.as_str()), "{text}");
    assert!(plain.to_string().contains(&format!(" at {path}")), "{plain}");
    path
}

/// O3DE skips a value it cannot convert (Unsupported, the field keeps its default) instead of failing the
/// load: the report's issue for it carries the path; a callback that makes it halting turns it into an
/// error with the same path.
fn issue_path(text: &str) -> String {
    let err = Options::new()
        .load_str_with::<World>(text, |_| ResultCode::new(Task::Convert, Outcome::Catastrophic))
        .unwrap_err();
    let path = err.path().unwrap_or_else(|| panic!("no path: {err}")).to_owned();
    assert!(err.to_string().contains(&format!(" at {path}")), "{err}");
    let (_, report) = Options::new().load_str::<World>(text).unwrap();
    assert!(
        report.issues.iter().any(|i| i.outcome() != Outcome::Success && i.path.as_str() == path),
        "{path}: {:?}",
        report.issues
    );
    path
}

#[test]
fn type_mismatch_in_nested_struct_has_its_path() {
    let bad = r#"{"pos": {"x": 1, "y": "high"}, "team": "Red", "pair": [1, 2], "score": 2}"#;
    assert_eq!(issue_path(&world(bad)), "/players/3/pos/y");
}

#[test]
fn map_value_errors_have_the_key_in_the_path() {
    let text = world(&player("")).replace(r#""blue": {"x": 0, "y": 0}"#, r#""blue": {"x": 0, "y": []}"#);
    assert_eq!(issue_path(&text), "/teams/blue/y");
}

#[test]
fn unknown_enum_name_has_its_path() {
    let bad = r#"{"pos": {"x": 1, "y": 2}, "team": "Green", "pair": [1, 2], "score": 2}"#;
    assert_eq!(issue_path(&world(bad)), "/players/3/team");
}

#[test]
fn invalid_length_has_its_path() {
    let bad = r#"{"pos": {"x": 1, "y": 2}, "team": "Red", "pair": [1, 2, 3], "score": 2}"#;
    assert!(issue_path(&world(bad)).starts_with("/players/3/pair"));
}

#[test]
fn custom_visitor_error_has_its_path() {
    let bad = r#"{"pos": {"x": 1, "y": 2}, "team": "Red", "pair": [1, 2], "score": 3}"#;
    assert_eq!(issue_path(&world(bad)), "/players/3/score");
}

#[test]
fn missing_field_names_the_struct() {
    let bad = r#"{"pos": {"x": 1}, "team": "Red", "pair": [1, 2], "score": 2}"#;
    let text = world(bad);
    let err = Options::new()
        .load_str_with::<World>(&text, |_| ResultCode::new(Task::Convert, Outcome::Catastrophic))
        .unwrap_err();
    assert_eq!(err.path(), Some("/players/3/pos"), "{err}");
    // The report (after the loader's second pass) puts the skipped value one level up: the player whose
    // `pos` could not be built.
    let (_, report) = Options::new().load_str::<World>(&text).unwrap();
    assert_eq!(report.issues.len(), 1, "{:?}", report.issues);
    assert_eq!(report.issues[0].path.as_str(), "/players/3");
}

#[test]
fn syntax_errors_have_their_path() {
    let bad = r#"{"pos": {"x": 1, "y": 2,, }, "team": "Red", "pair": [1, 2], "score": 2}"#;
    assert_eq!(error_path(&world(bad)), "/players/3/pos");
}

#[test]
fn end_of_input_has_its_path() {
    let text = world(&player(""));
    let cut = &text[..text.len() - 4]; // inside {"x": 0, "y": 0 of the "blue" team
    let err = serde_o3de::from_str::<World>(cut).unwrap_err();
    assert!(err.is_eof(), "{err}");
    assert_eq!(error_path(cut), "/teams/blue/y");
}

#[test]
fn depth_limit_error_has_its_path() {
    let deep = format!(r#"{{"players": [], "teams": {{"a": {}}}}}"#, "[".repeat(200) + &"]".repeat(200));
    let err = serde_o3de::from_str::<World>(&deep).unwrap_err();
    assert!(err.path().is_some_and(|p| p.starts_with("/teams/a/0/0")), "{err}");
}
