// Index declarations on struct fields compile, warning-free, and leave the struct as written.
#![deny(warnings)]

pub const PAD_SLOT_ID: i64 = -1;

pub mod kv {
    pub const PAD_SLOT_ID: i64 = -1;
}

#[reuse::indexes]
#[derive(Clone, Debug, Default)]
pub struct StepMeta {
    /// Where each row of the step is written.
    #[reuse::index(skip = PAD_SLOT_ID)]
    pub slot_mapping: Vec<i64>,
    #[reuse::index(skip = kv::PAD_SLOT_ID)]
    pub cross_slots: Vec<i64>,
    pub block_tables: Vec<Vec<u32>>,
}

#[reuse::indexes]
pub struct Vars(#[reuse::index(skip = -1)] pub Vec<i64>, pub usize);

fn main() {
    let m = StepMeta { slot_mapping: vec![PAD_SLOT_ID; 2], ..Default::default() };
    let v = Vars(m.slot_mapping.clone(), 2);
    assert_eq!((v.0.len(), v.1, m.cross_slots.len(), m.block_tables.len()), (2, 2, 0, 0));
}
