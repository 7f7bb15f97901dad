//! Regression tests, each named after what it guards.

mod common;

use common::*;
use serde_kiprop::{Options, TypeList, Value, serializer_flags::*};

/// Found by `kiprop_decode` (fuzz): a Vector3D holding NaN did not compare equal to itself after
/// a round trip, because leaf components compared NaN != NaN while `Value::Float` treats NaN as
/// equal. The input's first byte is the fuzz target's option selector.
#[test]
fn leaf_nan_values_compare_equal_after_round_trip() {
    let types = TypeList::from_json_many([
        std::str::from_utf8(&read("katsuba/types.json")).unwrap(),
        std::str::from_utf8(&read("generated/types.json")).unwrap(),
    ])
    .unwrap();
    let input = read("regressions/fuzz-leaf-nan.bin");
    let (&sel, blob) = input.split_first().unwrap();
    let (reader, plain) = fuzz_options(sel);
    let value: Value = reader.from_slice(blob, &types).unwrap();
    let back: Value = plain.from_slice(&plain.to_vec(&value, &types).unwrap(), &types).unwrap();
    assert_eq!(back, value);
    assert_eq!(value, value.clone());
}

/// The option mapping of `fuzz/fuzz_targets/kiprop_decode.rs`: (reader, re-encoding) options.
fn fuzz_options(sel: u8) -> (Options, Options) {
    let reader_flags = match sel & 3 {
        0 => STATEFUL_FLAGS,
        1 => 0,
        2 => COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS,
        _ => WITH_COMPRESSION | COMPACT_LENGTH_PREFIXES,
    };
    let mask = if sel & 32 != 0 { 7 } else { 0x18 };
    let mut reader = Options::new()
        .shallow(sel & 4 != 0)
        .flags(reader_flags)
        .manual_compression(sel & 8 != 0)
        .skip_unknown(sel & 16 != 0)
        .property_mask(mask)
        .max_decompressed_size(1 << 20);
    if sel & 64 != 0 {
        reader = reader.bind_file(true);
    }
    let plain = Options::new()
        .shallow(sel & 4 != 0)
        .flags(reader_flags & (COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS))
        .property_mask(mask)
        .skip_deprecated(sel & 4 != 0);
    (reader, plain)
}

mod index_keys {
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, Options, PropertySchema as P, TypeList};

    const OPTS: &[(&str, u32)] = &[("X", 0), ("Y", 1), ("Z", 2)];
    static CLASS: ClassSchema = ClassSchema::new(
        "class P",
        &[P::new("a").ty("unsigned int"), P::new("b").ty("unsigned int"), P::new("e").ty("enum E").options(OPTS)],
    );

    /// Fields and variants exactly the properties and options: the deserializer passes indices.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class P")]
    struct Same {
        a: u32,
        b: u32,
        e: E,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum E {
        X,
        Y,
        Z,
    }

    /// Fields in another order, variants in another order: names must decide.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class P")]
    struct Reordered {
        b: u32,
        a: u32,
        e: Backwards,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    enum Backwards {
        Z,
        Y,
        X,
    }

    /// A subset of the properties.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class P")]
    struct Subset {
        b: u32,
    }

    /// The index fast paths of the deserializer (field and variant indices when the serde names
    /// are exactly the class's properties / the enum's options) must agree with matching by name
    /// for every other shape of struct and enum.
    #[test]
    fn index_keys_are_used_only_when_names_line_up() {
        let types = TypeList::from_schemas(&[&CLASS]);
        for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
            let same = Same { a: 1, b: 2, e: E::Z };
            let bytes = opts.to_vec(&same, &types).unwrap();
            // Twice: the second decode takes the cached (address-checked) path.
            for _ in 0..2 {
                assert_eq!(opts.from_slice::<Same>(&bytes, &types).unwrap(), same);
                let r: Reordered = opts.from_slice(&bytes, &types).unwrap();
                assert_eq!(r, Reordered { b: 2, a: 1, e: Backwards::Z });
                assert_eq!(opts.from_slice::<Subset>(&bytes, &types).unwrap(), Subset { b: 2 });
            }
        }
    }
}

