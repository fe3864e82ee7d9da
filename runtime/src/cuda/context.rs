//! The driver, the devices and the loaded kernels, and what happens when any of them is missing:
//! a [`DeviceError`] for the caller who asked ([`super::context`]), a logged "device checks off"
//! for a check that could not run. Nothing here panics: every driver call goes through [`guard`].

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::Ptx;

/// The shipped kernels: PTX generated from `kernels/reuse_kernels.cu` by `scripts/gen-ptx.sh`.
pub(crate) const PTX: &str = include_str!("../../kernels/reuse_kernels.ptx");
/// Their source, embedded so that a test can show the shipped PTX is generated from it.
pub const KERNEL_SOURCE: &str = include_str!("../../kernels/reuse_kernels.cu");

/// Why device checks cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// No CUDA driver library (`libcuda.so`) could be loaded.
    NoDriver,
    /// The driver has no device of this ordinal.
    NoDevice { ordinal: usize, count: usize },
    /// A driver call failed: the call, the error's name (`CUDA_ERROR_NO_DEVICE`,
    /// `CUDA_ERROR_OUT_OF_MEMORY`, ...) and the driver's description of it.
    Driver { call: &'static str, name: String, message: String },
    /// The CUDA bindings panicked inside a driver call (a symbol the driver library lacks, say);
    /// the panic was caught.
    Panicked { call: &'static str, message: String },
}

impl DeviceError {
    /// Whether the device ran out of memory (a check of this call was skipped; later ones may run).
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, DeviceError::Driver { name, .. } if name == "CUDA_ERROR_OUT_OF_MEMORY")
    }

    /// Whether the error will not go away by itself (no driver, no device, kernels that do not
    /// load): device checks are then off for the rest of the process.
    fn is_permanent(&self) -> bool {
        !self.is_out_of_memory()
    }
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::NoDriver => {
                write!(f, "no CUDA driver: libcuda.so could not be loaded (is the NVIDIA driver installed?)")
            }
            DeviceError::NoDevice { ordinal, count } => {
                write!(f, "no CUDA device {ordinal}: the driver sees {count} device(s)")
            }
            DeviceError::Driver { call, name, message } => write!(f, "{call} failed: {name} ({message})"),
            DeviceError::Panicked { call, message } => {
                write!(f, "{call} failed: the CUDA bindings panicked ({message})")
            }
        }
    }
}

impl std::error::Error for DeviceError {}

/// Runs a driver call: its `DriverError` becomes a [`DeviceError`] with the error's name, and a
/// panic of the bindings is caught.
pub(crate) fn guard<R>(call: &'static str, f: impl FnOnce() -> Result<R, DriverError>) -> Result<R, DeviceError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(driver_error(call, e)),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "no message".into());
            Err(DeviceError::Panicked { call, message })
        }
    }
}

fn driver_error(call: &'static str, e: DriverError) -> DeviceError {
    // Naming the error asks the driver again; a driver that cannot name it still gets its number.
    let named = catch_unwind(AssertUnwindSafe(|| {
        let name = e.error_name().ok().map(|s| s.to_string_lossy().into_owned());
        let message = e.error_string().ok().map(|s| s.to_string_lossy().into_owned());
        (name, message)
    }));
    let (name, message) = named.unwrap_or((None, None));
    DeviceError::Driver {
        call,
        name: name.unwrap_or_else(|| format!("CUresult {:?}", e.0)),
        message: message.unwrap_or_else(|| "no description".into()),
    }
}

/// Whether a CUDA driver library can be loaded (asked once). The bindings panic on the first driver
/// call without one, so this is checked before any.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to load the library (dlopen), as the bindings' own loader does.
    *PRESENT.get_or_init(|| catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false))
}

/// The number of CUDA devices the driver sees.
pub fn device_count() -> Result<usize, DeviceError> {
    if !driver_present() {
        return Err(DeviceError::NoDriver);
    }
    guard("cuInit/cuDeviceGetCount", CudaContext::device_count).map(|n| n.max(0) as usize)
}

/// Results made once per key, failures included (a device that is not there stays not there).
type Cache<K, V> = Mutex<Vec<(K, Result<V, DeviceError>)>>;

