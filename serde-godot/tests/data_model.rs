//! The serde data model mapping (spec §7): exact bytes for every rule, both directions.

mod common;

use std::collections::BTreeMap;

use common::{hex, to_hex};
use serde::{Deserialize, Serialize};
use serde_godot::{
    Array, Color, Dictionary, ErrorKind, NodePath, ObjectId, Options, PackedByteArray, PackedInt32Array,
    PackedStringArray, PackedVector2Array, PackedVector3Array, Rid, Signal, StringName, StructForm, UnitVariants,
    Variant, VariantType, Vector2, Vector2i, Vector3, Version,
};

fn enc<T: Serialize + ?Sized>(v: &T) -> String {
    to_hex(&serde_godot::to_vec(v).unwrap())
}

fn enc_with<T: Serialize + ?Sized>(opts: Options, v: &T) -> String {
    to_hex(&opts.to_vec(v).unwrap())
}

fn dec<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
    serde_godot::from_slice(bytes).unwrap()
}

#[test]
fn integers_use_64_bits_only_outside_i32() {
    assert_eq!(enc(&0u8), "0200000000000000");
    assert_eq!(enc(&-1i8), "02000000ffffffff");
    assert_eq!(enc(&i32::MAX), "02000000ffffff7f");
    assert_eq!(enc(&(i32::MAX as i64 + 1)), "020001000000008000000000");
    assert_eq!(enc(&(i32::MIN as i64 - 1)), "02000100ffffff7fffffffff");
    assert_eq!(enc(&u32::MAX), "02000100ffffffff00000000");
    assert_eq!(enc(&(i64::MAX as u64)), "02000100ffffffffffffff7f");
    assert_eq!(enc(&5i128), "0200000005000000");
    assert_eq!(enc(&i64::MIN), "020001000000000000000080");
}

#[test]
fn integers_beyond_i64_are_a_clear_error() {
    for err in [
        serde_godot::to_vec(&(i64::MAX as u64 + 1)).unwrap_err(),
        serde_godot::to_vec(&u128::MAX).unwrap_err(),
        serde_godot::to_vec(&(i64::MIN as i128 - 1)).unwrap_err(),
    ] {
        assert!(matches!(err.kind(), ErrorKind::IntegerOutOfRange), "{err}");
        assert_eq!(err.offset(), None);
    }
}

#[test]
fn floats_use_64_bits_only_when_f32_does_not_round_trip() {
    assert_eq!(enc(&0.5f64), "030000000000003f");
    assert_eq!(enc(&0.1f32), "03000000cdcccc3d");
    assert_eq!(enc(&0.1f64), "030001009a9999999999b93f");
    assert_eq!(enc(&-0.0f64), "0300000000000080");
    assert_eq!(enc(&f64::INFINITY), "030000000000807f");
    assert_eq!(enc(&16777217.0f64), "030001000000001000007041");
    assert_eq!(enc(&16777216.0f64), "030000000000804b");
    // NaN != NaN, so the engine's rule always picks 64 bits.
    assert_eq!(enc(&f64::NAN), "03000100000000000000f87f");
    assert_eq!(enc(&f32::NAN), "030000000000c07f");
}

#[test]
fn non_canonical_encodings_decode() {
    // 64-bit encodings of small values (the engine accepts them).
    assert_eq!(dec::<i32>(&hex("020001000500000000000000")), 5);
    assert_eq!(dec::<f32>(&hex("03000100000000000000f03f")), 1.0);
    assert_eq!(dec::<u8>(&hex("0200000005000000")), 5);
    // Any non-zero bool payload is true; unused header bits are ignored.
    assert!(dec::<bool>(&hex("0100000002000000")));
    assert_eq!(dec::<i64>(&hex("0201000005000000")), 5);
    // Ints read as floats.
    assert_eq!(dec::<f64>(&hex("0200000007000000")), 7.0);
}

#[test]
fn out_of_range_integers_for_the_rust_type_are_errors_at_their_offset() {
    let bytes = serde_godot::to_vec(&(1u8, 300i32)).unwrap();
    let err = serde_godot::from_slice::<(u8, u8)>(&bytes).unwrap_err();
    assert_eq!(err.offset(), Some(16), "{err}");
    assert!(err.to_string().contains("300"), "{err}");
}

