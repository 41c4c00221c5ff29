import { describe, expect, it } from 'vitest';
import { chooseHolders, type PoolMember, type Standing, WebglPool } from './webgl-pool.ts';

const shown = (area: number, focusedAt = 0, holds = false): Standing => ({ visible: true, area, focusedAt, holds });
const hidden: Standing = { visible: false, area: 0, focusedAt: 0, holds: false };

describe('chooseHolders', () => {
  it('takes the visible first, then the most recently focused, then the largest, at most the limit', () => {
    const standings = [shown(100), hidden, shown(400), shown(50, 9), shown(400, 0, true), shown(200, 3)];
    expect([...chooseHolders(standings, 3)].sort()).toEqual([3, 4, 5]);
    expect([...chooseHolders(standings, 10)].sort()).toEqual([0, 2, 3, 4, 5]);
    expect(chooseHolders(standings, 0).size).toBe(0);
  });

  it('never gives a context to a hidden terminal, even with room', () => {
    expect(chooseHolders([hidden, { ...hidden, focusedAt: 5 }], 4).size).toBe(0);
  });

  it('keeps a holder over an equal rival', () => {
    expect([...chooseHolders([shown(10), shown(10, 0, true)], 1)]).toEqual([1]);
  });
});

/** A terminal as the pool sees it: its standing set by the test, what it was told recorded. */
class Term implements PoolMember {
  webgl = false;
  can = true;
  calls: string[] = [];
  s: Standing;
  constructor(s: Standing) {
    this.s = s;
  }
  standing(): Standing {
    return { ...this.s, holds: this.webgl };
  }
  grant(): boolean {
    this.calls.push('grant');
    this.webgl = this.can;
    return this.can;
  }
  revoke(): void {
    this.calls.push('revoke');
    this.webgl = false;
  }
}

/** A pool whose rebalances run when the test says. */
function pool(limit: number): { pool: WebglPool; flush(): void } {
  const queue: Array<() => void> = [];
  const p = new WebglPool(limit, (f) => queue.push(f));
  return { pool: p, flush: () => { while (queue.length) queue.shift()!(); } };
}

describe('WebglPool', () => {
  it('gives at most the limit, and moves contexts to the terminals a person looks at, taking before giving', () => {
    const { pool: p, flush } = pool(2);
    const terms = [new Term(shown(100)), new Term(shown(100)), new Term(shown(100))];
    for (const t of terms) p.join(t);
    flush();
    expect(terms.map((t) => t.webgl)).toEqual([true, true, false]);
    expect(p.held).toBe(2);
    // The third is focused: it takes the place of the lowest in rank.
    let live = 0;
    let most = 0;
    for (const t of terms) {
      const grant = t.grant.bind(t);
      const revoke = t.revoke.bind(t);
      t.grant = () => { const ok = grant(); if (ok) most = Math.max(most, ++live); return ok; };
      t.revoke = () => { live--; revoke(); };
    }
    live = 2;
    terms[2]!.s = shown(100, 5);
    p.changed();
    flush();
    expect(terms.map((t) => t.webgl)).toEqual([true, false, true]);
    expect(most).toBeLessThanOrEqual(2);
    // A hidden one gives its context back.
    terms[0]!.s = hidden;
    p.changed();
    flush();
    expect(terms.map((t) => t.webgl)).toEqual([false, true, true]);
  });

  it('gives a lost context\'s place to the next terminal, and never again to the one that lost it', () => {
    const { pool: p, flush } = pool(1);
    const a = new Term(shown(300));
    const b = new Term(shown(100));
    p.join(a);
    p.join(b);
    flush();
    expect([a.webgl, b.webgl]).toEqual([true, false]);
    a.webgl = false; // it fell back to the DOM itself
    p.lost(a);
    flush();
    expect([a.webgl, b.webgl]).toEqual([false, true]);
    p.join(a);
    p.changed();
    flush();
    expect(a.calls).toEqual(['grant']);
    expect(p.held).toBe(1);
  });

  it('passes over a terminal that cannot make a context', () => {
    const { pool: p, flush } = pool(1);
    const a = new Term(shown(300));
    a.can = false;
    const b = new Term(shown(100));
    p.join(a);
    p.join(b);
    flush();
    expect([a.webgl, b.webgl]).toEqual([false, true]);
    expect(p.holds(b)).toBe(true);
  });

  it('gives a leaving terminal\'s place to another', () => {
    const { pool: p, flush } = pool(1);
    const a = new Term(shown(300));
    const b = new Term(shown(100));
    p.join(a);
    p.join(b);
    flush();
    p.leave(a);
    flush();
    expect(b.webgl).toBe(true);
  });
});
