// A function returning `()` has no output to alias: reported at `return`.

#[reuse::contract(aliases(return = data))]
fn fill(data: &mut [f32]) {
    data.fill(0.0);
}

fn main() {
    fill(&mut [1.0, 2.0]);
}
