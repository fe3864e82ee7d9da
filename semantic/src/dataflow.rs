//! One forward dataflow solver over a function body, for the rules that follow values.
//!
//! The body is walked in evaluation order with its control flow made explicit: a branch
//! (`if`/`else`, `match` arms, `&&`/`||`) runs on a copy of the state and the copies are joined
//! where the branches meet; a loop runs to a fixpoint (its body may run any number of times;
//! `break` and `continue` carry their state to the loop's exit and head); `return`, `?`, a
//! diverging call or macro end a path (normal exits are reported to the analysis, error exits are
//! not). Locals are scoped: each `let`, pattern, closure and loop binding is a new [`LocalId`], so
//! a shadowing `let slots = f(slots)` reads the old `slots` and defines a new one, and a binding
//! ends with its block. A binding written once in the source is one local however often a loop
//! revisits it: each round of a loop binds the same [`LocalId`]s again (the analysis hears of it
//! through [`Analysis::bind`]), so a state holds one entry per binding and loops converge. A
//! [`Place`] is a local or `self` with a field path.
//!
//! The value a function returns is read branch by branch: a returned `match`, `if`/`else` or
//! block leaves once per branch (a returned `async` block, or `Box::pin` of one, is the future
//! the caller runs: its exits are the function's), with that branch's value (so `None => Ok(None)` is an exit of its
//! own), and a returned `lookup.map(|g| ..)` leaves where the closure ran and where it did not
//! ([`Exit::unrun`]).
//!
//! Closures run where they run (a `return` or `?` in one leaves the closure; the `?` of one
//! called where it is written whose error is handled there, `(|| { f()?; .. })().unwrap_or(0)` or
//! a `match` on the call, or where its result is first used later in the block (`let r = (|| ..)();
//! .. match r`), goes on after it with the error (`Solver::recovered`); elsewhere the
//! error leaves the function): one called where it is written (`(|| ..)()`), or handed to a call
//! that runs it before returning (`span.in_scope(|| ..)`, `std::thread::scope(|s| ..)`), runs
//! there once; the
//! callbacks of iterator adaptors (`for_each`, `map(..)` on an iterator) are walked in place zero or
//! more times, those of `Option`/`Result` combinators (`map` on anything not seen to be an
//! iterator; once after `?`), the entry API and synchronous callbacks
//! (`unwrap_or_else`, `or_insert_with`, `update(|b| ..)`) at most once; a closure bound to a local
//! (`let flush = || ..;`) runs where the local is called (`flush()`), its names read there and its
//! parameters bound to the arguments; a
//! closure stored elsewhere or spawned is a body of its own and is not walked. A closure not run
//! in place is also a value where it is created ([`Analysis::transfer`] of the `Expr::Closure`,
//! for what it captures); an `async` block not awaited where it is written likewise (its
//! `Expr::Async`), and one bound to a local runs where the local is awaited (`let fx = async {
//! .. }; .. fx.await`), once, as does one spawned as a task whose handle is awaited (`let task =
//! tokio::spawn(async { .. }); .. task.await`). A labelled block
//! (`'a: { .. break 'a v; .. }`) joins its `break`s at its end. `.await` is transparent (the analysis hears of it after its
//! base, where the future runs); an `async`
//! block awaited where it is written (`async { .. }.await`) runs there, once. Macros are
//! lowered in one place ([`lower_macro`]): their arguments are expressions; where they are not, the
//! calls among their tokens run, and the tokens are handed to [`Analysis::macro_tokens`]. A call of
//! a `macro_rules!` of the file is walked as its expansion ([`crate::macros`], through
//! [`Analysis::macros`]): a block where the call stands (`let v = m!(..)` binds its value).
//!
//! An [`Analysis`] supplies the state (a join-semilattice of finite height, so loops converge) and
//! the transfer functions; the solver never looks at what the state means.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::{Expr, Pat, Stmt};
use quote::ToTokens;
use syn::visit::Visit;

use crate::source::expr_span;

/// At most this many expressions are visited per function (loops revisit theirs); past it the
/// analysis reports that the function was not checked.
pub const MAX_STEPS: usize = 200_000;
/// A loop's body runs at most this many times before its state is taken as the fixpoint.
const MAX_LOOP_ROUNDS: usize = 16;
/// The most items of an array literal a `for` walks one by one ([`Solver::unrolled`]); a
/// longer one is a loop.
const MAX_UNROLLED: usize = 8;

/// Methods that handle an `Err` (or `None`) of their receiver where it is made.
const RECOVERS: &[&str] = &["unwrap_or", "unwrap_or_default", "unwrap_or_else", "ok", "err", "is_ok", "is_err", "map_or", "map_or_else", "or", "or_else"];

/// The solver gave up on a function (see [`MAX_STEPS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooComplex;

/// A local binding; every `let`, parameter and pattern binding is a new one.
pub type LocalId = u32;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Base {
    Local(LocalId),
    /// The receiver, `self`.
    SelfValue,
}

/// A storage place: a local or `self`, then a field path (`meta.slot_mapping`, `self.vars.slots`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub base: Base,
    pub fields: Vec<String>,
}

impl Place {
    pub fn field(&self, name: &str) -> Place {
        let mut fields = self.fields.clone();
        fields.push(name.to_string());
        Place { base: self.base.clone(), fields }
    }

    /// This place, then `fields` inside it.
    pub fn fields_then(&self, fields: &[String]) -> Place {
        let mut p = self.clone();
        p.fields.extend(fields.iter().cloned());
        p
    }

    /// Whether `self` is `other` or a field inside it.
    pub fn starts_with(&self, other: &Place) -> bool {
        self.base == other.base && self.fields.starts_with(&other.fields)
    }
}

/// The locals in scope, innermost last.
#[derive(Default)]
pub struct Scopes {
    frames: Vec<Vec<(String, LocalId)>>,
    names: Vec<String>,
}

impl Scopes {
    fn push(&mut self) {
        self.frames.push(Vec::new());
    }
    fn pop(&mut self) {
        self.frames.pop();
    }
    /// A new local named `name`, visible until its scope ends.
    pub fn bind(&mut self, name: &str) -> LocalId {
        let id = self.reserve(name);
        self.activate(name.to_string(), id);
        id
    }
    /// A new local, not yet visible (its initializer is still being read).
    fn reserve(&mut self, name: &str) -> LocalId {
        let id = self.names.len() as LocalId;
        self.names.push(name.to_string());
        id
    }
    fn activate(&mut self, name: String, id: LocalId) {
        if self.frames.is_empty() {
            self.push();
        }
        self.frames.last_mut().expect("a frame").push((name, id));
    }
    /// The binding a name refers to here.
    pub fn lookup(&self, name: &str) -> Option<LocalId> {
        self.frames.iter().rev().flat_map(|f| f.iter().rev()).find(|(n, _)| n == name).map(|(_, id)| *id)
    }
    /// The name a local was bound with.
    pub fn name(&self, id: LocalId) -> &str {
        &self.names[id as usize]
    }

    /// The place an expression designates: a local, `self`, or a field path of one (tuple
    /// elements too), through parentheses, `&`, `&mut` and `*`. Anything else (a call, an
    /// index) is not a place here.
    pub fn place_of(&self, e: &Expr) -> Option<Place> {
        match e {
            Expr::Paren(p) => self.place_of(&p.expr),
            Expr::Group(g) => self.place_of(&g.expr),
            Expr::Reference(r) => self.place_of(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.place_of(&u.expr),
            Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                if ident == "self" {
                    return Some(Place { base: Base::SelfValue, fields: Vec::new() });
                }
                Some(Place { base: Base::Local(self.lookup(&ident.to_string())?), fields: Vec::new() })
            }
            Expr::Field(f) => {
                // A tuple element (`key.0`) is a field named by its position.
                let name = member_name(&f.member);
                Some(self.place_of(&f.base)?.field(&name))
            }
            _ => None,
        }
    }

    /// How a place reads in messages: `slots`, `meta.slot_mapping`, `self.slots`.
    pub fn display(&self, place: &Place) -> String {
        let mut s = match place.base {
            Base::Local(id) => self.name(id).to_string(),
            Base::SelfValue => "self".to_string(),
        };
        for f in &place.fields {
            // An element projection (`[0]`, `use_after_donate`'s) follows without a dot.
            if !f.starts_with('[') {
                s.push('.');
            }
            s.push_str(f);
        }
        s
    }
}

/// How a path leaves the function normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExitKind {
    /// `return v`, or a bare `return`.
    Return,
    /// The end of the body, with its tail value when it has one.
    Tail,
}

/// A normal exit of the function, as [`Analysis::exit`] hears of it. Error exits (`?`,
/// `return Err(..)`, a tail `Err(..)`) are not reported.
#[derive(Clone, Copy)]
pub struct Exit<'e> {
    pub kind: ExitKind,
    /// The returned value (`None`: a bare `return`, or a body without a tail value).
    pub value: Option<&'e Expr>,
    /// First and last token of the exit: `return v` whole, the tail value, or the body's closing
    /// brace.
    pub span: (Span, Span),
    /// The value is an `Option`/`Result` combinator (`lookup.map(|g| ..)`) whose closure did not
    /// run on this path: what it returns is the receiver's `None` or `Err`.
    pub unrun: bool,
    /// The `match` or `if`/`else` that `value` is a branch of (the outermost): an analysis that
    /// judges a branch by its siblings (a constant arm next to a looked-up one) reads it whole.
    pub branch_of: Option<&'e Expr>,
}

/// A join-semilattice: `join` is the least upper bound, and it has no infinite ascending chains.
pub trait Domain: Clone + PartialEq {
    fn join(&mut self, other: &Self);
}

/// What the solver tells an analysis, and asks of it.
pub trait Analysis {
    type State: Domain;

    /// An expression that is not control flow, after its operands were evaluated (a call after
    /// its arguments, an assignment after its right side). Called for every such expression.
    fn transfer(&mut self, scopes: &Scopes, state: &mut Self::State, e: &Expr);

    /// `local` is bound to the value of `init` (`None`: a pattern binding whose value is not an
    /// expression of its own, such as a loop variable or a `match` binding).
    fn bind(&mut self, scopes: &Scopes, state: &mut Self::State, local: LocalId, init: Option<&Expr>);

    /// The locals a pattern just bound (after [`Analysis::bind`] of each, before they are in
    /// scope) take their values from `scrutinee`: `let PAT = e`, `if let PAT = e`, `while let`,
    /// a `match` arm. For analyses that follow what a destructuring reaches (`Some(g)` of a
    /// lookup is the entry).
    fn bind_from(&mut self, _scopes: &Scopes, _state: &mut Self::State, _locals: &[LocalId], _scrutinee: &Expr) {}

    /// `scrutinee` is matched against a pattern only to test it (`matches!(x, PAT if ..)`): the
    /// names the pattern binds next ([`Analysis::bind_from`]) are read by the test and end with
    /// it; nothing of the value is used past it.
    fn tested(&mut self, _scopes: &Scopes, _state: &mut Self::State, _scrutinee: &Expr) {}

    /// The part of the matched value each local of a pattern took, as a field path (tuple elements
    /// by position: `let (slots, n) = pad(..)` takes `.0` and `.1`; `let Meta { slot_mapping, .. }
    /// = m` takes `.slot_mapping`; `Some(x)`/`Ok(x)` are looked through). Locals whose part has no
    /// path (a slice element) are left out.
    fn bind_parts(&mut self, _scopes: &Scopes, _state: &mut Self::State, _parts: &[(LocalId, Vec<String>)], _scrutinee: &Expr) {}

    /// The positions each local of a slice pattern took (`if let [null, rest @ ..] = pool`:
    /// `null` the element at 0, `rest` the positions from 1 on); locals after a `..` (counted
    /// from the end) are left out.
    fn bind_slice(&mut self, _scopes: &Scopes, _state: &mut Self::State, _parts: &[(LocalId, SlicePart)], _scrutinee: &Expr) {}

    /// The one local of a variant pattern (`Entry::Vacant(v)`, `Some(x)`) takes the variant's
    /// content from `scrutinee`: `variant` is its last name (`Vacant`).
    fn bind_variant(&mut self, _scopes: &Scopes, _state: &mut Self::State, _local: LocalId, _variant: &syn::Ident, _scrutinee: &Expr) {}

    /// The locals of a `for` pattern (after [`Analysis::bind`] of each) take an element of
    /// `iterated` each round: `for row in rows` holds what the rows hold.
    fn bind_each(&mut self, _scopes: &Scopes, _state: &mut Self::State, _locals: &[LocalId], _iterated: &Expr) {}

    /// `local` counts the items of a loop from 0: `i` of `for (i, row) in rows.iter().enumerate()`
    /// (or of an adaptor's closure, `.enumerate().for_each(|(i, row)| ..)`).
    fn bind_count(&mut self, _scopes: &Scopes, _state: &mut Self::State, _local: LocalId) {}

    /// A `for` loop has run (the state joins every number of iterations): facts about the loop as
    /// a whole, such as "every entry of the buffer was stored".
    fn after_for(&mut self, _scopes: &Scopes, _state: &mut Self::State, _f: &syn::ExprForLoop) {}

    /// A `while` loop has run (as [`Analysis::after_for`]).
    fn after_while(&mut self, _scopes: &Scopes, _state: &mut Self::State, _w: &syn::ExprWhile) {}

    /// A block (or a `match` arm) ends with a value (`{ ..; v }`, `Ok(s) => s`), a `break v`
    /// leaves a loop with one ([`break_values`]), or a `return v` a closure run in place
    /// ([`closure_return_values`]), its locals still in scope: what `v` names is
    /// known only here (the bindings end before the value is used).
    fn block_value(&mut self, _scopes: &Scopes, _state: &mut Self::State, _value: &Expr) {}

    /// Where a condition decided a branch (`if`, `while`, a `match` arm's guard): `cond`, a comparison or another
    /// expression that is not `&&`, `||` or `!` (the solver takes those apart), is known to
    /// evaluate to `holds` in `state` (`if b != NULL_BLOCK { write(b) }`: `b` is not the fallback).
    fn assume(&mut self, _scopes: &Scopes, _state: &mut Self::State, _cond: &Expr, _holds: bool) {}

    /// A call in a condition that is a predicate of its arguments: a helper whose body is one
    /// condition of its parameters (`fn is_null(b: u32) -> bool { b == NULL_BLOCK }`). The solver
    /// assumes that condition with the parameters bound to the arguments.
    fn predicate(&mut self, _call: &Expr, _depth: usize) -> Option<Predicate> {
        None
    }

    /// A call runs a closure (`(|k| vec![0; k])(n)`, `make(n)` of `let make = |k| ..;`) that ends
    /// with `value` (its body, or its body block's tail): the call's value is that value, read
    /// while the closure's parameters are in scope. `call` is also the name of a closure local
    /// handed to a method that runs it (`slot_of` of `(0..n).map(slot_of)`), run there.
    fn call_value(&mut self, _scopes: &Scopes, _state: &mut Self::State, _call: &Expr, _value: &Expr) {}

    /// A closure run in place binds its parameters: the analysis may say what they hold.
    fn closure_params(&mut self, _scopes: &Scopes, _state: &mut Self::State, _params: &[LocalId]) {}

    /// The parameters of a closure walked where `call`, a function of the workspace given it as
    /// argument `arg`, calls it ([`Analysis::callback_runs`]): the local of each parameter that
    /// binds one name (`|b|`, `|&b|`), by position, to be bound to what that function passes.
    fn bind_callback(&mut self, _scopes: &Scopes, _state: &mut Self::State, _call: &Expr, _arg: usize, _params: &[Option<LocalId>]) {}

    /// How the function `call` designates runs its closure argument at `arg` (the receiver of a
    /// method call excluded), for a call the solver knows nothing of by name: a helper of the
    /// workspace that calls it (`pool.with_cache(|c| ..)`), as the rules' callback summary says.
    fn callback_runs(&mut self, _call: &Expr, _arg: usize) -> Option<Runs> {
        None
    }

    /// The function returns normally (see [`Exit`]); `scopes` are those where it returns. With
    /// [`Analysis::DROPS`], `state` is after the drops of the locals in scope.
    fn exit(&mut self, _scopes: &Scopes, _state: &Self::State, _exit: &Exit<'_>) {}

    /// Whether the analysis hears values dropped ([`Analysis::dropped`],
    /// [`Analysis::discarded`]): a `Drop` guard runs code where its scope ends.
    const DROPS: bool = false;

    /// `local` goes out of scope with its value, which is dropped: at the end of its block, or at
    /// a normal exit (innermost scope first, the latest binding first; a local the exit returns
    /// is moved out, not dropped). A `break` or `continue` out of a block drops nothing here.
    fn dropped(&mut self, _scopes: &Scopes, _state: &mut Self::State, _local: LocalId) {}

    /// The value of `value` is dropped where it is made: `let _ = value;`, or a statement
    /// `value;`. (A bare local there is not moved: `let _ = guard;` keeps it.)
    fn discarded(&mut self, _scopes: &Scopes, _state: &mut Self::State, _value: &Expr) {}

    /// A macro whose arguments the solver does not walk as expressions (not format-like, logging
    /// or diverging), where it runs: its tokens are all there is.
    fn macro_tokens(&mut self, _scopes: &Scopes, _state: &mut Self::State, _mac: &syn::Macro) {}

    /// The `macro_rules!` definitions of the file, expanded where they are called (none: every
    /// macro is lowered as [`lower_macro`] says).
    fn macros(&self) -> Option<&crate::macros::FileMacros> {
        None
    }

    /// The closure that dropping `value` runs, if `value` is a scope guard: scopeguard's
    /// `guard(v, |_| ..)` here; analyses that know the file's types add values of a type whose
    /// `Drop` calls a closure it holds (`Defer(|| ..)`: `rules::closure_run_at_drop`).
    fn runs_at_drop<'e>(&self, value: &'e Expr) -> Option<&'e syn::ExprClosure> {
        scope_guard_closure(value)
    }
}

/// The closure of scopeguard's `guard(v, |v| ..)` and `guard_on_success(v, |v| ..)`, which the
/// guard runs when it is dropped (`guard_on_unwind` only while unwinding: never on a normal path).
pub fn scope_guard_closure(value: &Expr) -> Option<&syn::ExprClosure> {
    let Expr::Call(c) = strip_parens(value) else { return None };
    let Expr::Path(p) = strip_parens(&c.func) else { return None };
    let name = p.path.segments.last()?.ident.to_string();
    match (name.as_str(), c.args.len()) {
        ("guard" | "guard_on_success", 2) => closure_of(&c.args[1]),
        _ => None,
    }
}

/// The statements of a `defer! { .. }` (scopeguard's, the `defer` crates'), run where the
/// enclosing block ends, as a closure without parameters.
fn deferred_statements(mac: &syn::Macro) -> Option<syn::ExprClosure> {
    if mac.path.segments.last()?.ident != "defer" {
        return None;
    }
    let tokens = &mac.tokens;
    syn::parse2(quote::quote!(|| { #tokens })).ok()
}

/// The places an assignment's left side assigns: itself, or each element of a destructuring
/// assignment (`(kv, logits) = step(kv)`; `_` assigns nothing).
pub fn assigned_places(left: &Expr) -> Vec<&Expr> {
    match strip_parens(left) {
        Expr::Tuple(t) => t.elems.iter().flat_map(assigned_places).collect(),
        // `St { h, s } = step(h)`, `P(h, s) = step(h)`.
        Expr::Struct(s) if destructures(left) => s.fields.iter().flat_map(|f| assigned_places(&f.expr)).collect(),
        Expr::Call(c) if destructures(left) => c.args.iter().flat_map(assigned_places).collect(),
        Expr::Infer(_) => Vec::new(),
        other => vec![other],
    }
}

/// Whether an assignment's left side is a struct or tuple-struct pattern (`St { h, s }`,
/// `P(h, s)`), not a place.
fn destructures(left: &Expr) -> bool {
    match left {
        Expr::Struct(s) => s.rest.is_none(),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(_)),
        _ => false,
    }
}

/// The constant a pattern is, as an expression: a literal (`0`), a path (`Kind::Null`,
/// `consts::NULL_BLOCK`), or a name that is a constant's (`NULL_BLOCK`: no lower case).
fn constant_pattern(pat: &Pat) -> Option<Expr> {
    match pat {
        Pat::Lit(l) => Some(Expr::Lit(l.clone())),
        Pat::Path(p) => Some(Expr::Path(p.clone())),
        Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() && i.mutability.is_none() && !i.ident.to_string().chars().any(|c| c.is_lowercase()) => {
            let ident = &i.ident;
            Some(syn::parse_quote!(#ident))
        }
        _ => None,
    }
}

/// The values a `loop` can end with: those of the `break`s that leave it (not those of a loop
/// inside it, unless they name its label, nor those of closures and async blocks).
pub fn break_values(l: &syn::ExprLoop) -> Vec<&Expr> {
    struct Breaks<'e> {
        label: Option<String>,
        /// Loops entered inside the one asked about: an unlabelled `break` there is theirs.
        inner: usize,
        out: Vec<&'e Expr>,
    }
    impl<'e> Visit<'e> for Breaks<'e> {
        fn visit_expr_break(&mut self, b: &'e syn::ExprBreak) {
            let ours = match &b.label {
                Some(l) => self.label.as_deref() == Some(&*l.ident.to_string()),
                None => self.inner == 0,
            };
            if let (true, Some(v)) = (ours, &b.expr) {
                self.out.push(v);
            }
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_loop(&mut self, l: &'e syn::ExprLoop) {
            self.inner += 1;
            syn::visit::visit_expr_loop(self, l);
            self.inner -= 1;
        }
        fn visit_expr_while(&mut self, w: &'e syn::ExprWhile) {
            self.inner += 1;
            syn::visit::visit_expr_while(self, w);
            self.inner -= 1;
        }
        fn visit_expr_for_loop(&mut self, f: &'e syn::ExprForLoop) {
            self.inner += 1;
            syn::visit::visit_expr_for_loop(self, f);
            self.inner -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'e syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'e syn::Item) {}
    }
    let mut b = Breaks { label: l.label.as_ref().map(|l| l.name.ident.to_string()), inner: 0, out: Vec::new() };
    b.visit_block(&l.body);
    b.out
}

/// The values the `return`s of a closure leave it with (not those of a closure, async block or
/// item inside it): with its body's tail, what the closure can give back.
pub fn closure_return_values(c: &syn::ExprClosure) -> Vec<&Expr> {
    struct Returns<'e>(Vec<&'e Expr>);
    impl<'e> Visit<'e> for Returns<'e> {
        fn visit_expr_return(&mut self, r: &'e syn::ExprReturn) {
            self.0.extend(r.expr.as_deref());
            syn::visit::visit_expr_return(self, r);
        }
        fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'e syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'e syn::Item) {}
    }
    let mut r = Returns(Vec::new());
    r.visit_expr(&c.body);
    r.0
}

