//! The input side, independent of serde: a pull reader over JSON text ([`SliceRead`]) and over a
//! `serde_json::Value` tree ([`ValueRead`]) behind one trait, so the O3DE rules of the
//! deserializer (`de`) are written once.
//!
//! The text reader is strict RFC 8259 JSON (plus `//` and `/* */` comments and trailing commas in
//! settings-registry mode): strings must be valid UTF-8 without raw control characters, escapes and
//! surrogate pairs must be well formed, numbers that overflow a double are errors. Skipping is
//! iterative, so unknown members nest as deep as the depth limit allows without using the stack.
//!
//! Look-aheads (`$type`, the members of a map entry, duplicate members) skip values that are read
//! again later, and the objects inside them look ahead in turn. So that nesting does not multiply
//! the work, a look-ahead skip turns on a record of every container it walks (its end and height,
//! by where it starts, kept over passes): any later skip jumps over a recorded container instead of
//! walking it again, so every byte is walked by skips a bounded number of times however deep the
//! look-aheads nest.
//!
//! The text reader is [`SliceRead`] (`slice.rs`), built on the token scanner of `lex.rs` and the
//! record of walked containers of `ends.rs`; the tree reader is [`ValueRead`] (`tree.rs`).

mod ends;
mod lex;
mod slice;
mod tree;

pub(crate) use ends::Ends;
pub(crate) use slice::SliceRead;
pub(crate) use tree::ValueRead;

use crate::coerce::Num;
use crate::error::{Error, Result};

/// The kind of the next value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peek {
    Null,
    True,
    False,
    Num,
    Str,
    Arr,
    Obj,
}

/// A string from the input: borrowed for the whole input lifetime, or copied (unescaped) into the
/// reader's scratch buffer.
pub(crate) enum Ref<'de, 's> {
    Borrowed(&'de str),
    Copied(&'s str),
}

impl Ref<'_, '_> {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Ref::Borrowed(s) => s,
            Ref::Copied(s) => s,
        }
    }
}

/// A pull reader. The driver calls [`peek`](Read::peek) before every value and then exactly one
/// consuming method for it.
pub(crate) trait Read<'de> {
    /// A saved position: [`seek`](Read::seek) back to it to read the same value again.
    type Loc: Copy;
    /// Whether the deserializer must keep the path itself (it cannot be found again in the input).
    const TRACK: bool;

    /// Whether `$type` lookahead and map entries can be re-read cheaply (always true here).
    fn loc(&self) -> Self::Loc;
    fn seek(&mut self, loc: Self::Loc);
    /// A number identifying the next value (stable across passes over the same input).
    fn ident(&self) -> usize;

    fn peek(&mut self) -> Result<Peek>;
    /// After `peek` returned `Obj`: whether the object is `{}`.
    fn is_empty_object(&mut self) -> Result<bool>;
    fn null(&mut self) -> Result<()>;
    fn boolean(&mut self) -> Result<bool>;
    fn number(&mut self) -> Result<Num>;
    fn string<'s>(&'s mut self) -> Result<Ref<'de, 's>>;
    fn begin_array(&mut self) -> Result<()>;
    /// Before each element: whether there is one (`false` consumes the `]`).
    fn next_element(&mut self, first: bool) -> Result<bool>;
    fn begin_object(&mut self) -> Result<()>;
    /// Before each member: its key (consuming the `:`), or `None` (consuming the `}`).
    fn next_key<'s>(&'s mut self, first: bool) -> Result<Option<Ref<'de, 's>>>;
    /// After `peek` returned `Arr`: reads an array of at most 16 plain numbers into `out` and
    /// returns how many; `None` (nothing consumed) when the array holds anything else.
    fn number_array(&mut self, out: &mut [Num; 16]) -> Result<Option<usize>>;
    /// Skips the next value; containers may nest at most `depth` levels.
    fn skip(&mut self, depth: usize) -> Result<()>;
    /// [`skip`](Read::skip) for a look-ahead (the value is read again later): from now on every
    /// container a skip walks is recorded, and skips jump over recorded containers.
    fn skip_ahead(&mut self, depth: usize) -> Result<()>;
    /// What skips recorded, handed from one pass over the input to the next.
    type Memo: Default;
    fn take_memo(&mut self) -> Self::Memo;
    fn set_memo(&mut self, memo: Self::Memo);
    /// Appends the next value as compact JSON text to `out`.
    fn raw(&mut self, depth: usize, out: &mut String) -> Result<()>;
    /// Requires the end of the input.
    fn end(&mut self) -> Result<()>;
    /// Attaches the current position to an error.
    fn position(&self, e: Error) -> Error;
    /// Attaches the position of the value `ident` (from [`ident`](Read::ident)) to an error.
    fn position_at(&self, e: Error, ident: usize) -> Error;
    /// The JSON Pointer of the value at `offset` (default: the current position), found by
    /// walking the input from the start (only for errors of loads that do not keep the path).
    fn path_at(&self, offset: Option<usize>) -> String;
}
