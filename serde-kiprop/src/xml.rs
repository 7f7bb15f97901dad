//! The XML debug form of objects (the layout of KingsIsle's old `.xml` assets, after libki):
//!
//! ```xml
//! <Objects>
//!   <Class Name="class Example">
//!     <m_name>Test</m_name>
//!     <m_pos>1 -2 3.5</m_pos>
//!     <m_school>Ice</m_school>
//!     <m_child>
//!       <Class Name="class Child">…</Class>
//!     </m_child>
//!     <m_none>0</m_none>
//!     <m_ids>1</m_ids>
//!     <m_ids>2</m_ids>
//!   </Class>
//! </Objects>
//! ```
//!
//! One element per property; containers repeat the element once per item; objects nest a
//! `<Class Name="…">`; a null pointer is `0`; leaf structs are their components separated by
//! spaces (display order: `r g b a` for colors); enums are option names (`A|C` for bit enums);
//! strings that are not UTF-8 carry `Hex="1"` and hex text. The layout is a best-effort
//! reconstruction (the spec marks it disputed); [`from_str`] reads what [`to_string`] writes and
//! tolerates other whitespace, comments, `key` attributes and commas between leaf components.
//!
//! ```
//! use serde_kiprop::{TypeList, Value, xml};
//! # use serde_kiprop::{ClassSchema, PropertySchema as P};
//! # static A: ClassSchema =
//! #     ClassSchema::new("class A", &[P::new("m_x").ty("int"), P::new("m_ids").ty("unsigned int").dynamic()]);
//! # let types = TypeList::from_schemas(&[&A]);
//! let value = Value::from_json(r#"{"$__type": "class A", "m_x": -3, "m_ids": [1, 2]}"#)?;
//! let text = xml::to_string(&value, &types)?;
//! assert!(text.contains("<m_ids>1</m_ids>\n    <m_ids>2</m_ids>"));
//! assert_eq!(xml::from_str(&text, &types)?, value);
//! # Ok::<(), serde_kiprop::Error>(())
//! ```

use std::fmt::Write as _;

use crate::codec::{Leaf, LeafValue, Prim, Scalar};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ClassDef, Kind, PropertyDef, TypeList};
use crate::value::{LEAF_BYTES, OBJECT_BYTES, Object, PROPERTY_BYTES, VALUE_BYTES, Value};

const MAX_DEPTH: usize = 256;

fn xml_err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Xml(msg.into()))
}

fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// Writes an object (and everything in it) in the XML debug form. The type list names enum
/// options and classes whose names the value lacks.
pub fn to_string(value: &Value, types: &TypeList) -> Result<String> {
    let obj = value.as_object().ok_or_else(|| xml_err("the root must be an object"))?;
    let mut out = String::from("<Objects>\n");
    write_object(&mut out, obj, types, 1)?;
    out.push_str("</Objects>\n");
    Ok(out)
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_object(out: &mut String, obj: &Object, types: &TypeList, level: usize) -> Result<()> {
    let class = types.class_by_hash(obj.type_hash);
    let name =
        obj.name.as_deref().or(class.map(ClassDef::name)).ok_or_else(|| xml_err("an object without a class name"))?;
    indent(out, level);
    out.push_str("<Class Name=\"");
    escape(out, name);
    out.push_str("\">\n");
    for (pname, v) in &obj.properties {
        let prop = class.and_then(|c| c.property(pname));
        match v {
            Value::List(items) => {
                for item in items {
                    write_property(out, pname, item, prop, types, level + 1)?;
                }
            }
            v => write_property(out, pname, v, prop, types, level + 1)?,
        }
    }
    indent(out, level);
    out.push_str("</Class>\n");
    Ok(())
}

fn write_property(
    out: &mut String,
    name: &str,
    v: &Value,
    prop: Option<&PropertyDef>,
    types: &TypeList,
    level: usize,
) -> Result<()> {
    indent(out, level);
    let _ = write!(out, "<{name}");
    match v {
        Value::Object(o) => {
            out.push_str(">\n");
            write_object(out, o, types, level + 1)?;
            indent(out, level);
        }
        Value::Bytes(b) => {
            out.push_str(" Hex=\"1\">");
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
        }
        v => {
            out.push('>');
            write_text(out, v, prop)?;
        }
    }
    let _ = writeln!(out, "</{name}>");
    Ok(())
}

fn write_scalar(out: &mut String, s: Scalar) {
    let _ = match s {
        Scalar::Bool(b) => write!(out, "{b}"),
        Scalar::Int(i) => write!(out, "{i}"),
        Scalar::UInt(u) => write!(out, "{u}"),
        Scalar::F32(f) => write!(out, "{f}"),
        Scalar::F64(f) => write!(out, "{f}"),
    };
}

fn write_text(out: &mut String, v: &Value, prop: Option<&PropertyDef>) -> Result<()> {
    match v {
        Value::Null => out.push('0'),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Int(_) | Value::UInt(_) => {
            let def = prop.filter(|p| p.kind == Kind::Enum).and_then(|p| p.enum_def());
            let named = match (def, v.as_i128().and_then(|i| u32::try_from(i).ok())) {
                (Some(def), Some(n)) => def.format(n),
                _ => None,
            };
            match named {
                Some(name) => escape(out, &name),
                None => {
                    let _ = write!(out, "{}", v.as_i128().unwrap_or_default());
                }
            }
        }
        Value::Float(f) => {
            let _ = write!(out, "{f}");
        }
        Value::String(s) => escape(out, s),
        Value::Leaf(l) => {
            for (i, field) in l.leaf.display_fields().iter().enumerate() {
                let start = l.leaf.field_start(field).unwrap_or(0);
                for (j, s) in l.wire[start..start + l.leaf.group()].iter().enumerate() {
                    if i + j > 0 {
                        out.push(' ');
                    }
                    write_scalar(out, *s);
                }
            }
        }
        Value::Bytes(_) | Value::Object(_) | Value::List(_) => return Err(xml_err("nested lists have no XML form")),
    }
    Ok(())
}

/// The attributes of a start tag that the reader uses (the first of each name).
struct Tag<'a> {
    name: &'a str,
    /// `Name="…"`, unescaped.
    class: Option<String>,
    /// A `Hex` attribute is present.
    hex: bool,
    /// `<… />`: no content, no end tag.
    empty: bool,
}

