//! Check for `use_after_donate`: after a call whose callee declares `aliases(OUT = IN)`, the
//! storage of the place passed for IN belongs to the output; a later read of that place, until it
//! is re-bound, reads a buffer that is no longer its own.
//!
//! An analysis on the dataflow solver ([`crate::dataflow`]). The state is, per place (a local, or
//! a field path of one or of `self`), the donations that may have given its storage away, joined
//! where branches meet, and the places whose storage it may share (`let before = x;` copies a
//! handle, `let view = &x;` borrows it). Transfers:
//! - a call of a contracted function with `aliases(OUT = IN)` donates the place passed for IN
//!   (through `&`, `&mut` and `*`, a field path, `self.buf`, an element at a constant index,
//!   `bufs[0]`, as one more projection: [`place_in`]; `x.clone()` is a value of its own),
//!   and with it every place that shares its storage;
//! - a call of a helper of the same file without a contract that donates one of its parameters or
//!   a field of `self` (its summary: what is donated at its normal exits) donates the argument;
//! - a closure detached onto another thread (`thread::spawn(move || ..)`, a scoped `s.spawn`)
//!   donates what its calls donate of the names it captures, at the spawn: it may run any time
//!   after;
//! - copies are followed into the parts of struct, tuple and array literals and `vec![..]`
//!   (`saved[0]` of `let saved = vec![x];`), and out of slice patterns (`let [a, _] = bufs;`
//!   makes `a` a copy of `bufs[0]`); an input a contract takes by reference (`&mut self`) is not
//!   donated: the caller's name holds the output;
//! - an assignment re-binds the place assigned (`x = f(x)`: donated, then re-bound), a `let` binds
//!   a new local (`let x = f(x)`: the old `x` is donated and can no longer be named);
//! - a read of a place that may be donated is a finding, once per use site: a path or field path
//!   in an expression, a store into it (`x.len = 0`, `x[i] = v`), a name in a macro's tokens, a
//!   name captured by a closure created there. Loops run to a fixpoint, so a donation in a loop
//!   that is not re-bound before the next iteration is read by that iteration.
//!
//! Limits: a read of a whole value whose field was donated (`consume(meta)` after
//! `donate(meta.buf)`) is not a finding; a closure created before the donation and called after it
//! reads what it captured where it was created, and again where it runs only when it is called
//! by the local it is bound to (`let f = || ..; .. f()`), not when it is handed on.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use syn::visit::Visit;
use syn::Expr;

use crate::analysis::{call_args, clause_label, FnCtx, FnDef};
use crate::dataflow::{self, Analysis, Base, Domain, LocalId, Place, PlaceMap, Scopes};
use crate::finding::{Finding, Label};
use crate::resolve::CallSite;
use reuse_rules::catalogue::USE_AFTER_DONATE;
use reuse_rules::contract::PlaceRoot;


/// What may have happened to a place's storage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Fact {
    /// The donations that may have given it away (indexes into [`Donate::donations`]).
    donated: BTreeSet<usize>,
    /// Places whose storage it may share: it was made from them by a copy or a reference.
    shares: BTreeSet<Place>,
}

impl Fact {
    fn is_empty(&self) -> bool {
        self.donated.is_empty() && self.shares.is_empty()
    }
}

impl Domain for Fact {
    fn join(&mut self, other: &Self) {
        self.donated.extend(other.donated.iter().copied());
        self.shares.extend(other.shares.iter().cloned());
    }
}

type State = PlaceMap<Fact>;

/// One donation: a call that gives the storage of the place passed to it to an output.
#[derive(Clone, Debug)]
struct Donation {
    /// The call, in the function being analysed, and its file (a helper's, in a summary of a
    /// helper of another file).
    call: Range<usize>,
    file: crate::source::FileRef,
    /// The place donated, as it reads there (`hidden`, `self.buf`).
    place: String,
    /// The contracted function whose output takes the storage, and a label at its `aliases` clause.
    callee: String,
    clause: Label,
    /// The call as the help names it (`dev.add_inplace_async`), and whether it returns a value.
    call_text: String,
    returns: bool,
    /// A helper of this file that donates its parameter: its name, and a label at its call that
    /// does.
    helper: Option<(String, Label)>,
    /// Made in the body of a spawned task (by range), which may run from the spawn on: its own
    /// reads, where the task is awaited and its body walked, are no uses after it.
    task: Option<Range<usize>>,
}

/// What a helper donates: places of its parameters (by position; `None`: of `self`), each with
/// the donation inside the helper. And the places of its parameters or of `self` it passes, as
/// they are, to a closure it was given and calls (`f(h)`, `f(self.hidden)`), by the closure's
/// parameter and the argument's position: the closure's parameter holds the caller's handle, and
/// donates it.
#[derive(Default, Debug)]
pub(crate) struct Summary {
    donates: BTreeMap<(Option<usize>, Vec<String>), Donation>,
    passes: BTreeMap<(usize, usize), (Option<usize>, Vec<String>)>,
}

