//! A Dictionary-form struct's fields are written with their keys in one write where the value
//! allows (short names, scalars, short strings, math types): the bytes must be exactly those of
//! the same Dictionary built as a `Variant` (written key by key through the map path), for every
//! name length and value kind, through every output (`to_vec`, `append`, `to_slice`,
//! `serialized_size`), in both Godot versions; and errors must be those of the Array form.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_godot::{Options, StructForm, Variant, Vector2, Vector3, Version};

#[derive(Serialize, Clone)]
struct Inner {
    a: i32,
    #[serde(rename = "")]
    empty: bool,
}

#[derive(Serialize, Clone)]
#[allow(clippy::struct_field_names)]
struct Fields {
    i: i64,
    wide: i64,
    ab: u8,
    abc: i16,
    abcd: f32,
    abcde: f64,
    narrow: f64,
    nan_f64: f64,
    abcdefg: bool,
    abcdefgh: String,
    #[serde(rename = "nine_char")]
    nine: String,
    sixteen_chars_ab: Option<i32>,
    seventeen_chars_ab: Option<i32>,
    none: Option<u16>,
    unit: (),
    long_str: String,
    empty_str: String,
    c: char,
    pos: Vector2,
    vel: Vector3,
    list: Vec<u8>,
    map: BTreeMap<String, i32>,
    inner: Inner,
    tuple: (i8, String),
    bytes: serde_bytes_like::Bytes,
}

/// `serialize_bytes` without a dependency.
mod serde_bytes_like {
    /// Serializes as bytes.
    #[derive(Clone)]
    pub(crate) struct Bytes(pub(crate) Vec<u8>);

    impl serde::Serialize for Bytes {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.0)
        }
    }
}

fn sample(name: &str) -> Fields {
    Fields {
        i: -7,
        wide: i64::MIN,
        ab: 200,
        abc: -3,
        abcd: 1.5,
        abcde: 0.25,
        narrow: 0.1,
        nan_f64: f64::NAN,
        abcdefg: true,
        abcdefgh: name.to_owned(),
        nine: "x".repeat(16),
        sixteen_chars_ab: Some(-1),
        seventeen_chars_ab: None,
        none: None,
        unit: (),
        long_str: "a string longer than sixteen bytes".to_owned(),
        empty_str: String::new(),
        c: 'é',
        pos: Vector2::new(1.0, -2.0),
        vel: Vector3::new(0.5, 0.25, -8.0),
        list: vec![1, 2, 3],
        map: [("k".to_owned(), 1)].into(),
        inner: Inner { a: 5, empty: false },
        tuple: (-1, "t".to_owned()),
        bytes: serde_bytes_like::Bytes(vec![1, 2, 3, 4, 5]),
    }
}

#[test]
fn keyed_fields_match_the_map_path_through_every_output() {
    for version in [Version::Godot4, Version::Godot3] {
        let opts = Options::new().version(version);
        for name in ["", "n", "ab", "abc", "abcd", "abcdefgh", "seventeen bytes!!"] {
            let value = sample(name);
            let bytes = opts.to_vec(&value).unwrap();
            // The same Dictionary as a Variant, re-encoded through the map path.
            let variant: Variant = opts.from_slice(&bytes).unwrap();
            assert_eq!(opts.to_vec(&variant).unwrap(), bytes, "{version:?} {name:?}");

            let mut appended = vec![7u8; 3];
            opts.append(&value, &mut appended).unwrap();
            assert_eq!(&appended[..3], &[7, 7, 7]);
            assert_eq!(&appended[3..], &bytes[..]);

            let mut buf = vec![0u8; bytes.len()];
            assert_eq!(opts.to_slice(&value, &mut buf).unwrap(), bytes.len());
            assert_eq!(buf, bytes);
            let mut short = vec![0u8; bytes.len() - 1];
            assert!(opts.to_slice(&value, &mut short).is_err());
            assert_eq!(opts.serialized_size(&value).unwrap(), bytes.len());
        }
    }
}

#[test]
fn keyed_field_errors_are_those_of_the_array_form() {
    #[derive(Serialize)]
    struct Big {
        id: u64,
    }
    #[derive(Serialize)]
    struct NotInGodot3 {
        v: serde_godot::Vector2i,
    }
    let dict = Options::new();
    let array = Options::new().struct_form(StructForm::Array);
    let text = |r: serde_godot::Result<Vec<u8>>| r.unwrap_err().to_string();
    assert_eq!(text(dict.to_vec(&Big { id: u64::MAX })), text(array.to_vec(&Big { id: u64::MAX })));
    let v = NotInGodot3 { v: serde_godot::Vector2i::new(1, 2) };
    let (dict, array) = (dict.version(Version::Godot3), array.version(Version::Godot3));
    assert_eq!(text(dict.to_vec(&v)), text(array.to_vec(&v)));
    assert_eq!(dict.serialized_size(&Big { id: 1 }).unwrap(), dict.to_vec(&Big { id: 1 }).unwrap().len());
}

#[test]
fn a_field_name_with_a_nul_is_written_whole() {
    // (A decoder stops at the NUL, as Godot does, so this one is checked byte by byte.)
    #[derive(Serialize)]
    struct Nul {
        #[serde(rename = "a\0b")]
        nul: u32,
    }
    let bytes = Options::new().to_vec(&Nul { nul: 9 }).unwrap();
    assert_eq!(bytes, [27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, b'a', 0, b'b', 0, 2, 0, 0, 0, 9, 0, 0, 0]);
}

