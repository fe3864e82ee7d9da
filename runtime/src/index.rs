//! Index arguments of `writes(P[IDX], skip = S)`: scanned for entries that are neither the skip
//! sentinel nor a valid position outside the forbidden regions of `P` (`pad_to_null_block`).

/// An integer type an index can be made of.
pub trait IndexInt: Copy {
    fn to_i128(self) -> i128;
    /// The value as `i64`, saturating (a value beyond `i64` is no valid position either way).
    fn to_i64_sat(self) -> i64;
}

macro_rules! index_int {
    ($($t:ty => |$v:ident| $sat:expr),* $(,)?) => { $(
        impl IndexInt for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn to_i64_sat(self) -> i64 {
                let $v = self;
                $sat
            }
        }
    )* };
}
index_int!(
    u8 => |v| v as i64,
    u16 => |v| v as i64,
    u32 => |v| v as i64,
    i8 => |v| v as i64,
    i16 => |v| v as i64,
    i32 => |v| v as i64,
    i64 => |v| v,
    isize => |v| v as i64,
    u64 => |v| v.min(i64::MAX as u64) as i64,
    usize => |v| (v as u64).min(i64::MAX as u64) as i64,
    i128 => |v| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
);

/// Converts a sentinel or a region bound (a const of any integer type) for the generated code.
#[doc(hidden)]
pub fn int<T: IndexInt>(v: T) -> i128 {
    v.to_i128()
}

/// A list of indices: slices, arrays and `Vec`s of integers, a single integer, and references to them.
/// Implement it for a user type (a device-side slot mapping, say) to have its entries checked.
pub trait IndexList {
    /// Feeds every entry, in order, to `scan`.
    fn scan_indices(&self, scan: &mut IndexScan);
}

impl<T: IndexInt> IndexList for [T] {
    fn scan_indices(&self, scan: &mut IndexScan) {
        scan.scan_slice(self);
    }
}
impl<T: IndexInt, const N: usize> IndexList for [T; N] {
    fn scan_indices(&self, scan: &mut IndexScan) {
        scan.scan_slice(self.as_slice());
    }
}
impl<T: IndexInt> IndexList for Vec<T> {
    fn scan_indices(&self, scan: &mut IndexScan) {
        scan.scan_slice(self.as_slice());
    }
}
macro_rules! scalar_index {
    ($($t:ty),*) => { $(
        impl IndexList for $t {
            fn scan_indices(&self, scan: &mut IndexScan) {
                scan.scan_slice(std::slice::from_ref(self));
            }
        }
    )* };
}
scalar_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, i128);
impl<T: IndexList + ?Sized> IndexList for &T {
    fn scan_indices(&self, scan: &mut IndexScan) {
        (**self).scan_indices(scan)
    }
}
impl<T: IndexList + ?Sized> IndexList for &mut T {
    fn scan_indices(&self, scan: &mut IndexScan) {
        (**self).scan_indices(scan)
    }
}
impl<T: IndexList + ?Sized> IndexList for Box<T> {
    fn scan_indices(&self, scan: &mut IndexScan) {
        (**self).scan_indices(scan)
    }
}

/// Whether `bad` holds for some entry: branch-free within chunks, so that it vectorizes (64-bit
/// compares need AVX2 or better, picked at run time).
#[inline(always)]
fn fold_any<T: IndexInt, F: Fn(i64) -> bool>(entries: &[T], bad: F) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { fold_any_avx512(entries, bad) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { fold_any_avx2(entries, bad) };
        }
    }
    fold_any_portable(entries, bad)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn fold_any_avx512<T: IndexInt, F: Fn(i64) -> bool>(entries: &[T], bad: F) -> bool {
    fold_any_portable(entries, bad)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_any_avx2<T: IndexInt, F: Fn(i64) -> bool>(entries: &[T], bad: F) -> bool {
    fold_any_portable(entries, bad)
}

#[inline(always)]
fn fold_any_portable<T: IndexInt, F: Fn(i64) -> bool>(entries: &[T], bad: F) -> bool {
    entries.chunks(256).any(|chunk| chunk.iter().fold(false, |acc, e| acc | bad(e.to_i64_sat())))
}

/// A region of a `forbids_write` clause as written: `[C]`, `[a..b]`, `[a..=b]`, `[..b]`, `[a..]`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct RegionSpec {
    pub start: Option<i128>,
    pub end: Option<i128>,
    pub inclusive: bool,
}

