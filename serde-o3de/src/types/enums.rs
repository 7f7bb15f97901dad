//! Enums and bit flags the way O3DE's enum serializer reads and writes them.
//!
//! Describe the type with [`O3deEnum`] (its options' names and values) and serialize it with
//! `#[serde(with = "serde_o3de::enums")]`, or wrap it in [`Enum`]:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_o3de::O3deEnum;
//!
//! #[derive(Clone, Copy, Debug, Default, PartialEq)]
//! struct Layers(u8);
//!
//! impl O3deEnum for Layers {
//!     type Repr = u8;
//!     const OPTIONS: &'static [(&'static str, u8)] = &[("Ground", 1), ("Water", 2), ("Air", 4)];
//!     fn to_repr(self) -> u8 { self.0 }
//!     fn from_repr(repr: u8) -> Option<Self> { Some(Layers(repr)) }
//! }
//!
//! #[derive(Serialize, Deserialize, Default, PartialEq, Debug)]
//! #[serde(default)]
//! struct Collider {
//!     #[serde(with = "serde_o3de::enums")]
//!     layers: Layers,
//! }
//!
//! let c = Collider { layers: Layers(1 | 4 | 16) };
//! assert_eq!(serde_o3de::to_string(&c)?, r#"{"layers":["Air","Ground",16]}"#);
//! let back: Collider = serde_o3de::from_str(r#"{"layers": ["ground", "AIR", "16"]}"#)?;
//! assert_eq!(back, c);
//! # Ok::<(), serde_o3de::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde_core::de::{self, Deserializer, Visitor};
use serde_core::ser::{SerializeSeq, Serializer};
use serde_core::{Deserialize, Serialize};

use super::{Captured, Json};
use crate::channel;
use crate::coerce::{self, Num};
use crate::report::{Outcome, ResultCode, Task};

const ENUM: &str = "$serde_o3de::Native::Enum";
const ENUM_ZERO: &str = "$serde_o3de::Native::EnumZero";

mod private {
    pub trait Sealed {}
}

/// An enum's underlying integer type. O3DE does not support signed 8-bit enums, so neither does
/// this crate.
pub trait Repr: Copy + Eq + fmt::Debug + private::Sealed + 'static {
    /// The type's name, for messages.
    const NAME: &'static str;
    /// The value as an integer.
    fn to_i128(self) -> i128;
    /// The value, if `v` is in range.
    fn from_i128(v: i128) -> Option<Self>;
    /// The bits (two's complement within the type's width), zero-extended.
    fn to_bits(self) -> u64;
    /// The value with these bits (truncated to the type's width).
    fn from_bits(bits: u64) -> Self;
}

macro_rules! repr {
    ($($t:ty => $u:ty;)*) => {$(
        impl private::Sealed for $t {}
        impl Repr for $t {
            const NAME: &'static str = stringify!($t);
            fn to_i128(self) -> i128 {
                i128::from(self)
            }
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            fn to_bits(self) -> u64 {
                u64::from(self as $u)
            }
            fn from_bits(bits: u64) -> Self {
                bits as $u as $t
            }
        }
    )*};
}
repr! { u8 => u8; u16 => u16; u32 => u32; u64 => u64; i16 => u16; i32 => u32; i64 => u64; }

/// An enum or bit-flag type as O3DE's serialize context registers it: option names and values.
///
/// Values are written as the name of the option they equal; otherwise as an array of the names of
/// every non-zero option whose bits are all set (highest value first, overlapping options not
/// de-duplicated) followed by an integer holding the remaining bits; or as a bare integer when no
/// option matches. They are read from an integer in range (named or not), a string (an integer
/// first, `strtoll`-style, then a case-insensitive name), or an array of those ORed together
/// starting from 0. `""`, `[]` and `{}` leave the value as it was (DefaultsUsed), as O3DE does: a
/// struct member keeps its current value (its `#[serde(default)]`), a new element or the root is
/// `Self::default()`.
pub trait O3deEnum: Copy + Default {
    /// The underlying integer type.
    type Repr: Repr;
    /// The registered options, as `(name, value)`.
    const OPTIONS: &'static [(&'static str, Self::Repr)];
    /// The value's integer.
    fn to_repr(self) -> Self::Repr;
    /// The value for an integer; `None` if the type cannot hold it (a Rust enum without that
    /// variant), which loads as Unsupported.
    fn from_repr(repr: Self::Repr) -> Option<Self>;
}

