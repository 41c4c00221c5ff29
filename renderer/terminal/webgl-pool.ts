/**
 * Which of a window's terminals draw with WebGL (issue 38, item 5). Chromium keeps about 16
 * live WebGL contexts a page and, past that, loses the oldest: a window of 24 panes each with
 * its own WebGL addon would leave some blank (xterm's addon waits 3 s for a lost context to
 * come back before it gives up). So at most `limit` terminals hold a context at once, the ones
 * a person looks at: visible first, then the most recently focused, then the largest; the
 * others draw with xterm's DOM renderer, which always works. A terminal whose context is lost
 * anyway (a GPU reset, another canvas of the page) falls back to the DOM at once and never asks
 * again; its place goes to the next in rank.
 *
 * The ranking is a pure function (`chooseHolders`); the pool only applies it, taking contexts
 * away before it gives any, so the page never holds more than `limit`.
 */

/** How many terminals of a window may hold a WebGL context at once (Chromium's limit is 16; the rest of the page may want some). */
export const WEBGL_POOL_SIZE = 12;

/** What the ranking reads of a terminal, at each rebalance. */
export interface Standing {
  /** Shown in the window (in the layout, with a size, inside the viewport). */
  visible: boolean;
  /** Its area on screen, in CSS pixels (0 when hidden). */
  area: number;
  /** When it last had keyboard focus (performance.now()), 0 if never. */
  focusedAt: number;
  /** It holds a context now (kept over an equal rival: no churn between equals). */
  holds: boolean;
}

/** A terminal that wants WebGL. */
export interface PoolMember {
  standing(): Standing;
  /** Draw with WebGL from now on; false when no context could be made (it stays on the DOM renderer). */
  grant(): boolean;
  /** Back to the DOM renderer, its context given back. */
  revoke(): void;
}

/** Whether `a` ranks before `b`. */
function before(a: Standing, b: Standing): number {
  if (a.visible !== b.visible) return a.visible ? -1 : 1;
  if (a.focusedAt !== b.focusedAt) return b.focusedAt - a.focusedAt;
  if (a.area !== b.area) return b.area - a.area;
  if (a.holds !== b.holds) return a.holds ? -1 : 1;
  return 0;
}

/** The indexes of the standings that hold a context: the first `limit` in rank, hidden ones never. */
export function chooseHolders(standings: readonly Standing[], limit: number): Set<number> {
  const order = standings.map((s, i) => i).filter((i) => standings[i]!.visible && standings[i]!.area > 0);
  order.sort((x, y) => before(standings[x]!, standings[y]!) || x - y);
  return new Set(order.slice(0, Math.max(0, limit)));
}

export class WebglPool {
  readonly limit: number;
  private readonly members = new Set<PoolMember>();
  private readonly holders = new Set<PoolMember>();
  /** Members whose context was lost: they draw with the DOM renderer for good. */
  private readonly refused = new WeakSet<PoolMember>();
  private readonly schedule: (f: () => void) => void;
  private pending = false;

  constructor(limit = WEBGL_POOL_SIZE, schedule: (f: () => void) => void = (f) => requestAnimationFrame(f)) {
    this.limit = limit;
    this.schedule = schedule;
  }

  /** How many terminals draw with WebGL now. */
  get held(): number {
    return this.holders.size;
  }

  holds(m: PoolMember): boolean {
    return this.holders.has(m);
  }

  join(m: PoolMember): void {
    if (this.refused.has(m)) return;
    this.members.add(m);
    this.changed();
  }

  /** The member goes (its terminal is disposed: it gives its context back itself). */
  leave(m: PoolMember): void {
    this.members.delete(m);
    if (this.holders.delete(m)) this.changed();
  }

  /** The member's context was lost and it already draws with the DOM renderer: its place goes to another. */
  lost(m: PoolMember): void {
    this.refused.add(m);
    this.members.delete(m);
    this.holders.delete(m);
    this.changed();
  }

  /** Something the ranking reads changed (a size, focus, the layout): rebalance soon, once. */
  changed(): void {
    if (this.pending) return;
    this.pending = true;
    this.schedule(() => {
      this.pending = false;
      this.rebalance();
    });
  }

  /** Apply the ranking now: take contexts away first, then give. */
  rebalance(): void {
    const list = [...this.members];
    const chosen = chooseHolders(list.map((m) => ({ ...m.standing(), holds: this.holders.has(m) })), this.limit);
    list.forEach((m, i) => {
      if (!chosen.has(i) && this.holders.delete(m)) m.revoke();
    });
    list.forEach((m, i) => {
      if (!chosen.has(i) || this.holders.has(m) || this.holders.size >= this.limit) return;
      if (m.grant()) this.holders.add(m);
      else this.lost(m);
    });
  }
}
