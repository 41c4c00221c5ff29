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
