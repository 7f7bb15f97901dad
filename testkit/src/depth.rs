//! Depth bombs: inputs nested far deeper than any decoder should follow, and a runner that executes
//! a decode on a thread with an application-sized stack.
//!
//! A decoder without a depth limit overflows the stack on these inputs, which aborts the whole
//! process (it is not a panic). Run such checks through [`isolate`](crate::isolate) to turn an
//! abort into a readable test failure, or directly when the decoder is known to be limited.

/// The depth the workspace's depth tests use: one million nested containers.
pub const MILLION: usize = 1_000_000;

/// Stack size of a typical application main thread on Linux (8 MiB). Decoders must return a depth
/// error within this stack at their default limit, in debug builds too.
pub const APP_STACK: usize = 8 << 20;

/// `open` repeated `depth` times, then `leaf`, then `close` repeated `depth` times. For bracketed
/// formats: `nested(b"[", MILLION, b"", b"]")` is a JSON array bomb.
pub fn nested(open: &[u8], depth: usize, leaf: &[u8], close: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity((open.len() + close.len()) * depth + leaf.len());
    for _ in 0..depth {
        out.extend_from_slice(open);
    }
    out.extend_from_slice(leaf);
    for _ in 0..depth {
        out.extend_from_slice(close);
    }
    out
}

/// `header` repeated `depth` times, then `leaf`: for length- or count-prefixed binary formats
/// where a container header announcing one element is followed directly by that element
/// (e.g. a Godot Array of one Array of one Array …).
pub fn prefixed(header: &[u8], depth: usize, leaf: &[u8]) -> Vec<u8> {
    nested(header, depth, leaf, &[])
}

/// A JSON document of `depth` nested arrays: `[[[…]]]`.
pub fn json_arrays(depth: usize) -> Vec<u8> {
    nested(b"[", depth, b"", b"]")
}

/// A JSON document of `depth` nested objects: `{"a":{"a":…{}}}`.
pub fn json_objects(depth: usize) -> Vec<u8> {
    nested(b"{\"a\":", depth, b"{}", b"}")
}

/// Runs `f` on a new thread with a stack of `stack_bytes` and returns its result; a panic in `f`
/// is resumed on the caller's thread.
pub fn on_stack<R: Send>(stack_bytes: usize, f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("testkit-depth".into())
            .stack_size(stack_bytes)
            .spawn_scoped(scope, f)
            .expect("spawn a thread for the depth check");
        match handle.join() {
            Ok(value) => value,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}

/// Runs `decode` on a depth bomb on an [`APP_STACK`]-sized thread and asserts that it returns an
/// error. (If the decoder has no limit, the process aborts with a stack overflow.)
///
/// # Panics
/// If the decoder returns `Ok` or panics.
pub fn assert_rejects<T, E: std::fmt::Debug + Send>(
    bomb: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T, E> + Send,
) -> E {
    on_stack(APP_STACK, || match decode(bomb) {
        Ok(_) => panic!("a {}-byte depth bomb decoded successfully", bomb.len()),
        Err(e) => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(json_arrays(3), b"[[[]]]");
        assert_eq!(json_objects(2), b"{\"a\":{\"a\":{}}}");
        assert_eq!(prefixed(&[1, 2], 3, &[9]), [1, 2, 1, 2, 1, 2, 9]);
        assert_eq!(json_arrays(MILLION).len(), 2 * MILLION);
    }

    #[test]
    fn on_stack_returns_and_resumes_panics() {
        assert_eq!(on_stack(1 << 16, || 41 + 1), 42);
        let caught = std::panic::catch_unwind(|| on_stack(1 << 16, || panic!("inner")));
        assert!(caught.is_err());
    }
}
