//! The path analysis of the effect rules (`hit_skips_effect`, `effect_order`, `stale_result`): an
//! analysis on the dataflow solver ([`crate::dataflow`]) whose state is the set of effect traces
//! of the paths that reach a point (each trace: the preserved effects run so far on one path, as
//! indices into the `preserves` list, in order). Branches join their sets, loops run to a
//! fixpoint, closures run where the solver runs them.
//!
//! A call runs: the preserved effect it names; what a contracted callee preserves of the same
//! effects, in its order; or, for a helper without a contract, what its summary says: the traces
//! of its normal exits (computed bottom-up with this same analysis, up to
//! [`crate::dataflow::MAX_SUMMARY_DEPTH`] helpers deep). A helper of this file is summarised in
//! this file's context and memoized per file; a helper of another file, reached by its path
//! ([`FnCtx::foreign_helper`]), in its own file's context and memoized per check across threads
//! (`rules::SharedSummaries`). A helper that runs the effects on every normal path counts as
//! running them, in its order; one that runs them on some paths only leaves the caller with a
//! path that skipped them.
//!
//! Each normal exit is kept with the traces that reach it and whether its value declines to serve
//! ([`Declining`]: the contract's decision, the same the runtime takes on the returned value);
//! error exits (`?`, `return Err(..)`) are not exits here.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use quote::ToTokens;
use syn::Expr;

use crate::analysis::{FnCtx, FnDef};
use crate::dataflow::{self, strip_parens, Analysis, Domain, ExitKind, LocalId, Scopes, TooComplex};
use crate::resolve::{strip, CallSite, Resolution};
use crate::source::FileRef;
use reuse_rules::contract::Effect;

use super::stale_result;

/// One path: the preserved effects it has run, in order, as indices into the `preserves` list
/// (what the trace derefs to), and the `Drop` guards it has moved out of their locals (passed
/// by value, bound to another local, `drop`ped or `mem::forget`ten), whose scope's end then
/// runs nothing on this path only.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Trace {
    ran: Vec<u8>,
    /// Bit `k`: the guard in local `k` ([`guard_bit`]).
    moved: u64,
}

impl std::ops::Deref for Trace {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.ran
    }
}

/// The bit of a guard's local in [`Trace::moved`]; `None` past 64 locals (those guards are
/// taken as moved on every path once moved on one: `Effects::moved`).
fn guard_bit(local: LocalId) -> Option<u64> {
    (local < u64::BITS).then(|| 1 << local)
}

/// Traces kept per program point, at most (past it the greatest are dropped).
const MAX_TRACES: usize = 64;
/// Effects kept per trace, at most.
const MAX_TRACE: usize = 16;
/// An effect that ran twice on a path ran "more than once": further runs tell nothing new, and
/// dropping them lets loops converge. The rules read a trace for which effects it holds, whether
/// one repeats and which pair is out of order first; a third run changes none of these.
const MAX_RUNS: usize = 2;

/// The state: the traces of the paths that reach a point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traces(pub BTreeSet<Trace>);

impl Domain for Traces {
    fn join(&mut self, other: &Self) {
        self.0.extend(other.0.iter().cloned());
        self.cap();
    }
}

impl Traces {
    /// The entry of a body: one path, nothing run yet.
    fn start() -> Traces {
        Traces(BTreeSet::from([Trace::default()]))
    }

    fn cap(&mut self) {
        while self.0.len() > MAX_TRACES {
            self.0.pop_last();
        }
    }

    /// Every path runs `effects` next, in order.
    fn then(&mut self, effects: &[u8]) {
        self.0 = std::mem::take(&mut self.0)
            .into_iter()
            .map(|mut t| {
                effects.iter().for_each(|e| push(&mut t, *e));
                t
            })
            .collect();
        self.cap();
    }

    /// Every path goes on through each of `paths` (a helper's normal exits).
    fn then_any(&mut self, paths: &Traces) {
        self.then_any_unless(paths, 0);
    }

    /// Every path that has not moved the guards of `moved` goes on through each of `paths`.
    fn then_any_unless(&mut self, paths: &Traces, moved: u64) {
        let mut out = BTreeSet::new();
        for t in &self.0 {
            if t.moved & moved != 0 {
                out.insert(t.clone());
                continue;
            }
            for p in &paths.0 {
                let mut t = t.clone();
                p.iter().for_each(|e| push(&mut t, *e));
                out.insert(t);
            }
        }
        self.0 = out;
        self.cap();
    }

    /// Every path sets (or clears) the guard bits `bits`.
    fn set_moved(&mut self, bits: u64, moved: bool) {
        if bits == 0 || self.0.iter().all(|t| (t.moved & bits == bits) == moved) {
            return;
        }
        self.0 = std::mem::take(&mut self.0)
            .into_iter()
            .map(|mut t| {
                t.moved = if moved { t.moved | bits } else { t.moved & !bits };
                t
            })
            .collect();
    }

    /// Whether every path ran `effect`.
    pub fn all_ran(&self, effect: u8) -> bool {
        self.0.iter().all(|t| t.contains(&effect))
    }
}

fn push(t: &mut Trace, effect: u8) {
    if t.len() < MAX_TRACE && t.iter().filter(|e| **e == effect).count() < MAX_RUNS {
        t.ran.push(effect);
    }
}

/// Which returned values decline to serve, as the contract says (SPEC.md, "hit paths"): an
/// `Err(..)` always (an error exit); with `reuses(.., miss = PATTERN)` the values matching PATTERN;
/// with `reuses` and no pattern, `None` and `Ok(None)` (a miss that leaves the work to the caller).
/// The shim decides the same on the value a call returned (`reuse-runtime`'s `Outcome`).
#[derive(Default)]
pub struct Declining {
    /// `None` and `Ok(None)` decline (the contract has `reuses` without a `miss` pattern).
    pub none: bool,
    /// The declared `miss = PATTERN`.
    pub miss: Option<syn::Pat>,
    /// The contract has `reuses`: a lookup that found nothing and returns its `None` declines.
    pub has_reuses: bool,
}

impl Declining {
    /// What the contract of the function being checked declines with.
    pub fn of(ctx: &FnCtx) -> Declining {
        let Some(contract) = ctx.contract else { return Declining::default() };
        let has_reuses = contract.reuses().next().is_some();
        let miss = contract.miss().and_then(|m| m.pat());
        Declining { none: has_reuses && miss.is_none(), miss, has_reuses }
    }

    pub fn declines(&self, e: &Expr) -> bool {
        let e = strip(e);
        if is_err(e) {
            return true;
        }
        match &self.miss {
            Some(pat) => pattern_matches(pat, e),
            None => self.none && is_none_or_ok_none(e),
        }
    }
}

fn call_named<'e>(e: &'e Expr, name: &str) -> Option<&'e syn::punctuated::Punctuated<Expr, syn::Token![,]>> {
    match e {
        Expr::Call(c) => match strip(&c.func) {
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name) => Some(&c.args),
            _ => None,
        },
        _ => None,
    }
}

fn is_err(e: &Expr) -> bool {
    call_named(e, "Err").is_some()
}

fn is_none_or_ok_none(e: &Expr) -> bool {
    // `None`, `None::<u32>`, `Option::None`, `std::option::Option::None`.
    let is_none = |e: &Expr| {
        matches!(strip(e), Expr::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|l| l.ident == "None")
            && p.path.segments.iter().rev().skip(1).all(|s| ["Option", "option", "std", "core"].contains(&s.ident.to_string().as_str())))
    };
    is_none(e) || call_named(e, "Ok").is_some_and(|args| args.len() == 1 && is_none(&args[0]))
}

