// `fresh(.., after = E)` names one of the contract's preserved effects: rejected at the name.

use std::collections::HashMap;

#[reuse::effect]
fn log_step() {}

#[reuse::effect]
fn replay(out: &mut Vec<f32>) {
    out.push(1.0);
}

#[reuse::contract(reuses(graphs, key(bs)), preserves(log_step), fresh(return, after = replay))]
fn run(graphs: &mut HashMap<usize, Vec<f32>>, bs: usize) -> Option<Vec<f32>> {
    log_step();
    let out = graphs.get_mut(&bs)?;
    replay(out);
    Some(out.clone())
}

fn main() {
    let _ = run(&mut HashMap::new(), 1);
}
