//! [`Serializer`] and the steps every value goes through: its context (member, element, root) and
//! its default, whether it equals that default or its type's zero value, and `{}` where O3DE writes
//! that instead.

use serde_core::ser::Serialize;

use super::tree::DNode;
use crate::error::{Error, Result};
use crate::fmt::{write_f64, write_str};
use crate::report::{Outcome, ResultCode, Task};

/// Which part of its parent a value is: decides omission and `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    Root,
    Member,
    /// A container element, map key or value, tuple element or `Some` content: `{}` loads as the
    /// type's zero value there.
    Nested,
}

/// What the value's default is.
#[derive(Debug, Clone, Copy)]
pub(super) enum Def<'t> {
    /// Unknown: write everything.
    Full,
    /// The type's zero value.
    Fresh,
    /// A known default.
    Tree(&'t DNode),
}

/// Store settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoreSettings {
    pub(crate) keep_defaults: bool,
    pub(crate) sort_maps: bool,
    /// Leave out what O3DE leaves out even where this crate's load cannot restore it (floats
    /// within epsilon of their defaults, partial colors and transforms against defaults that are
    /// not the type's own).
    pub(crate) exact: bool,
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings { keep_defaults: false, sort_maps: true, exact: false }
    }
}

/// A serde `Serializer` that writes compact O3DE JSON into a buffer.
///
/// The free functions ([`to_string`](crate::to_string), …) and [`Options`](crate::Options) drive
/// it with the default object of the value's type; built with [`Serializer::new`] it has no default
/// object, so struct fields are all written and only zero values inside containers become `{}`.
///
/// ```
/// use serde::Serialize;
/// let mut ser = serde_o3de::Serializer::new();
/// vec![0.5f32, 0.0].serialize(&mut ser)?;
/// assert_eq!(ser.into_string(), "[0.5,{}]");
/// # Ok::<(), serde_o3de::Error>(())
/// ```
pub struct Serializer<'t> {
    pub(super) out: Vec<u8>,
    pub(super) settings: StoreSettings,
    pub(super) def: Def<'t>,
    pub(super) ctx: Ctx,
    /// Whether the last value equals its default / its type's zero value.
    pub(super) is_def: bool,
    pub(super) natural: bool,
    pub(super) omitted: bool,
    /// The default of the elements of the next container ([`crate::elements`]).
    pub(super) elements: Option<&'t DNode>,
}

impl Default for Serializer<'_> {
    fn default() -> Self {
        Serializer::new()
    }
}

