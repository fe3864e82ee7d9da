//! Check for `use_after_donate`: after a call whose callee declares `aliases(return = x)`, a later
//! use of the variable passed for `x`, until it is re-bound.
//!
//! "Later" follows the syntax tree: a use in another arm of the same `if` or `match` as the call
//! is not after it, and a re-binding (`let x = ..`, `x = ..`) between the two ends the donation.
//! Inside a loop, a donated variable that is not re-bound before the end of the body is donated
//! again on the next iteration: its uses earlier in the body (the call's own argument included)
//! are reported too. Passing `x.clone()` donates the clone, not `x`.

use std::ops::Range;

use syn::visit::Visit;
use syn::{Expr, Pat};

use crate::analysis::{clause_label, FnCtx};
use crate::finding::Finding;
use crate::resolve::strip;
use reuse_rules::catalogue::USE_AFTER_DONATE;
use reuse_rules::contract::PlaceRoot;

/// One mention of the variable: where it is, which branch arms lead to it, which loops enclose it.
#[derive(Clone, Debug)]
struct Occurrence {
    pos: usize,
    arms: Vec<(usize, usize)>,
    loops: Vec<Range<usize>>,
    /// For re-bindings: a new variable (`let`, a pattern), scoped to its block, rather than an
    /// assignment to the same one.
    binds: bool,
}

fn compatible(a: &Occurrence, b: &Occurrence) -> bool {
    a.arms.iter().all(|(node, arm)| b.arms.iter().all(|(n2, a2)| n2 != node || a2 == arm))
}

pub(super) fn check(ctx: &FnCtx, calls: &[&Expr], out: &mut Vec<Finding>) {
    for &call in calls {
        let Some((site, callee)) = ctx.callee(call) else { continue };
        for (clause, alias) in callee.contract.aliases() {
            if alias.input.root != PlaceRoot::Param || alias.input.segments.len() != 1 {
                continue;
            }
            let Some(arg) = site.arg_named(callee, alias.input.root_name()) else { continue };
            let Expr::Path(p) = strip(arg) else { continue };
            let Some(var) = p.path.get_ident().map(|i| i.to_string()) else { continue };
            let call_range = ctx.expr_range(call);
            let scan = Scan::run(ctx, &var);
            let arg_pos = ctx.range(p.path.segments[0].ident.span()).start;
            let Some(donation) = scan.uses.iter().find(|o| o.pos == arg_pos).cloned() else { continue };
            // `return f(x)` and `break f(x)` end the path; a donation inside a closure happens
            // whenever the closure runs, which this order of uses does not tell.
            if scan.diverging.iter().chain(&scan.closures).any(|r| r.start <= call_range.start && call_range.end <= r.end) {
                continue;
            }
            // A `let` is in scope to the end of its block: it re-binds the name for uses inside
            // that block only.
            let scope_of = |pos: usize| scan.blocks.iter().filter(|b| b.contains(&pos)).min_by_key(|b| b.len()).cloned();
            let in_scope = |r: &Occurrence, u: usize| !r.binds || scope_of(r.pos).is_none_or(|b| b.contains(&u));
            let rebound_between = |from: usize, to: usize, at: &Occurrence| {
                scan.rebinds.iter().any(|r| r.pos >= from && r.pos <= to && compatible(r, at) && compatible(r, &donation) && in_scope(r, at.pos))
            };
            // The donated binding itself: a use after the end of its block is another variable.
            let binding = scan.rebinds.iter().filter(|r| r.pos < arg_pos && compatible(r, &donation)).max_by_key(|r| r.pos).cloned();
            let same_variable = |u: &Occurrence| binding.as_ref().is_none_or(|b| in_scope(b, u.pos));
            let line = ctx.line_of(call_range.start);
            let mut flagged: Vec<(usize, bool)> = scan
                .uses
                .iter()
                .filter(|u| u.pos >= call_range.end && compatible(u, &donation) && same_variable(u) && !rebound_between(call_range.end, u.pos, u))
                .map(|u| (u.pos, false))
                .collect();
            if let Some(lp) = donation.loops.last() {
                let rebound_in_loop = scan.rebinds.iter().any(|r| r.pos > call_range.start && r.pos < lp.end && compatible(r, &donation));
                // Bound afresh on each iteration (`for x in xs`, a `let` in the body): each
                // iteration donates a different value.
                let fresh_each_iteration = scan.rebinds.iter().any(|r| lp.contains(&r.pos) && r.pos < arg_pos && compatible(r, &donation));
                if !rebound_in_loop && !fresh_each_iteration {
                    flagged.extend(
                        scan.uses
                            .iter()
                            .filter(|u| u.pos >= lp.start && u.pos < call_range.end && !rebound_between(lp.start, u.pos, u) || u.pos == arg_pos)
                            .filter(|u| u.pos >= lp.start)
                            .map(|u| (u.pos, true)),
                    );
                }
            }
            flagged.sort();
            flagged.dedup_by_key(|f| f.0);
            let callee_text = match site.receiver {
                Some(r) => format!("{}.{}", &ctx.file.text[ctx.expr_range(r)], callee.name),
                None => site.path.as_ref().map_or_else(|| callee.name.clone(), |p| p.join("::")),
            };
            for (pos, next_iteration) in flagged {
                let when = if next_iteration { " on the next iteration of the loop" } else { "" };
                let output = alias.output.to_string();
                out.push(
                    Finding::new(
                        &USE_AFTER_DONATE,
                        format!("`{var}` is used{when} after it was donated to the output of `{}` (line {line})", callee.name),
                        crate::finding::Label::new(ctx.file, pos..pos + var.len(), format!("`{var}` was donated; its buffer now belongs to the output")),
                    )
                    .with_secondary(clause_label(callee, clause, format!("`{output}` shares the storage of `{}`", alias.input)))
                    .with_help(format!("re-bind the name to the output (`let {var} = {callee_text}(..)`) or use the output instead")),
                );
            }
        }
    }
}

