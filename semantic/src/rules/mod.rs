//! The checks, one file per rule. The rule's documentation (its `--explain` text) is the doc
//! comment of its declaration in `reuse-rules`' catalogue; the file here is the check.

mod ambiguous_call;
pub(crate) mod callbacks;
mod effect_order;
mod effects;
mod fallback_index;
mod forbidden_write;
mod hit_skips_effect;
mod memoized_effect;
mod pad_to_null_block;
mod stale_key;
mod stale_result;
mod undeclared_write;
mod use_after_donate;
mod writes;

pub(crate) use pad_to_null_block::checks_index_entries;
pub(crate) use writes::MUTATING_METHODS;

use syn::visit::Visit;
use syn::Expr;

/// Per-file memo of the rules' summaries of helpers, computed on demand and shared by the file's
/// functions.
#[derive(Default)]
pub struct Summaries {
    pad: pad_to_null_block::Summaries,
    donate: use_after_donate::Summaries,
    writes: writes::Summaries,
    fallback: fallback_index::Summaries,
    stale: stale_key::Summaries,
    effects: effects::Summaries,
    callbacks: callbacks::Summaries,
    /// Whether each helper of the file is a method, and the parameters it caches
    /// (`memoized_effect`'s cache wrappers), by position in `FileFns::defs`.
    cached_params: dataflow::Memo<usize, Option<(bool, Vec<usize>)>>,
}

/// Per-check memo of the rules' summaries of functions by definition path: the helpers of other
/// files, shared by the threads that analyse the files calling them.
#[derive(Default)]
pub struct SharedSummaries {
    pad: dataflow::SharedMemo<std::sync::Arc<pad_to_null_block::Summary>>,
    donate: dataflow::SharedMemo<(bool, std::sync::Arc<use_after_donate::Summary>)>,
    effects: dataflow::SharedMemo<std::sync::Arc<effects::Traces>, effects::Counted>,
    writes: dataflow::SharedMemo<std::sync::Arc<writes::Summary>>,
    fallback: dataflow::SharedMemo<std::sync::Arc<fallback_index::Summary>>,
    stale: dataflow::SharedMemo<std::sync::Arc<stale_key::HelperSummary>>,
    cached_params: dataflow::SharedMemo<(bool, Vec<usize>)>,
    callbacks: dataflow::SharedMemo<std::sync::Arc<callbacks::Summary>>,
    /// The constant each function of another file without arguments returns, where its body is
    /// one (`FnCtx::int_value`).
    pub(crate) constant_fns: dataflow::SharedMemo<i128>,
    /// The functions found to hand a parameter on to a kernel's index (`pad_to_null_block`'s
    /// forwarders): files that call them are analysed too, though they name no contract.
    pub(crate) forwarders: std::sync::Mutex<Vec<Forwarder>>,
    /// The names of the forwarders found in the rounds before this one: a call of another file's
    /// function of such a name may hand an index on (the rounds keep the result independent of
    /// which file a thread analysed first).
    pub(crate) known_forwarders: std::sync::RwLock<std::collections::HashSet<String>>,
    /// The names a call of a kernel that skips a sentinel may be written with (its name, and
    /// the second names re-exports give it), once per check.
    pub(crate) kernel_names: std::sync::OnceLock<std::collections::HashSet<String>>,
}

/// A function without a contract that hands a parameter on to a contract, so that its callers
/// are checked as a contract's are: as a kernel's index (`pad_to_null_block`), or as an input
/// donated to an output (`use_after_donate`); or that runs an effect on every path, which a
/// caller that caches its result skips (`memoized_effect`). By its crate and name (how the
/// prefilter finds the files that call it, in the check's later rounds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Forwarder {
    pub krate: String,
    pub name: String,
    pub method: bool,
}

impl Forwarder {
    /// Records the function `ctx` checks as a forwarder where it has no contract, some file may
    /// call it, and its summary says it hands a parameter on (`forwards`, asked only then: a
    /// summary costs a solve).
    fn record_if<'a>(ctx: &FnCtx<'a>, forwards: impl FnOnce(usize, &'a crate::analysis::FnDef<'a>) -> bool) {
        if ctx.contract.is_some() || !ctx.items.may_be_called(&ctx.sig.ident.to_string()) {
            return;
        }
        let Some((idx, def)) = ctx.fns.defs.iter().enumerate().find(|(_, d)| std::ptr::eq(d.sig, ctx.sig)) else { return };
        if !forwards(idx, def) {
            return;
        }
        let f = Forwarder { krate: ctx.resolver.crate_name.to_string(), name: ctx.sig.ident.to_string(), method: ctx.sig.receiver().is_some() };
        if let Ok(mut all) = ctx.items.summaries.forwarders.lock() {
            if !all.contains(&f) {
                all.push(f);
            }
        }
    }
}

use crate::analysis::FnCtx;
use crate::dataflow::{self, Base, LocalId, Place};
use crate::finding::Finding;

/// A file a fact of a helper of another file is in (where a padding or a fallback is written),
/// compared by path: the facts are kept in ordered sets.
#[derive(Clone, Debug)]
pub(super) struct InFile(pub(super) crate::source::FileRef);

impl PartialEq for InFile {
    fn eq(&self, other: &Self) -> bool {
        self.0.path == other.0.path
    }
}
impl Eq for InFile {}
impl PartialOrd for InFile {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InFile {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.path.cmp(&other.0.path)
    }
}

