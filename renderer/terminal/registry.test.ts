// The registry routes output to a pane's terminal, and acknowledges at once what no
// terminal here will draw, so this window never holds a PTY paused.
import { describe, expect, it } from 'vitest';
import type { Events, Req, RequestName, Res, TdApi } from '../../preload/contract.ts';
import { TerminalRegistry } from './registry.ts';
import type { TerminalSession } from './session.ts';

function recordingApi() {
  const acks: Array<{ paneId: string; chars: number }> = [];
  const api: TdApi = {
    async invoke<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
      if (name === 'pane.ack') acks.push(req as { paneId: string; chars: number });
      return undefined as Res<K>;
    },
    on<K extends keyof Events>(_n: K, _h: (p: Events[K]) => void) { return () => {}; },
  };
  return { api, acks };
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
});
