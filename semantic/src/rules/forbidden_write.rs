//! Check for `forbidden_write`: writes to a `forbids_write(P[C])` region in the body, and passing
//! P to a callee that writes it without forbidding the same region. At call sites: a constant
//! index (`pool.write(0, &row)`) of a callee whose own contract forbids writing its place there
//! (`writes(self.blocks[block])` with `forbids_write(self.blocks[0])`), from a function its
//! `except(..)` does not name.
//!
//! The writes are the facts of [`super::writes`] (a dataflow analysis: places compared as a base
//! local and a field path, reborrows and slices followed, helpers by their summaries). A write
//! is seen when its positions are known and meet the region: an index that is a literal or a
//! constant (or a range of them), an element written in any part of it, a slice with known
//! bounds, or the whole of P (`P.fill(..)`, `P.iter_mut()`). Writes at computed indices, through
//! a raw pointer (`P.as_mut_ptr()`) and past the end (`push`) are left to the runtime shim.

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

/// At each call: a constant scalar index of a `writes(P[IDX])` callee that lands in a
/// `forbids_write(P[R])` region of the same contract, unless this function is a sanctioned writer
/// of that clause or the constant is the `skip` sentinel. (Buffers of indexes holding the null
/// block are found by the padding analysis, which follows their entries: `pad_to_null_block`
/// with a sentinel, this rule without one; fallback defaults are `fallback_index`'s.)
/// A loop counter or a local holding a constant passed there (`for b in 0..n {
/// pool.zero_block(b) }`) is judged by the positions it takes, from the write analysis of the
/// body (run only where such a call is); one that holds 0 because it fell back to it
/// (`if let Some(&b) = t.get(i) { b } else { 0 }`) is `fallback_index`'s finding (`fell_back`:
/// the arguments it reported, by byte range), not a second one here.
pub(super) fn check_calls<'a>(ctx: &FnCtx<'a>, calls: &[&syn::Expr], memo: &writes::Memo<'a>, fell_back: &std::collections::HashSet<(usize, usize)>, out: &mut Vec<Finding>) {
    for call in calls {
        let Some((site, callee)) = ctx.callee(call) else { continue };
        for (_, target, skip) in callee.contract.writes() {
            if target.index.segments.len() > 1 || callee.index_is_buffer(&target.index) {
                continue;
            }
            let place = target.place.to_string();
            let mut regions = callee.contract.forbidden_regions().filter(|(_, r)| r.place.to_string() == place).peekable();
            if regions.peek().is_none() {
                continue;
            }
            let Some(arg) = site.arg_named(callee, target.index.root_name()) else { continue };
            // The positions the argument takes: one constant, or a counter's.
            let (values, counter) = match ctx.int_value(arg) {
                Some(value) if skip.is_some_and(|s| ctx.sentinel_value(s, callee) == Some(value)) => continue,
                Some(value) => ((value, value.saturating_add(1)), false),
                // A local, or a part of one (`w.block` of `let w = Warm { block: NULL_BLOCK, .. }`).
                None if matches!(crate::resolve::strip(arg), syn::Expr::Path(_) | syn::Expr::Field(_)) => {
                    let range = ctx.expr_range(arg);
                    let stripped = ctx.expr_range(crate::resolve::strip(arg));
                    if fell_back.contains(&(stripped.start, stripped.end)) {
                        continue;
                    }
                    let Some(&at) = writes::facts_of(ctx, memo, out).and_then(|f| f.counted_args.get(&(range.start, range.end))) else { continue };
                    (at, true)
                }
                None => continue,
            };
            for (clause, region) in regions {
                let inside = ctx.region_bounds(&region.index, &callee.path[0]).is_some_and(|(lo, hi)| values.0 < hi && lo < values.1);
                if !inside || ctx.sanctioned_by(callee, clause) {
                    continue;
                }
                let written = ctx.source_text(crate::resolve::strip(arg));
                let subject = if counter { format!("`{written}`, which can be {} here,", values.0) } else { format!("`{written}`") };
                let forbidden = format!("{place}[{}]", region.index);
                let sanctioned = if clause.except().is_empty() { String::new() } else { ", and this function is not one of the writers it sanctions".to_string() };
                out.push(
                    Finding::new(
                        &FORBIDDEN_WRITE,
                        format!("{subject} is passed as `{}` of `{}`, which writes `{place}` there: `{forbidden}` is storage its contract forbids writing{sanctioned}", target.index, callee.name),
                        Label::new(ctx.file, ctx.expr_range(arg), "writes forbidden storage"),
                    )
                    .with_secondary(crate::analysis::clause_label(callee, clause, "declared never written here"))
                    .with_help(format!("pass a position outside `{forbidden}` (the first free block), or write it from a function the contract names in `except(..)`")),
                );
            }
        }
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
