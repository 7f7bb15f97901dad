//! bincode's error types: bincode 1.3's `Error = Box<ErrorKind>` and bincode 2's
//! [`EncodeError`] / [`DecodeError`], each with a variant that carries serde-godot's own
//! [`Error`](crate::Error) (kind, byte offset and field path).

use std::fmt;
use std::io;

use crate::error::ErrorKind as GodotKind;

/// bincode 1.3's error: a boxed [`ErrorKind`], so `match *err { ErrorKind::Io(..) => .. }`
/// works as it does with bincode.
pub type Error = Box<ErrorKind>;

/// bincode 1.3's result.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong, with bincode 1.3's variants (so that code matching on them compiles) and one
/// more, [`ErrorKind::Godot`], for everything else serde-godot reports.
///
/// Only [`Io`](ErrorKind::Io), [`SizeLimit`](ErrorKind::SizeLimit) and
/// [`Godot`](ErrorKind::Godot) are produced. A value that ends too early is an `Io` error of kind
/// `UnexpectedEof` (as in bincode, for a slice as for a stream) whose inner error is serde-godot's
/// error with the offset and field path.
#[derive(Debug)]
pub enum ErrorKind {
    /// The reader or writer failed, or the input ended inside a value (`UnexpectedEof`: a closed
    /// connection, a cut message).
    Io(io::Error),
    /// Never produced (serde-godot reports invalid UTF-8 as [`ErrorKind::Godot`]); kept so that
    /// matches written for bincode compile.
    InvalidUtf8Encoding(std::str::Utf8Error),
    /// Never produced (Godot bools are 32-bit words; any non-zero word is `true`, as in Godot).
    InvalidBoolEncoding(u8),
    /// Never produced (a char is a one-character String in Godot).
    InvalidCharEncoding,
    /// Never produced (an unknown enum variant is [`ErrorKind::Godot`]).
    InvalidTagEncoding(usize),
    /// Never produced: Godot Variants describe themselves, so `deserialize_any` works (untagged
    /// enums, `serde_json::Value`...).
    DeserializeAnyNotSupported,
    /// The value is larger than the limit ([`Options::with_limit`](super::Options::with_limit),
    /// or 8 MiB when reading from a stream without a limit).
    SizeLimit,
    /// Never produced: sequences of unknown length are fine (the count is patched at the end).
    SequenceMustHaveLength,
    /// A message from a `Serialize` or `Deserialize` implementation.
    Custom(String),
    /// Any other encoding or decoding error, with its offset and field path.
    Godot(crate::Error),
}

impl ErrorKind {
    /// serde-godot's own error, if there is one (also inside an `Io` error for a cut value).
    pub fn godot_error(&self) -> Option<&crate::Error> {
        match self {
            ErrorKind::Godot(e) => Some(e),
            ErrorKind::Io(e) => e.get_ref().and_then(|inner| inner.downcast_ref::<crate::Error>()),
            _ => None,
        }
    }

    /// The field path of a decoding error (`players[3].pos.x`, see
    /// [`Error::path`](crate::Error::path)); `err.path()` works on the boxed [`Error`] too.
    pub fn path(&self) -> Option<&str> {
        self.godot_error().and_then(crate::Error::path)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(e) => write!(f, "io error: {e}"),
            ErrorKind::InvalidUtf8Encoding(e) => write!(f, "string is not valid utf8: {e}"),
            ErrorKind::InvalidBoolEncoding(b) => write!(f, "invalid u8 while decoding bool, found {b}"),
            ErrorKind::InvalidCharEncoding => f.write_str("char is not valid"),
            ErrorKind::InvalidTagEncoding(tag) => write!(f, "tag for enum is not valid, found {tag}"),
            ErrorKind::DeserializeAnyNotSupported => f.write_str("deserialize_any is not supported"),
            ErrorKind::SizeLimit => f.write_str("the size limit has been reached"),
            ErrorKind::SequenceMustHaveLength => f.write_str("sequences must have a length"),
            ErrorKind::Custom(msg) => f.write_str(msg),
            ErrorKind::Godot(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for ErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Godot(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Box::new(ErrorKind::Io(e))
    }
}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Self {
        Box::new(ErrorKind::from(e))
    }
}

impl From<crate::Error> for ErrorKind {
    fn from(e: crate::Error) -> Self {
        match e.kind() {
            GodotKind::Io(_) => match e.into_kind() {
                GodotKind::Io(io) => ErrorKind::Io(io),
                _ => unreachable!("checked above"),
            },
            GodotKind::Eof => ErrorKind::Io(io::Error::new(io::ErrorKind::UnexpectedEof, e)),
            GodotKind::SizeLimit { .. } => ErrorKind::SizeLimit,
            _ => ErrorKind::Godot(e),
        }
    }
}

impl serde_core::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Box::new(ErrorKind::Custom(msg.to_string()))
    }
}

