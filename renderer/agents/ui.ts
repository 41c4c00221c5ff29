/** Window-level UI state of the agents' pieces: whether the Open Tick dialog shows. */
import { createStore } from 'zustand/vanilla';

/** Desktop notification permission (the Notification API's, or 'unsupported'). */
export type Permission = 'granted' | 'denied' | 'default' | 'unsupported';

export interface AgentsUi {
  openTick: boolean;
  /** Rises each time the dialog is asked for (a shortcut while it shows refocuses it). */
  openTickN: number;
  /** Desktop notification permission as last seen (updated when a person enables them). */
  permission: Permission;
}

export const agentsUi = createStore<AgentsUi>()(() => ({
  openTick: false,
  openTickN: 0,
  permission: typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
}));

export function showOpenTick(): void {
  agentsUi.setState((s) => ({ openTick: true, openTickN: s.openTickN + 1 }));
}

export function hideOpenTick(): void {
  agentsUi.setState({ openTick: false });
}
