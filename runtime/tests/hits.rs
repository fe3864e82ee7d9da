//! Hit paths and fresh results at run time: a call that returns an error, or a miss that declines
//! (the contract's `miss` pattern; without one, with `reuses`, `None`/`Ok(None)`), is held neither
//! to `preserves` nor to `fresh`; a hit with `fresh(OUT, after = E)` must return storage E wrote in
//! this call, or a copy of it (`stale_result`).

mod common;

use std::collections::HashMap;

use common::rules;
use reuse::runtime::{collect, Detail};

#[reuse::effect]
fn log_step() {}

#[reuse::effect]
fn check_errors() {}

#[derive(Debug, PartialEq)]
pub enum Outcome {
    Replayed(u32),
    Eager,
}

#[derive(Default)]
struct Plans {
    plans: HashMap<u64, u32>,
}

impl Plans {
    /// Declines with `Ok(None)` and fails with `Err`, both before the effects.
    #[reuse::contract(reuses(self.plans, key(g)), preserves(log_step, check_errors))]
    fn lookup(&mut self, g: u64) -> Result<Option<u32>, String> {
        if g == 0 {
            return Err("no graph".into());
        }
        let Some(p) = self.plans.get(&g).copied() else { return Ok(None) };
        log_step();
        check_errors();
        Ok(Some(p))
    }

    /// The same, but the hit is served before the effects.
    #[reuse::contract(reuses(self.plans, key(g)), preserves(log_step, check_errors))]
    fn served_early(&mut self, g: u64) -> Result<Option<u32>, String> {
        if let Some(p) = self.plans.get(&g) {
            return Ok(Some(*p));
        }
        Ok(None)
    }

    /// A declared miss pattern: `Ok(Outcome::Eager)` declines.
    #[reuse::contract(reuses(self.plans, key(g), miss = Ok(Outcome::Eager)), preserves(log_step))]
    fn outcome(&mut self, g: u64) -> Result<Outcome, String> {
        let Some(p) = self.plans.get(&g).copied() else { return Ok(Outcome::Eager) };
        log_step();
        Ok(Outcome::Replayed(p))
    }

    /// With a declared pattern, `None` is not a miss any more.
    #[reuse::contract(reuses(self.plans, key(g), miss = Some(0)), preserves(log_step))]
    fn zero_declines(&mut self, g: u64) -> Option<u32> {
        if g == 1 {
            return Some(0);
        }
        if g == 2 {
            return None;
        }
        log_step();
        Some(7)
    }
}

/// Without `reuses`, `None` is a result like any other; an `Err` is still an error exit.
#[reuse::contract(preserves(log_step))]
fn no_cache(g: u64) -> Result<Option<u64>, String> {
    match g {
        0 => Err("bad".into()),
        1 => Ok(None),
        _ => {
            log_step();
            Ok(Some(g))
        }
    }
}