/// Shallow fields out of id order wait in one stack shared by every object being written: a
/// nested object that buffers its own out-of-order fields, written while its parent still has
/// fields waiting, must neither take nor disturb the parent's.
mod out_of_order {
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, Options, PropertySchema as P, TypeList};

    static OUTER: ClassSchema = ClassSchema::new(
        "class Outer",
        &[
            P::new("a").ty("unsigned int"),
            P::new("b").ty("std::string"),
            P::new("inner").ty("class Inner"),
            P::new("c").ty("unsigned short"),
        ],
    );
    static INNER: ClassSchema =
        ClassSchema::new("class Inner", &[P::new("x").ty("int"), P::new("y").ty("int"), P::new("z").ty("int")]);

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class Outer")]
    struct InOrder {
        a: u32,
        b: String,
        inner: Inner,
        c: u16,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class Inner")]
    struct Inner {
        x: i32,
        y: i32,
        z: i32,
    }

    /// `c` and `b` wait while `inner` (itself backwards) is written before its turn too.
    #[derive(Debug, PartialEq, Serialize)]
    #[serde(rename = "class Outer")]
    struct Shuffled {
        c: u16,
        inner: Backwards,
        b: String,
        a: u32,
    }
    #[derive(Debug, PartialEq, Serialize)]
    #[serde(rename = "class Inner")]
    struct Backwards {
        z: i32,
        y: i32,
        x: i32,
    }

    #[test]
    fn nested_out_of_order_fields_keep_their_own_buffers() {
        let types = TypeList::from_schemas(&[&OUTER, &INNER]);
        let opts = Options::new().property_mask(0);
        let want = InOrder { a: 1, b: "bee".into(), inner: Inner { x: -1, y: -2, z: -3 }, c: 7 };
        let bytes = opts.to_vec(&want, &types).unwrap();
        let shuffled = Shuffled { c: 7, inner: Backwards { z: -3, y: -2, x: -1 }, b: "bee".into(), a: 1 };
        // Twice each, so the second pass runs on the cached name matches.
        for _ in 0..2 {
            assert_eq!(opts.to_vec(&shuffled, &types).unwrap(), bytes);
            assert_eq!(opts.to_vec(&want, &types).unwrap(), bytes);
        }
        assert_eq!(opts.from_slice::<InOrder>(&bytes, &types).unwrap(), want);
        // A value written after a failed one starts clean.
        #[derive(Serialize)]
        #[serde(rename = "class Outer")]
        struct Broken {
            c: u16,
            b: String,
            nope: u8,
        }
        assert!(opts.to_vec(&Broken { c: 1, b: String::new(), nope: 0 }, &types).is_err());
        assert_eq!(opts.to_vec(&want, &types).unwrap(), bytes);
    }
}

/// Leaf struct components usually arrive in wire order (the serializer tries the next field's
/// name first); any other order, a repeated component or `$` keys must still work as before.
mod leaf_field_order {
    use serde::Serialize;
    use serde_kiprop::{ClassSchema, Options, PropertySchema as P, TypeList};

    static SHAPE: ClassSchema = ClassSchema::new(
        "class Shape",
        &[P::new("at").ty("class Point<float>"), P::new("m").ty("class Matrix3x3"), P::new("c").ty("class Color")],
    );

    #[derive(Serialize)]
    #[serde(rename = "class Shape")]
    struct Shape<A: Serialize, C: Serialize> {
        at: A,
        m: M,
        c: C,
    }
    #[derive(Serialize)]
    struct M {
        i: [f32; 3],
        j: [f32; 3],
        k: [f32; 3],
    }
    #[derive(Serialize)]
    struct Xy {
        x: f32,
        y: f32,
    }
    #[derive(Serialize)]
    struct Yx {
        y: f32,
        x: f32,
    }
    #[derive(Serialize)]
    struct Rgba {
        r: u8,
        g: u8,
        b: u8,
        a: u8,
    }
    #[derive(Serialize)]
    struct Bgra {
        #[serde(rename = "$__type")]
        ty: &'static str,
        b: u8,
        g: u8,
        r: u8,
        a: u8,
    }

