/** Whether the Usage view shows (title bar button, View menu, Ctrl+Shift+U). */
import { createStore } from 'zustand/vanilla';

export const usageUi = createStore<{ open: boolean }>()(() => ({ open: false }));

export function showUsage(): void {
  usageUi.setState({ open: true });
}

export function hideUsage(): void {
  usageUi.setState({ open: false });
}
