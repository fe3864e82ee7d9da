//! How a value exposes its storage to the shim: where it lives ([`Extent`]), how many addressable
//! elements it has, and the bytes of a region of them (for fingerprints).

use std::ops::Range;

/// The address space an [`Extent`] lives in. Extents of different spaces never overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Host memory: the range is a byte address range.
    Host,
    /// Device memory of the device with this ordinal (the CUDA backend): a device byte address range.
    Device(u32),
    /// Opaque handles of one kind (the name says which, e.g. `"u64"`): the range covers handle values.
    Handle(&'static str),
}

/// Where some storage lives: a half-open range in one address space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Extent {
    pub space: Space,
    pub range: Range<u64>,
}

impl Extent {
    /// `len` bytes of host memory from `ptr`.
    pub fn host<T: ?Sized>(ptr: *const T, len: usize) -> Extent {
        let start = ptr as *const u8 as usize as u64;
        Extent { space: Space::Host, range: start..start + len as u64 }
    }

    /// The host memory of a slice.
    pub fn of_slice<T>(slice: &[T]) -> Extent {
        Extent::host(slice.as_ptr(), std::mem::size_of_val(slice))
    }

    /// One opaque handle: a device pointer passed around as an integer, a buffer id.
    pub fn handle(kind: &'static str, id: u64) -> Extent {
        Extent { space: Space::Handle(kind), range: id..id.saturating_add(1) }
    }

    pub fn is_empty(&self) -> bool {
        self.range.start >= self.range.end
    }

    /// Whether the two extents share at least one byte (or handle value).
    pub fn overlaps(&self, other: &Extent) -> bool {
        self.space == other.space
            && !self.is_empty()
            && !other.is_empty()
            && self.range.start < other.range.end
            && other.range.start < self.range.end
    }

    /// Whether `inner` lies entirely inside `self` (an output sharing an input's storage).
    pub fn contains(&self, inner: &Extent) -> bool {
        self.space == inner.space
            && !inner.is_empty()
            && self.range.start <= inner.range.start
            && inner.range.end <= self.range.end
    }
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.space {
            Space::Host => write!(f, "host {:#x}..{:#x}", self.range.start, self.range.end),
            Space::Device(d) => write!(f, "device {d} {:#x}..{:#x}", self.range.start, self.range.end),
            Space::Handle(kind) if self.range.end == self.range.start + 1 => {
                write!(f, "{kind} handle {}", self.range.start)
            }
            Space::Handle(kind) => write!(f, "{kind} handles {}..{}", self.range.start, self.range.end),
        }
    }
}

/// Element types whose every byte is initialized (no padding), so their storage can be read as
/// bytes for a fingerprint.
///
/// # Safety
/// Every byte of every value of the type must be initialized: no padding, no `MaybeUninit`.
/// Plain integers, floats, `bool`, `char` and arrays of them qualify; a `#[repr(C)]` struct of them
/// qualifies only if its layout has no padding.
pub unsafe trait Pod: Copy + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: primitive scalars have no padding and no uninitialized bytes.
        unsafe impl Pod for $t {}
    )* };
}
pod!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool, char);
// SAFETY: an array has no padding between its elements, which themselves have none.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

/// Storage the shim can see: implemented by user types to take part in the runtime checks.
///
/// *Elements* are the unit of the contract's indices and regions: `writes(cache[slots])` and
/// `forbids_write(cache[0..BLOCK_SIZE])` count in elements of `cache`. For a slice they are its
/// elements; a user type chooses (a paged cache might use rows, or whole blocks).
///
/// Implemented for `[T]`, `[T; N]`, `Vec<T>`, `Box<[T]>` (with `T: Pod`), `str`, `String`,
/// `u64` (an opaque handle: a device pointer passed as an integer), and through `&T`, `&mut T`,
/// `Box<T>`. A type that does not implement it is simply not checked.
pub trait Storage {
    /// Where the storage lives, for the alias checks. `None`: unknown (the value is not checked).
    fn extent(&self) -> Option<Extent>;

    /// How many elements there are (bounds of `writes` indices, open ends of regions).
    fn element_count(&self) -> Option<usize> {
        None
    }

