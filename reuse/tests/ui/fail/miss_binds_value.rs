// A miss pattern that binds a name matches every value: rejected at the name.

use std::collections::HashMap;

#[reuse::effect]
fn log_step() {}

#[reuse::contract(reuses(plans, key(g), miss = Ok(plan)), preserves(log_step))]
fn lookup(plans: &mut HashMap<u64, u32>, g: u64) -> Result<Option<u32>, String> {
    log_step();
    Ok(plans.get(&g).copied())
}

fn main() {
    let _ = lookup(&mut HashMap::new(), 1);
}