/// A call that detaches the task or thread it is handed (`tokio::spawn(fut)`,
/// `std::thread::spawn(|| ..)`, `spawn_local`, `spawn_blocking`): it runs at some later time,
/// concurrently with what follows.
pub fn is_spawn(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    matches!(strip_parens(&c.func), Expr::Path(p) if p.path.segments.len() >= 2 && p.path.segments.last().is_some_and(|s| ["spawn", "spawn_local", "spawn_blocking"].contains(&s.ident.to_string().as_str())))
}

/// The `async` block a spawn runs (`tokio::spawn(async move { .. })`): its task has run where
/// its handle is awaited.
fn spawned_block(e: &Expr) -> Option<&syn::ExprAsync> {
    let e = strip_parens(e);
    match e {
        Expr::Call(c) if is_spawn(e) && c.args.len() == 1 => match strip_parens(&c.args[0]) {
            Expr::Async(block) => Some(block),
            _ => None,
        },
        _ => None,
    }
}

/// `Box::pin` (a future boxed to be returned).
fn is_box_pin(func: &Expr) -> bool {
    matches!(strip_parens(func), Expr::Path(p) if p.path.segments.len() >= 2 && p.path.segments.iter().rev().take(2).map(|s| s.ident.to_string()).eq(["pin", "Box"]))
}

/// Method names whose closure arguments run during the call any number of times (iterator
/// adaptors that the chain consumes; `map` and `filter` also name `Option`'s, which run at most
/// once: any number covers both).
const RUNS_IN_PLACE: &[&str] = &[
    "for_each", "try_for_each", "map", "filter", "filter_map", "flat_map", "fold", "try_fold", "any", "all", "find",
    "find_map", "position", "retain", "retain_mut", "take_while", "skip_while", "inspect", "map_while", "scan",
    "sort_by", "sort_by_key", "max_by_key", "min_by_key", "zip_with",
];
/// Method names whose closure argument takes each item of the receiver as its one parameter,
/// as a `for` loop's pattern does ([`Analysis::bind_each`]); on an iterator, also
/// [`MAPS_ITEMS`].
const EACH_ITEM: &[&str] = &["for_each", "try_for_each", "take_while", "skip_while", "filter", "any", "all", "find", "find_map", "position", "inspect"];
/// Iterator adaptors whose closure takes each item too: what it returns is read where the
/// adaptor is built, what it is given is an item (`reqs.iter().map(|r| cache.get(&r.key))`).
const MAPS_ITEMS: &[&str] = &["map", "filter_map", "flat_map", "map_while"];

/// The closure whose pairs `unzip()` takes apart (`pairs.iter().map(|&(s, d)| (s, d)).unzip()`):
/// the first buffer holds what its value's `.0` holds, the second its `.1`.
pub fn unzipped(e: &Expr) -> Option<&syn::ExprClosure> {
    let Expr::MethodCall(m) = strip_parens(e) else { return None };
    let Expr::MethodCall(pairs) = strip_parens(&m.receiver) else { return None };
    (m.method == "unzip" && m.args.is_empty()).then(|| yielding_fn(pairs).and_then(closure_of)).flatten()
}

/// `.map(Option::unwrap_or_default)`: the path given as the mapping function, which makes a
/// missing item its type's default (0 for an index).
pub fn maps_to_default(m: &syn::ExprMethodCall) -> Option<&Expr> {
    let f = strip_parens(m.args.first()?);
    let by_default = matches!(f, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "unwrap_or_default"));
    (m.method == "map" && m.args.len() == 1 && by_default).then_some(f)
}

/// The function argument of an iterator adaptor whose values are the items it yields (directly,
/// or inside the `Option` or collection it returns): the closure of `map`, `filter_map`,
/// `flat_map`, `map_while`, and `scan(state, |st, item| ..)`'s second argument.
pub fn yielding_fn(m: &syn::ExprMethodCall) -> Option<&Expr> {
    let method = m.method.to_string();
    let at = match method.as_str() {
        _ if MAPS_ITEMS.contains(&method.as_str()) && m.args.len() == 1 => 0,
        "scan" if m.args.len() == 2 => 1,
        _ => return None,
    };
    Some(strip_parens(&m.args[at]))
}
/// What the one parameter of a closure run by a method takes from the method's receiver.
#[derive(Clone, Copy)]
enum Takes<'x> {
    /// Each item, as a `for` loop's pattern does (`for_each`, a predicate of `filter`).
    Each(&'x Expr),
    /// The value an `Option` or a `Result` holds (`lookup.map(|g| ..)`), as `Some(g)` takes it.
    Content(&'x Expr),
    /// `items.fold(init, |acc, item| ..)`: the first parameter is the accumulator, bound to
    /// `init` (each round starts from it: the rounds are joined), the rest take each item.
    Fold { init: &'x Expr, items: &'x Expr },
    /// The closure is argument `arg` of `call`, a function of the workspace that calls it: its
    /// parameters take what that function passes ([`Analysis::bind_callback`]).
    Callback { call: &'x Expr, arg: usize },
}

/// `Option`/`Result` methods whose closure takes the value the receiver holds (on a receiver
/// that is not an iterator).
const TAKES_CONTENT: &[&str] = &["map", "and_then", "inspect", "is_some_and", "is_ok_and"];

/// Method names whose closure argument runs during the call at most once: `Option`/`Result`
/// combinators, the entry API, synchronous callbacks. A path through them ran it once or not at
/// all, never twice (an effect in `or_insert_with(|| ..)` is not run twice; `bool::then`'s
/// closure runs where the condition holds).
const RUNS_AT_MOST_ONCE: &[&str] = &[
    "update", "with", "with_borrow", "with_borrow_mut", "and_then", "or_else", "map_err", "unwrap_or_else", "map_or",
    "map_or_else", "get_or_insert_with", "or_insert_with", "or_insert_with_key", "and_modify", "then",
];

/// Method names whose closure argument runs during the call exactly once (tracing's
/// `span.in_scope(|| ..)`).
const RUNS_ONCE: &[&str] = &["in_scope"];
/// Functions whose closure argument runs during the call exactly once (`std::thread::scope(|s|
/// ..)`, `rayon::scope`, `catch_unwind`): the closure's body is where the call is.
const RUNS_ONCE_FNS: &[&str] = &["scope", "in_place_scope", "catch_unwind"];

/// Adaptors that `Option` and `Result` have too: their closure runs any number of times on an
/// iterator ([`is_iterator`]), at most once on anything else (`mask.map(|m| ..)`).
const OPTION_OR_ITERATOR: &[&str] = &["map", "filter", "inspect"];
/// Methods that make an iterator of their receiver, or adapt one.
const ITERATOR_METHODS: &[&str] = &[
    "iter", "iter_mut", "into_iter", "drain", "chars", "char_indices", "bytes", "lines", "split", "split_whitespace",
    "windows", "chunks", "chunks_exact", "chunks_mut", "chunks_exact_mut", "rchunks", "keys", "values", "values_mut",
    "into_keys", "into_values", "enumerate", "zip", "rev", "skip", "step_by", "chain", "cycle", "flatten", "flat_map",
    "filter_map", "peekable", "skip_while", "take_while", "map_while", "scan", "fuse",
];
/// Functions that make an iterator (`std::iter::repeat(x)`).
const ITERATOR_FNS: &[&str] = &["repeat", "repeat_n", "repeat_with", "once", "once_with", "from_fn", "successors", "empty"];

/// How the first use of a local holding an `Option` or `Result` treats a `None` or `Err` in it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FirstUse {
    /// Handed on (`name?`) or used as a value.
    HandsOn,
    /// Handled by a method that recovers ([`RECOVERS`]).
    Recovers,
    /// Tested: a `match` or an `if let` on it, a `let .. else`, `is_some()`, `is_err()`: the
    /// branches each hold one outcome ([`Solver::known_match`]).
    Tests,
}

/// Methods that test whether an `Option` or `Result` holds a value (`true`) or not.
const TESTS_OUTCOME: &[(&str, bool)] = &[("is_some", true), ("is_ok", true), ("is_none", false), ("is_err", false)];

/// How the first use of the local `name` in `rest` treats an `Err` (or `None`) it may hold (see
/// [`FirstUse`]); `None`: not used.
fn first_use(name: &syn::Ident, rest: &[Stmt]) -> Option<FirstUse> {
    struct Finder<'n> {
        name: &'n syn::Ident,
        found: Option<FirstUse>,
    }
    impl Finder<'_> {
        fn is_name(&self, e: &Expr) -> bool {
            matches!(strip_parens(e), Expr::Path(p) if p.path.is_ident(self.name))
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if self.found.is_some() {
                return;
            }
            let found = match e {
                Expr::Match(m) => self.is_name(&m.expr).then_some(FirstUse::Tests),
                Expr::Let(l) => self.is_name(&l.expr).then_some(FirstUse::Tests),
                Expr::MethodCall(m) if self.is_name(&m.receiver) => Some(if TESTS_OUTCOME.iter().any(|(t, _)| m.method == t) {
                    FirstUse::Tests
                } else if RECOVERS.contains(&m.method.to_string().as_str()) {
                    FirstUse::Recovers
                } else {
                    FirstUse::HandsOn
                }),
                other if self.is_name(other) => Some(FirstUse::HandsOn),
                _ => None,
            };
            match found {
                Some(f) => self.found = Some(f),
                None => syn::visit::visit_expr(self, e),
            }
        }
        // A `let` that binds the name again ends the search: later uses are of the new local.
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if self.found.is_none() {
                if let Some(init) = l.init.as_ref().filter(|i| i.diverge.is_some() && self.is_name(&i.expr)) {
                    self.found = Some(FirstUse::Tests);
                    self.visit_expr(&init.diverge.as_ref().expect("an else").1);
                    return;
                }
            }
            syn::visit::visit_local(self, l);
            if self.found.is_none() && pattern_names(&l.pat).iter().any(|n| self.name == n) {
                self.found = Some(FirstUse::HandsOn);
            }
        }
    }
    let mut finder = Finder { name, found: None };
    for stmt in rest {
        finder.visit_stmt(stmt);
    }
    finder.found
}

/// What a value returned from a closure says of the closure's outcome: `Some(..)`/`Ok(..)` hold
/// a value (`true`), `None`/`Err(..)` do not; `None`: either.
fn value_outcome(e: &Expr) -> Option<bool> {
    match strip_parens(e) {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.is_ident("Some") || p.path.is_ident("Ok") => Some(true),
            Expr::Path(p) if p.path.is_ident("Err") => Some(false),
            _ => None,
        },
        Expr::Path(p) if p.path.is_ident("None") => Some(false),
        _ => None,
    }
}

/// Whether a pattern matches an `Option`/`Result` of the outcome `holds` (`true`: `Some`/`Ok`):
/// `Some(true)` surely, `Some(false)` surely not, `None`: it depends on the content (`Ok(None)`).
fn pattern_matches_outcome(pat: &Pat, holds: bool) -> Option<bool> {
    let irrefutable = |p: &Pat| matches!(strip_typed(p), Pat::Wild(_) | Pat::Rest(_)) || matches!(strip_typed(p), Pat::Ident(i) if i.subpat.is_none() && i.ident != "None");
    match strip_typed(pat) {
        Pat::Reference(r) => pattern_matches_outcome(&r.pat, holds),
        p if irrefutable(p) => Some(true),
        Pat::Ident(i) if i.ident == "None" => Some(!holds),
        Pat::Path(p) if p.path.is_ident("None") => Some(!holds),
        Pat::TupleStruct(t) => {
            let variant = t.path.segments.last()?.ident.to_string();
            let of_value = match variant.as_str() {
                "Some" | "Ok" => true,
                "Err" => false,
                _ => return None,
            };
            if of_value != holds {
                Some(false)
            } else {
                t.elems.iter().all(irrefutable).then_some(true)
            }
        }
        Pat::Or(o) => {
            let each: Vec<Option<bool>> = o.cases.iter().map(|c| pattern_matches_outcome(c, holds)).collect();
            if each.contains(&Some(true)) {
                Some(true)
            } else if each.iter().all(|m| *m == Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether a closure may end without a value: a `?` in its body (not in a closure or `async`
/// block of its own), or a `None`/`Err(..)` it returns.
fn can_fail(c: &syn::ExprClosure) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Closure(_) | Expr::Async(_) => {}
                Expr::Try(_) => self.0 = true,
                Expr::Return(r) if r.expr.as_deref().and_then(value_outcome) == Some(false) => self.0 = true,
                e => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    finder.visit_expr(&c.body);
    finder.0 || closure_tail(c).and_then(value_outcome) == Some(false)
}

/// The value a closure's body ends with: the body, or its block's tail.
fn closure_tail(c: &syn::ExprClosure) -> Option<&Expr> {
    match &*c.body {
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
            Some(Stmt::Expr(v, None)) => Some(v),
            _ => None,
        },
        body => Some(body),
    }
}

/// Two `let`s that no build compiles together and that bind the same names, in order.
fn cfg_alternatives(a: &Stmt, b: &Stmt) -> bool {
    let (Stmt::Local(a), Stmt::Local(b)) = (a, b) else { return false };
    crate::source::cfg_complementary(&a.attrs, &b.attrs) && pattern_names(&a.pat) == pattern_names(&b.pat)
}

/// The names a pattern binds, in order.
pub fn pattern_names(p: &Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> Visit<'a> for Names {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.0.push(i.ident.to_string());
            syn::visit::visit_pat_ident(self, i);
        }
    }
    let mut n = Names(Vec::new());
    n.visit_pat(p);
    n.0
}

/// Whether `e` is an iterator by its own shape: a range, an `iter::` maker, or a chain through
/// a method that makes or adapts one (`v.iter().map(..)`). A local of unknown type is not.
fn is_iterator(e: &Expr) -> bool {
    match strip_parens(e) {
        Expr::Range(_) => true,
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| ITERATOR_FNS.contains(&s.ident.to_string().as_str()))),
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            ITERATOR_METHODS.contains(&method.as_str())
                // `take(n)` of an iterator; `take()` is `Option::take`.
                || (method == "take" && m.args.len() == 1)
                || (["map", "filter", "inspect", "cloned", "copied"].contains(&method.as_str()) && is_iterator(&m.receiver))
        }
        _ => false,
    }
}

/// Two closures of which exactly one runs: on an `Option` or a `Result`, `x.map(f).unwrap_or_else(g)`
/// and `x.map_or_else(g, f)` run `f` on the value `x` holds, or `g`; on a map's entry,
/// `e.and_modify(f).or_insert_with(g)` runs `f` on an occupied entry, or `g` on a vacant one.
struct OneOfTwo<'e> {
    receiver: &'e Expr,
    content: &'e syn::ExprClosure,
    fallback: &'e syn::ExprClosure,
    /// `x.map(f)`, when the two calls are written apart.
    mapped: Option<&'e Expr>,
}

fn one_of_two(m: &syn::ExprMethodCall) -> Option<OneOfTwo<'_>> {
    match (m.method.to_string().as_str(), m.args.len()) {
        // `x.map(f).unwrap_or_else(g)`, `x.map(f).or_else(g)`; `and_then(f)` too where `f` always
        // gives a value (`|p| { ..; Some(*p) }`): `g` runs exactly where `f` did not.
        ("unwrap_or_else" | "or_else", 1) => {
            let fallback = closure_of(&m.args[0])?;
            let Expr::MethodCall(map) = strip_parens(&m.receiver) else { return None };
            if map.args.len() != 1 || is_iterator(&map.receiver) {
                return None;
            }
            let content = closure_of(&map.args[0])?;
            if !(map.method == "map" || (map.method == "and_then" && !can_fail(content))) {
                return None;
            }
            Some(OneOfTwo { receiver: &map.receiver, content, fallback, mapped: Some(&m.receiver) })
        }
        ("or_insert_with" | "or_insert_with_key", 1) => {
            let fallback = closure_of(&m.args[0])?;
            let Expr::MethodCall(modify) = strip_parens(&m.receiver) else { return None };
            if modify.method != "and_modify" || modify.args.len() != 1 {
                return None;
            }
            Some(OneOfTwo { receiver: &modify.receiver, content: closure_of(&modify.args[0])?, fallback, mapped: Some(&m.receiver) })
        }
        ("map_or_else", 2) if !is_iterator(&m.receiver) => Some(OneOfTwo { receiver: &m.receiver, content: closure_of(&m.args[1])?, fallback: closure_of(&m.args[0])?, mapped: None }),
        _ => None,
    }
}

/// `receiver.map(|x| ..)`, `receiver.and_then(|x| ..)` or `receiver.inspect(|x| ..)` on an
/// `Option` or `Result` (a receiver that is not an iterator), or a chain of them and of
/// conversions that keep a value a value (`lookup.inspect(|_| log()).map(|p| ..)`,
/// `lookup.inspect(..).copied()`; `and_then`, which may turn a value into none, only last):
/// every closure runs once if the chain's base holds a value.
struct Chain<'e> {
    base: &'e Expr,
    /// Innermost first: each call, its closure argument (inline, or a local bound to a closure;
    /// none for a conversion), its receiver.
    links: Vec<(&'e Expr, Option<&'e Expr>, &'e Expr)>,
}

impl Chain<'_> {
    /// The chain ends with `and_then`: its closure's value is the chain's.
    fn ends_with_and_then(&self) -> bool {
        matches!(self.links.last().map(|(call, ..)| strip_parens(call)), Some(Expr::MethodCall(m)) if m.method == "and_then")
    }
}

/// `named`: whether an argument is a local bound to a closure (`map(served)` of `let served =
/// |p| ..;`), run where the combinator runs as an inline one is.
fn combinator<'e>(e: &'e Expr, named: &dyn Fn(&Expr) -> bool) -> Option<Chain<'e>> {
    let mut links = Vec::new();
    let mut at = e;
    while let Expr::MethodCall(m) = strip_parens(at) {
        if is_iterator(&m.receiver) {
            break;
        }
        let method = m.method.to_string();
        let inline = |arg: &'e Expr| closure_of(arg).map(|_| arg);
        let closure = match (method.as_str(), m.args.len()) {
            ("map" | "inspect", 1) => Some(inline(&m.args[0]).or_else(|| named(&m.args[0]).then_some(&m.args[0]))),
            ("and_then", 1) if links.is_empty() => Some(inline(&m.args[0])),
            ("copied" | "cloned" | "as_ref" | "as_deref" | "as_mut" | "as_deref_mut", 0) => None,
            _ => break,
        };
        match closure {
            Some(Some(c)) => links.push((at, Some(c), &*m.receiver)),
            Some(None) => break,
            None => links.push((at, None, &*m.receiver)),
        }
        at = &m.receiver;
    }
    // Conversions left at the base are the base's.
    while links.last().is_some_and(|(_, c, _)| c.is_none()) {
        let (call, ..) = links.pop().expect("a link");
        at = call;
    }
    if links.is_empty() {
        return None;
    }
    links.reverse();
    Some(Chain { base: at, links })
}

