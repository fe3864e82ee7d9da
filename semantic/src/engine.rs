//! The check of a workspace, in three phases, each parallel over files:
//!
//! 1. read every file, and index those that can declare something: a byte-level prefilter for
//!    `reuse::`, `#[contract` and `#[effect` decides which are parsed;
//! 2. from the index, the names that make a file worth analysing (contracted functions, effects)
//!    go into one Aho-Corasick automaton; only files that mention one, or carry a suppression, are
//!    parsed and analysed;
//! 3. suppressions and configured levels are applied per file, and findings sorted.
//!
//! Most files of a large workspace never reach the parser: that is how a cold check stays under the
//! time it takes just to parse everything.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;

use aho_corasick::AhoCorasick;
use rayon::prelude::*;
use reuse_rules::catalogue::{CONTRACT_SYNTAX, INTERNAL_ERROR, PARSE_ERROR, UNREADABLE_FILE};
use reuse_rules::Level;

use crate::analysis::{analyze_items, Claims, Share};
use crate::config::Config;
use crate::finding::{Finding, Label};
use crate::incremental::Chunk;
use crate::items::WorkspaceItems;
use crate::index::{index_file, FileDecls, Index};
use crate::source::{FileRef, ParseFailure, SourceFile};
use crate::suppress::apply_suppressions;
use crate::workspace::{module_path, rel_path, Workspace};

/// A file to check and what it belongs to.
#[derive(Clone)]
pub struct FileJob {
    pub file: FileRef,
    pub crate_name: String,
    /// Module path, crate name first.
    pub module: Vec<String>,
    pub config: Arc<Config>,
    /// A contracts file for code the workspace does not own.
    pub external: bool,
    /// Why the file could not be read (its text is then empty and it is reported, not checked).
    pub unreadable: Option<String>,
    /// Checked and reported; `false`: read only for the contracts it declares (a member left out
    /// by `-p`, a dependency).
    pub report: bool,
    /// The crates whose contracted functions this file can call: its own and those its package
    /// reaches through dependencies. `None`: unknown, any.
    pub reach: Option<Arc<std::collections::HashSet<String>>>,
    /// The names its crate's code gives renamed dependencies, with their crate names
    /// ([`crate::workspace::Package::renames`]).
    pub renames: Arc<Vec<(String, String)>>,
}

#[derive(Debug, Default)]
pub struct Stats {
    pub files: usize,
    pub lines: usize,
    pub parsed: usize,
    /// Contracted functions in the index (from every file read, dependencies included).
    pub contracts: usize,
}

pub struct Report {
    pub findings: Vec<Finding>,
    pub stats: Stats,
    pub root: PathBuf,
    /// The packages checked, as cargo names them (machine-readable outputs attribute findings).
    pub packages: Vec<crate::workspace::PackageInfo>,
    /// What the user should know about how the workspace was read (printed on stderr).
    pub warnings: Vec<String>,
    /// Where contracts came from, and the contracts-file contracts no call uses (`--verbose`).
    pub sources: Vec<String>,
}

impl Report {
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }
}

/// Bytes that mark a file as possibly declaring contracts or effects.
const DECL_MARKERS: &[&str] = &["reuse::", "#[contract", "#[effect", "#[sanctioned"];
/// Bytes that mark a file as carrying suppressions.
const SUPPRESSION_MARKERS: &[&str] = &["reuse-check:", "reuse::allow"];

/// Reads the files of a workspace (in parallel). A file that cannot be read (or a directory the
/// walk could not enter) is a job of its own with an empty text and an `unreadable_file` finding,
/// so it is reported and everything else is still checked.
pub fn read_jobs(ws: &Workspace) -> Vec<FileJob> {
    // (path, crate name, module path, config, is a contracts file, is reported, reach)
    type Reach = Option<Arc<std::collections::HashSet<String>>>;
    type Wanted = (PathBuf, String, Vec<String>, Arc<Config>, bool, bool, Reach, Arc<Vec<(String, String)>>);
    let mut wanted: Vec<Wanted> = Vec::new();
    let reaches = reach(ws);
    for (p, reach) in ws.packages.iter().zip(reaches) {
        let renames = Arc::new(p.renames.clone());
        for f in &p.files {
            let mut parts = module_path(&p.dir, f);
            if p.flat {
                // A plain folder of sources: its `lib.rs`/`main.rs` is the crate root, `a/mod.rs` is `a`.
                if matches!(parts.as_slice(), [only] if only == "lib" || only == "main") || parts.last().is_some_and(|l| l == "mod") {
                    parts.pop();
                }
            }
            let in_lib = p.flat || f.strip_prefix(&p.dir).is_ok_and(|r| r.starts_with("src") && !r.starts_with("src/bin"));
            // Tests, benches, examples and binaries (and loose files without a crate root) are
            // crates of their own.
            let crate_name = if in_lib { p.crate_name.clone() } else { format!("{}_{}", p.crate_name, parts.join("_")) };
            let mut module = vec![crate_name.clone()];
            if in_lib {
                module.extend(parts);
            }
            wanted.push((f.clone(), crate_name, module, p.config.clone(), false, p.report, reach.clone(), renames.clone()));
        }
    }
    for f in &ws.contracts_files {
        wanted.push((f.clone(), String::new(), Vec::new(), Arc::new(Config::default()), true, true, None, Arc::default()));
    }
    let mut jobs: Vec<FileJob> = wanted
        .into_par_iter()
        .map(|(path, crate_name, module, config, external, report, reach, renames)| {
            let rel = rel_path(&ws.root, &path);
            let (text, problem) = match read_source(&path) {
                Ok(text) => (text, None),
                Err(e) => (String::new(), Some(e)),
            };
            let file = Arc::new(SourceFile::new(path, rel, text));
            FileJob { unreadable: problem, file, crate_name, module, config, external, report, reach, renames }
        })
        .collect();
    follow_path_attributes(&mut jobs);
    for (path, reason) in &ws.unreadable {
        let file = Arc::new(SourceFile::new(path.clone(), rel_path(&ws.root, path), String::new()));
        jobs.push(FileJob { file, crate_name: String::new(), module: Vec::new(), config: Arc::new(Config::default()), external: false, unreadable: Some(reason.clone()), report: true, reach: None, renames: Arc::default() });
    }
    jobs
}

/// `#[path = "gen/scatter_impl.rs"] pub mod scatter;`: the file named is module `scatter` of the
/// module that declares it, wherever it lies, as rustc reads it (relative to the declaring file's
/// directory; inside an inline `mod a { .. }`, to that directory's `a/`, or for a file that is
/// not a `mod.rs`, `lib.rs` or `main.rs`, to its own directory's `stem/a/`). Only files of the
/// same crate are moved; the layout gives every other file its module.
fn follow_path_attributes(jobs: &mut [FileJob]) {
    let declared: Vec<(PathBuf, String, Vec<String>)> = jobs
        .par_iter()
        .filter(|j| !j.external && j.unreadable.is_none() && j.file.text.contains("#[path"))
        .flat_map_iter(|j| {
            let Ok(ast) = j.file.parse() else { return Vec::new() };
            let Some(dir) = j.file.path.parent() else { return Vec::new() };
            let stem = j.file.path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let mod_rs = matches!(stem, "mod" | "lib" | "main");
            let mut out = Vec::new();
            path_modules(&ast.items, dir, stem, mod_rs, &j.module, &mut Vec::new(), &mut out);
            out.into_iter().map(|(path, module)| (path, j.crate_name.clone(), module)).collect()
        })
        .collect();
    if declared.is_empty() {
        return;
    }
    let by_path: HashMap<(PathBuf, &str), usize> = jobs.iter().enumerate().filter(|(_, j)| !j.external).map(|(i, j)| ((lexical(&j.file.path), j.crate_name.as_str()), i)).collect();
    let moved: Vec<(usize, Vec<String>)> = declared.into_iter().filter_map(|(path, crate_name, module)| Some((*by_path.get(&(lexical(&path), crate_name.as_str()))?, module))).collect();
    for (i, module) in moved {
        jobs[i].module = module;
    }
}

/// A path with its `.` and `..` components taken out, without asking the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => _ = out.pop(),
            other => out.push(other),
        }
    }
    out
}

/// The `#[path]` modules of `items` (inside the inline modules `inline`): the file each names and
/// its module path.
fn path_modules(items: &[syn::Item], dir: &Path, stem: &str, mod_rs: bool, module: &[String], inline: &mut Vec<String>, out: &mut Vec<(PathBuf, Vec<String>)>) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let here = || module.iter().cloned().chain(inline.iter().cloned()).chain([m.ident.to_string()]).collect::<Vec<_>>();
        match &m.content {
            Some((_, inner)) => {
                inline.push(m.ident.to_string());
                path_modules(inner, dir, stem, mod_rs, module, inline, out);
                inline.pop();
            }
            None => {
                let written = m.attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
                    syn::Meta::NameValue(nv) => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                        _ => None,
                    },
                    _ => None,
                });
                let Some(written) = written else { continue };
                let mut base = dir.to_path_buf();
                if !inline.is_empty() && !mod_rs {
                    base.push(stem);
                }
                base.extend(inline.iter());
                out.push((base.join(written), here()));
            }
        }
    }
}

