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
use crate::value::{Object, Value};

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

/// A parsed element.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
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

    fn name(&mut self) -> Result<String> {
        let r = self.rest();
        let len = r.find(|c: char| c.is_whitespace() || matches!(c, '>' | '/' | '=')).unwrap_or(r.len());
        if len == 0 {
            return Err(xml_err(format!("expected a name at {}", self.pos)));
        }
        self.pos += len;
        Ok(r[..len].to_owned())
    }

    fn expect(&mut self, what: &str) -> Result<()> {
        if self.rest().starts_with(what) {
            self.pos += what.len();
            Ok(())
        } else {
            Err(xml_err(format!("expected {what:?} at {}", self.pos)))
        }
    }

    fn element(&mut self, depth: usize) -> Result<Element> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::RecursionLimit));
        }
        self.expect("<")?;
        let mut el = Element { name: self.name()?, ..Element::default() };
        loop {
            self.skip_ws();
            if self.rest().starts_with("/>") {
                self.pos += 2;
                return Ok(el);
            }
            if self.rest().starts_with('>') {
                self.pos += 1;
                break;
            }
            let key = self.name()?;
            self.skip_ws();
            self.expect("=")?;
            self.skip_ws();
            let quote = self.rest().chars().next().filter(|c| *c == '"' || *c == '\'');
            let quote = quote.ok_or_else(|| xml_err("expected a quoted attribute value"))?;
            self.pos += 1;
            let end = self.rest().find(quote).ok_or_else(|| xml_err("unterminated attribute"))?;
            let value = unescape(&self.rest()[..end])?;
            self.pos += end + 1;
            el.attrs.push((key, value));
        }
        loop {
            let r = self.rest();
            if r.starts_with("</") {
                self.pos += 2;
                let name = self.name()?;
                if name != el.name {
                    return Err(xml_err(format!("</{name}> closes <{}>", el.name)));
                }
                self.skip_ws();
                self.expect(">")?;
                return Ok(el);
            } else if r.starts_with("<!--") {
                let end = r.find("-->").ok_or_else(|| xml_err("unterminated comment"))?;
                self.pos += end + 3;
            } else if r.starts_with("<![CDATA[") {
                let end = r.find("]]>").ok_or_else(|| xml_err("unterminated CDATA"))?;
                el.text.push_str(&r[9..end]);
                self.pos += end + 3;
            } else if r.starts_with('<') {
                el.children.push(self.element(depth + 1)?);
            } else if r.is_empty() {
                return Err(xml_err(format!("<{}> is not closed", el.name)));
            } else {
                let end = r.find('<').unwrap_or(r.len());
                el.text.push_str(&unescape(&r[..end])?);
                self.pos += end;
            }
        }
    }
}

fn unescape(text: &str) -> Result<String> {
    if !text.contains('&') {
        return Ok(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
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
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Reads the XML debug form back into a [`Value`] (the first object under `<Objects>`).
pub fn from_str(text: &str, types: &TypeList) -> Result<Value> {
    let mut p = Parser { s: text, pos: 0 };
    p.skip_misc()?;
    let root = p.element(0)?;
    p.skip_misc()?;
    if !p.rest().is_empty() {
        return Err(xml_err("data after the root element"));
    }
    let class = if root.name == "Class" {
        &root
    } else {
        root.children.iter().find(|c| c.name == "Class").ok_or_else(|| xml_err("no <Class> element"))?
    };
    read_object(class, types, 0)
}

fn read_object(el: &Element, types: &TypeList, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::RecursionLimit));
    }
    let name = el.attr("Name").ok_or_else(|| xml_err("<Class> without Name"))?;
    let class = types.class_by_name(name).ok_or_else(|| Error::new(ErrorKind::UnknownClass(name.to_owned())))?;
    let mut props: Vec<(String, Value)> = Vec::new();
    for child in &el.children {
        let prop = class.property(&child.name).ok_or_else(|| {
            Error::new(ErrorKind::UnknownField { class: class.name().to_owned(), field: child.name.clone() })
        })?;
        let v = read_value(child, prop, types, depth)?;
        if prop.is_dynamic() {
            match props.iter_mut().find(|(n, _)| *n == child.name) {
                Some((_, Value::List(items))) => items.push(v),
                _ => props.push((child.name.clone(), Value::List(vec![v]))),
            }
        } else {
            props.push((child.name.clone(), v));
        }
    }
    // An empty container has no elements; give it back its (empty) value.
    for p in class.properties() {
        if p.is_dynamic() && !props.iter().any(|(n, _)| n == p.name()) {
            props.push((p.name().to_owned(), Value::List(Vec::new())));
        }
    }
    Ok(Value::Object(Box::new(Object {
        type_hash: class.hash(),
        name: Some(class.name().to_owned()),
        properties: props,
    })))
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

fn read_value(el: &Element, prop: &PropertyDef, types: &TypeList, depth: usize) -> Result<Value> {
    let field = prop.name();
    if let Some(class) = el.children.iter().find(|c| c.name == "Class") {
        return read_object(class, types, depth + 1);
    }
    if el.attr("Hex").is_some() {
        let t = el.text.trim();
        let bytes: Option<Vec<u8>> =
            (0..t.len()).step_by(2).map(|i| t.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect();
        return bytes.map(Value::Bytes).ok_or_else(|| Error::mismatch(field, "hex bytes"));
    }
    let text = el.text.as_str();
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
        Kind::Prim(Prim::Str | Prim::WStr) => Ok(Value::String(text.to_owned())),
        Kind::Prim(Prim::F32 | Prim::F64) => {
            let t = text.trim();
            t.parse().map(Value::Float).map_err(|_| Error::mismatch(field, format!("a number, got {t:?}")))
        }
        Kind::Prim(_) => parse_num(text, field),
        Kind::Enum => {
            if let Ok(v @ (Value::Int(_) | Value::UInt(_))) = parse_num(text, field) {
                return Ok(v);
            }
            let def = prop.enum_def().ok_or_else(|| Error::mismatch(field, "enum options"))?;
            def.parse(text).map(|v| Value::Int(v.into())).ok_or_else(|| {
                Error::new(ErrorKind::UnknownEnumValue { property: field.to_owned(), value: text.to_owned() })
            })
        }
        Kind::Leaf(leaf) => read_leaf(text, leaf, field),
        Kind::Auto => match parse_num(text, field) {
            Ok(v) => Ok(v),
            Err(_) => Ok(Value::String(text.to_owned())),
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
