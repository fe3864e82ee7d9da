//! Renderers, one file per output format. Only this layer (and `main`, `lsp`) knows about
//! terminals, JSON and LSP; the analysis produces [`Finding`](crate::finding::Finding)s.
//!
//! - [`human`]: rich terminal diagnostics (and the one-line `short` form);
//! - [`json`]: cargo's `compiler-message` stream, for rust-analyzer and other cargo-aware tools;
//! - [`sarif`]: SARIF 2.1.0, for code scanning;
//! - [`github`]: GitHub Actions workflow annotations.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

use std::path::{Path, PathBuf};

use crate::engine::Report;

/// The output formats of `--format` / `--message-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    /// One line per finding: `file:line:col: level[reuse::rule]: message`.
    Short,
    /// Cargo JSON messages; `rendered` is the human form in the given style.
    Json(json::Rendered),
    Sarif,
    Github,
}

/// What a renderer needs besides the report.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    /// Color in human output.
    pub color: bool,
    /// Whether the check passed (the exit status is 0); cargo's `build-finished` message says so.
    pub success: bool,
    /// The repository root: SARIF and GitHub annotations name files relative to it (code scanning
    /// and the runner resolve paths against the checkout). `None`: the checked root.
    pub repo_root: Option<PathBuf>,
    /// How human and short output name files (the command line: from the current directory).
    pub paths: human::PathStyle,
    /// No summary line (`-q`).
    pub quiet: bool,
}

/// Renders a whole report to a string (what goes to stdout).
pub fn render(format: Format, report: &Report, options: &RenderOptions) -> String {
    let base = options.repo_root.as_deref().unwrap_or(&report.root);
    match format {
        Format::Human => human::render_with(report, options.color, &options.paths, options.quiet),
        Format::Short => human::render_short_with(report, &options.paths, options.quiet),
        Format::Json(rendered) => json::render(report, rendered, options.success),
        Format::Sarif => sarif::render(report, base),
        Format::Github => github::render(report, base),
    }
}

/// The root of the repository that holds `dir`: the nearest ancestor with a `.git` (a directory,
/// or a file in worktrees and submodules).
pub fn find_repo_root(dir: &Path) -> Option<PathBuf> {
    canonical(dir)?.ancestors().find(|a| a.join(".git").exists()).map(Path::to_path_buf)
}

/// `path` relative to `base` with `/` separators, if it lies under `base` (compared as given, then
/// with links and `..` resolved).
pub(crate) fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let plain = |rel: &Path| rel.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    let rel = match path.strip_prefix(base) {
        Ok(rel) if plain(rel) => rel.to_path_buf(),
        _ => canonical(path)?.strip_prefix(canonical(base)?).ok()?.to_path_buf(),
    };
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The absolute form of a path, with links and `..` resolved where it exists.
pub(crate) fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).ok()
}

/// Findings' positions as every machine-readable format reports them.
pub(crate) mod position {
    use std::ops::Range;

    use crate::source::{LineCol, SourceFile};

    /// The 1-based start and (exclusive) end of a byte range.
    pub fn span(file: &SourceFile, range: &Range<usize>) -> (LineCol, LineCol) {
        (file.line_col(range.start), file.line_col(range.end.max(range.start)))
    }
}
