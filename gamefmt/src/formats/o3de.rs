//! o3de: any O3DE JSON file serde-o3de loads — prefabs through the typed prefab model, settings
//! registry files (`.setreg`, `.setregpatch`: comments and trailing commas allowed) and other O3DE
//! JSON documents (`.material`, `.materialtype`, …) as ordered members — through the lenient loader
//! (issues reported with JSON paths) and its writer (O3DE's 4-space layout).
//!
//! The decoded JSON says which kind it was in `$__kind` (`prefab`, `setreg`, `setregpatch` or
//! `json`); a document without `$__kind` is a prefab (what earlier versions wrote). A document whose
//! root is not an object (a `.setregpatch` is a JSON Patch: an array of operations) is held in
//! `$__value`.

use std::path::Path;

use indexmap::IndexMap;
use serde_json::json;
use serde_o3de::prefab::Prefab;
use serde_o3de::value::RawJson;
use serde_o3de::{Options, Report};

use super::{Failure, Outcome};
use crate::cli::Format;

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(Format::O3de, e)
}

/// What kind of O3DE JSON a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A prefab (`ContainerEntity`, `Entities`, `Instances`): the typed prefab model.
    Prefab,
    /// A settings registry file (`.setreg`): comments and trailing commas allowed.
    Setreg,
    /// A settings registry patch (`.setregpatch`), read like a `.setreg`.
    Setregpatch,
    /// Any other O3DE JSON document (a material, an asset's JSON): its members in order.
    Json,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Prefab => "prefab",
            Kind::Setreg => "setreg",
            Kind::Setregpatch => "setregpatch",
            Kind::Json => "json",
        }
    }

    fn from_name(name: &str) -> Option<Kind> {
        [Kind::Prefab, Kind::Setreg, Kind::Setregpatch, Kind::Json].into_iter().find(|k| k.name() == name)
    }

    /// The extension an encoded file of this kind gets.
    pub(crate) fn extension(self) -> &'static str {
        self.name()
    }

    /// Settings-registry syntax (comments, trailing commas).
    fn relaxed(self) -> bool {
        matches!(self, Kind::Setreg | Kind::Setregpatch)
    }
}

/// The extensions that say o3de without looking at the bytes.
pub(crate) fn is_o3de_extension(ext: &str) -> bool {
    matches!(ext, "prefab" | "setreg" | "setregpatch")
}

/// The members of a JSON document, in order, each kept as its text.
type Members = IndexMap<String, RawJson>;

/// A document other than a prefab: an object's members in order, or another root kept as text.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Doc {
    Object(Members),
    Other(RawJson),
}

impl Default for Doc {
    fn default() -> Self {
        Doc::Object(Members::new())
    }
}

/// Writes a document as it is: every member, nothing compared with a default.
fn write_doc(doc: &Doc, compact: bool) -> Outcome<String> {
    let o = Options::new().keep_defaults(true);
    if compact { o.to_string(doc) } else { o.to_string_pretty(doc) }.map_err(fail)
}

/// The kind of a file: its extension, else its root members (`ContainerEntity` → a prefab), else
/// plain JSON; a document that only loads with settings-registry syntax is a `.setreg`.
fn kind_of(path: &Path, bytes: &[u8]) -> Kind {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("prefab") => return Kind::Prefab,
        Some("setreg") => return Kind::Setreg,
        Some("setregpatch") => return Kind::Setregpatch,
        _ => {}
    }
    match Options::new().from_slice::<RawJson>(bytes) {
        Ok(raw) if raw.parse::<Members>().is_ok_and(|m| m.contains_key("ContainerEntity")) => Kind::Prefab,
        Ok(_) => Kind::Json,
        Err(_) if Options::new().settings_registry(true).from_slice::<RawJson>(bytes).is_ok() => Kind::Setreg,
        Err(_) => Kind::Json,
    }
}

/// Loads a prefab leniently: the prefab, and the load report.
fn load_prefab(bytes: &[u8]) -> Outcome<(Prefab, Report)> {
    let (prefab, report) = Options::new().load_slice::<Prefab>(bytes).map_err(fail)?;
    if prefab.container_entity.id.is_empty() && prefab.entities.is_empty() && prefab.instances.is_empty() {
        return Err(fail(
            "at /ContainerEntity: expected a prefab (ContainerEntity, Entities, Instances); \
             give the file another extension (or $__kind) to read it as plain O3DE JSON",
        ));
    }
    Ok((prefab, report))
}

/// Loads any other O3DE JSON document leniently: its members in order (or its root as text), and
/// the load report.
fn load_doc(kind: Kind, bytes: &[u8]) -> Outcome<(Doc, Report)> {
    let (raw, report) = Options::new().settings_registry(kind.relaxed()).load_slice::<RawJson>(bytes).map_err(fail)?;
    let doc = match raw.parse::<Members>() {
        Ok(members) if raw.get().starts_with('{') => Doc::Object(members),
        _ => Doc::Other(raw),
    };
    Ok((doc, report))
}

