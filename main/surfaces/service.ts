/**
 * The surface service (SurfaceServiceApi): one store per pane, four routes in (file
 * poller, MCP, CLI files, transcript; plus the agent channel and a person's notes),
 * actions out. Installs the contract's surface.*, artifact.open and bench.set handlers.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ActionRecord, Surface, SurfaceRoute } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { IngestResult, PaneServiceApi, SurfaceServiceApi } from '../services.ts';
import { ActionWriter, type Interceptor } from './actions.ts';
import { ARTIFACT_PREFIX, artifactResolver, artifactView } from './artifacts.ts';
import { FolderPoller } from './poller.ts';
import { LIMITS, TDSP_VERSION, catalogue } from './registry.ts';
import { SurfaceStore, writeAtomic } from './store.ts';
import { TranscriptWatcher } from './transcript.ts';
import { checkSurface, notJsonCard, sha256Hex, utf8Bytes } from './validate.ts';

export const BENCH_FILE = 'bench.json';

export interface SurfaceServiceOptions {
  core: Core;
  panes: PaneServiceApi;
  /** File poll interval (default 1 s). */
  pollMs?: number;
  /** Use file-system events to read sooner (default on). */
  events?: boolean;
}

export class SurfaceService implements SurfaceServiceApi {
  readonly store: SurfaceStore;
  readonly poller: FolderPoller;
  readonly transcripts: TranscriptWatcher;
  private readonly actions: ActionWriter;
  private readonly interceptors: Interceptor[] = [];
  private readonly core: Core;
  private readonly panes: PaneServiceApi;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(opts: SurfaceServiceOptions) {
    this.core = opts.core;
    this.panes = opts.panes;
    const folder = (paneId: string) => this.panes.folder(paneId);
    this.store = new SurfaceStore({
      folder,
      changed: (paneId, change) => this.core.emit('surface.changed', { paneId, ...change }),
      unseen: (paneId, count) => {
        if (this.panes.get(paneId)) this.panes.patch(paneId, { unseen: count });
      },
    });
    this.poller = new FolderPoller({ store: this.store, folder }, { intervalMs: opts.pollMs, events: opts.events });
    this.transcripts = new TranscriptWatcher({
      firstReading: (paneId, key) => this.store.firstReading(paneId, key),
      ingest: (paneId, text) => void this.ingest(paneId, text, 'transcript'),
    }, opts.pollMs);
    this.actions = new ActionWriter({
      store: this.store,
      pane: (paneId) => this.panes.get(paneId),
      folder,
      submit: (paneId, line) => this.panes.submit(paneId, line),
      interceptors: () => this.interceptors,
      shellAtPrompt: (paneId) => this.panes.shellAtPrompt(paneId),
    });
  }

  /** Start watching every pane (and the panes to come). */
  start(): void {
    for (const pane of this.panes.list()) this.openPane(pane.id);
    this.unsubscribe.push(
      this.panes.onCreated((pane) => this.openPane(pane.id)),
      this.panes.onRemoved((paneId) => {
        this.poller.remove(paneId);
        this.transcripts.unwatch(paneId);
        this.store.drop(paneId);
      }),
    );
    this.poller.start();
  }

  private openPane(paneId: string): void {
    this.store.open(paneId);
    const bench = readBench(this.panes.folder(paneId));
    if (bench && this.panes.get(paneId)?.benchOpen !== bench.open) this.panes.patch(paneId, { benchOpen: bench.open });
    this.poller.add(paneId);
  }

  async dispose(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.transcripts.close();
    await this.poller.close();
    this.store.flush();
  }

  ingest(paneId: string, doc: unknown, route: SurfaceRoute, opts: { strict?: boolean; file?: string } = {}): IngestResult {
    if (!this.known(paneId)) return { refusal: `there is no pane "${String(paneId).slice(0, 64)}" — it may have closed; nothing was shown` };
    const strict = opts.strict ?? (route === 'mcp' || route === 'cli');
    let checked = checkSurface(doc, { strict, person: route === 'person', existing: (id) => this.store.get(paneId, id) });
    if (checked.type === 'refused') return { refusal: checked.reason };
    if (checked.type === 'not-json') {
      // Only the file route waits for a file to become JSON; anything else shows the mistake.
      checked = notJsonCard(checked.reason, typeof doc === 'string' ? doc : '');
    }
    const file = opts.file
      ? { name: path.basename(opts.file), hash: sha256Hex(typeof doc === 'string' ? doc : JSON.stringify(doc)) }
      : undefined;
    const applied = this.store.apply(paneId, checked, route, file);
    const result: IngestResult = {};
    if (applied.surface) result.surface = applied.surface;
    if (applied.retiredId) result.retiredId = applied.retiredId;
    return result;
  }

  /** Only panes that exist have a bench (and a folder): ids from outside are checked here. */
  private known(paneId: unknown): paneId is string {
    return typeof paneId === 'string' && this.panes.get(paneId) !== undefined;
  }

