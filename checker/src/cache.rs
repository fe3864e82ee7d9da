//! The warm-check cache: a re-check with nothing changed answers from disk without discovery,
//! parsing or analysis.
//!
//! The checked tree is untrusted (a pull request), so nothing of the cache lives in it:
//! - **Where**: `$CARGO_TARGET_DIR/reuse-check/` when that is an absolute path outside the checked
//!   tree, else `$XDG_CACHE_HOME/reuse-check/` or `~/.cache/reuse-check/`; never inside the tree
//!   (a committed `target/reuse-check/…` is not read). One file per canonical root and command
//!   target, so a copied workspace (`cp -a ws ws2`) has a cache of its own.
//! - **Stamps are content**: each input is hashed (XXH3-128, seeded with a per-user secret kept in
//!   the cache directory, so a tree cannot craft a file that hashes like another): every checked
//!   file, every contracts file, every manifest, every ignore file, and the listing of every
//!   directory the walk visited or that decides what is walked (so a new file, a new member under
//!   a `members` glob, or a new `.gitignore` is seen). Modification times are not trusted
//!   (`touch -r`, `cp -p` and pinned-mtime trees keep them). Plus the checker's own executable.
//! - **Validated when loaded**: the version, the root and the target must match, every stamp must
//!   lie inside the root, every finding must point into a stamped file at a range inside its text.
//!   Anything else and the whole check runs again.
//! - **Written without following links**: a new temporary file (`O_CREAT|O_EXCL`, which refuses an
//!   existing path or link), renamed over the cache file (a rename replaces a link, never its
//!   target).

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::{Report, Stats};
use crate::finding::{Finding, Fix, Label};
use crate::source::SourceFile;
use crate::workspace::{Target, Workspace};

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Serialize, Deserialize, PartialEq, Eq, Debug, Clone)]
struct Stamp {
    path: PathBuf,
    /// XXH3-128 of the content (a file) or of the sorted entry names and kinds (a directory);
    /// a fixed value for a path that is missing or unreadable.
    hash: u128,
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
    /// The checker's executable, stamped by its metadata (it is outside the tree).
    exe: Option<(PathBuf, u64, u128)>,
    stamps: Vec<Stamp>,
    files: usize,
    lines: usize,
    parsed: usize,
    contracts: usize,
    findings: Vec<CachedFinding>,
    packages: Vec<crate::workspace::PackageInfo>,
    warnings: Vec<String>,
    sources: Vec<String>,
    /// Path dependencies outside the root whose files are stamped too (registry and git sources
    /// are immutable: `Cargo.lock` stands for them).
    outside: Vec<PathBuf>,
}

/// Where a target's checks are cached, and the secret its stamps are keyed with.
pub struct CacheLocation {
    pub file: PathBuf,
    seed: u64,
}

/// The directory the target starts from, canonical: what the cache is keyed by.
fn start_dir(target: &Target) -> Option<PathBuf> {
    let start = match (&target.manifest_path, &target.path) {
        (Some(m), _) => m.parent().map(Path::to_path_buf).filter(|p| !p.as_os_str().is_empty()).unwrap_or_else(|| PathBuf::from(".")),
        (None, Some(p)) if p.is_file() => p.parent().map(Path::to_path_buf).filter(|p| !p.as_os_str().is_empty()).unwrap_or_else(|| PathBuf::from(".")),
        (None, Some(p)) => p.clone(),
        (None, None) => PathBuf::from("."),
    };
    std::fs::canonicalize(start).ok()
}

/// The cache directory for a tree starting at `start`: from the environment (the user's), never
/// inside the tree.
fn cache_dir(start: &Path) -> Option<PathBuf> {
    let env_dir = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_absolute());
    let candidates = [
        env_dir("CARGO_TARGET_DIR").map(|d| d.join("reuse-check")),
        env_dir("XDG_CACHE_HOME").map(|d| d.join("reuse-check")),
        env_dir("HOME").map(|d| d.join(".cache").join("reuse-check")),
    ];
    candidates.into_iter().flatten().find(|d| !d.starts_with(start) && !resolved(d).starts_with(start))
}

/// `path` with its longest existing prefix canonicalized (links resolved).
fn resolved(path: &Path) -> PathBuf {
    for a in path.ancestors() {
        if let Ok(c) = std::fs::canonicalize(a) {
            return c.join(path.strip_prefix(a).unwrap_or(Path::new("")));
        }
    }
    path.to_path_buf()
}

