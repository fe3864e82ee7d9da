//! Check for `stale_result`: with `fresh(OUT, after = E)`, a serving path returns as OUT a value
//! read from the cache entry before E ran, or after E from a field of the entry that E does not
//! write.
//!
//! "From the cache entry": an expression rooted at the `reuses` place (`self.graphs[&k].out`) or
//! at a name bound by a lookup on it (`let g = self.graphs.get_mut(&k)?`, `if let Some(g) = ..`,
//! a `match` arm, a `match` or `if let` whose other branches leave), through `let`s (`let out = g.out.clone(); .. Ok(out)`), `Ok`/`Some` and
//! copies (`clone`, `to_vec`, ..), values taken out (`mem::take(&mut g.out)`), block values, and
//! the branches of a `match`/`if` value (the first branch that reads the entry). Places and names are the solver's: a
//! re-borrow of the cache (`let graphs = &mut self.graphs;`) is the cache, a name re-bound to
//! another map or value is not. "Read": where the value is evaluated (a `let` at the `let`, a
//! returned expression at the return), placed on the paths of the body by the path analysis. A
//! value that E returns is fresh. The fields E writes come from E's body when it is a method of
//! this file; a getter (`g.output()`) counts as the field it returns. Where the checker cannot
//! tell (E defined elsewhere, a getter it cannot read), a read after E is taken as fresh.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use syn::Expr;

use super::effects::Paths;
use super::Aliases;
use crate::analysis::FnCtx;
use crate::dataflow::{Base, LocalId, Place, Scopes};
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use crate::resolve::strip;
use reuse_rules::catalogue::STALE_RESULT;
use reuse_rules::contract::{AliasOut, Effect, PlaceRoot};

/// Methods that hand on (a copy of) their receiver's value: reading through them reads the receiver.
const PASS_THROUGH: &[&str] = &[
    "clone", "cloned", "copied", "to_vec", "to_owned", "into", "as_ref", "as_slice", "as_deref", "unwrap", "expect",
    "borrow", "lock", "read", "as_mut", "as_mut_slice", "deref",
];
/// Lookups on the `reuses` place that give access to an entry.
const LOOKUPS: &[&str] = &["get", "get_mut", "entry", "or_insert", "or_insert_with", "or_default", "get_or_insert_with", "peek"];

/// Where a value comes from, when it is read from the cache entry.
#[derive(Clone, Debug)]
pub struct Read {
    /// The expression that reads it.
    range: Range<usize>,
    /// The entry's field it reads (`captured_output`), with the fields inside it read
    /// (`bufs.warm`), when the syntax (or a getter) says.
    field: Option<String>,
    /// Read where this local was bound (the traces there decide "before E"), or at the exit.
    at_let: Option<LocalId>,
}