#[test]
fn strings_chars_and_bytes() {
    assert_eq!(enc("abc"), "040000000300000061626300");
    assert_eq!(enc("abcd"), "040000000400000061626364");
    assert_eq!(enc(&'é'), "0400000002000000c3a90000");
    assert_eq!(dec::<char>(&hex("0400000002000000c3a90000")), 'é');
    assert_eq!(enc(serde_bytes::Bytes::new(&[1, 2, 3])), "1d0000000300000001020300");
    assert_eq!(enc(&PackedByteArray(vec![1, 2, 3, 4, 5])), "1d000000050000000102030405000000");
    // Borrowed from the input.
    let bytes = hex("040000000300000061626300");
    let s: &str = dec(&bytes);
    assert_eq!(s, "abc");
    let packed = hex("1d0000000300000001020300");
    let b: &[u8] = dec(&packed);
    assert_eq!(b, [1, 2, 3]);
    // A Vec<u8> (no serde_bytes) is an Array of ints, and also reads a PackedByteArray.
    assert_eq!(enc(&vec![7u8]), "1c000000010000000200000007000000");
    assert_eq!(dec::<Vec<u8>>(&packed), [1, 2, 3]);
}

#[test]
fn strings_decode_like_the_engine() {
    // Missing padding at the end is an error (the engine requires it); garbage padding is not.
    assert!(matches!(
        serde_godot::from_slice::<String>(&hex("040000000100000061")).unwrap_err().kind(),
        ErrorKind::Eof
    ));
    assert_eq!(dec::<String>(&hex("0400000001000000614142ff")), "a");
    // Parsing stops at NUL and drops a leading byte order mark (verified on Godot 3.2.3).
    assert_eq!(dec::<String>(&hex("040000000300000061006200")), "a");
    assert_eq!(dec::<String>(&hex("0400000004000000efbbbf61")), "a");
    let err = serde_godot::from_slice::<String>(&hex("0400000002000000c3280000")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8));
    assert_eq!(err.offset(), Some(8));
}

/// Regression (fuzz finding, `godot_roundtrip`): the engine drops only the *first* leading byte
/// order mark and writes strings as given, so a string that starts with two marks keeps one after
/// a decode and loses it on the next round trip. serde-godot does the same, byte for byte.
#[test]
fn only_one_leading_byte_order_mark_is_dropped_per_decode() {
    let two_marks = hex("0400000006000000efbbbfefbbbf0000");
    let once = dec::<String>(&two_marks);
    assert_eq!(once, "\u{feff}");
    let bytes = serde_godot::to_vec(&once).unwrap();
    assert_eq!(to_hex(&bytes), "0400000003000000efbbbf00");
    assert_eq!(dec::<String>(&bytes), "");
}

#[test]
fn unit_option_and_unit_structs_are_nil() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Marker;
    assert_eq!(enc(&()), "00000000");
    assert_eq!(enc(&None::<i32>), "00000000");
    assert_eq!(enc(&Some(3)), "0200000003000000");
    assert_eq!(enc(&Marker), "00000000");
    assert_eq!(dec::<Option<i32>>(&hex("00000000")), None);
    assert_eq!(dec::<Option<i32>>(&hex("0200000003000000")), Some(3));
    assert_eq!(dec::<Marker>(&hex("00000000")), Marker);
}

/// Hex with spaces between words, for readability.
fn x(spaced: &str) -> String {
    spaced.split_whitespace().collect()
}

