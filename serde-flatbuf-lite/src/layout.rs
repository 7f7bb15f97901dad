//! The buffer layout, independent of serde: a back-to-front byte builder with FlatBuffers' alignment
//! rules, table/vtable emission with vtable deduplication, and bounds- and alignment-checked reads.
//!
//! Positions while building are *distances from the end* of the finished buffer ("used" bytes when the
//! object was written), because a back-to-front buffer only learns its start at `finish`. Distances stay
//! valid when the buffer grows. `finish` pads the buffer so that its total length is a multiple of the
//! largest alignment used, which makes every distance-aligned object aligned relative to the buffer start.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::error::{Error, ErrorKind, Result};
use crate::limits::MAX_BUFFER;

/// Size of a `uoffset`/`soffset`/vector length.
pub(crate) const OFFSET: usize = 4;

/// A back-to-front byte buffer: the data lives in `buf[head..]` and grows towards index 0.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    buf: Vec<u8>,
    head: usize,
    min_align: usize,
}

impl Builder {
    /// Forgets the data, keeps the allocation.
    pub(crate) fn reset(&mut self) {
        self.head = self.buf.len();
        self.min_align = 1;
    }

    /// Bytes written so far: the distance from the end of the buffer to the front.
    #[inline]
    pub(crate) fn used(&self) -> usize {
        self.buf.len() - self.head
    }

    /// The bytes written so far, in final order.
    pub(crate) fn data(&self) -> &[u8] {
        &self.buf[self.head..]
    }

    #[inline]
    fn reserve(&mut self, n: usize) -> Result<()> {
        if n > self.head {
            self.grow(n)?;
        }
        Ok(())
    }

    #[cold]
    fn grow(&mut self, n: usize) -> Result<()> {
        let used = self.used();
        let need = used + n;
        if need > MAX_BUFFER {
            return Err(Error::new(ErrorKind::BufferTooLarge, "the encoded buffer would exceed 2 GiB"));
        }
        let len = need.max(self.buf.len() * 2).max(256);
        let mut bigger = vec![0u8; len];
        bigger[len - used..].copy_from_slice(&self.buf[self.head..]);
        self.buf = bigger;
        self.head = len - used;
        Ok(())
    }

    /// Claims `n` bytes at the front and returns them (in final order). Their previous content is
    /// arbitrary: callers overwrite every byte.
    #[inline]
    pub(crate) fn alloc(&mut self, n: usize) -> Result<&mut [u8]> {
        self.reserve(n)?;
        self.head -= n;
        Ok(&mut self.buf[self.head..self.head + n])
    }

