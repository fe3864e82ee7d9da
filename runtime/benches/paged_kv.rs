//! The runtime shim's overhead on a CPU paged-KV write workload, unchecked vs checked.
//!
//! `cargo bench -p reuse-runtime --bench paged_kv` (optionally `-- --quick`).
//!
//! The workload is vLLM's `reshape_and_cache` on the CPU: a batch of token rows (8 heads x 128 dims of
//! f32, 4 KiB a row) is scattered into a paged cache of 16-row blocks through a slot mapping whose
//! padding rows are `PAD_SLOT_ID`. The checked kernel carries the contract
//! `writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..GUARD])`: every call
//! scans the slot mapping and fingerprints the guarded blocks before and after.
//!
//! Printed: the overhead ratio (checked / unchecked time, median over interleaved rounds), and how
//! the check's cost scales: with the same guarded region and a 10x larger cache it stays the same;
//! with a 10x larger guarded region it grows with the guarded bytes.

use std::hint::black_box;
use std::time::Instant;

use reuse::runtime::{IndexList, IndexScan, Storage};

const BLOCK_SIZE: usize = 16;
const PAD_SLOT_ID: i64 = -1;
const ROW: usize = 8 * 128;
type Row = [f32; ROW];
/// One null block guarded, or ten blocks.
const GUARD_1: usize = BLOCK_SIZE;
const GUARD_10: usize = 10 * BLOCK_SIZE;

macro_rules! kernel_body {
    ($key:ident, $key_cache:ident, $slot_mapping:ident) => {
        for (row, &slot) in $key.iter().zip($slot_mapping) {
            if slot == PAD_SLOT_ID {
                continue;
            }
            $key_cache[slot as usize] = *row;
        }
    };
}

fn reshape_and_cache_unchecked(key: &[Row], key_cache: &mut [Row], slot_mapping: &[i64]) {
    kernel_body!(key, key_cache, slot_mapping);
}

#[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..GUARD_1]))]
fn reshape_and_cache(key: &[Row], key_cache: &mut [Row], slot_mapping: &[i64]) {
    kernel_body!(key, key_cache, slot_mapping);
}

/// A tiny deterministic generator (no dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Slot mappings of `steps` batches of `tokens` rows, 1 in 8 a padding row, real rows in blocks
/// `first_block..num_blocks` (never a guarded block).
fn slot_mappings(steps: usize, tokens: usize, num_blocks: usize, first_block: usize, rng: &mut Lcg) -> Vec<Vec<i64>> {
    (0..steps)
        .map(|_| {
            (0..tokens)
                .map(|i| {
                    if i % 8 == 7 {
                        PAD_SLOT_ID
                    } else {
                        let block = first_block + (rng.next() as usize) % (num_blocks - first_block);
                        (block * BLOCK_SIZE + (rng.next() as usize) % BLOCK_SIZE) as i64
                    }
                })
                .collect()
        })
        .collect()
}

type Kernel = fn(&[Row], &mut [Row], &[i64]);

