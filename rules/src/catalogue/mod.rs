//! The rule catalogue: one file per rule, whose doc comment is what `reuse-check --explain RULE`
//! prints. The names are stable IDs, used by the checker, the macros, the runtime shim and the config.

use std::fmt;

/// How a finding of a rule is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported; exit status stays 0 unless `--deny warnings`.
    Warn,
    /// Reported; exit status 1.
    Error,
}

impl Level {
    /// The values a configuration accepts: clippy's names, and the names the output prints.
    pub const CONFIG_VALUES: &'static [&'static str] = &["allow", "warn", "deny", "warning", "error"];

    /// Parses a config value: `allow`, `warn` (or `warning`, as printed), `deny` (or `error`).
    pub fn from_config(s: &str) -> Option<Level> {
        match s {
            "allow" => Some(Level::Allow),
            "warn" | "warning" => Some(Level::Warn),
            "deny" | "error" => Some(Level::Error),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warning",
            Level::Error => "error",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of reuse-check reports a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    Macro,
    Checker,
    Runtime,
}

/// A rule of the catalogue.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable ID (`hit_skips_effect`); the file this rule is declared in has this name.
    pub name: &'static str,
    pub default_level: Level,
    /// One line, lower case, no final period.
    pub summary: &'static str,
    pub found_by: &'static [FoundBy],
    /// The doc comment of the declaration: what it checks, why, a bad and a good example, the real case.
    pub docs: &'static str,
}

impl Rule {
    /// The docs with the one leading space of each `///` line removed.
    pub fn explain(&self) -> String {
        let mut out = format!("# {}\n\n{}\n\nDefault level: {}.\n\n", self.name, self.summary, self.default_level);
        for line in self.docs.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out
    }

    /// [`Self::explain`] with every Markdown heading `levels` deeper (`# rule` → `## rule` for 1),
    /// for a page or a hover that holds several rules; code blocks are left alone.
    pub fn explain_nested(&self, levels: usize) -> String {
        let mut out = String::new();
        let mut in_code = false;
        for line in self.explain().lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && line.starts_with('#') {
                out.push_str(&"#".repeat(levels));
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// `reuse::hit_skips_effect`: the diagnostic code used in JSON, SARIF and LSP.
    pub fn code(&self) -> String {
        format!("reuse::{}", self.name)
    }
}

/// Declares a rule; the doc comment lines become [`Rule::docs`].
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub static $id:ident = $name:literal, $level:ident, [$($by:ident),*], $summary:literal;
    ) => {
        $(#[doc = $doc])*
        pub static $id: $crate::catalogue::Rule = $crate::catalogue::Rule {
            name: $name,
            default_level: $crate::catalogue::Level::$level,
            summary: $summary,
            found_by: &[$($crate::catalogue::FoundBy::$by),*],
            docs: concat!($($doc, "\n"),*),
        };
    };
}

mod alias_not_shared;
mod analysis_limit;
mod alias_type_mismatch;
mod ambiguous_call;
mod contract_syntax;
mod effect_order;
mod fallback_index;
mod forbidden_write;
mod hit_mismatch;
mod hit_skips_effect;
mod internal_error;
mod memoized_effect;
mod pad_to_null_block;
mod parse_error;
mod stale_hit;
mod stale_key;
mod stale_result;
mod suppression_without_reason;
mod undeclared_alias;
mod undeclared_write;
mod unmatched_contract;
mod unreadable_file;
mod unknown_name;
mod unused_suppression;
mod use_after_donate;

pub use alias_not_shared::ALIAS_NOT_SHARED;
pub use analysis_limit::ANALYSIS_LIMIT;
pub use alias_type_mismatch::ALIAS_TYPE_MISMATCH;
pub use ambiguous_call::AMBIGUOUS_CALL;
pub use contract_syntax::CONTRACT_SYNTAX;
pub use effect_order::EFFECT_ORDER;
pub use fallback_index::FALLBACK_INDEX;
pub use forbidden_write::FORBIDDEN_WRITE;
pub use hit_mismatch::HIT_MISMATCH;
pub use hit_skips_effect::HIT_SKIPS_EFFECT;
pub use internal_error::INTERNAL_ERROR;
pub use memoized_effect::MEMOIZED_EFFECT;
pub use pad_to_null_block::PAD_TO_NULL_BLOCK;
pub use parse_error::PARSE_ERROR;
pub use stale_hit::STALE_HIT;
pub use stale_key::STALE_KEY;
pub use stale_result::STALE_RESULT;
pub use suppression_without_reason::SUPPRESSION_WITHOUT_REASON;
pub use undeclared_alias::UNDECLARED_ALIAS;
pub use undeclared_write::UNDECLARED_WRITE;
pub use unmatched_contract::UNMATCHED_CONTRACT;
pub use unreadable_file::UNREADABLE_FILE;
pub use unknown_name::UNKNOWN_NAME;
pub use unused_suppression::UNUSED_SUPPRESSION;
pub use use_after_donate::USE_AFTER_DONATE;

/// Every rule, in catalogue order.
pub static ALL: &[&Rule] = &[
    &CONTRACT_SYNTAX,
    &UNKNOWN_NAME,
    &ALIAS_TYPE_MISMATCH,
    &HIT_SKIPS_EFFECT,
    &EFFECT_ORDER,
    &MEMOIZED_EFFECT,
    &STALE_KEY,
    &STALE_HIT,
    &HIT_MISMATCH,
    &STALE_RESULT,
    &PAD_TO_NULL_BLOCK,
    &FALLBACK_INDEX,
    &FORBIDDEN_WRITE,
    &UNDECLARED_WRITE,
    &USE_AFTER_DONATE,
    &ALIAS_NOT_SHARED,
    &UNDECLARED_ALIAS,
    &AMBIGUOUS_CALL,
    &UNMATCHED_CONTRACT,
    &PARSE_ERROR,
    &ANALYSIS_LIMIT,
    &UNREADABLE_FILE,
    &INTERNAL_ERROR,
    &UNUSED_SUPPRESSION,
    &SUPPRESSION_WITHOUT_REASON,
];

/// Looks a rule up by its stable name.
pub fn find(name: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|r| r.name == name)
}

