//! Reading inputs and writing outputs safely: `-` is stdin/stdout, outputs go to a temporary
//! file in the target directory and are renamed into place, and an output never replaces an input.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The display name of an input.
pub(crate) fn display(path: &Path) -> String {
    if is_stdio(path) { "<stdin>".to_owned() } else { path.display().to_string() }
}

pub(crate) fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads a file, or stdin for `-`.
pub(crate) fn read(path: &Path) -> io::Result<Vec<u8>> {
    if is_stdio(path) {
        let mut buf = Vec::new();
        io::stdin().lock().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        fs::read(path)
    }
}

/// The canonical form of a path that may not exist yet (its parent canonicalized).
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(parent.canonicalize().ok()?.join(path.file_name()?))
}

/// Whether `out` is (or would replace) one of `inputs`.
pub(crate) fn is_an_input(out: &Path, inputs: &[PathBuf]) -> bool {
    let Some(out) = canonical(out) else { return false };
    inputs.iter().filter(|p| !is_stdio(p)).any(|p| p.canonicalize().is_ok_and(|p| p == out))
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` through a temporary file in the same directory, renamed into place:
/// readers see the old file or the whole new one, never part of it.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io::Error::other("the output path has no file name"))?;
    let tmp = dir.join(format!(
        ".{}.gamefmt-{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        // No fsync: the rename makes the file appear whole or not at all to every reader, which
        // is the guarantee here (fsyncing each output made many-file runs I/O-bound).
        file.write_all(bytes)?;
        drop(file);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Writes to stdout.
pub(crate) fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}