/// For each package, the crates its files can call into: its own and every crate reachable
/// through the dependencies of the packages the workspace knows (`None` when a package on the way
/// has unknown dependencies: then anything may be reached).
fn reach(ws: &Workspace) -> Vec<Option<Arc<std::collections::HashSet<String>>>> {
    let deps: HashMap<&str, Option<&Vec<String>>> = ws.packages.iter().map(|p| (p.crate_name.as_str(), p.deps.as_ref())).collect();
    ws.packages
        .iter()
        .map(|p| {
            let mut seen: std::collections::HashSet<String> = std::collections::HashSet::from([p.crate_name.clone()]);
            let mut queue: Vec<&str> = p.deps.as_ref()?.iter().map(String::as_str).collect();
            while let Some(c) = queue.pop() {
                if !seen.insert(c.to_string()) {
                    continue;
                }
                // A crate the workspace does not read cannot declare contracts (but contracts files,
                // which bind anywhere); one whose dependencies are unknown could re-export anything.
                match deps.get(c) {
                    Some(Some(next)) => queue.extend(next.iter().map(String::as_str)),
                    Some(None) => return None,
                    None => {}
                }
            }
            Some(Arc::new(seen))
        })
        .collect()
}

/// The text of a source file: a regular file (never a FIFO or a device, which could block or
/// never end), at most [`crate::source::MAX_SOURCE_BYTES`], valid UTF-8 (rustc accepts nothing else).
pub fn read_source(path: &Path) -> Result<String, String> {
    use crate::source::{read_regular_file, ReadError, MAX_SOURCE_BYTES};
    let bytes = read_regular_file(path, MAX_SOURCE_BYTES).map_err(|e| match e {
        ReadError::Io(e) => e.to_string(),
        ReadError::NotRegular => "not a regular file".into(),
        ReadError::TooLarge(len) => format!("{} MiB, over the {} MiB limit of a source file", len >> 20, MAX_SOURCE_BYTES >> 20),
    })?;
    String::from_utf8(bytes).map_err(|e| format!("not valid UTF-8 (byte {}), so not Rust source", e.utf8_error().valid_up_to()))
}

/// How a check runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    /// Parse and analyse every file, not only those the prefilter picks (robustness runs, and the
    /// baseline of the benchmark).
    pub all_files: bool,
    /// Answer from the warm-check cache when nothing changed, and write it (the cache is the
    /// `reuse-check` crate's: this flag is read there).
    pub use_cache: bool,
}

/// Checks the jobs of a workspace.
pub fn check_jobs(jobs: &[FileJob], root: &Path, options: &CheckOptions) -> Report {
    check_jobs_with(jobs, root, options, &[])
}

/// Checks the jobs of a workspace whose dependencies not read for contracts are `dependency_sources`
/// (see [`crate::workspace::Workspace::dependency_sources`]): contracts files are matched against them too.
pub fn check_jobs_with(jobs: &[FileJob], root: &Path, options: &CheckOptions, dependency_sources: &[(String, PathBuf, PathBuf)]) -> Report {
    // One item summary of the workspace for both phases: a file whose items the index needs
    // (a struct a contract's field path goes through) is parsed once for both.
    let items = WorkspaceItems::of_jobs(jobs);
    let (index, index_findings) = build_index_with(jobs, &items);
    let (mut findings, parsed) = analyze(jobs, &index, &index_findings, &items, options);
    let (unmatched_paths, unmatched): (Vec<Vec<String>>, Vec<Finding>) = unmatched_contracts(jobs, &index, dependency_sources).into_iter().unzip();
    // Contracts that bind a function, but no call of the workspace reaches it (`--verbose`).
    let uncalled: Vec<String> = index
        .uncalled_external()
        .into_iter()
        .filter(|c| !unmatched_paths.contains(&c.path))
        .map(|c| format!("the contract for `{}` ({}) is used by no call in the workspace", c.display_path(), c.file.rel_path))
        .collect();
    findings.extend(unmatched);
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let reported = jobs.iter().filter(|j| j.report);
    let (files, lines) = reported.fold((0, 0), |(n, l), j| (n + 1, l + j.file.line_count()));
    let stats = Stats { files, lines, parsed, contracts: index.fns.len() };
    Report { findings, stats, root: root.to_path_buf(), packages: Vec::new(), warnings: Vec::new(), sources: uncalled }
}

/// A workspace kept in memory between checks (the language server): files can be replaced by
/// editor buffers and re-checked one at a time against the index of the whole workspace.
pub struct Session {
    pub root: PathBuf,
    jobs: Vec<FileJob>,
    /// What each file declares, by workspace-relative path: an edit re-indexes only its own file.
    /// (Ordered, so that the index, and the messages that name candidates, do not vary.)
    decls: BTreeMap<String, FileDecls>,
    index: Arc<Index>,
    index_findings: HashMap<String, Vec<Finding>>,
    /// The last check of each file checked through the session, for the item path of [`Session::edit`].
    checked: HashMap<PathBuf, Checked>,
    /// Counts the changes of the index: a file checked against an older one is checked whole,
    /// unless [`Session::changes`] tell what changed since.
    generation: u64,
    /// Counts the texts the session took that changed a file: each file's findings are of one.
    epoch: u64,
    /// What each of the last [`MAX_CHANGES`] changed texts may change for other files (see
    /// [`Change`]): a file whose text did not change since its last check is checked again
    /// from them ([`Session::refresh`]).
    changes: std::collections::VecDeque<Change>,
    /// The last names [`crate::incremental::named_elsewhere`] was asked about, with its answer:
    /// every open file refreshed after one edit asks the same (forgotten when a text changes:
    /// [`Session::set_text`]).
    elsewhere: Option<(BTreeSet<String>, NamedIn)>,
    /// The functions of the workspace found to hand a parameter on to a kernel's index
    /// ([`crate::rules::Forwarder`]), learned by a check of the workspace when the session opens
    /// and from every check since: a file that calls one of another file is checked as the
    /// command line's later rounds check it.
    forwarders: std::collections::HashSet<String>,
    /// The names the session's files call (see [`WorkspaceItems::may_be_called`]), read once when
    /// it opens and from each text given to it since: names only join it, which costs work, never
    /// a finding.
    called: Arc<std::collections::HashSet<String>>,
    /// A file of at least this many bytes checked whole has its items shared with an analysis
    /// on another thread ([`BackShare`]); `None`: never.
    split_from: Option<usize>,
    /// Whether the two threads take every other item (tests) rather than each the next it can.
    alternate: bool,
    share_worker: Option<ShareWorker>,
}

/// The text from which a whole-file check in the editor pays for a second thread (its own parse
/// of the file, and the file's scope built twice): about a thousand lines.
const SPLIT_FROM_BYTES: usize = 32 << 10;

fn split_from() -> Option<usize> {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1).then_some(SPLIT_FROM_BYTES)
}

/// What the session's files define that depends on some names: each name, with the files (job
/// indices) that define it ([`crate::incremental::named_elsewhere_in`]).
type NamedIn = BTreeMap<String, BTreeSet<usize>>;

/// How many changed texts the session remembers; a file checked before the oldest is checked whole.
const MAX_CHANGES: usize = 256;

/// A text the session took for a file, and what it may change for other files.
struct Change {
    /// The session's epoch after it.
    epoch: u64,
    path: PathBuf,
    /// The names whose meaning may have changed ([`crate::incremental::Rechecked::changed`]);
    /// `None`: not known (a file checked whole), so other files are checked whole.
    names: Option<BTreeSet<String>>,
}

/// What the session kept of the last check of a file (of the last text that parsed, while the
/// file does not).
struct Checked {
    /// The text checked.
    file: FileRef,
    findings: Vec<Finding>,
    /// The top-level items of its parse; empty when it did not parse.
    chunks: Vec<Chunk>,
    /// Its `use` items and the names that shadow its globs, as the index read them.
    uses: UseFacts,
    generation: u64,
    /// The session's epoch when it was checked.
    epoch: u64,
}

type UseFacts = (Vec<crate::index::Reexport>, Vec<crate::index::ModuleItems>);

/// A file's imports and re-exports, and the items of its modules that shadow glob imports: what
/// other files' resolution reads of it.
fn use_facts(text: &str, module: &[String]) -> UseFacts {
    crate::index::scan_use_facts(text, module)
}

