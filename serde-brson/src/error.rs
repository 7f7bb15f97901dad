//! The one error type of the crate: a kind, a position, a message and, for decoding, the field path.

use std::fmt;
use std::io;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, for matching. The [`Display`](fmt::Display) text of the [`Error`] has the
/// details (sizes, limits, the key that failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing the underlying stream failed.
    Io,
    /// The input ended in the middle of the header, a varint, a chunk or a stream.
    UnexpectedEof,
    /// The file has no `FrDT` header and no extension hint says which codec a legacy file uses.
    MissingHeader,
    /// The header's version is newer than this format version (the engine only knows version 0).
    UnsupportedVersion,
    /// The header names a compression kind the engine does not know.
    UnknownCompression,
    /// Kind 0 (uncompressed BSON) without [`Options::allow_uncompressed`](crate::Options::allow_uncompressed).
    UncompressedNotAllowed,
    /// The header's compression kind disagrees with the file extension (the engine's
    /// `InvalidDataException`).
    ExtensionMismatch,
    /// A malformed LEB128 varint (more than 64 bits).
    InvalidVarint,
    /// A malformed lz4net chunk: bad sizes, multi-pass flags, or an LZ4 block that does not decode
    /// to its declared size.
    Lz4,
    /// A malformed Resonite LZMA body: bad properties, sizes, or LZMA data.
    Lzma,
    /// A malformed Brotli stream.
    Brotli,
    /// Decompressing would exceed [`Options::max_decompressed`](crate::Options::max_decompressed)
    /// or [`Options::max_chunk`](crate::Options::max_chunk), or what decoding builds (the typed
    /// model, [`Payload::to_document`](crate::Payload::to_document), the JSON reader's tree) would
    /// exceed its memory budget ([`Options::model_budget_ratio`](crate::Options::model_budget_ratio)).
    LimitExceeded,
    /// Bytes follow the end of the compressed stream or of the BSON document.
    TrailingBytes,
    /// The decompressed payload is not well-formed BSON (length prefixes, terminators, element
    /// types).
    Bson,
    /// Documents and arrays nest deeper than [`Options::max_depth`](crate::Options::max_depth).
    DepthLimitExceeded,
    /// The BSON is well-formed but does not match the Rust type (serde's `invalid_type`,
    /// `missing_field`, custom errors).
    Data,
    /// A value cannot be represented (e.g. a `u64` above `i64::MAX`, a non-finite float in JSON).
    Unsupported,
    /// JSON text could not be parsed.
    Json,
}

/// Where an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// A byte offset into the file (the container: header, lz4net chunks, LZMA body).
    File(u64),
    /// A byte offset into the decompressed BSON payload.
    Payload(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::File(offset) => write!(f, "file offset {offset}"),
            Position::Payload(offset) => write!(f, "BSON offset {offset}"),
        }
    }
}

