//! `serde_godot::bincode` is a drop-in for bincode: the same game-server source files
//! (tests/bincode_drop_in/v1_server.rs for bincode 1.3, v2_server.rs for bincode 2's serde API)
//! are compiled and tested against the real bincode crates and against `serde_godot::bincode`.
//! Then the bincode module is checked against Godot's own bytes: the engine vectors decode
//! through it, one after another from a stream.

mod common;

#[allow(unreachable_pub)] // the server code is written as library code, with `pub` items
mod real_bincode1 {
    use bincode1 as bincode;
    include!("bincode_drop_in/v1_server.rs");
}

#[allow(unreachable_pub)] // the server code is written as library code, with `pub` items
mod godot_as_bincode1 {
    use serde_godot::bincode;
    include!("bincode_drop_in/v1_server.rs");
}

#[allow(unreachable_pub)] // the server code is written as library code, with `pub` items
mod real_bincode2 {
    use bincode2 as bincode;
    include!("bincode_drop_in/v2_server.rs");
}

#[allow(unreachable_pub)] // the server code is written as library code, with `pub` items
mod godot_as_bincode2 {
    use serde_godot::bincode;
    include!("bincode_drop_in/v2_server.rs");
}

use common::{hex, json};
use serde_godot::bincode::{self, Options as _};
use serde_godot::{Options, Variant, Version};

/// Every real Godot 3.2.3 engine encoding, all on one stream: `deserialize_from` takes each value
/// exactly (the stream reader follows the engine's own bytes) and decodes it to what the slice
/// decoder gives.
#[test]
fn godot3_engine_vectors_read_one_by_one_from_a_stream() {
    let fixture = json("godot3_engine_vectors.json");
    let cases = fixture["cases"].as_array().unwrap();
    let opts = Options::new().version(Version::Godot3).full_objects(true);
    let mut wire = Vec::new();
    let mut expected = Vec::new();
    for case in cases {
        let bytes = hex(case["hex"].as_str().unwrap());
        expected.push((case["name"].as_str().unwrap(), Variant::from_bytes(&bytes, &opts).unwrap()));
        wire.extend_from_slice(&bytes);
    }
    wire.extend_from_slice(b"TAIL");
    let config = bincode::options().with_godot(opts);
    let mut reader = &wire[..];
    for (name, value) in &expected {
        let got: Variant = config.deserialize_from(&mut reader).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Compared as bytes: NaN != NaN.
        assert_eq!(got.to_bytes(&opts).unwrap(), value.to_bytes(&opts).unwrap(), "{name}");
    }
    assert_eq!(reader, b"TAIL");
    assert_eq!(expected.len(), 89);
}

/// Godot 4's own test vectors (tests/core/io/test_marshalls.h) through bincode 2's
/// `decode_from_slice`, which reports the bytes each value took: the engine's `r_len`.
#[test]
fn godot4_test_vectors_decode_through_the_bincode_api_with_the_engines_lengths() {
    let fixture = json("godot4_test_marshalls.json");
    let mut checked = 0;
    for v in fixture["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let bytes = hex(v["hex"].as_str().unwrap());
        match v["kind"].as_str().unwrap() {
            "variant_encode" | "variant_decode" => {
                let (value, used): (Variant, usize) =
                    bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
                assert_eq!(used, v["r_len"].as_u64().unwrap() as usize, "{name}: r_len");
                assert_eq!(value, Variant::from_bytes(&bytes[..used], &Options::new()).unwrap(), "{name}");
                let streamed: Variant = bincode::deserialize_from(&bytes[..]).unwrap();
                assert_eq!(streamed, value, "{name}: from a stream");
                checked += 1;
            }
            "variant_decode_error" => {
                assert!(bincode::deserialize::<Variant>(&bytes).is_err(), "{name}");
                assert!(bincode::deserialize_from::<_, Variant>(&bytes[..]).is_err(), "{name}");
                checked += 1;
            }
            _ => {}
        }
    }
    assert_eq!(checked, 16);
}

/// A hostile stream that declares a huge Array and then stops: the reader errors at the end of
/// the data, having kept only what arrived; a deep nesting stops at the depth limit.
#[test]
fn hostile_streams_end_in_errors_without_reserving_what_they_declare() {
    let mut huge = vec![28, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F];
    huge.extend_from_slice(&[2, 0, 0, 0, 1, 0, 0, 0]);
    let err = bincode::deserialize_from::<_, Variant>(&huge[..]).unwrap_err();
    assert!(matches!(*err, bincode::ErrorKind::Io(ref e) if e.kind() == std::io::ErrorKind::UnexpectedEof), "{err}");
    let deep: Vec<u8> = std::iter::repeat_n([28u8, 0, 0, 0, 1, 0, 0, 0], 5000).flatten().collect();
    let err = bincode::deserialize_from::<_, Variant>(&deep[..]).unwrap_err();
    assert!(err.to_string().contains("nested deeper"), "{err}");
    let err = bincode::options().with_limit(100).deserialize_from::<_, Variant>(&deep[..]).unwrap_err();
    assert!(matches!(*err, bincode::ErrorKind::SizeLimit), "{err}");
}

/// What the real bincode 1.3.3 does, pinned because MIGRATING-FROM-BINCODE.md relies on it:
/// `options()` is not the free functions' format (varint lengths and tags), so bytes from
/// `serialize` misread under `options()`; and its limit does not apply to `deserialize` from a
/// slice at all, only to readers (and to encoding).
#[test]
fn real_bincode1_options_differ_from_its_free_functions() {
    use bincode1::Options as _;
    let msg = "x".repeat(64);
    let free = bincode1::serialize(&msg).unwrap();
    let with_options = bincode1::options().serialize(&msg).unwrap();
    assert_eq!((free.len(), with_options.len()), (72, 65));
    assert!(bincode1::options().deserialize::<String>(&free).is_err());
    let long = bincode1::options().with_limit(16).deserialize::<String>(&with_options).unwrap();
    assert_eq!(long.len(), 64, "bincode 1.3 lets a 65-byte string through a 16-byte limit");
    let err = bincode1::options().with_limit(16).deserialize_from::<_, String>(&with_options[..]).unwrap_err();
    assert!(matches!(*err, bincode1::ErrorKind::SizeLimit), "from a reader, the limit holds");
    let numbers = bincode1::options().serialize(&vec![1000u32; 64]).unwrap();
    assert_eq!(bincode1::options().with_limit(16).deserialize::<Vec<u32>>(&numbers).unwrap().len(), 64);
    let err = bincode1::options().with_limit(16).serialize(&msg).unwrap_err();
    assert!(matches!(*err, bincode1::ErrorKind::SizeLimit), "encoding is limited");
    // The free `deserialize` has no limit and ignores trailing bytes; `options()` rejects them.
    let mut trailing = free.clone();
    trailing.push(0);
    assert_eq!(bincode1::deserialize::<String>(&trailing).unwrap(), msg);
    // ours: the same rules, one format.
    let ours = bincode::serialize(&msg).unwrap();
    assert_eq!(bincode::options().deserialize::<String>(&ours).unwrap(), msg);
    let mut trailing = ours.clone();
    trailing.push(0);
    assert_eq!(bincode::deserialize::<String>(&trailing).unwrap(), msg);
    assert!(bincode::options().deserialize::<String>(&trailing).is_err());
    let err = bincode::options().with_limit(16).deserialize::<String>(&ours).unwrap_err();
    assert!(matches!(*err, bincode::ErrorKind::SizeLimit));
}
