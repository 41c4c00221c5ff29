/**
 * Pure functions over the window's tiling (the contract's Layout). Leaves are panes;
 * a split shares its space among children by fractions that sum to 1. A `row` split
 * lays children left to right, a `column` split top to bottom. No I/O here.
 */
import type { Layout } from '../../preload/contract.ts';

export type Direction = 'right' | 'down';

const EPSILON = 1e-9;

export function leaf(paneId: string): Layout {
  return { type: 'pane', paneId };
}

/** Every pane id in reading order (left to right, top to bottom, depth first). */
export function paneIds(layout: Layout | null): string[] {
  if (!layout) return [];
  if (layout.type === 'pane') return [layout.paneId];
  return layout.children.flatMap((c) => paneIds(c));
}

export function containsPane(layout: Layout | null, paneId: string): boolean {
  return paneIds(layout).includes(paneId);
}

/**
 * Fractions for `n` children: positive finite values scaled to sum to 1; anything
 * unusable (wrong count, zero, negative, NaN) gives equal shares.
 */
export function normaliseSizes(sizes: readonly number[] | undefined, n: number): number[] {
  if (n <= 0) return [];
  const equal = Array.from({ length: n }, () => 1 / n);
  if (!sizes || sizes.length !== n) return equal;
  if (!sizes.every((s) => typeof s === 'number' && Number.isFinite(s) && s > 0)) return equal;
  const total = sizes.reduce((a, b) => a + b, 0);
  if (!(total > EPSILON)) return equal;
  return sizes.map((s) => s / total);
}

function splitTypeOf(direction: Direction): 'row' | 'column' {
  return direction === 'right' ? 'row' : 'column';
}

/**
 * Put `newId` beside `targetId` (to its right or below it), taking half of the
 * target's space. A target inside a split of the same direction gets a sibling;
 * otherwise the target's leaf becomes a new two-way split. When the layout is empty the
 * new pane is the whole layout; when the target is not in it, the new pane goes beside
 * the whole layout.
 */
export function splitPane(layout: Layout | null, targetId: string | undefined, newId: string, direction: Direction): Layout {
  if (!layout) return leaf(newId);
  const type = splitTypeOf(direction);
  if (targetId === undefined || !containsPane(layout, targetId)) {
    if (layout.type === 'split' && layout.direction === type) {
      const n = layout.children.length + 1;
      const sizes = layout.sizes.map((s) => (s * (n - 1)) / n);
      return { type: 'split', direction: type, sizes: [...sizes, 1 / n], children: [...layout.children, leaf(newId)] };
    }
    return { type: 'split', direction: type, sizes: [0.5, 0.5], children: [layout, leaf(newId)] };
  }
  return splitInside(layout, targetId, newId, type);
}

function splitInside(node: Layout, targetId: string, newId: string, type: 'row' | 'column'): Layout {
  if (node.type === 'pane') {
    if (node.paneId !== targetId) return node;
    return { type: 'split', direction: type, sizes: [0.5, 0.5], children: [node, leaf(newId)] };
  }
  const at = node.children.findIndex((c) => c.type === 'pane' && c.paneId === targetId);
  if (at >= 0 && node.direction === type) {
    const half = node.sizes[at] / 2;
    const children = [...node.children.slice(0, at + 1), leaf(newId), ...node.children.slice(at + 1)];
    const sizes = [...node.sizes.slice(0, at), half, half, ...node.sizes.slice(at + 1)];
    return { type: 'split', direction: node.direction, sizes, children };
  }
  return { ...node, children: node.children.map((c) => splitInside(c, targetId, newId, type)) };
}

/**
 * Take a pane out and re-flow: its space goes to its siblings in proportion, a split
 * left with one child becomes that child, and a child split running the same way as
 * its parent is merged into it. Removing the last pane gives null.
 */
export function removePane(layout: Layout | null, paneId: string): Layout | null {
  if (!layout) return null;
  return flatten(removeInside(layout, paneId));
}

function removeInside(node: Layout, paneId: string): Layout | null {
  if (node.type === 'pane') return node.paneId === paneId ? null : node;
  const children: Layout[] = [];
  const sizes: number[] = [];
  node.children.forEach((c, i) => {
    const kept = removeInside(c, paneId);
    if (kept) {
      children.push(kept);
      sizes.push(node.sizes[i]);
    }
  });
  if (children.length === 0) return null;
  if (children.length === 1) return children[0];
  return { type: 'split', direction: node.direction, sizes: normaliseSizes(sizes, children.length), children };
}

/** Merge child splits that run the same way as their parent; unwrap one-child splits. */
export function flatten(node: Layout | null): Layout | null {
  if (!node || node.type === 'pane') return node;
  const children: Layout[] = [];
  const sizes: number[] = [];
  const own = normaliseSizes(node.sizes, node.children.length);
  node.children.forEach((c, i) => {
    const f = flatten(c);
    if (!f) return;
    if (f.type === 'split' && f.direction === node.direction) {
      f.children.forEach((gc, j) => {
        children.push(gc);
        sizes.push(own[i] * f.sizes[j]);
      });
    } else {
      children.push(f);
      sizes.push(own[i]);
    }
  });
  if (children.length === 0) return null;
  if (children.length === 1) return children[0];
  return { type: 'split', direction: node.direction, sizes: normaliseSizes(sizes, children.length), children };
}