fn warnings(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report.issues.iter().map(|i| format!("warning: {i}")).collect();
    if report.omitted > 0 {
        lines.push(format!("warning: {} more issues not kept", report.omitted));
    }
    lines
}

/// Refuses a root member that collides with gamefmt's own `$__` keys.
fn reserved<'a>(mut keys: impl Iterator<Item = &'a String>) -> Outcome<()> {
    match keys.find(|k| k.starts_with("$__")) {
        Some(key) => Err(fail(format_args!("at /{key}: gamefmt reserves `$__` root members for its own settings"))),
        None => Ok(()),
    }
}

/// The text the writer gives, with the meta keys in front.
fn with_meta(text: &str, kind: Kind, compact: bool) -> Vec<u8> {
    let mut meta = vec![("$__format", json!("o3de"))];
    if kind != Kind::Prefab {
        meta.push(("$__kind", json!(kind.name())));
    }
    let mut out = super::splice_meta(text.as_bytes(), &meta, !compact, "    ");
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}

pub(super) fn decode(compact: bool, path: &Path, bytes: &[u8]) -> Outcome<(Vec<u8>, Vec<String>)> {
    let kind = kind_of(path, bytes);
    let write = |r: serde_o3de::Result<String>| r.map_err(fail);
    let (text, report) = match kind {
        Kind::Prefab => {
            let (prefab, report) = load_prefab(bytes)?;
            reserved(prefab.extra.keys())?;
            (
                write(if compact { serde_o3de::to_string(&prefab) } else { serde_o3de::to_string_pretty(&prefab) })?,
                report,
            )
        }
        _ => {
            let (doc, report) = load_doc(kind, bytes)?;
            let doc = match doc {
                Doc::Object(members) => {
                    reserved(members.keys())?;
                    Doc::Object(members)
                }
                Doc::Other(raw) => Doc::Object(IndexMap::from([("$__value".to_owned(), raw)])),
            };
            (write_doc(&doc, compact)?, report)
        }
    };
    Ok((with_meta(&text, kind, compact), warnings(&report)))
}

/// Encodes decoded JSON back: the document as O3DE writes it, and the kind (for the extension).
pub(super) fn encode(json: &[u8]) -> Outcome<(Vec<u8>, Vec<String>, Kind)> {
    let Ok(mut members) = Options::new().from_slice::<Members>(json) else {
        return Err(fail("at /: expected an object with $__format (as `gamefmt decode` writes it)"));
    };
    let kind = match members.get("$__kind") {
        None => Kind::Prefab,
        Some(raw) => {
            let name: String = raw.parse().map_err(|_| fail("at /$__kind: expected a string"))?;
            Kind::from_name(&name).ok_or_else(|| {
                fail(format_args!("at /$__kind: expected prefab, setreg, setregpatch or json, not {name:?}"))
            })?
        }
    };
    fn unknown<'a>(mut keys: impl Iterator<Item = &'a String>) -> Outcome<()> {
        match keys.find(|k| k.starts_with("$__")) {
            Some(key) => {
                Err(fail(format_args!("at /{key}: unknown gamefmt key (expected $__format, $__kind, $__value)")))
            }
            None => Ok(()),
        }
    }
    if kind == Kind::Prefab {
        let (mut prefab, report) = load_prefab(json)?;
        prefab.extra.shift_remove("$__format");
        prefab.extra.shift_remove("$__kind");
        unknown(prefab.extra.keys())?;
        let text = serde_o3de::to_string_pretty(&prefab).map_err(fail)?;
        return Ok((text.into_bytes(), warnings(&report), kind));
    }
    members.shift_remove("$__format");
    members.shift_remove("$__kind");
    let doc = match members.shift_remove("$__value") {
        Some(raw) if members.is_empty() => Doc::Other(raw),
        Some(_) => return Err(fail("at /$__value: a document held in $__value has no other members")),
        None => {
            unknown(members.keys())?;
            Doc::Object(members)
        }
    };
    let text = write_doc(&doc, false)?;
    Ok((text.into_bytes(), Vec::new(), kind))
}

fn header(out: &mut String, what: &str, bytes: &[u8], report: &Report) {
    out.push_str(&format!("format: o3de ({what})\n"));
    out.push_str(&format!("size: {}\n", super::size(bytes.len())));
    out.push_str(&format!("load: {} ({} issues)\n", report.outcome(), report.total_issues()));
    for w in warnings(report) {
        out.push_str(&format!("  {w}\n"));
    }
}

