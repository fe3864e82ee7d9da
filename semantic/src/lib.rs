//! The semantic core of reuse-check: what a workspace is ([`workspace`], [`config`]), its files
//! ([`source`]), the contracts it declares ([`index`]), what a call names ([`resolve`]), paths and
//! values through a body ([`dataflow`]; the file's `macro_rules!` expanded by [`macros`]), the rules ([`rules`], run per function by
//! [`analysis`]), suppressions ([`suppress`]), the phases over a whole workspace ([`engine`]) and
//! the re-check of edited items for the editor ([`incremental`]).
//! It returns [`finding::Finding`]s and knows nothing of terminals, JSON, SARIF or LSP: the
//! `reuse-check` crate (the command line, the renderers, the cache and the language server) sits on
//! top of it.

pub mod analysis;
pub mod config;
pub mod dataflow;
pub mod engine;
pub mod finding;
pub mod incremental;
pub mod index;
pub mod items;
pub mod macros;
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

