/**
 * Pure functions over the contract's Layout, for the renderer: reading order,
 * divider drags, where each pane sits, and which pane lies in a direction.
 * (The core owns splitting and removing; the renderer only resizes and looks.)
 */
import type { Layout } from '../../preload/contract.ts';
import { leafIds, leafRects, normalise, type Rect } from '../../common/layout.ts';

export { leafIds, leafRects, normalise, type Rect };

export type Direction = 'left' | 'right' | 'up' | 'down';
/** Child indices from the root to a node. */
export type LayoutPath = readonly number[];

export function nodeAt(layout: Layout, path: LayoutPath): Layout | undefined {
  let node: Layout | undefined = layout;
  for (const i of path) {
    if (!node || node.type !== 'split') return undefined;
    node = node.children[i];
  }
  return node;
}

/** A copy of the layout with the split at `path` given new sizes. */
export function withSizes(layout: Layout, path: LayoutPath, sizes: number[]): Layout {
  if (path.length === 0) {
    if (layout.type !== 'split') throw new Error('withSizes: the path does not lead to a split');
    if (sizes.length !== layout.children.length) throw new Error('withSizes: one size per child is needed');
    return { ...layout, sizes: [...sizes] };
  }
  if (layout.type !== 'split') throw new Error('withSizes: the path does not lead to a split');
  const [head, ...rest] = path;
  const child = layout.children[head!];
  if (!child) throw new Error('withSizes: the path does not lead to a split');
  const children = layout.children.slice();
  children[head!] = withSizes(child, rest, sizes);
  return { ...layout, children };
}

/**
 * Move the divider between child `index` and `index + 1` by `delta` (a fraction of
 * the split's length; positive moves it right/down). Only those two children change,
 * and neither goes below `min`.
 */
export function dragDivider(sizes: readonly number[], index: number, delta: number, min = 0.05): number[] {
  const s = normalise(sizes);
  if (index < 0 || index >= s.length - 1) return s;
  const a = s[index]!;
  const b = s[index + 1]!;
  const pair = a + b;
  const lo = Math.min(min, pair / 2);
  const nextA = Math.min(pair - lo, Math.max(lo, a + delta));
  const out = s.slice();
  out[index] = nextA;
  out[index + 1] = pair - nextA;
  return out;
}

const EPS = 1e-6;

/** The pane next to `paneId` in a direction (nearest edge, then most overlap), if any. */
export function neighbour(layout: Layout | null, paneId: string, dir: Direction): string | undefined {
  const rects = leafRects(layout);
  const from = rects.get(paneId);
  if (!from) return undefined;
  let best: { id: string; gap: number; overlap: number } | undefined;
  for (const [id, r] of rects) {
    if (id === paneId) continue;
    let gap: number;
    let overlap: number;
    if (dir === 'left' || dir === 'right') {
      gap = dir === 'right' ? r.x - (from.x + from.w) : from.x - (r.x + r.w);
      overlap = Math.min(from.y + from.h, r.y + r.h) - Math.max(from.y, r.y);
    } else {
      gap = dir === 'down' ? r.y - (from.y + from.h) : from.y - (r.y + r.h);
      overlap = Math.min(from.x + from.w, r.x + r.w) - Math.max(from.x, r.x);
    }
    if (gap < -EPS || overlap <= EPS) continue;
    if (!best || gap < best.gap - EPS || (Math.abs(gap - best.gap) <= EPS && overlap > best.overlap + EPS)) {
      best = { id, gap, overlap };
    }
  }
  return best?.id;
}

/** The next (or previous) pane in reading order, wrapping around. */
export function cyclePane(layout: Layout | null, paneId: string | null, step: 1 | -1): string | undefined {
  const ids = leafIds(layout);
  if (ids.length === 0) return undefined;
  const i = paneId ? ids.indexOf(paneId) : -1;
  if (i < 0) return ids[0];
  return ids[(i + step + ids.length) % ids.length];
}
