//! Finding what to check: a Cargo workspace through `cargo metadata --no-deps` (which reads
//! manifests and builds nothing), or a plain directory. Files are walked gitignore-aware.
//!
//! The checked tree is untrusted: `cargo metadata` runs from an empty temporary directory with
//! `--manifest-path`, with the cargo the checker was started with (see [`metadata_command`]), so a
//! `rust-toolchain.toml` or `.cargo/config.toml` in the tree chooses no binary and installs nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Config, ConfigError, ConfigLayer};

/// What the user asked to check.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// A directory or a manifest; `None`: the current directory.
    pub path: Option<PathBuf>,
    pub manifest_path: Option<PathBuf>,
    /// `-p` specs; empty: the whole workspace (or the package whose manifest was named).
    pub packages: Vec<String>,
    pub workspace: bool,
}

/// A crate (package target tree) to check.
#[derive(Clone, Debug)]
pub struct Package {
    /// The crate name as code refers to it (`fixture_paged_kv`).
    pub crate_name: String,
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    pub config: Arc<Config>,
    /// What cargo calls this package (machine-readable outputs name it).
    pub info: PackageInfo,
}

/// A package as cargo names it: the `package_id` and `target` of cargo's JSON messages.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PackageInfo {
    /// Cargo's package ID (`path+file:///ws/kv#kv-cache@0.1.0`).
    pub id: String,
    pub name: String,
    pub version: String,
    pub manifest_path: PathBuf,
    pub dir: PathBuf,
    /// The target findings are attributed to: the library if there is one, else the first target.
    pub target: TargetInfo,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TargetInfo {
    pub name: String,
    pub kind: Vec<String>,
    pub crate_types: Vec<String>,
    pub src_path: PathBuf,
    pub edition: String,
}

impl PackageInfo {
    fn from_cargo(p: &cargo_metadata::Package, dir: &Path) -> PackageInfo {
        let target = p.targets.iter().find(|t| t.is_lib() || t.is_rlib() || t.is_proc_macro()).or(p.targets.first());
        let target = match target {
            Some(t) => TargetInfo {
                name: t.name.clone(),
                kind: t.kind.iter().map(|k| k.to_string()).collect(),
                crate_types: t.crate_types.iter().map(|k| k.to_string()).collect(),
                src_path: t.src_path.clone().into(),
                edition: t.edition.as_str().to_string(),
            },
            None => TargetInfo::lib(&p.name.replace('-', "_"), dir, p.edition.as_str()),
        };
        PackageInfo {
            id: p.id.repr.clone(),
            name: p.name.to_string(),
            version: p.version.to_string(),
            manifest_path: p.manifest_path.clone().into(),
            dir: dir.to_path_buf(),
            target,
        }
    }

    /// A package of a tree checked without cargo: name, version and edition from its `Cargo.toml`
    /// where there is one (read as TOML, never run), else from the directory.
    fn from_dir(dir: &Path, crate_name: &str) -> PackageInfo {
        // Cargo's IDs and paths are absolute; `dir` stays as given (files are matched against it).
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let manifest_path = abs.join("Cargo.toml");
        let manifest: Option<toml::Table> = std::fs::read_to_string(&manifest_path).ok().and_then(|t| t.parse().ok());
        let package = manifest.as_ref().and_then(|m| m.get("package")).and_then(|p| p.as_table());
        let field = |k: &str| package.and_then(|p| p.get(k)).and_then(|v| v.as_str()).map(str::to_string);
        let name = field("name").unwrap_or_else(|| crate_name.to_string());
        let version = field("version").unwrap_or_else(|| "0.0.0".into());
        let edition = field("edition").unwrap_or_else(|| "2021".into());
        let url = url::Url::from_directory_path(&abs).map(|u| u.to_string()).unwrap_or_else(|_| format!("file://{}", abs.display()));
        PackageInfo {
            id: format!("path+{}#{name}@{version}", url.trim_end_matches('/')),
            target: TargetInfo::lib(&name.replace('-', "_"), &abs, &edition),
            name,
            version,
            manifest_path,
            dir: dir.to_path_buf(),
        }
    }
}

