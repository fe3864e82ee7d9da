//! Check for `fallback_index`: the index argument of a `writes(P[IDX])` callee may hold a
//! fallback default that is not the declared sentinel. Index buffers with a `skip` sentinel are
//! `pad_to_null_block`'s (a fallback to the null block there); this rule takes scalar indexes,
//! and buffers of contracts without a sentinel.
//!
//! An analysis on the dataflow solver ([`crate::dataflow`]): the state is, per place (a local or
//! a field path of one), the fallbacks its value may come from: `unwrap_or(c)`,
//! `unwrap_or_default()` (0 for one index, empty for a whole index buffer: see
//! [`ContractedFn::index_is_buffer`](crate::index::ContractedFn::index_is_buffer)), `map_or(c,
//! ..)`, `map_or_else(|| c, ..)`, `unwrap_or_else(|| c)`, a clamp's lower bound (`s.max(0)`,
//! `s.clamp(0, hi)`), the constant branches of a `match`,
//! an `if let` or an `if`/`else` whose other branches are not constant, carried through index
//! arithmetic by the operand that holds the block id ([`Fallbacks::arithmetic_value`]), blocks, casts,
//! conversions, closures run in place, struct literals (`StepMeta { block: .. }` into
//! `meta.block`) and the entries of a collected or pushed buffer. Branches join, so a fallback
//! assigned on one branch reaches the call; an assignment on every path replaces it; a
//! shadowing `let` is a new local. A helper without a contract is summarised bottom-up by what
//! it returns: its own fallbacks and the arguments it passes through. A fallback of a helper of
//! this file is reported where it is written; one of a helper of another file (reached by path,
//! summarised in that file's context) at the call of the helper, with a label there ([`At`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use syn::Expr;

use crate::analysis::{call_args, clause_label, FnCtx, FnDef};
use crate::dataflow::{self, Analysis, Base, LocalId, MaySet, Place, PlaceMap, Scopes};
use crate::finding::{Finding, Label};
use crate::resolve::strip;
use super::InFile;
use reuse_rules::catalogue::FALLBACK_INDEX;

/// Where a value may come from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Src {
    /// A constant that stands in for a missing entry: where it is written, as written, its value;
    /// `scaled`: the index is computed from it (`block * BS + off`), so even the sentinel is no
    /// longer the sentinel there.
    Fallback { at: At, text: Arc<str>, value: i128, scaled: bool },
    /// `unwrap_or_default()` of a value of unknown type: 0 for one index, an empty collection
    /// (no write at all) for a whole index buffer; an entry of a buffer is one index.
    Default { at: At },
    /// In a summary: whatever the helper's parameter (at this field path) held.
    Param(usize, Vec<String>),
    /// The value is a buffer of indexes (`collect()`, `vec![..]`), not one index.
    Buffer,
}

/// Where a fallback is written: in the function's file, or in a helper of another file
/// (`file`), returned through the call `via` of the function being checked (its range there
/// and the helper's name), where the finding is reported.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct At {
    start: usize,
    end: usize,
    file: Option<InFile>,
    via: Option<(usize, usize, Arc<str>)>,
}

impl At {
    fn new(r: Range<usize>) -> At {
        At { start: r.start, end: r.end, file: None, via: None }
    }
}

type Srcs = MaySet<Src>;

type State = PlaceMap<Srcs>;

/// Per-file memo of this rule's summaries of helpers: what each returns.
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::HelperMemo<Arc<Summary>>,
    /// Whether each helper of the file calls a writer, a few helpers deep (from names).
    reaching: super::ReachMemo,
}

/// What a helper returns, and what it leaves in the fields of `self` and of its parameters
/// (`fn locate(&mut self, ..) { self.cur_block = table.get(i).copied().unwrap_or(0); }`: a later
/// `self.pool.write(self.cur_block, ..)` of its caller writes the fallback).
#[derive(Debug, Default)]
pub(super) struct Summary {
    returns: BTreeSet<Src>,
    /// By parameter (position; `None`: `self`) and field path, at its normal exits.
    stores: BTreeMap<(Option<usize>, Vec<String>), BTreeSet<Src>>,
    /// What it passes to a closure it was given and calls (`f(table.get(i).copied().unwrap_or(0))`),
    /// by the closure's parameter position and the argument's: bound to the closure's parameters
    /// where a caller's closure runs ([`Analysis::bind_callback`]).
    passes: BTreeMap<(usize, usize), BTreeSet<Src>>,
    /// The parameters (position, field path) it hands on as they are to a writer's index
    /// (`fn put(pool: &mut Pool, b: usize) { pool.write_block(b, 1.0) }`): a caller's fallback
    /// passed there is written there ([`Fallbacks::check_forwarded`]).
    forwards: Vec<Forward>,
    /// A method's receiver is its parameter at this position, after the others: a field of
    /// `self` it reads and did not write is the caller's (`fn apply(self, pool: &mut Pool) {
    /// pool.write_block(self.block, ..) }` hands `w.block` on at `w.apply(pool)`).
    receiver_at: Option<usize>,
    /// A setter that returns its receiver (`fn block(mut self, b: usize) -> Self { self.block =
    /// b; self }`): a chain of them builds one value, each leaving its stores in it.
    returns_self: bool,
}

/// A parameter of a helper that reaches a writer's index.
#[derive(Debug, Clone)]
struct Forward {
    param: usize,
    /// The parameter's name, as the helper's signature writes it (for the finding's message).
    name: String,
    fields: Vec<String>,
    to: Arc<Writer>,
}

/// A writer's index, as a finding describes it: the writer, its index parameter and place as
/// written in its contract, the sentinel it skips, and the helpers the value goes through
/// (`put` hands `b` to `write_block`).
#[derive(Debug, Clone)]
struct Writer {
    name: String,
    param: String,
    place: String,
    skip: Option<String>,
    sentinel: Option<i128>,
    buffer: bool,
    clause: Label,
    through: Vec<(String, String)>,
}

/// A helper a call designates: its name, its summary, whether it is of another file.
type FoundHelper = (String, Arc<Summary>, bool);

/// Methods whose value is their receiver's, converted.
const PASS_THROUGH: &[&str] = &["copied", "cloned", "clone", "into", "try_into", "unwrap", "expect", "to_owned", "iter", "into_iter", "as_slice", "to_vec"];

/// Reports the fallbacks that reach a writer's index, and returns the arguments they reach (by
/// byte range): the bug is the fallback, reported once here, not again as a write of the null
/// block at the call (`forbidden_write::check_calls`).
pub(super) fn check(ctx: &FnCtx, calls: &[&Expr], out: &mut Vec<Finding>) -> HashSet<(usize, usize)> {
    // Only functions that call a writer, or a helper that may hand an index on to one (from
    // names: most helpers of most files call none): one of the file, or one of another file
    // found to in an earlier round of the check.
    let writes = |c: &Expr, _: &str| ctx.callee(c).is_some_and(|(_, f)| f.contract.writes().next().is_some());
    let known = |name: &str| ctx.items.summaries.known_forwarders.read().is_ok_and(|k| k.contains(name));
    let forwards = |c: &Expr| {
        let Some(site) = crate::resolve::CallSite::of(c) else { return false };
        !call_args(c).1.is_empty() && (super::may_call_forwarder(ctx, &site, &known) || ctx.fns.by_name.get(&site.name).is_some_and(|defs| defs.iter().any(|&i| super::helper_reaches(ctx, i, &ctx.summaries.fallback.reaching, &writes, 0))))
    };
    if !calls.iter().any(|c| writes(c, "") || forwards(c)) {
        return HashSet::new();
    }
    // The function hands a parameter on to a writer's index: the files calling it are analysed.
    super::Forwarder::record_if(ctx, |idx, def| dataflow::param_count(def.sig) > 0 && dataflow::memoized(&ctx.summaries.fallback.helpers, (idx, 1), || summarise(ctx, def, 1)).is_some_and(|s| !s.forwards.is_empty()));
    let mut a = Fallbacks::new(ctx, None, 0);
    match dataflow::solve(&mut a, ctx.sig, ctx.body, State::default()) {
        Ok(()) => out.extend(a.findings),
        Err(dataflow::TooComplex) => out.push(super::analysis_limit(ctx, "dataflow", dataflow::MAX_STEPS, "its write indexes are")),
    }
    a.reported_args
}

