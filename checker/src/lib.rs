//! `cargo reuse-check`: the static checker of reuse contracts.
//!
//! The pipeline: [`workspace::discover`] finds packages and files (never building anything),
//! [`engine`] reads them, builds the [`index::Index`] of contracts from the few files that declare
//! any, and runs the [`rules`] on the files that mention a contracted name, via [`analysis`],
//! [`resolve`] (call sites) and [`flow`] (paths through bodies). [`suppress`] and the per-package
//! [`config`] decide what is reported; [`render`] turns [`finding::Finding`]s into output.

pub mod analysis;
pub mod cache;
pub mod cli;
pub mod config;
pub mod dataflow;
pub mod engine;
pub mod finding;
pub mod fix;
pub mod flow;
pub mod index;
pub mod lsp;
pub mod render;
pub mod resolve;
pub mod rules;
pub mod source;
pub mod suppress;
pub mod workspace;

/// The stack of every thread that parses or analyses: syn's parser and the visitors recurse once
/// per nesting level, and [`source::MAX_NESTING`] levels must fit (the bound is checked before
/// parsing, so deeper files are reported, not a stack overflow). Only touched pages are committed.
pub const STACK_SIZE: usize = 256 << 20;

/// Makes rayon's threads use [`STACK_SIZE`]; call once, first thing, in every binary. Returns
/// false if the global pool was already built (by an earlier call: harmless).
pub fn init_threads() -> bool {
    rayon::ThreadPoolBuilder::new().stack_size(STACK_SIZE).build_global().is_ok()
}

/// Runs `f` on a thread with a [`STACK_SIZE`] stack (the main thread's is 8 MiB).
pub fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    init_threads();
    let worker = std::thread::Builder::new().name("reuse-check".into()).stack_size(STACK_SIZE).spawn(f).expect("spawn the checker thread");
    match worker.join() {
        Ok(v) => v,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

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