    fn m() -> M {
        M { i: [1.0, 2.0, 3.0], j: [4.0, 5.0, 6.0], k: [7.0, 8.0, 9.0] }
    }

    #[test]
    fn leaf_components_in_any_order_give_the_same_bytes() {
        let types = TypeList::from_schemas(&[&SHAPE]);
        for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
            let a = opts
                .to_vec(&Shape { at: Xy { x: 1.5, y: -2.0 }, m: m(), c: Rgba { r: 1, g: 2, b: 3, a: 4 } }, &types)
                .unwrap();
            let c = Bgra { ty: "class Color", b: 3, g: 2, r: 1, a: 4 };
            let b = opts.to_vec(&Shape { at: Yx { y: -2.0, x: 1.5 }, m: m(), c }, &types).unwrap();
            assert_eq!(a, b);
        }
    }
}

/// A class remembers whether all its properties pass the last shallow-mode mask it saw (so
/// fields skip the per-property test). Other masks, predicates and DEPRECATED settings on the
/// same class, one after another and from several threads at once, must never reuse an answer
/// that belongs to other options.
mod inclusion_cache {
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, MaskPredicate, Options, PropertySchema as P, TypeList, flags};

    static MIXED: ClassSchema = ClassSchema::new(
        "class Mixed",
        &[
            P::new("sent").ty("unsigned int").flags(flags::TRANSMIT),
            P::new("saved").ty("unsigned int").flags(flags::SAVE),
            P::new("old").ty("unsigned int").flags(flags::TRANSMIT | flags::DEPRECATED),
        ],
    );

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class Mixed")]
    struct Mixed {
        #[serde(default)]
        sent: u32,
        #[serde(default)]
        saved: u32,
        #[serde(default)]
        old: u32,
    }

    /// (options, the value that survives a round trip through them).
    fn cases() -> Vec<(Options, Mixed)> {
        let shallow = Options::new().shallow(true);
        vec![
            (shallow.property_mask(0).skip_deprecated(false), Mixed { sent: 1, saved: 2, old: 3 }),
            (shallow.property_mask(0), Mixed { sent: 1, saved: 2, old: 0 }),
            (shallow.property_mask(flags::TRANSMIT).skip_deprecated(false), Mixed { sent: 1, saved: 0, old: 3 }),
            (shallow.property_mask(flags::TRANSMIT), Mixed { sent: 1, saved: 0, old: 0 }),
            (shallow.property_mask(flags::SAVE), Mixed { sent: 0, saved: 2, old: 0 }),
            (
                shallow.property_mask(flags::SAVE | flags::TRANSMIT).mask_predicate(MaskPredicate::Any),
                Mixed { sent: 1, saved: 2, old: 0 },
            ),
        ]
    }

    #[test]
    fn masks_never_reuse_another_masks_answer() {
        let types = TypeList::from_schemas(&[&MIXED]);
        let full = Mixed { sent: 1, saved: 2, old: 3 };
        let cases = cases();
        // Every order of two cases, twice over, on one type list.
        for _ in 0..2 {
            for (a, want_a) in &cases {
                for (b, want_b) in &cases {
                    for (opts, want) in [(a, want_a), (b, want_b)] {
                        let bytes = opts.to_vec(&full, &types).unwrap();
                        assert_eq!(&opts.from_slice::<Mixed>(&bytes, &types).unwrap(), want);
                    }
                }
            }
        }
        // Several threads, each with its own options, on one shared type list.
        std::thread::scope(|scope| {
            for (opts, want) in &cases {
                let (types, full) = (&types, &full);
                scope.spawn(move || {
                    for _ in 0..500 {
                        let bytes = opts.to_vec(full, types).unwrap();
                        assert_eq!(&opts.from_slice::<Mixed>(&bytes, types).unwrap(), want);
                    }
                });
            }
        });
    }
}

