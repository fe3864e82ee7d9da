// A misspelled rule name is reported at the name, with the rule that was probably meant.

#[reuse::allow(pad_to_null_blok, reason = "rows past the batch are masked")]
fn warm_up(slot_mapping: &mut Vec<i64>) {
    slot_mapping.resize(8, 0);
}

fn main() {
    warm_up(&mut Vec::new());
}
