//! The CUDA backend on a GPU (`cargo bench -p reuse-runtime --features cuda --bench cuda -- OUTDIR`;
//! `scripts/gpu-check.sh` runs it):
//! - fingerprint throughput against the device's own device-to-device copy bandwidth, same run;
//! - the overhead of checking a paged-KV write kernel (vLLM's reshape_and_cache, writing K/V rows
//!   into a paged cache through a slot mapping): unchecked, checked (`writes` only), and checked with
//!   the null-block guard (`forbids_write`), per step including the stream synchronization.
//!
//! Writes `OUTDIR/bench.json` and `OUTDIR/bench.txt`. Without a device it prints why and exits 0
//! (the script treats a missing device as a failure of its own).

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use reuse::runtime::cuda::cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use reuse::runtime::cuda::cudarc::nvrtc::Ptx;
use reuse::runtime::cuda::{self};

const BLOCK_SIZE: usize = 16;
/// 8 heads of 128: one row is 4 KiB of f32.
const ROW: usize = 1024;
const NUM_BLOCKS: usize = 2048;
const PAD_SLOT_ID: i64 = -1;
type Row = [f32; ROW];

fn launch(f: &CudaFunction, stream: &Arc<CudaStream>, key: &CudaSlice<Row>, value: &CudaSlice<Row>, kc: &mut CudaSlice<Row>, vc: &mut CudaSlice<Row>, slots: &CudaSlice<i64>) {
    let row = ROW as i32;
    let mut l = stream.launch_builder(f);
    l.arg(key).arg(value).arg(kc).arg(vc).arg(slots).arg(&row);
    let cfg = LaunchConfig { grid_dim: (slots.len() as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: every slot is PAD_SLOT_ID or a row of the caches (built so below).
    unsafe { l.launch(cfg) }.expect("launch reshape_and_cache");
}

#[reuse::contract(
    writes(key_cache[slot_mapping], skip = PAD_SLOT_ID),
    writes(value_cache[slot_mapping], skip = PAD_SLOT_ID)
)]
fn reshape_and_cache(f: &CudaFunction, key: &CudaSlice<Row>, value: &CudaSlice<Row>, key_cache: &mut CudaSlice<Row>, value_cache: &mut CudaSlice<Row>, slot_mapping: &CudaSlice<i64>) {
    let stream = key_cache.stream().clone();
    launch(f, &stream, key, value, key_cache, value_cache, slot_mapping);
}

#[reuse::contract(
    writes(key_cache[slot_mapping], skip = PAD_SLOT_ID),
    writes(value_cache[slot_mapping], skip = PAD_SLOT_ID),
    forbids_write(key_cache[0..BLOCK_SIZE]),
    forbids_write(value_cache[0..BLOCK_SIZE])
)]
fn reshape_and_cache_guarded(f: &CudaFunction, key: &CudaSlice<Row>, value: &CudaSlice<Row>, key_cache: &mut CudaSlice<Row>, value_cache: &mut CudaSlice<Row>, slot_mapping: &CudaSlice<i64>) {
    let stream = key_cache.stream().clone();
    launch(f, &stream, key, value, key_cache, value_cache, slot_mapping);
}

/// Median seconds of `reps` runs of `f` (after two warm-ups); `f` ends synchronized.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[t.len() / 2]
}

