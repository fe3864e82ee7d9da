//! The runtime half of the agreement on sanctioned writers: `fixtures/rules/sanctioned_writers.rs`
//! (whose `//~` markers the static checker is held to by `checker/tests/fixtures.rs`) is compiled
//! here with the shim on, each of its functions runs on a cache whose null block holds a marker,
//! and the violations are compared, per function, with the markers.

#[allow(dead_code)]
#[path = "../../fixtures/rules/sanctioned_writers.rs"]
mod fixture;

use reuse::runtime::testing::{by_function, check_agreement, check_shim, static_markers, Expect, Shared};
use reuse::runtime::{collect, Violation};

const SRC: &str = include_str!("../../fixtures/rules/sanctioned_writers.rs");
const FILE: &str = "fixtures/rules/sanctioned_writers.rs";

/// At run time the padded row is also written into the null block: the kernel's `forbids_write`
/// is broken as a consequence, as in the paged-KV fixture.
const CONSEQUENCE: &str = "the row padded with 0 is written into the null block: the kernel's forbids_write is broken as a consequence";

const AGREEMENT: &[Expect] = &[
    Expect { function: "warm_up", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block", "forbidden_write"], why: CONSEQUENCE },
    // `other::health_check`: marked, and of the sanctioned writer's name, but another function.
    Expect { function: "health_check", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block", "forbidden_write"], why: CONSEQUENCE },
    Expect { function: "step_scatter", static_rules: &["forbidden_write"], shim_rules: &["forbidden_write"], why: "" },
    // Named by no `except`: `write_pool`'s names `super::super::calibrate` only.
    Expect { function: "calibrate_again", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block", "forbidden_write"], why: CONSEQUENCE },
];

fn kv() -> Vec<f32> {
    vec![7.0; 8]
}

/// Every function of the fixture, on inputs that reach the null block.
fn run_all() -> Vec<Violation> {
    collect(|| {
        fixture::health_check(&mut kv());
        fixture::diag::probe(&mut kv());
        fixture::Pool { kv: kv() }.self_test();
        fixture::warm_up(&mut kv());
        fixture::other::health_check(&mut kv());
        fixture::step_repair(&mut kv(), &[0, 3]);
        fixture::step_scatter(&mut kv(), &[0, 3]);
        fixture::reset_null(&mut kv());
        fixture::calibrate(&mut kv());
        fixture::calibrate_again(&mut kv());
    })
}

#[test]
fn the_shim_reports_exactly_the_unsanctioned_writes() {
    check_shim(AGREEMENT, &by_function(&run_all(), FILE, SRC));
}

#[test]
fn the_shim_and_the_markers_agree() {
    check_agreement(AGREEMENT, SRC, &by_function(&run_all(), FILE, SRC), Shared::Covered);
}

#[test]
fn the_sanctioned_writers_really_wrote_the_null_block() {
    let mut kv = kv();
    assert!(collect(|| fixture::health_check(&mut kv)).is_empty());
    assert_eq!(kv[0], 1.0);
    let mut kv = vec![7.0; 8];
    assert!(collect(|| fixture::step_repair(&mut kv, &[0])).is_empty());
    assert_eq!(kv[0], 2.0);
    assert!(!static_markers(SRC).contains_key("step_repair"));
}
