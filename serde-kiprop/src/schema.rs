//! Schemas: what the bytes cannot say. A [`TypeList`] holds classes (name, type tag, properties in
//! `id` order with their C++ type, flags, container-ness and enum options). It loads wiztype dumps
//! (v1 and v2 JSON, several merged) or is built from static [`ClassSchema`]s, which is how a Rust
//! program describes its own classes without any type list ([`KiClass`]).

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::codec::{Leaf, Prim, TypeKind, classify};
use crate::error::{Error, ErrorKind, Result};
use crate::hash::{djb2, string_id};
use crate::options::Inclusion;

/// Property flags (`flags` in type lists).
pub mod flags {
    /// Saved to files.
    pub const SAVE: u32 = 1 << 0;
    /// Copied.
    pub const COPY: u32 = 1 << 1;
    /// Public.
    pub const PUBLIC: u32 = 1 << 2;
    /// Sent to clients.
    pub const TRANSMIT: u32 = 1 << 3;
    /// Sent to privileged clients.
    pub const PRIVILEGED_TRANSMIT: u32 = 1 << 4;
    /// Persisted.
    pub const PERSIST: u32 = 1 << 5;
    /// No longer used: skipped in shallow mode by default, never written in deep mode.
    pub const DEPRECATED: u32 = 1 << 6;
    /// Not scriptable.
    pub const NOSCRIPT: u32 = 1 << 7;
    /// Optional in shallow mode: a presence bit precedes the value.
    pub const DELTA_ENCODE: u32 = 1 << 8;
    /// Binary blob.
    pub const BLOB: u32 = 1 << 9;
    /// Editor hint: not editable.
    pub const NOEDIT: u32 = 1 << 16;
    /// Editor hint: a file name.
    pub const FILENAME: u32 = 1 << 17;
    /// Editor hint: a color.
    pub const COLOR: u32 = 1 << 18;
    /// Editor hint: constrained value.
    pub const CONSTRAINED_VALUE: u32 = 1 << 19;
    /// A bit-flag enum (values combine with `|`).
    pub const BITS: u32 = 1 << 20;
    /// An enum.
    pub const ENUM: u32 = 1 << 21;
    /// Editor hint: localized.
    pub const LOCALIZED: u32 = 1 << 22;
    /// Editor hint: string key.
    pub const STRING_KEY: u32 = 1 << 23;
    /// Editor hint: object id.
    pub const OBJECT_ID: u32 = 1 << 24;
    /// Editor hint: reference id.
    pub const REFERENCE_ID: u32 = 1 << 25;
    /// Editor hint: radians.
    pub const RADIANS: u32 = 1 << 26;
    /// Editor hint: object name.
    pub const OBJECT_NAME: u32 = 1 << 27;
    /// Editor hint: has a base class.
    pub const HAS_BASECLASS: u32 = 1 << 28;
    /// Editor hint: a behavior.
    pub const IS_BEHAVIOR: u32 = 1 << 29;
    /// Editor hint: an asset.
    pub const ASSET: u32 = 1 << 30;
    /// The flags of a property in a static schema unless set otherwise:
    /// `SAVE | COPY | PUBLIC | TRANSMIT | PRIVILEGED_TRANSMIT`.
    pub const DEFAULT: u32 = SAVE | COPY | PUBLIC | TRANSMIT | PRIVILEGED_TRANSMIT;
}

/// Hasher for keys that are already hashes (type tags, property tags): multiply-shift with a
/// random odd multiplier per map. Tags come from type lists and data, so an attacker may choose
/// them; with a multiplier they cannot know, they cannot make them share buckets (a fixed
/// multiplier would map tags that agree in their low bits to the same bucket).
#[derive(Clone, Copy)]
pub(crate) struct TagHasher {
    mul: u64,
    state: u64,
}

impl Hasher for TagHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.state
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.state = ((self.state ^ u64::from(*b)).wrapping_mul(self.mul)).rotate_left(32);
        }
    }
    #[inline(always)]
    fn write_u32(&mut self, v: u32) {
        // The high half of the product (multiply-shift) goes to the low bits, which pick the bucket.
        self.state = (u64::from(v) ^ self.state).wrapping_mul(self.mul).rotate_left(32);
    }
}

/// The per-map random multiplier of [`TagHasher`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct TagState {
    mul: u64,
}

impl Default for TagState {
    fn default() -> Self {
        use std::hash::BuildHasher;
        // std's RandomState gives fresh random keys per map (cheaply, from per-thread seeds).
        let seed = std::collections::hash_map::RandomState::new().hash_one(0x6b69_7072_6f70_u64);
        TagState { mul: seed | 1 }
    }
}

impl std::hash::BuildHasher for TagState {
    type Hasher = TagHasher;
    #[inline(always)]
    fn build_hasher(&self) -> TagHasher {
        TagHasher { mul: self.mul, state: 0 }
    }
}

pub(crate) type TagMap<V> = HashMap<u32, V, TagState>;

/// The address and length of the last `&'static str` (a serde field or struct name) that matched
/// a name, so the next lookup with the same static string skips the string comparison. Only ever
/// filled from `'static` strings, whose memory cannot be reused for other text. The length is part
/// of the key: two static strings may start at the same address (one a prefix of the other).
#[derive(Debug, Default)]
pub(crate) struct StaticKey(AtomicU64);

impl StaticKey {
    /// `(address << 16) | length` in one word, so one atomic load compares both; `None` (never
    /// cached) for the addresses above 2^48 or names of 64 KiB and more that do not fit.
    #[inline(always)]
    fn pack(key: &'static str) -> Option<u64> {
        let (addr, len) = (key.as_ptr() as usize as u64, key.len() as u64);
        (addr >> 48 == 0 && len >> 16 == 0).then_some(addr << 16 | len)
    }

