//! The one error type of the crate: a kind, an optional byte offset into the buffer, a message, the field
//! path of a decoding error and, where the decoder can tell, a hint at the cause.

use std::fmt::{self, Display};

/// `Result<T, serde_flatbuf_lite::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong. Stable categories; the message carries the details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading from an `io::Read` or writing to an `io::Write` failed.
    Io,
    /// A `Serialize`/`Deserialize` implementation reported an error (`serde::ser::Error::custom` and friends),
    /// for example a missing field without a `#[serde(default)]`.
    Message,
    /// The Rust type uses a shape FlatBuffers cannot express (a vector of vectors, a string inside a struct,
    /// a `#[serde(flatten)]` struct, …), or a value exceeds what the layout allows (a table over 64 KiB).
    Unsupported,
    /// An offset, length or field points outside the buffer, or the buffer is shorter than its header.
    OutOfBounds,
    /// A scalar, offset, vtable or vector is not aligned to its size relative to the buffer start.
    Misaligned,
    /// A vtable is malformed: odd length, or outside the buffer.
    InvalidVtable,
    /// A string is not valid UTF-8.
    InvalidUtf8,
    /// A string is not followed by its NUL terminator.
    MissingNulTerminator,
    /// A value does not fit the Rust type (an invalid `char`, an out-of-range enum index, …).
    InvalidValue,
    /// A union's type slot and value slot disagree: a type other than NONE without a value, or a value
    /// without a type. (A value next to a type stored as NONE is ignored, as the official readers do.)
    InconsistentUnion,
    /// More nested tables than the configured depth limit (64 by default, like the official verifiers).
    DepthLimitExceeded,
    /// More tables than the configured limit (1,000,000 by default, like the official verifiers).
    TableLimitExceeded,
    /// The bytes reached while decoding (shared objects counted each time) exceed the configured limit.
    ApparentSizeLimitExceeded,
    /// The buffer is larger than FlatBuffers' 2 GiB maximum.
    BufferTooLarge,
    /// The buffer's file identifier differs from the one configured in [`Options`](crate::Options).
    IdentifierMismatch,
    /// The size prefix disagrees with the length of the buffer.
    SizePrefixMismatch,
    /// A nested FlatBuffers struct whose alignment cannot be known before it is read, decoded through the
    /// low-level [`Deserializer`](crate::Deserializer) instead of [`from_slice`](crate::from_slice) (which
    /// resolves it by tracing the type).
    AmbiguousStructLayout,
    /// A field the FlatBuffers schema makes required is absent: a map entry's string key (flatc makes
    /// `(key)` string fields required).
    MissingRequiredField,
    /// A `.fbs` schema is malformed or refers to something it does not declare (the message starts with
    /// `file:line:column`), or a JSON document does not fit the schema (the message names its position).
    InvalidSchema,
    /// The output slice of a `to_slice` is shorter than the encoded buffer.
    BufferTooSmall,
}

impl ErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Io => "I/O error",
            ErrorKind::Message => "error",
            ErrorKind::Unsupported => "not expressible in FlatBuffers",
            ErrorKind::OutOfBounds => "out of bounds",
            ErrorKind::Misaligned => "misaligned",
            ErrorKind::InvalidVtable => "invalid vtable",
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in string",
            ErrorKind::MissingNulTerminator => "string without NUL terminator",
            ErrorKind::InvalidValue => "invalid value",
            ErrorKind::InconsistentUnion => "inconsistent union",
            ErrorKind::DepthLimitExceeded => "depth limit exceeded",
            ErrorKind::TableLimitExceeded => "table limit exceeded",
            ErrorKind::ApparentSizeLimitExceeded => "apparent size limit exceeded",
            ErrorKind::BufferTooLarge => "buffer larger than 2 GiB",
            ErrorKind::IdentifierMismatch => "file identifier mismatch",
            ErrorKind::SizePrefixMismatch => "size prefix mismatch",
            ErrorKind::AmbiguousStructLayout => "ambiguous struct layout",
            ErrorKind::MissingRequiredField => "missing required field",
            ErrorKind::InvalidSchema => "schema error",
            ErrorKind::BufferTooSmall => "output slice too small",
        }
    }
}

/// The error of every operation in this crate. One pointer wide; see [`Error::kind`] and [`Error::offset`].
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
    message: String,
    source: Option<std::io::Error>,
    /// The field path, built while the error propagates out of nested values (each level prepends its
    /// segment); a leading `.` is dropped when shown.
    path: String,
    hint: Option<String>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: None,
            message: message.into(),
            source: None,
            path: String::new(),
            hint: None,
        }))
    }

    pub(crate) fn at(kind: ErrorKind, offset: usize, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: Some(offset),
            message: message.into(),
            source: None,
            path: String::new(),
            hint: None,
        }))
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Unsupported, message)
    }

    /// Sets the offset unless one is already known.
    pub(crate) fn with_offset(mut self, offset: usize) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    /// The category of the error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The byte offset in the buffer where a decoding error was detected, when known.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The detail message (without the kind and offset).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Where in the decoded value the error happened: table and struct fields joined by `.`, vector
    /// elements as `[3]`, map entries by key (`["gold"]`, `[7]`), e.g. `players[3].pos.x`. `None` when the
    /// error is not inside a field (the buffer's header, the root table itself, encoding).
    ///
    /// The path is assembled while the error travels out of the nested values, so decoding that succeeds
    /// pays nothing for it. Also part of the `Display` text.
    pub fn path(&self) -> Option<&str> {
        let p = self.0.path.strip_prefix('.').unwrap_or(&self.0.path);
        (!p.is_empty()).then_some(p)
    }

    /// What probably caused the error and what to try, when the decoder can tell: a buffer of another root
    /// type (its file identifier differs, or names a schema), or a size-prefixed buffer read without
    /// [`Options::size_prefixed`](crate::Options::size_prefixed). Also part of the `Display` text.
    pub fn hint(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }

    /// Prepends the field `name` to the path.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_field(mut self, name: &str) -> Self {
        let path = &mut self.0.path;
        path.insert_str(0, name);
        path.insert(0, '.');
        self
    }

    /// Prepends the vector element `index` to the path.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_element(mut self, index: usize) -> Self {
        self.0.path.insert_str(0, &format!("[{index}]"));
        self
    }

    /// Prepends a map entry, `segment` being its key already rendered (`"gold"` quoted, `7` bare).
    #[cold]
    #[inline(never)]
    pub(crate) fn in_entry(mut self, segment: &str) -> Self {
        self.0.path.insert_str(0, &format!("[{segment}]"));
        self
    }

    #[cold]
    pub(crate) fn with_hint(mut self, hint: String) -> Self {
        self.0.hint = Some(hint);
        self
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error(Box::new(Inner {
            kind: ErrorKind::Io,
            offset: None,
            message: e.to_string(),
            source: Some(e),
            path: String::new(),
            hint: None,
        }))
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.0;
        if inner.kind == ErrorKind::Message {
            f.write_str(&inner.message)?;
        } else {
            f.write_str(inner.kind.describe())?;
            if !inner.message.is_empty() {
                write!(f, ": {}", inner.message)?;
            }
        }
        if let Some(offset) = inner.offset {
            write!(f, " at byte {offset}")?;
        }
        if let Some(path) = self.path() {
            write!(f, ", in {path}")?;
        }
        if let Some(hint) = &inner.hint {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .field("message", &self.0.message)
            .field("path", &self.path())
            .field("hint", &self.0.hint)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source.as_ref().map(|e| e as _)
    }
}

impl serde_core::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message, msg.to_string())
    }
}

impl serde_core::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message, msg.to_string())
    }
}
