//! The serde `Deserializer`: reads a FlatBuffer driven by the Rust type, verifying as it goes.
//!
//! FlatBuffers is not self-describing, so the *type* says what each slot holds: `deserialize_i16` reads two
//! bytes inline, `deserialize_str` follows a uoffset to a string, `deserialize_struct` follows one to a table
//! (or reads an inline struct), and so on. Every object is verified before its contents reach serde —
//! bounds, alignment, vtable shape, UTF-8 and the NUL terminator, union consistency — and the whole decode
//! is bounded by the depth, table-count and apparent-size limits of [`Options`]. Hostile input gives an
//! `Err`, never a panic.

use serde_core::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::layout::{Table, follow, read_array, read_u32};
use crate::limits::MAX_BUFFER;
use crate::markers::{DEPRECATED, UNION_TYPE};
use crate::names::{explicit_id, field_name, has_explicit_ids, split_default};
use crate::options::{InlineCache, Options};
use crate::plan::{Plan, implicit_slot, is_union};

mod in_order;
mod packed;
mod structs;
mod utf8;

use packed::PackedVector;
pub(crate) use structs::Layouts;
use structs::{Shape, UnitEnumAccess, field_struct, inline_struct};

/// Decodes FlatBuffers. Use [`from_slice`](crate::from_slice) unless you drive serde yourself.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_flatbuf_lite::Deserializer;
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Ping { seq: u32 }
///
/// let bytes = serde_flatbuf_lite::to_vec(&Ping { seq: 7 })?;
/// let mut de = Deserializer::from_slice(&bytes);
/// let ping = Ping::deserialize(&mut de)?;
/// de.end()?;
/// assert_eq!(ping, Ping { seq: 7 });
/// # Ok::<(), serde_flatbuf_lite::Error>(())
/// ```
pub struct Deserializer<'de> {
    buf: &'de [u8],
    opts: Options,
    depth: u32,
    tables: u32,
    apparent: usize,
    apparent_limit: usize,
    /// A union type read from a `UnionType` placeholder: (table, slot, type).
    pending_union: Option<(usize, usize, u8)>,
    /// Shape of the last vector element read (its size is the vector's stride).
    elem: Shape,
    layouts: Option<Layouts>,
    /// The root type's placeholder-free unions (see `plan.rs`).
    pub(crate) plan: Option<&'static Plan>,
    /// Whether a struct's field list uses explicit ids, for the last few lists seen (by address: serde's
    /// field lists are statics), so the names are scanned once per type instead of once per table.
    explicit_ids: [(usize, usize, bool); 4],
    /// Answers of `Options::inline_struct` for the struct names seen lately.
    inline_cache: InlineCache,
    /// Whether tables may be read in field order through `visit_seq` (see `de/in_order.rs`; only
    /// `Options::from_slice`, which can decode again, turns it on).
    pub(crate) in_order: bool,
    /// An in-order read gave up or failed: the result must come from a decode without them.
    pub(crate) in_order_failed: bool,
    /// The stretch of the buffer last found to be UTF-8, which a table's later strings are sliced from (see
    /// `de/utf8.rs`).
    checked: utf8::Checked<'de>,
}

impl<'de> Deserializer<'de> {
    /// A deserializer over a whole buffer with the default [`Options`].
    pub fn from_slice(bytes: &'de [u8]) -> Self {
        Self::with_options(bytes, &Options::default())
    }

    /// A deserializer over a whole buffer with the given options.
    pub fn with_options(bytes: &'de [u8], opts: &Options) -> Self {
        let apparent_limit = opts.apparent_limit(bytes.len());
        Deserializer {
            buf: bytes,
            opts: opts.clone(),
            depth: 0,
            tables: 0,
            apparent: 0,
            apparent_limit,
            pending_union: None,
            elem: Shape::default(),
            layouts: None,
            plan: None,
            explicit_ids: [(0, 0, false); 4],
            inline_cache: InlineCache::default(),
            in_order: false,
            in_order_failed: false,
            checked: utf8::Checked::new(apparent_limit),
        }
    }

    /// Whether the named struct is configured as inline (cached by the name's address).
    #[inline]
    fn is_inline(&mut self, name: &'static str) -> bool {
        self.inline_cache.is_inline(&self.opts, name)
    }

