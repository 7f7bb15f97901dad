//! O3DE's result model: [`ResultCode`] (task, processing, outcome), the `Combine` rules, and the
//! [`Report`] of a load or store with every [`Issue`] and its path.
//!
//! A result code packs three fields into 32 bits the way `AZ::JsonSerializationResult::ResultCode`
//! does (task in the low byte, processing in the next, outcome in the high 16 bits), so comparing the
//! raw codes compares severity: outcome first, then processing, then task.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// What the serializer was doing when it produced a result (`JsonSerializationResult::Tasks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Task {
    /// Looking up type information (e.g. resolving `$type`).
    RetrieveInfo = 1,
    /// Creating a default instance.
    CreateDefault,
    /// Converting a JSON value to the target type.
    Convert,
    /// Clearing a container.
    Clear,
    /// Reading a field or element.
    ReadField,
    /// Writing a value (store).
    WriteValue,
    /// Merging documents.
    Merge,
    /// Creating a patch.
    CreatePatch,
    /// Importing a file.
    Import,
}

/// How processing continued after a result (`JsonSerializationResult::Processing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Processing {
    /// Everything was processed.
    Completed = 1,
    /// The value was skipped (left as it was) and processing continued.
    Altered,
    /// Some values were skipped and processing continued.
    PartialAlter,
    /// Processing stopped.
    Halted,
}

/// What happened, from least to most severe (`JsonSerializationResult::Outcomes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u16)]
pub enum Outcome {
    /// The value was fully processed.
    Success = 1,
    /// A JSON member was not used (e.g. an unknown field).
    Skipped,
    /// Some values were processed and some skipped.
    PartialSkip,
    /// The default was used (an explicit `{}`, an empty string or array, a nil uuid, no fields).
    DefaultsUsed,
    /// Some values were loaded and others kept their defaults.
    PartialDefaults,
    /// The value is not available (e.g. a map entry that failed); it was skipped.
    Unavailable,
    /// The JSON cannot be converted to the target type; the target keeps its value.
    Unsupported,
    /// The JSON names a type that does not fit the target.
    TypeMismatch,
    /// A test operation failed.
    TestFailed,
    /// Required information is missing.
    Missing,
    /// The input is invalid for the target.
    Invalid,
    /// The JSON names an unknown type.
    Unknown,
    /// Processing must stop entirely.
    Catastrophic,
}

impl Outcome {
    /// Every outcome, least severe first.
    pub const ALL: [Outcome; 13] = [
        Outcome::Success,
        Outcome::Skipped,
        Outcome::PartialSkip,
        Outcome::DefaultsUsed,
        Outcome::PartialDefaults,
        Outcome::Unavailable,
        Outcome::Unsupported,
        Outcome::TypeMismatch,
        Outcome::TestFailed,
        Outcome::Missing,
        Outcome::Invalid,
        Outcome::Unknown,
        Outcome::Catastrophic,
    ];

    /// The processing value O3DE attaches to this outcome: Completed up to PartialDefaults,
    /// Altered for Unavailable and Unsupported, Halted from TypeMismatch on.
    pub const fn processing(self) -> Processing {
        match self {
            Outcome::Success
            | Outcome::Skipped
            | Outcome::PartialSkip
            | Outcome::DefaultsUsed
            | Outcome::PartialDefaults => Processing::Completed,
            Outcome::Unavailable | Outcome::Unsupported => Processing::Altered,
            _ => Processing::Halted,
        }
    }

    /// O3DE's name of the outcome.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Success => "Success",
            Outcome::Skipped => "Skipped",
            Outcome::PartialSkip => "PartialSkip",
            Outcome::DefaultsUsed => "DefaultsUsed",
            Outcome::PartialDefaults => "PartialDefaults",
            Outcome::Unavailable => "Unavailable",
            Outcome::Unsupported => "Unsupported",
            Outcome::TypeMismatch => "TypeMismatch",
            Outcome::TestFailed => "TestFailed",
            Outcome::Missing => "Missing",
            Outcome::Invalid => "Invalid",
            Outcome::Unknown => "Unknown",
            Outcome::Catastrophic => "Catastrophic",
        }
    }

    fn from_raw(raw: u16) -> Option<Outcome> {
        Outcome::ALL.get(usize::from(raw).wrapping_sub(1)).copied()
    }
}

impl Task {
    /// Every task, in O3DE's order.
    pub const ALL: [Task; 9] = [
        Task::RetrieveInfo,
        Task::CreateDefault,
        Task::Convert,
        Task::Clear,
        Task::ReadField,
        Task::WriteValue,
        Task::Merge,
        Task::CreatePatch,
        Task::Import,
    ];

