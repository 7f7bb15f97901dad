//! The hostile-input checker.
//!
//! For each fixture it decodes the original, every truncation, every single-byte change at every
//! position (for inputs up to [`DecoderCheck::exhaustive_limit`], 4 KiB by default; sampled
//! positions above), and a number of seeded random mutations: inserts, deletes, duplicated chunks,
//! overwrites with `0x00`/`0xFF`/`0x7F`/`0x80` and with huge little-endian lengths or LEB128
//! varints. Each decode must return `Ok` or `Err`; a panic fails the check with the fixture name,
//! the mutation and the input in hex. With [`DecoderCheck::max_alloc`] every decode must also stay
//! under an allocation bound (needs [`install_counting_allocator!`](crate::install_counting_allocator)).
//!
//! ```ignore
//! let outcome = testkit::DecoderCheck::new()
//!     .fixture("hello", &bytes)
//!     .max_alloc(testkit::alloc::default_bound)
//!     .run(|input| my_format::from_slice::<my_format::Value>(input));
//! assert!(outcome.err > 0);
//! ```

use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use crate::alloc;
use crate::hex;
use crate::rng::Pcg32;

/// Which replacement values the single-byte pass tries at each position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteValues {
    /// All 255 other values (the default).
    All,
    /// `0x00`, `0xFF`, `0x7F`, `0x80`, `0x01`, the byte ±1, and the byte with its low or high bit
    /// flipped: for decoders too slow to try every value at every position.
    Interesting,
}

/// Counts of a finished check.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Decodes run.
    pub runs: u64,
    /// Decodes that returned `Ok`.
    pub ok: u64,
    /// Decodes that returned `Err`.
    pub err: u64,
    /// The largest peak allocation seen in one decode (0 without an allocation bound).
    pub max_peak_alloc: usize,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} decodes: {} ok, {} err", self.runs, self.ok, self.err)?;
        if self.max_peak_alloc > 0 {
            write!(f, ", largest peak allocation {} bytes", self.max_peak_alloc)?;
        }
        Ok(())
    }
}

/// What went wrong in a failed check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    /// The decoder panicked with this message.
    Panic(String),
    /// The decoder's peak allocation exceeded the bound.
    Alloc {
        /// Peak live bytes during the decode.
        peak: usize,
        /// Largest single request.
        largest: usize,
        /// The bound for this input length.
        bound: usize,
    },
}

/// A failed check: which input broke the decoder and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Name of the fixture the input was derived from.
    pub fixture: String,
    /// The mutation that produced the input, e.g. `truncate to 12` or `byte 3 = 0xff`.
    pub mutation: String,
    /// The input itself.
    pub input: Vec<u8>,
    /// What happened.
    pub kind: FailureKind,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FailureKind::Panic(msg) => write!(f, "decoder panicked: {msg}")?,
            FailureKind::Alloc { peak, largest, bound } => write!(
                f,
                "decoder allocated {peak} bytes at peak (largest single request {largest}) for a {}-byte input; bound {bound}",
                self.input.len()
            )?,
        }
        write!(
            f,
            "\n  fixture:  {}\n  mutation: {}\n  input ({} bytes): ",
            self.fixture,
            self.mutation,
            self.input.len()
        )?;
        const SHOWN: usize = 1024;
        if self.input.len() <= SHOWN {
            write!(f, "{}", hex::encode(&self.input))
        } else {
            write!(f, "{}… (first {SHOWN} bytes)", hex::encode(&self.input[..SHOWN]))
        }
    }
}

type Bound = Box<dyn Fn(usize) -> usize>;

/// A configurable hostile-input check; see the [module docs](self).
pub struct DecoderCheck {
    fixtures: Vec<(String, Vec<u8>)>,
    exhaustive_limit: usize,
    sampled_positions: usize,
    byte_values: ByteValues,
    random_mutations: usize,
    seed: u64,
    bound: Option<Bound>,
}

impl Default for DecoderCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for DecoderCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecoderCheck")
            .field("fixtures", &self.fixtures.iter().map(|(n, b)| (n, b.len())).collect::<Vec<_>>())
            .field("exhaustive_limit", &self.exhaustive_limit)
            .field("sampled_positions", &self.sampled_positions)
            .field("byte_values", &self.byte_values)
            .field("random_mutations", &self.random_mutations)
            .field("seed", &self.seed)
            .field("bounded", &self.bound.is_some())
            .finish()
    }
}

const HUGE_LE: [&[u8]; 9] = [
    &[0xFF, 0xFF, 0xFF, 0xFF],
    &[0xFF, 0xFF, 0xFF, 0x7F],
    &[0x00, 0x00, 0x00, 0x80],
    &[0x00, 0x00, 0x00, 0x40],
    &[0x00, 0x00, 0x00, 0x01],
    &[0x00, 0x00, 0x10, 0x00],
    &[0xFF, 0xFF],
    &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
];
const HUGE_VARINT: [&[u8]; 3] = [
    &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
    &[0xFF, 0xFF, 0xFF, 0xFF, 0x07],
    &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
];
const SPECIAL: [u8; 4] = [0x00, 0xFF, 0x7F, 0x80];

