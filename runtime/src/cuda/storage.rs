//! Device memory as [`Storage`] and [`IndexList`]: `cudarc`'s `CudaSlice<T>`, `CudaView<T>` and
//! `CudaViewMut<T>` of plain-old-data, and [`DeviceRegion`], the way a user type that owns a raw
//! device pointer and a length takes part.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DeviceSlice};

use super::context::{self, DeviceError};
use super::kernels::{self, IndexType};
use crate::index::{IndexList, IndexScan};
use crate::storage::{Extent, Pod, Space, Storage};

/// A range of device memory: what the checks need to know of a device buffer. A user type that owns
/// a device pointer and a length (a tensor's storage, a raw `CUdeviceptr`) exposes itself by
/// returning one from [`AsDeviceRegion`] and implementing [`Storage`] with
/// [`crate::device_storage!`]:
///
/// ```no_run
/// use reuse::runtime::cuda::{AsDeviceRegion, DeviceRegion};
///
/// struct KvCache { ptr: u64, rows: usize, row_bytes: usize, id: u64 }
///
/// impl AsDeviceRegion for KvCache {
///     fn device_region(&self) -> Option<reuse::runtime::cuda::DeviceRegion> {
///         // SAFETY: `ptr` points to `rows * row_bytes` bytes on device 0 while `self` lives.
///         Some(unsafe { DeviceRegion::new(0, self.ptr, self.rows, self.row_bytes) }.with_id(self.id))
///     }
/// }
/// reuse::runtime::device_storage!(KvCache);
/// ```
#[derive(Clone, Debug)]
pub struct DeviceRegion {
    ordinal: u32,
    ptr: u64,
    elements: usize,
    element_bytes: usize,
    stream: Option<Arc<CudaStream>>,
    id: Option<u64>,
}

impl DeviceRegion {
    /// `elements` elements of `element_bytes` bytes each at device address `ptr` of device
    /// `ordinal`. The checks fingerprint them on the device's default stream unless
    /// [`DeviceRegion::on_stream`] names the stream the buffer is used on.
    ///
    /// # Safety
    /// `ptr..ptr + elements * element_bytes` must be device memory of device `ordinal`'s primary
    /// context (or of the given stream's context), readable for as long as the region is used.
    pub unsafe fn new(ordinal: u32, ptr: u64, elements: usize, element_bytes: usize) -> DeviceRegion {
        DeviceRegion { ordinal, ptr, elements, element_bytes, stream: None, id: None }
    }

    /// The stream the buffer's work runs on: fingerprints are taken on it, in order with that work.
    pub fn on_stream(mut self, stream: Arc<CudaStream>) -> DeviceRegion {
        self.stream = Some(stream);
        self
    }

    /// An identity of the handle, distinct from its memory (see [`Storage::handle_id`]): gives the
    /// buffer a part in `use_after_donate`. [`fresh_id`] makes one.
    pub fn with_id(mut self, id: u64) -> DeviceRegion {
        self.id = Some(id);
        self
    }

    pub fn extent(&self) -> Extent {
        let bytes = (self.elements as u64).saturating_mul(self.element_bytes as u64);
        Extent { space: Space::Device(self.ordinal), range: self.ptr..self.ptr.saturating_add(bytes) }
    }

    pub fn element_count(&self) -> usize {
        self.elements
    }

    pub fn handle_id(&self) -> Option<u64> {
        self.id
    }

    /// The fingerprint of the elements in `elements`, computed on the device.
    pub fn fingerprint(&self, elements: Range<usize>) -> Result<u64, DeviceError> {
        let stream = match &self.stream {
            Some(s) => s.clone(),
            None => context::context(self.ordinal as usize)?.default_stream(),
        };
        let start = elements.start.min(self.elements);
        let end = elements.end.clamp(start, self.elements);
        // SAFETY: the range lies inside the region, which `new`'s caller promised is readable.
        unsafe {
            kernels::fingerprint(
                &stream,
                self.ptr + (start * self.element_bytes) as u64,
                (end - start) * self.element_bytes,
            )
        }
    }
}

