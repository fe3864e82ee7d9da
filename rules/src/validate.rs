//! Checks a parsed contract against the signature it annotates. Used by the macros (as compile
//! errors) and by the checker (as findings), so both report the same problems at the same tokens.

use syn::{FnArg, Pat, ReturnType, Signature, Type};

use crate::catalogue::{ALIAS_TYPE_MISMATCH, CONTRACT_SYNTAX, UNKNOWN_NAME};
use crate::contract::{AliasOut, Bound, Clause, ClauseKind, Contract, Effect, Place, PlaceRoot, RegionIndex};
use crate::ContractError;

/// The parameters of a signature by name, and whether it has a receiver.
pub struct Params<'a> {
    pub has_receiver: bool,
    pub named: Vec<(String, &'a Type)>,
    pub output: &'a ReturnType,
    pub fn_name: String,
}

impl<'a> Params<'a> {
    pub fn of(sig: &'a Signature) -> Self {
        let mut named = Vec::new();
        for input in &sig.inputs {
            if let FnArg::Typed(pt) = input {
                if let Pat::Ident(pi) = &*pt.pat {
                    named.push((syn::ext::IdentExt::unraw(&pi.ident).to_string(), &*pt.ty));
                }
            }
        }
        Params { has_receiver: sig.receiver().is_some(), named, output: &sig.output, fn_name: sig.ident.to_string() }
    }

    pub fn type_of(&self, name: &str) -> Option<&'a Type> {
        self.named.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }

    /// Position of a named parameter among the call arguments (receiver excluded).
    pub fn position(&self, sig: &Signature, name: &str) -> Option<usize> {
        sig.inputs
            .iter()
            .filter(|a| matches!(a, FnArg::Typed(_)))
            .position(|a| matches!(a, FnArg::Typed(pt) if matches!(&*pt.pat, Pat::Ident(pi) if syn::ext::IdentExt::unraw(&pi.ident) == name)))
    }
}

/// Every problem of `contract` against `sig`.
pub fn validate(contract: &Contract, sig: &Signature) -> Vec<ContractError> {
    let params = Params::of(sig);
    let mut errors = Vec::new();
    let check = |place: &Place, errors: &mut Vec<ContractError>| check_place(place, &params, errors);
    for clause in &contract.clauses {
        match &clause.kind {
            ClauseKind::Reuses { place, key, .. } => {
                check(place, &mut errors);
                key.iter().for_each(|k| check(k, &mut errors));
            }
            ClauseKind::Fresh { output, after } => check_fresh(contract, clause, output, after, &params, &mut errors),
            ClauseKind::Preserves(effects) => {
                for e in effects.iter().filter(|e| e.path[0].text == "self" && !params.has_receiver) {
                    errors.push(ContractError::new(
                        &UNKNOWN_NAME,
                        e.path[0].span,
                        format!("`self.{}` names a method, but `{}` has no `self` parameter", e.name(), params.fn_name),
                    ));
                }
            }
            ClauseKind::Writes { target, .. } | ClauseKind::Reads(target) => {
                check(&target.place, &mut errors);
                check(&target.index, &mut errors);
            }
            ClauseKind::ForbidsWrite { regions, .. } => {
                for r in regions {
                    check(&r.place, &mut errors);
                    let bounds: Vec<&Bound> = match &r.index {
                        RegionIndex::At(b) => vec![b],
                        RegionIndex::Range { start, end, .. } => start.iter().chain(end.iter()).collect(),
                    };
                    for b in bounds {
                        if let Bound::Const(p) = b {
                            check(p, &mut errors);
                        }
                    }
                }
            }
            ClauseKind::Aliases(aliases) => {
                for alias in aliases {
                    let before = errors.len();
                    check(&alias.input, &mut errors);
                    if errors.len() == before {
                        check_alias_types(&alias.output, &alias.input, &params, &mut errors);
                    }
                }
            }
        }
    }
    errors
}