/// An error from reading or writing a data tree.
///
/// One pointer wide (the details are boxed), so `Result<T>` stays small. [`kind`](Error::kind)
/// is for matching, [`position`](Error::position) says where in the file or in the BSON payload
/// it happened, and the `Display` text has the details.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    position: Option<Position>,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    /// The field path of a decoding error (empty: none).
    path: String,
    hint: Option<String>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                position: None,
                message: message.into(),
                source: None,
                path: String::new(),
                hint: None,
            }),
        }
    }

    pub(crate) fn at(kind: ErrorKind, position: Position, message: impl Into<String>) -> Self {
        Error::new(kind, message).with_position(position)
    }

    pub(crate) fn file(kind: ErrorKind, offset: u64, message: impl Into<String>) -> Self {
        Error::at(kind, Position::File(offset), message)
    }

    pub(crate) fn payload(kind: ErrorKind, offset: usize, message: impl Into<String>) -> Self {
        Error::at(kind, Position::Payload(offset as u64), message)
    }

    pub(crate) fn with_position(mut self, position: Position) -> Self {
        self.inner.position = Some(position);
        self
    }

    pub(crate) fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.inner.source = Some(Box::new(source));
        self
    }

    pub(crate) fn limit(what: &str, limit: usize, offset: u64) -> Self {
        Error::file(ErrorKind::LimitExceeded, offset, format!("{what} exceeds the limit of {limit} bytes"))
    }

    pub(crate) fn eof(what: &str, offset: u64) -> Self {
        Error::file(ErrorKind::UnexpectedEof, offset, format!("unexpected end of input in {what}"))
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// Where it went wrong, when known.
    pub fn position(&self) -> Option<Position> {
        self.inner.position
    }

    /// Whether the input ended too early (a truncated file).
    pub fn is_eof(&self) -> bool {
        self.inner.kind == ErrorKind::UnexpectedEof
    }

    /// The message without the position.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Where in the decoded value the error happened: struct fields joined by `.`, array elements as
    /// `[3]`, map entries by key as `["key"]`, e.g. `slots[3].components["Transform"].x`. `None` when
    /// the error is not inside a field (the container, the codecs, the root value itself). Also part of
    /// the `Display` text.
    ///
    /// Filled in by the decoding functions ([`from_slice`](crate::from_slice), [`Payload::deserialize`](crate::Payload::deserialize), …),
    /// which find it by decoding a second time, only after a failure; a bare
    /// [`Deserializer`](crate::Deserializer) used directly leaves it out.
    pub fn path(&self) -> Option<&str> {
        (!self.inner.path.is_empty()).then_some(self.inner.path.as_str())
    }

    /// What probably caused the error and what to try, when the decoder can tell: a headerless file
    /// whose extension chose a codec its bytes are not (and the codec they do decode with). Also part
    /// of the `Display` text.
    pub fn hint(&self) -> Option<&str> {
        self.inner.hint.as_deref()
    }

    pub(crate) fn with_hint(mut self, hint: String) -> Self {
        self.inner.hint = Some(hint);
        self
    }

    pub(crate) fn with_path(mut self, path: String) -> Self {
        self.inner.path = path;
        self
    }

    /// Wraps this error in an [`io::Error`] (kind `InvalidData`, or `UnexpectedEof`) so the
    /// codec adapters can return it from `Read`/`Write`; [`Error::from`] unwraps it again.
    pub(crate) fn into_io(self) -> io::Error {
        let kind = match self.kind() {
            ErrorKind::UnexpectedEof => io::ErrorKind::UnexpectedEof,
            ErrorKind::Io => io::ErrorKind::Other,
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, self)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("position", &self.inner.position)
            .field("message", &self.inner.message)
            .field("path", &self.path())
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)?;
        if let Some(position) = self.inner.position {
            write!(f, " at {position}")?;
        }
        if let Some(path) = self.path() {
            write!(f, ", in {path}")?;
        }
        if let Some(hint) = &self.inner.hint {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<io::Error> for Error {
    /// Unwraps an [`Error`] that travelled through an [`io::Error`] (from the codec adapters);
    /// any other I/O error becomes [`ErrorKind::Io`] (or [`ErrorKind::UnexpectedEof`]).
    fn from(error: io::Error) -> Self {
        if error.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            if let Some(inner) = error.into_inner() {
                if let Ok(ours) = inner.downcast::<Error>() {
                    return *ours;
                }
            }
            unreachable!("checked above that the io::Error wraps an Error");
        }
        let kind = if error.kind() == io::ErrorKind::UnexpectedEof { ErrorKind::UnexpectedEof } else { ErrorKind::Io };
        Error::new(kind, error.to_string()).with_source(error)
    }
}

impl From<Error> for io::Error {
    fn from(error: Error) -> Self {
        error.into_io()
    }
}

impl From<bson::error::Error> for Error {
    fn from(error: bson::error::Error) -> Self {
        use bson::error::ErrorKind as B;
        let kind = match &error.kind {
            B::MalformedBytes { .. } | B::EndOfStream { .. } | B::Utf8Encoding { .. } => ErrorKind::Bson,
            B::Io { .. } => ErrorKind::Io,
            B::TooLargeUnsignedInteger { .. } => ErrorKind::Unsupported,
            _ => ErrorKind::Data,
        };
        Error::new(kind, error.to_string()).with_source(error)
    }
}

impl serde_core::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::Data, msg.to_string())
    }
}

impl serde_core::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::Data, msg.to_string())
    }
}
