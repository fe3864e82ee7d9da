//! Check for `pad_to_null_block`: at a call of a function with `writes(P[IDX], skip = S)`, the
//! argument passed for IDX is followed back through the caller to where it was built, and every
//! place that fills it with 0 (or another position of the null block) instead of S is reported.
//!
//! Followed: the argument itself (through `&`, slicing, `.as_slice()`), a field of a local built from
//! other locals (`metadata.slot_mapping` where `metadata = build(&slot_mapping, ..)`), and the
//! local's initializer and the mutations before the call. Persistent buffers (`self.field`) are
//! checked on dummy and padding paths (functions named `dummy`, `pad`, `warmup`, `profile`,
//! `capture`): they must be reset to S before the call.

use std::collections::HashSet;
use std::ops::Range;

use syn::visit::Visit;
use syn::Expr;

use super::{calls_in_expr, expr_text};
use crate::analysis::{clause_label, Def, FnCtx};
use crate::finding::{Finding, Fix, Label};
use crate::index::ContractedFn;
use crate::resolve::strip;
use reuse_rules::catalogue::PAD_TO_NULL_BLOCK;
use reuse_rules::contract::{Clause, Sentinel};

/// Functions on which a persistent index buffer is expected to hold padding only.
const DUMMY_PATH_WORDS: &[&str] = &["dummy", "pad", "warmup", "profile", "capture"];
/// Methods that read a buffer's shape, not its entries.
const SHAPE_METHODS: &[&str] = &["len", "is_empty", "capacity"];
/// Methods that write a buffer's entries.
const BUILDING_METHODS: &[&str] =
    &["push", "fill", "resize", "extend", "extend_from_slice", "truncate", "clear", "reserve", "copy_from_slice", "clone_from_slice"];

/// What the callee's contract says about one index argument.
struct WriteIndex<'a> {
    callee: &'a ContractedFn,
    clause: &'a Clause<Range<usize>>,
    /// The sentinel as written (`PAD_SLOT_ID`, `-1`) and its value when known.
    sentinel_text: String,
    /// The sentinel as the calling file can write it (the replacement of the fix).
    sentinel_here: String,
    sentinel: Option<i128>,
    /// Positions that belong to the null block (0, and the callee's forbidden region of P).
    null: Vec<(i128, i128)>,
    param: String,
}

impl WriteIndex<'_> {
    fn is_null(&self, v: i128) -> bool {
        Some(v) != self.sentinel && self.null.iter().any(|(a, b)| (*a..*b).contains(&v))
    }
}