    /// O3DE's name of the task.
    pub const fn name(self) -> &'static str {
        match self {
            Task::RetrieveInfo => "RetrieveInfo",
            Task::CreateDefault => "CreateDefault",
            Task::Convert => "Convert",
            Task::Clear => "Clear",
            Task::ReadField => "ReadField",
            Task::WriteValue => "WriteValue",
            Task::Merge => "Merge",
            Task::CreatePatch => "CreatePatch",
            Task::Import => "Import",
        }
    }

    fn from_raw(raw: u8) -> Option<Task> {
        Task::ALL.get(usize::from(raw).wrapping_sub(1)).copied()
    }
}

impl Processing {
    /// O3DE's name of the processing value.
    pub const fn name(self) -> &'static str {
        match self {
            Processing::Completed => "Completed",
            Processing::Altered => "Altered",
            Processing::PartialAlter => "PartialAlter",
            Processing::Halted => "Halted",
        }
    }

    fn from_raw(raw: u8) -> Option<Processing> {
        match raw {
            1 => Some(Processing::Completed),
            2 => Some(Processing::Altered),
            3 => Some(Processing::PartialAlter),
            4 => Some(Processing::Halted),
            _ => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Processing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A packed result: task, processing and outcome (`JsonSerializationResult::ResultCode`).
///
/// The default value is *unset* (all zero): its [`outcome`](Self::outcome) reads as
/// [`Outcome::DefaultsUsed`] and its [`processing`](Self::processing) as [`Processing::Completed`],
/// as in O3DE.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ResultCode(u32);

impl ResultCode {
    /// The unset code.
    pub const UNSET: ResultCode = ResultCode(0);

    /// A code for `outcome` during `task`, with the processing value the outcome implies.
    pub const fn new(task: Task, outcome: Outcome) -> ResultCode {
        ResultCode::with_processing(task, outcome.processing(), outcome)
    }

    /// A code with all three fields given explicitly.
    pub const fn with_processing(task: Task, processing: Processing, outcome: Outcome) -> ResultCode {
        ResultCode(task as u32 | (processing as u32) << 8 | (outcome as u32) << 16)
    }

    /// The code from its raw 32-bit representation (as O3DE stores it).
    pub const fn from_raw(raw: u32) -> ResultCode {
        ResultCode(raw)
    }

    /// The raw 32-bit representation: comparing raw codes compares severity.
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// Whether no field is set.
    pub const fn is_unset(self) -> bool {
        self.0 == 0
    }

    /// The task, if set.
    pub fn task(self) -> Option<Task> {
        Task::from_raw(self.0 as u8)
    }

    /// The processing value; unset reads as [`Processing::Completed`].
    pub fn processing(self) -> Processing {
        Processing::from_raw((self.0 >> 8) as u8).unwrap_or(Processing::Completed)
    }

    /// The outcome; unset reads as [`Outcome::DefaultsUsed`].
    pub fn outcome(self) -> Outcome {
        Outcome::from_raw((self.0 >> 16) as u16).unwrap_or(Outcome::DefaultsUsed)
    }

    /// Whether processing stopped ([`Processing::Halted`]).
    pub fn is_halted(self) -> bool {
        self.processing() == Processing::Halted
    }

    /// O3DE's `ResultCode::Combine`: the more severe code wins; Success with DefaultsUsed gives
    /// PartialDefaults, Success with Skipped gives PartialSkip, and Completed with Altered gives
    /// PartialAlter.
    #[must_use]
    #[inline]
    pub fn combine(self, other: ResultCode) -> ResultCode {
        let mut result = if self.0 >= other.0 { self } else { other };
        let (a, b) = ((self.0 >> 16) as u16, (other.0 >> 16) as u16);
        let pair = |x: Outcome, y: Outcome| (a == x as u16 && b == y as u16) || (a == y as u16 && b == x as u16);
        if pair(Outcome::Success, Outcome::DefaultsUsed) {
            result = result.set_outcome(Outcome::PartialDefaults);
        } else if pair(Outcome::Success, Outcome::Skipped) {
            result = result.set_outcome(Outcome::PartialSkip);
        }
        let (p, q) = ((self.0 >> 8) as u8, (other.0 >> 8) as u8);
        let completed = Processing::Completed as u8;
        let altered = Processing::Altered as u8;
        if (p == completed && q == altered) || (p == altered && q == completed) {
            result = result.set_processing(Processing::PartialAlter);
        }
        result
    }

    /// Combines `other` into `self` in place.
    #[inline]
    pub fn combine_with(&mut self, other: ResultCode) {
        *self = self.combine(other);
    }

    const fn set_outcome(self, outcome: Outcome) -> ResultCode {
        ResultCode(self.0 & 0xFFFF | (outcome as u32) << 16)
    }

    const fn set_processing(self, processing: Processing) -> ResultCode {
        ResultCode(self.0 & 0xFFFF_00FF | (processing as u32) << 8)
    }
}

impl From<Outcome> for ResultCode {
    /// The outcome during [`Task::Convert`].
    fn from(outcome: Outcome) -> Self {
        ResultCode::new(Task::Convert, outcome)
    }
}

impl fmt::Debug for ResultCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ResultCode({self})")
    }
}