/// A field's name as a place writes it (`adapter`, `0` of a tuple element).
pub fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(n) => n.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// The values a struct literal, tuple or array initializer puts into the value it makes, each
/// with the field it fills (`Scope { guard: g, .. }`: `guard`; `(g, n)`: `0` and `1`; an array's
/// items by position). Empty for any other expression.
pub fn literal_parts(init: &Expr) -> Vec<(String, &Expr)> {
    match strip_parens(init) {
        Expr::Struct(st) => st.fields.iter().map(|f| (member_name(&f.member), &f.expr)).collect(),
        Expr::Tuple(t) => t.elems.iter().enumerate().map(|(i, e)| (i.to_string(), e)).collect(),
        Expr::Array(a) => a.elems.iter().enumerate().map(|(i, e)| (i.to_string(), e)).collect(),
        _ => Vec::new(),
    }
}

/// Whether an expression holds a macro call.
fn contains_macro(e: &Expr) -> bool {
    struct Finds(bool);
    impl<'ast> Visit<'ast> for Finds {
        fn visit_macro(&mut self, _: &'ast syn::Macro) {
            self.0 = true;
        }
    }
    let mut f = Finds(false);
    f.visit_expr(e);
    f.0
}

/// Whether `cond` is negated (an odd number of `!`s around it), and what they negate.
fn negations(cond: &Expr) -> (bool, &Expr) {
    match strip_parens(cond) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            let (negated, inner) = negations(&u.expr);
            (!negated, inner)
        }
        other => (false, other),
    }
}

/// The parts of `matches!(scrutinee, PAT)` or `matches!(scrutinee, PAT if guard)`.
fn matches_macro(cond: &Expr) -> Option<(Expr, Pat, Option<Expr>)> {
    let Expr::Macro(m) = strip_parens(cond) else { return None };
    if m.mac.path.segments.last().is_none_or(|s| s.ident != "matches") {
        return None;
    }
    m.mac
        .parse_body_with(|input: syn::parse::ParseStream| {
            let scrutinee: Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pat = Pat::parse_multi_with_leading_vert(input)?;
            let guard = if input.peek(syn::Token![if]) {
                input.parse::<syn::Token![if]>()?;
                Some(input.parse::<Expr>()?)
            } else {
                None
            };
            let _ = input.parse::<Option<syn::Token![,]>>()?;
            Ok((scrutinee, pat, guard))
        })
        .ok()
}

/// `matches!(x, K)` (`K` a literal or a constant, or several joined by `|`, no guard) read as
/// the comparisons `x == K` it makes.
fn constant_matches(cond: &Expr) -> Option<Vec<Expr>> {
    let (scrutinee, pat, None) = matches_macro(cond)? else { return None };
    let constant = |p: &Pat| -> Option<Expr> {
        match p {
            Pat::Lit(l) => Some(Expr::Lit(l.clone())),
            Pat::Path(p) => Some(Expr::Path(p.clone())),
            // A constant's name reads as a binding to the parser.
            Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() && i.mutability.is_none() && i.ident.to_string().chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') => {
                Some(Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path: i.ident.clone().into() }))
            }
            _ => None,
        }
    };
    let alternatives: Vec<&Pat> = match &pat {
        Pat::Or(o) => o.cases.iter().collect(),
        one => vec![one],
    };
    alternatives.into_iter().map(|p| constant(p).map(|k| syn::parse_quote!(#scrutinee == #k))).collect()
}

/// How often a closure walked in place runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Runs {
    Once,
    AtMostOnce,
    AnyTimes,
}
/// Macros that never return normally: the panics, and `bail!` (anyhow's, eyre's, and the
/// `return Err(..)` engines define under that name, candle's `crate::bail!`), an error exit.
const DIVERGING_MACROS: &[&str] = &["panic", "unreachable", "todo", "unimplemented", "bail"];

/// What a macro call does, for every analysis of a body: the one place macros are lowered.
#[derive(Debug)]
pub enum LoweredMacro {
    /// `panic!`, `unreachable!`, `todo!`, `unimplemented!`, `bail!`: the path ends (an error
    /// exit, never a normal one).
    Diverges,
    /// The expressions it evaluates, in order: its arguments, a comma-separated list
    /// (`println!("{}", f(x))`, `assert_eq!(a, b)`, `vec![a, b]`).
    Evaluates(Vec<Expr>),
    /// A body that is not a list of expressions: the calls written among its tokens still run
    /// (`tracing::info!(step = ?log_step(), "..")` runs `log_step()`, where its level is
    /// enabled: [`logs`]); the analysis may read the tokens for the rest.
    Tokens(Vec<Expr>),
}

pub fn lower_macro(mac: &syn::Macro) -> LoweredMacro {
    if macro_diverges(mac) {
        return LoweredMacro::Diverges;
    }
    match mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
        Ok(args) => {
            let mut args: Vec<Expr> = args.into_iter().collect();
            // `println!("{x:?}")`: a name captured by a format string is read there, at the string.
            let captured: Vec<Expr> = args.iter().take(2).flat_map(format_captures).collect();
            args.extend(captured);
            LoweredMacro::Evaluates(args)
        }
        Err(_) => LoweredMacro::Tokens(calls_in_tokens(mac.tokens.clone())),
    }
}

/// Whether a macro is one of `log`'s or `tracing`'s events (`info!`, `tracing::debug!`,
/// `log::log!`, `event!`): its arguments are evaluated only when its level is enabled, so what
/// they call may not run.
pub fn logs(mac: &syn::Macro) -> bool {
    let segs: Vec<String> = mac.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, first) = (segs.last().map(String::as_str), segs.first().map(String::as_str));
    let level = matches!(last, Some("trace" | "debug" | "info" | "warn" | "error" | "log" | "event"));
    level && (segs.len() == 1 || matches!(first, Some("log" | "tracing")))
}

/// Whether a macro never returns normally (`panic!`, `unreachable!`, `todo!`, `unimplemented!`,
/// `bail!`): known from its name, without lowering it.
pub fn macro_diverges(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| DIVERGING_MACROS.iter().any(|d| s.ident == d))
}

/// The names a format string captures (`"{x}"`, `"{x:?}"`, `"{x:>width$}"`), as paths spanned
/// by the string; `{{` is a brace, `{0}` a position, `{}` the next argument.
fn format_captures(e: &Expr) -> Vec<Expr> {
    let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = e else { return Vec::new() };
    let text = s.value();
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('{') {
            rest = after;
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = rest[..end].trim();
        // An identifier (not a keyword, not a position): what `syn` accepts as one.
        if let Ok(mut ident) = syn::parse_str::<syn::Ident>(name) {
            // `{r#fn}`: a raw identifier keeps its `r#` (`Ident::new` panics on it).
            ident.set_span(s.span());
            out.push(Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path: ident.into() }));
        }
        rest = &rest[end..];
    }
    out
}

/// Calls written as `name(..)` anywhere in a token stream, in order.
fn calls_in_tokens(ts: proc_macro2::TokenStream) -> Vec<Expr> {
    use proc_macro2::{Delimiter, TokenTree};
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::new();
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Ident(name) => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
                    if g.delimiter() == Delimiter::Parenthesis {
                        let call: proc_macro2::TokenStream = [TokenTree::Ident(name.clone()), TokenTree::Group(g.clone())].into_iter().collect();
                        if let Ok(e) = syn::parse2::<Expr>(call) {
                            out.push(e);
                        }
                    }
                }
            }
            TokenTree::Group(g) => out.extend(calls_in_tokens(g.stream())),
            _ => {}
        }
    }
    out
}

struct LoopFrame<S> {
    label: Option<String>,
    /// A labelled block: only `break 'label` leaves it.
    is_block: bool,
    breaks: Option<S>,
    continues: Option<S>,
}

/// A helper that is one condition of its parameters ([`Analysis::predicate`]).
pub struct Predicate {
    /// The parameters' names, in order, the receiver left out.
    pub params: Vec<String>,
    pub cond: Expr,
    /// The condition reads `self`: the receiver's, the caller's only where it is called on `self`.
    pub reads_self: bool,
}

/// How deep a condition is followed through locals bound to conditions and predicate helpers.
const MAX_CONDITION_DEPTH: usize = 4;

/// Runs `analysis` over a function body. The parameters of `sig` are bound first, in order
/// (their values are unknown to the solver; the analysis learns of each through
/// [`Analysis::bind`] with `None`), then the names of those a pattern takes apart.
pub fn solve<A: Analysis>(analysis: &mut A, sig: &syn::Signature, body: &syn::Block, entry: A::State) -> Result<(), TooComplex> {
    let mut solver = Solver { analysis, scopes: Scopes::default(), loops: Vec::new(), closure_returns: Vec::new(), closure_errors: Vec::new(), errors_continue: false, wanted_outcome: None, recovered: Default::default(), outcome_splits: Default::default(), splitting: None, splits: 0, outcomes: HashMap::new(), closures: HashMap::new(), async_blocks: HashMap::new(), conditions: HashMap::new(), condition_depth: 0, foreign_self: false, running: Vec::new(), guards: HashMap::new(), moved_guards: Default::default(), arrays: HashMap::new(), expanding: 0, steps: 0 };
    solver.scopes.push();
    let mut state = entry;
    for p in param_names(sig) {
        let id = solver.scopes.bind(&p);
        solver.analysis.bind(&solver.scopes, &mut state, id, None);
    }
    // A parameter taken apart by its pattern (`fn from((shape, dtype): (&[usize], u8))`) binds
    // its names as `let (shape, dtype) = param;` would, from the parameter's own local.
    let mut state = Some(state);
    for (i, pat) in typed_params(sig).enumerate() {
        if matches!(pat, Pat::Ident(_) | Pat::Wild(_)) {
            continue;
        }
        let whole = Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path: syn::Ident::new(&destructured_param(i), proc_macro2::Span::call_site()).into() });
        solver.bind_pattern(pat, Some(&whole), Some(&whole), &mut state);
    }
    let Some(state) = state else { return Ok(()) };
    // The body's block, with the tail read while its locals are in scope.
    solver.scopes.push();
    solver.returned_block(body, Some(state), ExitKind::Tail, None)
}

/// A pattern without its type ascription (`b: u32` of a closure's parameters).
fn strip_typed(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => strip_typed(&t.pat),
        p => p,
    }
}

/// The variant a pattern of one binding matches (`Entry::Vacant(v)`, `&Some(x)`): its last name.
fn variant_of(pat: &Pat) -> Option<&syn::Ident> {
    match pat {
        Pat::Reference(r) => variant_of(&r.pat),
        Pat::Paren(p) => variant_of(&p.pat),
        Pat::TupleStruct(t) if t.elems.len() == 1 && matches!(&t.elems[0], Pat::Ident(i) if i.subpat.is_none()) => t.path.segments.last().map(|s| &s.ident),
        _ => None,
    }
}

/// The part of the matched value each name of `pat` binds, in the order `collect_bindings`
/// binds them (see [`Analysis::bind_parts`]); `None` for a part no field path names.
/// What a local of a slice pattern takes of the slice ([`Analysis::bind_slice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlicePart {
    /// The element at this position.
    Element(usize),
    /// The positions from this one on (`rest @ ..`).
    From(usize),
}

/// For each local a pattern binds, in order, the part of the slice it takes, where the pattern
/// is a slice pattern of names (`[null, rest @ ..]`, `&mut [a, b, ..]`); empty otherwise.
fn slice_parts(pat: &Pat) -> Vec<Option<SlicePart>> {
    let elems = match pat {
        Pat::Reference(r) => return slice_parts(&r.pat),
        Pat::Paren(p) => return slice_parts(&p.pat),
        Pat::Slice(s) => &s.elems,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut past_rest = false;
    for (k, p) in elems.iter().enumerate() {
        match p {
            Pat::Ident(i) if i.by_ref.is_none() => match &i.subpat {
                None => out.push((!past_rest).then_some(SlicePart::Element(k))),
                Some((_, sub)) if matches!(**sub, Pat::Rest(_)) => {
                    out.push(Some(SlicePart::From(k)));
                    past_rest = true;
                }
                Some(_) => return Vec::new(),
            },
            Pat::Rest(_) => past_rest = true,
            Pat::Wild(_) => {}
            _ => return Vec::new(),
        }
    }
    out
}

fn pattern_parts(pat: &Pat, at: &mut Vec<String>, out: &mut Vec<Option<Vec<String>>>) {
    match pat {
        Pat::Ident(p) => {
            if let Some((_, sub)) = &p.subpat {
                pattern_parts(sub, at, out);
            }
            out.push(Some(at.clone()));
        }
        Pat::Type(t) => pattern_parts(&t.pat, at, out),
        Pat::Reference(r) => pattern_parts(&r.pat, at, out),
        Pat::Paren(p) => pattern_parts(&p.pat, at, out),
        Pat::Tuple(t) => {
            for (i, p) in t.elems.iter().enumerate() {
                at.push(i.to_string());
                pattern_parts(p, at, out);
                at.pop();
            }
        }
        // `Some(x)`, `Ok(x)`: the value inside; other variants' elements by position.
        Pat::TupleStruct(t) => {
            let wrapper = t.path.segments.last().is_some_and(|s| ["Some", "Ok", "Err"].contains(&s.ident.to_string().as_str())) && t.elems.len() == 1;
            for (i, p) in t.elems.iter().enumerate() {
                if !wrapper {
                    at.push(i.to_string());
                }
                pattern_parts(p, at, out);
                if !wrapper {
                    at.pop();
                }
            }
        }
        Pat::Struct(s) => {
            for f in &s.fields {
                at.push(member_name(&f.member));
                pattern_parts(&f.pat, at, out);
                at.pop();
            }
        }
        Pat::Slice(s) => {
            let before = out.len();
            s.elems.iter().for_each(|p| pattern_parts(p, at, out));
            out[before..].iter_mut().for_each(|p| *p = None);
        }
        Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                pattern_parts(first, at, out);
            }
        }
        _ => {}
    }
}

/// A value that is control flow with branches of its own values (see [`Solver::returned`]).
fn branches(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => branches(&p.expr),
        Expr::Block(b) => b.label.is_none(),
        Expr::Unsafe(_) | Expr::Match(_) => true,
        Expr::If(i) => i.else_branch.is_some(),
        _ => false,
    }
}

/// `Err(..)`: a value that leaves on the error path.
fn is_err_value(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Err")))
}

fn join<S: Domain>(a: Option<S>, b: Option<S>) -> Option<S> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.join(&b);
            Some(a)
        }
        (a, None) => a,
        (None, b) => b,
    }
}

/// The states at the `return`s (and, where errors go on after it, the `?`s) of a closure being
/// walked, by what the value returned says of its outcome ([`value_outcome`]).
struct Returned<S> {
    /// With a value (`Some`/`Ok`).
    holds: Option<S>,
    /// Without one (`None`/`Err`, a `?`).
    fails: Option<S>,
    /// With a value the syntax does not tell (`f()`).
    either: Option<S>,
}

impl<S: Domain> Returned<S> {
    fn none() -> Self {
        Returned { holds: None, fails: None, either: None }
    }

    fn add(&mut self, outcome: Option<bool>, state: Option<S>) {
        let part = match outcome {
            Some(true) => &mut self.holds,
            Some(false) => &mut self.fails,
            None => &mut self.either,
        };
        *part = join(part.take(), state);
    }

    /// The paths of `outcome`, or all of them.
    fn of(self, outcome: Option<Outcome>) -> Option<S> {
        match outcome {
            Some(Outcome::Holds) => self.holds,
            Some(Outcome::Fails) => self.fails,
            Some(Outcome::Either) => self.either,
            None => join(join(self.holds, self.fails), self.either),
        }
    }
}

/// What the value of a closure run in place says on one walk of the paths after it
/// (`outcome_splits`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    /// It is `Some`/`Ok`.
    Holds,
    /// It is `None`/`Err`.
    Fails,
    /// Either: nothing is known.
    Either,
}

impl Outcome {
    /// Whether the value holds one (`None`: not known).
    fn holds(self) -> Option<bool> {
        match self {
            Outcome::Holds => Some(true),
            Outcome::Fails => Some(false),
            Outcome::Either => None,
        }
    }
}

/// The most walks of a block's rest per outcome of a closure open at once (each doubles the walk).
const MAX_OUTCOME_SPLITS: usize = 3;

/// The locals an expression reads, by name and binding.
type LocalsRead = Vec<(String, LocalId)>;

struct Solver<'a, A: Analysis> {
    analysis: &'a mut A,
    scopes: Scopes,
    loops: Vec<LoopFrame<A::State>>,
    /// The states at `return`s of the closures being walked, innermost last.
    closure_returns: Vec<Returned<A::State>>,
    /// Per closure being walked (innermost last): whether a `?` in it leaves it with the error as
    /// its value, the path going on after it (a closure called where it is written, whose
    /// error is handled where the call is: `(|| { f()?; .. })().unwrap_or_default()`, `match
    /// (|| ..)() { .. }`), rather than leaving the function.
    closure_errors: Vec<bool>,
    /// Set for the next closure [`Solver::closure_at`] runs (see `closure_errors`).
    errors_continue: bool,
    /// Set for the next closure [`Solver::closure_at`] runs: only its paths that end with a value
    /// (`true`: `Some`/`Ok`) or only those that end without one, `?` included (`false`).
    wanted_outcome: Option<Outcome>,
    /// Expressions whose `Err` is handled where they are made: the receivers of recovering
    /// methods ([`RECOVERS`]) and the scrutinees of `match`es. (A result bound to a local and
    /// `?`-ed later, `let r = (|| ..)(); cleanup(); r?`, hands its error on: not one.)
    recovered: std::collections::HashSet<*const Expr>,
    /// `let r = (|| -> Option<_> { .. ? .. })();` whose `r` is tested first where it is used
    /// next (`if let Some(p) = r`, `match r`): the rest of the block is walked once per outcome
    /// of the closure, so a branch on `r` sees only the paths of its outcome (`outcomes`).
    outcome_splits: std::collections::HashSet<*const Stmt>,
    /// The call whose closure is being walked for one outcome, and the outcome.
    splitting: Option<(*const Expr, Outcome)>,
    /// How many such walks are open (at most [`MAX_OUTCOME_SPLITS`]).
    splits: usize,
    /// Locals known to hold a value (`true`) or not, on the path being walked.
    outcomes: HashMap<LocalId, bool>,
    /// Locals bound to a closure (`let flush = || ..;`): a call of one (`flush()`) runs it there.
    closures: HashMap<LocalId, std::rc::Rc<syn::ExprClosure>>,
    /// Locals bound to an `async` block, which runs where the local is awaited.
    async_blocks: HashMap<LocalId, std::rc::Rc<syn::ExprAsync>>,
    /// Locals bound to a condition (`let valid = b != NULL_BLOCK;`), with the locals it reads:
    /// where one decides a branch, so does its condition, while each of those names is still the
    /// local it read and no assignment or `&mut` borrow has changed it.
    conditions: HashMap<LocalId, (std::rc::Rc<Expr>, LocalsRead)>,
    /// How deep [`Self::assume_in`] is in conditions of locals and predicates.
    condition_depth: usize,
    /// The predicate being assumed is a method of another value than the caller's `self`.
    foreign_self: bool,
    /// The closure locals whose calls are being walked: one that reaches itself again (only in
    /// code that does not compile) is not walked twice.
    running: Vec<LocalId>,
    /// Locals holding a scope guard ([`Analysis::runs_at_drop`], `defer!`), with the closure
    /// its drop runs: walked where the local is dropped (the end of its block, a normal exit,
    /// `drop(g)`).
    guards: HashMap<LocalId, std::rc::Rc<syn::ExprClosure>>,
    /// Guards moved out of their local (passed by value, bound to another local, forgotten):
    /// their scope's end runs nothing. Flow-insensitive: moved on one path, moved on all.
    moved_guards: std::collections::HashSet<LocalId>,
    /// Locals bound (immutably) to an array literal of a few items (`let pairs = [(3, 0), (4,
    /// 1)];`): a `for` over one walks its items one by one ([`Solver::unrolled`]).
    arrays: HashMap<LocalId, std::rc::Rc<syn::ExprArray>>,
    /// How deep the walk is in expansions of the file's `macro_rules!`.
    expanding: usize,
    steps: usize,
}

type Flow<S> = Result<Option<S>, TooComplex>;
/// What runs after a block's statements, on the state at their end ([`Solver::stmts_then`]).
type Continue<'r, Solver, S> = dyn FnMut(&mut Solver, Option<S>) -> Flow<S> + 'r;
/// The states where a condition holds and where it fails (`None`: no path).
type Split<S> = (Option<S>, Option<S>);

