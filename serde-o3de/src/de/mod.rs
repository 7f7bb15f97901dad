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
//!
//! The loader's parts: `state.rs` keeps the bookkeeping of a pass, `core.rs` the steps every value
//! goes through, `visit.rs` serde's `Deserializer` over them, `structs.rs` and `access.rs` the
//! access objects of structs and other containers, `lookahead.rs` the reads ahead, and `fixed.rs`
//! the deserializers of values known without reading (placeholders). This file runs the passes.

use std::collections::HashMap;

use serde_core::de::{self, Visitor};

use crate::error::{Code, Error, Result};
use crate::read::{Read, SliceRead, ValueRead};
use crate::report::{Outcome, Report, ResultCode, Task};

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

mod access;
mod core;
mod fixed;
mod lookahead;
mod state;
mod structs;
mod visit;

pub(crate) use self::core::Core;
use self::state::{Action, Replay, State};
pub(crate) use self::state::{Callback, LoadSettings};

/// How many times a document may be read before the loader gives up isolating soft failures.
const MAX_PASSES: u32 = 32;

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