/// The summary of the helper a call designates, by the helper's name: a function of this file
/// (memoized per file in `local`) or of another file reached by its path (summarised in that
/// file's context, memoized per check in `shared`), `depth` helpers down; `true` for another
/// file's. The two steps every rule that summarises helpers takes, in one place.
#[allow(clippy::type_complexity)]
pub(super) fn summarised_helper<'a, V: Clone>(
    ctx: &FnCtx<'a>,
    call: &syn::Expr,
    within: Option<&crate::analysis::FnDef<'a>>,
    depth: usize,
    local: &dataflow::HelperMemo<V>,
    shared: &dataflow::SharedMemo<V>,
    summarise: impl for<'x> Fn(&FnCtx<'x>, &crate::analysis::FnDef<'x>, usize) -> Option<V>,
) -> Option<(String, V, bool)> {
    if let Some((idx, def)) = ctx.helper_of(call, within, depth) {
        let summary = dataflow::memoized(local, (idx, depth + 1), || summarise(ctx, def, depth + 1))?;
        return Some((def.sig.ident.to_string(), summary, false));
    }
    let path = ctx.foreign_helper(call, within, depth)?;
    let summary = dataflow::shared_memoized(shared, &path, depth + 1, || ctx.with_foreign_fn(&path, |theirs, def| summarise(theirs, def, depth + 1)).flatten())?;
    Some((path.last()?.clone(), summary, true))
}

/// What a `vec![..]` is built from, its tokens parsed as an array expression: its items, or
/// the item it repeats and how many times (`vec![x; n]`). The spans are the source's.
pub(super) enum VecItems {
    List(Vec<syn::Expr>),
    Repeat(syn::ExprRepeat),
}