/// The findings of an edited file, and how they were found.
pub struct Edit {
    pub findings: Vec<Finding>,
    /// `Some(n)`: only `n` top-level items were checked again (the item path); `None`: the whole file.
    pub items: Option<usize>,
    /// The edit changed what other files' findings depend on (contracts, effects, constants,
    /// imports): open documents must be checked again.
    pub index_changed: bool,
}

impl Session {
    pub fn open(target: &crate::workspace::Target) -> Result<Session, crate::workspace::DiscoverError> {
        let ws = crate::workspace::discover(target)?;
        let jobs = read_jobs(&ws);
        let decls: BTreeMap<String, FileDecls> = collect_decls(&jobs).into_iter().collect();
        let (index, index_findings) = merge_decls(decls.iter(), &WorkspaceItems::of_jobs(&jobs));
        let forwarders = learn_forwarders(&jobs, &index, &index_findings);
        let mut called = std::collections::HashSet::new();
        for j in &jobs {
            called_names(&j.file.text, &mut called);
        }
        Ok(Session { root: ws.root, jobs, decls, index: Arc::new(index), index_findings, checked: HashMap::new(), generation: 0, epoch: 0, changes: Default::default(), elsewhere: None, forwarders, called: Arc::new(called), split_from: split_from(), alternate: false, share_worker: None })
    }

