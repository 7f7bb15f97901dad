//! Workspace hostile-input suite, serde-kiprop: every decoding entry point (`from_slice`,
//! `from_reader`, `from_bind_slice`, the dynamic `Value`, `xml::from_str`, the zlib framing, type-list
//! JSON loading) on the worst inputs an attacker can build, at `n` and `4n` bytes: work grows at most
//! ~6× and peak heap stays within `64 · n + 4 MiB` (SECURITY.md), or, for compressed input, within
//! the multiple of the decompression cap that the crate documents (its README, "Hostile input").

use std::fmt::Write as _;
use std::io::{Cursor, Write as _};
use std::sync::LazyLock;

use serde::Deserialize;
use serde_kiprop::codec::BitWriter;
use serde_kiprop::hash::{property_tag, string_id};
use serde_kiprop::{ErrorKind, Options, TypeList, Value, serializer_flags::*, xml};
use testkit::scaling::Case;

testkit::install_counting_allocator!();

const MIB: usize = 1 << 20;
/// The decompression cap of the zlib cases.
const CAP: usize = 4 * MIB;

/// The classes of the floods, as a wiztype v1 dump (flags 31: every shallow mask passes).
fn types_json() -> String {
    let mut classes = serde_json::Map::new();
    let mut class = |name: &str, props: &[(&str, &str, bool)]| {
        let mut p = serde_json::Map::new();
        for (i, (pname, ty, dynamic)) in props.iter().enumerate() {
            p.insert((*pname).to_owned(), serde_json::json!({"type": ty, "id": i, "flags": 31, "dynamic": dynamic}));
        }
        classes.insert(name.to_owned(), serde_json::json!({ "properties": p }));
    };
    class("class BoolList", &[("m_v", "bool", true)]);
    class("class ByteList", &[("m_v", "unsigned char", true)]);
    class("class IntList", &[("m_v", "unsigned int", true)]);
    class("class StrList", &[("m_v", "std::string", true)]);
    class("class LeafList", &[("m_v", "class Point<unsigned char>", true)]);
    class("class EmptyList", &[("m_v", "class SharedPointer<class Empty>", true)]);
    class("class Empty", &[]);
    class("class WideList", &[("m_v", "class SharedPointer<class Wide>", true)]);
    class("class Node", &[("m_child", "class SharedPointer<class Node>", false), ("m_list", "class Node*", true)]);
    class("class Text", &[("m_s", "std::string", false), ("m_ids", "unsigned int", true), ("m_n", "int", false)]);
    let wide: Vec<(String, &str, bool)> = (0..64).map(|i| (format!("m_b{i}"), "bool", false)).collect();
    let wide: Vec<(&str, &str, bool)> = wide.iter().map(|(n, t, d)| (n.as_str(), *t, *d)).collect();
    class("class Wide", &wide);
    let dyn_wide: Vec<(String, &str, bool)> = (0..64).map(|i| (format!("m_l{i}"), "unsigned int", true)).collect();
    let dyn_wide: Vec<(&str, &str, bool)> = dyn_wide.iter().map(|(n, t, d)| (n.as_str(), *t, *d)).collect();
    class("class DynWide", &dyn_wide);
    class("class DynWideList", &[("m_v", "class SharedPointer<class DynWide>", true)]);
    serde_json::Value::Object(classes).to_string()
}

static TYPES: LazyLock<TypeList> = LazyLock::new(|| TypeList::from_json(&types_json()).expect("types load"));

fn tag(class: &str) -> u32 {
    string_id(class.as_bytes())
}

// ---------------------------------------------------------------------------------------------
// Typed targets.

#[derive(Deserialize)]
#[serde(rename = "class BoolList")]
struct BoolList {
    m_v: Vec<bool>,
}

#[derive(Deserialize)]
#[serde(rename = "class ByteList")]
struct ByteList {
    m_v: Vec<u8>,
}

#[derive(Deserialize)]
#[serde(rename = "class StrList")]
struct StrList {
    m_v: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename = "class LeafList")]
struct LeafList {
    m_v: Vec<serde_kiprop::PointUChar>,
}

