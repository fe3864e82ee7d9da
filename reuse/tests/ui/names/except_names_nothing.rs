// A sanctioned writer that names no function is an error at its token: a misspelling, and a
// function the named module does not have.

pub mod diag {
    pub fn health_check() {}
}

#[reuse::contract(forbids_write(kv[0], except(helth_check, diag::warm_up)))]
pub fn write_kv(kv: &mut [f32]) {
    let _ = kv;
}

fn main() {}
