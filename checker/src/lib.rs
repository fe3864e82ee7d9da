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
pub mod engine;
pub mod finding;
pub mod flow;
pub mod index;
pub mod lsp;
pub mod render;
pub mod resolve;
pub mod rules;
pub mod source;
pub mod suppress;
pub mod workspace;

/// Checks what `target` names: discovery, reading, analysis.
pub fn check(target: &workspace::Target) -> Result<engine::Report, workspace::DiscoverError> {
    check_with(target, &engine::CheckOptions::default())
}

pub fn check_with(target: &workspace::Target, options: &engine::CheckOptions) -> Result<engine::Report, workspace::DiscoverError> {
    let use_cache = options.use_cache && !options.all_files;
    if use_cache {
        if let Some(report) = cache::load(target) {
            return Ok(report);
        }
    }
    let ws = workspace::discover(target)?;
    let (jobs, unreadable) = engine::read_jobs(&ws);
    if !unreadable.is_empty() {
        return Err(workspace::DiscoverError::Other(format!("cannot read {}", unreadable.join(", "))));
    }
    let mut report = engine::check_jobs(&jobs, &ws.root, options);
    report.packages = ws.packages.iter().map(|p| p.info.clone()).collect();
    if use_cache {
        cache::store(target, &ws, &report);
    }
    Ok(report)
}
