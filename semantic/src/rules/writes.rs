//! The places a body writes, and at which positions: the facts `forbidden_write` and
//! `undeclared_write` judge.
//!
//! An analysis on the dataflow solver ([`crate::dataflow`]). The state is, per local (or a field
//! path of one), the storage it may designate: `let p = &mut *pool;`, `let head = &mut pool[..2];`,
//! `let s = &mut frame.scratch;`, `let t = if c { &mut *pool } else { scratch };` (both, joined
//! where the branches meet). A shadowing `let` is a new local, so `let mut pool = vec![..]`
//! designates nothing of the parameter. Each write is reported once, as a [`Write`] of a
//! [`Place`] at known positions (or unknown ones):
//! - an assignment or compound assignment to a place, an element (`p[0]`, `p[i][j]`, `p[i].x`) or
//!   a range of one;
//! - a write anywhere in one element taken by reference (`p[0].fill(..)`, `p[0].data.clear()`, a
//!   helper method on it, `let b = &mut p[0];` written through): the place at that position
//!   ([`Target::element`]);
//! - an index that is a loop counter over a range from a constant (`for b in 0..n { cache[b]
//!   .. }` writes position 0, and the rest of the range where its end is a constant), less the
//!   positions a condition keeps it from (`if b == NULL_BLOCK { continue; }`, `if b > 0`); a
//!   closure's parameter takes the positions the function running it passes it, as a counter
//!   (`for_each_block(n, |b| pool[b] = 0.0)`, by the function's [`Summary::passes`]);
//! - a mutating method of a place (`fill`, `push`, `iter_mut`, ...; a raw pointer, `as_mut_ptr`,
//!   and growing, `push`/`extend`, at positions not known); `swap`, `get_mut` and
//!   `copy_within` write only the positions they take, and an `iter_mut()` narrowed by the chain
//!   that consumes it (`.skip(k)`, `.take(k)`, through `enumerate`; an enumerated index kept
//!   to some positions by a comparison with a constant in `.filter(..)`, a leading `if i == K {
//!   continue; }`, or a body (of a loop or a `for_each`) that is one `if i != K { .. }`) only those;
//!   `chunks_mut(n)` is an `iter_mut()` of blocks of `n` positions (every block from position 0
//!   on; narrowed the same way where `n` is a constant), and the two halves of a
//!   `split_at_mut(k)`, taken apart by a `let`, designate the positions below `k` and from `k` on;
//!   `iter_mut().next()` and `.nth(k)` write the one position they yield (of a `k` that is no
//!   constant, `chunks_exact_mut(w).nth(slot)`, the position `k` names, as `cache[k]`), and the head of a
//!   `split_first_mut()` (through `unwrap`, `expect` or `?`) is position 0, its rest from 1 on;
//! - a view (`p.as_mut_slice()`, `p.as_mut()`) writes nothing itself: indexed or called on
//!   (`p.as_mut_slice()[1] = ..`, `p.as_mut().fill(..)`), handed to a callee, kept in a `let`
//!   (`let v = p.as_mut_slice();`, as `let v = &mut p;`), matched by a pattern (`if let [null,
//!   ..] = p.as_mut_slice()`) or walked by a `for`, what is written through it is judged where
//!   it is written; a `for` over `&mut p`, a view, a local designating storage or a `&mut`
//!   parameter binds each item to the storage walked (`for x in pool { *x = 0.0 }` writes
//!   `pool`); a view left alone, returned or stored may write any position;
//! - a write through a raw pointer into a place (`p.as_mut_ptr()` at 0, `.add(k)` or `.offset(k)`
//!   from there): `ptr::write` (and `_volatile`, `_unaligned`), `ptr::write_bytes(p, v, n)`,
//!   `ptr::copy[_nonoverlapping](src, p, n)`, the method forms `p.write(v)`, and `*p = v`;
//! - `mem::swap`, `mem::take` and `mem::replace` of a place;
//! - a place passed to a contracted callee for a parameter it `writes`;
//! - a place passed to a helper without a contract that writes its parameter (or a field of
//!   `self`), by the helper's summary, bottom-up: what it writes at its parameters, at which
//!   positions (or at the position one of its parameters names: `HelperWrite::at_param`), and
//!   which contracted writer it hands them to; a helper of this file, or of
//!   another file reached by path (summarised in that file's context, shared by the check);
//! - `&mut place` passed to any other call (positions unknown);
//! - a write through the reference a helper returns into a parameter or `self` (`*first_of(v)
//!   = ..`, `self.block_mut(b).fill(..)`), by the helper's summary of what its returned
//!   references designate ([`Returned`]: at known positions, or at the position, or block of
//!   positions, one of its parameters names; each part of a returned tuple of references on
//!   its own, taken apart by a `let (k, v) = self.kv_mut();`).
//!
//! Closures run in place are walked where they run; a closure stored for later (`let mut reset =
//! || scratch.clear();`) writes what its body writes, where it is created (it is made to be
//! called).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use syn::visit::Visit;
use syn::Expr;

use crate::analysis::{call_args, FnCtx, FnDef};
use crate::dataflow::{self, is_compound, Analysis, Base, LocalId, MaySet, Place, PlaceMap, Scopes};
use crate::index::ContractedFn;

/// Methods that write through their receiver.
pub(crate) const MUTATING_METHODS: &[&str] = &[
    "fill", "fill_with", "copy_from_slice", "clone_from_slice", "iter_mut", "as_mut_ptr", "as_mut_slice", "swap", "sort",
    "sort_unstable", "reverse", "rotate_left", "rotate_right", "copy_within", "get_mut", "get_unchecked_mut", "last_mut", "first_mut", "first_chunk_mut",
    "chunks_mut", "split_at_mut", "push", "insert", "clear", "truncate", "resize", "resize_with", "extend", "extend_from_slice", "write",
    "set", "zero_", "fill_", "copy_", "as_mut",
    // The entry API borrows a map mutably to insert or change the entry.
    "entry", "entry_ref",
    // Removing, reordering and moving entries writes the positions they leave or take.
    "pop", "pop_back", "pop_front", "push_back", "push_front", "retain", "retain_mut", "drain", "remove", "swap_remove",
    "split_off", "append", "splice", "extend_from_within", "dedup", "dedup_by", "dedup_by_key", "sort_by", "sort_by_key",
    "sort_by_cached_key", "sort_unstable_by", "sort_unstable_by_key", "select_nth_unstable", "select_nth_unstable_by",
    "select_nth_unstable_by_key", "swap_with_slice", "rchunks_mut", "rchunks_exact_mut", "get_or_insert", "get_or_insert_with",
    // Atomics, written through a shared reference (`Cell::set` is `set` above).
    "store", "fetch_add", "fetch_sub", "fetch_and", "fetch_nand", "fetch_or", "fetch_xor", "fetch_max", "fetch_min", "fetch_update",
    "compare_exchange", "compare_exchange_weak",
];

/// Methods that write their (first) argument too: `dst.append(src)` empties `src`,
/// `a.swap_with_slice(b)` exchanges the contents, `x.clone_into(&mut target)` overwrites it.
const ARGUMENT_WRITERS: &[&str] = &["append", "swap_with_slice", "clone_into"];

/// Positions `lo..hi` of a place; `hi == i128::MAX`: to its end.
pub(super) type Positions = (i128, i128);

/// Every position of a place.
pub(super) const ALL: Positions = (0, i128::MAX);

/// The parameter (by name) whose value gives a returned reference's positions, and how many
/// positions each value stands for.
type PositionsByParam = Option<(String, i128)>;

/// Storage a local may designate: a place, from its position `lo` (when known) to `hi`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Target {
    place: Place,
    window: Option<Positions>,
    /// One element of the place (`pool[NULL_BLOCK]`, at `window`): a write anywhere in it (a
    /// field, an entry, a method of the element's type) writes the place at that position.
    element: bool,
}

impl Target {
    /// The positions of the place a write at `at` within what the target designates writes.
    fn within(&self, at: Option<Positions>) -> Option<Positions> {
        if self.element {
            self.window
        } else {
            at.and_then(|a| narrow(self.window, a))
        }
    }
}

type Targets = MaySet<Target>;

/// One part of a split: its positions (`None`: not known), and whether it is one element.
type Part = (Option<Positions>, bool);

type State = PlaceMap<Targets>;

/// How a write happens, for messages.
#[derive(Clone, Debug)]
pub(super) enum How<'a> {
    Assign,
    Compound,
    /// A mutating method, as the message names it (`fill`, `iter_mut().skip(..)`).
    Method(String),
    /// Handed to a contracted callee for a parameter it writes.
    Callee { callee: &'a ContractedFn, param: String },
    /// Handed to a helper of this file that writes it, and the contracted writer (with its
    /// parameter) the helper hands it on to, if that is how it writes it.
    Helper { name: String, writer: Option<(&'a ContractedFn, String)> },
    /// `&mut place` handed to a call that is not known.
    MutRef,
}

impl How<'_> {
    /// The write as a message's subject, `shown` the place handed on (`this assignment`,
    /// `passing `pool` to `scatter`, a writer of it,`).
    pub(super) fn describe(&self, shown: &str) -> String {
        match self {
            How::Assign => "this assignment".to_string(),
            How::Compound => "this compound assignment".to_string(),
            How::Method(m) => format!("`{m}`"),
            How::Callee { callee, .. } => format!("passing `{shown}` to `{}`, a writer of it,", callee.name),
            How::Helper { name, .. } => format!("passing `{shown}` to `{name}`, which writes it,"),
            How::MutRef => "passing it on as `&mut`".to_string(),
        }
    }
}

/// One write in the body.
#[derive(Clone, Debug)]
pub(super) struct Write<'a> {
    pub place: Place,
    /// The positions written, when known.
    pub positions: Option<Positions>,
    /// The expression that writes: the target, the receiver, the argument.
    pub at: Range<usize>,
    pub how: How<'a>,
    /// The name the target indexes its place with (`pool[b] = v`, `self.blocks[b].fill(..)`),
    /// and how many positions each of its values stands for (`cache[b * BS..(b + 1) * BS]`:
    /// `BS`): in a helper's summary, a parameter whose value at a call gives the positions
    /// written.
    index: Option<(String, ByParam)>,
}

/// How a parameter's value gives the positions a helper writes: each value stands for `scale`
/// positions (`pool[b]`: 1; `cache[b * BS..(b + 1) * BS]`: `BS`), and `to_end` writes from there
/// to the end (`blocks.iter_mut().skip(first)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ByParam {
    scale: i128,
    to_end: bool,
}

impl ByParam {
    /// The positions written for an argument at `position` (unknown: all of them from 0 when the
    /// helper writes to the end, as an inline `skip(k)` of an unknown `k` does; else unknown).
    fn positions(self, position: Option<Positions>) -> Option<Positions> {
        match (position, self.to_end) {
            (Some(p), false) => Some(scaled(p, self.scale)),
            (Some((lo, _)), true) => Some((lo.saturating_mul(self.scale), i128::MAX)),
            (None, true) => Some(ALL),
            (None, false) => None,
        }
    }
}

/// What a helper writes, and the storage of its parameters or `self` the references it returns
/// designate (`fn block_mut(&mut self, b: usize) -> &mut [f32]`).
#[derive(Debug, Default)]
pub(super) struct Summary {
    writes: Vec<HelperWrite>,
    returns: Vec<Returned>,
    /// The closures it is given and calls, each with what it hands them: for the closure
    /// parameter (by position), the storage passed as each of the closure's inputs
    /// (`fn with_scratch(s: &mut [f32], f: F) -> R { f(s) }`: `(1, [Some(s)])`; `f(&mut
    /// self.data)`: `self.data`).
    calls_back: Vec<(usize, Vec<Option<Passed>>)>,
    /// The positions it passes to a closure it was given and calls, by the closure parameter's
    /// position and the argument's (`(0..n).for_each(|i| f(i))`: from 0; `f(NULL_BLOCK)`: 0);
    /// `None` where one call passes positions not known or others than another call.
    passes: std::collections::BTreeMap<(usize, usize), Option<Positions>>,
}

/// A parameter (by position; `None`: `self`) and a field path in it, handed to a closure.
type Passed = (Option<usize>, Vec<String>);

/// The storage a returned reference designates, in its caller's terms.
#[derive(Debug, Clone)]
struct Returned {
    /// The parameter (by position; `None`: `self`), and the field path in it.
    param: Option<usize>,
    fields: Vec<String>,
    positions: Option<Positions>,
    /// The parameter (by position) whose value gives the positions, and how many positions each
    /// value stands for: `&mut v[i]` is `(i, 1)`, `&mut self.data[b * BS..(b + 1) * BS]` is
    /// `(b, BS)`.
    at_param: Option<(usize, i128)>,
    /// One element (a write anywhere in it writes that position).
    element: bool,
    /// The part of a returned tuple it is (`None`: the value returned).
    part: Option<usize>,
}

