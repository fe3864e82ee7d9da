declare_rule! {
    /// ## What it checks
    /// That a `#[reuse::contract(...)]` (or an entry of a contracts file) is well formed: known
    /// clauses, each non-repeatable clause once, `P[IDX]` shapes, and a `skip` sentinel that is a
    /// const path or an integer literal.
    ///
    /// ## Why it matters
    /// A contract that does not say what its author meant checks nothing. The macro refuses it at
    /// compile time; the checker reports the same finding so that CI and the editor see it too.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(writes(key_cache[slot_mapping], skip = pad_value()))]
    /// //                                                      ^^^^^^^^^^^ skip must be a const
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// #[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID))]
    /// ```
    pub static CONTRACT_SYNTAX = "contract_syntax", Error, [Macro, Checker], "a contract attribute is malformed";
}
