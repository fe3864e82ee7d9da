//! Check for `ambiguous_call`: a call that several contracted functions with different contracts
//! could be; the checker says so instead of guessing (see `resolve` for what narrows a call).

use syn::Expr;

use crate::analysis::FnCtx;
use crate::finding::{Finding, Label};
use crate::resolve::{CallSite, Resolution};
use reuse_rules::catalogue::AMBIGUOUS_CALL;

pub(super) fn check(ctx: &FnCtx, calls: &[&Expr], out: &mut Vec<Finding>) {
    for &call in calls {
        let Some(site) = CallSite::of(call) else { continue };
        let Resolution::Ambiguous(cands) = ctx.resolve(&site) else { continue };
        // The message stays one line whatever the number of candidates (thousands of same-named
        // contracts would otherwise print megabytes per call).
        const LISTED: usize = 5;
        let mut paths: Vec<String> = cands.iter().take(LISTED).map(|c| format!("`{}`", c.display_path())).collect();
        if cands.len() > LISTED {
            paths.push(format!("{} more", cands.len() - LISTED));
        }
        let mut f = Finding::new(
            &AMBIGUOUS_CALL,
            format!("`{}` could be any of {}, whose contracts differ; this call is not checked", site.name, paths.join(", ")),
            ctx.label(call, "cannot tell which function this calls"),
        )
        .with_help("qualify the call (`Type::method(&mut x, ..)` or a full path) so that one contract applies");
        for c in cands.iter().take(3) {
            f = f.with_secondary(Label::new(&c.file, c.attr_range.clone(), format!("contract of `{}`", c.display_path())));
        }
        out.push(f);
    }
}
