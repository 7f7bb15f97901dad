//! The low-level codec, independent of serde: an LSB-first bit reader and writer working in 64-bit
//! words (the reader loads an unaligned 64-bit window per bit field instead of keeping a cache; the
//! writer merges bit fields into the buffer's last byte with one 64-bit store), the alignment rules,
//! compact and plain length prefixes, and the KI simple and leaf types.
//!
//! Bit order: a value of `n` bits takes the next `n` bits of the stream, bit `k` of the value from
//! stream bit `pos + k`, and bit 0 of each byte comes first (like `bitter`'s little-endian reader).
//! *Align* skips to the next byte boundary; readers ignore padding bits, writers write zeros.
//!
//! ```
//! use serde_kiprop::codec::{BitReader, BitWriter};
//! let mut w = BitWriter::new();
//! w.write_bool(true);
//! w.write_bits(0b101, 3);
//! w.write_u32(0xDEAD_BEEF); // aligned first
//! let bytes = w.finish();
//! assert_eq!(bytes, [0b1011, 0xEF, 0xBE, 0xAD, 0xDE]);
//! let mut r = BitReader::new(&bytes);
//! assert_eq!(r.read_bool().unwrap(), true);
//! assert_eq!(r.read_bits(3).unwrap(), 0b101);
//! assert_eq!(r.read_u32().unwrap(), 0xDEAD_BEEF);
//! ```

/// The input ended before a value was complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eof;

impl std::fmt::Display for Eof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unexpected end of input")
    }
}

impl std::error::Error for Eof {}

