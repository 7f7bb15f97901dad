//! What the command-line tests share: running `gamefmt` in tests/data and reading its results.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// `gamefmt` run in tests/data (so paths in messages are short and stable).
pub fn gamefmt() -> Command {
    let mut cmd = Command::cargo_bin("gamefmt").unwrap();
    cmd.current_dir(data());
    cmd
}

pub struct Run {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

pub fn run(args: &[&str]) -> Run {
    let out = gamefmt().args(args).output().unwrap();
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn ok(args: &[&str]) -> Vec<u8> {
    let r = run(args);
    assert_eq!(r.status, 0, "gamefmt {args:?}: {}", r.stderr);
    r.stdout
}

pub fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
