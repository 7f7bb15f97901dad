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
pub(super) const INT: u32 = 2;
pub(super) const FLOAT: u32 = 3;
pub(super) const STRING: u32 = 4;

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
pub struct Serializer<'a, O: Output = Vec<u8>> {
    /// The output, taken out of the caller's for the serializer's lifetime (one indirection
    /// less on every write) and put back on drop.
    pub(super) out: O,
    target: &'a mut O,
    pub(super) opts: Options,
    pub(super) depth: usize,
    /// The Dictionary header of the struct whose first field is being written, for the field's
    /// serializer to write with the key (see `keyed::Header`).
    pub(super) head: u64,
}

impl<'a> Serializer<'a> {
    /// A serializer with the default [`Options`] (Godot 4) appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self::with_options(out, Options::new())
    }

    /// A serializer with `opts` appending to `out`.
    pub fn with_options(out: &'a mut Vec<u8>, opts: Options) -> Self {
        Self::with_output(out, opts)
    }
}

impl<'a, O: Output> Serializer<'a, O> {
    /// A serializer with `opts` writing to any [`Output`]: a `Vec<u8>`, a [`SliceOutput`] or a
    /// [`SizeCounter`].
    pub fn with_output(out: &'a mut O, opts: Options) -> Self {
        // Nothing is derived from `opts` here (header ids are looked up where they are used,
        // where the type is a constant): this runs on every call, and the per-message cost of
        // small values is mostly this setup.
        Serializer { out: std::mem::take(out), target: out, opts, depth: 0, head: 0 }
    }

    /// The header of ARRAY in this version.
    #[inline(always)]
    pub(super) fn array(&self) -> u32 {
        wire::ids_table(self.opts.version)[VariantType::Array as usize] as u32
    }

    /// The header of DICTIONARY in this version.
    #[inline(always)]
    pub(super) fn dict(&self) -> u32 {
        wire::ids_table(self.opts.version)[VariantType::Dictionary as usize] as u32
    }

    /// The header id of `ty` in this version, or an error for Godot 4-only types in Godot 3 mode.
    #[inline]
    pub(super) fn id(&self, ty: VariantType) -> Result<u32> {
        // Nil to Vector2 have the same id in both generations: a constant, not a table load,
        // once `ty` is one. For the others, a constant `ty` makes the lookup a choice between
        // two constants by the version (and drops the error where both versions have the type).
        if ty as u32 <= VariantType::Vector2 as u32 {
            return Ok(ty as u32);
        }
        match wire::ids_table(self.opts.version)[ty as usize] {
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
            self.out.put(&word.to_le_bytes());
        } else {
            let mut buf = [0u8; 12];
            buf[..4].copy_from_slice(&(INT | FLAG_64).to_le_bytes());
            buf[4..].copy_from_slice(&v.to_le_bytes());
            self.out.put(&buf);
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
            self.out.put(&word.to_le_bytes());
        } else {
            let mut buf = [0u8; 12];
            buf[..4].copy_from_slice(&(FLOAT | FLAG_64).to_le_bytes());
            buf[4..].copy_from_slice(&v.to_le_bytes());
            self.out.put(&buf);
        }
    }

    #[inline]
    pub(super) fn string(&mut self, s: &str) -> Result<()> {
        wire::put_str_value(&mut self.out, STRING, s.as_bytes())
    }

