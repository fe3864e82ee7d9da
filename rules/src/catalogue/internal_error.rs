declare_rule! {
    /// ## What it checks
    /// Nothing in your code: the checker itself failed (a bug in a rule) while checking a file.
    ///
    /// ## Why it matters
    /// The findings of that file may be incomplete, so the run cannot be called clean. The finding
    /// names the file, the run exits with status 2 (the tool could not do its job), and every other
    /// file is still checked. Levels in the configuration do not lower it.
    ///
    /// ## Example
    /// ```text
    /// error[reuse::internal_error]: reuse-check failed while checking src/engine.rs: ...
    /// ```
    ///
    /// ## Use instead
    /// Report it with the file (or a reduced copy of it); exclude the file to get a green run
    /// meanwhile.
    pub static INTERNAL_ERROR = "internal_error", Error, [Checker], "the checker failed on a file; its findings may be incomplete";
}
