// A by-value `u32` cannot share storage with the returned `&mut [f32]`: reported at the input `n`.

#[reuse::contract(aliases(return = n))]
fn scale(n: u32, data: &mut [f32]) -> &mut [f32] {
    for x in data.iter_mut() {
        *x *= n as f32;
    }
    data
}

fn main() {
    scale(2, &mut [1.0, 2.0]);
}
