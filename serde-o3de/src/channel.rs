//! A thread-local side channel between this crate's deserializer/serializer and this crate's own
//! `Deserialize`/`Serialize` impls (math types, enums, `$type` polymorphism, raw JSON).
//!
//! serde's data flows one way (deserializer → visitor). O3DE's types also report an outcome
//! (PartialDefaults for a color without alpha, DefaultsUsed for an empty enum string, Unsupported
//! with the value left untouched). The deserializer opens the channel around such a value; the type's
//! visitor reports into it and returns its placeholder instead of failing. Under any other
//! deserializer the channel is closed and the same visitor returns an error instead.

use std::cell::RefCell;

use crate::report::ResultCode;

#[derive(Default)]
struct Slot {
    reported: Option<(ResultCode, String)>,
    /// Whether the value asked to be left as it was (an enum read from `""`).
    keep: bool,
}

/// What a visitor reported through an open channel.
pub(crate) struct Said {
    /// The outcome, combined over everything reported.
    pub(crate) code: ResultCode,
    /// The message of the most severe report.
    pub(crate) message: String,
    /// Whether the value asked to be left as it was: a struct member keeps its current value.
    pub(crate) keep: bool,
}

#[derive(Default)]
struct State {
    load: Vec<Slot>,
    strict_doubles: Vec<bool>,
    raw_text: u32,
    /// Whether `elements` containers should hand over their element default (a stack: the tree
    /// builder turns it off inside).
    element_defaults: Vec<bool>,
    /// Whether `$type` values should hand over the default of their class (likewise).
    poly_defaults: Vec<bool>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// An open load channel; closing it returns what the visitor reported.
pub(crate) struct Guard {
    open: bool,
}

/// Opens a load channel for one value.
pub(crate) fn open(strict_doubles: bool) -> Guard {
    STATE.with_borrow_mut(|s| {
        s.load.push(Slot::default());
        s.strict_doubles.push(strict_doubles);
    });
    Guard { open: true }
}

impl Guard {
    /// Closes the channel and returns the report, if any.
    pub(crate) fn close(mut self) -> Option<Said> {
        self.open = false;
        STATE.with_borrow_mut(|s| {
            s.strict_doubles.pop();
            s.load.pop().and_then(|slot| {
                let keep = slot.keep;
                slot.reported.map(|(code, message)| Said { code, message, keep })
            })
        })
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.open {
            STATE.with_borrow_mut(|s| {
                s.strict_doubles.pop();
                s.load.pop();
            });
        }
    }
}

/// Reports an outcome for the value being loaded. Returns `false` when no channel is open (the
/// caller must then fail with an error itself).
pub(crate) fn report(code: ResultCode, message: String) -> bool {
    STATE.with_borrow_mut(|s| match s.load.last_mut() {
        Some(slot) => {
            slot.reported = Some(match slot.reported.take() {
                Some((old, old_message)) if old >= code => (old.combine(code), old_message),
                Some((old, _)) => (old.combine(code), message),
                None => (code, message),
            });
            true
        }
        None => false,
    })
}

/// Reports an outcome for a value that O3DE leaves untouched (an enum read from `""`): under this
/// crate's deserializer a struct member keeps its current value. Returns `false` when no channel
/// is open.
pub(crate) fn report_kept(code: ResultCode, message: String) -> bool {
    let open = report(code, message);
    if open {
        STATE.with_borrow_mut(|s| {
            if let Some(slot) = s.load.last_mut() {
                slot.keep = true;
            }
        });
    }
    open
}

/// Whether color arrays must hold JSON doubles (O3DE's `IsDouble` check); true outside this crate's
/// deserializer.
pub(crate) fn strict_doubles() -> bool {
    STATE.with_borrow(|s| s.strict_doubles.last().copied().unwrap_or(true))
}

/// Marks that this crate's serializer wants raw JSON text as a plain string while `f` runs.
pub(crate) fn with_raw_text<R>(f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            STATE.with_borrow_mut(|s| s.raw_text -= 1);
        }
    }
    STATE.with_borrow_mut(|s| s.raw_text += 1);
    let _reset = Reset;
    f()
}

/// Whether this crate's serializer asked for raw JSON text.
pub(crate) fn raw_text_wanted() -> bool {
    STATE.with_borrow(|s| s.raw_text > 0)
}

/// A request this crate's serializer makes of this crate's `Serialize` impls.
#[derive(Clone, Copy)]
pub(crate) enum Want {
    /// `elements` containers hand over their element default.
    ElementDefaults,
    /// `$type` values hand over the default of their class.
    PolyDefaults,
}

fn flags(s: &mut State, want: Want) -> &mut Vec<bool> {
    match want {
        Want::ElementDefaults => &mut s.element_defaults,
        Want::PolyDefaults => &mut s.poly_defaults,
    }
}

/// Runs `f` with `want` switched on or off (restored afterwards, also on panic).
pub(crate) fn with<R>(want: Want, on: bool, f: impl FnOnce() -> R) -> R {
    struct Reset(Want);
    impl Drop for Reset {
        fn drop(&mut self) {
            STATE.with_borrow_mut(|s| flags(s, self.0).pop());
        }
    }
    STATE.with_borrow_mut(|s| flags(s, want).push(on));
    let _reset = Reset(want);
    f()
}

/// Whether this crate's serializer made the request.
pub(crate) fn wanted(want: Want) -> bool {
    STATE.with_borrow_mut(|s| flags(s, want).last().copied().unwrap_or(false))
}
