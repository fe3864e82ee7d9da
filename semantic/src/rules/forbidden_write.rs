//! Check for `forbidden_write`: writes to a `forbids_write(P[C])` region in the body, and passing
//! P to a callee that writes it without forbidding the same region.
//!
//! Statically, a write is seen when its index is a literal or a constant (or a range of them) that
//! falls in the region, or when the whole of P is written (`P.fill(..)`, `P.iter_mut()`,
//! `P.as_mut_ptr()`). Writes at computed indices are left to the runtime shim.

use std::ops::Range;

use syn::visit::Visit;
use syn::Expr;

use super::expr_text;
use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use crate::resolve::strip;
use reuse_rules::catalogue::FORBIDDEN_WRITE;
use reuse_rules::contract::{Clause, Region};

/// Methods that write through their receiver.
pub(crate) const MUTATING_METHODS: &[&str] = &[
    "fill", "fill_with", "copy_from_slice", "clone_from_slice", "iter_mut", "as_mut_ptr", "as_mut_slice", "swap", "sort",
    "sort_unstable", "reverse", "rotate_left", "rotate_right", "copy_within", "get_mut", "last_mut", "first_mut",
    "chunks_mut", "split_at_mut", "push", "insert", "clear", "truncate", "resize", "extend", "extend_from_slice", "write",
    "set", "zero_", "fill_", "copy_", "as_mut",
];

struct Forbidden<'a> {
    clause: &'a Clause<Range<usize>>,
    region: &'a Region<Range<usize>>,
    place: String,
    bounds: Option<(i128, i128)>,
}

pub(super) fn check_body(ctx: &FnCtx, contract: &FileContract, out: &mut Vec<Finding>) {
    let own = ctx.own_contracted();
    // A function its own clause names in `except(..)` may write the region.
    let forbidden: Vec<Forbidden> = contract
        .forbidden_regions()
        .filter(|(clause, _)| !own.is_some_and(|o| ctx.sanctioned_by(o, clause)))
        .map(|(clause, region)| Forbidden { clause, region, place: region.place.to_string(), bounds: ctx.region_bounds(&region.index, ctx.resolver.crate_name) })
        .collect();
    if forbidden.is_empty() {
        return;
    }
    let mut v = Writes { ctx, own, forbidden: &forbidden, out, skipped: Vec::new() };
    v.visit_block(ctx.body);
}

struct Writes<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    /// This function's contract in the index (its `except(..)` paths resolved).
    own: Option<&'a crate::index::ContractedFn>,
    forbidden: &'c [Forbidden<'c>],
    out: &'c mut Vec<Finding>,
    /// `P.iter_mut()` calls already judged with the `.skip(k)` around them.
    skipped: Vec<*const syn::ExprMethodCall>,
}

impl Writes<'_, '_> {
    /// The forbidden region a written place falls in: `P[i]`, `P[a..b]` with known values, all of
    /// `P`, or an element or field of those (`P[i][j]`, `P[i].x`).
    fn hit(&self, target: &Expr) -> Option<usize> {
        match strip(target) {
            Expr::Index(i) => self.region_at(&expr_text(strip(&i.expr)), Some(&i.index)).or_else(|| match strip(&i.expr) {
                // `P[i][j]` and `P[i].x[j]` write within `P[i]`; `self.p[j]` is only `self.p` at `j`.
                Expr::Index(_) => self.hit(&i.expr),
                Expr::Field(f) if matches!(strip(&f.base), Expr::Index(_)) => self.hit(&i.expr),
                _ => None,
            }),
            Expr::Field(f) => self.region_at(&expr_text(strip(target)), None).or_else(|| match strip(&f.base) {
                Expr::Index(_) => self.hit(&f.base),
                _ => None,
            }),
            other => self.region_at(&expr_text(other), None),
        }
    }

    fn region_at(&self, base: &str, index: Option<&Expr>) -> Option<usize> {
        self.forbidden.iter().position(|f| {
            if f.place != base {
                return false;
            }
            let Some((lo, hi)) = f.bounds else { return false };
            match index.map(strip) {
                None => true,
                Some(Expr::Range(r)) => {
                    let s = r.start.as_deref().map_or(Some(0), |e| self.ctx.int_value(e));
                    let e = match &r.end {
                        Some(e) => self.ctx.int_value(e).map(|v| v.saturating_add(i128::from(matches!(r.limits, syn::RangeLimits::Closed(_))))),
                        None => Some(i128::MAX),
                    };
                    matches!((s, e), (Some(s), Some(e)) if s < hi && lo < e)
                }
                Some(i) => self.ctx.int_value(i).is_some_and(|v| lo <= v && v < hi),
            }
        })
    }