/// Where the cache of a target lives; `None`: no usable cache directory (no warm checks).
pub fn location(target: &Target) -> Option<CacheLocation> {
    let start = start_dir(target)?;
    let dir = cache_dir(&start)?;
    std::fs::create_dir_all(&dir).ok()?;
    let seed = secret(&dir)?;
    let key = xxhash_rust::xxh3::xxh3_128_with_seed(format!("{VERSION}\0{}\0{}", start.display(), target_key(target)).as_bytes(), seed);
    Some(CacheLocation { file: dir.join(format!("check-{key:032x}.json")), seed })
}

/// The per-user secret that seeds the stamp hashes, created on first use (readable by the owner only).
fn secret(dir: &Path) -> Option<u64> {
    use std::hash::{BuildHasher, Hasher};
    let path = dir.join("secret");
    let stored = || std::fs::read(&path).ok()?.get(..8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    if path.exists() {
        return stored();
    }
    // `RandomState` is keyed from the operating system's random source.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    let seed = h.finish();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(&path) {
        Ok(mut f) => {
            f.write_all(&seed.to_le_bytes()).ok()?;
            Some(seed)
        }
        // Another checker created it meanwhile.
        Err(_) => stored(),
    }
}

fn target_key(target: &Target) -> String {
    format!("{:?}|{:?}|{:?}|{}", target.path, target.manifest_path, target.packages, target.workspace)
}

const MISSING: u128 = 0;

/// The content hash of a path: a regular file's bytes, a directory's sorted listing.
fn hash_of(path: &Path, seed: u64) -> u128 {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return MISSING };
    if meta.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return MISSING };
        let mut names: Vec<(std::ffi::OsString, bool)> =
            entries.flatten().map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_dir()))).collect();
        names.sort();
        let mut listing = Vec::new();
        for (name, is_dir) in names {
            listing.extend_from_slice(name.as_encoded_bytes());
            listing.push(if is_dir { b'/' } else { 0 });
        }
        return xxhash_rust::xxh3::xxh3_128_with_seed(&listing, seed) | 1;
    }
    if !meta.is_file() {
        // A link or a special file is stamped by what it is, never read.
        return xxhash_rust::xxh3::xxh3_128_with_seed(format!("{:?}", meta.file_type()).as_bytes(), seed) | 1;
    }
    match std::fs::read(path) {
        Ok(bytes) => xxhash_rust::xxh3::xxh3_128_with_seed(&bytes, seed) | 1,
        Err(_) => MISSING,
    }
}

/// The directories of path dependencies outside the root (their sources can change).
fn outside_path_deps(ws: &Workspace) -> Vec<PathBuf> {
    ws.packages.iter().filter(|p| !p.dir.starts_with(&ws.root) && p.info.id.starts_with("path+")).map(|p| p.dir.clone()).collect()
}

/// Every input of a check, by path (hashed by [`hash_of`]).
fn inputs(ws: &Workspace) -> BTreeSet<PathBuf> {
    let mut paths: BTreeSet<PathBuf> = ws.manifests.iter().cloned().collect();
    paths.extend(ws.dirs.iter().cloned());
    let outside = outside_path_deps(ws);
    // Registry and git sources are immutable (`Cargo.lock` is stamped): not hashed on every run.
    for p in ws.packages.iter().filter(|p| p.dir.starts_with(&ws.root) || outside.contains(&p.dir)) {
        paths.insert(p.dir.clone());
        paths.extend(p.files.iter().cloned());
    }
    paths.extend(ws.contracts_files.iter().cloned());
    paths.extend(ws.unreadable.iter().map(|(p, _)| p.clone()));
    // The ignore files that decide what the walk saw, in the walked directories and above them
    // (a new one shows in its directory's listing).
    let mut dirs: Vec<PathBuf> = paths.iter().filter(|p| p.is_dir()).cloned().collect();
    let root = std::fs::canonicalize(&ws.root).unwrap_or_else(|_| ws.root.clone());
    dirs.extend(root.ancestors().skip(1).map(Path::to_path_buf));
    for d in &dirs {
        for name in [".gitignore", ".ignore"] {
            let f = d.join(name);
            if f.is_file() {
                paths.insert(f);
            }
        }
    }
    paths
}

fn exe_stamp() -> Option<(PathBuf, u64, u128)> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let mtime = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    Some((exe, meta.len(), mtime))
}

