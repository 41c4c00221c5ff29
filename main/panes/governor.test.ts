import { describe, expect, it } from 'vitest';
import { OutputGovernor } from './governor.ts';

const BULK = 1000;

/** A governor and a slice in which each named pane wrote `chars` (a flood by default). */
function setup(running = 1) {
  const g = new OutputGovernor({ running, bulkChars: BULK });
  const slice = (writers: Record<string, number> | string[]) => {
    const w = Array.isArray(writers) ? Object.fromEntries(writers.map((id) => [id, BULK])) : writers;
    for (const [id, n] of Object.entries(w)) g.received(id, n);
    return g.slice();
  };
  const paced = (ids: string[]) => ids.filter((id) => g.isPaced(id));
  return { g, slice, paced };
}

describe('OutputGovernor', () => {
  it('never paces one flood alone, nor as many floods as may run at once', () => {
    const one = setup(1);
    for (let i = 0; i < 5; i++) expect(one.slice(['a'])).toEqual({ pace: [], release: [] });
    expect(one.paced(['a'])).toEqual([]);
    const two = setup(2);
    for (let i = 0; i < 5; i++) two.slice(['a', 'b']);
    expect(two.paced(['a', 'b'])).toEqual([]);
  });

  it('never paces a pane that writes little, however many panes flood', () => {
    const { slice, paced } = setup(1);
    for (let i = 0; i < 10; i++) slice({ a: BULK, b: BULK, c: BULK, quiet: BULK - 1 });
    expect(paced(['quiet'])).toEqual([]);
  });

  it('lets the floods read in turns, one at a time, each in its turn', () => {
    const { slice, paced } = setup(1);
    const ids = ['a', 'b', 'c', 'd'];
    expect(slice(ids)).toEqual({ pace: ['b', 'c', 'd'], release: [] });
    const ran: string[] = [];
    for (let i = 0; i < 8; i++) {
      const running = ids.filter((id) => !paced([id]).length);
      expect(running).toHaveLength(1);
      ran.push(running[0]!);
      // Only the pane whose turn it is can write; the paced ones wait.
      slice(running);
    }
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'a', 'b', 'c', 'd']);
  });

  it('says whom it paces and whom it lets go at each slice', () => {
    const { slice } = setup(1);
    slice(['a', 'b', 'c']);
    expect(slice(['a'])).toEqual({ pace: ['a'], release: ['b'] });
    expect(slice(['b'])).toEqual({ pace: ['b'], release: ['c'] });
  });

  it('runs `running` floods at once', () => {
    const { slice, paced } = setup(2);
    slice(['a', 'b', 'c', 'd', 'e']);
    expect(paced(['a', 'b', 'c', 'd', 'e'])).toEqual(['c', 'd', 'e']);
    slice(['a', 'b']);
    expect(paced(['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'b', 'e']);
  });

  it('a paced pane waits only for its turn: one that writes little in its turn leaves the line, and the rest are let go when few are left', () => {
    const { g, slice, paced } = setup(1);
    slice(['a', 'b', 'c']);
    // a's flood ended: in its turn it wrote little.
    slice({ a: 10 });
    expect(paced(['a', 'b', 'c'])).toEqual(['c']);
    // b's flood ended too: c alone is bulk, and nobody waits.
    expect(slice({ b: 10 })).toEqual({ pace: [], release: ['c'] });
    expect(paced(['a', 'b', 'c'])).toEqual([]);
    expect(g.active).toBe(false);
  });

  it('a flood that starts while others take turns joins the back of the line', () => {
    const { slice, paced } = setup(1);
    slice(['a', 'b']);
    expect(paced(['a', 'b'])).toEqual(['b']);
    slice(['a', 'new']);
    expect(paced(['a', 'b', 'new'])).toEqual(['a', 'new']);
    // The line was b, a (a had run); new queued behind them.
    slice(['b']);
    expect(paced(['a', 'b', 'new'])).toEqual(['b', 'new']);
    slice(['a']);
    expect(paced(['a', 'b', 'new'])).toEqual(['a', 'b']);
  });

  it('input lets a paced pane read at once', () => {
    const { g, slice } = setup(1);
    slice(['a', 'b', 'c']);
    expect(g.isPaced('b')).toBe(true);
    expect(g.input('b')).toBe(true);
    expect(g.isPaced('b')).toBe(false);
    expect(g.input('a')).toBe(false);
  });

  it('a pane that closes while paced takes no more turns and holds nobody back', () => {
    const { g, slice, paced } = setup(1);
    slice(['a', 'b']);
    expect(g.remove('b')).toBe(true);
    expect(slice(['a'])).toEqual({ pace: [], release: [] });
    expect(paced(['a', 'b'])).toEqual([]);
    expect(g.remove('gone')).toBe(false);
  });

  it('is idle once no output comes and nobody waits', () => {
    const { g, slice } = setup(1);
    expect(g.active).toBe(false);
    g.received('a', 5);
    expect(g.active).toBe(true);
    slice([]);
    expect(g.active).toBe(false);
  });
});
