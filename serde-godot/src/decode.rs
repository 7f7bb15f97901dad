//! Decoding straight into a [`Variant`] (no serde visitors): `Variant::from_bytes` and
//! `Variant` fields under serde-godot's Deserializer. The checks follow the engine's
//! `decode_variant` step by step; allocation is capped by what the rest of the input can hold.

use crate::error::{Error, ErrorKind, Result};
use crate::options::{Options, Version};
use crate::types::{PackedElement, narrow_reals, packed_vec};
use crate::variant::{DictBuilder, FullObject, KeyHasher, Object, leaf_hash, object_hasher, property_hash};
use crate::wire::{self, FLAG_64, FLAG_OBJECT_AS_ID, NODE_PATH_NEW_FORMAT, Reader, WireContainerType};
use crate::{
    Aabb, Array, Basis, Color, ContainerType, Dictionary, NodePath, ObjectId, PackedByteArray, PackedColorArray,
    PackedFloat32Array, PackedFloat64Array, PackedInt32Array, PackedInt64Array, PackedStringArray, PackedVector2Array,
    PackedVector3Array, PackedVector4Array, Plane, Projection, Quaternion, Rect2, Rect2i, Rid, Signal, StringName,
    Transform2D, Transform3D, Variant, VariantType, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i,
};

/// Reads one header: the type (for `opts.version`) and the whole header word.
#[inline]
pub(crate) fn header(r: &mut Reader<'_>, version: Version) -> Result<(VariantType, u32)> {
    let at = r.pos();
    let header = r.u32()?;
    match wire::types_table(version)[(header & 0xFF) as usize] {
        Some(ty) => Ok((ty, header)),
        None => Err(Error::at(ErrorKind::UnknownType(header & 0xFF), at)),
    }
}

/// Reads the `real_t` components of math payloads (f32, or f64 narrowed to f32).
struct Reals<'r, 'de> {
    r: &'r mut Reader<'de>,
    wide: bool,
}

impl Reals<'_, '_> {
    #[inline]
    fn real(&mut self) -> Result<f32> {
        if self.wide { self.r.f64().map(|v| v as f32) } else { self.r.f32() }
    }

    fn v2(&mut self) -> Result<Vector2> {
        Ok(Vector2::new(self.real()?, self.real()?))
    }

    fn v3(&mut self) -> Result<Vector3> {
        Ok(Vector3::new(self.real()?, self.real()?, self.real()?))
    }

    fn v4(&mut self) -> Result<Vector4> {
        Ok(Vector4::new(self.real()?, self.real()?, self.real()?, self.real()?))
    }
}

fn i32s<const N: usize>(r: &mut Reader<'_>) -> Result<[i32; N]> {
    let mut out = [0; N];
    for v in &mut out {
        *v = r.u32()? as i32;
    }
    Ok(out)
}

fn color(r: &mut Reader<'_>) -> Result<Color> {
    Ok(Color::new(r.f32()?, r.f32()?, r.f32()?, r.f32()?))
}

/// Checks that the input can hold a fixed payload of `size` bytes, so that a truncated value is
/// reported at its start like the engine's `len < size` checks.
#[inline]
fn need(r: &Reader<'_>, size: usize) -> Result<()> {
    if r.remaining() < size { Err(r.eof()) } else { Ok(()) }
}

// The decoding entry points of `Variant`: here, with the work, so that the value type does not
// depend on its decoder.
impl Variant {
    /// Decodes one Variant from exactly `bytes` (trailing bytes are an error).
    pub fn from_bytes(bytes: &[u8], opts: &Options) -> Result<Variant> {
        let mut reader = Reader::new(bytes);
        let value = decode(&mut reader, opts, 0).and_then(|value| match reader.remaining() {
            0 => Ok(value),
            n => Err(Error::at(ErrorKind::TrailingBytes(n), reader.pos())),
        });
        value.map_err(|e| version_hint(e, bytes, opts))
    }

    /// Decodes one Variant from the start of `bytes` and returns it with the rest of the input,
    /// like the engine's `bytes_to_var` (which ignores trailing bytes).
    pub fn take_from_bytes<'b>(bytes: &'b [u8], opts: &Options) -> Result<(Variant, &'b [u8])> {
        let mut reader = Reader::new(bytes);
        let value = decode(&mut reader, opts, 0)?;
        Ok((value, reader.rest()))
    }
}

