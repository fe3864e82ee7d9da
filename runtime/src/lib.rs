//! The runtime shim of reuse-check: the same contracts the static checker reads, checked while the
//! program runs, under the same rule names: on host memory, and with the feature `cuda` on device
//! memory too, computed on the device ([`cuda`]; `docs/runtime-cuda.md`).
//!
//! Turn it on with the `runtime` feature of the `reuse` crate; every `#[reuse::contract]` function is
//! then instrumented, and every `#[reuse::effect]` function records its calls. With the feature off,
//! the attributes expand to the function as written (plus a compile-time `const` item naming the
//! contract's constants and sanctioned writers, which emits no code).
//!
//! ```toml
//! [features]
//! runtime = ["reuse/runtime"]      # cargo test --features runtime
//! ```
//!
//! # What is checked
//!
//! | clause | rule | how |
//! | --- | --- | --- |
//! | `preserves(E, ...)` | `hit_skips_effect`, `effect_order` | each effect call is appended to a per-thread trace; each contracted call owns the part of it since the call started (so effects of nested contracted calls count for their callers). At return, the trace must hold every E, first occurrences in the declared order; the trace of a hit must equal the trace of the function's first clean miss (`effect_order`). Only calls that served: see *Hits and misses* |
//! | `fresh(OUT, after = E)` | `stale_result` | while the call runs, each run of E reports the storage it could write (its `&mut` receiver and arguments and its return value, where they implement [`Storage`]: extent and fingerprint as E returned). On a hit, OUT (inside `Ok`/`Some`) must lie in that storage or hold the same bytes |
//! | `writes(P[IDX], skip = S)` | `pad_to_null_block` | before the call, every entry of the IDX argument must be S, or a valid position of P (`0 <= i < len`) outside every `forbids_write` region of P |
//! | `forbids_write(P[C])` | `forbidden_write` | a fingerprint of the region (its bytes, see [`Storage`]) before and after the call must agree. The cost is proportional to the region's bytes, not to P's |
//! | `forbids_write(P[C], except(f, ..))` | `forbidden_write`, `pad_to_null_block` | as above, but a change is none, and the region's positions are valid index entries, while a sanctioned writer `f` (marked `#[reuse::sanctioned]`, identified by its path) runs: it made the call, or ran during it |
//! | `aliases(OUT = IN)` | `alias_not_shared` | OUT's storage must lie inside IN's (same pointer range or a view of it) |
//! | (no `aliases` for an output) | `undeclared_alias` | an output that is not declared as an alias must overlap no input |
//! | `aliases(OUT = IN)`, a later call | `use_after_donate` | for handles with an identity ([`Storage::handle_id`]): IN is poisoned when the call returns unless OUT has the same identity; a later contracted call passed it is reported |
//! | `reuses(PLACE, key(K, ...))` | `stale_hit` | the components K of every miss are recorded for the cache instance; a hit whose current components were never stored is stale |
//! | `reuses` (opt-in, sampled) | `hit_mismatch` | a hit is recomputed with the cache emptied, and the two values compared |
//!
//! A violation ([`Violation`]) carries the rule (from the one catalogue in `reuse-rules`), the clause
//! in canonical text, the caller's location (the instrumented function is `#[track_caller]`), a message
//! and the values involved ([`Detail`]: the offending index and region, the traces, the extents...).
//!
//! # Policy
//!
//! What happens to a violation, first match wins:
//! 1. inside [`collect`] / [`collect_with`] on the same thread: it is returned to the caller (tests);
//! 2. [`set_policy`] was called: that policy;
//! 3. the `REUSE_POLICY` environment variable: `panic`, `log` or `collect` (read once; any other
//!    non-blank value is an error: the first violation panics and names it, see [`policy_from_env`]);
//! 4. otherwise `panic` if the contracted function was compiled with `cfg(test)` (the user's unit
//!    tests: the generated code passes `cfg!(test)` of the user's crate), else `log` (stderr).
//!
//! Under `panic`, the panic happens when the offending call returns, at the caller's location, and
//! lists every violation of that call. If the body itself panics (an out-of-bounds slot, say), what
//! was found before it (the index scan) is still delivered, logged instead of a second panic. Under
//! `collect`, [`take_collected`] returns them. `REUSE_RUNTIME=off` (or [`set_enabled`]`(false)`) turns every check off; `hit_mismatch` is off unless
//! `REUSE_HIT_MISMATCH=N` (recompute one hit in N, per function), [`set_hit_mismatch_every`] or
//! [`with_hit_mismatch_every`] turns it on.
//!
//! # Exposing storage
//!
//! The checks see a value through traits, picked at compile time with autoref specialization: a type
//! that does not implement one is simply not checked by the checks that need it (this is also what
//! happens to a parameter of a generic type `T`, unless `T: Storage` is in its bounds).
//! - [`Storage`]: where the value lives ([`Extent`]: a host byte range, a device range, or an opaque
//!   handle), its element count, and the bytes of a region of elements. Implemented for `[T]`, `[T; N]`,
//!   `Vec<T>`, `Box<[T]>` of [`Pod`] elements, `str`, `String`, `u64` (taken as an opaque device handle),
//!   and through `&`, `&mut`, `Box`; with feature `cuda`, `cudarc`'s slices and views, and user types
//!   that own device memory (`device_storage!`). A user type implements it by hand (no derive needed).
//! - [`IndexList`]: the entries of an index argument (integers, slices, arrays, `Vec`s of them).
//! - [`CachePlace`]: what the shim observes of a `reuses` place (maps and sets, and through
//!   `RefCell`, `Mutex`, `RwLock`, `Rc`, `Arc`, `Box`; a user cache implements it, e.g. with a counter
//!   it bumps when it stores).
//! - `Hash` for key components, `PartialEq` (and `Debug`, for messages) for `hit_mismatch`.
//!
//! # Hits and misses
//!
//! The shim does not intercept the cache's lookups. It tells a hit from a miss by observing the
//! `reuses` place before and after the call: [`CacheSignature`] is the number of entries and an
//! order-independent hash of the keys. A call that changed it stored something (a miss, with or
//! without an eviction); a call that left a non-empty cache unchanged served a hit.
//! The body can say so itself with [`hit`] and [`miss`], which override the inference (call them
//! under `#[cfg(feature = "runtime")]`, since the API only exists with the feature).
//!
//! Before that, the returned value decides whether the call served at all (as the static checker
//! decides on the returned expression, `docs/contracts.md`, "Hit paths"): an `Err(_)` is an error
//! exit; a value matching the contract's `reuses(.., miss = PATTERN)` (the generated code tests
//! `matches!(ret, PATTERN)`), or without a pattern `None`/`Ok(None)` in a function with `reuses`,
//! is a miss that declines. Neither is held to `preserves` or `fresh`; a declining call counts as
//! a miss (it stored nothing) and records no key components. The value is looked at through
//! autoref-specialised probes (`Result`, `Option`, `Result<Option<_>, _>`, anything else), so every
//! return type compiles.
//!
//! For `stale_hit`, the shim keeps, per cache instance (address and type), the hashes of the key
//! components that contracted misses stored entries under. A hit whose current components were
//! never stored served an entry stored under other ones. Entries added by code the shim did not see
//! (a cache that was not empty when first observed, or grew between contracted calls) have unknown
//! components: such an instance is not checked for stale hits until it is empty again.
//!
//! # Cost
//!
//! Per call of a contracted function: a thread-local check, an index scan per `writes` clause (about
//! 0.2 ns an entry with AVX-512/AVX2, picked at run time), two fingerprints per `forbids_write` region
//! (about 100 GB/s on hot data; the cost follows the guarded bytes, not the buffer), and for `reuses`
//! a lock and an O(entries) signature of the cache. `cargo bench -p reuse-runtime --bench paged_kv`
//! measures a paged-KV write workload unchecked and checked.
//! On device memory ([`cuda`]), each fingerprint and each index scan is a kernel launch plus a
//! read-back of a few bytes that synchronizes the buffer's stream: a fixed cost per region or index,
//! then the guarded bytes at device bandwidth (`scripts/gpu-check.sh` measures both on a GPU).
//!
//! # Limits (honest ones)
//!
//! - A miss that stores nothing (an uncacheable result), or that replaces an entry under an existing
//!   key, looks like a hit; if no entry was stored under its components it is reported as a stale hit.
//!   Mark such calls with [`miss`].
//! - A fingerprint sees changed bytes, not writes: writing the value a region already holds (zeros into
//!   a zeroed null block) is invisible. Tests fill guarded regions with a marker value first.
//! - Storage is observed after the call only where the borrow rules allow it without aliasing a live
//!   borrow: by-value parameters (moved into the callee) and `self` by value are not observed after the
//!   call; places behind `&mut` (a parameter or `self`) are not either when the return type holds a
//!   `mut` borrow, an `impl Trait`, or a lifetime that is not a reference's (`RefMut<'_, T>`). For a
//!   function returning shared references only (`-> &V`, `-> Option<&V>`), they are read after the
//!   call through a raw pointer taken before it (the generated code then holds an `unsafe` block,
//!   which a crate with `#![forbid(unsafe_code)]` rejects). A return type that hides a lifetime
//!   (`IterMut<T>` without `'_`) looks borrow-free: the after-read then fails to compile, and
//!   writing the `'_` fixes it.
//! - `undeclared_alias` compares outputs with inputs whose storage outlives the call (reference
//!   parameters), plus by-value handles; not with by-value host buffers, whose freed memory the
//!   allocator may hand to the output. Outputs are the return value and the elements of a returned
//!   tuple; the fields of a returned struct only where an `aliases(return.field = ...)` names them.
//! - A bare `u64` is taken as an opaque handle (a device pointer) for declared aliases; it is too
//!   common a value to count as evidence of an *undeclared* alias (`fn f(n: u64) -> u64 { n }`), so
//!   only handle types with a kind of their own (a newtype implementing [`Storage`]) are checked for that.
//! - `use_after_donate` needs handles with an identity ([`Storage::handle_id`]; device handles made
//!   with [`cuda`]'s `DeviceRegion::with_id`) and an output with another identity than the donated
//!   input (a poisoned handle); an in-place op that returns the same handle value gives the shim
//!   nothing to tell a later use of the input from a use of the output, so that case stays with the
//!   static checker. Only arguments of contracted calls are looked at: a plain read is not seen.
//! - Effects are traced per thread: an effect run on another thread (a pool) does not count.
//! - `hit_mismatch` recomputes by running the body again with the cache place emptied (it must be a
//!   [`CachePlace`] with `Default`, reached through `&mut self` or a `&mut` parameter), with every
//!   nested check off and the bodies of unit-returning effects skipped. Its code is generated only
//!   for functions whose parameters are all references or primitive scalars and whose return type
//!   holds no borrow.
//! - `async fn` and `const fn` are not instrumented; neither are functions returning `!`.
//! - The generated code names the facade as `::reuse`: the dependency must not be renamed.

mod cache;
mod config;
#[cfg(feature = "cuda")]
pub mod cuda;
mod index;
mod report;
mod sanction;
mod storage;
mod trace;

#[doc(hidden)]
pub mod __private {
    pub use crate::call::*;
}
mod call;
#[doc(hidden)]
pub mod testing;

pub use cache::{CachePlace, CacheSignature};
pub use config::{enabled, hit_mismatch_every, set_enabled, set_hit_mismatch_every, with_hit_mismatch_every};
pub use index::{BadIndex, IndexInt, IndexList, IndexScan};
pub use report::{collect, collect_with, policy, policy_from_env, set_policy, take_collected, try_policy, Detail, Policy, Violation};
pub use reuse_rules::{catalogue, Rule};
pub use storage::{fingerprint_bytes, Extent, Pod, Space, Storage};
pub use trace::{hit, miss};
