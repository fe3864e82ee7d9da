//! Helpers for the fixture tests that compare the shim with the static checker's expectations: the
//! `//~ rule` markers of a fixture source, grouped by the function they stand in, the function a
//! violation belongs to, and the agreement check itself, shared by every fixture's runtime test.
//!
//! Each fixture (`fixtures/*/tests/runtime.rs`) keeps only its scenarios and its table of
//! [`Expect`] rows, one per function of its `src/buggy.rs`; what the table is held to is the same
//! everywhere and lives here ([`check_shim`], [`check_agreement`]), so that the fixtures cannot
//! drift apart in what "agreement" means.

use std::collections::{BTreeMap, BTreeSet};

use crate::Violation;

/// Rule names by the function they belong to: the markers of a source ([`static_markers`]), or the
/// violations the shim collected ([`by_function`]).
pub type ByFunction = BTreeMap<String, BTreeSet<String>>;

/// Rules that both the checker and the CPU shim report, under the same name. On these, and only
/// these, the two sides can be held to the same findings; the others are seen by one side only
/// (`stale_key` and `memoized_effect` by the checker, `stale_hit` and `hit_mismatch` by the shim).
pub const BOTH: &[&str] = &["hit_skips_effect", "effect_order", "pad_to_null_block", "forbidden_write", "stale_result"];

/// One function of a fixture's `src/buggy.rs`: the rules of its `//~` markers, and what the shim
/// reports when the function runs on inputs that reach its bug.
///
/// The table states the markers even though they are in the source, so that the two lists sit side
/// by side, and a difference between them must come with its reason.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    /// The function's name, as the markers and [`attribute`] group them (no path).
    pub function: &'static str,
    /// The rules of its `//~` markers: what the static checker is held to.
    pub static_rules: &'static [&'static str],
    /// The rules the shim reports for it.
    pub shim_rules: &'static [&'static str],
    /// Why the two lists differ, where they do; empty where they are the same.
    pub why: &'static str,
}

/// How the shim's findings must meet a function's markers on the rules both sides see ([`BOTH`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// The same rules exactly, whatever the row's reason.
    Equal,
    /// Every marked rule, and more only where the row says why: a bug can break a second contract
    /// at run time as a consequence (a padded row written into the null block also breaks the
    /// kernel's `forbids_write`), which the checker, marking the cause, does not mark.
    Covered,
}

/// The violations, by the function they belong to ([`attribute`]), as rule names.
pub fn by_function(violations: &[Violation], file_suffix: &str, source: &str) -> ByFunction {
    let mut out = ByFunction::new();
    for v in violations {
        out.entry(attribute(v, file_suffix, source)).or_default().insert(v.rule_name().to_string());
    }
    out
}

fn rule_set(rules: &[&str]) -> BTreeSet<String> {
    rules.iter().map(|r| r.to_string()).collect()
}

/// The rules of `set` that both sides see.
fn shared(set: &BTreeSet<String>) -> BTreeSet<String> {
    set.iter().filter(|r| BOTH.contains(&r.as_str())).cloned().collect()
}

/// The shim's side of the table: each function of `table` has exactly its `shim_rules` in `found`
/// (the violations of the buggy scenarios, [`by_function`]), and no other function has any.
#[track_caller] // a failure points at the fixture test that called it
pub fn check_shim(table: &[Expect], found: &ByFunction) {
    for row in table {
        let got = found.get(row.function).cloned().unwrap_or_default();
        assert_eq!(got, rule_set(row.shim_rules), "shim, buggy::{}", row.function);
    }
    let expected: BTreeSet<&str> = table.iter().map(|r| r.function).collect();
    for f in found.keys() {
        assert!(expected.contains(f.as_str()), "unexpected violations in `{f}`: {found:?}");
    }
}

