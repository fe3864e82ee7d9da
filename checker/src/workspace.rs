//! Finding what to check: a Cargo workspace through `cargo metadata --no-deps` (which reads
//! manifests and builds nothing), or a plain directory. Files are walked gitignore-aware.

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
}

#[derive(Debug)]
pub struct Workspace {
    pub root: PathBuf,
    pub packages: Vec<Package>,
    /// Contracts files for code the workspace does not own.
    pub contracts_files: Vec<PathBuf>,
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
        (None, Some(p)) => return Err(DiscoverError::Other(format!("`{}`: no such directory or Cargo.toml", p.display()))),
        (None, None) => None,
    };
    discover_cargo(manifest.as_deref(), target)
}

fn discover_cargo(manifest: Option<&Path>, target: &Target) -> Result<Workspace, DiscoverError> {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(m) = manifest {
        cmd.manifest_path(m);
    }
    let meta = cmd.exec().map_err(|e| DiscoverError::Other(format!("cannot read the Cargo workspace: {e}")))?;
    let root: PathBuf = meta.workspace_root.clone().into();
    let root_manifest = root.join("Cargo.toml");
    let ws_layer = match meta.workspace_metadata.get("reuse-check") {
        Some(v) => ConfigLayer::from_value(v, &root_manifest, "workspace.metadata.reuse-check", &root)?,
        None => ConfigLayer::default(),
    };
    let mut contracts_files = ws_layer.contracts.clone();
    let members: Vec<&cargo_metadata::Package> = meta.workspace_packages();
    let selected: Vec<&cargo_metadata::Package> = if !target.packages.is_empty() {
        let mut out = Vec::new();
        for spec in &target.packages {
            let p = members.iter().find(|p| p.name.as_str() == spec.as_str()).ok_or_else(|| {
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
    let all_dirs: Vec<PathBuf> = members.iter().filter_map(|p| p.manifest_path.parent().map(|d| d.into())).collect();
    let mut packages = Vec::new();
    for p in selected {
        let dir: PathBuf = p.manifest_path.parent().map(Into::into).unwrap_or_else(|| root.clone());
        let pkg_layer = match p.metadata.get("reuse-check") {
            Some(v) => ConfigLayer::from_value(v, p.manifest_path.as_std_path(), "package.metadata.reuse-check", &dir)?,
            None => ConfigLayer::default(),
        };
        contracts_files.extend(pkg_layer.contracts.iter().cloned());
        let config = Arc::new(Config::merge(&[&ws_layer, &pkg_layer]));
        // Files of nested member packages belong to those packages.
        let nested: Vec<PathBuf> = all_dirs.iter().filter(|d| **d != dir && d.starts_with(&dir)).cloned().collect();
        let files = rust_files(&dir, &nested, &root, &config);
        packages.push(Package { crate_name: p.name.replace('-', "_"), dir, files, config });
    }
    contracts_files.sort();
    contracts_files.dedup();
    Ok(Workspace { root, packages, contracts_files })
}

/// A tree that is not a Cargo workspace: each directory with a `Cargo.toml` or a `src/` below the
/// root is a crate of its own (named after the directory), the rest is one crate named after the root.
fn discover_dir(dir: &Path) -> Result<Workspace, DiscoverError> {
    let root = dir.to_path_buf();
    let config = Arc::new(Config::default());
    let files = rust_files(&root, &[], &root, &config);
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
            None => packages.push(Package { crate_name: name_of(&pkg_dir), dir: pkg_dir, files: vec![file], config: config.clone() }),
        }
    }
    Ok(Workspace { root, packages, contracts_files: Vec::new() })
}

/// `.rs` files under `dir`, gitignore-aware, skipping `target/`, nested packages and excluded paths.
fn rust_files(dir: &Path, nested: &[PathBuf], root: &Path, config: &Config) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .filter_entry(|e| e.file_name() != "target")
        .build();
    for entry in walker.flatten() {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        if nested.iter().any(|n| path.starts_with(n)) || config.excludes(&rel_path(root, path)) {
            continue;
        }
        files.push(path.to_path_buf());
    }
    files.sort();
    files
}

/// `path` relative to `root`, with `/` separators.
pub fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The module path of a file within its crate: `src/kv/cache.rs` → `["kv", "cache"]`. Files outside
/// `src/` (tests, benches, examples) are crate roots of their own.
pub fn module_path(package_dir: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(package_dir).unwrap_or(file);
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.first().map(String::as_str) != Some("src") {
        return Vec::new();
    }
    parts.remove(0);
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if !matches!(stem, "lib" | "main" | "mod") && !(parts.len() == 1 && parts[0] == "bin") {
            parts.push(stem.to_string());
        }
    }
    if parts.first().map(String::as_str) == Some("bin") {
        return Vec::new();
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
        assert_eq!(module_path(d, Path::new("/p/tests/t.rs")), Vec::<String>::new());
        assert_eq!(module_path(d, Path::new("/p/src/bin/tool.rs")), Vec::<String>::new());
    }
}
