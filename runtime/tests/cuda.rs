//! The CUDA backend (`cargo test -p reuse-runtime --features cuda`).
//!
//! Without a GPU, these run: the build with the feature on; the no-driver path; a fake driver
//! (`libcuda.so.1` built from C here) that has no device; the shipped PTX against a fresh NVRTC
//! build of its source, assembled for `sm_90`; `use_after_donate` on device handles (which needs no
//! device memory). The tests named `gpu_*` need a CUDA device: without one they print
//! `skipped: <reason>` and return (`scripts/gpu-check.sh` runs them on a GPU machine and fails on
//! any skip there).
#![cfg(feature = "cuda")]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use reuse::runtime::cuda::cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, CudaView, LaunchConfig, PushKernelArg,
};
use reuse::runtime::cuda::cudarc::nvrtc::Ptx;
use reuse::runtime::cuda::{self, fresh_id, AsDeviceRegion, DeviceError, DeviceRegion};
use reuse::runtime::{collect, Detail, Space, Violation};

fn skipped(reason: impl std::fmt::Display) {
    println!("skipped: {reason}");
}

/// A stream on device 0, or why there is none.
fn gpu() -> Option<Arc<CudaStream>> {
    match cuda::context(0) {
        Ok(ctx) => match ctx.new_stream() {
            Ok(s) => Some(s),
            Err(e) => {
                skipped(format!("no stream on CUDA device 0: {e}"));
                None
            }
        },
        Err(e) => {
            skipped(format!("no CUDA device to run on: {e}"));
            None
        }
    }
}

/// The workspace root. Cargo sets `CARGO_MANIFEST_DIR` when it runs a test too; a test binary built
/// elsewhere and run by `scripts/gpu-check.sh --prebuilt` gets it from the script, in the copy it runs in.
fn root() -> PathBuf {
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    package.parent().expect("workspace root").to_path_buf()
}

// ---------------------------------------------------------------------------------------------
// No GPU needed.

#[test]
fn no_driver_is_a_clean_error_and_checks_are_off() {
    if cuda::driver_present() {
        return skipped("a CUDA driver library is installed on this machine (the fake-driver test covers errors)");
    }
    assert_eq!(cuda::device_count(), Err(DeviceError::NoDriver));
    assert_eq!(cuda::context(0).err(), Some(DeviceError::NoDriver));
    assert!(DeviceError::NoDriver.to_string().contains("libcuda.so could not be loaded"));
    // A contracted call on device storage goes through, unchecked, and says why once.
    // SAFETY: the region is never read: there is no driver.
    let region = unsafe { DeviceRegion::new(0, 0x1000, 64, 4) };
    let v = collect(|| guarded_noop(&region));
    assert!(v.is_empty(), "{v:#?}");
    assert_eq!(cuda::checks_off(), Some(DeviceError::NoDriver));
}

#[reuse::contract(forbids_write(buf[0..16]))]
fn guarded_noop(buf: &DeviceRegion) {
    let _ = buf;
}

const FAKE_LIBCUDA: &str = r#"
typedef int CUresult;
#define CUDA_ERROR_NO_DEVICE 100
CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_ERROR_NO_DEVICE; }
CUresult cuGetErrorString(CUresult e, const char **s) {
    *s = e == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "unknown error";
    return 0;
}
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
"#;

const CHILD_ENV: &str = "REUSE_FAKE_LIBCUDA_CHILD";

