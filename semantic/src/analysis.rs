//! Per-file analysis: every function body of a parsed file is checked by every rule.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use proc_macro2::Span;
use reuse_rules::contract::{Bound, Clause, Place, RegionIndex};
use reuse_rules::external::{walk_fns, FnItem};
use syn::visit::Visit;
use syn::Expr;

use crate::finding::{Finding, Label};
use crate::source::expr_span;
use crate::index::{contract_of, ContractedFn, FileContract, Index};
use crate::items::WorkspaceItems;
use crate::resolve::{CallSite, FieldTypes, Imports, Resolution, Resolver, TypeEnv};
use crate::rules;
use crate::source::FileRef;

/// One function under analysis, with what the rules need to know about it.
pub struct FnCtx<'a> {
    pub file: &'a FileRef,
    pub index: &'a Index,
    /// The other files of the check, for helpers and types defined there, and those of them
    /// this analysis parsed.
    pub items: &'a WorkspaceItems,
    pub parsed: &'a ParsedFiles,
    pub resolver: &'a Resolver<'a>,
    pub sig: &'a syn::Signature,
    pub body: &'a syn::Block,
    pub self_type: Option<&'a str>,
    /// The generics of the enclosing `impl` or trait.
    pub outer_generics: Option<&'a syn::Generics>,
    /// The local types, built on first use (most functions call nothing a contract could name).
    pub env_memo: std::cell::OnceCell<TypeEnv>,
    /// The function's own contract: its attribute, or a contracts file's contract for its path.
    pub contract: Option<&'a FileContract>,
    /// The file that holds `contract` (this file, or the contracts file), for labels at clauses.
    pub contract_file: &'a FileRef,
    /// Every function of the file with its signature, for the dataflow summaries of helpers.
    pub fns: &'a FileFns<'a>,
    /// Summaries computed on demand, shared by the file's functions.
    pub summaries: &'a rules::Summaries,
    /// Computed once per function, on first use: every rule and every call site reads the same
    /// ones (per call site, a function with thousands of calls was quadratic).
    pub calls_memo: std::cell::OnceCell<Vec<&'a Expr>>,
    /// The calls within the expansions of the file's macros called in the body, on first use.
    pub macro_calls_memo: std::cell::OnceCell<Vec<Expr>>,
    /// The light types of the helpers' bodies this analysis reads (their receivers typed as
    /// this function's are: `for layer in &mut self.layers { layer.forward(..) }` in a helper),
    /// by the helper's start in the file.
    pub helper_envs: std::cell::RefCell<HashMap<usize, std::rc::Rc<TypeEnv>>>,
    /// Every call's resolution, by where the call is written ([`crate::resolve::call_position`]):
    /// a call is resolved once, whichever rule, solver pass or helper summary asks.
    pub resolutions: std::cell::RefCell<HashMap<crate::resolve::CallPosition, Resolution<'a>>>,
    /// The integer constants declared inside the body (`const SENT: i64 = -1;` in a block), on
    /// first use: they shadow the module's of the same name.
    pub local_consts: std::cell::OnceCell<HashMap<String, crate::index::ConstExpr>>,
}

impl<'a> FnCtx<'a> {
    pub fn range(&self, span: Span) -> Range<usize> {
        self.file.range(span)
    }

    pub fn expr_range(&self, e: &Expr) -> Range<usize> {
        let (a, b) = expr_span(e);
        self.file.join(a, b)
    }

    /// How an expression is written, for a message: its text in the file, or its tokens where
    /// it comes from another file's macro (whose tokens stand at the call's name).
    pub fn source_text(&self, e: &Expr) -> String {
        let r = self.expr_range(e);
        if self.fns.macros.in_foreign_call(&r) {
            crate::source::unparsed(e)
        } else {
            self.file.text[r].to_string()
        }
    }

    pub fn label(&self, e: &Expr, message: impl Into<String>) -> Label {
        Label::new(self.file, self.expr_range(e), message)
    }

    /// Which contract a call is: resolved on first ask, then read from
    /// [`FnCtx::resolutions`].
    pub fn resolve(&self, call: &CallSite<'_>) -> Resolution<'a> {
        // Most calls name nothing contracted, known from their names: not worth a memo entry.
        // A call of a local may call the function the local is bound to (`op(..)` of `let op =
        // kv::reshape_and_cache;`): the resolver reads the binding.
        if !self.resolver.may_resolve(call) && !self.may_call_a_bound_fn(call) {
            return Resolution::None;
        }
        let position = call.position();
        if let Some(known) = position.and_then(|p| self.resolutions.borrow().get(&p).cloned()) {
            return known;
        }
        let resolution = match position {
            Some(at) => self.with_env_at(at.start, |env| self.resolver.resolve(call, self.self_type, env)),
            None => self.resolver.resolve(call, self.self_type, self.env()),
        };
        if let Resolution::One(f) = &resolution {
            self.index.mark_called(f);
        }
        if let Some(p) = position {
            self.resolutions.borrow_mut().insert(p, resolution.clone());
        }
        resolution
    }

    /// `op(..)`, a plain lower-case name that no function of this file has, bound by a `let` of
    /// this function to a path.
    fn may_call_a_bound_fn(&self, call: &CallSite<'_>) -> bool {
        let Some([name]) = call.path.as_deref() else { return false };
        if !name.starts_with(|c: char| c.is_ascii_lowercase()) || self.fns.by_name.contains_key(name) {
            return false;
        }
        let Expr::Call(c) = call.expr else { return false };
        let Expr::Path(p) = &*c.func else { return false };
        let at = crate::source::byte_range(p.path.segments[0].ident.span()).start;
        self.env().bound_fn_at(name, at).is_some()
    }

    /// A call of a function of `std::{module}` (`std::mem::swap(..)`, `mem::take(..)`,
    /// `ptr::write(..)`, `replace(..)` imported from `std::mem`) among `names`: its name and
    /// arguments. A function of that name elsewhere (a user's `take`) is not one.
    pub fn std_call<'e>(&self, e: &'e Expr, module: &str, names: &[&str]) -> Option<(String, Vec<&'e Expr>)> {
        let Expr::Call(c) = e else { return None };
        let Expr::Path(p) = crate::dataflow::strip_parens(&c.func) else { return None };
        let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let name = written.last()?.clone();
        if !names.contains(&name.as_str()) {
            return None;
        }
        let full = match written.as_slice() {
            [one] => self.resolver.imports.get(one)?.to_vec(),
            [first, rest @ ..] => match self.resolver.imports.get(first) {
                Some(anchor) => anchor.iter().chain(rest).cloned().collect(),
                None => written.clone(),
            },
            [] => return None,
        };
        let in_module = full.len() >= 2 && full[full.len() - 2] == module && (full.len() == 2 || full[0] == "std" || full[0] == "core");
        in_module.then(|| (name, c.args.iter().collect()))
    }

    /// The local types of the function (see [`TypeEnv`]).
    pub fn env(&self) -> &TypeEnv {
        self.env_memo.get_or_init(|| TypeEnv::of(self.sig, self.outer_generics, Some(self.body)))
    }

    /// `f` given the light types of the function of this file a position is in, innermost
    /// first: this function's, or a helper's (summaries walk helpers' bodies with the caller's
    /// context), so that what a call in a helper resolves to does not depend on which function
    /// asked first (a function defined in the caller's body is no name of the helper's).
    fn with_env_at<R>(&self, at: usize, f: impl FnOnce(&TypeEnv) -> R) -> R {
        let innermost = self.fns.defs.iter().filter(|d| d.range.contains(&at)).min_by_key(|d| d.range.len());
        match innermost {
            Some(def) if !std::ptr::eq(def.body, self.body) => self.with_env(Some(def), f),
            _ => f(self.env()),
        }
    }

    /// `f` given the light types of the body a call is written in: this function's (`within`:
    /// `None`), or a helper's, built once per helper.
    pub fn with_env<R>(&self, within: Option<&FnDef>, f: impl FnOnce(&TypeEnv) -> R) -> R {
        let Some(def) = within else { return f(self.env()) };
        let env = self.helper_envs.borrow_mut().entry(def.range.start).or_insert_with(|| std::rc::Rc::new(TypeEnv::of(def.sig, None, Some(def.body)))).clone();
        f(&env)
    }

    /// The contracted callee of a call expression, if it is one and unambiguous.
    pub fn callee<'e>(&self, e: &'e Expr) -> Option<(CallSite<'e>, &'a ContractedFn)> {
        let call = CallSite::of(e)?;
        match self.resolve(&call) {
            Resolution::One(f) => Some((call, f)),
            _ => None,
        }
    }

    /// The 1-based line of a byte offset in this file.
    pub fn line_of(&self, offset: usize) -> usize {
        self.file.line_col(offset).line
    }

    /// The value of an integer literal, a constant known to the index, or arithmetic of them
    /// (`PAD_SLOT_ID + 1`), or of a call of a function of this file without arguments whose
    /// body is one of those (`null_index()` of `fn null_index() -> usize { NULL_BLOCK }`).
    pub fn int_value(&self, e: &Expr) -> Option<i128> {
        let krate = [self.resolver.crate_name];
        if let Some(v) = self.const_by_path(crate::resolve::strip(e), &krate) {
            return Some(v);
        }
        if let Expr::Call(c) = crate::resolve::strip(e) {
            let named = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| self.fns.by_name.contains_key(&s.ident.to_string())));
            if named && c.args.is_empty() {
                if let Some((_, def)) = self.helper_of(e, None, 0) {
                    return constant_body(def).and_then(|value| self.int_value(value));
                }
            }
            // A function of another file or crate (`kv::reserved_block()`), read in its own
            // file: its constants are its crate's.
            if !named && c.args.is_empty() && matches!(&*c.func, Expr::Path(_)) {
                if let Some(path) = self.foreign_helper(crate::resolve::strip(e), None, 0) {
                    return crate::dataflow::shared_memoized(&self.items.summaries.constant_fns, &path, 0, || {
                        self.with_foreign_fn(&path, |theirs, def| constant_body(def).and_then(|value| theirs.int_value(value))).flatten()
                    });
                }
            }
        }
        let local = self.local_consts.get_or_init(|| local_consts(self.body));
        // A constant or static of this file the path names (`warm::DUMMY`, an array), unless the
        // body declares a constant of that name: its own initializer, never a same-named constant
        // of another crate read by name.
        if let Expr::Path(p) = crate::resolve::strip(e) {
            let shadowed = p.path.get_ident().is_some_and(|i| local.contains_key(&i.to_string()));
            if let Some(init) = self.static_init(&p.path).filter(|_| !shadowed) {
                return crate::index::ConstExpr::of(crate::resolve::strip(init))?.eval(&mut |name| self.index.const_value_in(name, &krate));
            }
        }
        crate::index::ConstExpr::of(crate::resolve::strip(e))?.eval(&mut |name| match local.get(name) {
            Some(c) => c.eval(&mut |inner| self.index.const_value_in(inner, &krate)),
            None => self.index.const_value_in(name, &krate),
        })
    }
}

