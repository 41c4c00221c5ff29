/**
 * The saved session (docs/design/service.md, "What is on disk before it matters"): the
 * session id, layout, focus and a record of every pane (id, tag, kind, argv, whole
 * environment, live cwd, size, agent and its session id, whether it ran), written
 * atomically (mode 0600) to paths.sessionFile: at once when a process starts or an agent's
 * session id becomes known, debounced on other changes, and at a clean shutdown with
 * `ended` (why the service stopped). Read back when a service starts, so the same
 * TD_SESSION and pane ids (and so pane folders and benches) come back, each pane ended
 * with why, ready to resume.
 */
import os from 'node:os';
import type { Layout, PaneKind, Settings } from '../../preload/contract.ts';
import * as L from '../panes/layout.ts';
import { isQualifiedPaneId } from '../../common/pane-id.ts';
import { isShell } from '../panes/resume.ts';
import { stillRunning } from '../panes/ending.ts';
import type { PaneService, SavedPane } from '../panes/service.ts';
import { readJson, writeJsonAtomic } from './files.ts';

export interface SavedSession {
  version: 2;
  session: string;
  savedAt: string;
  layout: Layout | null;
  focused: string | null;
  panes: SavedPane[];
  /** The service that wrote this: when it started (to tell a reboot from a crash). */
  service?: { pid: number; startedAt: string };
  /** Set at a clean shutdown: why the service stopped. Absent: it did not stop cleanly. */
  ended?: { reason: string; at: string };
}

const KINDS: readonly PaneKind[] = ['shell', 'agent', 'tick'];
/** Ids name folders: a letter or digit first, so never `.` or `..`. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const AGENTS = new Set(['claude', 'codex', 'gemini', 'opencode']);

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string' && !k.includes('=') && !k.includes('\0') && !x.includes('\0')) out[k] = x;
  return out;
}

function size(v: unknown, max: number): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max ? v : undefined;
}

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
    const rec: SavedPane = { id: o.id, tag: o.tag, kind, command, cwd };
    if (typeof o.title === 'string') rec.title = o.title;
    const env = stringRecord(o.env);
    if (env) rec.env = env;
    const cols = size(o.cols, 2000);
    const rows = size(o.rows, 1000);
    if (cols && rows) Object.assign(rec, { cols, rows });
    const agent = o.agentCli as { name?: unknown; sessionId?: unknown } | undefined;
    if (agent && typeof agent === 'object' && AGENTS.has(agent.name as string)) {
      rec.agentCli = { name: agent.name as NonNullable<SavedPane['agentCli']>['name'] };
      if (typeof agent.sessionId === 'string' && /^[A-Za-z0-9._:-]{1,200}$/.test(agent.sessionId)) rec.agentCli.sessionId = agent.sessionId;
    }
    rec.running = o.running !== false;
    if (typeof o.exitCode === 'number') rec.exitCode = o.exitCode;
    const proc = o.process as { pid?: unknown; startTicks?: unknown; boot?: unknown } | undefined;
    if (proc && typeof proc === 'object' && Number.isInteger(proc.pid) && (proc.pid as number) > 1) {
      rec.process = { pid: proc.pid as number };
      if (Number.isInteger(proc.startTicks)) rec.process.startTicks = proc.startTicks as number;
      if (typeof proc.boot === 'string' && /^[0-9a-f-]{1,64}$/.test(proc.boot)) rec.process.boot = proc.boot;
    }
    panes.push(rec);
  }
  // Panes of other machines (`name/id`) stay in the layout: they come back when their machine's link does.
  const known = (id: string): boolean => seen.has(id) || isQualifiedPaneId(id);
  const check = raw.layout ? L.validateLayout(L.prune(raw.layout as Layout, known), known) : undefined;
  const out: SavedSession = {
    version: 2,
    session: raw.session,
    savedAt: typeof raw.savedAt === 'string' ? raw.savedAt : '',
    layout: check && check.ok ? check.layout : null,
    focused: typeof raw.focused === 'string' && known(raw.focused) ? raw.focused : null,
    panes,
  };
  const service = raw.service as { pid?: unknown; startedAt?: unknown } | undefined;
  if (service && typeof service.pid === 'number' && typeof service.startedAt === 'string') out.service = { pid: service.pid, startedAt: service.startedAt };
  const ended = raw.ended as { reason?: unknown; at?: unknown } | undefined;
  if (ended && typeof ended.reason === 'string' && typeof ended.at === 'string') out.ended = { reason: ended.reason.slice(0, 300), at: ended.at };
  // Files of the version before the service (no `version: 2`): closing its window ended its panes.
  if (raw.version !== 2 && !out.ended) out.ended = { reason: 'the app was closed (before this version, closing it ended every pane)', at: out.savedAt };
  return out;
}

/** When this machine last booted. */
export function bootTime(): number {
  return Date.now() - os.uptime() * 1000;
}

