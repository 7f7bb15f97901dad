//! The serde `Serializer`: builds a FlatBuffer back to front.
//!
//! serde hands a format a parent before its children, and FlatBuffers wants every child written before
//! the table that points to it (uoffsets point forward). Building back to front reconciles the two without
//! a second pass or any byte moves: a child (string, vector, sub-table) is written the moment serde reaches
//! it, while the scalars of the open table wait in a small scratch list; when serde closes the table, its
//! inline part and vtable go in front of the children. Vectors of scalars and structs are collected in a
//! scratch vector (serde gives elements first to last) and copied in once.

use std::io::Write;

use serde_core::ser::{self, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::layout::{Builder, Field, FieldValue, TableScratch, Vtables, write_table};
use crate::limits::MAX_SLOT;
use crate::markers::{DEPRECATED, UNION_TYPE};
use crate::names::{explicit_id, split_default};
use crate::options::{InlineCache, Options};
use crate::plan::{self, Plan, implicit_slot, is_union};

mod into;
mod packed;
mod structs;

use packed::Packed;
use structs::{MemberSer, StructState, round_struct, skip_in_struct, struct_impls};

/// A reusable FlatBuffers builder driven by serde.
///
/// Reuse one `Serializer` for many messages to keep its buffers (like the official builder's `reset`):
///
/// ```
/// use serde::Serialize;
/// use serde_flatbuf_lite::Serializer;
///
/// #[derive(Serialize)]
/// struct Ping { seq: u32 }
///
/// let mut ser = Serializer::new();
/// for seq in 0..3 {
///     let bytes: &[u8] = ser.serialize(&Ping { seq })?;
///     assert_eq!(bytes.len(), 20);
/// }
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
///
/// [`append`](Self::append), [`to_slice`](Self::to_slice) and [`serialized_size`](Self::serialized_size)
/// encode into caller-owned memory: a reused serializer performs no heap allocation once its buffers have
/// grown to the message's size (the [`Options`] methods of the same names keep one serializer per thread).
///
/// `&mut Serializer` also implements [`serde::Serializer`](serde_core::Serializer) for the root value;
/// call [`finish`](Self::finish) afterwards.
#[derive(Debug, Default)]
pub struct Serializer {
    opts: Options,
    b: Builder,
    vtables: Vtables,
    table_scratch: TableScratch,
    /// Fields of the open tables (a stack).
    fields: Vec<Field>,
    /// Bytes of the open tables' inline struct fields and of the open inline vectors' elements (one stack:
    /// tables, vectors and structs nest, so each one's bytes are on top while it is open).
    scratch: Vec<u8>,
    /// The first element of an inline vector encoded again, to learn whether it is packed (reused).
    probe: Vec<u8>,
    /// Element targets of the open offset vectors (a stack).
    offsets: Vec<u32>,
    /// Keys of the open maps, for sorting (a stack).
    keys: Vec<Key>,
    /// Slots assigned so far in tables using explicit ids (a stack; only used by such tables).
    assigned: Vec<u16>,
    /// Element kind of the innermost open vector.
    vec_kind: VecKind,
    depth: u32,
    tables: u32,
    root: Option<u32>,
    /// Answers of `Options::inline_struct` for the struct names seen lately.
    inline_cache: InlineCache,
    /// The root type's placeholder-free unions, if learned (see `plan.rs`).
    plan: Option<&'static Plan>,
}

/// The encoding entry points.
impl Options {
    /// Encodes `value` (whose top level must be a table: a struct with named fields) into a new vector.
    pub fn to_vec<T: ?Sized + Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        let mut ser = Serializer::with_options(self.clone());
        Ok(ser.serialize(value)?.to_vec())
    }

    /// Encodes `value` and writes the finished buffer to `writer`.
    pub fn to_writer<W: Write, T: ?Sized + Serialize>(&self, mut writer: W, value: &T) -> Result<()> {
        let mut ser = Serializer::with_options(self.clone());
        writer.write_all(ser.serialize(value)?)?;
        Ok(())
    }
}

/// Where the value being serialized goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The root: must be a table.
    Root,
    /// A table field; `union_type` is the slot of a `UnionType` placeholder right before it; `optional`
    /// when the value came through `Some` (a FlatBuffers optional scalar: written even when zero).
    Field { slot: u16, union_type: Option<u16>, optional: bool },
    /// The value of a union field: a table whose offset goes in `slot`, variant number in `type_slot`.
    Union { slot: u16, type_slot: u16, variant: u8 },
    /// The key of a map entry (slot 0 of the entry table), remembered for sorting.
    MapKey,
    /// An element of the innermost open vector.
    Elem,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum VecKind {
    #[default]
    Empty,
    Inline {
        size: u32,
        align: u8,
    },
    Offset,
}

/// A map key, for sorting entries the way `LookupByKey` expects.
#[derive(Debug, Clone, Copy)]
enum Key {
    Int(i128),
    Str(u32),
}

/// What serializing a value reports to the table that holds it.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// The value was written (or left absent).
    Done,
    /// The value was a [`UnionType`](crate::UnionType) placeholder: the next field may be a union.
    UnionType,
}

impl Serializer {
    /// A serializer with the default [`Options`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A serializer with the given options.
    pub fn with_options(opts: Options) -> Self {
        Serializer { opts, ..Self::default() }
    }

