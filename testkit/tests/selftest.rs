//! The testkit proves that it catches what it is meant to catch: a toy decoder with one classic bug
//! each (panic on truncation, allocation from an untrusted length, unbounded recursion) fails the
//! matching check, and the sound toy decoder passes all of them.

use testkit::hostile::{ByteValues, DecoderCheck, FailureKind};
use testkit::toy::{self, ToyError, ToyValue};
use testkit::{alloc, depth, isolate};

testkit::install_counting_allocator!();

fn fixtures() -> DecoderCheck {
    DecoderCheck::new().fixtures(toy::sample_fixtures())
}

#[test]
fn sound_decoder_passes_every_check() {
    let outcome = fixtures().max_alloc(alloc::default_bound).run(toy::decode);
    // original + truncations + 255 values at every position + 2000 random, per fixture.
    let expected_min: u64 =
        toy::sample_fixtures().iter().map(|(_, b)| (1 + b.len() + 255 * b.len() + 2000) as u64).sum();
    assert_eq!(outcome.runs, expected_min);
    assert_eq!(outcome.ok + outcome.err, outcome.runs);
    assert!(outcome.ok >= 3, "the originals decode: {outcome}");
    assert!(outcome.err > outcome.runs / 2, "most mutations are rejected: {outcome}");
    assert!(outcome.max_peak_alloc > 0);
}

#[test]
fn panicking_decoder_is_caught_with_a_reproducer() {
    let failure = fixtures().try_run(toy::decode_panicky).expect_err("the panicky decoder must fail the check");
    let FailureKind::Panic(message) = &failure.kind else { panic!("expected a panic, got {failure}") };
    assert!(message.contains("range end index") || message.contains("out of range"), "{message}");
    // The reproducer really does panic.
    let input = failure.input.clone();
    assert!(std::panic::catch_unwind(move || toy::decode_panicky(&input)).is_err());
    let report = failure.to_string();
    assert!(report.contains("fixture:  int") && report.contains("truncate to"), "{report}");
}

#[test]
#[should_panic(expected = "hostile-input check failed: decoder panicked")]
fn run_panics_on_failure() {
    fixtures().run(toy::decode_panicky);
}

#[test]
fn over_allocating_decoder_is_caught() {
    let failure = fixtures()
        .byte_values(ByteValues::Interesting)
        .max_alloc(alloc::default_bound)
        .try_run(toy::decode_greedy)
        .expect_err("the greedy decoder must fail the allocation bound");
    let FailureKind::Alloc { peak, bound, .. } = failure.kind else { panic!("expected an allocation failure") };
    assert!(peak > bound);
    // Without the bound, the same decoder does not panic: the allocation check is what catches it.
    fixtures().byte_values(ByteValues::Interesting).run(toy::decode_greedy);
}

#[test]
fn random_mutations_alone_find_the_greedy_decoder() {
    // Only the huge-length overwrites of the random pass can trigger it on the "int" fixture.
    let failure = DecoderCheck::new()
        .fixture("list", toy::encode(&ToyValue::List(vec![ToyValue::Int(1)])))
        .exhaustive_limit(0)
        .sampled_positions(0)
        .random_mutations(5000)
        .max_alloc(alloc::default_bound)
        .try_run(toy::decode_greedy)
        .expect_err("random mutations must find an over-allocation");
    assert!(failure.mutation.starts_with("random"), "{}", failure.mutation);
}

#[test]
fn counting_allocator_measures_this_thread() {
    let (v, stats) = alloc::measure(|| vec![7u8; 100_000]);
    assert_eq!(v.len(), 100_000);
    assert!(stats.peak >= 100_000 && stats.largest >= 100_000 && stats.count >= 1, "{stats:?}");
    // Freed memory counts down: peak stays, live drops.
    let ((), stats) = alloc::measure(|| {
        for _ in 0..10 {
            drop(std::hint::black_box(vec![0u8; 10_000]));
        }
    });
    assert!(stats.peak < 20_000, "{stats:?}");
    assert_eq!(stats.total, 100_000);
    // Another thread's allocations do not leak into this thread's numbers.
    let ((), stats) = alloc::measure(|| {
        std::thread::scope(|s| {
            s.spawn(|| drop(std::hint::black_box(vec![0u8; 1 << 20])));
        });
    });
    assert!(stats.largest < 1 << 20, "{stats:?}");
}

#[test]
#[should_panic(expected = "bound")]
fn assert_bounded_fails_over_the_bound() {
    alloc::assert_bounded(1000, || vec![0u8; 5000]);
}

#[test]
fn sound_decoder_rejects_a_million_deep_bomb() {
    let bomb = toy::depth_bomb(depth::MILLION);
    let err = depth::assert_rejects(&bomb, toy::decode);
    assert_eq!(err, ToyError::TooDeep);
}

#[test]
fn unbounded_decoder_overflows_the_stack_in_a_child() {
    let child = isolate::in_child("unbounded_decoder_overflows_the_stack_in_a_child", || {
        let bomb = toy::depth_bomb(depth::MILLION);
        let _ = depth::assert_rejects(&bomb, toy::decode_unbounded);
    });
    if isolate::is_child("unbounded_decoder_overflows_the_stack_in_a_child") {
        return;
    }
    assert!(child.crashed(), "the child should have crashed: {child:?}");
    assert!(child.overflowed_stack(), "{}", child.stderr);
}

#[test]
fn isolated_sound_decoder_passes() {
    let child = isolate::in_child("isolated_sound_decoder_passes", || {
        let bomb = toy::depth_bomb(depth::MILLION);
        depth::assert_rejects(&bomb, toy::decode);
    });
    child.assert_passed();
}

#[test]
fn toy_round_trip() {
    for (_, bytes) in toy::sample_fixtures() {
        let value = toy::decode(&bytes).unwrap();
        assert_eq!(toy::encode(&value), bytes);
    }
    assert_eq!(toy::decode(&[1, 0, 0, 0, 0, 9]), Err(ToyError::Trailing));
}

/// A decoder that looks at each byte once.
fn linear_sum(input: &[u8]) -> u64 {
    input.iter().map(|&b| u64::from(b)).sum()
}

/// A decoder that, like a naive duplicate-key check, compares each byte with all the bytes before it.
fn quadratic_duplicates(input: &[u8]) -> u64 {
    let mut dups = 0u64;
    for (i, b) in input.iter().enumerate() {
        dups += input[..i].iter().filter(|&c| c == b).count() as u64;
    }
    dups
}

#[test]
fn scaling_accepts_linear_work() {
    let report = testkit::scaling::Case::new("linear sum", |n| vec![7u8; n]).size(256 * 1024).run(linear_sum);
    assert!(report.ratio <= 6.0, "{report}");
    assert_eq!(report.large_len, 4 * report.small_len);
}

#[test]
fn scaling_catches_quadratic_work() {
    let caught = std::panic::catch_unwind(|| {
        testkit::scaling::Case::new("quadratic duplicates", |n| vec![7u8; n]).size(2048).run(quadratic_duplicates)
    });
    let message = caught.expect_err("a quadratic decoder must fail the work check");
    let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("super-linear work"), "{text}");
}

#[test]
fn scaling_catches_memory_beyond_the_rule() {
    let caught = std::panic::catch_unwind(|| {
        testkit::scaling::Case::new("one byte becomes 256", |n| vec![1u8; n])
            .size(64 * 1024)
            .heap_only()
            .run(|input| vec![0u8; input.len() * 256])
    });
    let message = caught.expect_err("256 bytes of heap per input byte must fail the heap check");
    let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("of heap at peak"), "{text}");
}