#[derive(Deserialize)]
#[serde(rename = "class Empty")]
struct Empty {}

#[derive(Deserialize)]
#[serde(rename = "class EmptyList")]
struct EmptyList {
    m_v: Vec<Option<Empty>>,
}

#[derive(Deserialize)]
#[serde(rename = "class Node")]
#[allow(dead_code)]
struct Node {
    m_child: Option<Box<Node>>,
    m_list: Vec<Option<Node>>,
}

fn len_of<T>(r: serde_kiprop::Result<T>, len: impl Fn(&T) -> usize) -> usize {
    r.map(|v| len(&v)).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Binary generators (shallow, flags 0 unless said otherwise).

/// `class <name>` holding one container of `count` elements written by `elem`.
fn list_blob(class: &str, count: usize, mut elem: impl FnMut(&mut BitWriter, usize)) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.write_u32(tag(class));
    w.write_u32(count as u32);
    for i in 0..count {
        elem(&mut w, i);
    }
    w.finish()
}

/// About `n` bytes of 1-bit bools (8 elements per byte).
fn bool_flood(n: usize) -> Vec<u8> {
    list_blob("class BoolList", n.saturating_sub(8) * 8, |w, i| w.write_bool(i % 3 == 0))
}

fn byte_flood(n: usize) -> Vec<u8> {
    list_blob("class ByteList", n.saturating_sub(8), |w, i| w.write_bits(i as u32 & 0xFF, 8))
}

/// Empty strings with compact prefixes: one byte each.
fn empty_string_flood(n: usize) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.write_u32(tag("class StrList"));
    w.write_len((n.saturating_sub(8)) as u32, true, false);
    for _ in 0..n.saturating_sub(8) {
        w.write_len(0, true, true);
    }
    w.finish()
}

/// `class Point<unsigned char>`: two bytes each.
fn leaf_flood(n: usize) -> Vec<u8> {
    list_blob("class LeafList", n.saturating_sub(8) / 2, |w, i| {
        w.write_bits(i as u32 & 0xFF, 8);
        w.write_bits(7, 8);
    })
}

/// Objects without properties: four bytes each.
fn empty_object_flood(n: usize) -> Vec<u8> {
    let t = tag("class Empty");
    list_blob("class EmptyList", n.saturating_sub(8) / 4, |w, _| w.write_u32(t))
}

/// Objects of 64 one-bit properties: 12 bytes each.
fn wide_object_flood(n: usize) -> Vec<u8> {
    let t = tag("class Wide");
    list_blob("class WideList", n.saturating_sub(8) / 12, |w, i| {
        w.write_u32(t);
        for b in 0..64 {
            w.write_bool((i + b) % 2 == 0);
        }
    })
}

/// Objects nested `n / 4` deep (`Node { m_child: Node { … } }`): must fail at the recursion limit.
fn nested_objects(n: usize) -> Vec<u8> {
    let mut w = BitWriter::new();
    for _ in 0..n / 4 {
        w.write_u32(tag("class Node"));
    }
    w.write_u32(0);
    w.finish()
}

