//! Check for `stale_key`: a lookup on a `reuses` place whose key leaves out a declared component.
//!
//! The key argument is read for the places it mentions (`graph.fingerprint`, `self.version`),
//! following local variables to the last binding before the use (tuple destructuring included),
//! and into macro arguments (`format!("{}-{v}", g.fingerprint)`). A component counts as covered
//! when the key mentions it, a field of it, or a whole value it is a field of (`graph` covers
//! `graph.fingerprint`); a helper call covers what its arguments and receiver cover. Lookups go
//! through the place itself, a lock or borrow guard of it (`self.plans.lock().unwrap().get(..)`),
//! or a local bound to one. Evictions (`remove`) are not lookups.


use syn::visit::Visit;
use syn::Expr;

use super::{expr_text, names};
use crate::analysis::{FnCtx, Locals};
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use crate::resolve::strip;
use reuse_rules::catalogue::STALE_KEY;
use reuse_rules::contract::PlaceRoot;

/// Methods of maps and caches whose first argument is the key.
const KEYED_METHODS: &[&str] =
    &["get", "get_mut", "entry", "contains_key", "insert", "get_key_value", "get_or_insert_with", "get_or_insert", "peek", "put", "try_insert", "get_or_insert_mut"];

/// Calls that give access to the same map: lock and borrow guards.
const GUARDS: &[&str] = &["lock", "read", "write", "borrow", "borrow_mut", "unwrap", "expect", "as_mut", "as_ref", "deref", "deref_mut"];

pub(super) fn check(ctx: &FnCtx, contract: &FileContract, out: &mut Vec<Finding>) {
    let locals = ctx.lets();
    for (clause, place, key) in contract.reuses() {
        let place_text = place.to_string();
        let lookups = lookups_on(ctx, &place_text, locals);
        for (lookup, key_expr) in lookups {
            let mentioned = mentions(ctx, key_expr, locals);
            let missing: Vec<String> = key
                .iter()
                .filter(|k| k.root != PlaceRoot::Static)
                .map(|k| k.to_string())
                .filter(|k| !mentioned.iter().any(|m| m == k || k.starts_with(&format!("{m}.")) || m.starts_with(&format!("{k}."))))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let missing_refs: Vec<&str> = missing.iter().map(String::as_str).collect();
            let all: Vec<String> = key.iter().map(|k| k.to_string()).collect();
            out.push(
                Finding::new(
                    &STALE_KEY,
                    format!("this {lookup} on `{place_text}` uses a key built without {}", names(&missing_refs)),
                    ctx.label(key_expr, format!("key lacks {}", names(&missing_refs))),
                )
                .with_secondary(Label::new(ctx.contract_file, clause.keyword.span.start..clause.end.end, "entries are valid only for these key components"))
                .with_help(format!("build the key from all of ({}), so a changed component misses the cache", all.join(", "))),
            );
        }
    }
}

/// The text of a receiver with lock and borrow guards removed: `self.plans.lock().unwrap()` →
/// `self.plans`.
fn unguarded(e: &Expr) -> String {
    match strip(e) {
        Expr::MethodCall(m) if m.args.len() <= 1 && GUARDS.contains(&m.method.to_string().as_str()) => unguarded(&m.receiver),
        Expr::Try(t) => unguarded(&t.expr),
        other => expr_text(other),
    }
}

/// Lookups on the cache place: `place.get(key)`, `place.entry(key)`, ..., `place[key]`, through
/// guards and locals bound to the place.
fn lookups_on<'a>(ctx: &FnCtx<'a>, place: &str, locals: &Locals<'a>) -> Vec<(String, &'a Expr)> {
    let aliases: Vec<&str> = locals.iter().filter(|(_, defs)| defs.iter().any(|d| unguarded(d.init) == place)).map(|(n, _)| n.as_str()).collect();
    let is_place = |e: &Expr| {
        let t = unguarded(e);
        t == place || aliases.contains(&t.as_str())
    };
    let mut found: Vec<(String, &Expr)> = Vec::new();
    for &call in ctx.calls() {
        if let Expr::MethodCall(m) = call {
            let method = m.method.to_string();
            if KEYED_METHODS.contains(&method.as_str()) && !m.args.is_empty() && is_place(&m.receiver) {
                found.push((format!("`{method}`"), &m.args[0]));
            }
        }
    }
    struct Indexing<'ast, 'p>(&'p dyn Fn(&Expr) -> bool, Vec<(String, &'ast Expr)>);
    impl<'ast> Visit<'ast> for Indexing<'ast, '_> {
        fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
            if (self.0)(&i.expr) {
                self.1.push(("indexing".into(), &i.index));
            }
            syn::visit::visit_expr_index(self, i);
        }
    }
    let mut v = Indexing(&is_place, Vec::new());
    v.visit_block(ctx.body);
    found.extend(v.1);
    found
}

