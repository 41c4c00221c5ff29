/**
 * xterm 6 brings its scrollbar (VS Code's scrollable element) up to date with the buffer at
 * every line the buffer scrolls by: its Viewport listens to the buffer's scroll and calls
 * `_sync()` at once, which sets the scrollbar's extent and position, and each new position
 * shows the scrollbar and starts its hide timer again (it also syncs once a frame after a
 * scroll: `queueSync`). While output fills a terminal's history that is all of a flood's
 * lines: 14,000 lines written to a fresh terminal in Chromium took 55-131 ms, 15-54 ms with
 * one sync a task (`node bench/xterm-scroll.ts`; docs/spec/performance.md, "The scrollbar is
 * synced once a task"). xterm 5 synced only once a frame (xtermjs/xterm.js#1607).
 *
 * `syncScrollbarOncePerTask` makes the buffer's calls (`_sync()` with no argument) wait for
 * the end of the task that made them (a microtask): one sync per parse of xterm's write
 * buffer instead of one per line, and the scrollbar is exact again before the page handles
 * anything else (a wheel, a key, a drag on the scrollbar reads it); scrolling by the
 * terminal's API in that same task (a redraw's write callback keeps the person's line) syncs
 * first, as it starts from the scrollbar's position. Calls with an argument (xterm's own
 * `queueSync`, once a frame after a scroll, a resize or a buffer switch) go through as before. It reaches
 * into xterm's Viewport (not public API); where that is not as expected (another xterm
 * version), it changes nothing and says so (false). `e2e/window.e2e.ts` ("syncs the
 * scrollbar once a task…") holds it to the version in the lockfile.
 */
import type { Terminal } from '@xterm/xterm';

interface ViewportInternals {
  _sync(ydisp?: number): void;
  /** Scrolling by the terminal's API (scrollLines, scrollToLine, scrollToBottom, ...) starts from the scrollbar's position. */
  scrollLines(disp: number): void;
  scrollToLine(line: number, disableSmoothScroll?: boolean): void;
  /** Its disposables (VS Code's Disposable): disposed with the terminal. */
  _store?: { isDisposed?: boolean };
}

/** Sync xterm's scrollbar once a task while the buffer scrolls (see the header); call after `open`. True when installed. */
export function syncScrollbarOncePerTask(term: Terminal): boolean {
  const viewport = (term as unknown as { _core?: { _viewport?: ViewportInternals } })._core?._viewport;
  if (!viewport || typeof viewport._sync !== 'function' || typeof viewport.scrollLines !== 'function' || typeof viewport.scrollToLine !== 'function' || Object.prototype.hasOwnProperty.call(viewport, '_sync')) return false;
  const original = viewport._sync.bind(viewport);
  const scrollLines = viewport.scrollLines.bind(viewport);
  const scrollToLine = viewport.scrollToLine.bind(viewport);
  let pending = false;
  const flush = (): void => {
    if (!pending) return;
    pending = false;
    // A terminal disposed in the task that scrolled it has no scrollbar left to sync.
    if (viewport._store?.isDisposed) return;
    // With no argument, as the buffer's listener calls it: the buffer's position as it is now.
    original();
  };
  viewport._sync = function sync(...args: [number?]): void {
    if (args.length > 0) return original(...args);
    if (pending) return;
    pending = true;
    queueMicrotask(flush);
  };
  // Scrolling in the same task as the lines (a redraw's write callback scrolls to the line it
  // kept) starts from the scrollbar's position: brought up to date first.
  viewport.scrollLines = (disp) => {
    flush();
    scrollLines(disp);
  };
  viewport.scrollToLine = (line, disableSmoothScroll) => {
    flush();
    scrollToLine(line, disableSmoothScroll);
  };
  return true;
}
