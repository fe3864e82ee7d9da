//! Every rule on every fixture: the findings of a check of `fixtures/` must be exactly the
//! expectations written inline in the fixture sources (`//~ rule` on the flagged line, `//~^ rule`
//! on the line below it; a rule written twice expects two findings). Any missing or extra finding
//! fails, with the list of differences.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use reuse_check::workspace::Target;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// `(file relative to fixtures/, 1-based line, rule)` for each inline expectation, with how many
/// findings of that rule the line expects.
fn expectations(dir: &Path) -> BTreeMap<(String, usize, String), usize> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
            for (i, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                let Some(pos) = line.find("//~") else { continue };
                let rest = &line[pos + 3..];
                let (above, rest) = match rest.strip_prefix('^') {
                    Some(r) => (true, r),
                    None => (false, rest),
                };
                let rules: Vec<&str> = rest.split_whitespace().collect();
                if rules.is_empty() || !rules.iter().all(|r| reuse_rules::catalogue::find(r).is_some()) {
                    continue; // prose that mentions the syntax
                }
                let line_no = if above { i } else { i + 1 };
                for r in rules {
                    *out.entry((rel.clone(), line_no, r.to_string())).or_insert(0) += 1;
                }
            }
        }
    }
    out
}

#[test]
fn every_rule_on_every_fixture() {
    let dir = fixtures_dir();
    let report = reuse_check::check(&Target { path: Some(dir.clone()), ..Target::default() }).expect("fixtures are checkable");
    let mut actual: BTreeMap<(String, usize, String), usize> = BTreeMap::new();
    for f in &report.findings {
        *actual.entry((f.primary.file.rel_path.clone(), f.line(), f.rule.name.to_string())).or_insert(0) += 1;
    }
    let expected = expectations(&dir);
    // The lines where one side has more findings of a rule than the other, with both counts.
    let count = |m: &BTreeMap<(String, usize, String), usize>, k: &(String, usize, String)| m.get(k).copied().unwrap_or(0);
    let surplus = |a: &BTreeMap<(String, usize, String), usize>, b: &BTreeMap<(String, usize, String), usize>| -> Vec<String> {
        a.keys()
            .filter(|k| count(b, k) < count(a, k))
            .map(|k| format!("  {}:{} {} (expected {}, found {})", k.0, k.1, k.2, count(&expected, k), count(&actual, k)))
            .collect()
    };
    let (missing, extra) = (surplus(&expected, &actual), surplus(&actual, &expected));
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing findings:\n{}\nextra findings:\n{}",
        missing.join("\n"),
        extra.join("\n")
    );
    // Every rule the checker reports has a fixture that shows it.
    let covered: BTreeSet<&str> = expected.keys().map(|(_, _, r)| r.as_str()).collect();
    // An unreadable file and a failing rule cannot be committed as fixtures: `tests/hostile.rs`
    // makes them on temporary workspaces.
    let made_elsewhere = [
        reuse_rules::catalogue::UNREADABLE_FILE.name,
        reuse_rules::catalogue::INTERNAL_ERROR.name,
        // A function past the work bound is larger than a fixture should be.
        reuse_rules::catalogue::ANALYSIS_LIMIT.name,
        // Contracts files are named in a workspace's configuration: `tests/adoption.rs`.
        reuse_rules::catalogue::UNMATCHED_CONTRACT.name,
    ];
    for rule in reuse_rules::catalogue::ALL
        .iter()
        .filter(|r| r.found_by.contains(&reuse_rules::catalogue::FoundBy::Checker) && !made_elsewhere.contains(&r.name))
    {
        assert!(covered.contains(rule.name), "no fixture expects `{}`", rule.name);
    }
}

#[test]
fn correct_variants_are_clean() {
    let dir = fixtures_dir();
    let report = reuse_check::check(&Target { path: Some(dir), ..Target::default() }).unwrap();
    let dirty: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.primary.file.rel_path.ends_with("/correct.rs"))
        .map(|f| format!("{}:{} {}", f.primary.file.rel_path, f.line(), f.rule.name))
        .collect();
    assert!(dirty.is_empty(), "{dirty:?}");
}
