/**
 * The window's state: a zustand store fed by `app.hello` and the core's events.
 * Every change is a named action (as Excalidraw does); components read with
 * selectors and never set fields directly.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { DEFAULT_SETTINGS, type Layout, type PaneInfo, type Requests, type Settings } from '../../preload/contract.ts';
import { leafIds, withSizes, type LayoutPath } from '../panes/layout.ts';
import type { ThemeName } from '../../common/themes.ts';

export type Hello = Requests['app.hello']['res'];
export type Connection = 'connecting' | 'open' | 'closed';

export { DEFAULT_SETTINGS };

export const FONT_SIZE = { min: 7, max: 40, default: 13 } as const;

export interface WindowState {
  ready: boolean;
  /** A failure to show instead of the panes (for example the first hello failed). */
  error: string | null;
  connection: Connection;
  /** Rises each time the window said hello again (after a reconnect): terminals redraw. */
  epoch: number;
  session: string;
  platform: string;
  shell: 'electron' | 'serve';
  version: string;
  panes: Record<string, PaneInfo>;
  layout: Layout | null;
  focused: string | null;
  settings: Settings;
  systemTheme: ThemeName;
  /** `?theme=light|dark` in the URL wins over settings and the OS. */
  themeOverride: ThemeName | null;
  /** The pane whose find bar is open. */
  findPane: string | null;
  /**
   * Set by a person's own action: the terminal of this pane takes keyboard focus. `taken` once
   * its terminal has taken it (`focusTaken`): a terminal made again later (a layout that moves
   * its pane) does not take the keyboard again from a dialog or field that has it since.
   */
  focusRequest: { paneId: string; n: number; taken?: boolean } | null;
  /** A divider is being dragged: the layout is local until release. */
  dragging: boolean;
  /** Short messages for a person (errors of their own actions, core notifications). */
  notices: Notice[];
  /** settings.json could not be used at start (one sentence from the core), until a setting is saved. */
  settingsProblem: string | null;
}

export interface Notice {
  id: number;
  text: string;
  tone: 'error' | 'info';
}

export interface WindowActions {
  hello(res: Hello): void;
  failed(message: string): void;
  paneUpdated(pane: PaneInfo): void;
  /** Another machine's panes (ids qualified `machine/…`), from its hello: they replace what the store had of it. */
  farPanes(machine: string, panes: PaneInfo[]): void;
  paneRemoved(paneId: string): void;
  layoutChanged(layout: Layout | null, focused: string | null): void;
  settingsChanged(settings: Settings): void;
  /** A setting was saved: settings.json is good again. */
  settingsSaved(): void;
  connectionChanged(c: Connection): void;
  /** Local, while dragging a divider; persisted with `layout.set` on release. */
  resizeSplit(path: LayoutPath, sizes: number[]): void;
  dragStarted(): void;
  dragEnded(): void;
  /** Mark a pane focused; `take` moves keyboard focus to it too (a person asked). */
  focusPane(paneId: string, take: boolean): void;
  /** The terminal of the request numbered `n` has taken the keyboard. */
  focusTaken(n: number): void;
  openFind(paneId: string): void;
  closeFind(): void;
  systemThemeChanged(theme: ThemeName): void;
  setThemeOverride(theme: ThemeName | null): void;
  notice(text: string, tone?: Notice['tone']): number;
  dismissNotice(id: number): void;
}

export type WindowStore = StoreApi<WindowState & WindowActions>;

function pickFocus(layout: Layout | null, focused: string | null, previous: string | null): string | null {
  const ids = leafIds(layout);
  if (focused && ids.includes(focused)) return focused;
  if (previous && ids.includes(previous)) return previous;
  return ids[0] ?? null;
}

