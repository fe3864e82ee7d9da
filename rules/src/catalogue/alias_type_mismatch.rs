declare_rule! {
    /// ## What it checks
    /// That the two sides of `aliases(OUT = IN)` have types that can share storage: a reference,
    /// slice, pointer, buffer or handle type on both sides. A by-value `bool`, `char`, float or
    /// `()` holds no storage; an integer handle (a device pointer such as `u64`) cannot share the
    /// storage of a host reference or slice.
    ///
    /// ## Why it matters
    /// An alias declaration drives both the static `use_after_donate` rule and the runtime
    /// `alias_not_shared` check. Declared between types that cannot share a buffer, it is a typo or a
    /// misunderstanding, and every check built on it is meaningless.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(aliases(return = n))]
    /// fn scale(n: u32, data: &mut [f32]) -> &mut [f32] { data }
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// #[reuse::contract(aliases(return = data))]
    /// fn scale(n: u32, data: &mut [f32]) -> &mut [f32] { data }
    /// ```
    pub static ALIAS_TYPE_MISMATCH = "alias_type_mismatch", Error, [Macro, Checker], "an alias joins types that cannot share storage";
}
