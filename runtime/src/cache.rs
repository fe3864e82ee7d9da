//! The `reuses(PLACE, key(...))` side: observing a cache place to tell hits from misses, and the
//! side table of key components that entries were stored under (`stale_hit`).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

/// What the shim sees of a cache between two moments: how many entries, and an order-independent
/// fingerprint of their keys. A call that leaves it unchanged served a hit; one that changes it stored
/// (or evicted) something, a miss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheSignature {
    pub entries: usize,
    pub keys: u64,
}

/// A place a function serves results from (`reuses(self.plans, ...)`).
///
/// Implemented for `HashMap`, `BTreeMap`, `HashSet`, `BTreeSet` (keys: `Hash`), and through
/// `RefCell`, `Mutex`, `RwLock` (without blocking: a place that is borrowed or locked right now is not
/// observed), `Box`, `Rc`, `Arc`, `&`, `&mut`. Reading a signature costs O(entries).
///
/// Not for containers whose keys the shim cannot see: a `Vec<Option<T>>` filled in place or an
/// `Option<T>` slot replaced on a miss keep their shape, so a miss would look like a hit. Implement
/// the trait for such a cache with a counter the cache bumps when it stores (the `keys` of the
/// signature), or mark calls with `hit()`/`miss()`.
pub trait CachePlace {
    /// `None`: cannot be observed now.
    fn cache_signature(&self) -> Option<CacheSignature>;

    /// The identity of the cache instance: its address and type. Wrappers that only point at a
    /// cache (`&C`, `Box<C>`, `Arc<C>`...) return the identity of the cache they point at.
    fn cache_id(&self) -> (usize, &'static str) {
        (self as *const Self as *const () as usize, std::any::type_name::<Self>())
    }
}

/// A fixed, fast hasher (FxHash's multiply-rotate), so signatures are stable within a process.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.hash = (self.hash.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[derive(Default, Clone, Copy)]
pub struct FxBuild;
impl BuildHasher for FxBuild {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher::default()
    }
}

pub(crate) fn hash_one<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut h = FxHasher::default();
    v.hash(&mut h);
    // A final avalanche so that summing key hashes mixes well.
    let x = h.finish();
    (x ^ (x >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB) ^ (x >> 29)
}

fn keyed<'a, K: Hash + 'a>(len: usize, keys: impl Iterator<Item = &'a K>) -> Option<CacheSignature> {
    Some(CacheSignature { entries: len, keys: keys.fold(0u64, |acc, k| acc.wrapping_add(hash_one(k))) })
}

impl<K: Hash, V, S> CachePlace for HashMap<K, V, S> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        keyed(self.len(), self.keys())
    }
}
impl<K: Hash, V> CachePlace for BTreeMap<K, V> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        keyed(self.len(), self.keys())
    }
}
impl<K: Hash, S> CachePlace for HashSet<K, S> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        keyed(self.len(), self.iter())
    }
}
impl<K: Hash> CachePlace for BTreeSet<K> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        keyed(self.len(), self.iter())
    }
}
impl<C: CachePlace + ?Sized> CachePlace for RefCell<C> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        self.try_borrow().ok()?.cache_signature()
    }
}
impl<C: CachePlace + ?Sized> CachePlace for Mutex<C> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        self.try_lock().ok()?.cache_signature()
    }
}
impl<C: CachePlace + ?Sized> CachePlace for RwLock<C> {
    fn cache_signature(&self) -> Option<CacheSignature> {
        self.try_read().ok()?.cache_signature()
    }
}
macro_rules! forward {
    ($($ty:ty),*) => { $(
        impl<C: CachePlace + ?Sized> CachePlace for $ty {
            fn cache_signature(&self) -> Option<CacheSignature> {
                (**self).cache_signature()
            }
            fn cache_id(&self) -> (usize, &'static str) {
                (**self).cache_id()
            }
        }
    )* };
}
forward!(&C, &mut C, Box<C>, Rc<C>, Arc<C>);

