// Runs the shim's CUDA kernels (runtime/kernels/reuse_kernels.cu, included as is) on the host: each
// block's threads are real threads, __syncthreads a barrier, warp shuffles go through memory. It is
// how CI without a GPU executes the kernels' indexing, grid-stride loops and reductions
// (runtime/tests/cuda.rs, kernels_run_in_a_host_emulation).
//
//   kernels_on_host fp FILE START END GRID          prints the kernel's sum over bytes START..END
//   kernels_on_host scan FILE TYPE SENTINEL|none LEN REGION_START REGION_END GRID
//                                                   FILE holds i64 entries, converted to TYPE
//                                                   (i32, i64, u32, u64); prints "BAD FIRST"
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct dim3_ { unsigned x, y, z; };
static thread_local dim3_ threadIdx, blockIdx;
static dim3_ blockDim, gridDim;
struct ulonglong2 { unsigned long long x, y; };

class Barrier {
    std::mutex m;
    std::condition_variable cv;
    unsigned n, waiting = 0, generation = 0;
public:
    explicit Barrier(unsigned n) : n(n) {}
    void wait() {
        std::unique_lock<std::mutex> lock(m);
        unsigned gen = generation;
        if (++waiting == n) { waiting = 0; ++generation; cv.notify_all(); return; }
        cv.wait(lock, [&] { return gen != generation; });
    }
};

static Barrier* block_barrier;
static std::vector<Barrier*> warp_barriers;
static unsigned long long warp_buf[32][32];

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

static void __syncthreads() { block_barrier->wait(); }
static unsigned long long __shfl_down_sync(unsigned, unsigned long long v, int d) {
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    warp_buf[w][lane] = v;
    warp_barriers[w]->wait();
    unsigned long long r = lane + d < 32 ? warp_buf[w][lane + d] : v;
    warp_barriers[w]->wait();
    return r;
}
static unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    unsigned long long cur = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return cur;
}

#include "../../kernels/reuse_kernels.cu"

template <class F> static void launch(unsigned grid, unsigned block, F f) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b) {
        Barrier bb(block);
        block_barrier = &bb;
        std::vector<Barrier*> warps;
        for (unsigned w = 0; w < block / 32; ++w) warps.push_back(new Barrier(32));
        warp_barriers = warps;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t) {
            threads.emplace_back([=] { threadIdx = {t, 0, 0}; blockIdx = {b, 0, 0}; f(); });
        }
        for (auto& th : threads) th.join();
        for (auto* w : warps) delete w;
    }
}

static std::vector<unsigned char> read_file(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}

template <class T> static void scan_as(const std::vector<long long>& v, ScanParams s, unsigned grid,
                                       void (*kernel)(const T*, u64, ScanParams, u64*)) {
    T* idx = static_cast<T*>(aligned_alloc(256, (v.size() * sizeof(T) + 255) / 256 * 256 + 256));
    for (size_t i = 0; i < v.size(); ++i) idx[i] = (T)v[i];
    u64 out[2] = {0, ~0ULL};
    launch(grid, 256, [&] { kernel(idx, v.size(), s, out); });
    printf("%llu %llu\n", out[0], out[1]);
    free(idx);
}

int main(int argc, char** argv) {
    if (argc >= 6 && !strcmp(argv[1], "fp")) {
        std::vector<unsigned char> bytes = read_file(argv[2]);
        size_t start = strtoull(argv[3], 0, 10), end = strtoull(argv[4], 0, 10);
        unsigned grid = strtoul(argv[5], 0, 10);
        // 256-aligned, as device allocations are, so that START gives the device's alignments.
        unsigned char* base = static_cast<unsigned char*>(aligned_alloc(256, (bytes.size() + 255) / 256 * 256 + 256));
        memcpy(base, bytes.data(), bytes.size());
        u64 out = 0;
        launch(grid, 256, [&] { reuse_fingerprint(base + start, end - start, &out); });
        printf("%llu\n", out);
        free(base);
        return 0;
    }
    if (argc >= 9 && !strcmp(argv[1], "scan")) {
        std::vector<unsigned char> raw = read_file(argv[2]);
        std::vector<long long> v(raw.size() / 8);
        memcpy(v.data(), raw.data(), v.size() * 8);
        ScanParams s;
        memset(&s, 0, sizeof s);
        s.has_sentinel = strcmp(argv[4], "none") != 0;
        s.sentinel = s.has_sentinel ? strtoll(argv[4], 0, 10) : 0;
        s.len = strtoll(argv[5], 0, 10);
        s.regions = 1;
        s.start[0] = strtoll(argv[6], 0, 10);
        s.end[0] = strtoll(argv[7], 0, 10);
        unsigned grid = strtoul(argv[8], 0, 10);
        std::string ty = argv[3];
        if (ty == "i32") scan_as<int>(v, s, grid, reuse_scan_i32);
        else if (ty == "i64") scan_as<long long>(v, s, grid, reuse_scan_i64);
        else if (ty == "u32") scan_as<unsigned int>(v, s, grid, reuse_scan_u32);
        else if (ty == "u64") scan_as<unsigned long long>(v, s, grid, reuse_scan_u64);
        else return 2;
        return 0;
    }
    fprintf(stderr, "usage: see the comment at the top of kernels_on_host.cpp\n");
    return 2;
}