/// Per-file memo of this rule's summaries of helpers (by definition), and whether any contract
/// donates at all.
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::HelperMemo<Arc<Summary>>,
    any_donor: std::cell::OnceCell<bool>,
}

pub(super) fn check(ctx: &FnCtx, calls: &[&Expr], out: &mut Vec<Finding>) {
    if !*ctx.summaries.donate.any_donor.get_or_init(|| ctx.index.fns.iter().any(|f| f.contract.aliases().next().is_some())) {
        return;
    }
    let mut donate = Donate::new(ctx, None, 0);
    // Only functions that call something that donates are walked.
    if !calls.iter().any(|c| donate.donates(c)) {
        return;
    }
    // A function that donates its parameter is checked at its calls as a contract is: the files
    // that call it are analysed too (a forwarder, in the check's later rounds).
    super::Forwarder::record_if(ctx, |idx, def| dataflow::memoized(&ctx.summaries.donate.helpers, (idx, 1), || summarise(ctx, def, 1)).is_some_and(|s| !s.donates.is_empty()));
    match dataflow::solve(&mut donate, ctx.sig, ctx.body, State::default()) {
        Ok(()) => out.extend(donate.findings),
        Err(dataflow::TooComplex) => out.push(super::analysis_limit(ctx, "dataflow", dataflow::MAX_STEPS, "its donations are")),
    }
}

struct Donate<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    /// The helper being summarised (None: the function being checked, which gets findings).
    def: Option<&'c FnDef<'a>>,
    depth: usize,
    donations: Vec<Donation>,
    /// The index of each donation by call and place, so that a loop's revisits find the same one.
    ids: HashMap<(usize, usize, String), usize>,
    findings: Vec<Finding>,
    /// Use sites already reported.
    seen: HashSet<(usize, usize)>,
    summary: Summary,
    /// The places handed as `&mut` to `mem::swap`/`replace`/`take` in the function, and those
    /// locked to be assigned through the guard (`*cell.borrow_mut() = v`), by range: neither reads
    /// the handle they hold.
    handles_moved: std::cell::OnceCell<HashSet<Range<usize>>>,
    /// What the place given to each `mem::replace`/`mem::take` held before (its value), by the
    /// call's range: its facts and its parts', by field path within it.
    replaced: HashMap<Range<usize>, Vec<(Vec<String>, Fact)>>,
    /// The body of the task whose calls are being read at its spawn ([`Donation::task`]).
    spawning: Option<Range<usize>>,
}

