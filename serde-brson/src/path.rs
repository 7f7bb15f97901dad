//! The field path of a decoding error (`slots[3].components["Transform"].x`), found after the fact.
//!
//! Decoding that succeeds keeps no path. When it fails, [`Payload::deserialize`](crate::Payload::deserialize)
//! runs the same (validated, deterministic) decode once more through [`Track`], which wraps every
//! deserializer, visitor and access the type asks for and, as the error travels back out, notes the
//! element index or key of each level it leaves. The second run fails where the first did, so its trail
//! is the path of the first run's error.

use std::cell::RefCell;
use std::fmt;

use serde_core::de::{self, DeserializeSeed, Visitor};

/// Calls `$callback!` with every `deserialize_*` method of serde's `Deserializer` except
/// `deserialize_struct` (and their extra arguments): the forwarding lists of [`Deserializer`](crate::Deserializer)
/// and of the wrappers here.
macro_rules! with_deserialize_methods {
    ($callback:ident) => {
        $callback! {
            deserialize_any; deserialize_bool; deserialize_i8; deserialize_i16; deserialize_i32; deserialize_i64;
            deserialize_i128; deserialize_u8; deserialize_u16; deserialize_u32; deserialize_u64; deserialize_u128;
            deserialize_f32; deserialize_f64; deserialize_char; deserialize_str; deserialize_string;
            deserialize_bytes; deserialize_byte_buf; deserialize_option; deserialize_unit;
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_seq;
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_map;
            deserialize_enum(name: &'static str, variants: &'static [&'static str]);
            deserialize_identifier; deserialize_ignored_any;
        }
    };
}
pub(crate) use with_deserialize_methods;

/// The segments of a failing decode, innermost first (each level pushes its own as the error leaves it).
#[derive(Default)]
pub(crate) struct Trail {
    segments: RefCell<Vec<String>>,
}

impl Trail {
    fn push(&self, segment: String) {
        self.segments.borrow_mut().push(segment);
    }

    /// The path: segments outermost first, without a leading `.`.
    pub(crate) fn render(&self) -> String {
        let segments = self.segments.borrow();
        let path: String = segments.iter().rev().map(String::as_str).collect();
        path.strip_prefix('.').map_or_else(|| path.clone(), str::to_owned)
    }
}

/// A deserializer whose failures leave their path in `trail`.
pub(crate) struct Track<'t, D> {
    pub(crate) de: D,
    pub(crate) trail: &'t Trail,
}

/// Wraps a visitor: what it is handed (sequences, maps, options, enums) is tracked too.
struct TrackVisitor<'t, V> {
    v: V,
    trail: &'t Trail,
    /// The value is a struct: its keys are field names (`.name`), not map keys (`["key"]`).
    fields: bool,
}

macro_rules! forward_deserialize {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?;)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? v: V) -> Result<V::Value, D::Error> {
            self.de.$method($($($arg,)*)? TrackVisitor { v, trail: self.trail, fields: false })
        }
    )*};
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for Track<'_, D> {
    type Error = D::Error;

    with_deserialize_methods!(forward_deserialize);

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_struct(name, fields, TrackVisitor { v, trail: self.trail, fields: true })
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident: $ty:ty;)*) => {$(
        fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
            self.v.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TrackVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    forward_visit! {
        visit_bool: bool; visit_i8: i8; visit_i16: i16; visit_i32: i32; visit_i64: i64; visit_i128: i128;
        visit_u8: u8; visit_u16: u16; visit_u32: u32; visit_u64: u64; visit_u128: u128;
        visit_f32: f32; visit_f64: f64; visit_char: char;
        visit_str: &str; visit_borrowed_str: &'de str; visit_string: String;
        visit_bytes: &[u8]; visit_borrowed_bytes: &'de [u8]; visit_byte_buf: Vec<u8>;
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(Track { de, trail: self.trail })
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(Track { de, trail: self.trail })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.v.visit_seq(TrackSeq { seq, trail: self.trail, index: 0 })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.v.visit_map(TrackMap { map, trail: self.trail, fields: self.fields, key: None })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(TrackEnum { data, trail: self.trail })
    }
}

/// A seed whose deserializer is tracked.
struct TrackSeed<'t, S> {
    seed: S,
    trail: &'t Trail,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for TrackSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Track { de, trail: self.trail })
    }
}