    /// The items of the workspace with `edited` in place of its file, knowing what the session
    /// learned (its forwarders, the names called).
    fn items_with(&self, edited: Option<&FileRef>) -> WorkspaceItems {
        WorkspaceItems::of_jobs_with(&self.jobs, edited).knowing_forwarders(&self.forwarders).knowing_called(self.called.clone())
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    /// From what size (bytes of text) a file checked whole has its items shared with an
    /// analysis on another thread; `None`: one thread always. (The default needs a machine with a
    /// second core: see [`SPLIT_FROM_BYTES`].) Findings are the same either way.
    pub fn split_whole_checks_from(&mut self, bytes: Option<usize>) {
        self.split_from = bytes;
    }

    /// The two threads of a shared check take every other item, whichever is faster
    /// ([`Claims::alternating`]): a partition that does not depend on timing, for the tests.
    #[cfg(test)]
    pub(crate) fn alternate_shares(&mut self) {
        self.alternate = true;
    }

    /// The back of `job`'s items for the other thread, when the file is big enough.
    fn back_share(&mut self, job: &FileJob) -> Option<BackShare> {
        let big = self.split_from.is_some_and(|from| job.file.text.len() >= from);
        if !big || job.external || job.unreadable.is_some() {
            return None;
        }
        if self.share_worker.is_none() {
            self.share_worker = ShareWorker::start();
        }
        let claims = Arc::new(if self.alternate { Claims::alternating() } else { Claims::default() });
        self.share_worker.as_ref()?.back_share(job, claims)
    }

    /// A file with its crate, module and config (the language server resolves calls with them).
    pub fn job(&self, path: &Path) -> Option<&FileJob> {
        self.jobs.iter().find(|j| j.file.path == path)
    }

    pub fn file(&self, path: &Path) -> Option<&FileRef> {
        self.jobs.iter().find(|j| j.file.path == path).map(|j| &j.file)
    }

    /// The findings of a file after an edit (the editor's path): when the session checked the
    /// file's previous text against the current index, only the items the edit can change are
    /// checked again ([`crate::incremental`]); otherwise, or when that reasoning does not cover the
    /// edit, the whole file ([`Session::update`]).
    pub fn edit(&mut self, path: &Path, text: String) -> Edit {
        if let Some(done) = self.edit_items(path, &text) {
            return done;
        }
        let (findings, index_changed) = self.replace(path, text);
        Edit { findings, items: None, index_changed }
    }

    /// The item path of [`Session::edit`]; `None`: check the whole file.
    fn edit_items(&mut self, path: &Path, text: &str) -> Option<Edit> {
        called_names(text, Arc::make_mut(&mut self.called));
        let pos = self.jobs.iter().position(|j| j.file.path == path)?;
        // Other files changed since this one was checked: its findings are brought up to date
        // first, from what they changed.
        if self.checked.get(path).is_some_and(|c| c.epoch < self.epoch && c.file.text == self.jobs[pos].file.text) {
            let refreshed = self.refresh(pos)?;
            if self.jobs[pos].file.text == text {
                return Some(refreshed);
            }
        }
        let job = &self.jobs[pos];
        let prev = self.checked.get(path).filter(|c| c.generation == self.generation)?;
        if prev.file.text == text {
            // Back to the text checked (from one that did not parse, say): the session's copy too.
            let (file, findings) = (prev.file.clone(), prev.findings.clone());
            self.set_text(pos, file);
            return Some(Edit { findings, items: Some(0), index_changed: false });
        }
        let new: FileRef = Arc::new(SourceFile::new(path.to_path_buf(), job.file.rel_path.clone(), text.to_string()));
        // A changed import, or a changed name that shadows a glob, changes the index: read again
        // from the text when the file declares no contract or effect (those need a parse).
        let uses = if job.external { UseFacts::default() } else { use_facts(text, &job.module) };
        let imports_changed = uses != prev.uses;
        let items = self.items_with(Some(&new));
        let reindexed = if imports_changed {
            if job.external {
                return None;
            }
            if declares(&prev.file.text) || declares(text) {
                return self.edit_declarations(pos, new, uses);
            }
            let mut decls = self.decls.clone();
            match file_decls(&FileJob { file: new.clone(), ..job.clone() }) {
                Some(d) => decls.insert(job.file.rel_path.clone(), d),
                None => decls.remove(&job.file.rel_path),
            };
            let (index, index_findings) = merge_decls(decls.iter(), &items);
            Some((decls, index, index_findings))
        } else {
            None
        };
        let (index, index_findings) = match &reindexed {
            Some((_, index, findings)) => (index, findings),
            None => (&*self.index, &self.index_findings),
        };
        let index_findings = index_findings.get(&job.file.rel_path).map_or(&[][..], Vec::as_slice);
        let previous = crate::incremental::Previous { file: &prev.file, findings: &prev.findings, chunks: &prev.chunks, index_findings };
        // A bug in this path costs the shortcut, not the check: the whole file is checked instead.
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::incremental::recheck(&previous, &new, job, index, &items, None))).ok().flatten();
        let Some(done) = done else {
            return if reindexed.is_none() { self.edit_declarations(pos, new, uses) } else { None };
        };
        self.forwarders.extend(items.forwarder_names());
        let old = prev.file.clone();
        self.set_text(pos, new.clone());
        if let Some((decls, index, index_findings)) = reindexed {
            (self.decls, self.index, self.index_findings) = (decls, Arc::new(index), index_findings);
            self.generation += 1;
        } else if may_declare(&old.text) {
            // The index holds positions in this file (none in the items checked again): they move
            // with the edit, and the findings of other files computed before do not.
            let (old_edit, _) = crate::incremental::edited(&old.text, &new.text);
            self.shift_decls(&new, old_edit.end, new.text.len() as isize - old.text.len() as isize);
        }
        // An import of a file that declares nothing changes how other files resolve through it:
        // what, is not followed here.
        self.log_change(path, (!imports_changed).then_some(done.changed));
        let findings = done.findings.clone();
        self.checked.insert(path.to_path_buf(), Checked { file: new, findings: done.findings, chunks: done.chunks, uses, generation: self.generation, epoch: self.epoch });
        Some(Edit { findings, items: Some(done.items), index_changed: imports_changed })
    }

    /// The item path for an edit of what a file declares (a contract, an effect, a struct a
    /// contract names, a constant, an import of a declaring file): the file is indexed again
    /// from a parse of its declaring items, and only the items that name what the edited items declare, or what
    /// depends on it here or in other files (`incremental::Reindexed`), and those linked to
    /// them, are checked against the new index. `None`: check the whole file.
    fn edit_declarations(&mut self, pos: usize, new: FileRef, uses: UseFacts) -> Option<Edit> {
        let job = FileJob { file: new.clone(), ..self.jobs[pos].clone() };
        let prev = self.checked.get(&job.file.path).filter(|c| c.generation == self.generation)?;
        let old = prev.file.clone();
        if job.external || !(declares(&old.text) || declares(&new.text)) {
            return None;
        }
        // Only the items that can declare something are parsed (the others blanked, offsets
        // kept): the index reads nothing else of a file.
        let declaring = crate::incremental::declarations_only(&old.text, &new.text, &prev.chunks).map(|text| SourceFile::new(new.path.clone(), new.rel_path.clone(), text));
        let parsed = match declaring.as_ref().map(SourceFile::parse) {
            Some(Ok(ast)) => Ok(ast),
            _ => job.file.parse(),
        };
        let Ok(ast) = &parsed else {
            forget_spans();
            return None;
        };
        let mut decls = self.decls.clone();
        decls.insert(job.file.rel_path.clone(), with_file_facts(&job, index_file(&job.file, ast, &job.module, false)));
        drop(parsed);
        forget_spans();
        let items = self.items_with(Some(&new));
        let (index, index_findings) = merge_decls(decls.iter(), &items);
        let found = index_findings.get(&job.file.rel_path).map_or(&[][..], Vec::as_slice);
        let old_found = self.index_findings.get(&job.file.rel_path).map_or(&[][..], Vec::as_slice);
        let previous = crate::incremental::Previous { file: &prev.file, findings: &prev.findings, chunks: &prev.chunks, index_findings: old_found };
        let others: Vec<&str> = self.jobs.iter().filter(|j| j.file.path != job.file.path).map(|j| j.file.text.as_str()).collect();
        let elsewhere = |names: &std::collections::BTreeSet<String>| crate::incremental::named_elsewhere(&others, names);
        let reindexed = crate::incremental::Reindexed { findings: found, elsewhere: &elsewhere };
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::incremental::recheck(&previous, &new, &job, &index, &items, Some(reindexed)))).ok().flatten()?;
        self.forwarders.extend(items.forwarder_names());
        self.set_text(pos, new.clone());
        (self.decls, self.index, self.index_findings) = (decls, Arc::new(index), index_findings);
        self.generation += 1;
        self.log_change(&job.file.path, Some(done.changed));
        let findings = done.findings.clone();
        self.checked.insert(job.file.path.clone(), Checked { file: new, findings: done.findings, chunks: done.chunks, uses, generation: self.generation, epoch: self.epoch });
        // What other files see of this one may have changed: its contracts, effects, index fields.
        Some(Edit { findings, items: Some(done.items), index_changed: true })
    }

    /// Replaces (or adds) a file's text and returns its findings, from a check of the whole file.
    /// The index is rebuilt only when the old or the new text can declare contracts, effects or
    /// constants (a changed contract changes its callers), and then only this file is re-read for it.
    pub fn update(&mut self, path: &Path, text: String) -> Vec<Finding> {
        self.replace(path, text).0
    }

    /// [`Session::update`], and whether other files' findings may have changed.
    fn replace(&mut self, path: &Path, text: String) -> (Vec<Finding>, bool) {
        let pos = match self.jobs.iter().position(|j| j.file.path == path) {
            Some(p) => p,
            None => {
                let (crate_name, module, config) = self.placement(path);
                let rel = rel_path(&self.root, path);
                self.jobs.push(FileJob { file: Arc::new(SourceFile::new(path.to_path_buf(), rel, String::new())), crate_name, module, config, external: false, unreadable: None, report: true, reach: None, renames: Arc::default() });
                self.jobs.len() - 1
            }
        };
        let old = &self.jobs[pos];
        // An edit that changes no `use` item (nor the names shadowing a glob) leaves the index as is.
        let uses = if old.external { UseFacts::default() } else { use_facts(&text, &old.module) };
        let uses_changed = !old.external && use_facts(&old.file.text, &old.module) != uses;
        // The same text (a file opened, or checked again after another file's edit) declares
        // what the index holds of it already: a new index would only make every other file's
        // next check a whole one.
        let same = old.file.text == text && old.unreadable.is_none();
        let reindex = !same && (may_declare(&old.file.text) || may_declare(&text) || uses_changed);
        // What other files see of this one: its contracts and effects, its constants, its imports.
        let others_see = reindex
            && (declares(&old.file.text) || declares(&text) || uses_changed || crate::index::scan_int_consts(&old.file.text) != crate::index::scan_int_consts(&text));
        called_names(&text, Arc::make_mut(&mut self.called));
        let file = Arc::new(SourceFile::new(path.to_path_buf(), old.file.rel_path.clone(), text));
        self.set_text(pos, file);
        self.jobs[pos].unreadable = None;
        // A changed text checked whole changes for other files what is not known here; one that
        // does not parse, nothing: they keep what they found with its last text that did.
        let parses = |findings: &[Finding]| !findings.iter().any(|f| f.rule.name == reuse_rules::catalogue::PARSE_ERROR.name);
        if !reindex {
            let findings = self.check_recorded(pos, uses);
            if !same && parses(&findings) {
                self.log_change(path, None);
            }
            return (findings, false);
        }
        // The file is parsed once, for its declarations and for its findings.
        let job = self.jobs[pos].clone();
        let declaring = job.external || declares(&job.file.text);
        let back = declaring.then(|| self.back_share(&job)).flatten();
        let parsed = declaring.then(|| job.file.parse());
        // A declaring file whose text does not parse (a bracket typed, not yet closed) keeps the
        // declarations of its last text that parsed: other files keep their findings, and the
        // edit that repairs it takes the item path from that text.
        if let (Some(Err(e)), false) = (&parsed, job.external) {
            if self.checked.get(&job.file.path).is_some_and(|c| c.generation == self.generation && !c.chunks.is_empty()) {
                let findings = finish(&job, vec![parse_error(&job, e)]);
                drop(parsed);
                forget_spans();
                return (findings, false);
            }
        }
        let decls = match &parsed {
            Some(Ok(ast)) => Some(with_file_facts(&job, index_file(&job.file, ast, &job.module, job.external))),
            Some(Err(e)) => Some(with_file_facts(&job, FileDecls { findings: vec![parse_error(&job, e)], ..Default::default() })),
            None => file_decls(&job),
        };
        match decls {
            Some(d) => self.decls.insert(job.file.rel_path.clone(), d),
            None => self.decls.remove(&job.file.rel_path),
        };
        let (index, index_findings) = merge_decls(self.decls.iter(), &self.items());
        self.index = Arc::new(index);
        self.index_findings = index_findings;
        self.generation += 1;
        let findings = match &parsed {
            Some(p) => {
                let items = Arc::new(self.items());
                let back = back.and_then(|b| b.analyse_with(&self.index, &items));
                // Before the analysis: the other thread claims more items meanwhile.
                let chunks = p.as_ref().ok().and_then(|ast| chunks_of(&job.file, ast)).unwrap_or_default();
                let mut findings = check_ast(&job, p.as_ref(), &self.index, &items, &self.index_findings, back);
                self.forwarders.extend(items.forwarder_names());
                crate::finding::in_output_order(&mut findings);
                self.record(&job, findings, chunks, uses)
            }
            None => self.check_recorded(pos, uses),
        };
        drop(parsed);
        forget_spans();
        if parses(&findings) {
            self.log_change(path, None);
        }
        (findings, others_see)
    }

    /// Gives job `pos` the text `file`: what other files' texts define, asked of them
    /// ([`Session::named_or_depending`]), is to be read again.
    fn set_text(&mut self, pos: usize, file: FileRef) {
        self.jobs[pos].file = file;
        self.elsewhere = None;
    }

    /// Takes note of a changed text of `path` (see [`Change`]); the file's own last check is of it.
    fn log_change(&mut self, path: &Path, names: Option<BTreeSet<String>>) {
        self.epoch += 1;
        if self.changes.len() == MAX_CHANGES {
            self.changes.pop_front();
        }
        self.changes.push_back(Change { epoch: self.epoch, path: path.to_path_buf(), names });
        if let Some(c) = self.checked.get_mut(path) {
            c.epoch = self.epoch;
        }
    }

    /// The findings of the file of job `pos`, whose text did not change since its last check,
    /// after other files changed: the items that name what they changed, or that depends on it
    /// in other files ([`crate::incremental::named_elsewhere`]), are checked again
    /// ([`crate::incremental::refresh`]). `None`: check it whole (a change whose effect is not
    /// known, a file that declares, one checked before the changes remembered).
    fn refresh(&mut self, pos: usize) -> Option<Edit> {
        let job = self.jobs[pos].clone();
        let prev = self.checked.get(&job.file.path)?;
        if prev.file.text != job.file.text || may_declare(&job.file.text) || self.changes.front().is_some_and(|c| c.epoch > prev.epoch + 1) {
            return None;
        }
        let since: Vec<&Change> = self.changes.iter().filter(|c| c.epoch > prev.epoch && c.path != job.file.path).collect();
        if since.is_empty() && prev.generation != self.generation {
            return None;
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        for c in &since {
            names.extend(c.names.as_ref()?.iter().cloned());
        }
        let files: Vec<PathBuf> = since.iter().map(|c| c.path.clone()).collect();
        let names = self.named_or_depending(names, pos);
        let prev = self.checked.get(&job.file.path)?;
        let previous = crate::incremental::Previous { file: &prev.file, findings: &prev.findings, chunks: &prev.chunks, index_findings: &[] };
        let items = self.items();
        let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        let index_findings = self.index_findings.get(&job.file.rel_path).map_or(&[][..], Vec::as_slice);
        // A bug in this path costs the shortcut, not the check: the whole file is checked instead.
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::incremental::refresh(&previous, &job, &self.index, &items, &names, &files, index_findings))).ok().flatten()?;
        self.forwarders.extend(items.forwarder_names());
        let uses = prev.uses.clone();
        let findings = done.findings.clone();
        self.checked.insert(job.file.path.clone(), Checked { file: job.file.clone(), findings: done.findings, chunks: done.chunks, uses, generation: self.generation, epoch: self.epoch });
        Some(Edit { findings, items: Some(done.items), index_changed: false })
    }

    /// `names`, with what the session's files other than the one of job `pos` define that
    /// depends on one of them ([`crate::incremental::named_elsewhere_in`]; the file's own items
    /// that do are linked by its check); asked again about the same names, the last answer.
    fn named_or_depending(&mut self, names: BTreeSet<String>, pos: usize) -> BTreeSet<String> {
        if names.is_empty() {
            return names;
        }
        if self.elsewhere.as_ref().is_none_or(|(asked, _)| *asked != names) {
            let texts: Vec<&str> = self.jobs.iter().map(|j| j.file.text.as_str()).collect();
            let answer = crate::incremental::named_elsewhere_in(&texts, &names);
            self.elsewhere = Some((names.clone(), answer));
        }
        let Some((_, answer)) = &self.elsewhere else { return names };
        let mut out = names;
        out.extend(answer.iter().filter(|(_, files)| files.iter().any(|&i| i != pos)).map(|(n, _)| n.clone()));
        out
    }

    /// Checks the file of job `pos` whole and keeps what the item path needs.
    fn check_recorded(&mut self, pos: usize, uses: UseFacts) -> Vec<Finding> {
        let job = self.jobs[pos].clone();
        let items = Arc::new(self.items());
        let back = self.back_share(&job).and_then(|b| b.analyse_with(&self.index, &items));
        let (mut findings, chunks) = check_parsed_with(&job, &self.index, &items, &self.index_findings, true, back);
        self.forwarders.extend(items.forwarder_names());
        crate::finding::in_output_order(&mut findings);
        self.record(&job, findings, chunks, uses)
    }

    fn record(&mut self, job: &FileJob, findings: Vec<Finding>, chunks: Vec<Chunk>, uses: UseFacts) -> Vec<Finding> {
        // Text that does not parse (a bracket typed, not yet closed) leaves the last text that
        // parsed as the base of the next edit, while the index is the same: the edit that repairs
        // it takes the item path from there.
        let keep_base = chunks.is_empty() && self.checked.get(&job.file.path).is_some_and(|c| c.generation == self.generation && !c.chunks.is_empty());
        if !keep_base {
            let checked = Checked { file: job.file.clone(), findings: findings.clone(), chunks, uses, generation: self.generation, epoch: self.epoch };
            self.checked.insert(job.file.path.clone(), checked);
        }
        findings
    }

    /// Moves the index entries of a file with an edit (at byte `from`, growing it by `delta`) that
    /// changed no declaration.
    fn shift_decls(&mut self, text: &FileRef, from: usize, delta: isize) {
        if let Some(d) = self.decls.get_mut(&text.rel_path) {
            *d = d.shifted(text, from, delta);
            let (index, index_findings) = merge_decls(self.decls.iter(), &self.items());
            self.index = Arc::new(index);
            self.index_findings = index_findings;
            self.generation += 1;
        }
    }

    /// Findings of one file as it is now, from a check of the whole file.
    pub fn check_file(&mut self, path: &Path) -> Vec<Finding> {
        let Some(pos) = self.jobs.iter().position(|j| j.file.path == path) else { return Vec::new() };
        let job = &self.jobs[pos];
        let uses = if job.external { UseFacts::default() } else { use_facts(&job.file.text, &job.module) };
        self.check_recorded(pos, uses)
    }

    /// What the call or the attribute under the cursor is, in `text` (the editor's current text
    /// of `path`), resolved as the rules resolve it: the editor and the command line never resolve
    /// a call differently.
    pub fn hover_at(&self, path: &Path, text: &str, offset: usize) -> Option<crate::analysis::HoverAt<'_>> {
        let (crate_name, module, rel) = match self.job(path) {
            Some(j) => (j.crate_name.clone(), j.module.clone(), j.file.rel_path.clone()),
            None => ("crate".to_string(), vec!["crate".to_string()], rel_path(&self.root, path)),
        };
        let file: FileRef = Arc::new(SourceFile::new(path.to_path_buf(), rel, text.to_string()));
        crate::analysis::hover_at(&file, &crate_name, &module, &self.index, &WorkspaceItems::of_jobs_with(&self.jobs, Some(&file)), offset)
    }

    /// The items of the workspace as the session holds it now, for one check (their summaries
    /// are of these texts: a later edit needs new ones), with the forwarders known.
    pub fn items(&self) -> WorkspaceItems {
        self.items_with(None)
    }

    /// Crate, module and config for a file the session did not know (a new file in the editor).
    fn placement(&self, path: &Path) -> (String, Vec<String>, Arc<Config>) {
        let sibling = self.jobs.iter().filter(|j| !j.external).max_by_key(|j| {
            j.file.path.components().zip(path.components()).take_while(|(a, b)| a == b).count()
        });
        match sibling {
            Some(j) => (j.crate_name.clone(), vec![j.crate_name.clone()], j.config.clone()),
            None => ("crate".into(), vec!["crate".into()], Arc::new(Config::default())),
        }
    }

    pub fn check_all(&self) -> Report {
        check_jobs(&self.jobs, &self.root, &CheckOptions::default())
    }
}

