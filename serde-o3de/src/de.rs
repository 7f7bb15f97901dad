//! Load: a serde `Deserializer` that applies O3DE's rules while it reads.
//!
//! * Scalars go through O3DE's coercions (the crate docs have the table); `{}` means "the default".
//! * Struct fields match case-insensitively, `$type` is skipped on plain structs, unknown fields are
//!   reported as Skipped.
//! * A value that cannot be converted is a *soft* failure (Unsupported): O3DE keeps the field's
//!   current value and goes on. serde's derive builds values from scratch and cannot be told "this
//!   field is absent after all" once it asked for it, so the loader works in passes: the first pass
//!   hands a placeholder (the type's zero value) to the visitor and records where the failure was;
//!   if anything was recorded, the next pass treats those members as absent (so `#[serde(default)]`
//!   gives exactly the value O3DE keeps), drops failed container elements and map entries, and
//!   reports the issues at the same paths. Well-formed documents are read once.
//! * Hard failures (TypeMismatch, Missing, Invalid, Unknown, Catastrophic, a callback that halts,
//!   syntax errors, the depth limit) stop the load with an [`Error`].

use std::collections::HashMap;
use std::rc::Rc;

use serde_core::de::value::{BorrowedStrDeserializer, U32Deserializer};
use serde_core::de::{self, DeserializeSeed, Visitor};

use crate::channel;
use crate::coerce::{self, Coerced, Num, Tok};
use crate::error::{Code, Error, Result};
use crate::markers::{DECLARED_TYPE, NATIVE, POLY, RAW, UNKNOWN_TYPE};
use crate::read::{Peek, Read, Ref, SliceRead, ValueRead};
use crate::report::{Issue, IssuePath, Outcome, PathSegment, Report, ResultCode, Task, push_pointer_token};

/// How many times a document may be read before the loader gives up isolating soft failures.
const MAX_PASSES: u32 = 32;

/// Where the next value sits: decides what `{}` and a failure mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// The document root.
    Root,
    /// A struct field: `{}` and failures keep the field's current value.
    Member,
    /// A sequence element: `{}` is a new default element, a failure drops the element.
    Element,
    /// A map key or value: `{}` is a new default, a failure drops the entry (Unavailable).
    Entry,
    /// The value inside an `Option` or a `$type` object: `{}` is a new default instance.
    Pointee,
}

/// One step of the current path.
enum Seg<'de> {
    Key(&'de str),
    Owned(Box<str>),
    Index(usize),
}

/// What a later pass does at a value that failed in an earlier one.
#[derive(Debug, Clone)]
enum Action {
    /// Treat the member, element or map entry as absent (reporting the issue again).
    Skip(Option<Replay>),
    /// Read nothing; hand the placeholder to the visitor (an error if it is refused).
    Keep(Option<Replay>),
}

/// An issue of an earlier pass, reported again where the later pass meets its value (at the same
/// path, which is therefore not stored).
#[derive(Debug, Clone)]
struct Replay {
    result: ResultCode,
    message: Box<str>,
}

/// Load settings the deserializer needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoadSettings {
    pub(crate) max_depth: usize,
    pub(crate) max_issues: usize,
    pub(crate) strict_doubles: bool,
    pub(crate) relaxed: bool,
}

impl Default for LoadSettings {
    fn default() -> Self {
        LoadSettings {
            max_depth: crate::DEFAULT_MAX_DEPTH,
            max_issues: crate::DEFAULT_MAX_ISSUES,
            strict_doubles: true,
            relaxed: false,
        }
    }
}

/// The members of an object that may be duplicates of one field: (name, ident of the value).
type Candidates = Rc<[(Box<str>, usize)]>;

/// A user callback: sees every issue, returns the result code that replaces it.
pub(crate) type Callback<'cb> = &'cb mut dyn FnMut(&Issue) -> ResultCode;

struct State<'de, 'cb> {
    depth: usize,
    max_depth: usize,
    strict_doubles: bool,
    /// The current path, kept while issues are reported (otherwise an error finds its path in
    /// the input).
    path: Vec<Seg<'de>>,
    /// The shared issue paths of a prefix of `path` (made when an issue needs one).
    chain: Vec<IssuePath>,
    track: bool,
    /// The result of the value just read.
    acc: ResultCode,
    slot: Slot,
    root_ident: usize,
    /// The root value itself could not be loaded (its placeholder stands in).
    root_failed: bool,
    plan: HashMap<usize, Action>,
    /// Struct objects with duplicate members (by the object's ident): for each such field, sorted
    /// by field, the ident of the occurrence that wins (the last). From earlier passes.
    last_plan: HashMap<usize, Rc<[(usize, usize)]>>,
    /// The same, found in this pass.
    last_found: HashMap<usize, Rc<[(usize, usize)]>>,
    /// Objects inside the winning occurrence of a duplicate (which the pass that found it skips)
    /// that give a member name twice, ASCII case aside (by the object's ident): those members'
    /// names and idents, so that the next pass knows the winners of every level at once. Kept
    /// over passes.
    candidates: HashMap<usize, Candidates>,
    found: HashMap<usize, Action>,
    report: bool,
    issues: Vec<Issue>,
    max_issues: usize,
    /// Issues met beyond `max_issues`.
    omitted: usize,
    callback: Option<Callback<'cb>>,
    /// Callback answers of earlier passes, so the callback sees every issue once.
    answers: HashMap<(usize, u32), ResultCode>,
}

const SUCCESS: ResultCode = ResultCode::new(Task::Convert, Outcome::Success);
/// Where a container's result starts: an empty container loads successfully (O3DE's conformity
/// tests), an element that used its default makes it PartialDefaults.
const CONTAINER: ResultCode = ResultCode::new(Task::ReadField, Outcome::Success);

impl<'de, 'cb> State<'de, 'cb> {
    fn new(settings: LoadSettings) -> Self {
        State {
            depth: settings.max_depth,
            max_depth: settings.max_depth,
            strict_doubles: settings.strict_doubles,
            path: Vec::new(),
            chain: Vec::new(),
            track: true,
            acc: ResultCode::UNSET,
            slot: Slot::Root,
            root_ident: usize::MAX,
            root_failed: false,
            plan: HashMap::new(),
            last_plan: HashMap::new(),
            last_found: HashMap::new(),
            candidates: HashMap::new(),
            found: HashMap::new(),
            report: false,
            issues: Vec::new(),
            max_issues: settings.max_issues,
            omitted: 0,
            callback: None,
            answers: HashMap::new(),
        }
    }

    fn render_path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) => push_pointer_token(&mut out, k),
                Seg::Owned(k) => push_pointer_token(&mut out, k),
                Seg::Index(i) => {
                    out.push('/');
                    out.push_str(itoa::Buffer::new().format(*i));
                }
            }
        }
        out
    }

    #[inline]
    fn push(&mut self, seg: Seg<'de>) {
        if self.track {
            self.path.push(seg);
        }
    }

    #[inline]
    fn pop(&mut self) {
        if self.track {
            self.path.pop();
            if self.chain.len() > self.path.len() {
                self.chain.pop();
            }
        }
    }

    /// The current path as a shared [`IssuePath`]: each segment is copied once while it is on
    /// the path, however many issues are reported under it.
    fn issue_path(&mut self) -> IssuePath {
        self.chain.truncate(self.path.len());
        while self.chain.len() < self.path.len() {
            let segment = match &self.path[self.chain.len()] {
                Seg::Key(k) => PathSegment::Key((*k).into()),
                Seg::Owned(k) => PathSegment::Key(k.clone()),
                Seg::Index(i) => PathSegment::Index(*i),
            };
            let child = match self.chain.last() {
                Some(parent) => IssuePath::child(parent, segment),
                None => IssuePath::child(&IssuePath::root(), segment),
            };
            self.chain.push(child);
        }
        self.chain.last().map_or_else(IssuePath::root, IssuePath::shared)
    }

    /// Keeps an issue at the current path in the report, or counts it once the report is full.
    fn record(&mut self, result: ResultCode, message: String) {
        if self.issues.len() < self.max_issues {
            let path = self.issue_path();
            self.issues.push(Issue { result, path, message });
        } else {
            self.omitted = self.omitted.saturating_add(1);
        }
    }

    #[inline]
    fn push_key(&mut self, key: &Ref<'de, '_>) {
        if !self.track {
            return;
        }
        self.path.push(match key {
            Ref::Borrowed(k) => Seg::Key(k),
            Ref::Copied(k) => Seg::Owned((*k).into()),
        });
    }

    /// Reports an issue at the current path: runs the callback (once per issue across passes),
    /// fails if the resulting code halts, records it when reporting.
    fn event(
        &mut self,
        ident: usize,
        code: ResultCode,
        message: &dyn Fn() -> String,
    ) -> Result<(ResultCode, Option<Replay>)> {
        if !self.report && self.callback.is_none() {
            return Ok((code, None));
        }
        let mut message = message();
        let mut result = code;
        if self.callback.is_some() {
            let issue = Issue { result: code, path: self.issue_path(), message };
            if let Some(callback) = self.callback.as_mut() {
                result = *self.answers.entry((ident, code.raw())).or_insert_with(|| callback(&issue));
            }
            message = issue.message;
        }
        if result.is_halted() {
            return Err(Error::halt(result, message).with_path(self.render_path()));
        }
        let replay = Replay { result, message: message.as_str().into() };
        if self.report {
            self.record(result, message);
        }
        Ok((result, Some(replay)))
    }

    /// Replays an issue of an earlier pass at the current path.
    fn replay(&mut self, issue: Option<&Replay>) -> ResultCode {
        match issue {
            Some(issue) => {
                if self.report {
                    self.record(issue.result, issue.message.to_string());
                }
                issue.result
            }
            None => ResultCode::new(Task::ReadField, Outcome::Skipped),
        }
    }

    /// A soft failure at the value `ident`: reports it, and unless this is the root or a value an
    /// earlier pass decided to keep, records it so the next pass treats the value as absent.
    /// Returns whether a refused placeholder is a hard error.
    fn failed(&mut self, ident: usize, outcome: Outcome, message: &dyn Fn() -> String) -> Result<()> {
        let outcome = if self.slot == Slot::Entry { Outcome::Unavailable } else { outcome };
        let (code, issue) = self.event(ident, ResultCode::new(Task::Convert, outcome), message)?;
        self.acc = code;
        if ident == self.root_ident {
            self.root_failed = true;
        } else if !matches!(self.plan.get(&ident), Some(Action::Keep(_))) {
            self.found.entry(ident).or_insert(Action::Skip(issue));
        }
        Ok(())
    }

    /// `{}` at the value `ident`: DefaultsUsed; a struct member keeps its current value, so the
    /// next pass treats it as absent.
    fn defaulted(&mut self, ident: usize) -> Result<()> {
        let (code, issue) = self.event(ident, ResultCode::new(Task::CreateDefault, Outcome::DefaultsUsed), &|| {
            "Explicit default ({}) used".to_owned()
        })?;
        self.acc = code;
        if self.slot == Slot::Member && ident != self.root_ident && !self.plan.contains_key(&ident) {
            self.found.entry(ident).or_insert(Action::Skip(issue));
        }
        Ok(())
    }
}

