//! Check for `memoized_effect`: a caller caches the result of a call that is an effect or whose
//! contract preserves effects, so later calls skip them.

use syn::Expr;

use super::{calls_in_expr, expr_text, names};
use crate::analysis::{clause_label, FnCtx};
use crate::finding::{Finding, Label};
use crate::resolve::{strip, CallSite, Resolution};
use reuse_rules::catalogue::MEMOIZED_EFFECT;

/// Methods that run their closure only when nothing is cached yet.
const CACHING_METHODS: &[&str] =
    &["or_insert_with", "or_insert_with_key", "get_or_insert_with", "get_or_init", "get_or_try_init", "or_try_insert_with", "get_or_insert_with_key"];
/// Lookups that make a later `insert` a get-then-insert memo.
const LOOKUPS: &[&str] = &["get", "get_mut", "contains_key", "peek"];

pub(super) fn check<'a>(ctx: &FnCtx<'a>, calls: &[&'a Expr], out: &mut Vec<Finding>) {
    for &call in calls {
        let Expr::MethodCall(m) = call else { continue };
        let method = m.method.to_string();
        if CACHING_METHODS.contains(&method.as_str()) {
            for arg in &m.args {
                if let Expr::Closure(c) = strip(arg) {
                    for inner in calls_in_expr(&c.body) {
                        report(ctx, inner, &format!("`{method}`"), out);
                    }
                }
            }
        } else if method == "insert" && m.args.len() == 2 {
            let map = expr_text(&m.receiver);
            let looked_up = calls.iter().any(|c| {
                matches!(c, Expr::MethodCall(l) if LOOKUPS.contains(&l.method.to_string().as_str())
                    && expr_text(&l.receiver) == map
                    && ctx.expr_range(c).start < ctx.expr_range(call).start)
            });
            if looked_up {
                if let Some(value_call) = value_source(ctx, &m.args[1]) {
                    report(ctx, value_call, &format!("`{map}.insert` after a lookup"), out);
                }
            }
        }
    }
}

/// The call whose result `value` is: the call itself, or the initializer of a local it names.
fn value_source<'a>(ctx: &FnCtx<'a>, value: &'a Expr) -> Option<&'a Expr> {
    let value = peel(value);
    match value {
        Expr::Call(_) | Expr::MethodCall(_) => Some(value),
        Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            let mut found = None;
            for stmt in &ctx.body.stmts {
                if let syn::Stmt::Local(l) = stmt {
                    if let (syn::Pat::Ident(pi), Some(init)) = (&l.pat, &l.init) {
                        if pi.ident == name {
                            found = Some(peel(&init.expr));
                        }
                    }
                }
            }
            found.filter(|e| matches!(e, Expr::Call(_) | Expr::MethodCall(_)))
        }
        _ => None,
    }
}

/// Strips `.clone()`, `?` and references around a value.
fn peel(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => peel(&m.receiver),
        Expr::Try(t) => peel(&t.expr),
        other => other,
    }
}

fn report(ctx: &FnCtx, call_expr: &Expr, how: &str, out: &mut Vec<Finding>) {
    let Some(call) = CallSite::of(call_expr) else { return };
    let name = call.name.clone();
    if let Some(effect) = ctx.resolver.effect(&call, ctx.self_type) {
        out.push(
            Finding::new(&MEMOIZED_EFFECT, format!("the effect `{name}` is cached by {how}: later calls skip it"), ctx.label(call_expr, "runs only on the first call"))
                .with_secondary(Label::new(&effect.file, effect.range.clone(), "declared as an effect here"))
                .with_help(format!("call `{name}` on every call instead of caching its result")),
        );
        return;
    }
    let Resolution::One(callee) = ctx.resolve(&call) else { return };
    let Some((clause, effects)) = callee.contract.preserves() else { return };
    let effect_names: Vec<&str> = effects.iter().map(|e| e.name()).collect();
    out.push(
        Finding::new(
            &MEMOIZED_EFFECT,
            if effect_names.len() == 1 {
                format!("the result of `{name}` is cached by {how}, so its effect {} is skipped on every later call", names(&effect_names))
            } else {
                format!("the result of `{name}` is cached by {how}, so its effects {} are skipped on every later call", names(&effect_names))
            },
            ctx.label(call_expr, format!("`{name}` runs only on a miss of this cache")),
        )
        .with_secondary(clause_label(callee, clause, format!("`{}` preserves these effects on every call", callee.display_path())))
        .with_help(format!("call `{name}` on every step (its own cache keeps the effects), or cache only work that has none")),
    );
}
