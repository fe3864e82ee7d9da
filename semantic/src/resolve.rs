//! Call-site resolution: which contracted function a call is, from source alone.
//!
//! The checker reads source, not types. A call is matched to contracts by name and arity, then
//! narrowed:
//! - path calls (`kv::write(..)`, `Self::run(..)`, `crate::ops::f(..)`): the first segment is expanded
//!   through the `use` imports of the call's module, `crate`, `self`, `super` and `Self` (a path
//!   starting with another name is a crate's or an item of this module), followed through
//!   re-exports and the private imports visible there, and the contract's definition path must be
//!   one of those paths; `Type::method` also matches a method of that type declared elsewhere;
//! - plain calls (`f(..)`), looked up in the module where the call is written: an import of `f`
//!   by name decides; else an item `f` of the module (contracted or not) decides; only else the
//!   glob imports of that module (a glob of the crate root does not reach `mod foo` unless `foo`
//!   has `use super::*` or `use crate::*`). As in Rust, never a function of that name elsewhere;
//! - method calls (`x.run(..)`): the receiver's type is known for `self` (the `impl` type), for
//!   parameters, for `let` bindings with a type annotation or a `Type::new(..)` / `Type { .. }`
//!   initializer (or re-binding a typed binding whole), for fields of those and what functions and
//!   methods return, declared in this file or another of the workspace ([`crate::items`]), and
//!   for elements of indexed slices and `Vec`s; candidates must be the methods of that type's
//!   definition when it is known, else methods of that type name (same module first), or
//!   contracts on trait methods when the type has none of its own. Builtin and std receivers
//!   (`&[T]`, `Vec`, `HashMap`, ...) never match. A receiver of unknown type matches methods of that
//!   name in this crate, crates the file imports and contracts files, unless the name is one std
//!   types use everywhere (`get`, `insert`, `write`, ...).
//!
//! Limits: trait implementations are not checked to exist (a trait-method contract binds any
//! receiver with that method name and arity whose type has no contracted method of its own);
//! types written in this file are matched by their last segment (type parameters of the function,
//! its `impl` and its struct excepted: unknown);
//! imports of other files are read from their text (see `index::scan_uses`); macros that generate
//! items, calls and receivers whose
//! type comes from inference are not followed. When several candidates remain and their contracts
//! differ, the call is reported as `ambiguous_call` rather than guessed.

use std::collections::HashMap;

use syn::visit::Visit;
use syn::{Expr, FnArg, Pat, Type, UseTree};

use crate::index::{ContractedFn, Index};

/// The names of one module's items (one file, or one inline module of it): its `use` imports,
/// local name → full path (crate name first for `crate::`), its glob imports, and the functions,
/// constants and statics it defines (which, like imports by name, shadow the glob imports).
#[derive(Clone, Debug, Default)]
pub struct Imports {
    names: HashMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    defined: std::collections::HashSet<String>,
    /// The modules, types and traits it defines (`mod kv;`, `struct Pool`): a path that starts
    /// with one of them (`kv::write(..)`) starts there, not at a crate of that name.
    defined_types: std::collections::HashSet<String>,
    /// The types its `impl` blocks name by a path (`impl crate::meta::Meta { .. }`), by last
    /// name: where their methods are defined (`None`: two such types of one name).
    impl_paths: HashMap<String, Option<Vec<String>>>,
}

impl Imports {
    pub fn of(items: &[syn::Item], crate_name: &str, module: &[String]) -> Imports {
        let mut imports = Imports::default();
        for item in items {
            match item {
                syn::Item::Use(u) => {
                    let mut prefix = Vec::new();
                    imports.add_tree(&u.tree, &mut prefix, crate_name, module);
                }
                // `extern crate kv as kvc;`: `kvc::f` is `kv::f`.
                syn::Item::ExternCrate(e) if e.ident != "self" => {
                    if let Some(name) = Some(e.rename.as_ref().map_or(&e.ident, |(_, r)| r).to_string()).filter(|n| n != "_") {
                        imports.names.insert(name, vec![e.ident.to_string()]);
                    }
                }
                syn::Item::Fn(f) => _ = imports.defined.insert(f.sig.ident.to_string()),
                syn::Item::Mod(m) => _ = imports.defined_types.insert(m.ident.to_string()),
                syn::Item::Struct(st) => _ = imports.defined_types.insert(st.ident.to_string()),
                syn::Item::Enum(e) => _ = imports.defined_types.insert(e.ident.to_string()),
                syn::Item::Union(u) => _ = imports.defined_types.insert(u.ident.to_string()),
                syn::Item::Trait(t) => _ = imports.defined_types.insert(t.ident.to_string()),
                syn::Item::Type(t) => _ = imports.defined_types.insert(t.ident.to_string()),
                syn::Item::Const(c) => _ = imports.defined.insert(c.ident.to_string()),
                syn::Item::Static(st) => _ = imports.defined.insert(st.ident.to_string()),
                syn::Item::ForeignMod(m) => {
                    for it in &m.items {
                        match it {
                            syn::ForeignItem::Fn(f) => _ = imports.defined.insert(f.sig.ident.to_string()),
                            syn::ForeignItem::Static(st) => _ = imports.defined.insert(st.ident.to_string()),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        for item in items {
            if let syn::Item::Impl(syn::ItemImpl { self_ty, trait_: None, .. }) = item {
                if let Some(home) = imports.written_type_path(self_ty, crate_name, module) {
                    let name = home.last().cloned().unwrap_or_default();
                    let entry = imports.impl_paths.entry(name).or_insert_with(|| Some(home.clone()));
                    if entry.as_ref() != Some(&home) {
                        *entry = None;
                    }
                }
            }
        }
        imports
    }

    /// The definition path of a type an `impl` names by a path of two or more segments
    /// (`crate::meta::Meta`, `super::Meta`, `meta::Meta` of a module declared here or imported).
    fn written_type_path(&self, ty: &Type, crate_name: &str, module: &[String]) -> Option<Vec<String>> {
        let Type::Path(p) = ty else { return None };
        if p.qself.is_some() || p.path.segments.len() < 2 {
            return None;
        }
        let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let (expanded, anchored) = expand_anchor(&written, crate_name, module);
        if anchored {
            return Some(expanded);
        }
        if let Some(imported) = self.names.get(&written[0]) {
            return Some(imported.iter().chain(&written[1..]).cloned().collect());
        }
        self.defined_types.contains(&written[0]).then(|| module.iter().chain(&written).cloned().collect())
    }

    /// Where the methods of an `impl` of the type named `ty` by a path are defined
    /// (`impl crate::meta::Meta`: `crate::meta::Meta`).
    pub fn impl_path(&self, ty: &str) -> Option<&Vec<String>> {
        self.impl_paths.get(ty)?.as_ref()
    }

    /// The last name of what a name of this module imports (`Mutex` for `Lock` of `use
    /// std::sync::Mutex as Lock;`); the name itself where no `use` brings it.
    pub fn imported_as(&self, name: &str) -> String {
        self.names.get(name).and_then(|path| path.last()).map_or_else(|| name.to_string(), String::clone)
    }

    /// Whether the module defines a function, constant or static of this name.
    pub fn defines(&self, name: &str) -> bool {
        self.defined.contains(name)
    }

    /// Whether the module defines a module, a type or a trait of this name.
    pub fn defines_type(&self, name: &str) -> bool {
        self.defined_types.contains(name)
    }

    /// These imports with the `use` items of a function body added (`fn f() { use kv::write as
    /// w; .. }`), which shadow the module's of the same name; `None` when it has none. A `use`
    /// in an inner block is taken for the whole body; a nested function's are its own.
    pub fn with_body_uses(&self, body: &syn::Block, crate_name: &str, module: &[String]) -> Option<Imports> {
        use syn::visit::Visit;
        struct Uses<'b>(Vec<&'b syn::ItemUse>);
        impl<'b> Visit<'b> for Uses<'b> {
            fn visit_item_use(&mut self, u: &'b syn::ItemUse) {
                self.0.push(u);
            }
            fn visit_item_fn(&mut self, _: &'b syn::ItemFn) {}
            fn visit_item_impl(&mut self, _: &'b syn::ItemImpl) {}
            fn visit_item_mod(&mut self, _: &'b syn::ItemMod) {}
            fn visit_item_trait(&mut self, _: &'b syn::ItemTrait) {}
        }
        let mut uses = Uses(Vec::new());
        uses.visit_block(body);
        if uses.0.is_empty() {
            return None;
        }
        let mut own = self.clone();
        for u in uses.0 {
            own.add_tree(&u.tree, &mut Vec::new(), crate_name, module);
        }
        Some(own)
    }

    /// `prefix` holds the segments as written; `crate`, `self` and `super` are expanded at the
    /// leaves, so that `super::super::x` climbs two modules.
    fn add_tree(&mut self, tree: &UseTree, prefix: &mut Vec<String>, crate_name: &str, module: &[String]) {
        let full = |prefix: &[String], last: Option<String>| {
            let written: Vec<String> = prefix.iter().cloned().chain(last).collect();
            expand_anchor(&written, crate_name, module).0
        };
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.add_tree(&p.tree, prefix, crate_name, module);
                prefix.pop();
            }
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    if let Some(last) = prefix.last() {
                        self.names.insert(last.clone(), full(prefix, None));
                    }
                } else {
                    self.names.insert(name.clone(), full(prefix, Some(name)));
                }
            }
            // `use kv::{self as k};` names `kv`.
            UseTree::Rename(r) if r.ident == "self" => _ = self.names.insert(r.rename.to_string(), full(prefix, None)),
            UseTree::Rename(r) => {
                self.names.insert(r.rename.to_string(), full(prefix, Some(r.ident.to_string())));
            }
            UseTree::Glob(_) => self.globs.push(full(prefix, None)),
            UseTree::Group(g) => {
                for t in &g.items {
                    self.add_tree(t, prefix, crate_name, module);
                }
            }
        }
    }

    /// Whether any import starts with this crate name.
    pub fn mentions_crate(&self, krate: &str) -> bool {
        self.names.values().chain(self.globs.iter()).any(|p| p.first().is_some_and(|c| c == krate))
    }

    pub fn get(&self, name: &str) -> Option<&Vec<String>> {
        self.names.get(name)
    }

    /// The names imported by name (renames by their new name).
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.names.keys()
    }

    /// What a path whose first segment is imported by name in `module` may name: the path
    /// through the import, read as a crate's path and, for an import not written from `crate`,
    /// `self` or `super` (Rust 2018: `use diag::f;` with `diag` a child module), as a path of
    /// `module` too. Calls and `except(..)` paths are resolved through it alike.
    pub fn through(&self, module: &[String], path: &[String]) -> Option<Vec<Vec<String>>> {
        let full: Vec<String> = self.names.get(path.first()?)?.iter().chain(&path[1..]).cloned().collect();
        let local = module.iter().chain(&full).cloned().collect();
        Some(vec![full, local])
    }

    /// The paths of the glob imports (`use kv::*;` → `kv`).
    pub fn globs(&self) -> &[Vec<String>] {
        &self.globs
    }
}

/// The same functions once each, in their first order (a function reached by two paths).
fn dedup(fns: Vec<&ContractedFn>) -> Vec<&ContractedFn> {
    let mut out: Vec<&ContractedFn> = Vec::with_capacity(fns.len());
    for f in fns {
        if !out.iter().any(|o| std::ptr::eq(*o, f)) {
            out.push(f);
        }
    }
    out
}

/// A written path with its leading `crate`, `self` and `super`s expanded (`super::super::x` in
/// `c::a::b` is `c::x`), `module` being where it is written, crate name first; and whether it was
/// anchored so. A path that starts with another name is returned as written.
pub(crate) fn expand_anchor(written: &[String], crate_name: &str, module: &[String]) -> (Vec<String>, bool) {
    let (mut base, mut used) = match written.first().map(String::as_str) {
        Some("crate") => (vec![crate_name.to_string()], 1),
        Some("self") => (module.to_vec(), 1),
        Some("super") => (module.to_vec(), 0),
        _ => return (written.to_vec(), false),
    };
    while written.get(used).is_some_and(|s| s == "super") {
        // Never above the crate root (rustc rejects it; nothing is named there).
        if base.len() > 1 {
            base.pop();
        }
        used += 1;
    }
    base.extend(written[used..].iter().cloned());
    (base, true)
}

/// A call expression, unified over `f(..)`, `a::f(..)` and `x.f(..)`.
pub struct CallSite<'e> {
    pub name: String,
    /// The written path of a path call (`["kv", "write"]`); `None` for method calls.
    pub path: Option<Vec<String>>,
    /// The path starts with `::` (`::kv::write(..)`): a crate's, never an item of the module.
    pub global: bool,
    pub receiver: Option<&'e Expr>,
    /// Arguments, receiver excluded (for `Type::method(recv, a)` the receiver is split off once the
    /// callee is known to take `self`; see [`CallSite::args_for`]).
    pub args: Vec<&'e Expr>,
    pub expr: &'e Expr,
}

impl<'e> CallSite<'e> {
    pub fn of(expr: &'e Expr) -> Option<CallSite<'e>> {
        match expr {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let path: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                Some(CallSite { name: path.last()?.clone(), path: Some(path), global: p.path.leading_colon.is_some(), receiver: None, args: c.args.iter().collect(), expr })
            }
            Expr::MethodCall(m) => Some(CallSite {
                name: m.method.to_string(),
                path: None,
                global: false,
                receiver: Some(&m.receiver),
                args: m.args.iter().collect(),
                expr,
            }),
            _ => None,
        }
    }

    /// Where the call is written (see [`call_position`]).
    pub fn position(&self) -> Option<CallPosition> {
        call_position(self.expr)
    }

    /// The argument passed for a callee's parameter at `position` (receiver excluded).
    pub fn arg_for(&self, callee: &ContractedFn, position: usize) -> Option<&'e Expr> {
        let shift = usize::from(self.receiver.is_none() && callee.has_receiver);
        self.args.get(position + shift).copied()
    }

    /// The expression passed for the callee's `self`: the receiver of a method call, or the first
    /// argument of a path call (`Buf::relu_(x)`, `B::add_(x, r)`).
    pub fn self_arg(&self, callee: &ContractedFn) -> Option<&'e Expr> {
        self.receiver.or_else(|| callee.has_receiver.then(|| self.args.first().copied()).flatten())
    }

    /// The expression passed for a named parameter of the callee.
    pub fn arg_named(&self, callee: &ContractedFn, name: &str) -> Option<&'e Expr> {
        self.arg_for(callee, callee.param_position(name)?)
    }
}

/// A call's identity across passes: the byte range of its callee's name (the last segment of a
/// path call, the method of a method call), and the name. Spans of the source are stable, and
/// unique to a call even inside a macro's arguments, which are parsed again (so new
/// expressions, at new addresses) each time a rule reads them. The name tells apart the calls
/// of different functions in an expansion of another file's macro, whose tokens all stand at
/// the call's name ([`crate::macros::FileMacros::expansion`]); two calls of one name there are
/// one call here. `None`: not a call, or a name without a position.
pub fn call_position(e: &Expr) -> Option<CallPosition> {
    let name = match e {
        Expr::Call(c) => match strip(&c.func) {
            Expr::Path(p) => &p.path.segments.last()?.ident,
            _ => return None,
        },
        Expr::MethodCall(m) => &m.method,
        _ => return None,
    };
    let range = crate::source::byte_range(name.span());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(name, &mut h);
    (range.start < range.end).then(|| CallPosition { start: range.start, end: range.end, name: std::hash::Hasher::finish(&h) })
}

/// Where a call is written ([`call_position`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallPosition {
    pub start: usize,
    pub end: usize,
    name: u64,
}

