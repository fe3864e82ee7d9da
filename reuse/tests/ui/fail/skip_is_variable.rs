// A lower-case name is a variable, not a constant: rejected at the name.

#[reuse::contract(writes(key_cache[slot_mapping], skip = pad))]
fn reshape_and_cache(key_cache: &mut [f32], slot_mapping: &[i64], pad: i64) {
    let _ = (key_cache, slot_mapping, pad);
}

fn main() {
    reshape_and_cache(&mut [0.0; 4], &[1, -1], -1);
}
