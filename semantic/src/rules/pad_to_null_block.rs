//! Check for `pad_to_null_block`: at a call of a function with `writes(P[IDX], skip = S)`, what
//! the entries of the buffer passed for IDX may hold there, and every place that put 0 (or another
//! position of the null block) into them instead of S. The same analysis judges a buffer of
//! positions that a writer without a sentinel writes at every entry, where its place has a
//! forbidden region (`copy_blocks(cache, &src, &dst)` with `forbids_write(cache[NULL_BLOCK])`):
//! there an entry in the region is a `forbidden_write` ([`WriteIndex::forbidden`]).
//!
//! An analysis on the dataflow solver ([`crate::dataflow`]): the state is, per place (a local or a
//! field path of one, or of `self`), the set of *origins* its entries may hold: where a constant
//! entry came from (`vec![0; n]`, `resize(n, 0)`, `push(0)`, `buf[i] = 0`, an `unwrap_or(0)`
//! fallback, a `zeros(..)` constructor; a slot computed from a block that may be 0 by the slot
//! formula, `block * BS + pos % BS`, is in the null block). Each way of building or changing a
//! buffer is one transfer:
//! filling it whole replaces its origins (`fill`, `copy_from_slice`, an assignment, an
//! `iter_mut` loop or `for_each` storing into every entry, `for i in 0..n { b[i] = v }`), adding to
//! it or changing a part keeps them (`push`, `resize`, `extend`, a store at one index, a copy into
//! a prefix). Branches join, so a reset on one branch leaves the other path's zeros. Conversions
//! keep the entries (`Tensor::new(&slots, ..)`, `from_vec`, `to_vec`, `into`; a constructor of the
//! workspace by such a name keeps them in its field too, and one named as a zero constructor,
//! `GraphInputs::zeroed()`, is read as what it does), struct literals
//! carry them into fields (`StepMeta { slot_mapping: slots }`), and a call of a function that
//! is not known passes each local argument to the field of the same name (`build(&slot_mapping)`
//! → `.slot_mapping`).
//!
//! Helpers of the same file without a contract are summarised bottom-up, in the contract's terms:
//! what the buffer they return may hold (in terms of their parameters, substituted at each call),
//! and what they leave in the parameters and the fields of `self` they write: added to what the
//! caller's buffer held (`resize`, `push`: [`Entry::Kept`] on some path), or replacing it on
//! every path (`fill`, `clear` then `extend`), so a `prepare()` that resets the buffer before a
//! replay leaves only what it put there. A field of `self`
//! that the function has not written yet holds what the type's own functions may leave in it:
//! its struct literals and the fields at every normal exit of its methods (a persistent buffer
//! whose constructor fills it with 0 and that a dummy step passes on without a reset).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;
use std::sync::Arc;

use syn::Expr;

use crate::analysis::{call_args, clause_label, FnCtx, FnDef};
use crate::dataflow::{self, Analysis, Base, Domain, LocalId, Place, PlaceMap, Scopes};
use crate::finding::{Finding, Fix, Label};
use crate::index::ContractedFn;
use crate::resolve::{strip, TypeRef};
use super::InFile;
use reuse_rules::catalogue::{FORBIDDEN_WRITE, PAD_TO_NULL_BLOCK};
use reuse_rules::contract::{Clause, ClauseKind, PlaceRoot, Sentinel};

/// Calls that turn one buffer into another with the same entries.
const CONVERSIONS: &[&str] = &[
    "new", "from_vec", "from_slice", "from", "to_vec", "clone", "into", "to_owned", "to_device", "to_dtype", "as_slice",
    "reshape", "unsqueeze", "contiguous", "copy", "as_ref", "as_mut", "as_mut_slice", "iter", "into_iter", "copied",
    "cloned", "collect", "take", "rev", "to", "borrow", "borrow_mut", "lock", "unwrap", "expect", "into_boxed_slice",
    "into_vec", "from_iter", "as_deref", "as_deref_mut", "cycle", "make_contiguous",
    // burn's host-to-tensor path: `Tensor::from_data(TensorData::new(v, shape), dev)`,
    // `from_ints([..], dev)`, `from_floats`.
    "from_data", "from_ints", "from_floats",
];
/// Methods that change how many entries a buffer has.
const LENGTH_CHANGING: &[&str] = &[
    "push", "push_back", "push_front", "insert", "resize", "resize_with", "extend", "extend_from_slice", "append", "clear",
    "truncate", "pop", "remove", "drain", "retain", "splice", "dedup", "split_off",
];
/// Constructors of zero-filled buffers and tensors.
/// How many statics deep a static's initializer is followed ([`Pad::static_value`]).
const MAX_STATIC_DEPTH: usize = 4;
const ZEROS: &[&str] = &["zeros", "zeros_like", "new_zeros", "zeroed", "vec_zeros"];
/// The key under which an origin reported for an index field is remembered.
const INDEX_FIELD: &str = "index field";

/// What an entry holds.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Entry {
    Const(i128),
    /// `zeros(..)`, `unwrap_or_default()`: 0 whatever the sentinel.
    Zero,
    /// In a summary: whatever the helper's parameter (at this field path) held.
    Param(usize, Vec<String>),
    /// In a summary, among what a parameter or a field of `self` holds at an exit: the entries
    /// the caller's buffer held before the call are still there (the helper added to them, as
    /// `resize` or `push` do). Without it, the helper replaced them on every path (`fill`, `clear`
    /// then `extend`, an assignment).
    Kept,
}

impl Origin {
    /// See [`Entry::Kept`].
    fn kept() -> Origin {
        Origin { start: 0, end: 0, text: "".into(), entry: Entry::Kept, how: How::Value, holder: None, function: None, in_buffer: true, via: None, file: None, site: None }
    }
}

impl Entry {
    /// An origin that stands for other values (substituted or dropped at the call), not one put
    /// into a buffer.
    fn is_symbolic(&self) -> bool {
        matches!(self, Entry::Param(..) | Entry::Kept)
    }
}

/// How an entry got into the buffer, for the message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum How {
    /// A value, not yet in a buffer.
    Value,
    /// The buffer was built filled with it (`vec![0; n]`, `zeros(n)`).
    Filled,
    /// A method or a store put it in (`push`, `resize`, `fill`, `extend`, `[i] =`).
    Put(String),
    /// A fallback default (`unwrap_or(0)`, `unwrap_or_default()`).
    Fallback(String),
    /// Every entry of a mapped iterator (`map(|_| 0)`).
    Every,
    /// The buffer a helper of this file returns.
    Helper(String),
    /// An entry of a `static` or `const` of this file, by its name.
    Static(String),
    /// Made by a producer function (`resize_with(n, Default::default)`): the fix is a closure.
    Producer,
    /// An integer array of a struct that derives `Default`, by the struct's name: the fix is
    /// the caller's (a `Default` of its own, or a constructor).
    Derived(String),
    /// The first of the values a range counts through (`(0..n).collect()`).
    Counted,
}

/// Where an entry came from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Origin {
    start: usize,
    end: usize,
    text: Arc<str>,
    entry: Entry,
    how: How,
    /// The place it was first stored into, as written there (`slots`, `meta.slot_mapping`).
    holder: Option<Arc<str>>,
    /// The function it was stored in, when not the one being checked (a persistent field).
    function: Option<String>,
    /// Whether it is an entry of a buffer (a scalar index is `fallback_index`'s).
    in_buffer: bool,
    /// A local it was copied out of, and where (`build(&slot_mapping)`): a reset of that local
    /// after this point does not reach the copy.
    via: Option<(Place, usize)>,
    /// The file `start..end` is in, when not the file of the function that put it there (a
    /// helper of another file), and the call of that helper in the function being checked.
    file: Option<InFile>,
    site: Option<(usize, usize)>,
}

impl Origin {
    fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// A part of a buffer, `buf[..k]` or `buf[k..]`: `k` as written, and what the part holds.
type Part = (String, BTreeSet<Origin>);

/// What a place's entries may hold, and where it was last replaced whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Entries {
    origins: BTreeSet<Origin>,
    reset: Option<usize>,
    /// After `buf[..k].copy_from_slice(x)`: `k` as written and x's origins, what `buf[..k]` holds.
    prefix: Option<Part>,
    /// A prefix written before `prefix` with another bound (`buf[..padded].fill(PAD)`, then
    /// `buf[..n].copy_from_slice(real)`): what it holds now, its own entries and every later
    /// prefix's, whichever of the two bounds is the larger.
    outer: Option<Part>,
    /// After `buf[k..].fill(v)`: `k` as written and what `buf[k..]` holds (a copy into
    /// `buf[..k]` afterwards replaces every entry).
    suffix: Option<Part>,
    /// How many entries the buffer was built with.
    len: Len,
}

/// How many entries a buffer was built with, as written (`vec![0; real.len()]`), while no call
/// changed its length; joined so that a path that does not know is no path that changed it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Len {
    #[default]
    Unknown,
    Built(String),
    Changed,
}

impl Len {
    fn join(&mut self, other: &Len) {
        *self = match (std::mem::take(self), other) {
            (Len::Unknown, o) => o.clone(),
            (s, Len::Unknown) => s,
            (Len::Built(a), Len::Built(b)) if a == *b => Len::Built(a),
            _ => Len::Changed,
        };
    }
}

impl Domain for Entries {
    fn join(&mut self, other: &Self) {
        self.origins.extend(other.origins.iter().cloned());
        self.reset = match (self.reset, other.reset) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.len.join(&other.len);
        if self.prefix != other.prefix {
            self.prefix = None;
        }
        if self.outer != other.outer {
            self.outer = None;
        }
        if self.suffix != other.suffix {
            self.suffix = None;
        }
    }
}

/// What each place's entries may hold.
#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    places: PlaceMap<Entries>,
    /// In a summary, how many parameters the helper has: a place of the caller's (inside a
    /// parameter, a field of `self`) that one path wrote and another did not still holds, where
    /// the paths meet, what the caller's buffer held ([`Entry::Kept`]).
    callers: Option<usize>,
}

impl State {
    fn summary(params: usize) -> State {
        State { places: PlaceMap::default(), callers: Some(params) }
    }

    /// In a summary: `p` is inside a parameter or is a field of `self`, the caller's storage.
    fn is_callers(&self, p: &Place) -> bool {
        match (self.callers, &p.base) {
            (None, _) => false,
            (Some(_), Base::SelfValue) => !p.fields.is_empty(),
            (Some(params), Base::Local(id)) => (*id as usize) < params,
        }
    }
}

impl std::ops::Deref for State {
    type Target = PlaceMap<Entries>;
    fn deref(&self) -> &PlaceMap<Entries> {
        &self.places
    }
}

impl std::ops::DerefMut for State {
    fn deref_mut(&mut self) -> &mut PlaceMap<Entries> {
        &mut self.places
    }
}

impl Domain for State {
    fn join(&mut self, other: &Self) {
        if self.callers.is_some() {
            // Written on one side only (neither it nor a place that holds it on the other).
            let untouched = |m: &PlaceMap<Entries>, p: &Place| !m.map.keys().any(|k| p.starts_with(k));
            let kept_here: Vec<Place> = other.map.keys().filter(|k| self.is_callers(k) && untouched(&self.places, k)).cloned().collect();
            let kept_there: Vec<Place> = self.places.map.keys().filter(|k| self.is_callers(k) && untouched(&other.places, k)).cloned().collect();
            for k in kept_there {
                if let Some(e) = self.places.map.get_mut(&k) {
                    e.origins.insert(Origin::kept());
                }
            }
            self.places.join(&other.places);
            for k in kept_here {
                if let Some(e) = self.places.map.get_mut(&k) {
                    e.origins.insert(Origin::kept());
                }
            }
            return;
        }
        self.places.join(&other.places);
    }
}

/// The abstract value of an expression: the origins of its entries, and of its fields'.
#[derive(Clone, Debug, Default, PartialEq)]
struct Val {
    own: BTreeSet<Origin>,
    fields: BTreeMap<String, Val>,
}

impl From<BTreeSet<Origin>> for Val {
    fn from(own: BTreeSet<Origin>) -> Val {
        Val { own, fields: BTreeMap::new() }
    }
}

impl Val {
    fn one(o: Origin) -> Val {
        Val { own: [o].into(), fields: BTreeMap::new() }
    }
    /// Nothing is known of the value's entries or fields.
    fn is_unknown(&self) -> bool {
        self.own.is_empty() && self.fields.values().all(Val::is_unknown)
    }
    /// The value as seen outside the block that ends with it: the locals it was held in and read
    /// through are gone, and the binding it goes to names it.
    fn out_of_block(mut self) -> Val {
        self.own = std::mem::take(&mut self.own).into_iter().map(|mut o| {
            (o.via, o.holder) = (None, None);
            o
        })
        .collect();
        self.fields = std::mem::take(&mut self.fields).into_iter().map(|(k, v)| (k, v.out_of_block())).collect();
        self
    }
    fn join(&mut self, other: Val) {
        self.own.extend(other.own);
        for (k, v) in other.fields {
            self.fields.entry(k).or_default().join(v);
        }
    }
    fn in_file(&mut self, file: &crate::source::FileRef) {
        self.own = std::mem::take(&mut self.own)
            .into_iter()
            .map(|mut o| {
                o.file.get_or_insert_with(|| InFile(file.clone()));
                o
            })
            .collect();
        self.fields.values_mut().for_each(|v| v.in_file(file));
    }
    /// The value at a field path: a field the value does not hold is, for a summary's parameter
    /// among its origins, that parameter's field (`meta.slot_mappings()` of a getter reading
    /// `self.slot_mappings`, on a helper's parameter `meta`: whatever `meta.slot_mappings` held).
    fn project(mut self, fields: &[String]) -> Val {
        for f in fields {
            let mut next = self.fields.remove(f).unwrap_or_default();
            if next.is_unknown() {
                next.own.extend(self.own.into_iter().filter_map(|mut o| match &mut o.entry {
                    Entry::Param(_, at) => {
                        at.push(f.clone());
                        Some(o)
                    }
                    _ => None,
                }));
            }
            self = next;
        }
        self
    }
    /// The same origins, put into a buffer by `how` (a value pushed, a fill).
    fn put(self, how: &How) -> BTreeSet<Origin> {
        self.tag(how).into_iter().map(|mut o| {
            o.in_buffer = true;
            o
        })
        .collect()
    }
    /// The same origins, the values among them marked as coming from `how` (a fallback).
    fn tag(self, how: &How) -> BTreeSet<Origin> {
        self.own.into_iter().map(|mut o| {
            if o.how == How::Value {
                o.how = how.clone();
            }
            o
        })
        .collect()
    }
}

/// What a helper does, in the contract's terms.
#[derive(Clone, Default, Debug)]
pub(crate) struct Summary {
    returns: Val,
    /// What each parameter (by position) and `self` hold at the normal exits: the entries the
    /// helper put there.
    params: BTreeMap<usize, Val>,
    self_value: Val,
    /// Struct literals built in the function, by type name.
    literals: BTreeMap<String, Val>,
    /// The indexes it hands on to writers that skip a sentinel: it writes as if it had their
    /// `writes` clauses, with its parameter as the index.
    forwards: Vec<Forwarded>,
    /// A method's receiver is its parameter at this position, after the others ([`Entry::Param`]
    /// of it: a field of `self` the method read and did not write, `&self.slot_mapping` of a
    /// getter, `self.slots` of a replay).
    receiver_at: Option<usize>,
    /// A method whose value is its receiver (`..; self` at its end): a setter of a builder.
    returns_self: bool,
    /// What it passes to a closure it was given and calls (`f(&slots)` after `let slots =
    /// vec![0; n]`), by the closure's parameter position and the argument's: what the closure's
    /// parameters hold where a caller's closure runs ([`Analysis::bind_callback`]).
    passes: BTreeMap<(usize, usize), Val>,
}

/// A parameter (or a field path in one) that a helper hands on, as it was given, as the index of
/// a writer that skips a sentinel (`fn forward(&mut self, m: &Meta) { reshape_and_cache(k, c,
/// &m.slot_mapping) }`): at a call of the helper, the argument is checked as the writer's index.
#[derive(Clone, Debug, PartialEq)]
struct Forwarded {
    param: usize,
    fields: Vec<String>,
    /// The parameter as the helper names it (`m.slot_mapping`).
    shown: String,
    /// The writer, by definition path, and its `writes` clause, by position among its clauses.
    writer: Vec<String>,
    clause: usize,
    /// Where the helper hands it on, in the helper's file (`None`: the caller's).
    at: Range<usize>,
    file: Option<InFile>,
}

impl Summary {
    /// What a call that runs one of several versions of a helper may do (each build's, each
    /// `impl`'s of a trait method), as the exits of one function are joined: what any returns,
    /// leaves in a parameter or `self` (each summary says what the caller's value became where
    /// it kept it, `Entry::Kept`) or builds, and every index any hands on. `None` where one is
    /// not known or their parameters differ (the call is then not followed).
    fn versions(summaries: impl IntoIterator<Item = Option<Arc<Summary>>>) -> Option<Arc<Summary>> {
        let mut summaries = summaries.into_iter();
        let first = summaries.next()??;
        let mut joined = Summary::clone(&first);
        for other in summaries {
            let other = other?;
            if joined.receiver_at != other.receiver_at || joined.returns_self != other.returns_self {
                return None;
            }
            joined.returns.join(other.returns.clone());
            joined.self_value.join(other.self_value.clone());
            for (i, v) in &other.params {
                joined.params.entry(*i).or_default().join(v.clone());
            }
            for (ty, v) in &other.literals {
                joined.literals.entry(ty.clone()).or_default().join(v.clone());
            }
            for f in &other.forwards {
                if !joined.forwards.contains(f) {
                    joined.forwards.push(f.clone());
                }
            }
            for (at, v) in &other.passes {
                joined.passes.entry(*at).or_default().join(v.clone());
            }
        }
        Some(Arc::new(joined))
    }

    /// Marks the origins put in this file's positions as positions of `file`.
    fn in_file(&mut self, file: &crate::source::FileRef) {
        for f in &mut self.forwards {
            f.file.get_or_insert_with(|| InFile(file.clone()));
        }
        self.returns.in_file(file);
        self.self_value.in_file(file);
        self.params.values_mut().chain(self.literals.values_mut()).chain(self.passes.values_mut()).for_each(|v| v.in_file(file));
    }
}

/// Per-file memo of this rule's summaries (helpers by definition, types by name).
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::HelperMemo<Arc<Summary>>,
    /// Whether a helper may hand an index on to a kernel, by its names ([`Pad::may_forward`]).
    forwarding: super::ReachMemo,
    /// By type, and whether the other files' functions were read (at depth 0 only).
    fields: dataflow::Memo<(String, bool), Option<Arc<Val>>>,
    /// [`called_on_self_only`], by the method's position among the file's functions: asked at
    /// each call on `self` of each function checked, answered from the file's text once.
    on_self_only: std::cell::RefCell<std::collections::HashMap<usize, bool>>,
}

/// What the callee's contract says about one index argument.
struct WriteIndex<'a> {
    callee: &'a ContractedFn,
    clause: &'a Clause<Range<usize>>,
    sentinel_text: String,
    sentinel_here: String,
    sentinel: Option<i128>,
    /// Positions that belong to the null block (0, and the callee's forbidden region of P).
    null: Vec<(i128, i128)>,
    param: String,
    /// The helper the index is passed to, which hands it on to `callee` ([`Forwarded`]).
    via: Option<Via>,
    /// No sentinel: every entry is written, and these are the clause forbidding the place and its
    /// region as written (`cache[NULL_BLOCK]`); an entry there is a `forbidden_write`.
    forbidden: Option<(&'a Clause<Range<usize>>, String)>,
}

/// A helper between a call and the writer: its name, what it hands on (its parameter, at a field
/// path), and where.
struct Via {
    helper: String,
    handed: String,
    at: Label,
}

impl WriteIndex<'_> {
    fn is_null(&self, e: &Entry) -> bool {
        is_null(e, self.sentinel, &self.null)
    }
}

/// Whether a contracted function writes an index whose entries this analysis checks: one that
/// skips a sentinel (`writes(.., skip = S)`: its padding), or a buffer of positions of a place
/// with a forbidden region (vLLM's `copy_blocks(.., dst)` with `forbids_write(cache[NULL_BLOCK])`:
/// no entry may be in the region, a `forbidden_write` finding).
pub(crate) fn checks_index_entries(f: &ContractedFn) -> bool {
    f.contract.writes().any(|(_, target, skip)| skip.is_some() || guards_index_buffer(f, target))
}

/// `writes(P[IDX])` without a sentinel, IDX a buffer of positions and P with a forbidden region.
fn guards_index_buffer(f: &ContractedFn, target: &reuse_rules::contract::Indexed<Range<usize>>) -> bool {
    let place = target.place.to_string();
    f.index_is_buffer(&target.index) && f.contract.forbidden_regions().any(|(_, r)| r.place.to_string() == place)
}

/// The field paths of its receiver a method writes at, skipping a sentinel
/// (`writes(self.kv[self.slot_mapping], skip = S)` gives `slot_mapping`).
fn receiver_indexes(f: &ContractedFn) -> Vec<Vec<String>> {
    if !f.has_receiver {
        return Vec::new();
    }
    f.contract
        .writes()
        .filter(|(_, target, skip)| skip.is_some() && target.index.root == PlaceRoot::SelfField)
        .map(|(_, target, _)| target.index.segments[1..].iter().map(|s| s.text.clone()).collect())
        .collect()
}

/// The names a call of a kernel whose index entries are checked ([`checks_index_entries`]) may
/// be written with, for the check.
fn kernel_names<'i>(ctx: &FnCtx<'i>) -> &'i HashSet<String> {
    ctx.items.summaries.kernel_names.get_or_init(|| {
        let names: Vec<String> = ctx.index.fns.iter().filter(|f| checks_index_entries(f)).map(|f| f.name.clone()).collect();
        let aliases = ctx.index.renamed_reexports(&names).into_iter().map(|(alias, _)| alias);
        names.iter().cloned().chain(aliases).collect()
    })
}

/// The parameter (and field path) whose entries a summary's origin stands for.
fn param_of(o: &Origin) -> Option<(usize, Vec<String>)> {
    match &o.entry {
        Entry::Param(i, fields) => Some((*i, fields.clone())),
        _ => None,
    }
}