/// The agreement of the two sides: for each function of `table`, its row states the markers as
/// they are in `source` (the fixture's `src/buggy.rs`); on the rules both sides see, the markers
/// and the shim's findings in `found` meet as `shared_rules` asks; wherever the markers and the findings
/// differ at all, the row says why; and every marked function of `source` is in the table.
#[track_caller] // a failure points at the fixture test that called it
pub fn check_agreement(table: &[Expect], source: &str, found: &ByFunction, shared_rules: Shared) {
    let markers = static_markers(source);
    for row in table {
        // The table states the markers as they are in the source.
        let in_source = markers.get(row.function).cloned().unwrap_or_default();
        assert_eq!(in_source, rule_set(row.static_rules), "markers of buggy::{}", row.function);
        // The agreement: on the rules both can see, the checker's markers and the shim's findings match.
        let shim = found.get(row.function).cloned().unwrap_or_default();
        match shared_rules {
            Shared::Equal => {
                assert_eq!(shared(&in_source), shared(&shim), "buggy::{}: {}", row.function, row.why)
            }
            Shared::Covered => {
                // Every marked violation the shim can see, it reports under the same name; where it
                // sees it in another function (the checker marks a helper, the shim the kernel call
                // of its caller) or not at all (a check only the checker makes), the row says why
                // and states what the shim reports there.
                let explained = !row.why.is_empty() && rule_set(row.shim_rules) == shim;
                assert!(shared(&in_source).is_subset(&shim) || explained, "buggy::{}: {:?} vs {:?}", row.function, in_source, shim);
            }
        }
        // What differs, on any rule, is explained.
        assert!(in_source == shim || !row.why.is_empty(), "buggy::{} differs without a reason", row.function);
    }
    // Every marked function is in the table (rows for unmarked functions say why the shim reports there).
    let listed: BTreeSet<&str> = table.iter().map(|r| r.function).collect();
    let unlisted: Vec<&String> = markers.keys().filter(|f| !listed.contains(f.as_str())).collect();
    assert!(unlisted.is_empty(), "every marked function is in the table: {unlisted:?}");
}

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
pub fn static_markers(source: &str) -> ByFunction {
    let mut out = ByFunction::new();
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

    const SRC: &str = "fn pad() {\n    k(); //~ pad_to_null_block\n}\nfn memo() {\n    m(); //~ memoized_effect\n}\n";

    /// `pad` is also reported as `forbidden_write` at run time; `memo` is not seen by the shim.
    const TABLE: &[Expect] = &[
        Expect {
            function: "pad",
            static_rules: &["pad_to_null_block"],
            shim_rules: &["pad_to_null_block", "forbidden_write"],
            why: "a consequence",
        },
        Expect { function: "memo", static_rules: &["memoized_effect"], shim_rules: &[], why: "unseen at run time" },
    ];

    fn found(pad: &[&str]) -> ByFunction {
        ByFunction::from([("pad".to_string(), rule_set(pad))])
    }

    #[test]
    fn a_consequence_the_row_explains_is_covered() {
        let found = found(&["pad_to_null_block", "forbidden_write"]);
        check_shim(TABLE, &found);
        check_agreement(TABLE, SRC, &found, Shared::Covered);
    }

    #[test]
    #[should_panic(expected = "buggy::pad: a consequence")]
    fn equal_shared_rules_admit_no_consequence() {
        check_agreement(TABLE, SRC, &found(&["pad_to_null_block", "forbidden_write"]), Shared::Equal);
    }

    #[test]
    #[should_panic(expected = "buggy::pad: {\"pad_to_null_block\"} vs {\"forbidden_write\"}")]
    fn covered_needs_every_marked_rule() {
        check_agreement(TABLE, SRC, &found(&["forbidden_write"]), Shared::Covered);
    }

    #[test]
    #[should_panic(expected = "buggy::pad differs without a reason")]
    fn a_difference_needs_a_reason() {
        let table = [Expect { why: "", ..TABLE[0] }, TABLE[1]];
        check_agreement(&table, SRC, &found(&["pad_to_null_block", "forbidden_write"]), Shared::Covered);
    }

    #[test]
    #[should_panic(expected = "every marked function is in the table")]
    fn every_marked_function_is_in_the_table() {
        check_agreement(&TABLE[..1], SRC, &found(&["pad_to_null_block", "forbidden_write"]), Shared::Covered);
    }

    #[test]
    #[should_panic(expected = "unexpected violations in `other`")]
    fn no_violations_outside_the_table() {
        let mut found = found(&["pad_to_null_block", "forbidden_write"]);
        found.insert("other".to_string(), rule_set(&["effect_order"]));
        check_shim(TABLE, &found);
    }
}
