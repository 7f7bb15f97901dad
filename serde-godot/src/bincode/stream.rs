//! Reading exactly one Variant from a byte stream: the bytes of one value, and not one byte more.
//!
//! Godot Variants carry no overall length, so the value's structure is followed header by
//! header, reading each part with `read_exact` (or, for long payloads, through `Read::take`, so
//! that memory grows only as bytes really arrive). Nothing is buffered past the value's last
//! byte: the next message stays in the reader. The collected bytes are then decoded by the
//! ordinary slice decoder, which performs every check again.

use std::io::{self, Read};

use crate::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::magic::Layout;
use crate::options::{Options, Version};
use crate::wire::{self, COUNT_MASK, FLAG_64, FLAG_OBJECT_AS_ID, KIND_BUILTIN, KIND_NONE, NODE_PATH_NEW_FORMAT};

/// Reads the bytes of exactly one Variant from `reader` into `buf` (appended), refusing values
/// larger than `limit` bytes.
pub(crate) fn read_one<R: Read + ?Sized>(
    reader: &mut R,
    opts: &Options,
    limit: usize,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let start = buf.len();
    let mut s = Stream { r: reader, buf, start, limit, opts };
    s.value(0)
}

struct Stream<'a, R: ?Sized> {
    r: &'a mut R,
    buf: &'a mut Vec<u8>,
    start: usize,
    limit: usize,
    opts: &'a Options,
}

/// Payloads up to this size are read with one `read_exact` into room reserved up front; longer
/// ones arrive through `take` and grow the buffer as they come.
const SMALL: usize = 4096;

impl<R: Read + ?Sized> Stream<'_, R> {
    fn pos(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Reads `n` more bytes of the value.
    fn need(&mut self, n: usize) -> Result<()> {
        let size = self.pos() as u64 + n as u64;
        if size > self.limit as u64 {
            return Err(Error::new(ErrorKind::SizeLimit { size, limit: self.limit }));
        }
        let old = self.buf.len();
        if n <= SMALL {
            self.buf.resize(old + n, 0);
            if let Err(e) = self.r.read_exact(&mut self.buf[old..]) {
                self.buf.truncate(old);
                return Err(e.into());
            }
        } else {
            let got = (&mut *self.r).take(n as u64).read_to_end(self.buf)?;
            if got < n {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
            }
        }
        Ok(())
    }

    fn u32(&mut self) -> Result<u32> {
        self.need(4)?;
        let at = self.buf.len() - 4;
        Ok(u32::from_le_bytes(self.buf[at..].try_into().expect("4 bytes")))
    }

    fn invalid(&self, what: &'static str, at: usize) -> Error {
        Error::at(ErrorKind::InvalidData(what), at)
    }

    /// A non-negative length within `max_len`.
    fn len(&mut self) -> Result<usize> {
        let at = self.pos();
        let raw = self.u32()?;
        if raw > i32::MAX as u32 {
            return Err(self.invalid("negative length", at));
        }
        self.check_len(raw, at)
    }

    fn check_len(&self, len: u32, at: usize) -> Result<usize> {
        let len = len as usize;
        if len > self.opts.max_len {
            return Err(Error::at(ErrorKind::LengthLimit { len: len as u64, limit: self.opts.max_len }, at));
        }
        Ok(len)
    }

    /// A length-prefixed, padded string.
    fn str(&mut self) -> Result<()> {
        let len = self.len()?;
        self.need(len + wire::pad4(len))
    }

    fn container_type(&mut self, kind: u32) -> Result<()> {
        match kind {
            KIND_NONE => Ok(()),
            KIND_BUILTIN => self.need(4),
            _ => self.str(),
        }
    }

    fn value(&mut self, depth: usize) -> Result<()> {
        use VariantType as T;
        let at = self.pos();
        if depth > self.opts.max_depth {
            return Err(Error::at(ErrorKind::DepthLimit(self.opts.max_depth), at));
        }
        let header = self.u32()?;
        let version = self.opts.version;
        let Some(ty) = wire::types_table(version)[(header & 0xFF) as usize] else {
            return Err(Error::at(ErrorKind::UnknownType(header & 0xFF), at));
        };
        let godot4 = version == Version::Godot4;
        match ty {
            T::Nil | T::Callable => Ok(()),
            T::Bool => self.need(4),
            T::Int | T::Float => self.need(if header & FLAG_64 != 0 { 8 } else { 4 }),
            T::String | T::StringName => self.str(),
            T::Rid => self.need(if godot4 { 8 } else { 0 }),
            T::Signal => {
                self.str()?;
                self.need(8)
            }
            T::Object if header & FLAG_OBJECT_AS_ID != 0 => self.need(8),
            T::Object => {
                if !self.opts.full_objects {
                    return Err(Error::at(ErrorKind::FullObjectsDisabled, self.pos()));
                }
                let class_len = self.len()?;
                self.need(class_len + wire::pad4(class_len))?;
                if class_len == 0 {
                    return Ok(());
                }
                let count = (self.u32()? as i32).max(0);
                for _ in 0..count {
                    self.str()?;
                    self.value(depth + 1)?;
                }
                Ok(())
            }
            T::NodePath => {
                let first = self.u32()?;
                if first & NODE_PATH_NEW_FORMAT == 0 {
                    return Err(self.invalid("NodePath in the pre-3.0 format", at + 4));
                }
                let mut subnames = self.u32()?;
                if self.u32()? & 2 != 0 {
                    subnames = subnames.wrapping_add(1);
                }
                let total = (first & !NODE_PATH_NEW_FORMAT).wrapping_add(subnames);
                self.check_len(total, at + 4)?;
                for _ in 0..total {
                    self.str()?;
                }
                Ok(())
            }
            T::Dictionary | T::Array => {
                let dict = ty == T::Dictionary;
                if godot4 {
                    self.container_type((header >> 16) & 3)?;
                    if dict {
                        self.container_type((header >> 18) & 3)?;
                    }
                }
                let count_at = self.pos();
                let count = self.u32()? & COUNT_MASK;
                let count = self.check_len(count, count_at)?;
                for _ in 0..count * (1 + dict as usize) {
                    self.value(depth + 1)?;
                }
                Ok(())
            }
            T::PackedByteArray => {
                let len = self.len()?;
                self.need(len + wire::pad4(len))
            }
            T::PackedStringArray => {
                let count_at = self.pos();
                let raw = self.u32()?;
                // A negative count is an empty array, as in the engine's loop.
                let count = if raw > i32::MAX as u32 { 0 } else { self.check_len(raw, count_at)? };
                for _ in 0..count {
                    self.str()?;
                }
                Ok(())
            }
            _ => {
                let wide = wire::real_is_64(header, version);
                if let Some(size) = wire::packed_elem_size(ty, wide && wire::packed_has_reals(ty)) {
                    let len = self.len()?;
                    let bytes = len.checked_mul(size).ok_or_else(|| self.invalid("packed array too long", at))?;
                    return self.need(bytes);
                }
                let layout = Layout::of(ty).expect("every other type is a math type");
                self.need(layout.size(if wide { 8 } else { 4 }))
            }
        }
    }
}