    /// Forgets the previous buffer (keeping allocations) so a new root can be serialized.
    pub fn reset(&mut self) {
        self.b.reset();
        self.vtables.clear();
        self.fields.clear();
        self.scratch.clear();
        self.offsets.clear();
        self.keys.clear();
        self.assigned.clear();
        self.vec_kind = VecKind::Empty;
        self.depth = 0;
        self.tables = 0;
        self.root = None;
        self.plan = None;
    }

    /// Serializes `value` as the root table of a new buffer and returns the finished bytes.
    pub fn serialize<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<&[u8]> {
        self.reset();
        self.plan = plan::known::<T>();
        value.serialize(&mut *self)?;
        self.finish()
    }

    /// Writes the header (root offset, optional file identifier and size prefix) after the root value was
    /// serialized through `&mut Serializer`, and returns the finished bytes.
    pub fn finish(&mut self) -> Result<&[u8]> {
        let root = self.root.take().ok_or_else(|| Error::new(ErrorKind::Message, "no root table was serialized"))?;
        self.b.finish(root, self.opts.file_identifier, self.opts.size_prefixed)
    }

    /// The finished buffer of the last [`serialize`](Self::serialize) or [`finish`](Self::finish).
    pub fn finished_data(&self) -> &[u8] {
        self.b.data()
    }

    /// Whether the named struct is configured as an inline struct (cached by the name's address: serde's
    /// names are `&'static str`s, so the same type passes the same pointer).
    #[inline]
    fn is_inline(&mut self, name: &'static str) -> bool {
        self.inline_cache.is_inline(&self.opts, name)
    }

    #[inline]
    fn value(&mut self, place: Place) -> ValueSer<'_> {
        ValueSer { s: self, place }
    }

    /// Counts a table being opened against the depth and table limits. Inlined into every table's open (one
    /// per record on tables of records); the error is built out of line.
    #[inline(always)]
    fn enter_table(&mut self) -> Result<()> {
        self.depth += 1;
        self.tables += 1;
        if self.depth > self.opts.max_depth || self.tables > self.opts.max_tables {
            return Err(self.table_limit());
        }
        Ok(())
    }

    /// The error of [`Serializer::enter_table`] (the depth limit is checked first, as before).
    #[cold]
    #[inline(never)]
    fn table_limit(&self) -> Error {
        if self.depth > self.opts.max_depth {
            return Error::new(
                ErrorKind::DepthLimitExceeded,
                format!("more than {} nested tables (official verifiers would reject the buffer)", self.opts.max_depth),
            );
        }
        Error::new(ErrorKind::TableLimitExceeded, format!("more than {} tables", self.opts.max_tables))
    }

    /// Writes the open table whose fields start at `fields_start`.
    #[inline]
    fn close_table(&mut self, fields_start: usize, bytes_start: usize) -> Result<u32> {
        let dist = write_table(
            &mut self.b,
            &mut self.vtables,
            &mut self.table_scratch,
            &self.fields[fields_start..],
            &self.scratch,
        )?;
        self.fields.truncate(fields_start);
        self.scratch.truncate(bytes_start);
        self.depth -= 1;
        Ok(dist)
    }

    /// An empty table (for `()` and unit structs).
    fn empty_table(&mut self) -> Result<u32> {
        self.enter_table()?;
        let start = self.fields.len();
        let bytes = self.scratch.len();
        self.close_table(start, bytes)
    }

    #[inline]
    fn push_field(&mut self, slot: u16, size: u32, align: u8, value: FieldValue) {
        self.fields.push(Field::new(slot, size, align, value));
    }

    /// A table field in `slot` holding the uoffset of an object written at distance `dist`.
    #[inline(always)]
    fn field_offset(&mut self, slot: u16, dist: u32) {
        self.push_field(slot, 4, 4, FieldValue::Offset(dist));
    }

    /// Delivers an object written at distance `dist` to `place`.
    #[inline(always)]
    fn offset(&mut self, place: Place, dist: u32, what: &str) -> Result<Mark> {
        match place {
            Place::Root => {
                self.root = Some(dist);
                Ok(Mark::Done)
            }
            Place::Field { slot, .. } => {
                self.field_offset(slot, dist);
                Ok(Mark::Done)
            }
            Place::Union { slot, type_slot, variant } => {
                self.push_field(type_slot, 1, 1, FieldValue::Scalar(u64::from(variant)));
                self.push_field(slot, 4, 4, FieldValue::Offset(dist));
                Ok(Mark::Done)
            }
            Place::MapKey => {
                self.push_field(0, 4, 4, FieldValue::Offset(dist));
                self.keys.push(Key::Str(dist));
                Ok(Mark::Done)
            }
            Place::Elem => {
                self.elem_kind(VecKind::Offset, what)?;
                self.offsets.push(dist);
                Ok(Mark::Done)
            }
        }
    }

    #[inline]
    fn elem_kind(&mut self, kind: VecKind, what: &str) -> Result<()> {
        match self.vec_kind {
            VecKind::Empty => {
                self.vec_kind = kind;
                Ok(())
            }
            k if k == kind => Ok(()),
            _ => Err(Error::unsupported(format!("vector elements of different shapes ({what} after other elements)"))),
        }
    }

    /// Delivers a scalar (`size` bytes, little-endian in `bits`) to `place`: a table field here, any other
    /// place out of line, so that serde's per-type `serialize` wrappers stay small enough to inline into the
    /// struct's own `serialize` (no call, no dispatch on the place, per field).
    #[inline(always)]
    fn scalar(&mut self, place: Place, bits: u64, size: u8, key: i128) -> Result<Mark> {
        if let Place::Field { slot, optional, .. } = place {
            return self.field_scalar(slot, optional, bits, size);
        }
        self.scalar_elsewhere(place, bits, size, key)
    }

    /// A scalar table field: absent when it is zero and zeros are omitted (unless optional).
    #[inline(always)]
    fn field_scalar(&mut self, slot: u16, optional: bool, bits: u64, size: u8) -> Result<Mark> {
        if optional || !(self.opts.omit_zero_scalars && bits == 0) {
            self.push_field(slot, u32::from(size), size, FieldValue::Scalar(bits));
        }
        Ok(Mark::Done)
    }

    /// [`scalar`](Self::scalar) at any place.
    #[inline(never)]
    fn scalar_elsewhere(&mut self, place: Place, bits: u64, size: u8, key: i128) -> Result<Mark> {
        match place {
            Place::Field { slot, optional, .. } => self.field_scalar(slot, optional, bits, size),
            Place::Elem => {
                self.elem_kind(VecKind::Inline { size: u32::from(size), align: size }, "a scalar")?;
                self.scratch.extend_from_slice(&bits.to_le_bytes()[..size as usize]);
                Ok(Mark::Done)
            }
            Place::MapKey => {
                self.push_field(0, u32::from(size), size, FieldValue::Scalar(bits));
                self.keys.push(Key::Int(key));
                Ok(Mark::Done)
            }
            Place::Root => Err(root_must_be_table("a scalar")),
            Place::Union { .. } => Err(union_member("a scalar")),
        }
    }

    /// A 16-byte value (`i128`/`u128`): inline, 8-aligned, like a struct of two 64-bit halves.
    fn wide(&mut self, place: Place, bytes: [u8; 16]) -> Result<Mark> {
        match place {
            Place::Field { slot, .. } => {
                let at = self.scratch.len() as u32;
                self.scratch.extend_from_slice(&bytes);
                self.push_field(slot, 16, 8, FieldValue::Bytes(at));
                Ok(Mark::Done)
            }
            Place::Elem => {
                self.elem_kind(VecKind::Inline { size: 16, align: 8 }, "a 128-bit integer")?;
                self.scratch.extend_from_slice(&bytes);
                Ok(Mark::Done)
            }
            Place::MapKey => Err(Error::unsupported("128-bit map keys")),
            Place::Root => Err(root_must_be_table("a 128-bit integer")),
            Place::Union { .. } => Err(union_member("a 128-bit integer")),
        }
    }

    /// Opens an inline struct that is a table field or a vector element.
    #[inline(always)]
    fn open_struct(&mut self, place: Place) -> Result<StructSer<'_>> {
        match place {
            Place::Field { .. } | Place::Elem => {}
            Place::Root => return Err(root_must_be_table("a FlatBuffers struct")),
            Place::Union { .. } => return Err(union_member("a FlatBuffers struct")),
            Place::MapKey => return Err(Error::unsupported("struct map keys (keys must be integers or strings)")),
        }
        let st = StructState { start: self.scratch.len(), max_align: 1 };
        Ok(StructSer { s: self, place, st })
    }
}

