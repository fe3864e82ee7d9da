//! `aliases(OUT = IN)` (`alias_not_shared`) and outputs that share an input without saying so
//! (`undeclared_alias`).

mod common;

use common::rules;
use reuse::runtime::{collect, Detail, Space};

/// Donation: the output is the input's own buffer.
#[reuse::contract(aliases(return = state))]
fn step_in_place(mut state: Vec<f32>, delta: &[f32]) -> Vec<f32> {
    for (s, d) in state.iter_mut().zip(delta) {
        *s += d;
    }
    state
}

/// The same promise, broken: the output is a copy.
#[reuse::contract(aliases(return = state))]
fn step_copy(state: Vec<f32>, delta: &[f32]) -> Vec<f32> {
    state.iter().zip(delta).map(|(s, d)| s + d).collect()
}

#[test]
fn a_donated_buffer_is_shared_and_a_copy_is_not() {
    let delta = [1.0; 4];
    assert!(collect(|| assert_eq!(step_in_place(vec![1.0; 4], &delta), vec![2.0; 4])).is_empty());
    let v = collect(|| assert_eq!(step_copy(vec![1.0; 4], &delta), vec![2.0; 4]));
    assert_eq!(rules(&v), ["alias_not_shared"]);
    assert_eq!(v[0].clause, "aliases(return = state)");
    assert!(
        matches!(&v[0].detail, Detail::Alias { output: "return", input: "state", output_extent, .. } if output_extent.space == Space::Host)
    );
}

/// A view into the input is shared; so is a view of part of it.
#[reuse::contract(aliases(return = prefix))]
fn shared_prefix(prefix: &mut [u8], n: usize) -> &mut [u8] {
    &mut prefix[..n]
}

#[reuse::contract(aliases(return.0 = kv, return.1 = kv))]
fn split(kv: &[u16]) -> (&[u16], &[u16]) {
    kv.split_at(kv.len() / 2)
}

#[test]
fn views_of_the_input_are_shared() {
    let mut buf = vec![1u8; 8];
    assert!(collect(|| assert_eq!(shared_prefix(&mut buf, 3).len(), 3)).is_empty());
    let kv = [1u16, 2, 3, 4];
    assert!(collect(|| assert_eq!(split(&kv).1, &[3, 4])).is_empty());
}

/// Device handles passed as `u64`: equal values are the same storage.
#[reuse::contract(aliases(return = ptr))]
fn scale_inplace(ptr: u64, fresh: bool) -> u64 {
    if fresh {
        ptr + 4096
    } else {
        ptr
    }
}

#[test]
fn handles_alias_by_value() {
    assert!(collect(|| assert_eq!(scale_inplace(0x1000, false), 0x1000)).is_empty());
    let v = collect(|| {
        scale_inplace(0x1000, true);
    });
    assert_eq!(rules(&v), ["alias_not_shared"]);
    assert!(v[0].message.contains("u64 handle 8192"), "{}", v[0].message);
}

/// An undeclared view into an input.
#[reuse::contract(writes(kv[slots]))]
fn tail_of<'a>(kv: &'a [f32], slots: &[usize]) -> &'a [f32] {
    &kv[slots.len()..]
}

#[reuse::contract(writes(kv[slots]))]
fn fresh_tail(kv: &[f32], slots: &[usize]) -> Vec<f32> {
    kv[slots.len()..].to_vec()
}

#[test]
fn an_output_that_shares_an_input_must_be_declared() {
    let kv = [1.0f32; 8];
    let v = collect(|| assert_eq!(tail_of(&kv, &[0, 1]).len(), 6));
    assert_eq!(rules(&v), ["undeclared_alias"]);
    assert!(v[0].message.contains("`return` shares `kv`'s storage"), "{}", v[0].message);
    assert!(v[0].clause.contains("no `aliases` clause"));
    assert!(collect(|| assert_eq!(fresh_tail(&kv, &[0, 1]).len(), 6)).is_empty());
}

/// Tuple outputs: the undeclared element is checked, the declared one is not.
#[reuse::contract(aliases(return.0 = a))]
fn pair<'a>(a: &'a [u8], b: &'a [u8], leak: bool) -> (&'a [u8], &'a [u8]) {
    (a, if leak { &b[1..] } else { &[] })
}

#[test]
fn tuple_elements_are_outputs_of_their_own() {
    let (a, b) = ([1u8; 4], [2u8; 4]);
    assert!(collect(|| {
        pair(&a, &b, false);
    })
    .is_empty());
    let v = collect(|| {
        pair(&a, &b, true);
    });
    assert_eq!(rules(&v), ["undeclared_alias"]);
    assert!(matches!(v[0].detail, Detail::Alias { output: "return.1", input: "b", .. }));
}

