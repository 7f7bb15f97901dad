//! Everything configurable, in one `Copy` value. Only the settings: the methods that encode and
//! decode with them live with the work, in `ser` and `de`.

use crate::VariantType;

/// Which engine generation's wire format to speak.
///
/// The two differ in type numbering from type 6 up (Godot 4 added Vector2i, Rect2i, Vector3i,
/// Vector4, Vector4i, Projection, StringName, Callable, Signal and the 64-bit and Vector4 packed
/// arrays), in typed containers (Godot 4.x only) and in 64-bit math payloads (Godot 4
/// double-precision builds). Everything else — framing, string padding, integer and float width
/// rules — is the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Version {
    /// Godot 4.x (`var_to_bytes`, `bytes_to_var`). The default.
    #[default]
    Godot4,
    /// Godot 3.x (`var2bytes`, `bytes2var`). Godot 4-only types are refused when encoding and do
    /// not exist when decoding.
    Godot3,
}

impl Version {
    /// The other generation, and the hint an error gets when its bytes decode as that one's.
    pub(crate) fn other_with_hint(self) -> (Version, &'static str) {
        match self {
            Version::Godot4 => (
                Version::Godot3,
                "these bytes decode as Godot 3's: were they written by Godot 3? Use Options::version(Version::Godot3)",
            ),
            Version::Godot3 => (
                Version::Godot4,
                "these bytes decode as Godot 4's: were they written by Godot 4? Use Options::version(Version::Godot4)",
            ),
        }
    }
}

/// How a Rust struct (and a struct variant's body) is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StructForm {
    /// A Dictionary keyed by the field names as Strings — what GDScript reads as `msg["hp"]`. The
    /// default.
    #[default]
    Dictionary,
    /// An Array of the field values in declaration order — smaller and faster, read in GDScript as
    /// `msg[0]`. Like bincode and postcard, it relies on both sides agreeing on the field order,
    /// and `#[serde(skip_serializing_if)]` cannot be used with it.
    Array,
}

/// How a unit enum variant (`enum Team { Red, Blue }`) is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnitVariants {
    /// The variant name as a String (`"Blue"`). The default.
    #[default]
    Name,
    /// The variant index as an int (`1`), which matches a GDScript `enum` declared in the same
    /// order.
    Index,
}

/// Encoding and decoding settings.
///
/// ```
/// use serde_godot::{Options, StructForm, Version};
///
/// let opts = Options::new().version(Version::Godot3).struct_form(StructForm::Array);
/// let bytes = opts.to_vec(&(1, "two"))?;
/// assert_eq!(bytes[0], 19); // ARRAY is type 19 in Godot 3 (28 in Godot 4)
/// let back: (i32, String) = opts.from_slice(&bytes)?;
/// assert_eq!(back, (1, "two".to_owned()));
/// # Ok::<(), serde_godot::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Options {
    pub(crate) version: Version,
    pub(crate) struct_form: StructForm,
    pub(crate) unit_variants: UnitVariants,
    pub(crate) typed_containers: bool,
    pub(crate) full_objects: bool,
    pub(crate) ids_as_integers: bool,
    /// The header id of a struct: DICTIONARY or ARRAY by `struct_form`, in `version`'s
    /// numbering. Worked out when either is set, so that the encoder loads it where it opens a
    /// struct (on every call) instead of choosing by both. A function of the two, so it changes
    /// nothing in comparisons.
    pub(crate) struct_header: u8,
    pub(crate) max_depth: usize,
    pub(crate) max_len: usize,
    pub(crate) max_size: usize,
}

// Written out to leave `struct_header` out: it is derived from `version` and `struct_form`.
impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every field named (no `..`), so that a field added to `Options` does not compile
        // until it is printed here or left out on purpose.
        let Options {
            version,
            struct_form,
            unit_variants,
            typed_containers,
            full_objects,
            ids_as_integers,
            struct_header: _,
            max_depth,
            max_len,
            max_size,
        } = self;
        f.debug_struct("Options")
            .field("version", version)
            .field("struct_form", struct_form)
            .field("unit_variants", unit_variants)
            .field("typed_containers", typed_containers)
            .field("full_objects", full_objects)
            .field("ids_as_integers", ids_as_integers)
            .field("max_depth", max_depth)
            .field("max_len", max_len)
            .field("max_size", max_size)
            .finish()
    }
}

