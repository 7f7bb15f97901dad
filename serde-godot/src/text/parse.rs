//! The reader: Godot's text form to a [`Variant`] (`VariantParser::parse_value`), recursive with a
//! depth limit, linear in the text (Dictionary keys are hashed bottom-up, as the binary decoder
//! does, so duplicate detection stays linear however keys nest).

use super::float::{parse_f64, parse_i64};
use super::lex::{Lexer, Tok, syntax};
use crate::error::{Error, ErrorKind, Result};
use crate::variant::{DictBuilder, FullObject, KeyHasher, Object, leaf_hash, object_hasher, property_hash};
use crate::{
    Aabb, Array, Basis, Color, ContainerType, Dictionary, NodePath, Options, PackedByteArray, PackedColorArray,
    PackedFloat32Array, PackedFloat64Array, PackedInt32Array, PackedInt64Array, PackedStringArray, PackedVector2Array,
    PackedVector3Array, PackedVector4Array, Plane, Projection, Quaternion, Rect2, Rect2i, Rid, StringName, Transform2D,
    Transform3D, Variant, VariantType, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i, Version,
};

/// The parser: a lexer and the options that matter here.
pub(crate) struct Parser<'a> {
    pub(crate) lex: Lexer<'a>,
    full_objects: bool,
    max_depth: usize,
}

/// A parsed value and, when asked for (Dictionary keys), its key hash.
type Hashed = (Variant, u64);

