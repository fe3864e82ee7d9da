// Contracts and effects on methods with `&mut self`, on trait methods, and suppressions on fn and impl items.
#![deny(warnings)]

use std::collections::HashMap;

pub const PAD_SLOT_ID: i64 = -1;
pub const NULL_BLOCK: usize = 0;

pub struct Graph {
    pub fingerprint: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub ops: usize,
}

pub struct PlanCache {
    plans: HashMap<(u64, u32), Plan>,
    adapter_version: u32,
    steps: usize,
    kv: Vec<f32>,
}

impl PlanCache {
    #[reuse::effect]
    fn log_step(&mut self) {
        self.steps += 1;
    }

    #[reuse::effect]
    pub fn check_errors(&self) -> bool {
        self.steps > 0
    }

    #[reuse::contract(
        reuses(self.plans, key(graph.fingerprint, self.adapter_version)),
        preserves(self.log_step, self.check_errors),
    )]
    pub fn run(&mut self, graph: &Graph) -> Plan {
        self.log_step();
        assert!(self.check_errors());
        let key = (graph.fingerprint, self.adapter_version);
        self.plans.entry(key).or_insert_with(|| Plan { ops: graph.fingerprint as usize }).clone()
    }

    #[reuse::contract(writes(self.kv[slot_mapping], skip = PAD_SLOT_ID), forbids_write(self.kv[NULL_BLOCK], self.kv[0..1]))]
    pub fn store(&mut self, slot_mapping: &[i64], values: &[f32]) {
        for (i, &slot) in slot_mapping.iter().enumerate() {
            if slot != PAD_SLOT_ID {
                self.kv[slot as usize] = values[i];
            }
        }
    }

    #[reuse::contract(aliases(return = buf))]
    pub fn recycle<'a>(&mut self, buf: &'a mut [f32]) -> &'a mut [f32] {
        self.steps += 1;
        buf
    }

    #[reuse::allow(pad_to_null_block, reason = "the warm-up batch is fully masked; slot 0 is never read")]
    pub fn warm_up(&mut self) -> Vec<i64> {
        vec![0; self.kv.len() - NULL_BLOCK]
    }
}

pub struct Engine {
    pool: Vec<u32>,
}

#[reuse::allow(undeclared_write, forbidden_write, reason = "the engine owns its pool; tests reset it wholesale")]
impl Engine {
    #[reuse::allow(use_after_donate, reason = "the handle is re-bound before the next call")]
    pub fn reset(&mut self) {
        self.pool.iter_mut().for_each(|b| *b = 0);
    }

    #[reuse::contract(forbids_write(self.pool[..=0]))]
    pub fn free_count(&mut self) -> usize {
        self.pool.iter().filter(|&&b| b == 0).count()
    }
}

pub trait Kernel {
    #[reuse::contract(writes(out[idx], skip = -1), reads(input[idx]))]
    fn launch(&self, input: &[f32], out: &mut [f32], idx: &[i64]);

    #[reuse::contract(writes(out[idx]))]
    fn launch_dense(&self, out: &mut [f32], idx: &[usize]) {
        for &i in idx {
            out[i] = 0.0;
        }
    }
}

pub struct Copy1;

impl Kernel for Copy1 {
    #[reuse::contract(writes(out[idx], skip = -1), reads(input[idx]))]
    fn launch(&self, input: &[f32], out: &mut [f32], idx: &[i64]) {
        for &i in idx.iter().filter(|&&i| i != -1) {
            out[i as usize] = input[i as usize];
        }
    }
}

#[reuse::allow(stale_key, hit_skips_effect, reason = "a read-only snapshot keyed by its own content")]
fn snapshot(cache: &PlanCache) -> usize {
    cache.plans.len()
}

fn main() {
    let mut cache = PlanCache { plans: HashMap::new(), adapter_version: 1, steps: 0, kv: vec![0.0; 4] };
    let graph = Graph { fingerprint: 9 };
    assert_eq!(cache.run(&graph), cache.run(&graph));
    cache.store(&[1, PAD_SLOT_ID], &[1.0, 2.0]);
    let mut buf = [1.0f32; 2];
    assert_eq!(cache.recycle(&mut buf).len(), 2);
    assert_eq!(cache.warm_up().len(), 4);
    assert_eq!(snapshot(&cache), 1);

    let mut engine = Engine { pool: vec![1, 0, 2] };
    engine.reset();
    assert_eq!(engine.free_count(), 3);

    let mut out = [0.0f32; 3];
    Copy1.launch(&[1.0, 2.0, 3.0], &mut out, &[2, -1]);
    Copy1.launch_dense(&mut out, &[0]);
    assert_eq!(out, [0.0, 0.0, 3.0]);
}