/// What comes next inside an element.
enum Content<'a> {
    /// Character data, still escaped.
    Text(&'a str),
    /// A CDATA section's contents.
    CData(&'a str),
    /// A child element starts here (at its `<`).
    Child,
    /// The element's end tag (consumed).
    End,
}

/// A one-pass reader: elements are read as they come and turned into values at once (no
/// document tree), every search starts where the last one ended, and the values built count
/// against a model budget like the binary decoder's.
struct Parser<'a> {
    s: &'a str,
    pos: usize,
    types: &'a TypeList,
    budget: u64,
    limit: u64,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn charge(&mut self, bytes: usize) -> Result<()> {
        match self.budget.checked_sub(bytes as u64) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(Error::new(ErrorKind::ModelLimit { limit: self.limit })),
        }
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.s.len() - trimmed.len();
    }

    /// Skips whitespace, comments, the XML declaration and doctypes.
    fn skip_misc(&mut self) -> Result<()> {
        loop {
            self.skip_ws();
            let r = self.rest();
            let end = if r.starts_with("<!--") {
                r.find("-->").map(|i| i + 3)
            } else if r.starts_with("<?") {
                r.find("?>").map(|i| i + 2)
            } else if r.starts_with("<!") {
                r.find('>').map(|i| i + 1)
            } else {
                return Ok(());
            };
            self.pos += end.ok_or_else(|| xml_err("unterminated comment or declaration"))?;
        }
    }

    fn name(&mut self) -> Result<&'a str> {
        let r = self.rest();
        let len = r.find(|c: char| c.is_whitespace() || matches!(c, '>' | '/' | '=')).unwrap_or(r.len());
        if len == 0 {
            return Err(xml_err(format!("expected a name at {}", self.pos)));
        }
        self.pos += len;
        Ok(&r[..len])
    }

    fn expect(&mut self, what: &str) -> Result<()> {
        if self.rest().starts_with(what) {
            self.pos += what.len();
            Ok(())
        } else {
            Err(xml_err(format!("expected {what:?} at {}", self.pos)))
        }
    }

    /// Reads a start tag at `depth` (the root is 0).
    fn start_tag(&mut self, depth: usize) -> Result<Tag<'a>> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::RecursionLimit));
        }
        self.expect("<")?;
        let mut tag = Tag { name: self.name()?, class: None, hex: false, empty: false };
        loop {
            self.skip_ws();
            if self.rest().starts_with("/>") {
                self.pos += 2;
                tag.empty = true;
                return Ok(tag);
            }
            if self.rest().starts_with('>') {
                self.pos += 1;
                return Ok(tag);
            }
            let key = self.name()?;
            self.skip_ws();
            self.expect("=")?;
            self.skip_ws();
            let quote = self.rest().chars().next().filter(|c| *c == '"' || *c == '\'');
            let quote = quote.ok_or_else(|| xml_err("expected a quoted attribute value"))?;
            self.pos += 1;
            let end = self.rest().find(quote).ok_or_else(|| xml_err("unterminated attribute"))?;
            let raw = &self.rest()[..end];
            self.pos += end + 1;
            match key {
                "Name" if tag.class.is_none() => {
                    let mut value = String::new();
                    unescape_into(raw, Some(&mut value))?;
                    tag.class = Some(value);
                }
                _ => {
                    unescape_into(raw, None)?;
                    tag.hex |= key == "Hex";
                }
            }
        }
    }

    /// The next piece of an element's content; comments are skipped.
    fn content(&mut self, name: &str) -> Result<Content<'a>> {
        loop {
            let r = self.rest();
            if r.starts_with("</") {
                self.pos += 2;
                let end = self.name()?;
                if end != name {
                    return Err(xml_err(format!("</{end}> closes <{name}>")));
                }
                self.skip_ws();
                self.expect(">")?;
                return Ok(Content::End);
            } else if r.starts_with("<!--") {
                let end = r.find("-->").ok_or_else(|| xml_err("unterminated comment"))?;
                self.pos += end + 3;
            } else if r.starts_with("<![CDATA[") {
                let end = r.find("]]>").ok_or_else(|| xml_err("unterminated CDATA"))?;
                self.pos += end + 3;
                return Ok(Content::CData(&r[9..end]));
            } else if r.starts_with('<') {
                return Ok(Content::Child);
            } else if r.is_empty() {
                return Err(xml_err(format!("<{name}> is not closed")));
            } else {
                let end = r.find('<').unwrap_or(r.len());
                self.pos += end;
                return Ok(Content::Text(&r[..end]));
            }
        }
    }

    /// Reads and discards an element whose start tag was read (checking that it is well formed).
    fn skip_element(&mut self, tag: &Tag<'a>, depth: usize) -> Result<()> {
        if tag.empty {
            return Ok(());
        }
        loop {
            match self.content(tag.name)? {
                Content::Text(t) => unescape_into(t, None)?,
                Content::CData(_) => {}
                Content::Child => {
                    let child = self.start_tag(depth + 1)?;
                    self.skip_element(&child, depth + 1)?;
                }
                Content::End => return Ok(()),
            }
        }
    }

    /// The root element: a `<Class>`, or any element whose first `<Class>` child is the object.
    fn root(&mut self) -> Result<Value> {
        let tag = self.start_tag(0)?;
        if tag.name == "Class" {
            return self.object(&tag, 0);
        }
        let mut found = None;
        if !tag.empty {
            loop {
                match self.content(tag.name)? {
                    Content::Text(t) => unescape_into(t, None)?,
                    Content::CData(_) => {}
                    Content::Child => {
                        let child = self.start_tag(1)?;
                        if child.name == "Class" && found.is_none() {
                            found = Some(self.object(&child, 1)?);
                        } else {
                            self.skip_element(&child, 1)?;
                        }
                    }
                    Content::End => break,
                }
            }
        }
        found.ok_or_else(|| xml_err("no <Class> element"))
    }

    /// A `<Class Name="…">` element whose start tag was read.
    fn object(&mut self, tag: &Tag<'a>, depth: usize) -> Result<Value> {
        let types = self.types;
        let name = tag.class.as_deref().ok_or_else(|| xml_err("<Class> without Name"))?;
        let class = types.class_by_name(name).ok_or_else(|| Error::new(ErrorKind::UnknownClass(name.to_owned())))?;
        self.charge(OBJECT_BYTES + class.name().len())?;
        let mut props: Vec<(String, Value)> = Vec::new();
        // Where each container property's list is in `props`, by property index.
        let mut lists: Vec<Option<usize>> = vec![None; class.properties().len()];
        let mut slots = 0;
        let mut push = |p: &mut Self, props: &mut Vec<(String, Value)>, name: &str, v: Value| -> Result<()> {
            if props.len() == slots {
                let grown = (slots * 2).max(4);
                p.charge((grown - slots) * PROPERTY_BYTES)?;
                slots = grown;
            }
            p.charge(name.len())?;
            props.push((name.to_owned(), v));
            Ok(())
        };
        if !tag.empty {
            loop {
                match self.content(tag.name)? {
                    Content::Text(t) => unescape_into(t, None)?,
                    Content::CData(_) => {}
                    Content::Child => {
                        let child = self.start_tag(depth + 1)?;
                        let index = class.find(child.name, 0).ok_or_else(|| {
                            Error::new(ErrorKind::UnknownField {
                                class: class.name().to_owned(),
                                field: child.name.to_owned(),
                            })
                        })?;
                        let prop = &class.properties()[index];
                        let v = self.property(&child, prop, depth + 1)?;
                        if prop.is_dynamic() {
                            // A list grows by doubling: count each element twice.
                            self.charge(2 * VALUE_BYTES)?;
                            match lists[index] {
                                Some(at) => {
                                    if let (_, Value::List(items)) = &mut props[at] {
                                        items.push(v);
                                    }
                                }
                                None => {
                                    lists[index] = Some(props.len());
                                    push(self, &mut props, child.name, Value::List(vec![v]))?;
                                }
                            }
                        } else {
                            push(self, &mut props, child.name, v)?;
                        }
                    }
                    Content::End => break,
                }
            }
        }
        // An empty container has no elements; give it back its (empty) value.
        for (i, p) in class.properties().iter().enumerate() {
            if p.is_dynamic() && lists[i].is_none() {
                lists[i] = Some(props.len());
                push(self, &mut props, p.name(), Value::List(Vec::new()))?;
            }
        }
        Ok(Value::Object(Box::new(Object {
            type_hash: class.hash(),
            name: Some(class.name().to_owned()),
            properties: props,
        })))
    }

    /// A property element whose start tag was read: a nested `<Class>` (the first one), hex
    /// bytes (`Hex`), or text read as the property's type.
    fn property(&mut self, tag: &Tag<'a>, prop: &PropertyDef, depth: usize) -> Result<Value> {
        let mut text = String::new();
        let mut object = None;
        if !tag.empty {
            loop {
                match self.content(tag.name)? {
                    Content::Text(t) => unescape_into(t, Some(&mut text))?,
                    Content::CData(t) => text.push_str(t),
                    Content::Child => {
                        let child = self.start_tag(depth + 1)?;
                        if child.name == "Class" && object.is_none() {
                            object = Some(self.object(&child, depth + 1)?);
                        } else {
                            self.skip_element(&child, depth + 1)?;
                        }
                    }
                    Content::End => break,
                }
            }
        }
        if let Some(object) = object {
            return Ok(object);
        }
        let value = read_value(text, tag.hex, prop)?;
        match &value {
            Value::String(s) => self.charge(s.capacity())?,
            Value::Bytes(b) => self.charge(b.capacity())?,
            Value::Leaf(_) => self.charge(LEAF_BYTES)?,
            _ => {}
        }
        Ok(value)
    }
}