impl fmt::Display for ResultCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unset() {
            return f.write_str("unset");
        }
        match self.task() {
            Some(task) => write!(f, "{task}/{}/{}", self.processing(), self.outcome()),
            None => write!(f, "{}/{}", self.processing(), self.outcome()),
        }
    }
}

/// Where an [`Issue`] happened: a JSON Pointer (`/Components/Component_[1]/Id`, the root is `""`).
///
/// The issues of one load share their paths: a path is a link to its last segment, which links to
/// its parent, so a thousand issues under one long member name hold that name once. The text is
/// rendered when first asked for ([`as_str`](Self::as_str), [`Display`](fmt::Display), comparisons)
/// and then kept.
#[derive(Clone, Default)]
pub struct IssuePath {
    node: Option<Arc<PathNode>>,
    text: OnceLock<Box<str>>,
}

/// One segment of a shared path and its parent.
#[derive(Debug)]
pub(crate) struct PathNode {
    parent: Option<Arc<PathNode>>,
    segment: PathSegment,
}

#[derive(Debug)]
pub(crate) enum PathSegment {
    Key(Box<str>),
    Index(usize),
}

impl Drop for PathNode {
    /// Unlinks the chain iteratively: a path as deep as the depth limit allows never recurses.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(node) = next {
            next = match Arc::try_unwrap(node) {
                Ok(mut node) => node.parent.take(),
                Err(_) => None,
            };
        }
    }
}

impl IssuePath {
    /// The root (`""`).
    pub fn root() -> IssuePath {
        IssuePath::default()
    }

    /// The path one segment below `parent`.
    pub(crate) fn child(parent: &IssuePath, segment: PathSegment) -> IssuePath {
        IssuePath { node: Some(Arc::new(PathNode { parent: parent.node.clone(), segment })), text: OnceLock::new() }
    }

    /// The same path without its rendered text (which a report does not keep for every issue).
    pub(crate) fn shared(&self) -> IssuePath {
        match &self.node {
            Some(node) => IssuePath { node: Some(node.clone()), text: OnceLock::new() },
            None => self.clone(),
        }
    }

    /// The JSON Pointer text (rendered once, then kept).
    pub fn as_str(&self) -> &str {
        self.text.get_or_init(|| {
            let mut segments = Vec::new();
            let mut node = self.node.as_deref();
            while let Some(n) = node {
                segments.push(&n.segment);
                node = n.parent.as_deref();
            }
            let mut out = String::new();
            for segment in segments.iter().rev() {
                match segment {
                    PathSegment::Key(k) => push_pointer_token(&mut out, k),
                    PathSegment::Index(i) => {
                        out.push('/');
                        out.push_str(itoa::Buffer::new().format(*i));
                    }
                }
            }
            out.into_boxed_str()
        })
    }

    /// Whether this is the root (`""`).
    pub fn is_empty(&self) -> bool {
        self.as_str().is_empty()
    }
}

impl From<&str> for IssuePath {
    /// A path given as JSON Pointer text.
    fn from(text: &str) -> Self {
        IssuePath { node: None, text: OnceLock::from(Box::from(text)) }
    }
}

impl From<String> for IssuePath {
    fn from(text: String) -> Self {
        IssuePath { node: None, text: OnceLock::from(text.into_boxed_str()) }
    }
}

impl From<IssuePath> for String {
    fn from(path: IssuePath) -> String {
        path.as_str().to_owned()
    }
}

