declare_rule! {
    /// ## What it checks
    /// After `let y = f(x)` where `f` declares `aliases(return = x)`, any later use of `x` in the
    /// caller that is not a re-binding: including `Copy` handles (a `u64` device pointer) that the
    /// borrow checker lets through, and uses in a loop body that comes around again.
    ///
    /// ## Why it matters
    /// A donated input's buffer now belongs to the output and is overwritten by it. Reading the input
    /// reads the output's bytes; writing it corrupts the output.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let out = add_inplace_async(stream, buf, other); // aliases(return = buf)
    /// let norm = read(buf); // buf was donated to `out`
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// let buf = add_inplace_async(stream, buf, other); // re-bound: the name now means the output
    /// let norm = read(buf);
    /// ```
    ///
    /// ## Real case
    /// XLA's explicit input/output alias map for asynchronous in-place ops: the output may share a
    /// specific input's buffer, so that input is dead after the op.
    pub static USE_AFTER_DONATE = "use_after_donate", Error, [Checker, Runtime], "an input is used after it was donated to an output";
}