/// Shallow objects whose serde fields are exactly the class's properties get index keys; the
/// properties actually on the wire depend on the mask and on DELTA_ENCODE presence bits, and every
/// combination must decode to what was written. (Handing such objects to serde as a sequence,
/// like postcard, was measured at 2–5 % fewer instructions and not kept: hand-written visitors
/// that only take a map would stop working.)
mod index_keys_and_masks {
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, MaskPredicate, Options, PropertySchema as P, TypeList, flags};

    static PLAIN: ClassSchema = ClassSchema::new(
        "class Plain",
        &[
            P::new("a").ty("unsigned int").flags(1),
            P::new("b").ty("std::string").flags(2),
            P::new("c").ty("int").flags(1),
        ],
    );
    static DELTA: ClassSchema = ClassSchema::new(
        "class Delta",
        &[
            P::new("a").ty("unsigned int").flags(1),
            P::new("b").ty("unsigned int").flags(1 | flags::DELTA_ENCODE),
            P::new("c").ty("int").flags(1),
        ],
    );

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class Plain", default)]
    struct Plain {
        a: u32,
        b: String,
        c: i32,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class Delta")]
    struct Delta {
        a: u32,
        b: Option<u32>,
        c: i32,
    }

    #[test]
    fn masks_and_presence_bits_with_index_keys() {
        let types = TypeList::from_schemas(&[&PLAIN, &DELTA]);
        let plain = Plain { a: 7, b: "seven".into(), c: -7 };
        for _ in 0..2 {
            // Every property passes the mask: the sequence form.
            let all = Options::new().property_mask(3).mask_predicate(MaskPredicate::Any);
            let bytes = all.to_vec(&plain, &types).unwrap();
            assert_eq!(all.from_slice::<Plain>(&bytes, &types).unwrap(), plain);
            // `b` masked out: the map form; `b` comes back as its default.
            let some = Options::new().property_mask(1).mask_predicate(MaskPredicate::Any);
            let bytes = some.to_vec(&plain, &types).unwrap();
            assert_eq!(some.from_slice::<Plain>(&bytes, &types).unwrap(), Plain { b: String::new(), ..plain });
            // A DELTA_ENCODE property, present and absent.
            for b in [Some(5), None] {
                let delta = Delta { a: 1, b, c: -1 };
                let bytes = all.to_vec(&delta, &types).unwrap();
                assert_eq!(all.from_slice::<Delta>(&bytes, &types).unwrap(), delta, "{b:?}");
            }
        }
    }
}

/// serde lists a field's aliases in `FIELDS`, so a struct whose names *and aliases* spell out a
/// class's properties in id order passes the "fields are the properties" test of the index fast
/// path. Guard: such a struct still gets each property's value in the field it names, and the
/// alias property (a second value for the same field) never lands in another field.
mod aliases_and_index_keys {
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, Options, PropertySchema as P, TypeList};

    static CLASS: ClassSchema = ClassSchema::new(
        "class A",
        &[P::new("a").ty("unsigned int"), P::new("c").ty("unsigned int"), P::new("b").ty("unsigned int")],
    );

    /// What the wire holds: three properties.
    #[derive(Serialize)]
    #[serde(rename = "class A")]
    struct Wire {
        a: u32,
        c: u32,
        b: u32,
    }

    /// `FIELDS` = ["a", "c", "b"]: the class's properties, with `b` only an alias of `c`.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class A")]
    struct Aliased {
        a: u32,
        #[serde(alias = "b")]
        c: u32,
    }

    #[test]
    fn an_alias_that_is_also_a_property_never_fills_another_field() {
        let types = TypeList::from_schemas(&[&CLASS]);
        for opts in [Options::new().property_mask(0), Options::new().deep(true)] {
            let bytes = opts.to_vec(&Wire { a: 1, c: 2, b: 3 }, &types).unwrap();
            for _ in 0..2 {
                // By name, `b` would be a duplicate of `c` (an error); by index it is ignored.
                // Either is acceptable; a value in the wrong field is not.
                match opts.from_slice::<Aliased>(&bytes, &types) {
                    Ok(v) => assert_eq!(v, Aliased { a: 1, c: 2 }),
                    Err(e) => assert!(e.to_string().contains("duplicate field"), "{e}"),
                }
            }
        }
    }
}