#[derive(Clone)]
pub enum Resolution<'i> {
    None,
    One(&'i ContractedFn),
    Ambiguous(Vec<&'i ContractedFn>),
}

/// Local variable types of one function: parameters and annotated or constructed `let`s, each
/// binding with its scope. Shadowing is a new binding (an untyped `let e = f();` hides the type of
/// an earlier `e`), and a binding ends with its block: a `let` in an inner block types nothing after
/// it. Positions are the parser's byte offsets.
#[derive(Default, Debug)]
pub struct TypeEnv {
    bindings: HashMap<String, Vec<Binding>>,
    /// The function's type parameters: a binding of type `K` (`fn f<K: Get>(k: K)`) has no known
    /// type, never the type of that name elsewhere.
    generics: Vec<String>,
    /// The trait bound of those that have one, as written (see [`generic_bounds`]).
    bounds: HashMap<String, Vec<String>>,
    /// Ends of the blocks being visited (while building).
    blocks: Vec<usize>,
    /// Functions defined inside the body (`fn helper() {}` in a block), with the block they are
    /// visible in: they shadow every item and import of their name there.
    fn_items: Vec<(String, std::ops::Range<usize>)>,
    /// Starts of the blocks being visited (while building).
    block_starts: Vec<usize>,
}

#[derive(Debug)]
struct Binding {
    ty: Option<String>,
    /// The type's path as written, when it has a module part (`other::Store`): then the type is
    /// that one, not any type of its name.
    written: Option<Vec<String>>,
    /// Element type of an indexable binding (`layers: &[Block]` → `Block`).
    element: Option<String>,
    /// What an `Option` or `Result` binding holds (`hidden: Option<Tensor>` → `Tensor`).
    content: Option<String>,
    /// Visible from here (the end of its `let`) to `scope_end` (the end of its block).
    from: usize,
    scope_end: usize,
    /// The initializer of a `let` without a written or constructed type, when it is a call or
    /// a method chain: the binding has the type its value has (`let g = self.lookup(bs)?;`,
    /// `let mut pool = self.pool.lock().unwrap();`), as [`Resolver::type_of`] reads it.
    init: Option<std::rc::Rc<Expr>>,
}

impl TypeEnv {
    /// The bindings of a function with signature `sig`, in an `impl` or trait with `outer`
    /// generics (whose type parameters are no types of the workspace either).
    pub fn of(sig: &syn::Signature, outer: Option<&syn::Generics>, body: Option<&syn::Block>) -> TypeEnv {
        let (generics, bounds) = (generic_names(sig, outer), generic_bounds(sig, outer));
        let mut env = TypeEnv { generics, bounds, ..TypeEnv::default() };
        for input in &sig.inputs {
            if let FnArg::Typed(pt) = input {
                if let Pat::Ident(pi) = &*pt.pat {
                    env.bind(pi.ident.to_string(), Some(&pt.ty), None, 0, usize::MAX);
                }
            }
        }
        if let Some(body) = body {
            env.visit_block(body);
        }
        env
    }

    /// The type of `var` where it is used (`at`: the use's byte offset).
    pub fn type_of_at(&self, var: &str, at: usize) -> Option<&str> {
        self.binding(var, at)?.ty.as_deref()
    }

    /// The trait a type parameter is bounded by, as written (`kv::Backend` of `B: kv::Backend`).
    pub fn bound_of(&self, param: &str) -> Option<&[String]> {
        self.bounds.get(param).map(Vec::as_slice)
    }

    /// Whether `var` names a local binding (a parameter or a `let`) where it is used.
    pub fn is_local_at(&self, var: &str, at: usize) -> bool {
        self.binding(var, at).is_some()
    }

    /// Whether `name` names a function defined in a block of the body around `at`.
    pub fn is_fn_item_at(&self, name: &str, at: usize) -> bool {
        self.fn_items.iter().any(|(n, block)| n == name && block.contains(&at))
    }

    /// The written path of the type of `var` where it is used, when it has a module part.
    /// The initializer a binding takes its type from (see `Binding::init`).
    pub fn init_at(&self, var: &str, at: usize) -> Option<&Expr> {
        self.binding(var, at)?.init.as_deref()
    }

    /// The function path a local is bound to where it is used (`op` of `let op =
    /// kv::reshape_and_cache;`): a path that is not itself a local there.
    pub fn bound_fn_at(&self, var: &str, at: usize) -> Option<&syn::Path> {
        match self.init_at(var, at).map(strip)? {
            Expr::Path(f) if f.qself.is_none() && !f.path.get_ident().is_some_and(|i| self.is_local_at(&i.to_string(), crate::source::byte_range(i.span()).start)) => Some(&f.path),
            _ => None,
        }
    }

    pub fn written_type_at(&self, var: &str, at: usize) -> Option<&[String]> {
        self.binding(var, at)?.written.as_deref()
    }

    pub fn element_of_at(&self, var: &str, at: usize) -> Option<&str> {
        self.binding(var, at)?.element.as_deref()
    }

    /// What `var` holds where it is used, when it is an `Option` or a `Result` of a known type.
    pub fn content_of_at(&self, var: &str, at: usize) -> Option<&str> {
        self.binding(var, at)?.content.as_deref()
    }

    fn binding(&self, var: &str, at: usize) -> Option<&Binding> {
        self.bindings.get(var)?.iter().rev().find(|b| b.from <= at && at < b.scope_end)
    }

    /// The binding an initializer re-binds whole (`meta`, `&mut meta`, `*meta`; a shared pointer
    /// to it, `Arc::clone(&meta)`), where it is written: its type and element type, for the new
    /// name.
    fn rebound(&self, init: &Expr) -> Option<Binding> {
        if let Some(inner) = pointee(init) {
            return self.rebound(inner);
        }
        let Expr::Path(p) = strip(init) else { return None };
        let ident = p.path.get_ident()?;
        let old = self.binding(&ident.to_string(), crate::source::byte_range(ident.span()).start)?;
        Some(Binding { ty: old.ty.clone(), written: old.written.clone(), element: old.element.clone(), content: old.content.clone(), from: 0, scope_end: 0, init: old.init.clone() })
    }

    /// Where the bindings made now end: with the innermost block being visited.
    fn scope_end(&self) -> usize {
        self.blocks.last().copied().unwrap_or(usize::MAX)
    }

    fn bind(&mut self, name: String, ty: Option<&Type>, constructed: Option<String>, from: usize, scope_end: usize) {
        let known = |t: String| match self.bounds.get(&t) {
            Some(bound) => bound.last().cloned(),
            None => (!self.generics.contains(&t)).then_some(t),
        };
        // A type parameter is its bound's trait, as the bound is written (`B: kv::Backend`).
        let written = ty.map(content_type).and_then(|t| match t {
            Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => self.bounds.get(&p.path.segments[0].ident.to_string()).filter(|b| b.len() > 1).cloned(),
            Type::Path(p) if p.qself.is_none() => Some(p.path.segments.iter().map(|s| s.ident.to_string()).collect()),
            Type::TraitObject(o) => trait_bound_path(&o.bounds).filter(|b| b.len() > 1),
            Type::ImplTrait(i) => trait_bound_path(&i.bounds).filter(|b| b.len() > 1),
            _ => None,
        });
        let binding = Binding {
            ty: ty.and_then(type_name).or(constructed).and_then(known),
            written,
            element: ty.and_then(element_type_name).and_then(known),
            content: ty.and_then(option_content).and_then(type_name).and_then(known),
            from,
            scope_end,
            init: None,
        };
        self.bindings.entry(name).or_default().push(binding);
    }
}

/// What an iterator hands out, as far as the types of the names bound to it go.
enum Item<'e> {
    /// An element of this collection (`self.layers` of `self.layers.iter()`).
    Element(&'e Expr),
    /// A pair: `enumerate`'s index and item, `zip`'s two sides.
    Pair(Box<Item<'e>>, Box<Item<'e>>),
    /// What this `Option` holds (`self.drafts.first_mut()` of `.map(|d| ..)`; a `for` over an
    /// `Option` takes its content too).
    Content(&'e Expr),
    Unknown,
}

impl<'e> Item<'e> {
    fn of(iterated: &'e Expr) -> Item<'e> {
        match strip(iterated) {
            Expr::Reference(r) => Item::of(&r.expr),
            e @ (Expr::Path(_) | Expr::Field(_)) => Item::Element(e),
            Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
                ("iter" | "iter_mut" | "into_iter" | "copied" | "cloned" | "rev" | "by_ref" | "peekable", 0) | ("skip" | "take" | "step_by" | "filter" | "inspect" | "skip_while" | "take_while", 1) => Item::of(&m.receiver),
                ("enumerate", 0) => Item::Pair(Box::new(Item::Unknown), Box::new(Item::of(&m.receiver))),
                // A map's values (`HashMap::values_mut` hands out what `map[&k]` is).
                ("values" | "values_mut" | "into_values", 0) => Item::of(&m.receiver),
                ("first" | "first_mut" | "last" | "last_mut", 0) | ("get" | "get_mut", 1) => Item::Content(iterated),
                ("zip", 1) => Item::Pair(Box::new(Item::of(&m.receiver)), Box::new(Item::of(&m.args[0]))),
                _ => Item::Unknown,
            },
            _ => Item::Unknown,
        }
    }
}

impl TypeEnv {
    /// Binds the names of `pat` to the parts of `item` they take, from `from` to `scope_end`:
    /// an element is read as `collection[0]` would be; a written type is that type.
    fn bind_item(&mut self, pat: &Pat, item: &Item, from: usize, scope_end: usize) {
        match (pat, item) {
            (Pat::Ident(pi), _) if pi.subpat.is_none() => {
                let name = pi.ident.to_string();
                self.bind(name.clone(), None, None, from, scope_end);
                let init: Option<Expr> = match item {
                    Item::Element(collection) => Some(syn::parse_quote!(#collection[0])),
                    Item::Content(option) => Some(syn::parse_quote!(#option.unwrap())),
                    _ => None,
                };
                if let (Some(init), Some(b)) = (init, self.bindings.get_mut(&name).and_then(|v| v.last_mut())) {
                    b.init = Some(std::rc::Rc::new(init));
                }
            }
            (Pat::Type(pt), _) => match &*pt.pat {
                Pat::Ident(pi) => self.bind(pi.ident.to_string(), Some(&pt.ty), None, from, scope_end),
                other => self.bind_item(other, &Item::Unknown, from, scope_end),
            },
            (Pat::Reference(r), _) => self.bind_item(&r.pat, item, from, scope_end),
            (Pat::Paren(p), _) => self.bind_item(&p.pat, item, from, scope_end),
            (Pat::Tuple(t), Item::Pair(a, b)) if t.elems.len() == 2 => {
                self.bind_item(&t.elems[0], a, from, scope_end);
                self.bind_item(&t.elems[1], b, from, scope_end);
            }
            (other, _) => {
                // Names of unknown type, hiding outer ones in that scope.
                let mut names = Vec::new();
                collect_pat_names(other, &mut names);
                for name in names {
                    self.bind(name, None, None, from, scope_end);
                }
            }
        }
    }
}

/// The names a pattern binds.
fn collect_pat_names(pat: &Pat, out: &mut Vec<String>) {
    struct Names<'o>(&'o mut Vec<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Names(out).visit_pat(pat);
}

impl<'ast> Visit<'ast> for TypeEnv {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.blocks.push(crate::source::byte_range(b.brace_token.span.close()).end);
        self.block_starts.push(crate::source::byte_range(b.brace_token.span.open()).start);
        syn::visit::visit_block(self, b);
        self.blocks.pop();
        self.block_starts.pop();
    }

    /// A function defined in the body is visible in its whole block; its own parameters and
    /// locals are not this function's.
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let block = self.block_starts.last().copied().unwrap_or(0)..self.scope_end();
        self.fn_items.push((f.sig.ident.to_string(), block));
    }

    /// Names bound by patterns other than a `let`'s (`for e in ..`, `if let Some(e)`, match arms,
    /// closure parameters): their type is not known, and they hide an outer binding of the name
    /// (to the end of the enclosing block, which is more than their scope: unknown, not guessed).
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bind(p.ident.to_string(), None, None, crate::source::byte_range(p.ident.span()).start, self.scope_end());
        syn::visit::visit_pat_ident(self, p);
    }

    /// `for layer in &self.layers { .. }`: `layer` is an element of what is iterated (read as
    /// `self.layers[0]` would be), in the loop's body; `for (i, layer) in
    /// self.layers.iter().enumerate()` and the pairs of a `zip` the same, part by part.
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        // In scope in the body only: `for x in x.iter()` iterates the `x` before it.
        let from = crate::source::byte_range(f.body.brace_token.span.open()).start;
        let scope_end = crate::source::byte_range(f.body.brace_token.span.close()).end;
        self.bind_item(&f.pat, &Item::of(&f.expr), from, scope_end);
        self.visit_block(&f.body);
    }

    /// The closure of an iterator adaptor (`self.layers.iter().map(|l| l.forward(h))`,
    /// `.enumerate().for_each(|(i, l)| ..)`): its item parameter is an item of the iterator.
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        let item_at = match method.as_str() {
            "map" | "for_each" | "filter" | "filter_map" | "flat_map" | "any" | "all" | "find" | "find_map" | "position" | "try_for_each" | "inspect" | "take_while" | "skip_while" | "map_while" => Some(0),
            // `Option`'s combinators: their closure takes the content (the last argument).
            "and_then" | "map_or" | "map_or_else" | "is_some_and" | "is_none_or" | "is_ok_and" => Some(0),
            "fold" | "try_fold" => Some(1),
            _ => None,
        };
        let closure = match (item_at, m.args.iter().last().map(strip)) {
            (Some(at), Some(Expr::Closure(c))) if c.inputs.len() > at => Some((at, c)),
            _ => None,
        };
        let Some((at, c)) = closure else {
            syn::visit::visit_expr_method_call(self, m);
            return;
        };
        self.visit_expr(&m.receiver);
        for arg in m.args.iter().take(m.args.len() - 1) {
            self.visit_expr(arg);
        }
        let body = crate::source::byte_range(syn::spanned::Spanned::span(&*c.body));
        // (`self.main.as_mut().map_or(0, |p| ..)`: a combinator of the `Option` itself, where a
        // `for` over `rows.as_ref()` walks a collection.)
        let item = match strip(&m.receiver) {
            Expr::MethodCall(r) if r.args.is_empty() && ["as_ref", "as_mut", "as_deref", "as_deref_mut"].contains(&r.method.to_string().as_str()) => Item::Content(&m.receiver),
            _ => Item::of(&m.receiver),
        };
        for (i, input) in c.inputs.iter().enumerate() {
            if i == at {
                self.bind_item(input, &item, body.start, body.end);
            } else {
                self.bind_item(input, &Item::Unknown, body.start, body.end);
            }
        }
        self.visit_expr(&c.body);
    }

    /// `if let Some(c) = self.clocks.first()`, `while let Ok(x) = ..`: the name has the type of
    /// what the `Option` or `Result` holds (read from the scrutinee, as a `let` initializer is).
    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.visit_expr(&l.expr);
        // Visible past the scrutinee: `if let Some(x) = x.next()` reads the `x` before it.
        let from = crate::source::byte_range(syn::spanned::Spanned::span(&*l.expr)).end;
        self.bind_content(&l.pat, &l.expr, from);
    }

    /// `match self.list.get_mut(0) { Some(p) => p.execute(1), .. }`: an arm's `Some(x)` /
    /// `Ok(x)` takes what the scrutinee holds, as `if let` does; in the arm only.
    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        for arm in &m.arms {
            let arm_start = crate::source::byte_range(syn::spanned::Spanned::span(&arm.pat)).end;
            let arm_end = crate::source::byte_range(syn::spanned::Spanned::span(&*arm.body)).end;
            self.blocks.push(arm_end);
            self.bind_content(&arm.pat, &m.expr, arm_start);
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
            self.blocks.pop();
        }
    }

    /// A closure's parameters: of the type written (`|v: &HostView| ..`), else not known.
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let body = crate::source::byte_range(syn::spanned::Spanned::span(&*c.body));
        for input in &c.inputs {
            self.bind_item(input, &Item::Unknown, body.start, body.end);
        }
        self.visit_expr(&c.body);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        // The initializer sees the bindings before this `let`; its pattern is bound below.
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        let from = crate::source::byte_range(local.semi_token.span).end;
        let scope_end = self.scope_end();
        match &local.pat {
            Pat::Type(pt) => {
                if let Pat::Ident(pi) = &*pt.pat {
                    self.bind(pi.ident.to_string(), Some(&pt.ty), None, from, scope_end);
                }
            }
            Pat::Ident(pi) => {
                // `let meta = meta;`, `let meta = &mut meta;`: the same value, the same type.
                if let Some(same) = local.init.as_ref().and_then(|i| self.rebound(&i.expr)) {
                    let binding = Binding { from, scope_end, ..same };
                    self.bindings.entry(pi.ident.to_string()).or_default().push(binding);
                    return;
                }
                let constructed = local.init.as_ref().and_then(|i| constructed_type(&i.expr));
                let typed_by_value = constructed.is_none();
                let (constructed, written) = constructed.map_or((None, None), |(name, written)| (Some(name), written));
                self.bind(pi.ident.to_string(), None, constructed, from, scope_end);
                if let (Some(written), Some(b)) = (written, self.bindings.get_mut(&pi.ident.to_string()).and_then(|v| v.last_mut())) {
                    b.written = Some(written);
                }
                if let (true, Some(init)) = (typed_by_value, &local.init) {
                    // (A closure's, for what a local bound to one runs where it is handed on.)
                    if matches!(strip(&init.expr), Expr::MethodCall(_) | Expr::Call(_) | Expr::Try(_) | Expr::Await(_) | Expr::Field(_) | Expr::Index(_) | Expr::Path(_) | Expr::Closure(_)) {
                        if let Some(b) = self.bindings.get_mut(&pi.ident.to_string()).and_then(|v| v.last_mut()) {
                            b.init = Some(std::rc::Rc::new((*init.expr).clone()));
                        }
                    }
                }
            }
            // `let Some(x) = .. else`: what the scrutinee holds; `let (a, b) = ..`: names of
            // unknown type.
            other => match &local.init {
                Some(init) => self.bind_content(other, &init.expr, from),
                None => self.visit_pat(other),
            },
        }
    }
}