/** Keep only the panes `keep` accepts (for a restored layout whose panes may be gone). */
export function prune(layout: Layout | null, keep: (paneId: string) => boolean): Layout | null {
  let out = layout;
  for (const id of paneIds(layout)) if (!keep(id)) out = removePane(out, id);
  return out;
}

/** A layout of these panes side by side (or the single pane, or null). */
export function fromPaneIds(ids: readonly string[]): Layout | null {
  if (ids.length === 0) return null;
  if (ids.length === 1) return leaf(ids[0]);
  return { type: 'split', direction: 'row', sizes: normaliseSizes(undefined, ids.length), children: ids.map(leaf) };
}

/** The pane `delta` steps from `paneId` in reading order, wrapping; the first pane when it is not found. */
export function neighbour(layout: Layout | null, paneId: string | null | undefined, delta: number): string | null {
  const ids = paneIds(layout);
  if (ids.length === 0) return null;
  const at = paneId == null ? -1 : ids.indexOf(paneId);
  if (at < 0) return ids[0];
  const n = ids.length;
  return ids[(((at + delta) % n) + n) % n];
}

/** `order` (panes by when they last had focus, the most recent last) with `paneId` moved to the end. */
export function focusedLast(order: readonly string[], paneId: string): string[] {
  return [...order.filter((id) => id !== paneId), paneId];
}

/**
 * The pane that takes its place beside `paneId` in `layout`: the nearest pane of the
 * sibling before it (the one after it when it is first), or null when it has none.
 */
export function heir(layout: Layout | null, paneId: string): string | null {
  if (!layout || layout.type === 'pane') return null;
  const at = layout.children.findIndex((c) => c.type === 'pane' && c.paneId === paneId);
  if (at < 0) {
    for (const c of layout.children) {
      const found = heir(c, paneId);
      if (found) return found;
    }
    return null;
  }
  const ids = at > 0 ? paneIds(layout.children[at - 1]!) : paneIds(layout.children[at + 1] ?? null);
  return (at > 0 ? ids[ids.length - 1] : ids[0]) ?? null;
}

/**
 * Where focus goes when the focused pane `gone` leaves `before` (giving `after`): the pane
 * focused most recently among those left (`order`, most recent last), else the pane that
 * takes its place, else the first; null when none is left.
 */
export function nextFocus(before: Layout | null, after: Layout | null, gone: string, order: readonly string[]): string | null {
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!;
    if (id !== gone && containsPane(after, id)) return id;
  }
  const h = heir(before, gone);
  if (h && containsPane(after, h)) return h;
  return paneIds(after)[0] ?? null;
}

/** Splits inside splits, at most (a window never needs more; deeper is refused, not recursed into). */
export const MAX_LAYOUT_DEPTH = 64;

export type LayoutCheck = { ok: true; layout: Layout } | { ok: false; error: string };

/**
 * Check a layout from outside (a window, a saved file) against the live panes: the
 * shape must be right, each leaf a live pane, no pane twice. Sizes are normalised and
 * redundant nesting flattened. Errors are one sentence saying what to fix.
 */
export function validateLayout(value: unknown, isLive: (paneId: string) => boolean): LayoutCheck {
  const seen = new Set<string>();
  const walk = (node: unknown, where: string, depth = 0): Layout | string => {
    if (depth > MAX_LAYOUT_DEPTH) return `layout is nested more than ${MAX_LAYOUT_DEPTH} splits deep: send a flatter layout`;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return `${where} is not an object: send {type:"pane",paneId} or {type:"split",direction,sizes,children}`;
    const n = node as Record<string, unknown>;
    if (n.type === 'pane') {
      if (typeof n.paneId !== 'string' || n.paneId === '') return `${where} has no paneId: give each pane leaf the id of a live pane`;
      if (!isLive(n.paneId)) return `${where} names pane "${n.paneId}", which does not exist: use the ids app.hello or pane.create returned`;
      if (seen.has(n.paneId)) return `pane "${n.paneId}" appears twice in the layout: each pane may appear once`;
      seen.add(n.paneId);
      return leaf(n.paneId);
    }
    if (n.type === 'split') {
      if (n.direction !== 'row' && n.direction !== 'column') return `${where} has direction ${JSON.stringify(n.direction)}: use "row" or "column"`;
      if (!Array.isArray(n.children) || n.children.length === 0) return `${where} has no children: a split needs at least one child`;
      const children: Layout[] = [];
      for (let i = 0; i < n.children.length; i++) {
        const c = walk(n.children[i], `${where}.children[${i}]`, depth + 1);
        if (typeof c === 'string') return c;
        children.push(c);
      }
      const sizes = Array.isArray(n.sizes) ? (n.sizes as unknown[]).map((s) => (typeof s === 'number' ? s : NaN)) : undefined;
      return { type: 'split', direction: n.direction, sizes: normaliseSizes(sizes, children.length), children };
    }
    return `${where} has type ${JSON.stringify(n.type)}: use "pane" or "split"`;
  };
  const out = walk(value, 'layout');
  if (typeof out === 'string') return { ok: false, error: out };
  const flat = flatten(out);
  if (!flat) return { ok: false, error: 'layout is empty: it needs at least one pane' };
  return { ok: true, layout: flat };
}