/// Whether the expression, as written, is a value the pattern matches. Only what the syntax
/// shows: a variable or a call of a function is no match (so such an exit serves).
pub fn pattern_matches(pat: &syn::Pat, e: &Expr) -> bool {
    use syn::Pat;
    let e = strip(e);
    // `Outcome::Eager` and `Eager` name the same variant: compare the written segments from the end.
    let same_path = |a: &syn::Path, b: &syn::Path| a.segments.iter().rev().zip(b.segments.iter().rev()).all(|(x, y)| x.ident == y.ident);
    let elems = |pats: &syn::punctuated::Punctuated<Pat, syn::Token![,]>, es: Vec<&Expr>| -> bool {
        match pats.iter().position(|p| matches!(p, Pat::Rest(_))) {
            None => pats.len() == es.len() && pats.iter().zip(es).all(|(p, e)| pattern_matches(p, e)),
            Some(rest) => {
                let after = pats.len() - rest - 1;
                es.len() >= rest + after
                    && pats.iter().take(rest).zip(es.iter()).all(|(p, e)| pattern_matches(p, e))
                    && pats.iter().skip(rest + 1).zip(es.iter().skip(es.len() - after)).all(|(p, e)| pattern_matches(p, e))
            }
        }
    };
    match pat {
        Pat::Wild(_) | Pat::Rest(_) => true,
        Pat::Paren(p) => pattern_matches(&p.pat, e),
        Pat::Or(o) => o.cases.iter().any(|p| pattern_matches(p, e)),
        Pat::Ident(pi) => matches!(e, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == pi.ident)),
        Pat::Path(pp) => matches!(e, Expr::Path(p) if same_path(&pp.path, &p.path)),
        Pat::Lit(l) => matches!(e, Expr::Lit(x) if x.lit.to_token_stream().to_string() == l.lit.to_token_stream().to_string()),
        Pat::Range(r) => {
            let value = |e: &Expr| crate::index::int_value(e);
            let Some(v) = value(e) else { return false };
            let lo = r.start.as_deref().map_or(Some(i128::MIN), value);
            let hi = r.end.as_deref().map(value);
            match (lo, hi) {
                (Some(lo), None) => v >= lo,
                (Some(lo), Some(Some(hi))) => v >= lo && if matches!(r.limits, syn::RangeLimits::Closed(_)) { v <= hi } else { v < hi },
                _ => false,
            }
        }
        Pat::Reference(r) => matches!(e, Expr::Reference(x) if pattern_matches(&r.pat, &x.expr)),
        Pat::Tuple(t) => matches!(e, Expr::Tuple(x) if elems(&t.elems, x.elems.iter().collect())),
        Pat::Slice(sl) => matches!(e, Expr::Array(x) if elems(&sl.elems, x.elems.iter().collect())),
        Pat::TupleStruct(ts) => match e {
            Expr::Call(c) => matches!(strip(&c.func), Expr::Path(p) if same_path(&ts.path, &p.path)) && elems(&ts.elems, c.args.iter().collect()),
            _ => false,
        },
        Pat::Struct(ps) => match e {
            Expr::Struct(st) if same_path(&ps.path, &st.path) => ps.fields.iter().all(|fp| {
                let name = fp.member.to_token_stream().to_string();
                st.fields.iter().find(|f| f.member.to_token_stream().to_string() == name).is_some_and(|f| pattern_matches(&fp.pat, &f.expr))
            }),
            _ => false,
        },
        _ => false,
    }
}

/// A normal exit of the function, with every trace that reaches it.
pub struct Exit {
    pub kind: ExitKind,
    /// Its value declines to serve ([`Declining`]): exempt from `preserves`.
    pub declines: bool,
    /// `return v` whole, the tail value, or the body's closing brace.
    pub range: Range<usize>,
    pub traces: Traces,
    /// With `fresh(..)`: where the returned output was read from the cache entry, if it was.
    pub read: Option<stale_result::Read>,
}

impl Exit {
    /// Whether the exit serves a result (a hit, or a miss that computed it). Error exits and
    /// misses that decline are exempt from `preserves`, as SPEC.md says.
    pub fn serves(&self) -> bool {
        !self.declines
    }

    /// How the exit reads in messages.
    pub fn describe(&self) -> &'static str {
        match self.kind {
            ExitKind::Return => "this return",
            ExitKind::Tail => "this path",
        }
    }
}

/// What the path analysis of a body found.
pub struct Paths {
    pub exits: Vec<Exit>,
    /// The traces that reach each binding, joined over every time it is bound (kept with
    /// `fresh(..)` only, for `stale_result`).
    pub bound: HashMap<LocalId, Traces>,
}

/// What an effect summary depends on besides the helper: the list of effects it counts, named
/// by the contract (`false`) or resolved (`true`, see [`Effects::resolved`]).
pub(super) type Counted = (Arc<[String]>, bool);

/// A helper (its position in `FileFns::defs`) summarised for what it counts.
/// A helper of the file, the depth its summary is computed at, and the effects it counts.
type HelperKey = (usize, usize, Counted);

/// Per-file memo of the effect summaries of helpers.
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::Memo<HelperKey, Option<Arc<Traces>>>,
}

/// The exits of the function being checked, with the effects (deduplicated `preserves`) each
/// path ran.
pub(super) fn paths(ctx: &FnCtx, effects: &[Effect<Range<usize>>]) -> Result<Paths, TooComplex> {
    let names: Arc<[String]> = effects.iter().map(|e| defined_name(ctx, e)).collect();
    let fresh = ctx.contract.and_then(|c| stale_result::Tracker::new(ctx, c));
    let mut analysis = Effects::new(ctx, names, None, 0, Declining::of(ctx), fresh);
    dataflow::solve(&mut analysis, ctx.sig, ctx.body, Traces::start())?;
    Ok(Paths { exits: analysis.exits, bound: analysis.bound })
}

/// The name an effect of the contract is defined under, as calls are matched: `preserves(log)`
/// with `use fx::log_step as log;` is `log_step`. A name that leads to no effect is kept as written.
fn defined_name(ctx: &FnCtx, e: &Effect<Range<usize>>) -> String {
    let written: Vec<String> = e.path.iter().map(|n| n.text.clone()).collect();
    if written[0] == "self" {
        return e.name().to_string();
    }
    ctx.resolver
        .call_targets(&written, ctx.self_type)
        .iter()
        .find_map(|t| {
            let last = t.last()?;
            ctx.index.effects.get(last)?.iter().any(|f| f.path == *t).then(|| last.clone())
        })
        .unwrap_or_else(|| e.name().to_string())
}

/// A helper without a contract that runs effects on every one of its normal paths, by its
/// summary: the rules treat it as if its contract preserved them.
pub(super) struct AlwaysRun {
    /// Where the helper is defined (its name), in this file or another.
    pub file: FileRef,
    pub name: Range<usize>,
    /// The effects (`#[reuse::effect]` functions of the index) it runs on every normal path.
    pub effects: Vec<String>,
}

