//! Walking the functions of a file, and contracts files for code you do not own.
//!
//! A contracts file is ordinary Rust. Modules and `impl` blocks give the path of the function the
//! contract is for; the function is a signature with the same attribute and no body:
//!
//! ```rust,ignore
//! // contracts/paged_attention.rs, named in [workspace.metadata.reuse-check] contracts = [...]
//! mod paged_attention {
//!     #[reuse::contract(writes(key_cache[slot_mapping], skip = -1), forbids_write(key_cache[0]))]
//!     fn reshape_and_cache(key: &Tensor, key_cache: &mut Tensor, slot_mapping: &Tensor);
//!
//!     impl CacheEngine {
//!         #[reuse::contract(aliases(return = src))]
//!         fn swap_in(&mut self, src: DevicePtr) -> DevicePtr;
//!     }
//! }
//! ```
//!
//! The checker treats such a contract exactly as if the attribute stood on the definition:
//! calls of `paged_attention::reshape_and_cache` anywhere in the workspace are checked against it.
//! `extern "C" { ... }` blocks are accepted too (for FFI launchers).

use syn::{Attribute, Block, ForeignItem, Generics, ImplItem, Item, Signature};

/// One function found in a file: where it sits and what it is.
pub struct FnItem<'a> {
    /// Inline module path within the file (`["paged_attention"]`).
    pub modules: &'a [String],
    /// The `Self` type of the enclosing `impl` or trait, by its last path segment.
    pub self_type: Option<&'a str>,
    pub attrs: &'a [Attribute],
    pub sig: &'a Signature,
    /// `None` for a signature without a body (contracts files, trait declarations, extern blocks).
    pub body: Option<&'a Block>,
    /// Declared in a trait: `self_type` is the trait, and implementors share the contract.
    pub in_trait: bool,
    /// The generics of the enclosing `impl` or trait (`impl<T: Backend> Runner<T>`): its type
    /// parameters are in scope in the function as its own are.
    pub outer_generics: Option<&'a Generics>,
    /// The trait the enclosing `impl` implements, as written (`Backend` of `impl Backend for
    /// Cpu`): a contract on the trait's method holds for this body too.
    pub of_trait: Option<&'a syn::Path>,
}

/// Calls `f` for every function of `items`, in source order, descending into inline modules, impl
/// blocks, traits and extern blocks. Bodiless `fn f();` items, which `syn` keeps as verbatim tokens,
/// are parsed as signatures.
pub fn walk_fns<'a>(items: &'a [Item], f: &mut dyn FnMut(FnItem<'_>)) {
    walk(items, &mut Vec::new(), f)
}

fn walk(items: &[Item], modules: &mut Vec<String>, f: &mut dyn FnMut(FnItem<'_>)) {
    for item in items {
        match item {
            Item::Fn(func) => {
                f(FnItem { modules, self_type: None, attrs: &func.attrs, sig: &func.sig, body: Some(&func.block), in_trait: false, outer_generics: None, of_trait: None });
                walk_nested(&func.block, modules, f);
            }
            Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    modules.push(m.ident.to_string());
                    walk(content, modules, f);
                    modules.pop();
                }
            }
            Item::Impl(imp) => {
                let self_type = type_name(&imp.self_ty);
                for it in &imp.items {
                    match it {
                        ImplItem::Fn(m) => {
                            f(FnItem { modules, self_type: self_type.as_deref(), attrs: &m.attrs, sig: &m.sig, body: Some(&m.block), in_trait: false, outer_generics: Some(&imp.generics), of_trait: imp.trait_.as_ref().map(|(_, t, _)| t) });
                            walk_nested(&m.block, modules, f);
                        }
                        ImplItem::Verbatim(tokens) => {
                            if let Ok(decl) = syn::parse2::<syn::ForeignItemFn>(tokens.clone()) {
                                f(FnItem { modules, self_type: self_type.as_deref(), attrs: &decl.attrs, sig: &decl.sig, body: None, in_trait: false, outer_generics: Some(&imp.generics), of_trait: imp.trait_.as_ref().map(|(_, t, _)| t) })
                            }
                        }
                        _ => {}
                    }
                }
            }
            Item::Trait(t) => {
                let name = t.ident.to_string();
                for it in &t.items {
                    if let syn::TraitItem::Fn(m) = it {
                        f(FnItem { modules, self_type: Some(&name), attrs: &m.attrs, sig: &m.sig, body: m.default.as_ref(), in_trait: true, outer_generics: Some(&t.generics), of_trait: None })
                    }
                }
            }
            Item::ForeignMod(fm) => {
                for it in &fm.items {
                    if let ForeignItem::Fn(decl) = it {
                        f(FnItem { modules, self_type: None, attrs: &decl.attrs, sig: &decl.sig, body: None, in_trait: false, outer_generics: None, of_trait: None })
                    }
                }
            }
            Item::Verbatim(tokens) => {
                if let Ok(decl) = syn::parse2::<syn::ForeignItemFn>(tokens.clone()) {
                    f(FnItem { modules, self_type: None, attrs: &decl.attrs, sig: &decl.sig, body: None, in_trait: false, outer_generics: None, of_trait: None })
                }
            }
            _ => {}
        }
    }
}

/// Functions (and modules, impls) declared inside a function body are bodies of their own.
fn walk_nested(block: &syn::Block, modules: &mut Vec<String>, f: &mut dyn FnMut(FnItem<'_>)) {
    let nested: Vec<&Item> = block.stmts.iter().filter_map(|s| if let syn::Stmt::Item(i) = s { Some(i) } else { None }).collect();
    if !nested.is_empty() {
        let items: Vec<Item> = nested.into_iter().cloned().collect();
        walk(&items, modules, f);
    }
}

/// The last path segment of a type (`Engine` for `crate::engine::Engine<T>`).
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contracts_file_signatures_are_found_with_their_paths() {
        let src = r#"
            mod paged_attention {
                #[reuse::contract(writes(key_cache[slot_mapping], skip = -1))]
                fn reshape_and_cache(key: &Tensor, key_cache: &mut Tensor, slot_mapping: &Tensor);
                impl CacheEngine {
                    #[reuse::contract(aliases(return = src))]
                    fn swap_in(&mut self, src: DevicePtr) -> DevicePtr;
                }
                extern "C" {
                    fn launch(ptr: u64);
                }
            }
            fn with_body() {
                fn nested() {}
            }
        "#;
        let file = syn::parse_file(src).unwrap();
        let mut seen = Vec::new();
        walk_fns(&file.items, &mut |f| {
            seen.push(format!("{}::{}{} body={}", f.modules.join("::"), f.self_type.map(|t| format!("{t}::")).unwrap_or_default(), f.sig.ident, f.body.is_some()))
        });
        assert_eq!(
            seen,
            vec![
                "paged_attention::reshape_and_cache body=false",
                "paged_attention::CacheEngine::swap_in body=false",
                "paged_attention::launch body=false",
                "::with_body body=true",
                "::nested body=true"
            ]
        );
    }
}