fn cached<K: PartialEq + Copy, V: Clone>(
    cache: &Cache<K, V>,
    key: K,
    make: impl FnOnce() -> Result<V, DeviceError>,
) -> Result<V, DeviceError> {
    let mut entries = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = entries.iter().find(|(k, _)| *k == key) {
        return r.clone();
    }
    let made = make();
    entries.push((key, made.clone()));
    made
}

/// The primary context of device `ordinal`, created once per process.
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, DeviceError> {
    static CONTEXTS: Cache<usize, Arc<CudaContext>> = Mutex::new(Vec::new());
    cached(&CONTEXTS, ordinal, || {
        let count = device_count()?;
        if ordinal >= count {
            return Err(DeviceError::NoDevice { ordinal, count });
        }
        guard("cuDevicePrimaryCtxRetain", || CudaContext::new(ordinal))
    })
}

/// A loaded kernel, and how many blocks of [`THREADS`] threads fill the device when they are all
/// resident at once (the grid of its grid-stride loop: no second wave that would run alone).
pub(crate) struct Kernel {
    pub function: CudaFunction,
    pub blocks: u32,
}

/// Threads per block of every kernel of the shim.
pub(crate) const THREADS: u32 = 256;

/// The kernels, loaded into one context.
pub(crate) struct Kernels {
    pub fingerprint: Kernel,
    pub scan_i32: Kernel,
    pub scan_i64: Kernel,
    pub scan_u32: Kernel,
    pub scan_u64: Kernel,
}

/// The kernels of `ctx`'s context, loaded at its first use (one module per context).
pub(crate) fn kernels(ctx: &Arc<CudaContext>) -> Result<Arc<Kernels>, DeviceError> {
    static LOADED: Cache<usize, Arc<Kernels>> = Mutex::new(Vec::new());
    cached(&LOADED, ctx.cu_ctx() as usize, || load(ctx).map(Arc::new))
}

fn load(ctx: &Arc<CudaContext>) -> Result<Kernels, DeviceError> {
    use cudarc::driver::sys::CUdevice_attribute;
    let module = guard("cuModuleLoadData (reuse_kernels.ptx)", || ctx.load_module(Ptx::from_src(PTX)))?;
    let sms = guard("cuDeviceGetAttribute", || {
        ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    })?;
    let kernel = |name: &'static str| -> Result<Kernel, DeviceError> {
        let function = guard("cuModuleGetFunction", || module.load_function(name))?;
        let per_sm = guard("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
            function.occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
        })?;
        Ok(Kernel { function, blocks: sms.max(1) as u32 * per_sm.max(1) })
    };
    Ok(Kernels {
        fingerprint: kernel("reuse_fingerprint")?,
        scan_i32: kernel("reuse_scan_i32")?,
        scan_i64: kernel("reuse_scan_i64")?,
        scan_u32: kernel("reuse_scan_u32")?,
        scan_u64: kernel("reuse_scan_u64")?,
    })
}

/// Why device checks are off for this process, if they are.
pub fn checks_off() -> Option<DeviceError> {
    OFF.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

static OFF: Mutex<Option<DeviceError>> = Mutex::new(None);
/// `OFF` is still empty (read on every device check, so not behind the lock).
static ON: AtomicBool = AtomicBool::new(true);

/// A device check could not run: it is skipped (the contract is not checked for this call, never a
/// finding and never a panic), and the reason is logged to stderr once per kind of error. An error
/// that will not go away turns device checks off for the rest of the process.
pub(crate) fn check_skipped(what: &str, err: &DeviceError) {
    static LOGGED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let kind = match err {
        DeviceError::Driver { name, .. } => name.clone(),
        other => format!("{:?}", std::mem::discriminant(other)),
    };
    if err.is_permanent() {
        OFF.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(|| err.clone());
        ON.store(false, Ordering::Relaxed);
    }
    let mut logged = LOGGED.lock().unwrap_or_else(|e| e.into_inner());
    if !logged.contains(&kind) {
        logged.push(kind);
        let state = if err.is_permanent() { "device checks off" } else { "device check skipped" };
        eprintln!("reuse-runtime: {state}: {what}: {err}");
    }
}

/// Whether device checks are still on (no permanent error so far).
pub(crate) fn checks_on() -> bool {
    ON.load(Ordering::Relaxed)
}
