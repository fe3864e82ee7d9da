// Which `reuse-check` binary the extension runs. Kept free of the `vscode` module so that it can be
// tested with plain Node (test/server-path.test.mjs).
//
// A workspace is not trusted: a cloned repository can commit `target/debug/reuse-check` or
// `.vscode/settings.json` with `"reuseCheck.server.path": "./evil"`. So no binary is ever taken
// from a workspace folder: the server is an absolute `reuseCheck.server.path` (a relative one is
// rejected, not resolved against the folder), else the binary bundled with the extension, else
// `reuse-check` on an absolute PATH entry outside every workspace folder.

import * as path from 'path';

export interface ServerSearch {
  /** `reuseCheck.server.path` as configured (may be empty). */
  configured: string;
  /** The extension's own folder; a bundled server lives in `server/` under it. */
  extensionDir: string;
  /** The PATH environment variable. */
  pathEnv: string;
  /** The workspace folders (file system paths). */
  workspaceFolders: string[];
  platform: NodeJS.Platform;
  isFile: (p: string) => boolean;
}

export interface ServerChoice {
  command?: string;
  /** Why the configured path was refused (the user must change the setting). */
  error?: string;
  tried: string[];
}

/** Whether `p` is `folder` or lies under it. */
export function isInside(p: string, folder: string): boolean {
  const rel = path.relative(path.resolve(folder), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function findServer(s: ServerSearch): ServerChoice {
  const exe = s.platform === 'win32' ? 'reuse-check.exe' : 'reuse-check';
  const tried: string[] = [];
  const isFile = (p: string) => {
    tried.push(p);
    return s.isFile(p);
  };
  const configured = s.configured.trim();
  if (configured) {
    if (!path.isAbsolute(configured)) {
      return {
        error:
          `reuseCheck.server.path must be an absolute path; "${configured}" is relative, and a relative path would run a binary ` +
          'from the workspace, which the workspace controls. Set the full path of reuse-check, or clear the setting to use the bundled server or PATH.',
        tried,
      };
    }
    return { command: isFile(configured) ? configured : undefined, tried };
  }
  const bundled = path.join(s.extensionDir, 'server', exe);
  if (isFile(bundled)) {
    return { command: bundled, tried };
  }
  for (const dir of s.pathEnv.split(path.delimiter)) {
    // `""` and `.` in PATH mean the current directory: possibly a workspace folder.
    if (!dir || !path.isAbsolute(dir) || s.workspaceFolders.some((f) => isInside(dir, f))) {
      continue;
    }
    const candidate = path.join(dir, exe);
    if (isFile(candidate)) {
      return { command: candidate, tried };
    }
  }
  return { tried };
}
