//! Load behaviour beyond the transcribed cases: classes, containers, maps, reports, callbacks,
//! passes, `from_value` parity and the settings-registry syntax.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Value, json};
use serde_o3de::{Category, Color, Options, Outcome, Processing, ResultCode, Task, Vector3};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
struct Camera {
    fov: f32,
    near: f32,
    far: f32,
    name: String,
    tags: Vec<String>,
}

impl Default for Camera {
    fn default() -> Self {
        Camera { fov: 60.0, near: 0.1, far: 1000.0, name: "Camera".to_owned(), tags: vec!["main".to_owned()] }
    }
}

#[test]
fn a_member_that_cannot_be_loaded_keeps_its_default_not_zero() {
    let (camera, report) = Options::new().load_str::<Camera>(r#"{"fov": "wide", "far": [1], "near": 0.5}"#).unwrap();
    assert_eq!(camera, Camera { near: 0.5, ..Camera::default() });
    assert_eq!(report.outcome(), Outcome::Unsupported);
    assert_eq!(report.processing(), Processing::PartialAlter);
    let paths: Vec<_> = report.issues.iter().map(|i| (i.path.as_str(), i.outcome())).collect();
    assert_eq!(paths, [("/fov", Outcome::Unsupported), ("/far", Outcome::Unsupported)]);
}

#[test]
fn explicit_default_on_a_member_keeps_the_parents_default() {
    let (camera, report) = Options::new().load_str::<Camera>(r#"{"fov": {}, "tags": {}, "name": {}}"#).unwrap();
    assert_eq!(camera, Camera::default());
    assert_eq!(report.issues.len(), 3);
    assert!(report.issues.iter().all(|i| i.outcome() == Outcome::DefaultsUsed));
}

#[test]
fn field_names_are_case_insensitive_and_type_is_skipped() {
    let (camera, report) =
        Options::new().load_str::<Camera>(r#"{"$type": "CameraComponent", "FOV": 90, "NAME": "Top"}"#).unwrap();
    assert_eq!((camera.fov, camera.name.as_str()), (90.0, "Top"));
    assert!(report.issues.is_empty(), "{report}");
    assert_eq!(report.outcome(), Outcome::PartialDefaults);
}

#[test]
fn unknown_members_are_skipped_and_reported() {
    let (_, report) = Options::new()
        .load_str::<Camera>(r#"{"fov": 1, "near": 1, "far": 1, "name": "x", "tags": [], "zoom": {"a": [1, 2]}}"#)
        .unwrap();
    assert_eq!(report.outcome(), Outcome::PartialSkip);
    assert_eq!(report.issues[0].path, "/zoom");
    assert_eq!(report.issues[0].outcome(), Outcome::Skipped);
}

#[test]
fn the_last_of_duplicate_members_wins() {
    let camera: Camera = serde_o3de::from_str(r#"{"fov": 10, "FOV": 20, "fov": 30}"#).unwrap();
    assert_eq!(camera.fov, 30.0);
}

#[test]
fn failed_elements_are_dropped_and_entries_are_unavailable() {
    let (list, report) = Options::new().load_str::<Vec<u8>>(r#"[1, 256, "2", null, [3], {}, 4]"#).unwrap();
    assert_eq!(list, [1, 2, 0, 4]);
    let issues: Vec<_> = report.issues.iter().map(|i| (i.path.as_str(), i.outcome())).collect();
    assert_eq!(
        issues,
        [
            ("/1", Outcome::Unsupported),
            ("/3", Outcome::Unsupported),
            ("/4", Outcome::Unsupported),
            ("/5", Outcome::DefaultsUsed)
        ]
    );
    let (map, report) =
        Options::new().load_str::<BTreeMap<u8, bool>>(r#"{"1": true, "x": true, "2": "maybe"}"#).unwrap();
    assert_eq!(map, BTreeMap::from([(1, true)]));
    assert!(report.issues.iter().all(|i| i.outcome() == Outcome::Unavailable), "{report}");
}

/// Regression (issue 16): a non-object entry in a map's array form was reported Unavailable; O3DE's
/// map serializer says Unsupported (Unavailable is for an entry whose key or value failed).
#[test]
fn a_non_object_map_entry_is_unsupported_and_a_failed_entry_unavailable() {
    let (map, report) = Options::new()
        .load_str::<BTreeMap<u8, bool>>(r#"[{"Key": 1, "Value": true}, 5, "x", [], {"Key": 2, "Value": "maybe"}]"#)
        .unwrap();
    assert_eq!(map, BTreeMap::from([(1, true)]));
    let issues: Vec<_> = report.issues.iter().map(|i| (i.path.as_str(), i.outcome())).collect();
    assert_eq!(
        issues,
        [
            ("/1", Outcome::Unsupported),
            ("/2", Outcome::Unsupported),
            ("/3", Outcome::Unsupported),
            ("/4/Value", Outcome::Unavailable)
        ]
    );
    assert_eq!(report.outcome(), Outcome::Unsupported);
}

#[test]
fn maps_load_from_both_forms() {
    let from_object: HashMap<i64, String> = serde_o3de::from_str(r#"{"1": "a", "0x10": "b", "{}": "zero"}"#).unwrap();
    let from_array: HashMap<i64, String> =
        serde_o3de::from_str(r#"[{"Key": 1, "Value": "a"}, {"Value": "zero"}, {"Key": "16", "Value": "b"}, 5]"#)
            .unwrap();
    assert_eq!(from_object, from_array);
    assert_eq!(from_object[&16], "b");
    assert_eq!(from_object[&0], "zero");
}

#[test]
fn options_read_null_and_content() {
    #[derive(Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Holder {
        a: Option<i32>,
        b: Option<Camera>,
        c: Option<i32>,
    }
    let h: Holder = serde_o3de::from_str(r#"{"a": null, "b": {}, "c": "7"}"#).unwrap();
    assert_eq!(h, Holder { a: None, b: Some(Camera::default()), c: Some(7) });
}

#[test]
fn nested_failures_stay_in_their_struct() {
    #[derive(Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Rig {
        cameras: Vec<Camera>,
        main: Camera,
    }
    let (rig, report) = Options::new()
        .load_str::<Rig>(r#"{"cameras": [{"fov": "x"}, "not a camera", {"far": 5}], "main": {"near": "far"}}"#)
        .unwrap();
    assert_eq!(rig.cameras, [Camera::default(), Camera { far: 5.0, ..Camera::default() }]);
    assert_eq!(rig.main, Camera::default());
    let paths: Vec<_> = report.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["/cameras/0/fov", "/cameras/1", "/main/near"]);
}

#[test]
fn a_required_field_without_default_fails_its_struct_softly() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Strict {
        id: u32,
    }
    #[derive(Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Outer {
        list: Vec<Strict>,
        count: u8,
    }
    let (outer, report) =
        Options::new().load_str::<Outer>(r#"{"list": [{"id": 1}, {"other": 2}, {"id": "x"}], "count": 3}"#).unwrap();
    // The second element misses `id`: it is dropped. The third can't load `id` and has no default
    // to keep, so it takes the zero value (the one-pass placeholder) rather than failing.
    assert_eq!(outer.count, 3);
    assert_eq!(outer.list[0], Strict { id: 1 });
    assert!(report.issues.iter().any(|i| i.path == "/list/1"), "{report}");
    let err = serde_o3de::from_str::<Strict>(r#"{"other": 1}"#).unwrap_err();
    assert_eq!(err.category(), Category::Data);
}

#[test]
fn a_root_that_cannot_be_converted_keeps_its_value_with_load_into() {
    let mut color = Color::new(0.1, 0.2, 0.3, 0.4);
    let report = Options::new().load_into(&mut color, r#""red""#).unwrap();
    assert_eq!(report.outcome(), Outcome::Unsupported);
    assert_eq!(color, Color::new(0.1, 0.2, 0.3, 0.4));
    let mut n = 5i32;
    Options::new().load_into(&mut n, r#""five""#).unwrap();
    assert_eq!(n, 5);
    // Plain loads hand back the zero value instead.
    assert_eq!(serde_o3de::from_str::<i32>(r#""five""#).unwrap(), 0);
}

#[test]
fn callbacks_see_every_issue_once_and_can_halt() {
    let mut seen = Vec::new();
    let (camera, report) = Options::new()
        .load_str_with::<Camera>(r#"{"fov": "x", "near": {}, "unknown": 1}"#, |issue| {
            seen.push((issue.path.clone(), issue.outcome()));
            issue.result
        })
        .unwrap();
    assert_eq!(camera, Camera::default());
    assert_eq!(
        seen,
        [
            ("/fov".into(), Outcome::Unsupported),
            ("/near".into(), Outcome::DefaultsUsed),
            ("/unknown".into(), Outcome::Skipped)
        ]
    );
    assert_eq!(report.issues.len(), 3);

    // Replacing a failure with Success changes the result, not the value.
    let (_, report) = Options::new()
        .load_str_with::<Camera>(r#"{"fov": "x"}"#, |_| ResultCode::new(Task::Convert, Outcome::Success))
        .unwrap();
    assert_eq!(report.processing(), Processing::Completed);

    let err = Options::new()
        .load_str_with::<Camera>(r#"{"far": 1, "fov": "x"}"#, |_| ResultCode::new(Task::Convert, Outcome::Catastrophic))
        .unwrap_err();
    assert_eq!(err.outcome(), Some(Outcome::Catastrophic));
    assert_eq!(err.path(), Some("/fov"));
}

#[test]
fn errors_carry_json_pointer_paths_and_positions() {
    let err =
        serde_o3de::from_str::<BTreeMap<String, Vec<Camera>>>("{\n  \"a/b\": [ {\"fov\": 1,, } ]\n}").unwrap_err();
    assert!(err.is_syntax());
    assert_eq!(err.path(), Some("/a~1b/0"));
    assert_eq!((err.line(), err.column()), (Some(2), Some(22)));
    let err = serde_o3de::from_str::<Value>("[1] 2").unwrap_err();
    assert!(err.to_string().contains("trailing"), "{err}");
    assert!(serde_o3de::from_slice::<Value>(b"\"\xFF\"").unwrap_err().is_syntax());
    assert!(serde_o3de::from_str::<Value>("[1").unwrap_err().is_eof());
}

#[test]
fn error_paths_match_with_and_without_reports() {
    // Plain loads find the path of an error in the input; reporting loads keep it as they go.
    for text in [
        r#"{"a": {"b": [1, 2, {"c": tru}]}}"#,
        r#"{"x": 1, "y": [[], [0, {"z~/": "\q"}]]}"#,
        r#"{"k": [1, 2,, 3]}"#,
        r#"{"unknown": {"deep": [1, 2, oops]}}"#,
        r#"{"a": [1 2]}"#,
        r#"{"a": 1 "b": 2}"#,
        r#"[{"a": [[1], [2]]}, {"b": "x" ]"#,
        r#"{"a": {"b": 1}, "c": [true, {"d": nul}]}"#,
    ] {
        let plain = serde_o3de::from_str::<Value>(text).unwrap_err();
        let reported = Options::new().load_str::<Value>(text).unwrap_err();
        assert_eq!(plain.path(), reported.path(), "{text}");
        assert_eq!(plain.offset(), reported.offset(), "{text}");
    }
    let e = serde_o3de::from_str::<Value>(r#"{"x": 1, "y": [[], [0, {"z~/": "\q"}]]}"#).unwrap_err();
    assert_eq!(e.path(), Some("/y/1/1/z~0~1"));
}

#[test]
fn from_value_follows_the_same_rules() {
    let value = json!({"FOV": "45", "near": {}, "far": [1], "tags": ["a", 2, null]});
    let (from_value, r1) = Options::new().load_value::<Camera>(&value).unwrap();
    let (from_text, r2) = Options::new().load_str::<Camera>(&value.to_string()).unwrap();
    assert_eq!(from_value, from_text);
    assert_eq!(from_value.fov, 45.0);
    assert_eq!(from_value.tags, ["a", "2"]);
    assert_eq!(r1, r2);
}

#[test]
fn dynamic_values_are_read_literally() {
    let v: Value =
        serde_o3de::from_str(r#"{"a": {}, "b": [0, "1", true], "c": 18446744073709551615, "d": -1.5e-7}"#).unwrap();
    assert_eq!(v, json!({"a": {}, "b": [0, "1", true], "c": 18446744073709551615u64, "d": -1.5e-7}));
}

#[test]
fn settings_registry_files_with_comments() {
    let text = include_str!("data/other_json/splash_screen.setreg");
    assert!(serde_o3de::from_str::<Value>(text).unwrap_err().is_syntax());
    let v: Value = serde_o3de::setreg::from_str(text).unwrap();
    assert_eq!(v.pointer("/O3DE/Atom/Feature/SplashScreen/DurationSeconds"), Some(&json!(10.0)));

    let mut registry = serde_o3de::setreg::SettingsRegistry::new();
    registry.merge_str(text).unwrap();
    registry.merge_str(include_str!("data/other_json/prefab.editor.setreg")).unwrap();
    assert_eq!(registry.get::<bool>("/O3DE/Atom/Feature/SplashScreenEnable").unwrap(), Some(false));
    assert_eq!(registry.get::<bool>("/O3DE/Preferences/Prefabs/EnableOutlinerOverrideManagement").unwrap(), Some(true));
    let stack = registry.value("/Amazon/Tools/Prefab/Processing/Stack/IntegrationTests").unwrap();
    assert_eq!(stack.as_array().unwrap().len(), 2);
}

#[test]
fn material_file_colors() {
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct Material {
        material_type: String,
        material_type_version: u32,
        property_values: BTreeMap<String, serde_o3de::RawJson>,
    }
    let m: Material = serde_o3de::from_str(include_str!("data/other_json/002_BaseColorLerp.material")).unwrap();
    assert!(m.material_type.ends_with("StandardPBR.materialtype"));
    assert_eq!(m.material_type_version, 5);
    let color: Color = m.property_values["baseColor.color"].parse().unwrap();
    assert!((color.r - 0.254_154_26).abs() < 1e-6 && color.a == 1.0);
    let factor: f32 = m.property_values["baseColor.factor"].parse().unwrap();
    assert_eq!(factor, 0.75);
}

#[test]
fn vector_objects_use_exact_axis_names() {
    let mut v = Vector3::new(1.0, 2.0, 3.0);
    let loaded = v.load_json(&json!({"Xx": 9, "x": 4, "Z": 6}));
    assert_eq!(v, Vector3::new(4.0, 2.0, 6.0));
    assert_eq!(loaded.result.outcome(), Outcome::PartialDefaults);
}
