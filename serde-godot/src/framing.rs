//! How Godot puts Variants on a stream or into packets.
//!
//! | Godot API | bytes | here |
//! |---|---|---|
//! | `var_to_bytes` / `bytes_to_var` | the variant | [`to_vec`](crate::to_vec) / [`from_slice`](crate::from_slice), or [`Framing::Datagram`] |
//! | `StreamPeer.put_var` / `get_var` (StreamPeerTCP, StreamPeerTLS, StreamPeerBuffer) | `u32` length in the peer's byte order, then the variant | [`Framing::StreamPeer`], [`Framing::StreamPeerBigEndian`] (`big_endian = true`) |
//! | `FileAccess.store_var` / `get_var` | `u32` length (the file's byte order), then the variant | same as StreamPeer |
//! | `PacketPeerStream.put_var` (packets over a StreamPeer) | `u32` little-endian length, then the variant | [`Framing::PacketPeerStream`] |
//! | `PacketPeer.put_var` on datagram peers (PacketPeerUDP, ENet, WebSocket, WebRTC) | one packet = the variant | [`Framing::Datagram`] |
//!
//! The variant itself is always little-endian; only the length prefix follows `big_endian`.
//! Every reader here enforces [`Options::max_size`] (default 8 MiB, Godot's packet buffer size)
//! before reading a frame's body, and never allocates for bytes that have not arrived.
//! Godot's high-level multiplayer RPCs use their own packet layout, not `put_var`.

use std::io::{self, Read, Write};

use serde_core::{Deserialize, Serialize, de::DeserializeOwned};

use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;

/// A Godot framing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Framing {
    /// `StreamPeer.put_var` / `FileAccess.store_var` with the default `big_endian = false`: a
    /// `u32` little-endian length prefix.
    #[default]
    StreamPeer,
    /// `StreamPeer.put_var` / `FileAccess.store_var` with `big_endian = true`: a `u32`
    /// big-endian length prefix (the variant stays little-endian).
    StreamPeerBigEndian,
    /// `PacketPeerStream`: a `u32` little-endian length prefix, whatever the stream's
    /// `big_endian` says (the same bytes as [`Framing::StreamPeer`]).
    PacketPeerStream,
    /// `PacketPeer.put_var` on a datagram peer: one packet is exactly one variant, no prefix.
    Datagram,
}

impl Framing {
    /// Bytes of length prefix before each variant.
    pub const fn prefix_len(self) -> usize {
        match self {
            Framing::Datagram => 0,
            _ => 4,
        }
    }

    fn encode_len(self, len: u32) -> [u8; 4] {
        match self {
            Framing::StreamPeerBigEndian => len.to_be_bytes(),
            _ => len.to_le_bytes(),
        }
    }

    fn decode_len(self, bytes: [u8; 4]) -> u32 {
        match self {
            Framing::StreamPeerBigEndian => u32::from_be_bytes(bytes),
            _ => u32::from_le_bytes(bytes),
        }
    }
}

fn check_size(size: usize, opts: &Options) -> Result<()> {
    if size > opts.max_size {
        return Err(Error::new(ErrorKind::SizeLimit { size: size as u64, limit: opts.max_size }));
    }
    Ok(())
}

/// Appends one frame holding `value` to `out`. Errors if the variant is larger than
/// [`Options::max_size`] (Godot's `put_var` fails the same way above its buffer size).
pub fn encode_frame<T: Serialize + ?Sized>(
    value: &T,
    opts: &Options,
    framing: Framing,
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0; 4][..framing.prefix_len()]);
    let body = out.len();
    if let Err(e) = opts.append(value, out) {
        out.truncate(start);
        return Err(e);
    }
    let size = out.len() - body;
    if let Err(e) = check_size(size, opts) {
        out.truncate(start);
        return Err(e);
    }
    if framing.prefix_len() == 4 {
        out[start..body].copy_from_slice(&framing.encode_len(size as u32));
    }
    Ok(())
}

/// One frame holding `value`.
///
/// ```
/// use serde_godot::framing::{self, Framing};
/// use serde_godot::{Options, Variant};
///
/// // What `StreamPeer.put_var({"a": 1})` sends (bytes observed from Godot 3.2.3, Godot 3 mode):
/// let value = Variant::from([("a", 1)]);
/// let opts = Options::new().version(serde_godot::Version::Godot3);
/// let frame = framing::to_frame(&value, &opts, Framing::StreamPeer)?;
/// assert_eq!(frame[..4], [0x1c, 0, 0, 0]);
/// let big = framing::to_frame(&value, &opts, Framing::StreamPeerBigEndian)?;
/// assert_eq!(big[..4], [0, 0, 0, 0x1c]);
/// # Ok::<(), serde_godot::Error>(())
/// ```
pub fn to_frame<T: Serialize + ?Sized>(value: &T, opts: &Options, framing: Framing) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(128);
    encode_frame(value, opts, framing, &mut out)?;
    Ok(out)
}

/// Decodes the first frame in `buf`: `Ok(None)` if `buf` does not hold a whole frame yet,
/// otherwise the value and the number of bytes the frame took. A prefix announcing more than
/// [`Options::max_size`] is an error straight away. The variant must fill its frame exactly.
///
/// For [`Framing::Datagram`] the whole buffer is one frame.
pub fn decode_frame<'de, T: Deserialize<'de>>(
    buf: &'de [u8],
    opts: &Options,
    framing: Framing,
) -> Result<Option<(T, usize)>> {
    match frame_len(buf, opts, framing)? {
        None => Ok(None),
        Some(total) => {
            let body = &buf[framing.prefix_len()..total];
            let value = opts.from_slice(body).map_err(|e| shift(e, framing.prefix_len()))?;
            Ok(Some((value, total)))
        }
    }
}