impl<'a> FnCtx<'a> {
    /// A constant named where the crate defines several of its name (`tokens::PAD`, the pad token
    /// id, beside `slots::PAD`, the no-write slot): the one its path resolves to, as a call's
    /// path does. A name the crate defines once is read by name ([`Self::int_value`]).
    fn const_by_path(&self, e: &Expr, krate: &[&str]) -> Option<i128> {
        let Expr::Path(p) = e else { return None };
        if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let name = p.path.segments.last()?.ident.to_string();
        if !self.index.defines_const_more_than_once(&name) {
            return None;
        }
        let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let targets = self.resolver.call_targets(&written, self.self_type);
        let value = targets.iter().find_map(|t| self.items.const_value(self.index, t))?;
        value.eval(&mut |inner| self.index.const_value_in(inner, krate))
    }
}

/// The value a function without arguments returns, when its body is that one expression and
/// not a call: a chain of helpers is not followed (nor is a recursion).
fn constant_body<'d>(def: &FnDef<'d>) -> Option<&'d Expr> {
    match def.body.stmts.as_slice() {
        [syn::Stmt::Expr(value, None)] if !matches!(crate::resolve::strip(value), Expr::Call(_)) => Some(value),
        _ => None,
    }
}

/// The integer constants a function body declares, by name (a name declared twice is left out:
/// which one a use sees depends on its block).
fn local_consts(body: &syn::Block) -> HashMap<String, crate::index::ConstExpr> {
    struct Consts(HashMap<String, Option<crate::index::ConstExpr>>);
    impl<'ast> Visit<'ast> for Consts {
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            let value = crate::index::ConstExpr::of(&c.expr);
            self.0.entry(c.ident.to_string()).and_modify(|v| *v = None).or_insert(value);
        }
        // A nested function's constants are its own.
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
        fn visit_item_impl(&mut self, _: &'ast syn::ItemImpl) {}
    }
    let mut v = Consts(HashMap::new());
    v.visit_block(body);
    v.0.into_iter().filter_map(|(k, v)| Some((k, v?))).collect()
}

impl<'a> FnCtx<'a> {
    /// The half-open range of positions a `forbids_write` region index covers, when its bounds are
    /// literals or known constants (`0..BLOCK_SIZE`, `NULL_BLOCK`, `..=3`), its constants read as
    /// the contract's crate (`owner`) sees them, then as this function's crate does.
    pub fn region_bounds(&self, index: &RegionIndex<Range<usize>>, owner: &str) -> Option<(i128, i128)> {
        let value = |b: &Bound<Range<usize>>| match b {
            Bound::Int { value, .. } => Some(*value),
            Bound::Const(p) => self.const_seen_by(p.last_name(), owner),
        };
        match index {
            RegionIndex::At(b) => value(b).map(|v| (v, v.saturating_add(1))),
            RegionIndex::Range { start, end, inclusive, .. } => Some((
                start.as_ref().map_or(Some(0), value)?,
                end.as_ref().map_or(Some(i128::MAX), |b| value(b).map(|v| v.saturating_add(i128::from(*inclusive))))?,
            )),
        }
    }

    /// The value of a `skip` sentinel of `callee`'s contract, read as for [`Self::region_bounds`].
    pub fn sentinel_value(&self, skip: &reuse_rules::contract::Sentinel<Range<usize>>, callee: &ContractedFn) -> Option<i128> {
        self.sentinel_seen_by(skip, &callee.path[0])
    }

    /// The value of a sentinel declared in crate `owner` (a contract's, an index field's).
    pub fn sentinel_seen_by(&self, skip: &reuse_rules::contract::Sentinel<Range<usize>>, owner: &str) -> Option<i128> {
        match skip {
            reuse_rules::contract::Sentinel::Int { value, .. } => Some(*value),
            reuse_rules::contract::Sentinel::Const(p) => self.const_seen_by(p.last_name(), owner),
        }
    }

    /// This function's own contract as the index holds it (with its resolved `except` paths).
    pub fn own_contracted(&self) -> Option<&'a ContractedFn> {
        let here = self.resolver.current.as_deref()?;
        self.index.candidates(here.last()?).find(|c| c.path == here && c.file.path == self.contract_file.path)
    }

    /// Whether this function is a sanctioned writer of `clause`, a `forbids_write` of `owner`'s
    /// contract: an `except(..)` path of the clause names this function's definition path.
    pub fn sanctioned_by(&self, owner: &ContractedFn, clause: &Clause<Range<usize>>) -> bool {
        !clause.except().is_empty() && self.resolver.current.as_deref().is_some_and(|here| owner.sanctions(clause, here, self.index))
    }

    /// The positions of `callee`'s `place` that are the null block for a call from this function:
    /// position 0 and the callee's forbidden regions of `place`, less the regions this function
    /// is a sanctioned writer of (there they are ordinary positions).
    pub fn null_positions(&self, callee: &ContractedFn, place: &Place<Range<usize>>) -> Vec<(i128, i128)> {
        self.positions_not_to_write(callee, place, vec![(0, 1)])
    }

    /// The callee's forbidden regions of `place`, less those this function is a sanctioned writer
    /// of: the positions of an index buffer no entry may hold, where every entry is written.
    pub fn forbidden_positions(&self, callee: &ContractedFn, place: &Place<Range<usize>>) -> Vec<(i128, i128)> {
        self.positions_not_to_write(callee, place, Vec::new())
    }

    fn positions_not_to_write(&self, callee: &ContractedFn, place: &Place<Range<usize>>, mut null: Vec<(i128, i128)>) -> Vec<(i128, i128)> {
        let mut sanctioned = Vec::new();
        for (clause, region) in callee.contract.forbidden_regions() {
            if region.place.to_string() == place.to_string() {
                let bounds = self.region_bounds(&region.index, &callee.path[0]);
                if self.sanctioned_by(callee, clause) {
                    sanctioned.extend(bounds);
                } else {
                    null.extend(bounds);
                }
            }
        }
        for (a, b) in sanctioned {
            null = null.into_iter().flat_map(|(lo, hi)| [(lo, hi.min(a)), (lo.max(b), hi)]).filter(|(lo, hi)| lo < hi).collect();
        }
        null
    }

    /// A constant as a contract of crate `owner` sees it: that crate's definition first, then this
    /// function's crate's.
    fn const_seen_by(&self, name: &str, owner: &str) -> Option<i128> {
        self.index.const_value_in(name, &[owner, self.resolver.crate_name])
    }
}

impl<'a> FnCtx<'a> {
    /// The index fields declared on the struct `ty` (a type of this function's file, as the
    /// resolver types it): the struct its name or written path resolves to in this module, through
    /// imports, renamed dependencies and re-exports (`kv::StepInput` of `kv = { package =
    /// "kernels" }`, `kernels::StepInput` written out, `pub use meta::StepInput;`). A struct of
    /// the same name elsewhere is another struct. A name that resolves to nothing keeps the
    /// old reading: the file's own struct of that name, else one of this crate.
    pub fn index_fields_of_type(&self, ty: &crate::resolve::TypeRef) -> Vec<&'a crate::index::IndexField> {
        let declared = self.index.index_fields.iter().filter(|d| d.type_name == ty.name);
        let paths = self.resolver.owner_paths(ty, self.self_type);
        if !paths.is_empty() {
            return declared.filter(|d| paths.contains(&d.type_path)).collect();
        }
        let defines_here = self.resolver.fields.defines(&ty.name);
        declared.filter(|d| if defines_here { d.file.path == self.file.path } else { d.krate == self.resolver.crate_name }).collect()
    }

    /// The declaration of `ty.field`, if it is an index field (see [`Self::index_fields_of_type`]).
    pub fn index_field(&self, ty: &crate::resolve::TypeRef, field: &str) -> Option<&'a crate::index::IndexField> {
        self.index_fields_of_type(ty).into_iter().find(|d| d.field == field)
    }
}

impl<'a> FnCtx<'a> {
    /// Every call and method call of the body, in source order (see [`crate::rules::calls_in`]).
    pub fn calls(&self) -> &[&'a Expr] {
        self.calls_memo.get_or_init(|| crate::rules::calls_in(self.body))
    }

    /// Every call within the expansions of the file's `macro_rules!` macros that the body calls
    /// (see [`crate::rules::expanded_calls`]): what a `launch!(..)` wrapping a kernel runs.
    pub fn macro_calls(&self) -> &[Expr] {
        self.macro_calls_memo.get_or_init(|| crate::rules::expanded_calls(&self.fns.macros, |v| v.visit_block(self.body)))
    }
}

