/**
 * The window's far panes (docs/spec/remote.md, "Far panes in the window"): for each machine
 * whose panes are in the layout, once it is connected, the window says hello to its service
 * through the home service (`app.hello {machine, far: true}`), takes its panes into the store
 * (ids qualified) and redraws that machine's terminals from their snapshots. Said again after
 * each reconnect of the machine or of the window, and when a far pane it has not heard of
 * comes into the layout.
 */
import type { MachineInfo, PaneInfo } from '../../preload/contract.ts';
import { splitPaneId } from '../../common/pane-id.ts';
import { leafIds } from '../panes/layout.ts';
import type { WindowContext } from '../context.ts';
import { greeted as saidHello, machinesUi, markGone } from './ui.ts';

/** The machines whose panes the layout holds, each with those pane ids. Pure. */
export function farPanesByMachine(ids: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const id of ids) {
    const { machine } = splitPaneId(id);
    if (machine !== undefined) out.set(machine, [...(out.get(machine) ?? []), id]);
  }
  return out;
}

/** Which machines to say hello to now: connected, with panes in the layout, and not yet said (or a pane of theirs unheard of). Pure. */
export function machinesToGreet(byMachine: Map<string, string[]>, machines: readonly Pick<MachineInfo, 'name' | 'state'>[], greeted: ReadonlyMap<string, 'asking' | 'done'>, known: (paneId: string) => boolean): string[] {
  const out: string[] = [];
  for (const [name, ids] of byMachine) {
    if (machines.find((m) => m.name === name)?.state !== 'connected') continue;
    const g = greeted.get(name);
    if (g === 'asking') continue;
    if (g === undefined || ids.some((id) => !known(id))) out.push(name);
  }
  return out;
}

export function followFarPanes(ctx: Pick<WindowContext, 'api' | 'store' | 'terminals'>): () => void {
  const greeted = new Map<string, 'asking' | 'done'>();
  /** Pane ids a hello was said for and still not heard of: not asked again for them. */
  const missing = new Set<string>();
  const check = (): void => {
    const s = ctx.store.getState();
    if (!s.ready) return;
    const machines = machinesUi.getState().machines;
    // A machine not connected is greeted again once it is (its window channel is new).
    for (const name of [...greeted.keys()]) if (machines.find((m) => m.name === name)?.state !== 'connected') greeted.delete(name);
    const byMachine = farPanesByMachine(leafIds(s.layout));
    for (const name of machinesToGreet(byMachine, machines, greeted, (id) => !!s.panes[id] || missing.has(id))) {
      greeted.set(name, 'asking');
      ctx.api.invoke('app.hello', { machine: name, far: true }).then(
        (res) => {
          if (greeted.get(name) !== 'asking') return;
          greeted.set(name, 'done');
          ctx.store.getState().farPanes(name, res.panes as PaneInfo[]);
          const now = ctx.store.getState().panes;
          const gone = leafIds(ctx.store.getState().layout).filter((id) => splitPaneId(id).machine === name && !now[id]);
          for (const id of gone) missing.add(id);
          markGone(gone);
          saidHello(name);
          for (const t of ctx.terminals.all()) if (splitPaneId(t.paneId).machine === name) void t.sync();
        },
        (err: Error) => {
          if (greeted.get(name) !== 'asking') return;
          greeted.delete(name);
          // Still connected: said once, and asked again a little later (a machine that dropped is asked once it is back).
          if (machinesUi.getState().machines.find((m) => m.name === name)?.state === 'connected') {
            ctx.store.getState().notice(`${name}'s panes could not be read (${err.message}); trying again`);
            setTimeout(check, 2000);
          }
        },
      );
    }
  };
  const offStore = ctx.store.subscribe((s, prev) => {
    // The window said hello again (its own link came back): every machine's channel is new.
    if (s.epoch !== prev.epoch) greeted.clear();
    if (s.layout !== prev.layout || s.epoch !== prev.epoch || s.ready !== prev.ready) check();
  });
  const offMachines = machinesUi.subscribe((s, prev) => {
    if (s.machines !== prev.machines) check();
  });
  check();
  return () => {
    offStore();
    offMachines();
  };
}
