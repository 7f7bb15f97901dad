//! The low-level codec: type ids of both Godot generations, header flags, a bounds-checked slice
//! reader and the string / padding rules. No serde in here.
//!
//! Everything is little-endian and 4-byte aligned. A value is a `u32` header (byte 0 = type id,
//! bits 16–19 = per-type flags) followed by the type's payload.

use ascii::AsAsciiStr;

use crate::error::{Error, ErrorKind, Result};
use crate::options::Version;
use crate::ser::Output;

/// `HEADER_DATA_FLAG_64`: INT, FLOAT and the real-based math types carry 64-bit payloads.
pub(crate) const FLAG_64: u32 = 1 << 16;
/// `HEADER_DATA_FLAG_OBJECT_AS_ID`: an OBJECT is sent as its instance id.
pub(crate) const FLAG_OBJECT_AS_ID: u32 = 1 << 16;
/// Container-type kinds (bits 16–17 of an ARRAY header; bits 16–17 key and 18–19 value of a
/// DICTIONARY header).
pub(crate) const KIND_NONE: u32 = 0;
pub(crate) const KIND_BUILTIN: u32 = 1;
pub(crate) const KIND_CLASS_NAME: u32 = 2;
pub(crate) const KIND_SCRIPT: u32 = 3;
/// Bit 31 of an Array / Dictionary count is the old "shared" flag; decoders mask it off.
pub(crate) const COUNT_MASK: u32 = 0x7FFF_FFFF;
/// Bit 31 of a NodePath's first word marks the (only supported) new format.
pub(crate) const NODE_PATH_NEW_FORMAT: u32 = 0x8000_0000;

macro_rules! variant_types {
    ($($(#[$doc:meta])* $name:ident = $g4:literal, $g3:expr, $text:literal;)*) => {
        /// The type of a Godot Variant, named as in Godot 4 (`Variant::Type`); the discriminant is
        /// the Godot 4 type id.
        ///
        /// Godot 3 names some of them differently (`Quat`, `Transform`, `PoolByteArray`…) and
        /// numbers them differently from 6 up: see [`VariantType::id`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum VariantType {
            $($(#[$doc])* $name = $g4,)*
        }

        impl VariantType {
            /// Every type, in Godot 4 order.
            pub const ALL: [VariantType; 39] = [$(VariantType::$name,)*];

            const GODOT3_IDS: [Option<u8>; 39] = [$($g3,)*];

            /// Godot 4's name of the type, as GDScript's `type_string()` prints it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(VariantType::$name => $text,)*
                }
            }

            /// The reserved serde names that carry this type as a typed-container element, key
            /// and value type (see `magic.rs`).
            pub(crate) const fn typed_names(self) -> [&'static str; 3] {
                match self {
                    $(VariantType::$name => [
                        concat!("$__godot::ArrayOf::", $text),
                        concat!("$__godot::DictKey::", $text),
                        concat!("$__godot::DictValue::", $text),
                    ],)*
                }
            }
        }
    };
}

variant_types! {
    /// `null`.
    Nil = 0, Some(0), "Nil";
    /// `bool`.
    Bool = 1, Some(1), "bool";
    /// `int` (64-bit signed).
    Int = 2, Some(2), "int";
    /// `float` (64-bit; Godot 3 `real`).
    Float = 3, Some(3), "float";
    /// `String`.
    String = 4, Some(4), "String";
    /// `Vector2`.
    Vector2 = 5, Some(5), "Vector2";
    /// `Vector2i` (Godot 4).
    Vector2i = 6, None, "Vector2i";
    /// `Rect2`.
    Rect2 = 7, Some(6), "Rect2";
    /// `Rect2i` (Godot 4).
    Rect2i = 8, None, "Rect2i";
    /// `Vector3`.
    Vector3 = 9, Some(7), "Vector3";
    /// `Vector3i` (Godot 4).
    Vector3i = 10, None, "Vector3i";
    /// `Transform2D`.
    Transform2D = 11, Some(8), "Transform2D";
    /// `Vector4` (Godot 4).
    Vector4 = 12, None, "Vector4";
    /// `Vector4i` (Godot 4).
    Vector4i = 13, None, "Vector4i";
    /// `Plane`.
    Plane = 14, Some(9), "Plane";
    /// `Quaternion` (Godot 3 `Quat`).
    Quaternion = 15, Some(10), "Quaternion";
    /// `AABB`.
    Aabb = 16, Some(11), "AABB";
    /// `Basis`.
    Basis = 17, Some(12), "Basis";
    /// `Transform3D` (Godot 3 `Transform`).
    Transform3D = 18, Some(13), "Transform3D";
    /// `Projection` (Godot 4).
    Projection = 19, None, "Projection";
    /// `Color`.
    Color = 20, Some(14), "Color";
    /// `StringName` (Godot 4).
    StringName = 21, None, "StringName";
    /// `NodePath`.
    NodePath = 22, Some(15), "NodePath";
    /// `RID`.
    Rid = 23, Some(16), "RID";
    /// `Object`.
    Object = 24, Some(17), "Object";
    /// `Callable` (Godot 4).
    Callable = 25, None, "Callable";
    /// `Signal` (Godot 4).
    Signal = 26, None, "Signal";
    /// `Dictionary`.
    Dictionary = 27, Some(18), "Dictionary";
    /// `Array`.
    Array = 28, Some(19), "Array";
    /// `PackedByteArray` (Godot 3 `PoolByteArray`).
    PackedByteArray = 29, Some(20), "PackedByteArray";
    /// `PackedInt32Array` (Godot 3 `PoolIntArray`).
    PackedInt32Array = 30, Some(21), "PackedInt32Array";
    /// `PackedInt64Array` (Godot 4).
    PackedInt64Array = 31, None, "PackedInt64Array";
    /// `PackedFloat32Array` (Godot 3 `PoolRealArray`).
    PackedFloat32Array = 32, Some(22), "PackedFloat32Array";
    /// `PackedFloat64Array` (Godot 4).
    PackedFloat64Array = 33, None, "PackedFloat64Array";
    /// `PackedStringArray` (Godot 3 `PoolStringArray`).
    PackedStringArray = 34, Some(23), "PackedStringArray";
    /// `PackedVector2Array` (Godot 3 `PoolVector2Array`).
    PackedVector2Array = 35, Some(24), "PackedVector2Array";
    /// `PackedVector3Array` (Godot 3 `PoolVector3Array`).
    PackedVector3Array = 36, Some(25), "PackedVector3Array";
    /// `PackedColorArray` (Godot 3 `PoolColorArray`).
    PackedColorArray = 37, Some(26), "PackedColorArray";
    /// `PackedVector4Array` (Godot 4.3+).
    PackedVector4Array = 38, None, "PackedVector4Array";
}

/// Lookup tables from a header's type byte to the type, per version (`None` = out of range).
static GODOT4_TYPES: [Option<VariantType>; 256] = {
    let mut table = [None; 256];
    let mut i = 0;
    while i < VariantType::ALL.len() {
        table[i] = Some(VariantType::ALL[i]);
        i += 1;
    }
    table
};

static GODOT3_TYPES: [Option<VariantType>; 256] = {
    let mut table = [None; 256];
    let mut i = 0;
    while i < VariantType::ALL.len() {
        if let Some(id) = VariantType::GODOT3_IDS[i] {
            table[id as usize] = Some(VariantType::ALL[i]);
        }
        i += 1;
    }
    table
};

/// Type ids to write, per version, indexed by the Godot 4 id (`0xFF` = not in this version).
static GODOT4_IDS: [u8; 39] = {
    let mut table = [0u8; 39];
    let mut i = 0;
    while i < 39 {
        table[i] = i as u8;
        i += 1;
    }
    table
};

static GODOT3_IDS: [u8; 39] = {
    let mut table = [0xFFu8; 39];
    let mut i = 0;
    while i < 39 {
        if let Some(id) = VariantType::GODOT3_IDS[i] {
            table[i] = id;
        }
        i += 1;
    }
    table
};

impl VariantType {
    /// The type id written in headers for `version`, or `None` if the type does not exist there
    /// (e.g. `Vector2i` in Godot 3).
    ///
    /// ```
    /// use serde_godot::{Version, VariantType};
    /// assert_eq!(VariantType::Dictionary.id(Version::Godot4), Some(27));
    /// assert_eq!(VariantType::Dictionary.id(Version::Godot3), Some(18));
    /// assert_eq!(VariantType::Vector2i.id(Version::Godot3), None);
    /// ```
    pub const fn id(self, version: Version) -> Option<u32> {
        match version {
            Version::Godot4 => Some(self as u32),
            Version::Godot3 => match Self::GODOT3_IDS[self as usize] {
                Some(id) => Some(id as u32),
                None => None,
            },
        }
    }

    /// The type with header id `id` in `version` (`None` for ids at or above that version's
    /// `VARIANT_MAX`, which Godot rejects).
    pub fn from_id(id: u32, version: Version) -> Option<VariantType> {
        let table = types_table(version);
        if id < 256 { table[id as usize] } else { None }
    }

    /// Whether the type exists in `version`.
    pub const fn exists_in(self, version: Version) -> bool {
        self.id(version).is_some()
    }

    /// The name of the type in `version` (Godot 3 spells some differently, e.g. `Quat`,
    /// `Transform`, `PoolByteArray`, `real`).
    pub const fn name_in(self, version: Version) -> &'static str {
        match version {
            Version::Godot4 => self.name(),
            Version::Godot3 => match self {
                VariantType::Float => "float",
                VariantType::Quaternion => "Quat",
                VariantType::Transform3D => "Transform",
                VariantType::PackedByteArray => "PoolByteArray",
                VariantType::PackedInt32Array => "PoolIntArray",
                VariantType::PackedFloat32Array => "PoolRealArray",
                VariantType::PackedStringArray => "PoolStringArray",
                VariantType::PackedVector2Array => "PoolVector2Array",
                VariantType::PackedVector3Array => "PoolVector3Array",
                VariantType::PackedColorArray => "PoolColorArray",
                other => other.name(),
            },
        }
    }
}