    /// Writes zero padding so that, after `len` more bytes, the used size is a multiple of `align`
    /// (a power of two ≤ 8), and remembers `align` for `finish`.
    #[inline]
    pub(crate) fn prealign(&mut self, len: usize, align: usize) -> Result<()> {
        if align > self.min_align {
            self.min_align = align;
        }
        let pad = (align - ((self.used() + len) & (align - 1))) & (align - 1);
        if pad > 0 {
            zero_small(self.alloc(pad)?);
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<()> {
        self.alloc(bytes.len())?.copy_from_slice(bytes);
        Ok(())
    }

    /// Writes a string object (`len`, bytes, NUL, padding) and returns its distance.
    #[inline]
    pub(crate) fn string(&mut self, s: &[u8]) -> Result<u32> {
        if s.len() > MAX_BUFFER {
            return Err(Error::new(ErrorKind::BufferTooLarge, "string longer than 2 GiB"));
        }
        // `prealign(len + 1, 4)` and the object claimed at once, without a branch on the padding: the object
        // is the length, the bytes, the NUL and 0 to 3 bytes of padding, and the NUL and the padding are the
        // last 4 bytes or fewer, so zeroing the last 4 before the bytes are copied writes both.
        if OFFSET > self.min_align {
            self.min_align = OFFSET;
        }
        let pad = (OFFSET - ((self.used() + s.len() + 1) & (OFFSET - 1))) & (OFFSET - 1);
        let n = OFFSET + s.len() + 1 + pad;
        let out = self.alloc(n)?;
        out[n - 4..].copy_from_slice(&[0; 4]);
        out[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
        copy_small(&mut out[4..4 + s.len()], s);
        Ok(self.used() as u32)
    }

    /// Writes a vector of inline elements (`count` elements of `stride` bytes in `elems`, element alignment
    /// `align`) and returns its distance.
    pub(crate) fn inline_vector(&mut self, elems: &[u8], count: usize, align: usize) -> Result<u32> {
        self.prealign(elems.len(), OFFSET.max(align))?;
        let out = self.alloc(OFFSET + elems.len())?;
        out[..4].copy_from_slice(&(count as u32).to_le_bytes());
        out[4..].copy_from_slice(elems);
        Ok(self.used() as u32)
    }

    /// Claims a vector of `count` inline elements of `size` bytes (alignment `align`) at the front and writes
    /// its length; the elements are filled in later through [`bytes_at_mut`](Self::bytes_at_mut). Returns the
    /// vector's distance (element 0 starts 4 bytes after it), or `None` if the vector could not fit in a
    /// buffer.
    pub(crate) fn vector_region(&mut self, count: usize, size: usize, align: usize) -> Result<Option<u32>> {
        let bytes = match count.checked_mul(size) {
            Some(b) if b <= MAX_BUFFER => b,
            _ => return Ok(None),
        };
        self.prealign(bytes, OFFSET.max(align))?;
        let out = self.alloc(OFFSET + bytes)?;
        out[..4].copy_from_slice(&(count as u32).to_le_bytes());
        Ok(Some(self.used() as u32))
    }

    /// Gives back the `n` bytes at the front (the last ones claimed).
    pub(crate) fn release(&mut self, n: usize) {
        self.head += n;
    }

    /// Writes a vector of uoffsets to the objects at the given distances and returns its distance.
    pub(crate) fn offset_vector(&mut self, targets: &[u32]) -> Result<u32> {
        let bytes = targets.len() * OFFSET;
        self.prealign(bytes, OFFSET)?;
        // Element i's own position (distance) is `after - 4 - 4 * i`, where `after` is the used size once the
        // whole vector is written; the offset is that distance minus the target's.
        let after = self.used() + OFFSET + bytes;
        let out = self.alloc(OFFSET + bytes)?;
        out[..4].copy_from_slice(&(targets.len() as u32).to_le_bytes());
        for (i, (slot, &target)) in out[4..].chunks_exact_mut(OFFSET).zip(targets).enumerate() {
            let at = after - OFFSET - OFFSET * i;
            slot.copy_from_slice(&((at - target as usize) as u32).to_le_bytes());
        }
        Ok(after as u32)
    }

    /// Overwrites 4 bytes of an object already written, at distance `at` (the object's first byte).
    pub(crate) fn patch_u32(&mut self, at: usize, value: u32) {
        let i = self.buf.len() - at;
        self.buf[i..i + 4].copy_from_slice(&value.to_le_bytes());
    }

    /// The bytes already claimed at distance `at`, to overwrite.
    #[inline(always)]
    pub(crate) fn bytes_at_mut(&mut self, at: usize, len: usize) -> &mut [u8] {
        let i = self.buf.len() - at;
        &mut self.buf[i..i + len]
    }

    /// The bytes of an object already written, starting at distance `at`.
    pub(crate) fn bytes_at(&self, at: usize, len: usize) -> &[u8] {
        let i = self.buf.len() - at;
        &self.buf[i..i + len]
    }

    /// Finishes the buffer: padding to the largest alignment, the optional file identifier, the root uoffset
    /// and the optional size prefix. Returns the finished bytes.
    pub(crate) fn finish(&mut self, root: u32, ident: Option<[u8; 4]>, size_prefixed: bool) -> Result<&[u8]> {
        let header = OFFSET + if ident.is_some() { 4 } else { 0 } + if size_prefixed { OFFSET } else { 0 };
        let align = self.min_align.max(OFFSET);
        self.prealign(header, align)?;
        if let Some(ident) = ident {
            self.push(&ident)?;
        }
        let at = self.used() + OFFSET;
        self.push(&((at - root as usize) as u32).to_le_bytes())?;
        if size_prefixed {
            let len = self.used() as u32;
            self.push(&len.to_le_bytes())?;
        }
        if self.used() > MAX_BUFFER {
            return Err(Error::new(ErrorKind::BufferTooLarge, "the encoded buffer would exceed 2 GiB"));
        }
        Ok(self.data())
    }
}

/// Zeroes up to 8 bytes (alignment padding) with two possibly overlapping fixed-size stores: `fill` on a
/// slice of unknown length is a `memset` call, a fifth of a short string's cost.
#[inline(always)]
fn zero_small(out: &mut [u8]) {
    let n = out.len();
    if n > 8 {
        out.fill(0);
    } else if n >= 4 {
        out[..4].copy_from_slice(&[0; 4]);
        out[n - 4..].copy_from_slice(&[0; 4]);
    } else if n >= 2 {
        out[..2].copy_from_slice(&[0; 2]);
        out[n - 2..].copy_from_slice(&[0; 2]);
    } else if n == 1 {
        out[0] = 0;
    }
}

/// Copies a short byte run (inline structs are mostly 4 to 16 bytes, strings of a few dozen) with fixed-size
/// moves up to 32 bytes instead of a `memcpy` call, which dominates short copies.
#[inline(always)]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if n > 32 {
        dst.copy_from_slice(src);
    } else if n >= 16 {
        dst[..16].copy_from_slice(&src[..16]);
        dst[n - 16..].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        // 1 to 3 bytes: the first, the middle and the last (some the same).
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// One table field waiting for its table to be written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    /// What decides where the field goes, packed in one word so that a table's layout is compared with the
    /// cached one in one test per field: the slot (bits 0–15), the size in bytes, a multiple of the alignment
    /// (bits 16–47), and the alignment, 1, 2, 4 or 8 (bits 48–55).
    key: u64,
    pub(crate) value: FieldValue,
}

impl Field {
    #[inline(always)]
    pub(crate) fn new(slot: u16, size: u32, align: u8, value: FieldValue) -> Self {
        Field { key: u64::from(slot) | u64::from(size) << 16 | u64::from(align) << 48, value }
    }

    #[inline(always)]
    fn slot(&self) -> usize {
        (self.key & 0xffff) as usize
    }

    #[inline(always)]
    fn size(&self) -> usize {
        ((self.key >> 16) & 0xffff_ffff) as usize
    }

    #[inline(always)]
    fn align(&self) -> u8 {
        (self.key >> 48) as u8
    }
}

/// What a [`Field`] holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldValue {
    /// A scalar of `size` bytes, little-endian in the low bytes.
    Scalar(u64),
    /// A uoffset to the object at this distance.
    Offset(u32),
    /// An inline struct (or 128-bit scalar): `size` bytes starting at this index of the struct scratch.
    Bytes(u32),
}

/// The alignment class of a field: 0 for 1-byte alignment up to 3 for 8 bytes (a shift, not a branch).
#[inline(always)]
fn class(align: u8) -> usize {
    (align.trailing_zeros() & 3) as usize
}

/// Vtables already written, by content hash → distance, plus the last one used (tables of one type
/// usually come in runs, so most lookups end there without hashing).
#[derive(Debug, Default)]
pub(crate) struct Vtables {
    map: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
    last: Option<(u32, u16)>,
    /// The layouts of the last tables written, by field count (see [`Layout`]).
    layouts: [Layout; 4],
}

impl Vtables {
    pub(crate) fn clear(&mut self) {
        self.map.clear();
        self.last = None;
        // The cached layouts point at vtables of the buffer being forgotten.
        for l in &mut self.layouts {
            l.filled = false;
        }
    }
}

/// The most fields a cached [`Layout`] covers; longer tables always take the general path.
const LAYOUT_FIELDS: usize = 32;

/// Where a table's fields went, for the next table with the same fields (a table type written again:
/// the same slots, sizes and alignments in the same order). Such a table gets the same inline layout and
/// vtable: its fields are stored at the remembered offsets and its soffset points at the remembered vtable,
/// which is already in the buffer (the cache is cleared with the buffer). The bytes are exactly those of the
/// general path, which computes the layout from the same inputs.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Whether this entry holds a layout.
    filled: bool,
    /// Number of fields.
    n: usize,
    /// Each field's [`layout_key`].
    keys: [u64; LAYOUT_FIELDS],
    /// Each field's offset from the table start.
    at: [u16; LAYOUT_FIELDS],
    max_class: usize,
    inline: usize,
    soffset_pad: usize,
    table_size: usize,
    /// The vtable's distance and length.
    vtable: (u32, u16),
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            filled: false,
            n: 0,
            keys: [0; LAYOUT_FIELDS],
            at: [0; LAYOUT_FIELDS],
            max_class: 0,
            inline: 0,
            soffset_pad: 0,
            table_size: 0,
            vtable: (0, 0),
        }
    }
}