struct Fallbacks<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    /// The helper being summarised (None: the function being checked, which gets findings).
    def: Option<&'c FnDef<'a>>,
    depth: usize,
    /// Names bound by the closures whose bodies are being evaluated: not the locals around them.
    masked: Vec<String>,
    /// In a summary: what the helper returns and leaves in fields (see [`Summary`]).
    summary: Summary,
    findings: Vec<Finding>,
    /// (call, fallback) pairs already reported (loops revisit their calls).
    seen: HashSet<(usize, usize, usize, usize)>,
    /// The index arguments a finding was reported for, by byte range.
    reported_args: HashSet<(usize, usize)>,
    /// The constant each local bound to a closure returns (`let default_block = || NULL_BLOCK;`),
    /// for `unwrap_or_else(default_block)`.
    closure_constants: HashMap<LocalId, Src>,
    /// Locals bound to a constant (until assigned), by the constant as written there.
    const_locals: HashMap<LocalId, Src>,
    /// Locals bound to a whole value's `unwrap_or_default()` (`let table =
    /// tables.get(&s).cloned().unwrap_or_default();`), by where that default is written: walked
    /// by a `for`, the default is an empty collection, no entry.
    defaulted: HashMap<LocalId, (usize, usize)>,
    /// The value each branch of an `if`/`match` ends with, read where the branch ends (what
    /// its condition or pattern told holds there: `if b == PAD { PAD } else { b * BS + off }`
    /// takes no fallback `PAD` into the product), by the value's range.
    /// Taken when read, so that a branch not walked on a later pass is read as written.
    branch_tails: std::cell::RefCell<HashMap<(usize, usize), BTreeSet<Src>>>,
    /// The value of each call of a closure bound to a local (`block_of(p)` of `let block_of =
    /// |pos| table.get(pos).copied().unwrap_or(0);`), by the call's byte range: read where the
    /// closure ran, with its parameters bound.
    call_values: HashMap<(usize, usize), BTreeSet<Src>>,
    /// [`Fallbacks::helper_summary`] of each call, by its byte range.
    helpers: std::cell::RefCell<HashMap<(usize, usize), Option<FoundHelper>>>,
    /// In a summary: the constants returned alone (`return 0;`), and whether an exit returns
    /// anything else.
    constant_exits: BTreeSet<Src>,
    other_exit: bool,
}