    /// The bytes of the elements in `elements` (already clamped to `element_count`), for host storage.
    fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
        let _ = elements;
        None
    }

    /// A fingerprint of the elements in `elements`; by default a hash of [`Storage::region_bytes`].
    /// A device backend overrides it to compute the fingerprint where the data lives.
    fn fingerprint(&self, elements: Range<usize>) -> Option<u64> {
        self.region_bytes(elements).map(fingerprint_bytes)
    }

    /// An identity of this handle, distinct from the memory it names: a buffer id or generation
    /// that a donating op does not hand on to its output. `None` (the default): no identity, and
    /// the value takes no part in `use_after_donate`. With one, an input of an `aliases(OUT = IN)`
    /// call whose output has another identity (or none) is poisoned when the call returns, and a
    /// later contracted call that is passed a handle of that identity (in the same address space,
    /// [`Extent::space`]) is reported. Identities must be unique within a space for the life of
    /// the process: a counter, or the CUDA backend's `fresh_id`.
    fn handle_id(&self) -> Option<u64> {
        None
    }
}

fn slice_bytes<T: Pod>(slice: &[T]) -> &[u8] {
    // SAFETY: `T: Pod` guarantees every byte of the slice is initialized; the length is the
    // slice's size in bytes and the borrow keeps the memory alive and unaliased by writers.
    unsafe { std::slice::from_raw_parts(slice.as_ptr().cast::<u8>(), std::mem::size_of_val(slice)) }
}

impl<T: Pod> Storage for [T] {
    fn extent(&self) -> Option<Extent> {
        Some(Extent::of_slice(self))
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.len())
    }
    fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
        self.get(elements).map(slice_bytes)
    }
}

impl<T: Pod, const N: usize> Storage for [T; N] {
    fn extent(&self) -> Option<Extent> {
        self.as_slice().extent()
    }
    fn element_count(&self) -> Option<usize> {
        Some(N)
    }
    fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
        self.as_slice().region_bytes(elements)
    }
}

impl<T: Pod> Storage for Vec<T> {
    fn extent(&self) -> Option<Extent> {
        self.as_slice().extent()
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.len())
    }
    fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
        self.as_slice().region_bytes(elements)
    }
}

impl Storage for str {
    fn extent(&self) -> Option<Extent> {
        self.as_bytes().extent()
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.len())
    }
    fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
        self.as_bytes().region_bytes(elements)
    }
}

impl Storage for String {
    fn extent(&self) -> Option<Extent> {
        self.as_str().extent()
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.len())
    }
    fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
        self.as_bytes().region_bytes(elements)
    }
}

/// The handle kind of a bare `u64`.
pub(crate) const U64_HANDLE: &str = "u64";

/// A `u64` is taken to be an opaque handle (a device pointer passed as an integer, as CUDA's
/// `CUdeviceptr` is): two equal values are the same storage. It has no bytes on the host. Being
/// also the most common integer, a bare `u64` takes part in declared aliases only
/// (`alias_not_shared`); a handle newtype that implements `Storage` with a kind of its own is
/// checked for undeclared aliases too.
impl Storage for u64 {
    fn extent(&self) -> Option<Extent> {
        Some(Extent::handle(U64_HANDLE, *self))
    }
}

macro_rules! forward {
    ($($ty:ty),*) => { $(
        impl<T: Storage + ?Sized> Storage for $ty {
            fn extent(&self) -> Option<Extent> {
                (**self).extent()
            }
            fn element_count(&self) -> Option<usize> {
                (**self).element_count()
            }
            fn region_bytes(&self, elements: Range<usize>) -> Option<&[u8]> {
                (**self).region_bytes(elements)
            }
            fn fingerprint(&self, elements: Range<usize>) -> Option<u64> {
                (**self).fingerprint(elements)
            }
            fn handle_id(&self) -> Option<u64> {
                (**self).handle_id()
            }
        }
    )* };
}
forward!(&T, &mut T, Box<T>);

/// A fast, non-cryptographic 64-bit fingerprint of `bytes`: 32 independent 64-bit lanes over
/// 256-byte blocks (compiled for AVX-512 or AVX2 where the CPU has them), so it runs near memory
/// bandwidth. Any single changed word changes the result (each lane
/// step is a bijection of the lane state); unrelated inputs collide with probability about 2^-64.
pub fn fingerprint_bytes(bytes: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512dq") && std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { fingerprint_avx512(bytes) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { fingerprint_avx2(bytes) };
        }
    }
    fingerprint_portable(bytes)
}