/// Whether an entry is a position of the null block (and not the sentinel).
fn is_null(e: &Entry, sentinel: Option<i128>, null: &[(i128, i128)]) -> bool {
    match e {
        Entry::Const(v) => Some(*v) != sentinel && null.iter().any(|(a, b)| (*a..*b).contains(v)),
        Entry::Zero => sentinel != Some(0) && null.iter().any(|(a, b)| (*a..*b).contains(&0)),
        Entry::Param(..) | Entry::Kept => false,
    }
}

/// The start of each struct literal of the checked body that a `let` binds whole to one name
/// (`let mut meta = Meta { .. };`, a type written or not).
fn let_bound_literals(ctx: &FnCtx) -> HashSet<usize> {
    struct Lets<'c, 'a>(&'c FnCtx<'a>, HashSet<usize>);
    impl<'ast> syn::visit::Visit<'ast> for Lets<'_, '_> {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let pat = match &local.pat {
                syn::Pat::Type(t) => &*t.pat,
                p => p,
            };
            if let (syn::Pat::Ident(p), Some(init)) = (pat, &local.init) {
                if let (None, Expr::Struct(_)) = (&p.subpat, strip(&init.expr)) {
                    self.1.insert(self.0.expr_range(strip(&init.expr)).start);
                }
            }
            syn::visit::visit_local(self, local);
        }
    }
    let mut lets = Lets(ctx, HashSet::new());
    syn::visit::Visit::visit_block(&mut lets, ctx.body);
    lets.1
}

pub(super) fn check(ctx: &FnCtx, calls: &[&Expr], out: &mut Vec<Finding>) {
    // Only functions that call a kernel whose index entries are checked (a `skip`, or a buffer of
    // positions of a place with a forbidden region) are (the summaries they need are computed on
    // demand).
    let calls_kernel = calls.iter().any(|c| ctx.callee(c).is_some_and(|(_, f)| checks_index_entries(f)));
    let body = &ctx.file.text[ctx.range(ctx.body.brace_token.span.join())];
    let touches_index_field = ctx.index.index_fields.iter().any(|f| body.contains(&f.field) || body.contains(&f.type_name));
    let mut pad = Pad::new(ctx, Mode::Check { findings: Vec::new(), seen: HashSet::new() }, None, 0);
    // A helper that hands an argument on to such a kernel is one too (asked only of calls that
    // may reach one: most calls of most files cannot, and summarising them would cost a solve).
    // `self.launch()` hands the fields of `self` on, when only such calls run it.
    let hands_on = |c: &Expr| {
        let (receiver, args) = call_args(c);
        let on_self = receiver.is_some_and(|r| matches!(strip(r), Expr::Path(p) if p.path.is_ident("self")));
        let own_method = || {
            let name = crate::resolve::CallSite::of(c).map(|site| site.name).unwrap_or_default();
            ctx.fns.by_name.get(&name).is_some_and(|ids| ids.iter().any(|&i| ctx.fns.defs[i].self_type.as_deref() == ctx.self_type && called_on_self_only(ctx, i)))
        };
        !args.is_empty() || (on_self && own_method())
    };
    let reaches_kernel = calls_kernel || calls.iter().any(|c| hands_on(c) && pad.may_forward(c) && pad.helper(c).is_some_and(|(_, s)| !s.forwards.is_empty()));
    if !reaches_kernel && !touches_index_field {
        return;
    }
    // The fields of `self` hold what the type's functions leave in them until this function
    // writes them, on every path (one that writes a field on one branch only joins it there);
    // or, for a method only the type's own methods call, what those left: checked at their calls.
    pad.callers_fields = ctx.fns.defs.iter().position(|d| std::ptr::eq(d.body, ctx.body)).is_some_and(|i| called_on_self_only(ctx, i));
    let mut entry = State::default();
    if let (Some(ty), true, false) = (ctx.self_type, ctx.sig.receiver().is_some(), pad.callers_fields) {
        if let Some(fields) = pad.field_summary(ty) {
            for (f, v) in &fields.fields {
                insert_absent(&mut entry, &Place { base: Base::SelfValue, fields: vec![f.clone()] }, v.clone());
            }
        }
    }
    // The function hands a parameter on to a kernel's index: the files calling it are analysed.
    if reaches_kernel {
        super::Forwarder::record_if(ctx, |idx, def| dataflow::param_count(def.sig) > 0 && pad.summary(idx, def).is_some_and(|s| !s.forwards.is_empty()));
    }
    match dataflow::solve(&mut pad, ctx.sig, ctx.body, entry) {
        Ok(()) => {
            if let Mode::Check { findings, .. } = pad.mode {
                out.extend(findings);
            }
        }
        Err(dataflow::TooComplex) => out.push(super::analysis_limit(ctx, "dataflow", dataflow::MAX_STEPS, "its write indexes are")),
    }
}

/// A private method that only other methods of its type call, each time on `self`, and not by
/// path (`self.launch()` in `step`, after `self.prepare(real)`): the fields of `self` it reads
/// hold what its callers left there. Its summary hands them on to the kernel, so each caller is
/// checked at its call with its own state (a `warmup` that calls it without the reset is the
/// finding). From the file's text: a call it cannot tell apart (`runner.launch()`, on a value
/// of a type not known here) leaves the method checked alone.
fn called_on_self_only(ctx: &FnCtx, idx: usize) -> bool {
    if let Some(&known) = ctx.summaries.pad.on_self_only.borrow().get(&idx) {
        return known;
    }
    let def = &ctx.fns.defs[idx];
    let answer = def.self_type.as_deref().filter(|_| def.private && def.has_receiver()).is_some_and(|ty| {
        let name = def.sig.ident.to_string();
        let text = &ctx.file.text;
        let (calls, on_self) = (format!(".{name}("), format!("self.{name}("));
        let all = text.matches(&calls).count() + text.matches(&format!(".{name}::<")).count();
        let everywhere_on_self = text.matches(&on_self).count();
        let own = ctx.fns.defs.iter().enumerate().filter(|(i, d)| d.self_type.as_deref() == Some(ty) && *i != idx);
        let (mut by_own, mut by_path) = (0, text.contains(&format!("{ty}::{name}")));
        for (_, d) in own {
            let body = &text[d.range.clone()];
            by_own += body.matches(&on_self).count();
            by_path |= body.contains(&format!("::{name}"));
        }
        by_own > 0 && all == everywhere_on_self && !by_path
    });
    ctx.summaries.pad.on_self_only.borrow_mut().insert(idx, answer);
    answer
}

enum Mode {
    /// The function being checked: findings at the kernels it calls.
    Check { findings: Vec<Finding>, seen: HashSet<(usize, usize, String)> },
    /// A helper or a method of a type, summarised: no findings, the summary is collected.
    Summarise,
}

struct Pad<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    mode: Mode,
    /// The function being summarised (None: the one being checked).
    def: Option<&'c FnDef<'a>>,
    depth: usize,
    summary: Summary,
    /// Locals built by a struct literal, with the struct's name (index fields are checked on them).
    local_types: std::collections::HashMap<LocalId, TypeRef>,
    /// Locals that re-bind a parameter whole (`let meta = meta;`, `let meta = &mut *meta;`):
    /// what they hold at an exit is what the caller's value holds.
    rebound: std::collections::HashMap<LocalId, LocalId>,
    /// The helper each call designates, by the call's address in the AST: a call is asked twice
    /// per visit (its value, its effects) and loops visit it again.
    helpers: std::cell::RefCell<std::collections::HashMap<usize, Option<Helper>>>,
    /// Locals that borrow a place mutably (`let sm = &mut m.slot_mapping;`, `let v = &mut
    /// slots;`): what is done through them is done to that place.
    borrows: std::collections::HashMap<LocalId, Place>,
    /// Locals bound to a part of a buffer by `split_at_mut(k)`: the buffer, and which part.
    split_parts: std::collections::HashMap<LocalId, (Place, SplitPart)>,
    /// Locals bound to one entry of a buffer, mutably (`s` of `for s in slots.iter_mut()`, of
    /// `.zip(accepted)` after it, of `slots.iter_mut().for_each(|s| ..)`): `*s = v` puts v in.
    entries: std::collections::HashMap<LocalId, Place>,
    /// The struct literals of the checked body bound whole to a local by a `let` (by position;
    /// read on the first literal met).
    let_literals: std::cell::OnceCell<HashSet<usize>>,
    /// The collections of buffers (as written) one buffer of which the body writes through a
    /// mutable borrow of it ([`element_written`]): what one of their buffers holds is not known.
    elements_written: std::cell::OnceCell<HashSet<String>>,
    /// The value of each block's tail, by the tail's position, taken while the block's locals
    /// were in scope (`let slots = { let mut v = ..; v.resize(n, 0); v };` reads `v` there).
    block_tails: std::collections::HashMap<usize, Val>,
    /// The function checked is [`called_on_self_only`]: the fields of `self` are its callers'.
    callers_fields: bool,
    /// How many statics deep [`Pad::static_value`] is (`static A: [[i64; 2]; 2] = [B; 2]`).
    static_depth: std::cell::Cell<usize>,
    /// At the entry of a loop over `k..n` (by the range's position): the buffers whose first `k`
    /// entries were copied in, with what was copied (the loop's stores end that fact inside it).
    loop_prefixes: std::collections::HashMap<usize, Vec<(Place, BTreeSet<Origin>)>>,
    /// The tails of buffers written before each loop (`buf[k..].fill(PAD)`), by the loop's
    /// iterated expression, with where each starts ([`Pad::counter_stores`]).
    loop_tails: std::collections::HashMap<usize, Vec<(Place, Part)>>,
    /// Counters bound to 0 and only ever stepped by one (`let mut i = 0; .. i += 1`): a `while
    /// i < n` loop over them walks the entries from the first on.
    zero_counters: std::collections::HashSet<LocalId>,
    /// Locals bound to a length (`let n = real.len();`), with it as written: a buffer built with
    /// `n` entries and a loop to `real.len()` (or to the buffer's own `len()`) walk the same.
    len_inits: std::collections::HashMap<LocalId, String>,
}

impl<'c, 'a> Pad<'c, 'a> {
    fn new(ctx: &'c FnCtx<'a>, mode: Mode, def: Option<&'c FnDef<'a>>, depth: usize) -> Self {
        let (local_types, rebound, helpers, borrows, block_tails, zero_counters, static_depth, loop_prefixes, len_inits) = Default::default();
        let summary = Summary { receiver_at: def.filter(|d| d.has_receiver()).map(|d| dataflow::param_count(d.sig)), returns_self: def.is_some_and(super::returns_self), ..Summary::default() };
        Pad { ctx, mode, def, depth, summary, local_types, rebound, helpers, borrows, split_parts: Default::default(), entries: Default::default(), block_tails, zero_counters, static_depth, loop_prefixes, loop_tails: Default::default(), len_inits, let_literals: Default::default(), elements_written: Default::default(), callers_fields: false }
    }

    /// A length as written, a local bound to one read as what it was bound to (`n` for `let n =
    /// real.len();` is `real.len()`), so that two ways of writing one length compare equal.
    fn len_text(&self, scopes: &Scopes, text: String) -> String {
        let mut text = text;
        for _ in 0..4 {
            let Some(init) = scopes.lookup(&text).and_then(|id| self.len_inits.get(&id)) else { break };
            text = init.clone();
        }
        text
    }

    /// Whether two lengths as written are the same, through the locals bound to one
    /// (`let n = real.len();`: `n` and `real.len()`).
    fn same_len(&self, scopes: &Scopes, a: &str, b: &str) -> bool {
        self.len_text(scopes, a.to_string()) == self.len_text(scopes, b.to_string())
    }

    /// Whether a tail from `start` begins at or before `end` (the head written up to it): the
    /// same length, or the smaller of it and another (`let k = real.len().min(n);
    /// slots[k..].fill(PAD)` after the rows of `real` were copied in).
    fn starts_before(&self, scopes: &Scopes, start: &str, end: &str) -> bool {
        if self.same_len(scopes, start, end) {
            return true;
        }
        let (start, end) = (self.len_text(scopes, start.to_string()), self.len_text(scopes, end.to_string()));
        let Ok(Expr::MethodCall(m)) = syn::parse_str::<Expr>(&start) else { return false };
        m.method == "min" && m.args.len() == 1 && [&*m.receiver, &m.args[0]].iter().any(|side| self.len_text(scopes, crate::rules::expr_text(side)) == end)
    }

    /// Whether walking `walked` entries of `place`, built with `built`, walks all of them: the
    /// same length, or the buffer's own (`for i in 0..slots.len()`: its length never changed).
    fn walks_all(&self, scopes: &Scopes, place: &Place, built: &str, walked: &str) -> bool {
        let walked = self.len_text(scopes, walked.to_string());
        walked == built || walked == format!("{}.len()", scopes.display(place))
    }

    /// The element stores at a loop's counter (`buf[i] = v;`, at the body's top level) stored `v`
    /// into entries `0..walked`; `tails`: the buffers' tails written before the loop (the stores
    /// in its body forgot them), each with where it starts.
    fn counter_stores(&self, scopes: &Scopes, state: &mut State, body: &syn::Block, var: &str, walked: Option<String>, tails: &[(Place, Part)]) {
        for stmt in &body.stmts {
            let syn::Stmt::Expr(e, _) = stmt else { continue };
            // `buf[i] = v;`, or one such store on each branch of an `if`/`else`
            // (`if i < real.len() { buf[i] = real[i]; } else { buf[i] = PAD; }`).
            let stores: Vec<&syn::ExprAssign> = match e {
                Expr::Assign(a) => vec![a],
                Expr::If(i) => match (&i.else_branch, i.then_branch.stmts.as_slice()) {
                    (Some((_, els)), [syn::Stmt::Expr(Expr::Assign(t), _)]) => match &**els {
                        Expr::Block(b) => match b.block.stmts.as_slice() {
                            [syn::Stmt::Expr(Expr::Assign(f), _)] if crate::rules::expr_text(&t.left) == crate::rules::expr_text(&f.left) => vec![t, f],
                            _ => continue,
                        },
                        _ => continue,
                    },
                    _ => continue,
                },
                _ => continue,
            };
            let Some(Expr::Index(ix)) = stores.first().map(|a| &*a.left) else { continue };
            if crate::rules::expr_text(strip(&ix.index)) != var {
                continue;
            }
            if let Some(place) = scopes.place_of(&ix.expr) {
                let mut own = BTreeSet::new();
                for a in &stores {
                    own.extend(self.eval(scopes, state, &a.right).put(&How::Put("store".into())));
                }
                let at = self.pos(&stores[0].right);
                if let (Some((_, tail)), Some(entries)) = (tails.iter().find(|(p, _)| *p == place), state.map.get_mut(&place)) {
                    entries.suffix.get_or_insert_with(|| tail.clone());
                }
                self.overwrite(scopes, state, &place, Val { own, fields: BTreeMap::new() }, at, walked.clone());
            }
        }
    }

    /// `for seq in seqs { for pos in 0..seq.len { buf[idx] = v; idx += 1; } }` with `idx` from 0:
    /// the stores walk `sum(seq.len)` entries from the first on (a buffer built with
    /// `seqs.iter().map(|s| s.len).sum()` entries has every one stored).
    fn running_counter_stores(&self, scopes: &Scopes, state: &mut State, f: &syn::ExprForLoop) {
        let syn::Pat::Ident(item) = &*f.pat else { return };
        let collection = iterated_collection(&f.expr);
        for stmt in &f.body.stmts {
            let syn::Stmt::Expr(Expr::ForLoop(inner), _) = stmt else { continue };
            let Expr::Range(r) = strip(&inner.expr) else { continue };
            let (Some(start), Some(end), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, r.limits) else { continue };
            let Expr::Field(per_item) = strip(end) else { continue };
            let (Some(0), true, syn::Member::Named(field)) = (crate::index::int_value(start), item.ident == crate::rules::expr_text(&per_item.base), &per_item.member) else { continue };
            // The counter steps by one, once per round: no branch leaves a round early.
            if crate::rules::exprs_in_block(&inner.body).iter().any(|e| matches!(e, Expr::Continue(_) | Expr::Break(_) | Expr::Return(_) | Expr::Try(_))) {
                continue;
            }
            let counters: Vec<String> = inner.body.stmts.iter().filter_map(|s| match s {
                syn::Stmt::Expr(Expr::Binary(step), _) if steps_by_one(step) && super::whole_local(scopes, &step.left).is_some_and(|id| self.zero_counters.contains(&id)) => Some(crate::rules::expr_text(&step.left)),
                _ => None,
            }).collect();
            if let [counter] = &counters[..] {
                self.counter_stores(scopes, state, &inner.body, counter, Some(format!("sum({collection}.{field})")), &[]);
            }
        }
    }

    /// `buf[k..]` written with `origins` after `buf[..k].copy_from_slice(real)` put `copied` there
    /// (or the other way round): every entry is now one of the two (`false`: no other part was
    /// written, nothing is changed).
    fn fill_rest(&self, scopes: &Scopes, state: &mut State, place: &Place, copied: Option<BTreeSet<Origin>>, origins: BTreeSet<Origin>, at: usize) -> bool {
        let Some(entries) = state.map.get(place) else { return false };
        let Some(copied) = copied else { return false };
        let len = entries.len.clone();
        self.store(scopes, state, place, Val { own: copied.into_iter().chain(origins).collect(), fields: BTreeMap::new() }, at);
        if let Some(entries) = state.map.get_mut(place) {
            entries.len = len;
        }
        true
    }

    /// `buf.iter_mut().skip(k)` storing `origins` into every entry it walks, after
    /// `buf[..k].copy_from_slice(real)` (the same `k`): every entry is now one of the two.
    fn rest_walked(&self, scopes: &Scopes, state: &mut State, place: &Place, chain: &Expr, origins: BTreeSet<Origin>, at: usize) -> bool {
        let Expr::MethodCall(skip) = strip(chain) else { return false };
        let (true, Some(k), Expr::MethodCall(iter)) = (skip.method == "skip", skip.args.first(), strip(&skip.receiver)) else { return false };
        if iter.method != "iter_mut" {
            return false;
        }
        let k = crate::rules::expr_text(k);
        let copied = state.map.get(place).and_then(|e| e.prefix.clone()).filter(|(b, _)| self.same_len(scopes, b, &k)).map(|(_, o)| o);
        self.fill_rest(scopes, state, place, copied, origins, at)
    }

    /// The element stores at a loop's counter that runs from `k` to `end`, for the buffers whose
    /// first `k` entries were `copied`: every entry when `end` is the end of the buffer (its built
    /// length or its `len()`), else those of `buf[..end]`.
    fn rest_stores(&self, scopes: &Scopes, state: &mut State, body: &syn::Block, var: &str, copied: &[(Place, BTreeSet<Origin>)], end: &str) {
        for stmt in &body.stmts {
            let syn::Stmt::Expr(Expr::Assign(a), _) = stmt else { continue };
            let Expr::Index(ix) = &*a.left else { continue };
            let Some(place) = scopes.place_of(&ix.expr).filter(|_| crate::rules::expr_text(strip(&ix.index)) == var) else { continue };
            let to_end = matches!(state.map.get(&place).map(|e| &e.len), Some(Len::Built(l)) if self.walks_all(scopes, &place, l, end)) || end == format!("{}.len()", crate::rules::expr_text(&ix.expr));
            let Some((_, copied)) = copied.iter().find(|(p, _)| *p == place) else { continue };
            let v = self.eval(scopes, state, &a.right).put(&How::Put("store".into()));
            if to_end {
                self.fill_rest(scopes, state, &place, Some(copied.clone()), v, self.pos(&a.right));
            } else if let Some(entries) = state.map.get_mut(&place) {
                // `for i in n..padded { buf[i] = PAD; }`: `buf[..padded]` holds the two (what a
                // captured graph's kernel is given).
                entries.prefix = Some((end.to_string(), copied.iter().cloned().chain(v).collect()));
            }
        }
    }

    /// `mem::replace(&mut buf, v)` and `mem::take(&mut buf)` replace the entries, as `buf = v`
    /// does; the call's value is what `buf` held before (`fn finish(&mut self) -> Vec<i64> {
    /// mem::take(&mut self.slot_mapping) }` returns the builder's slots).
    fn replaced(&mut self, scopes: &Scopes, state: &mut State, call: &Expr) {
        let Some((op, c)) = super::mem_move(self.ctx, call) else { return };
        let Some(Expr::Reference(target)) = c.args.first().map(dataflow::strip_parens) else { return };
        if target.mutability.is_none() {
            return;
        }
        if op != super::MemMove::Swap {
            let held = self.eval(scopes, state, &target.expr);
            self.block_tails.insert(self.pos(call), held);
        }
        match op {
            super::MemMove::Replace => self.assign(scopes, state, &target.expr, &c.args[1], self.pos(&c.args[1])),
            super::MemMove::Take => {
                if let Some(place) = scopes.place_of(&target.expr) {
                    self.store(scopes, state, &place, Val::default(), self.pos(&target.expr));
                }
            }
            // `mem::swap(&mut front, &mut back)`: each holds what the other held (double buffers).
            super::MemMove::Swap => {
                let Some(Expr::Reference(other)) = c.args.get(1).map(dataflow::strip_parens) else { return };
                let (Some(a), Some(b)) = (scopes.place_of(&target.expr), scopes.place_of(&other.expr)) else { return };
                let (a, b) = (self.borrowed(&a), self.borrowed(&b));
                self.materialize(state, &a);
                self.materialize(state, &b);
                state.exchange(&a, &b);
            }
        }
    }

    /// A counter changed otherwise than by one.
    fn forget_counter(&mut self, scopes: &Scopes, target: &Expr) {
        if let Some(id) = super::whole_local(scopes, target) {
            self.zero_counters.remove(&id);
        }
    }
}

/// A helper a call designates: its name and its summary.
type Helper = (String, Arc<Summary>);