#[cold]
fn root_must_be_table(what: &str) -> Error {
    Error::unsupported(format!("the root of a FlatBuffer must be a table (a struct with named fields), not {what}"))
}

#[cold]
fn union_member(what: &str) -> Error {
    Error::unsupported(format!("union members must be tables (structs with named fields), not {what}"))
}

/// Serializes one value into its [`Place`].
#[doc(hidden)]
pub(crate) struct ValueSer<'a> {
    s: &'a mut Serializer,
    place: Place,
}

macro_rules! int_methods {
    ($($method:ident: $ty:ty, $size:expr;)*) => {$(
        #[inline]
        fn $method(self, v: $ty) -> Result<Mark> {
            self.s.scalar(self.place, v as u64 & (u64::MAX >> (64 - 8 * $size)), $size, v as i128)
        }
    )*};
}

impl ValueSer<'_> {
    /// `serialize_str` at any place but a table field, out of line (see `Serializer::scalar`).
    #[inline(never)]
    fn str_elsewhere(self, v: &str) -> Result<Mark> {
        match self.place {
            Place::Root => Err(root_must_be_table("a string")),
            Place::Union { .. } => Err(union_member("a string")),
            place => {
                let dist = self.s.b.string(v.as_bytes())?;
                self.s.offset(place, dist, "a string")
            }
        }
    }
}