/// One write of a helper, in its caller's terms.
#[derive(Debug)]
struct HelperWrite {
    /// The parameter written (by position; `None`: `self`), and the field path in it.
    param: Option<usize>,
    fields: Vec<String>,
    positions: Option<Positions>,
    /// The contracted writer it hands the storage to (by its place in the index's functions),
    /// with the writer's parameter, when that is how it writes it.
    writer: Option<(usize, String)>,
    /// The parameter (by position) whose value gives the positions written, when `positions`
    /// are not known otherwise (`fn zero_elem(pool: &mut [f32], b: usize) { pool[b] = 0.0; }`),
    /// and how (`pool[b * BS..(b + 1) * BS].fill(0.0)`, `blocks.iter_mut().skip(first)`).
    at_param: Option<(usize, ByParam)>,
}

/// Per-file memo of the helpers' summaries, by definition.
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::HelperMemo<Arc<Summary>>,
}

/// The writes of one function, computed on first use and shared by the rules that read them.
pub(super) type Memo<'a> = std::cell::OnceCell<Option<Facts<'a>>>;

/// What the analysis of one body found.
pub(super) struct Facts<'a> {
    /// Every write, each once, in source order.
    pub writes: Vec<Write<'a>>,
    /// The arguments of contracted calls that are loop counters (`pool.zero_block(b)` in `for b
    /// in 0..n`), by byte range, with the positions they take.
    pub counted_args: HashMap<(usize, usize), Positions>,
}

/// The writes of the body of `ctx`'s function. `None`: past the solver's bound, reported (once)
/// as `analysis_limit`.
pub(super) fn writes_of<'m, 'a>(ctx: &FnCtx<'a>, memo: &'m Memo<'a>, out: &mut Vec<crate::finding::Finding>) -> Option<&'m [Write<'a>]> {
    facts_of(ctx, memo, out).map(|f| f.writes.as_slice())
}

pub(super) fn facts_of<'m, 'a>(ctx: &FnCtx<'a>, memo: &'m Memo<'a>, out: &mut Vec<crate::finding::Finding>) -> Option<&'m Facts<'a>> {
    let facts = memo.get_or_init(|| {
        let mut w = Writes::new(ctx, None, 0);
        match dataflow::solve(&mut w, ctx.sig, ctx.body, State::default()) {
            Ok(()) => {
                w.writes.sort_by_key(|w| (w.at.start, w.at.end));
                Some(Facts { writes: w.writes, counted_args: w.counted_args })
            }
            Err(dataflow::TooComplex) => {
                out.push(super::analysis_limit(ctx, "dataflow", dataflow::MAX_STEPS, "its writes are"));
                None
            }
        }
    });
    facts.as_ref()
}

struct Writes<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    /// The helper being summarised (None: the function being checked).
    def: Option<&'c FnDef<'a>>,
    depth: usize,
    writes: Vec<Write<'a>>,
    /// Writes already recorded, by expression and place (loops revisit theirs).
    seen: HashSet<(usize, usize, Place, Option<Positions>)>,
    /// The `iter_mut()` calls that a consuming chain narrows, with the ranges of positions it
    /// keeps (two for all but one).
    narrowed: Vec<Narrowed>,
    /// While the body of a closure kept for later is read: the names it binds itself.
    masked: HashSet<String>,
    /// Views of a place (`as_mut_slice()`, `as_mut()`) that an enclosing expression writes
    /// through (`p.as_mut_slice()[1] = v`, `p.as_mut().fill(..)`): the view itself writes nothing, the write through it is judged where it happens.
    viewed: HashSet<*const syn::ExprMethodCall>,
    /// Loop counters over a range from a constant (`for b in 0..n`), and locals bound to a
    /// constant until they are assigned: the positions they take.
    counters: HashMap<LocalId, Positions>,
    /// The constant positions a local's fields or tuple elements hold (`let w = Warm { block:
    /// NULL_BLOCK, .. }`, `let w = (NULL_BLOCK, row)`), until they are assigned or the local is
    /// lent mutably (`fill(&mut w)`, a method of `w`).
    parts: HashMap<Place, Positions>,
    /// See [`Facts::counted_args`].
    counted_args: HashMap<(usize, usize), Positions>,
    /// Locals holding a list of block numbers among which is a constant (`vec![NULL_BLOCK, 1,
    /// 2]`, a list a constant was pushed into): the least such constant, a position a loop over
    /// the list takes (`for &b in &blocks { pool.write(b, row) }`).
    listed: HashMap<LocalId, i128>,
    /// A summarised helper's returned references: what each designates, the parameter (by
    /// name) and block size its positions are given by, and the part of a returned tuple it is.
    returned: Vec<(Target, PositionsByParam, Option<usize>)>,
    /// See [`Summary::passes`].
    passes: std::collections::BTreeMap<(usize, usize), Option<Positions>>,
}

