// A suppression without a reason compiles: like the `// reuse-check: allow(rule)` comment, it is
// the checker's `suppression_without_reason` warning, not a build error.
#![deny(warnings)]

#[reuse::allow(pad_to_null_block)]
fn warm_up(slot_mapping: &mut Vec<i64>) {
    slot_mapping.resize(8, 0);
}

fn main() {
    warm_up(&mut Vec::new());
}
