//! Check for `stale_key`: a lookup on a `reuses` place whose key leaves out a declared component.
//!
//! An analysis on the dataflow solver ([`crate::dataflow`]). The state holds, per place (a local
//! or a field path of one, such as a tuple element `key.0`), the places its value was built from
//! on *every* path (joined by intersection: a key changed on one branch covers only what both
//! branches cover; a value chosen by a `match` or `if`/`else` is built from what every branch
//! that gives one builds), and, per local, the caches it may designate (`let map =
//! self.kv.lock().unwrap();`, `let cache = &mut self.kv;`). A key covers a component when it
//! mentions it, a field of it, or a whole value it is a field of (`graph` covers
//! `graph.fingerprint`), directly or through the locals it reads (as they are at the lookup: a
//! shadowing `let` is a new local, an inner block's binding ends with its block, a name a pattern
//! takes from a value is built from that value), through macro
//! arguments (`format!("{}-{v}", g.fingerprint)`), and through helpers by their summaries (what
//! their returned value is built from, in terms of their parameters and `self`: a helper that
//! drops a component drops it at every call; a helper of this file, or of another reached by its
//! path, `keys::kernel_key(t)`, summarised in its own file). A call that is not known covers what
//! its arguments and receiver cover. Lookups go through the place itself, a lock or borrow guard
//! of it, or a local bound to one; they are found where they run (closures run in place) and in
//! closures kept for later. A search of a cache kept as a list (`self.entries.iter().find(|e|
//! e.hash == h)`, `position`, `any`, `find_map`) is a lookup whose key is what the predicate
//! compares. A hit whose entry is compared with a component (a guard or a condition on a local
//! bound to what the lookup found: `Keys::entries`, through [`Analysis::assume`]) is validated
//! for it. Evictions (`remove`) are not lookups.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use syn::visit::Visit;
use syn::Expr;

use super::names;
use crate::analysis::{call_args, FnCtx, FnDef};
use crate::dataflow::{self, Analysis, Base, Domain, LocalId, MaySet, Place, PlaceMap, Scopes};
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use crate::resolve::{pointee, strip};
use reuse_rules::catalogue::STALE_KEY;
use reuse_rules::contract::PlaceRoot;

/// Methods of maps and caches whose first argument is the key (std's maps and sets, `lru`'s
/// `LruCache`: `contains`, `push`; `moka`'s `Cache`: `get_with`, `try_get_with`).
const KEYED_METHODS: &[&str] = &[
    "get", "get_mut", "entry", "entry_ref", "contains_key", "insert", "get_key_value", "get_or_insert_with", "get_or_insert", "peek", "put", "try_insert", "get_or_insert_mut", "contains",
    "push", "get_with", "try_get_with", "optionally_get_with", "try_get_or_insert", "try_get_or_insert_mut",
];

/// What a search walks: the entries of a cache kept as a list, or a map's keys themselves
/// (`compiled.keys().any(|k| k.shape == shape)`).
const ENTRY_ITERATORS: &[&str] = &["iter", "iter_mut", "into_iter", "keys"];

/// Iterator methods that search a cache kept as a list for the entry whose key matches.
const SEARCHES: &[&str] = &["find", "find_map", "position", "rposition", "any"];

/// Methods that feed their arguments into their receiver: hashers, digests, a key string or
/// vector built up piece by piece (and every `write_*` of `std::hash::Hasher`).
const FEEDING: &[&str] = &["write", "update", "chain_update", "push", "push_str", "extend", "extend_from_slice", "append"];

/// Calls besides lock and borrow guards ([`super::GUARDS`], [`super::UNWRAPS`]) that give access
/// to the same map: views of it, and a lazily built one.
const VIEWS: &[&str] = &["as_mut", "as_ref", "deref", "deref_mut", "get_or_init", "force"];

/// `Key` of `Key(h, v)`: a path whose last name is a type's or a variant's (not `Some`, `Ok`,
/// `Err`, whose value is looked through).
fn is_tuple_constructor(func: &Expr) -> bool {
    matches!(strip(func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
        let name = s.ident.to_string();
        name.starts_with(|c: char| c.is_ascii_uppercase()) && !["Some", "Ok", "Err"].contains(&name.as_str())
    }))
}

/// The places a value is built from on every path (`None`: no path has been seen yet, the
/// top of the lattice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Built(Option<BTreeSet<Place>>);

impl Domain for Built {
    fn join(&mut self, other: &Self) {
        match (&mut self.0, &other.0) {
            (_, None) => {}
            (None, Some(o)) => self.0 = Some(o.clone()),
            // What both paths build it from: `{req.hash, req.label}` (the adapter reset on one
            // path) and `{req}` (the copy on the other) are both built from `req.hash`, `req.label`.
            (Some(s), Some(o)) => *s = built_by_both(s, o),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    built: PlaceMap<Built>,
    /// The caches a local may designate.
    caches: PlaceMap<MaySet<Place>>,
    /// The key components (as the contract writes them) for which, on every path here, the
    /// cache holds only entries of the current value: it was emptied when a stamp of the
    /// component differed, or the stamp was seen equal to it (`if self.cached_version !=
    /// self.adapter_version { self.kv.clear(); .. }`). A lookup needs no such component.
    flushed: Flushed,
    /// The entries (by their key as written) known, on every path here, to have been built for
    /// components (as the contract writes them): stored with a stamp of them (`insert(k,
    /// (generation, merged))`), or tested equal to them (`let fresh = map.get(&k).is_some_and(|e|
    /// e.0 == generation); if !fresh { .. }`). A lookup of that key needs no such component.
    current: Flushed,
}

/// A set of component texts that holds on every path (the join is the intersection).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Flushed(BTreeSet<String>);

impl Domain for State {
    fn join(&mut self, other: &Self) {
        self.built.join(&other.built);
        self.caches.join(&other.caches);
        self.flushed.0.retain(|c| other.flushed.0.contains(c));
        self.current.0.retain(|c| other.current.0.contains(c));
    }
}

/// The [`State::current`] item of the entry under `key` (as written) built for `component`.
fn current_entry(key: &Expr, component: &str) -> String {
    format!("{}\u{0}{component}", super::expr_text(strip(key)))
}

/// Per-file memo of this rule's summaries of helpers: the places (parameters as their locals,
/// fields of `self`) the returned value is built from on every path.
#[derive(Default)]
pub(super) struct Summaries {
    helpers: dataflow::HelperMemo<Arc<HelperSummary>>,
}

/// What a helper does to the values a key is built from (a helper of the file, or of another
/// file reached by its path: a key type's constructor in a module of its own).
#[derive(Default)]
pub(crate) struct HelperSummary {
    /// What its returned value is built from: its parameters' and `self`'s places.
    returns: BTreeSet<Place>,
    /// The parts of its parameters and of `self` it assigns (`k.adapter = 0;` of `fn
    /// neutral(k: &mut Req)`, `self.adapter = 0;` of a `&mut self` method), each with what it is
    /// built from where the helper returns (the part itself too where a path leaves it as it was).
    parts: BTreeMap<Place, BTreeSet<Place>>,
}

/// One `reuses` clause, in this function's places.
struct Reuse<'a> {
    clause: &'a reuse_rules::contract::Clause<Range<usize>>,
    place: Place,
    /// The path of a `static` cache (`reuses(PLANS, ..)`), whose place is [`static_cache`].
    static_path: Option<Vec<String>>,
    place_text: String,
    /// The key components, with how they read.
    key: Vec<(Place, String)>,
    /// The cache holds one value and no key (`Option<T>`, `OnceCell<T>`): every read of it is a
    /// lookup that serves that value whatever the components are, unless it was checked
    /// against them.
    single: bool,
}

/// The components of `r` its type keeps current: a private field of `self` (`scale`) that the
/// file writes, every function that may write it emptying the cache beside (`fn set_scale(&mut
/// self, s: f32) { if s != self.scale { self.kernels.clear(); self.scale = s; } }`): no other
/// module writes it, so the cache never holds an entry of another value. A function that writes
/// the field through a call on it (`self.scale.push(..)`), lends it mutably or writes it
/// without emptying the cache spoils it. A field the file never writes is no such component:
/// its writers are elsewhere (a child module) or not yet written.
fn kept_current(ctx: &FnCtx, r: &Reuse) -> Vec<String> {
    let (Some(ty), Base::SelfValue, [cache]) = (ctx.self_type, &r.place.base, r.place.fields.as_slice()) else { return Vec::new() };
    let fields = ctx.resolver.fields;
    r.key
        .iter()
        .filter(|(k, _)| match (&k.base, k.fields.as_slice()) {
            (Base::SelfValue, [field]) if fields.is_private(ty, field) && !fields.is_interior(ty, field) => {
                let writers: Vec<FieldWrites> = ctx
                    .fns
                    .defs
                    .iter()
                    .map(|d| {
                        // `self.scale` in another type's method is that type's field.
                        let own = d.self_type.as_deref() == Some(ty);
                        let mut w = FieldWrites { field, cache, own, writes: false, empties: false };
                        w.visit_block(d.body);
                        w
                    })
                    .filter(|w| w.writes)
                    .collect();
                !writers.is_empty() && writers.iter().all(|w| w.empties)
            }
            _ => false,
        })
        .map(|(_, t)| t.clone())
        .collect()
}

/// Whether a body may write a field of that name (of any value: a function of the module may
/// write another object's), and whether it empties a cache field of that name.
struct FieldWrites<'f> {
    field: &'f str,
    cache: &'f str,
    /// A method of the type: `self.field` is its field.
    own: bool,
    writes: bool,
    empties: bool,
}

impl FieldWrites<'_> {
    /// `x.name`, where `x` may be of the type (`self` only in the type's own methods).
    fn names(&self, e: &Expr, name: &str) -> bool {
        let Expr::Field(f) = strip(e) else { return false };
        let of_self = matches!(strip(&f.base), Expr::Path(p) if p.path.is_ident("self"));
        matches!(&f.member, syn::Member::Named(n) if n == name) && (self.own || !of_self)
    }
}

impl<'ast> Visit<'ast> for FieldWrites<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => {
                self.writes |= self.names(&a.left, self.field);
                self.empties |= self.names(&a.left, self.cache);
            }
            Expr::Binary(b) if dataflow::is_compound(&b.op) => self.writes |= self.names(&b.left, self.field),
            Expr::Reference(r) if r.mutability.is_some() => {
                self.writes |= self.names(&r.expr, self.field);
                // `mem::take(&mut self.kernels)`
                self.empties |= self.names(&r.expr, self.cache);
            }
            Expr::MethodCall(m) => {
                const READS: &[&str] = &["clone", "to_bits", "len", "is_empty", "get", "iter", "eq", "ne", "cmp", "partial_cmp", "hash", "to_string", "as_ref", "as_str", "contains", "copied", "cloned", "abs", "max", "min", "to_owned", "is_some", "is_none"];
                let method = m.method.to_string();
                self.writes |= self.names(&m.receiver, self.field) && !READS.contains(&method.as_str());
                self.empties |= self.names(&m.receiver, self.cache) && method == "clear";
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
}

/// Reads of a single-slot cache that serve the value it holds (`Option`'s, `OnceCell`'s).
const SINGLE_SLOT_READS: &[&str] = &[
    "get", "get_mut", "get_or_init", "get_or_try_init", "get_or_insert_with", "get_or_insert", "get_or_insert_default", "as_ref", "as_mut",
    "as_deref", "as_deref_mut", "unwrap", "expect", "clone", "cloned", "copied",
];

/// Whether a type holds at most one cached value: a parameter's as written, a field's as the
/// file declares it (a field of a field is not followed).
fn single_slot(ctx: &FnCtx, place: &Place) -> bool {
    match (&place.base, place.fields.as_slice()) {
        (Base::SelfValue, [field]) => ctx.self_type.is_some_and(|owner| ctx.resolver.fields.is_single_slot(owner, field)),
        // Parameters are the first locals, in order, `self` left out.
        (Base::Local(i), []) => ctx.sig.inputs.iter().filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(&t.ty),
            syn::FnArg::Receiver(_) => None,
        }).nth(*i as usize).is_some_and(|ty| crate::resolve::is_single_slot(ty)),
        _ => false,
    }
}

/// The place that stands for the `i`-th `static` cache of a contract: a static is no place of the
/// body, and this is one that no local can be (they are numbered from 0), so the caches a value
/// designates (`let g = PLANS.lock().unwrap();`) can hold it.
fn static_cache(i: usize) -> Place {
    Place { base: Base::Local(LocalId::MAX - i as LocalId), fields: Vec::new() }
}

/// The caches a place designates: what the map says of it, or of the nearest place it is a
/// field of, that field in each (`this.plans` of `let this = &mut *self;` is `self.plans`).
fn designated(state: &State, p: &Place) -> BTreeSet<Place> {
    for n in (0..=p.fields.len()).rev() {
        let prefix = Place { base: p.base.clone(), fields: p.fields[..n].to_vec() };
        if let Some(c) = state.caches.map.get(&prefix) {
            return c.0.iter().map(|c| c.fields_then(&p.fields[n..])).collect();
        }
    }
    [p.clone()].into()
}

/// What a lookup on a cache found ([`Keys::outer_lookup`]).
#[derive(Clone)]
struct Found {
    /// The caches it looks up in.
    caches: BTreeSet<Place>,
    /// What its key is built from.
    built: BTreeSet<Place>,
    /// Its key's range.
    key: (usize, usize),
}

