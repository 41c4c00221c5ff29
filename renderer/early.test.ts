import { afterEach, describe, expect, it, vi } from 'vitest';
import { LATER_SCRIPTS_WAIT_MS, STYLESHEETS_WAIT_MS, outputPaneId, snapshotOrder, startScripts, typedInput } from './early.ts';
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

describe('startScripts (the page\'s scripts the door left inert, once the early socket has opened)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * A page as the door serves it (withScriptsLater): its two scripts inert, in order; `started`
   * lists the scripts made live, in order; a script loads (or fails: `failing`) when `settle` is
   * called, as a browser's would after its fetch; `sheet`: one stylesheet still loading.
   */
  function page(opts: { failing?: string; sheet?: boolean } = {}) {
    const started: string[] = [];
    const loading: Array<() => void> = [];
    const inert = (src: string) => ({ dataset: { src } as Record<string, string>, replaceWith: (el: { src: string; on: Map<string, () => void> }) => {
      started.push(el.src);
      loading.push(() => el.on.get(el.src === opts.failing ? 'error' : 'load')?.());
    } });
    const scripts = [inert('./vendor.js'), inert('./main.js')];
    const link = { sheet: null, addEventListener: () => undefined };
    const doc = {
      readyState: 'complete',
      querySelectorAll: (sel: string) => (sel.includes('x-td-later') ? scripts : sel.includes('stylesheet') && opts.sheet ? [link] : []),
      createElement: () => {
        const on = new Map<string, () => void>();
        return { dataset: {}, src: '', async: true, on, addEventListener: (t: string, f: () => void) => on.set(t, f) };
      },
    };
    const socketListeners = new Map<string, Array<() => void>>();
    const socket = { readyState: 0, addEventListener: (t: string, f: () => void) => socketListeners.set(t, [...(socketListeners.get(t) ?? []), f]) };
    const fire = (t: string, state: number) => {
      socket.readyState = state;
      for (const f of socketListeners.get(t) ?? []) f();
    };
    return {
      doc: doc as unknown as Document,
      socket: socket as unknown as WebSocket,
      started,
      settle: () => { while (loading.length) loading.shift()!(); },
      open: () => fire('open', 1),
      close: () => fire('close', 3),
    };
  }

  it('starts them once the socket has opened, the main module only after the vendor script has run, once only', () => {
    vi.useFakeTimers();
    const p = page();
    startScripts(p.doc, p.socket);
    expect(p.started).toEqual([]);
    p.open();
    expect(p.started).toEqual(['./vendor.js']);
    p.settle();
    expect(p.started).toEqual(['./vendor.js', './main.js']);
    p.settle();
    p.close();
    vi.advanceTimersByTime(LATER_SCRIPTS_WAIT_MS * 2);
    p.settle();
    expect(p.started).toEqual(['./vendor.js', './main.js']);
  });

  it('starts them when the socket closes, or LATER_SCRIPTS_WAIT_MS on when it never opens', () => {
    vi.useFakeTimers();
    const closed = page();
    startScripts(closed.doc, closed.socket);
    closed.close();
    closed.settle();
    expect(closed.started).toEqual(['./vendor.js', './main.js']);
    const silent = page();
    startScripts(silent.doc, silent.socket);
    vi.advanceTimersByTime(LATER_SCRIPTS_WAIT_MS - 1);
    expect(silent.started).toEqual([]);
    vi.advanceTimersByTime(1);
    silent.settle();
    expect(silent.started).toEqual(['./vendor.js', './main.js']);
  });

  it('goes on to the main module when the vendor script fails to load (its error is the page\'s to show)', () => {
    const p = page({ failing: './vendor.js' });
    startScripts(p.doc, undefined);
    p.settle();
    expect(p.started).toEqual(['./vendor.js', './main.js']);
  });

  it('starts each script once its preload has come, then through `settled` (keys typed on the first paint echoed first)', () => {
    vi.useFakeTimers();
    const p = page();
    // The vendor script's preload (the link before it, withScriptsLater) still loading.
    const on = new Map<string, () => void>();
    const link = { tagName: 'LINK', rel: 'preload', getAttribute: () => './vendor.js', addEventListener: (t: string, f: () => void) => on.set(t, f) };
    const inert = (p.doc.querySelectorAll('script[type="text/x-td-later"]') as unknown as Array<Record<string, unknown>>)[0]!;
    inert.previousElementSibling = link;
    (p.doc as unknown as { baseURI: string }).baseURI = 'http://127.0.0.1:1/';
    const held: Array<() => void> = [];
    startScripts(p.doc, undefined, LATER_SCRIPTS_WAIT_MS, (go) => held.push(go));
    expect(held).toEqual([]);
    on.get('load')!();
    expect(p.started).toEqual([]);
    held.shift()!();
    expect(p.started).toEqual(['./vendor.js']);
    p.settle();
    expect(p.started).toEqual(['./vendor.js']);
    held.shift()!();
    expect(p.started).toEqual(['./vendor.js', './main.js']);
  });

  it('waits for a stylesheet still loading, but not past STYLESHEETS_WAIT_MS (one that failed before the parse ended says nothing more)', () => {
    vi.useFakeTimers();
    const p = page({ sheet: true });
    startScripts(p.doc, undefined);
    vi.advanceTimersByTime(STYLESHEETS_WAIT_MS - 1);
    expect(p.started).toEqual([]);
    vi.advanceTimersByTime(1);
    p.settle();
    expect(p.started).toEqual(['./vendor.js', './main.js']);
  });
});
