const PAD_SLOT_ID: i64 = -1;

#[reuse::indexes]
pub struct StepMeta {
    #[reuse::index(skip = PAD_SLOT)]
    pub slot_mapping: Vec<i64>,
}

fn main() {
    let _ = (PAD_SLOT_ID, StepMeta { slot_mapping: Vec::new() }.slot_mapping);
}
