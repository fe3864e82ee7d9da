// The reuse-check extension: a language client for `reuse-check lsp`.
//
// The server does the work (diagnostics on open/change/save, hovers, quick fixes); this file only
// finds the binary, starts it over stdio, and says clearly what to do when it is missing.

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('reuse-check');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('reuseCheck.restartServer', async () => {
      await stop();
      await start();
    }),
    vscode.commands.registerCommand('reuseCheck.showOutput', () => output?.show()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('reuseCheck.server')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

/** The binary to run: the setting, else `reuse-check` on PATH, else the workspace's build. */
function findServer(): { command?: string; tried: string[] } {
  const config = vscode.workspace.getConfiguration('reuseCheck');
  const exe = process.platform === 'win32' ? 'reuse-check.exe' : 'reuse-check';
  const tried: string[] = [];
  const isFile = (p: string) => {
    tried.push(p);
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  const configured = (config.get<string>('server.path') ?? '').trim();
  if (configured) {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const resolved = path.isAbsolute(configured) || !folder ? configured : path.join(folder, configured);
    return { command: isFile(resolved) ? resolved : undefined, tried };
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, exe);
    if (isFile(candidate)) {
      return { command: candidate, tried };
    }
  }
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const profile of ['release', 'debug']) {
      const candidate = path.join(folder.uri.fsPath, 'target', profile, exe);
      if (isFile(candidate)) {
        return { command: candidate, tried };
      }
    }
  }
  return { tried };
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration('reuseCheck');
  const { command, tried } = findServer();
  if (!command) {
    const message =
      'reuse-check: the language server binary was not found. Install it (`cargo install --path checker` in the reuse-check repository) ' +
      'or set "reuseCheck.server.path".';
    output?.appendLine(`${message}\nLooked for: ${tried.join(', ') || '(nothing)'}`);
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'reuseCheck.server.path');
    } else if (choice === 'Show Log') {
      output?.show();
    }
    return;
  }
  const args = ['lsp', ...(config.get<string[]>('server.extraArgs') ?? [])];
  const env = { ...process.env, ...(config.get<Record<string, string>>('server.extraEnv') ?? {}) };
  const run = { command, args, transport: TransportKind.stdio, options: { env } };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'rust' }],
    outputChannel: output,
    traceOutputChannel: output,
  };
  output?.appendLine(`starting ${command} ${args.join(' ')}`);
  client = new LanguageClient('reuseCheck', 'reuse-check', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (e) {
    const message = `reuse-check: the language server \`${command}\` failed to start: ${e instanceof Error ? e.message : String(e)}`;
    output?.appendLine(message);
    void vscode.window.showErrorMessage(message);
    client = undefined;
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop();
    } catch {
      // A server that already died has nothing to stop.
    }
  }
}