/// `fresh(OUT, after = E)`: a hit needs a `reuses` clause to be one; E must be a preserved effect
/// (it then runs on every serving path, so "after E" is defined on each); OUT must exist.
fn check_fresh(
    contract: &Contract,
    clause: &Clause,
    output: &AliasOut,
    after: &Effect,
    params: &Params,
    errors: &mut Vec<ContractError>,
) {
    if contract.reuses().next().is_none() {
        errors.push(ContractError::new(
            &CONTRACT_SYNTAX,
            clause.keyword.span,
            "`fresh` is about what a cache hit returns: it needs a `reuses(PLACE, key(..))` clause",
        ));
    }
    let preserved: Vec<&Effect> = contract.preserves().map(|(_, e)| e.iter().collect()).unwrap_or_default();
    if !preserved.iter().any(|p| p.name() == after.name()) {
        let hint = if preserved.is_empty() {
            "the contract preserves no effect; add `preserves(..)` with it".to_string()
        } else {
            format!("the preserved effects are {}", preserved.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(", "))
        };
        errors.push(ContractError::new(
            &UNKNOWN_NAME,
            after.path[0].span,
            format!("`after = {after}` must name an effect of this contract's `preserves`: {hint}"),
        ));
    }
    match (output, params.output) {
        (_, ReturnType::Default) => errors.push(ContractError::new(
            &UNKNOWN_NAME,
            output.span(),
            format!("`{output}`: `{}` returns nothing", params.fn_name),
        )),
        (AliasOut::ReturnIndex { index, span }, ReturnType::Type(_, ty)) => match served(ty) {
            Type::Tuple(t) if *index as usize >= t.elems.len() => errors.push(ContractError::new(
                &UNKNOWN_NAME,
                *span,
                format!("`return.{index}`: `{}` returns a tuple of {} elements", params.fn_name, t.elems.len()),
            )),
            Type::Tuple(_) => {}
            other if has_no_parts(other) => errors.push(ContractError::new(
                &UNKNOWN_NAME,
                *span,
                format!("`return.{index}`: a hit of `{}` serves `{}`, which is not a tuple", params.fn_name, type_text(other)),
            )),
            _ => {}
        },
        (AliasOut::ReturnField { field, span }, ReturnType::Type(_, ty)) => {
            let served = served(ty);
            if matches!(served, Type::Tuple(_)) || has_no_parts(served) {
                errors.push(ContractError::new(
                    &UNKNOWN_NAME,
                    *span,
                    format!("`return.{}`: a hit of `{}` serves `{}`, which has no fields", field.text, params.fn_name, type_text(served)),
                ));
            }
        }
        _ => {}
    }
}

/// What a call serves, inside the `Result`/`Option` it may be wrapped in (`Result<Option<T>, E>`:
/// `T`), as `fresh`'s output is read.
fn served(ty: &Type) -> &Type {
    if let Type::Path(p) = ty {
        if let Some(seg) = p.path.segments.last().filter(|s| s.ident == "Result" || s.ident == "Option") {
            if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                    return served(inner);
                }
            }
        }
    }
    ty
}

