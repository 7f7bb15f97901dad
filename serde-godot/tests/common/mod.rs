//! Helpers shared by the integration tests: fixture loading and Godot 3's `var2str` text form,
//! so that decoded values can be compared with what the real engine printed.
#![allow(dead_code)]

use serde_godot::{Object, Variant};

/// Reads a fixture from `tests/data/`.
pub(crate) fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses a JSON fixture from `tests/data/`.
pub(crate) fn json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&data(name)).unwrap()
}

pub(crate) fn hex(text: &str) -> Vec<u8> {
    testkit::hex::decode(text)
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    testkit::hex::encode(bytes)
}

/// Whether our encoding equals the engine's, allowing for the uninitialised bytes the engine
/// leaves in NodePath string padding (godotengine/godot#44999): byte-equal, or the engine's bytes
/// contain a NodePath and decode to a value that encodes to exactly our bytes.
pub(crate) fn same_modulo_nodepath_padding(ours: &[u8], engine: &[u8], opts: &serde_godot::Options) -> bool {
    if ours == engine {
        return true;
    }
    let Ok(value) = Variant::from_bytes(engine, opts) else { return false };
    format!("{value:?}").contains("NodePath") && value.to_bytes(opts).unwrap() == ours
}

/// C's `%g` (6 significant digits), which Godot 3.2 uses to print reals.
pub(crate) fn g6(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let strip = |s: String| {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa.to_owned()), exp.abs())
    } else {
        strip(format!("{v:.*}", (5 - exp) as usize))
    }
}

/// A Godot 3 `real` as `var2str` prints it: through `float`, `%g`, and `.0` appended to
/// integral values (but not to `inf` and `nan`).
fn real3(v: f64) -> String {
    let s = g6(v as f32 as f64);
    if s != "inf" && s != "nan" && !s.contains('.') && !s.contains('e') { format!("{s}.0") } else { s }
}

fn comps(name: &str, values: &[f32]) -> String {
    let parts: Vec<String> = values.iter().map(|v| g6(*v as f64)).collect();
    format!("{name}( {} )", parts.join(", "))
}

/// Godot 3's `c_escape_multiline` (what `var2str` uses for Strings).
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Godot 3's `c_escape` (what `var2str` uses for PoolStringArray elements).
fn c_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\'' => out.push_str("\\'"),
            '?' => out.push_str("\\?"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}

/// Godot 3's ordering of Dictionary keys in `var2str` (enough for the fixtures: by type, then
/// value).
fn key_order(a: &Variant, b: &Variant) -> std::cmp::Ordering {
    let rank = |v: &Variant| v.variant_type() as u8;
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (Variant::Int(x), Variant::Int(y)) => x.cmp(y),
        (Variant::String(x), Variant::String(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    })
}

/// Godot 3.2's `var2str` of a Variant decoded in Godot 3 mode (objects as the test harness
/// prints them: `Object null`, `Object <class>`).
pub(crate) fn var2str3(v: &Variant) -> String {
    match v {
        Variant::Nil => "null".into(),
        Variant::Bool(b) => b.to_string(),
        Variant::Int(i) => i.to_string(),
        Variant::Float(f) => real3(*f),
        Variant::String(s) => format!("\"{}\"", escape(s)),
        Variant::Vector2(a) => comps("Vector2", &[a.x, a.y]),
        Variant::Rect2(r) => comps("Rect2", &[r.position.x, r.position.y, r.size.x, r.size.y]),
        Variant::Vector3(a) => comps("Vector3", &[a.x, a.y, a.z]),
        Variant::Transform2D(t) => comps("Transform2D", &[t.x.x, t.x.y, t.y.x, t.y.y, t.origin.x, t.origin.y]),
        Variant::Plane(p) => comps("Plane", &[p.normal.x, p.normal.y, p.normal.z, p.d]),
        Variant::Quaternion(q) => comps("Quat", &[q.x, q.y, q.z, q.w]),
        Variant::Aabb(b) => comps("AABB", &[b.position.x, b.position.y, b.position.z, b.size.x, b.size.y, b.size.z]),
        Variant::Basis(b) => comps("Basis", &b.rows.iter().flat_map(|r| [r.x, r.y, r.z]).collect::<Vec<_>>()),
        Variant::Transform3D(t) => comps(
            "Transform",
            &t.basis.rows.iter().chain([&t.origin]).flat_map(|r| [r.x, r.y, r.z]).collect::<Vec<_>>(),
        ),
        Variant::Color(c) => comps("Color", &[c.r, c.g, c.b, c.a]),
        Variant::NodePath(p) => format!("NodePath(\"{p}\")"),
        Variant::Rid(_) => String::new(),
        Variant::Object(Object::Null) => "Object null".into(),
        Variant::Object(Object::Id(_)) => "Object EncodedObjectAsID".into(),
        Variant::Object(Object::Full(o)) => format!("Object {}", o.class),
        Variant::Dictionary(d) => {
            let mut entries: Vec<_> = d.iter().collect();
            entries.sort_by(|a, b| key_order(a.0, b.0));
            let parts: Vec<String> = entries.iter().map(|(k, v)| format!("{}: {}", var2str3(k), var2str3(v))).collect();
            format!("{{\n{}\n}}", parts.join(",\n"))
        }
        Variant::Array(a) => {
            let parts: Vec<String> = a.iter().map(var2str3).collect();
            format!("[ {} ]", parts.join(", "))
        }
        Variant::PackedByteArray(a) => pool("PoolByteArray", a.iter().map(|b| b.to_string())),
        Variant::PackedInt32Array(a) => pool("PoolIntArray", a.iter().map(|b| b.to_string())),
        Variant::PackedFloat32Array(a) => pool("PoolRealArray", a.iter().map(|f| g6(*f as f64))),
        Variant::PackedStringArray(a) => pool("PoolStringArray", a.iter().map(|s| format!("\"{}\"", c_escape(s)))),
        Variant::PackedVector2Array(a) => {
            pool("PoolVector2Array", a.iter().flat_map(|v| [v.x, v.y]).map(|f| g6(f as f64)))
        }
        Variant::PackedVector3Array(a) => {
            pool("PoolVector3Array", a.iter().flat_map(|v| [v.x, v.y, v.z]).map(|f| g6(f as f64)))
        }
        Variant::PackedColorArray(a) => {
            pool("PoolColorArray", a.iter().flat_map(|c| [c.r, c.g, c.b, c.a]).map(|f| g6(f as f64)))
        }
        other => panic!("{other:?} has no Godot 3 text form"),
    }
}

fn pool(name: &str, items: impl Iterator<Item = String>) -> String {
    format!("{name}( {} )", items.collect::<Vec<_>>().join(", "))
}

#[test]
fn g6_matches_c() {
    assert_eq!(g6(0.333333333), "0.333333");
    assert_eq!(g6(16777216.0), "1.67772e+07");
    assert_eq!(g6(1.5), "1.5");
    assert_eq!(g6(100.0), "100");
    assert_eq!(g6(0.0001), "0.0001");
    assert_eq!(g6(0.00001), "1e-05");
    assert_eq!(g6(-2.5), "-2.5");
}