/// A fresh handle identity for [`DeviceRegion::with_id`]: give each handle one when it is made, and
/// the output of a donating op a new one.
pub fn fresh_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A user type that owns device memory: the region it names (`None`: not checked).
pub trait AsDeviceRegion {
    fn device_region(&self) -> Option<DeviceRegion>;
}

/// Implements [`Storage`] for types that implement [`AsDeviceRegion`], computing fingerprints on
/// the device: `reuse::runtime::device_storage!(KvCache, BlockTable);`. A generic type names its
/// parameters after `impl`: `device_storage!(impl<T: Pod> DeviceVec<T>)`.
#[macro_export]
macro_rules! device_storage {
    () => {};
    (impl<$($g:ident $(: $b:path)?),*> $ty:ty $(, $($rest:tt)*)?) => {
        $crate::device_storage!(@impl [$($g $(: $b)?),*] $ty);
        $($crate::device_storage!($($rest)*);)?
    };
    (@impl [$($generics:tt)*] $ty:ty) => {
        impl<$($generics)*> $crate::Storage for $ty {
            fn extent(&self) -> ::core::option::Option<$crate::Extent> {
                $crate::cuda::AsDeviceRegion::device_region(self).map(|r| r.extent())
            }
            fn element_count(&self) -> ::core::option::Option<usize> {
                $crate::cuda::AsDeviceRegion::device_region(self).map(|r| r.element_count())
            }
            fn fingerprint(&self, elements: ::core::ops::Range<usize>) -> ::core::option::Option<u64> {
                $crate::cuda::region_fingerprint(&$crate::cuda::AsDeviceRegion::device_region(self)?, elements)
            }
            fn handle_id(&self) -> ::core::option::Option<u64> {
                $crate::cuda::AsDeviceRegion::device_region(self)?.handle_id()
            }
        }
    };
    ($ty:ty $(, $($rest:tt)*)?) => {
        $crate::device_storage!(@impl [] $ty);
        $($crate::device_storage!($($rest)*);)?
    };
}

impl Storage for DeviceRegion {
    fn extent(&self) -> Option<Extent> {
        Some(DeviceRegion::extent(self))
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.elements)
    }
    fn fingerprint(&self, elements: Range<usize>) -> Option<u64> {
        region_fingerprint(self, elements)
    }
    fn handle_id(&self) -> Option<u64> {
        self.id
    }
}

/// A device fingerprint for a check: `None` (the check is skipped, and the reason logged once) when
/// the device cannot compute it.
#[doc(hidden)]
pub fn region_fingerprint(region: &DeviceRegion, elements: Range<usize>) -> Option<u64> {
    if !context::checks_on() {
        return None;
    }
    region.fingerprint(elements).map_err(|e| context::check_skipped("fingerprint of a forbids_write region", &e)).ok()
}

/// The region of a `cudarc` slice or view, on its own stream. Taking the pointer through
/// `DevicePtr` keeps `cudarc`'s event tracking right (the read is recorded on the stream).
fn slice_region<T, S: DevicePtr<T> + DeviceSlice<T>>(s: &S) -> DeviceRegion {
    let (ptr, _record) = s.device_ptr(s.stream());
    let stream = s.stream().clone();
    let ordinal = stream.context().ordinal() as u32;
    // SAFETY: a live `cudarc` slice or view owns or borrows `len` elements at `ptr` in its stream's
    // context, for at least as long as the borrow of `s`, which every use of the region is within.
    unsafe { DeviceRegion::new(ordinal, ptr, s.len(), std::mem::size_of::<T>()) }.on_stream(stream)
}

macro_rules! cudarc_storage {
    ($($ty:ty),*) => { $(
        impl<T: Pod> Storage for $ty {
            fn extent(&self) -> Option<Extent> {
                Some(slice_region(self).extent())
            }
            fn element_count(&self) -> Option<usize> {
                Some(self.len())
            }
            fn fingerprint(&self, elements: Range<usize>) -> Option<u64> {
                region_fingerprint(&slice_region(self), elements)
            }
        }
    )* };
}
cudarc_storage!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

