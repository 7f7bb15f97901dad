//! serde-godot's tagged JSON form (`serde_godot::json`) read back through serde_json, as gamefmt
//! reads it: arbitrary text never panics or overflows the stack (nesting ends at serde_json's
//! recursion limit); whatever reads writes back to text that reads to the same Variant, the text
//! is a fixed point and stays linear in the input; and a Variant that encodes to bytes decodes
//! from them to the same Variant (unless a string holds a NUL or a leading byte order mark, which
//! the engine's string rules do not let through the binary form, or a Dictionary repeats a key,
//! which the engine's decoder merges; a null Object comes back as NIL) — the engine behaviour
//! serde-godot's README lists under "decode → encode → decode is not always the identity".
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_godot::json::{Tagged, TaggedVariant};
use serde_godot::{Options, Variant};

/// `Debug`, which (unlike `==`) shows NaN equal to NaN.
fn show(v: &Variant) -> String {
    format!("{v:?}")
}

fuzz_target!(|data: &[u8]| {
    let Ok(TaggedVariant(value)) = serde_json::from_slice::<TaggedVariant>(data) else { return };
    let text = serde_json::to_string(&Tagged(&value)).expect("a Variant read from the form writes back");
    // `1` → `1.0` in a math component is the largest growth (3×); 16× leaves room.
    assert!(text.len() <= 16 * data.len() + 64, "{} bytes of text for {} bytes of input", text.len(), data.len());
    let back = serde_json::from_str::<TaggedVariant>(&text).unwrap_or_else(|e| panic!("{e}: {text}")).0;
    assert_eq!(show(&back), show(&value), "{text}");
    assert_eq!(serde_json::to_string(&Tagged(&back)).unwrap(), text, "the text is not a fixed point");
    // The engine reads a string's bytes up to the first NUL and drops a leading byte order mark
    // (serde-godot's decoder does the same), so strings holding either do not survive the binary
    // form; found by this target (`{"\u{feff}a": 1}`), a property of the wire format, not of the
    // JSON form. The text shows NUL as `\u0000` and U+FEFF as itself.
    let engine_safe = !text.contains("\\u0000") && !text.contains('\u{feff}');
    let opts = Options::new().full_objects(true).typed_containers(true);
    if let (true, Ok(bytes)) = (engine_safe, value.to_bytes(&opts)) {
        let decoded = Variant::from_bytes(&bytes, &opts).unwrap_or_else(|e| panic!("{e}: {text}"));
        // The form keeps repeated Dictionary keys (`{"a": 1, "a": 1}`, entries as stored); the
        // engine's decoder merges them (found by this target), so only a Variant without repeated
        // keys must come back whole: merging is the one way to lose entries.
        // A null Object is sent as NIL, as the engine sends it (found by this target:
        // `{"$Object": null}`; serde-godot's README lists it with the other two).
        let nil = |v: &Variant| show(v).replace("Object(Null)", "Nil");
        if entries(&decoded) == entries(&value) {
            assert_eq!(nil(&decoded), nil(&value), "bytes of {text}");
        } else {
            assert!(entries(&decoded) < entries(&value), "bytes of {text}");
        }
    }
});

/// Dictionary entries, Array elements and object properties in `v`, at every depth.
fn entries(v: &Variant) -> usize {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Variant::Array(a) => {
                n += a.len();
                stack.extend(a.iter());
            }
            Variant::Dictionary(d) => {
                n += d.entries().len();
                for (k, v) in d.entries() {
                    stack.push(k);
                    stack.push(v);
                }
            }
            Variant::Object(serde_godot::Object::Full(o)) => {
                n += o.properties.len();
                stack.extend(o.properties.iter().map(|(_, v)| v));
            }
            _ => {}
        }
    }
    n
}
