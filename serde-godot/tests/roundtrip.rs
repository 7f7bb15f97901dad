//! Property tests: Variant trees and derived structs round-trip in both versions and both struct
//! forms, and the encoding of a decoded value is a fixed point.

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_godot::{
    Color, NodePath, ObjectId, Options, PackedByteArray, PackedColorArray, PackedFloat32Array, PackedInt32Array,
    PackedStringArray, PackedVector2Array, PackedVector3Array, Rid, StringName, StructForm, UnitVariants, Variant,
    Vector2, Vector3, Version,
};

/// Strings the engine keeps as they are (no NUL, no leading byte order mark).
fn text() -> impl Strategy<Value = String> {
    "[^\u{0}]{0,12}".prop_filter("leading BOM", |s| !s.starts_with('\u{feff}'))
}

fn real() -> impl Strategy<Value = f32> {
    prop_oneof![any::<f32>().prop_filter("NaN", |f| !f.is_nan()), Just(0.0), Just(-1.5), Just(f32::INFINITY)]
}

fn v2() -> impl Strategy<Value = Vector2> {
    (real(), real()).prop_map(|(x, y)| Vector2::new(x, y))
}

fn v3() -> impl Strategy<Value = Vector3> {
    (real(), real(), real()).prop_map(|(x, y, z)| Vector3::new(x, y, z))
}

fn node_path() -> impl Strategy<Value = NodePath> {
    let name = "[A-Za-z0-9_.]{1,8}";
    (prop::collection::vec(name, 0..4), prop::collection::vec(name, 0..3), any::<bool>())
        .prop_map(|(names, subnames, absolute)| NodePath { names, subnames, absolute })
}

/// Leaves that exist in both Godot 3 and Godot 4.
fn common_leaf() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::Nil),
        any::<bool>().prop_map(Variant::Bool),
        any::<i64>().prop_map(Variant::Int),
        any::<i32>().prop_map(|i| Variant::Int(i.into())),
        any::<f64>().prop_filter("NaN", |f| !f.is_nan()).prop_map(Variant::Float),
        real().prop_map(|f| Variant::Float(f.into())),
        text().prop_map(Variant::String),
        v2().prop_map(Variant::Vector2),
        v3().prop_map(Variant::Vector3),
        (v2(), v2()).prop_map(|(p, s)| Variant::Rect2(serde_godot::Rect2 { position: p, size: s })),
        (v2(), v2(), v2()).prop_map(|(x, y, o)| Variant::from(serde_godot::Transform2D::new(x, y, o))),
        (v3(), real()).prop_map(|(n, d)| Variant::Plane(serde_godot::Plane { normal: n, d })),
        (real(), real(), real(), real())
            .prop_map(|(x, y, z, w)| Variant::Quaternion(serde_godot::Quaternion::new(x, y, z, w))),
        (v3(), v3()).prop_map(|(p, s)| Variant::from(serde_godot::Aabb::new(p, s))),
        (v3(), v3(), v3()).prop_map(|(a, b, c)| Variant::from(serde_godot::Basis::from_rows(a, b, c))),
        (v3(), v3(), v3(), v3()).prop_map(|(a, b, c, o)| Variant::from(serde_godot::Transform3D::new(
            serde_godot::Basis::from_rows(a, b, c),
            o
        ))),
        (real(), real(), real(), real()).prop_map(|(r, g, b, a)| Variant::Color(Color::new(r, g, b, a))),
        node_path().prop_map(Variant::from),
        (1u64..).prop_map(|id| Variant::from(ObjectId(id))),
        prop::collection::vec(any::<u8>(), 0..9).prop_map(|b| Variant::PackedByteArray(PackedByteArray(b))),
        prop::collection::vec(any::<i32>(), 0..5).prop_map(|v| Variant::PackedInt32Array(PackedInt32Array(v))),
        prop::collection::vec(real(), 0..5).prop_map(|v| Variant::PackedFloat32Array(PackedFloat32Array(v))),
        prop::collection::vec(text(), 0..4).prop_map(|v| Variant::PackedStringArray(PackedStringArray(v))),
        prop::collection::vec(v2(), 0..4).prop_map(|v| Variant::PackedVector2Array(PackedVector2Array(v))),
        prop::collection::vec(v3(), 0..4).prop_map(|v| Variant::PackedVector3Array(PackedVector3Array(v))),
        prop::collection::vec((real(), real(), real(), real()), 0..3).prop_map(|v| Variant::PackedColorArray(
            PackedColorArray(v.into_iter().map(|(r, g, b, a)| Color::new(r, g, b, a)).collect())
        )),
    ]
}