impl<A: Analysis> Solver<'_, A> {
    fn step(&mut self) -> Result<(), TooComplex> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(TooComplex);
        }
        Ok(())
    }

    fn block(&mut self, b: &syn::Block, state: Option<A::State>) -> Flow<A::State> {
        self.scopes.push();
        self.note_handled_results(&b.stmts);
        let mut state = self.stmts(&b.stmts, state)?;
        if let (Some(s), Some(Stmt::Expr(value, None))) = (state.as_mut(), b.stmts.last()) {
            self.analysis.block_value(&self.scopes, s, value);
        }
        let ending: Vec<LocalId> = self.scopes.frames.last().map(|f| f.iter().rev().map(|(_, id)| *id).collect()).unwrap_or_default();
        for id in ending {
            state = self.drop_local(id, state)?;
        }
        self.scopes.pop();
        Ok(state)
    }

    /// `local`'s value is dropped: a scope guard's closure runs, and the analysis hears of it
    /// (with [`Analysis::DROPS`]).
    fn drop_local(&mut self, local: LocalId, state: Option<A::State>) -> Flow<A::State> {
        let mut state = match self.guards.get(&local).filter(|_| !self.moved_guards.contains(&local)) {
            Some(closure) => self.closure(&closure.clone(), state, Runs::Once)?,
            None => state,
        };
        if let (true, Some(s)) = (A::DROPS, state.as_mut()) {
            self.analysis.dropped(&self.scopes, s, local);
        }
        Ok(state)
    }

    /// The guard local `e` names, bare (`g`, not `&g`).
    fn guard_local(&self, e: &Expr) -> Option<LocalId> {
        let Expr::Path(p) = strip_parens(e) else { return None };
        self.scopes.lookup(&p.path.get_ident()?.to_string()).filter(|id| self.guards.contains_key(id))
    }

    /// The arguments of a call hand over the guards they name by value: moved, they run nothing
    /// where their scope ends; `drop(g)` runs the guard's closure there.
    fn hand_over_guards(&mut self, call: &Expr, args: &[&Expr], state: Option<A::State>) -> Flow<A::State> {
        let drops = matches!(call, Expr::Call(c) if matches!(strip_parens(&c.func), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "drop")));
        let mut state = state;
        let handed: Vec<LocalId> = args.iter().filter_map(|a| self.guard_local(a)).collect();
        for id in handed {
            if drops && !self.moved_guards.contains(&id) {
                let closure = self.guards[&id].clone();
                state = self.closure(&closure, state, Runs::Once)?;
            }
            self.moved_guards.insert(id);
        }
        Ok(state)
    }

    /// A scope guard made where it is dropped (`let _ = guard(.., |_| ..);`, a statement
    /// `guard(.., |_| ..);`) runs its closure at once.
    fn discard(&mut self, value: &Expr, state: Option<A::State>) -> Flow<A::State> {
        let mut state = match self.analysis.runs_at_drop(value) {
            Some(closure) => self.closure(closure, state, Runs::Once)?,
            None => state,
        };
        if let (true, Some(s)) = (A::DROPS, state.as_mut()) {
            self.analysis.discarded(&self.scopes, s, value);
        }
        Ok(state)
    }

    /// Tells the analysis of a normal exit, after the values of the locals in scope are dropped
    /// (with [`Analysis::DROPS`]).
    fn exit(&mut self, state: &A::State, exit: &Exit<'_>) -> Result<(), TooComplex> {
        if !A::DROPS && self.guards.is_empty() {
            self.analysis.exit(&self.scopes, state, exit);
            return Ok(());
        }
        let returned = exit.value.map(strip_parens).filter(|v| matches!(v, Expr::Path(_))).and_then(|v| match self.scopes.place_of(v) {
            Some(Place { base: Base::Local(id), fields }) if fields.is_empty() => Some(id),
            _ => None,
        });
        let ending: Vec<LocalId> = self.scopes.frames.iter().rev().flat_map(|f| f.iter().rev()).map(|(_, id)| *id).filter(|id| Some(*id) != returned).collect();
        let mut s = Some(state.clone());
        for id in ending {
            s = self.drop_local(id, s)?;
        }
        if let Some(s) = s {
            self.analysis.exit(&self.scopes, &s, exit);
        }
        Ok(())
    }

    /// A block whose value the function returns: its statements, then its tail value as
    /// [`Solver::returned`] reads it, while the block's locals are in scope (a block without a
    /// tail value leaves at its closing brace).
    fn returned_block<'x>(&mut self, b: &'x syn::Block, state: Option<A::State>, kind: ExitKind, whole: Option<&'x Expr>) -> Result<(), TooComplex> {
        let (stmts, tail) = match b.stmts.split_last() {
            Some((Stmt::Expr(e, None), rest)) => (rest, Some(e)),
            _ => (&b.stmts[..], None),
        };
        self.note_handled_results(&b.stmts);
        self.stmts_then(stmts, state, &mut |s, state| {
            match tail {
                Some(e) => s.returned(e, state, kind, whole)?,
                None => {
                    if let Some(st) = &state {
                        let close = b.brace_token.span.close();
                        s.exit(st, &Exit { kind, value: None, span: (close, close), unrun: false, branch_of: whole })?;
                    }
                }
            }
            Ok(None)
        })?;
        self.scopes.pop();
        Ok(())
    }

    /// The value the function returns: an `if` with an `else`, a `match` or a block returns what
    /// its branches return, so each branch is an exit of its own, with its own value (`None =>
    /// Ok(None)` declines, `Err(e) => Err(e)` is an error exit, the other arm serves); any other
    /// value is evaluated and leaves (unless it is an `Err(..)`).
    fn returned<'x>(&mut self, e: &'x Expr, state: Option<A::State>, kind: ExitKind, whole: Option<&'x Expr>) -> Result<(), TooComplex> {
        if state.is_none() {
            return Ok(());
        }
        match e {
            Expr::Paren(p) => self.returned(&p.expr, state, kind, whole),
            Expr::Block(b) if b.label.is_none() => {
                self.step()?;
                self.scopes.push();
                self.returned_block(&b.block, state, kind, whole)
            }
            Expr::Unsafe(b) => {
                self.step()?;
                self.scopes.push();
                self.returned_block(&b.block, state, kind, whole)
            }
            // A function that returns a future it builds (`-> impl Future`, tower's `call`): the
            // block is what the caller runs by awaiting it, and its exits are the function's.
            Expr::Async(a) => {
                self.step()?;
                self.scopes.push();
                self.returned_block(&a.block, state, kind, whole)
            }
            Expr::Call(c) if c.args.len() == 1 && matches!(strip_parens(&c.args[0]), Expr::Async(_)) && is_box_pin(&c.func) => self.returned(&c.args[0], state, kind, whole),
            Expr::If(i) if i.else_branch.is_some() => {
                self.step()?;
                self.scopes.push();
                let whole = whole.or(Some(e));
                let (holds, fails) = self.condition(&i.cond, state)?;
                self.returned_block(&i.then_branch, holds, kind, whole)?;
                let (_, els) = i.else_branch.as_ref().expect("an else branch");
                self.returned(els, fails, kind, whole)
            }
            Expr::Match(m) => {
                self.step()?;
                let whole = whole.or(Some(e));
                self.recovered.insert(strip_parens(&m.expr) as *const Expr);
                let state = self.expr(&m.expr, state)?;
                for (k, (arm, taken)) in m.arms.iter().zip(self.arms_taken(m, state)).enumerate() {
                    let s = self.enter_arm(&m.arms[..k], arm, &m.expr, taken)?;
                    self.returned(&arm.body, s, kind, whole)?;
                    self.scopes.pop();
                }
                Ok(())
            }
            // `lookup.map(|g| ..)`: the path where the closure ran leaves with its value, the one
            // where it did not with the receiver's `None`/`Err`.
            _ if self.chain_of(e).is_some() => {
                self.step()?;
                let chain = self.chain_of(e).expect("a combinator");
                let state = self.expr(chain.base, state)?;
                if let Some(s) = &state {
                    self.exit(s, &Exit { kind, value: Some(e), span: expr_span(e), unrun: true, branch_of: whole })?;
                }
                // `and_then`'s value is the closure's: each of its exits, a `return` in it
                // included, is the function's, with its own value (`return None` declines).
                if chain.ends_with_and_then() {
                    let (links, last) = chain.links.split_at(chain.links.len() - 1);
                    let (_, closure, receiver) = last[0];
                    let closure = closure.and_then(closure_of).expect("and_then's inline closure");
                    let ran = self.chain_ran(links, state, false)?;
                    let st = self.enter_closure(closure, ran, Some(e), Some(Takes::Content(receiver)));
                    let frames = std::mem::take(&mut self.loops);
                    let left = self.returned(&closure.body, st, kind, whole);
                    self.loops = frames;
                    self.scopes.pop();
                    return left;
                }
                let ran = self.chain_ran(&chain.links, state, true)?;
                let state = self.transfer(e, ran);
                self.leave(e, state, kind, whole)
            }
            _ => {
                let state = self.expr(e, state)?;
                self.leave(e, state, kind, whole)
            }
        }
    }

    /// A `match` arm entered: a scope of its own (the caller pops it), its pattern's bindings
    /// taken from `scrutinee`, its guard evaluated. A constant pattern is the value there, and
    /// the constant patterns of the unguarded arms before it are not (`match b { NULL_BLOCK =>
    /// {}, _ => pool.write(b, ..) }`): the analysis is told ([`Analysis::assume`]).
    fn enter_arm(&mut self, earlier: &[syn::Arm], arm: &syn::Arm, scrutinee: &Expr, state: Option<A::State>) -> Flow<A::State> {
        self.scopes.push();
        let mut s = state;
        self.bind_pattern(&arm.pat, None, Some(scrutinee), &mut s);
        let compared = |pat: &Pat| -> Option<Expr> { Some(compared(scrutinee, syn::BinOp::Eq(Default::default()), &constant_pattern(pat)?)) };
        for before in earlier.iter().filter(|a| a.guard.is_none()) {
            if let Some(cond) = compared(&before.pat) {
                s = self.assumed(&cond, false, s);
            }
        }
        if let Some(cond) = compared(&arm.pat) {
            s = self.assumed(&cond, true, s);
        }
        // An earlier arm of the same pattern was left by its guard: the guard fails here, of
        // the same names (`Some(e) if !e.fits(n) => refill, Some(e) => serve(e)`).
        let same_pattern = |before: &syn::Arm| before.pat.to_token_stream().to_string() == arm.pat.to_token_stream().to_string();
        for (_, guard) in earlier.iter().filter(|a| same_pattern(a)).filter_map(|a| a.guard.as_ref()) {
            s = self.assumed(guard, false, s);
        }
        match &arm.guard {
            Some((_, guard)) => {
                let s = self.expr(guard, s)?;
                Ok(self.assumed(guard, true, s))
            }
            None => Ok(s),
        }
    }

    /// A normal exit with the value `e`, unless `e` is an `Err(..)`.
    fn leave<'x>(&mut self, e: &'x Expr, state: Option<A::State>, kind: ExitKind, whole: Option<&'x Expr>) -> Result<(), TooComplex> {
        match (&state, is_err_value(e)) {
            (Some(s), false) => self.exit(s, &Exit { kind, value: Some(e), span: expr_span(e), unrun: false, branch_of: whole }),
            _ => Ok(()),
        }
    }

    /// `let r = (|| { f()?; .. })(); .. match r { .. }`: the closure's error is handled where its
    /// result is, later in the block (`stmts`, the whole block: its tail value too); where that
    /// first use tests it, the rest of the block is walked once per outcome (`outcome_splits`).
    /// Noted once per block walked, before its statements.
    fn note_handled_results(&mut self, stmts: &[Stmt]) {
        for (k, stmt) in stmts.iter().enumerate() {
            let Stmt::Local(syn::Local { pat, init: Some(init), .. }) = stmt else { continue };
            let Pat::Ident(name) = strip_typed(pat) else { continue };
            let called = strip_parens(&init.expr);
            let Expr::Call(c) = called else { continue };
            let Some(closure) = closure_of(&c.func) else { continue };
            match first_use(&name.ident, &stmts[k + 1..]) {
                Some(FirstUse::Tests) => {
                    self.recovered.insert(called as *const Expr);
                    if name.subpat.is_none() && can_fail(closure) {
                        self.outcome_splits.insert(stmt as *const Stmt);
                    }
                }
                Some(FirstUse::Recovers) => {
                    self.recovered.insert(called as *const Expr);
                }
                Some(FirstUse::HandsOn) | None => {}
            }
        }
    }

    /// A block's statements in order, until a path ends.
    fn stmts(&mut self, stmts: &[Stmt], state: Option<A::State>) -> Flow<A::State> {
        self.stmts_then(stmts, state, &mut |_, s| Ok(s))
    }

    /// A block's statements in order, until a path ends, then `rest` on the state at their end.
    /// A closure's result tested later in the block (`outcome_splits`) splits the walk: the
    /// statements after it, and `rest`, run once for the paths where it holds a value and once
    /// for those where it does not, and the two ends are joined.
    fn stmts_then(&mut self, stmts: &[Stmt], mut state: Option<A::State>, rest: &mut Continue<'_, Self, A::State>) -> Flow<A::State> {
        let mut k = 0;
        while let Some(stmt) = stmts.get(k) {
            if state.is_none() {
                break;
            }
            k += 1;
            // `#[cfg(P)] let y = a; #[cfg(not(P))] let y = b;`: each build binds `y` to one of
            // them; both alternatives run from the same state and bind the same locals.
            if let Some(other) = stmts.get(k).filter(|other| cfg_alternatives(stmt, other)) {
                k += 1;
                let marks = self.scope_marks();
                let first = self.stmt_in_every_build(stmt, state.clone())?;
                self.rewind_scope(marks);
                let second = self.stmt_in_every_build(other, state)?;
                state = join(first, second);
                continue;
            }
            if self.splits < MAX_OUTCOME_SPLITS && self.outcome_splits.contains(&(stmt as *const Stmt)) {
                let Stmt::Local(syn::Local { init: Some(init), pat, .. }) = stmt else { unreachable!("only `let`s split") };
                let name = pattern_names(pat).pop().unwrap_or_default();
                let marks = self.scope_marks();
                self.splits += 1;
                let mut out = None;
                for outcome in [Outcome::Holds, Outcome::Fails, Outcome::Either] {
                    self.rewind_scope(marks);
                    self.splitting = Some((strip_parens(&init.expr) as *const Expr, outcome));
                    let walked = self.stmt(stmt, state.clone());
                    self.splitting = None;
                    // The closure's own locals come first: the `let`'s is the last bound.
                    let local = self.scopes.lookup(&name);
                    self.outcomes.extend(local.and_then(|l| Some((l, outcome.holds()?))));
                    let end = walked.and_then(|s| self.stmts_then(&stmts[k..], s, rest));
                    local.map(|l| self.outcomes.remove(&l));
                    out = join(out, end?);
                }
                self.splits -= 1;
                return Ok(out);
            }
            state = self.stmt(stmt, state)?;
        }
        rest(self, state)
    }

    /// How many locals are bound, and how many of them in the innermost scope.
    fn scope_marks(&self) -> (usize, usize) {
        (self.scopes.names.len(), self.scopes.frames.last().map_or(0, Vec::len))
    }

    /// The locals bound since `marks` forgotten, to bind the same ones again on another path.
    fn rewind_scope(&mut self, (bound, active): (usize, usize)) {
        self.scopes.names.truncate(bound);
        if let Some(frame) = self.scopes.frames.last_mut() {
            frame.truncate(active);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, state: Option<A::State>) -> Flow<A::State> {
        // A statement compiled in some builds only (`#[cfg(debug_assertions)] check_errors();`):
        // the paths where it ran, joined with those of a build without it.
        let cfg_gated = match stmt {
            Stmt::Expr(e, Some(_)) => crate::source::expr_attrs(e).is_some_and(crate::source::has_cfg),
            Stmt::Macro(m) => crate::source::has_cfg(&m.attrs),
            _ => false,
        };
        if cfg_gated {
            let without = state.clone();
            let with = self.stmt_in_every_build(stmt, state)?;
            return Ok(join(with, without));
        }
        self.stmt_in_every_build(stmt, state)
    }

    fn stmt_in_every_build(&mut self, stmt: &Stmt, state: Option<A::State>) -> Flow<A::State> {
        match stmt {
            Stmt::Local(l) => {
                let Some(init) = &l.init else {
                    let mut state = state;
                    self.bind_pattern(&l.pat, None, None, &mut state);
                    return Ok(state);
                };
                // `let v = m!(..)` of a macro of the file: `v` is bound to its expansion.
                let expanded = match &*init.expr {
                    Expr::Macro(m) => self.expansion(&m.mac),
                    _ => None,
                };
                let init_expr: &Expr = expanded.as_deref().unwrap_or(&init.expr);
                self.expanding += usize::from(expanded.is_some());
                let state = self.expr(init_expr, state);
                self.expanding -= usize::from(expanded.is_some());
                let mut state = state?;
                if let Some((_, diverge)) = &init.diverge {
                    // `let Some(x) = e else { return .. };`: the else block leaves. Where `e`'s
                    // outcome is known, only one of the two runs.
                    let known = self.known_match(init_expr, &l.pat);
                    if known != Some(true) {
                        let _ = self.expr(diverge, state.clone())?;
                    }
                    if known == Some(false) {
                        return Ok(None);
                    }
                }
                if let Pat::Wild(_) = &l.pat {
                    state = self.discard(init_expr, state)?;
                }
                let reads = is_condition(init_expr).then(|| self.condition_reads(init_expr));
                // `let g = guard(.., |_| ..);` holds a scope guard; `let h = g;` moves it to `h`.
                let guard = match self.guard_local(init_expr) {
                    Some(from) => {
                        self.moved_guards.insert(from);
                        self.guards.get(&from).cloned()
                    }
                    None => self.analysis.runs_at_drop(init_expr).map(|c| std::rc::Rc::new(c.clone())),
                };
                let first = self.scopes.names.len();
                self.bind_pattern(&l.pat, Some(init_expr), Some(init_expr), &mut state);
                if let (Some(guard), Pat::Ident(_), true) = (guard, &l.pat, self.scopes.names.len() == first + 1) {
                    self.guards.insert(first as LocalId, guard);
                }
                if let (Some(reads), Pat::Ident(p), true) = (reads, &l.pat, self.scopes.names.len() == first + 1) {
                    if p.mutability.is_none() && p.subpat.is_none() {
                        self.conditions.insert(first as LocalId, (std::rc::Rc::new(init_expr.clone()), reads));
                    }
                }
                if let (Some(closure), true) = (closure_of(init_expr), self.scopes.names.len() == first + 1) {
                    self.closures.insert(first as LocalId, std::rc::Rc::new(closure.clone()));
                }
                // `let fx = async { .. };`, or the handle of a task that runs one (`let task =
                // tokio::spawn(async { .. });`): the block has run where the local is awaited.
                let awaited_block = match strip_parens(init_expr) {
                    Expr::Async(block) => Some(block),
                    spawn => spawned_block(spawn),
                };
                if let (Some(block), Pat::Ident(_), true) = (awaited_block, &l.pat, self.scopes.names.len() == first + 1) {
                    self.async_blocks.insert(first as LocalId, std::rc::Rc::new(block.clone()));
                }
                if let (Expr::Array(items), Pat::Ident(p), true) = (strip_parens(init_expr), &l.pat, self.scopes.names.len() == first + 1) {
                    if p.mutability.is_none() && p.subpat.is_none() && items.elems.len() <= MAX_UNROLLED {
                        self.arrays.insert(first as LocalId, std::rc::Rc::new(items.clone()));
                    }
                }
                Ok(state)
            }
            Stmt::Item(_) => Ok(state),
            Stmt::Expr(e, semi) => {
                let state = self.expr(e, state)?;
                match semi {
                    Some(_) => self.discard(e, state),
                    None => Ok(state),
                }
            }
            Stmt::Macro(m) => match self.expansion(&m.mac) {
                Some(expanded) => self.expanded(&expanded, state),
                // `defer! { .. }`: a guard, in a local of its own, that runs the statements
                // where the block ends.
                None => match deferred_statements(&m.mac) {
                    Some(closure) => {
                        let id = self.scopes.bind("defer!");
                        self.guards.insert(id, std::rc::Rc::new(closure));
                        Ok(state)
                    }
                    // As the expression it stands for, which the analysis hears of after its
                    // arguments (`tokio::join!(flush(), ..);` drives the futures it is handed).
                    None => {
                        let state = self.mac(&m.mac, state)?;
                        let e = match self.analysis.macros() {
                            Some(file) => file.statement(&m.mac),
                            None => std::rc::Rc::new(crate::macros::statement_expr(&m.mac)),
                        };
                        Ok(self.transfer(&e, state))
                    }
                },
            },
        }
    }

    /// Binds the names of a pattern; a name bound to the whole value (`x`, `mut x`, `x: T`)
    /// gets `init`, a name inside a destructuring gets the matching tuple element when `init` is a
    /// tuple, else an unknown value. The analysis sees each binding before its name is in scope,
    /// so `let slots = f(slots)` reads the old `slots`; with the value matched (`scrutinee`), it
    /// hears which locals the pattern took from it ([`Analysis::bind_from`]) and which part of it
    /// each took ([`Analysis::bind_parts`]). Returns the locals.
    /// The locals `pat` bound take an item of `iterated` each round. `(i, chunk)` of
    /// `chunks.enumerate()`: `i` counts the items from 0 (its one name), and only the rest of the
    /// pattern takes an item of what is enumerated.
    fn bind_items(&mut self, pat: &Pat, iterated: &Expr, locals: &[LocalId], st: &mut A::State) {
        let (counted, iterated) = match (pat, strip_parens(iterated)) {
            (Pat::Tuple(t), Expr::MethodCall(m)) if m.method == "enumerate" && m.args.is_empty() && t.elems.len() == 2 => {
                (pattern_names(&t.elems[0]).len().min(locals.len()), &*m.receiver)
            }
            _ => (0, iterated),
        };
        if let [count] = locals[..counted] {
            self.analysis.bind_count(&self.scopes, st, count);
        }
        self.analysis.bind_each(&self.scopes, st, &locals[counted..], iterated);
    }

    fn bind_pattern(&mut self, pat: &Pat, init: Option<&Expr>, scrutinee: Option<&Expr>, state: &mut Option<A::State>) -> Vec<LocalId> {
        let mut bound = Vec::new();
        self.collect_bindings(pat, init, &mut bound);
        if let Some(s) = state.as_mut() {
            for (_, id, init) in &bound {
                self.analysis.bind(&self.scopes, s, *id, *init);
            }
            if let Some(scrutinee) = scrutinee.filter(|_| !bound.is_empty()) {
                let ids: Vec<LocalId> = bound.iter().map(|(_, id, _)| *id).collect();
                self.analysis.bind_from(&self.scopes, s, &ids, scrutinee);
                let mut paths = Vec::new();
                pattern_parts(pat, &mut Vec::new(), &mut paths);
                if paths.len() == ids.len() {
                    let parts: Vec<(LocalId, Vec<String>)> = ids.iter().zip(paths).filter_map(|(id, p)| Some((*id, p?))).collect();
                    self.analysis.bind_parts(&self.scopes, s, &parts, scrutinee);
                }
                let slice: Vec<(LocalId, SlicePart)> = ids.iter().zip(slice_parts(pat)).filter_map(|(id, p)| Some((*id, p?))).collect();
                if !slice.is_empty() {
                    self.analysis.bind_slice(&self.scopes, s, &slice, scrutinee);
                }
                if let Some(variant) = variant_of(pat).filter(|_| ids.len() == 1) {
                    self.analysis.bind_variant(&self.scopes, s, ids[0], variant, scrutinee);
                }
            }
        }
        let ids = bound.iter().map(|(_, id, _)| *id).collect();
        for (name, id, _) in bound {
            self.scopes.activate(name, id);
        }
        ids
    }

    fn collect_bindings<'e>(&mut self, pat: &Pat, init: Option<&'e Expr>, out: &mut Vec<(String, LocalId, Option<&'e Expr>)>) {
        match pat {
            Pat::Ident(p) => {
                if let Some((_, sub)) = &p.subpat {
                    self.collect_bindings(sub, None, out);
                }
                let name = p.ident.to_string();
                let id = self.scopes.reserve(&name);
                out.push((name, id, init));
            }
            Pat::Type(t) => self.collect_bindings(&t.pat, init, out),
            Pat::Reference(r) => self.collect_bindings(&r.pat, None, out),
            Pat::Paren(p) => self.collect_bindings(&p.pat, init, out),
            Pat::Tuple(t) => {
                let elems: Option<Vec<&Expr>> = match init.map(crate::resolve::strip) {
                    Some(Expr::Tuple(tuple)) if tuple.elems.len() == t.elems.len() => Some(tuple.elems.iter().collect()),
                    _ => None,
                };
                for (i, p) in t.elems.iter().enumerate() {
                    self.collect_bindings(p, elems.as_ref().map(|e| e[i]), out);
                }
            }
            Pat::TupleStruct(t) => t.elems.iter().for_each(|p| self.collect_bindings(p, None, out)),
            // `let SlotPos { block, off } = SlotPos { block: b, off: p % 16 }`: each field's
            // pattern takes that field's initializer (a struct literal with `..base` gives no
            // initializer to the fields it does not name).
            Pat::Struct(s) => {
                let fields = match init.map(crate::resolve::strip) {
                    Some(lit @ Expr::Struct(_)) => literal_parts(lit),
                    _ => Vec::new(),
                };
                for f in &s.fields {
                    let name = member_name(&f.member);
                    let value = fields.iter().find(|(n, _)| *n == name).map(|(_, e)| *e);
                    self.collect_bindings(&f.pat, value, out);
                }
            }
            Pat::Slice(s) => s.elems.iter().for_each(|p| self.collect_bindings(p, None, out)),
            Pat::Or(o) => {
                // Every alternative binds the same names: the first one's are enough.
                if let Some(first) = o.cases.first() {
                    self.collect_bindings(first, None, out);
                }
            }
            _ => {}
        }
    }

    fn exprs<'e>(&mut self, es: impl IntoIterator<Item = &'e Expr>, mut state: Option<A::State>) -> Flow<A::State> {
        for e in es {
            state = self.expr(e, state)?;
        }
        Ok(state)
    }

    fn transfer(&mut self, e: &Expr, state: Option<A::State>) -> Option<A::State> {
        let changed = match e {
            Expr::Assign(a) => Some(&*a.left),
            Expr::Binary(b) if is_compound(&b.op) => Some(&*b.left),
            Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            _ => None,
        };
        if let Some(Place { base: Base::Local(id), .. }) = changed.and_then(|c| self.scopes.place_of(c)) {
            self.conditions.retain(|_, (_, reads)| reads.iter().all(|(_, r)| *r != id));
        }
        let mut state = state?;
        self.analysis.transfer(&self.scopes, &mut state, e);
        Some(state)
    }

    fn expr(&mut self, e: &Expr, state: Option<A::State>) -> Flow<A::State> {
        if state.is_none() {
            return Ok(None);
        }
        self.step()?;
        match e {
            Expr::Block(b) => match &b.label {
                // `'a: { .. break 'a v; .. }`: its breaks join its end.
                Some(label) => {
                    self.loops.push(LoopFrame { label: Some(label.name.ident.to_string()), is_block: true, breaks: None, continues: None });
                    let out = self.block(&b.block, state);
                    let frame = self.loops.pop().expect("the frame pushed above");
                    Ok(join(out?, frame.breaks))
                }
                None => self.block(&b.block, state),
            },
            Expr::Unsafe(b) => self.block(&b.block, state),
            // Deferred bodies: run elsewhere, later (unless awaited where written, above); the
            // analysis sees them as values where they are created, like a closure kept for later.
            Expr::Async(_) | Expr::Const(_) => Ok(self.transfer(e, state)),
            Expr::If(i) => {
                self.scopes.push();
                let (holds, otherwise) = self.condition(&i.cond, state)?;
                let then = self.block(&i.then_branch, holds)?;
                self.scopes.pop();
                let els = match &i.else_branch {
                    Some((_, els)) => self.expr(els, otherwise)?,
                    None => otherwise,
                };
                Ok(join(then, els))
            }
            Expr::Let(l) => {
                // In an `if`/`while` condition: the bindings live in the enclosing scope the
                // caller pushed.
                let mut state = self.expr(&l.expr, state)?;
                self.bind_pattern(&l.pat, None, Some(&l.expr), &mut state);
                Ok(state)
            }
            Expr::Match(m) => {
                self.recovered.insert(strip_parens(&m.expr) as *const Expr);
                let mut state = self.expr(&m.expr, state)?;
                if let (Some(st), true) = (state.as_mut(), is_test_match(m)) {
                    self.analysis.tested(&self.scopes, st, &m.expr);
                }
                let mut out = None;
                for (k, (arm, taken)) in m.arms.iter().zip(self.arms_taken(m, state)).enumerate() {
                    let s = self.enter_arm(&m.arms[..k], arm, &m.expr, taken)?;
                    let mut s = self.expr(&arm.body, s)?;
                    // An arm's value, like a block's, is read while the arm's bindings are in scope.
                    if let (Some(st), false) = (s.as_mut(), matches!(&*arm.body, Expr::Block(_))) {
                        self.analysis.block_value(&self.scopes, st, &arm.body);
                    }
                    self.scopes.pop();
                    out = join(out, s);
                }
                Ok(out)
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                let left = self.expr(&b.left, state)?;
                let right = self.expr(&b.right, left.clone())?;
                Ok(join(left, right))
            }
            Expr::ForLoop(f) => {
                let state = self.expr(&f.expr, state)?;
                let label = f.label.as_ref().map(|l| l.name.ident.to_string());
                let mut out = match self.array_of(&f.expr) {
                    Some((items, by_ref)) => self.unrolled(f, label, &items, by_ref, state)?,
                    None => self.looped(label, state, false, |s, st| {
                    s.scopes.push();
                    let mut st = st;
                    let locals = s.bind_pattern(&f.pat, None, None, &mut st);
                    if let Some(st) = st.as_mut() {
                        s.bind_items(&f.pat, &f.expr, &locals, st);
                    }
                    let r = s.block(&f.body, st);
                    s.scopes.pop();
                    r
                    })?,
                };
                if let Some(st) = out.as_mut() {
                    self.analysis.after_for(&self.scopes, st, f);
                }
                Ok(out)
            }
            Expr::While(w) => {
                let label = w.label.as_ref().map(|l| l.name.ident.to_string());
                // The loop leaves where its condition is false: after evaluating it, each round.
                let mut out = self.looped(label, state, true, |s, st| {
                    s.scopes.push();
                    let cond = s.expr(&w.cond, st)?;
                    let leaves = s.assumed(&w.cond, false, cond.clone());
                    if let Some(frame) = s.loops.last_mut() {
                        frame.breaks = join(frame.breaks.take(), leaves);
                    }
                    let holds = s.assumed(&w.cond, true, cond);
                    let r = s.block(&w.body, holds);
                    s.scopes.pop();
                    r
                })?;
                if let Some(st) = out.as_mut() {
                    self.analysis.after_while(&self.scopes, st, w);
                }
                Ok(out)
            }
            Expr::Loop(l) => {
                let label = l.label.as_ref().map(|l| l.name.ident.to_string());
                self.looped(label, state, true, |s, st| s.block(&l.body, st))
            }
            Expr::Break(b) => {
                let mut state = match &b.expr {
                    Some(v) => self.expr(v, state)?,
                    None => state,
                };
                // `break v` gives its loop (or labelled block) a value, as a tail gives a block.
                if let (Some(s), Some(v)) = (state.as_mut(), &b.expr) {
                    self.analysis.block_value(&self.scopes, s, v);
                }
                let label = b.label.as_ref().map(|l| l.ident.to_string());
                if let Some(frame) = self.loop_frame(label.as_deref()) {
                    frame.breaks = join(frame.breaks.take(), state);
                }
                Ok(None)
            }
            Expr::Continue(c) => {
                let label = c.label.as_ref().map(|l| l.ident.to_string());
                if let Some(frame) = self.loop_frame(label.as_deref()) {
                    frame.continues = join(frame.continues.take(), state);
                }
                Ok(None)
            }
            // `return match .. { .. }`: each branch leaves with its own value.
            Expr::Return(r) if self.closure_returns.is_empty() && r.expr.as_deref().is_some_and(branches) => {
                self.returned(r.expr.as_deref().expect("a value"), state, ExitKind::Return, None)?;
                Ok(None)
            }
            Expr::Return(r) => {
                let state = match &r.expr {
                    Some(v) => self.expr(v, state)?,
                    None => state,
                };
                if !self.closure_returns.is_empty() {
                    let mut state = state;
                    if let (Some(v), Some(s)) = (&r.expr, &mut state) {
                        self.analysis.block_value(&self.scopes, s, v);
                    }
                    let frame = self.closure_returns.last_mut().expect("checked above");
                    frame.add(r.expr.as_deref().and_then(value_outcome), state);
                    return Ok(None);
                }
                if let Some(s) = &state {
                    if !r.expr.as_deref().is_some_and(is_err_value) {
                        let span = (r.return_token.span, r.expr.as_deref().map_or(r.return_token.span, |v| expr_span(v).1));
                        self.exit(s, &Exit { kind: ExitKind::Return, value: r.expr.as_deref(), span, unrun: false, branch_of: None })?;
                    }
                }
                Ok(None)
            }
            // `e?`: the error path leaves (an error exit, not reported); the rest goes on. After
            // `compile(g).map(|p| ..)?` the closure ran: the path where it did not is the error's.
            Expr::Try(t) => match self.chain_of(&t.expr) {
                Some(chain) => {
                    self.step()?;
                    let state = self.expr(chain.base, state)?;
                    self.error_in_closure(&state);
                    let ran = self.chain_ran(&chain.links, state, true)?;
                    Ok(self.transfer(&t.expr, ran))
                }
                None => {
                    let state = self.expr(&t.expr, state)?;
                    self.error_in_closure(&state);
                    Ok(state)
                }
            },
            // `async { .. }.await`: the block runs here, once; its `return` leaves the block only.
            Expr::Await(a) => match strip_parens(&a.base) {
                Expr::Async(block) => self.async_block(&block.block, state),
                // `tokio::spawn(async { .. }).await`: the task has run when its handle is ready.
                base if spawned_block(base).is_some() => {
                    let state = self.expr(base, state)?;
                    let block = spawned_block(base).expect("checked in the guard");
                    let out = self.async_block(&block.block, state)?;
                    Ok(self.transfer(e, out))
                }
                // `let fx = async { .. }; .. fx.await`: the block runs where it is awaited.
                base if self.async_local(base).is_some() => {
                    let (id, block) = self.async_local(base).expect("checked in the guard");
                    let state = self.expr(base, state)?;
                    self.running.push(id);
                    let out = self.async_block(&block.block, state);
                    self.running.pop();
                    Ok(self.transfer(e, out?))
                }
                // The awaited future runs here (an analysis hears of the `.await` after its base).
                base => {
                    let state = self.expr(base, state)?;
                    Ok(self.transfer(e, state))
                }
            },
            // A closure not run in place: a value created here; its body runs elsewhere.
            Expr::Closure(_) => Ok(self.transfer(e, state)),
            Expr::Call(c) => {
                let state = match &*c.func {
                    Expr::Path(_) => state,
                    func if closure_of(func).is_some() => state,
                    other => self.expr(other, state)?,
                };
                let runs_once = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| RUNS_ONCE_FNS.contains(&s.ident.to_string().as_str())));
                let mut state = state;
                for (i, arg) in c.args.iter().enumerate() {
                    state = self.argument(e, i, arg, runs_once.then_some(Runs::Once), None, state)?;
                }
                // `(|| ..)()`: the closure runs here, once; so does `flush()` of `let flush = || ..;`,
                // with the names its body uses as they are here.
                let continues = self.recovered.contains(&(e as *const Expr));
                let state = match closure_of(&c.func) {
                    Some(closure) => {
                        self.errors_continue = continues;
                        self.wanted_outcome = self.splitting.filter(|(at, _)| std::ptr::eq(*at, e)).map(|(_, outcome)| outcome);
                        self.closure_at(closure, state, Runs::Once, Some(e), None)?
                    }
                    None => match self.closure_local(&c.func) {
                        Some((id, closure)) => {
                            self.running.push(id);
                            self.errors_continue = continues;
                            self.wanted_outcome = self.splitting.filter(|(at, _)| std::ptr::eq(*at, e)).map(|(_, outcome)| outcome);
                            let ran = self.closure_at(&closure, state, Runs::Once, Some(e), None);
                            self.running.pop();
                            ran?
                        }
                        None => state,
                    },
                };
                let args: Vec<&Expr> = c.args.iter().collect();
                let state = self.hand_over_guards(e, &args, state)?;
                let diverges = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "panic_any" || s.ident == "exit" || s.ident == "abort"));
                let state = self.transfer(e, state);
                Ok(if diverges { None } else { state })
            }
            Expr::MethodCall(m) => {
                if RECOVERS.contains(&m.method.to_string().as_str()) {
                    self.recovered.insert(strip_parens(&m.receiver) as *const Expr);
                }
                if let Some(OneOfTwo { receiver, content, fallback, mapped }) = one_of_two(m) {
                    // The receiver holds a value (`content` ran on it) or not (`fallback` ran):
                    // never both, never neither.
                    let start = self.expr(receiver, state)?;
                    let ran = self.closure_at(content, start.clone(), Runs::Once, None, Some(Takes::Content(receiver)))?;
                    let missed = self.closure_at(fallback, start, Runs::Once, None, None)?;
                    let (ran, missed) = match mapped {
                        Some(map) => (self.transfer(map, ran), self.transfer(map, missed)),
                        None => (ran, missed),
                    };
                    return Ok(self.transfer(e, join(ran, missed)));
                }
                let mut state = self.expr(&m.receiver, state)?;
                let method = m.method.to_string();
                let runs = if RUNS_ONCE.contains(&method.as_str()) {
                    Some(Runs::Once)
                } else if RUNS_AT_MOST_ONCE.contains(&method.as_str()) || (OPTION_OR_ITERATOR.contains(&method.as_str()) && !is_iterator(&m.receiver)) {
                    Some(Runs::AtMostOnce)
                } else {
                    RUNS_IN_PLACE.contains(&method.as_str()).then_some(Runs::AnyTimes)
                };
                // `for_each` is a `for` loop over its receiver; a predicate's one parameter is an
                // item of its receiver as well; `lookup.map(|g| ..)` takes what the lookup holds.
                // A `thread_local!` key's `with(|m| ..)` (`with_borrow`, `with_borrow_mut`) lends
                // what the key holds.
                let thread_local = matches!(method.as_str(), "with_borrow" | "with_borrow_mut")
                    || (method == "with" && matches!(strip_parens(&m.receiver), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident.to_string().chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))));
                let takes = if (TAKES_CONTENT.contains(&method.as_str()) && !is_iterator(&m.receiver)) || thread_local {
                    Some(Takes::Content(&m.receiver))
                } else {
                    let maps_items = MAPS_ITEMS.contains(&method.as_str()) && is_iterator(&m.receiver);
                    (EACH_ITEM.contains(&method.as_str()) || maps_items).then_some(Takes::Each(&m.receiver))
                };
                // `items.fold(init, |acc, item| ..)`: the fold's value is what the closure ends
                // with, the accumulator as the last round left it.
                // `scan(init, |st, item| ..)` binds its parameters the same way; its value is the
                // items the closure returns, not one value.
                if let (true, [init, f]) = (["fold", "try_fold", "scan"].contains(&method.as_str()), &m.args.iter().collect::<Vec<_>>()[..]) {
                    if let Some(closure) = closure_of(f) {
                        let state = self.expr(init, state)?;
                        let value = (method != "scan").then_some(e);
                        let state = self.closure_at(closure, state, Runs::AnyTimes, value, Some(Takes::Fold { init, items: &m.receiver }))?;
                        return Ok(self.transfer(e, state));
                    }
                }
                for (i, arg) in m.args.iter().enumerate() {
                    state = self.argument(e, i, arg, runs, takes, state)?;
                }
                let args: Vec<&Expr> = m.args.iter().collect();
                let state = self.hand_over_guards(e, &args, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Assign(a) => {
                let state = self.expr(&a.right, state)?;
                let state = self.place_operands(&a.left, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Binary(b) => {
                let state = self.expr(&b.left, state)?;
                let state = self.expr(&b.right, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Macro(m) => match self.expansion(&m.mac) {
                Some(expanded) => self.expanded(&expanded, state),
                None => {
                    let state = self.mac(&m.mac, state)?;
                    Ok(self.transfer(e, state))
                }
            },
            Expr::Struct(s) => {
                let state = self.exprs(s.fields.iter().map(|f| &f.expr), state)?;
                let state = match &s.rest {
                    Some(rest) => self.expr(rest, state)?,
                    None => state,
                };
                Ok(self.transfer(e, state))
            }
            Expr::Tuple(t) => {
                let state = self.exprs(&t.elems, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Array(a) => {
                let state = self.exprs(&a.elems, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Repeat(r) => {
                let state = self.expr(&r.expr, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Range(r) => {
                let state = self.exprs(r.start.iter().map(|b| &**b), state)?;
                let state = self.exprs(r.end.iter().map(|b| &**b), state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Index(i) => {
                let state = self.expr(&i.expr, state)?;
                let state = self.expr(&i.index, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Field(f) => {
                let state = self.expr(&f.base, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Unary(u) => {
                let state = self.expr(&u.expr, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Reference(r) => {
                let state = self.expr(&r.expr, state)?;
                Ok(self.transfer(e, state))
            }
            Expr::Paren(p) => self.expr(&p.expr, state),
            Expr::Group(g) => self.expr(&g.expr, state),
            Expr::Cast(c) => {
                let state = self.expr(&c.expr, state)?;
                Ok(self.transfer(e, state))
            }
            _ => Ok(self.transfer(e, state)),
        }
    }

    /// The operands of an assigned place that are evaluated (`a[i] = v` evaluates `i`).
    fn place_operands(&mut self, left: &Expr, state: Option<A::State>) -> Flow<A::State> {
        match left {
            Expr::Index(i) => {
                let state = self.place_operands(&i.expr, state)?;
                self.expr(&i.index, state)
            }
            Expr::Field(f) => self.place_operands(&f.base, state),
            Expr::Paren(p) => self.place_operands(&p.expr, state),
            Expr::Unary(u) => self.place_operands(&u.expr, state),
            Expr::Path(_) | Expr::Infer(_) => Ok(state),
            // A destructuring assignment, `(kv, logits) = step(kv)`, `St { kv, .. } = ..`,
            // `P(kv, logits) = ..`: each element is a place.
            _ if matches!(left, Expr::Tuple(_)) || destructures(left) => {
                let mut state = state;
                for el in assigned_places(left) {
                    state = self.place_operands(el, state)?;
                }
                Ok(state)
            }
            other => self.expr(other, state),
        }
    }

    /// The links of a [`Chain`] run where its base holds a value: each closure once, on what
    /// its receiver holds, each call but the last (`last`: the caller's to transfer) told to the
    /// analysis after its closure.
    fn chain_ran(&mut self, links: &[(&Expr, Option<&Expr>, &Expr)], mut state: Option<A::State>, last: bool) -> Flow<A::State> {
        for (i, &(call, closure, receiver)) in links.iter().enumerate() {
            if let Some(c) = closure.and_then(closure_of) {
                state = self.closure_at(c, state, Runs::Once, Some(call), Some(Takes::Content(receiver)))?;
            } else if let Some((id, c)) = closure.and_then(|named| self.closure_local(named)) {
                self.running.push(id);
                let ran = self.closure_at(&c, state, Runs::Once, Some(call), Some(Takes::Content(receiver)));
                self.running.pop();
                state = ran?;
            }
            if !(last && i + 1 == links.len()) {
                state = self.transfer(call, state);
            }
        }
        Ok(state)
    }

    /// An `if`'s condition evaluated: the states where it holds (its `let` pattern's bindings
    /// made, in the scope the caller pushed) and where it fails. `if let Some(p) =
    /// lookup.inspect(|_| ..)` (or `map`) matched where the closure ran and failed where it did
    /// not (`and_then`'s closure may also have failed it).
    fn condition(&mut self, cond: &Expr, state: Option<A::State>) -> Result<Split<A::State>, TooComplex> {
        let matched = match strip_parens(cond) {
            Expr::Let(l) if matches!(&*l.pat, Pat::TupleStruct(t) if t.path.segments.last().is_some_and(|v| v.ident == "Some" || v.ident == "Ok")) => self.chain_of(&l.expr).map(|chain| (l, chain)),
            _ => None,
        };
        // `matches!(..)` under any number of `!`s (`if !matches!(&self.last, Some((n, _)) if *n
        // == len) { refill }`): the pattern's test, its branches swapped once per `!`.
        let (negated, tested) = negations(cond);
        // `let fresh = matches!(..); if !fresh { refill }`: the test the local holds.
        let held = self.held_test(tested);
        let (tested, state) = match &held {
            Some(test) => (&**test, self.expr(cond, state)?),
            None => (tested, state),
        };
        if let Some((scrutinee, pat, guard)) = matches_macro(tested) {
            let (matched, failed) = self.matches_condition(&scrutinee, &pat, guard.as_ref(), state)?;
            let (matched, failed) = (self.assumed(tested, true, matched), self.assumed(tested, false, failed));
            return Ok(if negated { (failed, matched) } else { (matched, failed) });
        }
        // `if let Some(p) = (|| ..)()`, `if let Some(p) = lookup()` of `let lookup = || ..;`:
        // the closure's paths that end with a value match, those that end without one do not.
        if let Expr::Let(l) = strip_parens(cond) {
            let scrutinee = strip_parens(&l.expr);
            let closure = match scrutinee {
                Expr::Call(c) => closure_of(&c.func).map(|c| std::rc::Rc::new(c.clone())).or_else(|| self.closure_local(&c.func).map(|(_, c)| c)),
                _ => None,
            };
            let by_outcome = pattern_matches_outcome(&l.pat, true) == Some(true) && pattern_matches_outcome(&l.pat, false) == Some(false);
            if closure.is_some_and(|c| can_fail(&c)) && by_outcome {
                self.recovered.insert(scrutinee as *const Expr);
                let mut parts = Vec::with_capacity(3);
                for outcome in [Outcome::Holds, Outcome::Fails, Outcome::Either] {
                    self.splitting = Some((scrutinee as *const Expr, outcome));
                    let part = self.expr(&l.expr, state.clone());
                    self.splitting = None;
                    parts.push(part?);
                }
                let [holds, fails, either] = <[Option<A::State>; 3]>::try_from(parts).unwrap_or_else(|_| unreachable!("three outcomes"));
                let mut matched = join(holds, either.clone());
                self.bind_pattern(&l.pat, None, Some(&l.expr), &mut matched);
                return Ok((matched, join(fails, either)));
            }
        }
        // A test of a closure's result on a path of one outcome (`outcome_splits`).
        if let Some(holds) = self.known_test(cond) {
            if let (Expr::Let(l), false) = (strip_parens(cond), holds) {
                // The pattern's names are bound on no path.
                let state = self.expr(&l.expr, state)?;
                self.bind_pattern(&l.pat, None, Some(&l.expr), &mut None);
                return Ok((None, state));
            }
            let state = self.expr(cond, state)?;
            return Ok(if holds { (state, None) } else { (None, state) });
        }
        let Some((l, chain)) = matched else {
            let cond_state = self.expr(cond, state)?;
            return Ok((self.assumed(cond, true, cond_state.clone()), self.assumed(cond, false, cond_state)));
        };
        let unrun = self.expr(chain.base, state)?;
        let ran = self.chain_ran(&chain.links, unrun.clone(), true)?;
        let ran = self.transfer(&l.expr, ran);
        let unrun = self.transfer(&l.expr, unrun);
        let missed = if chain.ends_with_and_then() { join(unrun, ran.clone()) } else { unrun };
        let mut matched = ran;
        self.bind_pattern(&l.pat, None, Some(&l.expr), &mut matched);
        Ok((matched, missed))
    }

    /// The state each arm of `m` is entered with: `state`, except on a path where the
    /// scrutinee's outcome is known (`outcomes`): there the arms that cannot match it, or that
    /// follow one that surely does, are not taken.
    fn arms_taken(&self, m: &syn::ExprMatch, state: Option<A::State>) -> Vec<Option<A::State>> {
        let mut settled = false;
        m.arms
            .iter()
            .map(|arm| {
                let known = self.known_match(&m.expr, &arm.pat);
                let taken = if settled || known == Some(false) { None } else { state.clone() };
                settled |= known == Some(true) && arm.guard.is_none();
                taken
            })
            .collect()
    }

    /// Whether `pat` matches `scrutinee`, a local whose outcome is known on this path
    /// (`outcomes`): `Some(true)` surely, `Some(false)` surely not.
    fn known_match(&self, scrutinee: &Expr, pat: &Pat) -> Option<bool> {
        pattern_matches_outcome(pat, self.known_outcome(scrutinee)?)
    }

    /// The outcome of `e`, a local whose outcome is known on this path (`outcomes`).
    fn known_outcome(&self, e: &Expr) -> Option<bool> {
        if self.outcomes.is_empty() {
            return None;
        }
        let Expr::Path(p) = strip_parens(e) else { return None };
        self.outcomes.get(&self.scopes.lookup(&p.path.get_ident()?.to_string())?).copied()
    }

    /// What a condition on a local whose outcome is known evaluates to: `if let Some(p) = r`,
    /// `r.is_some()`, `!r.is_err()`.
    fn known_test(&self, cond: &Expr) -> Option<bool> {
        match strip_parens(cond) {
            Expr::Let(l) => self.known_match(&l.expr, &l.pat),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => self.known_test(&u.expr).map(|v| !v),
            Expr::MethodCall(m) if m.args.is_empty() => {
                let (_, when_holds) = TESTS_OUTCOME.iter().find(|(t, _)| m.method == t)?;
                self.known_outcome(&m.receiver).map(|holds| holds == *when_holds)
            }
            _ => None,
        }
    }

    /// `if matches!(x, PAT if guard)`: where it holds, `x` matched `PAT` (its names bound from `x`
    /// while the guard runs, then ended) and the guard held; where it fails, either did not.
    fn matches_condition(&mut self, scrutinee: &Expr, pat: &Pat, guard: Option<&Expr>, state: Option<A::State>) -> Result<Split<A::State>, TooComplex> {
        self.step()?;
        let state = self.expr(scrutinee, state)?;
        self.scopes.push();
        let mut matched = state.clone();
        if let Some(m) = matched.as_mut() {
            self.analysis.tested(&self.scopes, m, scrutinee);
        }
        self.bind_pattern(pat, None, Some(scrutinee), &mut matched);
        let mut failed = state;
        if let Some(guard) = guard {
            let after = self.expr(guard, matched)?;
            failed = join(failed, self.assumed(guard, false, after.clone()));
            matched = self.assumed(guard, true, after);
        }
        self.scopes.pop();
        Ok((matched, failed))
    }

    /// The state where `cond` evaluated to `holds`: each comparison known to hold or to fail
    /// there is told to the analysis ([`Analysis::assume`]): `a && b` holds when both do, `a ||
    /// b` fails when both fail, `!a` flips; `if let` patterns tell nothing.
    fn assumed(&mut self, cond: &Expr, holds: bool, state: Option<A::State>) -> Option<A::State> {
        let mut state = state?;
        self.assume_in(cond, holds, &mut state);
        Some(state)
    }

    fn assume_in(&mut self, cond: &Expr, holds: bool, state: &mut A::State) {
        match strip_parens(cond) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => self.assume_in(&u.expr, !holds, state),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                if holds {
                    self.assume_in(&b.left, true, state);
                    self.assume_in(&b.right, true, state);
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
                if !holds {
                    self.assume_in(&b.left, false, state);
                    self.assume_in(&b.right, false, state);
                }
            }
            Expr::Let(_) => {}
            // `matches!(b, NULL_BLOCK)` of a constant pattern is `b == NULL_BLOCK`; of several
            // (`A | B`), it fails where each comparison fails.
            atom @ Expr::Macro(_) => {
                let Some(compared) = constant_matches(atom) else { return };
                if let [one] = compared.as_slice() {
                    self.assume_in(one, holds, state);
                } else if !holds {
                    for eq in &compared {
                        self.assume_in(eq, false, state);
                    }
                }
            }
            atom => {
                if self.condition_depth < MAX_CONDITION_DEPTH {
                    self.condition_depth += 1;
                    self.assume_through(atom, holds, state);
                    self.condition_depth -= 1;
                }
                if !(self.foreign_self && names_read(atom).iter().any(|n| n == "self")) {
                    self.analysis.assume(&self.scopes, state, atom, holds)
                }
            }
        }
    }

    /// `if valid` where `let valid = b != NULL_BLOCK;`, `if !is_null(b)`: the condition the local
    /// holds or the predicate helper tests, assumed where it is still the same condition.
    fn assume_through(&mut self, atom: &Expr, holds: bool, state: &mut A::State) {
        if let Expr::Path(_) = atom {
            if let Some(cond) = self.held_condition(atom) {
                self.assume_in(&cond, holds, state);
            }
            return;
        }
        let (args, on_caller_self): (Vec<&Expr>, bool) = match atom {
            Expr::Call(c) => (c.args.iter().collect(), false),
            Expr::MethodCall(m) => (m.args.iter().collect(), matches!(strip_parens(&m.receiver), Expr::Path(r) if r.path.is_ident("self"))),
            _ => return,
        };
        let Some(pred) = self.analysis.predicate(atom, self.condition_depth) else { return };
        if pred.params.len() != args.len() {
            return;
        }
        // The helper's own names are its parameters; any other local of the caller's that its
        // condition names would be read as the caller's, so such a condition is not assumed.
        let reads = self.locals_read(&pred.cond);
        if reads.iter().any(|(name, _)| !pred.params.contains(name)) {
            return;
        }
        self.scopes.push();
        for (param, arg) in pred.params.iter().zip(args) {
            let arg_local = match strip_parens(arg) {
                Expr::Path(a) => a.path.get_ident().and_then(|i| self.scopes.lookup(&i.to_string())),
                _ => None,
            };
            match arg_local {
                Some(id) => self.scopes.activate(param.clone(), id),
                None => {
                    self.scopes.bind(param);
                }
            }
        }
        // `pool.holds(b)`: the helper's `self` is `pool`, not the caller's `self`; the parts of
        // its condition that read `self` tell nothing here.
        let foreign_self = std::mem::replace(&mut self.foreign_self, pred.reads_self && !on_caller_self);
        self.assume_in(&pred.cond, holds, state);
        self.foreign_self = foreign_self;
        self.scopes.pop();
    }

    /// The condition a local named by `atom` holds (`let valid = b != NULL_BLOCK;`), while the
    /// locals it reads are still those it read.
    fn held_condition(&self, atom: &Expr) -> Option<std::rc::Rc<Expr>> {
        let Expr::Path(p) = strip_parens(atom) else { return None };
        let id = self.scopes.lookup(&p.path.get_ident()?.to_string())?;
        let (cond, reads) = self.conditions.get(&id)?;
        reads.iter().all(|(name, r)| self.scopes.lookup(name) == Some(*r)).then(|| cond.clone())
    }

    /// The `matches!(..)` test a local holds (`let fresh = matches!(&self.last, Some((n, _)) if
    /// *n == len);`), to be matched again where the local is tested: only a test that calls
    /// nothing with arguments and no macro (walked twice, a call would run twice).
    fn held_test(&self, atom: &Expr) -> Option<std::rc::Rc<Expr>> {
        let cond = self.held_condition(atom)?;
        let (scrutinee, _, guard) = matches_macro(&cond)?;
        let pure = |e: &Expr| crate::rules::calls_in_expr(e).iter().all(|c| matches!(c, Expr::MethodCall(m) if m.args.is_empty())) && !contains_macro(e);
        (pure(&scrutinee) && guard.as_ref().is_none_or(pure)).then_some(cond)
    }

    /// The locals a condition kept in a local reads: of a `matches!`, its scrutinee and guard.
    fn condition_reads(&self, cond: &Expr) -> LocalsRead {
        match matches_macro(cond) {
            Some((scrutinee, _, guard)) => {
                let mut reads = self.locals_read(&scrutinee);
                reads.extend(guard.map(|g| self.locals_read(&g)).unwrap_or_default());
                reads
            }
            None => self.locals_read(cond),
        }
    }

    /// The locals of the caller an expression names (plain names bound here), with their ids.
    fn locals_read(&self, e: &Expr) -> LocalsRead {
        names_read(e).into_iter().filter_map(|n| self.scopes.lookup(&n).map(|id| (n, id))).collect()
    }

    /// A `?` whose error leaves the closure being walked, not the function (`closure_errors`): the
    /// path goes on after the closure from here.
    fn error_in_closure(&mut self, state: &Option<A::State>) {
        if self.closure_errors.last() == Some(&true) {
            if let Some(frame) = self.closure_returns.last_mut() {
                frame.add(Some(false), state.clone());
            }
        }
    }

    /// An `async` block run where it is awaited, once; its `return` leaves the block only.
    fn async_block(&mut self, block: &syn::Block, state: Option<A::State>) -> Flow<A::State> {
        let frames = std::mem::take(&mut self.loops);
        self.closure_returns.push(Returned::none());
        self.closure_errors.push(false);
        let out = self.block(block, state);
        self.closure_errors.pop();
        let returned = self.closure_returns.pop().and_then(|r| r.of(None));
        self.loops = frames;
        Ok(join(out?, returned))
    }

    /// The `async` block an awaited local was bound to (not one being walked).
    fn async_local(&self, base: &Expr) -> Option<(LocalId, std::rc::Rc<syn::ExprAsync>)> {
        self.bound_body(&self.async_blocks, base)
    }

    /// The combinator chain `e` is ([`combinator`]), its closures inline or bound to locals.
    fn chain_of<'e>(&self, e: &'e Expr) -> Option<Chain<'e>> {
        combinator(e, &|a| self.closure_local(a).is_some())
    }

    /// The closure a callee names when it is a local bound to one (not one being walked).
    fn closure_local(&self, func: &Expr) -> Option<(LocalId, std::rc::Rc<syn::ExprClosure>)> {
        self.bound_body(&self.closures, func)
    }

    /// What `e`, a plain local, was bound to among `bodies`, unless that body is being walked.
    fn bound_body<T>(&self, bodies: &HashMap<LocalId, std::rc::Rc<T>>, e: &Expr) -> Option<(LocalId, std::rc::Rc<T>)> {
        let Expr::Path(p) = e else { return None };
        let id = self.scopes.lookup(&p.path.get_ident()?.to_string())?;
        if self.running.contains(&id) {
            return None;
        }
        bodies.get(&id).map(|b| (id, b.clone()))
    }

    /// The argument at `i` of `call`. A closure the callee runs is walked in place: as `runs`
    /// says for a callee known by name, else as the analysis's callback summary of the callee
    /// says ([`Analysis::callback_runs`]); so is a local bound to a closure (`let f = |c| ..;
    /// pool.with_cache(f)`), with the names its body uses as they are here.
    fn argument(&mut self, call: &Expr, i: usize, arg: &Expr, runs: Option<Runs>, takes: Option<Takes<'_>>, state: Option<A::State>) -> Flow<A::State> {
        let called_back = |s: &mut Self| match runs {
            Some(runs) => Some((runs, takes)),
            None => s.analysis.callback_runs(call, i).map(|runs| (runs, Some(Takes::Callback { call, arg: i }))),
        };
        if let Some(closure) = closure_of(arg) {
            return match called_back(self) {
                Some((runs, takes)) => self.closure_at(closure, state, runs, None, takes),
                None => self.expr(arg, state),
            };
        }
        let state = self.expr(arg, state)?;
        let named = match strip_parens(arg) {
            Expr::Reference(r) => &*r.expr,
            named => named,
        };
        let Some((id, closure)) = self.closure_local(named) else { return Ok(state) };
        let Some((runs, takes)) = called_back(self) else { return Ok(state) };
        self.running.push(id);
        // The closure's value is what the name stands for where it is handed on (`map(slot_of)`).
        let ran = self.closure_at(&closure, state, runs, Some(named), takes);
        self.running.pop();
        ran
    }

    /// A closure walked in place, as often as it `runs`.
    fn closure(&mut self, c: &syn::ExprClosure, state: Option<A::State>, runs: Runs) -> Flow<A::State> {
        self.closure_at(c, state, runs, None, None)
    }

    /// A closure walked in place; `call`: the call whose value is the closure's
    /// ([`Analysis::call_value`]); `takes`: what its one parameter takes from the receiver of the
    /// method that runs it: each item, as a `for` loop's pattern would (`(0..n).for_each(|b| ..)`
    /// is `for b in 0..n { .. }`), or what an `Option`/`Result` holds (`lookup.map(|g| ..)` is
    /// `if let Some(g) = lookup { .. }`).
    fn closure_at(&mut self, c: &syn::ExprClosure, state: Option<A::State>, runs: Runs, call: Option<&Expr>, takes: Option<Takes<'_>>) -> Flow<A::State> {
        let errors_continue = std::mem::take(&mut self.errors_continue);
        let wanted = self.wanted_outcome.take();
        let run = |s: &mut Self, st: Option<A::State>| {
            let st = s.enter_closure(c, st, call, takes);
            s.closure_errors.push(errors_continue);
            // A `return` in a closure leaves the closure, not the function: its state joins the
            // closure's end. Loops outside the closure are not the targets of its `break`s.
            let frames = std::mem::take(&mut s.loops);
            s.closure_returns.push(Returned::none());
            let mut r = s.expr(&c.body, st);
            if let (Some(call), Ok(Some(end)), Some(value)) = (call, r.as_mut(), closure_tail(c)) {
                s.analysis.call_value(&s.scopes, end, call, value);
            }
            let mut returned = s.closure_returns.pop().unwrap_or(Returned::none());
            s.closure_errors.pop();
            s.loops = frames;
            s.scopes.pop();
            returned.add(closure_tail(c).and_then(value_outcome), r?);
            Ok(returned.of(wanted))
        };
        match runs {
            Runs::Once => run(self, state),
            Runs::AtMostOnce => {
                let ran = run(self, state.clone())?;
                Ok(join(state, ran))
            }
            Runs::AnyTimes => self.looped(None, state, false, |s, st| run(s, st)),
        }
    }

    /// A closure's scope entered (the caller pops it) and its parameters bound: to the arguments
    /// of a call by name (`pad(&mut slots, n)` of `let pad = |v: &mut Vec<i64>, n| ..`), as a
    /// `let` would bind them, and to what the closure takes (an iterated item, a content).
    fn enter_closure(&mut self, c: &syn::ExprClosure, mut st: Option<A::State>, call: Option<&Expr>, takes: Option<Takes<'_>>) -> Option<A::State> {
        self.scopes.push();
        let mut ids = Vec::new();
        let args: Vec<&Expr> = match call {
            Some(Expr::Call(called)) => called.args.iter().collect(),
            _ => Vec::new(),
        };
        let mut accumulators = 0;
        let mut one_name = Vec::new();
        for (k, p) in c.inputs.iter().enumerate() {
            let before = self.scopes.names.len();
            let init = match takes {
                Some(Takes::Fold { init, .. }) if k == 0 => Some(init),
                _ => args.get(k).copied(),
            };
            self.bind_pattern(p, init, None, &mut st);
            ids.extend((before..self.scopes.names.len()).map(|i| i as LocalId));
            if k == 0 {
                accumulators = ids.len();
            }
            let bound = before..self.scopes.names.len();
            let named = matches!(strip_typed(p), Pat::Ident(_)) || matches!(strip_typed(p), Pat::Reference(r) if matches!(&*r.pat, Pat::Ident(_)));
            one_name.push((named && bound.len() == 1).then_some(bound.start as LocalId));
        }
        if let Some(st) = st.as_mut() {
            self.analysis.closure_params(&self.scopes, st, &ids);
            match takes {
                Some(Takes::Each(iterated)) => match c.inputs.first() {
                    Some(pat) if c.inputs.len() == 1 => self.bind_items(strip_typed(pat), iterated, &ids, st),
                    _ => self.analysis.bind_each(&self.scopes, st, &ids, iterated),
                },
                Some(Takes::Content(holder)) => self.analysis.bind_from(&self.scopes, st, &ids, holder),
                Some(Takes::Fold { items, .. }) => self.analysis.bind_each(&self.scopes, st, &ids[accumulators..], items),
                Some(Takes::Callback { call, arg }) => self.analysis.bind_callback(&self.scopes, st, call, arg, &one_name),
                None => {}
            }
        }
        st
    }

    /// A loop: `body` runs from the head state until the head stops changing; the exit is the head
    /// (the loop may stop before any iteration, unless it is a `loop`) joined with every `break`.
    fn looped(
        &mut self,
        label: Option<String>,
        entry: Option<A::State>,
        only_break_exits: bool,
        mut body: impl FnMut(&mut Self, Option<A::State>) -> Flow<A::State>,
    ) -> Flow<A::State> {
        let mut head = entry;
        let mut breaks = None;
        // Every round walks the same syntax in the same order: its bindings get the same ids.
        let bound_before = self.scopes.names.len();
        for _ in 0..MAX_LOOP_ROUNDS {
            self.scopes.names.truncate(bound_before);
            self.loops.push(LoopFrame { label: label.clone(), is_block: false, breaks: None, continues: None });
            let out = body(self, head.clone());
            let frame = self.loops.pop().expect("the frame pushed above");
            let out = out?;
            breaks = join(breaks, frame.breaks);
            let next = join(join(head.clone(), out), frame.continues);
            if next == head {
                break;
            }
            head = next;
        }
        Ok(if only_break_exits { breaks } else { join(head, breaks) })
    }

    /// `for v in [&mut *tokens, &mut *positions, &mut *slots] { .. }`: the body once for each
    /// item, in order, its pattern bound to the item as a `let` binds it (`v` is `slots` in the
    /// last round, whatever the others did); `continue` goes on to the next item, `break` leaves.
    fn unrolled(&mut self, f: &syn::ExprForLoop, label: Option<String>, items: &syn::ExprArray, by_ref: bool, mut state: Option<A::State>) -> Flow<A::State> {
        // Over references to the items (`for &(s, d) in &pairs`): `&p` takes the item as `p`.
        let pat = match &*f.pat {
            Pat::Reference(r) if by_ref => &*r.pat,
            other => other,
        };
        let mut breaks = None;
        // Each round walks the same syntax: its bindings get the same ids.
        let bound_before = self.scopes.names.len();
        for item in &items.elems {
            self.scopes.names.truncate(bound_before);
            self.loops.push(LoopFrame { label: label.clone(), is_block: false, breaks: None, continues: None });
            self.scopes.push();
            let mut st = state;
            self.bind_pattern(pat, Some(item), None, &mut st);
            let out = self.block(&f.body, st);
            self.scopes.pop();
            let frame = self.loops.pop().expect("the frame pushed above");
            breaks = join(breaks, frame.breaks);
            state = join(out?, frame.continues);
        }
        Ok(join(state, breaks))
    }

    /// The array literal a `for` walks, and whether it walks references to its items: the
    /// literal, a local bound to one (`pairs`), borrowed or iterated (`&pairs`, `pairs.iter()`).
    fn array_of(&self, iterated: &Expr) -> Option<(std::rc::Rc<syn::ExprArray>, bool)> {
        match strip_parens(iterated) {
            Expr::Array(items) if items.elems.len() <= MAX_UNROLLED => Some((std::rc::Rc::new(items.clone()), false)),
            Expr::Reference(r) if r.mutability.is_none() => Some((self.array_of(&r.expr)?.0, true)),
            Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter" => Some((self.array_of(&m.receiver)?.0, true)),
            Expr::MethodCall(m) if m.args.is_empty() && m.method == "into_iter" => self.array_of(&m.receiver),
            path @ Expr::Path(_) => match self.scopes.place_of(path)? {
                Place { base: Base::Local(id), fields } if fields.is_empty() => Some((self.arrays.get(&id)?.clone(), false)),
                _ => None,
            },
            _ => None,
        }
    }

    fn loop_frame(&mut self, label: Option<&str>) -> Option<&mut LoopFrame<A::State>> {
        match label {
            None => self.loops.iter_mut().rev().find(|f| !f.is_block),
            Some(l) => self.loops.iter_mut().rev().find(|f| f.label.as_deref() == Some(l)),
        }
    }

    /// A call of one of the file's `macro_rules!`, expanded into a block (its braces spanning the
    /// call's delimiters), while expansions nest no deeper than [`crate::macros::MAX_EXPANSION_DEPTH`].
    fn expansion(&self, mac: &syn::Macro) -> Option<std::rc::Rc<Expr>> {
        if self.expanding >= crate::macros::MAX_EXPANSION_DEPTH {
            return None;
        }
        self.analysis.macros()?.expansion(mac)
    }

    /// `mac` lowered ([`lower_macro`]), once per invocation where the analysis knows the file.
    fn lowered(&self, mac: &syn::Macro) -> std::rc::Rc<LoweredMacro> {
        match self.analysis.macros() {
            Some(file) => file.lowered(mac),
            None => std::rc::Rc::new(lower_macro(mac)),
        }
    }

    fn expanded(&mut self, expanded: &Expr, state: Option<A::State>) -> Flow<A::State> {
        self.expanding += 1;
        let state = self.expr(expanded, state);
        self.expanding -= 1;
        state
    }

    /// A macro, as [`lower_macro`] lowers it (a `vec![..]` is also a value, for the analysis).
    fn mac(&mut self, mac: &syn::Macro, state: Option<A::State>) -> Flow<A::State> {
        match &*self.lowered(mac) {
            LoweredMacro::Diverges => Ok(None),
            LoweredMacro::Evaluates(exprs) => {
                let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                // `debug_assert!(check_errors())` evaluates its arguments only with debug
                // assertions on: joined with a release build's path, as a `#[cfg]` statement is;
                // a logging macro, only where its level is enabled.
                if name.starts_with("debug_assert") || logs(mac) {
                    let without = state.clone();
                    return Ok(join(self.exprs(exprs, state)?, without));
                }
                let state = self.exprs(exprs, state)?;
                // Past `assert!(c)` (`assert_ne!(a, b)`, `assert_eq!(a, b)`), `c` holds. Not past
                // `debug_assert!(c)`: a release build does not check it.
                let held: Option<Expr> = match (name.as_str(), exprs.as_slice()) {
                    ("assert", [c, ..]) => Some(c.clone()),
                    // Built, not parsed: `assert_eq!(a < b, c)` would read as a chained comparison.
                    ("assert_ne", [a, b, ..]) => Some(compared(a, syn::BinOp::Ne(Default::default()), b)),
                    ("assert_eq", [a, b, ..]) => Some(compared(a, syn::BinOp::Eq(Default::default()), b)),
                    _ => None,
                };
                Ok(match held {
                    Some(c) => self.assumed(&c, true, state),
                    None => state,
                })
            }
            LoweredMacro::Tokens(calls) => {
                let without = logs(mac).then(|| state.clone());
                let mut state = self.exprs(calls, state)?;
                if let Some(without) = without {
                    state = join(state, without);
                }
                if let Some(s) = state.as_mut() {
                    self.analysis.macro_tokens(&self.scopes, s, mac);
                }
                Ok(state)
            }
        }
    }
}

/// `e` without the parentheses and invisible groups around it.
pub fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        other => other,
    }
}

/// The plain names an expression reads (`b`, `self`, `NULL_BLOCK`; not the segments of longer
/// paths).
pub fn names_read(e: &Expr) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.0.push(i.to_string());
            }
        }
    }
    let mut names = Names(Vec::new());
    syn::visit::Visit::visit_expr(&mut names, e);
    names.0
}

/// An expression that is a condition, worth remembering in the local it is bound to: a
/// comparison, `&&`, `||` or `!` of them, a test of what an `Option` or `Result` holds, or a
/// `matches!`.
pub fn is_condition(e: &Expr) -> bool {
    use syn::BinOp::*;
    match strip_parens(e) {
        Expr::Binary(b) => matches!(b.op, Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_)),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
        // A test of what an `Option` or `Result` holds: `x.is_some_and(|e| e.len == n)`,
        // `x.map_or(true, |e| e.len != n)`.
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "is_some_and" | "is_none_or" | "is_ok_and" | "is_err_and" => true,
            "map_or" => matches!(m.args.first().map(strip_parens), Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(_), .. }))),
            _ => false,
        },
        Expr::Match(m) => is_test_match(m),
        Expr::Macro(_) => matches_macro(e).is_some(),
        _ => false,
    }
}

/// A `match` whose arms only answer a question about the value: each gives a condition or a
/// `bool` (`match &self.last { Some(e) => !e.fits(n, h), None => true }`). What the patterns
/// bind is read by the answer and ends with it.
pub fn is_test_match(m: &syn::ExprMatch) -> bool {
    let is_bool = |e: &Expr| matches!(strip_parens(e), Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(_), .. }));
    let answers = |e: &Expr| is_bool(e) || is_condition(e) || matches!(strip_parens(e), Expr::MethodCall(_));
    m.arms.iter().all(|a| answers(&a.body)) && m.arms.iter().any(|a| is_bool(&a.body))
}