/// Adds a hint to an error of [`Variant::from_bytes`] when the bytes decode in the other version.
#[cold]
#[inline(never)]
pub(crate) fn version_hint(e: Error, bytes: &[u8], opts: &Options) -> Error {
    let (other, hint) = opts.version.other_with_hint();
    let other = opts.version(other);
    let mut reader = Reader::new(bytes);
    match decode(&mut reader, &other, 0) {
        Ok(_) if reader.remaining() == 0 => e.with_hint(hint),
        _ => e,
    }
}

/// Decodes one Variant at `depth` (the top-level value is depth 0).
pub(crate) fn decode(r: &mut Reader<'_>, opts: &Options, depth: usize) -> Result<Variant> {
    decode_hashed::<Plain>(r, opts, depth, &mut ())
}

/// Whether a decode also builds the Dictionary-key hash of what it decodes.
pub(crate) trait KeyMode {
    /// Whether it does.
    const HASHED: bool;
    /// `u64` if it does, `()` if not. (Passed out through a `&mut`: a `(Variant, u64)` result
    /// is assembled through the stack with store-forwarding stalls, 20 % slower.)
    type Hash: Copy;
    fn hash(hash: u64) -> Self::Hash;
    fn get(hash: Self::Hash) -> u64;
}

/// Decoding a value: no hash.
pub(crate) struct Plain;

impl KeyMode for Plain {
    const HASHED: bool = false;
    type Hash = ();
    #[inline(always)]
    fn hash(_: u64) {}
    #[inline(always)]
    fn get((): ()) -> u64 {
        0
    }
}

/// Decoding a Dictionary key or something inside one: with its hash.
pub(crate) struct Keyed;

impl KeyMode for Keyed {
    const HASHED: bool = true;
    type Hash = u64;
    #[inline(always)]
    fn hash(hash: u64) -> u64 {
        hash
    }
    #[inline(always)]
    fn get(hash: u64) -> u64 {
        hash
    }
}

/// Decodes one Variant at `depth` and, when `M` is [`Keyed`], stores its Dictionary-key hash
/// ([`key_hash`](crate::variant::key_hash)) in `hash`, built bottom-up from its parts' hashes so
/// that each byte is hashed once. Dictionary keys, and everything inside them, are decoded
/// [`Keyed`].
pub(crate) fn decode_hashed<M: KeyMode>(
    r: &mut Reader<'_>,
    opts: &Options,
    depth: usize,
    hash: &mut M::Hash,
) -> Result<Variant> {
    let start = r.pos();
    if depth > opts.max_depth {
        return Err(Error::at(ErrorKind::DepthLimit(opts.max_depth), start));
    }
    let (ty, header) = header(r, opts.version)?;
    let value = match ty {
        VariantType::Dictionary => dictionary::<M>(r, opts, depth, header, hash),
        VariantType::Array => array::<M>(r, opts, depth, header, hash),
        VariantType::Object => object::<M>(r, opts, depth, header, hash),
        _ => decode_payload(r, opts, ty, header).inspect(|v| {
            if M::HASHED {
                *hash = M::hash(leaf_hash(v));
            }
        }),
    };
    value.map_err(|e| e.or_at(start))
}

