//! Check for `stale_key`: a lookup on a `reuses` place whose key leaves out a declared component.
//!
//! The key argument is read for the places it mentions (`graph.fingerprint`, `self.version`),
//! following local variables to their initializers. A component counts as covered when the key
//! mentions it, a field of it, or a whole value it is a field of (`graph` covers
//! `graph.fingerprint`); a helper call covers what its arguments and receiver cover.

use std::collections::HashMap;


use syn::visit::Visit;
use syn::{Expr, Pat};

use super::{calls_in, expr_text, names};
use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use crate::resolve::strip;
use reuse_rules::catalogue::STALE_KEY;
use reuse_rules::contract::PlaceRoot;

/// Methods of maps and caches whose first argument is the key.
const KEYED_METHODS: &[&str] = &[
    "get", "get_mut", "entry", "contains_key", "insert", "remove", "get_key_value", "get_or_insert_with", "get_or_insert",
    "peek", "put", "try_insert", "get_or_insert_mut",
];

pub(super) fn check(ctx: &FnCtx, contract: &FileContract, out: &mut Vec<Finding>) {
    let locals = local_inits(ctx.body);
    for (clause, place, key) in contract.reuses() {
        let place_text = place.to_string();
        let lookups = lookups_on(ctx, &place_text);
        for (lookup, key_expr) in lookups {
            let mentioned = mentions(key_expr, &locals);
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
                .with_secondary(Label::new(ctx.file, clause.keyword.span.start..clause.end.end, "entries are valid only for these key components"))
                .with_help(format!("build the key from all of ({}), so a changed component misses the cache", all.join(", "))),
            );
        }
    }
}

/// Lookups on the cache place: `place.get(key)`, `place.entry(key)`, ..., `place[key]`.
fn lookups_on<'a>(ctx: &FnCtx<'a>, place: &str) -> Vec<(String, &'a Expr)> {
    let mut found: Vec<(String, &Expr)> = Vec::new();
    for call in calls_in(ctx.body) {
        if let Expr::MethodCall(m) = call {
            let method = m.method.to_string();
            if KEYED_METHODS.contains(&method.as_str()) && !m.args.is_empty() && expr_text(strip(&m.receiver)) == place {
                found.push((format!("`{method}`"), &m.args[0]));
            }
        }
    }
    struct Indexing<'ast, 'p>(&'p str, Vec<(String, &'ast Expr)>);
    impl<'ast> Visit<'ast> for Indexing<'ast, '_> {
        fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
            if expr_text(&i.expr) == self.0 {
                self.1.push(("indexing".into(), &i.index));
            }
            syn::visit::visit_expr_index(self, i);
        }
    }
    let mut v = Indexing(place, Vec::new());
    v.visit_block(ctx.body);
    found.extend(v.1);
    found
}

/// Initializers of `let name = ...` bindings, by name.
fn local_inits(body: &syn::Block) -> HashMap<String, Vec<&Expr>> {
    struct Lets<'ast>(HashMap<String, Vec<&'ast Expr>>);
    impl<'ast> Visit<'ast> for Lets<'ast> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            let pat = match &l.pat {
                Pat::Type(pt) => &*pt.pat,
                p => p,
            };
            if let (Pat::Ident(pi), Some(init)) = (pat, &l.init) {
                self.0.entry(pi.ident.to_string()).or_default().push(&init.expr);
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut v = Lets(HashMap::new());
    v.visit_block(body);
    v.0
}

/// The places an expression mentions, locals followed to their initializers.
fn mentions(e: &Expr, locals: &HashMap<String, Vec<&Expr>>) -> Vec<String> {
    struct Mentions<'l, 'ast> {
        locals: &'l HashMap<String, Vec<&'ast Expr>>,
        out: Vec<String>,
        depth: usize,
    }
    impl<'ast> Visit<'ast> for Mentions<'_, 'ast> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if let Some(chain) = chain_text(e) {
                let root = chain.split('.').next().unwrap_or("").to_string();
                self.out.push(chain);
                if let (Some(inits), true) = (self.locals.get(&root), self.depth < 4) {
                    self.depth += 1;
                    for init in inits.clone() {
                        self.visit_expr(init);
                    }
                    self.depth -= 1;
                }
                return;
            }
            if let Expr::MethodCall(m) = e {
                if let (Some(chain), true) = (chain_text(&m.receiver), m.args.is_empty()) {
                    self.out.push(format!("{chain}.{}", m.method));
                }
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut v = Mentions { locals, out: Vec::new(), depth: 0 };
    v.visit_expr(e);
    v.out
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

