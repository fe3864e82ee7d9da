// `fresh(return.PART, ..)` names a part of what a hit serves (inside `Ok`/`Some`): a `Vec` has no
// fields, so `return.output` is rejected at the name.

use std::collections::HashMap;

#[reuse::effect]
fn replay(out: &mut Vec<f32>) {
    out.push(1.0);
}

#[reuse::contract(reuses(graphs, key(bs)), preserves(replay), fresh(return.output, after = replay))]
fn run(graphs: &mut HashMap<usize, Vec<f32>>, bs: usize) -> Option<Vec<f32>> {
    let out = graphs.get_mut(&bs)?;
    replay(out);
    Some(out.clone())
}

fn main() {
    let _ = run(&mut HashMap::new(), 1);
}
