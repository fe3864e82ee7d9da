//! Sanctioned writers: `forbids_write(P[R], except(f, ..))` lets the named functions write `R`.
//!
//! A function marked `#[reuse::sanctioned]` enters a scope, on its thread, for as long as it runs;
//! its identity is the path the compiler gives it (`type_name` of an item nested in it, less the
//! item's name). The contracted function's wrapper names each `except` path (`type_name_of_val` of
//! the function item, resolved where the contract is written, so `health_check` of another module
//! is another identity) and asks, for a region that changed or an index in it, whether one of
//! them is running, or ran during the call.

use std::cell::{Cell, RefCell};

/// What the marker item is called inside a `#[reuse::sanctioned]` function (the generated code
/// defines it; its `type_name` is the function's path followed by this).
pub const MARKER: &str = "__reuse_sanctioned_here";

thread_local! {
    /// The sanctioned functions running on this thread, innermost last.
    static RUNNING: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    /// For each sanctioned function that ran on this thread, the sequence number of its last entry.
    static ENTERED: RefCell<Vec<(&'static str, u64)>> = const { RefCell::new(Vec::new()) };
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

/// A running sanctioned function: leaves its scope when dropped (a panic included).
#[must_use]
pub struct Sanctioned(());

impl Drop for Sanctioned {
    fn drop(&mut self) {
        RUNNING.with(|r| {
            r.borrow_mut().pop();
        });
    }
}

/// The identity of a sanctioned function, from the `type_name` of the marker item nested in it
/// (inside the closure a `#[reuse::contract]` wrapper runs the body in, when the function also
/// has a contract: `f::{{closure}}::marker` is `f`'s).
pub fn identity(marker_type_name: &'static str) -> &'static str {
    let mut id = marker_type_name.strip_suffix(MARKER).and_then(|s| s.strip_suffix("::")).unwrap_or(marker_type_name);
    while let Some(outer) = id.strip_suffix("::{{closure}}") {
        id = outer;
    }
    id
}

/// Enters the scope of the sanctioned function whose marker has this `type_name`.
pub fn enter(marker_type_name: &'static str) -> Sanctioned {
    let id = identity(marker_type_name);
    let seq = SEQ.with(|s| {
        s.set(s.get() + 1);
        s.get()
    });
    RUNNING.with(|r| r.borrow_mut().push(id));
    ENTERED.with(|e| {
        let mut e = e.borrow_mut();
        match e.iter_mut().find(|(name, _)| *name == id) {
            Some(entry) => entry.1 = seq,
            None => e.push((id, seq)),
        }
    });
    Sanctioned(())
}

/// The entry count so far on this thread: a contracted call takes it when it starts, and
/// [`ran_since`] tells later whether a sanctioned function was entered after it.
pub fn mark() -> u64 {
    SEQ.with(Cell::get)
}

/// Whether one of `names` (identities: `type_name_of_val` of the function items) is running now.
pub fn running(names: &[&str]) -> bool {
    RUNNING.with(|r| r.borrow().iter().any(|id| names.contains(id)))
}

/// Whether one of `names` is running now, or was entered after `mark` (it ran inside the call).
pub fn ran_since(names: &[&str], mark: u64) -> bool {
    running(names) || ENTERED.with(|e| e.borrow().iter().any(|(id, seq)| *seq > mark && names.contains(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_is_left_when_its_guard_drops_and_remembered_after() {
        let before = mark();
        assert!(!running(&["m::health_check"]));
        {
            let _g = enter("m::health_check::__reuse_sanctioned_here");
            assert!(running(&["m::health_check"]) && !running(&["other::health_check"]));
        }
        assert!(!running(&["m::health_check"]));
        assert!(ran_since(&["m::health_check"], before));
        assert!(!ran_since(&["m::health_check"], mark()));
        assert!(!ran_since(&["other::health_check"], before));
    }

    #[test]
    fn identities_are_the_function_paths() {
        assert_eq!(identity("k::Pool::check::__reuse_sanctioned_here"), "k::Pool::check");
        assert_eq!(identity("<k::Pool as k::Check>::check::__reuse_sanctioned_here"), "<k::Pool as k::Check>::check");
        assert_eq!(identity("k::repair::{{closure}}::__reuse_sanctioned_here"), "k::repair");
    }
}
