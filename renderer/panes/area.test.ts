import { describe, expect, it } from 'vitest';
import { layoutArea, MIN_COLS, MIN_ROWS } from './area.ts';

describe('layoutArea (issue 35, item 12)', () => {
  it('makes the smallest pane 40 × 8 cells of the measured type, with its chrome and a divider', () => {
    const a = layoutArea(1588.6, 842.2, { cellWidth: 7.8, cellHeight: 17, chromeWidth: 12, chromeHeight: 34 });
    expect(MIN_COLS).toBe(40);
    expect(MIN_ROWS).toBe(8);
    expect(a).toEqual({ width: 1588, height: 842, minWidth: Math.ceil(40 * 7.8 + 12 + 6), minHeight: 8 * 17 + 34 + 6, benchWidth: 220 });
  });
  it('gives a pane whose bench is open room for the bench at its narrowest or its share', () => {
    const big = layoutArea(3000, 2000, { cellWidth: 16, cellHeight: 34, chromeWidth: 12, chromeHeight: 34 });
    // 36% of the pane is the bench: the terminal keeps minWidth of the rest.
    expect(big.benchWidth).toBe(Math.ceil((big.minWidth * 0.36) / 0.64));
    expect(big.benchWidth).toBeGreaterThan(220);
  });
});
