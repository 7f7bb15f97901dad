//! Godot's text form of a [`Variant`] (close to Godot 4's `var_to_str`), for `Display`.

use std::fmt::{self, Display, Write as _};

use crate::variant::Object;
use crate::{ContainerType, Variant};

/// A real component as Godot prints it: `1`, `0.5`, `inf`, `nan`.
struct Real(f32);

impl Display for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_nan() { f.write_str("nan") } else { write!(f, "{}", self.0) }
    }
}

/// A float Variant as Godot 4 prints it: `1.0`, `0.1`, `1e+300`, `inf`, `nan`.
pub(crate) struct Float(pub(crate) f64);

impl Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_nan() {
            return f.write_str("nan");
        }
        if v.is_infinite() {
            return f.write_str(if v > 0.0 { "inf" } else { "-inf" });
        }
        let text = format!("{v:?}");
        match text.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => write!(f, "{mantissa}e+{exp}"),
            _ => f.write_str(&text),
        }
    }
}

/// A quoted, escaped string.
struct Quoted<'a>(&'a str);

impl Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\t' => f.write_str("\\t")?,
                '\r' => f.write_str("\\r")?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

fn list<T>(
    f: &mut fmt::Formatter<'_>,
    items: impl IntoIterator<Item = T>,
    each: impl Fn(&mut fmt::Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        each(f, item)?;
    }
    Ok(())
}

fn reals(f: &mut fmt::Formatter<'_>, name: &str, values: &[f32]) -> fmt::Result {
    write!(f, "{name}(")?;
    list(f, values, |f, v| write!(f, "{}", Real(*v)))?;
    f.write_char(')')
}

fn ints(f: &mut fmt::Formatter<'_>, name: &str, values: &[i32]) -> fmt::Result {
    write!(f, "{name}(")?;
    list(f, values, |f, v| write!(f, "{v}"))?;
    f.write_char(')')
}

impl Display for ContainerType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContainerType::Untyped => f.write_str("Variant"),
            ContainerType::Builtin(ty) => f.write_str(ty.name()),
            ContainerType::ClassName(name) => f.write_str(name),
            ContainerType::Script(path) => f.write_str(path),
        }
    }
}

impl Display for Variant {
    /// Godot 4's text form: `null`, `true`, `42`, `1.5`, `"text"`, `&"name"`, `Vector2(1, 2)`,
    /// `NodePath("a/b:c")`, `[1, "two"]`, `{"hp": 10}`, `Array[int]([1, 2])`,
    /// `PackedByteArray(1, 2)`, `Object(EncodedObjectAsID, "object_id": 1234)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(values) = self.components() {
            return reals(f, self.variant_type().name(), &values);
        }
        match self {
            Variant::Nil => f.write_str("null"),
            Variant::Bool(b) => write!(f, "{b}"),
            Variant::Int(i) => write!(f, "{i}"),
            Variant::Float(v) => write!(f, "{}", Float(*v)),
            Variant::String(s) => write!(f, "{}", Quoted(s)),
            Variant::StringName(s) => write!(f, "&{}", Quoted(s.as_str())),
            Variant::NodePath(p) => write!(f, "NodePath({})", Quoted(&p.to_string())),
            Variant::Vector2i(v) => ints(f, "Vector2i", &[v.x, v.y]),
            Variant::Vector3i(v) => ints(f, "Vector3i", &[v.x, v.y, v.z]),
            Variant::Vector4i(v) => ints(f, "Vector4i", &[v.x, v.y, v.z, v.w]),
            Variant::Rect2i(r) => ints(f, "Rect2i", &[r.position.x, r.position.y, r.size.x, r.size.y]),
            Variant::Rid(r) => write!(f, "RID({})", r.0),
            Variant::Object(Object::Null) => f.write_str("null"),
            Variant::Object(Object::Id(id)) => write!(f, "Object(EncodedObjectAsID, \"object_id\": {})", id.0),
            Variant::Object(Object::Full(obj)) => {
                write!(f, "Object({}", obj.class)?;
                for (name, value) in &obj.properties {
                    write!(f, ", {}: {value}", Quoted(name))?;
                }
                f.write_char(')')
            }
            Variant::Callable => f.write_str("Callable()"),
            Variant::Signal(s) => write!(f, "Signal(&{}, {})", Quoted(s.name.as_str()), s.object.0),
            Variant::Array(a) => {
                let typed = !a.element_type().is_untyped();
                if typed {
                    write!(f, "Array[{}](", a.element_type())?;
                }
                f.write_char('[')?;
                list(f, a.iter(), |f, v| write!(f, "{v}"))?;
                f.write_char(']')?;
                if typed { f.write_char(')') } else { Ok(()) }
            }
            Variant::Dictionary(d) => {
                let typed = !d.key_type().is_untyped() || !d.value_type().is_untyped();
                if typed {
                    write!(f, "Dictionary[{}, {}](", d.key_type(), d.value_type())?;
                }
                f.write_char('{')?;
                list(f, d.iter(), |f, (k, v)| write!(f, "{k}: {v}"))?;
                f.write_char('}')?;
                if typed { f.write_char(')') } else { Ok(()) }
            }
            Variant::PackedByteArray(a) => {
                f.write_str("PackedByteArray(")?;
                list(f, a.iter(), |f, v| write!(f, "{v}"))?;
                f.write_char(')')
            }
            Variant::PackedInt32Array(a) => ints(f, "PackedInt32Array", a),
            Variant::PackedInt64Array(a) => {
                f.write_str("PackedInt64Array(")?;
                list(f, a.iter(), |f, v| write!(f, "{v}"))?;
                f.write_char(')')
            }
            Variant::PackedFloat32Array(a) => reals(f, "PackedFloat32Array", a),
            Variant::PackedFloat64Array(a) => {
                f.write_str("PackedFloat64Array(")?;
                list(f, a.iter(), |f, v| write!(f, "{}", Float(*v)))?;
                f.write_char(')')
            }
            Variant::PackedStringArray(a) => {
                f.write_str("PackedStringArray(")?;
                list(f, a.iter(), |f, v| write!(f, "{}", Quoted(v)))?;
                f.write_char(')')
            }
            Variant::PackedVector2Array(a) => {
                reals(f, "PackedVector2Array", &a.iter().flat_map(|v| [v.x, v.y]).collect::<Vec<_>>())
            }
            Variant::PackedVector3Array(a) => {
                reals(f, "PackedVector3Array", &a.iter().flat_map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>())
            }
            Variant::PackedVector4Array(a) => {
                reals(f, "PackedVector4Array", &a.iter().flat_map(|v| [v.x, v.y, v.z, v.w]).collect::<Vec<_>>())
            }
            Variant::PackedColorArray(a) => {
                reals(f, "PackedColorArray", &a.iter().flat_map(|c| [c.r, c.g, c.b, c.a]).collect::<Vec<_>>())
            }
            // Math types were printed from their components above.
            _ => Ok(()),
        }
    }
}
