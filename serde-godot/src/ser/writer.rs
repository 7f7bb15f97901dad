//! The Variant writer at the core of the [`Serializer`]: headers, scalars, container counts and
//! depth, the bytes every other part of the serializer builds on.

use serde_core::ser::Serialize;

use crate::VariantType;
use crate::error::{Error, ErrorKind, Result};
use crate::options::{Options, Version};
use crate::wire::{self, FLAG_64};

// Headers of the types whose id is the same in Godot 3 and 4.
pub(super) const NIL: u32 = 0;
pub(super) const BOOL: u32 = 1;
const INT: u32 = 2;
pub(super) const FLOAT: u32 = 3;
const STRING: u32 = 4;

/// A serde Serializer that appends Godot Variant bytes to a `Vec<u8>`.
///
/// The serializer works on the vector's buffer directly and hands it back (with the new bytes
/// after the old ones, and its capacity) when it is dropped.
///
/// ```
/// use serde_godot::Serializer;
/// use serde::Serialize;
///
/// let mut out = Vec::new();
/// 42u8.serialize(&mut Serializer::new(&mut out))?;
/// assert_eq!(out, [2, 0, 0, 0, 42, 0, 0, 0]); // INT, 42
/// # Ok::<(), serde_godot::Error>(())
/// ```
pub struct Serializer<'a> {
    /// The output, taken out of the caller's vector for the serializer's lifetime (one
    /// indirection less on every write) and put back on drop.
    pub(super) out: Vec<u8>,
    target: &'a mut Vec<u8>,
    pub(super) opts: Options,
    pub(super) ids: &'static [u8; 39],
    /// Headers of ARRAY and DICTIONARY in this version (the hot containers).
    pub(super) array: u32,
    pub(super) dict: u32,
    pub(super) depth: usize,
    /// A NodePath's name count, subname count and absolute flag while its fields are written.
    pub(super) node_path: [u32; 3],
}

