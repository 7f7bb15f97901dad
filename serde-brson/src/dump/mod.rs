//! Annotated dumps of data-tree files, for snapshot tests and for looking at what is in a file.
//!
//! [`dump`] writes one line per meaningful span: the offset (hex), up to 8 bytes of hex, and what
//! they mean. First the file: the `FrDT` header (magic, version, compression kind) and the
//! compression wrapper (LZMA's 5+8+8 header; each lz4net chunk's flags and lengths; the Brotli
//! stream). Then, under a heading that says so, the decompressed BSON payload with offsets into
//! the payload: every document's length, each element's type, key and value, nested documents and
//! arrays indented, each terminator. Long spans wrap; very long ones show their first 24 bytes
//! and a count of the rest.
//!
//! The text is stable (a change to it is a change to the crate), so it suits
//! `insta::assert_snapshot!`:
//!
//! ```
//! use serde_brson::{Compression, Options, bson::doc};
//!
//! let mut bson = Vec::new();
//! doc! { "VersionNumber": "2025.1.1.1" }.to_writer(&mut bson).unwrap();
//! let file = Options::new().allow_uncompressed(true).compress(&bson, Compression::None)?;
//! let dump = serde_brson::dump::dump(&file, &Options::new().allow_uncompressed(true));
//! assert!(dump.error().is_none());
//! assert_eq!(dump.to_string(), "\
//! == file (offsets into the file)
//! 00000000  46 72 44 54              magic \"FrDT\"
//! 00000004  00 00 00 00              version 0 (i32 LE)
//! 00000008  00                       compression kind 0 (none), LEB128
//! == BSON payload, 35 bytes, stored uncompressed from file offset 9 (offsets into the payload)
//! 00000000  23 00 00 00              document, 35 bytes
//! 00000004  02 56 65 72 73 69 6f 6e    string \"VersionNumber\"
//! 0000000c  4e 75 6d 62 65 72 00
//! 00000013  0b 00 00 00                  length 11
//! 00000017  32 30 32 35 2e 31 2e 31      \"2025.1.1.1\"
//! 0000001f  2e 31 00
//! 00000022  00                       end of document
//! 00000023                           end
//! ");
//! # Ok::<(), serde_brson::Error>(())
//! ```
//!
//! A file that does not decode still gives a dump: every line up to the error, then a line naming
//! the error (also returned by [`Dump::error`]). The walk is linear in the file and its payload
//! (which [`Options::max_decompressed`] caps) and never panics, and the text is at most 16 KiB plus
//! 32 characters per byte of file and payload (a longer dump is cut with a line saying so).

mod bson;

use std::fmt::{self, Display};

use crate::codec::lzma::{HEADER_LEN, LzmaHeader};
use crate::container::{self, Compression};
use crate::error::{Error, Position};
use crate::{Options, codec};
use gamefmt_dump::Out;

/// An annotated dump: its text (`Display`) and the error it stopped at, if any.
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

    /// The error that stopped the walk (the text ends with a line naming it), or `None` when the
    /// whole file decoded.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The text if the whole file decoded, else the error.
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

/// The annotated dump of the data-tree file `bytes`, read with `opts` (its limits, extension hint
/// and `allow_uncompressed`, as [`Options::decompress`] reads it).
pub fn dump(bytes: &[u8], opts: &Options) -> Dump {
    let mut out = Out::new(bytes.len());
    let error = walk(&mut out, bytes, opts).err();
    if let Some(e) = &error {
        let offset = match e.position() {
            Some(Position::File(o) | Position::Payload(o)) => o as usize,
            None => bytes.len(),
        };
        let place = match e.position() {
            Some(Position::Payload(_)) => " (payload offset)",
            _ => "",
        };
        out.note(offset, 0, format_args!("error{place}: {e}"));
    }
    Dump { text: out.finish(), error }
}

fn compression_name(c: Compression) -> &'static str {
    match c {
        Compression::None => "none",
        Compression::Lz4 => "LZ4, lz4net chunks",
        Compression::Lzma => "LZMA",
        Compression::Brotli => "Brotli",
    }
}