/// What decides where a field goes: its slot, size and alignment.
#[inline(always)]
fn layout_key(f: &Field) -> u64 {
    f.key
}

/// Writes one field's value at offset `at` of the table being written (`out`, whose distance is `table`).
#[inline(always)]
fn write_field(out: &mut [u8], table: usize, at: usize, f: &Field, struct_bytes: &[u8]) {
    let size = f.size();
    match f.value {
        FieldValue::Scalar(v) => write_scalar(&mut out[at..at + size], v),
        FieldValue::Bytes(i) => copy_small(&mut out[at..at + size], &struct_bytes[i as usize..i as usize + size]),
        FieldValue::Offset(target) => {
            // The uoffset is the distance from the field itself (at `table - at`) to its target.
            let rel = (table - at) as u32 - target;
            out[at..at + OFFSET].copy_from_slice(&rel.to_le_bytes());
        }
    }
}

/// [`write_table`] for fields laid out like the cached `layout`'s; `None` (nothing written) if they are
/// not, or if the table's start alignment gives it a different soffset padding.
#[inline(always)]
fn write_cached_table(b: &mut Builder, layout: &Layout, fields: &[Field], struct_bytes: &[u8]) -> Result<Option<u32>> {
    if !layout.filled || layout.n != fields.len() || fields.iter().zip(&layout.keys).any(|(f, &k)| layout_key(f) != k) {
        return Ok(None);
    }
    b.prealign(0, 1 << layout.max_class)?;
    let start_fields = b.used();
    let soffset_pad = (OFFSET - ((start_fields + layout.inline) & (OFFSET - 1))) & (OFFSET - 1);
    if soffset_pad != layout.soffset_pad {
        return Ok(None);
    }
    let table_size = layout.table_size;
    let table = start_fields + table_size;
    let out = b.alloc(table_size)?;
    match out.first_chunk_mut::<8>() {
        Some(head) => *head = [0; 8],
        None => zero_small(&mut out[..OFFSET + soffset_pad]),
    }
    for (f, &at) in fields.iter().zip(&layout.at) {
        write_field(out, table, at as usize, f, struct_bytes);
    }
    let soffset = layout.vtable.0 as i32 - table as i32;
    b.patch_u32(table, soffset as u32);
    Ok(Some(table as u32))
}