/// A type whose parts no `return.N` or `return.field` can name: slices, arrays, references to
/// them, primitives and std's collections (a type of the user's may have any fields).
fn has_no_parts(ty: &Type) -> bool {
    const NO_PARTS: &[&str] = &[
        "Vec", "VecDeque", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "String", "str", "bool", "char", "u8", "u16", "u32",
        "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    ];
    match ty {
        Type::Reference(r) => has_no_parts(&r.elem),
        Type::Paren(p) => has_no_parts(&p.elem),
        Type::Slice(_) | Type::Array(_) | Type::Ptr(_) => true,
        Type::Path(p) => p.qself.is_none() && p.path.segments.len() == 1 && NO_PARTS.contains(&p.path.segments[0].ident.to_string().as_str()),
        _ => false,
    }
}

fn type_text(ty: &Type) -> String {
    quote::quote!(#ty).to_string().replace(" < ", "<").replace(" >", ">").replace(" ,", ",").replace("& ", "&")
}

fn check_place(place: &Place, params: &Params, errors: &mut Vec<ContractError>) {
    match place.root {
        PlaceRoot::Param => {
            let name = place.root_name();
            if params.type_of(name).is_none() {
                let known: Vec<&str> = params.named.iter().map(|(n, _)| n.as_str()).collect();
                let hint = if known.is_empty() { "it has none".to_string() } else { format!("its parameters are {}", known.join(", ")) };
                errors.push(ContractError::new(
                    &UNKNOWN_NAME,
                    place.first_span(),
                    format!("`{name}` is not a parameter of `{}`: {hint}", params.fn_name),
                ));
            }
        }
        PlaceRoot::SelfField => {
            if !params.has_receiver {
                let what = if place.segments.len() == 1 { "the receiver" } else { "a field of `self`" };
                errors.push(ContractError::new(
                    &UNKNOWN_NAME,
                    place.first_span(),
                    format!("`{place}` names {what}, but `{}` has no `self` parameter", params.fn_name),
                ));
            }
        }
        PlaceRoot::Static => {}
    }
}

/// What kind of storage a type can stand for, as far as its syntax tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageClass {
    /// `bool`, `char`, floats, `()`: a by-value value that owns no buffer.
    NoStorage,
    /// A by-value integer: may be a device pointer or a buffer handle.
    IntHandle,
    /// A reference, slice, array, raw pointer, `Vec`, `Box`: host memory.
    Host,
    /// Any other named type (`Tensor`, `CudaSlice<f32>`, a generic): may hold any storage.
    Opaque,
}

pub fn storage_class(ty: &Type) -> StorageClass {
    match ty {
        Type::Reference(_) | Type::Slice(_) | Type::Array(_) | Type::Ptr(_) => StorageClass::Host,
        Type::Paren(p) => storage_class(&p.elem),
        Type::Group(g) => storage_class(&g.elem),
        Type::Tuple(t) if t.elems.is_empty() => StorageClass::NoStorage,
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            match last.as_str() {
                "bool" | "char" | "f32" | "f64" | "f16" | "bf16" => StorageClass::NoStorage,
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => {
                    StorageClass::IntHandle
                }
                "Vec" | "Box" | "String" => StorageClass::Host,
                _ => StorageClass::Opaque,
            }
        }
        _ => StorageClass::Opaque,
    }
}

fn describe(class: StorageClass) -> &'static str {
    match class {
        StorageClass::NoStorage => "a by-value scalar that owns no storage",
        StorageClass::IntHandle => "a by-value integer handle",
        StorageClass::Host => "host memory",
        StorageClass::Opaque => "a buffer type",
    }
}