/// `a OP b`, with `a` and `b` as they are (a comparison operand that is itself one stays whole).
fn compared(a: &Expr, op: syn::BinOp, b: &Expr) -> Expr {
    Expr::Binary(syn::ExprBinary { attrs: Vec::new(), left: Box::new(a.clone()), op, right: Box::new(b.clone()) })
}

/// `+=`, `-=`, `*=`, ...: an operator that assigns.
pub(crate) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) | BitXorAssign(_) | BitAndAssign(_) | BitOrAssign(_) | ShlAssign(_) | ShrAssign(_))
}

/// A closure, through parentheses: `(|| ..)`.
pub fn closure_of(e: &Expr) -> Option<&syn::ExprClosure> {
    match e {
        Expr::Closure(c) => Some(c),
        Expr::Paren(p) => closure_of(&p.expr),
        _ => None,
    }
}

/// A set of facts that may hold, joined by union (one path or the other).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaySet<T: Ord>(pub std::collections::BTreeSet<T>);

impl<T: Ord> Default for MaySet<T> {
    fn default() -> Self {
        MaySet(Default::default())
    }
}

impl<T: Ord + Clone> Domain for MaySet<T> {
    fn join(&mut self, other: &Self) {
        self.0.extend(other.0.iter().cloned());
    }
}

