//! Check for `effect_order`: preserved effects that run out of the declared order, or more than
//! once, on a path.

use std::ops::Range;

use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use super::effects::Exit;
use reuse_rules::catalogue::EFFECT_ORDER;
use reuse_rules::contract::{Clause, Effect};

pub(super) fn check(ctx: &FnCtx, clause: &Clause<Range<usize>>, effects: &[Effect<Range<usize>>], exits: &[Exit], out: &mut Vec<Finding>) {
    for exit in exits.iter().filter(|e| e.serves()) {
        let problem = exit.traces.0.iter().find_map(|trace| {
            if let Some(dup) = (0..effects.len() as u8).find(|i| trace.iter().filter(|t| *t == i).count() > 1) {
                return Some(format!("`{}` runs more than once", effects[dup as usize].name()));
            }
            trace.windows(2).find(|w| w[0] > w[1]).map(|w| {
                // The trace holds effect indices in call order: `w[0]` ran first, out of turn.
                format!("`{}` runs before `{}`", effects[w[0] as usize].name(), effects[w[1] as usize].name())
            })
        });
        let Some(problem) = problem else { continue };
        let order: Vec<&str> = effects.iter().map(|e| e.name()).collect();
        out.push(
            Finding::new(
                &EFFECT_ORDER,
                format!("preserved effects run out of order on {}: {problem}", exit.describe()),
                Label::new(ctx.file, exit.range.clone(), format!("returns here, and on this path {problem}")),
            )
            .with_secondary(Label::new(ctx.contract_file, clause.keyword.span.start..clause.end.end, "the declared order"))
            .with_help(format!("call the effects once each, in the order {}", order.join(", "))),
        );
    }
}