/// Sixty nested `Node`s whose containers each declare as many elements as bits remain, then nulls:
/// every declared length passes a "fits the input" check, none is backed by data.
fn declared_lengths(n: usize) -> Vec<u8> {
    let levels = 60;
    let mut w = BitWriter::new();
    for i in 0..levels {
        w.write_u32(tag("class Node"));
        w.write_u32(0); // m_child: null
        let left_bits = (n.saturating_sub(12 * i + 8)) * 8;
        w.write_u32(left_bits.min(i32::MAX as usize) as u32);
    }
    while w.to_bytes().len() < n {
        w.write_u32(0);
    }
    w.finish()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// WITH_COMPRESSION framing (read with STATEFUL_FLAGS) around an object stream.
fn compressed(object: &[u8]) -> Vec<u8> {
    let mut blob = WITH_COMPRESSION.to_le_bytes().to_vec();
    blob.push(1);
    blob.extend_from_slice(&(object.len() as u32).to_le_bytes());
    blob.extend_from_slice(&zlib(object));
    blob
}

/// A bool flood inflating to about `n · 256` bytes (under [`CAP`] at the suite's sizes).
fn zlib_bool_bomb(n: usize) -> Vec<u8> {
    compressed(&list_blob("class BoolList", n * 256 * 8, |w, _| w.write_bool(true)))
}

/// Zeros announcing exactly the cap but inflating to `n · 1024` bytes (more than the cap).
fn zlib_overflow(n: usize) -> Vec<u8> {
    let z = zlib(&vec![0u8; n * 1024]);
    let mut blob = WITH_COMPRESSION.to_le_bytes().to_vec();
    blob.push(1);
    blob.extend_from_slice(&(CAP as u32).to_le_bytes());
    blob.extend_from_slice(&z);
    blob
}

/// Manual compression around WITH_COMPRESSION around a bool flood: two zlib layers.
fn double_zlib(n: usize) -> Vec<u8> {
    let inner = compressed(&list_blob("class BoolList", n * 128 * 8, |w, _| w.write_bool(true)));
    let mut blob = (inner.len() as u32).to_le_bytes().to_vec();
    blob.extend_from_slice(&zlib(&inner));
    blob
}

/// A `BINd` game file (deep, STATEFUL_FLAGS) holding a bool flood; `flags` are the stored flags.
fn bind_bool_flood(n: usize, compress: bool) -> Vec<u8> {
    let count = n.saturating_sub(28) * 8;
    let mut w = BitWriter::new();
    w.write_u32(tag("class BoolList"));
    let object_bits = 32 + 64 + 32 + count as u64;
    w.write_u32(object_bits as u32);
    w.write_u32((64 + 32 + count) as u32);
    w.write_u32(property_tag("bool", "m_v"));
    w.write_u32(count as u32);
    for i in 0..count {
        w.write_bool(i % 2 == 0);
    }
    let object = w.finish();
    let mut blob = b"BINd".to_vec();
    if compress {
        let c = compressed(&object);
        blob.extend_from_slice(&c);
    } else {
        blob.extend_from_slice(&0u32.to_le_bytes());
        blob.extend_from_slice(&object);
    }
    blob
}

fn bind_bool_bomb(n: usize) -> Vec<u8> {
    bind_bool_flood(n * 256, true)
}

// ---------------------------------------------------------------------------------------------
// Binary cases.

fn plain() -> Options {
    Options::new()
}

fn compact() -> Options {
    Options::new().flags(COMPACT_LENGTH_PREFIXES)
}

fn zlib_opts() -> Options {
    Options::new().flags(STATEFUL_FLAGS).max_decompressed_size(CAP)
}

/// The documented bound for compressed input: the inflated stream plus the model budget
/// (32 × the stream) plus a few MiB, at most 33 × the cap + 4 MiB.
fn cap_bound(_: usize) -> usize {
    33 * CAP + 4 * MIB
}

#[test]
fn bool_list_flood() {
    Case::new("kiprop Value: 1-bit bools", bool_flood).run(|b| plain().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop typed: 1-bit bools", bool_flood)
        .run(|b| len_of(plain().from_slice::<BoolList>(b, &TYPES), |v| v.m_v.len()));
}

#[test]
fn byte_list_flood() {
    Case::new("kiprop Value: u8 list", byte_flood).run(|b| plain().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop typed: u8 list", byte_flood)
        .run(|b| len_of(plain().from_slice::<ByteList>(b, &TYPES), |v| v.m_v.len()));
}

#[test]
fn empty_string_flood_case() {
    Case::new("kiprop Value: empty strings", empty_string_flood)
        .run(|b| compact().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop typed: empty strings", empty_string_flood)
        .run(|b| len_of(compact().from_slice::<StrList>(b, &TYPES), |v| v.m_v.len()));
}

#[test]
fn leaf_flood_case() {
    Case::new("kiprop Value: Point<unsigned char> list", leaf_flood)
        .run(|b| plain().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop typed: Point<unsigned char> list", leaf_flood)
        .run(|b| len_of(plain().from_slice::<LeafList>(b, &TYPES), |v| v.m_v.len()));
}

#[test]
fn object_floods() {
    Case::new("kiprop Value: empty objects", empty_object_flood)
        .run(|b| plain().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop typed: empty objects", empty_object_flood)
        .run(|b| len_of(plain().from_slice::<EmptyList>(b, &TYPES), |v| v.m_v.len()));
    Case::new("kiprop Value: objects of 64 one-bit properties", wide_object_flood)
        .run(|b| plain().from_slice::<Value>(b, &TYPES).is_ok());
}

#[test]
fn nested_objects_fail_fast() {
    Case::new("kiprop Value: objects nested n/4 deep", nested_objects).run(|b| {
        let r = plain().from_slice::<Value>(b, &TYPES);
        assert!(matches!(r.as_ref().map_err(|e| e.kind()), Err(ErrorKind::RecursionLimit)), "{r:?}");
    });
    Case::new("kiprop typed: objects nested n/4 deep", nested_objects).run(|b| {
        let r = plain().from_slice::<Node>(b, &TYPES);
        assert!(matches!(r.as_ref().map_err(|e| e.kind()), Err(ErrorKind::RecursionLimit)));
    });
}

#[test]
fn huge_declared_lengths() {
    Case::new("kiprop Value: nested lists declaring every remaining bit", declared_lengths)
        .run(|b| plain().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop typed: nested lists declaring every remaining bit", declared_lengths)
        .run(|b| plain().from_slice::<Node>(b, &TYPES).is_ok());
}

#[test]
fn from_reader_floods() {
    Case::new("kiprop from_reader Value: 1-bit bools", bool_flood)
        .run(|b| plain().from_reader::<_, Value>(Cursor::new(b), &TYPES).is_ok());
    Case::new("kiprop from_reader typed: u8 list", byte_flood)
        .run(|b| len_of(plain().from_reader::<_, ByteList>(Cursor::new(b), &TYPES), |v| v.m_v.len()));
}

#[test]
fn zlib_bombs() {
    Case::new("kiprop zlib Value: bool bomb", zlib_bool_bomb)
        .size(2 * 1024)
        .heap_bound(cap_bound)
        .heap_only()
        .run(|b| zlib_opts().from_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop zlib typed: bool bomb", zlib_bool_bomb)
        .size(2 * 1024)
        .heap_bound(cap_bound)
        .heap_only()
        .run(|b| len_of(zlib_opts().from_slice::<BoolList>(b, &TYPES), |v| v.m_v.len()));
    // The cap is exact: no more than cap + 1 inflated bytes are ever held.
    Case::new("kiprop zlib: stream longer than the cap", zlib_overflow)
        .size(8 * 1024)
        .heap_bound(|_| CAP + MIB)
        .heap_only()
        .run(|b| {
            let r = zlib_opts().from_slice::<Value>(b, &TYPES);
            assert!(r.is_err());
        });
    Case::new("kiprop zlib: manual compression around WITH_COMPRESSION", double_zlib)
        .size(2 * 1024)
        .heap_bound(cap_bound)
        .heap_only()
        .run(|b| zlib_opts().manual_compression(true).from_slice::<Value>(b, &TYPES).is_ok());
}

#[test]
fn bind_files() {
    Case::new("kiprop BINd Value: bool flood", |n| bind_bool_flood(n, false))
        .run(|b| serde_kiprop::from_bind_slice::<Value>(b, &TYPES).is_ok());
    Case::new("kiprop BINd typed: bool flood", |n| bind_bool_flood(n, false))
        .run(|b| len_of(serde_kiprop::from_bind_slice::<BoolList>(b, &TYPES), |v| v.m_v.len()));
    Case::new("kiprop BINd Value: compressed bool bomb", bind_bool_bomb)
        .size(2 * 1024)
        .heap_bound(cap_bound)
        .heap_only()
        .run(|b| Options::game_file().max_decompressed_size(CAP).from_slice::<Value>(b, &TYPES).is_ok());
}

// ---------------------------------------------------------------------------------------------
// XML.

fn xml_doc(body: impl FnOnce(&mut String)) -> Vec<u8> {
    let mut s = String::from("<Objects>\n");
    body(&mut s);
    s.push_str("</Objects>\n");
    s.into_bytes()
}

fn xml_case(name: &str, generate: impl Fn(usize) -> Vec<u8>) {
    Case::new(name, generate).run(|b| xml::from_str(std::str::from_utf8(b).unwrap(), &TYPES).is_ok());
}

#[test]
fn xml_floods() {
    xml_case("kiprop xml: many container elements", |n| {
        xml_doc(|s| {
            s.push_str("<Class Name=\"class Text\">");
            while s.len() < n {
                s.push_str("<m_ids>1</m_ids>");
            }
            s.push_str("</Class>");
        })
    });
    xml_case("kiprop xml: repeated scalars, then container elements", |n| {
        xml_doc(|s| {
            s.push_str("<Class Name=\"class Text\">");
            while s.len() < n / 2 {
                s.push_str("<m_n>1</m_n>");
            }
            while s.len() < n {
                s.push_str("<m_ids>1</m_ids>");
            }
            s.push_str("</Class>");
        })
    });
    xml_case("kiprop xml: long text", |n| {
        xml_doc(|s| {
            s.push_str("<Class Name=\"class Text\"><m_s>");
            s.extend(std::iter::repeat_n('a', n));
            s.push_str("</m_s></Class>");
        })
    });
    xml_case("kiprop xml: entities", |n| {
        xml_doc(|s| {
            s.push_str("<Class Name=\"class Text\"><m_s>");
            while s.len() < n {
                s.push_str("&amp;&#x41;&lt;");
            }
            s.push_str("</m_s></Class>");
        })
    });
    xml_case("kiprop xml: text split by comments", |n| {
        xml_doc(|s| {
            s.push_str("<Class Name=\"class Text\"><m_s>");
            while s.len() < n {
                s.push_str("a<!---->");
            }
            s.push_str("</m_s></Class>");
        })
    });
    xml_case("kiprop xml: attributes", |n| {
        xml_doc(|s| {
            s.push_str("<Class");
            let mut i = 0;
            while s.len() < n {
                let _ = write!(s, " a{i}=\"x\"");
                i += 1;
            }
            s.push_str(" Name=\"class Text\"></Class>");
        })
    });
    xml_case("kiprop xml: empty objects with 64 containers each", |n| {
        xml_doc(|s| {
            s.push_str("<Class Name=\"class DynWideList\">");
            while s.len() < n {
                s.push_str("<m_v><Class Name=\"class DynWide\"/></m_v>");
            }
            s.push_str("</Class>");
        })
    });
    xml_case("kiprop xml: ignored siblings and children", |n| {
        xml_doc(|s| {
            while s.len() < n / 2 {
                s.push_str("<x><y/></x>");
            }
            s.push_str("<Class Name=\"class Text\"><m_s>");
            while s.len() < n {
                s.push_str("<z/>");
            }
            s.push_str("</m_s></Class>");
        })
    });
}

#[test]
fn xml_nesting_fails_fast() {
    Case::new("kiprop xml: objects nested n/40 deep", |n| {
        xml_doc(|s| {
            let levels = n / 40;
            for _ in 0..levels {
                s.push_str("<Class Name=\"class Node\"><m_child>");
            }
            for _ in 0..levels {
                s.push_str("</m_child></Class>");
            }
        })
    })
    .run(|b| {
        let r = xml::from_str(std::str::from_utf8(b).unwrap(), &TYPES);
        assert!(matches!(r.as_ref().map_err(|e| e.kind()), Err(ErrorKind::RecursionLimit)), "{r:?}");
    });
    Case::new("kiprop xml: plain elements nested n/6 deep", |n| {
        let levels = n / 6;
        let mut s = String::new();
        for _ in 0..levels {
            s.push_str("<a>");
        }
        for _ in 0..levels {
            s.push_str("</a>");
        }
        s.into_bytes()
    })
    .run(|b| xml::from_str(std::str::from_utf8(b).unwrap(), &TYPES).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Type lists (16 KiB inputs: the parsed JSON stays in cache, so cache misses do not pass for
// super-linear work).

#[test]
fn type_list_json() {
    // Class tags chosen to share their low 16 bits.
    Case::new("kiprop TypeList::from_json: colliding class tags", |n| {
        let mut s = String::from("{\"version\": 2, \"classes\": {");
        let mut i = 1u32;
        while s.len() < n {
            let h = i << 16;
            let _ = write!(s, "\"{h}\": {{\"name\": \"class C{i}\", \"hash\": {h}}},");
            i += 1;
        }
        s.pop();
        s.push_str("}}");
        s.into_bytes()
    })
    .size(16 << 10)
    .run(|b| TypeList::from_json(std::str::from_utf8(b).unwrap()).is_ok());
    Case::new("kiprop TypeList::from_json: colliding property tags", |n| {
        let mut s = String::from("{\"class P\": {\"properties\": {");
        let mut i = 1u32;
        while s.len() < n {
            let _ = write!(s, "\"m_{i}\": {{\"type\": \"int\", \"id\": {i}, \"hash\": {}}},", i << 16);
            i += 1;
        }
        s.pop();
        s.push_str("}}}");
        s.into_bytes()
    })
    .size(16 << 10)
    .run(|b| TypeList::from_json(std::str::from_utf8(b).unwrap()).is_ok());
    Case::new("kiprop TypeList::from_json: enum options", |n| {
        let mut s = String::from("{\"class P\": {\"properties\": {\"m_e\": {\"type\": \"enum E\", \"enum_options\": {");
        let mut i = 0u32;
        while s.len() < n {
            let _ = write!(s, "\"o{i}\": {i},");
            i += 1;
        }
        s.pop();
        s.push_str("}}}}}");
        s.into_bytes()
    })
    .size(16 << 10)
    .run(|b| TypeList::from_json(std::str::from_utf8(b).unwrap()).is_ok());
}

#[test]
fn type_list_many_documents() {
    // Many small dumps merged: each names a class whose object property points at the next one.
    let docs = |n: usize| {
        let mut out = Vec::new();
        let mut total = 0;
        let mut i = 0;
        while total < n {
            let d = format!("{{\"class D{i}\": {{\"properties\": {{\"m_p\": {{\"type\": \"class D{}*\"}}}}}}}}", i + 1);
            total += d.len() + 1;
            out.push(d);
            i += 1;
        }
        out.join("\n").into_bytes()
    };
    Case::new("kiprop TypeList::from_json_many: many small dumps", docs).size(16 << 10).run(|b| {
        let text = std::str::from_utf8(b).unwrap();
        TypeList::from_json_many(text.lines()).map(|t| t.len()).unwrap_or(0)
    });
}

/// The annotated dump (`serde_kiprop::dump`): the decoder itself with a recording input, so the
/// same limits; its text and its record stay within a bound of the input and the inflated data.
fn dump_ok(b: &[u8], opts: &Options) -> bool {
    let d = serde_kiprop::dump::dump(b, opts, &TYPES);
    assert!(d.as_str().len() <= (16 << 10) + 32 * b.len() + 8 * CAP + 400, "{}", d.as_str().len());
    d.error().is_none()
}

#[test]
fn annotated_dumps() {
    Case::new("kiprop dump: 1-bit bools", bool_flood).run(|b| dump_ok(b, &plain()));
    Case::new("kiprop dump: empty strings (compact)", empty_string_flood).run(|b| dump_ok(b, &compact()));
    Case::new("kiprop dump: objects nested n/4 deep", nested_objects).run(|b| {
        let d = serde_kiprop::dump::dump(b, &plain(), &TYPES);
        assert!(d.error().is_some());
    });
    Case::new("kiprop dump: BINd bool flood", |n| bind_bool_flood(n, false)).run(|b| dump_ok(b, &Options::game_file()));
    Case::new("kiprop dump: zlib bool bomb", zlib_bool_bomb)
        .size(2 * 1024)
        .heap_bound(cap_bound)
        .heap_only()
        .run(|b| dump_ok(b, &zlib_opts()));
}