impl TypeEnv {
    /// `Some(x)` / `Ok(x)` (`&x` too) matched against `scrutinee`: `x` is what it holds, typed as
    /// the scrutinee is (`type_of` reads through the `Option`); other patterns bind names of
    /// unknown type.
    fn bind_content(&mut self, pat: &Pat, scrutinee: &Expr, from: usize) {
        // `if let (Some(g), Some(bs)) = (self.graphs.as_mut(), batch)`: each element of the
        // pattern from its element of the tuple.
        if let (Pat::Tuple(tp), Expr::Tuple(te)) = (pat, strip(scrutinee)) {
            if tp.elems.len() == te.elems.len() && !tp.elems.iter().any(|p| matches!(p, Pat::Rest(_))) {
                for (p, e) in tp.elems.iter().zip(&te.elems) {
                    self.bind_content(p, e, from);
                }
                return;
            }
        }
        let content = match pat {
            Pat::TupleStruct(t) if t.elems.len() == 1 && t.path.segments.last().is_some_and(|s| s.ident == "Some" || s.ident == "Ok") => match &t.elems[0] {
                Pat::Ident(pi) if pi.subpat.is_none() => Some(pi),
                Pat::Reference(r) => match &*r.pat {
                    Pat::Ident(pi) if pi.subpat.is_none() => Some(pi),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some(pi) = content else {
            self.visit_pat(pat);
            return;
        };
        let name = pi.ident.to_string();
        self.bind(name.clone(), None, None, from, self.scope_end());
        if let Some(b) = self.bindings.get_mut(&name).and_then(|v| v.last_mut()) {
            // What the scrutinee holds: its value unwrapped (`type_of` reads through it).
            let unwrapped = Expr::MethodCall(syn::ExprMethodCall {
                attrs: Vec::new(),
                receiver: Box::new(scrutinee.clone()),
                dot_token: Default::default(),
                method: syn::Ident::new("unwrap", proc_macro2::Span::call_site()),
                turbofish: None,
                paren_token: Default::default(),
                args: Default::default(),
            });
            b.init = Some(std::rc::Rc::new(unwrapped));
        }
    }
}

/// The type a receiver has, by its last path segment; builtin and standard-library types (which no
/// contract of the workspace is on) are [`BUILTIN`].
pub fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) => type_name(&r.elem),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        Type::Slice(_) | Type::Array(_) | Type::Tuple(_) | Type::Ptr(_) => Some(BUILTIN.to_string()),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            let last = seg.ident.to_string();
            // Smart pointers, locks and cells: methods are called on their content (through
            // `Deref`, or the guard that `lock()`/`borrow()` gives back, which `type_of` passes).
            if CONTAINERS.contains(&last.as_str()) {
                if let Some(inner) = first_type_argument(seg) {
                    return type_name(inner);
                }
            }
            Some(if is_std_type(&last) { BUILTIN.to_string() } else { last })
        }
        // `&dyn PagedKernel`, `impl PagedKernel`: its methods are the trait's.
        Type::TraitObject(t) => trait_bound(&t.bounds),
        Type::ImplTrait(t) => trait_bound(&t.bounds),
        _ => None,
    }
}

/// Traits every type may have, which say nothing of whose methods a call reaches.
const MARKER_TRAITS: &[&str] = &["Send", "Sync", "Sized", "Unpin", "Copy", "Clone", "Debug", "Default", "Any"];

/// The trait of a bound list (`dyn PagedKernel + Send`, `K: PagedKernel`): the one that is not a
/// marker, when there is exactly one.
fn trait_bound<'b>(bounds: impl IntoIterator<Item = &'b syn::TypeParamBound>) -> Option<String> {
    trait_bound_path(bounds)?.pop()
}

/// [`trait_bound`] as written (`kv::traits::KvBackend`), every segment.
fn trait_bound_path<'b>(bounds: impl IntoIterator<Item = &'b syn::TypeParamBound>) -> Option<Vec<String>> {
    let traits: Vec<Vec<String>> = bounds
        .into_iter()
        .filter_map(|b| match b {
            syn::TypeParamBound::Trait(t) => Some(t.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<String>>()),
            _ => None,
        })
        .filter(|t| t.last().is_some_and(|l| !MARKER_TRAITS.contains(&l.as_str())))
        .collect();
    match traits.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The trait bound of each type parameter in scope that has one (`fn f<K: PagedKernel>`, `where
/// K: PagedKernel`, an `impl`'s), as written: a receiver of type `K` reaches that trait's methods.
pub fn generic_bounds(sig: &syn::Signature, outer: Option<&syn::Generics>) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for g in std::iter::once(&sig.generics).chain(outer) {
        for tp in g.type_params() {
            if let Some(t) = trait_bound_path(&tp.bounds) {
                out.insert(tp.ident.to_string(), t);
            }
        }
        for pred in g.where_clause.iter().flat_map(|w| &w.predicates) {
            if let syn::WherePredicate::Type(pt) = pred {
                if let (Type::Path(p), Some(t)) = (&pt.bounded_ty, trait_bound_path(&pt.bounds)) {
                    if let Some(id) = p.path.get_ident() {
                        out.insert(id.to_string(), t);
                    }
                }
            }
        }
    }
    out
}

/// Types whose methods reach their content's: `Arc<Mutex<Runner>>` is a `Runner` for calls.
const CONTAINERS: &[&str] = &["Box", "Arc", "Rc", "Mutex", "RwLock", "RefCell"];

/// A part of a value whose type a binding or a field records.
#[derive(Clone, Copy)]
enum Part {
    /// An element of an indexable value (`Block` of `Vec<Block>`).
    Element,
    /// What an `Option` or a `Result` holds.
    Content,
}

impl Part {
    /// Whether the value a method without arguments gives has the same part as its receiver.
    fn kept_by(self, method: &str) -> bool {
        match self {
            // `self.cells.borrow_mut()[0]`, `self.locked.lock().unwrap()[0]`: the guard derefs to
            // the content, whose element it is; `for layer in self.layers.iter_mut()` walks the
            // elements.
            Part::Element => matches!(method, "unwrap" | "expect" | "lock" | "borrow" | "borrow_mut" | "read" | "write" | "as_ref" | "as_mut" | "iter" | "iter_mut" | "into_iter"),
            // The same `Option` moved, borrowed or copied (`self.hidden.take()`, `.as_ref()`); a
            // lock's `lock()` is not (what it holds is the guard's, `type_of`'s).
            Part::Content => matches!(method, "take" | "as_ref" | "as_mut" | "clone" | "cloned" | "copied" | "as_deref" | "as_deref_mut"),
        }
    }
}

/// Whether a written type is a number, `bool` or `char`: a value read out of a place of it is a
/// copy that shares no storage.
pub fn is_scalar(ty: &Type) -> bool {
    const SCALARS: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char"];
    match ty {
        Type::Paren(p) => is_scalar(&p.elem),
        Type::Group(g) => is_scalar(&g.elem),
        Type::Path(p) => p.qself.is_none() && p.path.get_ident().is_some_and(|i| SCALARS.contains(&i.to_string().as_str())),
        _ => false,
    }
}

/// Methods of `Result` (and of anyhow's, eyre's `Context`) that change the error and keep the value.
pub(crate) const ERROR_ADAPTERS: &[&str] = &["map_err", "ok", "context", "with_context", "wrap_err", "wrap_err_with", "inspect_err"];

/// Methods that take the content out of an `Option` or a `Result`.
const UNWRAPS: &[&str] = &["unwrap", "expect", "unwrap_unchecked", "unwrap_or_default", "unwrap_or", "unwrap_or_else"];

/// The element type of an indexable type: `[T]`, `[T; N]`, `Vec<T>`, `VecDeque<T>`, `Box<[T]>`.
fn element_type_name(ty: &Type) -> Option<String> {
    element_type(ty).and_then(type_name)
}

/// `T` of an indexable type (see [`element_type_name`]).
pub fn element_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) => element_type(&r.elem),
        Type::Paren(p) => element_type(&p.elem),
        Type::Slice(s) => Some(&s.elem),
        Type::Array(a) => Some(&a.elem),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            let inner = first_type_argument(seg)?;
            match seg.ident.to_string().as_str() {
                "Vec" | "VecDeque" => Some(inner),
                // Behind a pointer, a lock or a cell: its content's (`RefCell<Vec<Block>>`,
                // indexed through the guard, `cells.borrow_mut()[0]`).
                "Box" | "Rc" | "Arc" | "Mutex" | "RwLock" | "RefCell" => element_type(inner),
                // A map's value (`graph_runners.get_mut(&bs)`, `runners[&bs]`).
                "HashMap" | "BTreeMap" | "IndexMap" | "FxHashMap" | "AHashMap" => second_type_argument(seg),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `T` of `Option<T>` or `Result<T, E>` (behind references and pointers): what `unwrap`, `?`
/// and a `Some(x)` / `Ok(x)` pattern take out.
pub fn option_content(ty: &Type) -> Option<&Type> {
    match content_type(ty) {
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            matches!(seg.ident.to_string().as_str(), "Option" | "Result").then(|| first_type_argument(seg)).flatten()
        }
        _ => None,
    }
}

/// `V` of `Name<K, V, ..>`.
fn second_type_argument(seg: &syn::PathSegment) -> Option<&Type> {
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    match args.args.iter().nth(1) {
        Some(syn::GenericArgument::Type(value)) => Some(value),
        _ => None,
    }
}

/// `T` of `Name<T, ..>`.
fn first_type_argument(seg: &syn::PathSegment) -> Option<&Type> {
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    match args.args.first() {
        Some(syn::GenericArgument::Type(inner)) => Some(inner),
        _ => None,
    }
}

/// The type a function hands back for method calls on it: through `Result`/`Option` (the `?` or
/// `unwrap` that follows takes them off), references, `Box`/`Arc`/`Rc`, and lock and cell guards
/// (which deref to their content); `Self` is the `impl` type.
fn return_type_name(output: &syn::ReturnType, self_type: Option<&str>) -> Option<String> {
    let ty = return_type(output)?;
    match ty {
        Type::Path(p) if p.path.is_ident("Self") => self_type.map(str::to_string),
        _ => type_name(ty),
    }
}

/// The type whose methods a call of a function with this output can be followed by (see
/// [`return_type_name`]).
pub fn return_type(output: &syn::ReturnType) -> Option<&Type> {
    let syn::ReturnType::Type(_, ty) = output else { return None };
    let mut ty: &Type = ty;
    loop {
        match ty {
            Type::Reference(r) => ty = &r.elem,
            Type::Paren(p) => ty = &p.elem,
            Type::Path(p) => {
                let seg = p.path.segments.last()?;
                let wrapper = ["Result", "Option", "Box", "Arc", "Rc", "MutexGuard", "RwLockReadGuard", "RwLockWriteGuard", "Ref", "RefMut"];
                if wrapper.contains(&seg.ident.to_string().as_str()) {
                    ty = first_type_argument(seg)?;
                    continue;
                }
                return Some(ty);
            }
            _ => return Some(ty),
        }
    }
}

/// The content a type's methods are called on: `&T`, `Arc<Mutex<T>>` → `T` (see [`CONTAINERS`]).
/// The path of a type as written, through references and smart pointers (`&mut Arc<meta::StepMeta>`
/// → `meta::StepMeta`); `None` for std and builtin types and what is not a path.
pub fn written_type_path(ty: &Type) -> Option<Vec<String>> {
    if type_name(ty)? == BUILTIN {
        return None;
    }
    match content_type(ty) {
        Type::Path(p) => Some(p.path.segments.iter().map(|s| s.ident.to_string()).collect()),
        _ => None,
    }
}

fn content_type(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => content_type(&r.elem),
        Type::Paren(p) => content_type(&p.elem),
        Type::Group(g) => content_type(&g.elem),
        Type::Path(p) => match p.path.segments.last() {
            Some(seg) if CONTAINERS.contains(&seg.ident.to_string().as_str()) => first_type_argument(seg).map_or(ty, content_type),
            _ => ty,
        },
        _ => ty,
    }
}

/// The type parameters in scope in a function: its own and its `impl`'s or trait's.
pub fn generic_names(sig: &syn::Signature, outer: Option<&syn::Generics>) -> Vec<String> {
    sig.generics.type_params().chain(outer.into_iter().flat_map(|g| g.type_params())).map(|t| t.ident.to_string()).collect()
}

/// A light type: its name (last path segment, or [`BUILTIN`]) and the definition paths it may
/// have. `paths: None`: a name written in the module of the code being resolved, looked up
/// through its imports when needed; `Some`: resolved where it was declared (a field or return
/// type of another file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeRef {
    pub name: String,
    pub paths: Option<Vec<Vec<String>>>,
}

impl TypeRef {
    pub fn here(name: &str) -> TypeRef {
        TypeRef { name: name.to_string(), paths: None }
    }
}

/// The definition paths one type may have at most, aliases followed (a cycle of aliases ends).
const MAX_TYPE_PATHS: usize = 16;

/// Receivers of these types are not the workspace's: a contracted `Cache::get` is not `vec.get(i)`.
pub const BUILTIN: &str = "<builtin>";
const STD_TYPES: &[&str] = &[
    "Vec", "VecDeque", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "BinaryHeap", "LinkedList", "String", "str", "Option",
    "Result", "Cell", "RefCell", "Mutex", "RwLock", "OnceCell", "OnceLock", "File", "Path", "PathBuf", "u8", "u16", "u32",
    "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char",
];

/// Whether a type written with this last segment is std's (`Vec`, `HashMap`, `u32`).
pub fn is_std_type(name: &str) -> bool {
    STD_TYPES.contains(&name)
}

/// Method names that std types use everywhere: through a receiver of unknown type, such a call is
/// far more often `Vec::get` than the workspace's contracted `get`, so it is not resolved.
const COMMON_METHODS: &[&str] = &[
    "get", "get_mut", "insert", "remove", "push", "pop", "write", "read", "iter", "iter_mut", "len", "clone", "map",
    "take", "next", "send", "recv", "lock", "fill", "extend", "entry", "contains_key", "from", "into", "as_ref",
    "as_mut", "unwrap", "expect", "call", "apply", "update", "copy", "set", "borrow", "borrow_mut", "to_vec", "resize",
    "clear", "flush", "join", "split", "first", "last", "swap", "sort", "max", "min", "sum", "add", "sub", "mul", "div",
    "write_all", "read_exact", "contains", "append", "truncate", "drain", "retain",
    // `Option`'s and `Result`'s combinators.
    "map_or", "map_or_else", "and_then", "or_else", "unwrap_or", "unwrap_or_else", "unwrap_or_default", "ok_or",
    "ok_or_else", "filter", "ok", "err", "cloned", "copied", "flatten", "zip", "replace", "get_or_insert_with",
];

/// How deep [`Resolver::type_of`] follows bindings, method chains and fields.
const MAX_TYPE_DEPTH: usize = 64;

/// Whether std types use this method name everywhere ([`COMMON_METHODS`]): through a receiver of
/// unknown type, it resolves to nothing of the workspace.
pub fn is_common_method(name: &str) -> bool {
    COMMON_METHODS.contains(&name)
}

