/** Reading a layout tree, as the renderer and the first paint (drawn by the core) both do. Pure. */
import type { Layout } from '../preload/contract.ts';

/** Pane ids in reading order (depth first, left to right, top to bottom). */
export function leafIds(layout: Layout | null): string[] {
  if (!layout) return [];
  if (layout.type === 'pane') return [layout.paneId];
  return layout.children.flatMap(leafIds);
}

/** Fractions that sum to 1 (equal shares when the input is unusable). */
export function normalise(sizes: readonly number[]): number[] {
  const ok = sizes.length > 0 && sizes.every((s) => Number.isFinite(s) && s > 0);
  if (!ok) return sizes.map(() => 1 / Math.max(1, sizes.length));
  const sum = sizes.reduce((a, b) => a + b, 0);
  return sizes.map((s) => s / sum);
}

export interface Rect { x: number; y: number; w: number; h: number }

/** Where each pane sits in `rect` (a unit square unless given: pixels, cells, any unit). */
export function leafRects(layout: Layout | null, rect: Rect = { x: 0, y: 0, w: 1, h: 1 }, out = new Map<string, Rect>()): Map<string, Rect> {
  if (!layout) return out;
  if (layout.type === 'pane') {
    out.set(layout.paneId, rect);
    return out;
  }
  const sizes = normalise(layout.sizes.length === layout.children.length ? layout.sizes : layout.children.map(() => 1));
  let offset = 0;
  layout.children.forEach((child, i) => {
    const f = sizes[i]!;
    const r = layout.direction === 'row'
      ? { x: rect.x + offset * rect.w, y: rect.y, w: f * rect.w, h: rect.h }
      : { x: rect.x, y: rect.y + offset * rect.h, w: rect.w, h: f * rect.h };
    offset += f;
    leafRects(child, r, out);
  });
  return out;
}
