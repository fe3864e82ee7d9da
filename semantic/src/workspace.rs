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
    /// Checked and reported; `false`: only read for its contracts (a member left out by `-p`, a
    /// dependency that declares contracts).
    pub report: bool,
    /// A crate of a plain directory without `src/`: every file is a module of one library crate.
    pub flat: bool,
    /// The crates this package depends on, as its code names them (`-` as `_`); `None`: unknown
    /// (a plain directory). A file can call a contracted function only of its own crate or of a
    /// crate it reaches through these (see `engine::reach`).
    pub deps: Option<Vec<String>>,
    /// The names its code gives dependencies that differ from their crate names, with those
    /// names (`kern` for `kern = { package = "kernels" }`): an extern prelude entry of every
    /// module of the crate, as `extern crate kernels as kern;` would be.
    pub renames: Vec<(String, String)>,
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
        let target = lib_target(p).or(p.targets.first());
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
    /// What the user should know about how the workspace was read (a fallback, a dependency whose
    /// contracts could not be read).
    pub warnings: Vec<String>,
    /// Where contracts came from, for `--verbose`: (package, how many files were read for them).
    pub sources: Vec<String>,
    /// A member depends on `reuse`: finding no contract at all is then worth a warning.
    pub depends_on_reuse: bool,
    /// Dependencies that are not read for contracts (they do not depend on `reuse`), as
    /// (crate name, package directory, source directory): where a contracts file's contract for
    /// code the workspace does not own is looked up (see `engine::unmatched_contracts`).
    pub dependency_sources: Vec<(String, PathBuf, PathBuf)>,
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

/// `cargo metadata --offline` for `manifest` (`--no-deps` when `deps` is false), run so that
/// nothing in the checked tree decides what runs: from a new empty directory (rustup's toolchain
/// files and cargo's `.cargo/config.toml` are looked up from the current directory, so neither
/// applies), with the cargo that started the checker (`$CARGO`, set by cargo for its subcommands)
/// or else the `cargo` of `PATH`, and with rustup told never to install a toolchain.
/// `RUSTUP_TOOLCHAIN`, when the environment sets it, still applies: the environment is the user's,
/// the tree is not. Resolving dependencies reads their manifests; it builds nothing, runs no build
/// script and (offline) downloads nothing.
pub fn metadata_command(manifest: &Path, neutral_dir: &Path, deps: bool) -> cargo_metadata::MetadataCommand {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    if let Some(cargo) = std::env::var_os("CARGO").map(PathBuf::from).filter(|c| c.is_absolute()) {
        cmd.cargo_path(cargo);
    }
    if !deps {
        cmd.no_deps();
    }
    cmd.manifest_path(manifest).current_dir(neutral_dir).other_options(vec!["--offline".to_string()]).env("RUSTUP_AUTO_INSTALL", "0");
    cmd
}

/// The workspace's metadata, with its dependencies resolved when that writes nothing: only with
/// a `Cargo.lock` (`--locked` keeps it as it is) and cargo's scratch files in the temporary
/// directory. Otherwise the members alone (`--no-deps`), and path dependencies are followed by
/// reading their manifests ([`path_dependencies`]).
fn read_metadata(manifest: &Path, warnings: &mut Vec<String>) -> Result<cargo_metadata::Metadata, String> {
    let neutral = tempfile::Builder::new()
        .prefix("reuse-check-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory to run `cargo metadata` from: {e}"))?;
    let lock = manifest.ancestors().skip(1).map(|d| d.join("Cargo.lock")).find(|l| l.is_file());
    if lock.is_some() {
        let mut cmd = metadata_command(manifest, neutral.path(), true);
        cmd.other_options(vec!["--offline".to_string(), "--locked".to_string()]).env("CARGO_TARGET_DIR", neutral.path());
        match cmd.exec() {
            Ok(meta) => return Ok(meta),
            Err(e) => warnings.push(format!(
                "the dependencies of {} could not be resolved offline from its Cargo.lock, so only path dependencies are read for contracts ({})",
                manifest.display(),
                first_line(&e.to_string())
            )),
        }
    }
    let mut cmd = metadata_command(manifest, neutral.path(), false);
    cmd.env("CARGO_TARGET_DIR", neutral.path());
    cmd.exec().map_err(|e| e.to_string())
}