pub(super) fn check(ctx: &FnCtx, calls: &[&Expr], out: &mut Vec<Finding>) {
    let mut seen = HashSet::new();
    for &call in calls {
        let Some((site, callee)) = ctx.callee(call) else { continue };
        for (clause, target, skip) in callee.contract.writes() {
            let Some(skip) = skip else { continue };
            let sentinel = ctx.sentinel_value(skip, callee);
            let null = ctx.null_positions(callee, &target.place);
            let sentinel_here = sentinel_in_caller(ctx, callee, skip, sentinel);
            let w = WriteIndex { callee, clause, sentinel_text: skip.to_string(), sentinel_here, sentinel, null, param: target.index.to_string() };
            let Some(arg) = site.arg_named(callee, target.index.root_name()) else { continue };
            for finding in check_arg(ctx, call, arg, &w) {
                if seen.insert((finding.primary.range.clone(), finding.message.clone())) {
                    out.push(finding);
                }
            }
        }
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

/// The buffer an argument designates: `&x[..n]` → `x`, `x.as_slice()` → `x`, `&m.f` → `m.f`.
fn buffer_of(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::Index(i) if matches!(strip(&i.index), Expr::Range(_)) => buffer_of(&i.expr),
        Expr::MethodCall(m) if ["as_slice", "as_ref", "as_mut_slice", "as_mut"].contains(&m.method.to_string().as_str()) => buffer_of(&m.receiver),
        other => other,
    }
}

fn check_arg(ctx: &FnCtx, call: &Expr, arg: &Expr, w: &WriteIndex) -> Vec<Finding> {
    let mut out = Vec::new();
    let lets = ctx.lets();
    let last_def = |name: &str, pos: usize| FnCtx::last_def(lets, name, pos);
    let call_pos = ctx.expr_range(call).start;
    let buffer = buffer_of(arg);
    // Built right in the argument: `&vec![0; n]`, `&Tensor::new(vec![0; n], &dev)?`.
    if let Some((range, zero)) = zero_fill(ctx, buffer, w) {
        out.push(zero_finding(ctx, range, &zero, &source(ctx, buffer), w, format!("the argument starts filled with {zero}")));
        return out;
    }
    let text = expr_text(buffer);
    if text.starts_with("self.") {
        persistent(ctx, call, arg, &text, w, &mut out);
        return out;
    }
    // (local, position its definition comes before): a shadowing `let slots = convert(slots)`
    // refers to the previous `slots`, not to itself.
    let mut sources: Vec<(String, usize)> = Vec::new();
    let (root, field) = match text.split_once('.') {
        Some((root, field)) => (root.to_string(), Some(field.to_string())),
        None => (text.clone(), None),
    };
    match (&field, last_def(&root, call_pos)) {
        // `metadata.slot_mapping`: the field of a struct literal, or the local of the same name that
        // the value was built from (never every local of the builder: a block table padded with 0
        // for reads is legal).
        (Some(field), Some(def)) => {
            if let Expr::Struct(st) = strip(def.init) {
                if let Some(fv) = st.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(n) if n == field)) {
                    element_fallbacks(ctx, &fv.expr, &text, w, &mut out);
                    if let Some((range, zero)) = zero_fill(ctx, &fv.expr, w) {
                        out.push(zero_finding(ctx, range, &zero, &text, w, format!("`{text}` starts filled with {zero}")));
                    }
                }
            }
            let built_from = mentioned_locals(def.init);
            let last = field.rsplit('.').next().unwrap_or(field);
            if built_from.iter().any(|l| l == last) {
                sources.push((last.to_string(), call_pos));
            }
        }
        (None, Some(_)) => sources.push((root, call_pos)),
        _ => {}
    }
    // Conversions keep the entries: `Tensor::new(&slots, &dev)?`, `slots.to_vec()`, `slots.into()`,
    // `let slots = slots;`.
    let mut i = 0;
    while i < sources.len() && i < 8 {
        let (name, before) = sources[i].clone();
        if let Some(def) = last_def(&name, before) {
            if let Some(inner) = converted_local(def.init) {
                let entry = (inner, def.end.saturating_sub(1));
                if !sources.contains(&entry) {
                    sources.push(entry);
                }
            }
        }
        i += 1;
    }
    for (name, before) in sources {
        if let Some(def) = last_def(&name, before) {
            local_buffer(ctx, &name, def, call_pos, w, &mut out);
        }
    }
    out
}

/// Calls that turn one buffer into another with the same entries.
const CONVERSIONS: &[&str] = &[
    "new", "from_vec", "from_slice", "from", "to_vec", "clone", "into", "to_owned", "to_device", "to_dtype", "as_slice",
    "reshape", "unsqueeze", "contiguous", "copy",
];

/// The local a conversion initializer converts: `Tensor::new(&slots, &dev)?` → `slots`.
fn converted_local(init: &Expr) -> Option<String> {
    let e = strip_try(init);
    let local = |e: &Expr| match strip(buffer_of(e)) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    match e {
        Expr::Path(_) => local(e),
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return None };
            let name = p.path.segments.last()?.ident.to_string();
            CONVERSIONS.contains(&name.as_str()).then(|| c.args.first().and_then(local)).flatten()
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            if !CONVERSIONS.contains(&name.as_str()) {
                return None;
            }
            match strip(&m.receiver) {
                Expr::MethodCall(_) | Expr::Try(_) => converted_local(&m.receiver),
                other => local(other),
            }
        }
        _ => None,
    }
}

