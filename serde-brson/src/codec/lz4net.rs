//! Kind 1: the lz4net `LZ4Stream` chunk stream (not the LZ4 frame format).
//!
//! A stream is a sequence of chunks up to the end of the input (no terminator, no checksum):
//!
//! ```text
//! varint flags          0x01 compressed, 0x02 high compression (informational),
//!                       flags >> 2 = "passes", must be 0 for a compressed chunk
//! varint originalLen    bytes the chunk decodes to
//! varint compressedLen  only if compressed; never more than originalLen
//! bytes                 an independent raw LZ4 block (compressed) or originalLen stored bytes
//! ```
//!
//! The engine writes 1 MiB chunks with lz4net's high-compression encoder and stores a chunk when
//! compressing does not make it smaller. [`Lz4NetWriter`] writes the same stream with lz4_flex's
//! block encoder (flags `0x01` or `0x00`).

use std::io::{self, BufRead, Read, Write};
use std::sync::{Mutex, PoisonError};

use lz4_flex::block::{CompressTable, compress_into_with_table, decompress_into, get_maximum_output_size};

use crate::container::{varint_step, write_varint};
use crate::error::{Error, ErrorKind, Result};

/// The engine's chunk size (lz4net's default block size), 1 MiB.
pub const CHUNK_SIZE: usize = 1 << 20;

/// The default cap on one chunk's decoded size, 16 MiB (the engine writes 1 MiB chunks).
pub const DEFAULT_MAX_CHUNK: usize = 16 << 20;

/// A chunk header.
#[derive(Debug, Clone, Copy)]
struct ChunkHeader {
    compressed: bool,
    original: usize,
    stored: usize,
}

/// Decodes an lz4net chunk stream from a [`BufRead`] (a `&[u8]` reads without copying; wrap other
/// readers in a [`std::io::BufReader`]).
///
/// Each chunk's decoded size is checked against `max_chunk` before anything is allocated for it,
/// and its compressed size against what an LZ4 block can possibly expand to; the total against
/// [`with_limit`](Lz4NetReader::with_limit) (unlimited by default; the crate's decoders use
/// [`Options::max_decompressed`](crate::Options::max_decompressed)).
///
/// Errors are [`io::Error`]s that carry a crate [`Error`] (convert with `Error::from`), with the
/// file offset relative to the start of the stream plus `base_offset`.
pub struct Lz4NetReader<R> {
    inner: R,
    max_chunk: usize,
    /// Decoded bytes of the current chunk not yet returned by `read`.
    chunk: Vec<u8>,
    chunk_pos: usize,
    /// Compressed bytes of a chunk that did not fit in the inner reader's buffer.
    scratch: Vec<u8>,
    /// Bytes consumed from `inner`, plus the base offset.
    offset: u64,
    /// Decoded bytes still allowed in total.
    remaining: u64,
}

impl<R: BufRead> Lz4NetReader<R> {
    /// A reader with the default per-chunk cap ([`DEFAULT_MAX_CHUNK`]).
    pub fn new(inner: R) -> Self {
        Lz4NetReader::with_max_chunk(inner, DEFAULT_MAX_CHUNK)
    }

    /// A reader that rejects chunks decoding to more than `max_chunk` bytes.
    pub fn with_max_chunk(inner: R, max_chunk: usize) -> Self {
        Lz4NetReader {
            inner,
            max_chunk,
            chunk: Vec::new(),
            chunk_pos: 0,
            scratch: Vec::new(),
            offset: 0,
            remaining: u64::MAX,
        }
    }

    /// Rejects the stream (before decoding the offending chunk) once it would decode to more than
    /// `limit` bytes in total.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.remaining = limit as u64;
        self
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

    /// Reads one byte, `None` at the end of the input.
    fn byte(&mut self) -> io::Result<Option<u8>> {
        let buf = self.inner.fill_buf()?;
        let Some(&b) = buf.first() else { return Ok(None) };
        self.inner.consume(1);
        self.offset += 1;
        Ok(Some(b))
    }

    fn varint(&mut self, first: Option<u8>, what: &str) -> Result<u64> {
        let start = self.offset;
        let mut value = 0u64;
        let mut index = 0;
        let mut next = first;
        loop {
            let byte = match next.take() {
                Some(b) => b,
                None => self.byte()?.ok_or_else(|| Error::eof(what, self.offset))?,
            };
            match varint_step(&mut value, index, byte) {
                Some(true) => index += 1,
                Some(false) => return Ok(value),
                None => {
                    return Err(Error::file(ErrorKind::InvalidVarint, start, format!("{what}: varint over 64 bits")));
                }
            }
        }
    }