impl DecoderCheck {
    /// A check with no fixtures, exhaustive byte changes up to 4 KiB, 512 sampled positions above
    /// that, 2,000 random mutations per fixture, and no allocation bound.
    pub fn new() -> Self {
        DecoderCheck {
            fixtures: Vec::new(),
            exhaustive_limit: 4096,
            sampled_positions: 512,
            byte_values: ByteValues::All,
            random_mutations: 2000,
            seed: 0x7E57_C0DE,
            bound: None,
        }
    }

    /// Adds a fixture.
    pub fn fixture(mut self, name: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        self.fixtures.push((name.into(), bytes.as_ref().to_vec()));
        self
    }

    /// Adds several fixtures.
    pub fn fixtures<N: Into<String>, B: AsRef<[u8]>>(mut self, items: impl IntoIterator<Item = (N, B)>) -> Self {
        self.fixtures.extend(items.into_iter().map(|(n, b)| (n.into(), b.as_ref().to_vec())));
        self
    }

    /// Inputs up to this length get a single-byte change at every position (default 4096).
    pub fn exhaustive_limit(mut self, bytes: usize) -> Self {
        self.exhaustive_limit = bytes;
        self
    }

    /// Positions sampled in larger inputs, besides the first and last 64 (default 512; 0 turns the
    /// single-byte pass off for inputs above the exhaustive limit).
    pub fn sampled_positions(mut self, count: usize) -> Self {
        self.sampled_positions = count;
        self
    }

    /// Which replacement values to try at each position (default [`ByteValues::All`]).
    pub fn byte_values(mut self, values: ByteValues) -> Self {
        self.byte_values = values;
        self
    }

    /// Seeded random mutations per fixture (default 2,000).
    pub fn random_mutations(mut self, count: usize) -> Self {
        self.random_mutations = count;
        self
    }

    /// Seed of the random mutations.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Requires every decode of an `n`-byte input to peak at no more than `bound(n)` live bytes on
    /// the decoding thread, e.g. [`alloc::default_bound`] (`64·n + 1 MiB`), or a constant for
    /// formats that decompress up to a configured limit.
    pub fn max_alloc(mut self, bound: impl Fn(usize) -> usize + 'static) -> Self {
        self.bound = Some(Box::new(bound));
        self
    }

    /// Runs the check.
    ///
    /// # Panics
    /// On the first failing input, with a [`Failure`] report; or if an allocation bound is set and
    /// the counting allocator is not installed.
    pub fn run<T, E>(&self, decode: impl Fn(&[u8]) -> Result<T, E>) -> Outcome {
        match self.try_run(decode) {
            Ok(outcome) => outcome,
            Err(failure) => panic!("hostile-input check failed: {failure}"),
        }
    }

    /// Runs the check and returns the first failure instead of panicking.
    pub fn try_run<T, E>(&self, decode: impl Fn(&[u8]) -> Result<T, E>) -> Result<Outcome, Failure> {
        if self.bound.is_some() {
            assert!(
                alloc::is_installed(),
                "DecoderCheck::max_alloc needs `testkit::install_counting_allocator!();` in this test binary"
            );
        }
        install_quiet_hook();
        let mut runner = Runner { decode: &decode, bound: self.bound.as_deref(), outcome: Outcome::default() };
        let mut rng = Pcg32::new(self.seed, 0x4D55_5441);
        for (name, original) in &self.fixtures {
            let fail = |mutation: String, input: &[u8], kind| Failure {
                fixture: name.clone(),
                mutation,
                input: input.to_vec(),
                kind,
            };
            runner.one(original).map_err(|k| fail("none (original)".into(), original, k))?;
            for len in 0..original.len() {
                runner.one(&original[..len]).map_err(|k| fail(format!("truncate to {len}"), &original[..len], k))?;
            }
            let mut buf = original.clone();
            for pos in self.positions(original.len(), &mut rng) {
                let before = original[pos];
                for value in self.values(before) {
                    buf[pos] = value;
                    runner.one(&buf).map_err(|k| fail(format!("byte {pos} = {value:#04x}"), &buf, k))?;
                }
                buf[pos] = before;
            }
            for i in 0..self.random_mutations {
                let (desc, input) = random_mutation(original, &mut rng);
                runner.one(&input).map_err(|k| fail(format!("random #{i}: {desc}"), &input, k))?;
            }
        }
        Ok(runner.outcome)
    }

    fn positions(&self, len: usize, rng: &mut Pcg32) -> Vec<usize> {
        if len <= self.exhaustive_limit {
            return (0..len).collect();
        }
        if self.sampled_positions == 0 {
            return Vec::new();
        }
        let mut positions: Vec<usize> = (0..64.min(len)).chain(len.saturating_sub(64)..len).collect();
        positions.extend((0..self.sampled_positions).map(|_| rng.below(len as u64) as usize));
        positions.sort_unstable();
        positions.dedup();
        positions
    }