/// A message whose short strings (after a field's key, alone in a list, as the value of a field
/// whose name is too long to go with it) end anywhere in a `to_slice` buffer or at a `Vec`'s
/// capacity: `to_slice` and `SizeCounter` take the inline short-string write unconditionally
/// (their `has_room` is always true), a `Vec` only when it has room, so each must be exact on
/// its own. Strings of 17 to 32 bytes (one fixed-size write into a `Vec`, the general writes
/// elsewhere) and longer ones are checked the same way.
#[test]
fn short_strings_at_the_end_of_the_output_are_exact() {
    #[derive(Serialize)]
    struct Msg {
        id: i64,
        name: String,
        tags: Vec<String>,
        a_long_field_name: String,
        hp: f32,
    }
    for form in [StructForm::Dictionary, StructForm::Array] {
        for version in [Version::Godot4, Version::Godot3] {
            let opts = Options::new().struct_form(form).version(version);
            let strings = [
                "",
                "a",
                "abc",
                "abcd",
                "abcdefgh",
                "sixteen_bytes_ab",
                "seventeen_bytes_a",
                "minecraft:diamond_sword",
                "exactly_thirty_two_bytes_long_ab",
                "thirty_three_bytes_long_string_ab",
            ];
            for s in strings {
                let msg = Msg {
                    id: 7,
                    name: s.to_owned(),
                    tags: vec![s.to_owned(), "t".to_owned()],
                    a_long_field_name: s.to_owned(),
                    hp: 1.0,
                };
                let bytes = opts.to_vec(&msg).unwrap();
                let what = format!("{form:?} {version:?} {s:?}");
                assert_eq!(opts.serialized_size(&msg).unwrap(), bytes.len(), "{what}");

                // Every buffer shorter than the encoding is refused with the size needed, and
                // nothing past it is touched; the exact size gets the bytes of `to_vec`.
                let mut backing = vec![0xA5u8; bytes.len() + 48];
                for n in 0..=bytes.len() {
                    backing.fill(0xA5);
                    let result = opts.to_slice(&msg, &mut backing[..n]);
                    if n == bytes.len() {
                        assert_eq!(result.unwrap(), n, "{what}");
                        assert_eq!(&backing[..n], &bytes[..], "{what}");
                    } else {
                        match result.unwrap_err().kind() {
                            serde_godot::ErrorKind::SizeLimit { size, limit } => {
                                assert_eq!((*size, *limit), (bytes.len() as u64, n), "{what}");
                            }
                            other => panic!("{what}, {n}-byte buffer: {other:?}"),
                        }
                    }
                    assert!(backing[n..].iter().all(|&b| b == 0xA5), "{what}: written past a {n}-byte buffer");
                }

                // A `Vec` whose capacity runs out anywhere in the message (the growth path of
                // each write, short strings included) gets the same bytes.
                for cap in 0..=bytes.len() {
                    let mut out = Vec::with_capacity(cap);
                    opts.append(&msg, &mut out).unwrap();
                    assert_eq!(out, bytes, "{what}, capacity {cap}");
                }
            }
        }
    }
}

/// A Dictionary-form struct's header goes out with its first field's key when that field is
/// written with its key (and alone before anything else): every kind of first field, and a
/// struct with no fields, must give the bytes of the map path through every output, and a `Vec`
/// whose capacity runs out anywhere must get the same bytes.
#[test]
fn the_header_goes_out_with_any_first_field() {
    #[derive(Serialize)]
    struct Empty {}
    #[derive(Serialize)]
    struct First<T> {
        first: T,
        then: u8,
    }
    #[derive(Serialize)]
    struct LongName {
        a_long_field_name: i32,
    }
    fn check<T: Serialize>(opts: Options, value: &T, what: &str) {
        let bytes = opts.to_vec(value).unwrap();
        let variant: Variant = opts.from_slice(&bytes).unwrap();
        assert_eq!(opts.to_vec(&variant).unwrap(), bytes, "{what}");
        assert_eq!(opts.serialized_size(value).unwrap(), bytes.len(), "{what}");
        let mut buf = vec![0u8; bytes.len()];
        assert_eq!(opts.to_slice(value, &mut buf).unwrap(), bytes.len(), "{what}");
        assert_eq!(buf, bytes, "{what}");
        for cap in 0..=bytes.len() {
            let mut out = Vec::with_capacity(cap);
            opts.append(value, &mut out).unwrap();
            assert_eq!(out, bytes, "{what}, capacity {cap}");
        }
    }
    for version in [Version::Godot4, Version::Godot3] {
        let opts = Options::new().version(version);
        let what = |kind: &str| format!("{version:?} {kind}");
        let bytes = opts.to_vec(&Empty {}).unwrap();
        assert_eq!(bytes[4..], [0, 0, 0, 0], "{version:?} empty");
        check(opts, &Empty {}, &what("empty"));
        check(opts, &First { first: -5i64 << 40, then: 1 }, &what("wide int"));
        check(opts, &First { first: "short".to_owned(), then: 1 }, &what("short string"));
        check(opts, &First { first: "a string longer than sixteen bytes".to_owned(), then: 1 }, &what("long string"));
        check(opts, &First { first: Vector2::new(1.0, 2.0), then: 1 }, &what("Vector2"));
        check(opts, &First { first: Vector3::new(1.0, 2.0, 3.0), then: 1 }, &what("Vector3"));
        check(opts, &First { first: None::<i32>, then: 1 }, &what("None"));
        check(opts, &First { first: vec![1u8, 2], then: 1 }, &what("list"));
        check(opts, &First { first: Inner { a: 1, empty: true }, then: 1 }, &what("struct"));
        check(opts, &First { first: First { first: 'x', then: 2 }, then: 1 }, &what("nested first"));
        check(opts, &LongName { a_long_field_name: 3 }, &what("long name"));
    }
}