/// The items of a `vec!` macro call (`None`: another macro, or tokens that are no array).
pub(super) fn vec_items(mac: &syn::Macro) -> Option<VecItems> {
    if !mac.path.is_ident("vec") {
        return None;
    }
    let tokens = &mac.tokens;
    if let Ok(r) = syn::parse2::<syn::ExprRepeat>(quote::quote!([#tokens])) {
        return Some(VecItems::Repeat(r));
    }
    syn::parse2::<syn::ExprArray>(quote::quote!([#tokens])).ok().map(|a| VecItems::List(a.elems.into_iter().collect()))
}

/// Whether a method's value is its receiver, `self` at the end of its body (a builder's setter,
/// `fn block(mut self, b: usize) -> Self { self.block = b; self }`).
pub(super) fn returns_self(def: &crate::analysis::FnDef) -> bool {
    def.has_receiver() && matches!(def.body.stmts.last(), Some(syn::Stmt::Expr(e, None)) if matches!(crate::resolve::strip(e), syn::Expr::Path(p) if p.path.is_ident("self")))
}

/// The local `e` names whole (`i`, not `m.i`).
pub(super) fn whole_local(scopes: &dataflow::Scopes, e: &syn::Expr) -> Option<dataflow::LocalId> {
    match scopes.place_of(dataflow::strip_parens(e))? {
        dataflow::Place { base: dataflow::Base::Local(id), fields } if fields.is_empty() => Some(id),
        _ => None,
    }
}

/// Whether a call may be of a function the workspace found to forward (`known`): by the name it
/// is called, the name a `use .. as` renamed, or the name of a function its path leads to
/// through re-exports (`use sched::put_row as store;` of `pub use rows::write_row as put_row;`).
pub(super) fn may_call_forwarder(ctx: &FnCtx, site: &crate::resolve::CallSite, known: &dyn Fn(&str) -> bool) -> bool {
    if known(&site.name) || ctx.resolver.imported_name(site).is_some_and(known) {
        return true;
    }
    let Some(path) = site.path.as_deref() else { return false };
    ctx.resolver.call_targets(path, ctx.self_type).iter().filter_map(|t| t.last()).any(|n| known(n))
}

/// Whether the helper `idx` of the file calls what `target` accepts (a call and its name), or a
/// helper of the file that does, to [`dataflow::MAX_SUMMARY_DEPTH`]: from names alone, before
/// any summary is computed. A breadth-first walk of the helpers it reaches by name, so the
/// answer depends on `idx` and `depth` alone (not on which helper was asked first, as a memo
/// consulted in the middle of a cycle would make it); memoized by both in `memo`.
pub(super) fn helper_reaches(ctx: &FnCtx, idx: usize, memo: &ReachMemo, target: &dyn Fn(&syn::Expr, &str) -> bool, depth: usize) -> bool {
    if let Some(known) = memo.borrow().get(&(idx, depth)) {
        return *known;
    }
    let mut seen: std::collections::HashSet<usize> = [idx].into();
    let mut level = vec![idx];
    let mut reaches = false;
    for _ in depth..dataflow::MAX_SUMMARY_DEPTH {
        let mut next = Vec::new();
        for &i in &level {
            any_call(ctx, ctx.fns.defs[i].body, |c| {
                if let Some(site) = crate::resolve::CallSite::of(c) {
                    reaches |= target(c, &site.name);
                    next.extend(ctx.fns.by_name.get(&site.name).into_iter().flatten().filter(|&&j| seen.insert(j)));
                }
                false
            });
        }
        if reaches || next.is_empty() {
            break;
        }
        level = next;
    }
    memo.borrow_mut().insert((idx, depth), reaches);
    reaches
}

/// Memo of [`helper_reaches`], by helper and depth.
pub(super) type ReachMemo = std::cell::RefCell<std::collections::HashMap<(usize, usize), bool>>;

/// The helper of this file a call in a condition designates, when its body is one condition of
/// its parameters (`fn is_null(b: u32) -> bool { b == NULL_BLOCK }`): what the solver assumes
/// for the call ([`dataflow::Analysis::predicate`]).
pub(super) fn predicate_of(ctx: &FnCtx, call: &syn::Expr, within: Option<&crate::analysis::FnDef>, depth: usize) -> Option<dataflow::Predicate> {
    let (_, def) = ctx.helper_of(call, within, depth)?;
    let cond = match def.body.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => e,
        [syn::Stmt::Expr(syn::Expr::Return(syn::ExprReturn { expr: Some(e), .. }), _)] => &**e,
        _ => return None,
    };
    if !dataflow::is_condition(cond) {
        return None;
    }
    let params = def
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            syn::FnArg::Receiver(_) => None,
            syn::FnArg::Typed(t) => Some(match &*t.pat {
                syn::Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
                _ => None,
            }),
        })
        .collect::<Option<Vec<String>>>()?;
    let reads_self = dataflow::names_read(cond).iter().any(|n| n == "self");
    Some(dataflow::Predicate { params, cond: cond.clone(), reads_self })
}

/// Runs every rule on one function.
pub fn check_fn(ctx: &FnCtx, out: &mut Vec<Finding>) {
    // The write rules read the same writes, computed once, when one asks.
    let writes = writes::Memo::new();
    if let Some(contract) = ctx.contract {
        if let Some((clause, effects)) = contract.preserves() {
            // One effect named twice (`obs::record`, `crate::obs::record`) is one effect.
            let mut effects = effects.to_vec();
            let mut seen = std::collections::HashSet::new();
            effects.retain(|e| seen.insert(e.name().to_string()) && !ctx.index.is_misspelled_effect(e.name()));
            let effects = effects.as_slice();
            match effects::paths(ctx, effects) {
                Ok(paths) => {
                    hit_skips_effect::check(ctx, clause, effects, &paths.exits, out);
                    effect_order::check(ctx, clause, effects, &paths.exits, out);
                    stale_result::check(ctx, contract, effects, &paths, out);
                }
                Err(crate::dataflow::TooComplex) => out.push(analysis_limit(ctx, "path", crate::dataflow::MAX_STEPS, "its `preserves` is")),
            }
        }
        stale_key::check(ctx, contract, out);
        forbidden_write::check_body(ctx, contract, &writes, out);
        undeclared_write::check(ctx, contract, &writes, out);
    }
    let calls = ctx.calls();
    effects::record_effect_runner(ctx, calls);
    memoized_effect::check(ctx, calls, out);
    // The rules that look for their calls before solving also look into the file's macros
    // (`launch!(key, cache, &slots)` wrapping the kernel): the solver walks the expansions.
    let with_expanded: Vec<&Expr> = calls.iter().copied().chain(ctx.macro_calls()).collect();
    pad_to_null_block::check(ctx, &with_expanded, out);
    let first_fallback = out.len();
    let fell_back = fallback_index::check(ctx, &with_expanded, out);
    // A fallback to the forbidden block is one bug, `fallback_index`'s: the padding analysis's
    // `forbidden_write` of the same entry (a helper's `None => 0` in a buffer of positions) goes.
    let fallbacks: std::collections::HashSet<(std::path::PathBuf, std::ops::Range<usize>)> = out[first_fallback..].iter().filter(|f| f.rule.name == reuse_rules::catalogue::FALLBACK_INDEX.name).map(|f| (f.primary.file.path.clone(), f.primary.range.clone())).collect();
    if !fallbacks.is_empty() {
        out.retain(|f| f.rule.name != reuse_rules::catalogue::FORBIDDEN_WRITE.name || !fallbacks.contains(&(f.primary.file.path.clone(), f.primary.range.clone())));
    }
    forbidden_write::check_calls(ctx, &with_expanded, &writes, &fell_back, out);
    use_after_donate::check(ctx, &with_expanded, out);
    ambiguous_call::check(ctx, calls, out);
}

/// What a call of `std::mem`'s `swap`, `replace` or `take` does to the places it is handed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemMove {
    /// `swap(&mut a, &mut b)`: each holds what the other held.
    Swap,
    /// `replace(&mut a, v)`: `a` holds `v`; the call's value is what `a` held.
    Replace,
    /// `take(&mut a)`: `a` holds its type's default; the call's value is what `a` held.
    Take,
}

impl MemMove {
    pub(crate) fn name(self) -> &'static str {
        match self {
            MemMove::Swap => "swap",
            MemMove::Replace => "replace",
            MemMove::Take => "take",
        }
    }
}

/// The one reading of a `std::mem` move, for every rule: `mem::swap(..)`, `std::mem::take(..)`,
/// `replace(..)` imported from `std::mem` (through the file's imports: a function of that name
/// elsewhere is not one), with its arity.
pub(crate) fn mem_move<'e>(ctx: &FnCtx, e: &'e Expr) -> Option<(MemMove, &'e syn::ExprCall)> {
    let (name, _) = ctx.std_call(e, "mem", &["swap", "replace", "take"])?;
    let Expr::Call(c) = e else { return None };
    let op = match (name.as_str(), c.args.len()) {
        ("swap", 2) => MemMove::Swap,
        ("replace", 2) => MemMove::Replace,
        ("take", 1) => MemMove::Take,
        _ => return None,
    };
    Some((op, c))
}