impl<'a> ser::Serializer for ValueSer<'a> {
    type Ok = Mark;
    type Error = Error;
    type SerializeSeq = SeqSer<'a>;
    type SerializeTuple = StructSer<'a>;
    type SerializeTupleStruct = StructSer<'a>;
    type SerializeTupleVariant = ser::Impossible<Mark, Error>;
    type SerializeMap = MapSer<'a>;
    type SerializeStruct = StructOrTable<'a>;
    type SerializeStructVariant = TableSer<'a>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<Mark> {
        self.s.scalar(self.place, u64::from(v), 1, i128::from(v))
    }

    int_methods! {
        serialize_i8: i8, 1;
        serialize_i16: i16, 2;
        serialize_i32: i32, 4;
        serialize_i64: i64, 8;
        serialize_u8: u8, 1;
        serialize_u16: u16, 2;
        serialize_u32: u32, 4;
        serialize_u64: u64, 8;
    }

    fn serialize_i128(self, v: i128) -> Result<Mark> {
        self.s.wide(self.place, v.to_le_bytes())
    }

    fn serialize_u128(self, v: u128) -> Result<Mark> {
        self.s.wide(self.place, v.to_le_bytes())
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<Mark> {
        if self.place == Place::MapKey {
            return Err(Error::unsupported("floating-point map keys"));
        }
        self.s.scalar(self.place, u64::from(v.to_bits()), 4, 0)
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<Mark> {
        if self.place == Place::MapKey {
            return Err(Error::unsupported("floating-point map keys"));
        }
        self.s.scalar(self.place, v.to_bits(), 8, 0)
    }

    fn serialize_char(self, v: char) -> Result<Mark> {
        self.s.scalar(self.place, u64::from(u32::from(v)), 4, i128::from(u32::from(v)))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<Mark> {
        // A table field inline (see `Serializer::scalar`), any other place out of line.
        if let Place::Field { slot, .. } = self.place {
            let dist = self.s.b.string(v.as_bytes())?;
            self.s.field_offset(slot, dist);
            return Ok(Mark::Done);
        }
        self.str_elsewhere(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<Mark> {
        match self.place {
            Place::Field { .. } => {
                let dist = self.s.b.inline_vector(v, v.len(), 1)?;
                self.s.offset(self.place, dist, "a byte vector")
            }
            Place::Elem => Err(Error::unsupported("vectors of vectors (use a vector of tables)")),
            Place::MapKey => Err(Error::unsupported("byte-string map keys")),
            Place::Root => Err(root_must_be_table("a byte vector")),
            Place::Union { .. } => Err(union_member("a byte vector")),
        }
    }

    fn serialize_none(self) -> Result<Mark> {
        match self.place {
            Place::Field { .. } => Ok(Mark::Done), // an absent slot
            Place::Elem => Err(Error::unsupported("`None` in a vector (vectors have no absent elements)")),
            Place::MapKey => Err(Error::unsupported("`None` as a map key")),
            Place::Root => Err(root_must_be_table("`None`")),
            Place::Union { .. } => Err(union_member("`None`")),
        }
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Mark> {
        match self.place {
            // `Some(0)` is an optional scalar that is present: never left out as a zero.
            Place::Field { slot, union_type, .. } => {
                value.serialize(ValueSer { s: self.s, place: Place::Field { slot, union_type, optional: true } })
            }
            _ => value.serialize(self),
        }
    }

    fn serialize_unit(self) -> Result<Mark> {
        match self.place {
            Place::MapKey => Err(Error::unsupported("`()` as a map key")),
            place => {
                let dist = self.s.empty_table()?;
                self.s.offset(place, dist, "an empty table")
            }
        }
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<Mark> {
        match (name, self.place) {
            (DEPRECATED, Place::Field { .. }) => Ok(Mark::Done),
            (UNION_TYPE, Place::Field { .. }) => Ok(Mark::UnionType),
            (DEPRECATED | UNION_TYPE, _) => {
                Err(Error::unsupported("`Deprecated` and `UnionType` are placeholders for table fields only"))
            }
            _ => self.serialize_unit(),
        }
    }

    fn serialize_unit_variant(self, name: &'static str, variant_index: u32, variant: &'static str) -> Result<Mark> {
        if let Place::Field { union_type: Some(_), .. } = self.place {
            return Err(Error::unsupported(format!(
                "unit variant `{name}::{variant}` in a union field: FlatBuffers writes NONE as an absent union; \
                 use `Option<{name}>`"
            )));
        }
        let index = u8::try_from(variant_index).map_err(|_| {
            Error::unsupported(format!("enum `{name}` has more than 256 variants; use serde_repr for a wider integer"))
        })?;
        self.s.scalar(self.place, u64::from(index), 1, i128::from(index))
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<Mark> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Mark> {
        let place = union_place(self.place, name, variant_index, variant)?;
        value.serialize(ValueSer { s: self.s, place })
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a>> {
        match self.place {
            Place::Field { .. } => {}
            Place::Elem => return Err(Error::unsupported("vectors of vectors (use a vector of tables)")),
            Place::MapKey => return Err(Error::unsupported("vector map keys")),
            Place::Root => return Err(root_must_be_table("a vector")),
            Place::Union { .. } => return Err(union_member("a vector")),
        }
        let s = self.s;
        let saved = std::mem::take(&mut s.vec_kind);
        Ok(SeqSer {
            elems_start: s.scratch.len(),
            offsets_start: s.offsets.len(),
            count: 0,
            saved,
            len,
            bulk: None,
            place: self.place,
            s,
        })
    }

    fn serialize_tuple(self, _len: usize) -> Result<StructSer<'a>> {
        self.s.open_struct(self.place)
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<StructSer<'a>> {
        self.s.open_struct(self.place)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(Error::unsupported(format!(
            "tuple variant `{name}::{variant}`: union members are tables; use a newtype or struct variant"
        )))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<MapSer<'a>> {
        match self.place {
            Place::Field { .. } => {}
            Place::Elem => return Err(Error::unsupported("vectors of maps (a map is a vector of entry tables)")),
            Place::MapKey => return Err(Error::unsupported("map keys that are maps")),
            Place::Root => {
                return Err(root_must_be_table("a map (a `#[serde(flatten)]` struct serializes as a map)"));
            }
            Place::Union { .. } => return Err(union_member("a map")),
        }
        let s = self.s;
        Ok(MapSer { offsets_start: s.offsets.len(), keys_start: s.keys.len(), entry: (0, 0), place: self.place, s })
    }

    #[inline(always)]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<StructOrTable<'a>> {
        let inline = match self.place {
            Place::MapKey => return Err(Error::unsupported("struct map keys (keys must be integers or strings)")),
            _ => self.s.is_inline(name),
        };
        if inline {
            Ok(StructOrTable::Struct(self.s.open_struct(self.place)?))
        } else {
            Ok(StructOrTable::Table(TableSer::open(self.s, self.place, name)?))
        }
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<TableSer<'a>> {
        let place = union_place(self.place, name, variant_index, variant)?;
        // Struct variants are never planned (the tracer wants placeholders there).
        TableSer::open(self.s, place, "")
    }
}

/// The place of a union's table, given the place of the union field.
fn union_place(place: Place, name: &str, variant_index: u32, variant: &str) -> Result<Place> {
    match place {
        Place::Field { slot, union_type: Some(type_slot), .. } => {
            if type_slot.checked_add(1) != Some(slot) {
                return Err(Error::unsupported(format!(
                    "union `{name}` in slot {slot}: its `UnionType` placeholder is in slot {type_slot}, not {}",
                    slot.saturating_sub(1)
                )));
            }
            let variant_no = variant_index
                .checked_add(1)
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| Error::unsupported(format!("union `{name}` has more than 255 variants")))?;
            Ok(Place::Union { slot, type_slot, variant: variant_no })
        }
        Place::Field { union_type: None, .. } => Err(Error::unsupported(format!(
            "`{name}::{variant}` carries data, so `{name}` is a union, which takes two slots (its type, then its \
             value): lite must know the root type's layout to number the fields after it, even when the union \
             is absent; call `serde_flatbuf_lite::learn::<Root>()` (or decode a root first), or declare a \
             `UnionType` field right before this field"
        ))),
        Place::Elem => Err(Error::unsupported(format!(
            "vectors of unions (`{name}`) are not readable by every FlatBuffers language"
        ))),
        _ => Err(Error::unsupported(format!("data-carrying enum `{name}` outside a table field"))),
    }
}

/// A table being collected; written when serde closes it.
#[doc(hidden)]
pub struct TableSer<'a> {
    s: &'a mut Serializer,
    place: Place,
    fields_start: usize,
    bytes_start: usize,
    assigned_start: usize,
    next_slot: u32,
    union_type: Option<u16>,
    explicit: bool,
    /// The fields that are unions without a `UnionType` placeholder (bit = field index, see `plan.rs`).
    unions: u64,
    /// The index of the next field (only counted for tables with such unions).
    index: usize,
}

impl<'a> TableSer<'a> {
    #[inline(always)]
    fn open(s: &'a mut Serializer, place: Place, name: &'static str) -> Result<Self> {
        s.enter_table()?;
        let unions = match &s.plan {
            Some(plan) => plan.unions(name),
            None => 0,
        };
        Ok(TableSer {
            unions,
            index: 0,
            fields_start: s.fields.len(),
            bytes_start: s.scratch.len(),
            assigned_start: s.assigned.len(),
            s,
            place,
            next_slot: 0,
            union_type: None,
            explicit: false,
        })
    }

    /// The slot of the next field: its position, or its explicit id (`name#N`).
    #[inline(always)]
    fn slot(&mut self, key: &'static str) -> Result<u16> {
        // Fast path: a name without a trailing digit has no explicit id. An ASCII digit is one byte in UTF-8,
        // so the last byte tells it without decoding the last char.
        let digit_last = matches!(key.as_bytes().last(), Some(b'0'..=b'9'));
        if !self.explicit && self.next_slot <= u32::from(MAX_SLOT) && !digit_last {
            let slot = self.next_slot as u16;
            self.next_slot += 1;
            return Ok(slot);
        }
        self.slot_slow(key)
    }

    #[inline(never)]
    fn slot_slow(&mut self, key: &'static str) -> Result<u16> {
        let id = explicit_id(key);
        let first = self.next_slot == 0 && !self.explicit;
        if first && id.is_some() {
            self.explicit = true;
        }
        let slot = match (self.explicit, id) {
            (false, None) => {
                if self.next_slot > u32::from(MAX_SLOT) {
                    return Err(Error::unsupported(format!("field `{key}` would need slot {}", self.next_slot)));
                }
                self.next_slot as u16
            }
            (true, Some(id)) => {
                // Remember every slot to catch two fields in one slot.
                if self.s.assigned[self.assigned_start..].contains(&id) {
                    return Err(Error::unsupported(format!("field `{key}` uses slot {id}, which another field has")));
                }
                self.s.assigned.push(id);
                id
            }
            _ => {
                return Err(Error::unsupported(format!(
                    "field `{key}`: explicit ids (`name#N`) must be given to every field of a struct or to none"
                )));
            }
        };
        self.next_slot = u32::from(slot) + 1;
        Ok(slot)
    }

    /// The slot of the next field of a table with placeholder-free unions, and its union type slot when it is
    /// one: implicit slots count two for each such union, an explicit id is the union's value slot (flatc's
    /// `(id: N)` on a union) with its type in the slot before.
    #[inline(never)]
    fn planned_slot(&mut self, key: &'static str) -> Result<(u16, Option<u16>)> {
        let index = self.index;
        self.index += 1;
        let slot = self.slot_slow(key)?;
        let union = is_union(self.unions, index);
        if self.explicit {
            if !union {
                return Ok((slot, None));
            }
            let ty = slot.checked_sub(1).ok_or_else(|| Error::unsupported(format!("union `{key}` in slot 0")))?;
            if self.s.assigned[self.assigned_start..].contains(&ty) {
                return Err(Error::unsupported(format!(
                    "the type of union `{key}` needs slot {ty}, which a field has"
                )));
            }
            self.s.assigned.push(ty);
            return Ok((slot, Some(ty)));
        }
        let (slot, ty) = implicit_slot(self.unions, index);
        if slot > usize::from(MAX_SLOT) {
            return Err(Error::unsupported(format!("field `{key}` would need slot {slot}")));
        }
        Ok((slot as u16, ty.map(|t| t as u16)))
    }

    fn finish(self) -> Result<Mark> {
        self.s.assigned.truncate(self.assigned_start);
        let dist = self.s.close_table(self.fields_start, self.bytes_start)?;
        self.s.offset(self.place, dist, "a table")
    }
}

impl ser::SerializeStruct for TableSer<'_> {
    type Ok = Mark;
    type Error = Error;

    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        let mut union_type = self.union_type.take();
        let slot = if self.unions == 0 {
            self.slot(key)?
        } else {
            let (slot, own) = self.planned_slot(key)?;
            union_type = union_type.or(own);
            slot
        };
        // A field with a declared default must never be left out as a zero.
        let optional = self.s.opts.omit_zero_scalars && split_default(key).1.is_some();
        let mark = value.serialize(ValueSer { s: self.s, place: Place::Field { slot, union_type, optional } })?;
        if mark == Mark::UnionType {
            self.union_type = Some(slot);
        }
        Ok(())
    }

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        if self.unions == 0 {
            self.slot(key)?;
        } else {
            self.planned_slot(key)?;
        }
        self.union_type = None;
        Ok(())
    }

    fn end(self) -> Result<Mark> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for TableSer<'_> {
    type Ok = Mark;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        ser::SerializeStruct::skip_field(self, key)
    }

    fn end(self) -> Result<Mark> {
        self.finish()
    }
}