impl Analysis for Pad<'_, '_> {
    type State = State;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, self.def, self.depth, call, arg)
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    /// `with_dummy_slots(n, |s| write_kv(c, k, s))`: `s` holds what the function passes to its
    /// closure (zeros it built, a buffer of the caller's it was given).
    fn bind_callback(&mut self, scopes: &Scopes, state: &mut State, call: &Expr, arg: usize, params: &[Option<LocalId>]) {
        let Some((_, at)) = super::callbacks::param_at(self.ctx, self.def, self.depth, call, arg) else { return };
        let Some((name, summary)) = self.helper(call) else { return };
        let args = Self::summary_args(call, &summary);
        for (k, local) in params.iter().enumerate() {
            let (Some(local), Some(passed)) = (local, summary.passes.get(&(at, k))) else { continue };
            let v = self.substitute(scopes, state, passed, &args, &How::Helper(name.clone()), call);
            self.store(scopes, state, &Place { base: Base::Local(*local), fields: Vec::new() }, v, self.pos(call));
        }
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut State, e: &Expr) {
        match e {
            Expr::Call(_) | Expr::MethodCall(_) => {
                if let Some((param, args)) = self.def.and_then(|d| super::callbacks::called_param(scopes, dataflow::param_count(d.sig), e)) {
                    for (k, arg) in args.into_iter().enumerate() {
                        let v = self.eval(scopes, state, buffer_of(arg));
                        self.summary.passes.entry((param, k)).or_default().join(v);
                    }
                }
                self.check_kernel(scopes, state, e);
                self.check_forwarded(scopes, state, e);
                if let Mode::Check { .. } = self.mode {
                    self.check_passed_index_fields(scopes, state, e);
                }
                self.apply_helper_effects(scopes, state, e);
                match e {
                    Expr::MethodCall(m) => {
                        self.mutation(scopes, state, m);
                        self.row_grown(scopes, state, m);
                    }
                    Expr::Call(_) => self.replaced(scopes, state, e),
                    _ => {}
                }
            }
            Expr::Assign(a) => {
                self.forget_counter(scopes, &a.left);
                self.assign(scopes, state, &a.left, &a.right, self.pos(e));
            }
            // `i += 1` keeps a counter one; any other change of it does not.
            Expr::Binary(b) if crate::dataflow::is_compound(&b.op) && !steps_by_one(b) => self.forget_counter(scopes, &b.left),
            Expr::Struct(s) => {
                let Some(ty) = self.literal_type(s) else { return };
                if self.def.is_some() {
                    let v = self.eval(scopes, state, e);
                    self.summary.literals.entry(ty.name).or_default().join(v);
                    return;
                }
                // Check mode: an index field built with the null block, unless the literal is
                // bound to a local (`let mut meta = Meta { slots: vec![0; n], .. };`): its fields
                // are then followed, checked where they reach a kernel, a call or an exit, so a
                // field overwritten in full before (`meta.slots.copy_from_slice(real)`) is not.
                if self.let_literals.get_or_init(|| let_bound_literals(self.ctx)).contains(&self.pos(e)) {
                    return;
                }
                for f in &s.fields {
                    let syn::Member::Named(name) = &f.member else { continue };
                    if let Some(decl) = self.ctx.index_field(&ty, &name.to_string()) {
                        let v = self.eval(scopes, state, &f.expr);
                        self.report_index_field(decl, &v, &format!("{} {{ {name} }}", ty.name));
                    }
                }
            }
            _ => {}
        }
    }

    fn block_value(&mut self, scopes: &Scopes, state: &mut State, value: &Expr) {
        let v = self.eval(scopes, state, value).out_of_block();
        self.block_tails.insert(self.pos(value), v);
    }

    /// `let make = |k| vec![0; k]; make(n)`: the call holds what the closure ends with.
    fn call_value(&mut self, scopes: &Scopes, state: &mut State, call: &Expr, value: &Expr) {
        let v = self.tail_value(scopes, state, value).out_of_block();
        self.block_tails.insert(self.pos(call), v);
    }

    /// `let Ok(slots) = helper(n) else { .. }`, `Some(s) => s`, `if let Ok(s) = ..`: a name a
    /// pattern takes from a `Result` or an `Option` holds what it holds.
    fn bind_from(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], scrutinee: &Expr) {
        let [local] = locals else { return };
        // `if let Some(s) = m.slot_mapping.as_mut()`, `= &mut m.slot_mapping`: `s` is the
        // option's content, borrowed.
        if let Some(held) = borrowed_content(scopes, scrutinee) {
            let held = self.borrowed(&held);
            self.borrows.insert(*local, held);
            return;
        }
        // A name bound to the whole value (`let s = ..`) has it already, from `bind`.
        if state.map.contains_key(&Place { base: Base::Local(*local), fields: Vec::new() }) {
            return;
        }
        let v = self.eval(scopes, state, scrutinee);
        if !v.own.is_empty() || !v.fields.is_empty() {
            self.store(scopes, state, &Place { base: Base::Local(*local), fields: Vec::new() }, v, self.pos(scrutinee));
        } else {
            // `if let Some(g) = self.graphs.get_mut(&bs)`: a runner kept in a map, with its
            // persistent buffers, as `let g = ..unwrap()` binds it.
            self.bind_object(state, *local, || self.ctx.resolver.type_of(scrutinee, self.ctx.self_type, self.ctx.env()).map(|t| t.name));
        }
    }

    /// `let (slots, n) = pad(..)`, `let Meta { slot_mapping, .. } = m`: a name a pattern takes
    /// from a part of the value holds that part.
    fn bind_parts(&mut self, scopes: &Scopes, state: &mut State, parts: &[(LocalId, Vec<String>)], scrutinee: &Expr) {
        if parts.iter().all(|(_, path)| path.is_empty()) {
            return;
        }
        // `let (head, tail) = slots.split_at_mut(k)`: `head` is `slots[..k]`, `tail` `slots[k..]`.
        if let Expr::MethodCall(m) = strip(scrutinee) {
            if m.method == "split_at_mut" && m.args.len() == 1 {
                if let Some(buffer) = self.buffer_place(scopes, &m.receiver) {
                    let k = crate::rules::expr_text(&m.args[0]);
                    for (local, path) in parts {
                        let part = match path.as_slice() {
                            [i] if i == "0" => SplitPart::Head(k.clone()),
                            [i] if i == "1" => SplitPart::Tail(k.clone()),
                            _ => continue,
                        };
                        self.split_parts.insert(*local, (self.borrowed(&buffer), part));
                    }
                    return;
                }
            }
        }
        let whole = self.eval(scopes, state, scrutinee);
        for (local, path) in parts.iter().filter(|(_, path)| !path.is_empty()) {
            let v = whole.clone().project(path);
            if !v.is_unknown() {
                self.store(scopes, state, &Place { base: Base::Local(*local), fields: Vec::new() }, v, self.pos(scrutinee));
            }
        }
    }

    /// `for row in rows`: a row holds what the rows hold (entries of nested buffers are one set).
    fn bind_each(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], iterated: &Expr) {
        // An entry of a buffer walked mutably: `s` of `slots.iter_mut()`, the side of a `zip`
        // that walks it.
        let walked = match (locals, strip(iterated)) {
            ([local], _) => entries_walked(iterated).map(|(b, _)| (*local, b)),
            ([first, .., last], Expr::MethodCall(m)) if m.method == "zip" && m.args.len() == 1 => {
                entries_walked(&m.receiver).map(|(b, _)| (*first, b)).or_else(|| entries_walked(&m.args[0]).map(|(b, _)| (*last, b)))
            }
            _ => None,
        };
        for local in locals {
            self.entries.remove(local);
        }
        if let Some((local, place, buffer)) = walked.and_then(|(local, b)| self.buffer_place(scopes, b).map(|p| (local, p, b))) {
            self.entries.insert(local, place);
            // `for m in &mut self.metas`: an element, of the buffer's element type (whose index
            // fields are checked at the exits, as a `&mut StepMeta` parameter's are).
            if !self.ctx.index.index_fields.is_empty() {
                let element: Expr = syn::parse_quote!(#buffer[0]);
                if let Some(ty) = self.ctx.resolver.type_of(&element, self.ctx.self_type, self.ctx.env()) {
                    self.local_types.insert(local, ty);
                }
            }
        }
        // The tails written before a loop whose stores walk the entries from the first on.
        let tails = || state.map.iter().filter_map(|(p, e)| e.suffix.clone().map(|t| (p.clone(), t))).collect();
        self.loop_tails.entry(self.pos(iterated)).or_insert_with(tails);
        if let Expr::Range(r) = strip(iterated) {
            if let Some(start) = r.start.as_deref().map(crate::rules::expr_text) {
                let copied = || state.map.iter().filter_map(|(p, e)| e.prefix.as_ref().filter(|(k, _)| *k == start).map(|(_, o)| (p.clone(), o.clone()))).collect();
                self.loop_prefixes.entry(self.pos(iterated)).or_insert_with(copied);
            }
        }
        // `for (dst, src) in buf.iter_mut().zip(rows)`: `src` is an item of `rows`.
        let (local, items) = match (locals, strip(iterated)) {
            ([local], _) => (local, buffer_of(iterated)),
            ([_, local], Expr::MethodCall(m)) if m.method == "zip" && m.args.len() == 1 => (local, buffer_of(&m.args[0])),
            _ => return,
        };
        let mut v = self.eval(scopes, state, items);
        if counts_through(items) {
            // `for b in 0..n`: `b` is a scalar (an index of its own, the writes rules'), until
            // it is put into a buffer.
            v.own = v.own.into_iter().map(|mut o| {
                o.in_buffer = false;
                o
            }).collect();
        }
        if !v.own.is_empty() {
            self.store(scopes, state, &Place { base: Base::Local(*local), fields: Vec::new() }, Val { own: v.own, fields: BTreeMap::new() }, self.pos(items));
        }
    }

    fn bind(&mut self, scopes: &Scopes, state: &mut State, local: LocalId, init: Option<&Expr>) {
        let place = Place { base: Base::Local(local), fields: Vec::new() };
        self.borrows.remove(&local);
        self.split_parts.remove(&local);
        // `let tail = &mut slots[k..];`: a part of `slots`, as `split_at_mut(k)` gives it.
        if let Some(Expr::Reference(r)) = init.map(dataflow::strip_parens) {
            if let (Some(_), Expr::Index(ix)) = (r.mutability, dataflow::strip_parens(&r.expr)) {
                let part = prefix_bound(&ix.index).map(SplitPart::Head).or_else(|| suffix_start(&ix.index).map(SplitPart::Tail));
                if let (Some(part), Some(buffer)) = (part, self.buffer_place(scopes, &ix.expr)) {
                    self.split_parts.insert(local, (self.borrowed(&buffer), part));
                    return;
                }
            }
        }
        // `let s = &mut m.slot_mapping;`, `let s = m.slot_mapping.as_mut().unwrap();`
        if let Some(field) = init.and_then(|init| borrowed_content(scopes, init)) {
            let field = self.borrowed(&field);
            // `let s = o.get_or_insert_with(|| vec![0; n]);`: what `o` held, or the new value.
            let inserting = init.map(dataflow::strip_parens).filter(|i| matches!(i, Expr::MethodCall(m) if m.method == "get_or_insert_with" || m.method == "get_or_insert"));
            if let Some(call @ Expr::MethodCall(m)) = inserting {
                let inserted = self.eval_method(scopes, state, call, m);
                self.add(scopes, state, &field, inserted.own);
            }
            self.borrows.insert(local, field);
            return;
        }
        // A binding revisited by a loop holds a new value; one without a value of its own (a
        // parameter, a pattern) holds what is not known.
        state.clear_under(&place);
        self.zero_counters.remove(&local);
        self.len_inits.remove(&local);
        let Some(init) = init else {
            // A parameter that is an object with persistent index fields.
            self.bind_object(state, local, || self.base_type(scopes, &Base::Local(local)).map(|t| t.name));
            return;
        };
        if crate::index::int_value(strip(init)) == Some(0) {
            self.zero_counters.insert(local);
        }
        if matches!(strip(init), Expr::MethodCall(m) if (m.method == "len" && m.args.is_empty()) || (m.method == "min" && m.args.len() == 1)) || matches!(strip(init), Expr::Path(p) if p.path.get_ident().is_some()) {
            self.len_inits.insert(local, crate::rules::expr_text(strip(init)));
        } else if let Some(sum) = summed_field(init) {
            self.len_inits.insert(local, sum);
        }
        if let Expr::Struct(st) = strip(init) {
            if let Some(ty) = self.literal_type(st) {
                self.local_types.insert(local, ty);
            }
        }
        // `let meta = meta;`, `let meta = &mut meta;`: the same struct under a new name.
        if let Some(source) = scopes.place_of(init).filter(|p| p.fields.is_empty()) {
            if let Some(ty) = self.base_type(scopes, &source.base) {
                self.local_types.insert(local, ty);
            }
            if let Base::Local(id) = source.base {
                let params = dataflow::param_count(self.def.map_or(self.ctx.sig, |d| d.sig));
                let param = if (id as usize) < params { Some(id) } else { self.rebound.get(&id).copied() };
                if let Some(param) = param {
                    self.rebound.insert(local, param);
                }
            }
        }
        let val = self.eval(scopes, state, init);
        self.store(scopes, state, &place, val, self.pos(init));
        if let Some(len) = built_len(init) {
            let len = self.len_text(scopes, len);
            if let Some(entries) = state.map.get_mut(&place) {
                entries.len = Len::Built(len);
            }
        } else if let Some(len) = copied_len(init) {
            // A copy of entries not known (a parameter's) still has their length.
            let len = self.len_text(scopes, len);
            state.map.entry(place.clone()).or_default().len = Len::Built(len);
        }
        self.field_lens(scopes, state, &place, init);
        if state.map.keys().all(|k| k.base != Base::Local(local)) {
            self.bind_object(state, local, || self.ctx.resolver.type_of(init, self.ctx.self_type, self.ctx.env()).map(|t| t.name));
        }
    }

    fn after_for(&mut self, scopes: &Scopes, state: &mut State, f: &syn::ExprForLoop) {
        self.running_counter_stores(scopes, state, f);
        // `for s in buf.iter_mut() { *s = v; }`: every entry is v; so with `.zip(real)` or
        // `.enumerate()` after it (`for (s, r) in buf.iter_mut().zip(real) { *s = *r; }`).
        if let Some((buffer, whole)) = entries_walked(&f.expr) {
            if let (Some(place), Some(value)) = (self.buffer_place(scopes, buffer), deref_store(&f.body.stmts)) {
                // `for (dst, src) in buf.iter_mut().zip(rows) { *dst = src; }` stores the rows
                // (`src` is out of scope here).
                let value = match (&*f.pat, strip(&f.expr)) {
                    (syn::Pat::Tuple(t), Expr::MethodCall(m)) if m.method == "zip" && m.args.len() == 1 && matches!(t.elems.iter().nth(1), Some(syn::Pat::Ident(src)) if src.ident == crate::rules::expr_text(strip(value))) => buffer_of(&m.args[0]),
                    _ => value,
                };
                self.walked_stored(scopes, state, place, whole, value, &f.expr, buffer);
            }
        }
        // `for i in k..n { buf[i] = v; }` after `buf[..k].copy_from_slice(real)`, to the end.
        if let (syn::Pat::Ident(p), Expr::Range(r)) = (&*f.pat, strip(&f.expr)) {
            if let (Some(_), Some(end), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, r.limits) {
                let copied = self.loop_prefixes.get(&self.pos(&f.expr)).cloned().unwrap_or_default();
                self.rest_stores(scopes, state, &f.body, &p.ident.to_string(), &copied, &crate::rules::expr_text(end));
            }
        }
        // `for i in 0..n { buf[i] = v; }`, `for (i, r) in real.iter().enumerate() { buf[i] = *r; }`:
        // every entry from the first on.
        let (var, walked) = match (&*f.pat, strip(&f.expr)) {
            (syn::Pat::Ident(p), Expr::Range(r)) if r.start.as_deref().is_some_and(|s| crate::index::int_value(s) == Some(0)) => {
                (p.ident.to_string(), r.end.as_deref().filter(|_| matches!(r.limits, syn::RangeLimits::HalfOpen(_))).map(crate::rules::expr_text))
            }
            (syn::Pat::Tuple(t), Expr::MethodCall(m)) if m.method == "enumerate" => match t.elems.first() {
                Some(syn::Pat::Ident(p)) => (p.ident.to_string(), collection_len(&m.receiver)),
                _ => return,
            },
            _ => return,
        };
        let tails = self.loop_tails.get(&self.pos(&f.expr)).cloned().unwrap_or_default();
        self.counter_stores(scopes, state, &f.body, &var, walked, &tails);
    }

    /// `let mut i = 0; while i < n { buf[i] = v; i += 1; }`: every entry from the first on, as
    /// the `for` form.
    fn after_while(&mut self, scopes: &Scopes, state: &mut State, w: &syn::ExprWhile) {
        let Expr::Binary(b) = strip(&w.cond) else { return };
        let (syn::BinOp::Lt(_), Expr::Path(p)) = (&b.op, strip(&b.left)) else { return };
        let Some(var) = p.path.get_ident().map(|i| i.to_string()) else { return };
        if !super::whole_local(scopes, &b.left).is_some_and(|id| self.zero_counters.contains(&id)) {
            return;
        }
        let steps = w.body.stmts.iter().any(|s| matches!(s, syn::Stmt::Expr(Expr::Binary(step), _) if steps_by_one(step) && crate::rules::expr_text(&step.left) == var));
        if steps {
            self.counter_stores(scopes, state, &w.body, &var, Some(crate::rules::expr_text(strip(&b.right))), &[]);
        }
    }

    fn exit(&mut self, scopes: &Scopes, state: &State, exit: &dataflow::Exit<'_>) {
        let value = exit.value;
        let mut state = state.clone();
        let state = &mut state;
        let Some(def) = self.def else {
            self.check_index_fields_at_exit(scopes, state, value);
            return;
        };
        if let Some(v) = value {
            let v = self.eval(scopes, state, v);
            self.summary.returns.join(v);
        }
        // What the parameters and `self` hold here (their locals are the first ids).
        for i in 0..dataflow::param_count(def.sig) {
            let v = self.read_concrete(state, &Place { base: Base::Local(i as LocalId), fields: Vec::new() });
            self.summary.params.entry(i).or_default().join(v);
        }
        // A parameter re-bound whole (`let meta = meta;`) is changed under its new name.
        for (&local, &param) in &self.rebound {
            let v = self.read_concrete(state, &Place { base: Base::Local(local), fields: Vec::new() });
            self.summary.params.entry(param as usize).or_default().join(v);
        }
        let v = self.read_concrete(state, &Place { base: Base::SelfValue, fields: Vec::new() });
        self.summary.self_value.join(v);
    }
}

/// The collection a loop walks the items of: `seqs` of `seqs`, `&seqs`, `seqs.iter()`.
fn iterated_collection(e: &Expr) -> String {
    match strip(e) {
        Expr::Reference(r) => iterated_collection(&r.expr),
        Expr::MethodCall(m) if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty() => iterated_collection(&m.receiver),
        e => crate::rules::expr_text(e),
    }
}

/// `seqs.iter().map(|s| s.len).sum()` (a turbofish, `as usize` too): the sum of a field over a
/// collection, as `sum(seqs.len)`.
fn summed_field(e: &Expr) -> Option<String> {
    let Expr::MethodCall(sum) = strip(e) else { return None };
    let Expr::MethodCall(map) = strip(&sum.receiver) else { return None };
    if sum.method != "sum" || map.method != "map" || map.args.len() != 1 {
        return None;
    }
    let closure = dataflow::closure_of(&map.args[0])?;
    let [syn::Pat::Ident(item)] = closure.inputs.iter().collect::<Vec<_>>()[..] else { return None };
    let mut body = strip(&closure.body);
    if let Expr::Cast(c) = body {
        body = strip(&c.expr);
    }
    let Expr::Field(f) = body else { return None };
    let syn::Member::Named(field) = &f.member else { return None };
    (item.ident == crate::rules::expr_text(&f.base)).then(|| format!("sum({}.{field})", iterated_collection(&map.receiver)))
}

/// The buffer whose entries `buf.iter_mut()..` (or `&mut buf`) walks mutably, and whether it walks every entry
/// (`.zip(real)`, `.enumerate()` keep them all; `.skip(k)`, `.take(k)`, `.step_by(k)`,
/// `.filter(..)` some).
fn entries_walked(e: &Expr) -> Option<(&Expr, bool)> {
    let m = match dataflow::strip_parens(e) {
        // `for s in &mut buf`, `for s in &mut buf[k..]`: `buf.iter_mut()`, `buf[k..].iter_mut()`.
        Expr::Reference(r) if r.mutability.is_some() => return Some((&r.expr, true)),
        // `for s in tail`, a part of `split_at_mut` or a `&mut [i64]`: its entries, mutably
        // where the body stores through them.
        Expr::Path(_) => return Some((e, true)),
        Expr::MethodCall(m) => m,
        _ => return None,
    };
    match m.method.to_string().as_str() {
        "iter_mut" if m.args.is_empty() => Some((&m.receiver, true)),
        "zip" | "enumerate" | "rev" => entries_walked(&m.receiver),
        "skip" | "take" | "step_by" | "filter" | "skip_while" | "take_while" => entries_walked(&m.receiver).map(|(b, _)| (b, false)),
        _ => None,
    }
}

/// A closure that returns its one argument converted (`|&x| x as i64`, `|x| i64::from(*x)`,
/// `|x| (*x).into()`): an entry keeps its value through it.
fn converts_its_argument(c: &syn::ExprClosure) -> bool {
    let [arg] = c.inputs.iter().collect::<Vec<_>>()[..] else { return false };
    binding_name(arg).is_some_and(|name| converted_name(&c.body) == Some(name))
}

/// The element of its one tuple argument that a closure returns, converted (`|(_, s)| s`,
/// `|(i, &s)| s as i64`): its position.
fn returned_element(c: &syn::ExprClosure) -> Option<usize> {
    let [arg] = c.inputs.iter().collect::<Vec<_>>()[..] else { return None };
    let syn::Pat::Tuple(t) = (match arg {
        syn::Pat::Reference(r) => &*r.pat,
        other => other,
    }) else {
        return None;
    };
    let name = converted_name(&c.body)?;
    t.elems.iter().position(|p| binding_name(p) == Some(name))
}

/// The part of a zipped iterator at a tuple position: `a.zip(b)` yields `(a's, b's)`,
/// `a.enumerate()` yields `(count, a's)`.
fn zipped_part(iter: &Expr, at: usize) -> Option<&Expr> {
    match strip(iter) {
        Expr::MethodCall(m) if m.method == "zip" && m.args.len() == 1 => [&*m.receiver, &m.args[0]].get(at).copied(),
        Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() && at == 1 => Some(&m.receiver),
        Expr::Call(c) if c.args.len() == 2 && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "zip")) => c.args.iter().nth(at),
        _ => None,
    }
}

/// The name a pattern binds whole (`x`, `&x`, `x: i64`).
fn binding_name(p: &syn::Pat) -> Option<&syn::Ident> {
    match p {
        syn::Pat::Ident(p) => Some(&p.ident),
        syn::Pat::Reference(r) => binding_name(&r.pat),
        syn::Pat::Type(t) => binding_name(&t.pat),
        _ => None,
    }
}

