//! The 150 input → expected cases transcribed from O3DE's unit tests (`tests/data/o3de_json_cases.json`):
//! every case is checked for its value and, where the test states one, its outcome.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_o3de::{
    Color, MultiMap, O3deEnum, Options, Outcome, Polymorphic, Quaternion, TypeIndex, TypeRegistry, Uuid, Vector3,
    Vector4,
};

#[derive(Debug, Deserialize)]
struct Case {
    area: String,
    cpp_type: String,
    input_json: String,
    expected: Value,
    outcome_if_stated: Option<String>,
    source_test: String,
}

fn cases() -> Vec<Case> {
    serde_json::from_str(include_str!("data/o3de_json_cases.json")).expect("fixture file")
}

fn outcome(name: &str) -> Outcome {
    let name = name.split(' ').next().unwrap_or(name);
    Outcome::ALL.into_iter().find(|o| o.name() == name).unwrap_or_else(|| panic!("unknown outcome {name}"))
}

/// Loads `json` over `start` (O3DE's `Load(object, json)`) and returns the value and outcome.
fn load_into<T: DeserializeOwned + Clone>(start: T, json: &str) -> (T, Outcome) {
    let mut value = start;
    let report = Options::new().load_into(&mut value, json).unwrap_or_else(|e| panic!("load of {json}: {e}"));
    (value, report.outcome())
}

fn expect_outcome(case: &Case, got: Outcome) {
    if let Some(stated) = &case.outcome_if_stated {
        assert_eq!(got, outcome(stated), "outcome of {} ({})", case.input_json, case.source_test);
    }
}

fn unchanged(expected: &Value) -> bool {
    expected.as_str().is_some_and(|s| s.starts_with("unchanged") || s == "n/a")
}

fn check_bool(case: &Case) {
    for start in [false, true] {
        let (v, o) = load_into(start, &case.input_json);
        expect_outcome(case, o);
        match &case.expected {
            Value::Bool(b) => assert_eq!(v, *b, "{}", case.input_json),
            e if unchanged(e) => assert_eq!(v, start, "{} should leave the bool unchanged", case.input_json),
            e => panic!("unexpected expectation {e}"),
        }
    }
}

macro_rules! check_ints {
    ($case:expr, $($t:ty),*) => {{$({
        let start: $t = 7;
        let (v, o) = load_into(start, &$case.input_json);
        expect_outcome($case, o);
        match &$case.expected {
            Value::Number(n) => assert_eq!(i128::from(v), i128::from(n.as_i64().unwrap()), "{} as {}", $case.input_json, stringify!($t)),
            e if unchanged(e) => assert_eq!(v, start, "{} as {} should be unchanged", $case.input_json, stringify!($t)),
            e => panic!("unexpected expectation {e}"),
        }
    })*}};
}

fn check_int(case: &Case) {
    match case.cpp_type.as_str() {
        "int (all integer types)" => check_ints!(case, i8, i16, i32, i64, u8, u16, u32, u64),
        "signed int types" => check_ints!(case, i8, i16, i32, i64),
        "unsigned int types" => check_ints!(case, u8, u16, u32, u64),
        "int8/char" => check_ints!(case, i8),
        "int" => check_ints!(case, i32),
        "unsigned char" => check_ints!(case, u8),
        other => panic!("int type {other}"),
    }
}

fn check_float(case: &Case) {
    let input = if case.input_json.contains("(500 nines)") {
        format!("\"{}.0\"", "9".repeat(500))
    } else {
        case.input_json.clone()
    };
    let start = 42.0;
    let (v64, o64) = load_into(start, &input);
    let (v32, o32) = load_into(start as f32, &input);
    if case.cpp_type == "double/float" {
        expect_outcome(case, o64);
    }
    expect_outcome(case, o32);
    match &case.expected {
        Value::Number(n) => {
            assert_eq!(v64, n.as_f64().unwrap(), "{input} as f64");
            assert_eq!(v32, n.as_f64().unwrap() as f32, "{input} as f32");
        }
        e if unchanged(e) => {
            assert_eq!(v32, 42.0);
            if case.cpp_type == "double/float" {
                assert_eq!(v64, 42.0);
            }
        }
        e => panic!("unexpected expectation {e}"),
    }
}