/// Values the shim cannot see (no `Storage`): nothing is checked, nothing is reported.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Opaque(u32);

#[reuse::contract(aliases(return = x))]
fn opaque(x: Opaque) -> Opaque {
    Opaque(x.0 + 1)
}

#[reuse::contract(aliases(return = x))]
fn generic<T: Clone>(x: &T) -> T {
    x.clone()
}

#[test]
fn types_without_storage_are_not_checked() {
    assert!(collect(|| assert_eq!(opaque(Opaque(1)), Opaque(2))).is_empty());
    assert!(collect(|| assert_eq!(generic(&vec![1u8]), vec![1u8])).is_empty());
}

/// A buffer handle with an identity of its own (`Storage::handle_id`), as a runtime's buffer objects
/// have: a donating op returns a new handle over the same storage.
#[derive(Clone, Copy, Debug)]
struct Buffer {
    slot: u64,
    id: u64,
}

impl reuse::runtime::Storage for Buffer {
    fn extent(&self) -> Option<reuse::runtime::Extent> {
        Some(reuse::runtime::Extent::handle("buffer", self.slot))
    }
    fn handle_id(&self) -> Option<u64> {
        Some(self.id)
    }
}

/// Donates `buf` to its output, a new handle.
#[reuse::contract(aliases(return = buf))]
fn donate(buf: Buffer) -> Buffer {
    Buffer { slot: buf.slot, id: buf.id + 1000 }
}

/// Works in place and hands back the same handle: nothing tells a later use of `buf` from one of
/// the output, so nothing is poisoned.
#[reuse::contract(aliases(return = buf))]
fn same_handle(buf: Buffer) -> Buffer {
    buf
}

#[reuse::contract()]
fn consume(buf: Buffer, n: usize) -> usize {
    (buf.slot as usize) + n
}

#[test]
fn a_donated_handle_passed_to_a_later_contracted_call_is_use_after_donate() {
    let v = collect(|| {
        let a = Buffer { slot: 1, id: 1 };
        let out = donate(a);
        consume(out, 0);
        consume(a, 1); // reported
        let b = Buffer { slot: 2, id: 2 };
        let kept = same_handle(b);
        consume(b, 2); // not: the output is the same handle
        consume(kept, 3);
    });
    assert_eq!(rules(&v), ["use_after_donate"]);
    assert_eq!(v[0].clause, "aliases(return = buf)");
    assert!(v[0].message.starts_with("`buf` (buffer handle 1, handle 1) was donated as `buf` to a call of `aliases::donate` at "), "{}", v[0].message);
    assert!(matches!(&v[0].detail, Detail::Donated { input: "buf", donated_to: "aliases::donate", .. }));
}

/// A tensor whose in-place ops consume and return `self` (burn's style), and a builder-style
/// `&mut self` op that returns `self`.
#[derive(Debug, PartialEq)]
struct Tensor(Vec<f32>);

impl reuse::runtime::Storage for Tensor {
    fn extent(&self) -> Option<reuse::runtime::Extent> {
        self.0.extent()
    }
}

impl Tensor {
    #[reuse::contract(aliases(return = self))]
    fn relu_(mut self) -> Tensor {
        for x in &mut self.0 {
            *x = x.max(0.0);
        }
        self
    }

    /// The same promise, broken: a new buffer.
    #[reuse::contract(aliases(return = self))]
    fn relu_copy(self) -> Tensor {
        Tensor(self.0.iter().map(|x| x.max(0.0)).collect())
    }

    #[reuse::contract(aliases(return = self))]
    fn scale_(&mut self, k: f32) -> &mut Tensor {
        for x in &mut self.0 {
            *x *= k;
        }
        self
    }
}

#[test]
fn a_method_that_returns_its_receiver_shares_it_and_a_copy_does_not() {
    assert!(collect(|| assert_eq!(Tensor(vec![-1.0, 2.0]).relu_(), Tensor(vec![0.0, 2.0]))).is_empty());
    assert!(collect(|| assert_eq!(Tensor(vec![1.0]).scale_(2.0).0, vec![2.0])).is_empty());
    let v = collect(|| assert_eq!(Tensor(vec![-1.0, 2.0]).relu_copy(), Tensor(vec![0.0, 2.0])));
    assert_eq!(rules(&v), ["alias_not_shared"]);
    assert_eq!(v[0].clause, "aliases(return = self)");
}