    #[inline(always)]
    pub(crate) fn matches(&self, key: &'static str) -> bool {
        Self::pack(key).is_some_and(|k| self.0.load(Ordering::Relaxed) == k)
    }

    #[inline]
    pub(crate) fn remember(&self, key: &'static str) {
        if let Some(k) = Self::pack(key) {
            self.0.store(k, Ordering::Relaxed);
        }
    }
}

impl Clone for StaticKey {
    fn clone(&self) -> Self {
        StaticKey::default()
    }
}

/// [`StaticKey`] for one fixed name (a property's, an enum option's): the address of the last
/// `&'static str` found equal to the name, and the name's length. Only a string equal to the name
/// is remembered, so a static string at that address with that length has the same bytes; the
/// test is an address and a length compare, with no packing. The address is 0 until something
/// matched (a `&str`'s pointer is never null).
#[derive(Debug)]
pub(crate) struct NameKey {
    addr: AtomicUsize,
    len: usize,
}

impl NameKey {
    /// A key for a name of `len` bytes, remembering nothing yet.
    pub(crate) fn new(len: usize) -> Self {
        NameKey { addr: AtomicUsize::new(0), len }
    }

    #[inline(always)]
    pub(crate) fn matches(&self, key: &'static str) -> bool {
        key.len() == self.len && self.addr.load(Ordering::Relaxed) == key.as_ptr() as usize
    }

    /// Remembers `key`, which the caller found equal to the name.
    #[inline]
    pub(crate) fn remember(&self, key: &'static str) {
        debug_assert_eq!(key.len(), self.len);
        if key.len() == self.len {
            self.addr.store(key.as_ptr() as usize, Ordering::Relaxed);
        }
    }
}

impl Clone for NameKey {
    fn clone(&self) -> Self {
        NameKey::new(self.len)
    }
}

/// The address of the last `&'static [&'static str]` (a serde struct's `FIELDS` or an enum's
/// `VARIANTS`) found to name exactly a class's properties or an enum's options, in order. The
/// deserializer then hands serde the index instead of the name, which the derived identifier
/// visitors take without comparing strings. The list's length is checked on every use, so the
/// address and length together name the same `'static` memory that was verified.
#[derive(Debug, Default)]
pub(crate) struct StaticList(AtomicUsize);

impl StaticList {
    /// Whether `names` (of length `len`) is the verified list; `verify` runs on a miss.
    #[inline(always)]
    fn check(&self, names: &'static [&'static str], len: usize, verify: impl FnOnce() -> bool) -> bool {
        if names.len() != len {
            return false;
        }
        let addr = names.as_ptr() as usize;
        if self.0.load(Ordering::Relaxed) == addr {
            return true;
        }
        let ok = verify();
        if ok {
            self.0.store(addr, Ordering::Relaxed);
        }
        ok
    }
}

impl Clone for StaticList {
    fn clone(&self) -> Self {
        StaticList::default()
    }
}

/// How a property's value is encoded, resolved from its type string and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Static schema without a type: the Rust type decides (primitives only in deep mode).
    Auto,
    /// A simple value.
    Prim(Prim),
    /// A leaf struct.
    Leaf(Leaf),
    /// An enum: u32 (unaligned) or its name(s) as a string.
    Enum,
    /// An object; the class named by the type string, when the type list has it.
    Object(Option<u32>),
}

/// The options of an enum property.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnumDef {
    /// A bit-flag enum (`BITS` flag): strings are option names joined by `|`.
    pub bits: bool,
    /// (name, value), ascending by value then name (the deterministic order of `A|B|C`).
    pub options: Vec<(String, u32)>,
}

