//! Check for `stale_result`: with `fresh(OUT, after = E)`, a serving path returns as OUT a value
//! read from the cache entry before E ran, or after E from a field of the entry that E does not
//! write.
//!
//! "From the cache entry": an expression rooted at the `reuses` place (`self.graphs[&k].out`) or
//! at a name bound by a lookup on it (`let g = self.graphs.get_mut(&k)?`, `if let Some(g) = ..`,
//! a `match` arm), through `let`s (`let out = g.out.clone(); .. Ok(out)`), `Ok`/`Some` and
//! copies (`clone`, `to_vec`, ..). "Read": where the value is evaluated (a `let` at the `let`, a
//! returned expression at the return), placed on the paths of the body by the path analysis. A
//! value that E returns is fresh. The fields E writes come from E's body when it is a method of
//! this file; a getter (`g.output()`) counts as the field it returns. Where the checker cannot
//! tell (E defined elsewhere, a getter it cannot read), a read after E is taken as fresh.

use std::collections::HashSet;
use std::ops::Range;

use syn::visit::Visit;
use syn::Expr;

use super::hit_skips_effect::serves;
use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use crate::flow::{expr_span, Paths};
use crate::index::FileContract;
use crate::resolve::strip;
use reuse_rules::catalogue::STALE_RESULT;
use reuse_rules::contract::{AliasOut, Effect};

/// Methods that hand on (a copy of) their receiver's value: reading through them reads the receiver.
const PASS_THROUGH: &[&str] = &[
    "clone", "cloned", "copied", "to_vec", "to_owned", "into", "as_ref", "as_slice", "as_deref", "unwrap", "expect",
    "borrow", "lock", "read", "as_mut", "as_mut_slice", "deref",
];
/// Lookups on the `reuses` place that give access to an entry.
const LOOKUPS: &[&str] = &["get", "get_mut", "entry", "or_insert", "or_insert_with", "or_default", "get_or_insert_with", "peek"];

/// Where a value comes from, when it is read from the cache entry.
struct Read<'e> {
    /// The expression that reads it.
    expr: &'e Expr,
    /// The entry's field it reads (`captured_output`), when the syntax (or a getter) says.
    field: Option<String>,
    /// Read at a `let` (the byte offset the path analysis keys it by), or at the exit.
    at_let: Option<usize>,
}

pub(super) fn check(ctx: &FnCtx, contract: &FileContract, effects: &[Effect<Range<usize>>], paths: &Paths, out: &mut Vec<Finding>) {
    let Some((clause, output, after)) = contract.fresh() else { return };
    let Some((_, place, _)) = contract.reuses().next() else { return };
    let Some(effect) = effects.iter().position(|e| e.name() == after.name()).map(|i| i as u8) else { return };
    let place = place.to_string();
    let entries = entry_bindings(ctx.body, &place);
    let written = written_fields(ctx, after.name());
    let finder = Finder { ctx, place: &place, entries: &entries, effect: after.name() };
    for exit in paths.exits.iter().filter(|e| serves(e)) {
        let Some(value) = &exit.value else { continue };
        let Some(value) = select(output, value) else { continue };
        let Some(read) = finder.origin(value, None, 0) else { continue };
        // Every path reaching the exit ran E (else it is `hit_skips_effect`'s finding).
        if exit.traces.iter().any(|t| !t.contains(&effect)) {
            continue;
        }
        let before = read.at_let.is_some_and(|at| paths.lets.get(&at).is_none_or(|traces| traces.iter().any(|t| !t.contains(&effect))));
        let unwritten = match (&read.field, &written) {
            (Some(f), Some(w)) => !w.contains(f),
            _ => false,
        };
        if !before && !unwritten {
            continue;
        }
        let what = read.field.as_deref().map(|f| format!("`{f}` of the cache entry")).unwrap_or_else(|| "the cache entry".to_string());
        let (message, label) = if before {
            (
                format!("the value returned on this hit is read from {what} before `{}` runs", after.name()),
                format!("read here, before `{}`", after.name()),
            )
        } else {
            (
                format!("the value returned on this hit is read from {what}, which `{}` does not write", after.name()),
                format!("`{}` writes {}, not this", after.name(), written.as_ref().map(fields).unwrap_or_default()),
            )
        };
        let exit_range = ctx.file.join(exit.span.0, exit.span.1);
        let mut finding = Finding::new(&STALE_RESULT, message, ctx.label(read.expr, label))
            .with_secondary(Label::new(ctx.contract_file, clause.keyword.span.start..clause.end.end, format!("`{output}` must come from `{}` of this call", after.name())))
            .with_help(format!("return what `{}` produced: read the storage it writes after it ran", after.name()));
        if read.at_let.is_some() {
            finding = finding.with_secondary(Label::new(ctx.file, exit_range, "returned here"));
        }
        out.push(finding);
    }
}