/// An inline FlatBuffers struct being built as a table field or vector element (tuples, tuple structs,
/// arrays, configured named structs).
#[doc(hidden)]
pub struct StructSer<'a> {
    s: &'a mut Serializer,
    place: Place,
    st: StructState,
}

impl StructSer<'_> {
    #[inline(always)]
    fn member<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(MemberSer { buf: &mut self.s.scratch, st: &mut self.st })
    }

    #[inline(always)]
    fn finish(self) -> Result<Mark> {
        let s = self.s;
        let st = self.st;
        let size = round_struct(&mut s.scratch, st)?;
        match self.place {
            Place::Field { slot, .. } => {
                s.push_field(slot, size as u32, st.max_align, FieldValue::Bytes(st.start as u32));
            }
            _ => s.elem_kind(VecKind::Inline { size: size as u32, align: st.max_align }, "a struct")?,
        }
        Ok(Mark::Done)
    }
}

struct_impls!(StructSer<'_> => Mark, Error);

/// A named struct: a table, or an inline struct when configured so.
#[doc(hidden)]
pub enum StructOrTable<'a> {
    /// A table.
    Table(TableSer<'a>),
    /// An inline struct.
    Struct(StructSer<'a>),
}

impl ser::SerializeStruct for StructOrTable<'_> {
    type Ok = Mark;
    type Error = Error;

    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        match self {
            StructOrTable::Table(t) => ser::SerializeStruct::serialize_field(t, key, value),
            StructOrTable::Struct(s) => s.member(value),
        }
    }

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        match self {
            StructOrTable::Table(t) => ser::SerializeStruct::skip_field(t, key),
            StructOrTable::Struct(_) => Err(skip_in_struct(key)),
        }
    }

    #[inline(always)]
    fn end(self) -> Result<Mark> {
        match self {
            StructOrTable::Table(t) => t.finish(),
            StructOrTable::Struct(s) => s.finish(),
        }
    }
}

