//! Suppressions: `#[reuse::allow(rule, reason = "...")]` on items, `// reuse-check: allow(rule)
//! reason` on the line before; `unused_suppression` and `suppression_without_reason`.

use std::ops::Range;

use quote::ToTokens;
use reuse_rules::catalogue::{SUPPRESSION_WITHOUT_REASON, UNKNOWN_NAME, UNUSED_SUPPRESSION};
use reuse_rules::suppress::{parse_allow_attr, parse_allow_comment};
use syn::visit::Visit;

use crate::finding::{Finding, Label};
use crate::source::tokens_span;
use crate::index::{error_findings, reuse_attr, ReuseAttr};
use crate::source::FileRef;

/// One rule named by one suppression, and the findings it covers.
struct Suppression {
    rule: String,
    /// Where the rule name is written (for `unused_suppression`).
    name_range: Range<usize>,
    /// Findings whose primary label starts in this range are suppressed.
    covers: Range<usize>,
    used: bool,
}

pub fn apply_suppressions(file: &FileRef, ast: Option<&syn::File>, findings: Vec<Finding>) -> Vec<Finding> {
    let mut extra = Vec::new();
    // Only files with suppression comments pay for finding their statements and strings.
    let has_comments = file.text.contains(reuse_rules::suppress::COMMENT_MARKER);
    let strings = ast.filter(|_| has_comments).map(|a| string_literals(file, a)).unwrap_or_default();
    let statements = ast.filter(|_| has_comments).map(|a| statement_ranges(file, a)).unwrap_or_default();
    let mut sups = comment_suppressions(file, &strings, &statements, &mut extra);
    if let Some(ast) = ast {
        let mut v = AttrSuppressions { file, imports_reuse: file.text.contains("use reuse::"), out: &mut sups, findings: &mut extra };
        v.visit_file(ast);
    }
    let mut kept: Vec<Finding> = findings
        .into_iter()
        .filter(|f| {
            let hit = sups.iter_mut().find(|s| s.rule == f.rule.name && s.covers.contains(&f.primary.range.start));
            match hit {
                Some(s) => {
                    s.used = true;
                    false
                }
                None => true,
            }
        })
        .collect();
    for s in sups.iter().filter(|s| !s.used) {
        kept.push(
            Finding::new(&UNUSED_SUPPRESSION, format!("this suppression of `{}` suppresses nothing", s.rule), Label::new(file, s.name_range.clone(), "no finding here"))
                .with_help("remove it: a stale suppression hides the next real finding"),
        );
    }
    kept.extend(extra);
    kept
}

/// `// reuse-check: allow(rule) reason` comments; each covers the next line that is not a comment.
fn comment_suppressions(file: &FileRef, strings: &[Range<usize>], statements: &[Range<usize>], findings: &mut Vec<Finding>) -> Vec<Suppression> {
    let mut out = Vec::new();
    for line in 0..file.line_count() {
        let text = file.line_text(line);
        let Some(slashes) = text.find("//") else { continue };
        if !text[..slashes].trim().is_empty() {
            continue;
        }
        // A line of a multi-line string literal that looks like a comment is not one.
        let at = file.line_start(line) + slashes;
        if strings.iter().any(|r| r.contains(&at)) {
            continue;
        }
        let comment_start = file.line_start(line) + slashes + 2;
        let Some(parsed) = parse_allow_comment(&text[slashes + 2..]) else { continue };
        let allow = match parsed {
            Ok(a) => a,
            Err((offset, message)) => {
                let at = comment_start + offset;
                findings.push(Finding::new(&reuse_rules::catalogue::CONTRACT_SYNTAX, message, Label::new(file, at..at + 1, "here")));
                continue;
            }
        };
        let mut target = line + 1;
        while target < file.line_count() && file.line_text(target).trim_start().starts_with("//") {
            target += 1;
        }
        // The next line, and all of the statement or item that starts on it (`let slots = vec![\n 0;\n n];`).
        let (line_start, line_end) = (file.line_start(target), file.line_start(target + 1).max(file.line_start(target) + 1));
        let end = statements.iter().filter(|r| (line_start..line_end).contains(&r.start)).map(|r| r.end).max().unwrap_or(line_end);
        let covers = line_start..end.max(line_end);
        for (rule, range) in &allow.rules {
            let name_range = comment_start + range.start..comment_start + range.end;
            if reuse_rules::catalogue::find(rule).is_none() {
                findings.push(Finding::new(&UNKNOWN_NAME, format!("unknown rule `{rule}`{}: `reuse-check --list-rules` lists them", reuse_rules::catalogue::did_you_mean_rule(rule)), Label::new(file, name_range, "not a rule")));
                continue;
            }
            out.push(Suppression { rule: rule.clone(), name_range, covers: covers.clone(), used: false });
        }
        if allow.reason.is_none() {
            let r = comment_start..comment_start + text[slashes + 2..].trim_end().len();
            findings.push(
                Finding::new(&SUPPRESSION_WITHOUT_REASON, "a suppression needs a reason after `allow(..)`", Label::new(file, r, "no reason given"))
                    .with_help("say why this reuse is safe here: `// reuse-check: allow(rule) rows past num_tokens are masked`"),
            );
        }
    }
    out
}

