//! A counting global allocator for test binaries.
//!
//! Install it once per test binary with [`install_counting_allocator!`](crate::install_counting_allocator),
//! then wrap a decode in [`measure`] to learn how much *this thread* allocated while it ran: the peak
//! of live bytes, the largest single request, and totals. Counting is per thread, so tests running in
//! parallel do not disturb each other.
//!
//! ```ignore
//! testkit::install_counting_allocator!();
//!
//! #[test]
//! fn bounded() {
//!     let input = [0u8; 16];
//!     let (_, stats) = testkit::alloc::measure(|| my_decoder(&input));
//!     assert!(stats.peak <= 64 * input.len() + (1 << 20));
//! }
//! ```

// `GlobalAlloc` is an unsafe trait; this module is the one place in the workspace that needs it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Installs [`CountingAllocator`] as the global allocator of the current binary (put it at the top
/// level of an integration test file or a `main.rs`).
#[macro_export]
macro_rules! install_counting_allocator {
    () => {
        #[global_allocator]
        static TESTKIT_COUNTING_ALLOCATOR: $crate::alloc::CountingAllocator = $crate::alloc::CountingAllocator;
    };
}

/// Forwards to the system allocator and counts, per thread, what it hands out while a [`measure`]
/// scope is active.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingAllocator;