export function createWindowStore(initial: Partial<WindowState> = {}): WindowStore {
  let focusCounter = 0;
  let noticeCounter = 0;
  return createStore<WindowState & WindowActions>()((set, get) => ({
    ready: false,
    error: null,
    connection: 'connecting',
    epoch: 0,
    session: '',
    platform: '',
    shell: 'serve',
    version: '',
    panes: {},
    layout: null,
    focused: null,
    settings: DEFAULT_SETTINGS,
    systemTheme: 'dark',
    themeOverride: null,
    findPane: null,
    focusRequest: null,
    dragging: false,
    notices: [],
    settingsProblem: null,
    ...initial,

    hello(res) {
      const panes: Record<string, PaneInfo> = {};
      // Other machines' panes stay until their own hello says otherwise (the home hello lists its own).
      for (const [id, p] of Object.entries(get().panes)) if (id.includes('/')) panes[id] = p;
      for (const p of res.panes) panes[p.id] = p;
      const first = !get().ready;
      const focused = pickFocus(res.layout, res.focused, get().focused);
      set({
        ready: true,
        error: null,
        epoch: get().epoch + (first ? 0 : 1),
        session: res.session,
        platform: res.platform,
        shell: res.shell,
        version: res.version,
        panes,
        layout: res.layout,
        focused,
        settings: { ...DEFAULT_SETTINGS, ...res.settings },
        settingsProblem: res.settingsProblem ?? null,
        focusRequest: first && focused ? { paneId: focused, n: ++focusCounter } : get().focusRequest,
      });
      if (first && res.settingsProblem) get().notice(res.settingsProblem);
    },
    failed(message) {
      set({ error: message });
    },
    paneUpdated(pane) {
      set({ panes: { ...get().panes, [pane.id]: pane } });
    },
    farPanes(machine, list) {
      const prefix = `${machine}/`;
      const panes: Record<string, PaneInfo> = {};
      for (const [id, p] of Object.entries(get().panes)) if (!id.startsWith(prefix)) panes[id] = p;
      for (const p of list) if (p.id.startsWith(prefix)) panes[p.id] = p;
      set({ panes });
    },
    paneRemoved(paneId) {
      const { [paneId]: _gone, ...panes } = get().panes;
      const s = get();
      set({
        panes,
        findPane: s.findPane === paneId ? null : s.findPane,
        focused: s.focused === paneId ? pickFocus(s.layout, null, null) : s.focused,
      });
    },
    layoutChanged(layout, focused) {
      const s = get();
      const next = pickFocus(layout, focused, s.focused);
      set({
        layout,
        focused: next,
        dragging: false,
        findPane: s.findPane && leafIds(layout).includes(s.findPane) ? s.findPane : null,
      });
    },
    settingsChanged(settings) {
      set({ settings: { ...DEFAULT_SETTINGS, ...settings } });
    },
    settingsSaved() {
      set({ settingsProblem: null });
    },
    connectionChanged(connection) {
      set({ connection });
    },
    resizeSplit(path, sizes) {
      const layout = get().layout;
      if (!layout) return;
      set({ layout: withSizes(layout, path, sizes) });
    },
    dragStarted() {
      set({ dragging: true });
    },
    dragEnded() {
      set({ dragging: false });
    },
    focusPane(paneId, take) {
      // The pane may not be in the layout yet (a split answered before its layout event).
      // Focus the person gave a pane themselves (a click in its terminal) ends a request still
      // open for another: that pane's terminal, made again later (a layout that moves it), must
      // not take the keyboard back.
      const open = get().focusRequest;
      set({
        focused: paneId,
        focusRequest: take ? { paneId, n: ++focusCounter } : open && open.paneId !== paneId ? null : open,
      });
    },
    focusTaken(n) {
      const open = get().focusRequest;
      if (open && open.n === n && !open.taken) set({ focusRequest: { ...open, taken: true } });
    },
    openFind(paneId) {
      set({ findPane: paneId });
    },
    closeFind() {
      const paneId = get().findPane;
      set({ findPane: null, focusRequest: paneId ? { paneId, n: ++focusCounter } : get().focusRequest });
    },
    systemThemeChanged(systemTheme) {
      set({ systemTheme });
    },
    setThemeOverride(themeOverride) {
      set({ themeOverride });
    },
    notice(text, tone = 'error') {
      // The same sentence again (each key typed into a pane whose machine is unreachable) is said once.
      const same = get().notices.find((n) => n.text === text && n.tone === tone);
      if (same) return same.id;
      const id = ++noticeCounter;
      // Keep the newest few; a flood of errors must not bury the window.
      set({ notices: [...get().notices, { id, text, tone }].slice(-4) });
      return id;
    },
    dismissNotice(id) {
      set({ notices: get().notices.filter((n) => n.id !== id) });
    },
  }));
}

// ───────────── selectors ─────────────

export function resolvedTheme(s: Pick<WindowState, 'settings' | 'systemTheme' | 'themeOverride'>): ThemeName {
  if (s.themeOverride) return s.themeOverride;
  if (s.settings.theme === 'light' || s.settings.theme === 'dark') return s.settings.theme;
  return s.systemTheme;
}

export function totalUnseen(s: Pick<WindowState, 'panes' | 'layout'>): number {
  let n = 0;
  for (const p of Object.values(s.panes)) n += Math.max(0, p.unseen || 0);
  return n;
}

/** The next font size for a zoom step (+1, -1, or 0 to reset), within bounds. */
export function zoomed(fontSize: number, step: 1 | -1 | 0): number {
  if (step === 0) return FONT_SIZE.default;
  const next = Math.round(fontSize) + step;
  return Math.min(FONT_SIZE.max, Math.max(FONT_SIZE.min, next));
}
