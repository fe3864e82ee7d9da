// The reuse-check extension: a language client for `reuse-check lsp`.
//
// The server does the work (diagnostics on open/change/save, hovers, quick fixes); this file only
// finds the binary (server-path.ts: never one from the workspace), starts it over stdio, and says
// clearly what to do when it is missing. In an untrusted workspace VS Code ignores the workspace's
// values of the `reuseCheck.server.*` settings (package.json: `capabilities.untrustedWorkspaces`).

import * as fs from 'fs';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { findServer, ServerChoice } from './server-path';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('reuse-check');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('reuseCheck.restartServer', async () => {
      await stop();
      await start(context);
    }),
    vscode.commands.registerCommand('reuseCheck.showOutput', () => output?.show()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('reuseCheck.server')) {
        await stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}

/** The binary to run (see server-path.ts: never one from the workspace). */
function locateServer(context: vscode.ExtensionContext): ServerChoice {
  const config = vscode.workspace.getConfiguration('reuseCheck');
  return findServer({
    configured: config.get<string>('server.path') ?? '',
    extensionDir: context.extensionPath,
    pathEnv: process.env.PATH ?? '',
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    platform: process.platform,
    isFile: (p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
  });
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration('reuseCheck');
  const { command, error, tried } = locateServer(context);
  if (error) {
    output?.appendLine(`reuse-check: ${error}`);
    const choice = await vscode.window.showErrorMessage(`reuse-check: ${error}`, 'Open Settings');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'reuseCheck.server.path');
    }
    return;
  }
  if (!command) {
    const message =
      'reuse-check: the language server binary was not found. Install it (`cargo install --path checker` in the reuse-check repository) ' +
      'or set "reuseCheck.server.path" to its absolute path.';
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