impl Analysis for Donate<'_, '_> {
    type State = State;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, self.def, self.depth, call, arg)
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    fn runs_at_drop<'e>(&self, value: &'e Expr) -> Option<&'e syn::ExprClosure> {
        super::closure_run_at_drop(self.ctx, self.def.map_or(self.ctx.self_type, |d| d.self_type.as_deref()), value)
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut State, e: &Expr) {
        match e {
            Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => {
                // `mem::swap(&mut a, &mut b)` moves handles; it reads no storage.
                if self.handles_moved().contains(&self.ctx.expr_range(e)) {
                    return;
                }
                if let Some(place) = place_in(self.ctx, scopes, e) {
                    self.read(scopes, state, &place, self.ctx.expr_range(e));
                }
            }
            Expr::Call(_) | Expr::MethodCall(_) => {
                if let Some(def) = self.def {
                    self.note_passed(scopes, def, e);
                }
                self.call(scopes, state, e);
                // (A local closure handed so runs where the solver walks it.)
                if let Some(applied) = applied_call(e).filter(|a| !matches!(a, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scopes.lookup(&i.to_string()).is_some())))) {
                    self.call(scopes, state, &applied);
                }
            }
            Expr::Assign(a) => {
                let places = dataflow::assigned_places(&a.left);
                // `x = f(x)` may share the storage of its right side; an element of a destructuring
                // assignment holds a part of it, none of a place's.
                let init = (places.len() == 1).then_some(&*a.right);
                for left in places {
                    self.stored_through(scopes, state, left);
                    if let Some(place) = place_in(self.ctx, scopes, left) {
                        // `*h = add_inplace(*h, r)` of `let h = &mut d.hidden;` writes the output
                        // back into what `h` borrows: that place holds a new value too.
                        if let Expr::Unary(u) = dataflow::strip_parens(left) {
                            if let (syn::UnOp::Deref(_), Some([source])) = (u.op, state.map.get(&place).map(|f| f.shares.iter().cloned().collect::<Vec<_>>()).as_deref()) {
                                rebind(self.ctx, scopes, state, source, init);
                            }
                        }
                        rebind(self.ctx, scopes, state, &place, init);
                    }
                }
            }
            Expr::Closure(_) => self.read_names(scopes, state, captures(e)),
            _ => {}
        }
    }

    /// `with_hidden(x, |h| add_inplace(h, r))` where `with_hidden` calls `f(h)` with its
    /// parameter: `h` is a copy of the caller's `x` (donating it donates `x`).
    fn bind_callback(&mut self, scopes: &Scopes, state: &mut State, call: &Expr, arg: usize, params: &[Option<LocalId>]) {
        let Some((callbacks, at)) = super::callbacks::param_at(self.ctx, self.def, self.depth, call, arg) else { return };
        let Some((_, _, summary)) = self.helper_summary(call) else { return };
        for (k, id) in params.iter().enumerate() {
            let (Some(id), Some((param, fields))) = (id, summary.passes.get(&(at, k))) else { continue };
            let Some(source) = callbacks.arg(call, *param).and_then(|a| place_in(self.ctx, scopes, a)) else { continue };
            rebind_from(state, &local(*id), Some(source.fields_then(fields)));
        }
    }

    fn bind(&mut self, scopes: &Scopes, state: &mut State, id: LocalId, init: Option<&Expr>) {
        rebind(self.ctx, scopes, state, &local(id), init);
        // `let old = mem::replace(&mut a, fresh);`: `old` is what `a` held, donated or not.
        if let Some(facts) = init.and_then(|i| self.replaced.get(&self.ctx.expr_range(dataflow::strip_parens(i)))) {
            for (fields, fact) in facts.iter().filter(|(_, f)| !f.is_empty()) {
                state.map.insert(local(id).fields_then(fields), fact.clone());
            }
        }
    }

    /// `if let Some(h) = self.kv`: the one name a pattern takes out of a place holds a copy of
    /// the handle in it (donating `h` donates what `self.kv` holds).
    fn bind_from(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], scrutinee: &Expr) {
        if let ([id], Some(_)) = (locals, scopes.place_of(scrutinee)) {
            rebind(self.ctx, scopes, state, &local(*id), Some(scrutinee));
        }
    }

    /// `let [a, _b] = bufs;`: each name a slice pattern binds by position is a copy of that
    /// element's handle (donating `a` donates `bufs[0]`).
    fn bind_slice(&mut self, scopes: &Scopes, state: &mut State, parts: &[(LocalId, dataflow::SlicePart)], scrutinee: &Expr) {
        let Some(whole) = place_in(self.ctx, scopes, scrutinee) else { return };
        for (id, part) in parts {
            if let dataflow::SlicePart::Element(k) = part {
                rebind_from(state, &local(*id), Some(whole.field(&format!("[{k}]"))));
            }
        }
    }

    /// `for &b in xs.iter() { add_inplace(b, r); }`: each item is a copy of a handle the
    /// collection holds, so donating it donates that element of the collection.
    fn bind_each(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], iterated: &Expr) {
        let mut collection = dataflow::strip_parens(iterated);
        loop {
            collection = match collection {
                Expr::Reference(r) => dataflow::strip_parens(&r.expr),
                Expr::MethodCall(m) if m.args.is_empty() && ["iter", "iter_mut", "into_iter", "copied", "cloned"].contains(&m.method.to_string().as_str()) => dataflow::strip_parens(&m.receiver),
                _ => break,
            };
        }
        if let ([id], Some(_)) = (locals, scopes.place_of(collection)) {
            rebind(self.ctx, scopes, state, &local(*id), Some(collection));
        }
    }

    fn macro_tokens(&mut self, scopes: &Scopes, state: &mut State, mac: &syn::Macro) {
        let mut names = Vec::new();
        token_names(&mac.tokens, &mut names);
        self.read_names(scopes, state, names);
    }

    fn exit(&mut self, _scopes: &Scopes, state: &State, _exit: &dataflow::Exit<'_>) {
        let Some(def) = self.def else { return };
        let params = dataflow::param_count(def.sig);
        for (place, fact) in &state.map {
            let param = match place.base {
                Base::Local(id) if (id as usize) < params => Some(id as usize),
                Base::SelfValue => None,
                Base::Local(_) => continue,
            };
            if let Some(first) = fact.donated.first() {
                let d = self.donations[*first].clone();
                self.summary.donates.entry((param, place.fields.clone())).or_insert(d);
            }
        }
    }
}

/// What a helper donates (`def`, a function of `ctx`'s file, `depth` helpers down).
fn summarise<'a>(ctx: &FnCtx<'a>, def: &FnDef<'a>, depth: usize) -> Option<Arc<Summary>> {
    let mut inner = Donate::new(ctx, Some(def), depth);
    if !super::callbacks::calls_a_param(def.sig, def.body) && !crate::rules::any_call(ctx, def.body, |c| inner.donates(c)) {
        return Some(Arc::new(Summary::default()));
    }
    dataflow::solve(&mut inner, def.sig, def.body, State::default()).ok().map(|()| Arc::new(inner.summary))
}

