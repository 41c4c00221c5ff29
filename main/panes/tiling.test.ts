import { describe, expect, it } from 'vitest';
import type { Layout } from '../../preload/contract.ts';
import { leafRects } from '../../common/layout.ts';
import { leaf, paneIds, splitPane } from './layout.ts';
import { DEFAULT_AREA, DEFAULT_MIN, placePane, span, type Placement, type Size } from './tiling.ts';

/** A 1600 × 900 window's panes area. */
const AREA: Size = { width: 1600, height: 860 };

function rects(l: Layout | null, area: Size = AREA) {
  return [...leafRects(l, { x: 0, y: 0, w: area.width, h: area.height }).values()];
}

/** Add `n` panes one by one, each beside the focused (newest) pane, as + Agent and new panes do. */
function addPanes(n: number, opts: Partial<Placement> = {}): Layout {
  let l: Layout = leaf('p0');
  let focused = 'p0';
  for (let i = 1; i <= n; i++) {
    const r = placePane(l, `p${i}`, { area: AREA, min: DEFAULT_MIN, target: focused, ...opts });
    if (!r.ok) throw new Error(r.error);
    l = r.layout;
    focused = `p${i}`;
  }
  return l;
}

function expectUsableAndBalanced(l: Layout, panes: number): void {
  const rs = rects(l);
  expect(rs).toHaveLength(panes);
  for (const r of rs) {
    expect(r.w).toBeGreaterThanOrEqual(DEFAULT_MIN.width);
    expect(r.h).toBeGreaterThanOrEqual(DEFAULT_MIN.height);
  }
  const areas = rs.map((r) => r.w * r.h);
  // Balanced: no pane has more than twice the room of another.
  expect(Math.max(...areas) / Math.min(...areas)).toBeLessThanOrEqual(2 + 1e-9);
  // Together they fill the window.
  expect(areas.reduce((a, b) => a + b, 0)).toBeCloseTo(AREA.width * AREA.height, 3);
}