impl Analysis for Writes<'_, '_> {
    type State = State;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, self.def, self.depth, call, arg)
    }

    /// `each(n, |b| cache[b] = v)`: `b` takes the positions `each` passes its closure, as a loop
    /// counter does.
    fn bind_callback(&mut self, _scopes: &Scopes, _state: &mut State, call: &Expr, arg: usize, params: &[Option<LocalId>]) {
        let Some((_, at)) = super::callbacks::param_at(self.ctx, self.def, self.depth, call, arg) else { return };
        let Some((_, summary)) = self.helper_summary(call) else { return };
        for (k, local) in params.iter().enumerate() {
            if let (Some(local), Some(Some(positions))) = (local, summary.passes.get(&(at, k))) {
                self.counters.insert(*local, *positions);
            }
        }
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    fn runs_at_drop<'e>(&self, value: &'e Expr) -> Option<&'e syn::ExprClosure> {
        super::closure_run_at_drop(self.ctx, self.def.map_or(self.ctx.self_type, |d| d.self_type.as_deref()), value)
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut State, e: &Expr) {
        if let Some((param, args)) = self.def.and_then(|d| super::callbacks::called_param(scopes, dataflow::param_count(d.sig), e)) {
            for (k, arg) in args.into_iter().enumerate() {
                let positions = self.position_of(scopes, arg);
                self.passes.entry((param, k)).and_modify(|p| *p = p.filter(|p| Some(*p) == positions)).or_insert(positions);
            }
        }
        self.writes_in(scopes, state, e);
        // `blocks.push(NULL_BLOCK)`: the list may hold that position; `blocks.clear()`,
        // `truncate(0)` or `blocks = vec![free]` leave none of what it held (as for counters, a
        // list emptied on one path forgets its positions on every path: only a finding is lost).
        let whole_local = |e: &Expr| super::whole_local(scopes, e);
        match e {
            Expr::MethodCall(m) => {
                let method = m.method.to_string();
                let emptied = method == "clear" || (method == "truncate" && m.args.first().and_then(|k| self.ctx.int_value(k)) == Some(0));
                if let (Some(id), true) = (whole_local(&m.receiver), emptied) {
                    self.listed.remove(&id);
                }
                if ["push", "push_back", "push_front", "insert"].contains(&method.as_str()) {
                    if let (Some(id), Some(v)) = (whole_local(&m.receiver), m.args.last().and_then(|v| self.ctx.int_value(v))) {
                        self.listed.entry(id).and_modify(|least| *least = (*least).min(v)).or_insert(v);
                    }
                }
            }
            Expr::Assign(a) => {
                if let Some(id) = whole_local(&a.left) {
                    self.listed.remove(&id);
                    self.list_items(id, &a.right);
                }
            }
            _ => {}
        }
        // A closure kept for later (or an `async` block) writes what its body writes when it
        // runs; the names it binds itself are not the ones around it.
        if let Some((body, bound)) = super::deferred_body(e) {
            self.masked = bound;
            for sub in body {
                self.writes_in(scopes, state, sub);
            }
            self.masked.clear();
        }
        // A counter assigned (`b += 1`, `b = next`) holds positions not known from here on; the
        // loop's first round has seen where it started.
        let assigned = match e {
            Expr::Assign(a) => Some(&*a.left),
            Expr::Binary(b) if is_compound(&b.op) => Some(&*b.left),
            _ => None,
        };
        if let Some(place @ Place { base: Base::Local(id), .. }) = assigned.and_then(|t| scopes.place_of(strip_parens(t))) {
            if place.fields.is_empty() {
                self.counters.remove(&id);
            }
            self.parts.retain(|p, _| !p.starts_with(&place));
        }
        // A local lent mutably to a call, or the receiver of a method, may have its parts changed.
        let (receiver, args) = match e {
            Expr::Call(_) | Expr::MethodCall(_) => crate::analysis::call_args(e),
            _ => (None, Vec::new()),
        };
        let lent = args.into_iter().filter_map(|a| match strip_parens(a) {
            Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            _ => None,
        });
        for lent in receiver.into_iter().chain(lent) {
            if let Some(place) = scopes.place_of(strip_parens(lent)) {
                self.parts.retain(|p, _| !p.starts_with(&place));
            }
        }
        if let Expr::Assign(a) = e {
            // `p = &mut other[..]` re-points a local.
            if let (Expr::Path(_), Some(place)) = (strip_parens(&a.left), scopes.place_of(&a.left)) {
                let targets = self.designated(scopes, state, &a.right, false);
                state.clear_under(&place);
                if !targets.0.is_empty() {
                    state.map.insert(place, targets);
                }
            }
        }
    }

    /// A loop counter kept away from its first positions by a condition (`if b == NULL_BLOCK {
    /// continue; }`, `if b > 0 { .. }`): it no longer takes them past it. (Counters are not path
    /// state: what a condition excludes stays excluded, which only forgets positions.)
    fn assume(&mut self, scopes: &Scopes, _state: &mut State, cond: &Expr, holds: bool) {
        let Expr::Binary(b) = strip_parens(cond) else { return };
        let counter = |e: &Expr| match scopes.place_of(strip_parens(e)) {
            Some(Place { base: Base::Local(id), fields }) if fields.is_empty() && matches!(strip_parens(e), Expr::Path(_)) => Some(id),
            _ => None,
        };
        let (id, k, op) = match (counter(&b.left), counter(&b.right)) {
            (Some(id), _) => (id, self.ctx.int_value(&b.right), b.op),
            (_, Some(id)) => (id, self.ctx.int_value(&b.left), mirrored(b.op)),
            _ => return,
        };
        let (Some(k), Some(&(lo, hi))) = (k, self.counters.get(&id)) else { return };
        let Some(kept) = where_holds(op, k, holds) else { return };
        // What is left of the counter's positions; an end not known stands for the first
        // position only (see `counted`), and the end is kept as it was.
        let left: Vec<Positions> = kept.into_iter().map(|(a, b)| (a.max(lo), b.min(hi))).filter(|(a, b)| a < b).collect();
        match left.as_slice() {
            [(from, _)] => self.counters.insert(id, (*from, hi)),
            // None left, or not one range (another position inside it excluded).
            _ => self.counters.remove(&id),
        };
    }

    fn bind(&mut self, scopes: &Scopes, state: &mut State, local: LocalId, init: Option<&Expr>) {
        let place = Place { base: Base::Local(local), fields: Vec::new() };
        state.clear_under(&place);
        self.counters.remove(&local);
        self.listed.remove(&local);
        self.parts.retain(|p, _| !p.starts_with(&place));
        let Some(init) = init else { return };
        // `let w = Warm { block: NULL_BLOCK, .. }`, `let w = (NULL_BLOCK, row)`.
        // `let w2 = w;`: what the parts of `w` held.
        if let Some(from) = super::whole_local(scopes, init) {
            let from = Place { base: Base::Local(from), fields: Vec::new() };
            let copied: Vec<(Place, Positions)> = self.parts.iter().filter(|(p, _)| p.starts_with(&from)).map(|(p, v)| (place.fields_then(&p.fields), *v)).collect();
            self.parts.extend(copied);
        }
        for (field, value) in crate::dataflow::literal_parts(init) {
            if let Some(v) = self.ctx.int_value(value) {
                self.parts.insert(place.field(&field), (v, v.saturating_add(1)));
            }
        }
        self.list_items(local, init);
        // `let null = NULL_BLOCK;`, `let mut b = 0;` (a `while` loop's counter): the position it
        // holds until it is assigned.
        if let Some(v) = self.ctx.int_value(init) {
            self.counters.insert(local, (v, v.saturating_add(1)));
        } else if let Some(held) = super::whole_local(scopes, init).and_then(|id| self.counters.get(&id).copied()) {
            // `let b = b;`, `let slot = null;`: a copy holds what the local held.
            self.counters.insert(local, held);
        } else if let Some(v) = constant_branch(self.ctx, strip_parens(init)) {
            // `let b = if dummy { NULL_BLOCK } else { next };`: on the path of that branch, the
            // position it names (the others' are not known).
            self.counters.insert(local, (v, v.saturating_add(1)));
        }
        let targets = self.designated(scopes, state, init, false);
        if !targets.0.is_empty() {
            state.map.insert(place, targets);
        }
    }

    /// `let (head, tail) = cache.split_at_mut(k)`: `head` is the cache's positions below `k`,
    /// `tail` those from `k` on; `let (head, rest) = cache.split_first_mut().unwrap()` (or in an
    /// `if let Some(..)`): `head` is the element at 0, `rest` the positions from 1 on;
    /// `split_last_mut` the same at an end whose position is not known.
    fn bind_parts(&mut self, scopes: &Scopes, state: &mut State, parts: &[(LocalId, Vec<String>)], scrutinee: &Expr) {
        // `let KvCache { key_cache, value_cache } = kv;` of a `kv: &mut KvCache`: each name is
        // the field of the storage `kv` designates.
        if !matches!(strip_parens(scrutinee), Expr::MethodCall(_) | Expr::Try(_) | Expr::Call(_)) {
            // `let (b, r) = w;`, `let Warm { block, .. } = w;` of a `w` whose part holds a
            // constant: the name holds it (a pattern over a literal binds each name to its
            // initializer: `bind`).
            if let Some(whole) = scopes.place_of(scrutinee) {
                for (local, path) in parts {
                    if let Some(held) = self.parts.get(&whole.fields_then(path)).copied() {
                        self.counters.insert(*local, held);
                    }
                }
            }
            let targets = self.designated(scopes, state, scrutinee, false);
            for (local, path) in parts.iter().filter(|(_, path)| !path.is_empty()) {
                let fields: BTreeSet<Target> = targets.0.iter().filter(|t| !t.element && t.window.is_none_or(|w| w == ALL)).map(|t| Target { place: t.place.fields_then(path), window: Some(ALL), element: false }).collect();
                if !fields.is_empty() {
                    state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, MaySet(fields));
                }
            }
            return;
        }
        // `let (k, v) = self.kv_mut();`: each name is the storage that part designates.
        if let Some((_, summary)) = self.helper_summary(strip_parens(scrutinee)).filter(|(_, s)| s.returns.iter().any(|r| r.part.is_some())) {
            for (local, path) in parts {
                let Some(k) = path.first().filter(|_| path.len() == 1).and_then(|p| p.parse::<usize>().ok()) else { continue };
                let targets = self.returned_targets(scopes, state, strip_parens(scrutinee), &summary, Some(k));
                if !targets.0.is_empty() {
                    state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, targets);
                }
            }
            return;
        }
        let Some((m, split)) = self.split_of(scrutinee) else { return };
        for (local, part) in parts {
            let half = match part.as_slice() {
                [p] if p == "0" => 0,
                [p] if p == "1" => 1,
                _ => continue,
            };
            let halves = self.half(scopes, state, m, split[half]);
            if !halves.is_empty() {
                state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, MaySet(halves));
            }
        }
    }

    /// A helper's returned reference (`&mut v[0]`, `&mut self.data[b * BS..(b + 1) * BS]`,
    /// `v`), or each part of a returned tuple of them (`(&mut self.k, &mut self.v)`): the
    /// storage it designates, for the summary.
    fn exit(&mut self, scopes: &Scopes, state: &State, exit: &dataflow::Exit<'_>) {
        let (Some(def), Some(value)) = (self.def, exit.value) else { return };
        let syn::ReturnType::Type(_, ty) = &def.sig.output else { return };
        // `fn kv_mut(&mut self) -> (&mut [f32], &mut [f32]) { (&mut self.k, &mut self.v) }`:
        // each part of the tuple designates its own storage.
        if let (syn::Type::Tuple(types), Expr::Tuple(parts)) = (&**ty, strip_parens(value)) {
            for (k, (ty, part)) in types.elems.iter().zip(&parts.elems).enumerate() {
                if returns_mut_ref(ty) {
                    self.returned_value(scopes, state, part, Some(k));
                }
            }
            return;
        }
        if returns_mut_ref(ty) {
            self.returned_value(scopes, state, value, None);
        }
    }

    /// `if let [null, rest @ ..] = pool`: `null` is the element at 0, `rest` the positions from 1.
    fn bind_slice(&mut self, scopes: &Scopes, state: &mut State, parts: &[(LocalId, dataflow::SlicePart)], scrutinee: &Expr) {
        let targets = self.designated(scopes, state, scrutinee, true);
        for (local, part) in parts {
            let (range, element) = match part {
                dataflow::SlicePart::Element(k) => ((*k as i128, *k as i128 + 1), true),
                dataflow::SlicePart::From(k) => ((*k as i128, i128::MAX), false),
            };
            let taken: BTreeSet<Target> = targets.0.iter().filter(|t| !t.element).map(|t| Target { place: t.place.clone(), window: narrow(t.window, range), element }).collect();
            if !taken.is_empty() {
                state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, MaySet(taken));
            }
        }
    }

    /// `for s in &mut pool[k..]`: `s` is each of those positions in turn, so a store through it
    /// writes them (`pool.iter_mut()` is a write of its own, where it is called).
    fn bind_each(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], iterated: &Expr) {
        // `for b in 0..n`, `(1..n).rev()`, `(0..n).step_by(2)`: the positions `b` takes (its
        // first at least; the end where it is a constant).
        if let [local] = locals {
            if let Some(range) = counted(self.ctx, iterated) {
                self.counters.insert(*local, range);
                return;
            }
            // `for &b in &blocks` of a list that may hold a constant: the least one among the
            // positions `b` takes.
            if let Some(least) = listed_in(scopes, iterated).and_then(|id| self.listed.get(&id)) {
                self.counters.insert(*local, (*least, least.saturating_add(1)));
                return;
            }
        }
        // What a `for` walks mutably, each item a part of: `&mut p`, a view of it
        // (`p.as_mut_slice()`), a local designating storage (`rest` of `[_, rest @ ..]`), a
        // parameter of a `&mut` type.
        let [local] = locals else { return };
        let walks_mutably = match strip_parens(iterated) {
            Expr::Reference(r) => r.mutability.is_some(),
            Expr::MethodCall(m) => m.args.is_empty() && MUT_VIEWS.contains(&m.method.to_string().as_str()),
            e @ Expr::Path(_) => scopes.place_of(e).is_some_and(|p| {
                p.fields.is_empty() && (state.map.contains_key(&p) || matches!(p.base, Base::Local(id) if matches!(self.param_type(id), Some(syn::Type::Reference(r)) if r.mutability.is_some())))
            }),
            _ => false,
        };
        let (iterated, by_ref) = match self.walks_interior(iterated) {
            Some(field) => (field, true),
            None if walks_mutably => (iterated, false),
            None => return,
        };
        // Each round the item is one element among the positions walked: a write anywhere in it
        // (`c.in_use = false`, `row[0] = x`) writes the walked place there.
        let targets = MaySet(self.designated(scopes, state, iterated, by_ref).0.into_iter().map(|t| Target { element: true, ..t }).collect());
        if !targets.0.is_empty() {
            state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, targets);
        }
    }

    /// `i` of `for (i, row) in rows.iter().enumerate()`: 0 on the first round.
    fn bind_count(&mut self, _scopes: &Scopes, _state: &mut State, local: LocalId) {
        self.counters.insert(local, (0, 1));
    }

    /// `if let Some(s) = scratch` of a `scratch: Option<&mut [T]>` (`scratch.as_deref_mut()`
    /// too): `s` is the storage the parameter refers to. The content of an `Option` reached
    /// mutably is the storage of the `Option`: `if let Some(s) = scratch.as_deref_mut()` (or
    /// `.as_mut()`, or `scratch` itself) of a `scratch: &mut Option<Vec<T>>`, `if let Some(ws) =
    /// &mut self.workspace`. `if let Ok(mut g) = pool.try_lock()`: `g` is the guard, the content
    /// of `pool`.
    fn bind_from(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], scrutinee: &Expr) {
        let [local] = locals else { return };
        // `while let Some(b) = free.pop()` of a list that may hold a constant: one of its items,
        // the least among them (as `for &b in &free` takes).
        if let Expr::MethodCall(m) = strip_parens(scrutinee) {
            let taken = ["pop", "pop_front", "pop_back"].contains(&m.method.to_string().as_str());
            if let Some(least) = listed_in(scopes, &m.receiver).filter(|_| taken).and_then(|id| self.listed.get(&id)) {
                self.counters.insert(*local, (*least, least.saturating_add(1)));
            }
        }
        let guard = matches!(strip_parens(scrutinee), Expr::MethodCall(m) if super::takes_write_guard(m));
        let mutable_access = match strip_parens(scrutinee) {
            Expr::MethodCall(m) => m.args.is_empty() && MUT_VIEWS.iter().any(|v| m.method == v),
            Expr::Reference(r) => r.mutability.is_some(),
            _ => false,
        };
        let optional_param = |t: &Target| t.place.fields.is_empty() && matches!(t.place.base, Base::Local(id) if self.param_type(id).is_some_and(|ty| optional_mut_ref(ty).is_some() || mut_ref_to_option(ty)));
        let targets: BTreeSet<Target> = self
            .designated(scopes, state, scrutinee, false)
            .0
            .into_iter()
            .filter(|t| guard || mutable_access || optional_param(t))
            .collect();
        if !targets.is_empty() {
            state.map.insert(Place { base: Base::Local(*local), fields: Vec::new() }, MaySet(targets));
        }
    }
}

/// `&mut Option<T>`: the content of the `Option` is storage the parameter refers to.
fn mut_ref_to_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(r) if r.mutability.is_some() && matches!(&*r.elem, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option")))
}