#[inline]
pub(crate) fn types_table(version: Version) -> &'static [Option<VariantType>; 256] {
    match version {
        Version::Godot4 => &GODOT4_TYPES,
        Version::Godot3 => &GODOT3_TYPES,
    }
}

#[inline]
pub(crate) fn ids_table(version: Version) -> &'static [u8; 39] {
    match version {
        Version::Godot4 => &GODOT4_IDS,
        Version::Godot3 => &GODOT3_IDS,
    }
}

/// Zero bytes needed after `len` bytes to reach a multiple of 4.
#[inline]
pub(crate) const fn pad4(len: usize) -> usize {
    (4 - (len & 3)) & 3
}

/// The engine's view of a string's bytes: parsing stops at the first NUL and a leading UTF-8 byte
/// order mark is dropped (both Godot 3 and 4 do this); the rest must be valid UTF-8.
///
/// Godot 3.2's own parser also lets through UTF-8-encoded surrogates and code points above
/// U+10FFFF; no valid UTF-8 (and no Rust string) can hold those, so they are rejected here, as
/// Godot 4 does.
#[inline]
pub(crate) fn godot_str(bytes: &[u8]) -> Option<&str> {
    // The common string has neither NUL nor BOM; short ones are checked with two word loads,
    // longer ones with core's memchr.
    let no_nul = match short_words(bytes) {
        Some((head, tail)) => !zero_byte(head) && !zero_byte(tail),
        None => !has_nul(bytes),
    };
    if no_nul && !bytes.starts_with(b"\xEF\xBB\xBF") {
        return utf8(bytes);
    }
    godot_str_slow(bytes)
}

/// Strings up to this long are first tried as ASCII by [`utf8`].
const ASCII_FIRST: usize = 64;

