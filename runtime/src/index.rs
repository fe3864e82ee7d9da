//! Index arguments of `writes(P[IDX], skip = S)`: scanned for entries that are neither the skip
//! sentinel nor a valid position outside the forbidden regions of `P` (`pad_to_null_block`).

/// An integer type an index can be made of.
pub trait IndexInt: Copy {
    fn to_i128(self) -> i128;
}

macro_rules! index_int {
    ($($t:ty),*) => { $(
        impl IndexInt for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    )* };
}
index_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, i128);

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

/// The state of one scan: the rule an entry must satisfy and what was found.
#[doc(hidden)]
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

    #[inline]
    fn scan_slice<T: IndexInt>(&mut self, entries: &[T]) {
        let sentinel = self.sentinel;
        let len = self.len.unwrap_or(i128::MAX);
        let base = self.scanned;
        self.scanned += entries.len();
        // The fast path: one pass with no branches taken for valid entries.
        let regions = &self.regions;
        let is_bad = |v: i128| Some(v) != sentinel && (v < 0 || v >= len || regions.iter().any(|r| r.contains(&v)));
        if !entries.iter().any(|e| is_bad(e.to_i128())) {
            return;
        }
        for (i, e) in entries.iter().enumerate() {
            let v = e.to_i128();
            if !is_bad(v) {
                continue;
            }
            self.bad += 1;
            if self.first.is_none() {
                let region_index = self.regions.iter().position(|r| r.contains(&v));
                self.first = Some(BadIndex {
                    position: base + i,
                    value: v,
                    region: region_index.map(|k| self.regions[k].clone()),
                    region_index,
                });
            }
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
    }

    #[test]
    fn a_scalar_index_is_one_entry() {
        assert_eq!(scan(&0usize, Some(-1), 8, &[RegionSpec::at(0)]).bad, 1);
        assert_eq!(scan(&-1i32, Some(-1), 8, &[RegionSpec::at(0)]).bad, 0);
    }
}
