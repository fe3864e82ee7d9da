//! Check for `undeclared_write`: a function whose contract declares a write set (`writes` or
//! `aliases`) writes a parameter outside it.
//!
//! The writes are the facts of [`super::writes`]: a write counts for the parameter whose storage
//! it reaches (directly, through a reborrow or a local bound to a field of it, through a helper
//! that writes its argument, through a contracted writer), compared as the parameter's local, so
//! a `let` that shadows the parameter is another local. The parameters that can be written are
//! `&mut` ones, `Option<&mut T>` ones, those behind a lock or a cell (`&Mutex<T>`, `&RwLock<T>`,
//! `&RefCell<T>`, in an `Arc` or not; `&Cell<T>` and the atomics, `&AtomicUsize`, and lists of
//! them; a struct with such fields, a few structs deep) and `&mut self`. The write set is a set of places: a write
//! to a field path that neither contains nor lies inside a declared place is outside it
//! (`writes(kv.key_cache[slots])` declares `kv.key_cache`, not `kv.value_cache`; `self` is
//! checked where the write set names a field of `self`). One finding per parameter field, at
//! its first write.

use syn::{FnArg, Type};

use super::writes;
use crate::analysis::FnCtx;
use crate::dataflow::{self, Base, LocalId, Place};
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use reuse_rules::catalogue::UNDECLARED_WRITE;

pub(super) fn check<'a>(ctx: &FnCtx<'a>, contract: &FileContract, memo: &writes::Memo<'a>, out: &mut Vec<Finding>) {
    if !contract.has_write_set() {
        return;
    }
    let declared: Vec<Place> = contract
        .writes()
        .map(|(_, t, _)| &t.place)
        .chain(contract.aliases().map(|(_, a)| &a.input))
        .filter_map(|p| super::contract_place(ctx.sig, p))
        .collect();
    // The parameters that can be written, by their locals (the first ids), and `self` where the
    // write set names a field of it.
    let names = dataflow::param_names(ctx.sig);
    let typed = ctx.sig.inputs.iter().filter_map(|a| match a {
        FnArg::Typed(pt) => Some(&*pt.ty),
        FnArg::Receiver(_) => None,
    });
    // A parameter writable whole, or only at the fields of its struct that are locks or cells
    // (`pool: &Pool` with `free: RwLock<Vec<usize>>`: `pool.free.write()` writes through it).
    let mut writable: Vec<(Base, &str, Option<String>)> = typed
        .zip(names.iter())
        .enumerate()
        .filter(|(_, (_, name))| *name != "_")
        .filter_map(|(i, (ty, name))| {
            let base = Base::Local(i as LocalId);
            if writable_type(ty, &ctx.resolver.imports) {
                return Some((base, name.as_str(), None));
            }
            let Type::Reference(r) = ty else { return None };
            let owner = crate::resolve::type_name(&r.elem)?;
            ctx.resolver.fields.has_interior(&owner).then_some((base, name.as_str(), Some(owner)))
        })
        .collect();
    // `&mut self` whole; `&self` at the fields of its struct written through a shared
    // reference (`self.hits.fetch_add(1, ..)`, `self.free.lock()`).
    if declared.iter().any(|p| p.base == Base::SelfValue && !p.fields.is_empty()) {
        match ctx.sig.receiver().filter(|r| r.reference.is_some()) {
            Some(r) if r.mutability.is_some() => writable.push((Base::SelfValue, "self", None)),
            Some(_) => {
                if let Some(owner) = ctx.self_type.filter(|owner| ctx.resolver.fields.has_interior(owner)) {
                    writable.push((Base::SelfValue, "self", Some(owner.to_string())));
                }
            }
            None => {}
        }
    }
    if writable.is_empty() {
        return;
    }
    let Some(writes) = writes::writes_of(ctx, memo, out) else { return };
    let mut reported: Vec<Place> = Vec::new();
    for w in writes {
        let Some(&(_, param, ref through)) = writable.iter().find(|(b, _, _)| *b == w.place.base) else { continue };
        if let Some(owner) = through {
            if !w.place.fields.first().is_some_and(|f| ctx.resolver.fields.is_interior(owner, f)) {
                continue;
            }
        }
        let inside_declared = |d: &Place| d.base == w.place.base && (d.fields.starts_with(&w.place.fields) || w.place.fields.starts_with(&d.fields));
        if declared.iter().any(inside_declared) {
            continue;
        }
        // One finding per parameter, or per field of it where the write set declares others.
        let declares_some = declared.iter().any(|d| d.base == w.place.base);
        let key = Place { base: w.place.base.clone(), fields: if declares_some { w.place.fields.iter().take(1).cloned().collect() } else { Vec::new() } };
        if reported.contains(&key) {
            continue;
        }
        let shown = std::iter::once(param.to_string()).chain(key.fields.iter().cloned()).collect::<Vec<_>>().join(".");
        reported.push(key);
        let how = w.how.describe(&shown);
        let attr = contract.clauses.first().map(|c| c.keyword.span.start..c.end.end);
        let what = if shown == param { format!("the parameter `{param}`") } else { format!("`{shown}`") };
        let mut f = Finding::new(
            &UNDECLARED_WRITE,
            format!("{how} writes {what}, which the contract's write set does not declare"),
            Label::new(ctx.file, w.at.clone(), format!("writes `{shown}`")),
        )
        .with_help(format!("declare it (`writes({shown}[INDEX], skip = ..)`) or stop writing it"));
        if let Some(range) = attr {
            f = f.with_secondary(Label::new(ctx.contract_file, range, "the write set is declared here"));
        }
        out.push(f);
    }
}

/// A parameter type whose storage the function can write: `&mut T`, `Option<&mut T>`, and
/// storage written through a shared reference (`&Mutex<T>`, `&RefCell<T>`, `Arc<Mutex<T>>`,
/// `&Cell<T>`, `&AtomicUsize`: [`crate::resolve::writes_through_shared_in`]).
fn writable_type(ty: &Type, imports: &crate::resolve::Imports) -> bool {
    match ty {
        Type::Reference(r) => r.mutability.is_some() || crate::resolve::writes_through_shared_in(&r.elem, imports),
        Type::Paren(p) => writable_type(&p.elem, imports),
        Type::Path(p) => {
            let Some(last) = p.path.segments.last() else { return false };
            let inner = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            match (last.ident.to_string().as_str(), inner) {
                ("Option", Some(t)) => matches!(t, Type::Reference(r) if r.mutability.is_some()),
                ("Arc" | "Rc", _) => crate::resolve::writes_through_shared_in(ty, imports),
                _ => false,
            }
        }
        _ => false,
    }
}