impl EnumDef {
    /// The value of an option name.
    pub fn value_of(&self, name: &str) -> Option<u32> {
        self.options.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// The first option name with this value.
    pub fn name_of(&self, value: u32) -> Option<&str> {
        // Options are sorted by value (then name): direct index for dense enums, else binary search.
        if let Some((n, v)) = self.options.get(value as usize) {
            if *v == value && (value == 0 || self.options[value as usize - 1].1 != value) {
                return Some(n);
            }
        }
        let i = self.options.partition_point(|(_, v)| *v < value);
        self.options.get(i).filter(|(_, v)| *v == value).map(|(n, _)| n.as_str())
    }

    /// The value of a Rust enum's unit variant: tries the option at the variant's index first
    /// (Rust enums usually list the options in value order), then searches by name.
    #[inline]
    pub fn value_of_variant(&self, index: u32, name: &str) -> Option<u32> {
        match self.options.get(index as usize) {
            Some((n, v)) if n == name => Some(*v),
            _ => self.value_of(name),
        }
    }

    /// Parses the string form: a name, or for bit enums names joined by `|` (spaces trimmed; the
    /// empty string is 0).
    pub fn parse(&self, text: &str) -> Option<u32> {
        if self.bits {
            let mut v = 0;
            for part in text.split('|') {
                let part = part.trim();
                if part.is_empty() {
                    continue;
                }
                v |= self.value_of(part)?;
            }
            Some(v)
        } else {
            self.value_of(text.trim())
        }
    }

    /// Formats the string form; bit enums list the single-bit-set options in ascending bit order
    /// joined by `|` (0 is the empty string). `None` if some bits have no name.
    pub fn format(&self, value: u32) -> Option<String> {
        if !self.bits {
            return self.name_of(value).map(str::to_owned);
        }
        let mut out = String::new();
        let mut covered = 0u32;
        for (name, v) in &self.options {
            if *v != 0 && v.is_power_of_two() && value & v != 0 && covered & v == 0 {
                if !out.is_empty() {
                    out.push('|');
                }
                out.push_str(name);
                covered |= v;
            }
        }
        (covered == value).then_some(out)
    }
}

/// [`PropertyDef::slot_bits`]: shallow mode writes a presence bit first (DELTA_ENCODE).
pub(crate) const SLOT_PRESENCE: u8 = 2;
/// [`PropertyDef::slot_bits`]: the property is a container.
pub(crate) const SLOT_CONTAINER: u8 = 16;

/// One property of a class.
#[derive(Debug, Clone)]
pub struct PropertyDef {
    pub(crate) name: String,
    pub(crate) type_name: Option<String>,
    pub(crate) id: u32,
    pub(crate) flags: u32,
    pub(crate) hash: u32,
    pub(crate) name_hash: u32,
    pub(crate) dynamic: bool,
    /// The serializer's slot bits for this property, worked out once: [`SLOT_PRESENCE`] for a
    /// DELTA_ENCODE property (shallow mode), [`SLOT_CONTAINER`] for a container.
    pub(crate) slot_bits: u8,
    /// The serializer's shortcut, worked out once: `Some(p)` when the property is a plain
    /// `p` (`kind` is `Prim(p)`, not a container, not DELTA_ENCODE), so a field of the Rust type
    /// that maps to `p` is written as it is, with nothing before it, in both modes.
    pub(crate) direct: Option<Prim>,
    /// Deep mode's `direct`, worked out once: `Some(p)` when `kind` is `Prim(p)` and the
    /// property is not a container (DELTA_ENCODE or not: deep mode writes no presence bit).
    pub(crate) deep_direct: Option<Prim>,
    /// The serializer's object shortcut, worked out once the classes are resolved: the class
    /// index when the property holds one object of a known class with nothing written before
    /// it, per mode (`[shallow, deep]`: shallow rules out a presence bit and a container, deep a
    /// container).
    pub(crate) plain_class: [Option<u32>; 2],
    pub(crate) kind: Kind,
    /// Deep mode: looking up this property's tag ([`ClassDef::slot_for_tag`]) finds this property
    /// (false for a property without a type, or one whose tag a later property shares).
    pub(crate) owns_tag: bool,
    pub(crate) enum_def: Option<Box<EnumDef>>,
    /// The class named by an object type string (resolved after loading).
    object_class: Option<String>,
    /// The serde field name that last matched this property.
    pub(crate) key: NameKey,
    /// The serde variant names last found to be this enum's options in value order (0, 1, …).
    variants: StaticList,
    /// Per enum option: the serde variant name that last matched it.
    variant_keys: Box<[NameKey]>,
}

impl PropertyDef {
    /// The property name (e.g. `m_name`).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The C++ type string; `None` for a static-schema property whose type comes from the Rust type.
    pub fn type_name(&self) -> Option<&str> {
        self.type_name.as_deref()
    }
    /// The property id (shallow order).
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The property flags (see [`flags`]).
    pub fn flags(&self) -> u32 {
        self.flags
    }
    /// The value of a Rust enum's unit variant (index `index`, name `name`) for this enum
    /// property: the option at the variant's index first (Rust enums usually list the options
    /// in value order; a remembered name address skips the string comparison), else by name.
    #[inline]
    pub(crate) fn variant_value(&self, index: u32, name: &'static str) -> Option<u32> {
        let def = self.enum_def.as_deref()?;
        let i = index as usize;
        if let (Some((n, v)), Some(key)) = (def.options.get(i), self.variant_keys.get(i)) {
            if key.matches(name) {
                return Some(*v);
            }
            if n == name {
                key.remember(name);
                return Some(*v);
            }
        }
        def.value_of(name)
    }

    /// Whether a Rust enum's `variants` are exactly this (non-bit) enum's options with the values
    /// 0, 1, 2, …, so option value `i` is serde variant `i`.
    #[inline(always)]
    pub(crate) fn variants_are_options(&self, variants: &'static [&'static str]) -> bool {
        let Some(def) = self.enum_def.as_deref().filter(|d| !d.bits) else { return false };
        self.variants.check(variants, def.options.len(), || {
            variants.iter().zip(&def.options).enumerate().all(|(i, (v, (n, x)))| v == n && *x as usize == i)
        })
    }

    /// The deep-mode tag (`string_id(type) + djb2(name)`, or the type list's `hash`); 0 when the type is not known.
    pub fn hash(&self) -> u32 {
        self.hash
    }
    /// Whether the property is a container (length prefix + elements).
    pub fn is_dynamic(&self) -> bool {
        self.dynamic
    }
    /// The enum options, for enum properties.
    pub fn enum_def(&self) -> Option<&EnumDef> {
        self.enum_def.as_deref()
    }
    pub(crate) fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }
}

/// A deep-mode lookup result: which property a tag belongs to and how to decode it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TagSlot {
    pub(crate) prop: u32,
    pub(crate) kind: Kind,
}

/// One class: name, type tag and properties in `id` order.
#[derive(Debug, Clone)]
pub struct ClassDef {
    pub(crate) name: String,
    pub(crate) hash: u32,
    pub(crate) bases: Vec<String>,
    pub(crate) props: Vec<PropertyDef>,
    pub(crate) by_tag: TagMap<TagSlot>,
    by_name: HashMap<String, u32>,
    /// The serde struct name that last resolved to this class.
    pub(crate) rust_name: StaticKey,
    /// The serde field list last found to name exactly these properties, in id order.
    rust_fields: StaticList,
    /// Whether every property passes a shallow-mode inclusion test, for the last inclusion
    /// asked about: `key << 1 | answer` ([`Inclusion::key`] is never 0, so 0 is "not known").
    all_included: InclusionCache,
    /// Whether a property is DELTA_ENCODE (shallow data may then leave it out).
    pub(crate) has_delta: bool,
    /// Whether a property is DEPRECATED (deep data may then leave it out, see
    /// `Options::skip_deprecated`).
    pub(crate) has_deprecated: bool,
    /// Whether every property has a declared type (deep data then names each by one tag).
    pub(crate) typed: bool,
    /// Deep mode may read an object of this class as a plain one (no DELTA_ENCODE property, every
    /// property typed, a nonzero tag; see `Deserializer::deep_plain_ahead`): one test for the three.
    pub(crate) deep_plain: bool,
}