pub(super) fn inspect(path: &Path, bytes: &[u8]) -> Outcome<String> {
    let kind = kind_of(path, bytes);
    if kind != Kind::Prefab {
        return inspect_members(kind, bytes);
    }
    let (prefab, report) = load_prefab(bytes)?;
    let mut out = String::new();
    header(&mut out, "prefab", bytes, &report);
    let name = &prefab.container_entity.name;
    out.push_str(&format!("container entity: {} {name:?}\n", prefab.container_entity.id));
    let entities: Vec<_> = prefab.all_entities().collect();
    let components: usize = entities.iter().map(|(_, e)| e.components.len()).sum();
    out.push_str(&format!("entities: {} (with the container)\ncomponents: {components}\n", entities.len()));
    out.push_str(&format!("instances: {}\n", prefab.instances.len()));
    for (alias, instance) in &prefab.instances {
        out.push_str(&format!("  {alias}: {} ({} patches)\n", instance.source, instance.patches.len()));
    }
    let mut types: std::collections::BTreeMap<&str, usize> = Default::default();
    for (_, e) in &entities {
        for c in e.components.values() {
            *types.entry(c.type_name()).or_default() += 1;
        }
    }
    out.push_str("component types:\n");
    for (t, n) in types {
        out.push_str(&format!("  {t}: {n}\n"));
    }
    Ok(out)
}

/// Counts of a JSON value: (objects, arrays, leaf values), itself included.
#[derive(Default)]
struct Counts {
    objects: usize,
    arrays: usize,
    values: usize,
}

impl Counts {
    /// Walks `value` iteratively (the loader already bounded its depth).
    fn of(value: &serde_json::Value) -> Counts {
        let mut counts = Counts::default();
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Object(m) => {
                    counts.objects += 1;
                    stack.extend(m.values());
                }
                serde_json::Value::Array(a) => {
                    counts.arrays += 1;
                    stack.extend(a.iter());
                }
                _ => counts.values += 1,
            }
        }
        counts
    }
}

fn describe(value: &serde_json::Value) -> String {
    let c = Counts::of(value);
    match value {
        serde_json::Value::Object(m) => {
            format!("object, {} members, {} values in {} objects and {} arrays", m.len(), c.values, c.objects, c.arrays)
        }
        serde_json::Value::Array(a) => {
            format!("array, {} elements, {} values in {} objects and {} arrays", a.len(), c.values, c.objects, c.arrays)
        }
        serde_json::Value::String(_) => "string".to_owned(),
        serde_json::Value::Number(_) => "number".to_owned(),
        serde_json::Value::Bool(_) => "bool".to_owned(),
        serde_json::Value::Null => "null".to_owned(),
    }
}

/// A settings registry file or other O3DE JSON: its top-level keys (or a patch's operations),
/// each with its counts.
fn inspect_members(kind: Kind, bytes: &[u8]) -> Outcome<String> {
    let (doc, report) = load_doc(kind, bytes)?;
    let what = match kind {
        Kind::Setreg => "settings registry, .setreg",
        Kind::Setregpatch => "settings registry patch, .setregpatch",
        _ => "JSON document",
    };
    let mut out = String::new();
    header(&mut out, what, bytes, &report);
    let root = match &doc {
        Doc::Object(members) => {
            let mut map = serde_json::Map::new();
            for (key, raw) in members {
                map.insert(key.clone(), raw.to_value().map_err(fail)?);
            }
            out.push_str(&format!("top-level keys: {}\n", members.len()));
            for (key, raw) in members {
                out.push_str(&format!("  {key}: {}\n", describe(&raw.to_value().map_err(fail)?)));
            }
            serde_json::Value::Object(map)
        }
        Doc::Other(raw) => {
            let value = raw.to_value().map_err(fail)?;
            out.push_str(&format!("root: {}\n", describe(&value)));
            if let serde_json::Value::Array(items) = &value {
                // A JSON Patch (RFC 6902): operations by kind.
                let mut ops: std::collections::BTreeMap<&str, usize> = Default::default();
                for item in items {
                    if let Some(op) = item.get("op").and_then(serde_json::Value::as_str) {
                        *ops.entry(op).or_default() += 1;
                    }
                }
                if !ops.is_empty() {
                    out.push_str(&format!("patch operations: {}\n", ops.values().sum::<usize>()));
                    for (op, n) in ops {
                        out.push_str(&format!("  {op}: {n}\n"));
                    }
                }
            }
            value
        }
    };
    let c = Counts::of(&root);
    out.push_str(&format!(
        "values: {} (in {} objects and {} arrays, the root included)\n",
        c.values, c.objects, c.arrays
    ));
    let types = type_count(&root);
    if types > 0 {
        out.push_str(&format!("$type objects: {types}\n"));
    }
    Ok(out)
}

/// How many objects carry a `$type` (the classes a settings file instantiates).
fn type_count(value: &serde_json::Value) -> usize {
    let mut n = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(m) => {
                n += usize::from(m.contains_key("$type"));
                stack.extend(m.values());
            }
            serde_json::Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    n
}
