//! Value types of data trees: GUIDs, strings under the `@` rule, URLs, colors with profiles,
//! enum names, and the vector/quaternion/matrix aliases.

use std::borrow::Cow;
use std::fmt;

use serde_core::de::{self, Deserializer, SeqAccess, Visitor};
use serde_core::ser::{SerializeSeq, Serializer};
use serde_core::{Deserialize, Serialize};

use crate::lenient::{Lenient, Number};
use crate::url::{self, StringValue};

/// `float2`: `[x, y]` (BSON array of doubles; the engine widens `float` to `double`).
pub type Float2 = [f32; 2];
/// `float3`: `[x, y, z]`.
pub type Float3 = [f32; 3];
/// `float4`: `[x, y, z, w]`.
pub type Float4 = [f32; 4];
/// `floatQ`: a quaternion `[x, y, z, w]` (identity `[0, 0, 0, 1]`).
pub type FloatQ = [f32; 4];
/// `color`: `[r, g, b, a]`.
pub type Color = [f32; 4];
/// `double3`: `[x, y, z]`.
pub type Double3 = [f64; 3];
/// `doubleQ`: a quaternion `[x, y, z, w]`.
pub type DoubleQ = [f64; 4];
/// `int3`: `[x, y, z]`.
pub type Int3 = [i32; 3];
/// `float4x4`: four row arrays (a matrix `floatRxC` is `R` arrays of `C` numbers).
pub type Float4x4 = [[f32; 4]; 4];

/// A GUID as data trees store it: a string. Kept as text (any string is accepted, because some
/// tools write IDs that are not RFC GUIDs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Guid(pub String);

impl Guid {
    /// The GUID text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Formats 128 bits as a lower-case `8-4-4-4-12` GUID (bring your own randomness for new IDs).
    pub fn from_u128(bits: u128) -> Self {
        let h = format!("{bits:032x}");
        Guid(format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]))
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Guid {
    fn from(s: &str) -> Self {
        Guid(s.to_owned())
    }
}

impl From<String> for Guid {
    fn from(s: String) -> Self {
        Guid(s)
    }
}

impl PartialEq<str> for Guid {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Guid {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for Guid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Guid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        crate::budget::model_charge(s.capacity())?;
        Ok(Guid(s))
    }
}

/// A string value under the engine's `@` rule: plain text or a URL.
///
/// Serializing escapes text that starts with `@` (`"@x"` is stored as `"@@x"`) and stores a URL
/// as `"@" + url`; deserializing undoes both, so a slot named `"@home"` round-trips.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DtString {
    /// Plain text (unescaped).
    Text(String),
    /// A URL (without the `@`).
    Url(String),
}

impl DtString {
    /// The text, or the URL.
    pub fn as_str(&self) -> &str {
        match self {
            DtString::Text(s) | DtString::Url(s) => s,
        }
    }

    /// The string as it is stored in BSON.
    pub fn stored(&self) -> Cow<'_, str> {
        match self {
            DtString::Text(s) => url::escape(s),
            DtString::Url(u) => Cow::Owned(url::encode_url(u)),
        }
    }

    /// Interprets a stored string.
    pub fn from_stored(stored: &str) -> Self {
        match url::classify(stored) {
            StringValue::Text(t) => DtString::Text(t.into_owned()),
            StringValue::Url(u) => DtString::Url(u.to_owned()),
        }
    }
}

impl fmt::Display for DtString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for DtString {
    fn from(s: &str) -> Self {
        DtString::Text(s.to_owned())
    }
}

impl From<String> for DtString {
    fn from(s: String) -> Self {
        DtString::Text(s)
    }
}

impl PartialEq<str> for DtString {
    fn eq(&self, other: &str) -> bool {
        matches!(self, DtString::Text(s) if s == other)
    }
}

impl PartialEq<&str> for DtString {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl Serialize for DtString {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.stored())
    }
}

struct StoredStr;

impl Visitor<'_> for StoredStr {
    type Value = DtString;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<DtString, E> {
        crate::budget::model_charge(v.len())?;
        Ok(DtString::from_stored(v))
    }
}

impl<'de> Deserialize<'de> for DtString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StoredStr)
    }
}

/// A `Uri` value: stored as `"@" + url`. Deserializing a string without the `@` (or an escaped
/// `@@` string) is an error.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Url(pub String);

impl Serialize for Url {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&url::encode_url(&self.0))
    }
}

impl<'de> Deserialize<'de> for Url {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match DtString::deserialize(d)? {
            DtString::Url(u) => Ok(Url(u)),
            DtString::Text(t) => Err(de::Error::invalid_value(de::Unexpected::Str(&t), &"a URL stored as \"@\" + url")),
        }
    }
}

/// The color profile of a `colorX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ColorProfile {
    /// `"Linear"`.
    Linear,
    /// `"sRGB"`.
    SRgb,
    /// `"sRGBAlpha"` (what a loader assumes when the profile is missing).
    #[default]
    SRgbAlpha,
}

impl ColorProfile {
    /// The enum name as stored.
    pub const fn name(self) -> &'static str {
        match self {
            ColorProfile::Linear => "Linear",
            ColorProfile::SRgb => "sRGB",
            ColorProfile::SRgbAlpha => "sRGBAlpha",
        }
    }

    /// The profile with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        [ColorProfile::Linear, ColorProfile::SRgb, ColorProfile::SRgbAlpha].into_iter().find(|p| p.name() == name)
    }
}

/// A `colorX`: `[r, g, b, a, "<profile>"]`. The profile is optional on read (older files have four
/// elements; the engine then assumes `sRGBAlpha`) and written only when present.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ColorX {
    /// Red, green, blue, alpha.
    pub rgba: [f32; 4],
    /// The profile, if stored.
    pub profile: Option<ColorProfile>,
}