/// Shallow classes with DELTA_ENCODE properties are read as a sequence when the Rust fields are
/// the properties in id order; an absent DELTA property must still give exactly what the map
/// path gives: `None` for an `Option`, the `#[serde(default)]` value, or the same "missing
/// field" error. The map path is what a caller-driven [`Deserializer`] reads (it never takes the
/// sequence form for DELTA classes), so it is the reference here.
mod absent_delta_in_sequence_mode {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use serde_kiprop::{ClassSchema, Deserializer, Options, PropertySchema as P, TypeList, flags};

    const D: u32 = flags::DEFAULT | flags::DELTA_ENCODE;

    static DELTA: ClassSchema = ClassSchema::new(
        "class Delta",
        &[
            P::new("a").ty("unsigned int"),
            P::new("b").ty("unsigned int").flags(D),
            P::new("c").ty("int"),
            P::new("d").ty("std::string").flags(D),
        ],
    );
    static OUTER: ClassSchema = ClassSchema::new(
        "class Outer",
        &[P::new("n").ty("unsigned int"), P::new("items").ty("class Delta").dynamic(), P::new("z").ty("int")],
    );

    fn types() -> TypeList {
        TypeList::from_schemas(&[&DELTA, &OUTER])
    }

    /// What the wire holds: `b` and `d` present or absent.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "class Delta")]
    struct Wire {
        a: u32,
        b: Option<u32>,
        c: i32,
        d: Option<String>,
    }

    #[derive(Serialize)]
    #[serde(rename = "class Outer")]
    struct OuterWire {
        n: u32,
        items: Vec<Wire>,
        z: i32,
    }

    /// An error as compared here: kind, field path and bit position (`from_slice` gives an
    /// error without one the position where the decode stopped).
    type Seen = (String, Option<String>, Option<u64>);

    /// The map path: a caller-driven deserializer.
    fn by_map<T: DeserializeOwned>(bytes: &[u8], opts: Options) -> Result<T, Seen> {
        let types = types();
        let mut de = Deserializer::from_slice(bytes, &types, opts);
        let seen = |e: serde_kiprop::Error, at: u64| {
            (e.kind().to_string(), e.path().map(str::to_owned), Some(e.bit_offset().unwrap_or(at)))
        };
        let v = T::deserialize(&mut de).map_err(|e| seen(e, de.bit_pos()))?;
        de.end().map_err(|e| seen(e, 0))?;
        Ok(v)
    }

    /// `from_slice` (sequence form first) agrees with the map path, value or error.
    fn agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(bytes: &[u8], opts: Options) -> Result<T, String> {
        let types = types();
        let got = opts
            .from_slice::<T>(bytes, &types)
            .map_err(|e| (e.kind().to_string(), e.path().map(str::to_owned), e.bit_offset()));
        assert_eq!(got, by_map::<T>(bytes, opts));
        got.map_err(|e| e.0)
    }

    fn wire(b: Option<u32>, d: Option<&str>) -> Wire {
        Wire { a: 1, b, c: -2, d: d.map(str::to_owned) }
    }

    fn encode<T: Serialize>(v: &T, opts: Options) -> Vec<u8> {
        opts.to_vec(v, &types()).unwrap()
    }

    /// Shallow (presence bits) and deep (a `None` property is left out of the object), with the
    /// sequence form (`absent_option_is_none`) and without (maps only, the default).
    const MODES: [Options; 4] = [
        Options::new().absent_option_is_none(true),
        Options::new().deep(true).absent_option_is_none(true),
        Options::new(),
        Options::new().deep(true),
    ];

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class Delta")]
    struct SomeDefault {
        a: u32,
        #[serde(default = "some_seven")]
        b: Option<u32>,
        c: i32,
        d: Option<String>,
    }

    fn some_seven() -> Option<u32> {
        Some(7)
    }

