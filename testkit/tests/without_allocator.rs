//! Without `install_counting_allocator!`, asking for an allocation bound must fail loudly rather than
//! measure zeros.

#[test]
#[should_panic(expected = "install_counting_allocator")]
fn max_alloc_requires_the_counting_allocator() {
    testkit::DecoderCheck::new()
        .fixtures(testkit::toy::sample_fixtures())
        .max_alloc(testkit::alloc::default_bound)
        .run(testkit::toy::decode);
}

#[test]
#[should_panic(expected = "install_counting_allocator")]
fn measure_requires_the_counting_allocator() {
    let _ = testkit::alloc::measure(|| vec![0u8; 10]);
}
