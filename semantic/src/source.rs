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
        let r = byte_range(span);
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
        // A byte-order mark is not a column.
        let mut start = if line == 0 { self.parse_offset } else { self.line_starts[line] };
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

/// Brackets nested deeper than this are not parsed: the file is reported like a parse error.
/// rustc compiles a few hundred nested blocks; the checker parses and analyses 1,024 on its
/// threads' stacks (see [`crate::STACK_SIZE`]), and anything deeper is reported, never a crash.
pub const MAX_NESTING: usize = 1024;
/// Operators (`.`, `?`, binary operators) in one run of an expression at one bracket depth. A long
/// method chain or sum is a left-nested tree as deep as it is long, for the parser's output and
/// for every visitor of it.
pub const MAX_CHAIN: usize = 2048;
/// Larger source files are reported (`unreadable_file`), not read: no hand-written file is this
/// large, and a generated one would cost seconds and gigabytes to parse.
pub const MAX_SOURCE_BYTES: u64 = 8 << 20;

/// Why [`read_regular_file`] read nothing.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// A directory, a FIFO, a device, a socket, or a link as the last component.
    NotRegular,
    /// More bytes than the cap (the file's length, or what it grew to while read).
    TooLarge(u64),
}

/// First and last token spans of an expression (a finding's range is the two joined). Read off
/// the tree for the common forms, since printing an expression to tokens to take its ends costs a
/// copy of the whole subtree (it was a tenth of the analysis of a file); a group's span stands for
/// its delimiters, as the first or last token tree of the printed form does. Rare forms are
/// printed.
pub fn expr_span(e: &syn::Expr) -> (Span, Span) {
    match (first_span(e), last_span(e)) {
        (Some(first), Some(last)) => (first, last),
        _ => tokens_span(quote::ToTokens::to_token_stream(e)),
    }
}

/// Whether attributes hold a `#[cfg(..)]`: the item or statement is compiled in some builds only.
pub fn has_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg"))
}

/// Whether two items' `#[cfg(..)]`s are each other's negation (`cfg(P)` and `cfg(not(P))`): no
/// build compiles both, every build one of them.
pub fn cfg_complementary(a: &[syn::Attribute], b: &[syn::Attribute]) -> bool {
    let predicate = |attrs: &[syn::Attribute]| -> Option<String> {
        let [cfg] = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect::<Vec<_>>()[..] else { return None };
        cfg.meta.require_list().ok().map(|l| l.tokens.to_string())
    };
    let (Some(a), Some(b)) = (predicate(a), predicate(b)) else { return false };
    let negates = |x: &str, y: &str| y.strip_prefix("not").map(str::trim).and_then(|r| r.strip_prefix('(')).and_then(|r| r.strip_suffix(')')).is_some_and(|inner| inner.trim() == x);
    negates(&a, &b) || negates(&b, &a)
}

/// The outer attributes of an expression (`#[cfg(..)] f()`), for the forms that carry them
/// and that the spans and the solver read.
pub fn expr_attrs(e: &syn::Expr) -> Option<&[syn::Attribute]> {
    use syn::Expr as E;
    Some(match e {
        E::Array(x) => &x.attrs,
        E::Assign(x) => &x.attrs,
        E::Binary(x) => &x.attrs,
        E::Block(x) => &x.attrs,
        E::Call(x) => &x.attrs,
        E::Field(x) => &x.attrs,
        E::If(x) => &x.attrs,
        E::Index(x) => &x.attrs,
        E::Lit(x) => &x.attrs,
        E::Macro(x) => &x.attrs,
        E::MethodCall(x) => &x.attrs,
        E::Paren(x) => &x.attrs,
        E::Path(x) => &x.attrs,
        E::Reference(x) => &x.attrs,
        E::Try(x) => &x.attrs,
        E::Tuple(x) => &x.attrs,
        E::Unary(x) => &x.attrs,
        E::Unsafe(x) => &x.attrs,
        _ => return None,
    })
}