#[test]
fn sequences_tuples_and_maps() {
    assert_eq!(enc(&vec![1, 2]), x("1c000000 02000000 02000000 01000000 02000000 02000000"));
    assert_eq!(enc(&(1, "a")), x("1c000000 02000000 02000000 01000000 04000000 01000000 61000000"));
    let map = BTreeMap::from([("a", 1)]);
    assert_eq!(enc(&map), x("1b000000 01000000 04000000 01000000 61000000 02000000 01000000"));
    assert_eq!(dec::<BTreeMap<String, i32>>(&hex(&enc(&map))), BTreeMap::from([("a".to_owned(), 1)]));
    // Maps keep their iteration order (Godot dictionaries are ordered).
    let ordered = Variant::from([("b", 1), ("a", 2)]);
    let bytes = serde_godot::to_vec(&ordered).unwrap();
    assert_eq!(to_hex(&bytes)[16..40], x("04000000 01000000 62000000"));
    // Unknown-length sequences get their count patched in.
    struct Iter;
    impl Serialize for Iter {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq((0..3).filter(|i| i % 2 == 0))
        }
    }
    assert_eq!(enc(&Iter), x("1c000000 02000000 02000000 00000000 02000000 02000000"));
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Hit {
    id: u32,
    dmg: f32,
}

#[test]
fn structs_are_dictionaries_or_arrays() {
    let hit = Hit { id: 7, dmg: 2.5 };
    let dict = x("1b000000 02000000 04000000 02000000 69640000 02000000 07000000
                  04000000 03000000 646d6700 03000000 00002040");
    let array = x("1c000000 02000000 02000000 07000000 03000000 00002040");
    assert_eq!(enc(&hit), dict);
    assert_eq!(enc_with(Options::new().struct_form(StructForm::Array), &hit), array);
    // Decoding takes either form, whatever the options say.
    assert_eq!(dec::<Hit>(&hex(&dict)), hit);
    assert_eq!(dec::<Hit>(&hex(&array)), hit);
    // StringName keys (what a Godot 4 peer sends for `{&"id": 7}`) work too.
    let mut with_names = Variant::from([("dmg", Variant::from(2.5f32))]);
    if let Variant::Dictionary(d) = &mut with_names {
        d.insert(Variant::StringName(StringName::from("id")), Variant::Int(7));
    }
    assert_eq!(dec::<Hit>(&serde_godot::to_vec(&with_names).unwrap()), hit);
    // Unknown fields are skipped; missing ones are an error.
    let extra =
        Variant::from([("id", Variant::Int(7)), ("new", Variant::from(vec![Variant::Nil])), ("dmg", 2.5.into())]);
    assert_eq!(dec::<Hit>(&serde_godot::to_vec(&extra).unwrap()), hit);
    let missing = serde_godot::to_vec(&Variant::from([("id", 7)])).unwrap();
    assert!(serde_godot::from_slice::<Hit>(&missing).unwrap_err().to_string().contains("dmg"));
    // An Array with the wrong number of fields is an error, not a misread.
    let long = serde_godot::to_vec(&(7, 2.5f32, 1)).unwrap();
    assert!(serde_godot::from_slice::<Hit>(&long).is_err());
}

#[test]
fn field_name_fast_path_keeps_the_engine_string_rules() {
    // Keys are matched against the struct's field names without re-validating them; every
    // case the engine reads differently must still go the general way.
    #[derive(Deserialize, PartialEq, Debug)]
    struct Odd {
        #[serde(rename = "a\0b")]
        nul: i32,
        #[serde(rename = "\u{FEFF}bom")]
        bom: i32,
        long_field_name_past_sixteen_bytes: i32,
        #[serde(default)]
        b: i32,
    }
    // "a\0b" on the wire is "a" to the engine (unknown: skipped), and the BOM is dropped, so
    // "\u{FEFF}bom" reads as "bom" (unknown too): the two renamed fields are missing.
    let wire = |keys: &[(&[u8], i32)]| {
        let mut out = vec![0x1b, 0, 0, 0, keys.len() as u8, 0, 0, 0];
        for (k, v) in keys {
            out.extend_from_slice(&[4, 0, 0, 0, k.len() as u8, 0, 0, 0]);
            out.extend_from_slice(k);
            out.resize(out.len() + (4 - k.len() % 4) % 4, 0);
            out.extend_from_slice(&[2, 0, 0, 0, *v as u8, 0, 0, 0]);
        }
        out
    };
    let long = b"long_field_name_past_sixteen_bytes";
    let err =
        serde_godot::from_slice::<Odd>(&wire(&[(b"a\0b", 1), ("\u{FEFF}bom".as_bytes(), 2), (long, 3)])).unwrap_err();
    assert!(err.to_string().contains("missing field `a\0b`"), "{err}");
    let err =
        serde_godot::from_slice::<Odd>(&wire(&[("\u{FEFF}bom".as_bytes(), 2), (long, 3), (b"a", 1)])).unwrap_err();
    assert!(err.to_string().contains("missing field"), "{err}");
    // Keys in any order, a key cut by a NUL, a long key: all found.
    #[derive(Deserialize, PartialEq, Debug)]
    struct Plain {
        hp: i32,
        name_that_is_long_enough: i32,
        mp: i32,
    }
    let plain = wire(&[(b"mp", 3), (b"hp\0junk", 1), (b"name_that_is_long_enough", 2)]);
    assert_eq!(dec::<Plain>(&plain), Plain { hp: 1, name_that_is_long_enough: 2, mp: 3 });
    // A known key without its padding at the very end is an error, as in the general path.
    let mut cut = wire(&[(b"hp", 1), (b"name_that_is_long_enough", 2), (b"mp", 3)]);
    cut.truncate(cut.len() - 8);
    cut.extend_from_slice(&[4, 0, 0, 0, 1, 0, 0, 0, b'x']);
    assert!(serde_godot::from_slice::<Plain>(&cut).is_err());
}

#[test]
fn borrowed_structs() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Chat<'a> {
        from: &'a str,
        #[serde(with = "serde_bytes")]
        blob: &'a [u8],
    }
    let msg = Chat { from: "ayla", blob: b"\x01\x02" };
    let bytes = serde_godot::to_vec(&msg).unwrap();
    let back: Chat<'_> = serde_godot::from_slice(&bytes).unwrap();
    assert_eq!(back, msg);
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Cmd {
    Stop,
    Go(i32),
    Aim(i32, i32),
    Say { text: String },
}