/// A `Hasher` for keys that are already well-mixed 64-bit hashes.
#[derive(Debug, Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Scratch space reused by [`write_table`].
#[derive(Debug, Default)]
pub(crate) struct TableScratch {
    vtable: Vec<u8>,
}

/// Writes a table with `fields` (inline struct bytes in `struct_bytes`) and its vtable (or reuses an identical
/// one), returning the table's distance.
#[inline(always)]
pub(crate) fn write_table(
    b: &mut Builder,
    vtables: &mut Vtables,
    scratch: &mut TableScratch,
    fields: &[Field],
    struct_bytes: &[u8],
) -> Result<u32> {
    let cache = fields.len() % vtables.layouts.len();
    if let Some(table) = write_cached_table(b, &vtables.layouts[cache], fields, struct_bytes)? {
        vtables.last = Some(vtables.layouts[cache].vtable);
        return Ok(table);
    }
    write_new_table(b, vtables, scratch, fields, struct_bytes, cache)
}

/// [`write_table`] for a table not laid out like the cached one of its field count: computes the layout and
/// the vtable, and caches them. Out of line, so that the cached path (most tables of a run of one type) keeps
/// its few values in registers instead of sharing this path's stack frame.
#[inline(never)]
fn write_new_table(
    b: &mut Builder,
    vtables: &mut Vtables,
    scratch: &mut TableScratch,
    fields: &[Field],
    struct_bytes: &[u8],
    cache: usize,
) -> Result<u32> {
    // Group fields by alignment: the most aligned ones at the highest addresses (written first), the
    // smallest ones next to the soffset, so there is padding only at the two ends.
    let mut class_bytes = [0usize; 4];
    let mut max_class = 0;
    let mut slots = 0usize;
    for f in fields {
        let c = class(f.align());
        class_bytes[c] += f.size();
        max_class = max_class.max(c);
        slots = slots.max(f.slot() + 1);
    }
    let inline: usize = class_bytes.iter().sum();
    // Align the high end for the most aligned group; the smaller groups follow without padding.
    b.prealign(0, 1 << max_class)?;
    let start_fields = b.used();
    let soffset_pad = (OFFSET - ((start_fields + inline) & (OFFSET - 1))) & (OFFSET - 1);
    let table_size = OFFSET + soffset_pad + inline;
    if table_size > u16::MAX as usize {
        return Err(Error::unsupported(format!("a table's inline fields take {table_size} bytes; the limit is 65535")));
    }
    let vt_len = OFFSET + 2 * slots;
    if vt_len > u16::MAX as usize {
        return Err(Error::unsupported("a table uses more than 32765 slots"));
    }

    // Offsets of each class inside the table (from the table start, i.e. the soffset).
    let mut class_off = [0usize; 4];
    let mut off = OFFSET + soffset_pad;
    for (c, bytes) in class_bytes.iter().enumerate() {
        class_off[c] = off;
        off += bytes;
    }

    // Most vtables are short: build those on the stack (no call to zero a heap buffer).
    let mut short = [0u8; 64];
    let vt: &mut [u8] = if vt_len <= short.len() {
        &mut short[..vt_len]
    } else {
        scratch.vtable.clear();
        scratch.vtable.resize(vt_len, 0);
        &mut scratch.vtable[..]
    };
    vt[0..2].copy_from_slice(&(vt_len as u16).to_le_bytes());
    vt[2..4].copy_from_slice(&(table_size as u16).to_le_bytes());

    // The table's distance once its inline part is written: offsets are relative to it, so they are written
    // in the same pass as the scalars.
    let table = start_fields + table_size;
    let out = b.alloc(table_size)?;
    // The soffset (patched below) and the padding after it (at most 3 bytes): one 8-byte store when the
    // table is that long (field bytes it covers are written below).
    match out.first_chunk_mut::<8>() {
        Some(head) => *head = [0; 8],
        None => zero_small(&mut out[..OFFSET + soffset_pad]),
    }
    let layout = &mut vtables.layouts[cache];
    let cacheable = fields.len() <= LAYOUT_FIELDS;
    layout.filled = false;
    for (i, f) in fields.iter().enumerate() {
        let c = class(f.align());
        let at = class_off[c];
        class_off[c] += f.size();
        write_field(out, table, at, f, struct_bytes);
        let e = 4 + 2 * f.slot();
        vt[e..e + 2].copy_from_slice(&(at as u16).to_le_bytes());
        if cacheable {
            layout.keys[i] = layout_key(f);
            layout.at[i] = at as u16;
        }
    }
    debug_assert_eq!(b.used(), table);

    // Vtable: reuse an identical one if any, else write it right below the table.
    let reuse = match vtables.last {
        Some((at, len)) if len as usize == vt.len() && same_bytes(b.bytes_at(at as usize, vt.len()), vt) => Some(at),
        _ => {
            let hash = vtable_hash(vt);
            match vtables.map.get(&hash) {
                Some(&at) if same_bytes(b.bytes_at(at as usize, vt.len()), vt) => Some(at),
                _ => {
                    b.push(vt)?;
                    let at = b.used() as u32;
                    vtables.map.insert(hash, at);
                    vtables.last = Some((at, vt.len() as u16));
                    None
                }
            }
        }
    };
    let soffset: i32 = match reuse {
        Some(at) => {
            vtables.last = Some((at, vt.len() as u16));
            at as i32 - table as i32
        }
        None => (b.used() - table) as i32,
    };
    b.patch_u32(table, soffset as u32);
    if cacheable {
        let layout = &mut vtables.layouts[cache];
        layout.filled = true;
        layout.n = fields.len();
        layout.max_class = max_class;
        layout.inline = inline;
        layout.soffset_pad = soffset_pad;
        layout.table_size = table_size;
        layout.vtable = ((table as i64 + i64::from(soffset)) as u32, vt_len as u16);
    }
    Ok(table as u32)
}

