import { describe, expect, it } from 'vitest';
import type { Layout } from '../../preload/contract.ts';
import { cyclePane, dragDivider, leafIds, leafRects, neighbour, nodeAt, normalise, withSizes } from './layout.ts';

const p = (paneId: string): Layout => ({ type: 'pane', paneId });
// ┌───┬───┐
// │ a │ b │
// │   ├───┤
// │   │ c │
// └───┴───┘
const abc: Layout = { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [p('a'), { type: 'split', direction: 'column', sizes: [0.5, 0.5], children: [p('b'), p('c')] }] };

describe('leafIds', () => {
  it('lists panes in reading order', () => {
    expect(leafIds(null)).toEqual([]);
    expect(leafIds(p('x'))).toEqual(['x']);
    expect(leafIds(abc)).toEqual(['a', 'b', 'c']);
  });
});

describe('nodeAt / withSizes', () => {
  it('finds nodes by path', () => {
    expect(nodeAt(abc, [])).toBe(abc);
    expect(nodeAt(abc, [1, 0])).toEqual(p('b'));
    expect(nodeAt(abc, [0, 0])).toBeUndefined();
    expect(nodeAt(abc, [5])).toBeUndefined();
  });
  it('replaces sizes immutably, at the root and deeper', () => {
    const root = withSizes(abc, [], [0.3, 0.7]);
    expect(root.type === 'split' && root.sizes).toEqual([0.3, 0.7]);
    expect(abc.type === 'split' && abc.sizes).toEqual([0.5, 0.5]);
    const deep = withSizes(abc, [1], [0.2, 0.8]);
    expect((nodeAt(deep, [1]) as Extract<Layout, { type: 'split' }>).sizes).toEqual([0.2, 0.8]);
    expect((nodeAt(abc, [1]) as Extract<Layout, { type: 'split' }>).sizes).toEqual([0.5, 0.5]);
    expect(nodeAt(deep, [0])).toBe(nodeAt(abc, [0]));
  });
  it('refuses paths that do not lead to a split, or the wrong count', () => {
    expect(() => withSizes(abc, [0], [1])).toThrow(/does not lead to a split/);
    expect(() => withSizes(abc, [7], [1])).toThrow(/does not lead to a split/);
    expect(() => withSizes(abc, [], [1])).toThrow(/one size per child/);
  });
});

describe('normalise', () => {
  it('scales to a sum of 1', () => {
    expect(normalise([1, 3])).toEqual([0.25, 0.75]);
  });
  it('falls back to equal shares on zeros, negatives or NaN', () => {
    expect(normalise([0, 1])).toEqual([0.5, 0.5]);
    expect(normalise([-1, 1, 1])).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(normalise([Number.NaN, 1])).toEqual([0.5, 0.5]);
    expect(normalise([])).toEqual([]);
  });
});

describe('dragDivider', () => {
  it('moves only the two neighbours of the divider', () => {
    const out = dragDivider([0.25, 0.25, 0.5], 1, 0.1);
    expect(out[0]).toBeCloseTo(0.25);
    expect(out[1]).toBeCloseTo(0.35);
    expect(out[2]).toBeCloseTo(0.4);
  });
  it('keeps both sides at or above the minimum', () => {
    expect(dragDivider([0.5, 0.5], 0, -2, 0.1)).toEqual([0.1, 0.9]);
    const r = dragDivider([0.5, 0.5], 0, 2, 0.1);
    expect(r[0]).toBeCloseTo(0.9);
    expect(r[1]).toBeCloseTo(0.1);
  });
  it('ignores a divider that does not exist', () => {
    expect(dragDivider([0.5, 0.5], 1, 0.1)).toEqual([0.5, 0.5]);
    expect(dragDivider([0.5, 0.5], -1, 0.1)).toEqual([0.5, 0.5]);
  });
  it('always sums to 1', () => {
    for (const d of [-0.7, -0.2, 0, 0.13, 0.9]) {
      const s = dragDivider([0.2, 0.3, 0.5], 0, d);
      expect(s.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    }
  });
});

describe('leafRects', () => {
  it('places every pane in the unit square', () => {
    const r = leafRects(abc);
    expect(r.get('a')).toEqual({ x: 0, y: 0, w: 0.5, h: 1 });
    expect(r.get('b')).toEqual({ x: 0.5, y: 0, w: 0.5, h: 0.5 });
    expect(r.get('c')).toEqual({ x: 0.5, y: 0.5, w: 0.5, h: 0.5 });
  });
  it('treats a sizes list of the wrong length as equal shares', () => {
    const bad: Layout = { type: 'split', direction: 'column', sizes: [1], children: [p('a'), p('b')] };
    expect(leafRects(bad).get('b')).toEqual({ x: 0, y: 0.5, w: 1, h: 0.5 });
  });
});

describe('neighbour', () => {
  it('finds panes in each direction', () => {
    expect(neighbour(abc, 'a', 'right')).toBe('b');
    expect(neighbour(abc, 'b', 'left')).toBe('a');
    expect(neighbour(abc, 'c', 'left')).toBe('a');
    expect(neighbour(abc, 'b', 'down')).toBe('c');
    expect(neighbour(abc, 'c', 'up')).toBe('b');
  });
  it('returns nothing at the edges or for unknown panes', () => {
    expect(neighbour(abc, 'a', 'left')).toBeUndefined();
    expect(neighbour(abc, 'a', 'up')).toBeUndefined();
    expect(neighbour(abc, 'b', 'right')).toBeUndefined();
    expect(neighbour(abc, 'zz', 'right')).toBeUndefined();
    expect(neighbour(null, 'a', 'right')).toBeUndefined();
  });
  it('prefers the nearest pane, then the one with most overlap', () => {
    // a | b | c in a row: from a, right is b, not c.
    const row: Layout = { type: 'split', direction: 'row', sizes: [1, 1, 1], children: [p('a'), p('b'), p('c')] };
    expect(neighbour(row, 'a', 'right')).toBe('b');
    expect(neighbour(row, 'c', 'left')).toBe('b');
    // top: x | y (0.7/0.3); bottom: z. From z going up, x overlaps most.
    const t: Layout = { type: 'split', direction: 'column', sizes: [0.5, 0.5], children: [{ type: 'split', direction: 'row', sizes: [0.7, 0.3], children: [p('x'), p('y')] }, p('z')] };
    expect(neighbour(t, 'z', 'up')).toBe('x');
  });
});

describe('cyclePane', () => {
  it('wraps around in reading order', () => {
    expect(cyclePane(abc, 'a', 1)).toBe('b');
    expect(cyclePane(abc, 'c', 1)).toBe('a');
    expect(cyclePane(abc, 'a', -1)).toBe('c');
    expect(cyclePane(abc, null, 1)).toBe('a');
    expect(cyclePane(abc, 'gone', -1)).toBe('a');
    expect(cyclePane(null, 'a', 1)).toBeUndefined();
  });
});
