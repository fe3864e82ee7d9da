//! Hovers: on a call of a contracted function, its contract, clause by clause; on a clause of a
//! `#[reuse::contract]`, what it means and the docs of the rules that check it; on a field's
//! `#[reuse::index(skip = S)]`, what it declares.
//!
//! What is under the cursor is the engine's answer ([`crate::engine::Session::hover_at`]: the call
//! found and resolved with the resolver the rules use, against the session's index), so the editor
//! and the checker never resolve a call differently; this module only writes it as Markdown.

use std::ops::Range;

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use reuse_rules::catalogue;
use reuse_rules::contract::{Clause, ClauseKind};

use super::convert;
use crate::analysis::HoverAt;
use crate::index::{ContractedFn, FileContract, IndexField};
use crate::resolve::Resolution;
use crate::source::FileRef;

/// The hover for what the engine found at a position of `file` (the document's current text).
pub fn hover(file: &FileRef, found: HoverAt<'_>) -> Option<Hover> {
    let (range, markdown) = match found {
        HoverAt::Contract { contract, attr_range, clause } => match clause.and_then(|i| contract.clauses.get(i)) {
            Some(c) => clause_hover(c),
            None => (attr_range, contract_overview(&contract)),
        },
        HoverAt::IndexField(f) => index_field_hover(f),
        HoverAt::Call(call) => match call.resolution {
            Resolution::One(callee) => (call.range, call_hover(callee)),
            Resolution::Ambiguous(cands) => (call.range, ambiguous_hover(&call.name, &cands)),
            Resolution::None => return None,
        },
    };
    Some(Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: markdown }), range: Some(convert::range(file, &range)) })
}

/// `src/lib.rs:23`, where a contract is declared.
fn location(f: &ContractedFn) -> String {
    format!("{}:{}", f.file.rel_path, f.file.line_col(f.attr_range.start).line)
}

fn call_hover(f: &ContractedFn) -> String {
    let attr = f.file.text.get(f.attr_range.clone()).unwrap_or_default();
    let origin = if f.external { "declared in the contracts file" } else { "declared at" };
    let mut md = format!("**reuse contract** of `{}` ({origin} `{}`)\n\n```rust\n{}\n```\n", f.display_path(), location(f), dedent(attr));
    md.push_str(&clause_list(&f.contract));
    md
}

fn ambiguous_hover(name: &str, cands: &[&ContractedFn]) -> String {
    let mut md = format!("**reuse contract**: `{name}` may be any of these contracted functions; reuse-check cannot tell which from source, so their contracts are not checked here (`ambiguous_call`):\n\n");
    for c in cands {
        md.push_str(&format!("- `{}` ({}): `{}`\n", c.display_path(), location(c), c.contract));
    }
    md.push_str("\nCall it by a path (`module::name(..)`) or give the receiver a type annotation to pick one.\n");
    md
}

fn contract_overview(contract: &FileContract) -> String {
    let mut md = String::from("**reuse contract**\n\n");
    md.push_str(&clause_list(contract));
    md.push_str("\nHover a clause for the rules that check it.\n");
    md
}

fn clause_list(contract: &FileContract) -> String {
    let mut md = String::new();
    for c in &contract.clauses {
        let rules: Vec<String> = clause_rules(&c.kind).iter().take(1).map(|r| format!("`{r}`")).collect();
        md.push_str(&format!("- `{c}`: {} ({})\n", clause_meaning(c), rules.join(", ")));
    }
    md
}

/// On a field's `#[reuse::index(skip = S)]`: what it declares, then the docs of the rule that
/// checks it.
fn index_field_hover(f: IndexField) -> (Range<usize>, String) {
    let skip = f.decl.skip.to_string();
    let mut md = format!(
        "**reuse index field** `{}.{}`: holds positions that kernels write at; `{skip}` is its \"no write\" entry. Every function of the workspace that builds or changes it (struct literals, what a function leaves in it) is held to that: its entries are `{skip}` or real positions, never 0 or the null block.\n",
        f.type_name, f.field
    );
    md.push_str("\n---\n\n");
    md.push_str(&catalogue::PAD_TO_NULL_BLOCK.explain_nested(2));
    (f.attr_range, md)
}

/// The clause under the cursor: its meaning, then the docs of the rules that check it.
fn clause_hover(clause: &Clause<Range<usize>>) -> (Range<usize>, String) {
    let range = clause.keyword.span.start..clause.end.end;
    let mut md = format!("**`{clause}`**: {}\n", clause_meaning(clause));
    let rules: Vec<&'static reuse_rules::Rule> = clause_rules(&clause.kind).iter().filter_map(|n| catalogue::find(n)).collect();
    if let Some((main, others)) = rules.split_first() {
        md.push_str("\n---\n\n");
        // `# rule` → `### rule`: rule docs inside a hover.
        md.push_str(&main.explain_nested(2));
        if !others.is_empty() {
            md.push_str("\n---\n\nAlso checked against this clause:\n\n");
            for r in others {
                md.push_str(&format!("- `{}` ({}): {}\n", r.name, r.default_level, r.summary));
            }
        }
    }
    (range, md)
}