/// `analysis_limit`: the `analysis` gave up on this function past `steps` steps, and what that
/// leaves unchecked (`its donations are`).
fn analysis_limit(ctx: &FnCtx, analysis: &str, steps: usize, unchecked: &str) -> Finding {
    Finding::new(
        &reuse_rules::catalogue::ANALYSIS_LIMIT,
        format!("`{}` is too complex for the {analysis} analysis (over {steps} steps); {unchecked} not checked", ctx.sig.ident),
        crate::finding::Label::new(ctx.file, ctx.range(ctx.sig.ident.span()), "not checked"),
    )
    .with_help("move inner loops into a helper function so that each body stays small")
}

/// The value a block ends with (`{ ..; 0 }` → `0`, through nested blocks); any other expression,
/// or a block without a tail value, is its own.
pub fn tail(e: &Expr) -> &Expr {
    match e {
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(v, None)) => tail(v),
            _ => e,
        },
        _ => e,
    }
}

/// Every call and method call of a body, closures and nested blocks included, in source order.
pub fn calls_in(body: &syn::Block) -> Vec<&Expr> {
    let mut v = Calls(Vec::new());
    v.visit_block(body);
    v.0
}

/// Whether `pred` holds for a call of a body of `ctx`'s file or of the file's macros it calls
/// ([`calls_in`], then [`expanded_calls`]), asked in that order until it does.
pub fn any_call(ctx: &FnCtx, body: &syn::Block, mut pred: impl FnMut(&Expr) -> bool) -> bool {
    calls_in(body).into_iter().any(&mut pred) || expanded_calls(&ctx.fns.macros, |v| v.visit_block(body)).iter().any(pred)
}

/// Every call and method call within an expression, itself included.
pub fn calls_in_expr(e: &Expr) -> Vec<&Expr> {
    let mut v = Calls(Vec::new());
    v.visit_expr(e);
    v.0
}

struct Calls<'ast>(Vec<&'ast Expr>);

/// The calls that the file's `macro_rules!` macros called within an expression expand to
/// ([`expanded_calls`]), each with the outermost macro call it comes from: for the rules that
/// read a closure's calls where it is written (the solver walks expansions itself).
pub fn calls_in_expansions<'e>(ctx: &FnCtx, e: &'e Expr) -> Vec<(Expr, &'e Expr)> {
    let mut out = Vec::new();
    for at in exprs_in(e).into_iter().filter(|x| matches!(x, Expr::Macro(_))) {
        out.extend(expanded_calls(&ctx.fns.macros, |v| v.visit_expr(at)).into_iter().map(|c| (c, at)));
    }
    out
}

/// The calls within the expansions of the file's (and crate's) `macro_rules!` macros called in
/// what `walk` visits, and within the arguments that the macros known to evaluate theirs
/// (`assert!(..)`, `println!(..)`, `tracing::info!(..)`: [`EVALUATING_MACROS`]) hold, as
/// [`dataflow::lower_macro`] reads them: expression and statement macros alike, nested ones too,
/// to [`crate::macros::MAX_EXPANSION_DEPTH`], each expansion once, at most
/// [`MAX_EXPANSIONS_READ`] of them, in source order. These are the kernels, writers and
/// donations a rule looks for before it solves a body, which a `launch!(..)` wrapping the call
/// hides from [`calls_in`]. The spans of an expansion of the file's macro are the definition's
/// tokens and the call's fragments; another file's macro's tokens stand at the call's name.
pub fn expanded_calls(macros: &crate::macros::FileMacros, walk: impl FnOnce(&mut ExpandedCalls)) -> Vec<Expr> {
    let mut v = ExpandedCalls { macros, depth: 0, read: std::collections::HashSet::new(), out: Vec::new() };
    walk(&mut v);
    v.out
}

/// How many expansions [`expanded_calls`] reads for one body: a macro that calls itself ten
/// times, eight deep, is not walked a hundred million times.
pub const MAX_EXPANSIONS_READ: usize = 4096;

/// The macros whose arguments are expressions that run where they are called (a macro of
/// another crate whose body parses as expressions, `quote!(..)`, `stringify!(..)`, runs none).
pub const EVALUATING_MACROS: &[&str] = &[
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "dbg", "format", "format_args", "print", "println", "eprint", "eprintln", "write", "writeln", "panic", "vec", "matches", "trace", "debug", "info", "warn", "error", "event", "ensure", "anyhow", "bail",
];

/// The visitor of [`expanded_calls`].
pub struct ExpandedCalls<'m> {
    macros: &'m crate::macros::FileMacros,
    depth: usize,
    /// The expansions and lowered arguments read (by address: each invocation's is built once).
    read: std::collections::HashSet<usize>,
    out: Vec<Expr>,
}

impl<'ast> Visit<'ast> for ExpandedCalls<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if self.depth >= crate::macros::MAX_EXPANSION_DEPTH || self.read.len() >= MAX_EXPANSIONS_READ {
            return;
        }
        self.depth += 1;
        match self.macros.expansion(mac) {
            Some(expansion) if self.read.insert(std::rc::Rc::as_ptr(&expansion) as usize) => {
                self.out.extend(calls_in_expr(&expansion).into_iter().cloned());
                self.visit_expr(&expansion);
            }
            Some(_) => {}
            // `assert!(write_kv(..).is_ok())`, `println!("{}", launch(..))`: the arguments it
            // evaluates, as the solver lowers them.
            None if mac.path.segments.last().is_some_and(|s| EVALUATING_MACROS.iter().any(|m| s.ident == m)) => {
                let lowered = self.macros.lowered(mac);
                if let (true, dataflow::LoweredMacro::Evaluates(args) | dataflow::LoweredMacro::Tokens(args)) = (self.read.insert(std::rc::Rc::as_ptr(&lowered) as usize), &*lowered) {
                    for arg in args {
                        self.out.extend(calls_in_expr(arg).into_iter().cloned());
                        self.visit_expr(arg);
                    }
                }
            }
            None => {}
        }
        self.depth -= 1;
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Every expression within an expression, itself included, in source order (the body of a
/// closure kept for later, read where it is created).
pub fn exprs_in(e: &Expr) -> Vec<&Expr> {
    let mut v = AllExprs(Vec::new());
    v.visit_expr(e);
    v.0
}

/// Every expression in a block's statements (not in the items declared there).
pub fn exprs_in_block(b: &syn::Block) -> Vec<&Expr> {
    let mut v = AllExprs(Vec::new());
    for stmt in &b.stmts {
        v.visit_stmt(stmt);
    }
    v.0
}

struct AllExprs<'ast>(Vec<&'ast Expr>);