/// A lookup that leaves out components, gathered over the solver's visits.
struct Stale {
    reuse: usize,
    lookup: String,
    missing: BTreeSet<String>,
}

impl Stale {
    /// A stale lookup of reuse `reuse`, leaving out `missing`, recorded by its key's range (a
    /// single slot's: the read's).
    fn record(stale: &mut BTreeMap<(usize, usize), Stale>, range: Range<usize>, reuse: usize, lookup: &str, missing: BTreeSet<String>) {
        let s = stale.entry((range.start, range.end)).or_insert(Stale { reuse, lookup: lookup.to_string(), missing: BTreeSet::new() });
        s.missing.extend(missing);
    }
}

pub(super) fn check(ctx: &FnCtx, contract: &FileContract, out: &mut Vec<Finding>) {
    let mut statics = 0;
    let reuses: Vec<Reuse> = contract
        .reuses()
        .filter_map(|(clause, place, key)| {
            let key = key
                .iter()
                .filter(|k| k.root != PlaceRoot::Static)
                .filter_map(|k| Some((super::contract_place(ctx.sig, k)?, k.to_string())))
                .collect();
            let (place_of_cache, static_path) = match place.root {
                PlaceRoot::Static => (static_cache(statics), Some(place.segments.iter().map(|s| s.text.clone()).collect())),
                _ => (super::contract_place(ctx.sig, place)?, None),
            };
            statics += usize::from(static_path.is_some());
            let single = static_path.is_none() && single_slot(ctx, &place_of_cache);
            Some(Reuse { clause, place: place_of_cache, static_path, place_text: place.to_string(), key, single })
        })
        .collect();
    if reuses.is_empty() {
        return;
    }
    let mut a = Keys::new(ctx, None, 0, &reuses);
    let mut entry = State::default();
    for r in &reuses {
        entry.flushed.0.extend(kept_current(ctx, r));
    }
    if let Err(dataflow::TooComplex) = dataflow::solve(&mut a, ctx.sig, ctx.body, entry) {
        return out.push(super::analysis_limit(ctx, "dataflow", dataflow::MAX_STEPS, "its cache keys are"));
    }
    for ((start, end), s) in a.stale {
        if a.tested.contains(&(start..end)) || a.outer_keys.contains(&(start, end)) {
            continue;
        }
        let r = &reuses[s.reuse];
        let validated = a.validated.get(&(start, end));
        let missing: Vec<&str> = r.key.iter().map(|(_, t)| t.as_str()).filter(|t| s.missing.contains(*t) && !validated.is_some_and(|v| v.contains(*t))).collect();
        if missing.is_empty() {
            continue;
        }
        let all: Vec<&str> = r.key.iter().map(|(_, t)| t.as_str()).collect();
        let finding = if r.single {
            Finding::new(
                &STALE_KEY,
                format!("this {} of `{}` serves the one value it holds without checking {}", s.lookup, r.place_text, names(&missing)),
                Label::new(ctx.file, start..end, format!("served whatever {} is", names(&missing))),
            )
            .with_help(format!("keep ({}) beside the value and compare them before serving it, or empty the slot when they change", all.join(", ")))
        } else {
            Finding::new(
                &STALE_KEY,
                format!("this {} on `{}` uses a key built without {}", s.lookup, r.place_text, names(&missing)),
                Label::new(ctx.file, start..end, format!("key lacks {}", names(&missing))),
            )
            .with_help(format!("build the key from all of ({}), so a changed component misses the cache", all.join(", ")))
        };
        out.push(finding.with_secondary(Label::new(ctx.contract_file, r.clause.keyword.span.start..r.clause.end.end, "entries are valid only for these key components")));
    }
}

/// The parameter of a closure that judges an entry (`|e| e.version == v`, `|(n, d, _)| *n ==
/// len && *d == dtype`): what names a part of the entry.
enum EntryParam {
    /// `|e|`, `|&e|`: a field of it (`e.version`); the whole entry is no stamp.
    Whole(String),
    /// `|(n, d, _)|`, `|Entry { version, .. }|`: any name the pattern takes.
    Parts(HashSet<String>),
}

impl EntryParam {
    fn of(p: &syn::Pat) -> EntryParam {
        match p {
            syn::Pat::Reference(r) => EntryParam::of(&r.pat),
            syn::Pat::Type(t) => EntryParam::of(&t.pat),
            syn::Pat::Ident(i) if i.subpat.is_none() => EntryParam::Whole(i.ident.to_string()),
            other => EntryParam::Parts(super::pattern_names(other)),
        }
    }

    /// Whether `e` (its `*`, `&` and parentheses aside) is a part of the entry.
    fn part(&self, e: &Expr) -> bool {
        let text = crate::rules::expr_text(strip(e));
        let root = text.split('.').next().unwrap_or_default();
        match self {
            EntryParam::Whole(name) => root == name && text.contains('.'),
            EntryParam::Parts(names) => names.contains(root),
        }
    }
}

struct Keys<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    /// The helper being summarised (None: the function being checked).
    def: Option<&'c FnDef<'a>>,
    depth: usize,
    reuses: &'c [Reuse<'c>],
    /// Lookups that leave out components, by the key's range.
    stale: BTreeMap<(usize, usize), Stale>,
    /// In a summary: what the returned value is built from on every normal exit.
    returns: Built,
    /// In a summary: the assigned parts of the parameters and `self` at each normal exit.
    parts_at_exits: Vec<BTreeMap<Place, BTreeSet<Place>>>,
    /// Locals just bound without a value of their own (a name inside a pattern), which
    /// [`Analysis::bind_from`] may say take theirs from a scrutinee.
    unvalued: HashSet<LocalId>,
    /// What the value a block ends with is built from, by its range, read while the block's
    /// locals were in scope (`{ let v = self.ver; (h, v) }` builds `self.ver`).
    tails: HashMap<Range<usize>, BTreeSet<Place>>,
    /// Locals that hold what a lookup found, by the range of that lookup's key: comparing a
    /// field of the entry with a component validates the hit for it ([`Analysis::assume`]).
    entries: HashMap<LocalId, (usize, usize)>,
    /// The components each lookup's hit is validated for, by the range of its key.
    validated: HashMap<(usize, usize), BTreeSet<String>>,
    /// Locals that hold what a lookup on a cache found, with that cache and what its key was
    /// built from: a lookup on one (`let per = self.by_version.get(&v)?; per.get(&h)`) looks up
    /// in a map of maps, keyed by both keys ([`Keys::outer_lookup`]).
    found_in: HashMap<LocalId, Found>,
    /// The keys of lookups whose entry is looked up again (an outer map of a map of maps): the
    /// inner lookup is the one keyed by all its components, so these are no finding.
    outer_keys: HashSet<(usize, usize)>,
    /// In a helper run for a caller's caches ([`Keys::flushed_by_helper`]): the components
    /// flushed on every normal exit (`None` before the first).
    flushed_at_exits: Option<BTreeSet<String>>,
    /// What each method of `self` the body calls leaves flushed, by the helper's index.
    helper_flushes: HashMap<usize, BTreeSet<String>>,
    /// The ranges of values matched only to be tested (`matches!(&self.last, ..)`): a single
    /// slot read there serves nothing, and is no finding (its comparisons still validate).
    tested: HashSet<Range<usize>>,
}

impl<'c, 'a> Keys<'c, 'a> {
    fn new(ctx: &'c FnCtx<'a>, def: Option<&'c FnDef<'a>>, depth: usize, reuses: &'c [Reuse<'c>]) -> Self {
        Keys {
            ctx,
            def,
            depth,
            reuses,
            stale: BTreeMap::new(),
            returns: Built::default(),
            parts_at_exits: Vec::new(),
            unvalued: HashSet::new(),
            tails: HashMap::new(),
            entries: HashMap::new(),
            validated: HashMap::new(),
            found_in: HashMap::new(),
            outer_keys: HashSet::new(),
            flushed_at_exits: None,
            helper_flushes: HashMap::new(),
            tested: HashSet::new(),
        }
    }

    /// `place` is given a new value: what was built from its old one holds that old value,
    /// which is not the component any more (`let k = (h, self.version); self.version = new;`
    /// leaves `k` without the version), and a cache emptied for its old value may hold entries
    /// of the old one under the new.
    fn component_changed(&self, state: &mut State, place: &Place) {
        for (at, Built(built)) in state.built.map.iter_mut() {
            if let Some(built) = built.as_mut().filter(|_| !at.starts_with(place)) {
                built.retain(|p| !p.starts_with(place));
            }
        }
        let changed: Vec<&String> = self.reuses.iter().flat_map(|r| &r.key).filter(|(k, _)| k.starts_with(place)).map(|(_, t)| t).collect();
        state.flushed.0.retain(|t| !changed.contains(&t));
        // An entry built for the old value.
        state.current.0.retain(|c| {
            let (_, component) = c.split_once('\u{0}').unwrap_or_default();
            !changed.iter().any(|t| t.as_str() == component)
        });
    }

    /// `self.sync()` of a method that empties a cache of `self` when a stamp differs from the
    /// component (`if self.filled_under != self.adapter_version { self.kv.clear(); .. }`): the
    /// components it leaves flushed on every normal exit, computed by running it on the caches
    /// of `self` this function reuses (their components of `self` only: a parameter of this
    /// function is no place of the helper's).
    fn flushed_by_helper(&mut self, call: &Expr) -> BTreeSet<String> {
        let Expr::MethodCall(m) = call else { return BTreeSet::new() };
        if !matches!(dataflow::strip_parens(&m.receiver), Expr::Path(p) if p.path.is_ident("self")) || self.reuses.is_empty() {
            return BTreeSet::new();
        }
        let Some((idx, def)) = self.ctx.helper_of(call, self.def, self.depth) else { return BTreeSet::new() };
        if let Some(known) = self.helper_flushes.get(&idx) {
            return known.clone();
        }
        let of_self: Vec<Reuse> = self
            .reuses
            .iter()
            .filter(|r| r.place.base == Base::SelfValue)
            .map(|r| Reuse {
                clause: r.clause,
                place: r.place.clone(),
                static_path: None,
                place_text: r.place_text.clone(),
                key: r.key.iter().filter(|(k, _)| k.base == Base::SelfValue).cloned().collect(),
                single: r.single,
            })
            .collect();
        let mut inner = Keys::new(self.ctx, Some(def), self.depth + 1, &of_self);
        let flushed = match dataflow::solve(&mut inner, def.sig, def.body, State::default()) {
            Ok(()) => inner.flushed_at_exits.unwrap_or_default(),
            Err(dataflow::TooComplex) => BTreeSet::new(),
        };
        self.helper_flushes.insert(idx, flushed.clone());
        flushed
    }
}

impl Analysis for Keys<'_, '_> {
    type State = State;

