//! serde-o3de's lenient load with its report, on arbitrary bytes: into a dynamic value, a map of
//! lists (an issue per unloadable element) and a nested struct (unknown members, duplicates, `{}`),
//! with a small issue cap and with a callback. None may panic; the report must be consistent (at
//! most the cap of issues kept, the rest counted, a callback seeing every one of them) and within
//! the workspace's heap bound (`64 · n` + 4 MiB).
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde_json::Value;
use serde_o3de::{Options, Report};

testkit::install_counting_allocator!();

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[allow(dead_code)] // read only by the loader
struct Node {
    id: u32,
    name: String,
    weight: f32,
    tags: Vec<i16>,
    children: BTreeMap<String, Node>,
    next: Option<Box<Node>>,
}

fn check(report: &Report, cap: usize, total: Option<usize>) {
    assert!(report.issues.len() <= cap, "{} issues kept, cap {cap}", report.issues.len());
    if report.omitted > 0 {
        assert_eq!(report.issues.len(), cap, "issues were omitted before the report was full");
    }
    if let Some(total) = total {
        assert_eq!(report.total_issues(), total, "the callback saw every issue");
    }
    for issue in &report.issues {
        // Paths render as JSON Pointers.
        let path = issue.path.as_str();
        assert!(path.is_empty() || path.starts_with('/'), "{path:?}");
    }
    let _ = report.to_string();
}

fuzz_target!(|data: &[u8]| {
    // The workspace rule for a decoder: 64 bytes of heap per input byte and a few MiB.
    let bound = testkit::scaling::default_heap_bound(data.len());
    testkit::alloc::assert_bounded(bound, || {
        let cap = data.first().map_or(3, |b| usize::from(b % 8));
        let options = Options::new().max_issues(cap);
        if let Ok((_, report)) = options.clone().load_slice::<Value>(data) {
            check(&report, cap, None);
        }
        if let Ok((_, report)) = options.clone().load_slice::<BTreeMap<String, Vec<u8>>>(data) {
            check(&report, cap, None);
        }
        if let Ok((_, report)) = options.clone().settings_registry(true).load_slice::<Node>(data) {
            check(&report, cap, None);
        }
        if let Ok(text) = std::str::from_utf8(data) {
            let mut seen = 0usize;
            let r = options.load_str_with::<Node>(text, |issue| {
                seen += 1;
                issue.result
            });
            if let Ok((_, report)) = r {
                // A callback sees each issue once (across the loader's passes); the report holds the
                // issues of the final pass, which are never more.
                assert!(report.total_issues() <= seen, "{} issues, callback saw {seen}", report.total_issues());
                check(&report, cap, None);
            }
        }
    });
});
