//! The output formats on the fixtures: a reviewed snapshot of each, and the properties their readers
//! rely on. Cargo's JSON stream is read back with `cargo_metadata::Message` (cargo's own reader of
//! those lines, the one rust-analyzer uses) and every span is checked against the source; the SARIF
//! log is validated against the SARIF 2.1.0 JSON schema shipped in `tests/data/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_metadata::diagnostic::{Diagnostic, DiagnosticLevel, DiagnosticSpan};
use cargo_metadata::Message;
use reuse_check::engine::Report;
use reuse_check::render::json::Rendered;
use reuse_check::render::{self, human, Format, RenderOptions};
use reuse_check::workspace::Target;
use reuse_rules::Level;

/// `fixtures/`, canonical, so that the absolute paths in outputs can be redacted.
fn fixtures_dir() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")).unwrap()
}

/// The repository root the fixtures sit in (what SARIF and GitHub paths are relative to).
fn repo_dir() -> PathBuf {
    fixtures_dir().parent().unwrap().to_path_buf()
}

fn check_fixtures() -> Report {
    reuse_check::check(&Target { path: Some(fixtures_dir()), ..Target::default() }).expect("fixtures are checkable")
}

fn options(success: bool) -> RenderOptions {
    RenderOptions { color: false, success, repo_root: Some(repo_dir()), ..RenderOptions::default() }
}

fn render(format: Format, report: &Report) -> String {
    render::render(format, report, &options(report.count(Level::Error) == 0))
}

/// Machine-specific paths out of a snapshot.
fn redact(text: &str) -> String {
    let repo_url = url::Url::from_directory_path(repo_dir()).unwrap().to_string();
    text.replace(&repo_url, "file:///[REPO]/").replace(&repo_dir().display().to_string(), "[REPO]")
}

// ---- human and short -------------------------------------------------------------------------

#[test]
fn human_snapshot() {
    insta::assert_snapshot!(render(Format::Human, &check_fixtures()));
}

#[test]
fn short_snapshot() {
    insta::assert_snapshot!(render(Format::Short, &check_fixtures()));
}

// ---- cargo JSON -----------------------------------------------------------------------------

/// The byte offset of a 1-based line and 1-based character column, computed from the text alone.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
    let rest = &text[start..];
    rest.char_indices().nth(column - 1).map(|(i, _)| start + i).unwrap_or(text.len())
}

/// A span's lines and columns and its byte offsets name the same text, and its `text` lines
/// are the file's lines.
fn assert_span_points_at_its_text(root: &Path, span: &DiagnosticSpan) {
    let text = std::fs::read_to_string(root.join(&span.file_name)).unwrap();
    let (start, end) = (span.byte_start as usize, span.byte_end as usize);
    assert_eq!(offset_of(&text, span.line_start, span.column_start), start, "start of {span:?}");
    assert_eq!(offset_of(&text, span.line_end, span.column_end), end, "end of {span:?}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(span.text.len(), span.line_end - span.line_start + 1);
    for (i, line) in span.text.iter().enumerate() {
        assert_eq!(line.text, lines[span.line_start - 1 + i]);
    }
    if span.line_start == span.line_end {
        let line = &span.text[0];
        let highlighted: String = line.text.chars().skip(line.highlight_start - 1).take(line.highlight_end - line.highlight_start).collect();
        assert_eq!(highlighted, text[start..end]);
    }
}

fn compiler_messages(output: &str) -> (Vec<cargo_metadata::CompilerMessage>, bool) {
    let mut messages = Vec::new();
    let mut finished = None;
    let lines: Vec<&str> = output.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let message: Message = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {i} is not a cargo message ({e}): {line}"));
        match message {
            Message::CompilerMessage(m) => {
                assert!(finished.is_none(), "a compiler message after build-finished");
                messages.push(m);
            }
            Message::BuildFinished(f) => {
                assert_eq!(i, lines.len() - 1, "build-finished is the last line");
                finished = Some(f.success);
            }
            other => panic!("unexpected message {other:?}"),
        }
    }
    (messages, finished.expect("the stream ends with build-finished"))
}