/// The deserializer core, generic over the input.
pub(crate) struct Core<'de, 'cb, R> {
    read: R,
    st: State<'de, 'cb>,
}

impl<'de, 'cb, R: Read<'de>> Core<'de, 'cb, R> {
    /// Whether the root value could not be loaded in this pass (a placeholder stands in for it).
    pub(crate) fn root_failed(&self) -> bool {
        self.st.root_failed
    }

    fn new(read: R, settings: LoadSettings) -> Self {
        Core { read, st: State::new(settings) }
    }

    /// Completes an error with the position and path where it happened.
    fn err(&self, e: Error) -> Error {
        if e.is_restart() {
            return e;
        }
        let e = self.read.position(e);
        if e.path().is_some() {
            e
        } else if self.st.track {
            e.with_path(self.st.render_path())
        } else {
            let path = self.read.path_at(e.offset());
            e.with_path(path)
        }
    }

    #[inline]
    fn peek(&mut self) -> Result<Peek> {
        match self.read.peek() {
            Ok(p) => Ok(p),
            Err(e) => Err(self.err(e)),
        }
    }

    fn skip(&mut self) -> Result<()> {
        let depth = self.st.depth;
        match self.read.skip(depth) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.err(e)),
        }
    }

    fn enter(&mut self) -> Result<()> {
        if self.st.depth == 0 {
            let e = Error::new(Code::Depth(self.st.max_depth));
            return Err(self.err(e));
        }
        self.st.depth -= 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.st.depth += 1;
    }

    /// Maps the outcome of a placeholder visit for the value `ident`: a refusal is recorded as a
    /// failure of the value and restarts the load, or, where no later pass can help (the root, a
    /// value an earlier pass decided to keep), is an error.
    fn place<T>(&mut self, ident: usize, r: Result<T>, message: &dyn Fn() -> String) -> Result<T> {
        match r {
            Ok(v) => Ok(v),
            Err(e) if e.is_restart() => Err(e),
            Err(e) => {
                let hopeless = ident == self.st.root_ident || matches!(self.st.plan.get(&ident), Some(Action::Keep(_)));
                if hopeless {
                    let detail = e.message();
                    return Err(self.err(Error::new(Code::Visitor(format!("{} ({detail})", message())))));
                }
                if !self.st.found.contains_key(&ident) {
                    self.st.failed(ident, Outcome::Unsupported, message)?;
                }
                Err(Error::restart())
            }
        }
    }

    /// Reads the next value as a scalar token and coerces it.
    #[inline]
    fn scalar<T>(&mut self, f: impl FnOnce(&Tok<'_>) -> Coerced<T>) -> Result<(usize, Coerced<T>)> {
        let kind = self.peek()?;
        let ident = self.read.ident();
        let r = match kind {
            Peek::Num => self.read.number().map(|n| f(&Tok::Num(n))),
            Peek::Str => self.read.string().map(|s| f(&Tok::Str(s.as_str()))),
            Peek::True | Peek::False => self.read.boolean().map(|b| f(&Tok::Bool(b))),
            Peek::Null => self.read.null().map(|()| f(&Tok::Null)),
            Peek::Arr => {
                self.skip()?;
                Ok(f(&Tok::Array))
            }
            Peek::Obj => {
                let empty = self.read.is_empty_object();
                self.skip()?;
                empty.map(|e| f(&if e { Tok::EmptyObject } else { Tok::Object }))
            }
        };
        match r {
            Ok(c) => Ok((ident, c)),
            Err(e) => Err(self.err(e)),
        }
    }

    /// When an earlier pass decided to keep the next value: skips it, replays its issue and returns
    /// `true` (the caller then visits its placeholder as a hard-failing one).
    #[inline(always)]
    fn kept(&mut self) -> Result<Option<usize>> {
        if self.st.plan.is_empty() {
            return Ok(None);
        }
        self.kept_slow()
    }

    #[inline(never)]
    fn kept_slow(&mut self) -> Result<Option<usize>> {
        self.peek()?;
        let ident = self.read.ident();
        let Some(Action::Keep(issue)) = self.st.plan.get(&ident) else {
            return Ok(None);
        };
        let issue = issue.clone();
        self.skip()?;
        self.st.acc = self.st.replay(issue.as_ref());
        Ok(Some(ident))
    }

    /// A leaf value: coerce, then visit the value, the default or the placeholder.
    fn leaf<T: Copy, V>(
        &mut self,
        coerce: impl FnOnce(&Tok<'_>) -> Coerced<T>,
        zero: T,
        visit: impl FnOnce(T) -> Result<V>,
    ) -> Result<V> {
        if let Some(ident) = self.kept()? {
            return self.place(ident, visit(zero), &kept_message);
        }
        let (ident, c) = self.scalar(coerce)?;
        self.settle(ident, c, zero, visit)
    }

    /// Visits what a coercion of the value `ident` produced: the value, or (for `{}` and for
    /// values that cannot be converted) the placeholder, recording the event.
    fn settle<T, V>(&mut self, ident: usize, c: Coerced<T>, zero: T, visit: impl FnOnce(T) -> Result<V>) -> Result<V> {
        match c {
            Coerced::Ok(v) => {
                self.st.acc = SUCCESS;
                visit(v)
            }
            Coerced::Default => {
                self.st.defaulted(ident)?;
                self.place(ident, visit(zero), &default_refused)
            }
            Coerced::Fail(outcome, message) => {
                let m = || message.clone();
                self.st.failed(ident, outcome, &m)?;
                self.place(ident, visit(zero), &m)
            }
        }
    }

    /// A soft failure of a compound value (already consumed): report, record, visit the placeholder.
    fn compound_failed<V: Visitor<'de>>(
        &mut self,
        ident: usize,
        message: String,
        placeholder: impl FnOnce(V) -> Result<V::Value>,
        visitor: V,
    ) -> Result<V::Value> {
        let m = || message.clone();
        self.st.failed(ident, Outcome::Unsupported, &m)?;
        let r = placeholder(visitor);
        self.place(ident, r, &m)
    }

    /// Checks for `{}` (the explicit default) and for a value an earlier pass keeps; `Some` when
    /// the caller must visit its placeholder, with whether a refusal is a hard error.
    fn compound_start(&mut self) -> Result<(Peek, usize, bool)> {
        if let Some(ident) = self.kept()? {
            return Ok((Peek::Null, ident, true));
        }
        let kind = self.peek()?;
        let ident = self.read.ident();
        if kind == Peek::Obj && self.read.is_empty_object().map_err(|e| self.err(e))? {
            self.skip()?;
            self.st.defaulted(ident)?;
            return Ok((kind, ident, true));
        }
        Ok((kind, ident, false))
    }

    fn deserialize_str_like<V: Visitor<'de>>(&mut self, visitor: V, owned: bool) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            return self.place(ident, visitor.visit_borrowed_str(""), &kept_message);
        }
        if self.peek()? == Peek::Str {
            self.st.acc = SUCCESS;
            let r = self.read.string();
            return match r {
                Ok(Ref::Borrowed(s)) if !owned => visitor.visit_borrowed_str(s),
                Ok(Ref::Borrowed(s)) => visitor.visit_str(s),
                Ok(Ref::Copied(s)) => visitor.visit_str(s),
                Err(e) => Err(self.err(e)),
            };
        }
        let (ident, c) = self.scalar(|t| match coerce::to_string(t) {
            Coerced::Ok(s) => Coerced::Ok(s.into_owned()),
            Coerced::Default => Coerced::Default,
            Coerced::Fail(o, m) => Coerced::Fail(o, m),
        })?;
        match c {
            Coerced::Ok(s) => {
                self.st.acc = SUCCESS;
                visitor.visit_string(s)
            }
            Coerced::Default => {
                self.st.defaulted(ident)?;
                self.place(ident, visitor.visit_borrowed_str(""), &default_refused)
            }
            Coerced::Fail(outcome, message) => {
                let m = || message.clone();
                self.st.failed(ident, outcome, &m)?;
                self.place(ident, visitor.visit_borrowed_str(""), &m)
            }
        }
    }

    /// A value nested in a container or option: sets the slot and resets the result.
    #[inline]
    fn nested<T>(&mut self, slot: Slot, seed: T) -> Result<T::Value>
    where
        T: DeserializeSeed<'de>,
    {
        self.st.slot = slot;
        self.st.acc = ResultCode::UNSET;
        seed.deserialize(&mut *self)
    }

    /// Turns the error of a member/element/entry value into what the container returns: soft errors
    /// are recorded at `ident` (the next pass treats the value as absent) and restart the load.
    fn value_error(&mut self, e: Error, ident: usize, slot: Slot) -> Error {
        if e.is_restart() {
            return e;
        }
        // An error the value's visitor raised belongs to where the value starts.
        let e = self.read.position_at(e, ident);
        if e.is_soft() {
            let message = e.message();
            self.st.slot = slot;
            let hopeless = ident == self.st.root_ident || matches!(self.st.plan.get(&ident), Some(Action::Keep(_)));
            return match self.st.failed(ident, Outcome::Unsupported, &|| message.clone()) {
                Ok(()) if hopeless => self.err(Error::new(Code::Visitor(message))),
                Ok(()) => Error::restart(),
                Err(e) => e,
            };
        }
        self.err(e)
    }

    /// Walks the value at `loc` and records in `candidates` every object inside it (itself
    /// included) that gives a member name twice, ASCII case aside: the members that may be
    /// duplicates of one field of whatever struct the object is read as. The reader is left where
    /// it was.
    fn find_candidates(&mut self, loc: R::Loc) -> Result<()> {
        enum Frame {
            /// An object: its ident, whether the next member is its first, where its names start.
            Obj(usize, bool, usize),
            /// An array: whether the next element is its first.
            Arr(bool),
        }
        let back = self.read.loc();
        self.read.seek(loc);
        let depth = self.st.depth;
        let hasher = std::collections::hash_map::RandomState::new();
        let candidates = &mut self.st.candidates;
        let read = &mut self.read;
        let r = (|| -> Result<()> {
            let mut frames: Vec<Frame> = Vec::new();
            // The members of the open objects: (hash of the lower-cased name, name span, ident).
            let mut members: Vec<(u64, std::ops::Range<usize>, usize)> = Vec::new();
            let mut names = String::new();
            let mut counts: HashMap<u64, usize> = HashMap::new();
            let mut lower: Vec<u8> = Vec::new();
            loop {
                // A value.
                match read.peek()? {
                    kind @ (Peek::Obj | Peek::Arr) => {
                        if frames.len() >= depth {
                            return Err(Error::new(Code::Depth(depth)));
                        }
                        if kind == Peek::Obj {
                            frames.push(Frame::Obj(read.ident(), true, members.len()));
                            read.begin_object()?;
                        } else {
                            frames.push(Frame::Arr(true));
                            read.begin_array()?;
                        }
                    }
                    _ => read.skip(depth)?,
                }
                // The next value, closing the containers that end.
                loop {
                    match frames.last_mut() {
                        None => return Ok(()),
                        Some(Frame::Arr(first)) => {
                            if read.next_element(*first)? {
                                *first = false;
                                break;
                            }
                            frames.pop();
                        }
                        Some(Frame::Obj(ident, first, from)) => {
                            if let Some(key) = read.next_key(*first)? {
                                *first = false;
                                let key = key.as_str();
                                lower.clear();
                                lower.extend(key.bytes().map(|b| b.to_ascii_lowercase()));
                                let hash = std::hash::BuildHasher::hash_one(&hasher, &lower);
                                let start = names.len();
                                names.push_str(key);
                                read.peek()?;
                                members.push((hash, start..names.len(), read.ident()));
                                break;
                            }
                            let (ident, from) = (*ident, *from);
                            frames.pop();
                            counts.clear();
                            for (hash, ..) in &members[from..] {
                                *counts.entry(*hash).or_default() += 1;
                            }
                            let repeated: Vec<(Box<str>, usize)> = members[from..]
                                .iter()
                                .filter(|(hash, ..)| counts.get(hash).is_some_and(|&c| c > 1))
                                .map(|(_, span, at)| (names[span.clone()].into(), *at))
                                .collect();
                            if !repeated.is_empty() {
                                candidates.insert(ident, repeated.into());
                            }
                            if let Some((_, span, _)) = members.get(from) {
                                names.truncate(span.start);
                            }
                            members.truncate(from);
                        }
                    }
                }
            }
        })();
        self.read.seek(back);
        r.map_err(|e| self.err(e))
    }

    /// Looks ahead in the next (non-empty) object for a string `$type` member; the reader is left
    /// where it was.
    fn find_type(&mut self) -> Result<Option<String>> {
        let save = self.read.loc();
        let depth = self.st.depth;
        let r = (|| -> Result<Option<String>> {
            self.read.begin_object()?;
            let mut first = true;
            while let Some(key) = self.read.next_key(first)? {
                first = false;
                let is_type = key.as_str() == "$type";
                if is_type && self.read.peek()? == Peek::Str {
                    return Ok(Some(self.read.string()?.as_str().to_owned()));
                }
                self.read.skip_ahead(depth)?;
                if is_type {
                    return Ok(None);
                }
            }
            Ok(None)
        })();
        let r = r.map_err(|e| self.err(e));
        self.read.seek(save);
        r
    }

    /// Runs a visitor of one of this crate's types with the side channel open, then reports what
    /// it said: an Altered outcome (Unsupported) is a soft failure (the visitor returned the value it
    /// started from), other non-Success outcomes are issues, halting outcomes are errors.
    fn native<T>(&mut self, ident: usize, run: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.native_with(ident, true, run)
    }

    /// [`native`](Self::native); `leaf` says whether a silent success is a plain Success (this
    /// crate's leaf types) or keeps the result of what `run` read (a `$type` object).
    fn native_with<T>(&mut self, ident: usize, leaf: bool, run: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let slot = self.st.slot;
        let guard = channel::open(self.st.strict_doubles);
        let r = run(self);
        let said = guard.close();
        self.st.slot = slot;
        match (r, said) {
            (Err(e), Some((code, message))) if code.is_halted() && !e.is_restart() => {
                let (code, _) = self.st.event(ident, code, &|| message.clone())?;
                let e = self.read.position_at(Error::halt(code, message), ident);
                Err(self.err(e))
            }
            (Err(e), _) => Err(e),
            (Ok(v), None) => {
                if leaf {
                    self.st.acc = SUCCESS;
                }
                Ok(v)
            }
            (Ok(v), Some((code, message))) => {
                if code.processing() == crate::report::Processing::Altered {
                    self.st.failed(ident, code.outcome(), &|| message.clone())?;
                } else if code.outcome() != Outcome::Success {
                    self.st.acc = self.st.event(ident, code, &|| message.clone())?.0;
                } else {
                    self.st.acc = code;
                }
                Ok(v)
            }
        }
    }

    /// Runs a placeholder visit of one of this crate's types, ignoring what it reports.
    fn native_quiet<T>(&mut self, run: impl FnOnce() -> Result<T>) -> Result<T> {
        let guard = channel::open(self.st.strict_doubles);
        let r = run();
        drop(guard.close());
        r
    }

    fn object_map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        if let Err(e) = self.read.begin_object() {
            return Err(self.err(e));
        }
        let mut access = ObjectMap { de: self, first: true, ident: 0, result: CONTAINER, done: false };
        let r = visitor.visit_map(&mut access);
        let (done, result) = (access.done, access.result);
        let r = r.and_then(|v| if done { Ok(v) } else { self.drain_object().map(|()| v) });
        self.leave();
        self.st.acc = result;
        r
    }

    fn drain_object(&mut self) -> Result<()> {
        loop {
            match self.read.next_key(false) {
                Ok(Some(_)) => self.skip()?,
                Ok(None) => return Ok(()),
                Err(e) => return Err(self.err(e)),
            }
        }
    }

    fn drain_array(&mut self, mut index: usize) -> Result<()> {
        while self.read.next_element(index == 0).map_err(|e| self.err(e))? {
            self.st.push(Seg::Index(index));
            let ident = self.read.ident();
            let r = self.st.event(ident, ResultCode::new(Task::ReadField, Outcome::Skipped), &|| {
                "Skipped an element the target has no room for".to_owned()
            });
            self.st.pop();
            self.st.acc = r?.0;
            self.skip()?;
            index += 1;
        }
        Ok(())
    }

    fn array<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        if let Err(e) = self.read.begin_array() {
            return Err(self.err(e));
        }
        let mut access = Seq { de: self, index: 0, result: CONTAINER, done: false };
        let r = visitor.visit_seq(&mut access);
        let (done, index, mut result) = (access.done, access.index, access.result);
        let r = r.and_then(|v| {
            if done {
                Ok(v)
            } else {
                let r = self.drain_array(index).map(|()| v);
                result.combine_with(self.st.acc);
                r
            }
        });
        self.leave();
        self.st.acc = result;
        r
    }
}

