//! [`DNode`], the default of a value as far as the store needs it, and [`NativeVal`], the canonical
//! content of this crate's types.

/// The default of a value, as far as the store needs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DNode {
    Unit,
    None,
    Some(Box<DNode>),
    Bool(bool),
    Int(i128),
    U128(u128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(Box<str>),
    Bytes(Box<[u8]>),
    /// A sequence or map: only whether it is empty matters.
    Container(bool),
    Tuple(Vec<DNode>),
    Struct(Vec<(&'static str, DNode)>),
    Variant(u32, Box<DNode>),
    /// One of this crate's types: its floats or its text form.
    Native(&'static str, NativeVal),
    /// A `$type` object: its type string and fields.
    Poly(Option<Box<str>>, Vec<(Box<str>, DNode)>),
    Raw(Box<str>),
    /// Something the store cannot compare (never equal).
    Other,
}

/// The canonical content of one of this crate's types.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NativeVal {
    Floats(Vec<f32>),
    Text(String),
    Node(Box<DNode>),
}
