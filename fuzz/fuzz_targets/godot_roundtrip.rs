//! Whatever serde-godot accepts re-encodes, and the re-encoding is a fixed point: decoding it
//! and encoding again gives the same bytes (the direct decoder and the serde path agree, too).
//!
//! One engine rule makes the first round lossy: the null Object is sent as NIL (as Godot sends
//! it), so a Dictionary with both a null-Object key and a `null` key comes back with one merged
//! entry. Only then is one normalising round allowed before the fixed point is required.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_godot::{Object, Options, Variant, Version};

/// Whether a Dictionary anywhere in `v` has a null-Object key.
fn has_null_object_key(v: &Variant) -> bool {
    match v {
        Variant::Dictionary(d) => d.iter().any(|(k, v)| {
            matches!(k, Variant::Object(Object::Null)) || has_null_object_key(k) || has_null_object_key(v)
        }),
        Variant::Array(a) => a.iter().any(has_null_object_key),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    for version in [Version::Godot4, Version::Godot3] {
        let opts = Options::new().version(version).full_objects(true).typed_containers(true);
        let Ok(value) = Variant::from_bytes(data, &opts) else { continue };
        // Typed containers may hold elements of another type on the wire; encoding refuses those.
        let Ok(mut first) = value.to_bytes(&opts) else { continue };
        let mut again = Variant::from_bytes(&first, &opts).expect("our own encoding decodes");
        if has_null_object_key(&value) {
            first = again.to_bytes(&opts).expect("our own decoding encodes");
            again = Variant::from_bytes(&first, &opts).expect("our own encoding decodes");
        }
        let second = again.to_bytes(&opts).expect("our own decoding encodes");
        assert_eq!(first, second, "re-encoding is not a fixed point");
        let via_serde: Variant = opts.from_slice(&first).expect("the serde path decodes our encoding");
        assert_eq!(via_serde.to_bytes(&opts).unwrap(), first, "serde path and direct decoder disagree");
    }
});
