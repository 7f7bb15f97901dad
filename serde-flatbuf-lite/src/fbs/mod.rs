//! `.fbs` schemas and schema-driven JSON: parse what flatc accepts, then turn any buffer of the schema into
//! JSON and JSON back into a buffer — without flatc and without Rust types.
//!
//! ```
//! use serde_flatbuf_lite::fbs::Schema;
//!
//! let schema = Schema::parse_str("monster.fbs", r#"
//!     namespace Game;
//!     enum Color : ubyte { Red, Green, Blue }
//!     struct Vec2 { x:float; y:float; }
//!     table Monster { name:string; hp:short = 100; pos:Vec2; color:Color = Blue; }
//!     root_type Monster;
//!     file_identifier "MONS";
//! "#)?;
//! let bytes = schema.json_to_buffer(r#"{"name": "Orc", "hp": 80, "pos": {"x": 1.5, "y": -2}, "color": "Red"}"#, None)?;
//! assert_eq!(&bytes[4..8], b"MONS");
//! let json = schema.buffer_to_json(&bytes, None)?;
//! assert_eq!(json, r#"{"name":"Orc","hp":80,"pos":{"x":1.5,"y":-2.0},"color":"Red"}"#);
//! # Ok::<(), serde_flatbuf_lite::Error>(())
//! ```
//!
//! The JSON means what `flatc --json --strict-json --raw-binary` prints for the same schema and buffer: the
//! same keys in the same order, enum values as names (bit flags as `"A B"`), unions as `x_type` + `x`,
//! absent fields left out (key fields printed with their default, as flatc does), nested flatbuffers as
//! their root table. Floats are printed exactly (shortest round-trip form) where flatc rounds them to 6
//! (float) or 12 (double) decimals. Reading verifies the buffer with the crate's verifier rules and limits
//! ([`Options`]).

pub(crate) mod dump;
mod json;
mod lexer;
mod parser;
mod read;
mod resolve;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::options::Options;

/// A scalar type of FlatBuffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BaseType {
    /// `bool` (1 byte).
    Bool,
    /// `byte` / `int8`.
    Byte,
    /// `ubyte` / `uint8`.
    UByte,
    /// `short` / `int16`.
    Short,
    /// `ushort` / `uint16`.
    UShort,
    /// `int` / `int32`.
    Int,
    /// `uint` / `uint32`.
    UInt,
    /// `long` / `int64`.
    Long,
    /// `ulong` / `uint64`.
    ULong,
    /// `float` / `float32`.
    Float,
    /// `double` / `float64`.
    Double,
}

impl BaseType {
    /// Size in bytes (also the alignment).
    pub fn size(self) -> usize {
        match self {
            BaseType::Bool | BaseType::Byte | BaseType::UByte => 1,
            BaseType::Short | BaseType::UShort => 2,
            BaseType::Int | BaseType::UInt | BaseType::Float => 4,
            BaseType::Long | BaseType::ULong | BaseType::Double => 8,
        }
    }

    /// Whether the type is `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(self, BaseType::Float | BaseType::Double)
    }

    /// The smallest and largest value of an integer type (bool: 0 and 1).
    pub fn range(self) -> (i128, i128) {
        match self {
            BaseType::Bool => (0, 1),
            BaseType::Byte => (i8::MIN.into(), i8::MAX.into()),
            BaseType::UByte => (0, u8::MAX.into()),
            BaseType::Short => (i16::MIN.into(), i16::MAX.into()),
            BaseType::UShort => (0, u16::MAX.into()),
            BaseType::Int => (i32::MIN.into(), i32::MAX.into()),
            BaseType::UInt => (0, u32::MAX.into()),
            BaseType::Long | BaseType::Double => (i64::MIN.into(), i64::MAX.into()),
            BaseType::ULong => (0, u64::MAX.into()),
            BaseType::Float => (i32::MIN.into(), i32::MAX.into()),
        }
    }

    /// The schema name (`ubyte`, `float`, …).
    pub fn name(self) -> &'static str {
        match self {
            BaseType::Bool => "bool",
            BaseType::Byte => "byte",
            BaseType::UByte => "ubyte",
            BaseType::Short => "short",
            BaseType::UShort => "ushort",
            BaseType::Int => "int",
            BaseType::UInt => "uint",
            BaseType::Long => "long",
            BaseType::ULong => "ulong",
            BaseType::Float => "float",
            BaseType::Double => "double",
        }
    }
}

