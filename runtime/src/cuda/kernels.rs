//! Launching the kernels of `kernels/reuse_kernels.cu`: a fingerprint of a device byte range and
//! the sentinel scan of a device index, each one launch on the caller's stream whose result is
//! read back as a few bytes.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};

use super::context::{self, guard, DeviceError, Kernel, THREADS};

/// The launch of a grid-stride kernel over `items` items: no more blocks than fit on the device.
fn grid(k: &Kernel, items: u64) -> LaunchConfig {
    let needed = items.div_ceil(u64::from(THREADS)).max(1);
    LaunchConfig { grid_dim: (needed.min(u64::from(k.blocks)) as u32, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }
}

const P: u64 = 0x9E37_79B9_7F4A_7C15;
const Q: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// The kernel's per-word term (see `fp_term` in the .cu file).
#[inline(always)]
fn term(w: u64, k: u64) -> u64 {
    let x = w ^ k.wrapping_mul(P);
    let h = x.wrapping_mul(x.wrapping_mul(2).wrapping_add(1));
    h ^ (h >> 32)
}

/// The fingerprint from the kernel's sum and the length in bytes.
#[doc(hidden)]
pub fn finish(sum: u64, bytes: u64) -> u64 {
    let mut h = (sum ^ bytes.wrapping_mul(Q)).wrapping_mul(P);
    h ^= h >> 29;
    h.wrapping_mul(Q) ^ (h >> 32)
}

/// The device fingerprint of `bytes`, computed on the host: what [`fingerprint`] returns for the
/// same bytes in device memory (the GPU tests compare the two). Any single changed 8-byte word
/// changes it; it differs from [`crate::fingerprint_bytes`], and never needs to agree with it:
/// a region is always fingerprinted the same way before and after a call.
pub fn device_fingerprint_reference(bytes: &[u8]) -> u64 {
    let mut sum = 0u64;
    for (k, word) in bytes.chunks(8).enumerate() {
        let mut buf = [0u8; 8];
        buf[..word.len()].copy_from_slice(word);
        sum = sum.wrapping_add(term(u64::from_le_bytes(buf), k as u64));
    }
    finish(sum, bytes.len() as u64)
}

/// Reads back `N` words the kernel wrote, after the stream's work so far.
fn read_back<const N: usize>(stream: &Arc<CudaStream>, out: &cudarc::driver::CudaSlice<u64>) -> Result<[u64; N], DeviceError> {
    let mut host = [0u64; N];
    guard("cuMemcpyDtoHAsync", || stream.memcpy_dtoh(out, &mut host[..]))?;
    guard("cuStreamSynchronize", || stream.synchronize())?;
    Ok(host)
}

/// The fingerprint of `bytes` bytes of device memory at `ptr`, computed on `stream` (so after the
/// work already queued on it): one launch, eight bytes read back.
///
/// # Safety
/// `ptr..ptr + bytes` must be readable device memory of `stream`'s context until the call returns.
pub unsafe fn fingerprint(stream: &Arc<CudaStream>, ptr: u64, bytes: usize) -> Result<u64, DeviceError> {
    let k = context::kernels(stream.context())?;
    let mut out = guard("cuMemAllocAsync", || stream.alloc_zeros::<u64>(1))?;
    let n = bytes as u64;
    if n > 0 {
        guard("cuLaunchKernel (reuse_fingerprint)", || {
            let mut launch = stream.launch_builder(&k.fingerprint.function);
            launch.arg(&ptr).arg(&n).arg(&mut out);
            // SAFETY: the kernel reads `n` bytes at `ptr` (the caller's promise) and writes one
            // u64 to `out`, which it owns.
            unsafe { launch.launch(grid(&k.fingerprint, n.div_ceil(16))) }.map(drop)
        })?;
    }
    let [sum] = read_back::<1>(stream, &out)?;
    Ok(finish(sum, n))
}

/// The rule of a `writes` index, as the scan kernel takes it (`ScanParams` in the .cu file).
#[repr(C)]
#[derive(Clone, Copy)]
struct ScanParams {
    sentinel: i64,
    len: i64,
    start: [i64; MAX_REGIONS],
    end: [i64; MAX_REGIONS],
    has_sentinel: i32,
    regions: i32,
}
// SAFETY: a plain `#[repr(C)]` struct of integers, laid out as the kernel's `ScanParams`.
unsafe impl DeviceRepr for ScanParams {}

const MAX_REGIONS: usize = 8;

/// The element types a device index can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IndexType {
    I32,
    I64,
    U32,
    U64,
}

