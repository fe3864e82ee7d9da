//! Check for `memoized_effect`: a caller caches the result of a call that is an effect or whose
//! contract preserves effects, so later calls skip them.
//!
//! Two forms: the closure of a caching method (`or_insert_with(|| step())`, `get_or_init`, or a
//! method of the workspace whose body is a memo of a closure parameter's result:
//! [`cached_params`]), which runs only when nothing is cached; and a hand-written memo, an analysis on the dataflow
//! solver: an `insert(k, v)` (or `entry(k).or_insert(v)`) into a map that was looked up (`get`, `contains_key`, ..) on a path
//! reaching it, or the `insert(v)` of a vacant entry (`Entry::Vacant(e)` of `map.entry(k)`, in a
//! `match` arm or an `if let`), where `v` is the result of the call (itself, or the local bound
//! to it there), or an `Option` field of `self` tested for a value on a path to keeping the
//! call's result in it (`match self.last { Some(v) => v, None => { .. self.last = Some(v) } }`:
//! [`option_tests`], also `self.last.take()` put back on a hit), or a list searched for a key
//! (`seen.iter().find(..)`: [`searched_list`]) on a path to pushing the result, unless the call
//! runs on every path to a normal exit (the lookup only counted).
//! Maps are the solver's places through re-borrows (`let seen = &mut *memo;` is `memo`), so a
//! name re-bound to another map is another map.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

use syn::Expr;

use super::{calls_in_expr, expr_text, names, Aliases};
use crate::analysis::{clause_label, FnCtx};
use crate::dataflow::{self, Analysis, Base, Domain, LocalId, Place, Scopes};
use crate::finding::{Finding, Label};
use crate::resolve::{strip, CallSite, Resolution};
use reuse_rules::catalogue::MEMOIZED_EFFECT;

/// Methods that run their closure only when nothing is cached yet.
const CACHING_METHODS: &[&str] =
    &[
        "or_insert_with", "or_insert_with_key", "get_or_insert_with", "get_or_init", "get_or_try_init", "or_try_insert_with", "get_or_insert_with_key",
        // `lru::LruCache`, `moka`'s caches.
        "get_or_insert", "get_or_insert_mut", "try_get_or_insert", "get_with", "try_get_with", "optionally_get_with",
    ];
/// Types whose constructor takes a closure run once, on first use: `std`'s `LazyLock` and
/// `LazyCell`, `once_cell`'s `Lazy` (a `static`'s initializer is checked as a body of its own).
const LAZY_TYPES: &[&str] = &["LazyLock", "LazyCell", "Lazy"];
/// Inserts of a key and a value: a map's, `lru::LruCache`'s `put` and `push`.
const INSERTS: &[&str] = &["insert", "put", "push"];
/// Lookups that make a later `insert` a get-then-insert memo.
const LOOKUPS: &[&str] = &["get", "get_mut", "contains_key", "peek"];
/// Searches of a list's items (`list.iter().find(|(k, _)| *k == g)`) that make a later `push` of
/// a result a memo kept as a list.
const SEARCHES: &[&str] = &["find", "find_map", "any", "position"];
/// `Option` methods whose value is the receiver's value or `None` (`filter(|v| ..)`, `copied()`):
/// testing it tests the receiver.
const OPTION_KEEPING: &[&str] = &["filter", "copied", "cloned"];
/// Adding an item to a list (a `Vec`, a `VecDeque` kept as a recent-items ring).
const PUSHES: &[&str] = &["push", "push_back", "push_front"];

/// The list a search looks through: `list` of `list.iter().find(..)` and of `list.contains(&x)`.
fn searched_list(m: &syn::ExprMethodCall) -> Option<&Expr> {
    if m.method == "contains" && m.args.len() == 1 {
        return Some(&m.receiver);
    }
    let Expr::MethodCall(items) = strip(&m.receiver) else { return None };
    (SEARCHES.contains(&m.method.to_string().as_str()) && items.args.is_empty() && (items.method == "iter" || items.method == "iter_mut")).then_some(&*items.receiver)
}

