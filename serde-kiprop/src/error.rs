//! The one error type of the crate: an [`ErrorKind`] plus, where known, the bit offset in the
//! object stream at which decoding failed and the field path of the value being decoded.

use std::fmt;

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended in the middle of a value.
    Eof,
    /// A type tag that the type list does not know (and skipping is off or impossible).
    UnknownType(u32),
    /// A deep-mode property hash that the class does not have (strict mode).
    UnknownProperty {
        /// The class.
        class: String,
        /// The property tag.
        hash: u32,
    },
    /// A deep-mode property's size field disagrees with the bits its value used.
    PropertySizeMismatch {
        /// The property.
        property: String,
        /// Bits the size field announced.
        expected: u64,
        /// Bits the value used.
        actual: u64,
    },
    /// A deep-mode object's size field disagrees with its properties.
    ObjectSizeMismatch {
        /// The class.
        class: String,
        /// Bits the size field announced.
        expected: u64,
        /// Bits the properties used.
        actual: u64,
    },
    /// The root object is a null pointer (tag 0).
    NullRoot,
    /// A shallow DELTA_ENCODE property is absent although FORBID_DELTA_ENCODE is set.
    MissingDelta(String),
    /// The inflated size differs from the size field.
    DecompressedSizeMismatch {
        /// The size field.
        expected: u64,
        /// What the zlib stream inflated to.
        actual: u64,
    },
    /// The announced or actual decompressed size is above [`Options::max_decompressed_size`](crate::Options::max_decompressed_size).
    DecompressionLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// A dynamic value (such as [`Value`](crate::Value)) would take more memory than the model
    /// budget ([`Options::model_budget`](crate::Options::model_budget) × the object stream's
    /// length + 1 MiB).
    ModelLimit {
        /// The budget in bytes.
        limit: u64,
    },
    /// The zlib stream is corrupt.
    Zlib(String),
    /// Objects or lists nest deeper than [`Options::recursion_limit`](crate::Options::recursion_limit).
    RecursionLimit,
    /// Data follows the root object (more than the final byte's padding).
    TrailingData {
        /// Bits left over.
        bits: u64,
    },
    /// A file does not start with the `BINd` magic.
    BadMagic,
    /// An enum value or name that the property's options do not define.
    UnknownEnumValue {
        /// The property.
        property: String,
        /// The value or name.
        value: String,
    },
    /// Text is not valid UTF-8 / UTF-16 where text is required.
    InvalidText,
    /// A length does not fit its prefix (strings: 65,535 plain / 2^31-1 compact).
    LengthOverflow(usize),
    /// Deep mode needs the exact C++ type of a non-primitive field to compute its hash.
    MissingType {
        /// The class.
        class: String,
        /// The field.
        field: String,
    },
    /// A class name that is neither in the type list nor registered.
    UnknownClass(String),
    /// A Rust field that the class does not have.
    UnknownField {
        /// The class.
        class: String,
        /// The field.
        field: String,
    },
    /// A shallow-mode property that the value did not provide (and that is not DELTA_ENCODE).
    MissingField {
        /// The class.
        class: String,
        /// The property.
        field: String,
    },
    /// A value that the property's type cannot hold (out of range, wrong shape).
    Mismatch {
        /// The property or context.
        field: String,
        /// What was expected.
        expected: String,
    },
    /// Something the serde data model or this format cannot express.
    Unsupported(&'static str),
    /// Conflicting options (e.g. skipping unknown types in shallow mode).
    BadConfig(&'static str),
    /// A type list that cannot be loaded.
    TypeList(String),
    /// Malformed XML in the debug form.
    Xml(String),
    /// The output slice of [`Options::to_slice`](crate::Options::to_slice) is too small.
    BufferTooSmall {
        /// Bytes the encoding needs.
        needed: usize,
        /// Bytes the slice has.
        available: usize,
    },
    /// An I/O error of a reader or writer.
    Io(std::io::Error),
    /// A message from a `Serialize` or `Deserialize` implementation.
    Message(String),
}

/// An error while encoding or decoding; one pointer wide.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    bit: Option<u64>,
    hint: Option<String>,
    /// The field path, built while the error propagates out of nested values (innermost segment
    /// first added, so each level prepends); a leading `.` is dropped when shown.
    path: String,
}