/// The type of a field or element. Indices point into [`Schema::objects`] and [`Schema::enums`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    /// A scalar.
    Scalar(BaseType),
    /// An enum (not a union): stored as its underlying type.
    Enum(usize),
    /// A string.
    String,
    /// A struct (inline).
    Struct(usize),
    /// A table (through a uoffset).
    Table(usize),
    /// A union's value (a uoffset to a table of the member its type field names).
    Union(usize),
    /// A union's type field (`x_type`, a `ubyte`), declared implicitly before the union field.
    UnionType(usize),
    /// A vector.
    Vector(Box<Type>),
    /// A fixed-size array (in structs only): element type and length.
    Array(Box<Type>, u16),
}

/// A scalar value: a default, or an enum value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// An integer (bools are 0 and 1).
    Int(i128),
    /// A floating-point number.
    Float(f64),
}

/// A field of a table or struct.
#[derive(Debug, Clone)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Tables: the vtable slot (the `id`). Structs: the field's index.
    pub slot: u16,
    /// Structs: the byte offset inside the struct. Tables: 0.
    pub offset: usize,
    /// The default of a scalar or enum field (0 when not declared; `None` for other types and `= null`).
    pub default: Option<Scalar>,
    /// An optional scalar (`= null`): absent means null, present values are always written.
    pub optional: bool,
    /// `(deprecated)`: never written, skipped when reading.
    pub deprecated: bool,
    /// `(required)`: a buffer without it does not verify.
    pub required: bool,
    /// `(key)`.
    pub key: bool,
    /// `(nested_flatbuffer: "T")`: the root table of the nested buffer.
    pub nested_root: Option<usize>,
    /// `(hash: "fnv1a_32")` and friends: JSON strings are hashed into the integer.
    pub hash: Option<String>,
    /// Every attribute as written (name, value).
    pub attributes: Vec<(String, Option<String>)>,
}

/// A table or a struct.
#[derive(Debug, Clone, Default)]
pub struct Object {
    /// The fully qualified name (`MyGame.Sample.Monster`).
    pub name: String,
    /// A struct (inline, fixed layout) rather than a table.
    pub is_struct: bool,
    /// The fields; tables in slot order (flatc's order), structs in declaration order.
    pub fields: Vec<Field>,
    /// Structs: the size in bytes.
    pub size: usize,
    /// Structs: the alignment (with `force_align`).
    pub align: usize,
    /// Every attribute as written.
    pub attributes: Vec<(String, Option<String>)>,
    /// Positions in `fields` by name.
    index: HashMap<String, usize>,
}

impl Object {
    /// The position in [`fields`](Self::fields) of the field with this name.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub(crate) fn set_fields(&mut self, fields: Vec<Field>) {
        self.index = fields.iter().enumerate().map(|(i, f)| (f.name.clone(), i)).collect();
        self.fields = fields;
    }
}

/// One value of an enum or member of a union.
#[derive(Debug, Clone)]
pub struct EnumValue {
    /// Its name (a union member's alias when it has one).
    pub name: String,
    /// Its value (bit flags: the mask, `1 << position`).
    pub value: i128,
    /// Unions: the member's table or struct (an index into [`Schema::objects`]; `None` for `NONE`).
    pub table: Option<usize>,
}

/// An enum or a union.
#[derive(Debug, Clone)]
pub struct Enum {
    /// The fully qualified name.
    pub name: String,
    /// A union rather than an enum.
    pub is_union: bool,
    /// The underlying type (`ubyte` for unions).
    pub underlying: BaseType,
    /// `(bit_flags)`.
    pub bit_flags: bool,
    /// The values in declaration order (unions start with `NONE = 0`).
    pub values: Vec<EnumValue>,
    /// Every attribute as written.
    pub attributes: Vec<(String, Option<String>)>,
    /// Positions in `values` by value and by name (the first of equal values, as flatc prints).
    index: (HashMap<i128, usize>, HashMap<String, usize>),
}

impl Enum {
    pub(crate) fn new(
        name: String,
        is_union: bool,
        underlying: BaseType,
        bit_flags: bool,
        values: Vec<EnumValue>,
        attributes: Vec<(String, Option<String>)>,
    ) -> Enum {
        let mut by_value = HashMap::with_capacity(values.len());
        let mut by_name = HashMap::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            by_value.entry(v.value).or_insert(i);
            by_name.entry(v.name.clone()).or_insert(i);
        }
        Enum { name, is_union, underlying, bit_flags, values, attributes, index: (by_value, by_name) }
    }

    /// The value with this number, if any.
    pub fn by_value(&self, value: i128) -> Option<&EnumValue> {
        self.index.0.get(&value).map(|&i| &self.values[i])
    }

    /// The value with this name, if any.
    pub fn by_name(&self, name: &str) -> Option<&EnumValue> {
        self.index.1.get(name).map(|&i| &self.values[i])
    }
}

