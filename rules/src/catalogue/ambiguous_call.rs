declare_rule! {
    /// ## What it checks
    /// A call that could be one of several contracted functions (same name, different types or
    /// modules) and that the checker cannot tell apart from source alone: a method call on a receiver
    /// whose type it does not know, or a path that two imports could explain.
    ///
    /// ## Why it matters
    /// reuse-check reads source, not types. Rather than guess which contract applies, it says so,
    /// so that you can qualify the call (`Type::method(&x, ..)`) or rename one function.
    ///
    /// ## Example
    /// ```rust,ignore
    /// cache.run(&g); // PlanCache::run and KernelCache::run both have contracts
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// PlanCache::run(&mut cache, &g);
    /// ```
    pub static AMBIGUOUS_CALL = "ambiguous_call", Warn, [Checker], "a call matches several contracted functions";
}