/// Index element types the scan kernel reads.
pub trait DeviceIndexInt: Pod + crate::IndexInt + cudarc::driver::DeviceRepr {
    #[doc(hidden)]
    const TYPE: IndexTypeTag;
}

/// Which kernel scans an index type (opaque).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct IndexTypeTag(IndexType);

impl DeviceIndexInt for i32 {
    const TYPE: IndexTypeTag = IndexTypeTag(IndexType::I32);
}
impl DeviceIndexInt for i64 {
    const TYPE: IndexTypeTag = IndexTypeTag(IndexType::I64);
}
impl DeviceIndexInt for u32 {
    const TYPE: IndexTypeTag = IndexTypeTag(IndexType::U32);
}
impl DeviceIndexInt for u64 {
    const TYPE: IndexTypeTag = IndexTypeTag(IndexType::U64);
}

/// Scans a device index in place; where the kernel cannot hold the rule, copies it to the host and
/// scans it there. A scan that cannot run leaves `scan` as it was (nothing found) and logs why.
fn scan_device<T: DeviceIndexInt, S: DevicePtr<T> + DeviceSlice<T>>(s: &S, scan: &mut IndexScan) {
    if !context::checks_on() {
        return;
    }
    let stream = s.stream().clone();
    let result = {
        let (ptr, _record) = s.device_ptr(&stream);
        // SAFETY: a live slice or view has `len` entries of `T` at `ptr` in its stream's context.
        unsafe { kernels::scan(&stream, ptr, s.len(), T::TYPE.0, scan.rule()) }
    };
    match result {
        Ok(Some((bad, first))) => scan.record(s.len(), bad, first),
        Ok(None) => match context::guard("cuMemcpyDtoH", || stream.clone_dtoh(s)) {
            Ok(host) => host.scan_indices(scan),
            Err(e) => context::check_skipped("copy of a writes index", &e),
        },
        Err(e) => context::check_skipped("scan of a writes index", &e),
    }
}

macro_rules! cudarc_index {
    ($($ty:ty),*) => { $(
        impl<T: DeviceIndexInt> IndexList for $ty {
            fn scan_indices(&self, scan: &mut IndexScan) {
                scan_device(self, scan);
            }
        }
    )* };
}
cudarc_index!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

#[cfg(test)]
mod tests {
    use super::*;

    /// A user type generic over its element, exposed through the macro (no device memory is read).
    struct DeviceVec<T> {
        ptr: u64,
        len: usize,
        _t: std::marker::PhantomData<T>,
    }
    impl<T: Pod> AsDeviceRegion for DeviceVec<T> {
        fn device_region(&self) -> Option<DeviceRegion> {
            // SAFETY: never read in these tests.
            Some(unsafe { DeviceRegion::new(1, self.ptr, self.len, std::mem::size_of::<T>()) })
        }
    }
    crate::device_storage!(impl<T: Pod> DeviceVec<T>);

    #[test]
    fn device_regions_are_device_address_ranges_in_elements() {
        let v = DeviceVec::<[f32; 4]> { ptr: 0x7f00_0000_0000, len: 10, _t: std::marker::PhantomData };
        let whole = v.extent().expect("an extent");
        assert_eq!(whole.space, Space::Device(1));
        assert_eq!(whole.range, 0x7f00_0000_0000..0x7f00_0000_0000 + 160);
        assert_eq!(v.element_count(), Some(10));
        assert_eq!(v.handle_id(), None);
        // SAFETY: never read.
        let row3 = unsafe { DeviceRegion::new(1, 0x7f00_0000_0000 + 48, 1, 16) }.with_id(fresh_id());
        assert!(whole.contains(&row3.extent()));
        assert!(row3.handle_id().is_some());
        // SAFETY: never read.
        let elsewhere = unsafe { DeviceRegion::new(0, 0x7f00_0000_0000, 10, 16) };
        assert!(!whole.overlaps(&elsewhere.extent()), "devices are separate address spaces");
        assert_ne!(fresh_id(), fresh_id());
    }
}
