//! Check for `forbidden_write`: writes to a `forbids_write(P[C])` region in the body, and passing
//! P to a callee that writes it without forbidding the same region.
//!
//! The writes are the facts of [`super::writes`] (a dataflow analysis: places compared as a base
//! local and a field path, reborrows and slices followed, helpers by their summaries). A write
//! is seen when its positions are known and meet the region: an index that is a literal or a
//! constant (or a range of them), a slice with known bounds, or the whole of P (`P.fill(..)`,
//! `P.iter_mut()`, `P.as_mut_ptr()`). Writes at computed indices are left to the runtime shim.

use std::ops::Range;

use super::writes::{self, How};
use crate::analysis::FnCtx;
use crate::dataflow::Place;
use crate::finding::{Finding, Label};
use crate::index::{ContractedFn, FileContract};
use reuse_rules::catalogue::FORBIDDEN_WRITE;
use reuse_rules::contract::{Clause, Region};

struct Forbidden<'a> {
    clause: &'a Clause<Range<usize>>,
    region: &'a Region<Range<usize>>,
    /// The region's place in this function, and its positions when they are known.
    place: Place,
    bounds: Option<(i128, i128)>,
}

pub(super) fn check_body<'a>(ctx: &FnCtx<'a>, contract: &FileContract, memo: &writes::Memo<'a>, out: &mut Vec<Finding>) {
    let own = ctx.own_contracted();
    // A function its own clause names in `except(..)` may write the region.
    let forbidden: Vec<Forbidden> = contract
        .forbidden_regions()
        .filter(|(clause, _)| !own.is_some_and(|o| ctx.sanctioned_by(o, clause)))
        .filter_map(|(clause, region)| {
            let place = super::contract_place(ctx.sig, &region.place)?;
            Some(Forbidden { clause, region, place, bounds: ctx.region_bounds(&region.index, ctx.resolver.crate_name) })
        })
        .collect();
    if forbidden.is_empty() {
        return;
    }
    let Some(writes) = writes::writes_of(ctx, memo, out) else { return };
    for w in writes {
        let Some(positions) = w.positions else { continue };
        let hit = forbidden.iter().find(|f| {
            f.place == w.place && f.bounds.is_some_and(|(lo, hi)| positions.0 < hi && lo < positions.1) && !handed_on_safely(ctx, own, f, &w.how)
        });
        let Some(f) = hit else { continue };
        let shown = f.region.place.to_string();
        let how = w.how.describe(&shown);
        let region = format!("{shown}[{}]", f.region.index);
        out.push(
            Finding::new(&FORBIDDEN_WRITE, format!("{how} writes `{region}`, which this function's contract forbids"), Label::new(ctx.file, w.at.clone(), "writes forbidden storage"))
                .with_secondary(Label::new(ctx.contract_file, f.clause.keyword.span.start..f.clause.end.end, "declared never written here"))
                .with_help(format!("leave `{region}` untouched: skip it, or write only outside the region")),
        );
    }
}

/// A region handed to a contracted writer (directly or through a helper) that is one of the
/// clause's sanctioned writers (`except(..)`), or that forbids the same region itself.
fn handed_on_safely(ctx: &FnCtx, own: Option<&ContractedFn>, f: &Forbidden, how: &How) -> bool {
    let (callee, param) = match how {
        How::Callee { callee, param } => (*callee, param.as_str()),
        How::Helper { writer: Some((callee, param)), .. } => (*callee, param.as_str()),
        _ => return false,
    };
    let sanctioned = own.is_some_and(|o| o.sanctions(f.clause, &callee.path, ctx.index));
    sanctioned || callee.contract.forbidden_regions().any(|(_, r)| r.place.root_name() == param && r.index.to_string() == f.region.index.to_string())
}