/// `bytes` as a `str` if they are valid UTF-8. A short all-ASCII string (the common name, key or
/// path) skips core's UTF-8 validation: its set-up and byte-wise head and tail cost more than the
/// string for a few bytes. The `ascii` crate's check gives the `str` without unsafe code; core's
/// `is_ascii` first, so that a string that is not ASCII costs one more pass at most (the crate
/// counts the ASCII prefix of a string it refuses).
#[inline]
fn utf8(bytes: &[u8]) -> Option<&str> {
    if bytes.len() <= ASCII_FIRST && bytes.is_ascii() {
        if let Ok(s) = bytes.as_ascii_str() {
            return Some(s.as_str());
        }
    }
    std::str::from_utf8(bytes).ok()
}

/// The high bit of every byte of a word: none set means ASCII.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

#[cold]
fn godot_str_slow(bytes: &[u8]) -> Option<&str> {
    let bytes = match bytes.iter().position(|&b| b == 0) {
        Some(nul) => &bytes[..nul],
        None => bytes,
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    utf8(bytes)
}

/// Whether `bytes` holds a NUL: word at a time, branch-free per word (strings are short; core's
/// `memchr` goes byte by byte below 16 bytes and to an alignment boundary first).
#[inline]
fn has_nul(bytes: &[u8]) -> bool {
    let Some(last) = bytes.last_chunk::<8>() else {
        return bytes.contains(&0);
    };
    let mut found = zero_bytes(u64::from_le_bytes(*last));
    for word in bytes.chunks_exact(8) {
        found |= zero_bytes(u64::from_le_bytes(word.try_into().expect("8 bytes")));
    }
    found != 0
}

/// Non-zero exactly when a word holds a zero byte (the marked bit may be wrong above the first
/// zero byte; whether there is one is exact).
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(FILL) & !x & HIGH_BITS
}

/// `0x01` in every byte: what [`zero_bytes`] subtracts from each byte, and the filler of words
/// shorter than 8 bytes (neither zero nor above ASCII).
const FILL: u64 = 0x0101_0101_0101_0101;

/// Whether a word holds a zero byte.
#[inline(always)]
fn zero_byte(x: u64) -> bool {
    zero_bytes(x) != 0
}

/// The first and last 8 bytes of `s` (4 to 16 bytes long; shorter words are padded with
/// `0x01`, neither zero nor above ASCII), which between them cover every byte of `s`: fixed-size
/// loads instead of a loop or a call.
#[inline(always)]
fn short_words(s: &[u8]) -> Option<(u64, u64)> {
    let n = s.len();
    let u64_at = |i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes")) as u64 | FILL << 32;
    match n {
        8..=16 => Some((u64_at(0), u64_at(n - 8))),
        4..=7 => Some((u32_at(0), u32_at(n - 4))),
        _ => None,
    }
}

/// Whether `a` and `b` are equal and hold no NUL byte, for strings of up to 16 bytes (`None`
/// for longer ones): a few fixed-size word compares instead of a `memcmp` call.
#[inline(always)]
pub(crate) fn short_eq_no_nul(a: &[u8], b: &[u8]) -> Option<bool> {
    if a.len() != b.len() {
        return Some(false);
    }
    if a.len() < 4 {
        // Up to 3 bytes: first, middle and last cover them all (no `memcmp` / `memchr` call).
        let Some((&first, &last)) = a.first().zip(a.last()) else { return Some(true) };
        let mid = a[a.len() / 2];
        return Some(
            (first, mid, last) == (b[0], b[b.len() / 2], b[b.len() - 1]) && first != 0 && mid != 0 && last != 0,
        );
    }
    let (head, tail) = short_words(a)?;
    Some((head, tail) == short_words(b)? && !zero_byte(head) && !zero_byte(tail))
}

/// Whether `a` and `b` are equal and hold no NUL byte, at any length.
#[inline(always)]
pub(crate) fn eq_no_nul(a: &[u8], b: &[u8]) -> bool {
    short_eq_no_nul(a, b).unwrap_or_else(|| a == b && !has_nul(a))
}

/// A bounds-checked cursor over the input: the unread rest is a slice that shrinks from the
/// front, so each read is one length check (the position is derived for error offsets).
///
/// It also keeps the budget for reserving memory ahead of decoding ([`Reader::prealloc`]).
#[derive(Clone)]
pub(crate) struct Reader<'de> {
    rest: &'de [u8],
    /// The whole input (positions are offsets in it; errors read keys again from it).
    input: &'de [u8],
    /// The end of the input already promised to containers that reserved room for their
    /// elements (an offset; never beyond the input's length).
    promised: usize,
}

impl<'de> Reader<'de> {
    #[inline]
    pub(crate) fn new(buf: &'de [u8]) -> Self {
        Reader { rest: buf, input: buf, promised: 0 }
    }