/// See [`ClassDef::all_included`].
#[derive(Debug, Default)]
struct InclusionCache(AtomicU64);

impl Clone for InclusionCache {
    fn clone(&self) -> Self {
        InclusionCache::default()
    }
}

impl ClassDef {
    /// The full C++ class name, e.g. `class WizItemTemplate`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The type tag.
    pub fn hash(&self) -> u32 {
        self.hash
    }
    /// Base class names as the type list gives them.
    pub fn bases(&self) -> &[String] {
        &self.bases
    }
    /// Properties in ascending `id` order.
    pub fn properties(&self) -> &[PropertyDef] {
        &self.props
    }
    /// A property by name.
    pub fn property(&self, name: &str) -> Option<&PropertyDef> {
        self.find(name, 0).map(|i| &self.props[i])
    }

    /// Index of the property called `name`, trying `hint` first (fields usually arrive in order).
    #[inline]
    pub(crate) fn find(&self, name: &str, hint: usize) -> Option<usize> {
        if let Some(p) = self.props.get(hint) {
            if p.name == name {
                return Some(hint);
            }
        }
        if self.props.len() <= 8 {
            return self.props.iter().position(|p| p.name == name);
        }
        self.by_name.get(name).map(|i| *i as usize)
    }

    /// [`find`](Self::find) for serde's static field names, remembering matches by address.
    #[inline]
    pub(crate) fn find_static(&self, name: &'static str, hint: usize) -> Option<usize> {
        if let Some(p) = self.props.get(hint) {
            if p.key.matches(name) {
                return Some(hint);
            }
        }
        let i = self.find(name, hint)?;
        self.props[i].key.remember(name);
        Some(i)
    }

    /// Whether a serde struct's `fields` are exactly this class's property names in id order, so
    /// property `i` is serde field `i`. (A struct whose serde aliases are themselves property
    /// names of the class could pass without being such a struct: serde lists aliases among the
    /// fields. Nothing else can.)
    #[inline(always)]
    pub(crate) fn fields_are_props(&self, fields: &'static [&'static str]) -> bool {
        self.rust_fields.check(fields, self.props.len(), || fields.iter().zip(&self.props).all(|(f, p)| *f == p.name))
    }

    /// Whether every property of the class passes `incl` (then shallow mode need not test
    /// property by property). The answer is remembered for the last inclusion asked about; the
    /// key and the answer share one atomic word, so a reader never pairs an answer with another
    /// inclusion's key.
    #[inline(always)]
    pub(crate) fn all_included(&self, incl: &Inclusion) -> bool {
        let cached = self.all_included.0.load(Ordering::Relaxed);
        if cached >> 1 == incl.key() {
            return cached & 1 != 0;
        }
        self.all_included_slow(*incl)
    }

    #[inline(never)]
    fn all_included_slow(&self, incl: Inclusion) -> bool {
        let all = self.props.iter().all(|p| incl.test(p.flags));
        self.all_included.0.store(incl.key() << 1 | u64::from(all), Ordering::Relaxed);
        all
    }

    /// The property a deep-mode tag belongs to, trying `hint` first.
    #[inline]
    pub(crate) fn slot_for_tag(&self, tag: u32, hint: usize) -> Option<TagSlot> {
        if let Some(p) = self.props.get(hint) {
            if p.hash == tag && p.kind != Kind::Auto {
                return Some(TagSlot { prop: hint as u32, kind: p.kind });
            }
        }
        self.by_tag.get(&tag).copied()
    }

    fn build(name: String, hash: u32, bases: Vec<String>, mut props: Vec<PropertyDef>) -> Self {
        props.sort_by_key(|p| p.id);
        let mut by_tag = TagMap::default();
        let mut by_name = HashMap::new();
        for (i, p) in props.iter().enumerate() {
            by_name.entry(p.name.clone()).or_insert(i as u32);
            match p.kind {
                Kind::Auto => {
                    // Any simple or leaf type is possible: index every candidate tag.
                    for (type_name, prim) in AUTO_TYPES {
                        let tag = string_id(type_name.as_bytes()).wrapping_add(p.name_hash);
                        by_tag.entry(tag).or_insert(TagSlot { prop: i as u32, kind: Kind::Prim(prim) });
                    }
                    for leaf in Leaf::ALL {
                        let tag = string_id(leaf.type_name().as_bytes()).wrapping_add(p.name_hash);
                        by_tag.entry(tag).or_insert(TagSlot { prop: i as u32, kind: Kind::Leaf(leaf) });
                    }
                }
                kind => {
                    by_tag.insert(p.hash, TagSlot { prop: i as u32, kind });
                }
            }
        }
        for (i, p) in props.iter_mut().enumerate() {
            p.owns_tag = p.kind != Kind::Auto && by_tag.get(&p.hash).is_some_and(|s| s.prop as usize == i);
        }
        let has_delta = props.iter().any(|p| p.has(flags::DELTA_ENCODE));
        let has_deprecated = props.iter().any(|p| p.has(flags::DEPRECATED));
        let typed = props.iter().all(|p| p.kind != Kind::Auto);
        ClassDef {
            name,
            hash,
            bases,
            has_delta,
            has_deprecated,
            typed,
            deep_plain: !has_delta && typed && hash != 0,
            props,
            by_tag,
            by_name,
            rust_name: StaticKey::default(),
            rust_fields: StaticList::default(),
            all_included: InclusionCache::default(),
        }
    }
}