/// `T` of `Option<&mut T>`: such a parameter designates the storage it refers to.
fn optional_mut_ref(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Option")?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
    match a.args.first()? {
        syn::GenericArgument::Type(syn::Type::Reference(r)) if r.mutability.is_some() => Some(&r.elem),
        _ => None,
    }
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

/// Methods that give access to the storage of their receiver (besides the guards that may write
/// it, [`super::takes_write_guard`]).
/// Views through which a place may be written, which write nothing themselves.
const MUT_VIEWS: &[&str] = &["as_mut_slice", "as_mut", "as_deref_mut"];

const VIEWS: &[&str] = &["as_mut_slice", "as_mut", "as_deref_mut", "as_slice", "as_ref", "deref_mut", "unwrap", "expect", "get_mut_slice"];

/// Adapters of an iterator that keep its positions (`enumerate` numbers them, `rev` reorders).
const SAME_POSITIONS: &[&str] = &["enumerate", "rev", "zip", "inspect", "by_ref"];

impl<'c, 'a> Writes<'c, 'a> {
    fn new(ctx: &'c FnCtx<'a>, def: Option<&'c FnDef<'a>>, depth: usize) -> Self {
        let body = def.map_or(ctx.body, |d| d.body);
        let mut narrowed = Vec::new();
        narrowed_iter_muts(ctx, body, &mut narrowed);
        let viewed = views_written_through(body);
        Writes { ctx, def, depth, writes: Vec::new(), seen: HashSet::new(), narrowed, masked: HashSet::new(), viewed, counters: Default::default(), parts: Default::default(), counted_args: Default::default(), listed: Default::default(), returned: Vec::new(), passes: Default::default() }
    }

    /// Whether a `for` walks a field of `self` whose items are written through a shared
    /// reference (`for c in self.counters.iter() { c.store(0, ..) }` of a `Vec<AtomicU64>`):
    /// each item is then a part of the field, as in a mutable walk. Returns the field walked.
    fn walks_interior<'e>(&self, iterated: &'e Expr) -> Option<&'e Expr> {
        let walked = match strip_parens(iterated) {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            Expr::MethodCall(m) if m.args.is_empty() && ["iter", "values"].contains(&m.method.to_string().as_str()) => &*m.receiver,
            _ => return None,
        };
        let Expr::Field(f) = strip_parens(walked) else { return None };
        // (In a helper's summary, `self` is of the helper's type.)
        let owner = match self.def {
            Some(d) => d.self_type.as_deref(),
            None => self.ctx.self_type,
        };
        let (Expr::Path(base), syn::Member::Named(field), Some(owner)) = (strip_parens(&f.base), &f.member, owner) else { return None };
        (base.path.is_ident("self") && self.ctx.resolver.fields.is_interior(owner, &field.to_string())).then_some(walked)
    }

    /// What an expression designates: the places (and their positions) whose storage it is.
    /// `by_ref`: the expression is used by reference (a receiver, a place written to); a value
    /// used by value designates storage only when it is a reference itself (a `&mut` parameter, a
    /// local that designates some), so `let n = frame.count;` copies and designates nothing.
    fn designated(&self, scopes: &Scopes, state: &State, e: &Expr, by_ref: bool) -> Targets {
        let mut out = Targets::default();
        self.designate(scopes, state, e, by_ref, &mut out.0, &self.masked, 0);
        out
    }

    /// A helper's returned reference (or a part of a returned tuple): the storage it
    /// designates, for the summary.
    fn returned_value(&mut self, scopes: &Scopes, state: &State, value: &Expr, part: Option<usize>) {
        let mut value = strip_parens(value);
        while let Expr::Reference(r) = value {
            value = strip_parens(&r.expr);
        }
        let template = match value {
            Expr::Index(ix) => param_positions(self.ctx, &ix.index),
            _ => None,
        };
        let targets = match (value, &template) {
            (Expr::Index(ix), Some((_, _, element))) => self.designated(scopes, state, &ix.expr, true).0.into_iter().map(|t| Target { element: *element, window: if *element { None } else { t.window }, ..t }).collect(),
            _ => self.designated(scopes, state, value, true).0,
        };
        for t in targets {
            let entry = (t, template.as_ref().map(|(p, k, _)| (p.clone(), *k)), part);
            if !self.returned.contains(&entry) {
                self.returned.push(entry);
            }
        }
    }

    /// The storage what a helper returns designates at a call `e` (its tuple's `part`, or the
    /// value returned whole): `self.block_mut(b)`, `first_of(cache)`, `self.kv_mut().1`.
    fn returned_targets(&self, scopes: &Scopes, state: &State, e: &Expr, summary: &Summary, part: Option<usize>) -> Targets {
        let (receiver, args) = call_args(e);
        let mut out = Targets::default();
        for r in summary.returns.iter().filter(|r| r.part == part) {
            let Some(arg) = (match r.param {
                Some(i) => args.get(i).copied(),
                None => receiver,
            }) else { continue };
            let positions = r.positions.or_else(|| {
                let (j, size) = r.at_param?;
                let (lo, hi) = self.position_of(scopes, args.get(j)?)?;
                Some((lo.saturating_mul(size), hi.saturating_mul(size)))
            });
            out.0.extend(self.designated(scopes, state, arg, true).0.into_iter().map(|t| match t.element {
                true => t,
                false => {
                    let mut place = t.place;
                    place.fields.extend(r.fields.iter().cloned());
                    let window = if r.fields.is_empty() { positions.and_then(|p| narrow(t.window, p)) } else { positions };
                    Target { place, window, element: r.element }
                }
            }));
        }
        out
    }

    /// `masked`: names bound inside the expression being read (an arm's pattern, a block's
    /// `let`s), which are not the locals of the same name around it.
    #[allow(clippy::too_many_arguments)]
    fn designate(&self, scopes: &Scopes, state: &State, e: &Expr, by_ref: bool, out: &mut BTreeSet<Target>, masked: &HashSet<String>, depth: usize) {
        if depth > 32 {
            return;
        }
        let tail = |e: &Expr, by_ref: bool, out: &mut BTreeSet<Target>| self.designate(scopes, state, e, by_ref, out, masked, depth + 1);
        let inner = |e: &Expr, bound: HashSet<String>, out: &mut BTreeSet<Target>| {
            let masked: HashSet<String> = masked.union(&bound).cloned().collect();
            self.designate(scopes, state, e, by_ref, out, &masked, depth + 1)
        };
        // `pool.split_at_mut(k).0`: that part of the pool.
        if let Expr::Field(syn::ExprField { base, member: syn::Member::Unnamed(i), .. }) = e {
            if let (true, Some((m, split))) = (i.index < 2, self.split_of(base)) {
                out.extend(self.half(scopes, state, m, split[i.index as usize]));
                return;
            }
        }
        match e {
            Expr::Paren(p) => return tail(&p.expr, by_ref, out),
            Expr::Group(g) => return tail(&g.expr, by_ref, out),
            Expr::Reference(r) => return tail(&r.expr, true, out),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => return tail(&u.expr, true, out),
            Expr::Try(t) => return tail(&t.expr, by_ref, out),
            Expr::Block(b) => {
                if let Some(syn::Stmt::Expr(v, None)) = b.block.stmts.last() {
                    inner(v, super::block_names(&b.block), out);
                }
                return;
            }
            Expr::If(i) => {
                if let Some(syn::Stmt::Expr(v, None)) = i.then_branch.stmts.last() {
                    let mut bound = super::block_names(&i.then_branch);
                    if let Expr::Let(l) = &*i.cond {
                        bound.extend(super::pattern_names(&l.pat));
                    }
                    inner(v, bound, out);
                }
                if let Some((_, els)) = &i.else_branch {
                    tail(els, by_ref, out);
                }
                return;
            }
            Expr::Match(m) => {
                for arm in &m.arms {
                    inner(&arm.body, super::pattern_names(&arm.pat), out);
                }
                return;
            }
            Expr::Index(ix) => {
                // A range of a place (`pool[1..]`; `pool[i..]`: positions not known); one element
                // taken by reference (a method's receiver, `&mut pool[0]`) is the storage at its
                // position (`pool[NULL_BLOCK].fill(0.0)`); by value, a value of its own.
                let (range, element) = match strip_parens(&ix.index) {
                    Expr::Range(_) => (range_of(self.ctx, &ix.index), false),
                    _ if by_ref => (self.position_of(scopes, &ix.index), true),
                    _ => return,
                };
                let mut inner = BTreeSet::new();
                tail(&ix.expr, true, &mut inner);
                out.extend(inner.into_iter().map(|t| match t.element {
                    // Inside an element already (`pool[0][1..]`): still that element.
                    true => t,
                    false => Target { window: range.and_then(|r| narrow(t.window, r)), place: t.place, element },
                }));
                return;
            }
            // A field of an element (`pool[0].data`) is part of that element; a field of what a
            // guard holds (`stats.borrow_mut().count += 1`, `m.lock().unwrap().n`) part of the
            // guarded value.
            Expr::Field(f) if scopes.place_of(e).is_none() => {
                let mut inner = BTreeSet::new();
                tail(&f.base, by_ref, &mut inner);
                let through_guard = super::guard_content(&f.base).is_some();
                let name = crate::dataflow::member_name(&f.member);
                out.extend(inner.into_iter().filter_map(|t| match (t.element, through_guard) {
                    (true, _) => Some(t),
                    (false, true) => Some(Target { place: t.place.field(&name), window: Some(ALL), element: false }),
                    (false, false) => None,
                }));
                return;
            }
            Expr::MethodCall(m) if super::takes_write_guard(m) || (m.args.len() <= 1 && VIEWS.contains(&m.method.to_string().as_str())) => {
                return tail(&m.receiver, true, out);
            }
            // A helper returning a reference into a parameter or `self`: `self.block_mut(b)`,
            // `first_of(cache)`.
            Expr::Call(_) | Expr::MethodCall(_) => {
                if let Some((_, summary)) = self.helper_summary(e).filter(|(_, s)| s.returns.iter().any(|r| r.part.is_none())) {
                    out.extend(self.returned_targets(scopes, state, e, &summary, None).0);
                    return;
                }
            }
            _ => {}
        }
        let Some(place) = scopes.place_of(e) else { return };
        if let Base::Local(id) = place.base {
            if masked.contains(scopes.name(id)) {
                return;
            }
        }
        // The longest part of the place that is a local designating other storage.
        let aliased = (0..=place.fields.len()).rev().find_map(|n| {
            let prefix = Place { base: place.base.clone(), fields: place.fields[..n].to_vec() };
            state.map.get(&prefix).map(|t| (n, t))
        });
        match aliased {
            Some((n, targets)) if by_ref || n == place.fields.len() => {
                for t in &targets.0 {
                    if t.element {
                        out.insert(t.clone());
                        continue;
                    }
                    let mut p = t.place.clone();
                    p.fields.extend(place.fields[n..].iter().cloned());
                    let window = if n == place.fields.len() { t.window } else { Some(ALL) };
                    out.insert(Target { place: p, window, element: false });
                }
            }
            Some(_) => {}
            None if by_ref || (place.fields.is_empty() && self.is_reference(&place.base)) => _ = out.insert(Target { place, window: Some(ALL), element: false }),
            None => {}
        }
    }

    /// `pool.split_at_mut(k)` (through `unwrap`, `expect`, `?`): the call, and each part's
    /// positions (`None`: not known) and whether it is one element.
    fn split_of<'e>(&self, e: &'e Expr) -> Option<(&'e syn::ExprMethodCall, [Part; 2])> {
        let mut call = strip_parens(e);
        while let Expr::Try(_) | Expr::MethodCall(_) = call {
            match call {
                Expr::Try(t) => call = strip_parens(&t.expr),
                Expr::MethodCall(m) if ["unwrap", "expect"].contains(&m.method.to_string().as_str()) => call = strip_parens(&m.receiver),
                _ => break,
            }
        }
        let Expr::MethodCall(m) = call else { return None };
        let split = match (m.method.to_string().as_str(), m.args.len()) {
            // A head whose end is not known stands for its first position, as `[..k]` does: it
            // is written whenever the head is not empty.
            ("split_at_mut", 1) => match self.ctx.int_value(&m.args[0]) {
                Some(k) => [(Some((0, k)), false), (Some((k, i128::MAX)), false)],
                None => [(Some((0, 1)), false), (None, false)],
            },
            ("split_first_mut", 0) => [(Some((0, 1)), true), (Some((1, i128::MAX)), false)],
            ("split_last_mut", 0) => [(None, true), (Some((0, 1)), false)],
            _ => return None,
        };
        Some((m, split))
    }

    /// The storage one part of a split designates.
    fn half(&self, scopes: &Scopes, state: &State, split: &syn::ExprMethodCall, (range, element): Part) -> BTreeSet<Target> {
        let targets = self.designated(scopes, state, &split.receiver, true);
        targets.0.iter().filter(|t| !t.element).map(|t| Target { place: t.place.clone(), window: range.and_then(|r| narrow(t.window, r)), element }).collect()
    }

    /// Whether a base is a reference: a parameter of reference type, or `self` behind one.
    fn is_reference(&self, base: &Base) -> bool {
        let sig = self.def.map_or(self.ctx.sig, |d| d.sig);
        match base {
            Base::SelfValue => sig.receiver().is_some_and(|r| matches!(&*r.ty, syn::Type::Reference(_))),
            Base::Local(id) => self.param_type(*id).is_some_and(|t| matches!(t, syn::Type::Reference(_)) || optional_mut_ref(t).is_some()),
        }
    }

    /// The type of the parameter a local is, if it is one.
    fn param_type(&self, id: LocalId) -> Option<&'a syn::Type> {
        let sig: &'a syn::Signature = self.def.map_or(self.ctx.sig, |d| d.sig);
        sig.inputs.iter().filter_map(|a| if let syn::FnArg::Typed(t) = a { Some(&*t.ty) } else { None }).nth(id as usize)
    }

    /// `let targets = vec![NULL_BLOCK, 1, 2];` (or `targets = [..]`): the least constant the list
    /// holds, for the loops over it ([`Writes::listed`]).
    fn list_items(&mut self, list: LocalId, value: &Expr) {
        let items = match strip_parens(value) {
            Expr::Array(a) => Some(a.elems.iter().cloned().collect::<Vec<_>>()),
            Expr::Macro(m) => match super::vec_items(&m.mac) {
                Some(super::VecItems::List(items)) => Some(items),
                _ => None,
            },
            _ => None,
        };
        if let Some(least) = items.iter().flatten().filter_map(|item| self.ctx.int_value(item)).min() {
            self.listed.insert(list, least);
        }
    }

    /// The places an assigned expression writes, at which positions: `p[i][j]` and `p[i].x`
    /// write within `p[i]`.
    /// The positions an index expression names: a constant, a range of constants, or a loop
    /// counter over such a range (`for b in 0..n { cache[b] = .. }` writes from 0 on).
    fn position_of(&self, scopes: &Scopes, index: &Expr) -> Option<Positions> {
        range_of(self.ctx, index).or_else(|| self.ctx.int_value(index).map(|v| (v, v.saturating_add(1)))).or_else(|| self.counter(scopes, index)).or_else(|| self.scaled_position(scopes, index))
    }

    /// `dst * BLOCK_SIZE` of a local holding known positions (`for &(src, dst) in &pairs`, `let
    /// b = NULL_BLOCK;`, a loop counter): the first position of its first block (as for a loop
    /// counter, the first is what is known to be written).
    fn scaled_position(&self, scopes: &Scopes, index: &Expr) -> Option<Positions> {
        let Expr::Binary(b) = strip_parens(index) else { return None };
        if !matches!(b.op, syn::BinOp::Mul(_)) {
            return None;
        }
        let ((lo, _), k) = match (self.counter(scopes, &b.left), self.counter(scopes, &b.right)) {
            (Some(at), None) => (at, self.ctx.int_value(&b.right)?),
            (None, Some(at)) => (at, self.ctx.int_value(&b.left)?),
            _ => return None,
        };
        let first = lo.saturating_mul(k);
        Some((first, first.saturating_add(1)))
    }

    /// The positions a loop counter named by `index` takes here.
    fn counter(&self, scopes: &Scopes, index: &Expr) -> Option<Positions> {
        match scopes.place_of(strip_parens(index)) {
            Some(Place { base: Base::Local(id), fields }) if fields.is_empty() && matches!(strip_parens(index), Expr::Path(_)) => self.counters.get(&id).copied(),
            // `w.block` of `let w = Warm { block: NULL_BLOCK, .. }`.
            Some(place @ Place { base: Base::Local(_), .. }) if matches!(strip_parens(index), Expr::Field(_)) => self.parts.get(&place).copied(),
            _ => None,
        }
    }

    fn written(&self, scopes: &Scopes, state: &State, target: &Expr) -> Vec<(Place, Option<Positions>)> {
        // `*p.as_mut_ptr().add(k) = v`: the position `k`.
        if let Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. }) = strip_parens(target) {
            if let Some((targets, at)) = self.pointer_into(scopes, state, expr) {
                return targets.0.into_iter().map(|t| {
                    let at = t.within(at.map(|a| (a, a.saturating_add(1))));
                    (t.place, at)
                }).collect();
            }
        }
        match strip_parens(target) {
            Expr::Index(ix) => match strip_parens(&ix.expr) {
                Expr::Index(_) => self.written(scopes, state, &ix.expr),
                Expr::Field(f) if matches!(strip_parens(&f.base), Expr::Index(_)) => self.written(scopes, state, &ix.expr),
                _ => {
                    let at = self.position_of(scopes, &ix.index);
                    self.designated(scopes, state, &ix.expr, true).0.into_iter().map(|t| {
                        let at = t.within(at);
                        (t.place, at)
                    }).collect()
                }
            },
            Expr::Field(f) if matches!(strip_parens(&f.base), Expr::Index(_)) => self.written(scopes, state, &f.base),
            other => self.designated(scopes, state, other, true).0.into_iter().map(|t| (t.place, t.window)).collect(),
        }
    }

    fn record(&mut self, place: Place, positions: Option<Positions>, target: &Expr, how: How<'a>) {
        let at = self.ctx.expr_range(target);
        if !self.seen.insert((at.start, at.end, place.clone(), positions)) {
            return;
        }
        // Only a summary maps an index to a parameter.
        let index = self.def.and_then(|_| index_param(self.ctx, target)).map(|(name, scale)| (name, ByParam { scale, to_end: false }));
        self.writes.push(Write { place, positions, at, how, index });
    }

    /// The writes one expression makes (its operands were seen before it).
    fn writes_in(&mut self, scopes: &Scopes, state: &State, e: &Expr) {
        match e {
            // `p = ..` re-binds `p` (see `transfer`); it writes no storage `p` designated.
            Expr::Assign(a) if matches!(strip_parens(&a.left), Expr::Path(_)) => {}
            Expr::Assign(a) => {
                for (place, at) in self.written(scopes, state, &a.left) {
                    self.record(place, at, &a.left, How::Assign);
                }
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                for (place, at) in self.written(scopes, state, &b.left) {
                    self.record(place, at, &b.left, How::Compound);
                }
            }
            Expr::Call(_) | Expr::MethodCall(_) => self.call(scopes, state, e),
            _ => {}
        }
    }

    fn call(&mut self, scopes: &Scopes, state: &State, e: &Expr) {
        let ctx = self.ctx;
        if let Some((site, callee)) = ctx.callee(e) {
            for (_, target, _) in callee.contract.writes() {
                if let Some(index) = site.arg_named(callee, target.index.root_name()).filter(|_| target.index.segments.len() == 1) {
                    if let Some(at) = self.counter(scopes, index) {
                        // A loop counter's positions are those of every round: joined.
                        let range = ctx.expr_range(index);
                        let known = self.counted_args.entry((range.start, range.end)).or_insert(at);
                        *known = (known.0.min(at.0), known.1.max(at.1));
                    }
                }
                let param = target.place.root_name();
                let Some(arg) = site.arg_named(callee, param) else { continue };
                for t in self.designated(scopes, state, arg, false).0 {
                    self.record(t.place, t.window, arg, How::Callee { callee, param: param.to_string() });
                }
            }
            // `other.add_(bias)` of `#[reuse::contract(aliases(return = self))] fn add_(&mut
            // self, ..)`: an input the output is made in writes what it is given, in place.
            for (_, alias) in callee.contract.aliases() {
                let param = alias.input.root_name();
                let is_self = param == "self";
                let arg = if is_self { site.self_arg(callee) } else { site.arg_named(callee, param) };
                let Some(arg) = arg else { continue };
                for t in self.designated(scopes, state, arg, is_self).0 {
                    self.record(t.place, None, arg, How::Callee { callee, param: param.to_string() });
                }
            }
            return;
        }
        if let Some((name, summary)) = self.helper_summary(e) {
            let (receiver, args) = call_args(e);
            for HelperWrite { param, fields, positions, writer, at_param } in &summary.writes {
                let arg = match param {
                    Some(i) => args.get(*i).copied(),
                    None => receiver,
                };
                // `zero_block(pool, NULL_BLOCK)`: the positions are the argument's value's.
                let positions = &positions.or_else(|| at_param.and_then(|(j, by)| by.positions(self.position_of(scopes, args.get(j)?))));
                let Some(arg) = arg else { continue };
                // A receiver is taken by reference; an argument must be one.
                for t in self.designated(scopes, state, arg, param.is_none()).0 {
                    let at = if fields.is_empty() || t.element { t.within(*positions) } else { *positions };
                    let mut place = t.place;
                    if !t.element {
                        place.fields.extend(fields.iter().cloned());
                    }
                    let writer = writer.as_ref().and_then(|(i, p)| Some((ctx.index.fns.get(*i)?, p.clone())));
                    self.record(place, at, arg, How::Helper { name: name.clone(), writer });
                }
            }
            // `with_scratch(scratch, |s| s.fill(0.0))`: the closure the helper calls with
            // `scratch` writes it (at positions not known here) unless it only reads its input.
            // A function given instead of a closure may write what it is handed.
            for (j, inputs) in &summary.calls_back {
                let closure = match args.get(*j).map(|a| strip_parens(a)) {
                    Some(Expr::Closure(c)) => Some(c),
                    _ => None,
                };
                for (k, passed) in inputs.iter().enumerate() {
                    let Some((param, fields)) = passed else { continue };
                    let Some(arg) = (match param {
                        Some(i) => args.get(*i).copied(),
                        None => receiver,
                    }) else { continue };
                    if let Some(c) = closure {
                        let reads = match c.inputs.iter().nth(k) {
                            Some(syn::Pat::Ident(p)) => only_read_through(&p.ident.to_string(), &c.body),
                            Some(syn::Pat::Wild(_)) | None => true,
                            Some(_) => false,
                        };
                        if reads {
                            continue;
                        }
                    }
                    for t in self.designated(scopes, state, arg, param.is_none()).0 {
                        let mut place = t.place;
                        if !t.element {
                            place.fields.extend(fields.iter().cloned());
                        }
                        self.record(place, None, arg, How::Helper { name: name.clone(), writer: None });
                    }
                }
            }
            return;
        }
        if let Expr::MethodCall(m) = e {
            self.method(scopes, state, m);
        }
        // `ptr::write(p.as_mut_ptr().add(k), v)`: the position `k`; `write_bytes(p, v, n)` and a
        // copy to `p` of `n`, the `n` from it.
        if let Some((name, args)) = self.ctx.std_call(e, "ptr", &["write", "write_volatile", "write_unaligned", "write_bytes", "copy", "copy_nonoverlapping"]) {
            let (pointer, count) = match name.as_str() {
                "write_bytes" => (args.first(), args.get(2)),
                "copy" | "copy_nonoverlapping" => (args.get(1), args.get(2)),
                _ => (args.first(), None),
            };
            if let Some(pointer) = pointer {
                self.record_pointer_write(scopes, state, pointer, count.copied(), format!("ptr::{name}"));
            }
            return;
        }
        // `mem::swap(a, b)` writes both; `mem::replace(a, v)`, `mem::take(a)` their first.
        if let Some((op, c)) = super::mem_move(self.ctx, e) {
            let written = if op == super::MemMove::Swap { 2 } else { 1 };
            for arg in c.args.iter().take(written) {
                for t in self.designated(scopes, state, arg, false).0 {
                    self.record(t.place, t.window, arg, How::Method(format!("mem::{}", op.name())));
                }
            }
            return;
        }
        // `&mut x` handed to a call that is not known (a method's receiver is judged above).
        // In a helper, a closure it was given and calls (`f(&mut self.data)`) is its caller's
        // to judge: what the closure does is read where it is written (`Summary::calls_back`).
        if let (Some(def), Expr::Call(c)) = (self.def, e) {
            if let Expr::Path(p) = strip_parens(&c.func) {
                if p.path.get_ident().is_some_and(|f| dataflow::param_names(def.sig).iter().any(|q| f == q)) {
                    return;
                }
            }
        }
        let (_, args) = call_args(e);
        for arg in args {
            if let Expr::Reference(r) = arg {
                if r.mutability.is_some() {
                    for (place, _) in self.written(scopes, state, &r.expr) {
                        self.record(place, None, arg, How::MutRef);
                    }
                }
            }
        }
    }

    /// The storage a raw pointer points into and the position it points at: `p.as_mut_ptr()` at
    /// 0, `.add(k)` / `.offset(k)` of one `k` further (`None`: a position not known).
    fn pointer_into(&self, scopes: &Scopes, state: &State, e: &Expr) -> Option<(Targets, Option<i128>)> {
        let Expr::MethodCall(m) = strip_parens(e) else { return None };
        match (m.method.to_string().as_str(), m.args.len()) {
            ("as_mut_ptr", 0) => Some((self.designated(scopes, state, &m.receiver, true), Some(0))),
            ("add" | "offset", 1) => {
                let (targets, at) = self.pointer_into(scopes, state, &m.receiver)?;
                Some((targets, at.zip(self.ctx.int_value(&m.args[0])).map(|(a, k)| a.saturating_add(k))))
            }
            _ => None,
        }
    }

    /// A store through a raw pointer into a place: `count` positions from where it points.
    fn record_pointer_write(&mut self, scopes: &Scopes, state: &State, pointer: &Expr, count: Option<&Expr>, how: String) {
        let Some((targets, at)) = self.pointer_into(scopes, state, pointer) else { return };
        // A count not known is at least one (a copy of none writes nothing): the first position
        // is written (`copy_nonoverlapping(src, P.as_mut_ptr(), src.len())`).
        let count = match count {
            Some(n) => Some(self.ctx.int_value(n).unwrap_or(1)),
            None => Some(1),
        };
        let at = at.zip(count).map(|(a, n)| (a, a.saturating_add(n)));
        for t in targets.0 {
            self.record(t.place.clone(), at.and_then(|a| t.within(Some(a))), pointer, How::Method(how.clone()));
        }
    }

    fn method(&mut self, scopes: &Scopes, state: &State, m: &syn::ExprMethodCall) {
        let method = m.method.to_string();
        let receiver = &*m.receiver;
        // A store through a raw pointer: `p.as_mut_ptr().add(k).write(v)`, `.write_bytes(v, n)`.
        if let ("write" | "write_volatile" | "write_unaligned", 1) | ("write_bytes", 2) = (method.as_str(), m.args.len()) {
            if self.pointer_into(scopes, state, receiver).is_some() {
                return self.record_pointer_write(scopes, state, receiver, m.args.get(1), method);
            }
        }
        // `first_mut()`, `first_chunk_mut::<N>()`: the first position, the first N (an N not
        // written out is at least one).
        if ["first_mut", "first_chunk_mut"].contains(&method.as_str()) && m.args.is_empty() {
            let n = m.turbofish.as_ref().and_then(|t| match t.args.first() {
                Some(syn::GenericArgument::Const(c)) => self.ctx.int_value(c),
                Some(syn::GenericArgument::Type(syn::Type::Path(p))) => p.path.get_ident().and_then(|i| self.ctx.int_value(&syn::parse_quote!(#i))),
                _ => None,
            });
            for t in self.designated(scopes, state, receiver, true).0 {
                self.record(t.place.clone(), t.within(Some((0, n.unwrap_or(1).max(1)))), receiver, How::Method(method.clone()));
            }
            return;
        }
        // An element borrowed mutably and only read (`if let Some(b) = P.get_mut(k) { b.rc }`).
        if self.narrowed.iter().any(|n| std::ptr::eq(n.call, m) && n.ranges.is_empty()) {
            return;
        }
        // Methods that take the positions they write.
        let positions: Option<Vec<&Expr>> = match method.as_str() {
            "swap" => Some(m.args.iter().collect()),
            "copy_within" => Some(m.args.iter().skip(1).collect()),
            "get_mut" | "get_unchecked_mut" => Some(m.args.iter().take(1).collect()),
            _ => None,
        };
        if let Some(positions) = positions {
            for t in self.designated(scopes, state, receiver, true).0 {
                for p in &positions {
                    let at = self.position_of(scopes, p);
                    self.record(t.place.clone(), t.within(at), receiver, How::Method(method.clone()));
                }
            }
            return;
        }
        // Removing or inserting at `k` moves every entry after it, and `truncate(k)` drops them:
        // the positions from `k` to the end (`drain(a..b)` from `a`); `k` not known, all of them.
        let from_k = match (method.as_str(), m.args.len()) {
            ("remove" | "swap_remove" | "truncate" | "split_off" | "drain", 1) | ("insert", 2) => Some(&m.args[0]),
            _ => None,
        };
        if let Some(k) = from_k {
            let at = self.position_of(scopes, k).map_or(ALL, |(lo, _)| (lo, i128::MAX));
            for t in self.designated(scopes, state, receiver, true).0 {
                self.record(t.place.clone(), t.within(Some(at)), receiver, How::Method(method.clone()));
            }
            return;
        }
        // Hands out parts to be written elsewhere: not judged here. `write()` without arguments
        // takes a lock's write guard: the writes through the guard are the writes (`VIEWS`).
        // A `chunks_mut(n)` hands out every part, from position 0, whatever `n` is (narrowed by
        // its chain as `iter_mut()` is); `split_at_mut(k)` hands out two, bound where they are
        // taken apart (`bind_parts`).
        if ARGUMENT_WRITERS.contains(&method.as_str()) {
            if let Some(arg) = m.args.first() {
                for t in self.designated(scopes, state, arg, true).0 {
                    self.record(t.place, None, arg, How::Method(method.clone()));
                }
            }
        }
        let guard = super::takes_write_guard(m);
        let parts = ["chunks_mut", "chunks_exact_mut"].contains(&method.as_str());
        if guard || method == "split_at_mut" || self.viewed.contains(&(m as *const _)) {
            return;
        }
        if !parts && !MUTATING_METHODS.contains(&method.as_str()) {
            // `ws.reset()` of a trait's `fn reset(&mut self);`: the receiver, at positions no
            // implementation here tells.
            // (The types of the function checked: a helper's receivers are not typed here.)
            if self.def.is_none() && self.ctx.trait_method_takes_mut_self(receiver, &method) {
                for t in self.designated(scopes, state, receiver, true).0 {
                    self.record(t.place, None, receiver, How::Method(method.clone()));
                }
            }
            return;
        }
        let narrowed = self.narrowed.iter().find(|n| std::ptr::eq(n.call, m));
        // In a summary, `skip(first)` of a parameter: the caller's argument gives the positions.
        if let Some((name, scale)) = narrowed.and_then(|n| n.from_param.clone()).filter(|_| self.def.is_some()) {
            let how = narrowed.map_or(method, |n| n.how.clone());
            for t in self.designated(scopes, state, receiver, true).0 {
                let before = self.writes.len();
                self.record(t.place.clone(), None, receiver, How::Method(how.clone()));
                if let Some(w) = self.writes.get_mut(before) {
                    w.index = Some((name.clone(), ByParam { scale, to_end: true }));
                }
            }
            return;
        }
        let narrowed = narrowed.map(|n| (n.ranges.clone(), n.how.clone()));
        // Positions not known: what a raw pointer handed to a kernel writes is the contract's
        // to say (and the runtime shim's to check); growing writes only past the end; the last
        // entry's position is not known here.
        let unknown = ["as_mut_ptr", "as_mut_ptr_range", "push", "push_back", "extend", "extend_from_slice", "append", "last_mut", "pop", "pop_back", "split_off", "extend_from_within"].contains(&method.as_str())
            || (method == "resize" && m.args.first().is_some_and(grows_from_len));
        let (ranges, how) = narrowed.unwrap_or((vec![ALL], method));
        for t in self.designated(scopes, state, receiver, true).0 {
            for range in &ranges {
                let at = if unknown && !t.element { None } else { t.within(Some(*range)) };
                self.record(t.place.clone(), at, receiver, How::Method(how.clone()));
            }
        }
    }

    /// The helper a call designates (a function of this file, or of another file of the
    /// workspace, resolved by path), by its name, and what it writes.
    fn helper_summary(&self, call: &Expr) -> Option<(String, Arc<Summary>)> {
        let (name, summary, _) = super::summarised_helper(self.ctx, call, self.def, self.depth, &self.ctx.summaries.writes.helpers, &self.ctx.items.summaries.writes, summarise)?;
        Some((name, summary))
    }

    /// A helper's writes, in its caller's terms: those at its `&mut` parameters and at `self`.
    fn summary(&self, def: &FnDef<'a>) -> Summary {
        let by_ref: Vec<bool> = def
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                // (`c: &AtomicU64`, `rows: &Mutex<Vec<f32>>`, `stats: &Stats` of a struct with
                // such fields: written through a shared reference.)
                syn::FnArg::Typed(t) => Some(matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some()
                    || crate::resolve::writes_through_shared_in(&r.elem, &self.ctx.resolver.imports)
                    || crate::resolve::type_name(&r.elem).is_some_and(|owner| self.ctx.resolver.fields.has_interior(&owner)))),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let self_mut = def.sig.receiver().is_some_and(|r| matches!(&*r.ty, syn::Type::Reference(t) if t.mutability.is_some()));
        // The parameters by position, by name; one the body binds again is not known to hold
        // the caller's value where it is used.
        let rebound = pattern_idents(def.body);
        let params: Vec<Option<String>> = def
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(match &*t.pat {
                    syn::Pat::Ident(i) if !rebound.contains(&i.ident.to_string()) && i.mutability.is_none() => Some(i.ident.to_string()),
                    _ => None,
                }),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let mut s = Summary::default();
        for w in &self.writes {
            let param = match w.place.base {
                Base::Local(id) if by_ref.get(id as usize) == Some(&true) => Some(id as usize),
                Base::SelfValue if self_mut => None,
                _ => continue,
            };
            let writer = match &w.how {
                How::Callee { callee, param } | How::Helper { writer: Some((callee, param)), .. } => {
                    self.ctx.index.fns.iter().position(|f| std::ptr::eq(f, *callee)).map(|i| (i, param.clone()))
                }
                _ => None,
            };
            let at_param = w.index.as_ref().filter(|_| w.positions.is_none()).and_then(|(n, k)| Some((params.iter().position(|p| p.as_deref() == Some(n.as_str()))?, *k)));
            s.writes.push(HelperWrite { param, fields: w.place.fields.clone(), positions: w.positions, writer, at_param });
        }
        s.calls_back = called_closures(def.body, &params);
        s.passes = self.passes.clone();
        for (t, template, part) in &self.returned {
            let param = match t.place.base {
                Base::Local(id) if by_ref.get(id as usize) == Some(&true) => Some(id as usize),
                Base::SelfValue if self_mut => None,
                _ => continue,
            };
            // Positions given by a parameter the body binds again are not known.
            let at_param = match template {
                Some((name, size)) => match params.iter().position(|p| p.as_deref() == Some(name.as_str())) {
                    Some(j) => Some((j, *size)),
                    None => continue,
                },
                None => None,
            };
            s.returns.push(Returned { param, fields: t.place.fields.clone(), positions: if at_param.is_some() { None } else { t.window }, at_param, element: t.element, part: *part });
        }
        s
    }
}

/// The calls of a body that call one of its parameters (a closure it was given) with others of
/// its parameters (`f(s)`, `f(&mut *s)`): the closure parameter's position, and the parameter
/// passed as each argument.
fn called_closures(body: &syn::Block, params: &[Option<String>]) -> Vec<(usize, Vec<Option<Passed>>)> {
    struct Calls<'p> {
        params: &'p [Option<String>],
        out: Vec<(usize, Vec<Option<Passed>>)>,
    }
    impl Calls<'_> {
        /// The parameter, or field path of one or of `self`, an argument hands on.
        fn passed(&self, e: &Expr) -> Option<Passed> {
            let mut e = strip_parens(e);
            loop {
                e = match e {
                    Expr::Reference(r) => strip_parens(&r.expr),
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip_parens(&u.expr),
                    _ => break,
                };
            }
            let mut fields = Vec::new();
            while let Expr::Field(f) = e {
                let syn::Member::Named(n) = &f.member else { return None };
                fields.insert(0, n.to_string());
                e = strip_parens(&f.base);
            }
            let Expr::Path(p) = e else { return None };
            let name = p.path.get_ident()?.to_string();
            if name == "self" {
                return Some((None, fields));
            }
            Some((Some(self.params.iter().position(|q| q.as_deref() == Some(name.as_str()))?), fields))
        }
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let Some((Some(f), _)) = self.passed(&c.func).filter(|(_, fields)| fields.is_empty() && matches!(strip_parens(&c.func), Expr::Path(_))) {
                let passed = c.args.iter().map(|a| self.passed(a)).collect();
                if !self.out.iter().any(|(g, p)| *g == f && *p == passed) {
                    self.out.push((f, passed));
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut calls = Calls { params, out: Vec::new() };
    calls.visit_block(body);
    calls.out
}

/// Whether a return type is a mutable reference (`&mut [f32]`, `Option<&mut T>`).
fn returns_mut_ref(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(r) if r.mutability.is_some()) || optional_mut_ref(ty).is_some()
}

/// An index written in terms of one parameter: `i` (the element at `i`), `b * BS..(b + 1) * BS`
/// or `b * BS..b * BS + BS` (block `b` of `BS` positions): the parameter's name, the block size,
/// and whether it is one element.
fn param_positions(ctx: &FnCtx, index: &Expr) -> Option<(String, i128, bool)> {
    let name = |e: &Expr| match strip_parens(e) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    // `p * K` or `K * p`.
    let scaled = |e: &Expr| match strip_parens(e) {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => match (name(&b.left), name(&b.right)) {
            (Some(p), _) if ctx.int_value(&b.right).is_some() => Some((p, ctx.int_value(&b.right)?)),
            (_, Some(p)) if ctx.int_value(&b.left).is_some() => Some((p, ctx.int_value(&b.left)?)),
            _ => None,
        },
        _ => None,
    };
    match strip_parens(index) {
        Expr::Path(_) => Some((name(index)?, 1, true)),
        Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
            let (p, k) = scaled(r.start.as_deref()?)?;
            let end = strip_parens(r.end.as_deref()?);
            let ends_block = match end {
                // `(p + 1) * K`
                Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
                    let (plus, times) = if ctx.int_value(&b.right) == Some(k) { (&b.left, true) } else { (&b.right, ctx.int_value(&b.left) == Some(k)) };
                    times && matches!(strip_parens(plus), Expr::Binary(a) if matches!(a.op, syn::BinOp::Add(_)) && name(&a.left).as_deref() == Some(p.as_str()) && ctx.int_value(&a.right) == Some(1))
                }
                // `p * K + K`
                Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => scaled(&b.left).is_some_and(|(q, kk)| q == p && kk == k) && ctx.int_value(&b.right) == Some(k),
                _ => false,
            };
            ends_block.then_some((p, k, false))
        }
        _ => None,
    }
}

