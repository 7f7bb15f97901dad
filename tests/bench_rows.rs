//! Every row of the benchmark rig round-trips every dataset (at a reduced scale), so the benchmark
//! never times a codec that is silently wrong; plus the report's own unit tests.

#[path = "../benches/rig/mod.rs"]
mod rig;

use rig::{Codec, Datasets};

#[test]
fn every_codec_round_trips_every_dataset() {
    let data = Datasets::generate(0.02);
    let mut rows = Vec::new();
    macro_rules! check {
        ($codec:ty) => {
            rows.push(<$codec as Codec>::NAME);
            rig::assert_round_trip::<$codec, _>("log", &data.log);
            rig::assert_borrowed_round_trip::<$codec>(&data.log);
            rig::assert_round_trip::<$codec, _>("mesh", &data.mesh);
            rig::assert_round_trip::<$codec, _>("minecraft_savedata", &data.minecraft);
            rig::assert_round_trip::<$codec, _>("mk48", &data.mk48);
        };
    }
    for_each_codec!(check);
    assert_eq!(rows[0], "postcard", "postcard is the baseline and comes first");
}

#[test]
fn bitcode_and_wincode_derive_rows_round_trip() {
    rig::leaders::check(&Datasets::generate(0.02));
}

#[test]
fn liblzma_and_lzma_rust2_read_each_other() {
    let world = rig::brson::world_with(600);
    let bson = serde_gamefmt::brson::bson::serialize_to_vec(&world).unwrap();
    rig::liblzma::check(&bson);
}

#[test]
fn kiprop_rows_round_trip() {
    rig::kiprop::check(&Datasets::generate(0.05));
}

#[test]
fn official_flatbuffers_rows_round_trip_every_dataset() {
    rig::flatbuf::assert_official_rows(&Datasets::generate(0.02));
}

#[test]
fn brson_rows_round_trip() {
    // The world is big enough (the bench also checks its round trips before timing them).
    let world = rig::brson::world();
    let bson = serde_gamefmt::brson::bson::serialize_to_vec(&world).unwrap();
    assert!(bson.len() >= 20_000_000, "{} bytes", bson.len());
    assert_eq!(world.object.descendants().count(), rig::brson::WORLD_SLOTS + 1);
    // Every kind and every raw codec round-trips (on a smaller world: LZMA is slow in tests).
    rig::brson::check_world(&rig::brson::world_with(600));
    // The brson-lz4 rows on the standard datasets.
    let data = Datasets::generate(0.02);
    rig::brson::check_dataset(&data.log);
    rig::brson::check_dataset(&data.mesh);
    rig::brson::check_dataset(&data.minecraft);
    rig::brson::check_dataset(&data.mk48);
}

#[test]
fn serde_godot_custom_rows_round_trip() {
    use rig::godot::{self, GodotPacked, PackedMesh};
    let data = Datasets::generate(0.02);
    let packed = PackedMesh::from_mesh(&data.mesh);
    rig::assert_round_trip::<GodotPacked, _>("mesh", &packed);
    assert_eq!(packed.triangles.len(), data.mesh.triangles.len() * 4);
    let msgs = godot::packets(50);
    let (mut buf, mut ends) = (Vec::new(), Vec::new());
    macro_rules! check {
        ($codec:ty) => {
            godot::encode_packets::<$codec>(&msgs, &mut buf, &mut ends);
            assert_eq!(godot::decode_packets::<$codec>(&buf, &ends), msgs, "{}", <$codec as Codec>::NAME);
        };
    }
    check!(rig::anchors::Postcard);
    check!(rig::anchors::Bincode1);
    check!(rig::anchors::SerdeJson);
    check!(rig::anchors::RmpSerdeNamed);
    check!(godot::GodotDict);
    check!(godot::GodotArray);
    godot::gbs::encode_all(&msgs, &mut buf, &mut ends);
    assert_eq!(godot::gbs::decode_all(&buf, &ends), msgs);
}

/// The crates.io `godot-binary-serialization` crate is an independent Godot 4 encoder: for the
/// types it supports, its bytes and serde-godot's are the same, and each decodes the other's.
#[test]
fn serde_godot_and_godot_binary_serialization_agree() {
    use rig::godot::{self, GodotDict};
    for msg in godot::packets(200) {
        let mut theirs = Vec::new();
        godot::gbs::encode(&msg, &mut theirs);
        let ours = GodotDict::to_vec(&msg);
        assert_eq!(ours, theirs, "{msg:?}");
        assert_eq!(GodotDict::decode::<godot::Packet>(&theirs), msg);
        assert_eq!(godot::gbs::decode(&ours), msg);
    }
}

#[test]
fn report_table_shape() {
    use rig::report::{Timing, render};
    use std::collections::BTreeMap;

    let t =
        |d: &str, o: &str, f: &str, ns: f64| Timing { dataset: d.into(), op: o.into(), format: f.into(), mean_ns: ns };
    let timings = vec![
        t("log", "serialize", "postcard", 200_000.0),
        t("log", "serialize", "bson", 2_000_000.0),
        t("log", "deserialize", "postcard", 1_500_000.0),
    ];
    let mut sizes = BTreeMap::new();
    sizes.insert(("log".to_owned(), "postcard".to_owned()), 724_953);
    sizes.insert(("log".to_owned(), "bson".to_owned()), 1_924_682);
    let text = render(&timings, &sizes, &["postcard", "bson"]);
    assert!(text.contains("| postcard | 200 µs (1.00×) | 1.50 ms (1.00×) | 724,953 (1.00×) |"), "{text}");
    assert!(text.contains("| bson | 2.00 ms (10.00×) | – | 1,924,682 (2.65×) |"), "{text}");
}

#[test]
fn o3de_prefab_rows_round_trip() {
    let doc = rig::o3de::generate(200);
    let o3de = serde_o3de::to_vec(&doc).unwrap();
    assert_eq!(serde_o3de::from_slice::<rig::o3de::BenchPrefab>(&o3de).unwrap(), doc);
    assert_eq!(serde_json::from_slice::<rig::o3de::BenchPrefab>(&o3de).unwrap(), doc);
    let json = serde_json::to_vec(&doc).unwrap();
    assert_eq!(serde_o3de::from_slice::<rig::o3de::BenchPrefab>(&json).unwrap(), doc);
    // About 1 KB per entity, so the benchmark's FULL count gives at least 10 MB.
    assert!(o3de.len() * rig::o3de::FULL / 200 >= 10_500_000, "{} bytes for 200 entities", o3de.len());
}
