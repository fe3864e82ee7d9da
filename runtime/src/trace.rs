//! The per-thread effect trace: every call of a `#[reuse::effect]` function is appended to one log;
//! each running contracted call (a frame) owns the part of the log since it started, so a nested
//! contracted call's effects count for its callers too, exactly as the static check counts a call
//! of a function whose contract preserves an effect.

use std::cell::{Cell, RefCell};

use crate::storage::Extent;

/// The storage an effect could write in one run, as it was when the effect returned: its extent
/// and a fingerprint of all its elements (`None`: not readable as bytes).
#[derive(Clone, Debug)]
pub(crate) struct Written {
    pub extent: Extent,
    pub content: Option<u64>,
}

struct Frame {
    start: usize,
    mark: Option<bool>,
    /// `fresh(.., after = E)`: the effect whose writes this call watches, and what they were.
    watch: Option<&'static str>,
    written: Vec<Written>,
}

struct TraceState {
    log: Vec<&'static str>,
    frames: Vec<Frame>,
}

thread_local! {
    static TRACE: RefCell<TraceState> = const { RefCell::new(TraceState { log: Vec::new(), frames: Vec::new() }) };
    /// Depth of `hit_mismatch` recomputations running on this thread: while it is not zero,
    /// contracted calls check nothing and unit-returning effects are skipped.
    static RECOMPUTING: Cell<u32> = const { Cell::new(0) };
}

/// Whether a `hit_mismatch` recomputation is running on this thread.
pub(crate) fn recomputing() -> bool {
    RECOMPUTING.with(Cell::get) != 0
}

/// Runs `f` as a recomputation (see [`recomputing`]).
#[doc(hidden)]
pub fn recompute<R>(f: impl FnOnce() -> R) -> R {
    struct Guard;
    impl Drop for Guard {
        fn drop(&mut self) {
            RECOMPUTING.with(|c| c.set(c.get() - 1));
        }
    }
    RECOMPUTING.with(|c| c.set(c.get() + 1));
    let _guard = Guard;
    f()
}

/// Records an effect call; returns whether the effect's body should be skipped (a unit-returning
/// effect, `skippable`, during a recomputation: the recomputed call must not log or advance an RNG twice).
#[doc(hidden)]
pub fn effect(name: &'static str, skippable: bool) -> bool {
    if recomputing() {
        return skippable;
    }
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        if !t.frames.is_empty() {
            t.log.push(name);
        }
    });
    false
}

pub(crate) fn push_frame(watch: Option<&'static str>) -> usize {
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        let start = t.log.len();
        t.frames.push(Frame { start, mark: None, watch, written: Vec::new() });
        t.frames.len() - 1
    })
}

/// Whether a running contracted call watches the writes of effect `name` (`fresh(.., after = name)`):
/// the effect's generated code then reports the storage it could write ([`effect_wrote`]).
#[doc(hidden)]
#[inline]
pub fn watching(name: &'static str) -> bool {
    if recomputing() {
        return false;
    }
    TRACE.with(|t| t.borrow().frames.iter().any(|f| f.watch == Some(name)))
}

/// What a run of effect `name` could write: its `&mut` receiver and arguments and its returned
/// value, where their types implement `Storage` (`None` entries: they do not).
#[doc(hidden)]
pub fn effect_wrote(name: &'static str, storage: &[Option<(Extent, Option<u64>)>]) {
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        for frame in t.frames.iter_mut().filter(|f| f.watch == Some(name)) {
            frame.written.extend(storage.iter().flatten().map(|(extent, content)| Written { extent: extent.clone(), content: *content }));
        }
    });
}

/// What the watched effect of frame `depth` wrote, so far.
pub(crate) fn written(depth: usize) -> Vec<Written> {
    TRACE.with(|t| t.borrow().frames.get(depth).map(|f| f.written.clone()).unwrap_or_default())
}

/// Pops frame `depth` (and any left above it by a panic); returns the explicit hit/miss mark and
/// the frame's trace filtered to `names`, in order.
pub(crate) fn pop_frame(depth: usize, names: &[&'static str]) -> (Option<bool>, Vec<&'static str>) {
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        let Some(frame) = t.frames.get(depth) else { return (None, Vec::new()) };
        let (start, mark) = (frame.start, frame.mark);
        let trace = t.log.get(start..).unwrap_or_default().iter().copied().filter(|e| names.contains(e)).collect();
        t.frames.truncate(depth);
        if t.frames.is_empty() {
            t.log.clear();
        }
        (mark, trace)
    })
}

/// Drops frame `depth` without looking at it (the call panicked).
pub(crate) fn abandon_frame(depth: usize) {
    let _ = TRACE.try_with(|t| {
        let mut t = t.borrow_mut();
        t.frames.truncate(depth);
        if t.frames.is_empty() {
            t.log.clear();
        }
    });
}

fn mark(hit: bool) {
    if recomputing() {
        return;
    }
    TRACE.with(|t| {
        if let Some(frame) = t.borrow_mut().frames.last_mut() {
            frame.mark = Some(hit);
        }
    });
}

/// Declares that the running contracted call (the innermost one with a `reuses` or `preserves`
/// clause) served its result from the cache. Overrides the shim's inference (see the crate docs).
pub fn hit() {
    mark(true)
}

/// Declares that the running contracted call computed its result (a miss), whether or not it
/// stored it. Overrides the shim's inference (see the crate docs).
pub fn miss() {
    mark(false)
}

/// The explicit hit/miss mark of frame `depth`, if its call made one.
pub(crate) fn peek_mark(depth: usize) -> Option<bool> {
    TRACE.with(|t| t.borrow().frames.get(depth).and_then(|f| f.mark))
}
