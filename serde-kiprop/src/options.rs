//! Everything configurable, and the framing around the object stream: `BINd` magic, manual
//! compression, STATEFUL_FLAGS and the WITH_COMPRESSION flag byte.

use std::io::Write;

use crate::error::{Error, ErrorKind, Result};

/// SerializerFlags: how the stream is laid out.
pub mod serializer_flags {
    /// A `u32` of flags is stored at the start of the data and replaces the reader's flags.
    pub const STATEFUL_FLAGS: u32 = 1 << 0;
    /// Compact length prefixes for strings and containers.
    pub const COMPACT_LENGTH_PREFIXES: u32 = 1 << 1;
    /// Enums are written as their option names.
    pub const HUMAN_READABLE_ENUMS: u32 = 1 << 2;
    /// A flag byte (+ size + zlib) precedes the object.
    pub const WITH_COMPRESSION: u32 = 1 << 3;
    /// An absent DELTA_ENCODE property is an error.
    pub const FORBID_DELTA_ENCODE: u32 = 1 << 4;
}

use serializer_flags::*;

/// The default [`Options::model_budget`]: bytes of dynamic model per byte of object stream.
pub const DEFAULT_MODEL_BUDGET: usize = 32;
/// The fixed part of the model budget, on top of [`Options::model_budget`] × the stream length.
pub const MODEL_BUDGET_BASE: usize = 1 << 20;

/// The `BINd` magic of game files.
pub const BIND_MAGIC: [u8; 4] = *b"BINd";

/// Which properties shallow mode includes, given the property mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskPredicate {
    /// The property has **all** mask bits (katsuba, the default).
    All,
    /// The property has **any** mask bit.
    Any,
}