impl Serializer<'_> {
    /// A serializer without a default object.
    pub fn new() -> Self {
        Serializer::with(None, StoreSettings::default(), Vec::new())
    }

    /// A serializer without a default object that appends to `out` (reuse a buffer across values;
    /// get it back with [`into_inner`](Self::into_inner)).
    pub fn with_buffer(out: Vec<u8>) -> Self {
        Serializer::with(None, StoreSettings::default(), out)
    }

    /// Writes every value, even where it equals its default (`keepDefaults`).
    pub fn keep_defaults(&mut self, keep: bool) -> &mut Self {
        self.settings.keep_defaults = keep;
        self
    }

    /// Sorts map entries in O3DE's JSON order (on by default).
    pub fn sort_maps(&mut self, sort: bool) -> &mut Self {
        self.settings.sort_maps = sort;
        self
    }

    /// The output so far.
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }

    /// The output so far, as a string.
    pub fn into_string(self) -> String {
        String::from_utf8(self.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

impl<'t> Serializer<'t> {
    pub(crate) fn with(tree: Option<&'t DNode>, settings: StoreSettings, out: Vec<u8>) -> Self {
        Serializer {
            out,
            settings,
            def: tree.map_or(Def::Full, Def::Tree),
            ctx: Ctx::Root,
            is_def: false,
            natural: false,
            omitted: false,
            elements: None,
        }
    }

    /// The store result: DefaultsUsed when the value equals its default, PartialDefaults when
    /// something was left out, Success otherwise.
    pub(crate) fn result(&self) -> ResultCode {
        let outcome = if self.is_def {
            Outcome::DefaultsUsed
        } else if self.omitted {
            Outcome::PartialDefaults
        } else {
            Outcome::Success
        };
        ResultCode::new(Task::WriteValue, outcome)
    }

    /// Records the flags of a leaf; returns whether `{}` replaces it.
    #[inline]
    pub(super) fn leaf(&mut self, is_def: bool, natural: bool) -> bool {
        self.is_def = is_def;
        self.natural = natural;
        !self.settings.keep_defaults
            && match self.ctx {
                Ctx::Member => false,
                Ctx::Root => is_def,
                Ctx::Nested => natural,
            }
    }

    #[inline]
    pub(super) fn is_default(&self, natural: bool, eq: impl FnOnce(&DNode) -> bool) -> bool {
        match self.def {
            Def::Full => false,
            Def::Fresh => natural,
            Def::Tree(node) => eq(node),
        }
    }

    pub(super) fn int(&mut self, v: i128) -> Result<()> {
        let natural = v == 0;
        let is_def = self.is_default(natural, |n| matches!(n, DNode::Int(d) if *d == v));
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else if let Ok(i) = i64::try_from(v) {
            self.out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
        } else if let Ok(u) = u64::try_from(v) {
            self.out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes());
        } else {
            // Beyond 64 bits JSON numbers lose precision in O3DE (rapidjson); write the exact text.
            write_str(&mut self.out, itoa::Buffer::new().format(v));
        }
        Ok(())
    }

    pub(super) fn float(&mut self, v: f64, epsilon: f64, node_eq: impl FnOnce(&DNode) -> bool) -> Result<()> {
        let natural = same_float(v, 0.0, epsilon);
        let is_def = self.is_default(natural, node_eq);
        if self.leaf(is_def, natural) {
            self.out.extend_from_slice(b"{}");
        } else {
            write_number(&mut self.out, v);
        }
        Ok(())
    }

    /// Serializes `value` with the given context and default; returns (is_def, natural).
    #[inline]
    pub(super) fn nested<T: ?Sized + Serialize>(&mut self, value: &T, ctx: Ctx, def: Def<'t>) -> Result<(bool, bool)> {
        self.ctx = ctx;
        self.def = def;
        value.serialize(&mut *self)?;
        Ok((self.is_def, self.natural))
    }

    /// Finishes a compound value whose zero-ness is known: replaces it with `{}` where that is
    /// how O3DE writes it.
    pub(super) fn finish_compound(&mut self, start: usize, ctx: Ctx, is_def: bool, natural: bool) {
        self.ctx = ctx;
        if self.leaf(is_def, natural) && self.out[start..] != *b"{}" {
            self.out.truncate(start);
            self.out.extend_from_slice(b"{}");
        }
        self.is_def = is_def;
        self.natural = natural;
    }
}

/// Whether a float equals its default: within `epsilon` (O3DE's `IsClose`), or with a zero epsilon
/// exactly, including the sign of zero (so that what is left out loads back bit for bit).
pub(super) fn same_float(a: f64, b: f64, epsilon: f64) -> bool {
    if epsilon > 0.0 { (a - b).abs() <= epsilon } else { a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) }
}

/// The error of a helper serializer given a shape it does not take.
pub(crate) fn rejected() -> Error {
    Error::store("this crate's types serialize only as their documented forms")
}

/// Writes a number: rapidjson's layout for finite values, `"NaN"`, `"Infinity"`, `"-Infinity"`
/// otherwise (JSON has no such numbers; O3DE's `strtod` reads these strings back).
pub(super) fn write_number(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        write_f64(out, v);
    } else if v.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if v > 0.0 {
        out.extend_from_slice(b"\"Infinity\"");
    } else {
        out.extend_from_slice(b"\"-Infinity\"");
    }
}
