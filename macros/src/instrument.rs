//! Runtime instrumentation (feature `runtime`): the code `#[reuse::contract]` and `#[reuse::effect]`
//! expand to when the shim is on. The checks themselves live in `reuse-runtime`
//! (`::reuse::runtime::__private`); this module only wires the contract's places to them.
//!
//! The original body runs unchanged inside a closure called once (so that `return` and `?` keep
//! their meaning and a returned borrow may escape), between a *before* phase (index scans,
//! fingerprints, cache observation, input extents) and an *after* phase (fingerprints again, cache
//! observation, alias checks, the effect trace). The signature is kept; the function gets
//! `#[track_caller]` so that a violation names the caller's line.
//!
//! Borrowing: a place is read after the call only where that cannot conflict with the body or the
//! returned value (see `After`): `&mut` parameters are re-bound to a fresh reborrow for the body, so
//! the body may even move them, and the original reference is read after.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use reuse_rules::contract::{AliasOut, Bound, ClauseKind, Contract, Place, PlaceRoot, RegionIndex, Sentinel};
use syn::{FnArg, Pat, ReturnType, Type};

use crate::expand::AnnotatedFn;

/// An item that can carry a body: a function, a method, or a trait method with a default body.
enum Item {
    Fn(syn::ItemFn),
    Trait(syn::TraitItemFn),
}

impl Item {
    fn parse(item: &TokenStream) -> Option<Item> {
        if let Ok(f) = syn::parse2::<syn::ItemFn>(item.clone()) {
            return Some(Item::Fn(f));
        }
        match syn::parse2::<syn::TraitItemFn>(item.clone()) {
            Ok(f) if f.default.is_some() => Some(Item::Trait(f)),
            _ => None,
        }
    }
    fn parts(&mut self) -> (&mut Vec<syn::Attribute>, &syn::Signature, &mut syn::Block) {
        match self {
            Item::Fn(f) => (&mut f.attrs, &f.sig, &mut f.block),
            Item::Trait(f) => (&mut f.attrs, &f.sig, f.default.as_mut().expect("checked in parse")),
        }
    }
}

impl ToTokens for Item {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Item::Fn(f) => f.to_tokens(tokens),
            Item::Trait(f) => f.to_tokens(tokens),
        }
    }
}

fn hyg(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::mixed_site())
}

/// The runtime API path.
fn rt() -> TokenStream {
    quote!(::reuse::runtime::__private)
}

/// Whether the signature can take a wrapper at all.
fn instrumentable(sig: &syn::Signature) -> bool {
    sig.asyncness.is_none()
        && sig.constness.is_none()
        && sig.variadic.is_none()
        && !matches!(&sig.output, ReturnType::Type(_, t) if matches!(**t, Type::Never(_)))
}

fn rust_abi(sig: &syn::Signature) -> bool {
    match &sig.abi {
        None => true,
        Some(abi) => abi.name.as_ref().is_some_and(|n| n.value() == "Rust"),
    }
}

fn add_track_caller(attrs: &mut Vec<syn::Attribute>, sig: &syn::Signature) {
    // `main` may not be `#[track_caller]`; a method named `main` may.
    let is_main = sig.ident == "main" && sig.receiver().is_none();
    if rust_abi(sig) && !is_main && !attrs.iter().any(|a| a.path().is_ident("track_caller")) {
        attrs.push(syn::parse_quote!(#[track_caller]));
    }
}

// ---------------------------------------------------------------------------------------------
// The signature, as the wrapper needs to see it.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `&T`
    Shared,
    /// `&mut T`
    Mut,
    /// Anything else: moved (or copied) into the body.
    Value,
}

fn kind_of(ty: &Type) -> Kind {
    match ty {
        Type::Reference(r) if r.mutability.is_some() => Kind::Mut,
        Type::Reference(_) => Kind::Shared,
        Type::Paren(p) => kind_of(&p.elem),
        Type::Group(g) => kind_of(&g.elem),
        _ => Kind::Value,
    }
}

fn is_scalar(ty: &Type) -> bool {
    const SCALARS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool",
        "char",
    ];
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            p.path.get_ident().is_some_and(|i| SCALARS.contains(&i.to_string().as_str()))
        }
        Type::Paren(p) => is_scalar(&p.elem),
        Type::Group(g) => is_scalar(&g.elem),
        _ => false,
    }
}

struct Param {
    ident: syn::Ident,
    mutable: bool,
    kind: Kind,
    scalar: bool,
}

struct Sig {
    /// The receiver's kind (`None`: a free function).
    receiver: Option<Kind>,
    params: Vec<Param>,
    /// Some parameter is a pattern, not a plain name.
    has_patterns: bool,
    ret: Ret,
}

struct Ret {
    ty: Option<Type>,
    /// The type holds a reference or a lifetime.
    borrows: bool,
    /// The type holds `mut` (a `&mut` borrow).
    has_mut: bool,
    /// The type holds a lifetime that is not a reference's (`Ref<'_, T>`, `IterMut<'a, T>`): a borrow
    /// of unknown kind.
    opaque_borrow: bool,
    has_impl: bool,
    tuple_arity: Option<usize>,
}