impl<'ast> Visit<'ast> for AllExprs<'ast> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        self.0.push(e);
        syn::visit::visit_expr(self, e);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl<'ast> Visit<'ast> for Calls<'ast> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if matches!(e, Expr::Call(_) | Expr::MethodCall(_)) {
            self.0.push(e);
        }
        syn::visit::visit_expr(self, e);
    }
    // Nested functions are bodies of their own.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether evaluating `e` never gives a value: `return`, `break`, `continue`, a diverging macro
/// (`panic!`, `unreachable!`, ..), or a block that ends in one.
pub fn diverges(e: &Expr) -> bool {
    match e {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => dataflow::macro_diverges(&m.mac),
        Expr::Block(b) => block_diverges(&b.block),
        Expr::Paren(p) => diverges(&p.expr),
        _ => false,
    }
}

fn block_diverges(b: &syn::Block) -> bool {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => diverges(e),
        Some(syn::Stmt::Macro(m)) => dataflow::macro_diverges(&m.mac),
        _ => false,
    }
}

/// One branch of an expression that chooses its value (a `match` arm, an `if`/`else` branch).
pub struct Branch<'e> {
    /// The names its pattern takes from `scrutinee` (a `match` arm's, an `if let`'s).
    pub pattern: std::collections::HashSet<String>,
    pub scrutinee: Option<&'e Expr>,
    /// The names the branch's blocks bind with their own `let`s, around `value`.
    pub own: std::collections::HashSet<String>,
    /// The value the branch ends with (through its blocks).
    pub value: &'e Expr,
}

impl Branch<'_> {
    /// Whether `name`, read in `value`, is bound by the branch rather than around it.
    pub fn binds(&self, name: &str) -> bool {
        self.pattern.contains(name) || self.own.contains(name)
    }
}

/// The branches a `match`, or an `if` with an `else` (its `else if`s flattened), chooses its
/// value from, without those that never give one (`None => return None`) or end without a
/// value. `None`: not such an expression.
pub fn branches(e: &Expr) -> Option<Vec<Branch<'_>>> {
    fn push<'e>(out: &mut Vec<Branch<'e>>, pattern: std::collections::HashSet<String>, scrutinee: Option<&'e Expr>, mut value: &'e Expr) {
        let mut own = std::collections::HashSet::new();
        while let Expr::Block(b) = value {
            if b.label.is_some() {
                break;
            }
            let Some(syn::Stmt::Expr(v, None)) = b.block.stmts.last() else {
                if block_diverges(&b.block) {
                    return;
                }
                break;
            };
            own.extend(block_names(&b.block));
            value = v;
        }
        if !diverges(value) && !matches!(value, Expr::Block(b) if b.label.is_none()) {
            out.push(Branch { pattern, scrutinee, own, value });
        }
    }
    let mut out = Vec::new();
    match e {
        Expr::Match(m) => {
            for arm in &m.arms {
                push(&mut out, pattern_names(&arm.pat), Some(&m.expr), &arm.body);
            }
        }
        Expr::If(i) => {
            let (_, els) = i.else_branch.as_ref()?;
            let (pattern, scrutinee) = match &*i.cond {
                Expr::Let(l) => (pattern_names(&l.pat), Some(&*l.expr)),
                _ => (Default::default(), None),
            };
            if let Some(syn::Stmt::Expr(v, None)) = i.then_branch.stmts.last() {
                let before = out.len();
                push(&mut out, pattern, scrutinee, v);
                if let Some(b) = out.get_mut(before) {
                    b.own.extend(block_names(&i.then_branch));
                }
            }
            match &**els {
                Expr::If(_) => out.extend(branches(els)?),
                other => push(&mut out, Default::default(), None, other),
            }
        }
        _ => return None,
    }
    Some(out)
}

/// The place of a contract's place in the function `sig` (`pool` → its parameter's local,
/// `meta.pool` → a field of it, `self.kv` → `self`'s field).
pub(crate) fn contract_place<S>(sig: &syn::Signature, place: &reuse_rules::contract::Place<S>) -> Option<Place> {
    use reuse_rules::contract::PlaceRoot;
    let fields = place.segments[1..].iter().map(|s| s.text.clone()).collect();
    let base = match place.root {
        // Parameters are the first locals, in order.
        PlaceRoot::Param => Base::Local(dataflow::param_names(sig).iter().position(|p| p == place.root_name())? as LocalId),
        PlaceRoot::SelfField => Base::SelfValue,
        PlaceRoot::Static => return None,
    };
    Some(Place { base, fields })
}

