import { describe, expect, it } from 'vitest';
import { outputPaneId, snapshotOrder, typedInput } from './early.ts';
import { encodeOutputFrame } from '../main/clients/frames.ts';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'altKey' | 'metaKey' | 'shiftKey' | 'isComposing', boolean>> = {}) =>
  typedInput({ key: k, ctrlKey: false, altKey: false, metaKey: false, shiftKey: false, isComposing: false, ...mods });

describe('typedInput (keys typed on the first paint)', () => {
  it('sends characters as they are, shifted or not, outside the BMP too', () => {
    expect(['a', 'Z', ' ', '$', 'é', '界', '😀'].map((k) => key(k, { shiftKey: k === 'Z' || k === '$' }))).toEqual(['a', 'Z', ' ', '$', 'é', '界', '😀']);
  });

  it('sends the keys a shell line needs as xterm sends them', () => {
    expect(['Enter', 'Backspace', 'Tab', 'Escape', 'ArrowUp', 'ArrowDown', 'ArrowRight', 'ArrowLeft', 'Home', 'End', 'Delete'].map((k) => key(k)))
      .toEqual(['\r', '\x7f', '\t', '\x1b', '\x1b[A', '\x1b[B', '\x1b[C', '\x1b[D', '\x1b[H', '\x1b[F', '\x1b[3~']);
    expect([key('c', { ctrlKey: true }), key('D', { ctrlKey: true }), key('a', { ctrlKey: true })]).toEqual(['\x03', '\x04', '\x01']);
    expect(key('Tab', { shiftKey: true })).toBe('\x1b[Z');
  });

  it('sends the arrows as application cursor keys where the program asked for them', () => {
    const typed = (k: string) => typedInput({ key: k, ctrlKey: false, altKey: false, metaKey: false, shiftKey: false, isComposing: false }, true);
    expect(['ArrowUp', 'ArrowDown', 'ArrowRight', 'ArrowLeft', 'Home', 'Enter'].map(typed)).toEqual(['\x1bOA', '\x1bOB', '\x1bOC', '\x1bOD', '\x1b[H', '\r']);
  });

  it('leaves the app\'s shortcuts, the browser\'s, composition and keys that type nothing alone', () => {
    expect(key('B', { ctrlKey: true, shiftKey: true })).toBeUndefined();
    expect(key('v', { metaKey: true })).toBeUndefined();
    expect(key('x', { altKey: true })).toBeUndefined();
    expect(key('a', { isComposing: true })).toBeUndefined();
    expect(key('1', { ctrlKey: true })).toBeUndefined();
    for (const k of ['Shift', 'Control', 'F5', 'PageUp', 'Dead', 'Unidentified', '\u0007']) expect(key(k), k).toBeUndefined();
  });
});

describe('snapshotOrder (the snapshots the early socket asks for once the hello is answered)', () => {
  const pane = (paneId: string) => ({ type: 'pane', paneId });
  const layout = { type: 'split', direction: 'column', sizes: [0.5, 0.5], children: [pane('a'), { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [pane('b'), pane('far/c')] }, pane('d')] };

  it('the focused pane first, then the others in reading order, this machine\'s only', () => {
    expect(snapshotOrder({ layout, focused: 'b' })).toEqual({ first: 'b', rest: ['a', 'd'] });
    expect(snapshotOrder({ layout, focused: null })).toEqual({ first: 'a', rest: ['b', 'd'] });
  });

  it('asks nothing first for another machine\'s focused pane, an empty layout or an answer of another shape', () => {
    expect(snapshotOrder({ layout, focused: 'far/c' })).toEqual({ first: undefined, rest: ['a', 'b', 'd'] });
    expect(snapshotOrder({ layout: null, focused: null })).toEqual({ first: undefined, rest: [] });
    expect(snapshotOrder({ hello: 'early' })).toEqual({ first: undefined, rest: [] });
    expect(snapshotOrder(null)).toEqual({ first: undefined, rest: [] });
  });
});

describe('outputPaneId (the live first paint hears which pane had output)', () => {
  it('reads the pane id of a binary output frame, and nothing of any other frame', () => {
    expect(outputPaneId(new Uint8Array(encodeOutputFrame('p1abc', 'hello\u001b[0m')))).toBe('p1abc');
    expect(outputPaneId(new Uint8Array([2, 1, 65, 0, 0, 0, 0]))).toBeUndefined();
    expect(outputPaneId(new Uint8Array([1, 9, 65]))).toBeUndefined();
    expect(outputPaneId(new Uint8Array(0))).toBeUndefined();
  });
});
