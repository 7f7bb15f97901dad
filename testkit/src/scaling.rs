//! Scaling checks: a generated worst case decoded at two sizes, `n` and `4n` bytes.
//!
//! The workspace rule for every decoding entry point (SECURITY.md): for `n` input bytes, at most
//! O(n log n) work and at most about `64 · n` + a few MiB of heap (or, for compressed input, a
//! documented multiple of the decompression cap). A [`Case`] checks both on the worst input an
//! attacker can build for one entry point:
//!
//! * **work**: the decode of the `4n` input may take at most [`Case::max_ratio`] (6 by default)
//!   times the CPU time of the `n` input, scaled by the actual length ratio. Linear work gives about
//!   4×, `n log n` a little more, quadratic 16×. Time is this thread's CPU time (not wall time),
//!   the minimum over several repetitions, so other tests running beside it do not count; a ratio
//!   above the limit is measured again (three times), then confirmed one size up (`4n` → `16n`)
//!   before the check fails: a step from one cache level to the next can exceed the slack once,
//!   quadratic work exceeds it at every size.
//! * **memory**: the peak of live heap bytes during each decode must stay under
//!   [`Case::heap_bound`] (`64 · n + 4 MiB` by default). Needs the counting allocator
//!   ([`install_counting_allocator!`](crate::install_counting_allocator)).
//!
//! ```ignore
//! testkit::install_counting_allocator!();
//!
//! #[test]
//! fn dictionary_key_flood_is_linear() {
//!     testkit::scaling::Case::new("godot: 16k distinct Rect2 keys", |n| rect2_key_flood(n))
//!         .size(256 * 1024)
//!         .run(|input| serde_godot::from_slice::<serde_godot::Variant>(input).is_ok());
//! }
//! ```

use std::fmt;
use std::hint::black_box;
use std::time::Duration;

use crate::alloc;

/// The default heap bound of the workspace rule: `64 · n + 4 MiB` for `n` input bytes.
pub fn default_heap_bound(input_len: usize) -> usize {
    input_len.saturating_mul(64).saturating_add(4 << 20)
}

/// One entry point's worst case, checked at two sizes.
pub struct Case<'g> {
    name: String,
    generate: Box<dyn Fn(usize) -> Vec<u8> + 'g>,
    size: usize,
    factor: usize,
    max_ratio: f64,
    heap_bound: Box<dyn Fn(usize) -> usize + 'g>,
    min_time: Duration,
    attempts: u32,
}

/// What a finished [`Case`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The case's name.
    pub name: String,
    /// Length of the small input in bytes.
    pub small_len: usize,
    /// Length of the large input in bytes.
    pub large_len: usize,
    /// Least CPU time of one decode of the small input.
    pub small_time: Duration,
    /// Least CPU time of one decode of the large input.
    pub large_time: Duration,
    /// `large_time / small_time` divided by `large_len / small_len`, times the size factor: the
    /// growth of work normalised to an exact size factor (4 for linear work when the factor is 4).
    pub ratio: f64,
    /// Peak live heap bytes while decoding the small input.
    pub small_peak: usize,
    /// Peak live heap bytes while decoding the large input.
    pub large_peak: usize,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} B in {:?} (peak heap {} B), {} B in {:?} (peak heap {} B), work ratio {:.2}",
            self.name,
            self.small_len,
            self.small_time,
            self.small_peak,
            self.large_len,
            self.large_time,
            self.large_peak,
            self.ratio
        )
    }
}

impl<'g> Case<'g> {
    /// A case named `name` whose inputs `generate(n)` builds: about `n` bytes (the actual length
    /// is what counts), the worst an attacker can do with that many bytes for this entry point.
    pub fn new(name: impl Into<String>, generate: impl Fn(usize) -> Vec<u8> + 'g) -> Self {
        Case {
            name: name.into(),
            generate: Box::new(generate),
            size: 64 * 1024,
            factor: 4,
            max_ratio: 6.0,
            heap_bound: Box::new(default_heap_bound),
            min_time: Duration::from_millis(20),
            attempts: 3,
        }
    }

    /// The small size `n` handed to the generator (64 KiB by default); the large one is `4n`.
    pub fn size(mut self, n: usize) -> Self {
        self.size = n.max(1);
        self
    }

    /// The largest allowed growth of work from `n` to `4n` (6 by default: linear is 4, quadratic 16).
    pub fn max_ratio(mut self, ratio: f64) -> Self {
        self.max_ratio = ratio;
        self
    }

    /// The heap bound for an input of the given length ([`default_heap_bound`] by default). For a
    /// compressed input, a multiple of the decompression cap.
    pub fn heap_bound(mut self, bound: impl Fn(usize) -> usize + 'g) -> Self {
        self.heap_bound = Box::new(bound);
        self
    }