/// Unescapes `text` into `out` (or only checks it when `out` is `None`).
fn unescape_into(text: &str, mut out: Option<&mut String>) -> Result<()> {
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        if let Some(out) = out.as_deref_mut() {
            out.push_str(&rest[..i]);
        }
        rest = &rest[i..];
        let end = rest.find(';').ok_or_else(|| xml_err("unterminated entity"))?;
        let entity = &rest[1..end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            e => {
                let code = if let Some(hex) = e.strip_prefix("#x").or_else(|| e.strip_prefix("#X")) {
                    u32::from_str_radix(hex, 16).ok()
                } else {
                    e.strip_prefix('#').and_then(|d| d.parse().ok())
                };
                code.and_then(char::from_u32).ok_or_else(|| xml_err(format!("unknown entity &{e};")))?
            }
        };
        if let Some(out) = out.as_deref_mut() {
            out.push(c);
        }
        rest = &rest[end + 1..];
    }
    if let Some(out) = out {
        out.push_str(rest);
    }
    Ok(())
}

/// Reads the XML debug form back into a [`Value`] (the first object under `<Objects>`).
///
/// One pass over the text, no document tree: linear time, and the value built counts against
/// the same model budget as binary decoding with the default [`Options`](crate::Options):
/// [`DEFAULT_MODEL_BUDGET`](crate::DEFAULT_MODEL_BUDGET) bytes per byte of text plus
/// [`MODEL_BUDGET_BASE`](crate::MODEL_BUDGET_BASE) ([`ErrorKind::ModelLimit`] beyond). Elements
/// nest at most 256 deep ([`ErrorKind::RecursionLimit`]).
pub fn from_str(text: &str, types: &TypeList) -> Result<Value> {
    let limit = (crate::DEFAULT_MODEL_BUDGET as u64)
        .saturating_mul(text.len() as u64)
        .saturating_add(crate::MODEL_BUDGET_BASE as u64);
    let mut p = Parser { s: text, pos: 0, types, budget: limit, limit };
    p.skip_misc()?;
    let value = p.root()?;
    p.skip_misc()?;
    if !p.rest().is_empty() {
        return Err(xml_err("data after the root element"));
    }
    Ok(value)
}

