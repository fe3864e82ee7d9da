#!/usr/bin/env bash
# Seeds the fuzz corpora from the fixtures: every fixture file for `check_source`, every contract
# attribute's arguments for `contract_parser`. Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p fuzz/corpus/check_source fuzz/corpus/contract_parser
for f in fixtures/*/src/*.rs fixtures/rules/*.rs; do
    cp "$f" "fuzz/corpus/check_source/$(echo "$f" | tr '/' '_')"
done
i=0
grep -rhoz 'reuse::contract([^#]*)\]' fixtures reuse/tests/ui | tr '\0' '\n' | sed -n 's/^reuse::contract(\(.*\))\]$/\1/p' | while IFS= read -r c; do
    i=$((i + 1)); printf '%s' "$c" > "fuzz/corpus/contract_parser/seed-$i"
done
ls fuzz/corpus/check_source | wc -l
ls fuzz/corpus/contract_parser | wc -l