#[test]
fn enums_are_externally_tagged() {
    assert_eq!(enc(&Cmd::Stop), x("04000000 04000000 53746f70"));
    assert_eq!(enc_with(Options::new().unit_variants(UnitVariants::Index), &Cmd::Stop), x("02000000 00000000"));
    assert_eq!(enc(&Cmd::Go(5)), x("1b000000 01000000 04000000 02000000 476f0000 02000000 05000000"));
    assert_eq!(
        enc(&Cmd::Aim(1, 2)),
        x("1b000000 01000000 04000000 03000000 41696d00 1c000000 02000000 02000000 01000000 02000000 02000000")
    );
    assert_eq!(
        enc(&Cmd::Say { text: "hi".into() }),
        x("1b000000 01000000 04000000 03000000 53617900 1b000000 01000000 04000000 04000000 74657874
           04000000 02000000 68690000")
    );
    for cmd in [Cmd::Stop, Cmd::Go(-3), Cmd::Aim(4, 5), Cmd::Say { text: "yo".into() }] {
        for opts in [Options::new(), Options::new().unit_variants(UnitVariants::Index).struct_form(StructForm::Array)] {
            let bytes = opts.to_vec(&cmd).unwrap();
            assert_eq!(opts.from_slice::<Cmd>(&bytes).unwrap(), cmd);
        }
    }
    // Internally tagged enums (GDScript-style `{"type": "hit", ...}`) work through serde attributes.
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(tag = "type")]
    enum Event {
        Hit { target: u32 },
        Quit,
    }
    for event in [Event::Hit { target: 3 }, Event::Quit] {
        let bytes = serde_godot::to_vec(&event).unwrap();
        assert_eq!(serde_godot::from_slice::<Event>(&bytes).unwrap(), event);
    }
}

