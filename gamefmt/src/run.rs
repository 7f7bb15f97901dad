//! Running a command: inputs, parallel conversion, progress, error lines, summary, exit status.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::cli::{BrsonCommand, Cli, Command, Format, OutputArgs};
use crate::formats::{self, Context, Failure};
use crate::output;
use crate::status::{FAILED, USAGE};

/// Prints a usage error and returns status 2.
pub(crate) fn usage(message: impl std::fmt::Display) -> u8 {
    eprintln!("gamefmt: {message}");
    USAGE
}

pub(crate) fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Decode { format, compact, text, output, files } => {
            let mut ctx = Context::new(format);
            ctx.compact = compact;
            ctx.text = text;
            if text && ctx.args.format != Some(Format::Godot) {
                return usage("--text is Godot's text form: it needs --format godot");
            }
            convert(Mode::Decode, &ctx, &output, &files)
        }
        Command::Encode { format, compression, output, files } => {
            let mut ctx = Context::new(format);
            ctx.compression = compression;
            convert(Mode::Encode, &ctx, &output, &files)
        }
        Command::Inspect { format, hex, file } => inspect(&Context::new(format), &file, hex),
        Command::Diff { format, ignore_ids, a, b } => crate::diff::run(&Context::new(format), &a, &b, ignore_ids),
        Command::Brson(BrsonCommand::Urls { file, rewrite, output }) => urls(&file, &rewrite, output.as_deref()),
        Command::Completions { .. } => 0,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Decode,
    Encode,
}

/// The inputs: files as given, directories as the regular files in them (sorted, not recursive;
/// encode takes only `*.json`).
fn expand(mode: Mode, files: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in files {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| mode == Mode::Decode || p.extension().is_some_and(|e| e == "json"))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// The output name of an input in a directory: `NAME.json` when decoding, `NAME` without `.json`
/// when encoding.
fn output_name(mode: Mode, input: &Path) -> PathBuf {
    let name = if output::is_stdio(input) {
        "stdin".into()
    } else {
        input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into())
    };
    match mode {
        Mode::Decode => PathBuf::from(format!("{name}.json")),
        Mode::Encode => PathBuf::from(name.strip_suffix(".json").unwrap_or(&name)),
    }
}

/// Where each input goes: `None` is stdout.
fn plan(mode: Mode, out: Option<&Path>, inputs: &[PathBuf]) -> Result<Vec<Option<PathBuf>>, String> {
    let several = inputs.len() > 1;
    let Some(out) = out else {
        if several {
            return Err("several inputs need -o DIR (one output file each)".into());
        }
        if mode == Mode::Encode && std::io::stdout().is_terminal() {
            return Err("not writing binary output to a terminal: give -o FILE (or redirect stdout)".into());
        }
        return Ok(vec![None]);
    };
    if several || out.is_dir() {
        if several {
            std::fs::create_dir_all(out)
                .map_err(|e| format!("cannot create the output directory {}: {e}", out.display()))?;
        }
        let targets: Vec<PathBuf> = inputs.iter().map(|i| out.join(output_name(mode, i))).collect();
        let mut seen = std::collections::HashSet::new();
        for t in &targets {
            if !seen.insert(t) {
                return Err(format!("two inputs would both be written to {}; convert them separately", t.display()));
            }
        }
        return Ok(targets.into_iter().map(Some).collect());
    }
    Ok(vec![Some(out.to_path_buf())])
}

struct Totals {
    ok: usize,
    failed: usize,
    usage: bool,
    bytes_in: usize,
    bytes_out: usize,
}

/// Prints error and warning lines above the progress bar (if any).
fn report(bar: Option<&ProgressBar>, lines: &[String]) {
    let print = || {
        for line in lines {
            eprintln!("{line}");
        }
    };
    match bar {
        Some(bar) => bar.suspend(print),
        None => print(),
    }
}

fn convert_one(
    mode: Mode,
    ctx: &Context,
    input: &Path,
    target: Option<&Path>,
    inputs: &[PathBuf],
) -> Result<(usize, usize, Vec<String>), Failure> {
    let bytes = output::read(input).map_err(|e| Failure::usage(None, format_args!("cannot read: {e}")))?;
    let converted = match mode {
        Mode::Decode => formats::decode(ctx, input, &bytes)?,
        Mode::Encode => formats::encode(ctx, &bytes)?,
    };
    let format = converted.format;
    match target {
        None => output::write_stdout(&converted.bytes)
            .map_err(|e| Failure::input(format, format_args!("writing stdout: {e}")))?,
        Some(t) => {
            let mut t = t.to_path_buf();
            if mode == Mode::Encode && t.extension().is_none() {
                t.set_extension(formats::default_extension(&converted));
            }
            if output::is_an_input(&t, inputs) {
                return Err(Failure::usage(
                    Some(format),
                    format_args!("refusing to overwrite the input {}", t.display()),
                ));
            }
            output::write_atomic(&t, &converted.bytes)
                .map_err(|e| Failure::input(format, format_args!("writing {}: {e}", t.display())))?;
        }
    }
    let name = output::display(input);
    let warnings = converted.warnings.iter().map(|w| format!("gamefmt: {name}: {}: {w}", format.name())).collect();
    Ok((bytes.len(), converted.bytes.len(), warnings))
}