/// The local an expression reads, through conversions that keep its value (`x as i64`,
/// `x.into()`, `x.clone()`, `i64::from(x)`).
fn converted_name(mut e: &Expr) -> Option<&syn::Ident> {
    loop {
        e = match strip(e) {
            Expr::Cast(cast) => &cast.expr,
            Expr::MethodCall(m) if m.args.is_empty() && (m.method == "into" || m.method == "clone") => &m.receiver,
            Expr::Call(call) if call.args.len() == 1 && matches!(&*call.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "from")) => &call.args[0],
            Expr::Path(p) => return p.path.get_ident(),
            _ => return None,
        };
    }
}

/// The 0 an `unwrap_or_default` gives where the value is missing, written at `r`.
fn unwrap_or_default_origin(r: Range<usize>, text: &str) -> Origin {
    Origin { start: r.start, end: r.end, text: text.into(), entry: Entry::Zero, how: How::Fallback("unwrap_or_default".into()), holder: None, function: None, in_buffer: false, via: None, file: None, site: None }
}

/// How many entries a buffer is built with, as written: `vec![x; n]`, `[x; N]`.
fn built_len(init: &Expr) -> Option<String> {
    match strip(init) {
        Expr::Macro(m) => match super::vec_items(&m.mac)? {
            super::VecItems::Repeat(r) => Some(crate::rules::expr_text(&r.len)),
            super::VecItems::List(_) => None,
        },
        Expr::Repeat(r) => Some(crate::rules::expr_text(&r.len)),
        _ => None,
    }
}

/// The length of a copy of a slice (`real.to_vec()`, `real.clone()`, `Vec::from(real)`): the
/// slice's, as written (`real.len()`).
fn copied_len(init: &Expr) -> Option<String> {
    let copied = match strip(init) {
        Expr::MethodCall(m) if ["to_vec", "clone", "to_owned"].contains(&m.method.to_string().as_str()) && m.args.is_empty() => &*m.receiver,
        Expr::Call(c) if c.args.len() == 1 && matches!(&*c.func, Expr::Path(p) if p.path.segments.len() == 2 && p.path.segments[1].ident == "from" && p.path.segments[0].ident == "Vec") => &c.args[0],
        _ => return None,
    };
    collection_len(copied)
}

/// How many elements iterating over `e` walks, as written: `real.iter()` and `real` walk
/// `real.len()`.
fn collection_len(e: &Expr) -> Option<String> {
    let e = match strip(e) {
        Expr::MethodCall(m) if ["iter", "iter_mut", "into_iter"].contains(&m.method.to_string().as_str()) && m.args.is_empty() => &*m.receiver,
        other => other,
    };
    let place = crate::rules::expr_text(strip(e));
    place.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.').then(|| format!("{place}.len()"))
}

/// How far `buf.iter_mut().zip(real)` walks: `real.len()` (a zip stops at the shorter side);
/// `None` without a zip, or when the other side's length is not written.
fn zipped_len(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "zip" => m.args.first().and_then(collection_len),
        Expr::MethodCall(m) if m.method == "enumerate" => zipped_len(&m.receiver),
        _ => None,
    }
}

/// `*s = v` among the statements of a loop body: the value stored through the loop variable.
fn deref_store(stmts: &[syn::Stmt]) -> Option<&Expr> {
    stmts.iter().find_map(|s| match s {
        syn::Stmt::Expr(Expr::Assign(a), _) if matches!(&*a.left, Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_))) => Some(&*a.right),
        _ => None,
    })
}

impl<'c, 'a> Pad<'c, 'a> {
    fn pos(&self, e: &Expr) -> usize {
        self.ctx.expr_range(e).start
    }
    fn text(&self, e: &Expr) -> String {
        self.ctx.source_text(e)
    }
    fn origin(&self, e: &Expr, entry: Entry, how: How) -> Origin {
        let r = self.ctx.expr_range(e);
        Origin { start: r.start, end: r.end, text: self.text(e).into(), entry, how, holder: None, function: None, in_buffer: false, via: None, file: None, site: None }
    }

    /// The buffer a receiver or argument designates: `&x[..n]` → `x`, `x.as_slice()` → `x`.
    fn buffer_place(&self, scopes: &Scopes, e: &Expr) -> Option<Place> {
        scopes.place_of(buffer_of(e))
    }

    /// The place a place is: through a local that borrows a field, that field.
    fn borrowed(&self, place: &Place) -> Place {
        match place.base {
            Base::Local(id) => match self.borrows.get(&id) {
                Some(field) => field.fields_then(&place.fields),
                None => place.clone(),
            },
            Base::SelfValue => place.clone(),
        }
    }

    /// Stores `val` into `place` whole (its fields too); the first place an origin is stored into
    /// names it in messages.
    fn store(&self, scopes: &Scopes, state: &mut State, place: &Place, val: Val, at: usize) {
        let place = &self.borrowed(place);
        // A field of `self` not written yet holds what the type leaves in it: `self.slots.clear()`
        // replaces that.
        self.materialize(state, place);
        // A value with nothing known into a place that held nothing: no entry (most locals).
        let held = state.map.range(place.clone()..).next().is_some_and(|(k, _)| k.starts_with(place));
        if val.own.is_empty() && val.fields.is_empty() && !held && !self.is_callers(state, place) {
            return;
        }
        state.clear_under(place);
        self.store_fields(scopes, state, place, val, at);
    }

    fn store_fields(&self, scopes: &Scopes, state: &mut State, place: &Place, val: Val, at: usize) {
        let holder: Arc<str> = scopes.display(place).into();
        // A scalar (`b` of `for b in 0..n`, `let x = 0;`) holds no buffer: the buffer it is
        // put into names it.
        let origins = val.own.into_iter().map(|mut o| {
            if o.in_buffer {
                o.holder.get_or_insert_with(|| holder.clone());
            }
            o
        });
        state.map.insert(place.clone(), Entries { origins: origins.collect(), reset: Some(at), prefix: None, outer: None, suffix: None, len: Len::Unknown });
        for (f, v) in val.fields {
            self.store_fields(scopes, state, &place.field(&f), v, at);
        }
    }

    /// The lengths the buffers of a struct literal are built with (`Meta { slot_mapping: vec![0;
    /// padded], .. }`), as a `let` of each would have them: a loop over fewer entries leaves the
    /// rest as built.
    fn field_lens(&self, scopes: &Scopes, state: &mut State, place: &Place, init: &Expr) {
        let Expr::Struct(s) = strip(init) else { return };
        for f in &s.fields {
            let syn::Member::Named(name) = &f.member else { continue };
            let field = place.field(&name.to_string());
            match built_len(&f.expr) {
                Some(len) => {
                    let len = self.len_text(scopes, len);
                    if let Some(entries) = state.map.get_mut(&field) {
                        entries.len = Len::Built(len);
                    }
                }
                None => self.field_lens(scopes, state, &field, &f.expr),
            }
        }
    }

    /// A loop stored `v` into entries `0..walked` of `place` (`walked` as written, when known):
    /// every entry, unless the buffer is known to be longer (`vec![0; bs]` with `bs` another
    /// length than the loop's), then the rest keep what they held.
    /// `for (s, r) in buf.iter_mut().zip(real)`: as far as `real` goes, which is every entry only
    /// where the buffer is known to have `real.len()` of them (a persistent buffer's tail keeps
    /// what it held).
    fn overwrite_zipped(&self, scopes: &Scopes, state: &mut State, place: &Place, v: Val, at: usize, zipped: Option<String>) {
        let built = matches!(state.map.get(&self.borrowed(place)).map(|e| &e.len), Some(Len::Built(_)));
        match zipped {
            Some(walked) if !built && self.len_text(scopes, walked.clone()) != format!("{}.len()", scopes.display(place)) => {
                self.add(scopes, state, place, v.own.clone());
                if let Some(entries) = state.map.get_mut(&self.borrowed(place)) {
                    entries.prefix = Some((walked, v.own));
                }
            }
            zipped => self.overwrite(scopes, state, place, v, at, zipped),
        }
    }

    fn overwrite(&self, scopes: &Scopes, state: &mut State, place: &Place, v: Val, at: usize, walked: Option<String>) {
        let len = state.map.get(place).map(|e| e.len.clone()).unwrap_or_default();
        match (&len, walked) {
            // The first `walked` entries only: what `buf[..walked]` holds now, as after a copy
            // into that prefix (a later `buf[walked..].fill(PAD)` completes it).
            (Len::Built(built), Some(walked)) if !self.walks_all(scopes, place, built, &walked) => {
                // The tail from there on was written before (`buf[real.len()..].fill(PAD)`, then
                // the real rows stored one by one): every entry is one of the two.
                let tail = state.map.get(place).and_then(|e| e.suffix.clone()).filter(|(k, _)| self.same_len(scopes, k, &walked)).map(|(_, o)| o);
                if self.fill_rest(scopes, state, place, tail, v.own.clone(), at) {
                    return;
                }
                self.add(scopes, state, place, v.own.clone());
                if let Some(entries) = state.map.get_mut(place) {
                    entries.prefix = Some((walked, v.own));
                }
            }
            _ => {
                self.store(scopes, state, place, v, at);
                if let Some(entries) = state.map.get_mut(place) {
                    entries.len = len;
                }
            }
        }
    }

    /// Adds origins to what a place's entries may hold.
    fn add(&self, scopes: &Scopes, state: &mut State, place: &Place, origins: BTreeSet<Origin>) {
        let place = &self.borrowed(place);
        self.materialize(state, place);
        if self.is_callers(state, place) {
            state.map.insert(place.clone(), Entries { origins: [Origin::kept()].into(), reset: None, prefix: None, outer: None, suffix: None, len: Len::Unknown });
        }
        let holder: Arc<str> = scopes.display(place).into();
        let entries = state.map.entry(place.clone()).or_default();
        entries.prefix = None;
        entries.outer = None;
        entries.suffix = None;
        entries.origins.extend(origins.into_iter().map(|mut o| {
            o.holder.get_or_insert_with(|| holder.clone());
            o
        }));
    }

    /// In a summary: `place` is the caller's (inside a parameter, a field of `self`) and nothing
    /// here wrote it yet, nor a place that holds it.
    fn is_callers(&self, state: &State, place: &Place) -> bool {
        if self.def.is_none() || state.map.keys().any(|k| place.starts_with(k)) {
            return false;
        }
        state.is_callers(place) || matches!(place.base, Base::Local(id) if self.rebound.contains_key(&id))
    }

    /// A field of `self` not written yet in this function holds what the type's functions leave
    /// in it.
    fn materialize(&self, state: &mut State, place: &Place) {
        if place.base != Base::SelfValue || place.fields.is_empty() || state.map.contains_key(place) || self.def.is_some() || self.callers_fields {
            return;
        }
        if state.map.keys().any(|k| place.starts_with(k) && k != place && !k.fields.is_empty()) {
            return;
        }
        let Some(ty) = self.ctx.self_type else { return };
        let Some(summary) = self.field_summary(ty) else { return };
        let val = (*summary).clone().project(&place.fields);
        insert_absent(state, place, val);
    }

    fn read(&self, state: &mut State, place: &Place) -> Val {
        let place = &self.borrowed(place);
        self.materialize(state, place);
        let mut val = self.read_concrete(state, place);
        // In a summary, a parameter's entries not written here are the caller's; so are those of
        // a field of the receiver.
        let param = match (self.def, &place.base) {
            (Some(d), Base::Local(id)) if (*id as usize) < dataflow::param_count(d.sig) => Some(*id as usize),
            (Some(_), Base::SelfValue) if !place.fields.is_empty() => self.summary.receiver_at,
            _ => None,
        };
        if let Some(id) = param {
            if !state.map.contains_key(place) && !state.map.keys().any(|k| place.starts_with(k) && k.base == Base::SelfValue && !k.fields.is_empty()) {
                let o = Origin {
                    start: 0,
                    end: 0,
                    text: "".into(),
                    entry: Entry::Param(id, place.fields.clone()),
                    how: How::Value,
                    holder: None,
                    function: None,
                    in_buffer: false,
                    via: None,
                    file: None,
                    site: None,
                };
                val.own.insert(o);
            }
        }
        val
    }

    /// What the state says of a place and the fields inside it.
    fn read_concrete(&self, state: &State, place: &Place) -> Val {
        let mut val = Val::default();
        for (k, entries) in state.map.range(place.clone()..) {
            if !k.starts_with(place) {
                break;
            }
            let mut v = &mut val;
            for f in &k.fields[place.fields.len()..] {
                v = v.fields.entry(f.clone()).or_default();
            }
            v.own.extend(entries.origins.iter().cloned());
        }
        val
    }