/// The type strings a static-schema property without a type may turn out to have in deep mode
/// (the Rust type decides when writing; the tag tells when reading).
pub(crate) const AUTO_TYPES: [(&str, Prim); 28] = [
    ("bool", Prim::Bool),
    ("char", Prim::I8),
    ("unsigned char", Prim::U8),
    ("short", Prim::I16),
    ("unsigned short", Prim::U16),
    ("int", Prim::I32),
    ("unsigned int", Prim::U32),
    ("__int64", Prim::I64),
    ("unsigned __int64", Prim::U64),
    ("gid", Prim::U64),
    ("float", Prim::F32),
    ("double", Prim::F64),
    ("std::string", Prim::Str),
    ("std::wstring", Prim::WStr),
    ("bi2", Prim::SBits(2)),
    ("bi3", Prim::SBits(3)),
    ("bi4", Prim::SBits(4)),
    ("bi5", Prim::SBits(5)),
    ("bi6", Prim::SBits(6)),
    ("bi7", Prim::SBits(7)),
    ("s24", Prim::SBits(24)),
    ("bui2", Prim::UBits(2)),
    ("bui3", Prim::UBits(3)),
    ("bui4", Prim::UBits(4)),
    ("bui5", Prim::UBits(5)),
    ("bui6", Prim::UBits(6)),
    ("bui7", Prim::UBits(7)),
    ("u24", Prim::UBits(24)),
];

/// The classes a serializer and deserializer know: loaded from wiztype JSON dumps, built from
/// static schemas, or both.
///
/// ```
/// use serde_kiprop::TypeList;
/// let json = r#"{"version": 2, "classes": {"135649998": {"name": "class EquipmentSetList",
///   "bases": ["PropertyClass"], "hash": 135649998, "properties": {"m_equipmentSetList": {
///   "type": "class SharedPointer<class EquipmentSet>", "id": 0, "offset": 72, "flags": 31,
///   "container": "List", "dynamic": true, "singleton": false, "pointer": true, "hash": 1788831224}}}}}"#;
/// let types = TypeList::from_json(json)?;
/// let class = types.class_by_name("class EquipmentSetList").unwrap();
/// assert_eq!(class.hash(), 135649998);
/// assert_eq!(class.properties()[0].hash(), 1788831224);
/// # Ok::<(), serde_kiprop::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct TypeList {
    classes: Vec<ClassDef>,
    by_hash: TagMap<u32>,
    by_name: HashMap<String, u32>,
}

impl TypeList {
    /// An empty list.
    pub fn new() -> Self {
        TypeList::default()
    }

    /// Loads a wiztype dump: v1 (`{"class Name": {...}}`) or v2 (`{"version": 2, "classes":
    /// {"<hash>": {"name": ..., ...}}}`).
    pub fn from_json(json: &str) -> Result<Self> {
        let mut list = TypeList::new();
        list.merge_json(json)?;
        Ok(list)
    }

