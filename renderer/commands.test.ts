// Commands against a small in-memory core: what each command asks of the core,
// and what it does to the window's store (including failures becoming notices).
import { describe, expect, it } from 'vitest';
import type { Events, Layout, PaneInfo, Req, RequestName, Res, TdApi } from '../preload/contract.ts';
import { runCommand, splitPane, toggleBench, zoom, type CommandContext } from './commands.ts';
import { createWindowStore, DEFAULT_SETTINGS } from './store/store.ts';
import { hideSettings, settingsUi } from './settings/ui.ts';

function pane(id: string, extra: Partial<PaneInfo> = {}): PaneInfo {
  return { id, tag: 'abcd1234', kind: 'shell', title: id, cwd: '/tmp', command: ['bash'], status: 'running', cols: 80, rows: 24, benchOpen: false, unseen: 0, ...extra };
}

function setup(fail: Partial<Record<RequestName, string>> = {}) {
  const calls: Array<[RequestName, unknown]> = [];
  let n = 0;
  const api: TdApi = {
    async invoke<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
      calls.push([name, req]);
      await Promise.resolve();
      if (fail[name]) throw new Error(fail[name]);
      if (name === 'pane.create' || name === 'agent.new') return pane(`new${++n}`) as Res<K>;
      if (name === 'pane.restart') return pane((req as { paneId: string }).paneId) as Res<K>;
      if (name === 'settings.set') return { ...DEFAULT_SETTINGS, ...(req as object) } as Res<K>;
      return undefined as Res<K>;
    },
    on<K extends keyof Events>(_name: K, _h: (p: Events[K]) => void) { return () => {}; },
  };
  const store = createWindowStore();
  const layout: Layout = { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [{ type: 'pane', paneId: 'a' }, { type: 'pane', paneId: 'b' }] };
  store.getState().hello({ session: 's', panes: [pane('a'), pane('b')], layout, focused: 'a', settings: DEFAULT_SETTINGS, platform: 'linux', shell: 'serve', version: '0', service: { pid: 1, startedAt: '', protocol: 1 }, notices: [] });
  const copied: string[] = [];
  const ctx: CommandContext = { api, store, terminal: (id) => ({ copySelection: async () => { copied.push(id); }, pasteFromClipboard: async () => {} }) };
  return { ctx, calls, store, copied };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('commands', () => {
  it('open-settings shows the settings screen (a key, the menu, the gear)', () => {
    hideSettings();
    const before = settingsUi.getState().n;
    runCommand({ api: {} as TdApi, store: createWindowStore(), terminal: () => undefined }, 'open-settings');
    expect(settingsUi.getState()).toEqual({ open: true, n: before + 1 });
    hideSettings();
  });

  it('split asks the core for a pane beside the focused one and focuses it', async () => {
    const { ctx, calls, store } = setup();
    await splitPane(ctx, 'down');
    expect(calls[0]).toEqual(['pane.create', { splitOf: 'a', direction: 'down' }]);
    expect(store.getState().focused).toBe('new1');
    expect(store.getState().focusRequest?.paneId).toBe('new1');
    expect(calls.some(([n, r]) => n === 'pane.focus' && (r as { paneId: string }).paneId === 'new1')).toBe(true);
  });

  it('a failed split becomes one notice saying what failed', async () => {
    const { ctx, store } = setup({ 'pane.create': 'the folder /nope does not exist: pick one that does.' });
    await splitPane(ctx, 'right');
    expect(store.getState().notices.map((x) => x.text)).toEqual(['Splitting the pane failed: the folder /nope does not exist: pick one that does.']);
  });

  it('moves focus by direction and in reading order', async () => {
    const { ctx, store, calls } = setup();
    runCommand(ctx, 'focus-right');
    expect(store.getState().focused).toBe('b');
    runCommand(ctx, 'focus-right');
    expect(store.getState().focused).toBe('b');
    runCommand(ctx, 'focus-next');
    expect(store.getState().focused).toBe('a');
    runCommand(ctx, 'focus-prev');
    expect(store.getState().focused).toBe('b');
    await settle();
    expect(calls.filter(([n]) => n === 'pane.focus').length).toBe(3);
  });

  it('zoom saves the font size through settings.set, within bounds', async () => {
    const { ctx, store, calls } = setup();
    await zoom(ctx, 1);
    expect(store.getState().settings.fontSize).toBe(14);
    expect(calls).toContainEqual(['settings.set', { fontSize: 14 }]);
    await zoom(ctx, 0);
    expect(store.getState().settings.fontSize).toBe(13);
  });

  it('toggles the bench optimistically and rolls back on failure', async () => {
    const ok = setup();
    await toggleBench(ok.ctx, 'b');
    expect(ok.store.getState().panes.b?.benchOpen).toBe(true);
    expect(ok.calls).toContainEqual(['bench.set', { paneId: 'b', open: true }]);
    const bad = setup({ 'bench.set': 'no such pane' });
    await toggleBench(bad.ctx, 'b');
    expect(bad.store.getState().panes.b?.benchOpen).toBe(false);
    expect(bad.store.getState().notices[0]?.text).toMatch(/Opening the bench failed/);
  });

  it('runs close, restart, find and copy for the right pane', async () => {
    const { ctx, calls, store, copied } = setup();
    runCommand(ctx, 'close-pane', 'b');
    runCommand(ctx, 'find');
    expect(store.getState().findPane).toBe('a');
    runCommand(ctx, 'find');
    expect(store.getState().findPane).toBeNull();
    runCommand(ctx, 'copy', 'b');
    await settle();
    expect(calls[0]).toEqual(['pane.close', { paneId: 'b' }]);
    expect(copied).toEqual(['b']);
  });
});