macro_rules! leaf_int {
    ($($method:ident $t:ty => $visit:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.leaf(coerce::to_int::<$t>, 0, |v| visitor.$visit(v))
        }
    )*};
}

/// The scalar `deserialize_*` methods of a deserializer with a `leaf` method.
macro_rules! leaf_methods {
    () => {
        fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.leaf(coerce::to_bool, false, |v| visitor.visit_bool(v))
        }

        leaf_int! {
            deserialize_i8 i8 => visit_i8;
            deserialize_i16 i16 => visit_i16;
            deserialize_i32 i32 => visit_i32;
            deserialize_i64 i64 => visit_i64;
            deserialize_u8 u8 => visit_u8;
            deserialize_u16 u16 => visit_u16;
            deserialize_u32 u32 => visit_u32;
            deserialize_u64 u64 => visit_u64;
        }

        fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.leaf(|t| coerce::to_i128(t, true), 0, |v| visitor.visit_i128(v))
        }

        fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.leaf(|t| coerce::to_i128(t, false), 0, |v| visitor.visit_u128(v as u128))
        }

        fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.leaf(coerce::to_f32, 0.0, |v| visitor.visit_f32(v))
        }

        fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.leaf(coerce::to_f64, 0.0, |v| visitor.visit_f64(v))
        }
    };
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Core<'de, '_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            return self.place(ident, visitor.visit_map(EmptyMap), &kept_message);
        }
        self.st.acc = SUCCESS;
        match self.peek()? {
            Peek::Null => {
                self.read.null().map_err(|e| self.err(e))?;
                visitor.visit_unit()
            }
            Peek::True | Peek::False => {
                let b = self.read.boolean().map_err(|e| self.err(e))?;
                visitor.visit_bool(b)
            }
            Peek::Num => match self.read.number().map_err(|e| self.err(e))? {
                Num::U(u) => visitor.visit_u64(u),
                Num::I(i) => visitor.visit_i64(i),
                Num::F(f) => visitor.visit_f64(f),
            },
            Peek::Str => match self.read.string() {
                Ok(Ref::Borrowed(s)) => visitor.visit_borrowed_str(s),
                Ok(Ref::Copied(s)) => visitor.visit_str(s),
                Err(e) => Err(self.err(e)),
            },
            Peek::Arr => self.array(visitor),
            Peek::Obj => self.object_map(visitor),
        }
    }

    leaf_methods!();

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let one_char = |t: &Tok<'_>| match *t {
            Tok::Str(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Coerced::Ok(c),
                    _ => Coerced::Fail(Outcome::Unsupported, format!("{} is not a single character", t.describe())),
                }
            }
            Tok::EmptyObject => Coerced::Default,
            _ => Coerced::Fail(Outcome::Unsupported, format!("{} cannot be read as a character", t.describe())),
        };
        self.leaf(one_char, '\0', |v| visitor.visit_char(v))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str_like(visitor, false)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str_like(visitor, false)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            return self.place(ident, visitor.visit_borrowed_bytes(&[]), &default_refused);
        }
        match kind {
            // O3DE's byte streams (`AZStd::vector<AZ::u8>`) are base64 strings.
            Peek::Str => {
                let decoded = match self.read.string() {
                    Ok(s) => crate::fmt::base64_decode(s.as_str()),
                    Err(e) => return Err(self.err(e)),
                };
                match decoded {
                    Some(bytes) => {
                        self.st.acc = SUCCESS;
                        visitor.visit_byte_buf(bytes)
                    }
                    None => self.compound_failed(
                        ident,
                        "the string is not valid base64".to_owned(),
                        |v: V| v.visit_borrowed_bytes(&[]),
                        visitor,
                    ),
                }
            }
            Peek::Arr => self.array(visitor),
            _ => {
                self.skip()?;
                self.compound_failed(
                    ident,
                    "bytes are read from a base64 string or an array of numbers".to_owned(),
                    |v: V| v.visit_borrowed_bytes(&[]),
                    visitor,
                )
            }
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            return self.place(ident, visitor.visit_none(), &kept_message);
        }
        if self.peek()? == Peek::Null {
            self.read.null().map_err(|e| self.err(e))?;
            self.st.acc = SUCCESS;
            return visitor.visit_none();
        }
        self.st.slot = Slot::Pointee;
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let unit = |t: &Tok<'_>| match t {
            Tok::Null => Coerced::Ok(()),
            Tok::EmptyObject => Coerced::Default,
            _ => Coerced::Fail(Outcome::Unsupported, format!("{} cannot be read as a unit (null)", t.describe())),
        };
        self.leaf(unit, (), |()| visitor.visit_unit())
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if !name.starts_with("$serde_o3de::") {
            return visitor.visit_newtype_struct(self);
        }
        if name == RAW {
            if let Some(ident) = self.kept()? {
                return self.place(ident, visitor.visit_string("{}".to_owned()), &kept_message);
            }
            let mut raw = String::new();
            let depth = self.st.depth;
            self.peek()?;
            if let Err(e) = self.read.raw(depth, &mut raw) {
                return Err(self.err(e));
            }
            self.st.acc = SUCCESS;
            return visitor.visit_string(raw);
        }
        if let Some(ident) = self.kept()? {
            let r = self.native_quiet(|| visitor.visit_newtype_struct(Placeholder));
            return self.place(ident, r, &kept_message);
        }
        let kind = self.peek()?;
        let ident = self.read.ident();
        if self.st.slot == Slot::Member && kind == Peek::Obj && self.read.is_empty_object().map_err(|e| self.err(e))? {
            // An existing field keeps its value on `{}`; the type itself is not asked.
            self.skip()?;
            self.st.defaulted(ident)?;
            let r = self.native_quiet(|| visitor.visit_newtype_struct(Placeholder));
            return self.place(ident, r, &default_refused);
        }
        if kind == Peek::Arr {
            // The array form of math types, read without the general machinery.
            let mut nums = [Num::U(0); 16];
            match self.read.number_array(&mut nums) {
                Ok(Some(n)) => return self.native(ident, |_| visitor.visit_newtype_struct(Nums(&nums[..n]))),
                Ok(None) => {}
                Err(e) => return Err(self.err(e)),
            }
        }
        self.native(ident, |de| visitor.visit_newtype_struct(de))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            return self.place(ident, visitor.visit_seq(EmptySeq), &default_refused);
        }
        if kind == Peek::Arr {
            return self.array(visitor);
        }
        self.skip()?;
        let message = format!("{} cannot be read as an array", describe(kind));
        self.compound_failed(ident, message, |v: V| v.visit_seq(EmptySeq), visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            return self.place(ident, visitor.visit_map(EmptyMap), &default_refused);
        }
        match kind {
            Peek::Obj => self.object_map(visitor),
            Peek::Arr => {
                self.enter()?;
                if let Err(e) = self.read.begin_array() {
                    return Err(self.err(e));
                }
                let mut access = ArrayMap { de: self, index: 0, result: CONTAINER, pending: None, done: false };
                let r = visitor.visit_map(&mut access);
                let (done, index, mut result) = (access.done, access.index, access.result);
                let r = r.and_then(|v| {
                    if done {
                        Ok(v)
                    } else {
                        let r = self.drain_array(index).map(|()| v);
                        result.combine_with(self.st.acc);
                        r
                    }
                });
                self.leave();
                self.st.acc = result;
                r
            }
            _ => {
                self.skip()?;
                let message = format!(
                    "{} cannot be read as a map (an object, or an array of {{\"Key\", \"Value\"}} objects)",
                    describe(kind)
                );
                self.compound_failed(ident, message, |v: V| v.visit_map(EmptyMap), visitor)
            }
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if name == POLY {
            return self.poly(fields, visitor);
        }
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            let r = visitor.visit_map(EmptyMap);
            return self.place(ident, r, &|| format!("`{name}` has required fields; give it #[serde(default)]"));
        }
        if kind != Peek::Obj {
            self.skip()?;
            let message = format!("{} cannot be read as an object of type `{name}`", describe(kind));
            return self.compound_failed(ident, message, |v: V| v.visit_map(EmptyMap), visitor);
        }
        self.enter()?;
        let start = self.read.loc();
        if let Err(e) = self.read.begin_object() {
            return Err(self.err(e));
        }
        let mut last = if self.st.last_plan.is_empty() { None } else { self.st.last_plan.get(&ident).cloned() };
        if last.is_none() && !self.st.candidates.is_empty() {
            if let Some(names) = self.st.candidates.get(&ident) {
                let occurrences: Vec<(usize, usize)> = names
                    .iter()
                    .filter_map(|(name, at)| match_name(fields, name, 0).map(|field| (field, *at)))
                    .collect();
                last = winners(fields.len(), &occurrences);
            }
        }
        let mut access = StructAccess {
            de: self,
            fields,
            start,
            first: true,
            hint: 0,
            seen: Seen::new(fields.len()),
            loaded: 0,
            ident: 0,
            result: ResultCode::UNSET,
            skipped: Vec::new(),
            duplicates_scanned: false,
            last,
            object: ident,
            done: false,
        };
        let r = visitor.visit_map(&mut access);
        let StructAccess { done, loaded, mut result, skipped, .. } = access;
        let r = match r {
            Ok(v) if done => Ok(v),
            Ok(v) => self.drain_object().map(|()| v),
            Err(e) => Err(self.struct_error(e, &skipped)),
        };
        self.leave();
        if loaded < fields.len() {
            result.combine_with(ResultCode::new(Task::ReadField, Outcome::DefaultsUsed));
        }
        self.st.acc = result;
        r
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let first = variants.first().copied().unwrap_or("");
        let (kind, ident, placeholder) = self.compound_start()?;
        if placeholder {
            let r = visitor.visit_enum(UnitVariant(first));
            return self.place(ident, r, &|| format!("enum `{name}` has no unit variant to use as its default"));
        }
        match kind {
            Peek::Str => {
                let found = match self.read.string() {
                    Ok(s) => {
                        match_name(variants, s.as_str(), 0).map(|i| variants[i]).ok_or_else(|| s.as_str().to_owned())
                    }
                    Err(e) => return Err(self.err(e)),
                };
                match found {
                    Ok(variant) => {
                        self.st.acc = SUCCESS;
                        visitor.visit_enum(UnitVariant(variant))
                    }
                    Err(text) => {
                        let message = format!(
                            "\"{}\" is not a variant of `{name}`: expected one of {variants:?}",
                            coerce::clip(&text)
                        );
                        self.compound_failed(ident, message, |v: V| v.visit_enum(UnitVariant(first)), visitor)
                    }
                }
            }
            Peek::Obj => {
                self.enter()?;
                if let Err(e) = self.read.begin_object() {
                    return Err(self.err(e));
                }
                let variant = match self.read.next_key(true) {
                    Ok(Some(k)) => {
                        match_name(variants, k.as_str(), 0).map(|i| variants[i]).ok_or_else(|| k.as_str().to_owned())
                    }
                    Ok(None) => Err(String::new()),
                    Err(e) => return Err(self.err(e)),
                };
                let variant = match variant {
                    Ok(v) => v,
                    Err(text) => {
                        self.skip()?;
                        self.drain_object()?;
                        self.leave();
                        let message = format!(
                            "\"{}\" is not a variant of `{name}`: expected one of {variants:?}",
                            coerce::clip(&text)
                        );
                        return self.compound_failed(ident, message, |v: V| v.visit_enum(UnitVariant(first)), visitor);
                    }
                };
                self.st.push(Seg::Key(variant));
                let r = visitor.visit_enum(VariantObject { de: &mut *self, variant });
                self.st.pop();
                let r = r.and_then(|v| self.drain_object().map(|()| v));
                self.leave();
                r
            }
            _ => {
                self.skip()?;
                let message = format!("{} cannot be read as enum `{name}`", describe(kind));
                self.compound_failed(ident, message, |v: V| v.visit_enum(UnitVariant(first)), visitor)
            }
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str_like(visitor, false)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.peek()?;
        self.skip()?;
        self.st.acc = SUCCESS;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

fn kept_message() -> String {
    "an earlier pass found this value cannot be loaded, and its type refused a default".to_owned()
}

fn default_refused() -> String {
    "the type refused the default value ({}); give it #[serde(default)]".to_owned()
}

fn describe(kind: Peek) -> &'static str {
    match kind {
        Peek::Null => "null",
        Peek::True | Peek::False => "a boolean",
        Peek::Num => "a number",
        Peek::Str => "a string",
        Peek::Arr => "an array",
        Peek::Obj => "an object",
    }
}

