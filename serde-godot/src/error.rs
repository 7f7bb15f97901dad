//! The one error type of the crate, shared by encoding and decoding.

use std::fmt::{self, Display};

use crate::VariantType;

/// `Result<T, serde_godot::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An encoding or decoding error: what went wrong ([`Error::kind`]) and, for decoding, the byte
/// offset in the input where it was detected ([`Error::offset`]), the field path of the value
/// that failed ([`Error::path`], e.g. `players[3].pos.x`) and, where one can be given, a hint
/// ([`Error::hint`], e.g. that the bytes are Godot 3's).
///
/// The error is one pointer wide (the details live in a box), so `Result<T>` stays small on the
/// hot path.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
    /// The field path, built while the error propagates out of nested values (each container
    /// prepends its segment), so decoding that succeeds never builds one.
    path: String,
    hint: Option<&'static str>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a value (Godot: `ERR_INVALID_DATA` / `ERR_FILE_EOF`).
    Eof,
    /// A header names a type id this Godot version does not have (Godot: `ERR_INVALID_DATA`).
    UnknownType(u32),
    /// A string is not valid UTF-8 (Godot: `ERR_INVALID_DATA`).
    InvalidUtf8,
    /// A negative length or count, a NodePath in the pre-3.0 format, a bad container type or
    /// another structurally invalid input.
    InvalidData(&'static str),
    /// A declared length or count is larger than [`Options::max_len`](crate::Options::max_len).
    LengthLimit {
        /// The declared length.
        len: u64,
        /// The configured limit.
        limit: usize,
    },
    /// An encoded value (input or output) is larger than
    /// [`Options::max_size`](crate::Options::max_size).
    SizeLimit {
        /// The size in bytes (or a lower bound when the input was cut off at the limit).
        size: u64,
        /// The configured limit.
        limit: usize,
    },
    /// Values are nested deeper than [`Options::max_depth`](crate::Options::max_depth) (Godot:
    /// "Variant is too deep").
    DepthLimit(usize),
    /// Bytes are left after the value ([`Deserializer::end`](crate::Deserializer::end)).
    TrailingBytes(usize),
    /// A full object on the wire, but [`Options::full_objects`](crate::Options::full_objects) is
    /// off (Godot: `ERR_UNAUTHORIZED`); or a full object to encode with it off.
    FullObjectsDisabled,
    /// A Godot 4 type (or feature) in Godot 3 mode, which Godot 3 peers cannot read.
    UnsupportedInVersion(VariantType),
    /// An integer outside Godot's 64-bit signed `int` (a `u64` above `i64::MAX`, an `i128`...).
    IntegerOutOfRange,
    /// A container, string or packed array with more than `i32::MAX` elements or bytes.
    TooLong(usize),
    /// A value of the wrong Variant type for a typed `Array<T>` / `Dictionary<K, V>` or a
    /// Godot type wrapper.
    WrongType {
        /// The type the container or wrapper declares.
        expected: VariantType,
        /// The type that was found.
        found: VariantType,
    },
    /// A map key that serde-godot cannot use in this position (e.g. a non-string struct key).
    InvalidKey,
    /// An I/O error from the reader or writer.
    Io(std::io::Error),
    /// A message from a `Serialize` or `Deserialize` implementation (serde's `custom`).
    Message(String),
    /// Godot's text form (`text`, `cfg`) could not be read: what was expected; the offset is the
    /// byte in the text.
    Syntax(String),
}

impl Error {
    /// A new error of this kind, without a position.
    #[cold]
    pub fn new(kind: ErrorKind) -> Self {
        Error { inner: Box::new(Inner { kind, offset: None, path: String::new(), hint: None }) }
    }

    #[cold]
    pub(crate) fn at(kind: ErrorKind, offset: usize) -> Self {
        Error { inner: Box::new(Inner { kind, offset: Some(offset), path: String::new(), hint: None }) }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// What went wrong, by value (to take an [`ErrorKind::Io`]'s `io::Error` out).
    pub fn into_kind(self) -> ErrorKind {
        self.inner.kind
    }

    /// The byte offset in the input where a decoding error was detected (the start of the value
    /// that failed, or the position of the bad length or byte); `None` for encoding errors.
    pub fn offset(&self) -> Option<usize> {
        self.inner.offset
    }

    /// The field path of the value that failed to decode, from the top-level value: struct
    /// fields as `.name` (in both struct forms: the Array form gets its names from serde),
    /// Array elements as `[3]`, Dictionary entries as `["key"]` / `[7]`, enum variants as
    /// `.Variant` — e.g. `players[3].pos.x`. `None` when the top-level value itself failed, and
    /// for encoding errors.
    pub fn path(&self) -> Option<&str> {
        let path = self.inner.path.strip_prefix('.').unwrap_or(&self.inner.path);
        (!path.is_empty()).then_some(path)
    }

    /// A hint at the likely cause, where one can be told (e.g. Godot 3 bytes decoded as Godot 4).
    pub fn hint(&self) -> Option<&'static str> {
        self.inner.hint
    }