impl TargetInfo {
    fn lib(name: &str, dir: &Path, edition: &str) -> TargetInfo {
        let (kind, src) = if !dir.join("src/lib.rs").is_file() && dir.join("src/main.rs").is_file() { ("bin", "src/main.rs") } else { ("lib", "src/lib.rs") };
        TargetInfo { name: name.to_string(), kind: vec![kind.into()], crate_types: vec![kind.into()], src_path: dir.join(src), edition: edition.to_string() }
    }
}

#[derive(Debug)]
pub struct Workspace {
    pub root: PathBuf,
    pub packages: Vec<Package>,
    /// Contracts files for code the workspace does not own.
    pub contracts_files: Vec<PathBuf>,
    /// The manifests read (their changes change the configuration and the package list).
    pub manifests: Vec<PathBuf>,
    /// Every directory the walk visited or that decides what is walked (package directories,
    /// the directories between them and the root, the parents of `members` globs): a file added to
    /// any of them changes the input.
    pub dirs: Vec<PathBuf>,
    /// Entries the walk could not read (an unreadable directory), with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Only findings in this file are reported (a single file was named on the command line).
    pub report_only: Option<PathBuf>,
}

/// Why the tool could not run (exit status 2).
#[derive(Debug)]
pub enum DiscoverError {
    Config(ConfigError),
    Other(String),
}

impl std::fmt::Display for DiscoverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiscoverError::Config(e) => write!(f, "bad configuration: {e}"),
            DiscoverError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for DiscoverError {}

impl From<ConfigError> for DiscoverError {
    fn from(e: ConfigError) -> Self {
        DiscoverError::Config(e)
    }
}

pub fn discover(target: &Target) -> Result<Workspace, DiscoverError> {
    let manifest = match (&target.manifest_path, &target.path) {
        (Some(m), _) => Some(m.clone()),
        (None, Some(p)) if p.is_file() && p.file_name().is_some_and(|n| n == "Cargo.toml") => Some(p.clone()),
        (None, Some(p)) if p.is_dir() && p.join("Cargo.toml").is_file() => Some(p.join("Cargo.toml")),
        (None, Some(p)) if p.is_dir() => return discover_dir(p),
        // One source file: checked with everything its package and workspace declare, reported alone.
        (None, Some(p)) if p.is_file() && p.extension().is_some_and(|e| e == "rs") => return discover_file(p, target),
        (None, Some(p)) => return Err(DiscoverError::Other(format!("`{}`: no such directory or Cargo.toml", p.display()))),
        // What cargo would find from here: the nearest `Cargo.toml` above the current directory.
        (None, None) => {
            let cwd = std::env::current_dir().map_err(|e| DiscoverError::Other(format!("no current directory: {e}")))?;
            let found = cwd.ancestors().map(|d| d.join("Cargo.toml")).find(|m| m.is_file());
            Some(found.ok_or_else(|| DiscoverError::Other(format!("no Cargo.toml in {} or above it", cwd.display())))?)
        }
    };
    discover_cargo(manifest.as_deref(), target)
}

/// A single `.rs` file: the workspace of the nearest `Cargo.toml` above it (else its directory as a
/// plain tree) is indexed, and only the file's findings are reported.
fn discover_file(file: &Path, target: &Target) -> Result<Workspace, DiscoverError> {
    let file = std::fs::canonicalize(file).map_err(|e| DiscoverError::Other(format!("`{}`: {e}", file.display())))?;
    let dir = file.parent().unwrap_or(Path::new("/"));
    let mut ws = match dir.ancestors().map(|d| d.join("Cargo.toml")).find(|m| m.is_file()) {
        Some(manifest) => discover_cargo(Some(&manifest), &Target { workspace: true, ..target.clone() })?,
        None => discover_dir(dir)?,
    };
    if !ws.packages.iter().any(|p| p.files.iter().any(|f| std::fs::canonicalize(f).is_ok_and(|f| f == file))) {
        return Err(DiscoverError::Other(format!("`{}` is not a source file of its workspace (excluded, ignored or outside every package)", file.display())));
    }
    ws.report_only = Some(file);
    Ok(ws)
}

