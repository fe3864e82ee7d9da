//! `cargo reuse-check`: the static checker of reuse contracts.
//!
//! The pipeline: [`workspace::discover`] finds packages and files (never building anything),
//! [`engine`] reads them, builds the [`index::Index`] of contracts from the few files that declare
//! any, and runs the [`rules`] on the files that mention a contracted name, via [`analysis`],
//! [`resolve`] (call sites) and [`dataflow`] (paths and values through bodies). [`suppress`] and the per-package
//! [`config`] decide what is reported; [`render`] turns [`finding::Finding`]s into output.

pub use reuse_semantic::{analysis, config, dataflow, engine, finding, incremental, index, init_threads, items, on_big_stack, resolve, rules, source, suppress, workspace, STACK_SIZE};

/// The checker allocates many small, short-lived values (syntax trees, summaries, findings):
/// glibc's allocator took a quarter of the editor's whole-file check (`perf` on `cargo bench
/// --bench editor`). Every binary that links the checker (the command, the language server,
/// benches, tests) uses mimalloc (feature `mimalloc`, on by default).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod cache;
pub mod cli;
pub mod fix;
pub mod lsp;
pub mod render;

/// Checks what `target` names: discovery, reading, analysis.
pub fn check(target: &workspace::Target) -> Result<engine::Report, workspace::DiscoverError> {
    check_with(target, &engine::CheckOptions::default())
}

pub fn check_with(target: &workspace::Target, options: &engine::CheckOptions) -> Result<engine::Report, workspace::DiscoverError> {
    check_with_levels(target, options, &[])
}

/// [`check_with`], with rule levels that override the configuration (`-A`/`-W`/`-D RULE`, later
/// ones winning). Such a run neither reads nor writes the cache, which holds configured levels.
pub fn check_with_levels(
    target: &workspace::Target,
    options: &engine::CheckOptions,
    levels: &[(&'static reuse_rules::Rule, reuse_rules::Level)],
) -> Result<engine::Report, workspace::DiscoverError> {
    let use_cache = options.use_cache && !options.all_files && levels.is_empty();
    if use_cache {
        if let Some(report) = cache::load(target) {
            return Ok(report);
        }
    }
    let mut ws = workspace::discover(target)?;
    if !levels.is_empty() {
        for p in &mut ws.packages {
            p.config = std::sync::Arc::new(p.config.with_levels(levels));
        }
    }
    let jobs = engine::read_jobs(&ws);
    let mut report = engine::check_jobs_with(&jobs, &ws.root, options, &ws.dependency_sources);
    report.warnings = ws.warnings.clone();
    report.sources = ws.sources.iter().map(|s| format!("contracts from dependency {s}")).chain(std::mem::take(&mut report.sources)).collect();
    if report.stats.contracts == 0 && ws.depends_on_reuse {
        report.warnings.push("the workspace depends on `reuse` but no contract was found in it or its dependencies: nothing was checked against a contract".into());
    }
    if let Some(only) = &ws.report_only {
        report.findings.retain(|f| std::fs::canonicalize(&f.primary.file.path).is_ok_and(|p| p == *only));
    }
    report.packages = ws.packages.iter().filter(|p| p.report).map(|p| p.info.clone()).collect();
    if use_cache {
        cache::store(target, &ws, &report);
    }
    Ok(report)
}