/// A state that maps places to facts, joined place by place: what most analyses need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceMap<V> {
    pub map: std::collections::BTreeMap<Place, V>,
}

impl<V> Default for PlaceMap<V> {
    fn default() -> Self {
        PlaceMap { map: Default::default() }
    }
}

impl<V: Domain + Default> Domain for PlaceMap<V> {
    fn join(&mut self, other: &Self) {
        for (k, v) in &other.map {
            self.map.entry(k.clone()).or_default().join(v);
        }
    }
}

impl<V> PlaceMap<V> {
    /// Removes `place` and every field inside it.
    pub fn clear_under(&mut self, place: &Place) {
        self.map.retain(|k, _| !k.starts_with(place));
    }
}

impl<V: Clone> PlaceMap<V> {
    /// What `a` and `b`, and the places inside them, hold, exchanged (`mem::swap(&mut a, &mut b)`).
    /// Places one inside the other (which no program can swap) are left as they are.
    pub fn exchange(&mut self, a: &Place, b: &Place) {
        if a.starts_with(b) || b.starts_with(a) {
            return;
        }
        let under = |from: &Place, to: &Place| -> Vec<(Place, V)> {
            self.map.iter().filter(|(p, _)| p.starts_with(from)).map(|(p, v)| (to.fields_then(&p.fields[from.fields.len()..]), v.clone())).collect()
        };
        let (to_b, to_a) = (under(a, b), under(b, a));
        self.clear_under(a);
        self.clear_under(b);
        self.map.extend(to_b.into_iter().chain(to_a));
    }
}