impl Analysis for Fallbacks<'_, '_> {
    type State = State;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, self.def, self.depth, call, arg)
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    /// `t.with_block(i, |b| pool.write(b, row))`: `b` holds what `with_block` passes to its
    /// closure, a fallback of its own included.
    fn bind_callback(&mut self, scopes: &Scopes, state: &mut State, call: &Expr, arg: usize, params: &[Option<LocalId>]) {
        let Some((_, at)) = super::callbacks::param_at(self.ctx, self.def, self.depth, call, arg) else { return };
        let Some((name, summary, elsewhere)) = self.helper_summary(call) else { return };
        for (k, local) in params.iter().enumerate() {
            let (Some(local), Some(passed)) = (local, summary.passes.get(&(at, k))) else { continue };
            let v = self.in_caller(scopes, state, call, (&name, &summary, elsewhere), passed);
            state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, MaySet(v));
        }
    }

    fn call_value(&mut self, scopes: &Scopes, state: &mut State, call: &Expr, value: &Expr) {
        let v = self.eval(scopes, state, value);
        let r = self.ctx.expr_range(call);
        self.call_values.insert((r.start, r.end), v);
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut State, e: &Expr) {
        // A closure kept for later (or an `async` block) calls what its body calls when it runs;
        // the names it binds itself read as unknown there.
        if let (None, Some((body, bound))) = (self.def, super::deferred_body(e)) {
            let outer = self.masked.len();
            self.masked.extend(bound);
            for sub in body.into_iter().filter(|s| matches!(s, Expr::Call(_) | Expr::MethodCall(_))) {
                self.check_call(scopes, state, sub);
            }
            self.masked.truncate(outer);
        }
        match e {
            Expr::Call(_) | Expr::MethodCall(_) => {
                self.check_call(scopes, state, e);
                self.check_forwarded(scopes, state, e);
                if let Some((param, args)) = self.def.and_then(|d| super::callbacks::called_param(scopes, dataflow::param_count(d.sig), e)) {
                    for (k, arg) in args.into_iter().enumerate() {
                        let v = self.eval(scopes, state, arg);
                        self.summary.passes.entry((param, k)).or_default().extend(v);
                    }
                }
                self.helper_stores(scopes, state, e);
                // Entries pushed into a buffer.
                if let Expr::MethodCall(m) = e {
                    if m.method == "push" {
                        if let (Some(place), Some(v)) = (scopes.place_of(&m.receiver), m.args.first()) {
                            let srcs = self.buffer_of_items(scopes, state, std::iter::once(v));
                            state.map.entry(place).or_default().0.extend(srcs);
                        }
                    }
                }
            }
            Expr::Assign(a) => {
                if let Some(place) = scopes.place_of(&a.left) {
                    if let (Base::Local(id), true) = (&place.base, place.fields.is_empty()) {
                        self.const_locals.remove(id);
                    }
                    let v = self.eval(scopes, state, &a.right);
                    self.store(scopes, state, &place, &a.right, v);
                } else if let Expr::Index(ix) = &*a.left {
                    // An entry stored into a buffer of indexes.
                    if let Some(place) = scopes.place_of(&ix.expr) {
                        let mut srcs = entries(self.eval(scopes, state, &a.right));
                        srcs.insert(Src::Buffer);
                        state.map.entry(place).or_default().0.extend(srcs);
                    }
                }
            }
            _ => {}
        }
    }

    fn bind(&mut self, scopes: &Scopes, state: &mut State, local: LocalId, init: Option<&Expr>) {
        let place = Place { base: Base::Local(local), fields: Vec::new() };
        state.clear_under(&place);
        self.closure_constants.remove(&local);
        self.const_locals.remove(&local);
        self.defaulted.remove(&local);
        let Some(init) = init else { return };
        if let Some(at) = self.whole_default(scopes, init) {
            self.defaulted.insert(local, at);
        }
        if let Some(constant) = dataflow::closure_of(init).and_then(|c| self.constant(super::tail(&c.body))) {
            self.closure_constants.insert(local, constant);
        }
        // `let fallback = NULL_BLOCK;`: an arm that gives `fallback` gives that constant.
        if let Some(constant) = self.constant(init) {
            self.const_locals.insert(local, constant);
        }
        let v = self.eval(scopes, state, init);
        self.store(scopes, state, &place, init, v);
    }

    /// `let (b, off) = table.get(i).map(|&b| (b, i % BS)).unwrap_or((0, 0));`: each name holds
    /// its element of the fallback tuple too. `let (src, dst) = pairs.map(|..| (s,
    /// d.unwrap_or(0))).unzip()`: each buffer holds the entries of one element of what the
    /// closure returns.
    fn bind_parts(&mut self, scopes: &Scopes, state: &mut State, parts: &[(LocalId, Vec<String>)], scrutinee: &Expr) {
        let unzipped = dataflow::unzipped(scrutinee);
        let tuple = match unzipped {
            Some(c) => super::tail(&c.body),
            None => {
                let Expr::MethodCall(m) = strip(scrutinee) else { return };
                match (m.method.to_string().as_str(), m.args.first().map(strip)) {
                    ("unwrap_or", Some(t)) => t,
                    ("unwrap_or_else", Some(Expr::Closure(c))) => super::tail(&c.body),
                    _ => return,
                }
            }
        };
        let Expr::Tuple(tuple) = strip(tuple) else { return };
        for (local, path) in parts {
            let [at] = &path[..] else { continue };
            let Some(element) = at.parse::<usize>().ok().and_then(|i| tuple.elems.iter().nth(i)) else { continue };
            let place = Place { base: Base::Local(*local), fields: Vec::new() };
            match unzipped {
                Some(c) => {
                    let held = entries(self.eval_masked(scopes, state, element, super::names_bound_in(c)));
                    state.map.insert(place, MaySet(held));
                }
                None => {
                    if let Some(constant) = self.constant(element) {
                        state.map.entry(place).or_default().0.insert(constant);
                    }
                }
            }
        }
    }

    /// A branch's value where the branch ends (see `branch_tails`).
    fn block_value(&mut self, scopes: &Scopes, state: &mut State, value: &Expr) {
        let ended = self.eval(scopes, state, value);
        self.branch_tails.borrow_mut().insert(range_key(self.ctx.expr_range(value)), ended);
    }

    /// `for &b in &blocks { pool.write(b, ..) }`: each round's block is an entry of the buffer,
    /// with the fallbacks its entries may hold.
    fn bind_each(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], iterated: &Expr) {
        // `for (&b, row) in blocks.iter().zip(rows)`: each side's name takes an entry of its side.
        let sides: Vec<(LocalId, &Expr)> = match (locals, strip(iterated)) {
            ([local], _) => vec![(*local, iterated)],
            ([first, .., last], Expr::MethodCall(m)) if m.method == "zip" && m.args.len() == 1 => vec![(*first, &*m.receiver), (*last, &m.args[0])],
            _ => return,
        };
        for (local, side) in sides {
            let empty = self.whole_default(scopes, side);
            let entries: BTreeSet<Src> = self.eval(scopes, state, side).into_iter().filter(|s| *s != Src::Buffer && !matches!(s, Src::Default { at } if empty == Some((at.start, at.end)))).collect();
            if !entries.is_empty() {
                state.map.insert(Place { base: Base::Local(local), fields: Vec::new() }, MaySet(entries));
            }
        }
    }

    /// `if b != NULL_BLOCK { pool.write(b, ..) }`, `if b == NULL_BLOCK { return; }`: where the
    /// index is known not to be a constant, that fallback is not there.
    fn assume(&mut self, scopes: &Scopes, state: &mut State, cond: &Expr, holds: bool) {
        let Expr::Binary(b) = strip(cond) else { return };
        // The orderings of the index against the constant under which the comparison holds,
        // written with the index on the left.
        let (place, value, flipped) = match (scopes.place_of(&b.left), scopes.place_of(&b.right)) {
            (Some(p), None) => (p, self.ctx.int_value(&b.right), false),
            (None, Some(p)) => (p, self.ctx.int_value(&b.left), true),
            _ => return,
        };
        let (Some(value), Some(srcs)) = (value, state.map.get_mut(&place)) else { return };
        retain_possible(&mut srcs.0, &b.op, flipped, value, holds);
    }

    fn predicate(&mut self, call: &Expr, depth: usize) -> Option<dataflow::Predicate> {
        super::predicate_of(self.ctx, call, self.def, self.depth + depth)
    }

    fn exit(&mut self, scopes: &Scopes, state: &State, exit: &dataflow::Exit<'_>) {
        // A constant arm is a fallback only next to its siblings (`Some(&b) => b, None => 0`).
        let Some(def) = self.def else { return };
        // So is a constant exit next to the others (`if b.is_empty() { return 0; } b[b.len() -
        // 1]`, `None => return 0,`): kept apart until the solve ends ([`summarise`]).
        match (exit.branch_of, exit.value) {
            (None, Some(v)) if self.constant(super::tail(v)).is_some() => self.constant_exits.extend(self.constant(super::tail(v))),
            (branches, value) => {
                self.other_exit |= value.is_some();
                if let Some(v) = branches.or(value) {
                    let v = self.eval(scopes, state, v);
                    self.summary.returns.extend(v);
                }
            }
        }
        let params = dataflow::param_count(def.sig);
        for (place, srcs) in &state.map {
            let owner = match place.base {
                Base::SelfValue => None,
                Base::Local(id) if (id as usize) < params => Some(id as usize),
                Base::Local(_) => continue,
            };
            let kept: BTreeSet<Src> = srcs.0.iter().filter(|s| !matches!(s, Src::Param(i, f) if Some(*i) == owner && *f == place.fields)).cloned().collect();
            if !place.fields.is_empty() && !kept.is_empty() {
                self.summary.stores.entry((owner, place.fields.clone())).or_default().extend(kept);
            }
        }
    }
}

impl<'c, 'a> Fallbacks<'c, 'a> {
    /// Where the `unwrap_or_default()` is written whose value a collection walked whole is
    /// (`tables.get(&s).map(Vec::as_slice).unwrap_or_default()`, `&table` of a local bound to
    /// one, through `iter()`, `into_iter()`, `copied()`, `cloned()`), as [`Src::Default`] has it.
    fn whole_default(&self, scopes: &Scopes, e: &Expr) -> Option<(usize, usize)> {
        match strip(e) {
            Expr::Reference(r) => self.whole_default(scopes, &r.expr),
            Expr::MethodCall(m) if m.args.is_empty() && ["iter", "into_iter", "copied", "cloned"].contains(&m.method.to_string().as_str()) => self.whole_default(scopes, &m.receiver),
            Expr::MethodCall(m) if m.args.is_empty() && m.method == "unwrap_or_default" => Some((self.ctx.range(m.method.span()).start, self.ctx.expr_range(e).end)),
            p @ Expr::Path(_) => super::whole_local(scopes, p).and_then(|id| self.defaulted.get(&id).copied()),
            _ => None,
        }
    }

    /// The analysis of the function checked (`def`: `None`) or of a helper summarised.
    fn new(ctx: &'c FnCtx<'a>, def: Option<&'c FnDef<'a>>, depth: usize) -> Self {
        Fallbacks {
            ctx,
            def,
            depth,
            masked: Vec::new(),
            summary: Summary::default(),
            findings: Vec::new(),
            seen: HashSet::new(),
            reported_args: HashSet::new(),
            closure_constants: HashMap::new(),
            const_locals: HashMap::new(),
            defaulted: HashMap::new(),
            branch_tails: Default::default(),
            call_values: HashMap::new(),
            helpers: Default::default(),
            constant_exits: BTreeSet::new(),
            other_exit: false,
        }
    }