/// Options for encoding and decoding.
///
/// Defaults follow katsuba's `SerializerOptions` (shallow, flags 0, mask
/// `TRANSMIT | PRIVILEGED_TRANSMIT`), plus this crate's safety limits and deep-mode recovery:
///
/// | option | default |
/// |---|---|
/// | [`flags`](Self::flags) | 0 |
/// | [`shallow`](Self::shallow) / [`deep`](Self::deep) | shallow |
/// | [`property_mask`](Self::property_mask) | `0x18` (TRANSMIT \| PRIVILEGED_TRANSMIT) |
/// | [`mask_predicate`](Self::mask_predicate) | [`MaskPredicate::All`] |
/// | [`skip_deprecated`](Self::skip_deprecated) | true |
/// | [`manual_compression`](Self::manual_compression) | false |
/// | [`skip_unknown`](Self::skip_unknown) | true (deep mode only) |
/// | [`recursion_limit`](Self::recursion_limit) | 128 |
/// | [`max_decompressed_size`](Self::max_decompressed_size) | 64 MiB |
/// | [`model_budget`](Self::model_budget) | 32 bytes per stream byte (+ 1 MiB) |
/// | [`bind_file`](Self::bind_file) | false |
/// | [`absent_option_is_none`](Self::absent_option_is_none) | false |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub(crate) flags: u32,
    pub(crate) shallow: bool,
    pub(crate) property_mask: u32,
    pub(crate) mask_predicate: MaskPredicate,
    pub(crate) skip_deprecated: bool,
    pub(crate) manual_compression: bool,
    pub(crate) skip_unknown: bool,
    pub(crate) recursion_limit: u32,
    pub(crate) max_decompressed_size: usize,
    pub(crate) model_budget: usize,
    pub(crate) bind_file: bool,
    pub(crate) compression_level: u32,
    pub(crate) absent_option_is_none: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// The defaults (see the table above).
    pub const fn new() -> Self {
        Options {
            flags: 0,
            shallow: true,
            property_mask: crate::flags::TRANSMIT | crate::flags::PRIVILEGED_TRANSMIT,
            mask_predicate: MaskPredicate::All,
            skip_deprecated: true,
            manual_compression: false,
            skip_unknown: true,
            recursion_limit: 128,
            max_decompressed_size: 64 << 20,
            model_budget: DEFAULT_MODEL_BUDGET,
            bind_file: false,
            compression_level: 6,
            absent_option_is_none: false,
        }
    }

    /// The options of a game file: `BINd` magic, deep mode, STATEFUL_FLAGS.
    pub const fn game_file() -> Self {
        Options::new().bind_file(true)
    }

    /// SerializerFlags (see [`serializer_flags`]). For writing, the flags that shape the stream
    /// (stored in it with STATEFUL_FLAGS); for reading, the flags to assume (replaced by the
    /// stored ones when STATEFUL_FLAGS is set).
    ///
    /// A game file ([`bind_file`](Self::bind_file)) always stores its flags (the `BINd` magic
    /// promises them to every reader), so for one STATEFUL_FLAGS is kept whatever `flags` says:
    /// `Options::game_file().flags(COMPACT_LENGTH_PREFIXES)` writes a file with the flags
    /// `STATEFUL_FLAGS | COMPACT_LENGTH_PREFIXES`.
    pub const fn flags(mut self, flags: u32) -> Self {
        self.flags = if self.bind_file { flags | STATEFUL_FLAGS } else { flags };
        self
    }

    /// Shallow mode (network state: properties in id order, masked, no sizes or hashes).
    pub const fn shallow(mut self, shallow: bool) -> Self {
        self.shallow = shallow;
        self
    }

    /// Deep mode (files: object and property sizes and hashes, any order).
    pub const fn deep(mut self, deep: bool) -> Self {
        self.shallow = !deep;
        self
    }

    /// The property mask of shallow mode (ignored in deep mode).
    pub const fn property_mask(mut self, mask: u32) -> Self {
        self.property_mask = mask;
        self
    }

    /// How the mask selects properties.
    pub const fn mask_predicate(mut self, predicate: MaskPredicate) -> Self {
        self.mask_predicate = predicate;
        self
    }

    /// Skip DEPRECATED properties in shallow mode (katsuba and kobold do; see the README's
    /// disputed points). Deep-mode writers never write them; deep-mode readers accept them.
    pub const fn skip_deprecated(mut self, skip: bool) -> Self {
        self.skip_deprecated = skip;
        self
    }

    /// The whole blob is `u32 uncompressed size` + a zlib stream (some network state).
    pub const fn manual_compression(mut self, on: bool) -> Self {
        self.manual_compression = on;
        self
    }

    /// Deep mode: skip unknown type tags (the value becomes null) and unknown property hashes
    /// by their size fields. `false` is katsuba's strict behaviour. Shallow data cannot be skipped.
    pub const fn skip_unknown(mut self, skip: bool) -> Self {
        self.skip_unknown = skip;
        self
    }

    /// Faster decoding of objects that may leave properties out (shallow classes with
    /// DELTA_ENCODE properties, and every deep object): when the Rust struct's fields are the
    /// class's properties in id order, the properties are handed to serde as a sequence (no
    /// field-name step), and an absent property's `Option` field is `None` straight away.
    ///
    /// This is exact except in one case, which is why it is off by default: an `Option` field
    /// whose serde default is not `None` (`#[serde(default = "path")]` returning `Some`, or a
    /// container-level `#[serde(default)]` whose `Default` holds `Some`) gets `None` for an absent
    /// property instead of that default (serde does not show a format its defaults). Anything
    /// else asked of an absent property (a non-`Option` field's default, the "missing field"
    /// error), and deep properties out of id order, unknown or repeated, make the decode start
    /// again once reading maps, which gives today's answer: at most twice the work, still
    /// linear. With `false` (the default) such objects are always read as maps.
    pub const fn absent_option_is_none(mut self, on: bool) -> Self {
        self.absent_option_is_none = on;
        self
    }

    /// Maximum nesting of objects and containers.
    pub const fn recursion_limit(mut self, limit: u32) -> Self {
        self.recursion_limit = limit;
        self
    }

    /// Maximum number of inflated bytes of one input: all its zlib layers together (manual
    /// compression and WITH_COMPRESSION), checked against the size fields before inflating and
    /// enforced while inflating (at most one byte more is ever produced).
    pub const fn max_decompressed_size(mut self, bytes: usize) -> Self {
        self.max_decompressed_size = bytes;
        self
    }

    /// The model budget of dynamic decoding: a [`Value`](crate::Value) (or anything else decoded
    /// through `deserialize_any`, such as serde's buffered content) may take at most
    /// `bytes_per_byte` × the object stream's length (after framing and decompression) + 1 MiB of
    /// memory. Every node is counted before it is built (32 bytes per value, the bytes of strings,
    /// 56 bytes and the name per property, objects and leaf structs at their boxed size, lists
    /// at the capacity they reach); going over is [`ErrorKind::ModelLimit`](crate::ErrorKind::ModelLimit).
    /// Default 32. Typed decoding into Rust structs is not counted: it holds what the types hold.
    pub const fn model_budget(mut self, bytes_per_byte: usize) -> Self {
        self.model_budget = bytes_per_byte;
        self
    }

    /// The model budget for an object stream of `len` bytes.
    pub(crate) fn model_budget_for(&self, len: usize) -> u64 {
        (self.model_budget as u64).saturating_mul(len as u64).saturating_add(MODEL_BUDGET_BASE as u64)
    }

    /// A game file: the `BINd` magic precedes the data, which is deep with STATEFUL_FLAGS
    /// (setting this turns both on; the stored flags decide the rest when reading).
    pub const fn bind_file(mut self, on: bool) -> Self {
        self.bind_file = on;
        if on {
            self.shallow = false;
            self.flags |= STATEFUL_FLAGS;
        }
        self
    }

    /// zlib level 0–9 for WITH_COMPRESSION and manual compression (default 6, zlib's default).
    pub const fn compression_level(mut self, level: u32) -> Self {
        self.compression_level = if level > 9 { 9 } else { level };
        self
    }

    /// The SerializerFlags.
    pub const fn get_flags(&self) -> u32 {
        self.flags
    }

    /// Whether shallow mode is on.
    pub const fn is_shallow(&self) -> bool {
        self.shallow
    }

    /// The recursion limit.
    pub const fn get_recursion_limit(&self) -> u32 {
        self.recursion_limit
    }

    /// Whether the framing options can produce or read a valid stream: a `BINd` game file is
    /// deep mode with stored flags (katsuba and the game read it so, whatever the caller says).
    pub(crate) fn check(&self) -> Result<()> {
        if self.bind_file && self.shallow {
            return Err(Error::new(ErrorKind::BadConfig(
                "a BINd game file is deep mode: shallow(true) (or deep(false)) together with bind_file(true) \
                 writes a file no reader can read; use deep mode, or bind_file(false) for shallow data",
            )));
        }
        if self.bind_file && self.flags & STATEFUL_FLAGS == 0 {
            return Err(Error::new(ErrorKind::BadConfig(
                "a BINd game file stores its flags: bind_file(true) needs STATEFUL_FLAGS",
            )));
        }
        Ok(())
    }

    /// The SerializerFlags the object stream of `bytes` was written with, read from its framing
    /// under these options (`BINd` magic, manual compression): the stored flags when
    /// STATEFUL_FLAGS is set, else [`get_flags`](Self::get_flags) (the stream does not say).
    /// Nothing past the flags is decoded.
    ///
    /// ```
    /// use serde_kiprop::{Options, serializer_flags::*};
    /// # let types = serde_kiprop::TypeList::new();
    /// let file = include_bytes!("../tests/data/generated/bind-deep.xml.bin");
    /// assert_eq!(Options::game_file().stored_flags(file)?, STATEFUL_FLAGS);
    /// # Ok::<(), serde_kiprop::Error>(())
    /// ```
    pub fn stored_flags(&self, bytes: &[u8]) -> Result<u32> {
        self.check()?;
        let mut input = bytes;
        if self.bind_file {
            input = input.strip_prefix(&BIND_MAGIC).ok_or_else(|| Error::new(ErrorKind::BadMagic))?;
        }
        if self.flags & STATEFUL_FLAGS == 0 {
            return Ok(self.flags);
        }
        if self.manual_compression {
            let size = take_u32(input, 0)?;
            let inner = inflate(&input[4..], size, self.max_decompressed_size, self.max_decompressed_size)?;
            return take_u32(&inner, 0);
        }
        take_u32(input, 0)
    }

    /// These options with the flags `bytes` was written with ([`stored_flags`](Self::stored_flags)):
    /// what a tool re-encodes with to write the blob the way it came. A `Value` decoded with
    /// these options and encoded again gives the same bytes back.
    ///
    /// ```
    /// use serde_kiprop::{Options, TypeList, Value};
    /// let types = TypeList::from_path("tests/data/generated/types.json")?;
    /// let file = std::fs::read("tests/data/generated/bind-deep.xml.bin")?;
    /// let opts = Options::game_file().written_with(&file)?;
    /// let value: Value = opts.from_slice(&file, &types)?;
    /// assert_eq!(opts.to_vec(&value, &types)?, file);
    /// # Ok::<(), serde_kiprop::Error>(())
    /// ```
    ///
    /// Compressed data gets the zlib level its stream header announces (fastest → 1, fast → 2,
    /// default → 6, best → 9); another writer's deflate choices may still differ from zlib's
    /// at that level.
    pub fn written_with(&self, bytes: &[u8]) -> Result<Options> {
        let stored = self.stored_flags(bytes)?;
        let mut opts = self.flags(stored | (self.flags & STATEFUL_FLAGS));
        if let Some(level) = self.announced_level(bytes, stored) {
            opts.compression_level = level;
        }
        Ok(opts)
    }

    /// The zlib level the compressed data of `bytes` announces in its zlib header, read under
    /// these options like [`stored_flags`](Self::stored_flags) (`BINd` magic, manual compression,
    /// the stored WITH_COMPRESSION flag): fastest → 1, fast → 2, default → 6, best → 9. `None`
    /// when nothing is compressed (no manual compression, WITH_COMPRESSION unset, or the data
    /// marked uncompressed) or the header is not a zlib header. Nothing is decompressed for it.
    /// [`written_with`](Self::written_with) sets this level; [`get_compression_level`](Self::get_compression_level)
    /// reads it back.
    ///
    /// ```
    /// use serde_kiprop::Options;
    /// let blob = std::fs::read("tests/data/generated/shallow-delta-absent-manual-zlib.bin")?;
    /// let opts = Options::new().manual_compression(true);
    /// assert_eq!(opts.stored_compression_level(&blob)?, Some(6));
    /// let file = std::fs::read("tests/data/generated/bind-deep.xml.bin")?;
    /// assert_eq!(Options::game_file().stored_compression_level(&file)?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stored_compression_level(&self, bytes: &[u8]) -> Result<Option<u32>> {
        // Manual compression's header comes first; only the other framing needs the flags.
        let stored = if self.manual_compression {
            self.check()?;
            if self.bind_file && !bytes.starts_with(&BIND_MAGIC) {
                return Err(Error::new(ErrorKind::BadMagic));
            }
            self.flags
        } else {
            self.stored_flags(bytes)?
        };
        Ok(self.announced_level(bytes, stored))
    }

    /// The zlib level in the header of the compressed data of `bytes`, given the flags it stores.
    fn announced_level(&self, bytes: &[u8], stored: u32) -> Option<u32> {
        let input = if self.bind_file { bytes.get(BIND_MAGIC.len()..)? } else { bytes };
        // The zlib header: manual compression's, else WITH_COMPRESSION's (after the flags).
        let header = if self.manual_compression {
            input.get(4..6)
        } else if stored & WITH_COMPRESSION != 0 {
            let at = if self.flags & STATEFUL_FLAGS != 0 { 4 } else { 0 };
            match input.get(at) {
                Some(&c) if c != 0 => input.get(at + 5..at + 7),
                _ => None,
            }
        } else {
            None
        };
        match header? {
            &[cmf, flg] if cmf & 0x0F == 8 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0 => {
                Some([1, 2, 6, 9][usize::from(flg >> 6)])
            }
            _ => None,
        }
    }

    /// The zlib level for WITH_COMPRESSION and manual compression (see
    /// [`compression_level`](Self::compression_level); [`written_with`](Self::written_with) sets
    /// the one the data announces).
    pub const fn get_compression_level(&self) -> u32 {
        self.compression_level
    }

    pub(crate) fn compact(&self) -> bool {
        self.flags & COMPACT_LENGTH_PREFIXES != 0
    }

    pub(crate) fn string_enums(&self) -> bool {
        self.flags & HUMAN_READABLE_ENUMS != 0
    }

    /// Which properties shallow mode includes, as a test compiled for these options.
    pub(crate) fn inclusion(&self) -> Inclusion {
        let forbid = if self.skip_deprecated { crate::flags::DEPRECATED } else { 0 };
        let (all, any) = match self.mask_predicate {
            MaskPredicate::All => (self.property_mask, 0),
            MaskPredicate::Any => (0, self.property_mask),
        };
        // Everything the masks derive from, and a bit that is never 0 (see `Inclusion::key`).
        let key = u64::from(self.property_mask)
            | u64::from(matches!(self.mask_predicate, MaskPredicate::Any)) << 32
            | u64::from(self.skip_deprecated) << 33
            | 1 << 34;
        if forbid & all != 0 {
            // A required flag is also forbidden: nothing passes (`flags & 0` is never 1).
            return Inclusion { checked: 0, all: 1, any, no_any: 1, key };
        }
        Inclusion { checked: forbid | all, all, any, no_any: u32::from(any == 0), key }
    }
}