    fn callback_runs(&mut self, call: &Expr, arg: usize) -> Option<dataflow::Runs> {
        super::callbacks::runs(self.ctx, self.def, self.depth, call, arg)
    }

    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        Some(&self.ctx.fns.macros)
    }

    fn transfer(&mut self, scopes: &Scopes, state: &mut State, e: &Expr) {
        self.flushes(scopes, state, e);
        match e {
            Expr::Binary(b) if dataflow::is_compound(&b.op) => {
                if let Some(place) = scopes.place_of(&b.left) {
                    self.component_changed(state, &place);
                }
            }
            Expr::Assign(a) => {
                if let Some(place) = scopes.place_of(&a.left) {
                    self.component_changed(state, &place);
                    // An entry known by a key that names what changed is another entry now.
                    let written = scopes.display(&place);
                    let root = written.split('.').next().unwrap_or_default();
                    state.current.0.retain(|c| !c.split('\u{0}').next().unwrap_or_default().split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|w| w == root));
                    self.refilled(scopes, state, &place, &a.right);
                    self.assign(scopes, state, &place, &a.right);
                    self.part_replaced(scopes, state, &place, self.ctx.expr_range(&a.left).start);
                } else if let Expr::Index(ix) = strip(&a.left) {
                    // `k[1] = shape;`: a key filled element by element takes in each element.
                    self.feed_into(scopes, state, &ix.expr, std::iter::once(&*a.right));
                }
            }
            Expr::Call(_) | Expr::MethodCall(_) => {
                if let Expr::MethodCall(m) = e {
                    self.stored(scopes, state, m);
                }
                self.fed(scopes, state, e);
                self.parts_assigned_by_helper(scopes, state, e);
                self.replaced_in_place(scopes, state, e);
                let flushed = self.flushed_by_helper(e);
                state.flushed.0.extend(flushed);
            }
            // `write!(key, "{:x}:{}", p.hash, v)`: the buffer takes in what is formatted into it.
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "write" || s.ident == "writeln") => {
                if let dataflow::LoweredMacro::Evaluates(args) = &*self.ctx.fns.macros.lowered(&m.mac) {
                    if let Some((buffer, formatted)) = args.split_first() {
                        self.feed_into(scopes, state, buffer, formatted.iter());
                    }
                }
            }
            // A closure kept for later (or an `async` block) looks up when it runs: its lookups,
            // with the names it binds itself read as unknown.
            Expr::Closure(_) | Expr::Async(_) if self.def.is_none() => {
                if let Some((body, masked)) = super::deferred_body(e) {
                    for sub in body {
                        self.lookup(scopes, state, sub, &masked);
                    }
                }
            }
            _ => {}
        }
        if self.def.is_none() {
            self.lookup(scopes, state, e, &HashSet::new());
            if let Expr::MethodCall(m) = e {
                self.validated_by_combinator(scopes, state, m);
                // `self.last.as_ref().is_none()`: a slot read to be tested, not served.
                if m.args.is_empty() && ["is_none", "is_some", "is_ok", "is_err"].contains(&m.method.to_string().as_str()) {
                    self.tested.insert(self.ctx.expr_range(&m.receiver));
                }
            }
        }
    }

    fn tested(&mut self, _scopes: &Scopes, _state: &mut State, scrutinee: &Expr) {
        self.tested.insert(self.ctx.expr_range(scrutinee));
    }

    fn bind(&mut self, scopes: &Scopes, state: &mut State, local: LocalId, init: Option<&Expr>) {
        self.entries.remove(&local);
        self.found_in.remove(&local);
        if let Some(found) = init.and_then(|i| self.outer_lookup(scopes, state, i)) {
            self.found_in.insert(local, found);
        }
        if let Some(key) = init.and_then(|i| self.found_by(i)) {
            let r = self.ctx.expr_range(key);
            self.entries.insert(local, (r.start, r.end));
        } else if let Some(read) = init.and_then(|i| self.single_found(scopes, state, i, false)) {
            self.entries.insert(local, read);
        }
        let place = Place { base: Base::Local(local), fields: Vec::new() };
        match init {
            Some(init) => self.assign(scopes, state, &place, init),
            None => {
                state.built.clear_under(&place);
                state.caches.clear_under(&place);
                state.built.map.insert(place, Built(Some(BTreeSet::new())));
                self.unvalued.insert(local);
            }
        }
    }

    fn block_value(&mut self, scopes: &Scopes, state: &mut State, value: &Expr) {
        let built = self.built_from(scopes, state, value, &HashSet::new());
        self.tails.insert(self.ctx.expr_range(value), built);
    }

    /// `for t in &p.tokens { t.hash(&mut h); }`: every item of the collection is fed into `h`,
    /// which is built from the collection however many items it has (none included); so is a
    /// rolling hash, `h = h.wrapping_mul(31).wrapping_add(t as u64)`, `h ^= t`.
    fn after_for(&mut self, scopes: &Scopes, state: &mut State, f: &syn::ExprForLoop) {
        let item = match &*f.pat {
            syn::Pat::Ident(item) => item,
            syn::Pat::Reference(r) => match &*r.pat {
                syn::Pat::Ident(item) => item,
                _ => return,
            },
            _ => return,
        };
        let item = item.ident.to_string();
        for stmt in &f.body.stmts {
            let syn::Stmt::Expr(e, _) = stmt else { continue };
            let folded = match dataflow::strip_parens(e) {
                Expr::Assign(a) => Some((&*a.left, &*a.right, true)),
                Expr::Binary(b) if dataflow::is_compound(&b.op) => Some((&*b.left, &*b.right, false)),
                _ => None,
            };
            if let Some((target, value, plain)) = folded {
                let read = dataflow::names_read(value);
                let accumulates = !plain || read.contains(&super::expr_text(strip(target)));
                if accumulates && read.contains(&item) {
                    self.feed_into(scopes, state, target, std::iter::once(&*f.expr));
                }
                continue;
            }
            let Expr::MethodCall(m) = dataflow::strip_parens(e) else { continue };
            let fed = match (m.method.to_string().as_str(), m.args.first()) {
                // `t.hash(&mut h)`
                ("hash", Some(h)) if super::expr_text(strip(&m.receiver)) == item => Some(h),
                // `h.update(t)`, `h.write_u32(*t)`, `h.write_u64(w as u64)`
                (method, Some(arg)) if (FEEDING.contains(&method) || method.starts_with("write_")) && dataflow::names_read(arg).contains(&item) => Some(&*m.receiver),
                _ => None,
            };
            if let Some(target) = fed {
                self.feed_into(scopes, state, target, std::iter::once(&*f.expr));
            }
        }
    }

    /// A `for` loop's names take an element of what it walks, each built from it: `for h in
    /// hashes` (the blocks of a prefix, looked up one by one) is built from `hashes`, `for c in
    /// prompt.tokens.chunks(16)` from `prompt.tokens`.
    fn bind_each(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], iterated: &Expr) {
        self.bind_from(scopes, state, locals, iterated);
    }

    /// A name a pattern takes from a value (`if let Some(h) = h`, `let Req { hash } = r`, a
    /// `match` arm) is built from that value, and designates the caches it designates (`if let
    /// Ok(map) = self.kv.lock()`).
    fn bind_from(&mut self, scopes: &Scopes, state: &mut State, locals: &[LocalId], scrutinee: &Expr) {
        let taken: Vec<LocalId> = locals.iter().copied().filter(|l| self.unvalued.contains(l)).collect();
        self.unvalued.clear();
        // The names a pattern takes from a single slot's value are that value's parts (the
        // entry), not the cache; a name bound to the slot itself (`let cell = &self.mask;`)
        // takes no value from it.
        let mut entry_of_slot = false;
        if let Some(found) = self.outer_lookup(scopes, state, scrutinee) {
            self.found_in.extend(locals.iter().map(|l| (*l, found.clone())));
        }
        if let Some(key) = self.found_by(scrutinee) {
            let r = self.ctx.expr_range(key);
            self.entries.extend(locals.iter().map(|l| (*l, (r.start, r.end))));
        } else if let Some(read) = self.single_found(scopes, state, scrutinee, !taken.is_empty()) {
            self.entries.extend(locals.iter().map(|l| (*l, read)));
            entry_of_slot = true;
        }
        if taken.is_empty() {
            return;
        }
        let built = self.built_from(scopes, state, scrutinee, &HashSet::new());
        let caches = if entry_of_slot { BTreeSet::new() } else { self.caches_of(scopes, state, scrutinee) };
        for local in taken {
            let place = Place { base: Base::Local(local), fields: Vec::new() };
            state.built.map.insert(place.clone(), Built(Some(built.clone())));
            if !caches.is_empty() {
                state.caches.map.insert(place, MaySet(caches.clone()));
            }
        }
    }

    /// `Some(e) if e.version == self.adapter_version =>`, `if e.version != self.adapter_version {
    /// return None; }`: a hit whose entry is compared with a component is validated for it (an
    /// entry stamped with the version it was built for), as if the key held it.
    fn assume(&mut self, scopes: &Scopes, state: &mut State, cond: &Expr, holds: bool) {
        // `e.valid_for(self.adapter_version)` of `fn valid_for(&self, v: u64) -> bool { self.version
        // == v }`: the comparison it makes, on the receiver and the arguments.
        if let Expr::Match(m) = strip(cond) {
            return self.slot_matched(scopes, state, m, holds);
        }
        if let Expr::MethodCall(m) = strip(cond) {
            self.slot_tested(scopes, state, m, holds);
            if let Some(compared) = super::predicate_of(self.ctx, strip(cond), self.def, self.depth).and_then(|p| inline_method_predicate(&p, m)) {
                self.assume(scopes, state, &compared, holds);
            }
            return;
        }
        // A predicate written out (above) may join its comparisons: what holds of each.
        match strip(cond) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => return self.assume(scopes, state, &u.expr, !holds),
            Expr::Binary(b) if matches!((b.op, holds), (syn::BinOp::And(_), true) | (syn::BinOp::Or(_), false)) => {
                self.assume(scopes, state, &b.left, holds);
                return self.assume(scopes, state, &b.right, holds);
            }
            _ => {}
        }
        let Expr::Binary(b) = strip(cond) else { return };
        // `for &b in &self.sizes { if b >= bs { self.graphs.get(&b) .. } }`: where a local is
        // known equal to, or bounded by, a value, it is chosen by that value (the captured
        // bucket for a batch size), as `sizes.iter().find(|&&b| b >= bs)` chooses it.
        let chosen = match b.op {
            // Bounded either way (`if b < bs { continue; }` leaves `b >= bs`).
            syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_) => true,
            syn::BinOp::Eq(_) => holds,
            syn::BinOp::Ne(_) => !holds,
            _ => false,
        };
        if chosen {
            for (local, other) in [(&*b.left, &*b.right), (&*b.right, &*b.left)] {
                let Some(place @ Place { base: Base::Local(_), .. }) = scopes.place_of(local).filter(|p| p.fields.is_empty()) else { continue };
                let by = self.built_from(scopes, state, other, &HashSet::new());
                if let Some(Built(Some(built))) = state.built.map.get_mut(&place) {
                    built.extend(by);
                } else {
                    state.built.map.insert(place, Built(Some(by)));
                }
            }
        }
        // A stamp bounded by the component (`if *len >= max_pos { return t.clone(); }`: a larger
        // table serves a smaller request, as rotary tables grow) is checked against it too, as
        // the catalogue says; for a single slot, equality, or a bound that holds the way a
        // covering test reads (`covers_here`), says the one value it holds serves the component.
        let ordered = matches!(b.op, syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_));
        if !ordered && !matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) {
            return;
        }
        let equal_here = !ordered && matches!(b.op, syn::BinOp::Eq(_)) == holds;
        if equal_here {
            self.stamp_equal(scopes, state, &b.left, &b.right);
        }
        let entry_of = |e: &Expr| match scopes.place_of(e) {
            Some(Place { base: Base::Local(id), .. }) => self.entries.get(&id).copied(),
            _ => None,
        };
        let (key, other, entry_left) = match (entry_of(&b.left), entry_of(&b.right)) {
            (Some(k), None) => (k, &*b.right, true),
            (None, Some(k)) => (k, &*b.left, false),
            _ => return,
        };
        // `*len >= n` known to hold (or `*len < n` to fail): the slot's value covers the
        // component, as a test of the slot by `is_some_and(|(len, _)| *len >= n)` says.
        let covers_here = ordered && {
            let below = matches!(b.op, syn::BinOp::Lt(_) | syn::BinOp::Le(_));
            (below != entry_left) == holds
        };
        let compared = self.built_from(scopes, state, other, &HashSet::new());
        let Some(stale) = self.stale.get(&key) else { return };
        let reuse = &self.reuses[stale.reuse];
        // Where a single slot's stamp equals the component, the one value it holds is of the
        // current one: a later read of the slot on this path (`if matches!(&self.last, Some((n,
        // _)) if *n == len) { return self.last.clone().unwrap().1 }`) serves it.
        for (k, text) in &reuse.key {
            if compared.iter().any(|m| k.starts_with(m) || m.starts_with(k)) {
                self.validated.entry(key).or_default().insert(text.clone());
                if reuse.single && (equal_here || covers_here) {
                    state.flushed.0.insert(text.clone());
                }
            }
        }
    }

    /// `let (h, v) = (prompt.hash, 0)`, `let Req { hash, .. } = req`: a name a pattern takes from
    /// a part of the value is built from that part only (`h` covers the hash, not the version).
    ///
    /// `let Self { plans, .. } = self;`: the name taken from a field designates that field of
    /// the caches the value designates.
    fn bind_parts(&mut self, scopes: &Scopes, state: &mut State, parts: &[(LocalId, Vec<String>)], scrutinee: &Expr) {
        let whole = self.caches_of(scopes, state, scrutinee);
        for (local, path) in parts.iter().filter(|(_, path)| !path.is_empty()) {
            let place = Place { base: Base::Local(*local), fields: Vec::new() };
            if let Some(built) = self.part_built(scopes, state, scrutinee, path) {
                state.built.map.insert(place.clone(), Built(Some(built)));
            }
            let caches: BTreeSet<Place> = whole.iter().map(|c| c.fields_then(path)).collect();
            if caches.iter().any(|c| self.reuses.iter().any(|r| r.place.starts_with(c))) {
                state.caches.map.insert(place, MaySet(caches));
            } else {
                state.caches.map.remove(&place);
            }
        }
    }

    fn exit(&mut self, scopes: &Scopes, state: &State, exit: &dataflow::Exit<'_>) {
        let value = exit.value;
        let Some(def) = self.def else { return };
        self.flushed_at_exits = Some(match self.flushed_at_exits.take() {
            None => state.flushed.0.clone(),
            Some(before) => before.intersection(&state.flushed.0).cloned().collect(),
        });
        let params = dataflow::param_count(def.sig);
        let mut built = value.map(|v| self.built_from(scopes, state, v, &HashSet::new())).unwrap_or_default();
        // A branch of a returned `if` or `match` is chosen by its condition or scrutinee: the
        // value depends on what that reads (`if bs <= 8 { 8 } else { bs.next_power_of_two() }`,
        // a batch size's bucket, is built from `bs` on both branches).
        let chooser = match exit.branch_of {
            Some(Expr::If(i)) => Some(&*i.cond),
            Some(Expr::Match(m)) => Some(&*m.expr),
            _ => None,
        };
        if let Some(c) = chooser {
            built.extend(self.built_from(scopes, state, c, &HashSet::new()));
        }
        // Only what the caller can name: its arguments (the parameters' locals) and `self`. A
        // whole rebuilt from its parts here (`self.adapter = 0; self`) is what its parts are.
        let nameable = |p: &Place| match p.base {
            Base::Local(id) => (id as usize) < params,
            Base::SelfValue => true,
        };
        let kept = built.into_iter().filter(|p| nameable(p) && !holds_other_places(state, p));
        // A `None` returned is no key (`let k = self.key_for(b)?;`): the key is what the other
        // exits return, as an `Err(..)`'s path is no exit at all.
        let no_value = value.is_some_and(|v| matches!(crate::resolve::strip(v), Expr::Path(p) if p.path.is_ident("None")));
        if !no_value {
            self.returns.join(&Built(Some(kept.collect())));
        }
        let parts = state.built.map.iter().filter(|(p, _)| !p.fields.is_empty() && nameable(p)).map(|(p, b)| (p.clone(), b.0.iter().flatten().filter(|q| nameable(q)).cloned().collect()));
        self.parts_at_exits.push(parts.collect());
    }
}