/// The header id of a struct written in `form` by `version`.
const fn struct_header(version: Version, form: StructForm) -> u8 {
    let ty = match form {
        StructForm::Dictionary => VariantType::Dictionary,
        StructForm::Array => VariantType::Array,
    };
    match ty.id(version) {
        Some(id) => id as u8,
        None => panic!("every version has Dictionary and Array"),
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

/// Godot's `Variant::MAX_RECURSION_DEPTH`.
pub(crate) const DEFAULT_MAX_DEPTH: usize = 1024;
/// Godot's lengths and counts are 31-bit.
pub(crate) const GODOT_MAX_LEN: usize = i32::MAX as usize;
/// Godot's default `PacketPeer.encode_buffer_max_size` (8 MiB).
pub(crate) const DEFAULT_MAX_SIZE: usize = 8 << 20;

impl Options {
    /// The defaults: Godot 4, structs as Dictionaries with String keys, unit variants by name,
    /// untyped containers, no full objects, depth limit 1024 (Godot's), lengths up to Godot's
    /// `i32::MAX`, and an 8 MiB limit (Godot's default packet buffer) on what
    /// [`from_reader`](Options::from_reader) and the framing helpers accept.
    pub const fn new() -> Self {
        Options {
            version: Version::Godot4,
            struct_form: StructForm::Dictionary,
            unit_variants: UnitVariants::Name,
            typed_containers: false,
            full_objects: false,
            ids_as_integers: false,
            struct_header: struct_header(Version::Godot4, StructForm::Dictionary),
            max_depth: DEFAULT_MAX_DEPTH,
            max_len: GODOT_MAX_LEN,
            max_size: DEFAULT_MAX_SIZE,
        }
    }

    /// The Godot generation to speak (default [`Version::Godot4`]).
    pub const fn version(mut self, version: Version) -> Self {
        self.version = version;
        self.struct_header = struct_header(version, self.struct_form);
        self
    }

    /// How structs are written (default [`StructForm::Dictionary`]). Decoding accepts both forms
    /// whatever this says.
    pub const fn struct_form(mut self, form: StructForm) -> Self {
        self.struct_form = form;
        self.struct_header = struct_header(self.version, form);
        self
    }

    /// How unit enum variants are written (default [`UnitVariants::Name`]). Decoding accepts both
    /// forms whatever this says.
    pub const fn unit_variants(mut self, form: UnitVariants) -> Self {
        self.unit_variants = form;
        self
    }

    /// Whether typed [`Array<T>`](crate::Array) / [`Dictionary<K, V>`](crate::Dictionary) (and typed
    /// containers inside a [`Variant`](crate::Variant)) get Godot 4.x typed-container headers.
    ///
    /// Off by default: Godot 3 and Godot 4 releases before typed containers reject such headers,
    /// while every version reads untyped containers. Ignored in Godot 3 mode, which has no typed
    /// containers. Decoding always accepts typed headers.
    pub const fn typed_containers(mut self, on: bool) -> Self {
        self.typed_containers = on;
        self
    }

    /// Whether full objects (a class name and its properties, Godot's `full_objects` /
    /// `allow_objects`) may be decoded and encoded (default off).
    ///
    /// Godot instantiates such objects — and their scripts — on decode, which is why
    /// `bytes_to_var` refuses them unless asked. serde-godot never instantiates anything, but
    /// refuses them by default too: a server that doesn't expect objects should not accept them,
    /// and should never send them to clients. Object *ids* (`EncodedObjectAsID`) are always fine.
    pub const fn full_objects(mut self, on: bool) -> Self {
        self.full_objects = on;
        self
    }

    /// Whether an object id (`EncodedObjectAsID`) or an RID on the wire may be decoded into a
    /// plain integer or float field (default off: a `u64` field that receives an object is an
    /// error, as the sender most likely sent something else than the field expects).
    ///
    /// The [`ObjectId`](crate::ObjectId) and [`Rid`](crate::Rid) types, [`Variant`](crate::Variant)
    /// and self-describing targets (`deserialize_any`, e.g. `serde_json::Value`) always accept
    /// them.
    pub const fn ids_as_integers(mut self, on: bool) -> Self {
        self.ids_as_integers = on;
        self
    }

    /// The deepest nesting of Arrays, Dictionaries and object properties accepted when decoding
    /// and produced when encoding (default 1024, Godot's `MAX_RECURSION_DEPTH`; the top-level value
    /// is depth 0). Exceeding it is an error, never a stack overflow.
    pub const fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// The largest declared length accepted when decoding: element count of an Array, Dictionary
    /// or packed array, byte length of a string, name count of a NodePath (default `i32::MAX`,
    /// Godot's own limit).
    ///
    /// Independently of this, the decoder never reserves memory for elements that the input
    /// cannot hold: each container reserves only from a stretch of the input that no other
    /// container has claimed, so a hostile count — even repeated at every nesting level — cannot
    /// make it allocate.
    pub const fn max_len(mut self, len: usize) -> Self {
        self.max_len = len;
        self
    }

    /// The largest encoded value, in bytes, that [`from_reader`](Options::from_reader), the
    /// framing helpers and the tokio codec accept or produce (default 8 MiB, like Godot's
    /// `PacketPeer.encode_buffer_max_size`). Slices passed to `from_slice` are already in memory
    /// and are not checked against it.
    pub const fn max_size(mut self, bytes: usize) -> Self {
        self.max_size = bytes;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Debug` prints every setting, each as set (the derived `struct_header` is left out).
    #[test]
    fn debug_prints_every_setting() {
        let opts = Options::new()
            .version(Version::Godot3)
            .struct_form(StructForm::Array)
            .unit_variants(UnitVariants::Index)
            .typed_containers(true)
            .full_objects(true)
            .ids_as_integers(true)
            .max_depth(7)
            .max_len(8)
            .max_size(9);
        assert_eq!(
            format!("{opts:?}"),
            "Options { version: Godot3, struct_form: Array, unit_variants: Index, typed_containers: true, \
             full_objects: true, ids_as_integers: true, max_depth: 7, max_len: 8, max_size: 9 }"
        );
    }
}