impl<'a> FnCtx<'a> {
    /// The helper of this file a call designates: one function or method of that name without a
    /// contract (a path call for free functions and `Self::f`, a method call for methods). The
    /// call is written in `within` (a helper being summarised, `depth` calls down from this
    /// function; `None`: this function), whose `impl` type decides `self.f()` and `Self::f()`.
    /// Helpers are followed [`crate::dataflow::MAX_SUMMARY_DEPTH`] calls deep.
    pub fn helper_of(&self, call: &Expr, within: Option<&FnDef>, depth: usize) -> Option<(usize, &'a FnDef<'a>)> {
        match self.helper_candidates(call, within, depth).as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The functions of this file a call may designate, as [`Self::helper_of`] reads it: one
    /// when it knows which, else every function of that name that could be called so (`self.f()`
    /// on this `impl`'s type: its methods only). Empty: not a helper of this file.
    pub fn helper_candidates(&self, call: &Expr, within: Option<&FnDef>, depth: usize) -> Vec<(usize, &'a FnDef<'a>)> {
        if depth >= crate::dataflow::MAX_SUMMARY_DEPTH {
            return Vec::new();
        }
        let here = within.map_or(self.self_type, |d| d.self_type.as_deref());
        let (name, method) = match call {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => {
                    let Some(last) = p.path.segments.last() else { return Vec::new() };
                    (last.ident.to_string(), false)
                }
                _ => return Vec::new(),
            },
            Expr::MethodCall(m) => (m.method.to_string(), true),
            _ => return Vec::new(),
        };
        let fns: &'a FileFns<'a> = self.fns;
        // Most calls name no function of this file: known from the name, before resolving.
        let (same_name, renamed) = match fns.by_name.get(&name) {
            Some(same_name) => (same_name, false),
            None => match self.renamed_helper(call, &name, here) {
                Some(same_name) => (same_name, true),
                None => return Vec::new(),
            },
        };
        // `<Metrics as Recorder>::emit(&m)`: the method of that type (its receiver the first
        // argument), whatever the trait's path says.
        if let Expr::Call(c) = call {
            if let Expr::Path(syn::ExprPath { qself: Some(q), .. }) = &*c.func {
                let syn::Type::Path(ty) = &*q.ty else { return Vec::new() };
                let Some(ty) = ty.path.segments.last().map(|s| s.ident.to_string()) else { return Vec::new() };
                if self.callee(call).is_some() {
                    return Vec::new();
                }
                return same_name.iter().map(|&i| (i, &fns.defs[i])).filter(|(_, d)| d.has_receiver() && d.self_type.as_deref() == Some(ty.as_str())).collect();
            }
        }
        // `LocalEnd::on_step_end(&mut x)` of a trait of the workspace: the method of `x`'s type
        // (its override, or the default it keeps), as `x.on_step_end()` names it.
        if let (Expr::Call(c), false) = (call, renamed) {
            // (A trait this file implements or gives a default body: its functions are here.)
            let is_trait = |owner: &[String]| owner.last().is_some_and(|t| fns.impls.iter().any(|(_, tr)| tr == t) || fns.defs.iter().any(|d| d.trait_default && d.self_type.as_ref() == Some(t)));
            if let Some(ty) = self.trait_path_receiver(c, within, here, &is_trait) {
                if self.callee(call).is_some() {
                    return Vec::new();
                }
                let with_receiver = same_name.iter().map(|&i| (i, &fns.defs[i])).filter(|(_, d)| d.has_receiver()).collect();
                return trait_aware(fns, with_receiver, &ty.name);
            }
        }
        // A path through a type or a module (`Vec::new()`, `mem::take()`) names one of this
        // file's functions only where one of that name is in such a type or module: most are std's.
        if let (Expr::Call(c), false) = (call, renamed) {
            if let Expr::Path(p) = &*c.func {
                let segs = &p.path.segments;
                if segs.len() > 1 && segs[0].ident != "Self" && !same_name.iter().any(|&i| path_may_name(segs, &fns.defs[i])) {
                    return Vec::new();
                }
            }
        }
        if self.callee(call).is_some() {
            return Vec::new();
        }
        let candidates: Vec<(usize, &'a FnDef<'a>)> =
            same_name.iter().map(|&i| (i, &fns.defs[i])).filter(|(_, d)| d.has_receiver() == method || !method).collect();
        if let Expr::Call(c) = call {
            if let Some(by_path) = self.helpers_by_path(c, &candidates, within) {
                return by_path;
            }
        }
        // `self.f()`, `Self::f()`: the method of this type.
        let on_self = match call {
            Expr::MethodCall(m) => matches!(crate::resolve::strip(&m.receiver), Expr::Path(p) if p.path.is_ident("self")),
            Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.segments.len() > 1),
            _ => false,
        };
        if candidates.len() > 1 && on_self && here.is_some() {
            return candidates.into_iter().filter(|(_, d)| d.self_type.as_deref() == here).collect();
        }
        // `x.f()` on a receiver of known type: that type's method only. A same-named method of
        // another type of this file is not it (one of another file's type is `foreign_helper`'s).
        if let Expr::MethodCall(m) = call {
            if !on_self {
                // What an `Option` or a `Result` holds (`self.obs.as_mut().expect(..)`) is light-typed
                // as the std type itself: its content is not known.
                let ty = self.with_env(within, |env| self.resolver.type_of(&m.receiver, here, env)).filter(|t| t.name != crate::resolve::BUILTIN || !unwraps(&m.receiver));
                match ty {
                    // A std type (`self.plans.get(&k)` on a `HashMap`): this file's method only
                    // where the file implements a trait for a std type (`impl Ext for Vec<i64>`).
                    Some(ty) if ty.name == crate::resolve::BUILTIN => {
                        return candidates.into_iter().filter(|(_, d)| d.self_type.as_deref().is_none_or(crate::resolve::is_std_type)).collect();
                    }
                    Some(ty) => return trait_aware(fns, candidates, &ty.name),
                    // An unknown receiver is not `self`: never the function being checked or the
                    // helper being summarised; nor is it this file's type for a name that std
                    // types use everywhere (`t.get(i)` in `.and_then(|t| t.get(i))`).
                    None if crate::resolve::is_common_method(&m.method.to_string()) => return Vec::new(),
                    None => {
                        let current = |d: &FnDef| std::ptr::eq(d.sig, self.sig) || within.is_some_and(|w| std::ptr::eq(d.sig, w.sig));
                        return candidates.into_iter().filter(|(_, d)| !current(d)).collect();
                    }
                }
            }
        }
        candidates
    }
}

/// The methods among `candidates` a call on a receiver of type `ty` may run: the type's own;
/// where it is a trait (`&mut dyn StepHooks`, `H: StepHooks`), its default and every override of
/// the file's `impl`s of it (the receiver may be any of them), or those overrides alone where the
/// trait declares the method without a default; where the type has none, the default of a trait
/// the file implements for it (`impl StepHooks for DefaultHooks {}`).
fn trait_aware<'a>(fns: &FileFns<'a>, candidates: Vec<(usize, &'a FnDef<'a>)>, ty: &str) -> Vec<(usize, &'a FnDef<'a>)> {
    let own: Vec<(usize, &'a FnDef<'a>)> = candidates.iter().copied().filter(|(_, d)| d.self_type.as_deref() == Some(ty)).collect();
    if own.iter().any(|(_, d)| d.trait_default) {
        return candidates.into_iter().filter(|(_, d)| d.self_type.as_deref() == Some(ty) || d.trait_of.as_deref() == Some(ty)).collect();
    }
    if !own.is_empty() {
        return own;
    }
    // A trait whose method has no default (`fn forward(&mut self, ..);`): the file's impls of it.
    if fns.impls.iter().any(|(_, tr)| tr == ty) {
        return candidates.into_iter().filter(|(_, d)| d.trait_of.as_deref() == Some(ty)).collect();
    }
    candidates.into_iter().filter(|(_, d)| d.trait_default && d.self_type.as_ref().is_some_and(|tr| fns.impls.contains(&(ty.to_string(), tr.clone())))).collect()
}

/// Whether a receiver is the content of an `Option` or a `Result` (`x.unwrap()`, `x?`).
fn unwraps(receiver: &Expr) -> bool {
    match crate::resolve::strip(receiver) {
        Expr::Try(_) => true,
        Expr::MethodCall(m) => matches!(m.method.to_string().as_str(), "unwrap" | "expect" | "unwrap_or" | "unwrap_or_else" | "unwrap_or_default" | "unwrap_unchecked"),
        _ => false,
    }
}

impl<'a> FnCtx<'a> {
    /// The function of another file of the workspace a call designates, by its definition path,
    /// when it has a body and no contract: a path or a plain name followed through imports,
    /// renames and re-exports as Rust resolves it (never a function of that name elsewhere), or a
    /// method of a receiver whose type is known. The call is written in `within` (see
    /// [`Self::helper_of`]); a function of this file of that name is [`Self::helper_of`]'s.
    pub fn foreign_helper(&self, call: &Expr, within: Option<&FnDef>, depth: usize) -> Option<Vec<String>> {
        if depth >= crate::dataflow::MAX_SUMMARY_DEPTH {
            return None;
        }
        let site = CallSite::of(call)?;
        if self.callee(call).is_some() {
            return None;
        }
        let here = within.map_or(self.self_type, |d| d.self_type.as_deref());
        let targets = match (&site.path, site.receiver) {
            (Some(path), _) => {
                if path.len() == 1 && self.fns.by_name.contains_key(&site.name) {
                    return None;
                }
                // `f(..)` where `f` is a parameter or a local (a closure) is no item.
                if let (None, Expr::Call(c)) = (within, call) {
                    if let Expr::Path(p) = &*c.func {
                        if p.path.get_ident().is_some_and(|i| self.env().is_local_at(&site.name, crate::source::byte_range(i.span()).start)) {
                            return None;
                        }
                    }
                }
                // `StepEnd::on_step_end(&mut x)`: the method of `x`'s type first (its override),
                // then what the path names (the trait's default, which a type may keep).
                let mut targets = self.trait_call_targets(call, path, within, here);
                targets.extend(self.resolver.call_targets(path, here));
                targets
            }
            (None, Some(recv)) => {
                // In a helper, its own locals and parameters (`attn.forward(..)` of `fn run(attn: &Attn, ..)`).
                let ty = self.with_env(within, |env| self.resolver.type_of(recv, here, env))?;
                let method = std::slice::from_ref(&site.name);
                self.resolver.owner_paths(&ty, here).iter().map(|owner| [owner.as_slice(), method].concat()).collect()
            }
            (None, None) => return None,
        };
        // A contracted function is a callee, never a helper (even where the call is ambiguous:
        // `in_other_file`). A path into this very file is `helper_of`'s (and asking the item table about it would
        // parse this file a second time: `Vec::new()` may be `crate::here::Vec::new`), unless
        // this file defines no function of that name: a method of a type of this file whose
        // `impl` is in another file (`self.prepare_pad(..)`, defined in `runner_prep.rs`).
        let elsewhere = |t: &[String]| {
            self.items.file_of(t).is_some_and(|(_, f)| f.file.path != self.file.path || t.last().is_some_and(|name| !self.fns.by_name.contains_key(name)))
        };
        if let Some(found) = targets.iter().find(|t| elsewhere(t) && self.in_other_file(t)) {
            return Some(found.clone());
        }
        // A method of a trait without a body of its own, called through `&dyn Trait` or a type
        // parameter bounded by it: the workspace's one implementation of it, where it has one.
        match self.dispatched(call, within, depth) {
            Some((local, foreign)) if local.is_empty() && foreign.len() == 1 => foreign.into_iter().next(),
            Some(_) => None,
            // A type of the workspace whose `impl` keeps the trait's default body, in another file.
            None => match self.trait_defaults_of(call, within).as_slice() {
                [kept] => Some(kept.clone()),
                _ => None,
            },
        }
    }