    /// How many of the `count` elements a container declares may be reserved ahead of decoding
    /// them, when each takes at least `min_size` input bytes.
    ///
    /// Each grant is backed by its own stretch of the input after the furthest one promised
    /// before, so that nested containers cannot all reserve for the same bytes: over a whole
    /// decode, at most `len / min_size` elements are reserved, however deep the nesting or large
    /// the declared counts. Elements beyond the grant are still decoded (the vector grows as they
    /// arrive).
    #[inline]
    pub(crate) fn prealloc(&mut self, count: usize, min_size: usize) -> usize {
        let from = self.pos().max(self.promised);
        let granted = count.min((self.input.len() - from) / min_size);
        self.promised = from + granted * min_size;
        granted
    }

    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.input.len() - self.rest.len()
    }

    /// The whole input.
    #[inline]
    pub(crate) fn input(&self) -> &'de [u8] {
        self.input
    }

    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    #[inline]
    pub(crate) fn rest(&self) -> &'de [u8] {
        self.rest
    }

    #[cold]
    pub(crate) fn eof(&self) -> Error {
        Error::at(ErrorKind::Eof, self.pos())
    }

    #[cold]
    pub(crate) fn err(&self, kind: ErrorKind) -> Error {
        Error::at(kind, self.pos())
    }

    #[inline]
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.rest.split_first_chunk::<N>() {
            Some((chunk, tail)) => {
                self.rest = tail;
                Ok(*chunk)
            }
            None => Err(self.eof()),
        }
    }

    /// The next 8 bytes (a header and a 32-bit payload), consumed only if `accept` says so.
    #[inline(always)]
    pub(crate) fn word_if(&mut self, accept: impl FnOnce(u64) -> bool) -> Option<u64> {
        self.word_at_if(0, accept)
    }

    /// [`Self::word_if`] for the 8 bytes after the next `skip` (which are consumed with them):
    /// a value read together with what precedes it, in one bounds test and one update.
    #[inline(always)]
    pub(crate) fn word_at_if(&mut self, skip: usize, accept: impl FnOnce(u64) -> bool) -> Option<u64> {
        let (chunk, tail) = self.rest.get(skip..)?.split_first_chunk::<8>()?;
        let word = u64::from_le_bytes(*chunk);
        if accept(word) {
            self.rest = tail;
            Some(word)
        } else {
            None
        }
    }

    /// The `n` bytes after the next `skip`, consumed with them only if there are that many and
    /// `accept` says so.
    #[inline(always)]
    pub(crate) fn take_at_if(
        &mut self,
        skip: usize,
        n: usize,
        accept: impl FnOnce(&'de [u8]) -> bool,
    ) -> Option<&'de [u8]> {
        let (bytes, tail) = self.rest.get(skip..)?.split_at_checked(n)?;
        if !accept(bytes) {
            return None;
        }
        self.rest = tail;
        Some(bytes)
    }

    /// Consumes the next `n` bytes, which the caller has seen are there (at most all of them).
    #[inline(always)]
    pub(crate) fn skip(&mut self, n: usize) {
        self.rest = self.rest.get(n..).unwrap_or_default();
    }

    #[inline]
    pub(crate) fn peek_u32(&self) -> Option<u32> {
        self.rest.first_chunk::<4>().map(|b| u32::from_le_bytes(*b))
    }

    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32> {
        self.array::<4>().map(u32::from_le_bytes)
    }

    #[inline]
    pub(crate) fn u64(&mut self) -> Result<u64> {
        self.array::<8>().map(u64::from_le_bytes)
    }

    #[inline]
    pub(crate) fn f32(&mut self) -> Result<f32> {
        self.array::<4>().map(f32::from_le_bytes)
    }

    #[inline]
    pub(crate) fn f64(&mut self) -> Result<f64> {
        self.array::<8>().map(f64::from_le_bytes)
    }

    /// `n` bytes.
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'de [u8]> {
        match self.rest.split_at_checked(n) {
            Some((bytes, tail)) => {
                self.rest = tail;
                Ok(bytes)
            }
            None => Err(self.eof()),
        }
    }

    /// Skips up to `n` bytes (padding that the engine tolerates missing at the very end).
    #[inline]
    pub(crate) fn skip_lenient(&mut self, n: usize) {
        self.rest = &self.rest[n.min(self.rest.len())..];
    }

    /// A non-negative 32-bit length or count, checked against `max_len`.
    #[inline]
    pub(crate) fn len(&mut self, max_len: usize) -> Result<usize> {
        let at = self.pos();
        let raw = self.u32()?;
        if raw > i32::MAX as u32 {
            return Err(Error::at(ErrorKind::InvalidData("negative length"), at));
        }
        check_len(raw as usize, max_len, at)
    }

    /// An Array / Dictionary count: bit 31 (the old "shared" flag) is masked off, as the engine
    /// does.
    #[inline]
    pub(crate) fn count(&mut self, max_len: usize) -> Result<usize> {
        let at = self.pos();
        let raw = self.u32()?;
        count_of(raw, max_len, at)
    }

    /// Length-prefixed, zero-padded UTF-8 (STRING and STRING_NAME payloads, NodePath and
    /// PackedStringArray elements, class names). The padding must be present (the engine
    /// requires it); its content is not checked (the engine doesn't either, and Godot's NodePath
    /// encoder leaves garbage there, godotengine/godot#44999).
    #[inline]
    pub(crate) fn str(&mut self, max_len: usize) -> Result<&'de str> {
        let at = self.pos();
        let len = self.len(max_len)?;
        let Some((padded, tail)) = self.rest.split_at_checked(len + pad4(len)) else {
            return Err(Error::at(ErrorKind::Eof, at));
        };
        self.rest = tail;
        godot_str(&padded[..len]).ok_or_else(|| Error::at(ErrorKind::InvalidUtf8, at + 4))
    }
}

impl<'de> Reader<'de> {
    /// The common STRING value — header `header` (the STRING type id, no flags), a length within
    /// `max_len` (and Godot's 31 bits), padding present, neither NUL nor BOM — read whole and
    /// consumed; `None` (nothing consumed) for anything else, which [`Reader::str`] then reads
    /// with the engine's rules and exact errors. Up to 16 bytes with fixed-size loads and no
    /// call but UTF-8 validation; longer ones through [`plain_long`].
    #[inline(always)]
    pub(crate) fn plain_string(&mut self, header: u32, max_len: usize) -> Option<&'de str> {
        let (word, tail) = self.rest.split_first_chunk::<8>()?;
        let word = u64::from_le_bytes(*word);
        let len = (word >> 32) as usize;
        if word as u32 != header || len > max_len {
            return None;
        }
        let (padded, rest) = tail.split_at_checked(len + pad4(len))?;
        let bytes = &padded[..len];
        let s = match len {
            0 => "",
            1..=16 => {
                let (head, last) = match short_words(bytes) {
                    Some(words) => words,
                    // 1 to 3 bytes: the padded word, its padding bytes set to `0x01` (neither
                    // zero nor above ASCII).
                    None => {
                        let word = u32::from_le_bytes(*padded.first_chunk::<4>()?) as u64 | FILL << (8 * len);
                        (word, word)
                    }
                };
                if zero_byte(head) || zero_byte(last) || head as u32 & 0x00FF_FFFF == 0x00BF_BBEF {
                    return None;
                }
                // ASCII: checked again as the 8 or 16 input bytes that end with the string (the
                // header and length words before it are ASCII too, for a STRING of up to 16
                // bytes), a check of fixed length whose branches do not vary with the string's
                // length as a check of the string alone would. Anything else: core's UTF-8 check.
                // Two arms end in core's check, not one: joined (a labeled block, an `Option`
                // chain) they measured 4 to 12 more instructions per message.
                if (head | last) & HIGH_BITS == 0 {
                    let (end, window) = (8 + len, if len >= 8 { 16 } else { 8 });
                    match self.rest[end - window..end].as_ascii_str() {
                        Ok(s) => s[window - len..].as_str(),
                        Err(_) => std::str::from_utf8(bytes).ok()?,
                    }
                } else {
                    std::str::from_utf8(bytes).ok()?
                }
            }
            // Godot's lengths are 31-bit (`Reader::str` names a longer one).
            _ if len > i32::MAX as usize => return None,
            _ => plain_long(bytes)?,
        };
        self.rest = rest;
        Some(s)
    }
}