/// `cargo metadata --no-deps --offline` for `manifest`, run so that nothing in the checked tree
/// decides what runs: from a new empty directory (rustup's toolchain files and cargo's
/// `.cargo/config.toml` are looked up from the current directory, so neither applies), with the
/// cargo that started the checker (`$CARGO`, set by cargo for its subcommands) or else the `cargo`
/// of `PATH`, and with rustup told never to install a toolchain. `RUSTUP_TOOLCHAIN`, when the
/// environment sets it, still applies: the environment is the user's, the tree is not.
pub fn metadata_command(manifest: &Path, neutral_dir: &Path) -> cargo_metadata::MetadataCommand {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    if let Some(cargo) = std::env::var_os("CARGO").map(PathBuf::from).filter(|c| c.is_absolute()) {
        cmd.cargo_path(cargo);
    }
    cmd.no_deps()
        .manifest_path(manifest)
        .current_dir(neutral_dir)
        .other_options(vec!["--offline".to_string()])
        .env("RUSTUP_AUTO_INSTALL", "0");
    cmd
}

fn discover_cargo(manifest: Option<&Path>, target: &Target) -> Result<Workspace, DiscoverError> {
    let manifest = manifest.ok_or_else(|| DiscoverError::Other("no Cargo.toml to read".into()))?;
    let manifest = std::path::absolute(manifest).map_err(|e| DiscoverError::Other(format!("`{}`: {e}", manifest.display())))?;
    let neutral = tempfile::Builder::new()
        .prefix("reuse-check-")
        .tempdir()
        .map_err(|e| DiscoverError::Other(format!("cannot create a temporary directory to run `cargo metadata` from: {e}")))?;
    let meta = metadata_command(&manifest, neutral.path())
        .exec()
        .map_err(|e| DiscoverError::Other(format!("cannot read the Cargo workspace: {e}")))?;
    let manifest = Some(manifest.as_path());
    let root: PathBuf = meta.workspace_root.clone().into();
    let root_manifest = root.join("Cargo.toml");
    let ws_layer = match meta.workspace_metadata.get("reuse-check") {
        Some(v) => ConfigLayer::from_value(v, &root_manifest, "workspace.metadata.reuse-check", &root, &root)?,
        None => ConfigLayer::default(),
    };
    let mut contracts_files = ws_layer.contracts.clone();
    let members: Vec<&cargo_metadata::Package> = meta.workspace_packages();
    let selected: Vec<&cargo_metadata::Package> = if !target.packages.is_empty() {
        let mut out = Vec::new();
        for spec in &target.packages {
            // A name, `name@version`, or a package ID (rust-analyzer passes `-p <package id>`).
            let p = members.iter().find(|p| spec_matches(p, spec)).ok_or_else(|| {
                DiscoverError::Other(format!("package `{spec}` is not a member of the workspace at {}", root.display()))
            })?;
            out.push(*p);
        }
        out
    } else if let (Some(m), false) = (manifest, target.workspace) {
        // A member's manifest selects that member, as cargo does.
        let m = std::fs::canonicalize(m).unwrap_or_else(|_| m.to_path_buf());
        match members.iter().find(|p| std::fs::canonicalize(&p.manifest_path).ok().as_deref() == Some(m.as_path())) {
            Some(p) if m != std::fs::canonicalize(&root_manifest).unwrap_or_default() => vec![*p],
            _ => members.clone(),
        }
    } else {
        members.clone()
    };
    let explicit = selected.len() < members.len() || !target.packages.is_empty();
    let all_dirs: Vec<PathBuf> = members.iter().filter_map(|p| p.manifest_path.parent().map(|d| d.into())).collect();
    let mut packages = Vec::new();
    let mut log = WalkLog::default();
    for p in selected {
        let dir: PathBuf = p.manifest_path.parent().map(Into::into).unwrap_or_else(|| root.clone());
        let pkg_layer = match p.metadata.get("reuse-check") {
            Some(v) => ConfigLayer::from_value(v, p.manifest_path.as_std_path(), "package.metadata.reuse-check", &dir, &root)?,
            None => ConfigLayer::default(),
        };
        contracts_files.extend(pkg_layer.contracts.iter().cloned());
        let config = Arc::new(Config::merge(&[&ws_layer, &pkg_layer]));
        // Files of nested member packages belong to those packages.
        let nested: Vec<PathBuf> = all_dirs.iter().filter(|d| **d != dir && d.starts_with(&dir)).cloned().collect();
        let mut files = rust_files(&dir, &nested, &root, Some(&config), &mut log);
        if files.is_empty() && explicit {
            // A package named on the command line is checked even if the workspace excludes it.
            files = rust_files(&dir, &nested, &root, None, &mut log);
        }
        let info = PackageInfo::from_cargo(p, &dir);
        packages.push(Package { crate_name: p.name.replace('-', "_"), dir, files, config, info });
    }
    contracts_files.sort();
    contracts_files.dedup();
    let mut manifests = vec![root_manifest.clone()];
    manifests.extend(members.iter().map(|p| p.manifest_path.clone().into_std_path_buf()));
    // A new member (a directory matched by a `members` glob) shows in the listing of the
    // directories between the members and the root.
    log.dirs.push(root.clone());
    for d in &all_dirs {
        log.dirs.extend(d.ancestors().skip(1).take_while(|a| a.starts_with(&root)).map(Path::to_path_buf));
    }
    log.dirs.extend(member_glob_parents(&root_manifest, &root));
    Ok(Workspace { root, packages, contracts_files, manifests, dirs: log.dirs, unreadable: log.unreadable, report_only: None })
}

