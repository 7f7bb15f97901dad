//! The names by which this crate's types and its serializer and deserializer recognise each other.
//!
//! serde hands a format nothing but names and shapes, so this crate's own types (raw JSON, `$type`
//! values, unordered and element-default containers, the math types, uuids, colors and enums)
//! announce themselves with reserved newtype and struct names, and the deserializer answers a
//! `$type` value with reserved variant indices. Both sides, and the types, take them from here.

/// The newtype name of [`RawJson`](crate::RawJson).
pub(crate) const RAW: &str = "$serde_o3de::Raw";
/// The struct name of `$type` polymorphism ([`crate::poly`]).
pub(crate) const POLY: &str = "$serde_o3de::Poly";
/// The member name under which a `$type` value hands this crate's serializer its class default.
pub(crate) const POLY_DEFAULT_KEY: &str = "$serde_o3de::default";
/// The newtype name of [`crate::unordered`] sets.
pub(crate) const UNORDERED: &str = "$serde_o3de::Unordered";
/// The newtype name of [`crate::elements`] containers.
pub(crate) const ELEMENTS: &str = "$serde_o3de::Elements";
/// The newtype-name prefix of this crate's O3DE types (math types, uuid, color, enums, any).
pub(crate) const NATIVE: &str = "$serde_o3de::Native::";
/// Variant index a `$type`-less object or non-object value gets (the declared type).
pub(crate) const DECLARED_TYPE: u32 = u32::MAX;
/// Variant index of a `$type` that names no registered type.
pub(crate) const UNKNOWN_TYPE: u32 = u32::MAX - 1;