/// A number argument of a constructor.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
    fn f32(self) -> f32 {
        self.f64() as f32
    }
    fn i64(self) -> i64 {
        match self {
            Num::Int(i) => i,
            Num::Float(f) => f as i64,
        }
    }
    fn i32(self) -> i32 {
        self.i64() as i32
    }
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, opts: &Options) -> Self {
        Parser { lex: Lexer::new(src, opts.version), full_objects: opts.full_objects, max_depth: opts.max_depth }
    }

    fn g4(&self) -> bool {
        self.lex.version == Version::Godot4
    }

    /// Reads one value starting with the next token.
    pub(crate) fn value(&mut self) -> Result<Variant> {
        let tok = self.lex.next()?;
        self.parse(tok, 0, false).map(|(v, _)| v)
    }

    fn expect(&mut self, want: Tok<'_>, what: &str) -> Result<()> {
        let tok = self.lex.next()?;
        if tok == want { Ok(()) } else { Err(self.unexpected(&tok, what)) }
    }

    #[cold]
    fn unexpected(&self, tok: &Tok<'_>, what: &str) -> Error {
        syntax(format!("expected {what}, found {}", tok.describe()), self.lex.start)
    }

    fn parse(&mut self, tok: Tok<'a>, depth: usize, hashed: bool) -> Result<Hashed> {
        let at = self.lex.start;
        let v = match tok {
            Tok::CurlyOpen => return self.dictionary(Dictionary::default(), depth + 1, hashed, at),
            Tok::BracketOpen => return self.array(ContainerType::Untyped, depth + 1, hashed, at),
            Tok::Str(s) => Variant::String(s),
            Tok::StringName(s) => Variant::StringName(StringName(s)),
            Tok::Color(c) => Variant::Color(c),
            Tok::Number(text, float) => self.number(text, float),
            Tok::Ident(id) => return self.identifier(id, depth, hashed, at),
            other => return Err(self.unexpected(&other, "a value")),
        };
        Ok(leaf(v, hashed))
    }

    fn number(&self, text: &str, float: bool) -> Variant {
        if float { Variant::Float(parse_f64(text)) } else { Variant::Int(parse_i64(text, self.g4())) }
    }

    fn check_depth(&self, depth: usize, at: usize) -> Result<()> {
        if depth > self.max_depth { Err(Error::at(ErrorKind::DepthLimit(self.max_depth), at)) } else { Ok(()) }
    }

    /// The elements after `[`, up to `]` (a trailing comma is fine).
    fn array(&mut self, element_type: ContainerType, depth: usize, hashed: bool, at: usize) -> Result<Hashed> {
        self.check_depth(depth, at)?;
        let mut items = Vec::new();
        let mut hasher = hashed.then(|| KeyHasher::new(VariantType::Array));
        loop {
            let tok = self.lex.next()?;
            if tok == Tok::BracketClose {
                break;
            }
            if !items.is_empty() {
                if tok != Tok::Comma {
                    return Err(self.unexpected(&tok, "',' or ']'"));
                }
                let tok = self.lex.next()?;
                if tok == Tok::BracketClose {
                    break;
                }
                self.element(tok, depth, &mut items, &mut hasher)?;
            } else {
                self.element(tok, depth, &mut items, &mut hasher)?;
            }
        }
        let len = items.len();
        let items = retype(&element_type, items, at)?;
        Ok((
            Variant::Array(Box::new(Array::with_element_type(element_type, items))),
            hasher.map_or(0, |h| h.finish(len)),
        ))
    }

    fn element(
        &mut self,
        tok: Tok<'a>,
        depth: usize,
        items: &mut Vec<Variant>,
        hasher: &mut Option<KeyHasher>,
    ) -> Result<()> {
        let (v, h) = self.parse(tok, depth, hasher.is_some())?;
        if let Some(hasher) = hasher {
            hasher.part(h);
        }
        items.push(v);
        Ok(())
    }

    /// The entries after `{`, up to `}`: a repeated key keeps its first place and its last value.
    fn dictionary(&mut self, dict: Dictionary, depth: usize, hashed: bool, at: usize) -> Result<Hashed> {
        self.check_depth(depth, at)?;
        let (key_type, value_type) = (dict.key_type().clone(), dict.value_type().clone());
        let mut builder = DictBuilder::new(dict, 0, hashed);
        let mut first = true;
        loop {
            let mut tok = self.lex.next()?;
            if tok == Tok::CurlyClose {
                break;
            }
            if !first {
                if tok != Tok::Comma {
                    return Err(self.unexpected(&tok, "',' or '}'"));
                }
                tok = self.lex.next()?;
                if tok == Tok::CurlyClose {
                    break;
                }
            }
            first = false;
            let key_at = self.lex.start;
            let (key, key_hash) = self.parse(tok, depth, true)?;
            self.expect(Tok::Colon, "':' after a Dictionary key")?;
            let tok = self.lex.next()?;
            let value_at = self.lex.start;
            let (value, value_hash) = self.parse(tok, depth, hashed)?;
            let key = retype_one(&key_type, key, key_at)?;
            let value = retype_one(&value_type, value, value_at)?;
            builder.insert(key, key_hash, value, value_hash);
        }
        let (dict, hash) = builder.finish();
        Ok((Variant::Dictionary(Box::new(dict)), hash))
    }

    /// Keywords and constructors.
    fn identifier(&mut self, id: &'a str, depth: usize, hashed: bool, at: usize) -> Result<Hashed> {
        let g4 = self.g4();
        let simple = match id {
            "true" => Some(Variant::Bool(true)),
            "false" => Some(Variant::Bool(false)),
            "null" | "nil" => Some(Variant::Nil),
            "inf" => Some(Variant::Float(f64::INFINITY)),
            "nan" => Some(Variant::Float(f64::NAN)),
            "inf_neg" | "-inf" if g4 => Some(Variant::Float(f64::NEG_INFINITY)),
            _ => None,
        };
        if let Some(v) = simple {
            return Ok(leaf(v, hashed));
        }
        match id {
            "Array" if g4 => return self.typed_array(depth, hashed, at),
            "Dictionary" if g4 => return self.typed_dictionary(depth, hashed, at),
            "Object" => return self.object(depth, hashed, at),
            "Resource" | "ExtResource" | "SubResource" => {
                return Err(syntax(format!("{id}(…) refers to a resource file, which this parser never loads"), at));
            }
            _ => {}
        }
        let ty =
            constructor_type(id, self.lex.version).ok_or_else(|| syntax(format!("unknown identifier '{id}'"), at))?;
        self.expect(Tok::ParenOpen, "'(' after a constructor name")?;
        let v = self.construct(ty, id, at)?;
        Ok(leaf(v, hashed))
    }

    /// The arguments of `ty`'s constructor after `(`, through `)`.
    fn construct(&mut self, ty: VariantType, id: &str, at: usize) -> Result<Variant> {
        use VariantType as T;
        Ok(match ty {
            T::NodePath => {
                let tok = self.lex.next()?;
                let Tok::Str(path) = tok else { return Err(self.unexpected(&tok, "a string in NodePath()")) };
                self.expect(Tok::ParenClose, "')'")?;
                Variant::NodePath(Box::new(NodePath::from(path.as_str())))
            }
            T::PackedStringArray => Variant::PackedStringArray(PackedStringArray(self.strings()?)),
            T::PackedByteArray if self.g4() && self.lookahead_string() => {
                let tok = self.lex.next()?;
                let Tok::Str(text) = tok else { return Err(self.unexpected(&tok, "a base64 string")) };
                self.expect(Tok::ParenClose, "')'")?;
                let bytes = base64(&text).ok_or_else(|| syntax("invalid base64 in PackedByteArray", at))?;
                Variant::PackedByteArray(PackedByteArray(bytes))
            }
            T::Callable | T::Signal => {
                self.expect(Tok::ParenClose, "')' (Callable and Signal are written empty)")?;
                if ty == T::Callable { Variant::Callable } else { Variant::Signal(Box::default()) }
            }
            _ => {
                let args = self.numbers()?;
                self.build(ty, id, &args, at)?
            }
        })
    }

    fn lookahead_string(&mut self) -> bool {
        self.lex.skip_blank();
        self.lex.src.as_bytes().get(self.lex.pos) == Some(&b'"')
    }

    /// `"a", "b"` through `)`; a trailing comma is fine (as in the engine).
    fn strings(&mut self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        loop {
            let tok = self.lex.next()?;
            match tok {
                Tok::ParenClose => return Ok(out),
                Tok::Str(s) => out.push(s),
                other => return Err(self.unexpected(&other, "a string or ')'")),
            }
            match self.lex.next()? {
                Tok::Comma => {}
                Tok::ParenClose => return Ok(out),
                other => return Err(self.unexpected(&other, "',' or ')'")),
            }
        }
    }

    /// Numbers (Godot 4 also `inf`, `-inf`, `inf_neg`, `nan`) separated by commas, through `)`.
    fn numbers(&mut self) -> Result<Vec<Num>> {
        let mut out = Vec::new();
        loop {
            let tok = self.lex.next()?;
            let n = match tok {
                Tok::ParenClose if out.is_empty() => return Ok(out),
                Tok::Number(text, true) => Num::Float(parse_f64(text)),
                Tok::Number(text, false) => Num::Int(parse_i64(text, self.g4())),
                Tok::Ident("inf") if self.g4() => Num::Float(f64::INFINITY),
                Tok::Ident("-inf" | "inf_neg") if self.g4() => Num::Float(f64::NEG_INFINITY),
                Tok::Ident("nan") if self.g4() => Num::Float(f64::NAN),
                other => return Err(self.unexpected(&other, "a number in a constructor")),
            };
            out.push(n);
            match self.lex.next()? {
                Tok::Comma => {}
                Tok::ParenClose => return Ok(out),
                other => return Err(self.unexpected(&other, "',' or ')' in a constructor")),
            }
        }
    }

    fn build(&self, ty: VariantType, id: &str, a: &[Num], at: usize) -> Result<Variant> {
        use VariantType as T;
        let want = match ty {
            T::Vector2 | T::Vector2i => 2,
            T::Vector3 | T::Vector3i => 3,
            T::Rect2 | T::Rect2i | T::Vector4 | T::Vector4i | T::Plane | T::Quaternion | T::Color => 4,
            T::Transform2D | T::Aabb => 6,
            T::Basis => 9,
            T::Transform3D => 12,
            T::Projection => 16,
            T::Rid if self.g4() => {
                return match a {
                    [] => Ok(Variant::Rid(Rid(0))),
                    [n] => Ok(Variant::Rid(Rid(n.i64() as u64))),
                    _ => Err(syntax("expected at most 1 argument for RID()", at)),
                };
            }
            // Godot 3 reads `RID(n)` as the int n.
            T::Rid => 1,
            _ => usize::MAX,
        };
        if want != usize::MAX && a.len() != want {
            return Err(syntax(format!("expected {want} arguments for constructor {id}()"), at));
        }
        let f = |i: usize| a[i].f32();
        let v2 = |i: usize| Vector2::new(f(i), f(i + 1));
        let v3 = |i: usize| Vector3::new(f(i), f(i + 1), f(i + 2));
        let v4 = |i: usize| Vector4::new(f(i), f(i + 1), f(i + 2), f(i + 3));
        let i = |k: usize| a[k].i32();
        Ok(match ty {
            T::Rid => Variant::Int(a[0].i64()),
            T::Vector2 => Variant::Vector2(v2(0)),
            T::Vector2i => Variant::Vector2i(Vector2i::new(i(0), i(1))),
            T::Vector3 => Variant::Vector3(v3(0)),
            T::Vector3i => Variant::Vector3i(Vector3i::new(i(0), i(1), i(2))),
            T::Vector4 => Variant::Vector4(v4(0)),
            T::Vector4i => Variant::Vector4i(Vector4i::new(i(0), i(1), i(2), i(3))),
            T::Rect2 => Variant::Rect2(Rect2 { position: v2(0), size: v2(2) }),
            T::Rect2i => Variant::Rect2i(Rect2i::new(i(0), i(1), i(2), i(3))),
            T::Plane => Variant::Plane(Plane { normal: v3(0), d: f(3) }),
            T::Quaternion => Variant::Quaternion(Quaternion { x: f(0), y: f(1), z: f(2), w: f(3) }),
            T::Color => Variant::Color(Color { r: f(0), g: f(1), b: f(2), a: f(3) }),
            T::Transform2D => Variant::Transform2D(Box::new(Transform2D { x: v2(0), y: v2(2), origin: v2(4) })),
            T::Aabb => Variant::Aabb(Box::new(Aabb { position: v3(0), size: v3(3) })),
            T::Basis => Variant::Basis(Box::new(Basis { rows: [v3(0), v3(3), v3(6)] })),
            T::Transform3D => Variant::Transform3D(Box::new(Transform3D {
                basis: Basis { rows: [v3(0), v3(3), v3(6)] },
                origin: v3(9),
            })),
            T::Projection => Variant::Projection(Box::new(Projection { columns: [v4(0), v4(4), v4(8), v4(12)] })),
            T::PackedByteArray => Variant::PackedByteArray(PackedByteArray(a.iter().map(|n| n.i64() as u8).collect())),
            T::PackedInt32Array => Variant::PackedInt32Array(PackedInt32Array(a.iter().map(|n| n.i32()).collect())),
            T::PackedInt64Array => Variant::PackedInt64Array(PackedInt64Array(a.iter().map(|n| n.i64()).collect())),
            T::PackedFloat32Array => {
                Variant::PackedFloat32Array(PackedFloat32Array(a.iter().map(|n| n.f32()).collect()))
            }
            T::PackedFloat64Array => {
                Variant::PackedFloat64Array(PackedFloat64Array(a.iter().map(|n| n.f64()).collect()))
            }
            // Vector and color arrays take whole groups and drop extra numbers, like the engine.
            T::PackedVector2Array => {
                Variant::PackedVector2Array(PackedVector2Array((0..a.len() / 2).map(|k| v2(2 * k)).collect()))
            }
            T::PackedVector3Array => {
                Variant::PackedVector3Array(PackedVector3Array((0..a.len() / 3).map(|k| v3(3 * k)).collect()))
            }
            T::PackedVector4Array => {
                Variant::PackedVector4Array(PackedVector4Array((0..a.len() / 4).map(|k| v4(4 * k)).collect()))
            }
            T::PackedColorArray => Variant::PackedColorArray(PackedColorArray(
                (0..a.len() / 4)
                    .map(|k| Color { r: f(4 * k), g: f(4 * k + 1), b: f(4 * k + 2), a: f(4 * k + 3) })
                    .collect(),
            )),
            _ => return Err(syntax(format!("unknown identifier '{id}'"), at)),
        })
    }

    /// A container's element type: a builtin type name, `Variant` (untyped),
    /// `Resource("res://script.gd")` (a script class: a type, nothing is loaded) or a class name.
    fn container_type(&mut self) -> Result<ContainerType> {
        let tok = self.lex.next()?;
        let Tok::Ident(name) = tok else { return Err(self.unexpected(&tok, "a type name")) };
        if name == "Variant" {
            return Ok(ContainerType::Untyped);
        }
        if name == "Resource" {
            self.expect(Tok::ParenOpen, "'('")?;
            let tok = self.lex.next()?;
            let Tok::Str(path) = tok else { return Err(self.unexpected(&tok, "a script path")) };
            self.expect(Tok::ParenClose, "')'")?;
            return Ok(ContainerType::Script(path));
        }
        Ok(match VariantType::ALL.iter().find(|t| t.name() == name && **t != VariantType::Nil) {
            Some(ty) => ContainerType::Builtin(*ty),
            None => ContainerType::ClassName(name.to_owned()),
        })
    }

    /// `Array[T]([…])` after `Array`.
    fn typed_array(&mut self, depth: usize, hashed: bool, at: usize) -> Result<Hashed> {
        self.expect(Tok::BracketOpen, "'[' after Array")?;
        let ty = self.container_type()?;
        self.expect(Tok::BracketClose, "']'")?;
        self.expect(Tok::ParenOpen, "'('")?;
        self.expect(Tok::BracketOpen, "'['")?;
        let out = self.array(ty, depth + 1, hashed, at)?;
        self.expect(Tok::ParenClose, "')'")?;
        Ok(out)
    }

    /// `Dictionary[K, V]({…})` after `Dictionary`.
    fn typed_dictionary(&mut self, depth: usize, hashed: bool, at: usize) -> Result<Hashed> {
        self.expect(Tok::BracketOpen, "'[' after Dictionary")?;
        let key = self.container_type()?;
        self.expect(Tok::Comma, "','")?;
        let value = self.container_type()?;
        self.expect(Tok::BracketClose, "']'")?;
        self.expect(Tok::ParenOpen, "'('")?;
        self.expect(Tok::CurlyOpen, "'{'")?;
        let out = self.dictionary(Dictionary::with_types(key, value), depth + 1, hashed, at)?;
        self.expect(Tok::ParenClose, "')'")?;
        Ok(out)
    }

    /// `Object(Class, "prop": value, …)` after `Object`: only with full objects enabled (Godot
    /// instantiates the class and runs its script; we only record the class and properties).
    fn object(&mut self, depth: usize, hashed: bool, at: usize) -> Result<Hashed> {
        if !self.full_objects {
            return Err(Error::at(ErrorKind::FullObjectsDisabled, at));
        }
        let depth = depth + 1;
        self.check_depth(depth, at)?;
        self.expect(Tok::ParenOpen, "'(' after Object")?;
        let tok = self.lex.next()?;
        let Tok::Ident(class) = tok else { return Err(self.unexpected(&tok, "the object's class name")) };
        let mut obj = FullObject { class: class.to_owned(), properties: Vec::new() };
        let mut hasher = hashed.then(|| object_hasher(&obj.class));
        self.expect(Tok::Comma, "',' after the object's class")?;
        loop {
            let mut tok = self.lex.next()?;
            if tok == Tok::ParenClose {
                break;
            }
            if !obj.properties.is_empty() {
                if tok != Tok::Comma {
                    return Err(self.unexpected(&tok, "',' or ')'"));
                }
                tok = self.lex.next()?;
                if tok == Tok::ParenClose {
                    break;
                }
            }
            let Tok::Str(name) = tok else { return Err(self.unexpected(&tok, "a property name string")) };
            self.expect(Tok::Colon, "':'")?;
            let tok = self.lex.next()?;
            let (value, h) = self.parse(tok, depth, hashed)?;
            if let Some(hasher) = &mut hasher {
                property_hash(hasher, &name, h);
            }
            obj.properties.push((name, value));
        }
        let len = obj.properties.len();
        Ok((Variant::Object(Object::Full(Box::new(obj))), hasher.map_or(0, |h| h.finish(len))))
    }
}