fn fields(w: &HashSet<String>) -> String {
    let mut v: Vec<&str> = w.iter().map(String::as_str).collect();
    v.sort_unstable();
    if v.is_empty() {
        "no field of the entry".to_string()
    } else {
        super::names(&v)
    }
}

/// The part of a returned expression that is OUT: the whole value, a tuple element, a field of a
/// struct literal, inside `Ok(..)`/`Some(..)`.
fn select<'e>(output: &AliasOut<Range<usize>>, value: &'e Expr) -> Option<&'e Expr> {
    let value = unwrap_ok_some(value);
    match output {
        AliasOut::Return { .. } => Some(value),
        AliasOut::ReturnIndex { index, .. } => match strip(value) {
            Expr::Tuple(t) => t.elems.iter().nth(*index as usize).map(unwrap_ok_some),
            _ => None,
        },
        AliasOut::ReturnField { field, .. } => match strip(value) {
            Expr::Struct(st) => st
                .fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(n) if *n == field.text))
                .map(|f| unwrap_ok_some(&f.expr)),
            _ => None,
        },
    }
}

fn unwrap_ok_some(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::Call(c) if c.args.len() == 1 && matches!(strip(&c.func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Ok" || s.ident == "Some")) => {
            unwrap_ok_some(&c.args[0])
        }
        Expr::Reference(r) => unwrap_ok_some(&r.expr),
        other => super::tail(other),
    }
}

struct Finder<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    place: &'c str,
    entries: &'c HashSet<String>,
    effect: &'c str,
}

impl<'a> Finder<'_, 'a> {
    /// Whether `e` is read from the cache entry, and where; `at_let`: the `let` whose initializer
    /// `e` is part of (else it is read at the exit).
    fn origin<'e>(&self, e: &'e Expr, at_let: Option<usize>, depth: usize) -> Option<Read<'e>>
    where
        'a: 'e,
    {
        if depth > 8 {
            return None;
        }
        let e = unwrap_ok_some(e);
        // A local bound by `let` (or a copy of one, `out.clone()`): read where that `let` ran.
        let mut base = strip(e);
        while let Expr::MethodCall(m) = base {
            if !PASS_THROUGH.contains(&m.method.to_string().as_str()) {
                break;
            }
            base = strip(&m.receiver);
        }
        if let Expr::Path(p) = base {
            let name = p.path.get_ident()?.to_string();
            if self.entries.contains(&name) {
                return Some(Read { expr: e, field: None, at_let });
            }
            let pos = self.ctx.expr_range(e).start;
            let def = FnCtx::last_def(self.ctx.lets(), &name, pos)?;
            let key = expr_span(def.init).0.byte_range().start;
            return self.origin(def.init, Some(key), depth + 1);
        }
        let field = self.entry_field(e)?;
        Some(Read { expr: e, field, at_let })
    }

    /// For an expression that reads through the cache entry: the field it reads (`None`: the
    /// whole entry, or a field the checker cannot name). `None` overall: not a read of the entry.
    fn entry_field(&self, e: &Expr) -> Option<Option<String>> {
        // The chain from the outside in: `g.output().clone()` → [clone, output], root `g`.
        let mut chain: Vec<Step> = Vec::new();
        let mut cur = strip(e);
        loop {
            match cur {
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    if name == self.effect {
                        return None; // produced by the effect
                    }
                    chain.push(Step::Method(name));
                    cur = strip(&m.receiver);
                }
                Expr::Field(f) => {
                    if super::expr_text(cur) == self.place {
                        break;
                    }
                    if let syn::Member::Named(n) = &f.member {
                        chain.push(Step::Field(n.to_string()));
                    }
                    cur = strip(&f.base);
                }
                Expr::Index(i) => {
                    chain.push(Step::Index);
                    cur = strip(&i.expr);
                }
                Expr::Try(t) => cur = strip(&t.expr),
                Expr::Reference(r) => cur = strip(&r.expr),
                Expr::Unary(u) => cur = strip(&u.expr),
                _ => break,
            }
        }
        let rooted_at_place = super::expr_text(cur) == self.place;
        let rooted_at_entry = matches!(cur, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.entries.contains(&i.to_string())));
        if !rooted_at_place && !rooted_at_entry {
            return None;
        }
        // From the root outwards: skip the lookup on the place, then the first field or getter.
        let mut steps = chain.into_iter().rev().peekable();
        if rooted_at_place {
            match steps.next() {
                Some(Step::Index) => {}
                Some(Step::Method(m)) if LOOKUPS.contains(&m.as_str()) => {}
                _ => return None, // `self.graphs.len()`: not an entry
            }
        }
        for step in steps {
            match step {
                Step::Method(m) if PASS_THROUGH.contains(&m.as_str()) || LOOKUPS.contains(&m.as_str()) => continue,
                Step::Index => continue,
                Step::Field(f) => return Some(Some(f)),
                Step::Method(m) => return Some(getter_field(self.ctx, &m)),
            }
        }
        Some(None)
    }
}

