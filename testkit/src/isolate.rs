//! Runs one test in a child process.
//!
//! A stack overflow or an allocation failure aborts the process instead of panicking, which takes
//! the whole test binary down with an unhelpful signal. [`in_child`] re-runs the *current* test in
//! a child process (the same test binary, filtered to that one test), so the parent can report
//! what happened — or, in self-tests, assert that a broken decoder really does crash.
//!
//! ```ignore
//! #[test]
//! fn million_deep_array_is_an_error() {
//!     let child = testkit::isolate::in_child("million_deep_array_is_an_error", || {
//!         let bomb = testkit::depth::prefixed(&ARRAY_OF_ONE, testkit::depth::MILLION, &NIL);
//!         testkit::depth::assert_rejects(&bomb, |b| my_format::from_slice::<Value>(b));
//!     });
//!     child.assert_passed();
//! }
//! ```

use std::process::{Command, ExitStatus};

const ENV: &str = "TESTKIT_ISOLATED_TEST";

/// What happened to the child process.
#[derive(Debug)]
pub struct Child {
    /// The child's exit status.
    pub status: ExitStatus,
    /// Everything the child printed on stdout.
    pub stdout: String,
    /// Everything the child printed on stderr.
    pub stderr: String,
}

impl Child {
    /// The child ran the test and it passed.
    pub fn passed(&self) -> bool {
        self.status.success()
    }

    /// The child was killed by a signal (abort, segfault, stack overflow).
    pub fn crashed(&self) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt as _;
            self.status.signal().is_some()
        }
        #[cfg(not(unix))]
        {
            !self.status.success() && self.status.code() != Some(101)
        }
    }

    /// The child overflowed its stack (Rust's runtime says so on stderr before aborting).
    pub fn overflowed_stack(&self) -> bool {
        self.stderr.contains("has overflowed its stack")
    }

    /// Panics with the child's output unless it passed.
    pub fn assert_passed(&self) {
        assert!(
            self.passed(),
            "isolated test did not pass (status {:?}, crashed: {}, stack overflow: {})\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status,
            self.crashed(),
            self.overflowed_stack(),
            self.stdout,
            self.stderr
        );
    }
}

/// Whether this process is the child of an [`in_child`] call for `test_name`.
pub fn is_child(test_name: &str) -> bool {
    std::env::var(ENV).is_ok_and(|v| v == test_name)
}

/// In the parent: runs the test `test_name` (its full libtest path, e.g. `module::test` in unit
/// tests or `test` at the root of an integration test) in a child process and returns what
/// happened. In the child: runs `body`; the child passes if `body` returns.
///
/// Pass the name of the test that is calling `in_child` — the child re-runs it.
///
/// # Panics
/// In the parent, if the child could not be started or ran a number of tests other than one
/// (a wrong `test_name`).
pub fn in_child(test_name: &str, body: impl FnOnce()) -> Child {
    if is_child(test_name) {
        body();
        return Child { status: success_status(), stdout: String::new(), stderr: String::new() };
    }
    let exe = std::env::current_exe().expect("path of the running test binary");
    let output = Command::new(exe)
        .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ENV, test_name)
        .output()
        .expect("start the isolated child test");
    let child = Child {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(
        child.stdout.contains("running 1 test"),
        "isolate::in_child({test_name:?}) ran no test in the child: the name must be the test's full path\n{}",
        child.stdout
    );
    child
}

fn success_status() -> ExitStatus {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        ExitStatus::from_raw(0)
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::ExitStatusExt as _;
        ExitStatus::from_raw(0)
    }
}
