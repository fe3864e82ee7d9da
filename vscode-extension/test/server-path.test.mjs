// Which binary the extension runs (src/server-path.ts, compiled to out/): never one from the
// workspace folder. Run with `npm run -s test:unit` (compiles first).

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { findServer } = require('../out/server-path.js');

const ws = '/home/u/project';
const base = {
  configured: '',
  extensionDir: '/home/u/.vscode/extensions/reuse-check',
  pathEnv: ['', '.', 'bin', `${ws}/target/debug`, '/usr/local/bin', '/usr/bin'].join(':'),
  workspaceFolders: [ws],
  platform: 'linux',
};
/** Every candidate exists: what is tried, and in what order, is the point. */
const everywhere = () => true;

test('a relative reuseCheck.server.path is refused, not resolved against the workspace', () => {
  for (const configured of ['./evil', 'target/debug/reuse-check', '../x/reuse-check']) {
    const r = findServer({ ...base, configured, isFile: everywhere });
    assert.equal(r.command, undefined, configured);
    assert.match(r.error, /must be an absolute path/);
    assert.deepEqual(r.tried, []);
  }
});

test('an absolute reuseCheck.server.path is used as it is', () => {
  const r = findServer({ ...base, configured: '/opt/reuse-check/bin/reuse-check', isFile: everywhere });
  assert.equal(r.command, '/opt/reuse-check/bin/reuse-check');
  const missing = findServer({ ...base, configured: '/opt/none/reuse-check', isFile: () => false });
  assert.equal(missing.command, undefined);
  assert.equal(missing.error, undefined);
});

test('without a setting: the bundled server, then PATH, never the workspace', () => {
  assert.equal(findServer({ ...base, isFile: everywhere }).command, join(base.extensionDir, 'server', 'reuse-check'));
  const noBundle = (p) => !p.startsWith(base.extensionDir);
  const r = findServer({ ...base, isFile: noBundle });
  assert.equal(r.command, '/usr/local/bin/reuse-check');
  assert.ok(r.tried.every((p) => !p.startsWith(ws) && p.startsWith('/')), `tried: ${r.tried}`);
  const nothing = findServer({ ...base, isFile: (p) => p.startsWith(ws) || !p.startsWith('/') });
  assert.equal(nothing.command, undefined, 'a workspace build or a relative PATH entry is never run');
});

test('package.json declares limited support for untrusted workspaces, with the server settings restricted', () => {
  const pkg = require('../package.json');
  const untrusted = pkg.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, 'limited');
  for (const key of ['reuseCheck.server.path', 'reuseCheck.server.extraArgs', 'reuseCheck.server.extraEnv']) {
    assert.ok(untrusted.restrictedConfigurations.includes(key), key);
    assert.ok(pkg.contributes.configuration.properties[key], key);
  }
});
