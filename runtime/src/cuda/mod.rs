//! The CUDA backend (feature `cuda`; `reuse/runtime-cuda` for users): the same checks, under the
//! same rule names and messages, on storage that lives in GPU memory, computed where it lives.
//!
//! ```toml
//! [features]
//! runtime = ["reuse/runtime-cuda"]      # cargo test --features runtime
//! ```
//!
//! # What is checked on the device
//!
//! | clause | rule | on the device |
//! | --- | --- | --- |
//! | `forbids_write(P[C])` | `forbidden_write` | a fingerprint of the region before and after the call: one reduction kernel per region on the buffer's stream, eight bytes read back (the read waits for the stream's work, the contracted call's kernels included) |
//! | `writes(P[IDX], skip = S)` | `pad_to_null_block` | IDX in device memory (`i32`, `i64`, `u32`, `u64` entries) is scanned by a kernel that returns the count of offending entries and the first one's position; its value is read back for the message |
//! | `aliases(OUT = IN)`, undeclared outputs | `alias_not_shared`, `undeclared_alias` | device address ranges (`Space::Device(ordinal)`), compared on the host: no kernel |
//! | `aliases(OUT = IN)`, a later call | `use_after_donate` | the input's handle is poisoned when the call returns, if it has an identity ([`DeviceRegion::with_id`]) that the output does not share; a later contracted call passed that handle is reported |
//!
//! # Exposing device storage
//!
//! - `cudarc`'s `CudaSlice<T>`, `CudaView<'_, T>`, `CudaViewMut<'_, T>` with `T: Pod` implement
//!   [`Storage`](crate::Storage) (elements are `T`s; the device ordinal is the slice's context's)
//!   and, for `i32`/`i64`/`u32`/`u64` entries, [`IndexList`](crate::IndexList). Their fingerprints
//!   run on the slice's own stream.
//! - A user type that owns a device pointer and a length returns a [`DeviceRegion`] from
//!   [`AsDeviceRegion`] and gets `Storage` from [`device_storage!`](crate::device_storage).
//!
//! # When there is no GPU
//!
//! The crate builds without CUDA: the driver library is loaded at run time. [`context`] and
//! [`device_count`] return a [`DeviceError`] (no driver, no device, a driver error by name) and
//! never panic. A check that cannot run on the device (no driver, kernels that do not load, out of
//! memory) is skipped, never reported as a finding, and the reason is logged to stderr once:
//! `reuse-runtime: device checks off: ...`. [`checks_off`] tells whether that happened.
//!
//! # Cost
//!
//! A fingerprint is one kernel over the guarded bytes (a bandwidth-bound reduction) plus a
//! synchronization of the buffer's stream to read back eight bytes; for small regions (a null
//! block) the launch and the round trip dominate. The index scan is one kernel over the index
//! plus a read-back. The synchronizations serialize the host with the stream around each contracted
//! call: leave the shim on for tests and debug runs, not for production throughput.
//! `scripts/gpu-check.sh` measures fingerprint throughput against the device's copy bandwidth and
//! the overhead on a paged-KV write kernel.
//!
//! # Limits
//!
//! - What is seen is the state of memory *in stream order* on the buffer's stream, before and after
//!   the work the call queued on it. Work the call queues on *another* stream without joining it
//!   back, or that a later call queues, is not seen; neither is a write that restores the bytes.
//! - CUDA graphs: during stream capture the checks' read-backs are illegal (the check is skipped and
//!   device checks go off, logged): turn the shim off (`reuse::runtime::set_enabled(false)`) around
//!   capture. The kernels a graph replays are not instrumented; a contracted function that launches
//!   a graph is checked like any call (the graph runs on the stream before the after-fingerprint).
//! - The checks use each slice's stream; a [`DeviceRegion`] without [`DeviceRegion::on_stream`]
//!   uses the device's default (legacy) stream, which orders with other blocking streams only.
//! - `use_after_donate` needs handles with identities; `cudarc` slices have none (a donated slice
//!   is moved, and the borrow checker already forbids its later use).
//! - The shipped PTX targets `compute_70` with PTX ISA 8.4 (CUDA 12.4): a driver older than 550
//!   cannot load it, and device checks are then off (logged).

mod context;
mod kernels;
mod storage;

pub use context::{checks_off, context, device_count, driver_present, DeviceError, KERNEL_SOURCE};
pub use kernels::{device_fingerprint_reference, fingerprint};
#[doc(hidden)]
pub use kernels::finish as finish_fingerprint;
pub use storage::{fresh_id, region_fingerprint, AsDeviceRegion, DeviceIndexInt, DeviceRegion};

/// The shipped PTX (for the agreement test of `scripts/gen-ptx.sh`).
#[doc(hidden)]
pub const SHIPPED_PTX: &str = context::PTX;

/// The `cudarc` version the backend is built on, re-exported so that users name the same types.
pub use cudarc;
