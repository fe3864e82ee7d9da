//! The whole checker on arbitrary source text (deep nesting and long chains included), next to a
//! file that declares contracts so that every rule has something to check: it returns findings and
//! never panics, whatever the text. An internal error (a rule that panicked and was caught) is a
//! crash too.
#![no_main]

use std::path::Path;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use reuse_check::config::Config;
use reuse_check::engine::{check_jobs, CheckOptions, FileJob};
use reuse_check::source::SourceFile;

const KERNEL: &str = include_str!("../../fixtures/paged-kv/src/lib.rs");

fn job(rel: &str, text: String, module: &[&str]) -> FileJob {
    FileJob {
        file: Arc::new(SourceFile::new(Path::new("/fuzz").join(rel), rel.to_string(), text)),
        crate_name: "fixture_paged_kv".into(),
        module: module.iter().map(|s| s.to_string()).collect(),
        config: Arc::new(Config::default()),
        external: false,
        unreadable: None,
        report: true,
        reach: None,
        renames: Default::default(),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let jobs = vec![
        job("src/lib.rs", KERNEL.to_string(), &["fixture_paged_kv"]),
        job("src/fuzzed.rs", text.to_string(), &["fixture_paged_kv", "fuzzed"]),
    ];
    let report = check_jobs(&jobs, Path::new("/fuzz"), &CheckOptions { all_files: true, use_cache: false });
    for f in &report.findings {
        assert_ne!(f.rule.name, "internal_error", "{}", f.message);
        assert!(f.primary.range.start <= f.primary.range.end && f.primary.range.end <= f.primary.file.text.len());
    }
});
