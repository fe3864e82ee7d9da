//! Findings to LSP diagnostics, and byte offsets to LSP positions and back.
//!
//! LSP positions are 0-based lines and UTF-16 code units (the default `positionEncoding`, the only
//! one every client supports); the checker works in byte offsets of UTF-8 text. A line with `é` or
//! `😀` before a finding is where the two differ.

use std::ops::Range;
use std::path::{Path, PathBuf};

use lsp_types::{Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Url};
use reuse_rules::Level;

use crate::finding::{Finding, Label};
use crate::source::{column_offset, editor_line_starts, SourceFile};

/// The `source` of every diagnostic the server publishes.
pub const SOURCE: &str = "reuse-check";

/// The LSP position of a byte offset. LSP ends a line at `\r\n`, `\n` and a lone `\r`.
pub fn position(file: &SourceFile, offset: usize) -> Position {
    let (line, character) = file.editor_position(offset);
    Position { line: line as u32, character: character as u32 }
}

pub fn range(file: &SourceFile, r: &Range<usize>) -> lsp_types::Range {
    lsp_types::Range { start: position(file, r.start), end: position(file, r.end.max(r.start)) }
}

/// The byte offset of an LSP position; positions past the end of a line or of the file clamp.
pub fn offset(file: &SourceFile, p: Position) -> usize {
    file.editor_offset(p.line as usize, p.character as usize)
}

/// The byte offset of an LSP position in plain text (documents being edited, which have no line
/// index yet). A position inside a surrogate pair or past the line's end clamps to a char boundary.
pub fn offset_in_text(text: &str, p: Position) -> usize {
    let start = match p.line {
        0 => 0,
        n => match editor_line_starts(text).nth(n as usize - 1) {
            Some(start) => start,
            None => return text.len(),
        },
    };
    column_offset(text, start, p.character as usize)
}

/// The `file://` URI of a path (made absolute against `root` if it is relative).
pub fn uri_of(path: &Path, root: &Path) -> Option<Url> {
    let abs: PathBuf = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
    Url::from_file_path(abs).ok()
}