#[test]
fn godot_types_have_their_exact_wire_form() {
    assert_eq!(enc(&Vector2::new(1.5, -2.0)), x("05000000 0000c03f 000000c0"));
    assert_eq!(enc(&Vector2i::new(1, -1)), x("06000000 01000000 ffffffff"));
    assert_eq!(enc(&Color::new(1.0, 0.0, 0.0, 1.0)), x("14000000 0000803f 00000000 00000000 0000803f"));
    assert_eq!(enc(&StringName::from("ab")), x("15000000 02000000 61620000"));
    assert_eq!(
        enc(&NodePath::from("/root/Main")),
        x("16000000 02000080 00000000 01000000 04000000 726f6f74 04000000 4d61696e")
    );
    assert_eq!(enc(&Rid(5)), x("17000000 05000000 00000000"));
    assert_eq!(enc(&ObjectId(0x508)), x("18000100 08050000 00000000"));
    assert_eq!(enc(&serde_godot::Callable), x("19000000"));
    assert_eq!(
        enc(&Signal { name: "s".into(), object: ObjectId(9) }),
        x("1a000000 01000000 73000000 09000000 00000000")
    );
    assert_eq!(enc(&PackedInt32Array(vec![1, -1])), x("1e000000 02000000 01000000 ffffffff"));
    assert_eq!(enc(&PackedStringArray(vec!["abc".into()])), x("22000000 01000000 04000000 61626300"));
    assert_eq!(enc(&PackedVector2Array(vec![Vector2::new(1.0, 2.0)])), x("23000000 01000000 0000803f 00000040"));
    assert_eq!(
        enc(&PackedVector3Array(vec![Vector3::new(1.0, 2.0, 3.0)])),
        x("24000000 01000000 0000803f 00000040 00004040")
    );
}

#[test]
fn godot_types_round_trip_and_are_plain_in_json() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Scene {
        pos: Vector2,
        cell: Vector2i,
        tint: Color,
        path: NodePath,
        name: StringName,
        rid: Rid,
        owner: ObjectId,
        sig: Signal,
        ids: PackedInt32Array,
        tags: PackedStringArray,
        outline: PackedVector2Array,
        mesh: PackedVector3Array,
        blob: PackedByteArray,
        xform: serde_godot::Transform3D,
        proj: serde_godot::Projection,
        rect: serde_godot::Rect2,
        plane: serde_godot::Plane,
        rot: serde_godot::Quaternion,
        bounds: serde_godot::Aabb,
        t2: serde_godot::Transform2D,
    }
    let scene = Scene {
        pos: Vector2::new(1.0, 2.0),
        cell: Vector2i::new(3, 4),
        tint: Color::rgb(0.5, 0.25, 1.0),
        path: NodePath::from("Player/Sprite:position:x"),
        name: StringName::from("idle"),
        rid: Rid(99),
        owner: ObjectId(u64::MAX),
        sig: Signal { name: "hit".into(), object: ObjectId(7) },
        ids: PackedInt32Array(vec![1, 2, 3]),
        tags: PackedStringArray(vec!["a".into(), "".into()]),
        outline: PackedVector2Array(vec![Vector2::new(0.0, 1.0); 3]),
        mesh: PackedVector3Array(vec![Vector3::new(1.0, 2.0, 3.0); 2]),
        blob: PackedByteArray(vec![9; 5]),
        xform: serde_godot::Transform3D::IDENTITY,
        proj: serde_godot::Projection::IDENTITY,
        rect: serde_godot::Rect2::new(1.0, 2.0, 3.0, 4.0),
        plane: serde_godot::Plane::new(0.0, 1.0, 0.0, 5.0),
        rot: serde_godot::Quaternion::IDENTITY,
        bounds: serde_godot::Aabb::new(Vector3::new(1.0, 1.0, 1.0), Vector3::new(2.0, 2.0, 2.0)),
        t2: serde_godot::Transform2D::IDENTITY,
    };
    for opts in [Options::new(), Options::new().struct_form(StructForm::Array)] {
        let bytes = opts.to_vec(&scene).unwrap();
        assert_eq!(opts.from_slice::<Scene>(&bytes).unwrap(), scene);
        // The same bytes as a Variant keep every type.
        let variant = Variant::from_bytes(&bytes, &opts).unwrap();
        assert_eq!(variant.to_bytes(&opts).unwrap(), bytes);
    }
    let json = serde_json::to_value(&scene).unwrap();
    assert_eq!(json["pos"], serde_json::json!({"x": 1.0, "y": 2.0}));
    assert_eq!(json["path"], "Player/Sprite:position:x");
    assert_eq!(json["name"], "idle");
    assert_eq!(json["rid"], 99);
    assert_eq!(json["outline"][0], serde_json::json!({"x": 0.0, "y": 1.0}));
    assert_eq!(serde_json::from_value::<Scene>(json).unwrap(), scene);
    // And through a non-self-describing binary format.
    let post = postcard_like_roundtrip(&scene);
    assert_eq!(post, scene);
}