/// The `iter()` (or another iterator over a list's entries) that a search walks: directly, or
/// through adapters that only reorder or skip entries (`iter().rev().find(..)`,
/// `iter().skip(1).find(..)`): every entry it yields is still compared by the predicate.
fn entries_searched(e: &Expr) -> Option<&syn::ExprMethodCall> {
    match strip(e) {
        Expr::MethodCall(it) if ENTRY_ITERATORS.contains(&it.method.to_string().as_str()) && it.args.is_empty() => Some(it),
        Expr::MethodCall(a) if ["rev", "skip", "take", "step_by", "by_ref"].contains(&a.method.to_string().as_str()) => entries_searched(&a.receiver),
        _ => None,
    }
}

impl<'c, 'a> Keys<'c, 'a> {
    /// `self.kv.clear()`, `self.kv = HashMap::new()`, `mem::take(&mut self.kv)`: the cache is
    /// empty, so it holds no entry of an old value of any component.
    fn flushes(&self, scopes: &Scopes, state: &mut State, e: &Expr) {
        let emptied = match e {
            // `self.mask.take()`, `self.mask = None;`: a single slot emptied.
            Expr::MethodCall(m) if (m.method == "clear" || m.method == "take") && m.args.is_empty() => Some(&*m.receiver),
            Expr::Assign(a) if is_empty_collection(&a.right) || matches!(strip(&a.right), Expr::Path(p) if p.path.is_ident("None")) => Some(&*a.left),
            Expr::Call(_) => match super::mem_move(self.ctx, e) {
                Some((super::MemMove::Take, c)) => Some(&c.args[0]),
                _ => None,
            },
            _ => None,
        };
        let Some(emptied) = emptied else { return };
        let caches = self.caches_of(scopes, state, emptied);
        for r in self.reuses.iter().filter(|r| caches.contains(&r.place)) {
            state.flushed.0.extend(r.key.iter().map(|(_, t)| t.clone()));
        }
    }

    /// `self.last = Some(Entry { seq_len, bias: build(seq_len) })`: a single slot given a value
    /// built from components holds, on this path, the value of their current values (reading it
    /// back serves it).
    fn refilled(&self, scopes: &Scopes, state: &mut State, place: &Place, value: &Expr) {
        let Some(r) = self.reuses.iter().find(|r| r.single && r.place == *place) else { return };
        let built = self.built_from(scopes, state, value, &HashSet::new());
        let covered: Vec<String> = r.key.iter().filter(|(k, _)| built.iter().any(|m| k.starts_with(m) || m.starts_with(k))).map(|(_, t)| t.clone()).collect();
        state.flushed.0.extend(covered);
    }

