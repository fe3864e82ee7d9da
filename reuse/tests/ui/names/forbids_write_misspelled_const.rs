// A misspelled constant in a region, written plainly or as a path, is an error at its token.

pub mod kv {
    pub const NULL_BLOCK: usize = 0;
}

#[reuse::contract(forbids_write(cache[kv::NULL_BLOK], cache[FIRST_FREE..]))]
pub fn clear(cache: &mut [f32]) {
    let _ = cache;
}

fn main() {}