    /// Prepends a struct field or enum variant `name` to the path.
    #[cold]
    pub(crate) fn in_field(mut self, name: &str) -> Self {
        let path = &mut self.inner.path;
        path.insert_str(0, name);
        path.insert(0, '.');
        self
    }

    /// Prepends an element index or a rendered Dictionary key (`"name"`, `7`) to the path.
    #[cold]
    pub(crate) fn in_index(mut self, index: impl Display) -> Self {
        self.inner.path.insert_str(0, &format!("[{index}]"));
        self
    }

    /// Adds a hint.
    #[cold]
    pub(crate) fn with_hint(mut self, hint: &'static str) -> Self {
        self.inner.hint = Some(hint);
        self
    }

    /// Whether the input ended too early: more bytes might make it decode (useful for framing).
    pub fn is_eof(&self) -> bool {
        matches!(self.inner.kind, ErrorKind::Eof)
    }

    /// Moves a known offset by `by` bytes (errors inside a frame, reported from its start).
    pub(crate) fn shift_offset(mut self, by: usize) -> Self {
        if let Some(offset) = self.inner.offset.as_mut() {
            *offset += by;
        }
        self
    }

    /// Forgets the offset (an error from an intermediate encoding, whose offsets mean nothing to
    /// the caller).
    pub(crate) fn without_offset(mut self) -> Self {
        self.inner.offset = None;
        self
    }

    /// Sets the offset unless one is already known.
    #[cold]
    pub(crate) fn or_at(mut self, offset: usize) -> Self {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }
}

impl Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Eof => f.write_str("unexpected end of input"),
            ErrorKind::UnknownType(id) => write!(f, "unknown Variant type id {id}"),
            ErrorKind::InvalidUtf8 => f.write_str("string is not valid UTF-8"),
            ErrorKind::InvalidData(what) => write!(f, "invalid data: {what}"),
            ErrorKind::LengthLimit { len, limit } => write!(f, "length {len} is above the limit of {limit}"),
            ErrorKind::SizeLimit { size, limit } => {
                write!(f, "encoded value of {size} bytes is above the limit of {limit} bytes")
            }
            ErrorKind::DepthLimit(limit) => write!(f, "values are nested deeper than the limit of {limit}"),
            ErrorKind::TrailingBytes(n) => write!(f, "{n} trailing bytes after the value"),
            ErrorKind::FullObjectsDisabled => {
                f.write_str("full objects are disabled (enable Options::full_objects to allow them)")
            }
            ErrorKind::UnsupportedInVersion(ty) => write!(f, "{ty:?} does not exist in Godot 3"),
            ErrorKind::IntegerOutOfRange => f.write_str("integer does not fit Godot's 64-bit signed int"),
            ErrorKind::TooLong(n) => write!(f, "{n} elements or bytes do not fit Godot's 31-bit lengths"),
            ErrorKind::WrongType { expected, found } => write!(f, "expected a {expected:?}, found a {found:?}"),
            ErrorKind::InvalidKey => f.write_str("invalid map key"),
            ErrorKind::Io(e) => write!(f, "I/O error: {e}"),
            ErrorKind::Message(msg) => f.write_str(msg),
            ErrorKind::Syntax(msg) => write!(f, "syntax error: {msg}"),
        }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.inner.kind, f)?;
        if let Some(offset) = self.inner.offset {
            write!(f, " at byte {offset}")?;
        }
        if let Some(path) = self.path() {
            write!(f, ", in {path}")?;
        }
        if let Some(hint) = self.inner.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("offset", &self.inner.offset)
            .field("path", &self.path())
            .field("hint", &self.inner.hint)
            .finish()
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

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl serde_core::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}

impl serde_core::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}
