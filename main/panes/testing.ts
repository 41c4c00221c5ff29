/** Helpers for tests of the panes and the shells (real PTYs, temp state folders). */
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

/** A quiet, predictable login shell in `home`: bash with a short prompt, no history, no user files. */
export function quietDotfiles(home: string, prompt: string): void {
  const rc = `PS1='${prompt}'\nPROMPT_COMMAND=\nunset HISTFILE\n`;
  fs.writeFileSync(path.join(home, '.bash_profile'), rc);
  fs.writeFileSync(path.join(home, '.bashrc'), rc);
}

/**
 * A fresh temp folder; the environment a test's app runs with (XDG_STATE_HOME inside it).
 * Its cleanup retries a folder that is not empty yet: a shell ended a moment ago may still
 * be writing its history into the home.
 */
export function tempState(prefix = 'td-test-'): { dir: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // A home of its own with quiet startup files: a login shell in a test never reads the
  // person's dotfiles (a slow or locked `pyenv init` there stalled every shell for 60 s).
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  quietDotfiles(home, '$ ');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_STATE_HOME: path.join(dir, 'state'),
    TD_SOCKET: path.join(dir, 'state', 'td.sock'),
    SHELL: '/bin/bash',
    PS1: '$ ',
  };
  delete env.TD_PANE_ID;
  delete env.TD_SESSION;
  delete env.TD_TAG;
  // Installed Tick packages and agents' Skills go under the temp home too.
  delete env.XDG_DATA_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  return { dir, env, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}

/** A plain bash with no startup files, for predictable screens. */
export const BASH = ['/bin/bash', '--norc', '--noprofile'];

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

/** A program named like an agent CLI (claude, codex…) that only waits, in `dir/bin`: a pane running it knows its agent. */
export function fakeAgent(dir: string, name: string): string {
  const file = path.join(dir, 'bin', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexec cat\n', { mode: 0o755 });
  return file;
}