#[inline(always)]
const fn mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Bit-reading state without the data: the deserializer keeps the data in its input (borrowed or
/// inflated) and passes it to every call. [`BitReader`] bundles both for standalone use.
///
/// The state is only the bit position: every read loads the bytes it needs straight from the
/// slice (one unaligned 8-byte load for bit fields, an exact-size load for aligned values), so
/// aligned reads, the common case, cost a bounds check and a load.
#[derive(Debug, Clone, Default)]
pub(crate) struct BitCursor {
    /// Position of the next bit, from the start of the data (never past its end).
    pos: u64,
}

/// The `N` bytes of `data` from offset `byte` on, if the data has them: one comparison, where
/// `data.get(byte..)` then `first_chunk` make two (`byte` is at most one past the data's end,
/// from a position that never passes it, so `byte + N` cannot overflow).
#[inline(always)]
pub(crate) fn chunk_at<const N: usize>(data: &[u8], byte: usize) -> Option<&[u8; N]> {
    let end = byte + N;
    if end > data.len() {
        return None;
    }
    data[byte..end].first_chunk::<N>()
}

impl BitCursor {
    /// Reads `n ≤ 32` bits.
    #[inline(always)]
    pub(crate) fn read_bits(&mut self, data: &[u8], n: u32) -> Result<u32, Eof> {
        debug_assert!(n <= 32);
        let byte = (self.pos >> 3) as usize;
        let shift = (self.pos & 7) as u32;
        if let Some(chunk) = chunk_at::<8>(data, byte) {
            self.pos += u64::from(n);
            return Ok(((u64::from_le_bytes(*chunk) >> shift) & mask(n)) as u32);
        }
        self.read_bits_tail(data, n)
    }

    /// [`read_bits`](Self::read_bits) within the last 8 bytes of the data.
    #[inline(never)]
    fn read_bits_tail(&mut self, data: &[u8], n: u32) -> Result<u32, Eof> {
        let end = self.pos + u64::from(n);
        if end > data.len() as u64 * 8 {
            return Err(Eof);
        }
        let byte = (self.pos >> 3) as usize;
        let mut word = [0u8; 8];
        let tail = &data[byte..];
        word[..tail.len()].copy_from_slice(tail);
        let v = (u64::from_le_bytes(word) >> (self.pos & 7)) & mask(n);
        self.pos = end;
        Ok(v as u32)
    }

    /// Reads one bit.
    #[inline(always)]
    pub(crate) fn read_bool(&mut self, data: &[u8]) -> Result<bool, Eof> {
        match data.get((self.pos >> 3) as usize) {
            Some(b) => {
                let v = (b >> (self.pos & 7)) & 1 != 0;
                self.pos += 1;
                Ok(v)
            }
            None => Err(Eof),
        }
    }

    /// Aligns, then reads `N` whole bytes.
    #[inline(always)]
    pub(crate) fn read_array<const N: usize>(&mut self, data: &[u8]) -> Result<[u8; N], Eof> {
        let byte = ((self.pos + 7) >> 3) as usize;
        match chunk_at::<N>(data, byte) {
            Some(chunk) => {
                self.pos = ((byte + N) as u64) << 3;
                Ok(*chunk)
            }
            None => {
                self.align();
                Err(Eof)
            }
        }
    }

    #[inline(always)]
    pub(crate) fn align(&mut self) {
        self.pos = (self.pos + 7) & !7;
    }

    /// Current position in bits from the start of the data.
    #[inline(always)]
    pub(crate) fn bit_pos(&self) -> u64 {
        self.pos
    }

    /// Bits left in `data` after the current position.
    #[inline(always)]
    pub(crate) fn remaining_bits(&self, data: &[u8]) -> u64 {
        data.len() as u64 * 8 - self.pos
    }

    /// Aligns, then claims the next `n` bytes and returns their start offset in `data`.
    #[inline]
    pub(crate) fn take_bytes(&mut self, data: &[u8], n: usize) -> Result<usize, Eof> {
        self.align();
        let start = (self.pos >> 3) as usize;
        if n > data.len() - start {
            return Err(Eof);
        }
        self.pos = ((start + n) as u64) << 3;
        Ok(start)
    }

    /// Moves to the absolute bit position `target` (which must be within `data`).
    pub(crate) fn seek(&mut self, data: &[u8], target: u64) -> Result<(), Eof> {
        if target > data.len() as u64 * 8 {
            return Err(Eof);
        }
        self.pos = target;
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn read_u32(&mut self, data: &[u8]) -> Result<u32, Eof> {
        self.read_array(data).map(u32::from_le_bytes)
    }

    #[inline(always)]
    pub(crate) fn read_u64(&mut self, data: &[u8]) -> Result<u64, Eof> {
        self.read_array(data).map(u64::from_le_bytes)
    }

    /// Reads one simple numeric type (everything but strings).
    #[inline(always)]
    pub(crate) fn read_scalar(&mut self, data: &[u8], prim: Prim) -> Result<Scalar, Eof> {
        Ok(match prim {
            Prim::Bool => Scalar::Bool(self.read_bool(data)?),
            Prim::I8 => Scalar::Int(i64::from(i8::from_le_bytes(self.read_array(data)?))),
            Prim::U8 => Scalar::UInt(u64::from(u8::from_le_bytes(self.read_array(data)?))),
            Prim::I16 => Scalar::Int(i64::from(i16::from_le_bytes(self.read_array(data)?))),
            Prim::U16 => Scalar::UInt(u64::from(u16::from_le_bytes(self.read_array(data)?))),
            Prim::I32 => Scalar::Int(i64::from(i32::from_le_bytes(self.read_array(data)?))),
            Prim::U32 => Scalar::UInt(u64::from(self.read_u32(data)?)),
            Prim::I64 => Scalar::Int(i64::from_le_bytes(self.read_array(data)?)),
            Prim::U64 => Scalar::UInt(self.read_u64(data)?),
            Prim::F32 => Scalar::F32(f32::from_le_bytes(self.read_array(data)?)),
            Prim::F64 => Scalar::F64(f64::from_le_bytes(self.read_array(data)?)),
            Prim::SBits(n) => {
                let n = u32::from(n);
                let v = self.read_bits(data, n)?;
                let shift = 64 - n;
                Scalar::Int(((u64::from(v) << shift) as i64) >> shift)
            }
            Prim::UBits(n) => Scalar::UInt(u64::from(self.read_bits(data, u32::from(n))?)),
            Prim::Str | Prim::WStr => unreachable_scalar(),
        })
    }

    /// Reads a length prefix: compact (1 bit + 7 or 31 bits, unaligned) or plain (`u16` for
    /// strings, `u32` for containers, aligned).
    #[inline]
    pub(crate) fn read_len(&mut self, data: &[u8], compact: bool, string: bool) -> Result<u32, Eof> {
        if compact {
            let large = self.read_bool(data)?;
            self.read_bits(data, if large { 31 } else { 7 })
        } else if string {
            self.read_array(data).map(|b| u32::from(u16::from_le_bytes(b)))
        } else {
            self.read_u32(data)
        }
    }
}

#[cold]
fn unreachable_scalar() -> Scalar {
    // Strings are never read through `read_scalar`; the serde layer routes them separately.
    Scalar::UInt(0)
}

/// A bit reader over a byte slice (the standalone form of the decoder's reader).
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    cur: BitCursor,
}

impl<'a> BitReader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, cur: BitCursor::default() }
    }

    /// Reads `n ≤ 32` bits, unaligned.
    pub fn read_bits(&mut self, n: u32) -> Result<u32, Eof> {
        assert!(n <= 32, "read_bits reads at most 32 bits");
        self.cur.read_bits(self.data, n)
    }

    /// Reads one bit.
    pub fn read_bool(&mut self) -> Result<bool, Eof> {
        self.cur.read_bool(self.data)
    }

    /// Skips to the next byte boundary.
    pub fn align(&mut self) {
        self.cur.align();
    }

    /// Aligns, then reads a little-endian `u32`.
    pub fn read_u32(&mut self) -> Result<u32, Eof> {
        self.cur.read_u32(self.data)
    }

    /// Aligns, then reads a little-endian `u64`.
    pub fn read_u64(&mut self) -> Result<u64, Eof> {
        self.cur.read_u64(self.data)
    }

    /// Reads a simple numeric value of the given type (aligned or not, per the type).
    ///
    /// # Panics
    /// For [`Prim::Str`] and [`Prim::WStr`]: use [`read_string`](Self::read_string) and
    /// [`read_wstring`](Self::read_wstring).
    pub fn read_scalar(&mut self, prim: Prim) -> Result<Scalar, Eof> {
        assert!(!matches!(prim, Prim::Str | Prim::WStr), "strings have their own readers");
        self.cur.read_scalar(self.data, prim)
    }

    /// Reads a length prefix (see [`BitWriter::write_len`]).
    pub fn read_len(&mut self, compact: bool, string: bool) -> Result<u32, Eof> {
        self.cur.read_len(self.data, compact, string)
    }

    /// Reads a `std::string`: a length prefix, then that many raw bytes (aligned when not empty).
    pub fn read_string(&mut self, compact: bool) -> Result<&'a [u8], Eof> {
        let n = self.cur.read_len(self.data, compact, true)? as usize;
        if n == 0 {
            return Ok(&[]);
        }
        let start = self.cur.take_bytes(self.data, n)?;
        Ok(&self.data[start..start + n])
    }

    /// Reads a `std::wstring`: a length prefix counting UTF-16 code units, then the units (LE).
    pub fn read_wstring(&mut self, compact: bool) -> Result<Vec<u16>, Eof> {
        let n = self.cur.read_len(self.data, compact, true)? as usize;
        if n == 0 {
            return Ok(Vec::new());
        }
        let start = self.cur.take_bytes(self.data, n.checked_mul(2).ok_or(Eof)?)?;
        Ok(self.data[start..start + 2 * n].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
    }

    /// Reads a KI leaf struct: its components in wire order (for `class Color`: b, g, r, a).
    pub fn read_leaf(&mut self, leaf: Leaf) -> Result<LeafValue, Eof> {
        let mut out = [Scalar::UInt(0); 9];
        for slot in out.iter_mut().take(leaf.len()) {
            *slot = self.cur.read_scalar(self.data, leaf.component())?;
        }
        Ok(LeafValue { leaf, wire: out })
    }

    /// Current position in bits.
    pub fn bit_pos(&self) -> u64 {
        self.cur.bit_pos()
    }

    /// Bits left after the current position.
    pub fn remaining_bits(&self) -> u64 {
        self.cur.remaining_bits(self.data)
    }
}

