// Sanctioned writers: `except(..)` paths of every form, and `#[reuse::sanctioned]` on free
// functions, methods and trait methods; no warning.
#![deny(warnings)]

pub const PAD_SLOT_ID: i64 = -1;
pub const NULL_BLOCK: usize = 0;
pub static FIRST_FREE: usize = 1;

pub mod diag {
    #[reuse::sanctioned]
    pub fn health_check(kv: &mut [f32]) {
        crate::write_kv(kv, &[0]);
    }
}

pub struct Pool {
    pub kv: Vec<f32>,
}

impl Pool {
    #[reuse::sanctioned]
    pub fn self_test(&mut self) -> usize {
        write_kv(&mut self.kv, &[0]);
        self.kv.len()
    }
}

pub trait Check {
    #[reuse::sanctioned]
    fn check(&mut self) {}
}

#[reuse::sanctioned]
pub fn warm_up(kv: &mut [f32]) {
    write_kv(kv, &[PAD_SLOT_ID]);
}

#[reuse::contract(
    writes(kv[slots], skip = PAD_SLOT_ID),
    forbids_write(kv[NULL_BLOCK..FIRST_FREE], except(diag::health_check, crate::warm_up, Pool::self_test))
)]
pub fn write_kv(kv: &mut [f32], slots: &[i64]) {
    for &s in slots {
        if s != PAD_SLOT_ID {
            kv[s as usize] = 1.0;
        }
    }
}

fn main() {
    let mut kv = vec![0.0; 8];
    diag::health_check(&mut kv);
    warm_up(&mut kv);
    let mut pool = Pool { kv };
    assert_eq!(pool.self_test(), 8);
}
