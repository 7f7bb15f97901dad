//! Encoding into memory the caller owns, without heap allocation: `append` (a reused `Vec`), `to_slice`
//! and `serialized_size`, on a [`Serializer`] or on [`Options`].
//!
//! A FlatBuffer is built back to front in the serializer's own buffer, with scratch for the open tables'
//! fields, vtable deduplication, vector elements and map keys; the finished bytes are then copied out.
//! Those buffers are kept between calls: by the [`Serializer`] you reuse, or for the [`Options`] methods
//! and the crate-level functions by one serializer per thread. After a warm-up call has grown them to the
//! largest message, a derive type (scalars, strings, vectors, options, nested tables and structs, enums,
//! unions, maps) encodes with no allocation.

use std::cell::RefCell;

use serde_core::ser::Serialize;

use super::Serializer;
use crate::error::{Error, ErrorKind, Result};
use crate::options::{InlineCache, Options};

thread_local! {
    static SERIALIZER: RefCell<Serializer> = RefCell::new(Serializer::new());
}

/// Runs `f` with this thread's serializer set to `opts` (a fresh one when a `Serialize` impl encodes from
/// inside an encode, which holds the thread's).
fn with_serializer<R>(opts: &Options, f: impl FnOnce(&mut Serializer) -> R) -> R {
    SERIALIZER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut ser) => {
            ser.opts = opts.clone(); // no allocation: the struct names are shared (`Arc`)
            ser.inline_cache = InlineCache::default();
            f(&mut ser)
        }
        Err(_) => f(&mut Serializer::with_options(opts.clone())),
    })
}

fn copy_into(bytes: &[u8], out: &mut [u8]) -> Result<usize> {
    match out.get_mut(..bytes.len()) {
        Some(dst) => {
            dst.copy_from_slice(bytes);
            Ok(bytes.len())
        }
        None => Err(Error::new(
            ErrorKind::BufferTooSmall,
            format!("the buffer needs {} bytes, the slice has {}", bytes.len(), out.len()),
        )),
    }
}

/// Encoding into caller-owned memory, reusing this serializer's buffers (see [`Serializer`]).
impl Serializer {
    /// Appends the buffer of `value` to `out` (after what it holds) and returns its length. No allocation
    /// once this serializer and `out` have grown to the message's size.
    pub fn append<T: ?Sized + Serialize>(&mut self, value: &T, out: &mut Vec<u8>) -> Result<usize> {
        let bytes = self.serialize(value)?;
        out.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    /// Encodes `value` into `out` and returns the length written; [`ErrorKind::BufferTooSmall`] when it
    /// does not fit. No allocation once this serializer has grown to the message's size.
    pub fn to_slice<T: ?Sized + Serialize>(&mut self, value: &T, out: &mut [u8]) -> Result<usize> {
        copy_into(self.serialize(value)?, out)
    }

    /// The length of the buffer `value` encodes to (it is built in this serializer's buffer).
    pub fn serialized_size<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<usize> {
        Ok(self.serialize(value)?.len())
    }
}

/// Encoding into caller-owned memory with these options, reusing one serializer per thread.
impl Options {
    /// Appends the buffer of `value` to `out` and returns its length: [`to_vec`](Self::to_vec)'s bytes,
    /// with no allocation after a warm-up call on this thread once `out` has the capacity.
    pub fn append<T: ?Sized + Serialize>(&self, value: &T, out: &mut Vec<u8>) -> Result<usize> {
        with_serializer(self, |ser| ser.append(value, out))
    }

    /// Encodes `value` into `out` and returns the length written ([`ErrorKind::BufferTooSmall`] when it
    /// does not fit), with no allocation after a warm-up call on this thread.
    pub fn to_slice<T: ?Sized + Serialize>(&self, value: &T, out: &mut [u8]) -> Result<usize> {
        with_serializer(self, |ser| ser.to_slice(value, out))
    }

    /// The length of [`to_vec`](Self::to_vec)'s output, with no allocation after a warm-up call on this
    /// thread.
    pub fn serialized_size<T: ?Sized + Serialize>(&self, value: &T) -> Result<usize> {
        with_serializer(self, |ser| ser.serialized_size(value))
    }
}
