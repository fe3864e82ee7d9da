//! Snapshots of the terminal output for a few findings: what a user reads is reviewed in the diff.

use std::path::Path;

use reuse_check::render::human::render_finding;
use reuse_check::workspace::Target;

fn findings_in(file: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let report = reuse_check::check(&Target { path: Some(dir), ..Target::default() }).unwrap();
    report.findings.iter().filter(|f| f.primary.file.rel_path == file).map(|f| render_finding(f, false)).collect()
}

#[test]
fn plan_cache_hit_that_skips_the_effects() {
    let out = findings_in("plan-cache/src/buggy.rs");
    insta::assert_snapshot!("hit_skips_effect", out.iter().find(|s| s.contains("hit_skips_effect")).unwrap());
    insta::assert_snapshot!("memoized_effect", out.iter().find(|s| s.contains("memoized_effect")).unwrap());
}

#[test]
fn late_reset_of_a_zero_filled_slot_mapping() {
    let out = findings_in("paged-kv/src/buggy.rs");
    insta::assert_snapshot!("pad_to_null_block_late_reset", out.iter().find(|s| s.contains("comes only here")).unwrap());
}

#[test]
fn donated_handle_read_after_the_call() {
    let out = findings_in("donation/src/buggy.rs");
    insta::assert_snapshot!("use_after_donate", &out[0]);
}

#[test]
fn effect_order_names_the_effect_that_ran_first() {
    let out = findings_in("plan-cache/src/buggy.rs");
    let order = out.iter().find(|s| s.contains("[reuse::effect_order]")).unwrap();
    // `run_swapped` calls check_errors() and then log_step() on its hit path.
    assert!(order.contains("`check_errors` runs before `log_step`"), "{order}");
}
