//! What the benches share: the median of timed runs, and how a figure is printed.

use std::time::{Duration, Instant};

/// The median of `runs` timed runs of `f`, after one untimed run that warms the page cache and
/// the thread pool.
pub fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// How a budget reads in the report.
pub fn ok(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "NOT met"
    }
}
