const PAD_SLOT_ID: i64 = -1;

#[reuse::indexes]
pub struct StepMeta {
    #[reuse::index(skp = PAD_SLOT_ID)]
    pub slot_mapping: Vec<i64>,
    #[reuse::index(skip = PAD_SLOT_ID + 1)]
    pub other: Vec<i64>,
}

#[reuse::indexes]
pub struct NoIndex {
    pub slot_mapping: Vec<i64>,
}

fn main() {}