fn convert(mode: Mode, ctx: &Context, out: &OutputArgs, files: &[PathBuf]) -> u8 {
    let inputs = match expand(mode, files) {
        Ok(i) if i.is_empty() => return usage("no input files (the directories given are empty)"),
        Ok(i) => i,
        Err(e) => return usage(e),
    };
    let targets = match plan(mode, out.output.as_deref(), &inputs) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let start = Instant::now();
    let total_size: u64 = inputs.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    let long = inputs.len() >= 8 || total_size >= 8 << 20;
    let bar = (inputs.len() > 1 && long && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(inputs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} files, eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let totals = Mutex::new(Totals { ok: 0, failed: 0, usage: false, bytes_in: 0, bytes_out: 0 });
    let work = |(input, target): (&PathBuf, &Option<PathBuf>)| {
        let result = convert_one(mode, ctx, input, target.as_deref(), &inputs);
        let mut t = totals.lock().unwrap_or_else(|e| e.into_inner());
        match result {
            Ok((bytes_in, bytes_out, warnings)) => {
                t.ok += 1;
                t.bytes_in += bytes_in;
                t.bytes_out += bytes_out;
                drop(t);
                report(bar.as_ref(), &warnings);
            }
            Err(f) => {
                t.failed += 1;
                t.usage |= f.usage;
                drop(t);
                report(bar.as_ref(), &[f.line(&output::display(input))]);
            }
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    };
    let pairs: Vec<_> = inputs.iter().zip(&targets).collect();
    if pairs.len() == 1 {
        pairs.into_iter().for_each(work);
    } else {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(out.jobs.unwrap_or(0)).build();
        match pool {
            Ok(pool) => pool.install(|| pairs.into_par_iter().for_each(work)),
            Err(e) => return usage(format_args!("cannot start worker threads: {e}")),
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let t = totals.into_inner().unwrap_or_else(|e| e.into_inner());
    if inputs.len() > 1 {
        let verb = if mode == Mode::Decode { "decoded" } else { "encoded" };
        let failed = if t.failed > 0 { format!(", {} failed", t.failed) } else { String::new() };
        eprintln!(
            "gamefmt: {verb} {} of {} files{failed} ({} → {} bytes in {:.2} s)",
            t.ok,
            inputs.len(),
            t.bytes_in,
            t.bytes_out,
            start.elapsed().as_secs_f64()
        );
    }
    if t.usage {
        USAGE
    } else if t.failed > 0 {
        FAILED
    } else {
        0
    }
}

fn inspect(ctx: &Context, file: &Path, hex: bool) -> u8 {
    let name = output::display(file);
    let bytes = match output::read(file) {
        Ok(b) => b,
        Err(e) => return usage(format_args!("{name}: cannot read: {e}")),
    };
    match formats::inspect(ctx, file, &bytes, hex) {
        Ok(text) => match output::write_stdout(text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("gamefmt: writing stdout: {e}");
                FAILED
            }
        },
        Err(f) => {
            eprintln!("{}", f.line(&name));
            if f.usage { USAGE } else { FAILED }
        }
    }
}

fn urls(file: &Path, rewrite: &[(String, String)], out: Option<&Path>) -> u8 {
    let name = output::display(file);
    if !rewrite.is_empty() && out.is_none() {
        return usage("--rewrite writes a new tree: give -o OUT");
    }
    if rewrite.is_empty() && out.is_some() {
        return usage("-o is for --rewrite (the URL list goes to stdout)");
    }
    if let Some(out) = out {
        if output::is_an_input(out, &[file.to_path_buf()]) {
            return usage(format_args!("refusing to overwrite the input {}", out.display()));
        }
    }
    let bytes = match output::read(file) {
        Ok(b) => b,
        Err(e) => return usage(format_args!("{name}: cannot read: {e}")),
    };
    match formats::urls(file, &bytes, rewrite) {
        Ok((lines, None)) => {
            let mut text = lines.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            if let Err(e) = output::write_stdout(text.as_bytes()) {
                eprintln!("gamefmt: writing stdout: {e}");
                return FAILED;
            }
            0
        }
        Ok((changed, Some(file_bytes))) => {
            let out = out.unwrap_or(Path::new("-"));
            if let Err(e) = output::write_atomic(out, &file_bytes) {
                eprintln!("gamefmt: {name}: brson: writing {}: {e}", out.display());
                return FAILED;
            }
            for line in &changed {
                eprintln!("{line}");
            }
            eprintln!("gamefmt: rewrote {} URLs into {}", changed.len(), out.display());
            0
        }
        Err(f) => {
            eprintln!("{}", f.line(&name));
            if f.usage { USAGE } else { FAILED }
        }
    }
}
