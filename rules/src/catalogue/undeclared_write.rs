declare_rule! {
    /// ## What it checks
    /// A function whose contract declares a write set (`writes` or `aliases`) writes a parameter
    /// outside that set: assigns through it (or a reborrow of it, or a local bound to one of its
    /// fields), calls a mutating method on it, passes it `&mut` on, swaps or takes it
    /// (`mem::swap`, `mem::take`, `mem::replace`), or hands it to a contracted writer or a helper
    /// that writes it. The parameters that can be written are `&mut` ones, `Option<&mut T>`
    /// ones, those behind a `Mutex`, `RwLock` or `RefCell` (through the guard of `lock()`,
    /// `write()`, `borrow_mut()` or their `try_` forms, also taken in an `if let Ok(g) = ..`), a
    /// `&Cell<T>` (`set`) or an atomic (`store`, `fetch_add`, ..), a list of them (`Vec<AtomicU64>`),
    /// a field of a struct that holds one (`self.stats.hits`; each item of such a list walked by
    /// `for c in self.counters.iter()` or `for_each`), and `&mut self` where the write set
    /// names a field of `self`. The write set is a set of places: `writes(kv.key_cache[slots])`
    /// declares `kv.key_cache`, so a write to `kv.value_cache` (or `self.value_cache` in a method
    /// that declares `self.key_cache`) is outside it.
    ///
    /// ## Why it matters
    /// A declared write set is a frame condition: callers rely on everything else being untouched
    /// (another request's blocks, a shared prefix). A write outside it is either a bug or a contract
    /// that no longer says what the function does.
    ///
    /// An `iter_mut()` whose items the loop or the closure of `for_each`, `all`, `any`, `position`,
    /// `map` (`v.iter_mut().map(|x| *x).sum()`) or a counted `filter` (written inline or bound to a name before) only reads (`for x in v.iter_mut() { total += *x; }`) writes nothing, as does
    /// an element of `if let Some(b) = v.get_mut(k)` (`first_mut`, `last_mut`) that the branch only reads; one whose items are assigned, handed to a
    /// call or a method, borrowed mutably or bound again is a write. A closure handed to a
    /// helper that calls it with a parameter or a field of `self` (`with_buffer(scratch, |s|
    /// s.fill(0.0))`, `pad.update(|d| d.clear())`) writes that storage where the closure writes
    /// its input (a function given instead may write it).
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(writes(key_cache[slots], skip = -1))]
    /// fn write(key_cache: &mut [f32], value_cache: &mut [f32], slots: &[i64]) {
    ///     value_cache[0] = 0.0; // not declared
    /// }
    /// ```
    ///
    /// ## Use instead
    /// Declare it: `writes(value_cache[slots], skip = -1)`, or stop writing it.
    pub static UNDECLARED_WRITE = "undeclared_write", Warn, [Checker], "a parameter is written outside the declared write set";
}
