import { describe, expect, it } from 'vitest';
import type { PaneInfo } from '../../preload/contract.ts';
import { createWindowStore } from '../store/store.ts';
import { farPanesByMachine, machinesToGreet } from './far-panes.ts';

describe('far panes in the window', () => {
  it('groups the layout\'s far panes by machine, home panes left out', () => {
    expect([...farPanesByMachine(['p1', 'box/a', 'gpu/b', 'box/c'])]).toEqual([['box', ['box/a', 'box/c']], ['gpu', ['gpu/b']]]);
    expect(farPanesByMachine(['p1']).size).toBe(0);
  });

  it('greets a connected machine once, again when a pane of it is unheard of, never one not connected or being asked', () => {
    const by = farPanesByMachine(['box/a', 'gpu/b', 'off/c']);
    const machines = [{ name: 'box', state: 'connected' as const }, { name: 'gpu', state: 'connected' as const }, { name: 'off', state: 'reconnecting' as const }];
    expect(machinesToGreet(by, machines, new Map(), () => false)).toEqual(['box', 'gpu']);
    expect(machinesToGreet(by, machines, new Map([['box', 'done'], ['gpu', 'asking']]), () => true)).toEqual([]);
    expect(machinesToGreet(by, machines, new Map([['box', 'done'], ['gpu', 'done']]), (id) => id !== 'box/a')).toEqual(['box']);
  });

  it('a machine\'s hello replaces its panes in the store, and the home hello keeps them', () => {
    const store = createWindowStore();
    const pane = (id: string): PaneInfo => ({ id, title: id } as PaneInfo);
    store.getState().hello({ session: 's', panes: [pane('p1')], layout: { type: 'pane', paneId: 'p1' }, focused: 'p1', settings: {}, platform: 'linux', shell: 'serve', version: '0', service: { pid: 1, startedAt: '', protocol: 1 } } as never);
    store.getState().farPanes('box', [pane('box/a'), pane('box/b'), pane('gpu/x')]);
    expect(Object.keys(store.getState().panes).sort()).toEqual(['box/a', 'box/b', 'p1']);
    store.getState().farPanes('box', [pane('box/b')]);
    expect(Object.keys(store.getState().panes).sort()).toEqual(['box/b', 'p1']);
    store.getState().hello({ session: 's', panes: [pane('p2')], layout: null, focused: null, settings: {}, platform: 'linux', shell: 'serve', version: '0', service: { pid: 1, startedAt: '', protocol: 1 } } as never);
    expect(Object.keys(store.getState().panes).sort()).toEqual(['box/b', 'p2']);
  });
});