/// Writes a scalar's low `dst.len()` bytes (1, 2, 4 or 8), little-endian, with fixed-size stores.
#[inline(always)]
fn write_scalar(dst: &mut [u8], v: u64) {
    match dst.len() {
        1 => dst[0] = v as u8,
        2 => dst.copy_from_slice(&(v as u16).to_le_bytes()),
        4 => dst.copy_from_slice(&(v as u32).to_le_bytes()),
        8 => dst.copy_from_slice(&v.to_le_bytes()),
        n => dst.copy_from_slice(&v.to_le_bytes()[..n]),
    }
}

/// Equality of two short byte strings of equal length (vtables: a few bytes to a few dozen), compared
/// 8 bytes at a time without a call into `memcmp`.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (a8.remainder(), b8.remainder());
    let mut diff = 0u64;
    for (x, y) in a8.zip(b8) {
        diff |= u64::from_le_bytes(x.try_into().expect("8 bytes")) ^ u64::from_le_bytes(y.try_into().expect("8 bytes"));
    }
    for (x, y) in ra.iter().zip(rb) {
        diff |= u64::from(x ^ y);
    }
    diff == 0
}

fn vtable_hash(vt: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for pair in vt.chunks_exact(2) {
        h = (h.rotate_left(5) ^ u64::from(u16::from_le_bytes([pair[0], pair[1]]))).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h
}

// ------------------------------------------------------------------------------------------------
// Checked reads

/// Reads `N` bytes at `pos`, checking bounds and alignment to `N`.
#[inline(always)]
pub(crate) fn read_array<const N: usize>(buf: &[u8], pos: usize) -> Result<[u8; N]> {
    // 16-byte values (128-bit integers) are 8-aligned, like a struct of two 64-bit halves.
    if pos % N.min(8) != 0 {
        return Err(misaligned(pos, N.min(8)));
    }
    match buf.get(pos..pos.wrapping_add(N)) {
        Some(bytes) => Ok(bytes.try_into().expect("slice of length N")),
        None => Err(out_of_bounds(pos, N)),
    }
}

/// Reads a little-endian `u32` at `pos` (4-aligned).
#[inline(always)]
pub(crate) fn read_u32(buf: &[u8], pos: usize) -> Result<u32> {
    read_array::<4>(buf, pos).map(u32::from_le_bytes)
}

/// Follows the uoffset stored at `pos`.
#[inline(always)]
pub(crate) fn follow(buf: &[u8], pos: usize) -> Result<usize> {
    let off = read_u32(buf, pos)? as usize;
    let target = pos + off;
    // An offset of 0 (the object starts at the offset itself) is legal to the official verifier.
    if target >= buf.len() {
        return Err(uoffset_outside(pos, off));
    }
    Ok(target)
}

#[cold]
fn uoffset_outside(pos: usize, off: usize) -> Error {
    Error::at(ErrorKind::OutOfBounds, pos, format!("uoffset {off} leads outside the buffer"))
}

#[cold]
pub(crate) fn misaligned(pos: usize, align: usize) -> Error {
    Error::at(ErrorKind::Misaligned, pos, format!("{align}-byte value"))
}

#[cold]
pub(crate) fn out_of_bounds(pos: usize, len: usize) -> Error {
    Error::at(ErrorKind::OutOfBounds, pos, format!("{len}-byte read"))
}

#[cold]
fn soffset_outside(pos: usize, soffset: i32) -> Error {
    Error::at(ErrorKind::InvalidVtable, pos, format!("soffset {soffset} leads outside the buffer"))
}

#[cold]
fn bad_vtable_len(vtable: usize, vt_len: usize) -> Error {
    Error::at(ErrorKind::InvalidVtable, vtable, format!("vtable length {vt_len}"))
}

/// A verified table: its position and its vtable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pub(crate) pos: usize,
    pub(crate) vtable: usize,
    /// Vtable length in bytes (even, in bounds; may be 0 or 2, which leaves every field absent).
    pub(crate) vt_len: usize,
}