/// One finding as an LSP diagnostic: `code` is `reuse::RULE`, secondary labels (often the contract
/// clause in another file) become related information, help and notes follow the message.
pub fn diagnostic(f: &Finding, root: &Path) -> Diagnostic {
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    for note in &f.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    let related: Vec<DiagnosticRelatedInformation> = std::iter::once(&f.primary)
        .filter(|l| !l.message.is_empty() && l.message != "here")
        .chain(&f.secondary)
        .filter_map(|l| related(l, root))
        .collect();
    Diagnostic {
        range: range(&f.primary.file, &f.primary.range),
        severity: Some(severity(f.level)),
        code: Some(NumberOrString::String(f.rule.code())),
        code_description: None,
        source: Some(SOURCE.to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

fn related(l: &Label, root: &Path) -> Option<DiagnosticRelatedInformation> {
    Some(DiagnosticRelatedInformation {
        location: Location { uri: uri_of(&l.file.path, root)?, range: range(&l.file, &l.range) },
        message: l.message.clone(),
    })
}

fn severity(level: Level) -> DiagnosticSeverity {
    match level {
        Level::Error => DiagnosticSeverity::ERROR,
        Level::Warn | Level::Allow => DiagnosticSeverity::WARNING,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use reuse_rules::catalogue::PAD_TO_NULL_BLOCK;

    use super::*;
    use crate::finding::{Finding, Label};

    fn file(text: &str) -> Arc<SourceFile> {
        Arc::new(SourceFile::new("/ws/src/a.rs".into(), "src/a.rs".into(), text.into()))
    }

    #[test]
    fn positions_on_non_ascii_lines_count_utf16_units() {
        // `é` is 2 bytes and 1 unit, `😀` 4 bytes and 2 units, `漢` 3 bytes and 1 unit.
        let f = file("// é\nlet s = \"😀漢\"; let x = 0;\n");
        let x = f.text.find("x =").unwrap();
        assert_eq!(position(&f, x), Position { line: 1, character: 19 });
        assert_eq!(offset(&f, Position { line: 1, character: 19 }), x);
        let zero = f.text.rfind('0').unwrap();
        let r = range(&f, &(zero..zero + 1));
        assert_eq!((r.start, r.end), (Position { line: 1, character: 23 }, Position { line: 1, character: 24 }));
        // Every char boundary round-trips.
        for (i, _) in f.text.char_indices() {
            assert_eq!(offset(&f, position(&f, i)), i, "offset {i}");
            assert_eq!(offset_in_text(&f.text, position(&f, i)), i, "offset {i} in plain text");
        }
    }

    #[test]
    fn positions_past_a_line_end_or_inside_a_surrogate_pair_clamp() {
        let f = file("a😀b\r\nc\n");
        // Inside the surrogate pair of 😀 (units 1..3): the offset of the next whole char.
        assert_eq!(offset_in_text(&f.text, Position { line: 0, character: 2 }), "a😀".len());
        // Past the end of line 0: before its `\r\n`.
        assert_eq!(offset_in_text(&f.text, Position { line: 0, character: 99 }), "a😀b".len());
        assert_eq!(offset_in_text(&f.text, Position { line: 9, character: 0 }), f.text.len());
        assert_eq!(offset_in_text(&f.text, Position { line: 1, character: 1 }), f.text.find('c').unwrap() + 1);
    }

    /// Issue 12: a lone `\r` (legal in a comment) ends a line for LSP; the server must count it,
    /// or every later position is one line off and the client's edits land on the wrong line.
    #[test]
    fn a_lone_carriage_return_ends_a_line_as_in_lsp() {
        let f = file("// a\rb\r\nlet é = 0;\n\rx\r");
        let zero = f.text.find('0').unwrap();
        assert_eq!(position(&f, zero), Position { line: 2, character: 8 });
        let x = f.text.find('x').unwrap();
        assert_eq!(position(&f, x), Position { line: 4, character: 0 });
        assert_eq!(position(&f, f.text.len()), Position { line: 5, character: 0 });
        assert_eq!(offset(&f, Position { line: 1, character: 0 }), f.text.find('b').unwrap());
        assert_eq!(offset(&f, Position { line: 1, character: 9 }), f.text.find('b').unwrap() + 1, "clamped before `\\r\\n`");
        for (i, _) in f.text.char_indices() {
            // Between the `\r` and `\n` of a `\r\n` is no LSP position of its own.
            if f.text[..i].ends_with('\r') && f.text[i..].starts_with('\n') {
                continue;
            }
            assert_eq!(offset(&f, position(&f, i)), i, "offset {i}");
            assert_eq!(offset_in_text(&f.text, position(&f, i)), i, "offset {i} in plain text");
        }
    }

    #[test]
    fn a_finding_becomes_a_diagnostic_with_code_source_and_related_clause() {
        let user = file("fn f() {\n    let s = vec![0; n]; // 😀\n}\n");
        let lib = Arc::new(SourceFile::new(
            "/ws/src/lib.rs".into(),
            "src/lib.rs".into(),
            "#[reuse::contract(writes(c[s], skip = PAD))]\n".into(),
        ));
        let zero = user.text.find('0').unwrap();
        let clause = lib.text.find("writes").unwrap();
        let finding = Finding::new(&PAD_TO_NULL_BLOCK, "padding entries of `s` are 0", Label::new(&user, zero..zero + 1, "0 is the null block"))
            .with_secondary(Label::new(&lib, clause..clause + "writes(c[s], skip = PAD)".len(), "the contract says padding is `PAD`"))
            .with_help("use `PAD`");
        let d = diagnostic(&finding, Path::new("/ws"));
        assert_eq!(d.code, Some(NumberOrString::String("reuse::pad_to_null_block".into())));
        assert_eq!(d.source.as_deref(), Some("reuse-check"));
        assert_eq!(d.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(d.range.start, Position { line: 1, character: 17 });
        assert_eq!(d.message, "padding entries of `s` are 0\nhelp: use `PAD`");
        let related = d.related_information.unwrap();
        assert_eq!(related.len(), 2);
        assert_eq!(related[0].message, "0 is the null block");
        assert_eq!(related[1].location.uri.as_str(), "file:///ws/src/lib.rs");
        assert_eq!(related[1].location.range.start, Position { line: 0, character: 18 });
        assert_eq!(related[1].message, "the contract says padding is `PAD`");
    }
}
