/**
 * The cards of other machines, for the device door's inbox (docs/design/remote.md: the inbox
 * spans every connected machine). Each connected machine's panes (`pane.list`) and their
 * cards (`surface.list`) are read over the home service's control channel when it connects,
 * then kept by the events its service sends there (`surface.changed`, `pane.updated`,
 * `pane.removed`). A machine that is not connected has no cards here: an answer to it
 * could not be sent. What a far service sends is untrusted: only well-formed panes and
 * surfaces are kept, and ids that are not pane ids are dropped.
 *
 * Far agents join the phone's Agents tab the same way: their status from the panes kept
 * here, their last lines from `pane.peek` (read-only: the home service never becomes a
 * reader of a far pane's output, which would then wait for acks it never sends), read when
 * the machine is read, when the pane changes, and every few seconds while a phone is
 * connected (`refreshLines`; at most once a second a pane). A far
 * service too old to know `pane.peek` is told to the phone in one sentence (`peekProblem`).
 */
import type { MachineInfo, PaneInfo, Surface } from '../../preload/contract.ts';
import { qualify } from '../../common/pane-id.ts';
import { agentsOf, cardOf, waitsForPerson, type AgentRow, type InboxCard } from './inbox.ts';
import { PEEK_SCROLLBACK } from '../panes/handlers.ts';

/** What of main/machines the far cards use. */
export interface MachinesLike {
  list(): MachineInfo[];
  ask(machine: string, request: string, req: unknown): Promise<unknown>;
  onControlEvent(listener: (machine: string, name: string, payload: unknown) => void): () => void;
}

const PANE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** At most this many cards a far pane keeps here (a far service keeps 64 a pane). */
const MAX_SURFACES = 64;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown, max = 4096): v is string => typeof v === 'string' && v.length <= max;

/** A far pane as the inbox needs it, checked; undefined when it is not one. */
export function farPane(v: unknown): PaneInfo | undefined {
  if (!isObj(v) || !str(v.id, 64) || !PANE_ID.test(v.id) || !str(v.title) || !str(v.cwd) || !str(v.tag, 64) || !Array.isArray(v.command)) return undefined;
  return v as unknown as PaneInfo;
}

/** A far surface as the inbox needs it, checked; undefined when it is not one. */
export function farSurface(v: unknown): Surface | undefined {
  if (!isObj(v) || !str(v.id, 256) || !str(v.kind, 64) || !str(v.title) || !isObj(v.model) || !str(v.route, 32) || !str(v.arrivedAt, 64) || !str(v.updatedAt, 64) || !Array.isArray(v.acted)) return undefined;
  return v as unknown as Surface;
}

/** A far pane's screen is peeked for its last lines at most this often. */
const LINES_MS = 1000;

/** A far pane's screen as `pane.peek` answers, checked. */
export interface FarScreen {
  text: string;
  data: string;
  cols: number;
  rows: number;
}

/** A peek's answer, checked: undefined when it is not one. */
export function farScreen(v: unknown): FarScreen | undefined {
  if (!isObj(v) || !str(v.text, 4_000_000) || !str(v.data, 16_000_000) || !Number.isInteger(v.cols) || !Number.isInteger(v.rows)) return undefined;
  const cols = v.cols as number;
  const rows = v.rows as number;
  if (cols < 1 || cols > 1000 || rows < 1 || rows > 500) return undefined;
  return { text: v.text, data: v.data, cols, rows };
}

/** Why a far pane's screen could not be read, in one sentence for the phone. */
export function peekProblem(machine: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (/unknown request "pane\.peek"|"pane\.peek" (?:is not available|has no schema)/.test(msg)) {
    return `the machine ${machine} runs an older Terminal Delight that cannot show its terminals on a phone: update it there, then restart its service (terminal-delight machine restart ${machine}).`;
  }
  return `the machine ${machine} could not show this terminal: ${msg.slice(0, 300)}`;
}