impl RegionSpec {
    pub const fn at(i: i128) -> Self {
        RegionSpec { start: Some(i), end: Some(i), inclusive: true }
    }
    pub const fn range(start: Option<i128>, end: Option<i128>, inclusive: bool) -> Self {
        RegionSpec { start, end, inclusive }
    }
    /// No position at all where `sanctioned` (a sanctioned writer of the region is running: its
    /// positions are ordinary ones for the index scan), else the region itself.
    pub const fn unless(self, sanctioned: bool) -> Self {
        if sanctioned {
            RegionSpec { start: Some(0), end: Some(0), inclusive: false }
        } else {
            self
        }
    }
    /// The half-open element range, given the storage's element count for an open end.
    pub fn resolve(&self, len: Option<usize>) -> Option<std::ops::Range<i128>> {
        let start = self.start.unwrap_or(0);
        let end = match self.end {
            Some(e) if self.inclusive => e + 1,
            Some(e) => e,
            None => len? as i128,
        };
        Some(start..end.max(start))
    }
    /// The element range clamped to `0..len`, as `usize`.
    pub fn clamp(&self, len: Option<usize>) -> Option<std::ops::Range<usize>> {
        let r = self.resolve(len)?;
        let cap = len.map(|l| l as i128).unwrap_or(i128::MAX);
        let start = r.start.clamp(0, cap);
        let end = r.end.clamp(start, cap);
        Some(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }
}

/// The first offending entry of an index scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadIndex {
    /// Its position in the index argument.
    pub position: usize,
    pub value: i128,
    /// The forbidden region it falls in (element range), or `None` when it is out of bounds.
    pub region: Option<std::ops::Range<i128>>,
    /// Which region of the contract (index into the regions the scan was given).
    pub region_index: Option<usize>,
}

/// The state of one scan: the rule an entry must satisfy (the skip sentinel, the bounds, the
/// forbidden regions) and what was found.
pub struct IndexScan {
    sentinel: Option<i128>,
    len: Option<i128>,
    regions: Vec<std::ops::Range<i128>>,
    /// Number of offending entries.
    pub bad: usize,
    /// The first of them.
    pub first: Option<BadIndex>,
    pub scanned: usize,
}

impl IndexScan {
    pub fn new(sentinel: Option<i128>, len: Option<usize>, regions: &[RegionSpec]) -> Self {
        IndexScan {
            sentinel,
            len: len.map(|l| l as i128),
            regions: regions.iter().map(|r| r.resolve(len).unwrap_or(0..0)).collect(),
            bad: 0,
            first: None,
            scanned: 0,
        }
    }