enum Step {
    Method(String),
    Field(String),
    Index,
}

/// Names bound by a lookup on the `reuses` place: `let g = P.get_mut(&k)?`, `let Some(g) = P.get(..)
/// else {..}`, `if let Some(g) = P.get(..)`, `match P.get(..) { Some(g) => .. }`.
fn entry_bindings(body: &syn::Block, place: &str) -> HashSet<String> {
    struct Bindings<'p> {
        place: &'p str,
        names: HashSet<String>,
    }
    impl Bindings<'_> {
        fn is_lookup(&self, e: &Expr) -> bool {
            match strip(e) {
                Expr::Try(t) => self.is_lookup(&t.expr),
                Expr::Reference(r) => self.is_lookup(&r.expr),
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    (LOOKUPS.contains(&name.as_str()) && super::expr_text(&m.receiver) == self.place)
                        || (["unwrap", "expect", "ok_or", "ok_or_else", "as_mut", "as_ref"].contains(&name.as_str()) && self.is_lookup(&m.receiver))
                        || (LOOKUPS.contains(&name.as_str()) && self.is_lookup(&m.receiver))
                }
                Expr::Index(i) => super::expr_text(&i.expr) == self.place,
                _ => false,
            }
        }
        fn bind(&mut self, pat: &syn::Pat) {
            struct Idents<'n>(&'n mut HashSet<String>);
            impl<'ast> Visit<'ast> for Idents<'_> {
                fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                    self.0.insert(p.ident.to_string());
                    syn::visit::visit_pat_ident(self, p);
                }
            }
            Idents(&mut self.names).visit_pat(pat);
        }
    }
    impl<'ast> Visit<'ast> for Bindings<'_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if l.init.as_ref().is_some_and(|i| self.is_lookup(&i.expr)) {
                self.bind(&l.pat);
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            if self.is_lookup(&l.expr) {
                self.bind(&l.pat);
            }
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            if self.is_lookup(&m.expr) {
                for arm in &m.arms {
                    self.bind(&arm.pat);
                }
            }
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut v = Bindings { place, names: HashSet::new() };
    v.visit_block(body);
    v.names
}

/// The fields of `self` that effect `effect` writes: from the methods of that name in this file,
/// else from the `#[reuse::effect]` functions of that name in the index, when all agree. `None`:
/// unknown.
fn written_fields(ctx: &FnCtx, effect: &str) -> Option<HashSet<String>> {
    if let Some(bodies) = ctx.fns.bodies(effect) {
        return crate::analysis::self_fields_written(&bodies);
    }
    let declared = ctx.index.effects.get(effect)?;
    let first = declared.first()?.writes_self.as_ref()?;
    declared.iter().all(|e| e.writes_self.as_ref() == Some(first)).then(|| first.iter().cloned().collect())
}

/// The field of `self` a getter of this file returns (`fn output(&self) -> &[f32] { &self.output }`),
/// when every method of that name returns the same one.
fn getter_field(ctx: &FnCtx, method: &str) -> Option<String> {
    let bodies = ctx.fns.bodies(method)?;
    let mut field = None;
    for body in bodies {
        let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last() else { return None };
        let mut e = strip(tail);
        loop {
            match e {
                Expr::Reference(r) => e = strip(&r.expr),
                Expr::MethodCall(m) if PASS_THROUGH.contains(&m.method.to_string().as_str()) => e = strip(&m.receiver),
                _ => break,
            }
        }
        let Expr::Field(f) = e else { return None };
        let (Expr::Path(p), syn::Member::Named(n)) = (strip(&f.base), &f.member) else { return None };
        if !p.path.is_ident("self") {
            return None;
        }
        match &field {
            None => field = Some(n.to_string()),
            Some(prev) if n == prev => {}
            Some(_) => return None,
        }
    }
    field
}