/// A vector being collected.
#[doc(hidden)]
pub struct SeqSer<'a> {
    s: &'a mut Serializer,
    place: Place,
    elems_start: usize,
    offsets_start: usize,
    count: usize,
    saved: VecKind,
    /// The length serde announced.
    len: Option<usize>,
    /// Packed inline elements written in place (see `ser/packed.rs`).
    bulk: Option<Bulk>,
}

/// A vector of packed inline elements claimed in the builder for its announced length.
#[derive(Debug, Clone, Copy)]
struct Bulk {
    /// The vector's distance; element `i` starts at distance `dist - 4 - i * size`.
    dist: u32,
    size: usize,
    align: usize,
    cap: usize,
    /// The first element's struct name, if it was a named struct.
    name: Option<&'static str>,
}

impl Bulk {
    #[inline(always)]
    fn elem(&self, i: usize) -> usize {
        self.dist as usize - 4 - i * self.size
    }
}

impl SeqSer<'_> {
    /// After the first element: if it is a packed inline element and more are announced, claims the whole
    /// vector in the builder and moves the first element there.
    #[inline(never)]
    fn try_bulk<T: ?Sized + Serialize>(&mut self, value: &T, n: usize) -> Result<()> {
        let VecKind::Inline { size, align } = self.s.vec_kind else { return Ok(()) };
        let (size, align) = (size as usize, align as usize);
        // The element again, into a reused buffer (no allocation once it has grown).
        let mut again = std::mem::take(&mut self.s.probe);
        again.clear();
        again.resize(size, 0);
        let (packed, name) = {
            let mut p = Packed::learn(&mut again);
            (p.element(value, align), p.name())
        };
        let first = &self.s.scratch[self.elems_start..];
        let same = first.len() == size && packed && again == first;
        self.s.probe = again;
        if !same {
            return Ok(());
        }
        let Some(dist) = self.s.b.vector_region(n, size, align)? else { return Ok(()) };
        let bulk = Bulk { dist, size, align, cap: n, name };
        self.s.b.bytes_at_mut(bulk.elem(0), size).copy_from_slice(&self.s.scratch[self.elems_start..]);
        self.s.scratch.truncate(self.elems_start);
        self.bulk = Some(bulk);
        Ok(())
    }

    /// An element [`Packed`] refused: the general writer lays it out (and checks it has the vector's shape),
    /// then it is copied into its place.
    #[cold]
    #[inline(never)]
    fn bulk_fallback<T: ?Sized + Serialize>(&mut self, value: &T, bulk: Bulk, i: usize) -> Result<()> {
        value.serialize(ValueSer { s: self.s, place: Place::Elem })?;
        let s = &mut *self.s;
        s.b.bytes_at_mut(bulk.elem(i), bulk.size).copy_from_slice(&s.scratch[self.elems_start..]);
        s.scratch.truncate(self.elems_start);
        Ok(())
    }

    /// Gives the claimed vector back and moves the elements written so far to the scratch list (more or
    /// fewer elements than announced).
    #[cold]
    #[inline(never)]
    fn unbulk(&mut self) {
        if let Some(bulk) = self.bulk.take() {
            let s = &mut *self.s;
            let written = s.b.bytes_at(bulk.elem(0), self.count * bulk.size);
            s.scratch.extend_from_slice(written);
            s.b.release(4 + bulk.cap * bulk.size);
        }
    }
}

