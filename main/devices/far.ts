/**
 * The cards of other machines, for the device door's inbox (docs/design/remote.md: the inbox
 * spans every connected machine). Each connected machine's panes (`pane.list`) and their
 * cards (`surface.list`) are read over the home service's control channel when it connects,
 * then kept by the events its service sends there (`surface.changed`, `pane.updated`,
 * `pane.removed`). A machine that is not connected has no cards here: an answer to it
 * could not be sent. What a far service sends is untrusted: only well-formed panes and
 * surfaces are kept, and ids that are not pane ids are dropped.
 */
import type { MachineInfo, PaneInfo, Surface } from '../../preload/contract.ts';
import { qualify } from '../../common/pane-id.ts';
import { cardOf, waitsForPerson, type InboxCard } from './inbox.ts';

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

interface Far {
  colour: string;
  panes: Map<string, PaneInfo>;
  surfaces: Map<string, Surface[]>;
  /** A load in flight, and whether events came meanwhile (another load follows). */
  loading?: Promise<void>;
  again?: boolean;
}

export class FarCards {
  private readonly machines: MachinesLike;
  private readonly changed: () => void;
  private readonly far = new Map<string, Far>();
  private readonly off: () => void;

  constructor(machines: MachinesLike, changed: () => void) {
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
        this.changed();
      }
      return;
    }
    if (had) {
      had.colour = info.colour;
      return;
    }
    const f: Far = { colour: info.colour, panes: new Map(), surfaces: new Map() };
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
    };
    f.loading = run().catch(() => undefined);
    await f.loading;
    f.loading = undefined;
    if (this.far.get(name) !== f) return;
    this.changed();
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
      this.changed();
    } else if (event === 'pane.updated') {
      const p = farPane(payload);
      if (!p) return;
      const known = f.panes.has(p.id);
      f.panes.set(p.id, p);
      if (!known) return void this.load(name, f);
      this.changed();
    } else if (event === 'pane.removed') {
      const paneId = payload.paneId;
      if (!str(paneId, 64) || !f.panes.delete(paneId)) return;
      f.surfaces.delete(paneId);
      this.changed();
    }
  }
}

function listOf(v: unknown): Surface[] {
  return (Array.isArray(v) ? v : []).slice(-MAX_SURFACES).map(farSurface).filter((s): s is Surface => !!s);
}
