// Latency of the language server: time from a didChange of a 5,000-line file with contracted
// calls to the publishDiagnostics of that version (the spec's budget: 30 ms), next to baselines.
//
//   node bench/latency.mjs [--runs 40] [--lines 5000]
//
// Binary: $REUSE_CHECK_BIN, else the newer of target/release and target/debug (build with
// `cargo build --release -p reuse-check` for figures worth quoting).

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, repoRoot, serverBinary, uriOf } from '../test/lsp-client.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 40);
const LINES = arg('lines', 5000);
const here = dirname(fileURLToPath(import.meta.url));
const ws = join(here, 'work', 'ws');

/** A standalone package: the paged-KV contracts, a 5K-line module of callers, a tiny module. */
function generate() {
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'Cargo.toml'), '[package]\nname = "bench-kv"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n');
  const lib = readFileSync(join(repoRoot, 'fixtures/paged-kv/src/lib.rs'), 'utf8').replace(/^pub mod (buggy|correct);$/gm, '');
  writeFileSync(join(ws, 'src/lib.rs'), `${lib}\npub mod big;\npub mod big_decl;\npub mod tiny;\n`);
  const out = ['//! Generated callers of `reshape_and_cache`: most pad with PAD_SLOT_ID, every tenth with 0.', '', 'use crate::{reshape_and_cache, Row, PAD_SLOT_ID};', ''];
  let i = 0;
  let bugs = 0;
  while (out.length < LINES - 12) {
    const pad = i % 10 === 9 ? '0' : 'PAD_SLOT_ID';
    if (pad === '0') bugs++;
    out.push(
      `/// Writes batch ${i}: real rows, then padding up to \`padded\`.`,
      `pub fn write_batch_${i}(key: &[Row], cache: &mut [Row], real: &[i64], padded: usize) {`,
      `    let mut slots: Vec<i64> = Vec::with_capacity(padded);`,
      `    slots.extend_from_slice(real);`,
      `    for _ in real.len()..padded {`,
      `        slots.push(${pad});`,
      `    }`,
      `    let n = slots.len().min(key.len());`,
      `    reshape_and_cache(&key[..n], cache, &slots[..n]);`,
      `}`,
      '',
    );
    i++;
  }
  while (out.length < LINES) out.push('// end');
  writeFileSync(join(ws, 'src/big.rs'), out.join('\n') + '\n');
  // The same callers in a file that also declares a contract (a kernel module with its callers).
  const declText = out.join('\n') + '\n' +
    '\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn local_write(cache: &mut [Row], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n';
  writeFileSync(join(ws, 'src/big_decl.rs'), declText);
  writeFileSync(join(ws, 'src/tiny.rs'), '//! Nothing to check.\n\npub fn one() -> i32 {\n    1\n}\n');
  return { text: out.join('\n') + '\n', declText, bugs, fns: i };
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p95: q(0.95), min: s[0], max: s[s.length - 1], n: s.length };
}

const versions = new Map();

/**
 * didChange → publishDiagnostics of that version, one edit at a time: typing one char at the start
 * of each line in `lines`, then deleting it. One line: the edited item is re-checked alone; lines
 * in two items: the run of items between them is.
 */
async function editLatency(c, path, lines, runs) {
  const uri = uriOf(path);
  const times = [];
  for (let r = 0; r < runs; r++) {
    const insert = r % 2 === 0;
    const changes = lines.map((line) =>
      insert
        ? { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: ' ' }
        : { range: { start: { line, character: 0 }, end: { line, character: 1 } }, text: '' },
    );
    const v = (versions.get(uri) ?? 1) + 1;
    versions.set(uri, v);
    const t0 = performance.now();
    const done = c.diagnostics((p) => p.uri === uri && p.version === v, 60000);
    await c.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: changes });
    const p = await done;
    times.push(p.receivedAt - t0);
  }
  return times;
}

const bin = serverBinary();
const { text, declText, bugs, fns } = generate();
const big = join(ws, 'src/big.rs');
const bigDecl = join(ws, 'src/big_decl.rs');
const tiny = join(ws, 'src/tiny.rs');