    /// `place` holds `v`, the value of `init`; the fields of a struct literal and the elements of a
    /// tuple go to the place's fields (`.pos.block` of `Step { pos: Pos { block: .. } }`, `.0`).
    fn store(&self, scopes: &Scopes, state: &mut State, place: &Place, init: &Expr, v: BTreeSet<Src>) {
        state.clear_under(place);
        if !v.is_empty() {
            state.map.insert(place.clone(), MaySet(v));
        }
        let parts: Vec<(String, &Expr)> = match strip(init) {
            Expr::Struct(s) => s
                .fields
                .iter()
                .filter_map(|f| match &f.member {
                    syn::Member::Named(name) => Some((name.to_string(), &f.expr)),
                    syn::Member::Unnamed(_) => None,
                })
                .collect(),
            Expr::Tuple(t) => t.elems.iter().enumerate().map(|(i, el)| (i.to_string(), el)).collect(),
            _ => Vec::new(),
        };
        for (name, expr) in parts {
            let fv = self.eval(scopes, state, expr);
            self.store(scopes, state, &place.field(&name), expr, fv);
        }
        for (fields, fv) in self.chain_fields(scopes, state, init) {
            if !fv.is_empty() {
                state.map.insert(place.fields_then(&fields), MaySet(fv));
            }
        }
    }

    /// The fields that a chain of setters returning their receiver gives the value it builds
    /// (`BlockWrite::new(row).block(b)`: `.block` holds `b`), the last setter of each field first.
    fn chain_fields(&self, scopes: &Scopes, state: &State, e: &Expr) -> Vec<(Vec<String>, BTreeSet<Src>)> {
        let mut out: Vec<(Vec<String>, BTreeSet<Src>)> = Vec::new();
        let mut at = strip(e);
        while let Expr::MethodCall(m) = at {
            let Some((name, summary, elsewhere)) = self.helper_summary(at).filter(|(_, s, _)| s.returns_self) else { break };
            for ((owner, fields), srcs) in &summary.stores {
                if owner.is_none() && !out.iter().any(|(f, _)| f == fields) {
                    out.push((fields.clone(), self.in_caller(scopes, state, at, (&name, &summary, elsewhere), srcs)));
                }
            }
            at = strip(&m.receiver);
        }
        out
    }

    /// What a place holds: its own entry, else the nearest whole value it is part of. In a
    /// summary, a parameter not written here holds what the caller passed.
    fn read(&self, state: &State, place: &Place) -> BTreeSet<Src> {
        for n in (0..=place.fields.len()).rev() {
            let prefix = Place { base: place.base.clone(), fields: place.fields[..n].to_vec() };
            if let Some(s) = state.map.get(&prefix) {
                return s.0.clone();
            }
        }
        match (self.def, &place.base) {
            (Some(def), Base::Local(id)) if (*id as usize) < dataflow::param_count(def.sig) => [Src::Param(*id as usize, place.fields.clone())].into(),
            (Some(def), Base::SelfValue) if def.has_receiver() && !place.fields.is_empty() => [Src::Param(dataflow::param_count(def.sig), place.fields.clone())].into(),
            _ => BTreeSet::new(),
        }
    }

    /// Whether a place starts from a name bound inside what is being read (an arm, a block, a
    /// closure), so not from the local of that name around it.
    fn masks(&self, scopes: &Scopes, place: &Place) -> bool {
        matches!(place.base, Base::Local(id) if self.masked.iter().any(|m| m == scopes.name(id)))
    }

    fn fallback(&self, at: Range<usize>, text: &str, value: i128) -> Src {
        Src::Fallback { at: At::new(at), text: text.into(), value, scaled: false }
    }

    /// A constant written at `e` (or referenced: `unwrap_or(&0)`), or returned by a helper of
    /// the file whose body is that constant (`unwrap_or(null_block())`, `|| self.null_block()`),
    /// as a fallback.
    fn constant(&self, e: &Expr) -> Option<Src> {
        let mut e = strip(e);
        while let Expr::Reference(r) = e {
            e = strip(&r.expr);
        }
        // `unwrap_or(usize::default())`, `unwrap_or(Default::default())`, `unwrap_or(T::zero())`.
        let zero = || super::zero_call(e).filter(|(owner, f)| !super::owns_zero(self.ctx, owner, f)).map(|_| 0);
        let value = self.ctx.int_value(e).or_else(|| self.returned_constant(e)).or_else(zero)?;
        Some(self.fallback(self.ctx.expr_range(e), &self.ctx.source_text(e), value))
    }

