//! Decoding errors that point: what was found against what was expected, where (offset and
//! field path), and a hint where one can be given.

use serde_godot::Options;

#[test]
fn longer_array_into_fixed_array_says_found_and_expected_counts() {
    let bytes = serde_godot::to_vec(&[1.0f32, 2.0, 3.0]).unwrap();
    let err = serde_godot::from_slice::<[f32; 2]>(&bytes).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
    let err = serde_godot::from_slice::<(f32, f32)>(&bytes).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
    let packed = serde_godot::to_vec(&serde_godot::PackedFloat32Array(vec![1.0, 2.0, 3.0])).unwrap();
    let err = serde_godot::from_slice::<[f32; 2]>(&packed).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
    let strings =
        serde_godot::to_vec(&serde_godot::PackedStringArray(vec!["a".into(), "b".into(), "c".into()])).unwrap();
    let err = Options::new().from_slice::<(String, String)>(&strings).unwrap_err();
    assert!(err.to_string().contains("invalid length 3, expected 2 elements"), "{err}");
}