    /// The default bodies, in other files of the check, that a method call may run: of the
    /// trait of a `dyn Trait` receiver or of one whose type parameter it bounds (an
    /// implementation may keep it), or of the traits that the receiver's type, of the workspace,
    /// implements without defining the method (`self.keeps.on_end()` of `impl Hooks for Keeps
    /// {}`: a call of a trait's method needs the trait in scope, and the type's `impl`).
    pub fn trait_defaults_of(&self, call: &Expr, within: Option<&FnDef>) -> Vec<Vec<String>> {
        let Expr::MethodCall(m) = call else { return Vec::new() };
        let here = within.map_or(self.self_type, |d| d.self_type.as_deref());
        let Some(ty) = self.with_env(within, |env| self.resolver.type_of(&m.receiver, here, env)) else { return Vec::new() };
        let method = m.method.to_string();
        let mut out: Vec<Vec<String>> = Vec::new();
        for owner in self.resolver.owner_paths(&ty, here) {
            let path = [owner.as_slice(), std::slice::from_ref(&method)].concat();
            if self.items.defines_trait(self.index, &owner) {
                if self.in_other_file(&path) {
                    out.push(path);
                }
            } else if self.items.defines_type(self.index, &owner) && !self.items.has_fn(self.index, &path) {
                // A default's path ends with its trait and the method.
                let mut kept: Vec<Vec<String>> = self.items.trait_defaults(self.index, &method).into_iter().filter(|d| self.items.implements_trait(&owner, &d[d.len() - 2]) && self.in_other_file(d)).collect();
                // Traits of one name in several crates: those the type's crate can implement.
                if kept.len() > 1 {
                    kept.retain(|d| self.items.reaches(&owner[0], &d[0]));
                }
                out.extend(kept);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// `Trait::m(&x, ..)` and `<T as Trait>::m(&x, ..)`, a trait's method called by its path:
    /// the method of `T`, or of the type of `x`, as `x.m(..)` names it (the path itself names the
    /// trait's declaration, which has no body to follow).
    fn trait_call_targets(&self, call: &Expr, path: &[String], within: Option<&FnDef>, here: Option<&str>) -> Vec<Vec<String>> {
        let (Expr::Call(c), [.., method]) = (call, path) else { return Vec::new() };
        let is_trait = |owner: &[String]| self.resolver.type_paths(owner, here).iter().any(|t| self.items.defines_trait(self.index, t));
        let Some(ty) = self.trait_path_receiver(c, within, here, &is_trait) else { return Vec::new() };
        self.resolver.owner_paths(&ty, here).into_iter().filter(|o| !self.items.defines_trait(self.index, o)).map(|o| [o.as_slice(), std::slice::from_ref(method)].concat()).collect()
    }

    /// The type whose method a call by a trait's path runs (`StepHook::on_step(&x)`: `x`'s;
    /// `<T as StepHook>::on_step(..)`: `T`), where the path's owner is a trait of the workspace.
    fn trait_path_receiver(&self, c: &syn::ExprCall, within: Option<&FnDef>, here: Option<&str>, is_trait: &dyn Fn(&[String]) -> bool) -> Option<crate::resolve::TypeRef> {
        let Expr::Path(p) = &*c.func else { return None };
        let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let [owner @ .., _] = written.as_slice() else { return None };
        if owner.is_empty() || owner == ["Self"] || !is_trait(owner) {
            return None;
        }
        match &p.qself {
            Some(q) => self.resolver.type_ref(&q.ty, here, &[]),
            None => c.args.first().and_then(|x| self.with_env(within, |env| self.resolver.type_of(x, here, env))),
        }
    }

    /// Whether a definition path is a function with a body and no contract in another file of
    /// the check.
    fn in_other_file(&self, t: &[String]) -> bool {
        let contracted = t.last().is_some_and(|name| self.index.candidates(name).any(|c| c.path == t));
        !contracted && self.items.fn_file_of(self.index, t).is_some_and(|(_, f)| f.file.path != self.file.path)
    }

    /// What a method call through a trait may run, where the receiver is known to be of a trait
    /// (`&mut dyn Backend`, `B: Backend`, `impl Backend`): the methods of this file that
    /// [`Self::helper_candidates`] gives (the trait's default and the file's overrides), and those
    /// of the trait's `impl`s in other files of the check, by definition path
    /// ([`WorkspaceItems::implementations`]). `None`: not such a call.
    #[allow(clippy::type_complexity)]
    pub fn dispatched(&self, call: &Expr, within: Option<&FnDef>, depth: usize) -> Option<(Vec<(usize, &'a FnDef<'a>)>, Vec<Vec<String>>)> {
        let Expr::MethodCall(m) = call else { return None };
        if depth >= crate::dataflow::MAX_SUMMARY_DEPTH || self.callee(call).is_some() {
            return None;
        }
        let here = within.map_or(self.self_type, |d| d.self_type.as_deref());
        let ty = self.with_env(within, |env| self.resolver.type_of(&m.receiver, here, env))?;
        let traits: Vec<Vec<String>> = self.resolver.owner_paths(&ty, here).into_iter().filter(|t| self.items.defines_trait(self.index, t)).collect();
        let implemented_here = self.fns.impls.iter().any(|(_, tr)| *tr == ty.name);
        if traits.is_empty() && !implemented_here {
            return None;
        }
        let local = if implemented_here { self.helper_candidates(call, within, depth) } else { Vec::new() };
        let method = m.method.to_string();
        let foreign = traits.iter().flat_map(|t| self.items.implementations(self.index, t, &method)).filter(|p| self.in_other_file(p)).collect();
        Some((local, foreign))
    }

    /// Runs `f` on the function defined at `path` in another file of the workspace, with the
    /// context of its own file (imports, helpers, types), that file parsed on this thread.
    pub fn with_foreign_fn<R>(&self, path: &[String], f: impl for<'x> FnOnce(&FnCtx<'x>, &FnDef<'x>) -> R) -> Option<R> {
        let (i, item) = self.items.fn_file_of(self.index, path)?;
        let ast = self.parsed.get(i, &item.file)?;
        let scope = FileScope::of(&ast, &item.crate_name, &item.module, self.items);
        let fns = FileFns::of(&item.file, &ast).with_crate_macros(self.items, &item.file, &scope);
        let summaries = rules::Summaries::default();
        let mut f = Some(f);
        let mut out = None;
        walk_fns(&ast.items, &mut |fi: FnItem<'_>| {
            let Some(body) = fi.body.filter(|_| out.is_none()) else { return };
            let Some((resolver, here)) = scope.resolver(self.index, &fi) else { return };
            let Some(def) = fns.defs.iter().find(|d| here == path && std::ptr::eq(d.sig, fi.sig)) else { return };
            let ctx = FnCtx {
                file: &item.file,
                index: self.index,
                items: self.items,
                parsed: self.parsed,
                resolver: &resolver,
                sig: fi.sig,
                body,
                self_type: fi.self_type,
                outer_generics: fi.outer_generics,
                env_memo: Default::default(),
                contract: None,
                contract_file: &item.file,
                fns: &fns,
                summaries: &summaries,
                calls_memo: Default::default(),
                macro_calls_memo: Default::default(),
                helper_envs: Default::default(),
                resolutions: Default::default(),
                local_consts: Default::default(),
            };
            out = f.take().map(|f| f(&ctx, def));
        });
        out
    }
}

/// The other files one analysis parsed for the helpers it follows there, by their position in
/// [`WorkspaceItems`]: each is parsed once however many of its functions are summarised. An AST
/// stays on the thread that parsed it, and its spans are valid until the engine frees the
/// thread's span table after the file: this lives only as long as the analysis of one file.
#[derive(Default)]
pub struct ParsedFiles(std::cell::RefCell<HashMap<usize, Option<std::rc::Rc<syn::File>>>>);

impl ParsedFiles {
    fn get(&self, i: usize, file: &FileRef) -> Option<std::rc::Rc<syn::File>> {
        if let Some(done) = self.0.borrow().get(&i) {
            return done.clone();
        }
        let ast = crate::source::parse_shared(file).ok();
        self.0.borrow_mut().insert(i, ast.clone());
        ast
    }
}

impl<'a> FnCtx<'a> {
    /// Whether `receiver.method(..)` is a method a trait of this file declares with `&mut self`,
    /// the receiver being of that trait (`ws.reset()` of `ws: &mut W`, `W: Workspace`, or of
    /// `&mut dyn Workspace`): it may write the receiver, whatever the implementation.
    pub fn trait_method_takes_mut_self(&self, receiver: &Expr, method: &str) -> bool {
        let Some(ty) = self.resolver.type_of(receiver, self.self_type, self.env()) else { return false };
        // A type parameter is its bound's trait, the last segment of the path written (`W: ws::Workspace`).
        let bound = self.env().bound_of(&ty.name).and_then(|b| b.last()).cloned();
        std::iter::once(ty.name).chain(bound).any(|tr| self.fns.trait_mut_methods.contains(&(tr, method.to_string())))
    }

    /// The `From` impl of this file that `t.into()` runs: the one whose parameter has the
    /// receiver's type (the only one, where that type is not known, unless `typed` asks for it to
    /// be), by its index in [`FileFns::defs`]. `within`: the helper the call is written in
    /// (`None`: this function).
    pub fn into_impl(&self, call: &Expr, within: Option<&FnDef>, typed: bool) -> Option<(usize, &'a FnDef<'a>)> {
        let Expr::MethodCall(m) = call else { return None };
        if m.method != "into" || !m.args.is_empty() {
            return None;
        }
        let fns: &'a FileFns<'a> = self.fns;
        let impls: Vec<(usize, &'a FnDef<'a>)> = fns.by_name.get("from")?.iter().map(|&i| (i, &fns.defs[i])).filter(|(_, d)| d.trait_of.as_deref() == Some("From")).collect();
        let here = within.map_or(self.self_type, |d| d.self_type.as_deref());
        let (from_type, from_element) = self.with_env(within, |env| {
            let from_type = self.resolver.type_of(&m.receiver, here, env).map(|t| t.name);
            // A slice, an array or a `Vec` (a builtin) is told apart by its element type:
            // `&[WaitingSeq]` is not `&[RunningSeq]`.
            let from_element = match crate::resolve::strip(&m.receiver) {
                Expr::Path(p) if from_type.as_deref() == Some(crate::resolve::BUILTIN) => {
                    p.path.get_ident().and_then(|i| env.element_of_at(&i.to_string(), crate::source::byte_range(i.span()).start)).map(str::to_string)
                }
                _ => None,
            };
            (from_type, from_element)
        });
        if typed && from_type.is_none() {
            return None;
        }
        let takes = |(_, d): &(usize, &FnDef)| match (d.sig.inputs.first(), &from_type) {
            (Some(syn::FnArg::Typed(t)), Some(ty)) => {
                crate::resolve::type_name(&t.ty).as_ref() == Some(ty)
                    && (from_element.is_none() || crate::resolve::element_type(&t.ty).and_then(crate::resolve::type_name) == from_element)
            }
            _ => true,
        };
        match impls.into_iter().filter(takes).collect::<Vec<_>>()[..] {
            [one] => Some(one),
            _ => None,
        }
    }

    /// `t.into()` as the call of the `From` impl it runs ([`Self::into_impl`]), written
    /// `KernelKey::from(t)`.
    pub fn call_for_into(&self, call: &Expr, within: Option<&FnDef>) -> Option<Expr> {
        let (_, def) = self.into_impl(call, within, false)?;
        let Expr::MethodCall(m) = call else { return None };
        let owner = syn::Ident::new(def.self_type.as_deref()?, proc_macro2::Span::call_site());
        let receiver = &m.receiver;
        Some(syn::parse_quote!(#owner::from(#receiver)))
    }

    /// Whether a method receiver's type is known (a typed binding, a field of a known struct, a
    /// typed return), so that a method call on it is that type's method.
    pub fn receiver_type_known(&self, receiver: &Expr) -> bool {
        self.resolver.type_of(receiver, self.self_type, self.env()).is_some_and(|t| t.name != crate::resolve::BUILTIN)
    }

    /// The functions of this file of the name a renamed import or re-export gives a called
    /// path (`use local::emit as flush;` .. `flush()`, `crate::done()` through `pub use local::emit
    /// as done;`): those of the name it resolves to. Only names a `use` renames are resolved.
    fn renamed_helper(&self, call: &Expr, name: &str, here: Option<&str>) -> Option<&'a Vec<usize>> {
        let Expr::Call(c) = call else { return None };
        let Expr::Path(p) = &*c.func else { return None };
        if !self.index.is_renamed(name) {
            return None;
        }
        let path: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let fns: &'a FileFns<'a> = self.fns;
        self.resolver.call_targets(&path, here).iter().find_map(|t| fns.by_name.get(t.last()?))
    }

    /// The inline modules of this function within its file, and the file's module path.
    fn own_modules(&self) -> Option<(&'a [String], &[String])> {
        let own = self.fns.defs.iter().find(|d| std::ptr::eq(d.body, self.body))?;
        let file_module = self.resolver.module.strip_suffix(own.modules.as_slice())?;
        Some((own.modules.as_slice(), file_module))
    }

    /// The initializer of the static or constant of this file a path names (`ZEROS`,
    /// `warm::DUMMY`, `crate::warm::DUMMY`, an import of one), resolved as Rust does; `None`
    /// where it names none of this file's, or which one is not known.
    pub fn static_init(&self, path: &syn::Path) -> Option<&'a Expr> {
        let written: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let name = written.last()?;
        let same_name = self.fns.statics.get(name)?;
        let (own, file_module) = self.own_modules()?;
        // A plain name this module defines and does not import is its own item.
        if written.len() == 1 && self.resolver.imports.get(name).is_none() {
            let mut here = same_name.iter().filter(|(m, _)| m.as_slice() == own);
            return match (here.next(), here.next()) {
                (Some((_, init)), None) => Some(*init),
                _ => None,
            };
        }
        self.resolver.call_targets(&written, self.self_type).into_iter().find_map(|target| {
            let mut found = same_name.iter().filter(|(m, _)| file_module.iter().chain(m).chain([name]).eq(target.iter()));
            match (found.next(), found.next()) {
                (Some((_, init)), None) => Some(*init),
                _ => None,
            }
        })
    }

    /// The functions among `candidates` that a path call (`f()`, `util::f()`, `crate::util::f()`,
    /// `Type::f()`) names, by definition path, resolved as Rust resolves it in the module where
    /// the call is written: a function of that name in another module is not it. `None` where
    /// that module's imports are not at hand (a helper in another inline module calls it): then
    /// a plain name is matched by name, and any other path names no helper.
    fn helpers_by_path(&self, call: &syn::ExprCall, candidates: &[(usize, &'a FnDef<'a>)], within: Option<&FnDef>) -> Option<Vec<(usize, &'a FnDef<'a>)>> {
        let Expr::Path(p) = &*call.func else { return Some(Vec::new()) };
        let path: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if path[0] == "Self" {
            return None;
        }
        let (own, file_module) = self.own_modules()?;
        if within.is_some_and(|d| d.modules != own) {
            return (path.len() > 1).then(Vec::new);
        }
        // A plain name that this module defines and does not import is its own item (it shadows
        // the globs): no path to follow.
        if let [name] = path.as_slice() {
            if self.resolver.imports.get(name).is_none() && self.resolver.imports.defines(name) {
                return Some(candidates.iter().copied().filter(|(_, d)| d.modules == own && d.self_type.is_none() && !d.trait_default).collect());
            }
        }
        let here = within.map_or(self.self_type, |d| d.self_type.as_deref());
        let defined_at = |d: &FnDef| -> Vec<String> {
            file_module.iter().chain(&d.modules).chain(d.self_type.as_ref()).chain([&d.sig.ident.to_string()]).cloned().collect()
        };
        // The first path, in Rust's order, that is a function of this file.
        for target in self.resolver.call_targets(&path, here) {
            let found: Vec<(usize, &'a FnDef<'a>)> = candidates.iter().copied().filter(|(_, d)| !d.trait_default && defined_at(d) == target).collect();
            if !found.is_empty() {
                return Some(found);
            }
        }
        Some(Vec::new())
    }
}

/// Whether a path of two segments or more (`util::f`, `crate::util::f`, `Type::f`) may name `def`,
/// from the segment before the name: a type names its methods, a module its free functions.
fn path_may_name(segs: &syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]>, def: &FnDef) -> bool {
    let owner = segs[segs.len() - 2].ident.to_string();
    if owner.starts_with(|c: char| c.is_uppercase()) {
        return def.self_type.as_deref() == Some(owner.as_str());
    }
    def.self_type.is_none() && (matches!(owner.as_str(), "crate" | "self" | "super") || def.modules.last().is_none_or(|m| *m == owner))
}

/// The arguments of a call by the callee's parameter positions, and the receiver of a method call.
pub fn call_args(call: &Expr) -> (Option<&Expr>, Vec<&Expr>) {
    match call {
        Expr::Call(c) => (None, c.args.iter().collect()),
        Expr::MethodCall(m) => (Some(&*m.receiver), m.args.iter().collect()),
        _ => (None, Vec::new()),
    }
}

/// One function of a file: its signature, body, `impl` type and byte range.
pub struct FnDef<'a> {
    pub sig: &'a syn::Signature,
    pub body: &'a syn::Block,
    pub self_type: Option<String>,
    /// The inline modules it is in, within its file.
    pub modules: Vec<String>,
    pub range: Range<usize>,
    /// A trait's default method (`self_type` is the trait).
    pub trait_default: bool,
    /// Compiled only in some builds: it, or a module or an `impl` it is in, has a `#[cfg(..)]`
    /// (`#[cfg(feature = "cuda")]` beside `#[cfg(not(feature = "cuda"))]`).
    pub cfg_gated: bool,
    /// The trait the `impl` it is in implements (`impl StepHooks for QuietHooks`: `StepHooks`).
    pub trait_of: Option<String>,
    /// Declared without `pub` in an inherent `impl` or a module: callable only from its module.
    pub private: bool,
}