/// A bit writer into a growable buffer. Padding bits are zero.
///
/// Bits go straight into the buffer: a partly filled last byte stays in it (with zero high bits),
/// so aligning is free and aligned values are plain appends.
#[derive(Debug, Clone, Default)]
pub struct BitWriter {
    buf: Vec<u8>,
    /// Bits used in the last byte of `buf` (1..=7); 0 when the stream is at a byte boundary.
    used: u32,
}

impl BitWriter {
    /// An empty writer.
    pub fn new() -> Self {
        BitWriter::default()
    }

    /// A writer that appends to `buf` (whose length must be a whole number of bytes already written).
    pub fn from_vec(buf: Vec<u8>) -> Self {
        BitWriter { buf, used: 0 }
    }

    /// Writes the low `n ≤ 32` bits of `v`.
    #[inline(always)]
    pub fn write_bits(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32);
        let v = u64::from(v) & mask(n);
        // Merge with the partly filled last byte, append a whole word, keep the bytes in use.
        let mut len = self.buf.len();
        let word = match self.buf.last() {
            Some(last) if self.used != 0 => {
                len -= 1;
                u64::from(*last) | (v << self.used)
            }
            _ => v,
        };
        let total = self.used + n;
        self.buf.truncate(len);
        self.buf.extend_from_slice(&word.to_le_bytes());
        self.buf.truncate(len + total.div_ceil(8) as usize);
        self.used = total & 7;
    }

    /// Writes one bit.
    #[inline(always)]
    pub fn write_bool(&mut self, v: bool) {
        match self.buf.last_mut() {
            Some(last) if self.used != 0 => {
                *last |= u8::from(v) << self.used;
                self.used = (self.used + 1) & 7;
            }
            _ => {
                self.buf.push(u8::from(v));
                self.used = 1;
            }
        }
    }

    /// Pads with zero bits to the next byte boundary.
    #[inline(always)]
    pub fn align(&mut self) {
        self.used = 0;
    }

    /// Aligns, then writes whole bytes.
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        self.used = 0;
        self.buf.extend_from_slice(&bytes);
    }

    /// Aligns, then writes a byte.
    #[inline(always)]
    pub fn write_u8(&mut self, v: u8) {
        self.used = 0;
        self.buf.push(v);
    }

    /// Aligns, then writes a little-endian `u32`.
    #[inline(always)]
    pub fn write_u32(&mut self, v: u32) {
        self.put(v.to_le_bytes());
    }

    /// Aligns, then writes a little-endian `u64`.
    #[inline(always)]
    pub fn write_u64(&mut self, v: u64) {
        self.put(v.to_le_bytes());
    }

    /// Writes a simple numeric value as `prim`, aligning first when the type is aligned. Values
    /// are truncated to the type's width (range checks belong to the caller).
    #[inline(always)]
    pub fn write_scalar(&mut self, prim: Prim, v: Scalar) {
        let (bits, word) = prim.wire_word(v);
        match prim {
            Prim::Bool => self.write_bool(word != 0),
            Prim::SBits(_) | Prim::UBits(_) => self.write_bits(word as u32, bits),
            // (Strings are not scalars: nothing.)
            Prim::Str | Prim::WStr => {}
            // Whole bytes, aligned: the word's low `bits / 8` bytes.
            _ => {
                self.used = 0;
                self.buf.extend_from_slice(&word.to_le_bytes()[..(bits / 8) as usize]);
            }
        }
    }

    /// Deep mode: a property header (size + `hash`) and the `prim` value after it, as
    /// [`write_u64`](Self::write_u64) of a placeholder, [`write_scalar`](Self::write_scalar) and
    /// a patch of the size would write them. The size is known before anything is written (the
    /// padding up to the header, its 64 bits and the value's width), so there is no patch, and
    /// a byte-sized value goes out in the same append as its header.
    #[inline(always)]
    pub(crate) fn write_deep_scalar(&mut self, hash: u32, prim: Prim, v: Scalar) {
        // The size counts from the unaligned position before the header.
        let pad = (8 - self.used) & 7;
        let (bits, word) = prim.wire_word(v);
        let header = u64::from(pad + 64 + bits) | u64::from(hash) << 32;
        if let Prim::SBits(_) | Prim::UBits(_) = prim {
            // Unaligned after the aligned header.
            self.write_u64(header);
            self.write_bits(word as u32, bits);
            return;
        }
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&header.to_le_bytes());
        bytes[8..].copy_from_slice(&word.to_le_bytes());
        self.buf.extend_from_slice(&bytes[..8 + bits.div_ceil(8) as usize]);
        // A bool leaves one bit used in its byte; every other value ends aligned.
        self.used = bits & 7;
    }

    /// Deep mode: a property header (size + `hash`) and a plain (not compact) `std::string`
    /// after it, as [`write_u64`](Self::write_u64) of a placeholder, [`write_string`](Self::write_string)
    /// and a patch of the size would write them: the size is known up front (the padding up to
    /// the header, its 64 bits, the 16-bit length and the bytes), and header and length go out
    /// in one append after one capacity check. The caller checks the length limit.
    #[inline(always)]
    pub(crate) fn write_deep_string(&mut self, hash: u32, bytes: &[u8]) {
        let pad = (8 - self.used) & 7;
        let size = pad + 64 + 16 + 8 * bytes.len() as u32;
        let mut head = [0u8; 10];
        head[..4].copy_from_slice(&size.to_le_bytes());
        head[4..8].copy_from_slice(&hash.to_le_bytes());
        head[8..].copy_from_slice(&(bytes.len() as u16).to_le_bytes());
        self.used = 0;
        self.buf.reserve(10 + bytes.len());
        self.buf.extend_from_slice(&head);
        self.buf.extend_from_slice(bytes);
    }

    /// Deep mode: a property header whose size is not known yet (a size placeholder, then
    /// `hash`, as one aligned word), for [`end_deep`](Self::end_deep) to fill in.
    #[inline(always)]
    pub(crate) fn write_deep_header(&mut self, hash: u32) -> Patch {
        let patch = self.deep_patch();
        self.write_u64(u64::from(hash) << 32);
        patch
    }

    /// Deep mode: a container property's header (size placeholder + `hash`) and its plain
    /// `u32` length, in one append (aligned first), for [`end_deep`](Self::end_deep) to fill in.
    #[inline(always)]
    pub(crate) fn write_deep_container_header(&mut self, hash: u32, len: u32) -> Patch {
        let patch = self.deep_patch();
        let mut bytes = [0u8; 12];
        bytes[4..8].copy_from_slice(&hash.to_le_bytes());
        bytes[8..].copy_from_slice(&len.to_le_bytes());
        self.put(bytes);
        patch
    }

    /// Deep mode: a property header whose aligned value of `bits` bits follows (a leaf struct):
    /// the size is known up front (the padding up to the header, its 64 bits and the value's),
    /// so the header is written whole, with no patch.
    #[inline(always)]
    pub(crate) fn write_deep_header_sized(&mut self, hash: u32, bits: u32) {
        let pad = (8 - self.used) & 7;
        self.write_u64(u64::from(pad + 64 + bits) | u64::from(hash) << 32);
    }

    /// Deep mode: a property header and an aligned 64-bit value after it (a leaf struct of two
    /// 32-bit components) in one append, as [`write_deep_header_sized`](Self::write_deep_header_sized)
    /// and [`write_u64`](Self::write_u64) would write them.
    #[inline(always)]
    pub(crate) fn write_deep_u64(&mut self, hash: u32, v: u64) {
        let pad = (8 - self.used) & 7;
        let header = u64::from(pad + 128) | u64::from(hash) << 32;
        self.put((u128::from(header) | u128::from(v) << 64).to_le_bytes());
    }

    /// Deep mode: a property header (size placeholder + `hash`) and the object it holds (its
    /// `tag` and size placeholder) in one aligned append. Returns the byte index of the
    /// object's size field and what precedes that field in the property, in bits (the padding
    /// up to the header, the header and the tag), for [`patch_deep_object`](Self::patch_deep_object).
    #[inline(always)]
    pub(crate) fn write_deep_object_header(&mut self, hash: u32, tag: u32) -> (usize, u8) {
        let pad = (8 - self.used) & 7;
        let at = self.buf.len();
        let mut bytes = [0u8; 16];
        bytes[4..8].copy_from_slice(&hash.to_le_bytes());
        bytes[8..12].copy_from_slice(&tag.to_le_bytes());
        self.put(bytes);
        (at + 12, (pad + 96) as u8)
    }

    /// Fills in the sizes written as placeholders by
    /// [`write_deep_object_header`](Self::write_deep_object_header): the object's (`size`, at
    /// byte `at`) and its property's (`size` plus `head`, twelve bytes before it), with one
    /// bounds check.
    #[inline(always)]
    pub(crate) fn patch_deep_object(&mut self, at: usize, size: u32, head: u8) {
        let b = &mut self.buf[at - 12..at + 4];
        b[..4].copy_from_slice(&size.wrapping_add(u32::from(head)).to_le_bytes());
        b[12..].copy_from_slice(&size.to_le_bytes());
    }

    /// A deep property header about to be written here: its size counts from the unaligned
    /// position, and its size field is the first aligned word (a partly filled last byte is
    /// already in the buffer, so that word starts at the buffer's length).
    #[inline(always)]
    fn deep_patch(&self) -> Patch {
        Patch { start: self.bit_pos(), size_at: self.buf.len() }
    }

    /// Fills in the size of the deep property `patch` (from
    /// [`write_deep_header`](Self::write_deep_header) or
    /// [`write_deep_container_header`](Self::write_deep_container_header)): everything written
    /// since it started.
    #[inline(always)]
    pub(crate) fn end_deep(&mut self, patch: Patch) {
        let size = self.bit_pos() - patch.start;
        self.patch_u32_at(patch.size_at, size as u32);
    }

    /// Writes a length prefix. Compact: one bit `is_large`, then 7 bits when `n < 128`, else 31
    /// bits (unaligned). Plain: aligned `u16` for strings, aligned `u32` for containers.
    ///
    /// The caller guarantees `n` fits (`< 2^31` compact, `< 2^16` plain strings).
    #[inline]
    pub fn write_len(&mut self, n: u32, compact: bool, string: bool) {
        if compact {
            if n < 128 {
                self.write_bits(n << 1, 8);
            } else {
                self.write_bits(1 | (n << 1), 32);
            }
        } else if string {
            self.put((n as u16).to_le_bytes());
        } else {
            self.write_u32(n);
        }
    }

    /// Aligns, then writes raw bytes.
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.used = 0;
        self.buf.extend_from_slice(bytes);
    }

    /// Writes a `std::string` (length prefix + bytes). The caller checks the length limit.
    #[inline]
    pub fn write_string(&mut self, bytes: &[u8], compact: bool) {
        if !compact {
            self.write_plain_string(bytes);
            return;
        }
        self.write_len(bytes.len() as u32, compact, true);
        if !bytes.is_empty() {
            self.write_bytes(bytes);
        }
    }

    /// [`write_string`](Self::write_string) with plain length prefixes: an aligned u16 length
    /// and the bytes, after one capacity check. Always inlined: the serializer's string fast
    /// paths call it directly, so a plain string costs no call besides the byte copy.
    #[inline(always)]
    pub(crate) fn write_plain_string(&mut self, bytes: &[u8]) {
        self.used = 0;
        self.buf.reserve(2 + bytes.len());
        self.buf.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
        self.buf.extend_from_slice(bytes);
    }

    /// Writes a `std::wstring` from UTF-16 code units (length prefix counts units).
    pub fn write_wstring(&mut self, units: &[u16], compact: bool) {
        self.write_len(units.len() as u32, compact, true);
        if !units.is_empty() {
            self.buf.reserve(units.len() * 2);
            for u in units {
                self.put(u.to_le_bytes());
            }
        }
    }

    /// Writes a `std::wstring` from its UTF-16LE bytes (an even number; the length prefix counts
    /// code units). Any code units, lone surrogates included, are written as they are.
    pub fn write_wstring_le_bytes(&mut self, bytes: &[u8], compact: bool) {
        debug_assert!(bytes.len() % 2 == 0);
        self.write_len((bytes.len() / 2) as u32, compact, true);
        if !bytes.is_empty() {
            self.write_bytes(bytes);
        }
    }

    /// Writes a KI leaf struct from its components in wire order.
    pub fn write_leaf(&mut self, v: &LeafValue) {
        for s in &v.wire[..v.leaf.len()] {
            self.write_scalar(v.leaf.component(), *s);
        }
    }

    /// The writer's state: the buffer's length (a partly filled last byte included) and the
    /// bits used in its last byte.
    #[inline(always)]
    pub(crate) fn mark(&self) -> (usize, u32) {
        (self.buf.len(), self.used)
    }

    /// Overwrites the four bytes at byte index `at`, written earlier, with `v` (little-endian).
    /// The aligned value written right after [`mark`](Self::mark) returned `(at, _)` is at `at`.
    #[inline(always)]
    pub(crate) fn patch_u32_at(&mut self, at: usize, v: u32) {
        self.buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Current position in bits.
    #[inline(always)]
    pub fn bit_pos(&self) -> u64 {
        // Unused high bits of the last byte: 8 - used, or none when `used` is 0.
        self.buf.len() as u64 * 8 - u64::from((8 - self.used) & 7)
    }

    /// Overwrites the `u32` written earlier at the byte-aligned bit position `bit_pos`.
    ///
    /// # Panics
    /// If `bit_pos` is not byte-aligned or the four bytes have not all been written yet.
    #[inline]
    pub fn patch_u32(&mut self, bit_pos: u64, v: u32) {
        assert!(bit_pos % 8 == 0, "patch positions are byte-aligned");
        let at = (bit_pos / 8) as usize;
        self.buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Pads to a whole byte and returns the bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    /// Bytes written so far, padded to a whole byte (the writer can go on).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.buf.clone()
    }
}