/// What the shim remembers of one cache instance (by address and type).
#[derive(Default)]
struct Record {
    /// A contracted call has observed it before.
    seen: bool,
    /// The signature the last contracted call left it with.
    last: Option<CacheSignature>,
    /// Hashes of the key components that entries were stored under by contracted misses.
    stored_under: HashSet<u64, FxBuild>,
    /// Entries were added by code the shim did not see: their components are unknown.
    unknown_provenance: bool,
}

static RECORDS: Mutex<BTreeMap<(usize, &'static str), Record>> = Mutex::new(BTreeMap::new());

/// The observation of one cache at the start of a call.
pub(crate) struct Before {
    pub id: (usize, &'static str),
    pub sig: Option<CacheSignature>,
    pub components: Option<u64>,
    /// No entry was ever stored under the current components, and the cache's provenance is known:
    /// if this call turns out to be a hit, it is stale.
    pub would_be_stale: bool,
}

/// Bounds on what the shim remembers: cache instances (dropped caches leave records behind), and
/// component sets per instance. Past them it forgets, which only ever silences a check.
const MAX_RECORDS: usize = 1 << 16;
const MAX_STORED: usize = 1 << 20;

pub(crate) fn before(id: (usize, &'static str), sig: Option<CacheSignature>, components: Option<u64>) -> Before {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    if records.len() >= MAX_RECORDS && !records.contains_key(&id) {
        records.clear();
    }
    let rec = records.entry(id).or_default();
    match (rec.seen, rec.last, sig) {
        // Emptied since (or a new cache at a recycled address): nothing stored, nothing unknown.
        (_, _, Some(now)) if now.entries == 0 => *rec = Record::default(),
        // First sight of a non-empty cache: its entries were stored by code the shim did not see.
        (false, _, Some(_)) => rec.unknown_provenance = true,
        // Changed between contracted calls: evictions keep what is known; additions make it unknown.
        (true, Some(last), Some(now)) if last != now && now.entries >= last.entries => rec.unknown_provenance = true,
        _ => {}
    }
    rec.seen = true;
    let would_be_stale =
        !rec.unknown_provenance && components.is_some_and(|k| !rec.stored_under.contains(&k)) && sig.is_some();
    Before { id, sig, components, would_be_stale }
}

/// Closes the observation: decides hit or miss, records the components of a miss; returns
/// `Some(true)` for a hit, `Some(false)` for a miss, `None` when it cannot tell.
pub(crate) fn after(before: &Before, after: Option<CacheSignature>, mark: Option<bool>) -> Option<bool> {
    let hit = mark.or(match (before.sig, after) {
        (Some(b), Some(a)) if a != b => Some(false),
        (Some(b), Some(_)) if b.entries > 0 => Some(true),
        (Some(_), Some(_)) => Some(false),
        _ => None,
    });
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    let rec = records.entry(before.id).or_default();
    rec.last = after;
    if hit == Some(false) {
        if let Some(k) = before.components {
            if rec.stored_under.len() >= MAX_STORED {
                // Forget, and stop judging this instance until it is empty again.
                rec.stored_under.clear();
                rec.unknown_provenance = true;
            }
            rec.stored_under.insert(k);
        }
    }
    hit
}

/// Closes the observation of a call that served nothing (an error, a declining miss): the cache is
/// remembered as it is now, and no components are recorded (nothing was stored under them).
pub(crate) fn after_serving_nothing(before: &Before, after: Option<CacheSignature>) {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    records.entry(before.id).or_default().last = after;
}

/// Combines the hashes of the key components; `None` if one of them cannot be hashed.
pub(crate) fn combine(components: &[Option<u64>]) -> Option<u64> {
    let mut h = FxHasher::default();
    for c in components {
        h.write_u64((*c)?);
    }
    Some(h.finish())
}
