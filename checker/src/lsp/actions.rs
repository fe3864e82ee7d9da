//! Code actions on findings under the cursor:
//! - a finding with a [`crate::finding::Fix`] (a 0 padding value where the contract's skip
//!   sentinel belongs, `unwrap_or(0)` → `unwrap_or(PAD_SLOT_ID)`) gets a preferred quick fix;
//! - every suppressible finding gets "suppress on this line": a `// reuse-check: allow(RULE)
//!   <reason>` comment above its line, at the line's indentation. `<reason>` is a placeholder the
//!   user replaces: a suppression has to say why.

use std::collections::HashMap;
use std::path::Path;

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, TextEdit, Url, WorkspaceEdit};

use super::convert;
use crate::finding::Finding;
use crate::source::SourceFile;

/// The placeholder for the reason in an inserted suppression.
pub const REASON_PLACEHOLDER: &str = "<reason>";

/// Rules a suppression comment makes no sense for: they are about suppressions or parsing.
const NOT_SUPPRESSIBLE: &[&str] = &["parse_error", "unused_suppression", "suppression_without_reason"];

/// The actions for the findings whose primary range meets `range` (touching counts: a cursor at
/// either end of a finding is on it).
pub fn code_actions(uri: &Url, file: &SourceFile, findings: &[Finding], range: lsp_types::Range, root: &Path) -> Vec<CodeActionOrCommand> {
    let (start, end) = (convert::offset(file, range.start), convert::offset(file, range.end));
    let mut fixes = Vec::new();
    let mut suppressions = Vec::new();
    for f in findings {
        if f.primary.range.start > end || f.primary.range.end < start {
            continue;
        }
        let diagnostic = convert::diagnostic(f, root);
        if let Some(fix) = &f.fix {
            let edit = TextEdit { range: convert::range(file, &fix.range), new_text: fix.replacement.clone() };
            fixes.push(action(format!("{} ({})", capitalize(&fix.message), f.rule.name), uri, vec![edit], diagnostic.clone(), true));
        }
        if !NOT_SUPPRESSIBLE.contains(&f.rule.name) {
            let edit = suppression_edit(file, f.primary.range.start, f.rule.name);
            let title = format!("Suppress `{}` on this line", f.rule.name);
            if !suppressions.iter().any(|a: &CodeActionOrCommand| matches!(a, CodeActionOrCommand::CodeAction(c) if c.title == title)) {
                suppressions.push(action(title, uri, vec![edit], diagnostic, false));
            }
        }
    }
    fixes.extend(suppressions);
    fixes
}

/// `{indent}// reuse-check: allow(RULE) <reason>` inserted before the line holding `offset`.
pub fn suppression_edit(file: &SourceFile, offset: usize, rule: &str) -> TextEdit {
    let line = file.line_index(offset);
    let text = file.line_text(line);
    let indent = &text[..text.len() - text.trim_start().len()];
    let next = file.line_start(line + 1);
    let eol = if file.text.get(next.saturating_sub(2)..next) == Some("\r\n") { "\r\n" } else { "\n" };
    // The line's first byte as the client counts lines (a lone `\r` earlier ends a line too).
    let at = convert::position(file, file.line_start(line));
    TextEdit { range: lsp_types::Range { start: at, end: at }, new_text: format!("{indent}// reuse-check: allow({rule}) {REASON_PLACEHOLDER}{eol}") }
}

fn action(title: String, uri: &Url, edits: Vec<TextEdit>, diagnostic: lsp_types::Diagnostic, preferred: bool) -> CodeActionOrCommand {
    let changes = HashMap::from([(uri.clone(), edits)]);
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic]),
        edit: Some(WorkspaceEdit { changes: Some(changes), ..Default::default() }),
        command: None,
        is_preferred: preferred.then_some(true),
        disabled: None,
        data: None,
    })
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
