declare_rule! {
    /// ## What it checks
    /// A contract in a contracts file whose path names no function of the workspace or of its
    /// dependencies: no crate of that name, or no such function in it (a typo, a function that
    /// was renamed or moved, a contract for another version of a crate).
    ///
    /// ## Why it matters
    /// A contract that binds nothing checks nothing, and a silent "0 errors" reads as "safe". A
    /// contract binds at the function's definition path (`kernels::ops::reshape_and_cache`), the
    /// path written in the contracts file as nested `mod` blocks.
    ///
    /// ## Example
    /// ```rust,ignore
    /// // contracts/kernels.rs
    /// mod kernels {
    ///     #[reuse::contract(writes(cache[slots], skip = -1))]
    ///     fn reshape_and_cach(key: &[f32], cache: &mut [f32], slots: &[i64]); // typo
    /// }
    /// ```
    ///
    /// ## Use instead
    /// Name the function at its definition: the crate (`-` written `_`), its modules, the `impl`
    /// type for a method, then the function.
    pub static UNMATCHED_CONTRACT = "unmatched_contract", Warn, [Checker], "a contract in a contracts file matches no function";
}
