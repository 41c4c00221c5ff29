/**
 * A terminal resized, its alternate buffer kept to the screen's rows: for the headless screen
 * in the service (main/panes/screen.ts) and for the page's terminals (renderer/terminal/session.ts,
 * the phone's screen), which run the same xterm (@xterm/xterm and @xterm/headless 6.0.0).
 * xterm shrinks that buffer's room only when it holds rows: one not used yet keeps the room
 * of the first size, so a program that switches to it after a resize to fewer rows scrolls
 * rows into it as if it had scrollback, and with a scroll region set after the next resize,
 * xterm throws at the next line feed ("start argument out of range", from the parser: seed
 * 1411 of main/panes/screen.test.ts's search). In the service that would end it; in the page
 * a throw inside xterm's write queue leaves the rest of the queue unwritten, and the pane's
 * view stops for good. Not public API: left alone where it is not as 6.0.0 has it.
 */
export interface ResizableTerm {
  resize(cols: number, rows: number): void;
}

export function resizeKeepingAlt(term: ResizableTerm, cols: number, rows: number): void {
  term.resize(cols, rows);
  const alt = (term as unknown as { _core?: { _bufferService?: { buffers?: { alt?: { lines?: { length: number; maxLength: number } } } } } })._core?._bufferService?.buffers?.alt?.lines;
  if (alt && typeof alt.maxLength === 'number' && alt.length === 0 && alt.maxLength > rows) alt.maxLength = rows;
}
