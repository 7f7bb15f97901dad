//! Annotated dumps of Variant bytes, for snapshot tests and for looking at what is on the wire.
//!
//! [`dump`] walks one Variant, [`dump_frames`] a stream of length-prefixed Variants
//! (`StreamPeer.put_var`, `PacketPeerStream`), and writes one line per meaningful span: the offset
//! (hex), up to 8 bytes of hex, and what they mean — each Variant's type tag and header flags, every
//! length and count, string contents, values, container element types, Dictionary keys and values
//! and Object properties, nested structure indented. Long spans wrap; very long ones show their
//! first 24 bytes and a count of the rest. After a Variant that decodes, its text form in the
//! options' version follows ([`Options::to_text`]: `var_to_str` in Godot 4, `var2str` in Godot 3).
//!
//! The text is stable (a change to it is a change to the crate), so it suits
//! `insta::assert_snapshot!`:
//!
//! ```
//! let bytes = serde_godot::to_vec(&("hp", 7))?;
//! let dump = serde_godot::dump::dump(&bytes, &serde_godot::Options::new());
//! assert!(dump.error().is_none());
//! assert_eq!(dump.to_string(), "\
//! 00000000  1c 00 00 00              Array (type 28)
//! 00000004  02 00 00 00                count 2
//! 00000008  04 00 00 00                [0] String (type 4)
//! 0000000c  02 00 00 00                  length 2
//! 00000010  68 70 00 00                  \"hp\" (+2 padding)
//! 00000014  02 00 00 00                [1] int (type 2)
//! 00000018  07 00 00 00                  7
//!                                    text: [\"hp\", 7]
//! 0000001c                           end
//! ");
//! # Ok::<(), serde_godot::Error>(())
//! ```
//!
//! Bytes that do not decode still give a dump: every line up to the error, then a line naming the
//! error (also returned by [`Dump::error`]). The walk is linear in the input and never panics, and
//! the text is at most 16 KiB plus 32 characters per input byte (a longer dump is cut with a line
//! saying so).

mod walk;

use std::fmt::{self, Display};

use crate::framing::Framing;
use crate::{Error, ErrorKind, Options, Variant};
use gamefmt_dump::Out;

/// An annotated dump: its text (`Display`) and the decoding error it stopped at, if any.
#[derive(Debug)]
pub struct Dump {
    text: String,
    error: Option<Error>,
}

impl Dump {
    /// The dump's text (the same as `to_string()`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The error that stopped the walk (the text ends with a line naming it), or `None` when all
    /// the bytes decoded.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The text if all the bytes decoded, else the error.
    pub fn into_result(self) -> Result<String, Error> {
        match self.error {
            None => Ok(self.text),
            Some(e) => Err(e),
        }
    }
}

impl Display for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The annotated dump of one Variant that fills `bytes` (as [`Variant::from_bytes`] reads it,
/// with `opts`' version, limits and `full_objects`).
pub fn dump(bytes: &[u8], opts: &Options) -> Dump {
    let mut out = Out::new(bytes.len());
    let error = one(&mut out, bytes, 0, 0, opts).err();
    finish(out, bytes.len(), error)
}

/// The annotated dump of a stream of Variants framed with `framing` (each frame's length prefix,
/// then its Variant), as [`framing::read_frame`](crate::framing::read_frame) reads them one
/// after another. [`Framing::Datagram`] has no prefix: the bytes are one Variant, as in [`dump`].
pub fn dump_frames(bytes: &[u8], opts: &Options, framing: Framing) -> Dump {
    if framing.prefix_len() == 0 {
        return dump(bytes, opts);
    }
    let mut out = Out::new(bytes.len());
    let mut at = 0;
    let mut error = None;
    let mut index = 0;
    while at < bytes.len() {
        let Some(prefix) = bytes.get(at..at + 4) else {
            out.span(at, &bytes[at..], 0, format_args!("frame {index}: cut-off length prefix"));
            error = Some(Error::at(ErrorKind::Eof, at));
            break;
        };
        let word = <[u8; 4]>::try_from(prefix).unwrap_or_default();
        let len =
            if framing == Framing::StreamPeerBigEndian { u32::from_be_bytes(word) } else { u32::from_le_bytes(word) };
        let endian = if framing == Framing::StreamPeerBigEndian { "u32 BE" } else { "u32 LE" };
        out.span(at, prefix, 0, format_args!("frame {index}: length {len} ({endian})"));
        let start = at + 4;
        let end = match start.checked_add(len as usize) {
            Some(end) if end <= bytes.len() && len as usize <= opts.max_size => end,
            _ => {
                error = Some(if len as usize > opts.max_size {
                    Error::at(ErrorKind::SizeLimit { size: u64::from(len), limit: opts.max_size }, at)
                } else {
                    Error::at(ErrorKind::Eof, at)
                });
                break;
            }
        };
        if let Err(e) = one(&mut out, &bytes[start..end], start, 1, opts) {
            error = Some(e);
            break;
        }
        at = end;
        index += 1;
    }
    finish(out, bytes.len(), error)
}

/// Dumps the Variant filling `bytes` (found at `base` in the whole input) at `depth`, then its
/// text form.
fn one(out: &mut Out, bytes: &[u8], base: usize, depth: usize, opts: &Options) -> Result<(), Error> {
    // Errors get the decoder's hint (e.g. that the bytes are the other Godot version's).
    walk::variant(out, bytes, base, depth, opts).map_err(|e| crate::decode::version_hint(e, bytes, opts))?;
    // The walk checked everything `from_bytes` checks; the value is decoded again for its text.
    if out.remaining() == 0 {
        return Ok(());
    }
    if let Ok(value) = Variant::from_bytes(bytes, opts) {
        // The text form of the options' version (`var_to_str` / `var2str`), typed containers as
        // the bytes have them.
        let text = match opts.typed_containers(true).to_text(&value) {
            Ok(text) => gamefmt_dump::capped(&text, out.remaining()),
            Err(e) => format!("(none: {e})"),
        };
        let mut lines = text.lines();
        out.plain(depth, format_args!("text: {}", lines.next().unwrap_or("")));
        for line in lines {
            out.plain(depth, format_args!("      {line}"));
        }
    }
    Ok(())
}

fn finish(mut out: Out, len: usize, error: Option<Error>) -> Dump {
    match &error {
        Some(e) => out.note(e.offset().unwrap_or(len), 0, format_args!("error: {e}")),
        None => out.note(len, 0, "end"),
    }
    Dump { text: out.finish(), error }
}
