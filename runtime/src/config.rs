//! Switches: whether the shim checks anything, and how often `hit_mismatch` recomputes a hit.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::OnceLock;

static ENABLED: AtomicU8 = AtomicU8::new(0);
static HIT_MISMATCH_EVERY: AtomicU32 = AtomicU32::new(u32::MAX);

thread_local! {
    static HIT_MISMATCH_LOCAL: Cell<Option<u32>> = const { Cell::new(None) };
}

fn env_enabled() -> bool {
    static ENV: OnceLock<bool> = OnceLock::new();
    *ENV.get_or_init(|| {
        !matches!(
            std::env::var("REUSE_RUNTIME").map(|v| v.trim().to_ascii_lowercase()).as_deref(),
            Ok("off" | "0" | "false")
        )
    })
}

/// Whether contracted calls are checked: on, unless `REUSE_RUNTIME=off` or [`set_enabled`]`(false)`.
#[inline]
pub fn enabled() -> bool {
    match ENABLED.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => env_enabled(),
    }
}

/// Turns every check on or off, process-wide (overrides `REUSE_RUNTIME`).
pub fn set_enabled(on: bool) {
    ENABLED.store(if on { 1 } else { 2 }, Ordering::Relaxed);
}

/// Recompute one cache hit in `every` (per function) and compare it with the cached value
/// (`hit_mismatch`); 0 turns it off. Process-wide; overrides `REUSE_HIT_MISMATCH`. Off by default.
pub fn set_hit_mismatch_every(every: u32) {
    HIT_MISMATCH_EVERY.store(every, Ordering::Relaxed);
}

/// Runs `f` with `hit_mismatch` sampling set to `every` on this thread only.
pub fn with_hit_mismatch_every<R>(every: u32, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u32>);
    impl Drop for Restore {
        fn drop(&mut self) {
            HIT_MISMATCH_LOCAL.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(HIT_MISMATCH_LOCAL.with(|c| c.replace(Some(every))));
    f()
}

/// The sampling in force on this thread (0: off).
pub fn hit_mismatch_every() -> u32 {
    if let Some(n) = HIT_MISMATCH_LOCAL.with(Cell::get) {
        return n;
    }
    match HIT_MISMATCH_EVERY.load(Ordering::Relaxed) {
        u32::MAX => {
            static ENV: OnceLock<u32> = OnceLock::new();
            *ENV.get_or_init(|| {
                std::env::var("REUSE_HIT_MISMATCH").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0)
            })
        }
        n => n,
    }
}
