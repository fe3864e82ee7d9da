// Drives the `reuse-check lsp` binary over JSON-RPC (vscode-jsonrpc), as an editor would.
// Binary: $REUSE_CHECK_BIN, else target/release or target/debug of the repository.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Client, found, killServers, markers, repoRoot, uriOf } from './lsp-client.mjs';

after(killServers);

const pkg = join(repoRoot, 'fixtures/paged-kv');
const buggyPath = join(pkg, 'src/buggy.rs');
const buggy = readFileSync(buggyPath, 'utf8');
const correct = readFileSync(join(pkg, 'src/correct.rs'), 'utf8');
const uri = uriOf(buggyPath);

test('diagnostics on open, cleared by a change that fixes the file, then a clean shutdown', async () => {
  const c = new Client(pkg);
  const init = await c.initialize();
  assert.equal(init.serverInfo.name, 'reuse-check');
  assert.equal(init.capabilities.textDocumentSync.change, 2, 'incremental sync');

  await c.open(buggyPath, buggy);
  const opened = await c.diagnostics((p) => p.uri === uri && p.version === 1);
  assert.deepEqual(found(opened), markers(buggy));
  const pad = opened.diagnostics.find((d) => d.code === 'reuse::pad_to_null_block');
  assert.equal(pad.source, 'reuse-check');
  assert.equal(pad.severity, 1);
  assert.ok(pad.relatedInformation.some((r) => r.location.uri.endsWith('/fixtures/paged-kv/src/lib.rs')), 'the contract clause is related information');

  await c.change(buggyPath, 2, correct);
  const fixed = await c.diagnostics((p) => p.uri === uri && p.version === 2);
  assert.deepEqual(fixed.diagnostics, []);

  const exit = await c.shutdown();
  assert.deepEqual(exit, { code: 0, signal: null });
});

test('hover on a contracted call and quick fixes on a finding', async () => {
  const c = new Client(pkg);
  await c.initialize();
  await c.open(buggyPath, buggy);
  const opened = await c.diagnostics((p) => p.uri === uri);

  const lines = buggy.split('\n');
  const line = lines.findIndex((l) => l.trimStart().startsWith('reshape_and_cache('));
  const hover = await c.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: lines[line].indexOf('reshape') + 2 } });
  assert.match(hover.contents.value, /writes\(key_cache\[slot_mapping\], skip = PAD_SLOT_ID\)/);

  const d = opened.diagnostics.find((x) => x.code === 'reuse::pad_to_null_block' && lines[x.range.start.line].includes('vec![0; num_tokens]'));
  const actions = await c.conn.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } });
  const titles = actions.map((a) => a.title);
  assert.deepEqual(titles, ['Replace with PAD_SLOT_ID (pad_to_null_block)', 'Suppress `pad_to_null_block` on this line']);
  assert.equal(actions[0].edit.changes[uri][0].newText, 'PAD_SLOT_ID');
  assert.equal(actions[1].edit.changes[uri][0].newText, '        // reuse-check: allow(pad_to_null_block) <reason>\n');
  await c.shutdown();
});

test('malformed JSON-RPC and unknown methods are answered; the server keeps serving', async () => {
  const c = new Client(pkg);
  await c.initialize();
  const garbage = ['Content-Length: 9\r\n\r\n{not json', 'Content-Length: banana\r\n\r\n', 'no header at all\r\n\r\n', 'Content-Length: 5\r\n\r\n[1,2]'];
  for (const g of garbage) c.proc.stdin.write(g);
  await assert.rejects(c.conn.sendRequest('reuse/noSuchMethod', {}), (e) => e.code === -32601);
  await assert.rejects(c.conn.sendRequest('textDocument/hover', { nonsense: true }), (e) => e.code === -32602);
  await c.open(buggyPath, buggy);
  const p = await c.diagnostics((x) => x.uri === uri);
  assert.deepEqual(found(p), markers(buggy));
  assert.equal(c.proc.exitCode, null, 'still running');
  await c.shutdown();
});

test('a document edited faster than it is checked is checked at its latest version', async () => {
  const c = new Client(pkg);
  await c.initialize();
  await c.open(buggyPath, buggy);
  for (let v = 2; v <= 200; v++) {
    c.change(buggyPath, v, v % 2 ? buggy : buggy + `\n// edit ${v}\n`);
  }
  await c.change(buggyPath, 201, correct);
  const last = await c.diagnostics((p) => p.uri === uri && p.version === 201);
  assert.deepEqual(last.diagnostics, []);
  const checks = c.published.filter((p) => p.uri === uri).length;
  assert.ok(checks < 50, `${checks} checks for 201 versions: edits were not coalesced`);
  await c.shutdown();
});

test('a client that exits without shutdown leaves no server behind', async () => {
  const c = new Client(pkg);
  await c.initialize();
  await c.open(buggyPath, buggy);
  await c.diagnostics((p) => p.uri === uri);
  c.proc.stdin.end();
  const exit = await Promise.race([c.exited, new Promise((res) => setTimeout(() => res('timeout'), 10000))]);
  assert.notEqual(exit, 'timeout', 'the server exits when its input closes');
  assert.equal(exit.code, 0);
  c.conn.dispose();
});

test('`exit` without `shutdown` exits with status 1', async () => {
  const c = new Client(pkg);
  await c.initialize();
  await c.conn.sendNotification('exit');
  const exit = await c.exited;
  assert.equal(exit.code, 1);
  c.conn.dispose();
});
