import { describe, expect, it } from 'vitest';
import type { Layout } from '../../preload/contract.ts';
import { containsPane, flatten, focusedLast, fromPaneIds, heir, leaf, neighbour, nextFocus, normaliseSizes, paneIds, prune, removePane, splitPane, validateLayout } from './layout.ts';

const row = (sizes: number[], ...children: Layout[]): Layout => ({ type: 'split', direction: 'row', sizes, children });
const col = (sizes: number[], ...children: Layout[]): Layout => ({ type: 'split', direction: 'column', sizes, children });
const A = leaf('a');
const B = leaf('b');
const C = leaf('c');
const D = leaf('d');

function sumsToOne(l: Layout | null): boolean {
  if (!l || l.type === 'pane') return true;
  const total = l.sizes.reduce((x, y) => x + y, 0);
  return Math.abs(total - 1) < 1e-9 && l.sizes.length === l.children.length && l.children.every(sumsToOne);
}

describe('normaliseSizes', () => {
  it('scales positive sizes to sum to 1', () => {
    expect(normaliseSizes([1, 3], 2)).toEqual([0.25, 0.75]);
    expect(normaliseSizes([0.5, 0.5], 2)).toEqual([0.5, 0.5]);
  });
  it('gives equal shares for unusable input', () => {
    expect(normaliseSizes(undefined, 3)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(normaliseSizes([1], 2)).toEqual([0.5, 0.5]);
    expect(normaliseSizes([1, 0], 2)).toEqual([0.5, 0.5]);
    expect(normaliseSizes([1, -1], 2)).toEqual([0.5, 0.5]);
    expect(normaliseSizes([NaN, 1], 2)).toEqual([0.5, 0.5]);
    expect(normaliseSizes([Infinity, 1], 2)).toEqual([0.5, 0.5]);
    expect(normaliseSizes([], 0)).toEqual([]);
  });
});

describe('paneIds and containsPane', () => {
  it('lists panes in reading order', () => {
    const l = row([0.5, 0.5], col([0.5, 0.5], A, B), row([0.5, 0.5], C, D));
    expect(paneIds(l)).toEqual(['a', 'b', 'c', 'd']);
    expect(paneIds(null)).toEqual([]);
    expect(containsPane(l, 'c')).toBe(true);
    expect(containsPane(l, 'z')).toBe(false);
    expect(containsPane(null, 'a')).toBe(false);
  });
});

describe('splitPane', () => {
  it('makes the first pane the whole layout', () => {
    expect(splitPane(null, undefined, 'a', 'right')).toEqual(A);
    expect(splitPane(null, 'x', 'a', 'down')).toEqual(A);
  });
  it('splits a leaf right into a row and down into a column', () => {
    expect(splitPane(A, 'a', 'b', 'right')).toEqual(row([0.5, 0.5], A, B));
    expect(splitPane(A, 'a', 'b', 'down')).toEqual(col([0.5, 0.5], A, B));
  });
  it('adds a sibling inside a split running the same way, halving the target', () => {
    expect(splitPane(row([0.5, 0.5], A, B), 'a', 'c', 'right')).toEqual(row([0.25, 0.25, 0.5], A, C, B));
    expect(splitPane(row([0.5, 0.5], A, B), 'b', 'c', 'right')).toEqual(row([0.5, 0.25, 0.25], A, B, C));
  });
  it('nests a split running the other way', () => {
    expect(splitPane(row([0.6, 0.4], A, B), 'b', 'c', 'down')).toEqual(row([0.6, 0.4], A, col([0.5, 0.5], B, C)));
  });
  it('splits deep in the tree', () => {
    const l = row([0.5, 0.5], A, col([0.5, 0.5], B, C));
    expect(splitPane(l, 'c', 'd', 'down')).toEqual(row([0.5, 0.5], A, col([0.5, 0.25, 0.25], B, C, D)));
    expect(splitPane(l, 'c', 'd', 'right')).toEqual(row([0.5, 0.5], A, col([0.5, 0.5], B, row([0.5, 0.5], C, D))));
  });
  it('puts a pane whose target is unknown beside the whole layout', () => {
    expect(splitPane(col([0.5, 0.5], A, B), 'zz', 'c', 'right')).toEqual(row([0.5, 0.5], col([0.5, 0.5], A, B), C));
    const r = splitPane(row([0.5, 0.5], A, B), undefined, 'c', 'right');
    expect(paneIds(r)).toEqual(['a', 'b', 'c']);
    expect(r.type === 'split' && r.sizes.map((s) => s.toFixed(4))).toEqual(['0.3333', '0.3333', '0.3333']);
  });
  it('keeps sizes summing to 1 through many splits', () => {
    let l: Layout | null = null;
    const dirs = ['right', 'down', 'down', 'right', 'right', 'down'] as const;
    let last = undefined as string | undefined;
    for (let i = 0; i < 30; i++) {
      const id = `p${i}`;
      l = splitPane(l, last, id, dirs[i % dirs.length]);
      last = i % 3 === 0 ? 'p0' : id;
      expect(sumsToOne(l)).toBe(true);
    }
    expect(paneIds(l)).toHaveLength(30);
  });
});

describe('removePane', () => {
  it('removes the last pane to null', () => {
    expect(removePane(A, 'a')).toBeNull();
    expect(removePane(null, 'a')).toBeNull();
  });
  it('leaves a layout alone when the pane is not in it', () => {
    expect(removePane(row([0.5, 0.5], A, B), 'z')).toEqual(row([0.5, 0.5], A, B));
  });
  it('collapses a two-way split into the survivor', () => {
    expect(removePane(row([0.5, 0.5], A, B), 'a')).toEqual(B);
    expect(removePane(col([0.3, 0.7], A, B), 'b')).toEqual(A);
  });
  it('gives the removed space to the siblings in proportion', () => {
    const r = removePane(row([0.2, 0.3, 0.5], A, B, C), 'a');
    expect(paneIds(r)).toEqual(['b', 'c']);
    expect(r?.type === 'split' && r.sizes[0]).toBeCloseTo(0.375, 12);
    expect(r?.type === 'split' && r.sizes[1]).toBeCloseTo(0.625, 12);
  });
  it('merges a split that becomes one child into a parent running the same way', () => {
    const l = row([0.5, 0.5], A, col([0.5, 0.5], B, row([0.5, 0.5], C, D)));
    // Removing b leaves the inner row (c, d) inside the outer row: they merge.
    expect(removePane(l, 'b')).toEqual(row([0.5, 0.25, 0.25], A, C, D));
  });
  it('re-flows after removing every pane in turn', () => {
    let l: Layout | null = row([0.5, 0.5], col([0.5, 0.5], A, B), row([0.5, 0.5], C, D));
    for (const id of ['c', 'a', 'd']) {
      l = removePane(l, id);
      expect(sumsToOne(l)).toBe(true);
      expect(containsPane(l, id)).toBe(false);
    }
    expect(l).toEqual(B);
  });
});

describe('flatten and prune', () => {
  it('unwraps single-child splits and merges same-direction nesting', () => {
    expect(flatten(row([1], A))).toEqual(A);
    expect(flatten(row([0.5, 0.5], row([0.5, 0.5], A, B), C))).toEqual(row([0.25, 0.25, 0.5], A, B, C));
    expect(flatten(null)).toBeNull();
  });
  it('keeps only accepted panes', () => {
    const l = row([0.5, 0.5], col([0.5, 0.5], A, B), C);
    expect(prune(l, (id) => id !== 'b')).toEqual(row([0.5, 0.5], A, C));
    expect(prune(l, () => false)).toBeNull();
  });
});

describe('fromPaneIds', () => {
  it('lays panes side by side', () => {
    expect(fromPaneIds([])).toBeNull();
    expect(fromPaneIds(['a'])).toEqual(A);
    expect(fromPaneIds(['a', 'b'])).toEqual(row([0.5, 0.5], A, B));
  });
});

describe('neighbour', () => {
  const l = row([0.5, 0.5], col([0.5, 0.5], A, B), C);
  it('moves in reading order and wraps', () => {
    expect(neighbour(l, 'a', 1)).toBe('b');
    expect(neighbour(l, 'b', 1)).toBe('c');
    expect(neighbour(l, 'c', 1)).toBe('a');
    expect(neighbour(l, 'a', -1)).toBe('c');
    expect(neighbour(l, 'b', -1)).toBe('a');
    expect(neighbour(l, 'a', 4)).toBe('b');
  });
  it('falls back to the first pane, or null when empty', () => {
    expect(neighbour(l, 'zz', 1)).toBe('a');
    expect(neighbour(l, null, -1)).toBe('a');
    expect(neighbour(null, 'a', 1)).toBeNull();
    expect(neighbour(A, 'a', 1)).toBe('a');
  });
});

describe('validateLayout', () => {
  const live = (id: string) => ['a', 'b', 'c'].includes(id);
  it('accepts and normalises a good layout', () => {
    const r = validateLayout({ type: 'split', direction: 'row', sizes: [2, 2], children: [A, { type: 'split', direction: 'row', sizes: [1, 1], children: [B, C] }] }, live);
    expect(r).toEqual({ ok: true, layout: row([0.5, 0.25, 0.25], A, B, C) });
  });
  it('fixes missing or bad sizes', () => {
    expect(validateLayout({ type: 'split', direction: 'column', children: [A, B] }, live)).toEqual({ ok: true, layout: col([0.5, 0.5], A, B) });
    expect(validateLayout({ type: 'split', direction: 'column', sizes: ['x', 1], children: [A, B] }, live)).toEqual({ ok: true, layout: col([0.5, 0.5], A, B) });
  });
  it('drops extra fields', () => {
    expect(validateLayout({ type: 'pane', paneId: 'a', evil: true }, live)).toEqual({ ok: true, layout: A });
  });
  const bad: Array<[unknown, RegExp]> = [
    [null, /layout is not an object/],
    [[], /layout is not an object/],
    ['a', /layout is not an object/],
    [{ type: 'pane' }, /has no paneId/],
    [{ type: 'pane', paneId: 'zz' }, /names pane "zz", which does not exist/],
    [{ type: 'split', direction: 'diagonal', children: [A] }, /direction "diagonal".*use "row" or "column"/],
    [{ type: 'split', direction: 'row', children: [] }, /has no children/],
    [{ type: 'split', direction: 'row', children: 'a' }, /has no children/],
    [{ type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [A, A] }, /pane "a" appears twice/],
    [{ type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [A, { type: 'box' }] }, /layout\.children\[1\] has type "box"/],
    [{ type: 'tab' }, /has type "tab": use "pane" or "split"/],
  ];
  for (const [value, msg] of bad) {
    it(`refuses ${JSON.stringify(value)} with one sentence`, () => {
      const r = validateLayout(value, live);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(msg);
        expect(r.error.split('. ').length).toBe(1);
      }
    });
  }
});

