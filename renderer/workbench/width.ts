/** The bench's width, chosen by dragging its edge: clamped, and remembered for the next window. Pure but for storage. */
export const BENCH_WIDTH = { min: 260, max: 900, key: 'td.benchWidth' } as const;

/** The width for a drag: the start width plus how far the edge moved left, within bounds and the pane. */
export function dragWidth(startWidth: number, startX: number, x: number, paneWidth: number): number {
  const max = Math.max(BENCH_WIDTH.min, Math.min(BENCH_WIDTH.max, paneWidth - 200));
  return Math.round(Math.min(max, Math.max(BENCH_WIDTH.min, startWidth + (startX - x))));
}

export function savedWidth(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): number | null {
  try {
    const n = Number(storage?.getItem(BENCH_WIDTH.key));
    return Number.isFinite(n) && n >= BENCH_WIDTH.min && n <= BENCH_WIDTH.max ? n : null;
  } catch {
    return null;
  }
}

export function saveWidth(w: number, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(BENCH_WIDTH.key, String(w));
  } catch {
    // storage unavailable: the width lasts for this window only
  }
}
