import { describe, expect, it } from 'vitest';
import type { Layout, PaneInfo } from '../../preload/contract.ts';
import { createWindowStore, DEFAULT_SETTINGS, resolvedTheme, totalUnseen, zoomed, type Hello } from './store.ts';

function pane(id: string, extra: Partial<PaneInfo> = {}): PaneInfo {
  return { id, tag: 'abcd1234', kind: 'shell', title: id, cwd: '/tmp', command: ['bash'], status: 'running', cols: 80, rows: 24, benchOpen: false, unseen: 0, ...extra };
}
const leaf = (paneId: string): Layout => ({ type: 'pane', paneId });
const row = (...ids: string[]): Layout => ({ type: 'split', direction: 'row', sizes: ids.map(() => 1 / ids.length), children: ids.map(leaf) });
function hello(extra: Partial<Hello> = {}): Hello {
  return { session: 's1', panes: [pane('a'), pane('b')], layout: row('a', 'b'), focused: 'b', settings: DEFAULT_SETTINGS, platform: 'linux', shell: 'serve', version: '0.1.0', service: { pid: 1, startedAt: '', protocol: 1 }, notices: [], ...extra };
}

describe('window store', () => {
  it('starts empty and becomes ready on hello, asking focus for the focused pane', () => {
    const st = createWindowStore();
    expect(st.getState().ready).toBe(false);
    st.getState().hello(hello());
    const s = st.getState();
    expect(s.ready).toBe(true);
    expect(Object.keys(s.panes)).toEqual(['a', 'b']);
    expect(s.focused).toBe('b');
    expect(s.focusRequest?.paneId).toBe('b');
    expect(s.epoch).toBe(0);
  });

  it('says once, at the first hello, that settings.json could not be used, until a setting is saved', () => {
    const st = createWindowStore();
    const problem = 'settings.json is not JSON (x): it was moved to settings.json.broken-1 and the defaults are in use.';
    st.getState().hello(hello({ settingsProblem: problem }));
    expect(st.getState().settingsProblem).toBe(problem);
    expect(st.getState().notices.map((n) => n.text)).toEqual([problem]);
    st.getState().hello(hello({ settingsProblem: problem }));
    expect(st.getState().notices).toHaveLength(1);
    st.getState().settingsSaved();
    expect(st.getState().settingsProblem).toBeNull();
  });

  it('bumps the epoch on a second hello (a reconnect) and keeps the focus', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    st.getState().focusPane('a', false);
    const req = st.getState().focusRequest;
    st.getState().hello(hello({ focused: null }));
    expect(st.getState().epoch).toBe(1);
    expect(st.getState().focused).toBe('a');
    expect(st.getState().focusRequest).toBe(req);
  });

  it('falls back to the first pane when the focused one is not in the layout', () => {
    const st = createWindowStore();
    st.getState().hello(hello({ focused: 'zz' }));
    expect(st.getState().focused).toBe('a');
    st.getState().layoutChanged(leaf('b'), null);
    expect(st.getState().focused).toBe('b');
    st.getState().layoutChanged(null, null);
    expect(st.getState().focused).toBeNull();
  });

  it('updates and removes panes, closing a find bar on a removed pane', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    st.getState().paneUpdated(pane('a', { status: 'exited', exitCode: 3 }));
    expect(st.getState().panes.a?.exitCode).toBe(3);
    st.getState().openFind('a');
    st.getState().layoutChanged(leaf('b'), 'b');
    st.getState().paneRemoved('a');
    expect(st.getState().panes.a).toBeUndefined();
    expect(st.getState().findPane).toBeNull();
  });

  it('does not steal keyboard focus when the core changes the focused pane', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    const before = st.getState().focusRequest;
    st.getState().layoutChanged(row('a', 'b'), 'a');
    expect(st.getState().focused).toBe('a');
    expect(st.getState().focusRequest).toBe(before);
    st.getState().focusPane('b', true);
    expect(st.getState().focusRequest).toEqual({ paneId: 'b', n: (before?.n ?? 0) + 1 });
  });

  it('ends the focus request of a pane once the person focuses another pane themselves', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    st.getState().focusPane('a', true);
    expect(st.getState().focusRequest?.paneId).toBe('a');
    // A click in b's terminal: a's terminal, made again by a later layout, must not take the keyboard.
    st.getState().focusPane('b', false);
    expect(st.getState().focused).toBe('b');
    expect(st.getState().focusRequest).toBeNull();
    // Focus given to the pane the request is for keeps it.
    st.getState().focusPane('a', true);
    const req = st.getState().focusRequest;
    st.getState().focusPane('a', false);
    expect(st.getState().focusRequest).toBe(req);
  });

  it('spends a focus request once its terminal has taken the keyboard', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    st.getState().focusPane('a', true);
    const req = st.getState().focusRequest!;
    st.getState().focusTaken(req.n + 1);
    expect(st.getState().focusRequest?.taken).toBeUndefined();
    st.getState().focusTaken(req.n);
    expect(st.getState().focusRequest).toEqual({ paneId: 'a', n: req.n, taken: true });
    // A new request is open again.
    st.getState().focusPane('a', true);
    expect(st.getState().focusRequest).toEqual({ paneId: 'a', n: req.n + 1 });
  });

  it('resizes a split locally while dragging', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    st.getState().dragStarted();
    st.getState().resizeSplit([], [0.3, 0.7]);
    const l = st.getState().layout;
    expect(l?.type === 'split' && l.sizes).toEqual([0.3, 0.7]);
    expect(st.getState().dragging).toBe(true);
    st.getState().dragEnded();
    expect(st.getState().dragging).toBe(false);
  });

  it('closing the find bar hands focus back to its terminal', () => {
    const st = createWindowStore();
    st.getState().hello(hello());
    st.getState().openFind('a');
    expect(st.getState().findPane).toBe('a');
    st.getState().closeFind();
    expect(st.getState().findPane).toBeNull();
    expect(st.getState().focusRequest?.paneId).toBe('a');
  });

  it('keeps the newest four notices and dismisses by id', () => {
    const st = createWindowStore();
    const ids = [1, 2, 3, 4, 5].map((i) => st.getState().notice(`n${i}`));
    expect(st.getState().notices.map((n) => n.text)).toEqual(['n2', 'n3', 'n4', 'n5']);
    st.getState().dismissNotice(ids[2]!);
    expect(st.getState().notices.map((n) => n.text)).toEqual(['n2', 'n4', 'n5']);
  });
});

describe('selectors', () => {
  it('resolves the theme: URL override, then settings, then the OS', () => {
    expect(resolvedTheme({ settings: DEFAULT_SETTINGS, systemTheme: 'light', themeOverride: null })).toBe('light');
    expect(resolvedTheme({ settings: { ...DEFAULT_SETTINGS, theme: 'dark' }, systemTheme: 'light', themeOverride: null })).toBe('dark');
    expect(resolvedTheme({ settings: { ...DEFAULT_SETTINGS, theme: 'dark' }, systemTheme: 'light', themeOverride: 'light' })).toBe('light');
  });
  it('sums unseen surfaces across panes', () => {
    expect(totalUnseen({ panes: { a: pane('a', { unseen: 2 }), b: pane('b', { unseen: 5 }) }, layout: null })).toBe(7);
    expect(totalUnseen({ panes: {}, layout: null })).toBe(0);
  });
  it('zooms within bounds and resets to the default', () => {
    expect(zoomed(13, 1)).toBe(14);
    expect(zoomed(13, -1)).toBe(12);
    expect(zoomed(40, 1)).toBe(40);
    expect(zoomed(7, -1)).toBe(7);
    expect(zoomed(20, 0)).toBe(13);
  });
});
