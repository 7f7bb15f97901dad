//! [`Options`]: limits, the legacy extension hint, the kind-0 opt-in and the writer's chunk size.
//! Only the settings: the methods that read and write with them live with the work, in `de` and
//! `ser`.

use std::path::Path;

use crate::codec;
use crate::container::Extension;

/// Everything configurable about reading and writing data trees.
///
/// ```
/// use serde_brson::{Extension, Options};
///
/// let options = Options::new()
///     .extension(Extension::SevenZBson) // a legacy headerless .7zbson file
///     .max_decompressed(64 << 20);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub(crate) max_decompressed: usize,
    pub(crate) max_chunk: usize,
    pub(crate) max_depth: usize,
    pub(crate) model_budget_ratio: usize,
    pub(crate) extension: Option<Extension>,
    pub(crate) allow_uncompressed: bool,
    pub(crate) lz4_chunk_size: usize,
    pub(crate) threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// The default cap on the decompressed payload: 512 MiB (worlds can be large).
    pub const DEFAULT_MAX_DECOMPRESSED: usize = 512 << 20;

    /// The default cap on one lz4net chunk: 16 MiB (the engine writes 1 MiB chunks).
    pub const DEFAULT_MAX_CHUNK: usize = codec::lz4net::DEFAULT_MAX_CHUNK;

    /// The default nesting limit for BSON documents and arrays: 512.
    ///
    /// A slot level costs two (the slot and its `Children` array) and component data a few more,
    /// so this is far above real trees; the engine itself overflows its stack when saving trees
    /// somewhere between 1,000 and 2,000 levels deep. The limit keeps serde's recursion within a
    /// thread's stack even in debug builds.
    pub const DEFAULT_MAX_DEPTH: usize = 512;

    /// The default model budget ratio: 32. What the typed model
    /// ([`DataTree`](crate::model::DataTree) and its documents),
    /// [`Payload::to_document`](crate::Payload::to_document) and
    /// [`json::from_str`](crate::json::from_str) build may take at most 32 × the payload (or JSON
    /// text) size + 2 MiB of memory, counted as it is built. Realistic trees need 7× (the typed
    /// model) to 11× (a `Document`, or from JSON); a flood of tiny values needs far more (a 16-byte
    /// child slot is a 1.3 KB [`Slot`](crate::model::Slot), a 2-byte `null` array element a
    /// 112-byte [`bson::Bson`]).
    pub const DEFAULT_MODEL_BUDGET_RATIO: usize = 32;

    /// The default options: the limits above, no extension hint, kind 0 refused, 1 MiB lz4net
    /// chunks, lz4net on the machine's available parallelism.
    pub const fn new() -> Self {
        Options {
            max_decompressed: Self::DEFAULT_MAX_DECOMPRESSED,
            max_chunk: Self::DEFAULT_MAX_CHUNK,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            model_budget_ratio: Self::DEFAULT_MODEL_BUDGET_RATIO,
            extension: None,
            allow_uncompressed: false,
            lz4_chunk_size: codec::lz4net::CHUNK_SIZE,
            threads: 0,
        }
    }

    /// Caps the decompressed payload (checked before and while inflating: LZMA's declared size
    /// before allocating, each lz4net chunk before decoding it, Brotli as it streams).
    pub const fn max_decompressed(mut self, bytes: usize) -> Self {
        self.max_decompressed = bytes;
        self
    }

    /// Caps one lz4net chunk's decoded size.
    pub const fn max_chunk(mut self, bytes: usize) -> Self {
        self.max_chunk = bytes;
        self
    }

    /// Caps how deep BSON documents and arrays may nest (the root document is level 1).
    pub const fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Caps the memory of what decoding builds: the typed model
    /// ([`from_slice`](Options::from_slice) into [`DataTree`](crate::model::DataTree) or anything
    /// holding model types, through this crate's deserializer) and
    /// [`Payload::to_document`](crate::Payload::to_document) may take at most `ratio` × the payload
    /// size + 2 MiB, counted in in-memory bytes (document buckets and tables, vector capacities,
    /// strings) before each allocation. Running out is
    /// [`ErrorKind::LimitExceeded`](crate::ErrorKind). Since the payload is at most
    /// [`max_decompressed`](Options::max_decompressed), the model of a compressed file is at most
    /// `ratio` × that cap + 2 MiB.
    pub const fn model_budget_ratio(mut self, ratio: usize) -> Self {
        self.model_budget_ratio = ratio;
        self
    }

    /// The file's extension, as the engine's `Load(file, extension)` uses it: a headerless
    /// (legacy) file is decoded with the codec the extension implies, and a header whose kind
    /// disagrees with the extension is an error.
    pub const fn extension(mut self, extension: Extension) -> Self {
        self.extension = Some(extension);
        self
    }

    /// Takes the extension hint from a path (no hint if the path has no data-tree extension).
    pub fn extension_of(mut self, path: impl AsRef<Path>) -> Self {
        self.extension = Extension::from_path(path);
        self
    }

    /// Accepts (and allows writing) compression kind 0, raw BSON behind a header. The engine
    /// neither writes nor loads it; off by default.
    pub const fn allow_uncompressed(mut self, allow: bool) -> Self {
        self.allow_uncompressed = allow;
        self
    }

    /// The writer's lz4net chunk size (default 1 MiB, the engine's).
    pub const fn lz4_chunk_size(mut self, bytes: usize) -> Self {
        self.lz4_chunk_size = if bytes == 0 { 1 } else { bytes };
        self
    }

    /// How many threads the lz4net codec may use for a whole file in memory (`to_vec`,
    /// `from_slice`, `decompress`, `compress`, `dump`): its chunks are independent LZ4 blocks, so
    /// a file of several chunks is compressed or decompressed a run of chunks per thread, with the
    /// same bytes and the same errors as on one thread. `to_writer` compresses one chunk per
    /// thread at a time and writes them in order (at most `threads` chunks and their compressed
    /// forms held beyond the BSON). 0 (the default) is the machine's available parallelism, at
    /// most 8; 1 never spawns a thread. Files under 2 MiB decoded, LZMA, Brotli, `from_reader` and
    /// the streaming [`Lz4NetWriter`](crate::codec::Lz4NetWriter) /
    /// [`Lz4NetReader`](crate::codec::Lz4NetReader) always use the calling thread.
    pub const fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
}