/// The total length (prefix included) of the frame at the start of `buf`, once it is complete.
fn frame_len(buf: &[u8], opts: &Options, framing: Framing) -> Result<Option<usize>> {
    if framing == Framing::Datagram {
        check_size(buf.len(), opts)?;
        return Ok(if buf.is_empty() { None } else { Some(buf.len()) });
    }
    let Some(prefix) = buf.first_chunk::<4>() else { return Ok(None) };
    let len = framing.decode_len(*prefix) as usize;
    check_size(len, opts)?;
    Ok(if buf.len() - 4 >= len { Some(4 + len) } else { None })
}

fn shift(e: Error, by: usize) -> Error {
    e.shift_offset(by)
}

/// Writes one frame holding `value` with a single `write_all` (like `put_var`).
pub fn write_frame<W: Write, T: Serialize + ?Sized>(
    mut writer: W,
    value: &T,
    opts: &Options,
    framing: Framing,
) -> Result<()> {
    let frame = to_frame(value, opts, framing)?;
    writer.write_all(&frame)?;
    Ok(())
}

/// Reads one frame from a stream and decodes it (like `get_var`). The body is read as it
/// arrives, so a prefix announcing a large frame costs nothing until the bytes come; a prefix
/// above [`Options::max_size`] is refused before reading the body.
///
/// [`Framing::Datagram`] has no length on a stream: it reads to the end of `reader`.
pub fn read_frame<R: Read, T: DeserializeOwned>(mut reader: R, opts: &Options, framing: Framing) -> Result<T> {
    if framing == Framing::Datagram {
        return opts.from_reader(reader);
    }
    let mut prefix = [0u8; 4];
    reader.read_exact(&mut prefix)?;
    let len = framing.decode_len(prefix) as usize;
    check_size(len, opts)?;
    let mut body = Vec::new();
    reader.take(len as u64).read_to_end(&mut body)?;
    if body.len() != len {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the stream ended inside a frame").into());
    }
    opts.from_slice(&body).map_err(|e| shift(e, 4))
}

#[cfg(feature = "tokio")]
pub use self::codec::GodotCodec;

#[cfg(feature = "tokio")]
mod codec {
    use std::marker::PhantomData;

    use bytes::{BufMut, BytesMut};
    use serde_core::Serialize;
    use serde_core::de::DeserializeOwned;
    use tokio_util::codec::{Decoder, Encoder};

    use super::{Framing, check_size, frame_len};
    use crate::{Error, Options};

    /// A [`tokio_util::codec`] `Decoder` / `Encoder` for Godot's framings: use it with
    /// `Framed<TcpStream, GodotCodec<Request>>` to read `Request`s that a GDScript
    /// `StreamPeerTCP.put_var` sent and to send anything `Serialize` back for `get_var`.
    ///
    /// Frames larger than [`Options::max_size`](crate::Options::max_size) are refused in both
    /// directions (decoding: as soon as the length prefix arrives). `D` is the type decoded from
    /// each frame (use [`Variant`](crate::Variant) for anything).
    pub struct GodotCodec<D> {
        opts: Options,
        framing: Framing,
        _decodes: PhantomData<fn() -> D>,
    }

    impl<D> GodotCodec<D> {
        /// A codec for `framing` with `opts`.
        pub fn new(opts: Options, framing: Framing) -> Self {
            GodotCodec { opts, framing, _decodes: PhantomData }
        }

        /// The options in use.
        pub fn options(&self) -> &Options {
            &self.opts
        }
    }

    impl<D> Default for GodotCodec<D> {
        /// Godot 4, `StreamPeer` framing.
        fn default() -> Self {
            Self::new(Options::new(), Framing::StreamPeer)
        }
    }

    impl<D> Clone for GodotCodec<D> {
        fn clone(&self) -> Self {
            Self::new(self.opts, self.framing)
        }
    }

    impl<D> std::fmt::Debug for GodotCodec<D> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("GodotCodec").field("opts", &self.opts).field("framing", &self.framing).finish()
        }
    }

    impl<D: DeserializeOwned> Decoder for GodotCodec<D> {
        type Item = D;
        type Error = Error;

        fn decode(&mut self, src: &mut BytesMut) -> Result<Option<D>, Error> {
            let Some(total) = frame_len(src, &self.opts, self.framing)? else { return Ok(None) };
            let frame = src.split_to(total);
            let prefix = self.framing.prefix_len();
            let value = self.opts.from_slice(&frame[prefix..]).map_err(|e| e.shift_offset(prefix))?;
            Ok(Some(value))
        }
    }

    impl<D, T: Serialize> Encoder<T> for GodotCodec<D> {
        type Error = Error;

        fn encode(&mut self, item: T, dst: &mut BytesMut) -> Result<(), Error> {
            let body = self.opts.to_vec(&item)?;
            check_size(body.len(), &self.opts)?;
            dst.reserve(body.len() + 4);
            if self.framing.prefix_len() == 4 {
                dst.put_slice(&self.framing.encode_len(body.len() as u32));
            }
            dst.put_slice(&body);
            Ok(())
        }
    }
}
