//! A drop-in for [bincode](https://docs.rs/bincode)'s serde API, speaking Godot's binary Variant
//! format: replace `use bincode;` by `use serde_godot::bincode;` and a bincode 1.3 or bincode 2
//! game server compiles and works unchanged — only the bytes change, to what Godot's
//! `bytes_to_var()` / `StreamPeer.get_var()` read (Godot 4, structs as Dictionaries, by default).
//!
//! - bincode 1.3: [`serialize`], [`deserialize`], [`serialize_into`], [`deserialize_from`],
//!   [`serialized_size`], [`options()`] and the [`Options`] trait (`with_limit`...), [`Error`]
//!   (`Box<`[`ErrorKind`]`>`), [`Result`].
//! - bincode 2: [`serde::encode_to_vec`], [`serde::decode_from_slice`] and the rest of
//!   `bincode::serde`, [`config::standard()`], [`config::Configuration`],
//!   [`error::EncodeError`] / [`error::DecodeError`].
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_godot::bincode;
//! use bincode::Options;
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Move { player: u32, x: f32, y: f32 }
//!
//! let bytes = bincode::serialize(&Move { player: 7, x: 1.5, y: -2.0 })?;
//! let msg = bincode::deserialize::<Move>(&bytes)?;
//! assert_eq!(msg.player, 7);
//!
//! // Two messages on one stream: each read takes exactly one.
//! let mut stream = Vec::new();
//! bincode::serialize_into(&mut stream, &msg)?;
//! bincode::options().with_limit(1024).serialize_into(&mut stream, &Move { player: 8, x: 0.0, y: 0.0 })?;
//! let mut reader = &stream[..];
//! let first: Move = bincode::deserialize_from(&mut reader)?;
//! let second: Move = bincode::options().with_limit(1024).deserialize_from(&mut reader)?;
//! assert_eq!((first.player, second.player, reader.len()), (7, 8, 0));
//! # Ok::<(), bincode::Error>(())
//! ```
//!
//! MIGRATING-FROM-BINCODE.md (next to the crate's README) lists every call, what changes on the
//! wire and the gotchas.

pub mod config;
pub mod error;
pub mod serde;
mod stream;

use std::io;

use serde_core::de::{DeserializeOwned, DeserializeSeed};
use serde_core::{Deserialize, Serialize};

pub use error::{Error, ErrorKind, Result};

use crate::error::{Error as GodotError, ErrorKind as GodotKind};

/// Encodes `value` (bincode 1.3's `serialize`).
pub fn serialize<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    DefaultOptions::FREE.serialize(value)
}

/// Encodes `value` into `writer` with one `write_all` (bincode 1.3's `serialize_into`).
pub fn serialize_into<W, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()>
where
    W: io::Write,
{
    DefaultOptions::FREE.serialize_into(writer, value)
}

/// Decodes a `T` from the start of `bytes`; bytes after the value are ignored, as in bincode
/// 1.3's free function.
pub fn deserialize<'a, T>(bytes: &'a [u8]) -> Result<T>
where
    T: Deserialize<'a>,
{
    DefaultOptions::FREE.deserialize(bytes)
}

/// Reads exactly one `T` from `reader` — its bytes and not one more, without buffering — so the
/// next message stays in the reader (bincode 1.3's `deserialize_from`). A connection closed
/// before or inside the value is [`ErrorKind::Io`] with `UnexpectedEof`. Values above 8 MiB are
/// refused ([`ErrorKind::SizeLimit`]) unless [`Options::with_limit`] says otherwise.
pub fn deserialize_from<R, T>(reader: R) -> Result<T>
where
    R: io::Read,
    T: DeserializeOwned,
{
    DefaultOptions::FREE.deserialize_from(reader)
}

/// The encoded size of `value` in bytes.
pub fn serialized_size<T: ?Sized + Serialize>(value: &T) -> Result<u64> {
    DefaultOptions::FREE.serialized_size(value)
}

/// bincode 1.3's `options()`: like the free functions, except that bytes after the value are an
/// error (as in bincode: [`Options::allow_trailing_bytes`] allows them).
pub fn options() -> DefaultOptions {
    DefaultOptions::new()
}