/// Byte ranges of every statement and item of a file.
fn statement_ranges(file: &FileRef, ast: &syn::File) -> Vec<Range<usize>> {
    struct Statements<'f>(&'f FileRef, Vec<Range<usize>>);
    impl<'ast> Visit<'ast> for Statements<'_> {
        fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
            let (a, b) = tokens_span(s.to_token_stream());
            self.1.push(self.0.join(a, b));
            syn::visit::visit_stmt(self, s);
        }
        fn visit_item(&mut self, i: &'ast syn::Item) {
            let (a, b) = tokens_span(i.to_token_stream());
            self.1.push(self.0.join(a, b));
            syn::visit::visit_item(self, i);
        }
    }
    let mut v = Statements(file, Vec::new());
    v.visit_file(ast);
    v.1
}

/// Byte ranges of the string literals of a file, macro arguments included.
fn string_literals(file: &FileRef, ast: &syn::File) -> Vec<Range<usize>> {
    struct Strings<'f>(&'f FileRef, Vec<Range<usize>>);
    impl Strings<'_> {
        fn tokens(&mut self, ts: &proc_macro2::TokenStream) {
            for tt in ts.clone() {
                match tt {
                    proc_macro2::TokenTree::Literal(l) => self.1.push(self.0.range(l.span())),
                    proc_macro2::TokenTree::Group(g) => self.tokens(&g.stream()),
                    _ => {}
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Strings<'_> {
        fn visit_lit(&mut self, l: &'ast syn::Lit) {
            if matches!(l, syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_)) {
                let r = self.0.range(l.span());
                self.1.push(r);
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.tokens(&m.tokens);
        }
    }
    let mut v = Strings(file, Vec::new());
    v.visit_file(ast);
    v.1.retain(|r| file.text[r.clone()].contains('\n'));
    v.1
}

struct AttrSuppressions<'a> {
    file: &'a FileRef,
    imports_reuse: bool,
    out: &'a mut Vec<Suppression>,
    findings: &'a mut Vec<Finding>,
}

impl AttrSuppressions<'_> {
    fn item(&mut self, attrs: &[syn::Attribute], item: &dyn ToTokens) {
        for attr in attrs {
            if reuse_attr(attr, self.imports_reuse) != Some(ReuseAttr::Allow) {
                continue;
            }
            let tokens = match &attr.meta {
                syn::Meta::List(l) => l.tokens.clone(),
                _ => proc_macro2::TokenStream::new(),
            };
            let (allow, errors) = parse_allow_attr(tokens, attr.pound_token.span);
            self.findings.extend(error_findings(self.file, &errors));
            let (a, b) = tokens_span(item.to_token_stream());
            let covers = self.file.join(a, b);
            for rule in allow.into_iter().flat_map(|a| a.rules) {
                if reuse_rules::catalogue::find(&rule.text).is_some() {
                    let name_range = self.file.range(rule.span);
                    self.out.push(Suppression { rule: rule.text, name_range, covers: covers.clone(), used: false });
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for AttrSuppressions<'_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match i {
            syn::Item::Fn(x) => &x.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Mod(x) => &x.attrs,
            syn::Item::Trait(x) => &x.attrs,
            syn::Item::Struct(x) => &x.attrs,
            syn::Item::Const(x) => &x.attrs,
            syn::Item::Static(x) => &x.attrs,
            _ => &[],
        };
        self.item(attrs, i);
        syn::visit::visit_item(self, i);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.item(&f.attrs, f);
        syn::visit::visit_impl_item_fn(self, f);
    }
}
