/**
 * The bench's code (its cards and viewers: markdown, syntax highlighting, diffs, the
 * document viewer) is a chunk of its own, so a window's first prompt never waits for it:
 * it loads when a bench first opens, or once the window is idle after its first hello
 * (preloadBench), whichever comes first.
 */
import { lazy } from 'react';

const load = () => import('./Bench.tsx');

export const Bench = lazy(load);

/** Fetch and evaluate the bench's chunk while the window has nothing else to do. */
export function preloadBench(): void {
  const go = () => void load().catch(() => undefined);
  if (typeof requestIdleCallback === 'function') requestIdleCallback(go, { timeout: 3000 });
  else setTimeout(go, 500);
}