/// The name a write's target indexes its place with, and the positions each of its values
/// stands for: `pool[b]`, `self.blocks[b].data`, `pool[b][j]` (the element `pool[b]`), `cache[b
/// * BS..(b + 1) * BS]` (`BS` of them).
fn index_param(ctx: &FnCtx, target: &Expr) -> Option<(String, i128)> {
    match strip_parens(target) {
        Expr::Index(ix) => match strip_parens(&ix.expr) {
            inner @ Expr::Index(_) => index_param(ctx, inner),
            Expr::Field(f) if matches!(strip_parens(&f.base), Expr::Index(_)) => index_param(ctx, &f.base),
            // `pool[b]`, `cache[b * BS..(b + 1) * BS]`.
            _ => param_positions(ctx, &ix.index).map(|(name, k, _)| (name, k)),
        },
        Expr::Field(f) => index_param(ctx, &f.base),
        Expr::Reference(r) => index_param(ctx, &r.expr),
        _ => None,
    }
}

/// Every name a pattern of the block binds (`let`s, arms, closures' parameters).
fn pattern_idents(body: &syn::Block) -> HashSet<String> {
    struct Idents(HashSet<String>);
    impl<'ast> Visit<'ast> for Idents {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut v = Idents(HashSet::new());
    v.visit_block(body);
    v.0
}

/// The one constant among the values an `if`/`else` or a `match` gives, when its branches give
/// one (and other values that are not constants).
fn constant_branch(ctx: &FnCtx, e: &Expr) -> Option<i128> {
    let mut constants: Vec<i128> = crate::rules::branches(e)?.iter().filter_map(|b| ctx.int_value(b.value)).collect();
    constants.dedup();
    match constants[..] {
        [v] => Some(v),
        _ => None,
    }
}

/// `len() + n`, `x.len() + 1`: a new length past the current one (a `resize` that only grows).
fn grows_from_len(e: &Expr) -> bool {
    matches!(strip_parens(e), Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) && matches!(strip_parens(&b.left), Expr::MethodCall(m) if m.method == "len"))
}