    /// `|&b| b != NULL_BLOCK`, `|b| *b > 0`: a predicate that compares its one item with a
    /// constant, as (operator, whether the item is on the right, the constant).
    fn compares_its_item<'x>(&self, c: &'x syn::ExprClosure) -> Option<(&'x syn::BinOp, bool, i128)> {
        let [param] = c.inputs.iter().collect::<Vec<_>>()[..] else { return None };
        let mut pat = param;
        while let syn::Pat::Reference(r) = pat {
            pat = &r.pat;
        }
        let syn::Pat::Ident(item) = pat else { return None };
        let Expr::Binary(b) = strip(super::tail(&c.body)) else { return None };
        let is_item = |e: &Expr| matches!(super::strip_cast(strip(e)), Expr::Path(p) if p.path.is_ident(&item.ident));
        match (is_item(&b.left), is_item(&b.right)) {
            (true, false) => Some((&b.op, false, self.ctx.int_value(strip(&b.right))?)),
            (false, true) => Some((&b.op, true, self.ctx.int_value(strip(&b.left))?)),
            _ => None,
        }
    }

    /// The branch of `if b == NULL_BLOCK { alloc() } else { b }` (or `if b != C { b } else {
    /// .. }`) whose value is the compared local, where the condition rules out every constant
    /// it may hold there: that branch gives no fallback (0 for then, 1 for else).
    fn ruled_out_branch(&self, scopes: &Scopes, state: &State, i: &syn::ExprIf) -> Option<usize> {
        let (_, els) = i.else_branch.as_ref()?;
        let Expr::Block(els) = &**els else { return None };
        let Expr::Binary(cond) = strip(&i.cond) else { return None };
        let local = |e: &Expr| match super::strip_cast(strip(e)) {
            Expr::Path(p) => p.path.get_ident().cloned(),
            _ => None,
        };
        let (name, flipped, bound) = if let (Some(x), Some(v)) = (local(&cond.left), self.ctx.int_value(strip(&cond.right))) {
            (x, false, v)
        } else if let (Some(x), Some(v)) = (local(&cond.right), self.ctx.int_value(strip(&cond.left))) {
            (x, true, v)
        } else {
            return None;
        };
        [&i.then_branch, &els.block].into_iter().enumerate().find_map(|(k, block)| {
            let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last() else { return None };
            if local(tail).as_ref() != Some(&name) {
                return None;
            }
            let mut srcs = self.eval(scopes, state, tail);
            if let Some(id) = scopes.lookup(&name.to_string()) {
                srcs.extend(self.const_locals.get(&id).cloned());
            }
            let constant = |s: &Src| matches!(s, Src::Fallback { .. } | Src::Default { .. });
            let held = srcs.iter().filter(|s| constant(s)).count();
            retain_possible(&mut srcs, &cond.op, flipped, bound, k == 0);
            (held > 0 && !srcs.iter().any(constant)).then_some(k)
        })
    }

    /// The constant a block's value is through a local of its own (`{ let f = NULL_BLOCK; f }`),
    /// reported where the local was bound to it.
    fn block_local_constant(&self, e: &Expr) -> Option<Src> {
        let Expr::Block(b) = strip(e) else { return None };
        let (Some(syn::Stmt::Expr(tail, None)), earlier) = (b.block.stmts.last(), &b.block.stmts[..b.block.stmts.len().saturating_sub(1)]) else { return None };
        let Expr::Path(p) = strip(tail) else { return None };
        let name = p.path.get_ident()?;
        let assigned = |s: &syn::Stmt| matches!(s, syn::Stmt::Expr(Expr::Assign(a), _) if matches!(strip(&a.left), Expr::Path(l) if l.path.is_ident(name)));
        let (at, local) = earlier.iter().enumerate().rev().find_map(|(i, s)| match s {
            syn::Stmt::Local(l) if matches!(&l.pat, syn::Pat::Ident(id) if id.ident == *name) => Some((i, l)),
            _ => None,
        })?;
        if earlier[at + 1..].iter().any(assigned) {
            return None;
        }
        self.constant(&local.init.as_ref()?.expr)
    }

    /// The constant a helper of this file returns, where its body is that constant alone
    /// (`fn null_block() -> usize { 0 }`).
    fn returned_constant(&self, call: &Expr) -> Option<i128> {
        if !matches!(call, Expr::Call(_) | Expr::MethodCall(_)) || !crate::analysis::call_args(call).1.is_empty() {
            return None;
        }
        match self.ctx.helper_of(call, self.def, self.depth) {
            Some((_, def)) => match def.body.stmts.as_slice() {
                [syn::Stmt::Expr(tail, None)] => self.ctx.int_value(tail),
                _ => None,
            },
            // A function of another file (`unwrap_or_else(kv::reserved_block)`).
            None if matches!(call, Expr::Call(_)) => self.ctx.int_value(call),
            None => None,
        }
    }

    /// Where the value of an expression may come from.
    fn eval(&self, scopes: &Scopes, state: &State, e: &Expr) -> BTreeSet<Src> {
        match e {
            Expr::Paren(p) => self.eval(scopes, state, &p.expr),
            Expr::Group(g) => self.eval(scopes, state, &g.expr),
            Expr::Reference(r) => self.eval(scopes, state, &r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.eval(scopes, state, &u.expr),
            Expr::Try(t) => self.eval(scopes, state, &t.expr),
            Expr::Await(a) => self.eval(scopes, state, &a.base),
            Expr::Cast(c) => self.eval(scopes, state, &c.expr),
            Expr::Block(b) => self.tail_value(scopes, state, &b.block),
            Expr::Path(_) | Expr::Field(_) => scopes.place_of(e).filter(|p| !self.masks(scopes, p)).map(|p| self.read(state, &p)).unwrap_or_default(),
            Expr::Match(m) => self.branches_value(scopes, state, m.arms.iter().map(|a| (Some(&*a.body), super::pattern_names(&a.pat))).collect()),
            Expr::If(i) => match if_branches(i) {
                Some(mut branches) => {
                    if let Some(k) = self.ruled_out_branch(scopes, state, i) {
                        branches[k].0 = None;
                    }
                    self.branches_value(scopes, state, branches)
                }
                None => BTreeSet::new(),
            },
            Expr::Binary(b) => self.arithmetic_value(scopes, state, b),
            // A buffer built of indexes (`&[b]`, `vec![first, b]`, `[b; n]`): its entries are
            // what the items may be.
            Expr::Macro(m) => match super::vec_items(&m.mac) {
                Some(super::VecItems::List(items)) => self.buffer_of_items(scopes, state, items.iter()),
                Some(super::VecItems::Repeat(r)) => self.buffer_of_items(scopes, state, std::iter::once(&*r.expr)),
                // `slot_of!(table, i)` of the file's or the crate's macros: what its expansion
                // ends with (the solver walked it where it is called).
                None => match self.ctx.fns.macros.expansion(&m.mac) {
                    Some(expanded) => self.eval(scopes, state, &expanded),
                    None => BTreeSet::new(),
                },
            },
            Expr::Array(a) => self.buffer_of_items(scopes, state, a.elems.iter()),
            Expr::Repeat(r) => self.buffer_of_items(scopes, state, std::iter::once(&*r.expr)),
            Expr::Call(c) => self.eval_call(scopes, state, e, c),
            Expr::MethodCall(m) => self.eval_method(scopes, state, e, m),
            _ => BTreeSet::new(),
        }
    }

    /// A buffer whose entries are `items`.
    fn buffer_of_items<'e>(&self, scopes: &Scopes, state: &State, items: impl Iterator<Item = &'e Expr>) -> BTreeSet<Src> {
        let mut srcs: BTreeSet<Src> = items.flat_map(|item| entries(self.eval(scopes, state, item))).collect();
        srcs.insert(Src::Buffer);
        srcs
    }

    /// The value of a `match` or an `if`/`else` chain from its branches (each its tail value, the
    /// names its pattern and block bind masked): a constant branch stands in for the entry the
    /// other branches take; all constant, the branches are a table, not a fallback.
    fn branches_value(&self, scopes: &Scopes, state: &State, branches: Vec<(Option<&Expr>, HashSet<String>)>) -> BTreeSet<Src> {
        // A constant, or a local bound to one (`None => fallback` of `let fallback = NULL_BLOCK;`:
        // the constant where the local was bound to it).
        let local_constant = |e: &Expr| -> Option<Src> {
            let Some(Place { base: Base::Local(id), fields }) = scopes.place_of(e) else { return None };
            self.const_locals.get(&id).filter(|_| fields.is_empty()).cloned()
        };
        let constants: Vec<Option<Src>> = branches.iter().map(|(v, bound)| v.and_then(|v| {
            let tail = super::tail(v);
            self.constant(tail)
                .or_else(|| self.block_local_constant(v))
                .or_else(|| local_constant(tail).filter(|_| !matches!(strip(tail), Expr::Path(p) if p.path.get_ident().is_some_and(|i| bound.contains(&i.to_string())))))
        })).collect();
        if constants.iter().all(Option::is_some) {
            return BTreeSet::new();
        }
        let mut out = BTreeSet::new();
        for ((value, bound), constant) in branches.into_iter().zip(constants) {
            match (constant, value) {
                (Some(c), _) => _ = out.insert(c),
                (None, Some(v)) => match self.branch_tails.borrow_mut().remove(&range_key(self.ctx.expr_range(super::tail(v)))) {
                    Some(ended) => out.extend(ended),
                    None => out.extend(self.eval_masked(scopes, state, v, bound)),
                },
                (None, None) => {}
            }
        }
        out
    }

    /// The value of index arithmetic: the operand that carries the block id carries its
    /// fallbacks, scaled. In a product, each factor that is not a constant (`block * BS`; none
    /// when a factor is 0); in a
    /// sum, the product operand (the base of `block * BS + off`), else the left one (`base +
    /// off`); in `-`, `/`, `<<`, `>>`, the left one. An offset (`+ off`, `% BS`) carries none.
    fn arithmetic_value(&self, scopes: &Scopes, state: &State, b: &syn::ExprBinary) -> BTreeSet<Src> {
        use syn::BinOp;
        let is_product = |e: &Expr| matches!(super::strip_cast(e), Expr::Binary(x) if matches!(x.op, BinOp::Mul(_) | BinOp::Shl(_)));
        let carriers: Vec<&Expr> = match b.op {
            // `n * 0` is 0 whatever `n` is.
            BinOp::Mul(_) if [&b.left, &b.right].iter().any(|x| self.ctx.int_value(x) == Some(0)) => Vec::new(),
            BinOp::Mul(_) => [&*b.left, &*b.right].into_iter().filter(|x| self.ctx.int_value(x).is_none()).collect(),
            BinOp::Add(_) if is_product(&b.right) && !is_product(&b.left) => vec![&b.right],
            BinOp::Add(_) | BinOp::Sub(_) | BinOp::Div(_) | BinOp::Shl(_) | BinOp::Shr(_) => vec![&b.left],
            _ => Vec::new(),
        };
        let scale = |s: Src| match s {
            Src::Fallback { at, text, value, .. } => Src::Fallback { at, text, value, scaled: true },
            Src::Default { at } => Src::Fallback { at, text: "0".into(), value: 0, scaled: true },
            other => other,
        };
        carriers.into_iter().flat_map(|x| self.eval(scopes, state, x)).map(scale).collect()
    }

    /// The value a block ends with; the names its own `let`s bind are not the locals around it.
    fn tail_value(&self, scopes: &Scopes, state: &State, b: &syn::Block) -> BTreeSet<Src> {
        let bound = super::block_names(b);
        match b.stmts.last() {
            Some(syn::Stmt::Expr(v, None)) => self.eval_masked(scopes, state, v, bound),
            _ => BTreeSet::new(),
        }
    }

    /// The value of a closure's body, its own bindings masked.
    fn closure_value(&self, scopes: &Scopes, state: &State, c: &syn::ExprClosure) -> BTreeSet<Src> {
        self.eval_masked(scopes, state, &c.body, super::names_bound_in(c))
    }

    /// The value of an expression evaluated where the solver's scopes do not reach (inside an
    /// arm, a block, a closure): the names bound there read as unknown, never as the locals of
    /// the same name around it.
    fn eval_masked(&self, scopes: &Scopes, state: &State, e: &Expr, names: HashSet<String>) -> BTreeSet<Src> {
        if names.is_empty() {
            return self.eval(scopes, state, e);
        }
        let mut inner = Fallbacks {
            masked: self.masked.clone(),
            closure_constants: self.closure_constants.clone(),
            const_locals: self.const_locals.clone(),
            call_values: self.call_values.clone(),
            ..Fallbacks::new(self.ctx, self.def, self.depth)
        };
        inner.masked.extend(names);
        inner.eval(scopes, state, e)
    }

    fn eval_call(&self, scopes: &Scopes, state: &State, e: &Expr, c: &syn::ExprCall) -> BTreeSet<Src> {
        // `(|| ..)()`: the closure's value, here.
        if let Some(closure) = dataflow::closure_of(&c.func) {
            return self.closure_value(scopes, state, closure);
        }
        let Expr::Path(p) = &*c.func else { return BTreeSet::new() };
        let r = self.ctx.expr_range(e);
        if let Some(v) = self.call_values.get(&(r.start, r.end)) {
            return v.clone();
        }
        let name = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if ["Some", "Ok", "from", "try_from"].contains(&name.as_str()) && c.args.len() == 1 {
            return self.eval(scopes, state, &c.args[0]);
        }
        self.helper_return(scopes, state, e).unwrap_or_default()
    }

    fn eval_method(&self, scopes: &Scopes, state: &State, e: &Expr, m: &syn::ExprMethodCall) -> BTreeSet<Src> {
        let method = m.method.to_string();
        let yielding = dataflow::yielding_fn(m);
        let closure = m.args.first().map(strip).and_then(|a| match a {
            Expr::Closure(c) => Some(c),
            _ => None,
        });
        match method.as_str() {
            "unwrap_or" => {
                let mut out = self.eval(scopes, state, &m.receiver);
                out.extend(m.args.first().and_then(|a| self.constant(a)));
                out
            }
            // `s.max(0)`, `s.clamp(0, hi)`: a clamp makes a missing (negative) entry its lower
            // bound, a constant that stands in for it.
            "max" | "clamp" if !m.args.is_empty() => {
                let mut out = self.eval(scopes, state, &m.receiver);
                out.extend(self.constant(&m.args[0]));
                out
            }
            "map_or" => m.args.first().and_then(|a| self.constant(a)).into_iter().collect(),
            // The default closure's value.
            "map_or_else" => closure.and_then(|c| self.constant(super::tail(&c.body))).into_iter().collect(),
            "unwrap_or_default" => {
                let mut out = self.eval(scopes, state, &m.receiver);
                let at = self.ctx.range(m.method.span()).start..self.ctx.expr_range(e).end;
                out.insert(Src::Default { at: At::new(at) });
                out
            }
            "unwrap_or_else" => {
                let mut out = self.eval(scopes, state, &m.receiver);
                out.extend(closure.and_then(|c| self.constant(super::tail(&c.body))));
                // `unwrap_or_else(Default::default)`, `unwrap_or_else(usize::default)`; a local
                // bound to a closure (`unwrap_or_else(default_block)`).
                if let Some(Expr::Path(p)) = m.args.first().map(strip) {
                    if p.path.segments.last().is_some_and(|s| s.ident == "default") {
                        out.insert(Src::Default { at: At::new(self.ctx.expr_range(&m.args[0])) });
                    }
                    let bound = p.path.get_ident().and_then(|i| scopes.lookup(&i.to_string())).and_then(|id| self.closure_constants.get(&id));
                    out.extend(bound.cloned());
                    // A function of the file that returns a constant (`unwrap_or_else(null_block)`).
                    if bound.is_none() {
                        let call = Expr::Call(syn::ExprCall { attrs: Vec::new(), func: Box::new(Expr::Path(p.clone())), paren_token: Default::default(), args: Default::default() });
                        if let Some(value) = self.returned_constant(&call) {
                            out.insert(self.fallback(self.ctx.expr_range(&m.args[0]), &self.ctx.source_text(&m.args[0]), value));
                        }
                    }
                }
                out
            }
            // `get(i).copied().or(Some(0))`: the `Some` of the other option stands in.
            "or" if m.args.len() == 1 => {
                let mut out = self.eval(scopes, state, &m.receiver);
                if let Expr::Call(c) = strip(&m.args[0]) {
                    if matches!(strip(&c.func), Expr::Path(p) if p.path.is_ident("Some") || p.path.is_ident("Ok")) && c.args.len() == 1 {
                        out.extend(self.constant(&c.args[0]));
                    }
                }
                out
            }
            // A buffer of the entries the chain yields.
            "collect" => {
                let mut out = self.eval(scopes, state, &m.receiver);
                out.insert(Src::Buffer);
                out
            }
            // `.filter(|&b| b != NULL_BLOCK)` keeps the entries the predicate holds for: a
            // comparison of the entry with a constant drops the fallbacks it rules out; any other
            // predicate (`b < num_blocks`) may keep every one.
            "filter" | "take_while" if closure.is_some() => {
                let mut out = self.eval(scopes, state, &m.receiver);
                if let Some((op, flipped, bound)) = closure.and_then(|c| self.compares_its_item(c)) {
                    retain_possible(&mut out, op, flipped, bound, true);
                }
                out
            }
            // The entries of a mapped iterator are what the closure returns.
            _ if yielding.is_some() => match (yielding.and_then(dataflow::closure_of), dataflow::maps_to_default(m)) {
                (Some(c), _) => entries(self.closure_value(scopes, state, c)),
                // `let block_of = |i| ..; (0..n).map(block_of)`: what the closure returned where
                // the solver ran it in place of the name.
                (None, None) => yielding.and_then(|named| self.call_values.get(&range_key(self.ctx.expr_range(named)))).map(|v| entries(v.clone())).unwrap_or_default(),
                // `.map(Option::unwrap_or_default)`: 0 where an entry is missing.
                (None, Some(path)) => entries([Src::Default { at: At::new(self.ctx.expr_range(path)) }].into()),
            },
            _ if PASS_THROUGH.contains(&method.as_str()) => self.eval(scopes, state, &m.receiver),
            _ => self.helper_return(scopes, state, e).unwrap_or_default(),
        }
    }

    /// What a helper returns (a function of this file, or of another file of the workspace,
    /// resolved by path), its parameters substituted by the arguments. The fallbacks of a helper
    /// of another file are reported at this call.
    fn helper_return(&self, scopes: &Scopes, state: &State, call: &Expr) -> Option<BTreeSet<Src>> {
        let (name, summary, elsewhere) = self.helper_summary(call)?;
        Some(self.in_caller(scopes, state, call, (&name, &summary, elsewhere), &summary.returns))
    }

    /// After a call of a helper: the fields of the receiver and of the arguments hold what the
    /// helper left in them (joined with what they held: it may not store on every path).
    fn helper_stores(&self, scopes: &Scopes, state: &mut State, call: &Expr) {
        let Some((name, summary, elsewhere)) = self.helper_summary(call).filter(|(_, s, _)| !s.stores.is_empty()) else { return };
        let (receiver, args) = call_args(call);
        for ((owner, fields), srcs) in &summary.stores {
            let arg = match owner {
                Some(i) => args.get(*i).copied(),
                None => receiver,
            };
            let Some(place) = arg.and_then(|a| scopes.place_of(a)).filter(|p| !self.masks(scopes, p)) else { continue };
            let v = self.in_caller(scopes, state, call, (&name, &summary, elsewhere), srcs);
            if !v.is_empty() {
                state.map.entry(place.fields_then(fields)).or_default().0.extend(v);
            }
        }
    }

    /// The summary of the helper a call designates, found once per call (a call is asked for
    /// its value, its stores and its forwards, and loops visit it again).
    fn helper_summary(&self, call: &Expr) -> Option<FoundHelper> {
        let r = self.ctx.expr_range(call);
        if let Some(known) = self.helpers.borrow().get(&(r.start, r.end)) {
            return known.clone();
        }
        let found = super::summarised_helper(self.ctx, call, self.def, self.depth, &self.ctx.summaries.fallback.helpers, &self.ctx.items.summaries.fallback, summarise);
        self.helpers.borrow_mut().insert((r.start, r.end), found.clone());
        found
    }

    /// Values of a helper's summary at its call: a helper of another file's fallbacks are
    /// reported at the call (positions of this file), its parameters are the arguments.
    fn in_caller(&self, scopes: &Scopes, state: &State, call: &Expr, (name, summary, elsewhere): (&str, &Summary, bool), srcs: &BTreeSet<Src>) -> BTreeSet<Src> {
        let r = self.ctx.expr_range(call);
        let name: Arc<str> = name.into();
        // Positions of this file: the call, whatever the helper's own calls were.
        let via = |at: &At| match elsewhere {
            true => At { via: Some((r.start, r.end, name.clone())), ..at.clone() },
            false => at.clone(),
        };
        let args = super::args_with_receiver(call, summary.receiver_at);
        let mut out = BTreeSet::new();
        for s in srcs {
            match s {
                Src::Param(i, fields) => {
                    let Some(arg) = args.get(*i) else { continue };
                    match scopes.place_of(arg).filter(|p| !self.masks(scopes, p)) {
                        Some(place) if !fields.is_empty() => out.extend(self.read(state, &place.fields_then(fields))),
                        _ => out.extend(self.eval(scopes, state, arg)),
                    }
                }
                Src::Fallback { at, text, value, scaled } => _ = out.insert(Src::Fallback { at: via(at), text: text.clone(), value: *value, scaled: *scaled }),
                Src::Default { at } => _ = out.insert(Src::Default { at: via(at) }),
                Src::Buffer => _ = out.insert(Src::Buffer),
            }
        }
        out
    }

    /// At a call of a contracted writer: the fallbacks its index arguments may hold.
    fn check_call(&mut self, scopes: &Scopes, state: &State, call: &Expr) {
        let ctx = self.ctx;
        let Some((site, callee)) = ctx.callee(call) else { return };
        for (clause, target, skip) in callee.contract.writes() {
            let Some(arg) = site.arg_named(callee, target.index.root_name()) else { continue };
            let fields: Vec<String> = target.index.segments[1..].iter().map(|s| s.text.clone()).collect();
            let place = target.place.to_string();
            let param = target.index.to_string();
            let writer = Writer {
                name: callee.name.clone(),
                clause: clause_label(callee, clause, format!("`{}` writes `{place}` at `{param}`", callee.name)),
                param,
                place,
                skip: skip.map(|s| s.to_string()),
                sentinel: skip.and_then(|s| ctx.sentinel_value(s, callee)),
                buffer: callee.index_is_buffer(&target.index),
                through: Vec::new(),
            };
            self.check_index(scopes, state, call, arg, &fields, &Arc::new(writer));
        }
    }

    /// At a call of a helper that hands a parameter on to a writer's index
    /// ([`Summary::forwards`]): the fallbacks of the argument passed there.
    fn check_forwarded(&mut self, scopes: &Scopes, state: &State, call: &Expr) {
        let (receiver, args) = call_args(call);
        if (args.is_empty() && receiver.is_none()) || self.ctx.callee(call).is_some() {
            return;
        }
        let Some((name, summary, _)) = self.helper_summary(call).filter(|(_, s, _)| !s.forwards.is_empty()) else { return };
        let args = super::args_with_receiver(call, summary.receiver_at);
        for f in &summary.forwards {
            let Some(arg) = args.get(f.param) else { continue };
            let mut writer = (*f.to).clone();
            writer.through.insert(0, (name.clone(), f.name.clone()));
            self.check_index(scopes, state, call, arg, &f.fields, &Arc::new(writer));
        }
    }

    /// The fallbacks `arg` (at its field path `fields`), passed at `call`, may hold where it
    /// reaches `writer`'s index: findings in the function checked; in a summary, the
    /// parameters it hands on as they are.
    fn check_index(&mut self, scopes: &Scopes, state: &State, call: &Expr, arg: &Expr, fields: &[String], writer: &Arc<Writer>) {
        let ctx = self.ctx;
        let sources = match scopes.place_of(arg) {
            Some(place) if !self.masks(scopes, &place) => self.read(state, &place.fields_then(fields)),
            Some(_) => BTreeSet::new(),
            // `BlockWrite::new(row).block(b).apply(pool)`: the field a setter of the chain gave.
            None => match self.chain_fields(scopes, state, arg).into_iter().find(|(f, _)| !fields.is_empty() && f == fields) {
                Some((_, set)) => set,
                None => self.eval(scopes, state, arg),
            },
        };
        if writer.skip.is_some() && sources.contains(&Src::Buffer) {
            return;
        }
        if let Some(def) = self.def {
            let names = dataflow::param_names(def.sig);
            for s in &sources {
                if let Src::Param(i, f) = s {
                    let name = names.get(*i).cloned().unwrap_or_else(|| "self".to_string());
                    self.summary.forwards.push(Forward { param: *i, name, fields: f.clone(), to: writer.clone() });
                }
            }
            return;
        }
        let call_range = ctx.expr_range(call);
        // A chain written over lines (`BlockWrite::new(row)\n    .block(b)`) on one.
        let shown: String = ctx.source_text(strip(arg)).lines().map(str::trim).collect();
        for s in &sources {
            let (at, text, value, scaled) = match s {
                Src::Fallback { at, text, value, scaled } => (at, &**text, *value, *scaled),
                // The default of a whole index buffer is empty: no write.
                Src::Default { at } if !writer.buffer => (at, "0", 0, false),
                _ => continue,
            };
            // Reported where this file writes it, or at the call of the helper of another file.
            let (start, end) = at.via.as_ref().map_or((at.start, at.end), |(a, b, _)| (*a, *b));
            if (writer.skip.is_some() && writer.sentinel == Some(value) && !scaled) || !self.seen.insert((call_range.start, call_range.end, start, end)) {
                continue;
            }
            let arg_range = ctx.expr_range(strip(arg));
            self.reported_args.insert((arg_range.start, arg_range.end));
            let Writer { name, param, place, skip, .. } = &**writer;
            let why = match skip {
                Some(s) => format!("`{name}` skips only {s}"),
                None => format!("`{name}` declares no sentinel to skip"),
            };
            // `put(pool, b)` hands `b` to `write_block`: the first helper's parameter is the
            // one passed here.
            let passed = match writer.through.first() {
                Some((helper, its)) => format!("`{shown}` is passed as `{its}` of `{helper}`, which hands it on as `{param}` of `{name}`,"),
                None => format!("`{shown}` is passed as `{param}` of `{name}`"),
            };
            let finding = Finding::new(
                &FALLBACK_INDEX,
                format!(
                    "{passed} and falls back to {text} when an entry is missing; {why}, so the write lands in {}",
                    if scaled { format!("`{place}` at a position computed from {text}") } else { format!("`{place}[{text}]`") }
                ),
                match &at.via {
                    Some((_, _, helper)) => Label::new(ctx.file, start..end, format!("`{helper}` returns {text} for a missing entry")),
                    None => Label::new(ctx.file, start..end, format!("a missing entry becomes {text}")),
                },
            );
            let finding = match (&at.via, &at.file) {
                (Some(_), Some(file)) => finding.with_secondary(Label::new(&file.0, at.start..at.end, format!("a missing entry becomes {text} here"))),
                _ => finding,
            };
            self.findings.push(finding.with_secondary(writer.clause.clone()).with_help(match skip {
                Some(s) if scaled => format!("make the whole index {s}, the sentinel the callee skips, when the entry is missing (not a position computed from a fallback), or handle the missing entry"),
                Some(s) => format!("fall back to {s}, the sentinel the callee skips, or handle the missing entry"),
                None => "handle the missing entry (skip the write, or return an error); or declare a sentinel (`skip = ..`) and fall back to it".to_string(),
            }));
        }
    }
}