impl ColorX {
    /// The profile, with the engine's default for a missing one.
    pub fn profile_or_default(&self) -> ColorProfile {
        self.profile.unwrap_or_default()
    }
}

impl Serialize for ColorX {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(4 + usize::from(self.profile.is_some())))?;
        for c in self.rgba {
            seq.serialize_element(&c)?;
        }
        if let Some(p) = self.profile {
            seq.serialize_element(p.name())?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for ColorX {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ColorX;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a colorX array [r, g, b, a] or [r, g, b, a, profile]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ColorX, A::Error> {
                let mut rgba = [0.0f32; 4];
                for (i, c) in rgba.iter_mut().enumerate() {
                    *c = seq
                        .next_element_seed(Lenient::<f32>(std::marker::PhantomData))?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))?;
                }
                let profile = match seq.next_element::<Cow<'de, str>>()? {
                    None => None,
                    Some(name) => Some(ColorProfile::from_name(&name).ok_or_else(|| {
                        de::Error::invalid_value(de::Unexpected::Str(&name), &"Linear, sRGB or sRGBAlpha")
                    })?),
                };
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(6, &self));
                }
                Ok(ColorX { rgba, profile })
            }
        }
        d.deserialize_seq(V)
    }
}

/// An enum value, stored by name (`Enum.ToString()`); `[Flags]` enums join names with `", "`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct EnumName(pub String);

impl EnumName {
    /// The names of a `[Flags]` value (one name for a plain enum).
    pub fn flags(&self) -> impl Iterator<Item = &str> {
        self.0.split(", ").filter(|s| !s.is_empty())
    }

    /// A `[Flags]` value from its names.
    pub fn from_flags<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        EnumName(names.into_iter().collect::<Vec<_>>().join(", "))
    }
}

impl Serialize for EnumName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for EnumName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(EnumName)
    }
}

/// A number read leniently (int32, int64 or double; see [`crate::lenient`]) and written as `T`
/// would be (int32 for `i32`, int64 for `i64`, double for floats).
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Num<T>(pub T);

impl<T: Serialize> Serialize for Num<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Number> Deserialize<'de> for Num<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::lenient::number(d).map(Num)
    }
}

/// How a BSON number was stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Width {
    /// BSON int32 (what Resonite writes for `int`).
    #[default]
    Int32,
    /// BSON int64 (what legacy NeosVR files hold for every integer).
    Int64,
    /// BSON double (what some other tools write).
    Double,
}

/// An `int` that remembers how the file stored it, so that decode → encode writes it back the
/// same way: [`DataTree::type_versions`](super::DataTree::type_versions) and
/// [`feature_flags`](super::DataTree::feature_flags) are int32 in Resonite files and int64 in
/// legacy NeosVR files.
///
/// Read leniently ([`crate::lenient`]); the width is what the deserializer reports: `visit_i32` is
/// int32 (BSON int32, and any type narrower than `i64`), `visit_i64` int64 (BSON int64; serde_json
/// reports negative numbers this way too), `visit_u64` int32, `visit_f64` a double (which must
/// hold an integral value). Written with `serialize_i32`, `serialize_i64` or `serialize_f64`.
/// Compares equal to an `i32` of the same value, whatever the width.
///
/// ```
/// use serde_brson::model::{StoredInt, Width};
///
/// let legacy = StoredInt { value: 5, width: Width::Int64 };
/// assert_eq!(legacy, 5);
/// assert_eq!(StoredInt::from(5), StoredInt { value: 5, width: Width::Int32 });
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct StoredInt {
    /// The value.
    pub value: i32,
    /// How it is written.
    pub width: Width,
}

impl From<i32> for StoredInt {
    /// An int32, as Resonite writes it.
    fn from(value: i32) -> Self {
        StoredInt { value, width: Width::Int32 }
    }
}

impl PartialEq<i32> for StoredInt {
    fn eq(&self, other: &i32) -> bool {
        self.value == *other
    }
}

impl fmt::Display for StoredInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl Serialize for StoredInt {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.width {
            Width::Int32 => s.serialize_i32(self.value),
            Width::Int64 => s.serialize_i64(i64::from(self.value)),
            Width::Double => s.serialize_f64(f64::from(self.value)),
        }
    }
}

impl<'de> Deserialize<'de> for StoredInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn lenient<E: de::Error>(width: Width, r: Result<i32, E>) -> Result<StoredInt, E> {
                r.map(|value| StoredInt { value, width })
            }
        }
        impl Visitor<'_> for V {
            type Value = StoredInt;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(<i32 as Number>::EXPECTING)
            }
            fn visit_i8<E: de::Error>(self, v: i8) -> Result<StoredInt, E> {
                self.visit_i32(i32::from(v))
            }
            fn visit_i16<E: de::Error>(self, v: i16) -> Result<StoredInt, E> {
                self.visit_i32(i32::from(v))
            }
            fn visit_i32<E: de::Error>(self, v: i32) -> Result<StoredInt, E> {
                Ok(StoredInt { value: v, width: Width::Int32 })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<StoredInt, E> {
                V::lenient(Width::Int64, crate::lenient::LenientVisitor::<i32>::new().visit_i64(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StoredInt, E> {
                V::lenient(Width::Int32, crate::lenient::LenientVisitor::<i32>::new().visit_u64(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<StoredInt, E> {
                V::lenient(Width::Double, crate::lenient::LenientVisitor::<i32>::new().visit_f64(v))
            }
        }
        d.deserialize_any(V)
    }
}
