// A minimal LSP client over vscode-jsonrpc for the tests and the latency bench: starts
// `reuse-check lsp`, collects publishDiagnostics, and waits for the ones a test expects.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as rpc from 'vscode-jsonrpc/node.js';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '..', '..');

/** The server binary: $REUSE_CHECK_BIN, else the workspace's release or debug build. */
export function serverBinary() {
  if (process.env.REUSE_CHECK_BIN) return process.env.REUSE_CHECK_BIN;
  // The newer of the two builds: a stale release binary must not shadow a fresh debug one.
  const builds = ['release', 'debug'].map((p) => join(repoRoot, 'target', p, 'reuse-check')).filter((p) => existsSync(p));
  if (!builds.length) {
    throw new Error('no reuse-check binary: build it (cargo build -p reuse-check) or set REUSE_CHECK_BIN');
  }
  return builds.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

export const uriOf = (path) => pathToFileURL(path).href;

/** Servers still running: a test that fails before its shutdown must not leave one behind (it
 * would keep the test runner waiting forever). */
const running = new Set();

/** Kills every server a test left running; call from `after()`. */
export function killServers() {
  for (const proc of running) proc.kill('SIGKILL');
  running.clear();
}

export class Client {
  constructor(root, { bin = serverBinary(), args = [] } = {}) {
    this.root = root;
    this.proc = spawn(bin, ['lsp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(this.proc);
    this.proc.on('exit', () => running.delete(this.proc));
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((res) => this.proc.on('exit', (code, signal) => res({ code, signal })));
    this.conn = rpc.createMessageConnection(new rpc.StreamMessageReader(this.proc.stdout), new rpc.StreamMessageWriter(this.proc.stdin));
    this.published = [];
    this.waiters = [];
    this.conn.onNotification('textDocument/publishDiagnostics', (p) => {
      p.receivedAt = performance.now();
      this.published.push(p);
      this.waiters = this.waiters.filter((w) => !w(p));
    });
    this.conn.onNotification(() => {});
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onRequest(() => null);
    this.conn.listen();
  }

  async initialize() {
    const result = await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: uriOf(this.root),
      workspaceFolders: [{ uri: uriOf(this.root), name: 'ws' }],
      capabilities: { textDocument: { publishDiagnostics: { relatedInformation: true, versionSupport: true } } },
    });
    await this.conn.sendNotification('initialized', {});
    return result;
  }

  /** Resolves with the first publishDiagnostics (already received or coming) that satisfies `pred`. */
  diagnostics(pred, timeoutMs = 60000) {
    const hit = this.published.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no matching diagnostics within ${timeoutMs} ms; server log:\n${this.stderr}`)), timeoutMs);
      this.waiters.push((p) => {
        if (!pred(p)) return false;
        clearTimeout(timer);
        res(p);
        return true;
      });
    });
  }

  open(path, text, version = 1) {
    return this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: uriOf(path), languageId: 'rust', version, text } });
  }

  change(path, version, text) {
    return this.conn.sendNotification('textDocument/didChange', { textDocument: { uri: uriOf(path), version }, contentChanges: [{ text }] });
  }

  async shutdown() {
    await this.conn.sendRequest('shutdown');
    await this.conn.sendNotification('exit');
    const exit = await this.exited;
    this.conn.dispose();
    return exit;
  }
}

/** `[line, rule]` of each `//~ rule` marker of a fixture (0-based lines), sorted. */
export function markers(text) {
  return text
    .split('\n')
    .map((l, i) => [i, l])
    .filter(([, l]) => !l.trimStart().startsWith('//') && l.includes('//~'))
    .map(([i, l]) => [i, l.split('//~')[1].trim()])
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
}

/** `[line, rule]` of each diagnostic, sorted like `markers`. */
export function found(p) {
  return p.diagnostics
    .map((d) => [d.range.start.line, String(d.code).replace(/^reuse::/, '')])
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
}
