declare_rule! {
    /// ## What it checks
    /// At run time, opt-in and sampled: a cache hit is recomputed as if it were a miss and the two
    /// results are compared.
    ///
    /// ## Why it matters
    /// The last line of defence when a cache key is incomplete in a way no declared component shows.
    ///
    /// ## Example
    /// A plan cache whose hit returns a plan compiled for another dtype.
    ///
    /// ## Use instead
    /// Find the input the key is missing and add it to `key(...)`.
    pub static HIT_MISMATCH = "hit_mismatch", Error, [Runtime], "a recomputed cache hit differs from the cached value";
}
