/**
 * The saved session: session id, layout, focus and each pane's id, tag, kind, command
 * and cwd (read live from the process at save time), written atomically to
 * paths.sessionFile on every change (debounced) and at shutdown, and read back at start
 * so the same TD_SESSION and pane ids (and so pane folders and benches) come back.
 * Tick panes are not saved: their Ticks belong to the Tick host.
 */
import type { Layout, PaneKind } from '../../preload/contract.ts';
import * as L from '../panes/layout.ts';
import type { PaneService, SavedPane } from '../panes/service.ts';
import { readJson, writeJsonAtomic } from './files.ts';

export interface SavedSession {
  version: 1;
  session: string;
  savedAt: string;
  layout: Layout | null;
  focused: string | null;
  panes: SavedPane[];
}

const KINDS: readonly PaneKind[] = ['shell', 'agent', 'tick'];
/** Ids name folders: a letter or digit first, so never `.` or `..`. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Read a saved session leniently: anything malformed is dropped, a broken file gives undefined. */
export function loadSession(file: string): SavedSession | undefined {
  const raw = readJson(file) as Record<string, unknown> | undefined;
  if (!raw || typeof raw !== 'object' || typeof raw.session !== 'string' || !ID.test(raw.session)) return undefined;
  const panes: SavedPane[] = [];
  const seen = new Set<string>();
  for (const p of Array.isArray(raw.panes) ? raw.panes : []) {
    if (!p || typeof p !== 'object') continue;
    const o = p as Record<string, unknown>;
    if (typeof o.id !== 'string' || !ID.test(o.id) || seen.has(o.id)) continue;
    if (typeof o.tag !== 'string' || !/^[a-z0-9]{8}$/.test(o.tag)) continue;
    const kind = KINDS.includes(o.kind as PaneKind) ? (o.kind as PaneKind) : 'shell';
    if (kind === 'tick') continue;
    const command = Array.isArray(o.command) && o.command.every((a) => typeof a === 'string') ? (o.command as string[]) : [];
    const cwd = typeof o.cwd === 'string' ? o.cwd : '';
    seen.add(o.id);
    panes.push({ id: o.id, tag: o.tag, kind, command, cwd, ...(typeof o.title === 'string' ? { title: o.title } : {}) });
  }
  const check = raw.layout ? L.validateLayout(L.prune(raw.layout as Layout, (id) => seen.has(id)), (id) => seen.has(id)) : undefined;
  return {
    version: 1,
    session: raw.session,
    savedAt: typeof raw.savedAt === 'string' ? raw.savedAt : '',
    layout: check && check.ok ? check.layout : null,
    focused: typeof raw.focused === 'string' && seen.has(raw.focused) ? raw.focused : null,
    panes,
  };
}

/** What would be saved now. */
export function captureSession(panes: PaneService): SavedSession {
  const saved: SavedPane[] = [];
  for (const p of panes.list()) {
    if (p.kind === 'tick') continue;
    saved.push({ id: p.id, tag: p.tag, kind: p.kind, command: p.command, cwd: panes.liveCwd(p.id) ?? p.cwd });
  }
  const keep = new Set(saved.map((p) => p.id));
  const layout = L.prune(panes.layout, (id) => keep.has(id));
  const focused = panes.focused && keep.has(panes.focused) ? panes.focused : null;
  return { version: 1, session: panes.session, savedAt: new Date().toISOString(), layout, focused, panes: saved };
}

/** Start the saved panes again under their ids and put the layout back. */
export function restoreSession(panes: PaneService, saved: SavedSession): void {
  for (const p of saved.panes) {
    try {
      panes.restore(p);
    } catch {
      // a pane that cannot start again is left out; the rest come back
    }
  }
  panes.restoreLayout(saved.layout, saved.focused);
}

/** Saves the session on change (debounced) and at shutdown. */
export class SessionKeeper {
  private timer: NodeJS.Timeout | undefined;
  private readonly off: () => void;
  private readonly panes: PaneService;
  private readonly file: string;
  private readonly debounceMs: number;
  private stopped = false;

  constructor(panes: PaneService, file: string, debounceMs = 300) {
    this.panes = panes;
    this.file = file;
    this.debounceMs = debounceMs;
    this.off = panes.onChange(() => this.schedule());
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.saveNow();
    }, this.debounceMs);
  }

  saveNow(): void {
    try {
      writeJsonAtomic(this.file, captureSession(this.panes));
    } catch (err) {
      process.stderr.write(`terminal-delight: could not save the session to ${this.file}: ${(err as Error).message}\n`);
    }
  }

  /** Save once more and stop listening (before the panes are hung up). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.off();
    this.saveNow();
  }
}