pub(super) fn check(ctx: &FnCtx, contract: &FileContract, effects: &[Effect<Range<usize>>], paths: &Paths, out: &mut Vec<Finding>) {
    let Some((clause, output, after)) = contract.fresh() else { return };
    let Some(effect) = effects.iter().position(|e| e.name() == after.name()).map(|i| i as u8) else { return };
    let written = written_fields(ctx, after.name());
    for exit in paths.exits.iter().filter(|e| e.serves()) {
        let Some(read) = &exit.read else { continue };
        // Every path reaching the exit ran E (else it is `hit_skips_effect`'s finding).
        if !exit.traces.all_ran(effect) {
            continue;
        }
        let before = read.at_let.is_some_and(|at| paths.bound.get(&at).is_none_or(|traces| !traces.all_ran(effect)));
        // A field E writes, or one inside it or around it (`bufs` of `bufs.logits` written).
        let overlaps = |w: &str, f: &str| [(w, f), (f, w)].iter().any(|(outer, inner)| inner.strip_prefix(outer).is_some_and(|rest| rest.is_empty() || rest.starts_with('.')));
        let unwritten = match (&read.field, &written) {
            (Some(f), Some(w)) => !w.iter().any(|w| overlaps(w, f)),
            _ => false,
        };
        if !before && !unwritten {
            continue;
        }
        let what = read.field.as_deref().map(|f| format!("`{f}` of the cache entry")).unwrap_or_else(|| "the cache entry".to_string());
        let (message, label) = if before {
            (
                format!("the value returned on this hit is read from {what} before `{}` runs", after.name()),
                format!("read here, before `{}`", after.name()),
            )
        } else {
            (
                format!("the value returned on this hit is read from {what}, which `{}` does not write", after.name()),
                format!("`{}` writes {}, not this", after.name(), written.as_ref().map(fields).unwrap_or_default()),
            )
        };
        let mut finding = Finding::new(&STALE_RESULT, message, Label::new(ctx.file, read.range.clone(), label))
            .with_secondary(Label::new(ctx.contract_file, clause.keyword.span.start..clause.end.end, format!("`{output}` must come from `{}` of this call", after.name())))
            .with_help(format!("return what `{}` produced: read the storage it writes after it ran", after.name()));
        if read.at_let.is_some() {
            finding = finding.with_secondary(Label::new(ctx.file, exit.range.clone(), "returned here"));
        }
        out.push(finding);
    }
}

fn fields(w: &HashSet<String>) -> String {
    let mut v: Vec<&str> = w.iter().map(String::as_str).collect();
    v.sort_unstable();
    if v.is_empty() {
        "no field of the entry".to_string()
    } else {
        super::names(&v)
    }
}

/// The part of a returned expression that is OUT: the whole value, a tuple element, a field of a
/// struct literal, inside `Ok(..)`/`Some(..)`.
fn select<'e>(output: &AliasOut<Range<usize>>, value: &'e Expr) -> Option<&'e Expr> {
    let value = unwrap_ok_some(value);
    match output {
        AliasOut::Return { .. } => Some(value),
        AliasOut::ReturnIndex { index, .. } => match strip(value) {
            Expr::Tuple(t) => t.elems.iter().nth(*index as usize).map(unwrap_ok_some),
            _ => None,
        },
        AliasOut::ReturnField { field, .. } => match strip(value) {
            Expr::Struct(st) => st
                .fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(n) if *n == field.text))
                .map(|f| unwrap_ok_some(&f.expr)),
            _ => None,
        },
    }
}

fn unwrap_ok_some(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::Call(c) if c.args.len() == 1 && matches!(strip(&c.func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Ok" || s.ident == "Some")) => {
            unwrap_ok_some(&c.args[0])
        }
        Expr::Reference(r) => unwrap_ok_some(&r.expr),
        other => super::tail(other),
    }
}

/// The `reuses` place, as the solver names places.
enum Cache {
    Place(Place),
    /// A `static` or `const` map, by its path as written.
    Static(Vec<String>),
}

/// What the path analysis keeps for `stale_result` while it walks the body: which locals hold
/// the cache entry, and where each local's value was read from it. Places are the solver's
/// (resolved locals), so a name re-bound to another map is another map, and a re-borrow of the
/// cache is the cache.
pub(super) struct Tracker<'c, 'a> {
    ctx: &'c FnCtx<'a>,
    cache: Cache,
    effect: String,
    output: AliasOut<Range<usize>>,
    aliases: Aliases,
    /// Locals bound by a lookup on the cache: `let g = P.get_mut(&k)?`, `let Some(g) = P.get(..)
    /// else {..}`, `if let Some(g) = ..`, a `match` arm.
    entries: HashSet<LocalId>,
    /// Where a local's value was read from the cache entry.
    reads: HashMap<LocalId, Read>,
    /// The same for the values blocks end with, by their range: `let out = { let early = ..;
    /// early };` names `early` where `out` is bound no more.
    tails: HashMap<Range<usize>, Read>,
}