/// bincode 1.3's options value: serde-godot [`Options`](crate::Options), a byte limit and the
/// trailing-bytes rule. `Copy`, like bincode's.
#[derive(Clone, Copy, Debug)]
pub struct DefaultOptions {
    opts: crate::Options,
    limit: Option<u64>,
    allow_trailing: bool,
}

impl Default for DefaultOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl DefaultOptions {
    /// What the free functions use: no limit of its own, trailing bytes allowed.
    const FREE: DefaultOptions = DefaultOptions { opts: crate::Options::new(), limit: None, allow_trailing: true };

    /// serde-godot's defaults (Godot 4, structs as Dictionaries), no limit of its own, trailing
    /// bytes rejected (bincode 1.3's `DefaultOptions::new()`).
    pub const fn new() -> Self {
        DefaultOptions { opts: crate::Options::new(), limit: None, allow_trailing: false }
    }

    /// Speaks Godot with `opts` (version, struct form, unit variants...).
    pub const fn with_godot(mut self, opts: crate::Options) -> Self {
        self.opts = opts;
        self
    }

    fn limit(&self) -> Option<usize> {
        self.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX))
    }
}

/// bincode 1.3's `Options` trait: bring it into scope (`use bincode::Options;`) to call
/// `.with_limit(n)` and the encode/decode methods on [`options()`].
///
/// Endianness and integer-encoding settings do not apply to Godot's format and change nothing.
/// The limit applies to everything: encoding (a larger value is [`ErrorKind::SizeLimit`] and
/// nothing is written), decoding from a slice (unlike bincode 1.3 — see MIGRATING-FROM-BINCODE.md)
/// and from a reader.
pub trait Options: Copy + Sized {
    /// The settings as one value.
    fn godot_settings(self) -> DefaultOptions;

    /// No byte limit of its own (the default; reading from a stream keeps serde-godot's 8 MiB).
    fn with_no_limit(self) -> DefaultOptions {
        DefaultOptions { limit: None, ..self.godot_settings() }
    }

    /// Refuses values larger than `limit` bytes, when encoding and decoding.
    fn with_limit(self, limit: u64) -> DefaultOptions {
        DefaultOptions { limit: Some(limit), ..self.godot_settings() }
    }

    /// No effect (Godot is little-endian).
    fn with_little_endian(self) -> DefaultOptions {
        self.godot_settings()
    }

    /// No effect (Godot is little-endian).
    fn with_big_endian(self) -> DefaultOptions {
        self.godot_settings()
    }

    /// No effect (Godot is little-endian).
    fn with_native_endian(self) -> DefaultOptions {
        self.godot_settings()
    }

    /// No effect (Godot ints are 32-bit, or 64-bit when they need it).
    fn with_varint_encoding(self) -> DefaultOptions {
        self.godot_settings()
    }

    /// No effect (Godot ints are 32-bit, or 64-bit when they need it).
    fn with_fixint_encoding(self) -> DefaultOptions {
        self.godot_settings()
    }

    /// Bytes after the value are an error when decoding from a slice (the default of
    /// [`options()`]).
    fn reject_trailing_bytes(self) -> DefaultOptions {
        DefaultOptions { allow_trailing: false, ..self.godot_settings() }
    }

    /// Bytes after the value are ignored when decoding from a slice (the free functions' rule).
    fn allow_trailing_bytes(self) -> DefaultOptions {
        DefaultOptions { allow_trailing: true, ..self.godot_settings() }
    }

    /// Encodes `t`.
    fn serialize<S: ?Sized + Serialize>(self, t: &S) -> Result<Vec<u8>> {
        let o = self.godot_settings();
        Ok(encode_vec(&o.opts, o.limit(), t)?)
    }

    /// The encoded size of `t` in bytes, computed without allocating.
    fn serialized_size<T: ?Sized + Serialize>(self, t: &T) -> Result<u64> {
        let o = self.godot_settings();
        let size = o.opts.serialized_size(t)?;
        match o.limit() {
            Some(limit) if size > limit => {
                Err(GodotError::new(GodotKind::SizeLimit { size: size as u64, limit }).into())
            }
            _ => Ok(size as u64),
        }
    }