/// The forwarders of a workspace ([`Session::forwarders`]): the analysis of a check, its findings
/// left unused, when some kernel skips a sentinel (none can be found otherwise).
fn learn_forwarders(jobs: &[FileJob], index: &Index, index_findings: &HashMap<String, Vec<Finding>>) -> std::collections::HashSet<String> {
    if !index.fns.iter().any(crate::rules::checks_index_entries) {
        return Default::default();
    }
    let items = WorkspaceItems::of_jobs(jobs);
    analyze(jobs, index, index_findings, &items, &CheckOptions::default());
    items.forwarder_names()
}

/// The top-level items of a parsed file (see [`crate::incremental::Chunk`]).
fn chunks_of(file: &FileRef, ast: &syn::File) -> Option<Vec<Chunk>> {
    crate::incremental::chunks(&ast.items, &|s| file.range(s), 0, file.text.len())
}

/// Contracts of contracts files that bind no function: their crate (the first segment) is no crate
/// of the workspace or of its dependencies, or has no function at that path. Only files that
/// mention a contracted name are parsed for it.
fn unmatched_contracts(jobs: &[FileJob], index: &Index, dependency_sources: &[(String, PathBuf, PathBuf)]) -> Vec<(Vec<String>, Finding)> {
    let external: Vec<&crate::index::ContractedFn> = index.fns.iter().filter(|c| c.external && c.path.len() > 1).collect();
    if external.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = external.iter().map(|c| c.name.as_str()).collect();
    let mentions = AhoCorasick::new(&names).expect("plain string patterns");
    // Files to look in, with their module path (crate name first).
    let mut files: Vec<(FileRef, Vec<String>)> = jobs
        .iter()
        .filter(|j| !j.external && j.unreadable.is_none() && mentions.is_match(&j.file.text))
        .map(|j| (j.file.clone(), j.module.clone()))
        .collect();
    let crates: std::collections::HashSet<&str> = jobs.iter().filter(|j| !j.external).map(|j| j.crate_name.as_str()).collect();
    let mut known_crates: std::collections::HashSet<String> = crates.iter().map(|c| c.to_string()).collect();
    for (name, dir, src) in dependency_sources {
        known_crates.insert(name.clone());
        if !external.iter().any(|c| c.path[0] == *name) {
            continue;
        }
        for path in crate::workspace::rust_files_of(src) {
            let Ok(text) = read_source(&path) else { continue };
            if mentions.is_match(&text) {
                let mut module = vec![name.clone()];
                module.extend(module_path(dir, &path));
                files.push((Arc::new(SourceFile::new(path.clone(), path.display().to_string(), text)), module));
            }
        }
    }
    let defined: std::collections::HashSet<Vec<String>> = files
        .par_iter()
        .flat_map_iter(|(file, module)| {
            let mut paths = Vec::new();
            if let Ok(ast) = file.parse() {
                let imports = crate::analysis::imports_by_module(&ast.items, &module[0], module);
                let none = crate::resolve::Imports::default();
                reuse_rules::external::walk_fns(&ast.items, &mut |f| {
                    let mut m = module.clone();
                    m.extend(f.modules.iter().cloned());
                    paths.push(crate::analysis::definition_path(&m, imports.get(f.modules).unwrap_or(&none), f.self_type, &f.sig.ident));
                });
            }
            forget_spans();
            paths
        })
        .collect();
    external
        .into_iter()
        .filter(|c| !defined.contains(&c.path))
        .map(|c| {
            let krate = &c.path[0];
            let why = if known_crates.contains(krate) {
                format!("`{krate}` has no function at this path")
            } else {
                format!("there is no crate `{krate}` in the workspace or its dependencies")
            };
            let finding = Finding::new(
                &reuse_rules::catalogue::UNMATCHED_CONTRACT,
                format!("the contract for `{}` matches no function: {why}", c.display_path()),
                Label::new(&c.file, c.attr_range.clone(), "binds nothing"),
            )
            .with_help("write the function's definition path as nested `mod` blocks: the crate (`-` as `_`), its modules, the `impl` type of a method");
            (c.path.clone(), finding)
        })
        .collect()
}

