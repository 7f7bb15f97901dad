//! Differential test of the text form against the real Godot 3 engine (Debian's `godot3-server`,
//! 3.2.3 headless), through `tests/godot/text_check.gd`, on random Variants of every Godot 3 type
//! generated here, all in one engine run:
//!
//! * printing: the engine's `var2str` of the value (sent as `var2bytes` bytes) must be
//!   byte-identical to ours;
//! * reading: the engine's `str2var` of our text and ours must give the same value (and, since
//!   the texts are identical, this is also our reading of the engine's text), apart from the
//!   documented differences: correctly rounded floats, and `-inf.0` / `-nan.0` (which Godot 3
//!   prints for −∞ / −NaN and reads back as the int 0) refused.
//!
//! Skipped, loudly, when `godot3-server` is not installed (`.ci/run` installs it).

mod common;

use std::path::Path;
use std::process::Command;

use common::{hex, same_modulo_nodepath_padding, to_hex};
use serde_godot::text::{variant_from_str, variant_to_string};
use serde_godot::{
    Aabb, Array, Basis, Color, Dictionary, NodePath, Object, ObjectId, Options, PackedByteArray, PackedColorArray,
    PackedFloat32Array, PackedInt32Array, PackedStringArray, PackedVector2Array, PackedVector3Array, Plane, Quaternion,
    Rect2, Rid, Transform2D, Transform3D, Variant, Vector2, Vector3, Version,
};
use testkit::rng::Pcg32;

const ENGINE: &str = "godot3-server";
const CASES: usize = 20_000;

fn engine_available() -> bool {
    let found = Command::new(ENGINE).arg("--version").output().is_ok_and(|o| o.stdout.starts_with(b"3."));
    if !found {
        eprintln!(
            "\n=== SKIPPED: {ENGINE} not installed — the Godot 3 text-form differential did not run. \
             Install it with `apt-get install -y godot3-server` (.ci/run does). ===\n"
        );
    }
    found
}

fn g3() -> Options {
    Options::new().version(Version::Godot3).full_objects(true)
}

/// Random values of every Godot 3 type.
struct Gen {
    rng: Pcg32,
    /// Whether infinities and NaNs may appear (in floats and real components).
    specials: bool,
}

