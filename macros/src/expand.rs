//! Expansion of the attributes, on `proc_macro2` tokens so that it can be unit-tested.

use proc_macro2::TokenStream;
use reuse_rules::Contract;

use crate::with_errors;

/// The function an attribute stands on: a definition, or a trait method signature.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) struct AnnotatedFn {
    pub sig: syn::Signature,
    pub body: Option<syn::Block>,
}

pub(crate) fn parse_fn(item: &TokenStream) -> syn::Result<AnnotatedFn> {
    if let Ok(f) = syn::parse2::<syn::ItemFn>(item.clone()) {
        return Ok(AnnotatedFn { sig: f.sig, body: Some(*f.block) });
    }
    match syn::parse2::<syn::TraitItemFn>(item.clone()) {
        Ok(f) => Ok(AnnotatedFn { sig: f.sig, body: f.default }),
        Err(_) => Err(syn::Error::new(
            crate::first_span(item),
            "`#[reuse::contract]` and `#[reuse::effect]` go on a function or method",
        )),
    }
}

pub(crate) fn contract(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match parse_fn(&item) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let contract = match reuse_rules::parse_contract(attr) {
        Ok(c) => c,
        Err(errors) => return with_errors(item, &errors),
    };
    let errors = reuse_rules::validate::validate(&contract, &func.sig);
    if !errors.is_empty() {
        return with_errors(item, &errors);
    }
    let (item, func) = match names_check(&contract, &func.sig) {
        Some(check) => with_first_stmt(item, func, check),
        None => (item, func),
    };
    instrument_contract(&contract, func, item)
}

/// The paths of a contract that must name something: its `skip` sentinels and region bounds
/// (constants or statics), and its `except(..)` functions. Paths through `Self` are left out: an
/// item nested in a method cannot name its `impl`'s `Self` (E0401).
fn named_paths(contract: &Contract) -> Vec<TokenStream> {
    let mut out: Vec<TokenStream> = contract.const_paths().into_iter().filter_map(|p| path_tokens(&p.segments)).collect();
    for (_, f) in contract.sanctioned_writers() {
        out.extend(path_tokens(&f.segments));
    }
    out
}