/// The payload of anything but a container (Dictionary, Array, Object).
pub(crate) fn decode_payload(r: &mut Reader<'_>, opts: &Options, ty: VariantType, header: u32) -> Result<Variant> {
    use VariantType as T;
    let godot4 = opts.version == Version::Godot4;
    let wide = wire::real_is_64(header, opts.version);
    if let Some(layout) = crate::magic::Layout::of(ty) {
        need(r, layout.size(if wide { 8 } else { 4 }))?;
    }
    let mut reals = Reals { r, wide };
    Ok(match ty {
        T::Nil => Variant::Nil,
        T::Bool => Variant::Bool(reals.r.u32()? != 0),
        T::Int => {
            Variant::Int(if header & FLAG_64 != 0 { reals.r.u64()? as i64 } else { reals.r.u32()? as i32 as i64 })
        }
        T::Float => Variant::Float(if header & FLAG_64 != 0 { reals.r.f64()? } else { reals.r.f32()? as f64 }),
        T::String => Variant::String(reals.r.str(opts.max_len)?.to_owned()),
        T::Vector2 => Variant::Vector2(reals.v2()?),
        T::Vector2i => Variant::Vector2i(Vector2i::from(i32s::<2>(reals.r)?)),
        T::Rect2 => Variant::Rect2(Rect2 { position: reals.v2()?, size: reals.v2()? }),
        T::Rect2i => {
            let [x, y, w, h] = i32s::<4>(reals.r)?;
            Variant::Rect2i(Rect2i::new(x, y, w, h))
        }
        T::Vector3 => Variant::Vector3(reals.v3()?),
        T::Vector3i => Variant::Vector3i(Vector3i::from(i32s::<3>(reals.r)?)),
        T::Transform2D => Variant::from(Transform2D { x: reals.v2()?, y: reals.v2()?, origin: reals.v2()? }),
        T::Vector4 => Variant::Vector4(reals.v4()?),
        T::Vector4i => Variant::Vector4i(Vector4i::from(i32s::<4>(reals.r)?)),
        T::Plane => Variant::Plane(Plane { normal: reals.v3()?, d: reals.real()? }),
        T::Quaternion => {
            let v = reals.v4()?;
            Variant::Quaternion(Quaternion::new(v.x, v.y, v.z, v.w))
        }
        T::Aabb => Variant::from(Aabb { position: reals.v3()?, size: reals.v3()? }),
        T::Basis => Variant::from(Basis { rows: [reals.v3()?, reals.v3()?, reals.v3()?] }),
        T::Transform3D => Variant::from(Transform3D {
            basis: Basis { rows: [reals.v3()?, reals.v3()?, reals.v3()?] },
            origin: reals.v3()?,
        }),
        T::Projection => Variant::from(Projection { columns: [reals.v4()?, reals.v4()?, reals.v4()?, reals.v4()?] }),
        T::Color => Variant::Color(color(reals.r)?),
        T::StringName => Variant::StringName(StringName(reals.r.str(opts.max_len)?.to_owned())),
        T::NodePath => Variant::from(node_path(reals.r, opts.max_len)?),
        T::Rid => Variant::Rid(Rid(if godot4 { reals.r.u64()? } else { 0 })),
        T::Callable => Variant::Callable,
        T::Signal => {
            let name = StringName(reals.r.str(opts.max_len)?.to_owned());
            Variant::from(Signal { name, object: ObjectId(reals.r.u64()?) })
        }
        T::Dictionary | T::Array | T::Object => unreachable!("containers are decoded by decode_hashed"),
        T::PackedByteArray => Variant::PackedByteArray(PackedByteArray(packed_bytes(reals.r, opts.max_len)?.to_vec())),
        T::PackedStringArray => Variant::PackedStringArray(PackedStringArray(packed_strings(reals.r, opts.max_len)?)),
        T::PackedInt32Array => Variant::PackedInt32Array(PackedInt32Array(packed(reals.r, opts, ty, header)?)),
        T::PackedInt64Array => Variant::PackedInt64Array(PackedInt64Array(packed(reals.r, opts, ty, header)?)),
        T::PackedFloat32Array => Variant::PackedFloat32Array(PackedFloat32Array(packed(reals.r, opts, ty, header)?)),
        T::PackedFloat64Array => Variant::PackedFloat64Array(PackedFloat64Array(packed(reals.r, opts, ty, header)?)),
        T::PackedVector2Array => Variant::PackedVector2Array(PackedVector2Array(packed(reals.r, opts, ty, header)?)),
        T::PackedVector3Array => Variant::PackedVector3Array(PackedVector3Array(packed(reals.r, opts, ty, header)?)),
        T::PackedColorArray => Variant::PackedColorArray(PackedColorArray(packed(reals.r, opts, ty, header)?)),
        T::PackedVector4Array => Variant::PackedVector4Array(PackedVector4Array(packed(reals.r, opts, ty, header)?)),
    })
}