    fn report(&mut self, f_idx: usize, at: &Expr, how: &str) {
        let f = &self.forbidden[f_idx];
        let region = format!("{}[{}]", f.place, f.region.index);
        self.out.push(
            Finding::new(&FORBIDDEN_WRITE, format!("{how} writes `{region}`, which this function's contract forbids"), self.ctx.label(at, "writes forbidden storage"))
                .with_secondary(Label::new(self.ctx.contract_file, f.clause.keyword.span.start..f.clause.end.end, "declared never written here"))
                .with_help(format!("leave `{region}` untouched: skip it, or write only outside the region")),
        );
    }

}

impl<'ast> Visit<'ast> for Writes<'_, '_> {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(i) = self.hit(&a.left) {
            self.report(i, &a.left, "this assignment");
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if super::undeclared_write::is_compound(&b.op) {
            if let Some(i) = self.hit(&b.left) {
                self.report(i, &b.left, "this compound assignment");
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        let place = expr_text(strip(&m.receiver));
        match method.as_str() {
            // Methods that take the positions they write: judge the positions.
            "swap" | "get_mut" | "copy_within" => {
                let positions: Vec<&Expr> = match method.as_str() {
                    "swap" => m.args.iter().collect(),
                    "copy_within" => m.args.iter().skip(1).collect(),
                    _ => m.args.iter().take(1).collect(),
                };
                if let Some(i) = positions.into_iter().find_map(|p| self.region_at(&place, Some(p))) {
                    self.report(i, &m.receiver, &format!("`{method}`"));
                }
            }
            // `P.iter_mut().skip(k)` writes from `k` on.
            "skip" => {
                if let (Expr::MethodCall(inner), Some(k)) = (strip(&m.receiver), m.args.first()) {
                    if inner.method == "iter_mut" {
                        self.skipped.push(inner as *const _);
                        let from = Expr::Range(syn::ExprRange { attrs: Vec::new(), start: Some(Box::new(k.clone())), limits: syn::RangeLimits::HalfOpen(Default::default()), end: None });
                        if let Some(i) = self.region_at(&expr_text(strip(&inner.receiver)), Some(&from)) {
                            self.report(i, &inner.receiver, "`iter_mut().skip(..)`");
                        }
                    }
                }
            }
            // Hands out parts to be written elsewhere: not judged here.
            "split_at_mut" | "chunks_mut" | "chunks_exact_mut" => {}
            _ if MUTATING_METHODS.contains(&method.as_str()) && !self.skipped.contains(&(m as *const _)) => {
                if let Some(i) = self.hit(&m.receiver) {
                    self.report(i, &m.receiver, &format!("`{method}`"));
                }
            }
            _ => {}
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Some((site, callee)) = self.ctx.callee(e) {
            for (_, target, _) in callee.contract.writes() {
                let Some(arg) = site.arg_named(callee, target.place.root_name()) else { continue };
                if let Some(i) = self.hit(arg) {
                    // A sanctioned writer of the region (`except(..)`) may be handed it.
                    let sanctioned = self.own.is_some_and(|o| {
                        o.sanctions(self.forbidden[i].clause, &callee.path, self.ctx.index)
                    });
                    if !sanctioned && !callee_forbids_too(callee, target.place.root_name(), &self.forbidden[i]) {
                        let place = &self.forbidden[i].place;
                        self.report(i, arg, &format!("passing `{place}` to `{}`, a writer of it,", callee.name));
                    }
                }
            }
        }
        syn::visit::visit_expr(self, e);
    }
}

/// Whether the callee also forbids the region for the parameter that receives it.
fn callee_forbids_too(callee: &crate::index::ContractedFn, param: &str, f: &Forbidden) -> bool {
    callee.contract.forbidden_regions().any(|(_, r)| r.place.root_name() == param && r.index.to_string() == f.region.index.to_string())
}

