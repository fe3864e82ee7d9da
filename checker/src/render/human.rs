//! Terminal output with ariadne: the offending line with the primary label, secondary labels at the
//! contract clause (in whatever file it is), help and notes, and a summary line.

use std::path::{Path, PathBuf};

use ariadne::{Color, Config, IndexType, Label, Report as AReport, ReportKind};
use reuse_rules::Level;

use crate::engine::Report;
use crate::finding::Finding;
use crate::source::SourceFile;

/// How files are named in human and short output.
#[derive(Clone, Debug, Default)]
pub enum PathStyle {
    /// Relative to the checked root (the library's default, and what snapshots show).
    #[default]
    Root,
    /// What a user can open from where they ran the command: relative to this directory (the
    /// current one) when the file is below it, else absolute.
    From(PathBuf),
}

impl PathStyle {
    pub fn show(&self, file: &SourceFile) -> String {
        match self {
            PathStyle::Root => file.rel_path.clone(),
            PathStyle::From(cwd) => shown_from(&file.path, cwd),
        }
    }
}

/// `path` as seen from `cwd`: relative when below it, else absolute (links resolved).
pub(crate) fn shown_from(path: &Path, cwd: &Path) -> String {
    super::relative_to(path, cwd)
        .unwrap_or_else(|| super::canonical(path).unwrap_or_else(|| path.to_path_buf()).display().to_string())
}

pub fn render(report: &Report, color: bool) -> String {
    render_with(report, color, &PathStyle::Root, false)
}

/// Every finding, then the summary line unless `quiet`.
pub fn render_with(report: &Report, color: bool, paths: &PathStyle, quiet: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&render_finding_at(f, color, paths));
    }
    if !quiet {
        out.push_str(&summary(report));
    }
    out
}

/// `1 file`, `2 files`.
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `reuse-check: 2 errors, 1 warning in 12 files (...)`, with its newline.
pub fn summary(report: &Report) -> String {
    let (e, w) = (report.count(Level::Error), report.count(Level::Warn));
    format!(
        "reuse-check: {}, {} in {} ({}, {} parsed)\n",
        count(e, "error"),
        count(w, "warning"),
        count(report.stats.files, "file"),
        count(report.stats.lines, "line"),
        report.stats.parsed
    )
}

/// The `short` form (`--format short`, `--message-format short`): one line per finding.
pub fn render_short(report: &Report) -> String {
    render_short_with(report, &PathStyle::Root, false)
}

pub fn render_short_with(report: &Report, paths: &PathStyle, quiet: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&short_line(f, paths));
    }
    if !quiet {
        out.push_str(&summary(report));
    }
    out
}

/// `path:line:col: error[reuse::rule]: message`, as rustc's short diagnostics, with its newline.
pub fn render_finding_short(f: &Finding) -> String {
    short_line(f, &PathStyle::Root)
}

fn short_line(f: &Finding, paths: &PathStyle) -> String {
    let at = f.primary.file.line_col(f.primary.range.start);
    format!("{}:{}:{}: {}[{}]: {}\n", paths.show(&f.primary.file), at.line, at.column, f.level, f.rule.code(), f.message)
}

pub fn render_finding(f: &Finding, color: bool) -> String {
    render_finding_at(f, color, &PathStyle::Root)
}

pub fn render_finding_at(f: &Finding, color: bool, paths: &PathStyle) -> String {
    let kind = match f.level {
        Level::Error => ReportKind::Error,
        _ => ReportKind::Warning,
    };
    let id = paths.show(&f.primary.file);
    let mut files = vec![(id.clone(), f.primary.file.text.clone())];
    for s in &f.secondary {
        let sid = paths.show(&s.file);
        if !files.iter().any(|(i, _)| *i == sid) {
            files.push((sid, s.file.text.clone()));
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
            Label::new((paths.show(&s.file), s.range.clone())).with_message(&s.message).with_color(Color::Blue).with_order(i as i32 + 1),
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
        Ok(()) => tidy(&String::from_utf8_lossy(&buf)),
        Err(e) => format!("{}: {}: {} (could not render: {e})\n", paths.show(&f.primary.file), f.rule.code(), f.message),
    }
}

/// A diagnostic about a file that is not Rust (a manifest): its line with `range` underlined and
/// `message` at it, as cargo shows configuration errors.
pub fn render_source_snippet(path: &Path, text: &str, range: std::ops::Range<usize>, message: &str, color: bool) -> String {
    let id = std::env::current_dir().map(|cwd| shown_from(path, &cwd)).unwrap_or_else(|_| path.display().to_string());
    let config = Config::default().with_color(color).with_index_type(IndexType::Byte);
    let report = AReport::build(ReportKind::Error, (id.clone(), range.clone()))
        .with_config(config)
        .with_label(Label::new((id.clone(), range)).with_message(message).with_color(Color::Red))
        .finish();
    let mut buf = Vec::new();
    match report.write(ariadne::sources([(id, text.to_string())]), &mut buf) {
        // Without ariadne's header line: the error line above it says what is wrong.
        Ok(()) => tidy(&String::from_utf8_lossy(&buf)).split_once('\n').map(|(_, body)| body.to_string()).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

const RESET: &str = "\x1b[0m";

/// ariadne's output made quieter: one escape sequence per coloured span rather than one per
/// character (a reset followed at once by the colour in force is dropped), and no trailing spaces.
pub fn tidy(text: &str) -> String {
    let mut merged = String::with_capacity(text.len());
    let mut active: Option<&str> = None;
    let mut rest = text;
    while let Some(i) = rest.find('\x1b') {
        merged.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find('m') else { break };
        let (seq, after) = rest.split_at(end + 1);
        rest = after;
        if seq == RESET {
            if let Some(open) = active.filter(|open| rest.starts_with(open)) {
                rest = &rest[open.len()..];
                continue;
            }
            active = None;
        } else {
            active = Some(seq);
        }
        merged.push_str(seq);
    }
    merged.push_str(rest);
    let mut out = String::with_capacity(merged.len());
    for line in merged.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        out.push_str(&trim_end_styled(body));
        out.push_str(newline);
    }
    out
}

/// A line without the spaces at its end, also those inside a coloured span that ends it
/// (`\x1b[31m┬\x1b[0m  `, `\x1b[2m  \x1b[0m`); a span left empty is dropped.
fn trim_end_styled(line: &str) -> String {
    let mut line = line.trim_end_matches(' ').to_string();
    while let Some(before) = line.strip_suffix(RESET) {
        let trimmed = before.trim_end_matches(' ');
        let open = trimmed.rfind('\x1b').filter(|&open| trimmed[open..].find('m') == Some(trimmed.len() - open - 1));
        match open {
            // `OPEN RESET` with nothing between: drop both and look again.
            Some(open) => line = trimmed[..open].trim_end_matches(' ').to_string(),
            None => {
                line = format!("{trimmed}{RESET}");
                break;
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn one_escape_per_span_and_no_trailing_spaces() {
        let red = "\x1b[31m";
        let reset = "\x1b[0m";
        let text = format!("{red}a{reset}{red}b{reset}{red}c{reset} x  \n{red} {reset}{red} {reset}\nplain  \n");
        assert_eq!(tidy(&text), format!("{red}abc{reset} x\n\nplain\n"));
        assert_eq!(tidy(&format!("{red}┬{reset}  \n")), format!("{red}┬{reset}\n"));
        assert_eq!(tidy(&format!("│{red}x  {reset}\n")), format!("│{red}x{reset}\n"));
    }
}