/// A driver is there but sees no device: `cuInit` returns `CUDA_ERROR_NO_DEVICE`. This test builds
/// the fake driver and runs `fake_driver_child` in a child process that loads it.
#[cfg(unix)]
#[test]
fn driver_without_a_device_is_a_clean_error() {
    let dir = std::env::temp_dir().join(format!("reuse-fake-libcuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("fake_libcuda.c");
    std::fs::write(&src, FAKE_LIBCUDA).expect("write C source");
    let lib = dir.join("libcuda.so.1");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    match Command::new(&cc).args(["-shared", "-fPIC", "-o"]).arg(&lib).arg(&src).status() {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{cc} failed to build the fake libcuda: {s}"),
        Err(e) => return skipped(format!("no C compiler ({cc}: {e}) to build the fake libcuda.so.1")),
    }
    // The loader tries `libcuda.so` before `libcuda.so.1`: shadow both, so that a real driver
    // installed on this machine is not picked instead.
    let _ = std::fs::remove_file(dir.join("libcuda.so"));
    std::os::unix::fs::symlink("libcuda.so.1", dir.join("libcuda.so")).expect("symlink");
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args(["fake_driver_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .env("LD_LIBRARY_PATH", &dir)
        .output()
        .expect("run the child");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("fake-driver-child: ok"), "the child did not run its checks:\n{stdout}\n{stderr}");
    assert!(
        stderr.contains("reuse-runtime: device checks off: fingerprint of a forbids_write region: cuInit/cuDeviceGetCount failed: CUDA_ERROR_NO_DEVICE"),
        "no 'device checks off' line:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn fake_driver_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return skipped("runs only as the child of driver_without_a_device_is_a_clean_error");
    }
    assert!(cuda::driver_present(), "the fake libcuda was not found");
    let no_device = DeviceError::Driver {
        call: "cuInit/cuDeviceGetCount",
        name: "CUDA_ERROR_NO_DEVICE".into(),
        message: "no CUDA-capable device is detected".into(),
    };
    assert_eq!(cuda::device_count(), Err(no_device.clone()));
    assert_eq!(cuda::context(0).err(), Some(no_device.clone()));
    // SAFETY: never read: the driver has no device.
    let region = unsafe { DeviceRegion::new(0, 0x1000, 64, 4) };
    let v = collect(|| guarded_noop(&region));
    assert!(v.is_empty(), "{v:#?}");
    assert_eq!(cuda::checks_off(), Some(no_device));
    println!("fake-driver-child: ok");
}

/// The shipped PTX is what NVRTC makes of the sources, and `ptxas` assembles it for `sm_90`
/// (H100/H200): a kernel that would not load there fails here.
#[test]
fn shipped_ptx_is_generated_from_the_source_and_assembles_for_sm_90() {
    let root = root();
    let tools = Command::new("python3").arg(root.join("scripts/gen_ptx.py")).arg("--tools").output();
    let tools = match tools {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        other => {
            let why = match other {
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
                Err(e) => format!("python3: {e}"),
            };
            assert!(
                std::env::var_os("REUSE_REQUIRE_NVRTC").is_none(),
                "REUSE_REQUIRE_NVRTC is set, but NVRTC/ptxas are missing: {why}"
            );
            return skipped(format!("NVRTC or ptxas not installed: {why}"));
        }
    };
    let ptxas = tools.lines().nth(1).expect("ptxas path").to_string();
    let out = std::env::temp_dir().join(format!("reuse-ptx-{}", std::process::id()));
    let status = Command::new(root.join("scripts/gen-ptx.sh")).arg(&out).status().expect("run gen-ptx.sh");
    assert!(status.success(), "gen-ptx.sh failed");
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("runtime/kernels")).expect("kernels dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "cu") {
            let name = path.file_stem().expect("stem").to_string_lossy().into_owned();
            let shipped = std::fs::read_to_string(path.with_extension("ptx")).expect("shipped ptx next to the source");
            let fresh = std::fs::read_to_string(out.join(format!("{name}.ptx"))).expect("generated ptx");
            assert!(shipped == fresh, "runtime/kernels/{name}.ptx is stale: run scripts/gen-ptx.sh");
            let cubin = out.join(format!("{name}.cubin"));
            let o = Command::new(&ptxas).args(["-arch=sm_90", "-o"]).arg(&cubin).arg(out.join(format!("{name}.ptx"))).output();
            let o = o.expect("run ptxas");
            assert!(o.status.success(), "ptxas -arch=sm_90 rejects {name}.ptx:\n{}", String::from_utf8_lossy(&o.stderr));
            checked += 1;
        }
    }
    assert_eq!(cuda::SHIPPED_PTX, std::fs::read_to_string(root.join("runtime/kernels/reuse_kernels.ptx")).unwrap());
    let _ = std::fs::remove_dir_all(&out);
    assert!(checked >= 2, "expected the shim's and the benchmark's kernels");
    println!("{checked} kernel files: shipped PTX matches NVRTC's, and ptxas assembles it for sm_90");
}

/// The shim's kernels, compiled as C++ for the host with CUDA's built-ins emulated
/// (`tests/emulation/kernels_on_host.cpp`): their indexing, grid-stride loops, 16-byte and
/// unaligned paths and block reductions run here, and must agree with the host references.
#[test]
fn kernels_run_in_a_host_emulation() {
    use reuse::runtime::__private::RegionSpec;
    use reuse::runtime::{IndexList, IndexScan};
    let dir = std::env::temp_dir().join(format!("reuse-kernels-on-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = dir.join("kernels_on_host");
    let src = root().join("runtime/tests/emulation/kernels_on_host.cpp");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    match Command::new(&cxx).args(["-std=c++17", "-O1", "-pthread", "-o"]).arg(&exe).arg(&src).status() {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{cxx} failed to build the kernels for the host: {s}"),
        Err(e) => return skipped(format!("no C++ compiler ({cxx}: {e}) to run the kernels on the host")),
    }
    let run = |args: &[String]| -> String {
        let o = Command::new(&exe).args(args).output().expect("run kernels_on_host");
        assert!(o.status.success(), "kernels_on_host {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    let bytes: Vec<u8> = (0..50_003u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let file = dir.join("bytes.bin");
    std::fs::write(&file, &bytes).expect("write bytes");
    let f = file.display().to_string();
    for (start, end, grid) in [(0, 0, 1), (0, 5, 1), (0, 16, 1), (3, 4099, 2), (8, 50_003, 3), (16, 50_000, 1), (0, 50_003, 7), (1, 33, 1)] {
        let sum: u64 = run(&["fp".into(), f.clone(), start.to_string(), end.to_string(), grid.to_string()]).parse().expect("a sum");
        assert_eq!(
            cuda::finish_fingerprint(sum, (end - start) as u64),
            cuda::device_fingerprint_reference(&bytes[start..end]),
            "bytes {start}..{end}, {grid} blocks"
        );
    }
    let mut x = 99u64;
    let entries: Vec<i64> = (0..20_000)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            match (x >> 33) % 50 {
                0 => -5,
                1 => 1 << 40,
                r => r as i64 - 10,
            }
        })
        .collect();
    let file = dir.join("entries.bin");
    std::fs::write(&file, entries.iter().flat_map(|e| e.to_le_bytes()).collect::<Vec<u8>>()).expect("write entries");
    let f = file.display().to_string();
    for (ty, sentinel, grid) in [("i64", Some(-1), 1), ("i64", None, 4), ("i32", Some(-1), 2), ("u32", None, 3), ("u64", None, 1), ("u64", Some(7), 5)] {
        let (len, region) = (30usize, (0i128, 4i128));
        let mut scan = IndexScan::new(sentinel, Some(len), &[RegionSpec::range(Some(region.0), Some(region.1), false)]);
        match ty {
            "i64" => entries.scan_indices(&mut scan),
            "i32" => entries.iter().map(|&e| e as i32).collect::<Vec<_>>().scan_indices(&mut scan),
            "u32" => entries.iter().map(|&e| e as u32).collect::<Vec<_>>().scan_indices(&mut scan),
            _ => entries.iter().map(|&e| e as u64).collect::<Vec<_>>().scan_indices(&mut scan),
        }
        let sentinel_arg = sentinel.map_or("none".to_string(), |s| s.to_string());
        let args = [
            "scan".into(), f.clone(), ty.into(), sentinel_arg, len.to_string(), region.0.to_string(), region.1.to_string(), grid.to_string(),
        ];
        let got = run(&args);
        let want = format!("{} {}", scan.bad, scan.first.map_or(u64::MAX, |b| b.position as u64));
        assert_eq!(got, want, "{ty}, sentinel {sentinel:?}, {grid} blocks");
        assert!(scan.bad > 0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A device buffer handle that a donating op replaces: `Copy`, as device pointers are, with an
/// identity per handle (the pattern of XLA's buffers: the output is a new buffer object over the
/// donated memory).
#[derive(Clone, Copy, Debug)]
pub struct DevBuf {
    ptr: u64,
    len: usize,
    id: u64,
}

impl DevBuf {
    fn new(ptr: u64, len: usize) -> DevBuf {
        DevBuf { ptr, len, id: fresh_id() }
    }
}

impl AsDeviceRegion for DevBuf {
    fn device_region(&self) -> Option<DeviceRegion> {
        // SAFETY: the tests only make handles to memory they own, or never read it.
        Some(unsafe { DeviceRegion::new(0, self.ptr, self.len, 4) }.with_id(self.id))
    }
}
reuse::runtime::device_storage!(DevBuf);

/// `buf += 1` in place (modelled: no device work): the output is a new handle over `buf`'s memory.
#[reuse::contract(aliases(return = buf))]
fn add_inplace_async(buf: DevBuf) -> DevBuf {
    DevBuf { ptr: buf.ptr, len: buf.len, id: fresh_id() }
}

#[reuse::contract()]
fn read(buf: DevBuf) -> usize {
    buf.len
}

#[test]
fn a_donated_device_handle_used_again_is_reported() {
    let v = collect(|| {
        let buf = DevBuf::new(0xd000_0000, 256);
        let out = add_inplace_async(buf);
        read(out); // the output: fine
        read(buf); // the donated input: use_after_donate
        add_inplace_async(buf); // donated again: use_after_donate
    });
    let rules: Vec<&str> = v.iter().map(Violation::rule_name).collect();
    assert_eq!(rules, ["use_after_donate", "use_after_donate"], "{v:#?}");
    assert_eq!(v[0].clause, "aliases(return = buf)");
    assert!(v[0].message.starts_with("`buf` (device 0 0xd0000000..0xd0000400, handle "), "{}", v[0].message);
    assert!(v[0].message.contains("was donated as `buf` to a call of `cuda::add_inplace_async`"), "{}", v[0].message);
    assert!(matches!(&v[0].detail, Detail::Donated { input: "buf", extent, .. } if extent.space == Space::Device(0)));
}

// ---------------------------------------------------------------------------------------------
// On a GPU: the fixtures' paged-KV code ported to device buffers.

type Row = [f32; fixture_paged_kv::HEAD_DIM];
use fixture_paged_kv::{BLOCK_SIZE, PAD_SLOT_ID};

/// The benchmark's kernel module, loaded once per test.
fn paged_kv_kernel(stream: &Arc<CudaStream>) -> (Arc<CudaModule>, CudaFunction) {
    let ptx = include_str!("../kernels/paged_kv_bench.ptx");
    let module = stream.context().load_module(Ptx::from_src(ptx)).expect("load the paged-KV kernel");
    let f = module.load_function("reshape_and_cache").expect("reshape_and_cache");
    (module, f)
}

/// `fixture_paged_kv::reshape_and_cache` on the device: the same contract, a real kernel.
#[reuse::contract(
    writes(key_cache[slot_mapping], skip = PAD_SLOT_ID),
    forbids_write(key_cache[0..BLOCK_SIZE])
)]
fn reshape_and_cache(f: &CudaFunction, key: &CudaSlice<Row>, key_cache: &mut CudaSlice<Row>, slot_mapping: &CudaSlice<i64>) {
    let stream = key_cache.stream().clone();
    let row = fixture_paged_kv::HEAD_DIM as i32;
    let null: u64 = 0;
    let mut launch = stream.launch_builder(f);
    launch.arg(key).arg(key).arg(&mut *key_cache).arg(&null).arg(slot_mapping).arg(&row);
    let cfg = LaunchConfig { grid_dim: (slot_mapping.len() as u32, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: the kernel writes rows `slot_mapping[t]` of the cache; the slot mappings of these
    // tests are in bounds (the out-of-bounds ones are the shim's to report, not to run).
    unsafe { launch.launch(cfg) }.expect("launch");
}

/// `fixture_paged_kv::buggy::clear_blocks` on the device: clears the first row of each block, and
/// by mistake the null block's.
#[reuse::contract(forbids_write(key_cache[0..BLOCK_SIZE]))]
fn clear_blocks(key_cache: &mut CudaSlice<Row>, blocks: &[usize]) {
    let stream = key_cache.stream().clone();
    let zero = [[0.0f32; fixture_paged_kv::HEAD_DIM]];
    for &block in blocks.iter().chain(&[fixture_paged_kv::NULL_BLOCK]) {
        let mut row = key_cache.slice_mut(block * BLOCK_SIZE..block * BLOCK_SIZE + 1);
        stream.memcpy_htod(&zero[..], &mut row).expect("clear");
    }
}

/// A view of the cache, declared or not as an alias of it.
#[reuse::contract(aliases(return = key_cache))]
fn block_view<'a>(key_cache: &'a CudaSlice<Row>, block: usize) -> CudaView<'a, Row> {
    key_cache.slice(block * BLOCK_SIZE..(block + 1) * BLOCK_SIZE)
}
#[reuse::contract()]
fn block_view_undeclared<'a>(key_cache: &'a CudaSlice<Row>, block: usize) -> CudaView<'a, Row> {
    key_cache.slice(block * BLOCK_SIZE..(block + 1) * BLOCK_SIZE)
}

/// The slot mappings of the fixture's scenarios: the buggy model runner's paddings, and a correct one.
fn scenarios() -> Vec<(&'static str, Vec<i64>)> {
    let req = fixture_paged_kv::Request { num_tokens: 5, blocks: vec![2, 3] };
    let real: Vec<i64> = (0..req.num_tokens).map(|p| fixture_paged_kv::slot_of(&req, p)).collect();
    let padded = |pad: i64| real.iter().copied().chain([pad, pad, pad]).collect::<Vec<i64>>();
    vec![
        ("dummy_run: a zero-filled slot mapping", vec![0; 3]),
        ("execute: padding rows pushed as 0", padded(0)),
        ("execute_with_fallback: a fallback slot of 0", real.iter().copied().chain([0]).collect()),
        ("write_padded: padding rows are PAD_SLOT_ID (clean)", padded(PAD_SLOT_ID)),
    ]
}

fn marked_cache() -> Vec<Row> {
    vec![[7.0; fixture_paged_kv::HEAD_DIM]; 6 * BLOCK_SIZE]
}

/// (rule, clause, message): what the two backends must agree on (fingerprint values may differ).
fn findings(v: &[Violation]) -> Vec<(String, String, String)> {
    v.iter().map(|v| (v.rule_name().to_string(), v.clause.to_string(), v.message.clone())).collect()
}

#[test]
fn gpu_findings_agree_with_the_cpu_backend_on_the_fixture_workload() {
    let Some(stream) = gpu() else { return };
    let (_module, f) = paged_kv_kernel(&stream);
    for (name, slots) in scenarios() {
        let key: Vec<Row> = (0..slots.len()).map(|i| [i as f32 + 0.5; fixture_paged_kv::HEAD_DIM]).collect();
        let mut host_cache = marked_cache();
        let cpu = collect(|| fixture_paged_kv::reshape_and_cache(&key, &mut host_cache, &slots));
        let key_d = stream.clone_htod(&key).unwrap();
        let slots_d = stream.clone_htod(&slots).unwrap();
        let mut cache_d = stream.clone_htod(&marked_cache()).unwrap();
        let gpu = collect(|| reshape_and_cache(&f, &key_d, &mut cache_d, &slots_d));
        assert_eq!(findings(&gpu), findings(&cpu), "{name}");
        let mut written: Vec<i64> = slots.iter().copied().filter(|&s| s != PAD_SLOT_ID).collect();
        written.sort_unstable();
        if written.windows(2).all(|w| w[0] != w[1]) {
            // (Rows written twice race on the device; the CPU's last write wins.)
            assert_eq!(stream.clone_dtoh(&cache_d).unwrap(), host_cache, "{name}: the kernel wrote what the CPU did");
        }
        println!("{name}: {:?}", findings(&gpu).iter().map(|f| f.0.clone()).collect::<Vec<_>>());
    }
    let mut host_cache = marked_cache();
    let cpu = collect(|| fixture_paged_kv::buggy::clear_blocks(&mut host_cache, &[2]));
    let mut cache_d = stream.clone_htod(&marked_cache()).unwrap();
    let gpu = collect(|| clear_blocks(&mut cache_d, &[2]));
    assert_eq!(findings(&gpu), findings(&cpu), "clear_blocks");
    assert_eq!(findings(&gpu).len(), 1);
    println!("clear_blocks (buggy): {:?}", findings(&gpu).iter().map(|f| f.0.clone()).collect::<Vec<_>>());
}

#[test]
fn gpu_fingerprint_kernel_matches_the_host_reference() {
    let Some(stream) = gpu() else { return };
    let bytes: Vec<u8> = (0..100_003u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    let d = stream.clone_htod(&bytes).unwrap();
    for (start, end) in [(0, 0), (0, 1), (0, 16), (3, 19), (8, 100_003), (1, 99_999), (16, 65_552), (0, 100_003)] {
        let view = d.slice(start..end);
        let (ptr, _rec) = reuse::runtime::cuda::cudarc::driver::DevicePtr::device_ptr(&view, &stream);
        // SAFETY: the view is live device memory of this stream's context.
        let got = unsafe { cuda::fingerprint(&stream, ptr, end - start) }.expect("fingerprint");
        assert_eq!(got, cuda::device_fingerprint_reference(&bytes[start..end]), "{start}..{end}");
    }
}

#[test]
fn gpu_index_scan_finds_the_first_offending_entry() {
    use reuse::runtime::__private::RegionSpec;
    use reuse::runtime::{IndexList, IndexScan};
    let Some(stream) = gpu() else { return };
    // 1M entries, the first bad one deep inside: the count and the first position come back, as
    // the host scan finds them. Each index type the kernel reads.
    let mut slots: Vec<i64> = (0..1_000_000).map(|i| if i % 3 == 0 { PAD_SLOT_ID } else { 8 + (i % 16) }).collect();
    slots[777_777] = 0;
    slots[900_000] = 2;
    slots[999_999] = 1 << 20;
    let null_block = [RegionSpec::range(Some(0), Some(BLOCK_SIZE as i128), false)];
    let scan_of = |list: &dyn IndexList, sentinel: Option<i128>| {
        let mut scan = IndexScan::new(sentinel, Some(24), &null_block);
        list.scan_indices(&mut scan);
        (scan.bad, scan.scanned, scan.first)
    };
    let host = scan_of(&slots, Some(-1));
    assert_eq!(host.0, 3);
    assert_eq!(host.2.as_ref().map(|b| (b.position, b.value)), Some((777_777, 0)));
    assert_eq!(scan_of(&stream.clone_htod(&slots).unwrap(), Some(-1)), host, "i64");
    let narrow: Vec<i32> = slots.iter().map(|&s| s as i32).collect();
    assert_eq!(scan_of(&stream.clone_htod(&narrow).unwrap(), Some(-1)), scan_of(&narrow, Some(-1)), "i32");
    let unsigned: Vec<u32> = slots.iter().map(|&s| s as u32).collect();
    assert_eq!(scan_of(&stream.clone_htod(&unsigned).unwrap(), None), scan_of(&unsigned, None), "u32");
    let wide: Vec<u64> = slots.iter().map(|&s| s as u64).collect();
    assert_eq!(scan_of(&stream.clone_htod(&wide).unwrap(), None), scan_of(&wide, None), "u64, huge entries");
    let d = stream.clone_htod(&slots).unwrap();
    assert_eq!(scan_of(&d.slice(800_000..), Some(-1)), scan_of(&slots[800_000..].to_vec(), Some(-1)), "a view");
}

#[test]
fn gpu_aliases_are_device_address_ranges() {
    let Some(stream) = gpu() else { return };
    let cache = stream.clone_htod(&marked_cache()).unwrap();
    let other = stream.clone_htod(&marked_cache()).unwrap();
    let v = collect(|| {
        let _ = block_view(&cache, 1);
        let _ = block_view_undeclared(&cache, 1);
        let _ = block_view_for(&cache, &other);
    });
    let rules: Vec<&str> = v.iter().map(Violation::rule_name).collect();
    assert_eq!(rules, ["undeclared_alias", "alias_not_shared"], "{v:#?}");
    assert!(matches!(&v[0].detail, Detail::Alias { output_extent, .. } if output_extent.space == Space::Device(0)));
}

/// Declares the view to be `key_cache`'s, but takes it from `other`.
#[reuse::contract(aliases(return = key_cache))]
fn block_view_for<'a>(key_cache: &'a CudaSlice<Row>, other: &'a CudaSlice<Row>) -> CudaView<'a, Row> {
    let _ = key_cache;
    other.slice(0..BLOCK_SIZE)
}

#[test]
fn gpu_donated_device_buffers_are_poisoned() {
    let Some(stream) = gpu() else { return };
    let mem = stream.alloc_zeros::<f32>(1024).unwrap();
    let (ptr, _rec) = reuse::runtime::cuda::cudarc::driver::DevicePtr::device_ptr(&mem, &stream);
    let v = collect(|| {
        let buf = DevBuf::new(ptr, 1024);
        let out = add_inplace_async(buf);
        read(out);
        read(buf);
    });
    assert_eq!(v.iter().map(Violation::rule_name).collect::<Vec<_>>(), ["use_after_donate"], "{v:#?}");
}
