// A misspelt clause keyword is rejected at the keyword.

#[reuse::contract(writes(key_cache[slot_mapping]), forbid_write(key_cache[0]))]
fn reshape_and_cache(key_cache: &mut [f32], slot_mapping: &[usize]) {
    let _ = (key_cache, slot_mapping);
}

fn main() {
    reshape_and_cache(&mut [0.0; 4], &[1, 2]);
}
