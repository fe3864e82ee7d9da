//! Check for `hit_skips_effect`: a normally-returning path of a function with `preserves(...)`
//! that does not call every preserved effect.

use std::ops::Range;

use syn::Expr;

use super::names;
use crate::analysis::{FnCtx};
use crate::finding::{Finding, Label};
use crate::flow::{exits, Declining, Exit, ExitKind, Paths, TooComplex};
use crate::resolve::CallSite;
use reuse_rules::catalogue::HIT_SKIPS_EFFECT;
use reuse_rules::contract::{Clause, Effect};

/// The exits of the body with the preserved effects each path ran. A call of a function whose own
/// contract preserves some of the same effects counts as running them, in its order.
pub(super) fn effect_exits(ctx: &FnCtx, effects: &[Effect<Range<usize>>]) -> Result<Paths, TooComplex> {
    let position = |name: &str| effects.iter().position(|e| e.name() == name).map(|i| i as u8);
    let resolve = |e: &Expr| -> Vec<u8> {
        let Some(call) = CallSite::of(e) else { return Vec::new() };
        if let Some(i) = position(&call.name) {
            return vec![i];
        }
        match ctx.resolve(&call) {
            crate::resolve::Resolution::One(callee) => callee
                .contract
                .preserves()
                .map(|(_, theirs)| theirs.iter().filter_map(|e| position(e.name())).collect())
                .unwrap_or_default(),
            crate::resolve::Resolution::Ambiguous(_) => Vec::new(),
            // A helper of this file without a contract (`fn effects(&mut self) { self.log_step(); .. }`):
            // the effects its body calls, in source order, when every function of that name agrees.
            crate::resolve::Resolution::None => {
                let Some(bodies) = ctx.fns.bodies(&call.name) else { return Vec::new() };
                let runs = |b: &syn::Block| -> Vec<u8> {
                    super::calls_in(b).into_iter().filter_map(|c| CallSite::of(c).and_then(|c| position(&c.name))).collect()
                };
                let first = bodies.first().map(|b| runs(b)).unwrap_or_default();
                if bodies.iter().all(|b| runs(b) == first) {
                    first
                } else {
                    Vec::new()
                }
            }
        }
    };
    // Loops are interpreted more than once: each call is resolved once. Calls are told apart by
    // where their name is written (calls inside macros are re-parsed on each visit, so their
    // addresses are not stable; their spans are).
    let memo: std::cell::RefCell<std::collections::HashMap<(usize, usize), Vec<u8>>> = Default::default();
    let of_call = |e: &Expr| -> Vec<u8> {
        let name_span = match e {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => p.path.segments.last().map(|s| s.ident.span()),
                _ => None,
            },
            Expr::MethodCall(m) => Some(m.method.span()),
            _ => None,
        };
        let Some(key) = name_span.map(|s| (s.byte_range().start, s.byte_range().end)) else { return resolve(e) };
        if let Some(known) = memo.borrow().get(&key) {
            return known.clone();
        }
        let effects = resolve(e);
        memo.borrow_mut().insert(key, effects.clone());
        effects
    };
    exits(ctx.body, &of_call, &declining(ctx))
}

/// Which returned values decline to serve under the function's contract (see [`Declining`]).
pub(super) fn declining(ctx: &FnCtx) -> Declining {
    let Some(contract) = ctx.contract else { return Declining::default() };
    let has_reuses = contract.reuses().next().is_some();
    let miss = contract.miss().and_then(|m| m.pat());
    Declining { none: has_reuses && miss.is_none(), miss }
}

pub(super) fn describe_exit(kind: ExitKind) -> &'static str {
    match kind {
        ExitKind::Return => "this return",
        ExitKind::Try => "this `?`",
        ExitKind::Tail | ExitKind::Declines => "this path",
    }
}

/// Whether an exit serves a result (a hit, or a miss that computed it). Error exits (`?`,
/// `return Err(..)`) and misses that decline (the contract's `miss` pattern; without one, with
/// `reuses`, `None` and `Ok(None)`: the caller does the work) are exempt from `preserves`, as
/// SPEC.md says.
pub(super) fn serves(exit: &Exit) -> bool {
    !matches!(exit.kind, ExitKind::Try | ExitKind::Declines)
}

pub(super) fn check(ctx: &FnCtx, clause: &Clause<Range<usize>>, effects: &[Effect<Range<usize>>], exits: &[Exit], out: &mut Vec<Finding>) {
    for exit in exits.iter().filter(|e| serves(e)) {
        let missing: Vec<&str> = effects
            .iter()
            .enumerate()
            .filter(|(i, _)| exit.traces.iter().any(|t| !t.contains(&(*i as u8))))
            .map(|(_, e)| e.name())
            .collect();
        if missing.is_empty() {
            continue;
        }
        let range = ctx.file.join(exit.span.0, exit.span.1);
        let what = describe_exit(exit.kind);
        let all: Vec<&str> = effects.iter().map(|e| e.name()).collect();
        out.push(
            Finding::new(
                &HIT_SKIPS_EFFECT,
                format!("{what} skips the preserved effect{} {}", if missing.len() > 1 { "s" } else { "" }, names(&missing)),
                Label::new(ctx.file, range, format!("returns without calling {}", names(&missing))),
            )
            .with_secondary(Label::new(
                ctx.contract_file,
                clause.keyword.span.start..clause.end.end,
                "the contract requires these effects on every path, hit or miss",
            ))
            .with_help(format!(
                "call {} on this path too, in the declared order ({}); or run them once around the cache lookup",
                names(&missing),
                all.join(", ")
            )),
        );
    }
}