impl<'c, 'a> Tracker<'c, 'a> {
    /// The tracker of a function whose contract has `fresh(OUT, after = E)` and `reuses(P, ..)`.
    pub(super) fn new(ctx: &'c FnCtx<'a>, contract: &FileContract) -> Option<Self> {
        let (_, output, after) = contract.fresh()?;
        let (_, place, _) = contract.reuses().next()?;
        let fields = || place.segments.iter().skip(1).map(|s| s.text.clone()).collect();
        let cache = match place.root {
            PlaceRoot::SelfField => Cache::Place(Place { base: Base::SelfValue, fields: fields() }),
            // Parameters are the first locals the solver binds, in order.
            PlaceRoot::Param => {
                let at = crate::dataflow::param_names(ctx.sig).iter().position(|p| p == place.root_name())?;
                Cache::Place(Place { base: Base::Local(at as LocalId), fields: fields() })
            }
            PlaceRoot::Static => Cache::Static(place.segments.iter().map(|s| s.text.clone()).collect()),
        };
        Some(Tracker { ctx, cache, effect: after.name().to_string(), output: output.clone(), aliases: Aliases::default(), entries: HashSet::new(), reads: HashMap::new(), tails: HashMap::new() })
    }

    pub(super) fn bind(&mut self, scopes: &Scopes, local: LocalId, init: Option<&Expr>) {
        self.aliases.bind(scopes, local, init);
        self.entries.remove(&local);
        match init.and_then(|i| self.origin(scopes, i, Some(local), 0)) {
            Some(read) => self.reads.insert(local, read),
            None => self.reads.remove(&local),
        };
    }

    pub(super) fn bind_from(&mut self, scopes: &Scopes, locals: &[LocalId], scrutinee: &Expr) {
        if self.holds_entry(scopes, scrutinee) {
            self.entries.extend(locals.iter().copied());
        }
    }

    pub(super) fn block_value(&mut self, scopes: &Scopes, value: &Expr) {
        if let Some(read) = self.origin(scopes, value, None, 0) {
            self.tails.insert(self.ctx.expr_range(unwrap_ok_some(value)), read);
        }
    }

    /// A call's value is what the closure it ran ends with (`lookup.map(|g| { ..; g.out.clone() })`):
    /// read from the entry where that value is.
    pub(super) fn call_value(&mut self, scopes: &Scopes, call: &Expr, value: &Expr) {
        if let Some(read) = self.origin(scopes, value, None, 0) {
            self.tails.insert(self.ctx.expr_range(call), read);
        }
    }

    /// `call` copies what `from` reads into the local `into` (`out.extend_from_slice(&g.output)`,
    /// `out.clone_from(&g.output)`): the local now holds that read, made here. Returns the local.
    pub(super) fn copied_into(&mut self, scopes: &Scopes, into: &Expr, from: &Expr, call: &Expr) -> Option<LocalId> {
        let Some(Place { base: Base::Local(id), fields }) = self.aliases.place_of(scopes, into) else { return None };
        if !fields.is_empty() {
            return None;
        }
        let read = self.origin(scopes, from, Some(id), 0)?;
        self.reads.insert(id, Read { range: self.ctx.expr_range(call), ..read });
        Some(id)
    }

    pub(super) fn assigned(&mut self, scopes: &Scopes, left: &Expr, right: &Expr) {
        self.aliases.assigned(scopes, left, right);
    }

    /// Where the OUT part of a returned value was read from the cache entry, if it was.
    pub(super) fn at_exit(&self, scopes: &Scopes, value: &Expr) -> Option<Read> {
        let value = select(&self.output, value)?;
        self.origin(scopes, value, None, 0)
    }

    fn is_cache(&self, scopes: &Scopes, e: &Expr) -> bool {
        match &self.cache {
            Cache::Place(place) => self.aliases.place_of(scopes, e).as_ref() == Some(place),
            Cache::Static(path) => {
                matches!(strip(e), Expr::Path(p) if p.path.segments.len() == path.len() && p.path.segments.iter().zip(path).all(|(s, n)| s.ident == n))
            }
        }
    }