/// A deep property header waiting for its size ([`BitWriter::end_deep`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patch {
    /// The bit position before the header (the size counts from there).
    start: u64,
    /// The byte index of the size field.
    size_at: usize,
}

/// A simple value as read from or written to the stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `bool`.
    Bool(bool),
    /// A signed integer of any width.
    Int(i64),
    /// An unsigned integer of any width.
    UInt(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

impl Scalar {
    /// The raw two's-complement bits (floats convert to integers first, truncating).
    #[inline]
    pub fn as_bits(self) -> u64 {
        match self {
            Scalar::Bool(b) => u64::from(b),
            Scalar::Int(v) => v as u64,
            Scalar::UInt(v) => v,
            Scalar::F32(v) => v as i64 as u64,
            Scalar::F64(v) => v as i64 as u64,
        }
    }

    /// As `f32`.
    #[inline]
    pub fn as_f32(self) -> f32 {
        match self {
            Scalar::F32(v) => v,
            Scalar::F64(v) => v as f32,
            Scalar::Int(v) => v as f32,
            Scalar::UInt(v) => v as f32,
            Scalar::Bool(b) => f32::from(u8::from(b)),
        }
    }

    /// As `f64`.
    #[inline]
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::F32(v) => f64::from(v),
            Scalar::F64(v) => v,
            Scalar::Int(v) => v as f64,
            Scalar::UInt(v) => v as f64,
            Scalar::Bool(b) => f64::from(u8::from(b)),
        }
    }
}

