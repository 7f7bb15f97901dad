//! The anchor formats users would otherwise pick, as the ecosystem spec names them: postcard 1.1.x,
//! bincode 1.3.3 (legacy baseline; unmaintained, RUSTSEC-2025-0141), serde_json, rmp-serde with
//! named fields, flexbuffers and bson 3.x. Each encodes into the rig's reused buffer where the
//! crate allows it.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use super::Codec;

/// postcard 1.1.x (`to_extend` into the reused buffer, `from_bytes`).
pub struct Postcard;

impl Codec for Postcard {
    const NAME: &'static str = "postcard";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        *buf = postcard::to_extend(value, std::mem::take(buf)).expect("postcard encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        postcard::from_bytes(bytes).expect("postcard decode")
    }
}

/// bincode 1.3.3 with its default (fixint, little-endian) options.
pub struct Bincode1;

impl Codec for Bincode1 {
    const NAME: &'static str = "bincode1";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        bincode1::serialize_into(buf, value).expect("bincode encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bincode1::deserialize(bytes).expect("bincode decode")
    }
}

/// serde_json (compact, `float_roundtrip`).
pub struct SerdeJson;

impl Codec for SerdeJson {
    const NAME: &'static str = "serde_json";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        serde_json::to_writer(buf, value).expect("serde_json encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        serde_json::from_slice(bytes).expect("serde_json decode")
    }
}

/// rmp-serde with struct fields as names (`write_named`), the self-describing MessagePack form.
pub struct RmpSerdeNamed;

impl Codec for RmpSerdeNamed {
    const NAME: &'static str = "rmp-serde-named";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        rmp_serde::encode::write_named(buf, value).expect("rmp-serde encode");
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        rmp_serde::from_slice(bytes).expect("rmp-serde decode")
    }
}

/// flexbuffers (a reused `FlexbufferSerializer`, copied out into the buffer).
pub struct Flexbuffers;

thread_local! {
    static FLEX: RefCell<flexbuffers::FlexbufferSerializer> = RefCell::new(flexbuffers::FlexbufferSerializer::new());
}

impl Codec for Flexbuffers {
    const NAME: &'static str = "flexbuffers";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        FLEX.with_borrow_mut(|ser| {
            ser.reset();
            value.serialize(&mut *ser).expect("flexbuffers encode");
            buf.extend_from_slice(ser.view());
        });
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        flexbuffers::from_slice(bytes).expect("flexbuffers decode")
    }
}

/// bson 3.x through its serde feature.
pub struct Bson;

impl Codec for Bson {
    const NAME: &'static str = "bson";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        let bytes = bson::serialize_to_vec(value).expect("bson encode");
        if buf.is_empty() {
            *buf = bytes;
        } else {
            buf.extend_from_slice(&bytes);
        }
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bson::deserialize_from_slice(bytes).expect("bson decode")
    }
}