    /// Parses the next chunk header; `None` at a clean end of the stream.
    fn header(&mut self) -> Result<Option<ChunkHeader>> {
        let start = self.offset;
        let Some(first) = self.byte()? else { return Ok(None) };
        let flags = self.varint(Some(first), "an lz4net chunk's flags")?;
        let original = self.varint(None, "an lz4net chunk's length")?;
        let compressed = flags & 1 != 0;
        let stored = if compressed { self.varint(None, "an lz4net chunk's compressed length")? } else { original };
        let bad = |msg: String| Error::file(ErrorKind::Lz4, start, msg);
        if compressed && flags >> 2 != 0 {
            return Err(bad(format!("lz4net chunk with {} passes (flags {flags:#x}) is not supported", flags >> 2)));
        }
        if stored > original {
            return Err(bad(format!("lz4net chunk stores {stored} bytes for {original} decoded bytes")));
        }
        if original > self.max_chunk as u64 {
            return Err(Error::limit("an lz4net chunk", self.max_chunk, start));
        }
        if original > self.remaining {
            return Err(Error::file(
                ErrorKind::LimitExceeded,
                start,
                "the decompressed data exceeds the configured limit".to_owned(),
            ));
        }
        // An LZ4 block expands at most ~255:1 (each 0xFF length byte adds 255 bytes).
        if compressed && original > stored.saturating_mul(255).saturating_add(16) {
            return Err(bad(format!("an LZ4 block of {stored} bytes cannot decode to {original} bytes")));
        }
        Ok(Some(ChunkHeader { compressed, original: original as usize, stored: stored as usize }))
    }

    /// Decodes the next chunk, appending it to `out`. `Ok(false)` at the end of the stream.
    fn next_chunk(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        let Some(header) = self.header()? else { return Ok(false) };
        let start = self.offset;
        let available = self.inner.fill_buf()?;
        let direct = available.len() >= header.stored;
        if !direct {
            self.scratch.clear();
            let got = (&mut self.inner).take(header.stored as u64).read_to_end(&mut self.scratch)?;
            if got < header.stored {
                return Err(Error::eof("an lz4net chunk", start + got as u64));
            }
        }
        let data = if direct { &self.inner.fill_buf()?[..header.stored] } else { &self.scratch[..] };
        let at = out.len();
        if header.compressed {
            out.resize(at + header.original, 0);
            match decompress_into(data, &mut out[at..]) {
                Ok(n) if n == header.original => {}
                Ok(n) => {
                    out.truncate(at);
                    return Err(Error::file(
                        ErrorKind::Lz4,
                        start,
                        format!("LZ4 block decoded to {n} bytes, the chunk declares {}", header.original),
                    ));
                }
                Err(e) => {
                    out.truncate(at);
                    return Err(Error::file(ErrorKind::Lz4, start, format!("invalid LZ4 block: {e}")));
                }
            }
        } else {
            out.extend_from_slice(data);
        }
        if direct {
            self.inner.consume(header.stored);
        }
        self.offset += header.stored as u64;
        self.remaining -= header.original as u64;
        Ok(true)
    }
}

impl<R: BufRead> Read for Lz4NetReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.chunk_pos == self.chunk.len() {
            let mut chunk = std::mem::take(&mut self.chunk);
            chunk.clear();
            self.chunk_pos = 0;
            let more = self.next_chunk(&mut chunk);
            self.chunk = chunk;
            if !more? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.chunk.len() - self.chunk_pos);
        buf[..n].copy_from_slice(&self.chunk[self.chunk_pos..self.chunk_pos + n]);
        self.chunk_pos += n;
        Ok(n)
    }

    /// Decodes the remaining chunks straight into `out` (no intermediate copy).
    fn read_to_end(&mut self, out: &mut Vec<u8>) -> io::Result<usize> {
        let start = out.len();
        out.extend_from_slice(&self.chunk[self.chunk_pos..]);
        self.chunk_pos = self.chunk.len();
        while self.next_chunk(out)? {}
        Ok(out.len() - start)
    }
}

