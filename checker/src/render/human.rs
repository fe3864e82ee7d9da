//! Terminal output with ariadne: the offending line with the primary label, secondary labels at the
//! contract clause (in whatever file it is), help and notes, and a summary line.

use ariadne::{Color, Config, IndexType, Label, Report as AReport, ReportKind};
use reuse_rules::Level;

use crate::engine::Report;
use crate::finding::Finding;

pub fn render(report: &Report, color: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&render_finding(f, color));
    }
    out.push_str(&summary(report));
    out
}

/// `reuse-check: 2 errors, 1 warning in 12 files (...)`, with its newline.
pub fn summary(report: &Report) -> String {
    let (e, w) = (report.count(Level::Error), report.count(Level::Warn));
    format!(
        "reuse-check: {e} error{}, {w} warning{} in {} files ({} lines, {} parsed)\n",
        if e == 1 { "" } else { "s" },
        if w == 1 { "" } else { "s" },
        report.stats.files,
        report.stats.lines,
        report.stats.parsed
    )
}

/// The `short` form (`--format short`, `--message-format short`): one line per finding.
pub fn render_short(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&render_finding_short(f));
    }
    out.push_str(&summary(report));
    out
}

/// `path:line:col: error[reuse::rule]: message`, as rustc's short diagnostics, with its newline.
pub fn render_finding_short(f: &Finding) -> String {
    let at = f.primary.file.line_col(f.primary.range.start);
    format!("{}:{}:{}: {}[{}]: {}\n", f.primary.file.rel_path, at.line, at.column, f.level, f.rule.code(), f.message)
}

pub fn render_finding(f: &Finding, color: bool) -> String {
    let kind = match f.level {
        Level::Error => ReportKind::Error,
        _ => ReportKind::Warning,
    };
    let id = f.primary.file.rel_path.clone();
    let mut files = vec![(id.clone(), f.primary.file.text.clone())];
    for s in &f.secondary {
        if !files.iter().any(|(i, _)| *i == s.file.rel_path) {
            files.push((s.file.rel_path.clone(), s.file.text.clone()));
        }
    }
    let config = Config::default().with_color(color).with_index_type(IndexType::Byte);
    let mut report = AReport::build(kind, (id.clone(), f.primary.range.clone()))
        .with_config(config)
        .with_code(f.rule.code())
        .with_message(&f.message)
        .with_label(Label::new((id, f.primary.range.clone())).with_message(&f.primary.message).with_color(Color::Red).with_order(0));
    for (i, s) in f.secondary.iter().enumerate() {
        report = report.with_label(
            Label::new((s.file.rel_path.clone(), s.range.clone())).with_message(&s.message).with_color(Color::Blue).with_order(i as i32 + 1),
        );
    }
    if let Some(h) = &f.help {
        report = report.with_help(h);
    }
    for n in &f.notes {
        report = report.with_note(n);
    }
    let mut buf = Vec::new();
    let written = report.finish().write(ariadne::sources(files), &mut buf);
    match written {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(e) => format!("{}: {}: {} (could not render: {e})\n", f.primary.file.rel_path, f.rule.code(), f.message),
    }
}