/// The shallow-mode property filter of some [`Options`] (mask, predicate, DEPRECATED), reduced
/// to three masks so the per-property test is branch-light.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inclusion {
    /// The flags that decide with `all`: those that exclude a property (DEPRECATED when
    /// skipped) and those it must all have.
    checked: u32,
    /// Flags a property must all have ([`MaskPredicate::All`]).
    all: u32,
    /// Flags a property must have one of ([`MaskPredicate::Any`]; 0 = no requirement).
    any: u32,
    /// 1 when `any` is 0 (no requirement), else 0.
    no_any: u32,
    /// The options this inclusion comes from (mask, predicate, DEPRECATED skipping), packed in
    /// 35 bits with bit 34 set, so equal keys mean equal tests.
    key: u64,
}

impl Inclusion {
    /// See [`key`](Inclusion::key): never 0, at most 35 bits.
    #[inline(always)]
    pub(crate) fn key(self) -> u64 {
        self.key
    }

    /// Whether shallow mode includes a property with these flags.
    #[inline(always)]
    pub(crate) fn test(self, flags: u32) -> bool {
        flags & self.checked == self.all && (flags & self.any) | self.no_any != 0
    }
}

/// The object stream after framing: borrowed from the input, or inflated.
pub(crate) enum Body<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