/// Packages reached through `path = ".."` dependencies (of the members, and of those packages in
/// turn) that depend on `reuse`, found by reading their manifests as TOML: what `--no-deps` leaves
/// out. Registry and git dependencies need a `Cargo.lock` (see [`read_metadata`]).
fn path_dependencies(meta: &cargo_metadata::Metadata, known: &[PathBuf], warnings: &mut Vec<String>) -> Vec<Package> {
    let mut queue: Vec<PathBuf> = meta
        .workspace_packages()
        .iter()
        .flat_map(|p| p.dependencies.iter().filter_map(|d| d.path.clone().map(PathBuf::from)))
        .collect();
    let mut seen: std::collections::HashSet<PathBuf> = known.iter().filter_map(|d| std::fs::canonicalize(d).ok()).collect();
    let mut out = Vec::new();
    while let Some(dir) = queue.pop() {
        let Ok(dir) = std::fs::canonicalize(&dir) else {
            warnings.push(format!("the path dependency {} does not exist; contracts it may declare are not checked", dir.display()));
            continue;
        };
        if !seen.insert(dir.clone()) || seen.len() > 1000 {
            continue;
        }
        let Some(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")).ok().and_then(|t| t.parse::<toml::Table>().ok()) else { continue };
        let tables = dependency_tables(&manifest);
        for (_, dep) in tables.iter().flat_map(|t| t.iter()) {
            if let Some(path) = dep.get("path").and_then(|p| p.as_str()) {
                queue.push(dir.join(path));
            }
        }
        if !tables.iter().any(|t| REUSE_CRATES.iter().any(|r| t.contains_key(*r))) {
            continue;
        }
        let package = manifest.get("package").and_then(|p| p.as_table());
        let Some(name) = package.and_then(|p| p.get("name")).and_then(|n| n.as_str()) else { continue };
        let lib = manifest.get("lib").and_then(|l| l.as_table());
        let crate_name = lib.and_then(|l| l.get("name")).and_then(|n| n.as_str()).unwrap_or(name).replace('-', "_");
        let lib_path = dir.join(lib.and_then(|l| l.get("path")).and_then(|p| p.as_str()).unwrap_or("src/lib.rs"));
        let src = lib_path.parent().map(Path::to_path_buf).unwrap_or_else(|| dir.join("src"));
        let files = rust_files(&src, &[], &dir, None, &mut WalkLog::default());
        let info = PackageInfo::from_dir(&dir, &crate_name);
        let (deps, renames) = manifest_dependency_names(&tables);
        out.push(Package { crate_name, dir, files, config: Arc::new(Config::default()), info, report: false, flat: false, deps: Some(deps), renames });
    }
    out
}

/// [`dependency_names`] read from a manifest's dependency tables: a key is the name the code
/// uses, `package = ".."` the crate's when it differs (its `[lib] name` is not read).
fn manifest_dependency_names(tables: &[&toml::Table]) -> (Vec<String>, Vec<(String, String)>) {
    crates_and_renames(tables.iter().flat_map(|t| t.iter()).map(|(key, dep)| {
        let code = key.replace('-', "_");
        let krate = dep.get("package").and_then(|p| p.as_str()).map_or_else(|| code.clone(), |p| p.replace('-', "_"));
        (code, krate)
    }))
}

/// The crates of `(name in the code, crate)` pairs, and the pairs whose names differ.
fn crates_and_renames(pairs: impl Iterator<Item = (String, String)>) -> (Vec<String>, Vec<(String, String)>) {
    let mut crates = Vec::new();
    let mut renames = Vec::new();
    for (code, krate) in pairs {
        if code != krate {
            renames.push((code, krate.clone()));
        }
        crates.push(krate);
    }
    (crates, renames)
}

/// `[dependencies]`, `[build-dependencies]`, `[dev-dependencies]` and their `[target.*]` forms.
fn dependency_tables(manifest: &toml::Table) -> Vec<&toml::Table> {
    let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<&toml::Table> = kinds.iter().filter_map(|k| manifest.get(*k).and_then(|t| t.as_table())).collect();
    for (_, target) in manifest.get("target").and_then(|t| t.as_table()).into_iter().flatten() {
        tables.extend(kinds.iter().filter_map(|k| target.get(*k).and_then(|t| t.as_table())));
    }
    tables
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s).trim()
}