    /// [`has_explicit_ids`], cached by the list's address.
    #[inline]
    fn explicit_ids(&mut self, fields: &'static [&'static str]) -> bool {
        let key = (fields.as_ptr() as usize, fields.len());
        let entry = &mut self.explicit_ids[(key.0 >> 4) & 3];
        if (entry.0, entry.1) != key {
            *entry = (key.0, key.1, has_explicit_ids(fields));
        }
        entry.2
    }

    pub(crate) fn set_layouts(&mut self, layouts: Layouts) {
        self.layouts = Some(layouts);
    }

    /// Finishes decoding. FlatBuffers has no trailing-data rule of its own (unreachable bytes are legal);
    /// a size prefix is checked against the buffer length before the root is read.
    pub fn end(&mut self) -> Result<()> {
        Ok(())
    }

    /// The position of the root table, after checking the header.
    pub(crate) fn root(&mut self) -> Result<usize> {
        let buf = self.buf;
        if buf.len() > MAX_BUFFER {
            return Err(Error::new(ErrorKind::BufferTooLarge, format!("{} bytes", buf.len())));
        }
        let mut base = 0;
        if self.opts.size_prefixed {
            let n = read_u32(buf, 0)? as usize;
            if n != buf.len() - 4 {
                return Err(Error::at(
                    ErrorKind::SizePrefixMismatch,
                    0,
                    format!("size prefix {n}, but {} bytes follow it", buf.len() - 4),
                ));
            }
            base = 4;
        }
        let root = follow(buf, base)?;
        if let Some(ident) = self.opts.file_identifier {
            match buf.get(base + 4..base + 8) {
                Some(found) if found == ident => {}
                found => {
                    return Err(Error::at(
                        ErrorKind::IdentifierMismatch,
                        base + 4,
                        format!("expected {:?}, found {:?}", ascii(&ident), found.map(ascii)),
                    ));
                }
            }
        }
        Ok(root)
    }

    #[inline]
    pub(crate) fn count(&mut self, bytes: usize, at: usize) -> Result<()> {
        self.apparent += bytes;
        if self.apparent > self.apparent_limit {
            return Err(self.apparent_exceeded(at));
        }
        Ok(())
    }

    /// The error of [`count`](Self::count), built out of line so that the inlined test stays small.
    #[cold]
    #[inline(never)]
    fn apparent_exceeded(&self, at: usize) -> Error {
        Error::at(
            ErrorKind::ApparentSizeLimitExceeded,
            at,
            format!("more than {} bytes reached (shared objects count each time)", self.apparent_limit),
        )
    }

    /// Verifies and enters the table at `pos` (inlined: a call here cost the table's result passed through
    /// memory on every table).
    #[inline(always)]
    pub(crate) fn enter_table(&mut self, pos: usize) -> Result<Table> {
        self.depth += 1;
        self.tables += 1;
        if self.depth > self.opts.max_depth || self.tables > self.opts.max_tables {
            return Err(self.table_limit(pos));
        }
        let t = Table::open(self.buf, pos)?;
        // The soffset and the vtable (the table-size entry is not trusted, so not used here).
        self.count(4 + t.vt_len, pos)?;
        Ok(t)
    }

    /// The error of [`enter_table`](Self::enter_table) past a limit (the depth limit reported first), out of
    /// line so that the inlined tests stay small.
    #[cold]
    #[inline(never)]
    fn table_limit(&self, pos: usize) -> Error {
        if self.depth > self.opts.max_depth {
            Error::at(ErrorKind::DepthLimitExceeded, pos, format!("more than {} nested tables", self.opts.max_depth))
        } else {
            Error::at(ErrorKind::TableLimitExceeded, pos, format!("more than {} tables", self.opts.max_tables))
        }
    }

    /// Decodes the table at `pos` through `visitor`.
    fn table<V: Visitor<'de>>(
        &mut self,
        pos: usize,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let table = self.enter_table(pos)?;
        let explicit = self.explicit_ids(fields);
        let unions = match &self.plan {
            Some(plan) => plan.unions(name),
            None => 0,
        };
        let visitor = if self.in_order && !explicit && unions == 0 {
            match self.read_in_order(table, fields, visitor) {
                Ok(value) => return value,
                Err(visitor) => visitor,
            }
        } else {
            visitor
        };
        let value = visitor.visit_map(TableAccess {
            d: self,
            table,
            fields,
            explicit,
            unions,
            i: 0,
            pos: 0,
            slot: 0,
            default: None,
        })?;
        self.depth -= 1;
        Ok(value)
    }

    /// Leaves a table entered with [`enter_table`](Self::enter_table) (for the schema-driven reader).
    pub(crate) fn leave_table(&mut self) {
        self.depth -= 1;
    }

    /// The whole buffer.
    pub(crate) fn buffer(&self) -> &'de [u8] {
        self.buf
    }

    /// Verifies the table at `pos` without decoding any field (for `()` and unit structs).
    fn empty_table(&mut self, pos: usize) -> Result<()> {
        self.enter_table(pos)?;
        self.depth -= 1;
        Ok(())
    }

    /// The string the uoffset at `pos` points to.
    #[inline(always)]
    pub(crate) fn string(&mut self, pos: usize) -> Result<&'de str> {
        // The common string in as few tests as possible; anything unusual (an error, a missing NUL) takes the
        // careful path, which checks everything again in order and names the first problem.
        let Some((v, bytes)) = string_fast(self.buf, pos) else {
            return self.string_careful(pos);
        };
        // The length, the bytes and the NUL, counted at once.
        self.count(5 + bytes.len(), v)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => Err(invalid_utf8(v + 4 + e.valid_up_to())),
        }
    }

    /// [`string`](Self::string) for a string in a field of the table at `table`: once its stretch of the
    /// buffer has been checked (`de/utf8.rs`), the table's other strings are slices of it.
    #[inline(always)]
    fn field_str(&mut self, pos: usize, table: usize) -> Result<&'de str> {
        let Some((v, bytes)) = string_fast(self.buf, pos) else {
            return self.string_careful(pos);
        };
        self.count(5 + bytes.len(), v)?;
        match self.checked.get(v + 4, bytes.len()) {
            Some(s) => Ok(s),
            None => self.field_str_unchecked(table, v + 4, bytes),
        }
    }

    /// [`string`](Self::string) with every check on its own, for the exact error.
    #[cold]
    #[inline(never)]
    fn string_careful(&mut self, pos: usize) -> Result<&'de str> {
        let buf = self.buf;
        let v = follow(buf, pos)?;
        let len = read_u32(buf, v)? as usize;
        let start = v + 4;
        // The bytes and the NUL after them in one bounds test (`follow` left `v + 4 <= len + 1` possible, so
        // `start` may be one past the end: `get` handles it).
        let bytes = match buf.get(start..).and_then(|rest| rest.get(..=len)) {
            Some([bytes @ .., 0]) => bytes,
            _ => return self.string_slow(v, len),
        };
        self.count(5 + len, v)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => Err(invalid_utf8(start + e.valid_up_to())),
        }
    }

    /// [`string`](Self::string) when the NUL terminator is not where it should be: the string runs past the
    /// end, or its NUL is missing (an error unless `require_nul` is off).
    #[cold]
    #[inline(never)]
    fn string_slow(&mut self, v: usize, len: usize) -> Result<&'de str> {
        let buf = self.buf;
        let start = v + 4;
        let Some(bytes) = buf.get(start..).and_then(|rest| rest.get(..len)) else {
            return Err(past_the_end(v, len));
        };
        let end = start + len;
        if self.opts.require_nul && buf.get(end) != Some(&0) {
            return Err(missing_nul(end, len));
        }
        self.count(5 + len, v)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => Err(invalid_utf8(start + e.valid_up_to())),
        }
    }

    /// The `[ubyte]` vector (or string data) the uoffset at `pos` points to: (data start, length).
    #[inline]
    pub(crate) fn byte_vector(&mut self, pos: usize) -> Result<(usize, usize)> {
        let (v, bytes) = self.bytes_at(pos)?;
        self.count(4 + bytes.len(), v)?;
        Ok((v + 4, bytes.len()))
    }

    /// The length-prefixed bytes the uoffset at `pos` points to: (where the length is, the bytes).
    /// Not yet counted against the size limit.
    #[inline(always)]
    fn bytes_at(&self, pos: usize) -> Result<(usize, &'de [u8])> {
        let buf = self.buf;
        let v = follow(buf, pos)?;
        let len = read_u32(buf, v)? as usize;
        match buf.get(v + 4..).and_then(|rest| rest.get(..len)) {
            Some(bytes) => Ok((v, bytes)),
            None => Err(past_the_end(v, len)),
        }
    }

    /// The vector the uoffset at `pos` points to: (element area, count). Element sizes are checked when the
    /// first element tells the element type.
    #[inline]
    pub(crate) fn vector(&mut self, pos: usize) -> Result<(usize, usize)> {
        let v = follow(self.buf, pos)?;
        let count = read_u32(self.buf, v)? as usize;
        let area = v + 4;
        if count > self.buf.len() - area {
            return Err(Error::at(ErrorKind::OutOfBounds, v, format!("{count} elements cannot fit")));
        }
        self.count(4, v)?;
        Ok((area, count))
    }
}