/// Decodes a whole lz4net stream held in memory (the fast path of the crate's decoders).
///
/// A first pass reads the chunk headers (checking every size against `max_chunk`, `limit`, the
/// input left and LZ4's maximum ratio), so the output is allocated once, zeroed by the
/// allocator, at its exact size; a second pass decodes each block in place, the chunks of a large
/// stream spread over [`threads`] worker threads (the chunks are independent blocks). Errors come
/// in the same order as from [`Lz4NetReader`]: a bad block before a later malformed header.
pub fn decode_to_vec(input: &[u8], max_chunk: usize, limit: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    decode_slice(input, &mut out, max_chunk, limit, 0, 0)?;
    Ok(out)
}

/// Encodes `data` as an lz4net stream with `chunk_size`-byte chunks ([`CHUNK_SIZE`] is the
/// engine's), the chunks of a large input compressed on [`threads`] worker threads. The bytes
/// are the same whatever the number of threads: each chunk is an independent block.
pub fn encode_to_vec(data: &[u8], chunk_size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(get_maximum_output_size(data.len()) / 2);
    encode_slice(data, &mut out, chunk_size, 0);
    out
}

/// Below this many bytes (decoded), the whole-buffer paths stay on the calling thread: spawning
/// a thread costs tens of microseconds, about what LZ4 does with 256 KiB.
const PARALLEL_MIN_BYTES: usize = 2 << 20;

/// How many threads the whole-buffer paths ([`encode_to_vec`], [`decode_to_vec`] and the crate's
/// `to_vec`/`from_slice`/`decompress`) use for a stream of `bytes` decoded bytes in `chunks`
/// chunks, given `threads` (0: the machine's available parallelism, at most 8; 1: never spawn).
///
/// Streams under 2 MiB, or of one chunk, use the calling thread alone. Where threads cannot be
/// spawned (some targets cannot), the calling thread does the work.
pub fn threads(bytes: usize, chunks: usize, threads: usize) -> usize {
    if threads == 1 || chunks < 2 || bytes < PARALLEL_MIN_BYTES {
        return 1;
    }
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
        n => n,
    };
    threads.min(chunks)
}

/// Runs `work` on each of `items` (a few contiguous runs of chunks) on the calling thread and up
/// to `workers - 1` scoped threads, which take the next item as they finish one, and returns the
/// results in the items' order. Where a thread cannot be spawned the others (at least the calling
/// thread) do its share; a panic in `work` is resumed on the calling thread.
fn split_work<I: Send, R: Send>(items: Vec<I>, workers: usize, work: impl Fn(I) -> R + Sync) -> Vec<R> {
    let count = items.len();
    let queue = Mutex::new(items.into_iter().enumerate());
    let results = Mutex::new((0..count).map(|_| None).collect::<Vec<Option<R>>>());
    let drain = || {
        loop {
            // The lock is held only to take the next item and to store a result.
            let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some((i, item)) = next else { break };
            let result = work(item);
            results.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(result);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..workers.min(count) {
            // A target without threads: the calling thread's `drain` takes that share.
            let _ = std::thread::Builder::new().name("serde-brson-lz4".into()).spawn_scoped(s, drain);
        }
        drain();
    });
    let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    results.into_iter().map(|r| r.expect("every item was taken and finished")).collect()
}