/// A NodePath payload (both versions): `name_count | 0x8000_0000`, subname count, flags, then
/// the strings. The old format (bit 31 clear) is refused, as the engine does; flag bit 1 (the
/// obsolete separate property) adds one subname; counts wrap like the engine's `uint32_t`s.
pub(crate) fn node_path(r: &mut Reader<'_>, max_len: usize) -> Result<NodePath> {
    let at = r.pos();
    let first = r.u32()?;
    if first & NODE_PATH_NEW_FORMAT == 0 {
        return Err(Error::at(ErrorKind::InvalidData("NodePath in the pre-3.0 format"), at));
    }
    let names = first & !NODE_PATH_NEW_FORMAT;
    let mut subnames = r.u32()?;
    let flags = r.u32()?;
    if flags & 2 != 0 {
        subnames = subnames.wrapping_add(1);
    }
    let total = names.wrapping_add(subnames);
    if total as usize > max_len {
        return Err(Error::at(ErrorKind::LengthLimit { len: u64::from(total), limit: max_len }, at));
    }
    let mut path = NodePath { absolute: flags & 1 != 0, ..NodePath::default() };
    for i in 0..total {
        let s = r.str(max_len)?.to_owned();
        if i < names { path.names.push(s) } else { path.subnames.push(s) }
    }
    Ok(path)
}

fn object<M: KeyMode>(
    r: &mut Reader<'_>,
    opts: &Options,
    depth: usize,
    header: u32,
    hash_out: &mut M::Hash,
) -> Result<Variant> {
    let mut leaf = |object| {
        let value = Variant::Object(object);
        if M::HASHED {
            *hash_out = M::hash(leaf_hash(&value));
        }
        Ok(value)
    };
    if header & FLAG_OBJECT_AS_ID != 0 {
        let id = r.u64()?;
        return leaf(if id == 0 { Object::Null } else { Object::Id(ObjectId(id)) });
    }
    if !opts.full_objects {
        return Err(r.err(ErrorKind::FullObjectsDisabled));
    }
    let class = r.str(opts.max_len)?;
    if class.is_empty() {
        return leaf(Object::Null);
    }
    let class = class.to_owned();
    // The engine loops `for (int i = 0; i < count; i++)`: a negative count is no properties.
    let count = (r.u32()? as i32).max(0) as usize;
    // A property is a name (at least 4 bytes) and a value (at least 4).
    let mut properties = Vec::with_capacity(r.prealloc(count, 8));
    let mut hash = M::HASHED.then(|| object_hasher(&class));
    for _ in 0..count {
        let name = r.str(opts.max_len)?.to_owned();
        let mut value_hash = M::hash(0);
        let value = decode_hashed::<M>(r, opts, depth + 1, &mut value_hash)?;
        if let Some(hash) = &mut hash {
            property_hash(hash, &name, M::get(value_hash));
        }
        properties.push((name, value));
    }
    if let Some(hash) = hash {
        *hash_out = M::hash(hash.finish(properties.len()));
    }
    Ok(Variant::Object(Object::Full(Box::new(FullObject { class, properties }))))
}

/// Reads the typed-container data of an ARRAY / DICTIONARY header field (Godot 4; Godot 3 has
/// no typed containers and ignores the bits).
pub(crate) fn container_type<'de>(
    r: &mut Reader<'de>,
    opts: &Options,
    header: u32,
    shift: u32,
) -> Result<WireContainerType<'de>> {
    if opts.version == Version::Godot3 {
        return Ok(WireContainerType::None);
    }
    wire::read_container_type(r, (header >> shift) & 3, opts.max_len)
}

fn owned_container_type(ct: WireContainerType<'_>) -> ContainerType {
    match ct {
        WireContainerType::None => ContainerType::Untyped,
        WireContainerType::Builtin(ty) => ContainerType::Builtin(ty),
        WireContainerType::ClassName(name) => ContainerType::ClassName(name.to_owned()),
        WireContainerType::Script(path) => ContainerType::Script(path.to_owned()),
    }
}

fn array<M: KeyMode>(
    r: &mut Reader<'_>,
    opts: &Options,
    depth: usize,
    header: u32,
    hash_out: &mut M::Hash,
) -> Result<Variant> {
    let element_type = owned_container_type(container_type(r, opts, header, 16)?);
    let count = r.count(opts.max_len)?;
    let mut items = Vec::with_capacity(r.prealloc(count, 4));
    let mut hash = M::HASHED.then(|| KeyHasher::new(VariantType::Array));
    for _ in 0..count {
        let mut item_hash = M::hash(0);
        items.push(decode_hashed::<M>(r, opts, depth + 1, &mut item_hash)?);
        if let Some(hash) = &mut hash {
            hash.part(M::get(item_hash));
        }
    }
    if let Some(hash) = hash {
        *hash_out = M::hash(hash.finish(items.len()));
    }
    Ok(Variant::from(Array::with_element_type(element_type, items)))
}

