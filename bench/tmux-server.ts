/**
 * A tmux server of a bench's own (bench/tmux.bench.ts, bench/fleet-tmux.ts): its socket in
 * `dir`, no configuration (`-f /dev/null`), its shells a quiet login bash with the prompt
 * `td$ ` (HOME at `dir`/`home`), never the person's tmux or theirs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { quietDotfiles } from '../main/panes/testing.ts';

export interface TmuxServer {
  /** `tmux -V`'s words (tmux 3.3a). */
  version: string;
  sock: string;
  env: NodeJS.ProcessEnv;
  /** A tmux command, its output; throws one sentence when it fails. */
  t(...args: string[]): string;
}

export function tmuxServer(dir: string, home: string): TmuxServer {
  const version = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error('tmux is not installed: apt-get install tmux (Debian\'s), then run the bench again');
  fs.mkdirSync(home, { recursive: true });
  quietDotfiles(home, 'td$ ');
  const sock = path.join(dir, 'tmux.sock');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SHELL: '/bin/bash', TERM: 'xterm-256color' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const t = (...args: string[]): string => {
    const r = spawnSync('tmux', ['-S', sock, '-f', '/dev/null', ...args], { env, encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.trim()}`);
    return r.stdout;
  };
  return { version: version.stdout.trim(), sock, env, t };
}
