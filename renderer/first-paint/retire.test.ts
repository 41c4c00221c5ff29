// The keyboard focus the window asks for while its first paint shows (giveAskedFocus): given to the
// pane's terminal once it has drawn or once the first paint has gone, whichever first, never taken
// from a field the person is in. A page of the least the first paint's retire reads (no DOM here).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Layout, PaneInfo } from '../../preload/contract.ts';
import { createWindowStore, resolvedTheme } from '../store/store.ts';
import { TerminalRegistry } from '../terminal/registry.ts';
import type { TerminalSession } from '../terminal/session.ts';
import { FIRST_PAINT_ID } from '../../common/first-paint.ts';
import { RETIRE_AFTER_MS, retireFirstPaint } from './retire.ts';

afterEach(() => {
  vi.useRealTimers();
});

function pane(id: string): PaneInfo {
  return { id, tag: 'abcd1234', kind: 'shell', title: id, cwd: '/tmp', command: ['bash'], status: 'running', cols: 80, rows: 24, benchOpen: false, unseen: 0 };
}
const row = (...ids: string[]): Layout => ({ type: 'split', direction: 'row', sizes: ids.map(() => 1 / ids.length), children: ids.map((paneId) => ({ type: 'pane', paneId })) });

/** A window of panes a and b, a focused (its hello asked the keyboard for it), its first paint showing both. */
function windowOf() {
  vi.useFakeTimers();
  const store = createWindowStore({ ready: true, panes: { a: pane('a'), b: pane('b') }, layout: row('a', 'b'), focused: 'a', focusRequest: { paneId: 'a', n: 1 } });
  const body = { closest: () => null };
  let shown = true;
  const part = (id: string) => {
    const classes = new Set<string>();
    return { dataset: { firstPaintPane: id }, classList: { add: (c: string) => classes.add(c), contains: (c: string) => classes.has(c) } };
  };
  const parts = [part('a'), part('b')];
  const fp = {
    dataset: { theme: resolvedTheme(store.getState()) },
    querySelector: () => ({ classList: { add: () => {} } }),
    querySelectorAll: () => parts,
    remove: () => { shown = false; },
  };
  const doc = {
    body,
    activeElement: body as unknown,
    getElementById: (id: string) => (id === FIRST_PAINT_ID && shown ? fp : null),
    addEventListener: () => {},
    removeEventListener: () => {},
  };
  const api = { invoke: async () => undefined, on: () => () => {} } as unknown as ConstructorParameters<typeof TerminalRegistry>[0];
  const terminals = new TerminalRegistry(api);
  /** The pane's terminal made and opened into the page (PaneView); its focus puts the keyboard in its .terminal-host. */
  const open = (paneId: string) => {
    const host = { paneId, closest: (sel: string) => (sel === '.terminal-host' ? host : null) };
    terminals.ensure(paneId, () => ({ paneId, focus: () => { doc.activeElement = host; }, dispose: () => {} }) as unknown as TerminalSession);
    terminals.paneOpened(paneId);
  };
  retireFirstPaint(doc as unknown as Document, store, terminals);
  const keyboard = () => (doc.activeElement as { paneId?: string }).paneId ?? (doc.activeElement === body ? 'body' : 'elsewhere');
  return { store, doc, terminals, open, keyboard, shown: () => shown };
}

describe('giveAskedFocus (the keyboard asked for while the first paint shows)', () => {
  it("gives the focused pane's terminal the keyboard when the first paint goes, though its snapshot never came", () => {
    const w = windowOf();
    w.open('a');
    // Not drawn, the first paint there: its part of the first paint takes the keys.
    expect(w.keyboard()).toBe('body');
    vi.advanceTimersByTime(RETIRE_AFTER_MS);
    expect(w.shown()).toBe(false);
    expect(w.keyboard()).toBe('a');
  });

  it('gives it once the terminal has drawn, before the first paint goes', () => {
    const w = windowOf();
    w.open('a');
    w.terminals.paneDrawn('a');
    expect(w.shown()).toBe(true);
    expect(w.keyboard()).toBe('a');
  });

  it("gives it to a pane clicked on the first paint (focusRequest) whose terminal was not made yet: when it draws, or when it opens after the first paint went", () => {
    const w = windowOf();
    w.open('a');
    w.terminals.paneDrawn('a');
    expect(w.keyboard()).toBe('a');
    // A click on b's part: live.ts blurs a's terminal, the window asks the keyboard for b.
    w.doc.activeElement = w.doc.body;
    w.store.getState().focusPane('b', true);
    w.open('b');
    expect(w.keyboard()).toBe('body');
    w.terminals.paneDrawn('b');
    expect(w.keyboard()).toBe('b');

    const later = windowOf();
    later.store.getState().focusPane('b', true);
    vi.advanceTimersByTime(RETIRE_AFTER_MS);
    expect(later.shown()).toBe(false);
    expect(later.keyboard()).toBe('body');
    later.open('b');
    expect(later.keyboard()).toBe('b');
  });

  it('takes the keyboard from no field the person is in', () => {
    const w = windowOf();
    const field = { closest: () => null };
    w.doc.activeElement = field;
    w.open('a');
    w.terminals.paneDrawn('a');
    vi.advanceTimersByTime(RETIRE_AFTER_MS);
    expect(w.doc.activeElement).toBe(field);
  });
});