fn postcard_like_roundtrip<T: Serialize + serde::de::DeserializeOwned>(v: &T) -> T {
    // serde_json with the value tree is a stand-in for "any other format".
    serde_json::from_slice(&serde_json::to_vec(v).unwrap()).unwrap()
}

#[test]
fn packed_arrays_decode_into_plain_vectors() {
    let ints = serde_godot::to_vec(&PackedInt32Array(vec![1, 2])).unwrap();
    assert_eq!(dec::<Vec<i64>>(&ints), [1, 2]);
    let vecs = serde_godot::to_vec(&PackedVector2Array(vec![Vector2::new(1.0, 2.0)])).unwrap();
    assert_eq!(dec::<Vec<Vector2>>(&vecs), [Vector2::new(1.0, 2.0)]);
    assert_eq!(dec::<Vec<(f32, f32)>>(&vecs), [(1.0, 2.0)]);
    let strings = serde_godot::to_vec(&PackedStringArray(vec!["x".into()])).unwrap();
    assert_eq!(dec::<Vec<String>>(&strings), ["x"]);
    // And a packed type reads an untyped Array of its elements.
    let array = serde_godot::to_vec(&vec![Vector3::new(1.0, 2.0, 3.0)]).unwrap();
    assert_eq!(dec::<PackedVector3Array>(&array).0, [Vector3::new(1.0, 2.0, 3.0)]);
    // Elements of a PackedStringArray may come with or without their NUL.
    let no_nul = hex(&x("22000000 01000000 03000000 616263ff"));
    assert_eq!(dec::<PackedStringArray>(&no_nul).0, ["abc"]);
}

#[test]
fn double_precision_payloads_are_read() {
    // Vector2(1.5, -2) from a double-precision Godot 4 build (64-bit flag, f64 components).
    let bytes = hex(&x("05000100 000000000000f83f 00000000000000c0"));
    assert_eq!(dec::<Vector2>(&bytes), Vector2::new(1.5, -2.0));
    assert_eq!(Variant::from_bytes(&bytes, &Options::new()).unwrap(), Variant::Vector2(Vector2::new(1.5, -2.0)));
    let packed = hex(&x("24000100 01000000 000000000000f03f 0000000000000040 0000000000000840"));
    assert_eq!(dec::<PackedVector3Array>(&packed).0, [Vector3::new(1.0, 2.0, 3.0)]);
    assert_eq!(dec::<Vec<Vector3>>(&packed), [Vector3::new(1.0, 2.0, 3.0)]);
    // Godot 3 ignores the flag for math types (observed on Godot 3.2.3).
    let g3 = Options::new().version(Version::Godot3);
    let quat = hex(&x("0a000100 0000803f 0000803f 0000803f 0000803f"));
    assert_eq!(
        g3.from_slice::<serde_godot::Quaternion>(&quat).unwrap(),
        serde_godot::Quaternion::new(1.0, 1.0, 1.0, 1.0)
    );
}

#[test]
fn nodepath_padding_garbage_is_ignored() {
    // Player/Sprite as Godot 3.2.3 encoded it, with uninitialised padding bytes.
    let g3 = Options::new().version(Version::Godot3);
    let bytes = hex("0f00000002000080000000000000000006000000506c617965720000060000005370726974651041");
    let path: NodePath = g3.from_slice(&bytes).unwrap();
    assert_eq!(path.to_string(), "Player/Sprite");
    assert_eq!(
        to_hex(&g3.to_vec(&path).unwrap()),
        "0f00000002000080000000000000000006000000506c617965720000060000005370726974650000"
    );
}

