//! Kind 3: a raw Brotli stream (RFC 7932), written by the engine at quality 9 with a 64 KiB
//! window (lgwin 16).
//!
//! Decoding uses the standard format only: the "large window" extension (windows up to 1 GiB),
//! which the `brotli` crate's decoder accepts by default and the engine's does not, is turned
//! off, so a tiny hostile stream cannot make the decoder allocate a huge ring buffer.

use std::io::{self, BufRead, Read, Write};

use brotli::enc::StandardAlloc;
use brotli::{BrotliDecompressStream, BrotliResult, BrotliState};

use crate::error::{Error, ErrorKind, Result};

/// The engine's quality.
pub const QUALITY: u32 = 9;

/// The engine's window (log2 bytes).
pub const LGWIN: u32 = 16;

/// Decodes a raw Brotli stream from a [`BufRead`] (a `&[u8]` is decoded in place; wrap other
/// readers in a [`std::io::BufReader`]).
///
/// After the stream's last block, any further input is [`ErrorKind::TrailingBytes`] (checked
/// when `read` reaches the end). The output is not limited here: the crate's decoders enforce
/// [`Options::max_decompressed`](crate::Options::max_decompressed) on top.
pub struct BrotliReader<R> {
    inner: R,
    state: BrotliState<StandardAlloc, StandardAlloc, StandardAlloc>,
    total_out: usize,
    consumed: u64,
    offset: u64,
    done: bool,
}

impl<R: BufRead> BrotliReader<R> {
    /// A decoder reading from `inner`.
    pub fn new(inner: R) -> Self {
        let mut state = BrotliState::new(StandardAlloc::default(), StandardAlloc::default(), StandardAlloc::default());
        state.large_window = false;
        BrotliReader { inner, state, total_out: 0, consumed: 0, offset: 0, done: false }
    }

    /// Counts error offsets from `base` (the stream's position in the file).
    pub fn with_base_offset(mut self, base: u64) -> Self {
        self.offset = base;
        self
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    fn position(&self) -> u64 {
        self.offset + self.consumed
    }

    fn check_end(&mut self) -> io::Result<()> {
        if !self.inner.fill_buf()?.is_empty() {
            return Err(Error::file(
                ErrorKind::TrailingBytes,
                self.position(),
                "bytes after the end of the Brotli stream",
            )
            .into_io());
        }
        Ok(())
    }

    /// Decodes into `out[..]`; returns the bytes written (0 only at the end of the stream).
    fn decode(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        loop {
            let input = self.inner.fill_buf()?;
            let input_len = input.len();
            let mut available_in = input_len;
            let mut input_offset = 0;
            let mut available_out = out.len();
            let mut output_offset = 0;
            let result = BrotliDecompressStream(
                &mut available_in,
                &mut input_offset,
                input,
                &mut available_out,
                &mut output_offset,
                out,
                &mut self.total_out,
                &mut self.state,
            );
            self.inner.consume(input_offset);
            self.consumed += input_offset as u64;
            match result {
                BrotliResult::ResultSuccess => {
                    self.done = true;
                    self.check_end()?;
                    return Ok(output_offset);
                }
                BrotliResult::NeedsMoreOutput => return Ok(output_offset),
                BrotliResult::NeedsMoreInput => {
                    if output_offset > 0 {
                        return Ok(output_offset);
                    }
                    if input_len == input_offset && self.inner.fill_buf()?.is_empty() {
                        return Err(Error::eof("the Brotli stream", self.position()).into_io());
                    }
                }
                BrotliResult::ResultFailure => {
                    let code = self.state.error_code;
                    return Err(Error::file(
                        ErrorKind::Brotli,
                        self.position(),
                        format!("invalid Brotli stream ({code:?})"),
                    )
                    .into_io());
                }
            }
        }
    }
}

impl<R: BufRead> Read for BrotliReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.decode(buf)
    }

    /// Decodes straight into the spare capacity of `out`, growing it geometrically.
    fn read_to_end(&mut self, out: &mut Vec<u8>) -> io::Result<usize> {
        let start = out.len();
        loop {
            if out.capacity() - out.len() < 1 << 16 {
                out.reserve((out.len() - start).max(1 << 16));
            }
            let at = out.len();
            out.resize(out.capacity(), 0);
            match self.decode(&mut out[at..]) {
                Ok(0) => {
                    out.truncate(at);
                    return Ok(at - start);
                }
                Ok(n) => out.truncate(at + n),
                Err(e) => {
                    out.truncate(at);
                    return Err(e);
                }
            }
        }
    }
}

/// Decodes a whole stream from a slice into `out`, refusing to grow `out` by more than `limit`.
pub(crate) fn decode_slice(input: &[u8], out: &mut Vec<u8>, limit: usize, offset: u64) -> Result<()> {
    let mut reader = BrotliReader::new(input).with_base_offset(offset);
    super::read_limited(&mut reader, out, limit, offset)
}

/// Encodes a raw Brotli stream with the engine's settings (quality 9, lgwin 16).
pub struct BrotliWriter<W: Write> {
    inner: brotli::CompressorWriter<Trap<W>>,
}

/// Remembers the first error of the inner writer: `brotli`'s `into_inner` finishes the stream
/// but drops write errors.
struct Trap<W> {
    inner: W,
    error: Option<io::Error>,
}

impl<W: Write> Write for Trap<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| {
            self.error.get_or_insert_with(|| io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> BrotliWriter<W> {
    /// A writer with the engine's settings.
    pub fn new(inner: W) -> Self {
        let trap = Trap { inner, error: None };
        BrotliWriter { inner: brotli::CompressorWriter::new(trap, 1 << 16, QUALITY, LGWIN) }
    }

    /// Finishes the stream and returns the inner writer.
    pub fn finish(self) -> io::Result<W> {
        let trap = self.inner.into_inner();
        match trap.error {
            Some(error) => Err(error),
            None => Ok(trap.inner),
        }
    }
}

impl<W: Write> Write for BrotliWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Encodes `data` as a whole stream appended to `out`.
pub(crate) fn encode_slice(data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let params =
        brotli::enc::BrotliEncoderParams { quality: QUALITY as i32, lgwin: LGWIN as i32, ..Default::default() };
    brotli::BrotliCompress(&mut &data[..], out, &params)?;
    Ok(())
}
