//! Helpers for the fixture tests that compare the shim with the static checker's expectations: the
//! `//~ rule` markers of a fixture source, grouped by the function they stand in, and the function a
//! violation belongs to.

use std::collections::{BTreeMap, BTreeSet};

use crate::Violation;

/// The name of the function declared on `line`, if one is (`fn name(`, `fn name<`).
fn declared_fn(line: &str) -> Option<&str> {
    let code = line.split("//").next().unwrap_or("");
    let at = code.find("fn ")?;
    if at > 0 && !code[..at].ends_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let rest = &code[at + 3..];
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let name = &rest[..end];
    (!name.is_empty() && rest[end..].starts_with(['(', '<'])).then_some(name)
}

/// The function whose body holds (1-based) `line` of `source`: the last one declared at or before it.
pub fn enclosing_fn(source: &str, line: u32) -> Option<String> {
    source.lines().take(line as usize).filter_map(declared_fn).last().map(str::to_string)
}

/// The `//~ rule` markers of `source`, by enclosing function.
pub fn static_markers(source: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for line in source.lines() {
        if let Some(name) = declared_fn(line) {
            current = Some(name.to_string());
        }
        if line.trim_start().starts_with("//") {
            continue; // a comment line (a doc comment may mention the marker syntax)
        }
        if let Some((_, marker)) = line.split_once("//~") {
            let is_rule = |r: &&str| !r.is_empty() && r.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            for rule in marker.split([',', ' ']).filter(is_rule) {
                out.entry(current.clone().unwrap_or_default()).or_default().insert(rule.to_string());
            }
        }
    }
    out
}

/// The function a violation belongs to, as the markers group them: the function of `source` (the
/// file ending in `file_suffix`) that made the offending call, or else the contracted function itself.
pub fn attribute(v: &Violation, file_suffix: &str, source: &str) -> String {
    if v.location.file().replace('\\', "/").ends_with(file_suffix) {
        if let Some(f) = enclosing_fn(source, v.location.line()) {
            return f;
        }
    }
    v.function.rsplit("::").next().unwrap_or(v.function).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_grouped_by_function() {
        let src = "//! Each flagged line carries `//~ rule`.\nimpl X {\n    pub fn run(&mut self) {\n        a(); //~ hit_skips_effect\n    }\n}\nfn b<T>() {\n    x(); //~ pad_to_null_block, forbidden_write\n}\n";
        let m = static_markers(src);
        assert_eq!(m["run"], BTreeSet::from(["hit_skips_effect".to_string()]));
        assert_eq!(m["b"].len(), 2);
        assert_eq!(enclosing_fn(src, 8).as_deref(), Some("b"));
        assert_eq!(m.len(), 2);
        assert_eq!(declared_fn("let f = |x| x; // fn nope("), None);
    }
}