struct TrackSeq<'t, A> {
    seq: A,
    trail: &'t Trail,
    index: usize,
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for TrackSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, A::Error> {
        let index = self.index;
        self.index += 1;
        let result = self.seq.next_element_seed(TrackSeed { seed, trail: self.trail });
        if result.is_err() {
            self.trail.push(format!("[{index}]"));
        }
        result
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

struct TrackMap<'t, A> {
    map: A,
    trail: &'t Trail,
    fields: bool,
    /// The key of the entry being read, as it was seen.
    key: Option<String>,
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for TrackMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.key = None;
        self.map.next_key_seed(KeySeed { seed, key: &mut self.key })
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let result = self.map.next_value_seed(TrackSeed { seed, trail: self.trail });
        if result.is_err() {
            let segment = match (&self.key, self.fields) {
                (Some(key), true) => format!(".{key}"),
                (Some(key), false) => format!("[{key:?}]"),
                (None, _) => "[?]".to_owned(),
            };
            self.trail.push(segment);
        }
        result
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A key seed that notes the key (BSON keys are strings).
struct KeySeed<'k, S> {
    seed: S,
    key: &'k mut Option<String>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(KeyDe { de, key: self.key })
    }
}

struct KeyDe<'k, D> {
    de: D,
    key: &'k mut Option<String>,
}

macro_rules! forward_key_deserialize {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?;)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? v: V) -> Result<V::Value, D::Error> {
            self.de.$method($($($arg,)*)? KeyVisitor { v, key: self.key })
        }
    )*};
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for KeyDe<'_, D> {
    type Error = D::Error;

    with_deserialize_methods!(forward_key_deserialize);
    forward_key_deserialize! { deserialize_struct(name: &'static str, fields: &'static [&'static str]); }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// Notes a string key and hands it on.
struct KeyVisitor<'k, V> {
    v: V,
    key: &'k mut Option<String>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    forward_visit! {
        visit_bool: bool; visit_i8: i8; visit_i16: i16; visit_i32: i32; visit_i64: i64; visit_i128: i128;
        visit_u8: u8; visit_u16: u16; visit_u32: u32; visit_u64: u64; visit_u128: u128;
        visit_f32: f32; visit_f64: f64; visit_char: char;
        visit_bytes: &[u8]; visit_borrowed_bytes: &'de [u8]; visit_byte_buf: Vec<u8>;
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<V::Value, E> {
        *self.key = Some(value.to_owned());
        self.v.visit_str(value)
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<V::Value, E> {
        *self.key = Some(value.to_owned());
        self.v.visit_borrowed_str(value)
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<V::Value, E> {
        *self.key = Some(value.clone());
        self.v.visit_string(value)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(de)
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(de)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.v.visit_seq(seq)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.v.visit_map(map)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(data)
    }
}

struct TrackEnum<'t, A> {
    data: A,
    trail: &'t Trail,
}

impl<'de, 't, A: de::EnumAccess<'de>> de::EnumAccess<'de> for TrackEnum<'t, A> {
    type Error = A::Error;
    type Variant = TrackVariant<'t, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        let (value, variant) = self.data.variant_seed(seed)?;
        Ok((value, TrackVariant { variant, trail: self.trail }))
    }
}

struct TrackVariant<'t, A> {
    variant: A,
    trail: &'t Trail,
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for TrackVariant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        self.variant.newtype_variant_seed(TrackSeed { seed, trail: self.trail })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, A::Error> {
        self.variant.tuple_variant(len, TrackVisitor { v, trail: self.trail, fields: false })
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], v: V) -> Result<V::Value, A::Error> {
        self.variant.struct_variant(fields, TrackVisitor { v, trail: self.trail, fields: true })
    }
}