/** Why the panes of a saved session are not running any more. */
export function endedReason(saved: SavedSession, bootedAt = bootTime()): { reason: string; at: string } {
  if (saved.ended) return saved.ended;
  const started = saved.service ? Date.parse(saved.service.startedAt) : NaN;
  // The last service started before this boot: the machine restarted under it.
  if (Number.isFinite(started) && started < bootedAt - 1000) return { reason: 'the machine restarted', at: new Date(bootedAt).toISOString() };
  return { reason: 'the service stopped unexpectedly (killed or crashed)', at: saved.savedAt || new Date().toISOString() };
}

/** What would be saved now. */
export function captureSession(panes: PaneService, service?: SavedSession['service']): SavedSession {
  const saved = panes.records().filter((p) => p.kind !== 'tick');
  const keep = new Set(saved.map((p) => p.id));
  const kept = (id: string): boolean => keep.has(id) || isQualifiedPaneId(id);
  const layout = L.prune(panes.layout, kept);
  const focused = panes.focused && kept(panes.focused) ? panes.focused : null;
  const out: SavedSession = { version: 2, session: panes.session, savedAt: new Date().toISOString(), layout, focused, panes: saved };
  if (service) out.service = service;
  return out;
}

/**
 * Put the saved panes back under their ids, ended with why (their processes went with the
 * last service), and the layout with them; then resume what `resumeAtStart` says (plain
 * shells by default: they hold nothing to lose). Panes that had exited on their own come
 * back ended too, saying so.
 */
export function restoreSession(panes: PaneService, saved: SavedSession, resumeAtStart: Settings['resumeAtStart'] = 'shells', bootedAt?: number): void {
  const why = endedReason(saved, bootedAt);
  for (const p of saved.panes) {
    const ended = p.running === false
      ? { reason: `it had exited${p.exitCode !== undefined ? ` (status ${p.exitCode})` : ''} before the service stopped`, at: why.at }
      : why;
    try {
      panes.restoreEnded(p, ended);
    } catch {
      // a pane that cannot come back is left out; the rest come back
    }
  }
  panes.restoreLayout(saved.layout, saved.focused);
  if (resumeAtStart === 'none') return;
  for (const p of saved.panes) {
    if (resumeAtStart === 'shells' && !isShell(p.command)) continue;
    // What the last run left running (a service killed under it) is ended first: never two copies.
    if (stillRunning(p.process).length > 0) {
      panes.resumeAfterLeftover(p.id).catch(() => undefined);
      continue;
    }
    try {
      panes.resume(p.id);
    } catch {
      // its program is gone: it stays ended, saying why when resumed by hand
    }
  }
}

/** Saves the session: at once for urgent changes, debounced for the rest, and at shutdown. */
export class SessionKeeper {
  private timer: NodeJS.Timeout | undefined;
  private readonly off: () => void;
  private readonly panes: PaneService;
  private readonly file: string;
  private readonly debounceMs: number;
  private readonly service: SavedSession['service'];
  private stopped = false;

  constructor(panes: PaneService, file: string, debounceMs = 300, service?: SavedSession['service']) {
    this.panes = panes;
    this.file = file;
    this.debounceMs = debounceMs;
    this.service = service;
    this.off = panes.onChange((urgent) => (urgent ? this.saveNow() : this.schedule()));
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.saveNow();
    }, this.debounceMs);
  }

  saveNow(ended?: SavedSession['ended']): void {
    if (this.stopped) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    try {
      const s = captureSession(this.panes, this.service);
      if (ended) s.ended = ended;
      writeJsonAtomic(this.file, s);
    } catch (err) {
      process.stderr.write(`terminal-delight: could not save the session to ${this.file}: ${(err as Error).message}\n`);
    }
  }

  /**
   * Save once more, saying why the service stops (a clean shutdown), and stop listening:
   * call it before the panes are hung up, so they are recorded as they ran.
   */
  stop(reason = 'the service was stopped'): void {
    if (this.stopped) return;
    this.saveNow({ reason, at: new Date().toISOString() });
    this.stopped = true;
    this.off();
  }
}