/// What the helper `def` of `ctx`'s file writes, `depth` helpers down.
fn summarise<'a>(ctx: &FnCtx<'a>, def: &FnDef<'a>, depth: usize) -> Option<Arc<Summary>> {
    let mut inner = Writes::new(ctx, Some(def), depth);
    dataflow::solve(&mut inner, def.sig, def.body, State::default()).ok()?;
    Some(Arc::new(inner.summary(def)))
}

/// An `iter_mut()` call (or another that hands out parts) that the chain consuming it narrows.
struct Narrowed {
    call: *const syn::ExprMethodCall,
    /// The ranges of positions it keeps (two for all but one).
    ranges: Vec<Positions>,
    /// The chain as a message names it (`iter_mut().skip(..)`).
    how: String,
    /// `.skip(first)` of a name that is no constant: the name, and the positions each of its
    /// values stands for (a helper's parameter gives them at its calls).
    from_param: Option<(String, i128)>,
}

/// The `iter_mut()` calls of a body that the chain consuming them narrows: `.skip(k)` from `k`
/// on, `.take(k)` the first `k`, `.nth(k)` the one at `k` (`.next()` the first), through
/// adapters that keep positions.
fn narrowed_iter_muts(ctx: &FnCtx, body: &syn::Block, out: &mut Vec<Narrowed>) {
    struct Chains<'c, 'a, 'o, 'ast> {
        ctx: &'c FnCtx<'a>,
        out: &'o mut Vec<Narrowed>,
        /// The closures bound to names so far (`let add = |x: &mut f32| ..;`), handed to a
        /// consumer by name (`for_each(add)`); `None` for a name bound more than once.
        named: HashMap<String, Option<&'ast syn::ExprClosure>>,
    }
    impl Chains<'_, '_, '_, '_> {
        /// `P.iter_mut().enumerate()` whose index `i` is kept to some positions: the others are
        /// not written (`.filter(|(i, _)| *i != NULL_BLOCK)`, `*i > 0`, a loop body that starts
        /// with `if i == NULL_BLOCK { continue; }` or is one `if i != NULL_BLOCK { .. }`).
        fn kept_positions(&mut self, enumerated: &Expr, kept: Vec<Positions>, how: &str) {
            let Expr::MethodCall(e) = strip_parens(enumerated) else { return };
            let mut e = e;
            // The index still counts the positions after `take(n)`, `skip(k)`, `step_by(k)`:
            // `iter_mut().enumerate().take(n)`.
            while ["take", "skip", "step_by", "by_ref", "inspect"].contains(&e.method.to_string().as_str()) {
                let Expr::MethodCall(r) = strip_parens(&e.receiver) else { return };
                e = r;
            }
            let Expr::MethodCall(inner) = strip_parens(&e.receiver) else { return };
            let mut inner = inner;
            // Through adapters that keep positions: `chunks_mut(BS).zip(free).enumerate()`.
            while part_size(self.ctx, inner).is_none() && ["zip", "inspect", "by_ref"].contains(&inner.method.to_string().as_str()) {
                let Expr::MethodCall(r) = strip_parens(&inner.receiver) else { return };
                inner = r;
            }
            if let (true, Some(size)) = (e.method == "enumerate", part_size(self.ctx, inner)) {
                let ptr = inner as *const _;
                if !self.out.iter().any(|n| n.call == ptr) {
                    let ranges = kept.into_iter().filter(|(lo, hi)| lo < hi).map(|r| scaled(r, size)).collect();
                    self.out.push(Narrowed { call: ptr, ranges, how: format!("{}().enumerate(){how}", inner.method), from_param: None });
                }
            }
        }

        /// The positions where the comparison `cond` of the index `i` with a constant is `holds`
        /// (`i != K`: all but K; `i > K`: from K + 1; `i < K`: below K; either side).
        /// `a && b` holds (and `a || b` fails) only where both parts do: the positions both keep,
        /// or those one keeps where the other says nothing of the index (`if i == 0 || !free[i]
        /// { continue; }`); `!a` flips.
        fn kept_by(&self, cond: &Expr, index: &str, holds: bool) -> Option<Vec<Positions>> {
            let b = match strip_parens(cond) {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => return self.kept_by(&u.expr, index, !holds),
                Expr::Binary(b) => b,
                _ => return None,
            };
            if matches!((b.op, holds), (syn::BinOp::And(_), true) | (syn::BinOp::Or(_), false)) {
                return match (self.kept_by(&b.left, index, holds), self.kept_by(&b.right, index, holds)) {
                    (Some(l), Some(r)) => Some(l.iter().flat_map(|&(a, b)| r.iter().map(move |&(c, d)| (a.max(c), b.min(d)))).filter(|(a, b)| a < b).collect()),
                    (one, other) => one.or(other),
                };
            }
            let is_index = |e: &Expr| crate::rules::expr_text(crate::resolve::strip(e)) == index;
            // The comparison read as `i OP k`.
            let (op, k) = if is_index(&b.left) {
                (b.op, self.ctx.int_value(&b.right)?)
            } else if is_index(&b.right) {
                (mirrored(b.op), self.ctx.int_value(&b.left)?)
            } else {
                return None;
            };
            where_holds(op, k, holds)
        }

        /// The positions a loop body over `(i, x)` writes at: past a leading `if C { continue; }`,
        /// where C fails; in a body that is one `if C { .. }` (no `else`), where C holds.
        fn kept_by_body(&self, stmts: &[syn::Stmt], index: &str) -> Option<Vec<Positions>> {
            match stmts {
                [syn::Stmt::Expr(Expr::If(c), _), ..] if c.else_branch.is_none() && matches!(c.then_branch.stmts.as_slice(), [syn::Stmt::Expr(Expr::Continue(_), _)]) => {
                    self.kept_by(&c.cond, index, false)
                }
                [syn::Stmt::Expr(Expr::If(c), _)] if c.else_branch.is_none() => self.kept_by(&c.cond, index, true),
                // `match i { NULL_BLOCK => continue, _ => .. }`: past an arm that skips one position.
                [syn::Stmt::Expr(Expr::Match(m), _), ..] if crate::rules::expr_text(crate::resolve::strip(&m.expr)) == index => {
                    let skips = |arm: &syn::Arm| arm.guard.is_none() && matches!(crate::rules::tail(&arm.body), Expr::Continue(_)) || matches!(&*arm.body, Expr::Block(b) if matches!(b.block.stmts.as_slice(), [syn::Stmt::Expr(Expr::Continue(_), _)]));
                    let [skipped] = m.arms.iter().filter(|a| skips(a)).collect::<Vec<_>>()[..] else { return None };
                    let k = match &skipped.pat {
                        syn::Pat::Lit(l) => self.ctx.int_value(&Expr::Lit(l.clone())),
                        syn::Pat::Path(p) => self.ctx.int_value(&Expr::Path(p.clone())),
                        // A constant's name reads as a binding to the parser.
                        syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => {
                            self.ctx.int_value(&Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path: i.ident.clone().into() }))
                        }
                        _ => None,
                    }?;
                    where_holds(syn::BinOp::Eq(Default::default()), k, false)
                }
                _ => None,
            }
        }
    }
    /// The name of the index of an `(i, x)` pattern (`&(i, _)`, `(i, x)`).
    fn index_name(p: &syn::Pat) -> Option<String> {
        match p {
            syn::Pat::Reference(r) => index_name(&r.pat),
            syn::Pat::Tuple(t) => match t.elems.first() {
                Some(syn::Pat::Ident(i)) => Some(i.ident.to_string()),
                _ => None,
            },
            _ => None,
        }
    }
    impl Chains<'_, '_, '_, '_> {
        /// An `iter_mut()` whose items the code that takes them only reads (`for x in
        /// v.iter_mut() { total += *x; }`: a habit, not a write) writes no position.
        fn read_only(&mut self, iterated: &Expr, pat: &syn::Pat, body: &Expr) {
            if let Some(m) = iter_mut_of_items(iterated, pat, body) {
                let ptr = m as *const _;
                if !self.out.iter().any(|n| n.call == ptr) {
                    self.out.push(Narrowed { call: ptr, ranges: Vec::new(), how: "iter_mut()".to_string(), from_param: None });
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Chains<'_, '_, '_, 'ast> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (syn::Pat::Ident(name), Some(Expr::Closure(c))) = (&l.pat, l.init.as_ref().map(|i| strip_parens(&i.expr))) {
                let seen = self.named.contains_key(&name.ident.to_string());
                self.named.insert(name.ident.to_string(), (!seen).then_some(c));
            }
            syn::visit::visit_local(self, l);
        }
        /// `if let Some(b) = P.get_mut(k) { return b.rc; }`: an element borrowed mutably and
        /// only read writes nothing.
        fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
            if let Expr::Let(l) = strip_parens(&i.cond) {
                let bound = match &*l.pat {
                    syn::Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1 => match t.elems.first() {
                        Some(syn::Pat::Ident(b)) if b.by_ref.is_none() && b.subpat.is_none() => Some(b.ident.to_string()),
                        _ => None,
                    },
                    _ => None,
                };
                if let (Some(name), Expr::MethodCall(m)) = (bound, strip_parens(&l.expr)) {
                    let then = Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: i.then_branch.clone() });
                    if ["get_mut", "first_mut", "last_mut"].contains(&m.method.to_string().as_str()) && only_read_through(&name, &then) {
                        let ptr = m as *const _;
                        if !self.out.iter().any(|n| n.call == ptr) {
                            self.out.push(Narrowed { call: ptr, ranges: Vec::new(), how: format!("{}()", m.method), from_param: None });
                        }
                    }
                }
            }
            syn::visit::visit_expr_if(self, i);
        }
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            let body = Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: f.body.clone() });
            self.read_only(&f.expr, &f.pat, &body);
            if let Some(kept) = index_name(&f.pat).and_then(|i| self.kept_by_body(&f.body.stmts, &i)) {
                self.kept_positions(&f.expr, kept, "");
            }
            syn::visit::visit_expr_for_loop(self, f);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let method = m.method.to_string();
            // The consumers whose closure is all that takes the items (`all`, `any`,
            // `position`; a `filter` counted), as `for_each`'s is; and `map`, whose closure's
            // values are what the rest of the chain sees (`iter_mut().map(|v| *v).sum()`).
            let consumer = match (method.as_str(), strip_parens(&m.receiver)) {
                ("for_each" | "all" | "any" | "position" | "map" | "filter_map", _) => Some((&*m.receiver, m.args.first())),
                ("count", Expr::MethodCall(f)) if f.method == "filter" && m.args.is_empty() => Some((&*f.receiver, f.args.first())),
                _ => None,
            };
            let closure = |arg: &'ast Expr| match strip_parens(arg) {
                Expr::Closure(c) => Some(c),
                Expr::Path(p) => p.path.get_ident().and_then(|name| self.named.get(&name.to_string()).copied().flatten()),
                _ => None,
            };
            if let Some((iterated, Some(c))) = consumer.map(|(i, c)| (i, c.and_then(closure))) {
                if let [pat] = c.inputs.iter().collect::<Vec<_>>().as_slice() {
                    self.read_only(iterated, pat, &c.body);
                }
            }
            if method == "filter" || method == "for_each" {
                if let Some(Expr::Closure(c)) = m.args.first().map(strip_parens) {
                    let index = c.inputs.first().and_then(index_name);
                    let kept = index.and_then(|i| match (method.as_str(), strip_parens(&c.body)) {
                        ("filter", cond) => self.kept_by(cond, &i, true),
                        (_, Expr::Block(b)) => self.kept_by_body(&b.block.stmts, &i),
                        (_, body) => self.kept_by_body(&[syn::Stmt::Expr(body.clone(), None)], &i),
                    });
                    if let Some(kept) = kept {
                        self.kept_positions(&m.receiver, kept, &format!(".{method}(..)"));
                    }
                }
            }
            // `.next()` is `.nth(0)`.
            let count = match method.as_str() {
                "skip" | "take" | "nth" => m.args.first().and_then(|k| self.ctx.int_value(k)),
                "next" if m.args.is_empty() => Some(0),
                _ => None,
            };
            // `.skip(first)`: from a position a name gives.
            let from_name = match (method.as_str(), count, m.args.first().map(strip_parens)) {
                ("skip", None, Some(Expr::Path(p))) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            // `.nth(k)` of a `k` that is no constant: the one part at `k`, whose position is what
            // `k` is (the declared index, `slot` of `slot_mapping`), as `cache[k]` is.
            let nth_of_name = method == "nth" && count.is_none() && m.args.len() == 1;
            if count.is_some() || from_name.is_some() || nth_of_name {
                let mut r = strip_parens(&m.receiver);
                while let Expr::MethodCall(inner) = r {
                    // (`chunks_exact_mut(width)` of a width that is no constant: parts of a size
                    // not known, one at `k`.)
                    let chunks = ["chunks_mut", "chunks_exact_mut"].contains(&inner.method.to_string().as_str());
                    let size = match part_size(self.ctx, inner) {
                        Some(UNKNOWN_PART) if nth_of_name && chunks => Some(1),
                        size => size,
                    };
                    if let Some(size) = size {
                        let ptr = inner as *const _;
                        if !self.out.iter().any(|n| n.call == ptr) {
                            let range = match (method.as_str(), count) {
                                ("nth", None) => (0, 0),
                                (_, None) => ALL,
                                ("skip", Some(k)) => (k, i128::MAX),
                                ("take", Some(k)) => (0, k),
                                (_, Some(k)) => (k, k.saturating_add(1)),
                            };
                            let how = format!("{}().{method}({})", inner.method, if m.args.is_empty() { "" } else { ".." });
                            self.out.push(Narrowed { call: ptr, ranges: vec![scaled(range, size)], how, from_param: from_name.clone().map(|n| (n, size)) });
                        }
                        break;
                    }
                    if !SAME_POSITIONS.contains(&inner.method.to_string().as_str()) {
                        break;
                    }
                    r = strip_parens(&inner.receiver);
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    Chains { ctx, out, named: HashMap::new() }.visit_block(body);
}

/// The `iter_mut()` call of `iterated` (through adapters that keep its items: `skip`, `take`,
/// `rev`, `enumerate`, `zip` on its side, ...) when `pat` binds its items to names that `body`
/// only reads.
fn iter_mut_of_items<'e>(iterated: &'e Expr, pat: &syn::Pat, body: &Expr) -> Option<&'e syn::ExprMethodCall> {
    /// Where the item sits in what the chain yields.
    enum Shape {
        Item,
        /// Element `.1` of a tuple (`enumerate`), or `.0` (`zip`), of the shape inside.
        Elem(usize, Box<Shape>),
    }
    let mut shape = Shape::Item;
    let mut e = strip_parens(iterated);
    let iter_mut = loop {
        let Expr::MethodCall(m) = e else { return None };
        match m.method.to_string().as_str() {
            "iter_mut" if m.args.is_empty() => break m,
            "enumerate" => shape = Shape::Elem(1, Box::new(shape)),
            "zip" => shape = Shape::Elem(0, Box::new(shape)),
            "skip" | "take" | "rev" | "step_by" | "by_ref" => {}
            _ => return None,
        }
        e = strip_parens(&m.receiver);
    };
    // The names of the pattern that take the item (a `&mut x` pattern copies it: read-only).
    fn item_names(pat: &syn::Pat, shape: &Shape, out: &mut Vec<String>) -> bool {
        match (pat, shape) {
            (syn::Pat::Wild(_), _) => true,
            (syn::Pat::Reference(r), Shape::Item) => matches!(&*r.pat, syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none()) || matches!(&*r.pat, syn::Pat::Wild(_)),
            (syn::Pat::Ident(i), Shape::Item) if i.by_ref.is_none() && i.subpat.is_none() => {
                out.push(i.ident.to_string());
                true
            }
            (syn::Pat::Tuple(t), Shape::Elem(k, inner)) if t.elems.len() == 2 => item_names(&t.elems[*k], inner, out),
            (syn::Pat::Paren(p), _) => item_names(&p.pat, shape, out),
            // A closure's parameter with its type written (`|x: &mut f32| ..`).
            (syn::Pat::Type(t), _) => item_names(&t.pat, shape, out),
            _ => false,
        }
    }
    let mut names = Vec::new();
    if !item_names(pat, &shape, &mut names) {
        return None;
    }
    names.iter().all(|n| only_read_through(n, body)).then_some(iter_mut)
}