    /// The one case `absent_option_is_none` answers differently, and why it is off by default:
    /// an absent property whose `Option` field defaults to `Some`.
    #[test]
    fn an_option_defaulting_to_some_keeps_its_default_unless_absent_option_is_none() {
        for deep in [false, true] {
            let opts = Options::new().deep(deep);
            let bytes = encode(&wire(None, Some("x")), opts);
            let exact: SomeDefault = opts.from_slice(&bytes, &types()).unwrap();
            assert_eq!(exact.b, Some(7), "deep {deep}: the default, as serde's map path gives");
            assert_eq!(by_map::<SomeDefault>(&bytes, opts).unwrap(), exact);
            let fast: SomeDefault = opts.absent_option_is_none(true).from_slice(&bytes, &types()).unwrap();
            assert_eq!(fast.b, None, "deep {deep}: the documented difference");
        }
    }

    #[test]
    fn option_fields_are_none() {
        for opts in MODES {
            for (b, d) in [(None, None), (Some(3), None), (None, Some("x")), (Some(3), Some("x"))] {
                let w = wire(b, d);
                assert_eq!(agree::<Wire>(&encode(&w, opts), opts).unwrap(), w);
            }
        }
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class Delta")]
    struct Defaulted {
        a: u32,
        #[serde(default = "seven")]
        b: u32,
        c: i32,
        #[serde(default)]
        d: String,
    }

    fn seven() -> u32 {
        7
    }

    #[test]
    fn defaulted_fields_get_their_default() {
        for opts in MODES {
            let got = agree::<Defaulted>(&encode(&wire(None, None), opts), opts).unwrap();
            assert_eq!(got, Defaulted { a: 1, b: 7, c: -2, d: String::new() });
            let got = agree::<Defaulted>(&encode(&wire(Some(3), None), opts), opts).unwrap();
            assert_eq!(got, Defaulted { a: 1, b: 3, c: -2, d: String::new() });
            let got = agree::<Defaulted>(&encode(&wire(None, Some("x")), opts), opts).unwrap();
            assert_eq!(got, Defaulted { a: 1, b: 7, c: -2, d: "x".into() });
        }
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename = "class Delta")]
    struct Required {
        a: u32,
        b: u32,
        c: i32,
        d: Option<String>,
    }

    #[test]
    fn a_missing_required_field_is_the_same_error() {
        for opts in MODES {
            let err = agree::<Required>(&encode(&wire(None, Some("x")), opts), opts).unwrap_err();
            assert!(err.contains("missing field `b`"), "{err}");
            let got = agree::<Required>(&encode(&wire(Some(4), None), opts), opts).unwrap();
            assert_eq!(got, Required { a: 1, b: 4, c: -2, d: None });
        }
    }

    /// Nested in a container of a sequence-read class, absent only in the last element: the
    /// whole decode is redone by the map path and gives its answer.
    #[test]
    fn nested_absent_property_anywhere_gives_the_map_answer() {
        for opts in MODES {
            #[derive(Debug, PartialEq, Deserialize)]
            #[serde(rename = "class Outer")]
            struct Outer<T> {
                n: u32,
                items: Vec<T>,
                z: i32,
            }
            let items = vec![wire(Some(1), Some("a")), wire(Some(2), None), wire(None, Some("c"))];
            let bytes = encode(&OuterWire { n: 3, items: items.clone(), z: 9 }, opts);
            assert_eq!(agree::<Outer<Wire>>(&bytes, opts).unwrap().items, items);
            let got = agree::<Outer<Defaulted>>(&bytes, opts).unwrap();
            assert_eq!(got.items[2], Defaulted { a: 1, b: 7, c: -2, d: "c".into() });
            let err = agree::<Outer<Required>>(&bytes, opts).unwrap_err();
            assert!(err.contains("missing field `b`"), "{err}");
        }
    }

