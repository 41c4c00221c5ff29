/**
 * The per-pane store of surfaces: the 64 newest, in arrival order, with timestamps,
 * seen/unseen and the actions taken. The pane folder is the store: the bench is kept in
 * `.bench-state.json` (written atomically) beside the surface files, so a restarted app
 * gets the bench back, dismissals and seen/acted state included. Files are deduped by
 * content hash, so re-reading an unchanged file is never a new arrival.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ActionRecord, Surface, SurfaceRoute } from '../../preload/contract.ts';
import { LIMITS, shelfOf } from './registry.ts';
import { readTail } from './transcript.ts';
import { sha256Hex, type Checked, type SurfaceDoc } from './validate.ts';

export const STATE_FILE = '.bench-state.json';
/** The pane's record of the actions taken, one a line (main/surfaces/actions.ts appends to it). */
export const ACTIONS_FILE = 'actions.jsonl';
const STATE_VERSION = 1;
/** The most of a pane's actions.jsonl read back when its bench is loaded. */
const ACTIONS_READ_MAX = 4 * 1024 * 1024;

/**
 * Put back on the bench the actions `actions.jsonl` holds and the saved bench does not: the
 * record is appended (and fsync'd) before the line is typed and the bench saved
 * (main/surfaces/actions.ts), so a service killed between the two came back with the answer
 * recorded and the card showing none. Matched by surface, action and time; a line that does
 * not parse (one torn by the kill) and surfaces no longer on the bench are passed over. What
 * was typed is not known (no `line`). The file's last ACTIONS_READ_MAX, from a whole line.
 */
function recordedActions(p: { folder: string; surfaces: Map<string, Surface> }): void {
  let text: string;
  try {
    text = readTail(path.join(p.folder, ACTIONS_FILE), ACTIONS_READ_MAX);
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    let e: { type?: unknown; surface?: unknown; action?: unknown; at?: unknown; target?: unknown; comment?: unknown };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (!e || e.type !== 'action' || typeof e.surface !== 'string' || typeof e.action !== 'string' || typeof e.at !== 'string') continue;
    const s = p.surfaces.get(e.surface);
    if (!s || s.acted.some((r) => r.action === e.action && r.at === e.at)) continue;
    const record: ActionRecord = { action: e.action, at: e.at };
    if (typeof e.target === 'string') record.target = e.target;
    if (typeof e.comment === 'string') record.comment = e.comment;
    s.acted = [...s.acted, record].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  }
}

/** Transcript block keys remembered per pane (so a block is read once). */
const TRANSCRIPT_KEYS = 2000;

export interface StoreDeps {
  /** The pane's folder (created on demand). */
  folder(paneId: string): string;
  /** A surface arrived or changed, or left the bench. */
  changed(paneId: string, change: { surface?: Surface; removedId?: string }): void;
  /** The pane's unseen count changed. */
  unseen(paneId: string, count: number): void;
  now?: () => Date;
}

interface FileEntry {
  hash: string;
  /** The surface the file holds, when it holds one. */
  id?: string;
}

interface PaneState {
  folder: string;
  nextOrder: number;
  surfaces: Map<string, Surface>;
  files: Map<string, FileEntry>;
  /** Dismissed surfaces: id → content hash (the same content never comes back). */
  dismissed: Map<string, string>;
  transcript: string[];
  transcriptSet: Set<string>;
  lastSentAt?: string;
  unseen: number;
  timer?: NodeJS.Timeout;
}

interface Persisted {
  v: number;
  nextOrder: number;
  surfaces: Surface[];
  files: Record<string, FileEntry>;
  dismissed: Record<string, string>;
  transcript: string[];
  lastSentAt?: string;
}

export interface ApplyResult {
  surface?: Surface;
  retiredId?: string;
  /** Whether anything changed on the bench. */
  changed: boolean;
}