    /// The abstract value of an expression.
    fn eval(&self, scopes: &Scopes, state: &mut State, e: &Expr) -> Val {
        match e {
            Expr::Paren(p) => return self.eval(scopes, state, &p.expr),
            Expr::Group(g) => return self.eval(scopes, state, &g.expr),
            Expr::Reference(r) => return self.eval(scopes, state, &r.expr),
            Expr::Try(t) => return self.eval(scopes, state, &t.expr),
            Expr::Await(a) => return self.eval(scopes, state, &a.base),
            Expr::Block(b) => return self.block_value(scopes, state, &b.block),
            // `async { vec![0; n] }.await`: the value of the block, run where it is awaited.
            Expr::Async(a) => return self.block_value(scopes, state, &a.block),
            Expr::If(i) => {
                let mut v = self.block_value(scopes, state, &i.then_branch);
                if let Some((_, els)) = &i.else_branch {
                    v.join(self.eval(scopes, state, els));
                }
                return v;
            }
            Expr::Match(m) => {
                let mut v = Val::default();
                for arm in &m.arms {
                    v.join(self.tail_value(scopes, state, &arm.body));
                }
                return v;
            }
            Expr::Loop(l) => {
                let mut v = Val::default();
                for value in dataflow::break_values(l) {
                    v.join(self.tail_value(scopes, state, value));
                }
                return v;
            }
            // `0..n` as entries (`(0..n).collect()`, pushed from a `for` over it): the first is
            // its start.
            Expr::Range(r) => {
                return match r.start.as_deref().and_then(|s| self.ctx.int_value(s).map(|v| (s, v))) {
                    Some((start, v)) => Val { own: Val::one(self.origin(start, Entry::Const(v), How::Counted)).put(&How::Counted), fields: BTreeMap::new() },
                    None => Val::default(),
                };
            }
            // `items.fold(init, |mut acc, x| { acc.push(..); acc })`: what the closure ends with.
            Expr::MethodCall(m) if m.method == "fold" || m.method == "try_fold" => {
                if let Some(v) = self.block_tails.get(&self.pos(e)) {
                    return v.clone();
                }
            }
            // `write(&padded_slots!(real, n, 0))`: what the expansion of a macro of the crate
            // ends with (the solver walked it where it is called).
            Expr::Macro(m) => {
                if let Some(expanded) = self.ctx.fns.macros.expansion(&m.mac) {
                    return self.eval(scopes, state, &expanded);
                }
            }
            _ => {}
        }
        if let Some(v) = self.ctx.int_value(e).filter(|_| !is_local(scopes, e)) {
            return Val::one(self.origin(e, Entry::Const(v), How::Value));
        }
        if let Some(place) = scopes.place_of(e) {
            let mut v = self.read(state, &place);
            if let Base::Local(_) = place.base {
                let at = self.pos(e);
                tag_via(&mut v, &place, at);
            }
            return v;
        }
        match e {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.eval(scopes, state, &u.expr),
            Expr::Cast(c) => self.eval(scopes, state, &c.expr),
            // `x[..n]`: some of x's entries; exactly those copied into that prefix, if they were.
            Expr::Index(i) if matches!(strip(&i.index), Expr::Range(_)) => {
                let mut v = self.eval(scopes, state, &i.expr);
                if let (Some(bound), Some(place)) = (prefix_bound(&i.index), scopes.place_of(&i.expr)) {
                    if let Some(entries) = state.map.get(&place) {
                        if let Some((_, origins)) = [&entries.prefix, &entries.outer].into_iter().flatten().find(|(k, _)| *k == bound) {
                            v.own = origins.clone();
                        }
                    }
                }
                v
            }
            // `rows[i]`, `by_bs[&bs]`: one buffer of a collection of them holds what their entries
            // may (one entry of a flat buffer, likewise), unless the body writes one of them
            // through a borrow (`by_bs.get_mut(&bs).unwrap().fill(PAD)`), which is not followed.
            Expr::Index(i) => self.element_of(scopes, state, &i.expr),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => self.vec_macro(scopes, state, &m.mac),
            Expr::Repeat(r) => self.filled(scopes, state, &r.expr),
            // `(slots, n)`: its elements as fields named by position, as places name them.
            Expr::Tuple(t) => {
                let mut v = Val::default();
                for (i, el) in t.elems.iter().enumerate() {
                    v.fields.insert(i.to_string(), self.eval(scopes, state, el));
                }
                v
            }
            Expr::Array(a) => {
                let mut v = Val::default();
                for el in &a.elems {
                    v.own.extend(self.eval(scopes, state, el).put(&How::Filled));
                }
                // `[0, 0, 0, 0]`: the zeros written in the literal are reported once, at the first.
                let literal = self.ctx.expr_range(e);
                let mut seen = BTreeSet::new();
                v.own.retain(|o| !(o.file.is_none() && literal.contains(&o.start) && !seen.insert((o.entry.clone(), o.how.clone()))));
                v
            }
            Expr::Struct(s) => {
                let mut v = Val::default();
                if let Some(rest) = &s.rest {
                    // `Slots { n, ..Default::default() }` of a struct deriving `Default`.
                    let default_call = matches!(strip(rest), Expr::Call(c) if c.args.is_empty() && matches!(strip(&c.func), Expr::Path(p) if p.path.segments.len() == 2 && p.path.segments[0].ident == "Default"));
                    let written: Vec<String> = s.path.segments.iter().map(|s| s.ident.to_string()).collect();
                    let derived = if default_call { self.derived_default(&written, rest) } else { None };
                    v = match derived {
                        Some(derived) => derived,
                        // `..Default::default()` of a hand-written `impl Default for Meta`: the
                        // struct's own `default()`, as `..Meta::default()` reads.
                        None if default_call => {
                            let owner = &s.path;
                            self.eval(scopes, state, &syn::parse_quote!(#owner::default()))
                        }
                        None => self.eval(scopes, state, rest),
                    };
                }
                for f in &s.fields {
                    if let syn::Member::Named(name) = &f.member {
                        let fv = self.eval(scopes, state, &f.expr);
                        v.fields.insert(name.to_string(), fv);
                    }
                }
                v
            }
            Expr::Call(c) => self.eval_call(scopes, state, e, c),
            Expr::MethodCall(m) => self.eval_method(scopes, state, e, m),
            Expr::Path(p) => self.static_value(scopes, state, p),
            // `block * BLOCK_SIZE + pos % BLOCK_SIZE`, the slot formula: a slot of the block
            // `block` names, so a block that may be 0 maps the row into the null block.
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => match slot_of_block(&b.left, &b.right).or_else(|| slot_of_block(&b.right, &b.left)) {
                Some(block) => {
                    let v = self.eval(scopes, state, block);
                    // A value computed from the block: the slot is held by what it is stored in.
                    let own = v.own.into_iter().filter(|o| matches!(o.entry, Entry::Zero | Entry::Const(0) | Entry::Param(..))).map(|mut o| {
                        (o.holder, o.via) = (None, None);
                        o
                    });
                    Val { own: own.collect(), fields: BTreeMap::new() }
                }
                None => Val::default(),
            },
            _ => Val::default(),
        }
    }

    /// `static ZEROS: [i64; 8] = [0; 8];` of this file, named where a buffer is expected: the
    /// entries of its initializer (an array, a repeat, a reference to one), a few statics deep.
    fn static_value(&self, scopes: &Scopes, state: &mut State, p: &syn::ExprPath) -> Val {
        let Some(last) = p.path.segments.last().filter(|_| p.qself.is_none()) else { return Val::default() };
        let Some(init) = self.ctx.static_init(&p.path) else { return Val::default() };
        if !matches!(strip(init), Expr::Array(_) | Expr::Repeat(_)) || self.static_depth.get() >= MAX_STATIC_DEPTH {
            return Val::default();
        }
        self.static_depth.set(self.static_depth.get() + 1);
        let mut v = self.eval(scopes, state, strip(init));
        self.static_depth.set(self.static_depth.get() - 1);
        // Reported where the static is used; its initializer is shared, so no fix is offered.
        let r = self.ctx.expr_range(&Expr::Path(p.clone()));
        v.own = std::mem::take(&mut v.own)
            .into_iter()
            .map(|mut o| {
                if o.site.is_none() {
                    o.site = Some((r.start, r.end));
                    o.how = How::Static(last.ident.to_string());
                }
                o
            })
            .collect();
        v
    }

    /// One buffer of the collection `coll` (or one entry of a flat buffer): what the entries may
    /// hold; nothing known where the body writes one of its buffers through a borrow.
    fn element_of(&self, scopes: &Scopes, state: &mut State, coll: &Expr) -> Val {
        let body = self.def.map_or(self.ctx.body, |d| d.body);
        if self.elements_written.get_or_init(|| element_written(body)).contains(&crate::rules::expr_text(strip(coll))) {
            return Val::default();
        }
        Val { own: self.eval(scopes, state, coll).own, fields: BTreeMap::new() }
    }

    fn block_value(&self, scopes: &Scopes, state: &mut State, b: &syn::Block) -> Val {
        match b.stmts.last() {
            Some(syn::Stmt::Expr(v, None)) => self.tail_value(scopes, state, v),
            _ => Val::default(),
        }
    }

    /// What a closure gives back: its body's value and those of its `return`s (`let Some(t) =
    /// .. else { return vec![0; len]; };` in a `map` closure).
    fn closure_value(&self, scopes: &Scopes, state: &mut State, c: &syn::ExprClosure) -> Val {
        let mut v = self.eval(scopes, state, &c.body);
        for returned in dataflow::closure_return_values(c) {
            v.join(self.tail_value(scopes, state, returned));
        }
        v
    }

    /// The value a block or an arm ends with, as it was while its locals were in scope.
    fn tail_value(&self, scopes: &Scopes, state: &mut State, e: &Expr) -> Val {
        match self.block_tails.get(&self.pos(e)) {
            Some(tail) => tail.clone(),
            None => self.eval(scopes, state, e),
        }
    }

    /// A buffer built filled with `value`.
    fn filled(&self, scopes: &Scopes, state: &mut State, value: &Expr) -> Val {
        Val { own: self.entry_value(scopes, state, value).put(&How::Filled), fields: BTreeMap::new() }
    }

    /// The value put into an entry of a buffer (`vec![v; n]`, `push(v)`, `resize(n, v)`): an
    /// index's `Default::default()` there is 0 (an integer's, `i64::default()`, and a generic
    /// helper's `T::default()`: an entry of an index buffer is an integer). A slot type of this
    /// file with a `default` of its own (`impl Default for Slot { .. Slot(PAD_SLOT_ID) }`) is
    /// not known to be 0.
    fn entry_value(&self, scopes: &Scopes, state: &mut State, value: &Expr) -> Val {
        if let Some((owner, f)) = super::zero_call(value) {
            if super::owns_zero(self.ctx, &owner, &f) {
                return Val::default();
            }
            return Val::one(self.origin(value, Entry::Zero, How::Value));
        }
        self.eval(scopes, state, value)
    }

    fn vec_macro(&self, scopes: &Scopes, state: &mut State, mac: &syn::Macro) -> Val {
        match super::vec_items(mac) {
            Some(super::VecItems::Repeat(r)) => self.filled(scopes, state, &r.expr),
            Some(super::VecItems::List(items)) => self.eval(scopes, state, &Expr::Array(syn::ExprArray { attrs: Vec::new(), bracket_token: Default::default(), elems: items.into_iter().collect() })),
            None => Val::default(),
        }
    }

    fn eval_call(&self, scopes: &Scopes, state: &mut State, e: &Expr, c: &syn::ExprCall) -> Val {
        // `(|| vec![0; n])()`, `make(n)` of `let make = |k| ..;`: what the closure returns.
        if let Some(v) = self.block_tails.get(&self.pos(e)) {
            return v.clone();
        }
        if let Expr::Closure(closure) = strip(&c.func) {
            return self.closure_value(scopes, state, closure);
        }
        let Expr::Path(p) = &*c.func else { return Val::default() };
        // `Ok(slots)`, `Some(slots)`: a helper that returns its buffer in a `Result` or `Option`;
        // `Cow::Owned(slots)` holds it as well.
        let segments: Vec<&syn::Ident> = p.path.segments.iter().map(|s| &s.ident).collect();
        let wrapper = p.path.is_ident("Ok") || p.path.is_ident("Some") || matches!(segments.as_slice(), [.., cow, variant] if *cow == "Cow" && (*variant == "Owned" || *variant == "Borrowed"));
        if wrapper && c.args.len() == 1 {
            return self.eval(scopes, state, &c.args[0]);
        }
        let Some(name) = p.path.segments.last().map(|s| s.ident.to_string()) else { return Val::default() };
        // A function of the workspace named as a library's constructor is read as what it does
        // (`GraphInputs::zeroed()`, `Inputs::new(MAX_BS)`, whose argument is a length, not entries),
        // where that is known.
        let scalar_argument = c.args.first().is_some_and(|a| self.ctx.int_value(a).is_some());
        // `Tensor::cat(&[&real, &pad], 0)`, `IntTensor::cat(vec![real, tail], 0)`: the entries of
        // every part, as the library's concatenation has them (a framework's own `cat` of the
        // workspace copies its parts' fields in ways not followed here).
        if ["cat", "concat", "stack"].contains(&name.as_str()) && !c.args.is_empty() {
            let parts: Vec<&Expr> = match strip(&c.args[0]) {
                Expr::Array(a) => a.elems.iter().collect(),
                Expr::Macro(m) if m.mac.path.is_ident("vec") => vec![&c.args[0]],
                other => vec![other],
            };
            let mut v = Val::default();
            for part in parts {
                v.join(self.eval(scopes, state, part));
            }
            if !v.is_unknown() {
                return v;
            }
        }
        if ZEROS.contains(&name.as_str()) || ["cat", "concat", "stack"].contains(&name.as_str()) || (scalar_argument && CONVERSIONS.contains(&name.as_str())) {
            if let Some(mut v) = self.helper_return(scopes, state, e).filter(|v| !v.is_unknown()) {
                // `Tensor::zeros(n)` of a tensor type of the workspace (`Tensor { data: vec![0;
                // n], shape }`): its entries are zeros, as those of `Tensor::new(&slots)` are the
                // slots, whatever fields hold them.
                if ZEROS.contains(&name.as_str()) && v.own.is_empty() {
                    v.own = Val::one(self.origin(e, Entry::Zero, How::Value)).put(&How::Filled);
                }
                return v;
            }
        }
        if ZEROS.contains(&name.as_str()) {
            return Val::one(self.origin(e, Entry::Zero, How::Value)).put(&How::Filled).into();
        }
        if crate::index::int_value(e).is_some() {
            return self.eval(scopes, state, &c.args[0]);
        }
        // `std::iter::repeat(0)`, `repeat_n(0, n)`, `once(0)`: an iterator of that value.
        if name == "repeat" || name == "repeat_n" || name == "once" {
            return c.args.first().map_or_else(Val::default, |v| self.filled(scopes, state, v));
        }
        // `std::array::from_fn(|_| 0)`, `repeat_with(|| 0)`: every entry is what the producer returns.
        if (name == "from_fn" || name == "repeat_with") && c.args.len() == 1 {
            return Val { own: self.produced(scopes, state, &c.args[0]).put(&How::Every), fields: BTreeMap::new() };
        }
        // `Tensor::full(0i64, (n,), &dev)` (candle: the value first; burn and tch put the shape
        // first): filled with the argument that is a constant, else with the first.
        if name == "full" && c.args.len() >= 2 {
            let value = c.args.iter().find(|a| self.ctx.int_value(a).is_some()).unwrap_or(&c.args[0]);
            return self.filled(scopes, state, value);
        }
        // `Tensor::from_vec(slots, ..)` holds what `slots` holds; `Meta::new(n)` of the workspace,
        // whose argument says nothing of the entries, holds what the constructor puts there.
        if CONVERSIONS.contains(&name.as_str()) {
            let v = c.args.first().map_or_else(Val::default, |a| self.eval(scopes, state, a));
            if !v.is_unknown() {
                // A constructor of the workspace (`StepInputs::new(slots)`) keeps its argument in
                // a field, which a getter or a field access reads back.
                if let Some(built) = self.helper_return(scopes, state, e).filter(|b| !b.fields.is_empty()) {
                    return Val { own: v.own, fields: built.fields };
                }
                return v;
            }
        }
        // An integer's `i64::default()`, `u32::zero()`: 0 (`(0..n).map(|_| i64::default())`).
        if super::zero_call(e).is_some_and(|(owner, _)| super::is_integer_type(&owner)) {
            return Val::one(self.origin(e, Entry::Zero, How::Value));
        }
        if name == "default" && c.args.is_empty() {
            let owner: Vec<String> = p.path.segments.iter().take(p.path.segments.len().saturating_sub(1)).map(|s| s.ident.to_string()).collect();
            if let Some(v) = (!owner.is_empty()).then(|| self.derived_default(&owner, e)).flatten() {
                return v;
            }
        }
        if let Some(v) = self.helper_return(scopes, state, e) {
            return v;
        }
        // `std::cmp::max(s, 0)`: either argument (see `max` in `eval_method`).
        if ["max", "min"].contains(&name.as_str()) && c.args.len() == 2 {
            return self.one_of(scopes, state, &c.args);
        }
        // `Meta(slots)`: a tuple struct (or variant) holds its arguments as fields by position.
        if name.starts_with(|c: char| c.is_ascii_uppercase()) && !p.path.segments.iter().rev().nth(1).is_some_and(|s| s.ident.to_string().starts_with(|c: char| c.is_ascii_uppercase())) {
            let mut v = Val::default();
            for (i, arg) in c.args.iter().enumerate() {
                v.fields.insert(i.to_string(), self.eval(scopes, state, arg));
            }
            return v;
        }
        self.unknown_call(scopes, state, c.args.iter())
    }

    /// A value that is one of `values` (`a.max(b)`: either).
    fn one_of<'e>(&self, scopes: &Scopes, state: &mut State, values: impl IntoIterator<Item = &'e Expr>) -> Val {
        let mut v = Val::default();
        for value in values {
            v.join(self.eval(scopes, state, value));
        }
        v
    }

    /// The value `default()` derived for struct `owner` (as written: `Slots`, `meta::Slots`) gives:
    /// its integer arrays zero-filled (`None`: no derived `Default` is known), a struct of this
    /// file or of another.
    fn derived_default(&self, owner: &[String], call: &Expr) -> Option<Val> {
        let here = self.def.map_or(self.ctx.self_type, |d| d.self_type.as_deref());
        let zeroed: Vec<String> = match (owner, owner.last().and_then(|name| self.ctx.resolver.fields.zeroed_by_default(name))) {
            ([_], Some(local)) => local.to_vec(),
            _ => self.ctx.resolver.type_paths(owner, here).iter().find_map(|p| self.ctx.items.zeroed_by_default(self.ctx.index, p))?,
        };
        let owner = owner.last()?;
        let r = self.ctx.expr_range(call);
        let zero = Origin { start: r.start, end: r.end, text: "0".into(), entry: Entry::Zero, how: How::Derived(owner.to_string()), holder: None, function: None, in_buffer: true, via: None, file: None, site: None };
        let mut v = Val::default();
        for field in zeroed {
            v.fields.insert(field.clone(), Val::one(zero.clone()));
        }
        Some(v)
    }

    /// What a producer of entries gives each time it is called: a closure's value (`|| 0`,
    /// `|_| PAD_SLOT_ID`), or 0 for `Default::default` and `i64::default`.
    fn produced(&self, scopes: &Scopes, state: &mut State, producer: &Expr) -> Val {
        match strip(producer) {
            Expr::Closure(c) => self.closure_value(scopes, state, c),
            Expr::Path(p) => match super::zero_fn_path(&p.path) {
                Some((owner, f)) if !super::owns_zero(self.ctx, &owner, &f) => Val::one(self.origin(producer, Entry::Zero, How::Producer)),
                _ => Val::default(),
            },
            _ => Val::default(),
        }
    }

    fn eval_method(&self, scopes: &Scopes, state: &mut State, e: &Expr, m: &syn::ExprMethodCall) -> Val {
        let method = m.method.to_string();
        let yielding = dataflow::yielding_fn(m);
        // The part of a zipped receiver a `map` closure keeps (`.map(|(_, s)| s)`).
        let zipped = match yielding {
            Some(Expr::Closure(c)) if method == "map" => returned_element(c).and_then(|at| zipped_part(&m.receiver, at)),
            _ => None,
        };
        // `let meta: InputMetadata = seqs.into();` runs the file's `From` impl for the type of
        // `seqs` (a receiver of a type not known may be any buffer: it converts as itself).
        if let Some((idx, def)) = self.ctx.into_impl(e, self.def, true) {
            if let Some(summary) = self.summary(idx, def) {
                return self.substitute(scopes, state, &summary.returns, &[&*m.receiver], &How::Helper("from".to_string()), e);
            }
        }
        match method.as_str() {
            _ if ZEROS.contains(&method.as_str()) => Val::one(self.origin(e, Entry::Zero, How::Value)).put(&How::Filled).into(),
            // candle's `pad_with_zeros(dim, left, right)`: the receiver's entries, and zeros.
            "pad_with_zeros" => {
                let mut v = self.eval(scopes, state, &m.receiver);
                let r = self.ctx.range(m.method.span());
                let zeros = Origin { start: r.start, end: r.end, text: "pad_with_zeros".into(), entry: Entry::Zero, how: How::Put(method.clone()), holder: None, function: None, in_buffer: true, via: None, file: None, site: None };
                v.own.insert(zeros);
                v
            }
            // `by_bs.get(&bs)`, `rows.get_mut(i)`: one buffer of a collection of them, as
            // `by_bs[&bs]` is.
            "get" | "get_mut" if m.args.len() == 1 => self.element_of(scopes, state, &m.receiver),
            // itertools' `pad_using(n, |_| 0)`: the receiver's entries, then what the closure
            // gives for each missing one.
            "pad_using" if m.args.len() == 2 => {
                let mut v = self.eval(scopes, state, &m.receiver);
                v.own.extend(self.produced(scopes, state, &m.args[1]).put(&How::Put(method.clone())));
                v
            }
            // burn's `pad(pads, value)`: the receiver's entries, and `value` for each added one.
            "pad" if m.args.len() == 2 => {
                let mut v = self.eval(scopes, state, &m.receiver);
                v.own.extend(self.eval(scopes, state, &m.args[1]).put(&How::Put(method.clone())));
                v
            }
            // `s.max(0)`, `s.clamp(0, hi)`: the receiver's value or a bound (a clamp that turns
            // the sentinel into block 0).
            "max" | "min" if m.args.len() == 1 => self.one_of(scopes, state, std::iter::once(&*m.receiver).chain(&m.args)),
            "clamp" if m.args.len() == 2 => self.one_of(scopes, state, std::iter::once(&*m.receiver).chain(&m.args)),
            // candle's `slots.slice_assign(&[0..n], &real)`: a new tensor with the receiver's
            // entries outside the range and the source's inside it.
            "slice_assign" if m.args.len() == 2 => self.one_of(scopes, state, [&*m.receiver, &m.args[1]]),
            "unwrap_or" | "map_or" => {
                let Some(fallback) = m.args.first() else { return Val::default() };
                // `unwrap_or(Tensor::zeros(n)?)`: a fallback struct keeps its fields.
                let fallback = self.eval(scopes, state, fallback);
                let fields = fallback.fields.clone();
                let mut v = Val { own: fallback.tag(&How::Fallback(method.clone())), fields };
                if method == "unwrap_or" {
                    v.join(self.eval(scopes, state, &m.receiver));
                }
                v
            }
            "unwrap_or_default" => {
                let r = self.ctx.range(m.method.span()).start..self.ctx.expr_range(e).end;
                Val::one(unwrap_or_default_origin(r, "unwrap_or_default()"))
            }
            // `map.entry(id).or_insert_with(|| vec![0; n])`: the entry already there (not known
            // here) or the one inserted.
            "or_insert_with" | "get_or_insert_with" => match m.args.first().map(strip) {
                Some(Expr::Closure(c)) => self.closure_value(scopes, state, c),
                _ => Val::default(),
            },
            "or_insert" | "get_or_insert" if m.args.len() == 1 => self.eval(scopes, state, &m.args[0]),
            "unwrap_or_else" => {
                let mut v = self.eval(scopes, state, &m.receiver);
                if let Some(Expr::Closure(c)) = m.args.first().map(strip) {
                    v.own.extend(self.closure_value(scopes, state, c).tag(&How::Fallback(method.clone())));
                }
                v
            }
            // The values a mapped iterator yields are what the closure returns.
            _ if yielding.is_some() => match yielding {
                // `.map(|&x| x as i64)`, `.map(|x| i64::from(*x))`: the receiver's entries, converted.
                Some(Expr::Closure(c)) if method == "map" && converts_its_argument(c) => self.eval(scopes, state, &m.receiver),
                // `(0..bs).zip(real.chain(repeat(0))).map(|(_, s)| s)`: the entries of that part.
                Some(Expr::Closure(_)) if zipped.is_some() => self.eval(scopes, state, zipped.expect("checked in the guard")),
                // `flat_map` yields the entries of the collections the closure returns: a
                // value that is not in one (`unwrap_or_default()` of an `Option<Vec<_>>`, an
                // empty collection) yields nothing.
                Some(Expr::Closure(c)) if method == "flat_map" => {
                    let mut v = self.closure_value(scopes, state, c);
                    v.own.retain(|o| o.in_buffer);
                    Val { own: v.put(&How::Every), fields: BTreeMap::new() }
                }
                // (Pairs keep their elements apart, for a map collected from them.)
                Some(Expr::Closure(c)) => {
                    let item = self.closure_value(scopes, state, c);
                    let pair = matches!(strip(super::tail(&c.body)), Expr::Tuple(t) if t.elems.len() == 2);
                    let fields = if pair { item.fields.iter().map(|(at, v)| (at.clone(), v.clone().put(&How::Every).into())).collect() } else { BTreeMap::new() };
                    Val { own: item.put(&How::Every), fields }
                }
                // `let slot_of = |p| ..; (0..n).map(slot_of)`: what the closure returned where
                // the solver ran it in place of the name.
                Some(named @ Expr::Path(_)) if self.block_tails.contains_key(&self.pos(named)) => Val { own: self.block_tails[&self.pos(named)].clone().put(&How::Every), fields: BTreeMap::new() },
                // `.map(i64::from)`, `.map(Into::into)`.
                Some(Expr::Path(p)) if method == "map" && p.path.segments.last().is_some_and(|s| s.ident == "from" || s.ident == "into") => self.eval(scopes, state, &m.receiver),
                // `.map(Option::unwrap_or_default)`: the closure `|s| s.unwrap_or_default()` as a path.
                Some(path) if dataflow::maps_to_default(m).is_some() => {
                    let o = unwrap_or_default_origin(self.ctx.expr_range(path), "unwrap_or_default");
                    Val { own: Val::one(o).put(&How::Every), fields: BTreeMap::new() }
                }
                _ => Val::default(),
            },
            "unzip" => match dataflow::unzipped(e) {
                Some(c) => {
                    let pair = self.closure_value(scopes, state, c);
                    Val { own: BTreeSet::new(), fields: pair.fields.into_iter().map(|(at, v)| (at, v.put(&How::Every).into())).collect() }
                }
                None => Val::default(),
            },
            "chain" => {
                let mut v = self.eval(scopes, state, &m.receiver);
                if let Some(other) = m.args.first() {
                    v.join(self.eval(scopes, state, other));
                }
                v
            }
            "get" | "first" | "last" | "copied" | "cloned" if m.args.len() <= 1 => self.eval(scopes, state, &m.receiver),
            // `[PAD].repeat(n)` (a slice repeated into a `Vec`), `rows.concat()`, `.flatten()`:
            // the entries of the receiver.
            "repeat" if m.args.len() == 1 => self.eval(scopes, state, &m.receiver),
            "concat" | "flatten" if m.args.is_empty() => self.eval(scopes, state, &m.receiver),
            // Pairs collected (`sizes.iter().map(|&b| (b, vec![0; b])).collect()` into a map):
            // its buffers are the second elements.
            "collect" => {
                let mut v = self.eval(scopes, state, &m.receiver);
                if let (true, Some(second)) = (v.own.is_empty(), v.fields.get("1")) {
                    v.own = second.own.clone();
                }
                v
            }
            _ if CONVERSIONS.contains(&method.as_str()) => self.eval(scopes, state, &m.receiver),
            _ => self.helper_return(scopes, state, e).unwrap_or_default(),
        }
    }

    /// A call of a function this analysis does not know: each local argument is taken to become
    /// the field of the same name (`build(&slot_mapping, n)` → `.slot_mapping`), the convention of
    /// metadata builders; nothing else is assumed.
    fn unknown_call<'e>(&self, scopes: &Scopes, state: &mut State, args: impl Iterator<Item = &'e Expr>) -> Val {
        let mut v = Val::default();
        for arg in args {
            let buffer = buffer_of(arg);
            if let Expr::Path(p) = buffer {
                if let Some(name) = p.path.get_ident() {
                    if scopes.lookup(&name.to_string()).is_some() {
                        let fv = self.eval(scopes, state, buffer);
                        v.fields.insert(name.to_string(), fv);
                    }
                }
            }
        }
        v
    }

    /// Assignments: `buf = v` replaces the entries; `buf[i] = v` adds v to them.
    fn assign(&self, scopes: &Scopes, state: &mut State, left: &Expr, right: &Expr, at: usize) {
        // `*s = v` of an entry walked mutably: v is put into the buffer (on this path).
        if let Expr::Unary(u) = dataflow::strip_parens(left) {
            if let (syn::UnOp::Deref(_), Some(id)) = (u.op, super::whole_local(scopes, &u.expr)) {
                if let Some(place) = self.entries.get(&id).cloned() {
                    let v = self.eval(scopes, state, right).put(&How::Put("store".into()));
                    // A part written before (`buf[..k]` copied) stays known for what is done to
                    // the rest (`iter_mut().skip(k)` walks past it).
                    let parts = state.map.get(&place).map(|e| (e.prefix.clone(), e.suffix.clone()));
                    self.add(scopes, state, &place, v);
                    if let (Some((prefix, suffix)), Some(entries)) = (parts, state.map.get_mut(&place)) {
                        (entries.prefix, entries.suffix) = (prefix, suffix);
                    }
                    return;
                }
            }
        }
        if let Some(place) = scopes.place_of(left) {
            let v = self.eval(scopes, state, right);
            self.store(scopes, state, &place, v, at);
            return;
        }
        if let Expr::Index(ix) = left {
            if let Some(place) = self.buffer_place(scopes, &ix.expr) {
                let v = self.eval(scopes, state, right).put(&How::Put("store".into()));
                self.add(scopes, state, &place, v);
            }
        }
    }

    /// `origins` written into a part of `place`'s entries (`buf[..bound]`, `buf[rest..]`) by
    /// `receiver` (`buf[..k].copy_from_slice(real)`, `tail.fill(PAD)`).
    fn write_part(&self, scopes: &Scopes, state: &mut State, place: &Place, (bound, rest): (Option<String>, Option<String>), origins: BTreeSet<Origin>, receiver: &Expr) {
        // The other part written before with the same bound: `buf[..k]` copied, then
        // `buf[k..]` filled, or the tail filled first and the head copied after.
        let part = |e: &Entries| if rest.is_some() { e.prefix.clone() } else { e.suffix.clone() };
        let other = rest.as_ref().or(bound.as_ref()).and_then(|k| state.map.get(place).and_then(part).filter(|(b, _)| b == k || (rest.is_some() && self.starts_before(scopes, k, b)))).map(|(_, o)| o);
        if self.fill_rest(scopes, state, place, other, origins.clone(), self.pos(receiver)) {
            return;
        }
        let before = state.map.get(place).map(|e| [e.outer.clone(), e.prefix.clone()]);
        self.add(scopes, state, place, origins.clone());
        if let Some(entries) = state.map.get_mut(place) {
            match (bound, rest) {
                (Some(bound), _) => {
                    // The last prefix of another bound written before is kept, with these
                    // entries added: however the two bounds compare, it holds no other.
                    let outer = before.into_iter().flatten().flatten().filter(|(k, _)| *k != bound).last();
                    entries.outer = outer.map(|(k, held)| (k, held.into_iter().chain(origins.iter().cloned()).collect()));
                    entries.prefix = Some((bound, origins));
                }
                (_, Some(start)) => entries.suffix = Some((start, origins)),
                _ => {}
            }
        }
    }