fn check_string(case: &Case) {
    let (v, o) = load_into(String::from("start"), &case.input_json);
    expect_outcome(case, o);
    assert_eq!(v, case.expected.as_str().unwrap(), "{}", case.input_json);
}

fn check_uuid(case: &Case) {
    let start: Uuid = "{01234567-89AB-CDEF-0123-456789ABCDEF}".parse().unwrap();
    let (v, o) = load_into(start, &case.input_json);
    expect_outcome(case, o);
    match case.expected.as_str().unwrap() {
        "null uuid" => assert!(v.is_nil()),
        e if e.starts_with("unchanged") => assert_eq!(v, start, "{}", case.input_json),
        e => assert_eq!(v.to_string(), e, "{}", case.input_json),
    }
}

fn floats_of(v: &Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

/// FLOAT_EQ-style comparison (a few ULPs).
fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 4.0 * f32::EPSILON * x.abs().max(1.0))
}

fn check_color(case: &Case) {
    if case.input_json == "(store)" {
        // "AZ::Color store: value (1.0,0.2,0.8,0.6) default (0.3,0.6,0.9,0.6)"
        let numbers: Vec<f32> = case.cpp_type.split(['(', ')', ',']).filter_map(|s| s.trim().parse().ok()).collect();
        let value = Color::new(numbers[0], numbers[1], numbers[2], numbers[3]);
        let default = Color::new(numbers[4], numbers[5], numbers[6], numbers[7]);
        // O3DE leaves out an alpha equal to the default object's: `exact_o3de_output`.
        let stored = Options::new().exact_o3de_output(true).store(&value, Some(&default)).unwrap();
        let written: Value = serde_json::from_str(stored.as_str()).unwrap();
        assert!(close(&floats_of(&written), &floats_of(&case.expected)), "{} vs {}", stored.as_str(), case.expected);
        // f32 widened to f64: 0.2f32 is written 0.20000000298023224.
        assert!(stored.as_str().contains("0.20000000298023224"), "{}", stored.as_str());
        expect_outcome(case, stored.result().outcome());
        return;
    }
    let start =
        if case.cpp_type.contains("start alpha 0.3") { Color::new(0.0, 0.0, 0.0, 0.3) } else { Color::default() };
    let (v, o) = load_into(start, &case.input_json);
    expect_outcome(case, o);
    match &case.expected {
        Value::Array(_) => assert!(close(&v.to_array(), &floats_of(&case.expected)), "{}: {v:?}", case.input_json),
        e if unchanged(e) => assert_eq!(v, start, "{}", case.input_json),
        e => panic!("unexpected expectation {e}"),
    }
}

fn check_vector(case: &Case) {
    match case.cpp_type.as_str() {
        "AZ::Quaternion" => {
            let start = Quaternion::new(0.1, 0.2, 0.3, 0.4);
            let (q, o) = load_into(start, &case.input_json);
            expect_outcome(case, o);
            if case.input_json == "{}" {
                assert_eq!(q, Quaternion::IDENTITY);
            } else {
                // The first member is the X angle: 90° about X is (sin 45°, 0, 0, cos 45°).
                let h = std::f32::consts::FRAC_1_SQRT_2;
                assert!(close(&q.to_array(), &[h, 0.0, 0.0, h]), "{q:?}");
            }
        }
        "AZ::Vector4" => {
            let (v, o) = load_into(Vector4::default(), &case.input_json);
            expect_outcome(case, o);
            assert!(close(&v.to_array(), &floats_of(&case.expected)));
        }
        _ => {
            let start =
                if case.cpp_type.contains("start zero") { Vector3::default() } else { Vector3::new(9.0, 8.0, 7.0) };
            let (v, o) = load_into(start, &case.input_json);
            expect_outcome(case, o);
            match &case.expected {
                Value::Array(_) => {
                    assert!(close(&v.to_array(), &floats_of(&case.expected)), "{}: {v:?}", case.input_json)
                }
                e if unchanged(e) => assert_eq!(v, start),
                e => panic!("unexpected expectation {e}"),
            }
        }
    }
}