    /// Loads and merges several dumps (later classes replace earlier ones with the same tag).
    pub fn from_json_many<'a>(jsons: impl IntoIterator<Item = &'a str>) -> Result<Self> {
        let mut list = TypeList::new();
        for json in jsons {
            list.merge_json_unresolved(json)?;
        }
        // Object properties are resolved once at the end, not after every dump.
        list.resolve_objects();
        Ok(list)
    }

    /// Loads a wiztype dump from a file (like katsuba's `TypeList.open`). Errors name the path.
    ///
    /// ```
    /// let types = serde_kiprop::TypeList::from_path("tests/data/generated/types.json")?;
    /// assert!(types.class_by_name("class KiPropTestRoot").is_some());
    /// # Ok::<(), serde_kiprop::Error>(())
    /// ```
    pub fn from_path(path: impl AsRef<std::path::Path>) -> Result<Self> {
        TypeList::from_paths([path])
    }

    /// Loads and merges several dumps from files (like katsuba's `TypeList.open_many`; later
    /// classes replace earlier ones with the same tag).
    pub fn from_paths<P: AsRef<std::path::Path>>(paths: impl IntoIterator<Item = P>) -> Result<Self> {
        let mut list = TypeList::new();
        for path in paths {
            let path = path.as_ref();
            let bytes = std::fs::read(path).map_err(|e| {
                Error::new(ErrorKind::Io(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))))
            })?;
            let json = String::from_utf8(bytes).map_err(|_| {
                Error::new(ErrorKind::TypeList(format!("{}: not a JSON type list (not UTF-8)", path.display())))
            })?;
            list.merge_json_unresolved(&json).map_err(|e| match e.kind() {
                ErrorKind::TypeList(msg) => Error::new(ErrorKind::TypeList(format!("{}: {msg}", path.display()))),
                _ => e,
            })?;
        }
        list.resolve_objects();
        Ok(list)
    }

    /// Builds a list from static schemas.
    pub fn from_schemas(schemas: &[&ClassSchema]) -> Self {
        let mut list = TypeList::new();
        for s in schemas {
            list.add_schema_unresolved(s);
        }
        list.resolve_objects();
        list
    }

    /// A list holding `T`'s class and the classes it registers ([`KiClass::register`]).
    pub fn of<T: KiClass>() -> Self {
        TypeList::new().with::<T>()
    }

    /// Adds `T`'s class (and what it registers).
    pub fn with<T: KiClass>(mut self) -> Self {
        T::register(&mut self);
        self
    }

    /// Adds a class from a static schema (replacing a class with the same tag).
    pub fn add_schema(&mut self, schema: &ClassSchema) {
        self.add_schema_unresolved(schema);
        self.resolve_objects();
    }

    fn add_schema_unresolved(&mut self, schema: &ClassSchema) {
        let props = schema
            .properties
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let options = (!p.enum_options.is_empty())
                    .then(|| p.enum_options.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect::<Vec<_>>());
                let mut flags = p.flags;
                if options.is_some() && flags & (flags::ENUM | flags::BITS) == 0 {
                    flags |= flags::ENUM;
                }
                make_property(
                    p.name.to_owned(),
                    p.type_name.map(str::to_owned),
                    i as u32,
                    flags,
                    None,
                    p.dynamic,
                    options,
                )
            })
            .collect();
        let hash = string_id(schema.name.as_bytes());
        self.insert(ClassDef::build(schema.name.to_owned(), hash, Vec::new(), props));
    }

    /// Merges every class of `other` into this list.
    pub fn merge(&mut self, other: TypeList) {
        for class in other.classes {
            self.insert(class);
        }
        self.resolve_objects();
    }

    /// Merges a wiztype JSON dump into this list.
    pub fn merge_json(&mut self, json: &str) -> Result<()> {
        self.merge_json_unresolved(json)?;
        self.resolve_objects();
        Ok(())
    }

    fn merge_json_unresolved(&mut self, json: &str) -> Result<()> {
        let root: serde_json::Value =
            serde_json::from_str(json).map_err(|e| Error::new(ErrorKind::TypeList(e.to_string())))?;
        let obj = root.as_object().ok_or_else(|| type_err("the root is not an object"))?;
        if let Some(version) = obj.get("version") {
            if version.as_u64() != Some(2) {
                return Err(type_err(&format!("unsupported version {version}")));
            }
            let classes = obj.get("classes").and_then(|c| c.as_object()).ok_or_else(|| type_err("no classes"))?;
            for (key, class) in classes {
                let name = class.get("name").and_then(|n| n.as_str()).ok_or_else(|| type_err("class without name"))?;
                let fallback = key.parse::<u32>().ok();
                self.insert(parse_class(name, class, fallback)?);
            }
        } else {
            for (name, class) in obj {
                self.insert(parse_class(name, class, None)?);
            }
        }
        Ok(())
    }

    fn insert(&mut self, class: ClassDef) {
        let idx = match self.by_hash.get(&class.hash) {
            Some(&i) => {
                self.classes[i as usize] = class;
                i
            }
            None => {
                self.classes.push(class);
                (self.classes.len() - 1) as u32
            }
        };
        self.by_hash.insert(self.classes[idx as usize].hash, idx);
        let name = self.classes[idx as usize].name.clone();
        if let Some(short) = name.strip_prefix("class ").or_else(|| name.strip_prefix("struct ")) {
            // The full name always wins over a short alias.
            let existing = self.by_name.get(short).copied();
            let keep = existing.is_some_and(|e| self.classes[e as usize].name == short);
            if !keep {
                self.by_name.insert(short.to_owned(), idx);
            }
        }
        self.by_name.insert(name, idx);
    }

    fn resolve_objects(&mut self) {
        let by_name = &self.by_name;
        for class in &mut self.classes {
            for p in &mut class.props {
                if let (Kind::Object(_), Some(target)) = (p.kind, &p.object_class) {
                    p.kind = Kind::Object(by_name.get(target.as_str()).copied());
                }
                p.plain_class = plain_class(p.kind, p.slot_bits);
            }
            for slot in class.by_tag.values_mut() {
                if let Kind::Object(_) = slot.kind {
                    slot.kind = class.props[slot.prop as usize].kind;
                }
            }
        }
    }

    /// Every class.
    pub fn classes(&self) -> &[ClassDef] {
        &self.classes
    }

    /// A class by type tag.
    pub fn class_by_hash(&self, hash: u32) -> Option<&ClassDef> {
        self.by_hash.get(&hash).map(|i| &self.classes[*i as usize])
    }

    /// A class by full name (`class Foo`) or by the name without `class ` (`Foo`).
    pub fn class_by_name(&self, name: &str) -> Option<&ClassDef> {
        self.index_of(name).map(|i| &self.classes[i as usize])
    }

    /// The class name of a type tag (like katsuba's `name_for`).
    pub fn name_for(&self, hash: u32) -> Option<&str> {
        self.class_by_hash(hash).map(|c| c.name.as_str())
    }

    pub(crate) fn index_of(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    pub(crate) fn index_of_hash(&self, hash: u32) -> Option<u32> {
        self.by_hash.get(&hash).copied()
    }

    #[inline]
    pub(crate) fn get(&self, idx: u32) -> &ClassDef {
        &self.classes[idx as usize]
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }
}

fn type_err(msg: &str) -> Error {
    Error::new(ErrorKind::TypeList(msg.to_owned()))
}

/// The class named by an object type string: `class SharedPointer<class X>`, `class X*`,
/// `class X` → `class X`.
fn object_target(type_name: &str) -> String {
    let mut t = type_name.trim();
    for wrapper in ["class SharedPointer<", "SharedPointer<", "class WeakPointer<", "WeakPointer<"] {
        if let Some(inner) = t.strip_prefix(wrapper).and_then(|s| s.strip_suffix('>')) {
            t = inner.trim();
        }
    }
    t.trim_end_matches('*').trim().to_owned()
}