/// Whether every use of the `&mut` binding `name` in `body` reads what it refers to: `*x` or
/// `x.field` as a value, a format argument; never assigned through, borrowed mutably, handed
/// to a call or a method, or bound again (a shadowing binding makes the answer no).
fn only_read_through(name: &str, body: &Expr) -> bool {
    /// Methods of slices and vectors that read their receiver.
    const READING_METHODS: &[&str] = &["iter", "len", "is_empty", "get", "first", "last", "contains", "to_vec", "to_owned", "clone", "as_slice", "starts_with", "ends_with", "windows", "chunks", "binary_search"];
    struct Reads<'n> {
        name: &'n str,
        ok: bool,
    }
    impl Reads<'_> {
        fn is_name(&self, e: &Expr) -> bool {
            matches!(strip_parens(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
        }
        /// `x`, `*x`, `x.a.b`, `(*x).a`, `x[i]`: a place rooted at the binding.
        fn rooted(&self, e: &Expr) -> bool {
            match strip_parens(e) {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.rooted(&u.expr),
                Expr::Field(f) => self.rooted(&f.base),
                Expr::Index(i) => self.rooted(&i.expr),
                other => self.is_name(other),
            }
        }
        fn mentions(&self, tokens: &proc_macro2::TokenStream) -> bool {
            tokens.clone().into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => i == self.name,
                proc_macro2::TokenTree::Group(g) => self.mentions(&g.stream()),
                _ => false,
            })
        }
    }
    impl<'ast> Visit<'ast> for Reads<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if !self.ok {
                return;
            }
            match e {
                Expr::Assign(a) if self.rooted(&a.left) => self.ok = false,
                Expr::Binary(b) if is_compound(&b.op) && self.rooted(&b.left) => self.ok = false,
                Expr::Reference(r) if r.mutability.is_some() && self.rooted(&r.expr) => self.ok = false,
                // A method that only reads (`s.iter().sum()`, `s.len()`) reads; any other may write.
                Expr::MethodCall(m) if self.rooted(&m.receiver) && !READING_METHODS.contains(&m.method.to_string().as_str()) => self.ok = false,
                Expr::MethodCall(m) if self.rooted(&m.receiver) => m.args.iter().for_each(|a| self.visit_expr(a)),
                // `*x` and `x.field` read a value where they stand.
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) => {}
                Expr::Field(f) if self.is_name(&f.base) => {}
                // The binding itself, anywhere else: handed on (to a call, a local), it may be
                // written there.
                other if self.is_name(other) => self.ok = false,
                Expr::Macro(m) => self.visit_macro(&m.mac),
                other => syn::visit::visit_expr(self, other),
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if !self.mentions(&m.tokens) {
                return;
            }
            // A format-like macro reads its arguments (it takes references to them); `write!`
            // writes its first, and any other macro may do anything.
            let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            let reads = ["println", "print", "eprintln", "eprint", "format", "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "trace", "debug", "info", "warn", "error"].contains(&name.as_str());
            match (reads, m.parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)) {
                (true, Ok(args)) => args.iter().for_each(|a| match strip_parens(a) {
                    a if self.is_name(a) => {}
                    a => self.visit_expr(a),
                }),
                _ => self.ok = false,
            }
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if p.ident == self.name {
                self.ok = false;
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut v = Reads { name, ok: true };
    v.visit_expr(body);
    v.ok
}