/// The cached report, if it is valid and every stamp still holds.
pub fn load(target: &Target) -> Option<Report> {
    let loc = location(target)?;
    let text = crate::source::read_regular_file(&loc.file, 256 << 20).ok()?;
    let cache: CacheFile = serde_json::from_slice(&text).ok()?;
    if cache.version != VERSION || cache.target != target_key(target) || cache.exe != exe_stamp() {
        return None;
    }
    // The root is the tree this target starts in (or the workspace above it), and every stamp
    // lies inside it, by a path without `..`.
    let root = std::fs::canonicalize(&cache.root).ok()?;
    if !start_dir(target)?.starts_with(&root) {
        return None;
    }
    // (The ignore files above the root decide what the walk saw: they are stamped too.)
    let ignore_file_above = |p: &Path| {
        p.file_name().is_some_and(|n| n == ".gitignore" || n == ".ignore") && p.parent().is_some_and(|d| root.starts_with(d))
    };
    let inside = |p: &Path| {
        let under = p.starts_with(&cache.root) || p.starts_with(&root) || cache.outside.iter().any(|d| p.starts_with(d)) || ignore_file_above(p);
        under && !p.components().any(|c| c == Component::ParentDir)
    };
    if cache.stamps.is_empty() || !cache.stamps.iter().all(|s| inside(&s.path)) {
        return None;
    }
    let stale = cache.stamps.par_iter().any(|s| hash_of(&s.path, loc.seed) != s.hash);
    if stale {
        return None;
    }
    let stamped: BTreeSet<&Path> = cache.stamps.iter().map(|s| s.path.as_path()).collect();
    let mut files: HashMap<String, Arc<SourceFile>> = HashMap::new();
    let mut file = |rel: &str| -> Option<Arc<SourceFile>> {
        if let Some(f) = files.get(rel) {
            return Some(f.clone());
        }
        // A finding points into a stamped file of the tree, by a plain relative path.
        let rel_path = Path::new(rel);
        if rel.is_empty() || !rel_path.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        let path = cache.root.join(rel_path);
        if !stamped.contains(path.as_path()) {
            return None;
        }
        let text = crate::engine::read_source(&path).unwrap_or_default();
        let f = Arc::new(SourceFile::new(path, rel.to_string(), text));
        files.insert(rel.to_string(), f.clone());
        Some(f)
    };
    let mut findings = Vec::new();
    for c in &cache.findings {
        let rule = reuse_rules::catalogue::find(&c.rule)?;
        let label = |l: &CachedLabel, file: &mut dyn FnMut(&str) -> Option<Arc<SourceFile>>| -> Option<Label> {
            let f = file(&l.file)?;
            let valid = l.start <= l.end && l.end <= f.text.len() && f.text.is_char_boundary(l.start) && f.text.is_char_boundary(l.end);
            valid.then(|| Label { file: f, range: l.start..l.end, message: l.message.clone() })
        };
        let mut f = Finding::new(rule, c.message.clone(), label(&c.primary, &mut file)?);
        f.level = reuse_rules::Level::from_config(&c.level)?;
        for s in &c.secondary {
            f.secondary.push(label(s, &mut file)?);
        }
        f.help = c.help.clone();
        f.notes = c.notes.clone();
        if let Some((m, s, e, r)) = &c.fix {
            let text = &f.primary.file.text;
            if !(s <= e && *e <= text.len() && text.is_char_boundary(*s) && text.is_char_boundary(*e)) {
                return None;
            }
            f.fix = Some(Fix { message: m.clone(), range: *s..*e, replacement: r.clone() });
        }
        findings.push(f);
    }
    Some(Report {
        findings,
        stats: Stats { files: cache.files, lines: cache.lines, parsed: cache.parsed, contracts: cache.contracts },
        root: cache.root.clone(),
        packages: cache.packages.clone(),
        warnings: cache.warnings.clone(),
        sources: cache.sources.clone(),
    })
}

/// Writes the cache; failures are ignored (no cache directory just means no warm checks).
pub fn store(target: &Target, ws: &Workspace, report: &Report) {
    let Some(loc) = location(target) else { return };
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
    let paths: Vec<PathBuf> = inputs(ws).into_iter().collect();
    let stamps = paths.into_par_iter().map(|path| Stamp { hash: hash_of(&path, loc.seed), path }).collect();
    let cache = CacheFile {
        version: VERSION.to_string(),
        target: target_key(target),
        root: report.root.clone(),
        exe: exe_stamp(),
        stamps,
        files: report.stats.files,
        lines: report.stats.lines,
        parsed: report.stats.parsed,
        contracts: report.stats.contracts,
        findings,
        packages: report.packages.clone(),
        warnings: report.warnings.clone(),
        sources: report.sources.clone(),
        outside: outside_path_deps(ws),
    };
    let Ok(text) = serde_json::to_vec(&cache) else { return };
    let Some(dir) = loc.file.parent() else { return };
    // A fresh name, created exclusively: an existing file or link of that name is an error, not a target.
    let Ok(mut tmp) = tempfile::Builder::new().prefix(".check-").suffix(".tmp").tempfile_in(dir) else { return };
    if tmp.write_all(&text).is_ok() {
        let _ = tmp.persist(&loc.file);
    }
}
