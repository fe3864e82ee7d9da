// The device kernels of reuse-runtime's CUDA backend (feature `cuda`).
//
// Compiled to PTX by scripts/gen-ptx.sh (NVRTC, --gpu-architecture=compute_70) into
// reuse_kernels.ptx, which the crate embeds and the driver JIT-compiles for the device at first use.
// A test regenerates the PTX and compares it with the shipped file, and assembles it for sm_90.
// Keep it free of #include: NVRTC compiles it with no headers.

typedef unsigned long long u64;
typedef long long i64;

#define FP_P 0x9E3779B97F4A7C15ULL

// The per-word hash of the fingerprint: x = w ^ k*P, then x(2x+1) (a permutation of 64-bit words:
// a polynomial with an odd linear and an even quadratic coefficient) and a xor-shift (also one).
// So for a fixed position k, any change of the word w changes its term. The sum of the terms is
// order-independent, so blocks may add theirs in any order. `device_fingerprint_reference` in
// runtime/src/cuda/kernels.rs is the same function on the host.
__device__ __forceinline__ u64 fp_term(u64 w, u64 kp) {
    u64 x = w ^ kp;
    u64 h = x * (2 * x + 1);
    return h ^ (h >> 32);
}

// Word k of the byte range (little-endian, zero-padded past the end).
__device__ __forceinline__ u64 fp_word(const unsigned char* p, u64 n, u64 k) {
    u64 off = k * 8;
    if (off + 8 <= n && (((u64)(p + off)) & 7) == 0) {
        return *(const u64*)(p + off);
    }
    u64 w = 0;
    for (int b = 0; b < 8 && off + b < n; ++b) {
        w |= ((u64)p[off + b]) << (8 * b);
    }
    return w;
}

__device__ __forceinline__ u64 warp_sum(u64 v) {
    for (int d = 16; d > 0; d >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, d);
    }
    return v;
}

// Adds each thread's `v` into *out: one atomic per block. blockDim.x must be a multiple of 32.
__device__ __forceinline__ void block_add(u64 v, u64* out) {
    __shared__ u64 warps[32];
    v = warp_sum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

// The sum of fp_term over the n bytes at p, added into *out (zeroed by the caller). One launch per
// region; the host finishes the fingerprint with the length (finish_fingerprint).
extern "C" __global__ void reuse_fingerprint(const unsigned char* p, u64 n, u64* out) {
    u64 words = (n + 7) / 8;
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 acc = 0;
    if ((((u64)p) & 15) == 0) {
        // 16-byte loads over the full pairs of words, four pairs in flight per thread. The position
        // keys k*P advance by additions: pair j's first word is 2j, and j advances by `stride`.
        const ulonglong2* q = (const ulonglong2*)p;
        u64 pairs = n / 16;
        u64 j = tid;
        u64 kp = (2 * j) * FP_P;
        const u64 step = (2 * stride) * FP_P;
        for (; j + 3 * stride < pairs; j += 4 * stride, kp += 4 * step) {
            ulonglong2 a = q[j], b = q[j + stride], c = q[j + 2 * stride], d = q[j + 3 * stride];
            u64 kb = kp + step, kc = kp + 2 * step, kd = kp + 3 * step;
            acc += fp_term(a.x, kp) + fp_term(a.y, kp + FP_P);
            acc += fp_term(b.x, kb) + fp_term(b.y, kb + FP_P);
            acc += fp_term(c.x, kc) + fp_term(c.y, kc + FP_P);
            acc += fp_term(d.x, kd) + fp_term(d.y, kd + FP_P);
        }
        for (; j < pairs; j += stride, kp += step) {
            ulonglong2 a = q[j];
            acc += fp_term(a.x, kp) + fp_term(a.y, kp + FP_P);
        }
        for (u64 k = 2 * pairs + tid; k < words; k += stride) {
            acc += fp_term(fp_word(p, n, k), k * FP_P);
        }
    } else {
        for (u64 k = tid; k < words; k += stride) {
            acc += fp_term(fp_word(p, n, k), k * FP_P);
        }
    }
    block_add(acc, out);
}

// The rule of `writes(P[IDX], skip = S)`: an entry is bad unless it is the sentinel, or a position
// 0 <= v < len outside every forbidden region [start, end). At most 8 regions (the host scans
// on the host beyond that).
struct ScanParams {
    i64 sentinel;
    i64 len;
    i64 start[8];
    i64 end[8];
    int has_sentinel;
    int regions;
};

__device__ __forceinline__ i64 sat_i64(int v) { return v; }
__device__ __forceinline__ i64 sat_i64(i64 v) { return v; }
__device__ __forceinline__ i64 sat_i64(unsigned int v) { return v; }
__device__ __forceinline__ i64 sat_i64(u64 v) { return v > 0x7fffffffffffffffULL ? 0x7fffffffffffffffLL : (i64)v; }

// out[0] += the number of bad entries; out[1] = min(out[1], position of the first). The caller
// sets out to {0, ~0}.
template <typename T>
__device__ void scan_indices(const T* idx, u64 n, const ScanParams& s, u64* out) {
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 bad = 0, first = ~0ULL;
    for (u64 i = tid; i < n; i += stride) {
        i64 v = sat_i64(idx[i]);
        bool skip = s.has_sentinel && v == s.sentinel;
        bool out_of_bounds = v < 0 || v >= s.len;
        bool forbidden = false;
        for (int r = 0; r < s.regions; ++r) {
            forbidden |= v >= s.start[r] && v < s.end[r];
        }
        if (!skip && (out_of_bounds || forbidden)) {
            bad += 1;
            if (i < first) first = i;
        }
    }
    if (bad) {
        atomicAdd(&out[0], bad);
        atomicMin(&out[1], first);
    }
}

extern "C" __global__ void reuse_scan_i32(const int* idx, u64 n, ScanParams s, u64* out) { scan_indices(idx, n, s, out); }
extern "C" __global__ void reuse_scan_i64(const i64* idx, u64 n, ScanParams s, u64* out) { scan_indices(idx, n, s, out); }
extern "C" __global__ void reuse_scan_u32(const unsigned int* idx, u64 n, ScanParams s, u64* out) { scan_indices(idx, n, s, out); }
extern "C" __global__ void reuse_scan_u64(const u64* idx, u64 n, ScanParams s, u64* out) { scan_indices(idx, n, s, out); }
