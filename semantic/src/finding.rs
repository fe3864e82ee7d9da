//! What the analysis reports: findings with a primary label, secondary labels (possibly in other
//! files, such as the contract clause that was broken), help and notes. Renderers turn these into
//! terminal output, cargo JSON, SARIF, GitHub annotations and LSP diagnostics.

use std::ops::Range;

use reuse_rules::{Level, Rule};

use crate::source::FileRef;

/// A labelled range of a file.
#[derive(Clone, Debug)]
pub struct Label {
    pub file: FileRef,
    pub range: Range<usize>,
    pub message: String,
}

impl Label {
    pub fn new(file: &FileRef, range: Range<usize>, message: impl Into<String>) -> Label {
        Label { file: file.clone(), range, message: message.into() }
    }
}

/// A proposed edit (used by code actions and `--message-format json` suggestions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub range: Range<usize>,
    pub replacement: String,
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: &'static Rule,
    /// The effective level after configuration.
    pub level: Level,
    /// Lower case, no final period.
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
    pub notes: Vec<String>,
    pub fix: Option<Fix>,
}

impl Finding {
    pub fn new(rule: &'static Rule, message: impl Into<String>, primary: Label) -> Finding {
        Finding {
            rule,
            level: rule.default_level,
            message: message.into(),
            primary,
            secondary: Vec::new(),
            help: None,
            notes: Vec::new(),
            fix: None,
        }
    }
    pub fn with_secondary(mut self, label: Label) -> Finding {
        self.secondary.push(label);
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Finding {
        self.notes.push(note.into());
        self
    }
    pub fn with_fix(mut self, fix: Fix) -> Finding {
        self.fix = Some(fix);
        self
    }

    /// 1-based line of the primary label.
    pub fn line(&self) -> usize {
        self.primary.file.line_col(self.primary.range.start).line
    }

    /// A sort key that makes output order stable across runs and thread schedules.
    pub fn sort_key(&self) -> (String, usize, usize, &'static str) {
        (self.primary.file.rel_path.clone(), self.primary.range.start, self.primary.range.end, self.rule.name)
    }
}

/// Findings in output order, each once: a helper of a file called from two functions reports
/// what it puts at its own line once, whichever call found it, on the command line and in the
/// editor alike. A rule that reports where a bad value is made (`pad_to_null_block`,
/// `fallback_index`) reports it once however many paths take it to a kernel (a trait's default
/// `padded_slots` called by two runners, one through its `forward`): one fix, one finding, the
/// first by its message.
pub fn in_output_order(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()).then_with(|| a.message.cmp(&b.message)));
    let mut seen = std::collections::HashSet::new();
    findings.retain(|f| {
        let message = if one_per_origin(f) { String::new() } else { f.message.clone() };
        seen.insert((f.sort_key(), message))
    });
}

/// Whether `f`'s rule points at the origin of a bad value (the padding, the fallback), not at the
/// call it reaches.
fn one_per_origin(f: &Finding) -> bool {
    use reuse_rules::catalogue::{FALLBACK_INDEX, PAD_TO_NULL_BLOCK};
    [&PAD_TO_NULL_BLOCK, &FALLBACK_INDEX].iter().any(|r| r.name == f.rule.name)
}
