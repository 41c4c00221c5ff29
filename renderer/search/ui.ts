/** Whether the Search everything palette shows (Ctrl+Shift+F). */
import { createStore } from 'zustand/vanilla';

export interface SearchUi {
  open: boolean;
  /** Rises each time the palette is asked for (the shortcut while it shows refocuses its field). */
  n: number;
}

export const searchUi = createStore<SearchUi>()(() => ({ open: false, n: 0 }));

export function showSearch(): void {
  searchUi.setState((s) => ({ open: true, n: s.n + 1 }));
}

export function hideSearch(): void {
  searchUi.setState({ open: false });
}