fn discover_cargo(manifest: Option<&Path>, target: &Target) -> Result<Workspace, DiscoverError> {
    let manifest = manifest.ok_or_else(|| DiscoverError::Other("no Cargo.toml to read".into()))?;
    let manifest = std::path::absolute(manifest).map_err(|e| DiscoverError::Other(format!("`{}`: {e}", manifest.display())))?;
    let mut warnings = Vec::new();
    let meta = match read_metadata(&manifest, &mut warnings) {
        Ok(meta) => meta,
        // An unusual layout cargo cannot read (a missing path dependency, a broken member): the
        // tree is still checked, as a plain directory, and the user is told.
        Err(e) if target.packages.is_empty() => {
            let dir = manifest.parent().unwrap_or(Path::new("."));
            let mut ws = discover_dir(dir)?;
            ws.warnings.insert(0, format!("cargo cannot read the workspace ({}); checked {} as a plain directory, without its configuration", first_line(&e), dir.display()));
            return Ok(ws);
        }
        Err(e) => return Err(DiscoverError::Other(format!("cannot read the Cargo workspace: {e}"))),
    };
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
    // Every member is read, so that `-p` keeps the contracts of the others; only the selected
    // ones are reported.
    for p in &members {
        let report = selected.iter().any(|s| s.id == p.id);
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
        if files.is_empty() && explicit && report {
            // A package named on the command line is checked even if the workspace excludes it.
            files = rust_files(&dir, &nested, &root, None, &mut log);
        }
        let info = PackageInfo::from_cargo(p, &dir);
        let (deps, renames) = dependency_names(p, &meta);
        // The crate's name is its library's (`[lib] name = "pk"`), else the package's.
        let crate_name = lib_target(p).map_or(p.name.as_str(), |l| l.name.as_str()).replace('-', "_");
        packages.push(Package { crate_name, dir, files, config, info, report, flat: false, deps: Some(deps), renames });
    }
    let mut sources = Vec::new();
    let member_dirs: Vec<PathBuf> = packages.iter().map(|p| p.dir.clone()).collect();
    let mut resolved_dirs = member_dirs.clone();
    for p in contract_dependencies(&meta) {
        let Some(lib) = lib_target(p) else { continue };
        let dir: PathBuf = p.manifest_path.parent().map(Into::into).unwrap_or_default();
        let src: PathBuf = lib.src_path.parent().map(Into::into).unwrap_or_else(|| dir.clone());
        // Only the library's sources: a dependency's tests and examples declare nothing it exports.
        let files = rust_files(&src, &[], &dir, None, &mut WalkLog::default());
        sources.push(format!("{} {} ({}): {} files read for contracts", p.name, p.version, p.source.as_ref().map_or("path", |s| if s.is_crates_io() { "crates.io" } else { "registry or git" }), files.len()));
        let info = PackageInfo::from_cargo(p, &dir);
        let crate_name = lib.name.replace('-', "_");
        resolved_dirs.push(dir.clone());
        let (deps, renames) = dependency_names(p, &meta);
        packages.push(Package { crate_name, dir, files, config: Arc::new(Config::default()), info, report: false, flat: false, deps: Some(deps), renames });
    }
    for p in path_dependencies(&meta, &resolved_dirs, &mut warnings) {
        sources.push(format!("{} ({}, path): {} files read for contracts", p.info.name, p.dir.display(), p.files.len()));
        packages.push(p);
    }
    contracts_files.sort();
    contracts_files.dedup();
    let mut manifests = vec![root_manifest.clone(), root.join("Cargo.lock")];
    manifests.extend(members.iter().map(|p| p.manifest_path.clone().into_std_path_buf()));
    // A new member (a directory matched by a `members` glob) shows in the listing of the
    // directories between the members and the root.
    log.dirs.push(root.clone());
    for d in &all_dirs {
        log.dirs.extend(d.ancestors().skip(1).take_while(|a| a.starts_with(&root)).map(Path::to_path_buf));
    }
    log.dirs.extend(member_glob_parents(&root_manifest, &root));
    let depends_on_reuse = members.iter().any(|p| depends_on_reuse(p));
    let read: Vec<&PathBuf> = packages.iter().map(|p| &p.dir).collect();
    let mut dependency_sources: Vec<(String, PathBuf, PathBuf)> = Vec::new();
    for p in meta.packages.iter().filter(|p| !meta.workspace_members.contains(&p.id)) {
        let Some(lib) = lib_target(p) else { continue };
        let dir: PathBuf = p.manifest_path.parent().map(Into::into).unwrap_or_default();
        if !read.contains(&&dir) {
            dependency_sources.push((lib.name.replace('-', "_"), dir.clone(), lib.src_path.parent().map(Into::into).unwrap_or(dir)));
        }
    }
    // Without a lock file only the members are known: their path dependencies are found by
    // reading the manifests.
    for d in members.iter().flat_map(|p| p.dependencies.iter()) {
        let Some(dir) = d.path.as_ref().map(PathBuf::from).and_then(|d| std::fs::canonicalize(d).ok()) else { continue };
        if !read.contains(&&dir) && !dependency_sources.iter().any(|(_, known, _)| *known == dir) {
            let name = d.rename.as_deref().unwrap_or(d.name.as_str()).replace('-', "_");
            dependency_sources.push((name, dir.clone(), dir.join("src")));
        }
    }
    Ok(Workspace {
        root,
        packages,
        contracts_files,
        manifests,
        dirs: log.dirs,
        unreadable: log.unreadable,
        report_only: None,
        warnings,
        sources,
        depends_on_reuse,
        dependency_sources,
    })
}

