/**
 * Watching a working tree for the Changes card: chokidar on the folder (without `.git` and
 * `node_modules`) and any extra paths, and a refresh that waits for quiet. Used by the
 * worktree service and the turn service alike.
 */
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/** Watch `root` (but `.git` and `node_modules` inside it) and `extra`: `onChange` on every event, and once when the watch is up. */
export function watchTree(root: string, extra: string[], onChange: () => void): FSWatcher {
  const watcher = watch([root, ...extra], {
    ignoreInitial: true,
    atomic: false,
    followSymlinks: false,
    ignored: (p: string) => {
      const rel = path.relative(root, p);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return false;
      return rel.split(path.sep).some((seg) => seg === '.git' || seg === 'node_modules');
    },
  });
  watcher.on('all', onChange);
  // What changed between the first refresh and the watch starting fires no event: once more when it is up.
  watcher.on('ready', onChange);
  watcher.on('error', () => { /* a folder that went away: the next refresh says so */ });
  return watcher;
}

/** Runs `fn` after `quietMs` of quiet since the last `poke`, or at most 4× that after the first poke of a stream. */
export class Quiet {
  private timer?: NodeJS.Timeout;
  private since?: number;
  private readonly quietMs: number;
  private readonly fn: () => void;

  constructor(quietMs: number, fn: () => void) {
    this.quietMs = quietMs;
    this.fn = fn;
  }

  poke(): void {
    const now = Date.now();
    this.since ??= now;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.since = undefined;
      this.fn();
    }, Math.max(0, Math.min(this.quietMs, this.since + this.quietMs * 4 - now)));
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.since = undefined;
  }
}
