declare_rule! {
    /// ## What it checks
    /// That every name a contract uses exists where the contract says: a place rooted at a
    /// parameter names a parameter of the function, `self.field` stands only on a method with a
    /// receiver, and `#[reuse::allow(rule, ...)]` names a rule of the catalogue. The constants a
    /// contract names (`skip = PAD_SLOT_ID`, `forbids_write(kv[NULL_BLOCK])`) and its sanctioned
    /// writers (`except(health_check)`) must exist too: the macro names each of them in a `const`
    /// item, so a misspelling is rustc's error at the token (runtime feature on or off); the checker
    /// reports a constant that no file of the workspace defines (a name imported from another crate,
    /// or possibly brought by a glob import, is left to rustc), and an `except` path that names no
    /// function marked `#[reuse::sanctioned]`. An effect of `preserves` must be a function or a
    /// method: a misspelled one (`log_stpe`), or one that is a macro the file invokes
    /// (`preserves(info)` beside `tracing::info!`, which neither the checker nor the runtime sees
    /// run), is reported at the name instead of as an effect that every path skips.
    ///
    /// ## Why it matters
    /// A contract about a parameter that was renamed silently stops protecting anything.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(writes(kv[slots], skip = -1))]
    /// fn write(kv: &mut [f32], slot_mapping: &[i64]) {}
    /// //                  `slots` is not a parameter ^
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// #[reuse::contract(writes(kv[slot_mapping], skip = -1))]
    /// fn write(kv: &mut [f32], slot_mapping: &[i64]) {}
    /// ```
    pub static UNKNOWN_NAME = "unknown_name", Error, [Macro, Checker], "a contract names something that does not exist";
}
