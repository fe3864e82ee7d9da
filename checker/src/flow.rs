//! Control flow over the syntax tree: which effects each normally-returning path has run, and in
//! what order, when it leaves the function.
//!
//! An abstract interpreter over `syn` expressions. The state is a set of traces (the effect calls
//! seen so far on one path, as indices into the `preserves` list); branches (`if`, `match`, `&&`,
//! `||`, `let else`) fork it, loops iterate to a fixpoint (bodies may run zero or more times,
//! `loop` exits only by `break`), and `return`, `?` and the tail expression record an exit with the
//! traces that reach them. Closures and `async` blocks are bodies of their own: their calls may
//! never run, so they do not count. `panic!`-like macros diverge. Other macros are read as
//! comma-separated expressions when they parse as such (`println!`, `assert!`, `vec!`).

use std::collections::BTreeSet;

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Block, Expr, Stmt};

pub type Trace = Vec<u8>;
type States = BTreeSet<Trace>;

const MAX_STATES: usize = 64;
const MAX_TRACE: usize = 16;
/// Expressions interpreted per function, at most. Loops iterate to a fixpoint, so nested loops
/// multiply the work; past this bound the function is reported (`analysis_limit`), not analysed
/// for minutes.
pub const MAX_STEPS: usize = 200_000;

/// The function needed more than [`MAX_STEPS`] steps.
#[derive(Debug)]
pub struct TooComplex;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitKind {
    Return,
    Try,
    Tail,
    /// A return or tail value that declines to serve: `Err(..)`, `None`, `Ok(None)` (an error, or
    /// a miss that leaves the work to the caller). Like `?`, exempt from `preserves` (SPEC.md).
    Declines,
}

/// Whether a returned value declines to serve: `Err(..)`, `None`, `Ok(None)`.
pub fn declines(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => declines(&p.expr),
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Err") => true,
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Ok") => c.args.len() == 1 && declines(&c.args[0]) && !matches!(&c.args[0], Expr::Call(_)),
            _ => false,
        },
        _ => false,
    }
}

/// A place where the function returns, with every trace that reaches it.
#[derive(Debug)]
pub struct Exit {
    pub kind: ExitKind,
    /// First and last token of the exit (`return plan.clone()`, the `?`, the tail expression).
    pub span: (Span, Span),
    pub traces: States,
}

struct LoopFrame {
    label: Option<String>,
    /// A labelled block: only `break 'label` leaves it.
    is_block: bool,
    breaks: States,
    continues: States,
}

struct Interp<'f> {
    effects_of_call: &'f dyn Fn(&Expr) -> Vec<u8>,
    exits: Vec<Exit>,
    loops: Vec<LoopFrame>,
    steps: usize,
    max_steps: usize,
}

/// The exits of a function body. `effects_of_call` says which effects a call expression runs.
pub fn exits(body: &Block, effects_of_call: &dyn Fn(&Expr) -> Vec<u8>) -> Result<Vec<Exit>, TooComplex> {
    exits_within(body, effects_of_call, MAX_STEPS)
}

fn exits_within(body: &Block, effects_of_call: &dyn Fn(&Expr) -> Vec<u8>, max_steps: usize) -> Result<Vec<Exit>, TooComplex> {
    let mut interp = Interp { effects_of_call, exits: Vec::new(), loops: Vec::new(), steps: 0, max_steps };
    let out = interp.block(body, BTreeSet::from([Vec::new()]));
    if !out.is_empty() {
        let (span, kind) = match body.stmts.last() {
            Some(Stmt::Expr(e, None)) => (expr_span(e), if declines(e) { ExitKind::Declines } else { ExitKind::Tail }),
            _ => ((body.brace_token.span.close(), body.brace_token.span.close()), ExitKind::Tail),
        };
        interp.exit(kind, span, out);
    }
    if interp.steps > interp.max_steps {
        return Err(TooComplex);
    }
    Ok(interp.exits)
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        other => other,
    }
}

/// First and last token spans of an expression.
pub fn expr_span(e: &Expr) -> (Span, Span) {
    tokens_span(e.to_token_stream())
}

pub fn tokens_span(ts: proc_macro2::TokenStream) -> (Span, Span) {
    let mut iter = ts.into_iter();
    let first = iter.next().map(|t| t.span()).unwrap_or_else(Span::call_site);
    let last = iter.last().map(|t| t.span()).unwrap_or(first);
    (first, last)
}

fn union(mut a: States, b: States) -> States {
    a.extend(b);
    cap(a)
}

fn cap(mut s: States) -> States {
    while s.len() > MAX_STATES {
        s.pop_last();
    }
    s
}

