declare_rule! {
    /// ## What it checks
    /// At run time: an output that is not declared as an alias overlaps no input's storage.
    ///
    /// ## Why it matters
    /// An undeclared alias is a donation the caller does not know about: it will read the input after
    /// the call and see the output's bytes.
    ///
    /// ## Example
    /// A function without `aliases(...)` that returns a view into one of its inputs.
    ///
    /// ## Use instead
    /// Declare it with `aliases(return = input)` so callers (and `use_after_donate`) know.
    ///
    /// ## Real case
    /// XLA's input/output alias map: sharing must be explicit to be planned for.
    pub static UNDECLARED_ALIAS = "undeclared_alias", Error, [Runtime], "an output shares an input's storage without an alias declaration";
}