/// The simple (non-object) types of the format, by encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prim {
    /// `bool`: 1 bit.
    Bool,
    /// `char`: i8, aligned.
    I8,
    /// `unsigned char`: u8, aligned.
    U8,
    /// `short`: i16, aligned.
    I16,
    /// `unsigned short`, `wchar_t`: u16, aligned.
    U16,
    /// `int`, `long`: i32, aligned.
    I32,
    /// `unsigned int`, `unsigned long`: u32, aligned.
    U32,
    /// `__int64`, `long long` (an extension: katsuba reads these as objects): i64, aligned.
    I64,
    /// `unsigned __int64`, `gid`, `union gid` (and `unsigned long long`): u64, aligned.
    U64,
    /// `float`: IEEE-754 bits, aligned.
    F32,
    /// `double`: IEEE-754 bits, aligned.
    F64,
    /// `bi2`..`bi7` and `s24`: signed, sign-extended, unaligned.
    SBits(u8),
    /// `bui2`..`bui7` and `u24`: unsigned, unaligned.
    UBits(u8),
    /// `std::string`: length prefix + raw bytes.
    Str,
    /// `std::wstring`: length prefix (UTF-16 units) + UTF-16LE.
    WStr,
}

impl Prim {
    /// A value's width on the wire in bits and its bits as written (truncated to that width,
    /// floats as their IEEE-754 bits): the one table [`BitWriter::write_scalar`] and
    /// [`BitWriter::write_deep_scalar`] share. Strings are not scalars: `(0, 0)`, nothing written.
    #[inline(always)]
    pub(crate) fn wire_word(self, v: Scalar) -> (u32, u64) {
        match self {
            Prim::Bool => (1, u64::from(v.as_bits() != 0)),
            Prim::I8 | Prim::U8 => (8, v.as_bits() & 0xFF),
            Prim::I16 | Prim::U16 => (16, v.as_bits() & 0xFFFF),
            Prim::I32 | Prim::U32 => (32, v.as_bits() & 0xFFFF_FFFF),
            Prim::I64 | Prim::U64 => (64, v.as_bits()),
            Prim::F32 => (32, u64::from(v.as_f32().to_bits())),
            Prim::F64 => (64, v.as_f64().to_bits()),
            Prim::SBits(n) | Prim::UBits(n) => (u32::from(n), v.as_bits() & mask(u32::from(n))),
            Prim::Str | Prim::WStr => (0, 0),
        }
    }