/// Phase 1: the index, and the well-formedness findings of each file (by workspace-relative path).
pub fn build_index(jobs: &[FileJob]) -> (Index, HashMap<String, Vec<Finding>>) {
    build_index_with(jobs, &WorkspaceItems::of_jobs(jobs))
}

/// [`build_index`] with the workspace's items built already (shared with the analysis).
fn build_index_with(jobs: &[FileJob], items: &WorkspaceItems) -> (Index, HashMap<String, Vec<Finding>>) {
    let decls = collect_decls(jobs);
    merge_decls(decls.iter().map(|(rel, d)| (rel, d)), items)
}

/// Whether a text can declare contracts or effects (the byte prefilter of phase 1).
pub fn declares(text: &str) -> bool {
    DECL_MARKERS.iter().any(|m| text.contains(m))
}

/// Whether a text can declare anything the index holds: contracts, effects or constants.
pub fn may_declare(text: &str) -> bool {
    declares(text) || text.contains("const ") || text.contains("static ")
}

/// What each file declares (in parallel), by workspace-relative path.
fn collect_decls(jobs: &[FileJob]) -> Vec<(String, FileDecls)> {
    jobs.par_iter().filter_map(|j| Some((j.file.rel_path.clone(), file_decls(j)?))).collect()
}

/// What one file declares: files with contract or effect markers are parsed, the others only
/// scanned for integer constants and `use` items. `None`: nothing to declare.
fn file_decls(j: &FileJob) -> Option<FileDecls> {
    let decls = parsed_decls(j);
    let uses = !j.external && uses_something(&j.file.text);
    (decls.is_some() || uses).then(|| with_file_facts(j, decls.unwrap_or_default()))
}

/// What a file declares that needs more than a scan of its text (or its constants, scanned).
fn parsed_decls(j: &FileJob) -> Option<FileDecls> {
    if let Some(reason) = &j.unreadable {
        return Some(FileDecls { findings: vec![unreadable(j, reason)], ..Default::default() });
    }
    if !j.external && !may_declare(&j.file.text) {
        return None;
    }
    if !j.external && !declares(&j.file.text) {
        let consts = crate::index::scan_int_consts(&j.file.text);
        let const_names = crate::index::scan_const_names(&j.file.text);
        return Some(FileDecls { consts, const_names, ..Default::default() });
    }
    let decls = match j.file.parse() {
        Ok(ast) => index_file(&j.file, &ast, &j.module, j.external),
        Err(e) => FileDecls { findings: vec![parse_error(j, &e)], ..Default::default() },
    };
    forget_spans();
    Some(decls)
}

/// What every file's declarations carry besides what was parsed: the crate they belong to (its
/// constants are that crate's), its `use` items (re-exports and top-level imports) and, when it
/// glob-imports, the names it defines that shadow the globs; read without parsing the file.
fn with_file_facts(j: &FileJob, mut decls: FileDecls) -> FileDecls {
    decls.krate = j.module.first().cloned();
    if !j.external && uses_something(&j.file.text) {
        (decls.reexports, decls.items) = crate::index::scan_use_facts(&j.file.text, &j.module);
    }
    decls
}

/// Whether a text may hold a `use` or `extern crate` item (the prefilter for imports and
/// re-exports).
pub fn uses_something(text: &str) -> bool {
    text.contains("use ") || text.contains("use\t") || text.contains("extern crate")
}

/// The index of all files' declarations, and the well-formedness findings of each file.
fn merge_decls<'a>(decls: impl Iterator<Item = (&'a String, &'a FileDecls)>, items: &WorkspaceItems) -> (Index, HashMap<String, Vec<Finding>>) {
    let mut index = Index::default();
    index.crate_renames = items.crate_renames.clone();
    let mut findings: HashMap<String, Vec<Finding>> = HashMap::new();
    for (rel, d) in decls {
        findings.entry(rel.clone()).or_default().extend(d.findings.iter().cloned());
        index.add(d.clone());
    }
    // Names only the whole workspace can resolve: sanctioned writers, constants, paths.
    let misspelled = index.misspelled_effects(items);
    for (rel, f) in index.unresolved_names().into_iter().chain(index.unresolved_paths(items)).chain(misspelled) {
        findings.entry(rel).or_default().push(f);
    }
    (index, findings)
}

/// A file that did not parse. A contracts file that does not parse is an error (`contract_syntax`):
/// all the contracts it holds would otherwise be dropped while the run stays green.
fn parse_error(j: &FileJob, e: &ParseFailure) -> Finding {
    let file = &j.file;
    let (rule, what) = if j.external { (&CONTRACT_SYNTAX, "this contracts file") } else { (&PARSE_ERROR, "this file") };
    let label = match e {
        ParseFailure::Syntax(_) => "syntax error here",
        ParseFailure::TooDeep { .. } => "too deep from here",
    };
    Finding::new(rule, format!("{what} does not parse: {}", file.describe_failure(e)), Label::new(file, file.failure_range(e), label))
        .with_help("its contracts and calls are not checked until it parses; the rest of the workspace is")
}

fn unreadable(j: &FileJob, reason: &str) -> Finding {
    Finding::new(&UNREADABLE_FILE, format!("`{}` could not be read: {reason}", j.file.rel_path), Label::new(&j.file, 0..0, "not checked"))
        .with_help("nothing in it was checked; make it readable or exclude it in the configuration")
}

/// The spans of files parsed on this thread are not needed any more (all positions are byte
/// ranges by now): free proc_macro2's thread-local source map so long sessions do not grow.
fn forget_spans() {
    crate::source::invalidate_spans();
}

/// Phases 2 and 3.
fn analyze(jobs: &[FileJob], index: &Index, index_findings: &HashMap<String, Vec<Finding>>, items: &WorkspaceItems, options: &CheckOptions) -> (Vec<Finding>, usize) {
    let filter = AnalysisFilter::new(index);
    let through_macros = MacroFilter::new(jobs, items, |j| filter.wants(j));
    let mut per_file: Vec<(Vec<Finding>, bool)> = jobs
        .par_iter()
        .map(|j| {
            // Read for its contracts only: never analysed, never reported on.
            if !j.report {
                return (Vec::new(), false);
            }
            let parsed = options.all_files || filter.wants(j) || through_macros.wants(j);
            let findings = if parsed { check_parsed(j, index, items, index_findings) } else { finish(j, index_findings_for(index_findings, &j.file.rel_path)) };
            (findings, parsed)
        })
        .collect();
    // Functions that hand a parameter on to a kernel's index were found in the files analysed:
    // the files that call them are analysed next (a runner that pads and calls `layer.forward`
    // names no kernel; one analysed already, again, now that the names are known), and so on
    // for those they turn out to hand it on to, a few rounds deep. Each round reads only the
    // names known before it, so the findings do not depend on which thread came first.
    let mut seen = 0;
    for _ in 0..crate::dataflow::MAX_SUMMARY_DEPTH {
        let forwarders = items.new_forwarders(&mut seen);
        if forwarders.is_empty() {
            break;
        }
        let filter = AnalysisFilter::of_forwarders(&forwarders, index);
        let through_macros = MacroFilter::new(jobs, items, |j| filter.wants(j));
        let next: Vec<(usize, Vec<Finding>)> = jobs
            .par_iter()
            .enumerate()
            .filter(|(_, j)| j.report && (filter.wants(j) || through_macros.wants(j)))
            .map(|(i, j)| (i, check_parsed(j, index, items, index_findings)))
            .collect();
        for (i, findings) in next {
            per_file[i] = (findings, true);
        }
    }
    let parsed = per_file.iter().filter(|(_, p)| *p).count();
    let mut all: Vec<Finding> = per_file.into_iter().flat_map(|(f, _)| f).collect();
    crate::finding::in_output_order(&mut all);
    (all, parsed)
}