fn first_span(e: &syn::Expr) -> Option<Span> {
    use syn::Expr as E;
    let attrs = expr_attrs(e)?;
    if let Some(a) = attrs.first() {
        return Some(a.pound_token.span);
    }
    match e {
        E::Array(x) => Some(x.bracket_token.span.join()),
        E::Assign(x) => first_span(&x.left),
        E::Binary(x) => first_span(&x.left),
        E::Block(x) => match (&x.label, &x.block) {
            (Some(l), _) => Some(l.name.apostrophe),
            (None, b) => Some(b.brace_token.span.join()),
        },
        E::Call(x) => first_span(&x.func),
        E::Field(x) => first_span(&x.base),
        E::Index(x) => first_span(&x.expr),
        E::Lit(x) => Some(x.lit.span()),
        E::Macro(x) => path_first(&x.mac.path),
        E::MethodCall(x) => first_span(&x.receiver),
        E::Paren(x) => Some(x.paren_token.span.join()),
        E::Path(x) if x.qself.is_none() => path_first(&x.path),
        E::Reference(x) => Some(x.and_token.span),
        E::Try(x) => first_span(&x.expr),
        E::Tuple(x) => Some(x.paren_token.span.join()),
        E::Unary(x) => Some(match x.op {
            syn::UnOp::Deref(t) => t.span,
            syn::UnOp::Not(t) => t.span,
            syn::UnOp::Neg(t) => t.span,
            _ => return None,
        }),
        _ => None,
    }
}

fn last_span(e: &syn::Expr) -> Option<Span> {
    use syn::Expr as E;
    match e {
        E::Array(x) => Some(x.bracket_token.span.join()),
        E::Assign(x) => last_span(&x.right),
        E::Binary(x) => last_span(&x.right),
        E::Block(x) => Some(x.block.brace_token.span.join()),
        E::Call(x) => Some(x.paren_token.span.join()),
        E::Field(x) => Some(match &x.member {
            syn::Member::Named(i) => i.span(),
            syn::Member::Unnamed(i) => i.span,
        }),
        E::Index(x) => Some(x.bracket_token.span.join()),
        E::Lit(x) => Some(x.lit.span()),
        E::Macro(x) => Some(x.mac.delimiter.span().join()),
        E::MethodCall(x) => Some(x.paren_token.span.join()),
        E::Paren(x) => Some(x.paren_token.span.join()),
        E::Path(x) if x.qself.is_none() => {
            let last = x.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::None => Some(last.ident.span()),
                syn::PathArguments::AngleBracketed(a) => Some(a.gt_token.span),
                syn::PathArguments::Parenthesized(_) => None,
            }
        }
        E::Reference(x) => last_span(&x.expr),
        E::Try(x) => Some(x.question_token.span),
        E::Tuple(x) => Some(x.paren_token.span.join()),
        E::Unary(x) => last_span(&x.expr),
        _ => None,
    }
}

fn path_first(p: &syn::Path) -> Option<Span> {
    match &p.leading_colon {
        Some(c) => Some(c.spans[0]),
        None => p.segments.first().map(|s| s.ident.span()),
    }
}

/// First and last token spans of a token stream.
pub fn tokens_span(ts: proc_macro2::TokenStream) -> (Span, Span) {
    let mut iter = ts.into_iter();
    let first = iter.next().map(|t| t.span()).unwrap_or_else(Span::call_site);
    let last = iter.last().map(|t| t.span()).unwrap_or(first);
    (first, last)
}

/// The bytes of a regular file, at most `cap`: opened without following a last link and without
/// blocking (a FIFO or `/dev/stdin` can neither hang nor stream forever), then checked on the open
/// handle (`fstat`), so a swap between a check and the open is caught. The one way the checker,
/// its cache and the language server read a file of the checked tree.
pub fn read_regular_file(path: &std::path::Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| match e.raw_os_error() {
        #[cfg(unix)]
        Some(libc::ELOOP) => ReadError::NotRegular,
        _ => ReadError::Io(e),
    })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Why a file's text was not turned into a syntax tree.
#[derive(Debug)]
pub enum ParseFailure {
    Syntax(syn::Error),
    /// Nested or chained deeper than the checker's bounds, at this byte offset of the text.
    TooDeep { offset: usize, what: String },
}

impl SourceFile {
    /// Parses the file, unless it nests or chains deeper than [`MAX_NESTING`] / [`MAX_CHAIN`].
    pub fn parse(&self) -> Result<syn::File, ParseFailure> {
        if let Some((offset, what)) = too_deep(self.parse_text()) {
            return Err(ParseFailure::TooDeep { offset: offset + self.parse_offset, what });
        }
        parse_text(self.parse_text()).map_err(ParseFailure::Syntax)
    }

