//! `reuses(PLACE, key(...))`: hits and misses, `stale_hit`, and the opt-in `hit_mismatch`.

mod common;

use std::cell::RefCell;
use std::collections::HashMap;

use common::rules;
use reuse::runtime::{collect, with_hit_mismatch_every, Detail};

#[derive(Clone, Debug, PartialEq)]
struct Plan {
    graph: u64,
    version: u32,
}

#[derive(Default)]
struct Cache {
    plans: HashMap<u64, Plan>,
    version: u32,
}

impl Cache {
    /// Keyed on the graph only, although the plan depends on the version too.
    #[reuse::contract(reuses(self.plans, key(graph, self.version)))]
    fn stale(&mut self, graph: u64) -> Plan {
        let version = self.version;
        self.plans.entry(graph).or_insert_with(|| Plan { graph, version }).clone()
    }

    /// Keyed on both.
    #[reuse::contract(reuses(self.plans, key(graph, self.version)))]
    fn keyed(&mut self, graph: u64) -> Plan {
        let version = self.version;
        let key = graph * 1000 + version as u64;
        self.plans.entry(key).or_insert_with(|| Plan { graph, version }).clone()
    }

    /// Returns a borrow of the entry: the cache is read after the call through a raw pointer.
    #[reuse::contract(reuses(self.plans, key(graph, self.version)))]
    fn stale_ref(&mut self, graph: u64) -> &Plan {
        let version = self.version;
        self.plans.entry(graph).or_insert_with(|| Plan { graph, version })
    }
}

#[test]
fn a_hit_under_changed_key_components_is_stale() {
    let mut c = Cache::default();
    assert!(collect(|| {
        c.stale(1);
        c.stale(1);
        c.stale(2);
    })
    .is_empty());
    c.version = 1;
    let v = collect(|| assert_eq!(c.stale(1).version, 0));
    assert_eq!(rules(&v), ["stale_hit"]);
    assert_eq!(v[0].clause, "reuses(self.plans, key(graph, self.version))");
    assert_eq!(
        v[0].detail,
        Detail::Stale { components: vec![("graph", Some("1".into())), ("self.version", Some("1".into()))] }
    );
    assert!(v[0].message.contains("self.version = 1"), "{}", v[0].message);
}

#[test]
fn a_cache_keyed_on_every_component_is_clean() {
    let mut c = Cache::default();
    assert!(collect(|| {
        c.keyed(1);
        c.keyed(1);
        c.version = 1;
        c.keyed(1);
        c.keyed(1);
    })
    .is_empty());
}

#[test]
fn a_function_returning_a_borrow_is_observed_too() {
    let mut c = Cache::default();
    assert!(collect(|| {
        c.stale_ref(1);
        c.stale_ref(1);
    })
    .is_empty());
    c.version = 3;
    assert_eq!(rules(&collect(|| assert_eq!(c.stale_ref(1).version, 0))), ["stale_hit"]);
}

#[test]
fn entries_of_unknown_provenance_are_not_judged() {
    let mut c = Cache::default();
    c.plans.insert(1, Plan { graph: 1, version: 9 });
    assert!(
        collect(|| {
            c.stale(1);
        })
        .is_empty(),
        "stored by code the shim did not see"
    );
    c.plans.clear();
    c.stale(1);
    c.version = 1;
    assert_eq!(
        rules(&collect(|| {
            c.stale(1);
        })),
        ["stale_hit"],
        "known again once emptied"
    );
}

/// A cache behind a `RefCell`, a free function with the cache as a parameter, and explicit marks.
#[reuse::contract(reuses(memo, key(n)))]
fn fib_memo(memo: &RefCell<HashMap<u64, u64>>, n: u64) -> u64 {
    if let Some(v) = memo.borrow().get(&n) {
        return *v;
    }
    let v = if n < 2 { n } else { fib_memo(memo, n - 1) + fib_memo(memo, n - 2) };
    memo.borrow_mut().insert(n, v);
    v
}

#[reuse::contract(reuses(memo, key(n)))]
fn uncached_when_odd(memo: &mut HashMap<u64, u64>, n: u64) -> u64 {
    if n % 2 == 1 {
        // A miss that stores nothing: say so, or it looks like a hit.
        reuse::runtime::miss();
        return n;
    }
    *memo.entry(n % 4).or_insert(n)
}

#[test]
fn recursive_calls_and_refcell_caches_work() {
    let memo = RefCell::new(HashMap::new());
    let v = collect(|| assert_eq!(fib_memo(&memo, 20), 6765));
    assert!(v.is_empty(), "{v:#?}");
    assert!(collect(|| assert_eq!(fib_memo(&memo, 20), 6765)).is_empty());
}