/** Write a file atomically: a dot-temp file beside it, fsync'd, then renamed into place. */
export function writeAtomic(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

function contentHash(doc: { kind: string; title: string; model: unknown }): string {
  return sha256Hex(JSON.stringify([doc.kind, doc.title, doc.model]));
}

export class SurfaceStore {
  private readonly panes = new Map<string, PaneState>();
  private readonly deps: StoreDeps;

  constructor(deps: StoreDeps) {
    this.deps = deps;
  }

  private now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  /** The pane's state, loaded from its folder on first use. */
  private pane(paneId: string): PaneState {
    let p = this.panes.get(paneId);
    if (p) return p;
    const folder = this.deps.folder(paneId);
    p = {
      folder, nextOrder: 1, surfaces: new Map(), files: new Map(), dismissed: new Map(),
      transcript: [], transcriptSet: new Set(), unseen: 0,
    };
    try {
      const saved = JSON.parse(fs.readFileSync(path.join(folder, STATE_FILE), 'utf8')) as Persisted;
      if (saved && saved.v === STATE_VERSION) {
        p.nextOrder = Number(saved.nextOrder) || 1;
        for (const s of saved.surfaces ?? []) if (s && typeof s.id === 'string') p.surfaces.set(s.id, s);
        for (const [name, e] of Object.entries(saved.files ?? {})) p.files.set(name, e);
        for (const [id, h] of Object.entries(saved.dismissed ?? {})) p.dismissed.set(id, h);
        p.transcript = (saved.transcript ?? []).slice(-TRANSCRIPT_KEYS);
        p.transcriptSet = new Set(p.transcript);
        p.lastSentAt = saved.lastSentAt;
      }
    } catch {
      // no state yet, or unreadable: start empty (the poller reads the files again)
    }
    recordedActions(p);
    p.unseen = [...p.surfaces.values()].filter((s) => !s.seen).length;
    this.panes.set(paneId, p);
    return p;
  }

  /** Load a pane's bench now (at start, so its unseen count is known). */
  open(paneId: string): void {
    const p = this.pane(paneId);
    this.deps.unseen(paneId, p.unseen);
  }

  has(paneId: string): boolean {
    return this.panes.has(paneId);
  }

  list(paneId: string): Surface[] {
    return [...this.pane(paneId).surfaces.values()].sort((a, b) => a.order - b.order);
  }

  get(paneId: string, id: string): Surface | undefined {
    return this.pane(paneId).surfaces.get(id);
  }

  /** The hash recorded for a file of the pane folder, if it was read (or written by a route). */
  fileEntry(paneId: string, name: string): FileEntry | undefined {
    return this.pane(paneId).files.get(name);
  }

  /** Names of every file the store has read. */
  fileNames(paneId: string): string[] {
    return [...this.pane(paneId).files.keys()];
  }

  /** Apply a checked document (never a refusal or not-json) arriving by a route. */
  apply(paneId: string, checked: Checked, route: SurfaceRoute, file?: { name: string; hash: string }): ApplyResult {
    const p = this.pane(paneId);
    const result: ApplyResult = { changed: false };
    if (file) {
      const before = p.files.get(file.name);
      const newId = checked.type === 'present' || checked.type === 'update' || checked.type === 'unclassified' ? checked.doc.id : undefined;
      if (before?.id && before.id !== newId) {
        const old = p.surfaces.get(before.id);
        if (old && old.file === file.name) this.remove(p, paneId, before.id);
      }
      p.files.set(file.name, { hash: file.hash, id: newId });
    }
    // What the agent sent (a person's note and the app's own worktree card are not).
    if (route !== 'person' && route !== 'worktree') p.lastSentAt = this.now();
    if (checked.type === 'retire') {
      result.retiredId = checked.id;
      p.dismissed.delete(checked.id);
      if (p.surfaces.has(checked.id)) {
        this.remove(p, paneId, checked.id);
        result.changed = true;
      }
      this.save(paneId, p);
      return result;
    }
    if (checked.type !== 'present' && checked.type !== 'update' && checked.type !== 'unclassified') {
      this.save(paneId, p);
      return result;
    }
    const doc: SurfaceDoc = checked.doc;
    const hash = contentHash(doc);
    const existing = p.surfaces.get(doc.id);
    if (p.dismissed.get(doc.id) === hash) {
      this.save(paneId, p);
      return result;
    }
    p.dismissed.delete(doc.id);
    if (existing && contentHash(existing) === hash) {
      if (file && existing.file !== file.name) existing.file = file.name;
      this.save(paneId, p);
      return { surface: existing, changed: false };
    }
    const at = this.now();
    const surface: Surface = {
      id: doc.id,
      kind: doc.kind,
      title: doc.title,
      shelf: shelfOf(doc.kind),
      model: doc.model,
      route,
      order: existing?.order ?? p.nextOrder++,
      arrivedAt: existing?.arrivedAt ?? at,
      updatedAt: at,
      seen: route === 'person',
      acted: existing?.acted ?? [],
    };
    if (checked.type === 'unclassified') {
      surface.reason = checked.reason;
      surface.raw = typeof doc.model.raw === 'string' ? doc.model.raw : '';
    }
    if (file) surface.file = file.name;
    else if (existing?.file) {
      // Another route replaced a file's surface: the file no longer speaks for it.
      const e = p.files.get(existing.file);
      if (e?.id === doc.id) e.id = undefined;
    }
    p.surfaces.set(surface.id, surface);
    this.deps.changed(paneId, { surface });
    this.evict(p, paneId);
    this.recount(p, paneId);
    this.save(paneId, p);
    return { surface, changed: true };
  }

  /** A file of the pane folder is gone: retire its surface and forget it. */
  fileGone(paneId: string, name: string): string | undefined {
    const p = this.pane(paneId);
    const e = p.files.get(name);
    if (!e) return undefined;
    p.files.delete(name);
    let retired: string | undefined;
    if (e.id) {
      const s = p.surfaces.get(e.id);
      if (s && s.file === name) {
        this.remove(p, paneId, e.id);
        retired = e.id;
      }
    }
    this.save(paneId, p);
    return retired;
  }

  /** A person took the card off the bench; it stays off (persisted). */
  dismiss(paneId: string, id: string): boolean {
    const p = this.pane(paneId);
    const s = p.surfaces.get(id);
    if (!s) return false;
    p.dismissed.set(id, contentHash(s));
    this.remove(p, paneId, id);
    this.save(paneId, p, true);
    return true;
  }

  markSeen(paneId: string, ids: string[]): void {
    const p = this.pane(paneId);
    let any = false;
    for (const id of ids) {
      const s = p.surfaces.get(id);
      if (s && !s.seen) {
        s.seen = true;
        any = true;
        this.deps.changed(paneId, { surface: s });
      }
    }
    if (!any) return;
    this.recount(p, paneId);
    this.save(paneId, p);
  }

  addAction(paneId: string, id: string, record: ActionRecord): Surface | undefined {
    const p = this.pane(paneId);
    const s = p.surfaces.get(id);
    if (!s) return undefined;
    s.acted = [...s.acted, record];
    this.deps.changed(paneId, { surface: s });
    this.save(paneId, p, true);
    return s;
  }

  sentSince(paneId: string, since: string): boolean {
    const last = this.pane(paneId).lastSentAt;
    if (!last) return false;
    return Date.parse(last) >= Date.parse(since);
  }

  /** Whether a transcript block was read already; marks it read. */
  firstReading(paneId: string, key: string): boolean {
    const p = this.pane(paneId);
    if (p.transcriptSet.has(key)) return false;
    p.transcriptSet.add(key);
    p.transcript.push(key);
    if (p.transcript.length > TRANSCRIPT_KEYS) {
      for (const k of p.transcript.splice(0, p.transcript.length - TRANSCRIPT_KEYS)) p.transcriptSet.delete(k);
    }
    this.save(paneId, p);
    return true;
  }

  /** Write every pending state file now and forget the panes (at shutdown). */
  flush(): void {
    for (const [paneId, p] of this.panes) {
      if (p.timer) {
        clearTimeout(p.timer);
        p.timer = undefined;
        this.write(paneId, p);
      }
    }
  }

  /** Forget a pane (closed): its state is written first. */
  drop(paneId: string): void {
    const p = this.panes.get(paneId);
    if (!p) return;
    if (p.timer) {
      clearTimeout(p.timer);
      this.write(paneId, p);
    }
    this.panes.delete(paneId);
  }

  private remove(p: PaneState, paneId: string, id: string): void {
    if (!p.surfaces.delete(id)) return;
    this.deps.changed(paneId, { removedId: id });
    this.recount(p, paneId);
  }

  private evict(p: PaneState, paneId: string): void {
    if (p.surfaces.size <= LIMITS.surfacesPerPane) return;
    const byAge = [...p.surfaces.values()].sort((a, b) => a.order - b.order);
    for (const s of byAge.slice(0, byAge.length - LIMITS.surfacesPerPane)) this.remove(p, paneId, s.id);
  }

  private recount(p: PaneState, paneId: string): void {
    let n = 0;
    for (const s of p.surfaces.values()) if (!s.seen) n++;
    if (n !== p.unseen) {
      p.unseen = n;
      this.deps.unseen(paneId, n);
    }
  }

  private save(paneId: string, p: PaneState, now = false): void {
    if (now) {
      if (p.timer) clearTimeout(p.timer);
      p.timer = undefined;
      this.write(paneId, p);
      return;
    }
    if (p.timer) return;
    p.timer = setTimeout(() => {
      p.timer = undefined;
      this.write(paneId, p);
    }, 50);
    p.timer.unref?.();
  }

  private write(_paneId: string, p: PaneState): void {
    const saved: Persisted = {
      v: STATE_VERSION,
      nextOrder: p.nextOrder,
      surfaces: [...p.surfaces.values()].sort((a, b) => a.order - b.order),
      files: Object.fromEntries(p.files),
      dismissed: Object.fromEntries(p.dismissed),
      transcript: p.transcript,
      lastSentAt: p.lastSentAt,
    };
    try {
      fs.mkdirSync(p.folder, { recursive: true, mode: 0o700 });
      writeAtomic(path.join(p.folder, STATE_FILE), JSON.stringify(saved));
    } catch {
      // the folder is gone (pane removed): nothing to keep
    }
  }
}