#[test]
fn json_lines_parse_as_cargo_messages_whose_spans_point_at_the_text() {
    let report = check_fixtures();
    let output = render(Format::Json(Rendered::Plain), &report);
    let (messages, success) = compiler_messages(&output);
    assert!(!success, "the fixtures have error-level findings");
    assert_eq!(messages.len(), report.findings.len());
    // cargo's stream reader sees the same messages, and no stray text lines.
    let streamed: Vec<Message> = Message::parse_stream(output.as_bytes()).map(Result::unwrap).collect();
    assert!(streamed.iter().all(|m| !matches!(m, Message::TextLine(_))));
    assert_eq!(streamed.len(), report.findings.len() + 1);

    for (m, f) in messages.iter().zip(&report.findings) {
        let d: &Diagnostic = &m.message;
        assert_eq!(d.code.as_ref().unwrap().code, f.rule.code());
        assert_eq!(d.message, f.message);
        assert_eq!(d.level, if f.level == Level::Error { DiagnosticLevel::Error } else { DiagnosticLevel::Warning });
        assert_eq!(d.rendered.as_deref(), Some(human::render_finding(f, false).as_str()));
        let primary: Vec<&DiagnosticSpan> = d.spans.iter().filter(|s| s.is_primary).collect();
        assert_eq!(primary.len(), 1);
        assert_eq!(primary[0].file_name, f.primary.file.rel_path);
        assert_eq!((primary[0].byte_start as usize)..(primary[0].byte_end as usize), f.primary.range);
        assert_eq!(primary[0].label.as_deref().unwrap_or(""), f.primary.message);
        assert_eq!(d.spans.len(), 1 + f.secondary.len());
        for (s, l) in d.spans.iter().filter(|s| !s.is_primary).zip(&f.secondary) {
            assert_eq!(s.file_name, l.file.rel_path);
            assert_eq!(s.label.as_deref(), Some(l.message.as_str()));
        }
        for s in &d.spans {
            assert_span_points_at_its_text(&report.root, s);
        }
        let helps = d.children.iter().filter(|c| c.level == DiagnosticLevel::Help).count();
        let notes = d.children.iter().filter(|c| c.level == DiagnosticLevel::Note).count();
        assert_eq!(helps, usize::from(f.help.is_some()) + usize::from(f.fix.is_some()));
        assert_eq!(notes, f.notes.len());
        // The package and target are the crate the file belongs to.
        let top = f.primary.file.rel_path.split('/').next().unwrap();
        let crate_name = match top {
            "plan-cache" | "paged-kv" | "donation" | "graph-replay" => format!("fixture_{}", top.replace('-', "_")),
            // A workspace of its own: `engine-shapes/<package>/src/..`.
            "engine-shapes" => f.primary.file.rel_path.split('/').nth(1).unwrap().to_string(),
            // A folder with `src/` among the rule fixtures is a crate of its own (files across modules).
            "rules" if f.primary.file.rel_path.split('/').nth(2) == Some("src") => f.primary.file.rel_path.split('/').nth(1).unwrap().replace('-', "_"),
            _ => "fixtures".to_string(),
        };
        assert_eq!(m.target.name, crate_name, "{}", f.primary.file.rel_path);
        assert!(m.package_id.repr.starts_with("path+file:///"), "{}", m.package_id.repr);
        assert!(m.target.src_path.is_absolute());
    }
    // Secondary labels in another file than the primary (the contract) are there.
    assert!(messages.iter().any(|m| {
        let spans = &m.message.spans;
        spans.iter().any(|s| !s.is_primary && s.file_name != spans[0].file_name)
    }));
}

#[test]
fn json_snapshot() {
    let report = check_fixtures();
    let output = render(Format::Json(Rendered::Plain), &report);
    let mut pretty = String::new();
    for line in output.lines() {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        // `rendered` is the human form, checked above and snapshotted in `human_snapshot`.
        if let Some(rendered) = value.pointer_mut("/message/rendered") {
            *rendered = "[human form]".into();
        }
        pretty.push_str(&serde_json::to_string_pretty(&value).unwrap());
        pretty.push('\n');
    }
    insta::assert_snapshot!(redact(&pretty));
}