/// The helper a call designates, when it runs effects on every normal path (see [`AlwaysRun`]):
/// a helper of this file, or of another file reached by its path. `None`: not such a helper, or
/// it runs none on every path.
pub(super) fn always_run_by_helper(ctx: &FnCtx, call: &Expr) -> Option<AlwaysRun> {
    // Only calls that name a function of this file for sure: a path, resolved to its definition
    // (`compile(g)`, `helpers::compile(g)`, a renamed import, `Self::f()`), `self.f()`, and a
    // method on a receiver whose type is known (`self.planner.plan(bs)`, a `&mut Planner`
    // parameter: that type's methods); `x.build()` on a receiver of unknown type is no method of
    // this file's types. A helper of another file is found by its path or its receiver's type,
    // never by its name.
    let certain = match call {
        Expr::Call(c) => matches!(strip(&c.func), Expr::Path(_)),
        Expr::MethodCall(m) => matches!(strip(&m.receiver), Expr::Path(p) if p.path.is_ident("self")) || ctx.receiver_type_known(&m.receiver),
        _ => false,
    };
    let (names, probe) = probe(ctx)?;
    let (file, name, traces) = if !ctx.helper_candidates(call, None, 0).is_empty() {
        let (_, def) = ctx.helper_of(call, None, 0).filter(|_| certain)?;
        (ctx.file.clone(), ctx.range(def.sig.ident.span()), probe.helper_summary(call)?.0)
    } else {
        let path = ctx.foreign_helper(call, None, 0)?;
        let traces = probe.foreign_summary(&path)?;
        let (file, name) = ctx.with_foreign_fn(&path, |theirs, def| (theirs.file.clone(), theirs.range(def.sig.ident.span())))?;
        (file, name, traces)
    };
    let effects: Vec<String> = names.iter().enumerate().filter(|(i, _)| traces.all_ran(*i as u8)).map(|(_, n)| n.clone()).collect();
    (!effects.is_empty()).then_some(AlwaysRun { file, name, effects })
}

/// Every effect of the index, sorted, and an analysis that counts them all, resolved as the
/// effect rules resolve calls. `None`: no effects, or more than a trace can hold.
fn probe<'c, 'a>(ctx: &'c FnCtx<'a>) -> Option<(Vec<String>, Effects<'c, 'a>)> {
    let mut names: Vec<String> = ctx.index.effects.keys().cloned().collect();
    // Traces hold effects as bytes; past that many, nothing is claimed.
    if names.is_empty() || names.len() > usize::from(u8::MAX) {
        return None;
    }
    names.sort_unstable();
    let mut probe = Effects::new(ctx, names.iter().cloned().collect(), None, 0, Declining::default(), None);
    probe.resolved = true;
    Some((names, probe))
}

/// Records the function `ctx` checks, without a contract, as one whose callers are analysed too
/// where it calls an effect and runs one on every normal path: a caller that caches its result
/// (`memoized_effect`) need not name an effect itself.
pub(super) fn record_effect_runner(ctx: &FnCtx, calls: &[&Expr]) {
    // A method named as an effect (`self.rng.advance()`) is the effect's by its receiver's type,
    // which the summary reads; a contracted call that preserves effects runs them
    // (`self.runner.execute(g)` of a `generate` helper).
    let calls_effect = calls.iter().any(|c| {
        crate::resolve::CallSite::of(c).is_some_and(|site| (site.receiver.is_some() && ctx.index.effects.contains_key(&site.name)) || ctx.resolver.effect(&site, ctx.self_type).is_some())
            || ctx.callee(c).is_some_and(|(_, callee)| callee.contract.preserves().is_some())
    });
    if !calls_effect {
        return;
    }
    super::Forwarder::record_if(ctx, |idx, def| {
        let Some((names, probe)) = probe(ctx) else { return false };
        probe.summary_of(idx, def).is_some_and(|traces| (0..names.len()).any(|i| traces.all_ran(i as u8)))
    });
}

/// Methods that copy their argument into their receiver.
const COPIES_INTO: &[&str] = &["extend_from_slice", "extend", "clone_from", "copy_from_slice", "clone_from_slice", "append"];

/// What a call runs.
#[derive(Clone)]
enum Runs {
    Nothing,
    /// These effects, in order.
    Effects(Vec<u8>),
    /// One of these traces (a helper's normal exits).
    OneOf(Arc<Traces>),
    /// One of these traces, where the future the call returns (an `async` helper's) is awaited
    /// or handed to a call or macro that drives it (`spawn`, `join!`); dropped, it runs nothing.
    WhenAwaited(Arc<Traces>),
}

struct Effects<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    names: Arc<[String]>,
    /// The helper being summarised (`None`: the function being checked).
    def: Option<&'c FnDef<'a>>,
    depth: usize,
    declining: Declining,
    /// A call runs an effect when it resolves to the `#[reuse::effect]` function (`true`), or
    /// when it is named as the contract's `preserves` names it (`false`: the effect rules, whose
    /// contract says which names are effects).
    resolved: bool,
    /// What each call runs, by where its name is written: loops revisit calls, and calls in
    /// macros are parsed again on each visit (their addresses change, their spans do not).
    calls: HashMap<crate::resolve::CallPosition, Runs>,
    exits: Vec<Exit>,
    fresh: Option<stale_result::Tracker<'c, 'a>>,
    /// What the futures of calls of `async` helpers run when driven, by the call's position.
    futures: HashMap<crate::resolve::CallPosition, Arc<Traces>>,
    /// Locals bound to such a future (`let f = self.flush();`), with the call's position.
    future_locals: HashMap<LocalId, crate::resolve::CallPosition>,
    bound: HashMap<LocalId, Traces>,
    /// Locals holding a `Drop` guard, with what its `drop` runs (its summary) where the local's
    /// scope ends.
    guards: HashMap<LocalId, Arc<Traces>>,
    /// Guards moved out of a local past the 64 that traces tell apart ([`guard_bit`]): their
    /// scope's end drops nothing on any path once they were moved on one.
    moved: HashSet<LocalId>,
}

