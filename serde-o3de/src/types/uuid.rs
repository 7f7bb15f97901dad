//! `AZ::Uuid`: written `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`, read leniently.

use std::fmt;
use std::str::FromStr;

use serde_core::{Serialize, Serializer};

use super::{Input, Json, Loaded, Native};
use crate::report::Outcome;

/// The nil uuid's text.
pub(crate) const NIL_TEXT: &str = "{00000000-0000-0000-0000-000000000000}";

/// An O3DE uuid (`AZ::Uuid`), e.g. a type id.
///
/// Written as `"{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}"` (upper case, braces, dashes). Read like
/// O3DE's uuid serializer: the first `{…}` with 32 hex digits anywhere in the string (case-insensitive,
/// text around it allowed, as in `"{…} TransformComponent"`), with either all four dashes or none.
/// The nil uuid reads as DefaultsUsed; anything else is Unsupported.
///
/// ```
/// use serde_o3de::Uuid;
/// let id: Uuid = "{27f1e1a1-8d9d-4c3b-bd3a-afb9762449c0} TransformComponent".parse()?;
/// assert_eq!(id.to_string(), "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}");
/// # Ok::<(), serde_o3de::ParseUuidError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Uuid(pub [u8; 16]);

/// The error of [`Uuid::from_str`]: no uuid in braces in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseUuidError(());

impl fmt::Display for ParseUuidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} uuid in the text")
    }
}

impl std::error::Error for ParseUuidError {}

impl Uuid {
    /// The nil uuid.
    pub const NIL: Uuid = Uuid([0; 16]);

    /// The uuid with these bytes (in text order).
    pub const fn from_bytes(bytes: [u8; 16]) -> Uuid {
        Uuid(bytes)
    }

    /// The bytes, in text order.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Whether this is the nil uuid.
    pub fn is_nil(&self) -> bool {
        self.0 == [0; 16]
    }

    /// Finds the uuid in `text` the way O3DE's serializer does; `None` if there is none, or if the
    /// first candidate mixes dashed and undashed groups.
    pub fn find(text: &str) -> Option<Uuid> {
        let b = text.as_bytes();
        let mut from = 0;
        while let Some(offset) = b[from..].iter().position(|&c| c == b'{') {
            let start = from + offset;
            if let Some((uuid, dashes)) = match_braced(&b[start..]) {
                // The regex allows each dash to be missing; the parser then wants all or none.
                return (dashes == 0 || dashes == 4).then_some(uuid);
            }
            from = start + 1;
        }
        None
    }
}

/// Matches `{8-4-4-4-12}` hex digits (each dash optional) at the start of `b`.
fn match_braced(b: &[u8]) -> Option<(Uuid, usize)> {
    let mut i = 1;
    let mut bytes = [0u8; 16];
    let mut dashes = 0;
    let mut digit = 0;
    for (group, len) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if group > 0 && b.get(i) == Some(&b'-') {
            dashes += 1;
            i += 1;
        }
        for _ in 0..len {
            let v = (*b.get(i)? as char).to_digit(16)? as u8;
            bytes[digit / 2] |= if digit % 2 == 0 { v << 4 } else { v };
            digit += 1;
            i += 1;
        }
    }
    (b.get(i) == Some(&b'}')).then_some((Uuid(bytes), dashes))
}

impl FromStr for Uuid {
    type Err = ParseUuidError;

    fn from_str(s: &str) -> Result<Uuid, ParseUuidError> {
        Uuid::find(s).ok_or(ParseUuidError(()))
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "{{{:02X}{:02X}{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}}}",
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
        )
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

#[cfg(feature = "uuid")]
impl From<uuid::Uuid> for Uuid {
    fn from(u: uuid::Uuid) -> Self {
        Uuid(*u.as_bytes())
    }
}

#[cfg(feature = "uuid")]
impl From<Uuid> for uuid::Uuid {
    fn from(u: Uuid) -> Self {
        uuid::Uuid::from_bytes(u.0)
    }
}

impl Native for Uuid {
    const NAME: &'static str = "$serde_o3de::Native::Uuid";
    const WHAT: &'static str = "a uuid";

    fn load(&mut self, input: &Input<'_>) -> Loaded {
        let text = match input {
            Input::Other(Json::Str(s)) => s.as_str(),
            Input::Other(Json::Obj(m)) if m.is_empty() => {
                *self = Uuid::NIL;
                return Loaded::new(Outcome::DefaultsUsed, "Null uuid used for an explicit default");
            }
            Input::Other(j) => {
                return Loaded::new(Outcome::Unsupported, format!("a uuid can't be read from {}", j.kind()));
            }
            Input::Array(_) => return Loaded::new(Outcome::Unsupported, "a uuid can't be read from an array"),
        };
        match Uuid::find(text) {
            Some(uuid) if uuid.is_nil() => {
                *self = uuid;
                Loaded::new(Outcome::DefaultsUsed, "Null uuid loaded")
            }
            Some(uuid) => {
                *self = uuid;
                Loaded::new(Outcome::Success, "Uuid loaded")
            }
            None => Loaded::new(
                Outcome::Unsupported,
                format!("no {{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}} uuid in \"{}\"", crate::coerce::clip(text)),
            ),
        }
    }
}

super::native_deserialize!(Uuid);

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(<Uuid as Native>::NAME, &self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_braced_uuid() {
        let dashed: Uuid = "{8651B6DA-9792-407C-A46D-A6E2E39CA900}".parse().unwrap();
        assert_eq!(dashed.to_string(), "{8651B6DA-9792-407C-A46D-A6E2E39CA900}");
        assert_eq!(Uuid::find("{8651b6da9792407ca46da6e2e39ca900}"), Some(dashed));
        assert_eq!(Uuid::find("Hello{8651B6DA-9792-407C-A46D-A6E2E39CA900}world"), Some(dashed));
        assert_eq!(Uuid::find("{ {8651B6DA-9792-407C-A46D-A6E2E39CA900}"), Some(dashed));
        assert_eq!(Uuid::find("{51CD2896-A963-4CA1-AE9039AEBDA72364}"), None);
        assert_eq!(Uuid::find("8651B6DA-9792-407C-A46D-A6E2E39CA900"), None);
        assert_eq!(Uuid::find("{8651B6DA-9792-407C-A46D-AXXX39CA900}"), None);
        assert!(Uuid::find(NIL_TEXT).unwrap().is_nil());
    }
}
