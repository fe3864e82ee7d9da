//! `--message-format json`: the stream `cargo check --message-format json` prints, so that
//! rust-analyzer (through `rust-analyzer.check.overrideCommand`) and any other reader of cargo's
//! messages shows findings like compiler diagnostics.
//!
//! One `{"reason":"compiler-message",...}` object per line and per finding, in rustc's diagnostic
//! schema: `code.code` is `reuse::RULE`; the primary label and each secondary label (possibly in
//! another file, such as the contract clause that was broken) is a span with byte offsets and
//! 1-based lines and character columns (end exclusive, as rustc's); help and notes are children,
//! and a fix is a help child whose span carries the replacement; `rendered` is the human form.
//! The stream ends with `{"reason":"build-finished","success":...}`, as cargo's does.

use std::path::{Path, PathBuf};

use reuse_rules::Level;
use serde::Serialize;

use crate::engine::Report;
use crate::finding::{Finding, Label};
use crate::render::{human, position};
use crate::workspace::{PackageInfo, TargetInfo};

/// What the `rendered` field holds, after cargo's `--message-format` variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rendered {
    /// `json`: the human form without color.
    Plain,
    /// `json-diagnostic-rendered-ansi`: the human form with ANSI colors (what rust-analyzer asks for).
    Ansi,
    /// `json-diagnostic-short`: the one-line form.
    Short,
}

pub fn render(report: &Report, rendered: Rendered, success: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let package = package_of(report, &f.primary.file.path);
        let line = serde_json::to_string(&compiler_message(report, &package, f, rendered)).expect("plain data serializes");
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&build_finished(success));
    out
}

/// Cargo's last line: `{"reason":"build-finished","success":true}`.
pub fn build_finished(success: bool) -> String {
    let line = serde_json::to_string(&BuildFinished { reason: "build-finished", success }).expect("plain data serializes");
    line + "\n"
}

#[derive(Serialize)]
struct BuildFinished {
    reason: &'static str,
    success: bool,
}

#[derive(Serialize)]
struct CompilerMessage<'a> {
    reason: &'static str,
    package_id: &'a str,
    manifest_path: &'a Path,
    target: Target<'a>,
    message: Diagnostic,
}

#[derive(Serialize)]
struct Target<'a> {
    kind: &'a [String],
    crate_types: &'a [String],
    name: &'a str,
    src_path: &'a Path,
    edition: &'a str,
    doc: bool,
    doctest: bool,
    test: bool,
}

/// rustc's JSON diagnostic (`rustc --error-format json`).
#[derive(Serialize)]
struct Diagnostic {
    #[serde(rename = "$message_type")]
    message_type: &'static str,
    message: String,
    code: Option<Code>,
    level: &'static str,
    spans: Vec<Span>,
    children: Vec<Diagnostic>,
    rendered: Option<String>,
}

#[derive(Serialize)]
struct Code {
    code: String,
    explanation: Option<String>,
}

#[derive(Serialize)]
struct Span {
    file_name: String,
    byte_start: usize,
    byte_end: usize,
    line_start: usize,
    line_end: usize,
    column_start: usize,
    column_end: usize,
    is_primary: bool,
    text: Vec<SpanLine>,
    label: Option<String>,
    suggested_replacement: Option<String>,
    suggestion_applicability: Option<&'static str>,
    expansion: Option<()>,
}

#[derive(Serialize)]
struct SpanLine {
    text: String,
    highlight_start: usize,
    highlight_end: usize,
}

fn compiler_message<'a>(report: &Report, package: &'a PackageInfo, f: &Finding, rendered: Rendered) -> CompilerMessage<'a> {
    let target = &package.target;
    CompilerMessage {
        reason: "compiler-message",
        package_id: &package.id,
        manifest_path: &package.manifest_path,
        target: Target {
            kind: &target.kind,
            crate_types: &target.crate_types,
            name: &target.name,
            src_path: &target.src_path,
            edition: &target.edition,
            doc: true,
            doctest: true,
            test: true,
        },
        message: diagnostic(report, f, rendered),
    }
}