fn take_u32(data: &[u8], at: usize) -> Result<u32> {
    data.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| Error::at(ErrorKind::Eof, at as u64 * 8))
}

/// Inflates a zlib stream that must produce exactly `size` bytes. `room` is what the cap leaves
/// for this layer; `cap` is the configured limit, for the error. Never holds more than
/// `size + 1` inflated bytes (the extra byte tells a stream longer than announced); the buffer
/// starts at what the compressed bytes can back (deflate expands at most ~1032:1, and at most
/// 256 KiB) and doubles.
pub(crate) fn inflate(zlib: &[u8], size: u32, room: usize, cap: usize) -> Result<Vec<u8>> {
    use flate2::{Decompress, FlushDecompress, Status};
    let size = size as usize;
    if size > room {
        return Err(Error::new(ErrorKind::DecompressionLimit { limit: cap }));
    }
    let want = size + 1;
    // Start small (a corrupt stream fails early) and double, never past `want`.
    let mut out = Vec::with_capacity(want.min(zlib.len().saturating_mul(1032).saturating_add(1)).min(256 << 10));
    let mut z = Decompress::new(true);
    let zerr = |e: flate2::DecompressError| Error::new(ErrorKind::Zlib(e.to_string()));
    loop {
        if out.len() >= out.capacity() {
            if out.len() >= want {
                // More than announced: stop here.
                break;
            }
            let grow = out.capacity().max(64 << 10).min(want - out.len());
            out.reserve_exact(grow);
        }
        let (read, wrote) = (z.total_in(), out.len());
        let input = zlib.get(read as usize..).unwrap_or_default();
        match z.decompress_vec(input, &mut out, FlushDecompress::None).map_err(zerr)? {
            Status::StreamEnd => break,
            _ if z.total_in() == read && out.len() == wrote && out.len() < out.capacity() => {
                // No progress with room to write: the input ended inside the stream.
                return Err(Error::new(ErrorKind::Zlib("truncated zlib stream".to_owned())));
            }
            _ => {}
        }
    }
    if out.len() != size {
        return Err(Error::new(ErrorKind::DecompressedSizeMismatch {
            expected: size as u64,
            actual: out.len() as u64,
        }));
    }
    if z.total_in() != zlib.len() as u64 {
        return Err(Error::new(ErrorKind::TrailingData { bits: (zlib.len() as u64 - z.total_in()) * 8 }));
    }
    Ok(out)
}