/// One element of the array form.
enum Item<'a> {
    Name(&'a str),
    Int(i128),
}

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Item::Name(n) => serializer.serialize_str(n),
            Item::Int(i) => serialize_int(i, serializer),
        }
    }
}

fn serialize_int<S: Serializer>(i: i128, serializer: S) -> Result<S::Ok, S::Error> {
    match i64::try_from(i) {
        Ok(v) => serializer.serialize_i64(v),
        Err(_) => serializer.serialize_u64(i as u64),
    }
}

/// The JSON form of an enum value.
enum Form<'a> {
    Name(&'a str),
    Array(Vec<Item<'a>>),
    Int(i128),
}

impl Serialize for Form<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Form::Name(n) => serializer.serialize_str(n),
            Form::Int(i) => serialize_int(*i, serializer),
            Form::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

fn form<E: O3deEnum>(value: E) -> Form<'static> {
    let repr = value.to_repr();
    let bits = repr.to_bits();
    if let Some((name, _)) = E::OPTIONS.iter().find(|(_, r)| r.to_bits() == bits) {
        return Form::Name(name);
    }
    let mut parts: Vec<(&'static str, u64)> =
        E::OPTIONS.iter().map(|(n, r)| (*n, r.to_bits())).filter(|&(_, b)| b != 0 && bits & b == b).collect();
    if parts.is_empty() {
        return Form::Int(repr.to_i128());
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    let covered = parts.iter().fold(0, |acc, p| acc | p.1);
    let mut items: Vec<Item<'static>> = parts.iter().map(|p| Item::Name(p.0)).collect();
    let rest = bits & !covered;
    if rest != 0 {
        items.push(Item::Int(E::Repr::from_bits(rest).to_i128()));
    }
    Form::Array(items)
}

/// Serializes an [`O3deEnum`] the O3DE way (for `#[serde(with = "serde_o3de::enums")]`).
pub fn serialize<E: O3deEnum, S: Serializer>(value: &E, serializer: S) -> Result<S::Ok, S::Error> {
    let name = if value.to_repr().to_bits() == 0 { ENUM_ZERO } else { ENUM };
    serializer.serialize_newtype_struct(name, &form(*value))
}

/// Deserializes an [`O3deEnum`] the O3DE way (for `#[serde(with = "serde_o3de::enums")]`).
pub fn deserialize<'de, E: O3deEnum, D: Deserializer<'de>>(deserializer: D) -> Result<E, D::Error> {
    deserializer.deserialize_newtype_struct(ENUM, EnumVisitor(PhantomData))
}

/// An [`O3deEnum`] value that serializes the O3DE way by itself (for containers and options,
/// where `#[serde(with)]` does not reach).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Enum<E>(pub E);

impl<E: O3deEnum> Serialize for Enum<E> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(&self.0, serializer)
    }
}

impl<'de, E: O3deEnum> Deserialize<'de> for Enum<E> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize(deserializer).map(Enum)
    }
}

/// The options as O3DE lists them in messages: `"Name" (value)`.
fn options<E: O3deEnum>() -> String {
    let list: Vec<String> = E::OPTIONS.iter().map(|(n, r)| format!("\"{n}\" ({})", r.to_i128())).collect();
    list.join(", ")
}

/// An integer in the enum's range.
fn int_value<E: O3deEnum>(v: i128) -> Result<u64, String> {
    E::Repr::from_i128(v).map(Repr::to_bits).ok_or_else(|| format!("{v} is out of range for {}", E::Repr::NAME))
}

/// A string: an integer first (`strtoll` rules), then an option name, case-insensitively.
fn string_value<E: O3deEnum>(s: &str) -> Result<u64, String> {
    if let Some(p) = coerce::int_prefix(s) {
        if p.overflow {
            return Err(format!("\"{}\" is out of range for {}", coerce::clip(s), E::Repr::NAME));
        }
        let v = if p.negative { -(p.magnitude as i128) } else { p.magnitude as i128 };
        return int_value::<E>(v);
    }
    E::OPTIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, r)| r.to_bits())
        .ok_or_else(|| format!("\"{}\" is not an option; the options are {}", coerce::clip(s), options::<E>()))
}

fn number_value<E: O3deEnum>(n: Num) -> Result<u64, String> {
    match n {
        Num::U(u) => int_value::<E>(i128::from(u)),
        Num::I(i) => int_value::<E>(i128::from(i)),
        Num::F(f) => Err(format!("{f:?} is not an integer; enums load from integers, names or arrays of them")),
    }
}

