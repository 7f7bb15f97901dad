//! Encoding into memory the caller owns, without heap allocation: [`Options::append`] (a reused `Vec`),
//! [`Options::to_slice`] and [`Options::serialized_size`].
//!
//! The bit writer writes straight into the caller's `Vec`. What else encoding needs is scratch kept
//! between calls, one set per thread: the UTF-16 units of a wide string, fields that arrived out of id
//! order (shallow mode), and for `to_slice` / `serialized_size` the object stream itself before it is
//! copied into the slice (or measured). After the first call on a thread has grown them (warm-up), a
//! derive type (numbers, strings, vectors, options, nested objects, enums) encodes with no allocation.
//! Compressed output (`WITH_COMPRESSION`, [`Options::manual_compression`]) is the exception: zlib
//! allocates its state and the deflated copy on every call.

use std::cell::RefCell;

use serde_core::ser::Serialize;

use super::Serializer;
use crate::error::{Error, ErrorKind, Result};
use crate::options::{BIND_MAGIC, Options, serializer_flags};
use crate::schema::TypeList;
use crate::value::Value;

/// The buffers reused between calls on one thread.
#[derive(Default)]
pub(super) struct Scratch {
    /// The object stream of `to_slice` / `serialized_size`.
    bytes: Vec<u8>,
    pub(super) utf16: Vec<u16>,
    pub(super) buffered: Vec<(usize, Option<Value>)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Runs `f` with this thread's scratch (or a fresh one when a `Serialize` impl encodes from inside an
/// encode: the thread's scratch is in use then).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// Appends the framed encoding of `value` to `out`; on error `out` is as it was.
fn encode_into<T: ?Sized + Serialize>(
    opts: &Options,
    value: &T,
    types: &TypeList,
    out: &mut Vec<u8>,
    scratch: &mut Scratch,
) -> Result<()> {
    opts.check()?;
    if opts.flags & serializer_flags::WITH_COMPRESSION != 0 || opts.manual_compression {
        // zlib: allocates (its state and the deflated copy).
        let bytes = opts.to_vec(value, types)?;
        out.extend_from_slice(&bytes);
        return Ok(());
    }
    // The uncompressed framing of `options::frame`: magic, stored flags, the object stream.
    let base = out.len();
    if opts.bind_file {
        out.extend_from_slice(&BIND_MAGIC);
    }
    if opts.flags & serializer_flags::STATEFUL_FLAGS != 0 {
        out.extend_from_slice(&opts.flags.to_le_bytes());
    }
    let mut ser = Serializer::with_scratch(types, *opts, std::mem::take(out), scratch);
    let result = value.serialize(&mut ser);
    *out = ser.into_scratch(scratch);
    if let Err(e) = result {
        out.truncate(base);
        return Err(e);
    }
    Ok(())
}

/// Encoding into caller-owned memory (see the [`ser`](crate::ser) module and the README's "Encoding
/// without allocation").
impl Options {
    /// Appends the encoding of `value` to `out` and returns how many bytes were appended. Reusing `out`
    /// (cleared between messages) performs no heap allocation once it has grown to the largest message,
    /// except with compression (zlib allocates). The bytes are [`to_vec`](Self::to_vec)'s.
    pub fn append<T: ?Sized + Serialize>(&self, value: &T, types: &TypeList, out: &mut Vec<u8>) -> Result<usize> {
        let before = out.len();
        with_scratch(|scratch| encode_into(self, value, types, out, scratch))?;
        Ok(out.len() - before)
    }

    /// Encodes `value` into `out` and returns the length written; [`ErrorKind::BufferTooSmall`] when it
    /// does not fit (then `out` may hold a partial write). No heap allocation after the first call on
    /// the thread (its scratch, reused, holds the encoding before it is copied), except with compression.
    pub fn to_slice<T: ?Sized + Serialize>(&self, value: &T, types: &TypeList, out: &mut [u8]) -> Result<usize> {
        with_scratch(|scratch| {
            let mut bytes = std::mem::take(&mut scratch.bytes);
            bytes.clear();
            let result = encode_into(self, value, types, &mut bytes, scratch);
            let copied = result.and_then(|()| match out.get_mut(..bytes.len()) {
                Some(dst) => {
                    dst.copy_from_slice(&bytes);
                    Ok(bytes.len())
                }
                None => Err(Error::new(ErrorKind::BufferTooSmall { needed: bytes.len(), available: out.len() })),
            });
            scratch.bytes = bytes;
            copied
        })
    }

    /// The length of [`to_vec`](Self::to_vec)'s output, computed by encoding into this thread's reused
    /// scratch (no heap allocation after the first call, except with compression).
    pub fn serialized_size<T: ?Sized + Serialize>(&self, value: &T, types: &TypeList) -> Result<usize> {
        with_scratch(|scratch| {
            let mut bytes = std::mem::take(&mut scratch.bytes);
            bytes.clear();
            let result = encode_into(self, value, types, &mut bytes, scratch);
            let len = bytes.len();
            scratch.bytes = bytes;
            result.map(|()| len)
        })
    }
}
