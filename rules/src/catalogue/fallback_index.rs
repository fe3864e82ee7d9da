declare_rule! {
    /// ## What it checks
    /// An index passed to a function that `writes(P[IDX])` whose value may come from a fallback
    /// default: `unwrap_or(c)`, `unwrap_or_default()`, `map_or(c, ..)`, `unwrap_or_else(|| c)`,
    /// or a `match`/`if let` arm that produces a constant, for a scalar index as for the entries
    /// of an index buffer, followed through locals (on any branch), struct fields and helpers of
    /// the same file that return it. With `skip = S`, a fallback to `S` is the way to say "no write"; any
    /// other constant is a finding. Without `skip`, every constant fallback is.
    ///
    /// ## Why it matters
    /// Engines whose block ids are plain integers have no sentinel: a missing entry that silently
    /// becomes block 0 (or any fixed block) writes into storage another sequence owns. The bug
    /// hides in the one line that handles the missing case.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(writes(self.blocks[block]))]
    /// fn write(&mut self, block: usize, row: &Row);
    ///
    /// let b = table.get(i).copied().unwrap_or(0);   // a missing entry becomes block 0
    /// cache.write(b, &row);
    /// ```
    ///
    /// ## Use instead
    /// Handle the missing entry (skip the write, return an error), or declare a sentinel in the
    /// contract (`writes(self.blocks[block], skip = NO_BLOCK)`) and fall back to it:
    /// ```rust,ignore
    /// let Some(&b) = table.get(i) else { return Err(MissingBlock(i)) };
    /// cache.write(b, &row);
    /// ```
    pub static FALLBACK_INDEX = "fallback_index", Error, [Checker], "a write index falls back to a constant that is not the sentinel";
}