    fn is_entry(&self, scopes: &Scopes, e: &Expr) -> bool {
        matches!(self.aliases.place_of(scopes, e), Some(Place { base: Base::Local(id), fields }) if fields.is_empty() && self.entries.contains(&id))
    }

    fn is_lookup(&self, scopes: &Scopes, e: &Expr) -> bool {
        self.is_lookup_in(scopes, e, true)
    }

    /// [`Self::is_lookup`]; `helpers`: a call of a method of this file on `self` whose value is a
    /// lookup on the cache counts (`let g = self.lookup(bs)?;` with `fn lookup(&mut self, bs:
    /// usize) -> Option<&mut Graph> { self.graphs.get_mut(&bs) }`), one level deep.
    fn is_lookup_in(&self, scopes: &Scopes, e: &Expr, helpers: bool) -> bool {
        match strip(e) {
            Expr::Try(t) => self.is_lookup_in(scopes, &t.expr, helpers),
            Expr::Reference(r) => self.is_lookup_in(scopes, &r.expr, helpers),
            // `Arc::clone(self.graphs.get(&bs)?)`: the same entry.
            call @ Expr::Call(_) if crate::resolve::pointee(call).is_some() => crate::resolve::pointee(call).is_some_and(|inner| self.is_lookup_in(scopes, inner, helpers)),
            call @ Expr::MethodCall(m) => {
                let name = m.method.to_string();
                (LOOKUPS.contains(&name.as_str()) && (self.is_cache(scopes, &m.receiver) || self.is_lookup_in(scopes, &m.receiver, helpers)))
                    // A search of a cache kept as a list: `self.list.iter_mut().find(|g| g.bs == bs)`.
                    || (name == "find" && matches!(strip(&m.receiver), Expr::MethodCall(it) if ["iter", "iter_mut"].contains(&it.method.to_string().as_str()) && self.is_cache(scopes, &it.receiver)))
                    // `.cloned()`/`.clone()` of an `Arc` entry is the same entry, and its lock
                    // guard holds it.
                    || ((["unwrap", "expect", "ok_or", "ok_or_else", "as_mut", "as_ref", "clone", "cloned"].contains(&name.as_str()) || super::takes_guard(m))
                        && self.is_lookup_in(scopes, &m.receiver, helpers))
                    || (helpers && matches!(strip(&m.receiver), Expr::Path(p) if p.path.is_ident("self")) && self.looks_up(scopes, call))
            }
            Expr::Index(i) => self.is_cache(scopes, &i.expr),
            _ => false,
        }
    }

    /// Whether `call` is of a helper whose value (its body's tail) is a lookup on the cache: a
    /// method of this file, or of the type's `impl` in another file (`graph_for` in
    /// `graph_util.rs`). Its `self` is this function's.
    fn looks_up(&self, scopes: &Scopes, call: &Expr) -> bool {
        let tail_looks_up = |def: &crate::analysis::FnDef| matches!(def.body.stmts.last(), Some(syn::Stmt::Expr(tail, None)) if self.is_lookup_in(scopes, tail, false));
        if let Some((_, def)) = self.ctx.helper_of(call, None, 0) {
            return tail_looks_up(def);
        }
        let Some(path) = self.ctx.foreign_helper(call, None, 0) else { return false };
        self.ctx.with_foreign_fn(&path, |_, def| tail_looks_up(def)).unwrap_or(false)
    }

