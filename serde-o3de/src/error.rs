//! The one error type of the crate.

use std::fmt::{self, Display};
use std::io;

use crate::report::{Outcome, ResultCode, Task};

/// `Result<T, serde_o3de::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// An error of a load or store: a [`Category`], for data errors O3DE's [`Outcome`], the JSON Pointer
/// path of the value it happened at, and for text input the byte offset, line and column.
///
/// One pointer wide (the details are boxed), like `serde_json::Error`.
pub struct Error(Box<Inner>);

struct Inner {
    code: Code,
    path: Option<String>,
    position: Option<Position>,
}

#[derive(Clone, Copy)]
struct Position {
    offset: usize,
    line: usize,
    column: usize,
}

/// What kind of error this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Category {
    /// The input is not valid JSON (or not valid UTF-8).
    Syntax,
    /// The input ended in the middle of a value.
    Eof,
    /// Nesting deeper than [`Options::max_depth`](crate::Options::max_depth).
    Depth,
    /// Valid JSON that cannot be loaded: a halting O3DE outcome (see [`Error::outcome`]).
    Data,
    /// A value that cannot be stored.
    Store,
    /// Reading or writing failed.
    Io,
    /// A resource limit of this crate was reached (e.g. [`PatchLimits`](crate::prefab::PatchLimits));
    /// the message names the limit.
    Limit,
}