/// [`decode_to_vec`] appending to `out`, with file offsets counted from `base_offset`, on up to
/// `threads` threads (see [`threads`]).
pub(crate) fn decode_slice(
    input: &[u8],
    out: &mut Vec<u8>,
    max_chunk: usize,
    limit: usize,
    base_offset: u64,
    threads: usize,
) -> Result<()> {
    // Pass 1: the chunk headers, up to the end or the first malformed one.
    let mut reader = Lz4NetReader::with_max_chunk(input, max_chunk).with_limit(limit).with_base_offset(base_offset);
    let mut chunks = Vec::new();
    let mut total = 0usize;
    let malformed = loop {
        let header = match reader.header() {
            Ok(Some(header)) => header,
            Ok(None) => break None,
            Err(e) => break Some(e),
        };
        let at = (reader.offset - base_offset) as usize;
        if input.len() - at < header.stored {
            break Some(Error::eof("an lz4net chunk", base_offset + input.len() as u64));
        }
        // A stored chunk of nothing is a no-op; not recording it keeps this list within the
        // input's size (a flood of 2-byte empty chunks would otherwise cost 16 bytes each).
        if header.compressed || header.original > 0 {
            chunks.push((header, at));
        }
        reader.inner.consume(header.stored);
        reader.offset += header.stored as u64;
        reader.remaining -= header.original as u64;
        total += header.original;
    };
    // Pass 2: decode in place, each run of chunks into its own part of the output.
    let start = out.len();
    if start == 0 {
        *out = vec![0; total];
    } else {
        out.resize(start + total, 0);
    }
    let workers = self::threads(total, chunks.len(), threads);
    let per = chunks.len().div_ceil(workers.max(1)).max(1);
    let mut target = &mut out[start..];
    let mut runs = Vec::with_capacity(workers);
    for run in chunks.chunks(per) {
        let len = run.iter().map(|(h, _)| h.original).sum();
        let (mine, rest) = std::mem::take(&mut target).split_at_mut(len);
        runs.push((run, mine));
        target = rest;
    }
    let results = split_work(runs, workers, |(run, target)| decode_run(input, run, target, base_offset));
    // The first failing run's first bad block is the first bad block of the stream.
    results.into_iter().collect::<Result<()>>()?;
    match malformed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Decodes a run of chunks (`(header, offset in input)`) into `target`, which is exactly their
/// decoded size; stops at the first bad block.
fn decode_run(input: &[u8], run: &[(ChunkHeader, usize)], target: &mut [u8], base_offset: u64) -> Result<()> {
    let mut pos = 0;
    for &(header, at) in run {
        let offset = base_offset + at as u64;
        let data = &input[at..at + header.stored];
        let target = &mut target[pos..pos + header.original];
        if header.compressed {
            match decompress_into(data, target) {
                Ok(n) if n == header.original => {}
                Ok(n) => {
                    return Err(Error::file(
                        ErrorKind::Lz4,
                        offset,
                        format!("LZ4 block decoded to {n} bytes, the chunk declares {}", header.original),
                    ));
                }
                Err(e) => return Err(Error::file(ErrorKind::Lz4, offset, format!("invalid LZ4 block: {e}"))),
            }
        } else {
            target.copy_from_slice(data);
        }
        pos += header.original;
    }
    Ok(())
}

/// Encodes an lz4net chunk stream: `chunk_size`-byte chunks (1 MiB by default, like the engine),
/// each an independent LZ4 block, stored when compressing does not make it smaller.
///
/// Call [`finish`](Lz4NetWriter::finish) to write the last chunk and get the inner writer back;
/// dropping the writer writes it too but ignores errors.
pub struct Lz4NetWriter<W: Write> {
    inner: Option<W>,
    chunk_size: usize,
    pending: Vec<u8>,
    compressed: Vec<u8>,
    table: CompressTable,
}

impl<W: Write> Lz4NetWriter<W> {
    /// A writer with the engine's 1 MiB chunks.
    pub fn new(inner: W) -> Self {
        Lz4NetWriter::with_chunk_size(inner, CHUNK_SIZE)
    }

    /// A writer with chunks of `chunk_size` bytes (at least 1).
    pub fn with_chunk_size(inner: W, chunk_size: usize) -> Self {
        let chunk_size = chunk_size.max(1);
        Lz4NetWriter {
            inner: Some(inner),
            chunk_size,
            pending: Vec::new(),
            compressed: Vec::new(),
            table: CompressTable::large(),
        }
    }

    /// Writes one chunk from `data` (at most `chunk_size` bytes).
    fn write_chunk(&mut self, data: &[u8]) -> io::Result<()> {
        write_chunk(self.inner.as_mut().expect("not finished"), data, &mut self.compressed, &mut self.table)
    }

    /// Writes the buffered tail as the last chunk and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_pending()?;
        Ok(self.inner.take().expect("finish is called once"))
    }

    fn flush_pending(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.write_chunk(&pending)?;
            self.pending = pending;
            self.pending.clear();
        }
        Ok(())
    }
}

/// Writes one chunk: compressed if that makes it smaller, else stored.
fn write_chunk<W: Write>(out: &mut W, data: &[u8], scratch: &mut Vec<u8>, table: &mut CompressTable) -> io::Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    scratch.resize(get_maximum_output_size(data.len()), 0);
    let n = compress_into_with_table(data, scratch, table).map_err(io::Error::other)?;
    let mut head = [0u8; 30];
    if n < data.len() {
        let mut len = write_varint(1, &mut head);
        len += write_varint(data.len() as u64, &mut head[len..]);
        len += write_varint(n as u64, &mut head[len..]);
        out.write_all(&head[..len])?;
        out.write_all(&scratch[..n])
    } else {
        let mut len = write_varint(0, &mut head);
        len += write_varint(data.len() as u64, &mut head[len..]);
        out.write_all(&head[..len])?;
        out.write_all(data)
    }
}

