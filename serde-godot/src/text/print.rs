//! The writer: a [`Variant`] as Godot 4.5+'s `var_to_str` or Godot 3's `var2str` prints it.

use std::cmp::Ordering;
use std::fmt::{self, Display};

use super::float::{godot3_float, godot3_real, godot4_float, godot4_real};
use crate::error::{Error, ErrorKind, Result};
use crate::variant::Object;
use crate::{ContainerType, Variant, VariantType, Version};

/// Godot 4's `MAX_RECURSION`: deeper containers are written empty, deeper objects as `null`.
const GODOT4_MAX_RECURSION: usize = 100;

/// Prints Variants for one Godot version into a String.
pub(crate) struct Printer<'a> {
    pub(crate) out: &'a mut String,
    pub(crate) version: Version,
    /// The deepest nesting accepted in Godot 3 mode (the Godot 3 writer has no limit of its own;
    /// this keeps the recursion bounded).
    pub(crate) max_depth: usize,
}

impl Printer<'_> {
    fn g3(&self) -> bool {
        self.version == Version::Godot3
    }

    fn real(&mut self, x: f32) {
        if self.g3() { godot3_real(self.out, x) } else { godot4_real(self.out, f64::from(x)) }
    }

    /// `Name(a, b)` (Godot 4) or `Name( a, b )` (Godot 3; `Name(  )` when empty).
    fn call<T>(&mut self, name: &str, items: impl IntoIterator<Item = T>, mut each: impl FnMut(&mut Self, T)) {
        self.out.push_str(name);
        self.out.push('(');
        if self.g3() {
            self.out.push(' ');
        }
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            each(self, item);
        }
        if self.g3() {
            self.out.push(' ');
        }
        self.out.push(')');
    }

    fn reals(&mut self, name: &str, values: &[f32]) {
        self.call(name, values, |p, v| p.real(*v));
    }

    fn display<T: Display>(&mut self, name: &str, values: impl IntoIterator<Item = T>) {
        self.call(name, values, |p, v| {
            use std::fmt::Write as _;
            let _ = write!(p.out, "{v}");
        });
    }

    fn name(&self, ty: VariantType) -> Result<&'static str> {
        if !ty.exists_in(self.version) {
            return Err(Error::new(ErrorKind::UnsupportedInVersion(ty)));
        }
        Ok(ty.name_in(self.version))
    }

    /// Writes `v` at nesting `depth` (the top-level value is depth 0).
    pub(crate) fn value(&mut self, v: &Variant, depth: usize) -> Result<()> {
        let ty = v.variant_type();
        let name = self.name(ty)?;
        if let Some(values) = v.components() {
            self.reals(name, &values);
            return Ok(());
        }
        match v {
            Variant::Nil | Variant::Object(Object::Null) => self.out.push_str("null"),
            Variant::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Variant::Int(i) => self.out.push_str(&i.to_string()),
            Variant::Float(x) => {
                if self.g3() {
                    godot3_float(self.out, *x)
                } else {
                    godot4_float(self.out, *x)
                }
            }
            Variant::String(s) => quoted(self.out, s, false),
            Variant::StringName(s) => {
                self.out.push('&');
                quoted(self.out, s.as_str(), true);
            }
            Variant::NodePath(p) => {
                self.out.push_str("NodePath(");
                // A path with no names and no subnames is the empty path, even if absolute.
                let text = if p.is_empty() { String::new() } else { p.to_string() };
                quoted(self.out, &text, true);
                self.out.push(')');
            }
            Variant::Vector2i(v) => self.display(name, [v.x, v.y]),
            Variant::Vector3i(v) => self.display(name, [v.x, v.y, v.z]),
            Variant::Vector4i(v) => self.display(name, [v.x, v.y, v.z, v.w]),
            Variant::Rect2i(r) => self.display(name, [r.position.x, r.position.y, r.size.x, r.size.y]),
            // Godot 3 writes nothing at all for an RID.
            Variant::Rid(_) if self.g3() => {}
            Variant::Rid(r) if r.0 == 0 => self.out.push_str("RID()"),
            Variant::Rid(r) => self.display(name, [r.0]),
            Variant::Callable => self.out.push_str("Callable()"),
            Variant::Signal(_) => self.out.push_str("Signal()"),
            Variant::Object(obj) => self.object(obj, depth)?,
            Variant::Array(a) => {
                let typed = !self.g3() && !a.element_type().is_untyped();
                if typed {
                    self.out.push_str("Array[");
                    container_type(self.out, a.element_type());
                    self.out.push_str("](");
                }
                if self.too_deep(depth)? {
                    self.out.push_str("[]");
                } else if a.is_empty() {
                    self.out.push_str(if self.g3() { "[  ]" } else { "[]" });
                } else {
                    self.out.push_str(if self.g3() { "[ " } else { "[" });
                    for (i, item) in a.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.value(item, depth + 1)?;
                    }
                    self.out.push_str(if self.g3() { " ]" } else { "]" });
                }
                if typed {
                    self.out.push(')');
                }
            }
            Variant::Dictionary(d) => {
                let typed = !self.g3() && (!d.key_type().is_untyped() || !d.value_type().is_untyped());
                if typed {
                    self.out.push_str("Dictionary[");
                    container_type(self.out, d.key_type());
                    self.out.push_str(", ");
                    container_type(self.out, d.value_type());
                    self.out.push_str("](");
                }
                if self.too_deep(depth)? {
                    self.out.push_str("{}");
                } else if d.is_empty() {
                    self.out.push_str(if self.g3() { "{\n\n}" } else { "{}" });
                } else {
                    let mut order: Vec<usize> = (0..d.len()).collect();
                    let entries = d.entries();
                    godot_sort(&mut order, |a, b| less(&entries[*a].0, &entries[*b].0, self.version));
                    self.out.push_str("{\n");
                    for (i, &at) in order.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(",\n");
                        }
                        let (k, v) = &entries[at];
                        self.value(k, depth + 1)?;
                        self.out.push_str(": ");
                        self.value(v, depth + 1)?;
                    }
                    self.out.push_str("\n}");
                }
                if typed {
                    self.out.push(')');
                }
            }
            Variant::PackedByteArray(a) => self.display(name, a.iter()),
            Variant::PackedInt32Array(a) => self.display(name, a.iter()),
            Variant::PackedInt64Array(a) => self.display(name, a.iter()),
            Variant::PackedFloat32Array(a) => self.reals(name, a),
            Variant::PackedFloat64Array(a) => self.call(name, a.iter(), |p, v| godot4_real(p.out, *v)),
            Variant::PackedStringArray(a) => self.call(name, a.iter(), |p, s| quoted(p.out, s, true)),
            Variant::PackedVector2Array(a) => self.reals(name, &a.iter().flat_map(|v| [v.x, v.y]).collect::<Vec<_>>()),
            Variant::PackedVector3Array(a) => {
                self.reals(name, &a.iter().flat_map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>())
            }
            Variant::PackedVector4Array(a) => {
                self.reals(name, &a.iter().flat_map(|v| [v.x, v.y, v.z, v.w]).collect::<Vec<_>>())
            }
            Variant::PackedColorArray(a) => {
                self.reals(name, &a.iter().flat_map(|c| [c.r, c.g, c.b, c.a]).collect::<Vec<_>>())
            }
            // Math types were printed from their components above.
            _ => {}
        }
        Ok(())
    }

    /// Whether a container at `depth` is past Godot 4's recursion limit (written empty); in
    /// Godot 3 mode, an error past `max_depth`.
    fn too_deep(&self, depth: usize) -> Result<bool> {
        if self.g3() {
            if depth > self.max_depth {
                return Err(Error::new(ErrorKind::DepthLimit(self.max_depth)));
            }
            return Ok(false);
        }
        Ok(depth > GODOT4_MAX_RECURSION)
    }

    /// `Object(Class,"prop":value,…)` and a newline, as the engine writes any object that is not a
    /// saved resource. An object id is Godot's `EncodedObjectAsID` object.
    fn object(&mut self, obj: &Object, depth: usize) -> Result<()> {
        if self.too_deep(depth)? {
            self.out.push_str("null");
            return Ok(());
        }
        match obj {
            Object::Null => self.out.push_str("null"),
            Object::Id(id) => {
                self.out.push_str("Object(EncodedObjectAsID,\"object_id\":");
                self.out.push_str(&(id.0 as i64).to_string());
                self.out.push_str(",\"script\":null)\n");
            }
            Object::Full(full) => {
                self.out.push_str("Object(");
                self.out.push_str(&full.class);
                self.out.push(',');
                for (i, (name, value)) in full.properties.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.out.push('"');
                    self.out.push_str(name);
                    self.out.push_str("\":");
                    self.value(value, depth + 1)?;
                }
                self.out.push_str(")\n");
            }
        }
        Ok(())
    }
}

