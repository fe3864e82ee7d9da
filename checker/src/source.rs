//! Source files and positions. Analysis turns `proc_macro2` spans into byte ranges of a file on the
//! thread that parsed it (the fallback span table is thread-local), so findings can cross threads.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use proc_macro2::Span;

/// A file's text with a line index.
#[derive(Debug)]
pub struct SourceFile {
    /// As given (absolute, or relative to where the check ran).
    pub path: PathBuf,
    /// Relative to the workspace root, with `/` separators (what outputs print).
    pub rel_path: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// A leading byte-order mark is not handed to the parser; spans are shifted back by this much.
    parse_offset: usize,
    /// Where lines start for an editor (see [`editor_line_starts`]), when that differs from
    /// `line_starts`: only in a text with a lone `\r`.
    editor_line_starts: Option<Vec<usize>>,
}

pub type FileRef = Arc<SourceFile>;

/// A 1-based line and column; `character` counts UTF-8 chars, `utf16` counts UTF-16 code units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
    pub utf16: usize,
}

impl SourceFile {
    pub fn new(path: PathBuf, rel_path: String, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let parse_offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let lone_cr = text.match_indices('\r').any(|(i, _)| text.as_bytes().get(i + 1) != Some(&b'\n'));
        let editor_line_starts = lone_cr.then(|| std::iter::once(0).chain(editor_line_starts(&text)).collect());
        SourceFile { path, rel_path, text, line_starts, parse_offset, editor_line_starts }
    }

    /// The 0-based editor line (`\r\n`, `\n` and a lone `\r` end a line, as in LSP) and UTF-16
    /// column of a byte offset.
    pub fn editor_position(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let starts = self.editor_line_starts.as_deref().unwrap_or(&self.line_starts);
        let line = starts.partition_point(|&s| s <= offset) - 1;
        let start = starts[line].min(offset);
        (line, self.text[start..offset].encode_utf16().count())
    }

    /// The byte offset of a 0-based editor line and UTF-16 column; past the end of a line or of
    /// the text, it clamps.
    pub fn editor_offset(&self, line: usize, utf16_col: usize) -> usize {
        let starts = self.editor_line_starts.as_deref().unwrap_or(&self.line_starts);
        match starts.get(line) {
            Some(&start) => column_offset(&self.text, start, utf16_col),
            None => self.text.len(),
        }
    }

    /// The text handed to the parser.
    pub fn parse_text(&self) -> &str {
        &self.text[self.parse_offset..]
    }

    /// The byte range of a span produced by parsing [`Self::parse_text`] on this thread.
    pub fn range(&self, span: Span) -> Range<usize> {
        let r = span.byte_range();
        let (s, e) = (r.start + self.parse_offset, r.end + self.parse_offset);
        let s = s.min(self.text.len());
        s..e.clamp(s, self.text.len())
    }

    /// The byte range from the start of `a` to the end of `b`.
    pub fn join(&self, a: Span, b: Span) -> Range<usize> {
        let (a, b) = (self.range(a), self.range(b));
        a.start.min(b.start)..a.end.max(b.end)
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset) - 1
    }

    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line = self.line_index(offset);
        let mut start = self.line_starts[line];
        let mut prefix_end = offset;
        while !self.text.is_char_boundary(prefix_end) {
            prefix_end -= 1;
        }
        start = start.min(prefix_end);
        let prefix = &self.text[start..prefix_end];
        LineCol { line: line + 1, column: prefix.chars().count() + 1, utf16: prefix.encode_utf16().count() + 1 }
    }

    /// The text of a 0-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts.get(line).copied().unwrap_or(self.text.len());
        let end = self.line_starts.get(line + 1).copied().unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts.get(line).copied().unwrap_or(self.text.len())
    }
}

/// Where lines after the first start when `\r\n`, `\n` and a lone `\r` each end a line: the way
/// LSP positions and editors count lines. (Line numbers in the checker's own output count `\n`
/// only, as rustc does.) A lone `\r` is legal in a Rust comment or string.
pub fn editor_line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    b.iter().enumerate().filter(move |&(i, &c)| c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n'))).map(|(i, _)| i + 1)
}

/// The byte offset `utf16_col` UTF-16 units into the line starting at `start`: at the line's end
/// if the line is shorter, at the next char boundary if the column falls inside a surrogate pair.
pub fn column_offset(text: &str, start: usize, utf16_col: usize) -> usize {
    let mut units = 0usize;
    for (i, c) in text[start..].char_indices() {
        if units >= utf16_col || c == '\n' || c == '\r' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_chars_and_utf16_units() {
        let f = SourceFile::new("a.rs".into(), "a.rs".into(), "let é = 1;\n/* 😀 */ x\n".into());
        let x = f.text.find('x').unwrap();
        assert_eq!(f.line_col(x), LineCol { line: 2, column: 9, utf16: 10 });
        assert_eq!(f.editor_offset(1, 9), x);
        assert_eq!(f.editor_position(x), (1, 9));
        assert_eq!(f.line_text(1), "/* 😀 */ x");
    }
}