/// The rules that check a clause, the main one first.
fn clause_rules<S>(kind: &ClauseKind<S>) -> &'static [&'static str] {
    match kind {
        ClauseKind::Reuses { .. } => &["stale_key", "stale_hit", "hit_mismatch"],
        ClauseKind::Fresh { .. } => &["stale_result"],
        ClauseKind::Preserves(_) => &["hit_skips_effect", "effect_order", "memoized_effect"],
        ClauseKind::Writes { .. } => &["pad_to_null_block", "undeclared_write"],
        ClauseKind::Reads(_) => &["pad_to_null_block"],
        ClauseKind::ForbidsWrite { .. } => &["forbidden_write"],
        ClauseKind::Aliases(_) => &["use_after_donate", "alias_not_shared", "undeclared_alias", "alias_type_mismatch"],
    }
}

/// One sentence on what a clause promises.
fn clause_meaning<S>(c: &Clause<S>) -> String {
    let ticked = |items: Vec<String>| items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
    match &c.kind {
        ClauseKind::Reuses { place, key, miss } => format!(
            "may serve its result from `{place}`; an entry is valid only for the key {}, so every lookup must use all of it; {}",
            ticked(key.iter().map(|k| k.to_string()).collect()),
            match miss {
                Some(m) => format!("a returned `{}` (or an `Err`) is a miss that declines to serve, exempt from `preserves`", m.text),
                None => "a returned `None`/`Ok(None)` (or an `Err`) is a miss that declines to serve, exempt from `preserves`".to_string(),
            }
        ),
        ClauseKind::Fresh { output, after } => format!(
            "on a cache hit, `{output}` is produced by `{after}` of this call, or read after it from storage it writes; never a value stored before it ran"
        ),
        ClauseKind::Preserves(effects) => format!(
            "runs {} on every normally-returning path, cache hit or miss, in this order",
            ticked(effects.iter().map(|e| e.name().to_string()).collect())
        ),
        ClauseKind::Writes { target, skip: Some(s) } => format!(
            "writes `{}` at the positions in `{}`; an entry equal to `{s}` is skipped, so padding and dummy entries must be `{s}`, never 0 or the null block",
            target.place, target.index
        ),
        ClauseKind::Writes { target, skip: None } => format!("writes `{}` at the positions in `{}`", target.place, target.index),
        ClauseKind::Reads(t) => format!("only reads `{}` at the positions in `{}`; padding them with 0 (the null block) is legal", t.place, t.index),
        ClauseKind::ForbidsWrite { regions, except } => {
            let regions = ticked(regions.iter().map(|r| format!("{}[{}]", r.place, r.index)).collect());
            if except.is_empty() {
                format!("never writes {regions}")
            } else {
                format!(
                    "never writes {regions}, except when called from its sanctioned writers {} (functions marked `#[reuse::sanctioned]`, matched by their definition path)",
                    ticked(except.iter().map(|f| f.to_string()).collect())
                )
            }
        }
        ClauseKind::Aliases(aliases) => format!(
            "{}; the caller must not use a donated input after the call",
            aliases.iter().map(|a| format!("`{}` shares the storage of `{}`", a.output, a.input)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Removes the indentation the attribute's continuation lines share.
fn dedent(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    let indent = rest.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let closing_indent = rest.last().map(|l| l.len() - l.trim_start().len()).unwrap_or(0);
    let strip = indent.min(closing_indent);
    let mut out = first.to_string();
    for l in rest {
        out.push('\n');
        out.push_str(l.get(strip..).filter(|_| l.is_char_boundary(strip.min(l.len()))).unwrap_or(l.trim_start()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_field_declaration_has_a_hover() {
        let text = "pub mod meta {\n    #[reuse::indexes]\n    pub struct StepMeta {\n        #[reuse::index(skip = PAD_SLOT_ID)]\n        pub slot_mapping: Vec<i64>,\n        pub lens: Vec<usize>,\n    }\n}\n";
        let file: FileRef = std::sync::Arc::new(crate::source::SourceFile::new("lib.rs".into(), "lib.rs".into(), text.to_string()));
        let index = crate::index::Index::default();
        let module = vec!["demo".to_string()];
        let at = |offset: usize| crate::analysis::hover_at(&file, "demo", &module, &index, &crate::items::WorkspaceItems::default(), offset).and_then(|found| hover(&file, found));
        let hover = at(text.find("skip").unwrap()).expect("a hover on the declaration");
        let HoverContents::Markup(m) = hover.contents else { panic!("markdown") };
        assert!(m.value.contains("`StepMeta.slot_mapping`") && m.value.contains("`PAD_SLOT_ID`"), "{}", m.value);
        assert!(m.value.contains("### pad_to_null_block"), "{}", m.value);
        assert!(at(text.find("lens").unwrap()).is_none(), "a plain field has none");
    }
}