fn diagnostic(report: &Report, f: &Finding, rendered: Rendered) -> Diagnostic {
    let mut spans = vec![span(report, &f.primary, true)];
    spans.extend(f.secondary.iter().map(|l| span(report, l, false)));
    let mut children = Vec::new();
    if let Some(fix) = &f.fix {
        let label = Label::new(&f.primary.file, fix.range.clone(), String::new());
        let mut s = span(report, &label, true);
        s.label = None;
        s.suggested_replacement = Some(fix.replacement.clone());
        s.suggestion_applicability = Some("MaybeIncorrect");
        children.push(child("help", &fix.message, vec![s]));
    }
    if let Some(help) = &f.help {
        children.push(child("help", help, Vec::new()));
    }
    for note in &f.notes {
        children.push(child("note", note, Vec::new()));
    }
    let rendered = match rendered {
        Rendered::Plain => human::render_finding(f, false),
        Rendered::Ansi => human::render_finding(f, true),
        Rendered::Short => human::render_finding_short(f),
    };
    Diagnostic {
        message_type: "diagnostic",
        message: f.message.clone(),
        code: Some(Code { code: f.rule.code(), explanation: None }),
        level: level(f.level),
        spans,
        children,
        rendered: Some(rendered),
    }
}

fn child(level: &'static str, message: &str, spans: Vec<Span>) -> Diagnostic {
    Diagnostic { message_type: "diagnostic", message: message.to_string(), code: None, level, spans, children: Vec::new(), rendered: None }
}

fn level(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn | Level::Allow => "warning",
    }
}

/// A label as a rustc span. `file_name` is relative to the workspace root, as cargo's are.
fn span(report: &Report, label: &Label, is_primary: bool) -> Span {
    let file = &label.file;
    let (start, end) = position::span(file, &label.range);
    let text = (start.line..=end.line)
        .map(|line| {
            let text = file.line_text(line - 1).to_string();
            let highlight_start = if line == start.line { start.column } else { 1 };
            let highlight_end = if line == end.line { end.column } else { text.chars().count() + 1 };
            SpanLine { text, highlight_start, highlight_end }
        })
        .collect();
    Span {
        file_name: file_name(report, &file.path, &file.rel_path),
        byte_start: label.range.start,
        byte_end: label.range.end.max(label.range.start),
        line_start: start.line,
        line_end: end.line,
        column_start: start.column,
        column_end: end.column,
        is_primary,
        text,
        label: (!label.message.is_empty()).then(|| label.message.clone()),
        suggested_replacement: None,
        suggestion_applicability: None,
        expansion: None,
    }
}

/// The workspace-relative path; a file outside the workspace (a contracts file elsewhere) keeps
/// its path as given, which readers resolve against the workspace root only if it is relative.
fn file_name(report: &Report, path: &Path, rel_path: &str) -> String {
    if path.strip_prefix(&report.root).is_ok() {
        rel_path.to_string()
    } else {
        path.display().to_string()
    }
}

/// The package a file belongs to: the one whose directory is the longest prefix of its path.
/// A file of no package (a contracts file outside every package) is attributed to the workspace.
fn package_of(report: &Report, path: &Path) -> PackageInfo {
    let best = report.packages.iter().filter(|p| path.starts_with(&p.dir)).max_by_key(|p| p.dir.components().count());
    match best {
        Some(p) => p.clone(),
        None => workspace_package(&report.root),
    }
}

fn workspace_package(root: &Path) -> PackageInfo {
    let abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let name = abs.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "workspace".into());
    let url = url::Url::from_directory_path(&abs).map(|u| u.to_string()).unwrap_or_else(|_| format!("file://{}/", abs.display()));
    let crate_name = name.replace('-', "_");
    PackageInfo {
        id: format!("path+{}#{name}@0.0.0", url.trim_end_matches('/')),
        name,
        version: "0.0.0".into(),
        manifest_path: abs.join("Cargo.toml"),
        dir: abs.clone(),
        target: TargetInfo {
            name: crate_name,
            kind: vec!["lib".into()],
            crate_types: vec!["lib".into()],
            src_path: abs.join(PathBuf::from("src/lib.rs")),
            edition: "2021".into(),
        },
    }
}
