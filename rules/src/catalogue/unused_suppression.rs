declare_rule! {
    /// ## What it checks
    /// A `#[reuse::allow(rule, reason = "...")]` or `// reuse-check: allow(rule) reason` that
    /// suppresses no finding.
    ///
    /// ## Why it matters
    /// Stale suppressions hide the next real finding at that place.
    ///
    /// ## Example
    /// ```rust,ignore
    /// // reuse-check: allow(pad_to_null_block) dummy rows are masked
    /// let slots = vec![PAD_SLOT_ID; n];
    /// ```
    ///
    /// ## Use instead
    /// Remove the suppression.
    pub static UNUSED_SUPPRESSION = "unused_suppression", Warn, [Checker], "a suppression suppresses nothing";
}