/// The arguments of a call of a helper, its receiver at `receiver_at` (a method's receiver is
/// its parameter there, after the others, in a summary): `w.apply(pool)` gives `[pool, w]`, and
/// `BlockWrite::apply(w, pool)` the same.
pub(crate) fn args_with_receiver(call: &Expr, receiver_at: Option<usize>) -> Vec<&Expr> {
    let (receiver, mut args) = crate::analysis::call_args(call);
    match (receiver_at, receiver) {
        (Some(at), Some(r)) if at == args.len() => args.push(r),
        (Some(at), None) if at + 1 == args.len() => args.rotate_left(1),
        _ => {}
    }
    args
}

/// The names a closure binds itself: its parameters and the patterns in its body (they are not
/// the locals around it).
pub fn names_bound_in(c: &syn::ExprClosure) -> std::collections::HashSet<String> {
    let mut v = Bound(Default::default());
    v.visit_expr_closure(c);
    v.0
}

/// A body that runs later, seen where it is created (a closure kept for later, an `async`
/// block): every expression in it, and the names it binds itself. Rules that judge what such a
/// body does read it here, as if it ran where it is made.
pub fn deferred_body(e: &Expr) -> Option<(Vec<&Expr>, std::collections::HashSet<String>)> {
    match e {
        Expr::Closure(c) => Some((exprs_in(&c.body), names_bound_in(c))),
        Expr::Async(a) => {
            let mut bound = Bound(Default::default());
            bound.visit_block(&a.block);
            Some((exprs_in_block(&a.block), bound.0))
        }
        _ => None,
    }
}

/// The names a pattern binds.
pub fn pattern_names(p: &syn::Pat) -> std::collections::HashSet<String> {
    dataflow::pattern_names(p).into_iter().collect()
}

/// `X::default()` or `X::zero()` (num-traits' `Zero`; `Default::default()`, `Zero::zero()` too),
/// by its owner and function: 0 for an integer, such as an index's entry, unless the owner is
/// a type of the file with a function of that name of its own ([`owns_zero`]).
pub fn zero_call(e: &Expr) -> Option<(String, String)> {
    let Expr::Call(c) = crate::resolve::strip(e) else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    zero_fn_path(&p.path).filter(|_| c.args.is_empty())
}

/// `X::default` or `X::zero` as a path (`resize_with(n, Default::default)`, `map(i64::zero)`):
/// its owner and function.
pub fn zero_fn_path(path: &syn::Path) -> Option<(String, String)> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [.., owner, f] if f == "default" || f == "zero" => Some((owner.clone(), f.clone())),
        _ => None,
    }
}

/// Whether `name` is a primitive integer type (whose `default()` and `zero()` are 0).
pub fn is_integer_type(name: &str) -> bool {
    matches!(name, "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize")
}

/// Whether `owner` is a type of this file with its own function `f` (`impl Default for Slot {
/// .. Slot(PAD_SLOT_ID) }`): its value is not known to be 0. An integer's is.
pub fn owns_zero(ctx: &crate::analysis::FnCtx, owner: &str, f: &str) -> bool {
    !crate::resolve::is_std_type(owner)
        && !is_integer_type(owner)
        && ctx.fns.by_name.get(f).is_some_and(|defs| defs.iter().any(|&i| ctx.fns.defs[i].self_type.as_deref() == Some(owner)))
}

/// The names a block's own `let`s bind.
pub fn block_names(b: &syn::Block) -> std::collections::HashSet<String> {
    b.stmts.iter().filter_map(|s| if let syn::Stmt::Local(l) = s { Some(pattern_names(&l.pat)) } else { None }).flatten().collect()
}