impl serde_core::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Box::new(ErrorKind::Custom(msg.to_string()))
    }
}

/// bincode 2's encoding error.
#[derive(Debug)]
#[non_exhaustive]
pub enum EncodeError {
    /// The slice given to [`encode_into_slice`](super::serde::encode_into_slice) is too small.
    UnexpectedEnd,
    /// The writer failed.
    Io {
        /// The I/O error.
        inner: io::Error,
        /// Bytes written before it (always 0: the value is written with one `write_all`).
        index: usize,
    },
    /// A message from a `Serialize` implementation.
    OtherString(String),
    /// Any other error, from serde-godot.
    Godot(crate::Error),
}

/// bincode 2's decoding error.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended inside the value: wait for more bytes (TCP framing).
    UnexpectedEnd {
        /// How many more bytes are needed at least (serde-godot does not look ahead: 1).
        additional: usize,
    },
    /// The value is larger than the configuration's limit
    /// ([`with_limit`](super::config::Configuration::with_limit), or 8 MiB on a stream without one).
    LimitExceeded,
    /// The reader failed (`UnexpectedEof`: the connection closed inside or before a value).
    Io {
        /// The I/O error.
        inner: io::Error,
        /// How many more bytes were needed (not tracked: 0).
        additional: usize,
    },
    /// A message from a `Deserialize` implementation.
    OtherString(String),
    /// Any other error, from serde-godot (with its offset and field path).
    Godot(crate::Error),
}

impl EncodeError {
    /// serde-godot's own error, if there is one.
    pub fn godot_error(&self) -> Option<&crate::Error> {
        match self {
            EncodeError::Godot(e) => Some(e),
            _ => None,
        }
    }
}

impl DecodeError {
    /// serde-godot's own error, if there is one.
    pub fn godot_error(&self) -> Option<&crate::Error> {
        match self {
            DecodeError::Godot(e) => Some(e),
            _ => None,
        }
    }

    /// The field path of a decoding error (`players[3].pos.x`, see
    /// [`Error::path`](crate::Error::path)).
    pub fn path(&self) -> Option<&str> {
        self.godot_error().and_then(crate::Error::path)
    }
}

impl From<crate::Error> for EncodeError {
    fn from(e: crate::Error) -> Self {
        match e.kind() {
            GodotKind::Io(_) => match e.into_kind() {
                GodotKind::Io(inner) => EncodeError::Io { inner, index: 0 },
                _ => unreachable!("checked above"),
            },
            GodotKind::Message(_) => match e.into_kind() {
                GodotKind::Message(msg) => EncodeError::OtherString(msg),
                _ => unreachable!("checked above"),
            },
            _ => EncodeError::Godot(e),
        }
    }
}

impl From<crate::Error> for DecodeError {
    fn from(e: crate::Error) -> Self {
        match e.kind() {
            GodotKind::Io(_) => match e.into_kind() {
                GodotKind::Io(inner) => DecodeError::Io { inner, additional: 0 },
                _ => unreachable!("checked above"),
            },
            GodotKind::Eof => DecodeError::UnexpectedEnd { additional: 1 },
            GodotKind::SizeLimit { .. } => DecodeError::LimitExceeded,
            _ => DecodeError::Godot(e),
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::UnexpectedEnd => f.write_str("the output slice is too small"),
            EncodeError::Io { inner, .. } => write!(f, "io error: {inner}"),
            EncodeError::OtherString(msg) => f.write_str(msg),
            EncodeError::Godot(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::UnexpectedEnd { additional } => {
                write!(f, "the input ended inside the value ({additional}+ more bytes needed)")
            }
            DecodeError::LimitExceeded => f.write_str("the value is larger than the configured limit"),
            DecodeError::Io { inner, .. } => write!(f, "io error: {inner}"),
            DecodeError::OtherString(msg) => f.write_str(msg),
            DecodeError::Godot(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for EncodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EncodeError::Io { inner, .. } => Some(inner),
            EncodeError::Godot(e) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Io { inner, .. } => Some(inner),
            DecodeError::Godot(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for EncodeError {
    fn from(inner: io::Error) -> Self {
        EncodeError::Io { inner, index: 0 }
    }
}

impl From<io::Error> for DecodeError {
    fn from(inner: io::Error) -> Self {
        DecodeError::Io { inner, additional: 0 }
    }
}