/// What the helper `def` of `ctx`'s file returns, `depth` helpers down; its fallbacks are
/// positions of that file.
fn summarise<'a>(ctx: &FnCtx<'a>, def: &FnDef<'a>, depth: usize) -> Option<Arc<Summary>> {
    let mut inner = Fallbacks::new(ctx, Some(def), depth);
    dataflow::solve(&mut inner, def.sig, def.body, State::default()).ok()?;
    let file = || Some(InFile(ctx.file.clone()));
    let in_file = |srcs: BTreeSet<Src>| -> BTreeSet<Src> {
        srcs.into_iter()
            .map(|s| match s {
                Src::Fallback { at, text, value, scaled } => Src::Fallback { at: At { file: at.file.or_else(file), ..at }, text, value, scaled },
                Src::Default { at } => Src::Default { at: At { file: at.file.or_else(file), ..at } },
                other => other,
            })
            .collect()
    };
    if inner.other_exit {
        let constants = std::mem::take(&mut inner.constant_exits);
        inner.summary.returns.extend(constants);
    }
    let Summary { returns, stores, passes, forwards, .. } = inner.summary;
    Some(Arc::new(Summary {
        returns: in_file(returns),
        stores: stores.into_iter().map(|(k, v)| (k, in_file(v))).collect(),
        passes: passes.into_iter().map(|(k, v)| (k, in_file(v))).collect(),
        forwards,
        receiver_at: def.has_receiver().then(|| dataflow::param_count(def.sig)),
        returns_self: super::returns_self(def),
    }))
}

