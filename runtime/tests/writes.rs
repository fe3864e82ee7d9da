//! `writes(P[IDX], skip = S)` (`pad_to_null_block`) and `forbids_write(P[C])` (`forbidden_write`).

mod common;

use common::rules;
use reuse::runtime::{collect, Detail};

const BLOCK_SIZE: usize = 4;
const NULL_BLOCK: usize = 0;
const PAD_SLOT_ID: i64 = -1;
type Row = [f32; 2];

#[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..BLOCK_SIZE]))]
fn reshape_and_cache(key: &[Row], key_cache: &mut [Row], slot_mapping: &[i64]) {
    for (row, &slot) in key.iter().zip(slot_mapping) {
        if slot == PAD_SLOT_ID {
            continue;
        }
        key_cache[slot as usize] = *row;
    }
}

fn cache() -> Vec<Row> {
    // The null block holds a marker: a write of any other value into it changes its fingerprint.
    let mut c = vec![[0.0; 2]; 4 * BLOCK_SIZE];
    c[..BLOCK_SIZE].fill([7.0, 7.0]);
    c
}

#[test]
fn padding_with_the_sentinel_is_clean() {
    let mut c = cache();
    let key = vec![[1.0, 2.0]; 4];
    assert!(collect(|| reshape_and_cache(&key, &mut c, &[4, 5, -1, -1])).is_empty());
    assert_eq!(c[4], [1.0, 2.0]);
}

#[test]
fn padding_with_zero_is_reported_with_the_entry_and_the_region() {
    let mut c = cache();
    let key = vec![[1.0, 2.0]; 4];
    let slots = vec![4i64, 5, 0, 0];
    let v = collect(|| reshape_and_cache(&key, &mut c, &slots));
    // The scan reports the padding; the write it leads to changes the null block's fingerprint.
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);
    let pad = &v[0];
    assert_eq!(pad.clause, "writes(key_cache[slot_mapping], skip = PAD_SLOT_ID)");
    assert_eq!(
        pad.detail,
        Detail::Index { index: "slot_mapping", position: 2, value: 0, region: Some(0..4), count: 2 }
    );
    assert!(pad.message.contains("`slot_mapping[2]` = 0"), "{}", pad.message);
    assert!(pad.message.contains("key_cache[0..BLOCK_SIZE]"), "{}", pad.message);
    assert_eq!(pad.location.file(), file!(), "the caller's location");
    assert_eq!(v[1].clause, "forbids_write(key_cache[0..BLOCK_SIZE])");
    assert!(matches!(v[1].detail, Detail::Region { elements: std::ops::Range { start: 0, end: 4 }, .. }));
}

#[test]
fn out_of_bounds_and_negative_entries_are_not_valid_positions() {
    let key = vec![[1.0, 2.0]; 1];
    for bad in [-2i64, 16] {
        let mut c = cache();
        let v = collect(|| {
            // The body would panic on these: the check runs before it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reshape_and_cache(&key, &mut c, &[bad])));
        });
        assert!(rules(&v).contains(&"pad_to_null_block"), "{bad}: {v:?}");
        assert!(v[0].message.contains("not a valid position"), "{}", v[0].message);
    }
}

/// Index lists of other shapes: a `Vec<usize>` parameter, a scalar index, an array.
#[reuse::contract(writes(out[positions]), forbids_write(out[NULL_BLOCK]))]
fn scatter(out: &mut Vec<u32>, positions: Vec<usize>, value: u32) {
    for p in positions {
        out[p] = value;
    }
}

#[reuse::contract(writes(out[at], skip = -1), forbids_write(out[..=1]))]
fn put(out: &mut [u8; 8], at: i32) {
    if at >= 0 {
        out[at as usize] = 1;
    }
}