/// A well-formed string object through the uoffset at `pos`: (where its length is, its bytes), or `None`
/// for anything [`Deserializer::string_careful`] must look at (misaligned or out-of-bounds uoffset or length,
/// bytes past the end, no NUL after them). The uoffset and the object are 4-aligned exactly when the uoffset's
/// position and value both are, so one test covers both alignments; a length that is in bounds puts the
/// object inside the buffer.
#[inline(always)]
fn string_fast(buf: &[u8], pos: usize) -> Option<(usize, &[u8])> {
    let off = u32::from_le_bytes(*buf.get(pos..)?.first_chunk::<4>()?) as usize;
    if (pos | off) % 4 != 0 {
        return None;
    }
    let v = pos.checked_add(off)?;
    let rest = buf.get(v..)?;
    let len = u32::from_le_bytes(*rest.first_chunk::<4>()?) as usize;
    match rest[4..].get(..=len)? {
        [bytes @ .., 0] => Some((v, bytes)),
        _ => None,
    }
}

#[cold]
fn past_the_end(at: usize, len: usize) -> Error {
    Error::at(ErrorKind::OutOfBounds, at, format!("length {len} runs past the end"))
}

#[cold]
fn missing_nul(at: usize, len: usize) -> Error {
    Error::at(ErrorKind::MissingNulTerminator, at, format!("string of {len} bytes"))
}

#[cold]
fn invalid_utf8(at: usize) -> Error {
    Error::at(ErrorKind::InvalidUtf8, at, "")
}