/// Encodes `data` as a whole lz4net stream appended to `out`, on up to `threads` threads (see
/// [`threads`]): contiguous runs of chunks, the first written straight into `out`, the others
/// into their own buffers appended in order. The bytes do not depend on the number of threads.
pub(crate) fn encode_slice(data: &[u8], out: &mut Vec<u8>, chunk_size: usize, threads: usize) {
    let chunk_size = chunk_size.max(1);
    let chunks = data.len().div_ceil(chunk_size);
    let workers = self::threads(data.len(), chunks, threads);
    if workers <= 1 {
        encode_run(data, out, chunk_size);
        return;
    }
    let per = chunks.div_ceil(workers) * chunk_size;
    // The first run goes straight into `out`; the others into buffers appended after it.
    let mut target = Some(&mut *out);
    let runs: Vec<_> = data.chunks(per).map(|run| (run, target.take())).collect();
    let parts = split_work(runs, workers, |(run, target)| match target {
        Some(out) => {
            encode_run(run, out, chunk_size);
            Vec::new()
        }
        None => {
            let mut part = Vec::with_capacity(get_maximum_output_size(run.len()) / 2);
            encode_run(run, &mut part, chunk_size);
            part
        }
    });
    for part in parts {
        out.extend_from_slice(&part);
    }
}

/// Encodes `data` as a whole lz4net stream into `out`, on up to `threads` threads (see
/// [`threads`]): a batch of one chunk per thread at a time, each compressed into its thread's
/// buffer, then the buffers written in order. Beyond `data`, at most `threads` × (a chunk and
/// LZ4's bound for it) is held; the bytes do not depend on the number of threads.
pub(crate) fn encode_to_writer<W: Write>(
    data: &[u8],
    out: &mut W,
    chunk_size: usize,
    threads: usize,
) -> io::Result<()> {
    let chunk_size = chunk_size.max(1);
    let workers = self::threads(data.len(), data.len().div_ceil(chunk_size), threads);
    if workers <= 1 {
        // Straight into `out`, as the streaming writer does.
        let (mut scratch, mut table) = (Vec::new(), CompressTable::large());
        for chunk in data.chunks(chunk_size) {
            write_chunk(out, chunk, &mut scratch, &mut table)?;
        }
        return Ok(());
    }
    // One slot per thread, reused from batch to batch: the chunk's bytes, the compressor's
    // output and its table.
    let mut slots: Vec<(Vec<u8>, Vec<u8>, CompressTable)> =
        (0..workers).map(|_| (Vec::new(), Vec::new(), CompressTable::large())).collect();
    for batch in data.chunks(chunk_size.saturating_mul(workers)) {
        let items: Vec<_> = batch.chunks(chunk_size).zip(slots.iter_mut()).collect();
        split_work(items, workers, |(chunk, (part, scratch, table))| {
            part.clear();
            write_chunk(part, chunk, scratch, table).expect("writing to a Vec cannot fail");
        });
        for (part, _, _) in &slots[..batch.len().div_ceil(chunk_size)] {
            out.write_all(part)?;
        }
    }
    Ok(())
}

/// Encodes `data` as `chunk_size`-byte chunks appended to `out`, on the calling thread.
fn encode_run(data: &[u8], out: &mut Vec<u8>, chunk_size: usize) {
    let mut scratch = Vec::new();
    let mut table = CompressTable::large();
    for chunk in data.chunks(chunk_size) {
        write_chunk(out, chunk, &mut scratch, &mut table).expect("writing to a Vec cannot fail");
    }
}

impl<W: Write> Write for Lz4NetWriter<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let total = buf.len();
        if !self.pending.is_empty() {
            let take = (self.chunk_size - self.pending.len()).min(buf.len());
            self.pending.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.pending.len() == self.chunk_size {
                self.flush_pending()?;
            }
        }
        while buf.len() >= self.chunk_size {
            let (chunk, rest) = buf.split_at(self.chunk_size);
            self.write_chunk(chunk)?;
            buf = rest;
        }
        self.pending.extend_from_slice(buf);
        Ok(total)
    }

    /// Flushes the inner writer. A partial chunk stays buffered (writing it now would split the
    /// stream into smaller chunks than the engine writes); [`finish`](Lz4NetWriter::finish) writes it.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.as_mut().expect("not finished").flush()
    }
}

impl<W: Write> Drop for Lz4NetWriter<W> {
    fn drop(&mut self) {
        if self.inner.is_some() {
            let _ = self.flush_pending();
        }
    }
}