#[test]
fn json_rendered_variants() {
    let report = check_fixtures();
    let (ansi, _) = compiler_messages(&render(Format::Json(Rendered::Ansi), &report));
    assert!(ansi.iter().all(|m| m.message.rendered.as_deref().unwrap().contains("\u{1b}[")));
    let (short, _) = compiler_messages(&render(Format::Json(Rendered::Short), &report));
    for (m, f) in short.iter().zip(&report.findings) {
        let rendered = m.message.rendered.as_deref().unwrap();
        assert_eq!(rendered.lines().count(), 1);
        assert!(rendered.starts_with(&format!("{}:{}:", f.primary.file.rel_path, f.line())), "{rendered}");
    }
}

#[test]
fn a_clean_check_ends_with_a_successful_build() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), "fn main() {}\n").unwrap();
    let report = reuse_check::check(&Target { path: Some(dir.path().to_path_buf()), ..Target::default() }).unwrap();
    let output = render::render(Format::Json(Rendered::Plain), &report, &RenderOptions { success: true, ..RenderOptions::default() });
    assert_eq!(output, "{\"reason\":\"build-finished\",\"success\":true}\n");
}

// ---- SARIF ----------------------------------------------------------------------------------

fn sarif(report: &Report) -> serde_json::Value {
    serde_json::from_str(&render(Format::Sarif, report)).expect("SARIF output is JSON")
}

#[test]
fn sarif_snapshot() {
    insta::assert_snapshot!(redact(&render(Format::Sarif, &check_fixtures())));
}

/// The official schema's `language` patterns (of `run` and `toolComponent`) has a stray `]`, which ECMAScript reads as a
/// literal (Annex B) but a strict regex parser rejects, and with it the whole schema (its
/// meta-schema asserts `format: regex`). The shipped file stays as published; the test escapes the
/// bracket, which keeps the pattern's meaning.
const LANGUAGE_PATTERN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";

fn escape_language_pattern(schema: &mut serde_json::Value) -> usize {
    match schema {
        serde_json::Value::Object(map) => {
            let mut n = 0;
            for (key, value) in map.iter_mut() {
                if key == "pattern" && value == LANGUAGE_PATTERN {
                    *value = LANGUAGE_PATTERN.replace("]?$", "\\]?$").into();
                    n += 1;
                } else {
                    n += escape_language_pattern(value);
                }
            }
            n
        }
        serde_json::Value::Array(items) => items.iter_mut().map(escape_language_pattern).sum(),
        _ => 0,
    }
}

fn validate(schema_file: &str, instance: &serde_json::Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(schema_file);
    let mut schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    escape_language_pattern(&mut schema);
    let validator = jsonschema::options().build(&schema).expect("the schema compiles");
    validator.iter_errors(instance).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let log = sarif(&check_fixtures());
    // The OASIS schema, and the revision Microsoft's SARIF SDK (and its validator) ships.
    for schema in ["sarif-schema-2.1.0.json", "sarif-schema-2.1.0.sarif-sdk.json"] {
        let errors = validate(schema, &log);
        assert!(errors.is_empty(), "{schema}:\n{}", errors.join("\n"));
    }
    // The validator does reject what breaks the schema.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert_eq!(validate("sarif-schema-2.1.0.json", &broken).len(), 2);
}

