//! Check for `fallback_index`: the index argument of a `writes(P[IDX])` callee, or the local it
//! names, gets its value from a fallback default that is not the declared sentinel. Index buffers
//! with a `skip` sentinel are `pad_to_null_block`'s (a fallback to the null block there); this rule
//! takes scalar indexes, and buffers of contracts without a sentinel.

use std::ops::Range;

use syn::Expr;

use super::tail;
use crate::analysis::{clause_label, FnCtx};
use crate::finding::Finding;
use crate::resolve::strip;
use reuse_rules::catalogue::FALLBACK_INDEX;

pub(super) fn check<'a>(ctx: &FnCtx<'a>, calls: &[&'a Expr], out: &mut Vec<Finding>) {
    for &call in calls {
        let Some((site, callee)) = ctx.callee(call) else { continue };
        for (clause, target, skip) in callee.contract.writes() {
            let Some(arg) = site.arg_named(callee, target.index.root_name()) else { continue };
            let sentinel = skip.map(|s| ctx.sentinel_value(s, callee));
            let shown = ctx.file.text[ctx.expr_range(strip(arg))].to_string();
            let sources = value_sources(ctx, arg, ctx.expr_range(call).start);
            let buffer = sources.iter().any(|e| builds_buffer(e));
            if buffer && skip.is_some() {
                continue;
            }
            for (range, text, value) in sources.iter().flat_map(|e| fallbacks(ctx, e)) {
                if sentinel == Some(Some(value)) {
                    continue;
                }
                let param = target.index.to_string();
                let place = target.place.to_string();
                let why = match skip {
                    Some(s) => format!("`{}` skips only {s}", callee.name),
                    None => format!("`{}` declares no sentinel to skip", callee.name),
                };
                out.push(
                    Finding::new(
                        &FALLBACK_INDEX,
                        format!("`{shown}` is passed as `{param}` of `{}` and falls back to {text} when an entry is missing; {why}, so the write lands in `{place}[{text}]`", callee.name),
                        crate::finding::Label::new(ctx.file, range, format!("a missing entry becomes {text}")),
                    )
                    .with_secondary(clause_label(callee, clause, format!("`{}` writes `{place}` at `{param}`", callee.name)))
                    .with_help(match skip {
                        Some(s) => format!("fall back to {s}, the sentinel the callee skips, or handle the missing entry"),
                        None => "handle the missing entry (skip the write, or return an error); or declare a sentinel (`skip = ..`) and fall back to it".to_string(),
                    }),
                );
            }
        }
    }
}

/// Where an index's value is built: the expression, the `let`s of the locals it names back through
/// shadowing and casts (`let b = b as usize;`), and the value a same-file helper returns
/// (`fn block_of(..) -> usize { table.get(i).copied().unwrap_or(0) }`).
fn value_sources<'a>(ctx: &FnCtx<'a>, arg: &'a Expr, at: usize) -> Vec<&'a Expr> {
    let mut sources = vec![arg];
    let mut i = 0;
    while i < sources.len() && sources.len() < 8 {
        let e = sources[i];
        i += 1;
        let named = match strip(e) {
            Expr::Cast(c) => strip(&c.expr),
            other => other,
        };
        match named {
            Expr::Path(p) => {
                let Some(local) = p.path.get_ident() else { continue };
                // The definition before this use (a shadowing `let b = b;` refers to the one before it).
                let before = if std::ptr::eq(e, arg) { at } else { ctx.expr_range(e).start };
                if let Some(def) = FnCtx::last_def(ctx.lets(), &local.to_string(), before) {
                    sources.push(def.init);
                }
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { continue };
                let Some(helper) = p.path.get_ident() else { continue };
                if let Some([body]) = ctx.fns.bodies(&helper.to_string()).as_deref() {
                    if let Some(syn::Stmt::Expr(value, None)) = body.stmts.last() {
                        sources.push(value);
                    }
                }
            }
            _ => {}
        }
    }
    sources
}

/// Whether an initializer builds a buffer (`..collect()`, `vec![..]`) rather than one index.
fn builds_buffer(e: &Expr) -> bool {
    match strip(e) {
        Expr::MethodCall(m) => m.method == "collect" || m.method == "to_vec" || builds_buffer(&m.receiver),
        Expr::Macro(m) => m.mac.path.is_ident("vec"),
        Expr::Array(_) | Expr::Repeat(_) => true,
        Expr::Try(t) => builds_buffer(&t.expr),
        _ => false,
    }
}

/// The constant fallbacks that can be the value of an expression (not those of its lengths or of
/// other calls' arguments): `unwrap_or(c)`, `unwrap_or_default()` (0), `map_or(c, ..)`,
/// `unwrap_or_else(|| c)`, the constant arms of a `match` or an `if let` whose other arms are not
/// constant, through blocks, casts, and the `map` closure of a `collect` (an index buffer's
/// entries). Returns where each constant is, its text and value.
fn fallbacks(ctx: &FnCtx, e: &Expr) -> Vec<(Range<usize>, String, i128)> {
    let constant = |v: &Expr| ctx.int_value(v).map(|n| (ctx.expr_range(v), ctx.file.text[ctx.expr_range(v)].to_string(), n));
    match strip(tail(strip(e))) {
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "unwrap_or" | "map_or" => m.args.first().and_then(constant).into_iter().collect(),
            "unwrap_or_default" => vec![(ctx.range(m.method.span()).start..ctx.expr_range(e).end, "0".to_string(), 0)],
            "unwrap_or_else" => match m.args.first().map(strip) {
                Some(Expr::Closure(c)) => constant(tail(&c.body)).into_iter().collect(),
                _ => Vec::new(),
            },
            // `(0..n).map(|i| ..).collect()`: the entries are the closure's value.
            "collect" => {
                let mut r = strip(&m.receiver);
                while let Expr::MethodCall(inner) = r {
                    if inner.method == "map" {
                        return match inner.args.first().map(strip) {
                            Some(Expr::Closure(c)) => fallbacks(ctx, &c.body),
                            _ => Vec::new(),
                        };
                    }
                    r = strip(&inner.receiver);
                }
                Vec::new()
            }
            _ => Vec::new(),
        },
        Expr::Match(m) => {
            let values: Vec<Option<i128>> = m.arms.iter().map(|a| ctx.int_value(tail(&a.body))).collect();
            if values.iter().all(Option::is_some) {
                return Vec::new();
            }
            m.arms.iter().filter_map(|a| constant(tail(&a.body))).collect()
        }
        Expr::If(i) => {
            let (Expr::Let(_), Some((_, els))) = (&*i.cond, &i.else_branch) else { return Vec::new() };
            let then = i.then_branch.stmts.last().and_then(|s| match s {
                syn::Stmt::Expr(e, None) => Some(e),
                _ => None,
            });
            if then.is_some_and(|t| ctx.int_value(t).is_some()) {
                return Vec::new();
            }
            constant(tail(els)).into_iter().collect()
        }
        Expr::Cast(c) => fallbacks(ctx, &c.expr),
        _ => Vec::new(),
    }
}