/// The crates a package depends on to declare contracts (a crate without them cannot name the
/// attributes).
const REUSE_CRATES: &[&str] = &["reuse", "reuse-macros"];

fn depends_on_reuse(p: &cargo_metadata::Package) -> bool {
    p.dependencies.iter().any(|d| REUSE_CRATES.contains(&d.name.as_str()))
}

/// A package's library target (what other crates call into).
fn lib_target(p: &cargo_metadata::Package) -> Option<&cargo_metadata::Target> {
    p.targets.iter().find(|t| t.is_lib() || t.is_rlib() || t.is_proc_macro())
}

/// The crates a package depends on (by their library's name: `[lib] name = "pk"` is `pk`), and
/// the names its code gives those it renames (`kern = { package = "kernels" }`).
fn dependency_names(p: &cargo_metadata::Package, meta: &cargo_metadata::Metadata) -> (Vec<String>, Vec<(String, String)>) {
    crates_and_renames(p.dependencies.iter().map(|d| {
        // The package cargo resolved it to, when the metadata lists it (not under `--no-deps`).
        let lib = meta.packages.iter().filter(|q| q.name.as_str() == d.name && d.req.matches(&q.version)).find_map(lib_target);
        let krate = lib.map_or(d.name.as_str(), |l| l.name.as_str()).replace('-', "_");
        let code = d.rename.as_deref().map_or_else(|| krate.clone(), |r| r.replace('-', "_"));
        (code, krate)
    }))
}