    /// A test of a single slot's stamp through a combinator, known to hold or fail here: `let
    /// stale = self.last.as_ref().map_or(true, |e| e.seq_len != seq_len); if stale { refill }`
    /// leaves, on the path that did not refill, a slot whose entry was built for `seq_len` (as
    /// `is_some_and(|e| e.seq_len == seq_len)` does where it holds, or `is_none_or(..)` where it
    /// fails): the one value it holds is of the current components.
    fn slot_tested(&self, scopes: &Scopes, state: &mut State, m: &syn::ExprMethodCall, holds: bool) {
        // The value the combinator gives an empty slot.
        let empty = match (m.method.to_string().as_str(), m.args.first().map(strip)) {
            ("is_some_and" | "is_ok_and", _) => false,
            ("is_none_or", _) => true,
            ("map_or", Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }))) if m.args.len() == 2 => b.value,
            _ => return,
        };
        let Some(Expr::Closure(c)) = m.args.last().map(strip) else { return };
        let Some(param) = c.inputs.first() else { return };
        self.slot_test(scopes, state, &m.receiver, SlotTest { empty, param, test: &c.body, masked: &super::names_bound_in(c) }, holds);
    }

    /// The same test written as a `match` on the slot whose arms give the answer: `let fresh =
    /// match &self.last { Some(e) => !e.fits(seq_len, heads), None => true };`.
    fn slot_matched<'m>(&self, scopes: &Scopes, state: &mut State, m: &'m syn::ExprMatch, holds: bool) {
        let [a, b] = m.arms.as_slice() else { return };
        let filled = |arm: &'m syn::Arm| match &arm.pat {
            syn::Pat::TupleStruct(t) if arm.guard.is_none() && t.path.segments.last().is_some_and(|s| s.ident == "Some") && t.elems.len() == 1 => Some((&t.elems[0], &*arm.body)),
            _ => None,
        };
        let empty = |arm: &syn::Arm| match (&arm.pat, strip(&arm.body)) {
            (syn::Pat::Ident(_) | syn::Pat::Wild(_) | syn::Pat::Path(_), Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. })) if arm.guard.is_none() => Some(b.value),
            _ => None,
        };
        if let Some(((param, test), empty)) = filled(a).zip(empty(b)).or_else(|| filled(b).zip(empty(a))) {
            return self.slot_test(scopes, state, &m.expr, SlotTest { empty, param, test, masked: &super::pattern_names(param) }, holds);
        }
        // `Some((len, _)) if *len == n => true, _ => false`: the guard is the test (its negation
        // where the arm answers `false`); the other arm answers for an empty slot and for a
        // filled one the guard turned away.
        let guarded = |arm: &'m syn::Arm| match (&arm.pat, &arm.guard, strip(&arm.body)) {
            (syn::Pat::TupleStruct(t), Some((_, guard)), Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(answer), .. }))
                if t.path.segments.last().is_some_and(|s| s.ident == "Some") && t.elems.len() == 1 =>
            {
                Some((&t.elems[0], &**guard, answer.value))
            }
            _ => None,
        };
        let Some(((param, guard, answer), empty)) = guarded(a).zip(empty(b)) else { return };
        if answer == empty {
            return;
        }
        let test: Expr = if answer { guard.clone() } else { syn::parse_quote!(!(#guard)) };
        self.slot_test(scopes, state, &m.expr, SlotTest { empty, param, test: &test, masked: &super::pattern_names(param) }, holds);
    }

    /// A test of what a single slot holds (see [`Keys::slot_tested`]) known to give `holds`.
    fn slot_test(&self, scopes: &Scopes, state: &mut State, receiver: &Expr, t: SlotTest<'_>, holds: bool) {
        // Whether the test says "built for them" by returning true (`==`, a stamp at least the
        // component, `*len >= n`, joined by `&&`) or false (`!=`, a stamp below it, `*len < n`,
        // joined by `||`, or `!` of the first).
        fn polarity(e: &Expr, is_entry: &dyn Fn(&Expr) -> bool) -> Option<bool> {
            match strip(e) {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => polarity(&u.expr, is_entry).map(|p| !p),
                Expr::Binary(b) => match b.op {
                    syn::BinOp::Eq(_) => Some(true),
                    syn::BinOp::Ne(_) => Some(false),
                    syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_) => {
                        let below = matches!(b.op, syn::BinOp::Lt(_) | syn::BinOp::Le(_));
                        match (is_entry(&b.left), is_entry(&b.right)) {
                            (true, false) => Some(!below),
                            (false, true) => Some(below),
                            _ => None,
                        }
                    }
                    syn::BinOp::And(_) => (polarity(&b.left, is_entry)? && polarity(&b.right, is_entry)?).then_some(true),
                    syn::BinOp::Or(_) => (!polarity(&b.left, is_entry)? && !polarity(&b.right, is_entry)?).then_some(false),
                    _ => None,
                },
                _ => None,
            }
        }
        // Its comparisons, under the `!`, `&&` and `||` that `polarity` read.
        fn comparisons<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
            match strip(e) {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => comparisons(&u.expr, out),
                Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                    comparisons(&b.left, out);
                    comparisons(&b.right, out);
                }
                e => out.push(e),
            }
        }
        let test = self.inline_predicates(super::tail(t.test));
        let entry = EntryParam::of(t.param);
        let Some(equal_when) = polarity(&test, &|e| entry.part(e) && is_stamp(e)) else { return };
        if holds == t.empty || holds != equal_when {
            return;
        }
        let mut found = BTreeSet::new();
        let mut leaves = Vec::new();
        comparisons(&test, &mut leaves);
        for leaf in leaves {
            self.compared(scopes, state, leaf, &EntryParam::of(t.param), t.masked, &mut found);
        }
        let mut receiver = strip(receiver);
        loop {
            let slot = self.single_read(scopes, state, receiver).or_else(|| matches!(receiver, Expr::Field(_)).then(|| self.slot_of(scopes, state, receiver)).flatten());
            if let Some(reuse) = slot.and_then(|r| self.reuses.get(r)).filter(|r| r.single) {
                state.flushed.0.extend(reuse.key.iter().map(|(_, t)| t).filter(|t| found.contains(*t)).cloned());
                return;
            }
            // `self.stamped.get(&k).is_some_and(|e| e.0 == generation)`: the entry under `k`.
            if let Some((cache, key, _)) = Self::lookup_parts(receiver) {
                let caches = self.caches_of(scopes, state, cache);
                for r in self.reuses.iter().filter(|r| !r.single && caches.contains(&r.place)) {
                    state.current.0.extend(r.key.iter().map(|(_, t)| t).filter(|t| found.contains(*t)).map(|t| current_entry(key, t)));
                }
                return;
            }
            match receiver {
                Expr::MethodCall(inner) if ["cloned", "copied", "as_ref", "as_mut"].contains(&inner.method.to_string().as_str()) => receiver = strip(&inner.receiver),
                _ => return,
            }
        }
    }

    /// `test` with each call of a predicate method written out (`!e.fits(n, h)` of `fn fits(&self,
    /// n: usize, h: usize) -> bool { self.n == n && self.h == h }` is `!(e.n == n && e.h == h)`),
    /// under `!`, `&&` and `||`.
    fn inline_predicates(&self, test: &Expr) -> Expr {
        let not = |e: Expr| Expr::Unary(syn::ExprUnary { attrs: Vec::new(), op: syn::UnOp::Not(Default::default()), expr: Box::new(e) });
        match strip(test) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => not(self.inline_predicates(&u.expr)),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                Expr::Binary(syn::ExprBinary { attrs: Vec::new(), left: Box::new(self.inline_predicates(&b.left)), op: b.op, right: Box::new(self.inline_predicates(&b.right)) })
            }
            Expr::MethodCall(m) => super::predicate_of(self.ctx, strip(test), self.def, self.depth).and_then(|p| inline_method_predicate(&p, m)).unwrap_or_else(|| test.clone()),
            _ => test.clone(),
        }
    }

    /// `self.stamped.insert(k, (generation, merged))`: the entry under `k` is built for the
    /// components it is stamped with (see [`State::current`]); stored without, for none.
    fn stored(&self, scopes: &Scopes, state: &mut State, m: &syn::ExprMethodCall) {
        if !["insert", "put", "try_insert"].contains(&m.method.to_string().as_str()) || m.args.len() != 2 {
            return;
        }
        let caches = self.caches_of(scopes, state, &m.receiver);
        let key = &m.args[0];
        let text = format!("{}\u{0}", super::expr_text(strip(key)));
        state.current.0.retain(|c| !c.starts_with(&text));
        let stamped = self.stamped_with(scopes, state, &m.args[1], &HashSet::new());
        for r in self.reuses.iter().filter(|r| !r.single && caches.contains(&r.place)) {
            let covered = r.key.iter().filter(|(k, _)| stamped.iter().any(|s| k.starts_with(s) || s.starts_with(k)));
            state.current.0.extend(covered.map(|(_, t)| current_entry(key, t)).collect::<Vec<_>>());
        }
    }

    /// `a == b` holds, one side a component and the other a field of `self` that is not built
    /// from it (the stamp the cache was filled under): the cache is of the current value.
    fn stamp_equal(&self, scopes: &Scopes, state: &mut State, a: &Expr, b: &Expr) {
        for (component, stamp) in [(a, b), (b, a)] {
            let Some(stamp_place) = scopes.place_of(stamp).filter(|p| p.base == Base::SelfValue && !p.fields.is_empty()) else { continue };
            let built = self.built_from(scopes, state, component, &HashSet::new());
            for (k, text) in self.reuses.iter().flat_map(|r| &r.key) {
                if built.contains(k) && !stamp_place.starts_with(k) && !k.starts_with(&stamp_place) {
                    state.flushed.0.insert(text.clone());
                }
            }
        }
    }

    /// A hit validated in a combinator on the lookup's result: `get(&k).filter(|e| e.version ==
    /// self.adapter_version)`, `.is_some_and(..)`, `.map_or(false, ..)`, `.take_if(..)`, a
    /// `find(..)` after a search; the component compared may be a local that holds it (`let v =
    /// self.adapter_version;`). Recorded by the range of the lookup's key.
    fn validated_by_combinator(&mut self, scopes: &Scopes, state: &State, m: &syn::ExprMethodCall) {
        if !["filter", "is_some_and", "map_or", "take_if", "find", "is_none_or"].contains(&m.method.to_string().as_str()) {
            return;
        }
        // The lookup's key, or the read of a single slot (`self.last.as_ref().filter(|(n, d, _)|
        // ..)`: its stamps kept beside the value), by the range its lookup is recorded under.
        let mut receiver = strip(&m.receiver);
        let recorded = loop {
            if let Some((_, key, _)) = Self::lookup_parts(receiver) {
                break self.ctx.expr_range(key);
            }
            if self.single_read(scopes, state, receiver).is_some() {
                break self.ctx.expr_range(receiver);
            }
            match receiver {
                Expr::MethodCall(inner) if ["cloned", "copied", "as_ref", "as_mut", "iter", "into_iter"].contains(&inner.method.to_string().as_str()) => receiver = strip(&inner.receiver),
                _ => return,
            }
        };
        let Some(c) = m.args.iter().rev().find_map(|a| match strip(a) {
            Expr::Closure(c) => Some(c),
            _ => None,
        }) else {
            return;
        };
        let Some(param) = c.inputs.first() else { return };
        let masked = super::names_bound_in(c);
        let mut found = BTreeSet::new();
        self.compared(scopes, state, &c.body, &EntryParam::of(param), &masked, &mut found);
        if !found.is_empty() {
            self.validated.entry((recorded.start, recorded.end)).or_default().extend(found);
        }
    }

    /// The components that a condition compares a part of the closure's parameter with: for
    /// equality, or bounded by (`*len >= n`: a larger table serves a smaller request, as in an
    /// `if`); each of `a == x && b == y`, and of the staleness test `a != x || b != y`.
    fn compared(&self, scopes: &Scopes, state: &State, e: &Expr, param: &EntryParam, masked: &HashSet<String>, found: &mut BTreeSet<String>) {
        /// A test that the entry differs: `!=`, an ordering, or `||` of them.
        fn differs(e: &Expr) -> bool {
            match strip(e) {
                Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => differs(&b.left) && differs(&b.right),
                Expr::Binary(b) => matches!(b.op, syn::BinOp::Ne(_) | syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_)),
                _ => false,
            }
        }
        match strip(e) {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) || (matches!(b.op, syn::BinOp::Or(_)) && differs(e)) => {
                self.compared(scopes, state, &b.left, param, masked, found);
                self.compared(scopes, state, &b.right, param, masked, found);
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_) | syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_)) => {
                // A bound is a stamp's (`*len >= n`), not a value computed from the entry
                // (`e.tokens.len() as u64 <= v` checks no stamp).
                let ordered = !matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_));
                for (entry, other) in [(&b.left, &b.right), (&b.right, &b.left)] {
                    if !param.part(entry) || (ordered && !is_stamp(entry)) {
                        continue;
                    }
                    let built = self.built_from(scopes, state, other, masked);
                    let keys = self.reuses.iter().flat_map(|r| &r.key);
                    found.extend(keys.filter(|(k, _)| built.iter().any(|p| k.starts_with(p) || p.starts_with(k))).map(|(_, t)| t.clone()));
                }
            }
            Expr::Block(b) => {
                if let Some(syn::Stmt::Expr(tail, None)) = b.block.stmts.last() {
                    self.compared(scopes, state, tail, param, masked, found);
                }
            }
            _ => {}
        }
    }

    /// `place` holds the value of `init`: what it is built from (a tuple's elements also into
    /// `place.0`, `place.1`, ..), and the caches it designates.
    fn assign(&self, scopes: &Scopes, state: &mut State, place: &Place, init: &Expr) {
        let built = self.built_from(scopes, state, init, &HashSet::new());
        let caches = self.caches_of(scopes, state, init);
        let mut parts = Vec::new();
        self.parts_built(scopes, state, init, &mut Vec::new(), &mut parts);
        state.built.clear_under(place);
        state.caches.clear_under(place);
        state.built.map.insert(place.clone(), Built(Some(built)));
        for (path, b) in parts {
            state.built.map.insert(place.fields_then(&path), Built(Some(b)));
        }
        if !caches.is_empty() {
            state.caches.map.insert(place.clone(), MaySet(caches));
        }
    }

    /// What each part of a constructed value is built from, by its path (`Key(h, v)`: `.0`
    /// and `.1`; a tuple; a struct literal, and the parts of the values it nests).
    fn parts_built(&self, scopes: &Scopes, state: &State, init: &Expr, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, BTreeSet<Place>)>) {
        if let Some(inner) = pointee(init) {
            return self.parts_built(scopes, state, inner, at, out);
        }
        let parts: Vec<(String, &Expr)> = match strip(init) {
            Expr::Tuple(t) => t.elems.iter().enumerate().map(|(i, el)| (i.to_string(), el)).collect(),
            // A tuple struct's constructor, `Key(p.hash, v)`.
            Expr::Call(c) if is_tuple_constructor(&c.func) => c.args.iter().enumerate().map(|(i, el)| (i.to_string(), el)).collect(),
            // `Key { a: x, ..base }` of a struct whose fields are known: the others are `base`'s.
            Expr::Struct(s) if s.rest.is_some() => {
                let Some(others) = self.updated_fields(scopes, init) else { return };
                for part in others {
                    if let Some(name) = part.fields.last() {
                        at.push(name.clone());
                        out.push((at.clone(), self.read(state, part.clone())));
                        at.pop();
                    }
                }
                s.fields.iter().map(|f| (dataflow::member_name(&f.member), &f.expr)).collect()
            }
            Expr::Struct(s) => s.fields.iter().map(|f| (dataflow::member_name(&f.member), &f.expr)).collect(),
            _ => return,
        };
        for (name, part) in parts {
            at.push(name);
            out.push((at.clone(), self.built_from(scopes, state, part, &HashSet::new())));
            if at.len() < 4 {
                self.parts_built(scopes, state, part, at, out);
            }
            at.pop();
        }
    }

    /// The fields a struct update (`Key { device: 0, ..full }`) takes from its base, as parts
    /// of the base's place: the fields of the struct (one of this file) not written. `None`: no
    /// struct update, a base that is no place, or a struct whose fields are not known.
    fn updated_fields(&self, scopes: &Scopes, e: &Expr) -> Option<Vec<Place>> {
        let Expr::Struct(st) = strip(e) else { return None };
        // `..full`, or a copy of it (`..self.clone()`): the same fields.
        let mut rest = strip(st.rest.as_deref()?);
        while let Expr::MethodCall(m) = rest {
            if !(m.args.is_empty() && ["clone", "to_owned"].contains(&m.method.to_string().as_str())) {
                break;
            }
            rest = strip(&m.receiver);
        }
        let base = scopes.place_of(rest)?;
        let ty = st.path.segments.last()?.ident.to_string();
        let fields = self.ctx.resolver.fields.fields_of(&ty)?;
        let written: Vec<String> = st.fields.iter().map(|f| dataflow::member_name(&f.member)).collect();
        Some(fields.iter().filter(|f| !written.contains(f)).map(|f| base.field(f)).collect())
    }

    /// `k.1 = 0;`, `k.adapter = 0;` after the key was built (`part` is `k.adapter`; a whole
    /// place is no part): the whole is built from its parts
    /// as they are now. Its parts are those its constructor gave (`Key(h, v)`, a tuple, a
    /// struct literal), or, for a copy of one whole value (`let mut k = req.clone();`, `Req {
    /// label: 1, ..req.clone() }`), the fields of its struct (where its type is known: else it
    /// is left as it was), each taken from the same field of what it was copied from.
    fn part_replaced(&self, scopes: &Scopes, state: &mut State, part: &Place, at: usize) {
        let Some((field, whole)) = part.fields.split_last() else { return };
        let whole = &Place { base: part.base.clone(), fields: whole.to_vec() };
        let is_part = |p: &Place| p.fields.len() == whole.fields.len() + 1 && p.starts_with(whole);
        let recorded = state.built.map.keys().any(|p| is_part(p) && p.fields.last().is_some_and(|f| f != field));
        if !recorded {
            let sig = self.def.map_or(self.ctx.sig, |d| d.sig);
            // `self` or a parameter, whole: its other fields are its own (`self.adapter = 0;
            // self` returns the receiver's other fields), and its type is written.
            // A field of one (`self.key.dtype = d;` in a builder that wraps the key): the
            // type its fields declare, down from the whole's.
            let own_type = match whole.base {
                Base::SelfValue => Some(self.def.map_or(self.ctx.self_type.map(str::to_string), |d| d.self_type.clone())),
                Base::Local(id) if (id as usize) < dataflow::param_count(sig) => {
                    Some(sig.inputs.iter().filter_map(|a| if let syn::FnArg::Typed(t) = a { Some(&*t.ty) } else { None }).nth(id as usize).and_then(crate::resolve::type_name))
                }
                Base::Local(_) => None,
            };
            let own_type = match own_type {
                Some(Some(mut ty)) if !whole.fields.is_empty() => whole.fields.iter().try_for_each(|f| {
                    ty = self.ctx.resolver.fields.field_type(&ty, f)?.to_string();
                    Some(())
                }).map(|()| Some(ty)),
                _ if !whole.fields.is_empty() => None,
                whole_type => whole_type,
            };
            let (ty, sources) = match own_type {
                Some(ty) => (ty, vec![whole.clone()]),
                None => {
                    let Some(Built(Some(copied))) = state.built.map.get(whole).cloned() else { return };
                    let Base::Local(id) = whole.base else { return };
                    // Its type, or that of the one local it is a copy of (`req.clone()` of `req: &Req`).
                    let type_of = |id: LocalId| self.ctx.env().type_of_at(scopes.name(id), at).map(str::to_string);
                    // A local it was copied from through another (`let k = req.clone(); let mut
                    // k = k;`) stands for what that one holds, which is among them.
                    let direct: Vec<Place> = copied.into_iter().filter(|p| p != whole && !holds_other_places(state, p)).collect();
                    let source = match direct.as_slice() {
                        [Place { base: Base::Local(s), fields }] if fields.is_empty() => Some(*s),
                        _ => None,
                    };
                    // Only a copy of one whole value (`req.clone()`) has its fields where that value has them.
                    let Some(source) = source else { return };
                    let ty = whole.fields.is_empty().then(|| type_of(id).or_else(|| type_of(source))).flatten();
                    (ty, direct)
                }
            };
            let Some(others) = ty.as_deref().and_then(|ty| self.ctx.resolver.fields.fields_of(ty)) else { return };
            for other in others.iter().filter(|f| *f != field) {
                let from: BTreeSet<Place> = sources.iter().map(|p| p.field(other)).collect();
                state.built.map.insert(whole.field(other), Built(Some(from)));
            }
        }
        let mut built = BTreeSet::new();
        for (_, b) in state.built.map.iter().filter(|(p, _)| is_part(p)) {
            built.extend(b.0.iter().flatten().cloned());
        }
        state.built.map.insert(whole.clone(), Built(Some(built)));
        self.part_replaced(scopes, state, whole, at);
    }

    /// A part given a value built from `from` other than by `part = ..` (`mem::take`, a helper
    /// that assigns it), as an assignment gives it one.
    fn part_set(&self, scopes: &Scopes, state: &mut State, part: Place, from: BTreeSet<Place>, at: usize) {
        state.built.clear_under(&part);
        state.built.map.insert(part.clone(), Built(Some(from)));
        self.part_replaced(scopes, state, &part, at);
    }

    /// A key built up in place: `p.hash.hash(&mut h)` (a `&mut` argument takes in what the
    /// receiver and the other arguments are built from), `h.write_u64(v)`, `key.push_str(&s)`
    /// (a receiver fed by a method of [`FEEDING`] takes in its arguments). What it held stays.
    fn fed(&self, scopes: &Scopes, state: &mut State, e: &Expr) {
        let (receiver, args) = call_args(e);
        let mut targets: Vec<(Place, Vec<&Expr>)> = Vec::new();
        // `req.hash(&mut h)` of a type whose `Hash` impl (in this file) feeds some of its fields:
        // the hasher takes in those fields only.
        if let (Expr::MethodCall(m), [arg]) = (e, args.as_slice()) {
            let hashed = (m.method == "hash").then(|| self.hashed_fields(scopes, &m.receiver)).flatten();
            if let (Some((whole, fields)), Expr::Reference(r)) = (hashed, dataflow::strip_parens(arg)) {
                if let (Some(_), Some(place)) = (r.mutability, scopes.place_of(&r.expr)) {
                    let mut built = self.read(state, place.clone());
                    for f in fields {
                        built.extend(self.read(state, whole.field(&f)));
                    }
                    state.built.map.insert(place, Built(Some(built)));
                    return;
                }
            }
        }
        for (i, arg) in args.iter().enumerate() {
            if let Expr::Reference(r) = dataflow::strip_parens(arg) {
                if let (Some(_), Some(place)) = (r.mutability, scopes.place_of(&r.expr)) {
                    let others = receiver.into_iter().chain(args.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, a)| *a)).collect();
                    targets.push((place, others));
                }
            }
        }
        if let (Expr::MethodCall(m), Some(place)) = (e, receiver.and_then(|r| scopes.place_of(r))) {
            let method = m.method.to_string();
            if FEEDING.contains(&method.as_str()) || method.starts_with("write_") {
                targets.push((place, args.clone()));
            }
        }
        for (place, from) in targets {
            self.feed_place(scopes, state, place, from.into_iter());
        }
    }

    /// The place `receiver` is and the fields its type's `hash` method (a `Hash` impl of this
    /// file, or of the file of the crate that implements it for the type's definition path) feeds,
    /// where that method reads `self` only through fields (`self.tokens.hash(state)`).
    fn hashed_fields(&self, scopes: &Scopes, receiver: &Expr) -> Option<(Place, Vec<String>)> {
        let place = scopes.place_of(receiver).filter(|p| p.fields.is_empty())?;
        let Base::Local(id) = place.base else { return None };
        let at = self.ctx.expr_range(receiver).start;
        let ty = self.ctx.env().type_of_at(scopes.name(id), at)?;
        let ty = ty.rsplit("::").next().unwrap_or(ty);
        let is_hash = |d: &crate::analysis::FnDef| d.sig.ident == "hash" && d.sig.receiver().is_some() && d.sig.inputs.len() == 2;
        let fields = match self.ctx.fns.defs.iter().find(|d| d.self_type.as_deref() == Some(ty) && is_hash(d)) {
            Some(def) => self_fields_read(def.body),
            None => {
                let written = self.ctx.resolver.type_of(receiver, self.ctx.self_type, self.ctx.env())?;
                self.ctx.resolver.owner_paths(&written, self.ctx.self_type).into_iter().find_map(|mut path| {
                    path.push("hash".to_string());
                    self.ctx.with_foreign_fn(&path, |_, def| is_hash(def).then(|| self_fields_read(def.body)).flatten()).flatten()
                })
            }
        }?;
        Some((place, fields))
    }

    /// `target` (a place, or `&mut` one) takes in what `from` is built from.
    fn feed_into<'e>(&self, scopes: &Scopes, state: &mut State, target: &Expr, from: impl Iterator<Item = &'e Expr>) {
        if let Some(place) = scopes.place_of(target) {
            self.feed_place(scopes, state, place, from);
        }
    }

    fn feed_place<'e>(&self, scopes: &Scopes, state: &mut State, place: Place, from: impl Iterator<Item = &'e Expr>) {
        let mut fed = BTreeSet::new();
        for f in from {
            fed.extend(self.built_from(scopes, state, f, &HashSet::new()));
        }
        // Its parts, as a helper left them (`h.0` of `fn write_u64(&mut self, v) { self.0 ^= v }`),
        // took it in too: a later read of one (`fn finish(&self) -> u64 { self.0 }`) has it.
        for (_, built) in state.built.map.iter_mut().filter(|(p, _)| p.starts_with(&place) && p.fields.len() > place.fields.len()) {
            if let Built(Some(b)) = built {
                b.extend(fed.iter().cloned());
            }
        }
        let mut built = self.read(state, place.clone());
        built.extend(fed);
        state.built.map.insert(place, Built(Some(built)));
    }

    /// What the part of `e` at `path` (tuple elements by position, then fields) is built from:
    /// an element of a tuple or a field of a struct literal, or the part of a place. `None`
    /// where the part cannot be told apart (a call's value): the whole value then counts.
    fn part_built(&self, scopes: &Scopes, state: &State, e: &Expr, path: &[String]) -> Option<BTreeSet<Place>> {
        let Some((first, rest)) = path.split_first() else { return Some(self.built_from(scopes, state, e, &HashSet::new())) };
        match strip(e) {
            Expr::Tuple(t) => self.part_built(scopes, state, t.elems.iter().nth(first.parse().ok()?)?, rest),
            Expr::Struct(s) => {
                let field = s.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(n) if n == first))?;
                self.part_built(scopes, state, &field.expr, rest)
            }
            other => scopes.place_of(other).map(|p| self.read(state, p.fields_then(path))),
        }
    }

    /// The caches an expression designates: a place through guards and references, or a local
    /// bound to one.
    fn caches_of(&self, scopes: &Scopes, state: &State, e: &Expr) -> BTreeSet<Place> {
        if self.single_read(scopes, state, strip(e)).is_some() {
            // The value a single slot holds (`let m = self.mask.get_or_init(..);`) is no cache.
            return BTreeSet::new();
        }
        match strip(e) {
            Expr::MethodCall(m) if super::takes_guard(m) || (m.args.len() <= 1 && { let name = m.method.to_string(); super::UNWRAPS.contains(&name.as_str()) || VIEWS.contains(&name.as_str()) }) => self.caches_of(scopes, state, &m.receiver),
            // `self.m.read().ok()?`, `self.m.read().map_err(..)?`: a poisoned lock is an early
            // return, the guard the cache.
            Expr::Try(t) => match strip(&t.expr) {
                Expr::MethodCall(adapted) if crate::resolve::ERROR_ADAPTERS.contains(&adapted.method.to_string().as_str()) => self.caches_of(scopes, state, &adapted.receiver),
                _ => self.caches_of(scopes, state, &t.expr),
            },
            // `self.kv.read().await`: tokio's locks are awaited.
            Expr::Await(a) => self.caches_of(scopes, state, &a.base),
            // `match self.kv.read() { Ok(g) => g, Err(p) => p.into_inner() }`.
            Expr::Match(_) => super::guard_step(strip(e)).map(|guard| self.caches_of(scopes, state, guard)).unwrap_or_default(),
            other => match scopes.place_of(other) {
                Some(p) => designated(state, &p),
                None => self.static_named(other).into_iter().collect(),
            },
        }
    }

    /// The `static` cache a path names (`PLANS`, `crate::cache::PLANS`): one whose path ends the
    /// same way (a local of that name is a place, never this).
    fn static_named(&self, e: &Expr) -> Option<Place> {
        let Expr::Path(p) = e else { return None };
        let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).filter(|s| s != "crate" && s != "self").collect();
        self.reuses.iter().find_map(|r| {
            let path = r.static_path.as_ref()?;
            let n = written.len().min(path.len());
            (n > 0 && written[written.len() - n..] == path[path.len() - n..]).then(|| r.place.clone())
        })
    }

    /// What the parts of a stored value are built from: the fields of a struct literal, the
    /// elements of a tuple, the fields of a local built as one.
    fn stamped_with(&self, scopes: &Scopes, state: &State, value: &Expr, masked: &HashSet<String>) -> BTreeSet<Place> {
        if let Some(inner) = pointee(value) {
            return self.stamped_with(scopes, state, inner, masked);
        }
        match strip(value) {
            // `insert(h, e.clone())`, the entry kept to be returned too: a copy has its parts.
            Expr::MethodCall(m) if m.args.is_empty() && (m.method == "clone" || m.method == "to_owned") => self.stamped_with(scopes, state, &m.receiver, masked),
            Expr::Struct(s) => s.fields.iter().flat_map(|f| self.built_from(scopes, state, &f.expr, masked)).collect(),
            // `Entry::new(kv, self.adapter_version)` of a constructor of the file that ends with a
            // struct literal of its parameters: the arguments it stores in the fields.
            call @ Expr::Call(c) => {
                let Some((_, def)) = self.ctx.helper_of(call, self.def, self.depth) else { return BTreeSet::new() };
                let Some(syn::Stmt::Expr(tail, None)) = def.body.stmts.last() else { return BTreeSet::new() };
                let Expr::Struct(literal) = strip(tail) else { return BTreeSet::new() };
                let params = dataflow::param_names(def.sig);
                let stored = |f: &syn::FieldValue| match strip(&f.expr) {
                    Expr::Path(p) => p.path.get_ident().and_then(|i| params.iter().position(|n| i == n)).and_then(|k| c.args.iter().nth(k)),
                    _ => None,
                };
                literal.fields.iter().filter_map(stored).flat_map(|arg| self.built_from(scopes, state, arg, masked)).collect()
            }
            Expr::Tuple(t) => t.elems.iter().flat_map(|el| self.built_from(scopes, state, el, masked)).collect(),
            other => match scopes.place_of(other) {
                Some(p) => state
                    .built
                    .map
                    .iter()
                    .filter(|(q, _)| q.starts_with(&p) && q.fields.len() > p.fields.len())
                    .flat_map(|(_, b)| b.0.iter().flatten().cloned())
                    .collect(),
                None => BTreeSet::new(),
            },
        }
    }

    /// The receiver, the key and the name of a lookup at `e`, if it is one.
    fn lookup_parts(e: &Expr) -> Option<(&Expr, &Expr, String)> {
        Some(match e {
            Expr::MethodCall(m) if KEYED_METHODS.contains(&m.method.to_string().as_str()) && !m.args.is_empty() => (&*m.receiver, &m.args[0], format!("`{}`", m.method)),
            Expr::Index(i) => (&*i.expr, &*i.index, "indexing".to_string()),
            // `self.entries.iter().find(|e| e.key == key)`: a search of a cache kept as a list of
            // entries; its key is what the predicate compares (the closure's own names masked).
            Expr::MethodCall(m) if SEARCHES.contains(&m.method.to_string().as_str()) && matches!(m.args.first().map(strip), Some(Expr::Closure(_))) => match entries_searched(&m.receiver) {
                Some(it) => (&*it.receiver, &m.args[0], format!("`{}(..)`", m.method)),
                None => return None,
            },
            // `iter().filter(|e| e.key == k).next()` (through `map`, `copied`, `cloned`): a
            // search, as `find` is; a filter whose items are counted or evicted is none.
            Expr::MethodCall(m) if (m.method == "next" || m.method == "last") && m.args.is_empty() => {
                let mut r = strip(&m.receiver);
                while let Expr::MethodCall(x) = r {
                    if !["map", "copied", "cloned"].contains(&x.method.to_string().as_str()) {
                        break;
                    }
                    r = strip(&x.receiver);
                }
                let Expr::MethodCall(filter) = r else { return None };
                if filter.method != "filter" || !matches!(filter.args.first().map(strip), Some(Expr::Closure(_))) {
                    return None;
                }
                match entries_searched(&filter.receiver) {
                    Some(it) => (&*it.receiver, &filter.args[0], format!("`filter(..).{}()`", m.method)),
                    None => return None,
                }
            }
            _ => return None,
        })
    }

    /// The lookup on a cache whose result `e` is (through `?`, `unwrap()`, `or_default()`, ..):
    /// the caches it looks up in, what its key is built from, and the key's range.
    fn outer_lookup(&self, scopes: &Scopes, state: &State, e: &Expr) -> Option<Found> {
        let mut e = strip(e);
        loop {
            match e {
                Expr::Try(t) => e = strip(&t.expr),
                Expr::MethodCall(m) if m.args.len() <= 1 && ["unwrap", "expect", "as_ref", "as_mut", "or_insert_with", "or_insert", "or_default"].contains(&m.method.to_string().as_str()) && Self::lookup_parts(e).is_none() => {
                    e = strip(&m.receiver)
                }
                _ => break,
            }
        }
        // Any entry, found by no key: `self.by_version.values().next()`, `self.by_slot.first()`,
        // and each of them, `self.by_version.values()` (walked by a `for` or an adaptor).
        if let Expr::MethodCall(m) = e {
            let method = m.method.to_string();
            let any_entry = match strip(&m.receiver) {
                Expr::MethodCall(all) if ["next", "last"].contains(&method.as_str()) && m.args.is_empty() && ["values", "values_mut", "iter", "iter_mut"].contains(&all.method.to_string().as_str()) => Some(&*all.receiver),
                receiver if ["first", "last", "first_mut", "last_mut", "values", "values_mut"].contains(&method.as_str()) && m.args.is_empty() => Some(receiver),
                _ => None,
            };
            if let Some(cache) = any_entry {
                let caches = self.caches_of(scopes, state, cache);
                let range = self.ctx.expr_range(e);
                return (!caches.is_empty()).then(|| Found { caches, built: BTreeSet::new(), key: (range.start, range.end) });
            }
        }
        let (receiver, key, _) = Self::lookup_parts(e)?;
        let caches = self.caches_of(scopes, state, receiver);
        if caches.is_empty() {
            return None;
        }
        let range = self.ctx.expr_range(key);
        Some(Found { caches, built: self.built_from(scopes, state, key, &HashSet::new()), key: (range.start, range.end) })
    }

    /// The key of the lookup whose result `e` is (through `?`, `cloned()`, `unwrap()`, ..).
    fn found_by<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        match strip(e) {
            Expr::Try(t) => self.found_by(&t.expr),
            Expr::MethodCall(m) if m.args.len() <= 1 && ["cloned", "copied", "unwrap", "expect", "as_ref", "as_mut", "or_insert_with", "or_insert", "or_default"].contains(&m.method.to_string().as_str()) => {
                Self::lookup_parts(strip(e)).map(|(_, k, _)| k).or_else(|| self.found_by(&m.receiver))
            }
            other => Self::lookup_parts(other).map(|(_, k, _)| k),
        }
    }

    /// A lookup on a cache at `e`: the key's components, recorded when some are missing.
    fn lookup(&mut self, scopes: &Scopes, state: &State, e: &Expr, masked: &HashSet<String>) {
        if let Some(i) = self.single_read(scopes, state, e).filter(|_| !root_is_masked(scopes, e, masked)) {
            let Expr::MethodCall(m) = e else { return };
            let missing = self.unchecked(state, &self.reuses[i]);
            return Stale::record(&mut self.stale, self.ctx.expr_range(e), i, &format!("`{}`", m.method), missing);
        }
        let Some((receiver, key, lookup)) = Self::lookup_parts(e) else { return };
        if root_is_masked(scopes, receiver, masked) {
            return;
        }
        // A key made of what a closure kept for later binds itself (its parameters, its `let`s)
        // is not known where the closure is made: it is judged where the closure runs, if it
        // runs here (`let lookup = |k| ..; lookup((fp, v))`).
        if dataflow::names_read(key).iter().any(|n| masked.contains(n)) {
            return;
        }
        let mut caches = self.caches_of(scopes, state, receiver);
        // A lookup on what a lookup found (a map of maps: `self.by_version.get(&v)?.get(&h)`,
        // `.entry(v).or_default().insert(h, kv)`, `per.get(&h)` of `let per = ..get(&v)?`):
        // a lookup on the outer cache, keyed by both keys; the outer lookup is no finding.
        let mut outer_built = BTreeSet::new();
        if !self.reuses.iter().any(|r| caches.contains(&r.place)) {
            let outer = match strip(receiver) {
                Expr::Path(p) => p.path.get_ident().and_then(|i| scopes.lookup(&i.to_string())).and_then(|l| self.found_in.get(&l).cloned()),
                other => self.outer_lookup(scopes, state, other),
            };
            if let Some(found) = outer {
                self.outer_keys.insert(found.key);
                caches = found.caches;
                outer_built = found.built;
            }
        }
        for (i, r) in self.reuses.iter().enumerate() {
            // A single slot's `get_or_insert_with(|| ..)` takes no key ([`Self::single_read`]).
            if !caches.contains(&r.place) || r.single {
                continue;
            }
            let mut built = self.built_from(scopes, state, key, masked);
            built.extend(outer_built.iter().cloned());
            // `insert(k, Entry { version: self.adapter_version, .. })`: an entry stamped with a
            // component (a field of a struct or tuple literal, or of a local built as one) is
            // checked against it on a hit; storing it keys nothing stale. A value computed from
            // the component (`compile(g, self.adapter_version)`) is no stamp.
            if let Expr::MethodCall(m) = e {
                if ["insert", "put", "try_insert"].contains(&m.method.to_string().as_str()) && m.args.len() == 2 {
                    built.extend(self.stamped_with(scopes, state, &m.args[1], masked));
                }
            }
            let missing: BTreeSet<String> = r
                .key
                .iter()
                .filter(|(k, t)| !built.iter().any(|m| k.starts_with(m) || m.starts_with(k)) && !state.flushed.0.contains(t) && !state.current.0.contains(&current_entry(key, t)))
                .map(|(_, t)| t.clone())
                .collect();
            if missing.is_empty() {
                continue;
            }
            Stale::record(&mut self.stale, self.ctx.expr_range(key), i, &lookup, missing);
        }
    }

    /// The components of `r` not known, on every path here, to be those the cache was filled
    /// under (see [`State::flushed`]).
    fn unchecked(&self, state: &State, r: &Reuse) -> BTreeSet<String> {
        r.key.iter().map(|(_, t)| t).filter(|t| !state.flushed.0.contains(*t)).cloned().collect()
    }

    /// The single-slot cache (its index in `reuses`) that `e` is, itself or behind a guard
    /// (`self.mask`, `g` of `let g = self.mask.lock().unwrap();`, `*self.mask.borrow()`).
    fn slot_of(&self, scopes: &Scopes, state: &State, e: &Expr) -> Option<usize> {
        let place = scopes.place_of(strip(super::guarded(e)))?;
        let designated = state.caches.map.get(&place).map_or_else(|| [place].into(), |c| c.0.clone());
        self.reuses.iter().position(|r| r.single && designated.contains(&r.place))
    }

    /// A read of a single-slot cache that serves the value it holds (`self.mask.get_or_init(..)`,
    /// `self.table.as_ref()`, `g.clone()` of its guard), by the cache's index in `reuses`: a
    /// lookup with no key. Unwrapping the guard itself (`lock().unwrap()`) reads nothing.
    fn single_read(&self, scopes: &Scopes, state: &State, e: &Expr) -> Option<usize> {
        let Expr::MethodCall(m) = e else { return None };
        let method = m.method.to_string();
        if !SINGLE_SLOT_READS.contains(&method.as_str()) || m.args.len() > 1 {
            return None;
        }
        if super::UNWRAPS.contains(&method.as_str()) && matches!(dataflow::strip_parens(&m.receiver), Expr::MethodCall(g) if super::takes_guard(g)) {
            return None;
        }
        self.slot_of(scopes, state, &m.receiver)
    }

    /// The range under which the hit `e` holds was recorded, when `e` is what a read of a single
    /// slot gave (through `?`, `cloned()`, `unwrap()`, ..), or the slot itself matched by a
    /// pattern (`if let Some((len, m)) = &self.last`: then that is the lookup, recorded here).
    fn single_found(&mut self, scopes: &Scopes, state: &State, e: &Expr, matched: bool) -> Option<(usize, usize)> {
        let mut at = dataflow::strip_parens(e);
        loop {
            if self.single_read(scopes, state, at).is_some() {
                let r = self.ctx.expr_range(at);
                return Some((r.start, r.end));
            }
            at = match at {
                Expr::Try(t) => dataflow::strip_parens(&t.expr),
                Expr::MethodCall(m) if m.args.len() <= 1 && ["cloned", "copied", "unwrap", "expect", "as_ref", "as_mut", "clone"].contains(&m.method.to_string().as_str()) => dataflow::strip_parens(&m.receiver),
                _ => break,
            };
        }
        let bare = strip(e);
        if !matched || matches!(bare, Expr::MethodCall(_)) {
            return None;
        }
        let i = self.slot_of(scopes, state, bare)?;
        let r = self.ctx.expr_range(e);
        let missing = self.unchecked(state, &self.reuses[i]);
        Stale::record(&mut self.stale, r.clone(), i, "match", missing);
        Some((r.start, r.end))
    }

    /// What a place's value is built from: the place itself, and what it (or the whole value it
    /// is part of) was built from.
    fn read(&self, state: &State, place: Place) -> BTreeSet<Place> {
        let mut out = BTreeSet::new();
        for n in (0..=place.fields.len()).rev() {
            let prefix = Place { base: place.base.clone(), fields: place.fields[..n].to_vec() };
            if let Some(Built(Some(b))) = state.built.map.get(&prefix) {
                // A whole rebuilt from its parts here (`req.adapter = 0;`: `req` is its other
                // fields, as they were, and the new adapter) holds them, not its own value.
                let rebuilt = || state.built.map.keys().any(|k| k.fields.len() == place.fields.len() + 1 && k.starts_with(&place));
                if n == place.fields.len() && !b.is_empty() && !b.contains(&place) && rebuilt() {
                    return b.clone();
                }
                out.extend(b.iter().cloned());
                break;
            }
        }
        out.insert(place);
        out
    }

    /// The places an expression's value is built from. `masked`: names bound inside the
    /// expression (closure parameters, arm patterns), which are not the locals around it.
    fn built_from(&self, scopes: &Scopes, state: &State, e: &Expr, masked: &HashSet<String>) -> BTreeSet<Place> {
        let mut out = BTreeSet::new();
        self.collect(scopes, state, e, masked, &mut out, 0);
        out
    }

    fn collect(&self, scopes: &Scopes, state: &State, e: &Expr, masked: &HashSet<String>, out: &mut BTreeSet<Place>, depth: usize) {
        if depth > 64 {
            return;
        }
        let with = |e: &Expr, bound: HashSet<String>, out: &mut BTreeSet<Place>| {
            if bound.is_empty() {
                self.collect(scopes, state, e, masked, out, depth + 1)
            } else {
                let m: HashSet<String> = masked.union(&bound).cloned().collect();
                self.collect(scopes, state, e, &m, out, depth + 1)
            }
        };
        if let Some(place) = scopes.place_of(e) {
            if !root_is_masked(scopes, e, masked) {
                out.extend(self.read(state, place));
            }
            return;
        }
        // `self.adapter.read().unwrap().id`: that field of what the guard guards, not all of it.
        if let Expr::Field(f) = strip(e) {
            if let (syn::Member::Named(name), Some(inner)) = (&f.member, super::guard_content(&f.base)) {
                if let Some(place) = scopes.place_of(inner) {
                    if !root_is_masked(scopes, inner, masked) {
                        out.extend(self.read(state, place.field(&name.to_string())));
                    }
                    return;
                }
            }
        }
        match e {
            Expr::Closure(c) => {
                let bound = super::names_bound_in(c);
                // `find_map(|e| { if e.fp == fp && .. { return Some(e.plan); } None })`: the
                // conditions under which the closure returns early decide its value too.
                if let Expr::Block(b) = strip(&c.body) {
                    for stmt in &b.block.stmts {
                        if let syn::Stmt::Expr(Expr::If(i), _) = stmt {
                            if super::returns_early(&i.then_branch) {
                                with(&i.cond, bound.clone(), out);
                            }
                        }
                    }
                }
                with(&c.body, bound, out)
            }
            // A value chosen by a branch: what the scrutinee or condition, and every branch that
            // gives a value, build (`true => (h, v), false => (h, 0)` builds `h`, not `v`).
            Expr::Match(_) | Expr::If(_) if super::branches(e).is_some() => {
                match e {
                    Expr::Match(m) => with(&m.expr, HashSet::new(), out),
                    Expr::If(i) => with(&i.cond, HashSet::new(), out),
                    _ => {}
                }
                let mut common: Option<BTreeSet<Place>> = None;
                for b in super::branches(e).unwrap_or_default() {
                    let built = match self.tail_built(b.value) {
                        Some(built) => built,
                        None => {
                            let mut built = BTreeSet::new();
                            with(b.value, b.pattern.union(&b.own).cloned().collect(), &mut built);
                            built
                        }
                    };
                    common = Some(match common {
                        None => built,
                        Some(c) => built_by_both(&c, &built),
                    });
                }
                out.extend(common.unwrap_or_default());
            }
            Expr::If(i) => {
                with(&i.cond, HashSet::new(), out);
                let mut bound = super::block_names(&i.then_branch);
                if let Expr::Let(l) = &*i.cond {
                    bound.extend(super::pattern_names(&l.pat));
                }
                if let Some(syn::Stmt::Expr(v, None)) = i.then_branch.stmts.last() {
                    with(v, bound, out);
                }
                if let Some((_, els)) = &i.else_branch {
                    with(els, HashSet::new(), out);
                }
            }
            Expr::Block(b) => {
                if let Some(syn::Stmt::Expr(v, None)) = b.block.stmts.last() {
                    match self.tail_built(v) {
                        Some(built) => out.extend(built),
                        None => with(v, super::block_names(&b.block), out),
                    }
                }
            }
            Expr::Macro(m) => self.macro_mentions(scopes, state, &m.mac, masked, out, depth),
            Expr::Call(_) | Expr::MethodCall(_) if self.helper_built(scopes, state, e, masked, out, depth) => {}
            _ => {
                // `Key { device: 0, ..full }`: the fields written, and the others of `full`.
                if let (Expr::Struct(st), Some(others)) = (e, self.updated_fields(scopes, e)) {
                    for f in &st.fields {
                        with(&f.expr, HashSet::new(), out);
                    }
                    if !st.rest.as_deref().is_some_and(|rest| root_is_masked(scopes, rest, masked)) {
                        out.extend(others.into_iter().flat_map(|part| self.read(state, part)));
                    }
                    return;
                }
                // Any other expression is built from its parts (a call that is not known: from
                // its arguments and receiver).
                let mut v = Children(Vec::new());
                syn::visit::visit_expr(&mut v, e);
                for child in v.0 {
                    with(child, HashSet::new(), out);
                }
            }
        }
    }

    /// What a block's value was built from where the block ended, on the path being walked.
    fn tail_built(&self, value: &Expr) -> Option<BTreeSet<Place>> {
        if self.tails.is_empty() {
            return None;
        }
        self.tails.get(&self.ctx.expr_range(value)).cloned()
    }

    /// A helper (see [`Self::helper_summary`]): what its returned value is built from, its parameters replaced by
    /// what the arguments are built from (a field path of a parameter by that path of the
    /// argument) and `self`'s fields by the receiver's. `false`: not a helper known here.
    fn helper_built(&self, scopes: &Scopes, state: &State, call: &Expr, masked: &HashSet<String>, out: &mut BTreeSet<Place>, depth: usize) -> bool {
        if let Some(from) = self.ctx.call_for_into(call, self.def) {
            return self.helper_built(scopes, state, &from, masked, out, depth);
        }
        let Some(summary) = self.helper_summary(call) else { return false };
        for p in summary.returns.iter() {
            self.at_call(scopes, state, call, p, masked, out, depth);
        }
        true
    }

    /// What a place of a helper's summary (a parameter's or `self`'s, at a field path) is built
    /// from at a call of it: that part of the argument (or the receiver).
    #[allow(clippy::too_many_arguments)]
    fn at_call(&self, scopes: &Scopes, state: &State, call: &Expr, p: &Place, masked: &HashSet<String>, out: &mut BTreeSet<Place>, depth: usize) {
        let (receiver, args) = call_args(call);
        let arg = match p.base {
            Base::Local(i) => args.get(i as usize).copied(),
            Base::SelfValue => receiver,
        };
        let Some(mut arg) = arg else { return };
        // A part of a tuple or a struct written at the call (`of((t.shape, t.dtype))`): that
        // element, or that field, as written.
        let mut fields: &[String] = &p.fields;
        while let Some((first, rest)) = fields.split_first() {
            let part = match dataflow::strip_parens(arg) {
                Expr::Tuple(t) => first.parse::<usize>().ok().and_then(|i| t.elems.iter().nth(i)),
                Expr::Struct(st) => st.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(n) if n == first)).map(|f| &f.expr),
                _ => None,
            };
            let Some(part) = part else { break };
            (arg, fields) = (part, rest);
        }
        let p = &Place { base: p.base.clone(), fields: fields.to_vec() };
        match scopes.place_of(arg).filter(|_| !root_is_masked(scopes, arg, masked)) {
            Some(place) => out.extend(self.read(state, place.fields_then(&p.fields))),
            None if p.fields.is_empty() => self.collect(scopes, state, arg, masked, out, depth + 1),
            // A part of a value that is no place (`req.clone().without_adapter()` returns the
            // receiver's `hash`): that part of what the value is built from.
            None => {
                let mut whole = BTreeSet::new();
                self.collect(scopes, state, arg, masked, &mut whole, depth + 1);
                out.extend(whole.into_iter().map(|w| w.fields_then(&p.fields)));
            }
        }
    }

    /// `mem::take(&mut k.adapter)` (the default, built from nothing) and `mem::replace(&mut
    /// k.adapter, v)` (built from `v`) assign the part as `k.adapter = ..` does.
    fn replaced_in_place(&self, scopes: &Scopes, state: &mut State, e: &Expr) {
        let Some((op, c)) = super::mem_move(self.ctx, e) else { return };
        let from = match op {
            super::MemMove::Take => BTreeSet::new(),
            super::MemMove::Replace => self.built_from(scopes, state, &c.args[1], &HashSet::new()),
            super::MemMove::Swap => return,
        };
        let Expr::Reference(r) = dataflow::strip_parens(&c.args[0]) else { return };
        let Some(place) = scopes.place_of(&r.expr).filter(|_| r.mutability.is_some()) else { return };
        self.part_set(scopes, state, place, from, self.ctx.expr_range(e).start);
    }


    /// The summary of the helper a call calls (of this file, or of another by its path),
    /// computed once per helper.
    fn helper_summary(&self, call: &Expr) -> Option<Arc<HelperSummary>> {
        let (_, summary, _) = super::summarised_helper(self.ctx, call, self.def, self.depth, &self.ctx.summaries.stale.helpers, &self.ctx.items.summaries.stale, summarise)?;
        Some(summary)
    }

    /// A helper that assigns parts of what it is given (`neutral(&mut k)`, `k.clear_adapter()`
    /// with `self.adapter = 0;`): those parts of the argument are built as the helper left them,
    /// and the whole from its parts, as after `k.adapter = 0;` here.
    fn parts_assigned_by_helper(&self, scopes: &Scopes, state: &mut State, call: &Expr) {
        let Some(summary) = self.helper_summary(call).filter(|s| !s.parts.is_empty()) else { return };
        let (receiver, args) = call_args(call);
        // The place an argument lends the helper to assign: `&mut k`, or the receiver of a method.
        let lent = |p: &Place| -> Option<Place> {
            match p.base {
                Base::Local(i) => match dataflow::strip_parens(args.get(i as usize)?) {
                    Expr::Reference(r) if r.mutability.is_some() => scopes.place_of(&r.expr),
                    _ => None,
                },
                Base::SelfValue => scopes.place_of(receiver?),
            }
        };
        let at = self.ctx.expr_range(call).start;
        for (part, built) in &summary.parts {
            let Some(target) = lent(&Place { base: part.base.clone(), fields: Vec::new() }) else { continue };
            let mut from = BTreeSet::new();
            for q in built {
                self.at_call(scopes, state, call, q, &HashSet::new(), &mut from, 0);
            }
            self.part_set(scopes, state, target.fields_then(&part.fields), from, at);
        }
    }

    /// A macro's arguments: expressions when they are a list of them, `{name}` in format strings,
    /// and `a.b.c` chains among tokens that are not expressions.
    fn macro_mentions(&self, scopes: &Scopes, state: &State, mac: &syn::Macro, masked: &HashSet<String>, out: &mut BTreeSet<Place>, depth: usize) {
        let mut chains: Vec<Vec<String>> = Vec::new();
        match &*self.ctx.fns.macros.lowered(mac) {
            dataflow::LoweredMacro::Diverges => return,
            dataflow::LoweredMacro::Evaluates(exprs) => {
                for e in exprs {
                    if let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = e {
                        chains.extend(inline_format_args(&s.value()));
                    } else {
                        self.collect(scopes, state, e, masked, out, depth + 1);
                    }
                }
            }
            dataflow::LoweredMacro::Tokens(_) => token_chains(mac.tokens.clone(), &mut chains),
        }
        for chain in chains {
            let Some((first, fields)) = chain.split_first() else { continue };
            if masked.contains(first) {
                continue;
            }
            let base = if first == "self" {
                Base::SelfValue
            } else {
                match scopes.lookup(first) {
                    Some(id) => Base::Local(id),
                    None => continue,
                }
            };
            out.extend(self.read(state, Place { base, fields: fields.to_vec() }));
        }
    }
}

