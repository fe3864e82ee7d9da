// Neovim headless as a real LSP client: e2e/nvim.lua starts `reuse-check lsp`, opens the buggy
// fixture, waits for diagnostics and writes them back as JSON.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { markers, repoRoot, serverBinary } from '../test/lsp-client.mjs';

const here = dirname(fileURLToPath(import.meta.url));

test('Neovim shows the findings of the buggy fixture', () => {
  const root = join(repoRoot, 'fixtures/paged-kv');
  const file = join(root, 'src/buggy.rs');
  const out = join(mkdtempSync(join(tmpdir(), 'reuse-check-nvim-')), 'diagnostics.json');
  const r = spawnSync('nvim', ['--headless', '--clean', '-n', '-c', `luafile ${join(here, 'nvim.lua')}`], {
    env: { ...process.env, REUSE_CHECK_BIN: serverBinary(), ROOT: root, FILE: file, OUT: out },
    timeout: 120000,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `nvim failed: ${r.stderr}`);
  const result = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(result.waited, true, 'diagnostics arrived');
  const got = result.diagnostics.map((d) => [d.lnum, String(d.code).replace(/^reuse::/, '')]).sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  assert.deepEqual(got, markers(readFileSync(file, 'utf8')));
  assert.ok(result.diagnostics.every((d) => d.source === 'reuse-check'));
  console.log(`neovim: ${result.diagnostics.length} diagnostics, e.g. ${JSON.stringify(result.diagnostics[0])}`);
});
