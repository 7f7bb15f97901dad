//! [`Word32`]: takes a math type's component when it is a plain `f32` or `i32` (the common case),
//! so that the components can be paired into 8-byte writes; anything else (a nested vector, a
//! wrong type) is [`NotWord`], and the caller writes it through the general payload writer,
//! which also reports what is wrong with it.

use std::fmt;

use serde_core::ser::{self, Impossible, Serialize};

use self::NotWord as Error;
use super::macros::{capture_only, reject};

/// Not a plain 32-bit component. Carries nothing, so falling back costs no allocation.
#[derive(Debug)]
pub(super) struct NotWord;

impl fmt::Display for NotWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a 32-bit component")
    }
}

impl std::error::Error for NotWord {}

impl ser::Error for NotWord {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotWord
    }
}

/// The result type `capture_only!` and `reject!` name (with [`Error`] = [`NotWord`]).
type Result<T> = std::result::Result<T, NotWord>;

/// What `reject!` returns for every method not listed (resolved here, at the macro's use).
fn unexpected(_: &str) -> NotWord {
    NotWord
}

/// The bits of an `f32` or `i32` component, little-endian as the wire wants them.
pub(super) struct Word32;

impl ser::Serializer for Word32 {
    capture_only!(u32);

    #[inline(always)]
    fn serialize_f32(self, v: f32) -> Result<u32> {
        Ok(v.to_bits())
    }

    #[inline(always)]
    fn serialize_i32(self, v: i32) -> Result<u32> {
        Ok(v as u32)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<u32> {
        value.serialize(self)
    }

    reject!("a component"; bool i8 i16 i64 u8 u16 u32 u64 f64 char str bytes none some unit unit_struct
        unit_variant newtype_variant seq tuple tuple_struct tuple_variant map struct struct_variant);
}
