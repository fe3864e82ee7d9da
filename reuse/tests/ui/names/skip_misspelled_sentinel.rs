// A misspelled sentinel is an error at its token, with the runtime feature off too.

pub const PAD_SLOT_ID: i64 = -1;

#[reuse::contract(writes(kv[slots], skip = PAD_SLOT))]
pub fn write_kv(kv: &mut [f32], slots: &[i64]) {
    let _ = (kv, slots);
}

fn main() {}
