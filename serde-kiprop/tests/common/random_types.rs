//! Random type lists and random objects of them (proptest strategies), the flag combinations a
//! blob can be written with, and what a reader must see of an object written with each.
//!
//! A [`Schema`] is a handful of classes whose properties cover every kind of KI value: all simple
//! types (bit-width integers, `s24`/`u24`, strings, wstrings), every leaf struct, plain and bit
//! enums, nested objects through `SharedPointer<…>`, raw pointers and by-value members (each
//! holding any later class: polymorphism and null pointers), and containers of all of these;
//! property ids out of name order, random masks, DEPRECATED and DELTA_ENCODE properties. Objects
//! are [`Value`]s; DELTA_ENCODE properties may be absent (left out) or, for pointers, present
//! and null.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use proptest::prelude::*;
use serde_kiprop::codec::{Leaf, LeafValue, Scalar};
use serde_kiprop::hash::{djb2, string_id};
use serde_kiprop::{Object, Options, Value, flags, serializer_flags::*};

/// The simple types, exactly as the type strings of a type list spell them.
pub const PRIMS: [&str; 33] = [
    "bool",
    "char",
    "unsigned char",
    "short",
    "unsigned short",
    "wchar_t",
    "int",
    "long",
    "unsigned int",
    "unsigned long",
    "float",
    "double",
    "unsigned __int64",
    "gid",
    "union gid",
    "bi2",
    "bi3",
    "bi4",
    "bi5",
    "bi6",
    "bi7",
    "bui2",
    "bui3",
    "bui4",
    "bui5",
    "bui6",
    "bui7",
    "s24",
    "u24",
    "std::string",
    "std::wstring",
    "std::string",
    "std::wstring",
];

/// What a property holds.
#[derive(Debug, Clone)]
pub enum Ty {
    Prim(&'static str),
    Leaf(Leaf),
    /// Index into [`Schema::enums`].
    Enum(usize),
    /// An object of class `class` (a later class) spelled as `spelling` (0:
    /// `class SharedPointer<class X>`, 1: `class X*`, 2: `class X`).
    Object {
        class: usize,
        spelling: u8,
    },
}

#[derive(Debug, Clone)]
pub struct PropGen {
    pub name: String,
    pub ty: Ty,
    pub dynamic: bool,
    pub flags: u32,
    pub id: u32,
}

impl PropGen {
    pub fn delta(&self) -> bool {
        self.flags & flags::DELTA_ENCODE != 0
    }
    /// Whether shallow mode (default mask `0x18`, DEPRECATED skipped) writes it.
    pub fn in_shallow(&self) -> bool {
        self.flags & 0x18 == 0x18 && self.flags & flags::DEPRECATED == 0
    }
}

#[derive(Debug, Clone)]
pub struct ClassGen {
    pub name: String,
    /// In id order.
    pub props: Vec<PropGen>,
}

#[derive(Debug, Clone)]
pub struct EnumGen {
    pub name: String,
    pub bits: bool,
    pub options: Vec<(String, u32)>,
}

#[derive(Debug, Clone)]
pub struct Schema {
    pub classes: Vec<ClassGen>,
    pub enums: Vec<EnumGen>,
}

impl Schema {
    pub fn type_string(&self, ty: &Ty) -> String {
        match ty {
            Ty::Prim(p) => (*p).to_owned(),
            Ty::Leaf(l) => l.type_name().to_owned(),
            Ty::Enum(e) => self.enums[*e].name.clone(),
            Ty::Object { class, spelling } => {
                let c = &self.classes[*class].name;
                match spelling {
                    0 => format!("class SharedPointer<{c}>"),
                    1 => format!("{c}*"),
                    _ => c.clone(),
                }
            }
        }
    }