macro_rules! flags {
    ($name:ident, $repr:ty, [$($option:literal = $value:expr),*]) => {
        #[derive(Debug, Clone, Copy, PartialEq, Default)]
        struct $name($repr);
        impl O3deEnum for $name {
            type Repr = $repr;
            const OPTIONS: &'static [(&'static str, $repr)] = &[$(($option, $value)),*];
            fn to_repr(self) -> $repr { self.0 }
            fn from_repr(repr: $repr) -> Option<Self> { Some($name(repr)) }
        }
    };
}

flags!(ScopedEnumFlagsS32, i32, ["Flags0" = 0, "Flags1" = 1, "Flags2" = -8, "Flags3" = 22]);
flags!(ScopedEnumFlagsU16, u16, ["Flags0" = 0, "Flags1" = 1, "Flags2" = 2, "Flags3" = 32768]);
flags!(ScopedEnumFlagsS16, i16, ["Flags0" = 0, "Flags1" = 1, "Flags2" = 2, "Flags3" = 3]);
flags!(UnscopedEnumBitFlags, u8, ["BitFlag1" = 1, "BitFlag2" = 2, "BitFlag3" = 4, "BitFlag4" = 8]);
flags!(
    ScopedEnumBitFlagsS64,
    i64,
    [
        "BitFlag0" = 0,
        "BitFlag1" = 1,
        "BitFlag2" = 2,
        "BitFlag3" = 4,
        "BitFlag4" = 8,
        "BitFlag1And2" = 3,
        "BitFlag2And4" = 10
    ]
);
flags!(
    ScopedEnumBitFlagsU64,
    u64,
    [
        "BitFlag0" = 0,
        "BitFlag1" = 1,
        "BitFlag2" = 2,
        "BitFlag3" = 4,
        "BitFlag4" = 8,
        "BitFlag1And2" = 3,
        "BitFlag2And4" = 10
    ]
);
flags!(ScopedEnumBitFlagsNoZero, u64, ["BitFlag1" = 1, "BitFlag2" = 2, "BitFlag3" = 4, "BitFlag4" = 8]);

/// An enum field, as O3DE's tests load them (the enum is a member of a class).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct Holder<E: O3deEnum> {
    #[serde(with = "serde_o3de::enums", bound = "")]
    value: E,
}

fn load_enum<E: O3deEnum + std::fmt::Debug + PartialEq>(json: &str) -> (E, Outcome) {
    let (holder, report) = Options::new().load_str::<Holder<E>>(&format!("{{\"value\": {json}}}")).unwrap();
    let o = report.issues.iter().find(|i| i.path == "/value").map_or(Outcome::Success, |i| i.outcome());
    (holder.value, o)
}

fn check_enum_with<E: O3deEnum + std::fmt::Debug + PartialEq>(case: &Case, input: &str) {
    let (v, o) = load_enum::<E>(input);
    expect_outcome(case, o);
    if let Some(n) = case.expected.as_i64() {
        if o != Outcome::Unsupported {
            assert_eq!(i128::from(n), serde_o3de::Repr::to_i128(v.to_repr()), "{input}");
        } else {
            assert_eq!(v, E::default(), "{input}: an Unsupported value keeps its default");
        }
    }
}