/// The entries of a buffer built from these values: each is one index, so a default is 0.
/// Keeps the fallbacks that the index could still be where `index OP bound` (written with the
/// index on the left unless `flipped`) gives `holds`.
fn retain_possible(srcs: &mut BTreeSet<Src>, op: &syn::BinOp, flipped: bool, bound: i128, holds: bool) {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let true_for: &[std::cmp::Ordering] = match (op, flipped) {
        (syn::BinOp::Eq(_), _) => &[Equal],
        (syn::BinOp::Ne(_), _) => &[Less, Greater],
        (syn::BinOp::Lt(_), false) | (syn::BinOp::Gt(_), true) => &[Less],
        (syn::BinOp::Le(_), false) | (syn::BinOp::Ge(_), true) => &[Less, Equal],
        (syn::BinOp::Gt(_), false) | (syn::BinOp::Lt(_), true) => &[Greater],
        (syn::BinOp::Ge(_), false) | (syn::BinOp::Le(_), true) => &[Greater, Equal],
        _ => return,
    };
    let possible = |v: i128| true_for.contains(&v.cmp(&bound)) == holds;
    srcs.retain(|s| match s {
        Src::Fallback { value: v, scaled: false, .. } => possible(*v),
        Src::Default { .. } => possible(0),
        _ => true,
    });
}