/// A parsed and resolved `.fbs` schema (with everything its includes declare).
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// Tables and structs.
    pub objects: Vec<Object>,
    /// Enums and unions.
    pub enums: Vec<Enum>,
    /// `root_type` of the main file (else of the last file that declared one).
    pub root: Option<usize>,
    /// `file_identifier`.
    pub file_identifier: Option<[u8; 4]>,
    /// `file_extension` (without the dot).
    pub file_extension: Option<String>,
    /// User attributes declared with `attribute`.
    pub user_attributes: Vec<String>,
    /// The files read, the main file first.
    pub files: Vec<PathBuf>,
}

/// Statistics of one buffer, from [`Schema::inspect`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BufferStats {
    /// The root table's name.
    pub root_type: String,
    /// The 4 bytes after the root offset when they are printable ASCII.
    pub file_identifier: Option<String>,
    /// Tables visited (root included, nested flatbuffers included).
    pub tables: usize,
    /// Vectors visited (strings not counted).
    pub vectors: usize,
    /// Strings visited.
    pub strings: usize,
}

impl Schema {
    /// Parses a schema file and the files it includes (relative to the including file, then to each of
    /// `include_dirs`; each file is read once, include cycles are harmless).
    pub fn parse_file(path: impl AsRef<Path>, include_dirs: &[PathBuf]) -> Result<Schema> {
        parser::parse_files(path.as_ref(), include_dirs).and_then(resolve::resolve)
    }

    /// Parses schema text. `name` names it in errors; `include` declarations are resolved relative to the
    /// current directory.
    pub fn parse_str(name: &str, text: &str) -> Result<Schema> {
        parser::parse_text(name, text).and_then(resolve::resolve)
    }

    /// The object with this name: fully qualified, or unqualified when exactly one object has it.
    pub fn object(&self, name: &str) -> Option<usize> {
        if let Some(i) = self.objects.iter().position(|o| o.name == name) {
            return Some(i);
        }
        let mut found = self.objects.iter().enumerate().filter(|(_, o)| o.name.rsplit('.').next() == Some(name));
        match (found.next(), found.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }

    /// The root table: `root_type` unless `name` overrides it (like flatc's `--root-type`).
    pub fn root_table(&self, name: Option<&str>) -> Result<usize> {
        resolve::root_table(self, name)
    }

    /// Decodes a buffer whose root is `root_type` (or `root`) to JSON, one line, with the default
    /// [`Options`] (limits); the buffer is verified first.
    pub fn buffer_to_json(&self, buf: &[u8], root: Option<&str>) -> Result<String> {
        self.buffer_to_json_with(buf, root, &Options::default(), None)
    }

    /// Decodes a buffer to JSON with the given options (limits, size prefix); `indent` pretty-prints with
    /// that many spaces per level.
    pub fn buffer_to_json_with(
        &self,
        buf: &[u8],
        root: Option<&str>,
        opts: &Options,
        indent: Option<usize>,
    ) -> Result<String> {
        let table = self.root_table(root)?;
        read::to_json(self, table, buf, opts, indent)
    }

    /// Verifies a buffer and counts what it holds.
    pub fn inspect(&self, buf: &[u8], root: Option<&str>, opts: &Options) -> Result<BufferStats> {
        let table = self.root_table(root)?;
        read::stats(self, table, buf, opts)
    }

    /// Encodes a JSON document (as flatc's JSON parser accepts it) into a buffer whose root is `root_type`
    /// (or `root`), with the schema's file identifier.
    pub fn json_to_buffer(&self, json: &str, root: Option<&str>) -> Result<Vec<u8>> {
        let table = self.root_table(root)?;
        write::from_json(self, table, json, false)
    }

    /// [`json_to_buffer`](Self::json_to_buffer) with a 4-byte size prefix when `size_prefixed`.
    pub fn json_to_buffer_with(&self, json: &str, root: Option<&str>, size_prefixed: bool) -> Result<Vec<u8>> {
        let table = self.root_table(root)?;
        write::from_json(self, table, json, size_prefixed)
    }
}