static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    static TOTAL: Cell<u64> = const { Cell::new(0) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// Records a change of live bytes on this thread. Never allocates and never panics: the `try_with`
/// calls fail quietly during thread teardown.
fn record(grow: usize, shrink: usize) {
    INSTALLED.store(true, Ordering::Relaxed);
    let active = ACTIVE.try_with(Cell::get).unwrap_or(false);
    if !active {
        return;
    }
    let _ = LIVE.try_with(|live| {
        let now = live.get() + grow as isize - shrink as isize;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    if grow > 0 {
        let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(grow)));
        let _ = TOTAL.try_with(|total| total.set(total.get() + grow as u64));
        let _ = COUNT.try_with(|count| count.set(count.get() + 1));
    }
}

/// Requests at least this large go to [`huge`] mappings instead of `malloc`.
const HUGE: usize = 1 << 30;

/// Whether a layout is served by a [`huge`] mapping. Decided by the layout alone, so `dealloc`
/// always takes the same path as the `alloc` that produced the pointer.
fn is_huge(layout: Layout) -> bool {
    cfg!(unix) && layout.size() >= HUGE && layout.align() <= 4096
}

#[cfg(unix)]
mod huge {
    /// Maps `size` bytes of zeroed, lazily committed memory (page-aligned), or returns null.
    pub(super) fn map(size: usize) -> *mut u8 {
        // SAFETY: an anonymous private mapping with no address hint has no preconditions; the
        // result is checked against MAP_FAILED.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED { std::ptr::null_mut() } else { ptr.cast() }
    }

    /// Unmaps a region returned by [`map`] with the same size.
    pub(super) fn unmap(ptr: *mut u8, size: usize) {
        // SAFETY: `ptr`/`size` describe a live mapping made by `map` (the `GlobalAlloc` caller
        // guarantees the layout matches the allocation).
        unsafe { libc::munmap(ptr.cast(), size) };
    }
}

#[cfg(not(unix))]
mod huge {
    pub(super) fn map(_: usize) -> *mut u8 {
        unreachable!("huge mappings are only used on unix")
    }
    pub(super) fn unmap(_: *mut u8, _: usize) {
        unreachable!("huge mappings are only used on unix")
    }
}

// SAFETY: small requests are forwarded to `System` with the caller's arguments unchanged; huge ones
// (see `is_huge`) get a fresh page-aligned anonymous mapping of at least `layout.size()` bytes, which
// satisfies any alignment up to 4096 and is zero-filled, and are unmapped with the same size. The
// choice depends only on the layout, which `dealloc`/`realloc` callers must pass unchanged. The
// bookkeeping only touches `Cell`s in const-initialised thread locals without destructors, which
// neither allocate nor unwind.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = if is_huge(layout) {
            huge::map(layout.size())
        } else {
            // SAFETY: forwarded contract.
            unsafe { System.alloc(layout) }
        };
        if !ptr.is_null() {
            record(layout.size(), 0);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = if is_huge(layout) {
            huge::map(layout.size())
        } else {
            // SAFETY: forwarded contract.
            unsafe { System.alloc_zeroed(layout) }
        };
        if !ptr.is_null() {
            record(layout.size(), 0);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_huge(layout) {
            huge::unmap(ptr, layout.size());
        } else {
            // SAFETY: forwarded contract.
            unsafe { System.dealloc(ptr, layout) };
        }
        record(0, layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` rounded up to `layout.align()` fits `isize`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if !is_huge(layout) && !is_huge(new_layout) {
            // SAFETY: forwarded contract.
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            if !new.is_null() {
                record(new_size, layout.size());
            }
            return new;
        }
        // Crossing the huge threshold: move between the two kinds of memory by hand.
        // SAFETY: `new_layout` is non-zero-sized (it or `layout` is huge, and realloc callers pass a
        // non-zero `new_size`); the copy stays within both blocks; `ptr` is live with `layout`.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

/// What one thread allocated inside a [`measure`] scope.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AllocStats {
    /// High-water mark of live bytes allocated inside the scope (bytes freed inside count down).
    pub peak: usize,
    /// The largest single request (for `realloc`, the new size).
    pub largest: usize,
    /// Sum of all requests.
    pub total: u64,
    /// Number of requests.
    pub count: u64,
}

/// Whether [`CountingAllocator`] is this binary's global allocator (it has seen an allocation).
pub fn is_installed() -> bool {
    // Make sure at least one allocation has gone through whatever allocator is installed.
    drop(std::hint::black_box(Box::new(0u8)));
    INSTALLED.load(Ordering::Relaxed)
}

/// Runs `f` and returns its result with what this thread allocated meanwhile. Scopes nest: an inner
/// scope's allocations also count in the outer one.
///
/// # Panics
/// If [`CountingAllocator`] is not the global allocator: the numbers would silently be zero.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, AllocStats) {
    assert!(
        is_installed(),
        "testkit::alloc::measure needs the counting allocator: add `testkit::install_counting_allocator!();` \
         at the top level of this test binary"
    );
    let saved = (ACTIVE.get(), LIVE.get(), PEAK.get(), LARGEST.get(), TOTAL.get(), COUNT.get());
    ACTIVE.set(true);
    LIVE.set(0);
    PEAK.set(0);
    LARGEST.set(0);
    TOTAL.set(0);
    COUNT.set(0);
    let result = f();
    let stats =
        AllocStats { peak: PEAK.get().max(0) as usize, largest: LARGEST.get(), total: TOTAL.get(), count: COUNT.get() };
    let (active, live, peak, largest, total, count) = saved;
    ACTIVE.set(active);
    // Fold the inner scope into the outer one.
    let outer_live = live + LIVE.get();
    LIVE.set(outer_live);
    PEAK.set(peak.max(live + stats.peak as isize));
    LARGEST.set(largest.max(stats.largest));
    TOTAL.set(total + stats.total);
    COUNT.set(count + stats.count);
    (result, stats)
}

/// The bound the workspace uses for uncompressed binary decoders: `64 · n + 1 MiB` for `n` input bytes.
pub fn default_bound(input_len: usize) -> usize {
    input_len.saturating_mul(64).saturating_add(1 << 20)
}

/// Runs `f` and panics if this thread's peak allocation exceeded `bound` bytes.
pub fn assert_bounded<R>(bound: usize, f: impl FnOnce() -> R) -> R {
    let (result, stats) = measure(f);
    assert!(
        stats.peak <= bound,
        "allocated {} bytes at peak (largest request {}), bound {bound}",
        stats.peak,
        stats.largest
    );
    result
}
