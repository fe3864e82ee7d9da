//! Contracts for safe reuse in machine-learning systems code.
//!
//! Add one dependency and write the rule once, on the API that reuses something:
//!
//! ```rust
//! pub const PAD_SLOT_ID: i64 = -1;
//! pub const NULL_BLOCK: usize = 0;
//!
//! #[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[NULL_BLOCK]))]
//! pub fn reshape_and_cache(key: &[f32], key_cache: &mut [f32], slot_mapping: &[i64]) {
//!     for (row, &slot) in slot_mapping.iter().enumerate() {
//!         if slot == PAD_SLOT_ID { continue; }
//!         key_cache[slot as usize] = key[row];
//!     }
//! }
//! ```
//!
//! `cargo reuse-check` checks the contract statically at every call site and in the body; with the
//! `runtime` feature, the same contract is checked while the program runs (see [`runtime`]), and with
//! `runtime-cuda` also on GPU memory, on the device (`runtime::cuda`).
//! Without it, the attributes expand to the function as written (plus a compile-time `const` item
//! naming the contract's constants, so that a misspelled sentinel is an error at its token).

pub use reuse_macros::{allow, contract, effect, indexes, sanctioned};

/// The runtime shim (feature `runtime`): effect traces, write guards, sentinel and alias checks.
#[cfg(feature = "runtime")]
pub use reuse_runtime as runtime;