describe('placePane (issue 35, item 12)', () => {
  it('puts the first pane alone, and the second beside it (side by side in a wide window)', () => {
    expect(placePane(null, 'a', { area: AREA, min: DEFAULT_MIN })).toEqual({ ok: true, layout: leaf('a') });
    const r = placePane(leaf('a'), 'b', { area: AREA, min: DEFAULT_MIN, target: 'a' });
    expect(r).toEqual({ ok: true, layout: { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [leaf('a'), leaf('b')] } });
    // A tall window stacks them.
    const tall = placePane(leaf('a'), 'b', { area: { width: 700, height: 1400 }, min: DEFAULT_MIN, target: 'a' });
    expect(tall.ok && tall.layout.type === 'split' && tall.layout.direction).toBe('column');
  });

  it('after 6 additions in a 1600 × 900 window: every pane at least the minimum, sizes balanced', () => {
    const l = addPanes(6);
    expectUsableAndBalanced(l, 7);
    // Halving the focused pane each time (what it did before) leaves the newest a sliver.
    let halved: Layout = leaf('p0');
    for (let i = 1; i <= 6; i++) halved = splitPane(halved, `p${i - 1}`, `p${i}`, 'right');
    expect(Math.min(...rects(halved).map((r) => r.w))).toBeLessThan(DEFAULT_MIN.width / 10);
  });

  it('after 12 additions in a 1600 × 900 window: every pane at least the minimum, sizes balanced', () => {
    expectUsableAndBalanced(addPanes(12), 13);
  });

  it('fills the window and then refuses, in one sentence, rather than make a pane too small', () => {
    let l: Layout = leaf('p0');
    let n = 1;
    for (;;) {
      const r = placePane(l, `p${n}`, { area: AREA, min: DEFAULT_MIN, target: `p${n - 1}` });
      if (!r.ok) {
        expect(r.error).toMatch(/^there is no room for another pane: each pane keeps at least 40 columns and 8 rows \(340 × 180 px here\), so close a pane or make the window bigger$/);
        break;
      }
      l = r.layout;
      n++;
      expect(n).toBeLessThan(100);
    }
    // 1600 / 340 → 4 across, 860 / 180 → 4 down.
    expect(n).toBe(16);
    for (const r of rects(l)) expect(r.w >= DEFAULT_MIN.width && r.h >= DEFAULT_MIN.height).toBe(true);
  });

  it('takes the best place anyway when asked not to refuse (no window has said its size)', () => {
    const l = addPanes(15);
    const r = placePane(l, 'x', { area: AREA, min: DEFAULT_MIN, target: 'p15', mustFit: false });
    expect(r.ok && paneIds(r.layout)).toHaveLength(17);
  });

  it('keeps the direction a person chose when there is room, sharing the split evenly', () => {
    let l: Layout = leaf('a');
    for (const id of ['b', 'c', 'd']) {
      const r = placePane(l, id, { area: AREA, min: DEFAULT_MIN, target: 'a', direction: 'right' });
      if (!r.ok) throw new Error(r.error);
      l = r.layout;
    }
    expect(l).toEqual({ type: 'split', direction: 'row', sizes: [0.25, 0.25, 0.25, 0.25], children: ['a', 'd', 'c', 'b'].map(leaf) });
    const down = placePane(l, 'e', { area: AREA, min: DEFAULT_MIN, target: 'c', direction: 'down' });
    expect(down.ok && down.layout).toEqual({
      type: 'split', direction: 'row', sizes: [0.25, 0.25, 0.25, 0.25],
      children: [leaf('a'), leaf('d'), { type: 'split', direction: 'column', sizes: [0.5, 0.5], children: [leaf('c'), leaf('e')] }, leaf('b')],
    });
  });

  it('puts the pane elsewhere when the chosen split would be too small', () => {
    // Four columns of 400 px: a fifth across would be 320 px, under the minimum.
    const l: Layout = { type: 'split', direction: 'row', sizes: [0.25, 0.25, 0.25, 0.25], children: ['a', 'b', 'c', 'd'].map(leaf) };
    const r = placePane(l, 'e', { area: AREA, min: DEFAULT_MIN, target: 'b', direction: 'right' });
    if (!r.ok) throw new Error(r.error);
    expect(paneIds(r.layout)).toContain('e');
    for (const x of rects(r.layout)) expect(x.w >= DEFAULT_MIN.width && x.h >= DEFAULT_MIN.height).toBe(true);
    // Beside the pane the person was in: below it.
    expect(r.layout.type === 'split' && r.layout.children[1]).toEqual({ type: 'split', direction: 'column', sizes: [0.5, 0.5], children: [leaf('b'), leaf('e')] });
  });

  it('never shrinks a pane below its own minimum (a pane whose bench is open needs more width)', () => {
    const withBench = (id: string): Size => (id === 'a' ? { width: DEFAULT_MIN.width + 420, height: DEFAULT_MIN.height } : DEFAULT_MIN);
    const l: Layout = { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [leaf('a'), leaf('b')] };
    const r = placePane(l, 'c', { area: AREA, min: withBench, target: 'a', direction: 'right' });
    if (!r.ok) throw new Error(r.error);
    const a = leafRects(r.layout, { x: 0, y: 0, w: AREA.width, h: AREA.height }).get('a')!;
    expect(a.w).toBeGreaterThanOrEqual(DEFAULT_MIN.width + 420);
  });

  it('leaves a pane a person made small as it is, and still places the next one', () => {
    // A divider dragged: 'a' is only 200 px wide; placing elsewhere does not touch it.
    const l: Layout = { type: 'split', direction: 'row', sizes: [0.125, 0.875], children: [leaf('a'), leaf('b')] };
    const r = placePane(l, 'c', { area: AREA, min: DEFAULT_MIN, target: 'a' });
    if (!r.ok) throw new Error(r.error);
    const got = leafRects(r.layout, { x: 0, y: 0, w: AREA.width, h: AREA.height });
    expect(got.get('a')!.w).toBeCloseTo(200, 6);
    expect(got.get('c')!.w).toBeGreaterThanOrEqual(DEFAULT_MIN.width);
  });

  it('counts panes side by side for a split\'s shares', () => {
    const l: Layout = { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [leaf('a'), { type: 'split', direction: 'column', sizes: [0.5, 0.5], children: [leaf('b'), { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [leaf('c'), leaf('d')] }] }] };
    expect(span(l, 'row')).toBe(3);
    expect(span(l, 'column')).toBe(2);
    expect(span(leaf('a'), 'row')).toBe(1);
  });

  it('has defaults for a window that has not said its size: a 1600 × 900 window, 40 × 8 cells', () => {
    expect(DEFAULT_AREA).toEqual(AREA);
    expect(DEFAULT_MIN.width / 40).toBeGreaterThan(7);
    expect(DEFAULT_MIN.height / 8).toBeGreaterThan(16);
  });
});