impl<'a> Serializer<'a> {
    /// A serializer with the default [`Options`] (Godot 4) appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self::with_options(out, Options::new())
    }

    /// A serializer with `opts` appending to `out`.
    pub fn with_options(out: &'a mut Vec<u8>, opts: Options) -> Self {
        let ids = wire::ids_table(opts.version);
        let (array, dict) = (ids[VariantType::Array as usize] as u32, ids[VariantType::Dictionary as usize] as u32);
        Serializer { out: std::mem::take(out), target: out, opts, ids, array, dict, depth: 0, node_path: [0; 3] }
    }

    /// The header id of `ty` in this version, or an error for Godot 4-only types in Godot 3 mode.
    #[inline]
    pub(super) fn id(&self, ty: VariantType) -> Result<u32> {
        match self.ids[ty as usize] {
            0xFF => Err(Error::new(ErrorKind::UnsupportedInVersion(ty))),
            id => Ok(id as u32),
        }
    }

    #[inline]
    pub(super) fn header(&mut self, ty: VariantType, flags: u32) -> Result<()> {
        let id = self.id(ty)?;
        wire::put_header(&mut self.out, id | flags);
        Ok(())
    }

    #[inline]
    pub(super) fn godot4(&self) -> bool {
        self.opts.version == Version::Godot4
    }

    /// INT: 32-bit payload when the value fits, else the 64-bit flag and payload (the engine's rule).
    #[inline]
    pub(super) fn int(&mut self, v: i64) {
        if v as i32 as i64 == v {
            let word = INT as u64 | ((v as i32 as u32 as u64) << 32);
            self.out.extend_from_slice(&word.to_le_bytes());
        } else {
            let mut buf = [0u8; 12];
            buf[..4].copy_from_slice(&(INT | FLAG_64).to_le_bytes());
            buf[4..].copy_from_slice(&v.to_le_bytes());
            self.out.extend_from_slice(&buf);
        }
    }

    #[inline]
    pub(super) fn int_value(&mut self, v: i64) -> Result<()> {
        self.int(v);
        Ok(())
    }

    /// FLOAT: 32-bit payload when `(f64)(f32)v == v`, else 64-bit — so NaN always gets 64 bits.
    #[inline]
    pub(super) fn float(&mut self, v: f64) {
        let narrow = v as f32;
        if narrow as f64 == v {
            let word = FLOAT as u64 | ((narrow.to_bits() as u64) << 32);
            self.out.extend_from_slice(&word.to_le_bytes());
        } else {
            let mut buf = [0u8; 12];
            buf[..4].copy_from_slice(&(FLOAT | FLAG_64).to_le_bytes());
            buf[4..].copy_from_slice(&v.to_le_bytes());
            self.out.extend_from_slice(&buf);
        }
    }

    #[inline]
    pub(super) fn string(&mut self, s: &str) -> Result<()> {
        wire::put_str_value(&mut self.out, STRING, s.as_bytes())
    }

    /// Steps into a container's elements.
    #[inline]
    pub(super) fn descend(&mut self) {
        self.depth += 1;
    }

    /// Checks that an element at the current depth is allowed.
    #[inline]
    pub(super) fn check_depth(&self) -> Result<()> {
        if self.depth > self.opts.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit(self.opts.max_depth)));
        }
        Ok(())
    }

    /// Writes a container header and its count (or a placeholder to patch), steps one level
    /// down, and returns the bookkeeping.
    #[inline]
    pub(super) fn open(&mut self, header: u32, len: Option<usize>) -> Result<Open> {
        match len {
            Some(len) if len <= i32::MAX as usize => {
                self.out.extend_from_slice(&(header as u64 | (len as u64) << 32).to_le_bytes());
                self.depth += 1;
                Ok(Open { len: len as u32, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 1 })
            }
            _ => {
                wire::put_header(&mut self.out, header);
                self.open_count(len)
            }
        }
    }

    /// Writes a container's count (or a placeholder to patch) and steps one level down.
    pub(super) fn open_count(&mut self, len: Option<usize>) -> Result<Open> {
        let open = match len {
            Some(len) => {
                self.out.extend_from_slice(&wire::len_u32(len)?.to_le_bytes());
                Open { len: len as u32, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 1 }
            }
            None => {
                let patch = self.out.len();
                self.out.extend_from_slice(&[0; 4]);
                Open { len: UNKNOWN, count: 0, patch, check: [NO_CHECK; 2], levels: 1 }
            }
        };
        self.depth += 1;
        Ok(open)
    }

    /// Leaves a container: back up the levels it went down, patch or check its count.
    #[inline(always)]
    pub(super) fn close(&mut self, open: Open) -> Result<()> {
        self.depth -= open.levels as usize;
        if open.len != open.count {
            return self.close_mismatch(open);
        }
        Ok(())
    }

    /// Patches the count of an unknown-length container, or reports a Serialize implementation
    /// that produced another number of elements than it announced.
    #[cold]
    fn close_mismatch(&mut self, open: Open) -> Result<()> {
        if open.len == UNKNOWN {
            self.out[open.patch..open.patch + 4].copy_from_slice(&open.count.to_le_bytes());
            return Ok(());
        }
        Err(Error::new(ErrorKind::Message(format!(
            "a Serialize implementation announced {} elements but produced {}",
            open.len, open.count
        ))))
    }

    /// Serializes an element of a typed container and verifies that it has the declared type.
    #[cold]
    pub(super) fn checked<T: Serialize + ?Sized>(&mut self, value: &T, expected: u8) -> Result<()> {
        let start = self.out.len();
        value.serialize(&mut *self)?;
        let expected = VariantType::ALL[expected as usize];
        self.verify_element(start, expected)
    }

    /// Verifies that the value written at `start` has the type a typed container declares.
    fn verify_element(&self, start: usize, expected: VariantType) -> Result<()> {
        let found = VariantType::from_id(self.out[start] as u32, self.opts.version).unwrap_or(VariantType::Nil);
        let ok = found == expected || (expected == VariantType::Object && found == VariantType::Nil);
        if ok { Ok(()) } else { Err(Error::new(ErrorKind::WrongType { expected, found })) }
    }
}

/// Marks an announced length as unknown (the count is patched at the end).
const UNKNOWN: u32 = u32::MAX;
/// No typed-container check.
pub(super) const NO_CHECK: u8 = 0xFF;

/// Bookkeeping of an open Array or Dictionary.
#[derive(Clone, Copy)]
pub(super) struct Open {
    /// The announced number of elements (checked at the end), or [`UNKNOWN`].
    pub(super) len: u32,
    /// Elements (entries) written so far.
    pub(super) count: u32,
    /// Where the count goes when `len` is unknown.
    pub(super) patch: usize,
    /// Godot 4 type ids that elements (keys) and values must have in a typed container.
    pub(super) check: [u8; 2],
    /// Depth levels to climb back at the end (2 for the body of an enum variant).
    pub(super) levels: u8,
}

impl Open {
    /// For Godot's own struct-like types, which are not containers.
    pub(super) const NONE: Open = Open { len: 0, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 0 };
}

impl Drop for Serializer<'_> {
    fn drop(&mut self) {
        *self.target = std::mem::take(&mut self.out);
    }
}