fn ascii(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

/// Where the value being decoded is.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// The root table.
    Root,
    /// A present table field: its data at `pos`, in `slot` of the table at `table`.
    Field { pos: usize, slot: usize, table: usize },
    /// A vector element: `inline` if the element type is a scalar or struct, `offset` if it is a uoffset.
    Elem { inline: usize, offset: usize },
    /// A union's table, through the uoffset at `pos`.
    Union { pos: usize },
    /// An absent field of a map entry (key or value): reads as its default, as in the official
    /// libraries (builders leave out default scalars, keys included), except a string key: flatc makes
    /// `(key)` string fields required, so an entry table at `key_of` without one is rejected.
    Absent { key_of: Option<usize> },
    /// The first element of an empty vector at `at`, decoded only to learn the element type's
    /// alignment (the official verifier checks it whatever the length): a misaligned scalar fails with
    /// `Misaligned`, anything else with `probe_done`.
    Probe { at: usize },
    /// An absent table field with a declared default (`#[serde(rename = "hp=100")]`): its text.
    Default { text: &'static str },
}

/// Decodes one value at its [`Place`].
struct ValueDe<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    place: Place,
}

impl<'de> ValueDe<'_, 'de> {
    /// Reads an `N`-byte scalar.
    #[inline(always)]
    fn scalar<const N: usize>(self) -> Result<[u8; N]> {
        match self.place {
            Place::Field { pos, .. } => read_array::<N>(self.d.buf, pos),
            _ => self.scalar_elsewhere(),
        }
    }

    /// [`scalar`](Self::scalar) anywhere but in a table field (a vector's first element, an absent map field,
    /// a misplaced scalar), out of line: the inlined table-field read stays a few instructions, so serde's
    /// small per-type `deserialize` wrappers inline into the struct visitors.
    #[inline(never)]
    fn scalar_elsewhere<const N: usize>(self) -> Result<[u8; N]> {
        match self.place {
            Place::Field { pos, .. } => read_array::<N>(self.d.buf, pos),
            Place::Elem { inline, .. } => {
                let v = read_array::<N>(self.d.buf, inline)?;
                self.d.elem = Shape { size: N, align: N.min(8), packed: true, name: None };
                Ok(v)
            }
            Place::Root => Err(root_must_be_table()),
            Place::Union { .. } => Err(union_member()),
            Place::Absent { .. } => Ok([0; N]),
            Place::Probe { at } if at % N.min(8) != 0 => Err(crate::layout::misaligned(at, N.min(8))),
            Place::Probe { .. } => Err(probe_done()),
            Place::Default { text } => Err(default_not_scalar(text)),
        }
    }

    /// The position of the uoffset of an offset-typed value (string, vector, table).
    #[inline(always)]
    fn offset_pos(&self) -> Result<usize> {
        match self.place {
            Place::Field { pos, .. } | Place::Union { pos } => Ok(pos),
            Place::Elem { offset, .. } => Ok(offset),
            Place::Root => Err(root_must_be_table()),
            Place::Absent { .. } => Err(absent_value()),
            Place::Probe { .. } => Err(probe_done()),
            Place::Default { text } => Err(default_not_scalar(text)),
        }
    }

    /// After an offset-typed vector element: the stride is 4.
    #[inline]
    fn done_offset(&mut self) {
        if let Place::Elem { .. } = self.place {
            self.d.elem = Shape { size: 4, align: 4, packed: false, name: None };
        }
    }

    fn inline_struct<V: Visitor<'de>>(
        self,
        name: Option<&'static str>,
        fields: &'static [&'static str],
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        match self.place {
            Place::Field { pos, .. } => field_struct(self.d.buf, self.d.layouts.as_ref(), pos, fields, len, visitor),
            Place::Elem { inline, .. } => {
                let (value, shape) = inline_struct(self.d.buf, self.d.layouts.as_ref(), inline, fields, len, visitor)?;
                self.d.elem = Shape { name, ..shape };
                Ok(value)
            }
            Place::Root => Err(root_must_be_table()),
            Place::Union { .. } => Err(union_member()),
            Place::Absent { .. } => Err(absent_value()),
            Place::Probe { .. } => Err(probe_done()),
            Place::Default { text } => Err(default_not_scalar(text)),
        }
    }

    /// The declared default of an absent field, parsed as `T`.
    #[cold]
    fn parse_default<T: std::str::FromStr>(text: &str) -> Result<T> {
        text.trim().parse::<T>().map_err(|_| {
            Error::new(ErrorKind::Message, format!("declared default `{text}` is not a {}", std::any::type_name::<T>()))
        })
    }

    /// `deserialize_str` anywhere but in a table field (vector elements, map entries), out of line like
    /// [`scalar_elsewhere`](Self::scalar_elsewhere).
    #[inline(never)]
    fn str_elsewhere<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        match self.place {
            Place::Absent { key_of: Some(entry) } => return Err(missing_string_key(entry)),
            Place::Absent { key_of: None } => return visitor.visit_borrowed_str(""),
            _ => {}
        }
        let pos = self.offset_pos()?;
        let s = self.d.string(pos)?;
        self.done_offset();
        visitor.visit_borrowed_str(s)
    }

    fn table<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let pos = match self.place {
            Place::Root => self.d.root()?,
            _ => follow(self.d.buf, self.offset_pos()?)?,
        };
        let value = self.d.table(pos, name, fields, visitor)?;
        self.done_offset();
        Ok(value)
    }
}

