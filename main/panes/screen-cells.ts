/**
 * A terminal's visible screen as runs of cells that look alike (text, colours, attributes)
 * and where its cursor is: what a window's first paint draws before its own terminal exists
 * (common/first-paint.ts, docs/spec/performance.md "A window attaching, in order").
 * Reads the buffer as parsed so far; the caller parses what waits first (Screen.cells()).
 */
import type headless from '@xterm/headless';
import type { IBufferCell as Cell } from '@xterm/headless';
import { CELL, type CellColour, type CellRun, type ScreenCells } from '../../common/first-paint.ts';

type Term = InstanceType<typeof headless.Terminal>;

function colour(mode: 'fg' | 'bg', cell: Cell): CellColour {
  if (mode === 'fg' ? cell.isFgDefault() : cell.isBgDefault()) return null;
  const value = mode === 'fg' ? cell.getFgColor() : cell.getBgColor();
  if (mode === 'fg' ? cell.isFgRGB() : cell.isBgRGB()) return `#${value.toString(16).padStart(6, '0')}`;
  return value;
}

function flagsOf(cell: Cell): number {
  return (cell.isBold() ? CELL.bold : 0) | (cell.isItalic() ? CELL.italic : 0) | (cell.isUnderline() ? CELL.underline : 0)
    | (cell.isInverse() ? CELL.inverse : 0) | (cell.isDim() ? CELL.dim : 0) | (cell.isInvisible() ? CELL.invisible : 0)
    | (cell.isStrikethrough() ? CELL.strike : 0) | (cell.isOverline() ? CELL.overline : 0);
}

/** Whether a cell draws anything: a character other than a space, or a background, an inverse or an underline. */
function shows(cell: Cell): boolean {
  const ch = cell.getChars();
  return (ch !== '' && ch !== ' ') || !cell.isBgDefault() || !!cell.isInverse() || !!cell.isUnderline();
}

/** Whether the program hid the cursor (DECTCEM): xterm keeps it in its core, not in public API; shown when unknown. */
function cursorHidden(term: Term): boolean {
  const core = (term as unknown as { _core?: { coreService?: { isCursorHidden?: unknown } } })._core;
  return core?.coreService?.isCursorHidden === true;
}

/**
 * The rows on screen (the bottom of the buffer, as a window that just drew them shows it), each
 * as runs; trailing blank cells with no background are left out. A wide character's second
 * cell is skipped (the character takes both).
 */
export function screenCells(term: Term): ScreenCells {
  const buf = term.buffer.active;
  const lines: CellRun[][] = [];
  let cell: Cell | undefined;
  for (let y = 0; y < term.rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    const runs: CellRun[] = [];
    if (line) {
      // Past the last cell that shows something (a character, or a background), nothing is drawn.
      let end = 0;
      for (let x = 0; x < term.cols; x++) {
        cell = line.getCell(x, cell);
        if (cell && shows(cell)) end = x + 1;
      }
      let run: CellRun | undefined;
      for (let x = 0; x < end; x++) {
        cell = line.getCell(x, cell);
        if (!cell || cell.getWidth() === 0) continue;
        const text = cell.getChars() || ' ';
        const fg = colour('fg', cell);
        const bg = colour('bg', cell);
        const flags = flagsOf(cell);
        if (run && run.fg === fg && run.bg === bg && run.flags === flags) run.text += text;
        else runs.push((run = { text, fg, bg, flags }));
      }
    }
    lines.push(runs);
  }
  return { cols: term.cols, rows: term.rows, lines, cursor: { x: buf.cursorX, y: buf.cursorY, visible: !cursorHidden(term) }, appCursor: term.modes.applicationCursorKeysMode };
}
