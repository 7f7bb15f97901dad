//! The bookkeeping of a load: where the reader is (slot and path), the result of the value just
//! read, the issues and the report, and the plan that carries what one pass learned to the next.

use std::collections::HashMap;
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::read::Ref;
use crate::report::{Issue, IssuePath, Outcome, PathSegment, ResultCode, Task, push_pointer_token};

/// Where the next value sits: decides what `{}` and a failure mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
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
pub(super) enum Seg<'de> {
    Key(&'de str),
    Owned(Box<str>),
    Index(usize),
}

/// What a later pass does at a value that failed in an earlier one.
#[derive(Debug, Clone)]
pub(super) enum Action {
    /// Treat the member, element or map entry as absent (reporting the issue again).
    Skip(Option<Replay>),
    /// Read nothing; hand the placeholder to the visitor (an error if it is refused).
    Keep(Option<Replay>),
}

/// An issue of an earlier pass, reported again where the later pass meets its value (at the same
/// path, which is therefore not stored).
#[derive(Debug, Clone)]
pub(super) struct Replay {
    pub(super) result: ResultCode,
    pub(super) message: Box<str>,
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
pub(super) type Candidates = Rc<[(Box<str>, usize)]>;

/// A user callback: sees every issue, returns the result code that replaces it.
pub(crate) type Callback<'cb> = &'cb mut dyn FnMut(&Issue) -> ResultCode;

pub(super) struct State<'de, 'cb> {
    pub(super) depth: usize,
    pub(super) max_depth: usize,
    pub(super) strict_doubles: bool,
    /// The current path, kept while issues are reported (otherwise an error finds its path in
    /// the input).
    pub(super) path: Vec<Seg<'de>>,
    /// The shared issue paths of a prefix of `path` (made when an issue needs one).
    pub(super) chain: Vec<IssuePath>,
    pub(super) track: bool,
    /// The result of the value just read.
    pub(super) acc: ResultCode,
    pub(super) slot: Slot,
    pub(super) root_ident: usize,
    /// The root value itself could not be loaded, or O3DE leaves it untouched (an enum read from
    /// `""`): its placeholder stands in, and `load_into` keeps the value it started from.
    pub(super) root_failed: bool,
    pub(super) plan: HashMap<usize, Action>,
    /// Struct objects with duplicate members (by the object's ident): for each such field, sorted
    /// by field, the ident of the occurrence that wins (the last). From earlier passes.
    pub(super) last_plan: HashMap<usize, Rc<[(usize, usize)]>>,
    /// The same, found in this pass.
    pub(super) last_found: HashMap<usize, Rc<[(usize, usize)]>>,
    /// Objects inside the winning occurrence of a duplicate (which the pass that found it skips)
    /// that give a member name twice, ASCII case aside (by the object's ident): those members'
    /// names and idents, so that the next pass knows the winners of every level at once. Kept
    /// over passes.
    pub(super) candidates: HashMap<usize, Candidates>,
    pub(super) found: HashMap<usize, Action>,
    pub(super) report: bool,
    pub(super) issues: Vec<Issue>,
    pub(super) max_issues: usize,
    /// Issues met beyond `max_issues`.
    pub(super) omitted: usize,
    pub(super) callback: Option<Callback<'cb>>,
    /// Callback answers of earlier passes, so the callback sees every issue once.
    pub(super) answers: HashMap<(usize, u32), ResultCode>,
}

pub(super) const SUCCESS: ResultCode = ResultCode::new(Task::Convert, Outcome::Success);
/// Where a container's result starts: an empty container loads successfully (O3DE's conformity
/// tests), an element that used its default makes it PartialDefaults.
pub(super) const CONTAINER: ResultCode = ResultCode::new(Task::ReadField, Outcome::Success);

impl<'de, 'cb> State<'de, 'cb> {
    pub(super) fn new(settings: LoadSettings) -> Self {
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

    pub(super) fn render_path(&self) -> String {
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
    pub(super) fn push(&mut self, seg: Seg<'de>) {
        if self.track {
            self.path.push(seg);
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) {
        if self.track {
            self.path.pop();
            if self.chain.len() > self.path.len() {
                self.chain.pop();
            }
        }
    }

    /// The current path as a shared [`IssuePath`]: each segment is copied once while it is on
    /// the path, however many issues are reported under it.
    pub(super) fn issue_path(&mut self) -> IssuePath {
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
    pub(super) fn record(&mut self, result: ResultCode, message: String) {
        if self.issues.len() < self.max_issues {
            let path = self.issue_path();
            self.issues.push(Issue { result, path, message });
        } else {
            self.omitted = self.omitted.saturating_add(1);
        }
    }

    #[inline]
    pub(super) fn push_key(&mut self, key: &Ref<'de, '_>) {
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
    pub(super) fn event(
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
    pub(super) fn replay(&mut self, issue: Option<&Replay>) -> ResultCode {
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
    pub(super) fn failed(&mut self, ident: usize, outcome: Outcome, message: &dyn Fn() -> String) -> Result<()> {
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
    pub(super) fn defaulted(&mut self, ident: usize) -> Result<()> {
        self.defaulted_with(ident, ResultCode::new(Task::CreateDefault, Outcome::DefaultsUsed), &|| {
            "Explicit default ({}) used".to_owned()
        })
    }

    /// A value O3DE leaves untouched (`code` is DefaultsUsed): reported like
    /// [`defaulted`](Self::defaulted), and a struct member keeps its current value.
    pub(super) fn defaulted_with(
        &mut self,
        ident: usize,
        code: ResultCode,
        message: &dyn Fn() -> String,
    ) -> Result<()> {
        let (code, issue) = self.event(ident, code, message)?;
        self.acc = code;
        if self.slot == Slot::Member && ident != self.root_ident && !self.plan.contains_key(&ident) {
            self.found.entry(ident).or_insert(Action::Skip(issue));
        }
        Ok(())
    }
}