impl Interp<'_> {
    fn exit(&mut self, kind: ExitKind, span: (Span, Span), traces: States) {
        if traces.is_empty() {
            return;
        }
        // Loop bodies are interpreted more than once: merge exits at the same place.
        let key = format!("{:?}", span.0.byte_range());
        if let Some(e) = self.exits.iter_mut().find(|e| e.kind == kind && format!("{:?}", e.span.0.byte_range()) == key) {
            e.traces.extend(traces);
            return;
        }
        self.exits.push(Exit { kind, span, traces });
    }

    fn block(&mut self, b: &Block, mut s: States) -> States {
        for stmt in &b.stmts {
            if s.is_empty() {
                break;
            }
            s = self.stmt(stmt, s);
        }
        s
    }

    fn stmt(&mut self, stmt: &Stmt, s: States) -> States {
        match stmt {
            Stmt::Local(l) => match &l.init {
                Some(init) => {
                    let s = self.expr(&init.expr, s);
                    if let Some((_, els)) = &init.diverge {
                        // `let else`: the else block must diverge; its own returns are exits.
                        self.expr(els, s.clone());
                    }
                    s
                }
                None => s,
            },
            Stmt::Item(_) => s,
            Stmt::Expr(e, _) => self.expr(e, s),
            Stmt::Macro(m) => self.mac(&m.mac, s),
        }
    }

    fn append(&self, s: States, call: &Expr) -> States {
        let effects = (self.effects_of_call)(call);
        if effects.is_empty() {
            return s;
        }
        cap(s
            .into_iter()
            .map(|mut t| {
                t.extend(&effects);
                t.truncate(MAX_TRACE);
                t
            })
            .collect())
    }

    fn exprs<'e>(&mut self, es: impl IntoIterator<Item = &'e Expr>, mut s: States) -> States {
        for e in es {
            s = self.expr(e, s);
        }
        s
    }

    fn expr(&mut self, e: &Expr, s: States) -> States {
        self.steps += 1;
        if s.is_empty() || self.steps > self.max_steps {
            return States::new();
        }
        match e {
            // A closure called where it is written runs there, once: `(|| { refresh()?; Ok(x) })()`.
            Expr::Call(c) if matches!(strip_parens(&c.func), Expr::Closure(cl) if cl.asyncness.is_none()) => {
                let Expr::Closure(closure) = strip_parens(&c.func) else { unreachable!("matched above") };
                let s = self.exprs(&c.args, s);
                self.run_closure(&closure.body, s)
            }
            Expr::Call(c) => {
                let s = self.expr(&c.func, s);
                let s = self.exprs(&c.args, s);
                self.append(s, e)
            }
            Expr::MethodCall(m) => {
                let s = self.expr(&m.receiver, s);
                let s = self.exprs(&m.args, s);
                self.append(s, e)
            }
            Expr::Return(r) => {
                let s = match &r.expr {
                    Some(v) => self.expr(v, s),
                    None => s,
                };
                let span = match &r.expr {
                    Some(v) => (r.return_token.span, expr_span(v).1),
                    None => (r.return_token.span, r.return_token.span),
                };
                let kind = if r.expr.as_deref().is_some_and(declines) { ExitKind::Declines } else { ExitKind::Return };
                self.exit(kind, span, s);
                States::new()
            }
            Expr::Try(t) => {
                let s = self.expr(&t.expr, s);
                self.exit(ExitKind::Try, (t.question_token.span, t.question_token.span), s.clone());
                s
            }
            Expr::If(i) => {
                let s = self.expr(&i.cond, s);
                let then = self.block(&i.then_branch, s.clone());
                let other = match &i.else_branch {
                    Some((_, els)) => self.expr(els, s),
                    None => s,
                };
                union(then, other)
            }
            Expr::Match(m) => {
                let s = self.expr(&m.expr, s);
                let mut out = States::new();
                for arm in &m.arms {
                    let mut a = s.clone();
                    if let Some((_, guard)) = &arm.guard {
                        a = self.expr(guard, a);
                    }
                    out = union(out, self.expr(&arm.body, a));
                }
                out
            }
            Expr::Block(b) => match &b.label {
                Some(label) => {
                    self.loops.push(LoopFrame { label: Some(label.name.ident.to_string()), is_block: true, breaks: States::new(), continues: States::new() });
                    let out = self.block(&b.block, s);
                    let frame = self.loops.pop().expect("pushed above");
                    union(out, frame.breaks)
                }
                None => self.block(&b.block, s),
            },
            Expr::Unsafe(u) => self.block(&u.block, s),
            Expr::Const(c) => self.block(&c.block, s),
            Expr::TryBlock(t) => self.block(&t.block, s),
            Expr::Loop(l) => self.looped(l.label.as_ref(), None, &l.body, s, true),
            Expr::While(w) => self.looped(w.label.as_ref(), Some(&w.cond), &w.body, s, false),
            Expr::ForLoop(f) => {
                let s = self.expr(&f.expr, s);
                self.looped(f.label.as_ref(), None, &f.body, s, false)
            }
            Expr::Break(b) => {
                let s = match &b.expr {
                    Some(v) => self.expr(v, s),
                    None => s,
                };
                let label = b.label.as_ref().map(|l| l.ident.to_string());
                if let Some(frame) = self.frame(label.as_deref()) {
                    frame.breaks = union(std::mem::take(&mut frame.breaks), s);
                }
                States::new()
            }
            Expr::Continue(c) => {
                let label = c.label.as_ref().map(|l| l.ident.to_string());
                if let Some(frame) = self.frame(label.as_deref()) {
                    frame.continues = union(std::mem::take(&mut frame.continues), s);
                }
                States::new()
            }
            Expr::Closure(_) | Expr::Async(_) => s,
            Expr::Macro(m) => self.mac(&m.mac, s),
            Expr::Binary(b) => {
                let s = self.expr(&b.left, s);
                if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
                    let rhs = self.expr(&b.right, s.clone());
                    union(s, rhs)
                } else {
                    self.expr(&b.right, s)
                }
            }
            Expr::Assign(a) => {
                let s = self.expr(&a.right, s);
                self.expr(&a.left, s)
            }
            Expr::Let(l) => self.expr(&l.expr, s),
            Expr::Unary(u) => self.expr(&u.expr, s),
            Expr::Paren(p) => self.expr(&p.expr, s),
            Expr::Group(g) => self.expr(&g.expr, s),
            Expr::Reference(r) => self.expr(&r.expr, s),
            Expr::Field(f) => self.expr(&f.base, s),
            Expr::Cast(c) => self.expr(&c.expr, s),
            Expr::Await(a) => self.expr(&a.base, s),
            Expr::Index(i) => {
                let s = self.expr(&i.expr, s);
                self.expr(&i.index, s)
            }
            Expr::Array(a) => self.exprs(&a.elems, s),
            Expr::Tuple(t) => self.exprs(&t.elems, s),
            Expr::Struct(st) => {
                let s = self.exprs(st.fields.iter().map(|f| &f.expr), s);
                match &st.rest {
                    Some(r) => self.expr(r, s),
                    None => s,
                }
            }
            Expr::Range(r) => self.exprs(r.start.iter().chain(r.end.iter()).map(|b| &**b), s),
            Expr::Repeat(r) => {
                let s = self.expr(&r.expr, s);
                self.expr(&r.len, s)
            }
            _ => s,
        }
    }

    /// The body of a closure run in place: its `return` and `?` leave the closure, not the
    /// function, and loops around it are not its own; whatever leaves it goes on after the call.
    fn run_closure(&mut self, body: &Expr, s: States) -> States {
        let outer_exits = std::mem::take(&mut self.exits);
        let outer_loops = std::mem::take(&mut self.loops);
        let out = self.expr(body, s);
        let inner = std::mem::replace(&mut self.exits, outer_exits);
        self.loops = outer_loops;
        inner.into_iter().fold(out, |acc, exit| union(acc, exit.traces))
    }

    fn frame(&mut self, label: Option<&str>) -> Option<&mut LoopFrame> {
        match label {
            None => self.loops.iter_mut().rev().find(|f| !f.is_block),
            Some(l) => self.loops.iter_mut().rev().find(|f| f.label.as_deref() == Some(l)),
        }
    }

    fn looped(&mut self, label: Option<&syn::Label>, cond: Option<&Expr>, body: &Block, s: States, infinite: bool) -> States {
        self.loops.push(LoopFrame { label: label.map(|l| l.name.ident.to_string()), is_block: false, breaks: States::new(), continues: States::new() });
        let mut entry = s;
        let mut leaving = States::new();
        for _ in 0..4 {
            let mut st = entry.clone();
            if let Some(c) = cond {
                st = self.expr(c, st);
            }
            if !infinite {
                leaving = union(leaving, st.clone());
            }
            let out = self.block(body, st);
            let continues = std::mem::take(&mut self.loops.last_mut().expect("pushed above").continues);
            let next = union(union(entry.clone(), out), continues);
            if next == entry {
                break;
            }
            entry = next;
        }
        let frame = self.loops.pop().expect("pushed above");
        union(leaving, frame.breaks)
    }

    fn mac(&mut self, mac: &syn::Macro, s: States) -> States {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if matches!(name.as_str(), "panic" | "unreachable" | "todo" | "unimplemented") {
            return States::new();
        }
        let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
        match mac.parse_body_with(parser) {
            Ok(args) => self.exprs(&args, s),
            // `tracing::info!(step = ?log_step(), "..")` is not a list of expressions: the calls
            // `name(..)` among its tokens still run, in order.
            Err(_) => {
                let mut s = s;
                for call in calls_in_tokens(mac.tokens.clone()) {
                    s = self.expr(&call, s);
                }
                s
            }
        }
    }
}