#[test]
fn explicit_marks_override_the_inference() {
    let mut memo = HashMap::new();
    let v = collect(|| {
        uncached_when_odd(&mut memo, 2);
        uncached_when_odd(&mut memo, 3);
        uncached_when_odd(&mut memo, 5);
    });
    assert!(v.is_empty(), "{v:#?}");
    // 6 % 4 == 2 was stored under n = 2: serving it for n = 6 is a stale hit.
    assert_eq!(rules(&collect(|| assert_eq!(uncached_when_odd(&mut memo, 6), 2))), ["stale_hit"]);
}

#[test]
fn hit_mismatch_is_opt_in_and_recomputes_a_hit() {
    let mut c = Cache::default();
    c.stale(1);
    c.version = 1;
    // Off by default: only the stale hit.
    assert_eq!(
        rules(&collect(|| {
            c.stale(1);
        })),
        ["stale_hit"]
    );
    let v = with_hit_mismatch_every(1, || {
        collect(|| {
            assert_eq!(c.stale(1).version, 0, "the recomputation does not change the result");
        })
    });
    assert_eq!(rules(&v), ["stale_hit", "hit_mismatch"]);
    assert_eq!(
        v[1].detail,
        Detail::Mismatch {
            cached: Some("Plan { graph: 1, version: 0 }".into()),
            recomputed: Some("Plan { graph: 1, version: 1 }".into())
        }
    );
    assert_eq!(c.plans.len(), 1, "the cache is restored after the recomputation");

    let mut good = Cache::default();
    let v = with_hit_mismatch_every(1, || {
        collect(|| {
            good.keyed(1);
            good.keyed(1);
            good.version = 2;
            good.keyed(1);
            good.keyed(1);
        })
    });
    assert!(v.is_empty(), "{v:?}");
}

#[reuse::effect]
fn count_step(n: &mut u32) {
    *n += 1;
}

struct Counted {
    plans: HashMap<u64, u64>,
    steps: u32,
}

impl Counted {
    #[reuse::contract(reuses(self.plans, key(k)), preserves(count_step))]
    fn get(&mut self, k: u64) -> u64 {
        count_step(&mut self.steps);
        *self.plans.entry(k).or_insert(k + 1)
    }
}

#[test]
fn a_recomputation_skips_unit_effects_and_checks_nothing_nested() {
    let mut c = Counted { plans: HashMap::new(), steps: 0 };
    let v = with_hit_mismatch_every(1, || {
        collect(|| {
            c.get(1);
            c.get(1);
            c.get(1);
        })
    });
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(c.steps, 3, "the effect ran once per call, not again in the recomputations");
}

#[test]
fn sampling_recomputes_one_hit_in_n() {
    let mut c = Cache::default();
    c.stale(1);
    c.version = 1;
    let v = with_hit_mismatch_every(3, || {
        collect(|| {
            for _ in 0..6 {
                c.stale(1);
            }
        })
    });
    assert_eq!(v.iter().filter(|v| v.rule_name() == "hit_mismatch").count(), 2);
}

/// A single-slot cache the shim cannot see into by itself: it implements `CachePlace` with a
/// counter it bumps when it stores.
#[derive(Default)]
struct Slot {
    value: Option<(u64, u64)>,
    stores: u64,
}

impl reuse::runtime::CachePlace for Slot {
    fn cache_signature(&self) -> Option<reuse::runtime::CacheSignature> {
        Some(reuse::runtime::CacheSignature { entries: self.value.is_some() as usize, keys: self.stores })
    }
}

#[derive(Default)]
struct Last {
    slot: Slot,
}

impl Last {
    fn store(&mut self, k: u64) -> u64 {
        let v = k * 2;
        self.slot.value = Some((k, v));
        self.slot.stores += 1;
        v
    }

    #[reuse::contract(reuses(self.slot, key(k)))]
    fn get(&mut self, k: u64) -> u64 {
        match self.slot.value {
            Some((kk, v)) if kk == k => v,
            _ => self.store(k),
        }
    }

    /// Serves whatever the slot holds.
    #[reuse::contract(reuses(self.slot, key(k)))]
    fn get_any(&mut self, k: u64) -> u64 {
        match self.slot.value {
            Some((_, v)) => v,
            None => self.store(k),
        }
    }
}

#[test]
fn a_user_cache_takes_part_through_cache_place() {
    let mut c = Last::default();
    assert!(collect(|| {
        assert_eq!(c.get(1), 2);
        assert_eq!(c.get(1), 2);
        assert_eq!(c.get(2), 4);
        assert_eq!(c.get(1), 2);
    })
    .is_empty());
    let mut c = Last::default();
    let v = collect(|| {
        c.get_any(1);
        c.get_any(1);
        assert_eq!(c.get_any(2), 2, "served the entry of key 1");
    });
    assert_eq!(rules(&v), ["stale_hit"]);
}
