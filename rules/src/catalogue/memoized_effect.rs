declare_rule! {
    /// ## What it checks
    /// A caller that caches the result of a call that is an effect (`#[reuse::effect]`; a method
    /// one on a receiver of its type, `self.rng.draw()`), whose
    /// contract `preserves` effects, or of a helper without a contract (of the same file, or of
    /// another file found by the call's path or its receiver's type) that runs effects on every
    /// one of its paths (a method of this file where the receiver's type is known; an effect it
    /// calls as a method counts by its receiver's type, `let draw = self.rng.advance();` of a
    /// sampler in another file):
    /// `entry(k).or_insert_with(|| f())` (or a closure kept in a local first, `let run = || f();`
    /// then `or_insert_with(run)`: reported at `f()`), `get_or_insert_with`, `OnceCell`/`OnceLock::get_or_init`,
    /// the `insert` of a vacant entry (`Entry::Vacant(v)` of `entry(k)`, in a `match` arm or an
    /// `if let`) with `f()` or a local bound to it, or a lookup on a map
    /// (`get`, `contains_key`; through its lock guards, `memo.read().unwrap().get(..)`, `memo.read().map_err(..)?.get(..)`, or an async
    /// lock's, `memo.read().await.get(..)`) on a path to
    /// an `insert` of `f()`'s result (awaited or not; shared, `Arc::clone(&v)`; the value of an
    /// `Option` result, `if let Some(o) = &out`; with a fallback, `f()?.unwrap_or_else(..)`)
    /// into the same map, or an `Option` field of
    /// `self` tested (`match self.last { None => .. }`, `if self.last.is_none()`, `is_some_and(..)`, `if let
    /// Some(v) = &self.last` or `self.last.as_ref().filter(..)`; also through a re-borrow, `let this = &mut *self;`) on a path to
    /// keeping `f()`'s result in it (`self.last = Some(v)`, `Some((key, v))`, `self.last.insert(v)`, `replace`, the
    /// empty slot a `match` arm binds, `slot @ None => *slot.insert(v)`; tested as
    /// `self.last.take()` and put back on a hit), or a list searched (`seen.iter().find(|(k, _)|
    /// *k == g)`, `any`, `position`, `contains`) on a path to pushing `f()`'s result
    /// (`seen.push((g, v))`, a `VecDeque`'s `push_back`); a cache type of the workspace whose method runs a closure it is
    /// given only on a miss (its body is such a memo of the closure's result:
    /// `cache.get_or_compute(k, || f())`); also where `f()` is
    /// called in a `macro_rules!` macro of the file or of its crate. A function called on every path to a normal
    /// exit is not cached (the lookup only counted hits, or a hit computes it again).
    ///
    /// ## Why it matters
    /// The callee promises that its effects run on every call. Memoizing it in the caller turns
    /// every later call into a silent hit that skips those effects: the callee's contract is kept,
    /// the program's is not.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let plan = memo.entry(key).or_insert_with(|| engine.run(&graph)); // run preserves log_step
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// let plan = engine.run(&graph); // engine.run has its own plan cache that keeps the effects
    /// ```
    ///
    /// ## Real case
    /// PyTorch: reusing a past logging result is not the same as reusing a compiled plan; the
    /// logging must run again on each call.
    pub static MEMOIZED_EFFECT = "memoized_effect", Warn, [Checker], "a caller caches the result of an effectful call";
}
