//! Expansion of the attributes, on `proc_macro2` tokens so that it can be unit-tested.

use proc_macro2::TokenStream;

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
    instrument_contract(&contract, func, item)
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

#[cfg(feature = "runtime")]
use crate::instrument::{instrument_contract, instrument_effect};

#[cfg(all(test, not(feature = "runtime")))]
mod tests {
    use super::*;
    use quote::quote;

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
            quote!(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[NULL_BLOCK])),
            quote!(reuses(self.plans, key(graph.fingerprint)), preserves(log_step)),
        ];
        for (attr, item) in attrs.into_iter().zip(items) {
            let out = contract(attr, item.clone());
            assert_eq!(out.to_string(), item.to_string());
        }
        let item = quote! { fn log_step() { println!("step"); } };
        assert_eq!(effect(TokenStream::new(), item.clone()).to_string(), item.to_string());
    }

    #[test]
    fn malformed_contract_keeps_the_item_after_the_error() {
        let item = quote! { fn f(a: &[u8]) {} };
        let out = contract(quote!(writes(b[a])), item.clone()).to_string();
        assert!(out.contains("compile_error"));
        assert!(out.ends_with(&item.to_string()));
    }
}