impl Gen {
    fn real(&mut self) -> f32 {
        let r = &mut self.rng;
        match r.below(10) {
            0 => r.range_i64(-100, 100) as f32,
            1 => r.range_i64(-64, 64) as f32 / 8.0,
            2 => f32::from_bits(r.next_u32()),
            3 if self.specials => *r.pick(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN, -0.0]),
            4 => r.f32_in(-1.0, 1.0) * 10f32.powi(r.range_i64(-12, 12) as i32),
            _ => r.f32_in(-1000.0, 1000.0),
        }
        .max_finite_unless(self.specials)
    }

    fn float(&mut self) -> f64 {
        let r = &mut self.rng;
        match r.below(8) {
            0 => r.range_i64(-1000, 1000) as f64,
            1 => f64::from_bits(r.next_u64()),
            2 => f64::from(self.real()),
            3 if self.specials => *r.pick(&[f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, -0.0]),
            4 => r.f64_in(-1.0, 1.0) * 10f64.powi(r.range_i64(-60, 60) as i32),
            _ => r.f64_in(-1e7, 1e7),
        }
        .max_finite_unless(self.specials)
    }

    fn string(&mut self) -> String {
        const POOL: &[char] = &[
            'a', 'b', 'z', 'A', '0', '9', ' ', '"', '\\', '\n', '\t', '\r', '\u{7}', '\u{8}', '\u{b}', '\u{c}',
            '\u{1}', '\u{1f}', '\u{7f}', '\'', '?', ';', '#', '{', '}', '[', ']', '(', ')', ':', ',', '=', '/', 'é',
            '日', '😀', '\u{a0}', '\u{2028}', 'u', 'U',
        ];
        let len = self.rng.usize_in(0, 12);
        (0..len).map(|_| *self.rng.pick(POOL)).collect()
    }

    fn node_path(&mut self) -> NodePath {
        let name = |g: &mut Gen| {
            let s: String = g.string().chars().filter(|c| !matches!(c, '/' | ':')).collect();
            if s.is_empty() { "n".to_owned() } else { s }
        };
        let names = (0..self.rng.usize_in(0, 3)).map(|_| name(self)).collect();
        let subnames = (0..self.rng.usize_in(0, 2)).map(|_| name(self)).collect();
        NodePath { names, subnames, absolute: self.rng.chance(1, 3) }
    }

    fn v2(&mut self) -> Vector2 {
        Vector2::new(self.real(), self.real())
    }

    fn v3(&mut self) -> Vector3 {
        Vector3::new(self.real(), self.real(), self.real())
    }

    fn key(&mut self) -> Variant {
        match self.rng.below(9) {
            0 => Variant::Int(self.rng.range_i64(-5, 5)),
            1 => Variant::Float(self.rng.range_i64(-5, 5) as f64 / 2.0),
            2 => Variant::Bool(self.rng.chance(1, 2)),
            3 => Variant::Vector2(Vector2::new(self.rng.below(3) as f32, self.rng.below(3) as f32)),
            4 => Variant::Nil,
            5 => Variant::Color(Color::new(self.rng.below(3) as f32, 0.0, 0.0, 1.0)),
            6 if self.specials => Variant::Float(f64::NAN),
            _ => Variant::String(self.string()),
        }
    }

    fn value(&mut self, depth: usize) -> Variant {
        let leaf_kinds = 24;
        let kinds = if depth < 3 { leaf_kinds + 3 } else { leaf_kinds };
        match self.rng.below(kinds) {
            0 => Variant::Nil,
            1 => Variant::Bool(self.rng.chance(1, 2)),
            2 => Variant::Int(match self.rng.below(3) {
                0 => self.rng.range_i64(-100, 100),
                1 => self.rng.next_u64() as i64,
                _ => self.rng.range_i64(i32::MIN.into(), i32::MAX.into()),
            }),
            3 | 4 => Variant::Float(self.float()),
            5 => Variant::String(self.string()),
            6 => Variant::Vector2(self.v2()),
            7 => Variant::Rect2(Rect2 { position: self.v2(), size: self.v2() }),
            8 => Variant::Vector3(self.v3()),
            9 => Variant::Transform2D(Box::new(Transform2D::new(self.v2(), self.v2(), self.v2()))),
            10 => Variant::Plane(Plane { normal: self.v3(), d: self.real() }),
            11 => Variant::Quaternion(Quaternion { x: self.real(), y: self.real(), z: self.real(), w: self.real() }),
            12 => Variant::Aabb(Box::new(Aabb { position: self.v3(), size: self.v3() })),
            13 => Variant::Basis(Box::new(Basis { rows: [self.v3(), self.v3(), self.v3()] })),
            14 => Variant::Transform3D(Box::new(Transform3D {
                basis: Basis { rows: [self.v3(), self.v3(), self.v3()] },
                origin: self.v3(),
            })),
            15 => Variant::Color(Color::new(self.real(), self.real(), self.real(), self.real())),
            16 => Variant::NodePath(Box::new(self.node_path())),
            17 => match self.rng.below(3) {
                0 => Variant::Rid(Rid(0)),
                1 => Variant::Object(Object::Null),
                _ => Variant::Object(Object::Id(ObjectId(self.rng.range(1, 1 << 40)))),
            },
            18 => {
                let n = self.rng.usize_in(0, 8);
                Variant::PackedByteArray(PackedByteArray(self.rng.bytes(n)))
            }
            19 => {
                let n = self.rng.usize_in(0, 6);
                Variant::PackedInt32Array(PackedInt32Array((0..n).map(|_| self.rng.next_u32() as i32).collect()))
            }
            20 => {
                let n = self.rng.usize_in(0, 6);
                Variant::PackedFloat32Array(PackedFloat32Array((0..n).map(|_| self.real()).collect()))
            }
            21 => {
                let n = self.rng.usize_in(0, 4);
                Variant::PackedStringArray(PackedStringArray((0..n).map(|_| self.string()).collect()))
            }
            22 => match self.rng.below(2) {
                0 => {
                    let n = self.rng.usize_in(0, 4);
                    Variant::PackedVector2Array(PackedVector2Array((0..n).map(|_| self.v2()).collect()))
                }
                _ => {
                    let n = self.rng.usize_in(0, 4);
                    Variant::PackedVector3Array(PackedVector3Array((0..n).map(|_| self.v3()).collect()))
                }
            },
            23 => {
                let n = self.rng.usize_in(0, 3);
                let colors = (0..n).map(|_| Color::new(self.real(), self.real(), self.real(), self.real())).collect();
                Variant::PackedColorArray(PackedColorArray(colors))
            }
            24 => {
                let n = self.rng.usize_in(0, 5);
                Variant::Array(Box::new(Array::from((0..n).map(|_| self.value(depth + 1)).collect::<Vec<_>>())))
            }
            _ => {
                let mut d = Dictionary::new();
                if self.rng.chance(1, 6) {
                    // A large Dictionary with totally ordered keys (past the engine's insertion sort).
                    for i in 0..self.rng.usize_in(17, 40) {
                        let key = if self.rng.chance(1, 2) {
                            Variant::Int(self.rng.range_i64(-1000, 1000))
                        } else {
                            Variant::String(format!("{}{i}", self.string()))
                        };
                        d.insert(key, self.value(depth + 1));
                    }
                } else {
                    for _ in 0..self.rng.usize_in(0, 7) {
                        let key = self.key();
                        d.insert(key, self.value(depth + 1));
                    }
                }
                Variant::Dictionary(Box::new(d))
            }
        }
    }
}

