//! `preserves(...)`: the per-call effect trace, `hit_skips_effect` and `effect_order`.

mod common;

use std::collections::HashMap;

use common::rules;
use reuse::runtime::{collect, Detail};

#[reuse::effect]
fn log_step() {}

#[reuse::effect]
fn check_errors() {}

#[reuse::effect]
fn advance_rng(state: &mut u64) -> u64 {
    *state += 1;
    *state
}

#[reuse::contract(preserves(log_step, check_errors))]
fn both(skip: bool, swap: bool) -> u32 {
    if skip {
        return 0;
    }
    if swap {
        check_errors();
        log_step();
    } else {
        log_step();
        check_errors();
    }
    1
}

#[test]
fn a_call_that_runs_the_effects_in_order_is_clean() {
    assert!(collect(|| assert_eq!(both(false, false), 1)).is_empty());
}

#[test]
fn a_path_that_skips_an_effect_is_reported() {
    let v = collect(|| {
        both(true, false);
    });
    assert_eq!(rules(&v), ["hit_skips_effect"]);
    assert_eq!(v[0].clause, "preserves(log_step, check_errors)");
    assert!(v[0].message.contains("`log_step`, `check_errors`"), "{}", v[0].message);
    assert_eq!(v[0].detail, Detail::Effects { expected: vec!["log_step", "check_errors"], actual: vec![], hit: None });
}

#[test]
fn effects_out_of_order_are_reported() {
    let v = collect(|| {
        both(false, true);
    });
    assert_eq!(rules(&v), ["effect_order"]);
    assert!(v[0].message.contains("[`check_errors`, `log_step`]"), "{}", v[0].message);
}

/// Effects run by a nested contracted call count for the caller, as they do statically.
#[reuse::contract(preserves(log_step))]
fn inner() {
    log_step();
}

#[reuse::contract(preserves(log_step, check_errors))]
fn outer(call_inner: bool) {
    if call_inner {
        inner();
    }
    check_errors();
}

#[test]
fn nested_contracted_calls_contribute_to_the_callers_trace() {
    assert!(collect(|| outer(true)).is_empty());
    assert_eq!(rules(&collect(|| outer(false))), ["hit_skips_effect"]);
}

#[reuse::contract(preserves(advance_rng))]
fn sample(rng: &mut u64) -> u64 {
    advance_rng(rng) * 2
}

#[test]
fn effects_with_values_are_traced_too() {
    let mut rng = 0;
    assert!(collect(|| assert_eq!(sample(&mut rng), 2)).is_empty());
    assert_eq!(rng, 1);
}

#[test]
fn effects_outside_a_contracted_call_cost_nothing_and_break_nothing() {
    assert!(collect(|| {
        log_step();
        check_errors();
    })
    .is_empty());
}

/// A cache whose hit path logs twice: every preserved effect runs, in order, but the trace of a hit
/// differs from the trace of a miss.
struct Cache {
    plans: HashMap<u64, u64>,
}

impl Cache {
    #[reuse::contract(reuses(self.plans, key(k)), preserves(log_step, check_errors))]
    fn get(&mut self, k: u64) -> u64 {
        log_step();
        if let Some(v) = self.plans.get(&k) {
            let v = *v;
            log_step();
            check_errors();
            return v;
        }
        let v = k * 10;
        self.plans.insert(k, v);
        check_errors();
        v
    }

    #[reuse::contract(reuses(self.plans, key(k)), preserves(log_step, check_errors))]
    fn get_clean(&mut self, k: u64) -> u64 {
        log_step();
        let v = *self.plans.entry(k).or_insert(k * 10);
        check_errors();
        v
    }
}

#[test]
fn the_trace_of_a_hit_must_equal_the_trace_of_a_miss() {
    let mut c = Cache { plans: HashMap::new() };
    assert!(collect(|| assert_eq!(c.get(1), 10)).is_empty(), "a miss");
    let v = collect(|| assert_eq!(c.get(1), 10));
    assert_eq!(rules(&v), ["effect_order"]);
    assert!(v[0].message.contains("differs from that of a miss"), "{}", v[0].message);
    assert!(matches!(v[0].detail, Detail::Effects { hit: Some(true), .. }));

    let mut c = Cache { plans: HashMap::new() };
    assert!(collect(|| {
        c.get_clean(1);
        c.get_clean(1);
        c.get_clean(2);
    })
    .is_empty());
}

#[test]
fn a_panicking_body_leaves_the_trace_consistent() {
    #[reuse::contract(preserves(log_step))]
    fn boom() {
        log_step();
        panic!("boom");
    }
    assert!(std::panic::catch_unwind(boom).is_err());
    assert!(collect(|| assert_eq!(both(false, false), 1)).is_empty());
    assert_eq!(rules(&collect(|| outer(false))), ["hit_skips_effect"]);
}
