declare_rule! {
    /// ## What it checks
    /// A suppression without a reason: `#[reuse::allow(rule)]` without `reason = "..."`, or
    /// `// reuse-check: allow(rule)` with nothing after it. Both forms still suppress, and both
    /// compile: the checker reports the missing reason as a warning (the macro accepts it, so that
    /// the two forms behave the same and `cargo build` never breaks on it).
    ///
    /// ## Why it matters
    /// The next reader must know why this reuse is safe here; "trust me" does not survive a refactor.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::allow(pad_to_null_block)]
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// #[reuse::allow(pad_to_null_block, reason = "rows past num_actual_tokens are masked in the kernel")]
    /// ```
    pub static SUPPRESSION_WITHOUT_REASON = "suppression_without_reason", Warn, [Checker], "a suppression gives no reason";
}