impl Table {
    /// Verifies the table at `pos` with the official verifier's rules: soffset in bounds and 4-aligned, vtable
    /// 2-aligned, its length even and the whole vtable inside the buffer. A vtable length below 4 (even 0)
    /// is accepted and leaves every field absent. The vtable's table-size entry is never read (the official
    /// verifier ignores it too): each field read is checked against the buffer on its own.
    #[inline]
    pub(crate) fn open(buf: &[u8], pos: usize) -> Result<Table> {
        let soffset = i32::from_le_bytes(read_array::<4>(buf, pos)?);
        let vtable = pos as i64 - i64::from(soffset);
        if vtable < 0 || vtable as usize >= buf.len() {
            return Err(soffset_outside(pos, soffset));
        }
        let vtable = vtable as usize;
        let [lo, hi] = read_array::<2>(buf, vtable)?;
        let vt_len = u16::from_le_bytes([lo, hi]) as usize;
        if vt_len % 2 != 0 || vtable + vt_len > buf.len() {
            return Err(bad_vtable_len(vtable, vt_len));
        }
        Ok(Table { pos, vtable, vt_len })
    }

    /// The position of slot `slot`'s data, or `None` when the slot is absent (0 or beyond a short vtable).
    #[inline]
    pub(crate) fn field(&self, buf: &[u8], slot: usize) -> Option<usize> {
        let e = 4 + 2 * slot;
        if e + 2 > self.vt_len {
            return None;
        }
        let at = self.vtable + e;
        // In bounds (the vtable was checked at `open`); `get` keeps it panic-free with one test.
        let off = match buf.get(at..at + 2) {
            Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]) as usize,
            _ => 0,
        };
        if off == 0 { None } else { Some(self.pos + off) }
    }
}