/// `Type::new(..)`, `Type::default()`, `Type { .. }`: the type by its last segment, and its path
/// as written where it has a module part (`sched::MetaBuilder::default()`: a type of that crate,
/// as an annotation `b: sched::MetaBuilder` says; not for std's containers, which stand for their
/// content).
fn constructed_type(expr: &Expr) -> Option<(String, Option<Vec<String>>)> {
    // `Arc::new(g)`, `Arc::clone(&g)`: a pointer to `g`, typed as `g` is ([`pointee`]).
    if pointee(expr).is_some() {
        return None;
    }
    let (name, path): (String, Vec<String>) = match expr {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.len() >= 2 => {
                let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let ty = &segments[..segments.len() - 1];
                let name = ty.last()?.clone();
                name.chars().next().filter(|c| c.is_uppercase())?;
                (name, ty.to_vec())
            }
            _ => return None,
        },
        Expr::Struct(s) => (s.path.segments.last()?.ident.to_string(), s.path.segments.iter().map(|s| s.ident.to_string()).collect()),
        _ => return None,
    };
    let std_like = path.first().is_some_and(|f| ["std", "core", "alloc"].contains(&f.as_str())) || CONTAINERS.contains(&name.as_str());
    let written = (path.len() >= 2 && !std_like && path.first().is_some_and(|f| f != "Self")).then_some(path);
    Some((name, written))
}

/// Field types of the structs declared in a file: `(Struct, field)` → type, by last path segment;
/// and the return types of the file's functions and methods, `(impl type, name)` → type, so that
/// a method chain (`self.lookup(b)?.execute(..)`) has a receiver type.
#[derive(Debug, Default)]
pub struct FieldTypes {
    types: HashMap<(String, String), String>,
    /// A field's type as written when it is a path through modules (`stream: st::Stream`): the
    /// paths it may have are resolved where it is read, not guessed from its last segment.
    written: HashMap<(String, String), Vec<String>>,
    /// The named fields of each struct of the file (`None`: a tuple struct, or two structs of
    /// that name in the file).
    declared: HashMap<String, Option<Vec<String>>>,
    elements: HashMap<(String, String), String>,
    /// What an `Option` or `Result` field holds, by last path segment.
    contents: HashMap<(String, String), String>,
    /// The fields of a number, `bool` or `char` type ([`is_scalar`]).
    scalars: std::collections::HashSet<(String, String)>,
    returns: HashMap<(Option<String>, String), String>,
    /// The names of the traits the file defines.
    traits: std::collections::HashSet<String>,
    /// For each struct with `#[derive(Default)]`, its fields that the derived `default()` fills
    /// with zeros: integer arrays (`slots: [i64; MAX_BS]`).
    zeroed_by_default: HashMap<String, Vec<String>>,
    /// The fields that hold at most one cached value (see [`is_single_slot`]), by struct.
    single_slots: std::collections::HashSet<(String, String)>,
    /// The fields without a visibility (private to their module), by struct.
    private: std::collections::HashSet<(String, String)>,
    /// The fields written through a shared reference ([`writes_through_shared_in`]): locks,
    /// cells, atomics.
    interior: std::collections::HashSet<(String, String)>,
    /// The fields whose type is a type parameter of their struct (`src: S` of `struct Gen<S>`),
    /// by that parameter's name.
    param_fields: HashMap<(String, String), String>,
}

/// Collections a cache keeps its entries in: a slot holding one of them is a cache of many
/// entries built lazily (`OnceLock<HashMap<..>>`), not a single entry.
const COLLECTIONS: &[&str] = &[
    "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Vec", "VecDeque", "LruCache", "IndexMap", "IndexSet", "DashMap", "Cache",
    "FxHashMap", "AHashMap", "SmallVec", "Slab", "LinkedList",
];

/// A lock or a cell, whose guard writes through a shared reference: `Mutex<T>`, `RwLock<T>`,
/// `RefCell<T>` (a path ending in one), also shared in an `Arc` or an `Rc`
/// (`&Arc<Mutex<Vec<usize>>>`, a free list handed around).
pub fn is_interior(ty: &Type) -> bool {
    is_interior_in(ty, &Imports::default())
}

/// [`is_interior`], a name a `use` renames read as what it imports (`use std::sync::Mutex as
/// Lock;`: `&Lock<T>` is a `Mutex`).
pub fn is_interior_in(ty: &Type, imports: &Imports) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    let name = imports.imported_as(&last.ident.to_string());
    if ["Mutex", "RwLock", "RefCell"].contains(&name.as_str()) {
        return true;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return false };
    (name == "Arc" || name == "Rc") && a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if is_interior_in(t, imports)))
}

/// Storage written through a shared reference: a lock or a `RefCell` ([`is_interior_in`]), a
/// `Cell<T>` or an atomic (`AtomicUsize`, written by `set`, `store`, `fetch_add`, ..), also
/// shared in an `Arc` or an `Rc`.
pub fn writes_through_shared_in(ty: &Type, imports: &Imports) -> bool {
    if is_interior_in(ty, imports) {
        return true;
    }
    if let Type::Array(syn::TypeArray { elem, .. }) | Type::Slice(syn::TypeSlice { elem, .. }) = ty {
        return writes_through_shared_in(elem, imports);
    }
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    let name = imports.imported_as(&last.ident.to_string());
    if name == "Cell" || name.starts_with("Atomic") {
        return true;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return false };
    // (A collection of them too: `Vec<AtomicU64>`, each written by its own `store`.)
    ["Arc", "Rc", "Vec", "VecDeque", "Box"].contains(&name.as_str()) && a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if writes_through_shared_in(t, imports)))
}

/// Whether a type holds at most one cached value and no key: `Option<T>`, `OnceCell<T>`,
/// `OnceLock<T>` (behind locks, cells and pointers too), of a `T` that is no collection of
/// entries.
pub fn is_single_slot(ty: &Type) -> bool {
    let Type::Path(p) = content_type(ty) else { return false };
    let Some(seg) = p.path.segments.last() else { return false };
    if !["Option", "OnceCell", "OnceLock"].contains(&seg.ident.to_string().as_str()) {
        return false;
    }
    match first_type_argument(seg).map(content_type) {
        Some(Type::Path(inner)) => inner.path.segments.last().is_some_and(|s| !COLLECTIONS.contains(&s.ident.to_string().as_str())),
        Some(_) => true,
        None => false,
    }
}

impl FieldTypes {
    pub fn of(items: &[syn::Item]) -> FieldTypes {
        let mut out = FieldTypes::default();
        out.collect(items);
        // A field of a struct of the file that has such fields (`stats: Stats` with `hits:
        // AtomicU64`) is written through a shared reference too, a few structs deep.
        for _ in 0..3 {
            let nested: Vec<(String, String)> = out.types.iter().filter(|(key, ty)| !out.interior.contains(*key) && out.has_interior(ty)).map(|(key, _)| key.clone()).collect();
            if nested.is_empty() {
                break;
            }
            out.interior.extend(nested);
        }
        reuse_rules::external::walk_fns(items, &mut |f| {
            if let Some(ty) = return_type_name(&f.sig.output, f.self_type) {
                out.returns.insert((f.self_type.map(str::to_string), f.sig.ident.to_string()), ty);
            }
        });
        out
    }

    /// Whether struct `owner` of this file has a field `field`: `None` when the file does not
    /// say (no such struct here, a tuple struct, two structs of that name).
    pub fn declares(&self, owner: &str, field: &str) -> Option<bool> {
        let fields = self.declared.get(owner)?.as_ref()?;
        Some(fields.iter().any(|f| f == field))
    }

    /// Whether this file defines a struct named `owner`.
    pub fn defines(&self, owner: &str) -> bool {
        self.declared.contains_key(owner)
    }

    /// The named fields of struct `owner` of this file, when the file says.
    pub fn fields_of(&self, owner: &str) -> Option<&[String]> {
        self.declared.get(owner)?.as_deref()
    }

    /// The fields of struct `owner` of this file that its derived `Default` fills with zeros
    /// (`None`: the struct does not derive `Default` here).
    pub fn zeroed_by_default(&self, owner: &str) -> Option<&[String]> {
        self.zeroed_by_default.get(owner).map(Vec::as_slice)
    }

    /// Whether field `field` of struct `owner` holds at most one cached value ([`is_single_slot`]).
    pub fn is_single_slot(&self, owner: &str, field: &str) -> bool {
        self.single_slots.contains(&(owner.to_string(), field.to_string()))
    }

    /// Whether field `field` of struct `owner`, declared once in this file, is private to its
    /// module (no `pub`).
    pub fn is_private(&self, owner: &str, field: &str) -> bool {
        self.declares(owner, field) == Some(true) && self.private.contains(&(owner.to_string(), field.to_string()))
    }

    /// Whether this file declares a trait named `name`.
    pub fn is_trait(&self, name: &str) -> bool {
        self.traits.contains(name)
    }

    /// The type parameter of struct `owner` that field `field` is of (`S` of `src: S`).
    pub fn param_of(&self, owner: &str, field: &str) -> Option<&str> {
        self.param_fields.get(&(owner.to_string(), field.to_string())).map(String::as_str)
    }

    /// Whether field `field` of struct `owner` is written through a shared reference (a lock, a
    /// cell, an atomic: [`writes_through_shared_in`]).
    pub fn is_interior(&self, owner: &str, field: &str) -> bool {
        self.interior.contains(&(owner.to_string(), field.to_string()))
    }

    /// Whether struct `owner` has a field written through a shared reference.
    pub fn has_interior(&self, owner: &str) -> bool {
        self.interior.iter().any(|(o, _)| o == owner)
    }

    /// The type of field `field` of struct `owner`, by last path segment.
    pub fn field_type(&self, owner: &str, field: &str) -> Option<&str> {
        self.types.get(&(owner.to_string(), field.to_string())).map(String::as_str)
    }

    /// What a function or method of this file returns, by last path segment (see [`return_type_name`]).
    pub fn returns(&self, owner: Option<&str>, name: &str) -> Option<&str> {
        self.returns.get(&(owner.map(str::to_string), name.to_string())).map(String::as_str)
    }

    fn collect(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Struct(st) => {
                    let named = matches!(st.fields, syn::Fields::Named(_)).then(|| st.fields.iter().filter_map(|f| f.ident.as_ref().map(|i| i.to_string())).collect());
                    let name = st.ident.to_string();
                    if let Some(zeroed) = zeroed_by_derived_default(st) {
                        self.zeroed_by_default.insert(name.clone(), zeroed);
                    }
                    let known = if self.declared.contains_key(&name) { None } else { named };
                    self.declared.insert(name, known);
                    // A field of a type parameter's type (`backend: B`) has no type of the workspace.
                    let params: Vec<String> = st.generics.type_params().map(|t| t.ident.to_string()).collect();
                    let known = |t: String| (!params.contains(&t)).then_some(t);
                    for field in &st.fields {
                        let Some(name) = &field.ident else { continue };
                        let key = (st.ident.to_string(), name.to_string());
                        if is_single_slot(&field.ty) {
                            self.single_slots.insert(key.clone());
                        }
                        if matches!(field.vis, syn::Visibility::Inherited) {
                            self.private.insert(key.clone());
                        }
                        if writes_through_shared_in(&field.ty, &Imports::default()) {
                            self.interior.insert(key.clone());
                        }
                        if let Type::Path(p) = &field.ty {
                            if let Some(param) = p.path.get_ident().map(|i| i.to_string()).filter(|t| params.contains(t)) {
                                self.param_fields.insert(key.clone(), param);
                            }
                        }
                        if let Some(ty) = type_name(&field.ty).and_then(known) {
                            self.types.insert(key.clone(), ty);
                            if let Type::Path(p) = content_type(&field.ty) {
                                if p.path.segments.len() > 1 && p.qself.is_none() {
                                    self.written.insert(key.clone(), p.path.segments.iter().map(|s| s.ident.to_string()).collect());
                                }
                            }
                        }
                        if is_scalar(&field.ty) {
                            self.scalars.insert(key.clone());
                        }
                        if let Some(content) = option_content(&field.ty).and_then(type_name).and_then(known) {
                            self.contents.insert(key.clone(), content);
                        }
                        if let Some(el) = element_type_name(&field.ty).and_then(known) {
                            self.elements.insert(key, el);
                        }
                    }
                }
                syn::Item::Trait(t) => _ = self.traits.insert(t.ident.to_string()),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.collect(items);
                    }
                }
                _ => {}
            }
        }
    }

    pub fn get(&self, owner: &str, field: &str) -> Option<&str> {
        self.types.get(&(owner.to_string(), field.to_string())).map(String::as_str)
    }

    pub fn element(&self, owner: &str, field: &str) -> Option<&str> {
        self.elements.get(&(owner.to_string(), field.to_string())).map(String::as_str)
    }

    pub fn content(&self, owner: &str, field: &str) -> Option<&str> {
        self.contents.get(&(owner.to_string(), field.to_string())).map(String::as_str)
    }

    pub fn is_scalar(&self, owner: &str, field: &str) -> bool {
        self.scalars.contains(&(owner.to_string(), field.to_string()))
    }
}

/// For a struct with `#[derive(Default)]`, its fields that the derived `default()` fills with
/// zeros: integer arrays (`slots: [i64; MAX_BS]`). `None`: no derived `Default`.
pub(crate) fn zeroed_by_derived_default(st: &syn::ItemStruct) -> Option<Vec<String>> {
    derives_default(&st.attrs).then(|| st.fields.iter().filter(|f| is_integer_array(&f.ty)).filter_map(|f| f.ident.as_ref().map(|i| i.to_string())).collect())
}

/// `#[derive(.., Default, ..)]` among the attributes.
fn derives_default(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| {
        a.parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
            .is_ok_and(|paths| paths.iter().any(|p| p.segments.last().is_some_and(|s| s.ident == "Default")))
    })
}

/// `[i64; N]` (any integer type): an array whose default entries are 0.
fn is_integer_array(ty: &Type) -> bool {
    const INTEGERS: &[&str] = &["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"];
    matches!(ty, Type::Array(a) if matches!(&*a.elem, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| INTEGERS.contains(&i.to_string().as_str()))))
}

/// Resolves calls within one file.
pub struct Resolver<'a> {
    pub index: &'a Index,
    /// The other files of the check: field and return types declared there.
    pub items: &'a crate::items::WorkspaceItems,
    pub crate_name: &'a str,
    /// Full module path, crate name first, inline modules included.
    pub module: Vec<String>,
    /// The module's imports, with a function body's own `use` items where it has some.
    pub imports: std::borrow::Cow<'a, Imports>,
    pub fields: &'a FieldTypes,
    /// The definition path of the function whose calls are resolved, if any.
    pub current: Option<Vec<String>>,
}

impl<'a> Resolver<'a> {
    /// Whether a call may resolve to a contracted function at all, from the names alone (a
    /// rename in this file, or in the index, may lead to a contracted one): most calls do not, and
    /// are settled before anything else is looked at.
    pub fn may_resolve(&self, call: &CallSite) -> bool {
        self.index.may_name_contracted(&call.name) || self.imported_name(call).is_some_and(|n| self.index.may_name_contracted(n))
    }

    /// The name a function called by one name was imported as (`write_row` of `put_row(..)`
    /// after `use sched::rows::write_row as put_row;`).
    pub fn imported_name(&self, call: &CallSite) -> Option<&str> {
        call.path.as_ref().filter(|p| p.len() == 1).and_then(|_| self.imports.get(&call.name)).and_then(|full| full.last()).map(String::as_str)
    }