fn scan_tokens(tokens: TokenStream, ret: &mut Ret) {
    let mut after_ampersand = false;
    for tt in tokens {
        let ampersand = matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == '&');
        match &tt {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '&' => ret.borrows = true,
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '\'' => {
                ret.borrows = true;
                ret.opaque_borrow |= !after_ampersand;
            }
            proc_macro2::TokenTree::Ident(i) if i == "mut" => ret.has_mut = true,
            proc_macro2::TokenTree::Ident(i) if i == "impl" => ret.has_impl = true,
            proc_macro2::TokenTree::Group(g) => scan_tokens(g.stream(), ret),
            _ => {}
        }
        after_ampersand = ampersand;
    }
}

impl Sig {
    fn of(sig: &syn::Signature) -> Sig {
        let mut receiver = None;
        let mut params = Vec::new();
        let mut has_patterns = false;
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(r) => {
                    receiver = Some(match (&r.reference, r.mutability) {
                        (Some(_), Some(_)) => Kind::Mut,
                        (Some(_), None) => Kind::Shared,
                        // `self: &Self`, `self: &mut Self` are written with a colon.
                        (None, _) if r.colon_token.is_some() => kind_of(&r.ty),
                        (None, _) => Kind::Value,
                    })
                }
                FnArg::Typed(pt) => match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => params.push(Param {
                        ident: pi.ident.clone(),
                        mutable: pi.mutability.is_some(),
                        kind: kind_of(&pt.ty),
                        scalar: is_scalar(&pt.ty),
                    }),
                    _ => has_patterns = true,
                },
            }
        }
        let mut ret =
            Ret { ty: None, borrows: false, has_mut: false, opaque_borrow: false, has_impl: false, tuple_arity: None };
        if let ReturnType::Type(_, ty) = &sig.output {
            let unit = matches!(&**ty, Type::Tuple(t) if t.elems.is_empty());
            if !unit {
                scan_tokens(ty.to_token_stream(), &mut ret);
                if let Type::Tuple(t) = &**ty {
                    ret.tuple_arity = Some(t.elems.len());
                }
                ret.ty = Some((**ty).clone());
            }
        }
        Sig { receiver, params, has_patterns, ret }
    }

    fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.ident == name)
    }
}

/// How a place can be read after the body ran.
#[derive(Clone, PartialEq, Eq)]
enum After {
    /// As written: a shared reference, a static, or `&mut self` when nothing borrowed escapes.
    Direct,
    /// Through the original `&mut` parameter, the body having had a reborrow of it.
    Shadow,
    /// Through a raw pointer taken before the call (the return holds a shared borrow).
    Raw,
    /// Not at all.
    Never,
}

struct Plan<'a> {
    sig: &'a Sig,
    /// `&mut` parameters re-bound to a reborrow for the body.
    shadowed: Vec<syn::Ident>,
}

impl Plan<'_> {
    fn root_after(&self, place: &Place) -> After {
        let borrowing = self.sig.ret.borrows || self.sig.ret.has_impl;
        let raw_ok = !self.sig.ret.has_mut && !self.sig.ret.has_impl && !self.sig.ret.opaque_borrow;
        let via_mut = || {
            if !borrowing {
                After::Shadow
            } else if raw_ok {
                After::Raw
            } else {
                After::Never
            }
        };
        match place.root {
            PlaceRoot::Static => After::Direct,
            PlaceRoot::SelfField => match self.sig.receiver {
                Some(Kind::Shared) => After::Direct,
                Some(Kind::Mut) => match via_mut() {
                    After::Shadow => After::Direct,
                    other => other,
                },
                _ => After::Never,
            },
            PlaceRoot::Param => match self.sig.param(place.root_name()).map(|p| p.kind) {
                Some(Kind::Shared) => After::Direct,
                Some(Kind::Mut) => via_mut(),
                _ => After::Never,
            },
        }
    }
}

fn seg_ident(text: &str, span: Span) -> TokenStream {
    if text == "self" {
        quote::quote_spanned!(span=> self)
    } else {
        syn::Ident::new(text, span).into_token_stream()
    }
}