/// What makes a file worth parsing in phase 2: a call of a contracted function or an effect that
/// the file's crate can reach, or a declaration or suppression marker. A name that appears only
/// as a word elsewhere (a module `mod launch;`, a `use` line, a longer identifier, a method of a
/// crate the file cannot reach) does not.
struct AnalysisFilter {
    automaton: AhoCorasick,
    /// Per pattern: `None` for markers, else the crates that declare the name (`None` inside:
    /// any crate, for effects and contracts files).
    owners: Vec<Option<Vec<Option<String>>>>,
    /// Per pattern: every function of the name is a free function (no `self`), so `x.name(..)`,
    /// method-call syntax, cannot call it: in a crate where `launch` is a contracted kernel,
    /// `layer.launch()` on a type of its own needs no parse.
    free_only: Vec<bool>,
    /// The functions a contracts file gives contracts, by definition path and name: the file
    /// that defines one has its body checked as if the attribute stood there, though it may
    /// call nothing contracted (a vendored kernel that writes an undeclared buffer).
    external: Vec<(Vec<String>, String)>,
    /// The names of trait methods with a contract: a file that defines a function of one of
    /// these names may implement the trait, and the contract holds for that body too.
    trait_methods: Vec<String>,
}

impl AnalysisFilter {
    fn new(index: &Index) -> AnalysisFilter {
        let names = index.interesting_names();
        let mut owners: Vec<Option<Vec<Option<String>>>> = names
            .iter()
            .map(|n| {
                let declared = index.candidates(n).map(|c| (!c.external).then(|| c.path[0].clone()));
                let any = index.is_effect(n) || !index.candidates(n).any(|_| true);
                Some(declared.chain(any.then_some(None)).collect())
            })
            .collect();
        let mut free_only: Vec<bool> = names.iter().map(|n| !index.is_effect(n) && index.candidates(n).any(|_| true) && index.candidates(n).all(|c| !c.has_receiver)).collect();
        let mut patterns = names;
        // Second names given by re-exports (`pub use ops::write as cache_kv;`): a file that calls
        // `cache_kv` through a glob import never writes `write`.
        for (alias, krate) in index.renamed_reexports(&patterns) {
            if !patterns.contains(&alias) {
                patterns.push(alias);
                owners.push(Some(vec![Some(krate)]));
                // A re-export names a free function (methods are not re-exported).
                free_only.push(true);
            }
        }
        // A file that names an index field (or, for a tuple field, its struct) may build or
        // change it: `pad_to_null_block` checks it there.
        for f in &index.index_fields {
            let name = if f.field.starts_with(|c: char| c.is_ascii_digit()) { &f.type_name } else { &f.field };
            if !patterns.contains(name) {
                patterns.push(name.clone());
                owners.push(None);
                free_only.push(false);
            }
        }
        for m in SUPPRESSION_MARKERS.iter().chain(DECL_MARKERS) {
            patterns.push(m.to_string());
            owners.push(None);
            free_only.push(false);
        }
        let automaton = AhoCorasick::builder().build(&patterns).expect("plain string patterns");
        let external = index.fns.iter().filter(|f| f.external).map(|f| (f.path.clone(), f.name.clone())).collect();
        let mut trait_methods: Vec<String> = index.fns.iter().filter(|f| f.in_trait && !f.external).map(|f| f.name.clone()).collect();
        trait_methods.sort_unstable();
        trait_methods.dedup();
        AnalysisFilter { automaton, owners, free_only, external, trait_methods }
    }

    /// A filter for the files that call these functions ([`crate::rules::Forwarder`]).
    /// Also by the second names re-exports give them (`pub use rows::write_row as put_row;`).
    fn of_forwarders(forwarders: &[crate::rules::Forwarder], index: &Index) -> AnalysisFilter {
        let names: Vec<String> = forwarders.iter().map(|f| f.name.clone()).collect();
        let renamed = index.renamed_reexports(&names);
        let patterns: Vec<&str> = names.iter().map(String::as_str).chain(renamed.iter().map(|(name, _)| name.as_str())).collect();
        let owners = forwarders.iter().map(|f| Some(vec![Some(f.krate.clone())])).chain(renamed.iter().map(|(_, krate)| Some(vec![Some(krate.clone())]))).collect();
        let free_only = forwarders.iter().map(|f| !f.method).chain(renamed.iter().map(|_| true)).collect();
        let automaton = AhoCorasick::builder().build(&patterns).expect("plain string patterns");
        AnalysisFilter { automaton, owners, free_only, external: Vec::new(), trait_methods: Vec::new() }
    }

    fn wants(&self, j: &FileJob) -> bool {
        // The file's `fn` names are read only where a contracts-file function lives in its module,
        // or where it may implement a trait (a contracted trait method's name).
        let mut names: Option<std::collections::HashSet<&str>> = None;
        let externals = self.external.iter().filter(|(path, _)| path.starts_with(&j.module)).map(|(_, name)| name);
        let implementable = if !self.trait_methods.is_empty() && j.file.text.contains("impl") { &self.trait_methods[..] } else { &[] };
        for name in externals.chain(implementable) {
            if names.get_or_insert_with(|| crate::items::fn_names(&j.file.text).collect()).contains(name.as_str()) {
                return true;
            }
        }
        let text = j.file.text.as_bytes();
        self.automaton.find_overlapping_iter(&j.file.text).any(|m| {
            let Some(owners) = &self.owners[m.pattern().as_usize()] else { return true };
            let word = whole_word(text, m.start(), m.end());
            let reachable = match &j.reach {
                None => true,
                Some(reach) => owners.iter().any(|o| o.as_ref().is_none_or(|c| reach.contains(c))),
            };
            let method_syntax = || {
                let before = j.file.text[..m.start()].trim_end();
                before.ends_with('.') && !before.ends_with("..")
            };
            word && reachable && call_like(&j.file.text, m.start(), m.end()) && !(self.free_only[m.pattern().as_usize()] && method_syntax())
        })
    }
}

/// What makes a file worth parsing for the macros of its crate: a call (`launch!(..)`) of a
/// `macro_rules!` that another file of the crate defines and whose definition's file calls
/// what [`AnalysisFilter`] looks for (or such a macro, a few deep): the checker expands it
/// there ([`crate::macros::FileMacros::resolve_foreign`]).
struct MacroFilter {
    /// The names of such macros, with their crates.
    macros: Vec<(String, String)>,
    automaton: Option<AhoCorasick>,
}

impl MacroFilter {
    fn new(jobs: &[FileJob], items: &WorkspaceItems, wants: impl Fn(&FileJob) -> bool) -> MacroFilter {
        let defining: Vec<&FileJob> = jobs.iter().filter(|j| !j.external && memchr::memmem::find(j.file.text.as_bytes(), b"macro_rules").is_some()).collect();
        let mut taken = vec![false; defining.len()];
        let mut filter = MacroFilter { macros: Vec::new(), automaton: None };
        for _ in 0..crate::macros::MAX_EXPANSION_DEPTH {
            let mut added = false;
            for (i, j) in defining.iter().enumerate() {
                if taken[i] || !(wants(j) || filter.wants(j)) {
                    continue;
                }
                taken[i] = true;
                for name in items.macros_defined_in(&j.file.path, &j.module) {
                    filter.macros.push((name, j.crate_name.clone()));
                    added = true;
                }
            }
            if !added {
                break;
            }
            filter.automaton = AhoCorasick::builder().build(filter.macros.iter().map(|(name, _)| name)).ok();
        }
        filter
    }

    fn wants(&self, j: &FileJob) -> bool {
        let Some(automaton) = &self.automaton else { return false };
        let text = j.file.text.as_bytes();
        automaton.find_overlapping_iter(&j.file.text).any(|m| self.macros[m.pattern().as_usize()].1 == j.crate_name && whole_word(text, m.start(), m.end()) && j.file.text[m.end()..].trim_start().starts_with('!'))
    }
}

/// The names `text` calls, or may call under another name ([`call_like`]).
pub(crate) fn called_names(text: &str, out: &mut std::collections::HashSet<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphabetic() || b[i] == b'_') || (i > 0 && is_ident_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        let end = i + b[i..].iter().position(|&c| !is_ident_byte(c)).unwrap_or(b.len() - i);
        if call_like(text, i, end) && !out.contains(&text[i..end]) {
            out.insert(text[i..end].to_string());
        }
        i = end;
    }
}

/// Whether `text` calls `name`, or may call it under another name ([`call_like`]); `finder`
/// looks for `name`.
pub(crate) fn calls_name(text: &str, name: &str, finder: &memchr::memmem::Finder) -> bool {
    finder.find_iter(text.as_bytes()).any(|start| {
        let end = start + name.len();
        whole_word(text.as_bytes(), start, end) && call_like(text, start, end)
    })
}