#[cold]
fn root_must_be_table() -> Error {
    Error::unsupported("the root of a FlatBuffer is a table: decode it into a struct with named fields")
}

#[cold]
fn union_member() -> Error {
    Error::unsupported("union members are tables: decode them into structs with named fields")
}

#[cold]
fn default_not_scalar(text: &str) -> Error {
    Error::unsupported(format!("declared default `{text}`: only scalars, bools and unit enums have schema defaults"))
}

/// The end of an alignment probe ([`Place::Probe`]) that found nothing wrong.
#[cold]
fn probe_done() -> Error {
    Error::new(ErrorKind::Message, "alignment probe of an empty vector")
}

#[cold]
fn missing_string_key(entry: usize) -> Error {
    Error::at(
        ErrorKind::MissingRequiredField,
        entry,
        "map entry without its key: a string key is required (flatc makes `(key)` string fields required)",
    )
}

#[cold]
fn absent_value() -> Error {
    Error::new(ErrorKind::Message, "absent map entry field: only scalars, strings, vectors and options have a default")
}

macro_rules! scalar_methods {
    ($($method:ident: $ty:ty => $visit:ident;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let bytes = match self.place {
                Place::Field { pos, .. } => read_array(self.d.buf, pos)?,
                Place::Default { text } => return visitor.$visit(Self::parse_default::<$ty>(text)?),
                _ => self.scalar_elsewhere()?,
            };
            visitor.$visit(<$ty>::from_le_bytes(bytes))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueDe<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported(
            "FlatBuffers is not self-describing: types that need `deserialize_any` (untagged enums, \
             `#[serde(flatten)]`, serde_json::Value, …) cannot be decoded",
        ))
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Place::Default { text } = self.place {
            return visitor.visit_bool(match text.trim() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => Self::parse_default::<bool>(text)?,
            });
        }
        let [b] = self.scalar::<1>()?;
        visitor.visit_bool(b != 0)
    }

    scalar_methods! {
        deserialize_i8: i8 => visit_i8;
        deserialize_i16: i16 => visit_i16;
        deserialize_i32: i32 => visit_i32;
        deserialize_i64: i64 => visit_i64;
        deserialize_i128: i128 => visit_i128;
        deserialize_u8: u8 => visit_u8;
        deserialize_u16: u16 => visit_u16;
        deserialize_u32: u32 => visit_u32;
        deserialize_u64: u64 => visit_u64;
        deserialize_u128: u128 => visit_u128;
        deserialize_f32: f32 => visit_f32;
        deserialize_f64: f64 => visit_f64;
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let pos = match self.place {
            Place::Field { pos, .. } => pos,
            _ => 0,
        };
        let v = u32::from_le_bytes(self.scalar()?);
        match char::from_u32(v) {
            Some(c) => visitor.visit_char(c),
            None => Err(Error::at(ErrorKind::InvalidValue, pos, format!("{v:#x} is not a char"))),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.place {
            // The common place first, with one test of the place.
            Place::Field { pos, table, .. } => {
                let s = self.d.field_str(pos, table)?;
                visitor.visit_borrowed_str(s)
            }
            _ => self.str_elsewhere(visitor),
        }
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Place::Elem { .. } = self.place {
            return Err(Error::unsupported("vectors of vectors"));
        }
        if let Place::Absent { .. } = self.place {
            return visitor.visit_borrowed_bytes(&[]);
        }
        let pos = self.offset_pos()?;
        let (start, len) = self.d.byte_vector(pos)?;
        visitor.visit_borrowed_bytes(&self.d.buf[start..start + len])
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.place {
            Place::Absent { .. } => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let pos = match self.place {
            Place::Root => self.d.root()?,
            _ => follow(self.d.buf, self.offset_pos()?)?,
        };
        self.d.empty_table(pos)?;
        self.done_offset();
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        match (name, self.place) {
            (DEPRECATED, _) => visitor.visit_unit(),
            (UNION_TYPE, Place::Field { pos, slot, table }) => {
                let [ty] = read_array::<1>(self.d.buf, pos)?;
                // Like the official verifier: a union whose type is set must have its value.
                if ty != 0 && Table::open(self.d.buf, table)?.field(self.d.buf, slot + 1).is_none() {
                    return Err(Error::at(
                        ErrorKind::InconsistentUnion,
                        pos,
                        format!("union type {ty} in slot {slot} without a value in slot {}", slot + 1),
                    ));
                }
                self.d.pending_union = Some((table, slot, ty));
                visitor.visit_unit()
            }
            (UNION_TYPE, _) => Err(Error::unsupported("`UnionType` outside a table field")),
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.place {
            Place::Field { pos, .. } => {
                let (area, count) = self.d.vector(pos)?;
                visitor.visit_seq(SeqAccess { d: self.d, area, count, i: 0, stride: 0, packed: None })
            }
            Place::Elem { .. } => Err(Error::unsupported("vectors of vectors (use a vector of tables)")),
            Place::Root => Err(root_must_be_table()),
            Place::Union { .. } => Err(union_member()),
            Place::Absent { .. } => {
                visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(std::iter::empty::<()>()))
            }
            Place::Probe { .. } => Err(probe_done()),
            Place::Default { text } => Err(default_not_scalar(text)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.inline_struct(None, &[], len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.inline_struct(None, &[], len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.place {
            Place::Field { pos, .. } => {
                let (area, count) = self.d.vector(pos)?;
                if count > (self.d.buf.len() - area) / 4 {
                    return Err(Error::at(ErrorKind::OutOfBounds, area, format!("{count} map entries cannot fit")));
                }
                self.d.count(4 * count, area)?;
                visitor.visit_map(MapAccess { d: self.d, area, count, i: 0, entry: None, key_type: "" })
            }
            Place::Root => Err(root_must_be_table()),
            _ => Err(Error::unsupported("maps are only supported as table fields")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let inline = match self.place {
            Place::Root | Place::Union { .. } => false,
            _ => self.d.is_inline(name),
        };
        if inline {
            self.inline_struct(Some(name), fields, fields.len(), visitor)
        } else {
            self.table(name, fields, visitor)
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if let Place::Field { pos, slot, table } = self.place {
            if let Some((t, s, ty)) = self.d.pending_union {
                if t == table && s + 1 == slot {
                    self.d.pending_union = None;
                    if ty == 0 {
                        // Not reached through `TableAccess`, which skips a value next to NONE as absent.
                        return Err(Error::at(
                            ErrorKind::InconsistentUnion,
                            pos,
                            format!("union `{name}` has type NONE and a value"),
                        ));
                    }
                    return visitor.visit_enum(UnionAccess { d: self.d, ty, pos, name });
                }
            }
        }
        let index = match self.place {
            Place::Default { text } => Self::parse_default::<u8>(text)?,
            _ => self.scalar::<1>()?[0],
        };
        visitor.visit_enum(UnitEnumAccess { index, name })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported("identifiers are not stored in FlatBuffers"))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The root entry point.
impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        ValueDe { d: self, place: Place::Root }.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if self.is_inline(name) {
            return Err(root_must_be_table());
        }
        ValueDe { d: self, place: Place::Root }.table(name, fields, visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        ValueDe { d: self, place: Place::Root }.deserialize_unit(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        ValueDe { d: self, place: Place::Root }.deserialize_unit(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf seq tuple tuple_struct map enum identifier
    }
}

/// Walks a table's slots for serde's map-style struct visitors; absent slots are not yielded, so serde
/// applies `#[serde(default)]` / `None`.
struct TableAccess<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    table: Table,
    fields: &'static [&'static str],
    /// Fields carry explicit ids (`name#N`); names without one are serde aliases.
    explicit: bool,
    /// The fields that are unions without a `UnionType` placeholder (bit = field index, see `plan.rs`).
    unions: u64,
    i: usize,
    pos: usize,
    slot: usize,
    /// The declared default of the current field when it is absent.
    default: Option<&'static str>,
}

impl<'de> de::MapAccess<'de> for TableAccess<'_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.explicit && self.unions == 0 {
            // The common table: field `i` in slot `i`, no unions to pair up.
            while let Some(&name) = self.fields.get(self.i) {
                let slot = self.i;
                self.i += 1;
                if let Some(pos) = self.table.field(self.d.buf, slot) {
                    if self.d.pending_union.is_some() && self.none_union_value(slot) {
                        continue;
                    }
                    self.pos = pos;
                    self.slot = slot;
                    self.default = None;
                    return seed.deserialize(KeyDe { index: slot, name, by_name: false }).map(Some);
                }
                if let (_, Some(text)) = split_default(name) {
                    self.default = Some(text);
                    return seed.deserialize(KeyDe { index: slot, name, by_name: false }).map(Some);
                }
            }
            return Ok(None);
        }
        while let Some(&name) = self.fields.get(self.i) {
            let index = self.i;
            self.i += 1;
            let slot = if self.explicit {
                match explicit_id(name) {
                    Some(id) => id as usize,
                    None => continue, // a serde alias
                }
            } else if self.unions == 0 {
                index
            } else {
                implicit_slot(self.unions, index).0
            };
            if is_union(self.unions, index) {
                // A union without a placeholder: its type in the slot before its value.
                match self.union_field(slot)? {
                    Some(pos) => {
                        self.pos = pos;
                        self.slot = slot;
                        self.default = None;
                        return seed.deserialize(KeyDe { index, name, by_name: self.explicit }).map(Some);
                    }
                    None => continue,
                }
            }
            if let Some(pos) = self.table.field(self.d.buf, slot) {
                if self.none_union_value(slot) {
                    continue;
                }
                self.pos = pos;
                self.slot = slot;
                self.default = None;
                return seed.deserialize(KeyDe { index, name, by_name: self.explicit }).map(Some);
            }
            if let (_, Some(text)) = split_default(name) {
                // Absent: the declared schema default, as the official readers give it.
                self.default = Some(text);
                return seed.deserialize(KeyDe { index, name, by_name: self.explicit }).map(Some);
            }
        }
        Ok(None)
    }

    #[inline(always)]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let place = match self.default {
            Some(text) => Place::Default { text },
            None => Place::Field { pos: self.pos, slot: self.slot, table: self.table.pos },
        };
        match seed.deserialize(ValueDe { d: self.d, place }) {
            Ok(value) => Ok(value),
            Err(e) => Err(e.in_field(field_name(self.fields[self.i - 1]))),
        }
    }

    // serde's provided `next_key`/`next_value` are small generic wrappers that LLVM leaves out of line (one
    // call per field); these are the same wrappers, inlined into the derived `visit_map`.
    #[inline(always)]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>> {
        self.next_key_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V> {
        self.next_value_seed(std::marker::PhantomData)
    }
}

impl TableAccess<'_, '_> {
    /// Whether the present field in `slot` is a union value next to a type stored as NONE: ignored as if
    /// absent, like the official verifier and readers (which never look at it). Consumes the pending type.
    #[inline]
    fn none_union_value(&mut self, slot: usize) -> bool {
        if slot > 0 && self.d.pending_union == Some((self.table.pos, slot - 1, 0)) {
            self.d.pending_union = None;
            return true;
        }
        false
    }

    /// The union whose value is in `slot` and its type in the slot before, with the official verifier's
    /// rules: both absent is an absent union; a type without its value or a value without its type is
    /// `InconsistentUnion`, except a type stored as NONE without a value (what the official builder writes
    /// with `force_defaults`, accepted by flatc's C++ verifier); a value next to a NONE type is ignored.
    /// Returns the value's position when there is a union to decode (its type left for `deserialize_enum`).
    #[inline(never)]
    fn union_field(&mut self, slot: usize) -> Result<Option<usize>> {
        let buf = self.d.buf;
        if slot == 0 {
            return Err(Error::unsupported("a union in slot 0 (its type needs the slot before)"));
        }
        let type_pos = self.table.field(buf, slot - 1);
        let value_pos = self.table.field(buf, slot);
        let ty = match type_pos {
            Some(at) => read_array::<1>(buf, at)?[0],
            None => 0,
        };
        match (type_pos, value_pos) {
            (None, None) => Ok(None),
            (Some(_), None) if ty == 0 => Ok(None),
            (Some(at), None) => Err(Error::at(
                ErrorKind::InconsistentUnion,
                at,
                format!("union type {ty} in slot {} without a value in slot {slot}", slot - 1),
            )),
            (None, Some(at)) => Err(Error::at(
                ErrorKind::InconsistentUnion,
                at,
                format!("union value in slot {slot} without its type in slot {}", slot - 1),
            )),
            (Some(_), Some(_)) if ty == 0 => Ok(None),
            (Some(_), Some(at)) => {
                self.d.pending_union = Some((self.table.pos, slot - 1, ty));
                Ok(Some(at))
            }
        }
    }
}

/// A field key: its index in the struct's field list, or its name when the list may hold serde aliases
/// (explicit ids).
struct KeyDe {
    index: usize,
    name: &'static str,
    by_name: bool,
}

impl<'de> de::Deserializer<'de> for KeyDe {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.by_name { visitor.visit_borrowed_str(self.name) } else { visitor.visit_u64(self.index as u64) }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.name)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.name)
    }

    serde_core::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A vector's elements.
struct SeqAccess<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    area: usize,
    count: usize,
    i: usize,
    stride: usize,
    /// Set after the first element when the others can be read in bulk (see `de/packed.rs`).
    packed: Option<PackedVector>,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.i == self.count {
            if self.count == 0 && self.area % 8 != 0 && self.stride == 0 {
                // An empty vector still has its element type's alignment (the official verifier checks
                // it): decode a phantom first element that only checks where it would start.
                self.stride = 1;
                let probe = seed.deserialize(ValueDe { d: self.d, place: Place::Probe { at: self.area } });
                if let Err(e) = probe {
                    if e.kind() == ErrorKind::Misaligned {
                        return Err(e);
                    }
                }
            }
            return Ok(None);
        }
        let i = self.i;
        self.i += 1;
        if let Some(v) = &self.packed {
            if v.same_seed::<T>() {
                let at = self.area + i * self.stride;
                // In bounds: the whole vector was checked at the first element.
                let Some(elem) = self.d.buf.get(at..at + self.stride) else {
                    return Err(past_the_end(at, self.stride));
                };
                return match packed::element(seed, elem, at, v) {
                    Ok(value) => Ok(Some(value)),
                    Err(e) => Err(e.in_element(i)),
                };
            }
        }
        if i == 0 {
            self.d.elem = Shape::default();
        }
        let place = Place::Elem { inline: self.area + i * self.stride, offset: self.area + 4 * i };
        // The value goes straight to the result (the first element's checks are a call that does not hold it).
        match seed.deserialize(ValueDe { d: self.d, place }) {
            Ok(value) if i != 0 => Ok(Some(value)),
            Ok(value) => {
                self.after_first(std::any::type_name::<T>())?;
                Ok(Some(value))
            }
            Err(e) => Err(e.in_element(i)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.count - self.i)
    }
}

