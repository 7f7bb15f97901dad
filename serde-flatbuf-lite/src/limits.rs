//! The format's hard limits, shared by the writer, the reader and the layout code.

/// Largest buffer FlatBuffers can address (offsets are 32-bit, soffsets signed).
pub(crate) const MAX_BUFFER: usize = (1 << 31) - 1;

/// Highest slot a vtable can hold ((65535 − 4) / 2 − 1).
pub(crate) const MAX_SLOT: u16 = 32_764;
