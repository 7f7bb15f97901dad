//! bincode 2's configuration: [`standard()`], [`legacy()`], [`Configuration`] and its builder
//! methods, with the same type parameters so that `const CONFIG: Configuration = standard();` and
//! `Configuration<LittleEndian, Fixint, Limit<1024>>` keep compiling.
//!
//! Endianness and integer encoding do not apply to Godot's format (always little-endian 32/64-bit
//! words, as the engine writes them): those methods only change the type. The limit applies, and
//! [`Configuration::with_godot`] picks serde-godot's [`Options`](crate::Options) (Godot version,
//! struct form...).

use std::marker::PhantomData;

/// The type parameters, carried without owning anything.
type Markers<E, I, L> = fn() -> (E, I, L);

/// A bincode 2 configuration, carrying serde-godot's [`Options`](crate::Options) and an optional
/// byte limit (the type parameter `L`).
pub struct Configuration<E = LittleEndian, I = Varint, L = NoLimit> {
    pub(crate) opts: crate::Options,
    _marker: PhantomData<Markers<E, I, L>>,
}

impl<E, I, L> Clone for Configuration<E, I, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, I, L> Copy for Configuration<E, I, L> {}

impl<E, I, L> std::fmt::Debug for Configuration<E, I, L>
where
    L: InternalLimitConfig,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configuration").field("opts", &self.opts).field("limit", &L::LIMIT).finish()
    }
}

impl Default for Configuration {
    fn default() -> Self {
        standard()
    }
}

/// The standard configuration: serde-godot's defaults (Godot 4, structs as Dictionaries), no
/// limit beyond serde-godot's own (8 MiB on streams).
pub const fn standard() -> Configuration {
    Configuration { opts: crate::Options::new(), _marker: PhantomData }
}

/// bincode 1's layout in bincode 2 — here the same Godot bytes as [`standard()`].
pub const fn legacy() -> Configuration<LittleEndian, Fixint, NoLimit> {
    Configuration { opts: crate::Options::new(), _marker: PhantomData }
}

impl<E, I, L> Configuration<E, I, L> {
    const fn retype<E2, I2, L2>(self) -> Configuration<E2, I2, L2> {
        Configuration { opts: self.opts, _marker: PhantomData }
    }

    /// Speaks Godot with `opts` (version, struct form, unit variants, limits...).
    pub const fn with_godot(mut self, opts: crate::Options) -> Self {
        self.opts = opts;
        self
    }

    /// Has no effect on the bytes (Godot is little-endian).
    pub const fn with_big_endian(self) -> Configuration<BigEndian, I, L> {
        self.retype()
    }

    /// Has no effect on the bytes (Godot is little-endian).
    pub const fn with_little_endian(self) -> Configuration<LittleEndian, I, L> {
        self.retype()
    }

    /// Has no effect on the bytes (Godot ints are 32-bit, or 64-bit when they need it).
    pub const fn with_variable_int_encoding(self) -> Configuration<E, Varint, L> {
        self.retype()
    }

    /// Has no effect on the bytes (Godot ints are 32-bit, or 64-bit when they need it).
    pub const fn with_fixed_int_encoding(self) -> Configuration<E, Fixint, L> {
        self.retype()
    }

    /// Refuses values larger than `N` bytes when decoding (from a slice or a reader) and
    /// encoding.
    pub const fn with_limit<const N: usize>(self) -> Configuration<E, I, Limit<N>> {
        self.retype()
    }

    /// No limit of its own (serde-godot's 8 MiB still applies on streams, see
    /// [`Options::max_size`](crate::Options::max_size)).
    pub const fn with_no_limit(self) -> Configuration<E, I, NoLimit> {
        self.retype()
    }
}

/// What every configuration provides: its serde-godot options and its limit.
pub trait Config: InternalLimitConfig + Copy + Clone {
    /// The serde-godot options this configuration speaks.
    fn godot_options(&self) -> crate::Options;

    /// The byte limit, or `None` without one.
    fn limit(&self) -> Option<usize> {
        Self::LIMIT
    }
}

impl<E, I, L: InternalLimitConfig> InternalLimitConfig for Configuration<E, I, L> {
    const LIMIT: Option<usize> = L::LIMIT;
}

impl<E, I, L: InternalLimitConfig> Config for Configuration<E, I, L> {
    fn godot_options(&self) -> crate::Options {
        self.opts
    }
}

/// The limit carried by a configuration's type.
pub trait InternalLimitConfig {
    /// The limit in bytes, or `None`.
    const LIMIT: Option<usize>;
}

/// Big-endian marker (no effect on Godot bytes).
#[derive(Clone, Copy, Debug)]
pub struct BigEndian {}

/// Little-endian marker.
#[derive(Clone, Copy, Debug)]
pub struct LittleEndian {}

/// Fixed-width integer marker (no effect on Godot bytes).
#[derive(Clone, Copy, Debug)]
pub struct Fixint {}

/// Variable-width integer marker (no effect on Godot bytes).
#[derive(Clone, Copy, Debug)]
pub struct Varint {}

/// No limit.
#[derive(Clone, Copy, Debug)]
pub struct NoLimit {}

/// A limit of `N` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Limit<const N: usize> {}

impl InternalLimitConfig for NoLimit {
    const LIMIT: Option<usize> = None;
}

impl<const N: usize> InternalLimitConfig for Limit<N> {
    const LIMIT: Option<usize> = Some(N);
}
