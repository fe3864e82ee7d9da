//! Check for `hit_skips_effect`: a normally-returning path of a function with `preserves(...)`
//! that does not call every preserved effect.

use std::ops::Range;

use super::effects::Exit;
use super::names;
use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use reuse_rules::catalogue::HIT_SKIPS_EFFECT;
use reuse_rules::contract::{Clause, Effect};

pub(super) fn check(ctx: &FnCtx, clause: &Clause<Range<usize>>, effects: &[Effect<Range<usize>>], exits: &[Exit], out: &mut Vec<Finding>) {
    for exit in exits.iter().filter(|e| e.serves()) {
        let missing: Vec<&str> = effects
            .iter()
            .enumerate()
            .filter(|(i, _)| !exit.traces.all_ran(*i as u8))
            .map(|(_, e)| e.name())
            .collect();
        if missing.is_empty() {
            continue;
        }
        let range = exit.range.clone();
        let what = exit.describe();
        let all: Vec<&str> = effects.iter().map(|e| e.name()).collect();
        out.push(
            Finding::new(
                &HIT_SKIPS_EFFECT,
                format!("{what} skips the preserved effect{} {}", if missing.len() > 1 { "s" } else { "" }, names(&missing)),
                Label::new(ctx.file, range, format!("returns without calling {}", names(&missing))),
            )
            .with_secondary(Label::new(
                ctx.contract_file,
                clause.keyword.span.start..clause.end.end,
                "the contract requires these effects on every path, hit or miss",
            ))
            .with_help(format!(
                "call {} on this path too, in the declared order ({}); or run them once around the cache lookup",
                names(&missing),
                all.join(", ")
            )),
        );
    }
}