impl FnDef<'_> {
    pub fn has_receiver(&self) -> bool {
        self.sig.receiver().is_some()
    }
}

/// The functions of a file with bodies, in source order.
pub struct FileFns<'a> {
    pub defs: Vec<FnDef<'a>>,
    /// Positions in `defs` by function name.
    pub by_name: HashMap<String, Vec<usize>>,
    /// The initializers of the file's constants and statics by name (`static ZEROS: [i64; 8] =
    /// [0; 8];`), each with the inline modules it is in ([`FnCtx::static_init`] finds the one a
    /// path names).
    pub statics: HashMap<String, Vec<(Vec<String>, &'a Expr)>>,
    /// The file's `macro_rules!` definitions, which the solver expands where they are called.
    pub macros: crate::macros::FileMacros,
    /// The traits the file implements for its types: (type, trait), by last names.
    pub impls: std::collections::HashSet<(String, String)>,
    /// The methods the file's traits declare with a `&mut self` receiver, with or without a
    /// default: (trait, method), by last names.
    pub trait_mut_methods: std::collections::HashSet<(String, String)>,
}

impl<'a> FileFns<'a> {
    /// The bodies of the file's functions and methods named `name` (trait default methods left
    /// out), in source order: the helpers the effect rules follow by name. `None` if there is none.
    pub fn bodies(&self, name: &str) -> Option<Vec<&'a syn::Block>> {
        let bodies: Vec<&'a syn::Block> = self.by_name.get(name)?.iter().map(|&i| &self.defs[i]).filter(|d| !d.trait_default).map(|d| d.body).collect();
        (!bodies.is_empty()).then_some(bodies)
    }

    /// These functions, with the macros of other files of the crate that the file calls
    /// ([`crate::macros::FileMacros::resolve_foreign`]), by their bare names, or by the paths its
    /// imports give them (`use crate::kmacros::launch;`, `use kv::fill;`) or its calls write.
    pub fn with_crate_macros(mut self, items: &WorkspaceItems, file: &FileRef, scope: &FileScope) -> FileFns<'a> {
        let module = scope.module;
        self.macros.resolve_foreign(|name, written| {
            let imported = scope.imports.get(&Vec::new()).and_then(|i| i.get(name)).cloned();
            let path = imported.or_else(|| written.map(|w| crate::resolve::expand_anchor(w, scope.crate_name, module).0));
            items.crate_macro(&file.path, module, name, path.as_deref())
        });
        self
    }

    pub fn of(file: &FileRef, ast: &'a syn::File) -> FileFns<'a> {
        struct Defs<'f, 'a> {
            file: &'f FileRef,
            self_type: Option<String>,
            modules: Vec<String>,
            defs: Vec<FnDef<'a>>,
            statics: HashMap<String, Vec<(Vec<String>, &'a Expr)>>,
            macros: crate::macros::FileMacros,
            /// How many `#[cfg(..)]` modules and `impl`s the visit is in.
            cfg_depth: usize,
            trait_of: Option<String>,
            impls: std::collections::HashSet<(String, String)>,
            trait_mut_methods: std::collections::HashSet<(String, String)>,
        }
        impl<'a> Defs<'_, 'a> {
            fn define(&mut self, name: &syn::Ident, init: &'a Expr) {
                self.statics.entry(name.to_string()).or_default().push((self.modules.clone(), init));
            }
            fn push(&mut self, sig: &'a syn::Signature, body: &'a syn::Block, attrs: &[syn::Attribute], trait_default: bool, vis: Option<&syn::Visibility>) {
                let range = self.file.join(sig.fn_token.span, body.brace_token.span.join());
                let cfg_gated = self.cfg_depth > 0 || crate::source::has_cfg(attrs);
                // A trait's methods are as visible as the trait.
                let private = self.trait_of.is_none() && matches!(vis, Some(syn::Visibility::Inherited));
                self.defs.push(FnDef { sig, body, self_type: self.self_type.clone(), modules: self.modules.clone(), range, trait_default, cfg_gated, trait_of: self.trait_of.clone(), private });
            }
        }
        impl<'a> Visit<'a> for Defs<'_, 'a> {
            fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
                self.modules.push(m.ident.to_string());
                let gated = usize::from(crate::source::has_cfg(&m.attrs));
                self.cfg_depth += gated;
                syn::visit::visit_item_mod(self, m);
                self.cfg_depth -= gated;
                self.modules.pop();
            }
            fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
                let outer = self.self_type.take();
                self.self_type = match &*i.self_ty {
                    syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                let trait_name = i.trait_.as_ref().and_then(|(_, path, _)| path.segments.last()).map(|s| s.ident.to_string());
                if let (Some(ty), Some(tr)) = (&self.self_type, &trait_name) {
                    self.impls.insert((ty.clone(), tr.clone()));
                }
                let outer_trait = std::mem::replace(&mut self.trait_of, trait_name);
                let gated = usize::from(crate::source::has_cfg(&i.attrs));
                self.cfg_depth += gated;
                syn::visit::visit_item_impl(self, i);
                self.cfg_depth -= gated;
                self.self_type = outer;
                self.trait_of = outer_trait;
            }
            fn visit_item_trait(&mut self, t: &'a syn::ItemTrait) {
                let outer = self.self_type.replace(t.ident.to_string());
                syn::visit::visit_item_trait(self, t);
                self.self_type = outer;
            }
            fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
                // A function nested in a method is not a method.
                let outer = self.self_type.take();
                let outer_trait = self.trait_of.take();
                self.push(&f.sig, &f.block, &f.attrs, false, Some(&f.vis));
                syn::visit::visit_item_fn(self, f);
                self.self_type = outer;
                self.trait_of = outer_trait;
            }
            fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
                self.push(&f.sig, &f.block, &f.attrs, false, Some(&f.vis));
                syn::visit::visit_impl_item_fn(self, f);
            }
            fn visit_item_const(&mut self, c: &'a syn::ItemConst) {
                self.define(&c.ident, &c.expr);
            }
            fn visit_item_static(&mut self, s: &'a syn::ItemStatic) {
                self.define(&s.ident, &s.expr);
            }
            // `impl Warm { const DUMMY: [i64; 4] = [0; 4]; }`: named `Warm::DUMMY`, as an item
            // of a module `Warm` would be.
            fn visit_impl_item_const(&mut self, c: &'a syn::ImplItemConst) {
                let Some(ty) = self.self_type.clone() else { return };
                self.modules.push(ty);
                self.define(&c.ident, &c.expr);
                self.modules.pop();
            }
            fn visit_item_macro(&mut self, m: &'a syn::ItemMacro) {
                let range = self.file.join(m.mac.path.segments[0].ident.span(), m.mac.delimiter.span().close());
                self.macros.define(m, range);
            }
            fn visit_macro(&mut self, m: &'a syn::Macro) {
                self.macros.invoked(m);
            }
            fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
                if let (Some(tr), Some(r)) = (&self.self_type, f.sig.receiver()) {
                    if r.reference.is_some() && r.mutability.is_some() {
                        self.trait_mut_methods.insert((tr.clone(), f.sig.ident.to_string()));
                    }
                }
                if let Some(body) = &f.default {
                    self.push(&f.sig, body, &f.attrs, true, None);
                }
                syn::visit::visit_trait_item_fn(self, f);
            }
        }
        let mut v = Defs { file, self_type: None, modules: Vec::new(), defs: Vec::new(), statics: HashMap::new(), macros: Default::default(), cfg_depth: 0, trait_of: None, impls: Default::default(), trait_mut_methods: Default::default() };
        v.visit_file(ast);
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, d) in v.defs.iter().enumerate() {
            by_name.entry(d.sig.ident.to_string()).or_default().push(i);
        }
        FileFns { defs: v.defs, by_name, statics: v.statics, macros: v.macros, impls: v.impls, trait_mut_methods: v.trait_mut_methods }
    }
}