impl Analysis for Effects<'_, '_> {
    type State = Traces;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, self.def, self.depth, call, arg)
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    fn runs_at_drop<'e>(&self, value: &'e Expr) -> Option<&'e syn::ExprClosure> {
        super::closure_run_at_drop(self.ctx, self.def.map_or(self.ctx.self_type, |d| d.self_type.as_deref()), value)
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut Traces, e: &Expr) {
        match e {
            Expr::Call(_) | Expr::MethodCall(_) => {
                // `drop(fut)` and `mem::forget(fut)` run nothing; any other call is taken to
                // drive the futures it is handed (`spawn`, `block_on`).
                let discards = matches!(e, Expr::Call(c) if matches!(strip_parens(&c.func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "drop" || s.ident == "forget")));
                // `tokio::spawn(fut)` detaches the task: it runs at some later time, unless its
                // handle is awaited (the spawn's value is then the future).
                let spawns = dataflow::is_spawn(e);
                let args = crate::analysis::call_args(e).1;
                if spawns {
                    let spawned = args.first().and_then(|f| self.future_of(scopes, f)).cloned();
                    if let (Some(paths), Some(at)) = (spawned, crate::resolve::call_position(e)) {
                        self.futures.insert(at, paths);
                    }
                } else if !discards {
                    self.drive(scopes, state, args.iter().copied());
                }
                // A guard handed over by value is moved; `drop(g)` runs its `drop` here.
                let is_drop = matches!(e, Expr::Call(c) if matches!(strip_parens(&c.func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "drop")));
                let handed: Vec<LocalId> = args.iter().filter_map(|a| self.guard_local(scopes, a)).collect();
                for g in handed {
                    if is_drop {
                        self.drop_guard(state, g);
                    }
                    self.move_guard(state, g);
                }
                // `out.extend_from_slice(&g.output)`: `out` holds a copy read here; after
                // `mem::swap(&mut out, &mut g.output)`, what the entry held.
                if let Some(fresh) = self.fresh.as_mut() {
                    let copies: Vec<(&Expr, &Expr)> = match e {
                        Expr::MethodCall(m) if COPIES_INTO.contains(&m.method.to_string().as_str()) && m.args.len() == 1 => vec![(&*m.receiver, &m.args[0])],
                        Expr::Call(c) if matches!(super::mem_move(self.ctx, e), Some((super::MemMove::Swap, _))) => vec![(&c.args[0], &c.args[1]), (&c.args[1], &c.args[0])],
                        _ => Vec::new(),
                    };
                    for (into, from) in copies {
                        if let Some(local) = fresh.copied_into(scopes, into, from, e) {
                            self.bound.insert(local, state.clone());
                        }
                    }
                }
                match self.runs(e) {
                    Runs::Nothing => {}
                    Runs::Effects(effects) => state.then(&effects),
                    Runs::OneOf(paths) => state.then_any(&paths),
                    Runs::WhenAwaited(paths) => {
                        self.futures.extend(crate::resolve::call_position(e).map(|at| (at, paths)));
                    }
                }
            }
            Expr::Await(a) => self.drive(scopes, state, [&*a.base]),
            Expr::Macro(m) => {
                if let dataflow::LoweredMacro::Evaluates(args) = &*self.ctx.fns.macros.lowered(&m.mac) {
                    self.drive(scopes, state, args);
                }
            }
            Expr::Assign(a) => {
                if let Some(fresh) = self.fresh.as_mut() {
                    fresh.assigned(scopes, &a.left, &a.right);
                }
            }
            _ => {}
        }
    }

    fn bind(&mut self, scopes: &Scopes, state: &mut Traces, local: LocalId, init: Option<&Expr>) {
        // `let g = Guard::new();` holds a guard; `let h = g;` moves it to `h`.
        let guard = init.and_then(|i| match self.guard_local(scopes, i) {
            Some(from) => {
                self.move_guard(state, from);
                self.guards.get(&from).cloned()
            }
            None => self.guard_of(i),
        });
        // `let scope = Scope { _guard: step, .. }`, `let held = (step, bs);`: the guards put into
        // the value by name are moved into it, and run where it is dropped.
        let parts = init.map(crate::dataflow::literal_parts).unwrap_or_default();
        let mut guard = guard;
        let moved_in: Vec<LocalId> = parts.into_iter().filter_map(|(_, p)| self.guard_local(scopes, p)).collect();
        for from in moved_in {
            self.move_guard(state, from);
            if guard.is_none() {
                guard = self.guards.get(&from).cloned();
            }
        }
        match guard {
            Some(runs) => self.guards.insert(local, runs),
            None => self.guards.remove(&local),
        };
        // A loop binds the local again: its new guard is not moved yet.
        self.moved.remove(&local);
        state.set_moved(guard_bit(local).unwrap_or(0), false);
        match init.and_then(|i| crate::resolve::call_position(strip_parens(i))).filter(|at| self.futures.contains_key(at)) {
            Some(at) => self.future_locals.insert(local, at),
            None => self.future_locals.remove(&local),
        };
        if let Some(fresh) = self.fresh.as_mut() {
            fresh.bind(scopes, local, init);
            self.bound.entry(local).or_default().join(state);
        }
    }

    fn bind_from(&mut self, scopes: &Scopes, _state: &mut Traces, locals: &[LocalId], scrutinee: &Expr) {
        if let Some(fresh) = self.fresh.as_mut() {
            fresh.bind_from(scopes, locals, scrutinee);
        }
    }

    fn block_value(&mut self, scopes: &Scopes, _state: &mut Traces, value: &Expr) {
        if let Some(fresh) = self.fresh.as_mut() {
            fresh.block_value(scopes, value);
        }
    }

    fn call_value(&mut self, scopes: &Scopes, _state: &mut Traces, call: &Expr, value: &Expr) {
        if let Some(fresh) = self.fresh.as_mut() {
            fresh.call_value(scopes, call, value);
        }
    }

    const DROPS: bool = true;

    fn dropped(&mut self, _scopes: &Scopes, state: &mut Traces, local: LocalId) {
        self.drop_guard(state, local);
        state.set_moved(guard_bit(local).unwrap_or(0), false);
    }

    fn discarded(&mut self, scopes: &Scopes, state: &mut Traces, value: &Expr) {
        if self.guard_local(scopes, value).is_some() || matches!(strip_parens(value), Expr::Path(p) if p.path.get_ident().is_some_and(|i| scopes.lookup(&i.to_string()).is_some())) {
            return;
        }
        if let Some(runs) = self.guard_of(value) {
            state.then_any(&runs);
        }
    }

    fn exit(&mut self, scopes: &Scopes, state: &Traces, exit: &dataflow::Exit<'_>) {
        let range = self.ctx.file.join(exit.span.0, exit.span.1);
        // Loops walk their bodies more than once: one exit per place.
        // A combinator whose closure did not run returns the receiver's `None` or `Err`: a
        // declining or an error exit where the function has a cache.
        let declines = (exit.unrun && self.declining.has_reuses) || exit.value.is_some_and(|v| self.declining.declines(v));
        if let Some(seen) = self.exits.iter_mut().find(|x| x.kind == exit.kind && x.range == range && x.declines == declines) {
            seen.traces.join(state);
            return;
        }
        let read = match (&self.fresh, exit.value) {
            (Some(fresh), Some(value)) if !declines => fresh.at_exit(scopes, value),
            _ => None,
        };
        self.exits.push(Exit { kind: exit.kind, declines, range, traces: state.clone(), read });
    }
}

impl<'c, 'a> Effects<'c, 'a> {
    fn new(ctx: &'c FnCtx<'a>, names: Arc<[String]>, def: Option<&'c FnDef<'a>>, depth: usize, declining: Declining, fresh: Option<stale_result::Tracker<'c, 'a>>) -> Self {
        Effects { ctx, names, def, depth, declining, resolved: false, calls: HashMap::new(), exits: Vec::new(), fresh, bound: HashMap::new(), futures: HashMap::new(), future_locals: HashMap::new(), guards: HashMap::new(), moved: HashSet::new() }
    }

    /// The guard in `local` (if it holds one) is dropped here, on the paths that have not moved it.
    fn drop_guard(&self, state: &mut Traces, local: LocalId) {
        if let Some(runs) = self.guards.get(&local).filter(|_| !self.moved.contains(&local)) {
            state.then_any_unless(runs, guard_bit(local).unwrap_or(0));
        }
    }

    /// The guard in `local` is moved out of it on the paths of `state`.
    fn move_guard(&mut self, state: &mut Traces, local: LocalId) {
        match guard_bit(local) {
            Some(bit) => state.set_moved(bit, true),
            None => {
                self.moved.insert(local);
            }
        }
    }

