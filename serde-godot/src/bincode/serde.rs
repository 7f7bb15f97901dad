//! bincode 2's serde API (`bincode::serde::*`), with its parameter order and value-taking encode
//! functions.

use std::io;

use serde_core::{Deserialize, Serialize, de::DeserializeOwned};

use super::config::Config;
use super::error::{DecodeError, EncodeError};

/// Encodes `val` into a new vector.
pub fn encode_to_vec<E, C>(val: E, config: C) -> Result<Vec<u8>, EncodeError>
where
    E: Serialize,
    C: Config,
{
    Ok(super::encode_vec(&config.godot_options(), config.limit(), &val)?)
}

/// Encodes `val` into `dst` without allocating and returns the number of bytes written;
/// [`EncodeError::UnexpectedEnd`] if it does not fit.
pub fn encode_into_slice<E, C>(val: E, dst: &mut [u8], config: C) -> Result<usize, EncodeError>
where
    E: Serialize,
    C: Config,
{
    let limit = config.limit().unwrap_or(usize::MAX);
    match config.godot_options().to_slice(&val, dst) {
        Ok(n) if n > limit => Err(crate::Error::new(crate::ErrorKind::SizeLimit { size: n as u64, limit }).into()),
        Ok(n) => Ok(n),
        Err(e) if matches!(e.kind(), crate::ErrorKind::SizeLimit { .. }) => Err(EncodeError::UnexpectedEnd),
        Err(e) => Err(e.into()),
    }
}

/// Encodes `val` into `dst` (one `write_all`) and returns the number of bytes written.
pub fn encode_into_std_write<E: Serialize, C: Config, W: io::Write>(
    val: E,
    dst: &mut W,
    config: C,
) -> Result<usize, EncodeError> {
    let bytes = super::encode_vec(&config.godot_options(), config.limit(), &val)?;
    dst.write_all(&bytes)?;
    Ok(bytes.len())
}

/// Decodes one `D` from the start of `slice` and returns it with the number of bytes it took
/// (the bytes after it are left alone: the next message of a stream buffer).
/// [`DecodeError::UnexpectedEnd`] means the value is not all there yet.
pub fn decode_from_slice<D, C>(slice: &[u8], config: C) -> Result<(D, usize), DecodeError>
where
    D: DeserializeOwned,
    C: Config,
{
    borrow_decode_from_slice(slice, config)
}

/// [`decode_from_slice`] for types that borrow `&str` / `&[u8]` from `slice`.
pub fn borrow_decode_from_slice<'de, D, C>(slice: &'de [u8], config: C) -> Result<(D, usize), DecodeError>
where
    D: Deserialize<'de>,
    C: Config,
{
    Ok(super::decode_slice(&config.godot_options(), config.limit(), slice)?)
}

/// Reads exactly one `D` from `src` — its bytes and nothing after them, so the next message
/// stays in the reader — and decodes it. A connection closed before or inside the value is
/// [`DecodeError::Io`] with `UnexpectedEof`.
pub fn decode_from_std_read<D: DeserializeOwned, C: Config, R: io::Read>(
    src: &mut R,
    config: C,
) -> Result<D, DecodeError> {
    Ok(super::decode_stream(&config.godot_options(), config.limit(), src)?)
}