/// The place an expression names, a constant index being one more projection (`xs[0]`,
/// `layers[1].kv`): handles kept in a collection are donated one element at a time, and
/// `xs[1]` is not `xs[0]`. An index that is not a constant (`xs[i]`) names no place: `i` may
/// change between the donation and the read.
fn place_in(ctx: &FnCtx, scopes: &Scopes, e: &Expr) -> Option<Place> {
    match e {
        Expr::Paren(p) => place_in(ctx, scopes, &p.expr),
        Expr::Group(g) => place_in(ctx, scopes, &g.expr),
        Expr::Reference(r) => place_in(ctx, scopes, &r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_in(ctx, scopes, &u.expr),
        Expr::Index(ix) => {
            let k = ctx.int_value(&ix.index).filter(|_| scopes.place_of(&ix.index).is_none())?;
            Some(place_in(ctx, scopes, &ix.expr)?.field(&format!("[{k}]")))
        }
        Expr::Field(f) => {
            let name = crate::dataflow::member_name(&f.member);
            Some(place_in(ctx, scopes, &f.base)?.field(&name))
        }
        // `*cell.borrow()`, `*slot.lock().unwrap()`: what the guard guards.
        _ => match super::guard_content(e) {
            Some(content) => place_in(ctx, scopes, content),
            None => scopes.place_of(e),
        },
    }
}

fn local(id: LocalId) -> Place {
    Place { base: Base::Local(id), fields: Vec::new() }
}

/// `std::mem::swap(&mut a, &mut b)`, `mem::replace(&mut a, v)`, `mem::take(&mut a)`: which,
/// and the places it is handed mutably.
fn moved_by_mem<'e>(ctx: &FnCtx, e: &'e Expr) -> Option<(super::MemMove, Vec<&'e Expr>)> {
    let (kind, c) = super::mem_move(ctx, e)?;
    let count = if kind == super::MemMove::Swap { 2 } else { 1 };
    let places: Vec<&Expr> = c.args.iter().take(count).filter_map(|a| match dataflow::strip_parens(a) {
        Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
        _ => None,
    }).collect();
    (places.len() == count).then_some((kind, places))
}

/// `place` holds a new value (`init`, when it is an expression): nothing of it is donated any
/// more, and it shares the storage of `init` when that is a place (a copy, a reference).
fn rebind(ctx: &FnCtx, scopes: &Scopes, state: &mut State, place: &Place, init: Option<&Expr>) {
    // `let rows = h.rows;` of `rows: usize`: a number copied out shares nothing.
    let copied = init.filter(|i| !ctx.resolver.reads_scalar_field(i, ctx.self_type, ctx.env()));
    rebind_from(state, place, copied.and_then(|i| place_in(ctx, scopes, i)));
    if let Some(init) = init {
        share_parts(scopes, state, place, init);
    }
}

/// `place` holds a new value, a copy of `source` when that is known (see [`rebind`]).
fn rebind_from(state: &mut State, place: &Place, source: Option<Place>) {
    let mut shares = BTreeSet::new();
    if let Some(source) = &source {
        shares.extend(state.map.get(source).map(|f| f.shares.clone()).unwrap_or_default());
        shares.insert(source.clone());
    }
    shares.retain(|s| !s.starts_with(place));
    state.clear_under(place);
    // Copies of the old value share nothing with the name any more.
    for fact in state.map.values_mut() {
        fact.shares.retain(|s| !s.starts_with(place));
    }
    state.map.retain(|_, f| !f.is_empty());
    // A re-borrow made after a donation (`let this = &*self;`) names the donated parts too:
    // `this.buf` of a donated `self.buf`.
    if let Some(source) = source {
        let given: Vec<(Place, BTreeSet<usize>)> = state
            .map
            .iter()
            .filter(|(p, f)| p.starts_with(&source) && p.fields.len() > source.fields.len() && !f.donated.is_empty())
            .map(|(p, f)| (place.fields_then(&p.fields[source.fields.len()..]), f.donated.clone()))
            .collect();
        for (p, donated) in given {
            state.map.entry(p).or_default().donated.extend(donated);
        }
    }
    if !shares.is_empty() {
        state.map.entry(place.clone()).or_default().shares.extend(shares);
    }
}