fn make_property(
    name: String,
    type_name: Option<String>,
    id: u32,
    flags: u32,
    hash: Option<u32>,
    dynamic: bool,
    options: Option<Vec<(String, u32)>>,
) -> PropertyDef {
    let name_hash = djb2(name.as_bytes());
    let is_enum = flags & (flags::ENUM | flags::BITS) != 0
        || type_name.as_deref().is_some_and(|t| t.starts_with("enum"))
        || options.is_some();
    let mut object_class = None;
    let kind = match &type_name {
        None => {
            if is_enum {
                Kind::Enum
            } else {
                Kind::Auto
            }
        }
        Some(_) if is_enum => Kind::Enum,
        Some(t) => match classify(t) {
            TypeKind::Prim(p) => Kind::Prim(p),
            TypeKind::Leaf(l) => Kind::Leaf(l),
            TypeKind::Object => {
                object_class = Some(object_target(t));
                Kind::Object(None)
            }
        },
    };
    let hash = hash.unwrap_or_else(|| match &type_name {
        Some(t) => string_id(t.as_bytes()).wrapping_add(name_hash),
        None => 0,
    });
    let enum_def = (kind == Kind::Enum).then(|| {
        let mut options = options.unwrap_or_default();
        options.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        Box::new(EnumDef { bits: flags & flags::BITS != 0, options })
    });
    let variant_keys =
        enum_def.as_ref().map_or_else(Vec::new, |d| d.options.iter().map(|(n, _)| NameKey::new(n.len())).collect());
    let key = NameKey::new(name.len());
    let slot_bits =
        if flags & flags::DELTA_ENCODE != 0 { SLOT_PRESENCE } else { 0 } | if dynamic { SLOT_CONTAINER } else { 0 };
    let direct = match kind {
        Kind::Prim(p) if slot_bits == 0 => Some(p),
        _ => None,
    };
    let deep_direct = match kind {
        Kind::Prim(p) if !dynamic => Some(p),
        _ => None,
    };
    let plain_class = plain_class(kind, slot_bits);
    PropertyDef {
        name,
        type_name,
        id,
        flags,
        hash,
        name_hash,
        dynamic,
        slot_bits,
        direct,
        deep_direct,
        plain_class,
        kind,
        owns_tag: false,
        object_class,
        key,
        variants: StaticList::default(),
        variant_keys: variant_keys.into_boxed_slice(),
        enum_def,
    }
}

/// [`PropertyDef::plain_class`] of a property of `kind` with `slot_bits`.
fn plain_class(kind: Kind, slot_bits: u8) -> [Option<u32>; 2] {
    match kind {
        Kind::Object(Some(c)) => [(slot_bits == 0).then_some(c), (slot_bits & SLOT_CONTAINER == 0).then_some(c)],
        _ => [None, None],
    }
}

fn parse_class(name: &str, class: &serde_json::Value, fallback_hash: Option<u32>) -> Result<ClassDef> {
    let ctx = |what: &str| type_err(&format!("{name}: {what}"));
    let hash = match class.get("hash") {
        Some(h) => h.as_u64().and_then(|h| u32::try_from(h).ok()).ok_or_else(|| ctx("bad hash"))?,
        None => fallback_hash.unwrap_or_else(|| string_id(name.as_bytes())),
    };
    let bases = class
        .get("bases")
        .and_then(|b| b.as_array())
        .map(|b| b.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    let mut props = Vec::new();
    if let Some(map) = class.get("properties") {
        let map = map.as_object().ok_or_else(|| ctx("properties is not an object"))?;
        for (i, (pname, p)) in map.iter().enumerate() {
            let pctx = |what: &str| type_err(&format!("{name}::{pname}: {what}"));
            let ty = p.get("type").and_then(|t| t.as_str()).ok_or_else(|| pctx("no type"))?;
            let id = match p.get("id") {
                Some(id) => id.as_u64().and_then(|v| u32::try_from(v).ok()).ok_or_else(|| pctx("bad id"))?,
                None => i as u32,
            };
            let flags = match p.get("flags") {
                Some(f) => f.as_u64().and_then(|v| u32::try_from(v).ok()).ok_or_else(|| pctx("bad flags"))?,
                None => 0,
            };
            let hash = match p.get("hash") {
                Some(h) => Some(h.as_u64().and_then(|v| u32::try_from(v).ok()).ok_or_else(|| pctx("bad hash"))?),
                None => None,
            };
            let dynamic = p.get("dynamic").and_then(|d| d.as_bool()).unwrap_or(false);
            let options = match p.get("enum_options").and_then(|o| o.as_object()) {
                Some(o) if !o.is_empty() => {
                    let mut opts = Vec::new();
                    for (k, v) in o {
                        if k == "__DEFAULT" || k == "__BASECLASS" {
                            continue;
                        }
                        let value = match v {
                            serde_json::Value::Number(n) => n.as_i64().map(|v| v as u32),
                            serde_json::Value::String(s) => s.trim().parse::<i64>().ok().map(|v| v as u32),
                            _ => None,
                        };
                        let value = value.ok_or_else(|| pctx(&format!("enum option {k} is not a number")))?;
                        opts.push((k.clone(), value));
                    }
                    Some(opts)
                }
                _ => None,
            };
            props.push(make_property(pname.clone(), Some(ty.to_owned()), id, flags, hash, dynamic, options));
        }
    }
    Ok(ClassDef::build(name.to_owned(), hash, bases, props))
}

/// A class described in Rust source, for programs without a type list.
///
/// ```
/// use serde_kiprop::{ClassSchema, PropertySchema, flags};
/// static ITEM: ClassSchema = ClassSchema::new("class Item", &[
///     PropertySchema::new("m_id").ty("gid"),
///     PropertySchema::new("m_name"),                       // std::string from the Rust type
///     PropertySchema::new("m_school").ty("enum School").options(&[("Fire", 2), ("Ice", 4)]),
///     PropertySchema::new("m_note").flags(flags::DEFAULT | flags::DELTA_ENCODE),
/// ]);
/// let types = serde_kiprop::TypeList::from_schemas(&[&ITEM]);
/// assert_eq!(types.class_by_name("Item").unwrap().properties().len(), 4);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ClassSchema {
    /// The full C++ class name (`class Foo`); the type tag is its `string_id`.
    pub name: &'static str,
    /// Properties in id order.
    pub properties: &'static [PropertySchema],
}

