/**
 * What the core needs to place new panes where there is room (main/panes/tiling.ts): the
 * window's panes area and the smallest usable pane, 40 × 8 cells of the terminal's own type
 * with the pane's chrome (header, padding, a divider), in CSS px (`layout.area`).
 */
import type { LayoutArea } from '../../preload/contract.ts';

export const MIN_COLS = 40;
export const MIN_ROWS = 8;
/** A divider between panes (styles.css `.divider`). */
const DIVIDER_PX = 6;
/** The bench's narrowest and its share of a pane (styles.css `.pane-bench`: clamp(220px, 36%, 420px)). */
const BENCH_MIN_PX = 220;
const BENCH_SHARE = 0.36;

export interface CellMeasure {
  /** One cell, in px. */
  cellWidth: number;
  cellHeight: number;
  /** A pane's width and height less its terminal's cells (header, padding; not the bench). */
  chromeWidth: number;
  chromeHeight: number;
}

/** The area message for a panes area of `width` × `height` px and a terminal measured as `m`. */
export function layoutArea(width: number, height: number, m: CellMeasure): LayoutArea {
  const minWidth = Math.ceil(MIN_COLS * m.cellWidth + m.chromeWidth + DIVIDER_PX);
  const minHeight = Math.ceil(MIN_ROWS * m.cellHeight + m.chromeHeight + DIVIDER_PX);
  // With the bench open the terminal keeps its minimum beside a bench at its narrowest (or its share).
  const benchWidth = Math.ceil(Math.max(BENCH_MIN_PX, (minWidth * BENCH_SHARE) / (1 - BENCH_SHARE)));
  return { width: Math.floor(width), height: Math.floor(height), minWidth, minHeight, benchWidth };
}

/** Measure a terminal on screen: the cell from its screen and its size in cells, the chrome from its pane. */
export function measureCells(workspace: HTMLElement, size: (paneId: string) => { cols: number; rows: number } | undefined): CellMeasure | undefined {
  for (const pane of workspace.querySelectorAll<HTMLElement>('.pane[data-pane-id]')) {
    const s = size(pane.dataset.paneId!);
    const screen = pane.querySelector('.xterm-screen')?.getBoundingClientRect();
    if (!s || !screen || s.cols < 2 || s.rows < 1 || screen.width <= 0 || screen.height <= 0) continue;
    const box = pane.getBoundingClientRect();
    const bench = pane.querySelector('.pane-bench')?.getBoundingClientRect().width ?? 0;
    return {
      cellWidth: screen.width / s.cols,
      cellHeight: screen.height / s.rows,
      chromeWidth: Math.max(0, box.width - bench - screen.width),
      chromeHeight: Math.max(0, box.height - screen.height),
    };
  }
  return undefined;
}