/// Uses and re-bindings of one variable, with their branch arms and enclosing loops.
struct Scan<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    var: &'c str,
    arms: Vec<(usize, usize)>,
    loops: Vec<Range<usize>>,
    next_node: usize,
    uses: Vec<Occurrence>,
    rebinds: Vec<Occurrence>,
    /// `return ..` and `break ..` expressions.
    diverging: Vec<Range<usize>>,
    /// Nested blocks (the scopes of `let`s); the function body is not one of them.
    blocks: Vec<Range<usize>>,
    closures: Vec<Range<usize>>,
}

impl<'c, 'a> Scan<'c, 'a> {
    fn run(ctx: &'c FnCtx<'a>, var: &'c str) -> Self {
        let mut s = Scan {
            ctx,
            var,
            arms: Vec::new(),
            loops: Vec::new(),
            next_node: 0,
            uses: Vec::new(),
            rebinds: Vec::new(),
            diverging: Vec::new(),
            blocks: Vec::new(),
            closures: Vec::new(),
        };
        s.visit_block(ctx.body);
        s
    }

    fn here(&self, pos: usize) -> Occurrence {
        Occurrence { pos, arms: self.arms.clone(), loops: self.loops.clone(), binds: true }
    }

    fn binds(&self, pat: &Pat) -> bool {
        match pat {
            Pat::Ident(pi) => pi.ident == self.var,
            Pat::Type(pt) => self.binds(&pt.pat),
            Pat::Tuple(t) => t.elems.iter().any(|p| self.binds(p)),
            Pat::TupleStruct(t) => t.elems.iter().any(|p| self.binds(p)),
            _ => false,
        }
    }

    /// Runs `f` inside a loop whose extent (header and body) is `whole`.
    fn in_loop(&mut self, whole: Range<usize>, f: impl FnOnce(&mut Self)) {
        let r = whole;
        self.loops.push(r);
        f(self);
        self.loops.pop();
    }
}