#[test]
fn godot4_only_types_are_refused_in_godot3_mode() {
    let g3 = Options::new().version(Version::Godot3);
    let refused = [
        g3.to_vec(&Vector2i::new(1, 2)).unwrap_err(),
        g3.to_vec(&StringName::from("x")).unwrap_err(),
        g3.to_vec(&serde_godot::Callable).unwrap_err(),
        g3.to_vec(&Signal::default()).unwrap_err(),
        g3.to_vec(&serde_godot::PackedInt64Array(vec![1])).unwrap_err(),
        g3.to_vec(&serde_godot::Vector4::default()).unwrap_err(),
        g3.to_vec(&serde_godot::Projection::IDENTITY).unwrap_err(),
    ];
    for err in refused {
        assert!(matches!(err.kind(), ErrorKind::UnsupportedInVersion(_)), "{err}");
    }
    // Godot 3 numbering for the rest.
    assert_eq!(enc_with(g3, &Color::rgb(1.0, 0.0, 0.0)), x("0e000000 0000803f 00000000 00000000 0000803f"));
    assert_eq!(enc_with(g3, &Rid(5)), x("10000000"));
    assert_eq!(enc_with(g3, &ObjectId(1)), x("11000100 01000000 00000000"));
    assert_eq!(enc_with(g3, &vec![Hit { id: 1, dmg: 0.0 }])[..8], x("13000000"));
    assert_eq!(enc_with(g3, &Hit { id: 1, dmg: 0.0 })[..8], x("12000000"));
    // A Godot 4 type id is out of range for a Godot 3 decoder, as in the engine.
    let err = g3.from_slice::<Variant>(&hex("1b000000")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownType(27)));
}

#[test]
fn typed_containers() {
    let v = 0xf123456789abcdefu64 as i64;
    let typed = Options::new().typed_containers(true);
    let array = Array::from(vec![v]);
    assert_eq!(enc_with(typed, &array), "1c000100020000000100000002000100efcdab89674523f1");
    assert_eq!(enc(&array), "1c0000000100000002000100efcdab89674523f1");
    let dict: Dictionary<i64, i64> = Dictionary::from([(v, v)]);
    assert_eq!(
        enc_with(typed, &dict),
        "1b00050002000000020000000100000002000100efcdab89674523f102000100efcdab89674523f1"
    );
    assert_eq!(typed.from_slice::<Dictionary<i64, i64>>(&typed.to_vec(&dict).unwrap()).unwrap(), dict);
    // Typed headers are not written in Godot 3 mode.
    assert_eq!(enc_with(typed.version(Version::Godot3), &array)[..8], x("13000000"));
    // Elements are checked against the declared type.
    let wrong = Array::with_element_type(serde_godot::ContainerType::Builtin(VariantType::Int), vec!["no".into()]);
    let err = typed.to_vec(&wrong).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::WrongType { expected: VariantType::Int, found: VariantType::String }));
    // Class-typed arrays (what Godot writes for Array[Node] without full objects).
    let nodes = Array::with_element_type(
        serde_godot::ContainerType::ClassName("EncodedObjectAsID".into()),
        vec![Variant::from(ObjectId(5)), Variant::Nil],
    );
    let bytes = typed.to_vec(&nodes).unwrap();
    assert_eq!(&bytes[..4], &hex("1c000200")[..]);
    assert_eq!(Variant::from_bytes(&bytes, &typed).unwrap(), Variant::from(nodes));
    // JSON sees plain containers.
    assert_eq!(serde_json::to_string(&array).unwrap(), format!("[{v}]"));
}

#[test]
fn trailing_bytes_and_end() {
    let err = serde_godot::from_slice::<()>(&hex("0000000000")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TrailingBytes(1)));
    assert_eq!(err.offset(), Some(4));
    let input = hex("0000000000");
    let (unit, rest) = Options::new().take_from_slice::<()>(&input).unwrap();
    assert_eq!((unit, rest), ((), &[0u8][..]));
}

