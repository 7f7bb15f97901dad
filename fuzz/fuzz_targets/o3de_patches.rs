//! serde-o3de's JSON Patch application (`Instance::apply_patches`) on arbitrary bytes: the input is
//! split at the first NUL byte into a target document and a prefab instance holding the patch list
//! (an input without NUL patches `{"a": [0]}`). Neither loading nor applying may panic, and the
//! default patch limits must keep every run within a heap bound proportional to the input however the
//! patches amplify (copies doubling the document, inserts at the front of long arrays, deep
//! values).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use serde_o3de::prefab::{Instance, PatchLimits};

testkit::install_counting_allocator!();

fuzz_target!(|data: &[u8]| {
    let (target, patches) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&b"{\"a\": [0]}"[..], data),
    };
    let Ok(target) = serde_o3de::from_slice::<Value>(target) else {
        return;
    };
    let Ok(instance) = serde_o3de::from_slice::<Instance>(patches) else {
        return;
    };
    // The default limits let the document grow to twice the target and 32 times the patches'
    // text (estimated, plus 4 MiB); with the target's own copies and vector slack, a few hundred
    // bytes per input byte and some MiB bound every run (an unbounded copy chain needs gigabytes).
    let bound = data.len().saturating_mul(256).saturating_add(16 << 20);
    testkit::alloc::assert_bounded(bound, || {
        let mut doc = target.clone();
        if instance.apply_patches(&mut doc).is_ok() {
            // A successful run stays within the limits it was given.
            let again = instance.apply_patches_with(&mut target.clone(), PatchLimits::new().max_depth(4096));
            assert!(again.is_ok(), "a wider depth limit refused what the default accepted: {again:?}");
        }
        let mut tight = target.clone();
        let r = instance.apply_patches_with(&mut tight, PatchLimits::new().max_size(4096).max_work(1 << 16));
        if let Err(e) = r {
            assert!(e.is_limit() || e.is_data(), "{e}");
        }
        // Each operation on its own (on the target: one operation may double what it is given).
        for op in &instance.patches {
            let _ = op.apply(&mut target.clone());
        }
    });
});