/// Calls written as `name(..)` or `path::name(..)` anywhere in a token stream, in order.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Effects are calls named `a`, `b`, `c` (indices 0, 1, 2); returns (kind, traces) per exit.
    fn run(src: &str) -> Vec<(ExitKind, Vec<String>)> {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let effects = |e: &Expr| -> Vec<u8> {
            let name = match e {
                Expr::Call(c) => quote::quote!(#c.func).to_string(),
                Expr::MethodCall(m) => m.method.to_string(),
                _ => String::new(),
            };
            let name = name.split_whitespace().next().unwrap_or("").to_string();
            match name.as_str() {
                "a" => vec![0],
                "b" => vec![1],
                "c" => vec![2],
                _ => vec![],
            }
        };
        exits(&f.block, &effects)
            .unwrap()
            .into_iter()
            .map(|e| {
                (e.kind, e.traces.iter().map(|t| t.iter().map(|i| ["a", "b", "c"][*i as usize]).collect::<String>()).collect())
            })
            .collect()
    }

    #[test]
    fn early_return_misses_later_effects() {
        let exits = run("fn f() -> u8 { if hit() { return 1; } a(); b(); 2 }");
        assert_eq!(exits, vec![(ExitKind::Return, vec!["".into()]), (ExitKind::Tail, vec!["ab".into()])]);
    }

    #[test]
    fn branches_fork_and_join() {
        let exits = run("fn f() { a(); match x { Some(_) => b(), None => {} } c() }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["abc".into(), "ac".into()])]);
    }

    #[test]
    fn try_is_an_exit_and_closures_do_not_run() {
        let exits = run("fn f() -> R { a(); let v = g()?; let h = || b(); b(); Ok(v) }");
        assert_eq!(exits, vec![(ExitKind::Try, vec!["a".into()]), (ExitKind::Tail, vec!["ab".into()])]);
    }

    #[test]
    fn loops_run_zero_or_more_times_and_loop_exits_by_break() {
        let exits = run("fn f() { for x in xs { a(); } b() }");
        // Zero to three iterations are told apart; more repeat the same shape.
        assert_eq!(exits[0].1, vec!["aaab".to_string(), "aab".into(), "ab".into(), "b".into()]);
        let exits = run("fn f() { loop { a(); if done() { break; } } b() }");
        assert!(exits[0].1.iter().all(|t| t.starts_with('a') && t.ends_with('b')));
    }

    #[test]
    fn let_else_and_panics() {
        let exits = run("fn f() { let Some(x) = y else { return; }; a(); if bad() { panic!(\"no\") } b() }");
        assert_eq!(exits, vec![(ExitKind::Return, vec!["".into()]), (ExitKind::Tail, vec!["ab".into()])]);
    }

    #[test]
    fn the_work_bound_stops_the_interpreter_and_says_so() {
        let f: syn::ItemFn = syn::parse_str("fn f() { for x in xs { while c() { a(); if d() { continue; } } } b() }").unwrap();
        let effects = |e: &Expr| if matches!(e, Expr::Call(_)) { vec![0] } else { vec![] };
        assert!(exits_within(&f.block, &effects, 10).is_err());
        assert!(exits_within(&f.block, &effects, MAX_STEPS).is_ok());
    }

    #[test]
    fn a_closure_called_where_it_is_written_runs_there() {
        // Its `?` leaves the closure, not the function: no exit of the function there.
        let exits = run("fn f() -> R { let r = (|| -> R { x()?; a(); Ok(1) })(); b(); r }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["ab".into(), "b".into()])]);
        // A closure stored (or called later) is a body of its own.
        let exits = run("fn f() { let h = || a(); b() }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["b".into()])]);
    }

    #[test]
    fn macro_arguments_are_evaluated() {
        let exits = run("fn f() { println!(\"{}\", a()); assert!(b()); }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["ab".into()])]);
        let exits = run("fn f() { tracing::info!(step = ?a(), rng = %b(), \"stepped\"); }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["ab".into()])]);
    }
}
