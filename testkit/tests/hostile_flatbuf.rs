//! Workspace hostile-input suite, serde-flatbuf-lite: every decoding entry point (`from_slice`,
//! `from_reader`, plain and size-prefixed) on the worst inputs an attacker can build, at `n` and
//! `4n` bytes: work grows at most ~6× and peak heap stays within `64 · n + 4 MiB` (SECURITY.md).

use std::collections::{BTreeMap, HashMap};
use std::io::Cursor;

use serde::{Deserialize, Serialize};
use serde_flatbuf_lite::{ErrorKind, Options, from_slice};
use testkit::scaling::Case;

testkit::install_counting_allocator!();

/// A recursive table type for depth bombs.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Node {
    child: Option<Box<Node>>,
}

#[derive(Debug, Deserialize)]
struct Empty {}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Tables {
    items: Vec<Empty>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Strings {
    items: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct BorrowedStrings<'a> {
    #[serde(borrow)]
    items: Vec<&'a str>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Longs {
    items: Vec<u64>,
}

/// `n` tables, each pointing to the next, sharing one vtable.
fn chain(count: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(12 + 8 * count);
    b.extend_from_slice(&12u32.to_le_bytes());
    b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]);
    for i in 0..count {
        let pos = 12 + 8 * i;
        b.extend_from_slice(&((pos - 4) as i32).to_le_bytes());
        b.extend_from_slice(&4u32.to_le_bytes());
    }
    b
}

/// root table `{ items: [target; count] }` where every element points to one shared target: an empty
/// table, or a string of `string` bytes.
fn shared(count: usize, string: Option<usize>) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&12u32.to_le_bytes());
    b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]);
    b.extend_from_slice(&8i32.to_le_bytes());
    b.extend_from_slice(&4u32.to_le_bytes());
    b.extend_from_slice(&(count as u32).to_le_bytes());
    let area = 24;
    let target = area + 4 * count;
    for i in 0..count {
        b.extend_from_slice(&((target - (area + 4 * i)) as u32).to_le_bytes());
    }
    match string {
        Some(len) => {
            b.extend_from_slice(&(len as u32).to_le_bytes());
            b.extend(std::iter::repeat_n(b'x', len));
            b.push(0);
        }
        None => {
            b.extend_from_slice(&(-4i32).to_le_bytes());
            b.extend_from_slice(&[4, 0, 4, 0]);
        }
    }
    b
}

/// root table `{ items: <vector> }` whose vector claims `declared` elements of `elem` bytes but holds
/// only `held` bytes of data.
fn lying_vector(declared: u32, held: usize) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&12u32.to_le_bytes());
    b.extend_from_slice(&[6, 0, 8, 0, 4, 0, 0, 0]);
    b.extend_from_slice(&8i32.to_le_bytes());
    b.extend_from_slice(&12u32.to_le_bytes()); // items (at 16) -> vector length at 28, data 8-aligned at 32
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&declared.to_le_bytes());
    b.extend(std::iter::repeat_n(0xAB, held));
    b
}

#[test]
fn shared_empty_tables_are_linear() {
    Case::new("flatbuf: every vector element points to one empty table", |n| shared(n / 4, None))
        .size(128 * 1024)
        .run(|input| from_slice::<Tables>(input).map(|t| t.items.len()));
}

#[test]
fn shared_strings_are_linear_and_bounded_by_the_apparent_size() {
    // 4-byte references to one 64-byte string: each reference materializes a 64-byte `String`.
    Case::new("flatbuf: every vector element points to one 64-byte string", |n| shared(n / 4, Some(64)))
        .size(64 * 1024)
        .run(|input| from_slice::<Strings>(input).map(|s| s.items.len()));
    // 4-byte references to one 4 KiB string stop at the apparent-size limit, within the heap rule.
    let report = Case::new("flatbuf: every vector element points to one 4 KiB string", |n| shared(n / 4, Some(4096)))
        .size(64 * 1024)
        .run(|input| from_slice::<Strings>(input).map(|s| s.items.len()));
    let err = from_slice::<Strings>(&shared(64 * 1024, Some(4096))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimitExceeded, "{err}");
    assert!(report.large_peak <= testkit::scaling::default_heap_bound(report.large_len));
}

