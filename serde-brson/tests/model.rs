//! The typed model on the fixtures (legacy and modern), lenient numbers, unknown keys, the `@`
//! rule, and proptest round trips.

mod common;

use bson::{Bson, Document, RawDocumentBuf, doc};
use common::{fixture, options_for, payload};
use proptest::prelude::*;
use serde::Deserialize;
use serde_brson::model::{
    ColorProfile, ColorX, ComponentEntry, DataTree, DtString, Field, Guid, Layout, RefField, Slot, StoredInt, TypeRef,
    Url, Width,
};
use serde_brson::{Compression, ErrorKind};

fn tree(name: &str) -> DataTree {
    options_for(name).from_slice(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Compares two BSON values with int32/int64/double of equal value treated as equal (the engine
/// reads them alike).
fn same_numbers(a: &Bson, b: &Bson) -> bool {
    let num = |v: &Bson| match v {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Int64(i) => Some(*i as f64),
        Bson::Double(d) => Some(*d),
        _ => None,
    };
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_numbers(v, w)))
        }
        (Bson::Array(x), Bson::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_numbers(v, w)),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

#[test]
fn legacy_redx_tree() {
    let tree = tree("redx-5ce7cdf5.7zbson");
    assert_eq!(tree.layout, Layout::Legacy);
    assert_eq!(tree.object.layout, Layout::Legacy);
    assert_eq!(tree.object.id, "79101779-a5cd-486a-8b61-836bfbaa723b");
    assert_eq!(tree.object.name(), Some("Holder"));
    assert_eq!(tree.types, None);
    // Legacy files store every integer as int64; the model reads them leniently and keeps the width.
    let text_renderer = tree.type_versions.as_ref().unwrap()["FrooxEngine.TextRenderer"];
    assert_eq!(text_renderer, 5);
    assert_eq!(text_renderer.width, Width::Int64);
    let first = &tree.object.components().unwrap()[0];
    assert_eq!(tree.type_name(&first.type_ref), Some("FrooxEngine.GrabbableReparentBlock"));
    let names: Vec<_> = tree.object.children.iter().map(|s| s.name().unwrap()).collect();
    assert_eq!(names, ["World Publisher/Submitter"]);
    assert!(tree.object.descendants().count() > 10);
    assert_eq!(tree.assets.as_ref().unwrap().len(), 27);

    // Encoding gives the same tree (and, below, the same bytes).
    let again = serde_brson::to_vec(&tree, Compression::Lzma).unwrap();
    let a = Bson::Document(payload("redx-5ce7cdf5.7zbson").to_document().unwrap());
    let b = Bson::Document(serde_brson::decompress(&again).unwrap().to_document().unwrap());
    assert!(same_numbers(&a, &b));
    assert_eq!(a, b);
}

/// Regression (issue 16): `TypeVersions` came back as int32 where the legacy redx file had int64,
/// so the README's "engine-written files re-encode to the same BSON bytes" did not hold for it.
#[test]
fn engine_written_files_re_encode_to_the_same_bson_bytes() {
    // Both real files (legacy NeosVR: redx with int64 integers, Box with int32 `int` members) and
    // the modern sample: decode → encode → the decompressed payload is byte-identical.
    for name in ["redx-5ce7cdf5.7zbson", "rassi0429-Box.7zbson", "synthetic-modern.brson"] {
        let tree = tree(name);
        let original = payload(name);
        for kind in [Compression::Lz4, Compression::Brotli, Compression::Lzma] {
            let file = serde_brson::to_vec(&tree, kind).unwrap();
            let again = serde_brson::decompress(&file).unwrap();
            let first_difference = again.as_bytes().iter().zip(original.as_bytes()).position(|(a, b)| a != b);
            assert_eq!(first_difference, None, "{name} {kind:?}");
            assert_eq!(again.as_bytes().len(), original.as_bytes().len(), "{name} {kind:?}");
        }
    }
    assert_eq!(tree("rassi0429-Box.7zbson").object.name(), Some("Box"));
}

#[derive(Debug, Deserialize)]
struct UnlitMaterial {
    #[serde(rename = "TintColor")]
    tint: Field<ColorX>,
    #[serde(rename = "Texture")]
    texture: RefField,
    #[serde(rename = "BlendMode")]
    blend: Field<String>,
}

#[derive(Debug, Deserialize)]
struct StaticTexture2D {
    #[serde(rename = "URL")]
    url: Field<Url>,
    #[serde(rename = "FilterMode")]
    filter: Field<Option<String>>,
}

#[test]
fn modern_tree_types_colors_urls_and_escapes() {
    let tree = tree("synthetic-modern.lz4bson");
    assert_eq!(tree.layout, Layout::Modern);
    assert_eq!(tree.version_number.as_deref(), Some("2025.1.1.1"));
    assert_eq!(tree.feature_flags.as_ref().unwrap().len(), 5);
    let components = tree.object.components().unwrap();
    let types: Vec<_> = components.iter().map(|c| tree.type_name(&c.type_ref).unwrap()).collect();
    assert_eq!(types[1], "[FrooxEngine]FrooxEngine.MeshRenderer");
    assert_eq!(components[1].type_ref, TypeRef::Index(3));

    let assets = tree.assets.as_ref().unwrap();
    let texture: StaticTexture2D = assets[0].data_as().unwrap();
    assert_eq!(texture.url.data.0, format!("resdb:///{}.webp", "ab".repeat(32)));
    assert_eq!(texture.filter.data, None);
    let material: UnlitMaterial = assets[1].data_as().unwrap();
    assert_eq!(material.tint.data, ColorX { rgba: [1.0, 0.5, 0.25, 1.0], profile: Some(ColorProfile::SRgb) });
    assert_eq!(material.texture.data.as_ref().map(Guid::as_str), assets[0].id());
    assert_eq!(material.blend.data, "Alpha");

    // "@@literal at-sign" is the escaped plain string "@literal at-sign".
    let child = &tree.object.children[0];
    assert_eq!(child.name.as_ref().unwrap().data, Some(DtString::Text("@literal at-sign".into())));
    assert_eq!(child.parent_reference.as_ref(), Some(&tree.object.id));
}

#[test]
fn lenient_numbers_and_unknown_keys() {
    let raw = serde_brson::Payload::from_bson(fixture("synthetic-modern.bson"), 64).unwrap();
    let mut document = raw.to_document().unwrap();
    let object = document.get_document_mut("Object").unwrap();
    // OrderOffset written as a double (as a JavaScript tool would) and as int32.
    object.insert("OrderOffset", doc! { "ID": "x", "Data": 7.0, "Note": "kept" });
    object.insert("Custom", doc! { "a": [1, 2] });
    document.insert("ExtraRoot", true);
    let bytes = serde_brson::to_vec(&document, Compression::Lz4).unwrap();
    let tree: DataTree = serde_brson::from_slice(&bytes).unwrap();
    let offset = tree.object.order_offset.as_ref().unwrap();
    assert_eq!(offset.data, 7);
    assert_eq!(offset.extra.get_str("Note").unwrap(), "kept");
    assert_eq!(tree.object.extra.get_document("Custom").unwrap(), &doc! { "a": [1, 2] });
    assert!(tree.extra.get_bool("ExtraRoot").unwrap());

    // Nothing is lost through encode → decode.
    let again: DataTree = serde_brson::from_slice(&serde_brson::to_vec(&tree, Compression::Brotli).unwrap()).unwrap();
    assert_eq!(again, tree);

    // A non-integral double in an integer member is refused, not rounded.
    document.get_document_mut("Object").unwrap().insert("OrderOffset", doc! { "ID": "x", "Data": 7.5 });
    let bytes = serde_brson::to_vec(&document, Compression::Lz4).unwrap();
    let err = serde_brson::from_slice::<DataTree>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data);
}

