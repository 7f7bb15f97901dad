//! Sample target proving the scaffold runs: testkit's sound toy decoder must never panic, and
//! whatever it accepts must re-encode to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testkit::toy;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = toy::decode(data) {
        assert_eq!(toy::encode(&value), data, "accepted input must be canonical");
    }
});
