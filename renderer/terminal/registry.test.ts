// The registry routes output to a pane's terminal, and acknowledges at once what no
// terminal here will draw, so this window never holds a PTY paused.
import { describe, expect, it, vi } from 'vitest';
import type { Events, Req, RequestName, Res, TdApi } from '../../preload/contract.ts';
import { FRAME_WAIT_MS } from '../after-frame.ts';
import { OPEN_REST_AFTER_MS, TerminalRegistry } from './registry.ts';
import type { TerminalSession } from './session.ts';

function recordingApi() {
  const acks: Array<{ paneId: string; chars: number }> = [];
  const asked: string[] = [];
  const api: TdApi = {
    async invoke<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
      if (name === 'pane.ack') acks.push(req as { paneId: string; chars: number });
      asked.push(`${name} ${JSON.stringify(req)}`);
      if (name === 'pane.snapshot') return { data: 'td$ ', cols: 80, rows: 24, complete: true } as Res<K>;
      return undefined as Res<K>;
    },
    on<K extends keyof Events>(_n: K, _h: (p: Events[K]) => void) { return () => {}; },
  };
  return { api, acks, asked };
}

function session(paneId: string) {
  const got: string[] = [];
  let disposed = false;
  const s = { paneId, output: (d: string) => got.push(d), dispose: () => { disposed = true; } };
  return { s: s as unknown as TerminalSession, got, disposed: () => disposed };
}