impl ClassSchema {
    /// A class with these properties (ids are the positions).
    pub const fn new(name: &'static str, properties: &'static [PropertySchema]) -> Self {
        ClassSchema { name, properties }
    }
}

/// A property of a [`ClassSchema`].
#[derive(Debug, Clone, Copy)]
pub struct PropertySchema {
    /// The property name.
    pub name: &'static str,
    /// The exact C++ type string; `None` takes it from the Rust type (primitives: `bool`, `char`
    /// (i8), `unsigned char`, `short`, `unsigned short`, `int`, `unsigned int`, `__int64`,
    /// `unsigned __int64`, `float`, `double`, `std::string`, plus this crate's KI newtypes).
    /// Deep mode refuses to guess the type of objects.
    pub type_name: Option<&'static str>,
    /// Property flags ([`flags::DEFAULT`] unless set).
    pub flags: u32,
    /// A container (`Vec`): length prefix + elements. Sequences are containers either way.
    pub dynamic: bool,
    /// Enum options (name, value); non-empty makes the property an enum.
    pub enum_options: &'static [(&'static str, u32)],
}

impl PropertySchema {
    /// A property whose type comes from the Rust type, with [`flags::DEFAULT`].
    pub const fn new(name: &'static str) -> Self {
        PropertySchema { name, type_name: None, flags: flags::DEFAULT, dynamic: false, enum_options: &[] }
    }

    /// Sets the exact C++ type string (element type for containers).
    pub const fn ty(mut self, type_name: &'static str) -> Self {
        self.type_name = Some(type_name);
        self
    }

    /// Sets the flags.
    pub const fn flags(mut self, flags: u32) -> Self {
        self.flags = flags;
        self
    }

    /// Marks the property as a container.
    pub const fn dynamic(mut self) -> Self {
        self.dynamic = true;
        self
    }

    /// Sets enum options (and makes the property an enum).
    pub const fn options(mut self, options: &'static [(&'static str, u32)]) -> Self {
        self.enum_options = options;
        self
    }
}

/// A Rust type that describes its KI class itself, so no type list is needed.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_kiprop::{ClassSchema, KiClass, Options, PropertySchema, TypeList};
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// #[serde(rename = "class Spell")]
/// struct Spell { m_name: String, m_pips: u8 }
///
/// impl KiClass for Spell {
///     const SCHEMA: ClassSchema =
///         ClassSchema::new("class Spell", &[PropertySchema::new("m_name"), PropertySchema::new("m_pips")]);
/// }
///
/// let types = TypeList::of::<Spell>();
/// let spell = Spell { m_name: "Fire Cat".into(), m_pips: 1 };
/// let bytes = Options::new().deep(true).to_vec(&spell, &types)?;
/// assert_eq!(Options::new().deep(true).from_slice::<Spell>(&bytes, &types)?, spell);
/// # Ok::<(), serde_kiprop::Error>(())
/// ```
pub trait KiClass {
    /// The class.
    const SCHEMA: ClassSchema;

    /// Adds this class (and, by overriding, the classes of its object fields) to `types`.
    fn register(types: &mut TypeList) {
        types.add_schema(&Self::SCHEMA);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn static_key_tells_apart_names_that_share_an_address() {
        static NAME: &str = "Updates";
        let prefix: &'static str = &NAME[..6];
        assert_eq!(prefix.as_ptr(), NAME.as_ptr());
        let key = super::StaticKey::default();
        assert!(!key.matches(NAME));
        key.remember(NAME);
        assert!(key.matches(NAME));
        assert!(!key.matches(prefix), "same address, other length: another name");
    }

    #[test]
    fn name_key_tells_apart_names_that_share_an_address() {
        static NAME: &str = "Updates";
        let prefix: &'static str = &NAME[..6];
        let key = super::NameKey::new(NAME.len());
        assert!(!key.matches(NAME));
        key.remember(NAME);
        assert!(key.matches(NAME));
        assert!(!key.matches(prefix), "same address, other length: another name");
        let copy: &'static str = Box::leak(NAME.to_owned().into_boxed_str());
        assert!(!key.matches(copy), "same text elsewhere: compared by name, not by address");
        assert!(!key.clone().matches(NAME), "a clone starts empty");
    }

    use super::*;

    #[test]
    fn enum_strings_are_deterministic() {
        let e = EnumDef {
            bits: true,
            options: vec![("NONE".into(), 0), ("A".into(), 1), ("B".into(), 2), ("C".into(), 4)],
        };
        assert_eq!(e.format(5).unwrap(), "A|C");
        assert_eq!(e.format(0).unwrap(), "");
        assert_eq!(e.format(8), None);
        assert_eq!(e.parse("C | A"), Some(5));
        assert_eq!(e.parse(""), Some(0));
        assert_eq!(e.parse("D"), None);
    }

    #[test]
    fn object_targets() {
        assert_eq!(object_target("class SharedPointer<class Foo>"), "class Foo");
        assert_eq!(object_target("class Foo*"), "class Foo");
        assert_eq!(object_target("class Foo"), "class Foo");
    }
}