/// A typed container's element, key or value type: `int`, `Node`, `Resource("res://x.gd")`,
/// `Variant`.
fn container_type(out: &mut String, ty: &ContainerType) {
    match ty {
        ContainerType::Untyped => out.push_str("Variant"),
        ContainerType::Builtin(ty) => out.push_str(ty.name()),
        ContainerType::ClassName(name) => out.push_str(name),
        ContainerType::Script(path) => {
            out.push_str("Resource(\"");
            out.push_str(path);
            out.push_str("\")");
        }
    }
}

/// `"` + `s` + `"`: Godot's `c_escape` when `c_escape` (StringName, NodePath, string arrays),
/// else `c_escape_multiline` (String: only `\` and `"`). Never `\u`.
pub(crate) fn quoted(out: &mut String, s: &str, c_escape: bool) {
    out.push('"');
    for c in s.chars() {
        let esc = match c {
            '\\' => "\\\\",
            '"' => "\\\"",
            _ if !c_escape => {
                out.push(c);
                continue;
            }
            '\u{7}' => "\\a",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{b}' => "\\v",
            '\'' => "\\'",
            '?' => "\\?",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(esc);
    }
    out.push('"');
}

/// Godot's Dictionary key order: Godot 4.4+ compares String / StringName pairs by content
/// (`StringLikeVariantOrder`); otherwise Variant `<`: by type id first, then within the types
/// that have a `<` (bool, int, float, String, the vectors); other pairs are unordered.
pub(crate) fn less(a: &Variant, b: &Variant, version: Version) -> bool {
    fn string_like(v: &Variant) -> Option<&str> {
        match v {
            Variant::String(s) => Some(s.as_str()),
            Variant::StringName(s) => Some(s.as_str()),
            _ => None,
        }
    }
    if version == Version::Godot4
        && let (Some(x), Some(y)) = (string_like(a), string_like(b))
    {
        return x < y;
    }
    let (ta, tb) = (a.variant_type(), b.variant_type());
    if ta != tb {
        return ta.id(version) < tb.id(version);
    }
    fn lex<T: PartialOrd>(x: &[T], y: &[T]) -> bool {
        for (x, y) in x.iter().zip(y) {
            if x != y {
                return x < y;
            }
        }
        false
    }
    match (a, b) {
        (Variant::Bool(x), Variant::Bool(y)) => x < y,
        (Variant::Int(x), Variant::Int(y)) => x < y,
        (Variant::Float(x), Variant::Float(y)) => x < y,
        (Variant::String(x), Variant::String(y)) => x < y,
        (Variant::Vector2(x), Variant::Vector2(y)) => lex(&[x.x, x.y], &[y.x, y.y]),
        (Variant::Vector3(x), Variant::Vector3(y)) => lex(&[x.x, x.y, x.z], &[y.x, y.y, y.z]),
        (Variant::Vector4(x), Variant::Vector4(y)) => lex(&[x.x, x.y, x.z, x.w], &[y.x, y.y, y.z, y.w]),
        (Variant::Vector2i(x), Variant::Vector2i(y)) => lex(&[x.x, x.y], &[y.x, y.y]),
        (Variant::Vector3i(x), Variant::Vector3i(y)) => lex(&[x.x, x.y, x.z], &[y.x, y.y, y.z]),
        (Variant::Vector4i(x), Variant::Vector4i(y)) => lex(&[x.x, x.y, x.z, x.w], &[y.x, y.y, y.z, y.w]),
        _ => false,
    }
}

/// Godot's `SortArray` for up to 16 elements (its insertion sort, whose first step moves an
/// element straight to the front when it is less than the first one — which matters for
/// unordered pairs such as NaN keys); longer lists are sorted stably by the same comparator
/// made total (unordered pairs keep their order), which equals Godot's introsort whenever the
/// keys are totally ordered.
pub(crate) fn godot_sort<T: Copy>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    if items.len() > 16 {
        items.sort_by(|a, b| {
            if less(a, b) {
                Ordering::Less
            } else if less(b, a) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
        return;
    }
    for i in 1..items.len() {
        let val = items[i];
        if less(&val, &items[0]) {
            items.copy_within(0..i, 1);
            items[0] = val;
        } else {
            let mut last = i;
            while less(&val, &items[last - 1]) {
                items[last] = items[last - 1];
                last -= 1;
            }
            items[last] = val;
        }
    }
}

impl Display for ContainerType {
    /// `Variant` (untyped), a builtin type's name (`int`), a class name, or a script path.
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
    /// Godot 4's text form, exactly what `var_to_str` prints (see [`crate::text`]): `null`,
    /// `true`, `42`, `1.5`, `"text"`, `&"name"`, `Vector2(1, 2)`, `NodePath("a/b:c")`,
    /// `[1, "two"]`, `{\n"hp": 10\n}`, `Array[int]([1, 2])`, `PackedByteArray(1, 2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        Printer { out: &mut out, version: Version::Godot4, max_depth: usize::MAX }
            .value(self, 0)
            .map_err(|_| fmt::Error)?;
        f.write_str(&out)
    }
}
