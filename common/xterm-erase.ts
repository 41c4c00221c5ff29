/**
 * xterm (@xterm/xterm and @xterm/headless 6.0.0) erases above the cursor (CSI 1 J, and the
 * selective CSI ? 1 J) with the cursor in its row's last column by also marking the row below
 * it as not wrapped, but it reads that row as `y + 1` of the whole buffer, counted from the
 * scrollback's top, not of the screen: it unwraps a row of the history, which one depending on
 * how many rows the buffer holds above (and throws where there is no such row: a screen with no
scrollback yet, or the alternate one, the cursor in its bottom right cell). The service's screen, which keeps only its newest
 * rows in xterm's cells (the rest in its archive), and a reference xterm fed every byte then
 * hold different rows there, and a window's xterm a third (found by seed 2090 of
 * main/panes/screen-history.test.ts's search: a line of the history split in two). This
 * handler erases as xterm does short of the last column (xterm's own erase above, the cursor
 * put in the column before), then that column (its erase to the row's end), and unwraps the
 * screen's row below the cursor, as meant. Not public API (the input handler's eraseInDisplay,
 * eraseInLine and active buffer): nothing is registered where they are not as 6.0.0 has them.
 */
interface Line {
  isWrapped: boolean;
}

interface InputHandlerView {
  eraseInDisplay(params: { params: ArrayLike<number> }, respectProtect?: boolean): boolean;
  eraseInLine(params: { params: ArrayLike<number> }, respectProtect?: boolean): boolean;
  _activeBuffer: { x: number; y: number; ybase: number; lines: { get(i: number): Line | undefined } };
}

export interface ErasableTerm {
  readonly rows: number;
  readonly cols: number;
  parser: { registerCsiHandler(id: { prefix?: string; final: string }, callback: (params: (number | number[])[]) => boolean | Promise<boolean>): { dispose(): void } };
}

export function mendEraseAbove(term: ErasableTerm): void {
  const ih = (term as unknown as { _core?: { _inputHandler?: Partial<InputHandlerView> } })._core?._inputHandler;
  if (!ih || typeof ih.eraseInDisplay !== 'function' || typeof ih.eraseInLine !== 'function' || !ih._activeBuffer?.lines) return;
  const handler = (respectProtect: boolean) => (params: (number | number[])[]): boolean => {
    const view = ih as InputHandlerView;
    const buf = view._activeBuffer;
    // Not an erase above, or the cursor short of the last column: xterm's own.
    if (params[0] !== 1 || buf.x + 1 < term.cols || term.cols < 2) return false;
    const x = buf.x;
    buf.x = term.cols - 2;
    view.eraseInDisplay({ params: [1] }, respectProtect);
    buf.x = term.cols - 1;
    view.eraseInLine({ params: [0] }, respectProtect);
    buf.x = x;
    const below = buf.y + 1 < term.rows ? buf.lines.get(buf.ybase + buf.y + 1) : undefined;
    if (below) below.isWrapped = false;
    return true;
  };
  term.parser.registerCsiHandler({ final: 'J' }, handler(false));
  term.parser.registerCsiHandler({ prefix: '?', final: 'J' }, handler(true));
}
