// `self.plans` on a function without a receiver is reported at `self`.

pub struct Graph {
    pub fingerprint: u64,
}

#[reuse::contract(reuses(self.plans, key(graph.fingerprint)))]
fn run(graph: &Graph) -> u64 {
    graph.fingerprint
}

fn main() {
    run(&Graph { fingerprint: 7 });
}