/// Whether a whole local, parameter or `self` was given the value of other places here (`let k =
/// req.clone();`, `self` rebuilt from its parts after `self.adapter = 0;`): it stands for them.
fn holds_other_places(state: &State, p: &Place) -> bool {
    p.fields.is_empty() && matches!(state.built.map.get(p), Some(Built(Some(b))) if !b.is_empty() && !b.contains(p))
}

/// What two values both are built from: a place of one that the other covers (is it, or a
/// field of a whole value the other names).
fn built_by_both(a: &BTreeSet<Place>, b: &BTreeSet<Place>) -> BTreeSet<Place> {
    let covered = |p: &Place, by: &BTreeSet<Place>| by.iter().any(|q| p.starts_with(q));
    a.iter().filter(|p| covered(p, b)).chain(b.iter().filter(|q| covered(q, a))).cloned().collect()
}

/// The direct sub-expressions of an expression.
struct Children<'ast>(Vec<&'ast Expr>);

impl<'ast> Visit<'ast> for Children<'ast> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        self.0.push(e);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// A test of a single slot's value: what it gives an empty slot, and for a value, the pattern
/// that binds it (a closure's parameter, a `Some(e)` arm's) and the condition on it.
struct SlotTest<'t> {
    empty: bool,
    param: &'t syn::Pat,
    test: &'t Expr,
    masked: &'t HashSet<String>,
}