impl ser::SerializeSeq for SeqSer<'_> {
    type Ok = Mark;
    type Error = Error;

    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if let Some(bulk) = self.bulk {
            let i = self.count;
            if i < bulk.cap {
                self.count += 1;
                let out = self.s.b.bytes_at_mut(bulk.elem(i), bulk.size);
                if Packed::check(out, bulk.name).element(value, bulk.align) {
                    return Ok(());
                }
                return self.bulk_fallback(value, bulk, i);
            }
            self.unbulk();
        }
        self.count += 1;
        value.serialize(ValueSer { s: self.s, place: Place::Elem })?;
        if self.count == 1 {
            if let Some(n @ 2..) = self.len {
                self.try_bulk(value, n)?;
            }
        }
        Ok(())
    }

    fn end(mut self) -> Result<Mark> {
        if let Some(bulk) = self.bulk {
            if self.count == bulk.cap {
                let s = self.s;
                s.vec_kind = self.saved;
                return s.offset(self.place, bulk.dist, "a vector");
            }
            self.unbulk();
        }
        let s = self.s;
        let dist = match s.vec_kind {
            // The element type is unknown without elements; the official verifier still checks the (empty)
            // element area's alignment, so give it the largest one any element type needs.
            VecKind::Empty => s.b.inline_vector(&[], 0, 8)?,
            VecKind::Inline { align, .. } => {
                s.b.inline_vector(&s.scratch[self.elems_start..], self.count, align as usize)?
            }
            VecKind::Offset => s.b.offset_vector(&s.offsets[self.offsets_start..])?,
        };
        s.scratch.truncate(self.elems_start);
        s.offsets.truncate(self.offsets_start);
        s.vec_kind = self.saved;
        s.offset(self.place, dist, "a vector")
    }
}

/// A map being collected as a vector of `{ key, value }` tables, sorted by key.
#[doc(hidden)]
pub struct MapSer<'a> {
    s: &'a mut Serializer,
    place: Place,
    offsets_start: usize,
    keys_start: usize,
    /// The open entry table: (fields start, struct bytes start).
    entry: (usize, usize),
}

