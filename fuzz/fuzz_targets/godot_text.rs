//! The text form of whatever serde-godot decodes (`Display`, Godot 4's `var_to_str` style), in
//! both versions, with full objects: it must never panic, must be deterministic, and must stay
//! linear in the input (every Variant prints in at most 64 bytes per input byte; the longest is a
//! subnormal `f32` component, about 13).
//!
//! serde-godot has no text *parser*; this target covers the one text code path it has.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_godot::{Options, Variant, Version};

fuzz_target!(|data: &[u8]| {
    for version in [Version::Godot4, Version::Godot3] {
        let opts = Options::new().version(version).full_objects(true);
        let Ok((value, rest)) = Variant::take_from_bytes(data, &opts) else { continue };
        let used = data.len() - rest.len();
        let text = value.to_string();
        assert!(text.len() <= 64 * used + 64, "{} bytes of text for {used} bytes of input", text.len());
        assert_eq!(text, value.to_string(), "the text form is not deterministic");
        // The serde path hands over the same Variant, so it prints the same.
        if rest.is_empty() {
            let via_serde: Variant =
                opts.from_slice(data).expect("the serde path decodes what the direct decoder does");
            assert_eq!(via_serde.to_string(), text, "serde path and direct decoder print differently");
        }
    }
});
