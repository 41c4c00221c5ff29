/**
 * The file route: every pane folder is read once a second, and chokidar events make
 * a read happen sooner. New and changed top-level `*.json` files are read oldest first
 * (modification time, then name); a deleted file retires its surface.
 *
 * Cheap at idle: one readdir and one lstat per candidate file per pane per second;
 * only files whose (mtime, size, inode) changed are opened. Never follows a symlink,
 * never opens anything but a regular file (lstat first, then O_NOFOLLOW|O_NONBLOCK and
 * fstat), never reads more than the document limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { LIMITS } from './registry.ts';
import { STATE_FILE, type SurfaceStore } from './store.ts';
import { REFUSALS, checkSurface, sha256Hex } from './validate.ts';

/** Names in a pane folder that are never surfaces. */
const RESERVED = new Set(['bench.json', STATE_FILE]);

export function isCandidate(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.') && !RESERVED.has(name);
}

export interface PollerDeps {
  store: SurfaceStore;
  folder(paneId: string): string;
  /** Called after a scan ingested or retired something (for tests and benchmarks). */
  onIngest?(paneId: string, name: string): void;
}

export interface PollerOptions {
  intervalMs?: number;
  /** Use file-system events (chokidar) to read sooner. */
  events?: boolean;
}

interface Watched {
  folder: string;
  /** name → "mtime:size:ino:mode" as last seen. */
  seen: Map<string, string>;
  scheduled?: NodeJS.Timeout;
}

/** The fallback id of an unclassified card made from a file, stable per file name. */
export function fileFallbackId(name: string): string {
  return `unclassified-${sha256Hex(`file:${name}`).slice(0, 8)}`;
}

export class FolderPoller {
  private readonly panes = new Map<string, Watched>();
  private readonly byFolder = new Map<string, string>();
  private readonly deps: PollerDeps;
  private readonly intervalMs: number;
  private events: boolean;
  private timer?: NodeJS.Timeout;
  private watcher?: FSWatcher;