#[test]
fn type_mismatch_errors_point_at_the_value() {
    let bytes = serde_godot::to_vec(&Variant::from([("id", Variant::Int(1)), ("dmg", "lots".into())])).unwrap();
    let err = serde_godot::from_slice::<Hit>(&bytes).unwrap_err();
    // The "dmg" value starts after the header (8), "id" key (12) + value (8), "dmg" key (12).
    assert_eq!(err.offset(), Some(40), "{err}");
    assert!(err.to_string().contains("expected f32"), "{err}");
}

#[test]
fn depth_limit_applies_both_ways() {
    fn nested(levels: usize) -> Variant {
        let mut v = Variant::from(Vec::new());
        for _ in 1..levels {
            v = Variant::from(vec![v]);
        }
        v
    }
    testkit::depth::on_stack(testkit::depth::APP_STACK, || {
        // 1025 nested arrays: the innermost sits at depth 1024, Godot's limit — accepted.
        let ok = serde_godot::to_vec(&nested(1025)).unwrap();
        assert!(Variant::from_bytes(&ok, &Options::new()).is_ok());
        assert!(serde_godot::from_slice::<serde::de::IgnoredAny>(&ok).is_ok());
        let deep = nested(1026);
        let err = serde_godot::to_vec(&deep).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::DepthLimit(1024)));
        let loose = Options::new().max_depth(2000);
        let bytes = loose.to_vec(&deep).unwrap();
        for err in [
            Variant::from_bytes(&bytes, &Options::new()).unwrap_err(),
            serde_godot::from_slice::<Variant>(&bytes).unwrap_err(),
            serde_godot::from_slice::<serde_json::Value>(&bytes).unwrap_err(),
        ] {
            assert!(matches!(err.kind(), ErrorKind::DepthLimit(1024)), "{err}");
        }
        assert!(loose.from_slice::<Variant>(&bytes).is_ok());
        std::mem::forget(deep);
    });
}

#[test]
fn variant_fields_inside_structs_are_lossless() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Envelope {
        kind: String,
        payload: Variant,
        extra: Option<Variant>,
    }
    let payload = Variant::from([
        ("name", Variant::StringName("idle".into())),
        ("cells", Variant::PackedInt32Array(PackedInt32Array(vec![1, 2]))),
        ("pos", Variant::Vector2(Vector2::new(1.0, 2.0))),
    ]);
    let env = Envelope { kind: "state".into(), payload, extra: Some(Variant::Int(3)) };
    let bytes = serde_godot::to_vec(&env).unwrap();
    assert_eq!(serde_godot::from_slice::<Envelope>(&bytes).unwrap(), env);
    // Through JSON the same value is plain data.
    let json = serde_json::to_value(&env).unwrap();
    assert_eq!(json["payload"]["pos"], serde_json::json!({"x": 1.0, "y": 2.0}));
}

#[test]
fn deserialize_any_maps_every_type_to_the_data_model() {
    let v = Variant::from([
        ("v2", Variant::Vector2(Vector2::new(1.0, 2.0))),
        ("rect", Variant::Rect2(serde_godot::Rect2::new(1.0, 2.0, 3.0, 4.0))),
        ("path", Variant::from(NodePath::from("/root/A:b"))),
        ("ints", Variant::PackedInt32Array(PackedInt32Array(vec![5]))),
        ("name", Variant::StringName("n".into())),
    ]);
    let json: serde_json::Value = serde_godot::from_slice(&serde_godot::to_vec(&v).unwrap()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "v2": [1.0, 2.0], "rect": [[1.0, 2.0], [3.0, 4.0]], "path": "/root/A:b",
            "ints": [5], "name": "n"
        })
    );
    // PackedByteArray is visited as bytes (serde_json::Value has no bytes; serde_bytes and
    // Variant take them).
    let bytes = serde_godot::to_vec(&PackedByteArray(vec![1, 2])).unwrap();
    assert_eq!(dec::<serde_bytes::ByteBuf>(&bytes).into_vec(), [1, 2]);
}