/// [`Reader::plain_string`] for more than 16 bytes: the bytes as a `str` if they hold no NUL,
/// start with no BOM and are valid UTF-8. Out of line: a word loop and a call, kept out of the
/// short strings' inlined path.
#[inline(never)]
fn plain_long(bytes: &[u8]) -> Option<&str> {
    // Up to 32 bytes, the first and last 16 cover them all: four word tests, no loop.
    let nul = match (bytes.len(), bytes.first_chunk::<16>(), bytes.last_chunk::<16>()) {
        (..=32, Some(head), Some(tail)) => {
            let word =
                |w: &[u8; 16], i: usize| zero_bytes(u64::from_le_bytes(w[i..i + 8].try_into().expect("8 bytes")));
            word(head, 0) | word(head, 8) | word(tail, 0) | word(tail, 8) != 0
        }
        _ => has_nul(bytes),
    };
    if nul || bytes.starts_with(b"\xEF\xBB\xBF") {
        return None;
    }
    utf8(bytes)
}

/// An Array / Dictionary count already read (at `at`): bit 31 masked off, checked against
/// `max_len`.
#[inline]
pub(crate) fn count_of(raw: u32, max_len: usize, at: usize) -> Result<usize> {
    check_len((raw & COUNT_MASK) as usize, max_len, at)
}

#[inline]
fn check_len(len: usize, max_len: usize, at: usize) -> Result<usize> {
    if len > max_len {
        return Err(Error::at(ErrorKind::LengthLimit { len: len as u64, limit: max_len }, at));
    }
    Ok(len)
}

/// Appends a header.
#[inline]
pub(crate) fn put_header<O: Output>(out: &mut O, header: u32) {
    out.put(&header.to_le_bytes());
}

/// Appends a 31-bit length (error if longer).
#[inline]
pub(crate) fn len_u32(len: usize) -> Result<u32> {
    if len > i32::MAX as usize {
        return Err(Error::new(ErrorKind::TooLong(len)));
    }
    Ok(len as u32)
}

/// Appends `s` and its zero padding to a multiple of 4.
#[inline]
pub(crate) fn put_padded(out: &mut Vec<u8>, s: &[u8]) {
    let end = out.len() + s.len() + pad4(s.len());
    out.extend_from_slice(s);
    // A fixed-size write and a truncate instead of a variable-size one (which would be a call).
    out.extend_from_slice(&[0; 4]);
    out.truncate(end);
}

/// Copies up to 16 bytes into `dst` with fixed-size loads and stores (no `memcpy` call: short
/// strings — field names above all — are the common case).
#[inline(always)]
fn copy_short(dst: &mut [u8; 16], s: &[u8]) {
    let n = s.len();
    debug_assert!(n <= 16);
    if n >= 8 {
        let (head, tail) = (s.first_chunk::<8>().expect("n >= 8"), s.last_chunk::<8>().expect("n >= 8"));
        dst[n - 8..n].copy_from_slice(tail);
        dst[..8].copy_from_slice(head);
    } else if n >= 4 {
        let (head, tail) = (s.first_chunk::<4>().expect("n >= 4"), s.last_chunk::<4>().expect("n >= 4"));
        dst[n - 4..n].copy_from_slice(tail);
        dst[..4].copy_from_slice(head);
    } else if n > 0 {
        // First, middle and last byte (some the same when `n` < 3): three stores, where a loop
        // may become a `memcpy` call.
        dst[n - 1] = s[n - 1];
        dst[n / 2] = s[n / 2];
        dst[0] = s[0];
    }
}

/// Appends `word` (8 bytes) and then `s` padded to 4, for `s` of at most 16 bytes, as one
/// fixed-size write.
#[inline(always)]
pub(crate) fn put_short(out: &mut Vec<u8>, word: [u8; 8], s: &[u8]) {
    let start = out.len();
    // Zero 24 bytes, write into them in place (a stack buffer copied out afterwards would stall
    // on store forwarding), then cut back to the padded length.
    out.extend_from_slice(&[0u8; 24]);
    let dst: &mut [u8; 24] = (&mut out[start..start + 24]).try_into().expect("24 bytes");
    dst[..8].copy_from_slice(&word);
    copy_short((&mut dst[8..]).try_into().expect("16 bytes"), s);
    cut_back(out, (16 - s.len()) & !3);
}

/// [`put_short`] after the first `n` bytes of `prefix` (a struct field's name), all in one
/// fixed-size write.
#[inline(always)]
pub(crate) fn put_short_after(out: &mut Vec<u8>, prefix: [u8; 16], n: usize, word: [u8; 8], s: &[u8]) {
    let start = out.len();
    out.extend_from_slice(&[0u8; 40]);
    let dst: &mut [u8; 40] = (&mut out[start..start + 40]).try_into().expect("40 bytes");
    // The prefix's bytes past `n` are zeros or overwritten by what follows.
    dst[..16].copy_from_slice(&prefix);
    let rest: &mut [u8; 24] = (&mut dst[n..n + 24]).try_into().expect("24 bytes");
    rest[..8].copy_from_slice(&word);
    copy_short((&mut rest[8..]).try_into().expect("16 bytes"), s);
    // Worked out after the writes, so that fewer values are live across them.
    cut_back(out, ((16 - s.len()) & !3) + (16 - n));
}