    /// The canonical C++ type string of this encoding (used for deep-mode hashes when a static
    /// schema leaves the type to the Rust type).
    pub const fn type_name(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "char",
            Prim::U8 => "unsigned char",
            Prim::I16 => "short",
            Prim::U16 => "unsigned short",
            Prim::I32 => "int",
            Prim::U32 => "unsigned int",
            Prim::I64 => "__int64",
            Prim::U64 => "unsigned __int64",
            Prim::F32 => "float",
            Prim::F64 => "double",
            Prim::SBits(n) => match n {
                2 => "bi2",
                3 => "bi3",
                4 => "bi4",
                5 => "bi5",
                6 => "bi6",
                7 => "bi7",
                _ => "s24",
            },
            Prim::UBits(n) => match n {
                2 => "bui2",
                3 => "bui3",
                4 => "bui4",
                5 => "bui5",
                6 => "bui6",
                7 => "bui7",
                _ => "u24",
            },
            Prim::Str => "std::string",
            Prim::WStr => "std::wstring",
        }
    }

    /// The range of integers this type holds (`None` for bool, floats and strings).
    pub const fn int_range(self) -> Option<(i64, u64)> {
        Some(match self {
            Prim::I8 => (i8::MIN as i64, i8::MAX as u64),
            Prim::U8 => (0, u8::MAX as u64),
            Prim::I16 => (i16::MIN as i64, i16::MAX as u64),
            Prim::U16 => (0, u16::MAX as u64),
            Prim::I32 => (i32::MIN as i64, i32::MAX as u64),
            Prim::U32 => (0, u32::MAX as u64),
            Prim::I64 => (i64::MIN, i64::MAX as u64),
            Prim::U64 => (0, u64::MAX),
            Prim::SBits(n) => (-(1i64 << (n - 1)), (1u64 << (n - 1)) - 1),
            Prim::UBits(n) => (0, (1u64 << n) - 1),
            _ => return None,
        })
    }
}

/// The KI leaf structs: fixed groups of simple values, aligned, with no tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Leaf {
    /// `class Color`: 4 × u8 in the order **b, g, r, a**.
    Color,
    /// `class Vector3D`: x, y, z (f32).
    Vector3D,
    /// `class Quaternion`: w, x, y, z (f32; katsuba HEAD order, disputed).
    Quaternion,
    /// `class Euler`: pitch, yaw, roll (f32; katsuba HEAD order, disputed).
    Euler,
    /// `class Matrix3x3`: rows i, j, k of 3 × f32.
    Matrix3x3,
    /// `class Point<int>`: x, y (i32).
    PointInt,
    /// `class Point<unsigned int>`: x, y (u32).
    PointUInt,
    /// `class Point<unsigned char>`: x, y (u8).
    PointUChar,
    /// `class Point<float>`: x, y (f32).
    PointFloat,
    /// `class Size<int>`: width, height (i32).
    SizeInt,
    /// `class Rect<int>`: left, top, right, bottom (i32).
    RectInt,
    /// `class Rect<float>`: left, top, right, bottom (f32).
    RectFloat,
}