fn check_enum(case: &Case) {
    let t = case.cpp_type.as_str();
    let input = case.input_json.as_str();
    if input.contains(" / ") {
        for part in input.split(" / ") {
            check_enum_with::<ScopedEnumFlagsS32>(case, part);
        }
    } else if t.starts_with("ScopedEnumFlagsS32") {
        check_enum_with::<ScopedEnumFlagsS32>(case, input);
    } else if t.starts_with("ScopedEnumFlagsU16") {
        check_enum_with::<ScopedEnumFlagsU16>(case, input);
    } else if t.starts_with("ScopedEnumFlagsS16") {
        check_enum_with::<ScopedEnumFlagsS16>(case, input);
    } else if t.starts_with("UnscopedEnumBitFlags") {
        check_enum_with::<UnscopedEnumBitFlags>(case, input);
    } else if t.starts_with("ScopedEnumBitFlagsS64") {
        check_enum_with::<ScopedEnumBitFlagsS64>(case, input);
    } else if t == "ScopedEnumFlags*" {
        check_enum_with::<ScopedEnumFlagsS32>(case, input);
        check_enum_with::<ScopedEnumFlagsU16>(case, input);
        check_enum_with::<ScopedEnumFlagsS16>(case, input);
    } else if t == "any enum" {
        check_enum_with::<ScopedEnumFlagsS32>(case, input);
        check_enum_with::<ScopedEnumFlagsU16>(case, input);
        check_enum_with::<UnscopedEnumBitFlags>(case, input);
    } else {
        panic!("enum type {t}");
    }
}

fn store_enum<E: O3deEnum + std::fmt::Debug + PartialEq>(value: E, default: E, keep: bool) -> (String, Outcome) {
    let stored = Options::new().keep_defaults(keep).store(&Holder { value }, Some(&Holder { value: default })).unwrap();
    let v: Value = serde_json::from_str(stored.as_str()).unwrap();
    (v.get("value").map_or("{}".to_owned(), Value::to_string), stored.result().outcome())
}

fn check_enum_store(case: &Case) {
    let t = case.cpp_type.as_str();
    let keep = t.contains("keepDefaults");
    let (written, o) = if t.contains("BitFlag3(4)") {
        store_enum(ScopedEnumBitFlagsU64(4), ScopedEnumBitFlagsU64(0), keep)
    } else if t.starts_with("ScopedEnumBitFlagsS64 value 0") {
        store_enum(ScopedEnumBitFlagsS64(0), ScopedEnumBitFlagsS64(0), keep)
    } else if t.starts_with("ScopedEnumBitFlagsNoZero") {
        store_enum(ScopedEnumBitFlagsNoZero(0), ScopedEnumBitFlagsNoZero(0), keep)
    } else if t.contains("2|8") {
        store_enum(ScopedEnumBitFlagsU64(2 | 8), ScopedEnumBitFlagsU64(0), keep)
    } else if t.contains("1|4|8|0xB600") {
        store_enum(ScopedEnumBitFlagsS64(1 | 4 | 8 | 0xB600), ScopedEnumBitFlagsS64(0), keep)
    } else if t.contains("1|4|8") {
        store_enum(ScopedEnumBitFlagsS64(1 | 4 | 8), ScopedEnumBitFlagsS64(0), keep)
    } else if t.contains("== default") {
        store_enum(ScopedEnumBitFlagsU64(4), ScopedEnumBitFlagsU64(4), keep)
    } else {
        panic!("enum store case {t}");
    };
    let expected = match &case.expected {
        Value::String(s) if s.starts_with("{}") => "{}".to_owned(),
        e => e.to_string(),
    };
    assert_eq!(written, expected, "{t}");
    if t.contains("== default") {
        assert_eq!(o, Outcome::DefaultsUsed);
    } else {
        expect_outcome(case, Outcome::Success);
    }
}

/// The `SimpleClass` of O3DE's map tests: hashable so that it can be a map key.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(default)]
struct SimpleClass {
    var1: i32,
    var2: f64,
}

impl PartialEq for SimpleClass {
    fn eq(&self, other: &Self) -> bool {
        self.var1 == other.var1 && self.var2.to_bits() == other.var2.to_bits()
    }
}
impl Eq for SimpleClass {}
impl Hash for SimpleClass {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.var1.hash(state);
        self.var2.to_bits().hash(state);
    }
}

