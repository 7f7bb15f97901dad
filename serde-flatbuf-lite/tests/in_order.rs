//! Tables read in field order (`visit_seq`, see `src/de/in_order.rs`) must decode exactly like the map
//! path: the same value or the same error. The map path is what `Deserializer` gives when driven by hand
//! (it never reads in order), so every case here compares `from_slice` with it.

use std::fmt;

use serde::de::{self, Deserializer as _, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{Deserializer, UnionType, from_slice, to_vec};

/// `T` through the map path only.
fn by_map<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, String> {
    let mut de = Deserializer::from_slice(bytes);
    T::deserialize(&mut de).map_err(|e| e.to_string())
}

/// `from_slice` (in order where it can) equals the map path, value or error (plus `from_slice`'s hint).
fn same<'de, T: Deserialize<'de> + PartialEq + fmt::Debug>(bytes: &'de [u8]) -> Result<T, String> {
    let fast = from_slice::<T>(bytes).map_err(|e| e.to_string());
    let slow = by_map::<T>(bytes);
    match (&fast, &slow) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        // `from_slice` may add a hint about the buffer after the error.
        (Err(a), Err(b)) => assert!(a.starts_with(b.as_str()), "{a} / {b}"),
        _ => panic!("from_slice {fast:?} but the map path {slow:?}"),
    }
    fast
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Inner {
    a: u16,
    s: String,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Outer {
    id: u32,
    inner: Inner,
    tags: Vec<String>,
    maybe: Option<i64>,
}

#[test]
fn every_field_present_reads_the_same() {
    let v = Outer { id: 7, inner: Inner { a: 3, s: "x".into() }, tags: vec!["a".into(), "bc".into()], maybe: Some(-1) };
    let bytes = to_vec(&v).unwrap();
    assert_eq!(same::<Outer>(&bytes).unwrap(), v);
}

/// An absent `Option` (no slot) leaves the in-order path; serde's missing-field rule gives `None`.
#[test]
fn absent_option_reads_none() {
    let v = Outer { id: 7, inner: Inner { a: 3, s: "x".into() }, tags: vec![], maybe: None };
    let bytes = to_vec(&v).unwrap();
    assert_eq!(same::<Outer>(&bytes).unwrap(), v);
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Old {
    a: u32,
    b: String,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct New {
    a: u32,
    b: String,
    #[serde(default)]
    c: u64,
    #[serde(default)]
    d: Option<String>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct NewStrict {
    a: u32,
    b: String,
    c: u64,
}

/// Schema evolution both ways: an older buffer lacks trailing fields (`#[serde(default)]` fills them, a
/// field without a default is a missing-field error as before); a newer buffer has extra ones (ignored).
#[test]
fn schema_evolution_both_ways() {
    let old = to_vec(&Old { a: 1, b: "b".into() }).unwrap();
    assert_eq!(same::<New>(&old).unwrap(), New { a: 1, b: "b".into(), c: 0, d: None });
    let err = same::<NewStrict>(&old).unwrap_err();
    assert!(err.contains("missing field `c`"), "{err}");
    let new = to_vec(&New { a: 2, b: "n".into(), c: 9, d: Some("d".into()) }).unwrap();
    assert_eq!(same::<Old>(&new).unwrap(), Old { a: 2, b: "n".into() });
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct WithDeprecated {
    a: u32,
    old: serde_flatbuf_lite::Deprecated,
    b: u32,
}

#[test]
fn deprecated_slot() {
    let bytes = to_vec(&WithDeprecated { a: 1, old: serde_flatbuf_lite::Deprecated, b: 2 }).unwrap();
    assert_eq!(
        same::<WithDeprecated>(&bytes).unwrap(),
        WithDeprecated { a: 1, old: serde_flatbuf_lite::Deprecated, b: 2 }
    );
}

/// A struct whose hand-written visitor has only `visit_map`: serde's default `visit_seq` rejects a
/// sequence, so the decode goes through the map path (again, and directly on later decodes).
#[derive(PartialEq, Debug)]
struct MapOnly {
    a: u16,
    s: String,
}

impl<'de> Deserialize<'de> for MapOnly {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MapOnly;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a MapOnly table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MapOnly, A::Error> {
                let (mut a, mut s) = (None, None);
                while let Some(key) = map.next_key::<u64>()? {
                    match key {
                        0 => a = Some(map.next_value()?),
                        1 => s = Some(map.next_value()?),
                        _ => map.next_value::<de::IgnoredAny>().map(|_| ())?,
                    }
                }
                Ok(MapOnly { a: a.ok_or_else(|| de::Error::missing_field("a"))?, s: s.unwrap_or_default() })
            }
        }
        d.deserialize_struct("MapOnly", &["a", "s"], V)
    }
}

#[derive(Deserialize, PartialEq, Debug)]
struct HoldsMapOnly {
    n: u8,
    m: MapOnly,
}

#[test]
fn visitor_with_only_visit_map() {
    let bytes = to_vec(&Outer { id: 5, inner: Inner { a: 9, s: "s".into() }, tags: vec![], maybe: Some(1) }).unwrap();
    #[derive(Deserialize, PartialEq, Debug)]
    struct OuterMapOnly {
        id: u32,
        inner: MapOnly,
    }
    for _ in 0..3 {
        assert_eq!(
            same::<OuterMapOnly>(&bytes).unwrap(),
            OuterMapOnly { id: 5, inner: MapOnly { a: 9, s: "s".into() } }
        );
    }
    let bytes = to_vec(&Inner { a: 4, s: "t".into() }).unwrap();
    assert_eq!(same::<MapOnly>(&bytes).unwrap(), MapOnly { a: 4, s: "t".into() });
    #[derive(Serialize)]
    struct Twin {
        n: u8,
        m: Inner,
    }
    let bytes = to_vec(&Twin { n: 1, m: Inner { a: 2, s: "u".into() } }).unwrap();
    assert_eq!(same::<HoldsMapOnly>(&bytes).unwrap(), HoldsMapOnly { n: 1, m: MapOnly { a: 2, s: "u".into() } });
}

/// serde aliases are listed with the field names, so the list is longer than the fields a derived
/// `visit_seq` reads: the decode does what the map path does.
#[test]
fn aliases() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct Aliased {
        #[serde(alias = "first")]
        a: u32,
        b: u32,
    }
    #[derive(Serialize)]
    struct Three {
        a: u32,
        b: u32,
        c: u32,
    }
    let bytes = to_vec(&Three { a: 1, b: 2, c: 3 }).unwrap();
    let _ = same::<Aliased>(&bytes);
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Sword {
    damage: i16,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum Equipment {
    Sword(Sword),
}

#[derive(Deserialize, PartialEq, Debug)]
struct Hero {
    name: String,
    equipped_type: UnionType,
    equipped: Option<Equipment>,
    level: u8,
}

#[derive(Deserialize, PartialEq, Debug)]
struct StrictHero {
    name: String,
    equipped_type: UnionType,
    equipped: Equipment,
    level: u8,
}

#[derive(Deserialize, PartialEq, Debug)]
struct DefaultHero {
    name: String,
    equipped_type: UnionType,
    #[serde(default = "sword")]
    equipped: Equipment,
    level: u8,
}

fn sword() -> Equipment {
    Equipment::Sword(Sword { damage: -1 })
}

/// A union value next to a type stored as NONE is left out (the official readers never look at it), so
/// serde's missing-field rules decide: `None`, the field's default, or a missing-field error.
#[test]
fn union_value_next_to_a_none_type() {
    #[derive(Serialize)]
    struct Twin {
        name: String,
        equipped_type: u8,
        equipped: Sword,
        level: u8,
    }
    let bytes = to_vec(&Twin { name: "A".into(), equipped_type: 0, equipped: Sword { damage: 3 }, level: 2 }).unwrap();
    assert_eq!(
        same::<Hero>(&bytes).unwrap(),
        Hero { name: "A".into(), equipped_type: UnionType, equipped: None, level: 2 }
    );
    assert!(same::<StrictHero>(&bytes).unwrap_err().contains("missing field `equipped`"));
    assert_eq!(same::<DefaultHero>(&bytes).unwrap().equipped, sword());
    // And with the type set, all three read the union.
    let bytes = to_vec(&Twin { name: "A".into(), equipped_type: 1, equipped: Sword { damage: 3 }, level: 2 }).unwrap();
    assert_eq!(same::<Hero>(&bytes).unwrap().equipped, Some(Equipment::Sword(Sword { damage: 3 })));
    assert_eq!(same::<StrictHero>(&bytes).unwrap().equipped, Equipment::Sword(Sword { damage: 3 }));
    assert_eq!(same::<DefaultHero>(&bytes).unwrap().equipped, Equipment::Sword(Sword { damage: 3 }));
}

/// Errors come from the map path, with the same field path.
#[test]
fn errors_are_the_map_paths() {
    let v = Outer { id: 7, inner: Inner { a: 3, s: "xyz".into() }, tags: vec!["a".into()], maybe: Some(1) };
    let mut bytes = to_vec(&v).unwrap();
    let at = bytes.windows(3).position(|w| w == b"xyz").unwrap();
    bytes[at + 1] = 0xff;
    let err = same::<Outer>(&bytes).unwrap_err();
    assert!(err.contains("inner.s") || err.contains("UTF-8") || err.contains("utf"), "{err}");
    // Truncations of a good buffer: value or error, always the map path's.
    let good = to_vec(&v).unwrap();
    for n in 0..good.len() {
        let _ = same::<Outer>(&good[..n]);
    }
}

#[test]
fn driving_the_deserializer_by_hand_is_unchanged() {
    let v = Inner { a: 1, s: "q".into() };
    let bytes = to_vec(&v).unwrap();
    let mut de = Deserializer::from_slice(&bytes);
    assert_eq!((&mut de).deserialize_struct("Inner", &["a", "s"], InnerVisitor).unwrap(), v);
}

struct InnerVisitor;

impl<'de> Visitor<'de> for InnerVisitor {
    type Value = Inner;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Inner")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Inner, A::Error> {
        let mut v = Inner { a: 0, s: String::new() };
        while let Some(k) = map.next_key::<u64>()? {
            match k {
                0 => v.a = map.next_value()?,
                _ => v.s = map.next_value()?,
            }
        }
        Ok(v)
    }
}
