declare_rule! {
    /// ## What it checks
    /// At run time: an output declared with `aliases(OUT = IN)` really shares IN's storage (the
    /// same pointer range), rather than a copy of it.
    ///
    /// ## Why it matters
    /// Memory planning counts an aliased output as free. A "shared" output that was copied doubles
    /// the memory and breaks every writer that expects to see the other side's updates.
    ///
    /// ## Example
    /// A prefix cache that returns `prefix.to_vec()` for an output declared as sharing `prefix`.
    ///
    /// ## Use instead
    /// Return a view of the input's storage (`&mut prefix[..]`, the same device handle).
    ///
    /// ## Real case
    /// A shared-prefix KV cache that "reused" KV values but silently copied their storage.
    pub static ALIAS_NOT_SHARED = "alias_not_shared", Error, [Runtime], "an output declared as an alias does not share the input's storage";
}