/// Matches `key` against `names`: `hint` first, then exactly, then ASCII case-insensitively (O3DE
/// compares CRC32s of lower-cased names). The first matching name wins. Long lists (many fields or
/// variants) are looked up through a hash index, so a key costs the same however many names there
/// are.
#[inline]
fn match_name(names: &'static [&'static str], key: &str, hint: usize) -> Option<usize> {
    if names.get(hint).is_some_and(|n| *n == key) {
        return Some(hint);
    }
    if names.len() > NameIndex::LINEAR {
        return NameIndex::find(names, key);
    }
    names.iter().position(|n| *n == key).or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(key)))
}

/// A hash index of a long `'static` list of field or variant names, built once per list and thread.
///
/// The table holds only the (static) names, keyed by a hash of their lower-cased bytes, so input
/// keys cannot crowd a bucket: a key is compared with the few names sharing its hash at most.
struct NameIndex {
    /// `(hash of the lower-cased name, index)`, sorted.
    slots: Vec<(u64, usize)>,
}

impl NameIndex {
    /// Lists up to this long are searched directly.
    const LINEAR: usize = 16;

    fn folded_hash(name: &str) -> u64 {
        // FNV-1a over the ASCII-lower-cased bytes.
        name.bytes()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x100_0000_01b3))
    }

    fn build(names: &[&str]) -> NameIndex {
        let mut slots: Vec<(u64, usize)> = names.iter().enumerate().map(|(i, n)| (Self::folded_hash(n), i)).collect();
        slots.sort_unstable();
        NameIndex { slots }
    }

    fn find(names: &'static [&'static str], key: &str) -> Option<usize> {
        use std::cell::RefCell;
        use std::rc::Rc;
        thread_local! {
            static INDEXES: RefCell<HashMap<(usize, usize), Rc<NameIndex>>> = RefCell::new(HashMap::new());
        }
        let id = (names.as_ptr() as usize, names.len());
        let index = INDEXES.with(|cell| {
            let mut map = cell.borrow_mut();
            map.entry(id).or_insert_with(|| Rc::new(NameIndex::build(names))).clone()
        });
        let hash = Self::folded_hash(key);
        let start = index.slots.partition_point(|&(h, _)| h < hash);
        let mut folded = None;
        for &(h, i) in &index.slots[start..] {
            if h != hash {
                break;
            }
            if names[i] == key {
                return Some(i);
            }
            if folded.is_none() && names[i].eq_ignore_ascii_case(key) {
                folded = Some(i);
            }
        }
        folded
    }
}