#[test]
fn index_lists_of_any_integer_shape_are_scanned() {
    let mut out = vec![9u32; 8];
    assert!(collect(|| scatter(&mut out, vec![3, 4], 1)).is_empty());
    let v = collect(|| scatter(&mut out, vec![3, 0], 1));
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);

    let mut arr = [5u8; 8];
    assert!(collect(|| put(&mut arr, -1)).is_empty());
    assert!(collect(|| put(&mut arr, 4)).is_empty());
    assert_eq!(rules(&collect(|| put(&mut arr, 1))), ["pad_to_null_block", "forbidden_write"]);
}

/// `forbidden_write` on its own: a body that writes the forbidden region.
#[reuse::contract(forbids_write(key_cache[0..BLOCK_SIZE]))]
fn clear_blocks(key_cache: &mut [Row], blocks: &[usize]) {
    for &block in blocks {
        for row in &mut key_cache[block * BLOCK_SIZE..(block + 1) * BLOCK_SIZE] {
            *row = [0.0; 2];
        }
    }
}

#[test]
fn writing_the_forbidden_region_is_reported_and_other_regions_are_not() {
    let mut c = cache();
    assert!(collect(|| clear_blocks(&mut c, &[1, 3])).is_empty());
    let v = collect(|| clear_blocks(&mut c, &[2, 0]));
    assert_eq!(rules(&v), ["forbidden_write"]);
    assert!(v[0].message.contains("key_cache[0..BLOCK_SIZE]"), "{}", v[0].message);
    assert!(matches!(&v[0].detail, Detail::Region { before, after, .. } if before != after));
}

#[test]
fn writing_the_bytes_a_region_already_holds_is_invisible() {
    let mut c = vec![[0.0; 2]; 4 * BLOCK_SIZE];
    assert!(collect(|| clear_blocks(&mut c, &[0])).is_empty(), "the documented limit of a fingerprint");
}

/// A body that moves its `&mut` parameter still compiles, and is still checked.
#[reuse::contract(forbids_write(rows[0]))]
fn fill_all(rows: &mut [u8], v: u8) {
    for r in rows {
        *r = v;
    }
}

#[test]
fn a_body_may_move_its_mut_parameter() {
    let mut rows = vec![1u8; 4];
    assert_eq!(rules(&collect(|| fill_all(&mut rows, 2))), ["forbidden_write"]);
    assert!(collect(|| fill_all(&mut rows, 2)).is_empty());
}

/// Places behind `self`, open regions, and a method that also returns a shared borrow.
struct Pool {
    blocks: Vec<u64>,
    reserved: usize,
}

impl Pool {
    #[reuse::contract(forbids_write(self.blocks[..2]))]
    fn reset(&mut self, from: usize) -> usize {
        for b in &mut self.blocks[from..] {
            *b = 0;
        }
        self.reserved
    }

    #[reuse::contract(forbids_write(self.blocks[6..]))]
    fn head_mut_then_view(&mut self, i: usize) -> &u64 {
        self.blocks[i] += 1;
        &self.blocks[i]
    }
}

#[test]
fn regions_of_self_fields_are_guarded() {
    let mut p = Pool { blocks: vec![1; 8], reserved: 2 };
    assert!(collect(|| assert_eq!(p.reset(2), 2)).is_empty());
    assert_eq!(rules(&collect(|| assert_eq!(p.reset(1), 2))), ["forbidden_write"]);
    assert!(collect(|| assert_eq!(*p.head_mut_then_view(3), 1)).is_empty());
    assert_eq!(rules(&collect(|| assert_eq!(*p.head_mut_then_view(7), 1))), ["forbidden_write"]);
}

/// A type that exposes its storage through the trait, by hand.
struct Paged {
    data: Vec<f32>,
    block: usize,
}

impl reuse::runtime::Storage for Paged {
    fn extent(&self) -> Option<reuse::runtime::Extent> {
        self.data.extent()
    }
    /// Elements are whole blocks here.
    fn element_count(&self) -> Option<usize> {
        Some(self.data.len() / self.block)
    }
    fn region_bytes(&self, blocks: std::ops::Range<usize>) -> Option<&[u8]> {
        self.data.region_bytes(blocks.start * self.block..blocks.end * self.block)
    }
}

