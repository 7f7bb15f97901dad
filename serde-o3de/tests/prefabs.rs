//! The six real prefab files of O3DE's repository read into the typed model and written back.

use serde_json::Value;
use serde_o3de::prefab::Prefab;

const PREFABS: [(&str, &str); 6] = [
    ("Empty", include_str!("data/prefabs/Empty.prefab")),
    ("ThirdPersonCamera", include_str!("data/prefabs/ThirdPersonCamera.prefab")),
    ("ForceRegionEntity", include_str!("data/prefabs/ForceRegionEntity.prefab")),
    ("ForceRegion_PrefabInstantiates", include_str!("data/prefabs/ForceRegion_PrefabInstantiates.prefab")),
    ("Nested_SC_Spawner", include_str!("data/prefabs/Nested_SC_Spawner.prefab")),
    ("NvCloth_AddClothSimulationToMesh", include_str!("data/prefabs/NvCloth_AddClothSimulationToMesh.prefab")),
];

#[test]
fn every_prefab_round_trips_as_json_values() {
    for (name, text) in PREFABS {
        let (prefab, report) =
            serde_o3de::Options::new().load_str::<Prefab>(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(report.is_complete(), "{name}: {report}");
        let written = serde_o3de::to_string(&prefab).unwrap();
        let a: Value = serde_json::from_str(text).unwrap();
        let b: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn every_prefab_is_written_back_byte_for_byte() {
    for (name, text) in PREFABS {
        let prefab: Prefab = serde_o3de::from_str(text).unwrap();
        let written = serde_o3de::to_string_pretty(&prefab).unwrap();
        if written != text {
            let line = written.lines().zip(text.lines()).position(|(a, b)| a != b);
            panic!(
                "{name}: first difference at line {line:?}:\n{:?}\n{:?}",
                line.map(|l| written.lines().nth(l)),
                line.map(|l| text.lines().nth(l))
            );
        }
    }
}