/// The places an expression mentions, locals followed to their last binding before the use.
fn mentions(ctx: &FnCtx, e: &Expr, locals: &Locals) -> Vec<String> {
    let mut out = Vec::new();
    collect_mentions(ctx, e, locals, 0, &mut out);
    out
}

fn collect_mentions(ctx: &FnCtx, e: &Expr, locals: &Locals, depth: usize, out: &mut Vec<String>) {
    struct Mentions<'c, 'a> {
        ctx: &'c FnCtx<'a>,
        locals: &'c Locals<'c>,
        depth: usize,
        out: &'c mut Vec<String>,
    }
    impl Mentions<'_, '_> {
        fn name(&mut self, chain: String, at: usize) {
            let root = chain.split('.').next().unwrap_or("").to_string();
            self.out.push(chain);
            if self.depth >= 4 {
                return;
            }
            let def = self.locals.get(&root).and_then(|defs| defs.iter().rfind(|d| d.end <= at));
            if let Some(def) = def {
                collect_mentions(self.ctx, def.init, self.locals, self.depth + 1, self.out);
            }
        }
    }
    impl<'ast> Visit<'ast> for Mentions<'_, '_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if let Some(chain) = chain_text(e) {
                let at = self.ctx.expr_range(e).start;
                self.name(chain, at);
                return;
            }
            if let Expr::MethodCall(m) = e {
                if let (Some(chain), true) = (chain_text(&m.receiver), m.args.is_empty()) {
                    self.out.push(format!("{chain}.{}", m.method));
                }
            }
            syn::visit::visit_expr(self, e);
        }

        /// Macro arguments are tokens: `a.b.c` chains, and `{name}` in format strings.
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let mut chain: Vec<String> = Vec::new();
            let mut at = 0;
            let flush = |this: &mut Self, chain: &mut Vec<String>, at: usize| {
                if !chain.is_empty() {
                    this.name(chain.join("."), at);
                    chain.clear();
                }
            };
            let mut tokens: Vec<proc_macro2::TokenTree> = Vec::new();
            fn flatten(ts: proc_macro2::TokenStream, out: &mut Vec<proc_macro2::TokenTree>) {
                for tt in ts {
                    match tt {
                        proc_macro2::TokenTree::Group(g) => flatten(g.stream(), out),
                        other => out.push(other),
                    }
                }
            }
            flatten(m.tokens.clone(), &mut tokens);
            let mut expect_field = false;
            for tt in tokens {
                match &tt {
                    proc_macro2::TokenTree::Ident(i) if chain.is_empty() || expect_field => {
                        if chain.is_empty() {
                            at = self.ctx.range(i.span()).start;
                        }
                        chain.push(i.to_string());
                        expect_field = false;
                        continue;
                    }
                    proc_macro2::TokenTree::Punct(p) if p.as_char() == '.' && !chain.is_empty() => {
                        expect_field = true;
                        continue;
                    }
                    proc_macro2::TokenTree::Literal(l) => {
                        flush(self, &mut chain, at);
                        let text = l.to_string();
                        let pos = self.ctx.range(l.span()).start;
                        for name in inline_format_args(&text) {
                            self.name(name, pos);
                        }
                    }
                    _ => {}
                }
                flush(self, &mut chain, at);
                expect_field = false;
            }
            flush(self, &mut chain, at);
        }
    }
    let mut v = Mentions { ctx, locals, depth, out };
    v.visit_expr(e);
}

/// `{fp}` and `{g.x:?}`-style names inlined in a format string literal.
fn inline_format_args(literal: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = rest[..end].trim();
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') && !name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            out.push(name.to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// `a`, `a.b.c`, `self.x`: a path of fields, as text.
fn chain_text(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => {
            let member = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            Some(format!("{}.{member}", chain_text(&f.base)?))
        }
        Expr::Paren(p) => chain_text(&p.expr),
        Expr::Reference(r) => chain_text(&r.expr),
        _ => None,
    }
}
