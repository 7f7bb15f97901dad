//! Turns the criterion results of this run into one markdown table per dataset, every cell with its
//! ratio to postcard (the anchor the issues' targets are stated against).
//!
//! Criterion writes `<criterion dir>/<group>/<function>/new/{benchmark,estimates}.json`; the report
//! reads every result written since the run started, so filtered runs report only what they ran.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// Encoded sizes recorded by the benches: (dataset, format) → bytes.
static SIZES: Mutex<BTreeMap<(String, String), usize>> = Mutex::new(BTreeMap::new());

/// The baseline every ratio divides by.
pub const BASELINE: &str = "postcard";

/// Column order of the well-known operations; other operations follow in name order.
const OPS: [&str; 3] = ["serialize", "deserialize", "borrowed"];

/// Remembers the encoded size of a cell.
pub fn record_size(dataset: &str, format: &str, bytes: usize) {
    SIZES.lock().unwrap().insert((dataset.to_owned(), format.to_owned()), bytes);
}

/// Where criterion keeps its results: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else
/// `<workspace>/target/criterion`.
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// One timing: `dataset/op/format` → mean nanoseconds per iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Dataset name.
    pub dataset: String,
    /// Operation (`serialize`, `deserialize`, `borrowed`, …).
    pub op: String,
    /// Format row.
    pub format: String,
    /// Mean time per iteration in nanoseconds.
    pub mean_ns: f64,
}

/// Reads every criterion result under `dir` written at or after `since`.
pub fn collect(dir: &Path, since: SystemTime) -> Vec<Timing> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&path) else { continue };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "new") {
                    if let Some(t) = read_result(&p, since) {
                        out.push(t);
                    }
                } else if p.file_name().is_none_or(|n| n != "base" && n != "change" && n != "report") {
                    stack.push(p);
                }
            }
        }
    }
    out
}

fn read_result(new_dir: &Path, since: SystemTime) -> Option<Timing> {
    let estimates_path = new_dir.join("estimates.json");
    let modified = std::fs::metadata(&estimates_path).and_then(|m| m.modified()).ok()?;
    if modified < since {
        return None;
    }
    let bench: serde_json::Value = serde_json::from_slice(&std::fs::read(new_dir.join("benchmark.json")).ok()?).ok()?;
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(estimates_path).ok()?).ok()?;
    let full_id = bench.get("full_id")?.as_str()?;
    let mut parts = full_id.splitn(3, '/');
    let (dataset, op, format) = (parts.next()?, parts.next()?, parts.next()?);
    let mean_ns = estimates.get("mean")?.get("point_estimate")?.as_f64()?;
    Some(Timing { dataset: dataset.to_owned(), op: op.to_owned(), format: format.to_owned(), mean_ns })
}

/// Formats nanoseconds with three significant digits and a unit.
pub fn human_time(ns: f64) -> String {
    let (value, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {unit}")
}

/// Groups digits by thousands: `1234567` → `1,234,567`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn ratio(value: f64, base: Option<f64>) -> String {
    match base {
        Some(b) if b > 0.0 => format!(" ({:.2}×)", value / b),
        _ => String::new(),
    }
}

/// Renders the tables: one per dataset, rows in order of first appearance in `row_order` (then by
/// name), each time as `mean (ratio to postcard×)`, plus the encoded size and its ratio.
pub fn render(timings: &[Timing], sizes: &BTreeMap<(String, String), usize>, row_order: &[&str]) -> String {
    let mut datasets: Vec<&str> = timings.iter().map(|t| t.dataset.as_str()).collect();
    datasets.extend(sizes.keys().map(|(d, _)| d.as_str()));
    let order = |d: &str| testkit::datasets::NAMES.iter().position(|n| *n == d).unwrap_or(usize::MAX);
    datasets.sort_by(|a, b| order(a).cmp(&order(b)).then(a.cmp(b)));
    datasets.dedup();

    let mut out = String::new();
    for dataset in datasets {
        let cells: Vec<&Timing> = timings.iter().filter(|t| t.dataset == dataset).collect();
        let mut ops: Vec<&str> = cells.iter().map(|t| t.op.as_str()).collect();
        let op_order = |o: &str| OPS.iter().position(|k| *k == o).unwrap_or(OPS.len());
        ops.sort_by(|a, b| op_order(a).cmp(&op_order(b)).then(a.cmp(b)));
        ops.dedup();
        let mut formats: Vec<&str> = cells.iter().map(|t| t.format.as_str()).collect();
        formats.extend(sizes.keys().filter(|(d, _)| d == dataset).map(|(_, f)| f.as_str()));
        let row_rank = |f: &str| row_order.iter().position(|r| *r == f).unwrap_or(usize::MAX);
        formats.sort_by(|a, b| row_rank(a).cmp(&row_rank(b)).then(a.cmp(b)));
        formats.dedup();

        let time = |op: &str, format: &str| cells.iter().find(|t| t.op == op && t.format == format).map(|t| t.mean_ns);
        let size = |format: &str| sizes.get(&(dataset.to_owned(), format.to_owned())).copied();

        let _ = writeln!(out, "### {dataset}\n");
        let _ = write!(out, "| format |");
        for op in &ops {
            let _ = write!(out, " {op} |");
        }
        let _ = writeln!(out, " size (bytes) |");
        let _ = write!(out, "|---|");
        for _ in &ops {
            let _ = write!(out, "--:|");
        }
        let _ = writeln!(out, "--:|");
        for format in &formats {
            let _ = write!(out, "| {format} |");
            for op in &ops {
                match time(op, format) {
                    Some(ns) => {
                        let _ = write!(out, " {}{} |", human_time(ns), ratio(ns, time(op, BASELINE)));
                    }
                    None => out.push_str(" – |"),
                }
            }
            match size(format) {
                Some(bytes) => {
                    let base = size(BASELINE).map(|b| b as f64);
                    let _ = writeln!(out, " {}{} |", thousands(bytes), ratio(bytes as f64, base));
                }
                None => out.push_str(" – |\n"),
            }
        }
        out.push('\n');
    }
    out
}

/// A line describing this machine and toolchain for the report header.
pub fn machine_line() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let rustc = std::process::Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown rustc".to_owned());
    format!("{cpu}, {cores} cores available; {rustc}; bench profile (lto = true, codegen-units = 1)")
}

/// Prints the report for everything criterion measured since `since` and writes it to
/// `<criterion dir>/../gamefmt-bench.md`.
pub fn print(since: SystemTime, row_order: &[&str]) {
    let dir = criterion_dir();
    let timings = collect(&dir, since);
    let sizes = SIZES.lock().unwrap().clone();
    let mut text = String::new();
    let _ = writeln!(text, "## serde-gamefmt benchmark\n\nMachine: {}\n", machine_line());
    let _ = writeln!(
        text,
        "Mean time per whole dataset (criterion), ratio to {BASELINE} in parentheses (lower is better); \
         size = encoded bytes of the whole dataset.\n"
    );
    text.push_str(&render(&timings, &sizes, row_order));
    println!("\n{text}");
    let path = dir.with_file_name("gamefmt-bench.md");
    if std::fs::write(&path, &text).is_ok() {
        println!("(written to {})", path.display());
    }
}