fn entries(srcs: BTreeSet<Src>) -> BTreeSet<Src> {
    srcs.into_iter()
        .map(|s| match s {
            Src::Default { at } => Src::Fallback { at, text: "0".into(), value: 0, scaled: false },
            other => other,
        })
        .collect()
}

/// The branches of an `if`/`else` chain, each its tail value and the names its condition's
/// pattern and its block bind; `None` without a final `else` (no value).
fn if_branches(i: &syn::ExprIf) -> Option<Vec<(Option<&Expr>, HashSet<String>)>> {
    let mut out = Vec::new();
    let mut at = i;
    loop {
        let mut bound = match &*at.cond {
            Expr::Let(l) => super::pattern_names(&l.pat),
            _ => HashSet::new(),
        };
        bound.extend(super::block_names(&at.then_branch));
        let value = match at.then_branch.stmts.last() {
            Some(syn::Stmt::Expr(v, None)) => Some(v),
            _ => None,
        };
        out.push((value, bound));
        let (_, els) = at.else_branch.as_ref()?;
        match &**els {
            Expr::If(next) => at = next,
            other => {
                out.push((Some(other), HashSet::new()));
                return Some(out);
            }
        }
    }
}

/// A byte range as a map key.
fn range_key(r: Range<usize>) -> (usize, usize) {
    (r.start, r.end)
}