    pub fn resolve(&self, call: &CallSite, self_type: Option<&str>, env: &TypeEnv) -> Resolution<'a> {
        // `from(x)` where `from` is a parameter or a local (a closure, a function pointer): the
        // binding shadows every item of that name, as in Rust. A local bound to a function's
        // path (`let op = kv::reshape_and_cache; op(..)`) calls that function.
        if let (Some([_]), Expr::Call(c)) = (call.path.as_deref(), call.expr) {
            if let Expr::Path(p) = &*c.func {
                let at = |i: &syn::Ident| crate::source::byte_range(i.span()).start;
                if let Some(ident) = p.path.get_ident().filter(|i| env.is_local_at(&call.name, at(i))) {
                    let Some(f) = env.bound_fn_at(&call.name, at(ident)) else { return Resolution::None };
                    let path: Vec<String> = f.segments.iter().map(|s| s.ident.to_string()).collect();
                    let Some(name) = path.last().cloned() else { return Resolution::None };
                    let named = CallSite { name, path: Some(path), global: f.leading_colon.is_some(), receiver: None, args: call.args.clone(), expr: call.expr };
                    return self.resolve(&named, self_type, env);
                }
                if p.path.get_ident().is_some_and(|i| env.is_fn_item_at(&call.name, at(i))) {
                    return Resolution::None;
                }
            }
        }
        if !self.may_resolve(call) {
            return Resolution::None;
        }
        // `B::add_(x, r)` of `fn f<B: Backend>`: the function of the bound's trait, as written.
        if let Some(path) = call.path.as_deref().filter(|p| p.len() == 2) {
            if let Some(bound) = env.bound_of(&path[0]) {
                let written: Vec<String> = bound.iter().chain(&path[1..]).cloned().collect();
                let named = |path: Vec<String>, global: bool| CallSite { name: call.name.clone(), path: Some(path), global, receiver: None, args: call.args.clone(), expr: call.expr };
                let found = self.resolve(&named(written, false), self_type, env);
                if !matches!(found, Resolution::None) {
                    return found;
                }
                // A method of a supertrait (`B::add_` of `B: AutodiffBackend` where
                // `trait AutodiffBackend: Backend`), by the traits' definition paths.
                let traits = TypeRef { name: bound.last().cloned().unwrap_or_default(), paths: Some(self.type_paths(bound, self_type)) };
                for t in self.owner_paths(&traits, self_type) {
                    let found = self.resolve(&named(t.into_iter().chain(path[1..].iter().cloned()).collect(), true), self_type, env);
                    if !matches!(found, Resolution::None) {
                        return found;
                    }
                }
                return Resolution::None;
            }
        }
        // What a path call may name, through imports (renames included) and `pub use` re-exports:
        // its candidates are found by the names at the end of those paths, not only the name written.
        let targets = match &call.path {
            Some(path) if call.global => vec![self.index.aliases_from(path, Some(&self.module))],
            Some(path) if path.len() >= 2 => vec![self.path_targets(path, self_type)],
            Some(_) => self.plain_targets(&call.name),
            None => Vec::new(),
        };
        let mut names: Vec<&str> = vec![call.name.as_str()];
        for t in targets.iter().flatten() {
            if let Some(last) = t.last() {
                if !names.contains(&last.as_str()) {
                    names.push(last.as_str());
                }
            }
        }
        let all: Vec<&ContractedFn> = names.iter().flat_map(|n| self.index.candidates(n)).collect();
        if all.is_empty() {
            return Resolution::None;
        }
        // A call passes as many arguments as the function has parameters (plus the receiver when
        // a method is called by its path).
        let all: Vec<&ContractedFn> = all
            .into_iter()
            .filter(|f| {
                let receiver_arg = usize::from(call.receiver.is_none() && f.has_receiver);
                call.args.len() == f.params.len() + receiver_arg
            })
            .collect();
        let narrowed: Vec<&ContractedFn> = match (&call.path, call.receiver) {
            (Some(path), _) if path.len() >= 2 => match self.by_path(&all, path, &targets[0]) {
                found if found.is_empty() => match self.by_first_argument(&all, call, self_type, env) {
                    found if found.is_empty() => self.by_implementor(&all, path, self_type),
                    found => found,
                },
                found => found,
            },
            (Some(_), _) => self.by_plain_name(&all, &targets),
            (None, Some(recv)) => self.by_receiver(&all, recv, self_type, env),
            (None, None) => all.clone(),
        };
        settle(narrowed)
    }

    /// The definition paths a called path may name (`f`, `util::f`, `Type::f`, `Self::f`), in the
    /// order Rust looks: for a plain name, its import, else this module's item, else the globs.
    pub fn call_targets(&self, path: &[String], self_type: Option<&str>) -> Vec<Vec<String>> {
        match path {
            [name] => self.plain_targets(name).concat(),
            _ => self.path_targets(path, self_type),
        }
    }

    /// The definition paths a written path (`kv::write`, `crate::ops::write`, `Self::run`) may
    /// name, through imports and re-exports. A path that does not start with `crate`, `self`,
    /// `super` or `Self` starts with a crate or an item of this module (Rust 2018): both.
    fn path_targets(&self, path: &[String], self_type: Option<&str>) -> Vec<Vec<String>> {
        let expanded = self.expand(path, self_type);
        // A module, type or trait of this module shadows a crate of its name (`mod kernels` and
        // `kernels::write(..)` written beside it): the path is that item's.
        if self.imports.get(&path[0]).is_none() && self.imports.defines_type(&path[0]) {
            let local: Vec<String> = self.module.iter().chain(&expanded).cloned().collect();
            return self.index.aliases_from(&local, Some(&self.module));
        }
        let mut out = self.index.aliases_from(&expanded, Some(&self.module));
        if !matches!(path[0].as_str(), "crate" | "self" | "super" | "Self") {
            let local: Vec<String> = self.module.iter().chain(&expanded).cloned().collect();
            let mut more = self.index.aliases_from(&local, Some(&self.module));
            // `StepGuard::new()` where `StepGuard` came in by a glob (`use crate::prelude::*;`):
            // a name imported by name or defined here shadows the globs, as for a plain name.
            if self.imports.get(&path[0]).is_none() && !self.imports.defines(&path[0]) {
                more.extend(self.glob_targets(path));
            }
            for p in more {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// What `path` names through each glob import of this module (`use ops::*;` and
    /// `use self::ops::*;` both read as Rust 2018 reads them), followed through re-exports.
    fn glob_targets(&self, path: &[String]) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for g in &self.imports.globs {
            for base in [g.clone(), self.module.iter().chain(g.iter()).cloned().collect()] {
                out.extend(self.index.aliases_from(&[base, path.to_vec()].concat(), Some(&self.module)));
            }
        }
        out
    }

    fn expand(&self, path: &[String], self_type: Option<&str>) -> Vec<String> {
        let first = &path[0];
        let mut out = match first.as_str() {
            "Self" => match self_type {
                Some(t) => crate::analysis::type_home(&self.module, &self.imports, t),
                None => self.module.clone(),
            },
            "crate" | "self" | "super" => return expand_anchor(path, self.crate_name, &self.module).0,
            _ => self.imports.get(first).cloned().unwrap_or_else(|| vec![first.clone()]),
        };
        out.extend(path[1..].iter().cloned());
        out
    }

    /// What a plain name `f` may name, in Rust's order, each followed through re-exports (and
    /// the private imports visible here): its import by name (a rename included), if there is
    /// one; else the module's own item, if it defines one; else the glob imports. An item or a
    /// named import shadows every glob import of its name, even when it has no contract: then
    /// the call is not to a contracted function of a glob, whatever its name.
    fn plain_targets(&self, name: &str) -> Vec<Vec<Vec<String>>> {
        let aliases = |p: &[String]| self.index.aliases_from(p, Some(&self.module));
        if let Some(through) = self.imports.through(&self.module, &[name.to_string()]) {
            // `use ops::write;` (Rust 2018): a crate named `ops`, or this module's `ops`.
            return vec![through.iter().flat_map(|p| aliases(p)).collect()];
        }
        let mut here = self.module.clone();
        here.push(name.to_string());
        if self.imports.defines(name) {
            return vec![aliases(&here)];
        }
        let globbed = self.glob_targets(std::slice::from_ref(&name.to_string()));
        // Not defined in this file's module: a definition the file does not show (a generated
        // item) comes first, as an item would.
        vec![aliases(&here), globbed]
    }

    fn by_path<'i>(&self, all: &[&'i ContractedFn], path: &[String], targets: &[Vec<String>]) -> Vec<&'i ContractedFn> {
        // The definition path itself, not a function whose path ends the same way elsewhere.
        let exact: Vec<&ContractedFn> = all.iter().copied().filter(|f| targets.contains(&f.path)).collect();
        if !exact.is_empty() {
            return dedup(exact);
        }
        // Only the written name from here on: a rename is known by its target alone.
        let all: Vec<&ContractedFn> = all.iter().copied().filter(|f| f.name == path[path.len() - 1]).collect();
        let all = all.as_slice();
        // `Type::method` where `Type` is defined in this module or imported under another path
        // (types are not followed through imports yet). A path through a module is known by its
        // expansion above, or not at all: a function of that name elsewhere (another crate's
        // `ops::write`, a module's `new` when the path names a module that has none) is not it.
        let tail = &path[path.len() - 2..];
        if !tail[0].starts_with(|c: char| c.is_uppercase()) {
            return Vec::new();
        }
        let loose: Vec<&ContractedFn> = all.iter().copied().filter(|f| f.path.ends_with(tail)).collect();
        prefer_module(loose, &self.module)
    }

    /// As in Rust, a plain name is an import, an item of this module, or a glob import (each
    /// through re-exports): never a function of the same name elsewhere.
    fn by_plain_name<'i>(&self, all: &[&'i ContractedFn], tiers: &[Vec<Vec<String>>]) -> Vec<&'i ContractedFn> {
        let free: Vec<&ContractedFn> = all.iter().copied().filter(|f| f.self_type.is_none()).collect();
        for tier in tiers {
            let found: Vec<&ContractedFn> = free.iter().copied().filter(|f| tier.contains(&f.path)).collect();
            if !found.is_empty() {
                return dedup(found);
            }
        }
        Vec::new()
    }

    /// The `#[reuse::effect]` function a call names, by the same rules as contracted functions:
    /// `Arc::clone(..)` is not an effect called `clone` declared in another crate.
    pub fn effect(&self, call: &CallSite, self_type: Option<&str>) -> Option<&'a crate::index::EffectFn> {
        let path = call.path.as_ref()?;
        if !self.index.may_name_effect(&call.name) {
            return None;
        }
        // As a call is followed: imports, renames and re-exports (`kv::log_step()` where `kv`
        // re-exports `obs::log_step`, or `kv::log()` for `pub use obs::log_step as log`).
        if let Some(e) = self
            .call_targets(path, self_type)
            .iter()
            .find_map(|t| self.index.effects.get(t.last()?)?.iter().find(|e| e.path == *t))
        {
            return Some(e);
        }
        let effects = self.index.effects.get(&call.name)?;
        let matches = |full: &[String]| effects.iter().find(|e| e.path.ends_with(full));
        if path.len() >= 2 {
            return matches(&self.expand(path, self_type));
        }
        if let Some(full) = self.imports.get(&call.name) {
            return matches(full);
        }
        // An item of this module shadows the glob imports.
        let shadowed = self.imports.defines(&call.name);
        effects.iter().find(|e| {
            let module = &e.path[..e.path.len() - 1];
            module == self.module.as_slice() || (!shadowed && self.imports.globs.iter().any(|g| module.ends_with(g)))
        })
    }

    /// The type of a receiver: `self`, a typed local, a field of either (`self.engine`), what a
    /// function or method returns (`self.lookup(b)?`), each declared in this file or another.
    pub fn type_of(&self, e: &Expr, self_type: Option<&str>, env: &TypeEnv) -> Option<TypeRef> {
        // Bindings typed by their values make chains; a bound keeps a cycle the scoping missed
        // (and a pathological chain of untrusted code) from overflowing the stack.
        thread_local! {
            static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        let depth = DEPTH.with(|d| d.replace(d.get() + 1));
        let ty = if depth < MAX_TYPE_DEPTH { self.type_of_unbounded(e, self_type, env) } else { None };
        DEPTH.with(|d| d.set(depth));
        ty
    }

    fn type_of_unbounded(&self, e: &Expr, self_type: Option<&str>, env: &TypeEnv) -> Option<TypeRef> {
        match strip(e) {
            Expr::Path(p) if p.path.is_ident("self") => self_type.map(TypeRef::here),
            Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                let (var, at) = (ident.to_string(), crate::source::byte_range(ident.span()).start);
                let Some(name) = env.type_of_at(&var, at) else {
                    // The type of its value: its initializer names only bindings made before it.
                    if let Some(init) = env.init_at(&var, at) {
                        return self.type_of(init, self_type, env);
                    }
                    // A unit struct's value (`Compiler`, `let c = Compiler;`): that type, if it is one.
                    if env.binding(&var, at).is_none() && var.starts_with(|c: char| c.is_ascii_uppercase()) && var.chars().any(|c| c.is_ascii_lowercase()) {
                        let paths = self.type_paths(std::slice::from_ref(&var), self_type);
                        return (!paths.is_empty()).then(|| TypeRef { name: var.clone(), paths: Some(paths) });
                    }
                    return None;
                };
                match env.written_type_at(&var, at) {
                    Some(written) if name != BUILTIN => Some(TypeRef { name: name.to_string(), paths: Some(self.type_paths(written, self_type)) }),
                    _ => Some(TypeRef::here(name)),
                }
            }
            // A method chain: what the method returns (`self.lookup(b)?.execute(..)`).
            Expr::Try(t) => self.type_of(&t.expr, self_type, env),
            Expr::Await(a) => self.type_of(&a.base, self_type, env),
            // `cs.first()`, `self.cs.get(i)`: an element (its `Option` unwrapped above).
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "first" | "last" | "get" | "get_mut" | "first_mut" | "last_mut") && m.args.len() <= 1 => {
                self.element_type_of(&m.receiver, self_type, env)
            }
            // An element taken out: `hosts.pop()`, `queue.pop_front()`, `xs.remove(i)`,
            // `xs.swap_remove(i)`, `map.remove(&k)` (its `Option` unwrapped above).
            Expr::MethodCall(m)
                if (matches!(m.method.to_string().as_str(), "pop" | "pop_front" | "pop_back") && m.args.is_empty())
                    || (matches!(m.method.to_string().as_str(), "remove" | "swap_remove") && m.args.len() == 1) =>
            {
                self.element_type_of(&m.receiver, self_type, env)
            }
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "unwrap" | "expect" | "lock" | "borrow" | "borrow_mut" | "read" | "write" | "as_ref" | "as_mut" | "clone" | "cloned" | "copied" | "as_deref" | "as_deref_mut") => {
                // Unwrapping, locking and borrowing give back the same content type here; an
                // `Option` or `Result` unwrapped, what it holds.
                let ty = self.type_of(&m.receiver, self_type, env);
                if UNWRAPS.contains(&m.method.to_string().as_str()) && ty.as_ref().is_none_or(|t| t.name == BUILTIN) {
                    return self.content_type_of(&m.receiver, self_type, env).or(ty);
                }
                ty
            }
            Expr::MethodCall(m) if UNWRAPS.contains(&m.method.to_string().as_str()) => {
                let ty = self.type_of(&m.receiver, self_type, env);
                match ty {
                    Some(t) if t.name != BUILTIN => Some(t),
                    _ => self.content_type_of(&m.receiver, self_type, env),
                }
            }
            Expr::MethodCall(m) => {
                let owner = self.type_of(&m.receiver, self_type, env)?;
                let method = m.method.to_string();
                if owner.paths.is_none() {
                    if let Some(ty) = self.fields.returns(Some(&owner.name), &method) {
                        return Some(TypeRef::here(ty));
                    }
                }
                let returned = self.owner_paths(&owner, self_type).iter().find_map(|o| self.items.returns(self.index, &[o.as_slice(), std::slice::from_ref(&method)].concat()));
                // `lock().map_err(..)?`, `lock().ok()?`, `.context(..)?`: the error changes, the
                // value's type does not (unless the type has a method of that name).
                match returned {
                    None if ERROR_ADAPTERS.contains(&method.as_str()) => Some(owner),
                    returned => returned,
                }
            }
            // `Arc::clone(&g)`, `Arc::new(g)`: a pointer that derefs to `g`'s type.
            call @ Expr::Call(_) if pointee(call).is_some() => self.type_of(pointee(call)?, self_type, env),
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let path: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let local = match path.as_slice() {
                    [name] => self.fields.returns(None, name),
                    [owner, name] => {
                        let owner = if owner == "Self" { self_type? } else { owner.as_str() };
                        self.fields.returns(Some(owner), name)
                    }
                    _ => None,
                };
                if let Some(ty) = local {
                    return Some(TypeRef::here(ty));
                }
                // A tuple struct's constructor (`HostTensor(raw)`): that struct.
                if let [name] = path.as_slice() {
                    if self.fields.defines(name) {
                        return Some(TypeRef::here(name));
                    }
                }
                // Declared in another file: by the definition paths the call may name.
                let targets = self.call_targets(&path, self_type);
                if let Some(ty) = targets.iter().find(|t| self.items.defines_type(self.index, t)) {
                    return Some(TypeRef { name: ty.last()?.clone(), paths: Some(vec![ty.clone()]) });
                }
                targets.iter().find_map(|t| self.items.returns(self.index, t)).or_else(|| {
                    // `Type::default()` of a derived `Default`, a `Type::new(..)` no signature
                    // tells of: the type, as a `let` bound to one is typed (the receiver of a
                    // builder's chain, `StepBuilder::default().slots(s).tables(t)`).
                    if !matches!(path.last().map(String::as_str), Some("default" | "new")) {
                        return None;
                    }
                    let (name, written) = constructed_type(e)?;
                    match written {
                        Some(written) if name != BUILTIN => Some(TypeRef { name, paths: Some(self.type_paths(&written, self_type)) }),
                        _ => Some(TypeRef::here(&name)),
                    }
                })
            }
            Expr::Field(f) => {
                let owner = self.type_of(&f.base, self_type, env)?;
                let syn::Member::Named(name) = &f.member else { return None };
                let name = name.to_string();
                if owner.paths.is_none() && self.fields.defines(&owner.name) {
                    // `self.src` of `src: S` in `impl<S: Source> Gen<S>`: the bound's trait, where
                    // the impl names the parameter as the struct does.
                    if let Some(bound) = self.fields.param_of(&owner.name, &name).and_then(|p| env.bound_of(p)) {
                        let name = bound.last()?.clone();
                        let paths = self.type_paths(bound, self_type);
                        return Some(TypeRef { name, paths: (!paths.is_empty()).then_some(paths) });
                    }
                    let ty = self.fields.get(&owner.name, &name)?;
                    return Some(match self.fields.written.get(&(owner.name.clone(), name)) {
                        Some(written) => TypeRef { name: ty.to_string(), paths: Some(self.type_paths(written, self_type)) },
                        None => TypeRef::here(ty),
                    });
                }
                self.owner_paths(&owner, self_type).iter().find_map(|o| self.items.field(self.index, o, &name))
            }
            // `layers[i]` where `layers: &[Block]`, `self.layers[i]` where the field is `Vec<Block>`.
            Expr::Index(i) => self.element_type_of(&i.expr, self_type, env),
            _ => None,
        }
    }

    /// Whether `e` reads a field of a number, `bool` or `char` type (`h.rows` of `rows: usize`)
    /// that is no handle: a device pointer or a handle kept as an integer (`ptr: u64`,
    /// `handle`, `addr`, a tuple struct's `h.0`) is the storage it names.
    pub fn reads_scalar_field(&self, e: &Expr, self_type: Option<&str>, env: &TypeEnv) -> bool {
        let Expr::Field(f) = strip(e) else { return false };
        let (Some(owner), syn::Member::Named(name)) = (self.type_of(&f.base, self_type, env), &f.member) else { return false };
        let name = name.to_string();
        if ["ptr", "handle", "addr"].iter().any(|h| name.contains(h)) {
            return false;
        }
        if owner.paths.is_none() && self.fields.defines(&owner.name) {
            return self.fields.is_scalar(&owner.name, &name);
        }
        self.owner_paths(&owner, self_type).iter().any(|o| self.items.is_scalar_field(self.index, o, &name))
    }

    /// What `e` holds when it is an `Option` or a `Result` (`self.hidden` of `hidden:
    /// Option<Tensor>`, a parameter `o: Option<Tensor>`, `self.hidden.take()`): what unwrapping it
    /// gives.
    fn content_type_of(&self, e: &Expr, self_type: Option<&str>, env: &TypeEnv) -> Option<TypeRef> {
        self.part_type_of(e, Part::Content, self_type, env)
    }

    /// The type of an element of `base` (`layers` of type `&[Block]`, a field `Vec<Block>`).
    fn element_type_of(&self, base: &Expr, self_type: Option<&str>, env: &TypeEnv) -> Option<TypeRef> {
        self.part_type_of(base, Part::Element, self_type, env)
    }

    /// The type of a part of `base`: what a binding, a binding's initializer or a struct's field
    /// says it holds, through the methods that keep the part (see [`Part::kept_by`]).
    fn part_type_of(&self, base: &Expr, part: Part, self_type: Option<&str>, env: &TypeEnv) -> Option<TypeRef> {
        match strip(base) {
            Expr::Path(p) => {
                let v = p.path.get_ident()?;
                let (var, at) = (v.to_string(), crate::source::byte_range(v.span()).start);
                let known = match part {
                    Part::Element => env.element_of_at(&var, at),
                    Part::Content => env.content_of_at(&var, at),
                };
                match known {
                    Some(ty) => Some(TypeRef::here(ty)),
                    // `let mut g = self.blocks.lock().unwrap(); g[0]`: a part of what it was bound to.
                    None if env.written_type_at(&var, at).is_none() => self.part_type_of(env.init_at(&var, at)?, part, self_type, env),
                    None => None,
                }
            }
            Expr::MethodCall(m) if m.args.is_empty() && part.kept_by(&m.method.to_string()) => self.part_type_of(&m.receiver, part, self_type, env),
            Expr::Field(f) => {
                let owner = self.type_of(&f.base, self_type, env)?;
                let syn::Member::Named(name) = &f.member else { return None };
                let name = name.to_string();
                if owner.paths.is_none() && self.fields.defines(&owner.name) {
                    let ty = match part {
                        Part::Element => self.fields.element(&owner.name, &name),
                        Part::Content => self.fields.content(&owner.name, &name),
                    };
                    return ty.map(TypeRef::here);
                }
                self.owner_paths(&owner, self_type).iter().find_map(|o| match part {
                    Part::Element => self.items.element(self.index, o, &name),
                    Part::Content => self.items.content(self.index, o, &name),
                })
            }
            _ => None,
        }
    }

    /// The definition paths a light type may have: where it was resolved, or its name looked up
    /// in this module. A builtin type has none.
    pub fn owner_paths(&self, ty: &TypeRef, self_type: Option<&str>) -> Vec<Vec<String>> {
        let mut paths = match &ty.paths {
            Some(p) => p.clone(),
            None if ty.name == BUILTIN => Vec::new(),
            None => self.type_paths(std::slice::from_ref(&ty.name), self_type),
        };
        // `type Be = kv::CudaBackend;`: the aliased type's paths too, a few aliases deep; and a
        // trait's supertraits (`B: Attn` of `trait Attn: Backend` has `Backend`'s methods).
        let mut next = 0;
        while next < paths.len() && paths.len() < MAX_TYPE_PATHS {
            let aliased = self.items.type_alias(self.index, &paths[next]).and_then(|t| t.paths).unwrap_or_default();
            for p in aliased.into_iter().chain(self.items.supertraits(self.index, &paths[next])) {
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
            next += 1;
        }
        paths
    }

    /// The definition paths a type written here may have (`StepMeta`, `crate::meta::StepMeta`,
    /// `Self`), through imports and re-exports, as a call's path is followed.
    pub fn type_paths(&self, written: &[String], self_type: Option<&str>) -> Vec<Vec<String>> {
        match written {
            [name] if name == "Self" => self_type.map_or_else(Vec::new, |t| self.type_paths(&[t.to_string()], None)),
            [name] => self.plain_targets(name).concat(),
            _ => self.path_targets(written, self_type),
        }
    }

    /// The light type of a written type, declared in this module: its content for methods (see
    /// [`content_type`]), unknown when it is one of `generics` (type parameters in scope).
    pub fn type_ref(&self, ty: &Type, self_type: Option<&str>, generics: &[String]) -> Option<TypeRef> {
        let content = content_type(ty);
        let name = type_name(content)?;
        let Type::Path(p) = content else { return Some(TypeRef { name, paths: Some(Vec::new()) }) };
        let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if written.len() == 1 && generics.contains(&written[0]) {
            return None;
        }
        if name == BUILTIN {
            return Some(TypeRef { name, paths: Some(Vec::new()) });
        }
        let paths = self.type_paths(&written, self_type);
        // Named as it is defined (`use graph::Graph as G;` → `Graph`): methods are matched by it.
        let name = match paths.first().and_then(|p| p.last()) {
            Some(defined) => defined.clone(),
            None if name == "Self" => self_type?.to_string(),
            None => name,
        };
        Some(TypeRef { name, paths: Some(paths) })
    }

    /// `Trait::method(x, ..)` and `<T as Trait>::method(x, ..)` call the method of `x`'s type
    /// (Rust makes `x` that type, or a reference to it): the method of the type `x` is known to
    /// have, never one guessed for an unknown type.
    /// `MyBackend::float_add_inplace(x, r)`: a trait's contracted function called through the
    /// path of a type of the workspace that implements the trait (`impl Backend for MyBackend`),
    /// the trait perhaps of another crate. The type's own function of that name would be exact.
    /// `Self::mul_inplace(x, g)` is the same call written in the type's `impl` (`Self` is the
    /// type), or in a trait's default method (`Self` implements the trait and its supertraits,
    /// `trait Ext: Backend`: the contracted method of `Backend`).
    fn by_implementor<'i>(&self, all: &[&'i ContractedFn], path: &[String], self_type: Option<&str>) -> Vec<&'i ContractedFn> {
        let written = &path[path.len() - 2];
        let is_self = written == "Self" && path.len() == 2;
        let owner = match (is_self, self_type) {
            (true, Some(t)) => t,
            (true, None) => return Vec::new(),
            (false, _) => written.as_str(),
        };
        if !owner.starts_with(|c: char| c.is_uppercase()) || owner == "Self" {
            return Vec::new();
        }
        let ty = TypeRef { name: owner.to_string(), paths: (path.len() > 2).then(|| self.type_paths(&path[..path.len() - 1], self_type)) };
        let owners = self.owner_paths(&ty, self_type);
        let types: Vec<&Vec<String>> = owners.iter().filter(|p| self.items.defines_type(self.index, p)).collect();
        let found = all.iter().copied().filter(|f| {
            let trait_path = &f.path[..f.path.len() - 1];
            f.in_trait && f.name == path[path.len() - 1] && f.self_type.as_deref().is_some_and(|t| types.iter().any(|ty| self.items.implements_trait(ty, t)) || (is_self && owners.iter().any(|o| o == trait_path)))
        });
        dedup(found.collect())
    }

    fn by_first_argument<'i>(&self, all: &[&'i ContractedFn], call: &CallSite, self_type: Option<&str>, env: &TypeEnv) -> Vec<&'i ContractedFn> {
        let Some(&first) = call.args.first() else { return Vec::new() };
        match self.type_of(strip(first), self_type, env) {
            Some(ty) => self.by_receiver_type(all, ty, self_type),
            None => Vec::new(),
        }
    }

    fn by_receiver<'i>(&self, all: &[&'i ContractedFn], recv: &Expr, self_type: Option<&str>, env: &TypeEnv) -> Vec<&'i ContractedFn> {
        let Some(ty) = self.type_of(recv, self_type, env) else {
            let methods: Vec<&ContractedFn> = all.iter().copied().filter(|f| f.has_receiver).collect();
            // Unknown receiver type: methods of this crate, of crates this file names, and of
            // contracts files (which the user wrote for exactly these calls); never a name that
            // std types use everywhere.
            if methods.first().is_some_and(|f| is_common_method(&f.name)) {
                return Vec::new();
            }
            // Never the function being checked: an unknown receiver is not `self`.
            return methods
                .into_iter()
                .filter(|f| f.external || f.path[0] == self.crate_name || self.imports.mentions_crate(&f.path[0]))
                .filter(|f| self.current.as_ref() != Some(&f.path))
                .collect();
        };
        self.by_receiver_type(all, ty, self_type)
    }

    /// The methods among `all` that a receiver of type `ty` calls.
    fn by_receiver_type<'i>(&self, all: &[&'i ContractedFn], ty: TypeRef, self_type: Option<&str>) -> Vec<&'i ContractedFn> {
        let methods: Vec<&ContractedFn> = all.iter().copied().filter(|f| f.has_receiver).collect();
        // The definition paths of the type: where it was resolved, or the name written here
        // looked up as Rust does (an import, a rename, an item of this module, a glob), through
        // type aliases. The methods of that very type, if it has any.
        let paths = self.owner_paths(&ty, self_type);
        let exact: Vec<&ContractedFn> = methods.iter().copied().filter(|f| paths.iter().any(|p| f.path[..f.path.len() - 1] == p[..])).collect();
        if !exact.is_empty() {
            return exact;
        }
        // A type found where it is defined has no contracted method of this name (its own would
        // be exact): a same-named type elsewhere is another type; only a trait's contract binds it.
        if paths.iter().any(|p| self.items.defines_type(self.index, p)) {
            return methods.into_iter().filter(|f| f.in_trait).collect();
        }
        // A trait of the workspace (`&dyn Sink`, `K: Sink`) found where it is defined: only its
        // own methods' contracts, which would be exact; a same-named trait's are not its.
        if paths.iter().any(|p| self.items.defines_trait(self.index, p)) {
            return Vec::new();
        }
        if self.fields.traits.contains(&ty.name) {
            return methods.into_iter().filter(|f| f.in_trait && f.self_type.as_deref() == Some(ty.name.as_str())).collect();
        }
        let ty = ty.name;
        let mut typed: Vec<&ContractedFn> = methods.iter().copied().filter(|f| f.self_type.as_deref() == Some(ty.as_str())).collect();
        if typed.is_empty() && ty != BUILTIN {
            // A contract on a trait method binds its implementors (`impl KvCache for Paged`),
            // generic receivers (`C: KvCache`) and boxed trait objects alike.
            typed = methods.iter().copied().filter(|f| f.in_trait).collect();
        }
        if let Some(full) = self.imports.get(&ty) {
            let imported: Vec<&ContractedFn> = typed.iter().copied().filter(|f| f.path[..f.path.len() - 1].ends_with(full)).collect();
            if !imported.is_empty() {
                return imported;
            }
        }
        prefer_module(typed, &self.module)
    }
}