#[test]
fn lenient_helpers_for_user_types() {
    #[derive(Deserialize)]
    struct Member {
        #[serde(deserialize_with = "serde_brson::lenient::u32")]
        big: u32,
        #[serde(deserialize_with = "serde_brson::lenient::i32")]
        small: i32,
        #[serde(deserialize_with = "serde_brson::lenient::option")]
        maybe: Option<i64>,
    }
    // The engine writes a uint above i32::MAX as a negative int32 (unchecked cast).
    let bytes =
        serde_brson::to_vec(&doc! { "big": -1i32, "small": 3.0, "maybe": Bson::Null }, Compression::Lz4).unwrap();
    let m: Member = serde_brson::from_slice(&bytes).unwrap();
    assert_eq!((m.big, m.small, m.maybe), (u32::MAX, 3, None));
}

#[test]
fn missing_members_and_missing_data() {
    let bytes =
        serde_brson::to_vec(&doc! { "Object": { "ID": "root", "Tag": { "ID": "t" } } }, Compression::Lz4).unwrap();
    let tree: DataTree = serde_brson::from_slice(&bytes).unwrap();
    assert_eq!(tree.object.name, None);
    // A missing Data of a nullable member is null.
    assert_eq!(tree.object.tag.as_ref().unwrap().data, None);
    let bytes =
        serde_brson::to_vec(&doc! { "Object": { "Name": { "ID": "n", "Data": "x" } } }, Compression::Lz4).unwrap();
    assert!(serde_brson::from_slice::<DataTree>(&bytes).unwrap_err().message().contains("ID"));
    let bytes =
        serde_brson::to_vec(&doc! { "Object": { "ID": "r", "Active": { "ID": "a" } } }, Compression::Lz4).unwrap();
    assert!(serde_brson::from_slice::<DataTree>(&bytes).unwrap_err().message().contains("Data"));
}