/// A path a contract names, as tokens at its own spans; `None` through `Self` (an item nested in
/// a method cannot name its `impl`'s `Self`, E0401).
fn path_tokens(segments: &[reuse_rules::contract::Name]) -> Option<TokenStream> {
    if segments[0].text == "Self" {
        return None;
    }
    let segs = segments.iter().map(|s| name_ident(&s.text, s.span));
    Some(quote::quote!(#(#segs)::*))
}

/// A name written in a contract as an identifier; a keyword was written raw (`r#type`) and is a
/// name again only raw.
fn name_ident(text: &str, span: proc_macro2::Span) -> syn::Ident {
    match text {
        "crate" | "self" | "super" => syn::Ident::new(text, span),
        t if syn::parse_str::<syn::Ident>(t).is_ok() => syn::Ident::new(t, span),
        t => syn::Ident::new_raw(t, span),
    }
}

/// `const _: () = { let _ = &PAD_SLOT_ID; let _ = &health_check; };`: a compile-time check that
/// every constant and function a contract names exists, each at its own token, so that a
/// misspelled sentinel is an error with the runtime feature off too. A `const` item is evaluated
/// by the compiler and emits no code: the function compiles to what it compiles to without the
/// attribute. `None` when the contract names none.
pub(crate) fn names_check(contract: &Contract, sig: &syn::Signature) -> Option<syn::Stmt> {
    let paths = named_paths(contract);
    let fields = field_checks(contract, sig);
    if paths.is_empty() && fields.is_empty() {
        return None;
    }
    Some(syn::parse_quote! {
        #[allow(clippy::no_effect_underscore_binding, unused_qualifications)]
        const _: () = { #(let _ = &#paths;)* #(#fields)* };
    })
}

/// For each parameter whose fields a contract names (`writes(kv[meta.slot_mapping], ..)`), a
/// function that is never called and borrows each named field of a parameter of the same type:
/// a misspelled field is rustc's error at its token, with the runtime feature off too. Only for
/// types an item nested in the function can name (no generic parameter of the function, no
/// `Self`, no `impl Trait`, no named lifetime); `self.field` paths are left to the instrumented
/// build (an item cannot name the `impl`'s `Self`).
fn field_checks(contract: &Contract, sig: &syn::Signature) -> Vec<syn::Item> {
    use std::collections::BTreeMap;
    let mut by_param: BTreeMap<String, Vec<TokenStream>> = BTreeMap::new();
    for place in contract.rooted_places() {
        if place.root != reuse_rules::contract::PlaceRoot::Param || place.segments.len() < 2 {
            continue;
        }
        let fields = place.segments[1..].iter().map(|s| name_ident(&s.text, s.span));
        let root = name_ident(&place.segments[0].text, place.segments[0].span);
        by_param.entry(place.segments[0].text.clone()).or_default().push(quote::quote!(let _ = &#root #(.#fields)*;));
    }
    let generics: Vec<String> = sig.generics.params.iter().map(|p| match p {
        syn::GenericParam::Type(t) => t.ident.to_string(),
        syn::GenericParam::Const(c) => c.ident.to_string(),
        syn::GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
    }).collect();
    let mut out = Vec::new();
    for (param, borrows) in by_param {
        let ty = sig.inputs.iter().find_map(|a| match a {
            syn::FnArg::Typed(t) if matches!(&*t.pat, syn::Pat::Ident(p) if p.ident == param) => Some(&*t.ty),
            _ => None,
        });
        let Some(ty) = ty.filter(|t| nameable(t, &generics)) else { continue };
        let name = syn::Ident::new(&param, proc_macro2::Span::call_site());
        let check = quote::format_ident!("__reuse_fields_of_{}", param);
        out.push(syn::parse_quote! {
            #[allow(dead_code, unused_variables, non_snake_case, clippy::all)]
            fn #check(#name: #ty) { #(#borrows)* }
        });
    }
    out
}

/// Whether a type can be written in an item nested in the function.
fn nameable(ty: &syn::Type, generics: &[String]) -> bool {
    let text = quote::ToTokens::to_token_stream(ty).to_string();
    let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
    !text.contains('\'') && !words.iter().any(|w| *w == "Self" || *w == "impl" || *w == "dyn" || generics.iter().any(|g| g == w))
}

/// The item with `stmt` first in its body (an item without a body is left as it is).
fn with_first_stmt(item: TokenStream, func: AnnotatedFn, stmt: syn::Stmt) -> (TokenStream, AnnotatedFn) {
    use quote::ToTokens;
    if let Ok(mut f) = syn::parse2::<syn::ItemFn>(item.clone()) {
        f.block.stmts.insert(0, stmt);
        let func = AnnotatedFn { sig: f.sig.clone(), body: Some((*f.block).clone()) };
        return (f.into_token_stream(), func);
    }
    match syn::parse2::<syn::TraitItemFn>(item.clone()) {
        Ok(mut f) if f.default.is_some() => {
            if let Some(b) = f.default.as_mut() {
                b.stmts.insert(0, stmt);
            }
            let func = AnnotatedFn { sig: f.sig.clone(), body: f.default.clone() };
            (f.into_token_stream(), func)
        }
        _ => (item, func),
    }
}

/// `#[reuse::sanctioned]`: with the runtime feature, the function enters its sanctioned-writer
/// scope while it runs (see `instrument_sanctioned`); without, it is emitted as written.
pub(crate) fn sanctioned(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(tok) = attr.into_iter().next() {
        return with_errors(
            item,
            &[reuse_rules::ContractError::new(
                &reuse_rules::catalogue::CONTRACT_SYNTAX,
                tok.span(),
                "`#[reuse::sanctioned]` takes no arguments: the contracts name their sanctioned writers in `forbids_write(.., except(..))`",
            )],
        );
    }
    let func = match parse_fn(&item) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    instrument_sanctioned(func, item)
}

/// `#[reuse::indexes]` on a struct: its fields' `#[reuse::index(skip = S)]` declarations are
/// validated (errors at the token) and removed, and one `const _` item after the struct names each
/// sentinel (a misspelling is rustc's error at the token). The struct is otherwise as written: the
/// declarations are read by the checker from the source.
pub(crate) fn indexes(attr: TokenStream, item: TokenStream) -> TokenStream {
    use quote::ToTokens;
    let syntax = |span, message: &str| reuse_rules::ContractError::new(&reuse_rules::catalogue::CONTRACT_SYNTAX, span, message);
    if let Some(tok) = attr.into_iter().next() {
        return with_errors(item, &[syntax(tok.span(), "`#[reuse::indexes]` takes no arguments: each index field says `#[reuse::index(skip = S)]`")]);
    }
    let mut strukt = match syn::parse2::<syn::ItemStruct>(item.clone()) {
        Ok(s) => s,
        Err(_) => return with_errors(item.clone(), &[syntax(crate::first_span(&item), "`#[reuse::indexes]` goes on a struct whose fields declare `#[reuse::index(skip = S)]`")]),
    };
    let mut errors = Vec::new();
    let mut sentinels = Vec::new();
    let mut declared = 0;
    for field in strukt.fields.iter_mut() {
        let mut seen = false;
        let mut kept = Vec::new();
        for attr in std::mem::take(&mut field.attrs) {
            if !is_index_attr(&attr) {
                kept.push(attr);
                continue;
            }
            if seen {
                errors.push(syntax(attr.path().segments.last().map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()), "one `#[reuse::index]` per field"));
                continue;
            }
            seen = true;
            declared += 1;
            let tokens = match &attr.meta {
                syn::Meta::List(l) => l.tokens.clone(),
                other => {
                    errors.push(syntax(other.path().segments.last().map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()), "expected `#[reuse::index(skip = SENTINEL)]`"));
                    continue;
                }
            };
            match reuse_rules::contract::parse_index_attr(tokens) {
                Ok(decl) => sentinels.extend(sentinel_path(&decl.skip)),
                Err(e) => errors.extend(e),
            }
        }
        field.attrs = kept;
    }
    if declared == 0 && errors.is_empty() {
        errors.push(syntax(strukt.ident.span(), "no field of this struct declares `#[reuse::index(skip = S)]`"));
    }
    let mut out = strukt.into_token_stream();
    if !sentinels.is_empty() {
        out.extend(quote::quote! {
            #[allow(clippy::no_effect_underscore_binding, unused_qualifications)]
            const _: () = { #(let _ = &#sentinels;)* };
        });
    }
    with_errors(out, &errors)
}

/// `#[reuse::index(..)]` on a field.
fn is_index_attr(attr: &syn::Attribute) -> bool {
    let segs: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(segs.as_slice(), [r, i] if r == "reuse" && i == "index")
}

/// A sentinel's path, to be named in the `const _` check (an integer needs none).
fn sentinel_path(skip: &reuse_rules::contract::Sentinel) -> Option<TokenStream> {
    match skip {
        reuse_rules::contract::Sentinel::Int { .. } => None,
        reuse_rules::contract::Sentinel::Const(p) => path_tokens(&p.segments),
    }
}

pub(crate) fn effect(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(tok) = attr.into_iter().next() {
        return with_errors(
            item,
            &[reuse_rules::ContractError::new(&reuse_rules::catalogue::CONTRACT_SYNTAX, tok.span(), "`#[reuse::effect]` takes no arguments")],
        );
    }
    let func = match parse_fn(&item) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    instrument_effect(func, item)
}

#[cfg(not(feature = "runtime"))]
fn instrument_contract(_: &reuse_rules::Contract, _: AnnotatedFn, item: TokenStream) -> TokenStream {
    item
}

#[cfg(not(feature = "runtime"))]
fn instrument_effect(_: AnnotatedFn, item: TokenStream) -> TokenStream {
    item
}

#[cfg(not(feature = "runtime"))]
fn instrument_sanctioned(_: AnnotatedFn, item: TokenStream) -> TokenStream {
    item
}

#[cfg(feature = "runtime")]
use crate::instrument::{instrument_contract, instrument_effect, instrument_sanctioned};

#[cfg(all(test, not(feature = "runtime")))]
mod tests {
    use super::*;
    use quote::quote;

    /// `#[reuse::indexes]`: the struct as written without its `#[reuse::index]` declarations, and
    /// one `const _` naming the sentinels; malformed declarations are errors at their tokens.
    #[test]
    fn index_declarations_are_removed_and_their_sentinels_named() {
        let item = quote! {
            pub struct StepMeta {
                #[reuse::index(skip = PAD_SLOT_ID)]
                #[doc = "slots"]
                pub slot_mapping: Vec<i64>,
                #[reuse::index(skip = -1)]
                pub other: Vec<i64>,
                pub block_tables: Vec<u32>,
            }
        };
        let out = indexes(TokenStream::new(), item).to_string();
        let want = quote! {
            pub struct StepMeta {
                #[doc = "slots"]
                pub slot_mapping: Vec<i64>,
                pub other: Vec<i64>,
                pub block_tables: Vec<u32>,
            }
            #[allow(clippy::no_effect_underscore_binding, unused_qualifications)]
            const _: () = { let _ = &PAD_SLOT_ID; };
        };
        assert_eq!(out, want.to_string());
        let bad = indexes(TokenStream::new(), quote! { struct S { #[reuse::index(skp = 1)] a: Vec<i64> } }).to_string();
        assert!(bad.contains("compile_error") && bad.contains("expected `skip = SENTINEL`"), "{bad}");
        let none = indexes(TokenStream::new(), quote! { struct S { a: Vec<i64> } }).to_string();
        assert!(none.contains("no field of this struct declares"), "{none}");
        let args = indexes(quote!(x), quote! { struct S { #[reuse::index(skip = 1)] a: Vec<i64> } }).to_string();
        assert!(args.contains("takes no arguments"), "{args}");
    }

    /// A contract that names no constant and no function: the function exactly as written.
    #[test]
    fn runtime_off_expansion_is_the_original_function() {
        let items = [
            quote! {
                pub fn reshape_and_cache(key: &[f32], key_cache: &mut [f32], slot_mapping: &[i64]) {
                    for (i, &slot) in slot_mapping.iter().enumerate() {
                        if slot == PAD_SLOT_ID { continue; }
                        key_cache[slot as usize] = key[i];
                    }
                }
            },
            quote! {
                fn run(&mut self, graph: &Graph) -> Plan { log_step(); self.compile(graph) }
            },
        ];
        let attrs = [
            quote!(writes(key_cache[slot_mapping], skip = -1), forbids_write(key_cache[0..4])),
            quote!(reuses(self.plans, key(graph)), preserves(log_step)),
        ];
        for (attr, item) in attrs.into_iter().zip(items) {
            let out = contract(attr, item.clone());
            assert_eq!(out.to_string(), item.to_string());
        }
        let item = quote! { fn log_step() { println!("step"); } };
        assert_eq!(effect(TokenStream::new(), item.clone()).to_string(), item.to_string());
        assert_eq!(sanctioned(TokenStream::new(), item.clone()).to_string(), item.to_string());
    }

    /// A contract that names constants or functions: the function as written, with one `const _`
    /// item first in its body that names each of them at its own token (evaluated by the compiler,
    /// no code); the rest of the body is untouched. `Self::` paths cannot be named from an item.
    #[test]
    fn runtime_off_expansion_adds_only_a_const_naming_the_contracts_paths() {
        let item = quote! {
            pub fn reshape_and_cache(key_cache: &mut [f32], slot_mapping: &[i64]) { write(key_cache, slot_mapping); }
        };
        let attr = quote!(
            writes(key_cache[slot_mapping], skip = kv::PAD_SLOT_ID),
            forbids_write(key_cache[NULL_BLOCK..FIRST_FREE], key_cache[Self::RESERVED], except(diag::health_check, Pool::warm_up))
        );
        let expected = quote! {
            pub fn reshape_and_cache(key_cache: &mut [f32], slot_mapping: &[i64]) {
                #[allow(clippy::no_effect_underscore_binding, unused_qualifications)]
                const _: () = {
                    let _ = &kv::PAD_SLOT_ID;
                    let _ = &NULL_BLOCK;
                    let _ = &FIRST_FREE;
                    let _ = &diag::health_check;
                    let _ = &Pool::warm_up;
                };
                write(key_cache, slot_mapping);
            }
        };
        assert_eq!(contract(attr, item).to_string(), expected.to_string());
        // Field paths of parameters: a function never called borrows each named field, when the
        // parameter's type can be named from inside (not a generic parameter of the function).
        let attr = quote!(writes(kv[meta.slot_mapping], skip = -1), reads(kv[meta.tables.rows]), reuses(t.plans, key(t.v)));
        let meta_check = quote! {
            #[allow(dead_code, unused_variables, non_snake_case, clippy::all)]
            fn __reuse_fields_of_meta(meta: &StepMeta) { let _ = &meta.slot_mapping; let _ = &meta.tables.rows; }
        };
        let t_check = quote! {
            #[allow(dead_code, unused_variables, non_snake_case, clippy::all)]
            fn __reuse_fields_of_t(t: T) { let _ = &t.plans; let _ = &t.v; }
        };
        let expected = |generics: TokenStream, checks: TokenStream| {
            quote! {
                fn attend #generics (kv: &mut [f32], meta: &StepMeta, t: T) {
                    #[allow(clippy::no_effect_underscore_binding, unused_qualifications)]
                    const _: () = { #checks };
                }
            }
            .to_string()
        };
        let item = quote! { fn attend(kv: &mut [f32], meta: &StepMeta, t: T) {} };
        assert_eq!(contract(attr.clone(), item).to_string(), expected(quote!(), quote!(#meta_check #t_check)));
        let generic = quote! { fn attend<T>(kv: &mut [f32], meta: &StepMeta, t: T) {} };
        assert_eq!(contract(attr, generic).to_string(), expected(quote!(<T>), meta_check), "`t: T` cannot be named inside: left out");
        // A trait method without a body has nowhere to hold it: as written.
        let decl = quote! { fn write(&mut self, slots: &[i64]); };
        assert_eq!(contract(quote!(writes(self.kv[slots], skip = PAD)), decl.clone()).to_string(), decl.to_string());
    }

    #[test]
    fn the_names_are_spanned_at_their_tokens_in_the_contract() {
        let attr: TokenStream = "writes(kv[s], skip = PAD_SLOT)".parse().unwrap();
        let contract = reuse_rules::parse_contract(attr).unwrap();
        let stmt = names_check(&contract, &syn::parse_quote!(fn f())).unwrap();
        let tokens = quote::ToTokens::to_token_stream(&stmt).to_string();
        assert!(tokens.contains("let _ = & PAD_SLOT ;"), "{tokens}");
    }

    #[test]
    fn malformed_contract_keeps_the_item_after_the_error() {
        let item = quote! { fn f(a: &[u8]) {} };
        let out = contract(quote!(writes(b[a])), item.clone()).to_string();
        assert!(out.contains("compile_error"));
        assert!(out.ends_with(&item.to_string()));
    }
}