    fn values(&self, before: u8) -> Vec<u8> {
        let mut values: Vec<u8> = match self.byte_values {
            ByteValues::All => (0..=255).collect(),
            ByteValues::Interesting => vec![
                0x00,
                0xFF,
                0x7F,
                0x80,
                0x01,
                before.wrapping_add(1),
                before.wrapping_sub(1),
                before ^ 0x01,
                before ^ 0x80,
            ],
        };
        values.sort_unstable();
        values.dedup();
        values.retain(|&v| v != before);
        values
    }
}

/// Runs the default [`DecoderCheck`] over named fixtures and returns the counts; panics on a failure.
pub fn check_decoder<T, E>(fixtures: &[(&str, &[u8])], decode: impl Fn(&[u8]) -> Result<T, E>) -> Outcome {
    DecoderCheck::new().fixtures(fixtures.iter().copied()).run(decode)
}

struct Runner<'a, F> {
    decode: &'a F,
    bound: Option<&'a dyn Fn(usize) -> usize>,
    outcome: Outcome,
}

impl<F, T, E> Runner<'_, F>
where
    F: Fn(&[u8]) -> Result<T, E>,
{
    fn one(&mut self, input: &[u8]) -> Result<(), FailureKind> {
        QUIET.set(true);
        let caught = match self.bound {
            None => catch_unwind(AssertUnwindSafe(|| (self.decode)(input).is_ok())).map(|ok| (ok, None)),
            Some(_) => catch_unwind(AssertUnwindSafe(|| {
                let (ok, stats) = alloc::measure(|| (self.decode)(input).is_ok());
                (ok, Some(stats))
            })),
        };
        QUIET.set(false);
        self.outcome.runs += 1;
        let (ok, stats) = caught.map_err(|payload| {
            let message = LAST_PANIC.take().unwrap_or_else(|| payload_message(payload.as_ref()));
            FailureKind::Panic(message)
        })?;
        if ok {
            self.outcome.ok += 1;
        } else {
            self.outcome.err += 1;
        }
        if let (Some(bound), Some(stats)) = (self.bound, stats) {
            self.outcome.max_peak_alloc = self.outcome.max_peak_alloc.max(stats.peak);
            let limit = bound(input.len());
            if stats.peak > limit {
                return Err(FailureKind::Alloc { peak: stats.peak, largest: stats.largest, bound: limit });
            }
        }
        Ok(())
    }
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".to_owned())
}

/// One to four random edits of `original`, with a description.
fn random_mutation(original: &[u8], rng: &mut Pcg32) -> (String, Vec<u8>) {
    let mut data = original.to_vec();
    let mut desc = Vec::new();
    for _ in 0..rng.range(1, 5) {
        let pos = if data.is_empty() { 0 } else { rng.below(data.len() as u64 + 1) as usize };
        match rng.below(8) {
            0 => {
                let n = rng.usize_in(1, 9);
                let bytes = rng.bytes(n);
                desc.push(format!("insert {} at {pos}", hex::encode(&bytes)));
                data.splice(pos..pos, bytes);
            }
            1 if !data.is_empty() => {
                let end = (pos + rng.usize_in(1, 17)).min(data.len());
                desc.push(format!("delete {pos}..{end}"));
                data.drain(pos.min(end)..end);
            }
            2 if !data.is_empty() => {
                let at = pos.min(data.len() - 1);
                let value = *rng.pick(&SPECIAL);
                desc.push(format!("byte {at} = {value:#04x}"));
                data[at] = value;
            }
            3 | 4 => {
                let value = if rng.chance(3, 4) { *rng.pick(&HUGE_LE) } else { *rng.pick(&HUGE_VARINT) };
                desc.push(format!("overwrite {} at {pos}", hex::encode(value)));
                let end = (pos + value.len()).min(data.len());
                data.splice(pos.min(end)..end, value.iter().copied());
            }
            5 if !data.is_empty() => {
                let start = rng.below(data.len() as u64) as usize;
                let end = (start + rng.usize_in(1, 65)).min(data.len());
                let chunk = data[start..end].to_vec();
                desc.push(format!("copy {start}..{end} to {pos}"));
                data.splice(pos..pos, chunk);
            }
            6 if !data.is_empty() => {
                let at = pos.min(data.len() - 1);
                let value = rng.next_u32() as u8;
                desc.push(format!("byte {at} = {value:#04x}"));
                data[at] = value;
            }
            _ => {
                let len = rng.usize_in(0, data.len() + 1);
                desc.push(format!("truncate to {len}"));
                data.truncate(len);
            }
        }
    }
    (desc.join(", "), data)
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the panic hook once per process with one that stays silent (and records the message)
/// on threads inside a check, and defers to the previous hook everywhere else.
fn install_quiet_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                LAST_PANIC.set(Some(info.to_string()));
            } else {
                previous(info);
            }
        }));
    });
}