fn parse_num(text: &str, field: &str) -> Result<Value> {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(u) = t.parse::<u64>() {
        return Ok(Value::from_u64(u));
    }
    t.parse::<f64>().map(Value::Float).map_err(|_| Error::mismatch(field, format!("a number, got {t:?}")))
}

fn read_value(mut text: String, hex: bool, prop: &PropertyDef) -> Result<Value> {
    let field = prop.name();
    if hex {
        let t = text.trim();
        let bytes: Option<Vec<u8>> =
            (0..t.len()).step_by(2).map(|i| t.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect();
        return bytes.map(Value::Bytes).ok_or_else(|| Error::mismatch(field, "hex bytes"));
    }
    match prop.kind {
        Kind::Object(_) => match text.trim() {
            "0" | "" => Ok(Value::Null),
            t => Err(Error::mismatch(field, format!("a <Class> or 0, got {t:?}"))),
        },
        Kind::Prim(Prim::Bool) => match text.trim() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            t => Err(Error::mismatch(field, format!("a bool, got {t:?}"))),
        },
        Kind::Prim(Prim::Str | Prim::WStr) => {
            text.shrink_to_fit();
            Ok(Value::String(text))
        }
        Kind::Prim(Prim::F32 | Prim::F64) => {
            let t = text.trim();
            t.parse().map(Value::Float).map_err(|_| Error::mismatch(field, format!("a number, got {t:?}")))
        }
        Kind::Prim(_) => parse_num(&text, field),
        Kind::Enum => {
            if let Ok(v @ (Value::Int(_) | Value::UInt(_))) = parse_num(&text, field) {
                return Ok(v);
            }
            let def = prop.enum_def().ok_or_else(|| Error::mismatch(field, "enum options"))?;
            def.parse(&text).map(|v| Value::Int(v.into())).ok_or_else(|| {
                Error::new(ErrorKind::UnknownEnumValue { property: field.to_owned(), value: text.clone() })
            })
        }
        Kind::Leaf(leaf) => read_leaf(&text, leaf, field),
        Kind::Auto => match parse_num(&text, field) {
            Ok(v) => Ok(v),
            Err(_) => {
                text.shrink_to_fit();
                Ok(Value::String(text))
            }
        },
    }
}

fn read_leaf(text: &str, leaf: Leaf, field: &str) -> Result<Value> {
    let parts: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()).collect();
    if parts.len() != leaf.len() {
        return Err(Error::mismatch(field, format!("{} numbers for {}", leaf.len(), leaf.type_name())));
    }
    let float = leaf.component() == Prim::F32;
    let mut wire = [Scalar::UInt(0); 9];
    let mut k = 0;
    for name in leaf.display_fields() {
        let start = leaf.field_start(name).unwrap_or(0);
        for slot in &mut wire[start..start + leaf.group()] {
            let t = parts[k];
            k += 1;
            *slot = if float {
                Scalar::F64(t.parse().map_err(|_| Error::mismatch(field, format!("a number, got {t:?}")))?)
            } else {
                Scalar::Int(t.parse().map_err(|_| Error::mismatch(field, format!("an integer, got {t:?}")))?)
            };
        }
    }
    Ok(Value::Leaf(Box::new(LeafValue { leaf, wire })))
}