/// Candidates declared in `module` if there are any, else all.
fn prefer_module<'i>(cands: Vec<&'i ContractedFn>, module: &[String]) -> Vec<&'i ContractedFn> {
    let here: Vec<&ContractedFn> = cands.iter().copied().filter(|f| f.path.starts_with(module) && f.path.len() <= module.len() + 2).collect();
    if here.is_empty() {
        cands
    } else {
        here
    }
}

/// One candidate, or several whose contracts say the same thing: no ambiguity that matters.
fn settle(cands: Vec<&ContractedFn>) -> Resolution<'_> {
    match cands.len() {
        0 => Resolution::None,
        1 => Resolution::One(cands[0]),
        _ => {
            let first = cands[0].contract.to_string();
            if cands.iter().all(|c| c.contract.to_string() == first && c.params == cands[0].params) {
                Resolution::One(cands[0])
            } else {
                Resolution::Ambiguous(cands)
            }
        }
    }
}

/// Strips `&`, `&mut`, `*`, parentheses and groups.
/// The value a shared or boxed pointer is made of or copied from: `x` of `Arc::new(x)`,
/// `Rc::new(x)`, `Box::new(x)`, `Arc::clone(&x)`, `Rc::clone(&x)`: it derefs to the value's
/// type, and its parts are the value's.
pub fn pointee(e: &Expr) -> Option<&Expr> {
    let Expr::Call(c) = strip(e) else { return None };
    let Expr::Path(p) = strip(&c.func) else { return None };
    let names: Vec<String> = p.path.segments.iter().rev().take(2).map(|s| s.ident.to_string()).collect();
    let pointer = matches!(names.iter().map(String::as_str).collect::<Vec<_>>()[..], ["new" | "clone", "Arc" | "Rc"] | ["new", "Box"]);
    (pointer && c.args.len() == 1).then(|| &c.args[0])
}

