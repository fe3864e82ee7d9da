//! `--format sarif`: one SARIF 2.1.0 log with one run, for GitHub code scanning and other SARIF
//! viewers.
//!
//! - `tool.driver.rules` lists every rule the checker can report (the stable ID, a friendly name,
//!   the one-line summary, the `--explain` text as help, the default level); results point at it
//!   by `ruleId` and `ruleIndex`.
//! - Locations are repository-relative, percent-encoded URIs under the base `%SRCROOT%` (given in
//!   `originalUriBaseIds` as the absolute root), with 1-based regions whose columns count UTF-16
//!   code units (`columnKind`), end exclusive. Secondary labels are `relatedLocations`.
//! - `partialFingerprints."reuseCheck/v1"` identifies a finding across runs without line numbers:
//!   a hash of the rule, the file, the flagged line's text and the flagged text, and which
//!   occurrence of that tuple in the file it is. Code moving up or down keeps it.

use std::path::Path;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use reuse_rules::{catalogue, Level, Rule};
use serde::Serialize;

use crate::engine::Report;
use crate::finding::{Finding, Label};
use crate::render::{canonical, position, relative_to};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";
const FINGERPRINT: &str = "reuseCheck/v1";

/// A SARIF log of `report`; files are named relative to `base` (the repository root).
pub fn render(report: &Report, base: &Path) -> String {
    let mut text = serde_json::to_string_pretty(&log(report, base)).expect("plain data serializes");
    text.push('\n');
    text
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    invocations: Vec<Invocation>,
    original_uri_base_ids: serde_json::Map<String, serde_json::Value>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Help,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    partial_fingerprints: serde_json::Map<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<Fix>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
    snippet: Text,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fix {
    description: Text,
    artifact_changes: Vec<ArtifactChange>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: Region,
    inserted_content: Text,
}

fn log(report: &Report, base: &Path) -> Log {
    let rules = rules(report);
    let mut seen: Vec<(String, u64)> = Vec::new();
    let results = report
        .findings
        .iter()
        .map(|f| {
            let rule_index = rules.iter().position(|r| r.name == f.rule.name).expect("every reported rule is listed");
            result(base, f, rule_index, &mut seen)
        })
        .collect();
    let root = canonical(base).unwrap_or_else(|| base.to_path_buf());
    let mut base_ids = serde_json::Map::new();
    if let Ok(url) = url::Url::from_directory_path(&root) {
        base_ids.insert(SRCROOT.into(), serde_json::json!({ "uri": url.to_string() }));
    }
    Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "reuse-check",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: Some(env!("CARGO_PKG_REPOSITORY")).filter(|r| !r.is_empty()),
                    rules: rules.iter().map(|r| descriptor(r)).collect(),
                },
            },
            invocations: vec![Invocation { execution_successful: true }],
            original_uri_base_ids: base_ids,
            column_kind: "utf16CodeUnits",
            results,
        }],
    }
}

/// The rules the checker reports, in catalogue order, and any other rule a finding names.
fn rules(report: &Report) -> Vec<&'static Rule> {
    catalogue::ALL
        .iter()
        .copied()
        .filter(|r| r.found_by.contains(&catalogue::FoundBy::Checker) || report.findings.iter().any(|f| f.rule.name == r.name))
        .chain(report.findings.iter().map(|f| f.rule).filter(|r| catalogue::find(r.name).is_none()))
        .fold(Vec::new(), |mut acc: Vec<&'static Rule>, r| {
            if !acc.iter().any(|a| a.name == r.name) {
                acc.push(r);
            }
            acc
        })
}

fn descriptor(rule: &'static Rule) -> RuleDescriptor {
    let explain = rule.explain();
    RuleDescriptor {
        id: rule.name,
        name: pascal_case(rule.name),
        short_description: Text { text: sentence(rule.summary) },
        full_description: Text { text: sentence(&what_it_checks(rule)) },
        help: Help { text: explain.clone(), markdown: explain },
        default_configuration: Configuration { level: level(rule.default_level) },
        properties: RuleProperties { tags: vec!["reuse-check", "correctness"] },
    }
}

/// The `## What it checks` section of a rule's docs, as one paragraph.
fn what_it_checks(rule: &Rule) -> String {
    let mut lines = rule.docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l));
    let mut out = Vec::new();
    if lines.by_ref().any(|l| l.trim() == "## What it checks") {
        out.extend(lines.take_while(|l| !l.starts_with("## ")).map(str::trim).filter(|l| !l.is_empty()));
    }
    if out.is_empty() {
        rule.summary.to_string()
    } else {
        out.join(" ")
    }
}

/// SARIF viewers show descriptions and messages as sentences.
fn sentence(text: &str) -> String {
    let mut s = text.trim_end().to_string();
    if let Some(first) = s.get(..1) {
        let upper = first.to_uppercase();
        s.replace_range(..1, &upper);
    }
    if !s.ends_with(['.', '!', '?']) {
        s.push('.');
    }
    s
}