    /// Measure heap only (for entry points whose work is dominated by a fixed cost, such as a
    /// codec stopping at its cap).
    pub fn heap_only(mut self) -> Self {
        self.max_ratio = f64::INFINITY;
        self
    }

    /// Runs the case and panics with the measurements if a rule is broken. `decode` may return
    /// anything (an `Ok` or an `Err` are both fine); its result is dropped inside the measurement.
    pub fn run<R>(self, decode: impl Fn(&[u8]) -> R) -> Report {
        let small = (self.generate)(self.size);
        let large = (self.generate)(self.size.saturating_mul(self.factor));
        assert!(
            !small.is_empty() && large.len() > small.len(),
            "{}: the generator must grow with n ({} then {} bytes)",
            self.name,
            small.len(),
            large.len()
        );

        let small_peak = self.peak(&small, &decode);
        let large_peak = self.peak(&large, &decode);

        let mut report = Report {
            name: self.name.clone(),
            small_len: small.len(),
            large_len: large.len(),
            small_time: Duration::ZERO,
            large_time: Duration::ZERO,
            ratio: 0.0,
            small_peak,
            large_peak,
        };
        if self.max_ratio.is_finite() {
            let length_ratio = large.len() as f64 / small.len() as f64;
            for attempt in 1..=self.attempts {
                let small_time = self.least_time(&small, &decode);
                let large_time = self.least_time(&large, &decode);
                report.small_time = small_time;
                report.large_time = large_time;
                report.ratio = self.normalised(small_time, large_time, length_ratio);
                if report.ratio <= self.max_ratio || attempt == self.attempts {
                    break;
                }
            }
            if report.ratio > self.max_ratio {
                // A step from one cache level to the next can cost more than the 1.5x of slack at one
                // pair of sizes, but not at the next: confirm at 4n -> 16n before calling it
                // super-linear. Quadratic work grows 16x there too.
                let larger = (self.generate)(self.size.saturating_mul(self.factor * self.factor));
                let next_ratio = larger.len() as f64 / large.len() as f64;
                let mut confirmed = f64::INFINITY;
                for _ in 0..self.attempts {
                    let large_time = self.least_time(&large, &decode);
                    let larger_time = self.least_time(&larger, &decode);
                    confirmed = confirmed.min(self.normalised(large_time, larger_time, next_ratio));
                }
                eprintln!(
                    "scaling: {} measured again at {} -> {} bytes: work ratio {confirmed:.2}",
                    self.name,
                    large.len(),
                    larger.len()
                );
                assert!(
                    confirmed <= self.max_ratio,
                    "super-linear work: {report}, and {confirmed:.2} from {} to {} bytes (limit {:.1}; linear is {})",
                    large.len(),
                    larger.len(),
                    self.max_ratio,
                    self.factor
                );
            }
        }
        eprintln!("scaling ok: {report}");
        report
    }

    /// Growth of work from `a` to `b` normalised to an exact size factor.
    fn normalised(&self, a: Duration, b: Duration, length_ratio: f64) -> f64 {
        b.as_secs_f64() / a.as_secs_f64().max(1e-9) / length_ratio * self.factor as f64
    }

    fn peak<R>(&self, input: &[u8], decode: &impl Fn(&[u8]) -> R) -> usize {
        let bound = (self.heap_bound)(input.len());
        let (_, stats) = alloc::measure(|| drop(black_box(decode(black_box(input)))));
        assert!(
            stats.peak <= bound,
            "{}: decoding {} bytes held {} bytes of heap at peak (largest request {}), bound {bound}",
            self.name,
            input.len(),
            stats.peak,
            stats.largest
        );
        stats.peak
    }

    /// The least CPU time of one decode over repetitions lasting at least `min_time` in all (at
    /// least three).
    fn least_time<R>(&self, input: &[u8], decode: &impl Fn(&[u8]) -> R) -> Duration {
        let mut least = Duration::MAX;
        let mut spent = Duration::ZERO;
        let mut runs = 0;
        while runs < 3 || (spent < self.min_time && runs < 1000) {
            let start = thread_cpu_time();
            drop(black_box(decode(black_box(input))));
            let took = thread_cpu_time().saturating_sub(start);
            least = least.min(took);
            spent += took;
            runs += 1;
        }
        least
    }
}

/// This thread's CPU time (wall time where the platform has no per-thread clock).
fn thread_cpu_time() -> Duration {
    #[cfg(unix)]
    {
        if let Some(t) = unix_thread_cpu_time() {
            return t;
        }
    }
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

#[cfg(unix)]
#[allow(unsafe_code)]
fn unix_thread_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime only writes into it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}