    /// Whether `e`'s value is the cache entry: a lookup on the cache, or a `match`/`if` whose
    /// every branch that gives a value gives one (`match P.get_mut(&k) { Some(g) => g, None =>
    /// return None }`).
    fn holds_entry(&self, scopes: &Scopes, e: &Expr) -> bool {
        if self.is_lookup(scopes, e) {
            return true;
        }
        // The entry behind its lock guard: `let mut g = g.lock().unwrap();`.
        let mut guarded = strip(e);
        while let Some(inner) = super::guard_step(guarded) {
            guarded = strip(inner);
        }
        if !std::ptr::eq(guarded, strip(e)) && matches!(guarded, Expr::Path(_)) && self.is_entry(scopes, guarded) {
            return true;
        }
        let Some(branches) = super::branches(strip(e)) else { return false };
        !branches.is_empty()
            && branches.iter().all(|b| match root_name(b.value) {
                // A name the arm's pattern took from the entry (`Some(g) => g`).
                Some(name) if b.binds(&name) => {
                    matches!(strip(b.value), Expr::Path(_)) && !b.own.contains(&name) && b.scrutinee.is_some_and(|s| self.holds_entry(scopes, s))
                }
                _ => (matches!(strip(b.value), Expr::Path(_)) && self.is_entry(scopes, b.value)) || self.holds_entry(scopes, b.value),
            })
    }

    /// Whether `e` is read from the cache entry, and where; `at_let`: the local whose initializer
    /// `e` is (else it is read at the exit).
    fn origin(&self, scopes: &Scopes, e: &Expr, at_let: Option<LocalId>, depth: usize) -> Option<Read> {
        if depth > 8 {
            return None;
        }
        let e = unwrap_ok_some(e);
        if !self.tails.is_empty() {
            if let Some(read) = self.tails.get(&self.ctx.expr_range(e)) {
                // Read inside the block: where the block's value is bound, if it is.
                return Some(Read { at_let: read.at_let.or(at_let), ..read.clone() });
            }
        }
        // A value chosen by a `match`/`if`: what a branch that gives one reads. A branch's value
        // that names what the branch binds is known only where the branch ends (`block_value`).
        if let Some(branches) = super::branches(strip(e)) {
            return branches.iter().find_map(|b| match root_name(b.value) {
                Some(name) if b.binds(&name) => {
                    let read = self.tails.get(&self.ctx.expr_range(unwrap_ok_some(b.value)))?;
                    Some(Read { at_let: read.at_let.or(at_let), ..read.clone() })
                }
                _ => self.origin(scopes, b.value, at_let, depth + 1),
            });
        }
        // A value taken out of its place (`std::mem::take(&mut g.output)`), or converted into a
        // new one (`Vec::from(&g.output[..])`): read like a copy.
        if let Some(from) = taken_from(e).or_else(|| converted_from(e)) {
            return self.origin(scopes, from, at_let, depth + 1).map(|read| Read { range: self.ctx.expr_range(e), ..read });
        }
        // A local (or a copy of one, `out.clone()`): the entry itself, or read where it was bound.
        let mut base = strip(e);
        while let Expr::MethodCall(m) = base {
            if !PASS_THROUGH.contains(&m.method.to_string().as_str()) {
                break;
            }
            base = strip(&m.receiver);
        }
        if let Expr::Path(_) = base {
            if self.is_entry(scopes, base) {
                return Some(Read { range: self.ctx.expr_range(e), field: None, at_let });
            }
            if !self.is_cache(scopes, base) {
                let Some(Place { base: Base::Local(id), fields }) = scopes.place_of(base) else { return None };
                return if fields.is_empty() { self.reads.get(&id).cloned() } else { None };
            }
        }
        let field = self.entry_field(scopes, e)?;
        Some(Read { range: self.ctx.expr_range(e), field, at_let })
    }