    /// `for row in rows.iter_mut() { row.resize(m, 0); }`: a row walked mutably grows with what
    /// is put into it, and so do the entries of `rows` (what `rows.concat()` or `flatten()`
    /// gives a kernel).
    fn row_grown(&self, scopes: &Scopes, state: &mut State, m: &syn::ExprMethodCall) {
        if !LENGTH_CHANGING.contains(&m.method.to_string().as_str()) {
            return;
        }
        let Some(rows) = super::whole_local(scopes, &m.receiver).and_then(|id| self.entries.get(&id).map(|rows| (id, rows.clone()))) else { return };
        let (row, rows) = rows;
        let Some(grown) = state.map.get(&Place { base: Base::Local(row), fields: Vec::new() }).map(|e| e.origins.clone()) else { return };
        // Held by `rows` now: the finding names what is passed.
        let grown = grown.into_iter().map(|mut o| {
            o.holder = None;
            o
        });
        self.add(scopes, state, &rows, grown.collect());
    }

    /// `value` stored into each entry `walked` gives of `buffer` (at `place`), by a `for` loop or
    /// a `for_each`: `whole` when every entry is walked.
    #[allow(clippy::too_many_arguments)]
    fn walked_stored(&self, scopes: &Scopes, state: &mut State, place: Place, whole: bool, value: &Expr, walked: &Expr, buffer: &Expr) {
        let v = Val { own: self.eval(scopes, state, value).put(&How::Put("fill".into())), fields: BTreeMap::new() };
        // A part of `buf.split_at_mut(k)` walked whole: that part of `buf`.
        let split = match &place {
            Place { base: Base::Local(id), fields } if fields.is_empty() && whole => self.split_parts.get(id).cloned(),
            _ => None,
        };
        if let Some((split_from, part)) = split {
            self.put_into(scopes, state, &Written { place: split_from, split: Some(part), whole: false }, buffer, v.own);
        } else if whole {
            // Through a `zip`, as far as the other side goes.
            self.overwrite_zipped(scopes, state, &place, v, self.pos(value), zipped_len(walked));
        } else if !self.rest_walked(scopes, state, &place, walked, v.own.clone(), self.pos(value)) {
            self.add(scopes, state, &place, v.own);
        }
    }

    /// `origins` put into every entry of `receiver`, a buffer or a part of one (`buf[..k]`,
    /// `buf[k..]`, a part of `split_at_mut`): `fill`, `copy_from_slice`, a helper that
    /// overwrites the entries of its parameter (`fill_pad(tail)`).
    fn put_into(&self, scopes: &Scopes, state: &mut State, w: &Written, receiver: &Expr, origins: BTreeSet<Origin>) {
        let (bound, rest) = match (&w.split, strip(receiver)) {
            (Some(SplitPart::Head(k)), _) => (Some(k.clone()), None),
            (Some(SplitPart::Tail(k)), _) => (None, Some(k.clone())),
            (None, Expr::Index(ix)) => (prefix_bound(&ix.index), suffix_start(&ix.index)),
            _ => (None, None),
        };
        // `buf[..n]` of a buffer built with `n` entries is all of it.
        let built = state.map.get(&w.place).map(|e| e.len.clone());
        let between = match (&w.split, strip(receiver)) {
            (None, Expr::Index(ix)) => range_bounds(&ix.index),
            _ => None,
        };
        // `buf[k..n]` of a buffer built with `n` entries is its tail, as `buf[k..]` is.
        let rest = rest.or_else(|| between.as_ref().filter(|(_, end)| matches!(&built, Some(Len::Built(len)) if self.walks_all(scopes, &w.place, len, end))).map(|(k, _)| k.clone()));
        // `buf[k..m]` after `buf[..k]` was written: `buf[..m]` holds the two (a batch's
        // rows copied in, then the padding up to the captured size: `buf[..m]` is what
        // the kernel is given).
        if let (None, None, Some((k, end))) = (&bound, &rest, &between) {
            if let Some((_, written)) = state.map.get(&w.place).and_then(|e| e.prefix.clone()).filter(|(b, _)| self.same_len(scopes, b, k)) {
                self.add(scopes, state, &w.place, origins.clone());
                if let Some(entries) = state.map.get_mut(&w.place) {
                    entries.prefix = Some((end.clone(), written.into_iter().chain(origins).collect()));
                }
                return;
            }
        }
        let all = w.whole || matches!((&bound, built), (Some(b), Some(Len::Built(len))) if self.walks_all(scopes, &w.place, &len, b));
        if all {
            let at = self.ctx.expr_range(receiver).start;
            let len = state.map.get(&w.place).map(|e| e.len.clone()).unwrap_or_default();
            self.store(scopes, state, &w.place, Val { own: origins, fields: BTreeMap::new() }, at);
            if let Some(entries) = state.map.get_mut(&w.place) {
                entries.len = len;
            }
        } else {
            self.write_part(scopes, state, &w.place, (bound, rest), origins, receiver);
        }
    }

    /// The buffer a method or a helper writes through `receiver` (`buf`, `buf[..k]`, `head` of
    /// `buf.split_at_mut(k)`), and whether all of it.
    fn written(&self, scopes: &Scopes, receiver: &Expr) -> Option<Written> {
        let place = scopes.place_of(receiver).or_else(|| self.buffer_place(scopes, receiver))?;
        // A part (`buf[..k].fill(v)`, or `head` of `buf.split_at_mut(k)`): only that part.
        let split = match &place {
            Place { base: Base::Local(id), fields } if fields.is_empty() => self.split_parts.get(id).cloned(),
            _ => None,
        };
        let whole = split.is_none() && (scopes.place_of(receiver).is_some() || !sliced(receiver));
        Some(match split {
            Some((buffer, part)) => Written { place: buffer, split: Some(part), whole },
            None => Written { place, split: None, whole },
        })
    }

    /// Methods that change a buffer's entries.
    fn mutation(&self, scopes: &Scopes, state: &mut State, m: &syn::ExprMethodCall) {
        let method = m.method.to_string();
        // `buf.iter_mut().for_each(|s| *s = v)`: every entry is v.
        if method == "for_each" {
            if let (Some((buffer, whole)), Some(Expr::Closure(c))) = (entries_walked(&m.receiver), m.args.first().map(strip)) {
                let body = match &*c.body {
                    Expr::Block(b) => deref_store(&b.block.stmts),
                    Expr::Assign(a) if matches!(&*a.left, Expr::Unary(_)) => Some(&*a.right),
                    _ => None,
                };
                if let (Some(place), Some(value)) = (self.buffer_place(scopes, buffer), body) {
                    self.walked_stored(scopes, state, place, whole, value, &m.receiver, buffer);
                }
            }
            return;
        }
        let Some(Written { place, split, whole }) = self.written(scopes, &m.receiver) else { return };
        // `resize(n, v)` of a buffer of a known length `k` keeps its entries as the first `k`: a
        // `truncate(k)` later leaves only them.
        let kept_prefix = match state.map.get(&place) {
            Some(Entries { len: Len::Built(k), origins, .. }) if method == "resize" && whole => Some((k.clone(), origins.clone())),
            _ => None,
        };
        if LENGTH_CHANGING.contains(&method.as_str()) {
            if let Some(entries) = state.map.get_mut(&place) {
                entries.len = Len::Changed;
            }
        }
        let how = How::Put(method.clone());
        match method.as_str() {
            "fill" | "fill_with" | "copy_from_slice" | "clone_from_slice" => {
                let Some(arg) = m.args.first() else { return };
                let v = if method == "fill_with" { self.produced(scopes, state, arg) } else { self.eval(scopes, state, arg) };
                let origins = if method.starts_with("fill") { v.put(&how) } else { v.own };
                self.put_into(scopes, state, &Written { place, split, whole }, &m.receiver, origins);
            }
            // `buf.clone_from(src)` is `buf = src.clone()` (clippy's `assigning_clones` writes
            // the one as the other): the whole buffer is replaced.
            "clone_from" if whole => {
                let Some(arg) = m.args.first() else { return };
                let v = self.eval(scopes, state, arg);
                let at = self.ctx.expr_range(&m.receiver).start;
                self.store(scopes, state, &place, v, at);
            }
            "push" | "insert" | "push_back" | "push_front" => {
                if let Some(v) = m.args.last() {
                    let v = self.entry_value(scopes, state, v).put(&how);
                    self.add(scopes, state, &place, v);
                }
            }
            "resize" => {
                if let Some(v) = m.args.get(1) {
                    let v = self.entry_value(scopes, state, v).put(&how);
                    self.add(scopes, state, &place, v);
                    if let (Some(prefix), Some(entries)) = (kept_prefix, state.map.get_mut(&place)) {
                        entries.prefix = Some(prefix);
                    }
                }
            }
            // `resize_with(n, || 0)`, `resize_with(n, Default::default)`: what the producer returns.
            "resize_with" => {
                if let Some(producer) = m.args.get(1) {
                    let v = self.produced(scopes, state, producer).put(&how);
                    self.add(scopes, state, &place, v);
                }
            }
            // `splice(at.., iter)`: what the iterator yields is put in.
            "splice" => {
                if let Some(v) = m.args.get(1) {
                    let v = self.eval(scopes, state, v).put(&how);
                    self.add(scopes, state, &place, v);
                }
            }
            "extend" | "extend_from_slice" | "append" => {
                if let Some(v) = m.args.first() {
                    // What the iterator or slice yields is put in by this call.
                    let v = self.eval(scopes, state, v).put(&how).into_iter().map(|mut o| {
                        if o.how == How::Filled {
                            o.how = how.clone();
                            o.holder = None;
                        }
                        o
                    });
                    self.add(scopes, state, &place, v.collect());
                }
            }
            // `retain(|&b| b != NULL_BLOCK)`: the constant entries the predicate refuses are gone.
            "retain" if whole => {
                let Some(Expr::Closure(c)) = m.args.first().map(strip) else { return };
                let Some(name) = c.inputs.first().and_then(closure_param_name) else { return };
                if let Some(entries) = state.map.get_mut(&place) {
                    entries.origins.retain(|o| !matches!(o.entry, Entry::Const(v) if keeps(self.ctx, &c.body, &name, v) == Some(false)));
                }
            }
            // `clear()`, `truncate(0)`: no entry is left.
            "clear" | "truncate" if whole && (method == "clear" || m.args.first().and_then(crate::index::int_value) == Some(0)) => {
                let at = self.pos(&m.receiver);
                self.store(scopes, state, &place, Val::default(), at);
            }
            // `truncate(k)` after `buf[..k].copy_from_slice(real)`: only what was copied is left.
            "truncate" if whole => {
                let k = m.args.first().map(crate::rules::expr_text);
                if let Some((_, copied)) = state.map.get(&place).and_then(|e| e.prefix.clone()).filter(|(b, _)| k.as_ref().is_some_and(|k| self.same_len(scopes, b, k))) {
                    self.store(scopes, state, &place, Val { own: copied, fields: BTreeMap::new() }, self.pos(&m.receiver));
                }
            }
            _ => {}
        }
    }

    /// At a call of a kernel with `writes(P[IDX], skip = S)`: what the IDX argument's entries may
    /// hold (in a summary: which parameter of the helper it hands on).
    fn check_kernel(&mut self, scopes: &Scopes, state: &mut State, call: &Expr) {
        let ctx = self.ctx;
        let Some((site, callee)) = ctx.callee(call) else { return };
        for (position, clause) in callee.contract.clauses.iter().enumerate() {
            let Some(w) = self.write_index(callee, clause, None) else { continue };
            let ClauseKind::Writes { target, .. } = &clause.kind else { continue };
            // The index is a parameter, a field path of one (`meta.slot_mapping`), or of the
            // receiver (`self.vars.slots`).
            let fields: Vec<String> = target.index.segments[1..].iter().map(|s| s.text.clone()).collect();
            let arg = match target.index.root {
                PlaceRoot::Param => site.arg_named(callee, target.index.root_name()),
                PlaceRoot::SelfField => site.self_arg(callee),
                PlaceRoot::Static => None,
            };
            let Some(arg) = arg else { continue };
            let at = ctx.expr_range(call);
            self.check_index(scopes, state, arg, &fields, &w, (&callee.path, position, at));
        }
    }

    /// `&buf[..k]` where the first `k` entries of `buf` were copied in (`buf[..k].copy_from_slice(real)`):
    /// only what was copied, not the padding past it (a batch-sized buffer whose real rows alone
    /// are passed).
    fn copied_prefix(&self, scopes: &Scopes, state: &State, arg: &Expr) -> Option<Val> {
        let Expr::Index(ix) = strip(arg) else { return None };
        let bound = prefix_bound(&ix.index)?;
        let place = self.borrowed(&scopes.place_of(&ix.expr)?);
        let entries = state.map.get(&place)?;
        let (_, copied) = [&entries.prefix, &entries.outer].into_iter().flatten().find(|(walked, _)| self.same_len(scopes, &bound, walked))?;
        Some(Val::from(copied.clone()))
    }

    /// Whether a call may reach a kernel that skips a sentinel through helpers, from names alone:
    /// a helper of this file whose body calls a kernel or such a helper (a few deep), or a
    /// function of another file found to hand an index on in an earlier round.
    fn may_forward(&self, call: &Expr) -> bool {
        let Some(site) = crate::resolve::CallSite::of(call) else { return false };
        let name = &site.name;
        let kernels = kernel_names(self.ctx);
        if kernels.is_empty() {
            return false;
        }
        let known = |n: &str| self.ctx.items.summaries.known_forwarders.read().is_ok_and(|known| known.contains(n));
        if super::may_call_forwarder(self.ctx, &site, &known) {
            return true;
        }
        self.ctx.fns.by_name.get(name).is_some_and(|defs| defs.iter().any(|&i| self.helper_may_forward(i, kernels, 0)))
    }

    fn helper_may_forward(&self, idx: usize, kernels: &HashSet<String>, depth: usize) -> bool {
        let known = |n: &str| self.ctx.items.summaries.known_forwarders.read().is_ok_and(|k| k.contains(n));
        // A kernel's name that resolves to it (`v.push(x)` is no contracted `push` on a
        // receiver of unknown type), or a forwarder's.
        let kernel = |c: &Expr, name: &str| known(name) || (kernels.contains(name) && self.ctx.callee(c).is_some_and(|(_, f)| checks_index_entries(f)));
        super::helper_reaches(self.ctx, idx, &self.ctx.summaries.pad.forwarding, &kernel, depth)
    }

    /// The fields of an object of type `ty` that a contracted method of the type writes at
    /// (`writes(self.kv[self.slot_mapping], ..)`): persistent buffers, like those of `self`.
    fn persistent_indexes(&self, ty: &str) -> Vec<Vec<String>> {
        if !self.ctx.resolver.fields.defines(ty) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for f in self.ctx.index.fns.iter().filter(|f| f.self_type.as_deref() == Some(ty)) {
            for fields in receiver_indexes(f) {
                if !out.contains(&fields) {
                    out.push(fields);
                }
            }
        }
        out
    }

    /// An object of a type of this file bound to `local` (a parameter, `let g =
    /// graph_runners.get_mut(&bs).unwrap();`) whose kernel writes at its own fields: those fields
    /// hold what the type's constructors and methods leave in them until this function writes
    /// them, as for `self` (vLLM's graph runner, looked up by batch size and replayed).
    fn bind_object(&self, state: &mut State, local: LocalId, ty: impl FnOnce() -> Option<String>) {
        // Typing the value is asked only where some kernel writes at its receiver's fields: most
        // checks have none, and a `let` is the most frequent statement there is.
        if self.def.is_some() || !self.ctx.index.fns.iter().any(|f| !receiver_indexes(f).is_empty()) {
            return;
        }
        let Some(ty) = ty() else { return };
        let indexes = self.persistent_indexes(&ty);
        if indexes.is_empty() {
            return;
        }
        let Some(summary) = self.field_summary(&ty) else { return };
        for fields in indexes {
            let place = Place { base: Base::Local(local), fields: fields.clone() };
            insert_absent(state, &place, (*summary).clone().project(&fields));
        }
    }

    /// What a `writes(P[IDX], skip = S)` clause of `callee` says of its index, or a `writes(P[IDX])`
    /// of a buffer IDX where P has a forbidden region (`None`: another clause, or neither).
    fn write_index<'w>(&self, callee: &'w ContractedFn, clause: &'w Clause<Range<usize>>, via: Option<Via>) -> Option<WriteIndex<'w>> {
        let ClauseKind::Writes { target, skip } = &clause.kind else { return None };
        let ctx = self.ctx;
        let param = target.index.to_string();
        let Some(skip) = skip else {
            // Every entry is written: only the forbidden positions are wrong.
            let null = ctx.forbidden_positions(callee, &target.place);
            let forbidden = callee.contract.forbidden_regions().find(|(_, r)| r.place.to_string() == target.place.to_string());
            return match (guards_index_buffer(callee, target) && !null.is_empty(), forbidden) {
                (true, Some((forbidding, region))) => {
                    let region = format!("{}[{}]", region.place, region.index);
                    Some(WriteIndex { callee, clause, sentinel_text: String::new(), sentinel_here: String::new(), sentinel: None, null, param, via, forbidden: Some((forbidding, region)) })
                }
                _ => None,
            };
        };
        let sentinel = ctx.sentinel_value(skip, callee);
        let null = ctx.null_positions(callee, &target.place);
        let sentinel_here = sentinel_in_caller(ctx, callee, skip, sentinel);
        Some(WriteIndex { callee, clause, sentinel_text: skip.to_string(), sentinel_here, sentinel, null, param, via, forbidden: None })
    }