trait Finite {
    fn max_finite_unless(self, specials: bool) -> Self;
}

impl Finite for f32 {
    fn max_finite_unless(self, specials: bool) -> f32 {
        if specials || self.is_finite() { self } else { 1.5 }
    }
}

impl Finite for f64 {
    fn max_finite_unless(self, specials: bool) -> f64 {
        if specials || self.is_finite() { self } else { 1.5 }
    }
}

fn run_engine(input: &serde_json::Value) -> Vec<serde_json::Value> {
    let dir = std::env::temp_dir().join(format!("serde-godot-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/godot/text_check.gd");
    std::fs::copy(script, dir.join("text_check.gd")).unwrap();
    let (inp, out) = (dir.join("in.json"), dir.join("out.json"));
    std::fs::write(&inp, serde_json::to_vec(input).unwrap()).unwrap();
    let output = Command::new(ENGINE)
        .current_dir(&dir)
        .args(["-s", "text_check.gd"])
        .env("LANG", "en_US.UTF-8")
        .env("IN", &inp)
        .env("OUT", &out)
        .output()
        .expect("run godot3-server");
    assert!(output.status.success(), "engine failed: {}", String::from_utf8_lossy(&output.stderr));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    results.as_array().unwrap().clone()
}

#[test]
fn random_variants_print_and_read_like_godot3() {
    if !engine_available() {
        return;
    }
    let mut g = Gen { rng: Pcg32::new(0x7e47, 16), specials: false };
    let mut values = Vec::with_capacity(CASES);
    for i in 0..CASES {
        g.specials = i % 4 == 0;
        values.push(g.value(0));
    }
    let opts = g3();
    // As the engine holds them (a Dictionary's NaN keys are one key, for instance).
    let values: Vec<Variant> =
        values.iter().map(|v| Variant::from_bytes(&v.to_bytes(&opts).unwrap(), &opts).unwrap()).collect();
    let texts: Vec<String> = values.iter().map(|v| variant_to_string(v, Version::Godot3).unwrap()).collect();
    let input: Vec<_> = values
        .iter()
        .zip(&texts)
        .map(|(v, t)| serde_json::json!({ "hex": to_hex(&v.to_bytes(&opts).unwrap()), "text_hex": to_hex(t.as_bytes()) }))
        .collect();
    let results = run_engine(&serde_json::Value::Array(input));
    assert_eq!(results.len(), CASES);

    let (mut printed_same, mut read_same, mut both_refuse, mut rounding, mut documented) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for ((v, ours), r) in values.iter().zip(&texts).zip(&results) {
        let engine_text = String::from_utf8(hex(r["text_hex"].as_str().unwrap())).unwrap();
        if *ours == engine_text {
            printed_same += 1;
        } else {
            failures.push(format!("print {v:?}\n  ours   {ours:?}\n  engine {engine_text:?}"));
            continue;
        }
        let engine_bytes = hex(r["parsed_hex"].as_str().unwrap());
        let engine_failed = engine_bytes == Variant::String(ours.clone()).to_bytes(&opts).unwrap();
        match (variant_from_str(ours, &opts), engine_failed) {
            (Err(_), true) => both_refuse += 1,
            (Ok(p), false) => {
                let our_bytes = p.to_bytes(&opts).unwrap();
                if same_modulo_nodepath_padding(&our_bytes, &engine_bytes, &opts) {
                    read_same += 1;
                    continue;
                }
                // The engine's float reading is not correctly rounded: the values may differ in
                // the last bit, which the 6-digit text hides.
                let engine_v = Variant::from_bytes(&engine_bytes, &opts).unwrap();
                if variant_to_string(&engine_v, Version::Godot3).unwrap()
                    == variant_to_string(&p, Version::Godot3).unwrap()
                {
                    rounding += 1;
                } else {
                    failures.push(format!("read {ours:?}\n  ours   {p:?}\n  engine {engine_v:?}"));
                }
            }
            (Err(e), false) if ours.contains("-inf.0") || ours.contains("-nan.0") => {
                let _ = e;
                documented += 1;
            }
            (Err(e), false) => failures.push(format!("we refuse what the engine reads: {ours:?}: {e}")),
            (Ok(p), true) => failures.push(format!("we read what the engine refuses: {ours:?} → {p:?}")),
        }
    }
    eprintln!(
        "Godot 3 text differential: {CASES} random values; printing byte-identical {printed_same}; reading: \
         same value {read_same}, both refuse {both_refuse} (inf/nan in constructors), float rounding only \
         {rounding}, -inf.0/-nan.0 refused by us {documented}; {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(15)].join("\n")
    );
    assert_eq!(printed_same, CASES);
}
