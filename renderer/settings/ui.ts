/** Whether the settings screen shows (a small store of its own, as the Open Tick dialog has). */
import { createStore } from 'zustand/vanilla';

export const settingsUi = createStore<{ open: boolean; n: number }>()(() => ({ open: false, n: 0 }));

export function showSettings(): void {
  settingsUi.setState((s) => ({ open: true, n: s.n + 1 }));
}

export function hideSettings(): void {
  settingsUi.setState({ open: false });
}