/// The parts of a struct, tuple or array literal (or `vec![..]` of items) share the storage of
/// the places they copy: `let s = Saved { h: x };` makes `s.h` a copy of the handle `x`, as
/// `let h = x;` would, and `let saved = vec![x];` makes `saved[0]` one.
fn share_parts(scopes: &Scopes, state: &mut State, place: &Place, init: &Expr) {
    let items: Vec<Expr>;
    let parts: Vec<(String, &Expr)> = match dataflow::strip_parens(init) {
        Expr::Array(a) => a.elems.iter().enumerate().map(|(i, e)| (format!("[{i}]"), e)).collect(),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            items = match super::vec_items(&m.mac) {
                Some(super::VecItems::List(items)) => items,
                _ => Vec::new(),
            };
            items.iter().enumerate().map(|(i, e)| (format!("[{i}]"), e)).collect()
        }
        Expr::Struct(st) => st
            .fields
            .iter()
            .map(|f| {
                let name = crate::dataflow::member_name(&f.member);
                (name, &f.expr)
            })
            .collect(),
        Expr::Tuple(t) => t.elems.iter().enumerate().map(|(i, e)| (i.to_string(), e)).collect(),
        _ => return,
    };
    for (name, value) in parts {
        let part = place.field(&name);
        match scopes.place_of(value) {
            Some(source) => {
                let mut shares = state.map.get(&source).map(|f| f.shares.clone()).unwrap_or_default();
                shares.insert(source);
                shares.retain(|s| !s.starts_with(place));
                if !shares.is_empty() {
                    state.map.entry(part).or_default().shares.extend(shares);
                }
            }
            None => share_parts(scopes, state, &part, value),
        }
    }
}

impl<'c, 'a> Donate<'c, 'a> {
    fn handles_moved(&self) -> &HashSet<Range<usize>> {
        self.handles_moved.get_or_init(|| {
            let ctx = self.ctx;
            let moved = ctx.calls().iter().filter_map(|c| moved_by_mem(ctx, c)).flat_map(|(_, places)| places.into_iter().map(|p| ctx.expr_range(p)));
            let body = self.def.map_or(ctx.body, |d| d.body);
            let locked = super::exprs_in_block(body).into_iter().filter_map(|e| match e {
                Expr::Assign(a) => match dataflow::strip_parens(&a.left) {
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => super::guard_content(&u.expr),
                    _ => None,
                },
                _ => None,
            });
            moved.chain(locked.map(|content| ctx.expr_range(content))).collect()
        })
    }

    fn new(ctx: &'c FnCtx<'a>, def: Option<&'c FnDef<'a>>, depth: usize) -> Self {
        Donate { ctx, def, depth, donations: Vec::new(), ids: HashMap::new(), findings: Vec::new(), seen: HashSet::new(), summary: Summary::default(), handles_moved: std::cell::OnceCell::new(), replaced: HashMap::new(), spawning: None }
    }

    /// In a summary: a call of a parameter (a closure the helper was given) with places of
    /// parameters or of `self`, as they are, as its arguments ([`Summary::passes`]).
    fn note_passed(&mut self, scopes: &Scopes, def: &FnDef, call: &Expr) {
        let params = dataflow::param_count(def.sig);
        let Some((f, args)) = super::callbacks::called_param(scopes, params, call) else { return };
        for (k, arg) in args.into_iter().enumerate() {
            let owner = match place_in(self.ctx, scopes, arg) {
                Some(Place { base: Base::Local(id), fields }) if (id as usize) < params => (Some(id as usize), fields),
                Some(Place { base: Base::SelfValue, fields }) => (None, fields),
                _ => continue,
            };
            self.summary.passes.entry((f, k)).or_insert(owner);
        }
    }

    /// Whether a call may donate an argument: its contract aliases an input to an output, or it
    /// is a helper of this file that donates.
    fn donates(&self, call: &Expr) -> bool {
        if let Some(applied) = applied_call(call) {
            return self.donates(&applied);
        }
        if let Some((_, callee)) = self.ctx.callee(call) {
            return callee.contract.aliases().next().is_some();
        }
        self.helper_summary(call).is_some_and(|(_, _, s)| !s.donates.is_empty())
    }

    /// The helper a call designates (a function of this file, or of another file of the
    /// workspace, resolved by path): its name, whether it returns a value, and what it donates.
    fn helper_summary(&self, call: &Expr) -> Option<(String, bool, Arc<Summary>)> {
        let returns = |sig: &syn::Signature| !matches!(sig.output, syn::ReturnType::Default);
        if let Some((idx, def)) = self.ctx.helper_of(call, self.def, self.depth) {
            let summary = dataflow::memoized(&self.ctx.summaries.donate.helpers, (idx, self.depth + 1), || summarise(self.ctx, def, self.depth + 1))?;
            return Some((def.sig.ident.to_string(), returns(def.sig), summary));
        }
        let path = self.ctx.foreign_helper(call, self.def, self.depth)?;
        let (returns, summary) = dataflow::shared_memoized(&self.ctx.items.summaries.donate, &path, self.depth + 1, || {
            self.ctx.with_foreign_fn(&path, |ctx, def| Some((returns(def.sig), summarise(ctx, def, self.depth + 1)?))).flatten()
        })?;
        Some((path.last()?.clone(), returns, summary))
    }