/// Seconds for one pass over every slot mapping.
fn pass(kernel: Kernel, key: &[Row], cache: &mut [Row], maps: &[Vec<i64>]) -> f64 {
    let t = Instant::now();
    for m in maps {
        kernel(black_box(key), black_box(&mut *cache), black_box(m));
    }
    t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Per-call seconds of the unchecked and the checked kernel (the fastest round of each, which
/// interference on a shared machine can only slow down), and the median of the per-round ratios.
struct Run {
    unchecked_s: f64,
    checked_s: f64,
    median_ratio: f64,
}

impl Run {
    fn ratio(&self) -> f64 {
        self.checked_s / self.unchecked_s
    }
}

/// Interleaved rounds of an unchecked and a checked kernel on the same cache.
fn compare(
    unchecked: Kernel,
    checked: Kernel,
    num_blocks: usize,
    guard_rows: usize,
    rounds: usize,
    steps: usize,
    tokens: usize,
) -> Run {
    let mut rng = Lcg(7);
    let key: Vec<Row> = (0..tokens).map(|i| [i as f32; ROW]).collect();
    let mut cache: Vec<Row> = vec![[0.0; ROW]; num_blocks * BLOCK_SIZE];
    let maps = slot_mappings(steps, tokens, num_blocks, guard_rows / BLOCK_SIZE, &mut rng);
    pass(unchecked, &key, &mut cache, &maps);
    pass(checked, &key, &mut cache, &maps);
    let (mut u, mut c, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternate which goes first, so that drift hits both alike.
        let (tu, tc) = if round % 2 == 0 {
            let tu = pass(unchecked, &key, &mut cache, &maps);
            (tu, pass(checked, &key, &mut cache, &maps))
        } else {
            let tc = pass(checked, &key, &mut cache, &maps);
            (pass(unchecked, &key, &mut cache, &maps), tc)
        };
        u.push(tu);
        c.push(tc);
        ratios.push(tc / tu);
    }
    let calls = steps as f64;
    Run { unchecked_s: min(&u) / calls, checked_s: min(&c) / calls, median_ratio: median(ratios) }
}

/// The checks alone: the contract on a kernel that writes nothing.
#[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..GUARD_1]))]
fn checks_only(key: &[Row], key_cache: &mut [Row], slot_mapping: &[i64]) {
    black_box((key, key_cache, slot_mapping));
}

#[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..GUARD_10]))]
fn checks_only_guard10(key: &[Row], key_cache: &mut [Row], slot_mapping: &[i64]) {
    black_box((key, key_cache, slot_mapping));
}

fn nothing(key: &[Row], key_cache: &mut [Row], slot_mapping: &[i64]) {
    black_box((key, key_cache, slot_mapping));
}

/// Nanoseconds per fingerprint of the first `guard_rows` rows of a cache of `num_blocks` blocks.
fn fingerprint_ns(num_blocks: usize, guard_rows: usize, reps: usize) -> f64 {
    let cache: Vec<Row> = vec![[1.0; ROW]; num_blocks * BLOCK_SIZE];
    let mut samples = Vec::new();
    for _ in 0..9 {
        let t = Instant::now();
        for _ in 0..reps {
            black_box(black_box(&cache).fingerprint(0..guard_rows));
        }
        samples.push(t.elapsed().as_secs_f64() * 1e9 / reps as f64);
    }
    min(&samples)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, steps) = if quick { (9, 8) } else { (41, 16) };
    let (small, large) = (256, 2560);
    let row_bytes = std::mem::size_of::<Row>();
    let mib = |blocks: usize| (blocks * BLOCK_SIZE * row_bytes) >> 20;
    println!("paged-KV write workload: a step scatters N token rows (1 in 8 padding = PAD_SLOT_ID) of {row_bytes} B");
    println!("into a cache of {BLOCK_SIZE}-row blocks; checked = the kernel with");
    println!(
        "  #[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..GUARD]))]"
    );
    println!("{rounds} interleaved rounds; ratio = checked / unchecked time, the median of the per-round ratios");
    println!("(and, in parentheses, of the fastest round of each); times: the fastest round, per call");
    println!();
    println!(
        "{:<46} {:>11} {:>11} {:>8} {:>10}",
        "workload (guard = the null block)", "unchecked", "checked", "ratio", "(fastest)"
    );
    let mut headline = None;
    let aa = compare(reshape_and_cache_unchecked, reshape_and_cache_unchecked, small, GUARD_1, rounds, steps, 2048);
    println!(
        "{:<46} {:>8.1} us {:>8.1} us {:>7.3}x {:>9.3}x",
        "noise floor: unchecked vs itself, N = 2048",
        aa.unchecked_s * 1e6,
        aa.checked_s * 1e6,
        aa.median_ratio,
        aa.ratio()
    );
    for tokens in [512, 2048] {
        for blocks in [small, large] {
            let r = compare(reshape_and_cache_unchecked, reshape_and_cache, blocks, GUARD_1, rounds, steps, tokens);
            println!(
                "{:<46} {:>8.1} us {:>8.1} us {:>7.3}x {:>9.3}x",
                format!("N = {tokens:>4}, cache {blocks:>4} blocks ({:>3} MiB)", mib(blocks)),
                r.unchecked_s * 1e6,
                r.checked_s * 1e6,
                r.median_ratio,
                r.ratio()
            );
            if tokens == 2048 && blocks == small {
                headline = Some(r);
            }
        }
    }
    println!();
    println!("the checks alone (the same contract on a kernel that writes nothing), N = 2048, per call:");
    let mut check_cost = Vec::new();
    for (label, checked, blocks, guard) in [
        ("cache  256 blocks, guard  1 block  ( 64 KiB)", checks_only as Kernel, small, GUARD_1),
        ("cache 2560 blocks, guard  1 block  ( 64 KiB)", checks_only, large, GUARD_1),
        ("cache  256 blocks, guard 10 blocks (640 KiB)", checks_only_guard10, small, GUARD_10),
    ] {
        let r = compare(nothing, checked, blocks, guard, rounds, steps * 4, 2048);
        println!("  {label}: {:>8.2} us", (r.checked_s - r.unchecked_s) * 1e6);
        check_cost.push(r.checked_s - r.unchecked_s);
    }
    println!();
    println!("one fingerprint (the shim takes two per call, before and after):");
    for (blocks, guard) in [(small, GUARD_1), (large, GUARD_1), (small, GUARD_10)] {
        let ns = fingerprint_ns(blocks, guard, if quick { 200 } else { 1000 });
        let bytes = guard * row_bytes;
        println!(
            "  cache {blocks:>4} blocks, guard {:>2} block(s) = {:>3} KiB: {:>8.0} ns ({:.1} GB/s)",
            guard / BLOCK_SIZE,
            bytes / 1024,
            ns,
            bytes as f64 / ns
        );
    }
    let mut rng = Lcg(3);
    let map = &slot_mappings(1, 2048, small, 1, &mut rng)[0];
    let cache: Vec<Row> = vec![[0.0; ROW]; small * BLOCK_SIZE];
    let regions = [reuse::runtime::__private::RegionSpec::range(Some(0), Some(GUARD_1 as i128), false)];
    let mut samples = Vec::new();
    for _ in 0..9 {
        let t = Instant::now();
        for _ in 0..1000 {
            let mut scan = IndexScan::new(Some(-1), black_box(&cache).element_count(), &regions);
            black_box(map.as_slice()).scan_indices(&mut scan);
            black_box(scan.bad);
        }
        samples.push(t.elapsed().as_secs_f64() * 1e9 / 1000.0);
    }
    println!("the index scan of N = 2048 slots: {:.0} ns", min(&samples));
    let r = headline.expect("measured");
    println!();
    println!(
        "overhead ratio, guarding the null block, N = 2048, {} MiB cache: measured {:.3}x (noise floor {:.3}x); \
         from the checks' own cost ({:.2} us a call): {:.4}x",
        mib(small),
        r.median_ratio,
        aa.median_ratio,
        check_cost[0] * 1e6,
        1.0 + check_cost[0] / r.unchecked_s
    );
}
