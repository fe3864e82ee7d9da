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
pub type States = BTreeSet<Trace>;

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

/// Which returned values decline to serve, as the contract says (SPEC.md, "hit paths"): an
/// `Err(..)` always (an error exit); with `reuses(.., miss = PATTERN)` the values matching PATTERN;
/// with `reuses` and no pattern, `None` and `Ok(None)` (a miss that leaves the work to the caller).
/// The shim decides the same on the value a call returned (`reuse-runtime`'s `Outcome`).
#[derive(Default)]
pub struct Declining {
    /// `None` and `Ok(None)` decline (the contract has `reuses` without a `miss` pattern).
    pub none: bool,
    /// The declared `miss = PATTERN`.
    pub miss: Option<syn::Pat>,
}

impl Declining {
    pub fn declines(&self, e: &Expr) -> bool {
        let e = strip_parens(e);
        if is_err(e) {
            return true;
        }
        match &self.miss {
            Some(pat) => pattern_matches(pat, e),
            None => self.none && is_none_or_ok_none(e),
        }
    }
}

fn call_named<'e>(e: &'e Expr, name: &str) -> Option<&'e syn::punctuated::Punctuated<Expr, syn::Token![,]>> {
    match e {
        Expr::Call(c) => match strip_parens(&c.func) {
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name) => Some(&c.args),
            _ => None,
        },
        _ => None,
    }
}

fn is_err(e: &Expr) -> bool {
    call_named(e, "Err").is_some()
}

fn is_none_or_ok_none(e: &Expr) -> bool {
    let is_none = |e: &Expr| matches!(strip_parens(e), Expr::Path(p) if p.path.is_ident("None"));
    is_none(e) || call_named(e, "Ok").is_some_and(|args| args.len() == 1 && is_none(&args[0]))
}

