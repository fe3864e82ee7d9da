//! `forbids_write(P[R], except(f, ..))`: sanctioned writers. A call of the contracted function made
//! while a sanctioned writer (`#[reuse::sanctioned]`) runs may write `R`, and its index entries in
//! `R` are ordinary positions; the same call from anywhere else is reported as before, also from a
//! function of the same name in another module.

mod common;

use common::rules;
use reuse::runtime::collect;

const BLOCK_SIZE: usize = 4;
const NULL_BLOCK: usize = 0;
const PAD_SLOT_ID: i64 = -1;

#[reuse::contract(
    writes(kv[slots], skip = PAD_SLOT_ID),
    forbids_write(kv[NULL_BLOCK..BLOCK_SIZE], except(health_check, health_check_through_helper, diag::probe, Pool::self_test))
)]
fn write_kv(kv: &mut [f32], slots: &[i64], value: f32) {
    for &s in slots {
        if s != PAD_SLOT_ID {
            kv[s as usize] = value;
        }
    }
}

/// Writes a dummy token into the null block on purpose (allocators start at block 1).
#[reuse::sanctioned]
fn health_check(kv: &mut [f32]) {
    write_kv(kv, &[NULL_BLOCK as i64], 1.0);
}

/// The same write, from a function the contract does not name.
fn warm_up(kv: &mut [f32]) {
    write_kv(kv, &[NULL_BLOCK as i64], 1.0);
}

/// A sanctioned writer reaches the kernel through a helper: the helper runs inside its scope.
#[reuse::sanctioned]
fn health_check_through_helper(kv: &mut [f32]) {
    warm_up(kv);
}

mod diag {
    /// Sanctioned by its path, `diag::probe`.
    #[reuse::sanctioned]
    pub fn probe(kv: &mut [f32]) {
        super::write_kv(kv, &[0], 2.0);
    }

    /// Marked, and named `health_check`, but not the `health_check` the contract names.
    #[reuse::sanctioned]
    pub fn health_check(kv: &mut [f32]) {
        super::write_kv(kv, &[0], 3.0);
    }
}

struct Pool {
    kv: Vec<f32>,
}

impl Pool {
    #[reuse::sanctioned]
    fn self_test(&mut self) -> f32 {
        write_kv(&mut self.kv, &[1, 5], 4.0);
        self.kv[1]
    }
}

/// A contracted function that forbids the region to itself, and calls the sanctioned writer:
/// what the writer writes while it runs inside the call is sanctioned.
#[reuse::contract(forbids_write(kv[0], except(health_check)))]
fn step(kv: &mut [f32], check: bool) {
    if check {
        health_check(kv);
    }
}

/// The same, but the write inside the call comes from no sanctioned writer.
#[reuse::contract(forbids_write(kv[0], except(health_check)))]
fn step_unsanctioned(kv: &mut [f32]) {
    kv[0] = 9.0;
}

fn cache() -> Vec<f32> {
    vec![7.0; 4 * BLOCK_SIZE]
}

#[test]
fn a_sanctioned_writer_writes_the_null_block_quietly() {
    let mut kv = cache();
    let v = collect(|| health_check(&mut kv));
    assert!(v.is_empty(), "{v:#?}");
    assert_eq!(kv[0], 1.0, "the write happened");
}

#[test]
fn the_same_write_from_another_function_is_reported_by_both_checks() {
    let mut kv = cache();
    let v = collect(|| warm_up(&mut kv));
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);
    assert!(v.iter().all(|x| x.clause.ends_with("except(health_check, health_check_through_helper, diag::probe, Pool::self_test))") || x.clause.starts_with("writes")));
}

#[test]
fn a_function_of_the_same_name_in_another_module_is_not_sanctioned() {
    let mut kv = cache();
    let v = collect(|| diag::health_check(&mut kv));
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);
    assert!(v[1].message.contains("none of its sanctioned writers [`sanctioned::health_check`, "), "{}", v[1].message);
}

#[test]
fn writers_are_matched_by_path_module_and_impl_type_included() {
    let mut kv = cache();
    assert!(collect(|| diag::probe(&mut kv)).is_empty());
    let mut pool = Pool { kv: cache() };
    let (v, out) = {
        let mut out = 0.0;
        let v = collect(|| out = pool.self_test());
        (v, out)
    };
    assert!(v.is_empty(), "{v:#?}");
    assert_eq!((out, pool.kv[1]), (4.0, 4.0));
}

#[test]
fn calls_made_inside_a_sanctioned_writer_through_helpers_are_sanctioned() {
    let mut kv = cache();
    assert!(collect(|| health_check_through_helper(&mut kv)).is_empty());
    // And the scope ends with the writer: the next call from outside is reported again.
    let v = collect(|| warm_up(&mut kv));
    assert_eq!(rules(&v), ["pad_to_null_block"], "the block already holds 1.0: only the scan sees it");
}

#[test]
fn a_sanctioned_writer_run_inside_a_contracted_call_sanctions_its_write() {
    let mut kv = cache();
    assert!(collect(|| step(&mut kv, true)).is_empty());
    assert_eq!(kv[0], 1.0);
    let mut kv = cache();
    assert_eq!(rules(&collect(|| step_unsanctioned(&mut kv))), ["forbidden_write"]);
}

#[test]
fn the_scope_is_left_when_the_writer_panics() {
    let mut kv = cache();
    #[reuse::sanctioned]
    fn panicking() {
        panic!("inside a sanctioned writer");
    }
    assert!(std::panic::catch_unwind(panicking).is_err());
    assert_eq!(rules(&collect(|| warm_up(&mut kv))), ["pad_to_null_block", "forbidden_write"]);
}