impl<'de, R: Read<'de>> Core<'de, '_, R> {
    /// After a struct visitor failed: a missing field that an earlier pass skipped is kept (as a
    /// placeholder) next time; any other missing field makes the struct itself a soft failure.
    fn struct_error(&mut self, e: Error, skipped: &[(&'static str, usize)]) -> Error {
        if let Code::MissingField(field) = e.code() {
            if let Some(&(_, ident)) = skipped.iter().find(|(f, _)| f == field) {
                let issue = match self.st.plan.get(&ident) {
                    Some(Action::Skip(issue)) => issue.clone(),
                    _ => None,
                };
                self.st.found.insert(ident, Action::Keep(issue));
                return Error::restart();
            }
            return Error::new(Code::Visitor(e.message()));
        }
        e
    }

    /// `$type` polymorphism: resolves the type and hands the visitor its index.
    fn poly<V: Visitor<'de>>(&mut self, types: &'static [&'static str], visitor: V) -> Result<V::Value> {
        if let Some(ident) = self.kept()? {
            let r = self.native_quiet(|| visitor.visit_enum(PolyPlaceholder));
            return self.place(ident, r, &kept_message);
        }
        let kind = self.peek()?;
        let ident = self.read.ident();
        if kind == Peek::Obj && self.read.is_empty_object().map_err(|e| self.err(e))? && self.st.slot == Slot::Member {
            self.skip()?;
            self.st.defaulted(ident)?;
            let r = self.native_quiet(|| visitor.visit_enum(PolyPlaceholder));
            return self.place(ident, r, &default_refused);
        }
        let index = if kind == Peek::Obj {
            match self.find_type()? {
                None => DECLARED_TYPE,
                Some(text) => match crate::types::poly::resolve(types, &text) {
                    Ok(i) => i as u32,
                    Err(_) => UNKNOWN_TYPE,
                },
            }
        } else {
            DECLARED_TYPE
        };
        self.native_with(ident, false, |de| {
            de.st.slot = Slot::Pointee;
            visitor.visit_enum(PolyAccess { de, index })
        })
    }
}

/// Which fields a struct access has handed out (a set of indices for long field lists, which
/// costs nothing for an object with few members).
enum Seen {
    Small(u64),
    Large(std::collections::HashSet<usize>),
}

impl Seen {
    fn new(n: usize) -> Self {
        if n <= 64 { Seen::Small(0) } else { Seen::Large(std::collections::HashSet::new()) }
    }

    /// Marks field `i`; returns whether it was already marked.
    fn set(&mut self, i: usize) -> bool {
        match self {
            Seen::Small(bits) => {
                let was = *bits >> i & 1 == 1;
                *bits |= 1 << i;
                was
            }
            Seen::Large(set) => !set.insert(i),
        }
    }
}

/// The occurrences that win among `(field, ident)` occurrences of the fields of a struct (the last
/// of each field given more than once), sorted by field; `None` when no field is repeated.
fn winners(fields: usize, occurrences: &[(usize, usize)]) -> Option<Rc<[(usize, usize)]>> {
    let mut seen = Seen::new(fields);
    let mut last: Vec<(usize, usize)> = Vec::new();
    let mut repeated = Seen::new(fields);
    for &(field, ident) in occurrences.iter().rev() {
        if !seen.set(field) {
            last.push((field, ident));
        } else {
            repeated.set(field);
        }
    }
    last.retain(|&(field, _)| repeated.set(field));
    last.sort_unstable();
    (!last.is_empty()).then(|| last.into())
}

struct StructAccess<'a, 'de, 'cb, R: Read<'de>> {
    de: &'a mut Core<'de, 'cb, R>,
    fields: &'static [&'static str],
    start: R::Loc,
    first: bool,
    hint: usize,
    seen: Seen,
    loaded: usize,
    ident: usize,
    result: ResultCode,
    /// Fields skipped because an earlier pass found them failing (name, ident).
    skipped: Vec<(&'static str, usize)>,
    /// Whether the object was already scanned for duplicate members.
    duplicates_scanned: bool,
    /// Where an earlier pass found duplicate members: (field, ident of the occurrence that wins).
    last: Option<Rc<[(usize, usize)]>>,
    /// The ident of the object.
    object: usize,
    done: bool,
}

impl<'de, R: Read<'de>> StructAccess<'_, 'de, '_, R> {
    /// A field given twice: O3DE loads every occurrence over the previous one, so the last wins.
    /// This pass keeps the first; the earlier occurrences are recorded so that the next pass skips
    /// them. The first duplicate scans the object once for the duplicates of every field, so a
    /// flood of duplicates costs one scan, not one per duplicate.
    fn duplicate(&mut self) -> Result<()> {
        if std::mem::replace(&mut self.duplicates_scanned, true) {
            return Ok(());
        }
        let here = self.de.read.loc();
        let depth = self.de.st.depth;
        let fields = self.fields;
        let mut occurrences: Vec<(usize, usize)> = Vec::new();
        // Where the values of the fields' occurrences are (ident, location).
        let mut locs: Vec<(usize, R::Loc)> = Vec::new();
        self.de.read.seek(self.start);
        let r = (|| -> Result<()> {
            let read = &mut self.de.read;
            read.begin_object()?;
            let mut first = true;
            let mut hint = 0;
            while let Some(key) = read.next_key(first)? {
                first = false;
                let field = match_name(fields, key.as_str(), hint);
                read.peek()?;
                if let Some(field) = field {
                    hint = field + 1;
                    occurrences.push((field, read.ident()));
                    locs.push((read.ident(), read.loc()));
                }
                read.skip_ahead(depth)?;
            }
            Ok(())
        })();
        self.de.read.seek(here);
        r.map_err(|e| self.de.err(e))?;
        // Only the last occurrence of each field is loaded next time.
        if let Some(last) = winners(fields.len(), &occurrences) {
            // This pass skips the winners: what they hold is read first in the next pass, so the
            // duplicates nested in them are found now (one pass for every level).
            let mut wins: Vec<usize> = last.iter().map(|&(_, ident)| ident).collect();
            wins.sort_unstable();
            for &(ident, loc) in &locs {
                if wins.binary_search(&ident).is_ok() {
                    self.de.find_candidates(loc)?;
                }
            }
            self.de.st.last_found.insert(self.object, last);
        }
        Ok(())
    }

    /// Whether an earlier pass found that the member `ident` (of field `field`) is a duplicate
    /// that a later occurrence overrides.
    fn overridden(&self, field: usize, ident: usize) -> bool {
        let Some(last) = &self.last else {
            return false;
        };
        match last.binary_search_by_key(&field, |&(f, _)| f) {
            Ok(at) => last[at].1 != ident,
            Err(_) => false,
        }
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for StructAccess<'_, 'de, '_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            let key = match self.de.read.next_key(self.first) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            };
            self.first = false;
            let index = match_name(self.fields, key.as_str(), self.hint);
            let is_type = index.is_none() && key.as_str() == "$type";
            self.de.st.push_key(&key);
            self.de.peek()?;
            let ident = self.de.read.ident();
            if !self.de.st.plan.is_empty() {
                if let Some(Action::Skip(issue)) = self.de.st.plan.get(&ident) {
                    let issue = issue.clone();
                    let code = self.de.st.replay(issue.as_ref());
                    self.result.combine_with(code);
                    if let Some(i) = index {
                        self.skipped.push((self.fields[i], ident));
                    }
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            if let Some(i) = index {
                if self.overridden(i, ident) {
                    // A later occurrence of the field wins (O3DE loads each over the previous).
                    self.result.combine_with(ResultCode::new(Task::ReadField, Outcome::Skipped));
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            match index {
                Some(i) if !self.seen.set(i) => {
                    self.hint = i + 1;
                    self.loaded += 1;
                    self.ident = ident;
                    return match seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.fields[i])) {
                        Ok(k) => Ok(Some(k)),
                        Err(e) => {
                            self.de.st.pop();
                            Err(e)
                        }
                    };
                }
                Some(_) => {
                    self.de.st.pop();
                    self.duplicate()?;
                    self.de.skip()?;
                }
                None if is_type => {
                    self.de.st.pop();
                    self.de.skip()?;
                }
                None => {
                    // The name goes into the message only when someone reads it, clipped.
                    let st = &self.de.st;
                    let name = match st.path.last() {
                        Some(Seg::Key(k)) if st.report || st.callback.is_some() => coerce::clip(k).into_owned(),
                        Some(Seg::Owned(k)) if st.report || st.callback.is_some() => coerce::clip(k).into_owned(),
                        _ => String::new(),
                    };
                    let r = self.de.st.event(ident, ResultCode::new(Task::ReadField, Outcome::Skipped), &|| {
                        format!("Skipped unknown field \"{name}\"")
                    });
                    self.de.st.pop();
                    self.result.combine_with(r?.0);
                    self.de.skip()?;
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let r = self.de.nested(Slot::Member, seed);
        let r = match r {
            Ok(v) => {
                self.result.combine_with(self.de.st.acc);
                Ok(v)
            }
            Err(e) => Err(self.de.value_error(e, self.ident, Slot::Member)),
        };
        self.de.st.pop();
        r
    }
}

struct Seq<'a, 'de, 'cb, R> {
    de: &'a mut Core<'de, 'cb, R>,
    index: usize,
    result: ResultCode,
    done: bool,
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for Seq<'_, 'de, '_, R> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        loop {
            match self.de.read.next_element(self.index == 0) {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            }
            self.de.st.push(Seg::Index(self.index));
            if let Err(e) = self.de.peek() {
                self.de.st.pop();
                return Err(e);
            }
            let ident = self.de.read.ident();
            self.index += 1;
            if !self.de.st.plan.is_empty() {
                if let Some(Action::Skip(issue)) = self.de.st.plan.get(&ident) {
                    let issue = issue.clone();
                    let code = self.de.st.replay(issue.as_ref());
                    self.result.combine_with(code);
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            let r = match self.de.nested(Slot::Element, seed) {
                Ok(v) => {
                    self.result.combine_with(self.de.st.acc);
                    Ok(Some(v))
                }
                Err(e) => Err(self.de.value_error(e, ident, Slot::Element)),
            };
            self.de.st.pop();
            return r;
        }
    }

    fn size_hint(&self) -> Option<usize> {
        None
    }
}

/// A map read from a JSON object: member names are loaded as JSON strings into the key type.
struct ObjectMap<'a, 'de, 'cb, R> {
    de: &'a mut Core<'de, 'cb, R>,
    first: bool,
    ident: usize,
    result: ResultCode,
    done: bool,
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for ObjectMap<'_, 'de, '_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            let Core { read, st } = &mut *self.de;
            let key = match read.next_key(self.first) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            };
            self.first = false;
            st.push_key(&key);
            // The entry is identified by its value; peek past the whitespace before it.
            let key_text: Option<String> = match key {
                Ref::Borrowed(_) => None,
                Ref::Copied(k) => Some(k.to_owned()),
            };
            let borrowed = match key {
                Ref::Borrowed(k) => Some(k),
                Ref::Copied(_) => None,
            };
            self.de.peek()?;
            let ident = self.de.read.ident();
            if !self.de.st.plan.is_empty() {
                if let Some(Action::Skip(issue)) = self.de.st.plan.get(&ident) {
                    let issue = issue.clone();
                    let code = self.de.st.replay(issue.as_ref());
                    self.result.combine_with(code);
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            self.ident = ident;
            let key = match (borrowed, key_text.as_deref()) {
                (Some(k), _) => KeyStr::Borrowed(k),
                (None, Some(k)) => KeyStr::Owned(k),
                (None, None) => KeyStr::Owned(""),
            };
            self.de.st.slot = Slot::Entry;
            let r = seed.deserialize(KeyDeserializer { key, de: &mut *self.de, ident });
            return match r {
                Ok(k) => {
                    self.result.combine_with(self.de.st.acc);
                    Ok(Some(k))
                }
                Err(e) => {
                    let e = self.de.value_error(e, ident, Slot::Entry);
                    self.de.st.pop();
                    Err(e)
                }
            };
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let r = match self.de.nested(Slot::Entry, seed) {
            Ok(v) => {
                self.result.combine_with(self.de.st.acc);
                Ok(v)
            }
            Err(e) => Err(self.de.value_error(e, self.ident, Slot::Entry)),
        };
        self.de.st.pop();
        r
    }
}

/// Where an entry's `Key` and `Value` members are.
type EntryMembers<L> = (Option<L>, Option<L>);

/// A map read from an array of `{"Key": k, "Value": v}` objects.
struct ArrayMap<'a, 'de, 'cb, R: Read<'de>> {
    de: &'a mut Core<'de, 'cb, R>,
    index: usize,
    result: ResultCode,
    /// The value's location and the position after the entry.
    pending: Option<(Option<R::Loc>, R::Loc, usize)>,
    done: bool,
}

impl<'de, R: Read<'de>> ArrayMap<'_, 'de, '_, R> {
    /// Scans an entry object for its `Key` and `Value` members (exact names, as O3DE looks them up).
    fn entry_members(&mut self) -> Result<EntryMembers<R::Loc>> {
        let depth = self.de.st.depth;
        let read = &mut self.de.read;
        read.begin_object()?;
        let (mut key, mut value) = (None, None);
        let mut first = true;
        while let Some(name) = read.next_key(first)? {
            first = false;
            let which = match name.as_str() {
                "Key" => Some(true),
                "Value" => Some(false),
                _ => None,
            };
            read.peek()?;
            match which {
                Some(true) => key = Some(read.loc()),
                Some(false) => value = Some(read.loc()),
                None => {}
            }
            read.skip_ahead(depth)?;
        }
        Ok((key, value))
    }

    fn ident_at(&mut self, loc: Option<R::Loc>) -> Result<Option<usize>> {
        let Some(loc) = loc else {
            return Ok(None);
        };
        let back = self.de.read.loc();
        self.de.read.seek(loc);
        let r = self.de.read.peek().map(|_| self.de.read.ident());
        self.de.read.seek(back);
        r.map(Some).map_err(|e| self.de.err(e))
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for ArrayMap<'_, 'de, '_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            match self.de.read.next_element(self.index == 0) {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            }
            self.de.st.push(Seg::Index(self.index));
            let kind = match self.de.peek() {
                Ok(kind) => kind,
                Err(e) => {
                    self.de.st.pop();
                    return Err(e);
                }
            };
            let entry = self.de.read.ident();
            self.index += 1;
            if kind != Peek::Obj {
                // Nothing was handed out yet, so the entry can be dropped right away.
                self.de.skip()?;
                self.de.st.slot = Slot::Entry;
                let r = self.de.st.event(entry, ResultCode::new(Task::ReadField, Outcome::Unavailable), &|| {
                    format!("a map entry must be an object with \"Key\" and \"Value\", not {}", describe(kind))
                });
                self.de.st.pop();
                self.result.combine_with(r?.0);
                continue;
            }
            self.de.enter()?;
            let r = self.entry_members();
            self.de.leave();
            let (key, value) = r.map_err(|e| self.de.err(e))?;
            let after = self.de.read.loc();
            let (key_ident, value_ident) = (self.ident_at(key)?, self.ident_at(value)?);
            if !self.de.st.plan.is_empty() {
                let skip =
                    [(key_ident, "Key"), (value_ident, "Value")].into_iter().find_map(|(i, member)| {
                        match self.de.st.plan.get(&i?) {
                            Some(Action::Skip(issue)) => Some((member, issue.clone())),
                            _ => None,
                        }
                    });
                if let Some((member, issue)) = skip {
                    // Reported where the earlier pass met it: at the entry's Key or Value.
                    self.de.st.push(Seg::Key(member));
                    let code = self.de.st.replay(issue.as_ref());
                    self.de.st.pop();
                    self.result.combine_with(code);
                    self.de.st.pop();
                    continue;
                }
            }
            self.de.st.push(Seg::Key("Key"));
            let r = match (key, key_ident) {
                (Some(loc), Some(ident)) => {
                    self.de.read.seek(loc);
                    self.de.nested(Slot::Entry, seed).map_err(|e| self.de.value_error(e, ident, Slot::Entry))
                }
                _ => {
                    // A missing Key is taken as `{}`: a new default key.
                    self.de.st.slot = Slot::Entry;
                    let r =
                        self.de.st.event(entry, ResultCode::new(Task::CreateDefault, Outcome::DefaultsUsed), &|| {
                            "no \"Key\": the default key is used".to_owned()
                        });
                    match r {
                        Ok((code, _)) => {
                            self.de.st.acc = code;
                            let r = seed.deserialize(Placeholder);
                            self.de.place(entry, r, &default_refused)
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            self.de.st.pop();
            match r {
                Ok(k) => {
                    self.result.combine_with(self.de.st.acc);
                    self.pending = Some((value, after, value_ident.unwrap_or(entry)));
                    return Ok(Some(k));
                }
                Err(e) => {
                    self.de.st.pop();
                    return Err(e);
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let Some((value, after, ident)) = self.pending.take() else {
            return Err(Error::syntax("map value requested before its key"));
        };
        self.de.st.push(Seg::Key("Value"));
        let r = match value {
            Some(loc) => {
                self.de.read.seek(loc);
                self.de.nested(Slot::Entry, seed).map_err(|e| self.de.value_error(e, ident, Slot::Entry))
            }
            None => {
                self.de.st.slot = Slot::Entry;
                match self.de.st.event(ident, ResultCode::new(Task::CreateDefault, Outcome::DefaultsUsed), &|| {
                    "no \"Value\": the default value is used".to_owned()
                }) {
                    Ok((code, _)) => {
                        self.de.st.acc = code;
                        let r = seed.deserialize(Placeholder);
                        self.de.place(ident, r, &default_refused)
                    }
                    Err(e) => Err(e),
                }
            }
        };
        self.de.st.pop();
        self.de.st.pop();
        self.de.read.seek(after);
        if r.is_ok() {
            self.result.combine_with(self.de.st.acc);
        }
        r
    }
}

enum KeyStr<'de, 'k> {
    Borrowed(&'de str),
    Owned(&'k str),
}

/// A map key read from an object member name: loaded as the JSON string with O3DE's coercions;
/// the member name `{}` is the default key.
struct KeyDeserializer<'a, 'k, 'de, 'cb, R> {
    key: KeyStr<'de, 'k>,
    de: &'a mut Core<'de, 'cb, R>,
    ident: usize,
}

impl<'de, R: Read<'de>> KeyDeserializer<'_, '_, 'de, '_, R> {
    fn text(&self) -> &str {
        match self.key {
            KeyStr::Borrowed(k) => k,
            KeyStr::Owned(k) => k,
        }
    }

    fn leaf<T: Copy, V>(
        self,
        coerce: impl FnOnce(&Tok<'_>) -> Coerced<T>,
        zero: T,
        visit: impl FnOnce(T) -> Result<V>,
    ) -> Result<V> {
        let tok = if self.text() == "{}" { Tok::EmptyObject } else { Tok::Str(self.text()) };
        let c = match coerce(&tok) {
            Coerced::Fail(outcome, message) => Coerced::Fail(outcome, format!("key: {message}")),
            c => c,
        };
        self.de.settle(self.ident, c, zero, visit)
    }
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for KeyDeserializer<'_, '_, 'de, '_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.st.acc = SUCCESS;
        match self.key {
            KeyStr::Borrowed(k) => visitor.visit_borrowed_str(k),
            KeyStr::Owned(k) => visitor.visit_str(k),
        }
    }

    leaf_methods!();

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.st.acc = SUCCESS;
        match self.key {
            KeyStr::Borrowed("{}") | KeyStr::Owned("{}") => {
                self.de.st.defaulted(self.ident)?;
                self.de.place(self.ident, visitor.visit_borrowed_str(""), &default_refused)
            }
            KeyStr::Borrowed(k) => visitor.visit_borrowed_str(k),
            KeyStr::Owned(k) => visitor.visit_str(k),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if name.starts_with(NATIVE) {
            let ident = self.ident;
            let key = self.key;
            return self.de.native(ident, |de| visitor.visit_newtype_struct(KeyDeserializer { key, de, ident }));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match match_name(variants, self.text(), 0) {
            Some(i) => {
                self.de.st.acc = SUCCESS;
                visitor.visit_enum(UnitVariant(variants[i]))
            }
            None => {
                let message = format!("key \"{}\" is not a variant of `{name}`", coerce::clip(self.text()));
                let m = || message.clone();
                self.de.st.failed(self.ident, Outcome::Unsupported, &m)?;
                let r = visitor.visit_enum(UnitVariant(variants.first().copied().unwrap_or("")));
                self.de.place(self.ident, r, &m)
            }
        }
    }

    serde_core::forward_to_deserialize_any! {
        char bytes byte_buf unit unit_struct seq tuple tuple_struct map struct ignored_any
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// An array of numbers already read.
struct Nums<'a>(&'a [Num]);

impl<'de> de::Deserializer<'de> for Nums<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(NumsSeq(self.0.iter()))
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct NumsSeq<'a>(std::slice::Iter<'a, Num>);

impl<'de> de::SeqAccess<'de> for NumsSeq<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.0.next() {
            Some(&n) => seed.deserialize(OneNum(n)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct OneNum(Num);

impl<'de> de::Deserializer<'de> for OneNum {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Num::U(u) => visitor.visit_u64(u),
            Num::I(i) => visitor.visit_i64(i),
            Num::F(f) => visitor.visit_f64(f),
        }
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The natural default of any type: zero, false, "", empty, None, the first unit variant, and
/// `{}` for self-describing targets (this crate's types read it as their default).
struct Placeholder;

macro_rules! placeholder_zero {
    ($($method:ident => $visit:ident($zero:expr);)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.$visit($zero)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Placeholder {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(EmptyMap)
    }

    placeholder_zero! {
        deserialize_bool => visit_bool(false);
        deserialize_i8 => visit_i8(0);
        deserialize_i16 => visit_i16(0);
        deserialize_i32 => visit_i32(0);
        deserialize_i64 => visit_i64(0);
        deserialize_i128 => visit_i128(0);
        deserialize_u8 => visit_u8(0);
        deserialize_u16 => visit_u16(0);
        deserialize_u32 => visit_u32(0);
        deserialize_u64 => visit_u64(0);
        deserialize_u128 => visit_u128(0);
        deserialize_f32 => visit_f32(0.0);
        deserialize_f64 => visit_f64(0.0);
        deserialize_char => visit_char('\0');
        deserialize_str => visit_borrowed_str("");
        deserialize_string => visit_borrowed_str("");
        deserialize_identifier => visit_borrowed_str("");
        deserialize_bytes => visit_borrowed_bytes(&[]);
        deserialize_byte_buf => visit_borrowed_bytes(&[]);
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_none()
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        if name == RAW {
            return visitor.visit_string("{}".to_owned());
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(EmptyMap)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if name == POLY {
            return visitor.visit_enum(PolyPlaceholder);
        }
        visitor.visit_map(EmptyMap)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(UnitVariant(variants.first().copied().unwrap_or("")))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

struct EmptyMap;

impl<'de> de::MapAccess<'de> for EmptyMap {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, _seed: K) -> Result<Option<K::Value>> {
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, _seed: S) -> Result<S::Value> {
        Err(Error::syntax("no value in an empty map"))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

struct EmptySeq;

impl<'de> de::SeqAccess<'de> for EmptySeq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, _seed: T) -> Result<Option<T::Value>> {
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

/// A unit variant by name.
struct UnitVariant(&'static str);

impl<'de> de::EnumAccess<'de> for UnitVariant {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.0))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitVariant {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(Placeholder)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(EmptySeq)
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        visitor.visit_map(EmptyMap)
    }
}

/// `{"Variant": payload}`.
struct VariantObject<'a, 'de, 'cb, R> {
    de: &'a mut Core<'de, 'cb, R>,
    variant: &'static str,
}

impl<'de, R: Read<'de>> de::EnumAccess<'de> for VariantObject<'_, 'de, '_, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for VariantObject<'_, 'de, '_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.de.nested(Slot::Pointee, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.de.st.slot = Slot::Pointee;
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        self.de.st.slot = Slot::Pointee;
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

/// Hands a `$type` visitor the resolved type index; the payload is the object itself.
struct PolyAccess<'a, 'de, 'cb, R> {
    de: &'a mut Core<'de, 'cb, R>,
    index: u32,
}

impl<'de, R: Read<'de>> de::EnumAccess<'de> for PolyAccess<'_, 'de, '_, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let v = seed.deserialize(U32Deserializer::<Error>::new(self.index))?;
        Ok((v, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for PolyAccess<'_, 'de, '_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        self.de.skip()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.de.nested(Slot::Pointee, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

/// The placeholder of a `$type` value: the declared type's default.
struct PolyPlaceholder;

impl<'de> de::EnumAccess<'de> for PolyPlaceholder {
    type Error = Error;
    type Variant = UnitVariant;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, UnitVariant)> {
        let v = seed.deserialize(U32Deserializer::<Error>::new(DECLARED_TYPE))?;
        Ok((v, UnitVariant("")))
    }
}

/// Where loading starts and how issues are collected.
pub(crate) struct LoadRun<'cb> {
    pub(crate) settings: LoadSettings,
    pub(crate) report: bool,
    pub(crate) callback: Option<Callback<'cb>>,
}

/// Runs a load over `make_read()` in as many passes as its soft failures need; `each` reads the
/// value in one pass.
pub(crate) fn load<'de, R, T>(
    make_read: impl Fn() -> R,
    run: LoadRun<'_>,
    mut each: impl FnMut(&mut Core<'de, '_, R>) -> Result<T>,
) -> Result<(T, Report)>
where
    R: Read<'de>,
{
    let LoadRun { settings, report, callback } = run;
    let mut plan: HashMap<usize, Action> = HashMap::new();
    let mut last_plan = HashMap::new();
    let mut candidates = HashMap::new();
    let mut answers = HashMap::new();
    let mut callback = callback;
    let mut best: Option<(T, Report)> = None;
    // What look-aheads learned about the input: a later pass skips faster, never slower.
    let mut memo = R::Memo::default();
    for _ in 0..MAX_PASSES {
        let mut core = Core::new(make_read(), settings);
        core.read.set_memo(std::mem::take(&mut memo));
        core.st.plan = std::mem::take(&mut plan);
        core.st.last_plan = std::mem::take(&mut last_plan);
        core.st.candidates = std::mem::take(&mut candidates);
        core.st.answers = std::mem::take(&mut answers);
        core.st.report = report;
        core.st.callback = callback.take();
        core.st.track = report || core.st.callback.is_some() || R::TRACK;
        let root = match core.peek() {
            Ok(_) => core.read.ident(),
            Err(e) => return Err(e),
        };
        core.st.root_ident = root;
        let result = each(&mut core).and_then(|v| match core.read.end() {
            Ok(()) => Ok(v),
            Err(e) => Err(core.err(e)),
        });
        memo = core.read.take_memo();
        let Core { st, .. } = core;
        let State {
            plan: old_plan,
            found,
            last_plan: old_last,
            last_found,
            candidates: c,
            issues,
            omitted,
            acc,
            answers: a,
            callback: cb,
            ..
        } = st;
        callback = cb;
        answers = a;
        plan = old_plan;
        last_plan = old_last;
        candidates = c;
        let found_nothing = found.is_empty() && last_found.is_empty();
        last_plan.extend(last_found);
        let report = Report { result: acc, issues, omitted };
        match result {
            Ok(v) if found_nothing => return Ok((v, report)),
            Ok(v) => best = Some((v, report)),
            Err(e) if e.is_restart() => {}
            Err(e) if e.is_soft() => {
                // The root value itself was refused: keep (a placeholder) next time.
                let message = e.message();
                if plan.contains_key(&root) {
                    return Err(e.with_path(String::new()));
                }
                let result = ResultCode::new(Task::Convert, Outcome::Unsupported);
                plan.insert(root, Action::Keep(Some(Replay { result, message: message.into() })));
                continue;
            }
            Err(e) => return Err(e),
        }
        if found_nothing {
            break;
        }
        if plan.is_empty() {
            // The first pass that found anything: its findings are the plan (no second copy).
            plan = found;
            continue;
        }
        for (ident, action) in found {
            match (plan.get(&ident), &action) {
                (Some(Action::Keep(_)), Action::Skip(_)) => {}
                _ => {
                    plan.insert(ident, action);
                }
            }
        }
    }
    best.ok_or_else(|| Error::data(Outcome::Invalid, "the document has too many values that cannot be loaded"))
}

/// Loads `T` from JSON text.
pub(crate) fn from_str_run<'de, T: de::Deserialize<'de>>(text: &'de str, run: LoadRun<'_>) -> Result<(T, Report)> {
    let relaxed = run.settings.relaxed;
    load(|| SliceRead::from_str(text, relaxed), run, |core| T::deserialize(core))
}

/// Loads `T` from JSON bytes (validated as UTF-8).
pub(crate) fn from_slice_run<'de, T: de::Deserialize<'de>>(bytes: &'de [u8], run: LoadRun<'_>) -> Result<(T, Report)> {
    let relaxed = run.settings.relaxed;
    load(|| SliceRead::from_slice(bytes, relaxed), run, |core| T::deserialize(core))
}

/// Loads `T` from a `serde_json::Value`.
pub(crate) fn from_value_run<'de, T: de::Deserialize<'de>>(
    value: &'de serde_json::Value,
    run: LoadRun<'_>,
) -> Result<(T, Report)> {
    load(|| ValueRead::new(value), run, |core| T::deserialize(core))
}

/// A serde `Deserializer` over O3DE JSON text, for driving `Deserialize` impls by hand.
///
/// It reads in one pass: a value that cannot be converted yields its type's zero value (0, `""`,
/// empty, `None`, `T::default()` through `#[serde(default)]`) and is listed in [`report`](Self::report).
/// The free functions ([`from_str`](crate::from_str), …) and [`Options`](crate::Options) instead run
/// the full O3DE load, where such a member keeps the value its parent's `Default` gives it and
/// failed container entries are dropped.
///
/// ```
/// use serde::Deserialize;
/// let mut de = serde_o3de::Deserializer::from_str(r#"{"Hp": "42 points"}"#);
/// #[derive(Deserialize)]
/// struct Unit { hp: i32 }
/// let unit = Unit::deserialize(&mut de)?;
/// de.end()?;
/// assert_eq!(unit.hp, 42);
/// # Ok::<(), serde_o3de::Error>(())
/// ```
pub struct Deserializer<'de> {
    core: Core<'de, 'static, SliceRead<'de>>,
}

impl<'de> Deserializer<'de> {
    /// Reads from JSON text.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &'de str) -> Self {
        Self::with(SliceRead::from_str(text, false))
    }

    /// Reads from JSON bytes (validated as UTF-8).
    pub fn from_slice(bytes: &'de [u8]) -> Self {
        Self::with(SliceRead::from_slice(bytes, false))
    }

    fn with(read: SliceRead<'de>) -> Self {
        let mut core = Core::new(read, LoadSettings::default());
        core.st.report = true;
        core.st.root_ident = usize::MAX - 1;
        Deserializer { core }
    }

    /// Requires that only whitespace follows the value.
    pub fn end(&mut self) -> Result<()> {
        let r = self.core.read.end();
        r.map_err(|e| self.core.err(e))
    }

    /// The result and issues so far.
    pub fn report(&self) -> Report {
        Report { result: self.core.st.acc, issues: self.core.st.issues.clone(), omitted: self.core.st.omitted }
    }

    /// Sets the nesting limit (default 128).
    pub fn max_depth(&mut self, depth: usize) -> &mut Self {
        self.core.st.depth = depth;
        self.core.st.max_depth = depth;
        self
    }

    /// Sets how many issues the [`report`](Self::report) keeps (default
    /// [`DEFAULT_MAX_ISSUES`](crate::DEFAULT_MAX_ISSUES)); the rest are counted.
    pub fn max_issues(&mut self, max: usize) -> &mut Self {
        self.core.st.max_issues = max;
        self
    }

    /// The input bytes (for diagnostics).
    pub fn input(&self) -> &'de [u8] {
        self.core.read.input()
    }
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
            let r = (&mut self.core).$method($($arg,)* visitor);
            // A one-pass deserializer cannot restart: a refused placeholder is an error.
            r.map_err(|e| if e.is_restart() { Error::new(Code::Visitor("a value could not be loaded and its type refused a default".into())) } else { e })
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    forward! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}