impl Leaf {
    /// Every leaf type.
    pub const ALL: [Leaf; 12] = [
        Leaf::Color,
        Leaf::Vector3D,
        Leaf::Quaternion,
        Leaf::Euler,
        Leaf::Matrix3x3,
        Leaf::PointInt,
        Leaf::PointUInt,
        Leaf::PointUChar,
        Leaf::PointFloat,
        Leaf::SizeInt,
        Leaf::RectInt,
        Leaf::RectFloat,
    ];

    /// The exact C++ type string.
    pub const fn type_name(self) -> &'static str {
        match self {
            Leaf::Color => "class Color",
            Leaf::Vector3D => "class Vector3D",
            Leaf::Quaternion => "class Quaternion",
            Leaf::Euler => "class Euler",
            Leaf::Matrix3x3 => "class Matrix3x3",
            Leaf::PointInt => "class Point<int>",
            Leaf::PointUInt => "class Point<unsigned int>",
            Leaf::PointUChar => "class Point<unsigned char>",
            Leaf::PointFloat => "class Point<float>",
            Leaf::SizeInt => "class Size<int>",
            Leaf::RectInt => "class Rect<int>",
            Leaf::RectFloat => "class Rect<float>",
        }
    }

    /// The component type.
    pub const fn component(self) -> Prim {
        match self {
            Leaf::Color | Leaf::PointUChar => Prim::U8,
            Leaf::PointInt | Leaf::SizeInt | Leaf::RectInt => Prim::I32,
            Leaf::PointUInt => Prim::U32,
            _ => Prim::F32,
        }
    }

    /// Number of scalar components.
    pub const fn len(self) -> usize {
        match self {
            Leaf::Color | Leaf::Quaternion | Leaf::RectInt | Leaf::RectFloat => 4,
            Leaf::Vector3D | Leaf::Euler => 3,
            Leaf::Matrix3x3 => 9,
            _ => 2,
        }
    }

    /// Always false: every leaf has components (here for clippy's `len_without_is_empty`).
    pub const fn is_empty(self) -> bool {
        false
    }

    /// Field names in wire order; a field covers [`group`](Self::group) scalars (3 for the
    /// matrix rows, else 1).
    pub const fn fields(self) -> &'static [&'static str] {
        match self {
            Leaf::Color => &["b", "g", "r", "a"],
            Leaf::Vector3D => &["x", "y", "z"],
            Leaf::Quaternion => &["w", "x", "y", "z"],
            Leaf::Euler => &["pitch", "yaw", "roll"],
            Leaf::Matrix3x3 => &["i", "j", "k"],
            Leaf::PointInt | Leaf::PointUInt | Leaf::PointUChar | Leaf::PointFloat => &["x", "y"],
            Leaf::SizeInt => &["width", "height"],
            Leaf::RectInt | Leaf::RectFloat => &["left", "top", "right", "bottom"],
        }
    }

    /// Field names in display order (katsuba's JSON order: `r, g, b, a` for colors).
    pub const fn display_fields(self) -> &'static [&'static str] {
        match self {
            Leaf::Color => &["r", "g", "b", "a"],
            other => other.fields(),
        }
    }

    /// Scalars per field.
    pub const fn group(self) -> usize {
        if matches!(self, Leaf::Matrix3x3) { 3 } else { 1 }
    }

    /// Whether a Rust struct's `fields` are exactly [`fields`](Self::fields), in wire order (the
    /// components then go as a sequence, with no names).
    #[inline]
    pub(crate) fn fields_in_wire_order(self, fields: &[&str]) -> bool {
        let wire = self.fields();
        wire.len() == fields.len() && wire.iter().zip(fields).all(|(a, b)| same_short(a, b))
    }

    /// Wire index of the first scalar of field `name`.
    pub fn field_start(self, name: &str) -> Option<usize> {
        self.fields().iter().position(|f| *f == name).map(|i| i * self.group())
    }
}

/// `a == b` for short names (field names), without a call to `memcmp`.
#[inline(always)]
pub(crate) fn same_short(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// A leaf struct's components in wire order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeafValue {
    /// Which leaf.
    pub leaf: Leaf,
    /// Components in wire order; only the first `leaf.len()` are meaningful.
    pub wire: [Scalar; 9],
}

/// What a C++ property type string means for the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// A simple value.
    Prim(Prim),
    /// A leaf struct.
    Leaf(Leaf),
    /// Anything else: an object (type tag + properties), by value or behind a pointer.
    Object,
}