fn round_trip<T: Serialize + DeserializeOwned + Default + PartialEq + std::fmt::Debug>(json: &str) -> (T, Outcome) {
    let (value, report) = Options::new().load_str::<T>(json).unwrap();
    let stored = serde_o3de::to_string(&value).unwrap();
    let again: T = serde_o3de::from_str(&stored).unwrap();
    assert_eq!(again, value, "{json} → {stored}");
    (value, report.outcome())
}

fn check_map(case: &Case, index: usize) {
    let json = case.input_json.as_str();
    match index {
        126 => {
            let (m, o) = round_trip::<BTreeMap<i32, f64>>(json);
            assert_eq!(m, BTreeMap::from([(142, 142.0), (242, 242.0), (342, 342.0)]));
            assert_eq!(
                serde_json::from_str::<Value>(&serde_o3de::to_string(&m).unwrap()).unwrap(),
                serde_json::from_str::<Value>(json).unwrap()
            );
            expect_outcome(case, o);
        }
        127 => {
            let (m, o) = round_trip::<MultiMap<i32, f64>>(json);
            assert_eq!(m.get(&242), [242.0]);
            assert_eq!(
                serde_json::from_str::<Value>(&serde_o3de::to_string(&m).unwrap()).unwrap(),
                serde_json::from_str::<Value>(json).unwrap()
            );
            expect_outcome(case, o);
        }
        128 => {
            let (m, o) = round_trip::<BTreeMap<String, f64>>(json);
            assert_eq!(m.len(), 3);
            assert_eq!(serde_o3de::to_string(&m).unwrap(), r#"{"a":142.0,"b":242.0,"c":342.0}"#);
            expect_outcome(case, o);
        }
        129 => {
            let (m, o) = round_trip::<MultiMap<String, f64>>(json);
            assert_eq!(m.get("c"), [342.0]);
            assert_eq!(serde_o3de::to_string(&m).unwrap(), r#"{"a":[142.0],"b":[242.0],"c":[342.0]}"#);
            expect_outcome(case, o);
        }
        130 => {
            let (m, o) = round_trip::<IndexMap<SimpleClass, SimpleClass>>(json);
            let default = SimpleClass::default();
            assert_eq!(m[&default], SimpleClass { var1: 188, var2: 188.0 });
            assert_eq!(m[&SimpleClass { var1: 242, var2: 242.0 }], default);
            assert_eq!(m[&SimpleClass { var1: 342, var2: 342.0 }], SimpleClass { var1: 388, var2: 388.0 });
            // The transcription states Success, but the O3DE test that loads this JSON
            // (JsonSerializerConformityTests::Load_DeserializePartialInstance_SucceedsAndObjectMatchesParialInstance,
            // fed GetJsonForPartialDefaultInstance) expects `Outcomes::PartialDefaults` with
            // `Processing::Completed`: two entries hold an explicit default `{}`.
            assert_eq!(case.outcome_if_stated.as_deref(), Some("Success"));
            assert_eq!(o, Outcome::PartialDefaults);
        }
        131 => {
            let (m, report) = Options::new().load_str::<BTreeMap<i32, f64>>(json).unwrap();
            assert_eq!(m, BTreeMap::from([(0, 0.0)]));
            expect_outcome(case, report.outcome());
            // And the all-default pair is stored the same way.
            assert_eq!(serde_o3de::to_string(&m).unwrap(), r#"{"{}":{}}"#);
        }
        132 => {
            let (m, report) = Options::new().load_str::<HashMap<String, String>>(json).unwrap();
            assert_eq!(m, HashMap::from([(String::new(), String::new())]));
            expect_outcome(case, report.outcome());
        }
        133 => {
            let (m, o) = round_trip::<HashMap<String, String>>(json);
            assert_eq!(m, HashMap::from([("Hello".to_owned(), "Other".to_owned())]));
            expect_outcome(case, o);
        }
        134 => {
            let (m, o) = round_trip::<MultiMap<String, String>>(json);
            assert_eq!(m.get("Hello"), ["Other", "World"]);
            expect_outcome(case, o);
        }
        135 => {
            let mut m = HashMap::from([("Hello".to_owned(), "World".to_owned())]);
            let report = Options::new().load_into(&mut m, json).unwrap();
            assert_eq!(m, HashMap::from([("Hello".to_owned(), "World".to_owned())]));
            expect_outcome(case, report.outcome());
        }
        _ => panic!("map case {index}"),
    }
}

/// The `BaseClass` / `SimpleInheritence` hierarchy of O3DE's pointer tests, flattened like O3DE
/// writes base-class members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct BaseClass {
    base_var: f64,
}

impl Default for BaseClass {
    fn default() -> Self {
        BaseClass { base_var: -42.0 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct SimpleInheritence {
    base_var: f64,
    var1: i32,
    var2: f64,
}

impl Default for SimpleInheritence {
    fn default() -> Self {
        SimpleInheritence { base_var: -42.0, var1: 42, var2: 42.0 }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum BasePtr {
    Base(BaseClass),
    Simple(SimpleInheritence),
}

impl Default for BasePtr {
    fn default() -> Self {
        BasePtr::Base(BaseClass::default())
    }
}

impl Polymorphic for BasePtr {
    const TYPES: &'static [&'static str] = &["BaseClass", "SimpleInheritence"];
    fn deserialize_type<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
        Ok(match index {
            0 => BasePtr::Base(BaseClass::deserialize(d)?),
            _ => BasePtr::Simple(SimpleInheritence::deserialize(d)?),
        })
    }
    fn type_index(&self) -> TypeIndex<'_> {
        match self {
            BasePtr::Base(_) => TypeIndex::Known(0),
            BasePtr::Simple(_) => TypeIndex::Known(1),
        }
    }
    fn serialize_type<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BasePtr::Base(b) => b.serialize(s),
            BasePtr::Simple(x) => x.serialize(s),
        }
    }
}
serde_o3de::impl_polymorphic_serde!(BasePtr);

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct IntPointers {
    pointer1: Option<i32>,
    pointer2: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct BasePointer {
    pointer: BasePtr,
}

impl Default for BasePointer {
    fn default() -> Self {
        BasePointer { pointer: BasePtr::Simple(SimpleInheritence::default()) }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
struct SimplePointer {
    pointer: Option<SimpleClass>,
}

fn check_pointer(case: &Case) {
    let keep = case.input_json.contains("keep defaults");
    let options = Options::new().keep_defaults(keep);
    let written = match case.cpp_type.as_str() {
        t if t.starts_with("struct{int*") => {
            let value = IntPointers { pointer1: None, pointer2: Some(88) };
            options.store(&value, Some(&IntPointers::default())).unwrap()
        }
        t if t.starts_with("struct{BaseClass*") => {
            let value = BasePointer {
                pointer: BasePtr::Simple(SimpleInheritence { var2: 88.0, ..SimpleInheritence::default() }),
            };
            options.store(&value, Some(&BasePointer::default())).unwrap()
        }
        t if t.starts_with("struct{SimpleClass*") => {
            let default = SimplePointer { pointer: Some(SimpleClass::default()) };
            let value = SimplePointer { pointer: Some(SimpleClass { var2: 88.0, ..SimpleClass::default() }) };
            options.store(&value, Some(&default)).unwrap()
        }
        t => panic!("pointer case {t}"),
    };
    let expected: Value = serde_json::from_str(case.expected.as_str().unwrap()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(written.as_str()).unwrap(), expected, "{}", case.cpp_type);
    // Member order: `$type` first, then the members in declaration order (which here is also
    // alphabetical, the order serde_json prints).
    assert_eq!(written.as_str(), serde_json::to_string(&expected).unwrap());
}

fn check_type_id(case: &Case, index: usize) {
    let vector3: Uuid = "{8379EB7D-01FA-4538-B64B-A6543B4BE73D}".parse().unwrap();
    let mut registry = TypeRegistry::new();
    registry
        .register(vector3, "Vector3")
        .register("{0CC36DD4-2337-40B4-A86C-69C452C48555}".parse().unwrap(), "SomeClass")
        .register("{E7829F37-C577-4F2B-A85B-6F331548354C}".parse().unwrap(), "Inherited")
        .register("{D1E6BA92-05B1-4F8B-A8DC-1A1E2C0CC7B3}".parse().unwrap(), "Inherited");
    match index {
        141..=143 => {
            let r = Options::new().load_str::<BasePointer>(&case.input_json);
            match (index, r) {
                (141, Ok((v, report))) => {
                    assert_eq!(v.pointer, BasePtr::Simple(SimpleInheritence::default()));
                    expect_outcome(case, report.outcome());
                }
                (142, Ok((v, report))) => {
                    assert_eq!(v.pointer, BasePtr::Base(BaseClass::default()));
                    expect_outcome(case, report.outcome());
                }
                (143, Err(e)) => {
                    assert_eq!(e.outcome(), Some(Outcome::Unknown), "{e}");
                    assert!(e.result_code().unwrap().is_halted());
                    assert_eq!(e.path(), Some("/pointer"));
                }
                (i, r) => panic!("case {i}: {r:?}"),
            }
        }
        144 | 145 => {
            let text: String = serde_json::from_str(&case.input_json).unwrap();
            let uuid = registry.resolve(&text).unwrap();
            let expected = if index == 144 { case.expected.as_str().unwrap().parse().unwrap() } else { vector3 };
            assert_eq!(uuid, expected);
            expect_outcome(case, Outcome::Success);
        }
        146 | 147 => {
            let text: String = serde_json::from_str(&case.input_json).unwrap();
            let e = registry.resolve(&text).unwrap_err();
            expect_outcome(case, e.outcome);
        }
        148 => {
            let name = registry.type_name("{E7829F37-C577-4F2B-A85B-6F331548354C}".parse().unwrap()).unwrap();
            assert_eq!(name, serde_json::from_str::<String>(case.expected.as_str().unwrap()).unwrap());
            expect_outcome(case, Outcome::Success);
        }
        149 => {
            let name = registry.type_name(vector3).unwrap();
            assert_eq!(name, serde_json::from_str::<String>(case.expected.as_str().unwrap()).unwrap());
            expect_outcome(case, Outcome::Success);
        }
        _ => panic!("type id case {index}"),
    }
}

#[test]
fn all_150_fixture_cases() {
    let cases = cases();
    assert_eq!(cases.len(), 150);
    for (index, case) in cases.iter().enumerate() {
        match case.area.as_str() {
            "bool" => check_bool(case),
            "int" => check_int(case),
            "float" => check_float(case),
            "string" => check_string(case),
            "uuid" => check_uuid(case),
            "color" => check_color(case),
            "vector" => check_vector(case),
            "enum" => check_enum(case),
            "enum_store" => check_enum_store(case),
            "map" => check_map(case, index),
            "pointer" => check_pointer(case),
            "type_id" => check_type_id(case, index),
            other => panic!("case {index}: unknown area {other}"),
        }
    }
}

/// Case 21 on an existing field: `{}` keeps the field's value (here a non-zero default).
#[test]
fn explicit_default_keeps_an_existing_field() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(default)]
    struct Flags {
        enabled: bool,
        count: i32,
        tint: Color,
    }
    impl Default for Flags {
        fn default() -> Self {
            Flags { enabled: true, count: 5, tint: Color::new(1.0, 1.0, 1.0, 1.0) }
        }
    }
    let (flags, report) = Options::new().load_str::<Flags>(r#"{"enabled": {}, "count": {}, "tint": {}}"#).unwrap();
    assert_eq!(flags, Flags::default());
    assert!(report.issues.iter().all(|i| i.outcome() == Outcome::DefaultsUsed), "{report}");
    assert_eq!(report.issues.len(), 3);
}
