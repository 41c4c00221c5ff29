/** The environment of a pane's process (DECISIONS.md: TD_SESSION, TD_PANE_ID, TD_TAG, ...). */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository (or installed app) root: its bin/ holds the `terminal-delight` command.
 * The nearest folder above this module with a package.json, so the same code works
 * from main/panes/ (sources) and out/electron/ (the bundle).
 */
export const appRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'bin'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '..', '..');
  }
}

/** A path inside the app as a separate process reads it: in a packaged app, outside the asar archive (electron-builder.yml unpacks bin/ and main/). */
export function unpacked(p: string): string {
  return p.replace(/app\.asar(?=[\\/])/, 'app.asar.unpacked');
}

/** The folder holding the `terminal-delight` command, first on every pane's PATH. */
export const appBin = unpacked(path.join(appRoot, 'bin'));

const TAG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 8 random characters of a-z0-9. */
export function newTag(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += TAG_ALPHABET[randomInt(TAG_ALPHABET.length)];
  return s;
}

/**
 * Variables that would confuse a program about which terminal it runs in, and Electron's
 * run-as-Node switch: the app's own (a Tick's launcher gets it as an extra), never a pane's,
 * where an Electron app started would run as plain Node. A pane saved by a version that let it
 * through loses it when it resumes (its environment renewed here).
 */
const DROPPED = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES', 'VTE_VERSION', 'ITERM_SESSION_ID', 'ELECTRON_RUN_AS_NODE'];

export interface PaneEnvInput {
  session: string;
  paneId: string;
  tag: string;
  socket: string;
  extra?: Record<string, string>;
}

/** A path as the file system resolves it (symlinks followed); itself, resolved, when it cannot be. */
export const realOf = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};
const isBinOfNodeModules = (dir: string): boolean => path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules';

/**
 * The PATH entries of what the person installed: `env.PATH` without this app's own
 * `node_modules/.bin` (its devDependencies hold copies of the agent CLIs) and, when npm ran
 * us (`npm start`, `npx`: it sets npm_config_* or npm_lifecycle_* and puts each
 * `node_modules/.bin` up the tree, and its node-gyp-bin, before the PATH it was given),
 * the entries npm put first. Agents are looked up on it and panes get it.
 */
export function userPath(env: NodeJS.ProcessEnv, root = appRoot): string[] {
  const own = realOf(path.join(root, 'node_modules', '.bin'));
  const entries = (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter).filter(Boolean);
  let first = 0;
  if (Object.entries(env).some(([k, v]) => v !== undefined && (k.startsWith('npm_config_') || k.startsWith('npm_lifecycle_')))) {
    while (first < entries.length && (isBinOfNodeModules(entries[first]!) || path.basename(entries[first]!) === 'node-gyp-bin')) first++;
  }
  return entries.slice(first).filter((dir) => !(isBinOfNodeModules(dir) && (path.resolve(dir) === path.join(root, 'node_modules', '.bin') || realOf(dir) === own)));
}

export function paneEnv(base: NodeJS.ProcessEnv, input: PaneEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (typeof v === 'string') env[k] = v;
  for (const k of DROPPED) delete env[k];
  const bin = appBin;
  const pathParts = userPath(env).filter((p) => p !== bin);
  Object.assign(env, input.extra ?? {}, {
    TD_SESSION: input.session,
    TD_PANE_ID: input.paneId,
    TD_TAG: input.tag,
    TD_SOCKET: input.socket,
    TD_NODE: process.execPath,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    TERM_PROGRAM: 'terminal-delight',
    PATH: [bin, ...pathParts].join(path.delimiter),
  });
  return env;
}

/** The user's login shell: `$SHELL -l`, else bash or sh. */
export function loginShell(env: NodeJS.ProcessEnv): string[] {
  const shell = env.SHELL && path.isAbsolute(env.SHELL) ? env.SHELL : process.platform === 'win32' ? 'powershell.exe' : '/bin/bash';
  return process.platform === 'win32' ? [shell] : [shell, '-l'];
}

/** Whether argv[0] names a program that can run (on PATH, or a path from cwd). */
export function findProgram(program: string, env: Record<string, string>, cwd: string): string | undefined {
  const executable = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (process.platform === 'win32') return program;
  if (program.includes('/')) {
    const full = path.resolve(cwd, program);
    return executable(full) ? full : undefined;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const full = path.resolve(cwd, dir, program);
    if (executable(full)) return full;
  }
  return undefined;
}
