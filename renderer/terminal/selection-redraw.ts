/**
 * xterm 6 asks its renderer to redraw the selection after every scroll, selection or not
 * (its core's scroll listener calls `SelectionService.refresh()`, which fires once a frame).
 * The DOM renderer answers each ask by drawing every row again (xtermjs/xterm.js#4633, open
 * upstream), so while output scrolls, each frame drew the whole screen twice: once for the
 * rows that changed, once for the selection that was not there. In a 32 MiB `cat` measured
 * in Chromium (bench/peer.bench.ts), that second draw was the frame's largest script.
 *
 * `skipEmptySelectionRedraws` lets an ask through only when a selection is there or was
 * there at the last one (its highlight has to be drawn, moved or cleared); from nothing to
 * nothing, the rows already drawn are right. It reaches into xterm's render service (not
 * public API); where that is not as expected (another xterm version), it changes nothing
 * and says so (false). `e2e/window.e2e.ts` ("draws each DOM row once a frame…") holds it to
 * the version in the lockfile.
 */
import type { Terminal } from '@xterm/xterm';

type Point = [number, number] | undefined;

interface RenderServiceInternals {
  handleSelectionChanged(start: Point, end: Point, columnSelectMode: boolean): void;
  _selectionState?: { start: Point; end: Point; columnSelectMode: boolean };
}

/**
 * A selection the renderer draws: both ends known and apart. A click without a drag leaves
 * a selection of no cells (its end where it starts), which draws nothing.
 */
const drawn = (start: Point, end: Point): boolean => start !== undefined && end !== undefined && (start[0] !== end[0] || start[1] !== end[1]);

/** Skip the renderer's selection redraws from no selection to no selection (see the header); call after `open`. True when installed. */
export function skipEmptySelectionRedraws(term: Terminal): boolean {
  const service = (term as unknown as { _core?: { _renderService?: RenderServiceInternals } })._core?._renderService;
  const state = service?._selectionState;
  if (!service || typeof service.handleSelectionChanged !== 'function' || !state || typeof state !== 'object') return false;
  const original = service.handleSelectionChanged.bind(service);
  service.handleSelectionChanged = (start, end, columnSelectMode) => {
    if (!drawn(start, end) && !drawn(state.start, state.end)) {
      // Kept as xterm keeps it, for a renderer loaded later (the WebGL addon) to start from.
      state.start = start;
      state.end = end;
      state.columnSelectMode = columnSelectMode;
      return;
    }
    original(start, end, columnSelectMode);
  };
  return true;
}
