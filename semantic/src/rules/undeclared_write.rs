//! Check for `undeclared_write`: a function whose contract declares a write set (`writes` or
//! `aliases`) writes a `&mut` parameter outside it.

use syn::visit::Visit;
use syn::{Expr, FnArg, Pat, Type};

use super::forbidden_write::MUTATING_METHODS;
use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use crate::resolve::strip;
use reuse_rules::catalogue::UNDECLARED_WRITE;

pub(super) fn check(ctx: &FnCtx, contract: &FileContract, out: &mut Vec<Finding>) {
    if !contract.has_write_set() {
        return;
    }
    let undeclared: Vec<String> = ctx
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                (Pat::Ident(pi), Type::Reference(r)) if r.mutability.is_some() => Some(pi.ident.to_string()),
                _ => None,
            },
            _ => None,
        })
        .filter(|p| !contract.declares_write_to(p))
        .collect();
    if undeclared.is_empty() {
        return;
    }
    let mut v = Writes { ctx, params: &undeclared, found: Vec::new() };
    v.visit_block(ctx.body);
    let lets = ctx.lets();
    let mut reported = Vec::new();
    for (param, at, how) in v.found {
        // `let mut out = Vec::new();` shadows the parameter: later writes are to the local.
        let shadowed = FnCtx::last_def(lets, &param, ctx.expr_range(at).start).is_some();
        if reported.contains(&param) || shadowed {
            continue;
        }
        let attr = contract.clauses.first().map(|c| c.keyword.span.start..c.end.end);
        let mut f = Finding::new(
            &UNDECLARED_WRITE,
            format!("{how} writes the parameter `{param}`, which the contract's write set does not declare"),
            ctx.label(at, format!("writes `{param}`")),
        )
        .with_help(format!("declare it (`writes({param}[INDEX], skip = ..)`) or stop writing it"));
        if let Some(range) = attr {
            f = f.with_secondary(Label::new(ctx.contract_file, range, "the write set is declared here"));
        }
        out.push(f);
        reported.push(param);
    }
}

/// The parameter an expression writes through: `p[i]`, `p.f`, `*p`, `p` itself.
fn root_param(e: &Expr, params: &[String]) -> Option<String> {
    match strip(e) {
        Expr::Index(i) => root_param(&i.expr, params),
        Expr::Field(f) => root_param(&f.base, params),
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()).filter(|n| params.contains(n)),
        _ => None,
    }
}

struct Writes<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    params: &'c [String],
    found: Vec<(String, &'c Expr, String)>,
}

impl<'ast: 'c, 'c> Visit<'ast> for Writes<'c, '_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => {
                if let Some(p) = root_param(&a.left, self.params) {
                    self.found.push((p, &a.left, "this assignment".into()));
                }
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                if let Some(p) = root_param(&b.left, self.params) {
                    self.found.push((p, &b.left, "this compound assignment".into()));
                }
            }
            Expr::MethodCall(m) if MUTATING_METHODS.contains(&m.method.to_string().as_str()) => {
                if let Some(p) = root_param(&m.receiver, self.params) {
                    self.found.push((p, &m.receiver, format!("`{}`", m.method)));
                }
            }
            Expr::Call(_) | Expr::MethodCall(_) => {
                // `&mut p` handed on, or `p` handed to a contracted callee that writes it.
                if let Some((site, callee)) = self.ctx.callee(e) {
                    for (_, target, _) in callee.contract.writes() {
                        if let Some(arg) = site.arg_named(callee, target.place.root_name()) {
                            if let Some(p) = root_param(arg, self.params) {
                                self.found.push((p.clone(), arg, format!("passing `{p}` to `{}`, a writer of it,", callee.name)));
                            }
                        }
                    }
                } else {
                    let args: Vec<&Expr> = match e {
                        Expr::Call(c) => c.args.iter().collect(),
                        Expr::MethodCall(m) => m.args.iter().collect(),
                        _ => Vec::new(),
                    };
                    for arg in args {
                        if let Expr::Reference(r) = arg {
                            if r.mutability.is_some() {
                                if let Some(p) = root_param(&r.expr, self.params) {
                                    self.found.push((p, arg, "passing it on as `&mut`".into()));
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
}

pub(super) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) | BitXorAssign(_) | BitAndAssign(_) | BitOrAssign(_) | ShlAssign(_) | ShrAssign(_))
}
