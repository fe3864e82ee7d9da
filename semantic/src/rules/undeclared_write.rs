//! Check for `undeclared_write`: a function whose contract declares a write set (`writes` or
//! `aliases`) writes a `&mut` parameter outside it.
//!
//! The writes are the facts of [`super::writes`]: a write counts for the parameter whose storage
//! it reaches (directly, through a reborrow or a local bound to a field of it, through a helper
//! that writes its argument, through a contracted writer), compared as the parameter's local, so
//! a `let` that shadows the parameter is another local. One finding per parameter, at its first
//! write.

use syn::{FnArg, Type};

use super::writes;
use crate::analysis::FnCtx;
use crate::dataflow::{self, Base, LocalId};
use crate::finding::{Finding, Label};
use crate::index::FileContract;
use reuse_rules::catalogue::UNDECLARED_WRITE;

pub(super) fn check<'a>(ctx: &FnCtx<'a>, contract: &FileContract, memo: &writes::Memo<'a>, out: &mut Vec<Finding>) {
    if !contract.has_write_set() {
        return;
    }
    // `&mut` parameters the write set does not declare, by their locals (the first ids).
    let names = dataflow::param_names(ctx.sig);
    let typed = ctx.sig.inputs.iter().filter_map(|a| match a {
        FnArg::Typed(pt) => Some(&*pt.ty),
        FnArg::Receiver(_) => None,
    });
    let undeclared: Vec<(LocalId, &str)> = typed
        .zip(names.iter())
        .enumerate()
        .filter(|(_, (ty, name))| matches!(ty, Type::Reference(r) if r.mutability.is_some()) && *name != "_" && !contract.declares_write_to(name))
        .map(|(i, (_, name))| (i as LocalId, name.as_str()))
        .collect();
    if undeclared.is_empty() {
        return;
    }
    let Some(writes) = writes::writes_of(ctx, memo, out) else { return };
    let mut reported = Vec::new();
    for w in writes {
        let Base::Local(id) = w.place.base else { continue };
        let Some(&(_, param)) = undeclared.iter().find(|(p, _)| *p == id) else { continue };
        if reported.contains(&id) {
            continue;
        }
        reported.push(id);
        let how = w.how.describe(param);
        let attr = contract.clauses.first().map(|c| c.keyword.span.start..c.end.end);
        let mut f = Finding::new(
            &UNDECLARED_WRITE,
            format!("{how} writes the parameter `{param}`, which the contract's write set does not declare"),
            Label::new(ctx.file, w.at.clone(), format!("writes `{param}`")),
        )
        .with_help(format!("declare it (`writes({param}[INDEX], skip = ..)`) or stop writing it"));
        if let Some(range) = attr {
            f = f.with_secondary(Label::new(ctx.contract_file, range, "the write set is declared here"));
        }
        out.push(f);
    }
}
