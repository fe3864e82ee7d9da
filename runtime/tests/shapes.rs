//! The instrumented function keeps its signature and its meaning whatever its shape: methods with
//! every kind of receiver, generics, lifetimes, `?`, `impl Trait`, trait methods, patterns.

use std::fmt::Debug;

use reuse::runtime::collect;

#[reuse::effect]
fn tick() {}

#[derive(Debug, Default, Clone, PartialEq)]
struct Buf {
    data: Vec<u32>,
}

impl Buf {
    #[reuse::contract(forbids_write(self.data[0]))]
    fn by_value(mut self, v: u32) -> Self {
        self.data.push(v);
        self
    }

    #[reuse::contract(forbids_write(self.data[0]), preserves(tick))]
    fn by_ref(&self) -> usize {
        tick();
        self.data.len()
    }

    #[reuse::contract(forbids_write(self.data[0]))]
    fn get_mut(&mut self, i: usize) -> Option<&mut u32> {
        self.data.get_mut(i)
    }

    #[reuse::contract(forbids_write(self.data[..1]))]
    fn parse_into(&mut self, s: &str) -> Result<u32, std::num::ParseIntError> {
        let v: u32 = s.trim().parse()?;
        if v == 0 {
            return Ok(0);
        }
        self.data.push(v);
        Ok(v)
    }

    #[reuse::contract(forbids_write(self.data[0]))]
    fn iter_mut_from(&mut self, i: usize) -> std::slice::IterMut<'_, u32> {
        self.data[i..].iter_mut()
    }

    #[reuse::contract(aliases(return = self.data))]
    fn iter_from(&self, i: usize) -> impl Iterator<Item = &u32> + '_ {
        self.data[i..].iter()
    }
}

#[reuse::contract(forbids_write(items[0]), writes(items[at], skip = -1))]
fn generic_write<T: Copy + Debug, I>(items: &mut [T], at: I, v: T) -> Vec<String>
where
    I: Into<i64> + Copy,
{
    let i: i64 = at.into();
    if i >= 0 {
        items[i as usize] = v;
    }
    items.iter().map(|x| format!("{x:?}")).collect()
}

trait Kernel {
    #[reuse::contract(forbids_write(cache[0]))]
    fn launch(&mut self, cache: &mut [u8]) -> u8 {
        cache[1] = 1;
        cache[1]
    }

    #[reuse::contract(forbids_write(cache[0]))]
    fn launch_required(&mut self, cache: &mut [u8]);
}

struct Cpu;

impl Kernel for Cpu {
    #[reuse::contract(forbids_write(cache[0]))]
    fn launch_required(&mut self, cache: &mut [u8]) {
        cache[0] = 7;
    }
}

#[reuse::contract(forbids_write(dst[0]))]
fn patterns((a, b): (u8, u8), mut dst: &mut [u8], _: u8) -> u8 {
    dst[1] = a + b;
    dst = &mut dst[1..];
    dst[0]
}

#[reuse::contract(forbids_write(buf[0]))]
unsafe fn raw_fill(buf: &mut [u8], p: *mut u8) {
    // SAFETY: the caller passes a pointer into `buf` past its first element.
    unsafe { *p = 3 };
    buf[2] = 3;
}

#[reuse::contract(forbids_write(buf[0]))]
extern "C" fn c_abi(buf: &mut [u8; 4]) {
    buf[3] = 1;
}

#[test]
fn every_shape_compiles_and_behaves() {
    let b = Buf { data: vec![1, 2] };
    let b = b.by_value(3);
    assert!(collect(|| assert_eq!(b.by_ref(), 3)).is_empty());
    let mut b = b;
    assert_eq!(collect(|| *b.get_mut(1).unwrap() = 5).len(), 0, "a `&mut` return: not read after");
    assert_eq!(b.parse_into(" 4 "), Ok(4));
    assert!(b.parse_into("x").is_err());
    assert_eq!(b.parse_into("0"), Ok(0));
    assert_eq!(b.iter_from(1).count(), 3);
    b.iter_mut_from(1).for_each(|x| *x += 1);

    let mut items = [1u16, 2, 3];
    assert_eq!(generic_write(&mut items, 2i32, 9u16), ["1", "2", "9"]);
    let v = collect(|| {
        generic_write(&mut items, 0i8, 4u16);
    });
    // `T` is generic: the shim cannot see its storage (no `Storage` bound), so nothing is checked.
    assert!(v.is_empty());

    let mut cache = [0u8; 4];
    assert_eq!(Cpu.launch(&mut cache), 1);
    let v = collect(|| Cpu.launch_required(&mut cache));
    assert_eq!(v.iter().map(|v| v.rule_name()).collect::<Vec<_>>(), ["forbidden_write"]);
    assert_eq!(v[0].location.file(), file!());

    let mut dst = [0u8; 3];
    assert_eq!(patterns((1, 2), &mut dst, 0), 3);

    let mut buf = [0u8; 4];
    let p = buf[1..].as_mut_ptr();
    assert!(collect(|| unsafe { raw_fill(&mut buf, p) }).is_empty());
    assert_eq!(buf, [0, 3, 3, 0]);
    assert!(collect(|| c_abi(&mut buf)).is_empty());
}