#[test]
fn borrowed_shared_strings_are_linear() {
    Case::new("flatbuf: borrowed &str references to one string", |n| shared(n / 4, Some(4096)))
        .size(64 * 1024)
        .run(|input| from_slice::<BorrowedStrings<'_>>(input).map(|s| s.items.len()));
}

#[test]
fn nested_table_chains_fail_fast_at_the_depth_limit() {
    Case::new("flatbuf: chain of nested tables", |n| chain(n / 8))
        .size(256 * 1024)
        .run(|input| from_slice::<Node>(input).is_err());
    let err = from_slice::<Node>(&chain(100_000)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded, "{err}");
}

#[test]
fn huge_declared_vector_lengths_allocate_nothing_ahead() {
    Case::new("flatbuf: vector of u64 declaring 2^29 elements", |n| lying_vector(1 << 29, n))
        .size(64 * 1024)
        .run(|input| from_slice::<Longs>(input).is_err());
    Case::new("flatbuf: vector of tables declaring 2^30 elements", |n| lying_vector(1 << 30, n))
        .size(64 * 1024)
        .run(|input| from_slice::<Tables>(input).is_err());
}

#[test]
fn long_scalar_vectors_are_linear() {
    let longs = |n: usize| {
        let count = n / 8;
        let mut b = lying_vector(count as u32, 0);
        b.extend(std::iter::repeat_n(0x11, count * 8));
        b
    };
    Case::new("flatbuf: a vector of u64", longs).size(256 * 1024).run(|input| from_slice::<Longs>(input).is_ok());
}

#[test]
fn reader_entry_points_read_only_what_is_there() {
    // A size prefix that claims 2 GiB in front of a short stream: an error, with only the stream's
    // bytes read and held.
    Case::new("flatbuf: size prefix claiming 2 GiB - 5", |n| {
        let mut b = ((2u32 << 30) - 5).to_le_bytes().to_vec();
        b.extend(std::iter::repeat_n(0u8, n));
        b
    })
    .size(64 * 1024)
    .run(|input| Options::new().size_prefixed(true).from_reader::<_, Strings>(Cursor::new(input)).is_err());
    Case::new("flatbuf: from_reader of shared strings", |n| shared(n / 4, Some(64)))
        .size(64 * 1024)
        .run(|input| Options::new().from_reader::<_, Strings>(Cursor::new(input)).map(|s| s.items.len()));
}

/// A map entry as the wire holds it: a table `{ key; value }`.
#[derive(Serialize)]
struct Entry<K> {
    key: K,
    value: u8,
}

#[derive(Serialize)]
struct Entries<K> {
    entries: Vec<Entry<K>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct IntMaps {
    entries: HashMap<u64, u8>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct StrTree {
    entries: BTreeMap<String, u8>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct StrHash<'a> {
    #[serde(borrow)]
    entries: HashMap<&'a str, u8>,
}

/// About `n` bytes of map entries whose keys `key(i)` gives (an entry table is about 24 bytes).
fn map_of<K: Serialize>(n: usize, key: impl Fn(usize) -> K) -> Vec<u8> {
    let entries = (0..n / 24).map(|i| Entry { key: key(i), value: i as u8 }).collect();
    serde_flatbuf_lite::to_vec(&Entries { entries }).unwrap()
}

#[test]
fn map_key_floods_are_linear() {
    // Keys that differ only in their high bits (one bucket for a weak hash), duplicates, long
    // shared prefixes: into a HashMap, a BTreeMap and a borrowed HashMap.
    Case::new("flatbuf: u64 keys differing in the high bits", |n| map_of(n, |i| (i as u64) << 40))
        .size(128 * 1024)
        .run(|input| from_slice::<IntMaps>(input).map(|m| m.entries.len()));
    Case::new("flatbuf: one u64 key repeated", |n| map_of(n, |_| 7u64))
        .size(128 * 1024)
        .run(|input| from_slice::<IntMaps>(input).map(|m| m.entries.len()));
    Case::new("flatbuf: string keys with a long shared prefix, BTreeMap", |n| {
        map_of(n / 4, |i| format!("{}{i:08}", "k".repeat(64)))
    })
    .size(128 * 1024)
    .run(|input| from_slice::<StrTree>(input).map(|m| m.entries.len()));
    Case::new("flatbuf: duplicate string keys, borrowed HashMap", |n| map_of(n, |i| ["a", "b"][i % 2]))
        .size(128 * 1024)
        .run(|input| from_slice::<StrHash<'_>>(input).map(|m| m.entries.len()));
}

// ------------------------------------------------------------------------------------------------
// The `.fbs` parser and the schema-driven reader/writer (serde_flatbuf_lite::fbs).

use serde_flatbuf_lite::fbs::Schema;

fn text_input(s: String) -> Vec<u8> {
    s.into_bytes()
}

fn parse(input: &[u8]) -> Result<usize, serde_flatbuf_lite::Error> {
    Schema::parse_str("hostile.fbs", std::str::from_utf8(input).unwrap_or("")).map(|s| s.objects.len())
}

#[test]
fn fbs_parser_is_linear() {
    // Many tables, each referring to the one before (names resolved once each).
    Case::new("fbs: a long schema of tables referring to each other", |n| {
        let mut s = String::from("namespace A.B.C;\ntable T0 { a:int; }\n");
        let mut i = 1;
        while s.len() < n {
            s.push_str(&format!("table T{i} {{ a:int = 5; b:T{}; c:[string]; d:A.B.C.T0 (deprecated); }}\n", i - 1));
            i += 1;
        }
        text_input(s)
    })
    .size(64 * 1024)
    .run(|input| parse(input).is_ok());
    // One very long line (columns are counted without rescanning the line).
    Case::new("fbs: one line of many fields", |n| {
        let mut s = String::from("table T { ");
        let mut i = 0;
        while s.len() < n {
            s.push_str(&format!("f{i}:ubyte; "));
            i += 1;
        }
        s.push('}');
        text_input(s)
    })
    .size(64 * 1024)
    .run(parse);
    // Enums with many values, and a union of many members.
    Case::new("fbs: an enum with many values", |n| {
        let mut s = String::from("enum E : int { ");
        let mut i = 0;
        while s.len() < n {
            s.push_str(&format!("V{i}, "));
            i += 1;
        }
        s.push('}');
        text_input(s)
    })
    .size(64 * 1024)
    .run(|input| parse(input).is_ok());
}

#[test]
fn fbs_parser_nesting_fails_fast() {
    // Structs nested in structs: an error at the depth limit, not a deep recursion.
    Case::new("fbs: a chain of nested structs", |n| {
        let mut s = String::from("struct S0 { a:int; }\n");
        let mut i = 1;
        while s.len() < n {
            s.push_str(&format!("struct S{i} {{ a:S{}; }}\n", i - 1));
            i += 1;
        }
        text_input(s)
    })
    .size(64 * 1024)
    .run(|input| parse(input).is_err());
    let deep: String = (0..10_000).map(|i| format!("a{i}.")).collect::<String>() + "b";
    let err = Schema::parse_str("x.fbs", &format!("namespace {deep};")).unwrap_err();
    assert!(err.to_string().contains("x.fbs:1:"), "{err}");
    let err = Schema::parse_str("x.fbs", &"[".repeat(100_000)).unwrap_err();
    assert!(err.to_string().contains("x.fbs:1:1:"), "{err}");
    for junk in [
        "table",
        "table T {",
        "enum E : int { A = 99999999999999999999999999999999999999999 }",
        "\"",
        "/*",
        "table T { a:[int:0]; }",
        "struct S { a:S; }",
        "union U { U }",
        "table T { a:int = \u{10ffff}; }",
    ] {
        assert!(Schema::parse_str("j.fbs", junk).is_err(), "{junk}");
    }
}

const SHARED_FBS: &str = "table E {} table R { items:[E]; } root_type R;";
const STRINGS_FBS: &str = "table R { items:[string]; } root_type R;";
const NODE_FBS: &str = "table N { child:N; } root_type N;";
const LONGS_FBS: &str = "table R { items:[ulong]; } root_type R;";

fn fbs(text: &str) -> Schema {
    Schema::parse_str("hostile.fbs", text).unwrap()
}

#[test]
fn fbs_reader_is_linear_and_bounded() {
    let shared_tables = fbs(SHARED_FBS);
    Case::new("fbs reader: every vector element points to one empty table", |n| shared(n / 4, None))
        .size(128 * 1024)
        .run(|input| shared_tables.buffer_to_json(input, None).map(|j| j.len()));
    let strings = fbs(STRINGS_FBS);
    Case::new("fbs reader: every vector element points to one 64-byte string", |n| shared(n / 4, Some(64)))
        .size(64 * 1024)
        .run(|input| strings.buffer_to_json(input, None).map(|j| j.len()));
    let err = strings.buffer_to_json(&shared(64 * 1024, Some(4096)), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimitExceeded, "{err}");
    let node = fbs(NODE_FBS);
    Case::new("fbs reader: chain of nested tables", |n| chain(n / 8))
        .size(256 * 1024)
        .run(|input| node.buffer_to_json(input, None).is_err());
    let err = node.buffer_to_json(&chain(100_000), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded, "{err}");
    let longs = fbs(LONGS_FBS);
    Case::new("fbs reader: vector of u64 declaring 2^29 elements", |n| lying_vector(1 << 29, n))
        .size(64 * 1024)
        .run(|input| longs.buffer_to_json(input, None).is_err());
}

#[test]
fn fbs_writer_is_linear_and_depth_limited() {
    let node = fbs(NODE_FBS);
    Case::new("fbs writer: deeply nested JSON", |n| {
        let depth = n / 10;
        text_input(format!("{}{}", "{\"child\":".repeat(depth), "}".repeat(depth)))
    })
    .size(64 * 1024)
    .run(|input| node.json_to_buffer(std::str::from_utf8(input).unwrap(), None).is_err());
    let longs = fbs(LONGS_FBS);
    Case::new("fbs writer: a long vector of numbers", |n| {
        let mut s = String::from("{\"items\":[");
        while s.len() < n {
            s.push_str("18446744073709551615,");
        }
        s.push_str("0]}");
        text_input(s)
    })
    .size(64 * 1024)
    .run(|input| longs.json_to_buffer(std::str::from_utf8(input).unwrap(), None).map(|b| b.len()));
}

#[test]
fn fbs_dump_is_linear_bounded_and_annotates_a_shared_vtable_once() {
    use serde_flatbuf_lite::dump::dump_with_schema;
    let opts = Options::new();
    let shared_tables = fbs(SHARED_FBS);
    Case::new("fbs dump: every vector element points to one empty table", |n| shared(n / 4, None))
        .size(128 * 1024)
        .run(|input| dump_with_schema(input, &shared_tables, None, &opts).as_str().len());
    // Thousands of tables, two vtables: each annotated once, and the text within its budget.
    let input = shared(20_000, None);
    let d = dump_with_schema(&input, &shared_tables, None, &opts);
    assert!(d.error().is_none(), "{}", d.error().unwrap());
    let text = d.as_str();
    assert!(text.len() <= 16 * 1024 + 32 * input.len() + 200, "{}", text.len());
    let head = &text[..text.find("output limit").unwrap_or(text.len())];
    assert_eq!(head.matches("vtable: ").count(), 2, "{}", &head[..2000]);
    assert!(head.matches("(shared, annotated above)").count() > 100);
    let strings = fbs(STRINGS_FBS);
    Case::new("fbs dump: every vector element points to one 4 KiB string", |n| shared(n / 4, Some(4096)))
        .size(64 * 1024)
        .run(|input| dump_with_schema(input, &strings, None, &opts).as_str().len());
    let err = dump_with_schema(&shared(64 * 1024, Some(4096)), &strings, None, &opts);
    assert_eq!(err.error().map(|e| e.kind()), Some(ErrorKind::ApparentSizeLimitExceeded));
    let node = fbs(NODE_FBS);
    Case::new("fbs dump: chain of nested tables", |n| chain(n / 8))
        .size(256 * 1024)
        .run(|input| dump_with_schema(input, &node, None, &opts).error().is_some());
    let d = dump_with_schema(&chain(100_000), &node, None, &opts);
    assert_eq!(d.error().map(|e| e.kind()), Some(ErrorKind::DepthLimitExceeded));
    let longs = fbs(LONGS_FBS);
    Case::new("fbs dump: vector of u64 declaring 2^29 elements", |n| lying_vector(1 << 29, n))
        .size(64 * 1024)
        .run(|input| dump_with_schema(input, &longs, None, &opts).error().is_some());
}