    /// The skip sentinel, the element count of the written place and the forbidden regions (half-open
    /// element ranges): what a device scan needs.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn rule(&self) -> (Option<i128>, Option<i128>, &[std::ops::Range<i128>]) {
        (self.sentinel, self.len, &self.regions)
    }

    /// Records the result of a scan done elsewhere (on the device): `entries` were scanned, `bad` of
    /// them offend, the first at `first = (position, value)` (positions relative to this list).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn record(&mut self, entries: usize, bad: usize, first: Option<(usize, i128)>) {
        let base = self.scanned;
        self.scanned += entries;
        self.bad += bad;
        if let Some((position, value)) = first {
            self.note_first(base + position, value);
        }
    }

    /// Whether every entry is valid: one branch-free pass in `i64` (the common case, and the cost
    /// the shim adds to every call: about a cycle an entry).
    fn all_valid<T: IndexInt>(&self, entries: &[T]) -> bool {
        let to_i64 = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        // A sentinel beyond i64 cannot be told from a saturated entry: take the careful path.
        let sentinel = match self.sentinel {
            Some(s) if s != to_i64(s) as i128 || s == i64::MAX as i128 || s == i64::MIN as i128 => return false,
            Some(s) => s as i64,
            None => i64::MIN,
        };
        let has_sentinel = self.sentinel.is_some();
        let len = to_i64(self.len.unwrap_or(i64::MAX as i128));
        // The valid positions: 0..len less the forbidden regions, as disjoint intervals.
        let mut valid: Vec<(i64, i64)> = vec![(0, len)];
        for r in &self.regions {
            let (a, b) = (to_i64(r.start), to_i64(r.end));
            valid = valid
                .into_iter()
                .flat_map(|(lo, hi)| [(lo, hi.min(a)), (lo.max(b), hi)])
                .filter(|(lo, hi)| lo < hi)
                .collect();
        }
        let outside = |v: i64, lo: i64, hi: i64| (v.wrapping_sub(lo) as u64) >= (hi.wrapping_sub(lo) as u64);
        let skip = |v: i64| has_sentinel & (v == sentinel);
        let any_bad = match valid.as_slice() {
            [] => entries.iter().any(|e| !skip(e.to_i64_sat())),
            &[(lo, hi)] => fold_any(entries, |v| outside(v, lo, hi) & !skip(v)),
            many => fold_any(entries, |v| many.iter().all(|&(lo, hi)| outside(v, lo, hi)) & !skip(v)),
        };
        !any_bad
    }

    #[inline]
    fn scan_slice<T: IndexInt>(&mut self, entries: &[T]) {
        let base = self.scanned;
        self.scanned += entries.len();
        if self.all_valid(entries) {
            return;
        }
        for (i, e) in entries.iter().enumerate() {
            let v = e.to_i128();
            if self.is_bad(v) {
                self.bad += 1;
                self.note_first(base + i, v);
            }
        }
    }

    /// The rule, entry by entry (the careful path).
    fn is_bad(&self, v: i128) -> bool {
        Some(v) != self.sentinel
            && (v < 0 || v >= self.len.unwrap_or(i128::MAX) || self.regions.iter().any(|r| r.contains(&v)))
    }

    /// Keeps the first offending entry.
    fn note_first(&mut self, position: usize, value: i128) {
        if self.first.is_none() {
            let region_index = self.regions.iter().position(|r| r.contains(&value));
            self.first = Some(BadIndex {
                position,
                value,
                region: region_index.map(|k| self.regions[k].clone()),
                region_index,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(idx: &dyn IndexList, sentinel: Option<i128>, len: usize, regions: &[RegionSpec]) -> IndexScan {
        let mut s = IndexScan::new(sentinel, Some(len), regions);
        idx.scan_indices(&mut s);
        s
    }

    #[test]
    fn sentinel_and_valid_positions_pass() {
        let s = scan(&vec![-1i64, 4, 5, -1], Some(-1), 8, &[RegionSpec::range(Some(0), Some(4), false)]);
        assert_eq!((s.bad, s.scanned), (0, 4));
    }

    #[test]
    fn entries_in_a_forbidden_region_or_out_of_bounds_are_found() {
        let s = scan(&[5i64, 0, 0, -2, 9], Some(-1), 8, &[RegionSpec::range(Some(0), Some(4), false)]);
        assert_eq!(s.bad, 4);
        assert_eq!(s.first, Some(BadIndex { position: 1, value: 0, region: Some(0..4), region_index: Some(0) }));
        let s = scan(&[9usize], None, 8, &[]);
        assert_eq!(s.first.unwrap().region, None);
    }

    #[test]
    fn regions_resolve_open_and_inclusive_bounds() {
        assert_eq!(RegionSpec::at(3).resolve(None), Some(3..4));
        assert_eq!(RegionSpec::range(Some(2), None, false).resolve(Some(10)), Some(2..10));
        assert_eq!(RegionSpec::range(None, Some(3), true).resolve(None), Some(0..4));
        assert_eq!(RegionSpec::range(Some(2), None, false).resolve(None), None);
        assert_eq!(RegionSpec::range(Some(6), Some(20), false).clamp(Some(8)), Some(6..8));
        assert_eq!(RegionSpec::at(3).unless(true).resolve(Some(10)), Some(0..0));
        assert_eq!(RegionSpec::at(3).unless(false).resolve(Some(10)), Some(3..4));
    }

    #[test]
    fn the_fast_pass_agrees_with_the_careful_one() {
        let naive = |v: i128, sentinel: Option<i128>, len: i128, regions: &[std::ops::Range<i128>]| {
            Some(v) != sentinel && (v < 0 || v >= len || regions.iter().any(|r| r.contains(&v)))
        };
        let specs = [
            vec![],
            vec![RegionSpec::range(Some(0), Some(4), false)],
            vec![RegionSpec::at(7), RegionSpec::range(Some(10), None, false)],
            vec![RegionSpec::range(None, Some(3), true), RegionSpec::range(Some(2), Some(5), false)],
        ];
        let mut x = 12345u64;
        for spec in &specs {
            for sentinel in [None, Some(-1), Some(0), Some(5)] {
                for _ in 0..50 {
                    let entries: Vec<i64> = (0..40)
                        .map(|_| {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                            ((x >> 33) % 20) as i64 - 3
                        })
                        .collect();
                    let mut scan = IndexScan::new(sentinel, Some(16), spec);
                    entries.scan_indices(&mut scan);
                    let regions: Vec<_> = spec.iter().map(|r| r.resolve(Some(16)).unwrap()).collect();
                    let want = entries.iter().filter(|&&v| naive(v as i128, sentinel, 16, &regions)).count();
                    assert_eq!(scan.bad, want, "{entries:?} {sentinel:?} {regions:?}");
                }
            }
        }
        let mut scan = IndexScan::new(Some(-1), Some(16), &[]);
        [u64::MAX, 3].scan_indices(&mut scan);
        assert_eq!(scan.bad, 1, "a huge unsigned entry is not the sentinel -1");
    }

    #[test]
    fn a_scalar_index_is_one_entry() {
        assert_eq!(scan(&0usize, Some(-1), 8, &[RegionSpec::at(0)]).bad, 1);
        assert_eq!(scan(&-1i32, Some(-1), 8, &[RegionSpec::at(0)]).bad, 0);
        // A region whose sanctioned writer runs is no region for the scan.
        assert_eq!(scan(&[0i64, 1], Some(-1), 8, &[RegionSpec::at(0).unless(true)]).bad, 0);
        assert_eq!(scan(&[0i64, 1], Some(-1), 8, &[RegionSpec::at(0).unless(false)]).bad, 1);
    }
}
