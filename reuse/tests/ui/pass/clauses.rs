// Every clause form on free functions compiles, and the attributes trip no warning.
#![deny(warnings)]

use std::collections::HashMap;

pub const PAD_SLOT_ID: i64 = -1;
pub const NULL_BLOCK: usize = 0;
pub const RESERVED: usize = 2;
pub const FIRST_FREE: usize = 3;

pub mod kv {
    pub const PAD_SLOT_ID: i64 = -1;
    pub const NULL_BLOCK: usize = 0;
}

pub mod obs {
    #[reuse::effect]
    pub fn record_metrics() {}
}

#[reuse::effect]
pub fn log_step() {}

#[reuse::effect]
pub fn check_errors() {}

pub struct Config {
    pub blocks: Vec<f32>,
}

pub struct Batch {
    pub slots: Vec<i64>,
}

pub struct Request {
    pub prompt_hash: u64,
    pub adapter_version: u32,
}

fn scatter(cache: &mut [f32], values: &[f32], slots: &[i64], skip: i64) {
    for (i, &slot) in slots.iter().enumerate() {
        if slot != skip {
            cache[slot as usize] = values[i];
        }
    }
}

// `reuses` with a parameter as the cache and parameter field paths as key components.
#[reuse::contract(reuses(cache, key(req.prompt_hash, req.adapter_version)))]
pub fn lookup(cache: &mut HashMap<(u64, u32), f32>, req: &Request) -> f32 {
    *cache.entry((req.prompt_hash, req.adapter_version)).or_insert(1.0)
}

// `preserves` with several effects, some named by path; a trailing comma.
#[reuse::contract(preserves(log_step, check_errors, obs::record_metrics, crate::obs::record_metrics),)]
pub fn step() {
    log_step();
    check_errors();
    obs::record_metrics();
    crate::obs::record_metrics();
}

// `writes` with a const sentinel, and a `forbids_write` at a const.
#[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[NULL_BLOCK]))]
pub fn reshape_and_cache(key: &[f32], key_cache: &mut [f32], slot_mapping: &[i64]) {
    scatter(key_cache, key, slot_mapping, PAD_SLOT_ID);
}

// `writes` with a negative literal sentinel, repeated; `reads` repeated; `forbids_write` repeated.
#[reuse::contract(
    writes(key_cache[slot_mapping], skip = -1),
    writes(value_cache[slot_mapping], skip = -1),
    reads(key_cache[block_table]),
    reads(value_cache[block_table]),
    forbids_write(key_cache[0]),
    forbids_write(value_cache[kv::NULL_BLOCK], key_cache[crate::kv::NULL_BLOCK]),
)]
pub fn attend_and_store(
    key: &[f32],
    value: &[f32],
    key_cache: &mut [f32],
    value_cache: &mut [f32],
    slot_mapping: &[i64],
    block_table: &[usize],
) -> f32 {
    let read: f32 = block_table.iter().map(|&b| key_cache[b] + value_cache[b]).sum();
    scatter(key_cache, key, slot_mapping, -1);
    scatter(value_cache, value, slot_mapping, -1);
    read
}

// `writes` with a positive literal sentinel, a `::`-path sentinel and none; a field path of a parameter.
#[reuse::contract(
    writes(cfg.blocks[positions], skip = 7),
    writes(out[positions], skip = kv::PAD_SLOT_ID),
    writes(dense[idx]),
    writes(batch.slots[idx]),
)]
pub fn write_all(cfg: &mut Config, out: &mut [f32], dense: &mut [f32], batch: &mut Batch, positions: &[i64], idx: &[usize]) {
    scatter(&mut cfg.blocks, &[1.0; 8], positions, 7);
    scatter(out, &[2.0; 8], positions, kv::PAD_SLOT_ID);
    for &i in idx {
        dense[i] = 3.0;
        batch.slots[i] = PAD_SLOT_ID;
    }
}

// `forbids_write` with every range form.
#[reuse::contract(
    forbids_write(pool[0..4]),
    forbids_write(pool[RESERVED..FIRST_FREE], pool[..=1]),
    forbids_write(pool[FIRST_FREE..], pool[..RESERVED], pool[NULL_BLOCK..=kv::NULL_BLOCK]),
)]
pub fn read_pool(pool: &mut [u32]) -> u32 {
    pool.iter().sum::<u32>() + (RESERVED + FIRST_FREE) as u32
}

pub struct Output {
    pub buf: Vec<f32>,
    pub len: usize,
}

// `aliases` with `return`, `return.0` and `return.field`.
#[reuse::contract(aliases(return = state))]
pub fn update_in_place(state: &mut [f32]) -> &mut [f32] {
    state.iter_mut().for_each(|x| *x += 1.0);
    state
}

#[reuse::contract(aliases(return.0 = data))]
pub fn split_len(data: &mut [f32]) -> (&mut [f32], usize) {
    let n = data.len();
    (data, n)
}

#[reuse::contract(aliases(return.buf = input))]
pub fn donate(input: Vec<f32>) -> Output {
    let len = input.len();
    Output { buf: input, len }
}

// A device pointer handed around as a `u64` may alias another one.
#[reuse::contract(aliases(return = buf), writes(buf[idx]))]
pub fn add_async(buf: u64, idx: &[usize]) -> u64 {
    buf + idx.len() as u64 * 0
}

fn main() {
    let mut cache = HashMap::new();
    let req = Request { prompt_hash: 42, adapter_version: 3 };
    assert_eq!(lookup(&mut cache, &req), 1.0);
    step();

    let mut key_cache = vec![0.0; 8];
    let mut value_cache = vec![0.0; 8];
    reshape_and_cache(&[1.0, 2.0], &mut key_cache, &[1, PAD_SLOT_ID]);
    attend_and_store(&[1.0, 2.0], &[3.0, 4.0], &mut key_cache, &mut value_cache, &[2, -1], &[0, 1]);

    let mut cfg = Config { blocks: vec![0.0; 8] };
    let mut batch = Batch { slots: vec![0; 8] };
    let (mut out, mut dense) = (vec![0.0; 8], vec![0.0; 8]);
    write_all(&mut cfg, &mut out, &mut dense, &mut batch, &[1, 7], &[2]);
    assert_eq!(batch.slots[2], PAD_SLOT_ID);

    let mut pool = vec![1u32; 8];
    assert_eq!(read_pool(&mut pool), 13);

    let mut state = [1.0f32, 2.0];
    assert_eq!(update_in_place(&mut state)[0], 2.0);
    let (data, n) = split_len(&mut state);
    assert_eq!((data.len(), n), (2, 2));
    let out = donate(vec![1.0; 3]);
    assert_eq!((out.buf.len(), out.len), (3, 3));
    assert_eq!(add_async(0xdead_0000, &[0]), 0xdead_0000);
}

// `reuses` with a declared miss pattern; `fresh` on a preserved effect.
pub enum Outcome {
    Replayed(Vec<f32>),
    Eager,
}

pub struct Graph {
    pub output: Vec<f32>,
}

#[reuse::effect]
pub fn replay(g: &mut Graph) {
    g.output.fill(1.0);
}

#[reuse::contract(
    reuses(graphs, key(bs), miss = Ok(Outcome::Eager) | Err(_)),
    preserves(replay),
    fresh(return, after = replay)
)]
pub fn run_graph(graphs: &mut HashMap<usize, Graph>, bs: usize) -> Result<Outcome, String> {
    let Some(g) = graphs.get_mut(&bs) else { return Ok(Outcome::Eager) };
    replay(g);
    Ok(Outcome::Replayed(g.output.clone()))
}