    /// A wiztype v2 dump of the schema.
    pub fn to_json(&self) -> String {
        let mut classes = serde_json::Map::new();
        for c in &self.classes {
            let hash = string_id(c.name.as_bytes());
            let mut props = serde_json::Map::new();
            for p in &c.props {
                let ty = self.type_string(&p.ty);
                let flags = match p.ty {
                    Ty::Enum(e) if self.enums[e].bits => p.flags | flags::BITS,
                    Ty::Enum(_) => p.flags | flags::ENUM,
                    _ => p.flags,
                };
                let mut j = serde_json::json!({
                    "type": ty, "id": p.id, "offset": 72 + 8 * p.id, "flags": flags,
                    "container": if p.dynamic { "List" } else { "Static" }, "dynamic": p.dynamic,
                    "singleton": false, "pointer": matches!(p.ty, Ty::Object { spelling: 0 | 1, .. }),
                    "hash": string_id(ty.as_bytes()).wrapping_add(djb2(p.name.as_bytes())),
                });
                if let Ty::Enum(e) = p.ty {
                    let e = &self.enums[e];
                    let mut o = serde_json::Map::new();
                    for (n, v) in &e.options {
                        o.insert(n.clone(), (*v).into());
                    }
                    if let Some((first, _)) = e.options.first() {
                        o.insert("__DEFAULT".into(), first.clone().into());
                    }
                    j["enum_options"] = o.into();
                }
                props.insert(p.name.clone(), j);
            }
            classes.insert(
                hash.to_string(),
                serde_json::json!({"name": c.name, "bases": ["PropertyClass"], "hash": hash, "singleton": false,
                    "properties": props}),
            );
        }
        // (katsuba recognises a v2 dump only when `version` comes first.)
        format!("{{\"version\": 2, \"classes\": {}}}", serde_json::Value::Object(classes))
    }

    fn class_index(&self, name: &str) -> usize {
        self.classes.iter().position(|c| c.name == name).unwrap_or_else(|| panic!("no class {name}"))
    }
}

fn leaf_strategy() -> impl Strategy<Value = Leaf> {
    proptest::sample::select(Leaf::ALL.to_vec())
}

fn flags_strategy() -> impl Strategy<Value = u32> {
    // Mostly transmitted; sometimes masked out (deep only), DEPRECATED, DELTA_ENCODE.
    (0u32..10, 0u32..10, 0u32..3).prop_map(|(mask, extra, delta)| {
        let mut f = flags::SAVE | flags::COPY | flags::PUBLIC;
        f |= match mask {
            0 => flags::TRANSMIT,
            1 => flags::PRIVILEGED_TRANSMIT,
            _ => flags::TRANSMIT | flags::PRIVILEGED_TRANSMIT,
        };
        if extra == 0 {
            f |= flags::DEPRECATED;
        }
        if extra == 1 {
            f |= flags::PERSIST | flags::NOEDIT;
        }
        if delta == 0 {
            f |= flags::DELTA_ENCODE;
        }
        f
    })
}

/// A type list: 1–4 classes (properties of class `i` point only at classes after it), 0–3 enums.
pub fn schema_strategy() -> impl Strategy<Value = Schema> {
    let enums = proptest::collection::vec(
        (
            any::<bool>(),
            proptest::collection::btree_set(any::<u32>(), 1..5),
            proptest::collection::btree_set(0u32..32, 1..6),
        ),
        0..3,
    )
    .prop_map(|es| {
        es.into_iter()
            .enumerate()
            .map(|(i, (bits, values, bitset))| {
                let values: Vec<u32> =
                    if bits { bitset.into_iter().map(|b| 1u32 << b).collect() } else { values.into_iter().collect() };
                let options = values.iter().enumerate().map(|(j, v)| (format!("OPT{i}_{j}"), *v)).collect();
                EnumGen { name: format!("enum GenEnum{i}"), bits, options }
            })
            .collect::<Vec<_>>()
    });
    (1usize..5, enums, any::<u32>())
        .prop_flat_map(|(n, enums, salt)| {
            let n_enums = enums.len();
            let classes: Vec<_> = (0..n)
                .map(|i| {
                    let later = n - i - 1;
                    let prop = (
                        0u32..100,
                        any::<proptest::sample::Index>(),
                        leaf_strategy(),
                        0u8..3,
                        flags_strategy(),
                        0u32..4,
                    )
                        .prop_map(move |(kind, pick, leaf, spelling, flags, dynamic)| {
                            let ty = match kind {
                                0..=54 => Ty::Prim(PRIMS[pick.index(PRIMS.len())]),
                                55..=69 => Ty::Leaf(leaf),
                                70..=79 if n_enums > 0 => Ty::Enum(pick.index(n_enums)),
                                _ if later > 0 => Ty::Object { class: i + 1 + pick.index(later), spelling },
                                _ => Ty::Prim(PRIMS[pick.index(PRIMS.len())]),
                            };
                            (ty, dynamic == 0, flags)
                        });
                    (proptest::collection::vec(prop, 0..9), Just(i))
                })
                .collect();
            (classes, Just(enums), Just(salt))
        })
        .prop_map(|(classes, enums, salt)| {
            let classes = classes
                .into_iter()
                .map(|(props, i)| {
                    let n = props.len() as u32;
                    // Ids out of name order: names follow a rotation of the ids.
                    let props = props
                        .into_iter()
                        .enumerate()
                        .map(|(j, (ty, dynamic, flags))| {
                            let j = j as u32;
                            PropGen {
                                name: format!("m_p{}", (j + salt % n.max(1)) % n.max(1)),
                                ty,
                                dynamic,
                                flags,
                                id: j * 2 + 1,
                            }
                        })
                        .collect();
                    ClassGen { name: format!("class Gen{:x}_{i}", salt % 4096), props }
                })
                .collect();
            Schema { classes, enums }
        })
        .prop_filter("property tags must be unique within a class", |s| {
            s.classes.iter().all(|c| {
                let mut tags: Vec<u32> = c
                    .props
                    .iter()
                    .map(|p| string_id(s.type_string(&p.ty).as_bytes()).wrapping_add(djb2(p.name.as_bytes())))
                    .collect();
                tags.sort_unstable();
                tags.windows(2).all(|w| w[0] != w[1])
            })
        })
}

fn f32_strategy() -> BoxedStrategy<f32> {
    prop_oneof![
        Just(0.0f32),
        Just(-0.0f32),
        -1e6f32..1e6,
        proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO,
    ]
    .boxed()
}

fn f64_strategy() -> BoxedStrategy<f64> {
    prop_oneof![-1e12f64..1e12, proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO]
        .boxed()
}

fn int(lo: i64, hi: i64) -> BoxedStrategy<Value> {
    prop_oneof![Just(lo), Just(hi), lo..=hi].prop_map(Value::Int).boxed()
}

fn text_strategy() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-zA-Z0-9 _]{0,12}",
        2 => "\\PC{0,8}",
        1 => Just("x".repeat(127)),
        1 => Just("y".repeat(128)),
        1 => Just(String::new()),
    ]
    .boxed()
}

