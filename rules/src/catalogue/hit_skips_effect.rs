declare_rule! {
    /// ## What it checks
    /// In a function with `preserves(E, ...)`, every path that serves a result (an explicit
    /// `return`, an early return on a cache hit, the tail expression) calls every effect E. A call of
    /// a function whose own contract preserves E counts as calling E; so does a call of a helper
    /// without a contract that calls E on every one of its normal paths (one that calls E on some
    /// paths only leaves its caller a path without E). The helper may be of the same file or of
    /// another file of the workspace, found by the call's path (imports, renames, re-exports) or
    /// its receiver's type, never by its name alone. A trait's method called on a type that keeps
    /// the trait's default body runs that body; called through `dyn Trait` or a type parameter
    /// bounded by the trait, it runs any of the implementations the workspace has, or the default
    /// (a benchmark's hooks that override `on_step_end` and log nothing leave the generic engine
    /// a path without the log). A closure counts where it runs: called where
    /// it is written, there (its result tested next, `let served = (|| -> Option<Plan> { let p =
    /// lookup()?; log_step(); Some(p) })(); if let Some(p) = served { .. }`, the `Some` branch
    /// has the paths that gave a value, the other those that did not, `?` included; so does `if
    /// let Some(p) = lookup()` of a closure bound to a local); the callback of `or_insert_with`, `unwrap_or_else` and the like on
    /// some paths only (it runs on a miss only); a closure that is stored, or returned by a
    /// helper, not at all. An `async` helper runs where its future is awaited (`flush().await`,
    /// also through a local) or handed to a call that drives it (`block_on(flush())`); a future
    /// that is dropped (`let _ = flush();`, `drop(flush())`) runs nothing; a task spawned with
    /// an `async` block (`tokio::spawn(async { log_step() })`) has run where its handle is
    /// awaited, and not before. A `macro_rules!` macro
    /// of the file, or of another file of the crate where Rust scopes it (`#[macro_use] mod
    /// macros;`, `#[macro_export]`), runs what its expansion runs; a `log` or `tracing` event (`info!(..)`,
    /// `tracing::debug!(step = ?log_step())`) and `debug_assert!` evaluate their arguments only
    /// where the level, or debug assertions, are enabled: an effect called there may not run. A *drop guard*, a value whose type's `Drop` runs
    /// E (`let _check = CheckOnDrop::new();`, a type of this file or another, made where it is
    /// bound or by a helper, `let _step = self.begin_step();`, on some paths only where the helper
    /// returns an `Option` of one that may be `None`; a struct without a `Drop` of its
    /// own whose field holds one, `StepScope { _guard: StepGuard, .. }`, of this file or another, its
    /// fields dropped in declaration order), runs it where the
    /// value is dropped: at the end of its block, at each return after the returned value is made
    /// (latest binding first), at `drop(g)`, or at once where it is discarded (`let _ = ..;`); a
    /// guard that is returned or handed on by value (`mem::forget(g)` too) runs nothing here, on
    /// the paths that hand it on. A *scope guard* holding a
    /// closure runs the closure the same way: `scopeguard::defer! { .. }`, `scopeguard::guard(v,
    /// |_| ..)` (not `guard_on_unwind`, which runs only while panicking), and a value of a type
    /// whose `Drop` calls a closure it holds (`Defer(|| check_errors())`). An `Option`/`Result`
    /// `inspect(|_| ..)` runs where the value is `Some`/`Ok`: past `validate(g).inspect(..)?`, and
    /// in the `Some` branch of `if let Some(p) = lookup.inspect(..)` only; so do the closures of a
    /// chain of adapters that keep a value a value (`lookup.inspect(|_| log_step()).map(|p| ..)`,
    /// `.inspect(..).copied()`). Of `x.map(f).unwrap_or_else(g)`, `x.map(f).or_else(g)`,
    /// `x.map_or_else(g, f)` and `x.and_then(f).unwrap_or_else(g)` where `f` always gives a value,
    /// exactly one of `f` and `g` runs.
    ///
    /// Paths that serve nothing are exempt: error exits (`?`, a returned `Err(..)`) and misses that
    /// decline, returning a value that matches `reuses(.., miss = PATTERN)` (without a pattern, in a
    /// function with `reuses`: `None` or `Ok(None)`). The runtime decides the same on the value a
    /// call returned.
    ///
    /// ## Why it matters
    /// A cache hit must be indistinguishable from a miss for the effects the program relies on:
    /// logging, error checks, RNG advance, metrics. The fast path is exactly the one that skips them.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(reuses(self.plans, key(g.fingerprint)), preserves(log_step, check_errors))]
    /// fn run(&mut self, g: &Graph) -> Plan {
    ///     if let Some(p) = self.plans.get(&g.fingerprint) {
    ///         return p.clone(); // hit: log_step and check_errors never run
    ///     }
    ///     log_step(); let p = compile(g); check_errors(); p
    /// }
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// fn run(&mut self, g: &Graph) -> Plan {
    ///     log_step();
    ///     let p = match self.plans.get(&g.fingerprint) { Some(p) => p.clone(), None => compile(g) };
    ///     check_errors();
    ///     p
    /// }
    /// ```
    ///
    /// ## Real case
    /// PyTorch forced ordered-effect wrappers to bypass the graph cache; the fix lets a hit reuse the
    /// compiled plan while its test still requires the logging calls to run, in order, on the hit.
    pub static HIT_SKIPS_EFFECT = "hit_skips_effect", Error, [Checker, Runtime], "a return path skips a preserved effect";
}