/// The directories that `[workspace] members` globs enumerate (`crates/*` → `crates`): a member
/// added there changes the workspace even before its manifest is listed anywhere.
fn member_glob_parents(root_manifest: &Path, root: &Path) -> Vec<PathBuf> {
    let Some(manifest) = std::fs::read_to_string(root_manifest).ok().and_then(|t| t.parse::<toml::Table>().ok()) else { return Vec::new() };
    let members = manifest.get("workspace").and_then(|w| w.get("members")).and_then(|m| m.as_array());
    members
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str())
        .filter(|m| m.contains(['*', '?', '[']) && !m.split('/').any(|c| c == ".."))
        .map(|m| {
            let literal: Vec<&str> = m.split('/').take_while(|c| !c.contains(['*', '?', '['])).collect();
            root.join(literal.join("/"))
        })
        .filter(|d| d.starts_with(root))
        .collect()
}

/// Whether a `-p` spec names a package: `name`, `name@version` or cargo's package ID.
fn spec_matches(p: &cargo_metadata::Package, spec: &str) -> bool {
    let name = p.name.as_str();
    spec == name || spec == p.id.repr || spec.strip_prefix(name).and_then(|r| r.strip_prefix('@')).is_some_and(|v| v == p.version.to_string())
}

/// A tree that is not a Cargo workspace: each directory with a `Cargo.toml` or a `src/` below the
/// root is a crate of its own (named after the directory), the rest is one crate named after the root.
fn discover_dir(dir: &Path) -> Result<Workspace, DiscoverError> {
    let root = dir.to_path_buf();
    let config = Arc::new(Config::default());
    let mut log = WalkLog::default();
    let files = rust_files(&root, &[], &root, Some(&config), &mut log);
    let name_of = |d: &Path| {
        d.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().replace('-', "_"))).unwrap_or_else(|| "crate".into())
    };
    let mut packages: Vec<Package> = Vec::new();
    for file in files {
        let pkg_dir = file
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(&root))
            .find(|a| a.join("Cargo.toml").is_file() || a.join("src").is_dir())
            .unwrap_or(&root)
            .to_path_buf();
        match packages.iter_mut().find(|p| p.dir == pkg_dir) {
            Some(p) => p.files.push(file),
            None => {
                let crate_name = name_of(&pkg_dir);
                let info = PackageInfo::from_dir(&pkg_dir, &crate_name);
                packages.push(Package { crate_name, dir: pkg_dir, files: vec![file], config: config.clone(), info })
            }
        }
    }
    Ok(Workspace { root, packages, contracts_files: Vec::new(), manifests: Vec::new(), dirs: log.dirs, unreadable: log.unreadable, report_only: None })
}

