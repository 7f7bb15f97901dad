//! [`Options`]: everything configurable. The methods that encode and decode with them (`to_vec`,
//! `from_slice`, …) live with the serializer (`ser.rs`) and at the crate root (`lib.rs`).

use std::sync::Arc;

/// Encoding and decoding options. The defaults write and read plain buffers (no file identifier, no size
/// prefix) with the official verifiers' limits.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_flatbuf_lite::Options;
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Vec3 { x: f32, y: f32, z: f32 }
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Spawn { at: Vec3, name: String }
///
/// let opts = Options::new().file_identifier(*b"SPWN").size_prefixed(true).inline_struct("Vec3");
/// let spawn = Spawn { at: Vec3 { x: 1.0, y: 2.0, z: 3.0 }, name: "orc".into() };
/// let bytes = opts.to_vec(&spawn)?;
/// assert_eq!(&bytes[8..12], b"SPWN");
/// assert_eq!(opts.from_slice::<Spawn>(&bytes)?, spawn);
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    pub(crate) file_identifier: Option<[u8; 4]>,
    pub(crate) size_prefixed: bool,
    pub(crate) inline_structs: Arc<[String]>,
    pub(crate) omit_zero_scalars: bool,
    pub(crate) max_depth: u32,
    pub(crate) max_tables: u32,
    pub(crate) max_apparent_size: Option<usize>,
    pub(crate) require_nul: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            file_identifier: None,
            size_prefixed: false,
            inline_structs: no_names(),
            omit_zero_scalars: false,
            max_depth: 64,
            max_tables: 1_000_000,
            max_apparent_size: None,
            require_nul: true,
        }
    }
}

/// The empty list of inline struct names, shared: default options (made per call by the crate-level
/// functions) allocate nothing.
fn no_names() -> Arc<[String]> {
    static EMPTY: std::sync::OnceLock<Arc<[String]>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| Arc::from([])).clone()
}

impl Options {
    /// The defaults: no identifier, no size prefix, depth ≤ 64, ≤ 1,000,000 tables, automatic apparent-size limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes this 4-byte file identifier after the root offset, and requires it when reading
    /// (`flatc` wants one unless given `--raw-binary`).
    pub fn file_identifier(mut self, ident: [u8; 4]) -> Self {
        self.file_identifier = Some(ident);
        self
    }

    /// Writes (and expects) a `u32` size prefix holding the length of the rest of the buffer, as the official
    /// builders' `finish_size_prefixed` does: the framing for streams of buffers.
    pub fn size_prefixed(mut self, yes: bool) -> Self {
        self.size_prefixed = yes;
        self
    }

    /// Lays out the named struct type (the name serde sees: the Rust name or its `#[serde(rename)]`) as a
    /// fixed-size FlatBuffers **struct**, inline in its table or vector, instead of a table. Tuple structs,
    /// tuples and arrays are always structs; this is the way for named structs such as `Vec3 { x, y, z }`,
    /// including types from other crates. All its fields must be scalars, unit enums or other structs.
    pub fn inline_struct(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !self.inline_structs.contains(&name) {
            let mut names = self.inline_structs.to_vec();
            names.push(name);
            self.inline_structs = names.into();
        }
        self
    }

    /// Leaves out scalar table fields whose value is zero (or `false`), like a schema whose defaults are all
    /// zero. Smaller buffers, but the reading side then needs `#[serde(default)]` on those fields. Off by
    /// default: lite writes every present value, like `flatc --force-defaults`. `Option` fields are never
    /// omitted when `Some` (they map to FlatBuffers optional scalars).
    pub fn omit_zero_scalars(mut self, yes: bool) -> Self {
        self.omit_zero_scalars = yes;
        self
    }

    /// Maximum nesting of tables (default 64, the official verifiers' default). Enforced when writing too, so
    /// lite never writes a buffer the official verifier would reject for depth.
    pub fn max_depth(mut self, depth: u32) -> Self {
        self.max_depth = depth;
        self
    }

    /// Maximum number of tables in one buffer, shared tables counted each time they are reached (default
    /// 1,000,000, the official verifiers' default).
    pub fn max_tables(mut self, tables: u32) -> Self {
        self.max_tables = tables;
        self
    }

    /// Maximum apparent size: the bytes of every object reached while decoding (tables' soffsets and vtables,
    /// strings, vectors), shared objects counted each time they are reached, like the official verifier's
    /// measure (which also counts each field read). FlatBuffers allows sharing, so a small buffer can describe a huge value,
    /// and decoding into owned Rust values materializes every reference. By default the limit is
    /// `16 × buffer length + 1 MiB`, at most 2 GiB — unshared data never comes near it; `max_apparent_size(1
    /// << 31)` gives the official verifier's limit.
    pub fn max_apparent_size(mut self, bytes: usize) -> Self {
        self.max_apparent_size = Some(bytes);
        self
    }

    /// Accepts strings whose terminating NUL byte is missing (the official Rust verifier's
    /// `ignore_missing_null_terminator`). Off by default.
    pub fn ignore_missing_nul_terminator(mut self, yes: bool) -> Self {
        self.require_nul = !yes;
        self
    }

    pub(crate) fn is_inline_struct(&self, name: &str) -> bool {
        self.inline_structs.iter().any(|n| n == name)
    }

    pub(crate) fn apparent_limit(&self, buffer_len: usize) -> usize {
        self.max_apparent_size.unwrap_or_else(|| buffer_len.saturating_mul(16).saturating_add(1 << 20).min(1 << 31))
    }
}

/// Answers of [`Options::is_inline_struct`] by the struct name's address and length: serde passes each
/// type's name as the same `&'static str` every time, so a few pointer compares replace string compares
/// over the whole configured list (data mixing tables and structs asks for several names in turn).
#[derive(Debug, Default, Clone)]
pub(crate) struct InlineCache {
    keys: [(usize, usize); 8],
    answers: [bool; 8],
    next: usize,
}

impl InlineCache {
    #[inline]
    pub(crate) fn is_inline(&mut self, opts: &Options, name: &'static str) -> bool {
        let key = (name.as_ptr() as usize, name.len());
        for (k, &answer) in self.keys.iter().zip(&self.answers) {
            if *k == key {
                return answer;
            }
        }
        self.miss(opts, name, key)
    }

    #[cold]
    fn miss(&mut self, opts: &Options, name: &str, key: (usize, usize)) -> bool {
        let answer = opts.is_inline_struct(name);
        let i = self.next % self.keys.len();
        self.keys[i] = key;
        self.answers[i] = answer;
        self.next = i + 1;
        answer
    }
}