/// Calls `f` with each `static` of `items` (inline modules included) and its module path.
fn walk_statics(items: &[syn::Item], modules: &mut Vec<String>, f: &mut dyn FnMut(&[String], &syn::ItemStatic)) {
    for item in items {
        match item {
            syn::Item::Static(st) => f(modules, st),
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    modules.push(m.ident.to_string());
                    walk_statics(content, modules, f);
                    modules.pop();
                }
            }
            _ => {}
        }
    }
}

/// A secondary label at a clause of a contract (usually in another file).
pub fn clause_label(callee: &ContractedFn, clause: &reuse_rules::contract::Clause<Range<usize>>, message: impl Into<String>) -> Label {
    Label::new(&callee.file, callee.clause_range(clause), message)
}

/// The contract of the trait method that `f`, a method of an `impl` of the trait written `of_trait`,
/// implements (`#[reuse::contract(..)] fn clear(&self, cache: &mut [f32]);` in `trait Backend`, for
/// `fn clear` of `impl Backend for Cpu`): its body is checked as the trait's default body is, the
/// contract's parameters read as the implementation's of the same position (`pool` of the trait
/// is `buf` of `fn clear(&self, buf: &mut [f32])`), with the trait's file.
fn implemented_contract<'i>(index: &'i Index, resolver: &Resolver, of_trait: &syn::Path, f: &FnItem) -> Option<(FileContract, &'i FileRef)> {
    let method = f.sig.ident.to_string();
    // Most methods of most `impl`s implement no contracted trait method: asked first.
    if !index.candidates(&method).any(|c| c.in_trait && !c.external) {
        return None;
    }
    let written: Vec<String> = of_trait.segments.iter().map(|s| s.ident.to_string()).collect();
    let traits = resolver.type_paths(&written, f.self_type);
    let params = crate::dataflow::param_names(f.sig);
    let declared = index.candidates(&method).find(|c| c.in_trait && !c.external && c.params.len() == params.len() && c.path.split_last().is_some_and(|(_, owner)| traits.iter().any(|t| t == owner)))?;
    let mut contract = declared.contract.clone();
    let renames: Vec<(String, String)> = declared.params.iter().zip(&params).filter(|(theirs, ours)| theirs != ours).map(|(theirs, ours)| (theirs.clone(), ours.clone())).collect();
    contract.rename_params(&renames);
    Some((contract, &declared.file))
}

/// Analyses every function of a parsed file. `module` is the file's module path, crate name first.
pub fn analyze_file(file: &FileRef, ast: &syn::File, crate_name: &str, module: &[String], index: &Index, items: &WorkspaceItems) -> Vec<Finding> {
    analyze_items(file, ast, crate_name, module, index, items, Share::All)
}

/// Which of a file's top-level items an analysis takes: all, or those it claims one by one from
/// [`Claims`] shared with an analysis of the same text on another thread (the `static`s go with
/// the front). The parts of a text, analysed apart (each with the whole file's scope, helpers
/// and macros), find what the whole does once [`crate::finding::in_output_order`] has merged them.
#[derive(Clone, Debug)]
pub enum Share {
    All,
    Front(Arc<Claims>),
    Back(Arc<Claims>),
}

/// The end of a file's item list an analysis claims from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Front,
    Back,
}

/// The top-level items of one text, handed out to two analyses as they ask: the front takes the
/// first item no one took, the back the last, so neither waits for the other however their
/// parses and items differ in cost. (For the tests, `alternating`: the front takes the even
/// positions, the back the odd, whoever is faster.)
#[derive(Debug, Default)]
pub struct Claims {
    alternating: bool,
    taken: std::sync::Mutex<Taken>,
}

#[derive(Debug, Default)]
struct Taken {
    /// Who took each item; empty until the first claim (both sides parse the same text, so both
    /// give the same count).
    by: Vec<Option<Side>>,
    /// Where each side looks next: every item before `front` (after `back`) is taken or not the
    /// front's (back's) to take.
    front: usize,
    back: usize,
}

impl Claims {
    pub fn alternating() -> Claims {
        Claims { alternating: true, ..Claims::default() }
    }

    fn taken(&self) -> std::sync::MutexGuard<'_, Taken> {
        // A side that panicked while holding the lock left the list consistent: it only marks.
        self.taken.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn allows(&self, side: Side, at: usize) -> bool {
        !self.alternating || at.is_multiple_of(2) == (side == Side::Front)
    }

    /// The next of `len` items for `side`, now its own.
    fn claim(&self, side: Side, len: usize) -> Option<usize> {
        let mut t = self.taken();
        if t.by.len() != len {
            *t = Taken { by: vec![None; len], front: 0, back: len };
        }
        let free = |t: &Taken, at: usize| t.by[at].is_none() && self.allows(side, at);
        let at = match side {
            Side::Front => (t.front..len).find(|&at| free(&t, at)),
            Side::Back => (0..t.back).rev().find(|&at| free(&t, at)),
        }?;
        t.by[at] = Some(side);
        match side {
            Side::Front => t.front = at + 1,
            Side::Back => t.back = at,
        }
        Some(at)
    }

    /// Whether the back holds or may still take an item: the front's analysis is complete only
    /// with the back's.
    pub fn back_has_part(&self) -> bool {
        let t = self.taken();
        t.by.iter().any(|by| *by != Some(Side::Front))
    }

    /// The back's items go to the front (the back's analysis failed), which takes every item
    /// still free from then on.
    pub fn give_back_to_front(&self) -> Arc<Claims> {
        let t = self.taken();
        let by = t.by.iter().map(|by| (*by == Some(Side::Front)).then_some(Side::Front)).collect();
        Arc::new(Claims { alternating: false, taken: std::sync::Mutex::new(Taken { by, front: 0, back: 0 }) })
    }
}

/// [`analyze_file`] of the items `share` takes.
pub fn analyze_items(file: &FileRef, ast: &syn::File, crate_name: &str, module: &[String], index: &Index, items: &WorkspaceItems, share: Share) -> Vec<Finding> {
    let scope = FileScope::of(ast, crate_name, module, items);
    let fns = FileFns::of(file, ast).with_crate_macros(items, file, &scope);
    let summaries = rules::Summaries::default();
    let parsed = ParsedFiles::default();
    let imports_reuse = file.text.contains("use reuse::");
    let mut findings = Vec::new();
    let mut check = |f: FnItem<'_>| {
        let Some(body) = f.body else { return };
        let Some((resolver, here)) = scope.resolver(index, &f) else { return };
        // Contract errors were reported while indexing; here the contract is only read. Without
        // an attribute, a contracts file's contract for this function's path is its own: the
        // body rules hold exactly as if the attribute stood here.
        let own = contract_of(f.attrs, f.sig, file, imports_reuse, &mut Vec::new()).map(|(c, _)| c);
        // Else a contracts file's for its path, or the contract of the trait method it implements.
        let external = if own.is_none() { index.external_for(&here).map(|c| (c.contract.clone(), &c.file)).or_else(|| f.of_trait.and_then(|t| implemented_contract(index, &resolver, t, &f))) } else { None };
        let ctx = FnCtx {
            file,
            index,
            items,
            parsed: &parsed,
            resolver: &resolver,
            sig: f.sig,
            body,
            self_type: f.self_type,
            outer_generics: f.outer_generics,
            env_memo: Default::default(),
            contract: own.as_ref().or(external.as_ref().map(|(c, _)| c)),
            contract_file: external.as_ref().map_or(file, |(_, f)| *f),
            fns: &fns,
            summaries: &summaries,
            calls_memo: Default::default(),
            macro_calls_memo: Default::default(),
                helper_envs: Default::default(),
            resolutions: Default::default(),
            local_consts: Default::default(),
        };
        rules::check_fn(&ctx, &mut findings);
    };
    match &share {
        Share::All => walk_fns(&ast.items, &mut check),
        Share::Front(claims) | Share::Back(claims) => {
            let side = if matches!(share, Share::Front(_)) { Side::Front } else { Side::Back };
            while let Some(at) = claims.claim(side, ast.items.len()) {
                walk_fns(std::slice::from_ref(&ast.items[at]), &mut check);
            }
        }
    }
    // A `static`'s initializer is a body of its own, run once (`LazyLock::new(|| ..)`): checked
    // as a function `fn NAME() { init }` of its module would be.
    let statics = if matches!(share, Share::Back(_)) { &[][..] } else { &ast.items[..] };
    walk_statics(statics, &mut Vec::new(), &mut |modules, st| {
        if crate::rules::calls_in_expr(&st.expr).is_empty() {
            return;
        }
        let ident = &st.ident;
        let sig: syn::Signature = syn::parse_quote!(fn #ident());
        let body = syn::Block { brace_token: Default::default(), stmts: vec![syn::Stmt::Expr((*st.expr).clone(), None)] };
        check(FnItem { modules, self_type: None, attrs: &[], sig: &sig, body: Some(&body), in_trait: false, outer_generics: None, of_trait: None });
    });
    // A finding inside an expansion of a macro of the file points into its definition, which
    // every call of the macro shares: it gets no fix there.
    // A range from a token of the definition to one of the call (`return $value`) ends with its
    // first line.
    for f in &mut findings {
        if f.fix.as_ref().is_some_and(|fix| fns.macros.defines(&fix.range)) {
            f.fix = None;
        }
        let r = &mut f.primary.range;
        if fns.macros.defines(&(r.start..r.start)) && !fns.macros.defines(r) {
            r.end = file.text[r.start..].find('\n').map_or(file.text.len(), |n| r.start + n);
        }
    }
    findings
}