fn prim_strategy(p: &'static str) -> BoxedStrategy<Value> {
    let bits = |p: &str| p.trim_start_matches(|c: char| c.is_alphabetic()).parse::<u32>().unwrap();
    match p {
        "bool" => any::<bool>().prop_map(Value::Bool).boxed(),
        "char" => int(i8::MIN.into(), i8::MAX.into()),
        "unsigned char" => int(0, u8::MAX.into()),
        "short" => int(i16::MIN.into(), i16::MAX.into()),
        "unsigned short" | "wchar_t" => int(0, u16::MAX.into()),
        "int" | "long" => int(i32::MIN.into(), i32::MAX.into()),
        "unsigned int" | "unsigned long" => int(0, u32::MAX.into()),
        "float" => f32_strategy().prop_map(|f| Value::Float(f.into())).boxed(),
        "double" => f64_strategy().prop_map(Value::Float).boxed(),
        "unsigned __int64" | "gid" | "union gid" => {
            prop_oneof![Just(u64::MAX), any::<u64>(), 0u64..1000].prop_map(Value::from_u64).boxed()
        }
        "s24" => int(-(1 << 23), (1 << 23) - 1),
        "u24" => int(0, (1 << 24) - 1),
        "std::string" => prop_oneof![
            4 => text_strategy().prop_map(Value::String),
            // Not UTF-8: bytes.
            1 => proptest::collection::vec(any::<u8>(), 1..10).prop_map(|mut b| {
                b.push(0xFF);
                Value::Bytes(b)
            }),
        ]
        .boxed(),
        "std::wstring" => prop_oneof![
            4 => text_strategy().prop_map(Value::String),
            // A lone surrogate somewhere: not UTF-16, so its UTF-16LE bytes.
            1 => (proptest::collection::vec(any::<u16>(), 0..6), 0xD800u16..0xE000, any::<proptest::sample::Index>())
                .prop_map(|(mut units, lone, at)| {
                    units.retain(|u| !(0xD800..0xE000).contains(u));
                    let at = at.index(units.len() + 1);
                    units.insert(at, lone);
                    Value::Bytes(units.iter().flat_map(|u| u.to_le_bytes()).collect())
                }),
        ]
        .boxed(),
        _ if p.starts_with("bui") => int(0, (1 << bits(p)) - 1),
        _ if p.starts_with("bi") => int(-(1 << (bits(p) - 1)), (1 << (bits(p) - 1)) - 1),
        _ => panic!("no strategy for {p}"),
    }
}

fn leaf_value_strategy(leaf: Leaf) -> BoxedStrategy<Value> {
    let comp: BoxedStrategy<Scalar> = match leaf.component() {
        serde_kiprop::codec::Prim::U8 => any::<u8>().prop_map(|v| Scalar::UInt(v.into())).boxed(),
        serde_kiprop::codec::Prim::I32 => any::<i32>().prop_map(|v| Scalar::Int(v.into())).boxed(),
        serde_kiprop::codec::Prim::U32 => any::<u32>().prop_map(|v| Scalar::UInt(v.into())).boxed(),
        _ => f32_strategy().prop_map(Scalar::F32).boxed(),
    };
    proptest::collection::vec(comp, leaf.len())
        .prop_map(move |c| {
            let mut wire = [Scalar::UInt(0); 9];
            wire[..c.len()].copy_from_slice(&c);
            Value::Leaf(Box::new(LeafValue { leaf, wire }))
        })
        .boxed()
}

