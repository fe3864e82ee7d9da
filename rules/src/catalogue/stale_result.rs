declare_rule! {
    /// ## What it checks
    /// In a function with `reuses(PLACE, ..)`, `preserves(.., E, ..)` and `fresh(OUT, after = E)`,
    /// the value a serving path returns as OUT must be produced by the effect E of this call, or
    /// read after E ran from storage that E writes. The checker reports a returned value that comes
    /// from the cache entry (a binding of a lookup on PLACE, also through a method of the type
    /// whose value is that lookup, `let g = self.lookup(bs)?;`, in this file or in the type's `impl`
    /// in another file of the workspace, a search of a cache kept as a
    /// list, `PLACE.iter_mut().find(..)`, an `Arc` entry cloned out and its lock guard, `let g =
    /// PLACE.get(&k)?.clone(); let g = g.lock().unwrap();` (or `.ok()?`, `.map_err(..)?`) or `Arc::clone(PLACE.get(&k)?)`, or
    /// PLACE itself; a copy made by
    /// `clone`, `to_vec`, `Vec::from`, .. is a read) and is
    ///
    /// - read before E ran on its path (`let out = g.output.clone(); g.replay(); Ok(out)`: a
    ///   snapshot of what an earlier call left there), or
    /// - read after E, but from a field of the entry that E does not write, when the checker can
    ///   read E's body (`g.replay(); Ok(g.captured_output.clone())` where `replay` writes only
    ///   `self.output`; where two types have an E of that name, the one of the receiver's type). Fields inside fields count apart: `g.bufs.warm` is not written by an E that
    ///   writes `self.bufs.logits`. A getter (`g.output()`) counts as the field it returns, before
    ///   fields or after them (`g.buffers().warm`, `g.bufs.warm()`). An E that hands
    ///   `self` or its fields to code the checker cannot read (a call in an `unsafe` block, such as
    ///   an FFI graph launch, or a raw pointer into `self`) may write any field.
    ///
    /// "Read" means where the value is evaluated: a `let` reads at the `let`, a returned expression
    /// at the return. A value returned by E itself (`let out = g.replay(); Ok(out)`) is fresh.
    ///
    /// At run time (the shim) the returned OUT of a serving call must lie in storage E could write
    /// in this call (a `&mut` argument or receiver of E, or E's return value, where their types
    /// implement `Storage`), or hold the same bytes as that storage when E returned (a copy made
    /// after E). Calls that return an error or decline (the `miss` pattern) are not checked.
    ///
    /// ## Why it matters
    /// A cache hit that runs the effect but returns what was stored at capture time looks right in
    /// every trace: the replay ran, the effects are in order. Only the value is wrong: the output of
    /// an earlier input.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(reuses(self.graphs, key(bs)), preserves(replay), fresh(return, after = replay))]
    /// fn run(&mut self, bs: usize, input: &[f32]) -> Option<Vec<f32>> {
    ///     let g = self.graphs.get_mut(&bs)?;
    ///     g.replay(input);
    ///     Some(g.captured_output.clone()) // what the capture produced, not this replay
    /// }
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// fn run(&mut self, bs: usize, input: &[f32]) -> Option<Vec<f32>> {
    ///     let g = self.graphs.get_mut(&bs)?;
    ///     g.replay(input);
    ///     Some(g.output().to_vec()) // the buffer the replay wrote, read after it
    /// }
    /// ```
    ///
    /// ## Limits
    /// The checker follows `let` bindings and getters of the same file, and reads E's body when E
    /// is a method of the same file or a `#[reuse::effect]` of the workspace; where it cannot (E
    /// outside the workspace, E handing `self` on whole or calling another method of `self`), a
    /// read after E is taken as fresh. A reference taken before E (`let o = &g.output; g.replay();
    /// Ok(o.clone())`) is judged where it was taken: before E.
    ///
    /// ## Real case
    /// CUDA-graph runners in serving engines replay a captured graph into static output buffers;
    /// returning the tensor captured at capture time, instead of the static buffer the replay wrote,
    /// serves the first batch's output for every later batch.
    pub static STALE_RESULT = "stale_result", Error, [Checker, Runtime], "a cache hit returns a value not produced by, or read after, its fresh effect";
}
