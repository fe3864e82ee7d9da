//! The warm-check cache: a re-check with nothing changed answers from disk without discovery,
//! reading or parsing.
//!
//! The cache is keyed on the tool version (and its executable), the command's target, and a stamp (modification time
//! with nanoseconds, and size) of every input: each checked file, each directory on the way to them
//! (so that an added file is seen), each manifest (so that configuration changes are seen) and each
//! contracts file. If any stamp differs, the whole check runs again: a changed contract therefore
//! re-checks all of its callers, and a changed config all of its files. It lives in
//! `target/reuse-check/` under the directory the check started from.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{Report, Stats};
use crate::finding::{Finding, Fix, Label};
use crate::source::SourceFile;
use crate::workspace::{Target, Workspace};

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Serialize, Deserialize, PartialEq, Eq, Debug)]
struct Stamp {
    path: PathBuf,
    mtime_ns: u128,
    size: u64,
}

impl Stamp {
    fn of(path: &Path) -> Stamp {
        let meta = std::fs::metadata(path).ok();
        let mtime_ns = meta.as_ref().and_then(|m| m.modified().ok()).and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
        Stamp { path: path.to_path_buf(), mtime_ns, size: meta.map_or(u64::MAX, |m| m.len()) }
    }
}

#[derive(Serialize, Deserialize)]
struct CachedLabel {
    file: String,
    start: usize,
    end: usize,
    message: String,
}

#[derive(Serialize, Deserialize)]
struct CachedFinding {
    rule: String,
    level: String,
    message: String,
    primary: CachedLabel,
    secondary: Vec<CachedLabel>,
    help: Option<String>,
    notes: Vec<String>,
    fix: Option<(String, usize, usize, String)>,
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    version: String,
    target: String,
    root: PathBuf,
    stamps: Vec<Stamp>,
    files: usize,
    lines: usize,
    parsed: usize,
    findings: Vec<CachedFinding>,
    packages: Vec<crate::workspace::PackageInfo>,
}

/// Where the cache of a target lives.
pub fn cache_path(target: &Target) -> PathBuf {
    let start = match (&target.manifest_path, &target.path) {
        (Some(m), _) => m.parent().map(Path::to_path_buf).unwrap_or_default(),
        (None, Some(p)) if p.is_file() => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        (None, Some(p)) => p.clone(),
        (None, None) => PathBuf::from("."),
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    target_key(target).hash(&mut h);
    start.join("target").join("reuse-check").join(format!("check-{:016x}.json", h.finish()))
}

fn target_key(target: &Target) -> String {
    format!("{:?}|{:?}|{:?}|{}", target.path, target.manifest_path, target.packages, target.workspace)
}

/// Every input of a check, stamped.
fn stamps(ws: &Workspace) -> Vec<Stamp> {
    let mut paths: BTreeSet<PathBuf> = ws.manifests.iter().cloned().collect();
    for p in &ws.packages {
        paths.insert(p.dir.clone());
        for f in &p.files {
            paths.insert(f.clone());
            let mut dir = f.parent();
            while let Some(d) = dir {
                if !d.starts_with(&p.dir) || !paths.insert(d.to_path_buf()) {
                    break;
                }
                dir = d.parent();
            }
        }
    }
    paths.extend(ws.contracts_files.iter().cloned());
    // A rebuilt checker may judge differently: its own executable is an input too.
    paths.extend(std::env::current_exe().ok());
    paths.iter().map(|p| Stamp::of(p)).collect()
}

/// The cached report, if every stamp still holds.
pub fn load(target: &Target) -> Option<Report> {
    let text = std::fs::read(cache_path(target)).ok()?;
    let cache: CacheFile = serde_json::from_slice(&text).ok()?;
    if cache.version != VERSION || cache.target != target_key(target) {
        return None;
    }
    if cache.stamps.iter().any(|s| Stamp::of(&s.path) != *s) {
        return None;
    }
    let mut files: std::collections::HashMap<String, Arc<SourceFile>> = std::collections::HashMap::new();
    let mut file = |rel: &str| -> Option<Arc<SourceFile>> {
        if let Some(f) = files.get(rel) {
            return Some(f.clone());
        }
        let path = cache.root.join(rel);
        let text = std::fs::read_to_string(&path).ok()?;
        let f = Arc::new(SourceFile::new(path, rel.to_string(), text));
        files.insert(rel.to_string(), f.clone());
        Some(f)
    };
    let mut findings = Vec::new();
    for c in &cache.findings {
        let rule = reuse_rules::catalogue::find(&c.rule)?;
        let label = |l: &CachedLabel, file: &mut dyn FnMut(&str) -> Option<Arc<SourceFile>>| -> Option<Label> {
            Some(Label { file: file(&l.file)?, range: l.start..l.end, message: l.message.clone() })
        };
        let mut f = Finding::new(rule, c.message.clone(), label(&c.primary, &mut file)?);
        f.level = reuse_rules::Level::from_config(&c.level)?;
        for s in &c.secondary {
            f.secondary.push(label(s, &mut file)?);
        }
        f.help = c.help.clone();
        f.notes = c.notes.clone();
        f.fix = c.fix.as_ref().map(|(m, s, e, r)| Fix { message: m.clone(), range: *s..*e, replacement: r.clone() });
        findings.push(f);
    }
    Some(Report {
        findings,
        stats: Stats { files: cache.files, lines: cache.lines, parsed: cache.parsed },
        root: cache.root.clone(),
        packages: cache.packages.clone(),
    })
}

/// Writes the cache; failures are ignored (a read-only tree just has no warm checks).
pub fn store(target: &Target, ws: &Workspace, report: &Report) {
    let cached = |l: &Label| CachedLabel { file: l.file.rel_path.clone(), start: l.range.start, end: l.range.end, message: l.message.clone() };
    let findings = report
        .findings
        .iter()
        .map(|f| CachedFinding {
            rule: f.rule.name.to_string(),
            level: match f.level {
                reuse_rules::Level::Error => "deny",
                reuse_rules::Level::Warn => "warn",
                reuse_rules::Level::Allow => "allow",
            }
            .to_string(),
            message: f.message.clone(),
            primary: cached(&f.primary),
            secondary: f.secondary.iter().map(cached).collect(),
            help: f.help.clone(),
            notes: f.notes.clone(),
            fix: f.fix.as_ref().map(|x| (x.message.clone(), x.range.start, x.range.end, x.replacement.clone())),
        })
        .collect();
    let cache = CacheFile {
        version: VERSION.to_string(),
        target: target_key(target),
        root: report.root.clone(),
        stamps: stamps(ws),
        files: report.stats.files,
        lines: report.stats.lines,
        parsed: report.stats.parsed,
        findings,
        packages: report.packages.clone(),
    };
    let path = cache_path(target);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(text) = serde_json::to_vec(&cache) {
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(tmp, path);
        }
    }
}
