declare_rule! {
    /// ## What it checks
    /// A function that needs more work than the checker's bound per function (200,000 steps of
    /// the path analysis): deeply nested loops multiply the paths to follow. Its `preserves` and
    /// effect-order rules are not checked; everything else is.
    ///
    /// ## Why it matters
    /// The checker runs on every pull request and must finish in bounded time whatever the input;
    /// it reports what it did not check rather than stall or pass silently.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(preserves(log_step))]
    /// fn step(&mut self) {
    ///     for a in xs { for b in ys { for c in zs { /* ... a dozen levels ... */ } } }
    ///     log_step();
    /// }
    /// ```
    ///
    /// ## Use instead
    /// Move the inner loops into a helper function: the helper's effects are summarised once, and
    /// the contracted function stays small enough to check.
    pub static ANALYSIS_LIMIT = "analysis_limit", Warn, [Checker], "a function was too complex to check completely";
}