/// The view calls of a body (`as_mut_slice()`, `as_mut()`) whose storage an enclosing
/// expression designates: the base of an index, the receiver of a method, a field's base, an
/// argument (judged as `&mut p` is, by what the callee does with it), what a `let` binds (the
/// local designates the place, as `let v = &mut p;` does: what is written through it is judged
/// where it is written), a pattern's scrutinee (`if let [null, ..] = p.as_mut_slice()`: each
/// name takes its positions) and what a `for` walks. (One left alone, returned or stored stays
/// a write of every position.)
fn views_written_through(body: &syn::Block) -> HashSet<*const syn::ExprMethodCall> {
    struct Views(HashSet<*const syn::ExprMethodCall>);
    impl Views {
        fn through(&mut self, e: &Expr) {
            if let Expr::MethodCall(m) = strip_parens(e) {
                if MUT_VIEWS.contains(&m.method.to_string().as_str()) && m.args.is_empty() {
                    self.0.insert(m as *const _);
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Views {
        fn visit_expr_index(&mut self, ix: &'ast syn::ExprIndex) {
            self.through(&ix.expr);
            syn::visit::visit_expr_index(self, ix);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.through(&m.receiver);
            m.args.iter().for_each(|a| self.through(a));
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
            self.through(&f.base);
            syn::visit::visit_expr_field(self, f);
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            c.args.iter().for_each(|a| self.through(a));
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let Some(init) = &l.init {
                self.through(&init.expr);
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.through(&l.expr);
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            self.through(&m.expr);
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            self.through(&f.expr);
            syn::visit::visit_expr_for_loop(self, f);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut v = Views(HashSet::new());
    v.visit_block(body);
    v.0
}

/// How many positions of its receiver each item of an iterator of mutable parts covers:
/// `iter_mut()` one, `chunks_mut(BLOCK_SIZE)` a block (a known constant), `chunks_mut(width)` of
/// a width that is no constant [`UNKNOWN_PART`].
fn part_size(ctx: &FnCtx, m: &syn::ExprMethodCall) -> Option<i128> {
    match m.method.to_string().as_str() {
        "iter_mut" => Some(1),
        "chunks_mut" | "chunks_exact_mut" => Some(m.args.first().and_then(|n| ctx.int_value(n)).filter(|n| *n > 0).unwrap_or(UNKNOWN_PART)),
        _ => None,
    }
}

/// The size of parts of at least one position, how many not known: part `k` starts at position
/// `k` or later, so the parts from 1 on never hold position 0 (`chunks_mut(w).skip(1)` spares the
/// null block whatever `w` is).
const UNKNOWN_PART: i128 = 0;

/// Item positions `(lo, hi)` as positions of the receiver, `size` positions an item.
fn scaled((lo, hi): Positions, size: i128) -> Positions {
    if size == UNKNOWN_PART {
        return (lo, if hi <= lo { hi } else { i128::MAX });
    }
    let end = if hi == i128::MAX { hi } else { hi.saturating_mul(size) };
    (lo.saturating_mul(size), end)
}

/// The positions an index range covers, when its start is known.
fn range_of(ctx: &FnCtx, index: &Expr) -> Option<Positions> {
    match strip_parens(index) {
        Expr::Range(r) => {
            let start = match &r.start {
                Some(s) => ctx.int_value(s)?,
                None => 0,
            };
            // An end not known stands for the first position only, written whenever the range
            // is not empty (`cache[..n * BLOCK].fill(0.0)` writes position 0).
            let end = match &r.end {
                Some(e) => match ctx.int_value(e) {
                    Some(end) => end.saturating_add(i128::from(matches!(r.limits, syn::RangeLimits::Closed(_)))),
                    None => start.saturating_add(1),
                },
                None => i128::MAX,
            };
            Some((start, end))
        }
        _ => None,
    }
}

/// The positions `i` where `i OP k` is `holds` (`i != K`: all but K; `i > K`: from K + 1;
/// `i < K`: below K); `None` for one position (`i == K` holding) or another operator.
fn where_holds(op: syn::BinOp, k: i128, holds: bool) -> Option<Vec<Positions>> {
    let all_but = |k: i128| vec![(0, k), (k.saturating_add(1), i128::MAX)];
    let (from, below) = (|k: i128| vec![(k.max(0), i128::MAX)], |k: i128| vec![(0, k.max(0))]);
    Some(match (op, holds) {
        (syn::BinOp::Ne(_), true) | (syn::BinOp::Eq(_), false) => all_but(k),
        (syn::BinOp::Gt(_), true) | (syn::BinOp::Le(_), false) => from(k.saturating_add(1)),
        (syn::BinOp::Ge(_), true) | (syn::BinOp::Lt(_), false) => from(k),
        (syn::BinOp::Lt(_), true) | (syn::BinOp::Ge(_), false) => below(k),
        (syn::BinOp::Le(_), true) | (syn::BinOp::Gt(_), false) => below(k.saturating_add(1)),
        _ => return None,
    })
}

/// A comparison with its sides swapped (`k < i` is `i > k`).
fn mirrored(op: syn::BinOp) -> syn::BinOp {
    match op {
        syn::BinOp::Lt(t) => syn::BinOp::Gt(syn::token::Gt(t.span)),
        syn::BinOp::Gt(t) => syn::BinOp::Lt(syn::token::Lt(t.span)),
        syn::BinOp::Le(t) => syn::BinOp::Ge(syn::token::Ge(t.spans)),
        syn::BinOp::Ge(t) => syn::BinOp::Le(syn::token::Le(t.spans)),
        op => op,
    }
}

/// The positions a loop over `iterated` counts through, when it is a range from a constant
/// (`0..n`, `1..=k`), reversed or stepped: all of them where the end is a constant too, else
/// the first, which it takes whenever it runs at all.
fn counted(ctx: &FnCtx, iterated: &Expr) -> Option<Positions> {
    match strip_parens(iterated) {
        Expr::Range(r) => {
            let start = ctx.int_value(r.start.as_deref()?)?;
            let end = match r.end.as_deref().and_then(|e| ctx.int_value(e)) {
                Some(e) if matches!(r.limits, syn::RangeLimits::Closed(_)) => e.saturating_add(1),
                Some(e) => e,
                None => start.saturating_add(1),
            };
            Some((start, end))
        }
        Expr::MethodCall(m) if (m.method == "rev" && m.args.is_empty()) || m.method == "step_by" => counted(ctx, &m.receiver),
        _ => None,
    }
}

/// The local list a loop walks by value: `list`, `&list`, `list.iter()`, `.into_iter()`,
/// `.iter().copied()`, `.iter().rev()`.
fn listed_in(scopes: &Scopes, iterated: &Expr) -> Option<LocalId> {
    match strip_parens(iterated) {
        Expr::Reference(r) if r.mutability.is_none() => listed_in(scopes, &r.expr),
        Expr::MethodCall(m) if m.args.is_empty() && ["iter", "into_iter", "copied", "cloned", "rev"].contains(&m.method.to_string().as_str()) => listed_in(scopes, &m.receiver),
        e @ Expr::Path(_) => match scopes.place_of(e)? {
            Place { base: Base::Local(id), fields } if fields.is_empty() => Some(id),
            _ => None,
        },
        _ => None,
    }
}

/// Positions `range` of a window of a place, in the place's positions (`None`: not known).
fn narrow(window: Option<Positions>, range: Positions) -> Option<Positions> {
    let (lo, hi) = window?;
    let start = lo.saturating_add(range.0);
    let end = if range.1 == i128::MAX { hi } else { lo.saturating_add(range.1).min(hi) };
    Some((start, end))
}
