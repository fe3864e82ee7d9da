// A paged-KV write kernel for the GPU tests and the benchmark (not part of the shim): vLLM's
// reshape_and_cache. Row `t` of key (and value) goes to row slot_mapping[t] of the key (and value)
// cache; a slot of -1 (PAD_SLOT_ID) is skipped. Rows are `row` floats; one block per token. A null
// value_cache writes keys only.
extern "C" __global__ void reshape_and_cache(const float* key, const float* value, float* key_cache,
                                             float* value_cache, const long long* slot_mapping,
                                             int row) {
    long long slot = slot_mapping[blockIdx.x];
    if (slot < 0) return;
    const float* k = key + (long long)blockIdx.x * row;
    float* kc = key_cache + slot * row;
    for (int i = threadIdx.x; i < row; i += blockDim.x) kc[i] = k[i];
    if (value_cache) {
        const float* v = value + (long long)blockIdx.x * row;
        float* vc = value_cache + slot * row;
        for (int i = threadIdx.x; i < row; i += blockDim.x) vc[i] = v[i];
    }
}