pub(crate) fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut enc =
        flate2::write::ZlibEncoder::new(Vec::with_capacity(data.len() / 2 + 16), flate2::Compression::new(level));
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

/// Strips the framing: returns the object stream and the effective flags. All zlib layers
/// together inflate to at most `max_decompressed_size` bytes, and the framing is never copied.
pub(crate) fn unframe<'a>(input: &'a [u8], opts: &Options) -> Result<(Body<'a>, u32)> {
    let mut input = input;
    if opts.bind_file {
        input = input.strip_prefix(&BIND_MAGIC).ok_or_else(|| Error::new(ErrorKind::BadMagic))?;
    }
    let cap = opts.max_decompressed_size;
    let outer = if opts.manual_compression {
        let size = take_u32(input, 0)?;
        Some(inflate(&input[4..], size, cap, cap)?)
    } else {
        None
    };
    let data: &[u8] = outer.as_deref().unwrap_or(input);
    let mut flags = opts.flags;
    let mut at = 0;
    if flags & STATEFUL_FLAGS != 0 {
        flags = take_u32(data, 0)?;
        at = 4;
    }
    if flags & WITH_COMPRESSION != 0 {
        let compressed = *data.get(at).ok_or_else(|| Error::at(ErrorKind::Eof, at as u64 * 8))?;
        at += 1;
        if compressed != 0 {
            let size = take_u32(data, at)?;
            let room = cap.saturating_sub(outer.as_ref().map_or(0, Vec::len));
            let body = inflate(&data[at + 4..], size, room, cap)?;
            return Ok((Body::Owned(body), flags));
        }
    }
    match outer {
        Some(mut owned) => {
            owned.drain(..at);
            Ok((Body::Owned(owned), flags))
        }
        None => Ok((Body::Borrowed(&input[at..]), flags)),
    }
}