    /// A call: what it donates.
    fn call(&mut self, scopes: &Scopes, state: &mut State, e: &Expr) {
        let ctx = self.ctx;
        let range = ctx.expr_range(e);
        // `mem::swap(&mut a, &mut b)` exchanges what the two hold; `mem::replace(&mut a, v)`
        // gives `a` the value `v`, `mem::take(&mut a)` a new default one.
        if let Some((kind, places)) = moved_by_mem(ctx, e) {
            let places: Vec<Place> = places.iter().filter_map(|p| place_in(ctx, scopes, p)).collect();
            if let [a] = places.as_slice() {
                // Its parts too: `mem::take(&mut bufs)` of a `bufs` whose element 0 was donated.
                let parts = state.map.iter().filter(|(p, _)| p.starts_with(a)).map(|(p, f)| (p.fields[a.fields.len()..].to_vec(), f.clone())).collect();
                self.replaced.insert(range.clone(), parts);
            }
            match (kind, places.as_slice(), e) {
                (super::MemMove::Swap, [a, b], _) => state.exchange(a, b),
                (super::MemMove::Replace, [a], Expr::Call(c)) => rebind(ctx, scopes, state, a, c.args.get(1)),
                (super::MemMove::Take, [a], _) => rebind(ctx, scopes, state, a, None),
                _ => {}
            }
            return;
        }
        // `thread::spawn(move || add_inplace(x, r))`: the closure runs on another thread, at any
        // time from here on, so what it donates of the names it captures may be donated here;
        // likewise a task's `async` block (`tokio::spawn(async move { .. })`).
        if let Some(body) = spawned_body(e) {
            let captured: HashSet<String> = captures(body).iter().map(|i| i.to_string()).collect();
            self.spawning = Some(ctx.expr_range(body));
            for inner in crate::rules::calls_in_expr(body) {
                let (receiver, args) = call_args(inner);
                let outer = |n: &String| captured.contains(n) || scopes.lookup(n).is_none();
                if receiver.into_iter().chain(args).all(|a| dataflow::names_read(a).iter().all(outer)) {
                    self.call(scopes, state, inner);
                }
            }
            self.spawning = None;
            return;
        }
        if let Some((site, callee)) = ctx.callee(e) {
            for (clause, alias) in callee.contract.aliases() {
                // `&mut self -> &mut Self`: the caller's name is the output.
                if callee.borrowed.iter().any(|b| b == alias.input.root_name()) {
                    continue;
                }
                let arg = match alias.input.root {
                    PlaceRoot::Param => site.arg_named(callee, alias.input.root_name()),
                    PlaceRoot::SelfField => site.self_arg(callee),
                    PlaceRoot::Static => None,
                };
                // A clone, a call, a literal: a value of its own, donated with no name left.
                let Some(mut place) = arg.and_then(|a| place_in(ctx, scopes, a)) else { continue };
                place.fields.extend(alias.input.segments.iter().skip(1).map(|s| s.text.clone()));
                let donation = Donation {
                    call: range.clone(),
                    file: ctx.file.clone(),
                    place: scopes.display(&place),
                    callee: callee.name.clone(),
                    clause: clause_label(callee, clause, format!("`{}` shares the storage of `{}`", alias.output, alias.input)),
                    call_text: call_text(ctx, &site, &callee.name),
                    returns: true,
                    helper: None,
                    task: self.spawning.clone(),
                };
                self.donate(state, &place, donation);
            }
            return;
        }
        let Some((helper, returns, summary)) = self.helper_summary(e) else { return };
        let Some(site) = CallSite::of(e) else { return };
        let (receiver, args) = call_args(e);
        for ((param, fields), inner) in &summary.donates {
            let arg = match param {
                Some(i) => args.get(*i).copied(),
                None => receiver,
            };
            let Some(mut place) = arg.and_then(|a| place_in(ctx, scopes, a)) else { continue };
            place.fields.extend(fields.iter().cloned());
            let donation = Donation {
                call: range.clone(),
                file: ctx.file.clone(),
                place: scopes.display(&place),
                callee: inner.callee.clone(),
                clause: inner.clause.clone(),
                call_text: call_text(ctx, &site, &helper),
                returns,
                helper: Some((helper.clone(), Label::new(&inner.file, inner.call.clone(), format!("`{helper}` donates `{}` here", inner.place)))),
                task: self.spawning.clone(),
            };
            self.donate(state, &place, donation);
        }
    }