/// [`put_short_after`] for `s` of 17 to 32 bytes: one fixed-size write (the first and last 16
/// bytes of `s`, overlapping), where the general path's variable-size copy is a `memcpy` call
/// and a capacity check per part.
#[inline(always)]
pub(crate) fn put_mid_after(out: &mut Vec<u8>, prefix: [u8; 16], n: usize, word: [u8; 8], s: &[u8]) {
    let len = s.len();
    debug_assert!((17..=32).contains(&len) && n <= 16);
    let (head, tail) =
        (s.first_chunk::<16>().expect("17 bytes or more"), s.last_chunk::<16>().expect("17 bytes or more"));
    let start = out.len();
    out.extend_from_slice(&[0u8; 56]);
    let dst: &mut [u8; 56] = (&mut out[start..start + 56]).try_into().expect("56 bytes");
    // The prefix's bytes past `n` are zeros or overwritten by what follows.
    dst[..16].copy_from_slice(&prefix);
    let rest: &mut [u8; 40] = (&mut dst[n..n + 40]).try_into().expect("40 bytes");
    rest[..8].copy_from_slice(&word);
    rest[len - 8..len + 8].copy_from_slice(tail);
    rest[8..24].copy_from_slice(head);
    cut_back(out, ((32 - len) & !3) + (16 - n));
}

/// Drops the last `cut` bytes of `out`: the room of a fixed-size write that the value did not
/// take. `cut` is smaller than that room (`16 - len` rounded down to 4 is the padded length's
/// shortfall), so this is a plain length update: `saturating_sub` says so to the optimiser,
/// which otherwise compares the new length with the one stored (reloaded after the writes).
#[inline(always)]
fn cut_back(out: &mut Vec<u8>, cut: usize) {
    out.truncate(out.len().saturating_sub(cut));
}

/// Appends length, bytes and zero padding of a string body.
#[inline]
pub(crate) fn put_str_body<O: Output>(out: &mut O, s: &[u8]) -> Result<()> {
    let len = len_u32(s.len())?;
    out.reserve(s.len() + 8);
    out.put(&len.to_le_bytes());
    out.put_padded(s);
    Ok(())
}

/// Appends a complete value: `header`, then the string body (STRING, STRING_NAME,
/// PackedByteArray): [`put_str_value_after`] with no prefix.
#[inline(always)]
pub(crate) fn put_str_value<O: Output>(out: &mut O, header: u32, s: &[u8]) -> Result<()> {
    put_str_value_after::<O, 0>(out, 0, header, s)
}

/// Appends the first `SIZE` bytes of `prefix` — nothing, or a Dictionary-form field's encoded
/// key (8, 12 or 16 bytes) — then a complete value: `header`, then the string body. `SIZE` is a
/// constant so that the string's place is a fixed offset.
///
/// Only the common case — a string of at most 16 bytes into an output with room for the
/// fixed-size write — is handled here, inline: a few fixed-offset stores and no call, so that
/// serde's `String` impl around it still inlines. Anything else (growth, longer strings) goes
/// out of line as a tail call, so that the inline part saves no register.
#[inline(always)]
pub(crate) fn put_str_value_after<O: Output, const SIZE: usize>(
    out: &mut O,
    prefix: u128,
    header: u32,
    s: &[u8],
) -> Result<()> {
    if s.len() <= 16 && out.has_room(short_room(SIZE)) {
        put_short_str_value::<O, SIZE>(out, prefix, header, s);
        return Ok(());
    }
    put_str_value_slow::<O, SIZE>(out, prefix, header, s)
}

/// The room the short string write of [`put_str_value_after`] writes into before cutting
/// back: [`put_short`] alone, or [`put_short_after`].
const fn short_room(size: usize) -> usize {
    if size == 0 { 24 } else { 40 }
}

/// The short string case of [`put_str_value_after`].
#[inline(always)]
fn put_short_str_value<O: Output, const SIZE: usize>(out: &mut O, prefix: u128, header: u32, s: &[u8]) {
    let word = ((header as u64) | ((s.len() as u64) << 32)).to_le_bytes();
    if SIZE == 0 {
        out.put_short(word, s);
    } else {
        out.put_short_after(prefix.to_le_bytes(), SIZE, word, s);
    }
}

/// [`put_str_value_after`] when the output must grow or the string is longer than 16 bytes (not
/// `#[cold]`: long strings are common in some data, a log's messages).
#[inline(never)]
fn put_str_value_slow<O: Output, const SIZE: usize>(out: &mut O, prefix: u128, header: u32, s: &[u8]) -> Result<()> {
    match s.len() {
        ..=16 => put_short_str_value::<O, SIZE>(out, prefix, header, s),
        // Up to 32 bytes (namespaced ids, paths): a fixed-size write here, no second call.
        17..=32 => {
            let word = ((header as u64) | ((s.len() as u64) << 32)).to_le_bytes();
            out.put_mid_after(prefix.to_le_bytes(), SIZE, word, s);
        }
        _ => {
            out.put(&prefix.to_le_bytes()[..SIZE]);
            return put_long_str_value(out, header, s);
        }
    }
    Ok(())
}

/// [`put_str_value`] for a string that is usually a literal (a struct's field name): the value is
/// assembled in a stack buffer and appended with one write of its exact length, which folds into
/// a capacity check and a few constant stores when `s` is known at compile time. (A run-time
/// string is better served by [`put_str_value`], whose fixed-size write avoids a variable-size
/// copy.)
#[inline(always)]
pub(crate) fn put_name_value<O: Output>(out: &mut O, header: u32, s: &[u8]) -> Result<()> {
    let n = s.len();
    if n > 16 {
        return put_long_str_value(out, header, s);
    }
    let mut buf = [0u8; 24];
    buf[..8].copy_from_slice(&((header as u64) | ((n as u64) << 32)).to_le_bytes());
    buf[8..8 + n].copy_from_slice(s);
    out.put(&buf[..8 + n + pad4(n)]);
    Ok(())
}