    /// Rust fields in another order than the property ids: the map path, present and absent.
    #[test]
    fn fields_in_another_order() {
        for opts in MODES {
            #[derive(Debug, PartialEq, Deserialize)]
            #[serde(rename = "class Delta")]
            struct Shuffled {
                d: Option<String>,
                c: i32,
                #[serde(default)]
                b: u32,
                a: u32,
            }
            for (b, d) in [(None, None), (Some(3), Some("x"))] {
                let got = agree::<Shuffled>(&encode(&wire(b, d), opts), opts).unwrap();
                assert_eq!(got, Shuffled { d: d.map(str::to_owned), c: -2, b: b.unwrap_or(0), a: 1 });
            }
        }
    }

    /// A field type that swallows the error an absent property answers with still gets the map
    /// path's answer (the redo is decided by the deserializer, not by the error reaching it).
    #[test]
    fn a_swallowed_signal_still_gives_the_map_answer() {
        for opts in MODES {
            #[derive(Debug, PartialEq)]
            struct Lenient(u32);
            impl<'de> Deserialize<'de> for Lenient {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    Ok(Lenient(u32::deserialize(d).unwrap_or(42)))
                }
            }
            #[derive(Debug, PartialEq, Deserialize)]
            #[serde(rename = "class Delta")]
            struct Swallows {
                a: u32,
                b: Lenient,
                c: i32,
                d: Option<String>,
            }
            // The map path hands a missing field's type serde's own "missing field" deserializer,
            // whose error `Lenient` swallows too.
            let got = agree::<Swallows>(&encode(&wire(None, None), opts), opts).unwrap();
            assert_eq!(got.b, Lenient(42));
            let got = agree::<Swallows>(&encode(&wire(Some(5), None), opts), opts).unwrap();
            assert_eq!(got.b, Lenient(5));
        }
    }

    /// Deep data whose properties are not in id order or that carries an unknown property after
    /// the known ones (the sequence cannot take them): the map path's answer, whatever the Rust
    /// type.
    #[test]
    fn deep_properties_out_of_order_unknown_or_repeated() {
        static REVERSED: ClassSchema = ClassSchema::new(
            "class Delta",
            &[
                P::new("d").ty("std::string").flags(D),
                P::new("c").ty("int"),
                P::new("b").ty("unsigned int").flags(D),
                P::new("a").ty("unsigned int"),
            ],
        );
        static EXTRA: ClassSchema = ClassSchema::new(
            "class Delta",
            &[
                P::new("a").ty("unsigned int"),
                P::new("b").ty("unsigned int").flags(D),
                P::new("c").ty("int"),
                P::new("d").ty("std::string").flags(D),
                P::new("e").ty("unsigned int"),
            ],
        );
        #[derive(Serialize)]
        #[serde(rename = "class Delta")]
        struct WithE {
            a: u32,
            b: Option<u32>,
            c: i32,
            d: Option<String>,
            e: u32,
        }
        let deep = Options::new().deep(true);
        for (b, d) in [(None, None), (Some(3), Some("x"))] {
            let w = wire(b, d);
            let reversed = deep.to_vec(&w, &TypeList::from_schemas(&[&REVERSED])).unwrap();
            let with_e = WithE { a: 1, b, c: -2, d: d.map(str::to_owned), e: 9 };
            let extra = deep.to_vec(&with_e, &TypeList::from_schemas(&[&EXTRA])).unwrap();
            for bytes in [&reversed, &extra] {
                assert_eq!(agree::<Wire>(bytes, deep).unwrap(), w);
                let _ = agree::<Defaulted>(bytes, deep);
                let _ = agree::<Required>(bytes, deep);
            }
            for skip in [false, true] {
                let _ = agree::<Wire>(&extra, deep.skip_unknown(skip));
            }
        }
    }

    /// FORBID_DELTA_ENCODE: an absent property is the same error both ways.
    #[test]
    fn forbidden_delta_is_the_same_error() {
        let opts = Options::new().flags(serde_kiprop::serializer_flags::FORBID_DELTA_ENCODE);
        let bytes = encode(&wire(None, None), Options::new());
        assert!(agree::<Wire>(&bytes, opts).is_err());
    }
}
