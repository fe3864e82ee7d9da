// `#[reuse::effect]` takes no arguments: reported at the argument.

#[reuse::effect(ordered)]
fn log_step() {}

fn main() {
    log_step();
}