impl<'ast> Visit<'ast> for Scan<'_, '_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.path.is_ident(self.var) {
            let pos = self.ctx.range(p.path.segments[0].ident.span()).start;
            self.uses.push(self.here(pos));
        }
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        if !std::ptr::eq(b, self.ctx.body) {
            let r = self.ctx.file.join(b.brace_token.span.open(), b.brace_token.span.close());
            self.blocks.push(r);
        }
        syn::visit::visit_block(self, b);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, els)) = &init.diverge {
                self.visit_expr(els);
            }
        }
        if self.binds(&l.pat) {
            let end = self.ctx.range(l.semi_token.span).end;
            self.rebinds.push(self.here(end));
        }
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.visit_expr(&a.right);
        match &*a.left {
            Expr::Path(p) if p.path.is_ident(self.var) => {
                let end = self.ctx.expr_range(&a.right).end;
                let assignment = Occurrence { binds: false, ..self.here(end) };
                self.rebinds.push(assignment);
            }
            other => self.visit_expr(other),
        }
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.visit_expr(&i.cond);
        let node = self.next_node;
        self.next_node += 1;
        self.arms.push((node, 0));
        self.visit_block(&i.then_branch);
        self.arms.pop();
        if let Some((_, e)) = &i.else_branch {
            self.arms.push((node, 1));
            self.visit_expr(e);
            self.arms.pop();
        }
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let node = self.next_node;
        self.next_node += 1;
        for (i, arm) in m.arms.iter().enumerate() {
            self.arms.push((node, i));
            if let Some((_, g)) = &arm.guard {
                self.visit_expr(g);
            }
            self.visit_expr(&arm.body);
            self.arms.pop();
        }
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let whole = self.ctx.file.join(f.for_token.span, f.body.brace_token.span.close());
        self.in_loop(whole, |s| {
            s.visit_pat(&f.pat);
            s.visit_block(&f.body)
        });
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let whole = self.ctx.file.join(w.while_token.span, w.body.brace_token.span.close());
        self.in_loop(whole, |s| {
            s.visit_expr(&w.cond);
            s.visit_block(&w.body);
        });
    }

    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        let whole = self.ctx.file.join(l.loop_token.span, l.body.brace_token.span.close());
        self.in_loop(whole, |s| s.visit_block(&l.body));
    }

    /// Bindings by pattern (`for x in`, `if let Some(x)`, match arms, closure parameters): the name
    /// now means another value. `let` is handled in `visit_local`, after its initializer.
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if p.ident == self.var {
            let pos = self.ctx.range(p.ident.span()).start;
            self.rebinds.push(self.here(pos));
        }
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.diverging.push(self.ctx.expr_range(&Expr::Return(r.clone())));
        syn::visit::visit_expr_return(self, r);
    }

    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.diverging.push(self.ctx.expr_range(&Expr::Break(b.clone())));
        syn::visit::visit_expr_break(self, b);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.closures.push(self.ctx.expr_range(&Expr::Closure(c.clone())));
        syn::visit::visit_expr_closure(self, c);
    }

    /// Macro arguments are token streams: every identifier token with the name is a use
    /// (`println!("{}", x.0)`, `assert_eq!(x, y)`).
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn walk(scan: &mut Scan<'_, '_>, ts: &proc_macro2::TokenStream) {
            let mut after_dot = false;
            for tt in ts.clone() {
                match &tt {
                    proc_macro2::TokenTree::Ident(i) if *i == scan.var && !after_dot => {
                        let pos = scan.ctx.range(i.span()).start;
                        let occ = scan.here(pos);
                        scan.uses.push(occ);
                    }
                    proc_macro2::TokenTree::Group(g) => walk(scan, &g.stream()),
                    _ => {}
                }
                after_dot = matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == '.');
            }
        }
        walk(self, &m.tokens);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