/// Locals mentioned by name in an expression.
fn mentioned_locals(e: &Expr) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.0.push(i.to_string());
            }
        }
    }
    let mut v = Names(Vec::new());
    v.visit_expr(e);
    v.0
}

/// Constructors of zero-filled buffers and tensors.
const ZEROS: &[&str] = &["zeros", "zeros_like", "new_zeros", "zeroed", "vec_zeros"];

/// A zero-filled initializer: `vec![0; n]`, `[0; N]`, `zeros(..)`, or a conversion of one
/// (`Tensor::new(vec![0; n], &dev)?`). Returns the zero expression's range and text.
fn zero_fill(ctx: &FnCtx, init: &Expr, w: &WriteIndex) -> Option<(Range<usize>, String)> {
    let init = strip_try(init);
    match init {
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let repeat = vec_repeat(&m.mac)?;
            let v = ctx.int_value(&repeat.expr)?;
            w.is_null(v).then(|| (ctx.expr_range(&repeat.expr), source(ctx, &repeat.expr)))
        }
        Expr::Repeat(r) => {
            let v = ctx.int_value(&r.expr)?;
            w.is_null(v).then(|| (ctx.expr_range(&r.expr), source(ctx, &r.expr)))
        }
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return None };
            let name = p.path.segments.last()?.ident.to_string();
            if ZEROS.contains(&name.as_str()) {
                return Some((ctx.expr_range(init), source(ctx, init)));
            }
            if CONVERSIONS.contains(&name.as_str()) {
                return zero_fill(ctx, c.args.first()?, w);
            }
            None
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            if ZEROS.contains(&name.as_str()) {
                return Some((ctx.expr_range(init), source(ctx, init)));
            }
            if CONVERSIONS.contains(&name.as_str()) {
                return zero_fill(ctx, &m.receiver, w);
            }
            // `std::iter::repeat(0).take(n).collect()`, `repeat_n(0, n).collect()`.
            if name == "collect" {
                let mut inner = strip(&m.receiver);
                while let Expr::MethodCall(t) = inner {
                    if t.method != "take" {
                        return None;
                    }
                    inner = strip(&t.receiver);
                }
                let Expr::Call(c) = inner else { return None };
                let Expr::Path(p) = &*c.func else { return None };
                if !p.path.segments.last().is_some_and(|s| s.ident == "repeat" || s.ident == "repeat_n") {
                    return None;
                }
                let value = c.args.first()?;
                let v = ctx.int_value(value)?;
                return w.is_null(v).then(|| (ctx.expr_range(value), source(ctx, value)));
            }
            None
        }
        _ => None,
    }
}