/// The same function, compiled with AVX-512 (64-bit lane multiplies): the same result, faster.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn fingerprint_avx512(bytes: &[u8]) -> u64 {
    fingerprint_portable(bytes)
}

/// The same function, compiled with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fingerprint_avx2(bytes: &[u8]) -> u64 {
    fingerprint_portable(bytes)
}

#[inline(always)]
fn fingerprint_portable(bytes: &[u8]) -> u64 {
    const P: u64 = 0x9E37_79B9_7F4A_7C15;
    const Q: u64 = 0xC2B2_AE3D_27D4_EB4F;
    /// Independent lanes: enough to keep the multipliers busy instead of waiting on one chain.
    const LANES: usize = 32;
    let mut lanes = [0u64; LANES];
    for (i, lane) in lanes.iter_mut().enumerate() {
        *lane = P.wrapping_mul(i as u64 + 1);
    }
    let step = |lane: &mut u64, w: u64| *lane = (*lane ^ w).wrapping_mul(Q).rotate_left(29);
    let mut blocks = bytes.chunks_exact(LANES * 8);
    for block in &mut blocks {
        for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            step(lane, u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
    }
    for (word, lane) in blocks.remainder().chunks(8).zip(lanes.iter_mut()) {
        let mut buf = [0u8; 8];
        buf[..word.len()].copy_from_slice(word);
        step(lane, u64::from_le_bytes(buf));
    }
    let mut h = (bytes.len() as u64).wrapping_mul(P);
    for lane in lanes {
        h = (h ^ lane).wrapping_mul(P).rotate_left(31);
    }
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_overlap_and_contain() {
        let v = vec![0u32; 16];
        let whole = Extent::of_slice(&v);
        let head = Extent::of_slice(&v[..4]);
        let tail = Extent::of_slice(&v[8..]);
        assert!(whole.contains(&head) && whole.overlaps(&tail));
        assert!(!head.overlaps(&tail));
        assert!(!Extent::of_slice(&v[..0]).overlaps(&whole), "an empty extent overlaps nothing");
        assert!(Extent::handle("u64", 7).overlaps(&Extent::handle("u64", 7)));
        assert!(!Extent::handle("u64", 7).overlaps(&Extent::handle("buf", 7)), "spaces are separate");
    }

    #[test]
    fn storage_impls_agree() {
        let arr = [[1.0f32, 2.0]; 4];
        let v = arr.to_vec();
        assert_eq!(arr.element_count(), Some(4));
        assert_eq!(v.element_count(), Some(4));
        assert_eq!(Storage::region_bytes(&&v, 1..2).map(<[u8]>::len), Some(8));
        assert_eq!(v.fingerprint(0..4), arr.fingerprint(0..4));
        assert_eq!(v.region_bytes(3..9), None, "out of range");
        assert_eq!(7u64.extent(), Some(Extent::handle("u64", 7)));
        assert_eq!(7u64.fingerprint(0..1), None);
        let mut m = v.clone();
        let r: &mut Vec<[f32; 2]> = &mut m;
        assert_eq!(r.extent(), Some(Extent::of_slice(&m)));
    }

    #[test]
    fn fingerprint_sees_every_byte() {
        let base: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
        let h = fingerprint_bytes(&base);
        for i in [0, 7, 63, 64, 255, 256, 299] {
            let mut b = base.clone();
            b[i] ^= 1;
            assert_ne!(fingerprint_bytes(&b), h, "byte {i}");
        }
        assert_ne!(fingerprint_bytes(&base[..299]), h, "length counts");
        assert_eq!(fingerprint_bytes(&base), h, "deterministic");
    }

    #[test]
    fn every_compiled_variant_computes_the_same_fingerprint() {
        let data: Vec<u8> = (0..2000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        for len in (0..600).chain([1024, 1999, 2000]) {
            assert_eq!(fingerprint_bytes(&data[..len]), fingerprint_portable(&data[..len]), "len {len}");
        }
    }
}