/// What every function of a file resolves its calls with: the imports in force in each inline
/// module and the file's field and return types. The analysis and the editor's hover both build
/// their resolvers here, so that they never resolve a call differently.
pub struct FileScope<'a> {
    crate_name: &'a str,
    module: &'a [String],
    imports: HashMap<Vec<String>, Imports>,
    fields: FieldTypes,
    items: &'a WorkspaceItems,
}

impl<'a> FileScope<'a> {
    pub fn of(ast: &syn::File, crate_name: &'a str, module: &'a [String], items: &'a WorkspaceItems) -> FileScope<'a> {
        FileScope { crate_name, module, imports: imports_by_module(&ast.items, crate_name, module), fields: FieldTypes::of(&ast.items), items }
    }

    /// The resolver of one function, and its definition path.
    pub fn resolver<'s, 'i>(&'s self, index: &'i Index, f: &FnItem<'_>) -> Option<(Resolver<'s>, Vec<String>)>
    where
        'i: 's,
    {
        let mut full_module = self.module.to_vec();
        full_module.extend(f.modules.iter().cloned());
        let imports = self.imports.get(f.modules)?;
        let here = definition_path(&full_module, imports, f.self_type, &f.sig.ident);
        // `use` items in the body are in scope in it, over the module's.
        let imports = match f.body.and_then(|b| imports.with_body_uses(b, self.crate_name, &full_module)) {
            Some(own) => std::borrow::Cow::Owned(own),
            None => std::borrow::Cow::Borrowed(imports),
        };
        Some((Resolver { index, items: self.items, crate_name: self.crate_name, module: full_module, imports, fields: &self.fields, current: Some(here.clone()) }, here))
    }
}

/// A call under the cursor and what it resolves to, as the rules resolve it.
pub struct CallAt<'i> {
    /// The callee's path or method name as written.
    pub range: Range<usize>,
    pub name: String,
    pub resolution: Resolution<'i>,
}

/// The innermost call whose callee name is at `offset` (or just after it), resolved with the
/// enclosing function's resolver and local types.
pub fn call_at<'i>(file: &FileRef, ast: &syn::File, crate_name: &str, module: &[String], index: &'i Index, items: &WorkspaceItems, offset: usize) -> Option<CallAt<'i>> {
    let scope = FileScope::of(ast, crate_name, module, items);
    let mut out = None;
    walk_fns(&ast.items, &mut |f: FnItem<'_>| {
        let Some(body) = f.body.filter(|b| file.join(b.brace_token.span.open(), b.brace_token.span.close()).contains(&offset)) else { return };
        let mut best: Option<(Range<usize>, &Expr)> = None;
        for call in rules::calls_in(body) {
            let Some(r) = callee_name_range(file, call) else { continue };
            if r.start <= offset && offset <= r.end && best.as_ref().is_none_or(|(b, _)| r.len() < b.len()) {
                best = Some((r, call));
            }
        }
        let Some((range, call)) = best else { return };
        let (Some(site), Some((resolver, _))) = (CallSite::of(call), scope.resolver(index, &f)) else { return };
        let env = TypeEnv::of(f.sig, f.outer_generics, Some(body));
        // The candidates live in the index; found there again, they outlive this file's scope.
        let lift = |c: &ContractedFn| index.fns.iter().find(|f| std::ptr::eq(*f, c));
        let resolution = match resolver.resolve(&site, f.self_type, &env) {
            Resolution::One(c) => lift(c).map_or(Resolution::None, Resolution::One),
            Resolution::Ambiguous(cs) => Resolution::Ambiguous(cs.into_iter().filter_map(lift).collect()),
            Resolution::None => return,
        };
        // Nested functions are walked after their parent: the innermost one answers.
        out = Some(CallAt { range, name: site.name.clone(), resolution });
    });
    out
}

/// What the editor's cursor is on, as the engine reads it (the language server formats it).
pub enum HoverAt<'i> {
    /// A `#[reuse::contract(..)]` attribute: the contract, and the clause under the cursor if any.
    Contract { contract: FileContract, attr_range: Range<usize>, clause: Option<usize> },
    /// A field's `#[reuse::index(skip = S)]`.
    IndexField(crate::index::IndexField),
    /// A call of a contracted function (or one that may be any of several).
    Call(CallAt<'i>),
}

/// What is at `offset` of `file` (parsed here): a contract attribute, an index field
/// declaration, or a call resolved as the rules resolve it ([`call_at`]).
pub fn hover_at<'i>(file: &FileRef, crate_name: &str, module: &[String], index: &'i Index, items: &WorkspaceItems, offset: usize) -> Option<HoverAt<'i>> {
    let found = match file.parse() {
        Ok(ast) => hover_in(file, &ast, crate_name, module, index, items, offset),
        Err(_) => None,
    };
    // Every span was turned into a byte range above; free this thread's span table.
    crate::source::invalidate_spans();
    found
}

fn hover_in<'i>(file: &FileRef, ast: &syn::File, crate_name: &str, module: &[String], index: &'i Index, items: &WorkspaceItems, offset: usize) -> Option<HoverAt<'i>> {
    use crate::index::{reuse_attr, ReuseAttr};
    let imports_reuse = file.text.contains("use reuse::");
    let mut out = None;
    walk_fns(&ast.items, &mut |f: FnItem<'_>| {
        if out.is_some() {
            return;
        }
        let Some(attr) = f.attrs.iter().find(|a| reuse_attr(a, imports_reuse) == Some(ReuseAttr::Contract)) else { return };
        let attr_range = file.join(attr.pound_token.span, attr.bracket_token.span.close());
        if attr_range.contains(&offset) {
            if let Some((contract, _)) = contract_of(f.attrs, f.sig, file, imports_reuse, &mut Vec::new()) {
                let clause = contract.clauses.iter().position(|c| (c.keyword.span.start..c.end.end).contains(&offset));
                out = Some(HoverAt::Contract { contract, attr_range, clause });
            }
        }
    });
    if out.is_some() {
        return out;
    }
    let mut fields = Vec::new();
    crate::index::index_fields(&ast.items, file, module, &imports_by_module(&ast.items, crate_name, module), &mut Vec::new(), &mut fields);
    if let Some(f) = fields.into_iter().find(|f| f.attr_range.contains(&offset)) {
        return Some(HoverAt::IndexField(f));
    }
    let call = call_at(file, ast, crate_name, module, index, items, offset)?;
    (!matches!(call.resolution, Resolution::None)).then_some(HoverAt::Call(call))
}

/// The path of a path call (`kv::write`), or the method name of a method call.
fn callee_name_range(file: &FileRef, call: &Expr) -> Option<Range<usize>> {
    match call {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => {
                let first = p.path.segments.first()?.ident.span();
                let last = p.path.segments.last()?.ident.span();
                Some(file.join(first, last))
            }
            _ => None,
        },
        Expr::MethodCall(m) => Some(file.range(m.method.span())),
        _ => None,
    }
}

/// Where a function is defined: module path (crate name first), then its `impl` type, then its name.
pub fn definition_path(module: &[String], imports: &Imports, self_type: Option<&str>, name: &syn::Ident) -> Vec<String> {
    let mut path = match self_type {
        Some(ty) => type_home(module, imports, ty),
        None => module.to_vec(),
    };
    path.push(name.to_string());
    path
}

/// The definition path of the type an `impl` (or `Self`) in `module` names: the type's own, where
/// the module imports it from elsewhere in the crate (`use super::store::Store; impl Store { .. }`,
/// the impl blocks of a type split over files), so that its methods are found by the type's path
/// whichever module implements them; also where the `impl` names it by a path (`impl
/// crate::meta::Meta { .. }`: `Imports::impl_path`). Otherwise (a type of this module, or an import
/// not anchored at this crate) the module's.
pub fn type_home(module: &[String], imports: &Imports, ty: &str) -> Vec<String> {
    let same_crate = |p: &&Vec<String>| p.len() > 1 && p.first() == module.first();
    match imports.get(ty).filter(same_crate).or_else(|| imports.impl_path(ty).filter(same_crate)) {
        Some(home) => home.clone(),
        None => module.iter().cloned().chain(std::iter::once(ty.to_string())).collect(),
    }
}

/// The `use` imports in force in each inline module of a file, by the module path within the file.
pub(crate) fn imports_by_module(items: &[syn::Item], crate_name: &str, module: &[String]) -> HashMap<Vec<String>, Imports> {
    fn walk(items: &[syn::Item], crate_name: &str, full: &mut Vec<String>, rel: &mut Vec<String>, out: &mut HashMap<Vec<String>, Imports>) {
        out.insert(rel.clone(), Imports::of(items, crate_name, full));
        for item in items {
            if let syn::Item::Mod(m) = item {
                if let Some((_, content)) = &m.content {
                    full.push(m.ident.to_string());
                    rel.push(m.ident.to_string());
                    walk(content, crate_name, full, rel, out);
                    full.pop();
                    rel.pop();
                }
            }
        }
    }
    let mut out = HashMap::new();
    walk(items, crate_name, &mut module.to_vec(), &mut Vec::new(), &mut out);
    out
}