fn walk(out: &mut Out, bytes: &[u8], opts: &Options) -> Result<(), Error> {
    out.heading("file (offsets into the file)");
    let header = container::sniff(bytes);
    if bytes.starts_with(&container::MAGIC) {
        out.span(0, &bytes[..4], 0, "magic \"FrDT\"");
        if let Some(version) = bytes.get(4..8) {
            let v = i32::from_le_bytes(<[u8; 4]>::try_from(version).unwrap_or_default());
            out.span(4, version, 0, format_args!("version {v} (i32 LE)"));
        }
    }
    let header = header?;
    if let Some(h) = header {
        let name = h.compression().map_or("unknown", compression_name);
        out.span(8, &bytes[8..h.len], 0, format_args!("compression kind {} ({name}), LEB128", h.kind));
    }
    let compression = container::resolve(header, opts.extension, opts.allow_uncompressed)?;
    let body_offset = header.map_or(0, |h| h.len);
    if header.is_none() {
        out.note(
            0,
            0,
            format_args!("no FrDT header: a legacy file, {} from the extension", compression_name(compression)),
        );
    }
    let body = &bytes[body_offset..];
    match compression {
        Compression::None => {}
        Compression::Lzma => lzma_wrapper(out, body, body_offset, opts),
        Compression::Lz4 => lz4_wrapper(out, body, body_offset),
        Compression::Brotli => out.span(body_offset, body, 0, format_args!("Brotli stream, {} bytes", body.len())),
    }
    let data =
        codec::decompress(compression, body, body_offset as u64, opts.max_decompressed, opts.max_chunk, opts.threads)?;
    out.grow(data.len(), 32);
    if compression == Compression::None {
        out.heading(format_args!(
            "BSON payload, {} bytes, stored uncompressed from file offset {body_offset} (offsets into the payload)",
            data.len()
        ));
    } else {
        out.heading(format_args!(
            "decompressed BSON payload, {} bytes (offsets into the decompressed payload)",
            data.len()
        ));
    }
    bson::payload(out, &data, opts.max_depth)?;
    // The walk checks the rules the decoder checks; the decoder's own validation has the last word.
    crate::payload::validate(&data, opts.max_depth)?;
    out.note(data.len(), 0, "end");
    Ok(())
}

fn lzma_wrapper(out: &mut Out, body: &[u8], at: usize, opts: &Options) {
    let Some(head) = body.first_chunk::<HEADER_LEN>() else { return };
    let props = head[0];
    let (lc, lp, pb) = (props % 9, props / 9 % 5, props / 45);
    let dict = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    out.span(
        at,
        &head[..5],
        0,
        format_args!("LZMA properties {props:#04x} (lc {lc}, lp {lp}, pb {pb}), dictionary {dict} bytes"),
    );
    let size = |b: &[u8]| i64::from_le_bytes(<[u8; 8]>::try_from(b).unwrap_or_default());
    out.span(at + 5, &head[5..13], 0, format_args!("uncompressed size {} (i64 LE)", size(&head[5..13])));
    out.span(at + 13, &head[13..21], 0, format_args!("compressed size {} (i64 LE)", size(&head[13..21])));
    if LzmaHeader::parse(head, opts.max_decompressed, at as u64).is_ok() {
        let stream = &body[HEADER_LEN..];
        out.span(at + HEADER_LEN, stream, 0, format_args!("LZMA stream, {} bytes", stream.len()));
    }
}

/// The lz4net chunk headers and blocks, up to the first malformed one (which the decoder reports).
fn lz4_wrapper(out: &mut Out, body: &[u8], base: usize) {
    let mut at = 0;
    let mut index = 0;
    while at < body.len() {
        let start = at;
        let mut varint = || {
            let (v, n) = container::read_varint_slice(&body[at..], 0).ok()?;
            at += n;
            Some(v)
        };
        let Some(flags) = varint() else { return };
        let Some(original) = varint() else { return };
        let compressed = flags & 1 != 0;
        let stored = if compressed {
            match varint() {
                Some(v) => v,
                None => return,
            }
        } else {
            original
        };
        let what = if compressed { format!(", {stored} bytes compressed") } else { " stored".to_owned() };
        out.span(
            base + start,
            &body[start..at],
            0,
            format_args!("lz4net chunk {index}: flags {flags:#x}, {original} bytes{what} (varints)"),
        );
        let Some(data) = usize::try_from(stored).ok().and_then(|n| body.get(at..at.checked_add(n)?)) else { return };
        let kind = if compressed { "LZ4 block" } else { "stored bytes" };
        out.span(base + at, data, 1, format_args!("{kind}, {} bytes", data.len()));
        at += data.len();
        index += 1;
    }
}