#[test]
fn sarif_results_name_listed_rules_and_repo_relative_uris() {
    let report = check_fixtures();
    let log = sarif(&report);
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for rule in rules {
        assert!(rule["shortDescription"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(rule["help"]["text"].as_str().unwrap().contains("## What it checks"));
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), report.findings.len());
    for (r, f) in results.iter().zip(&report.findings) {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], f.rule.name);
        assert_eq!(r["ruleId"], f.rule.name);
        let location = &r["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], format!("fixtures/{}", f.primary.file.rel_path));
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(location["region"]["startLine"], f.line());
        assert_eq!(r["level"], if f.level == Level::Error { "error" } else { "warning" });
    }
    let fingerprints: BTreeSet<&str> = results.iter().map(|r| r["partialFingerprints"]["reuseCheck/v1"].as_str().unwrap()).collect();
    assert_eq!(fingerprints.len(), results.len(), "fingerprints are unique");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// `(fingerprint, start line)` of each result of a check of `dir`.
fn fingerprints(dir: &Path) -> BTreeSet<(String, u64)> {
    let report = reuse_check::check(&Target { path: Some(dir.to_path_buf()), ..Target::default() }).unwrap();
    let log: serde_json::Value = serde_json::from_str(&reuse_check::render::sarif::render(&report, dir)).unwrap();
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let fp = r["partialFingerprints"]["reuseCheck/v1"].as_str().unwrap().to_string();
            (fp, r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn sarif_fingerprints_survive_moved_code() {
    // The sources only: a tree without a manifest is checked as a plain directory.
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("paged-kv");
    copy_dir(&fixtures_dir().join("paged-kv/src"), &fixture.join("src"));
    let before = fingerprints(&fixture);
    assert!(!before.is_empty());
    let buggy = fixture.join("src/buggy.rs");
    let text = std::fs::read_to_string(&buggy).unwrap();
    std::fs::write(&buggy, format!("// a header\n\n// that moves everything down\n{text}")).unwrap();
    let after = fingerprints(&fixture);
    let ids = |s: &BTreeSet<(String, u64)>| s.iter().map(|(f, _)| f.clone()).collect::<BTreeSet<_>>();
    assert_eq!(ids(&before), ids(&after));
    assert_ne!(before, after, "the lines did move");
}

// ---- GitHub annotations ----------------------------------------------------------------------

#[test]
fn github_snapshot() {
    insta::assert_snapshot!(render(Format::Github, &check_fixtures()));
}

#[test]
fn github_annotations_are_well_formed() {
    let report = check_fixtures();
    let output = render(Format::Github, &report);
    let annotations: Vec<&str> = output.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), report.findings.len());
    for (a, f) in annotations.iter().zip(&report.findings) {
        let (command, rest) = a[2..].split_once(' ').unwrap();
        assert_eq!(command, if f.level == Level::Error { "error" } else { "warning" });
        let (props, message) = rest.split_once("::").unwrap();
        assert!(!message.contains('\n') && !message.contains('\r'));
        let props: Vec<(&str, &str)> = props.split(',').map(|p| p.split_once('=').unwrap()).collect();
        let get = |k: &str| props.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        assert_eq!(get("file").unwrap(), format!("fixtures/{}", f.primary.file.rel_path));
        assert_eq!(get("title").unwrap(), f.rule.code().replace(':', "%3A"));
        let (line, end_line) = (get("line").unwrap(), get("endLine").unwrap());
        assert_eq!(line, f.line().to_string());
        // Columns only where the finding starts and ends on one line.
        assert_eq!(get("col").is_some(), line == end_line, "{a}");
        assert_eq!(get("endColumn").is_some(), line == end_line, "{a}");
    }
}

// ---- the command line -----------------------------------------------------------------------

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A Cargo workspace with one package whose library breaks a contract.
fn cargo_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", "[workspace]\nmembers = [\"kv\"]\nresolver = \"2\"\n");
    write(dir.path(), "kv/Cargo.toml", "[package]\nname = \"kv-cache\"\nversion = \"0.3.1\"\nedition = \"2021\"\n");
    write(
        dir.path(),
        "kv/src/lib.rs",
        "pub const PAD_SLOT_ID: i64 = -1;\n\n\
         #[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\n\
         pub fn write(cache: &mut [f32], slots: &[i64]) {}\n\n\
         pub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    write(cache, &slots);\n}\n",
    );
    dir
}

fn run(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reuse-check")).args(args).current_dir(cwd).output().unwrap()
}

#[derive(serde::Deserialize)]
struct CargoPackage {
    id: String,
    name: String,
}

fn cargo_package_ids(dir: &Path) -> Vec<CargoPackage> {
    #[derive(serde::Deserialize)]
    struct Metadata {
        packages: Vec<CargoPackage>,
    }
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(dir)
        .output()
        .unwrap();
    serde_json::from_slice::<Metadata>(&out.stdout).unwrap().packages
}