#[reuse::contract(writes(cache[block_ids], skip = -1), forbids_write(cache[NULL_BLOCK]))]
fn write_blocks(cache: &mut Paged, block_ids: &[i32]) {
    for &b in block_ids {
        if b >= 0 && (b as usize) < cache.data.len() / cache.block {
            let bs = cache.block;
            cache.data[b as usize * bs] = 1.0;
        }
    }
}

#[test]
fn user_types_take_part_through_the_storage_trait() {
    let mut c = Paged { data: vec![0.5; 32], block: 8 };
    assert!(collect(|| write_blocks(&mut c, &[1, 3, -1])).is_empty());
    let v = collect(|| write_blocks(&mut c, &[2, 0]));
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);
    assert_eq!(rules(&collect(|| write_blocks(&mut c, &[4]))), ["pad_to_null_block"], "block 4 of 4 is out of bounds");
}

/// A generic parameter bounded by `Storage` is checked.
#[reuse::contract(forbids_write(cache[0]))]
fn generic_clear<S: reuse::runtime::Storage + AsMut<[u8]>>(cache: &mut S, from: usize) {
    for b in &mut cache.as_mut()[from..] {
        *b = 0;
    }
}

#[test]
fn generic_parameters_with_a_storage_bound_are_checked() {
    let mut v = vec![1u8; 4];
    assert!(collect(|| generic_clear(&mut v, 1)).is_empty());
    assert_eq!(rules(&collect(|| generic_clear(&mut v, 0))), ["forbidden_write"]);
}

/// Index declarations that are field paths: of a parameter (a metadata struct) and of the receiver
/// (a persistent buffer a graph replay reads). The same scan as for a parameter.
pub struct StepMeta {
    pub slot_mapping: Vec<i64>,
}

#[reuse::contract(writes(key_cache[meta.slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..BLOCK_SIZE]))]
fn attend(key_cache: &mut [Row], meta: &StepMeta) {
    for &slot in &meta.slot_mapping {
        if slot != PAD_SLOT_ID {
            key_cache[slot as usize] = [1.0, 1.0];
        }
    }
}

struct Vars {
    slots: Vec<i64>,
}

struct GraphRunner {
    kv: Vec<Row>,
    vars: Vars,
}

impl GraphRunner {
    #[reuse::contract(writes(self.kv[self.vars.slots], skip = PAD_SLOT_ID), forbids_write(self.kv[0..BLOCK_SIZE]))]
    fn replay(&mut self) {
        for &slot in &self.vars.slots {
            if slot != PAD_SLOT_ID {
                self.kv[slot as usize] = [1.0, 1.0];
            }
        }
    }
}

#[test]
fn a_field_path_index_is_scanned_like_a_parameter() {
    let mut c = cache();
    let good = StepMeta { slot_mapping: vec![5, -1] };
    assert!(collect(|| attend(&mut c, &good)).is_empty());
    let bad = StepMeta { slot_mapping: vec![5, 0] };
    let v = collect(|| attend(&mut c, &bad));
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);
    assert_eq!(v[0].detail, Detail::Index { index: "meta.slot_mapping", position: 1, value: 0, region: Some(0..4), count: 1 });

    let mut runner = GraphRunner { kv: cache(), vars: Vars { slots: vec![6, -1] } };
    assert!(collect(|| runner.replay()).is_empty());
    runner.vars.slots[1] = 0;
    let v = collect(|| runner.replay());
    assert_eq!(rules(&v), ["pad_to_null_block", "forbidden_write"]);
    assert_eq!(v[0].detail, Detail::Index { index: "self.vars.slots", position: 1, value: 0, region: Some(0..4), count: 1 });
}
