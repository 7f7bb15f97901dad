//! Godot's text form reader (`text::variant_from_str`, `from_text`) and ConfigFile reader
//! (`cfg`), both versions, with and without full objects, on arbitrary text: never a panic or a
//! stack overflow (the depth limit), and what it reads prints (in Godot 4 the printed text reads
//! back too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_godot::text::{variant_from_str, variant_to_string};
use serde_godot::{Options, Variant, Version};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for version in [Version::Godot4, Version::Godot3] {
        for full_objects in [false, true] {
            let opts = Options::new().version(version).full_objects(full_objects).max_depth(64);
            if let Ok(value) = variant_from_str(&text, &opts) {
                let printed = variant_to_string(&value, version).expect("a value read prints");
                if version == Version::Godot4 {
                    variant_from_str(&printed, &opts.full_objects(true)).expect("Godot 4 text we print reads back");
                }
            }
            let _ = opts.from_text::<Variant>(&text);
            let _ = opts.from_cfg::<Variant>(&text);
        }
    }
});