    /// The byte range in this file of a parse failure from [`Self::parse`] on this thread.
    pub fn failure_range(&self, failure: &ParseFailure) -> Range<usize> {
        match failure {
            ParseFailure::Syntax(e) => self.range(e.span()),
            ParseFailure::TooDeep { offset, .. } => {
                let end = self.text[*offset..].chars().next().map_or(*offset, |c| offset + c.len_utf8());
                *offset..end
            }
        }
    }
}

impl SourceFile {
    /// A parse failure in words: what stands where the parser gave up and what it wanted there,
    /// rather than only syn's "expected `;`" (computed on the thread that parsed the file).
    pub fn describe_failure(&self, failure: &ParseFailure) -> String {
        let ParseFailure::Syntax(e) = failure else { return failure.to_string() };
        let range = self.failure_range(failure);
        let at = self.line_col(range.start);
        let found: String = self.text.get(range).unwrap_or("").trim().chars().take(40).collect();
        let wanted = e.to_string();
        let wanted = match wanted.strip_prefix("expected ") {
            Some(rest) => format!("the parser expected {rest} before it"),
            None => format!("the parser says: {wanted}"),
        };
        if wanted.ends_with("cannot parse string into token stream") {
            // syn's lexer: the token trees do not close.
            format!(
                "its brackets do not balance, or a string, character or comment is not closed (the parser gave up at line {}, column {})",
                at.line, at.column
            )
        } else if range_at_end(self, at.line) {
            format!("the code ends in the middle of an item at line {} (an unclosed bracket or a missing `}}`?): {wanted}", at.line)
        } else if found.is_empty() {
            format!("line {}, column {} is not valid Rust: {wanted}", at.line, at.column)
        } else {
            format!("`{found}` at line {}, column {} is not valid Rust here: {wanted}", at.line, at.column)
        }
    }
}

fn range_at_end(file: &SourceFile, line: usize) -> bool {
    file.text.trim_end().lines().count() < line
}

impl std::fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseFailure::Syntax(e) => write!(f, "{e}"),
            ParseFailure::TooDeep { what, .. } => f.write_str(what),
        }
    }
}

