declare_rule! {
    /// ## What it checks
    /// In a function with `forbids_write(P[C])`: assignments, compound assignments and index
    /// assignments to P at C, mutating methods on that region (`fill`, `copy_from_slice`,
    /// `iter_mut`, `as_mut_ptr`, ...), and passing P to a callee whose contract `writes` it. At call
    /// sites: a caller that forbids a place and hands it to a writer. At run time, a fingerprint of
    /// the region taken before and after the call.
    ///
    /// ## Why it matters
    /// Reserved storage (the null block of a paged KV cache, a shared prefix) is read by many;
    /// one write corrupts them all, silently.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(forbids_write(key_cache[NULL_BLOCK]))]
    /// fn clear(key_cache: &mut [Block]) { key_cache[NULL_BLOCK].fill(0.0); }
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// fn clear(key_cache: &mut [Block]) { for b in &mut key_cache[NULL_BLOCK + 1..] { b.fill(0.0); } }
    /// ```
    ///
    /// ## Real case
    /// vLLM's null block 0, owned by no request, must never be written by dummy or padding rows.
    pub static FORBIDDEN_WRITE = "forbidden_write", Error, [Checker, Runtime], "forbidden storage is written";
}
