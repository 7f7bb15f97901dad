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

/// Encodes `val` into `dst` and returns the number of bytes written;
/// [`EncodeError::UnexpectedEnd`] if it does not fit.
pub fn encode_into_slice<E, C>(val: E, dst: &mut [u8], config: C) -> Result<usize, EncodeError>
where
    E: Serialize,
    C: Config,
{
    let bytes = super::encode_vec(&config.godot_options(), config.limit(), &val)?;
    let out = dst.get_mut(..bytes.len()).ok_or(EncodeError::UnexpectedEnd)?;
    out.copy_from_slice(&bytes);
    Ok(bytes.len())
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
