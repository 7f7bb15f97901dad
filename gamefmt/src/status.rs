//! The exit statuses: 0 success, 1 a file failed (or, for `diff`, the files differ), 2 usage error.

/// A file failed to convert; `diff`: the files differ.
pub(crate) const FAILED: u8 = 1;
/// A usage error (clap's status too), including a missing `--types`/`--format` where one is required.
pub(crate) const USAGE: u8 = 2;