    /// A Dictionary key that is a struct's field name (a literal in derived code).
    #[inline(always)]
    pub(super) fn name(&mut self, s: &'static str) -> Result<()> {
        wire::put_name_value(&mut self.out, STRING, s.as_bytes())
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
                self.out.put(&(header as u64 | (len as u64) << 32).to_le_bytes());
                self.depth += 1;
                Ok(Open::known(len as u32))
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
                self.out.put(&wire::len_u32(len)?.to_le_bytes());
                Open { len: len as u32, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 1 }
            }
            None => {
                let patch = self.out.len();
                self.out.put(&[0; 4]);
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
            self.out.patch(open.patch, &open.count.to_le_bytes());
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
        // A size counter keeps no bytes: it cannot check (the encode that follows does).
        let Some(first) = self.out.byte_at(start) else { return Ok(()) };
        let found = VariantType::from_id(first as u32, self.opts.version).unwrap_or(VariantType::Nil);
        let ok = found == expected || (expected == VariantType::Object && found == VariantType::Nil);
        if ok { Ok(()) } else { Err(Error::new(ErrorKind::WrongType { expected, found })) }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Where a [`Serializer`] writes: a growing `Vec<u8>`, a fixed [`SliceOutput`] (for
/// [`Options::to_slice`](crate::Options::to_slice)) or a [`SizeCounter`] (for
/// [`Options::serialized_size`](crate::Options::serialized_size)). Sealed: the encoder patches
/// counts in place and relies on these three.
pub trait Output: Default + sealed::Sealed {
    /// Bytes written so far (a [`SliceOutput`] keeps counting past its end).
    fn len(&self) -> usize;

    /// Whether nothing was written.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends `word`, then `s` (at most 16 bytes) and zeros up to a multiple of 4.
    #[inline]
    fn put_short(&mut self, word: [u8; 8], s: &[u8]) {
        self.put(&word);
        self.put_padded(s);
    }

    /// Appends the first `n` bytes of `prefix`, then what
    /// [`put_short`](Output::put_short) appends: a struct field's name and a short string value.
    #[inline]
    fn put_short_after(&mut self, prefix: [u8; 16], n: usize, word: [u8; 8], s: &[u8]) {
        self.put(&prefix[..n]);
        self.put_short(word, s);
    }

    /// [`put_short_after`](Output::put_short_after) for `s` of 17 to 32 bytes (a namespaced
    /// id, a path: the common longer string).
    #[inline]
    fn put_mid_after(&mut self, prefix: [u8; 16], n: usize, word: [u8; 8], s: &[u8]) {
        self.put(&prefix[..n]);
        self.put(&word);
        self.put_padded(s);
    }

    /// Appends `s` and zeros up to a multiple of 4.
    #[inline]
    fn put_padded(&mut self, s: &[u8]) {
        self.put(s);
        self.put(&[0; 4][..wire::pad4(s.len())]);
    }

    /// Whether `n` more bytes fit without growing (always, where growing means nothing).
    #[inline(always)]
    fn has_room(&self, n: usize) -> bool {
        let _ = n;
        true
    }

    /// Makes room for `n` more bytes, where that means anything.
    #[inline]
    fn reserve(&mut self, n: usize) {
        let _ = n;
    }

    /// Overwrites bytes written earlier at `at` (a count patched at the end).
    fn patch(&mut self, at: usize, bytes: &[u8]);

    /// The byte written at `at`, if the output keeps it.
    fn byte_at(&self, at: usize) -> Option<u8>;
}

impl sealed::Sealed for Vec<u8> {}

impl Output for Vec<u8> {
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    #[inline(always)]
    fn put_short(&mut self, word: [u8; 8], s: &[u8]) {
        wire::put_short(self, word, s);
    }

    #[inline(always)]
    fn put_short_after(&mut self, prefix: [u8; 16], n: usize, word: [u8; 8], s: &[u8]) {
        wire::put_short_after(self, prefix, n, word, s);
    }

    #[inline(always)]
    fn put_mid_after(&mut self, prefix: [u8; 16], n: usize, word: [u8; 8], s: &[u8]) {
        wire::put_mid_after(self, prefix, n, word, s);
    }

    #[inline(always)]
    fn put_padded(&mut self, s: &[u8]) {
        wire::put_padded(self, s);
    }

    #[inline(always)]
    fn has_room(&self, n: usize) -> bool {
        self.capacity() - self.len() >= n
    }

    #[inline(always)]
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }

    #[inline]
    fn patch(&mut self, at: usize, bytes: &[u8]) {
        self[at..at + bytes.len()].copy_from_slice(bytes);
    }

    #[inline]
    fn byte_at(&self, at: usize) -> Option<u8> {
        self.get(at).copied()
    }
}

/// A fixed slice to encode into ([`Options::to_slice`](crate::Options::to_slice)): never
/// allocates; when the value does not fit it keeps counting, so the caller learns the size needed.
#[derive(Debug, Default)]
pub struct SliceOutput<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceOutput<'b> {
    /// An output over `buf`, empty.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceOutput { buf, len: 0 }
    }

    /// Whether everything written fitted.
    pub fn fits(&self) -> bool {
        self.len <= self.buf.len()
    }

    /// The length of the slice.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }
}

impl sealed::Sealed for SliceOutput<'_> {}

impl Output for SliceOutput<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            dst.copy_from_slice(bytes);
        }
        self.len = end;
    }

    #[inline]
    fn patch(&mut self, at: usize, bytes: &[u8]) {
        if let Some(dst) = self.buf.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    }

    #[inline]
    fn byte_at(&self, at: usize) -> Option<u8> {
        if at < self.len { self.buf.get(at).copied() } else { None }
    }
}

/// Counts the bytes an encoding takes without writing them
/// ([`Options::serialized_size`](crate::Options::serialized_size)).
#[derive(Debug, Default, Clone, Copy)]
pub struct SizeCounter {
    len: usize,
}

impl sealed::Sealed for SizeCounter {}

impl Output for SizeCounter {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.len += bytes.len();
    }

    #[inline]
    fn patch(&mut self, _: usize, _: &[u8]) {}

    #[inline]
    fn byte_at(&self, _: usize) -> Option<u8> {
        None
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

    /// A container of `len` elements, announced, one level down.
    #[inline(always)]
    pub(super) const fn known(len: u32) -> Open {
        Open { len, count: 0, patch: 0, check: [NO_CHECK; 2], levels: 1 }
    }
}

impl<O: Output> Drop for Serializer<'_, O> {
    fn drop(&mut self) {
        // What the target holds is the empty output put there by `with_output`: forgotten, not
        // dropped, so that no test of whether it owns memory is left to run.
        std::mem::forget(std::mem::replace(self.target, std::mem::take(&mut self.out)));
    }
}
