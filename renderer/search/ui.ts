/** Whether the Search everything palette shows (Ctrl+Shift+F). */
import { createStore } from 'zustand/vanilla';
import type { GroupBy } from './group.ts';

export interface SearchUi {
  open: boolean;
  /** Rises each time the palette is asked for (the shortcut while it shows refocuses its field). */
  n: number;
  /** How its results are grouped (kept while the window lives). */
  groupBy: GroupBy;
}

export const searchUi = createStore<SearchUi>()(() => ({ open: false, n: 0, groupBy: 'pane' }));

export function showSearch(): void {
  searchUi.setState((s) => ({ open: true, n: s.n + 1 }));
}

export function hideSearch(): void {
  searchUi.setState({ open: false });
}