fn enum_strategy(e: &EnumGen) -> BoxedStrategy<Value> {
    let options: Vec<u32> = e.options.iter().map(|(_, v)| *v).collect();
    if e.bits {
        proptest::sample::subsequence(options.clone(), 0..=options.len())
            .prop_map(|bits| Value::Int(bits.iter().fold(0u32, |a, b| a | b).into()))
            .boxed()
    } else {
        proptest::sample::select(options).prop_map(|v| Value::Int(v.into())).boxed()
    }
}

/// One value of a property's type (a single element for containers).
fn single_strategy(schema: &Arc<Schema>, ty: &Ty) -> BoxedStrategy<Value> {
    match ty {
        Ty::Prim(p) => prim_strategy(p),
        Ty::Leaf(l) => leaf_value_strategy(*l),
        Ty::Enum(e) => enum_strategy(&schema.enums[*e]),
        Ty::Object { class, .. } => {
            // The declared class, or (polymorphism) any class after it; sometimes null.
            let targets: Vec<usize> = (*class..schema.classes.len()).collect();
            let objects: Vec<BoxedStrategy<Value>> = targets.iter().map(|c| object_strategy(schema, *c)).collect();
            let first = objects[0].clone();
            let any_object = proptest::strategy::Union::new(objects).boxed();
            prop_oneof![1 => Just(Value::Null), 3 => first, 1 => any_object].boxed()
        }
    }
}

/// An object of class `class`, every property present except absent DELTA_ENCODE ones.
pub fn object_strategy(schema: &Arc<Schema>, class: usize) -> BoxedStrategy<Value> {
    let c = &schema.classes[class];
    let name = c.name.clone();
    let props: Vec<BoxedStrategy<Option<(String, Value)>>> = c
        .props
        .iter()
        .map(|p| {
            let one = single_strategy(schema, &p.ty);
            let value = if p.dynamic {
                let lens = match p.ty {
                    Ty::Prim(_) | Ty::Enum(_) => prop_oneof![8 => 0usize..4, 1 => 127usize..130].boxed(),
                    Ty::Leaf(_) => (0usize..4).boxed(),
                    Ty::Object { .. } => (0usize..3).boxed(),
                };
                lens.prop_flat_map(move |n| proptest::collection::vec(one.clone(), n)).prop_map(Value::List).boxed()
            } else {
                one
            };
            let pname = p.name.clone();
            let value = value.prop_map(move |v| Some((pname.clone(), v)));
            if p.delta() { prop_oneof![3 => value, 1 => Just(None)].boxed() } else { value.boxed() }
        })
        .collect();
    (props, any::<u32>())
        .prop_map(move |(props, order)| {
            let mut properties: Vec<(String, Value)> = props.into_iter().flatten().collect();
            if order % 2 == 1 {
                // Out of id order (as JSON may give them): shallow mode buffers the early ones.
                properties.sort_by_key(|(n, _)| string_id(n.as_bytes()) ^ order);
            }
            Value::Object(Box::new(Object {
                type_hash: string_id(name.as_bytes()),
                name: Some(name.clone()),
                properties,
            }))
        })
        .boxed()
}

/// A type list and 1–3 objects of its first class.
pub fn case_strategy() -> impl Strategy<Value = (Arc<Schema>, Vec<Value>)> {
    schema_strategy().prop_flat_map(|schema| {
        let schema = Arc::new(schema);
        let objects = proptest::collection::vec(object_strategy(&schema, 0), 1..4);
        (Just(schema), objects)
    })
}

/// How a blob is written and read.
#[derive(Debug, Clone, Copy)]
pub struct Combo {
    pub shallow: bool,
    pub bind: bool,
    pub manual: bool,
    pub flags: u32,
}