/// Wraps an encoded object stream (written with `flags`) into its framing.
pub(crate) fn frame(object: Vec<u8>, flags: u32, opts: &Options) -> Vec<u8> {
    if !opts.bind_file && flags & (STATEFUL_FLAGS | WITH_COMPRESSION) == 0 && !opts.manual_compression {
        // Nothing to add: the object stream is the output (no copy).
        return object;
    }
    let mut out = Vec::with_capacity(object.len() + 13);
    if opts.bind_file {
        out.extend_from_slice(&BIND_MAGIC);
    }
    let start = out.len();
    if flags & STATEFUL_FLAGS != 0 {
        out.extend_from_slice(&flags.to_le_bytes());
    }
    if flags & WITH_COMPRESSION != 0 {
        let z = deflate(&object, opts.compression_level);
        if z.len() < object.len() {
            out.push(1);
            out.extend_from_slice(&(object.len() as u32).to_le_bytes());
            out.extend_from_slice(&z);
        } else {
            out.push(0);
            out.extend_from_slice(&object);
        }
    } else if out.is_empty() {
        out = object;
    } else {
        out.extend_from_slice(&object);
    }
    if opts.manual_compression {
        let inner = out.split_off(start);
        out.extend_from_slice(&(inner.len() as u32).to_le_bytes());
        out.extend_from_slice(&deflate(&inner, opts.compression_level));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::*;

    /// The folded masks of [`Inclusion`] must decide exactly like the three rules they replace:
    /// no forbidden flag, every `All` flag, one `Any` flag (when the mask is not 0).
    #[test]
    fn inclusion_masks_agree_with_the_rules() {
        let samples = [0, SAVE, TRANSMIT, PRIVILEGED_TRANSMIT, DEPRECATED, DEFAULT, DEFAULT | DEPRECATED, u32::MAX];
        for skip in [false, true] {
            for any in [false, true] {
                for mask in samples {
                    let mut opts = Options::new().property_mask(mask).skip_deprecated(skip);
                    if any {
                        opts = opts.mask_predicate(MaskPredicate::Any);
                    }
                    let incl = opts.inclusion();
                    for flags in samples {
                        let want = !(skip && flags & DEPRECATED != 0)
                            && if any { mask == 0 || flags & mask != 0 } else { flags & mask == mask };
                        assert_eq!(incl.test(flags), want, "mask {mask:#x} any {any} skip {skip} flags {flags:#x}");
                    }
                }
            }
        }
    }
}