/// Looks a rule up by its name or by its code as printed (`reuse::pad_to_null_block`).
pub fn find_name_or_code(name: &str) -> Option<&'static Rule> {
    find(name.strip_prefix("reuse::").unwrap_or(name))
}

/// The candidate closest to a misspelled `word`, when it is close enough to be what was meant
/// (Jaro-Winkler similarity of at least 0.8, as cargo's and clap's hints).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The candidate `word` is a misspelling of, by a stricter measure than [`closest`]: at most two
/// edits (a swap counts as one) on a name of four letters or more. For names that may also be
/// right as written (a method of another crate's type), where a loose match would be a guess.
pub fn misspelling_of<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.chars().count() < 4 {
        return None;
    }
    candidates.into_iter().filter(|c| *c != word).map(|c| (strsim::damerau_levenshtein(word, c), c)).filter(|(d, _)| *d <= 2).min_by_key(|(d, _)| *d).map(|(_, c)| c)
}

/// `` (did you mean `name`?)`` for a misspelled rule, or nothing.
pub fn did_you_mean_rule(name: &str) -> String {
    did_you_mean(name.strip_prefix("reuse::").unwrap_or(name), ALL.iter().map(|r| r.name))
}

/// `` (did you mean `word`?)`` for the closest candidate, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_file_is_named_after_its_rule() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/catalogue");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f != "mod.rs")
            .map(|f| f.trim_end_matches(".rs").to_string())
            .collect();
        files.sort();
        let mut names: Vec<String> = ALL.iter().map(|r| r.name.to_string()).collect();
        names.sort();
        assert_eq!(files, names);
        for rule in ALL {
            let src = std::fs::read_to_string(dir.join(format!("{}.rs", rule.name))).unwrap();
            assert!(src.contains(&format!("= \"{}\"", rule.name)), "{} declares its own name", rule.name);
        }
    }

    #[test]
    fn docs_have_the_fixed_sections_and_summaries_follow_the_convention() {
        for rule in ALL {
            for section in ["## What it checks", "## Why it matters", "## Example", "## Use instead"] {
                assert!(rule.docs.contains(section), "{} lacks {section}", rule.name);
            }
            assert!(!rule.summary.ends_with('.'), "{}: summary ends with a period", rule.name);
            assert!(rule.summary.chars().next().unwrap().is_lowercase(), "{}: summary is lower case", rule.name);
            assert!(rule.explain().starts_with(&format!("# {}", rule.name)));
        }
    }

    #[test]
    fn names_are_unique_and_findable() {
        for rule in ALL {
            assert_eq!(find(rule.name), Some(*rule));
        }
        assert_eq!(find("no_such_rule"), None);
        assert_eq!(find_name_or_code("reuse::pad_to_null_block"), Some(&PAD_TO_NULL_BLOCK));
    }

    #[test]
    fn misspelled_names_get_a_hint() {
        assert_eq!(did_you_mean_rule("pad_to_null_blok"), " (did you mean `pad_to_null_block`?)");
        assert_eq!(did_you_mean_rule("reuse::stale_keys"), " (did you mean `stale_key`?)");
        assert_eq!(did_you_mean_rule("zzzz"), "");
        assert_eq!(closest("warnn", ["allow", "warn", "deny"]), Some("warn"));
    }

    #[test]
    fn a_misspelling_is_two_edits_away_at_most() {
        let known = ["log_step", "advance_rng", "sync"];
        assert_eq!(misspelling_of("log_stpe", known), Some("log_step"));
        assert_eq!(misspelling_of("advnce_rng", known), Some("advance_rng"));
        // Far from every name, or too short to tell: not a misspelling.
        assert_eq!(misspelling_of("synchronize", known), None);
        assert_eq!(misspelling_of("snc", known), None);
        assert_eq!(misspelling_of("log_step", known), None);
    }
}
