// The sentinel must be known before the call: a function call is rejected at the call.

fn pad_slot() -> i64 {
    -1
}

#[reuse::contract(writes(key_cache[slot_mapping], skip = pad_slot()))]
fn reshape_and_cache(key_cache: &mut [f32], slot_mapping: &[i64]) {
    let _ = (key_cache, slot_mapping, pad_slot());
}

fn main() {
    reshape_and_cache(&mut [0.0; 4], &[1, -1]);
}