    /// Encodes `t` into `w` with one `write_all`; nothing is written if it is above the limit.
    fn serialize_into<W: io::Write, T: ?Sized + Serialize>(self, mut w: W, t: &T) -> Result<()> {
        let bytes = self.serialize(t)?;
        w.write_all(&bytes)?;
        Ok(())
    }

    /// Decodes a `T` from `bytes`.
    fn deserialize<'a, T: Deserialize<'a>>(self, bytes: &'a [u8]) -> Result<T> {
        let o = self.godot_settings();
        let (value, used) = decode_slice(&o.opts, o.limit(), bytes)?;
        if !o.allow_trailing && used != bytes.len() {
            return Err(GodotError::at(GodotKind::TrailingBytes(bytes.len() - used), used).into());
        }
        Ok(value)
    }

    /// Decodes with a serde `DeserializeSeed`.
    fn deserialize_seed<'a, T: DeserializeSeed<'a>>(self, seed: T, bytes: &'a [u8]) -> Result<T::Value> {
        let o = self.godot_settings();
        let input = limited(bytes, o.limit());
        let mut de = crate::Deserializer::with_options(input, o.opts);
        let value = seed.deserialize(&mut de).map_err(|e| over_limit(e, bytes.len(), input.len()))?;
        let used = de.position();
        if !o.allow_trailing && used != bytes.len() {
            return Err(GodotError::at(GodotKind::TrailingBytes(bytes.len() - used), used).into());
        }
        Ok(value)
    }

    /// Reads exactly one `T` from `reader` (see [`deserialize_from`]).
    fn deserialize_from<R: io::Read, T: DeserializeOwned>(self, reader: R) -> Result<T> {
        let o = self.godot_settings();
        let mut reader = reader;
        Ok(decode_stream(&o.opts, o.limit(), &mut reader)?)
    }
}

impl Options for DefaultOptions {
    fn godot_settings(self) -> DefaultOptions {
        self
    }
}

/// Encodes `value`, refusing more than `limit` bytes.
fn encode_vec<T: ?Sized + Serialize>(opts: &crate::Options, limit: Option<usize>, value: &T) -> crate::Result<Vec<u8>> {
    let bytes = opts.to_vec(value)?;
    match limit {
        Some(limit) if bytes.len() > limit => {
            Err(GodotError::new(GodotKind::SizeLimit { size: bytes.len() as u64, limit }))
        }
        _ => Ok(bytes),
    }
}

/// The part of `bytes` a value within `limit` can occupy.
fn limited(bytes: &[u8], limit: Option<usize>) -> &[u8] {
    match limit {
        Some(limit) if limit < bytes.len() => &bytes[..limit],
        _ => bytes,
    }
}

/// An input cut at the limit that ended too early is a value above the limit.
fn over_limit(e: GodotError, full: usize, cut: usize) -> GodotError {
    if e.is_eof() && cut < full { GodotError::new(GodotKind::SizeLimit { size: full as u64, limit: cut }) } else { e }
}

/// Decodes one value from the start of `bytes` within `limit` bytes; returns it with the number
/// of bytes it took.
fn decode_slice<'de, T: Deserialize<'de>>(
    opts: &crate::Options,
    limit: Option<usize>,
    bytes: &'de [u8],
) -> crate::Result<(T, usize)> {
    let input = limited(bytes, limit);
    let (value, rest) = opts.take_from_slice(input).map_err(|e| over_limit(e, bytes.len(), input.len()))?;
    Ok((value, input.len() - rest.len()))
}

/// Reads exactly one value's bytes from `reader` (at most `limit`, or
/// [`Options::max_size`](crate::Options::max_size) without one) and decodes them.
fn decode_stream<T: DeserializeOwned, R: io::Read + ?Sized>(
    opts: &crate::Options,
    limit: Option<usize>,
    reader: &mut R,
) -> crate::Result<T> {
    let mut buf = Vec::new();
    stream::read_one(reader, opts, limit.unwrap_or(opts.max_size), &mut buf)?;
    opts.from_slice(&buf)
}
