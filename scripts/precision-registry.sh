#!/usr/bin/env bash
# Precision on real code under adversarial contracts: every crate of the local cargo registry gets
# a module declaring contracts on the names std types use everywhere (`get`, `insert`, `push`,
# `map`, `next`, `from`, `new`, an effect called `clone`), and reuse-check runs on all of them.
# Those contracts bind only calls that really are to them; any finding outside the injected
# modules is a false positive, and fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
work=target/precision-registry
rm -rf "$work" && mkdir -p "$work"
for crate in "$registry"/*/*/; do
    name=$(basename "$crate")
    [ -d "$crate/src" ] || continue
    mkdir -p "$work/$name"
    cp -r "$crate/src" "$work/$name/src"
    cat > "$work/$name/src/zz_contracts.rs" <<'RS'
pub const PAD_SLOT_ID: i64 = -1;
pub const NULL_BLOCK: usize = 0;
pub struct K { data: Vec<u8>, plans: std::collections::HashMap<u64, u64>, v: u64 }
impl K {
    #[reuse::contract(writes(self.data[pos], skip = PAD_SLOT_ID), forbids_write(self.data[NULL_BLOCK]))]
    pub fn write(&mut self, pos: &[i64]) {}
    #[reuse::contract(aliases(return = x))]
    pub fn get(&self, x: usize) -> usize { x }
    #[reuse::contract(aliases(return = x))]
    pub fn insert(&mut self, x: usize, y: usize) -> usize { x }
    #[reuse::contract(writes(buf[idx], skip = -1))]
    pub fn push(&mut self, buf: &mut [u8], idx: &[i64]) {}
    #[reuse::contract(aliases(return = x))]
    pub fn map(&self, x: usize) -> usize { x }
    #[reuse::contract(reuses(self.plans, key(k, self.v)), preserves(next, len))]
    pub fn next(&mut self, k: u64) -> u64 { k }
}
#[reuse::contract(aliases(return = x), preserves(clone, to_string))]
pub fn from(x: usize) -> usize { x }
#[reuse::contract(writes(a[i], skip = PAD_SLOT_ID), forbids_write(a[0..2]))]
pub fn new(a: &mut [u8], i: &[i64]) -> usize { 0 }
#[reuse::effect]
pub fn clone() {}
RS
done
set +e
cargo run -q --release -p reuse-check -- "$work" --all-files --no-cache --color never --format short > "$work.txt"
set -e
tail -n 1 "$work.txt"
outside=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$work.txt" | grep -v '/zz_contracts.rs:' | grep -v -E 'reuse::(parse_error|unreadable_file|analysis_limit)' || true)
crates=$(ls "$work" | wc -l)
if [ -n "$outside" ]; then
    echo "false positives outside the injected contracts ($crates crates):"
    echo "$outside" | head -40
    exit 1
fi
echo "precision: 0 findings outside the injected contracts in $crates crates"