/// Leaves that only Godot 4 has.
fn godot4_leaf() -> impl Strategy<Value = Variant> {
    let i4 = (any::<i32>(), any::<i32>(), any::<i32>(), any::<i32>());
    prop_oneof![
        4 => common_leaf(),
        1 => i4.prop_map(|(x, y, _, _)| Variant::Vector2i(serde_godot::Vector2i::new(x, y))),
        1 => i4.prop_map(|(x, y, z, _)| Variant::Vector3i(serde_godot::Vector3i::new(x, y, z))),
        1 => i4.prop_map(|(x, y, z, w)| Variant::Vector4i(serde_godot::Vector4i::new(x, y, z, w))),
        1 => i4.prop_map(|(x, y, w, h)| Variant::Rect2i(serde_godot::Rect2i::new(x, y, w, h))),
        1 => (real(), real(), real(), real()).prop_map(|(x, y, z, w)| Variant::Vector4(serde_godot::Vector4::new(x, y, z, w))),
        1 => prop::collection::vec(real(), 16).prop_map(|c| Variant::from(serde_godot::Projection {
            columns: std::array::from_fn(|i| serde_godot::Vector4::new(c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3])),
        })),
        1 => text().prop_map(|s| Variant::StringName(StringName(s))),
        1 => any::<u64>().prop_map(|id| Variant::Rid(Rid(id))),
        1 => Just(Variant::Callable),
        1 => (text(), any::<u64>()).prop_map(|(n, id)| Variant::from(serde_godot::Signal { name: StringName(n), object: ObjectId(id) })),
        1 => prop::collection::vec(any::<i64>(), 0..4).prop_map(|v| Variant::PackedInt64Array(serde_godot::PackedInt64Array(v))),
        1 => prop::collection::vec(any::<f64>().prop_filter("NaN", |f| !f.is_nan()), 0..4)
            .prop_map(|v| Variant::PackedFloat64Array(serde_godot::PackedFloat64Array(v))),
        1 => prop::collection::vec((real(), real(), real(), real()), 0..3).prop_map(|v| Variant::PackedVector4Array(
            serde_godot::PackedVector4Array(v.into_iter().map(|(x, y, z, w)| serde_godot::Vector4::new(x, y, z, w)).collect())
        )),
    ]
}

fn tree(leaf: BoxedStrategy<Variant>) -> impl Strategy<Value = Variant> {
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Variant::from),
            prop::collection::vec((inner.clone(), inner), 0..5).prop_map(|pairs| pairs.into_iter().collect()),
        ]
    })
}

fn roundtrip(value: &Variant, opts: Options) -> Result<(), TestCaseError> {
    let bytes = value.to_bytes(&opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let direct = Variant::from_bytes(&bytes, &opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&direct, value);
    let via_serde: Variant = opts.from_slice(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&via_serde, value);
    prop_assert_eq!(direct.to_bytes(&opts).unwrap(), bytes);
    Ok(())
}

proptest! {
    #[test]
    fn variant_trees_round_trip_in_godot4(value in tree(godot4_leaf().boxed())) {
        roundtrip(&value, Options::new())?;
    }

    #[test]
    fn variant_trees_round_trip_in_godot3(value in tree(common_leaf().boxed())) {
        roundtrip(&value, Options::new().version(Version::Godot3))?;
    }

    #[test]
    fn nan_keeps_its_bits(bits in any::<u64>()) {
        let f = f64::from_bits(bits | 0x7ff0_0000_0000_0001);
        let bytes = serde_godot::to_vec(&f).unwrap();
        prop_assert_eq!(serde_godot::from_slice::<f64>(&bytes).unwrap().to_bits(), f.to_bits());
    }
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Team {
    Red,
    Blue,
    Neutral,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Order {
    Hold,
    MoveTo(Vector2),
    Attack { target: u32, times: u8 },
    Path(Vec<Vector2>, bool),
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Unit {
    id: u32,
    name: String,
    hp: i16,
    speed: f32,
    mass: f64,
    pos: Vector2,
    team: Team,
    orders: Vec<Order>,
    leader: Option<u32>,
    tags: Vec<String>,
    flags: (bool, bool),
    big: i64,
    blob: PackedByteArray,
    points: PackedVector3Array,
}

fn unit() -> impl Strategy<Value = Unit> {
    let order = prop_oneof![
        Just(Order::Hold),
        v2().prop_map(Order::MoveTo),
        (any::<u32>(), any::<u8>()).prop_map(|(target, times)| Order::Attack { target, times }),
        (prop::collection::vec(v2(), 0..3), any::<bool>()).prop_map(|(p, b)| Order::Path(p, b)),
    ];
    let team = prop_oneof![Just(Team::Red), Just(Team::Blue), Just(Team::Neutral)];
    (
        (any::<u32>(), text(), any::<i16>(), real(), any::<f64>().prop_filter("NaN", |f| !f.is_nan()), v2()),
        (team, prop::collection::vec(order, 0..4), any::<Option<u32>>(), prop::collection::vec(text(), 0..3)),
        (
            any::<(bool, bool)>(),
            any::<i64>(),
            prop::collection::vec(any::<u8>(), 0..8),
            prop::collection::vec(v3(), 0..4),
        ),
    )
        .prop_map(
            |((id, name, hp, speed, mass, pos), (team, orders, leader, tags), (flags, big, blob, points))| Unit {
                id,
                name,
                hp,
                speed,
                mass,
                pos,
                team,
                orders,
                leader,
                tags,
                flags,
                big,
                blob: PackedByteArray(blob),
                points: PackedVector3Array(points),
            },
        )
}

proptest! {
    #[test]
    fn derived_structs_round_trip_in_every_configuration(unit in unit()) {
        for version in [Version::Godot4, Version::Godot3] {
            for form in [StructForm::Dictionary, StructForm::Array] {
                for variants in [UnitVariants::Name, UnitVariants::Index] {
                    let opts = Options::new().version(version).struct_form(form).unit_variants(variants);
                    let bytes = opts.to_vec(&unit).unwrap();
                    prop_assert_eq!(&opts.from_slice::<Unit>(&bytes).unwrap(), &unit);
                    // A Variant sees the same bytes and gives them back.
                    let variant = Variant::from_bytes(&bytes, &opts).unwrap();
                    prop_assert_eq!(variant.to_bytes(&opts).unwrap(), bytes);
                }
            }
        }
    }
}