pub(super) fn check<'a>(ctx: &FnCtx<'a>, calls: &[&'a Expr], out: &mut Vec<Finding>) {
    for &call in calls {
        // `LazyLock::new(|| sample_mask(16))`: the closure runs on the first use only.
        if let Some((lazy, closure)) = lazy_constructor(call) {
            report_cached_closure(ctx, &closure.body, &HashSet::new(), &format!("`{lazy}::new`"), out);
            continue;
        }
        // A cache wrapper of the workspace that runs its closure on a miss only.
        for (closure, helper) in closures_cached_by_helper(ctx, call) {
            report_cached_closure(ctx, &closure.body, &HashSet::new(), &format!("`{helper}`"), out);
        }
        let Expr::MethodCall(m) = call else { continue };
        let method = m.method.to_string();
        // A cache this call made (`let cell = OnceCell::new();`) and consults once: one call's,
        // as a local `Option` is. Consulted in a loop, it skips the effects of later rounds.
        if CACHING_METHODS.contains(&method.as_str()) && !made_here_for_one_use(ctx, m) {
            // `entry(k).and_modify(|_| log_step()).or_insert_with(|| { log_step(); .. })`: what
            // the hit runs too is run on every call, not cached.
            let on_hit: HashSet<String> = match dataflow::strip_parens(&m.receiver) {
                Expr::MethodCall(modify) if modify.method == "and_modify" => modify.args.iter().flat_map(calls_in_expr).filter_map(callee_name).collect(),
                _ => HashSet::new(),
            };
            for arg in &m.args {
                // A local bound to a closure (`let run = || engine.step(g);` then
                // `or_insert_with(run)`): its body runs on a miss only.
                if let Some(c) = match strip(arg) {
                    Expr::Path(p) => bound_closure(ctx, p, arg),
                    _ => None,
                } {
                    report_cached_closure(ctx, &c.body, &on_hit, &format!("`{method}`"), out);
                    continue;
                }
                match strip(arg) {
                    Expr::Closure(c) => report_cached_closure(ctx, &c.body, &on_hit, &format!("`{method}`"), out),
                    // An async cache's init future (`moka::future::Cache::get_with(k, async { .. })`).
                    init @ Expr::Async(_) => report_cached_closure(ctx, init, &on_hit, &format!("`{method}`"), out),
                    // A function item (`or_insert_with(warm_step)`, `get_or_init(log_step)`):
                    // called as the closure would call it.
                    Expr::Path(p) if p.qself.is_none() => {
                        let path = &p.path;
                        let call: Expr = syn::parse_quote!(#path());
                        report(ctx, &call, arg, &format!("`{method}`"), out);
                    }
                    _ => {}
                }
            }
        }
    }
    // Only a function with a lookup and an insert, or an entry, can memoize by hand.
    let method_is = |c: &&Expr, names: &[&str]| matches!(c, Expr::MethodCall(m) if names.contains(&m.method.to_string().as_str()));
    let inserts = calls.iter().any(|c| matches!(c, Expr::MethodCall(m) if INSERTS.contains(&m.method.to_string().as_str()) && m.args.len() == 2));
    let option_tests = option_tests(ctx.body);
    let pushes = calls.iter().any(|c| matches!(c, Expr::MethodCall(m) if PUSHES.contains(&m.method.to_string().as_str()) && m.args.len() == 1));
    let searches = calls.iter().any(|c| matches!(c, Expr::MethodCall(m) if searched_list(m).is_some()));
    let memoizes = calls.iter().any(|c| method_is(c, &["entry"])) || (inserts && calls.iter().any(|c| method_is(c, LOOKUPS))) || (pushes && searches) || !option_tests.is_empty();
    if !memoizes {
        return;
    }
    let Ok(found) = memoized_calls(ctx, ctx.sig, ctx.body, calls, option_tests) else {
        out.push(super::analysis_limit(ctx, "dataflow", dataflow::MAX_STEPS, "its memoized calls are"));
        return;
    };
    for (call, how) in found {
        report(ctx, call, call, &how, out);
    }
}

/// The closure a local named by `p` is bound to where `at` uses it.
fn bound_closure<'e>(ctx: &'e FnCtx, p: &syn::ExprPath, at: &Expr) -> Option<&'e syn::ExprClosure> {
    match strip(ctx.env().init_at(&p.path.get_ident()?.to_string(), ctx.expr_range(at).start)?) {
        Expr::Closure(c) => Some(c),
        _ => None,
    }
}

/// The calls of a body (`calls`, its calls) whose result is kept in a memo looked up on the way,
/// and how, by the solver; a function called on every path to a normal exit is not cached: the
/// lookup only counted (`if memo.contains_key(&g) { hits += 1 }`), or a hit computes it again.
fn memoized_calls<'a>(ctx: &FnCtx, sig: &syn::Signature, body: &syn::Block, calls: &[&'a Expr], option_tests: HashSet<*const Expr>) -> Result<Vec<(&'a Expr, String)>, dataflow::TooComplex> {
    let mut memo = Memo { ctx, aliases: Aliases::default(), results: HashMap::new(), vacant: HashSet::new(), found: Vec::new(), seen: HashSet::new(), exits: Vec::new(), option_tests };
    dataflow::solve(&mut memo, sig, body, MemoState::default())?;
    let every_path = |name: &String| !memo.exits.is_empty() && memo.exits.iter().all(|ran| ran.contains(name));
    Ok(memo
        .found
        .iter()
        .filter_map(|(range, how)| Some((*calls.iter().find(|c| ctx.expr_range(c) == *range)?, how.clone())))
        .filter(|(call, _)| !callee_name(call).is_some_and(|name| every_path(&name)))
        .collect())
}