/// `Result<T, serde_kiprop::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of this kind without a position.
    pub fn new(kind: ErrorKind) -> Self {
        Error { inner: Box::new(Inner { kind, bit: None, hint: None, path: String::new() }) }
    }

    pub(crate) fn at(kind: ErrorKind, bit: u64) -> Self {
        Error { inner: Box::new(Inner { kind, bit: Some(bit), hint: None, path: String::new() }) }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The bit offset in the object stream (after framing and decompression), if known.
    pub fn bit_offset(&self) -> Option<u64> {
        self.inner.bit
    }

    /// The byte offset in the object stream (after framing and decompression), if known.
    pub fn offset(&self) -> Option<u64> {
        self.inner.bit.map(|b| b / 8)
    }

    /// What probably caused the error and what to try, when the decoder can tell (for example,
    /// for trailing data: options that differ from the writer's). Part of the `Display` text.
    pub fn hint(&self) -> Option<&str> {
        self.inner.hint.as_deref()
    }

    /// Where in the decoded value the error happened: struct fields (class properties) joined by
    /// `.`, sequence elements as `[3]` and map entries by key as `["key"]` (or `[7]` for a number
    /// key), e.g. `m_players[3].m_pos.x`. `None` when the error is not inside a field (the root
    /// object itself, framing, options, encoding).
    ///
    /// The path is assembled while the error travels out of the nested values, so decoding that
    /// succeeds pays nothing for it. Also part of the `Display` text.
    pub fn path(&self) -> Option<&str> {
        let p = self.inner.path.strip_prefix('.').unwrap_or(&self.inner.path);
        (!p.is_empty()).then_some(p)
    }

    /// Prepends the struct field (property) `name` to the path.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_field(mut self, name: &str) -> Self {
        let path = &mut self.inner.path;
        path.insert_str(0, name);
        path.insert(0, '.');
        self
    }

    /// Prepends the sequence element `index` to the path.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_element(mut self, index: usize) -> Self {
        self.inner.path.insert_str(0, &format!("[{index}]"));
        self
    }

    /// Prepends a map entry to the path: `segment` is the key already rendered (`"key"` quoted,
    /// a number bare).
    #[cold]
    #[inline(never)]
    pub(crate) fn in_entry(mut self, segment: &str) -> Self {
        self.inner.path.insert_str(0, &format!("[{segment}]"));
        self
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.inner.hint = Some(hint.into());
        self
    }

    pub(crate) fn with_pos(mut self, bit: u64) -> Self {
        if self.inner.bit.is_none() {
            self.inner.bit = Some(bit);
        }
        self
    }

    pub(crate) fn mismatch(field: &str, expected: impl Into<String>) -> Self {
        Error::new(ErrorKind::Mismatch { field: field.to_owned(), expected: expected.into() })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Eof => f.write_str("unexpected end of input"),
            ErrorKind::UnknownType(t) => write!(f, "unknown type tag {t} (not in the type list)"),
            ErrorKind::UnknownProperty { class, hash } => write!(f, "unknown property hash {hash} in {class}"),
            ErrorKind::PropertySizeMismatch { property, expected, actual } => {
                write!(f, "property {property} announces {expected} bits but used {actual}")
            }
            ErrorKind::ObjectSizeMismatch { class, expected, actual } => {
                write!(f, "object {class} announces {expected} bits but used {actual}")
            }
            ErrorKind::NullRoot => f.write_str("root object must not be null"),
            ErrorKind::MissingDelta(p) => write!(f, "missing delta value which must be present ({p})"),
            ErrorKind::DecompressedSizeMismatch { expected, actual } => {
                write!(f, "zlib data inflates to {actual} bytes but the size field says {expected}")
            }
            ErrorKind::DecompressionLimit { limit } => write!(f, "decompressed size above the limit of {limit} bytes"),
            ErrorKind::ModelLimit { limit } => write!(
                f,
                "the decoded value would take more than the model budget of {limit} bytes \
                 (Options::model_budget × the object stream's length + 1 MiB)"
            ),
            ErrorKind::Zlib(e) => write!(f, "corrupt zlib stream: {e}"),
            ErrorKind::RecursionLimit => f.write_str("recursion limit exceeded"),
            ErrorKind::TrailingData { bits } => write!(f, "{bits} bits of trailing data after the root object"),
            ErrorKind::BadMagic => f.write_str("missing BINd file magic"),
            ErrorKind::UnknownEnumValue { property, value } => {
                write!(f, "enum property {property} has no option {value:?}")
            }
            ErrorKind::InvalidText => f.write_str("invalid UTF-8/UTF-16 text"),
            ErrorKind::LengthOverflow(n) => write!(f, "length {n} does not fit the length prefix"),
            ErrorKind::MissingType { class, field } => write!(
                f,
                "deep mode needs the C++ type of {class}::{field} (its hash depends on it): \
                 give a type list or a type in the static schema"
            ),
            ErrorKind::UnknownClass(c) => write!(f, "unknown class {c:?} (not in the type list)"),
            ErrorKind::UnknownField { class, field } => write!(f, "{class} has no property {field:?}"),
            ErrorKind::MissingField { class, field } => {
                write!(f, "shallow mode needs {class}::{field} (not DELTA_ENCODE, so it cannot be absent)")
            }
            ErrorKind::Mismatch { field, expected } => write!(f, "{field}: expected {expected}"),
            ErrorKind::Unsupported(what) => write!(f, "unsupported: {what}"),
            ErrorKind::BadConfig(what) => write!(f, "bad configuration: {what}"),
            ErrorKind::TypeList(e) => write!(f, "invalid type list: {e}"),
            ErrorKind::Xml(e) => write!(f, "invalid XML: {e}"),
            ErrorKind::BufferTooSmall { needed, available } => {
                write!(f, "the output slice has {available} bytes but the encoding needs {needed}")
            }
            ErrorKind::Io(e) => write!(f, "I/O error: {e}"),
            ErrorKind::Message(m) => f.write_str(m),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner.bit {
            Some(bit) => write!(f, "{} at byte {} (bit {})", self.inner.kind, bit / 8, bit)?,
            None => write!(f, "{}", self.inner.kind)?,
        }
        if let Some(path) = self.path() {
            write!(f, ", in {path}")?;
        }
        match &self.inner.hint {
            Some(hint) => write!(f, "; {hint}"),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

impl serde_core::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}

impl serde_core::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}
