//! How a function of the workspace runs the closures it is handed: the callback summary every
//! rule's solve reads ([`dataflow::Analysis::callback_runs`]), so that a closure given to a helper
//! that calls it (`pool.with_cache(|c| write_kv(c, &slots))`, where `with_cache` ends with
//! `f(&mut self.cache)`) is walked where the helper runs it, as the closures of `for_each` and
//! `update` are: what it writes, donates or runs happens at the call.
//!
//! A parameter is run by the helper where the helper's body calls it (`f(..)`, `(*f)(..)`,
//! `f.call_mut(..)`), or hands it to another helper that runs it (to the summaries' depth). Counted
//! on every normal path (error exits are the caller's error exits too): called once on every
//! path is [`Runs::Once`] (the closure's effects ran), at most once [`Runs::AtMostOnce`],
//! in a loop or more than once [`Runs::AnyTimes`]; a parameter never called, or only stored
//! (`Box::new(f)`, a field) or spawned, is not run by the call.

use std::sync::Arc;

use syn::Expr;

use crate::analysis::{FnCtx, FnDef};
use crate::dataflow::{self, Analysis, Domain, LocalId, Runs, Scopes};

/// How a function runs each of its parameters (receiver excluded), by position.
#[derive(Debug)]
pub(crate) struct Summary {
    method: bool,
    params: Vec<Option<Runs>>,
}

/// The file's memo of callback summaries, by position in `FileFns::defs`.
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::HelperMemo<Arc<Summary>>,
}

/// How the function `call` designates runs its argument at `arg` (an index into the call's
/// arguments, the receiver of a method call excluded), `depth` helpers down; `None`: not at the
/// call, or not known.
pub(crate) fn runs<'a>(ctx: &FnCtx<'a>, within: Option<&FnDef<'a>>, depth: usize, call: &Expr, arg: usize) -> Option<Runs> {
    let (summary, at) = param_at(ctx, within, depth, call, arg)?;
    summary.params.get(at).copied().flatten()
}

/// The callback summary of the function `call` designates, and the position among its
/// parameters (receiver excluded) of the call's argument at `arg`: `Pool::with_cache(&mut pool,
/// f)` hands a method its receiver first. A rule's own summary of what the function passes to
/// the closure it runs is by that position.
pub(crate) fn param_at<'a>(ctx: &FnCtx<'a>, within: Option<&FnDef<'a>>, depth: usize, call: &Expr, arg: usize) -> Option<(Arc<Summary>, usize)> {
    let (_, summary, _) = super::summarised_helper(ctx, call, within, depth, &ctx.summaries.callbacks.helpers, &ctx.items.summaries.callbacks, summarise)?;
    let at = match dataflow::strip_parens(call) {
        Expr::Call(_) if summary.method => arg.checked_sub(1)?,
        _ => arg,
    };
    Some((summary, at))
}

impl Summary {
    /// The argument of `call` (a call of this summary's function) given for its parameter at
    /// `param` (receiver excluded): `Pool::with_cache(&mut pool, f)` gives the receiver first.
    /// `None` stands for the receiver.
    pub(crate) fn arg<'e>(&self, call: &'e Expr, param: Option<usize>) -> Option<&'e Expr> {
        let (receiver, args) = crate::analysis::call_args(call);
        match (param, receiver) {
            (None, Some(receiver)) => Some(receiver),
            (None, None) => args.first().copied().filter(|_| self.method),
            (Some(i), Some(_)) => args.get(i).copied(),
            (Some(i), None) => args.get(if self.method { i + 1 } else { i }).copied(),
        }
    }
}

/// Whether a body calls one of the parameters of `sig` by its name (`f(..)`, `f.call_mut(..)`):
/// a function that may pass a closure it was given what it holds, read before its summary is
/// computed in full.
pub(crate) fn calls_a_param(sig: &syn::Signature, body: &syn::Block) -> bool {
    let names = dataflow::param_names(sig);
    let named = |e: &Expr| matches!(dataflow::strip_parens(e), Expr::Path(p) if p.path.get_ident().is_some_and(|i| names.iter().any(|n| i == n)));
    super::calls_in(body).into_iter().any(|c| match c {
        Expr::Call(c) => named(&c.func),
        Expr::MethodCall(m) => ["call", "call_mut", "call_once"].contains(&m.method.to_string().as_str()) && named(&m.receiver),
        _ => false,
    })
}

/// The parameter of the function being solved that a call calls (`f(..)`, `(*f)(..)`,
/// `f.call_mut(..)`), with the call's arguments: the solve of a summary sees what the function
/// passes to a closure it was given.
pub(crate) fn called_param<'e>(scopes: &Scopes, params: usize, e: &'e Expr) -> Option<(usize, Vec<&'e Expr>)> {
    let (callee, args) = match e {
        Expr::Call(c) => (&*c.func, c.args.iter().collect()),
        Expr::MethodCall(m) if ["call", "call_mut", "call_once"].contains(&m.method.to_string().as_str()) => (&*m.receiver, m.args.iter().collect()),
        _ => return None,
    };
    Some((param(scopes, params, callee)?, args))
}