    /// For an expression that reads through the cache entry: the field it reads (`None`: the
    /// whole entry, or a field the checker cannot name). `None` overall: not a read of the entry.
    fn entry_field(&self, scopes: &Scopes, e: &Expr) -> Option<Option<String>> {
        // The chain from the outside in: `g.output().clone()` → [clone, output], root `g`.
        let mut chain: Vec<Step> = Vec::new();
        let mut cur = strip(e);
        loop {
            match cur {
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    if name == self.effect {
                        return None; // produced by the effect
                    }
                    chain.push(Step::Method(name));
                    cur = strip(&m.receiver);
                }
                Expr::Field(f) => {
                    if self.is_cache(scopes, cur) {
                        break;
                    }
                    if let syn::Member::Named(n) = &f.member {
                        chain.push(Step::Field(n.to_string()));
                    }
                    cur = strip(&f.base);
                }
                Expr::Index(i) => {
                    chain.push(Step::Index);
                    cur = strip(&i.expr);
                }
                Expr::Try(t) => cur = strip(&t.expr),
                Expr::Reference(r) => cur = strip(&r.expr),
                Expr::Unary(u) => cur = strip(&u.expr),
                _ => break,
            }
        }
        let rooted_at_place = self.is_cache(scopes, cur);
        let rooted_at_entry = matches!(cur, Expr::Path(_)) && self.is_entry(scopes, cur);
        if !rooted_at_place && !rooted_at_entry {
            return None;
        }
        // From the root outwards: skip the lookup on the place, then the first field or getter.
        let mut steps = chain.into_iter().rev().peekable();
        if rooted_at_place {
            match steps.next() {
                Some(Step::Index) => {}
                Some(Step::Method(m)) if LOOKUPS.contains(&m.as_str()) => {}
                _ => return None, // `self.graphs.len()`: not an entry
            }
        }
        // The fields read, outermost first (`bufs.warm` of `g.bufs.warm.clone()`), up to the first
        // index or method past them.
        // A getter counts as the field it returns, before fields (`g.buffers().warm`) or after
        // them (`g.bufs.warm()`).
        let mut path: Vec<String> = Vec::new();
        for step in steps {
            match step {
                Step::Field(f) => path.push(f),
                Step::Method(m) if PASS_THROUGH.contains(&m.as_str()) || LOOKUPS.contains(&m.as_str()) => {
                    if !path.is_empty() {
                        break;
                    }
                }
                Step::Index if path.is_empty() => continue,
                Step::Index => break,
                Step::Method(m) => match getter_field(self.ctx, &m) {
                    Some(field) => path.extend(field.split('.').map(str::to_string)),
                    None if path.is_empty() => return Some(None),
                    None => break,
                },
            }
        }
        Some((!path.is_empty()).then(|| path.join(".")))
    }
}

/// The name an expression reads through: `g` of `g.output().clone()`, of `Some(&g.out)`.
fn root_name(e: &Expr) -> Option<String> {
    match strip(unwrap_ok_some(e)) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::MethodCall(m) => root_name(&m.receiver),
        Expr::Field(f) => root_name(&f.base),
        Expr::Index(i) => root_name(&i.expr),
        Expr::Try(t) => root_name(&t.expr),
        Expr::Reference(r) => root_name(&r.expr),
        Expr::Unary(u) => root_name(&u.expr),
        Expr::Call(_) => taken_from(e).and_then(root_name),
        _ => None,
    }
}

/// The place a call moves a value out of: `mem::take(&mut p)`, `mem::replace(&mut p, v)`,
/// `Option::take(&mut p)` (the method forms, `p.take()`, read `p` like any method of it).
fn taken_from(e: &Expr) -> Option<&Expr> {
    let Expr::Call(c) = strip(e) else { return None };
    let Expr::Path(p) = strip(&c.func) else { return None };
    let names: Vec<String> = p.path.segments.iter().rev().take(2).map(|s| s.ident.to_string()).collect();
    let takes = matches!(names.first().map(String::as_str), Some("take" | "replace")) && matches!(names.get(1).map(String::as_str), Some("mem" | "Option"));
    takes.then(|| c.args.first()).flatten()
}