fn main() {
    let out_dir = std::env::args().skip(1).find(|a| !a.starts_with('-')).unwrap_or_else(|| "target/gpu-bench".into());
    let ctx = match cuda::context(0) {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: no CUDA device to benchmark on: {e}");
            return;
        }
    };
    let stream = ctx.new_stream().expect("stream");
    let name = ctx.name().unwrap_or_else(|_| "unknown".into());
    let mut txt = format!("device 0: {name}\n");
    let mut json = format!("{{\n  \"device\": {name:?},\n");

    // Fingerprint throughput vs device-to-device copy bandwidth.
    let bytes: usize = 1 << 30;
    let src = stream.alloc_zeros::<u8>(bytes).expect("1 GiB");
    let mut dst = stream.alloc_zeros::<u8>(bytes).expect("1 GiB");
    let copy = time(10, || {
        stream.memcpy_dtod(&src, &mut dst).expect("copy");
        stream.synchronize().expect("sync");
    });
    let (ptr, _rec) = src.device_ptr(&stream);
    // SAFETY: `src` is 1 GiB of live device memory of this stream's context.
    let fp = time(10, || {
        unsafe { cuda::fingerprint(&stream, ptr, bytes) }.expect("fingerprint");
    });
    drop(_rec);
    let copy_bw = 2.0 * bytes as f64 / copy / 1e9; // read + write traffic
    let fp_bw = bytes as f64 / fp / 1e9;
    let ratio = fp_bw / copy_bw;
    writeln!(txt, "copy (dtod, 1 GiB): {:.3} ms, {copy_bw:.0} GB/s of traffic (read + write)", copy * 1e3).ok();
    writeln!(txt, "fingerprint (1 GiB): {:.3} ms, {fp_bw:.0} GB/s read: {:.0}% of the copy's bandwidth (spec: >= 70%)", fp * 1e3, ratio * 100.0).ok();
    write!(json, "  \"copy_gbps\": {copy_bw:.1},\n  \"fingerprint_gbps\": {fp_bw:.1},\n  \"fingerprint_vs_copy\": {ratio:.3},\n").ok();
    drop((src, dst));

    // The paged-KV write kernel, checked and unchecked.
    let module = ctx.load_module(Ptx::from_src(include_str!("../kernels/paged_kv_bench.ptx"))).expect("load module");
    let f = module.load_function("reshape_and_cache").expect("kernel");
    let rows = NUM_BLOCKS * BLOCK_SIZE;
    let mut kc = stream.alloc_zeros::<Row>(rows).expect("key cache");
    let mut vc = stream.alloc_zeros::<Row>(rows).expect("value cache");
    json.push_str("  \"paged_kv\": [\n");
    let mut first = true;
    for tokens in [256usize, 4096] {
        // Tokens spread over the blocks after the null block; every 16th is padding.
        let slots: Vec<i64> = (0..tokens)
            .map(|t| if t % 16 == 15 { PAD_SLOT_ID } else { (BLOCK_SIZE + (t * 7919) % (rows - BLOCK_SIZE)) as i64 })
            .collect();
        let slots = stream.clone_htod(&slots).expect("slots");
        let key = stream.alloc_zeros::<Row>(tokens).expect("key");
        let value = stream.alloc_zeros::<Row>(tokens).expect("value");
        let mut run = |checked: bool, guarded: bool| {
            reuse::runtime::set_enabled(checked);
            let t = time(50, || {
                if guarded {
                    reshape_and_cache_guarded(&f, &key, &value, &mut kc, &mut vc, &slots);
                } else {
                    reshape_and_cache(&f, &key, &value, &mut kc, &mut vc, &slots);
                }
                stream.synchronize().expect("sync");
            });
            reuse::runtime::set_enabled(true);
            t
        };
        let unchecked = run(false, false);
        let checked = run(true, false);
        let guarded = run(true, true);
        let pct = |t: f64| (t / unchecked - 1.0) * 100.0;
        writeln!(
            txt,
            "paged-KV write, {tokens} tokens ({} MiB of rows): unchecked {:.1} us, checked {:.1} us (+{:.0}%), checked with null-block guard {:.1} us (+{:.0}%)",
            (2 * tokens * ROW * 4) >> 20,
            unchecked * 1e6,
            checked * 1e6,
            pct(checked),
            guarded * 1e6,
            pct(guarded)
        )
        .ok();
        if !first {
            json.push_str(",\n");
        }
        first = false;
        write!(json, "    {{\"tokens\": {tokens}, \"unchecked_us\": {:.2}, \"checked_us\": {:.2}, \"guarded_us\": {:.2}}}", unchecked * 1e6, checked * 1e6, guarded * 1e6).ok();
    }
    json.push_str("\n  ]\n}\n");
    print!("{txt}");
    std::fs::create_dir_all(&out_dir).expect("out dir");
    std::fs::write(format!("{out_dir}/bench.txt"), &txt).expect("write bench.txt");
    std::fs::write(format!("{out_dir}/bench.json"), &json).expect("write bench.json");
}