describe('where focus goes when the focused pane closes (issue 35, item 10)', () => {
  const l = row([0.5, 0.5], A, col([0.5, 0.5], B, row([0.5, 0.5], C, D)));
  it('keeps the order panes had focus in, the most recent last', () => {
    expect(focusedLast([], 'a')).toEqual(['a']);
    expect(focusedLast(['a', 'b', 'c'], 'a')).toEqual(['b', 'c', 'a']);
  });
  it('names the pane that takes a closed pane\'s place: the sibling before it, else after it', () => {
    expect(heir(l, 'd')).toBe('c');
    expect(heir(l, 'c')).toBe('d');
    expect(heir(l, 'b')).toBe('c');
    expect(heir(l, 'a')).toBe('b');
    expect(heir(A, 'a')).toBeNull();
    expect(heir(l, 'zz')).toBeNull();
  });
  it('goes to the pane focused most recently, else the heir, else the first', () => {
    const after = removePane(l, 'c');
    expect(nextFocus(l, after, 'c', ['a', 'd', 'c'])).toBe('d');
    expect(nextFocus(l, after, 'c', ['d', 'a', 'c'])).toBe('a');
    expect(nextFocus(l, after, 'c', ['c'])).toBe('d');
    expect(nextFocus(l, after, 'c', ['zz'])).toBe('d');
    expect(nextFocus(A, null, 'a', ['a'])).toBeNull();
  });
});