/// [`put_str_value`] of a string longer than 16 bytes.
#[inline(never)]
pub(crate) fn put_long_str_value<O: Output>(out: &mut O, header: u32, s: &[u8]) -> Result<()> {
    let word = ((header as u64) | ((s.len() as u64) << 32)).to_le_bytes();
    len_u32(s.len())?;
    out.reserve(s.len() + 12);
    out.put(&word);
    out.put_padded(s);
    Ok(())
}

/// Appends a PackedStringArray element: the length counts a trailing NUL, which is written.
#[inline]
pub(crate) fn put_packed_str<O: Output>(out: &mut O, s: &[u8]) -> Result<()> {
    let len = len_u32(s.len() + 1)?;
    out.reserve(s.len() + 8);
    out.put(&len.to_le_bytes());
    // The NUL, then the padding.
    out.put(s);
    out.put(&[0; 4][..1 + pad4(s.len() + 1)]);
    Ok(())
}

/// The floats of a real-based math payload: f32, or f64 when the header has [`FLAG_64`] (Godot 4
/// double-precision builds; Godot 3 ignores the flag for math types).
#[inline]
pub(crate) fn real_is_64(header: u32, version: Version) -> bool {
    version == Version::Godot4 && header & FLAG_64 != 0
}

/// A container type (typed Array / Dictionary element type) as read from the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WireContainerType<'de> {
    None,
    Builtin(VariantType),
    ClassName(&'de str),
    Script(&'de str),
}

/// Reads the container-type data for `kind` (Godot 4 only; Godot 3 never calls this).
pub(crate) fn read_container_type<'de>(
    r: &mut Reader<'de>,
    kind: u32,
    max_len: usize,
) -> Result<WireContainerType<'de>> {
    Ok(match kind {
        KIND_NONE => WireContainerType::None,
        KIND_BUILTIN => {
            let at = r.pos();
            let id = r.u32()?;
            match VariantType::from_id(id, Version::Godot4) {
                Some(ty) => WireContainerType::Builtin(ty),
                None => return Err(Error::at(ErrorKind::InvalidData("container element type out of range"), at)),
            }
        }
        KIND_CLASS_NAME => WireContainerType::ClassName(r.str(max_len)?),
        _ => WireContainerType::Script(r.str(max_len)?),
    })
}

/// The bytes of one element of a packed array of `ty`, or `None` for variable-size elements
/// (PackedStringArray).
#[inline]
pub(crate) fn packed_elem_size(ty: VariantType, f64_reals: bool) -> Option<usize> {
    let real = if f64_reals { 8 } else { 4 };
    Some(match ty {
        VariantType::PackedByteArray => 1,
        VariantType::PackedInt32Array | VariantType::PackedFloat32Array => 4,
        VariantType::PackedInt64Array | VariantType::PackedFloat64Array => 8,
        VariantType::PackedVector2Array => 2 * real,
        VariantType::PackedVector3Array => 3 * real,
        VariantType::PackedVector4Array => 4 * real,
        VariantType::PackedColorArray => 16,
        _ => return None,
    })
}