impl SeqAccess<'_, '_> {
    /// After the first element, which tells the element size: checks that all of them fit and counts them,
    /// and notes whether the others can be read in bulk by the seed type `seed`.
    #[inline(never)]
    fn after_first(&mut self, seed: &'static str) -> Result<()> {
        let shape = self.d.elem;
        self.stride = shape.size;
        let bytes = self.count as u64 * self.stride as u64;
        if bytes > (self.d.buf.len() - self.area) as u64 {
            return Err(Error::at(
                ErrorKind::OutOfBounds,
                self.area,
                format!("{} elements of {} bytes run past the end", self.count, self.stride),
            ));
        }
        self.d.count(bytes as usize, self.area)?;
        if shape.packed && self.count > 1 && self.area % shape.align == 0 {
            self.packed = Some(PackedVector { align: shape.align, name: shape.name, seed });
        }
        Ok(())
    }
}

/// A map: a vector of `{ key, value }` entry tables.
struct MapAccess<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    area: usize,
    count: usize,
    i: usize,
    /// The current entry table and its value slot position.
    entry: Option<(Table, Option<usize>)>,
    /// The key type's name (`type_name` of the key seed, a constant), to show the key of an entry whose
    /// value fails.
    key_type: &'static str,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.entry.take().is_some() {
            self.d.depth -= 1;
        }
        if self.i == self.count {
            return Ok(None);
        }
        let pos = follow(self.d.buf, self.area + 4 * self.i)?;
        self.i += 1;
        let table = self.d.enter_table(pos)?;
        // An absent key is the key type's default: the official builders leave out default scalars.
        let key_place = match table.field(self.d.buf, 0) {
            Some(key_pos) => Place::Field { pos: key_pos, slot: 0, table: pos },
            None => Place::Absent { key_of: Some(pos) },
        };
        let value_pos = table.field(self.d.buf, 1);
        self.entry = Some((table, value_pos));
        self.key_type = std::any::type_name::<K>();
        match seed.deserialize(ValueDe { d: self.d, place: key_place }) {
            Ok(key) => Ok(Some(key)),
            Err(e) => Err(e.in_entry(&format!("#{}", self.i - 1))),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let Some((table, value_pos)) = self.entry else {
            return Err(Error::new(ErrorKind::Message, "map value before its key"));
        };
        let place = match value_pos {
            Some(pos) => Place::Field { pos, slot: 1, table: table.pos },
            None => Place::Absent { key_of: None },
        };
        match seed.deserialize(ValueDe { d: self.d, place }) {
            Ok(value) => Ok(value),
            Err(e) => Err(e.in_entry(&self.entry_key(table))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.count - self.i)
    }
}

