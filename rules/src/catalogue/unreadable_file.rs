declare_rule! {
    /// ## What it checks
    /// A file of the workspace that the checker could not read, so none of its code was checked:
    /// a file or directory without read permission, a file larger than the checker's cap
    /// (8 MiB of source), a special file (a FIFO, a device) where a source file was expected.
    ///
    /// ## Why it matters
    /// A check that skips a file silently reports "0 errors" for code it never saw. Each such file
    /// is named, and the rest of the workspace is still checked.
    ///
    /// ## Example
    /// ```text
    /// $ chmod 000 src/kv.rs && reuse-check
    /// error[reuse::unreadable_file]: src/kv.rs could not be read: Permission denied
    /// ```
    ///
    /// ## Use instead
    /// Make the file readable, or exclude it (`exclude = ["generated/**"]`) if it is not code to
    /// check.
    pub static UNREADABLE_FILE = "unreadable_file", Error, [Checker], "a file could not be read and was not checked";
}
