//! Lenient numbers: the engine reads every BSON integer as a `long` and every floating value as a
//! `double` and converts when it extracts a field, so int32, int64 and double are
//! interchangeable in a data tree. Files written by other tools (JavaScript generators write
//! large integers as doubles) rely on that.
//!
//! Use these with `#[serde(deserialize_with = "…")]` on numeric fields of your own component
//! types:
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! struct Sizes {
//!     #[serde(rename = "SortingOrder", deserialize_with = "serde_brson::lenient::i32")]
//!     sorting_order: i32,
//! }
//! # let _ = |s: Sizes| s.sorting_order;
//! ```
//!
//! An integer field accepts a double only when it holds an integral value in range (the engine
//! would round; this crate refuses to guess). `u32`/`u64` also accept the negative int32/int64
//! that the engine's unchecked casts write for values above `i32::MAX`/`i64::MAX`.

use std::fmt;
use std::marker::PhantomData;

use serde_core::Deserializer;
use serde_core::de::{Unexpected, Visitor};

/// A number type the lenient visitor can produce.
pub trait Number: Sized + Copy {
    /// What the visitor expects, for error messages.
    const EXPECTING: &'static str;
    /// From a BSON int32/int64.
    fn from_i64(v: i64) -> Option<Self>;
    /// From a BSON double.
    fn from_f64(v: f64) -> Option<Self>;
}

fn integral(v: f64) -> Option<i64> {
    (v.fract() == 0.0 && v >= i64::MIN as f64 && v < i64::MAX as f64).then_some(v as i64)
}

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl Number for $t {
            const EXPECTING: &'static str = concat!("a number that fits ", stringify!($t));
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            fn from_f64(v: f64) -> Option<Self> {
                integral(v).and_then(Self::from_i64)
            }
        }
    )*};
}
signed!(i8, i16, i32, i64, u8, u16);

impl Number for u32 {
    const EXPECTING: &'static str = "a number that fits u32 (or a negative int32 written by an unchecked cast)";
    fn from_i64(v: i64) -> Option<Self> {
        match v {
            0..=0xFFFF_FFFF => Some(v as u32),
            -0x8000_0000..0 => Some(v as i32 as u32),
            _ => None,
        }
    }
    fn from_f64(v: f64) -> Option<Self> {
        integral(v).and_then(Self::from_i64)
    }
}

impl Number for u64 {
    const EXPECTING: &'static str = "a number that fits u64 (or a negative int64 written by an unchecked cast)";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as u64)
    }
    fn from_f64(v: f64) -> Option<Self> {
        (v.fract() == 0.0 && v >= 0.0 && v < u64::MAX as f64).then_some(v as u64)
    }
}

impl Number for f32 {
    const EXPECTING: &'static str = "a number";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f32)
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v as f32)
    }
}

impl Number for f64 {
    const EXPECTING: &'static str = "a number";
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f64)
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v)
    }
}

/// The visitor behind the functions of this module: accepts BSON int32, int64 and double.
pub struct LenientVisitor<T>(PhantomData<T>);

impl<T> LenientVisitor<T> {
    /// A visitor for `T`.
    pub const fn new() -> Self {
        LenientVisitor(PhantomData)
    }
}

impl<T> Default for LenientVisitor<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Number> Visitor<'_> for LenientVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_i64<E: serde_core::de::Error>(self, v: i64) -> Result<T, E> {
        T::from_i64(v).ok_or_else(|| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: serde_core::de::Error>(self, v: u64) -> Result<T, E> {
        match i64::try_from(v) {
            Ok(v) => self.visit_i64(v),
            Err(_) => Err(E::invalid_value(Unexpected::Unsigned(v), &self)),
        }
    }

    fn visit_f64<E: serde_core::de::Error>(self, v: f64) -> Result<T, E> {
        T::from_f64(v).ok_or_else(|| E::invalid_value(Unexpected::Float(v), &self))
    }
}

/// Deserializes any [`Number`] leniently.
pub fn number<'de, T: Number, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_any(LenientVisitor::<T>::new())
}

macro_rules! functions {
    ($($name:ident: $t:ty),*) => {$(
        #[doc = concat!("Deserializes an `", stringify!($t), "` from a BSON int32, int64 or double.")]
        pub fn $name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<$t, D::Error> {
            number(deserializer)
        }
    )*};
}
functions!(i8: i8, i16: i16, i32: i32, i64: i64, u8: u8, u16: u16, u32: u32, u64: u64, f32: f32, f64: f64);

/// Deserializes an optional number (BSON null → `None`) leniently.
pub fn option<'de, T: Number, D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    struct OptionVisitor<T>(PhantomData<T>);
    impl<'de, T: Number> Visitor<'de> for OptionVisitor<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "null or {}", T::EXPECTING)
        }
        fn visit_none<E: serde_core::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde_core::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            number(d).map(Some)
        }
    }
    deserializer.deserialize_option(OptionVisitor(PhantomData))
}

/// A [`serde_core::de::DeserializeSeed`] for a lenient number (used by the typed model).
pub(crate) struct Lenient<T>(pub(crate) PhantomData<T>);

impl<T> Clone for Lenient<T> {
    fn clone(&self) -> Self {
        Lenient(PhantomData)
    }
}

impl<'de, T: Number> serde_core::de::DeserializeSeed<'de> for Lenient<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        number(d)
    }
}
