//! Comparing our schema-driven JSON with `flatc --json --strict-json --raw-binary`, and running flatc on
//! many buffers (or JSON files) per invocation.
//!
//! The comparison is of JSON values: same keys, same arrays, same strings, integers equal. Floats: flatc
//! prints a float field with 6 decimals and a double field with 12 (fixed notation, trailing zeros cut);
//! we print the shortest form that reads back exactly. A float of ours equals flatc's when rounding ours to
//! 12 decimals gives flatc's number, or — only if ours is exactly an `f32` — rounding it to 6 decimals
//! does. flatc's bare `nan`, `inf` and `-inf` (not JSON) are read as the strings we print for them.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// flatc's JSON with its bare `nan`/`inf`/`-inf` quoted, parsed.
pub fn parse_flatc_json(text: &str) -> Value {
    let mut out = String::with_capacity(text.len());
    let mut in_str = false;
    let mut escaped = false;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        let rest = &text[i..];
        let word = ["-inf", "+inf", "inf", "-nan", "nan"]
            .into_iter()
            .find(|w| rest.starts_with(w) && !rest[w.len()..].starts_with(|c: char| c.is_ascii_alphanumeric()));
        if let Some(w) = word {
            out.push('"');
            out.push_str(match w {
                "+inf" => "inf",
                "-nan" => "nan",
                w => w,
            });
            out.push('"');
            i += w.len();
            continue;
        }
        // Copy one UTF-8 character (outside strings flatc writes ASCII).
        out.push(c);
        i += 1;
    }
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("flatc printed what is not JSON ({e}):\n{text}"))
}

fn round(v: f64, decimals: usize) -> f64 {
    format!("{v:.decimals$}").parse().unwrap()
}

/// `Ok` when `ours` means what `theirs` (flatc's) means, else the JSON path of the first difference.
pub fn same(ours: &Value, theirs: &Value, path: &str) -> Result<(), String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys().chain(b.keys()) {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => same(x, y, &format!("{path}/{k}"))?,
                    (x, y) => return Err(format!("{path}/{k}: ours {x:?}, flatc {y:?}")),
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{path}: {} elements, flatc {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same(x, y, &format!("{path}/{i}"))?;
            }
            Ok(())
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (v, f) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            // Ours is a float field's value when its f32 prints as ours (the shortest f32 form).
            let single = format!("{:?}", v as f32).parse::<f64>().ok() == Some(v);
            if v == f || round(v, 12) == f || (single && round(f64::from(v as f32), 6) == f) {
                Ok(())
            } else {
                Err(format!("{path}: ours {v}, flatc {f}"))
            }
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: ours {a}, flatc {b}")),
    }
}

/// Runs flatc; on failure panics with its error output (not the long list of file arguments).
fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "flatc {} … failed:\n{}{}",
        cmd.get_args().take(8).map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `flatc --json --strict-json --raw-binary` over many buffers at once: one JSON value per buffer.
/// `includes` are `-I` directories; `root_type` is `--root-type`.
pub fn flatc_json(
    flatc: &Path,
    schema: &Path,
    includes: &[PathBuf],
    root_type: Option<&str>,
    buffers: &[Vec<u8>],
    work: &Path,
) -> Vec<Value> {
    let dir = work.join("bin");
    let out = work.join("json");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let mut files = Vec::new();
    for (i, b) in buffers.iter().enumerate() {
        let p = dir.join(format!("b{i}.bin"));
        std::fs::write(&p, b).unwrap();
        files.push(p);
    }
    let mut cmd = Command::new(flatc);
    cmd.args(["--json", "--strict-json", "--raw-binary", "-o"]).arg(&out);
    for inc in includes {
        cmd.arg("-I").arg(inc);
    }
    if let Some(r) = root_type {
        cmd.args(["--root-type", r]);
    }
    for chunk in files.chunks(500) {
        let mut c = Command::new(cmd.get_program());
        c.args(cmd.get_args()).arg(schema).arg("--").args(chunk);
        run(&mut c);
    }
    (0..buffers.len())
        .map(|i| parse_flatc_json(&std::fs::read_to_string(out.join(format!("b{i}.json"))).unwrap()))
        .collect()
}

/// `flatc -b` over many JSON documents at once: one buffer per document.
pub fn flatc_binary(
    flatc: &Path,
    schema: &Path,
    includes: &[PathBuf],
    root_type: Option<&str>,
    docs: &[String],
    work: &Path,
) -> Vec<Vec<u8>> {
    let dir = work.join("docs");
    let out = work.join("bufs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let mut files = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let p = dir.join(format!("d{i}.json"));
        std::fs::write(&p, d).unwrap();
        files.push(p);
    }
    for chunk in files.chunks(500) {
        let mut c = Command::new(flatc);
        c.arg("-b").arg("-o").arg(&out);
        for inc in includes {
            c.arg("-I").arg(inc);
        }
        if let Some(r) = root_type {
            c.args(["--root-type", r]);
        }
        c.arg(schema).args(chunk);
        run(&mut c);
    }
    // flatc names each output after the document, with the schema's file_extension (default `bin`).
    let mut by_stem = std::collections::HashMap::new();
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        by_stem.insert(p.file_stem().unwrap().to_string_lossy().into_owned(), p);
    }
    (0..docs.len()).map(|i| std::fs::read(&by_stem[&format!("d{i}")]).unwrap()).collect()
}