    /// `place`'s storage is given away: it, the places it was made from, and every place made
    /// from any of them (or from a field inside) may be donated now.
    fn donate(&mut self, state: &mut State, place: &Place, donation: Donation) {
        let key = (donation.call.start, donation.call.end, donation.place.clone());
        let next = self.donations.len();
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.donations.push(donation);
        }
        let sources: Vec<Place> = state.map.get(place).map(|f| f.shares.iter().cloned().collect()).unwrap_or_default();
        // Other copies of the same storage share it only through a source known on every path:
        // `re` made from `a` on one branch and `im` from `a` on another never share at once.
        let mut through = vec![place.clone()];
        if let [only] = sources.as_slice() {
            through.push(only.clone());
        }
        let sharing: Vec<Place> = state
            .map
            .iter()
            .filter(|(_, f)| f.shares.iter().any(|s| through.iter().any(|g| s.starts_with(g))))
            .map(|(k, _)| k.clone())
            .collect();
        let mut given = vec![place.clone()];
        given.extend(sources);
        for p in given.into_iter().chain(sharing) {
            self.donated_param(&p, id);
            state.map.entry(p).or_default().donated.insert(id);
        }
    }

    /// In a summary: a parameter taken by value is the caller's handle, whatever the helper binds
    /// to it afterwards (`x = relu(x)` does not give the caller's storage back). Parameters behind
    /// a reference, and `self`, are read at the exits, where a write-back (`*x = relu(*x)`) counts.
    fn donated_param(&mut self, place: &Place, id: usize) {
        let Some(def) = self.def else { return };
        let Base::Local(local) = place.base else { return };
        let mut by_value = def.sig.inputs.iter().filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(!matches!(*t.ty, syn::Type::Reference(_))),
            syn::FnArg::Receiver(_) => None,
        });
        if by_value.nth(local as usize) == Some(true) {
            let d = self.donations[id].clone();
            self.summary.donates.entry((Some(local as usize), place.fields.clone())).or_insert(d);
        }
    }

    /// A store into a part of a place (`x.len = 0`, `x[i] = v`) uses the storage around it; `*x = v`
    /// replaces what `x` designates whole.
    fn stored_through(&mut self, scopes: &Scopes, state: &mut State, left: &Expr) {
        let inner = match left {
            Expr::Paren(p) => return self.stored_through(scopes, state, &p.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => return self.stored_through(scopes, state, &u.expr),
            Expr::Field(f) => &*f.base,
            Expr::Index(i) => &*i.expr,
            _ => return,
        };
        if let Some(place) = scopes.place_of(inner) {
            self.read(scopes, state, &place, self.ctx.expr_range(inner));
        }
        self.stored_through(scopes, state, inner);
    }

    /// Reads of the locals these identifiers name, where they are written.
    fn read_names(&mut self, scopes: &Scopes, state: &State, names: Vec<proc_macro2::Ident>) {
        for ident in names {
            if let Some(id) = scopes.lookup(&ident.to_string()) {
                self.read(scopes, state, &local(id), self.ctx.range(ident.span()));
            }
        }
    }

    /// A read of `place` at `range`: a finding when its storage may have been donated.
    fn read(&mut self, scopes: &Scopes, state: &State, place: &Place, range: Range<usize>) {
        if self.def.is_some() {
            return;
        }
        let Some(fact) = state.map.get(place) else { return };
        let mut donations = fact.donated.iter().map(|i| &self.donations[*i]).filter(|d| !d.task.as_ref().is_some_and(|t| t.contains(&range.start)));
        let Some(first) = donations.next() else { return };
        let others: Vec<&Donation> = donations.collect();
        if !self.seen.insert((range.start, range.end)) {
            return;
        }
        let var = scopes.display(place);
        let finding = self.finding(&var, range, first, &others);
        self.findings.push(finding);
    }

    /// The finding for a read of `var` at `range`, donated by `d` (and maybe by `others`).
    fn finding(&self, var: &str, range: Range<usize>, d: &Donation, others: &[&Donation]) -> Finding {
        let ctx = self.ctx;
        let line = ctx.line_of(d.call.start);
        // Reached through the loop's back edge: the use is before the end of the donating call.
        let when = if range.start < d.call.end { " on the next iteration of the loop" } else { "" };
        // The place read is the one donated (or inside it), or one that shares its storage.
        let own = var == d.place || var.strip_prefix(d.place.as_str()).is_some_and(|rest| rest.starts_with('.'));
        let subject = if own {
            format!("`{var}` is used{when} after it was donated")
        } else {
            format!("`{var}` is used{when} after `{}`, whose storage it shares, was donated", d.place)
        };
        let by = d.helper.as_ref().map_or(String::new(), |(h, _)| format!(" by `{h}`"));
        let label = if own {
            format!("`{var}` was donated; its buffer now belongs to the output")
        } else {
            format!("`{var}` shares the storage of `{}`, which was donated", d.place)
        };
        let mut f = Finding::new(
            &USE_AFTER_DONATE,
            format!("{subject}{by} to the output of `{}` (line {line})", d.callee),
            Label::new(ctx.file, range, label),
        );
        if !own {
            f = f.with_secondary(Label::new(ctx.file, d.call.clone(), format!("`{}` is donated here", d.place)));
        }
        if let Some((_, inner)) = &d.helper {
            f = f.with_secondary(inner.clone());
        }
        f = f.with_secondary(d.clause.clone());
        let help = match (&d.helper, own, d.returns) {
            (_, false, _) => format!("`{var}` names the donated storage: read the output of the call instead"),
            (Some((h, _)), true, false) => format!("`{h}` keeps the storage of `{var}`: pass it a clone, or do not use `{var}` after the call"),
            _ if var.contains('.') => format!("re-assign it from the output (`{var} = {}(..)`) or use the output instead", d.call_text),
            _ => format!("re-bind the name to the output (`let {var} = {}(..)`) or use the output instead", d.call_text),
        };
        f = f.with_help(help);
        // Other calls that may have donated it, on other paths (labels, not line numbers in the
        // text: the editor's re-check of one item moves labels with the code).
        for o in others {
            f = f.with_secondary(Label::new(ctx.file, o.call.clone(), format!("`{}` may also have been donated here", o.place)));
        }
        f
    }
}