impl fmt::Display for IssuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for IssuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for IssuePath {
    fn eq(&self, other: &IssuePath) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for IssuePath {}

impl PartialEq<str> for IssuePath {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for IssuePath {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for IssuePath {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl std::hash::Hash for IssuePath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

/// One reported event of a load or store: its result code, where it happened and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// The result code (after the callback, if one replaced it).
    pub result: ResultCode,
    /// Where: a JSON Pointer (`/Components/Component_[1]/Id`, root = `""`).
    pub path: IssuePath,
    /// A human-readable explanation.
    pub message: String,
}

impl Issue {
    /// The issue's outcome.
    pub fn outcome(&self) -> Outcome {
        self.result.outcome()
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "(root)" } else { self.path.as_str() };
        write!(f, "{path}: {} ({}): {}", self.result.outcome(), self.result.processing(), self.message)
    }
}

/// The result of a load: the combined [`ResultCode`] and its issues, in document order.
///
/// Issues are the events O3DE reports with a non-Success outcome at a single value: unknown fields
/// (Skipped), explicit defaults (DefaultsUsed), partially loaded values (PartialDefaults), values that
/// could not be converted (Unsupported) and dropped container entries (Unavailable). Aggregate
/// results (a class with some fields absent is PartialDefaults) only enter [`Report::result`].
///
/// A report keeps at most [`Options::max_issues`](crate::Options::max_issues) issues
/// ([`DEFAULT_MAX_ISSUES`](crate::DEFAULT_MAX_ISSUES) by default): the first ones met. The rest
/// still count in [`result`](Self::result) (and a callback still sees each of them); how many
/// were left out is [`omitted`](Self::omitted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The combined result of the whole operation (over every issue, kept or not).
    pub result: ResultCode,
    /// The issues, in the order they were met (at most the cap of the load).
    pub issues: Vec<Issue>,
    /// How many issues were met beyond the cap and left out of [`issues`](Self::issues).
    pub omitted: usize,
}

impl Report {
    /// The combined outcome.
    pub fn outcome(&self) -> Outcome {
        self.result.outcome()
    }

    /// The combined processing value.
    pub fn processing(&self) -> Processing {
        self.result.processing()
    }

    /// Whether everything was loaded or stored without skipping a value (processing Completed).
    pub fn is_complete(&self) -> bool {
        self.result.processing() == Processing::Completed
    }

    /// How many issues the load met: those kept in [`issues`](Self::issues) and those
    /// [`omitted`](Self::omitted).
    pub fn total_issues(&self) -> usize {
        self.issues.len().saturating_add(self.omitted)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.result)?;
        for issue in &self.issues {
            write!(f, "\n  {issue}")?;
        }
        if self.omitted > 0 {
            write!(f, "\n  ... and {} more issues (the report keeps the first {})", self.omitted, self.issues.len())?;
        }
        Ok(())
    }
}

/// Escapes one JSON Pointer reference token (`~` as `~0`, `/` as `~1`) onto `out`.
pub(crate) fn push_pointer_token(out: &mut String, token: &str) {
    out.push('/');
    if !token.contains(['~', '/']) {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(o: Outcome) -> ResultCode {
        ResultCode::new(Task::Convert, o)
    }

    #[test]
    fn layout_orders_by_outcome_then_processing_then_task() {
        let a = ResultCode::new(Task::Import, Outcome::Success);
        let b = ResultCode::new(Task::RetrieveInfo, Outcome::Skipped);
        assert!(b > a);
        assert_eq!(a.raw(), 9 | 1 << 8 | 1 << 16);
        assert_eq!(b.task(), Some(Task::RetrieveInfo));
        assert_eq!(b.processing(), Processing::Completed);
    }

    #[test]
    fn unset_reads_as_defaults_used_and_completed() {
        assert_eq!(ResultCode::UNSET.outcome(), Outcome::DefaultsUsed);
        assert_eq!(ResultCode::UNSET.processing(), Processing::Completed);
        assert_eq!(ResultCode::UNSET.task(), None);
    }

    #[test]
    fn combine_special_pairs() {
        let s = code(Outcome::Success);
        assert_eq!(s.combine(code(Outcome::DefaultsUsed)).outcome(), Outcome::PartialDefaults);
        assert_eq!(code(Outcome::DefaultsUsed).combine(s).outcome(), Outcome::PartialDefaults);
        assert_eq!(s.combine(code(Outcome::Skipped)).outcome(), Outcome::PartialSkip);
        let altered = s.combine(code(Outcome::Unsupported));
        assert_eq!(altered.outcome(), Outcome::Unsupported);
        assert_eq!(altered.processing(), Processing::PartialAlter);
        let halted = altered.combine(code(Outcome::Unknown));
        assert_eq!(halted.processing(), Processing::Halted);
        assert_eq!(halted.outcome(), Outcome::Unknown);
        assert_eq!(ResultCode::UNSET.combine(s), s);
    }

    #[test]
    fn every_outcome_implies_its_processing() {
        for o in Outcome::ALL {
            let c = code(o);
            assert_eq!(c.outcome(), o);
            assert_eq!(c.processing(), o.processing());
        }
        assert!(code(Outcome::TypeMismatch).is_halted());
        assert!(!code(Outcome::Unsupported).is_halted());
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        let mut s = String::new();
        push_pointer_token(&mut s, "a/b~c");
        push_pointer_token(&mut s, "Transform Data");
        assert_eq!(s, "/a~1b~0c/Transform Data");
    }
}
