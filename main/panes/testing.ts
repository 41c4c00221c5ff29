/** Helpers for tests of the panes and the shells (real PTYs, temp state folders). */
import { execFile, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Poll until `cond` is truthy (returning it) or fail after `timeoutMs` with `what`. */
export async function waitFor<T>(cond: () => T | Promise<T>, what: string, timeoutMs = 15_000, everyMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A quiet, predictable login shell in `home`: bash with a short prompt, no history, no user files.
 * For the benchmarks, which time the terminal, not a profile; tests use personDotfiles().
 */
export function quietDotfiles(home: string, prompt: string): void {
  const rc = `PS1='${prompt}'\nPROMPT_COMMAND=\nunset HISTFILE\n`;
  fs.writeFileSync(path.join(home, '.bash_profile'), rc);
  fs.writeFileSync(path.join(home, '.bashrc'), rc);
}

/**
 * A person's startup files in `home`, as a new account gets them: /etc/skel's (on Debian
 * .profile, which reads .bashrc in bash, .bashrc and .bash_logout), and the two lines
 * people add: their prompt, `prompt` (which tests wait for), at the end of .bashrc, and
 * the folder of their Node on PATH at the end of the file a login bash reads (Debian's
 * /etc/profile, read first, sets PATH from scratch). Where there is no /etc/skel, a
 * .profile that reads .bashrc as Debian's does. Tests start shells as people do (`bash -l`)
 * in a home like this one: tempState()'s and every test file's (main/test-home.ts).
 */
export function personDotfiles(home: string, prompt: string): void {
  if (fs.existsSync('/etc/skel')) fs.cpSync('/etc/skel', home, { recursive: true });
  const rc = path.join(home, '.bashrc');
  fs.appendFileSync(rc, `\n# The prompt of this home's tests.\nPS1='${prompt}'\n`);
  let login = ['.bash_profile', '.bash_login', '.profile'].map((f) => path.join(home, f)).find((f) => fs.existsSync(f));
  if (!login) {
    login = path.join(home, '.profile');
    fs.writeFileSync(login, 'if [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then\n    . "$HOME/.bashrc"\nfi\n');
  }
  fs.appendFileSync(login, `\n# Node, where it is installed.\nPATH="${path.dirname(process.execPath)}:$PATH"\n`);
}

/**
 * A fresh temp folder; the environment a test's app runs with (HOME and XDG_* inside it).
 * Its cleanup retries a folder that is not empty yet: a shell ended a moment ago may still
 * be writing its history into the home.
 */
export function tempState(prefix = 'td-test-'): { dir: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // A home of its own with a person's startup files: a login shell in a test never reads the
  // dotfiles of whoever runs it (a slow or locked `pyenv init` there stalled every shell for 60 s).
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  personDotfiles(home, '$ ');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    ...xdgOf(home),
    XDG_STATE_HOME: path.join(dir, 'state'),
    TD_SOCKET: path.join(dir, 'state', 'td.sock'),
    SHELL: '/bin/bash',
    PS1: '$ ',
  };
  delete env.TD_PANE_ID;
  delete env.TD_SESSION;
  delete env.TD_TAG;
  // Installed Tick packages, agents' config and Skills go under the temp home too.
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  return { dir, env, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}

/** XDG's config, data and cache folders where they are by default in `home`: a test's home gets its own. */
export function xdgOf(home: string): { XDG_CONFIG_HOME: string; XDG_DATA_HOME: string; XDG_CACHE_HOME: string } {
  return { XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CACHE_HOME: path.join(home, '.cache') };
}

/** Variables that name a place to write outside HOME and XDG_*, or a running service: unset in tests. */
export const LEAKING = [
  'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME', 'OPENCODE_CONFIG', 'OPENCODE_CONFIG_DIR', 'ZDOTDIR',
  'TD_SOCKET', 'TD_SESSION', 'TD_PANE_ID', 'TD_TAG', 'TD_SERVICE_SOCKET', 'TD_SERVICE_TOKEN_FILE',
];

/** HOME and every XDG_* base folder inside `root` (made, the runtime folder 0700), as environment variables. */
export function homeEnv(root: string): Record<string, string> {
  const home = path.join(root, 'home');
  const env = {
    HOME: home,
    ...xdgOf(home),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_RUNTIME_DIR: path.join(root, 'run'),
  };
  for (const dir of Object.values(env)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return env;
}

/**
 * Every entry under `dir` but those in `leaveOut` (relative paths): its kind, mode and (files)
 * a hash of its bytes, (links) its target; equal trees are the same, byte for byte.
 */
export function tree(dir: string, leaveOut: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const key = path.relative(dir, p);
      if (leaveOut.includes(key)) continue;
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[key] = `link ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[key] = `dir ${(st.mode & 0o7777).toString(8)}`;
        walk(p);
      } else out[key] = `file ${(st.mode & 0o7777).toString(8)} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

/**
 * Runs Vitest on `files` of `project` with HOME, every XDG_* folder, CODEX_HOME and
 * CLAUDE_CONFIG_DIR in a sentinel folder that holds what a person has (the README's
 * `tick install counter`, a mimeapps.list, an OpenCode config): the run's status and
 * output, and the sentinel's tree before and after (less Vitest's own token, which the
 * runner, not a test, keeps in $XDG_DATA_HOME/vitest). The sentinel is removed after.
 */
export function runInSentinelHome(project: 'unit' | 'e2e', files: string[], timeoutMs: number): { status: number | null; output: string; before: Record<string, string>; after: Record<string, string> } {
  const root = path.resolve(import.meta.dirname, '..', '..');
  const sentinel = fs.mkdtempSync(path.join(os.tmpdir(), 'td-sentinel-'));
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...homeEnv(sentinel),
      CODEX_HOME: path.join(sentinel, 'home', '.codex'),
      CLAUDE_CONFIG_DIR: path.join(sentinel, 'home', '.claude'),
      TD_NODE: process.execPath,
      NO_COLOR: '1',
    };
    delete env.FORCE_COLOR;
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV') delete env[k];
    const installed = spawnSync(path.join(root, 'bin', 'terminal-delight'), ['tick', 'install', 'counter'], { cwd: env.HOME, env, encoding: 'utf8' });
    if (installed.status !== 0 || !fs.existsSync(path.join(env.XDG_DATA_HOME!, 'terminal-delight', 'ticks', 'counter', 'SKILL.md'))) throw new Error(`tick install counter failed: ${installed.stderr}`);
    fs.writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'mimeapps.list'), '[Default Applications]\nx-scheme-handler/https=firefox.desktop\n');
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'opencode'));
    fs.writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'), '{"theme": "mine"}\n');
    const vitestOwn = [path.join('home', '.local', 'share', 'vitest')];
    const before = tree(sentinel, vitestOwn);
    const run = spawnSync(path.join(root, 'node_modules', '.bin', 'vitest'), ['run', '--project', project, ...files], { cwd: root, env, encoding: 'utf8', timeout: timeoutMs });
    return { status: run.status, output: `${run.stdout}\n${run.stderr}`, before, after: tree(sentinel, vitestOwn) };
  } finally {
    fs.rmSync(sentinel, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

/** bash as people start it in a terminal: a login shell (/etc/profile, then the home's startup files). */
export const LOGIN_BASH = ['/bin/bash', '-l'];

/**
 * The processes holding a socket that listens on TCP `port` (Linux: /proc/net/tcp and tcp6
 * for its inode, then every process's descriptors): their pids, sorted.
 */
export function listeningHolders(port: number): number[] {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address "ADDR:PORT" (hex), state 0A = LISTEN, inode the tenth column.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  const holders: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const held = fds.some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]!);
      } catch {
        return false;
      }
    });
    if (held) holders.push(Number(pid));
  }
  return holders.sort((a, b) => a - b);
}

/** `terminal-delight ARGS` as a person types it (bin/terminal-delight), with `env`: its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.resolve(import.meta.dirname, '..', '..', 'bin', 'terminal-delight'), args, { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A program named like an agent CLI (claude, codex…) that only waits, in `dir/bin`: a pane running it knows its agent. */
export function fakeAgent(dir: string, name: string): string {
  const file = path.join(dir, 'bin', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexec cat\n', { mode: 0o755 });
  return file;
}