describe('TerminalRegistry', () => {
  it('acknowledges output of a pane it does not draw, at once', () => {
    const { api, acks } = recordingApi();
    const r = new TerminalRegistry(api);
    r.output('hidden', 'x'.repeat(10));
    r.output('hidden', 'y'.repeat(7));
    expect(acks).toEqual([{ paneId: 'hidden', chars: 10 }, { paneId: 'hidden', chars: 7 }]);
  });

  it("hands output to the pane's terminal once there is one", () => {
    const { api, acks } = recordingApi();
    const r = new TerminalRegistry(api);
    const a = session('a');
    expect(r.ensure('a', () => a.s)).toBe(a.s);
    expect(r.ensure('a', () => { throw new Error('made twice'); })).toBe(a.s);
    r.output('a', 'hello');
    expect(a.got).toEqual(['hello']);
    expect(acks).toEqual([]);
  });

  it('keeps only the panes still shown, and drops removed ones', () => {
    const { api } = recordingApi();
    const r = new TerminalRegistry(api);
    const a = session('a');
    const b = session('b');
    r.ensure('a', () => a.s);
    r.ensure('b', () => b.s);
    r.keepOnly(['b']);
    expect(a.disposed()).toBe(true);
    expect(r.get('a')).toBeUndefined();
    expect(r.all()).toEqual([b.s]);
    r.removed('b');
    expect(b.disposed()).toBe(true);
    expect(r.all()).toEqual([]);
  });

  it('asks for a pane\'s snapshot before its terminal is made, once, and counts the output that came since', async () => {
    const { api, acks, asked } = recordingApi();
    const r = new TerminalRegistry(api);
    r.prefetch('a');
    r.prefetch('a');
    expect(asked).toEqual(['pane.snapshot {"paneId":"a"}']);
    // Output before the terminal exists: still acknowledged at once, and counted against the snapshot.
    r.output('a', 'x'.repeat(5));
    r.output('b', 'y'.repeat(3));
    expect(acks).toEqual([{ paneId: 'a', chars: 5 }, { paneId: 'b', chars: 3 }]);
    const pre = r.takePrefetched('a');
    expect(pre?.dropped).toBe(5);
    expect(await pre?.answer).toEqual({ data: 'td$ ', cols: 80, rows: 24, complete: true });
    expect(r.takePrefetched('a')).toBeUndefined();
    // A pane with a terminal already draws from its own snapshots; one no longer shown forgets its prefetch.
    r.ensure('c', () => session('c').s);
    r.prefetch('c');
    r.prefetch('d');
    r.keepOnly(['c']);
    expect(r.takePrefetched('c')).toBeUndefined();
    expect(r.takePrefetched('d')).toBeUndefined();
    expect(asked.filter((a) => a.startsWith('pane.snapshot'))).toHaveLength(2);
  });

  it('keeps output after a prefetched answer for its terminal, and forgets a failed ask: nothing kept, the next hello asks again', async () => {
    const { api, asked } = recordingApi();
    let fail = true;
    const failing: TdApi = { ...api, invoke: ((name: RequestName, req: unknown) => (name === 'pane.snapshot' && fail ? (asked.push(`${name} ${JSON.stringify(req)}`), Promise.reject(new Error('the socket closed'))) : api.invoke(name, req as never))) as TdApi['invoke'] };
    const r = new TerminalRegistry(failing);
    expect(await r.prefetch('a')).toBeUndefined();
    // After the failure: the terminal's own snapshot will hold this, so none of it is kept to write after.
    r.output('a', 'prompt again');
    expect(r.takePrefetched('a')).toBeUndefined();
    fail = false;
    await r.prefetch('a');
    expect(asked.filter((a) => a.startsWith('pane.snapshot'))).toHaveLength(2);
    r.output('a', 'after the answer');
    expect(r.takePrefetched('a')?.after).toEqual(['after the answer']);
  });

  it('opens the first pane\'s terminal at once and the others once it has drawn (the task after that frame); a pane view gone is not opened', async () => {
    const { api } = recordingApi();
    const r = new TerminalRegistry(api);
    const opened: string[] = [];
    const open = (id: string) => () => { opened.push(id); };
    r.opening('b', false, open('b'));
    const cancelC = r.opening('c', false, open('c'));
    r.opening('d', false, open('d'));
    r.opening('a', true, open('a'));
    expect(opened).toEqual(['a']);
    expect(r.waitsToOpen('b')).toBe(true);
    cancelC();
    r.paneDrawn('a');
    // Not in the frame that draws the first pane: its rows are painted before the rest are made.
    expect(opened).toEqual(['a']);
    await vi.waitFor(() => expect(opened).toEqual(['a', 'b', 'd']));
    // From then on, every terminal opens at once.
    r.opening('e', false, open('e'));
    expect(opened).toEqual(['a', 'b', 'd', 'e']);
  });

  it(`opens the others after ${OPEN_REST_AFTER_MS} ms when the first pane never draws (an ended pane)`, () => {
    vi.useFakeTimers();
    try {
      const { api } = recordingApi();
      const r = new TerminalRegistry(api);
      const opened: string[] = [];
      r.opening('a', true, () => { opened.push('a'); });
      r.opening('b', false, () => { opened.push('b'); });
      vi.advanceTimersByTime(OPEN_REST_AFTER_MS - 1);
      expect(opened).toEqual(['a']);
      vi.advanceTimersByTime(1);
      expect(opened).toEqual(['a', 'b']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('opens the waiting terminals, then measures them all at once (one layout of the page for all), then starts them; a view gone before its turn is not opened', async () => {
    const { api } = recordingApi();
    const r = new TerminalRegistry(api);
    const steps: string[] = [];
    const terminal = (id: string) => (start: boolean) => {
      steps.push(`open ${id}${start ? ' and start' : ''}`);
      return { measureFit: () => { steps.push(`measure ${id}`); }, start: () => { steps.push(`start ${id}`); } };
    };
    r.opening('a', true, terminal('a'));
    r.opening('b', false, terminal('b'));
    r.opening('c', false, terminal('c'));
    const cancelD = r.opening('d', false, terminal('d'));
    r.paneDrawn('a');
    cancelD();
    await vi.waitFor(() => expect(steps).toEqual(['open a and start', 'open b', 'open c', 'measure b', 'measure c', 'start b', 'start c']));
  });
  it('opens the first pane\'s terminal after the frame when the first paint shows it (a task of its own), not when its view is cancelled first', () => {
    vi.useFakeTimers();
    try {
      const { api } = recordingApi();
      const r = new TerminalRegistry(api);
      const opened: string[] = [];
      r.opening('a', 'after-frame', (start) => { opened.push(`a${start ? ' and start' : ''}`); });
      r.opening('b', false, () => { opened.push('b'); });
      // Not in the task of the commit that made its view.
      expect(opened).toEqual([]);
      // No frame here (no requestAnimationFrame in the test's page): at the latest FRAME_WAIT_MS on.
      vi.advanceTimersByTime(FRAME_WAIT_MS);
      expect(opened).toEqual(['a and start']);
      expect(r.waitsToOpen('b')).toBe(true);
      const r2 = new TerminalRegistry(api);
      const cancel = r2.opening('c', 'after-frame', () => { opened.push('c'); });
      cancel();
      vi.advanceTimersByTime(FRAME_WAIT_MS);
      expect(opened).toEqual(['a and start']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('opens the first pane\'s terminal after the frame only once its gate lets it (keys typed on the first paint have their echo drawn there), not when its view went meanwhile', () => {
    vi.useFakeTimers();
    try {
      const { api } = recordingApi();
      const r = new TerminalRegistry(api);
      const held: Array<() => void> = [];
      r.firstOpenGate = (go) => void held.push(go);
      const opened: string[] = [];
      r.opening('a', 'after-frame', (start) => { opened.push(`a${start ? ' and start' : ''}`); });
      vi.advanceTimersByTime(FRAME_WAIT_MS);
      // The frame is out, but keys typed on the first paint still wait for their echo there.
      expect(held).toHaveLength(1);
      expect(opened).toEqual([]);
      held.shift()!();
      expect(opened).toEqual(['a and start']);
      // A view gone while its terminal waited at the gate is not opened.
      const r2 = new TerminalRegistry(api);
      r2.firstOpenGate = (go) => void held.push(go);
      const cancel = r2.opening('c', 'after-frame', () => { opened.push('c'); });
      vi.advanceTimersByTime(FRAME_WAIT_MS);
      cancel();
      held.shift()!();
      expect(opened).toEqual(['a and start']);
      // With nothing typed the gate lets it go in the same task (the default: early.ts whenFirstPaintTypingSettled).
      const r3 = new TerminalRegistry(api);
      r3.opening('d', 'after-frame', () => { opened.push('d'); });
      vi.advanceTimersByTime(FRAME_WAIT_MS);
      expect(opened).toEqual(['a and start', 'd']);
    } finally {
      vi.useRealTimers();
    }
  });
});