/// A predicate method's comparisons of `self`'s fields with its parameters (`self.version ==
/// v`, joined by `&&`, `||` and `!`), on the receiver and the arguments of a call of it:
/// `e.version == self.adapter_version`.
fn inline_method_predicate(p: &dataflow::Predicate, call: &syn::ExprMethodCall) -> Option<Expr> {
    // A field of `self` is that field of the receiver; a parameter, its argument.
    let side = |e: &Expr| -> Option<Expr> {
        let mut fields = Vec::new();
        let mut at = strip(e);
        while let Expr::Field(f) = at {
            fields.push(f.member.clone());
            at = strip(&f.base);
        }
        let Expr::Path(base) = at else { return None };
        let name = base.path.get_ident()?;
        if name == "self" && !fields.is_empty() {
            let mut out = (*call.receiver).clone();
            for member in fields.into_iter().rev() {
                out = Expr::Field(syn::ExprField { attrs: Vec::new(), base: Box::new(out), dot_token: Default::default(), member });
            }
            return Some(out);
        }
        let k = p.params.iter().position(|n| name == n)?;
        fields.is_empty().then(|| call.args.iter().nth(k).cloned()).flatten()
    };
    // Comparisons, under `!`, `&&` and `||`.
    fn written_out(e: &Expr, side: &dyn Fn(&Expr) -> Option<Expr>) -> Option<Expr> {
        match strip(e) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => Some(Expr::Unary(syn::ExprUnary { attrs: Vec::new(), op: u.op, expr: Box::new(written_out(&u.expr, side)?) })),
            Expr::Binary(b) => {
                let (left, right) = match b.op {
                    syn::BinOp::And(_) | syn::BinOp::Or(_) => (written_out(&b.left, side)?, written_out(&b.right, side)?),
                    syn::BinOp::Eq(_) | syn::BinOp::Ne(_) => (side(&b.left)?, side(&b.right)?),
                    _ => return None,
                };
                Some(Expr::Binary(syn::ExprBinary { attrs: Vec::new(), left: Box::new(left), op: b.op, right: Box::new(right) }))
            }
            _ => None,
        }
    }
    written_out(&p.cond, &side)
}