/// The value a conversion copies: `Vec::from(x)`, `String::from(x)`, `T::from_iter(x)`, and a
/// copy written as a path call (`Arc::clone(&x)`, `Clone::clone(&x)`, `ToOwned::to_owned(x)`: the
/// same as `x.clone()`).
fn converted_from(e: &Expr) -> Option<&Expr> {
    let Expr::Call(c) = strip(e) else { return None };
    let Expr::Path(p) = strip(&c.func) else { return None };
    let converts = p.path.segments.len() >= 2 && p.path.segments.last().is_some_and(|s| ["from", "from_iter", "clone", "to_owned", "to_vec"].iter().any(|n| s.ident == n));
    (converts && c.args.len() == 1).then(|| &c.args[0])
}

enum Step {
    Method(String),
    Field(String),
    Index,
}

/// The fields of `self` that effect `effect` writes: from the methods of that name in this file,
/// else from the `#[reuse::effect]` functions of that name in the index, when all agree. `None`:
/// unknown.
fn written_fields(ctx: &FnCtx, effect: &str) -> Option<HashSet<String>> {
    if let Some(bodies) = ctx.fns.bodies(effect) {
        return crate::analysis::self_fields_written(&bodies);
    }
    let declared = ctx.index.effects.get(effect)?;
    // The effects the calls of that name in this body run, by their receivers' types (two
    // types of the crate may each have a `replay`); else the crate's own effects of that name,
    // where it has some (another crate's `replay` may write other fields).
    let env = ctx.env();
    let called: Vec<&crate::index::EffectFn> = super::calls_in(ctx.body)
        .into_iter()
        .filter_map(|call| match call {
            Expr::MethodCall(m) if m.method == effect => ctx.resolver.type_of(&m.receiver, ctx.self_type, env),
            _ => None,
        })
        .flat_map(|ty| ctx.resolver.owner_paths(&ty, ctx.self_type))
        .filter_map(|owner| declared.iter().find(|e| e.path.len() == owner.len() + 1 && e.path.starts_with(&owner)))
        .collect();
    let own: Vec<&crate::index::EffectFn> = declared.iter().filter(|e| e.path.first().is_some_and(|c| c == ctx.resolver.crate_name)).collect();
    let declared: Vec<&crate::index::EffectFn> = match (called.is_empty(), own.is_empty()) {
        (false, _) => called,
        (true, false) => own,
        (true, true) => declared.iter().collect(),
    };
    let first = declared.first()?.writes_self.as_ref()?;
    declared.iter().all(|e| e.writes_self.as_ref() == Some(first)).then(|| first.iter().cloned().collect())
}

/// The field of `self` a getter of this file returns (`fn output(&self) -> &[f32] { &self.output }`),
/// when every method of that name returns the same one.
fn getter_field(ctx: &FnCtx, method: &str) -> Option<String> {
    let bodies = ctx.fns.bodies(method)?;
    let mut field = None;
    for body in bodies {
        let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last() else { return None };
        let mut e = strip(tail);
        loop {
            match e {
                Expr::Reference(r) => e = strip(&r.expr),
                Expr::MethodCall(m) if PASS_THROUGH.contains(&m.method.to_string().as_str()) => e = strip(&m.receiver),
                // `self.captured[..n].to_vec()`: a part of the field.
                Expr::Index(i) => e = strip(&i.expr),
                _ => break,
            }
        }
        // `self.bufs.warm`: the field with the fields inside it read, `bufs.warm`.
        let mut path = Vec::new();
        while let Expr::Field(f) = e {
            let syn::Member::Named(n) = &f.member else { return None };
            path.push(n.to_string());
            e = strip(&f.base);
        }
        if path.is_empty() || !matches!(e, Expr::Path(p) if p.path.is_ident("self")) {
            return None;
        }
        path.reverse();
        let n = path.join(".");
        match &field {
            None => field = Some(n),
            Some(prev) if n == *prev => {}
            Some(_) => return None,
        }
    }
    field
}
