//! Errors that point (issue 16 item 3): a decode error names the field path where it happened
//! (`slots[3].pos.y`, map entries by key), in `Error::path()` and in `Display`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_brson::{Compression, ErrorKind};

/// The written form: every number an `i32`.
mod wide {
    use super::*;

    #[derive(Serialize, Default, Clone)]
    pub(crate) struct Pos {
        pub(crate) x: i32,
        pub(crate) y: i32,
    }

    #[derive(Serialize, Default, Clone)]
    pub(crate) struct Slot {
        pub(crate) name: String,
        pub(crate) pos: Pos,
        pub(crate) tags: Vec<i32>,
    }

    #[derive(Serialize, Default)]
    pub(crate) struct World {
        pub(crate) slots: Vec<Slot>,
        pub(crate) components: BTreeMap<String, Pos>,
        pub(crate) shape: Shape,
    }

    #[derive(Serialize, Default)]
    pub(crate) enum Shape {
        #[default]
        Empty,
        Circle {
            radius: i32,
        },
    }
}

/// The read form: `y`, the tags and the radius are `u8`.
mod narrow {
    use super::*;

    #[derive(Deserialize, Debug)]
    pub(crate) struct Pos {
        pub(crate) x: i32,
        pub(crate) y: u8,
    }

    #[derive(Deserialize, Debug)]
    pub(crate) struct Slot {
        pub(crate) name: String,
        pub(crate) pos: Pos,
        pub(crate) tags: Vec<u8>,
    }

    #[derive(Deserialize, Debug)]
    pub(crate) struct World {
        pub(crate) slots: Vec<Slot>,
        pub(crate) components: BTreeMap<String, Pos>,
        pub(crate) shape: Shape,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    pub(crate) enum Shape {
        Empty,
        Circle { radius: u8 },
    }
}

fn world() -> wide::World {
    let slot = |i: i32| wide::Slot { name: format!("s{i}"), pos: wide::Pos { x: i, y: i }, tags: vec![1, 2, 3] };
    wide::World {
        slots: (0..5).map(slot).collect(),
        components: BTreeMap::from([
            ("Mesh".to_owned(), wide::Pos::default()),
            ("Transform".into(), wide::Pos::default()),
        ]),
        shape: wide::Shape::Circle { radius: 4 },
    }
}

fn decode_error(w: &wide::World) -> serde_brson::Error {
    let file = serde_brson::to_vec(w, Compression::Lz4).unwrap();
    serde_brson::from_slice::<narrow::World>(&file).unwrap_err()
}

#[test]
fn values_that_fit_decode_into_the_narrow_types() {
    let file = serde_brson::to_vec(&world(), Compression::Lz4).unwrap();
    let w: narrow::World = serde_brson::from_slice(&file).unwrap();
    let s = &w.slots[4];
    assert_eq!((s.name.as_str(), s.pos.x, s.pos.y, s.tags.as_slice()), ("s4", 4, 4, &[1u8, 2, 3][..]));
    assert_eq!(w.components["Transform"].y, 0);
    assert_eq!(w.shape, narrow::Shape::Circle { radius: 4 });
}

#[test]
fn path_names_nested_struct_fields_and_array_index() {
    let mut w = world();
    w.slots[3].pos.y = 300;
    let err = decode_error(&w);
    assert_eq!(err.kind(), ErrorKind::Data, "{err}");
    assert_eq!(err.path(), Some("slots[3].pos.y"), "{err}");
    assert!(err.to_string().ends_with(", in slots[3].pos.y"), "{err}");
}

#[test]
fn path_names_nested_array_elements() {
    let mut w = world();
    w.slots[1].tags[2] = -1;
    assert_eq!(decode_error(&w).path(), Some("slots[1].tags[2]"));
}

#[test]
fn path_names_map_keys_quoted() {
    let mut w = world();
    w.components.get_mut("Transform").unwrap().y = 1000;
    let err = decode_error(&w);
    assert_eq!(err.path(), Some(r#"components["Transform"].y"#), "{err}");
    assert!(err.to_string().contains(r#"in components["Transform"].y"#), "{err}");
}

#[test]
fn path_goes_through_enum_variants() {
    let mut w = world();
    w.shape = wide::Shape::Circle { radius: 999 };
    assert_eq!(decode_error(&w).path(), Some("shape.radius"));
}

#[test]
fn missing_field_names_the_struct_that_lacks_it() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)] // only decoded to fail
    struct NeedsZ {
        x: i32,
        z: i32,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)] // only decoded to fail
    struct Outer {
        slots: Vec<Inner>,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)] // only decoded to fail
    struct Inner {
        pos: NeedsZ,
    }
    let file = serde_brson::to_vec(&world(), Compression::Brotli).unwrap();
    let err = serde_brson::from_slice::<Outer>(&file).unwrap_err();
    assert!(err.message().contains("missing field `z`"), "{err}");
    assert_eq!(err.path(), Some("slots[0].pos"), "{err}");
}

#[test]
fn container_errors_have_no_path() {
    let err = serde_brson::from_slice::<narrow::World>(b"FrDT\0\0\0\0").unwrap_err();
    assert_eq!(err.path(), None, "{err}");
    assert!(!err.to_string().contains(", in "), "{err}");
}

#[test]
fn headerless_file_read_with_the_wrong_extension_hints_at_its_codec() {
    use serde_brson::{Extension, Options};
    // A legacy (headerless) LZ4 file: the header is 8 bytes + a 1-byte kind varint.
    let file = serde_brson::to_vec(&world(), Compression::Lz4).unwrap();
    let legacy = &file[9..];
    let ok: narrow::World = Options::new().extension(Extension::Lz4Bson).from_slice(legacy).unwrap();
    assert_eq!(ok.slots.len(), 5);
    let err = Options::new().extension(Extension::Brson).from_slice::<narrow::World>(legacy).unwrap_err();
    let hint = err.hint().unwrap_or_else(|| panic!("no hint: {err}"));
    assert!(hint.contains("Lz4") && hint.contains(".lz4bson"), "{err}");
    assert!(err.to_string().ends_with(hint), "{err}");
}
