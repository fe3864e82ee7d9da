// `preserves` may appear once: the second one is reported at its keyword.

#[reuse::effect]
fn log_step() {}

#[reuse::effect]
fn check_errors() {}

#[reuse::contract(preserves(log_step), preserves(check_errors))]
fn run() {
    log_step();
    check_errors();
}

fn main() {
    run();
}