/// Exactly what rust-analyzer runs with `"rust-analyzer.check.command": "reuse-check"` (per
/// workspace, and per package with `-p <package id>`), with its usual cargo flags.
#[test]
fn rust_analyzer_invocations_are_accepted_and_name_cargos_package() {
    let ws = cargo_workspace();
    let root = ws.path();
    let manifest = root.join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let package = cargo_package_ids(root).into_iter().find(|p| p.name == "kv-cache").unwrap();
    let flags = [
        "--message-format=json-diagnostic-rendered-ansi",
        "--manifest-path",
        manifest,
        "--keep-going",
        "--all-targets",
        "--all-features",
        "--target-dir",
        "target/rust-analyzer",
        "--target",
        "x86_64-unknown-linux-gnu",
        "--locked",
        "--offline",
        "--frozen",
        "-q",
        "--lib",
        "--tests",
        "--bins",
        "--examples",
        "--benches",
    ];
    for scope in [vec!["reuse-check", "--workspace"], vec!["reuse-check", "-p", &package.id], vec!["reuse-check", "-p", "kv-cache@0.3.1"]] {
        let args: Vec<&str> = scope.iter().copied().chain(flags).collect();
        let out = run(&args, root);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let (messages, success) = compiler_messages(&String::from_utf8(out.stdout).unwrap());
        assert!(!success);
        assert_eq!(messages.len(), 1);
        let m = &messages[0];
        assert_eq!(m.package_id.repr, package.id, "the package ID is cargo's");
        assert_eq!(m.target.name, "kv_cache");
        assert_eq!(m.target.src_path, root.join("kv/src/lib.rs").canonicalize().unwrap());
        assert_eq!(m.message.code.as_ref().unwrap().code, "reuse::pad_to_null_block");
        let span = &m.message.spans[0];
        assert_eq!(span.file_name, "kv/src/lib.rs", "relative to the workspace root, as cargo's");
        assert_span_points_at_its_text(root, span);
        assert!(m.message.rendered.as_deref().unwrap().contains("\u{1b}["));
    }
    // Other cargo flags rust-analyzer or a user may pass.
    let out = run(&["--workspace", "--no-default-features", "--features", "a b", "-F", "c", "--bin", "x", "--test", "t", "-Zscript", "--message-format", "json", "--manifest-path", manifest], root);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn every_format_runs_from_the_command_line() {
    let ws = cargo_workspace();
    let root = ws.path();
    for (args, first) in [
        (vec!["--format", "sarif"], "{"),
        (vec!["--format", "github"], "::error file=kv/src/lib.rs,line=7,col=22,endColumn=23,endLine=7,title=reuse%3A%3Apad_to_null_block::"),
        (vec!["--format", "short"], "kv/src/lib.rs:7:22: error[reuse::pad_to_null_block]"),
        (vec!["--format", "json"], "{\"reason\":\"compiler-message\""),
        (vec!["--message-format", "short"], "kv/src/lib.rs:7:22: error[reuse::pad_to_null_block]"),
        (vec!["--message-format", "json-diagnostic-short"], "{\"reason\":\"compiler-message\""),
        (vec!["--message-format", "human", "--color", "never"], "[reuse::pad_to_null_block] Error"),
    ] {
        let out = run(&args, root);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.starts_with(first), "{args:?}:\n{stdout}");
    }
    // `json-render-diagnostics`: the rendered findings on stderr, only cargo's last line on stdout.
    let out = run(&["--message-format", "json-render-diagnostics"], root);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "{\"reason\":\"build-finished\",\"success\":false}\n");
    assert!(String::from_utf8(out.stderr).unwrap().contains("reuse::pad_to_null_block"));
}

#[test]
fn bad_format_flags_exit_2() {
    let ws = cargo_workspace();
    for args in [
        vec!["--format", "xml"],
        vec!["--message-format", "yaml"],
        vec!["--format", "sarif", "--message-format", "json"],
        vec!["--message-format", "human,json"],
    ] {
        let out = run(&args, ws.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