interface Far {
  colour: string;
  panes: Map<string, PaneInfo>;
  surfaces: Map<string, Surface[]>;
  /** Each pane's screen text as last peeked, and when it was peeked (ms). */
  texts: Map<string, { text: string; at: number; busy?: boolean; again?: boolean }>;
  /** A load in flight, and whether events came meanwhile (another load follows). */
  loading?: Promise<void>;
  again?: boolean;
}

export class FarCards {
  private readonly machines: MachinesLike;
  /** Cards or agents changed (`agents`: the agents list may have). */
  private readonly changed: (agents: boolean) => void;
  private readonly far = new Map<string, Far>();
  private readonly off: () => void;

  constructor(machines: MachinesLike, changed: (agents: boolean) => void) {
    this.machines = machines;
    this.changed = changed;
    this.off = machines.onControlEvent((m, name, payload) => this.event(m, name, payload));
    for (const info of machines.list()) this.machineChanged(info);
  }

  dispose(): void {
    this.off();
    this.far.clear();
  }

  /** A machine connected (its cards are read), or went (its cards leave the inbox). */
  machineChanged(info: MachineInfo): void {
    const had = this.far.get(info.name);
    if (info.state !== 'connected') {
      if (had) {
        this.far.delete(info.name);
        this.changed(true);
      }
      return;
    }
    if (had) {
      // A new colour (connected again with another): the phone's badges show it.
      if (had.colour !== info.colour) {
        had.colour = info.colour;
        this.changed(true);
      }
      return;
    }
    const f: Far = { colour: info.colour, panes: new Map(), surfaces: new Map(), texts: new Map() };
    this.far.set(info.name, f);
    void this.load(info.name, f);
  }

  /** Every waiting card of every connected machine, its pane id qualified and its machine named. */
  cards(): InboxCard[] {
    const out: InboxCard[] = [];
    for (const [name, f] of this.far) {
      for (const pane of f.panes.values()) {
        const q = { ...pane, id: qualify(name, pane.id) };
        for (const s of f.surfaces.get(pane.id) ?? []) if (waitsForPerson(s)) out.push({ ...cardOf(q, s), machine: name, machineColour: f.colour });
      }
    }
    return out;
  }

  /** Every agent pane of every connected machine, its id qualified and its machine named. */
  agents(): AgentRow[] {
    const out: AgentRow[] = [];
    for (const [name, f] of this.far) {
      const rows = agentsOf([...f.panes.values()], (id) => f.texts.get(id)?.text ?? '');
      for (const r of rows) out.push({ ...r, paneId: qualify(name, r.paneId), machine: name, machineColour: f.colour });
    }
    return out;
  }

  /** Whether this qualified pane is an agent's on a connected machine (and running, with `running`). */
  isAgent(machine: string, local: string, running = false): boolean {
    const f = this.far.get(machine);
    const p = f?.panes.get(local);
    if (!f || !p) return false;
    const row = agentsOf([p], () => '')[0];
    return !!row && (!running || row.status !== 'ended');
  }

  /** A far agent's screen, read-only (pane.peek): its snapshot for the phone, or why not in one sentence. */
  async screen(machine: string, local: string): Promise<FarScreen | { error: string }> {
    if (!this.isAgent(machine, local)) return { error: 'this pane is not an agent\'s, or has closed' };
    try {
      const shot = farScreen(await this.machines.ask(machine, 'pane.peek', { paneId: local, scrollback: PEEK_SCROLLBACK }));
      if (!shot) return { error: `the machine ${machine} sent a screen that is not one: it is not shown` };
      this.keepText(machine, local, shot.text);
      return shot;
    } catch (e) {
      return { error: peekProblem(machine, e) };
    }
  }

  private keepText(machine: string, local: string, text: string): void {
    const f = this.far.get(machine);
    if (!f || !f.panes.has(local)) return;
    const t = f.texts.get(local) ?? { text: '', at: 0 };
    f.texts.set(local, t);
    const was = t.text;
    t.text = text;
    t.at = Date.now();
    if (was !== text) this.changed(true);
  }