/// The first place where `text` nests brackets deeper than [`MAX_NESTING`] or chains more than
/// [`MAX_CHAIN`] operators, found by one pass over the bytes that skips comments, strings and
/// character literals (a lexer of its own because the point is not to build the token trees).
pub fn too_deep(text: &str) -> Option<(usize, String)> {
    let b = text.as_bytes();
    // Operators counted since the last separator, per open bracket.
    let mut chain: Vec<usize> = vec![0];
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = skip_non_code(text, i) {
            i = next;
            continue;
        }
        let c = b[i];
        match c {
            b'(' | b'[' | b'{' => {
                chain.push(0);
                if chain.len() > MAX_NESTING + 1 {
                    return Some((i, format!("brackets nest more than {MAX_NESTING} levels deep here; the file is not checked")));
                }
            }
            b')' | b']' | b'}'
                if chain.len() > 1 => {
                    chain.pop();
                }
            b';' | b',' => *chain.last_mut().expect("never empty") = 0,
            b'.' | b'?' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'=' | b'!' => {
                let n = chain.last_mut().expect("never empty");
                *n += 1;
                if *n > MAX_CHAIN {
                    return Some((i, format!("an expression chains more than {MAX_CHAIN} operators here; the file is not checked")));
                }
                // A run of operator characters (`..=`, `&&`, `->`) is one operator.
                while i + 1 < b.len() && b".?+-*/%&|^<>=!".contains(&b[i + 1]) && !(b[i + 1] == b'/' && matches!(b.get(i + 2), Some(b'/' | b'*'))) {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just after the comment, string, raw string or character literal that starts at `i`;
/// `None` where none does (a lifetime or a label is code). The one way the byte scanners of the
/// crate (`too_deep`, the index's `use` scan) skip what is not code.
pub fn skip_non_code(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    match *b.get(i)? {
        b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => Some(skip_comment(b, i)),
        b'"' => Some(skip_quoted(b, i + 1, b'"')),
        // `r"..."`, `r#"..."#`, `br"..."` (the `b` is behind): to the quote and as many `#`.
        b'r' if i == 0 || !ident(b[i - 1]) || (b[i - 1] == b'b' && (i < 2 || !ident(b[i - 2]))) => {
            let hashes = b[i + 1..].iter().take_while(|&&h| h == b'#').count();
            (b.get(i + 1 + hashes) == Some(&b'"')).then(|| {
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let body = i + 2 + hashes;
                b[body..].windows(close.len()).position(|w| w == close.as_slice()).map_or(b.len(), |p| body + p + close.len())
            })
        }
        // A char literal (`'a'`, `'\n'`, `'é'`, `'{'`), or a lifetime / label (`'a`).
        b'\'' => {
            if b.get(i + 1) == Some(&b'\\') {
                return Some(skip_quoted(b, i + 1, b'\''));
            }
            let next = text[i + 1..].chars().next().map_or(0, char::len_utf8);
            (next > 0 && b.get(i + 1 + next) == Some(&b'\'')).then_some(i + 2 + next)
        }
        _ => None,
    }
}

/// The index after the comment that starts at `i` (`//` to the end of the line, `/* */` nested as
/// Rust nests them); `i` itself when no comment starts there.
pub fn skip_comment(b: &[u8], mut i: usize) -> usize {
    match (b.get(i), b.get(i + 1)) {
        (Some(b'/'), Some(b'/')) => b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p),
        (Some(b'/'), Some(b'*')) => {
            let mut depth = 0usize;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            i
        }
        _ => i,
    }
}

/// The index after the closing `quote` of a literal whose body starts at `from` (escapes skipped).
fn skip_quoted(b: &[u8], mut from: usize, quote: u8) -> usize {
    while from < b.len() {
        match b[from] {
            b'\\' => from += 2,
            c if c == quote => return from + 1,
            _ => from += 1,
        }
    }
    b.len()
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
    fn deep_nesting_and_long_chains_are_found_outside_literals_and_comments() {
        let nested = |n: usize| format!("fn f() {{ {} {} }}", "if c {".repeat(n), "}".repeat(n));
        assert!(too_deep(&nested(400)).is_none());
        let (offset, what) = too_deep(&nested(MAX_NESTING + 5)).unwrap();
        assert!(what.contains("nest"), "{what}");
        assert_eq!(&nested(MAX_NESTING + 5)[offset..offset + 1], "{");
        let chain = |n: usize| format!("fn f() {{ x{}; }}", ".a()".repeat(n));
        assert!(too_deep(&chain(1000)).is_none());
        assert!(too_deep(&chain(MAX_CHAIN + 1)).unwrap().1.contains("chains"));
        // Separators end a run; brackets in strings, raw strings, chars and comments do not count.
        assert!(too_deep(&format!("fn f() {{ {} }}", "x.a();".repeat(10_000))).is_none());
        let hidden = "{".repeat(5000);
        for text in [
            format!("// {hidden}\nfn f() {{}}"),
            format!("/* /* {hidden} */ */ fn f() {{}}"),
            format!("const S: &str = \"{hidden}\\\" \";"),
            format!("const S: &str = r#\"{hidden}\"#;"),
            format!("const S: &[u8] = br\"{hidden}\";"),
            format!("fn f<'a>(x: &'a u8) -> char {{ '{{' }} const S: &str = \"{hidden}\";"),
        ] {
            assert!(too_deep(&text).is_none(), "{}", &text[..40]);
        }
    }

    /// The ends read off the tree are those of the printed expression, for every expression of
    /// every fixture.
    #[test]
    fn expression_spans_read_off_the_tree_are_the_printed_ones() {
        struct Every<'a>(&'a SourceFile, usize);
        impl<'ast> syn::visit::Visit<'ast> for Every<'_> {
            fn visit_expr(&mut self, e: &'ast syn::Expr) {
                let (a, b) = expr_span(e);
                let (c, d) = tokens_span(quote::ToTokens::to_token_stream(e));
                assert_eq!(self.0.join(a, b), self.0.join(c, d), "{}", quote::ToTokens::to_token_stream(e));
                self.1 += 1;
                syn::visit::visit_expr(self, e);
            }
        }
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut seen = 0;
        for entry in ignore::Walk::new(fixtures).flatten() {
            if entry.path().extension().is_some_and(|x| x == "rs") {
                let file = SourceFile::new(entry.path().to_path_buf(), String::new(), std::fs::read_to_string(entry.path()).unwrap());
                if let Ok(ast) = file.parse() {
                    let mut every = Every(&file, 0);
                    syn::visit::Visit::visit_file(&mut every, &ast);
                    seen += every.1;
                }
            }
        }
        assert!(seen > 10_000, "{seen} expressions");
    }

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

/// The most files whose trees [`parse_shared`] keeps per thread.
const MAX_SHARED_PARSES: usize = 4;

thread_local! {
    /// The trees of the last files [`parse_shared`] parsed on this thread. A `Weak` of each file
    /// keeps its allocation, so a pointer never names two files; [`invalidate_spans`] empties it.
    static SHARED_PARSES: std::cell::RefCell<Vec<(std::sync::Weak<SourceFile>, std::rc::Rc<syn::File>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The tree of a file of the check, parsed once per thread while its spans are valid: the file
/// checked, the item table of a file and the helper bodies read from it share one parse.
pub fn parse_shared(file: &FileRef) -> Result<std::rc::Rc<syn::File>, ParseFailure> {
    let known = SHARED_PARSES.with(|p| p.borrow().iter().find(|(f, _)| std::ptr::eq(f.as_ptr(), Arc::as_ptr(file))).map(|(_, ast)| ast.clone()));
    if let Some(ast) = known {
        return Ok(ast);
    }
    let ast = std::rc::Rc::new(file.parse()?);
    SHARED_PARSES.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= MAX_SHARED_PARSES {
            p.remove(0);
        }
        p.push((Arc::downgrade(file), ast.clone()));
    });
    Ok(ast)
}

/// Frees this thread's span table (every position is a byte range by now), and the trees whose
/// spans it held: the one way spans are invalidated.
pub fn invalidate_spans() {
    SHARED_PARSES.with(|p| p.borrow_mut().clear());
    PARSED_TEXTS.with(|p| p.borrow_mut().clear());
    proc_macro2::extra::invalidate_current_thread_spans();
}

/// A text parsed on this thread by [`parse_text`]: enough to turn a line and a column (in chars)
/// of one of its spans into a byte offset.
struct ParsedText {
    /// Its first token: a span joins it only if it is of the same text.
    first: Span,
    line_starts: Vec<usize>,
    /// The text, kept only when some char of it is wider than a byte.
    wide: Option<String>,
}

impl ParsedText {
    fn offset(&self, at: proc_macro2::LineColumn) -> usize {
        let start = self.line_starts[at.line - 1];
        match &self.wide {
            None => start + at.column,
            Some(text) => text[start..].char_indices().nth(at.column).map_or(text.len(), |(i, _)| start + i),
        }
    }
}

thread_local! {
    /// The texts [`parse_text`] parsed on this thread since [`invalidate_spans`].
    static PARSED_TEXTS: std::cell::RefCell<Vec<ParsedText>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `syn::parse_file`, for a text whose spans [`byte_range`] turns into bytes from its line
/// starts. (A text starting with `#!` is left to `syn`: the shebang line it takes off moves its spans.)
pub fn parse_text(text: &str) -> syn::Result<syn::File> {
    if text.starts_with("#!") {
        return syn::parse_file(text);
    }
    let tokens: proc_macro2::TokenStream = text.parse()?;
    if let Some(first) = tokens.clone().into_iter().next() {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let wide = (!text.is_ascii()).then(|| text.to_string());
        PARSED_TEXTS.with(|p| p.borrow_mut().push(ParsedText { first: first.span(), line_starts, wide }));
    }
    syn::parse2(tokens)
}

/// The byte range of a span in the text it was parsed from on this thread: what
/// `Span::byte_range` answers, taken from the line and column for a text of [`parse_text`].
/// `proc_macro2` counts chars and finds bytes in a map that every position asked grows; a tenth
/// of a big file's check went there.
#[allow(clippy::disallowed_methods)]
pub fn byte_range(span: Span) -> Range<usize> {
    let known = PARSED_TEXTS.with(|p| {
        let p = p.borrow();
        let text = p.iter().rev().find(|t| t.first.join(span).is_some())?;
        Some(text.offset(span.start())..text.offset(span.end()))
    });
    known.unwrap_or_else(|| span.byte_range())
}

/// An expression as Rust is written (`zeros!(n)`, not the token spelling `zeros ! (n)`), on one
/// line: for messages about code whose text is not in the file (an expansion of another
/// file's macro).
pub fn unparsed(e: &syn::Expr) -> String {
    let body = syn::Block { brace_token: Default::default(), stmts: vec![syn::Stmt::Expr(e.clone(), None)] };
    let item = syn::ItemFn { attrs: Vec::new(), vis: syn::Visibility::Inherited, sig: syn::parse_quote!(fn f()), block: Box::new(body) };
    let file = syn::File { shebang: None, attrs: Vec::new(), items: vec![syn::Item::Fn(item)] };
    // prettyplease panics on what it cannot print (`Expr::Verbatim`): the tokens then.
    let Ok(text) = std::panic::catch_unwind(|| prettyplease::unparse(&file)) else { return quote::ToTokens::to_token_stream(e).to_string() };
    let inner = text.split_once('{').and_then(|(_, rest)| rest.rsplit_once('}')).map_or(text.as_str(), |(inner, _)| inner);
    inner.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod unparsed_tests {
    #[test]
    fn an_expression_is_written_as_rust_on_one_line() {
        let e: syn::Expr = syn::parse_str("zeros ! ( n )").unwrap();
        assert_eq!(super::unparsed(&e), "zeros!(n)");
        let e: syn::Expr = syn::parse_str("crate :: kv :: write ( & cache , & [ 0 ; 4 ] )").unwrap();
        assert_eq!(super::unparsed(&e), "crate::kv::write(&cache, &[0; 4])");
    }
}

#[cfg(test)]
mod byte_range_tests {
    use super::*;

    /// Every token's range, nested ones included, is what proc_macro2 says.
    fn agree(text: &str) {
        fn walk(tokens: proc_macro2::TokenStream, seen: &mut usize) {
            for t in tokens {
                #[allow(clippy::disallowed_methods)]
                let expected = t.span().byte_range();
                assert_eq!(byte_range(t.span()), expected, "{t}");
                *seen += 1;
                if let proc_macro2::TokenTree::Group(g) = t {
                    #[allow(clippy::disallowed_methods)]
                    let (open, close) = (g.span_open().byte_range(), g.span_close().byte_range());
                    assert_eq!((byte_range(g.span_open()), byte_range(g.span_close())), (open, close));
                    walk(g.stream(), seen);
                }
            }
        }
        let ast = parse_text(text).unwrap();
        let mut seen = 0;
        walk(quote::ToTokens::to_token_stream(&ast), &mut seen);
        assert!(seen > 5);
    }

    #[test]
    fn ranges_agree_with_proc_macro2() {
        agree("fn f(x: &[i64]) -> i64 {\n    let s = \"ascii\";\n    x[0]\n}\n");
        agree("// é, 😀 and ß before\nfn f() {\n    let s = \"données 😀\"; let t = 'ß';\n}\n/* ü */ fn g(a: u8) -> u8 { a }\n");
        agree("\r\nfn f() {}\r\n\r\n  struct S { x: i64 }\n");
    }

    #[test]
    fn a_second_text_and_a_snippet_keep_their_own_offsets() {
        invalidate_spans();
        let a = parse_text("fn a() {}\n").unwrap();
        let b = parse_text("\n\n   fn b() {}\n").unwrap();
        let snippet: syn::Expr = syn::parse_str("1 + 2").unwrap();
        let fn_of = |f: &syn::File| match &f.items[0] {
            syn::Item::Fn(f) => f.sig.ident.span(),
            _ => unreachable!(),
        };
        assert_eq!(byte_range(fn_of(&a)), 3..4);
        assert_eq!(byte_range(fn_of(&b)), 8..9);
        let syn::Expr::Binary(bin) = snippet else { unreachable!() };
        assert_eq!(byte_range(syn::spanned::Spanned::span(&bin.op)), 2..3);
        assert_eq!(byte_range(Span::call_site()), 0..0);
    }
}
