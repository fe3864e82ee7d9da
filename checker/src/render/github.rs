//! `--format github`: GitHub Actions workflow commands, one annotation per finding
//! (`::error file=..,line=..,endLine=..,title=..::message`), shown on the pull request's diff.
//!
//! Paths are relative to the repository root (the nearest ancestor of the checked root with a
//! `.git`), which is what the runner resolves them against. Columns are given only
//! when a finding starts and ends on one line: GitHub ignores them otherwise. Values are escaped
//! as the runner expects: `%`, CR and LF in the message; also `:` and `,` in properties. The
//! message carries the secondary labels, help and notes on lines of their own.

use std::path::Path;

use reuse_rules::Level;

use crate::engine::Report;
use crate::finding::Finding;
use crate::render::{human, position, relative_to};
use crate::source::SourceFile;

/// Annotations for `report`; files are named relative to `base` (the repository root).
pub fn render(report: &Report, base: &Path) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&annotation(f, base));
        out.push('\n');
    }
    out.push_str(&human::summary(report));
    out
}

fn annotation(f: &Finding, base: &Path) -> String {
    let command = match f.level {
        Level::Error => "error",
        Level::Warn | Level::Allow => "warning",
    };
    let (start, end) = position::span(&f.primary.file, &f.primary.range);
    let mut props = vec![("file", path(&f.primary.file, base)), ("line", start.line.to_string())];
    if start.line == end.line {
        props.push(("col", start.column.to_string()));
        props.push(("endColumn", end.column.max(start.column).to_string()));
    }
    props.push(("endLine", end.line.to_string()));
    props.push(("title", f.rule.code()));
    let props: Vec<String> = props.iter().map(|(k, v)| format!("{k}={}", escape_property(v))).collect();
    format!("::{command} {}::{}", props.join(","), escape_data(&message(f, base)))
}

fn path(file: &SourceFile, base: &Path) -> String {
    relative_to(&file.path, base).unwrap_or_else(|| file.rel_path.clone())
}

fn message(f: &Finding, base: &Path) -> String {
    let mut text = f.message.clone();
    if !f.primary.message.is_empty() {
        text.push_str(&format!("\n{}", f.primary.message));
    }
    for l in &f.secondary {
        let at = l.file.line_col(l.range.start);
        text.push_str(&format!("\n{}:{}:{}: {}", path(&l.file, base), at.line, at.column, l.message));
    }
    if let Some(help) = &f.help {
        text.push_str(&format!("\nhelp: {help}"));
    }
    for note in &f.notes {
        text.push_str(&format!("\nnote: {note}"));
    }
    text
}

/// The message of a workflow command.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_runner_expects() {
        assert_eq!(escape_data("50% done\r\nnext: a, b"), "50%25 done%0D%0Anext: a, b");
        assert_eq!(escape_property("reuse::x,y%"), "reuse%3A%3Ax%2Cy%25");
    }
}