/// Whether a packed array of `ty` honours [`FLAG_64`] (the real-based vector arrays, Godot 4).
#[inline]
pub(crate) fn packed_has_reals(ty: VariantType) -> bool {
    matches!(ty, VariantType::PackedVector2Array | VariantType::PackedVector3Array | VariantType::PackedVector4Array)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_nul_finds_a_nul_at_every_position() {
        for len in 0..48 {
            let clean: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(!has_nul(&clean), "{len}");
            for at in 0..len {
                let mut s = clean.clone();
                s[at] = 0;
                assert!(has_nul(&s), "{len} {at}");
                // 0x01 and 0x80 bytes around the NUL are what trips careless word tricks.
                s.iter_mut().filter(|b| **b != 0).enumerate().for_each(|(i, b)| *b = [0x01, 0x80, 0xFF][i % 3]);
                assert!(has_nul(&s), "{len} {at} (0x01/0x80/0xFF neighbours)");
            }
            assert!(!has_nul(&vec![0x80; len]) && !has_nul(&vec![0x01; len]) && !has_nul(&vec![0xFF; len]));
        }
    }

    #[test]
    fn numbering_matches_the_spec_tables() {
        use VariantType::*;
        let g3 = [
            Nil,
            Bool,
            Int,
            Float,
            String,
            Vector2,
            Rect2,
            Vector3,
            Transform2D,
            Plane,
            Quaternion,
            Aabb,
            Basis,
            Transform3D,
            Color,
            NodePath,
            Rid,
            Object,
            Dictionary,
            Array,
            PackedByteArray,
            PackedInt32Array,
            PackedFloat32Array,
            PackedStringArray,
            PackedVector2Array,
            PackedVector3Array,
            PackedColorArray,
        ];
        for (id, ty) in g3.iter().enumerate() {
            assert_eq!(VariantType::from_id(id as u32, Version::Godot3), Some(*ty));
            assert_eq!(ty.id(Version::Godot3), Some(id as u32));
        }
        assert_eq!(VariantType::from_id(27, Version::Godot3), None);
        for (id, ty) in VariantType::ALL.iter().enumerate() {
            assert_eq!(VariantType::from_id(id as u32, Version::Godot4), Some(*ty));
        }
        assert_eq!(VariantType::from_id(39, Version::Godot4), None);
        assert_eq!(Dictionary as u8, 0x1b);
        assert_eq!(Array as u8, 0x1c);
        assert_eq!(PackedStringArray as u8, 0x22);
    }

    #[test]
    fn short_compares() {
        let names: [&[u8]; 8] =
            [b"", b"a", b"abc", b"abcd", b"abcdefg", b"abcdefgh", b"abcdefghijklmnop", b"x\0yzabcdefg"];
        for a in names {
            for b in names {
                let expected = a == b && !a.contains(&0);
                assert_eq!(short_eq_no_nul(a, b), Some(expected), "{a:?} {b:?}");
            }
        }
        assert_eq!(short_eq_no_nul(b"abc\0", b"abc\0"), Some(false));
        assert_eq!(short_eq_no_nul(b"abcdefghijklmnopq", b"abcdefghijklmnopq"), None);
    }

    #[test]
    fn padding() {
        assert_eq!([pad4(0), pad4(1), pad4(2), pad4(3), pad4(4), pad4(5)], [0, 3, 2, 1, 0, 3]);
    }

    #[test]
    fn strings_after_a_key_are_written_alike() {
        // After a Dictionary-form key of each size: every length through the short (up to 16
        // bytes), mid-size (17 to 32) and long paths, into a `Vec` with room and one without.
        fn check<const SIZE: usize>() {
            let prefix = u128::from_le_bytes(std::array::from_fn(|i| 0x80 | i as u8));
            for len in 0..40 {
                for cap in [0, 256] {
                    let s: Vec<u8> = (0..len as u8).map(|b| b'a' + b % 26).collect();
                    let mut out = Vec::with_capacity(cap);
                    out.push(0xEE);
                    put_str_value_after::<Vec<u8>, SIZE>(&mut out, prefix, 4, &s).unwrap();
                    let mut expected = vec![0xEE];
                    expected.extend_from_slice(&prefix.to_le_bytes()[..SIZE]);
                    expected.extend_from_slice(&[4, 0, 0, 0, len as u8, 0, 0, 0]);
                    expected.extend_from_slice(&s);
                    expected.resize(1 + SIZE + 8 + len + pad4(len), 0);
                    assert_eq!(out, expected, "key {SIZE}, {len} bytes, capacity {cap}");
                }
            }
        }
        check::<0>();
        check::<8>();
        check::<12>();
        check::<16>();
    }

    #[test]
    fn short_and_long_strings_are_written_alike() {
        for len in 0..40 {
            let s: Vec<u8> = (0..len as u8).map(|b| b'a' + b % 26).collect();
            let mut out = vec![0xEE];
            put_str_value(&mut out, 4, &s).unwrap();
            let mut expected = vec![0xEE, 4, 0, 0, 0, len as u8, 0, 0, 0];
            expected.extend_from_slice(&s);
            expected.resize(9 + len + pad4(len), 0);
            assert_eq!(out, expected, "{len}");
        }
    }

    #[test]
    fn plain_string_agrees_with_the_engine_rules_reader() {
        // Every length up to 40, a NUL / BOM / invalid byte at each place, junk in the padding:
        // the fast path either declines (nothing consumed) or gives what `Reader::str` gives.
        let mut cases: Vec<Vec<u8>> = vec![b"\xEF\xBB\xBF".to_vec(), b"\xEF\xBB".to_vec(), b"\xc3".to_vec()];
        // A BOM before a long string too (the long strings' own check).
        cases.push([&b"\xEF\xBB\xBF"[..], &[b'x'; 20]].concat());
        for len in 0..41 {
            cases.push(vec![b'x'; len]);
            for at in 0..len {
                for byte in [0u8, 0x80, 0xFF, 0xEF] {
                    let mut s = vec![b'y'; len];
                    s[at] = byte;
                    cases.push(s);
                }
                // Valid UTF-8 that is not ASCII ("é") at each place: past the ASCII shortcut.
                if at + 1 < len {
                    let mut s = vec![b'y'; len];
                    s[at..at + 2].copy_from_slice("é".as_bytes());
                    cases.push(s);
                }
            }
        }
        for s in cases {
            for junk in [0u8, 0xFF] {
                let mut bytes = 4u32.to_le_bytes().to_vec();
                bytes.extend_from_slice(&(s.len() as u32).to_le_bytes());
                bytes.extend_from_slice(&s);
                bytes.resize(8 + s.len() + pad4(s.len()), junk);
                let expected = Reader::new(&bytes[4..]).str(usize::MAX).ok();
                let mut r = Reader::new(&bytes);
                match r.plain_string(4, usize::MAX) {
                    Some(got) => {
                        assert_eq!(Some(got), expected, "{s:?}");
                        assert_eq!(r.remaining(), 0, "{s:?}");
                    }
                    None => assert_eq!(r.pos(), 0, "{s:?}"),
                }
                let plain = s.iter().all(|&b| b == b'x');
                // Longer than `max_len`: always declined (the engine-rules reader names the limit).
                if !s.is_empty() {
                    assert_eq!(Reader::new(&bytes).plain_string(4, s.len() - 1), None, "{s:?}");
                }
                assert!(!plain || r.remaining() == 0, "the fast path declined {s:?}");
                // Without its padding the value is refused (the engine requires it).
                if pad4(s.len()) > 0 {
                    let cut = &bytes[..bytes.len() - 1];
                    assert_eq!(Reader::new(cut).plain_string(4, usize::MAX), None, "{s:?}");
                }
            }
        }
    }

    #[test]
    fn engine_string_rules() {
        assert_eq!(godot_str(b"abc"), Some("abc"));
        assert_eq!(godot_str(b"a\0b"), Some("a"));
        assert_eq!(godot_str(b"a\0\xff"), Some("a"));
        assert_eq!(godot_str(b"\xEF\xBB\xBFa"), Some("a"));
        assert_eq!(godot_str(b"\xc0\x80"), None);
        assert_eq!(godot_str(b"\xed\xa0\x80"), None);
        // A NUL anywhere, in every length around the word-load cut-offs (and bytes 0x01 / 0x80 /
        // 0xFF next to it, which word tricks could mistake for zero).
        for len in 1..40 {
            for nul in 0..len {
                for fill in [b'a', 0x01, b'\x7f'] {
                    let mut s = vec![fill; len];
                    s[nul] = 0;
                    let expected = std::str::from_utf8(&s[..nul]).unwrap();
                    assert_eq!(godot_str(&s), Some(expected), "{s:?}");
                }
            }
            assert_eq!(godot_str(&vec![0x01; len]).map(str::len), Some(len));
        }
    }
}
