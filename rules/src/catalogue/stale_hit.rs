declare_rule! {
    /// ## What it checks
    /// At run time: for a function with `reuses(PLACE, key(...))`, the key components are recorded
    /// with each entry when it is stored; a hit whose current components differ from the recorded
    /// ones is reported.
    ///
    /// ## Why it matters
    /// The static `stale_key` rule sees how a key is built; only the running program sees that two
    /// different adapter versions mapped to the same key value (a hash collision, a version that
    /// was not bumped, a key built in a helper the checker cannot read).
    ///
    /// ## Example
    /// A cache keyed on `prompt.hash` that returns the entry stored under adapter version 3 while
    /// the model runs version 4.
    ///
    /// ## Use instead
    /// Include every component in the key, or evict entries when a component changes.
    ///
    /// ## Real case
    /// Stale KV caches under evolving adapters (CacheReforge).
    pub static STALE_HIT = "stale_hit", Error, [Runtime], "a cache hit served an entry stored under other key components";
}