/// Whether a block has a `return` of its own (one in a closure, an `async` block or an item
/// inside it leaves that instead).
pub fn returns_early(block: &syn::Block) -> bool {
    struct Returns(bool);
    impl<'ast> Visit<'ast> for Returns {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut r = Returns(false);
    r.visit_block(block);
    r.0
}

struct Bound(std::collections::HashSet<String>);

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Locals bound to a place (`let graphs = &mut self.graphs;`, `let seen = &mut *memo;`, a move):
/// a place reached through one is the place it names, so that two names of one map are one map
/// and a name re-bound to another map is another map. Kept by the analyses that compare places,
/// as the solver binds and assigns locals.
#[derive(Default)]
pub(crate) struct Aliases(std::collections::HashMap<crate::dataflow::LocalId, crate::dataflow::Place>);

impl Aliases {
    /// `local` is bound to `value`: a place, or a lock's guard of one (`self.plans.lock().unwrap()`,
    /// `.write().await`, `.borrow_mut()`), which derefs to it.
    pub fn bind(&mut self, scopes: &crate::dataflow::Scopes, local: crate::dataflow::LocalId, value: Option<&Expr>) {
        match value.and_then(|v| self.place_of(scopes, guarded(v))) {
            // `node = node.next;` names a place of the old value, not one the name can stand
            // for (an alias of itself would grow with each pass of a loop).
            Some(place) if place.base == crate::dataflow::Base::Local(local) => self.0.remove(&local),
            Some(place) => self.0.insert(local, place),
            None => self.0.remove(&local),
        };
    }

    /// `left = right`: a local assigned names what `right` names now.
    pub fn assigned(&mut self, scopes: &crate::dataflow::Scopes, left: &Expr, right: &Expr) {
        if let Some(crate::dataflow::Place { base: crate::dataflow::Base::Local(id), fields }) = scopes.place_of(left) {
            if fields.is_empty() {
                self.bind(scopes, id, Some(right));
            }
        }
    }

    /// The place an expression designates, through the locals that name another place.
    pub fn place_of(&self, scopes: &crate::dataflow::Scopes, e: &Expr) -> Option<crate::dataflow::Place> {
        let mut place = scopes.place_of(e)?;
        // Aliases are stored resolved, so one step is the rule; the bound keeps a loop that
        // re-binds its locals from ever chasing its own tail.
        for _ in 0..8 {
            let crate::dataflow::Base::Local(id) = place.base else { break };
            let Some(named) = self.0.get(&id) else { break };
            let mut fields = named.fields.clone();
            fields.extend(place.fields);
            place = crate::dataflow::Place { base: named.base.clone(), fields };
        }
        Some(place)
    }
}

/// Methods that take the guard of a lock or a cell (std's `Mutex`, `RwLock` and `RefCell`,
/// tokio's `blocking_` forms, the `try_` forms), through which its content is reached: what is
/// done through the guard is done to the content. Called without arguments (`write(buf)` is
/// `io::Write`'s).
pub(crate) const GUARDS: &[&str] = &["lock", "try_lock", "blocking_lock", "read", "try_read", "blocking_read", "write", "try_write", "blocking_write", "borrow", "try_borrow", "borrow_mut", "try_borrow_mut"];

/// Of [`GUARDS`], those whose guard may write the content.
const WRITE_GUARDS: &[&str] = &["lock", "try_lock", "blocking_lock", "write", "try_write", "blocking_write", "borrow_mut", "try_borrow_mut"];

/// Methods that take the value out of the `Result` or `Option` a guard comes in (a poisoned
/// lock recovered with `unwrap_or_else(PoisonError::into_inner)` too).
pub(crate) const UNWRAPS: &[&str] = &["unwrap", "expect", "unwrap_or_else"];

/// Whether `m` takes a guard of its receiver ([`GUARDS`]).
pub(crate) fn takes_guard(m: &syn::ExprMethodCall) -> bool {
    m.args.is_empty() && GUARDS.contains(&m.method.to_string().as_str())
}

/// Whether `m` takes a guard that may write its receiver's content ([`WRITE_GUARDS`]).
pub(crate) fn takes_write_guard(m: &syn::ExprMethodCall) -> bool {
    m.args.is_empty() && WRITE_GUARDS.contains(&m.method.to_string().as_str())
}

/// One step down a chain that takes a lock's guard and the value out of what it comes in: the
/// receiver of a guard method or of an unwrap ([`UNWRAPS`]), the operand of `?` and `.await`;
/// and, where what it handles is the taking of a guard (`m.lock()`, `m.read().await`), the
/// receiver of `ok()` and `map_err(..)` (`m.lock().ok()?`, `m.read().map_err(E::from)?`) and the
/// scrutinee of a `match` that keeps the guard of `Ok(g) => g` and recovers or leaves otherwise
/// (`Err(p) => p.into_inner()`, `Err(_) => return None`). `None`: no such step.
pub(crate) fn guard_step(e: &Expr) -> Option<&Expr> {
    fn takes(e: &Expr) -> bool {
        match dataflow::strip_parens(e) {
            Expr::MethodCall(m) => takes_guard(m),
            Expr::Await(a) => takes(&a.base),
            _ => false,
        }
    }
    match dataflow::strip_parens(e) {
        Expr::MethodCall(m) if takes_guard(m) || UNWRAPS.contains(&m.method.to_string().as_str()) => Some(&m.receiver),
        Expr::MethodCall(m) if ((m.method == "ok" && m.args.is_empty()) || (m.method == "map_err" && m.args.len() == 1)) && takes(&m.receiver) => Some(&m.receiver),
        Expr::Await(a) => Some(&a.base),
        Expr::Try(t) => Some(&t.expr),
        Expr::Match(m) if takes(&m.expr) && keeps_ok_guard(m) => Some(&m.expr),
        _ => None,
    }
}

/// `match lock.read() { Ok(g) => g, Err(p) => p.into_inner() }` (or an `Err` arm that leaves:
/// `return None`, a panic): the value is the guard on every path that goes on.
fn keeps_ok_guard(m: &syn::ExprMatch) -> bool {
    let variant = |p: &syn::Pat, name: &str| matches!(p, syn::Pat::TupleStruct(t) if t.path.segments.last().is_some_and(|s| s.ident == name) && t.elems.len() == 1);
    let recovers = |body: &Expr| {
        let body = match dataflow::strip_parens(body) {
            Expr::Block(b) => match b.block.stmts.last() {
                Some(syn::Stmt::Expr(e, _)) => e,
                Some(syn::Stmt::Macro(s)) => return dataflow::macro_diverges(&s.mac),
                _ => return false,
            },
            other => other,
        };
        match dataflow::strip_parens(body) {
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
            Expr::Macro(mac) => dataflow::macro_diverges(&mac.mac),
            Expr::MethodCall(c) => c.method == "into_inner" && c.args.is_empty(),
            _ => false,
        }
    };
    let kept = m.arms.iter().filter(|a| a.guard.is_none() && variant(&a.pat, "Ok") && {
        let syn::Pat::TupleStruct(t) = &a.pat else { return false };
        matches!((t.elems.first(), dataflow::strip_parens(&a.body)), (Some(syn::Pat::Ident(g)), Expr::Path(p)) if p.path.is_ident(&g.ident))
    });
    kept.count() == 1 && m.arms.iter().all(|a| variant(&a.pat, "Ok") || (variant(&a.pat, "Err") && recovers(&a.body)))
}

/// What a lock's guard guards: `m` of `m.lock().unwrap()`, `m.write().await`, `m.borrow_mut()`
/// (else the expression itself).
pub(crate) fn guarded(e: &Expr) -> &Expr {
    let mut inner = dataflow::strip_parens(e);
    let mut locked = false;
    while let Some(next) = guard_step(inner) {
        locked |= matches!(inner, Expr::MethodCall(m) if takes_guard(m));
        inner = dataflow::strip_parens(next);
    }
    if locked {
        inner
    } else {
        e
    }
}

/// An expression under its parentheses and `as` casts (`(b * BS) as i64`: the product).
pub(super) fn strip_cast(e: &Expr) -> &Expr {
    match crate::resolve::strip(e) {
        Expr::Cast(c) => strip_cast(&c.expr),
        other => other,
    }
}

/// What a guard chain guards (`m` of `m.lock().unwrap()`), or `None` where `e` takes no guard.
pub(crate) fn guard_content(e: &Expr) -> Option<&Expr> {
    let inner = guarded(e);
    (!std::ptr::eq(inner, e)).then_some(inner)
}

/// The text of an expression with whitespace removed (`self.plans`, `metadata.slot_mapping`).
pub fn expr_text(e: &Expr) -> String {
    quote::ToTokens::to_token_stream(e).to_string().replace(' ', "")
}

/// A list of names for messages: `a`, `b` and `c`.
pub fn names(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match quoted.len() {
        0 => String::new(),
        1 => quoted[0].clone(),
        n => format!("{} and {}", quoted[..n - 1].join(", "), quoted[n - 1]),
    }
}

/// The closure that dropping `value` runs: a scope guard's (`dataflow::scope_guard_closure`), or
/// the one closure a value is made with whose type's `Drop` calls a closure it holds
/// (`Defer(|| ..)`, `OnDrop::new(|| ..)`, `Defer { f: Some(Box::new(|| ..)) }`), the type and its
/// `Drop` of this file or of another.
pub fn closure_run_at_drop<'e>(ctx: &FnCtx, here: Option<&str>, value: &'e Expr) -> Option<&'e syn::ExprClosure> {
    if let Some(closure) = dataflow::scope_guard_closure(value) {
        return Some(closure);
    }
    let (path, parts): (&syn::Path, Vec<&Expr>) = match dataflow::strip_parens(value) {
        Expr::Call(c) => match dataflow::strip_parens(&c.func) {
            Expr::Path(p) => (&p.path, c.args.iter().collect()),
            _ => return None,
        },
        Expr::Struct(s) => (&s.path, s.fields.iter().map(|f| &f.expr).collect()),
        _ => return None,
    };
    let [closure] = parts.into_iter().filter_map(held_closure).collect::<Vec<_>>()[..] else { return None };
    // `Defer(..)` and `Defer { .. }` are the type's; `Defer::new(..)` its constructor's.
    let written: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let made = [&written[..], &written[..written.len() - 1]].into_iter().filter(|t| !t.is_empty()).any(|t| drop_calls_held_closure(ctx, here, t));
    made.then_some(closure)
}