#[test]
fn errors_and_declining_misses_are_not_held_to_preserves() {
    let mut p = Plans::default();
    let v = collect(|| {
        assert_eq!(p.lookup(0), Err("no graph".into()));
        assert_eq!(p.lookup(5), Ok(None));
        p.plans.insert(5, 9);
        assert_eq!(p.lookup(5), Ok(Some(9)));
        assert_eq!(p.outcome(6), Ok(Outcome::Eager));
        assert_eq!(p.outcome(5), Ok(Outcome::Replayed(9)));
        assert_eq!(p.zero_declines(1), Some(0));
        assert_eq!(no_cache(0), Err("bad".into()));
    });
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn a_hit_served_before_the_effects_is_still_reported() {
    let mut p = Plans::default();
    p.plans.insert(3, 1);
    let v = collect(|| {
        assert_eq!(p.served_early(4), Ok(None)); // declines: exempt
        assert_eq!(p.served_early(3), Ok(Some(1))); // a hit without the effects
    });
    assert_eq!(rules(&v), ["hit_skips_effect"]);
    assert!(matches!(v[0].detail, Detail::Effects { hit: Some(true), .. }), "{:?}", v[0].detail);
}

#[test]
fn a_declared_pattern_replaces_the_default_and_none_without_a_cache_serves() {
    let mut p = Plans::default();
    let v = collect(|| {
        assert_eq!(p.zero_declines(2), None);
    });
    assert_eq!(rules(&v), ["hit_skips_effect"]);
    let v = collect(|| {
        assert_eq!(no_cache(1), Ok(None));
    });
    assert_eq!(rules(&v), ["hit_skips_effect"]);
}

#[test]
fn a_declining_miss_is_a_miss_for_stale_hit() {
    // The cache is unchanged by a declining call, which would otherwise look like a hit; with
    // entries stored under other components it would be reported as a stale hit.
    let mut p = Plans::default();
    let v = collect(|| {
        p.plans.insert(1, 1);
        assert_eq!(p.lookup(2), Ok(None));
    });
    assert!(v.is_empty(), "{v:?}");
}

// ------------------------------------------------------------------------------------------------
// fresh(return, after = replay)

// The fixture's graph: replaying it writes `output`; for the shim its storage is that buffer.
use fixture_graph_replay::Graph;

/// An effect that writes a buffer passed to it (not its receiver).
#[reuse::effect]
fn replay_into(_g: &Graph, input: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend(input.iter().map(|x| x * 2.0));
}

#[derive(Default)]
struct Runner {
    graphs: HashMap<usize, Graph>,
    scratch: Vec<f32>,
}

impl Runner {
    fn capture_if_missing(&mut self, input: &[f32]) -> bool {
        if self.graphs.contains_key(&input.len()) {
            return false;
        }
        self.graphs.insert(input.len(), Graph::capture(input));
        true
    }

    #[reuse::contract(reuses(self.graphs, key(bs)), preserves(replay), fresh(return, after = replay))]
    fn stale(&mut self, bs: usize, input: &[f32]) -> Option<Vec<f32>> {
        let g = self.graphs.get_mut(&bs)?;
        g.replay(input);
        Some(g.captured_output.clone())
    }

    #[reuse::contract(reuses(self.graphs, key(bs)), preserves(replay), fresh(return, after = replay))]
    fn copied_before(&mut self, bs: usize, input: &[f32]) -> Option<Vec<f32>> {
        let g = self.graphs.get_mut(&bs)?;
        let out = g.output.clone();
        g.replay(input);
        Some(out)
    }

    #[reuse::contract(reuses(self.graphs, key(bs)), preserves(replay), fresh(return, after = replay))]
    fn copied_after(&mut self, bs: usize, input: &[f32]) -> Option<Vec<f32>> {
        let g = self.graphs.get_mut(&bs)?;
        g.replay(input);
        Some(g.output.clone())
    }

    #[reuse::contract(reuses(self.graphs, key(bs)), preserves(replay), fresh(return, after = replay))]
    fn borrowed_after(&mut self, bs: usize, input: &[f32]) -> Result<&[f32], String> {
        let g = self.graphs.get_mut(&bs).ok_or("not captured")?;
        g.replay(input);
        Ok(&g.output)
    }

    #[reuse::contract(reuses(self.graphs, key(bs)), preserves(replay_into), fresh(return.0, after = replay_into))]
    fn into_scratch(&mut self, bs: usize, input: &[f32]) -> (Vec<f32>, usize) {
        let Some(g) = self.graphs.get(&bs) else { return (Vec::new(), 0) };
        replay_into(g, input, &mut self.scratch);
        (self.scratch.clone(), bs)
    }
}

#[test]
fn a_hit_that_returns_what_the_replay_wrote_is_fresh() {
    let mut r = Runner::default();
    r.capture_if_missing(&[1.0, 2.0]);
    let v = collect(|| {
        assert_eq!(r.copied_after(2, &[3.0, 4.0]), Some(vec![6.0, 8.0]));
        assert_eq!(r.borrowed_after(2, &[5.0, 6.0]), Ok(&[10.0, 12.0][..]));
        assert_eq!(r.into_scratch(2, &[1.0, 1.0]), (vec![2.0, 2.0], 2));
        // A miss declines (`None`): nothing is checked.
        assert_eq!(r.copied_after(3, &[1.0, 1.0, 1.0]), None);
    });
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn a_hit_that_returns_the_captured_output_is_stale() {
    let mut r = Runner::default();
    r.capture_if_missing(&[1.0, 2.0]);
    let v = collect(|| {
        assert_eq!(r.stale(2, &[3.0, 4.0]), Some(vec![2.0, 4.0]), "the output of the capture");
    });
    assert_eq!(rules(&v), ["stale_result"]);
    assert_eq!(v[0].clause, "fresh(return, after = replay)");
    assert!(v[0].message.contains("neither wrote nor produced"), "{}", v[0].message);
    assert!(matches!(&v[0].detail, Detail::Fresh { effect: "replay", written, .. } if written.len() == 1), "{:?}", v[0].detail);
}

#[test]
fn a_copy_taken_before_the_replay_is_stale() {
    let mut r = Runner::default();
    r.capture_if_missing(&[1.0, 2.0]);
    let v = collect(|| {
        assert_eq!(r.copied_before(2, &[3.0, 4.0]), Some(vec![2.0, 4.0]));
    });
    assert_eq!(rules(&v), ["stale_result"]);
}

#[test]
fn a_stale_value_equal_to_the_fresh_one_is_not_reported() {
    // The same input as at capture time: the captured output holds the replay's bytes.
    let mut r = Runner::default();
    r.capture_if_missing(&[1.0, 2.0]);
    let v = collect(|| {
        assert_eq!(r.stale(2, &[1.0, 2.0]), Some(vec![2.0, 4.0]));
    });
    assert!(v.is_empty(), "{v:?}");
}