/// The parameters (by position, the receiver left out) of a function that calls them and keeps
/// the result in a memo it looked up: a cache wrapper of the workspace (`fn get_or_compute(&mut
/// self, k: K, f: F) { if let Some(v) = self.map.get(&k) { return *v } let v = f(); .. }`), whose
/// closure argument runs on a miss only, as `or_insert_with`'s does.
fn cached_params(ctx: &FnCtx, sig: &syn::Signature, body: &syn::Block) -> Vec<usize> {
    let params = dataflow::param_names(sig);
    let calls = super::calls_in(body);
    let Ok(found) = memoized_calls(ctx, sig, body, &calls, option_tests(body)) else { return Vec::new() };
    found
        .into_iter()
        .filter_map(|(call, _)| match call {
            Expr::Call(c) => match strip(&c.func) {
                Expr::Path(p) => p.path.get_ident().and_then(|f| params.iter().position(|name| f == name)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The closures a call hands to a helper (of this file, or of another reached by its path) at a
/// parameter the helper caches ([`cached_params`]), with the helper's name.
fn closures_cached_by_helper<'e>(ctx: &FnCtx, call: &'e Expr) -> Vec<(&'e syn::ExprClosure, String)> {
    let (_, args) = crate::analysis::call_args(call);
    if !args.iter().any(|a| dataflow::closure_of(a).is_some()) {
        return Vec::new();
    }
    // What the helper caches, with whether it is a method: the parameters counted leave the
    // receiver out, as a method call's `args` do, not those of `Type::method(recv, f)`.
    let cached = |fctx: &FnCtx, def: &crate::analysis::FnDef| (def.has_receiver(), cached_params(fctx, def.sig, def.body));
    let (name, (method, cached)) = if let Some((idx, def)) = ctx.helper_of(call, None, 0) {
        (def.sig.ident.to_string(), dataflow::memoized(&ctx.summaries.cached_params, idx, || Some(cached(ctx, def))).unwrap_or_default())
    } else {
        let Some(path) = ctx.foreign_helper(call, None, 0) else { return Vec::new() };
        let found = dataflow::shared_memoized(&ctx.items.summaries.cached_params, &path, 1, || ctx.with_foreign_fn(&path, |fctx, def| cached(fctx, def)));
        (path.last().cloned().unwrap_or_default(), found.unwrap_or_default())
    };
    let shift = usize::from(method && matches!(call, Expr::Call(_)));
    cached.into_iter().filter_map(|i| args.get(i + shift).and_then(|a| dataflow::closure_of(a))).map(|c| (c, name.clone())).collect()
}

/// The maps looked up on some path that reaches a point, and the functions called on every
/// path to it (by name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct MemoState {
    looked_up: BTreeSet<Place>,
    ran: BTreeSet<String>,
}

impl Domain for MemoState {
    fn join(&mut self, other: &Self) {
        self.looked_up.extend(other.looked_up.iter().cloned());
        self.ran.retain(|r| other.ran.contains(r));
    }
}

struct Memo<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    aliases: Aliases,
    /// The call whose result a local was bound to, by the call's range.
    results: HashMap<LocalId, Range<usize>>,
    /// Locals that hold a vacant entry (`Entry::Vacant(v)` of a `map.entry(k)`): what they are
    /// filled with is computed only on a miss.
    vacant: HashSet<LocalId>,
    /// Calls whose result is inserted after a lookup, and how (for the message).
    found: Vec<(Range<usize>, String)>,
    seen: HashSet<Range<usize>>,
    /// The functions called on every path, at each normal exit.
    exits: Vec<BTreeSet<String>>,
    /// The scrutinees that test whether an `Option` holds a value ([`option_tests`]).
    option_tests: HashSet<*const Expr>,
}

/// The expressions of a body that test whether an `Option` holds a value: the scrutinee of a
/// `match` with a `None` or `Some(..)` arm, of an `if let Some(..)` or `let Some(..) else`, the
/// receiver of `is_none()` / `is_some()`; only those of a field of `self` (also through a local
/// that re-borrows `self` or a field of it, `let this = &mut *self;`), a memo looked up there
/// (the others need no solve).
fn option_tests(body: &syn::Block) -> HashSet<*const Expr> {
    use syn::visit::Visit;
    struct Tests(HashSet<*const Expr>, HashSet<String>);
    fn is_option_pattern(p: &syn::Pat) -> bool {
        let name = match p {
            syn::Pat::Ident(i) => i.ident.to_string(),
            syn::Pat::TupleStruct(t) => t.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            syn::Pat::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => return false,
        };
        name == "None" || name == "Some"
    }
    /// `self.last`, `&self.last`, `self.last.as_ref()`, `self.cache.lock().unwrap().last`: a
    /// field of `self` (a local's `Option` is one call's, no memo across calls); `selves`: the
    /// locals that re-borrow `self` or a field of it.
    fn of_self(e: &Expr, selves: &HashSet<String>) -> bool {
        let is_self = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident("self") || p.path.get_ident().is_some_and(|i| selves.contains(&i.to_string())));
        match strip(e) {
            // `slot` of `let mut slot = self.warm.lock().unwrap();`: the field it guards.
            Expr::Path(p) => p.path.get_ident().is_some_and(|i| selves.contains(&i.to_string())),
            Expr::Field(f) => is_self(&f.base) || of_self(&f.base, selves),
            // `self.layer_masks[layer]`: one slot of a per-layer memo.
            Expr::Index(i) => of_self(&i.expr, selves),
            Expr::Reference(r) => of_self(&r.expr, selves),
            Expr::Unary(u) => of_self(&u.expr, selves),
            Expr::MethodCall(m) if m.args.is_empty() || super::UNWRAPS.contains(&m.method.to_string().as_str()) || OPTION_KEEPING.contains(&m.method.to_string().as_str()) => of_self(&m.receiver, selves),
            Expr::Try(t) => of_self(&t.expr, selves),
            _ => false,
        }
    }
    impl Tests {
        fn insert(&mut self, e: &Expr) {
            if of_self(e, &self.1) {
                self.0.insert(e as *const Expr);
            }
        }
    }
    impl<'ast> Visit<'ast> for Tests {
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            if m.arms.iter().any(|a| is_option_pattern(&a.pat)) {
                self.insert(&m.expr);
            }
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            if is_option_pattern(&l.pat) {
                self.insert(&l.expr);
            }
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (Some(init), true) = (&l.init, is_option_pattern(&l.pat)) {
                self.insert(&init.expr);
            }
            // `let this = &mut *self;`, `let memo = &mut self.memo;`: a name for `self` or a
            // part of it; so is a guard of a part of it (`let mut slot =
            // self.warm.lock().unwrap();`).
            if let (Some(init), syn::Pat::Ident(name)) = (&l.init, &l.pat) {
                let guarded = through_slots(&init.expr);
                let guard = !std::ptr::eq(guarded, strip(&init.expr)) && of_self(guarded, &self.1);
                let reborrow = guard
                    || matches!(crate::dataflow::strip_parens(&init.expr), Expr::Reference(_))
                        && (matches!(strip(&init.expr), Expr::Path(p) if p.path.is_ident("self")) || of_self(&init.expr, &self.1));
                if reborrow {
                    self.1.insert(name.ident.to_string());
                }
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if (m.args.is_empty() && (m.method == "is_none" || m.method == "is_some")) || (m.args.len() == 1 && (m.method == "is_some_and" || m.method == "is_none_or")) {
                self.insert(&m.receiver);
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut t = Tests(HashSet::new(), HashSet::new());
    t.visit_block(body);
    t.0
}

impl Analysis for Memo<'_, '_> {
    type State = MemoState;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, None, 0, call, arg)
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    fn runs_at_drop<'e>(&self, value: &'e Expr) -> Option<&'e syn::ExprClosure> {
        super::closure_run_at_drop(self.ctx, self.ctx.self_type, value)
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut MemoState, e: &Expr) {
        state.ran.extend(callee_name(e));
        if self.option_tests.contains(&(e as *const Expr)) {
            if let Some(field) = self.option_field(scopes, e) {
                state.looked_up.insert(field);
            }
        }
        match e {
            Expr::MethodCall(m) if LOOKUPS.contains(&m.method.to_string().as_str()) => {
                if let Some(map) = self.aliases.place_of(scopes, through_guards(&m.receiver)) {
                    state.looked_up.insert(map);
                }
            }
            Expr::MethodCall(m) if searched_list(m).is_some() => {
                if let Some(list) = searched_list(m).and_then(|l| self.aliases.place_of(scopes, through_guards(l))) {
                    state.looked_up.insert(list);
                }
            }
            // `list.push((g, v))` of a list searched for `g`: the result kept, in the pushed
            // value or an element of the pushed tuple.
            Expr::MethodCall(m) if PUSHES.contains(&m.method.to_string().as_str()) && m.args.len() == 1 => {
                let Some(list) = self.aliases.place_of(scopes, through_guards(&m.receiver)) else { return };
                if !state.looked_up.contains(&list) {
                    return;
                }
                for call in self.kept_sources(scopes, &m.args[0]) {
                    self.found(call, format!("`{}.{}` after a search", expr_text(&m.receiver), m.method));
                }
            }
            Expr::MethodCall(m) if INSERTS.contains(&m.method.to_string().as_str()) && m.args.len() == 2 => {
                let Some(map) = self.aliases.place_of(scopes, through_guards(&m.receiver)) else { return };
                if !state.looked_up.contains(&map) {
                    return;
                }
                for call in self.kept_sources(scopes, &m.args[1]) {
                    self.found(call, format!("`{}.{}` after a lookup", expr_text(&m.receiver), m.method));
                }
            }
            // `map.entry(k).or_insert(v)` after a lookup: the store `insert(k, v)` makes.
            Expr::MethodCall(m) if m.method == "or_insert" && m.args.len() == 1 => {
                let Expr::MethodCall(entry) = strip(&m.receiver) else { return };
                if entry.method != "entry" {
                    return;
                }
                let Some(map) = self.aliases.place_of(scopes, through_guards(&entry.receiver)) else { return };
                if !state.looked_up.contains(&map) {
                    return;
                }
                if let Some(call) = self.value_source(scopes, &m.args[0]) {
                    self.found(call, format!("`{}.entry(..).or_insert` after a lookup", expr_text(&entry.receiver)));
                }
            }
            // `self.last.insert(v)`, `self.last.replace(v)` of a field seen `None`.
            Expr::MethodCall(m) if ["insert", "replace", "get_or_insert"].contains(&m.method.to_string().as_str()) && m.args.len() == 1 && self.option_field(scopes, &m.receiver).is_some_and(|f| state.looked_up.contains(&f)) => {
                if let Some(call) = self.value_source(scopes, &m.args[0]) {
                    self.found(call, format!("`{}.{}` after it was tested", expr_text(&m.receiver), m.method));
                }
            }
            // `Entry::Vacant(v) => *v.insert(step(k))`, `let out = step(k); v.insert(out)`.
            Expr::MethodCall(m) if m.method == "insert" && m.args.len() == 1 => {
                let Some(Place { base: Base::Local(v), fields }) = scopes.place_of(&m.receiver) else { return };
                if !fields.is_empty() || !self.vacant.contains(&v) {
                    return;
                }
                let how = format!("the vacant `{}` of an `entry`", scopes.name(v));
                let sources: Vec<Range<usize>> = match self.value_source(scopes, &m.args[0]) {
                    Some(call) if matches!(peel(&m.args[0]), Expr::Path(_)) => vec![call],
                    _ => calls_in_expr(&m.args[0]).into_iter().map(|c| self.ctx.expr_range(c)).collect(),
                };
                for call in sources {
                    self.found(call, how.clone());
                }
            }
            Expr::Assign(a) => {
                // `self.last = Some(v)` of a field seen `None`.
                if self.option_field(scopes, &a.left).is_some_and(|f| state.looked_up.contains(&f)) {
                    for call in self.kept_sources(scopes, &a.right) {
                        self.found(call, format!("`{} = ..` after it was tested", expr_text(&a.left)));
                    }
                }
                self.aliases.assigned(scopes, &a.left, &a.right);
                if let Some(Place { base: Base::Local(id), fields }) = scopes.place_of(&a.left) {
                    if fields.is_empty() {
                        self.bind_result(scopes, id, Some(&a.right));
                    }
                }
            }
            _ => {}
        }
    }

    fn bind(&mut self, scopes: &Scopes, _state: &mut MemoState, local: LocalId, init: Option<&Expr>) {
        // A guard of a map is the map (`let mut w = self.memo.write().unwrap();`), and a slot of
        // one is the map's (`let slot = self.slots.entry(k).or_default();`).
        self.aliases.bind(scopes, local, init.map(through_slots));
        self.bind_result(scopes, local, init);
        self.vacant.remove(&local);
    }

    /// `slot @ None` of `match &mut self.last`: the name is the field. `if let Some(o) = &out` of
    /// a call's result `out`: `o` holds (a part of) that result.
    fn bind_parts(&mut self, scopes: &Scopes, _state: &mut MemoState, parts: &[(LocalId, Vec<String>)], scrutinee: &Expr) {
        if let Some(call) = self.value_source(scopes, scrutinee) {
            for (local, _) in parts {
                self.results.insert(*local, call.clone());
            }
        }
        if self.option_field(scopes, scrutinee).is_none() {
            return;
        }
        for (local, path) in parts {
            if path.is_empty() {
                self.aliases.bind(scopes, *local, Some(through_guards(scrutinee)));
            }
        }
    }

    fn bind_variant(&mut self, _scopes: &Scopes, _state: &mut MemoState, local: LocalId, variant: &syn::Ident, scrutinee: &Expr) {
        if variant == "Vacant" && matches!(through_guards(scrutinee), Expr::MethodCall(m) if m.method == "entry") {
            self.vacant.insert(local);
        }
    }

    fn exit(&mut self, _scopes: &Scopes, state: &MemoState, _exit: &dataflow::Exit<'_>) {
        self.exits.push(state.ran.clone());
    }
}

impl Memo<'_, '_> {
    /// The field of `self` an expression is (through `&`, `*`, `as_ref()`, guards): one that
    /// outlives the call, so a value kept in it is served to later calls.
    fn option_field(&self, scopes: &Scopes, e: &Expr) -> Option<Place> {
        let mut e = through_guards(e);
        loop {
            e = match e {
                Expr::Reference(r) => through_guards(&r.expr),
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => through_guards(&u.expr),
                // `self.last.take()`, tested and put back on a hit: the field's value.
                Expr::MethodCall(m) if m.args.is_empty() && ["as_ref", "as_mut", "as_deref", "take"].contains(&m.method.to_string().as_str()) => through_guards(&m.receiver),
                // `self.last.as_ref().filter(|v| v.key == g)`: a hit of the field only where the
                // value matches.
                Expr::MethodCall(m) if OPTION_KEEPING.contains(&m.method.to_string().as_str()) => through_guards(&m.receiver),
                // `self.layer_masks[layer]`: a slot of a per-layer memo is the memo's.
                Expr::Index(i) => through_guards(&i.expr),
                _ => break,
            };
        }
        self.aliases.place_of(scopes, e).filter(|p| p.base == Base::SelfValue && !p.fields.is_empty())
    }

    fn found(&mut self, call: Range<usize>, how: String) {
        if self.seen.insert(call.clone()) {
            self.found.push((call, how));
        }
    }

    fn bind_result(&mut self, scopes: &Scopes, local: LocalId, value: Option<&Expr>) {
        match value.and_then(|v| self.value_source(scopes, v)) {
            Some(call) => self.results.insert(local, call),
            None => self.results.remove(&local),
        };
    }

    /// The call whose result `value` is: the call itself, or the one the local it names was
    /// bound to.
    /// The calls whose results a kept value holds: the value's ([`Self::value_source`]), or each
    /// element's of a tuple (`list.push((g, v))`, `self.last = Some((key, t))`).
    fn kept_sources(&self, scopes: &Scopes, value: &Expr) -> Vec<Range<usize>> {
        match peel(value) {
            Expr::Tuple(t) => t.elems.iter().filter_map(|v| self.value_source(scopes, v)).collect(),
            _ => self.value_source(scopes, value).into_iter().collect(),
        }
    }

    fn value_source(&self, scopes: &Scopes, value: &Expr) -> Option<Range<usize>> {
        match peel(value) {
            call @ (Expr::Call(_) | Expr::MethodCall(_)) => Some(self.ctx.expr_range(call)),
            path @ Expr::Path(_) => match scopes.place_of(path)? {
                Place { base: Base::Local(id), fields } if fields.is_empty() => self.results.get(&id).cloned(),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The name a call calls (`step` of `engine.step(g)` and of `Engine::step(e, g)`).
fn callee_name(e: &Expr) -> Option<String> {
    match e {
        Expr::MethodCall(m) => Some(m.method.to_string()),
        Expr::Call(c) => match strip(&c.func) {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// Strips `.clone()`, `?`, `.unwrap()`, `.expect(..)`, `.await` and references around a value.
fn peel(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => peel(&m.receiver),
        // What the call gave, on the path that goes on (`try_step(g).expect("..")`, as `?`).
        Expr::MethodCall(m) if (m.method == "unwrap" && m.args.is_empty()) || (m.method == "expect" && m.args.len() == 1) => peel(&m.receiver),
        // Or a fallback where it gave nothing (`run_captured(bs)?.unwrap_or_else(|| eager(x))`):
        // what is kept may be the call's result.
        Expr::MethodCall(m) if ["unwrap_or", "unwrap_or_else", "unwrap_or_default"].contains(&m.method.to_string().as_str()) && m.args.len() <= 1 => peel(&m.receiver),
        // Wrapped to be shared or returned (`Arc::new(p)`, `Some(p)`): the same result.
        Expr::Call(c) if c.args.len() == 1 && is_wrapper(&c.func) => peel(&c.args[0]),
        // Converted on the way (`step(n).map(Arc::new)?`, `.map_err(..)?`, anyhow's `.context(..)?`):
        // what is kept is still computed by the call.
        Expr::MethodCall(m) if m.args.len() <= 1 && ["map", "map_err", "context", "with_context", "into", "ok", "ok_or", "ok_or_else"].contains(&m.method.to_string().as_str()) => peel(&m.receiver),
        Expr::Try(t) => peel(&t.expr),
        Expr::Await(a) => peel(&a.base),
        other => other,
    }
}

/// `Arc::new`, `Rc::new`, `Box::new`, `Some`, `Ok`: a value wrapped, not computed; `Arc::clone(&p)`,
/// `Rc::clone(&p)`, `Clone::clone(&p)`: the same value shared.
fn is_wrapper(func: &Expr) -> bool {
    let Expr::Path(p) = strip(func) else { return false };
    let names: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.as_slice() {
        [one] => one == "Some" || one == "Ok",
        [.., ty, f] => (f == "new" && ["Arc", "Rc", "Box"].contains(&ty.as_str())) || (f == "clone" && ["Arc", "Rc", "Clone"].contains(&ty.as_str())),
        _ => false,
    }
}

/// The map behind its lock and borrow guards: `memo.read().unwrap()` and `memo.write().unwrap()`
/// are `memo` (the double-checked shared cache), as are tokio's `memo.read().await`.
fn through_guards(e: &Expr) -> &Expr {
    match super::guard_step(strip(e)) {
        Some(inner) => through_guards(inner),
        None => strip(e),
    }
}

/// The map a slot of is taken (`self.slots.entry(k).or_default()`, `.get_mut(&k).unwrap()`),
/// through guards; else what [`through_guards`] gives.
fn through_slots(e: &Expr) -> &Expr {
    let Expr::MethodCall(m) = strip(e) else { return through_guards(e) };
    let inner = match strip(&m.receiver) {
        Expr::MethodCall(inner) => inner,
        _ => return through_guards(e),
    };
    let method = m.method.to_string();
    let slot = (["or_default", "or_insert", "or_insert_with"].contains(&method.as_str()) && inner.method == "entry")
        || (super::UNWRAPS.contains(&method.as_str()) && inner.method == "get_mut");
    if slot {
        through_guards(&inner.receiver)
    } else {
        through_guards(e)
    }
}

/// Reports the call `call_expr` as cached, at `at` (the call, or the macro call it is in).
/// Whether the cache a caching method is called on (`cell`, `seen` of `seen.entry(k)`) is a local
/// the function made empty (`let cell = OnceCell::new();`, `HashMap::new()`, `Default::default()`,
/// `with_capacity(n)`), and not a parameter, a field or a borrow of one (`let memo = &mut
/// self.memo;` stays the field's memo), and the call is in no loop or closure begun after it was
/// made (`for g in graphs { memo.entry(..).or_insert_with(..) }` serves later rounds).
fn made_here_for_one_use(ctx: &FnCtx, call: &syn::ExprMethodCall) -> bool {
    let mut root = strip(&call.receiver);
    while let Expr::MethodCall(m) = root {
        root = strip(&m.receiver);
    }
    let Expr::Path(p) = root else { return false };
    let Some(name) = p.path.get_ident() else { return false };
    let at = crate::source::byte_range(name.span()).start;
    // The `let` of that name before the call (the last one: a shadowing `let` re-binds it).
    struct Lets<'e> {
        name: String,
        at: usize,
        found: Option<&'e syn::LocalInit>,
        made_at: usize,
    }
    impl<'e> syn::visit::Visit<'e> for Lets<'e> {
        fn visit_local(&mut self, l: &'e syn::Local) {
            let bound = match &l.pat {
                syn::Pat::Ident(i) => Some(&i.ident),
                syn::Pat::Type(t) => match &*t.pat {
                    syn::Pat::Ident(i) => Some(&i.ident),
                    _ => None,
                },
                _ => None,
            };
            if let Some(i) = bound.filter(|i| **i == self.name && crate::source::byte_range(i.span()).start < self.at) {
                self.found = l.init.as_ref();
                self.made_at = crate::source::byte_range(i.span()).start;
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_item(&mut self, _: &'e syn::Item) {}
    }
    let mut lets = Lets { name: name.to_string(), at, found: None, made_at: 0 };
    syn::visit::Visit::visit_block(&mut lets, ctx.body);
    let Some(init) = lets.found else { return false };
    // Loops and closures between the `let` and the call.
    struct Repeats {
        from: usize,
        at: usize,
        repeated: bool,
    }
    impl Repeats {
        fn around(&mut self, open: usize, close: usize) {
            self.repeated |= self.from < open && open < self.at && self.at < close;
        }
    }
    impl<'e> syn::visit::Visit<'e> for Repeats {
        fn visit_expr_for_loop(&mut self, f: &'e syn::ExprForLoop) {
            self.around(crate::source::byte_range(f.body.brace_token.span.open()).start, crate::source::byte_range(f.body.brace_token.span.close()).end);
            syn::visit::visit_expr_for_loop(self, f);
        }
        fn visit_expr_while(&mut self, w: &'e syn::ExprWhile) {
            self.around(crate::source::byte_range(w.body.brace_token.span.open()).start, crate::source::byte_range(w.body.brace_token.span.close()).end);
            syn::visit::visit_expr_while(self, w);
        }
        fn visit_expr_loop(&mut self, l: &'e syn::ExprLoop) {
            self.around(crate::source::byte_range(l.body.brace_token.span.open()).start, crate::source::byte_range(l.body.brace_token.span.close()).end);
            syn::visit::visit_expr_loop(self, l);
        }
        fn visit_expr_closure(&mut self, c: &'e syn::ExprClosure) {
            let r = crate::source::byte_range(syn::spanned::Spanned::span(&c.body));
            self.around(r.start, r.end);
            syn::visit::visit_expr_closure(self, c);
        }
        fn visit_item(&mut self, _: &'e syn::Item) {}
    }
    let mut repeats = Repeats { from: lets.made_at, at: crate::source::byte_range(call.method.span()).start, repeated: false };
    syn::visit::Visit::visit_block(&mut repeats, ctx.body);
    if repeats.repeated {
        return false;
    }
    let Expr::Call(c) = strip(&init.expr) else { return false };
    let Expr::Path(f) = strip(&c.func) else { return false };
    f.path.segments.len() >= 2 && f.path.segments.last().is_some_and(|s| ["new", "default", "with_capacity", "with_hasher", "with_capacity_and_hasher"].contains(&s.ident.to_string().as_str()))
}

/// The calls of the body of a closure that runs only when nothing is cached (by `how`), except
/// those named in `on_hit` (what the hit runs too).
fn report_cached_closure(ctx: &FnCtx, body: &Expr, on_hit: &HashSet<String>, how: &str, out: &mut Vec<Finding>) {
    for inner in calls_in_expr(body).into_iter().filter(|inner| callee_name(inner).is_none_or(|n| !on_hit.contains(&n))) {
        report(ctx, inner, inner, how, out);
    }
    // Reported at the macro's call, in the closure.
    for (inner, at) in super::calls_in_expansions(ctx, body) {
        report(ctx, &inner, at, how, out);
    }
}

/// `LazyLock::new(|| ..)` (`std::sync::LazyLock::new`, `once_cell::sync::Lazy::new`): the lazy
/// type as written, and its closure.
fn lazy_constructor(call: &Expr) -> Option<(String, &syn::ExprClosure)> {
    let Expr::Call(c) = call else { return None };
    let Expr::Path(p) = strip(&c.func) else { return None };
    let [.., ty, new] = p.path.segments.iter().collect::<Vec<_>>()[..] else { return None };
    let lazy = ty.ident.to_string();
    if new.ident != "new" || !LAZY_TYPES.contains(&lazy.as_str()) {
        return None;
    }
    match c.args.iter().map(strip).collect::<Vec<_>>()[..] {
        [Expr::Closure(closure)] => Some((lazy, closure)),
        _ => None,
    }
}

/// An effect that is a method, called on a receiver of its type (`self.rng.draw()` of a `Rng`
/// field, `#[reuse::effect] fn draw(&mut self)` in `impl Rng`).
fn method_effect<'i>(ctx: &FnCtx<'i>, call: &CallSite) -> Option<&'i crate::index::EffectFn> {
    let receiver = call.receiver?;
    let effects = ctx.index.effects.get(&call.name)?;
    let ty = ctx.resolver.type_of(receiver, ctx.self_type, ctx.env())?;
    let owners = ctx.resolver.owner_paths(&ty, ctx.self_type);
    effects.iter().find(|e| owners.iter().any(|o| e.path.len() == o.len() + 1 && e.path.starts_with(o)))
}

fn report(ctx: &FnCtx, call_expr: &Expr, at: &Expr, how: &str, out: &mut Vec<Finding>) {
    let Some(call) = CallSite::of(call_expr) else { return };
    let name = call.name.clone();
    if let Some(effect) = ctx.resolver.effect(&call, ctx.self_type).or_else(|| method_effect(ctx, &call)) {
        out.push(
            Finding::new(&MEMOIZED_EFFECT, format!("the effect `{name}` is cached by {how}: later calls skip it"), ctx.label(at, "runs only on the first call"))
                .with_secondary(Label::new(&effect.file, effect.range.clone(), "declared as an effect here"))
                .with_help(format!("call `{name}` on every call instead of caching its result")),
        );
        return;
    }
    // What the call preserves, where that is said, and how to fix it.
    let (effects, said, help): (Vec<String>, Label, String) = match ctx.resolve(&call) {
        Resolution::One(callee) => {
            let Some((clause, effects)) = callee.contract.preserves() else { return };
            (
                effects.iter().map(|e| e.name().to_string()).collect(),
                clause_label(callee, clause, format!("`{}` preserves these effects on every call", callee.display_path())),
                format!("call `{name}` on every step (its own cache keeps the effects), or cache only work that has none"),
            )
        }
        // A helper without a contract (of this file, or of another reached by its path) that
        // runs effects on every path: as if it preserved them (its summary).
        Resolution::None => {
            let Some(helper) = super::effects::always_run_by_helper(ctx, call_expr) else { return };
            let label = Label::new(&helper.file, helper.name, format!("`{name}` runs these effects on every path"));
            (helper.effects, label, format!("call `{name}` on every step, or cache only work that has no effects"))
        }
        Resolution::Ambiguous(_) => return,
    };
    let effect_names: Vec<&str> = effects.iter().map(String::as_str).collect();
    let (its, are) = if effects.len() == 1 { ("its effect", "is") } else { ("its effects", "are") };
    out.push(
        Finding::new(
            &MEMOIZED_EFFECT,
            format!("the result of `{name}` is cached by {how}, so {its} {} {are} skipped on every later call", names(&effect_names)),
            ctx.label(at, format!("`{name}` runs only on a miss of this cache")),
        )
        .with_secondary(said)
        .with_help(help),
    );
}