  /** Read every far agent's last lines again (a phone is looking: far output does not come here, so it is peeked). */
  refreshLines(): void {
    for (const [name, f] of this.far) for (const id of f.panes.keys()) this.lines(name, f, id);
  }

  /** Peek a far agent's screen for its last lines (one at a time a pane; at most once a second). */
  private lines(name: string, f: Far, paneId: string): void {
    const p = f.panes.get(paneId);
    if (!p || !agentsOf([p], () => '').length) return;
    const t = f.texts.get(paneId) ?? { text: '', at: 0 };
    f.texts.set(paneId, t);
    if (t.busy) {
      t.again = true;
      return;
    }
    t.busy = true;
    const wait = Math.max(0, t.at + LINES_MS - Date.now());
    setTimeout(() => {
      void this.machines.ask(name, 'pane.peek', { paneId, scrollback: 0 }).then((v) => {
        const shot = farScreen(v);
        if (shot && this.far.get(name) === f) this.keepText(name, paneId, shot.text);
      }, () => undefined).finally(() => {
        t.at = Date.now();
        t.busy = false;
        if (t.again && this.far.get(name) === f) {
          t.again = false;
          this.lines(name, f, paneId);
        }
      });
    }, wait).unref();
  }

  private async load(name: string, f: Far): Promise<void> {
    if (f.loading) {
      f.again = true;
      return;
    }
    const run = async (): Promise<void> => {
      const listed = await this.machines.ask(name, 'pane.list', {});
      const panes = (Array.isArray(listed) ? listed : []).slice(0, 1024).map(farPane).filter((p): p is PaneInfo => !!p);
      const surfaces = await Promise.all(panes.map((p) => this.machines.ask(name, 'surface.list', { paneId: p.id }).catch(() => [])));
      if (this.far.get(name) !== f) return;
      f.panes = new Map(panes.map((p) => [p.id, p]));
      f.surfaces = new Map(panes.map((p, i) => [p.id, listOf(surfaces[i])]));
      for (const id of f.texts.keys()) if (!f.panes.has(id)) f.texts.delete(id);
      for (const p of panes) this.lines(name, f, p.id);
    };
    f.loading = run().catch(() => undefined);
    await f.loading;
    f.loading = undefined;
    if (this.far.get(name) !== f) return;
    this.changed(true);
    if (f.again) {
      f.again = false;
      void this.load(name, f);
    }
  }

  private event(name: string, event: string, payload: unknown): void {
    const f = this.far.get(name);
    if (!f || !isObj(payload)) return;
    // Events that come while the machine's cards are read: read them again after.
    if (f.loading && (event === 'surface.changed' || event === 'pane.updated' || event === 'pane.removed')) {
      f.again = true;
      return;
    }
    if (event === 'surface.changed') {
      const paneId = payload.paneId;
      if (!str(paneId, 64) || !PANE_ID.test(paneId)) return;
      if (!f.panes.has(paneId)) return void this.load(name, f);
      let list = f.surfaces.get(paneId) ?? [];
      const s = farSurface(payload.surface);
      if (s) list = [...list.filter((x) => x.id !== s.id), s].slice(-MAX_SURFACES);
      if (str(payload.removedId, 256)) list = list.filter((x) => x.id !== payload.removedId);
      f.surfaces.set(paneId, list);
      this.changed(false);
    } else if (event === 'pane.updated') {
      const p = farPane(payload);
      if (!p) return;
      const known = f.panes.has(p.id);
      f.panes.set(p.id, p);
      if (!known) return void this.load(name, f);
      this.lines(name, f, p.id);
      this.changed(true);
    } else if (event === 'pane.removed') {
      const paneId = payload.paneId;
      if (!str(paneId, 64) || !f.panes.delete(paneId)) return;
      f.surfaces.delete(paneId);
      f.texts.delete(paneId);
      this.changed(true);
    }
  }
}

function listOf(v: unknown): Surface[] {
  return (Array.isArray(v) ? v : []).slice(-MAX_SURFACES).map(farSurface).filter((s): s is Surface => !!s);
}