fn leaf(v: Variant, hashed: bool) -> Hashed {
    let h = if hashed { leaf_hash(&v) } else { 0 };
    (v, h)
}

/// Checks (and converts int ↔ float, as Godot's typed `assign` does) a typed container's value.
fn retype_one(ty: &ContainerType, v: Variant, at: usize) -> Result<Variant> {
    let found = v.variant_type();
    let want = match ty {
        ContainerType::Untyped => return Ok(v),
        ContainerType::Builtin(want) => *want,
        ContainerType::ClassName(_) | ContainerType::Script(_) => VariantType::Object,
    };
    match (want, v) {
        (w, v) if w == found => Ok(v),
        (VariantType::Float, Variant::Int(i)) => Ok(Variant::Float(i as f64)),
        (VariantType::Int, Variant::Float(f)) => Ok(Variant::Int(f as i64)),
        (VariantType::Object, Variant::Nil) => Ok(Variant::Object(Object::Null)),
        (expected, _) => Err(Error::at(ErrorKind::WrongType { expected, found }, at)),
    }
}

fn retype(ty: &ContainerType, items: Vec<Variant>, at: usize) -> Result<Vec<Variant>> {
    if ty.is_untyped() {
        return Ok(items);
    }
    items.into_iter().map(|v| retype_one(ty, v, at)).collect()
}