/// How many parameters a signature has, receiver excluded: their locals are the first ids.
pub fn param_count(sig: &syn::Signature) -> usize {
    sig.inputs.iter().filter(|a| matches!(a, syn::FnArg::Typed(_))).count()
}

/// Names to ids of the parameters of a signature, receiver excluded (patterns other than a name
/// get a placeholder, so that positions still match the arguments).
pub fn param_names(sig: &syn::Signature) -> Vec<String> {
    typed_params(sig)
        .enumerate()
        .map(|(i, pat)| match pat {
            Pat::Ident(p) => p.ident.to_string(),
            Pat::Wild(_) => "_".to_string(),
            _ => destructured_param(i),
        })
        .collect()
}

/// The patterns of a signature's parameters, `self` left out.
fn typed_params(sig: &syn::Signature) -> impl Iterator<Item = &Pat> {
    sig.inputs.iter().filter_map(|a| match a {
        syn::FnArg::Receiver(_) => None,
        syn::FnArg::Typed(t) => Some(&*t.pat),
    })
}

/// The name of the local that holds a parameter its pattern takes apart (the names are bound
/// from it): by its position, a name programs do not write in practice.
fn destructured_param(i: usize) -> String {
    format!("__param{i}")
}

/// Summaries of helpers follow calls this many helpers deep.
pub const MAX_SUMMARY_DEPTH: usize = 6;

/// Memo of per-function results keyed by name, for summaries computed on demand.
pub type Memo<K, V> = std::cell::RefCell<HashMap<K, V>>;

/// Memo of the summaries of a file's helpers, keyed by the helper's index and the depth the
/// summary is computed at: a summary follows helpers only to [`MAX_SUMMARY_DEPTH`], so what it
/// finds depends on the depth, and keyed by both it is the same whichever caller asked first
/// (a check of the whole file, or of one edited item). A helper that calls itself reaches the
/// bound rather than a summary in progress.
pub type HelperMemo<V> = Memo<(usize, usize), Option<V>>;

/// The memoized result for `key`, computed once by `compute`. While it is being computed (a
/// helper that calls itself, directly or not) it reads as `None`: nothing known.
pub fn memoized<K: std::hash::Hash + Eq + Clone, V: Clone>(memo: &Memo<K, Option<V>>, key: K, compute: impl FnOnce() -> Option<V>) -> Option<V> {
    if let Some(done) = memo.borrow().get(&key) {
        return done.clone();
    }
    memo.borrow_mut().insert(key.clone(), None);
    let result = compute();
    memo.borrow_mut().insert(key, result.clone());
    result
}

/// Memo of summaries of functions by definition path and depth, for one check, shared by the
/// threads that analyse its files: a helper of another file is summarised once per depth,
/// whichever caller asks first. `K` is whatever else the summary depends on (the effects an
/// effect summary counts); `()` for summaries that depend on the function alone.
pub type SharedMemo<V, K = ()> = std::sync::Mutex<HashMap<(Vec<String>, usize, K), Option<V>>>;

/// The shared memoized summary of the function at `path`, computed `depth` helpers down by
/// `compute`. It follows helpers only to [`MAX_SUMMARY_DEPTH`], so what it finds depends on
/// `depth` and on nothing else (recursion, across files too, ends at the bound): keyed by both,
/// the stored result is the same whichever thread and caller came first.
pub fn shared_memoized<V: Clone>(memo: &SharedMemo<V>, path: &[String], depth: usize, compute: impl FnOnce() -> Option<V>) -> Option<V> {
    shared_memoized_for(memo, path, depth, (), compute)
}

