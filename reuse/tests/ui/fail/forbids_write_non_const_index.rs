// A forbidden region is a const, a literal or a range: a parameter is rejected at its name.

#[reuse::contract(forbids_write(key_cache[slot]))]
fn write_one(key_cache: &mut [f32], slot: usize, value: f32) {
    key_cache[slot] = value;
}

fn main() {
    write_one(&mut [0.0; 4], 1, 1.0);
}