/// The type a constructor name builds in `version` (old names included, as the engine accepts
/// them).
fn constructor_type(id: &str, version: Version) -> Option<VariantType> {
    use VariantType as T;
    let both = match id {
        "Vector2" => Some(T::Vector2),
        "Rect2" => Some(T::Rect2),
        "Vector3" => Some(T::Vector3),
        "Transform2D" | "Matrix32" => Some(T::Transform2D),
        "Plane" => Some(T::Plane),
        "Quat" => Some(T::Quaternion),
        "AABB" | "Rect3" => Some(T::Aabb),
        "Basis" | "Matrix3" => Some(T::Basis),
        "Transform" => Some(T::Transform3D),
        "Color" => Some(T::Color),
        "NodePath" => Some(T::NodePath),
        "RID" => Some(T::Rid),
        "PoolByteArray" | "ByteArray" => Some(T::PackedByteArray),
        "PoolIntArray" | "IntArray" => Some(T::PackedInt32Array),
        "PoolRealArray" | "FloatArray" => Some(T::PackedFloat32Array),
        "PoolStringArray" | "StringArray" => Some(T::PackedStringArray),
        "PoolVector2Array" | "Vector2Array" => Some(T::PackedVector2Array),
        "PoolVector3Array" | "Vector3Array" => Some(T::PackedVector3Array),
        "PoolColorArray" | "ColorArray" => Some(T::PackedColorArray),
        _ => None,
    };
    if both.is_some() || version == Version::Godot3 {
        return both;
    }
    match id {
        "Vector2i" => Some(T::Vector2i),
        "Rect2i" => Some(T::Rect2i),
        "Vector3i" => Some(T::Vector3i),
        "Vector4" => Some(T::Vector4),
        "Vector4i" => Some(T::Vector4i),
        "Quaternion" => Some(T::Quaternion),
        "Transform3D" => Some(T::Transform3D),
        "Projection" => Some(T::Projection),
        "Callable" => Some(T::Callable),
        "Signal" => Some(T::Signal),
        "PackedByteArray" => Some(T::PackedByteArray),
        "PackedInt32Array" | "PackedIntArray" => Some(T::PackedInt32Array),
        "PackedInt64Array" => Some(T::PackedInt64Array),
        "PackedFloat32Array" | "PackedRealArray" => Some(T::PackedFloat32Array),
        "PackedFloat64Array" => Some(T::PackedFloat64Array),
        "PackedStringArray" => Some(T::PackedStringArray),
        "PackedVector2Array" => Some(T::PackedVector2Array),
        "PackedVector3Array" => Some(T::PackedVector3Array),
        "PackedColorArray" => Some(T::PackedColorArray),
        "PackedVector4Array" | "PoolVector4Array" | "Vector4Array" => Some(T::PackedVector4Array),
        _ => None,
    }
}

/// Standard base64 (padding optional), as Godot 4.3+ writes a PackedByteArray with compat off.
fn base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}