fn check_alias_types(out: &AliasOut, input: &Place, params: &Params, errors: &mut Vec<ContractError>) {
    let out_ty: Option<&Type> = match (out, params.output) {
        (_, ReturnType::Default) => {
            errors.push(ContractError::new(
                &ALIAS_TYPE_MISMATCH,
                out.span(),
                format!("`{}` returns nothing, so no output can share `{input}`'s storage", params.fn_name),
            ));
            return;
        }
        (AliasOut::Return { .. }, ReturnType::Type(_, ty)) => Some(ty),
        (AliasOut::ReturnIndex { index, span }, ReturnType::Type(_, ty)) => match &**ty {
            Type::Tuple(t) => match t.elems.iter().nth(*index as usize) {
                Some(elem) => Some(elem),
                None => {
                    errors.push(ContractError::new(
                        &ALIAS_TYPE_MISMATCH,
                        *span,
                        format!("`return.{index}`: `{}` returns a tuple of {} elements", params.fn_name, t.elems.len()),
                    ));
                    return;
                }
            },
            _ => None,
        },
        (AliasOut::ReturnField { .. }, _) => None,
    };
    // A field path of a parameter or `self`: its type is not in the signature.
    let in_ty = if input.root == PlaceRoot::Param && input.segments.len() == 1 { params.type_of(input.root_name()) } else { None };
    let (Some(out_ty), Some(in_ty)) = (out_ty, in_ty) else { return };
    let (o, i) = (storage_class(out_ty), storage_class(in_ty));
    let clash = o == StorageClass::NoStorage
        || i == StorageClass::NoStorage
        || matches!((o, i), (StorageClass::IntHandle, StorageClass::Host) | (StorageClass::Host, StorageClass::IntHandle));
    if clash {
        let ty = |t: &Type| quote::quote!(#t).to_string().replace(" ", "").replace("mut", "mut ");
        let span = if o == StorageClass::NoStorage { out.span() } else { input.first_span() };
        errors.push(ContractError::new(
            &ALIAS_TYPE_MISMATCH,
            span,
            format!(
                "`{out}` (`{}`, {}) cannot share storage with `{input}` (`{}`, {})",
                ty(out_ty),
                describe(o),
                ty(in_ty),
                describe(i)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::parse_contract;

    #[allow(clippy::disallowed_methods)] // spans of the short test string itself
    fn errors(contract: &str, sig: &str) -> Vec<(String, String)> {
        let c = parse_contract(contract.parse().unwrap()).unwrap_or_else(|e| panic!("{}", e[0].message));
        let sig: Signature = syn::parse_str(sig).unwrap();
        validate(&c, &sig)
            .into_iter()
            .map(|e| (e.rule.name.to_string(), contract[e.span.byte_range()].to_string()))
            .collect()
    }

    #[test]
    fn valid_contracts_have_no_errors() {
        let sig = "fn reshape_and_cache(key: &[f32], key_cache: &mut [f32], slot_mapping: &[i64])";
        assert!(errors("writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[NULL_BLOCK])", sig).is_empty());
        assert!(errors("reuses(self.plans, key(graph.fingerprint, self.version))", "fn run(&mut self, graph: &Graph) -> Plan").is_empty());
        assert!(errors("aliases(return = buf)", "fn add_async(s: Stream, buf: DevicePtr, n: usize) -> DevicePtr").is_empty());
        assert!(errors("aliases(return = buf)", "fn add_async(buf: u64) -> u64").is_empty());
        assert!(errors("aliases(return.0 = data)", "fn f(data: &mut [f32]) -> (&mut [f32], usize)").is_empty());
        assert!(errors("writes(cache[r#ref], skip = -1)", "fn w(cache: &mut [f32], r#ref: &[i64])").is_empty());
        // A method that returns its receiver's storage: consuming (burn's in-place ops), or `&mut`.
        assert!(errors("aliases(return = self)", "fn relu_(self) -> Tensor").is_empty());
        assert!(errors("aliases(return = self), writes(self.data[idx])", "fn scale_(&mut self, idx: &[usize]) -> &mut Self").is_empty());
    }

    #[test]
    fn the_receiver_is_an_alias_input_only_of_a_method() {
        assert_eq!(errors("aliases(return = self)", "fn relu_(t: Tensor) -> Tensor"), vec![("unknown_name".into(), "self".into())]);
        // `self` itself is a place only as an alias input.
        assert!(crate::contract::parse_contract(quote::quote!(writes(self[idx]))).is_err());
        let parsed = crate::contract::parse_contract(quote::quote!(aliases(return = self))).unwrap();
        assert_eq!(parsed.to_string(), "aliases(return = self)");
    }

    #[test]
    fn unknown_names_point_at_the_name() {
        assert_eq!(errors("writes(kv[slots], skip = -1)", "fn w(kv: &mut [f32], slot_mapping: &[i64])"), vec![("unknown_name".into(), "slots".into())]);
        assert_eq!(errors("reuses(self.plans, key(g))", "fn run(g: &Graph)"), vec![("unknown_name".into(), "self".into())]);
        assert_eq!(errors("forbids_write(kv[0])", "fn f(cache: &mut [f32])"), vec![("unknown_name".into(), "kv".into())]);
        assert_eq!(errors("preserves(self.log_step)", "fn f()"), vec![("unknown_name".into(), "self".into())]);
        assert!(errors("preserves(self.log_step)", "fn f(&self)").is_empty());
    }

    #[test]
    fn fresh_needs_a_cache_a_preserved_effect_and_an_output() {
        let sig = "fn run(&mut self, bs: usize) -> Result<Vec<f32>, E>";
        assert!(errors("reuses(self.graphs, key(bs)), preserves(replay), fresh(return, after = replay)", sig).is_empty());
        assert!(errors("reuses(self.graphs, key(bs)), preserves(self.replay), fresh(return, after = self.replay)", sig).is_empty());
        assert_eq!(
            errors("reuses(self.graphs, key(bs)), preserves(log_step), fresh(return, after = replay)", sig),
            vec![("unknown_name".into(), "replay".into())]
        );
        assert_eq!(errors("reuses(self.graphs, key(bs)), fresh(return, after = replay)", sig), vec![("unknown_name".into(), "replay".into())]);
        assert_eq!(errors("preserves(replay), fresh(return, after = replay)", sig), vec![("contract_syntax".into(), "fresh".into())]);
        assert_eq!(
            errors("reuses(self.g, key(bs)), preserves(replay), fresh(return, after = replay)", "fn run(&mut self, bs: usize)"),
            vec![("unknown_name".into(), "return".into())]
        );
        assert_eq!(
            errors("reuses(self.g, key(bs)), preserves(replay), fresh(return.2, after = replay)", "fn run(&mut self, bs: usize) -> (u8, u8)"),
            vec![("unknown_name".into(), "2".into())]
        );
        // The output inside `Ok`/`Some`: a part of it must exist.
        let fresh = |out: &str, ret: &str| errors(&format!("reuses(self.g, key(bs)), preserves(replay), fresh({out}, after = replay)"), &format!("fn run(&mut self, bs: usize) -> {ret}"));
        assert_eq!(fresh("return.output", "Option<Vec<f32>>"), vec![("unknown_name".into(), "output".into())]);
        assert_eq!(fresh("return.1", "Result<Vec<f32>, E>"), vec![("unknown_name".into(), "1".into())]);
        assert_eq!(fresh("return.output", "Result<Option<(Vec<f32>, u8)>, E>"), vec![("unknown_name".into(), "output".into())]);
        assert_eq!(fresh("return.2", "Option<(Vec<f32>, u8)>"), vec![("unknown_name".into(), "2".into())]);
        assert!(fresh("return.1", "Option<(Vec<f32>, u8)>").is_empty());
        assert!(fresh("return.output", "Result<Step, E>").is_empty(), "a type of the user's may have the field");
        assert!(fresh("return.0", "Option<Logits>").is_empty(), "a tuple struct may have the element");
    }

    #[test]
    fn aliases_between_incompatible_types_are_rejected() {
        assert_eq!(errors("aliases(return = n)", "fn f(n: u32, data: &mut [f32]) -> &mut [f32]"), vec![("alias_type_mismatch".into(), "n".into())]);
        assert_eq!(errors("aliases(return = data)", "fn f(data: &mut [f32]) -> f32"), vec![("alias_type_mismatch".into(), "return".into())]);
        assert_eq!(errors("aliases(return = data)", "fn f(data: &mut [f32])"), vec![("alias_type_mismatch".into(), "return".into())]);
        assert_eq!(errors("aliases(return.2 = data)", "fn f(data: &mut [f32]) -> (u8, u8)"), vec![("alias_type_mismatch".into(), "2".into())]);
    }
}