/// Whether the expression, as written, is a value the pattern matches. Only what the syntax
/// shows: a variable or a call of a function is no match (so such an exit serves).
pub fn pattern_matches(pat: &syn::Pat, e: &Expr) -> bool {
    use syn::Pat;
    let e = strip_parens(e);
    // `Outcome::Eager` and `Eager` name the same variant: compare the written segments from the end.
    let same_path = |a: &syn::Path, b: &syn::Path| {
        a.segments.iter().rev().zip(b.segments.iter().rev()).all(|(x, y)| x.ident == y.ident)
    };
    let elems = |pats: &syn::punctuated::Punctuated<Pat, syn::Token![,]>, es: Vec<&Expr>| -> bool {
        match pats.iter().position(|p| matches!(p, Pat::Rest(_))) {
            None => pats.len() == es.len() && pats.iter().zip(es).all(|(p, e)| pattern_matches(p, e)),
            Some(rest) => {
                let after = pats.len() - rest - 1;
                es.len() >= rest + after
                    && pats.iter().take(rest).zip(es.iter()).all(|(p, e)| pattern_matches(p, e))
                    && pats.iter().skip(rest + 1).zip(es.iter().skip(es.len() - after)).all(|(p, e)| pattern_matches(p, e))
            }
        }
    };
    match pat {
        Pat::Wild(_) | Pat::Rest(_) => true,
        Pat::Paren(p) => pattern_matches(&p.pat, e),
        Pat::Or(o) => o.cases.iter().any(|p| pattern_matches(p, e)),
        Pat::Ident(pi) => matches!(e, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == pi.ident)),
        Pat::Path(pp) => matches!(e, Expr::Path(p) if same_path(&pp.path, &p.path)),
        Pat::Lit(l) => matches!(e, Expr::Lit(x) if x.lit.to_token_stream().to_string() == l.lit.to_token_stream().to_string()),
        Pat::Range(r) => {
            let value = |e: &Expr| crate::index::int_value(e);
            let Some(v) = value(e) else { return false };
            let lo = r.start.as_deref().map_or(Some(i128::MIN), value);
            let hi = r.end.as_deref().map(value);
            match (lo, hi) {
                (Some(lo), None) => v >= lo,
                (Some(lo), Some(Some(hi))) => v >= lo && if matches!(r.limits, syn::RangeLimits::Closed(_)) { v <= hi } else { v < hi },
                _ => false,
            }
        }
        Pat::Reference(r) => matches!(e, Expr::Reference(x) if pattern_matches(&r.pat, &x.expr)),
        Pat::Tuple(t) => matches!(e, Expr::Tuple(x) if elems(&t.elems, x.elems.iter().collect())),
        Pat::Slice(sl) => matches!(e, Expr::Array(x) if elems(&sl.elems, x.elems.iter().collect())),
        Pat::TupleStruct(ts) => match e {
            Expr::Call(c) => matches!(strip_parens(&c.func), Expr::Path(p) if same_path(&ts.path, &p.path)) && elems(&ts.elems, c.args.iter().collect()),
            _ => false,
        },
        Pat::Struct(ps) => match e {
            Expr::Struct(st) if same_path(&ps.path, &st.path) => ps.fields.iter().all(|fp| {
                let name = fp.member.to_token_stream().to_string();
                st.fields.iter().find(|f| f.member.to_token_stream().to_string() == name).is_some_and(|f| pattern_matches(&fp.pat, &f.expr))
            }),
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
    /// The returned expression (`None` for `?`, a bare `return` and a body without a tail value).
    pub value: Option<Expr>,
}

/// What the path analysis of a body found.
pub struct Paths {
    pub exits: Vec<Exit>,
    /// The traces that reach the end of each `let` initializer, by the byte offset of the
    /// initializer's first token (`proc_macro2::Span::byte_range`).
    pub lets: std::collections::HashMap<usize, States>,
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
    declining: &'f Declining,
    exits: Vec<Exit>,
    lets: std::collections::HashMap<usize, States>,
    loops: Vec<LoopFrame>,
    steps: usize,
    max_steps: usize,
}

/// The exits of a function body. `effects_of_call` says which effects a call expression runs;
/// `declining` which returned values decline to serve.
pub fn exits(body: &Block, effects_of_call: &dyn Fn(&Expr) -> Vec<u8>, declining: &Declining) -> Result<Paths, TooComplex> {
    exits_within(body, effects_of_call, declining, MAX_STEPS)
}

fn exits_within(body: &Block, effects_of_call: &dyn Fn(&Expr) -> Vec<u8>, declining: &Declining, max_steps: usize) -> Result<Paths, TooComplex> {
    let mut interp = Interp { effects_of_call, declining, exits: Vec::new(), lets: Default::default(), loops: Vec::new(), steps: 0, max_steps };
    let out = interp.block(body, BTreeSet::from([Vec::new()]));
    if !out.is_empty() {
        let (span, kind, value) = match body.stmts.last() {
            Some(Stmt::Expr(e, None)) => (expr_span(e), if declining.declines(e) { ExitKind::Declines } else { ExitKind::Tail }, Some(e.clone())),
            _ => ((body.brace_token.span.close(), body.brace_token.span.close()), ExitKind::Tail, None),
        };
        interp.exit(kind, span, out, value);
    }
    if interp.steps > interp.max_steps {
        return Err(TooComplex);
    }
    Ok(Paths { exits: interp.exits, lets: interp.lets })
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
    fn exit(&mut self, kind: ExitKind, span: (Span, Span), traces: States, value: Option<Expr>) {
        if traces.is_empty() {
            return;
        }
        // Loop bodies are interpreted more than once: merge exits at the same place.
        let key = format!("{:?}", span.0.byte_range());
        if let Some(e) = self.exits.iter_mut().find(|e| e.kind == kind && format!("{:?}", e.span.0.byte_range()) == key) {
            e.traces.extend(traces);
            return;
        }
        self.exits.push(Exit { kind, span, traces, value });
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
                    let at = expr_span(&init.expr).0.byte_range().start;
                    let seen = self.lets.remove(&at).unwrap_or_default();
                    self.lets.insert(at, union(seen, s.clone()));
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
                let kind = if r.expr.as_deref().is_some_and(|v| self.declining.declines(v)) { ExitKind::Declines } else { ExitKind::Return };
                self.exit(kind, span, s, r.expr.as_deref().cloned());
                States::new()
            }
            Expr::Try(t) => {
                let s = self.expr(&t.expr, s);
                self.exit(ExitKind::Try, (t.question_token.span, t.question_token.span), s.clone(), None);
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
        match crate::dataflow::lower_macro(mac) {
            crate::dataflow::LoweredMacro::Diverges => States::new(),
            crate::dataflow::LoweredMacro::Evaluates(exprs) | crate::dataflow::LoweredMacro::Tokens(exprs) => self.exprs(&exprs, s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse::Parser;

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
        exits(&f.block, &effects, &Declining { none: true, miss: None })
            .unwrap()
            .exits
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
        assert!(exits_within(&f.block, &effects, &Declining::default(), 10).is_err());
        assert!(exits_within(&f.block, &effects, &Declining::default(), MAX_STEPS).is_ok());
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
    fn declining_values_follow_the_contract() {
        let e = |s: &str| syn::parse_str::<Expr>(s).unwrap();
        let pat = |s: &str| syn::Pat::parse_multi_with_leading_vert.parse_str(s).unwrap();
        let defaults = Declining { none: true, miss: None };
        for (src, declines) in [("None", true), ("Ok(None)", true), ("Err(e)", true), ("(Err(e.into()))", true), ("Some(x)", false), ("Ok(Some(None))", false), ("x", false)] {
            assert_eq!(defaults.declines(&e(src)), declines, "{src}");
        }
        // Without `reuses`, only errors decline.
        assert!(!Declining::default().declines(&e("Ok(None)")) && Declining::default().declines(&e("Err(1)")));
        let eager = Declining { none: false, miss: Some(pat("Ok(Outcome::Eager) | Ok(Outcome::Skip { .. })")) };
        for (src, declines) in [
            ("Ok(Outcome::Eager)", true),
            ("Ok(Eager)", true),
            ("Ok(other::Outcome::Eager)", true),
            ("Ok(Outcome::Skip { n: 1 })", true),
            ("Ok(Outcome::Replayed(g))", false),
            ("Ok(None)", false),
            ("Err(e)", true),
            ("outcome", false),
        ] {
            assert_eq!(eager.declines(&e(src)), declines, "{src}");
        }
        let shaped = Declining { none: false, miss: Some(pat("(false, _, ..) | Some(0..=3) | [_, 0]")) };
        for (src, declines) in [("(false, x, y, z)", true), ("(true, x)", false), ("Some(2)", true), ("Some(4)", false), ("[a, 0]", true), ("[a, 1]", false)] {
            assert_eq!(shaped.declines(&e(src)), declines, "{src}");
        }
    }

    #[test]
    fn macro_arguments_are_evaluated() {
        let exits = run("fn f() { println!(\"{}\", a()); assert!(b()); }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["ab".into()])]);
        let exits = run("fn f() { tracing::info!(step = ?a(), rng = %b(), \"stepped\"); }");
        assert_eq!(exits, vec![(ExitKind::Tail, vec!["ab".into()])]);
    }
}
