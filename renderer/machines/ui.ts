/**
 * The machines as this window knows them (docs/spec/remote.md): the home service's list,
 * kept by its `machine.changed` events, and whether "+ Machine…" shows.
 */
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { splitPaneId } from '../../common/pane-id.ts';
import type { MachineInfo } from '../../preload/contract.ts';
import type { WindowContext } from '../context.ts';

export const machinesUi = createStore<{
  open: boolean;
  n: number;
  machines: MachineInfo[];
  /** Far panes of the layout their machine's hello did not list (renderer/machines/far-panes.ts): gone there. */
  gone: Record<string, true>;
  /** How many times this window has said hello to each machine: what it shows of that machine's panes loads again. */
  hellos: Record<string, number>;
}>()(() => ({ open: false, n: 0, machines: [], gone: {}, hellos: {} }));

/** This window said hello to a machine again (its link is new): benches of its panes load again. */
export function greeted(name: string): void {
  machinesUi.setState((s) => ({ hellos: { ...s.hellos, [name]: (s.hellos[name] ?? 0) + 1 } }));
}

/** The number of hellos to the machine a pane lives on (0 for a home pane): a dependency for what loads per pane. */
export function useMachineHellos(paneId: string): number {
  return useStore(machinesUi, (s) => {
    const m = splitPaneId(paneId).machine;
    return m === undefined ? 0 : (s.hellos[m] ?? 0);
  });
}

/** Far panes a machine's hello did not list. */
export function markGone(paneIds: readonly string[]): void {
  if (paneIds.length === 0) return;
  machinesUi.setState((s) => ({ gone: { ...s.gone, ...Object.fromEntries(paneIds.map((id) => [id, true as const])) } }));
}

export function showMachineDialog(): void {
  machinesUi.setState((s) => ({ open: true, n: s.n + 1 }));
}

export function hideMachineDialog(): void {
  machinesUi.setState({ open: false });
}

/** One machine's news: replaces its entry (by name), or adds it. */
export function machineChanged(info: MachineInfo): void {
  machinesUi.setState((s) => {
    const at = s.machines.findIndex((m) => m.name === info.name);
    const machines = at < 0 ? [...s.machines, info] : s.machines.map((m, i) => (i === at ? info : m));
    return { machines };
  });
}

/** What a machine's chip says after its name: nothing when connected. */
export function machineStateLabel(m: Pick<MachineInfo, 'state'>): string {
  return m.state === 'connected' ? '' : m.state === 'reconnecting' ? 'reconnecting…' : m.state === 'connecting' ? 'connecting…' : 'unreachable';
}

/** Retry now: the machine tried at once; its answer is its state, a refusal becomes a notice. */
export function retryMachine(ctx: Pick<WindowContext, 'api' | 'store'>, name: string): void {
  ctx.api.invoke('machine.retry', { name }).then(machineChanged, (err: Error) => ctx.store.getState().notice(err.message));
}
