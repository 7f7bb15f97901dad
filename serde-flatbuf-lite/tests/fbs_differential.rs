//! Differential test of the schema-driven reader and writer against flatc 25.12.19 on the rich schema
//! (testkit/flatbuf-oracle/schemas/rich.fbs): random `Hero` documents — every field kind, absent fields,
//! every union member, vectors of tables/structs/strings/enums, keyed vectors, fixed arrays, optional
//! scalars, the deprecated field, enum values as names and as numbers, a recursive companion — go through
//! `flatc -b`; then
//! - our JSON of flatc's buffer equals `flatc --json` of it (at flatc's float precision), and equals the
//!   document itself exactly (floats exact; only where flatc leaves a default out or names an enum
//!   does flatc's form stand in for the document's);
//! - `flatc --json` of our writer's buffer for the document equals `flatc --json` of flatc's buffer,
//!   and our reader reads our buffer as it read flatc's.
//!
//! flatc runs once per batch of documents, not once per case. Without flatc: a loud SKIPPED line.

mod common;

use std::path::{Path, PathBuf};

use common::fbs_json::{flatc_binary, flatc_json, same};
use common::flatc::flatc;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_flatbuf_lite::fbs::Schema;
use serde_json::{Map, Value, json};

/// Cases per run (override with FBS_DIFF_CASES).
const CASES: usize = 1000;

fn rich_fbs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/flatbuf-oracle/schemas/rich.fbs")
}

type S = BoxedStrategy<Value>;

fn f32v() -> S {
    prop_oneof![
        Just(0.0f32),
        Just(-0.0f32),
        Just(1.5f32),
        -1e6f32..1e6f32,
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
    ]
    .prop_map(|f| json!(f64::from(f)))
    .boxed()
}

fn f64v() -> S {
    prop_oneof![Just(0.1f64), -1e9f64..1e9f64, any::<f64>().prop_filter("finite", |f| f.is_finite())]
        .prop_map(|f| json!(f))
        .boxed()
}

fn text() -> S {
    prop_oneof![".{0,8}", Just(String::new()), Just("ünï\"c\\ode\n\t".to_owned()), Just("\u{1}\u{1f600}".to_owned())]
        .prop_map(Value::String)
        .boxed()
}

/// An enum value: by name, or by its number.
fn enumv(values: &'static [(&'static str, i64)]) -> S {
    (0..values.len(), any::<bool>())
        .prop_map(move |(i, by_name)| if by_name { json!(values[i].0) } else { json!(values[i].1) })
        .boxed()
}

const COLOR: &[(&str, i64)] = &[("Red", 0), ("Green", 1), ("Blue", 2)];
const RARITY: &[(&str, i64)] = &[("Junk", -1), ("Common", 0), ("Rare", 2), ("Epic", 7)];
const LAYER: &[(&str, i64)] = &[("Under", -300), ("Ground", 0), ("Air", 1000)];
const EPOCH: &[(&str, i64)] = &[("Before", -9_000_000_000), ("Now", 0), ("After", 9_000_000_000)];

fn int<T: Arbitrary + Into<Value> + 'static>() -> S {
    any::<T>().prop_map(Into::into).boxed()
}

