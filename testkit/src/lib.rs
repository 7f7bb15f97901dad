//! Dev-only helpers shared by the serde-gamefmt crates' tests, benchmarks and fuzz targets.
//!
//! * [`hostile`] — the hostile-input checker: every truncation, every single-byte change and seeded
//!   random mutations of each fixture must decode to `Ok` or `Err`, never panic, and (optionally)
//!   never allocate more than a stated bound.
//! * [`alloc`] — a counting global allocator for test binaries ([`install_counting_allocator!`]).
//! * [`depth`] — depth-bomb generators and a runner on an application-sized stack.
//! * [`isolate`] — runs one test in a child process, so a stack overflow or an abort becomes an
//!   ordinary, reportable test failure.
//! * [`datasets`] — the four seeded benchmark datasets (`log`, `mesh`, `minecraft_savedata`, `mk48`).
//! * [`hex`] — hex parsing and readable hex dumps for golden tables and insta snapshots.
//! * [`scaling`] — worst cases at `n` and `4n` bytes: work grows at most ~6× (linear is 4×) and
//!   peak heap stays within the workspace rule (`64 · n` + a few MiB).
//! * [`rng`] — the seeded PCG-32 generator behind all of the above.
//! * [`toy`] — a tiny length-prefixed format with one sound decoder and three deliberately broken
//!   ones; the self-tests prove the checkers catch each kind of bug.

pub mod alloc;
pub mod datasets;
pub mod depth;
pub mod hex;
pub mod hostile;
pub mod isolate;
pub mod rng;
pub mod scaling;
pub mod toy;

pub use hostile::{DecoderCheck, Outcome, check_decoder};
