// `#[reuse::sanctioned]` takes no arguments: contracts name their writers.

#[reuse::sanctioned(write_kv)]
pub fn health_check() {}

fn main() {}