/// What loading an enum value does.
enum Loadout {
    /// Sets these bits.
    Bits(u64),
    /// Leaves the value as it was (`""`, `[]`, `{}`): DefaultsUsed, with O3DE's message.
    Keep(&'static str),
}

/// Loads an enum value: what to do, or the failure message.
fn load<E: O3deEnum>(json: &Json) -> Result<Loadout, String> {
    match json {
        Json::Num(n) => number_value::<E>(*n).map(Loadout::Bits),
        Json::Str(s) if s.is_empty() => {
            Ok(Loadout::Keep("Input string is empty, no enumeration can be parsed from it"))
        }
        Json::Str(s) => string_value::<E>(s).map(Loadout::Bits),
        Json::Arr(items) if items.is_empty() => {
            Ok(Loadout::Keep("Input array is empty, no enumeration can be parsed from it"))
        }
        Json::Arr(items) => {
            let mut bits = 0;
            for (i, item) in items.iter().enumerate() {
                bits |= match item {
                    Json::Num(n) => number_value::<E>(*n),
                    Json::Str(s) => string_value::<E>(s),
                    other => Err(format!("element {i} is {}; enum arrays hold names and integers", other.kind())),
                }?;
            }
            Ok(Loadout::Bits(bits))
        }
        Json::Obj(members) if members.is_empty() => Ok(Loadout::Keep("Value has an explicit default")),
        other => Err(format!("an enum can't be read from {}", other.kind())),
    }
}

struct EnumVisitor<E>(PhantomData<E>);

impl<E: O3deEnum> EnumVisitor<E> {
    fn finish<Err: de::Error>(captured: Captured) -> Result<E, Err> {
        let json = captured.json();
        let failure = match load::<E>(&json) {
            Ok(Loadout::Bits(bits)) => match E::from_repr(E::Repr::from_bits(bits)) {
                Some(v) => return Ok(v),
                None => format!("{} is not a value of this enum", E::Repr::from_bits(bits).to_i128()),
            },
            Ok(Loadout::Keep(message)) => {
                // O3DE leaves the target untouched: under this crate's deserializer a struct member
                // keeps its current value (the loader treats it as absent); elsewhere the value is
                // a new one, the default.
                channel::report_kept(ResultCode::new(Task::ReadField, Outcome::DefaultsUsed), message.to_owned());
                return Ok(E::default());
            }
            Err(message) => message,
        };
        if channel::report(ResultCode::new(Task::Convert, Outcome::Unsupported), failure.clone()) {
            Ok(E::default())
        } else {
            Err(Err::custom(failure))
        }
    }
}

impl<'de, E: O3deEnum> Visitor<'de> for EnumVisitor<E> {
    type Value = E;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an enum value (one of {})", options::<E>())
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<E, D::Error> {
        let captured = d.deserialize_any(super::CaptureVisitor)?;
        Self::finish(captured)
    }

    fn visit_str<Err: de::Error>(self, v: &str) -> Result<E, Err> {
        Self::finish(Captured::Json(Json::Str(v.to_owned())))
    }

    fn visit_u64<Err: de::Error>(self, v: u64) -> Result<E, Err> {
        Self::finish(Captured::Json(Json::Num(Num::U(v))))
    }

    fn visit_i64<Err: de::Error>(self, v: i64) -> Result<E, Err> {
        Self::finish(Captured::Json(Json::Num(if v < 0 { Num::I(v) } else { Num::U(v as u64) })))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<E, A::Error> {
        let captured = de::Visitor::visit_seq(super::CaptureVisitor, seq)?;
        Self::finish(captured)
    }
}

/// The value a string loads as for `E`, for tooling that handles enum text (e.g. patches):
/// `Ok((value, outcome))` or the Unsupported message. `""` leaves the value as it was in O3DE;
/// here it gives `E::default()` with DefaultsUsed.
pub fn parse<E: O3deEnum>(text: &str) -> Result<(E, Outcome), String> {
    let json = Json::Str(text.to_owned());
    match load::<E>(&json)? {
        Loadout::Keep(_) => Ok((E::default(), Outcome::DefaultsUsed)),
        Loadout::Bits(bits) => E::from_repr(E::Repr::from_bits(bits))
            .map(|v| (v, Outcome::Success))
            .ok_or_else(|| format!("{bits} is not a value of this enum")),
    }
}