impl MapAccess<'_, '_> {
    /// The current entry's key for a path: read again from the entry table as the key type (a string quoted,
    /// an integer bare), or `#n`, the entry's number, when it cannot be shown.
    #[cold]
    #[inline(never)]
    fn entry_key(&self, table: Table) -> String {
        let buf = self.d.buf;
        let shown = match table.field(buf, 0) {
            None => Some("absent key".to_owned()),
            Some(pos) => key_text(buf, pos, self.key_type),
        };
        shown.unwrap_or_else(|| format!("#{}", self.i - 1))
    }
}

/// A map key at `pos` shown as the key type `ty` (a seed's `type_name`): strings quoted, integers bare.
fn key_text(buf: &[u8], pos: usize, ty: &str) -> Option<String> {
    let ty = ty.trim_end_matches('>').rsplit(['<', ':', '&', ' ']).next()?;
    macro_rules! int {
        ($($t:ident),*) => {
            match ty {
                $(stringify!($t) => {
                    const N: usize = std::mem::size_of::<$t>();
                    let bytes = buf.get(pos..pos + N)?;
                    Some(<$t>::from_le_bytes(bytes.try_into().ok()?).to_string())
                })*
                "String" | "str" => {
                    let at = follow(buf, pos).ok()?;
                    let len = u32::from_le_bytes(buf.get(at..at + 4)?.try_into().ok()?) as usize;
                    let text = std::str::from_utf8(buf.get(at + 4..(at + 4).checked_add(len)?)?).ok()?;
                    Some(format!("{text:?}"))
                }
                _ => None,
            }
        };
    }
    int!(u8, u16, u32, u64, i8, i16, i32, i64)
}

impl Drop for MapAccess<'_, '_> {
    fn drop(&mut self) {
        if self.entry.take().is_some() {
            self.d.depth -= 1;
        }
    }
}

/// A union value: variant number `ty` (1-based) and the uoffset at `pos`.
struct UnionAccess<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    ty: u8,
    pos: usize,
    name: &'static str,
}

impl<'a, 'de> de::EnumAccess<'de> for UnionAccess<'a, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index: de::value::U64Deserializer<Error> = u64::from(self.ty - 1).into_deserializer();
        let value = seed.deserialize(index).map_err(|e| e.with_offset(self.pos))?;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnionAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        // A variant this program does not know (`#[serde(other)]`) or a unit variant: nothing to read.
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(ValueDe { d: self.d, place: Place::Union { pos: self.pos } })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(Error::unsupported(format!("tuple variants of union `{}`", self.name)))
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
        let pos = follow(self.d.buf, self.pos)?;
        // Struct variants are never planned (the tracer wants placeholders or explicit ids there).
        self.d.table(pos, "", fields, visitor)
    }
}