fn guid() -> impl Strategy<Value = Guid> {
    any::<u128>().prop_map(Guid::from_u128)
}

fn dt_string() -> impl Strategy<Value = DtString> {
    prop_oneof![
        "[@a-zA-Z0-9 <>/]{0,12}".prop_map(DtString::Text),
        "(resdb|neosdb|https):///[0-9a-f]{4,16}".prop_map(DtString::Url),
    ]
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0f64), Just(1.0), Just(-0.5), -1e6f64..1e6]
}

fn extra() -> impl Strategy<Value = Document> {
    proptest::collection::vec(("[A-Z][a-z]{1,6}", any::<i64>()), 0..2).prop_map(|pairs| {
        let mut doc = Document::new();
        for (k, v) in pairs {
            doc.insert(format!("X{k}"), v);
        }
        doc
    })
}

fn component() -> impl Strategy<Value = ComponentEntry> {
    (prop_oneof![(0i32..50).prop_map(TypeRef::Index), "[A-Za-z.]{3,20}".prop_map(TypeRef::Name)], guid(), any::<bool>())
        .prop_map(|(type_ref, id, enabled)| ComponentEntry {
            type_ref,
            data: RawDocumentBuf::try_from(&doc! { "ID": id.0, "Enabled": { "ID": "e", "Data": enabled } }).unwrap(),
            extra: Document::new(),
        })
}

fn leaf_slot() -> impl Strategy<Value = Slot> {
    (
        (guid(), proptest::option::of(guid()), proptest::option::of(proptest::option::of(dt_string())), any::<bool>()),
        ([finite(), finite(), finite()], [finite(), finite(), finite(), finite()], any::<i64>()),
        (proptest::option::of(guid()), proptest::collection::vec(component(), 0..3), extra(), any::<bool>()),
    )
        .prop_map(
            |((id, pid, name, active), (position, rotation, offset), (parent, components, extra, legacy))| Slot {
                id,
                persistent_id: pid,
                name: name.map(|n| Field::new("n", n)),
                tag: None,
                active: Some(Field::new("a", active)),
                position: Some(Field::new("p", position)),
                rotation: Some(Field::new("r", rotation)),
                scale: None,
                order_offset: Some(Field::new("o", offset)),
                parent_reference: parent,
                components: Some(Field::new("c", components)),
                children: Vec::new(),
                extra,
                layout: if legacy { Layout::Legacy } else { Layout::Modern },
            },
        )
}