fn pascal_case(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

fn level(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn => "warning",
        Level::Allow => "none",
    }
}

fn result(base: &Path, f: &Finding, rule_index: usize, seen: &mut Vec<(String, u64)>) -> SarifResult {
    let mut text = sentence(&f.message);
    if let Some(help) = &f.help {
        text.push_str(&format!("\nHelp: {}", sentence(help)));
    }
    for note in &f.notes {
        text.push_str(&format!("\nNote: {}", sentence(note)));
    }
    let related = f
        .secondary
        .iter()
        .enumerate()
        .map(|(i, l)| Location { id: Some(i + 1), physical_location: physical(base, l), message: Some(Text { text: sentence(&l.message) }) })
        .collect();
    let fixes = f
        .fix
        .iter()
        .map(|fix| {
            let label = Label::new(&f.primary.file, fix.range.clone(), String::new());
            let at = physical(base, &label);
            Fix {
                description: Text { text: sentence(&fix.message) },
                artifact_changes: vec![ArtifactChange {
                    artifact_location: at.artifact_location,
                    replacements: vec![Replacement { deleted_region: at.region, inserted_content: Text { text: fix.replacement.clone() } }],
                }],
            }
        })
        .collect();
    let mut fingerprints = serde_json::Map::new();
    fingerprints.insert(FINGERPRINT.into(), fingerprint(f, seen).into());
    SarifResult {
        rule_id: f.rule.name,
        rule_index,
        level: level(f.level),
        message: Text { text },
        locations: vec![Location {
            id: None,
            physical_location: physical(base, &f.primary),
            message: (!f.primary.message.is_empty()).then(|| Text { text: sentence(&f.primary.message) }),
        }],
        related_locations: related,
        partial_fingerprints: fingerprints,
        fixes,
    }
}

fn physical(base: &Path, label: &Label) -> PhysicalLocation {
    let file = &label.file;
    let (start, end) = position::span(file, &label.range);
    let snippet = file.text.get(label.range.start..label.range.end.max(label.range.start)).unwrap_or("").to_string();
    PhysicalLocation {
        artifact_location: artifact(base, &file.path, &file.rel_path),
        region: Region { start_line: start.line, start_column: start.utf16, end_line: end.line, end_column: end.utf16, snippet: Text { text: snippet } },
    }
}

/// Characters a relative URI path keeps as they are: RFC 3986 unreserved, and `/`.
const URI_PATH: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');

/// A repository-relative, percent-encoded URI under `%SRCROOT%`; a file outside the repository (a
/// contracts file elsewhere) gets an absolute `file:` URI.
fn artifact(base: &Path, path: &Path, rel_path: &str) -> ArtifactLocation {
    if let Some(rel) = relative_to(path, base) {
        return ArtifactLocation { uri: relative_uri(&rel), uri_base_id: Some(SRCROOT) };
    }
    let abs = canonical(path).unwrap_or_else(|| path.to_path_buf());
    match url::Url::from_file_path(&abs) {
        Ok(url) => ArtifactLocation { uri: url.to_string(), uri_base_id: None },
        Err(()) => ArtifactLocation { uri: relative_uri(rel_path), uri_base_id: Some(SRCROOT) },
    }
}

pub fn relative_uri(rel_path: &str) -> String {
    utf8_percent_encode(rel_path, URI_PATH).to_string()
}

/// `fnv1a64(rule, file, flagged line, flagged text)` and the occurrence of that tuple in the file.
fn fingerprint(f: &Finding, seen: &mut Vec<(String, u64)>) -> String {
    let file = &f.primary.file;
    let line = file.line_text(file.line_index(f.primary.range.start));
    let flagged = file.text.get(f.primary.range.clone()).unwrap_or("");
    let normalize = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let key = [f.rule.name, &file.rel_path, &normalize(line), &normalize(flagged)].join("\0");
    let hash = fnv1a64(key.as_bytes());
    let occurrence = seen.iter().filter(|(p, h)| *p == file.rel_path && *h == hash).count();
    seen.push((file.rel_path.clone(), hash));
    format!("{hash:016x}:{}", occurrence + 1)
}

/// FNV-1a, 64 bits: a fixed, dependency-free hash (fingerprints must not change between builds).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded_and_keep_slashes() {
        assert_eq!(relative_uri("src/kv cache/é#1.rs"), "src/kv%20cache/%C3%A9%231.rs");
        assert_eq!(relative_uri("a-b_c.d~/x.rs"), "a-b_c.d~/x.rs");
    }

    #[test]
    fn names_and_sentences() {
        assert_eq!(pascal_case("hit_skips_effect"), "HitSkipsEffect");
        assert_eq!(sentence("a return path skips an effect"), "A return path skips an effect.");
        assert_eq!(sentence("`x` is used."), "`x` is used.");
    }

    #[test]
    fn fnv_is_the_reference_function() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
