//! serde-flatbuf-lite's `.fbs` parser and schema-driven reader/writer on arbitrary bytes: every input is
//! parsed as schema text, read as a buffer of the rich schema and of upstream's annotated_binary schema,
//! and encoded as a JSON document of the rich schema. Each must return `Ok` or `Err`, never panic,
//! overflow the stack or allocate beyond its limits. Whatever the reader prints the writer must take back,
//! and the JSON is stable after one normalization (defaults written explicitly are left out once).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_flatbuf_lite::fbs::Schema;

const RICH: &str = include_str!("../../testkit/flatbuf-oracle/schemas/rich.fbs");
const ANNOTATED: &str = include_str!("../../serde-flatbuf-lite/tests/data/upstream/corrupted/annotated_binary.fbs");

fn schemas() -> &'static [Schema; 2] {
    static S: std::sync::OnceLock<[Schema; 2]> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let rich = Schema::parse_str("rich.fbs", RICH).expect("rich.fbs parses");
        let ann = Schema::parse_str("annotated_binary.fbs", ANNOTATED).expect("annotated_binary.fbs parses");
        [rich, ann]
    })
}

/// JSON → buffer → JSON is stable from the second round on.
fn round_trip(schema: &Schema, json: &str) {
    let b = schema.json_to_buffer(json, None).unwrap_or_else(|e| panic!("the writer refuses the reader's JSON: {e}\n{json}"));
    let j2 = schema.buffer_to_json(&b, None).unwrap_or_else(|e| panic!("the reader refuses the writer's buffer: {e}"));
    let b3 = schema.json_to_buffer(&j2, None).expect("second write");
    let j3 = schema.buffer_to_json(&b3, None).expect("second read");
    assert_eq!(j2, j3, "JSON not stable");
}

fuzz_target!(|data: &[u8]| {
    let [rich, ann] = schemas();
    if let Ok(text) = std::str::from_utf8(data) {
        if !text.contains("include") {
            let _ = Schema::parse_str("fuzz.fbs", text);
        }
        if let Ok(b) = rich.json_to_buffer(text, None) {
            rich.buffer_to_json(&b, None).expect("our own buffer reads");
        }
    }
    for schema in [rich, ann] {
        if let Ok(json) = schema.buffer_to_json(data, None) {
            round_trip(schema, &json);
        }
    }
});