/// `HashMap::new()`, `Default::default()`, `Vec::new()`: an empty collection.
fn is_empty_collection(e: &Expr) -> bool {
    let Expr::Call(c) = strip(e) else { return false };
    let Expr::Path(p) = strip(&c.func) else { return false };
    c.args.is_empty() && p.path.segments.last().is_some_and(|s| s.ident == "new" || s.ident == "default")
}

/// Whether the local an expression starts from is one of the names bound inside what is being
/// read (so not the local of that name around it).
fn root_is_masked(scopes: &Scopes, e: &Expr, masked: &HashSet<String>) -> bool {
    if masked.is_empty() {
        return false;
    }
    match scopes.place_of(strip(e)).map(|p| p.base) {
        Some(Base::Local(id)) => masked.contains(scopes.name(id)),
        Some(Base::SelfValue) => false,
        None => match strip(e) {
            Expr::MethodCall(m) => root_is_masked(scopes, &m.receiver, masked),
            Expr::Try(t) => root_is_masked(scopes, &t.expr, masked),
            Expr::Field(f) => root_is_masked(scopes, &f.base, masked),
            Expr::Index(i) => root_is_masked(scopes, &i.expr, masked),
            _ => false,
        },
    }
}

/// `a.b.c` chains among a macro's tokens.
fn token_chains(ts: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
    use proc_macro2::TokenTree;
    let mut chain: Vec<String> = Vec::new();
    let mut expect_field = false;
    let flush = |chain: &mut Vec<String>, out: &mut Vec<Vec<String>>| {
        if !chain.is_empty() {
            out.push(std::mem::take(chain));
        }
    };
    for tt in ts {
        match &tt {
            TokenTree::Ident(i) if chain.is_empty() || expect_field => {
                chain.push(i.to_string());
                expect_field = false;
                continue;
            }
            TokenTree::Punct(p) if p.as_char() == '.' && !chain.is_empty() && !expect_field => {
                expect_field = true;
                continue;
            }
            TokenTree::Group(g) => {
                flush(&mut chain, out);
                token_chains(g.stream(), out);
            }
            TokenTree::Literal(l) => {
                flush(&mut chain, out);
                if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&l.to_string()) {
                    out.extend(inline_format_args(&s.value()));
                }
            }
            _ => {}
        }
        flush(&mut chain, out);
        expect_field = false;
    }
    flush(&mut chain, out);
}

/// `{fp}` and `{g.x:?}`-style names inlined in a format string, as chains of names.
fn inline_format_args(literal: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = rest[..end].trim();
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') && !name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            out.push(name.split('.').map(str::to_string).collect());
        }
        rest = &rest[end..];
    }
    out
}

/// What `def`, a helper `depth` calls down, builds its returned value from and the parts of its
/// parameters and `self` it assigns.
fn summarise<'a>(ctx: &FnCtx<'a>, def: &FnDef<'a>, depth: usize) -> Option<Arc<HelperSummary>> {
    let mut inner = Keys::new(ctx, Some(def), depth, &[]);
    dataflow::solve(&mut inner, def.sig, def.body, State::default()).ok()?;
    // A part assigned on some paths only keeps its own value on the others.
    let mut parts: BTreeMap<Place, BTreeSet<Place>> = BTreeMap::new();
    for at_exit in &inner.parts_at_exits {
        for (p, b) in at_exit {
            parts.entry(p.clone()).or_default().extend(b.iter().cloned());
        }
    }
    for (p, b) in parts.iter_mut() {
        if inner.parts_at_exits.iter().any(|e| !e.contains_key(p)) {
            b.insert(p.clone());
        }
    }
    Some(Arc::new(HelperSummary { returns: inner.returns.0.unwrap_or_default(), parts }))
}

/// The fields of `self` a method body reads, where it reads `self` only through fields (a `Hash`
/// impl's `self.tokens.hash(state)`); `None` where it reads `self` whole or in a macro's tokens.
fn self_fields_read(body: &syn::Block) -> Option<Vec<String>> {
    struct SelfFields {
        fields: Vec<String>,
        whole: bool,
    }
    impl<'ast> Visit<'ast> for SelfFields {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Field(f) if matches!(strip(&f.base), Expr::Path(p) if p.path.is_ident("self")) => {
                    if let syn::Member::Named(n) = &f.member {
                        self.fields.push(n.to_string());
                    } else if let syn::Member::Unnamed(i) = &f.member {
                        self.fields.push(i.index.to_string());
                    }
                }
                Expr::Path(p) if p.path.is_ident("self") => self.whole = true,
                // A macro's tokens are not read: `self` may be in them.
                Expr::Macro(_) => self.whole = true,
                other => syn::visit::visit_expr(self, other),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut read = SelfFields { fields: Vec::new(), whole: false };
    read.visit_block(body);
    (!read.whole).then_some(read.fields)
}



/// A stored field or element as it is (`*len`, `e.seq_len`, `e.0`): a stamp, not a value
/// computed from one.
fn is_stamp(e: &Expr) -> bool {
    match strip(e) {
        Expr::Path(_) => true,
        Expr::Field(f) => is_stamp(&f.base),
        _ => false,
    }
}
