import { describe, expect, it } from 'vitest';
import { OutputGovernor } from './governor.ts';

const BULK = 1000;
const HOLD = 20;

/** A governor, and a slice ending at `now` in which each named pane wrote `chars` (a flood by default). */
function setup(running = 1) {
  const g = new OutputGovernor({ running, bulkChars: BULK, holdMs: HOLD });
  let now = 0;
  const slice = (writers: Record<string, number> | string[]) => {
    const w = Array.isArray(writers) ? Object.fromEntries(writers.map((id) => [id, BULK])) : writers;
    for (const [id, n] of Object.entries(w)) g.received(id, n);
    now += 20;
    g.slice(now);
  };
  const paced = (ids: string[]) => ids.filter((id) => g.isPaced(id));
  return { g, slice, paced, now: () => now };
}

describe('OutputGovernor', () => {
  it('never paces one flood alone, nor as many floods as may run at once', () => {
    const one = setup(1);
    for (let i = 0; i < 5; i++) one.slice(['a']);
    expect(one.paced(['a'])).toEqual([]);
    const two = setup(2);
    for (let i = 0; i < 5; i++) two.slice(['a', 'b']);
    expect(two.paced(['a', 'b'])).toEqual([]);
  });

  it('says which panes take turns: every flood while more flood than may run at once, none when one floods alone', () => {
    const { g, slice } = setup(1);
    slice(['a']);
    expect(g.takesTurns('a')).toBe(false);
    slice({ a: BULK, b: BULK, quiet: 10 });
    expect(['a', 'b', 'quiet'].filter((id) => g.takesTurns(id))).toEqual(['a', 'b']);
    // b had its turn and wrote little: it floods no more; a alone is not paced.
    slice({ b: 10 });
    slice({ a: BULK });
    expect(['a', 'b'].filter((id) => g.takesTurns(id))).toEqual([]);
  });

  it('never paces a pane that writes little, however many panes flood', () => {
    const { slice, paced } = setup(1);
    for (let i = 0; i < 10; i++) slice({ a: BULK, b: BULK, c: BULK, quiet: BULK - 1 });
    expect(paced(['quiet'])).toEqual([]);
  });

  it('lets the floods read in turns, one at a time, each in its turn', () => {
    const { slice, paced } = setup(1);
    const ids = ['a', 'b', 'c', 'd'];
    slice(ids);
    expect(paced(ids)).toEqual(['b', 'c', 'd']);
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
    slice({ b: 10 });
    expect(paced(['a', 'b', 'c'])).toEqual([]);
    slice([]);
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
    const { g, slice, now } = setup(1);
    slice(['a', 'b', 'c']);
    expect(g.isPaced('b')).toBe(true);
    expect(g.input('b', now())).toBe(true);
    expect(g.isPaced('b')).toBe(false);
    // The pane whose turn it is reads already.
    expect(g.input('a', now())).toBe(false);
    expect(g.isPaced('a')).toBe(false);
  });

  it('a flood given input takes no turns for inputMs: the rest of its output (the prompt after Ctrl-C) is not held by its turn', () => {
    const g = new OutputGovernor({ running: 1, bulkChars: BULK, holdMs: HOLD, inputMs: 100 });
    const floods = ['a', 'b', 'c', 'd'];
    const slice = (at: number, writers: string[]) => {
      for (const id of writers) g.received(id, BULK);
      g.slice(at);
    };
    slice(20, floods);
    expect(floods.filter((id) => g.isPaced(id))).toEqual(['b', 'c', 'd']);
    expect(g.input('c', 25)).toBe(true);
    expect(g.isPaced('c')).toBe(false);
    expect(g.takesTurns('c')).toBe(false);
    // It writes a flood's worth after the key, slice after slice: still no turns, the others take theirs.
    for (let at = 40; at < 125; at += 20) {
      slice(at, ['c', ...floods.filter((id) => id !== 'c' && !g.isPaced(id))]);
      expect(g.isPaced('c')).toBe(false);
      expect(['a', 'b', 'd'].filter((id) => !g.isPaced(id))).toHaveLength(1);
    }
    // inputMs over and it still floods: it takes turns again, from the back of the line.
    slice(140, ['c', ...floods.filter((id) => id !== 'c' && !g.isPaced(id))]);
    expect(g.takesTurns('c')).toBe(true);
    expect(floods.filter((id) => !g.isPaced(id))).toHaveLength(1);
  });

  it('input to a quiet pane holds every flood until that pane answers', () => {
    const { g, slice, paced, now } = setup(1);
    const floods = ['a', 'b', 'c'];
    slice(floods);
    expect(paced(floods)).toEqual(['b', 'c']);
    expect(g.input('quiet', now())).toBe(true);
    expect(paced(floods)).toEqual(floods);
    expect(g.isPaced('quiet')).toBe(false);
    // Output of another pane does not end it; the quiet pane's answer does.
    expect(g.received('a', 5)).toBe(false);
    expect(g.received('quiet', 1)).toBe(true);
    expect(paced(floods)).toEqual(['b', 'c']);
  });

  it('a hold ends after holdMs when the pane never answers, or when it closes', () => {
    const { g, slice, paced, now } = setup(1);
    const floods = ['a', 'b', 'c'];
    slice(floods);
    g.input('quiet', now());
    // The slice comes before holdMs have passed: still held, whoever's turn it is.
    g.received('a', BULK);
    g.slice(now() + HOLD - 1);
    expect(paced(floods)).toEqual(floods);
    g.received('b', BULK);
    g.slice(now() + HOLD);
    expect(paced(floods)).toHaveLength(2);
    g.input('quiet', now() + HOLD);
    expect(paced(floods)).toEqual(floods);
    expect(g.remove('quiet')).toBe(true);
    expect(paced(floods)).toHaveLength(2);
  });

  it('input never holds a lone flood, nor the floods for input to one of them', () => {
    const lone = setup(1);
    lone.slice(['a']);
    expect(lone.g.input('quiet', lone.now())).toBe(false);
    expect(lone.paced(['a'])).toEqual([]);
    const { g, slice, paced, now } = setup(1);
    slice(['a', 'b', 'c']);
    expect(g.input('a', now())).toBe(false);
    expect(paced(['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('a pane that closes while paced takes no more turns and holds nobody back', () => {
    const { g, slice, paced } = setup(1);
    slice(['a', 'b']);
    expect(g.remove('b')).toBe(true);
    slice(['a']);
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