/// A Dictionary: keys are always decoded with their hash (for [`DictBuilder`]), values only when
/// the Dictionary itself is (inside) a key.
fn dictionary<M: KeyMode>(
    r: &mut Reader<'_>,
    opts: &Options,
    depth: usize,
    header: u32,
    hash_out: &mut M::Hash,
) -> Result<Variant> {
    let key_type = owned_container_type(container_type(r, opts, header, 16)?);
    let value_type = owned_container_type(container_type(r, opts, header, 18)?);
    let count = r.count(opts.max_len)?;
    let capacity = r.prealloc(count, 8);
    let mut builder = DictBuilder::new(Dictionary::with_types(key_type, value_type), capacity, M::HASHED);
    for _ in 0..count {
        let mut key_hash = 0;
        let key = decode_hashed::<Keyed>(r, opts, depth + 1, &mut key_hash)?;
        let mut value_hash = M::hash(0);
        let value = decode_hashed::<M>(r, opts, depth + 1, &mut value_hash)?;
        builder.insert(key, key_hash, value, M::get(value_hash));
    }
    let (dict, hash) = builder.finish();
    if M::HASHED {
        *hash_out = M::hash(hash);
    }
    Ok(Variant::from(dict))
}

/// A PackedByteArray payload. Only `count <= remaining` is checked, like the engine: the padding
/// may be missing at the very end of the input.
pub(crate) fn packed_bytes<'de>(r: &mut Reader<'de>, max_len: usize) -> Result<&'de [u8]> {
    let at = r.pos();
    let count = r.len(max_len)?;
    let bytes = r.take(count).map_err(|e| e.or_at(at))?;
    r.skip_lenient(wire::pad4(count));
    Ok(bytes)
}

/// A PackedStringArray payload. Elements are strings with or without a trailing NUL. A negative
/// count decodes as an empty array: the engine's loop simply doesn't run (verified on Godot 3.2.3).
pub(crate) fn packed_strings(r: &mut Reader<'_>, max_len: usize) -> Result<Vec<String>> {
    let count = packed_string_count(r, max_len)?;
    let mut out = Vec::with_capacity(r.prealloc(count, 4));
    for _ in 0..count {
        out.push(r.str(max_len)?.to_owned());
    }
    Ok(out)
}

pub(crate) fn packed_string_count(r: &mut Reader<'_>, max_len: usize) -> Result<usize> {
    let at = r.pos();
    let raw = r.u32()?;
    if raw > i32::MAX as u32 {
        return Ok(0);
    }
    if raw as usize > max_len {
        return Err(Error::at(ErrorKind::LengthLimit { len: raw as u64, limit: max_len }, at));
    }
    Ok(raw as usize)
}

/// The raw payload of a fixed-size packed array: count, then `count * size` bytes (`size` doubles
/// for the real-based vector arrays with the 64-bit flag in Godot 4).
pub(crate) fn packed_raw<'de>(
    r: &mut Reader<'de>,
    opts: &Options,
    ty: VariantType,
    header: u32,
) -> Result<(&'de [u8], bool)> {
    let wide = wire::packed_has_reals(ty) && wire::real_is_64(header, opts.version);
    let size = wire::packed_elem_size(ty, wide).expect("fixed-size packed array");
    let at = r.pos();
    let count = r.len(opts.max_len)?;
    let bytes = count.checked_mul(size).filter(|&n| n <= r.remaining()).ok_or_else(|| Error::at(ErrorKind::Eof, at))?;
    Ok((r.take(bytes)?, wide))
}

fn packed<T: PackedElement>(r: &mut Reader<'_>, opts: &Options, ty: VariantType, header: u32) -> Result<Vec<T>> {
    let (bytes, wide) = packed_raw(r, opts, ty, header)?;
    Ok(if wide { packed_vec(&narrow_reals(bytes)) } else { packed_vec(bytes) })
}