/// An object of the fields that are present.
fn object(fields: Vec<(&'static str, S)>) -> S {
    let keys: Vec<&'static str> = fields.iter().map(|f| f.0).collect();
    let strategies: Vec<BoxedStrategy<Option<Value>>> =
        fields.into_iter().map(|(_, s)| prop::option::weighted(0.6, s).boxed()).collect();
    strategies
        .prop_map(move |vals| {
            let mut m = Map::new();
            for (k, v) in keys.iter().zip(vals) {
                if let Some(v) = v {
                    m.insert((*k).to_owned(), v);
                }
            }
            Value::Object(m)
        })
        .boxed()
}

/// A struct: every field.
fn structure(fields: Vec<(&'static str, S)>) -> S {
    let keys: Vec<&'static str> = fields.iter().map(|f| f.0).collect();
    let strategies: Vec<S> = fields.into_iter().map(|f| f.1).collect();
    strategies.prop_map(move |vals| Value::Object(keys.iter().map(|k| (*k).to_owned()).zip(vals).collect())).boxed()
}

fn vec2() -> S {
    structure(vec![("x", f32v()), ("y", f32v())])
}
fn vec3() -> S {
    structure(vec![("x", f32v()), ("y", f32v()), ("z", f32v())])
}
fn bounds() -> S {
    structure(vec![("min", vec3()), ("max", vec3()), ("layer", enumv(LAYER))])
}
fn slots() -> S {
    structure(vec![
        ("tag", int::<i8>()),
        ("ids", prop::collection::vec(int::<u16>(), 3).prop_map(Value::Array).boxed()),
        ("weights", prop::collection::vec(f64v(), 2).prop_map(Value::Array).boxed()),
        ("corners", prop::collection::vec(vec2(), 2).prop_map(Value::Array).boxed()),
        ("colors", prop::collection::vec(enumv(COLOR), 2).prop_map(Value::Array).boxed()),
    ])
}

fn list(s: S, max: usize) -> S {
    prop::collection::vec(s, 0..=max).prop_map(Value::Array).boxed()
}

fn weapon() -> S {
    object(vec![("name", text()), ("damage", int::<i16>()), ("range", f32v())])
}
fn spell() -> S {
    object(vec![("name", text()), ("mana_cost", int::<u16>()), ("school", enumv(RARITY)), ("targets", list(vec2(), 3))])
}
fn potion() -> S {
    object(vec![("heal", int::<i32>()), ("uses", int::<u8>())])
}
fn item(id: u32) -> S {
    object(vec![("name", text()), ("count", int::<u16>()), ("rarity", enumv(RARITY))])
        .prop_map(move |mut v| {
            v.as_object_mut().unwrap().insert("id".into(), json!(id));
            v
        })
        .boxed()
}

/// A keyed vector: unique keys in flatc's (sorted) order.
fn items() -> S {
    prop::collection::btree_set(any::<u32>(), 0..4)
        .prop_flat_map(|ids| ids.into_iter().map(item).collect::<Vec<_>>())
        .prop_map(Value::Array)
        .boxed()
}
fn stat_map() -> S {
    prop::collection::btree_map(".{0,6}", any::<i32>(), 0..4)
        .prop_map(|m| Value::Array(m.into_iter().map(|(k, v)| json!({"key": k, "value": v})).collect()))
        .boxed()
}
fn slot_map() -> S {
    prop::collection::btree_set(any::<u16>(), 0..3)
        .prop_flat_map(|keys| {
            keys.into_iter()
                .map(|k| item(u32::from(k)).prop_map(move |it| json!({"key": k, "value": it})).boxed())
                .collect::<Vec<_>>()
        })
        .prop_map(Value::Array)
        .boxed()
}

/// A union: absent, or each member with its type (name).
fn union(name: &'static str) -> BoxedStrategy<Vec<(String, Value)>> {
    let members = prop_oneof![
        weapon().prop_map(|v| ("Weapon", v)),
        spell().prop_map(|v| ("Spell", v)),
        potion().prop_map(|v| ("Potion", v)),
        weapon().prop_map(|v| ("Offhand", v)),
    ];
    prop::option::of(members)
        .prop_map(move |m| match m {
            None => Vec::new(),
            Some((ty, v)) => vec![(format!("{name}_type"), json!(ty)), (name.to_owned(), v)],
        })
        .boxed()
}

fn stats() -> S {
    object(vec![
        ("hp", int::<i16>()),
        ("mana", int::<i16>()),
        ("speed", f32v()),
        ("alive", any::<bool>().prop_map(Value::Bool).boxed()),
        ("armor", int::<u16>()),
        ("luck", f64v()),
    ])
}

fn hero_fields(companion: Option<S>) -> S {
    let mut fields = vec![
        ("name", text()),
        ("pos", vec3()),
        ("bounds", bounds()),
        ("slots", slots()),
        ("stats", stats()),
        ("level", int::<u8>()),
        ("xp", int::<u64>()),
        ("color", enumv(COLOR)),
        ("rarity", enumv(RARITY)),
        ("layer", enumv(LAYER)),
        ("epoch", enumv(EPOCH)),
        ("hp_opt", int::<i16>()),
        ("shield_opt", any::<bool>().prop_map(Value::Bool).boxed()),
        ("ratio_opt", f64v()),
        ("color_opt", enumv(COLOR)),
        ("old_score", int::<i32>()),
        ("inventory", list(int::<u8>(), 6)),
        ("tags", list(text(), 4)),
        ("path", list(vec3(), 3)),
        ("bounds_list", list(bounds(), 2)),
        ("flags", list(any::<bool>().prop_map(Value::Bool).boxed(), 5)),
        ("deltas", list(int::<i16>(), 5)),
        ("scores", list(f64v(), 3)),
        ("big_ids", list(int::<i64>(), 3)),
        ("layers", list(enumv(LAYER), 3)),
        ("colors", list(enumv(COLOR), 3)),
        ("weapons", list(weapon(), 3)),
        ("items", items()),
        ("stat_map", stat_map()),
        ("slot_map", slot_map()),
        ("temperature", f32v()),
    ];
    if let Some(c) = companion {
        fields.push(("companion", c));
    }
    (object(fields), union("equipped"), union("offhand"))
        .prop_map(|(mut v, a, b)| {
            let m = v.as_object_mut().unwrap();
            for (k, x) in a.into_iter().chain(b) {
                m.insert(k, x);
            }
            v
        })
        .boxed()
}

fn hero() -> S {
    let leaf = hero_fields(None);
    let mid = hero_fields(Some(leaf));
    hero_fields(Some(mid))
}

/// JSON text of `v` with object keys sorted, each union's `x_type` right before `x` when `type_first`
/// (flatc's parser needs that order in these documents), else right after it (which our writer takes).
fn text_of(v: &Value, type_first: bool, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            let mut first = true;
            for (k, x) in m {
                if k.strip_suffix("_type").is_some_and(|base| m.contains_key(base)) {
                    continue;
                }
                let ty = m.get(&format!("{k}_type")).map(|t| (format!("{k}_type"), t));
                let mut emit = |key: &str, val: &Value, out: &mut String| {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&serde_json::to_string(key).unwrap());
                    out.push(':');
                    text_of(val, type_first, out);
                };
                match (&ty, type_first) {
                    (Some((tk, tv)), true) => {
                        emit(tk, tv, out);
                        emit(k, x, out);
                    }
                    (Some((tk, tv)), false) => {
                        emit(k, x, out);
                        emit(tk, tv, out);
                    }
                    (None, _) => emit(k, x, out),
                }
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                text_of(x, type_first, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn text_with(v: &Value, type_first: bool) -> String {
    let mut s = String::new();
    text_of(v, type_first, &mut s);
    s
}

/// The document as flatc's JSON would show it: flatc's value where the document has none (a key's
/// default) or where flatc names an enum the document gave by number; the document's everywhere else.
fn expected(doc: &Value, flatc: &Value) -> Value {
    match (doc, flatc) {
        (Value::Object(d), Value::Object(f)) => Value::Object(
            f.iter().map(|(k, fv)| (k.clone(), d.get(k).map_or(fv.clone(), |dv| expected(dv, fv)))).collect(),
        ),
        (Value::Array(d), Value::Array(f)) if d.len() == f.len() => {
            Value::Array(d.iter().zip(f).map(|(a, b)| expected(a, b)).collect())
        }
        (Value::Number(_), Value::String(_)) => flatc.clone(),
        _ => doc.clone(),
    }
}

/// Exact equality, except that a float of ours may be the shortest f32 form of the document's f32 value.
fn exact(ours: &Value, want: &Value, path: &str) -> Result<(), String> {
    match (ours, want) {
        (Value::Object(a), Value::Object(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "{path}: keys {:?} vs {:?}",
                    a.keys().collect::<Vec<_>>(),
                    b.keys().collect::<Vec<_>>()
                ));
            }
            for (k, v) in a {
                exact(v, b.get(k).ok_or_else(|| format!("{path}/{k}: only ours"))?, &format!("{path}/{k}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().try_for_each(|(i, (x, y))| exact(x, y, &format!("{path}/{i}")))
        }
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            if x == y || (f64::from(x as f32) == y && x as f32 == y as f32) {
                Ok(())
            } else {
                Err(format!("{path}: ours {x}, document {y}"))
            }
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: ours {a}, document {b}")),
    }
}

#[test]
fn rich_documents_against_flatc() {
    let Some(flatc) = flatc("the schema-driven differential against flatc") else { return };
    let cases: usize = std::env::var("FBS_DIFF_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(CASES);
    let schema = Schema::parse_file(rich_fbs(), &[]).unwrap();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let strategy = hero();
    let docs: Vec<Value> = (0..cases).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect();
    let texts: Vec<String> = docs.iter().map(|d| text_with(d, true)).collect();
    // Our writer gets each union's type after its value.
    let type_after: Vec<String> = docs.iter().map(|d| text_with(d, false)).collect();
    let work = std::env::temp_dir().join(format!("serde-flatbuf-lite-fbs-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let buffers = flatc_binary(&flatc, &rich_fbs(), &[], None, &texts, &work.join("flatc"));
    let theirs = flatc_json(&flatc, &rich_fbs(), &[], None, &buffers, &work.join("flatc"));
    let mut ours_bufs = Vec::with_capacity(cases);
    let mut unions = std::collections::BTreeSet::new();
    let mut absent = 0usize;
    for (i, ((doc, buf), t)) in docs.iter().zip(&buffers).zip(&theirs).enumerate() {
        let ours_text = schema.buffer_to_json(buf, None).unwrap_or_else(|e| panic!("case {i}: {e}\n{}", texts[i]));
        let ours: Value = serde_json::from_str(&ours_text).unwrap();
        if let Err(d) = same(&ours, t, "") {
            panic!("case {i}: ours vs flatc --json: {d}\ndocument: {}\nours: {ours_text}\nflatc: {t}", texts[i]);
        }
        if let Err(d) = exact(&ours, &expected(doc, t), "") {
            panic!("case {i}: ours vs the document: {d}\ndocument: {}\nours: {ours_text}", texts[i]);
        }
        let mine = schema
            .json_to_buffer(&type_after[i], None)
            .unwrap_or_else(|e| panic!("case {i}: encode: {e}\n{}", type_after[i]));
        let back: Value = serde_json::from_str(&schema.buffer_to_json(&mine, None).unwrap()).unwrap();
        assert_eq!(back, ours, "case {i}: our reader reads our buffer as flatc's\n{}", texts[i]);
        ours_bufs.push(mine);
        for k in ["equipped_type", "offhand_type"] {
            if let Some(Value::String(m)) = doc.get(k) {
                unions.insert(m.clone());
            }
        }
        // Top-level keys a Hero may have: 32 fields and two unions of two keys each.
        absent += 36 - doc.as_object().unwrap().len();
    }
    let again = flatc_json(&flatc, &rich_fbs(), &[], None, &ours_bufs, &work.join("ours"));
    for (i, (a, t)) in again.iter().zip(&theirs).enumerate() {
        assert_eq!(a, t, "case {i}: flatc reads our buffer as its own\n{}", texts[i]);
    }
    assert_eq!(unions.len(), 4, "every union member generated: {unions:?}");
    eprintln!(
        "rich differential: {cases} documents (union members {unions:?}; {absent} of {} top-level keys absent): \
         our JSON = flatc --json, = the document, and flatc reads our {cases} buffers as its own",
        36 * cases
    );
    let _ = std::fs::remove_dir_all(&work);
}