    /// The futures among `exprs` (a call of an `async` helper, or a local bound to one) run here.
    fn drive<'e>(&self, scopes: &Scopes, state: &mut Traces, exprs: impl IntoIterator<Item = &'e Expr>) {
        for e in exprs {
            if let Some(paths) = self.future_of(scopes, e) {
                state.then_any(paths);
            }
        }
    }

    /// What the future `e` runs when it is driven: an `async` helper's call, or a local bound to one.
    fn future_of(&self, scopes: &Scopes, e: &Expr) -> Option<&Arc<Traces>> {
        let e = strip_parens(e);
        let at = match scopes.place_of(e) {
            Some(dataflow::Place { base: dataflow::Base::Local(id), fields }) if fields.is_empty() && matches!(e, Expr::Path(_)) => self.future_locals.get(&id).copied(),
            _ => crate::resolve::call_position(e),
        };
        at.and_then(|at| self.futures.get(&at))
    }

    /// The guard local `e` names, bare (`g`, not `&g` or `g.field`).
    fn guard_local(&self, scopes: &Scopes, e: &Expr) -> Option<LocalId> {
        let e = strip_parens(e);
        match scopes.place_of(e) {
            Some(dataflow::Place { base: dataflow::Base::Local(id), fields }) if fields.is_empty() && matches!(e, Expr::Path(_)) && self.guards.contains_key(&id) => Some(id),
            _ => None,
        }
    }

    /// What dropping the value of `e` runs, when its type has a `Drop` impl whose `drop` runs
    /// effects (its summary): a unit struct (`CheckOnDrop`), a struct literal, or a call or
    /// method whose return type is such a type (`CheckOnDrop::new()`, `self.span()`). The impl
    /// is one of this file, or of the type's file where the type is another file's.
    fn guard_of(&self, e: &Expr) -> Option<Arc<Traces>> {
        let e = strip_parens(e);
        // `(CheckOnDrop, RecordOnDrop)`, `[StepSpan::enter()]`: the parts drop in order, first
        // to last.
        let parts = match e {
            Expr::Tuple(t) => Some(&t.elems),
            Expr::Array(a) => Some(&a.elems),
            _ => None,
        };
        if let Some(parts) = parts {
            let guards: Vec<Option<Arc<Traces>>> = parts.iter().map(|p| self.guard_of(p)).collect();
            if guards.iter().all(Option::is_none) {
                return None;
            }
            let mut runs = Traces::start();
            for g in guards.into_iter().flatten() {
                runs.then_any(&g);
            }
            return Some(Arc::new(runs));
        }
        // `Some(StepGuard::begin())`: the guard it holds.
        if let Expr::Call(c) = e {
            if matches!(strip_parens(&c.func), Expr::Path(p) if p.path.is_ident("Some")) && c.args.len() == 1 {
                return self.guard_of(&c.args[0]);
            }
        }
        // `fn begin_step(&self) -> impl Drop { SyncOnDrop }`: an opaque type is the type of the
        // value the helper of this file ends with (one level: that value is no such call).
        let mut maybe = false;
        if matches!(e, Expr::Call(_) | Expr::MethodCall(_)) {
            if let Some((_, def)) = self.ctx.helper_of(e, self.def, self.depth) {
                if matches!(&def.sig.output, syn::ReturnType::Type(_, t) if matches!(**t, syn::Type::ImplTrait(_))) {
                    return match def.body.stmts.last() {
                        Some(syn::Stmt::Expr(tail, None)) if !matches!(strip_parens(tail), Expr::Call(_) | Expr::MethodCall(_)) => self.guard_of(tail),
                        _ => None,
                    };
                }
                // `fn maybe_step(&self) -> Option<StepGuard>`: a guard on some paths only, unless
                // the helper ends with `Some(..)`.
                let optional = matches!(&def.sig.output, syn::ReturnType::Type(_, t) if matches!(&**t, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option")));
                let always_some = matches!(def.body.stmts.last(), Some(syn::Stmt::Expr(Expr::Call(c), None)) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")));
                maybe = optional && !always_some;
            }
        }
        let here = self.def.map_or(self.ctx.self_type, |d| d.self_type.as_deref());
        let ty = match e {
            Expr::Struct(st) => {
                let last = st.path.segments.last()?.ident.to_string();
                crate::resolve::TypeRef::here(if last == "Self" { here? } else { &last })
            }
            // A unit struct by its path (`guards::CheckOnDrop`).
            Expr::Path(p) if p.path.segments.len() > 1 => {
                let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let paths = self.ctx.resolver.type_paths(&written, here);
                crate::resolve::TypeRef { name: written.last()?.clone(), paths: (!paths.is_empty()).then_some(paths) }
            }
            Expr::Path(_) | Expr::Call(_) | Expr::MethodCall(_) => self.ctx.with_env(self.def, |env| self.ctx.resolver.type_of(e, here, env))?,
            _ => return None,
        };
        let runs = self.guard_of_type(&ty, here, 0)?;
        if maybe {
            let mut or_none = (*runs).clone();
            or_none.join(&Traces::start());
            return Some(Arc::new(or_none));
        }
        Some(runs)
    }

    /// What dropping a value of type `ty` runs: its `Drop` impl's summary (this file's, or one in
    /// the type's file or another of its crate: `WorkspaceItems::fn_file_of`); for a struct of
    /// this file without one, what its fields' drops run, in declaration order (the drop glue of
    /// `struct StepScope { name: &str, _guard: StepGuard }`).
    fn guard_of_type(&self, ty: &crate::resolve::TypeRef, here: Option<&str>, depth: usize) -> Option<Arc<Traces>> {
        let fns = self.ctx.fns;
        let local: Vec<usize> = fns.by_name.get("drop").into_iter().flatten().copied().filter(|i| {
            let d = &fns.defs[*i];
            d.self_type.as_deref() == Some(ty.name.as_str()) && d.has_receiver() && d.sig.inputs.len() == 1
        }).collect();
        if let [idx] = local[..] {
            return self.summary_of(idx, &fns.defs[idx]);
        }
        // A type named as this file names it (a helper's return type, `-> StepGuard`): through
        // the file's imports.
        let paths = ty.paths.clone().unwrap_or_else(|| self.ctx.resolver.type_paths(std::slice::from_ref(&ty.name), here));
        if let Some(runs) = paths.iter().find_map(|p| self.foreign_summary(&[p.as_slice(), &["drop".to_string()]].concat())) {
            return Some(runs);
        }
        if depth >= 2 {
            return None;
        }
        // A struct of this file, or of another (its fields' types as its file names them).
        let guards: Vec<Arc<Traces>> = match self.ctx.resolver.fields.fields_of(&ty.name).filter(|_| ty.paths.is_none()) {
            Some(fields) => fields
                .iter()
                .filter_map(|f| self.ctx.resolver.fields.get(&ty.name, f))
                .filter(|t| *t != ty.name)
                .filter_map(|t| self.guard_of_type(&crate::resolve::TypeRef::here(t), here, depth + 1))
                .collect(),
            None => {
                let (items, index) = (self.ctx.items, self.ctx.index);
                // The one of the paths the name may have that the workspace defines as a struct.
                let mut defined = paths.iter().filter_map(|p| Some((p, items.fields_of(index, p)?)));
                let (Some((path, fields)), None) = (defined.next(), defined.next()) else { return None };
                fields
                    .iter()
                    .filter_map(|f| items.field(index, path, f))
                    .filter(|t| t.paths.as_ref().is_some_and(|p| !p.contains(path)))
                    .filter_map(|t| self.guard_of_type(&t, here, depth + 1))
                    .collect()
            }
        };
        if guards.is_empty() {
            return None;
        }
        let mut runs = Traces::start();
        for g in &guards {
            runs.then_any(g);
        }
        Some(Arc::new(runs))
    }

    /// Whether a method call named like an effect is the effect's, by its receiver's type: `Some(false)`
    /// where the type is known (`self.cursor.advance()` of a `Cursor` field) and no effect of that
    /// name is a method of it (`Rng::advance` is the effect), `Some(true)` where one is; `None`:
    /// the type is not known (an unknown receiver may be the effect's).
    ///
    /// A call through the type's path (`Cursor::advance(self)`, in a trait impl that forwards to
    /// the inherent method) is that type's method the same way; a helper's receivers are typed by
    /// the helper's own bindings.
    fn effects_method(&self, call: &CallSite, here: Option<&str>) -> Option<bool> {
        let resolver = self.ctx.resolver;
        // A trait's path (`Source::advance(&mut x)`) dispatches on its first argument: `x`'s type.
        let by_trait = match call.path.as_deref() {
            Some([.., owner, _]) if call.receiver.is_none() && resolver.fields.is_trait(owner) => call.args.first().copied(),
            _ => None,
        };
        let owners = match (call.receiver.or(by_trait), call.path.as_deref()) {
            (Some(receiver), _) => {
                let ty = self.ctx.with_env(self.def, |env| resolver.type_of(receiver, here, env))?;
                resolver.owner_paths(&ty, here)
            }
            // `Type::method(..)`: a capitalised segment before the name is a type (a module's
            // function, `obs::advance()`, is resolved as a path by `Resolver::effect`).
            (None, Some([.., owner, _])) if owner.starts_with(|c: char| c.is_ascii_uppercase()) && owner != "Self" => {
                let path = call.path.as_deref().unwrap_or_default();
                let paths = resolver.type_paths(&path[..path.len() - 1], here);
                let a_type = resolver.fields.defines(owner) || paths.iter().any(|p| self.ctx.items.defines_type(self.ctx.index, p));
                if !a_type {
                    return None;
                }
                paths
            }
            _ => return None,
        };
        let effects = self.ctx.index.effects.get(&call.name)?;
        (!owners.is_empty()).then(|| effects.iter().any(|e| owners.iter().any(|o| e.path.len() == o.len() + 1 && e.path.starts_with(o))))
    }

    fn position(&self, name: &str) -> Option<u8> {
        self.names.iter().position(|n| n == name).map(|i| i as u8)
    }

    fn runs(&mut self, e: &Expr) -> Runs {
        let Some(key) = crate::resolve::call_position(e) else { return self.resolve(e) };
        if let Some(known) = self.calls.get(&key) {
            return known.clone();
        }
        let runs = self.resolve(e);
        self.calls.insert(key, runs.clone());
        runs
    }

    fn resolve(&self, e: &Expr) -> Runs {
        let Some(call) = CallSite::of(e) else { return Runs::Nothing };
        let here = self.def.map_or(self.ctx.self_type, |d| d.self_type.as_deref());
        if let Some(i) = self.position(&call.name) {
            // Resolved for sure (a helper's summary for the rules that read it as a contract):
            // a path that names the effect, or a method of a receiver of the effect's type.
            let owner = self.effects_method(&call, here);
            if (!self.resolved && owner != Some(false)) || (self.resolved && owner == Some(true)) || self.ctx.resolver.effect(&call, here).is_some() {
                return Runs::Effects(vec![i]);
            }
        } else if let Some(i) = self.ctx.resolver.effect(&call, here).and_then(|f| self.position(f.path.last()?)) {
            // An effect called under another name: `fx::trace_step()` for `pub use log_step as trace_step`.
            return Runs::Effects(vec![i]);
        }
        match self.ctx.resolve(&call) {
            Resolution::One(callee) => {
                let theirs: Vec<u8> = callee.contract.preserves().map(|(_, theirs)| theirs.iter().filter_map(|e| self.position(e.name())).collect()).unwrap_or_default();
                if theirs.is_empty() {
                    Runs::Nothing
                } else {
                    Runs::Effects(theirs)
                }
            }
            Resolution::Ambiguous(_) => Runs::Nothing,
            Resolution::None => match self.helper_summary(e) {
                None => Runs::Nothing,
                Some((paths, true)) => Runs::WhenAwaited(paths),
                Some((paths, false)) => Runs::OneOf(paths),
            },
        }
    }

    /// The traces of a helper's normal exits that serve (`None`: not a helper, none of its paths
    /// runs an effect, it never returns normally, or it could not be summarised). A call that may
    /// name several functions of the file (`self.obs.record()`, with `record` on two types; a
    /// trait's impls for a `dyn` receiver) runs one of them: the paths of any. A call that names
    /// no function of this file may name one of another file, by its path.
    /// With whether the helper is an `async fn` (its call returns a future).
    fn helper_summary(&self, call: &Expr) -> Option<(Arc<Traces>, bool)> {
        let candidates = self.ctx.helper_candidates(call, self.def, self.depth);
        if candidates.is_empty() {
            if let Some(any) = self.dispatched_summary(call) {
                return Some(any);
            }
            let path = self.ctx.foreign_helper(call, self.def, self.depth)?;
            let summary = self.foreign_summary(&path)?;
            let is_async = self.ctx.with_foreign_fn(&path, |_, def| def.sig.asyncness.is_some()).unwrap_or(false);
            return Some((summary, is_async));
        }
        let is_async = candidates.iter().all(|(_, def)| def.sig.asyncness.is_some());
        // The call runs one of them (a trait's impls for a `dyn` or generic receiver): the paths
        // of any, one that runs no effect a path that runs nothing.
        let summaries: Vec<Option<Arc<Traces>>> = candidates.into_iter().map(|(idx, def)| self.summary_of(idx, def)).collect();
        Some((any_of(&summaries)?, is_async))
    }

    /// A call through `dyn Trait` or a type parameter bounded by it, whose implementations are
    /// in other files: it runs one of them, or the trait's default body (an implementation may
    /// keep it): the paths of any, one that runs no effect a path that runs nothing. (Not one
    /// of them alone, as [`FnCtx::foreign_helper`] gives the default of a trait-typed receiver.)
    fn dispatched_summary(&self, call: &Expr) -> Option<(Arc<Traces>, bool)> {
        let (local, mut foreign) = self.ctx.dispatched(call, self.def, self.depth)?;
        foreign.extend(self.ctx.trait_defaults_of(call, self.def));
        foreign.sort();
        foreign.dedup();
        let summaries: Vec<Option<Arc<Traces>>> = local.into_iter().map(|(idx, def)| self.summary_of(idx, def)).chain(foreign.iter().map(|path| self.foreign_summary(path))).collect();
        Some((any_of(&summaries)?, false))
    }

    fn counted(&self) -> Counted {
        (self.names.clone(), self.resolved)
    }

    fn summary_of(&self, idx: usize, def: &'c FnDef<'a>) -> Option<Arc<Traces>> {
        dataflow::memoized(&self.ctx.summaries.effects.helpers, (idx, self.depth + 1, self.counted()), || summarise(self.ctx, def, self.counted(), self.depth + 1))
    }

    /// The summary of the function at `path` in another file, made in that file's context (its
    /// imports decide what its calls are) and shared with the check's other threads.
    fn foreign_summary(&self, path: &[String]) -> Option<Arc<Traces>> {
        let depth = self.depth + 1;
        dataflow::shared_memoized_for(&self.ctx.items.summaries.effects, path, depth, self.counted(), || {
            self.ctx.with_foreign_fn(path, |theirs, def| summarise(theirs, def, self.counted(), depth)).flatten()
        })
    }
}

/// What a call that runs one of several functions may do: the paths of any, one that runs no
/// effect (`None`) a path that runs nothing. `None` when none runs one.
fn any_of(summaries: &[Option<Arc<Traces>>]) -> Option<Arc<Traces>> {
    if summaries.iter().all(Option::is_none) {
        return None;
    }
    let mut any = Traces::default();
    for s in summaries {
        match s {
            Some(traces) => any.join(traces),
            None => any.join(&Traces::start()),
        }
    }
    Some(Arc::new(any))
}

/// The traces of the serving exits of `def`, a helper of `ctx`'s file `depth` calls down from
/// the function being checked, counting `counted`. `None` when no path runs an effect: such a
/// helper runs nothing the caller counts.
fn summarise<'a>(ctx: &FnCtx<'a>, def: &FnDef<'a>, (names, resolved): Counted, depth: usize) -> Option<Arc<Traces>> {
    let mut inner = Effects::new(ctx, names, Some(def), depth, Declining::default(), None);
    inner.resolved = resolved;
    dataflow::solve(&mut inner, def.sig, def.body, Traces::start()).ok()?;
    let mut all = Traces::default();
    for exit in inner.exits.iter().filter(|x| x.serves()) {
        all.join(&exit.traces);
    }
    all.0.iter().any(|t| !t.is_empty()).then(|| Arc::new(all))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The effect rules' findings on `items` (after effects `a`, `b`, `c`), as `(rule, line)`,
    /// lines counted in `items`.
    fn check(items: &str) -> Vec<(&'static str, usize)> {
        let prelude = "#[reuse::effect] fn a() {}\n#[reuse::effect] fn b() {}\n#[reuse::effect] fn c() {}\n";
        let text = format!("{prelude}{items}");
        let file: crate::source::FileRef = std::sync::Arc::new(crate::source::SourceFile::new("lib.rs".into(), "lib.rs".into(), text));
        let ast = file.parse().expect("parses");
        let module = vec!["demo".to_string()];
        let mut index = crate::index::Index::default();
        index.add(crate::index::index_file(&file, &ast, &module, false));
        let mut found: Vec<_> = crate::analysis::analyze_file(&file, &ast, "demo", &module, &index, &crate::items::WorkspaceItems::default())
            .into_iter()
            .filter(|f| ["hit_skips_effect", "effect_order", "stale_result", "analysis_limit"].contains(&f.rule.name))
            .map(|f| (f.rule.name, f.line() - 3))
            .collect();
        found.sort();
        found
    }

    const AB: &str = "#[reuse::contract(preserves(a, b))]";

    #[test]
    fn an_early_return_misses_later_effects_and_branches_join() {
        assert_eq!(check(&format!("{AB}\nfn f(h: bool) -> u8 {{\n    if h {{ return 1; }}\n    a(); b(); 2\n}}")), vec![("hit_skips_effect", 3)]);
        assert_eq!(check(&format!("{AB}\nfn f(x: Option<u8>) {{\n    a();\n    match x {{ Some(_) => b(), None => {{}} }}\n}}")), vec![("hit_skips_effect", 4)]);
        assert!(check(&format!("{AB}\nfn f(x: Option<u8>) {{\n    a();\n    match x {{ Some(_) => b(), None => b() }}\n}}")).is_empty());
    }

    #[test]
    fn error_exits_panics_and_stored_closures() {
        // `?` and `Err` are exempt; a panic is no return; a stored closure runs nothing here.
        assert!(check(&format!("{AB}\nfn f(v: u8) -> Result<u8, u8> {{\n    let w = g(v)?;\n    if w == 0 {{ return Err(1); }}\n    if w == 1 {{ panic!(\"no\") }}\n    a(); b(); Ok(w)\n}}")).is_empty());
        assert_eq!(check(&format!("{AB}\nfn f() -> u8 {{\n    let _h = || {{ a(); b(); }};\n    1\n}}")), vec![("hit_skips_effect", 4)]);
        assert!(check(&format!("{AB}\nfn f() -> u8 {{\n    (|| {{ a(); b(); }})();\n    1\n}}")).is_empty());
    }

    #[test]
    fn loops_labelled_blocks_and_callbacks() {
        // A loop body may run twice: `a` more than once.
        assert_eq!(check(&format!("{AB}\nfn f(xs: &[u8]) {{\n    for _ in xs {{ a(); }}\n    b()\n}}")), vec![("effect_order", 4), ("hit_skips_effect", 4)]);
        // A `loop` leaves by its `break`, after the body ran once or more: never without `a`.
        assert_eq!(check(&format!("{AB}\nfn f() {{\n    loop {{ a(); if g() {{ break; }} }}\n    b()\n}}")), vec![("effect_order", 4)]);
        // A `while` condition runs at least once, before the loop is left.
        assert_eq!(check(&format!("{AB}\nfn f() {{\n    while a() == () {{}}\n    b()\n}}")), vec![("effect_order", 4)]);
        // A labelled block's `break` carries the path that skipped `b` to its end.
        assert_eq!(check(&format!("{AB}\nfn f(c: bool) -> u8 {{\n    a();\n    'x: {{ if c {{ break 'x; }} b(); }}\n    1\n}}")), vec![("hit_skips_effect", 5)]);
        // An entry's closure runs at most once: not twice.
        assert_eq!(check(&format!("{AB}\nfn f(m: &mut M) -> u8 {{\n    *m.entry(1).or_insert_with(|| {{ a(); b(); 1 }})\n}}")), vec![("hit_skips_effect", 3)]);
    }

    #[test]
    fn macro_arguments_run() {
        assert!(check(&format!("{AB}\nfn f() {{\n    println!(\"{{}}\", a());\n    assert!(b() == ());\n}}")).is_empty());
        // A logging event evaluates its arguments only where its level is enabled, as
        // `debug_assert!` only with debug assertions on.
        for event in ["tracing::info!(step = ?a(), rng = %b(), \"stepped\")", "log::debug!(\"{:?} {:?}\", a(), b())", "debug!(\"{:?} {:?}\", a(), b())", "debug_assert!(a() == b())"] {
            let found: Vec<&str> = check(&format!("{AB}\nfn f() {{\n    {event};\n}}")).into_iter().map(|(rule, _)| rule).collect();
            assert_eq!(found, ["hit_skips_effect"], "{event}");
        }
        assert!(check(&format!("{AB}\nfn f() {{\n    let (x, y) = (a(), b());\n    tracing::info!(step = ?x, rng = %y, \"stepped\");\n}}")).is_empty());
    }

    #[test]
    fn helpers_count_by_their_summaries() {
        let helpers = "fn both() { a(); b(); }\nfn some(c: bool) { if c { both(); } }\nfn rec(n: u8) { if n > 0 { rec(n - 1) } a(); }\n";
        let at = |body: &str| check(&format!("{helpers}{AB}\nfn f(c: bool) -> u8 {{\n    {body}\n    1\n}}")).into_iter().map(|(r, l)| (r, l - 3)).collect::<Vec<_>>();
        assert!(at("both();").is_empty());
        assert_eq!(at("some(c);"), vec![("hit_skips_effect", 4)]);
        assert_eq!(at("some(c); both();"), vec![("effect_order", 4)], "one path ran them twice");
        // A helper that calls itself is followed as deep as summaries go (each depth summarised
        // once, whichever caller asks first): `rec` runs `a` again on each level, so a path
        // runs it twice.
        assert_eq!(at("rec(3);"), vec![("effect_order", 4), ("hit_skips_effect", 4)]);
    }

    /// The findings of the effect rules and `memoized_effect` in the file of module `at`, with
    /// every file of `files` (module path, text) in the check: `(rule, module of the file the
    /// label is in, line)` for the primary label and then each secondary one outside the contract.
    fn check_across(files: &[(&str, &str)], at: &str) -> Vec<(&'static str, String, usize)> {
        let jobs = crate::items::tests::jobs(files);
        let (index, _) = crate::engine::build_index(&jobs);
        let items = crate::items::WorkspaceItems::of_jobs(&jobs);
        let job = jobs.iter().find(|j| j.module.join("::") == at).expect("the file checked");
        let ast = job.file.parse().expect("parses");
        let module_of = |label: &crate::finding::Label| jobs.iter().find(|j| j.file.path == label.file.path).map(|j| j.module.join("::")).unwrap_or_default();
        let mut found: Vec<_> = crate::analysis::analyze_file(&job.file, &ast, &job.crate_name, &job.module, &index, &items)
            .into_iter()
            .filter(|f| ["hit_skips_effect", "effect_order", "memoized_effect", "analysis_limit"].contains(&f.rule.name))
            .flat_map(|f| {
                let rule = f.rule.name;
                let primary = (rule, module_of(&f.primary), f.line());
                let others: Vec<_> = f
                    .secondary
                    .iter()
                    .filter(|l| l.file.path != job.file.path)
                    .map(|l| (rule, module_of(l), l.file.line_col(l.range.start).line))
                    .collect();
                std::iter::once(primary).chain(others)
            })
            .collect();
        found.sort();
        found
    }

    /// Effects and helpers in other files: a module of the crate, and a scheduler crate whose
    /// root re-exports a helper of the same name as one the caller imports.
    const ACROSS: &[(&str, &str)] = &[
        ("eng::obs", "#[reuse::effect]\npub fn a() {}\n#[reuse::effect]\npub fn b() {}\n"),
        (
            "eng::runner",
            "use crate::obs::{a, b};\npub fn both() { a(); b(); }\npub fn some(c: bool) { if c { a(); b(); } }\npub fn ping(n: u8) { if n > 0 { crate::cache::pong(n - 1) } a(); b(); }\npub fn plan(n: u8) -> u8 { a(); b(); n }\n",
        ),
        ("sched", "pub mod step;\npub use step::both;\n"),
        ("sched::step", "pub fn both() { if std::env::args().len() > 1 { a(); b(); } }\n"),
    ];

    #[test]
    fn helpers_of_other_files_count_by_their_summaries_found_by_path() {
        let cache = "use crate::runner::{both, some};\n\
            use sched::both as sched_both;\n\
            #[reuse::contract(preserves(a, b))]\npub fn every_path() -> u8 {\n    both();\n    1\n}\n\
            #[reuse::contract(preserves(a, b))]\npub fn one_branch(c: bool) -> u8 {\n    some(c);\n    1\n}\n\
            #[reuse::contract(preserves(a, b))]\npub fn renamed_reexport() -> u8 {\n    sched_both();\n    1\n}\n\
            #[reuse::contract(preserves(a, b))]\npub fn by_path() -> u8 {\n    crate::runner::both();\n    1\n}\n\
            pub fn pong(n: u8) { crate::runner::ping(n) }\n\
            #[reuse::contract(preserves(a, b))]\npub fn across_a_cycle() -> u8 {\n    pong(3);\n    1\n}\n";
        let files: Vec<(&str, &str)> = ACROSS.iter().copied().chain([("eng::cache", cache)]).collect();
        // `both` is the runner's (every path), never the scheduler's of that name (one branch);
        // the scheduler's, imported under another name, leaves a path without the effects; a
        // helper that calls back into this file is followed to the depth bound and ends, its
        // recursion running the effects more than once.
        let at = |rule, line| (rule, "eng::cache".to_string(), line);
        assert_eq!(check_across(&files, "eng::cache"), vec![at("effect_order", 27), at("hit_skips_effect", 11), at("hit_skips_effect", 16)]);
    }

    #[test]
    fn a_cached_helper_of_another_file_that_always_runs_effects_is_a_memoized_effect() {
        let cache = "use std::collections::HashMap;\n\
            pub fn cached(m: &mut HashMap<u8, u8>, n: u8) -> u8 {\n    *m.entry(n).or_insert_with(|| crate::runner::plan(n))\n}\n\
            pub fn cached_pure(m: &mut HashMap<u8, u8>, n: u8) -> u8 {\n    *m.entry(n).or_insert_with(|| crate::runner::some_value(n))\n}\n";
        let runner = format!("{}pub fn some_value(n: u8) -> u8 {{ if n > 1 {{ crate::obs::a(); }} n }}\n", ACROSS[1].1);
        let files = [ACROSS[0], ("eng::runner", runner.as_str()), ("eng::cache", cache)];
        // The label of what the helper runs is at its name, in its own file.
        assert_eq!(check_across(&files, "eng::cache"), vec![("memoized_effect", "eng::cache".to_string(), 3), ("memoized_effect", "eng::runner".to_string(), 5)]);
    }

    fn traces(ts: &[&[u8]]) -> Traces {
        Traces(ts.iter().map(|t| Trace { ran: t.to_vec(), moved: 0 }).collect())
    }

    #[test]
    fn a_third_run_of_an_effect_is_not_kept_so_loops_converge() {
        let mut t = Traces::start();
        for _ in 0..5 {
            t.then(&[0, 1]);
        }
        assert_eq!(t, traces(&[&[0, 1, 0, 1]]));
    }

    #[test]
    fn a_helper_with_two_paths_forks_every_path_of_the_caller() {
        let mut t = traces(&[&[0], &[]]);
        t.then_any(&traces(&[&[1], &[]]));
        assert_eq!(t, traces(&[&[], &[0], &[0, 1], &[1]]));
        assert!(!t.all_ran(1));
    }

    #[test]
    fn declining_values_follow_the_contract() {
        use syn::parse::Parser;
        let e = |s: &str| syn::parse_str::<Expr>(s).unwrap();
        let pat = |s: &str| syn::Pat::parse_multi_with_leading_vert.parse_str(s).unwrap();
        let defaults = Declining { none: true, miss: None, has_reuses: true };
        for (src, declines) in [("None", true), ("Ok(None)", true), ("Err(e)", true), ("(Err(e.into()))", true), ("Some(x)", false), ("Ok(Some(None))", false), ("x", false)] {
            assert_eq!(defaults.declines(&e(src)), declines, "{src}");
        }
        // Without `reuses`, only errors decline.
        assert!(!Declining::default().declines(&e("Ok(None)")) && Declining::default().declines(&e("Err(1)")));
        let eager = Declining { none: false, miss: Some(pat("Ok(Outcome::Eager) | Ok(Outcome::Skip { .. })")), has_reuses: true };
        for (src, declines) in [
            ("Ok(Outcome::Eager)", true),
            ("Ok(Eager)", true),
            ("Ok(other::Outcome::Eager)", true),
            ("Ok(Outcome::Skip { n: 1 })", true),
            ("Ok(Outcome::Replayed(g))", false),
            ("Ok(None)", false),
            ("Err(e)", true),
            ("outcome", false),
        ] {
            assert_eq!(eager.declines(&e(src)), declines, "{src}");
        }
        let shaped = Declining { none: false, miss: Some(pat("(false, _, ..) | Some(0..=3) | [_, 0]")), has_reuses: true };
        for (src, declines) in [("(false, x, y, z)", true), ("(true, x)", false), ("Some(2)", true), ("Some(4)", false), ("[a, 0]", true), ("[a, 1]", false)] {
            assert_eq!(shaped.declines(&e(src)), declines, "{src}");
        }
    }

    #[test]
    fn drop_guards_run_where_their_values_are_dropped() {
        let guard = "struct Gd;\nimpl Drop for Gd { fn drop(&mut self) { b(); } }\n";
        let at = |body: &str| check(&format!("{guard}{AB}\nfn f(h: bool) -> u8 {{\n    {body}\n}}")).into_iter().map(|(r, l)| (r, l - 2)).collect::<Vec<_>>();
        // At the end of its scope, on each exit, after the exit's value.
        assert!(at("let _g = Gd; a(); if h { return 1; } 2").is_empty());
        assert_eq!(at("a(); if h { return 1; } let _g = Gd; 2"), vec![("hit_skips_effect", 3)]);
        // An inner block ends it; `let _ =` drops it at once; `drop(g)` where it stands, once.
        assert_eq!(at("{ let _g = Gd; } a(); 2"), vec![("effect_order", 3)]);
        assert_eq!(at("let _ = Gd; a(); 2"), vec![("effect_order", 3)]);
        assert_eq!(at("let g = Gd; drop(g); a(); 2"), vec![("effect_order", 3)]);
        assert!(at("let g = Gd; a(); drop(g); 2").is_empty());
        // Moved to another local, or bound by `let _ = g;` (no move): dropped once, at the end.
        assert!(at("let g = Gd; let k = g; a(); 2").is_empty());
        assert!(at("let g = Gd; let _ = g; a(); 2").is_empty());
        // Latest binding first.
        assert!(check(&format!("struct Ad;\nimpl Drop for Ad {{ fn drop(&mut self) {{ a(); }} }}\n{guard}{AB}\nfn f() {{\n    let _b = Gd;\n    let _a = Ad;\n}}")).is_empty());
    }
}