impl ScanParams {
    /// The kernel's form of the rule, or `None` where it cannot hold it exactly (more than eight
    /// regions, a sentinel beyond `i64`, or one the kernel's saturation of huge `u64` entries would
    /// confuse): the caller then scans on the host.
    fn new(sentinel: Option<i128>, len: Option<i128>, regions: &[Range<i128>]) -> Option<ScanParams> {
        let sat = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        if regions.len() > MAX_REGIONS {
            return None;
        }
        if let Some(s) = sentinel {
            if i64::try_from(s).is_err() || s == i128::from(i64::MAX) {
                return None;
            }
        }
        let mut p = ScanParams {
            sentinel: sentinel.map(sat).unwrap_or(0),
            len: len.map(sat).unwrap_or(i64::MAX),
            start: [0; MAX_REGIONS],
            end: [0; MAX_REGIONS],
            has_sentinel: i32::from(sentinel.is_some()),
            regions: regions.len() as i32,
        };
        for (i, r) in regions.iter().enumerate() {
            p.start[i] = sat(r.start);
            p.end[i] = sat(r.end);
        }
        Some(p)
    }
}

/// The outcome of a device scan: how many entries offend, and the first (position, value).
pub(crate) type DeviceScan = (usize, Option<(usize, i128)>);

/// Scans `n` index entries of type `ty` at device address `ptr` against the rule; `Ok(None)`: the
/// kernel cannot hold this rule (see `ScanParams::new`), scan on the host.
///
/// # Safety
/// `ptr` must point to `n` readable entries of type `ty` in `stream`'s context.
pub(crate) unsafe fn scan(
    stream: &Arc<CudaStream>,
    ptr: u64,
    n: usize,
    ty: IndexType,
    rule: (Option<i128>, Option<i128>, &[Range<i128>]),
) -> Result<Option<DeviceScan>, DeviceError> {
    let Some(params) = ScanParams::new(rule.0, rule.1, rule.2) else { return Ok(None) };
    if n == 0 {
        return Ok(Some((0, None)));
    }
    let k = context::kernels(stream.context())?;
    let kernel = match ty {
        IndexType::I32 => &k.scan_i32,
        IndexType::I64 => &k.scan_i64,
        IndexType::U32 => &k.scan_u32,
        IndexType::U64 => &k.scan_u64,
    };
    let mut out = guard("cuMemAllocAsync", || stream.clone_htod(&[0u64, u64::MAX][..]))?;
    let count = n as u64;
    guard("cuLaunchKernel (reuse_scan)", || {
        let mut launch = stream.launch_builder(&kernel.function);
        launch.arg(&ptr).arg(&count).arg(&params).arg(&mut out);
        // SAFETY: the kernel reads `n` entries at `ptr` (the caller's promise) and writes two
        // u64s to `out`, which it owns.
        unsafe { launch.launch(grid(kernel, count)) }.map(drop)
    })?;
    let [bad, first] = read_back::<2>(stream, &out)?;
    if bad == 0 {
        return Ok(Some((0, None)));
    }
    let size = match ty {
        IndexType::I32 | IndexType::U32 => 4,
        IndexType::I64 | IndexType::U64 => 8,
    };
    let mut raw = [0u8; 8];
    guard("cuMemcpyDtoHAsync", || {
        stream.context().bind_to_thread()?;
        // SAFETY: `first < n`, so the entry lies inside the caller's range.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut raw[..size], ptr + first * size as u64, stream.cu_stream()) }?;
        stream.synchronize()
    })?;
    let value = match ty {
        IndexType::I32 => i128::from(i32::from_le_bytes(raw[..4].try_into().expect("4 bytes"))),
        IndexType::U32 => i128::from(u32::from_le_bytes(raw[..4].try_into().expect("4 bytes"))),
        IndexType::I64 => i128::from(i64::from_le_bytes(raw)),
        IndexType::U64 => i128::from(u64::from_le_bytes(raw)),
    };
    Ok(Some((bad as usize, Some((first as usize, value)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_fingerprint_sees_every_word_and_the_length() {
        let base: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
        let h = device_fingerprint_reference(&base);
        for i in [0, 7, 8, 63, 255, 299] {
            let mut b = base.clone();
            b[i] ^= 1;
            assert_ne!(device_fingerprint_reference(&b), h, "byte {i}");
        }
        let mut swapped = base.clone();
        swapped.swap(0, 8);
        assert_ne!(device_fingerprint_reference(&swapped), h, "positions count");
        assert_ne!(device_fingerprint_reference(&base[..299]), h, "length counts");
    }

    #[test]
    fn rules_the_kernel_cannot_hold_go_to_the_host() {
        let (null_block, one) = (std::slice::from_ref(&(0..4)), std::slice::from_ref(&(2..3)));
        assert!(ScanParams::new(Some(-1), Some(10), null_block).is_some());
        assert!(ScanParams::new(Some(i128::from(i64::MAX)), Some(10), &[]).is_none());
        assert!(ScanParams::new(Some(i128::MAX), None, &[]).is_none());
        assert!(ScanParams::new(None, None, &vec![0..1; 9]).is_none());
        let p = ScanParams::new(None, None, one).expect("fits");
        assert_eq!((p.has_sentinel, p.len, p.regions, p.start[0], p.end[0]), (0, i64::MAX, 1, 2, 3));
    }
}