pub(crate) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `text[start..end]` is a whole identifier, not part of a longer one.
pub(crate) fn whole_word(text: &[u8], start: usize, end: usize) -> bool {
    (start == 0 || !is_ident_byte(text[start - 1])) && text.get(end).is_none_or(|c| !is_ident_byte(*c))
}

/// Whether the name at `start..end` is called there (`name(`, `name::<T>(`; not `fn name(`, a
/// definition, nor `name!`), imported under another name (`use kv::write as cache_kv;`: the
/// calls then use the new name), or bound to a local that is called (`let op = kv::write;`).
fn call_like(text: &str, start: usize, end: usize) -> bool {
    let after = text[end..].trim_start();
    let defined = text[..start].trim_end().strip_suffix("fn").is_some_and(|b| b.is_empty() || b.ends_with(char::is_whitespace));
    let bound = || {
        let path_start = text[..start].trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':');
        after.starts_with(';') && path_start.trim_end().ends_with('=') && !path_start.trim_end().ends_with("==")
    };
    !defined && (after.starts_with('(') || after.starts_with("::<") || after.starts_with("as ") || bound())
}

fn check_parsed(j: &FileJob, index: &Index, items: &WorkspaceItems, index_findings: &HashMap<String, Vec<Finding>>) -> Vec<Finding> {
    check_parsed_with(j, index, items, index_findings, false, None).0
}

/// [`check_parsed`], and with `outline`, the file's top-level items when it parsed.
fn check_parsed_with(j: &FileJob, index: &Index, items: &WorkspaceItems, index_findings: &HashMap<String, Vec<Finding>>, outline: bool, back: Option<BackShare>) -> (Vec<Finding>, Vec<Chunk>) {
    if j.unreadable.is_some() {
        return (finish(j, index_findings_for(index_findings, &j.file.rel_path)), Vec::new());
    }
    // Shared with the item table of this file, which the analysis may ask for.
    let parsed = crate::source::parse_shared(&j.file);
    let chunks = parsed.as_ref().ok().filter(|_| outline).and_then(|ast| chunks_of(&j.file, ast)).unwrap_or_default();
    // A bug in a rule must not cost the findings of every other file, nor pass silently: it is a
    // finding of its own, and the run exits 2.
    let findings = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_ast(j, parsed.as_ref().map(|ast| &**ast), index, items, index_findings, back)))
        .unwrap_or_else(|panic| {
            let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            let mut findings = finish(j, index_findings_for(index_findings, &j.file.rel_path));
            findings.push(internal_error(j, &what));
            findings
        });
    drop(parsed);
    forget_spans();
    (findings, chunks)
}

/// The items of a big file that the session's other thread ([`ShareWorker`]) claims from the
/// back of the list ([`Share::Back`]) while this thread claims from the front. Started before
/// this thread parses the file: the other parses the text too (spans are per thread: it cannot
/// share this thread's tree), then waits for the index and the items, which a declaring file's
/// parse may change ([`BackShare::analyse_with`]).
struct BackShare {
    claims: Arc<Claims>,
    context: mpsc::Sender<(Arc<Index>, Arc<WorkspaceItems>)>,
    found: mpsc::Receiver<Option<Vec<Finding>>>,
}

/// What the worker is given for one file.
struct ShareJob {
    job: FileJob,
    claims: Arc<Claims>,
    context: mpsc::Receiver<(Arc<Index>, Arc<WorkspaceItems>)>,
    found: mpsc::Sender<Option<Vec<Finding>>>,
}

/// The thread a session shares checks with. One that lives with the session: a thread started
/// per check would fault in a new stack and a new allocator heap each time.
struct ShareWorker {
    jobs: mpsc::Sender<ShareJob>,
}

impl ShareWorker {
    fn start() -> Option<ShareWorker> {
        let (jobs, given) = mpsc::channel::<ShareJob>();
        std::thread::Builder::new().name("reuse-check share".into()).stack_size(crate::STACK_SIZE).spawn(move || {
            // Ends when the session, which holds the sender, is dropped.
            for ShareJob { job, claims, context, found } in given {
                let parsed = job.file.parse();
                // Dropped unsent: that thread's parse failed, or its check stopped.
                let analysed = context.recv().ok().and_then(|(index, items)| {
                    let ast = parsed.as_ref().ok()?;
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyze_items(&job.file, ast, &job.crate_name, &job.module, &index, &items, Share::Back(claims)))).ok()
                });
                // The findings first: the tree is dropped while the other thread goes on.
                let _ = found.send(analysed);
                drop(parsed);
                forget_spans();
            }
        }).ok()?;
        Some(ShareWorker { jobs })
    }

    fn back_share(&self, job: &FileJob, claims: Arc<Claims>) -> Option<BackShare> {
        let (context, context_given) = mpsc::channel();
        let (found_sender, found) = mpsc::channel();
        self.jobs.send(ShareJob { job: job.clone(), claims: claims.clone(), context: context_given, found: found_sender }).ok()?;
        Some(BackShare { claims, context, found })
    }
}

impl BackShare {
    fn analyse_with(self, index: &Arc<Index>, items: &Arc<WorkspaceItems>) -> Option<BackShare> {
        self.context.send((index.clone(), items.clone())).ok()?;
        Some(self)
    }

    /// What the other thread found, once this thread has claimed every item it could; `None`
    /// when it failed (a rule panicked there): this thread analyses those items itself, and
    /// fails, or not, as a check on one thread would. Nothing to wait for when the other took
    /// none (its parse was slower than this thread's whole analysis).
    fn findings(self, analyse: impl Fn(Share) -> Vec<Finding>) -> Vec<Finding> {
        if !self.claims.back_has_part() {
            return Vec::new();
        }
        self.found.recv().ok().flatten().unwrap_or_else(|| analyse(Share::Front(self.claims.give_back_to_front())))
    }
}

/// A rule that panicked on a file (its level is not configurable: see `finish`).
fn internal_error(j: &FileJob, what: &str) -> Finding {
    Finding::new(&INTERNAL_ERROR, format!("reuse-check failed while checking `{}`: {what}", j.file.rel_path), Label::new(&j.file, 0..0, "while checking this file"))
        .with_help("the findings of this file may be incomplete; please report this with the file")
}

/// The findings of a file parsed (or not) on this thread; with `back`, the items are shared with
/// another thread's analysis.
fn check_ast(j: &FileJob, ast: Result<&syn::File, &ParseFailure>, index: &Index, items: &WorkspaceItems, index_findings: &HashMap<String, Vec<Finding>>, back: Option<BackShare>) -> Vec<Finding> {
    // Debug builds only: how the tests make a rule fail (the environment is the user's, not the tree's).
    #[cfg(debug_assertions)]
    if std::env::var("REUSE_CHECK_FAIL_ON_FILE").is_ok_and(|name| j.file.rel_path.ends_with(&name)) {
        panic!("REUSE_CHECK_FAIL_ON_FILE");
    }
    let mut findings = index_findings_for(index_findings, &j.file.rel_path);
    match ast {
        Ok(ast) => {
            if !j.external {
                let analyse = |share| analyze_items(&j.file, ast, &j.crate_name, &j.module, index, items, share);
                match back {
                    None => findings.extend(analyse(Share::All)),
                    Some(back) => {
                        findings.extend(analyse(Share::Front(back.claims.clone())));
                        findings.extend(back.findings(analyse));
                    }
                }
            }
            findings = apply_suppressions(&j.file, Some(ast), findings);
        }
        Err(e) => {
            // The index's other findings of this file are of the last text that parsed (the
            // session keeps its declarations while a bracket is open): not of this text.
            findings.retain(|f| f.rule.name == PARSE_ERROR.name || (j.external && f.rule.name == CONTRACT_SYNTAX.name));
            if !findings.iter().any(|f| f.rule.name == PARSE_ERROR.name || f.rule.name == CONTRACT_SYNTAX.name) {
                findings.push(parse_error(j, e));
            }
        }
    }
    finish(j, findings)
}

/// Configured levels: `allow` drops a finding. An internal error keeps its level: the checker's
/// failure is not the checked tree's to silence.
fn finish(j: &FileJob, mut findings: Vec<Finding>) -> Vec<Finding> {
    for f in findings.iter_mut().filter(|f| f.rule.name != INTERNAL_ERROR.name) {
        f.level = j.config.level(f.rule);
    }
    findings.retain(|f| f.level != Level::Allow);
    findings
}

fn index_findings_for(map: &HashMap<String, Vec<Finding>>, rel: &str) -> Vec<Finding> {
    map.get(rel).cloned().unwrap_or_default()
}