  list(paneId: string): Surface[] {
    if (!this.known(paneId)) return [];
    return this.store.list(paneId);
  }

  act(paneId: string, surfaceId: string, action: string, target?: string, comment?: string): { ok: true; record: ActionRecord } | { ok: false; error: string } {
    return this.actions.act(paneId, surfaceId, action, target, comment);
  }

  sentSince(paneId: string, since: string): boolean {
    return this.known(paneId) && this.store.sentSince(paneId, since);
  }

  watchTranscript(paneId: string, transcriptPath: string): void {
    if (!this.known(paneId)) return;
    this.transcripts.watch(paneId, transcriptPath);
  }

  intercept(fn: Interceptor): () => void {
    this.interceptors.push(fn);
    return () => {
      const i = this.interceptors.indexOf(fn);
      if (i >= 0) this.interceptors.splice(i, 1);
    };
  }

  /** A person's own note, on the bench or on a surface. */
  comment(paneId: string, text: string, on?: string): Surface {
    if (!this.known(paneId)) throw new Error(`there is no pane "${String(paneId).slice(0, 64)}" — it may have closed`);
    if (typeof text !== 'string' || !text.trim()) throw new Error('a note needs some text — write it, then save');
    if (utf8Bytes(text) > LIMITS.commentBytes) throw new Error('a note is at most 4 KiB — shorten it, then save');
    if (on !== undefined && !this.store.get(paneId, on)) throw new Error(`there is no surface "${on}" on this bench to note — it was retired or dismissed`);
    const id = `comment-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
    const model: Record<string, unknown> = { text };
    if (on) model.on = on;
    const title = on ? `Note on ${this.store.get(paneId, on)!.title}`.slice(0, LIMITS.titleChars) : 'Note';
    const r = this.ingest(paneId, { td: TDSP_VERSION, kind: 'comment', id, title, model }, 'person', { strict: true });
    if (!r.surface) throw new Error(r.refusal ?? 'the note could not be saved — try again');
    return r.surface;
  }

  /** Write bench.json and mirror it on the pane. */
  setBench(paneId: string, open: boolean): void {
    if (!this.panes.get(paneId)) throw new Error(`there is no pane "${paneId}" — it may have closed`);
    const folder = this.panes.folder(paneId);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeAtomic(path.join(folder, BENCH_FILE), `${JSON.stringify({ open: !!open, at: new Date().toISOString() })}\n`);
    this.panes.patch(paneId, { benchOpen: !!open });
  }

  /** The contract's surface.*, artifact.open and bench.set handlers, and the artifact file route. */
  install(core: Core): void {
    core.handle('surface.list', ({ paneId }) => this.list(paneId));
    core.handle('surface.act', ({ paneId, surfaceId, action, target, comment }) => {
      if (typeof paneId !== 'string' || typeof surfaceId !== 'string') return { ok: false, error: 'surface.act needs paneId and surfaceId as strings; nothing was sent' };
      return this.act(paneId, surfaceId, action, target, comment);
    });
    core.handle('surface.seen', ({ paneId, surfaceIds }) => {
      if (this.known(paneId) && Array.isArray(surfaceIds)) this.store.markSeen(paneId, surfaceIds.filter((s) => typeof s === 'string'));
    });
    core.handle('surface.comment', ({ paneId, text, on }) => this.comment(paneId, text, on));
    core.handle('surface.catalogue', () => catalogue());
    core.handle('artifact.open', ({ paneId, surfaceId }) => {
      if (typeof paneId !== 'string' || typeof surfaceId !== 'string') return { kind: 'missing', name: '', message: 'artifact.open needs paneId and surfaceId as strings' };
      const surface = this.known(paneId) ? this.store.get(paneId, surfaceId) : undefined;
      if (!surface) return { kind: 'missing', name: surfaceId, message: `there is no surface "${surfaceId}" on this bench — it was retired or dismissed` };
      return artifactView(paneId, surface);
    });
    core.handle('bench.set', ({ paneId, open }) => this.setBench(paneId, open));
    core.serveFiles(ARTIFACT_PREFIX, artifactResolver((paneId, surfaceId) => (this.panes.get(paneId) ? this.store.get(paneId, surfaceId) : undefined)));
  }
}

/** bench.json of a pane folder, when it is there and readable. */
export function readBench(folder: string): { open: boolean; at?: string } | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(folder, BENCH_FILE), 'utf8')) as { open?: unknown; at?: unknown };
    if (typeof v?.open !== 'boolean') return undefined;
    return { open: v.open, at: typeof v.at === 'string' ? v.at : undefined };
  } catch {
    return undefined;
  }
}

/** Build the surface service, install its handlers and start it. */
export function installSurfaces(core: Core, panes: PaneServiceApi, opts: Omit<SurfaceServiceOptions, 'core' | 'panes'> = {}): SurfaceService {
  const service = new SurfaceService({ core, panes, ...opts });
  service.install(core);
  service.start();
  core.onDispose(() => service.dispose());
  return service;
}
