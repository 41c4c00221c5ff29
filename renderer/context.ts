/** What every component of the window reaches: the API, the store, the terminals. */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { TdApi } from '../preload/contract.ts';
import type { CommandContext } from './commands.ts';
import type { CommandDeduper } from './dedupe.ts';
import type { WindowActions, WindowState, WindowStore } from './store/store.ts';
import type { TerminalRegistry } from './terminal/registry.ts';
import type { RendererMode } from './terminal/session.ts';

export interface WindowContext extends CommandContext {
  api: TdApi;
  store: WindowStore;
  terminals: TerminalRegistry;
  /** `?renderer=dom|webgl` forces a terminal renderer; 'auto' otherwise. */
  rendererMode: RendererMode;
  openLink(url: string): void;
  /** Drops the second of a keydown and its native-menu accelerator (Electron). */
  dedupe: CommandDeduper;
  /** Stop talking to the core for good (after "Quit and end all panes"): no reconnect. */
  disconnect?: () => void;
}

export const Ctx = createContext<WindowContext | null>(null);

export function useWindow(): WindowContext {
  const c = useContext(Ctx);
  if (!c) throw new Error('useWindow outside the window context');
  return c;
}

export function useWindowState<T>(selector: (s: WindowState & WindowActions) => T): T {
  return useStore(useWindow().store, selector);
}