/// The dependencies (not members) that can declare contracts: those that depend on `reuse` (or
/// its macros crate) themselves. A crate that does not cannot name the attributes.
fn contract_dependencies(meta: &cargo_metadata::Metadata) -> Vec<&cargo_metadata::Package> {
    let members: std::collections::HashSet<&cargo_metadata::PackageId> = meta.workspace_members.iter().collect();
    let mut deps: Vec<&cargo_metadata::Package> = meta
        .packages
        .iter()
        .filter(|p| !members.contains(&p.id))
        .filter(|p| depends_on_reuse(p))
        .collect();
    deps.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    deps
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

/// A tree that is not a Cargo workspace. A Cargo workspace in a subfolder (`v3/Cargo.toml` with a
/// `[workspace]` table, one level down) is checked as a workspace, with its own configuration; of
/// the rest, each directory with a `Cargo.toml` or a `src/` is a crate of its own (named after the
/// directory), and the remaining files belong to the root: one crate whose `lib.rs` or `main.rs`
/// is the crate root when there is one, else each file a crate of its own.
fn discover_dir(dir: &Path) -> Result<Workspace, DiscoverError> {
    let root = dir.to_path_buf();
    let config = Arc::new(Config::default());
    let mut log = WalkLog::default();
    let mut ws = Workspace {
        root: root.clone(),
        packages: Vec::new(),
        contracts_files: Vec::new(),
        manifests: Vec::new(),
        dirs: Vec::new(),
        unreadable: Vec::new(),
        report_only: None,
        warnings: Vec::new(),
        sources: Vec::new(),
        depends_on_reuse: false,
        dependency_sources: Vec::new(),
    };
    let mut nested_workspaces = Vec::new();
    for manifest in workspace_manifests_below(&root) {
        let sub_dir = manifest.parent().unwrap_or(&root).to_path_buf();
        match discover_cargo(Some(&manifest), &Target { workspace: true, ..Target::default() }) {
            Ok(sub) => {
                ws.packages.extend(sub.packages);
                ws.contracts_files.extend(sub.contracts_files);
                ws.manifests.extend(sub.manifests);
                ws.dirs.extend(sub.dirs);
                ws.unreadable.extend(sub.unreadable);
                ws.warnings.extend(sub.warnings);
                ws.sources.extend(sub.sources);
                ws.depends_on_reuse |= sub.depends_on_reuse;
                ws.dependency_sources.extend(sub.dependency_sources);
                nested_workspaces.push(sub_dir);
            }
            Err(e) => ws.warnings.push(format!("{}: {e}; checked as a plain directory", manifest.display())),
        }
    }
    let files = rust_files(&root, &nested_workspaces, &root, Some(&config), &mut log);
    let name_of = |d: &Path| {
        d.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().replace('-', "_"))).unwrap_or_else(|| "crate".into())
    };
    for file in files {
        let pkg_dir = file
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(&root))
            .find(|a| a.join("Cargo.toml").is_file() || a.join("src").is_dir())
            .unwrap_or(&root)
            .to_path_buf();
        match ws.packages.iter_mut().find(|p| p.dir == pkg_dir) {
            Some(p) => p.files.push(file),
            None => {
                let crate_name = name_of(&pkg_dir);
                let info = PackageInfo::from_dir(&pkg_dir, &crate_name);
                // A folder of loose files is a crate only when it has a root (`lib.rs`, `main.rs`);
                // otherwise each file stands alone (a folder of examples or fixtures).
                let flat = !pkg_dir.join("src").is_dir() && (pkg_dir.join("lib.rs").is_file() || pkg_dir.join("main.rs").is_file());
                ws.packages.push(Package { crate_name, dir: pkg_dir, files: vec![file], config: config.clone(), info, report: true, flat, deps: None, renames: Vec::new() })
            }
        }
    }
    ws.dirs.extend(log.dirs);
    ws.unreadable.extend(log.unreadable);
    Ok(ws)
}

/// The manifests of Cargo workspaces one directory below `root` (a `[workspace]` table), read as
/// TOML, never run. Not deeper: a tree of many crates (a registry, a vendor folder) is not a tree
/// of workspaces to resolve one by one.
fn workspace_manifests_below(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && !e.file_name().to_string_lossy().starts_with('.') && e.file_name() != "target")
        .map(|e| e.path().join("Cargo.toml"))
        .filter(|m| {
            let Ok(meta) = std::fs::symlink_metadata(m) else { return false };
            meta.is_file()
                && meta.len() < 1 << 20
                && std::fs::read_to_string(m).ok().and_then(|t| t.parse::<toml::Table>().ok()).is_some_and(|t| t.contains_key("workspace"))
        })
        .collect();
    found.sort();
    found
}

/// What the walks saw besides files: the directories they visited and what they could not read.
#[derive(Default)]
struct WalkLog {
    dirs: Vec<PathBuf>,
    unreadable: Vec<(PathBuf, String)>,
}

/// `.rs` files under `dir`, gitignore-aware, skipping `target/`, nested packages and excluded paths.
/// Symbolic links are not followed (a link to `/dev/stdin` or out of the tree is not a file of it).
pub(crate) fn rust_files_of(dir: &Path) -> Vec<PathBuf> {
    rust_files(dir, &[], dir, None, &mut WalkLog::default())
}

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
    let canonical = || Some((std::fs::canonicalize(root).ok()?, std::fs::canonicalize(path).ok()?));
    let rel = match path.strip_prefix(root) {
        Ok(rel) => rel.to_path_buf(),
        // One of the two is written differently (`checker/../fixtures` and cargo's canonical paths).
        Err(_) => match canonical().and_then(|(r, p)| p.strip_prefix(&r).ok().map(Path::to_path_buf)) {
            Some(rel) => rel,
            None => return path.to_string_lossy().replace('\\', "/"),
        },
    };
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