  constructor(deps: PollerDeps, opts: PollerOptions = {}) {
    this.deps = deps;
    this.intervalMs = opts.intervalMs ?? LIMITS.pollMs;
    this.events = opts.events ?? true;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.scanAll(), this.intervalMs);
    this.timer.unref?.();
  }

  add(paneId: string): void {
    if (this.panes.has(paneId)) return;
    const folder = this.deps.folder(paneId);
    this.panes.set(paneId, { folder, seen: new Map() });
    this.byFolder.set(folder, paneId);
    if (this.events) this.watchFolder(folder);
    this.scan(paneId);
  }

  /** Turn file-system events on or off (polling alone still reads every folder once a second). */
  async useEvents(on: boolean): Promise<void> {
    if (on === this.events) return;
    this.events = on;
    if (on) {
      for (const w of this.panes.values()) this.watchFolder(w.folder);
    } else {
      const watcher = this.watcher;
      this.watcher = undefined;
      await watcher?.close().catch(() => undefined);
    }
  }

  private watchFolder(folder: string): void {
    try {
      if (!this.watcher) {
        // atomic: false — chokidar would otherwise hold a rename's events back for 100 ms.
        this.watcher = watch(folder, { ignoreInitial: true, depth: 0, followSymlinks: false, persistent: false, atomic: false });
        this.watcher.on('all', (_event: string, p: string) => this.soon(path.dirname(p)));
        // The raw fs.watch events come first; they name the folder watched.
        this.watcher.on('raw', (_event: unknown, _name: unknown, details: unknown) => {
          const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
          if (typeof watched === 'string') this.soon(watched);
        });
        this.watcher.on('error', () => { /* polling still runs */ });
      } else {
        this.watcher.add(folder);
      }
    } catch {
      // events are an optimisation: polling still runs
    }
  }

  remove(paneId: string): void {
    const w = this.panes.get(paneId);
    if (!w) return;
    if (w.scheduled) clearTimeout(w.scheduled);
    this.panes.delete(paneId);
    this.byFolder.delete(w.folder);
    try {
      this.watcher?.unwatch(w.folder);
    } catch {
      // already gone
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const w of this.panes.values()) if (w.scheduled) clearTimeout(w.scheduled);
    this.panes.clear();
    this.byFolder.clear();
    const watcher = this.watcher;
    this.watcher = undefined;
    await watcher?.close().catch(() => undefined);
  }

  scanAll(): void {
    for (const paneId of [...this.panes.keys()]) this.scan(paneId);
  }

  private soon(folder: string): void {
    const paneId = this.byFolder.get(folder);
    const w = paneId ? this.panes.get(paneId) : undefined;
    if (!paneId || !w || w.scheduled) return;
    w.scheduled = setTimeout(() => {
      w.scheduled = undefined;
      if (this.panes.get(paneId) === w) this.scan(paneId);
    }, 5);
  }

  /** Read the pane folder once: new and changed files oldest first, deleted files retired. */
  scan(paneId: string): void {
    const w = this.panes.get(paneId);
    if (!w) return;
    let names: string[];
    try {
      names = fs.readdirSync(w.folder);
    } catch {
      return;
    }
    const present = new Set<string>();
    const changed: Array<{ name: string; st: fs.Stats; sig: string }> = [];
    for (const name of names) {
      if (!isCandidate(name)) continue;
      const st = fs.lstatSync(`${w.folder}/${name}`, { throwIfNoEntry: false });
      if (!st) continue;
      present.add(name);
      const sig = `${st.mtimeMs}:${st.size}:${st.ino}:${st.mode}`;
      if (w.seen.get(name) === sig) continue;
      changed.push({ name, st, sig });
    }
    changed.sort((a, b) => a.st.mtimeMs - b.st.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const c of changed) {
      try {
        if (this.read(paneId, w, c.name, c.st)) this.deps.onIngest?.(paneId, c.name);
        w.seen.set(c.name, c.sig);
      } catch {
        // vanished or unreadable between lstat and read: try again next time
      }
    }
    for (const name of w.seen.keys()) if (!present.has(name)) w.seen.delete(name);
    for (const name of this.deps.store.fileNames(paneId)) {
      if (!present.has(name) && this.deps.store.fileGone(paneId, name)) this.deps.onIngest?.(paneId, name);
    }
  }

  /** Read one changed file; whether the bench changed. */
  private read(paneId: string, w: Watched, name: string, st: fs.Stats): boolean {
    const store = this.deps.store;
    const file = path.join(w.folder, name);
    const unclassified = (hash: string, reason: string, raw = ''): boolean => {
      if (store.fileEntry(paneId, name)?.hash === hash) return false;
      const checked = {
        type: 'unclassified' as const, reason,
        doc: { id: fileFallbackId(name), kind: 'unclassified' as const, title: name, model: { reason, raw } },
      };
      return store.apply(paneId, checked, 'file', { name, hash }).changed;
    };
    if (st.isSymbolicLink()) {
      let target = '?';
      try {
        target = fs.readlinkSync(file);
      } catch {
        // unreadable link: still a link
      }
      return unclassified(`link:${target}`, `"${name}" is a symbolic link (to ${JSON.stringify(target)}) — write the surface as a regular file in the pane folder; links are never followed`);
    }
    if (!st.isFile()) return false; // a directory named x.json, a FIFO, a socket: ignored
    if (st.size > LIMITS.documentBytes) {
      return unclassified(`huge:${st.size}:${st.mtimeMs}`, `"${name}" is ${Math.ceil(st.size / 1024)} KiB — ${REFUSALS.tooBig(st.size).split(' — ')[1]}`);
    }
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    let text: string;
    try {
      const fst = fs.fstatSync(fd);
      if (!fst.isFile()) return false;
      const buf = Buffer.alloc(Math.min(fst.size, LIMITS.documentBytes) + 1);
      let n = 0;
      while (n < buf.length) {
        const got = fs.readSync(fd, buf, n, buf.length - n, n);
        if (got === 0) break;
        n += got;
      }
      if (n > LIMITS.documentBytes) {
        return unclassified(`huge:${n}:${st.mtimeMs}`, REFUSALS.tooBig(n));
      }
      text = buf.subarray(0, n).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
    const hash = sha256Hex(text);
    if (store.fileEntry(paneId, name)?.hash === hash) return false;
    const checked = checkSurface(text, {
      strict: false,
      existing: (id) => store.get(paneId, id),
      fallbackId: fileFallbackId(name),
    });
    if (checked.type === 'not-json' || checked.type === 'refused') return false; // left until it is JSON
    return store.apply(paneId, checked, 'file', { name, hash }).changed;
  }
}
