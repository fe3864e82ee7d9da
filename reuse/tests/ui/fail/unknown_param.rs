// `slots` is not a parameter: reported at `slots`, with the parameters that exist.

#[reuse::contract(writes(key_cache[slots], skip = -1))]
fn reshape_and_cache(key_cache: &mut [f32], slot_mapping: &[i64]) {
    let _ = (key_cache, slot_mapping);
}

fn main() {
    reshape_and_cache(&mut [0.0; 4], &[1, -1]);
}
