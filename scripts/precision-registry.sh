#!/usr/bin/env bash
# Precision on real code under adversarial contracts: every crate of the local cargo registry gets
# a module declaring contracts on the names std types use everywhere (`get`, `insert`, `push`,
# `map`, `next`, `from`, `new`, an effect called `clone`), declared at the crate root and
# glob-imported there (`mod zz_contracts; use zz_contracts::*;`), as a user would write it.
# Those contracts bind only calls that really are to them:
# - any finding outside the injected code is a false positive, and fails this script;
# - the injected probes (calls marked `zz-probe` that do resolve to the injected `new`, through an
#   item of the module, a path from the crate root, a glob import and `use super::*`, each with a
#   zero-padded index) must each be reported as `pad_to_null_block` in every crate whose files
#   parsed: a checker that resolves nothing cannot pass.
set -euo pipefail
cd "$(dirname "$0")/.."
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
work=target/precision-registry
expected="$work.expected"
rm -rf "$work" && mkdir -p "$work"
: > "$expected"
for crate in "$registry"/*/*/; do
    name=$(basename "$crate")
    [ -d "$crate/src" ] || continue
    root=""
    for r in lib.rs main.rs; do
        if [ -f "$crate/src/$r" ]; then root="src/$r" && break; fi
    done
    # Without a crate root the module could not be declared: the crate would prove nothing.
    [ -n "$root" ] || continue
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
pub fn zz_probe_item(buf: &mut [u8]) { new(buf, &vec![0; 4]); } // zz-probe
mod zz_probe_glob {
    use crate::zz_contracts::*;
    pub fn probe(buf: &mut [u8]) { new(buf, &vec![0; 4]); } // zz-probe
}
mod zz_probe_super {
    use super::*;
    pub fn probe(buf: &mut [u8]) { new(buf, &vec![0; 4]); } // zz-probe
}
RS
    printf '\n%s\n%s\n%s\n' \
        '#[allow(unused)] mod zz_contracts;' \
        '#[allow(unused_imports)] use zz_contracts::*;' \
        '#[allow(unused)] fn zz_probe_root(buf: &mut [u8]) { zz_contracts::new(buf, &vec![0; 4]); } // zz-probe' \
        >> "$work/$name/$root"
    # `path:line` of each probe, as the short format prints it.
    grep -n 'zz-probe' "$work/$name/src/zz_contracts.rs" "$work/$name/$root" | cut -d: -f1,2 >> "$expected"
done
set +e
cargo run -q --release -p reuse-check -- "$work" --all-files --no-cache --color never --format short > "$work.txt"
set -e
tail -n 1 "$work.txt"
crates=$(ls "$work" | wc -l)
findings="$work.findings"
grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$work.txt" > "$findings" || true
# Crates with a file that did not parse or could not be read: their probes are not asserted.
unparsed=$(grep -E 'reuse::(parse_error|unreadable_file)' "$findings" | sed -E "s#^$work/([^/]+)/.*#\1#" | sort -u || true)
# Findings outside the injected code (the contracted functions' own bodies and the probes).
outside=$(awk -F: 'FILENAME == ARGV[1] { probe[$1 ":" $2] = 1; next }
    $1 !~ /\/zz_contracts\.rs$/ && !(($1 ":" $2) in probe) && $0 !~ /reuse::(parse_error|unreadable_file|analysis_limit)/' \
    "$expected" "$findings")
# Probes without their finding, in crates that parsed.
missing=$(awk -F: 'FILENAME == ARGV[1] { if ($0 ~ /reuse::pad_to_null_block/) found[$1 ":" $2] = 1; next } !($0 in found)' \
    "$findings" "$expected" | grep -v -F -f <(printf '%s\n' "$unparsed" | sed -e '/^$/d' -e "s#^#$work/#" -e 's#$#/#') || true)
probes=$(wc -l < "$expected")
found=$((probes - $(printf '%s' "$missing" | grep -c . || true)))
status=0
if [ -n "$outside" ]; then
    echo "false positives outside the injected code ($crates crates):"
    echo "$outside" | head -40
    echo "($(echo "$outside" | wc -l) in all)"
    status=1
fi
if [ -n "$missing" ]; then
    echo "injected calls to the contracts that were not reported ($((probes - found)) of $probes):"
    echo "$missing" | head -40
    status=1
fi
unparsed_count=$(printf '%s' "$unparsed" | grep -c . || true)
echo "precision: $crates crates ($unparsed_count with a file that did not parse), $found of $probes injected probe calls reported, $(printf '%s' "$outside" | grep -c . || true) findings outside the injected code"
exit $status