/// The closure or `async` block a call detaches onto another thread or task (`thread::spawn(move
/// || ..)`, a scoped thread's `s.spawn(|| ..)`, `tokio::spawn(async move { .. })`).
fn spawned_body(e: &Expr) -> Option<&Expr> {
    let (_, args) = call_args(e);
    let spawns = dataflow::is_spawn(e) || matches!(e, Expr::MethodCall(m) if m.method == "spawn");
    let detached = |a: &&Expr| dataflow::closure_of(a).is_some() || matches!(crate::resolve::strip(a), Expr::Async(_));
    spawns.then(|| args.into_iter().find(detached)).flatten()
}

/// A function named by its path and handed to a combinator of a value made where it is
/// handed (`Some(h).map(DevBuf::relu_)`, `on.then_some(h).map(relu)`): the call it makes of
/// the value (`DevBuf::relu_(h)`), written where the path is.
fn applied_call(e: &Expr) -> Option<Expr> {
    let Expr::MethodCall(m) = e else { return None };
    if !["map", "and_then", "is_some_and", "map_or", "map_or_else"].contains(&m.method.to_string().as_str()) {
        return None;
    }
    let Some(Expr::Path(f)) = m.args.last().map(dataflow::strip_parens) else { return None };
    if f.path.segments.last().is_none_or(|s| s.ident.to_string().starts_with(char::is_uppercase)) {
        return None;
    }
    let content = match dataflow::strip_parens(&m.receiver) {
        Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some") || p.path.is_ident("Ok")) && c.args.len() == 1 => c.args.first()?,
        Expr::MethodCall(t) if t.method == "then_some" && t.args.len() == 1 => t.args.first()?,
        _ => return None,
    };
    Some(Expr::Call(syn::ExprCall { attrs: Vec::new(), func: Box::new(Expr::Path(f.clone())), paren_token: m.paren_token, args: std::iter::once(content.clone()).collect() }))
}

/// How the help writes a call: `dev.add_inplace_async`, `kv::donate`.
fn call_text(ctx: &FnCtx, site: &CallSite, name: &str) -> String {
    match site.receiver {
        Some(r) => format!("{}.{name}", ctx.source_text(r)),
        None => site.path.as_ref().map_or_else(|| name.to_string(), |p| p.join("::")),
    }
}

/// The identifiers of a macro's tokens that may name locals: not after `.` (a field or a method)
/// nor after `::` (a path).
fn token_names(ts: &proc_macro2::TokenStream, out: &mut Vec<proc_macro2::Ident>) {
    let mut after_punct = false;
    for tt in ts.clone() {
        match &tt {
            proc_macro2::TokenTree::Ident(i) if !after_punct => out.push(i.clone()),
            proc_macro2::TokenTree::Group(g) => token_names(&g.stream(), out),
            _ => {}
        }
        after_punct = matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':');
    }
}

/// The names a closure (or an `async` block) reads from around it, with where: every
/// single-name path and macro token in its body that no pattern of it binds (its parameters,
/// its `let`s, its arms).
fn captures(body: &Expr) -> Vec<proc_macro2::Ident> {
    #[derive(Default)]
    struct Names {
        used: Vec<proc_macro2::Ident>,
        bound: HashSet<String>,
    }
    impl<'ast> Visit<'ast> for Names {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let (Some(ident), None) = (p.path.get_ident(), &p.qself) {
                self.used.push(ident.clone());
            }
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.bound.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            token_names(&m.tokens, &mut self.used);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut v = Names::default();
    v.visit_expr(body);
    let Names { used, bound } = v;
    used.into_iter().filter(|i| !bound.contains(&i.to_string())).collect()
}