/// The fields of `self` that these bodies (of one method) write, each with the fields inside it
/// that are written (`bufs.logits` of `self.bufs.logits[i] = v`), when they can be read to the end:
/// `self.f = ..`, `self.f += ..`, `self.f.copy_from_slice(..)` (a mutating method), `&mut self.f`.
/// `None`: unknown (`self` handed on whole, another method of `self` called, or `self` or its
/// fields handed to code that cannot be read: a call in an `unsafe` block, a raw pointer).
pub fn self_fields_written(bodies: &[&syn::Block]) -> Option<std::collections::HashSet<String>> {
    use std::collections::HashSet;
    use crate::resolve::strip;
    struct Writes {
        fields: HashSet<String>,
        opaque: bool,
        /// Inside an `unsafe` block: a call there may be to code that cannot be read (FFI).
        in_unsafe: bool,
    }
    /// Whether an expression mentions `self` (`self`, `self.exec`, `self.buf.as_mut_ptr()`).
    fn mentions_self(e: &Expr) -> bool {
        struct Mentions(bool);
        impl<'ast> Visit<'ast> for Mentions {
            fn visit_path(&mut self, p: &'ast syn::Path) {
                self.0 |= p.is_ident("self");
            }
            fn visit_macro(&mut self, m: &'ast syn::Macro) {
                self.0 |= m.tokens.clone().into_iter().any(|t| matches!(t, proc_macro2::TokenTree::Ident(i) if i == "self"));
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut v = Mentions(false);
        v.visit_expr(e);
        v.0
    }
    /// Code that cannot be read, handed `self` or its storage: a call inside an `unsafe` block
    /// given `self` or its fields (an extern function, a driver call), or a raw pointer into
    /// `self` (`self.buf.as_mut_ptr()`, `&raw mut self.x`, `self.x as *mut _`).
    fn hands_self_out(e: &Expr, in_unsafe: bool) -> bool {
        match e {
            Expr::Call(c) => in_unsafe && c.args.iter().any(mentions_self),
            Expr::MethodCall(m) => {
                (in_unsafe && (mentions_self(&m.receiver) || m.args.iter().any(mentions_self)))
                    || (["as_mut_ptr", "as_ptr"].contains(&m.method.to_string().as_str()) && mentions_self(&m.receiver))
            }
            Expr::RawAddr(r) => mentions_self(&r.expr),
            Expr::Cast(c) => matches!(&*c.ty, syn::Type::Ptr(_)) && mentions_self(&c.expr),
            Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| s.ident == "addr_of_mut" || s.ident == "addr_of") && mentions_self(e),
            _ => false,
        }
    }
    /// The field of `self` that `e` writes, with the fields inside it (`bufs.logits` of
    /// `self.bufs.logits[i] = v`).
    fn self_field(e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Field(f) => {
                let member = crate::dataflow::member_name(&f.member);
                match strip(&f.base) {
                    Expr::Path(p) if p.path.is_ident("self") => Some(member),
                    _ => self_field(&f.base).map(|outer| format!("{outer}.{member}")),
                }
            }
            Expr::Index(i) => self_field(&i.expr),
            Expr::MethodCall(m) => self_field(&m.receiver),
            Expr::Unary(u) => self_field(&u.expr),
            _ => None,
        }
    }
    impl<'ast> Visit<'ast> for Writes {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Assign(a) => self.fields.extend(self_field(&a.left)),
                Expr::Binary(b) if matches!(b.op, syn::BinOp::AddAssign(_) | syn::BinOp::SubAssign(_) | syn::BinOp::MulAssign(_) | syn::BinOp::DivAssign(_)) => {
                    self.fields.extend(self_field(&b.left))
                }
                Expr::Reference(r) if r.mutability.is_some() => self.fields.extend(self_field(&r.expr)),
                Expr::MethodCall(m) => {
                    let receiver_is_self = matches!(strip(&m.receiver), Expr::Path(p) if p.path.is_ident("self"));
                    if receiver_is_self {
                        self.opaque = true; // another method of `self`: not followed
                    } else if crate::rules::MUTATING_METHODS.contains(&m.method.to_string().as_str()) {
                        self.fields.extend(self_field(&m.receiver));
                    }
                }
                Expr::Path(p) if p.path.is_ident("self") => {} // judged by the parents above
                _ => {}
            }
            // `self` passed whole to a call.
            if let Expr::Call(c) = e {
                if c.args.iter().any(|a| matches!(strip(a), Expr::Path(p) if p.path.is_ident("self"))) {
                    self.opaque = true;
                }
            }
            self.opaque |= hands_self_out(e, self.in_unsafe);
            if let Expr::Unsafe(_) = e {
                let outer = std::mem::replace(&mut self.in_unsafe, true);
                syn::visit::visit_expr(self, e);
                self.in_unsafe = outer;
                return;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut w = Writes { fields: HashSet::new(), opaque: false, in_unsafe: false };
    for body in bodies {
        w.visit_block(body);
    }
    (!w.opaque).then_some(w.fields)
}


#[cfg(test)]
mod tests {
    use super::*;

    /// Two sides claim from their ends until they meet, each item once; every other item when
    /// alternating, however one side runs ahead; a side that failed gives its items back.
    #[test]
    fn claims_hand_each_item_to_one_side() {
        let claims = Claims::default();
        let (front, back) = (|c: &Claims| c.claim(Side::Front, 5), |c: &Claims| c.claim(Side::Back, 5));
        assert_eq!((front(&claims), back(&claims), back(&claims), front(&claims)), (Some(0), Some(4), Some(3), Some(1)));
        assert_eq!((front(&claims), back(&claims), front(&claims)), (Some(2), None, None));
        assert!(claims.back_has_part());
        let again = claims.give_back_to_front();
        let taken: Vec<usize> = std::iter::from_fn(|| front(&again)).collect();
        assert_eq!(taken, [3, 4]);
        assert!(!again.back_has_part());

        let alternating = Claims::alternating();
        let taken: Vec<usize> = std::iter::from_fn(|| front(&alternating)).collect();
        assert_eq!(taken, [0, 2, 4]);
        assert!(alternating.back_has_part(), "the odd items are the back's to take");
        let taken: Vec<usize> = std::iter::from_fn(|| back(&alternating)).collect();
        assert_eq!(taken, [3, 1]);

        let front_only = Claims::default();
        assert_eq!(std::iter::from_fn(|| front(&front_only)).count(), 5);
        assert!(!front_only.back_has_part(), "nothing to wait for");
    }

    /// The editor's hover finds the call under the cursor and resolves it as the rules do: through
    /// a glob import in an inline module (the imports of that module, not the file's), and never
    /// to a local function of the same name.
    #[test]
    fn call_at_resolves_as_the_analysis_does() {
        let text = r#"
pub mod kv {
    #[reuse::contract(writes(cache[slots], skip = -1))]
    pub fn write(cache: &mut [f32], slots: &[i64]) {}
}
pub mod graph {
    use super::kv::*;
    pub fn capture(cache: &mut [f32], n: usize) {
        let slots = vec![0; n];
        write(cache, &slots);
    }
}
pub mod local {
    pub fn write(_c: &mut [f32], _s: &[i64]) {}
    pub fn run(cache: &mut [f32]) {
        write(cache, &[0]);
    }
}
"#;
        let file: FileRef = std::sync::Arc::new(crate::source::SourceFile::new("lib.rs".into(), "lib.rs".into(), text.to_string()));
        let ast = file.parse().expect("parses");
        let module = vec!["demo".to_string()];
        let mut index = Index::default();
        index.add(crate::index::index_file(&file, &ast, &module, false));
        let at = |needle: &str| text.find(needle).expect("in the text") + 1;
        let items = WorkspaceItems::default();
        let call = call_at(&file, &ast, "demo", &module, &index, &items, at("write(cache, &slots)")).expect("the call under the cursor");
        assert!(matches!(call.resolution, Resolution::One(f) if f.path == ["demo", "kv", "write"]));
        assert_eq!(&text[call.range.clone()], "write");
        assert!(call_at(&file, &ast, "demo", &module, &index, &items, at("write(cache, &[0])")).is_none(), "the local function is not the kernel");
        let findings = analyze_file(&file, &ast, "demo", &module, &index, &items);
        assert_eq!(findings.iter().filter(|f| f.rule.name == "pad_to_null_block").count(), 1, "the analysis sees the same call");
    }

    /// A call is resolved once per position: the arguments of a macro parsed twice are two
    /// expressions at two addresses, and one call.
    #[test]
    fn a_call_parsed_twice_from_a_macro_is_resolved_once() {
        let text = "#[reuse::contract(writes(cache[slots], skip = -1))]\npub fn write(cache: &mut [f32], slots: &[i64]) {}\npub fn run(cache: &mut [f32]) {\n    assert!(write(cache, &[0]) == ());\n    other(cache);\n}\n";
        let file: FileRef = std::sync::Arc::new(crate::source::SourceFile::new("lib.rs".into(), "lib.rs".into(), text.to_string()));
        let ast = file.parse().expect("parses");
        let module = vec!["demo".to_string()];
        let mut index = Index::default();
        index.add(crate::index::index_file(&file, &ast, &module, false));
        let items = WorkspaceItems::default();
        let parsed = ParsedFiles::default();
        let scope = FileScope::of(&ast, "demo", &module, &items);
        let fns = FileFns::of(&file, &ast);
        let summaries = rules::Summaries::default();
        let mut checked = false;
        walk_fns(&ast.items, &mut |f: FnItem<'_>| {
            let (Some(body), true) = (f.body, f.sig.ident == "run") else { return };
            let (resolver, _) = scope.resolver(&index, &f).expect("a resolver");
            let ctx = FnCtx {
                file: &file,
                index: &index,
                items: &items,
                parsed: &parsed,
                resolver: &resolver,
                sig: f.sig,
                body,
                self_type: None,
                outer_generics: f.outer_generics,
                env_memo: Default::default(),
                contract: None,
                contract_file: &file,
                fns: &fns,
                summaries: &summaries,
                calls_memo: Default::default(),
                macro_calls_memo: Default::default(),
                helper_envs: Default::default(),
                resolutions: Default::default(),
                local_consts: Default::default(),
            };
            let syn::Stmt::Macro(m) = &body.stmts[0] else { panic!("the assert! statement") };
            let parse = || -> Expr {
                let Ok(Expr::Binary(b)) = m.mac.parse_body::<Expr>() else { panic!("the assert! argument") };
                *b.left
            };
            let (first, second) = (parse(), parse());
            assert!(!std::ptr::eq(&first, &second));
            for e in [&first, &second] {
                assert!(matches!(ctx.resolve(&CallSite::of(e).expect("a call")), Resolution::One(c) if c.name == "write"));
            }
            // `other` names nothing contracted: settled by its name, no entry needed.
            let Some(syn::Stmt::Expr(other, _)) = body.stmts.get(1) else { panic!("the other call") };
            assert!(ctx.callee(other).is_none());
            assert_eq!(ctx.resolutions.borrow().len(), 1, "one entry per call, whichever expression asked");
            checked = true;
        });
        assert!(checked);
    }
}
