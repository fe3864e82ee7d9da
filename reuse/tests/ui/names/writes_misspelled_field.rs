// A field path in a contract that names no field is an error at its token, with the runtime
// feature off too.

pub struct StepMeta {
    pub slot_mapping: Vec<i64>,
}

#[reuse::contract(writes(kv[meta.slot_maping], skip = -1))]
pub fn attend(kv: &mut [f32], meta: &StepMeta) {
    let _ = (kv, meta);
}

fn main() {}
