// An unknown rule name is reported at the name.

#[reuse::allow(no_such_rule, reason = "rows past the batch are masked")]
fn warm_up(slot_mapping: &mut Vec<i64>) {
    slot_mapping.resize(8, 0);
}

fn main() {
    warm_up(&mut Vec::new());
}
