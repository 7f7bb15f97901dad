//! Whatever serde-godot accepts re-encodes, and the re-encoding is a fixed point: decoding it
//! and encoding again gives the same bytes (the direct decoder and the serde path agree, too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_godot::{Options, Variant, Version};

fuzz_target!(|data: &[u8]| {
    for version in [Version::Godot4, Version::Godot3] {
        let opts = Options::new().version(version).full_objects(true).typed_containers(true);
        let Ok(value) = Variant::from_bytes(data, &opts) else { continue };
        // Typed containers may hold elements of another type on the wire; encoding refuses those.
        let Ok(first) = value.to_bytes(&opts) else { continue };
        let again = Variant::from_bytes(&first, &opts).expect("our own encoding decodes");
        let second = again.to_bytes(&opts).expect("our own decoding encodes");
        assert_eq!(first, second, "re-encoding is not a fixed point");
        let via_serde: Variant = opts.from_slice(&first).expect("the serde path decodes our encoding");
        assert_eq!(via_serde.to_bytes(&opts).unwrap(), first, "serde path and direct decoder disagree");
    }
});