impl Combo {
    /// Every combination: shallow and deep × STATEFUL_FLAGS × compact length prefixes × string
    /// enums × zlib (32); `BINd` files (deep, stored flags) × compact × string enums × zlib (8);
    /// manual compression (4); FORBID_DELTA_ENCODE in shallow and deep mode (4) and in a `BINd`
    /// file (1).
    pub fn all() -> Vec<Combo> {
        let mut v = Vec::new();
        for shallow in [true, false] {
            for f in 0..16u32 {
                let flags = if f & 1 != 0 { STATEFUL_FLAGS } else { 0 }
                    | if f & 2 != 0 { COMPACT_LENGTH_PREFIXES } else { 0 }
                    | if f & 4 != 0 { HUMAN_READABLE_ENUMS } else { 0 }
                    | if f & 8 != 0 { WITH_COMPRESSION } else { 0 };
                v.push(Combo { shallow, bind: false, manual: false, flags });
            }
        }
        for f in 0..8u32 {
            let flags = STATEFUL_FLAGS
                | if f & 1 != 0 { COMPACT_LENGTH_PREFIXES } else { 0 }
                | if f & 2 != 0 { HUMAN_READABLE_ENUMS } else { 0 }
                | if f & 4 != 0 { WITH_COMPRESSION } else { 0 };
            v.push(Combo { shallow: false, bind: true, manual: false, flags });
        }
        for shallow in [true, false] {
            for flags in [STATEFUL_FLAGS, STATEFUL_FLAGS | COMPACT_LENGTH_PREFIXES | WITH_COMPRESSION] {
                v.push(Combo { shallow, bind: false, manual: true, flags });
            }
        }
        for shallow in [true, false] {
            for flags in [STATEFUL_FLAGS | FORBID_DELTA_ENCODE, COMPACT_LENGTH_PREFIXES | FORBID_DELTA_ENCODE] {
                v.push(Combo { shallow, bind: false, manual: false, flags });
            }
        }
        // Deep data has no presence bits: an absent DELTA_ENCODE property is left out whatever
        // FORBID_DELTA_ENCODE says, in a plain blob and in a game file.
        v.push(Combo { shallow: false, bind: true, manual: false, flags: STATEFUL_FLAGS | FORBID_DELTA_ENCODE });
        v
    }

    /// The writer's options.
    pub fn writer(&self) -> Options {
        if self.bind {
            return Options::game_file().flags(self.flags);
        }
        Options::new().shallow(self.shallow).flags(self.flags).manual_compression(self.manual)
    }

    /// The reader's options: STATEFUL_FLAGS alone when the flags are stored, else the writer's.
    pub fn reader(&self) -> Options {
        if self.bind {
            return Options::game_file();
        }
        let flags = if self.flags & STATEFUL_FLAGS != 0 { STATEFUL_FLAGS } else { self.flags };
        Options::new().shallow(self.shallow).flags(flags).manual_compression(self.manual)
    }

    pub fn string_enums(&self) -> bool {
        self.flags & HUMAN_READABLE_ENUMS != 0
    }
}

/// What a reader sees of `object` written with `combo`: shallow mode leaves out what the mask
/// excludes and DEPRECATED properties, deep mode DEPRECATED ones. Enums read as their values
/// (as katsuba's), whether written as values or (HUMAN_READABLE_ENUMS) names. `Err` names the absent DELTA_ENCODE property that
/// FORBID_DELTA_ENCODE makes the writer refuse.
pub fn expected(schema: &Schema, object: &Value, combo: &Combo) -> Result<Value, String> {
    match object {
        Value::Object(o) => {
            let class = &schema.classes[schema.class_index(o.name.as_deref().unwrap())];
            let mut props = Vec::new();
            // Shallow data is in id order; deep data in the order written (the value's).
            let order: Vec<&PropGen> = if combo.shallow {
                class.props.iter().collect()
            } else {
                o.properties.iter().map(|(n, _)| class.props.iter().find(|p| &p.name == n).unwrap()).collect()
            };
            for p in order {
                let kept = if combo.shallow { p.in_shallow() } else { p.flags & flags::DEPRECATED == 0 };
                if !kept {
                    continue;
                }
                match o.get(&p.name) {
                    Some(v) => props.push((p.name.clone(), expected_value(schema, v, combo)?)),
                    None if combo.shallow && combo.flags & FORBID_DELTA_ENCODE != 0 => {
                        return Err(format!("{}::{} absent", class.name, p.name));
                    }
                    None => {}
                }
            }
            Ok(Value::Object(Box::new(Object { type_hash: o.type_hash, name: o.name.clone(), properties: props })))
        }
        other => Ok(other.clone()),
    }
}

fn expected_value(schema: &Schema, v: &Value, combo: &Combo) -> Result<Value, String> {
    match v {
        Value::List(items) => {
            Ok(Value::List(items.iter().map(|x| expected_value(schema, x, combo)).collect::<Result<_, _>>()?))
        }
        Value::Object(_) => expected(schema, v, combo),
        _ => Ok(v.clone()),
    }
}