/// What the walks saw besides files: the directories they visited and what they could not read.
#[derive(Default)]
struct WalkLog {
    dirs: Vec<PathBuf>,
    unreadable: Vec<(PathBuf, String)>,
}

/// `.rs` files under `dir`, gitignore-aware, skipping `target/`, nested packages and excluded paths.
/// Symbolic links are not followed (a link to `/dev/stdin` or out of the tree is not a file of it).
fn rust_files(dir: &Path, nested: &[PathBuf], root: &Path, config: Option<&Config>, log: &mut WalkLog) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != "target")
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = walk_error_path(&e).unwrap_or_else(|| dir.to_path_buf());
                log.unreadable.push((path, e.to_string()));
                continue;
            }
        };
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            log.dirs.push(path.to_path_buf());
            continue;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        if nested.iter().any(|n| path.starts_with(n)) || config.is_some_and(|c| c.excludes(&rel_path(root, path))) {
            continue;
        }
        files.push(path.to_path_buf());
    }
    files.sort();
    files
}

/// The path an error of the walk is about.
fn walk_error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => walk_error_path(err),
        _ => None,
    }
}

/// `path` relative to `root`, with `/` separators.
pub fn rel_path(root: &Path, path: &Path) -> String {
    let Ok(rel) = path.strip_prefix(root) else { return path.to_string_lossy().replace('\\', "/") };
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The module path of a file within its crate: `src/kv/cache.rs` → `["kv", "cache"]`. Files outside
/// `src/` (tests, benches, examples) and binaries are crate roots of their own; their module path is
/// their path (`tests/ui/pass.rs` → `["tests", "ui", "pass"]`) so that they never share a namespace.
pub fn module_path(package_dir: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(package_dir).unwrap_or(file);
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = parts.pop().map(|l| l.trim_end_matches(".rs").to_string());
    let in_src = parts.first().map(String::as_str) == Some("src") && parts.get(1).map(String::as_str) != Some("bin");
    if in_src {
        parts.remove(0);
    }
    if let Some(stem) = last {
        if !(in_src && matches!(stem.as_str(), "lib" | "main" | "mod")) {
            parts.push(stem);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_follow_the_file_layout() {
        let d = Path::new("/p");
        assert_eq!(module_path(d, Path::new("/p/src/lib.rs")), Vec::<String>::new());
        assert_eq!(module_path(d, Path::new("/p/src/buggy.rs")), vec!["buggy"]);
        assert_eq!(module_path(d, Path::new("/p/src/kv/mod.rs")), vec!["kv"]);
        assert_eq!(module_path(d, Path::new("/p/src/kv/cache.rs")), vec!["kv", "cache"]);
        assert_eq!(module_path(d, Path::new("/p/tests/t.rs")), vec!["tests", "t"]);
        assert_eq!(module_path(d, Path::new("/p/src/bin/tool.rs")), vec!["src", "bin", "tool"]);
    }
}