    /// The arguments of a call of a helper by the positions of its summary's parameters: the
    /// receiver last, at [`Summary::receiver_at`] (first among the arguments of `Type::f(x, ..)`).
    fn summary_args<'e>(call: &'e Expr, summary: &Summary) -> Vec<&'e Expr> {
        super::args_with_receiver(call, summary.receiver_at)
    }

    /// At a call of a helper that hands an argument on to a kernel ([`Forwarded`]): the
    /// argument is checked as the kernel's index (in a summary: handed on again).
    fn check_forwarded(&mut self, scopes: &Scopes, state: &mut State, call: &Expr) {
        if matches!(call, Expr::Call(c) if c.args.is_empty()) {
            return;
        }
        let Some((helper, summary)) = self.helper(call) else { return };
        let args = Self::summary_args(call, &summary);
        for f in &summary.forwards {
            let Some(arg) = args.get(f.param) else { continue };
            let Some(writer) = f.writer.last().and_then(|name| self.ctx.index.candidates(name).find(|c| c.path == f.writer)) else { continue };
            let Some(clause) = writer.contract.clauses.get(f.clause) else { continue };
            let file = f.file.as_ref().map_or(self.ctx.file, |file| &file.0);
            let via = Via {
                helper: helper.clone(),
                handed: f.shown.clone(),
                at: Label::new(file, f.at.clone(), format!("`{helper}` hands `{}` to `{}` here", f.shown, writer.name)),
            };
            let Some(w) = self.write_index(writer, clause, Some(via)) else { continue };
            let at = self.ctx.expr_range(call);
            self.check_index(scopes, state, arg, &f.fields, &w, (&f.writer, f.clause, at));
        }
    }

    /// The entries of `arg` (at the field path `fields`) passed as the index `w` describes: in
    /// the function checked, each one of the null block is a finding; in a summary, each that is
    /// a parameter's makes the helper a [`Forwarded`] of the writer (`writer`, its clause, where).
    fn check_index(&mut self, scopes: &Scopes, state: &mut State, arg: &Expr, fields: &[String], w: &WriteIndex, writer: (&Vec<String>, usize, Range<usize>)) {
        let whole = match self.copied_prefix(scopes, state, arg) {
            Some(prefix) => prefix,
            None => self.eval(scopes, state, buffer_of(arg)),
        };
        // A newtype over the buffer (`struct SlotBuf(Vec<i64>)`) passed where the index is
        // expected (`&b`, `&*b`) reaches it by deref coercion, and a tensor type wrapping its
        // data (`IntT { data: vec![0; n] }` passed whole as the index): its one field is the
        // buffer.
        let whole = match (whole.own.is_empty(), whole.fields.keys().cloned().collect::<Vec<_>>().as_slice()) {
            (true, [one]) if fields.is_empty() => whole.project(std::slice::from_ref(one)),
            _ => whole,
        };
        if let Some(def) = self.def {
            // A parameter's entries, at the field path the writer reads.
            let mut names = dataflow::param_names(def.sig);
            if def.has_receiver() {
                names.push("self".into());
            }
            let projected = whole.clone().project(fields);
            let mut handed: Vec<(usize, Vec<String>)> = projected.own.iter().filter_map(param_of).collect();
            handed.extend(whole.own.iter().filter_map(param_of).map(|(i, at)| (i, at.into_iter().chain(fields.iter().cloned()).collect())));
            // A parameter the helper added to (`s.resize(n, PAD)`) still holds the caller's entries.
            let params = names.len();
            if let Some(Place { base: Base::Local(id), fields: at }) = scopes.place_of(buffer_of(arg)).map(|p| self.borrowed(&p)) {
                let kept = projected.own.iter().any(|o| o.entry == Entry::Kept);
                if kept && (id as usize) < params {
                    handed.push((id as usize, at.into_iter().chain(fields.iter().cloned()).collect()));
                }
            }
            for (param, at) in handed {
                let shown = std::iter::once(names.get(param).cloned().unwrap_or_default()).chain(at.iter().cloned()).collect::<Vec<_>>().join(".");
                let f = Forwarded { param, fields: at, shown, writer: writer.0.clone(), clause: writer.1, at: writer.2.clone(), file: None };
                if !self.summary.forwards.contains(&f) {
                    self.summary.forwards.push(f);
                }
            }
            return;
        }
        let val = whole.project(fields);
        let shown = scopes.place_of(collection_of(buffer_of(arg))).map(|p| scopes.display(&p.fields_then(fields)));
        // An index field that a helper padded (`pad(&mut meta, n)`) is the helper's finding.
        let index_field = match (scopes.place_of(buffer_of(arg)), fields) {
            (Some(p), [.., last]) if p.fields.is_empty() => self.base_type(scopes, &p.base).is_some_and(|ty| self.ctx.index_field(&ty, last).is_some()),
            _ => false,
        };
        for o in &val.own {
            // Where every entry is written, a fallback to the region is `fallback_index`'s.
            let fallback = w.forbidden.is_some() && matches!(o.how, How::Fallback(_));
            if !o.in_buffer || !w.is_null(&o.entry) || (index_field && o.function.is_some()) || fallback {
                continue;
            }
            let finding = self.finding(scopes, state, o, arg, shown.as_deref(), w);
            let key = (finding.primary.range.start, finding.primary.range.end, finding.message.clone());
            if let Mode::Check { findings, seen } = &mut self.mode {
                if !seen.contains(&(key.0, key.1, INDEX_FIELD.into())) && seen.insert(key) {
                    findings.push(finding);
                }
            }
        }
    }

    fn finding(&self, scopes: &Scopes, state: &State, o: &Origin, arg: &Expr, shown: Option<&str>, w: &WriteIndex) -> Finding {
        let ctx = self.ctx;
        if let Some((forbidding, region)) = &w.forbidden {
            return self.forbidden_entry(o, arg, shown, w, forbidding, region);
        }
        let contract_label = clause_label(w.callee, w.clause, format!("`{}` skips only entries equal to {}", w.callee.name, w.sentinel_text));
        // A field of `self`, or of another object whose kernel reads its own field.
        let receiver_field = matches!(&w.clause.kind, ClauseKind::Writes { target, .. } if target.index.root == PlaceRoot::SelfField);
        // (Through a re-borrow of `self` too: `let this = &mut *self;` .. `&this.slots`.)
        let persistent = receiver_field || scopes.place_of(collection_of(buffer_of(arg))).is_some_and(|p| p.base == Base::SelfValue || (!p.fields.is_empty() && self.borrowed(&p).base == Base::SelfValue));
        if let (Some(function), true) = (&o.function, persistent) {
            // A persistent field: what another function of the type left in it.
            let field = shown.unwrap_or("the buffer").to_string();
            let through = w.via.as_ref().map_or(String::new(), |via| format!(" through `{}`", via.helper));
            let mut f = Finding::new(
                &PAD_TO_NULL_BLOCK,
                format!(
                    "the persistent buffer `{field}` is passed{through} as `{}` of `{}` without a reset to {}; `{function}` may leave {} in it",
                    w.param, w.callee.name, w.sentinel_text, o.text
                ),
                ctx.label(arg, format!("may still hold the {} that `{function}` puts into it", o.text)),
            )
            .with_secondary(Label::new(o.file.as_ref().map_or(ctx.file, |f| &f.0), o.range(), format!("`{function}` puts {} here", o.text)));
            if let Some(via) = &w.via {
                f = f.with_secondary(via.at.clone());
            }
            return f.with_secondary(contract_label).with_help(format!("reset it first: `{field}.fill({});`", w.sentinel_text));
        }
        let (buffer, label) = origin_label(o, shown, || self.text(buffer_of(arg)));
        let (primary, elsewhere) = self.origin_labels(o, &buffer, label);
        // The buffer passed, named where the entries came from another one (`let tail = vec![0;
        // pad]; let slots = [real, tail].concat();`: `slots` is passed, holding `tail`'s); a
        // view of the holder (`rows.concat()`) is the holder.
        let passed = shown.map(str::to_string).unwrap_or_else(|| self.text(buffer_of(arg)));
        let subject = match &o.holder {
            Some(holder) if **holder != *passed && !holder.starts_with(&format!("{passed}.")) && !passed.contains('(') && !matches!(o.how, How::Helper(_)) => format!("`{passed}`, which holds the entries of `{holder}`,"),
            _ => format!("`{buffer}`"),
        };
        let message = match &w.via {
            Some(via) => format!(
                "{subject} reaches `{}` as `{}` through `{}` (its `{}`), whose padding must be {}; {} maps a row into the null block",
                w.callee.name, w.param, via.helper, via.handed, w.sentinel_text, o.text
            ),
            None => format!(
                "{subject} is passed as `{}` of `{}`, whose padding must be {}; {} maps a row into the null block",
                w.param, w.callee.name, w.sentinel_text, o.text
            ),
        };
        let mut f = Finding::new(&PAD_TO_NULL_BLOCK, message, primary);
        if let Some(via) = &w.via {
            f = f.with_secondary(via.at.clone());
        }
        if let Some(l) = elsewhere {
            f = f.with_secondary(l);
        }
        let mut f = f
        .with_secondary(contract_label)
        .with_help(format!("pad with {} so the kernel skips these rows", w.sentinel_text));
        // Copied out of a local that was reset only afterwards.
        if let Some((place, used)) = &o.via {
            if let Some(reset) = state.map.get(place).filter(|e| !e.origins.contains(o)).and_then(|e| e.reset).filter(|r| r > used) {
                let name = scopes.display(place);
                f = f
                    .with_secondary(Label::new(ctx.file, reset..reset + name.len(), format!("the reset to {} comes only here", w.sentinel_text)))
                    .with_secondary(Label::new(ctx.file, *used..used + name.len(), "after the buffer was already used here"))
                    .with_note(format!("a reset placed after `{name}` was used leaves whatever was built from it with the zeros"));
            }
        }
        // The value is written in another file: the fix there is not this call's to make. A
        // generic helper's `T::default()` has no sentinel of its type to write instead.
        let generic_default = o.text.ends_with("::default()") && !["Default::", "i64::", "i32::", "u32::", "u64::", "usize::", "isize::"].iter().any(|t| o.text.starts_with(t));
        // Nor has a library call that pads with zeros (`pad_with_zeros`): the rows are the caller's to build.
        let library_padding = matches!(&o.how, How::Put(m) if m == "pad_with_zeros");
        if o.site.is_some() || generic_default || library_padding || matches!(o.how, How::Derived(_)) {
            return f;
        }
        let fix = match &o.how {
            How::Fallback(m) if m == "unwrap_or_default" => Fix { message: format!("use `unwrap_or({})`", w.sentinel_here), range: o.range(), replacement: format!("unwrap_or({})", w.sentinel_here) },
            How::Producer => Fix { message: format!("produce {} instead", w.sentinel_here), range: o.range(), replacement: format!("|| {}", w.sentinel_here) },
            _ => Fix { message: format!("replace with {}", w.sentinel_here), range: o.range(), replacement: w.sentinel_here.clone() },
        };
        f.with_fix(fix)
    }

    /// An entry of a buffer of positions (`copy_blocks(cache, &src, &[NULL_BLOCK])`) that the
    /// callee writes, in a region its contract forbids writing.
    fn forbidden_entry(&self, o: &Origin, arg: &Expr, shown: Option<&str>, w: &WriteIndex, forbidding: &Clause<Range<usize>>, region: &str) -> Finding {
        let (buffer, label) = origin_label(o, shown, || self.text(buffer_of(arg)));
        let (primary, elsewhere) = self.origin_labels(o, &buffer, label);
        let place = match &w.clause.kind {
            ClauseKind::Writes { target, .. } => target.place.to_string(),
            _ => String::new(),
        };
        let reaches = match &w.via {
            Some(via) => format!("reaches `{}` as `{}` through `{}` (its `{}`)", w.callee.name, w.param, via.helper, via.handed),
            None => format!("is passed as `{}` of `{}`", w.param, w.callee.name),
        };
        let mut f = Finding::new(
            &FORBIDDEN_WRITE,
            format!("`{buffer}` {reaches}, which writes `{place}` at each of its entries; {} is in `{region}`, storage its contract forbids writing", o.text),
            primary,
        );
        if let Some(via) = &w.via {
            f = f.with_secondary(via.at.clone());
        }
        if let Some(l) = elsewhere {
            f = f.with_secondary(l);
        }
        f.with_secondary(clause_label(w.callee, forbidding, "declared never written here"))
            .with_help(format!("put only positions outside `{region}` in `{buffer}` (allocated blocks), or leave the entry out"))
    }

    /// The primary label of a finding about `o`, with `label` as its text, and for an origin in
    /// a helper of another file the label at the origin there: the finding points at the call of
    /// the helper in this file (a suppression there is the caller's), and shows where the helper
    /// puts the value.
    fn origin_labels(&self, o: &Origin, buffer: &str, label: String) -> (Label, Option<Label>) {
        let ctx = self.ctx;
        if let (How::Static(name), Some((a, b))) = (&o.how, o.site) {
            let file = o.file.as_ref().map_or(ctx.file, |f| &f.0);
            return (Label::new(ctx.file, a..b, label), Some(Label::new(file, o.range(), format!("`{name}` is built with {} here", o.text))));
        }
        let Some(file) = o.file.as_ref().filter(|f| f.0.path != ctx.file.path) else { return (Label::new(ctx.file, o.range(), label), None) };
        let Some((a, b)) = o.site else { return (Label::new(&file.0, o.range(), label), None) };
        let helper = match &o.how {
            How::Helper(h) => h.clone(),
            _ => o.function.clone().unwrap_or_default(),
        };
        let label = match &o.how {
            How::Helper(_) => label,
            _ => format!("`{helper}` puts {} into `{buffer}`", o.text),
        };
        let there = Label::new(&file.0, o.range(), format!("`{helper}` puts {} here", o.text));
        (Label::new(ctx.file, a..b, label), Some(there))
    }

    /// The struct a place's base has: `self` in an impl, a parameter by its declared type, a local
    /// built by a struct literal. Only these are known (never guessed).
    fn base_type(&self, scopes: &Scopes, base: &Base) -> Option<TypeRef> {
        match base {
            Base::SelfValue => self.ctx.self_type.map(TypeRef::here),
            Base::Local(id) => {
                if let Some(ty) = self.local_types.get(id) {
                    return Some(ty.clone());
                }
                let params: Vec<&syn::PatType> = self.ctx.sig.inputs.iter().filter_map(|a| if let syn::FnArg::Typed(t) = a { Some(t) } else { None }).collect();
                let param = params.get(*id as usize)?;
                let named = matches!(&*param.pat, syn::Pat::Ident(p) if p.ident == scopes.name(*id));
                let generics = crate::resolve::generic_names(self.ctx.sig, self.ctx.outer_generics);
                named.then(|| self.ctx.resolver.type_ref(&param.ty, self.ctx.self_type, &generics)).flatten()
            }
        }
    }

    /// The index fields of a place whose struct is known, with the origins put into them in this
    /// function (what other functions put there is theirs to answer for).
    fn index_fields_of(&self, scopes: &Scopes, state: &mut State, place: &Place) -> Vec<(&'a crate::index::IndexField, Place, Val)> {
        let Some(ty) = self.base_type(scopes, &place.base).filter(|_| place.fields.is_empty()) else { return Vec::new() };
        let mut out = Vec::new();
        self.index_fields_in(state, place, &ty, 0, &mut out);
        out
    }

    /// The index fields of a value of type `ty` at `place`, and of the structs of this file in
    /// its fields (`batch.meta.slot_mapping`), a few levels down.
    fn index_fields_in(&self, state: &State, place: &Place, ty: &TypeRef, depth: usize, out: &mut Vec<(&'a crate::index::IndexField, Place, Val)>) {
        for decl in self.ctx.index_fields_of_type(ty) {
            let field = place.field(&decl.field);
            let mut v = self.read_concrete(state, &field);
            v.own.retain(|o| o.function.is_none());
            out.push((decl, field, v));
        }
        if depth >= 3 {
            return;
        }
        let fields = self.ctx.resolver.fields;
        for f in fields.fields_of(&ty.name).unwrap_or_default() {
            if let Some(inner) = fields.field_type(&ty.name, f).filter(|inner| *inner != ty.name) {
                self.index_fields_in(state, &place.field(f), &TypeRef::here(inner), depth + 1, out);
            }
        }
    }

    /// At a normal exit: what the parameters, `self` and the returned local hold in their index
    /// fields.
    fn check_index_fields_at_exit(&mut self, scopes: &Scopes, state: &mut State, value: Option<&Expr>) {
        if self.ctx.index.index_fields.is_empty() {
            return;
        }
        let mut places: Vec<Place> = (0..dataflow::param_count(self.ctx.sig)).map(|i| Place { base: Base::Local(i as LocalId), fields: Vec::new() }).collect();
        places.push(Place { base: Base::SelfValue, fields: Vec::new() });
        places.extend(self.rebound.keys().map(|&id| Place { base: Base::Local(id), fields: Vec::new() }));
        places.extend(value.and_then(|v| scopes.place_of(strip(v))).filter(|p| p.fields.is_empty()));
        // The items of a collection walked mutably (`for m in &mut self.metas`): elements of
        // the caller's value.
        let mut walked: Vec<LocalId> = self.entries.keys().copied().collect();
        walked.sort_unstable();
        places.extend(walked.into_iter().map(|id| Place { base: Base::Local(id), fields: Vec::new() }));
        for place in places {
            for (decl, field, v) in self.index_fields_of(scopes, state, &place) {
                self.report_index_field(decl, &v, &scopes.display(&field));
            }
        }
    }

    /// A local struct passed to a call (`runner.replay(&meta)`, `meta.submit()`): its index
    /// fields as they are there.
    fn check_passed_index_fields(&mut self, scopes: &Scopes, state: &mut State, call: &Expr) {
        if self.ctx.index.index_fields.is_empty() {
            return;
        }
        let (receiver, args) = call_args(call);
        for e in receiver.into_iter().chain(args) {
            let Some(place) = scopes.place_of(e).filter(|p| matches!(p.base, Base::Local(_))) else { continue };
            for (decl, field, v) in self.index_fields_of(scopes, state, &place) {
                self.report_index_field(decl, &v, &scopes.display(&field));
            }
        }
    }

    /// Findings for the null entries of a value stored in an index field.
    fn report_index_field(&mut self, decl: &crate::index::IndexField, v: &Val, shown: &str) {
        let ctx = self.ctx;
        let sentinel = ctx.sentinel_seen_by(&decl.decl.skip, &decl.krate);
        let skip = decl.decl.skip.to_string();
        for o in v.own.iter().filter(|o| o.in_buffer && is_null(&o.entry, sentinel, &[(0, 1)])) {
            let mut named = o.clone();
            named.holder.get_or_insert_with(|| shown.into());
            let (buffer, label) = origin_label(&named, Some(shown), || shown.to_string());
            let (primary, elsewhere) = self.origin_labels(o, &buffer, label);
            let range = primary.range.clone();
            let mut finding = Finding::new(
                &PAD_TO_NULL_BLOCK,
                format!(
                    "`{shown}` may hold {}, but `{}.{}` is an index field whose padding must be {skip}; {} maps a row into the null block",
                    o.text, decl.type_name, decl.field, o.text
                ),
                primary,
            );
            if let Some(l) = elsewhere {
                finding = finding.with_secondary(l);
            }
            let finding = finding
                .with_secondary(Label::new(&decl.file, decl.attr_range.clone(), format!("its padding must be {skip}")))
                .with_help(format!("pad with {skip} so the kernels skip these rows"));
            // One finding per origin: a kernel call may have reported this one already.
            if let Mode::Check { findings, seen } = &mut self.mode {
                if !findings.iter().any(|f| f.primary.range == range) && seen.insert((range.start, range.end, INDEX_FIELD.into())) {
                    findings.push(finding);
                }
            }
        }
    }

    /// The type a struct literal builds, by its last path segment (`Self` in an impl is the type).
    fn literal_type(&self, s: &syn::ExprStruct) -> Option<TypeRef> {
        let name = s.path.segments.last()?.ident.to_string();
        if name == "Self" {
            let own = match self.def {
                Some(d) => d.self_type.clone(),
                None => self.ctx.self_type.map(str::to_string),
            };
            return own.map(|t| TypeRef { name: t, paths: None });
        }
        // Written out (`kernels::StepInput { .. }`): the type that path names.
        let written: Vec<String> = s.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let paths = (written.len() > 1).then(|| self.ctx.resolver.type_paths(&written, self.ctx.self_type));
        Some(TypeRef { name, paths })
    }

    /// The helper a call designates (a function of this file, or of another file of the
    /// workspace, resolved by path) and its summary, with its name.
    fn helper(&self, call: &Expr) -> Option<Helper> {
        let key = call as *const Expr as usize;
        if let Some(known) = self.helpers.borrow().get(&key) {
            return known.clone();
        }
        let found = self.find_helper(call);
        self.helpers.borrow_mut().insert(key, found.clone());
        found
    }

    fn find_helper(&self, call: &Expr) -> Option<Helper> {
        if let Some((idx, def)) = self.ctx.helper_of(call, self.def, self.depth) {
            return Some((def.sig.ident.to_string(), self.summary(idx, def)?));
        }
        // Versions of one helper for different builds (`#[cfg(feature = "cuda")]` beside
        // `#[cfg(not(..))]`): each build calls one of them, so what either returns may reach
        // the call.
        let candidates = self.ctx.helper_candidates(call, self.def, self.depth);
        if candidates.len() > 1 && candidates.iter().all(|(_, d)| d.cfg_gated) {
            let joined = Summary::versions(candidates.iter().map(|&(idx, def)| self.summary(idx, def)))?;
            return Some((candidates[0].1.sig.ident.to_string(), joined));
        }
        // A method called through a trait (`&mut dyn Backend`) that more than one `impl` may
        // run: what any of them may do.
        if let Some((local, foreign)) = self.ctx.dispatched(call, self.def, self.depth).filter(|(l, f)| l.len() + f.len() > 1) {
            let name = crate::resolve::CallSite::of(call)?.name;
            let summaries = local.iter().map(|&(idx, def)| self.summary(idx, def)).chain(foreign.iter().map(|path| self.foreign_summary(path)));
            return Some((name, Summary::versions(summaries)?));
        }
        let path = self.ctx.foreign_helper(call, self.def, self.depth)?;
        Some((path.last()?.clone(), self.foreign_summary(&path)?))
    }

    /// The summary of the function defined at `path` in another file, in its own file's context.
    fn foreign_summary(&self, path: &[String]) -> Option<Arc<Summary>> {
        dataflow::shared_memoized(&self.ctx.items.summaries.pad, path, self.depth + 1, || {
            self.ctx
                .with_foreign_fn(path, |ctx, def| {
                    let mut inner = Pad::new(ctx, Mode::Summarise, Some(def), self.depth + 1);
                    dataflow::solve(&mut inner, def.sig, def.body, State::summary(dataflow::param_count(def.sig))).ok()?;
                    // Its origins are positions of its own file.
                    let mut summary = inner.summary;
                    summary.in_file(ctx.file);
                    Some(Arc::new(summary))
                })
                .flatten()
        })
    }

    fn summary(&self, idx: usize, def: &'c FnDef<'a>) -> Option<Arc<Summary>> {
        dataflow::memoized(&self.ctx.summaries.pad.helpers, (idx, self.depth + 1), || {
            let mut inner = Pad::new(self.ctx, Mode::Summarise, Some(def), self.depth + 1);
            dataflow::solve(&mut inner, def.sig, def.body, State::summary(dataflow::param_count(def.sig))).ok().map(|()| Arc::new(inner.summary))
        })
    }

    /// The buffer a helper returns, its parameters' entries substituted by the arguments'.
    fn helper_return(&self, scopes: &Scopes, state: &mut State, call: &Expr) -> Option<Val> {
        let (name, summary) = self.helper(call)?;
        let args = Self::summary_args(call, &summary);
        let mut v = self.substitute(scopes, state, &summary.returns, &args, &How::Helper(name), call);
        // A by-value setter that returns its receiver (`fn tables(mut self, t: ..) -> Self {
        // self.tables = t; self }`): the fields it did not set are the receiver's (`slots` of the
        // setter before it in `B::default().slots(s).tables(t)`).
        if let (true, Some(receiver)) = (summary.returns_self, summary.receiver_at.and_then(|at| args.get(at))) {
            for (f, fv) in self.eval(scopes, state, receiver).fields {
                v.fields.entry(f).or_insert(fv);
            }
        }
        Some(v)
    }

    /// An origin of a helper of another file, brought to a call of it here: the call is where
    /// this function's finding points.
    fn at_call(&self, o: &mut Origin, call: &Expr) {
        if o.file.as_ref().is_some_and(|f| f.0.path != self.ctx.file.path) {
            let r = self.ctx.expr_range(call);
            o.site = Some((r.start, r.end));
        }
    }

    /// A summary's value at a call: `Param` origins become what the arguments hold; the helper's
    /// own origins are tagged as coming from it.
    fn substitute(&self, scopes: &Scopes, state: &mut State, v: &Val, args: &[&Expr], how: &How, call: &Expr) -> Val {
        let mut out = Val::default();
        for o in &v.own {
            match &o.entry {
                Entry::Param(..) => out.own.extend(self.param_value(scopes, state, o, args)),
                Entry::Kept => {}
                _ => {
                    let mut o = o.clone();
                    if matches!(o.how, How::Value | How::Filled | How::Put(_)) {
                        o.how = how.clone();
                    }
                    o.holder = None;
                    o.via = None;
                    self.at_call(&mut o, call);
                    out.own.insert(o);
                }
            }
        }
        for (f, fv) in &v.fields {
            out.fields.insert(f.clone(), self.substitute(scopes, state, fv, args, how, call));
        }
        out
    }

    /// What a summary's `Param` origin `o` stands for at a call: the argument's value (at the
    /// origin's field path). A value the helper put into a buffer (`vec![pad; n]`,
    /// `x.resize(n, pad)` with `pad` a parameter) is the argument's value, put there as the
    /// helper did.
    fn param_value(&self, scopes: &Scopes, state: &mut State, o: &Origin, args: &[&Expr]) -> BTreeSet<Origin> {
        let Entry::Param(i, fields) = &o.entry else { return BTreeSet::new() };
        let Some(arg) = args.get(*i) else { return BTreeSet::new() };
        // A parameter the helper puts into a buffer is an entry there (`pad_to(&mut s, n,
        // Default::default())`: an index's default is 0).
        let arg_val = match o.in_buffer && fields.is_empty() {
            true => self.entry_value(scopes, state, buffer_of(arg)),
            false => self.eval(scopes, state, buffer_of(arg)).project(fields),
        };
        arg_val
            .own
            .into_iter()
            .map(|mut a| {
                if o.in_buffer && !a.in_buffer {
                    a.in_buffer = true;
                    if a.how == How::Value {
                        a.how = o.how.clone();
                    }
                }
                a
            })
            .collect()
    }

    /// What a helper leaves in the buffers passed to it (`pad(&mut meta, n)`) and in `self`.
    fn apply_helper_effects(&self, scopes: &Scopes, state: &mut State, call: &Expr) {
        let Some((function, summary)) = self.helper(call) else { return };
        let (receiver, _) = call_args(call);
        let args = Self::summary_args(call, &summary);
        let mut targets: Vec<(Place, Option<&Expr>, &Val)> = Vec::new();
        for (i, v) in &summary.params {
            if let Some((place, arg)) = args.get(*i).and_then(|a| Some((self.buffer_place(scopes, a)?, *a))) {
                targets.push((place, Some(arg), v));
            }
        }
        if let Some(place) = receiver.and_then(|r| self.receiver_place(scopes, r)) {
            targets.push((place, None, &summary.self_value));
        }
        for (place, arg, v) in targets {
            self.add_val(scopes, state, &place, arg, v, &function, call, &args);
        }
    }

    /// The place a method's receiver is: a place, or the receiver of a helper method that
    /// returns its receiver (`b.push_seq(real).pad_to(bs)`: `b`, a builder's chain of `&mut
    /// Self` methods).
    fn receiver_place(&self, scopes: &Scopes, receiver: &Expr) -> Option<Place> {
        if let Some(place) = scopes.place_of(receiver) {
            return Some(place);
        }
        let Expr::MethodCall(m) = dataflow::strip_parens(receiver) else { return None };
        let (_, summary) = self.helper(receiver)?;
        let at = summary.receiver_at?;
        let returns_receiver = !summary.returns.own.is_empty() && summary.returns.own.iter().all(|o| matches!(&o.entry, Entry::Param(i, fields) if *i == at && fields.is_empty()));
        if returns_receiver {
            self.receiver_place(scopes, &m.receiver)
        } else {
            None
        }
    }

    #[allow(clippy::too_many_arguments)]
    /// What a helper left in `place` (`v`, of its summary), which the caller passed it as `arg`.
    #[allow(clippy::too_many_arguments)]
    fn add_val(&self, scopes: &Scopes, state: &mut State, place: &Place, arg: Option<&Expr>, v: &Val, function: &str, call: &Expr, args: &[&Expr]) {
        // Through a local that borrows a field (`let inputs = &mut self.inputs; inputs.load(..)`),
        // the field.
        let place = &self.borrowed(place);
        let own: BTreeSet<Origin> = v.own.iter().filter(|o| !o.entry.is_symbolic()).cloned().collect();
        // What the caller passed and the helper put there (`pad_into(&mut s, n, 0)`): the
        // caller's value, where the caller wrote it.
        // (`dst.copy_from_slice(src)`: the entries `src` held, what the caller passed as it.)
        let passed: BTreeSet<Origin> = v.own.iter().filter(|o| matches!(o.entry, Entry::Param(..))).flat_map(|o| self.param_value(scopes, state, o, args)).collect();
        // A helper that replaced the entries with what the caller passed replaces them even
        // where nothing is known of what was passed.
        let replaced_with_passed = v.own.iter().any(|o| matches!(o.entry, Entry::Param(..))) && !v.own.iter().any(|o| o.entry == Entry::Kept);
        if !own.is_empty() || !passed.is_empty() || replaced_with_passed {
            let own: BTreeSet<Origin> = own.into_iter().map(|mut o| {
                o.holder = None;
                o.function.get_or_insert_with(|| function.to_string());
                self.at_call(&mut o, call);
                o
            })
            .chain(passed)
            .collect();
            // A helper that replaced the entries on every path (no origin stands for what they
            // held before) leaves only what it put there.
            // A helper that overwrote a part it was given (`fill_pad(tail)` of `split_at_mut`,
            // `fill_pad(&mut buf[k..])`): that part.
            let part = arg.and_then(|a| self.written(scopes, a)).filter(|w| !w.whole);
            if v.own.iter().any(|o| o.entry == Entry::Kept) {
                self.add(scopes, state, place, own);
            } else if let (Some(w), Some(arg)) = (part, arg) {
                self.put_into(scopes, state, &w, arg, own);
            } else {
                self.materialize(state, place);
                let holder: Arc<str> = scopes.display(place).into();
                let origins = own.into_iter().map(|mut o| {
                    o.holder.get_or_insert_with(|| holder.clone());
                    o
                });
                state.map.insert(place.clone(), Entries { origins: origins.collect(), reset: Some(self.pos(call)), prefix: None, outer: None, suffix: None, len: Len::Unknown });
            }
        }
        for (f, fv) in &v.fields {
            self.add_val(scopes, state, &place.field(f), None, fv, function, call, args);
        }
    }

    /// What the fields of a value of type `ty` may hold between calls: its struct literals and
    /// the fields of `self` at the normal exits of its methods, in this file and in the other
    /// files of the crate that implement it (a constructor in `lib.rs` zero-fills the buffer a
    /// method in `replay.rs` hands to a kernel), each in its own file's context.
    fn field_summary(&self, ty: &str) -> Option<Arc<Val>> {
        dataflow::memoized(&self.ctx.summaries.pad.fields, (ty.to_string(), self.depth == 0), || {
            let mut val = self.fields_left(ty);
            // The other files' functions are read in their own context, once: not again from
            // there (each would come back here).
            if self.depth == 0 {
                val.join(self.fields_left_elsewhere(ty));
            }
            Some(Arc::new(val))
        })
    }

    fn fields_left_elsewhere(&self, ty: &str) -> Val {
        let mut val = Val::default();
        let ctx = self.ctx;
        let here = match self.def {
            Some(d) => d.self_type.as_deref(),
            None => ctx.self_type,
        };
        for path in ctx.resolver.type_paths(&[ty.to_string()], here) {
            for method in ctx.items.methods_elsewhere(ctx.index, &path, &ctx.file.path) {
                let found = ctx.with_foreign_fn(&method, |fctx, _| {
                    let mut v = Pad::new(fctx, Mode::Summarise, None, self.depth + 1).fields_left(ty);
                    v.in_file(fctx.file);
                    v
                });
                val.join(found.unwrap_or_default());
            }
        }
        val
    }

    /// What this file's functions leave in the fields of a value of type `ty`.
    fn fields_left(&self, ty: &str) -> Val {
        let mut val = Val::default();
        for (idx, def) in self.ctx.fns.defs.iter().enumerate() {
            let is_method = def.self_type.as_deref() == Some(ty);
            if !is_method && !self.ctx.file.text[def.range.clone()].contains(ty) {
                continue;
            }
            let Some(summary) = self.summary(idx, def) else { continue };
            if let Some(lit) = summary.literals.get(ty) {
                val.join(tagged(lit, &def.sig.ident.to_string()));
            }
            if is_method && def.has_receiver() {
                val.join(tagged(&summary.self_value, &def.sig.ident.to_string()));
            }
        }
        val
    }
}