const c = new Client(ws, { bin });
await c.initialize();
let t0 = performance.now();
const openedBig = c.diagnostics((p) => p.uri === uriOf(big) && p.version === 1, 120000);
await c.open(big, text);
const firstBig = await openedBig;
const openBigMs = firstBig.receivedAt - t0;
if (firstBig.diagnostics.length !== bugs) {
  throw new Error(`expected ${bugs} findings in the generated file, got ${firstBig.diagnostics.length}`);
}
const tinyText = readFileSync(tiny, 'utf8');
t0 = performance.now();
const openedTiny = c.diagnostics((p) => p.uri === uriOf(tiny) && p.version === 1);
await c.open(tiny, tinyText);
const openTinyMs = (await openedTiny).receivedAt - t0;

const openedDecl = c.diagnostics((p) => p.uri === uriOf(bigDecl) && p.version === 1, 120000);
await c.open(bigDecl, declText);
await openedDecl;

const bigTimes = await editLatency(c, big, [Math.floor(LINES / 2)], RUNS);
const declTimes = await editLatency(c, bigDecl, [Math.floor(LINES / 2)], RUNS);
const bigFullTimes = await editLatency(c, big, [Math.floor(LINES / 4), Math.floor((3 * LINES) / 4)], RUNS);
const tinyTimes = await editLatency(c, tiny, [2], RUNS);
await c.shutdown();

// The CLI on the same package, process start and `cargo metadata` included: a full check
// (`--no-cache`), and a warm one that the on-disk cache answers.
const timeCli = (extra) => {
  const times = [];
  for (let r = 0; r < 7; r++) {
    const s = performance.now();
    spawnSync(bin, [ws, '--color', 'never', ...extra], { encoding: 'utf8' });
    times.push(performance.now() - s);
  }
  return times;
};
const cli = timeCli(['--no-cache']);
timeCli([]);
const cliWarm = timeCli([]);

const result = {
  binary: bin,
  file: { lines: LINES, contracted_calls: fns, findings: bugs },
  did_change_5k_lines_ms: stats(bigTimes),
  did_change_5k_lines_two_items_ms: stats(bigFullTimes),
  did_change_5k_lines_declaring_file_ms: stats(declTimes),
  did_change_tiny_file_ms: stats(tinyTimes),
  did_open_5k_lines_ms: openBigMs,
  did_open_tiny_file_ms: openTinyMs,
  cli_full_check_ms: stats(cli),
  cli_warm_cache_ms: stats(cliWarm),
};
mkdirSync(join(here, 'work'), { recursive: true });
writeFileSync(join(here, 'work', 'latency.json'), JSON.stringify(result, null, 2));
const row = (name, s) => `${name.padEnd(44)} ${s.median.toFixed(1).padStart(8)} ${s.p95.toFixed(1).padStart(8)} ${String(s.n).padStart(5)}`;
console.log(`reuse-check lsp latency (${bin})`);
console.log(`file: ${LINES} lines, ${fns} contracted calls, ${bugs} findings\n`);
console.log(`${'measure'.padEnd(44)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'runs'.padStart(5)}   (ms)`);
console.log(row('didChange -> publishDiagnostics, 5K lines', result.did_change_5k_lines_ms));
console.log(row('  the same, edits in two items (the items between)', result.did_change_5k_lines_two_items_ms));
console.log(row('  the same, in a file that declares a contract', result.did_change_5k_lines_declaring_file_ms));
console.log(row('didChange -> publishDiagnostics, 5 lines', result.did_change_tiny_file_ms));
console.log(row('CLI `reuse-check <pkg> --no-cache`', result.cli_full_check_ms));
console.log(row('CLI `reuse-check <pkg>`, warm cache', result.cli_warm_cache_ms));
console.log(`didOpen -> publishDiagnostics: 5K lines ${openBigMs.toFixed(1)} ms, 5 lines ${openTinyMs.toFixed(1)} ms (first check of each)`);
