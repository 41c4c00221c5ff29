/**
 * Whether a pane's terminal is big enough to read (docs/spec/window.md, "Panes out of view"). A
 * terminal too small to read, or on a hidden page (minimized, a browser tab in the background),
 * is out of view: it tells the core (`pane.view`), which sends this window none of the pane's
 * output until it is shown again and redraws from a snapshot (issue 38).
 */

/** A terminal with fewer rows or columns than this is too small to read. */
export const VIEW_MIN = { rows: 3, cols: 10 } as const;

/** Whether a terminal of this fitted size can be read: at least VIEW_MIN. */
export function readable(size: { cols: number; rows: number }): boolean {
  return size.rows >= VIEW_MIN.rows && size.cols >= VIEW_MIN.cols;
}