pub(crate) enum Code {
    /// A syntax error with its message.
    Syntax(&'static str),
    /// Unexpected end of input.
    Eof,
    /// Depth limit exceeded.
    Depth(usize),
    /// A halting outcome with a message.
    Halt(ResultCode, String),
    /// An error a visitor raised (`de::Error::custom`, `invalid_type`, …): O3DE would skip the
    /// value (Unsupported).
    Visitor(String),
    /// `de::Error::missing_field`.
    MissingField(&'static str),
    /// `de::Error::duplicate_field`.
    DuplicateField(&'static str),
    /// A store error.
    Store(String),
    /// An I/O error.
    Io(io::Error),
    /// A resource limit, with a message naming it.
    Limit(String),
    /// Internal: the current pass must stop; the loader runs the document again with what it learnt.
    Restart,
}

impl Error {
    pub(crate) fn new(code: Code) -> Error {
        Error(Box::new(Inner { code, path: None, position: None }))
    }

    pub(crate) fn syntax(message: &'static str) -> Error {
        Error::new(Code::Syntax(message))
    }

    pub(crate) fn halt(result: ResultCode, message: impl Into<String>) -> Error {
        Error::new(Code::Halt(result, message.into()))
    }

    pub(crate) fn data(outcome: Outcome, message: impl Into<String>) -> Error {
        Error::halt(ResultCode::new(Task::Convert, outcome), message)
    }

    pub(crate) fn store(message: impl Into<String>) -> Error {
        Error::new(Code::Store(message.into()))
    }

    pub(crate) fn limit(message: impl Into<String>) -> Error {
        Error::new(Code::Limit(message.into()))
    }

    pub(crate) fn restart() -> Error {
        Error::new(Code::Restart)
    }

    pub(crate) fn code(&self) -> &Code {
        &self.0.code
    }

    pub(crate) fn is_restart(&self) -> bool {
        matches!(self.0.code, Code::Restart)
    }

    /// A visitor-raised error that O3DE treats as a skipped value (Unsupported).
    pub(crate) fn is_soft(&self) -> bool {
        matches!(self.0.code, Code::Visitor(_))
    }

    pub(crate) fn message(&self) -> String {
        match &self.0.code {
            Code::Syntax(m) => (*m).to_owned(),
            Code::Eof => "unexpected end of input".to_owned(),
            Code::Depth(d) => format!("nesting deeper than the depth limit ({d})"),
            Code::Halt(_, m) | Code::Visitor(m) | Code::Store(m) | Code::Limit(m) => m.clone(),
            Code::MissingField(f) => format!("missing field `{f}` (give the struct #[serde(default)])"),
            Code::DuplicateField(f) => format!("duplicate field `{f}`"),
            Code::Io(e) => e.to_string(),
            Code::Restart => "internal restart".to_owned(),
        }
    }

    pub(crate) fn with_path(mut self, path: String) -> Error {
        if self.0.path.is_none() {
            self.0.path = Some(path);
        }
        self
    }

    pub(crate) fn has_position(&self) -> bool {
        self.0.position.is_some()
    }

    /// Attaches the byte offset and computes line and column from `input`.
    pub(crate) fn at(mut self, input: &[u8], offset: usize) -> Error {
        if self.0.position.is_none() {
            let offset = offset.min(input.len());
            let before = &input[..offset];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
            self.0.position = Some(Position { offset, line, column });
        }
        self
    }

    /// The category.
    pub fn category(&self) -> Category {
        match &self.0.code {
            Code::Syntax(_) => Category::Syntax,
            Code::Eof => Category::Eof,
            Code::Depth(_) => Category::Depth,
            Code::Store(_) => Category::Store,
            Code::Io(_) => Category::Io,
            Code::Limit(_) => Category::Limit,
            Code::Halt(..) | Code::Visitor(_) | Code::MissingField(_) | Code::DuplicateField(_) | Code::Restart => {
                Category::Data
            }
        }
    }

    /// The O3DE result code of a data error: the halting outcome (TypeMismatch, Missing, Invalid,
    /// Unknown, Catastrophic, or whatever a callback returned), or Unsupported for a value that could
    /// not be converted where no default could stand in for it.
    pub fn result_code(&self) -> Option<ResultCode> {
        match &self.0.code {
            Code::Halt(code, _) => Some(*code),
            Code::Visitor(_) | Code::DuplicateField(_) => Some(ResultCode::new(Task::Convert, Outcome::Unsupported)),
            Code::MissingField(_) => Some(ResultCode::new(Task::ReadField, Outcome::Missing)),
            _ => None,
        }
    }

    /// The O3DE outcome of a data error (see [`result_code`](Self::result_code)).
    pub fn outcome(&self) -> Option<Outcome> {
        self.result_code().map(ResultCode::outcome)
    }

    /// The JSON Pointer path of the value the error happened at (`""` is the root), when known.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// The byte offset in the input, for errors of text input.
    pub fn offset(&self) -> Option<usize> {
        self.0.position.map(|p| p.offset)
    }

    /// The 1-based line, for errors of text input.
    pub fn line(&self) -> Option<usize> {
        self.0.position.map(|p| p.line)
    }

    /// The 1-based column (in bytes), for errors of text input.
    pub fn column(&self) -> Option<usize> {
        self.0.position.map(|p| p.column)
    }

    /// Whether this is a syntax error.
    pub fn is_syntax(&self) -> bool {
        self.category() == Category::Syntax
    }

    /// Whether the input ended early.
    pub fn is_eof(&self) -> bool {
        self.category() == Category::Eof
    }

    /// Whether this is a data error.
    pub fn is_data(&self) -> bool {
        self.category() == Category::Data
    }

    /// Whether a resource limit was reached ([`Category::Limit`]).
    pub fn is_limit(&self) -> bool {
        self.category() == Category::Limit
    }

    /// Whether this is an I/O error.
    pub fn is_io(&self) -> bool {
        self.category() == Category::Io
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(outcome) = self.outcome() {
            write!(f, "{outcome}: ")?;
        }
        f.write_str(&self.message())?;
        match self.0.path.as_deref() {
            Some("") => f.write_str(" at the root")?,
            Some(path) => write!(f, " at {path}")?,
            None => {}
        }
        if let Some(p) = self.0.position {
            write!(f, " (line {}, column {})", p.line, p.column)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.code {
            Code::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::new(Code::Io(e))
    }
}

impl serde_core::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(Code::Visitor(msg.to_string()))
    }

    fn missing_field(field: &'static str) -> Self {
        Error::new(Code::MissingField(field))
    }

    fn duplicate_field(field: &'static str) -> Self {
        Error::new(Code::DuplicateField(field))
    }
}

impl serde_core::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::store(msg.to_string())
    }
}
