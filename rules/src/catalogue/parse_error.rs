declare_rule! {
    /// ## What it checks
    /// A source file (or contracts file) that does not parse as Rust.
    ///
    /// ## Why it matters
    /// Its contracts and calls are not checked. The rest of the workspace still is.
    ///
    /// ## Example
    /// ```rust,ignore
    /// fn broken( {
    /// ```
    ///
    /// ## Use instead
    /// Fix the syntax error; `cargo check` shows it in detail.
    pub static PARSE_ERROR = "parse_error", Warn, [Checker], "a file could not be parsed and was not checked";
}