/// Whether an iterator counts through a range (`0..n`, `(0..n).rev()`, `.step_by(2)`).
fn counts_through(e: &Expr) -> bool {
    match strip(e) {
        Expr::Range(_) => true,
        Expr::MethodCall(m) => matches!(m.method.to_string().as_str(), "rev" | "step_by" | "skip" | "take" | "into_iter" | "by_ref") && counts_through(&m.receiver),
        _ => false,
    }
}

/// The name a closure's one parameter binds, through references (`|&b|`, `|b|`, `|&&b|`).
fn closure_param_name(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        syn::Pat::Reference(r) => closure_param_name(&r.pat),
        syn::Pat::Type(t) => closure_param_name(&t.pat),
        _ => None,
    }
}

/// Whether the predicate `body` holds of the value `v` bound to `name`: comparisons of it
/// (dereferenced or cast) with constants, `!`, `&&` and `||`; `None` where that is not known.
fn keeps(ctx: &FnCtx, body: &Expr, name: &str, v: i128) -> Option<bool> {
    let is_var = |e: &Expr| {
        let mut e = crate::rules::strip_cast(e);
        while let Expr::Unary(u) = e {
            if !matches!(u.op, syn::UnOp::Deref(_)) {
                return false;
            }
            e = crate::rules::strip_cast(&u.expr);
        }
        matches!(e, Expr::Path(p) if p.path.is_ident(name))
    };
    match strip(body) {
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => keeps(ctx, e, name, v),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => keeps(ctx, &u.expr, name, v).map(|b| !b),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => match (keeps(ctx, &b.left, name, v), keeps(ctx, &b.right, name, v)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => match (keeps(ctx, &b.left, name, v), keeps(ctx, &b.right, name, v)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Expr::Binary(b) => {
            let (x, k, swapped) = if is_var(&b.left) { (v, ctx.int_value(&b.right)?, false) } else if is_var(&b.right) { (v, ctx.int_value(&b.left)?, true) } else { return None };
            let (l, r) = if swapped { (k, x) } else { (x, k) };
            Some(match b.op {
                syn::BinOp::Eq(_) => l == r,
                syn::BinOp::Ne(_) => l != r,
                syn::BinOp::Lt(_) => l < r,
                syn::BinOp::Le(_) => l <= r,
                syn::BinOp::Gt(_) => l > r,
                syn::BinOp::Ge(_) => l >= r,
                _ => return None,
            })
        }
        _ => None,
    }
}

/// What a finding calls the buffer, and its label at the origin.
fn origin_label(o: &Origin, shown: Option<&str>, written: impl FnOnce() -> String) -> (String, String) {
    let buffer = o.holder.as_deref().map(str::to_string).or_else(|| shown.map(str::to_string)).unwrap_or_else(written);
    let label = match &o.how {
        How::Value | How::Filled if o.holder.is_none() => format!("the argument starts filled with {}", o.text),
        How::Value | How::Filled => format!("`{buffer}` starts filled with {}", o.text),
        How::Put(method) if method == "store" => format!("a store puts {} into `{buffer}`", o.text),
        How::Put(method) => format!("`{method}` puts {} into `{buffer}`", o.text),
        How::Fallback(method) => format!("the `{method}` fallback is 0"),
        How::Every => format!("every entry is {}", o.text),
        How::Helper(helper) => format!("`{helper}` pads the buffer it returns with {}, and `{}` is that buffer", o.text, shown.unwrap_or(&buffer)),
        How::Static(name) => format!("`{name}` holds {}", o.text),
        How::Producer => format!("`{}` makes every entry it adds to `{buffer}` 0", o.text),
        How::Derived(owner) => format!("the `Default` that `{owner}` derives fills `{buffer}` with 0"),
        How::Counted => format!("the range counts from {}", o.text),
    };
    let buffer = match &o.how {
        How::Helper(_) => shown.map(str::to_string).unwrap_or(buffer),
        _ => buffer,
    };
    (buffer, label)
}

/// `val` into `place` and the fields inside it, where the state has nothing for them yet.
fn insert_absent(state: &mut State, place: &Place, val: Val) {
    state.map.entry(place.clone()).or_insert(Entries { origins: val.own, reset: None, prefix: None, outer: None, suffix: None, len: Len::Unknown });
    for (f, v) in val.fields {
        insert_absent(state, &place.field(&f), v);
    }
}

/// A value's concrete origins, marked as left by `function`.
fn tagged(v: &Val, function: &str) -> Val {
    Val {
        own: v
            .own
            .iter()
            .filter(|o| !o.entry.is_symbolic())
            .cloned()
            .map(|mut o| {
                o.function.get_or_insert_with(|| function.to_string());
                o
            })
            .collect(),
        fields: v.fields.iter().map(|(k, fv)| (k.clone(), tagged(fv, function))).collect(),
    }
}

/// Records, on origins read out of a local, that they were copied out of it here.
fn tag_via(v: &mut Val, place: &Place, at: usize) {
    v.own = std::mem::take(&mut v.own)
        .into_iter()
        .map(|mut o| {
            o.via.get_or_insert_with(|| (place.clone(), at));
            o
        })
        .collect();
    for fv in v.fields.values_mut() {
        tag_via(fv, place, at);
    }
}

/// `k` of a range to the end `k..`, as written.
fn suffix_start(index: &Expr) -> Option<String> {
    match strip(index) {
        Expr::Range(r) if r.end.is_none() => r.start.as_deref().map(crate::rules::expr_text),
        _ => None,
    }
}

/// `k` and `m` of a range `k..m`, as written.
fn range_bounds(index: &Expr) -> Option<(String, String)> {
    match strip(index) {
        Expr::Range(syn::ExprRange { start: Some(k), end: Some(m), limits: syn::RangeLimits::HalfOpen(_), .. }) => Some((crate::rules::expr_text(k), crate::rules::expr_text(m))),
        _ => None,
    }
}

/// What a write through an expression reaches ([`Pad::written`]): the buffer, the part of
/// `split_at_mut` the expression is, and whether the whole buffer.
struct Written {
    place: Place,
    split: Option<SplitPart>,
    whole: bool,
}

/// A part of a buffer `split_at_mut(k)` gives, with `k` as written.
#[derive(Clone, Debug)]
enum SplitPart {
    /// `[..k]`
    Head(String),
    /// `[k..]`
    Tail(String),
}

/// `k` of a prefix range `..k`, as written.
fn prefix_bound(index: &Expr) -> Option<String> {
    match strip(index) {
        Expr::Range(r) if r.start.is_none() && matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => r.end.as_deref().map(crate::rules::expr_text),
        _ => None,
    }
}

/// The block of a slot written as `block * SIZE + offset % SIZE` (either order, through casts):
/// `scaled` is the product, `offset` the remainder, both by the same `SIZE`.
fn slot_of_block<'e>(scaled: &'e Expr, offset: &Expr) -> Option<&'e Expr> {
    let (Expr::Binary(mul), Expr::Binary(rem)) = (super::strip_cast(scaled), super::strip_cast(offset)) else { return None };
    if !matches!(mul.op, syn::BinOp::Mul(_)) || !matches!(rem.op, syn::BinOp::Rem(_)) {
        return None;
    }
    let size = crate::rules::expr_text(super::strip_cast(&rem.right));
    if crate::rules::expr_text(super::strip_cast(&mul.right)) == size {
        Some(&mul.left)
    } else if crate::rules::expr_text(super::strip_cast(&mul.left)) == size {
        Some(&mul.right)
    } else {
        None
    }
}


/// Whether an expression is a local (so not a constant of the same name).
fn is_local(scopes: &Scopes, e: &Expr) -> bool {
    matches!(strip(e), Expr::Path(p) if p.path.get_ident().is_some_and(|i| scopes.lookup(&i.to_string()).is_some()))
}

/// The buffer an argument designates: `&x[..n]` → `x`, `x.as_slice()` → `x`, `&m.f` → `m.f`.
/// Whether `e` is a part of the buffer [`buffer_of`] finds in it (`buf[..k]`), not all of it.
fn sliced(e: &Expr) -> bool {
    match strip(e) {
        // `buf[..]` is all of it.
        Expr::Index(i) => matches!(strip(&i.index), Expr::Range(r) if r.start.is_some() || r.end.is_some()),
        Expr::MethodCall(m) => sliced(&m.receiver),
        Expr::Call(c) => c.args.first().is_some_and(sliced),
        Expr::Reference(r) => sliced(&r.expr),
        _ => false,
    }
}

/// `Arc::make_mut`, `Rc::get_mut` (also by a longer path): the content of a shared buffer, unique.
fn made_unique(func: &Expr) -> bool {
    let Expr::Path(p) = strip(func) else { return false };
    let names: Vec<String> = p.path.segments.iter().rev().take(2).map(|s| s.ident.to_string()).collect();
    matches!(names.iter().map(String::as_str).collect::<Vec<_>>()[..], ["make_mut" | "get_mut", "Arc" | "Rc"])
}

/// The place whose storage (or an option's content, as the buffer it holds) an expression
/// borrows mutably: `&mut m.slot_mapping`, `m.slot_mapping.as_mut()` (through `unwrap`,
/// `expect`), `m.slot_mapping.get_or_insert_with(Vec::new)`.
fn borrowed_content(scopes: &Scopes, e: &Expr) -> Option<Place> {
    match dataflow::strip_parens(e) {
        Expr::Reference(r) if r.mutability.is_some() => scopes.place_of(&r.expr),
        Expr::MethodCall(m) if (m.method == "unwrap" && m.args.is_empty()) || m.method == "expect" => match dataflow::strip_parens(&m.receiver) {
            Expr::MethodCall(inner) if OPTION_CONTENT.contains(&inner.method.to_string().as_str()) => borrowed_content(scopes, &m.receiver),
            _ => None,
        },
        Expr::MethodCall(m) if OPTION_CONTENT.contains(&m.method.to_string().as_str()) || m.method == "get_or_insert_with" || m.method == "get_or_insert" => scopes.place_of(&m.receiver),
        _ => None,
    }
}

/// Methods that lend an option's content mutably.
const OPTION_CONTENT: &[&str] = &["as_mut", "as_deref_mut"];

/// The collections (as written) a body writes one element of through a borrow: the receiver of
/// `get_mut`, `iter_mut`, `values_mut`, `entry`, and `coll` of `coll[k]` borrowed mutably,
/// assigned into or given a method call (`coll[k].fill(PAD)`, `coll[k][..n].copy_from_slice(..)`).
fn element_written(body: &syn::Block) -> HashSet<String> {
    use syn::visit::Visit;
    struct Written(HashSet<String>);
    impl Written {
        fn element(&mut self, e: &Expr) {
            match strip(e) {
                Expr::Index(i) if matches!(strip(&i.index), Expr::Range(_)) => self.element(&i.expr),
                Expr::Index(i) => _ = self.0.insert(crate::rules::expr_text(strip(&i.expr))),
                _ => {}
            }
        }
    }
    impl<'ast> Visit<'ast> for Written {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if ["get_mut", "iter_mut", "values_mut", "entry", "get_many_mut"].contains(&m.method.to_string().as_str()) {
                self.0.insert(crate::rules::expr_text(strip(&m.receiver)));
            }
            self.element(&m.receiver);
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            self.element(&a.left);
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
            if r.mutability.is_some() {
                self.element(&r.expr);
            }
            syn::visit::visit_expr_reference(self, r);
        }
    }
    let mut w = Written(HashSet::new());
    w.visit_block(body);
    w.0
}

/// The collection one of whose buffers `e` is (`self.by_bs` of `self.by_bs[&bs]`, of
/// `self.by_bs.get(&bs).unwrap()`), else `e`.
fn collection_of(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::Index(i) if !matches!(strip(&i.index), Expr::Range(_)) => collection_of(&i.expr),
        Expr::MethodCall(m) if (m.method == "unwrap" || m.method == "expect") && matches!(strip(&m.receiver), Expr::MethodCall(g) if (g.method == "get" || g.method == "get_mut") && g.args.len() == 1) => match strip(&m.receiver) {
            Expr::MethodCall(g) => collection_of(&g.receiver),
            _ => e,
        },
        _ => e,
    }
}

fn buffer_of(e: &Expr) -> &Expr {
    // What a lock's or a cell's guard guards (`shared.lock().unwrap().resize(n, 0)`): that buffer.
    if let Some(guarded) = super::guard_content(strip(e)) {
        return buffer_of(guarded);
    }
    match strip(e) {
        Expr::Index(i) if matches!(strip(&i.index), Expr::Range(_)) => buffer_of(&i.expr),
        Expr::MethodCall(m) if ["as_slice", "as_ref", "as_mut_slice", "as_mut", "as_deref_mut", "get_or_insert_with", "get_or_insert"].contains(&m.method.to_string().as_str()) => buffer_of(&m.receiver),
        // `m.slot_mapping.as_mut().unwrap()`: the option's content.
        Expr::MethodCall(m) if (m.method == "unwrap" || m.method == "expect") && matches!(strip(&m.receiver), Expr::MethodCall(inner) if OPTION_CONTENT.contains(&inner.method.to_string().as_str())) => buffer_of(&m.receiver),
        // A shared buffer made unique in place (`Arc::make_mut(&mut slots)`, `Rc::get_mut(&mut
        // slots).unwrap()`) is that buffer.
        Expr::MethodCall(m) if (m.method == "unwrap" || m.method == "expect") && matches!(strip(&m.receiver), Expr::Call(_)) => match buffer_of(&m.receiver) {
            inner if std::ptr::eq(inner, strip(&m.receiver)) => strip(e),
            inner => inner,
        },
        Expr::Call(c) if c.args.len() == 1 && made_unique(&c.func) && matches!(dataflow::strip_parens(&c.args[0]), Expr::Reference(r) if r.mutability.is_some()) => buffer_of(&c.args[0]),
        other => other,
    }
}

/// The sentinel as the calling file can write it, so that the fix compiles where it is applied:
/// its name when the file imports or defines it; else its path from the callee's module
/// (`crate::kv::PAD_SLOT_ID` in the same crate, `kv::PAD_SLOT_ID` from another) when the callee's
/// file defines it or the contract names it by an absolute path; else its value (`-1`).
fn sentinel_in_caller(ctx: &FnCtx, callee: &ContractedFn, skip: &Sentinel<Range<usize>>, value: Option<i128>) -> String {
    let Sentinel::Const(place) = skip else { return skip.to_string() };
    let segments: Vec<&str> = place.segments.iter().map(|s| s.text.as_str()).collect();
    let name = place.last_name();
    let resolver = ctx.resolver;
    if segments.len() == 1 && (resolver.imports.get(name).is_some() || defines_const(&ctx.file.text, name)) {
        return name.to_string();
    }
    // The callee's module, crate name first (`krate::kv` of `krate::kv::Pool::write`).
    let module_len = callee.path.len().saturating_sub(if callee.self_type.is_some() { 2 } else { 1 });
    let module = &callee.path[..module_len];
    let full: Option<Vec<String>> = match segments.as_slice() {
        _ if callee.external || module.is_empty() => None,
        ["crate", rest @ ..] => Some(module[..1].iter().cloned().chain(rest.iter().map(|s| s.to_string())).collect()),
        ["self", rest @ ..] => Some(module.iter().cloned().chain(rest.iter().map(|s| s.to_string())).collect()),
        [single] if defines_const(&callee.file.text, single) => Some(module.iter().cloned().chain([single.to_string()]).collect()),
        _ => None,
    };
    match (full, value) {
        (Some(full), _) if full[0] == resolver.crate_name => format!("crate::{}", full[1..].join("::")),
        (Some(full), _) => full.join("::"),
        (None, Some(v)) => v.to_string(),
        (None, None) => place.to_string(),
    }
}

/// Whether `text` defines a constant or static named `name` (a byte search: it only chooses how
/// a fix spells the sentinel).
fn defines_const(text: &str, name: &str) -> bool {
    ["const ", "static "].iter().any(|kw| text.contains(&format!("{kw}{name}:")))
}

/// `i += 1`: a counter's step.
fn steps_by_one(b: &syn::ExprBinary) -> bool {
    matches!(b.op, syn::BinOp::AddAssign(_)) && crate::index::int_value(&b.right) == Some(1)
}