/// [`shared_memoized`] for a summary that also depends on `also` (part of the key).
pub fn shared_memoized_for<V: Clone, K: std::hash::Hash + Eq>(memo: &SharedMemo<V, K>, path: &[String], depth: usize, also: K, compute: impl FnOnce() -> Option<V>) -> Option<V> {
    let key = (path.to_vec(), depth, also);
    if let Some(done) = memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return done;
    }
    let result = compute();
    if let Ok(mut m) = memo.lock() {
        m.insert(key, result.clone());
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{r#fn}` captures the raw identifier `r#fn` (a crate in the registry writes it; making an
    /// `Ident` of the text panicked).
    #[test]
    fn a_format_string_capturing_a_raw_identifier_is_lowered() {
        let mac: syn::Macro = syn::parse_str("println!(\"{r#fn} {x:?} {0}\", y)").unwrap();
        let LoweredMacro::Evaluates(args) = lower_macro(&mac) else { panic!("a format macro evaluates its arguments") };
        let names: Vec<String> = args.iter().map(|a| quote::ToTokens::to_token_stream(a).to_string()).collect();
        assert_eq!(names, ["\"{r#fn} {x:?} {0}\"", "y", "r#fn", "x"]);
    }

    /// A summary is computed once per function and depth: a caller at another depth (which sees
    /// helpers to another bound) gets its own.
    #[test]
    fn a_shared_summary_is_computed_once_per_function_and_depth() {
        let memo: SharedMemo<u32> = Default::default();
        let f = vec!["c".to_string(), "f".to_string()];
        assert_eq!(shared_memoized(&memo, &f, 1, || Some(1)), Some(1));
        assert_eq!(shared_memoized(&memo, &f, 1, || Some(2)), Some(1), "computed once");
        assert_eq!(shared_memoized(&memo, &f, 2, || None), None);
        assert_eq!(shared_memoized(&memo, &f, 2, || Some(3)), None, "nothing known is known once too");
    }

    /// A summary that depends on more than the function (the effects it counts) is computed once
    /// per function, depth and that: another caller's effects get their own.
    #[test]
    fn a_shared_summary_is_computed_once_per_what_it_depends_on() {
        let memo: SharedMemo<u32, &str> = Default::default();
        let f = vec!["c".to_string(), "f".to_string()];
        assert_eq!(shared_memoized_for(&memo, &f, 1, "log", || Some(1)), Some(1));
        assert_eq!(shared_memoized_for(&memo, &f, 1, "log", || Some(2)), Some(1), "computed once");
        assert_eq!(shared_memoized_for(&memo, &f, 1, "sync", || Some(3)), Some(3));
    }

    /// Which constants each named local may hold: a tiny analysis that exercises the solver.
    #[derive(Default)]
    struct Consts {
        exits: Vec<PlaceMap<Vals>>,
        /// Each exit's kind, value and first..last token as text.
        exit_at: Vec<(ExitKind, Option<String>, String)>,
        /// What `bind_from` heard: the locals and the scrutinee.
        from: Vec<(Vec<LocalId>, String)>,
        /// The values blocks ended with, and the local each names there.
        tails: Vec<(String, Option<LocalId>)>,
        seen_at_probe: Option<PlaceMap<Vals>>,
        /// How often `probe()` was walked, and closures seen as values, and macros seen as tokens.
        probes: usize,
        closures: usize,
        macros: Vec<String>,
    }

    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    struct Vals(std::collections::BTreeSet<i64>);
    impl Domain for Vals {
        fn join(&mut self, other: &Self) {
            self.0.extend(other.0.iter().copied());
        }
    }

    fn lit(e: &Expr) -> Option<i64> {
        match e {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().ok(),
            _ => None,
        }
    }

    impl Analysis for Consts {
        type State = PlaceMap<Vals>;
        fn transfer(&mut self, scopes: &Scopes, state: &mut Self::State, e: &Expr) {
            match e {
                Expr::Assign(a) => {
                    if let Some(p) = scopes.place_of(&a.left) {
                        // A local read is copied (`x = i;`).
                        let copied = scopes.place_of(&a.right).and_then(|r| state.map.get(&r).cloned());
                        state.map.insert(p, copied.unwrap_or_else(|| Vals(lit(&a.right).into_iter().collect())));
                    }
                }
                Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("probe")) => {
                    // Every path that reaches it (a walk per outcome of a closure reaches it more than once).
                    self.seen_at_probe = join(self.seen_at_probe.take(), Some(state.clone()));
                    self.probes += 1;
                }
                Expr::Closure(_) => self.closures += 1,
                _ => {}
            }
        }
        fn macro_tokens(&mut self, _: &Scopes, _: &mut Self::State, mac: &syn::Macro) {
            self.macros.push(mac.tokens.to_string());
        }
        fn bind(&mut self, scopes: &Scopes, state: &mut Self::State, local: LocalId, init: Option<&Expr>) {
            let place = Place { base: Base::Local(local), fields: Vec::new() };
            // A local read in the initializer is copied (`let x = y;`).
            let copied = init.and_then(|i| scopes.place_of(i)).and_then(|p| state.map.get(&p).cloned());
            let vals = copied.unwrap_or_else(|| Vals(init.and_then(lit).into_iter().collect()));
            state.map.insert(place, vals);
        }
        fn exit(&mut self, _: &Scopes, state: &Self::State, exit: &Exit<'_>) {
            self.exits.push(state.clone());
            let text = |e: &Expr| quote::ToTokens::to_token_stream(e).to_string();
            let (a, b) = exit.span;
            self.exit_at.push((exit.kind, exit.value.map(text), format!("{}..{}", a.start().column, b.end().column)));
        }
        // `x == 2` known to hold: x is 2 there.
        fn assume(&mut self, scopes: &Scopes, state: &mut Self::State, cond: &Expr, holds: bool) {
            if let (Expr::Binary(b), true) = (cond, holds) {
                if let (syn::BinOp::Eq(_), Some(p), Some(v)) = (b.op, scopes.place_of(&b.left), lit(&b.right)) {
                    state.map.insert(p, Vals([v].into()));
                }
            }
        }
        fn bind_from(&mut self, _: &Scopes, _: &mut Self::State, locals: &[LocalId], scrutinee: &Expr) {
            self.from.push((locals.to_vec(), quote::ToTokens::to_token_stream(scrutinee).to_string()));
        }
        fn block_value(&mut self, scopes: &Scopes, _: &mut Self::State, value: &Expr) {
            let named = match scopes.place_of(value) {
                Some(Place { base: Base::Local(id), .. }) => Some(id),
                _ => None,
            };
            self.tails.push((quote::ToTokens::to_token_stream(value).to_string(), named));
        }
    }

    fn run(body: &str) -> Consts {
        let block: syn::Block = syn::parse_str(body).expect("a block");
        let mut a = Consts::default();
        let sig: syn::Signature = syn::parse_quote!(fn f());
        solve(&mut a, &sig, &block, PlaceMap::default()).expect("small");
        a
    }

    fn at_probe(a: &Consts, local: LocalId) -> Vec<i64> {
        let state = a.seen_at_probe.as_ref().expect("probe reached");
        state.map.get(&Place { base: Base::Local(local), fields: vec![] }).map(|v| v.0.iter().copied().collect()).unwrap_or_default()
    }

    #[test]
    fn branches_join_and_one_sided_assignments_keep_the_old_value() {
        let a = run("{ let mut x = 1; if c { x = 2; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2]);
        let a = run("{ let mut x = 1; if c { x = 2; } else { x = 3; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2, 3]);
        let a = run("{ let mut x = 1; match c { A => x = 2, B => x = 3, _ => return } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2, 3]);
    }

    #[test]
    fn scope_guards_run_their_closures_where_they_are_dropped() {
        let exit_vals = |a: &Consts| a.exits.iter().map(|s| s.map.get(&Place { base: Base::Local(0), fields: vec![] }).map(|v| v.0.iter().copied().collect::<Vec<_>>()).unwrap_or_default()).collect::<Vec<_>>();
        // `defer!` runs where its block ends: not yet at the probe, then at the exit.
        let a = run("{ let mut x = 1; defer! { x = 2; } probe(); 0 }");
        assert_eq!(at_probe(&a, 0), vec![1]);
        assert_eq!(exit_vals(&a), vec![vec![2]]);
        let a = run("{ let mut x = 1; { defer! { x = 2; } } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2], "an inner block's end runs it");
        // A guard kept in a local, at every exit; moved out (forgotten, handed on), never here.
        let a = run("{ let mut x = 1; let _g = scopeguard::guard((), |_| x = 2); if c { return 5; } probe(); 0 }");
        assert_eq!(at_probe(&a, 0), vec![1]);
        assert_eq!(exit_vals(&a), vec![vec![2], vec![2]]);
        let a = run("{ let mut x = 1; let g = guard((), |_| x = 2); std::mem::forget(g); 0 }");
        assert_eq!(exit_vals(&a), vec![vec![1]]);
        // `drop(g)` and `let _ = guard(..)` run it where they stand, once.
        let a = run("{ let mut x = 1; let g = guard((), |_| x = 2); drop(g); probe(); x = 3; 0 }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        assert_eq!(exit_vals(&a), vec![vec![3]]);
        let a = run("{ let mut x = 1; let _ = guard((), |_| x = 2); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        // Only while unwinding: never on a normal path.
        let a = run("{ let mut x = 1; let _g = guard_on_unwind((), |_| x = 2); 0 }");
        assert_eq!(exit_vals(&a), vec![vec![1]]);
    }

    #[test]
    fn a_closure_result_tested_later_splits_the_paths_by_outcome() {
        // The closure's `?` leaves it before `x = 2`: `Some` only where x is 2.
        let a = run("{ let mut x = 1; let r = (|| -> Option<u8> { get()?; x = 2; Some(3) })(); if let Some(v) = r { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        let a = run("{ let mut x = 1; let r = (|| { if c { return None; } x = 2; Some(3) })(); match r { None => probe(), Some(_) => {} } }");
        assert_eq!(at_probe(&a, 0), vec![1]);
        let a = run("{ let mut x = 1; let r = (|| -> Option<u8> { get()?; x = 2; Some(3) })(); if r.is_none() { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![1]);
        let a = run("{ let mut x = 1; let r = (|| -> Option<u8> { get()?; x = 2; Some(3) })(); let Some(v) = r else { return; }; probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        // A value the syntax does not tell (`f()`) may be either; the `?`'s is `None` still.
        let a = run("{ let mut x = 1; let r = (|| -> Option<u8> { get()?; x = 2; f() })(); if let Some(v) = r { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        let a = run("{ let mut x = 1; let r = (|| -> Option<u8> { get()?; x = 2; f() })(); if let None = r { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![1, 2]);
        // Past the test, the paths of every outcome join.
        let a = run("{ let mut x = 1; let r = (|| -> Option<u8> { get()?; x = 2; Some(3) })(); if let Some(v) = r { x = 3; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 3]);
    }

    #[test]
    fn shadowing_is_a_new_local_and_inner_blocks_end_their_bindings() {
        // local 0: outer x; local 1: the inner block's x; local 2: the shadowing x.
        let a = run("{ let x = 1; { let x = 5; } let x = 7; probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1]);
        assert_eq!(at_probe(&a, 2), vec![7]);
        let a = run("{ let x = 1; let x = x; probe(); }");
        assert_eq!(at_probe(&a, 1), vec![1], "the initializer of a shadowing let reads the old binding");
        let a = run("{ let mut x = 1; { let x = 5; } x = 9; probe(); }");
        assert_eq!(at_probe(&a, 0), vec![9], "the assignment after the inner block is to the outer x");
    }

    #[test]
    fn loops_reach_a_fixpoint_and_breaks_reach_the_exit() {
        let a = run("{ let mut x = 1; for i in v { x = 2; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2], "the body may run no time");
        let a = run("{ let mut x = 1; loop { x = 2; if c { break; } x = 3; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2], "a `loop` leaves only through its break");
        let a = run("{ let mut x = 1; 'o: loop { loop { x = 4; break 'o; } } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![4]);
        let a = run("{ let mut x = 1; while { x = 2; c } { x = 3; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2], "a `while` leaves after its condition ran");
    }

    #[test]
    fn a_compared_operand_that_is_a_comparison_is_no_chained_comparison() {
        // `assert_eq!(a < b, c)` and `match a < b { true => .. }` hold `(a < b) == c`; written
        // as tokens that is a chained comparison, which does not parse.
        let a = run("{ let mut x = 1; assert_eq!(a < b, c); match a < b { true => x = 2, false => {} } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2]);
    }

    #[test]
    fn a_loop_over_an_array_literal_runs_its_body_for_each_item_in_order() {
        // local 0: x; 1: the loop's `i`, bound to each item.
        let a = run("{ let mut x = 1; for i in [2, 3] { x = i; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![3], "the last item, on the one path: the body ran for every item");
        let a = run("{ let mut x = 1; for i in [2, 3] { if c { continue; } x = i; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2, 3], "a `continue` goes on to the next item");
        let a = run("{ let mut x = 1; for i in [2, 3] { x = i; if c { break; } } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2, 3], "a `break` leaves after the first item");
        // local 1: the array; 2: the loop's `i`.
        let a = run("{ let mut x = 1; let a = [2, 3]; for &i in &a { x = i; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![3], "a local bound to an array literal, walked by reference");
        let a = run("{ let mut x = 1; let mut a = [2, 3]; a[0] = 9; for i in a { x = i; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1], "a mutable local may have changed: a loop");
        let a = run("{ let mut x = 1; for i in [2, 3, 4, 5, 6, 7, 8, 9, 10] { x = i; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1], "a long array is a loop: its items are not known one by one");
    }

    #[test]
    fn a_loop_binds_the_same_locals_on_every_round_and_converges() {
        // local 0: x; 1: the loop's `i`; 2: the body's `y`, the same on every round.
        let a = run("{ let mut x = 1; for i in v { let y = 7; probe(); x = 2; } }");
        assert_eq!(at_probe(&a, 2), vec![7]);
        assert_eq!(at_probe(&a, 0), vec![1, 2]);
        assert!(a.probes <= 3, "a body that binds a local converges (walked {} times)", a.probes);
        let a = run("{ for i in v { for j in w { let y = 7; probe(); } } }");
        assert!(a.probes <= 9, "nested loops converge too (walked {} times)", a.probes);
    }

    #[test]
    fn exits_are_normal_returns_only() {
        let a = run("{ let mut x = 1; if c { return Err(e); } f()?; if d { return Ok(()); } x = 2; Ok(()) }");
        assert_eq!(a.exits.len(), 2, "the early Ok return and the tail; not the Err return");
        let a = run("{ let y = 3; y }");
        assert_eq!(a.exits.len(), 1);
        let a = run("{ if c { panic!(\"no\"); } unreachable!() }");
        assert!(a.exits.is_empty());
    }

    #[test]
    fn closures_run_where_they_run() {
        let a = run("{ let mut x = 1; (|| { x = 2; })(); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2], "an immediately invoked closure runs once");
        let a = run("{ let mut x = 1; v.iter().for_each(|_| { x = 2; }); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2], "a callback runs zero or more times");
        let a = run("{ let mut x = 1; let f = || { x = 2; }; probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1], "a stored closure is a body of its own");
        let a = run("{ let mut x = 1; let mut f = || { x = 2; }; if c { f(); } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2], "a closure bound to a local runs where it is called");
        let a = run("{ let mut x = 1; let f = || { x = 2; }; let f = 3; f(); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1], "not once the name is bound to something else");
        // Closures that reach each other by name (code that does not compile) end.
        let a = run("{ let mut x = 1; let f = || { x = 2; g(); }; let g = || { f(); }; g(); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        let a = run("{ let mut x = 1; let y = (|| { if c { return 5; } x = 3; 4 })(); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 3], "a return inside a closure leaves the closure only");
        let a = run("{ let mut x = 1; let y = async { if c { return 5; } x = 3; 4 }.await; probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 3], "an async block awaited where it is written runs there");
        let a = run("{ let mut x = 1; let f = async { x = 3; }; probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1], "one that is not awaited there runs later");
    }

    #[test]
    fn a_closure_not_run_in_place_is_a_value_and_one_run_in_place_is_not() {
        assert_eq!(run("{ let f = |a| a + 1; }").closures, 1);
        assert_eq!(run("{ std::thread::spawn(move || work(x)); }").closures, 1);
        assert_eq!(run("{ (|| work(x))(); v.iter().for_each(|a| work(a)); }").closures, 0);
    }

    #[test]
    fn macros_that_are_not_walked_hand_their_tokens_to_the_analysis() {
        // Bodies that are lists of expressions are walked as expressions (`my_macro!(x, y)` uses
        // `x` and `y`); the others' tokens go to the analysis.
        let a = run("{ println!(\"{}\", x); my_macro!(x, y); let v = vec![x; 3]; }");
        assert_eq!(a.macros, vec!["x ; 3".to_string()]);
        assert!(run("{ if c { panic!(\"{}\", x); } }").macros.is_empty());
    }

    #[test]
    fn exits_say_how_they_leave_with_their_value_and_span() {
        let a = run("{ if c { return 1; } if d { return; } if e { return Err(x); } 2 }");
        let kinds: Vec<_> = a.exit_at.iter().map(|(k, v, _)| (*k, v.clone())).collect();
        assert_eq!(kinds, vec![(ExitKind::Return, Some("1".into())), (ExitKind::Return, None), (ExitKind::Tail, Some("2".into()))]);
        // `return 1` spans from `return` to `1`; a body without a tail value ends at its brace.
        assert_eq!(a.exit_at[0].2, "9..17");
        let a = run("{ f(); }");
        assert_eq!(a.exit_at, vec![(ExitKind::Tail, None, "7..8".to_string())]);
    }

    #[test]
    fn a_returned_branch_is_an_exit_with_its_own_value() {
        let values = |body: &str| run(body).exit_at.iter().map(|(k, v, _)| (*k, v.clone().unwrap_or_default())).collect::<Vec<_>>();
        let tail = |v: &str| (ExitKind::Tail, v.to_string());
        // Each arm, each branch, the tail of a nested block; an `Err(..)` arm is an error exit.
        assert_eq!(values("{ match m.get(k) { Some(p) => Ok(Some(p)), None => Ok(None), Some(_) => Err(e) } }"), vec![tail("Ok (Some (p))"), tail("Ok (None)")]);
        assert_eq!(values("{ if c { let v = 1; v } else if d { Err(e) } else { 2 } }"), vec![tail("v"), tail("2")]);
        assert_eq!(values("{ return match c { true => 1, false => 2 }; }"), vec![(ExitKind::Return, "1".into()), (ExitKind::Return, "2".into())]);
        // An `if` without `else` is a value of its own.
        assert_eq!(values("{ if c { f(); } }"), vec![tail("if c { f () ; }")]);
    }

    #[test]
    fn a_pattern_names_the_part_each_binding_takes() {
        let parts = |pat: &str| {
            let pat: Pat = syn::parse::Parser::parse_str(Pat::parse_single, pat).unwrap();
            let mut out = Vec::new();
            pattern_parts(&pat, &mut Vec::new(), &mut out);
            out.into_iter().map(|p| p.map(|p| p.join("."))).collect::<Vec<_>>()
        };
        assert_eq!(parts("(slots, _, n)"), vec![Some("0".into()), Some("2".into())]);
        assert_eq!(parts("Some((a, b))"), vec![Some("0".into()), Some("1".into())]);
        assert_eq!(parts("Meta { slot_mapping, lens: l, .. }"), vec![Some("slot_mapping".into()), Some("lens".into())]);
        assert_eq!(parts("Ok(s)"), vec![Some(String::new())]);
        assert_eq!(parts("[first, rest @ ..]"), vec![None, None]);
    }

    #[test]
    fn option_combinators_run_once_or_not_at_all() {
        // `lookup.map(|g| ..)` leaves twice: not run (the lookup's `None`), and run once.
        let a = run("{ m.get(k).map(|g| probe(g)) }");
        assert_eq!(a.exit_at.len(), 2);
        assert_eq!(a.probes, 1, "the closure is walked once, not to a fixpoint");
        // After `?`, only the path where it ran goes on.
        let a = run("{ let v = parse(g).map(|v| { x = 2; v })?; probe(); v }");
        assert_eq!(a.exits.len(), 1);
        // An iterator's `map` runs its closure any number of times.
        assert!(is_iterator(&syn::parse_str("v.iter().map(f).filter(p)").unwrap()));
        assert!(is_iterator(&syn::parse_str("(0..n).map(f)").unwrap()) && is_iterator(&syn::parse_str("std::iter::repeat(0).take(n)").unwrap()));
        assert!(!is_iterator(&syn::parse_str("mask.map(f)").unwrap()) && !is_iterator(&syn::parse_str("slot.take()").unwrap()));
    }

    #[test]
    fn a_pattern_tells_which_locals_it_took_from_its_scrutinee() {
        // locals: 0 `m`, 1 `g` (if let), 2 `h` (let else), 3 `a`, 4 `b` (a match arm).
        let a = run("{ let m = 1; if let Some(g) = m.get(k) { } let Some(h) = m.get(j) else { return }; match m.pair() { (a, b) => {} } }");
        let from: Vec<_> = a.from.iter().map(|(ids, s)| (ids.clone(), s.as_str())).collect();
        assert_eq!(from, vec![(vec![0], "1"), (vec![1], "m . get (k)"), (vec![2], "m . get (j)"), (vec![3, 4], "m . pair ()")]);
        assert!(run("{ for x in v { } }").from.is_empty(), "a loop variable takes no value of its own");
    }

    #[test]
    fn a_block_value_is_seen_while_its_locals_are_in_scope() {
        // local 0: outer `x`; 1: the block's `x`, which the block's value names.
        let a = run("{ let x = 1; let y = { let x = 2; x }; }");
        assert_eq!(a.tails, vec![("x".to_string(), Some(1))]);
    }

    #[test]
    fn a_condition_tells_each_branch_what_holds_there() {
        let a = run("{ let mut x = 1; if c { x = 2; } if x == 2 && d { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        let a = run("{ let mut x = 1; if c { x = 2; } if !(x == 2) || d { } else { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        // Where an `&&` failed, neither part is known to.
        let a = run("{ let mut x = 1; if c { x = 2; } if x == 2 && d { } else { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![1, 2]);
        let a = run("{ let mut x = 1; if c { x = 2; } while x == 2 { probe(); break; } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        // After the `if` without `else`: the branch that returned is gone, the other knows.
        let a = run("{ let mut x = 1; if c { x = 2; } if !(x == 1) { return; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1]);
    }

    #[test]
    fn a_condition_kept_in_a_local_is_assumed_while_it_still_holds() {
        let a = run("{ let mut x = 1; if c { x = 2; } let two = x == 2; if two { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        let a = run("{ let mut x = 1; if c { x = 2; } let one = !(x == 2); if !one { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![2]);
        // `x` assigned after the condition was taken: it tells nothing of the new value.
        let a = run("{ let mut x = 1; if c { x = 2; } let two = x == 2; x = 3; if two { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![3]);
        // Changed through a `&mut` borrow, or shadowed: not known either.
        let a = run("{ let mut x = 1; if c { x = 2; } let two = x == 2; bump(&mut x); if two { probe(); } }");
        assert_eq!(at_probe(&a, 0), vec![1, 2]);
        // Locals 0: the first `x`; 1: `two`; 2: the second `x`, which the condition did not read.
        let a = run("{ let mut x = 1; if c { x = 2; } let two = x == 2; let x = x; if two { probe(); } }");
        assert_eq!(at_probe(&a, 2), vec![1, 2]);
    }

    #[test]
    fn a_labelled_block_joins_its_breaks() {
        let a = run("{ let mut x = 1; 'a: { if c { x = 2; break 'a; } x = 3; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![2, 3]);
        // An unlabelled `break` inside it leaves the loop around it, not the block.
        let a = run("{ let mut x = 1; loop { 'a: { x = 4; break; } x = 5; } probe(); }");
        assert_eq!(at_probe(&a, 0), vec![4]);
    }

    #[test]
    fn combinator_callbacks_run_at_most_once_and_adaptor_callbacks_any_number_of_times() {
        // Counted by `probe()` visits: a closure run at most once is walked once; one run any
        // number of times to a fixpoint (here two rounds: the state changes once).
        let a = run("{ let mut x = 1; m.entry(k).or_insert_with(|| { x = 2; probe(); 0 }); }");
        assert_eq!(a.probes, 1);
        let a = run("{ let mut x = 1; let v = o.unwrap_or_else(|| { x = 2; 0 }); probe(); }");
        assert_eq!(at_probe(&a, 0), vec![1, 2], "it may not run");
        let a = run("{ let mut x = 1; v.iter().for_each(|_| { x = 2; probe(); }); }");
        assert_eq!(a.probes, 2);
    }
}
