//! The annotated hex dump of `inspect --hex`: each annotated span on its own, short spans on one
//! line with their meaning, long ones as `xxd`-style rows under a heading.

use std::fmt::Write as _;

/// A span of the input and what it means, for the annotated hex dump.
#[derive(Debug, Clone)]
pub(crate) struct Note {
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) meaning: String,
}

impl Note {
    pub(crate) fn new(start: usize, len: usize, meaning: impl Into<String>) -> Self {
        Note { start, len, meaning: meaning.into() }
    }
}

/// Rows shown of one long span (16 bytes each); the rest is summarised.
const MAX_ROWS: usize = 256;

fn row(out: &mut String, offset: usize, chunk: &[u8]) {
    let _ = write!(out, "{offset:08x}  ");
    for i in 0..16 {
        match chunk.get(i) {
            Some(b) => {
                let _ = write!(out, "{b:02x} ");
            }
            None => out.push_str("   "),
        }
        if i == 7 {
            out.push(' ');
        }
    }
    out.push_str(" |");
    out.extend(chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { char::from(b) } else { '.' }));
    out.push_str("|\n");
}

fn span(out: &mut String, bytes: &[u8], start: usize, len: usize, meaning: &str) {
    let end = (start + len).min(bytes.len());
    let data = &bytes[start.min(end)..end];
    if data.len() <= 8 {
        let _ = write!(out, "{start:08x}  ");
        let hex: Vec<String> = data.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(out, "{:<24}  {meaning}", hex.join(" "));
        return;
    }
    let _ = writeln!(out, "{start:08x}  {meaning} ({} bytes)", data.len());
    for (i, chunk) in data.chunks(16).take(MAX_ROWS).enumerate() {
        row(out, start + i * 16, chunk);
    }
    let shown = (MAX_ROWS * 16).min(data.len());
    if shown < data.len() {
        let _ = writeln!(out, "          … {} more bytes not shown", data.len() - shown);
    }
}

/// The dump of `bytes` with `notes` (sorted by start; gaps are shown as unannotated).
pub(crate) fn annotated(bytes: &[u8], notes: &[Note]) -> String {
    let mut out = String::from("annotated hex dump (offset, bytes, meaning):\n");
    let mut at = 0;
    for note in notes {
        if note.start > at {
            span(&mut out, bytes, at, note.start - at, "(not annotated)");
        }
        span(&mut out, bytes, note.start, note.len, &note.meaning);
        at = at.max(note.start + note.len);
    }
    if at < bytes.len() {
        span(&mut out, bytes, at, bytes.len() - at, "(not annotated)");
    }
    let _ = writeln!(out, "{:08x}  end", bytes.len());
    out
}