/// The parameter an expression names: `f`, `*f`, `&mut f`, `(f)`.
fn param(scopes: &Scopes, params: usize, e: &Expr) -> Option<usize> {
    match dataflow::strip_parens(e) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => param(scopes, params, &u.expr),
        Expr::Reference(r) => param(scopes, params, &r.expr),
        Expr::Path(p) if p.qself.is_none() => {
            let id: LocalId = scopes.lookup(&p.path.get_ident()?.to_string())?;
            ((id as usize) < params).then_some(id as usize)
        }
        _ => None,
    }
}

fn summarise<'a>(ctx: &FnCtx<'a>, def: &FnDef<'a>, depth: usize) -> Option<Arc<Summary>> {
    let params = dataflow::param_count(def.sig);
    if params == 0 {
        return None;
    }
    let mut counting = Counting { ctx, def, depth, params, at_exits: None };
    dataflow::solve(&mut counting, def.sig, def.body, Counts(Vec::new())).ok()?;
    let at_exits = counting.at_exits?;
    let params: Vec<Option<Runs>> = (0..params).map(|i| at_exits.0.get(i).copied().and_then(runs_of)).collect();
    params.iter().any(Option::is_some).then(|| Arc::new(Summary { method: def.sig.receiver().is_some(), params }))
}

/// What the calls counted on every path say of how a parameter runs.
fn runs_of(counts: u8) -> Option<Runs> {
    match counts {
        ONCE => Some(Runs::Once),
        _ if counts & MANY != 0 => Some(Runs::AnyTimes),
        _ if counts & ONCE != 0 => Some(Runs::AtMostOnce),
        _ => None,
    }
}

/// How many times a parameter may have been called on the paths that reach a point: a set of
/// {none, once, more} as bits.
const NONE: u8 = 1;
const ONCE: u8 = 2;
const MANY: u8 = 4;

/// The counts of each parameter, by its local (the parameters are the first locals); a
/// parameter not yet in the vector was called on no path.
#[derive(Clone, PartialEq, Debug)]
struct Counts(Vec<u8>);

impl Domain for Counts {
    fn join(&mut self, other: &Self) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), NONE);
        }
        for (i, mine) in self.0.iter_mut().enumerate() {
            *mine |= other.0.get(i).copied().unwrap_or(NONE);
        }
    }
}

impl Counts {
    /// The parameter ran as `runs` says, once more on every path that reaches here.
    fn ran(&mut self, param: usize, runs: Runs) {
        if self.0.len() <= param {
            self.0.resize(param + 1, NONE);
        }
        let before = self.0[param];
        // Not yet called becomes once; once or more becomes more.
        let from_none = if before & NONE != 0 { ONCE } else { 0 };
        let from_some = if before & (ONCE | MANY) != 0 { MANY } else { 0 };
        let once_more = from_none | from_some;
        self.0[param] = match runs {
            Runs::Once => once_more,
            Runs::AtMostOnce => before | once_more,
            Runs::AnyTimes => before | once_more | if before != 0 { MANY } else { 0 },
        };
    }
}

struct Counting<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    def: &'c FnDef<'a>,
    depth: usize,
    params: usize,
    at_exits: Option<Counts>,
}

impl Analysis for Counting<'_, '_> {
    type State = Counts;

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut Counts, e: &Expr) {
        if let Some((p, _)) = called_param(scopes, self.params, e) {
            state.ran(p, Runs::Once);
        }
        // Handed on to a helper that runs it.
        for (i, arg) in crate::analysis::call_args(e).1.into_iter().enumerate() {
            let Some(p) = param(scopes, self.params, arg) else { continue };
            if let Some(runs) = runs(self.ctx, Some(self.def), self.depth, e, i) {
                state.ran(p, runs);
            }
        }
    }

    fn bind(&mut self, _: &Scopes, _: &mut Counts, _: LocalId, _: Option<&Expr>) {}

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<Runs> {
        runs(self.ctx, Some(self.def), self.depth, call, arg)
    }

    fn exit(&mut self, _: &Scopes, state: &Counts, _: &dataflow::Exit<'_>) {
        let mut state = state.clone();
        state.0.resize(self.params, NONE);
        match &mut self.at_exits {
            Some(all) => all.join(&state),
            None => self.at_exits = Some(state),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_once_more_on_each_path() {
        let mut c = Counts(Vec::new());
        c.ran(0, Runs::Once);
        assert_eq!(runs_of(c.0[0]), Some(Runs::Once));
        c.ran(0, Runs::Once);
        assert_eq!(runs_of(c.0[0]), Some(Runs::AnyTimes));
        let mut maybe = Counts(Vec::new());
        maybe.ran(1, Runs::AtMostOnce);
        assert_eq!(runs_of(maybe.0[1]), Some(Runs::AtMostOnce));
        assert_eq!(runs_of(maybe.0[0]), None);
        let mut joined = Counts(vec![ONCE]);
        joined.join(&Counts(Vec::new()));
        assert_eq!(runs_of(joined.0[0]), Some(Runs::AtMostOnce));
        let mut looped = Counts(Vec::new());
        looped.ran(0, Runs::AnyTimes);
        assert_eq!(runs_of(looped.0[0]), Some(Runs::AnyTimes));
    }
}
