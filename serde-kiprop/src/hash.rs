//! The two hashes of the format: KingsIsle's `string_id` (type tags) and the masked `djb2`
//! (property names), and the property tag that combines them.

/// KingsIsle's string hash, used for type tags: `string_id("class Foo")` is the tag of class `Foo`.
///
/// For each byte `c` at index `i`, the state is XORed with `(c - 32)` (as a 32-bit two's-complement
/// value) rotated left by `5·i mod 32`; the result is the absolute value of the state read as `i32`.
///
/// ```
/// assert_eq!(serde_kiprop::hash::string_id(b"std::string"), 1497788074);
/// assert_eq!(serde_kiprop::hash::string_id(b"class Matrix3x3"), 1479974833);
/// ```
pub const fn string_id(bytes: &[u8]) -> u32 {
    let mut state: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let v = (bytes[i] as i32 - 32) as u32;
        state ^= v.rotate_left(((5 * i) % 32) as u32);
        i += 1;
    }
    (state as i32).unsigned_abs()
}

/// djb2 with bit 31 cleared, used for property names.
///
/// ```
/// assert_eq!(serde_kiprop::hash::djb2(b"m_packedName"), 307420154);
/// ```
pub const fn djb2(bytes: &[u8]) -> u32 {
    let mut h: u32 = 5381;
    let mut i = 0;
    while i < bytes.len() {
        h = h.wrapping_mul(33).wrapping_add(bytes[i] as u32);
        i += 1;
    }
    h & 0x7FFF_FFFF
}

/// The deep-mode tag of a property: `string_id(type) + djb2(name)` (wrapping).
///
/// ```
/// use serde_kiprop::hash::property_tag;
/// assert_eq!(property_tag("class SharedPointer<class EquipmentSet>", "m_equipmentSetList"), 1788831224);
/// ```
pub const fn property_tag(type_name: &str, property_name: &str) -> u32 {
    string_id(type_name.as_bytes()).wrapping_add(djb2(property_name.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_vectors() {
        assert_eq!(string_id(b"std::string"), 1497788074);
        assert_eq!(string_id(b"class FishTournamentEntry"), 1725212200);
        assert_eq!(string_id(b"class NonCombatMayCastSpellTemplate*"), 920052956);
        assert_eq!(string_id(b"class Matrix3x3"), 1479974833);
        assert_eq!(string_id(b"class EquipmentSetList"), 135649998);
        assert_eq!(djb2(b"m_packedName"), 307420154);
        assert_eq!(property_tag("class SharedPointer<class EquipmentSet>", "m_equipmentSetList"), 1788831224);
    }

    #[test]
    fn control_characters_use_the_rotation_form() {
        // Bytes below 0x20 become negative; the rotate form keeps every bit.
        let v = (0x01i32 - 32) as u32;
        assert_eq!(string_id(&[0x01]), (v as i32).unsigned_abs());
        assert_eq!(string_id(b""), 0);
    }
}
