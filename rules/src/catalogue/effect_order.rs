declare_rule! {
    /// ## What it checks
    /// In a function with `preserves(A, B, ...)`, the effects run in the listed order on every path:
    /// the first call of `B` never comes before the first call of `A`. Effects are counted where
    /// `hit_skips_effect` counts them: a drop guard runs its effects where it is dropped, so a
    /// `LogOnDrop` guard made after `check_errors()` logs after it, and two guards drop latest
    /// first. At run time, the effect trace of a hit must also equal the trace of a miss.
    ///
    /// ## Why it matters
    /// Ordered effects are ordered for a reason: an error check that runs before the step it checks
    /// checks nothing, and a log written in a different order on a hit breaks replay and debugging.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(preserves(log_step, check_errors))]
    /// fn run(&mut self, g: &Graph) -> Plan {
    ///     if let Some(p) = self.plans.get(&g.fingerprint) {
    ///         check_errors(); log_step(); // swapped on the hit path
    ///         return p.clone();
    ///     }
    ///     log_step(); let p = compile(g); check_errors(); p
    /// }
    /// ```
    ///
    /// ## Use instead
    /// Call the effects in the declared order on every path, ideally once, outside the branch.
    ///
    /// ## Real case
    /// PyTorch's ordered-effect tokens: the test of the cache-hit change checks the logging order on
    /// the first run and on the later hit.
    pub static EFFECT_ORDER = "effect_order", Error, [Checker, Runtime], "preserved effects run out of the declared order";
}
