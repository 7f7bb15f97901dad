//! `gamefmt diff`: both files decoded to JSON and compared structurally, by JSON Pointer.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::formats::{self, Context};
use crate::output;
use crate::status::{FAILED, USAGE};

/// Longest value shown on a difference line.
const MAX_SHOWN: usize = 120;

fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= MAX_SHOWN {
        text
    } else {
        let cut: String = text.chars().take(MAX_SHOWN).collect();
        format!("{cut}…")
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// One step of the comparison: a line to print, or two values to compare at a path.
enum Step<'a> {
    Line(String),
    Compare(String, &'a Value, &'a Value),
}

/// The differences between `a` and `b`, in document order (iteratively: any depth is fine).
pub(crate) fn differences(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![Step::Compare(String::new(), a, b)];
    while let Some(step) = stack.pop() {
        let (path, a, b) = match step {
            Step::Line(line) => {
                out.push(line);
                continue;
            }
            Step::Compare(path, a, b) => (path, a, b),
        };
        let mut next = Vec::new();
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, va) in x {
                    let p = format!("{path}/{}", escape(k));
                    next.push(match y.get(k) {
                        Some(vb) => Step::Compare(p, va, vb),
                        None => Step::Line(format!("- {p}: {}", shown(va))),
                    });
                }
                for (k, vb) in y {
                    if !x.contains_key(k) {
                        next.push(Step::Line(format!("+ {path}/{}: {}", escape(k), shown(vb))));
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                let common = x.len().min(y.len());
                next.extend((0..common).map(|i| Step::Compare(format!("{path}/{i}"), &x[i], &y[i])));
                for (i, va) in x.iter().enumerate().skip(common) {
                    next.push(Step::Line(format!("- {path}/{i}: {}", shown(va))));
                }
                for (i, vb) in y.iter().enumerate().skip(common) {
                    next.push(Step::Line(format!("+ {path}/{i}: {}", shown(vb))));
                }
            }
            _ if a != b => {
                let p = if path.is_empty() { "/".to_owned() } else { path };
                out.push(format!("~ {p}: {} -> {}", shown(a), shown(b)));
            }
            _ => {}
        }
        stack.extend(next.into_iter().rev());
    }
    out
}

/// Whether a member holds a Resonite ID: `ID`, `Persistent-ID` (any case) and `ParentReference`
/// (which may point outside the tree, so it defines an ID too).
fn is_id_member(key: &str) -> bool {
    key == "ID" || key.to_ascii_lowercase().ends_with("-id") || key == "ParentReference"
}

/// Replaces Resonite reference IDs by their order of first appearance: every string value of an
/// ID member ([`is_id_member`]) defines one, and every string equal to a defined ID (the
/// references) is replaced.
pub(crate) fn renumber_ids(root: &mut Value) {
    let mut ids: HashMap<String, String> = HashMap::new();
    let mut stack = vec![&*root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    if let (true, Value::String(id)) = (is_id_member(k), v) {
                        let n = ids.len();
                        ids.entry(id.clone()).or_insert_with(|| format!("#id{n}"));
                    }
                }
                stack.extend(m.values().rev());
            }
            Value::Array(a) => stack.extend(a.iter().rev()),
            _ => {}
        }
    }
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Some(n) = ids.get(s.as_str()) {
                    *s = n.clone();
                }
            }
            Value::Object(m) => stack.extend(m.values_mut()),
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

pub(crate) fn run(ctx: &Context, a: &Path, b: &Path, ignore_ids: bool) -> u8 {
    let mut decoded = Vec::new();
    for path in [a, b] {
        let name = output::display(path);
        let bytes = match output::read(path) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("gamefmt: {name}: cannot read: {e}");
                return USAGE;
            }
        };
        match formats::to_json_value(ctx, path, &bytes) {
            Ok(v) => decoded.push(v),
            Err(f) => {
                eprintln!("{}", f.line(&name));
                return USAGE;
            }
        }
    }
    let (fb, mut vb) = decoded.pop().unwrap_or((crate::cli::Format::Brson, Value::Null));
    let (fa, mut va) = decoded.pop().unwrap_or((crate::cli::Format::Brson, Value::Null));
    if fa != fb {
        eprintln!(
            "gamefmt: {} is {} but {} is {}: diff compares files of one format",
            a.display(),
            fa.name(),
            b.display(),
            fb.name()
        );
        return USAGE;
    }
    if ignore_ids {
        renumber_ids(&mut va);
        renumber_ids(&mut vb);
    }
    let lines = differences(&va, &vb);
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    if let Err(e) = output::write_stdout(text.as_bytes()) {
        eprintln!("gamefmt: writing stdout: {e}");
        return USAGE;
    }
    if lines.is_empty() { 0 } else { FAILED }
}