/// Classifies a C++ type string exactly as written in type lists (katsuba's table plus the
/// signed/unsigned 64-bit spellings it lacks).
pub fn classify(type_name: &str) -> TypeKind {
    use Prim::*;
    let prim = match type_name {
        "bool" => Bool,
        "char" => I8,
        "unsigned char" => U8,
        "short" => I16,
        "unsigned short" | "wchar_t" => U16,
        "int" | "long" => I32,
        "unsigned int" | "unsigned long" => U32,
        "__int64" | "long long" => I64,
        "unsigned __int64" | "gid" | "union gid" | "unsigned long long" => U64,
        "float" => F32,
        "double" => F64,
        "bi2" => SBits(2),
        "bi3" => SBits(3),
        "bi4" => SBits(4),
        "bi5" => SBits(5),
        "bi6" => SBits(6),
        "bi7" => SBits(7),
        "s24" => SBits(24),
        "bui2" => UBits(2),
        "bui3" => UBits(3),
        "bui4" => UBits(4),
        "bui5" => UBits(5),
        "bui6" => UBits(6),
        "bui7" => UBits(7),
        "u24" => UBits(24),
        "std::string" => Str,
        "std::wstring" => WStr,
        other => {
            return Leaf::ALL.iter().find(|l| l.type_name() == other).map_or(TypeKind::Object, |l| TypeKind::Leaf(*l));
        }
    };
    TypeKind::Prim(prim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsb_first_bits_and_alignment() {
        let mut w = BitWriter::new();
        w.write_bool(true);
        w.write_bits(0b10, 2);
        w.write_bits(0x7F, 7);
        w.write_u32(0x0403_0201);
        w.write_bits(0xABCDE, 20);
        w.write_u64(0x1122_3344_5566_7788);
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes);
        assert!(r.read_bool().unwrap());
        assert_eq!(r.read_bits(2).unwrap(), 0b10);
        assert_eq!(r.read_bits(7).unwrap(), 0x7F);
        assert_eq!(r.read_u32().unwrap(), 0x0403_0201);
        assert_eq!(r.read_bits(20).unwrap(), 0xABCDE);
        assert_eq!(r.read_u64().unwrap(), 0x1122_3344_5566_7788);
        assert!(r.remaining_bits() < 8);
        // bool, 2 bits, 7 bits: 1 | 0b10 << 1 | 0x7F << 3 = 0x3FD, then the aligned u32.
        assert_eq!(&bytes[..3], &[0b1111_1101, 0b11, 0x01]);
    }

    #[test]
    fn compact_lengths() {
        for (n, expect) in [(0u32, vec![0u8]), (5, vec![10]), (127, vec![254]), (128, vec![1, 1, 0, 0])] {
            let mut w = BitWriter::new();
            w.write_len(n, true, true);
            assert_eq!(w.to_bytes(), expect, "n = {n}");
            assert_eq!(BitReader::new(&expect).read_len(true, true).unwrap(), n);
        }
        // The long form is accepted for small values too.
        let mut w = BitWriter::new();
        w.write_bits(1 | (5 << 1), 32);
        assert_eq!(BitReader::new(&w.finish()).read_len(true, false).unwrap(), 5);
    }

    #[test]
    fn signed_bit_integers_sign_extend() {
        let mut w = BitWriter::new();
        w.write_scalar(Prim::SBits(5), Scalar::Int(-16));
        w.write_scalar(Prim::SBits(24), Scalar::Int(-8_388_608));
        w.write_scalar(Prim::UBits(7), Scalar::UInt(127));
        let b = w.finish();
        let mut r = BitReader::new(&b);
        assert_eq!(r.read_scalar(Prim::SBits(5)).unwrap(), Scalar::Int(-16));
        assert_eq!(r.read_scalar(Prim::SBits(24)).unwrap(), Scalar::Int(-8_388_608));
        assert_eq!(r.read_scalar(Prim::UBits(7)).unwrap(), Scalar::UInt(127));
    }

    #[test]
    fn color_is_bgra_on_the_wire() {
        let mut w = BitWriter::new();
        let v = LeafValue {
            leaf: Leaf::Color,
            wire: [
                Scalar::UInt(3),
                Scalar::UInt(2),
                Scalar::UInt(1),
                Scalar::UInt(255),
                Scalar::UInt(0),
                Scalar::UInt(0),
                Scalar::UInt(0),
                Scalar::UInt(0),
                Scalar::UInt(0),
            ],
        };
        w.write_bool(true);
        w.write_leaf(&v);
        let b = w.finish();
        assert_eq!(b, [1, 3, 2, 1, 255]);
        let mut r = BitReader::new(&b);
        r.read_bool().unwrap();
        assert_eq!(r.read_leaf(Leaf::Color).unwrap(), v);
        assert_eq!(Leaf::Color.field_start("r"), Some(2));
        assert_eq!(Leaf::Matrix3x3.field_start("k"), Some(6));
    }

    #[test]
    fn strings_align_only_when_not_empty() {
        let mut w = BitWriter::new();
        w.write_bool(true);
        w.write_string(b"", true);
        w.write_bool(true);
        w.write_string(b"hi", true);
        w.write_wstring(&[0x41, 0xE9], false);
        let b = w.finish();
        let mut r = BitReader::new(&b);
        assert!(r.read_bool().unwrap());
        assert_eq!(r.read_string(true).unwrap(), b"");
        assert!(r.read_bool().unwrap());
        assert_eq!(r.read_string(true).unwrap(), b"hi");
        assert_eq!(r.read_wstring(false).unwrap(), vec![0x41, 0xE9]);
        // bool(1) + prefix 0 (8) + bool(1) at bit 9 + prefix 2<<1 at bits 10..18, then the
        // aligned payload at byte 3.
        assert_eq!(&b[..5], &[0b0000_0001, 0b0001_0010, 0, b'h', b'i']);
    }

    #[test]
    fn truncated_input_is_eof() {
        let mut r = BitReader::new(&[0xFF]);
        assert_eq!(r.read_u32(), Err(Eof));
        let mut r = BitReader::new(&[0x04, 0x00]);
        assert_eq!(r.read_string(true), Err(Eof));
    }

    #[test]
    fn classify_types() {
        assert_eq!(classify("gid"), TypeKind::Prim(Prim::U64));
        assert_eq!(classify("class Point<unsigned char>"), TypeKind::Leaf(Leaf::PointUChar));
        assert_eq!(classify("class SharedPointer<class Foo>"), TypeKind::Object);
        assert_eq!(classify("enum School"), TypeKind::Object);
        for p in [Prim::Bool, Prim::SBits(3), Prim::UBits(24), Prim::WStr, Prim::I64] {
            assert_eq!(classify(p.type_name()), TypeKind::Prim(p));
        }
        for l in Leaf::ALL {
            assert_eq!(classify(l.type_name()), TypeKind::Leaf(l));
        }
    }
}