pub fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Reference(r) => strip(&r.expr),
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
        _ => expr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The type of each `e` that receives a method call, in source order.
    fn receiver_types(src: &str) -> Vec<Option<String>> {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let env = TypeEnv::of(&f.sig, None, Some(&f.block));
        struct Receivers<'e>(&'e TypeEnv, Vec<Option<String>>);
        impl<'ast> Visit<'ast> for Receivers<'_> {
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if let Expr::Path(p) = &*m.receiver {
                    let i = p.path.get_ident().unwrap();
                    self.1.push(self.0.type_of_at(&i.to_string(), crate::source::byte_range(i.span()).start).map(str::to_string));
                }
                syn::visit::visit_expr_method_call(self, m);
            }
        }
        let mut v = Receivers(&env, Vec::new());
        v.visit_block(&f.block);
        v.1
    }

    /// An `impl` that names its type by a path gives the type's definition path, anchored,
    /// through an import or a module declared here; two such types of one name give none, and a
    /// trait's `impl` or a plain name is no such path.
    #[test]
    fn impl_blocks_written_with_a_path_name_where_the_type_is_defined() {
        let file: syn::File = syn::parse_str(
            "use crate::other as o;\nmod inner { pub struct Inner; }\nimpl crate::meta::Meta {}\nimpl super::Up {}\nimpl o::Far {}\nimpl inner::Inner {}\nimpl a::Twice {}\nimpl b::Twice {}\nimpl Plain {}\nimpl crate::tr::Tr for crate::x::Y {}\n",
        )
        .unwrap();
        let module = vec!["eng".to_string(), "ext".to_string()];
        let imports = Imports::of(&file.items, "eng", &module);
        let at = |ty: &str| imports.impl_path(ty).map(|p| p.join("::"));
        assert_eq!(at("Meta").as_deref(), Some("eng::meta::Meta"));
        assert_eq!(at("Up").as_deref(), Some("eng::Up"));
        assert_eq!(at("Far").as_deref(), Some("eng::other::Far"));
        assert_eq!(at("Inner").as_deref(), Some("eng::ext::inner::Inner"));
        assert_eq!(at("Twice"), None);
        assert_eq!(at("Plain"), None);
        assert_eq!(at("Y"), None);
        // The methods are defined at the type's path.
        assert_eq!(crate::analysis::type_home(&module, &imports, "Meta").join("::"), "eng::meta::Meta");
        assert_eq!(crate::analysis::type_home(&module, &imports, "Plain").join("::"), "eng::ext::Plain");
    }

    #[test]
    fn a_binding_re_bound_whole_keeps_its_type() {
        let types = receiver_types("fn f(e: &mut Engine, o: Other) { let e = e; e.put(); let e = &mut *e; e.put(); let o = o.make(); o.put(); }");
        let s = |t: &str| Some(t.to_string());
        // `o.make()` is a value of its own, of a type not known here.
        assert_eq!(types, vec![s("Engine"), s("Engine"), s("Other"), None]);
    }

    #[test]
    fn a_shared_pointer_has_the_type_of_what_it_points_to() {
        let types = receiver_types("fn f(e: Engine) { let a = Arc::clone(&e); a.put(); let b = Arc::new(e); b.put(); let c = Rc::clone(&b); c.put(); }");
        let s = |t: &str| Some(t.to_string());
        assert_eq!(types, vec![s("Engine"), s("Engine"), s("Engine")]);
    }

    #[test]
    fn bindings_are_scoped_and_shadowing_is_a_new_binding() {
        let types = receiver_types(
            "fn f(e: Engine) { { let e: Other = Other; e.put(); } e.put(); let e = make(); e.put(); let e = Cache::new(); e.put(); for e in es { e.put(); } }",
        );
        let s = |t: &str| Some(t.to_string());
        // The inner `let` types only its block; an untyped shadow is unknown, not the old type;
        // a loop variable is unknown.
        assert_eq!(types, vec![s("Other"), s("Engine"), None, s("Cache"), None]);
    }

    /// The contracted function each call of the file at module `at` resolves to, as
    /// `(function the call is in, written callee, definition path or "-")`, with the index of all
    /// `files` (module path, text) built as the engine builds it.
    fn resolutions(files: &[(&str, &str)], at: &str) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        each_call(files, at, &mut |resolver, f, env, call| {
            let site = CallSite::of(call).unwrap();
            let written = site.path.as_ref().map_or(format!(".{}", site.name), |p| p.join("::"));
            let to = match resolver.resolve(&site, f.self_type, env) {
                Resolution::One(callee) => callee.display_path(),
                Resolution::Ambiguous(_) => "ambiguous".into(),
                Resolution::None => "-".into(),
            };
            out.push((f.sig.ident.to_string(), written, to));
        });
        out
    }

    /// Each call of each function of the file at module `at`, with the function's resolver and
    /// type environment, the index of all `files` built as the engine builds it.
    fn each_call(files: &[(&str, &str)], at: &str, visit: &mut dyn FnMut(&Resolver, &reuse_rules::external::FnItem, &TypeEnv, &Expr)) {
        let jobs = crate::items::tests::jobs(files);
        let (index, _) = crate::engine::build_index(&jobs);
        let items = crate::items::WorkspaceItems::of_jobs(&jobs);
        let job = jobs.iter().find(|j| j.module.join("::") == at).unwrap();
        let ast = job.file.parse().unwrap();
        let imports = crate::analysis::imports_by_module(&ast.items, &job.crate_name, &job.module);
        let fields = FieldTypes::of(&ast.items);
        reuse_rules::external::walk_fns(&ast.items, &mut |f| {
            let Some(body) = f.body else { return };
            let mut module = job.module.clone();
            module.extend(f.modules.iter().cloned());
            let resolver = Resolver { index: &index, items: &items, crate_name: &job.crate_name, module, imports: std::borrow::Cow::Borrowed(&imports[f.modules]), fields: &fields, current: None };
            let env = TypeEnv::of(f.sig, f.outer_generics, Some(body));
            for call in crate::rules::calls_in(body) {
                visit(&resolver, &f, &env, call);
            }
        });
    }

    /// `(function, callee, resolved)` triples, for comparing with [`resolutions`].
    fn triples(list: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
        list.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
    }

    /// An effect called through a re-export of its crate, renamed or not, is that effect; a
    /// function of the effect's name elsewhere is not.
    #[test]
    fn effects_are_followed_through_re_exports_and_renames() {
        let obs = "#[reuse::effect]\npub fn log_step() {}\n";
        let kv = "pub mod obs;\npub use obs::log_step;\npub use obs::log_step as record;\n";
        let user = "use kv::record as rec;\nfn f() { kv::log_step(); kv::record(); rec(); kv::obs::log_step(); other::log_step(); }\n";
        let jobs = crate::items::tests::jobs(&[("kv::obs", obs), ("kv", kv), ("user", user), ("other", "pub fn log_step() {}\n")]);
        let (index, _) = crate::engine::build_index(&jobs);
        let items = crate::items::WorkspaceItems::of_jobs(&jobs);
        let job = jobs.iter().find(|j| j.module == ["user"]).unwrap();
        let ast = job.file.parse().unwrap();
        let imports = crate::analysis::imports_by_module(&ast.items, &job.crate_name, &job.module);
        let fields = FieldTypes::of(&ast.items);
        let resolver = Resolver { index: &index, items: &items, crate_name: &job.crate_name, module: job.module.clone(), imports: std::borrow::Cow::Borrowed(&imports[&Vec::new()]), fields: &fields, current: None };
        let syn::Item::Fn(f) = &ast.items[1] else { panic!("a function") };
        let found: Vec<(String, bool)> = crate::rules::calls_in(&f.block)
            .into_iter()
            .map(|c| {
                let site = CallSite::of(c).unwrap();
                (site.path.clone().unwrap().join("::"), resolver.effect(&site, None).is_some())
            })
            .collect();
        let want = [("kv::log_step", true), ("kv::record", true), ("rec", true), ("kv::obs::log_step", true), ("other::log_step", false)];
        assert_eq!(found, want.map(|(c, e)| (c.to_string(), e)));
    }

    const CONTRACTS: &str = "#[reuse::contract(writes(a[i], skip = -1))]\npub fn new(a: &mut [u8], i: &[i64]) {}\n#[reuse::contract(writes(a[i], skip = -1))]\npub fn from(a: &mut [u8], i: &[i64]) {}\n";

    /// A binding whose type is a type parameter of the function has no known type: `k.get(x)` in
    /// `fn f<K: Get>(k: K)` is not the `get` of a struct named `K`.
    #[test]
    fn a_generic_parameter_is_not_a_type_of_the_same_name() {
        let kernels = "pub struct K { v: Vec<u8> }\nimpl K {\n    #[reuse::contract(writes(self.v[i], skip = -1))]\n    pub fn get(&mut self, i: &[i64]) {}\n}\n";
        let root = "mod zz;\nuse zz::K;\nfn generic<K: Fn(&[i64])>(k: K) { k.get(&[0]); }\nfn concrete(k: &mut K) { k.get(&[0]); }\n";
        let got = resolutions(&[("c", root), ("c::zz", kernels)], "c");
        assert_eq!(got, triples(&[("generic", ".get", "-"), ("concrete", ".get", "c::zz::K::get")]));
    }

    /// `B::add_(x, r)` of `fn f<B: Backend>`: the bound trait's function; a type parameter
    /// without a bound names nothing.
    #[test]
    fn a_type_parameter_s_function_is_its_bound_trait_s() {
        let kernels = "pub trait Backend {\n    #[reuse::contract(aliases(return = lhs))]\n    fn add_(lhs: u64, rhs: u64) -> u64;\n}\n";
        let root = "mod zz;\nuse zz::Backend;\nfn f<B: Backend>(x: u64) { B::add_(x, 1); }\nfn g<B>(x: u64) where B: Backend { B::add_(x, 1); }\nfn h<T>(x: u64) { T::add_(x, 1); }\n";
        let got = resolutions(&[("c", root), ("c::zz", kernels)], "c");
        assert_eq!(got, triples(&[("f", "B::add_", "c::zz::Backend::add_"), ("g", "B::add_", "c::zz::Backend::add_"), ("h", "T::add_", "-")]));
    }

    /// `Type::new()` where `Type` came in by a glob, or by a glob of a module that glob-re-exports
    /// it, has that type at its definition path, as `use` by name gives it.
    #[test]
    fn the_constructor_of_a_glob_imported_type_gives_its_type() {
        let kernels = "pub struct K;\nimpl K {\n    pub fn new() -> K { K }\n}\n";
        let body = "{ K::new(); }";
        let root = format!("mod zz;\npub mod prelude {{ pub use crate::zz::*; }}\nmod by_name {{ use crate::zz::K; fn e() {body} }}\nmod by_glob {{ use crate::zz::*; fn f() {body} }}\nmod by_prelude {{ use crate::prelude::*; fn g() {body} }}\nmod unimported {{ fn h() {body} }}\n");
        let mut got = Vec::new();
        each_call(&[("c", &root), ("c::zz", kernels)], "c", &mut |resolver, f, env, call| {
            let ty = resolver.type_of(call, f.self_type, env);
            got.push((f.sig.ident.to_string(), ty.and_then(|t| t.paths).unwrap_or_default()));
        });
        let k = vec![vec!["c".to_string(), "zz".to_string(), "K".to_string()]];
        assert_eq!(got, vec![("e".to_string(), k.clone()), ("f".to_string(), k.clone()), ("g".to_string(), k), ("h".to_string(), vec![])]);
    }

    /// What an `Option` or `Result` holds, taken out by a pattern, `unwrap` or `take()`, has the
    /// content's type (a field's, a parameter's, another file's struct's); the `Option` itself,
    /// and a lock's guard of one, do not: their `take` or `insert` is no method of the content.
    #[test]
    fn an_options_content_has_the_type_it_holds() {
        let kernels = "pub struct T { v: Vec<u8> }\nimpl T {\n    #[reuse::contract(writes(self.v[i], skip = -1))]\n    pub fn put(&mut self, i: &[i64]) {}\n    #[reuse::contract(writes(self.v[i], skip = -1))]\n    pub fn take(&mut self, i: &[i64]) {}\n}\npub struct Held { pub t: Option<T> }\n";
        let root = "mod zz;\nuse zz::{Held, T};\nstruct R { h: Option<T>, m: std::sync::Mutex<Option<T>> }\nimpl R {\n    fn a(&mut self, o: Option<T>, held: Held) {\n        let Some(x) = self.h.take() else { return };\n        x.put(&[0]);\n        if let Some(y) = o { y.put(&[0]); }\n        self.h.unwrap().put(&[0]);\n        held.t.unwrap().put(&[0]);\n        self.h.take(&[0]);\n        self.m.lock().unwrap().take(&[0]);\n    }\n}\n";
        let got = resolutions(&[("c", root), ("c::zz", kernels)], "c");
        let put = "c::zz::T::put";
        // (Each call before the calls in its receiver.)
        assert_eq!(got, triples(&[("a", ".take", "-"), ("a", ".put", put), ("a", ".put", put), ("a", ".put", put), ("a", ".unwrap", "-"), ("a", ".put", put), ("a", ".unwrap", "-"), ("a", ".take", "-"), ("a", ".take", "-"), ("a", ".unwrap", "-"), ("a", ".lock", "-")]));
    }

    /// A binding whose type is a type parameter of the `impl` (`impl<B: Backend> Runner<B>`) has
    /// no known type either, nor a field of a struct's type parameter.
    #[test]
    fn an_impl_or_struct_type_parameter_is_not_a_type_of_the_same_name() {
        let kernels = "pub struct B { v: Vec<u8> }\nimpl B {\n    #[reuse::contract(writes(self.v[i], skip = -1))]\n    pub fn get(&mut self, i: &[i64]) {}\n}\n";
        let root = "mod zz;\nuse zz::B;\nstruct Runner<B> { backend: B }\nimpl<B: Clone> Runner<B> {\n    fn f(&mut self, b: B) { b.get(&[0]); self.backend.get(&[0]); }\n}\nfn concrete(b: &mut B) { b.get(&[0]); }\n";
        // (`get` is a name std types use everywhere: an unknown receiver does not resolve to it.)
        let got = resolutions(&[("c", root), ("c::zz", kernels)], "c");
        assert_eq!(got, triples(&[("f", ".get", "-"), ("f", ".get", "-"), ("concrete", ".get", "c::zz::B::get")]));
    }

    /// A trait's contracted associated function called through the path of a type that
    /// implements the trait (in another crate: `impl kernels::Backend for Cpu`) is the trait's;
    /// through a type with an inherent function of that name and no such impl, or a type the
    /// workspace does not define, it is nothing.
    #[test]
    fn a_traits_function_called_through_an_implementors_path_is_the_traits() {
        let kernels = "pub trait Backend {\n    type T: Copy;\n    #[reuse::contract(aliases(return = lhs))]\n    fn add_(lhs: Self::T, rhs: Self::T) -> Self::T;\n}\n";
        let engine = "pub struct Cpu;\nimpl kernels::Backend for Cpu {\n    type T = u64;\n    fn add_(lhs: u64, rhs: u64) -> u64 { lhs + rhs }\n}\npub struct Host;\nimpl Host {\n    fn add_(lhs: u64, rhs: u64) -> u64 { lhs }\n}\nfn f(x: u64) { Cpu::add_(x, 1); Host::add_(x, 1); Elsewhere::add_(x, 1); }\n";
        let got = resolutions(&[("kernels", kernels), ("engine", engine)], "engine");
        assert_eq!(got, triples(&[("f", "Cpu::add_", "kernels::Backend::add_"), ("f", "Host::add_", "-"), ("f", "Elsewhere::add_", "-")]));
    }

    /// Receivers whose types are declared in other files: what a method of another file returns
    /// (`self.runner.lookup(bs)?`), a field of a struct of another file (`b.graph`, through `Arc`
    /// and `Mutex`), each resolved where it is declared, decide between two `replay`s.
    #[test]
    fn receivers_follow_return_and_field_types_declared_in_other_files() {
        let graph = "pub struct Graph;\nimpl Graph {\n    #[reuse::contract(writes(c[s], skip = -1))]\n    pub fn replay(&mut self, c: &mut [u8], s: &[i64]) {}\n}\npub struct Recorded;\nimpl Recorded {\n    #[reuse::contract(reads(c[s]))]\n    pub fn replay(&mut self, c: &mut [u8], s: &[i64]) {}\n}\n";
        let runner = "use crate::graph::{Graph, Recorded as Rec};\npub struct Runner { graphs: Vec<Graph>, pub last: Rec }\nimpl Runner {\n    pub fn lookup(&mut self, bs: usize) -> Option<&mut Graph> { self.graphs.get_mut(bs) }\n}\npub struct Batch { pub graph: std::sync::Arc<std::sync::Mutex<Graph>> }\n";
        let root = "mod graph;\nmod runner;\nuse runner::{Batch, Runner};\nstruct Engine { runner: Runner }\nimpl Engine {\n    fn step(&mut self, c: &mut [u8]) { self.runner.lookup(1).unwrap().replay(c, &[0]); self.runner.last.replay(c, &[0]); }\n}\nfn batch(b: &mut Batch, c: &mut [u8]) { let b = b; b.graph.lock().unwrap().replay(c, &[0]); }\nfn unknown(x: Unknown, c: &mut [u8]) { x.graph.replay(c, &[0]); }\n";
        let files = [("c", root), ("c::graph", graph), ("c::runner", runner)];
        let got: Vec<(String, String, String)> = resolutions(&files, "c").into_iter().filter(|(_, callee, _)| callee == ".replay").collect();
        assert_eq!(
            got,
            triples(&[
                ("step", ".replay", "c::graph::Graph::replay"),
                ("step", ".replay", "c::graph::Recorded::replay"),
                ("batch", ".replay", "c::graph::Graph::replay"),
                // A type nobody declares: unknown, so both `replay`s, and the call is ambiguous.
                ("unknown", ".replay", "ambiguous"),
            ])
        );
    }

    /// A type or trait resolved to its definition binds only its own contracts: the engine's own
    /// `CudaBackend` and `Backend`, named like another crate's contracted ones, bind nothing; the
    /// contracted ones under a rename, a type alias or a bound written by its path bind theirs.
    #[test]
    fn a_type_resolved_to_its_definition_binds_only_its_own_contracts() {
        let kernels = "pub struct CudaBackend;\nimpl CudaBackend {\n    #[reuse::contract(writes(c[s], skip = -1))]\n    pub fn reshape(&self, c: &mut [u8], s: &[i64]) {}\n}\npub trait Backend {\n    #[reuse::contract(writes(c[s], skip = -1))]\n    fn write_kv(&self, c: &mut [u8], s: &[i64]);\n}\npub mod traits { pub use crate::Backend as KvBackend; }\n";
        let wrap = "pub struct CudaBackend;\nimpl CudaBackend { pub fn reshape(&self, c: &mut [u8], s: &[i64]) {} }\npub trait Backend { fn write_kv(&self, c: &mut [u8], s: &[i64]); }\n";
        let own = "use crate::wrap::{Backend, CudaBackend};\nfn own(b: &CudaBackend, c: &mut [u8]) { b.reshape(c, &[0]); }\nfn own_bound<B: Backend>(b: &B, c: &mut [u8]) { b.write_kv(c, &[0]); }\nfn own_dyn(b: &dyn Backend, c: &mut [u8]) { b.write_kv(c, &[0]); }\n";
        let renamed = "use kernels::CudaBackend as Cuda;\nuse kernels::Backend as KvB;\npub type Be = kernels::CudaBackend;\nstruct H { b: Cuda }\nfn by_rename(b: &Cuda, c: &mut [u8]) { b.reshape(c, &[0]); }\nfn by_alias(b: &Be, c: &mut [u8]) { b.reshape(c, &[0]); }\nfn by_field(h: &H, c: &mut [u8]) { h.b.reshape(c, &[0]); }\nfn by_bound<B: KvB>(b: &B, c: &mut [u8]) { b.write_kv(c, &[0]); }\nfn by_path<B: kernels::traits::KvBackend>(b: &B, c: &mut [u8]) { b.write_kv(c, &[0]); }\n";
        let files = [("kernels", kernels), ("engine", "mod wrap;\nmod own;\nmod renamed;\n"), ("engine::wrap", wrap), ("engine::own", own), ("engine::renamed", renamed)];
        let got: Vec<(String, String, String)> = [resolutions(&files, "engine::own"), resolutions(&files, "engine::renamed")].concat();
        assert_eq!(
            got,
            triples(&[
                ("own", ".reshape", "-"),
                ("own_bound", ".write_kv", "-"),
                ("own_dyn", ".write_kv", "-"),
                ("by_rename", ".reshape", "kernels::CudaBackend::reshape"),
                ("by_alias", ".reshape", "kernels::CudaBackend::reshape"),
                ("by_field", ".reshape", "kernels::CudaBackend::reshape"),
                ("by_bound", ".write_kv", "kernels::Backend::write_kv"),
                ("by_path", ".write_kv", "kernels::Backend::write_kv"),
            ])
        );
    }

    /// A module of the module named like a crate (`mod kernels` beside `kernels::write(..)`) is
    /// where the path starts, as rustc reads it; `::kernels::write` is the crate's. A function
    /// defined in a block of the body shadows an imported one of its name in that block only.
    #[test]
    fn a_local_module_or_a_body_function_shadows_a_crate_or_an_import_of_its_name() {
        let kernels = "#[reuse::contract(writes(c[s], skip = -1))]\npub fn write(c: &mut [u8], s: &[i64]) {}\n";
        let engine = "mod kernels { pub fn write(c: &mut [u8], s: &[i64]) {} }\nmod user;\nfn local(c: &mut [u8]) { kernels::write(c, &[0]); }\nfn global(c: &mut [u8]) { ::kernels::write(c, &[0]); crate::kernels::write(c, &[0]); }\n";
        let user = "use kernels::write;\nfn crate_path(c: &mut [u8]) { kernels::write(c, &[0]); }\nfn body(c: &mut [u8]) { { fn write(c: &mut [u8], s: &[i64]) {} write(c, &[0]); } write(c, &[0]); }\n";
        let files = [("kernels", kernels), ("engine", engine), ("engine::user", user)];
        let got = [resolutions(&files, "engine"), resolutions(&files, "engine::user")].concat();
        assert_eq!(
            got,
            triples(&[
                ("local", "kernels::write", "-"),
                ("global", "kernels::write", "kernels::write"),
                ("global", "crate::kernels::write", "-"),
                ("crate_path", "kernels::write", "kernels::write"),
                ("body", "write", "-"),
                ("body", "write", "kernels::write"),
            ])
        );
    }

    /// A parameter or a local that is called (a closure, a function pointer) shadows every item
    /// of its name: `from(re)` in `fn parse<F: Fn(&str) -> T>(s: &str, from: F)` is not the
    /// glob-imported `from` (num-complex's `parse_complex`).
    #[test]
    fn a_called_parameter_or_local_is_not_an_item() {
        let root = "mod zz;\nuse zz::*;\nfn parse<F: Fn(&mut [u8], &[i64])>(b: &mut [u8], from: F) { from(b, &[0]); let new = |a: &mut [u8], i: &[i64]| {}; new(b, &[0]); }\nfn g(b: &mut [u8]) { from(b, &[0]); }\n";
        let got = resolutions(&[("c", root), ("c::zz", CONTRACTS)], "c");
        assert_eq!(got, triples(&[("parse", "from", "-"), ("parse", "new", "-"), ("g", "from", "c::zz::from")]));
    }

    #[test]
    fn a_glob_import_is_shadowed_by_a_local_fn_and_by_a_named_import() {
        let root = "mod zz;\nuse zz::*;\nuse other::from;\nfn new(a: &mut [u8], i: &[i64]) {}\nfn f(b: &mut [u8]) { new(b, &[0]); from(b, &[0]); zz::new(b, &[0]); crate::zz::from(b, &[0]); }\n";
        let got = resolutions(&[("c", root), ("c::zz", CONTRACTS)], "c");
        assert_eq!(
            got,
            triples(&[("f", "new", "-"), ("f", "from", "-"), ("f", "zz::new", "c::zz::new"), ("f", "crate::zz::from", "c::zz::from")])
        );
        // Without them, the glob brings both.
        let root = "mod zz;\nuse zz::*;\nfn f(b: &mut [u8]) { new(b, &[0]); from(b, &[0]); }\n";
        let got = resolutions(&[("c", root), ("c::zz", CONTRACTS)], "c");
        assert_eq!(got, triples(&[("f", "new", "c::zz::new"), ("f", "from", "c::zz::from")]));
    }

    #[test]
    fn a_glob_in_the_parent_reaches_a_child_module_only_through_use_super_or_use_crate() {
        let root = "mod zz;\nmod child;\nmod other;\nuse zz::*;\nmod inline {\n    fn f(b: &mut [u8]) { new(b, &[0]); }\n}\nmod inline_super {\n    use super::*;\n    fn f(b: &mut [u8]) { new(b, &[0]); }\n}\n";
        let child = "use super::*;\nfn f(b: &mut [u8]) { new(b, &[0]); crate::from(b, &[0]); super::new(b, &[0]); }\n";
        let other = "fn f(b: &mut [u8]) { new(b, &[0]); }\n";
        let by_crate = "use crate::*;\nfn new(a: &mut [u8], i: &[i64]) {}\nfn f(b: &mut [u8]) { new(b, &[0]); from(b, &[0]); }\n";
        let files = [("c", root), ("c::zz", CONTRACTS), ("c::child", child), ("c::other", other), ("c::by_crate", by_crate)];
        assert_eq!(resolutions(&files, "c"), triples(&[("f", "new", "-"), ("f", "new", "c::zz::new")]));
        assert_eq!(
            resolutions(&files, "c::child"),
            triples(&[("f", "new", "c::zz::new"), ("f", "crate::from", "c::zz::from"), ("f", "super::new", "c::zz::new")])
        );
        assert_eq!(resolutions(&files, "c::other"), triples(&[("f", "new", "-")]));
        // `use crate::*` brings the root's glob, and the module's own `new` shadows it.
        assert_eq!(resolutions(&files, "c::by_crate"), triples(&[("f", "new", "-"), ("f", "from", "c::zz::from")]));
    }

    #[test]
    fn the_root_s_own_item_shadows_its_glob_for_a_child_s_use_super() {
        let root = "mod zz;\nmod child;\nuse zz::*;\nfn new(a: &mut [u8], i: &[i64]) {}\n";
        let child = "use super::*;\nfn f(b: &mut [u8]) { new(b, &[0]); from(b, &[0]); }\n";
        let files = [("c", root), ("c::zz", CONTRACTS), ("c::child", child)];
        assert_eq!(resolutions(&files, "c::child"), triples(&[("f", "new", "-"), ("f", "from", "c::zz::from")]));
    }

    #[test]
    fn a_glob_of_a_module_that_re_exports_reaches_the_definition() {
        let kv = "pub mod ops;\npub use ops::new as cache_kv;\npub use ops::*;\n";
        let engine = "use kv::*;\nfn f(b: &mut [u8]) { cache_kv(b, &[0]); from(b, &[0]); }\n";
        let files = [("kv", kv), ("kv::ops", CONTRACTS), ("engine", engine)];
        assert_eq!(resolutions(&files, "engine"), triples(&[("f", "cache_kv", "kv::ops::new"), ("f", "from", "kv::ops::from")]));
    }

    #[test]
    fn methods_on_receivers_of_unknown_type_are_never_free_functions() {
        let root = "mod zz;\nuse zz::*;\nfn f(b: &mut [u8], x: X) { x.new(b, &[0]); thing().from(b, &[0]); }\n";
        assert_eq!(resolutions(&[("c", root), ("c::zz", CONTRACTS)], "c"), triples(&[("f", ".new", "-"), ("f", ".from", "-"), ("f", "thing", "-")]));
    }

    #[test]
    fn a_path_through_a_module_is_not_a_same_named_function_elsewhere() {
        // `util` has no contracted `new`: `util::new` is not `zz::new`, nor another crate's.
        let root = "mod zz;\nmod util;\nfn f(b: &mut [u8]) { util::new(b, &[0]); crate::util::from(b, &[0]); zz::new(b, &[0]); }\n";
        let files = [("c", root), ("c::zz", CONTRACTS), ("c::util", "pub fn new(a: &mut [u8], i: &[i64]) {}\n"), ("d::util", CONTRACTS)];
        assert_eq!(resolutions(&files, "c"), triples(&[("f", "util::new", "-"), ("f", "crate::util::from", "-"), ("f", "zz::new", "c::zz::new")]));
    }

    #[test]
    fn a_renamed_re_export_in_an_inline_module_reaches_the_definition() {
        let root = "mod zz;\npub mod ops {\n    pub use super::zz::new as g;\n    pub use crate::zz::from as h;\n    pub use self::inner::*;\n    pub mod inner {\n        pub use crate::zz::new as k;\n    }\n}\nmod other {\n    pub fn g(a: &mut [u8], i: &[i64]) {}\n}\nfn f(b: &mut [u8]) { ops::g(b, &[0]); ops::h(b, &[0]); ops::k(b, &[0]); other::g(b, &[0]); g(b, &[0]); }\n";
        let files = [("c", root), ("c::zz", CONTRACTS), ("d", "fn f(b: &mut [u8]) { c::ops::g(b, &[0]); c::ops::inner::k(b, &[0]); }\n")];
        // `other::g` is a same-named function that is no kernel; a plain `g` names nothing here.
        assert_eq!(
            resolutions(&files, "c"),
            triples(&[("f", "ops::g", "c::zz::new"), ("f", "ops::h", "c::zz::from"), ("f", "ops::k", "c::zz::new"), ("f", "other::g", "-"), ("f", "g", "-")])
        );
        assert_eq!(resolutions(&files, "d"), triples(&[("f", "c::ops::g", "c::zz::new"), ("f", "c::ops::inner::k", "c::zz::new")]));
    }

    #[test]
    fn an_inline_module_s_own_item_shadows_its_glob() {
        let root = "mod zz;\npub mod ops {\n    pub use crate::zz::*;\n    pub fn new(a: &mut [u8], i: &[i64]) {}\n}\nfn f(b: &mut [u8]) { ops::new(b, &[0]); ops::from(b, &[0]); }\n";
        assert_eq!(resolutions(&[("c", root), ("c::zz", CONTRACTS)], "c"), triples(&[("f", "ops::new", "-"), ("f", "ops::from", "c::zz::from")]));
    }

    #[test]
    fn a_private_import_of_an_inline_module_names_nothing_in_its_parent() {
        let root = "mod zz;\nmod inner {\n    use crate::zz::new;\n    mod deeper {\n        fn f(b: &mut [u8]) { super::new(b, &[0]); }\n    }\n}\nfn f(b: &mut [u8]) { inner::new(b, &[0]); }\n";
        let files = [("c", root), ("c::zz", CONTRACTS)];
        // Below the module it is in, the import is seen (`super::new`); above, not.
        assert_eq!(resolutions(&files, "c"), triples(&[("f", "super::new", "c::zz::new"), ("f", "inner::new", "-")]));
    }

    #[test]
    fn nested_groups_with_renames_reach_the_definition() {
        let files = [
            ("c", "pub mod m;\npub use m::{a as b, zz::{from, new as g}};\n"),
            ("c::m", "pub mod zz;\npub fn a() {}\n"),
            ("c::m::zz", CONTRACTS),
            ("d", "fn f(x: &mut [u8]) { c::from(x, &[0]); c::g(x, &[0]); c::new(x, &[0]); }\n"),
        ];
        // `new` is re-exported as `g` only: `c::new` names nothing.
        assert_eq!(resolutions(&files, "d"), triples(&[("f", "c::from", "c::m::zz::from"), ("f", "c::g", "c::m::zz::new"), ("f", "c::new", "-")]));
    }

    #[test]
    fn an_extern_crate_rename_names_the_crate() {
        let files = [
            ("kv", CONTRACTS),
            ("other", "pub fn new(a: &mut [u8], i: &[i64]) {}\n"),
            ("d", "extern crate kv as kvc;\nfn f(b: &mut [u8]) { kvc::new(b, &[0]); }\n"),
            ("e", "extern crate other as kvc;\nfn f(b: &mut [u8]) { kvc::new(b, &[0]); }\n"),
        ];
        assert_eq!(resolutions(&files, "d"), triples(&[("f", "kvc::new", "kv::new")]));
        // The same name for another crate, whose `new` has no contract.
        assert_eq!(resolutions(&files, "e"), triples(&[("f", "kvc::new", "-")]));
    }

    #[test]
    fn super_super_climbs_two_modules() {
        let files = [
            ("c", "mod zz;\nmod a;\n"),
            ("c::zz", CONTRACTS),
            ("c::a", "mod b;\n"),
            ("c::a::b", "use super::super::zz::new;\nfn f(b: &mut [u8]) { new(b, &[0]); super::super::zz::from(b, &[0]); super::zz::from(b, &[0]); }\n"),
        ];
        // `super::zz` from `c::a::b` is `c::a::zz`, which does not exist.
        assert_eq!(
            resolutions(&files, "c::a::b"),
            triples(&[("f", "new", "c::zz::new"), ("f", "super::super::zz::from", "c::zz::from"), ("f", "super::zz::from", "-")])
        );
    }

    #[test]
    fn a_re_export_chain_across_three_crates_reaches_the_definition() {
        let files = [
            ("a", CONTRACTS),
            ("b", "pub use a::new as make;\npub fn from(x: &mut [u8], i: &[i64]) {}\n"),
            ("c", "pub use b::make;\npub mod k { pub use b::*; }\n"),
            ("d", "fn f(x: &mut [u8]) { c::make(x, &[0]); c::k::make(x, &[0]); c::k::from(x, &[0]); }\n"),
        ];
        // `b::from` is `b`'s own function, not `a::from`: `b`'s glob importer gets `b`'s.
        assert_eq!(resolutions(&files, "d"), triples(&[("f", "c::make", "a::new"), ("f", "c::k::make", "a::new"), ("f", "c::k::from", "-")]));
    }
}