/// The place as an expression: `key_cache`, `self.plans`, `cfg.blocks`, `kv::NULL_BLOCK`.
fn place_expr(place: &Place) -> TokenStream {
    let segs: Vec<TokenStream> = place.segments.iter().map(|s| seg_ident(&s.text, s.span)).collect();
    if place.root == PlaceRoot::Static {
        quote!(#(#segs)::*)
    } else {
        quote!(#(#segs).*)
    }
}

/// The place with its root replaced by another expression.
fn place_with_root(place: &Place, root: TokenStream) -> TokenStream {
    let rest: Vec<TokenStream> = place.segments[1..].iter().map(|s| seg_ident(&s.text, s.span)).collect();
    quote!(#root #(. #rest)*)
}

fn orig_ident(param: &str) -> syn::Ident {
    hyg(&format!("__reuse_orig_{param}"))
}

/// The shadowed parameter (a `&mut T`), through the saved original: `orig`, or `(*orig)` for a
/// `mut` binding (saved as `&mut param`, so that the binding's `mut` stays used).
fn orig_root(sig: &Sig, param: &str) -> TokenStream {
    let orig = orig_ident(param);
    if sig.param(param).is_some_and(|p| p.mutable) {
        quote!((*#orig))
    } else {
        quote!(#orig)
    }
}

fn ptr_ident(place: &Place) -> syn::Ident {
    let text: String = place.to_string().chars().map(|c| if c.is_alphanumeric() { c } else { '_' }).collect();
    hyg(&format!("__reuse_ptr_{text}"))
}

fn bound_tokens(b: &Bound) -> TokenStream {
    let rt = rt();
    match b {
        Bound::Int { value, .. } => quote!(#value),
        Bound::Const(p) => {
            let e = place_expr(p);
            quote!(#rt::int(#e))
        }
    }
}

fn region_tokens(index: &RegionIndex) -> TokenStream {
    let rt = rt();
    match index {
        RegionIndex::At(b) => {
            let b = bound_tokens(b);
            quote!(#rt::RegionSpec::at(#b))
        }
        RegionIndex::Range { start, end, inclusive, .. } => {
            let opt = |b: &Option<Bound>| match b {
                Some(b) => {
                    let t = bound_tokens(b);
                    quote!(::core::option::Option::Some(#t))
                }
                None => quote!(::core::option::Option::None),
            };
            let (s, e) = (opt(start), opt(end));
            quote!(#rt::RegionSpec::range(#s, #e, #inclusive))
        }
    }
}

/// The identities of a clause's sanctioned writers (`except(..)`): `type_name_of_val` of each
/// function item, resolved where the contract is written (see `reuse-runtime`'s `sanction`).
fn except_names(clause: &reuse_rules::contract::Clause) -> TokenStream {
    let names = clause.except().iter().map(|f| {
        let segs = f.segments.iter().map(|s| seg_ident(&s.text, s.span));
        quote!(::core::any::type_name_of_val(&#(#segs)::*))
    });
    quote!([#(#names),*])
}

/// The tokens with every span set to `span` (a pattern re-parsed from its text: errors in it point
/// at the pattern in the attribute).
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

fn probe(expr: TokenStream) -> TokenStream {
    let rt = rt();
    quote!((&#rt::Probe(#expr)))
}

// ---------------------------------------------------------------------------------------------

pub(crate) fn instrument_contract(contract: &Contract, func: AnnotatedFn, item: TokenStream) -> TokenStream {
    // A trait method without a default body: nothing runs here to check.
    if func.body.is_none() {
        return item;
    }
    let Some(mut parsed) = Item::parse(&item) else { return item };
    let (attrs, sig, block) = parsed.parts();
    if !instrumentable(sig) {
        return item;
    }
    let info = Sig::of(sig);
    let body = block.clone();
    let new_block = wrapper(contract, sig, &info, &body);
    add_track_caller(attrs, sig);
    *block = syn::parse2(new_block).expect("the generated wrapper is a block");
    parsed.into_token_stream()
}

fn wrapper(contract: &Contract, sig: &syn::Signature, info: &Sig, body: &syn::Block) -> TokenStream {
    let rt = rt();
    let call = hyg("__reuse_call");
    let active = hyg("__reuse_active");
    let out = hyg("__reuse_out");
    let fn_name = sig.ident.to_string();

    let clauses: Vec<String> = contract.clauses.iter().map(|c| c.to_string()).collect();
    let clause_of =
        |kind: &ClauseKind| contract.clauses.iter().position(|c| std::ptr::eq(&c.kind, kind)).unwrap_or(usize::MAX);
    let (preserves, preserves_clause) = match contract.preserves() {
        Some((c, effects)) => (effects.iter().map(|e| e.name().to_string()).collect::<Vec<_>>(), clause_of(&c.kind)),
        None => (Vec::new(), usize::MAX),
    };
    let reuses = contract.reuses().next();
    let frame = !preserves.is_empty() || reuses.is_some();
    let fresh_info = match contract.fresh() {
        Some((c, _, after)) => {
            let (name, ci) = (after.name(), clause_of(&c.kind));
            quote!(::core::option::Option::Some((#name, #ci)))
        }
        None => quote!(::core::option::Option::None),
    };

    // Which `&mut` parameters the body gets a reborrow of, so that they can be read after it.
    let recompute = reuses.is_some_and(|(_, place, _)| hit_mismatch_eligible(info, place));
    let mut plan = Plan { sig: info, shadowed: Vec::new() };
    let mut needed_after: Vec<&Place> = contract.forbidden_regions().map(|(_, r)| &r.place).collect();
    if let Some((_, place, _)) = reuses {
        needed_after.push(place);
    }
    for p in &info.params {
        let needed = needed_after.iter().any(|pl| pl.root == PlaceRoot::Param && p.ident == pl.root_name());
        if p.kind == Kind::Mut && (needed || recompute) && !info.ret.borrows && !info.ret.has_impl {
            plan.shadowed.push(p.ident.clone());
        }
    }

    // An expression `&T` for a place after the call, or `None` where it cannot be read.
    let after_ref = |place: &Place| -> Option<TokenStream> {
        match plan.root_after(place) {
            After::Direct => {
                let e = place_expr(place);
                Some(quote!(&#e))
            }
            After::Shadow => {
                let e = place_with_root(place, orig_root(info, place.root_name()));
                Some(quote!(&#e))
            }
            After::Raw => {
                let ptr = ptr_ident(place);
                // SAFETY: the pointer was taken from a place behind a reference that outlives this
                // call; the body has returned, and what it returned holds only shared borrows, so
                // reading the place now aliases no live unique borrow.
                Some(quote!(unsafe { &*#ptr }))
            }
            After::Never => None,
        }
    };

    let mut before = TokenStream::new();
    let mut after = TokenStream::new();
    let mut raw_ptrs = TokenStream::new();
    let mut raw_taken: Vec<String> = Vec::new();
    let mut take_raw = |place: &Place, raw_ptrs: &mut TokenStream| {
        if plan.root_after(place) != After::Raw || raw_taken.contains(&place.to_string()) {
            return;
        }
        raw_taken.push(place.to_string());
        let ptr = ptr_ident(place);
        let e = if place.segments.len() == 1 && place.root == PlaceRoot::Param {
            let root = place_expr(place);
            quote!(*#root)
        } else {
            place_expr(place)
        };
        raw_ptrs.extend(quote!(let #ptr = ::core::ptr::addr_of!(#e);));
    };

    // use_after_donate: a handle an earlier contracted call donated, passed to this one. Only
    // handles with an identity (`Storage::handle_id`) take part; nothing is read until a handle
    // has been donated somewhere.
    let mut donated = TokenStream::new();
    if matches!(info.receiver, Some(Kind::Shared | Kind::Mut)) {
        let ps = probe(quote!(self));
        donated.extend(quote!(#call.check_donated("self", #ps.__handle());));
    }
    for p in &info.params {
        let id = &p.ident;
        let (pp, name) = (probe(quote!(&#id)), id.to_string());
        donated.extend(quote!(#call.check_donated(#name, #pp.__handle());));
    }
    if !donated.is_empty() {
        before.extend(quote!(if #active && #rt::any_donated() { #donated }));
    }

    // writes(P[IDX], skip = S): scan IDX before the call.
    for (c, target, skip) in contract.writes() {
        let ci = clause_of(&c.kind);
        let p = place_expr(&target.place);
        let idx = place_expr(&target.index);
        let sentinel = match skip {
            Some(Sentinel::Int { value, .. }) => quote!(::core::option::Option::Some(#value)),
            Some(Sentinel::Const(path)) => {
                let e = place_expr(path);
                quote!(::core::option::Option::Some(#rt::int(#e)))
            }
            None => quote!(::core::option::Option::None),
        };
        let target_text = target.place.to_string();
        let regions: Vec<_> =
            contract.forbidden_regions().filter(|(_, r)| r.place.to_string() == target_text).collect();
        // A region whose sanctioned writer is running is no null position for this call.
        let specs: Vec<TokenStream> = regions
            .iter()
            .map(|(c, r)| {
                let spec = region_tokens(&r.index);
                if c.except().is_empty() {
                    spec
                } else {
                    let names = except_names(c);
                    quote!(#spec.unless(#rt::sanctioned_running(&#names)))
                }
            })
            .collect();
        let texts: Vec<String> = regions.iter().map(|(_, r)| format!("{}[{}]", r.place, r.index)).collect();
        let index_text = target.index.to_string();
        let (pp, ip) = (probe(quote!(&#p)), probe(quote!(&#idx)));
        before.extend(quote! {
            if #active {
                let __reuse_scan = #rt::IndexScan::new(#sentinel, #pp.__element_count(), &[#(#specs),*]);
                #call.check_indices(#ci, #index_text, #target_text, &[#(#texts),*], #ip.__scan(__reuse_scan));
            }
        });
    }

    // forbids_write(P[C], except(..)): a fingerprint before and after; a change made while a
    // sanctioned writer ran is none.
    let sanction_mark = hyg("__reuse_sanction_mark");
    if contract.sanctioned_writers().next().is_some() {
        before.extend(quote!(let #sanction_mark = #rt::sanction_mark();));
    }
    for (k, (c, region)) in contract.forbidden_regions().enumerate() {
        let Some(after_p) = after_ref(&region.place) else { continue };
        take_raw(&region.place, &mut raw_ptrs);
        let ci = clause_of(&c.kind);
        let fp = format_ident!("__reuse_fp_{}", k, span = Span::mixed_site());
        let spec = region_tokens(&region.index);
        let p = place_expr(&region.place);
        let text = format!("{}[{}]", region.place, region.index);
        let (pb, pa) = (probe(quote!(&#p)), probe(after_p));
        before.extend(quote! {
            let #fp = if #active { #pb.__region_fp(&#spec) } else { ::core::option::Option::None };
        });
        let (names, since) =
            if c.except().is_empty() { (quote!([]), quote!(0)) } else { (except_names(c), quote!(#sanction_mark)) };
        after.extend(quote! {
            #call.check_region(#ci, #text, #fp, #pa.__region_fp(&#spec), &#names, #since);
        });
    }

    // reuses(PLACE, key(K, ...)): observe the cache before and after; record the components.
    if let Some((c, place, key)) = reuses {
        let ci = clause_of(&c.kind);
        let p = place_expr(place);
        let pp = probe(quote!(&#p));
        let hashes: Vec<TokenStream> = key
            .iter()
            .map(|k| {
                let e = place_expr(k);
                let pk = probe(quote!(&#e));
                quote!(#pk.__hash())
            })
            .collect();
        let debugs: Vec<TokenStream> = key
            .iter()
            .map(|k| {
                let e = place_expr(k);
                let pk = probe(quote!(&#e));
                let name = k.to_string();
                quote!((#name, #pk.__debug()))
            })
            .collect();
        before.extend(quote! {
            if #active && #call.cache_before(#ci, #pp.__cache_obs(), &[#(#hashes),*]) {
                #call.component_values(::std::vec![#(#debugs),*]);
            }
        });
        take_raw(place, &mut raw_ptrs);
        let sig_after = match after_ref(place) {
            Some(a) => {
                let pa = probe(a);
                quote!(#pa.__cache_sig())
            }
            None => quote!(::core::option::Option::None),
        };
        after.extend(quote!(#call.cache_after(#sig_after);));
    }

    // aliases(OUT = IN) and undeclared aliases, for a function that returns something.
    if info.ret.ty.is_some() {
        let mut inputs = Vec::new();
        let mut decls = TokenStream::new();
        let mut input = |name: String, expr: TokenStream, by_value: bool, decls: &mut TokenStream| {
            let id = hyg(&format!("__reuse_in_{}", inputs.len()));
            let pe = probe(quote!(&#expr));
            let ext = if by_value { quote!(#rt::handle_only(#pe.__extent())) } else { quote!(#pe.__extent()) };
            decls.extend(quote!(let #id = if #active { #ext } else { ::core::option::Option::None };));
            inputs.push((name, id));
        };
        if matches!(info.receiver, Some(Kind::Shared | Kind::Mut)) {
            input("self".into(), quote!(self), false, &mut decls);
        }
        for p in &info.params {
            let id = &p.ident;
            input(id.to_string(), quote!(#id), p.kind == Kind::Value, &mut decls);
        }
        let names: Vec<&String> = inputs.iter().map(|(n, _)| n).collect();
        let ids: Vec<&syn::Ident> = inputs.iter().map(|(_, i)| i).collect();
        let all_inputs = hyg("__reuse_inputs");
        let mut declared: Vec<String> = Vec::new();
        let mut alias_checks = TokenStream::new();
        for (k, (c, alias)) in contract.aliases().enumerate() {
            let ci = clause_of(&c.kind);
            let in_id = hyg(&format!("__reuse_alias_in_{k}"));
            let e = place_expr(&alias.input);
            let pe = probe(quote!(&#e));
            let in_handle = hyg(&format!("__reuse_alias_handle_{k}"));
            decls.extend(quote! {
                let #in_id = if #active { #pe.__extent() } else { ::core::option::Option::None };
                let #in_handle = if #active { #pe.__handle() } else { ::core::option::Option::None };
            });
            let out_expr = output_expr(&out, &alias.output);
            let po = probe(quote!(&#out_expr));
            let (out_text, in_text) = (alias.output.to_string(), alias.input.to_string());
            declared.push(out_text.clone());
            alias_checks.extend(quote! {
                #call.check_alias(#ci, #out_text, #in_text, #po.__extent(), #in_id);
                #call.donate(#ci, #in_text, #in_handle, #po.__handle());
            });
        }
        let mut undeclared = Vec::new();
        if !declared.iter().any(|d| d == "return") {
            match info.ret.tuple_arity {
                Some(n) => {
                    for i in 0..n {
                        let text = format!("return.{i}");
                        if !declared.contains(&text) {
                            let idx = syn::Index::from(i);
                            undeclared.push((text, quote!(&#out.#idx)));
                        }
                    }
                }
                None if declared.is_empty() => undeclared.push(("return".to_string(), quote!(&#out))),
                None => {}
            }
        }
        before.extend(decls);
        after.extend(alias_checks);
        if !undeclared.is_empty() && !inputs.is_empty() {
            after.extend(quote!(let #all_inputs = [#((#names, #ids)),*];));
            for (text, e) in undeclared {
                let po = probe(e);
                after.extend(quote!(#call.check_undeclared(#text, #po.__extent(), &#all_inputs);));
            }
        }
    }

    // The body, with reborrows of the shadowed parameters.
    let shadow = |plan: &Plan| -> TokenStream {
        let mut t = TokenStream::new();
        for ident in &plan.shadowed {
            let root = orig_root(info, &ident.to_string());
            let m = info.param(&ident.to_string()).filter(|p| p.mutable).map(|_| quote!(mut));
            t.extend(quote!(let #m #ident = &mut *#root;));
        }
        t
    };
    let origs: Vec<TokenStream> = plan
        .shadowed
        .iter()
        .map(|ident| {
            let orig = orig_ident(&ident.to_string());
            if info.param(&ident.to_string()).is_some_and(|p| p.mutable) {
                quote!(let #orig = &mut #ident;)
            } else {
                quote!(let #orig = #ident;)
            }
        })
        .collect();
    let closure = match &info.ret.ty {
        Some(ty) if !info.ret.has_impl => quote!(|| -> #ty #body),
        _ => quote!(|| #body),
    };
    let shadows = shadow(&plan);
    let run = quote! {
        let #out = {
            #shadows
            #rt::once(#closure)
        };
    };

    // Hit paths: an `Err(..)`, or a declining miss (the `miss` pattern; without one, with `reuses`,
    // `None`/`Ok(None)`), serves nothing and is held to neither `preserves` nor `fresh`.
    let outcome = if info.ret.ty.is_some() {
        let declines = match (contract.miss(), reuses) {
            (Some(m), _) => match m.pat() {
                Some(pat) => {
                    let pat = respan(pat.to_token_stream(), m.span);
                    quote!(::core::matches!(#out, #pat))
                }
                None => quote!(false),
            },
            (None, Some(_)) => quote!((&&#rt::Ret(&#out)).__declines()),
            (None, None) => quote!(false),
        };
        quote! {
            if #active {
                #call.returned(#rt::Outcome::of((&#rt::Ret(&#out)).__is_err(), #declines));
            }
        }
    } else {
        TokenStream::new()
    };

    // fresh(OUT, after = E): on a hit, OUT is storage E wrote or a copy of it.
    let fresh_check = match contract.fresh() {
        Some((_, output, _)) if info.ret.ty.is_some() => {
            let out_expr = output_expr(&out, output);
            let text = output.to_string();
            quote!(#call.check_fresh(#text, (&&&&#rt::Ret(&#out_expr)).__fresh_storage());)
        }
        _ => TokenStream::new(),
    };

    // hit_mismatch: recompute a sampled hit with the cache emptied.
    let mut mismatch = TokenStream::new();
    if let (true, Some((c, place, _))) = (recompute, reuses) {
        let ci = clause_of(&c.kind);
        let slot = match plan.root_after(place) {
            After::Shadow if place.segments.len() == 1 => {
                let root = orig_root(info, place.root_name());
                quote!(*#root)
            }
            After::Shadow => place_with_root(place, orig_root(info, place.root_name())),
            _ => place_expr(place),
        };
        let again = hyg("__reuse_again");
        let saved = hyg("__reuse_saved");
        mismatch = quote! {
            if #call.hit_mismatch_due() {
                if let ::core::option::Option::Some(#saved) = (&#rt::ProbeMut::new(&mut #slot)).__take_cache() {
                    let #again = {
                        #shadows
                        #rt::recompute(#closure)
                    };
                    #slot = #saved;
                    #call.check_hit(
                        #ci,
                        (&#rt::Pair(&#out, &#again)).__eq(),
                        (&#rt::Probe(&#out)).__debug(),
                        (&#rt::Probe(&#again)).__debug(),
                    );
                }
            }
        };
    }

    let clause_texts = clauses.iter();
    let preserves = preserves.iter();
    quote! {{
        #[allow(unused_imports)]
        use #rt::{
            FreshNone as _, FreshOk as _, FreshOkSome as _, FreshSome as _, FreshValue as _, NoCache as _,
            NoDebug as _, NoDecline as _, NoEq as _, NoErr as _, NoHash as _, NoIndices as _, NoStorage as _,
            NoTake as _, ViaCache as _, ViaDebug as _, ViaEq as _, ViaErr as _, ViaHash as _, ViaIndices as _,
            ViaNone as _, ViaOkNone as _, ViaStorage as _, ViaTake as _,
        };
        static __REUSE_CONTRACT: #rt::ContractInfo = #rt::ContractInfo::with_fresh(
            ::core::concat!(::core::module_path!(), "::", #fn_name),
            &[#(#clause_texts),*],
            &[#(#preserves),*],
            #preserves_clause,
            #fresh_info,
        );
        let mut #call = #rt::Call::enter(&__REUSE_CONTRACT, ::core::panic::Location::caller(), ::core::cfg!(test), #frame);
        let #active = #call.active();
        #before
        #raw_ptrs
        #(#origs)*
        #run
        #outcome
        if #active {
            #after
            #fresh_check
            #mismatch
        }
        #call.finish();
        #out
    }}
}

fn output_expr(out: &syn::Ident, output: &AliasOut) -> TokenStream {
    match output {
        AliasOut::Return { .. } => quote!(#out),
        AliasOut::ReturnIndex { index, .. } => {
            let i = syn::Index::from(*index as usize);
            quote!(#out.#i)
        }
        AliasOut::ReturnField { field, .. } => {
            let f = syn::Ident::new(&field.text, field.span);
            quote!(#out.#f)
        }
    }
}

/// Whether the body can be run a second time, with the cache emptied, for `hit_mismatch`.
fn hit_mismatch_eligible(info: &Sig, place: &Place) -> bool {
    let place_mut = match place.root {
        PlaceRoot::SelfField => info.receiver == Some(Kind::Mut),
        PlaceRoot::Param => info.param(place.root_name()).is_some_and(|p| p.kind == Kind::Mut),
        PlaceRoot::Static => false,
    };
    place_mut
        && !info.has_patterns
        && matches!(info.receiver, None | Some(Kind::Shared | Kind::Mut))
        && info.params.iter().all(|p| p.kind != Kind::Value || p.scalar)
        && info.ret.ty.is_some()
        && !info.ret.borrows
        && !info.ret.has_impl
}

/// `#[reuse::sanctioned]`: the body runs inside the function's sanctioned-writer scope, its
/// identity the path of an item nested in it (so that a method's includes its `impl` type).
pub(crate) fn instrument_sanctioned(func: AnnotatedFn, item: TokenStream) -> TokenStream {
    if func.body.is_none() {
        return item;
    }
    let Some(mut parsed) = Item::parse(&item) else { return item };
    let (_, sig, block) = parsed.parts();
    if sig.constness.is_some() || sig.asyncness.is_some() {
        return item;
    }
    let rt = rt();
    let marker = hyg("__reuse_sanctioned_here");
    let guard = hyg("__reuse_sanctioned");
    let stmts: Vec<syn::Stmt> = syn::parse_quote! {
        fn #marker() {}
        let #guard = #rt::enter_sanctioned(::core::any::type_name_of_val(&#marker));
    };
    block.stmts.splice(0..0, stmts);
    parsed.into_token_stream()
}

pub(crate) fn instrument_effect(func: AnnotatedFn, item: TokenStream) -> TokenStream {
    if func.body.is_none() {
        return item;
    }
    let Some(mut parsed) = Item::parse(&item) else { return item };
    let (_, sig, block) = parsed.parts();
    if sig.constness.is_some() {
        return item;
    }
    let rt = rt();
    let name = func.sig.ident.to_string();
    let unit = match &sig.output {
        ReturnType::Default => true,
        ReturnType::Type(_, t) => matches!(&**t, Type::Tuple(t) if t.elems.is_empty()),
    };
    let stmt: syn::Stmt = if unit && sig.asyncness.is_none() {
        syn::parse_quote!(if #rt::effect(#name, true) { return; })
    } else {
        syn::parse_quote!(#rt::effect(#name, false);)
    };
    let watched = watch_writes(sig, unit, &name, block);
    if let Some(watched) = watched {
        *block = watched;
    }
    block.stmts.insert(0, stmt);
    parsed.into_token_stream()
}

/// For `fresh(.., after = E)`: the body of effect E run so that, when a contracted call watches E
/// (`watching`), the storage E could write is reported once it returns (`effect_wrote`): its
/// `&mut` receiver and parameters, and its returned value. `None`: nothing to report (no `&mut`
/// and a unit return), or a signature the wrapper cannot take (`async`, patterns, a returned borrow
/// of a `&mut` that would still be live).
fn watch_writes(sig: &syn::Signature, unit: bool, name: &str, block: &syn::Block) -> Option<syn::Block> {
    let info = Sig::of(sig);
    let muts: Vec<&Param> = info.params.iter().filter(|p| p.kind == Kind::Mut).collect();
    let self_mut = info.receiver == Some(Kind::Mut);
    if sig.asyncness.is_some() || info.has_patterns || (muts.is_empty() && !self_mut && unit) {
        return None;
    }
    // A returned borrow may come from a `&mut`: then only the returned value is looked at.
    let borrowing = info.ret.borrows || info.ret.has_impl;
    let rt = rt();
    let ret = hyg("__reuse_ret");
    let watch = hyg("__reuse_watch");
    let mut reports = Vec::new();
    let mut saves = TokenStream::new();
    let mut shadows = TokenStream::new();
    if !borrowing {
        if self_mut {
            reports.push(quote!((&#rt::Probe(&*self)).__written()));
        }
        for p in &muts {
            let (id, orig) = (&p.ident, orig_ident(&p.ident.to_string()));
            let m = p.mutable.then(|| quote!(mut));
            saves.extend(quote!(let #orig = #id;));
            shadows.extend(quote!(let #m #id = &mut *#orig;));
            reports.push(quote!((&#rt::Probe(&*#orig)).__written()));
        }
    }
    if !unit {
        reports.push(quote!((&#rt::Probe(&#ret)).__written()));
    }
    if reports.is_empty() {
        return None;
    }
    let closure = match &info.ret.ty {
        Some(ty) if !info.ret.has_impl => quote!(|| -> #ty #block),
        Some(_) => quote!(|| #block),
        None => quote!(|| #block),
    };
    let tokens = quote!({
        #[allow(unused_imports)]
        use #rt::{NoStorage as _, ViaStorage as _};
        let #watch = #rt::watching(#name);
        #saves
        let #ret = {
            #shadows
            #rt::once(#closure)
        };
        if #watch {
            #rt::effect_wrote(#name, &[#(#reports),*]);
        }
        #ret
    });
    syn::parse2(tokens).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(attr: TokenStream, item: TokenStream) -> String {
        crate::expand::contract(attr, item).to_string()
    }

    #[test]
    fn the_original_body_runs_inside_the_wrapper_unchanged() {
        let body = quote!({
            for (i, &s) in slots.iter().enumerate() {
                if s == -1 {
                    continue;
                }
                cache[s as usize] = key[i];
            }
        });
        let out = expand(
            quote!(writes(cache[slots], skip = -1), forbids_write(cache[0..4])),
            quote!(pub fn w(key: &[f32], cache: &mut [f32], slots: &[i64]) #body),
        );
        assert!(out.contains(&body.to_string()), "{out}");
        assert!(out.contains("track_caller"));
        assert!(
            out.contains("pub fn w (key : & [f32] , cache : & mut [f32] , slots : & [i64])"),
            "signature kept: {out}"
        );
        assert!(out.contains("check_indices") && out.contains("check_region"));
    }

    #[test]
    fn async_and_const_functions_and_bodiless_trait_methods_are_left_alone() {
        for item in [
            quote!(
                async fn f(a: &mut [u8]) {}
            ),
            quote!(
                const fn f(a: &[u8]) -> usize {
                    a.len()
                }
            ),
            quote!(
                fn f(&self, a: &mut [u8]);
            ),
            quote!(
                fn f(a: &mut [u8]) -> ! {
                    loop {}
                }
            ),
        ] {
            assert_eq!(expand(quote!(forbids_write(a[0])), item.clone()), item.to_string());
        }
    }

    #[test]
    fn hit_mismatch_code_only_where_the_body_can_run_twice() {
        let attr = quote!(reuses(self.plans, key(g)));
        let eligible = expand(
            attr.clone(),
            quote!(
                fn run(&mut self, g: &u64, n: usize) -> u32 {
                    0
                }
            ),
        );
        assert!(eligible.contains("recompute"));
        for item in [
            quote!(
                fn run(&mut self, g: &u64, v: Vec<u8>) -> u32 {
                    0
                }
            ),
            quote!(
                fn run(&mut self, g: &u64) -> &u32 {
                    &0
                }
            ),
            quote!(
                fn run(&self, g: &u64) -> u32 {
                    0
                }
            ),
            quote!(
                fn run(&mut self, g: &u64) {}
            ),
        ] {
            assert!(!expand(attr.clone(), item.clone()).contains("recompute"), "{item}");
        }
    }

    #[test]
    fn places_behind_mut_are_read_after_the_call_only_without_a_live_unique_borrow() {
        let attr = quote!(forbids_write(self.data[0]));
        let raw = |item: TokenStream| expand(attr.clone(), item).contains("addr_of");
        let checked = |item: TokenStream| expand(attr.clone(), item).contains("check_region");
        assert!(raw(quote!(
            fn f(&mut self) -> &u32 {
                &self.data[0]
            }
        )));
        assert!(raw(quote!(
            fn f<'a>(&'a mut self) -> Option<&'a u32> {
                self.data.get(0)
            }
        )));
        for item in [
            quote!(
                fn f(&mut self) -> &mut u32 {
                    &mut self.data[1]
                }
            ),
            quote!(
                fn f(&mut self) -> std::cell::RefMut<'_, u32> {
                    self.cell.borrow_mut()
                }
            ),
            quote!(
                fn f(&mut self) -> impl Iterator<Item = u32> + '_ {
                    self.data.iter().copied()
                }
            ),
        ] {
            assert!(!checked(item.clone()), "{item}");
        }
        assert!(
            checked(quote!(
                fn f(&mut self) -> u32 {
                    self.data[1]
                }
            )) && !raw(quote!(
                fn f(&mut self) -> u32 {
                    0
                }
            ))
        );
    }

    #[test]
    fn the_returned_value_decides_whether_a_call_served() {
        let with_pattern = expand(
            quote!(reuses(self.g, key(k), miss = Ok(Outcome::Eager)), preserves(replay), fresh(return, after = replay)),
            quote!(
                fn run(&mut self, k: u64) -> Result<Outcome, String> {
                    Ok(Outcome::Eager)
                }
            ),
        );
        assert!(with_pattern.contains("matches ! (__reuse_out , Ok (Outcome :: Eager))"), "{with_pattern}");
        assert!(with_pattern.contains("__is_err ()") && !with_pattern.contains("__declines"), "{with_pattern}");
        assert!(with_pattern.contains("check_fresh (\"return\""), "{with_pattern}");
        assert!(with_pattern.contains("Some ((\"replay\" ,"), "fresh effect in the contract info: {with_pattern}");
        let default = expand(
            quote!(reuses(self.g, key(k)), preserves(replay)),
            quote!(
                fn run(&mut self, k: u64) -> Option<u32> {
                    None
                }
            ),
        );
        assert!(default.contains("__declines ()") && !default.contains("check_fresh"), "{default}");
        let no_cache = expand(
            quote!(preserves(replay)),
            quote!(
                fn run(k: u64) -> Option<u32> {
                    None
                }
            ),
        );
        assert!(no_cache.contains("__is_err ()") && !no_cache.contains("__declines"), "{no_cache}");
        let unit = expand(quote!(preserves(replay)), quote!(fn run(k: u64) {}));
        assert!(!unit.contains("returned"), "{unit}");
    }

    #[test]
    fn effects_report_what_they_could_write_when_a_call_watches_them() {
        let replay = crate::expand::effect(
            TokenStream::new(),
            quote!(
                fn replay(&mut self, input: &[f32], out: &mut Vec<f32>) {
                    out.push(input[0]);
                }
            ),
        )
        .to_string();
        assert!(replay.contains("watching (\"replay\")") && replay.contains("effect_wrote"), "{replay}");
        assert!(replay.contains("(& * self)) . __written ()") && replay.contains("__reuse_orig_out"), "{replay}");
        // Nothing it could write: as before.
        let log = crate::expand::effect(TokenStream::new(), quote!(fn log_step(n: u32) {})).to_string();
        assert!(!log.contains("watching"), "{log}");
        // A returned borrow: only the returned value is reported.
        let view = crate::expand::effect(
            TokenStream::new(),
            quote!(
                fn view(&mut self) -> &[f32] {
                    &self.out
                }
            ),
        )
        .to_string();
        assert!(view.contains("__reuse_ret)) . __written ()") && !view.contains("(& * self)"), "{view}");
    }

    #[test]
    fn effects_record_their_name_first() {
        let out = crate::expand::effect(
            TokenStream::new(),
            quote!(
                pub fn log_step() {
                    println!("x");
                }
            ),
        )
        .to_string();
        assert!(
            out.starts_with(
                "pub fn log_step () { if :: reuse :: runtime :: __private :: effect (\"log_step\" , true) { return ; }"
            ),
            "{out}"
        );
        let out = crate::expand::effect(
            TokenStream::new(),
            quote!(
                fn next(&mut self) -> u64 {
                    4
                }
            ),
        )
        .to_string();
        assert!(out.contains("effect (\"next\" , false) ;"), "{out}");
    }
}
