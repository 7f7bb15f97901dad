//! [`Core`], the deserializer over a [`Read`] input: the steps every value goes through (peek,
//! coerce, settle on the value, the default or the placeholder), depth, errors with their paths,
//! and the arrays and objects whose access objects live in `access.rs` and `structs.rs`.

use serde_core::de::{DeserializeSeed, Visitor};

use super::state::{Action, LoadSettings, SUCCESS, Seg, Slot, State};
use crate::channel;
use crate::coerce::{self, Coerced, Tok};
use crate::error::{Code, Error, Result};
use crate::read::{Peek, Read, Ref};
use crate::report::{Outcome, ResultCode, Task};

/// The deserializer core, generic over the input.
pub(crate) struct Core<'de, 'cb, R> {
    pub(super) read: R,
    pub(super) st: State<'de, 'cb>,
}

impl<'de, 'cb, R: Read<'de>> Core<'de, 'cb, R> {
    /// Whether the root value could not be loaded in this pass (a placeholder stands in for it).
    pub(crate) fn root_failed(&self) -> bool {
        self.st.root_failed
    }

    pub(super) fn new(read: R, settings: LoadSettings) -> Self {
        Core { read, st: State::new(settings) }
    }

    /// Completes an error with the position and path where it happened.
    pub(super) fn err(&self, e: Error) -> Error {
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
    pub(super) fn peek(&mut self) -> Result<Peek> {
        match self.read.peek() {
            Ok(p) => Ok(p),
            Err(e) => Err(self.err(e)),
        }
    }

    pub(super) fn skip(&mut self) -> Result<()> {
        let depth = self.st.depth;
        match self.read.skip(depth) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.err(e)),
        }
    }

    pub(super) fn enter(&mut self) -> Result<()> {
        if self.st.depth == 0 {
            let e = Error::new(Code::Depth(self.st.max_depth));
            return Err(self.err(e));
        }
        self.st.depth -= 1;
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.st.depth += 1;
    }

    /// Maps the outcome of a placeholder visit for the value `ident`: a refusal is recorded as a
    /// failure of the value and restarts the load, or, where no later pass can help (the root, a
    /// value an earlier pass decided to keep), is an error.
    pub(super) fn place<T>(&mut self, ident: usize, r: Result<T>, message: &dyn Fn() -> String) -> Result<T> {
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
    pub(super) fn scalar<T>(&mut self, f: impl FnOnce(&Tok<'_>) -> Coerced<T>) -> Result<(usize, Coerced<T>)> {
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
    pub(super) fn kept(&mut self) -> Result<Option<usize>> {
        if self.st.plan.is_empty() {
            return Ok(None);
        }
        self.kept_slow()
    }

    #[inline(never)]
    pub(super) fn kept_slow(&mut self) -> Result<Option<usize>> {
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
    pub(super) fn leaf<T: Copy, V>(
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
    pub(super) fn settle<T, V>(
        &mut self,
        ident: usize,
        c: Coerced<T>,
        zero: T,
        visit: impl FnOnce(T) -> Result<V>,
    ) -> Result<V> {
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
    pub(super) fn compound_failed<V: Visitor<'de>>(
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
    pub(super) fn compound_start(&mut self) -> Result<(Peek, usize, bool)> {
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

    pub(super) fn deserialize_str_like<V: Visitor<'de>>(&mut self, visitor: V, owned: bool) -> Result<V::Value> {
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
    pub(super) fn nested<T>(&mut self, slot: Slot, seed: T) -> Result<T::Value>
    where
        T: DeserializeSeed<'de>,
    {
        self.st.slot = slot;
        self.st.acc = ResultCode::UNSET;
        seed.deserialize(&mut *self)
    }

    /// Turns the error of a member/element/entry value into what the container returns: soft errors
    /// are recorded at `ident` (the next pass treats the value as absent) and restart the load.
    pub(super) fn value_error(&mut self, e: Error, ident: usize, slot: Slot) -> Error {
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

    /// Runs a visitor of one of this crate's types with the side channel open, then reports what
    /// it said: an Altered outcome (Unsupported) is a soft failure (the visitor returned the value it
    /// started from), other non-Success outcomes are issues, halting outcomes are errors.
    pub(super) fn native<T>(&mut self, ident: usize, run: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.native_with(ident, true, run)
    }

    /// [`native`](Self::native); `leaf` says whether a silent success is a plain Success (this
    /// crate's leaf types) or keeps the result of what `run` read (a `$type` object).
    pub(super) fn native_with<T>(
        &mut self,
        ident: usize,
        leaf: bool,
        run: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let slot = self.st.slot;
        let guard = channel::open(self.st.strict_doubles);
        let r = run(self);
        let said = guard.close();
        self.st.slot = slot;
        match (r, said) {
            (Err(e), Some(said)) if said.code.is_halted() && !e.is_restart() => {
                let (code, message) = (said.code, said.message);
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
            (Ok(v), Some(said)) => {
                let (code, message) = (said.code, said.message);
                if code.processing() == crate::report::Processing::Altered {
                    self.st.failed(ident, code.outcome(), &|| message.clone())?;
                } else if said.keep {
                    // O3DE left the value untouched (an enum read from `""`): a member keeps its
                    // current value.
                    self.st.defaulted_with(ident, code, &|| message.clone())?;
                    if ident == self.st.root_ident {
                        self.st.root_failed = true;
                    }
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
    pub(super) fn native_quiet<T>(&mut self, run: impl FnOnce() -> Result<T>) -> Result<T> {
        let guard = channel::open(self.st.strict_doubles);
        let r = run();
        drop(guard.close());
        r
    }

    pub(super) fn drain_object(&mut self) -> Result<()> {
        loop {
            match self.read.next_key(false) {
                Ok(Some(_)) => self.skip()?,
                Ok(None) => return Ok(()),
                Err(e) => return Err(self.err(e)),
            }
        }
    }

    pub(super) fn drain_array(&mut self, mut index: usize) -> Result<()> {
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
}

/// The message of a value an earlier pass decided to keep whose type refused the placeholder.
pub(super) fn kept_message() -> String {
    "an earlier pass found this value cannot be loaded, and its type refused a default".to_owned()
}

/// The message of a type that refused the placeholder standing in for `{}`.
pub(super) fn default_refused() -> String {
    "the type refused the default value ({}); give it #[serde(default)]".to_owned()
}

/// What a value of this kind is called in messages.
pub(super) fn describe(kind: Peek) -> &'static str {
    match kind {
        Peek::Null => "null",
        Peek::True | Peek::False => "a boolean",
        Peek::Num => "a number",
        Peek::Str => "a string",
        Peek::Arr => "an array",
        Peek::Obj => "an object",
    }
}