/// `vec![x; n]` as the repeat expression `[x; n]` (its tokens keep their spans).
fn vec_repeat(mac: &syn::Macro) -> Option<syn::ExprRepeat> {
    let tokens = &mac.tokens;
    syn::parse2(quote::quote!([#tokens])).ok()
}

/// An expression with `&`, parentheses and a trailing `?` removed.
fn strip_try(e: &Expr) -> &Expr {
    match strip(e) {
        Expr::Try(t) => strip(&t.expr),
        other => other,
    }
}

/// The source text of an expression, as written.
fn source(ctx: &FnCtx, e: &Expr) -> String {
    ctx.file.text[ctx.expr_range(e)].to_string()
}

/// A write of the sentinel over the whole buffer after its definition: `name.fill(S)`,
/// `name = vec![S; n]`, `for s in name.iter_mut() { *s = S; }`, `name.copy_from_slice(..)`.
/// Returns where the first one is.
fn full_reset(ctx: &FnCtx, name: &str, after: usize, before: usize, w: &WriteIndex) -> Option<usize> {
    struct Resets<'c, 'a> {
        ctx: &'c FnCtx<'a>,
        name: &'c str,
        w: &'c WriteIndex<'c>,
        found: Vec<usize>,
        /// The branches being visited (if/else arms, match arms, loop bodies that may run no
        /// time, closures), each with the resets found in it: a reset in a branch runs only on
        /// some paths, unless every branch of its `if`/`match` resets too, or the call itself is
        /// in the branch.
        branches: Vec<(Range<usize>, Vec<usize>)>,
        call: usize,
    }
    impl Resets<'_, '_> {
        /// Visits `f` as a branch; returns the resets found in it.
        fn branch(&mut self, range: Range<usize>, f: impl FnOnce(&mut Self)) -> Vec<usize> {
            self.branches.push((range, Vec::new()));
            f(self);
            self.branches.pop().map(|(_, hits)| hits).unwrap_or_default()
        }

        /// A reset at `pos`: it counts if every enclosing branch holds the call, else it is the
        /// innermost branch's.
        fn hit(&mut self, pos: usize) {
            if self.branches.iter().all(|(r, _)| r.contains(&self.call)) {
                self.found.push(pos);
            } else if let Some((_, hits)) = self.branches.last_mut() {
                hits.push(pos);
            }
        }

        /// Branches that together cover every path (`if`/`else`, all `match` arms): if each resets,
        /// the whole construct does.
        fn all_branches(&mut self, at: usize, resets: &[Vec<usize>]) {
            if !resets.is_empty() && resets.iter().all(|r| !r.is_empty()) {
                self.hit(at);
            }
        }
    }
    impl<'ast> Visit<'ast> for Resets<'_, '_> {
        fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
            self.visit_expr(&i.cond);
            let then = self.ctx.range(i.then_branch.brace_token.span.join());
            let mut resets = vec![self.branch(then, |v| v.visit_block(&i.then_branch))];
            match &i.else_branch {
                Some((_, els)) => {
                    let r = self.ctx.expr_range(els);
                    resets.push(self.branch(r, |v| v.visit_expr(els)));
                }
                None => resets.push(Vec::new()),
            }
            let at = self.ctx.range(i.if_token.span).start;
            self.all_branches(at, &resets);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            self.visit_expr(&m.expr);
            let resets: Vec<Vec<usize>> = m
                .arms
                .iter()
                .map(|a| {
                    let r = self.ctx.expr_range(&a.body);
                    self.branch(r, |v| syn::visit::visit_arm(v, a))
                })
                .collect();
            let at = self.ctx.range(m.match_token.span).start;
            self.all_branches(at, &resets);
        }
        fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
            let r = self.ctx.expr_range(&c.body);
            self.branch(r, |v| syn::visit::visit_expr_closure(v, c));
        }
        fn visit_expr_while(&mut self, l: &'ast syn::ExprWhile) {
            let r = self.ctx.range(l.body.brace_token.span.join());
            self.branch(r, |v| syn::visit::visit_expr_while(v, l));
        }
        fn visit_expr(&mut self, e: &'ast Expr) {
            let sentinel = |v: &Expr| self.ctx.int_value(v).is_some() && self.ctx.int_value(v) == self.w.sentinel;
            let is_buffer = |e: &Expr| expr_text(strip(e)) == self.name;
            let hit = match e {
                Expr::MethodCall(m) if is_buffer(&m.receiver) => match m.method.to_string().as_str() {
                    "fill" => m.args.first().is_some_and(sentinel),
                    // Every entry comes from elsewhere.
                    "copy_from_slice" | "clone_from_slice" => true,
                    _ => false,
                },
                Expr::Assign(a) if is_buffer(&a.left) => match strip(&a.right) {
                    Expr::Macro(m) if m.mac.path.is_ident("vec") => vec_repeat(&m.mac).is_some_and(|r| sentinel(&r.expr)),
                    _ => false,
                },
                Expr::ForLoop(f) => {
                    let over_buffer = matches!(strip(&f.expr), Expr::MethodCall(m) if m.method == "iter_mut" && is_buffer(&m.receiver));
                    let assigns_sentinel = f.body.stmts.iter().any(|s| {
                        matches!(s, syn::Stmt::Expr(Expr::Assign(a), _) if matches!(&*a.left, Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_))) && sentinel(&a.right))
                    });
                    // `for i in 0..n { name[i] = S; }`: every entry from the first on.
                    let var = match &*f.pat {
                        syn::Pat::Ident(p) => Some(p.ident.to_string()),
                        _ => None,
                    };
                    let from_zero = matches!(strip(&f.expr), Expr::Range(r) if r.start.as_deref().is_some_and(|s| self.ctx.int_value(s) == Some(0)));
                    let stores_each = var.is_some_and(|var| {
                        f.body.stmts.iter().any(|s| {
                            matches!(s, syn::Stmt::Expr(Expr::Assign(a), _)
                                if matches!(&*a.left, Expr::Index(ix) if is_buffer(&ix.expr) && expr_text(strip(&ix.index)) == var)
                                    && sentinel(&a.right))
                        })
                    });
                    (over_buffer && assigns_sentinel) || (from_zero && stores_each)
                }
                _ => false,
            };
            if hit {
                let at = self.ctx.expr_range(e).start;
                self.hit(at);
            }
            match e {
                Expr::If(i) => self.visit_expr_if(i),
                Expr::Match(m) => self.visit_expr_match(m),
                Expr::While(l) => self.visit_expr_while(l),
                Expr::Closure(c) => self.visit_expr_closure(c),
                Expr::ForLoop(f) => {
                    self.visit_expr(&f.expr);
                    let r = self.ctx.range(f.body.brace_token.span.join());
                    self.branch(r, |v| v.visit_block(&f.body));
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut v = Resets { ctx, name, w, found: Vec::new(), branches: Vec::new(), call: before };
    v.visit_block(ctx.body);
    v.found.into_iter().filter(|p| *p >= after && *p < before).min()
}

fn local_buffer(ctx: &FnCtx, name: &str, def: &Def, call_pos: usize, w: &WriteIndex, out: &mut Vec<Finding>) {
    element_fallbacks(ctx, def.init, name, w, out);
    let mutations: Vec<&Expr> = ctx
        .calls()
        .iter()
        .copied()
        .filter(|c| matches!(c, Expr::MethodCall(m) if expr_text(strip(&m.receiver)) == name))
        .filter(|c| {
            let r = ctx.expr_range(c);
            r.start >= def.end && r.start < call_pos
        })
        .collect();
    let mut mutation_receivers = Vec::new();
    for m in &mutations {
        let Expr::MethodCall(mc) = m else { continue };
        let method = mc.method.to_string();
        // Writing entries, or reading only the shape, is not a use of the entries.
        if SHAPE_METHODS.contains(&method.as_str()) || BUILDING_METHODS.contains(&method.as_str()) {
            mutation_receivers.push(ctx.expr_range(&mc.receiver).start);
        }
        let value = match method.as_str() {
            "push" | "fill" | "resize" => stored_value(mc),
            // `extend(std::iter::repeat(0).take(k))`
            "extend" => mc.args.first().and_then(|a| {
                calls_in_expr(a).into_iter().find_map(|c| match c {
                    Expr::Call(rc) if matches!(&*rc.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "repeat" || s.ident == "repeat_n")) => rc.args.first(),
                    _ => None,
                })
            }),
            _ => None,
        };
        let Some(value) = value else { continue };
        match ctx.int_value(value) {
            Some(v) if w.is_null(v) => {
                let text = source(ctx, value);
                out.push(zero_finding(ctx, ctx.expr_range(value), &text, name, w, format!("`{method}` puts {text} into `{name}`")));
            }
            _ if method == "push" => fallback(ctx, value, name, w, out),
            _ => {}
        }
    }
    let (zero, via) = match zero_fill(ctx, def.init, w) {
        Some(z) => (z, None),
        None => match helper_zero(ctx, def.init, w) {
            Some((z, helper)) => (z, Some(helper)),
            None => return,
        },
    };
    let (zero_range, zero_text) = zero;
    let reset_at = full_reset(ctx, name, def.end, call_pos, w);
    let first_use = uses_of(ctx, name).into_iter().filter(|p| *p >= def.end && *p < call_pos && !mutation_receivers.contains(p)).min();
    let label = match &via {
        Some(helper) => format!("`{helper}` pads the buffer it returns with {zero_text}, and `{name}` is that buffer"),
        None => format!("`{name}` starts filled with {zero_text}"),
    };
    let mut finding = zero_finding(ctx, zero_range, &zero_text, name, w, label);
    match (reset_at, first_use) {
        (Some(r), Some(u)) if r <= u => return,
        (Some(_), None) => return,
        (Some(r), Some(u)) => {
            finding = finding
                .with_secondary(Label::new(ctx.file, r..r + name.len(), format!("the reset to {} comes only here", w.sentinel_text)))
                .with_secondary(Label::new(ctx.file, u..u + name.len(), "after the buffer was already used here"))
                .with_note(format!("a reset placed after `{name}` was used leaves whatever was built from it with the zeros"));
        }
        _ => {}
    }
    out.push(finding);
}

/// The value a `push(v)`, `fill(v)` or `resize(n, v)` puts into a buffer's entries.
fn stored_value(m: &syn::ExprMethodCall) -> Option<&Expr> {
    match m.method.to_string().as_str() {
        "push" | "fill" => m.args.first(),
        "resize" => m.args.get(1),
        _ => None,
    }
}

/// A buffer returned by a helper of this file that pads it with the null index:
/// `fn pad(s: &[i64], n: usize) -> Vec<i64> { let mut v = s.to_vec(); v.resize(n, 0); v }`.
/// The helper's summary, in the contract's terms: "returns a buffer padded with 0". Returns the
/// zero (in the helper) and the helper's name.
fn helper_zero(ctx: &FnCtx, init: &Expr, w: &WriteIndex) -> Option<((Range<usize>, String), String)> {
    let Expr::Call(c) = strip_try(init) else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let helper = p.path.get_ident()?.to_string();
    let [body] = ctx.helpers.get(&helper)?.as_slice() else { return None };
    let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last() else { return None };
    let returned = expr_text(strip(tail));
    for stmt in &body.stmts {
        let found = match stmt {
            syn::Stmt::Local(l) => {
                let binds = matches!(&l.pat, syn::Pat::Ident(i) if i.ident == returned)
                    || matches!(&l.pat, syn::Pat::Type(t) if matches!(&*t.pat, syn::Pat::Ident(i) if i.ident == returned));
                l.init.as_ref().filter(|_| binds).and_then(|i| zero_fill(ctx, &i.expr, w))
            }
            syn::Stmt::Expr(Expr::MethodCall(m), _) if expr_text(strip(&m.receiver)) == returned => {
                stored_value(m).filter(|v| ctx.int_value(v).is_some_and(|v| w.is_null(v))).map(|v| (ctx.expr_range(v), source(ctx, v)))
            }
            _ => None,
        };
        if found.is_some() {
            return found.map(|z| (z, helper));
        }
    }
    None
}

/// Positions where `name` is mentioned.
fn uses_of(ctx: &FnCtx, name: &str) -> Vec<usize> {
    struct Uses<'c, 'a>(&'c FnCtx<'a>, &'c str, Vec<usize>);
    impl<'ast> Visit<'ast> for Uses<'_, '_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.path.is_ident(self.1) {
                self.2.push(self.0.range(p.path.segments[0].ident.span()).start);
            }
        }
    }
    let mut v = Uses(ctx, name, Vec::new());
    v.visit_block(ctx.body);
    v.2
}

/// Fallbacks that become entries of the buffer an initializer builds: the value a `map` closure
/// returns in `..map(|i| ..unwrap_or(0)).collect()`, or a literal 0 returned there. Lengths, slice
/// bounds and other arguments inside the initializer are not entries and are not looked at.
fn element_fallbacks(ctx: &FnCtx, init: &Expr, buffer: &str, w: &WriteIndex, out: &mut Vec<Finding>) {
    let mut e = strip_try(init);
    let Expr::MethodCall(collect) = e else { return };
    if collect.method != "collect" {
        return;
    }
    e = &collect.receiver;
    while let Expr::MethodCall(m) = strip(e) {
        if m.method == "map" {
            if let Some(Expr::Closure(c)) = m.args.first().map(strip) {
                let value = super::tail(&c.body);
                match ctx.int_value(value) {
                    Some(v) if w.is_null(v) => {
                        let text = source(ctx, value);
                        out.push(zero_finding(ctx, ctx.expr_range(value), &text, buffer, w, format!("every entry is {text}")));
                    }
                    _ => fallback(ctx, value, buffer, w, out),
                }
            }
            return;
        }
        e = &m.receiver;
    }
}

/// An entry's value that falls back to the null block: `x.unwrap_or(0)`, `x.unwrap_or_default()`.
fn fallback(ctx: &FnCtx, value: &Expr, buffer: &str, w: &WriteIndex, out: &mut Vec<Finding>) {
    let Expr::MethodCall(m) = strip(value) else { return };
    let method = m.method.to_string();
    let zero = match method.as_str() {
        "unwrap_or" => m.args.first().filter(|a| ctx.int_value(a).is_some_and(|v| w.is_null(v))).map(|a| (ctx.expr_range(a), source(ctx, a))),
        "unwrap_or_default" => Some((ctx.range(m.method.span()).start..ctx.expr_range(value).end, "unwrap_or_default()".into())),
        _ => None,
    };
    if let Some((range, text)) = zero {
        let mut f = zero_finding(ctx, range.clone(), &text, buffer, w, format!("the `{method}` fallback is 0"));
        if method == "unwrap_or_default" {
            f.fix = Some(Fix { message: format!("use `unwrap_or({})`", w.sentinel_here), range, replacement: format!("unwrap_or({})", w.sentinel_here) });
        }
        out.push(f);
    }
}

fn persistent(ctx: &FnCtx, call: &Expr, arg: &Expr, field: &str, w: &WriteIndex, out: &mut Vec<Finding>) {
    let fn_name = ctx.sig.ident.to_string().to_lowercase();
    if !DUMMY_PATH_WORDS.iter().any(|word| fn_name.contains(word)) {
        return;
    }
    let call_pos = ctx.expr_range(call).start;
    // `self.slots.fill(S)`, `self.slots[..].fill(S)`, `self.slots = vec![S; n]`, an `iter_mut` loop.
    let sliced_fill = ctx.calls().iter().copied().any(|c| {
        matches!(c, Expr::MethodCall(m) if m.method == "fill"
            && expr_text(buffer_of(&m.receiver)) == field
            && m.args.first().and_then(|a| ctx.int_value(a)) == w.sentinel
            && w.sentinel.is_some())
            && ctx.expr_range(c).start < call_pos
    });
    if sliced_fill || full_reset(ctx, field, 0, call_pos, w).is_some() {
        return;
    }
    out.push(
        Finding::new(
            &PAD_TO_NULL_BLOCK,
            format!(
                "the persistent buffer `{field}` is passed as `{}` of `{}` on a dummy path without a reset to {}",
                w.param, w.callee.name, w.sentinel_text
            ),
            ctx.label(arg, "still holds the last step's slots or its initial zeros"),
        )
        .with_secondary(clause_label(w.callee, w.clause, format!("`{}` skips only entries equal to {}", w.callee.name, w.sentinel_text)))
        .with_help(format!("reset it first: `{field}.fill({});`", w.sentinel_text)),
    );
}

fn zero_finding(ctx: &FnCtx, range: Range<usize>, zero: &str, buffer: &str, w: &WriteIndex, label: String) -> Finding {
    Finding::new(
        &PAD_TO_NULL_BLOCK,
        format!(
            "`{buffer}` is passed as `{}` of `{}`, whose padding must be {}; {zero} maps a row into the null block",
            w.param, w.callee.name, w.sentinel_text
        ),
        Label::new(ctx.file, range.clone(), label),
    )
    .with_secondary(clause_label(w.callee, w.clause, format!("`{}` skips only entries equal to {}", w.callee.name, w.sentinel_text)))
    .with_help(format!("pad with {} so the kernel skips these rows", w.sentinel_text))
    .with_fix(Fix { message: format!("replace with {}", w.sentinel_here), range, replacement: w.sentinel_here.clone() })
}