/// A closure given as it is, boxed or in `Some`.
fn held_closure(e: &Expr) -> Option<&syn::ExprClosure> {
    match dataflow::strip_parens(e) {
        Expr::Call(c) if c.args.len() == 1 && matches!(dataflow::strip_parens(&c.func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Some" || s.ident == "new")) => held_closure(&c.args[0]),
        e => dataflow::closure_of(e),
    }
}

/// Whether the `Drop` of the type written `written` calls a closure held in a field of `self`.
fn drop_calls_held_closure(ctx: &FnCtx, here: Option<&str>, written: &[String]) -> bool {
    let name = match written.last().map(String::as_str) {
        Some("Self") => here,
        last => last,
    };
    let fns = ctx.fns;
    let local = fns.by_name.get("drop").into_iter().flatten().map(|i| &fns.defs[*i]).find(|d| d.self_type.as_deref() == name && d.has_receiver());
    if let Some(def) = local {
        return calls_held_closure(def.body);
    }
    ctx.resolver.type_paths(written, here).iter().any(|p| ctx.with_foreign_fn(&[p.as_slice(), &["drop".to_string()]].concat(), |_, def| calls_held_closure(def.body)) == Some(true))
}

/// A body that calls a closure held in a field of `self`: `(self.0)()`, `(self.f)(x)`, or a name
/// a pattern takes from `self` (`if let Some(f) = self.f.take() { f() }`).
fn calls_held_closure(body: &syn::Block) -> bool {
    struct Calls {
        taken: std::collections::HashSet<String>,
        called: Vec<String>,
        of_self: bool,
    }
    fn reads_self_field(e: &Expr) -> bool {
        exprs_in(e).iter().any(|x| matches!(x, Expr::Field(f) if matches!(dataflow::strip_parens(&f.base), Expr::Path(p) if p.path.is_ident("self"))))
    }
    impl<'ast> Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            match dataflow::strip_parens(&c.func) {
                Expr::Field(f) if matches!(dataflow::strip_parens(&f.base), Expr::Path(p) if p.path.is_ident("self")) => self.of_self = true,
                Expr::Path(p) => self.called.extend(p.path.get_ident().map(|i| i.to_string())),
                _ => {}
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            if reads_self_field(&l.expr) {
                self.taken.extend(pattern_names(&l.pat));
            }
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if l.init.as_ref().is_some_and(|i| reads_self_field(&i.expr)) {
                self.taken.extend(pattern_names(&l.pat));
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut v = Calls { taken: Default::default(), called: Vec::new(), of_self: false };
    v.visit_block(body);
    v.of_self || v.called.iter().any(|c| v.taken.contains(c))
}