fn slot_tree() -> impl Strategy<Value = Slot> {
    leaf_slot().prop_recursive(3, 24, 4, |inner| {
        (leaf_slot(), proptest::collection::vec(inner, 0..4)).prop_map(|(mut slot, children)| {
            slot.children = children;
            slot
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn typed_model_round_trips(object in slot_tree(), types in proptest::option::of(proptest::collection::vec("[A-Za-z.\\[\\]<>]{1,30}", 0..4)), versions in proptest::option::of(proptest::collection::vec(("[A-Za-z.]{1,20}", any::<i32>(), 0..3usize), 0..4)), kind in 0..3usize) {
        let compression = [Compression::Lz4, Compression::Lzma, Compression::Brotli][kind];
        let legacy = object.layout == Layout::Legacy && types.is_none();
        let type_versions = versions.map(|v| {
            v.into_iter()
                .map(|(k, value, w)| (k, StoredInt { value, width: [Width::Int32, Width::Int64, Width::Double][w] }))
                .collect()
        });
        let tree = DataTree {
            version_number: types.as_ref().map(|_| "2025.1.1.1".to_owned()),
            types,
            type_versions,
            object,
            layout: if legacy { Layout::Legacy } else { Layout::Modern },
            ..DataTree::default()
        };
        let bytes = serde_brson::to_vec(&tree, compression).unwrap();
        let back: DataTree = serde_brson::from_slice(&bytes).unwrap();
        // A legacy layout is recognised where it changes the bytes.
        let mut expected = tree.clone();
        if expected.type_versions.is_none() && expected.version_number.is_none() && expected.types.is_none() {
            expected.layout = Layout::Modern;
        }
        fix_layouts(&mut expected.object);
        prop_assert_eq!(back, expected);
    }

    #[test]
    fn dt_strings_round_trip(s in dt_string()) {
        let bytes = serde_brson::to_vec(&doc! { "v": s.stored().as_ref() }, Compression::Lz4).unwrap();
        #[derive(Deserialize, PartialEq, Debug)]
        struct V { v: DtString }
        prop_assert_eq!(serde_brson::from_slice::<V>(&bytes).unwrap(), V { v: s });
    }
}

/// The layout a decoded slot reports where the legacy and modern orders give different bytes.
fn fix_layouts(slot: &mut Slot) {
    if slot.components.is_none() && (slot.persistent_id.is_none() || slot.active.is_none()) {
        slot.layout = Layout::Modern;
    }
    for child in &mut slot.children {
        fix_layouts(child);
    }
}

/// Issue 12: the typed model read documents whose keys look like Extended JSON
/// (`{"$numberLong": "5"}`) through `Bson`'s serde impl, which turns them into other types, so
/// decode → encode changed the tree. They are now read from the raw bytes, and the JSON form
/// escapes them as `{"$literal": {…}}`.
#[test]
fn model_keeps_documents_whose_keys_look_like_extended_json() {
    let tricky = doc! {
        "long": { "$numberLong": "5" },
        "oid": { "$oid": "0123456789abcdef01234567" },
        "date": { "$date": { "$numberLong": "1" } },
        "binary": { "$binary": { "base64": "AAEC", "subType": "00" } },
        "literal": { "$literal": { "$numberInt": "7" } },
        "code": { "$code": "f()", "$scope": { "$undefined": true } },
        "ref": { "$ref": "ns", "$id": 5 },
        "nested": [ { "$minKey": 1 }, { "$maxKey": 1, "x": 2 }, {} ],
    };
    let tree = doc! {
        "VersionNumber": "2025.1.1.1",
        "Types": ["A"],
        "Object": {
            "ID": "root",
            "Name": { "ID": "n", "Data": "root", "$numberDouble": "1.0" },
            "ParentReference": Bson::Null,
            "Components": { "ID": "c", "Data": [ { "Type": 0, "Data": tricky.clone(), "$oid": { "$oid": "x" } } ] },
            "Children": [],
            "Custom": { "$numberDecimal": "1.5" },
        },
        "Extra": { "$timestamp": { "t": 1, "i": 2 } },
    };
    let raw = serde_brson::Options::new().allow_uncompressed(true);
    let file = raw.to_vec(&tree, Compression::None).unwrap();
    let payload = raw.decompress(&file).unwrap();

    let model: DataTree = payload.deserialize().unwrap();
    let data = Document::try_from(&model.object.components().unwrap()[0].data).unwrap();
    assert_eq!(data, tricky);
    assert_eq!(data.get_document("long").unwrap().get_str("$numberLong").unwrap(), "5");
    assert_eq!(model.object.extra.get_document("Custom").unwrap(), &doc! { "$numberDecimal": "1.5" });
    assert_eq!(model.extra.get_document("Extra").unwrap(), &doc! { "$timestamp": { "t": 1, "i": 2 } });
    // decode → encode gives back the same BSON.
    assert_eq!(raw.to_vec(&model, Compression::None).unwrap(), file);
    assert_eq!(payload.to_document().unwrap(), tree);

    // Through JSON: escaped on the way out, read back as the same documents, and the same text.
    let text = serde_brson::json::to_string(payload.raw()).unwrap();
    assert!(text.contains(r#""long":{"$literal":{"$numberLong":"5"}}"#), "{text}");
    assert!(text.contains(r#""literal":{"$literal":{"$literal":{"$literal":{"$numberInt":"7"}}}}"#), "{text}");
    let back = serde_brson::json::from_str(&text).unwrap();
    assert_eq!(back, tree);
    let bytes = bson::serialize_to_vec(&back).unwrap();
    assert_eq!(serde_brson::json::to_string(bson::RawDocument::from_bytes(&bytes).unwrap()).unwrap(), text);

    // Real Extended JSON still reads as the types, and `$literal` is an ordinary key elsewhere.
    let back = serde_brson::json::from_str(
        r#"{"l": {"$numberLong": "5"}, "d": {"$date": {"$numberLong": "1"}}, "w": {"$literal": {"$numberLong": "5"}},
            "k": {"$literal": 1}, "m": {"$literal": {"$numberLong": "5"}, "x": 1}}"#,
    )
    .unwrap();
    assert_eq!(back.get("l"), Some(&Bson::Int64(5)));
    assert_eq!(back.get("d"), Some(&Bson::DateTime(bson::DateTime::from_millis(1))));
    assert_eq!(back.get_document("w").unwrap(), &doc! { "$numberLong": "5" });
    assert_eq!(back.get_document("k").unwrap(), &doc! { "$literal": 1 });
    assert_eq!(back.get_document("m").unwrap(), &doc! { "$literal": 5i64, "x": 1 });
}