impl ser::SerializeMap for MapSer<'_> {
    type Ok = Mark;
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.s.enter_table()?;
        self.entry = (self.s.fields.len(), self.s.scratch.len());
        let keys = self.s.keys.len();
        key.serialize(ValueSer { s: self.s, place: Place::MapKey })?;
        if self.s.keys.len() != keys + 1 {
            return Err(Error::unsupported("map keys must be integers, booleans, chars or strings"));
        }
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(ValueSer { s: self.s, place: Place::Field { slot: 1, union_type: None, optional: false } })?;
        let dist = self.s.close_table(self.entry.0, self.entry.1)?;
        self.s.offsets.push(dist);
        Ok(())
    }

    fn end(self) -> Result<Mark> {
        let s = self.s;
        let keys = &s.keys[self.keys_start..];
        let offsets = &mut s.offsets[self.offsets_start..];
        let b = &s.b;
        let cmp = |a: &Key, c: &Key| -> std::cmp::Ordering {
            match (a, c) {
                (Key::Int(x), Key::Int(y)) => x.cmp(y),
                (Key::Str(x), Key::Str(y)) => string_at(b, *x).cmp(string_at(b, *y)),
                (Key::Int(_), Key::Str(_)) => std::cmp::Ordering::Less,
                (Key::Str(_), Key::Int(_)) => std::cmp::Ordering::Greater,
            }
        };
        if keys.windows(2).any(|w| cmp(&w[0], &w[1]) == std::cmp::Ordering::Greater) {
            // Unordered (e.g. a HashMap): sort the entries by key, as FlatBuffers' key lookup expects.
            let mut order: Vec<usize> = (0..keys.len()).collect();
            order.sort_by(|&i, &j| cmp(&keys[i], &keys[j]));
            let sorted: Vec<u32> = order.iter().map(|&i| offsets[i]).collect();
            offsets.copy_from_slice(&sorted);
        }
        let dist = s.b.offset_vector(&s.offsets[self.offsets_start..])?;
        s.offsets.truncate(self.offsets_start);
        s.keys.truncate(self.keys_start);
        s.offset(self.place, dist, "a map")
    }
}

/// The bytes of the string written at distance `dist`.
fn string_at(b: &Builder, dist: u32) -> &[u8] {
    let len = u32::from_le_bytes(b.bytes_at(dist as usize, 4).try_into().expect("4 bytes")) as usize;
    &b.bytes_at(dist as usize, 4 + len)[4..]
}

// The root: `&mut Serializer` is the serde entry point and forwards to the root place.
macro_rules! forward_root {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
        #[inline]
        fn $method(self, $($arg: $ty),*) -> Result<$ret> {
            self.value(Place::Root).$method($($arg),*)
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Serializer {
    type Ok = Mark;
    type Error = Error;
    type SerializeSeq = SeqSer<'a>;
    type SerializeTuple = StructSer<'a>;
    type SerializeTupleStruct = StructSer<'a>;
    type SerializeTupleVariant = ser::Impossible<Mark, Error>;
    type SerializeMap = MapSer<'a>;
    type SerializeStruct = StructOrTable<'a>;
    type SerializeStructVariant = TableSer<'a>;

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_root! {
        serialize_bool(v: bool) -> Mark;
        serialize_i8(v: i8) -> Mark;
        serialize_i16(v: i16) -> Mark;
        serialize_i32(v: i32) -> Mark;
        serialize_i64(v: i64) -> Mark;
        serialize_i128(v: i128) -> Mark;
        serialize_u8(v: u8) -> Mark;
        serialize_u16(v: u16) -> Mark;
        serialize_u32(v: u32) -> Mark;
        serialize_u64(v: u64) -> Mark;
        serialize_u128(v: u128) -> Mark;
        serialize_f32(v: f32) -> Mark;
        serialize_f64(v: f64) -> Mark;
        serialize_char(v: char) -> Mark;
        serialize_str(v: &str) -> Mark;
        serialize_bytes(v: &[u8]) -> Mark;
        serialize_none() -> Mark;
        serialize_unit() -> Mark;
        serialize_unit_struct(name: &'static str) -> Mark;
        serialize_unit_variant(name: &'static str, variant_index: u32, variant: &'static str) -> Mark;
        serialize_seq(len: Option<usize>) -> SeqSer<'a>;
        serialize_tuple(len: usize) -> StructSer<'a>;
        serialize_tuple_struct(name: &'static str, len: usize) -> StructSer<'a>;
        serialize_tuple_variant(name: &'static str, variant_index: u32, variant: &'static str, len: usize) -> ser::Impossible<Mark, Error>;
        serialize_map(len: Option<usize>) -> MapSer<'a>;
        serialize_struct(name: &'static str, len: usize) -> StructOrTable<'a>;
        serialize_struct_variant(name: &'static str, variant_index: u32, variant: &'static str, len: usize) -> TableSer<'a>;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Mark> {
        self.value(Place::Root).serialize_some(value)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> Result<Mark> {
        self.value(Place::Root).serialize_newtype_struct(name, value)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Mark> {
        self.value(Place::Root).serialize_newtype_variant(name, variant_index, variant, value)
    }
}
